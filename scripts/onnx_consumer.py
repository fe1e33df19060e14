#!/usr/bin/env python3
"""Reference consumer of an exported Kvarn network: everything a front end needs.

Loads model.onnx with onnxruntime and model-card.json beside it, encodes a position given
as a Kvarn position string by following the card (board, features, scalars), lists the
legal moves by the rules (docs/RULES.md), and prints the network's best legal move and its
win/draw/loss estimate for the player to move.

    pip install onnxruntime numpy
    python3 scripts/onnx_consumer.py EXPORT_DIR "......../......../........ w 9/9 - 0 0"

A position string is `<board> <side> <white in hand>/<black in hand> <-|x> <no-capture>
<turns>`: the board is one group of 8 characters (W, B or .) per ring, outer ring first,
each clockwise from the ring's top-left corner, in the card's point order.
"""
import json
import os
import sys

import numpy as np


class Model:
    """An exported network and its card."""

    def __init__(self, directory):
        import onnxruntime as ort

        with open(os.path.join(directory, "model-card.json")) as f:
            self.card = json.load(f)
        if self.card.get("format") != "kvarn-model-card":
            raise ValueError("not a Kvarn model card")
        self.session = ort.InferenceSession(
            os.path.join(directory, "model.onnx"), providers=["CPUExecutionProvider"]
        )
        board = self.card["board"]
        self.points = board["points"]
        self.n = len(self.points)
        self.adjacency = board["adjacency"]
        self.mills = board["mills"]
        rules = self.card["rules"]
        self.men = self.card["men_per_player"]
        self.flying = rules.get("flying", False)
        self.repetition = rules.get("repetition", True)
        limit = rules.get("no_capture_limit", 50)
        self.no_capture_limit = None if limit == "off" else limit
        self.names = self.card["actions"]["names"]

    def parse(self, text):
        """A position string as a dict: men per side (point indices), side, hands, ..."""
        fields = text.split()
        if len(fields) != 6:
            raise ValueError(f"a position string has 6 fields, this one {len(fields)}")
        rings = fields[0].split("/")
        if len(rings) * 8 != self.n or any(len(r) != 8 for r in rings):
            raise ValueError(f"board: expected {self.n // 8} groups of 8 points")
        cells = "".join(rings)
        white = {i for i, c in enumerate(cells) if c == "W"}
        black = {i for i, c in enumerate(cells) if c == "B"}
        if any(c not in "WB." for c in cells):
            raise ValueError("board: only W, B and . are points")
        side = {"w": 0, "b": 1}[fields[1]]
        hands = [int(h) for h in fields[2].split("/")]
        return {
            "men": [white, black],
            "side": side,
            "hand": hands,
            "pending": fields[3] == "x",
            "no_capture": int(fields[4]),
        }

    def encode(self, pos, occurrences=1):
        """The input vector, feature by feature as the card lists them."""
        n, s = self.n, pos["side"]
        o = 1 - s
        x = np.zeros(self.card["input"]["length"], dtype=np.float32)
        for i in range(n):
            x[i] = i in pos["men"][s]
            x[n + i] = i in pos["men"][o]
            x[2 * n + i] = i not in pos["men"][0] and i not in pos["men"][1]
        fly = lambda c: self.flying and pos["hand"][c] == 0 and len(pos["men"][c]) == 3
        limit = self.no_capture_limit
        x[3 * n : 3 * n + 8] = [
            pos["hand"][s] / self.men,
            pos["hand"][o] / self.men,
            float(s == 1),
            float(pos["pending"]),
            float(fly(s)),
            float(fly(o)),
            min(pos["no_capture"], limit) / limit if limit else 0.0,
            min((occurrences - 1) / 2, 1.0) if self.repetition else 0.0,
        ]
        return x

    def in_mill(self, men, i):
        return any(i in m and all(p in men for p in m) for m in self.mills)

    def legal_actions(self, pos):
        """Legal action indices by the rules: a removal when one is pending, else a
        placement while men are in hand, else a slide (or a flight with three men)."""
        n, s = self.n, pos["side"]
        own, opp = pos["men"][s], pos["men"][1 - s]
        empty = [i for i in range(n) if i not in own and i not in opp]
        if pos["pending"]:
            free = [i for i in opp if not self.in_mill(opp, i)]
            return sorted(n + n * n + i for i in (free or opp))
        if pos["hand"][s] > 0:
            return empty
        flying = self.flying and len(own) == 3
        moves = []
        for a in sorted(own):
            targets = empty if flying else [t for t in self.adjacency[a] if t not in own and t not in opp]
            moves.extend(n + a * n + t for t in targets)
        return sorted(moves)

    def evaluate(self, features):
        """policy logits and wdl for a batch of input vectors."""
        logits, wdl = self.session.run(["policy_logits", "wdl"], {"features": features})
        return logits, wdl

    def best_move(self, text):
        """The network's best legal move (lowest index among equals) and its wdl."""
        pos = self.parse(text)
        legal = self.legal_actions(pos)
        if not legal:
            return None, None
        logits, wdl = self.evaluate(self.encode(pos)[None, :])
        best = max(legal, key=lambda a: (logits[0, a], -a))
        return self.names[best], wdl[0]


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        sys.exit(2)
    model = Model(sys.argv[1])
    move, wdl = model.best_move(sys.argv[2])
    if move is None:
        print("no legal move: the player to move has lost (blocked)")
        return
    print(f"best move {move}  win {wdl[0]:.3f} draw {wdl[1]:.3f} loss {wdl[2]:.3f}")


if __name__ == "__main__":
    main()
