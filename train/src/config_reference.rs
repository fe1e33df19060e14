//! The reference of every key of a run configuration: its default, the values it takes
//! and its meaning, drawn from the declarations themselves (the configuration types'
//! doc comments and serde attributes, through their JSON Schema, and the player's
//! settings table), so that `kvarn config` and `docs/CONFIG.md` cannot say other than
//! the code does.

use std::fmt::Write;

use kvarn_selfplay::PlayerSettings;
use kvarn_selfplay::player::SETTINGS;
use kvarn_storage::{Bounds, number_text, resolve_ref};
use serde_json::Value;

use crate::RunConfig;

/// One key of a run configuration.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    /// Its dotted name: `search.c_puct`, `loop.player.symmetries`.
    pub key: String,
    /// The values it takes, in words.
    pub values: String,
    /// Its default, as TOML would write it (`none` where it is unset).
    pub default: String,
    /// What it does: the first sentence of its declaration's doc comment.
    pub meaning: String,
}

/// The configuration every default is read from: Nine Men's Morris and nothing else.
const DEFAULTS: &str = "[rules]\nvariant = \"nine\"\n";

/// Every key of a run configuration, in the order of the declarations.
pub fn entries() -> Vec<Entry> {
    let schema = schemars::schema_for!(RunConfig);
    let root = schema.as_value();
    let defaults = RunConfig::parse(DEFAULTS, "the defaults")
        .ok()
        .and_then(|c| serde_json::to_value(c).ok())
        .unwrap_or(Value::Null);
    let mut out = Vec::new();
    walk(root, root, "", &defaults, &mut out);
    // The top-level keys first, then each table's keys together.
    out.sort_by_key(|e| e.key.contains('.'));
    out
}

/// The keys of the object `schema` under `prefix`, with their defaults from `defaults`.
fn walk(root: &Value, schema: &Value, prefix: &str, defaults: &Value, out: &mut Vec<Entry>) {
    let schema = resolve_ref(root, schema);
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        return;
    };
    for (name, property) in properties {
        let key = format!("{prefix}{name}");
        let default = defaults.get(name).unwrap_or(&Value::Null);
        if key == "loop.player" {
            player_entries(&key, out);
            continue;
        }
        let table = table_of(root, property);
        match table {
            Some(Table::One(inner)) => walk(root, inner, &format!("{key}."), default, out),
            Some(Table::Tagged(variants)) => {
                if let Some(tag) = tag_entry(root, &key, property, &variants, default) {
                    out.push(tag);
                }
                for variant in variants {
                    walk(root, variant, &format!("{key}."), default, out);
                }
            }
            None if out.iter().any(|e| e.key == key) => {} // a key two variants share
            None => out.push(Entry {
                key,
                values: values(root, property),
                default: toml_text(default),
                meaning: meaning(root, property),
            }),
        }
    }
}

/// What a property that is a table of keys holds.
enum Table<'a> {
    /// One table (a struct, or an optional one).
    One(&'a Value),
    /// One of several tables told apart by a tag key (`kind`).
    Tagged(Vec<&'a Value>),
}

fn table_of<'a>(root: &'a Value, property: &'a Value) -> Option<Table<'a>> {
    let resolved = resolve_ref(root, property);
    if resolved.get("properties").is_some() {
        return Some(Table::One(property));
    }
    let members: Vec<&Value> = ["anyOf", "oneOf"]
        .iter()
        .filter_map(|k| resolved.get(*k).and_then(Value::as_array))
        .flatten()
        .collect();
    let tables: Vec<&Value> = members
        .iter()
        .copied()
        .filter(|m| resolve_ref(root, m).get("properties").is_some())
        .collect();
    let nulls = members.iter().filter(|m| is_null(m)).count();
    match (tables.len(), members.len() - tables.len() - nulls) {
        (1, 0) => Some(Table::One(tables[0])),
        (n, 0) if n > 1 => Some(Table::Tagged(tables)),
        _ => None,
    }
}

/// The key that tells a tagged table's variants apart (`network.kind`): every variant's
/// name, and the table's own meaning.
fn tag_entry(
    root: &Value,
    key: &str,
    property: &Value,
    variants: &[&Value],
    default: &Value,
) -> Option<Entry> {
    let mut tag = None;
    let mut names = Vec::new();
    for variant in variants {
        let properties = resolve_ref(root, variant).get("properties")?.as_object()?;
        let (name, value) = properties.iter().find(|(_, p)| p.get("const").is_some())?;
        tag = Some(name.clone());
        names.push(toml_text(value.get("const")?));
    }
    let tag = tag?;
    Some(Entry {
        key: format!("{key}.{tag}"),
        values: names.join("|"),
        default: toml_text(default.get(&tag).unwrap_or(&Value::Null)),
        meaning: meaning(root, property),
    })
}

fn is_null(schema: &Value) -> bool {
    schema.get("type").and_then(Value::as_str) == Some("null")
}

/// The values a leaf takes, in words.
fn values(root: &Value, schema: &Value) -> String {
    let schema = resolve_ref(root, schema);
    if let Some(words) = schema.get("enum").and_then(Value::as_array) {
        return words.iter().map(toml_text).collect::<Vec<_>>().join("|");
    }
    if let Some(c) = schema.get("const") {
        return toml_text(c);
    }
    for k in ["anyOf", "oneOf"] {
        if let Some(members) = schema.get(k).and_then(Value::as_array) {
            let parts: Vec<String> = members
                .iter()
                .filter(|m| !is_null(m))
                .map(|m| values(root, m))
                .collect();
            return parts.join(" or ");
        }
    }
    let types: Vec<&str> = match schema.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    let words: Vec<String> = types
        .iter()
        .filter(|t| **t != "null")
        .map(|t| match *t {
            "integer" => Bounds::of(schema)
                .describe(true)
                .map_or("a whole number".into(), |r| in_words("a whole number", &r)),
            "number" => Bounds::of(schema)
                .describe(false)
                .map_or("a number".into(), |r| in_words("a number", &r)),
            "boolean" => "true|false".to_string(),
            "string" => "text".to_string(),
            "array" => format!(
                "a list of {}",
                schema
                    .get("items")
                    .map_or("values".into(), |items| values(root, items))
            ),
            "object" => "a table".to_string(),
            other => other.to_string(),
        })
        .collect();
    if words.is_empty() {
        "any".into()
    } else {
        words.join(" or ")
    }
}

/// `a number in [0, 1]`, `a whole number >= 1`.
fn in_words(what: &str, range: &str) -> String {
    if range.starts_with(['<', '>']) {
        format!("{what} {range}")
    } else {
        format!("{what} in {range}")
    }
}

/// The first sentence of a declaration's doc comment.
fn meaning(root: &Value, schema: &Value) -> String {
    let text = schema
        .get("description")
        .or_else(|| resolve_ref(root, schema).get("description"))
        .and_then(Value::as_str)
        .unwrap_or("");
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    match flat.find(". ") {
        Some(end) => flat[..=end].to_string(),
        None => flat,
    }
}

/// A JSON value as TOML writes it.
fn toml_text(v: &Value) -> String {
    match v {
        Value::Null => "none".into(),
        Value::String(s) => format!("\"{s}\""),
        Value::Array(items) => format!(
            "[{}]",
            items.iter().map(toml_text).collect::<Vec<_>>().join(", ")
        ),
        Value::Object(map) => format!(
            "{{ {} }}",
            map.iter()
                .map(|(k, v)| format!("{k} = {}", toml_text(v)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Value::Number(n) if n.is_f64() => n.as_f64().map_or(n.to_string(), number_text),
        other => other.to_string(),
    }
}

/// The keys of `[loop.player]`: the player's settings, their defaults those of a run whose
/// `[search]` is at its defaults.
fn player_entries(prefix: &str, out: &mut Vec<Entry>) {
    let defaults = PlayerSettings::from_search(&kvarn_selfplay::SearchConfig::default());
    for s in SETTINGS {
        let unit = if s.unit.is_empty() {
            String::new()
        } else {
            format!(" ({})", s.unit)
        };
        out.push(Entry {
            key: format!("{prefix}.{}", s.name),
            values: format!("{}{unit}", s.kind.range()),
            default: s.value(&defaults).unwrap_or_else(|| "none".into()),
            meaning: format!("{}.", capitalised(s.meaning)),
        });
    }
}

fn capitalised(text: &str) -> String {
    let mut c = text.chars();
    c.next().map_or(String::new(), |f| {
        f.to_uppercase().collect::<String>() + c.as_str()
    })
}

/// The reference as plain text, a key a paragraph.
pub fn text() -> String {
    let mut out = String::new();
    for e in entries() {
        let _ = writeln!(
            out,
            "{} = {}\n    {}\n    values: {}\n",
            e.key, e.default, e.meaning, e.values
        );
    }
    out
}

/// The reference as the Markdown of `docs/CONFIG.md`.
pub fn markdown() -> String {
    let mut out = String::from(
        "# Run configuration reference\n\n\
         Every key of a run configuration (`kvarn train --config FILE`) with its default, the \
         values it takes and its meaning. This page is generated by `kvarn config --markdown` \
         from the declarations in the code (a test fails when the two differ); `kvarn config` \
         prints the same in a terminal. Defaults are those of `[rules] variant = \"nine\"`. \
         The values are the declared range of the player's settings (`[loop.player]`, the \
         same as the `net:` agent's) and the type of the others, whose ranges are checked \
         when a configuration is read: every key but `rules.variant` is optional, and an \
         unknown key or a value out of range is refused before any work, with the key \
         named. The configurations in `configs/` set what differs from these defaults, with \
         the reasons.\n",
    );
    // Entries come grouped, the top-level keys first: a heading wherever the group changes.
    let mut section = None;
    for e in entries() {
        let group = e.key.split_once('.').map(|(table, _)| table.to_string());
        if section.as_ref() != Some(&group) {
            let heading = group
                .as_ref()
                .map_or("Top level".to_string(), |t| format!("`[{t}]`"));
            let _ = write!(
                out,
                "\n## {heading}\n\n| key | default | values | meaning |\n|---|---|---|---|\n"
            );
            section = Some(group);
        }
        let cell = |s: &str| s.replace('|', "\\|");
        let _ = writeln!(
            out,
            "| `{}` | `{}` | {} | {} |",
            e.key,
            cell(&e.default),
            cell(&e.values),
            cell(&e.meaning)
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_key_has_a_meaning_and_the_player_its_settings() {
        let all = entries();
        assert!(all.len() > 100, "{} keys", all.len());
        let missing: Vec<&str> = all
            .iter()
            .filter(|e| e.meaning.is_empty())
            .map(|e| e.key.as_str())
            .collect();
        assert!(missing.is_empty(), "keys without a meaning: {missing:?}");
        let c_puct = all.iter().find(|e| e.key == "search.c_puct").unwrap();
        assert_eq!(c_puct.default, "1.5");
        let player = all
            .iter()
            .find(|e| e.key == "loop.player.symmetries")
            .unwrap();
        assert_eq!(
            (player.default.as_str(), player.values.as_str()),
            ("1", "1..=16 (images)")
        );
        assert!(all.iter().any(|e| e.key == "network.hidden"));
        assert!(all.iter().any(|e| e.key == "rules.variant"));
    }
}
