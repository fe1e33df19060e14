//! The programs from outside Rust that some tests need: a Python with given packages
//! (onnx, onnxruntime, tensorboard, ray), Node.js with the web page's npm packages, and
//! Chromium. Where one is missing, `cargo test` on a machine with only Rust still passes:
//! the test is skipped, and a line naming the test, what it needs and what would run it is
//! written straight to the terminal (past the test harness's capture, so that it shows
//! without `--nocapture`). `KVARN_REQUIRE_ALL=1`, which `scripts/test.sh` and CI set,
//! makes every such skip a failure, so that a green CI never hides a skipped test.
//! Each test file that needs one includes this file (`#[path =
//! "../../testing/outside.rs"] mod outside;`).
#![allow(dead_code)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The variable that turns skips into failures.
pub const REQUIRE_ALL: &str = "KVARN_REQUIRE_ALL";

/// True where `present`. Otherwise the calling test is skipped (false, and a line on the
/// terminal), or fails where [`REQUIRE_ALL`] is set; `needs` says what is missing and
/// `how` what would provide it.
pub fn have(present: bool, needs: &str, how: &str) -> bool {
    if present {
        return true;
    }
    let test = std::thread::current()
        .name()
        .unwrap_or("a test")
        .to_string();
    let required = std::env::var(REQUIRE_ALL).is_ok_and(|v| !v.is_empty() && v != "0");
    assert!(
        !required,
        "{test} needs {needs} ({REQUIRE_ALL} is set, so a skip is a failure): {how}"
    );
    // Straight to the file descriptor: the harness captures only print!/eprint!.
    let _ = writeln!(std::io::stderr(), "SKIPPED {test}: needs {needs}; {how}");
    false
}

/// The Python the tests run: `KVARN_PYTHON`, else `python3`.
pub fn python() -> String {
    std::env::var("KVARN_PYTHON").unwrap_or_else(|_| "python3".into())
}

/// True where the tests' Python imports every module of `modules` (comma separated, as
/// in an `import` statement); otherwise as [`have`] says.
pub fn python_with(modules: &str) -> bool {
    let present = Command::new(python())
        .args(["-c", &format!("import {modules}")])
        .output()
        .is_ok_and(|o| o.status.success());
    have(
        present,
        &format!("a Python with {modules}"),
        "run scripts/test.sh (it makes one in .venv), or set KVARN_PYTHON to a python that has \
         them (pip install -r scripts/requirements-test.txt)",
    )
}

/// The Node.js the tests run: `KVARN_NODE`, else `node`.
pub fn node() -> String {
    std::env::var("KVARN_NODE").unwrap_or_else(|_| "node".into())
}

/// True where Node.js runs and `web/node_modules` holds each of `packages`; otherwise as
/// [`have`] says.
pub fn node_with(web: &Path, packages: &[&str]) -> bool {
    let runs = Command::new(node())
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    let installed = packages
        .iter()
        .all(|p| web.join("node_modules").join(p).is_dir());
    have(
        runs && installed,
        &format!(
            "Node.js and the web page's npm packages ({})",
            packages.join(", ")
        ),
        "run scripts/test.sh (apt-get install nodejs npm; npm ci --prefix web), or set \
         KVARN_NODE to a node binary",
    )
}

/// The Chromium the browser tests drive: `KVARN_CHROMIUM`, else `/usr/bin/chromium`.
pub fn chromium() -> PathBuf {
    std::env::var_os("KVARN_CHROMIUM").map_or_else(|| "/usr/bin/chromium".into(), PathBuf::from)
}

/// True where [`chromium`] exists; otherwise as [`have`] says.
pub fn chromium_present() -> bool {
    let at = chromium();
    have(
        at.exists(),
        &format!("Chromium at {}", at.display()),
        "run scripts/test.sh (apt-get install chromium), or set KVARN_CHROMIUM",
    )
}
