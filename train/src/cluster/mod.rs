//! Self-play on a Ray cluster (`[selfplay] backend = "ray"`): the generation's missing
//! games are split into tasks of `selfplay.ray.games_per_task` indices, and the Python
//! driver embedded here (`ray_driver.py`, see its notes on what reaches the workers and
//! how faults are handled) runs each as `kvarn selfplay --indices ...` on a worker and
//! writes the shards it returns into the run folder. Game `i` is seeded by the
//! generation's seed and `i` alone, so the games are those a local generation plays.

use std::collections::BTreeSet;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use indicatif::ProgressBar;
use kvarn_arena::elo::Tally;
use kvarn_selfplay::SelfPlayStats;
use serde::Deserialize;

use crate::error::RunError;
use crate::run_config::RunConfig;
use crate::run_dir::RunDir;

/// The driver, written into the run folder for each generation played on the cluster.
const DRIVER: &str = include_str!("ray_driver.py");

/// What one generation's tasks did, beside the self-play figures.
#[derive(Debug, Clone, Default)]
pub struct ClusterFigures {
    /// Tasks run.
    pub tasks: usize,
    /// Ray nodes that played them.
    pub nodes: BTreeSet<String>,
}

/// One finished task, as the driver reports it.
#[derive(Debug, Deserialize)]
struct TaskLine {
    task: usize,
    node: String,
    host: String,
    /// Seconds `kvarn selfplay` spent on the games.
    seconds: f64,
    /// Seconds the task took on its worker, fetching and solving included.
    task_seconds: f64,
    games: u64,
    positions: u64,
    plies: u64,
    results: [u64; 3],
    adjudicated: u64,
    played_out: u64,
    /// Absent from tasks of builds before random starts.
    #[serde(default)]
    random_starts: u64,
    /// Absent from tasks of builds before deep sides.
    #[serde(default)]
    deep_side_results: Tally,
}

/// What the cluster needs for one generation.
pub struct ClusterJob<'a> {
    /// The run's configuration.
    pub config: &'a RunConfig,
    /// The run folder.
    pub dir: &'a RunDir,
    /// The generation.
    pub generation: u32,
    /// The self-play model's file.
    pub model: &'a Path,
    /// The generation's self-play seed.
    pub seed: u64,
    /// Game indices still to play.
    pub pending: Vec<u64>,
}

/// `indices` as ranges: `0-31,40,64-95`.
pub fn ranges(indices: &[u64]) -> String {
    let mut parts = Vec::new();
    let mut i = 0;
    while i < indices.len() {
        let mut j = i;
        while j + 1 < indices.len() && indices[j + 1] == indices[j] + 1 {
            j += 1;
        }
        parts.push(if i == j {
            indices[i].to_string()
        } else {
            format!("{}-{}", indices[i], indices[j])
        });
        i = j + 1;
    }
    parts.join(",")
}

/// The `kvarn solve` arguments of the databases self-play probes, and a key naming them.
fn solve_args(config: &RunConfig) -> Option<(Vec<String>, String)> {
    if !config.selfplay.endgame.in_games() {
        return None;
    }
    let r = &config.rules;
    let on = |b: bool| if b { "on" } else { "off" }.to_string();
    let limit = r.no_capture_limit().map_or("off".into(), |n| n.to_string());
    let max_men = config.solver.max_men.to_string();
    let args = vec![
        "solve".into(),
        "--variant".into(),
        r.variant().key().into(),
        "--flying".into(),
        on(r.flying()),
        "--repetition".into(),
        on(r.repetition()),
        "--no-capture-limit".into(),
        limit.clone(),
        "--max-men".into(),
        max_men.clone(),
    ];
    let key = format!(
        "{}-fly{}-rep{}-ncl{limit}-men{max_men}",
        r.variant().key(),
        on(r.flying()),
        on(r.repetition())
    );
    Some((args, key))
}

/// The driver's task file for `job`.
fn task_file(job: &ClusterJob<'_>) -> Result<serde_json::Value, RunError> {
    let ray = &job.config.selfplay.ray;
    let binary = std::env::current_exe().map_err(|e| RunError::io(Path::new("kvarn"), e))?;
    let tasks: Vec<serde_json::Value> = job
        .pending
        .chunks(ray.games_per_task as usize)
        .enumerate()
        .map(|(id, chunk)| serde_json::json!({ "id": id, "indices": ranges(chunk) }))
        .collect();
    let (solve, solve_key) = solve_args(job.config).unzip();
    Ok(serde_json::json!({
        "address": ray.address,
        "binary": binary,
        "config": job.dir.config(),
        "model": job.model,
        "model_name": job.model.display().to_string(),
        "seed": job.seed,
        "out": job.dir.shards(job.generation),
        "threads": ray.threads_per_task,
        "max_retries": ray.max_retries,
        "solve": solve,
        "solve_key": solve_key,
        "tasks": tasks,
    }))
}

/// Plays `job`'s games on the cluster: their shards land in the generation's folder.
///
/// # Errors
/// The driver cannot start, a task fails every try, or a game is missing afterwards.
pub fn play(
    job: &ClusterJob<'_>,
    progress: Option<&ProgressBar>,
) -> Result<(SelfPlayStats, ClusterFigures), RunError> {
    let mut stats = SelfPlayStats::default();
    let mut figures = ClusterFigures::default();
    if job.pending.is_empty() {
        return Ok((stats, figures));
    }
    let folder = job.dir.cluster();
    std::fs::create_dir_all(&folder).map_err(|e| RunError::io(&folder, e))?;
    let driver = folder.join("ray_driver.py");
    kvarn_storage::write_atomically(&driver, DRIVER.as_bytes())
        .map_err(|e| RunError::io(&driver, e))?;
    let spec = folder.join(format!("gen-{:04}.json", job.generation));
    let text = task_file(job)?.to_string();
    kvarn_storage::write_atomically(&spec, text.as_bytes()).map_err(|e| RunError::io(&spec, e))?;
    let began = Instant::now();
    let python = &job.config.selfplay.ray.python;
    let mut child = Command::new(python)
        .arg(&driver)
        .arg(&spec)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| {
            RunError::Cluster(format!("cannot run the Ray driver with `{python}`: {e}"))
        })?;
    let mut stderr = child.stderr.take().expect("piped");
    let errors = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stderr.read_to_string(&mut text);
        text
    });
    let stdout = child.stdout.take().expect("piped");
    for line in BufReader::new(stdout).lines() {
        let line = line.map_err(|e| RunError::Cluster(format!("reading the driver: {e}")))?;
        let Ok(task) = serde_json::from_str::<TaskLine>(&line) else {
            tracing::warn!("the Ray driver said: {line}");
            continue;
        };
        tracing::info!(
            task = task.task,
            games = task.games,
            host = %task.host,
            played_s = format!("{:.2}", task.seconds),
            task_s = format!("{:.2}", task.task_seconds),
            "Ray task done"
        );
        add(&mut stats, &task);
        figures.tasks += 1;
        figures.nodes.insert(task.node);
        if let Some(p) = progress {
            p.inc(task.games);
        }
    }
    let status = child
        .wait()
        .map_err(|e| RunError::Cluster(format!("waiting for the driver: {e}")))?;
    let errors = errors.join().unwrap_or_default();
    if !status.success() {
        let lines: Vec<&str> = errors.lines().collect();
        let tail = lines[lines.len().saturating_sub(20)..].join("\n");
        return Err(RunError::Cluster(format!(
            "the Ray driver failed ({status}); the shards written stay, and --resume plays the rest:\n{tail}"
        )));
    }
    stats.elapsed = began.elapsed().max(Duration::from_millis(1));
    Ok((stats, figures))
}

fn add(stats: &mut SelfPlayStats, task: &TaskLine) {
    stats.games += task.games;
    stats.positions += task.positions;
    stats.plies += task.plies;
    for (s, r) in stats.results.iter_mut().zip(task.results) {
        *s += r;
    }
    stats.adjudicated += task.adjudicated;
    stats.played_out += task.played_out;
    stats.random_starts += task.random_starts;
    stats.deep_side_results += task.deep_side_results;
}

#[cfg(test)]
mod tests {
    use super::ranges;

    #[test]
    fn indices_become_ranges() {
        assert_eq!(ranges(&[0, 1, 2, 3, 7, 9, 10]), "0-3,7,9-10");
        assert_eq!(ranges(&[5]), "5");
        assert_eq!(ranges(&[]), "");
    }
}
