#!/usr/bin/env python3
"""The network engine's memory under `go infinite`: for each Hash, `kvarn engine --model`
analyses the start position for SECONDS, then is sent `stop`; prints the peak resident
memory (VmHWM), the simulations made, the last `hashfull` and the move `stop` got.

    python3 scripts/engine-memory.py [--kvarn target/release/kvarn] [--model models/nine.kvmodel]
        [--seconds 600] [--hash default --hash 64 --hash 2048]

The engines run one after another, each alone on the machine, unless --together.
"""

import argparse
import subprocess
import threading
import time


def status_kib(pid, field):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def field(line, name):
    words = line.split()
    if name in words:
        i = words.index(name)
        if i + 1 < len(words):
            return words[i + 1]
    return None


class Engine:
    def __init__(self, kvarn, model, hash_mib):
        self.hash = hash_mib
        self.proc = subprocess.Popen(
            [kvarn, "engine", "--model", model],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            bufsize=1,
        )
        self.last_info = ""
        self.bestmove = None
        self.reader = threading.Thread(target=self.read, daemon=True)
        self.reader.start()
        options = "" if hash_mib == "default" else f"setoption name Hash value {hash_mib}\n"
        self.send(options + "position startpos\ngo infinite\n")
        self.started = time.monotonic()

    def send(self, text):
        self.proc.stdin.write(text)
        self.proc.stdin.flush()

    def read(self):
        for line in self.proc.stdout:
            if line.startswith("info depth"):
                self.last_info = line
            elif line.startswith("bestmove"):
                self.bestmove = line.split()[1]

    def finish(self):
        peak = status_kib(self.proc.pid, "VmHWM")
        asked = time.monotonic()
        self.send("stop\n")
        while self.bestmove is None and time.monotonic() - asked < 30:
            time.sleep(0.01)
        answered = time.monotonic() - asked
        self.send("quit\n")
        self.proc.wait(timeout=30)
        return {
            "hash": self.hash,
            "seconds": round(asked - self.started),
            "peak_mb": peak / 1024,
            "nodes": field(self.last_info, "nodes"),
            "hashfull": field(self.last_info, "hashfull"),
            "bestmove": self.bestmove,
            "stop_ms": answered * 1000,
        }


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kvarn", default="target/release/kvarn")
    ap.add_argument("--model", default="models/nine.kvmodel")
    ap.add_argument("--seconds", type=float, default=600)
    ap.add_argument("--hash", action="append", help="MiB, or `default` (repeatable)")
    ap.add_argument("--together", action="store_true", help="run the engines at once")
    args = ap.parse_args()
    hashes = args.hash or ["default", "64", "2048"]
    rows = []
    if args.together:
        engines = [Engine(args.kvarn, args.model, h) for h in hashes]
        time.sleep(args.seconds)
        rows = [e.finish() for e in engines]
    else:
        for h in hashes:
            e = Engine(args.kvarn, args.model, h)
            time.sleep(args.seconds)
            rows.append(e.finish())
    print("| Hash (MiB) | seconds | peak resident (MB) | simulations | hashfull | stop answered |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        answer = f"bestmove {r['bestmove']} in {r['stop_ms']:.0f} ms" if r["bestmove"] else "no bestmove"
        print(
            f"| {r['hash']} | {r['seconds']} | {r['peak_mb']:.0f} | {r['nodes']} | "
            f"{r['hashfull']} | {answer} |"
        )


if __name__ == "__main__":
    main()
