//! Unconfigured real-world files: `benchmarks/realworld/tabs/{old,new}.c` include project headers
//! that are missing unless `-I benchmarks/realworld/tabs/include` is given, use project typedefs
//! (`idx_t`, `bool`, `uintmax_t`) and macros (`IF_LINT (= NULL)`, `_("…")`, `TAB_WIDTH (a, b)`,
//! `die (…)`, `TAB_STOP_LIMIT`), globals, static helpers, pointers and arrays.
//!
//! Checked: both versions load unconfigured (every stand-in and repair listed as an
//! assumption), every function gets the expected verdict with the right lines, the witness of
//! the one observable difference is confirmed by gcc running both versions with the real
//! headers, the configured run (`-I`, `--compile-commands`) uses the real definitions, a
//! change that preprocesses identically leaves the report on one screen, and `--git` reports
//! per changed file.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

mod common;

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("benchmarks/realworld/tabs")
}

fn dizy(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_dizy"))
        .args(args)
        .output()
        .expect("run dizy")
}

fn json_of(args: &[&str]) -> Value {
    let out = dizy(args);
    serde_json::from_slice(&out.stdout).expect("JSON report")
}

fn json_diff(extra: &[&str]) -> (Value, i32) {
    let f = fixture();
    let (old, new) = (f.join("old.c"), f.join("new.c"));
    let mut args = vec![
        "diff",
        old.to_str().unwrap(),
        new.to_str().unwrap(),
        "--format",
        "json",
        "--timeout",
        "20",
    ];
    args.extend_from_slice(extra);
    let out = dizy(&args);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let v: Value = serde_json::from_str(&stdout).unwrap_or_else(|e| {
        panic!(
            "not JSON ({e}): {stdout}\nstderr: {}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (v, out.status.code().unwrap_or(-1))
}

fn functions(v: &Value) -> BTreeMap<String, Value> {
    v["functions"]
        .as_array()
        .expect("functions")
        .iter()
        .map(|f| (f["name"].as_str().unwrap().to_string(), f.clone()))
        .collect()
}

fn verdict(fs: &BTreeMap<String, Value>, name: &str) -> String {
    fs.get(name)
        .unwrap_or_else(|| panic!("no report for {name}"))["verdict"]
        .as_str()
        .unwrap()
        .to_string()
}

/// Verdicts both runs (configured or not) must give. Two entries allow a second sound verdict:
/// `add_tab_stop` differs only through a global, `validate_tab_stop` through calls the
/// interpreter cannot execute (`die`, `fprintf`), so a witness may or may not be found;
/// `set_column_info` calls the changed but equivalent `clamp_column` (equivalent when the callee
/// is inlined, possibly-different when the call stays opaque).
const EXPECTED: &[(&str, &[&str])] = &[
    ("is_blank", &["unchanged"]),
    ("clamp_column", &["equivalent"]),
    ("field_width", &["different"]),
    ("add_tab_stop", &["possibly-different", "different"]),
    ("validate_tab_stop", &["possibly-different", "different"]),
    ("tab_width_at", &["unchanged"]),
    ("count_leading_blanks", &["unchanged"]),
    ("set_column_info", &["equivalent", "possibly-different"]),
    ("columns_of_stops", &["unchanged"]),
    ("converts_all", &["unchanged"]),
    ("legacy_tab_size", &["removed"]),
    ("next_tab_stop", &["added"]),
];

fn check_common(fs: &BTreeMap<String, Value>) {
    for (name, ok) in EXPECTED {
        let v = verdict(fs, name);
        assert!(
            ok.contains(&v.as_str()),
            "{name}: {v}, expected one of {ok:?}"
        );
    }
    assert_eq!(fs.len(), EXPECTED.len() + 1, "functions: {:?}", fs.keys());
    // Lines are those of the original files, not of the preprocessed text or the prelude.
    let fw = &fs["field_width"];
    assert_eq!(
        (fw["old_line"].as_u64(), fw["new_line"].as_u64()),
        (Some(56), Some(57))
    );
    let points = fw["diff_points"].as_array().unwrap();
    assert!(
        points
            .iter()
            .any(|p| p["old_line"] == 61 && p["new_line"] == 62),
        "{points:?}"
    );
    assert_eq!(fs["next_tab_stop"]["new_line"].as_u64(), Some(148));
    assert_eq!(fs["legacy_tab_size"]["old_line"].as_u64(), Some(135));
}

#[test]
fn unconfigured_file_pair() {
    let (v, code) = json_diff(&[]);
    assert_eq!(code, 1);
    let fs = functions(&v);
    check_common(&fs);
    // TAB_STOP_LIMIT comes from the missing system.h: an unknown `int`, the same in both
    // versions, under which `size < L ? size : L` and `size <= L ? size : L` are equal.
    assert_eq!(verdict(&fs, "safe_columns"), "equivalent");
    let why = fs["safe_columns"]["notes"].to_string();
    assert!(
        why.contains("`TAB_STOP_LIMIT` is not declared") && why.contains("old line 145"),
        "{why}"
    );
    let assumptions = v["assumptions"].to_string();
    for needle in [
        "missing headers replaced by empty files",
        "config.h (line 6)",
        "system.h (line 12)",
        "idx_t as long",
        // `bool` and `uintmax_t` come from the standard headers that stand in for system.h.
        "the standard C and POSIX headers stand in",
        "`IF_LINT (= ((void *)0) )` (line 99)",
        "called without a declaration",
        "TAB_WIDTH",
    ] {
        assert!(
            assumptions.contains(needle),
            "no `{needle}` in {assumptions}"
        );
    }
    // The guessed type is named where it matters.
    let notes = fs["clamp_column"]["notes"].to_string();
    assert!(
        notes.contains("`idx_t`") && notes.contains("old line 45, new line 46"),
        "{notes}"
    );
}

#[test]
fn configured_by_include_dir_and_by_compile_commands() {
    let inc = fixture().join("include");
    let (v, code) = json_diff(&["-I", inc.to_str().unwrap()]);
    assert_eq!(code, 1);
    let fs = functions(&v);
    check_common(&fs);
    // With the real TAB_STOP_LIMIT, `<` versus `<=` at the limit gives the same value.
    assert_eq!(verdict(&fs, "safe_columns"), "equivalent");
    assert!(!v["assumptions"].to_string().contains("missing headers"));

    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("compile_commands.json");
    let dir = fixture();
    let entry = |f: &str| {
        serde_json::json!({
            "directory": dir.to_str().unwrap(),
            "file": f,
            "command": format!("cc -Iinclude -DNDEBUG -std=gnu99 -c {f}"),
        })
    };
    std::fs::write(
        &db,
        Value::Array(vec![entry("old.c"), entry("new.c")]).to_string(),
    )
    .unwrap();
    let (v, _) = json_diff(&["--compile-commands", db.to_str().unwrap()]);
    let fs = functions(&v);
    check_common(&fs);
    assert_eq!(verdict(&fs, "safe_columns"), "equivalent");
    assert!(!v["assumptions"].to_string().contains("missing headers"));
}

/// gcc, with the real headers, runs both versions of `field_width` on dizy's witness.
#[test]
fn witness_confirmed_by_gcc() {
    let (v, _) = json_diff(&[]);
    let fs = functions(&v);
    let w = &fs["field_width"]["witness"];
    let input = |n: &str| w["inputs"][n].as_str().unwrap().to_string();
    let (wv, pad) = (input("w"), input("pad"));
    let tmp = tempfile::tempdir().unwrap();
    let mut results = vec![];
    for version in ["old", "new"] {
        let src = tmp.path().join(format!("{version}_main.c"));
        std::fs::write(
            &src,
            format!(
                "#include \"{}\"\nint main (void) {{ printf (\"%ld\\n\", (long) field_width ({wv}, {pad})); return 0; }}\n",
                fixture().join(format!("{version}.c")).display()
            ),
        )
        .unwrap();
        let exe = tmp.path().join(version);
        let cc = Command::new("cc")
            .args(["-std=gnu11", "-w", "-I"])
            .arg(fixture().join("include"))
            .arg(&src)
            .arg("-o")
            .arg(&exe)
            .output()
            .expect("run cc");
        assert!(
            cc.status.success(),
            "{}",
            String::from_utf8_lossy(&cc.stderr)
        );
        let out = Command::new(&exe).output().unwrap();
        results.push(String::from_utf8_lossy(&out.stdout).trim().to_string());
    }
    assert_ne!(results[0], results[1]);
    assert_eq!(w["old"]["return"].as_str(), Some(results[0].as_str()));
    assert_eq!(w["new"]["return"].as_str(), Some(results[1].as_str()));
}

/// Comments, whitespace and a renamed macro with the same value: nothing changed semantically,
/// and the whole report fits on one screen, configured or not (unconfigured, the function that
/// cannot be analysed is unchanged because its text and surroundings are).
#[test]
fn cosmetic_change_is_unchanged_and_short() {
    let tmp = tempfile::tempdir().unwrap();
    let old = fixture().join("old.c");
    let text = std::fs::read_to_string(&old).unwrap();
    let cosmetic = text
        .replace("MAX_COLUMN", "COLUMN_CAP")
        .replace(
            "/* Nonzero if C is a blank.  */",
            "/* Nonzero if C is a blank\n   (space or tab).  */",
        )
        .replace(
            "  return c == ' ' || c == '\\t';",
            "  return c == ' '\n         || c == '\\t';",
        );
    assert_ne!(cosmetic, text);
    let new = tmp.path().join("tabs.c");
    std::fs::write(&new, cosmetic).unwrap();
    let inc = fixture().join("include");
    for configured in [true, false] {
        let mut args = vec!["diff", old.to_str().unwrap(), new.to_str().unwrap()];
        if configured {
            args.extend(["-I", inc.to_str().unwrap()]);
        }
        let out = dizy(&args);
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(0), "{stdout}");
        assert!(stdout.contains("unchanged (12):"), "{stdout}");
        if !configured {
            // `safe_columns` uses a macro of the missing header, an unknown of the same value
            // in both versions: its text and its surroundings are the same.
            let v = json_of(&[&args[..], &["--format", "json"]].concat());
            let fs = functions(&v);
            assert_eq!(verdict(&fs, "safe_columns"), "unchanged");
        }
        let n = stdout.lines().count();
        assert!(n <= 30, "{n} lines:\n{stdout}");
    }
}

#[test]
fn git_revisions() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path();
    let git = |args: &[&str]| common::git(repo, args);
    git(&["init", "-q"]);
    std::fs::create_dir(repo.join("src")).unwrap();
    std::fs::copy(fixture().join("old.c"), repo.join("src/tabs.c")).unwrap();
    std::fs::write(repo.join("src/same.c"), "int same (int x) { return x; }\n").unwrap();
    std::fs::write(repo.join("README"), "text\n").unwrap();
    git(&["add", "-A"]);
    git(&["commit", "-q", "-m", "one"]);
    std::fs::copy(fixture().join("new.c"), repo.join("src/tabs.c")).unwrap();
    std::fs::write(repo.join("README"), "more text\n").unwrap();
    git(&["add", "-A"]);
    git(&["commit", "-q", "-m", "two"]);
    let out = Command::new(env!("CARGO_BIN_EXE_dizy"))
        .args(["diff", "--git", "HEAD~1", "HEAD", "--format", "json"])
        .current_dir(repo)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let files = v["files"].as_array().unwrap();
    assert_eq!(files.len(), 1, "only the changed .c file: {files:?}");
    assert_eq!(files[0]["path"], "src/tabs.c");
    // The temporary checkout is named as git names blobs, nowhere by its path.
    assert_eq!(files[0]["report"]["old"], "HEAD~1:src/tabs.c");
    assert_eq!(files[0]["report"]["new"], "HEAD:src/tabs.c");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        !text.contains("/dizy-git-"),
        "a temporary path in the report: {text}"
    );
    let fs = functions(&files[0]["report"]);
    assert_eq!(verdict(&fs, "field_width"), "different");
    assert_eq!(verdict(&fs, "next_tab_stop"), "added");

    // A file whose function cannot be analysed (2) beside one that differs (1): the difference
    // shows in the exit status, as it does for functions of one file.
    std::fs::write(
        repo.join("src/broken.c"),
        "int broken (int x) { return x; }
",
    )
    .unwrap();
    git(&["add", "-A"]);
    git(&["commit", "-q", "-m", "three"]);
    std::fs::write(
        repo.join("src/broken.c"),
        "int broken (int x) { return x +; }
",
    )
    .unwrap();
    std::fs::write(
        repo.join("src/same.c"),
        "int same (int x) { return x + 1; }
",
    )
    .unwrap();
    git(&["add", "-A"]);
    git(&["commit", "-q", "-m", "four"]);
    let out = Command::new(env!("CARGO_BIN_EXE_dizy"))
        .args(["diff", "--git", "HEAD~1", "HEAD", "--format", "json"])
        .current_dir(repo)
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let files = v["files"].as_array().unwrap();
    assert_eq!(files.len(), 2, "{v:#}");
    let broken = files.iter().find(|f| f["path"] == "src/broken.c").unwrap();
    assert_eq!(
        verdict(&functions(&broken["report"]), "broken"),
        "unsupported"
    );
    assert_eq!(out.status.code(), Some(1), "{v:#}");
}

/// The reproducers `tests/fixtures/realworld-bugs/` (from the CVE-patch corpus): each pair now
/// loads, and every function gets the verdict its text calls for, under the name it has.
#[test]
fn realworld_bug_reproducers() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/realworld-bugs");
    for (pair, function, expected) in [
        // Same text, different file names: `__FILE__` is no difference.
        ("file-macro", "check", "unchanged"),
        // `void PNGAPI set_q (int n)` with `PNGAPI` unknown: the function is `set_q`.
        ("calling-convention-macro", "set_q", "different"),
        // `typedef T (fn_t) (int e);` no longer ends the file.
        ("typedef-paren-declarator", "f", "different"),
    ] {
        let (old, new) = (dir.join(pair).join("old.c"), dir.join(pair).join("new.c"));
        let out = dizy(&[
            "diff",
            old.to_str().unwrap(),
            new.to_str().unwrap(),
            "--format",
            "json",
        ]);
        let v: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
            panic!(
                "{pair}: not JSON ({e}); stderr: {}",
                String::from_utf8_lossy(&out.stderr)
            )
        });
        let fs = functions(&v);
        assert_eq!(fs.len(), 1, "{pair}: {v:#}");
        assert_eq!(verdict(&fs, function), expected, "{pair}: {v:#}");
    }
}

/// A function the frontend rejects still has its definition lines in both versions (the table
/// and `old_line`/`new_line` point the reader at it).
#[test]
fn rejected_functions_keep_their_lines() {
    let tmp = tempfile::tempdir().unwrap();
    let old = tmp.path().join("old.c");
    let new = tmp.path().join("new.c");
    let body = |k: i32| {
        format!("int g(int x) {{ return x; }}\nint f(int x)\n{{\n    __asm__(\"nop\");\n    return x + {k};\n}}\n")
    };
    std::fs::write(&old, body(1)).unwrap();
    std::fs::write(&new, format!("\n\n{}", body(2))).unwrap();
    let out = dizy(&[
        "diff",
        old.to_str().unwrap(),
        new.to_str().unwrap(),
        "--format",
        "json",
    ]);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let fs = functions(&v);
    assert_eq!(verdict(&fs, "f"), "unsupported", "{v:#}");
    assert_eq!(fs["f"]["old_line"], 2, "{v:#}");
    assert_eq!(fs["f"]["new_line"], 4, "{v:#}");
    // A function only the new version has is `added`, even where the lowering rejects it
    // (krb5's new `get_der_tag` was `unsupported` unconfigured and `added` configured); the
    // reason is a note.
    std::fs::write(
        &new,
        format!(
            "{}int h(int x) {{ __asm__(\"nop\"); return x; }}\n",
            body(1)
        ),
    )
    .unwrap();
    let v = json_of(&[
        "diff",
        old.to_str().unwrap(),
        new.to_str().unwrap(),
        "--format",
        "json",
    ]);
    let fs = functions(&v);
    assert_eq!(verdict(&fs, "h"), "added", "{v:#}");
    assert!(
        fs["h"]["notes"].to_string().contains("not analysed"),
        "{v:#}"
    );
}

/// Names a missing header would declare, used as values, are unknown `int`s shared by both
/// versions: a proof may rely on them being equal in both, never on a value; a call may change
/// them (they may be variables); a witness gives them distinct values of its own and lists
/// them.
#[test]
fn undeclared_names_of_a_missing_header_are_shared_unknowns() {
    let tmp = tempfile::tempdir().unwrap();
    let old = "#include \"missing.h\"\nint g(int);\n\
        int eq(int x) { if (x == TOK_NONE) return 1; return 2; }\n\
        int neq(int x) { if (x == TOK_NONE) return 1; return 2; }\n\
        int clob(int x) { int a = LIMIT; g(x); return a == LIMIT; }\n\
        int sw(int x) { switch (x) { case TOK_NONE: return 1; case 7: return 2; default: return 0; } }\n\
        int sw2(int x) { switch (x) { case TOK_NONE: x++; case 7: return x; } return 0; }\n\
        int stmt(int x) { switch (x) { case 1: return 2; case_HELP; default: return 0; } }\n";
    let new = "#include \"missing.h\"\nint g(int);\n\
        int eq(int x) { if (x != TOK_NONE) return 2; return 1; }\n\
        int neq(int x) { if (x == TOK_NONE + 1) return 1; return 2; }\n\
        int clob(int x) { g(x); return 1; }\n\
        int sw(int x) { switch (x) { case TOK_NONE: return 1; case 7: return 2; default: return 0; } }\n\
        int sw2(int x) { switch (x) { case TOK_NONE: x += 2; case 7: return x; } return 0; }\n\
        int stmt(int x) { switch (x) { case 1: return 3; case_HELP; default: return 0; } }\n";
    let (o, n) = (tmp.path().join("old.c"), tmp.path().join("new.c"));
    std::fs::write(&o, old).unwrap();
    std::fs::write(&n, new).unwrap();
    let run = || {
        let (o, n) = (o.to_str().unwrap(), n.to_str().unwrap());
        functions(&json_of(&["diff", o, n, "--format", "json"]))
    };
    let fs = run();
    assert_eq!(verdict(&fs, "eq"), "equivalent");
    assert!(fs["eq"]["notes"].to_string().contains(
        "`TOK_NONE` is not declared (defined in a missing header, or by a macro the build defines?): taken as an unknown `int`"
    ));
    // Differs when x equals the constant or one more: the witness chooses its value and says
    // so.
    assert_eq!(verdict(&fs, "neq"), "different", "{}", fs["neq"]);
    let w = &fs["neq"]["witness"];
    let k: i64 = w["constants"]["TOK_NONE"]
        .as_str()
        .and_then(|v| v.parse().ok())
        .expect("the constant's value");
    let x: i64 = w["inputs"]["x"]
        .as_str()
        .and_then(|v| v.parse().ok())
        .expect("x");
    assert!(x == k || x == k + 1, "{w}");
    // `LIMIT` may be a variable that `g` changes.
    assert_eq!(verdict(&fs, "clob"), "possibly-different");
    // Case labels may name them too.
    assert_eq!(verdict(&fs, "sw"), "unchanged");
    assert_eq!(verdict(&fs, "sw2"), "different", "{}", fs["sw2"]);
    // A statement of an unknown name alone is a macro that may expand to anything (coreutils'
    // `case_GETOPT_HELP_CHAR;` is a `case` label and a call): not a value.
    assert_eq!(verdict(&fs, "stmt"), "unsupported");
    assert!(fs["stmt"]["notes"]
        .to_string()
        .contains("`case_HELP;` names nothing declared"));
    // With the header present, the same names are declared and nothing is assumed.
    std::fs::write(
        tmp.path().join("missing.h"),
        "enum { TOK_NONE = 3 };\nextern int LIMIT;\n",
    )
    .unwrap();
    let fs = run();
    assert_eq!(verdict(&fs, "eq"), "equivalent");
    assert!(!fs["eq"]["notes"].to_string().contains("not declared"));
    assert_eq!(verdict(&fs, "neq"), "different");
    assert_eq!(verdict(&fs, "sw2"), "different");
}

/// `sizeof` of a struct a missing header defines and the file never does (`malloc(sizeof
/// (struct dsa_st))`) is an unknown constant: the function is analysed, and a witness that does
/// not depend on the size is one.
#[test]
fn sizeof_of_a_struct_of_a_missing_header_is_an_unknown_constant() {
    let tmp = tempfile::tempdir().unwrap();
    let src = |k: i32, r: &str| {
        format!(
            "#include \"d.h\"\n#include <stdlib.h>\n\
             int f(int n) {{ struct dsa_st *p = malloc(sizeof (struct dsa_st)); if (!p) return -1; free(p); return n > {k}; }}\n\
             unsigned long g(void) {{ return {r}; }}\n"
        )
    };
    let (o, n) = (tmp.path().join("old.c"), tmp.path().join("new.c"));
    std::fs::write(&o, src(3, "sizeof (struct dsa_st)")).unwrap();
    std::fs::write(&n, src(4, "64")).unwrap();
    let (os, ns) = (o.to_str().unwrap(), n.to_str().unwrap());
    let fs = functions(&json_of(&["diff", os, ns, "--format", "json"]));
    assert_eq!(verdict(&fs, "f"), "different", "{}", fs["f"]);
    assert!(fs["f"]["notes"]
        .to_string()
        .contains("`sizeof(struct dsa_st)`: the struct is defined in a missing header"));
    // Runs give it 64 bytes, but the real size is unknown: no proof, no witness.
    assert_eq!(verdict(&fs, "g"), "possibly-different", "{}", fs["g"]);
}

/// An unknown macro next to a string literal (less's `ESCS "]8;"`, `"%" FMT`) makes the
/// literal an unknown string, the same object in both versions: the function is analysed, and
/// nothing is assumed of the string's contents (`strlen` of it is no constant).
#[test]
fn unknown_macros_next_to_string_literals_are_unknown_strings() {
    let tmp = tempfile::tempdir().unwrap();
    let src = |k: i32, g: &str| {
        format!(
            "#include \"esc.h\"\n#include <string.h>\n#include <stdio.h>\n\
             int f(int c) {{ if (c > {k}) return puts(ESC \"x\" FMT); return 0; }}\n\
             int g(void) {{ return {g}; }}\n\
             int h(int c) {{ const char *s = \"]8;\" ESC; return s[0] == c; }}\n"
        )
    };
    let (o, n) = (tmp.path().join("old.c"), tmp.path().join("new.c"));
    std::fs::write(&o, src(3, "strlen(ESC \"ab\") == 3")).unwrap();
    std::fs::write(&n, src(4, "1")).unwrap();
    let (os, ns) = (o.to_str().unwrap(), n.to_str().unwrap());
    let v = json_of(&["diff", os, ns, "--format", "json"]);
    let fs = functions(&v);
    assert_eq!(verdict(&fs, "f"), "possibly-different", "{}", fs["f"]);
    assert!(
        fs["f"]["notes"]
            .to_string()
            .contains("`ESC \\\"x\\\" FMT`: a string with a macro of a missing header"),
        "{}",
        fs["f"]
    );
    assert_eq!(verdict(&fs, "g"), "possibly-different", "{}", fs["g"]);
    assert_eq!(verdict(&fs, "h"), "unchanged", "{}", fs["h"]);
    assert!(
        v["assumptions"]
            .to_string()
            .contains("unknown macros next to string literals"),
        "{}",
        v["assumptions"]
    );
}

/// `case MAKE_MARKER (0, 0, 3, 0xE8):` (libsndfile's `mat4.c`, its macro in a header the
/// configuration leaves out): a missing header's function-like macro on constant arguments is
/// a shared unknown constant like an undeclared name, one per macro and argument values; the
/// same label in both versions is the same value, another argument another unknown.
#[test]
fn macro_calls_of_a_missing_header_in_case_labels_are_shared_unknowns() {
    let tmp = tempfile::tempdir().unwrap();
    let body = |a: &str, b: &str| {
        format!(
            "#include \"missing.h\"\n\
             int same(int x) {{ switch (x) {{ case MARK(0, 0x3): return 8; default: {a} }} }}\n\
             int other(int x) {{ switch (x) {{ case MARK(0, {b}): return 8; default: return 4; }} }}\n"
        )
    };
    let (o, n) = (tmp.path().join("old.c"), tmp.path().join("new.c"));
    std::fs::write(&o, body("return 4;", "3")).unwrap();
    std::fs::write(&n, body("return x - x + 4;", "4")).unwrap();
    let (os, ns) = (o.to_str().unwrap(), n.to_str().unwrap());
    let fs = functions(&json_of(&["diff", os, ns, "--format", "json"]));
    assert_eq!(verdict(&fs, "same"), "equivalent", "{}", fs["same"]);
    assert!(
        fs["same"]["notes"]
            .to_string()
            .contains("`MARK(0, 3)` is not declared"),
        "{}",
        fs["same"]
    );
    // Another argument is another unknown: the witness gives the two distinct values.
    assert_eq!(verdict(&fs, "other"), "different", "{}", fs["other"]);
    let k = &fs["other"]["witness"]["constants"];
    assert!(
        k["MARK(0, 3)"].is_string() && k["MARK(0, 4)"].is_string(),
        "{}",
        fs["other"]
    );
}

/// Types a missing header defines become records of the members the file uses: member
/// accesses through unknown typedefs (record or pointer typedefs), incomplete tags and members
/// of members are analysed, both versions share one layout (a member only the new version
/// uses does not move the others), and what depends on the full layout is rejected. With the
/// header present (a layout with other members and another order), the verdicts agree and
/// the difference is confirmed by gcc.
#[test]
fn records_for_the_types_of_a_missing_header() {
    let tmp = tempfile::tempdir().unwrap();
    let common = "#include \"ctx.h\"\nstruct node;\n";
    let old = format!(
        "{common}int get(ctx_t *c, png_structrp p, struct node *n) {{\n\
           if (p->flags & 4) return c->count + n->len;\n\
           c->br.eos = 1; return c->mem->limit; }}\n\
         int put(ctx_t *c, int v) {{ c->count = v; return c->count; }}\n\
         long size(ctx_t *c) {{ return sizeof *c; }}\n\
         long size2(ctx_t *c) {{ return c->count + sizeof (ctx_t); }}\n\
         static long sz(void) {{ return sizeof (ctx_t); }}\n\
         long size3(ctx_t *c) {{ return sz(); }}\n\
         long sum(ctx_t *c, int n) {{ long s = 0; for (int i = 0; i < n; i++) s += c[i].count; return s; }}\n\
         void copy(ctx_t *a, ctx_t *b) {{ *a = *b; }}\n\
         long arith(ctx_t *c) {{ return (c + 1)->count; }}\n\
         long conv(ctx_t *c) {{ char *b = (char *)c; return b[0]; }}\n\
         int add(core_t *core, int which) {{\n\
           set_t *control;\n\
           if (which == 0) control = &core->reading; else control = &core->writing;\n\
           if (control->num == control->max) return -1;\n\
           control->num++; return control->num; }}\n"
    );
    let new = format!(
        "{common}int get(ctx_t *c, png_structrp p, struct node *n) {{\n\
           if (p->flags & 4) return n->len + c->count;\n\
           c->br.eos = 1; return c->mem->limit; }}\n\
         int put(ctx_t *c, int v) {{ c->count = v; c->extra = 0; return v; }}\n\
         long size(ctx_t *c) {{ return sizeof (ctx_t); }}\n\
         long size2(ctx_t *c) {{ return c->count + 48; }}\n\
         static long sz(void) {{ return sizeof (ctx_t); }}\n\
         long size3(ctx_t *c) {{ return 0; }}\n\
         long sum(ctx_t *c, int n) {{ long s = 0; for (int i = 1; i < n; i++) s += c[i].count; return s; }}\n\
         void copy(ctx_t *a, ctx_t *b) {{ a->count = b->count; a->extra = b->extra;\n\
           a->br.eos = b->br.eos; a->mem = b->mem; }}\n\
         long arith(ctx_t *c) {{ return c[1].count; }}\n\
         long conv(ctx_t *c) {{ char *b = (char *)c; return b[1]; }}\n\
         int add(core_t *core, int which) {{\n\
           set_t *control;\n\
           if (which == 0) control = &core->reading; else control = &core->writing;\n\
           if (control->num >= control->max) return -1;\n\
           control->num++; return control->num; }}\n"
    );
    let (o, n) = (tmp.path().join("old.c"), tmp.path().join("new.c"));
    std::fs::write(&o, old).unwrap();
    std::fs::write(&n, new).unwrap();
    let run = |extra: &[&str]| {
        let (o, n) = (o.to_str().unwrap(), n.to_str().unwrap());
        let mut args = vec!["diff", o, n, "--format", "json"];
        args.extend_from_slice(extra);
        let v = json_of(&args);
        (functions(&v), v)
    };
    let (fs, v) = run(&[]);
    assert_eq!(verdict(&fs, "get"), "equivalent", "{v:#}");
    assert_eq!(verdict(&fs, "put"), "different", "{v:#}");
    assert!(fs["get"]["notes"]
        .to_string()
        .contains("`png_structrp`, an unknown type assumed `struct __dizy_png_structrp *`"));
    assert!(
        v.to_string().contains("ctx_t { br, count, extra, mem }"),
        "{v:#}"
    );
    // `set_t *control;` is a declaration; `reading` holds a `set_t` (it is assigned to
    // `control`), so `control->max` is not the next member of `core`.
    assert_eq!(verdict(&fs, "add"), "different", "{v:#}");
    let shown = fs["add"]["witness"]["inputs"]["core"].to_string();
    assert!(shown.contains(".reading.num = "), "{shown}");
    // A byte view depends on the members' offsets.
    assert_eq!(verdict(&fs, "conv"), "unsupported", "{v:#}");
    let why = fs["conv"]["notes"].to_string();
    assert!(why.contains("whose full layout is unknown"), "{why}");
    // A whole copy moves the members no code here names too: a member-wise copy is not the
    // same (and not a witness either, since the real record may have no other members).
    assert_eq!(verdict(&fs, "copy"), "possibly-different", "{v:#}");
    assert!(!v.to_string().contains("__dizy_unnamed ="), "{v:#}");
    // The size is an unknown constant, the same in both versions; elements are indexed alike
    // whatever it is.
    for f in ["size", "arith"] {
        assert!(
            ["unchanged", "equivalent"].contains(&verdict(&fs, f).as_str()),
            "{f}: {v:#}"
        );
    }
    // The assumed layout is 48 bytes (four members, one a record, and the unnamed rest), but the real one
    // may not be: no proof, and no witness that depends on the size.
    assert!(v.to_string().contains("runs use 48 bytes"), "{v:#}");
    assert_eq!(verdict(&fs, "size2"), "possibly-different", "{v:#}");
    // The same when a helper reads the size.
    assert_eq!(verdict(&fs, "size3"), "possibly-different", "{v:#}");
    assert_eq!(verdict(&fs, "sum"), "different", "{v:#}");
    // The real header: other members, another order, narrower types where it does not matter.
    std::fs::write(
        tmp.path().join("ctx.h"),
        "struct m { int pad; long limit; };\n\
         typedef struct { struct m *mem; long pad[3]; struct { int x; long eos; } br; long extra; long count; } ctx_t;\n\
         typedef struct { char name[8]; unsigned flags; } png_struct;\n\
         typedef png_struct *png_structrp;\n\
         struct node { int kind; long len; };\n\
         typedef struct { long pad; long max; long num; } set_t;\n\
         typedef struct { int id; set_t writing; set_t reading; } core_t;\n",
    )
    .unwrap();
    let (fs, v) = run(&["--validate", "native"]);
    assert_eq!(verdict(&fs, "get"), "equivalent", "{v:#}");
    assert_eq!(verdict(&fs, "put"), "different", "{v:#}");
    // sizeof (ctx_t) is 64 with the real header: a constant, so now a difference.
    assert_eq!(verdict(&fs, "size2"), "different", "{v:#}");
    // The real record has other members, which only the whole copy moves.
    assert_eq!(verdict(&fs, "copy"), "different", "{v:#}");
    for f in ["put", "add", "sum", "size2", "copy"] {
        assert!(
            fs[f]["witness"]["validated_by"]
                .to_string()
                .contains("native"),
            "{f}: {v:#}"
        );
    }
    assert!(!v.to_string().contains("full layout is unknown"), "{v:#}");
}

/// A function of a missing header whose result initializes a struct the file defines
/// (`krb5_data plain = empty_data();`) is assumed to return that struct, as one whose result is
/// used as a pointer is assumed to return `void *`; the report says so. So is one whose result
/// initializes a record of a missing header's type.
#[test]
fn an_undeclared_function_initializing_a_struct_returns_that_struct() {
    let tmp = tempfile::tempdir().unwrap();
    let src = |k: i32| {
        format!(
            "#include \"missing.h\"\ntypedef struct {{ long length; char *data; }} data_t;\n\
             int f(int x) {{ data_t d = empty_data(x); if (x > {k}) return d.length; return 0; }}\n\
             int g(int x) {{ rec_t r = make_rec(x); return r.n + (x > {k}); }}\n"
        )
    };
    let (o, n) = (tmp.path().join("old.c"), tmp.path().join("new.c"));
    std::fs::write(&o, src(3)).unwrap();
    std::fs::write(&n, src(4)).unwrap();
    let (os, ns) = (o.to_str().unwrap(), n.to_str().unwrap());
    let v = json_of(&["diff", os, ns, "--format", "json"]);
    let fs = functions(&v);
    assert_eq!(verdict(&fs, "f"), "possibly-different", "{}", fs["f"]);
    assert!(
        v["assumptions"].to_string().contains(
            "their results used as structs: assumed to return the struct they initialize: empty_data"
        ),
        "{}",
        v["assumptions"]
    );
    // A record of a missing header's type is copied whole, its unnamed members too: the
    // function's result, the same in both versions.
    assert_eq!(verdict(&fs, "g"), "different", "{}", fs["g"]);
    assert_eq!(
        fs["g"]["witness"]["inputs"]["x"].as_str(),
        Some("4"),
        "{}",
        fs["g"]
    );
}
