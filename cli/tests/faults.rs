//! Fault injection: `kvarn train` killed (SIGKILL) at random points — while solving the
//! databases, in self-play, training, evaluation or a manifest write — and resumed each
//! time ends with the same models and figures as a run that was never stopped. Between
//! kills, files that are not the run's are put where it reads them (another run's
//! checkpoint, an older checkpoint of its own, another generation's model, a copy of one
//! of its shards): each resume then is refused naming the file, and once the file is
//! put back the run goes on as if nothing had happened.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use kvarn_train::metric::{Metric, metrics_of};
use kvarn_train::{Manifest, RunConfig, RunDir};
use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg;

const GENERATIONS: u32 = 6;
const KILLS: usize = 30;

fn config(db: &Path) -> String {
    format!(
        r#"
seed = 4
[rules]
variant = "five"
[network]
kind = "mlp"
hidden = 16
blocks = 1
[search]
simulations = 32
[selfplay]
threads = 2
games_per_thread = 3
games_per_shard = 2
max_plies = 60
[train]
batch_size = 16
steps_per_generation = 40
[loop]
generations = {GENERATIONS}
games_per_generation = 12
checkpoint_every = 3
games_vs_previous = 2
games_vs_random = 2
baseline_depths = [1]
games_vs_baseline = 2
player = {{ simulations = 8 }}
[solver]
db = {:?}
build_if_missing = true
positions = 12
games_vs_perfect = 2
"#,
        db.display().to_string()
    )
}

/// `kvarn train` on `run`: a new run from `cfg` while the folder holds none, else a resume.
fn train(cfg: &Path, run: &Path) -> Child {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_kvarn"));
    if RunDir::new(run).holds_run() {
        cmd.args(["train", "--resume"]).arg(run);
    } else {
        cmd.args(["train", "--config"])
            .arg(cfg)
            .arg("--out")
            .arg(run);
    }
    cmd.stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("kvarn starts")
}

fn finish(child: Child) {
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Kills the run `KILLS` times (more while a way of tampering is untried) at random
/// moments, each `startup` plus up to a tenth of `span` after it (re)started, resuming
/// each time, then lets it finish; returns where each kill found the run. A kill that
/// finds the run where the last one did widens the next window by a quarter, so that a stage whose resume costs more than the window
/// (loading the databases before an evaluation, on a busy machine) cannot hold the run in
/// one place; one that finds it moved on narrows the next by a fifth (to a quarter at
/// least), so that a span measured in a slow moment does not let the run end in a few
/// kills; one that finds a generation done within three kills of the last halves it (to
/// a tenth at least), so that a load ending during the run does not either.
fn killed_run(
    cfg: &Path,
    run: &Path,
    startup: Duration,
    span: Duration,
    tampering: &mut Tampering,
) -> Vec<String> {
    let mut rng = Pcg64Mcg::seed_from_u64(17);
    let mut kills: Vec<String> = Vec::new();
    let mut stretch = 1.0;
    let (mut last_done, mut last_gen_kill) = (0, 0);
    // Past `KILLS` only while some way of tampering is still untried (a slow machine can
    // spend the kills in the first generations, before a stale checkpoint exists).
    while kills.len() < KILLS || (!tampering.all_tried() && kills.len() < 3 * KILLS) {
        // Every other resume, and every one until each way has been tried once.
        if kills.len() % 2 == 1 || !tampering.all_tried() {
            tampering.try_next(cfg, run);
        }
        let mut child = train(cfg, run);
        let wait = startup + span.mul_f64(rng.random_range(0.0..0.1) * stretch);
        let began = Instant::now();
        while began.elapsed() < wait && child.try_wait().unwrap().is_none() {
            std::thread::sleep(Duration::from_millis(5));
        }
        if child.try_wait().unwrap().is_some() {
            finish(child);
            if Manifest::read(&RunDir::new(run))
                .unwrap()
                .generations_done()
                == GENERATIONS
            {
                break;
            }
            continue;
        }
        child.kill().unwrap();
        child.wait().unwrap();
        let (done, now) = state(run);
        stretch = if kills.last() == Some(&now) {
            stretch * 1.25
        } else if done > last_done && kills.len() < last_gen_kill + 3 {
            // A generation in fewer than three kills: the machine is faster now than when
            // `span` was measured (a load that has ended), so narrow at once.
            (stretch * 0.5).max(0.1)
        } else {
            (stretch * 0.8).max(0.25)
        };
        if done > last_done {
            (last_done, last_gen_kill) = (done, kills.len());
        }
        kills.push(now);
    }
    finish(train(cfg, run));
    kills
}

/// The ways a file that is not the run's gets into its folder.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Tamper {
    /// The checkpoint of another run of the same configuration.
    ForeignCheckpoint,
    /// The run's own checkpoint from two or more generations ago.
    StaleCheckpoint,
    /// The self-play model replaced by another generation's.
    SwappedModel,
    /// A copy of one of the replay window's shards, so its games twice.
    RepeatedShard,
}

const TAMPERS: [Tamper; 4] = [
    Tamper::ForeignCheckpoint,
    Tamper::StaleCheckpoint,
    Tamper::SwappedModel,
    Tamper::RepeatedShard,
];

/// Tampering with the killed run between kills, each way in turn.
struct Tampering {
    /// A finished run of the same configuration (another run: its own identity).
    other: PathBuf,
    /// The killed run's checkpoint as first seen after a generation, with the generations
    /// done then.
    snapshot: Option<(u32, Vec<u8>)>,
    /// Each refusal seen: the way, and the file the resume named.
    refused: Vec<(Tamper, String)>,
    next: usize,
}

impl Tampering {
    /// Whether every way has been tried and refused.
    fn all_tried(&self) -> bool {
        TAMPERS
            .iter()
            .all(|kind| self.refused.iter().any(|(k, _)| k == kind))
    }

    /// Puts the next way's file in place where it applies now, checks that a resume
    /// refuses it by name, and puts the run's own file back.
    fn try_next(&mut self, cfg: &Path, run: &Path) {
        let dir = RunDir::new(run);
        let Ok(m) = Manifest::read(&dir) else {
            return;
        };
        let done = m.generations_done();
        if done == GENERATIONS {
            return; // a resume has nothing to do, so nothing to refuse
        }
        if self.snapshot.is_none() && done >= 1 && dir.checkpoint().exists() {
            self.snapshot = Some((done, std::fs::read(dir.checkpoint()).unwrap()));
        }
        let kind = TAMPERS[self.next % TAMPERS.len()];
        let Some((target, foreign)) = self.file_for(kind, &dir, &m) else {
            return;
        };
        self.next += 1;
        let original = std::fs::read(&target).ok();
        std::fs::write(&target, foreign).unwrap();
        let out = train(cfg, run).wait_with_output().unwrap();
        match original {
            Some(bytes) => std::fs::write(&target, bytes).unwrap(),
            None => std::fs::remove_file(&target).unwrap(),
        }
        let stderr = String::from_utf8_lossy(&out.stderr);
        let name = target.file_name().unwrap().to_string_lossy().to_string();
        assert!(
            !out.status.success() && stderr.contains(&name),
            "{kind:?}: {} was not refused by name: {stderr}",
            target.display()
        );
        self.refused.push((kind, name));
    }

    /// Where `kind` puts which bytes now, if it applies.
    fn file_for(&self, kind: Tamper, dir: &RunDir, m: &Manifest) -> Option<(PathBuf, Vec<u8>)> {
        let other = RunDir::new(&self.other);
        let done = m.generations_done();
        match kind {
            Tamper::ForeignCheckpoint => dir
                .checkpoint()
                .exists()
                .then(|| (dir.checkpoint(), std::fs::read(other.checkpoint()).unwrap())),
            Tamper::StaleCheckpoint => {
                let (then, bytes) = self.snapshot.as_ref()?;
                (done >= then + 2).then(|| (dir.checkpoint(), bytes.clone()))
            }
            Tamper::SwappedModel => {
                let champion = m.selfplay_model();
                let another = if champion == 0 { 1 } else { champion - 1 };
                Some((
                    dir.model(champion),
                    std::fs::read(other.model(another)).unwrap(),
                ))
            }
            Tamper::RepeatedShard => {
                let g = done + 1;
                let source = [g, done]
                    .into_iter()
                    .filter(|&h| h >= 1)
                    .find_map(|h| dir.shard_files(h).ok()?.first().cloned())?;
                let copy = source.with_file_name("selfplay-copy.kvsp");
                Some((copy, std::fs::read(&source).unwrap()))
            }
        }
    }
}

/// Where a run stands: generations done, and as text the shards of the next and the
/// files of its stages.
fn state(run: &Path) -> (u32, String) {
    let dir = RunDir::new(run);
    let Ok(m) = Manifest::read(&dir) else {
        return (0, "not started".into());
    };
    let g = m.generations_done() + 1;
    let shards = dir.shard_files(g).map_or(0, |f| f.len());
    let stage = if dir.model(g).exists() {
        "evaluation"
    } else if shards == 6 {
        "training"
    } else {
        "self-play"
    };
    (g - 1, format!("generation {g}: {stage} ({shards} shards)"))
}

/// Every figure but timings, by generation.
fn figures(config: &RunConfig, run: &Path) -> Vec<Vec<(String, Option<f64>)>> {
    let timings = [
        Metric::Seconds,
        Metric::SelfPlayPositionsPerSecond,
        Metric::TrainStepsPerSecond,
    ];
    let manifest = Manifest::read(&RunDir::new(run)).unwrap();
    assert!(manifest.state.inexact_resumes.is_empty());
    let metrics: Vec<Metric> = metrics_of(config)
        .into_iter()
        .filter(|m| !timings.contains(m))
        .collect();
    manifest
        .history
        .iter()
        .map(|r| metrics.iter().map(|m| (m.name(), m.value(r))).collect())
        .collect()
}

fn outputs(run: &Path) -> Vec<f32> {
    let device = kvarn_model::burn::tensor::Device::flex();
    let path = RunDir::new(run).model(GENERATIONS);
    let (net, _) = kvarn_model::file::load(&path, &device).unwrap();
    let x: Vec<f32> = (0..net.dims().input * 4)
        .map(|i| (i % 7) as f32 / 7.0)
        .collect();
    let out = net.evaluate(&x, None, 4);
    out.policy_logits.into_iter().chain(out.wdl).collect()
}

#[test]
fn a_run_killed_at_random_points_and_resumed_equals_an_uninterrupted_one() {
    let dir = tempfile::tempdir().unwrap();
    let (whole, killed) = (dir.path().join("whole"), dir.path().join("killed"));
    let (cfg_whole, cfg_killed) = (
        dir.path().join("whole.toml"),
        dir.path().join("killed.toml"),
    );
    let text = config(&dir.path().join("db"));
    std::fs::write(&cfg_whole, &text).unwrap();
    std::fs::write(&cfg_killed, &text).unwrap();
    finish(train(&cfg_whole, &whole)); // solves the databases both runs read
    std::fs::remove_dir_all(&whole).unwrap();
    let began = Instant::now();
    finish(train(&cfg_whole, &whole));
    let span = began.elapsed();
    // What a resume costs before it gets to work: one of a finished run, which does
    // nothing but start (about 10 ms), so the fastest of a few, lest one slow start on a
    // busy machine set waits that let the run end in a handful of kills.
    let startup = (0..5)
        .map(|_| {
            let began = Instant::now();
            finish(train(&cfg_whole, &whole));
            began.elapsed()
        })
        .min()
        .unwrap();
    let other = dir.path().join("other");
    finish(train(&cfg_whole, &other));
    let mut tampering = Tampering {
        other,
        snapshot: None,
        refused: Vec::new(),
        next: 0,
    };
    let kills = killed_run(&cfg_killed, &killed, startup, span, &mut tampering);
    eprintln!(
        "uninterrupted {:.2} s, startup {:.2} s; kills: {kills:#?}",
        span.as_secs_f64(),
        startup.as_secs_f64()
    );
    eprintln!("refused: {:#?}", tampering.refused);
    for kind in TAMPERS {
        assert!(
            tampering.refused.iter().any(|(k, _)| *k == kind),
            "{kind:?} never tried: {:?}",
            tampering.refused
        );
    }
    let states: std::collections::BTreeSet<&String> = kills.iter().collect();
    assert!(
        kills.len() >= 20,
        "only {} kills before the end",
        kills.len()
    );
    assert!(
        states.len() >= 8,
        "kills landed in only {} states",
        states.len()
    );
    let stages = ["self-play", "training", "evaluation"];
    let hit = stages
        .iter()
        .filter(|s| kills.iter().any(|k| k.contains(*s)));
    assert!(
        hit.count() >= 2,
        "kills landed in too few stages: {kills:?}"
    );
    let config = RunConfig::parse(&text, "faults").unwrap();
    assert_eq!(figures(&config, &whole), figures(&config, &killed));
    assert_eq!(outputs(&whole), outputs(&killed), "the same final model");
    let (a, b) = (RunDir::new(&whole), RunDir::new(&killed));
    for g in 1..=GENERATIONS {
        let games = |d: &RunDir| kvarn_train::binding::games_in_shards(d, &config, g).unwrap();
        assert_eq!(games(&a), games(&b), "generation {g}: every game once");
    }
}
