//! `kvarn.Agent`: anything that chooses moves, named as Kvarn's command line names it:
//! `random`, `alphabeta:depth=4`, `perfect:db=DIR`, `engine:cmd=PROGRAM`, and the network
//! player `net:model=FILE[,simulations=800,...]` with the settings of `kvarn config`'s
//! player table (the one player configuration).

use std::sync::Mutex;

use kvarn_arena::agent::Agent as ArenaAgent;
use kvarn_game::Outcome;
use pyo3::prelude::*;

use crate::error::refused;
use crate::game::{Game, Rules};

/// An agent for games of `rules` (Nine by default); `seed` varies agents that draw at
/// random (`random`, the perfect player's choice among equal moves).
#[pyclass(frozen, module = "kvarn")]
pub struct Agent {
    agent: Mutex<Box<dyn ArenaAgent>>,
    rules: kvarn_game::Rules,
    name: String,
}

#[pymethods]
impl Agent {
    #[new]
    #[pyo3(signature = (spec, rules = None, seed = 1))]
    fn new(spec: &str, rules: Option<PyRef<'_, Rules>>, seed: u64) -> PyResult<Agent> {
        let rules = rules.map_or(kvarn_game::Rules::new(kvarn_game::Variant::Nine), |r| r.0);
        let factory = kvarn_selfplay::net_agent::factory(spec, &rules).map_err(refused)?;
        let agent = factory.build(rules, seed).map_err(refused)?;
        Ok(Agent {
            agent: Mutex::new(agent),
            rules,
            name: factory.name(),
        })
    }

    /// Its name in reports: the specification with every setting that differs from the
    /// defaults.
    #[getter]
    fn name(&self) -> &str {
        &self.name
    }

    #[getter]
    fn rules(&self) -> Rules {
        Rules(self.rules)
    }

    /// Tells it that a new game begins (it forgets its search tree and its history).
    fn new_game(&self, py: Python<'_>) -> PyResult<()> {
        py.detach(|| self.lock()?.new_game().map_err(refused))
    }

    /// The move it plays in `game`'s position, in notation (`Game.play` takes it). The
    /// search runs without holding Python's lock.
    fn choose(&self, py: Python<'_>, game: PyRef<'_, Game>) -> PyResult<String> {
        let game = self.playable(&game)?;
        py.detach(|| {
            let mv = self.lock()?.choose(&game).map_err(refused)?;
            Ok(mv.to_string())
        })
    }

    /// Its estimate of the outcome for the player to move (`win`, `draw` or `loss`), for
    /// agents that make one (the perfect player, the network player after a search);
    /// `None` for the others.
    fn outcome(&self, py: Python<'_>, game: PyRef<'_, Game>) -> PyResult<Option<&'static str>> {
        let game = self.playable(&game)?;
        py.detach(|| {
            let outcome = self.lock()?.outcome(&game).map_err(refused)?;
            Ok(outcome.map(Outcome::name))
        })
    }

    fn __repr__(&self) -> String {
        format!("Agent({:?})", self.name)
    }
}

impl Agent {
    fn lock(&self) -> PyResult<std::sync::MutexGuard<'_, Box<dyn ArenaAgent>>> {
        self.agent
            .lock()
            .map_err(|_| refused("the agent failed in an earlier call and cannot be used"))
    }

    /// A copy of `game` if it is of this agent's rules and not over.
    fn playable(&self, game: &Game) -> PyResult<kvarn_game::Game> {
        if game.0.rules() != &self.rules {
            return Err(refused(format!(
                "the game is of {}, this agent plays {}",
                game.0.rules(),
                self.rules
            )));
        }
        if game.0.status().is_over() {
            return Err(refused(format!("the game is over: {}", game.0.status())));
        }
        Ok(game.0.clone())
    }
}
