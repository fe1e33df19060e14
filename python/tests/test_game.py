"""The package against Kvarn's referee: legal moves equal `kvarn moves` along random
games of every variant, errors carry Kvarn's reasons, and the batched simulator writes
into the caller's arrays."""

import json
import os
import random
import shutil
import subprocess

import numpy as np
import pytest

import kvarn

VARIANTS = ["nine", "six", "five"]


def kvarn_binary():
    """The `kvarn` binary the tests compare with: $KVARN, else the workspace's build."""
    path = os.environ.get("KVARN") or os.path.join(
        os.path.dirname(__file__), "..", "..", "target", "release", "kvarn"
    )
    if not os.path.exists(path):
        path = shutil.which("kvarn")
    if path is None:
        why = "no kvarn binary: build it (cargo build --release -p kvarn) or set KVARN"
        if os.environ.get("KVARN_REQUIRE_ALL"):
            pytest.fail(why)
        pytest.skip(why)
    return path


def referee(variant, move_lists):
    """`kvarn moves --stdin` on many move lists: its JSON answers, in order."""
    out = subprocess.run(
        [kvarn_binary(), "moves", "--variant", variant, "--stdin"],
        input="".join(" ".join(moves) + "\n" for moves in move_lists),
        check=True,
        capture_output=True,
        text=True,
        env={**os.environ, "RUST_BACKTRACE": "0"},
    )
    return [json.loads(line) for line in out.stdout.splitlines()]


@pytest.mark.parametrize("variant", VARIANTS)
def test_legal_moves_equal_the_referees_along_random_games(variant):
    """Every position of random games (KVARN_REFEREE_GAMES of them, 50 by default): the
    package's legal moves and position string equal `kvarn moves`'."""
    rng = random.Random(7)
    games = int(os.environ.get("KVARN_REFEREE_GAMES", "50"))
    seen = []
    for _ in range(games):
        game = kvarn.Game(kvarn.Rules(variant))
        while True:
            seen.append((game.moves(), sorted(game.legal_moves()), game.position_string()))
            if game.is_over:
                break
            game.play(rng.choice(game.legal_moves()))
    answers = referee(variant, [moves for moves, _, _ in seen])
    assert len(answers) == len(seen)
    differences = [
        moves
        for (moves, legal, position), answer in zip(seen, answers)
        if legal != sorted(answer["legal"]) or position != answer["position"]
    ]
    assert differences == [], f"{len(differences)} of {len(seen)} positions differ"
    print(f"{variant}: {games} random games, {len(seen)} positions, 0 differ from kvarn moves")


def test_errors_carry_kvarns_reasons():
    game = kvarn.Game(kvarn.Rules("nine"))
    game.play("d6")
    with pytest.raises(kvarn.KvarnError, match="d6"):
        game.play("d6")
    assert game.moves() == ["d6"], "a refused move changes nothing"
    with pytest.raises(kvarn.KvarnError, match="flying"):
        kvarn.Rules("five", flying=True)
    with pytest.raises(ValueError):
        kvarn.Game(kvarn.Rules("six"), position="not a position")
    assert issubclass(kvarn.KvarnError, ValueError)


def test_play_undo_status_and_notation():
    rules = kvarn.Rules("six", no_capture_limit=None)
    assert rules.variant == "six" and rules.no_capture_limit is None and not rules.flying
    game = kvarn.Game(rules)
    assert game.to_move == "white" and game.status == "ongoing" and game.winner is None
    game.play("b6 d6")
    assert game.ply == 2 and game.undo() == "d6" and game.ply == 1
    action = rules.action("d6")
    assert rules.move_of(action) == "d6" and action in game.legal_actions()
    game.play_action(action)
    assert game.moves() == ["b6", "d6"]
    assert len(game.symmetries()) == 16 and game.symmetries()[0] == game.position_string()
    copy = game.copy()
    copy.play(copy.legal_moves()[0])
    assert game.ply == 2 and copy.ply == 3


def test_batched_stepping_writes_into_the_callers_arrays():
    rules = kvarn.Rules("nine")
    n = 64
    sim = kvarn.BatchSim(rules, n)
    assert len(sim) == n
    obs = np.zeros((n, rules.input_len), np.float32)
    masks = np.zeros((n, rules.actions), bool)
    before = obs.ctypes.data
    rng = np.random.default_rng(1)
    ended = 0
    for _ in range(400):
        sim.observe(obs, masks)
        assert obs.ctypes.data == before, "written in place"
        assert masks.any(axis=1).all()
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks], np.int64)
        results = sim.step(actions)
        ended += int((results != 0).sum())
    assert ended > 0, "random games end, and restart in their slots"
    # The first observation of the start equals a fresh game's legal moves.
    fresh = kvarn.Game(rules)
    start = kvarn.BatchSim(rules, 1)
    obs1 = np.zeros((1, rules.input_len), np.float32)
    mask1 = np.zeros((1, rules.actions), bool)
    start.observe(obs1, mask1)
    assert sorted(np.flatnonzero(mask1[0]).tolist()) == sorted(fresh.legal_actions())
    with pytest.raises(kvarn.KvarnError, match="illegal"):
        start.step(np.array([rules.action("xd2")], np.int64))
    with pytest.raises(kvarn.KvarnError, match="shape"):
        start.observe(np.zeros((2, rules.input_len), np.float32), mask1)


@pytest.fixture(scope="module")
def five_db(tmp_path_factory):
    """Five solved by `kvarn solve`, once for the tests that read its tables."""
    db = tmp_path_factory.mktemp("tables") / "five"
    subprocess.run(
        [kvarn_binary(), "solve", "--variant", "five", "--out", str(db)],
        check=True, capture_output=True, env={**os.environ, "RUST_BACKTRACE": "0"},
    )
    return db


def test_exact_values_equal_kvarn_probes(five_db, tmp_path):
    """Five solved by `kvarn solve`, probed from Python: the start and a position along a
    game, each move's value as `kvarn probe` prints it."""
    db = five_db
    env = {**os.environ, "RUST_BACKTRACE": "0"}
    rules = kvarn.Rules("five")
    tables = kvarn.Tables(str(db), rules)
    game = kvarn.Game(rules)
    rng = random.Random(3)
    for _ in range(12):
        if game.is_over:
            break
        position = game.position_string()
        value, moves = tables.probe(position)
        assert sorted(moves) == sorted(game.legal_moves())
        printed = subprocess.run(
            [kvarn_binary(), "probe", "--variant", "five", "--db", str(db), position],
            check=True, capture_output=True, text=True, env=env,
        ).stdout.splitlines()
        assert printed[1].split(": ")[1].startswith(value)
        for line in printed[2:]:
            move, said = line.split(None, 1)
            assert said.startswith({"win": "win", "draw": "draw", "loss": "loss"}[moves[move]]), line
        game.play(rng.choice(game.legal_moves()))
    with pytest.raises(kvarn.KvarnError):
        kvarn.Tables(str(tmp_path / "nothing"), rules)


@pytest.mark.parametrize("variant", VARIANTS)
def test_random_actions_are_legal_and_to_move_names_the_side(variant):
    rules = kvarn.Rules(variant)
    sim = kvarn.BatchSim(rules, 32, seed=3)
    obs = np.zeros((32, rules.input_len), np.float32)
    masks = np.zeros((32, rules.actions), bool)
    for _ in range(300):
        sim.observe(obs, masks)
        actions = sim.random_actions()
        assert actions.dtype == np.int64 and masks[np.arange(32), actions].all()
        sides = sim.to_move()
        for g in range(0, 32, 7):
            game = kvarn.Game(rules, position=sim.position(g))
            assert ["white", "black"][sides[g]] == game.to_move
        sim.step(actions)
    again = kvarn.BatchSim(rules, 32, seed=3)
    first = kvarn.BatchSim(rules, 32, seed=3).random_actions()
    assert (again.random_actions() == first).all(), "a seed gives the same actions"


def test_benchmark_positions_carry_the_tables_values(five_db):
    """The committed Five set and positions drawn from Five's tables: every value and
    every kept move as the tables give them."""
    rules = kvarn.Rules("five")
    tables = kvarn.Tables(str(five_db), rules)
    committed = kvarn.benchmark(rules)
    drawn = tables.sample(60, seed=2)
    assert len(committed) > 100 and len(drawn) == 60
    assert drawn == tables.sample(60, seed=2), "a seed draws the same positions"
    for b in committed[:200] + drawn:
        value, moves = tables.probe(b["position"])
        assert b["value"] == value, b["position"]
        assert b["legal"] == len(moves)
        kept = {m for m, v in moves.items() if v == value}  # values for the side to move
        if value != "loss":
            assert set(b["preserving"]) == kept, b["position"]
        assert b["critical"] == (value != "loss" and len(kept) < len(moves))
    assert {b["phase"] for b in committed} <= {"placing", "moving", "flying", "removal"}
    whole = kvarn.benchmark(kvarn.Rules("nine"), part="tuning", whole=True)
    assert whole and all(b["move_values"] for b in whole[:50])
    with pytest.raises(kvarn.KvarnError, match="no committed whole-game set"):
        kvarn.benchmark(rules, whole=True)
    with pytest.raises(kvarn.KvarnError, match="expected heldout or tuning"):
        kvarn.benchmark(rules, part="test")
