//! Self-play on a real local Ray cluster (a head and a second node process on
//! 127.0.0.1): a generation played there holds the same games as one played here with the
//! same seed, and one whose task worker is killed still ends with every game exactly once.
//!
//! Needs a Python with `ray` (`KVARN_PYTHON`, default `python3`; `scripts/test.sh` puts one
//! in `.venv`); skipped without it (`testing/outside.rs`). Each test's cluster is its own:
//! its own home folder (so that a token or settings in `~/.ray` from another use of Ray do
//! not reach it), its own temporary folder and free ports; when the test ends, passing or
//! failing, exactly the processes of that cluster are stopped (found by that home folder
//! or the temporary folder: see `Cluster::processes`), and any Ray of the user's own is
//! left alone.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use kvarn_selfplay::read_shard;
use kvarn_train::RunDir;

#[path = "../../testing/outside.rs"]
mod outside;

/// One cluster at a time on this machine: two would share its two cores.
static CLUSTER: Mutex<()> = Mutex::new(());

/// The `ray` command beside the Python that has the package.
fn ray_cli() -> PathBuf {
    let py = PathBuf::from(outside::python());
    match py.parent() {
        Some(dir) if dir.join("ray").exists() => dir.join("ray"),
        _ => PathBuf::from("ray"),
    }
}

/// A port that was free a moment ago.
fn free_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap().port()
}

/// A local cluster: a head and one more node, one CPU each, stopped when dropped.
struct Cluster {
    address: String,
    /// The cluster's home and temporary folders (a short path: Ray's sockets live in it).
    root: tempfile::TempDir,
}

impl Cluster {
    /// A cluster, or none where Ray is not installed (the test is then skipped).
    fn start() -> Option<Cluster> {
        if !outside::python_with("ray") {
            return None;
        }
        let root = tempfile::Builder::new()
            .prefix("kvray")
            .tempdir_in(std::env::temp_dir())
            .unwrap();
        std::fs::create_dir_all(root.path().join("home")).unwrap();
        let cluster = Cluster {
            address: format!("127.0.0.1:{}", free_port()),
            root,
        };
        let port = cluster.address.rsplit(':').next().unwrap().to_string();
        cluster.ray(&[
            "start",
            "--head",
            &format!("--port={port}"),
            "--include-dashboard=false",
        ]);
        cluster.ray(&["start", &format!("--address={}", cluster.address)]);
        Some(cluster)
    }

    /// The cluster's home folder, for every process that talks to it.
    fn home(&self) -> PathBuf {
        self.root.path().join("home")
    }

    /// Sets the cluster's home and clears Ray's variables from the caller's environment.
    fn environment<'a>(&self, command: &'a mut Command) -> &'a mut Command {
        for v in [
            "RAY_ADDRESS",
            "RAY_AUTH_MODE",
            "RAY_AUTH_TOKEN",
            "RAY_AUTH_TOKEN_PATH",
        ] {
            command.env_remove(v);
        }
        command.env("HOME", self.home())
    }

    /// Runs `ray ARGS` for one node of this cluster, asserting success.
    fn ray(&self, args: &[&str]) {
        let out = self
            .environment(&mut Command::new(ray_cli()))
            .args(args)
            .arg(format!(
                "--temp-dir={}",
                self.root.path().join("ray").display()
            ))
            .arg(format!("--dashboard-agent-listen-port={}", free_port()))
            .args(["--num-cpus=1", "--disable-usage-stats"])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "ray {}: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr)
        );
    }

    /// The processes of this cluster and of the programs that talked to it: each was
    /// started with the cluster's home in its environment, or names its temporary folder
    /// on its command line, or holds a file of it open (Ray's agents overwrite their
    /// command line and environment with their title, but keep their logs open there).
    fn processes(&self) -> Vec<String> {
        let mark = format!("HOME={}", self.home().display());
        let root = self.root.path().as_os_str().as_encoded_bytes().to_vec();
        let ours = |pid: &str| {
            let environ = std::fs::read(format!("/proc/{pid}/environ")).unwrap_or_default();
            let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
            environ.split(|&b| b == 0).any(|v| v == mark.as_bytes())
                || cmdline.windows(root.len()).any(|w| w == root)
                || std::fs::read_dir(format!("/proc/{pid}/fd")).is_ok_and(|fds| {
                    fds.filter_map(Result::ok).any(|fd| {
                        std::fs::read_link(fd.path())
                            .is_ok_and(|to| to.as_os_str().as_encoded_bytes().starts_with(&root))
                    })
                })
        };
        let Ok(entries) = std::fs::read_dir("/proc") else {
            return Vec::new();
        };
        let me = std::process::id().to_string();
        entries
            .filter_map(Result::ok)
            .map(|e| e.file_name().to_string_lossy().to_string())
            .filter(|pid| pid.bytes().all(|b| b.is_ascii_digit()) && *pid != me)
            .filter(|pid| ours(pid))
            .collect()
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        for _ in 0..50 {
            let pids = self.processes();
            if pids.is_empty() {
                return;
            }
            let _ = Command::new("kill").arg("-9").args(&pids).output();
            std::thread::sleep(Duration::from_millis(100));
        }
        let _ = std::io::Write::write_all(
            &mut std::io::stderr(),
            format!("Ray processes still running: {:?}\n", self.processes()).as_bytes(),
        );
    }
}

/// A child process killed if the test ends before it does (a failed assertion included).
struct Running(Option<std::process::Child>);

impl Drop for Running {
    fn drop(&mut self) {
        if let Some(child) = &mut self.0 {
            let _ = child.kill();
            let _ = child.wait();
        }
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
player = {{ simulations = 4 }}
"#,
        python = outside::python()
    )
}

/// Starts `kvarn train` on `config` into `dir/run`, in `cluster`'s environment.
fn train(cluster: &Cluster, dir: &Path, config: &str) -> Running {
    std::fs::write(dir.join("config.toml"), config).unwrap();
    let child = cluster
        .environment(&mut Command::new(env!("CARGO_BIN_EXE_kvarn")))
        .current_dir(dir)
        .args(["train", "--config", "config.toml", "--out", "run"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    Running(Some(child))
}

fn finish(mut running: Running) {
    let child = running.0.take().unwrap();
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
    let Some(cluster) = Cluster::start() else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let (here, there) = (tmp.path().join("here"), tmp.path().join("there"));
    std::fs::create_dir_all(&here).unwrap();
    std::fs::create_dir_all(&there).unwrap();
    finish(train(&cluster, &here, &config(16, 8, "local", "auto")));
    finish(train(
        &cluster,
        &there,
        &config(16, 8, "ray", &cluster.address),
    ));
    let (a, b) = (games(&here.join("run")), games(&there.join("run")));
    assert_eq!(a.len(), 16);
    assert_eq!(a, b);
    let summary = std::fs::read_to_string(there.join("run/summary.md")).unwrap();
    assert!(
        summary.contains(&format!("self-play: Ray cluster at {}", cluster.address)),
        "{summary}"
    );
}

#[test]
fn a_generation_whose_worker_is_killed_still_has_every_game_once() {
    let _one = CLUSTER.lock().unwrap_or_else(|p| p.into_inner());
    let Some(cluster) = Cluster::start() else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let child = train(
        &cluster,
        tmp.path(),
        &config(48, 48, "ray", &cluster.address),
    );
    // Kill the first worker process seen running a task (its title is `ray::play`).
    let began = Instant::now();
    let mut killed = false;
    while !killed && began.elapsed() < Duration::from_secs(120) {
        let found = Command::new("pgrep")
            .args(["-f", "ray::play"])
            .output()
            .unwrap();
        let pids = String::from_utf8_lossy(&found.stdout).to_string();
        let ours = cluster.processes();
        if let Some(pid) = pids
            .split_whitespace()
            .find(|p| ours.iter().any(|o| o == p))
        {
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

#[test]
fn a_task_no_node_can_place_fails_at_once_with_the_reason() {
    let _one = CLUSTER.lock().unwrap_or_else(|p| p.into_inner());
    let Some(cluster) = Cluster::start() else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let config = config(8, 8, "ray", &cluster.address)
        .replace("max_retries = 4", "max_retries = 4\nthreads_per_task = 64");
    let began = Instant::now();
    let mut running = train(&cluster, tmp.path(), &config);
    // A task Ray cannot place used to wait for ever: give it two minutes.
    while running.0.as_mut().unwrap().try_wait().unwrap().is_none() {
        assert!(
            began.elapsed() < Duration::from_secs(120),
            "kvarn train still waits for a task no node can place"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    let out = running.0.take().unwrap().wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{err}");
    assert!(err.contains("can place a task of 64 CPUs"), "{err}");
    assert!(err.contains("its largest node has 1"), "{err}");
}
