"""Reading the JSON Lines files Kvarn writes (kvarn_storage::write_jsonl): a header line,
one line per row, and a last line with the CRC-32 of every byte before it. The one reader
the scripts share, checking the checksum as kvarn_storage::parse_jsonl does."""
import json
import zlib


class Refused(Exception):
    """A file that is empty, cut short, damaged or not of the kind asked for."""


def read_lines(path):
    """The header line and the row lines (bytes, as written), after the checksum check."""
    with open(path, "rb") as f:
        data = f.read()
    if not data:
        raise Refused(f"{path}: empty (0 bytes): cut short or never written")
    end = data.rstrip(b"\n").rfind(b"\n")
    if end < 0:
        raise Refused(f"{path}: too short to hold a header and a checksum")
    body, last = data[: end + 1], data[end + 1 :].strip()
    trailer = json_object(path, "last", last)
    if "crc32" not in trailer:
        raise Refused(f"{path}: the last line is not the checksum line: cut short or damaged")
    crc = f"{zlib.crc32(body):08x}"
    if crc != trailer.get("crc32"):
        raise Refused(f"{path}: checksum {trailer.get('crc32')} does not match its contents "
                      f"({crc}): damaged or edited")
    lines = body.split(b"\n")[:-1]
    return lines[0], lines[1:]


def json_object(path, number, line):
    """Line `number` of `path` as a JSON object, or Refused naming the line."""
    try:
        value = json.loads(line)
    except ValueError as e:  # bad JSON or bad UTF-8
        raise Refused(f"{path}: line {number}: not JSON ({e})")
    if not isinstance(value, dict):
        raise Refused(f"{path}: line {number}: not a JSON object")
    return value
