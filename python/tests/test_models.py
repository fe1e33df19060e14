"""Models and agents from Python: a model's outputs equal its ONNX export's under
onnxruntime, agents named as the command line names them play legal moves, and what is
wrong is refused with Kvarn's reason."""

import json
import os
import subprocess

import numpy as np
import pytest

import kvarn
from test_game import kvarn_binary

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")
NINE = os.path.join(ROOT, "models", "nine.kvmodel")


def observations(rules, games=64, plies=40, seed=3):
    """Observations of `games` random games after up to `plies` decisions each."""
    sim = kvarn.BatchSim(rules, games)
    obs = np.zeros((games, rules.input_len), np.float32)
    masks = np.zeros((games, rules.actions), bool)
    rng = np.random.default_rng(seed)
    for _ in range(rng.integers(1, plies)):
        sim.observe(obs, masks)
        sim.step((rng.random(masks.shape) * masks).argmax(axis=1).astype(np.int64))
    sim.observe(obs, masks)
    return obs, masks


def onnxruntime():
    try:
        import onnxruntime as ort
    except ImportError:
        why = "onnxruntime is not installed (scripts/requirements-test.txt)"
        if os.environ.get("KVARN_REQUIRE_ALL"):
            pytest.fail(why)
        pytest.skip(why)
    return ort


def test_a_models_outputs_equal_its_onnx_exports(tmp_path):
    ort = onnxruntime()
    subprocess.run(
        [kvarn_binary(), "export", "--model", NINE, "--format", "onnx", "--out", str(tmp_path)],
        check=True,
        capture_output=True,
    )
    model = kvarn.Model(NINE, precision="f32")
    assert (model.precision, model.input_len, model.actions) == ("f32", 80, 624)
    assert model.rules == kvarn.Rules("nine")
    assert json.loads(model.header)["network"]["kind"] == "mlp"
    obs, _ = observations(model.rules)
    logits, wdl = model.evaluate(obs)
    session = ort.InferenceSession(str(tmp_path / "model.onnx"))
    want_logits, want_wdl = session.run(["policy_logits", "wdl"], {"features": obs})
    assert logits.shape == (64, 624) and wdl.shape == (64, 3)
    assert np.abs(logits - want_logits).max() < 1e-3
    assert np.abs(wdl - want_wdl).max() < 1e-5
    assert np.allclose(wdl.sum(axis=1), 1.0, atol=1e-5)


def test_reduced_precision_stays_close_to_32_bit():
    exact = kvarn.Model(NINE, precision="f32")
    fast = kvarn.Model(NINE)  # auto: bf16 where the CPU has AMX
    obs, masks = observations(exact.rules)
    (l32, w32), (lf, wf) = exact.evaluate(obs), fast.evaluate(obs)
    assert np.abs(wf - w32).max() < 0.05, fast.precision
    # The best legal move agrees in almost every position.
    best = lambda logits: np.where(masks, logits, -np.inf).argmax(axis=1)
    assert (best(l32) == best(lf)).mean() > 0.9


def test_a_model_refuses_what_it_cannot_read():
    model = kvarn.Model(NINE, precision="f32")
    with pytest.raises(kvarn.KvarnError, match="5 columns; this model reads 80"):
        model.evaluate(np.zeros((3, 5), np.float32))
    with pytest.raises(kvarn.KvarnError, match="C-contiguous"):
        model.evaluate(np.zeros((80, 3), np.float32).T)
    with pytest.raises(kvarn.KvarnError, match="unknown precision"):
        kvarn.Model(NINE, precision="fp8")
    with pytest.raises(kvarn.KvarnError, match="No such file"):
        kvarn.Model("no-such.kvmodel")




@pytest.mark.parametrize("variant", ["nine", "six", "five"])
def test_alpha_beta_beats_random_play(variant):
    rules = kvarn.Rules(variant)
    engine = kvarn.Agent("alphabeta:depth=3", rules)
    wins = 0
    for seed in range(4):
        game = kvarn.Game(rules)
        players = {"white": engine, "black": kvarn.Agent("random", rules, seed=seed)}
        if seed % 2:
            players = {"white": players["black"], "black": engine}
        while not game.is_over:
            move = players[game.to_move].choose(game)
            assert move in game.legal_moves()
            game.play(move)
        winner = game.winner
        wins += winner is not None and players[winner] is engine
    assert wins >= 3, f"alpha-beta won {wins} of 4 against random play"


def test_the_network_player_plays_as_configured():
    rules = kvarn.Rules("nine")
    player = kvarn.Agent(f"net:model={NINE},simulations=32,symmetries=1", rules)
    assert "simulations=32" in player.name
    game = kvarn.Game(rules)
    game.play("d6 d2 b4")
    move = player.choose(game)
    assert move in game.legal_moves()
    assert player.outcome(game) in ("win", "draw", "loss")
    # A search of the same position by a fresh player of the same settings plays the same.
    again = kvarn.Agent(f"net:model={NINE},simulations=32,symmetries=1", rules)
    assert again.choose(game) == move


def test_agents_refuse_with_kvarns_reasons():
    with pytest.raises(kvarn.KvarnError, match="unknown agent `foo`"):
        kvarn.Agent("foo:x=1")
    with pytest.raises(kvarn.KvarnError, match="simulations: `0`"):
        kvarn.Agent(f"net:model={NINE},simulations=0")
    with pytest.raises(kvarn.KvarnError, match="not Six Men's Morris"):
        kvarn.Agent(f"net:model={NINE}", kvarn.Rules("six"))
    engine = kvarn.Agent("alphabeta:depth=2", kvarn.Rules("six"))
    with pytest.raises(kvarn.KvarnError, match="this agent plays Six"):
        engine.choose(kvarn.Game(kvarn.Rules("nine")))
    over = kvarn.Game(kvarn.Rules("nine"), position="startpos")
    rng = np.random.default_rng(1)
    while not over.is_over:
        over.play(over.legal_moves()[rng.integers(len(over.legal_moves()))])
    with pytest.raises(kvarn.KvarnError, match="the game is over"):
        kvarn.Agent("random").choose(over)
