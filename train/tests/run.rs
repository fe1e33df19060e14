//! The generation loop: a small run finishes with its models, shards, manifest and
//! TensorBoard files, a run stopped during self-play or training resumes without losing
//! or repeating games, and games branched from the previous generation's are the same
//! every time.

use std::collections::BTreeSet;

use kvarn_game::{Rules, Variant};
use kvarn_model::NetConfig;
use kvarn_selfplay::{SearchConfig, SelfPlayConfig, read_shard};
use kvarn_train::TrainConfig;
use kvarn_train::manifest::Opponent;
use kvarn_train::run::{RunOptions, run, start};
use kvarn_train::{LoopConfig, RunConfig, SolverConfig};
use kvarn_train::{Manifest, RunDir};

#[path = "../../testing/paths.rs"]
mod paths;

fn config(generations: u32) -> RunConfig {
    RunConfig {
        seed: 5,
        device: kvarn_model::DeviceChoice::Cpu,
        rules: Rules::new(Variant::Six),
        network: NetConfig::Mlp {
            hidden: 16,
            blocks: 1,
            ownership_head: false,
        },
        search: SearchConfig {
            simulations: 8,
            ..SearchConfig::default()
        },
        selfplay: SelfPlayConfig {
            threads: 1,
            games_per_thread: 4,
            games_per_shard: 2,
            max_plies: 60,
            ..SelfPlayConfig::default()
        },
        train: TrainConfig {
            batch_size: 16,
            steps_per_generation: 6,
            ..TrainConfig::default()
        },
        run: LoopConfig {
            generations,
            games_per_generation: 6,
            checkpoint_every: 2,
            games_vs_previous: 2,
            baseline_depths: vec![1],
            games_vs_baseline: 2,
            player: kvarn_selfplay::PlayerTable(
                [(
                    "simulations".into(),
                    kvarn_selfplay::player::Scalar::Whole(8),
                )]
                .into(),
            ),
            ..LoopConfig::default()
        },
        solver: SolverConfig::default(),
    }
}

fn games_of(dir: &RunDir, g: u32) -> Vec<u64> {
    let mut v = Vec::new();
    for p in dir.shard_files(g).unwrap() {
        let (h, _) = read_shard(&p).unwrap();
        v.extend(h.game_list.iter().map(|x| x.index));
    }
    v.sort_unstable();
    v
}

#[test]
fn a_small_run_finishes_and_a_stopped_run_resumes() {
    let dir = tempfile::tempdir().unwrap();
    let d = &RunDir::new(dir.path());
    let cfg = config(1);
    begin(&cfg, d).unwrap();
    assert!(
        begin(&cfg, d).is_err(),
        "a second start in the same folder is refused"
    );
    let m = run(d, &RunOptions::default(), None, |_, _| {}).unwrap();
    assert_eq!(m.generations_done(), 1);
    assert!(d.model(1).exists());
    assert_eq!(games_of(d, 1), [0, 1, 2, 3, 4, 5]);
    let rec = &m.history[0];
    assert_eq!(rec.step, 6);
    assert!(rec.result_vs(&Opponent::AlphaBeta { depth: 1 }).is_some());
    assert!(std::fs::read_dir(d.tensorboard()).unwrap().count() >= 1);

    // Generation 2 stopped during self-play: two games were written, nothing else.
    let cfg2 = config(2);
    let partial = kvarn_selfplay::SelfPlayJob {
        rules: cfg2.rules,
        search: cfg2.search.clone(),
        selfplay: SelfPlayConfig {
            games_per_thread: 2,
            ..cfg2.selfplay.clone()
        },
        games: 2,
        skip: BTreeSet::new(),
        seed: kvarn_train::binding::selfplay_seed(&cfg2, 2),
        out: Some(d.shards(2)),
        shard_prefix: "selfplay".into(),
        model: "partial".into(),
        endgame: None,
        branch_from: Default::default(),
    };
    let eval = kvarn_selfplay::UniformEvaluator {
        input_len: kvarn_game::encoding::input_len(&cfg2.rules),
        actions: kvarn_game::ActionSpace::new(&cfg2.rules).len(),
    };
    kvarn_selfplay::run(&partial, &eval, None).unwrap();
    assert_eq!(games_of(d, 2), [0, 1]);
    let m = run(d, &gens(2), None, |_, _| {}).unwrap();
    assert_eq!(m.generations_done(), 2);
    assert_eq!(
        games_of(d, 2),
        [0, 1, 2, 3, 4, 5],
        "no game lost or played twice"
    );
    assert_eq!(m.history[1].step, 12);
    let on_disk = Manifest::read(d).unwrap();
    assert_eq!(on_disk.generations_done(), 2);
    assert_eq!(on_disk.history.len(), 2);

    // Stopped during training of generation 3, after 4 of its 6 steps: the resumed run
    // takes the same steps the whole one would have, from the checkpoint.
    let whole_dir = tempfile::tempdir().unwrap();
    let whole = &RunDir::new(whole_dir.path());
    copy_dir(d.root(), whole.root());
    let stopped = run(d, &stop_at(3, 16), None, |_, _| {}).unwrap();
    assert_eq!(stopped.generations_done(), 2, "stopped inside generation 3");
    let resumed = run(d, &gens(3), None, |_, _| {}).unwrap();
    let uninterrupted = run(whole, &gens(3), None, |_, _| {}).unwrap();
    assert_eq!(resumed.generations_done(), 3);
    assert_eq!(resumed.history[2].step, 18);
    assert_eq!(games_of(d, 3), [0, 1, 2, 3, 4, 5]);
    assert_eq!(games_of(whole, 3), [0, 1, 2, 3, 4, 5]);
    assert_eq!(uninterrupted.history[2].step, 18);
    // The same model either way.
    let device = kvarn_model::burn::tensor::Device::flex();
    let (a, _) = kvarn_model::file::load(&d.model(3), &device).unwrap();
    let (b, _) = kvarn_model::file::load(&whole.model(3), &device).unwrap();
    let x = vec![0.5f32; a.dims().input];
    let (oa, ob) = (a.evaluate(&x, None, 1), b.evaluate(&x, None, 1));
    for (p, q) in oa
        .policy_logits
        .iter()
        .zip(&ob.policy_logits)
        .chain(oa.wdl.iter().zip(&ob.wdl))
    {
        assert!((p - q).abs() < 1e-5, "resumed {p} vs uninterrupted {q}");
    }
}

#[test]
fn a_run_with_the_ownership_head_trains_it_records_its_loss_and_resumes_exactly() {
    let mut cfg = config(2);
    cfg.network = NetConfig::Mlp {
        hidden: 16,
        blocks: 1,
        ownership_head: true,
    };
    let (dir, whole_dir) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let (d, whole) = (&RunDir::new(dir.path()), &RunDir::new(whole_dir.path()));
    begin(&cfg, d).unwrap();
    begin(&cfg, whole).unwrap();
    // Stopped inside generation 2's training, after 3 of its 6 steps.
    run(d, &stop_at(2, 9), None, |_, _| {}).unwrap();
    let resumed = run(d, &gens(2), None, |_, _| {}).unwrap();
    let uninterrupted = run(whole, &gens(2), None, |_, _| {}).unwrap();
    let losses = |m: &Manifest| -> Vec<f64> {
        m.history
            .iter()
            .map(|r| r.training.loss_ownership.expect("an ownership loss"))
            .collect()
    };
    let (a, b) = (losses(&resumed), losses(&uninterrupted));
    assert!(a.iter().all(|&l| l > 0.0 && l < 2.0), "{a:?}");
    for (x, y) in a.iter().zip(&b) {
        assert!((x - y).abs() < 1e-6, "resumed {a:?} vs uninterrupted {b:?}");
    }
    let csv = std::fs::read_to_string(d.summary_csv()).unwrap();
    assert!(csv.contains("train/loss_ownership_generation"), "{csv}");
    // The model file keeps the head; play ignores it.
    let device = kvarn_model::burn::tensor::Device::flex();
    let (net, header) = kvarn_model::file::load(&d.model(2), &device).unwrap();
    assert!(header.network.has_ownership_head());
    let (other, _) = kvarn_model::file::load(&whole.model(2), &device).unwrap();
    let x = vec![0.5f32; net.dims().input];
    assert_eq!(net.evaluate(&x, None, 1), other.evaluate(&x, None, 1));
}

#[test]
fn branch_starts_draw_from_the_previous_generation_the_same_games_every_time() {
    let mut cfg = config(2);
    cfg.selfplay.branch_starts.share = 1.0;
    let dir = tempfile::tempdir().unwrap();
    let d = &RunDir::new(dir.path());
    begin(&cfg, d).unwrap();
    run(d, &gens(1), None, |_, _| {}).unwrap();
    let earlier: BTreeSet<u64> = dir_games(d, 1)
        .iter()
        .flatten()
        .map(|s| s.position.key())
        .collect();
    let (again_dir, gone_dir) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let (again, gone) = (
        &RunDir::new(again_dir.path()),
        &RunDir::new(gone_dir.path()),
    );
    copy_dir(d.root(), again.root());
    copy_dir(d.root(), gone.root());
    run(d, &gens(2), None, |_, _| {}).unwrap();
    run(again, &gens(2), None, |_, _| {}).unwrap();
    assert_eq!(games_of(d, 2), [0, 1, 2, 3, 4, 5]);
    let games = dir_games(d, 2);
    assert_eq!(
        games,
        dir_games(again, 2),
        "generation 2 plays the same games again"
    );
    // Generation 1 had no earlier games and started from the empty board; every game of
    // generation 2 starts at a moving-phase position generation 1 searched.
    let starts: Vec<_> = games.iter().map(|g| g[0].position).collect();
    assert_eq!(starts.len(), 6);
    for p in starts {
        assert!(
            earlier.contains(&p.key()),
            "{p:?}: not a generation-1 position"
        );
        assert_eq!(p.in_hand(kvarn_game::Color::White), 0);
    }
    // Without generation 1's shards, generation 2 would draw other games: refused, even
    // where the replay window is allowed to differ.
    std::fs::remove_dir_all(gone.shards(1)).unwrap();
    let inexact = RunOptions {
        allow_inexact: true,
        ..gens(2)
    };
    let e = run(gone, &inexact, None, |_, _| {})
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("selfplay.branch_starts") && e.contains("gen-0001"),
        "{e}"
    );
}

/// The samples of each game of generation `g`, in the order of the games' indices.
fn dir_games(dir: &RunDir, g: u32) -> Vec<Vec<kvarn_selfplay::Sample>> {
    let files = dir.shard_files(g).unwrap();
    kvarn_train::replay::read_generation(Rules::new(Variant::Six), &files)
        .unwrap()
        .0
        .into_iter()
        .map(|g| g.samples)
        .collect()
}

fn copy_dir(from: &std::path::Path, to: &std::path::Path) {
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            std::fs::create_dir_all(&target).unwrap();
            copy_dir(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), &target).unwrap();
        }
    }
}

#[test]
fn a_run_with_databases_scores_on_the_solver_promotes_by_score_and_writes_its_summary() {
    let dir = tempfile::tempdir().unwrap();
    let d = &RunDir::new(dir.path().join("run"));
    let db = dir.path().join("db-five");
    let mut cfg = config(2);
    cfg.rules = Rules::new(Variant::Five);
    cfg.run.games_vs_random = 2;
    cfg.run.games_vs_previous = 4;
    cfg.run.promotion_score = 0.55;
    cfg.solver = SolverConfig {
        db: Some(db.clone()),
        build_if_missing: true,
        positions: 24,
        games_vs_perfect: 2,
        ..SolverConfig::default()
    };
    cfg.validate().unwrap();
    begin(&cfg, d).unwrap();
    let m = run(d, &RunOptions::default(), None, |_, _| {}).unwrap();
    assert!(
        std::fs::read_dir(&db).unwrap().count() > 10,
        "databases built"
    );
    assert_eq!(m.generations_done(), 2);
    let mut champion = 0;
    for r in &m.history {
        assert_eq!(
            r.selfplay_model, champion,
            "self-play by the last promoted model"
        );
        let score = r.result_vs(&Opponent::Previous).unwrap().score();
        assert_eq!(r.promoted, score >= 0.55);
        if r.promoted {
            champion = r.generation;
        }
        let s = r.evaluation.solver.as_ref().expect("solver figures");
        assert_eq!(s.positions, 24);
        assert!((0.0..=1.0).contains(&s.value_keeping));
        assert!((s.value_keeping + s.blunders - 1.0).abs() < 1e-9);
        let p = r
            .result_vs(&Opponent::Perfect)
            .expect("games against the perfect player");
        assert_eq!(p.wins + p.draws + p.losses, 2);
        assert!(r.result_vs(&Opponent::Random).is_some());
    }
    assert_eq!(m.selfplay_model(), champion);
    // What people read: the summary table, the CSV (a header and a row per generation)
    // and the plot.
    let md = std::fs::read_to_string(d.summary_markdown()).unwrap();
    assert!(
        md.contains("solver value accuracy") && md.contains("| 2 |"),
        "{md}"
    );
    let csv = std::fs::read_to_string(d.summary_csv()).unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines.len(), 3, "{csv}");
    let columns = lines[0].split(',').count();
    assert!(
        lines.iter().all(|l| l.split(',').count() == columns),
        "{csv}"
    );
    assert!(lines[0].contains("solver/value_keeping_moves"));
    let svg = std::fs::read_to_string(d.strength_plot()).unwrap();
    assert!(svg.starts_with("<svg") && svg.contains("solver value-keeping moves"));
    // The benchmark set is the run's own: a resumed run reads it back, and a damaged one
    // is refused.
    let set = d.solver_set();
    let before = std::fs::read(&set).unwrap();
    let m3 = run(d, &gens(3), None, |_, _| {}).unwrap();
    assert_eq!(m3.generations_done(), 3);
    assert_eq!(std::fs::read(&set).unwrap(), before);
    std::fs::write(&set, &before[..before.len() / 2]).unwrap();
    assert!(run(d, &gens(4), None, |_, _| {}).is_err());
}

/// Starts a run of `cfg` in `d`, with its configuration file written from it.
fn begin(cfg: &RunConfig, d: &RunDir) -> Result<(), kvarn_train::RunError> {
    start(cfg, &toml::to_string(cfg).unwrap(), d, None)
}

fn gens(generations: u32) -> RunOptions {
    RunOptions::until(generations)
}

fn stop_at(generations: u32, steps: u64) -> RunOptions {
    RunOptions {
        max_steps: Some(steps),
        ..RunOptions::until(generations)
    }
}

/// A Five run whose generations draw `exact` samples from databases built in `dir`.
fn five_with_exact_samples(dir: &std::path::Path, exact: u64) -> RunConfig {
    let mut cfg = config(1);
    cfg.rules = Rules::new(Variant::Five);
    cfg.run.games_vs_previous = 0;
    cfg.run.baseline_depths = vec![];
    cfg.selfplay.endgame.exact_samples = exact;
    cfg.solver = SolverConfig {
        db: Some(dir.join("db-five")),
        build_if_missing: true,
        ..SolverConfig::default()
    };
    cfg.validate().unwrap();
    cfg
}

#[test]
fn missing_exact_samples_of_the_replay_window_are_refused_unless_asked_for() {
    let dir = tempfile::tempdir().unwrap();
    let d = &RunDir::new(dir.path().join("run"));
    begin(&five_with_exact_samples(dir.path(), 0), d).unwrap();
    run(d, &gens(1), None, |_, _| {}).unwrap();
    // Exact samples from generation 2 on, as a stage of a longer run adds them.
    let stage = RunOptions {
        settings: vec!["selfplay.endgame.exact_samples=40".into()],
        ..gens(2)
    };
    run(d, &stage, None, |_, _| {}).unwrap();
    assert!(!d.exact_shard(1).exists() && d.exact_shard(2).exists());
    std::fs::remove_file(d.exact_shard(2)).unwrap();
    let e = run(d, &gens(3), None, |_, _| {}).unwrap_err();
    assert!(
        matches!(e, kvarn_train::RunError::Inexact(_))
            && e.to_string().contains("generation 2's 40 exact samples"),
        "{e}"
    );
    let inexact = RunOptions {
        allow_inexact: true,
        ..gens(3)
    };
    let m = run(d, &inexact, None, |_, _| {}).unwrap();
    assert_eq!(m.generations_done(), 3);
    let recorded: Vec<_> = m
        .state
        .inexact_resumes
        .iter()
        .map(|r| r.generation)
        .collect();
    assert_eq!(recorded, [3], "generation 1 drew none, so it misses none");
}

#[test]
fn each_generation_adds_exact_samples_from_the_databases_once() {
    let dir = tempfile::tempdir().unwrap();
    let d = &RunDir::new(dir.path().join("run"));
    begin(&five_with_exact_samples(dir.path(), 40), d).unwrap();
    run(d, &RunOptions::default(), None, |_, _| {}).unwrap();
    let first = std::fs::read(d.exact_shard(1)).unwrap();
    let (header, samples) = read_shard(&d.exact_shard(1)).unwrap();
    assert_eq!(header.source, kvarn_selfplay::SampleSource::Databases);
    assert_eq!((header.games, samples.len()), (0, 40));
    assert!(
        samples
            .iter()
            .all(|s| s.full_search && !s.policy.is_empty())
    );
    assert_eq!(games_of(d, 1), (0..6).collect::<Vec<_>>());
    // Killed during generation 2's training, after its samples were written: the resume
    // keeps the file it finds (here one planted in its place) rather than drawing again.
    run(d, &stop_at(2, 9), None, |_, _| {}).unwrap();
    let (_, second) = read_shard(&d.exact_shard(2)).unwrap();
    assert_eq!(second.len(), 40);
    assert_ne!(second, samples, "each generation draws its own");
    std::fs::write(d.exact_shard(2), &first).unwrap();
    let m = run(d, &gens(2), None, |_, _| {}).unwrap();
    assert_eq!(m.generations_done(), 2);
    assert_eq!(std::fs::read(d.exact_shard(2)).unwrap(), first);
}

#[test]
fn each_generation_adds_exact_samples_from_the_bank_of_every_phase() {
    let dir = tempfile::tempdir().unwrap();
    let d = &RunDir::new(dir.path().join("run"));
    let mut cfg = config(1);
    cfg.rules = Rules::new(Variant::Nine);
    cfg.run.games_vs_previous = 0;
    cfg.run.baseline_depths = vec![];
    cfg.selfplay.exact_bank = kvarn_selfplay::ExactBank {
        path: Some(paths::workspace().join("docs/results/nine-solve/sample-bank.kvbank")),
        samples: 40,
        also: vec![],
    };
    cfg.validate().unwrap();
    begin(&cfg, d).unwrap();
    run(d, &RunOptions::default(), None, |_, _| {}).unwrap();
    let (header, samples) = read_shard(&d.bank_shard(1)).unwrap();
    assert_eq!(header.source, kvarn_selfplay::SampleSource::Databases);
    assert_eq!((header.games, samples.len()), (0, 40));
    let phases: std::collections::BTreeSet<_> = samples
        .iter()
        .map(|s| kvarn_game::Phase::of(&cfg.rules, &s.position))
        .collect();
    assert_eq!(
        phases.len(),
        4,
        "placing, moving, flying and removals: {phases:?}"
    );
    std::fs::remove_file(d.bank_shard(1)).unwrap();
    let e = run(d, &gens(2), None, |_, _| {}).unwrap_err();
    assert!(
        e.to_string().contains("generation 1's 40 exact samples"),
        "{e}"
    );
}
