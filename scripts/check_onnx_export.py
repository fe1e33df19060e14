#!/usr/bin/env python3
"""Checks an ONNX export against Kvarn's own outputs (run by cli/tests/export.rs).

    check_onnx_export.py EXPORT_DIR DATA.json

DATA.json holds `features` (rows), Kvarn's `policy_logits` and `wdl` for them, and
`positions`: position strings with Kvarn's best legal move by the same network. The check
runs onnx.checker, evaluates the rows with onnxruntime (outputs must agree within 1e-4),
and asks the reference consumer for each position's move.
"""
import json
import os
import sys

import numpy as np
import onnx

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from onnx_consumer import Model  # noqa: E402


def main():
    directory, data_path = sys.argv[1], sys.argv[2]
    path = os.path.join(directory, "model.onnx")
    onnx.checker.check_model(onnx.load(path), full_check=True)
    with open(data_path) as f:
        data = json.load(f)
    model = Model(directory)
    features = np.array(data["features"], dtype=np.float32)
    logits, wdl = model.evaluate(features)
    for name, got, want in [("policy_logits", logits, data["policy_logits"]), ("wdl", wdl, data["wdl"])]:
        want = np.array(want, dtype=np.float32)
        if got.shape != want.shape:
            sys.exit(f"{name}: shape {got.shape}, Kvarn {want.shape}")
        diff = float(np.max(np.abs(got - want)))
        if not diff <= 1e-4:
            sys.exit(f"{name}: largest difference {diff} > 1e-4")
        print(f"{name}: {got.shape[0]} rows, largest difference {diff:.2e}")
    # The encoding the consumer builds from position strings is the one Kvarn builds.
    mismatches = []
    ties = 0
    for item in data["positions"]:
        pos = model.parse(item["position"])
        mine = model.encode(pos, item["occurrences"])
        if not np.array_equal(mine, np.array(item["features"], dtype=np.float32)):
            mismatches.append(f"{item['position']}: features differ")
            continue
        legal = sorted(model.legal_actions(pos))
        if legal != sorted(item["legal"]):
            mismatches.append(f"{item['position']}: legal actions differ")
            continue
        move, _ = model.best_move(item["position"]) if item["occurrences"] == 1 else (None, None)
        if item["occurrences"] == 1 and move != item["best"]:
            # Equal logits (a symmetric position) may be ordered differently by float
            # rounding on either side: a tie within 1e-5 is the same choice.
            kvarn_logit = dict(zip(item["legal"], item["legal_logits"]))
            index = model.names.index(move)
            best = model.names.index(item["best"])
            if abs(kvarn_logit[index] - kvarn_logit[best]) <= 1e-5:
                ties += 1
            else:
                mismatches.append(f"{item['position']}: consumer plays {move}, Kvarn {item['best']}")
    if mismatches:
        sys.exit("\n".join(mismatches[:10]) + f"\n{len(mismatches)} mismatches")
    print(
        f"consumer: {len(data['positions'])} positions, same features, legal moves and best moves"
        f" ({ties} equal-logit ties ordered differently)"
    )


if __name__ == "__main__":
    main()
