"""Kvarn's Ray driver: plays one generation's self-play games on a Ray cluster.

`kvarn train` writes a task file and runs `python ray_driver.py TASKS.json`; this script
connects to the cluster, runs each task (a share of the generation's game indices) as the
`kvarn selfplay` binary on some worker, and writes the shards each task returns into the
run folder, atomically (temporary name, fsync, rename). It prints one JSON line per
finished task, which `kvarn train` reads for its progress bar and figures.

What reaches the workers: the `kvarn` binary, the model and the run configuration go into
Ray's object store once per generation and are kept in a cache folder on each node, named
by content hash, so a worker machine needs nothing but Ray (and Python). Where self-play
uses endgame databases, each node solves them once into its cache (`kvarn solve`, under a
file lock) instead of receiving them.

Faults: a task whose worker process or node dies, or whose `kvarn` fails, is retried up to
`max_retries` times by Ray. Game i is seeded by the generation's seed and i alone, so a
retried task plays the same games and writes the same shard names: a generation never
holds a game twice. A task that fails every try ends the driver with an error; the shards
already written stay, and `kvarn train --resume` plays only the missing games.
"""

import fcntl
import hashlib
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time

import ray

CACHE = os.path.join(tempfile.gettempdir(), "kvarn-ray-cache")


def cached(name, digest, ref, executable=False):
    """The node-local path of a file from the object store, fetched once per node."""
    os.makedirs(CACHE, exist_ok=True)
    path = os.path.join(CACHE, f"{digest[:16]}-{name}")
    if not os.path.exists(path):
        data = ray.get(ref)
        tmp = f"{path}.{os.getpid()}.tmp"
        with open(tmp, "wb") as f:
            f.write(data)
        os.chmod(tmp, 0o755 if executable else 0o644)
        os.replace(tmp, path)
    return path


def databases(binary, solve_args, key):
    """The endgame databases on this node, solved once (under a lock, marked when done)."""
    folder = os.path.join(CACHE, f"db-{key}")
    done = os.path.join(CACHE, f"db-{key}.done")
    if os.path.exists(done):
        return folder
    with open(os.path.join(CACHE, f"db-{key}.lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not os.path.exists(done):
            subprocess.run(
                [binary, *solve_args, "--out", folder],
                check=True,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                preexec_fn=die_with_parent,
            )
            open(done, "w").close()
    return folder


def die_with_parent():
    """In the child: be killed when the worker that started it dies (Linux), so that a
    task whose worker was killed leaves no kvarn running while Ray retries it."""
    try:
        import ctypes

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, 9)  # PR_SET_PDEATHSIG, SIGKILL
    except OSError:
        pass


@ray.remote
def play(task, files, spec):
    """Plays one task's games; returns its shards (name, bytes) and figures."""
    began = time.monotonic()
    binary = cached("kvarn", files["binary"][0], files["binary"][1][0], executable=True)
    model = cached("model.kvmodel", files["model"][0], files["model"][1][0])
    config = cached("config.toml", files["config"][0], files["config"][1][0])
    work = tempfile.mkdtemp(prefix="kvarn-task-")
    try:
        out = os.path.join(work, "shards")
        stats = os.path.join(work, "stats.json")
        command = [
            binary, "selfplay", "--config", config, "--model", model,
            "--model-name", spec["model_name"], "--seed", str(spec["seed"]),
            "--indices", task["indices"], "--threads", str(spec["threads"]),
            "--out", out, "--stats", stats,
        ]
        if spec["solve"] is not None:
            command += ["--db", databases(binary, spec["solve"], spec["solve_key"])]
        done = subprocess.run(
            command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, preexec_fn=die_with_parent
        )
        if done.returncode != 0:
            tail = done.stderr.decode(errors="replace")[-2000:]
            raise RuntimeError(f"kvarn selfplay exited with {done.returncode}: {tail}")
        shards = []
        for name in sorted(os.listdir(out)):
            if not name.endswith(".kvsp"):
                continue  # the folder's lock file
            with open(os.path.join(out, name), "rb") as f:
                shards.append((name, f.read()))
        with open(stats) as f:
            figures = json.load(f)
        return {"shards": shards, "stats": figures, "node": ray.get_runtime_context().get_node_id(),
                "host": socket.gethostname(), "task_seconds": time.monotonic() - began}
    finally:
        shutil.rmtree(work, ignore_errors=True)


def put_file(path):
    with open(path, "rb") as f:
        data = f.read()
    # The reference travels inside a list so that tasks fetch it only on a cache miss.
    return hashlib.sha256(data).hexdigest(), [ray.put(data)]


def write_atomically(folder, name, data):
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, name)
    tmp = f"{path}.tmp"
    with open(tmp, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def check_placeable(spec):
    """Fails at once, with the reason, where no node of the cluster can place a task: Ray
    would otherwise wait for one for ever (its warning of an infeasible task is not shown
    with the driver's logging off)."""
    need = spec["threads"]
    most = max((n.get("Resources", {}).get("CPU", 0) for n in ray.nodes() if n.get("Alive")),
               default=0)
    if need > most:
        print(f"no node of the Ray cluster at {spec['address']} can place a task of {need} "
              f"CPUs (selfplay.ray.threads_per_task): its largest node has {most:g}; lower "
              f"threads_per_task or add a larger node", file=sys.stderr)
        sys.exit(1)


def main():
    with open(sys.argv[1]) as f:
        spec = json.load(f)
    ray.init(address=spec["address"], logging_level="ERROR", log_to_driver=False)
    check_placeable(spec)
    files = {key: put_file(spec[key]) for key in ("binary", "model", "config")}
    remote = play.options(
        num_cpus=spec["threads"], max_retries=spec["max_retries"], retry_exceptions=True
    )
    started = time.monotonic()
    pending = {remote.remote(task, files, spec): task for task in spec["tasks"]}
    while pending:
        ready, _ = ray.wait(list(pending), num_returns=1)
        task = pending.pop(ready[0])
        try:
            result = ray.get(ready[0])
        except Exception as e:  # every try failed
            print(f"task {task['id']} ({task['indices']}) failed: {e}", file=sys.stderr)
            sys.exit(1)
        for name, data in result["shards"]:
            write_atomically(spec["out"], name, data)
        line = {**result["stats"], "task": task["id"], "node": result["node"],
                "host": result["host"], "task_seconds": result["task_seconds"],
                "since_start": time.monotonic() - started}
        print(json.dumps(line), flush=True)


if __name__ == "__main__":
    main()
