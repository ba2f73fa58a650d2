//! `--jobs`: functions analysed in worker processes give the report of one process, and a
//! worker that fails costs its functions' verdicts (an `error` saying why), never the run.
//!
//! The oracle is dizy itself with `--jobs 1` (everything in one process, one function after
//! the other): the reports must be equal but for the times.

use std::path::{Path, PathBuf};
use std::process::Command;

mod common;

use dizy::diff::workers::Workers;
use dizy::diff::{diff_files, DiffOptions, Report, Verdict};

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/workers")
        .join(name)
}

fn files() -> (PathBuf, PathBuf) {
    (fixture("old.c"), fixture("new.c"))
}

/// The JSON report without its times.
fn timeless(mut v: serde_json::Value) -> serde_json::Value {
    common::strip_times(&mut v);
    v
}

fn cli(jobs: &str) -> (Option<i32>, serde_json::Value) {
    let (old, new) = files();
    let out = Command::new(env!("CARGO_BIN_EXE_dizy"))
        .args([
            "diff",
            "--format",
            "json",
            "--timeout",
            "60",
            "--jobs",
            jobs,
        ])
        .args([&old, &new])
        .output()
        .expect("run dizy");
    let v = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "--jobs {jobs}: {e}\n{}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (out.status.code(), timeless(v))
}

fn options(workers: Option<Workers>) -> DiffOptions {
    DiffOptions {
        workers,
        ..DiffOptions::default()
    }
}

fn verdicts(r: &Report) -> Vec<(String, Verdict)> {
    r.functions
        .iter()
        .map(|f| (f.name.clone(), f.verdict))
        .collect()
}

#[test]
fn workers_give_the_report_of_one_process() {
    let (code1, one) = cli("1");
    let (code3, three) = cli("3");
    assert_eq!(code1, Some(1));
    assert_eq!(code3, code1);
    assert_eq!(three, one, "--jobs 3 against --jobs 1");
    // The fixture covers what a worker answers: proofs, a witness, and what stays local.
    let verdict = |name: &str| {
        one["functions"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["name"] == name)
            .map(|f| f["verdict"].as_str().unwrap().to_string())
    };
    assert_eq!(verdict("twice").as_deref(), Some("equivalent"));
    assert_eq!(verdict("sum_to").as_deref(), Some("equivalent"));
    assert_eq!(verdict("uses_helper").as_deref(), Some("different"));
    assert_eq!(verdict("added_now").as_deref(), Some("added"));

    // Through the library: the same report, and workers really ran (one per job at most).
    let (old, new) = files();
    let local = diff_files(&old, &new, &options(None)).unwrap();
    let w = Workers::new(env!("CARGO_BIN_EXE_dizy"), 2);
    let pooled = diff_files(&old, &new, &options(Some(w.clone()))).unwrap();
    assert_eq!(verdicts(&pooled), verdicts(&local));
    let json = |r: &Report| timeless(serde_json::to_value(r).unwrap());
    assert_eq!(json(&pooled), json(&local));
    assert!(
        (1..=2).contains(&w.started()),
        "{} workers started",
        w.started()
    );
}

/// A worker that cannot start or ends without answering: the functions it had get `error`
/// with the reason, the functions decided without the analysis keep their verdicts.
#[test]
fn a_failing_worker_costs_its_functions_only() {
    let (old, new) = files();
    let local = diff_files(&old, &new, &options(None)).unwrap();
    for (exe, why) in [
        (Path::new("/bin/false"), "ended without an answer"),
        (
            Path::new("/nonexistent/dizy"),
            "could not start a worker process",
        ),
    ] {
        let w = Workers::new(exe, 2);
        let r = diff_files(&old, &new, &options(Some(w))).unwrap();
        assert_eq!(r.functions.len(), local.functions.len());
        for (f, l) in r.functions.iter().zip(&local.functions) {
            assert_eq!(f.name, l.name);
            match l.verdict {
                Verdict::Unchanged | Verdict::Added | Verdict::Removed => {
                    assert_eq!(f.verdict, l.verdict, "{}", f.name)
                }
                _ => {
                    assert_eq!(f.verdict, Verdict::Error, "{}", f.name);
                    let e = f.error.as_deref().unwrap_or_default();
                    assert!(e.contains(why), "{}: {e}", f.name);
                }
            }
        }
        assert_eq!(r.exit_code(), 1, "added and removed functions still count");
    }
}
