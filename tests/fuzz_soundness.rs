//! The soundness fuzzer in the regular test suite: a fixed-seed, small-budget run of `dizy-fuzz`
//! against the `dizy` binary under test, and a check that the fuzzer's oracle does catch a lying
//! dizy.
//!
//! Takes the two binaries cargo builds for the tests; gives pass/fail on the summary line
//! `N pairs: U unsound, W false witnesses, C crashes, T timeouts` (all four must be 0). The long
//! run (10,000+ pairs, release build) is `scripts/fuzz-soundness`, documented in the README.

use std::process::Command;

/// Pairs in the suite's run: the debug build of dizy takes about 0.5–1 s per pair on 2 cores, so
/// this is a few minutes of CI. Seed 7's 300 pairs include every mutation kind.
const PAIRS: &str = "300";

fn fuzz(args: &[&str], dizy: &std::path::Path) -> (i32, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_dizy-fuzz"))
        .args(args)
        .arg("--dizy")
        .arg(dizy)
        .args(["--no-save", "--jobs", "2"])
        .output()
        .expect("run dizy-fuzz");
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    (o.status.code().unwrap_or(-1), out)
}

#[test]
fn fixed_seed_run_finds_no_soundness_failure() {
    let dizy = std::path::Path::new(env!("CARGO_BIN_EXE_dizy"));
    let (code, out) = fuzz(
        &[
            "--pairs",
            PAIRS,
            "--seed",
            "7",
            "--timeout",
            "3",
            "--determinism-every",
            "10",
        ],
        dizy,
    );
    let last = out.lines().last().unwrap_or("");
    assert_eq!(
        last,
        format!("{PAIRS} pairs: 0 unsound, 0 false witnesses, 0 crashes, 0 timeouts"),
        "dizy-fuzz output:\n{out}"
    );
    assert!(
        out.contains("nondeterministic pairs: 0, oracle errors: 0"),
        "{out}"
    );
    assert_eq!(code, 0, "{out}");
}

/// The oracle is independent of dizy: a "dizy" that calls every pair equivalent, or gives a
/// made-up witness, must be caught.
#[test]
fn oracle_catches_a_lying_dizy() {
    let tmp = tempfile::tempdir().unwrap();
    let liar = |name: &str, verdict: &str, witness: &str| {
        let path = tmp.path().join(name);
        let report = format!(
            r#"{{"schema":"dizy-report/1","functions":[{{"name":"f","verdict":"{verdict}","diff_points":[],"witness":{witness},"notes":[]}}]}}"#
        );
        std::fs::write(&path, format!("#!/bin/sh\ncat <<'EOF'\n{report}\nEOF\n")).unwrap();
        let mut perm = std::fs::metadata(&path).unwrap().permissions();
        std::os::unix::fs::PermissionsExt::set_mode(&mut perm, 0o755);
        std::fs::set_permissions(&path, perm).unwrap();
        path
    };
    let always_eq = liar("always-equivalent", "equivalent", "null");
    let (code, out) = fuzz(
        &["--pairs", "12", "--seed", "3", "--determinism-every", "0"],
        &always_eq,
    );
    let last = out.lines().last().unwrap_or("");
    assert!(
        last.starts_with("12 pairs: ") && !last.starts_with("12 pairs: 0 unsound"),
        "{out}"
    );
    assert_eq!(code, 1, "{out}");

    // A witness claiming results no generated `f` gives on all-zero inputs: refuted natively
    // (either both versions agree there, or they differ but not as claimed).
    let w = r#"{"inputs":{"a":"0","b":"0","c":"0"},"old":{"return":"123456"},"new":{"return":"654321"}}"#;
    let fake_witness = liar("fake-witness", "different", w);
    let (code, out) = fuzz(
        &["--pairs", "6", "--seed", "3", "--determinism-every", "0"],
        &fake_witness,
    );
    let last = out.lines().last().unwrap_or("");
    assert_eq!(
        last, "6 pairs: 0 unsound, 6 false witnesses, 0 crashes, 0 timeouts",
        "{out}"
    );
    assert_eq!(code, 1, "{out}");
}
