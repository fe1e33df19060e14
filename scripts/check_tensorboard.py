#!/usr/bin/env python3
"""Reads a TensorBoard log folder with TensorBoard's own event reader and compares its
scalars with EXPECTED.json ({tag: [[step, value], ...]}); run by train/tests.

    check_tensorboard.py LOG_DIR EXPECTED.json
"""
import json
import sys

from tensorboard.backend.event_processing.event_accumulator import EventAccumulator


def main():
    log_dir, expected_path = sys.argv[1], sys.argv[2]
    with open(expected_path) as f:
        expected = json.load(f)
    acc = EventAccumulator(log_dir, size_guidance={"scalars": 0})
    acc.Reload()
    tags = acc.Tags().get("scalars", [])
    for tag, series in expected.items():
        if tag not in tags:
            sys.exit(f"tag {tag} missing; TensorBoard sees {tags}")
        got = [(e.step, e.value) for e in acc.Scalars(tag)]
        want = [(s, v) for s, v in series]
        if len(got) != len(want) or any(a[0] != b[0] or abs(a[1] - b[1]) > 1e-6 for a, b in zip(got, want)):
            sys.exit(f"{tag}: TensorBoard reads {got[:5]}..., expected {want[:5]}...")
    print(f"TensorBoard reads {len(expected)} series back exactly")


if __name__ == "__main__":
    main()
