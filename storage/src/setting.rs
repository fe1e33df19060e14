//! The one error for a setting that cannot be used, whichever crate checks it: network
//! shapes, search, self-play, training and the run loop all read their settings from the
//! same configuration file, so a refusal names the key the same way, once, as it is
//! written there (`table.key`).

use std::fmt::Display;
use std::ops::RangeInclusive;

use serde_json::Value;

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

/// The bounds a JSON Schema declares for a number (`minimum`, `maximum` and their
/// exclusive forms): what `#[schemars(range(...))]` on a setting writes, so that the
/// checks and the reference (`kvarn config`) read one declaration.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Bounds {
    /// The least value, and whether it is itself refused.
    pub min: Option<(f64, bool)>,
    /// The greatest value, and whether it is itself refused.
    pub max: Option<(f64, bool)>,
}

impl Bounds {
    /// The bounds of `schema` (a property's own schema, `$ref`s resolved by the caller).
    pub fn of(schema: &Value) -> Bounds {
        let get = |k: &str| schema.get(k).and_then(Value::as_f64);
        let side = |inclusive: &str, exclusive: &str| match (get(inclusive), get(exclusive)) {
            (_, Some(x)) => Some((x, true)),
            (Some(x), None) => Some((x, false)),
            (None, None) => None,
        };
        Bounds {
            min: side("minimum", "exclusiveMinimum"),
            max: side("maximum", "exclusiveMaximum"),
        }
    }

    /// Whether `x` lies within the bounds.
    pub fn contains(&self, x: f64) -> bool {
        let above = self
            .min
            .is_none_or(|(m, strict)| if strict { x > m } else { x >= m });
        let below = self
            .max
            .is_none_or(|(m, strict)| if strict { x < m } else { x <= m });
        above && below
    }

    /// The bounds in words: `1..=256` for whole numbers, `[0, 1]` or `(0, 10)` for real
    /// ones, `>= 1` where only a least value is declared; `None` where none is.
    pub fn describe(&self, whole: bool) -> Option<String> {
        let n = |x: f64| number_text(x);
        match (self.min, self.max) {
            (None, None) => None,
            (Some((lo, false)), Some((hi, false))) if whole => {
                Some(format!("{}..={}", n(lo), n(hi)))
            }
            (Some((lo, ls)), Some((hi, hs))) => Some(format!(
                "{}{}, {}{}",
                if ls { "(" } else { "[" },
                n(lo),
                n(hi),
                if hs { ")" } else { "]" }
            )),
            (Some((lo, strict)), None) => {
                Some(format!("{} {}", if strict { ">" } else { ">=" }, n(lo)))
            }
            (None, Some((hi, strict))) => {
                Some(format!("{} {}", if strict { "<" } else { "<=" }, n(hi)))
            }
        }
    }
}

/// A real number in the fewest digits that read back as it: most settings are `f32`,
/// and their values widened to `f64` would show as 0.30000001192092896.
pub fn number_text(x: f64) -> String {
    #[allow(clippy::cast_possible_truncation)]
    let single = x as f32;
    if x.fract() == 0.0 && x.abs() < 1e15 {
        format!("{x:.0}")
    } else if f64::from(single) == x {
        format!("{single:?}")
    } else {
        format!("{x:?}")
    }
}

/// Checks every number of `settings` against the bounds its type declares in its JSON
/// Schema (`#[schemars(range(min = .., max = ..))]`), and refuses numbers that are not
/// finite; `table` names where the settings sit in a configuration file (`search`,
/// `selfplay`), so that a refusal names the key as written there.
///
/// # Errors
/// The first number out of its bounds, by key.
pub fn check_declared<T: serde::Serialize + schemars::JsonSchema>(
    settings: &T,
    table: &str,
) -> Result<(), SettingError> {
    let schema = schemars::schema_for!(T);
    let root = schema.as_value();
    let value = serde_json::to_value(settings)
        .map_err(|e| SettingError::new(table, format!("cannot be read: {e}")))?;
    check_value(root, root, &value, table)
}

/// `schema`, or the definition its `$ref` names in `root` (a JSON Schema as schemars
/// writes it, definitions under `$defs`).
pub fn resolve_ref<'a>(root: &'a Value, schema: &'a Value) -> &'a Value {
    schema
        .get("$ref")
        .and_then(Value::as_str)
        .and_then(|r| r.strip_prefix("#/$defs/"))
        .and_then(|name| root.get("$defs")?.get(name))
        .unwrap_or(schema)
}

/// The members of a schema's `anyOf`/`oneOf`/`allOf`, resolved.
fn members<'a>(root: &'a Value, schema: &'a Value) -> Vec<&'a Value> {
    ["anyOf", "oneOf", "allOf"]
        .iter()
        .filter_map(|k| schema.get(*k).and_then(Value::as_array))
        .flatten()
        .map(|m| resolve_ref(root, m))
        .collect()
}

fn has_type(schema: &Value, t: &str) -> bool {
    match schema.get("type") {
        Some(Value::String(s)) => s == t,
        Some(Value::Array(ts)) => ts.iter().any(|x| x.as_str() == Some(t)),
        _ => false,
    }
}

fn check_value(root: &Value, schema: &Value, value: &Value, key: &str) -> Result<(), SettingError> {
    let schema = resolve_ref(root, schema);
    match value {
        Value::Number(x) => {
            let x = x.as_f64().unwrap_or(f64::NAN);
            let candidates: Vec<&Value> = std::iter::once(schema)
                .chain(members(root, schema))
                .filter(|s| has_type(s, "number") || has_type(s, "integer"))
                .collect();
            match candidates.iter().find(|s| !Bounds::of(s).contains(x)) {
                Some(s) if !candidates.iter().any(|s| Bounds::of(s).contains(x)) => {
                    Err(SettingError::new(key, out_of_bounds(x, s)))
                }
                _ => Ok(()),
            }
        }
        // serde writes a number that is not finite as null.
        Value::Null if has_type(schema, "number") && !has_type(schema, "null") => {
            Err(SettingError::new(key, "must be a finite number"))
        }
        Value::Object(map) => check_object(root, schema, map, key),
        Value::Array(items) => match schema.get("items") {
            Some(item) => items
                .iter()
                .try_for_each(|v| check_value(root, item, v, key)),
            None => Ok(()),
        },
        _ => Ok(()),
    }
}

/// Why `x` is refused by the bounds of `schema`.
fn out_of_bounds(x: f64, schema: &Value) -> String {
    let bounds = Bounds::of(schema);
    let x_text = number_text(x);
    match (bounds.min, bounds.max) {
        (Some(_), Some(_)) => {
            let range = bounds
                .describe(has_type(schema, "integer"))
                .unwrap_or_default();
            format!("{x_text} is outside {range}")
        }
        (Some((lo, false)), None) => {
            format!("{x_text} is below the least value, {}", number_text(lo))
        }
        (Some((lo, true)), None) => format!("{x_text} is not above {}", number_text(lo)),
        (None, Some((hi, _))) => {
            format!("{x_text} is above the greatest value, {}", number_text(hi))
        }
        (None, None) => format!("{x_text} is refused"),
    }
}

/// The keys of a table against the properties of the schema that describes it: its own,
/// or those of the variant of a tagged enum whose tag it carries.
fn check_object(
    root: &Value,
    schema: &Value,
    map: &serde_json::Map<String, Value>,
    key: &str,
) -> Result<(), SettingError> {
    let tables: Vec<&Value> = std::iter::once(schema)
        .chain(members(root, schema))
        .filter(|s| s.get("properties").is_some())
        .filter(|s| tag_matches(s, map))
        .collect();
    for (name, value) in map {
        let child = if key.is_empty() {
            name.clone()
        } else {
            format!("{key}.{name}")
        };
        if let Some(property) = tables.iter().find_map(|s| s["properties"].get(name)) {
            check_value(root, property, value, &child)?;
        }
    }
    Ok(())
}

/// Whether every constant property of `schema` (an enum's tag) has its value in `map`.
fn tag_matches(schema: &Value, map: &serde_json::Map<String, Value>) -> bool {
    schema["properties"].as_object().is_none_or(|props| {
        props
            .iter()
            .filter_map(|(k, p)| p.get("const").map(|c| (k, c)))
            .all(|(k, c)| map.get(k) == Some(c))
    })
}

#[cfg(test)]
mod tests {
    use super::{SettingError, check_declared};

    /// A table with declared bounds, as the configuration types declare theirs.
    #[derive(serde::Serialize, schemars::JsonSchema)]
    struct Table {
        #[schemars(range(min = 1, max = 256))]
        threads: u32,
        #[schemars(range(max = 1.0), extend("exclusiveMinimum" = 0.0))]
        share: f32,
        #[schemars(range(min = 1))]
        horizon: Option<u32>,
        inner: Inner,
    }

    #[derive(serde::Serialize, schemars::JsonSchema)]
    struct Inner {
        #[schemars(range(min = 0.0, max = 1.0))]
        weight: f64,
    }

    fn table() -> Table {
        Table {
            threads: 2,
            share: 0.5,
            horizon: None,
            inner: Inner { weight: 0.3 },
        }
    }

    #[test]
    fn declared_bounds_are_checked_by_key() {
        assert!(check_declared(&table(), "t").is_ok());
        let refuse = |t: Table| check_declared(&t, "t").unwrap_err().to_string();
        assert_eq!(
            refuse(Table {
                threads: 0,
                ..table()
            }),
            "t.threads: 0 is outside 1..=256"
        );
        assert_eq!(
            refuse(Table {
                share: 0.0,
                ..table()
            }),
            "t.share: 0 is outside (0, 1]"
        );
        assert_eq!(
            refuse(Table {
                horizon: Some(0),
                ..table()
            }),
            "t.horizon: 0 is below the least value, 1"
        );
        assert_eq!(
            refuse(Table {
                inner: Inner { weight: 1.5 },
                ..table()
            }),
            "t.inner.weight: 1.5 is outside [0, 1]"
        );
        assert_eq!(
            refuse(Table {
                share: f32::NAN,
                ..table()
            }),
            "t.share: must be a finite number"
        );
    }

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
