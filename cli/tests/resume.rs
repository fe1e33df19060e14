//! A run resumed from another folder reads its relative paths from the folder it started
//! in: the perfect player's databases are found, and no evaluation game is lost. A resume
//! with `--set` records the change; an edited config.toml is refused.

use kvarn_train::manifest::Opponent;
use kvarn_train::{Manifest, RunDir};

mod common;
use common::{kvarn, ok_in};

const CONFIG: &str = r#"
seed = 3
[rules]
variant = "five"
[network]
kind = "mlp"
hidden = 16
blocks = 1
[search]
simulations = 8
[selfplay]
threads = 1
games_per_thread = 4
games_per_shard = 4
max_plies = 60
[train]
batch_size = 16
steps_per_generation = 4
[loop]
generations = 1
games_per_generation = 4
checkpoint_every = 2
games_vs_previous = 0
games_vs_random = 0
baseline_depths = []
player = { simulations = 8 }
[solver]
db = "db"
build_if_missing = false
positions = 12
games_vs_perfect = 2
"#;

#[test]
fn a_run_resumed_from_another_folder_finds_its_relative_databases() {
    let tmp = tempfile::tempdir().unwrap();
    let (home, elsewhere) = (tmp.path().join("home"), tmp.path().join("elsewhere"));
    std::fs::create_dir_all(&home).unwrap();
    std::fs::create_dir_all(&elsewhere).unwrap();
    std::fs::write(home.join("run.toml"), CONFIG).unwrap();
    ok_in(&home, &["solve", "--variant", "five", "--out", "db"]);
    ok_in(&home, &["train", "--config", "run.toml", "--out", "run"]);
    let run = home.join("run");
    let run_arg = run.to_str().unwrap();
    ok_in(
        &elsewhere,
        &["train", "--resume", run_arg, "--generations", "2"],
    );
    let m = Manifest::read(&RunDir::new(&run)).unwrap();
    assert_eq!(m.generations_done(), 2);
    for r in &m.history {
        let perfect = &r.evaluation.matches[0];
        assert_eq!(perfect.opponent, Opponent::Perfect);
        assert!(perfect.failures.is_empty(), "{:?}", perfect.failures);
        assert_eq!(perfect.tally.games(), 2, "generation {}", r.generation);
    }
    let set = "train.learning_rate=0.0005";
    ok_in(
        &elsewhere,
        &[
            "train",
            "--resume",
            run_arg,
            "--generations",
            "3",
            "--set",
            set,
        ],
    );
    let m = Manifest::read(&RunDir::new(&run)).unwrap();
    assert_eq!(m.generations_done(), 3);
    assert_eq!(m.state.amendments.len(), 1);
    assert_eq!(m.state.amendments[0].generation, 3);
    assert_eq!(m.state.amendments[0].settings, [set]);
    let config = run.join("config.toml");
    let text = std::fs::read_to_string(&config).unwrap();
    std::fs::write(&config, text.replace("seed = 3", "seed = 4")).unwrap();
    let (ok, _, err) = kvarn(&["train", "--resume", run_arg, "--generations", "4"]);
    assert!(!ok);
    assert!(
        err.contains("config.toml was changed after the run started"),
        "{err}"
    );
}
