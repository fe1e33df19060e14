//! `docs/CONFIG.md` is what `kvarn config --markdown` prints: the reference cannot drift
//! from the declarations it is made from.

use std::process::Command;

#[path = "../../testing/paths.rs"]
mod paths;

#[test]
fn docs_config_md_is_the_reference_the_code_prints() {
    let out = Command::new(env!("CARGO_BIN_EXE_kvarn"))
        .args(["config", "--markdown"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let printed = String::from_utf8(out.stdout).unwrap();
    let committed = std::fs::read_to_string(paths::workspace().join("docs/CONFIG.md")).unwrap();
    assert!(
        printed == committed,
        "docs/CONFIG.md differs from the declarations: regenerate it with \
         `kvarn config --markdown > docs/CONFIG.md`"
    );
    let text = Command::new(env!("CARGO_BIN_EXE_kvarn"))
        .arg("config")
        .output()
        .unwrap();
    let text = String::from_utf8(text.stdout).unwrap();
    assert!(text.contains("loop.player.symmetries = 1"), "{text}");
    assert!(text.contains("search.c_puct = 1.5"), "{text}");
}
