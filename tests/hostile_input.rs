//! Hostile and malformed input through the `dizy` binary never panics, hangs or crashes.
//!
//! Oracle: the CLI contract (DESIGN §9). Bad input (empty, truncated or binary files, a missing
//! path, a directory, syntax errors, a missing function, wrong argument counts, undefined behaviour
//! at run time, an exhausted step budget) exits with status 2 and a non-empty message on stderr that
//! never contains "panicked"; syntax errors are reported as `file:LINE: message` with the right line.
//! Pathologically deep nesting (10,000 levels of parentheses, blocks, ifs) must not crash the
//! process: either it is rejected like bad input (exit 2 with a message) or handled correctly.
//! Every call runs under a deadline and is killed on overrun, so a hang fails the test. Positive
//! checks: `dizy run` prints the right return value (negative arguments with and without `--`),
//! and `dizy gcl` on the paper's `sign` example (tests/fixtures/sign_{old,new}.c) prints guarded
//! instructions with condition guards (`g1`, `g2`) and the return flag (`ret`).
//!
//! `dizy diff` on hostile pairs (inputs generated at run time in a temp dir): malformed,
//! truncated and 10,000-deep files, non-UTF-8 bytes (rejected at their line), a 50 MB file, a
//! macro bomb, missing, unreadable and special files (directory, FIFO, /dev/zero) exit 2 with a
//! message naming the file (and line); identical and empty files get the right verdicts
//! (unchanged/equivalent, added/removed); a 100,000-line function and 10,000 variables end with a
//! verdict or a resource-limit message. Wall time is bounded by `--timeout` plus generous slack
//! (a hang fails), and the peak resident size of the big cases, sampled from /proc while they
//! run, must stay within `--max-memory` plus slack.

mod common;

use common::{run_with_timeout, Outcome, Rng};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

const DEADLINE: Duration = Duration::from_secs(30);

fn dizy<I, S>(args: I) -> Outcome
where
    I: IntoIterator<Item = S>,
    S: Into<OsString>,
{
    dizy_with_deadline(args, DEADLINE)
}

fn dizy_with_deadline<I, S>(args: I, deadline: Duration) -> Outcome
where
    I: IntoIterator<Item = S>,
    S: Into<OsString>,
{
    let args: Vec<OsString> = args.into_iter().map(Into::into).collect();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_dizy"));
    cmd.args(&args);
    let out = run_with_timeout(&mut cmd, None, deadline);
    assert!(
        !out.timed_out,
        "dizy {args:?} did not finish within {deadline:?} (killed)\nstderr: {}",
        out.stderr
    );
    out
}

fn describe(args: &str, out: &Outcome) -> String {
    format!(
        "dizy {args}\n  status: {:?}\n  stdout: {}\n  stderr: {}",
        out.status,
        out.stdout.trim_end(),
        out.stderr.trim_end()
    )
}

/// Exit status 2, a message on stderr, no panic anywhere.
#[track_caller]
fn assert_rejected(what: &str, out: &Outcome) {
    assert!(
        !out.stderr.contains("panicked"),
        "{what}: panic\n{}",
        describe(what, out)
    );
    assert!(
        !out.stdout.contains("panicked"),
        "{what}: panic\n{}",
        describe(what, out)
    );
    assert_eq!(
        out.code(),
        Some(2),
        "{what}: expected exit status 2\n{}",
        describe(what, out)
    );
    assert!(
        !out.stderr.trim().is_empty(),
        "{what}: no message on stderr\n{}",
        describe(what, out)
    );
}

fn write(dir: &Path, name: &str, contents: impl AsRef<[u8]>) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, contents).unwrap();
    p
}

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

/// Both `dizy gcl FILE --function f` and `dizy run FILE --function f -- 1` must reject `file`.
#[track_caller]
fn assert_both_reject(what: &str, file: &Path) {
    let out = dizy([
        OsString::from("gcl"),
        file.into(),
        "--function".into(),
        "f".into(),
    ]);
    assert_rejected(&format!("gcl {what}"), &out);
    let out = dizy([
        OsString::from("run"),
        file.into(),
        "--function".into(),
        "f".into(),
        "--".into(),
        "1".into(),
    ]);
    assert_rejected(&format!("run {what}"), &out);
}

#[test]
fn empty_file() {
    let tmp = tempfile::tempdir().unwrap();
    let f = write(tmp.path(), "empty.c", "");
    assert_both_reject("empty file", &f);
    let out = dizy([OsString::from("gcl"), f.clone().into()]);
    assert_rejected("gcl empty file without --function", &out);
}

#[test]
fn truncated_file() {
    let tmp = tempfile::tempdir().unwrap();
    let f = write(
        tmp.path(),
        "truncated.c",
        "int f(int x)\n{\n    int y = x + 1;\n    if (y > 3) {\n        return y;\n    }\n    while (y",
    );
    assert_both_reject("truncated file", &f);
}

#[test]
fn binary_garbage() {
    let tmp = tempfile::tempdir().unwrap();
    let mut rng = Rng::new(7);
    for round in 0..3 {
        let mut bytes: Vec<u8> = (0..4096).map(|_| rng.next() as u8).collect();
        bytes[0] = 0;
        bytes[1] = 0xff;
        bytes[2] = 0xfe;
        bytes[100] = 0;
        bytes.extend_from_slice(b"\xc3\x28\x00int f(int x) { return x; }\x80");
        let f = write(tmp.path(), &format!("garbage{round}.c"), &bytes);
        assert_both_reject(&format!("binary garbage #{round}"), &f);
    }
}

#[test]
fn nonexistent_path() {
    let tmp = tempfile::tempdir().unwrap();
    let f = tmp.path().join("no_such_file.c");
    for sub in ["gcl", "run"] {
        let out = dizy([
            OsString::from(sub),
            f.clone().into(),
            "--function".into(),
            "f".into(),
        ]);
        assert_rejected(&format!("{sub} nonexistent file"), &out);
        assert!(
            out.stderr.contains("no_such_file.c"),
            "{sub}: message does not name the missing file\n{}",
            describe(sub, &out)
        );
    }
}

#[test]
fn directory_as_file() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path().join("adir.c");
    std::fs::create_dir(&d).unwrap();
    assert_both_reject("directory", &d);
}

#[test]
fn syntax_error_reports_file_and_line() {
    let tmp = tempfile::tempdir().unwrap();
    // The error is on line 6 (after a comment and blank lines, so the line is not guessable
    // from the start of the function).
    let f = write(
        tmp.path(),
        "syntax.c",
        "/* header comment */\n\nint f(int x)\n{\n    int y = x * 2;\n    y = y + ;\n    return y;\n}\n",
    );
    for sub in ["gcl", "run"] {
        let mut args: Vec<OsString> = vec![
            sub.into(),
            f.clone().into(),
            "--function".into(),
            "f".into(),
        ];
        if sub == "run" {
            args.extend(["--".into(), "3".into()]);
        }
        let out = dizy(args);
        assert_rejected(&format!("{sub} syntax error"), &out);
        assert!(
            out.stderr.contains("syntax.c:6:"),
            "{sub}: message should contain `syntax.c:6:`\n{}",
            describe(sub, &out)
        );
    }
    // Also through an #include'd system header: the line must be the one in the user's file.
    let g = write(
        tmp.path(),
        "syntax2.c",
        "#include <stdlib.h>\n#include <limits.h>\n\nint g(int x)\n{\n    return x;\n}\n\nint f(int x)\n{\n    return x +* 2 ) ;\n}\n",
    );
    let out = dizy([
        OsString::from("gcl"),
        g.into(),
        "--function".into(),
        "f".into(),
    ]);
    assert_rejected("gcl syntax error after includes", &out);
    assert!(
        out.stderr.contains("syntax2.c:11:"),
        "message should contain `syntax2.c:11:`\n{}",
        describe("gcl", &out)
    );
}

/// Deep nesting: rejected cleanly (exit 2 with a message) or handled (exit 0 and, for `run`, the
/// right value). Never a crash (stack overflow aborts with a signal), panic or hang.
#[track_caller]
fn assert_deep_ok(what: &str, file: &Path, arg: &str, expected: &str) {
    let out = dizy([
        OsString::from("gcl"),
        file.into(),
        "--function".into(),
        "f".into(),
    ]);
    let w = format!("gcl {what}");
    assert!(
        !out.stderr.contains("panicked"),
        "{w}: panic\n{}",
        describe(&w, &out)
    );
    match out.code() {
        Some(0) => {}
        Some(2) => assert!(
            !out.stderr.trim().is_empty(),
            "{w}: no message\n{}",
            describe(&w, &out)
        ),
        _ => panic!("{w}: crashed or unexpected status\n{}", describe(&w, &out)),
    }
    let out = dizy([
        OsString::from("run"),
        file.into(),
        "--function".into(),
        "f".into(),
        "--".into(),
        arg.into(),
    ]);
    let w = format!("run {what}");
    assert!(
        !out.stderr.contains("panicked"),
        "{w}: panic\n{}",
        describe(&w, &out)
    );
    match out.code() {
        Some(0) => assert_eq!(
            out.stdout.lines().next().map(str::trim),
            Some(expected),
            "{w}: wrong value\n{}",
            describe(&w, &out)
        ),
        Some(2) => assert!(
            !out.stderr.trim().is_empty(),
            "{w}: no message\n{}",
            describe(&w, &out)
        ),
        _ => panic!("{w}: crashed or unexpected status\n{}", describe(&w, &out)),
    }
}

const DEPTH: usize = 10_000;

#[test]
fn deeply_nested_parentheses() {
    let tmp = tempfile::tempdir().unwrap();
    let src = format!(
        "int f(int x)\n{{\n    return {}x + 1{};\n}}\n",
        "(".repeat(DEPTH),
        ")".repeat(DEPTH)
    );
    let f = write(tmp.path(), "parens.c", src);
    assert_deep_ok("10,000 nested parentheses", &f, "41", "42");
}

#[test]
fn deeply_nested_blocks() {
    let tmp = tempfile::tempdir().unwrap();
    let src = format!(
        "int f(int x)\n{{\n    {} x = x + 1; {}\n    return x;\n}}\n",
        "{".repeat(DEPTH),
        "}".repeat(DEPTH)
    );
    let f = write(tmp.path(), "blocks.c", src);
    assert_deep_ok("10,000 nested blocks", &f, "41", "42");
}

#[test]
fn deeply_nested_ifs() {
    let tmp = tempfile::tempdir().unwrap();
    let src = format!(
        "int f(int x)\n{{\n    {} x = x + 1;\n    return x;\n}}\n",
        "if (x > 0) ".repeat(DEPTH)
    );
    let f = write(tmp.path(), "ifs.c", src);
    assert_deep_ok("10,000 nested ifs", &f, "41", "42");
}

fn small_file(dir: &Path) -> PathBuf {
    write(
        dir,
        "small.c",
        "int f(int a, int b)\n{\n    return a * 10 + b;\n}\n",
    )
}

#[test]
fn missing_function() {
    let tmp = tempfile::tempdir().unwrap();
    let f = small_file(tmp.path());
    let out = dizy([
        OsString::from("gcl"),
        f.clone().into(),
        "--function".into(),
        "nope".into(),
    ]);
    assert_rejected("gcl --function nope", &out);
    let out = dizy([
        OsString::from("run"),
        f.into(),
        "--function".into(),
        "nope".into(),
        "--".into(),
        "1".into(),
        "2".into(),
    ]);
    assert_rejected("run --function nope", &out);
}

#[test]
fn wrong_arguments() {
    let tmp = tempfile::tempdir().unwrap();
    let f = small_file(tmp.path());
    for args in [
        &["1"][..],
        &["1", "2", "3"][..],
        &[][..],
        &["1", "abc"][..],
        &["1", "2.5.5"][..],
    ] {
        let mut a: Vec<OsString> = vec![
            "run".into(),
            f.clone().into(),
            "--function".into(),
            "f".into(),
            "--".into(),
        ];
        a.extend(args.iter().map(OsString::from));
        let out = dizy(a);
        assert_rejected(&format!("run f with arguments {args:?}"), &out);
    }
}

#[test]
fn division_by_zero_is_reported() {
    let tmp = tempfile::tempdir().unwrap();
    let f = write(
        tmp.path(),
        "div.c",
        "int f(int x)\n{\n    int y = x - 3;\n    return 100 / y;\n}\n",
    );
    let ok = dizy([
        OsString::from("run"),
        f.clone().into(),
        "--function".into(),
        "f".into(),
        "--".into(),
        "8".into(),
    ]);
    assert_eq!(ok.code(), Some(0), "{}", describe("run div.c 8", &ok));
    assert_eq!(
        ok.stdout.lines().next().map(str::trim),
        Some("20"),
        "{}",
        describe("run div.c 8", &ok)
    );
    let out = dizy([
        OsString::from("run"),
        f.into(),
        "--function".into(),
        "f".into(),
        "--".into(),
        "3".into(),
    ]);
    assert_rejected("run div.c 3 (division by zero)", &out);
    let msg = out.stderr.to_lowercase();
    assert!(
        msg.contains("undefined")
            || msg.contains("division")
            || msg.contains("divide")
            || msg.contains("by zero"),
        "message should mention undefined behaviour or division\n{}",
        describe("run div.c 3", &out)
    );
}

/// The name of a step-budget option of `dizy run`, if its help mentions one.
fn budget_flag() -> Option<&'static str> {
    let help = dizy(["run", "--help"]);
    let text = format!("{}{}", help.stdout, help.stderr);
    [
        "--max-steps",
        "--budget",
        "--steps",
        "--step-limit",
        "--fuel",
    ]
    .into_iter()
    .find(|f| text.contains(f))
}

#[test]
fn infinite_loop_exhausts_budget() {
    let tmp = tempfile::tempdir().unwrap();
    let f = write(
        tmp.path(),
        "spin.c",
        "int f(int x)\n{\n    int y = 0;\n    while (x == x) {\n        y = (y + 1) & 7;\n    }\n    return y;\n}\n",
    );
    let mut args: Vec<OsString> = vec![
        "run".into(),
        f.clone().into(),
        "--function".into(),
        "f".into(),
    ];
    if let Some(flag) = budget_flag() {
        args.extend([flag.into(), "100000".into()]);
    }
    args.extend(["--".into(), "5".into()]);
    let out = dizy_with_deadline(args.clone(), Duration::from_secs(20));
    assert_rejected("run infinite loop", &out);
    let msg = out.stderr.to_lowercase();
    assert!(
        msg.contains("budget") || msg.contains("step") || msg.contains("limit"),
        "message should say the step budget was exhausted\n{}",
        describe("run spin.c", &out)
    );
    // Without the flag too: the default budget must also end the run.
    let out = dizy_with_deadline(
        [
            OsString::from("run"),
            f.into(),
            "--function".into(),
            "f".into(),
            "--".into(),
            "5".into(),
        ],
        Duration::from_secs(60),
    );
    assert_rejected("run infinite loop, default budget", &out);
}

#[test]
fn run_prints_value_with_negative_arguments() {
    let tmp = tempfile::tempdir().unwrap();
    let f = small_file(tmp.path());
    for args in [&["--", "-5", "3"][..], &["-5", "3"][..]] {
        let mut a: Vec<OsString> = vec![
            "run".into(),
            f.clone().into(),
            "--function".into(),
            "f".into(),
        ];
        a.extend(args.iter().map(OsString::from));
        let out = dizy(a);
        let w = format!("run small.c {args:?}");
        assert_eq!(out.code(), Some(0), "{}", describe(&w, &out));
        assert_eq!(
            out.stdout.lines().next().map(str::trim),
            Some("-47"),
            "{}",
            describe(&w, &out)
        );
        assert!(!out.stderr.contains("panicked"), "{}", describe(&w, &out));
    }
}

#[test]
fn run_sign_fixtures() {
    for (file, arg, want) in [
        ("sign_old.c", "-7", "-1"),
        ("sign_old.c", "0", "1"),
        ("sign_old.c", "9", "1"),
        ("sign_new.c", "-7", "-1"),
        ("sign_new.c", "0", "0"),
        ("sign_new.c", "9", "1"),
    ] {
        let out = dizy([
            OsString::from("run"),
            fixture(file).into(),
            "--function".into(),
            "sign".into(),
            "--".into(),
            arg.into(),
        ]);
        let w = format!("run {file} {arg}");
        assert_eq!(out.code(), Some(0), "{}", describe(&w, &out));
        assert_eq!(
            out.stdout.lines().next().map(str::trim),
            Some(want),
            "{}",
            describe(&w, &out)
        );
    }
}

/// Whether `text` contains `word` as a whole identifier (not as part of `g10` or `retval`).
fn has_ident(text: &str, word: &str) -> bool {
    text.match_indices(word).any(|(i, _)| {
        let before = text[..i].chars().next_back();
        let after = text[i + word.len()..].chars().next();
        let is_id = |c: Option<char>| c.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_');
        !is_id(before) && !is_id(after)
    })
}

#[test]
fn gcl_of_sign_example() {
    for (file, guards) in [
        ("sign_old.c", &["g1"][..]),
        ("sign_new.c", &["g1", "g2"][..]),
    ] {
        for with_function in [false, true] {
            let mut a: Vec<OsString> = vec!["gcl".into(), fixture(file).into()];
            if with_function {
                a.extend(["--function".into(), "sign".into()]);
            }
            let out = dizy(a);
            let w = format!("gcl {file} (--function: {with_function})");
            assert_eq!(out.code(), Some(0), "{}", describe(&w, &out));
            for g in guards {
                assert!(
                    has_ident(&out.stdout, g),
                    "{w}: no guard `{g}` in output\n{}",
                    out.stdout
                );
            }
            assert!(
                has_ident(&out.stdout, "ret"),
                "{w}: no return flag `ret` in output\n{}",
                out.stdout
            );
            assert!(
                out.stdout.contains("sgn"),
                "{w}: variable names should be kept\n{}",
                out.stdout
            );
        }
    }
}

// ---------------------------------------------------------------------------------------------
// `dizy diff` on hostile input: big files, huge functions, macro bombs, odd paths. Each case
// ends with exit status 2 and a message naming the file (or with a correct verdict) within the
// time bound, and the biggest ones within `--max-memory` (peak resident size measured from
// /proc while the child runs).

/// Slack on top of `--timeout` for the wall-time bounds: CI has 2 cores and runs a debug build
/// with other tests in parallel, so only gross overruns (hangs) are caught.
const TIME_SLACK: Duration = Duration::from_secs(90);

/// An outcome and the peak resident size of the child in MiB (`None` where /proc is missing);
/// `tree_peak_mb` is the largest sum of the resident sizes of the child and all its descendants
/// (the preprocessor, the compiler), sampled every 20 ms.
struct Measured {
    out: Outcome,
    peak_mb: Option<u64>,
    tree_peak_mb: Option<u64>,
}

/// Resident size (`VmRSS`) of `pid` plus all its descendants, in KiB: the parent of every
/// process is read from `/proc/*/stat`.
fn tree_rss_kib(root: u32) -> Option<u64> {
    let mut parent: Vec<(u32, u32)> = vec![];
    for e in std::fs::read_dir("/proc").ok()?.flatten() {
        let Some(pid) = e.file_name().to_str().and_then(|n| n.parse::<u32>().ok()) else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        // `pid (comm) state ppid …`; comm may contain spaces and parentheses.
        let after = stat.rfind(')').map_or("", |i| &stat[i + 1..]);
        if let Some(ppid) = after.split_whitespace().nth(1).and_then(|p| p.parse().ok()) {
            parent.push((pid, ppid));
        }
    }
    let mut tree = vec![root];
    let mut grew = true;
    while grew {
        grew = false;
        for &(pid, ppid) in &parent {
            if tree.contains(&ppid) && !tree.contains(&pid) {
                tree.push(pid);
                grew = true;
            }
        }
    }
    let mut kib = 0;
    for pid in tree {
        let Ok(status) = std::fs::read_to_string(format!("/proc/{pid}/status")) else {
            continue;
        };
        if let Some(l) = status.lines().find(|l| l.starts_with("VmRSS:")) {
            kib += l
                .split_whitespace()
                .nth(1)
                .and_then(|k| k.parse::<u64>().ok())
                .unwrap_or(0);
        }
    }
    Some(kib)
}

/// Peak resident size so far (`VmHWM`) of process `pid`, in MiB.
fn vm_hwm_mb(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib / 1024)
}

/// Run dizy with `args`, killing it after `deadline`, and sample its peak resident size. Output
/// goes to files so that nothing but this loop needs to run while the child does.
fn dizy_measured(args: &[OsString], deadline: Duration) -> Measured {
    use std::process::Stdio;
    let tmp = tempfile::tempdir().unwrap();
    let (out_path, err_path) = (tmp.path().join("stdout"), tmp.path().join("stderr"));
    let start = std::time::Instant::now();
    let mut child = Command::new(env!("CARGO_BIN_EXE_dizy"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&out_path).unwrap())
        .stderr(std::fs::File::create(&err_path).unwrap())
        .spawn()
        .expect("spawn dizy");
    let mut peak: Option<u64> = None;
    let mut tree_peak: Option<u64> = None;
    let mut tree_sampled: Option<std::time::Instant> = None;
    let mut timed_out = false;
    let status = loop {
        // Sample before checking for exit: VmHWM is a high-water mark, so the last sample taken
        // while the process is alive covers everything up to then.
        if let Some(mb) = vm_hwm_mb(child.id()) {
            peak = Some(peak.map_or(mb, |p| p.max(mb)));
        }
        if tree_sampled.is_none_or(|t| t.elapsed() >= Duration::from_millis(20)) {
            tree_sampled = Some(std::time::Instant::now());
            if let Some(kib) = tree_rss_kib(child.id()) {
                tree_peak = Some(tree_peak.map_or(kib / 1024, |p| p.max(kib / 1024)));
            }
        }
        if let Some(st) = child.try_wait().unwrap() {
            break Some(st);
        }
        if start.elapsed() > deadline {
            timed_out = true;
            let _ = child.kill();
            break child.wait().ok();
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let out = Outcome {
        status,
        stdout: String::from_utf8_lossy(&std::fs::read(&out_path).unwrap_or_default()).into_owned(),
        stderr: String::from_utf8_lossy(&std::fs::read(&err_path).unwrap_or_default()).into_owned(),
        timed_out,
        elapsed: start.elapsed(),
    };
    assert!(
        !out.timed_out,
        "dizy {args:?} did not finish within {deadline:?} (killed)\nstderr: {}",
        out.stderr
    );
    Measured {
        out,
        peak_mb: peak,
        tree_peak_mb: tree_peak,
    }
}

/// `dizy diff OLD NEW --format json EXTRA…`
fn diff_args(old: &Path, new: &Path, extra: &[&str]) -> Vec<OsString> {
    let mut a: Vec<OsString> = vec![
        "diff".into(),
        old.into(),
        new.into(),
        "--format".into(),
        "json".into(),
    ];
    a.extend(extra.iter().map(OsString::from));
    a
}

/// `dizy diff` gave up with status 2 and a message naming `file` (and `file:line` if given),
/// either for the whole run (stderr) or for the function (the report).
#[track_caller]
fn assert_diff_rejects(what: &str, out: &Outcome, file: &str, line: Option<u32>) {
    assert!(
        !out.stderr.contains("panicked"),
        "{what}: panic\n{}",
        describe(what, out)
    );
    assert_eq!(
        out.code(),
        Some(2),
        "{what}: expected exit status 2\n{}",
        describe(what, out)
    );
    let want = match line {
        Some(l) => format!("{file}:{l}:"),
        None => file.to_string(),
    };
    assert!(
        out.stderr.contains(&want) || out.stdout.contains(&want),
        "{what}: message should name `{want}`\n{}",
        describe(what, out)
    );
}

/// The verdict of function `f` in a `--format json` report.
fn verdict_of(stdout: &str, f: &str) -> Option<String> {
    let report: serde_json::Value = serde_json::from_str(stdout).ok()?;
    report["functions"]
        .as_array()?
        .iter()
        .find(|x| x["name"] == f)?["verdict"]
        .as_str()
        .map(str::to_string)
}

const SMALL: &str = "int f(int x)\n{\n    return x + 1;\n}\n";

#[test]
fn diff_identical_and_empty_files() {
    let tmp = tempfile::tempdir().unwrap();
    let a = write(tmp.path(), "a.c", SMALL);
    let b = write(tmp.path(), "b.c", SMALL);
    let empty = write(tmp.path(), "empty.c", "");
    // Identical files: nothing changed; asked for explicitly, the function is proved equivalent.
    let out = dizy(diff_args(&a, &b, &[]));
    assert_eq!(out.code(), Some(0), "{}", describe("diff a a", &out));
    assert_eq!(verdict_of(&out.stdout, "f").as_deref(), Some("unchanged"));
    let out = dizy(diff_args(&a, &a, &["--function", "f"]));
    assert_eq!(out.code(), Some(0), "{}", describe("diff a a -f f", &out));
    assert_eq!(verdict_of(&out.stdout, "f").as_deref(), Some("equivalent"));
    // One empty file: the function was added or removed (status 1, as diff(1)).
    let out = dizy(diff_args(&empty, &a, &[]));
    assert_eq!(out.code(), Some(1), "{}", describe("diff empty a", &out));
    assert_eq!(verdict_of(&out.stdout, "f").as_deref(), Some("added"));
    let out = dizy(diff_args(&a, &empty, &[]));
    assert_eq!(out.code(), Some(1), "{}", describe("diff a empty", &out));
    assert_eq!(verdict_of(&out.stdout, "f").as_deref(), Some("removed"));
    // Both empty: nothing to compare.
    let out = dizy(diff_args(&empty, &empty, &[]));
    assert_eq!(
        out.code(),
        Some(0),
        "{}",
        describe("diff empty empty", &out)
    );
    assert!(!out.stderr.contains("panicked"));
}

#[test]
fn diff_malformed_truncated_and_nested() {
    let tmp = tempfile::tempdir().unwrap();
    let a = write(tmp.path(), "a.c", SMALL);
    let syntax = write(
        tmp.path(),
        "syntax.c",
        "/* c */\n\nint f(int x)\n{\n    return x + ;\n}\n",
    );
    let truncated = write(
        tmp.path(),
        "trunc.c",
        "int f(int x)\n{\n    if (x > 1) {\n        return x;\n",
    );
    let parens = write(
        tmp.path(),
        "parens.c",
        format!(
            "int f(int x)\n{{\n    return {}x{};\n}}\n",
            "(".repeat(DEPTH),
            ")".repeat(DEPTH)
        ),
    );
    for (file, name, line) in [
        (&syntax, "syntax.c", Some(5)),
        (&truncated, "trunc.c", None),
        (&parens, "parens.c", Some(3)),
    ] {
        let out = dizy(diff_args(&a, file, &[]));
        assert_diff_rejects(&format!("diff a.c {name}"), &out, name, line);
        let out = dizy(diff_args(file, &a, &[]));
        assert_diff_rejects(&format!("diff {name} a.c"), &out, name, line);
    }
}

#[test]
fn diff_non_utf8_bytes() {
    let tmp = tempfile::tempdir().unwrap();
    let a = write(tmp.path(), "a.c", SMALL);
    // Invalid UTF-8 inside a comment disappears in preprocessing: an ordinary verdict.
    let comment = write(
        tmp.path(),
        "comment.c",
        b"int f(int x)\n{\n    /* caf\xe9 \xff */\n    return x + 1;\n}\n",
    );
    let out = dizy(diff_args(&a, &comment, &["--function", "f"]));
    assert_eq!(out.code(), Some(0), "{}", describe("diff a comment", &out));
    assert_eq!(verdict_of(&out.stdout, "f").as_deref(), Some("equivalent"));
    // In a string literal or an identifier it reaches the parser: rejected at its line.
    for (name, text) in [
        (
            "string.c",
            &b"int f(int x)\n{\n\n    const char *s = \"\xe9t\xe9\";\n    return x + 1;\n}\n"[..],
        ),
        (
            "ident.c",
            &b"int f(int x)\n{\n\n    int \xff\xfe = 3;\n    return x;\n}\n"[..],
        ),
    ] {
        let bad = write(tmp.path(), name, text);
        let out = dizy(diff_args(&a, &bad, &[]));
        assert_diff_rejects(&format!("diff a.c {name}"), &out, name, Some(4));
        assert!(out.stderr.contains("UTF-8"), "{}", describe(name, &out));
    }
}

#[test]
fn diff_unreadable_directory_and_special_files() {
    let tmp = tempfile::tempdir().unwrap();
    let a = write(tmp.path(), "a.c", SMALL);
    let dir = tmp.path().join("adir.c");
    std::fs::create_dir(&dir).unwrap();
    let missing = tmp.path().join("missing.c");
    for (p, name) in [(&dir, "adir.c"), (&missing, "missing.c")] {
        let out = dizy(diff_args(&a, p, &[]));
        assert_diff_rejects(&format!("diff a.c {name}"), &out, name, None);
        let out = dizy(diff_args(p, &a, &[]));
        assert_diff_rejects(&format!("diff {name} a.c"), &out, name, None);
    }
    // A named pipe with no writer would block a reader forever; a device never ends.
    let fifo = tmp.path().join("fifo.c");
    let made = Command::new("mkfifo").arg(&fifo).status();
    if made.is_ok_and(|s| s.success()) {
        let out = dizy(diff_args(&a, &fifo, &[]));
        assert_diff_rejects("diff a.c fifo.c", &out, "fifo.c", None);
    }
    let out = dizy(diff_args(&a, Path::new("/dev/zero"), &[]));
    assert_diff_rejects("diff a.c /dev/zero", &out, "/dev/zero", None);
    // Unreadable. Permissions do not bind root (CI runs as root), so there dizy runs as `nobody`.
    let locked = write(tmp.path(), "locked.c", SMALL);
    let set = Command::new("chmod").arg("000").arg(&locked).status();
    assert!(set.is_ok_and(|s| s.success()), "chmod 000 failed");
    if std::fs::File::open(&locked).is_err() {
        let out = dizy(diff_args(&a, &locked, &[]));
        assert_diff_rejects("diff a.c locked.c", &out, "locked.c", None);
    } else {
        let out = dizy_as_nobody(tmp.path(), diff_args(&a, &locked, &[]));
        assert_diff_rejects("diff a.c locked.c (as nobody)", &out, "locked.c", None);
        assert!(
            out.stderr.contains("ermission denied"),
            "the message should say why:\n{}",
            out.stderr
        );
    }
}

/// Run dizy as user `nobody` (for checks that permissions would not stop root). The binary is
/// copied into `dir` (made world-readable) since the build tree may sit under a private home.
fn dizy_as_nobody(dir: &Path, args: Vec<OsString>) -> Outcome {
    use std::os::unix::fs::PermissionsExt;
    let bin = dir.join("dizy-copy");
    std::fs::copy(env!("CARGO_BIN_EXE_dizy"), &bin).unwrap();
    std::fs::set_permissions(&bin, std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    let mut cmd = Command::new("setpriv");
    cmd.args(["--reuid=65534", "--regid=65534", "--clear-groups"])
        .arg(&bin)
        .args(&args);
    let out = run_with_timeout(&mut cmd, None, DEADLINE);
    assert!(!out.timed_out, "dizy as nobody did not finish (killed)");
    out
}

#[test]
fn diff_fifty_megabyte_file() {
    let tmp = tempfile::tempdir().unwrap();
    let a = write(tmp.path(), "a.c", SMALL);
    let line = "int g(int x) { return x + 1; } /* padding padding padding */\n";
    let big = write(
        tmp.path(),
        "big.c",
        line.repeat((50 << 20) / line.len() + 1),
    );
    let m = dizy_measured(
        &diff_args(&a, &big, &["--timeout", "10"]),
        Duration::from_secs(10) + TIME_SLACK,
    );
    assert_diff_rejects("diff a.c big.c (50 MB)", &m.out, "big.c", None);
}

/// A file under the size caps whose parse alone needs more memory than `--max-memory`: the
/// memory watchdog ends dizy with exit 2 and a message naming the file, instead of the kernel's
/// OOM killer. Its bound is `--max-memory` plus max(¼, 256 MiB), polled every 10 ms.
#[test]
fn diff_parse_memory_is_bounded() {
    let tmp = tempfile::tempdir().unwrap();
    let mut src = String::new();
    let mut i = 0;
    while src.len() < (2 << 20) {
        src.push_str(&format!(
            "int f{i}(int a, int b) {{ int x = a + {i}; if (x > b) x = x - b; else x = b * 2; return x; }}\n"
        ));
        i += 1;
    }
    let old = write(tmp.path(), "many_old.c", &src);
    src.push_str("int extra(int a) { return a; }\n");
    let new = write(tmp.path(), "many_new.c", src);
    let limit = 1;
    let m = dizy_measured(
        &diff_args(
            &old,
            &new,
            &["--timeout", "120", "--max-memory", &limit.to_string()],
        ),
        Duration::from_secs(120) + TIME_SLACK,
    );
    let what = "diff many_old.c many_new.c --max-memory 1 (2 MB of functions)";
    assert_diff_rejects(what, &m.out, "many_old.c", None);
    assert!(
        m.out.stderr.contains("out of memory"),
        "{}",
        describe(what, &m.out)
    );
    if let Some(peak) = m.peak_mb {
        // Hard limit 257 MiB; 10 ms of parsing between polls and sampling add little.
        assert!(
            peak <= 257 + 128,
            "{what}: peak {peak} MiB\n{}",
            describe(what, &m.out)
        );
    }
}

#[test]
fn diff_macro_bomb() {
    let tmp = tempfile::tempdir().unwrap();
    let a = write(tmp.path(), "a.c", SMALL);
    // Each level doubles the expansion: 2^40 tokens; `cc -E` would run for hours.
    let mut src = String::from("#define A0 x\n");
    for i in 1..=40 {
        src.push_str(&format!("#define A{i} (A{p} + A{p})\n", p = i - 1));
    }
    src.push_str("int f(int x)\n{\n    return A40;\n}\n");
    let bomb = write(tmp.path(), "bomb.c", src);
    let timeout = 5;
    let m = dizy_measured(
        &diff_args(&a, &bomb, &["--timeout", &timeout.to_string()]),
        Duration::from_secs(timeout) + TIME_SLACK,
    );
    assert_diff_rejects("diff a.c bomb.c", &m.out, "bomb.c", None);
    assert!(
        m.out.stderr.contains("preprocess"),
        "{}",
        describe("diff a.c bomb.c", &m.out)
    );
}

/// The macro bomb of 11 levels of 8-way fan-out (8^11 tokens), used directly (`cc -E` streams
/// its output and runs into the output cap or the memory limit) and as a macro argument (which
/// the preprocessor expands completely before it prints anything: without limits on the
/// preprocessor, `cc -E` grew to 17 GB in about a minute). Both end with status 2 and a message
/// naming the file; the processes dizy starts are bounded by `--max-memory`, so dizy and its
/// children together stay within it plus slack, and by `--timeout`.
#[test]
fn diff_macro_bomb_children_are_bounded() {
    let tmp = tempfile::tempdir().unwrap();
    let a = write(tmp.path(), "a.c", SMALL);
    let mut defs = String::from("#define ID(x) x\n#define A0 x\n");
    for i in 1..=11 {
        let fan = vec![format!("A{}", i - 1); 8].join(" + ");
        defs.push_str(&format!("#define A{i} ({fan})\n"));
    }
    let (max_memory, timeout) = (1024, 20);
    for (name, body) in [("bomb.c", "A11"), ("bomb_arg.c", "ID(A11)")] {
        let src = format!("{defs}int f(int x)\n{{\n    return {body};\n}}\n");
        let bomb = write(tmp.path(), name, src);
        let args = diff_args(
            &a,
            &bomb,
            &[
                "--timeout",
                &timeout.to_string(),
                "--max-memory",
                &max_memory.to_string(),
            ],
        );
        let m = dizy_measured(&args, Duration::from_secs(timeout) + TIME_SLACK);
        let what = format!("diff a.c {name} --max-memory {max_memory} --timeout {timeout}");
        eprintln!(
            "{what}: status {:?}, wall {:.1} s, peak resident of dizy and its children {:?} MiB",
            m.out.code(),
            m.out.elapsed.as_secs_f64(),
            m.tree_peak_mb
        );
        assert_diff_rejects(&what, &m.out, name, None);
        assert!(
            m.out.stderr.contains("preprocess"),
            "{}",
            describe(&what, &m.out)
        );
        if name == "bomb_arg.c" {
            // Nothing is printed before the expansion is complete: only the limit stops it.
            assert!(
                m.out.stderr.contains(&format!(
                    "{name}: the preprocessor exceeded the memory limit (--max-memory {max_memory} MB)"
                )),
                "{}",
                describe(&what, &m.out)
            );
        }
        assert!(
            m.out.elapsed < Duration::from_secs(timeout) + TIME_SLACK,
            "{what}: {:?}",
            m.out.elapsed
        );
        if let Some(peak) = m.tree_peak_mb {
            assert!(
                peak <= max_memory + MEMORY_SLACK_MB,
                "{what}: dizy and its children peaked at {peak} MiB resident"
            );
        }
    }
}

/// Resource limits of the big-function cases.
const MAX_MEMORY_MB: u64 = 1024;
/// Slack above `--max-memory` for the peak: the budget is checked between analysis steps (every
/// few milliseconds), and PPL operations are budgeted separately.
const MEMORY_SLACK_MB: u64 = 256;

/// A huge function pair: a correct verdict (different: the versions compute different sums) or
/// exit 2 with a resource-limit message, in bounded time and memory.
#[track_caller]
fn assert_big_diff_bounded(what: &str, old: &Path, new: &Path, timeout: u64) {
    let args = diff_args(
        old,
        new,
        &[
            "--timeout",
            &timeout.to_string(),
            "--max-memory",
            &MAX_MEMORY_MB.to_string(),
        ],
    );
    let m = dizy_measured(&args, Duration::from_secs(timeout) + TIME_SLACK);
    let out = &m.out;
    // Figures for the log (`--nocapture`); timings are never asserted beyond the hang bound.
    eprintln!(
        "{what}: status {:?}, {:.1} s, peak resident {:?} MiB",
        out.code(),
        out.elapsed.as_secs_f64(),
        m.peak_mb
    );
    assert!(!out.stderr.contains("panicked"), "{}", describe(what, out));
    match out.code() {
        Some(1) => assert!(
            matches!(
                verdict_of(&out.stdout, "f").as_deref(),
                Some("different" | "possibly-different")
            ),
            "{what}: status 1 without a difference\n{}",
            describe(what, out)
        ),
        Some(2) => {
            let text = format!("{}{}", out.stdout, out.stderr).to_lowercase();
            assert!(
                ["timeout", "timed out", "budget", "memory", "limit"]
                    .iter()
                    .any(|w| text.contains(w)),
                "{what}: exit 2 without a resource message\n{}",
                describe(what, out)
            );
        }
        _ => panic!("{what}: unexpected status\n{}", describe(what, out)),
    }
    if let Some(peak) = m.peak_mb {
        assert!(
            peak <= MAX_MEMORY_MB + MEMORY_SLACK_MB,
            "{what}: peak resident size {peak} MiB exceeds --max-memory {MAX_MEMORY_MB} + {MEMORY_SLACK_MB}\n{}",
            describe(what, out)
        );
    }
}

#[test]
fn diff_hundred_thousand_line_function() {
    let tmp = tempfile::tempdir().unwrap();
    let body = |k: u32| {
        let mut s = String::from("int f(int x)\n{\n    int y = 0;\n");
        for i in 0..100_000u32 {
            s.push_str(&format!("    y = y + {};\n", i % k));
        }
        s.push_str("    return x + y;\n}\n");
        s
    };
    let old = write(tmp.path(), "long_old.c", body(7));
    let new = write(tmp.path(), "long_new.c", body(5));
    assert_big_diff_bounded("100,000-line function", &old, &new, 20);
}

#[test]
fn diff_ten_thousand_variables() {
    let tmp = tempfile::tempdir().unwrap();
    let body = |extra: &str| {
        let mut s = String::from("int f(int x)\n{\n");
        for i in 0..10_000 {
            s.push_str(&format!("    int v{i} = x + {i};\n"));
        }
        let sum: Vec<String> = (0..10_000).step_by(1000).map(|i| format!("v{i}")).collect();
        s.push_str(&format!("    return {}{extra};\n}}\n", sum.join(" + ")));
        s
    };
    let old = write(tmp.path(), "vars_old.c", body(""));
    let new = write(tmp.path(), "vars_new.c", body(" + 1"));
    assert_big_diff_bounded("10,000 variables", &old, &new, 20);
}

/// More variables than a relational domain is given (2,000 dimensions for both versions): the
/// polyhedra analysis stops at once with a size limit, the fallback with one sub-state per
/// point too, and the interval domain gives the function a verdict, with a note saying so;
/// `--no-fallback` keeps the limit as the verdict.
#[test]
fn diff_falls_back_to_cheaper_settings() {
    let tmp = tempfile::tempdir().unwrap();
    let body = |extra: &str| {
        let mut s = String::from("int f(int x)\n{\n");
        for i in 0..1_100 {
            s.push_str(&format!("    int v{i} = x + {i};\n"));
        }
        s.push_str(&format!("    return v0 + v1099{extra};\n}}\n"));
        s
    };
    let old = write(tmp.path(), "many_old.c", body(""));
    let new = write(tmp.path(), "many_new.c", body(" + 1"));
    let report = |extra: &[&str]| {
        let out = dizy_with_deadline(diff_args(&old, &new, extra), Duration::from_secs(120));
        assert!(!out.stderr.contains("panicked"), "{}", out.stderr);
        serde_json::from_str::<serde_json::Value>(&out.stdout)
            .unwrap_or_else(|e| panic!("{e}: {}", out.stdout))["functions"][0]
            .clone()
    };
    let f = report(&["--timeout", "60"]);
    assert_eq!(f["verdict"], "different", "{f:#}");
    let notes = f["notes"].to_string();
    assert!(
        notes.contains("interval domain") && notes.contains("numeric dimensions"),
        "the fallback is named with the reason: {notes}"
    );
    // Without the search, the verdict rests on the fallback's Δ alone.
    let f = report(&["--timeout", "60", "--no-witness"]);
    assert_eq!(f["verdict"], "possibly-different", "{f:#}");
    assert!(
        f["diff_points"].as_array().is_some_and(|d| !d.is_empty()),
        "{f:#}"
    );
    let f = report(&["--timeout", "60", "--no-witness", "--no-fallback"]);
    assert_eq!(f["verdict"], "timeout", "{f:#}");
}

/// Found by the `frontend` fuzz target: a run of `-` between `>` and `>` made the backtracking
/// parser take exponential time (28 signs: seconds; 60: hours). Such runs are not valid C and are
/// now rejected before parsing, naming the line; the parse time limit (`--timeout` for `diff`)
/// stays as the backstop for other shapes.
#[test]
fn diff_pathological_parse_is_bounded() {
    let tmp = tempfile::tempdir().unwrap();
    let a = write(tmp.path(), "a.c", SMALL);
    for (name, run) in [("minus.c", "-".repeat(60)), ("plus.c", "++ ".repeat(30))] {
        let slow = write(
            tmp.path(),
            name,
            format!("int f(int w)\n{{\n    return w >{run}> 1;\n}}\n"),
        );
        let timeout = 5;
        let m = dizy_measured(
            &diff_args(&a, &slow, &["--timeout", &timeout.to_string()]),
            Duration::from_secs(timeout) + TIME_SLACK,
        );
        let what = format!("diff a.c {name}");
        // line 3: the run's own line, which the time limit's message would not name
        assert_diff_rejects(&what, &m.out, name, Some(3));
        assert!(
            m.out.stderr.contains("`++`/`--`"),
            "{}",
            describe(&what, &m.out)
        );
    }
}

/// Found by the `diff` fuzz target: a file that ends right after a call statement without its
/// `;` (an unknown identifier, so the tolerant parser tries its macro-call repair) made the
/// repair index past the last token.
#[test]
fn truncated_after_call_statement() {
    let tmp = tempfile::tempdir().unwrap();
    let f = write(tmp.path(), "call.c", "int f(int x)\n{\n    g(x)");
    assert_both_reject("file ending after `g(x)`", &f);
    let a = write(tmp.path(), "a.c", SMALL);
    let out = dizy(diff_args(&a, &f, &[]));
    assert_diff_rejects("diff a.c call.c", &out, "call.c", None);
}

/// Found by the `diff` fuzz target: a declaration of an array with an unknown type name and a
/// variable index (`I In[i] = 1;`, a typo for `In[i] = 1;`) panicked in lowering
/// (`var_ty` without a current function).
#[test]
fn unknown_type_array_declaration() {
    let tmp = tempfile::tempdir().unwrap();
    let f = write(
        tmp.path(),
        "decl.c",
        "int f(int n)\n{\n    int i = 0;\n    I      In[i] = 1;\n    return i;\n}\n",
    );
    for sub in ["gcl", "run"] {
        let mut args: Vec<OsString> = vec![
            sub.into(),
            f.clone().into(),
            "--function".into(),
            "f".into(),
        ];
        if sub == "run" {
            args.extend(["--".into(), "1".into()]);
        }
        let out = dizy(args);
        assert!(
            !out.stderr.contains("panicked") && !out.stderr.contains("internal error"),
            "{}",
            describe(&format!("{sub} decl.c"), &out)
        );
        assert!(
            matches!(out.code(), Some(0 | 2)),
            "{}",
            describe(&format!("{sub} decl.c"), &out)
        );
    }
}

/// A reader that stops early (`dizy correlate … | head`): the rest of the output is dropped
/// without a panic or an "internal error", and the status is the command's own. The listing is
/// far larger than a pipe's buffer, so the write really fails.
#[test]
fn closed_stdout_is_not_a_crash() {
    use std::io::Read;
    use std::process::Stdio;
    let tmp = tempfile::tempdir().unwrap();
    let mut src = String::from("int f(int x)\n{\n");
    for i in 0..3000 {
        src.push_str(&format!("    x = x + {i};\n"));
    }
    src.push_str("    return x;\n}\n");
    write(tmp.path(), "old.c", &src);
    write(tmp.path(), "new.c", src.replace("x + 7;", "x + 8;"));
    for args in [
        vec!["correlate", "old.c", "new.c", "--function", "f"],
        vec!["gcl", "old.c"],
    ] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_dizy"))
            .args(&args)
            .current_dir(tmp.path())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut first = [0u8; 100];
        child.stdout.take().unwrap().read_exact(&mut first).unwrap();
        // the pipe's read end is closed here
        let mut err = String::new();
        child
            .stderr
            .take()
            .unwrap()
            .read_to_string(&mut err)
            .unwrap();
        let status = child.wait().unwrap();
        assert!(
            !err.contains("panicked") && !err.contains("internal error"),
            "{args:?}: {err}"
        );
        assert_eq!(status.code(), Some(0), "{args:?}: {err}");
    }
}
