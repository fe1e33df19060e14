//! The order in which subspaces are solved, each after everything its moves lead to.

use kvarn_game::{Color, Rules, Variant};

use crate::subspace::Subspace;

/// One step of a solve.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// A subspace none of whose positions leads back into it: each position takes its
    /// value from its successors, all solved before.
    Direct(Subspace),
    /// The moving phase of one count of men, both sides to move, by retrograde analysis.
    Moving {
        /// White men on the board.
        w_on: u8,
        /// Black men on the board.
        b_on: u8,
    },
}

impl Step {
    pub(crate) fn moving_unit(w_on: u8, b_on: u8) -> [Subspace; 2] {
        [Color::White, Color::Black].map(|side| Subspace::moving(w_on, b_on, side, false))
    }

    /// The subspaces the step solves.
    pub fn subspaces(&self) -> Vec<Subspace> {
        match *self {
            Step::Direct(s) => vec![s],
            Step::Moving { w_on, b_on } => Step::moving_unit(w_on, b_on).to_vec(),
        }
    }
}

/// The moving phase of one count of men: the positions with a removal pending (they lead
/// to fewer men), then both sides to move together.
fn moving_steps(w_on: u8, b_on: u8, plan: &mut Vec<Step>) {
    for side in Color::BOTH {
        plan.push(Step::Direct(Subspace::moving(w_on, b_on, side, true)));
    }
    plan.push(Step::Moving { w_on, b_on });
}

/// The steps that solve every position of Six or Five Men's Morris that play from the
/// start can reach, in dependency order.
///
/// Hands in play from the start: White to move holds as many men as Black, Black to move
/// one more than White. Fewer men in hand first, since placements lead there; within
/// equal hands, fewer men on the board first, since removals lead there.
pub fn whole_game_plan(variant: Variant) -> Vec<Step> {
    let m = variant.men();
    let mut plan = Vec::new();
    for total in 0..=2 * m {
        let (w_hand, b_hand, side) = if total % 2 == 0 {
            (total / 2, total / 2, Color::White)
        } else {
            (total / 2, total / 2 + 1, Color::Black)
        };
        let mut counts = Vec::new();
        for w_on in 0..=m - w_hand {
            for b_on in 0..=m - b_hand {
                if w_on + w_hand >= 3 && b_on + b_hand >= 3 {
                    counts.push((w_on, b_on));
                }
            }
        }
        counts.sort_by_key(|&(w, b)| w + b);
        if total == 0 {
            for &(w_on, b_on) in &counts {
                moving_steps(w_on, b_on, &mut plan);
            }
            continue;
        }
        // The player to move places; then the pending removals of whoever placed last
        // (the other side, same hands), which lead to the placing positions above.
        for pending in [false, true] {
            for &(w_on, b_on) in &counts {
                plan.push(Step::Direct(Subspace {
                    w_on,
                    b_on,
                    w_hand,
                    b_hand,
                    side: if pending { side.opposite() } else { side },
                    pending,
                }));
            }
        }
    }
    plan
}

/// The steps that solve the moving phase from 3 against 3 up to `max_men` a side.
pub fn endgame_plan(rules: &Rules, max_men: u8) -> Vec<Step> {
    let max_men = max_men.min(rules.men());
    let mut plan = Vec::new();
    for total in 6..=2 * max_men {
        for w_on in 3..=max_men {
            if let Some(b_on) = total.checked_sub(w_on)
                && (3..=max_men).contains(&b_on)
            {
                moving_steps(w_on, b_on, &mut plan);
            }
        }
    }
    plan
}

/// The plan Kvarn solves for `rules`: the whole game of Six and Five, the moving phase
/// of Nine up to `max_men` a side.
pub fn plan_for(rules: &Rules, max_men: u8) -> Vec<Step> {
    match rules.variant() {
        Variant::Nine => endgame_plan(rules, max_men),
        v => whole_game_plan(v),
    }
}
