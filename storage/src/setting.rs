//! The one error for a setting that cannot be used, whichever crate checks it: network
//! shapes, search, self-play, training and the run loop all read their settings from the
//! same configuration file, so a refusal names the key the same way, once, as it is
//! written there (`table.key`).

use std::fmt::Display;
use std::ops::RangeInclusive;

/// A setting out of range or otherwise unusable, e.g. `search.simulations: must be
/// 1..=1000000`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{key}: {reason}")]
pub struct SettingError {
    /// The setting as written in a configuration file, `table.key` (or `key` at the top).
    /// Only this field names it: `reason` and wrappers of this error do not repeat it.
    pub key: String,
    /// What is wrong with its value.
    pub reason: String,
}

impl SettingError {
    /// The error for `key`.
    pub fn new(key: impl Into<String>, reason: impl Into<String>) -> SettingError {
        SettingError {
            key: key.into(),
            reason: reason.into(),
        }
    }

    /// `Ok(())` when `ok`, else the error for `key`: one line per rule in a `validate`.
    ///
    /// # Errors
    /// `ok` is false.
    pub fn check(ok: bool, key: &str, reason: impl Into<String>) -> Result<(), SettingError> {
        if ok {
            Ok(())
        } else {
            Err(SettingError::new(key, reason))
        }
    }

    /// `Ok(())` when `value` lies in `range`, else the error for `key`, naming the range.
    ///
    /// # Errors
    /// `value` is outside `range`.
    pub fn check_range<T: PartialOrd + Display>(
        key: &str,
        value: T,
        range: RangeInclusive<T>,
    ) -> Result<(), SettingError> {
        if range.contains(&value) {
            Ok(())
        } else {
            let reason = format!("{value} is outside {}..={}", range.start(), range.end());
            Err(SettingError::new(key, reason))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::SettingError;

    #[test]
    fn the_key_is_named_once() {
        let e = SettingError::check_range("search.simulations", 0u32, 1..=1_000_000).unwrap_err();
        assert_eq!(
            e.to_string(),
            "search.simulations: 0 is outside 1..=1000000"
        );
        assert!(SettingError::check(true, "a.b", "never").is_ok());
    }
}
