//! Refactorings that move a value between variables, name a constant or call an unchanged
//! helper keep their instructions paired (by value or by the variable written), and the analysis
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

use dizy::diff::{diff_programs, DiffOptions, Verdict};

fn verdict(dir: &Path, old: &str, new: &str) -> Verdict {
    let load = |name: &str, src: &str| {
        let p = dir.join(name);
        std::fs::write(&p, src).expect("write");
        dizy::load_gcl(&p, &Default::default()).unwrap_or_else(|e| panic!("{e}"))
    };
    let report = diff_programs(
        &load("old.c", old),
        &load("new.c", new),
        &DiffOptions::default(),
    );
    report
        .functions
        .iter()
        .find(|f| f.name == "f")
        .expect("f reported")
        .verdict
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
    let harness = "#include <math.h>\n#include <stdio.h>\ndouble f_old(double);\ndouble f_new(double);\nint main(void) {\n  double xs[] = {0.0, -0.0, 1.0, -1.0, 2.0, 0.5, 3.75, 8.0, -8.0, 1e300, -1e300, 1e-310, NAN, INFINITY, -INFINITY};\n  for (int i = 0; i < 400; i++) {\n    double x = i < 15 ? xs[i] : (i * 7919 % 2003) / 97.0 - 10.0;\n    double a = f_old(x), b = f_new(x);\n    if (!(a == b || (isnan(a) && isnan(b)))) { printf(\"%a\\n\", x); return 0; }\n  }\n  return 0;\n}\n";
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
    let out = run.stdout.trim().to_string();
    (!out.is_empty()).then_some(out)
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
];

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
