#!/usr/bin/env python3
"""Compares two runs' summary.csv figure by figure, timings excluded, to check that a run
with the same configuration and seed reproduces another (e.g. after a refactor).

    scripts/compare-summaries.py docs/results/quickstart/summary.csv runs/quickstart/summary.csv

Columns of summaries written before each figure was named once (`score_vs_alphabeta_d2`,
...) are read under today's names. Only the generations both files hold are compared.
Exits 1 when a figure differs.
"""
import csv
import re
import sys

TIMINGS = {"run/generation_seconds", "selfplay/positions_per_second", "train/steps_per_second"}
OLD_NAMES = {
    "step": "train/step",
    "promoted": "eval/promoted",
    "seconds": "run/generation_seconds",
    "selfplay_positions_per_second": "selfplay/positions_per_second",
    "train_steps_per_second": "train/steps_per_second",
    "window_samples": "train/window_samples",
    "loss_policy": "train/loss_policy_generation",
    "loss_value": "train/loss_value_generation",
    "solver_value_accuracy": "solver/value_accuracy",
    "solver_value_keeping": "solver/value_keeping_moves",
    "solver_blunders": "solver/blunders",
    "perfect_wins": "eval/wins_vs_perfect",
    "perfect_draws": "eval/draws_vs_perfect",
    "perfect_losses": "eval/losses_vs_perfect",
}


def today(name):
    """A column's name as today's summaries write it."""
    name = OLD_NAMES.get(name, name)
    m = re.fullmatch(r"(score|elo)_vs_alphabeta_d(\d+)", name)
    if m:
        return f"eval/{m.group(1)}_vs_alphabeta_depth{m.group(2)}"
    m = re.fullmatch(r"(score|elo)_vs_(previous|random)", name)
    if m:
        return f"eval/{name}"
    return name


def rows(path):
    with open(path, newline="") as f:
        return {r["generation"]: {today(k): v for k, v in r.items()} for r in csv.DictReader(f)}


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    a, b = rows(sys.argv[1]), rows(sys.argv[2])
    generations = sorted(set(a) & set(b), key=int)
    compared = differences = 0
    for g in generations:
        for name in sorted((set(a[g]) & set(b[g])) - TIMINGS - {"generation"}):
            compared += 1
            if a[g][name] != b[g][name]:
                differences += 1
                print(f"generation {g}: {name} {a[g][name]} -> {b[g][name]}")
    print(f"{len(generations)} generations, {compared} figures compared, {differences} differences (timings excluded)")
    sys.exit(1 if differences else 0)


if __name__ == "__main__":
    main()
