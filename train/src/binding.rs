//! What binds a file to its run and its place in it, checked before the file is used: the
//! run's identity and configuration checksum in the checkpoint, each model's checksum in
//! the manifest, each shard's seed and game numbers. A checkpoint copied from another run,
//! an older checkpoint of the same run, a model swapped for another, a stray shard of
//! another seed or a game there twice is refused by its path, rather than trained on.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use kvarn_model::burn::tensor::Device;
use kvarn_model::{Network, file};
use kvarn_selfplay::{SampleSource, read_shard};
use serde::{Deserialize, Serialize};

use crate::error::RunError;
use crate::manifest::Manifest;
use crate::run_config::RunConfig;
use crate::run_dir::RunDir;
use crate::stages::stream;

/// Who wrote a checkpoint: the run's identity and its configuration's checksum, as the
/// manifest records them.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunTag {
    /// The run's identity (`RunState::run_id`).
    pub run_id: Option<String>,
    /// CRC-32 of the run's `config.toml` (`RunState::config_crc32`).
    pub config_crc32: Option<u32>,
}

impl RunTag {
    /// The tag of the run `manifest` describes.
    pub fn of(manifest: &Manifest) -> RunTag {
        RunTag {
            run_id: manifest.state.run_id.clone(),
            config_crc32: manifest.state.config_crc32,
        }
    }
}

/// The SHA-256 of a file's bytes, in hexadecimal. (A CRC-32 would not do: the files end
/// with a CRC-32 of their own content, which makes every file's CRC-32 the same.)
///
/// # Errors
/// The file cannot be read.
pub fn file_sha256(path: &Path) -> Result<String, RunError> {
    use sha2::{Digest, Sha256};
    let bytes = std::fs::read(path).map_err(|e| RunError::io(path, e))?;
    Ok(format!("{:x}", Sha256::digest(&bytes)))
}

/// Records the fingerprint of generation `g`'s model, just written, in the manifest
/// (which the caller writes).
///
/// # Errors
/// The model cannot be read back.
pub fn record_model(dir: &RunDir, manifest: &mut Manifest, g: u32) -> Result<(), RunError> {
    let sha = file_sha256(&dir.model(g))?;
    manifest.state.models.insert(g, sha);
    Ok(())
}

/// Generation `g`'s model, refused when its checksum is not the one the manifest recorded
/// when the run wrote it, or (in runs that recorded none) when it is not a network of the
/// run's shape and rules.
///
/// # Errors
/// The model is unreadable, replaced, or of another shape or rules.
pub fn load_model(
    dir: &RunDir,
    manifest: &Manifest,
    config: &RunConfig,
    g: u32,
    device: &Device,
) -> Result<Network, RunError> {
    let path = dir.model(g);
    if let Some(recorded) = manifest.state.models.get(&g) {
        let found = file_sha256(&path)?;
        if found != *recorded {
            return Err(foreign(
                &path,
                format!(
                    "SHA-256 {}…, where the run recorded {}… when it wrote generation {g}'s \
                     model: the file was replaced",
                    &found[..12],
                    &recorded[..recorded.len().min(12)]
                ),
            ));
        }
    }
    let (network, _) = file::load(&path, device)?;
    check_network(&path, &network, config)?;
    Ok(network)
}

/// Refuses a network of other rules or another shape than the run's.
///
/// # Errors
/// The network does not fit the run.
pub fn check_network(path: &Path, network: &Network, config: &RunConfig) -> Result<(), RunError> {
    let (rules, net) = (network.rules(), network.config());
    if *rules == config.rules && *net == config.network {
        return Ok(());
    }
    Err(foreign(
        path,
        format!(
            "a network {} for {rules}, where the run trains {} for {}",
            net.describe(),
            config.network.describe(),
            config.rules
        ),
    ))
}

/// What a checkpoint says of itself, to be checked against the run.
#[derive(Debug, Clone, Copy)]
pub struct CheckpointFacts<'a> {
    /// Who wrote it.
    pub tag: &'a RunTag,
    /// The optimiser step it was written at.
    pub step: u64,
    /// Its network.
    pub network: &'a Network,
}

/// Why a checkpoint is not this run's next one: another run's (identity or configuration),
/// another shape or rules, or older than the generations the manifest records as done
/// (or newer than the next one).
///
/// # Errors
/// The reason, naming what differs.
pub fn check_checkpoint(
    path: &Path,
    facts: CheckpointFacts<'_>,
    manifest: &Manifest,
    config: &RunConfig,
) -> Result<(), RunError> {
    let ours = RunTag::of(manifest);
    if let (Some(found), Some(run)) = (&facts.tag.run_id, &ours.run_id)
        && found != run
    {
        return Err(foreign(
            path,
            format!("written by run {found}, where this run is {run}"),
        ));
    }
    if let (Some(found), Some(run)) = (facts.tag.config_crc32, ours.config_crc32)
        && found != run
    {
        return Err(foreign(
            path,
            format!(
                "written under a configuration of checksum {found:08x}, where this run's is {run:08x}"
            ),
        ));
    }
    check_network(path, facts.network, config)?;
    let done = manifest.generations_done();
    let per_generation = config.train.steps_per_generation;
    let least = manifest
        .history
        .last()
        .map_or(u64::from(done) * per_generation, |r| r.step);
    let most = least + per_generation;
    if !(least..=most).contains(&facts.step) {
        return Err(foreign(
            path,
            format!(
                "at optimiser step {}, where the run has done {done} generations (step {least}) and \
                 the next ends at step {most}: a checkpoint of another time",
                facts.step
            ),
        ));
    }
    Ok(())
}

/// The games of generation `g` in its shards, refusing a shard of another seed (a stray
/// of another run or configuration), a game numbered past the generation's games, and a
/// game found twice; `config` is the configuration the generation was played with.
///
/// # Errors
/// A shard is unreadable, foreign, or repeats a game.
pub fn games_in_shards(
    dir: &RunDir,
    config: &RunConfig,
    g: u32,
) -> Result<BTreeSet<u64>, RunError> {
    let seed = selfplay_seed(config, g);
    let games = config.run.games_per_generation;
    let files = dir
        .shard_files(g)
        .map_err(|e| RunError::io(&dir.shards(g), e))?;
    let mut found: BTreeMap<u64, PathBuf> = BTreeMap::new();
    for path in files {
        let (header, _) = read_shard(&path)?;
        if header.source != SampleSource::Games {
            continue;
        }
        if let Some(s) = header.seed
            && s != seed
        {
            return Err(foreign(
                &path,
                format!("games of seed {s:016x}, where generation {g} plays seed {seed:016x}"),
            ));
        }
        for game in &header.game_list {
            if game.index >= games {
                return Err(foreign(
                    &path,
                    format!("game {} of a generation of {games} games", game.index),
                ));
            }
            if let Some(first) = found.insert(game.index, path.clone()) {
                return Err(foreign(
                    &path,
                    format!(
                        "game {} again (it is in {} too)",
                        game.index,
                        first.display()
                    ),
                ));
            }
        }
    }
    Ok(found.into_keys().collect())
}

/// The seed generation `g`'s self-play games are played with (each game's own derived from
/// it and its number), here or on a cluster, and recorded in its shards.
pub fn selfplay_seed(config: &RunConfig, g: u32) -> u64 {
    kvarn_game::seeds::derive(config.seed, stream::SELFPLAY, u64::from(g))
}

fn foreign(path: &Path, reason: String) -> RunError {
    RunError::Foreign {
        path: path.to_path_buf(),
        reason,
    }
}
