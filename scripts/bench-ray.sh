#!/usr/bin/env bash
# Self-play on a local Ray cluster against self-play here, back to back: one Six
# generation of GAMES games (default 512, 160 simulations, MLP 256x3 as configs/six.toml)
# played
#   1. here, one thread;
#   2. on a Ray cluster of one node with one CPU (one worker process);
#   3. on a Ray cluster of two nodes with one CPU each (two worker processes).
# Prints each generation's self-play seconds and positions/s, and per Ray task the time
# kvarn selfplay spent on its games against the task's whole time on the worker (the
# task's overhead: starting the binary, loading the model, returning the shards).
#
#   scripts/bench-ray.sh [GAMES] [GAMES_PER_TASK]
#
# Needs a Python with ray (KVARN_PYTHON, default .venv/bin/python as scripts/test.sh makes
# it). Stops every Ray process of this user when done (ray stop --force).
set -euo pipefail
cd "$(dirname "$0")/.."
games=${1:-512}
per_task=${2:-64}
python=${KVARN_PYTHON:-$PWD/.venv/bin/python}
ray_cli=$(dirname "$python")/ray
kvarn=$PWD/target/release/kvarn
[[ -x $kvarn ]] || cargo build --release -p kvarn --locked
work=$(mktemp -d)
trap '"$ray_cli" stop --force >/dev/null 2>&1 || true; rm -rf "$work"' EXIT

config() { # backend address
    cat <<EOF
seed = 5
[rules]
variant = "six"
[network]
kind = "mlp"
hidden = 256
blocks = 3
[search]
simulations = 160
[selfplay]
threads = 1
games_per_thread = 16
games_per_shard = 16
backend = "$1"
[selfplay.ray]
address = "$2"
games_per_task = $per_task
python = "$python"
[train]
batch_size = 32
steps_per_generation = 1
[loop]
generations = 1
games_per_generation = $games
games_vs_previous = 0
games_vs_random = 0
baseline_depths = []
EOF
}

run() { # name backend address
    mkdir -p "$work/$1"
    config "$2" "$3" > "$work/$1/config.toml"
    (cd "$work/$1" && "$kvarn" train --config config.toml --out run > log.txt 2>&1)
    "$python" - "$work/$1" "$1" <<'EOF'
import json, re, sys
folder, name = sys.argv[1], sys.argv[2]
lines = open(f"{folder}/run/manifest.json").read().splitlines()
record = json.loads(lines[1])
figures = record["selfplay"]
log = open(f"{folder}/log.txt").read()
played = [float(x) for x in re.findall(r'played_s="?([0-9.]+)', log)]
whole = [float(x) for x in re.findall(r'task_s="?([0-9.]+)', log)]
positions = figures["positions_per_second"]
print(f"{name:<28} {figures['games']:>4} games, {positions:>8.0f} positions/s", end="")
if played:
    overhead = [w - p for w, p in zip(whole, played)]
    print(f", {len(played)} tasks: {sum(played)/len(played):.2f} s of games, "
          f"{sum(whole)/len(whole):.2f} s on the worker (overhead {sum(overhead)/len(overhead):.2f} s a task)", end="")
print()
EOF
}

echo "bench ray: Six, $games games, 160 simulations, MLP 256x3, tasks of $per_task games, $(nproc) cores"
run "here, 1 thread" local auto
"$ray_cli" stop --force >/dev/null 2>&1 || true
"$ray_cli" start --head --port=6399 --num-cpus=1 --include-dashboard=false --disable-usage-stats >/dev/null
run "ray, 1 node x 1 CPU" ray 127.0.0.1:6399
"$ray_cli" start --address=127.0.0.1:6399 --num-cpus=1 --disable-usage-stats >/dev/null
run "ray, 2 nodes x 1 CPU" ray 127.0.0.1:6399
