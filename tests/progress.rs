//! Progress on stderr (issue 19, item 3): a bar and one summary line when stderr is a terminal,
//! nothing when it is not or with `--quiet`.
//!
//! Oracle: a real pseudo-terminal from util-linux's `script` (Debian's essential `bsdutils`),
//! and the JSON report on stdout, whose verdicts the summary line must count.

mod common;

use std::path::Path;
use std::process::Command;
use std::time::Duration;

fn dizy() -> &'static str {
    env!("CARGO_BIN_EXE_dizy")
}

/// Run `args` with dizy's stdout in `json` and its stderr on a pseudo-terminal; what the
/// terminal showed (carriage returns as line ends).
fn on_terminal(dir: &Path, args: &str, json: &Path) -> String {
    let cmd = format!("'{}' {args} > '{}'", dizy(), json.display());
    let mut c = Command::new("script");
    c.current_dir(dir).args(["-qec", &cmd, "/dev/null"]);
    let out = common::run_with_timeout(&mut c, None, Duration::from_secs(120));
    assert!(!out.timed_out, "script timed out");
    out.stdout.replace('\r', "\n")
}

fn write(dir: &Path, name: &str, text: &str) {
    std::fs::write(dir.join(name), text).expect("write");
}

fn verdict_counts(json: &Path) -> Vec<(String, usize)> {
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(json).expect("json")).expect("parse");
    let mut counts = std::collections::BTreeMap::new();
    let files: Vec<&serde_json::Value> = match r["files"].as_array() {
        Some(fs) => fs.iter().map(|f| &f["report"]).collect(),
        None => vec![&r],
    };
    for rep in files {
        for f in rep["functions"].as_array().expect("functions") {
            *counts
                .entry(f["verdict"].as_str().expect("verdict").to_string())
                .or_insert(0) += 1;
        }
    }
    counts.into_iter().collect()
}

#[test]
fn a_terminal_gets_a_bar_and_a_summary_line_others_nothing() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = tmp.path();
    write(dir, "old.c", "int f(int x) { return x + 1; }\nint g(int x) { return x; }\nint h(int x) { return 2 * x; }\n");
    write(dir, "new.c", "int f(int x) { return x + 2; }\nint g(int x) { return x; }\nint h(int x) { return x + x; }\n");
    let json = dir.join("out.json");
    let shown = on_terminal(dir, "diff old.c new.c --format json", &json);
    let summary: Vec<&str> = shown.lines().filter(|l| l.contains("dizy: ")).collect();
    assert_eq!(summary.len(), 1, "{shown}");
    let want: Vec<String> = verdict_counts(&json)
        .iter()
        .map(|(v, n)| format!("{n} {v}"))
        .collect();
    assert!(
        summary[0].contains("3 function(s) in 1 file(s)") && summary[0].ends_with(&want.join(", ")),
        "{}: want {want:?}",
        summary[0]
    );
    assert!(shown.contains("functions"), "no bar drawn: {shown}");
    // --quiet: nothing on the terminal.
    let quiet = on_terminal(dir, "diff -q old.c new.c --format json", &json);
    assert!(
        !quiet.contains("dizy: ") && !quiet.contains("functions"),
        "{quiet}"
    );
    // Not a terminal: stderr stays empty.
    let mut c = Command::new(dizy());
    c.current_dir(dir)
        .args(["diff", "old.c", "new.c", "--format", "json"]);
    let out = common::run_with_timeout(&mut c, None, Duration::from_secs(120));
    assert_eq!(out.stderr, "", "stderr without a terminal");
    assert_eq!(out.code(), Some(1));
}

#[test]
fn a_git_range_counts_every_file() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = tmp.path();
    common::git(dir, &["init", "-q"]);
    write(dir, "a.c", "int f(int x) { return x; }\n");
    write(
        dir,
        "b.c",
        "int g(int x) { return x * 2; }\nint k(int x) { return x; }\n",
    );
    common::git(dir, &["add", "."]);
    common::git(dir, &["commit", "-qm", "one"]);
    write(dir, "a.c", "int f(int x) { return x + 0; }\n");
    write(
        dir,
        "b.c",
        "int g(int x) { return x + x; }\nint k(int x) { return -x; }\n",
    );
    common::git(dir, &["commit", "-qam", "two"]);
    let json = dir.join("out.json");
    let shown = on_terminal(dir, "diff --git HEAD~1 HEAD --format json", &json);
    let summary: Vec<&str> = shown.lines().filter(|l| l.contains("dizy: ")).collect();
    assert_eq!(summary.len(), 1, "{shown}");
    let n: usize = verdict_counts(&json).iter().map(|(_, n)| n).sum();
    assert!(
        summary[0].contains(&format!("{n} function(s) in 2 file(s)")),
        "{}",
        summary[0]
    );
}
