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
