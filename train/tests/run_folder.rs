//! A run folder that cannot be corrupted: each way a user's results could be lost or
//! falsified is refused, loudly.

use kvarn_game::{Rules, Variant};
use kvarn_model::NetConfig;
use kvarn_selfplay::{SearchConfig, SelfPlayConfig};
use kvarn_train::run::{RunOptions, run, start};
use kvarn_train::{LoopConfig, Manifest, RunConfig, RunDir, RunError, SolverConfig, TrainConfig};

fn config(generations: u32) -> RunConfig {
    RunConfig {
        seed: 9,
        device: kvarn_model::DeviceChoice::Cpu,
        rules: Rules::new(Variant::Six),
        network: NetConfig::Mlp {
            hidden: 16,
            blocks: 1,
        },
        search: SearchConfig {
            simulations: 8,
            ..SearchConfig::default()
        },
        selfplay: SelfPlayConfig {
            threads: 1,
            games_per_thread: 4,
            games_per_shard: 2,
            max_plies: 40,
            ..SelfPlayConfig::default()
        },
        train: TrainConfig {
            batch_size: 16,
            steps_per_generation: 4,
            ..TrainConfig::default()
        },
        run: LoopConfig {
            generations,
            games_per_generation: 4,
            checkpoint_every: 2,
            games_vs_previous: 2,
            baseline_depths: vec![],
            eval_simulations: 8,
            ..LoopConfig::default()
        },
        solver: SolverConfig::default(),
    }
}

fn started(generations: u32) -> (tempfile::TempDir, RunDir) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = RunDir::new(tmp.path().join("run"));
    start(&config(generations), "# test", &dir).unwrap();
    (tmp, dir)
}

#[test]
fn a_second_process_cannot_work_on_a_run_in_use() {
    let (_tmp, dir) = started(1);
    let held = dir.lock().unwrap();
    let e = run(&config(1), &dir, RunOptions::default(), None, |_| {}).unwrap_err();
    assert!(matches!(e, RunError::Locked { .. }), "{e}");
    assert!(
        e.to_string()
            .contains(&format!("process {}", std::process::id())),
        "{e}"
    );
    drop(held);
    let m = run(&config(1), &dir, RunOptions::default(), None, |_| {}).unwrap();
    assert_eq!(m.generations_done(), 1);
}

#[test]
fn a_new_run_is_refused_in_a_folder_with_an_old_runs_files() {
    let (_tmp, dir) = started(1);
    run(&config(1), &dir, RunOptions::default(), None, |_| {}).unwrap();
    std::fs::remove_file(dir.manifest()).unwrap();
    let e = start(&config(2), "# test", &dir).unwrap_err();
    assert!(matches!(e, RunError::NotEmpty(_)), "{e}");
    assert!(dir.model(1).exists(), "the old run's files are left alone");
}

#[test]
fn an_edited_or_damaged_manifest_is_refused() {
    let (_tmp, dir) = started(1);
    run(&config(1), &dir, RunOptions::default(), None, |_| {}).unwrap();
    let text = std::fs::read_to_string(dir.manifest()).unwrap();
    let edited = text.replace("\"generations_done\":1", "\"generations_done\":2");
    assert_ne!(edited, text);
    std::fs::write(dir.manifest(), &edited).unwrap();
    let e = Manifest::read(&dir).unwrap_err().to_string();
    assert!(e.contains("manifest.json"), "{e}");
    let e = run(&config(2), &dir, RunOptions::default(), None, |_| {}).unwrap_err();
    assert!(matches!(e, RunError::Manifest { .. }), "{e}");
}

#[test]
fn a_deleted_checkpoint_is_refused_unless_an_inexact_resume_is_asked_for_and_recorded() {
    let (_tmp, dir) = started(1);
    run(&config(1), &dir, RunOptions::default(), None, |_| {}).unwrap();
    std::fs::remove_file(dir.checkpoint()).unwrap();
    let e = run(&config(2), &dir, RunOptions::default(), None, |_| {}).unwrap_err();
    assert!(
        matches!(e, RunError::Inexact(_)) && e.to_string().contains("checkpoint"),
        "{e}"
    );
    let inexact = RunOptions {
        allow_inexact: true,
        ..RunOptions::default()
    };
    let m = run(&config(2), &dir, inexact, None, |_| {}).unwrap();
    assert_eq!(m.generations_done(), 2);
    assert_eq!(m.history[1].step, 8, "training goes on at the right step");
    assert_eq!(m.state.inexact_resumes.len(), 1);
    assert_eq!(m.state.inexact_resumes[0].generation, 2);
    let md = std::fs::read_to_string(dir.summary_markdown()).unwrap();
    assert!(md.contains("Inexact resume in generation 2"), "{md}");
}

#[test]
fn missing_games_of_the_replay_window_are_refused_unless_asked_for() {
    let (_tmp, dir) = started(1);
    run(&config(1), &dir, RunOptions::default(), None, |_| {}).unwrap();
    std::fs::remove_file(&dir.shard_files(1).unwrap()[0]).unwrap();
    let e = run(&config(2), &dir, RunOptions::default(), None, |_| {}).unwrap_err();
    assert!(matches!(e, RunError::Inexact(_)), "{e}");
    assert!(e.to_string().contains("generation 1 has 2 of its 4"), "{e}");
}

#[test]
fn a_database_folder_without_databases_is_refused_before_anything_is_written() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("db");
    std::fs::create_dir(&db).unwrap();
    std::fs::write(db.join("notes.txt"), "not a database").unwrap();
    let mut cfg = config(1);
    cfg.solver = SolverConfig {
        db: Some(db),
        build_if_missing: false,
        ..SolverConfig::default()
    };
    let dir = RunDir::new(tmp.path().join("run"));
    let e = start(&cfg, "# test", &dir).unwrap_err();
    assert!(e.to_string().contains("no solver databases"), "{e}");
    assert!(!dir.root().exists(), "nothing written");
    // The retry after making the databases is not blocked by a half-made folder.
    let entries: Vec<_> = std::fs::read_dir(tmp.path()).unwrap().collect();
    assert_eq!(entries.len(), 1, "only the database folder");
}

#[test]
fn a_gated_run_promotes_only_what_the_sequential_test_accepts() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = RunDir::new(tmp.path().join("run"));
    let mut cfg = config(2);
    cfg.run.gate = Some(kvarn_train::run_config::GateConfig {
        elo0: 0.0,
        elo1: 50.0,
        alpha: 0.05,
        beta: 0.05,
        max_games: 8,
    });
    cfg.validate().unwrap();
    start(&cfg, "# test", &dir).unwrap();
    let m = run(&cfg, &dir, RunOptions::default(), None, |_| {}).unwrap();
    for r in &m.history {
        let previous = &r.evaluation.matches[0];
        let status = previous.sequential.expect("the gate's test");
        assert!(previous.tally.games() <= 8);
        let accepted = status.verdict == kvarn_eval::sprt::Verdict::AcceptH1;
        assert_eq!(r.promoted, accepted, "generation {}", r.generation);
    }
    let mut bad = config(1);
    bad.run.gate = Some(kvarn_train::run_config::GateConfig {
        elo0: 10.0,
        elo1: 0.0,
        alpha: 0.05,
        beta: 0.05,
        max_games: 8,
    });
    let e = bad.validate().unwrap_err();
    assert_eq!(e.key, "loop.gate", "{e}");
}
