"""The environments pass their libraries' own checkers, and play whole games."""

import numpy as np
import pytest

gymnasium = pytest.importorskip("gymnasium")
pettingzoo = pytest.importorskip("pettingzoo")

from kvarn.envs import MillEnv, mill_aec_env  # noqa: E402


@pytest.mark.parametrize("variant", ["nine", "six", "five"])
def test_the_gymnasium_environment_passes_its_checker_and_plays_games(variant):
    from gymnasium.utils.env_checker import check_env

    env = MillEnv(variant)
    check_env(env, skip_render_check=True)
    rng = np.random.default_rng(0)
    ends = 0
    observation, info = env.reset(seed=1)
    for _ in range(2000):
        action = rng.choice(np.flatnonzero(info["action_mask"]))
        observation, reward, terminated, truncated, info = env.step(action)
        assert observation.shape == env.observation_space.shape
        if terminated or truncated:
            assert reward in (-1.0, 0.0, 1.0)
            ends += 1
            observation, info = env.reset()
    assert ends > 0


@pytest.mark.parametrize("variant", ["nine", "six"])
def test_the_pettingzoo_environment_passes_its_api_test(variant):
    from pettingzoo.test import api_test

    api_test(mill_aec_env(variant), num_cycles=200)


def test_an_illegal_action_loses():
    env = MillEnv("nine")
    _, info = env.reset(seed=3)
    illegal = int(np.flatnonzero(~info["action_mask"])[0])
    _, reward, terminated, _, info = env.step(illegal)
    assert terminated and reward == -1.0 and info["illegal_action"]
