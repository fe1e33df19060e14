//! What a resumed run runs with: its `config.toml`, checked against the checksum the
//! manifest recorded when the run started, with the settings changed on earlier resumes
//! put on top. `config.toml` itself never changes after the start, so that an edit of it
//! is seen, and a change of settings is recorded in the manifest with the generation it
//! applies from rather than lost in an overwritten file.

use crate::error::RunError;
use crate::manifest::{Amendment, Manifest};
use crate::run_config::RunConfig;
use crate::run_dir::RunDir;

/// Settings a resume may not change: the checkpoint holds a network of this shape for
/// these rules, and generation g ends at optimiser step g × steps_per_generation.
const FIXED: [&str; 3] = ["rules", "network", "train.steps_per_generation"];

/// The configurations of a resumed run (relative paths read from the folder the run
/// started in).
#[derive(Debug)]
pub struct Resumed {
    /// As recorded: `config.toml` with the settings of earlier resumes.
    pub recorded: RunConfig,
    /// What the run goes on with: `recorded` with the settings given now.
    pub config: RunConfig,
    /// Whether the manifest changed (a version-3 run's checksum recorded, or the settings
    /// given now added as an amendment from the next generation on, unless they change
    /// nothing); the caller writes it, holding the run's lock.
    pub changed: bool,
}

/// The configuration a resumed run goes on with, and the one recorded before `settings`.
///
/// # Errors
/// `config.toml` cannot be read or no longer has the recorded checksum, a setting names a
/// fixed table, or the configuration with the settings does not parse or validate.
pub fn resumed_config(
    dir: &RunDir,
    manifest: &mut Manifest,
    settings: &[String],
) -> Result<Resumed, RunError> {
    let path = dir.config();
    let text = std::fs::read_to_string(&path).map_err(|e| RunError::io(&path, e))?;
    let found = crc32fast::hash(text.as_bytes());
    let mut changed = false;
    match manifest.state.config_crc32 {
        Some(recorded) if recorded != found => {
            return Err(RunError::ConfigEdited {
                path,
                recorded,
                found,
            });
        }
        Some(_) => {}
        None => {
            manifest.state.config_crc32 = Some(found);
            changed = true;
        }
    }
    if manifest.state.run_id.is_none() {
        manifest.state.run_id = Some(crate::manifest::new_run_id());
        changed = true;
    }
    let origin = path.display().to_string();
    let base = &manifest.working_dir(dir);
    let text = amended(text, &origin, manifest.state.amendments.iter())?;
    let recorded = RunConfig::parse_in(&text, &origin, base)?;
    if settings.is_empty() {
        return Ok(Resumed {
            config: recorded.clone(),
            recorded,
            changed,
        });
    }
    check_changeable(settings)?;
    let amended = RunConfig::with_settings(&text, &origin, settings)?;
    let config = RunConfig::parse_in(&amended, &origin, base)?;
    // Settings that change nothing (a stage of a script run again) are not recorded.
    if config != recorded {
        manifest.state.amendments.push(Amendment {
            generation: manifest.generations_done() + 1,
            settings: settings.to_vec(),
        });
        changed = true;
    }
    Ok(Resumed {
        recorded,
        config,
        changed,
    })
}

/// The configuration generation `g` was made with: `config.toml` with the settings of
/// the resumes before it. A stage's settings (exact samples, say) tell what a finished
/// generation's folder should hold.
///
/// # Errors
/// `config.toml` cannot be read, or with the settings does not parse or validate.
pub fn config_at(dir: &RunDir, manifest: &Manifest, g: u32) -> Result<RunConfig, RunError> {
    let path = dir.config();
    let text = std::fs::read_to_string(&path).map_err(|e| RunError::io(&path, e))?;
    let origin = path.display().to_string();
    let before = manifest
        .state
        .amendments
        .iter()
        .filter(|a| a.generation <= g);
    let text = amended(text, &origin, before)?;
    Ok(RunConfig::parse_in(
        &text,
        &origin,
        &manifest.working_dir(dir),
    )?)
}

/// `text` with the amendments' settings put on in order.
fn amended<'a>(
    text: String,
    origin: &str,
    mut amendments: impl Iterator<Item = &'a Amendment>,
) -> Result<String, RunError> {
    amendments.try_fold(text, |text, a| {
        Ok(RunConfig::with_settings(&text, origin, &a.settings)?)
    })
}

/// Refuses a setting that is, holds or lies in one fixed for the run's life.
fn check_changeable(settings: &[String]) -> Result<(), RunError> {
    for setting in settings {
        let key = setting.split_once('=').map_or(setting.as_str(), |(k, _)| k);
        let key: String = key.split('.').map(str::trim).collect::<Vec<_>>().join(".");
        let within =
            |outer: &str, inner: &str| inner == outer || inner.starts_with(&format!("{outer}."));
        if FIXED.iter().any(|f| within(f, &key) || within(&key, f)) {
            return Err(RunError::FixedSetting(key));
        }
    }
    Ok(())
}
