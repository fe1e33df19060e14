//! Running a plan: each step's tables from the tables solved before it.

use kvarn_game::{Rules, Variant};
use rayon::prelude::*;

use crate::plan::{Step, endgame_plan, whole_game_plan};
use crate::retro;
use crate::solver::{NOT_A_POSITION, Solver};
use crate::subspace::Subspace;
use crate::value::terminal_value;

impl Solver {
    /// Solves every position of Six or Five Men's Morris that play from the start can
    /// reach, placing phase included, calling `progress` after each subspace.
    pub fn solve_whole_game(
        variant: Variant,
        mut progress: impl FnMut(&Subspace, &[u16]),
    ) -> Solver {
        let mut solver = Solver::new(Rules::new(variant));
        for step in whole_game_plan(variant) {
            for s in solver.run_step(&step) {
                progress(&s, &solver.tables[&s]);
            }
        }
        solver
    }

    /// Solves the moving phase for every count of men from 3 against 3 up to `max_men`
    /// against `max_men`, none in hand, with flying as `rules` say.
    pub fn solve_endgames(
        rules: Rules,
        max_men: u8,
        mut progress: impl FnMut(&Subspace, &[u16]),
    ) -> Solver {
        let mut solver = Solver::new(rules);
        for step in endgame_plan(&rules, max_men) {
            for s in solver.run_step(&step) {
                progress(&s, &solver.tables[&s]);
            }
        }
        solver
    }

    /// Solves one step of a plan, whose earlier steps must be solved (or loaded), and
    /// returns the subspaces it added.
    pub fn run_step(&mut self, step: &Step) -> Vec<Subspace> {
        match *step {
            Step::Direct(s) => {
                let n = self.indexer.size(&s);
                let table: Vec<u16> = (0..n)
                    .into_par_iter()
                    .map(|i| match self.indexer.position_at(&self.rules, &s, i) {
                        None => NOT_A_POSITION,
                        Some(pos) => terminal_value(&self.rules, &pos)
                            .unwrap_or_else(|| self.best_move_value(&pos))
                            .pack(),
                    })
                    .collect();
                self.tables.insert(s, table);
                vec![s]
            }
            Step::Moving { w_on, b_on } => {
                let unit = Step::moving_unit(w_on, b_on);
                let tables = retro::solve_unit(self, unit);
                for (s, t) in unit.into_iter().zip(tables) {
                    self.tables.insert(s, t);
                }
                unit.to_vec()
            }
        }
    }
}
