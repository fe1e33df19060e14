//! The time budget shared by the benchmarks that run for `--seconds`.

use std::time::Duration;

/// A time budget from `--seconds`, refusing what is not a duration.
pub(super) fn duration(seconds: f64) -> anyhow::Result<Duration> {
    Duration::try_from_secs_f64(seconds).map_err(|_| {
        anyhow::anyhow!("--seconds {seconds} is not a duration (a number from 0 up, finite)")
    })
}
