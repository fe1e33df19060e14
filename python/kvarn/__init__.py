"""Kvarn for Python: the mill games (Nine, Six and Five Men's Morris) as Kvarn plays them.

- ``Rules``: a variant and its rule switches.
- ``Game``: one game: legal moves, play, undo, status, notation, position strings, FEN,
  symmetries.
- ``BatchSim``: many games stepped together, observations and legal-action masks written
  into NumPy arrays without copies (the network encoding and action space of Kvarn's
  models).
- ``Tables``: exact values of a position and its moves from the solver's tables, and
  benchmark positions drawn from them; ``benchmark``: the committed benchmark sets.
- ``Model``: a model file's network, evaluated on NumPy batches.
- ``Agent``: anything that chooses moves, named as the command line names it: the
  alpha-beta baseline (``alphabeta:depth=4``), the network player
  (``net:model=FILE,simulations=800``), the perfect player (``perfect:db=DIR``), random
  play, external engines.

Errors are ``KvarnError`` (a ``ValueError``) carrying Kvarn's own message.
"""

from ._kvarn import (
    ENCODING_VERSION,
    Agent,
    BatchSim,
    Game,
    KvarnError,
    Model,
    Rules,
    Tables,
    benchmark,
)

__all__ = [
    "ENCODING_VERSION",
    "Agent",
    "BatchSim",
    "Game",
    "KvarnError",
    "Model",
    "Rules",
    "Tables",
    "benchmark",
]
