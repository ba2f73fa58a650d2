//! Refactorings that move a value between variables, name a constant or call an unchanged
//! helper (which may read a table nothing writes) keep their instructions paired (by value or by the variable written), and the analysis
//! proves them `equivalent`; the same pairs with a real change are not, and their witness is
//! confirmed by the compiled program (`--validate native` compares return values bit for bit,
//! NaN equal to NaN, and printed output).
//!
//! Each refactoring is checked against gcc too: both versions run natively on a few hundred
//! inputs (boundary, NaN, infinities, random) must return the same value where dizy says
//! `equivalent`, so a wrong proof fails here even before the fuzzer finds it.

mod common;

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use dizy::diff::Verdict;

fn verdict(dir: &Path, old: &str, new: &str) -> Verdict {
    common::verdict_of(dir, old, new, "f")
}

/// Both versions of `f(double)` compiled apart (`f` and `helper` renamed by the preprocessor)
/// and run on many inputs; returns an input on which their results differ (as numbers, NaN
/// equal to NaN), if any.
fn native_difference(dir: &Path, old: &str, new: &str) -> Option<String> {
    let mut objects = vec![];
    for (side, src) in [("old", old), ("new", new)] {
        let c = dir.join(format!("native_{side}.c"));
        let o = dir.join(format!("native_{side}.o"));
        std::fs::write(&c, src).expect("write");
        let cc = common::run_with_timeout(
            Command::new("cc")
                .args(["-O0", "-w", "-c"])
                .arg(format!("-Df=f_{side}"))
                .arg(format!("-Dhelper=helper_{side}"))
                .arg("-o")
                .arg(&o)
                .arg(&c),
            None,
            Duration::from_secs(60),
        );
        assert_eq!(cc.code(), Some(0), "cc: {}", cc.stderr);
        objects.push(o);
    }
    let harness = "#include <math.h>\n#include <stdio.h>\ndouble f_old(double);\ndouble f_new(double);\nint main(void) {\n  double xs[] = {0.0, -0.0, 1.0, -1.0, 2.0, 0.5, 3.75, 8.0, -8.0, 1e300, -1e300, 1e-310, NAN, INFINITY, -INFINITY};\n  for (int i = 0; i < 400; i++) {\n    double x = i < 15 ? xs[i] : (i * 7919 % 2003) / 97.0 - 10.0;\n    double a = f_old(x), b = f_new(x);\n    if (!(a == b || (isnan(a) && isnan(b)))) { printf(\"DIFF %a\\n\", x); return 0; }\n  }\n  return 0;\n}\n";
    let src = dir.join("native.c");
    let exe = dir.join("native");
    std::fs::write(&src, harness).expect("write");
    let cc = common::run_with_timeout(
        Command::new("cc")
            .args(["-O0", "-w", "-o"])
            .arg(&exe)
            .arg(&src)
            .args(&objects)
            .arg("-lm"),
        None,
        Duration::from_secs(60),
    );
    assert_eq!(cc.code(), Some(0), "cc: {}", cc.stderr);
    let run = common::run_with_timeout(&mut Command::new(&exe), None, Duration::from_secs(60));
    // Lines the functions print themselves are not differences.
    run.stdout
        .lines()
        .find_map(|l| l.strip_prefix("DIFF "))
        .map(str::to_string)
}

/// (refactored old, refactored new, the new version with a real change)
const CASES: &[(&str, &str, &str)] = &[
    // A temporary returned later against the value returned at once, with an unchanged
    // helper that calls the C library's mathematics.
    (
        "#include <math.h>\ndouble helper(double x) { return x < 0.0 ? -exp(-x) : sqrt(x); }\ndouble f(double x) { double ans = 0; if (x <= 2.0) ans = log(fabs(x) + 1.0) * helper(x) + x; else ans = 1.25 + 2.0 / x; return ans; }\n",
        "#include <math.h>\ndouble helper(double x) { return x < 0.0 ? -exp(-x) : sqrt(x); }\ndouble f(double x) { if (x <= 2.0) return log(fabs(x) + 1.0) * helper(x) + x; else return 1.25 + 2.0 / x; }\n",
        "#include <math.h>\ndouble helper(double x) { return x < 0.0 ? -exp(-x) : sqrt(x); }\ndouble f(double x) { if (x <= 2.0) return log(fabs(x) + 1.0) * helper(x) + x; else return 1.25 + 3.0 / x; }\n",
    ),
    // A named constant.
    (
        "double f(double x) { double y = 0; if (x <= 2.0) y = x * x / 4.0; else y = 2.0 / x; return y; }\n",
        "double f(double x) { double two = 2.0; double y = 0; if (x <= two) y = x * x / 4.0; else y = two / x; return y; }\n",
        "double f(double x) { double two = 2.0; double y = 0; if (x <= two) y = x * x / 4.0; else y = two * x; return y; }\n",
    ),
    // A field written through a temporary.
    (
        "struct S { double a, b; };\ndouble f(double x) { struct S s; s.a = x; s.b = x * x + 1.0; return s.a + s.b; }\n",
        "struct S { double a, b; };\ndouble f(double x) { struct S s; s.a = x; double t = x * x + 1.0; s.b = t; return s.a + s.b; }\n",
        "struct S { double a, b; };\ndouble f(double x) { struct S s; s.a = x; double t = x * x + 1.0; s.b = t * 1.5; return s.a + s.b; }\n",
    ),
    // A helper that reads a table no code writes (and prints a literal message), called on
    // equal arguments, next to a dead store.
    (
        "#include <stdio.h>\nstatic double tab[3] = {0.5, -1.25, 3.0};\ndouble helper(double x, int m) { double d = 0.0; int j; if (x > 100.0) printf(\"%s\\n\", \"big\"); for (j = m - 1; j >= 0; j--) d = d * x + tab[j]; return d; }\ndouble f(double x) { double y = x * x; double a = helper(y, 3); double b = helper(x, 2); return a - b; }\n",
        "#include <stdio.h>\nstatic double tab[3] = {0.5, -1.25, 3.0};\ndouble helper(double x, int m) { double d = 0.0; int j; if (x > 100.0) printf(\"%s\\n\", \"big\"); for (j = m - 1; j >= 0; j--) d = d * x + tab[j]; return d; }\ndouble f(double x) { double y = x * x; double a = helper(y, 3); double b = helper(x, 2); y = 10.0; return a - b; }\n",
        "#include <stdio.h>\nstatic double tab[3] = {0.5, -1.25, 3.0};\ndouble helper(double x, int m) { double d = 0.0; int j; if (x > 100.0) printf(\"%s\\n\", \"big\"); for (j = m - 1; j >= 0; j--) d = d * x + tab[j]; return d; }\ndouble f(double x) { double y = x * x; double a = helper(y, 3); double b = helper(x, 3); return a - b; }\n",
    ),
    // A subexpression moved into a temporary, a pure call's result named, and a table read
    // through a variable index.
    (
        "#include <math.h>\nstatic const double tab[4] = {0.25, 1.5, -2.0, 8.0};\ndouble f(double x) { double b = x + 1.0; double z = fabs(x); int i = (int)fmod(z, 4.0); double r = b + x * 3.5 * tab[i] + x; return r / (1.0 + 0.5 * z); }\n",
        "#include <math.h>\nstatic const double tab[4] = {0.25, 1.5, -2.0, 8.0};\ndouble f(double x) { double b = x + 1.0; int i = (int)fmod(fabs(x), 4.0); double t = x * 3.5 * tab[i]; double r = b + t + x; return r / (1.0 + 0.5 * fabs(x)); }\n",
        "#include <math.h>\nstatic const double tab[4] = {0.25, 1.5, -2.0, 8.0};\ndouble f(double x) { double b = x + 1.0; int i = (int)fmod(fabs(x), 4.0); double t = x * 3.5 * tab[i]; double r = b + t + x; return r / (1.0 + 0.25 * fabs(x)); }\n",
    ),
    // A branch on an integer that picks 1.0 or 0.0, against the integer converted.
    (
        "double f(double x) { int c = x > 0.5; double r; if (c) r = 1.0; else r = 0.0; return r * 3.0 + x; }\n",
        "double f(double x) { int c = x > 0.5; double r = (double)c; return r * 3.0 + x; }\n",
        "double f(double x) { int c = x > 0.5; double r = (double)c; return r * 2.0 + x; }\n",
    ),
    // An unchanged helper that reinterprets a value's bits by `memcpy` between its own
    // locals (EqBench's sine/mysin): congruent, though it takes addresses and calls memcpy.
    (
        "#include <string.h>\nlong helper(double v) { long b; memcpy(&b, &v, sizeof b); return b; }\ndouble f(double x) { double h = 0.5; long l = helper(x + h); l &= 0xFFFF0000L; return (double)l; }\n",
        "#include <string.h>\nlong helper(double v) { long b; memcpy(&b, &v, sizeof b); return b; }\ndouble f(double x) { double half = 0.5; long l = helper(x + half); l &= 0xFFFF0000L; return (double)l; }\n",
        "#include <string.h>\nlong helper(double v) { long b; memcpy(&b, &v, sizeof b); return b; }\ndouble f(double x) { double half = 0.5; long l = helper(x + half); l &= 0xFFFE0000L; return (double)l; }\n",
    ),
    // Elements of local arrays with equal contents, read at a loop's index.
    (
        "double f(double x) { double t[3] = {0.5, 1.25, -3.0}; double s = 0.0; for (int j = 0; j < 3; j++) s += t[j] * x; return s; }\n",
        "double f(double x) { double t[3] = {0.5, 1.25, -3.0}; double s = 0.0; int j; for (j = 0; j < 3; j++) s = s + x * t[j]; return s; }\n",
        "double f(double x) { double t[3] = {0.5, 1.25, -3.5}; double s = 0.0; int j; for (j = 0; j < 3; j++) s = s + x * t[j]; return s; }\n",
    ),
];

/// `old` and `new` differ when gcc runs them, and dizy does not call them equivalent.
fn different_natively_and_not_proved(old: &str, new: &str) {
    let dir = tempfile::tempdir().expect("tempdir");
    assert!(native_difference(dir.path(), old, new).is_some());
    let v = verdict(dir.path(), old, new);
    assert!(
        matches!(v, Verdict::Different | Verdict::PossiblyDifferent),
        "{v:?}"
    );
}

/// `-0.0` is not `(double)0`: their reciprocals are -inf and +inf.
#[test]
fn negative_zero_is_not_a_converted_zero() {
    let old = "double f(double x) { int c = x > 0.5; double r; if (c) r = 1.0; else r = -0.0; return 1.0 / r; }\n";
    let new = "double f(double x) { int c = x > 0.5; double r = (double)c; return 1.0 / r; }\n";
    different_natively_and_not_proved(old, new);
}

/// A temporary stands for its expression only while the expression's operands keep their
/// values: here `t` is computed before `j` changes, so `t + t` is not `r + j * 2.5`.
#[test]
fn stale_definitions_are_not_substituted() {
    let old = "double f(double x) { double j = x; double r = j * 2.5; j = j + 1.0; return r + j * 2.5; }\n";
    let new =
        "double f(double x) { double j = x; double t = j * 2.5; j = j + 1.0; return t + t; }\n";
    different_natively_and_not_proved(old, new);
}

/// A helper reading a global is congruent only while no code can change the global and both
/// versions declare it alike: with a changed initializer, a store in one version, its address
/// passed to unknown code, or (for a global other files can see) unknown code run, `f` is not
/// equivalent.
#[test]
fn helpers_reading_globals_that_may_change_are_not_congruent() {
    let helper = "double helper(double x) { return x * k[0] + k[1]; }\n";
    let cases: &[(&str, &str)] = &[
        // The initializer changed.
        (
            "static double k[2] = {1.0, 2.0};\nvoid set(double);\n",
            "static double k[2] = {1.0, 3.0};\nvoid set(double);\n",
        ),
        // The new version writes the table before calling the helper.
        (
            "static double k[2] = {1.0, 2.0};\nvoid set(double v) { (void)v; }\n",
            "static double k[2] = {1.0, 2.0};\nvoid set(double v) { k[1] = v; }\n",
        ),
        // Its address escapes to an unknown function in the new version.
        (
            "static double k[2] = {1.0, 2.0};\nvoid ext(double *);\nvoid set(double v) { (void)v; }\n",
            "static double k[2] = {1.0, 2.0};\nvoid ext(double *);\nvoid set(double v) { ext(k); }\n",
        ),
        // Visible to other files, and an unknown function runs in the new version.
        (
            "double k[2] = {1.0, 2.0};\nvoid ext(void);\nvoid set(double v) { (void)v; }\n",
            "double k[2] = {1.0, 2.0};\nvoid ext(void);\nvoid set(double v) { ext(); }\n",
        ),
    ];
    for (n, (gold, gnew)) in cases.iter().enumerate() {
        let dir = tempfile::tempdir().expect("tempdir");
        let body = "double f(double x) { set(x); return helper(x); }\n";
        let old = format!("{gold}{helper}{body}");
        let new = format!("{gnew}{helper}{body}");
        let v = verdict(dir.path(), &old, &new);
        assert!(
            matches!(v, Verdict::Different | Verdict::PossiblyDifferent),
            "case {n}: {v:?}"
        );
    }
}

#[test]
fn refactorings_are_proved_and_real_changes_are_not() {
    for (k, (old, new, changed)) in CASES.iter().enumerate() {
        let dir = tempfile::tempdir().expect("tempdir");
        assert_eq!(
            native_difference(dir.path(), old, new),
            None,
            "case {k}: the refactoring is not one natively"
        );
        assert_eq!(
            verdict(dir.path(), old, new),
            Verdict::Equivalent,
            "case {k}"
        );
        assert!(
            native_difference(dir.path(), old, changed).is_some(),
            "case {k}: the change is invisible natively"
        );
        let v = verdict(dir.path(), old, changed);
        assert!(
            matches!(v, Verdict::Different | Verdict::PossiblyDifferent),
            "case {k}: a real change is {v:?}"
        );
    }
}

/// A helper's `memcpy` keeps it congruent only when it copies between its own whole
/// variables: copying from a global the versions write differently, or only part of a local
/// (the rest of which the helper then returns), is not a deterministic function of the
/// arguments.
#[test]
fn helpers_copying_memory_from_outside_their_frame_are_not_congruent() {
    let from_global = |k: &str| {
        format!("#include <string.h>\nstatic double g;\nlong helper(double v) {{ long b; memcpy(&b, &g, sizeof b); return b + (long)v; }}\ndouble f(double x) {{ g = x{k}; return (double)helper(x); }}\n")
    };
    different_natively_and_not_proved(&from_global(""), &from_global(" + 1.0"));
    let dir = tempfile::tempdir().expect("tempdir");
    let partial =
        "#include <string.h>\nlong helper(double v) { long b; memcpy(&b, &v, 4); return b; }\n";
    let v = verdict(
        dir.path(),
        &format!("{partial}double f(double x) {{ return (double)helper(x); }}\n"),
        &format!("{partial}double f(double y) {{ double z = y; return (double)helper(z); }}\n"),
    );
    assert_ne!(v, Verdict::Equivalent);
}

/// The verdict on `f` with witnesses off, so that only the analysis speaks.
fn analysis_verdict(old: &str, new: &str, no_inline: bool) -> Verdict {
    let dir = tempfile::tempdir().expect("tempdir");
    let opts = dizy::diff::DiffOptions {
        no_inline,
        no_witness: true,
        ..Default::default()
    };
    common::verdict_with(dir.path(), old, new, "f", &opts)
}

/// An unchanged helper that calls a function of the file named like a library one (`sqrt`
/// counting its calls in a global) is not congruent: its calls write that global.
#[test]
fn a_helper_calling_a_file_function_with_a_library_name_writes_what_it_writes() {
    let head = "int counter;\ndouble sqrt(double x) { counter++; return x * 0.5; }\nstatic double h(double x) { return sqrt(x) + 1.0; }\n";
    let old =
        format!("{head}int f(double x) {{ counter = 0; double a = h(x); return counter; }}\n");
    let new = format!("{head}int f(double x) {{ counter = 0; double a = h(x); double b = h(x); return counter; }}\n");
    assert_eq!(
        analysis_verdict(&old, &new, false),
        Verdict::PossiblyDifferent
    );
}

/// A function of the file named like a library function is not that function: two calls of it
/// on equal arguments are equal only if its two versions are the same code. Here `fabs`
/// changed and its calls stay calls (`--no-inline`): `f` must not be proved equivalent.
#[test]
fn a_file_function_with_a_library_name_is_not_the_library() {
    let old = "double fabs(double x) { return x < 0 ? fabs(-x) : x; }\ndouble f(double x) { double z = fabs(x); return z; }\n";
    let new = "double fabs(double x) { return x < 0 ? fabs(-x) + 1.0 : x; }\ndouble f(double x) { double z = fabs(x); return z; }\n";
    let v = analysis_verdict(old, new, true);
    assert_eq!(v, Verdict::PossiblyDifferent);
}

/// Two matched calls of one external function on equal arguments have equal effects (the
/// report's assumption): a global that was equal before them is equal after, so a change that
/// only adds dead code after such a call (here `isprint`, which glibc's `<ctype.h>` turns into a
/// call of `__ctype_b_loc` and a table read, as in coreutils' `char_to_clump`) is proved.
#[test]
fn globals_equal_before_a_matched_external_call_stay_equal() {
    for head in ["#include <ctype.h>\n", "int isprint(int);\n"] {
        let body = |extra: &str| {
            format!("{head}int g;\nint f(char c) {{ unsigned char uc = c; int w; if (!isprint(uc)) w = 4; else w = 1; {extra}g += w; return w; }}\n")
        };
        let (old, new) = (body(""), body("if (w < 0 && g == 0) return 0; "));
        assert_eq!(
            analysis_verdict(&old, &new, false),
            Verdict::Equivalent,
            "{head}"
        );
    }
}

/// The same calls after the versions wrote different values to the global: the callee need not
/// write it, so the difference may survive the calls and nothing is proved.
#[test]
fn globals_unequal_before_a_matched_external_call_may_stay_unequal() {
    let body = |k: i32| {
        format!("int h(int);\nint g;\nint f(int x) {{ g = {k}; int r = h(x); return g + r; }}\n")
    };
    assert_eq!(
        analysis_verdict(&body(1), &body(2), false),
        Verdict::PossiblyDifferent
    );
}

/// Matched stores of equal values at equal addresses keep the globals that were equal equal
/// (both versions write the same bytes of the same memory); stores at different addresses do
/// not (`buf + 1` may be `&pos` in one version only).
#[test]
fn globals_across_matched_and_unmatched_stores_through_pointers() {
    let body = |store: &str, extra: &str| {
        format!("static char *buf;\nstatic int pos;\nint f(char c) {{ {store} = c; {extra}pos += 1; return pos; }}\n")
    };
    let dead = "if (pos < -5 && pos > 5) return 0; ";
    assert_eq!(
        analysis_verdict(&body("*buf", ""), &body("*buf", dead), false),
        Verdict::Equivalent
    );
    assert_eq!(
        analysis_verdict(&body("buf[0]", ""), &body("buf[1]", dead), false),
        Verdict::PossiblyDifferent
    );
}
