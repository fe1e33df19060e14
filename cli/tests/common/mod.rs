//! What the command-line tests share: running the `kvarn` binary they test, and reading
//! what it printed.
#![allow(dead_code)]

use std::path::Path;
use std::process::{Command, Output};

/// `kvarn args` run in `dir` (the test's own working directory where `None`), without
/// backtraces in its messages.
pub fn run(dir: Option<&Path>, args: &[&str]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_kvarn"));
    if let Some(dir) = dir {
        cmd.current_dir(dir);
    }
    cmd.args(args)
        .env("RUST_BACKTRACE", "0")
        .output()
        .expect("kvarn starts")
}

/// Whether a run succeeded, its standard output and its standard error.
pub fn streams(out: &Output) -> (bool, String, String) {
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// `kvarn args`: whether it succeeded, its standard output and its standard error.
pub fn kvarn(args: &[&str]) -> (bool, String, String) {
    streams(&run(None, args))
}

/// `kvarn args` in `dir`: whether it succeeded, its standard output and its standard error.
pub fn kvarn_in(dir: &Path, args: &[&str]) -> (bool, String, String) {
    streams(&run(Some(dir), args))
}

/// `kvarn args` in `dir`, which must succeed: its standard output (a failure shows both
/// streams and the arguments).
pub fn ok_in(dir: &Path, args: &[&str]) -> String {
    let (ok, stdout, stderr) = kvarn_in(dir, args);
    assert!(ok, "kvarn {args:?}\n{stdout}\n{stderr}");
    stdout
}
