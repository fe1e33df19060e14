"""Speed of the package from Python, against OpenSpiel and against Kvarn's Rust benchmark.

    python python/examples/bench.py [--seconds 10] [--kvarn target/release/kvarn]

- Random playouts of Nine Men's Morris, the same Python loop on both sides (legal
  moves, choose one, play), with kvarn and, where it is installed, OpenSpiel's
  ``nine_mens_morris``: plies per second.
- Batched stepping of 1024 games from Python: random legal actions and a step
  (``sim.step(sim.random_actions())``), and a learner's step (observe into NumPy, random
  legal actions, step); each beside the same loop in Rust, ``kvarn bench batch --games
  1024``, run right after it where a kvarn binary is given or on the PATH.
"""

import argparse
import random
import re
import shutil
import subprocess
import time

import numpy as np

import kvarn


def playouts(new_game, legal, play, is_over, seconds):
    rng = random.Random(1)
    plies = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        game = new_game()
        while not is_over(game):
            play(game, rng.choice(legal(game)))
            plies += 1
    return plies / (time.perf_counter() - start)


def kvarn_playouts(seconds):
    rules = kvarn.Rules("nine")
    return playouts(
        lambda: kvarn.Game(rules),
        lambda g: g.legal_actions(),
        lambda g, a: g.play_action(a),
        lambda g: g.is_over,
        seconds,
    )


def openspiel_playouts(seconds):
    try:
        import pyspiel
    except ImportError:
        return None
    game = pyspiel.load_game("nine_mens_morris")
    return playouts(
        game.new_initial_state,
        lambda s: s.legal_actions(),
        lambda s, a: s.apply_action(a),
        lambda s: s.is_terminal(),
        seconds,
    )


def batched(seconds, observe, games=1024):
    """Plies per second of 1024 games stepped with random legal actions drawn in Rust,
    observations and masks written into NumPy arrays first where `observe`."""
    rules = kvarn.Rules("nine")
    sim = kvarn.BatchSim(rules, games, seed=1)
    obs = np.zeros((games, rules.input_len), np.float32)
    masks = np.zeros((games, rules.actions), bool)
    steps = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        if observe:
            sim.observe(obs, masks)
        sim.step(sim.random_actions())
        steps += 1
    return steps * games / (time.perf_counter() - start)


def rust_batched(binary, seconds):
    """`kvarn bench batch --games 1024`'s stepping and learner's step, plies per second."""
    if binary is None:
        return None, None
    out = subprocess.run(
        [binary, "bench", "batch", "--games", "1024", "--seconds", str(seconds)],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    step = re.search(r"step \(random legal actions, checked\): ([\d.]+) M", out)
    learner = re.search(r"a learner's step .*: ([\d.]+) M", out)
    return float(step.group(1)) * 1e6, float(learner.group(1)) * 1e6


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--kvarn", default=shutil.which("kvarn"), help="the kvarn binary")
    args = parser.parse_args()
    k = kvarn_playouts(args.seconds)
    o = openspiel_playouts(args.seconds)
    print(f"random playouts, Python loop: kvarn {k:.0f} plies/s", end="")
    print(f", OpenSpiel {o:.0f} plies/s: {k / o:.2f} times" if o else ", OpenSpiel not installed")
    step, learner = batched(args.seconds, False), batched(args.seconds, True)
    rust_step, rust_learner = rust_batched(args.kvarn, args.seconds)
    for name, py, rust in [("random actions and step", step, rust_step),
                           ("observe, random actions and step", learner, rust_learner)]:
        print(f"1024 games from Python, {name}: {py:.0f} plies/s", end="")
        print(f"; Rust {rust:.0f} plies/s: {py / rust:.2f}" if rust else "; no kvarn binary")


if __name__ == "__main__":
    main()
