//! Changes the preprocessor removes (`tests/fixtures/config`): changed lines in inactive `#if`
//! regions, changed conditions and macros are reported with the condition that compiles them,
//! never as "nothing changed"; the `-D`/`-U` options dizy proposes are checked with gcc's own
//! preprocessor (the changed line appears with them and not without); `--config-all` analyses
//! those configurations.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/config")
}

fn diff(old: &Path, new: &Path, extra: &[&str]) -> (Value, i32) {
    let out = Command::new(env!("CARGO_BIN_EXE_dizy"))
        .arg("diff")
        .arg(old)
        .arg(new)
        .args(["--format", "json", "--timeout", "20"])
        .args(extra)
        .output()
        .expect("run dizy");
    let v: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "not JSON ({e}): {}\nstderr: {}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (v, out.status.code().unwrap_or(-1))
}

/// The report of function `name`, if the report has one.
fn function<'a>(v: &'a Value, name: &str) -> Option<&'a Value> {
    v["functions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["name"] == name)
}

fn verdict(v: &Value, name: &str) -> String {
    function(v, name).map_or("(missing)".into(), |f| {
        f["verdict"].as_str().unwrap().to_string()
    })
}

/// `src(1)` into `old`, `src(2)` into `new`.
fn write_pair(old: &Path, new: &Path, src: impl Fn(i32) -> String) {
    std::fs::write(old, src(1)).unwrap();
    std::fs::write(new, src(2)).unwrap();
}

/// The report's assumption that mentions `needle`.
fn assumption_about<'a>(v: &'a Value, needle: &str) -> &'a str {
    v["assumptions"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|a| a.as_str())
        .find(|a| a.contains(needle))
        .unwrap_or_else(|| panic!("no note about {needle}: {v:#}"))
}

/// gcc's preprocessor output for `file` with `flags`.
fn cpp(file: &Path, flags: &[String]) -> String {
    let out = Command::new("cc")
        .arg("-E")
        .args(flags)
        .arg(file)
        .output()
        .expect("run cc -E");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn inactive_changes_are_reported_with_a_configuration_gcc_confirms() {
    let d = fixture();
    let (old, new) = (d.join("old.c"), d.join("new.c"));
    let (v, code) = diff(&old, &new, &[]);
    // Compiled changes are analysed as usual; `fast` is compiled through the quoted header.
    assert_eq!(verdict(&v, "fast"), "different");
    assert_eq!(verdict(&v, "base"), "unchanged");
    assert_eq!(
        verdict(&v, "commented"),
        "unchanged",
        "a comment in `#if 0` changes nothing"
    );
    // `step` changed only in code this configuration does not compile.
    assert_eq!(verdict(&v, "step"), "inactive-change");
    assert_eq!(code, 1);
    let changes = v["config_changes"].as_array().unwrap();
    let kinds: Vec<(&str, bool)> = changes
        .iter()
        .map(|c| {
            (
                c["kind"].as_str().unwrap(),
                c["not_analysed"].as_bool().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        kinds,
        vec![
            ("macro-used-inactive", true),
            ("unused-macro", false),
            ("inactive-code", true),
            ("condition", true),
        ],
        "{changes:#?}"
    );
    assert_eq!(changes[0]["macro"], "SCALE");
    assert_eq!(changes[2]["function"], "step");
    assert_eq!(changes[2]["condition"], "defined(FAST) && FAST > 1");
    // Every proposed configuration really compiles the changed line, which the default one
    // does not: asked of gcc, not of dizy.
    for c in changes.iter().filter(|c| c["kind"] == "inactive-code") {
        let flags: Vec<String> = c["enable"]
            .as_array()
            .expect("a configuration was found")
            .iter()
            .map(|f| f.as_str().unwrap().to_string())
            .collect();
        let text = c["text"].as_str().unwrap();
        assert!(
            cpp(&new, &flags).contains(text),
            "{flags:?} does not compile `{text}`"
        );
        assert!(
            !cpp(&new, &[]).contains(text),
            "`{text}` is compiled anyway"
        );
    }
}

#[test]
fn config_all_analyses_the_configurations_that_compile_the_changes() {
    let d = fixture();
    let (v, code) = diff(&d.join("old.c"), &d.join("new.c"), &["--config-all"]);
    let configs = v["configurations"].as_array().unwrap();
    let by_flags = |f: &str| {
        configs
            .iter()
            .find(|c| c["flags"].as_array().unwrap().iter().any(|x| x == f))
            .unwrap_or_else(|| panic!("no configuration with {f}: {configs:#?}"))
    };
    // With the region compiled, the change is found and shown by a witness.
    let fast = &by_flags("-DFAST=2")["report"];
    assert_eq!(verdict(fast, "step"), "different");
    let step = function(fast, "step").unwrap();
    assert!(step["witness"]["inputs"]["y"].is_string(), "{step:#}");
    let triple = &by_flags("-DUSE_TRIPLE")["report"];
    assert_eq!(verdict(triple, "triple"), "different");
    assert_eq!(code, 1);
}

/// A pair whose only change sits in a region no configuration of the analysis compiles, with no
/// function compiled at all: before, "0 function(s)" and exit 0.
#[test]
fn a_change_in_a_region_not_compiled_is_never_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let (old, new) = (dir.path().join("old.c"), dir.path().join("new.c"));
    std::fs::write(
        &old,
        "#ifdef CONFIG_X\nint f(int a) { return a + 1; }\n#endif\n",
    )
    .unwrap();
    std::fs::write(
        &new,
        "#ifdef CONFIG_X\nint f(int a) { return a - 1; }\n#endif\n",
    )
    .unwrap();
    let (v, code) = diff(&old, &new, &[]);
    assert_eq!(code, 1, "{v:#}");
    let c = &v["config_changes"][0];
    assert_eq!(c["removed_function"], "f");
    assert_eq!(c["enable"][0], "-DCONFIG_X");
    std::fs::write(
        &new,
        "#ifdef CONFIG_X\nint f(int a) { return a + 1; } /* x */\n#endif\n",
    )
    .unwrap();
    std::fs::write(
        &old,
        "#ifdef CONFIG_X\nint f(int a) { return a + 1; }\n#endif\n",
    )
    .unwrap();
    // A changed comment is no change, compiled or not.
    let (v, code) = diff(&old, &new, &[]);
    assert!(v["config_changes"].as_array().unwrap().is_empty(), "{v:#}");
    assert_eq!(code, 0);
    // Identical files: no probe, no changes.
    let (v, code) = diff(&old, &old, &[]);
    assert!(v["config_changes"].as_array().unwrap().is_empty());
    assert_eq!(code, 0);
}

/// Unconfigured code that stops at `#error` (coreutils' md5sum.c without `-DHASH_ALGO_MD5=1`):
/// the file is analysed without the directive, the note says which option configures it, and
/// gcc agrees that the option does.
#[test]
fn an_error_directive_in_unconfigured_code_does_not_end_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let (old, new) = (dir.path().join("old.c"), dir.path().join("new.c"));
    let src = |k: i32| {
        format!(
            "#if ALGO_A\n# define K 1\n#elif ALGO_B\n# define K 2\n#else\n# error \"Can't decide \\\n which algorithm\"\n#endif\nint f(int a) {{ return a + {k}; }}\n"
        )
    };
    write_pair(&old, &new, src);
    let (v, code) = diff(&old, &new, &[]);
    assert_eq!(verdict(&v, "f"), "different", "{v:#}");
    assert_eq!(code, 1);
    let note = assumption_about(&v, "#error");
    assert!(note.contains(":6:") && note.contains("-DALGO_A"), "{note}");
    let configured = Command::new("cc")
        .args(["-E", "-DALGO_A"])
        .arg(&old)
        .output()
        .unwrap();
    assert!(
        configured.status.success(),
        "gcc disagrees: -DALGO_A does not configure it"
    );
    // With that option, nothing is skipped.
    let (v, _) = diff(&old, &new, &["-DALGO_A"]);
    assert!(!v.to_string().contains("#error"), "{v:#}");
}

/// An `#error` in a project header (krb5's `k5-platform.h` without its configure-made
/// `autoconf.h`) does not end the file either: what follows the directive in the header and the
/// file itself are analysed, and the note names the header's line and the option that
/// configures it. A real error next to it still ends the file.
#[test]
fn an_error_directive_in_a_header_does_not_end_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let (old, new) = (dir.path().join("old.c"), dir.path().join("new.c"));
    std::fs::write(
        dir.path().join("platform.h"),
        "#ifdef HAVE_PRAGMA_INIT\n# define INIT 1\n#else\n# error \"Don't know how to do load-time initializers\"\n#endif\n#define STEP 3\n",
    )
    .unwrap();
    let src =
        |k: i32| format!("#include \"platform.h\"\nint f(int a) {{ return a * STEP + {k}; }}\n");
    write_pair(&old, &new, src);
    let (v, code) = diff(&old, &new, &[]);
    assert_eq!(verdict(&v, "f"), "different", "{v:#}");
    assert_eq!(code, 1);
    let note = assumption_about(&v, "#error");
    assert!(
        note.contains("platform.h:4:") && note.contains("-DHAVE_PRAGMA_INIT"),
        "{note}"
    );
    // A real preprocessing error beside the `#error` is still reported as such, at its place
    // in the header.
    std::fs::write(
        dir.path().join("platform.h"),
        "#error \"unconfigured\"\n#if 1 +\n#endif\n",
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_dizy"))
        .arg("diff")
        .arg(&old)
        .arg(&new)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("platform.h:2: preprocessing failed") && !err.contains("#error"),
        "{err}"
    );
}

/// `__FILE__` (glibc's `assert` passes it on) names both versions as the new file, headers
/// beside the file relative to its directory, and `__DATE__`/`__TIME__` are one fixed instant:
/// where each version lies and when it was preprocessed are no difference. A real change next
/// to them still is one, and its witness reproduces natively (the native build names the files
/// the same way).
#[test]
fn file_and_time_macros_do_not_differ_between_the_versions() {
    let dir = tempfile::tempdir().unwrap();
    for v in ["v1", "v2"] {
        std::fs::create_dir(dir.path().join(v)).unwrap();
        std::fs::write(
            dir.path().join(v).join("where.h"),
            "static const int where_len = sizeof(__FILE__);\n",
        )
        .unwrap();
    }
    let src = |k: i32| {
        format!(
            "#include <assert.h>\n#include \"where.h\"\n\
             int f(int a) {{ assert(a < 100); return (int)sizeof(__FILE__) + where_len + (int)sizeof(__DATE__ __TIME__) + a * {k}; }}\n\
             int g(int a) {{ assert(a != 7); return a; }}\n"
        )
    };
    let old = dir.path().join("v1").join("prog.c");
    let new = dir.path().join("v2").join("prog_new.c");
    std::fs::write(&old, src(1)).unwrap();
    std::fs::write(&new, src(1)).unwrap();
    let (v, code) = diff(&old, &new, &[]);
    assert_eq!(verdict(&v, "f"), "unchanged", "{v:#}");
    assert_eq!(verdict(&v, "g"), "unchanged", "{v:#}");
    assert_eq!(code, 0, "{v:#}");
    std::fs::write(&new, src(2)).unwrap();
    let (v, code) = diff(&old, &new, &["--validate", "native"]);
    assert_eq!(verdict(&v, "f"), "different", "{v:#}");
    assert_eq!(verdict(&v, "g"), "unchanged", "{v:#}");
    let f = function(&v, "f").unwrap();
    let by = f["witness"]["validated_by"].to_string();
    assert!(by.contains("native"), "{f:#}");
    let differs = f["diff_points"].to_string();
    assert!(!differs.contains("__assert_fail operand"), "{f:#}");
    assert_eq!(code, 1);
}

/// A GNU statement expression is lowered where it stands (the interpreter's agreement with gcc
/// on them is `tests/corpus/interp/78_statement_exprs.c` and `81_statement_expr_jumps.c`). A
/// `return` inside one (glibc-style `CHECK` macros) or a `break`/`continue` of the loop whose
/// body holds it is lowered; a jump out of a loop's condition (GCC binds it differently in C and
/// C++) or a `goto` makes its function `unsupported` with that reason, and the other functions
/// of the file are analysed.
#[test]
fn statement_expressions_are_lowered_or_rejected_with_a_reason() {
    let dir = tempfile::tempdir().unwrap();
    let (old, new) = (dir.path().join("old.c"), dir.path().join("new.c"));
    let src = |k: i32| {
        format!(
            "#define CHECK(x) ({{ if ((x) < 0) return -1; (x); }})\n\
             #define SQ(x) ({{ int _v = (x); _v * _v; }})\n\
             int f(int a) {{ return CHECK(a) + {k}; }}\n\
             int g(int a) {{ return SQ(a % 100) + {k}; }}\n\
             int h(int a) {{ return SQ(a % 100) - (a % 100) * (a % 100); }}\n\
             int w(int a) {{ int n = 0; while (({{ if (a > 5) break; a++; }})) n += {k}; return n; }}\n\
             int l(int a) {{ int n = 0; for (; a < 9; a++) n += ({{ if (a & 1) break; a; }}); return n + {k}; }}\n"
        )
    };
    write_pair(&old, &new, src);
    let (v, _) = diff(&old, &new, &["--validate", "native"]);
    assert_eq!(verdict(&v, "f"), "different", "{v:#}");
    assert_eq!(verdict(&v, "w"), "unsupported", "{v:#}");
    assert!(
        v.to_string()
            .contains("`break` out of a loop's condition or step inside a statement expression is not supported"),
        "{v:#}"
    );
    assert_eq!(verdict(&v, "l"), "different", "{v:#}");
    assert_eq!(verdict(&v, "g"), "different", "{v:#}");
    assert_eq!(verdict(&v, "h"), "unchanged", "{v:#}");
}

/// A file whose headers are all there but whose configuration leaves a standard name undeclared
/// (autoconf's `#ifdef HAVE_ERRNO_H` around `<errno.h>`, with no `config.h` run): the standard
/// headers are included first, as a build on a POSIX system would have them, and the function
/// that uses `ENOMEM` is analysed instead of being `unsupported`; the report says so and names
/// it. Its witness reproduces natively. A name no standard header declares either (a macro the
/// build defines with `-D`, such as freetype's error prefix) is an unknown constant, the same
/// in both versions, and the report says that the file does not compile as configured.
#[test]
fn standard_names_an_unconfigured_guard_hides_are_declared() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("plat.h"),
        "#ifdef HAVE_CONFIG_H\n#include \"config.h\"\n#endif\n#define CAP_MIN 4\n",
    )
    .unwrap();
    let src = |k: i32, other: bool| {
        let cmp = if k == 1 { ">" } else { ">=" };
        format!(
            "#include \"plat.h\"\n#ifdef HAVE_ERRNO_H\n#include <errno.h>\n#endif\n\
             int grow(int n, int cap) {{ if (cap < CAP_MIN) cap = CAP_MIN; if (n {cmp} cap) return -ENOMEM; return n; }}\n\
             int same(int n) {{ return n * 2; }}\n{}",
            if other {
                format!("int other(int n) {{ return n * {k} + NOT_A_STANDARD_NAME; }}\n")
            } else {
                String::new()
            }
        )
    };
    let (old, new) = (dir.path().join("old.c"), dir.path().join("new.c"));
    write_pair(&old, &new, |k| src(k, true));
    let (v, code) = diff(&old, &new, &[]);
    assert_eq!(code, 1, "{v:#}");
    assert_eq!(verdict(&v, "grow"), "different", "{v:#}");
    assert_eq!(verdict(&v, "same"), "unchanged", "{v:#}");
    assert_eq!(verdict(&v, "other"), "different", "{v:#}");
    assumption_about(&v, "does not compile as configured");
    let note = assumption_about(&v, "leaves standard names undeclared");
    assert!(
        note.contains("<errno.h>") && note.contains("grow"),
        "{note}"
    );
    assert!(!note.contains("other"), "{note}");
    // Without `other`, which no build compiles, the native harness builds the file too.
    write_pair(&old, &new, |k| src(k, false));
    let (v, _) = diff(&old, &new, &["--validate", "native"]);
    let f = function(&v, "grow").unwrap();
    let w = &f["witness"];
    let (n, cap) = (
        w["inputs"]["n"].as_str().unwrap().parse::<i64>().unwrap(),
        w["inputs"]["cap"].as_str().unwrap().parse::<i64>().unwrap(),
    );
    assert_eq!(n, cap.max(4), "{w:#}");
    assert!(w["validated_by"].to_string().contains("native"), "{w:#}");
}

/// `#include FT_FREETYPE_H` whose macro a missing header (`ft2build.h`) defines: the
/// preprocessor skips the line, which dizy treats as one more missing header (listed as a
/// computed include), and the file is analysed — never a whole-file failure. gcc itself fails
/// on it, so the test can tell.
#[test]
fn a_computed_include_of_an_undefined_macro_is_a_missing_header() {
    let dir = tempfile::tempdir().unwrap();
    let (old, new) = (dir.path().join("old.c"), dir.path().join("new.c"));
    let src = |k: i32| {
        format!(
            "#include <ft2build.h>\n#include FT_FREETYPE_H\nint f(int a) {{ return a + {k}; }}\n"
        )
    };
    write_pair(&old, &new, src);
    let gcc = Command::new("cc").arg("-E").arg(&old).output().unwrap();
    assert!(!gcc.status.success(), "gcc accepted the computed include");
    let (v, code) = diff(&old, &new, &[]);
    assert_eq!(verdict(&v, "f"), "different", "{v:#}");
    assert_eq!(code, 1);
    let note = assumption_about(&v, "missing headers");
    assert!(
        note.contains("FT_FREETYPE_H (computed #include) (line 2)") && note.contains("ft2build.h"),
        "{note}"
    );
}

/// Two source trees (`v1/src/a.c`, `v2/src/a.c`) with `-I v2/include`: each version reads its
/// own tree's headers (`v1/include` for the old file), so a macro the new tree's header changed
/// is a difference — with one set of headers for both, the unchanged text hid it. gcc, given
/// each tree's directory, computes the two results the witness claims.
#[test]
fn each_version_reads_its_own_tree_s_headers() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    for (v, k) in [("v1", 1), ("v2", 2)] {
        std::fs::create_dir_all(root.join(v).join("src")).unwrap();
        std::fs::create_dir_all(root.join(v).join("include")).unwrap();
        std::fs::write(
            root.join(v).join("include/cfg.h"),
            format!("#define STEP {k}\n"),
        )
        .unwrap();
        std::fs::write(
            root.join(v).join("src/a.c"),
            "#include \"cfg.h\"\nint f(int x) { return x + STEP; }\nint g(int x) { return x; }\n",
        )
        .unwrap();
    }
    let inc = root.join("v2/include");
    let (v, code) = diff(
        &root.join("v1/src/a.c"),
        &root.join("v2/src/a.c"),
        &["-I", inc.to_str().unwrap(), "--validate", "native"],
    );
    assert_eq!(code, 1, "{v:#}");
    assert_eq!(verdict(&v, "f"), "different", "{v:#}");
    assert_eq!(verdict(&v, "g"), "unchanged", "{v:#}");
    let f = function(&v, "f").unwrap();
    let w = &f["witness"];
    let ret = |v: &str| -> i64 { w[v]["return"].as_str().unwrap().parse().unwrap() };
    let x: i64 = w["inputs"]["x"].as_str().unwrap().parse().unwrap();
    assert_eq!(
        (ret("old"), ret("new")),
        (x + 1, x + 2),
        "STEP is 1 in the old tree, 2 in the new: {w:#}"
    );
    assert!(
        w["validated_by"].as_str().unwrap().contains("native"),
        "{w:#}"
    );
}
