"""Environments for reinforcement-learning libraries, on Kvarn's rules and encoding.

- ``MillEnv``: a Gymnasium environment for one agent against an opponent (random play by
  default, or any function from a ``Game`` to a move in notation).
- ``mill_aec_env``: a PettingZoo AEC environment for two agents, ``white`` and ``black``.

Observations are the network encoding of Kvarn's models (``Rules.input_len`` floats, from
the side of the player to move); actions index Kvarn's action space (``Rules.actions``),
and each observation comes with its legal-action mask. A removal after a mill is a
decision of its own, so the same player may act twice in a row. Rewards are 1 for a win,
-1 for a loss and 0 otherwise; an illegal action ends the episode as a loss for whoever
chose it (environment checkers sample actions at random).
"""

from __future__ import annotations

import random
from typing import Callable, Optional

import numpy as np

from ._kvarn import Game, Rules

try:
    import gymnasium
    from gymnasium import spaces
except ImportError:  # pragma: no cover - the environments need gymnasium
    gymnasium = None


def _spaces(rules: Rules):
    observation = spaces.Box(0.0, 1.0, shape=(rules.input_len,), dtype=np.float32)
    return observation, spaces.Discrete(rules.actions)


def _result_for(game: Game, side: str) -> float:
    if game.winner is None:
        return 0.0
    return 1.0 if game.winner == side else -1.0


def random_opponent(seed: Optional[int] = None) -> Callable[[Game], str]:
    """An opponent choosing uniformly among the legal moves."""
    rng = random.Random(seed)
    return lambda game: rng.choice(game.legal_moves())


if gymnasium is not None:

    class MillEnv(gymnasium.Env):
        """One agent against ``opponent`` (random play by default), as ``play_as``."""

        metadata = {"render_modes": ["ansi"]}

        def __init__(
            self,
            variant: str = "nine",
            play_as: str = "white",
            opponent: Optional[Callable[[Game], str]] = None,
            render_mode: Optional[str] = None,
            **rules,
        ):
            self.rules = Rules(variant, **rules)
            self.play_as = play_as
            self.opponent = opponent
            self.render_mode = render_mode
            self.observation_space, self.action_space = _spaces(self.rules)
            self.game = Game(self.rules)

        def _answer(self):
            while not self.game.is_over and self.game.to_move != self.play_as:
                self.game.play(self.opponent(self.game))

        def _observe(self):
            return self.game.observation(), {"action_mask": self.game.action_mask()}

        def reset(self, *, seed=None, options=None):
            super().reset(seed=seed)
            if self.opponent is None or seed is not None:
                self.opponent = random_opponent(seed)
            self.game = Game(self.rules)
            self._answer()
            return self._observe()

        def step(self, action):
            action = int(action)
            if not self.game.action_mask()[action]:
                observation, info = self._observe()
                info["illegal_action"] = True
                return observation, -1.0, True, False, info
            self.game.play_action(action)
            self._answer()
            observation, info = self._observe()
            return observation, _result_for(self.game, self.play_as), self.game.is_over, False, info

        def render(self):
            if self.render_mode == "ansi":
                return f"{self.game.position_string()} ({self.game.status})"
            return None


def mill_aec_env(variant: str = "nine", **rules):
    """A PettingZoo AEC environment of two agents, ``white`` and ``black``."""
    from pettingzoo import AECEnv

    class MillAEC(AECEnv):
        metadata = {"render_modes": ["ansi"], "name": f"kvarn_{variant}_v0", "is_parallelizable": False}

        def __init__(self):
            super().__init__()
            self.rules = Rules(variant, **rules)
            self.possible_agents = ["white", "black"]
            observation, action = _spaces(self.rules)
            mask = spaces.Box(0, 1, shape=(self.rules.actions,), dtype=np.int8)
            self.observation_spaces = {
                a: spaces.Dict({"observation": observation, "action_mask": mask})
                for a in self.possible_agents
            }
            self.action_spaces = {a: action for a in self.possible_agents}
            self.render_mode = None

        def observation_space(self, agent):
            return self.observation_spaces[agent]

        def action_space(self, agent):
            return self.action_spaces[agent]

        def observe(self, agent):
            # The features are those of the player to move, whoever asks; only the player
            # to move has legal actions.
            features = self.game.observation()
            mask = self.game.action_mask() if agent == self.game.to_move else np.zeros(self.rules.actions, bool)
            return {"observation": features, "action_mask": mask.astype(np.int8)}

        def reset(self, seed=None, options=None):
            self.game = Game(self.rules)
            self.agents = list(self.possible_agents)
            self.rewards = {a: 0.0 for a in self.agents}
            self._cumulative_rewards = {a: 0.0 for a in self.agents}
            self.terminations = {a: False for a in self.agents}
            self.truncations = {a: False for a in self.agents}
            self.infos = {a: {} for a in self.agents}
            self.agent_selection = self.game.to_move

        def step(self, action):
            agent = self.agent_selection
            if self.terminations[agent] or self.truncations[agent]:
                self._was_dead_step(action)
                return
            self._cumulative_rewards[agent] = 0.0
            if action is None or not self.game.action_mask()[int(action)]:
                other = "black" if agent == "white" else "white"
                self.rewards = {agent: -1.0, other: 1.0}
                self.terminations = {a: True for a in self.agents}
            else:
                self.game.play_action(int(action))
                if self.game.is_over:
                    self.rewards = {a: _result_for(self.game, a) for a in self.agents}
                    self.terminations = {a: True for a in self.agents}
                else:
                    self.rewards = {a: 0.0 for a in self.agents}
                    self.agent_selection = self.game.to_move
            self._accumulate_rewards()

        def render(self):
            return f"{self.game.position_string()} ({self.game.status})"

        def close(self):
            pass

    return MillAEC()
