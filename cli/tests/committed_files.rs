//! The JSON Lines files committed with the project (benchmark sets, match records, the
//! evaluations behind docs/results) pass their own checksum: a report edited by hand after
//! it was written, or damaged in a copy, is caught here rather than by the next reader.

use std::path::{Path, PathBuf};

#[path = "../../testing/paths.rs"]
mod paths;

/// The folders that hold committed `.jsonl` files.
const FOLDERS: [&str; 3] = ["docs/results", "eval/solver/benchmarks", "runs"];

#[test]
fn every_committed_json_lines_file_passes_its_checksum() {
    let root = paths::workspace();
    let mut files = Vec::new();
    for folder in FOLDERS {
        jsonl_files(&root.join(folder), &mut files);
    }
    assert!(
        files.len() >= 20,
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

/// The top folders of absolute paths that lie outside any checkout: temporary folders and
/// home folders, where a committed report might name a model or a record that no reader
/// of the repository can open. (Named without their slashes, so that this file does not
/// match itself.)
const OUTSIDE: [&str; 7] = ["tmp", "var/tmp", "root", "home", "work", "mnt", "Users"];

#[test]
fn no_committed_file_names_a_path_outside_the_repository() {
    let root = paths::workspace();
    let listed = std::process::Command::new("git")
        .arg("-C")
        .arg(&root)
        .args(["ls-files", "-z"])
        .output();
    let Some(listed) = listed.ok().filter(|o| o.status.success()) else {
        panic!(
            "git ls-files failed in {}: this test reads a git checkout",
            root.display()
        );
    };
    let mut found = Vec::new();
    for name in listed.stdout.split(|&b| b == 0).filter(|n| !n.is_empty()) {
        let name = String::from_utf8_lossy(name).to_string();
        let Ok(text) = std::fs::read_to_string(root.join(&name)) else {
            continue; // binary (models, images), or removed from the work tree
        };
        for (n, line) in text.lines().enumerate() {
            if let Some(path) = outside_path(line) {
                found.push(format!("{name}:{}: {path}", n + 1));
            }
        }
    }
    assert!(
        found.is_empty(),
        "committed files name paths outside the repository (name the repository's copy, \
         or a relative path, instead):\n{}",
        found.join("\n")
    );
}

/// The first absolute path in `line` under one of [`OUTSIDE`]'s folders (a temporary
/// folder's file, say), but not the same words inside a relative path nor a system
/// program's path such as `/usr/bin/x`.
fn outside_path(line: &str) -> Option<&str> {
    for top in OUTSIDE {
        let pattern = format!("/{top}/");
        for (at, _) in line.match_indices(&pattern) {
            let before = line[..at].chars().next_back();
            let starts = before.is_none_or(|c| !(c.is_alphanumeric() || "_.~/-$}".contains(c)));
            if starts {
                let end = line[at..]
                    .find(|c: char| c.is_whitespace() || "\"'`),]".contains(c) || c == ',')
                    .map_or(line.len(), |e| at + e);
                return Some(&line[at..end]);
            }
        }
    }
    None
}

#[test]
fn outside_paths_are_told_from_relative_and_system_ones() {
    let tmp = format!("/{}/", OUTSIDE[0]);
    assert_eq!(
        outside_path(&format!("model {tmp}k/m.kvmodel here")),
        Some(&*format!("{tmp}k/m.kvmodel"))
    );
    assert_eq!(
        outside_path(&format!("net:model={tmp}a.kvmodel,x=1")),
        Some(&*format!("{tmp}a.kvmodel"))
    );
    assert_eq!(outside_path(&format!("runs{tmp}x")), None);
    assert_eq!(outside_path("/usr/bin/chromium"), None);
    assert_eq!(outside_path(&format!("$HOME{}", "/.cache")), None);
}

/// The committed bank of exact samples of Nine (`kvarn sample-bank`) reads whole; every
/// row agrees with its position, none is a position of a committed benchmark set or its
/// twin, and every phase and every count of men placed from 5 on is taught.
#[test]
fn the_committed_sample_bank_reads_and_keeps_clear_of_the_benchmark_sets() {
    use kvarn_solver::benchmark::bank::{check_bank, read_bank};
    use kvarn_solver::benchmark::whole_game::men_placed;
    let path = paths::workspace().join("docs/results/nine-solve/sample-bank.kvbank");
    let (header, rows) = read_bank(&path).unwrap();
    let rules = header.rules;
    let excluded = kvarn_solver::benchmark::committed_keys(&rules).unwrap();
    check_bank(&header, &rows, &excluded).unwrap();
    for phase in ["placing", "moving", "flying", "removal"] {
        let n = header.by_phase.get(phase).copied().unwrap_or(0);
        assert!(n >= 1000, "{n} positions of the {phase} phase");
    }
    let mut placed = [0usize; 18];
    for row in &rows {
        let game = row.game(&rules).unwrap();
        if game.position().men_in_hand() > 0 {
            placed[usize::from(men_placed(&rules, game.position()))] += 1;
        }
    }
    for (n, &count) in placed.iter().enumerate().skip(5) {
        assert!(count >= 900, "{count} positions with {n} men placed");
    }
}

/// The committed placing bank (`kvarn sample-bank --beside` the sample bank) reads whole;
/// every row agrees with its position, none is a committed benchmark position or a
/// position of the sample bank (up to symmetry and colours), so that a run reads both as
/// one, and every count of men placed from 5 on has 1,000 of them.
#[test]
fn the_committed_placing_bank_keeps_clear_of_the_sample_bank() {
    use kvarn_solver::benchmark::bank::{bank_keys, check_bank, read_bank};
    use kvarn_solver::benchmark::whole_game::men_placed;
    let dir = paths::workspace().join("docs/results/nine-solve");
    let (header, rows) = read_bank(&dir.join("placing-bank.kvbank")).unwrap();
    let rules = header.rules;
    let mut excluded = kvarn_solver::benchmark::committed_keys(&rules).unwrap();
    excluded.extend(bank_keys(&dir.join("sample-bank.kvbank"), &rules).unwrap());
    check_bank(&header, &rows, &excluded).unwrap();
    let mut placed = [0usize; 18];
    for row in &rows {
        let game = row.game(&rules).unwrap();
        assert!(game.position().men_in_hand() > 0, "{}", row.position);
        placed[usize::from(men_placed(&rules, game.position()))] += 1;
    }
    for (n, &count) in placed.iter().enumerate().skip(5) {
        assert!(count >= 1000, "{count} positions with {n} men placed");
    }
}
