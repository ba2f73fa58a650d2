//! The libc corpus scripts without network or dizy: `benchmarks/libc/build-corpus --self-test`
//! extracts a toy library (private macros expanded, variants resolved, a sibling renamed and made
//! static, aliases and unreached functions dropped, a unit that calls outside its file rejected),
//! and `benchmarks/libc/native-test --self-test` runs toy implementations natively under ASan and
//! UBSan (equal implementations agree, a strchr that misses the terminator and an over-reading
//! strlen are told apart, strcmp results are compared exactly and by sign, a dizy-style witness
//! is re-run from its JSON). About 10 s, most of it gcc with sanitizers.

use std::path::Path;
use std::process::Command;

fn on_path(tool: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {tool}")])
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false)
}

fn self_test(script: &str, needs: &[&str]) {
    for tool in needs {
        if !on_path(tool) {
            eprintln!("skipped {script}: `{tool}` is not on PATH");
            return;
        }
    }
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("benchmarks/libc")
        .join(script);
    let out = Command::new("python3")
        .arg(&path)
        .arg("--self-test")
        .output()
        .expect("run python3");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.contains("self-test passed"),
        "{script} --self-test failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        !stdout.lines().any(|l| l.starts_with("FAIL")),
        "a check failed:\n{stdout}"
    );
}

#[test]
fn build_corpus_self_test() {
    self_test("build-corpus", &["python3", "gcc", "nm"]);
}

#[test]
fn native_test_self_test() {
    self_test("native-test", &["python3", "gcc", "timeout"]);
}
