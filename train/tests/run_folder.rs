//! A run folder that cannot be corrupted: each way a user's results could be lost or
//! falsified is refused, loudly.

use kvarn_game::{Rules, Variant};
use kvarn_model::NetConfig;
use kvarn_selfplay::{SearchConfig, SelfPlayConfig};
use kvarn_train::run::{InitialModel, RunOptions, run, start};
use kvarn_train::{LoopConfig, Manifest, RunConfig, RunDir, RunError, SolverConfig, TrainConfig};

#[path = "../../testing/paths.rs"]
mod paths;

fn config(generations: u32) -> RunConfig {
    RunConfig {
        seed: 9,
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

/// Starts a run of `cfg` in `d`, with its configuration file written from it.
fn begin(cfg: &RunConfig, d: &RunDir) -> Result<(), RunError> {
    start(cfg, &toml::to_string(cfg).unwrap(), d, None)
}

fn gens(generations: u32) -> RunOptions {
    RunOptions::until(generations)
}

fn started(generations: u32) -> (tempfile::TempDir, RunDir) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = RunDir::new(tmp.path().join("run"));
    begin(&config(generations), &dir).unwrap();
    (tmp, dir)
}

#[test]
fn a_second_process_cannot_work_on_a_run_in_use() {
    let (_tmp, dir) = started(1);
    let held = dir.lock().unwrap();
    let e = run(&dir, &gens(1), None, |_, _| {}).unwrap_err();
    assert!(matches!(e, RunError::Locked { .. }), "{e}");
    assert!(
        e.to_string()
            .contains(&format!("process {}", std::process::id())),
        "{e}"
    );
    drop(held);
    let m = run(&dir, &gens(1), None, |_, _| {}).unwrap();
    assert_eq!(m.generations_done(), 1);
}

#[test]
fn a_new_run_is_refused_in_a_folder_with_an_old_runs_files() {
    let (_tmp, dir) = started(1);
    run(&dir, &gens(1), None, |_, _| {}).unwrap();
    std::fs::remove_file(dir.manifest()).unwrap();
    let e = begin(&config(2), &dir).unwrap_err();
    assert!(matches!(e, RunError::NotEmpty(_)), "{e}");
    assert!(dir.model(1).exists(), "the old run's files are left alone");
}

#[test]
fn a_run_starts_from_a_given_model_of_its_network_and_refuses_another() {
    let cfg = config(1);
    let device = kvarn_model::DeviceChoice::Cpu.device().unwrap();
    let trained = kvarn_model::Network::new(cfg.rules, cfg.network.clone(), 99, &device).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("given.kvmodel");
    let initial = InitialModel {
        path: &path,
        network: &trained,
    };
    let text = toml::to_string(&cfg).unwrap();
    let dir = RunDir::new(tmp.path().join("run"));
    start(&cfg, &text, &dir, Some(&initial)).unwrap();
    let (gen0, header) = kvarn_model::file::load(&dir.model(0), &device).unwrap();
    // The same weights give the same outputs, to the bit, on any input.
    let input: Vec<f32> = (0..3 * gen0.dims().input)
        .map(|i| ((i * 7) % 5) as f32 * 0.5)
        .collect();
    let outputs = |n: &kvarn_model::Network| n.evaluate(&input, None, 3);
    assert!(
        outputs(&gen0) == outputs(&trained),
        "generation 0 is the given model"
    );
    let note = header.provenance.note.unwrap();
    assert!(note.contains("given.kvmodel"), "{note}");
    assert_eq!(
        run(&dir, &gens(1), None, |_, _| {})
            .unwrap()
            .generations_done(),
        1
    );

    let other = kvarn_model::Network::new(
        cfg.rules,
        NetConfig::Mlp {
            hidden: 24,
            blocks: 1,
            ownership_head: false,
        },
        0,
        &device,
    )
    .unwrap();
    let initial = InitialModel {
        path: &path,
        network: &other,
    };
    let fresh = RunDir::new(tmp.path().join("other"));
    let e = start(&cfg, &text, &fresh, Some(&initial)).unwrap_err();
    assert!(matches!(e, RunError::InitialModel { .. }), "{e}");
    assert!(e.to_string().contains("mlp 2x24"), "{e}");
    assert!(!fresh.root().exists(), "nothing is written");
}

#[test]
fn an_edited_or_damaged_manifest_is_refused() {
    let (_tmp, dir) = started(1);
    run(&dir, &gens(1), None, |_, _| {}).unwrap();
    let text = std::fs::read_to_string(dir.manifest()).unwrap();
    let edited = text.replace("\"generations_done\":1", "\"generations_done\":2");
    assert_ne!(edited, text);
    std::fs::write(dir.manifest(), &edited).unwrap();
    let e = Manifest::read(&dir).unwrap_err().to_string();
    assert!(e.contains("manifest.json"), "{e}");
    let e = run(&dir, &gens(2), None, |_, _| {}).unwrap_err();
    assert!(matches!(e, RunError::Manifest { .. }), "{e}");
}

#[test]
fn a_deleted_checkpoint_is_refused_unless_an_inexact_resume_is_asked_for_and_recorded() {
    let (_tmp, dir) = started(1);
    run(&dir, &gens(1), None, |_, _| {}).unwrap();
    std::fs::remove_file(dir.checkpoint()).unwrap();
    let e = run(&dir, &gens(2), None, |_, _| {}).unwrap_err();
    assert!(
        matches!(e, RunError::Inexact(_)) && e.to_string().contains("checkpoint"),
        "{e}"
    );
    let inexact = RunOptions {
        allow_inexact: true,
        ..RunOptions::default()
    };
    let m = run(
        &dir,
        &RunOptions {
            generations: Some(2),
            ..inexact
        },
        None,
        |_, _| {},
    )
    .unwrap();
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
    run(&dir, &gens(1), None, |_, _| {}).unwrap();
    // How games group into shards follows when each game ends, which follows the
    // network's arithmetic (its kernel path differs between CPUs): count, do not assume.
    let shard = dir.shard_files(1).unwrap()[0].clone();
    let removed = kvarn_selfplay::read_shard(&shard).unwrap().0.games;
    assert!(
        (1..4).contains(&removed),
        "{removed} games in the first shard"
    );
    std::fs::remove_file(&shard).unwrap();
    let e = run(&dir, &gens(2), None, |_, _| {}).unwrap_err();
    assert!(matches!(e, RunError::Inexact(_)), "{e}");
    let left = format!("generation 1 has {} of its 4", 4 - removed);
    assert!(e.to_string().contains(&left), "{e}");
    // Allowed, stopped inside generation 2, and resumed again: the gap is recorded once.
    let stopped = RunOptions {
        allow_inexact: true,
        max_steps: Some(6),
        ..gens(2)
    };
    assert_eq!(
        run(&dir, &stopped, None, |_, _| {})
            .unwrap()
            .generations_done(),
        1
    );
    let inexact = RunOptions {
        allow_inexact: true,
        ..gens(2)
    };
    let m = run(&dir, &inexact, None, |_, _| {}).unwrap();
    assert_eq!(m.generations_done(), 2);
    assert_eq!(
        m.state.inexact_resumes.len(),
        1,
        "{:?}",
        m.state.inexact_resumes
    );
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
    let e = begin(&cfg, &dir).unwrap_err();
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
    begin(&cfg, &dir).unwrap();
    let m = run(&dir, &RunOptions::default(), None, |_, _| {}).unwrap();
    for r in &m.history {
        let previous = &r.evaluation.matches[0];
        let status = previous.sequential.expect("the gate's test");
        assert!(previous.tally.games() <= 8);
        let accepted = status.verdict == kvarn_arena::sprt::Verdict::AcceptH1;
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

#[test]
fn an_edited_configuration_is_refused_on_resume() {
    let (_tmp, dir) = started(1);
    run(&dir, &gens(1), None, |_, _| {}).unwrap();
    let path = dir.config();
    let text = std::fs::read_to_string(&path).unwrap();
    let edited = text.replace("seed = 9", "seed = 10");
    assert_ne!(edited, text);
    std::fs::write(&path, &edited).unwrap();
    let e = run(&dir, &gens(2), None, |_, _| {}).unwrap_err();
    assert!(matches!(e, RunError::ConfigEdited { .. }), "{e}");
    assert!(e.to_string().contains("--set"), "says what to do: {e}");
    assert_eq!(Manifest::read(&dir).unwrap().generations_done(), 1);
    std::fs::write(&path, &text).unwrap();
    assert_eq!(
        run(&dir, &gens(2), None, |_, _| {})
            .unwrap()
            .generations_done(),
        2
    );
}

#[test]
fn settings_changed_on_resume_are_recorded_and_kept_by_later_resumes() {
    let (_tmp, dir) = started(1);
    run(&dir, &gens(1), None, |_, _| {}).unwrap();
    let config_before = std::fs::read(dir.config()).unwrap();
    let amend = RunOptions {
        settings: vec![
            "train.learning_rate=0.0005".into(),
            "train.schedule={kind=\"cosine\", steps=8, min_fraction=0.5, start=4}".into(),
        ],
        ..gens(2)
    };
    let mut seen = Vec::new();
    let m = run(&dir, &amend, None, |c, r| {
        seen.push((r.generation, c.train.learning_rate));
    })
    .unwrap();
    assert_eq!(seen, [(2, 0.0005)]);
    assert_eq!(m.state.amendments.len(), 1);
    assert_eq!(m.state.amendments[0].generation, 2);
    assert_eq!(m.state.amendments[0].settings, amend.settings);
    assert_eq!(
        std::fs::read(dir.config()).unwrap(),
        config_before,
        "left as started"
    );
    let md = std::fs::read_to_string(dir.summary_markdown()).unwrap();
    assert!(md.contains("Settings changed from generation 2"), "{md}");
    let mut rates = Vec::new();
    run(&dir, &gens(3), None, |c, _| {
        rates.push(c.train.learning_rate)
    })
    .unwrap();
    assert_eq!(rates, [0.0005], "a later resume keeps the change");
    let again = RunOptions {
        settings: amend.settings.clone(),
        ..gens(4)
    };
    let m = run(&dir, &again, None, |_, _| {}).unwrap();
    assert_eq!(m.generations_done(), 4);
    assert_eq!(
        m.state.amendments.len(),
        1,
        "the same settings again change nothing"
    );
}

#[test]
fn a_resume_cannot_change_the_network_the_rules_or_a_bad_value() {
    let (_tmp, dir) = started(1);
    run(&dir, &gens(1), None, |_, _| {}).unwrap();
    let manifest = std::fs::read(dir.manifest()).unwrap();
    for setting in [
        "network.hidden=32",
        "rules={variant=\"nine\"}",
        "train.steps_per_generation=9",
        "train.batch_size=0",
    ] {
        let options = RunOptions {
            settings: vec![setting.into()],
            ..gens(2)
        };
        let e = run(&dir, &options, None, |_, _| {}).unwrap_err();
        let named = setting.split(['.', '=']).next().unwrap();
        assert!(e.to_string().contains(named), "{setting}: {e}");
        assert_eq!(
            std::fs::read(dir.manifest()).unwrap(),
            manifest,
            "{setting}"
        );
    }
}

/// Rewrites the run's manifest as version 3 wrote it: no configuration checksum and no
/// amendments.
fn as_version_3(dir: &RunDir) {
    let m = Manifest::read(dir).unwrap();
    let mut state = serde_json::to_value(&m.state).unwrap();
    let fields = state.as_object_mut().unwrap();
    fields.remove("config_crc32");
    fields.remove("amendments");
    fields.insert("version".into(), 3.into());
    kvarn_storage::write_jsonl(&dir.manifest(), &state, &m.history).unwrap();
}

#[test]
fn a_version_3_manifest_is_read_and_its_configuration_recorded_on_resume() {
    let (_tmp, dir) = started(1);
    run(&dir, &gens(1), None, |_, _| {}).unwrap();
    as_version_3(&dir);
    let old = Manifest::read(&dir).unwrap();
    assert_eq!(old.state.config_crc32, None);
    let m = run(&dir, &gens(2), None, |_, _| {}).unwrap();
    let text = std::fs::read(dir.config()).unwrap();
    assert_eq!(m.state.config_crc32, Some(crc32fast::hash(&text)));
    assert_eq!(
        Manifest::read(&dir).unwrap().state.config_crc32,
        m.state.config_crc32
    );
}

#[test]
fn settings_given_to_a_run_that_has_its_generations_are_not_recorded() {
    let (_tmp, dir) = started(1);
    run(&dir, &gens(2), None, |_, _| {}).unwrap();
    let manifest = std::fs::read(dir.manifest()).unwrap();
    for target in [1, 2] {
        let options = RunOptions {
            settings: vec!["train.learning_rate=0.0005".into()],
            ..gens(target)
        };
        let m = run(&dir, &options, None, |_, _| {}).unwrap();
        assert_eq!(m.generations_done(), 2);
        assert!(m.state.amendments.is_empty());
        assert_eq!(std::fs::read(dir.manifest()).unwrap(), manifest);
        let summary = std::fs::read_to_string(dir.summary_markdown()).unwrap();
        assert!(
            summary.contains(&format!("generations: 2 of {target}")),
            "{summary}"
        );
    }
    // A bad setting is still refused by name, with nothing to run or not.
    let bad = RunOptions {
        settings: vec!["network.hidden=32".into()],
        ..gens(2)
    };
    assert!(run(&dir, &bad, None, |_, _| {}).is_err());
}

#[test]
fn a_version_3_manifest_gets_its_checksum_even_with_nothing_to_run() {
    let (_tmp, dir) = started(1);
    run(&dir, &gens(1), None, |_, _| {}).unwrap();
    as_version_3(&dir);
    std::fs::remove_file(dir.summary_markdown()).unwrap();
    let m = run(&dir, &gens(1), None, |_, _| {}).unwrap();
    let text = std::fs::read(dir.config()).unwrap();
    assert_eq!(m.state.config_crc32, Some(crc32fast::hash(&text)));
    assert_eq!(
        Manifest::read(&dir).unwrap().state.config_crc32,
        m.state.config_crc32
    );
    assert!(dir.summary_markdown().exists(), "the report is rewritten");
}

#[test]
fn the_committed_nine_run_holds_what_a_resume_needs() {
    // A fresh clone resumes runs/nine (`kvarn train --resume runs/nine --inexact`): its
    // manifest, configuration, checkpoint and the model that plays the next self-play.
    let dir = RunDir::new(paths::workspace().join("runs/nine"));
    let manifest = Manifest::read(&dir).unwrap();
    assert!(dir.config().is_file() && dir.checkpoint().is_file());
    // Its databases are found in the clone's own tree, wherever the clone lies.
    assert_eq!(
        manifest.working_dir(&dir).canonicalize().unwrap(),
        paths::workspace().canonicalize().unwrap()
    );
    let selfplay = dir.model(manifest.selfplay_model());
    let device = kvarn_model::DeviceChoice::Cpu.device().unwrap();
    let (network, header) = kvarn_model::file::load(&selfplay, &device)
        .unwrap_or_else(|e| panic!("{}: {e}", selfplay.display()));
    assert_eq!(
        header.provenance.generation,
        Some(manifest.generations_done())
    );
    assert_eq!(network.rules().variant(), kvarn_game::Variant::Nine);
}

#[test]
fn the_starting_folder_is_recorded_relative_to_a_run_folder_inside_it() {
    use kvarn_train::manifest::relative_working_dir;
    use std::path::{Path, PathBuf};
    let rel = |w: &str, r: &str| relative_working_dir(Path::new(w), Path::new(r));
    assert_eq!(rel("/a/b", "/a/b/runs/x"), Some(PathBuf::from("../..")));
    assert_eq!(rel("/a/b", "/a/b/x"), Some(PathBuf::from("..")));
    assert_eq!(rel("/a/b", "/a/b"), Some(PathBuf::from(".")));
    assert_eq!(rel("/a/b", "/a/c/runs/x"), None, "a run folder elsewhere");
    assert_eq!(rel("/a/b", "/a/b/../c"), None, "a path that climbs");
}

#[test]
fn a_run_started_before_relative_records_finds_its_tree_after_the_tree_moves() {
    // A run of a tree (its databases named relative to the tree's root) recorded the
    // root as an absolute path; its next resume records it relative to the run folder,
    // so that a copy of the tree elsewhere, a clone on another machine, reads its own.
    let tmp = tempfile::tempdir().unwrap();
    let tree = tmp.path().join("tree");
    let dir = RunDir::new(tree.join("runs/r"));
    begin(&config(1), &dir).unwrap();
    run(&dir, &gens(1), None, |_, _| {}).unwrap();
    let mut m = Manifest::read(&dir).unwrap();
    m.state.working_dir = tree.clone();
    m.write(&dir).unwrap();

    run(&dir, &gens(1), None, |_, _| {}).unwrap();
    let m = Manifest::read(&dir).unwrap();
    assert_eq!(m.state.working_dir, std::path::PathBuf::from("../.."));

    let moved = tmp.path().join("moved");
    std::fs::rename(&tree, &moved).unwrap();
    let dir = RunDir::new(moved.join("runs/r"));
    let found = Manifest::read(&dir).unwrap().working_dir(&dir);
    assert_eq!(found.canonicalize().unwrap(), moved.canonicalize().unwrap());
    run(&dir, &gens(2), None, |_, _| {}).unwrap();
}

#[test]
fn a_run_stopped_on_its_way_to_the_generations_asked_for_goes_on_to_them() {
    // Started for 3 generations over a configuration that says 1, stopped after 2 (the
    // callback's panic stands for a kill after the manifest is written), then resumed
    // without --generations: it goes on to 3, as asked when it started.
    let (_tmp, dir) = started(1);
    let stopped = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        run(&dir, &gens(3), None, |_, r| {
            assert!(r.generation < 2, "stopped");
        })
    }));
    assert!(stopped.is_err());
    let m = Manifest::read(&dir).unwrap();
    assert_eq!(
        (m.generations_done(), m.state.generations_target),
        (2, Some(3))
    );
    let m = run(&dir, &RunOptions::default(), None, |_, _| {}).unwrap();
    assert_eq!(m.generations_done(), 3);
}

/// The one-generation configuration with a network twice as wide.
fn wider_config() -> RunConfig {
    RunConfig {
        network: NetConfig::Mlp {
            hidden: 32,
            blocks: 1,
            ownership_head: false,
        },
        ..config(1)
    }
}

/// A run of `cfg` in a folder of its own, `generations` generations done.
fn run_of(cfg: &RunConfig, generations: u32) -> (tempfile::TempDir, RunDir) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = RunDir::new(tmp.path().join("run"));
    begin(cfg, &dir).unwrap();
    run(&dir, &gens(generations), None, |_, _| {}).unwrap();
    (tmp, dir)
}

fn refused_file(e: &RunError) -> String {
    match e {
        RunError::Foreign { path, .. } => path.file_name().unwrap().to_string_lossy().into(),
        other => panic!("not a foreign file: {other}"),
    }
}

#[test]
fn a_checkpoint_of_another_run_or_an_older_one_is_refused_by_name() {
    let (_a, ours) = run_of(&config(1), 1);
    let wider = wider_config();
    let five = RunConfig {
        rules: Rules::new(Variant::Five),
        ..config(1)
    };
    let own = std::fs::read(ours.checkpoint()).unwrap();
    // Another run's checkpoint: wider, of other rules, or of the same configuration.
    for other in [wider, five, config(1)] {
        let (_b, theirs) = run_of(&other, 1);
        std::fs::copy(theirs.checkpoint(), ours.checkpoint()).unwrap();
        let e = run(&ours, &gens(2), None, |_, _| {}).unwrap_err();
        assert_eq!(refused_file(&e), "checkpoint.kvckpt", "{e}");
        assert!(e.to_string().contains("written by run"), "{e}");
    }
    // The run's own checkpoint, but older than the generations done.
    std::fs::write(ours.checkpoint(), &own).unwrap();
    run(&ours, &gens(2), None, |_, _| {}).unwrap();
    std::fs::write(ours.checkpoint(), &own).unwrap();
    let e = run(&ours, &gens(3), None, |_, _| {}).unwrap_err();
    assert_eq!(refused_file(&e), "checkpoint.kvckpt", "{e}");
    assert!(e.to_string().contains("at optimiser step 4"), "{e}");
    // Left out when asked, and recorded: training goes on from the last model.
    let inexact = RunOptions {
        allow_inexact: true,
        ..gens(3)
    };
    let m = run(&ours, &inexact, None, |_, _| {}).unwrap();
    assert_eq!(m.history[2].step, 12, "training goes on at the right step");
    assert_eq!(m.state.inexact_resumes.len(), 1);
}

#[test]
fn a_replaced_model_is_refused_before_it_plays() {
    let (_a, ours) = run_of(&config(1), 1);
    let m = Manifest::read(&ours).unwrap();
    let champion = ours.model(m.selfplay_model());
    assert_eq!(m.state.models.len(), 2, "generations 0 and 1 recorded");
    let wider = wider_config();
    // A model of another size, and one of the same size from another run.
    for other in [
        wider,
        RunConfig {
            seed: 10,
            ..config(1)
        },
    ] {
        let (_b, theirs) = run_of(&other, 1);
        std::fs::copy(theirs.model(1), &champion).unwrap();
        let e = run(&ours, &gens(2), None, |_, _| {}).unwrap_err();
        assert_eq!(
            refused_file(&e),
            champion.file_name().unwrap().to_string_lossy(),
            "{e}"
        );
        assert!(e.to_string().contains("was replaced"), "{e}");
    }
}

#[test]
fn a_stray_or_repeated_shard_is_refused_by_name() {
    let (_a, ours) = run_of(&config(1), 1);
    let shards = ours.shard_files(1).unwrap();
    // A copy of one of the generation's shards: its games twice.
    let copy = ours.shards(1).join("selfplay-copy.kvsp");
    std::fs::copy(&shards[0], &copy).unwrap();
    let e = run(&ours, &gens(2), None, |_, _| {}).unwrap_err();
    assert!(e.to_string().contains("again"), "{e}");
    std::fs::remove_file(&copy).unwrap();
    // The shards of a run of another seed in place of the generation's own.
    let (_b, theirs) = run_of(
        &RunConfig {
            seed: 10,
            ..config(1)
        },
        1,
    );
    for s in &shards {
        std::fs::remove_file(s).unwrap();
    }
    for s in theirs.shard_files(1).unwrap() {
        std::fs::copy(&s, ours.shards(1).join(s.file_name().unwrap())).unwrap();
    }
    let e = run(&ours, &gens(2), None, |_, _| {}).unwrap_err();
    assert!(
        e.to_string().contains("of seed") && e.to_string().contains("generation 1 plays seed"),
        "{e}"
    );
}
