//! TensorBoard files that TensorBoard's own reader accepts. Needs a Python with the
//! `tensorboard` package (`KVARN_PYTHON`, default `python3`); `scripts/test.sh` and CI
//! provide one.

use std::process::Command;

use kvarn_train::Metrics;

#[path = "../../testing/outside.rs"]
mod outside;
#[path = "../../testing/paths.rs"]
mod paths;

#[test]
fn tensorboard_reads_the_scalars_back() {
    if !outside::python_with("tensorboard") {
        return;
    }
    let python = outside::python();
    let dir = tempfile::tempdir().unwrap();
    let mut expected = serde_json::Map::new();
    {
        let mut m = Metrics::open(dir.path()).unwrap();
        for (tag, scale) in [("loss/total", 1.0), ("elo/baseline", 100.0)] {
            let mut series = Vec::new();
            for step in 0..25u64 {
                let v = scale * (step as f64 * 0.37).sin();
                m.scalar(tag, step, v);
                series.push(serde_json::json!([step, v as f32]));
            }
            expected.insert(tag.to_string(), serde_json::Value::Array(series));
        }
    }
    let want = dir.path().join("expected.json");
    std::fs::write(&want, serde_json::to_vec(&expected).unwrap()).unwrap();
    let script = paths::workspace().join("scripts/check_tensorboard.py");
    let out = Command::new(&python)
        .arg(script)
        .arg(dir.path())
        .arg(&want)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}
