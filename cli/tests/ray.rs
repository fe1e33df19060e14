//! Self-play on a real local Ray cluster (a head and a second node process on
//! 127.0.0.1): a generation played there holds the same games as one played here with the
//! same seed, and one whose task worker is killed still ends with every game exactly once.
//!
//! Needs a Python with `ray` (`KVARN_PYTHON`, default `python3`; `scripts/test.sh` puts one
//! in `.venv`). The tests start and stop their own cluster (`ray stop --force` at the end
//! stops every Ray process of this machine's user), one at a time.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use kvarn_selfplay::read_shard;
use kvarn_train::RunDir;

/// One cluster at a time on this machine.
static CLUSTER: Mutex<()> = Mutex::new(());

fn python() -> String {
    std::env::var("KVARN_PYTHON").unwrap_or_else(|_| "python3".into())
}

/// The `ray` command beside the Python that has the package.
fn ray_cli() -> PathBuf {
    let py = PathBuf::from(python());
    match py.parent() {
        Some(dir) if dir.join("ray").exists() => dir.join("ray"),
        _ => PathBuf::from("ray"),
    }
}

/// A local cluster: a head and one more node, one CPU each, stopped when dropped.
struct Cluster {
    address: String,
}

impl Cluster {
    fn start(port: u16) -> Cluster {
        let ok = Command::new(python())
            .args(["-c", "import ray"])
            .status()
            .is_ok_and(|s| s.success());
        assert!(
            ok,
            "this test needs Python with ray: run scripts/test.sh, or set KVARN_PYTHON to a \
             python that has it (pip install ray)"
        );
        let _ = Command::new(ray_cli()).args(["stop", "--force"]).output();
        let address = format!("127.0.0.1:{port}");
        let common = ["--num-cpus=1", "--disable-usage-stats"];
        let head = Command::new(ray_cli())
            .args([
                "start",
                "--head",
                &format!("--port={port}"),
                "--include-dashboard=false",
            ])
            .args(common)
            .output()
            .unwrap();
        assert!(
            head.status.success(),
            "ray start --head: {}",
            String::from_utf8_lossy(&head.stderr)
        );
        let node = Command::new(ray_cli())
            .args(["start", &format!("--address={address}")])
            .args(common)
            .output()
            .unwrap();
        assert!(
            node.status.success(),
            "ray start (second node): {}",
            String::from_utf8_lossy(&node.stderr)
        );
        Cluster { address }
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let _ = Command::new(ray_cli()).args(["stop", "--force"]).output();
    }
}

/// A small Six run of one generation: `games` games, on `backend`.
fn config(games: u64, simulations: u32, backend: &str, address: &str) -> String {
    format!(
        r#"
seed = 11
[rules]
variant = "six"
[network]
kind = "mlp"
hidden = 16
blocks = 1
[search]
simulations = {simulations}
[selfplay]
threads = 1
games_per_thread = 4
games_per_shard = 4
max_plies = 80
backend = "{backend}"
[selfplay.ray]
address = "{address}"
games_per_task = 4
max_retries = 4
python = "{python}"
[train]
batch_size = 16
steps_per_generation = 2
[loop]
generations = 1
games_per_generation = {games}
checkpoint_every = 2
games_vs_previous = 0
games_vs_random = 0
baseline_depths = []
eval_simulations = 4
"#,
        python = python()
    )
}

/// Starts `kvarn train` on `config` into `dir/run`.
fn train(dir: &Path, config: &str) -> std::process::Child {
    std::fs::write(dir.join("config.toml"), config).unwrap();
    Command::new(env!("CARGO_BIN_EXE_kvarn"))
        .current_dir(dir)
        .args(["train", "--config", "config.toml", "--out", "run"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap()
}

fn finish(child: std::process::Child) {
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "kvarn train: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The games of generation 1, by index: result, plies and every sample's targets.
fn games(run: &Path) -> BTreeMap<u64, String> {
    let dir = RunDir::new(run);
    let mut out = BTreeMap::new();
    let mut listed = 0;
    for p in dir.shard_files(1).unwrap() {
        let (header, samples) = read_shard(&p).unwrap();
        let mut at = 0usize;
        for g in &header.game_list {
            let n = g.samples as usize;
            let text = format!("{} {} {:?}", g.result, g.plies, &samples[at..at + n]);
            out.insert(g.index, text);
            at += n;
            listed += 1;
        }
    }
    assert_eq!(listed, out.len(), "a game is there twice");
    out
}

#[test]
fn a_generation_on_a_local_ray_cluster_plays_the_same_games_as_here() {
    let _one = CLUSTER.lock().unwrap_or_else(|p| p.into_inner());
    let cluster = Cluster::start(6391);
    let tmp = tempfile::tempdir().unwrap();
    let (here, there) = (tmp.path().join("here"), tmp.path().join("there"));
    std::fs::create_dir_all(&here).unwrap();
    std::fs::create_dir_all(&there).unwrap();
    finish(train(&here, &config(16, 8, "local", "auto")));
    finish(train(&there, &config(16, 8, "ray", &cluster.address)));
    let (a, b) = (games(&here.join("run")), games(&there.join("run")));
    assert_eq!(a.len(), 16);
    assert_eq!(a, b);
    let summary = std::fs::read_to_string(there.join("run/summary.md")).unwrap();
    assert!(
        summary.contains("self-play: Ray cluster at 127.0.0.1:6391"),
        "{summary}"
    );
}

#[test]
fn a_generation_whose_worker_is_killed_still_has_every_game_once() {
    let _one = CLUSTER.lock().unwrap_or_else(|p| p.into_inner());
    let cluster = Cluster::start(6392);
    let tmp = tempfile::tempdir().unwrap();
    let child = train(tmp.path(), &config(48, 48, "ray", &cluster.address));
    // Kill the first worker process seen running a task (its title is `ray::play`).
    let began = Instant::now();
    let mut killed = false;
    while !killed && began.elapsed() < Duration::from_secs(120) {
        let found = Command::new("pgrep")
            .args(["-f", "ray::play"])
            .output()
            .unwrap();
        let pids = String::from_utf8_lossy(&found.stdout).to_string();
        if let Some(pid) = pids.split_whitespace().next() {
            killed = Command::new("kill")
                .args(["-9", pid])
                .status()
                .unwrap()
                .success();
        } else {
            std::thread::sleep(Duration::from_millis(50));
        }
    }
    assert!(killed, "no task worker was seen to kill");
    finish(child);
    let played = games(&tmp.path().join("run"));
    assert_eq!(
        played.keys().copied().collect::<Vec<_>>(),
        (0..48).collect::<Vec<_>>()
    );
}
