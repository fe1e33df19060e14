//! Exact samples from the committed bank of solved Nine positions: every phase taught
//! alike, the targets the bank's values and value-keeping moves, the draw repeatable,
//! and no committed benchmark position among them.

use std::collections::{BTreeMap, HashSet};

use kvarn_game::{ActionSpace, Game, Phase, Rules, Variant};
use kvarn_selfplay::BankSampling;

#[path = "../../testing/paths.rs"]
mod paths;

fn bank() -> (Rules, BankSampling) {
    let rules = Rules::new(Variant::Nine);
    let path = paths::workspace().join("docs/results/nine-solve/sample-bank.kvbank");
    let excluded = kvarn_solver::benchmark::committed_keys(&rules).unwrap();
    (
        rules,
        BankSampling::open(&[&path], &rules, &excluded).unwrap(),
    )
}

#[test]
fn bank_samples_teach_every_phase_alike_with_legal_targets() {
    let (rules, bank) = bank();
    assert_eq!(
        bank.excluded, 0,
        "the bank was drawn without benchmark positions"
    );
    let phases: Vec<Phase> = bank.strata().iter().map(|s| s.0).collect();
    assert_eq!(
        phases,
        [Phase::Placing, Phase::Moving, Phase::Flying, Phase::Removal]
    );
    let samples = bank.samples(7, 800);
    assert_eq!(
        samples,
        bank.samples(7, 800),
        "the same seed draws the same samples"
    );
    assert_ne!(samples, bank.samples(8, 800));
    let actions = ActionSpace::new(&rules);
    let mut by_phase: BTreeMap<Phase, usize> = BTreeMap::new();
    for s in &samples {
        *by_phase.entry(Phase::of(&rules, &s.position)).or_default() += 1;
        let legal: HashSet<usize> = Game::from_position(rules, s.position)
            .unwrap()
            .legal_moves()
            .iter()
            .map(|&m| actions.index(m))
            .collect();
        assert!(
            s.policy
                .iter()
                .all(|(a, _)| legal.contains(&usize::from(*a)))
        );
        let mass: f32 = s.policy.iter().map(|(_, p)| p).sum();
        assert!((mass - 1.0).abs() < 1e-4);
        // A lost position's every move keeps the loss: it teaches the value alone.
        assert_eq!(s.full_search, s.result != -1);
        let one_hot = match s.result {
            1 => [1.0, 0.0, 0.0],
            0 => [0.0, 1.0, 0.0],
            _ => [0.0, 0.0, 1.0],
        };
        assert_eq!(s.search_wdl, one_hot);
    }
    assert!(by_phase.values().all(|&n| n == 200), "{by_phase:?}");
}

#[test]
fn a_bank_of_other_rules_is_refused() {
    let six = Rules::new(Variant::Six);
    let path = paths::workspace().join("docs/results/nine-solve/sample-bank.kvbank");
    let err = BankSampling::open(&[&path], &six, &HashSet::new())
        .err()
        .expect("a Nine bank is not Six's");
    assert!(err.to_string().contains("holds positions of"), "{err}");
}

#[test]
fn a_position_in_two_banks_read_together_is_refused() {
    let rules = Rules::new(Variant::Nine);
    let path = paths::workspace().join("docs/results/nine-solve/sample-bank.kvbank");
    let err = BankSampling::open(&[&path, &path], &rules, &HashSet::new())
        .err()
        .expect("the second copy's rows are all in the first");
    assert!(err.to_string().contains("another bank"), "{err}");
}

#[test]
fn the_placing_bank_reads_with_the_sample_bank_as_one() {
    let rules = Rules::new(Variant::Nine);
    let dir = paths::workspace().join("docs/results/nine-solve");
    let (main, placing) = (
        dir.join("sample-bank.kvbank"),
        dir.join("placing-bank.kvbank"),
    );
    let excluded = kvarn_solver::benchmark::committed_keys(&rules).unwrap();
    let alone = BankSampling::open(&[&main], &rules, &excluded).unwrap();
    let both = BankSampling::open(&[&main, &placing], &rules, &excluded).unwrap();
    assert_eq!(both.excluded, 0);
    let placing_rows = |b: &BankSampling| b.strata()[0].2;
    assert_eq!(both.strata()[0].0, Phase::Placing);
    assert!(placing_rows(&both) >= placing_rows(&alone) + 14_000);
}
