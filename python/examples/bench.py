"""Speed of the package from Python, for the figures issue 65 asks for.

    python python/examples/bench.py [--seconds 10]

- Random playouts of Nine Men's Morris, the same Python loop on both sides (legal
  moves, choose one, play), with kvarn and, where it is installed, OpenSpiel's
  ``nine_mens_morris``: plies per second.
- Batched stepping of 1024 games from Python (observe into NumPy, choose legal actions,
  step): plies per second, to compare with ``kvarn bench batch --games 1024``.
"""

import argparse
import random
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


def batched(seconds, games=1024):
    rules = kvarn.Rules("nine")
    sim = kvarn.BatchSim(rules, games)
    obs = np.zeros((games, rules.input_len), np.float32)
    masks = np.zeros((games, rules.actions), bool)
    rng = np.random.default_rng(1)
    steps = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        sim.observe(obs, masks)
        # A uniformly random legal action in each game, chosen in NumPy.
        scores = rng.random(masks.shape) * masks
        sim.step(scores.argmax(axis=1).astype(np.int64))
        steps += 1
    return steps * games / (time.perf_counter() - start)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=10.0)
    args = parser.parse_args()
    k = kvarn_playouts(args.seconds)
    o = openspiel_playouts(args.seconds)
    print(f"random playouts, Python loop: kvarn {k:.0f} plies/s", end="")
    print(f", OpenSpiel {o:.0f} plies/s: {k / o:.2f} times" if o else ", OpenSpiel not installed")
    print(f"batched stepping of 1024 games from Python: {batched(args.seconds):.0f} plies/s")


if __name__ == "__main__":
    main()
