//! `dizy diff --validate native`: witnesses confirmed by the system C compiler with UBSan.
//!
//! Oracle: `cc` running the original source files. Every benchmark pair expected to differ must
//! stay `different` with a witness whose `validated_by` names native execution (or be listed in
//! [`NOT_NATIVE`] with the reason, which the report must give too). Hand-made pairs cover what
//! the benchmarks do not: a witness the native run refutes (`long double`, which the interpreter
//! runs as `double`), witnesses that cannot be checked natively (a link failure, a difference
//! only in a static local), a user `main`, floating-point parameters and globals, and output.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use serde_json::Value as Json;

/// Benchmark pairs whose witness cannot be validated natively, with the reason. None today.
const NOT_NATIVE: &[(&str, &str)] = &[];

fn dizy_json(old: &Path, new: &Path, extra: &[&str]) -> Json {
    let (code, v, stderr) = common::diff_json(old, new, extra);
    assert_eq!(
        code,
        Some(1),
        "dizy diff {} {}: {stderr}",
        old.display(),
        new.display()
    );
    v
}

fn only_function(report: &Json) -> &Json {
    let fs = report["functions"].as_array().expect("functions");
    assert_eq!(fs.len(), 1, "{report:#}");
    &fs[0]
}

fn notes(f: &Json) -> Vec<String> {
    f["notes"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|n| n.as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default()
}

fn natively_validated(f: &Json) -> bool {
    f["verdict"] == "different"
        && f["witness"]["validated_by"]
            .as_str()
            .is_some_and(|v| v.starts_with("interpreter+native"))
}

#[test]
fn every_differing_benchmark_pair_is_confirmed_natively() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("benchmarks");
    let text = std::fs::read_to_string(root.join("manifest.csv")).expect("manifest");
    let pairs: Vec<(String, PathBuf, PathBuf, String)> = text
        .lines()
        .skip(1)
        .map(|l| l.splitn(6, ',').collect::<Vec<_>>())
        .filter(|c| c.len() >= 5 && c[4] == "different")
        .map(|c| (c[0].into(), root.join(c[1]), root.join(c[2]), c[3].into()))
        .collect();
    assert!(pairs.len() >= 15, "{} differing pairs", pairs.len());
    // Two workers: the pairs are independent and each spends most of its time in one process.
    let failures: Vec<String> = std::thread::scope(|s| {
        let workers: Vec<_> = [0, 1]
            .map(|k| {
                let pairs = &pairs;
                s.spawn(move || {
                    let mut bad = vec![];
                    for (id, old, new, func) in pairs.iter().skip(k).step_by(2) {
                        let r = dizy_json(old, new, &["--validate", "native", "-f", func]);
                        let f = only_function(&r);
                        let excused = NOT_NATIVE.iter().find(|(p, _)| p == id);
                        let ok = match excused {
                            None => natively_validated(f),
                            Some(_) => {
                                f["verdict"] == "different"
                                    && notes(f)
                                        .iter()
                                        .any(|n| n.starts_with("native validation not applicable"))
                            }
                        };
                        if !ok {
                            bad.push(format!(
                                "{id}: verdict {}, witness {}, notes {:?}",
                                f["verdict"],
                                f["witness"],
                                notes(f)
                            ));
                        }
                    }
                    bad
                })
            })
            .into_iter()
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().expect("worker"))
            .collect()
    });
    assert!(failures.is_empty(), "{failures:#?}");
}

/// Write a pair of files into a fresh directory.
fn pair(old: &str, new: &str) -> (tempfile::TempDir, PathBuf, PathBuf) {
    let dir = tempfile::tempdir().expect("tempdir");
    let (o, n) = (dir.path().join("old.c"), dir.path().join("new.c"));
    std::fs::write(&o, old).unwrap();
    std::fs::write(&n, new).unwrap();
    (dir, o, n)
}

#[test]
fn a_witness_native_execution_refutes_is_not_different() {
    // The interpreter runs `long double` as `double`, where 1 + 1e-17 == 1; x87 extended
    // precision keeps the difference, so natively both versions return 0 on x = 3.
    let (_d, o, n) = pair(
        "int f(int x)\n{\n    return 0;\n}\n",
        "int f(int x)\n{\n    long double tiny = 1e-17L;\n    if (x == 3)\n        return (1.0L + tiny) == 1.0L;\n    return 0;\n}\n",
    );
    // The interpreter alone finds x = 3, but with `long double` in the file that is not
    // enough for a witness.
    let interp = dizy_json(&o, &n, &[]);
    let f = only_function(&interp);
    assert_eq!(f["verdict"], "possibly-different", "{f:#}");
    assert!(f["witness"].is_null(), "{f:#}");
    assert!(
        notes(f)
            .iter()
            .any(|n| n.contains("long double") && n.contains("x = 3")),
        "{:?}",
        notes(f)
    );
    let native = dizy_json(&o, &n, &["--validate", "native"]);
    let f = only_function(&native);
    assert_eq!(f["verdict"], "possibly-different", "{f:#}");
    assert!(f["witness"].is_null(), "{f:#}");
    assert!(
        notes(f)
            .iter()
            .any(|n| n.contains("native validation failed")
                && n.contains("x = 3")
                && n.contains("natively returns 0")),
        "{:?}",
        notes(f)
    );
}

#[test]
fn a_harness_that_does_not_link_is_reported_not_applicable() {
    // `helper` is declared but defined nowhere: the interpreter never calls it on the witness,
    // but the native program cannot be linked.
    let (_d, o, n) = pair(
        "int helper(int);\nint g(int x) { return helper(x); }\nint f(int x) { return x; }\n",
        "int helper(int);\nint g(int x) { return helper(x); }\nint f(int x) { return x + 1; }\n",
    );
    let f = only_function(&dizy_json(&o, &n, &["--validate", "native", "-f", "f"])).clone();
    assert_eq!(f["verdict"], "different", "{f:#}");
    assert_eq!(f["witness"]["validated_by"], "interpreter", "{f:#}");
    assert!(
        notes(&f)
            .iter()
            .any(|n| n.starts_with("native validation not applicable") && n.contains("helper")),
        "{:?}",
        notes(&f)
    );
}

#[test]
fn a_difference_only_in_a_static_local_is_not_applicable() {
    let (_d, o, n) = pair(
        "int f(int x)\n{\n    static int n;\n    n += x;\n    return 0;\n}\n",
        "int f(int x)\n{\n    static int n;\n    n += 2 * x;\n    return 0;\n}\n",
    );
    let f = only_function(&dizy_json(&o, &n, &["--validate", "native"])).clone();
    assert_eq!(f["verdict"], "different", "{f:#}");
    assert!(
        notes(&f)
            .iter()
            .any(|n| n.starts_with("native validation not applicable") && n.contains("static")),
        "{:?}",
        notes(&f)
    );
}

#[test]
fn main_floats_globals_and_output_are_confirmed() {
    // A user `main` next to the analysed function, and `main` analysed itself.
    let (_d, o, n) = pair(
        "int f(int x) { return x > 0; }\nint main(void) { return f(1); }\n",
        "int f(int x) { return x >= 0; }\nint main(void) { return f(1); }\n",
    );
    let f = only_function(&dizy_json(&o, &n, &["--validate", "native", "-f", "f"])).clone();
    assert!(natively_validated(&f), "{f:#}");
    let (_d, o, n) = pair(
        "int main(void) { return 0; }\n",
        "int main(void) { return 1; }\n",
    );
    let f = only_function(&dizy_json(&o, &n, &["--validate", "native"])).clone();
    assert!(natively_validated(&f), "{f:#}");
    // Floating-point parameters, result and globals.
    let (_d, o, n) = pair(
        "double g;\nfloat h = 1.5f;\ndouble f(double x, float y)\n{\n    g = x / 3;\n    h = h * y;\n    return x + y;\n}\n",
        "double g;\nfloat h = 1.5f;\ndouble f(double x, float y)\n{\n    g = x / 3;\n    h = h * y;\n    return x - y;\n}\n",
    );
    let f = only_function(&dizy_json(&o, &n, &["--validate", "native"])).clone();
    assert!(natively_validated(&f), "{f:#}");
    // Output written with putchar is compared byte for byte.
    let (_d, o, n) = pair(
        "#include <stdio.h>\nvoid f(int x)\n{\n    putchar('a' + (x & 7));\n}\n",
        "#include <stdio.h>\nvoid f(int x)\n{\n    putchar('b' + (x & 7));\n}\n",
    );
    let f = only_function(&dizy_json(&o, &n, &["--validate", "native"])).clone();
    assert!(natively_validated(&f), "{f:#}");
    assert!(f["witness"]["old"]["output"].is_string(), "{f:#}");
}

#[test]
fn formatted_output_and_mathematics_are_confirmed() {
    // `printf` with flags, widths, precisions and length modifiers, `puts`: the interpreter's
    // text must be the compiled program's byte for byte, or native validation refutes it. The
    // witness must make the two versions print differently (x > 10 adds one), so every
    // conversion's text is compared on an input that reaches it.
    let body = |bump: &str| {
        format!(
            "#include <stdio.h>\nvoid f(int x, unsigned char c)\n{{\n    int y = x{bump};\n    printf(\"%5d|%-4x|%#o|%+.3d|%hhu|%lu|%c|%s|%.1s%%\\n\", y, y & 255, y & 63, y % 100, c, (unsigned long)y * 3u, 'a' + (c & 7), \"ab\", \"cd\");\n    puts(\"end\");\n}}\n"
        )
    };
    let (_d, o, n) = pair(&body(""), &body(" + (x > 10)"));
    let f = only_function(&dizy_json(&o, &n, &["--validate", "native"])).clone();
    assert!(natively_validated(&f), "{f:#}");
    let out = f["witness"]["old"]["output"].as_str().expect("output");
    assert!(out.ends_with("%\nend\n"), "{out:?}");
    // The C library's mathematics: the interpreter runs the same libm the harness links with
    // `-lm`; a difference only in the argument of `exp` is found and confirmed.
    let (_d, o, n) = pair(
        "#include <math.h>\ndouble f(double x)\n{\n    return exp(fabs(x)) + log(1.0 + x * x) + pow(2.0, sin(x));\n}\n",
        "#include <math.h>\ndouble f(double x)\n{\n    return exp(fabs(x) + 1e-9) + log(1.0 + x * x) + pow(2.0, sin(x));\n}\n",
    );
    let f = only_function(&dizy_json(&o, &n, &["--validate", "native"])).clone();
    assert!(natively_validated(&f), "{f:#}");
}

/// `<ctype.h>`: glibc's macros read a locale table, which dizy sees as the library functions
/// they stand for; the interpreter's "C" locale must give glibc's exact values (the class bit,
/// not 1), or native validation refutes the witness. DEL (127) is not printable.
#[test]
fn character_classes_are_confirmed() {
    let (_d, o, n) = pair(
        "#include <ctype.h>\nint f(int c)\n{\n    if (c < 0 || c > 255)\n        return -1;\n    return isprint(c) + toupper(c);\n}\n",
        "#include <ctype.h>\nint f(int c)\n{\n    if (c < 0 || c > 255)\n        return -1;\n    return (c >= 32 && c <= 127 ? 16384 : 0) + toupper(c);\n}\n",
    );
    let f = only_function(&dizy_json(&o, &n, &["--validate", "native"])).clone();
    assert!(natively_validated(&f), "{f:#}");
    assert_eq!(f["witness"]["inputs"]["c"], "127", "{f:#}");
}

/// A difference that needs the program's state: `buf` must point to a buffer and `pos` be 0
/// (coreutils pr.c's `char_to_clump` 6.10 → 6.11 in small). The witness sets those globals
/// before the call; the harness sets them the same way and confirms it. A global no code
/// writes keeps its initializer in every run, so it is never set: with `init` gone, `buf` is
/// always null and no witness may claim otherwise.
#[test]
fn witnesses_set_globals_the_function_depends_on() {
    let body = |init: &str, tail: &str| {
        format!("#include <ctype.h>\nstatic char *buf;\nstatic int pos;\nstatic int esc;\n{init}int f(char c)\n{{\n    unsigned char uc = c;\n    char *s = buf;\n    int w, chars;\n    if (!isprint(uc) && c == '\\b' && !esc) {{ w = -1; chars = 1; *s = c; }} else {{ w = 1; chars = 1; *s = c; }}\n    {tail}\n    return chars;\n}}\n")
    };
    let old_tail = "pos += w;";
    let new_tail = "if (w < 0 && pos == 0) { chars = 0; pos = 0; } else pos += w;";
    let init = "void init(char *b) { buf = b; }\n";
    let (_d, o, n) = pair(&body(init, old_tail), &body(init, new_tail));
    let r = dizy_json(&o, &n, &["--validate", "native", "--function", "f"]);
    let f = only_function(&r).clone();
    assert!(natively_validated(&f), "{f:#}");
    let w = &f["witness"];
    assert_eq!(w["inputs"]["c"], "8", "{f:#}");
    assert_eq!(w["global_inputs"]["pos"], "0", "{f:#}");
    assert!(w["global_inputs"]["buf"].is_string(), "{f:#}");
    let (_d, o, n) = pair(&body("", old_tail), &body("", new_tail));
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_dizy"));
    cmd.arg("diff").arg(&o).arg(&n).args(["--format", "json"]);
    let out = common::run_with_timeout(&mut cmd, None, Duration::from_secs(300));
    let r: Json = serde_json::from_str(&out.stdout).expect("json");
    let f = only_function(&r);
    assert!(
        f["witness"].is_null()
            || f["witness"]["global_inputs"]
                .as_object()
                .is_some_and(|g| !g.contains_key("buf")),
        "{f:#}"
    );
}
