//! The JSON Lines files committed with the project (benchmark sets, match records, the
//! evaluations behind docs/results) pass their own checksum: a report edited by hand after
//! it was written, or damaged in a copy, is caught here rather than by the next reader.

use std::path::{Path, PathBuf};

#[path = "../../testing/paths.rs"]
mod paths;

/// The folders that hold committed `.jsonl` files.
const FOLDERS: [&str; 3] = ["docs/results", "eval/benchmarks", "runs"];

#[test]
fn every_committed_json_lines_file_passes_its_checksum() {
    let root = paths::workspace();
    let mut files = Vec::new();
    for folder in FOLDERS {
        jsonl_files(&root.join(folder), &mut files);
    }
    assert!(
        files.len() >= 100,
        "found only {} .jsonl files under {FOLDERS:?}: is the checkout complete?",
        files.len()
    );
    let damaged: Vec<String> = files
        .iter()
        .filter_map(|f| {
            let text = std::fs::read_to_string(f).unwrap();
            kvarn_storage::parse_jsonl::<serde_json::Value, serde_json::Value>(&text)
                .err()
                .map(|e| format!("{}: {e}", f.strip_prefix(&root).unwrap_or(f).display()))
        })
        .collect();
    assert!(damaged.is_empty(), "damaged files:\n{}", damaged.join("\n"));
}

/// Every `.jsonl` file under `dir` (none where `dir` is missing: `runs/` holds only what
/// was committed).
fn jsonl_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries {
        let path = entry.unwrap().path();
        if path.is_dir() {
            jsonl_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "jsonl") {
            out.push(path);
        }
    }
}
