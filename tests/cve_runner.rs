//! `benchmarks/realworld/run-cve-patches --self-test`: the CVE-patch runner's splitting of a
//! Debian patch series (the tree right before and after each CVE patch, patches that do not
//! apply reported and skipped, `-pN` from the series), its function ranges (K&R, attributes,
//! `extern "C"`, unbalanced braces in `#if` branches), the patched functions of a patch, the
//! include directories of the configured runs and the deb-src entry it writes, checked on a
//! synthetic package in a temporary directory: no network, no dizy, under a second.

use std::path::Path;
use std::process::Command;

fn on_path(tool: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {tool}")])
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false)
}

#[test]
fn cve_runner_self_test() {
    for tool in ["python3", "patch", "diff", "cp"] {
        if !on_path(tool) {
            eprintln!("skipped: `{tool}` is not on PATH");
            return;
        }
    }
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("benchmarks/realworld/run-cve-patches");
    let out = Command::new("python3")
        .arg(&script)
        .arg("--self-test")
        .output()
        .expect("run python3");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.contains("self-test passed"),
        "self-test failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        !stdout.lines().any(|l| l.starts_with("FAIL")),
        "a check failed:\n{stdout}"
    );
}
