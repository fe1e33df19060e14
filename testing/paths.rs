//! Where the tests find the workspace's files (configurations, committed runs, reference
//! outputs). The folder is read when the test runs, from the `CARGO_MANIFEST_DIR` that
//! `cargo test` sets, not baked in when the test is built: a test binary built in one
//! checkout and reused from a shared build cache by another (as CI's cache is, since
//! cargo's fingerprints do not see the checkout move) would otherwise read the first
//! checkout's files, or fail where that checkout is gone. Each test file includes this one
//! (`#[path = "../../testing/paths.rs"] mod paths;`).
#![allow(dead_code)]

use std::path::PathBuf;

/// The workspace's root folder: the parent of the tested crate's folder.
pub fn workspace() -> PathBuf {
    crate_dir().join("..")
}

/// The tested crate's folder, as `cargo test` names it when the test runs (as built,
/// where the binary runs without cargo).
pub fn crate_dir() -> PathBuf {
    std::env::var_os("CARGO_MANIFEST_DIR")
        .map_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")), PathBuf::from)
}
