//! Sequential tests: the log-likelihood ratio against fishtest's figures and an independent
//! computation, the Elo estimate, tests that decide the obvious, and fair matches (never
//! more games at once than threads, openings fixed by the seed).

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use kvarn_arena::ArenaError;
use kvarn_arena::agent::{Agent, AgentFactory, AgentSpec, RandomAgent};
use kvarn_arena::matches::{MatchConfig, openings, run_match, run_sprt};
use kvarn_arena::sprt::{Pentanomial, SprtParams, Verdict, expected_score, llr, llr_approx};
use kvarn_engine::search::Limits;
use kvarn_game::{Game, Move, Rules, Variant};

/// Counts, `elo0`, `elo1`, exact LLR, approximate LLR, and Elo with its interval's ends.
type Case = ([u32; 5], f64, f64, f64, f64, [f64; 3]);

/// Pentanomial counts, Elo bounds, and what fishtest makes of them: `LLR_logistic`,
/// `LLR_alt2` times N, and `get_elo`'s estimate and interval ends. The figures come from
/// running the functions of fishtest's `server/fishtest/stats/LLRcalc.py` and
/// `stat_util.py` (Python 3, scipy 1.17) on these counts; the first three counts are
/// fishtest's own examples.
const FISHTEST: [Case; 8] = [
    (
        [10789, 19328, 33806, 19402, 10543],
        -3.0,
        1.0,
        2.131068,
        2.131245,
        [-0.7736, -2.0512, 0.5040],
    ),
    (
        [1187, 7410, 13475, 7378, 1164],
        -3.0,
        1.0,
        2.861527,
        2.861990,
        [-0.4426, -2.1725, 1.2872],
    ),
    (
        [39, 2226, 31451, 2412, 40],
        0.2,
        0.9,
        2.162543,
        2.162405,
        [0.9030, 0.2405, 1.5655],
    ),
    (
        [3, 10, 25, 14, 8],
        0.0,
        10.0,
        0.634228,
        0.654680,
        [40.7196, -5.1230, 88.0274],
    ),
    (
        [0, 2, 5, 9, 14],
        0.0,
        50.0,
        4.007256,
        10.061059,
        [231.8856, 153.9258, 338.3610],
    ),
    (
        [0, 0, 0, 0, 20],
        0.0,
        50.0,
        2.672083,
        7080.093488,
        [1199.8262, 943.1577, 1199.8262],
    ),
    (
        [4, 6, 12, 5, 3],
        0.0,
        50.0,
        -1.555264,
        -1.614908,
        [-17.3863, -89.9314, 53.6543],
    ),
    (
        [1, 3, 0, 7, 0],
        -10.0,
        30.0,
        0.232576,
        0.254134,
        [31.6986, -84.2992, 155.5221],
    ),
];

/// The generalised LLR worked out another way. The most likely distribution with mean `s`
/// is `q_i = p_i / (1 + x (a_i − s))` with `x` the maximum of the concave
/// `g_s(x) = Σ n_i ln(1 + x (a_i − s))`, so its log-likelihood is `Σ n_i ln p_i − max g_s`
/// and LLR = `max g_s0 − max g_s1`; here each maximum is found by golden-section search
/// rather than by solving for the root of the derivative.
fn llr_by_golden_section(counts: &[u32; 5], elo0: f64, elo1: f64) -> f64 {
    let n: Vec<f64> = counts
        .iter()
        .map(|&c| if c == 0 { 1e-3 } else { f64::from(c) })
        .collect();
    let dual = |s: f64| -> f64 {
        let g = |x: f64| -> f64 {
            n.iter()
                .enumerate()
                .map(|(i, &c)| c * (1.0 + x * (i as f64 / 4.0 - s)).ln())
                .sum()
        };
        let (mut lo, mut hi) = (-1.0 / (1.0 - s), 1.0 / s);
        let r = (5f64.sqrt() - 1.0) / 2.0;
        for _ in 0..400 {
            let (m1, m2) = (hi - r * (hi - lo), lo + r * (hi - lo));
            if g(m1) < g(m2) {
                lo = m1;
            } else {
                hi = m2;
            }
        }
        g(0.5 * (lo + hi))
    };
    dual(expected_score(elo0)) - dual(expected_score(elo1))
}

#[test]
fn the_llr_is_fishtests() {
    for (counts, elo0, elo1, exact, approx, _) in FISHTEST {
        let ours = llr(&counts, elo0, elo1);
        assert!(
            (ours - exact).abs() < 0.01,
            "{counts:?} {elo0} {elo1}: {ours} vs fishtest {exact}"
        );
        let independent = llr_by_golden_section(&counts, elo0, elo1);
        assert!(
            (ours - independent).abs() < 0.01,
            "{counts:?}: {ours} vs golden section {independent}"
        );
        let ours_approx = llr_approx(&counts, elo0, elo1);
        assert!(
            (ours_approx - approx).abs() < 0.01 * approx.abs().max(1.0),
            "{counts:?}: approximation {ours_approx} vs fishtest {approx}"
        );
        assert_eq!(Pentanomial::new(counts).llr(elo0, elo1), ours);
    }
}

#[test]
fn the_elo_estimate_is_fishtests() {
    for (counts, _, _, _, _, [elo, lower, upper]) in FISHTEST {
        let e = Pentanomial::new(counts).elo();
        for (ours, theirs) in [(e.elo, elo), (e.lower, lower), (e.upper, upper)] {
            assert!((ours - theirs).abs() < 0.01, "{counts:?}: {e:?}");
        }
    }
    // Worked by hand: pairs 0, 1, 1, 2 points: μ = ½ per game, σ² per game = ¼, 8 games.
    let e = Pentanomial::new([1, 0, 2, 0, 1]).elo();
    let half = 1.959_963_984_540_054 * (0.25f64 / 8.0).sqrt();
    assert!(e.elo.abs() < 0.05, "{e:?}");
    let expected = -400.0 * (1.0 / (0.5 + half) - 1.0).log10();
    assert!((e.upper - expected).abs() < 0.5, "{e:?} {expected}");
}

#[test]
fn pairs_are_counted_by_their_score() {
    let mut p = Pentanomial::default();
    p.add_pair(2, 2);
    p.add_pair(2, 0);
    p.add_pair(1, 1);
    p.add_pair(0, 1);
    assert_eq!(p.counts, [0, 1, 2, 0, 1]);
    assert_eq!((p.pairs(), p.games()), (4, 8));
    assert!((p.score() - 4.5 / 8.0).abs() < 1e-12);
    let params = SprtParams::new(0.0, 10.0, 0.05, 0.05).unwrap();
    let s = p.status(&params);
    assert_eq!(s.verdict, Verdict::Continue);
    assert!((s.lower_bound - (0.05f64 / 0.95).ln()).abs() < 1e-12);
    assert!((s.upper_bound - (0.95f64 / 0.05).ln()).abs() < 1e-12);
    assert!(s.to_string().contains("[0, 1, 2, 0, 1]"), "{s}");
}

fn five() -> MatchConfig {
    MatchConfig {
        rules: Rules::new(Variant::Five),
        games: 200,
        seed: 11,
        opening_plies: 2,
    }
}

#[test]
fn a_clearly_stronger_agent_is_accepted() {
    let strong = AgentSpec::alphabeta(
        Limits {
            depth: Some(3),
            ..Limits::default()
        },
        1,
    );
    let params = SprtParams::new(0.0, 50.0, 0.05, 0.05).unwrap();
    let mut seen = 0;
    let r = run_sprt(&five(), &strong, &AgentSpec::random(), &params, |s| {
        seen += 1;
        assert_eq!(s.counts.pairs(), seen);
    })
    .unwrap();
    assert_eq!(r.status.verdict, Verdict::AcceptH1, "{}", r.status);
    assert!(r.status.llr > r.status.upper_bound);
    assert!(r.status.counts.pairs() < 30, "{}", r.status);
    assert_eq!(r.report.records.len() as u32, r.status.counts.games());
    assert!(r.status.elo.lower > 50.0, "{}", r.status);
    // The weaker side first: H0 accepted.
    let r = run_sprt(&five(), &AgentSpec::random(), &strong, &params, |_| {}).unwrap();
    assert_eq!(r.status.verdict, Verdict::AcceptH0, "{}", r.status);
}

#[test]
fn an_agent_against_itself_is_not_accepted() {
    let params = SprtParams::new(0.0, 50.0, 0.05, 0.05).unwrap();
    let cfg = MatchConfig {
        games: 120,
        ..five()
    };
    let r = run_sprt(
        &cfg,
        &AgentSpec::random(),
        &AgentSpec::random(),
        &params,
        |_| {},
    )
    .unwrap();
    assert_ne!(r.status.verdict, Verdict::AcceptH1, "{}", r.status);
    assert!(r.status.counts.games() <= 120);
    assert!(r.report.failures.is_empty());
}

#[test]
fn the_result_does_not_depend_on_the_threads() {
    let params = SprtParams::new(0.0, 50.0, 0.05, 0.05).unwrap();
    let cfg = MatchConfig {
        games: 40,
        ..five()
    };
    let run = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| {
            run_sprt(
                &cfg,
                &AgentSpec::random(),
                &AgentSpec::random(),
                &params,
                |_| {},
            )
            .unwrap()
        })
    };
    let (one, three) = (run(1), run(3));
    assert_eq!(one.status, three.status);
    assert_eq!(one.report.records, three.report.records);
}

#[test]
fn parameters_that_make_no_test_are_refused() {
    let bad = SprtParams {
        elo0: 5.0,
        elo1: 0.0,
        alpha: 0.05,
        beta: 0.05,
    };
    let e = run_sprt(
        &five(),
        &AgentSpec::random(),
        &AgentSpec::random(),
        &bad,
        |_| {},
    )
    .unwrap_err();
    assert!(e.to_string().contains("elo0"), "{e}");
}

/// Random players that count how many of them are choosing at once.
struct Counting {
    now: Arc<AtomicUsize>,
    max: Arc<AtomicUsize>,
}

struct CountingAgent {
    inner: RandomAgent,
    now: Arc<AtomicUsize>,
    max: Arc<AtomicUsize>,
}

impl Agent for CountingAgent {
    fn name(&self) -> String {
        "counting".into()
    }
    fn choose(&mut self, game: &Game) -> Result<Move, ArenaError> {
        let at_once = self.now.fetch_add(1, Ordering::SeqCst) + 1;
        self.max.fetch_max(at_once, Ordering::SeqCst);
        std::thread::sleep(Duration::from_micros(300));
        let mv = self.inner.choose(game);
        self.now.fetch_sub(1, Ordering::SeqCst);
        mv
    }
}

impl AgentFactory for Counting {
    fn name(&self) -> String {
        "counting".into()
    }
    fn build(&self, _rules: Rules, game_seed: u64) -> Result<Box<dyn Agent>, ArenaError> {
        Ok(Box::new(CountingAgent {
            inner: RandomAgent::new(game_seed),
            now: Arc::clone(&self.now),
            max: Arc::clone(&self.max),
        }))
    }
}

fn counting() -> Counting {
    Counting {
        now: Arc::new(AtomicUsize::new(0)),
        max: Arc::new(AtomicUsize::new(0)),
    }
}

#[test]
fn a_match_never_plays_more_games_at_once_than_threads() {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let cfg = MatchConfig {
        games: 4 * cores.max(3) + 2,
        ..five()
    };
    // The global pool (one thread per core), then a pool of 3.
    let c = counting();
    let report = run_match(&cfg, &c, &c, |_| {}).unwrap();
    assert_eq!(report.records.len(), cfg.games);
    let max = c.max.load(Ordering::SeqCst);
    assert!(
        max >= 1 && max <= cores,
        "{max} games at once on {cores} cores"
    );
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(3)
        .build()
        .unwrap();
    let c = counting();
    pool.install(|| run_match(&cfg, &c, &c, |_| {})).unwrap();
    let max = c.max.load(Ordering::SeqCst);
    assert!(max <= 3, "{max} games at once on 3 threads");
    // A sequential test likewise (it stops at its cap: these agents are equal).
    let params = SprtParams::new(0.0, 400.0, 0.01, 0.01).unwrap();
    for threads in [1, 3] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        let c = counting();
        pool.install(|| run_sprt(&cfg, &c, &c, &params, |_| {}))
            .unwrap();
        let max = c.max.load(Ordering::SeqCst);
        assert!(max <= threads, "{max} games at once on {threads} threads");
    }
}

#[test]
fn the_openings_follow_the_seed() {
    for rules in [Rules::new(Variant::Five), Rules::new(Variant::Nine)] {
        let a = openings(&rules, 12, 4, 7);
        assert_eq!(a, openings(&rules, 12, 4, 7));
        assert_ne!(a, openings(&rules, 12, 4, 8));
    }
    // And so do the matches: the same seed, the same games.
    let cfg = MatchConfig { games: 6, ..five() };
    let r = AgentSpec::random();
    let one = run_match(&cfg, &r, &r, |_| {}).unwrap();
    let two = run_match(&cfg, &r, &r, |_| {}).unwrap();
    assert_eq!(one.records, two.records);
}
