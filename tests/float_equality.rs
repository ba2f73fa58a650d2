//! What a floating `==` test lets the analysis conclude under IEEE semantics, and what it must
//! not: `x == 3.0` makes `x` exactly `3.0`, but `y == 0.0` makes `y` exactly `+0.0` only when
//! `y` cannot be `-0.0` (`fabs`, a square, an integer converted); otherwise `y` is one of the
//! two zeros, which are the same result but not the same operand (`1 / y`). Every pair claimed
//! equivalent here is also run natively on the values where IEEE is tricky, so a wrong proof
//! fails twice; every pair that differs (on `-0.0`) is checked to differ natively first.

mod common;

use common::{run_c_lines, verdict_of};
use dizy::diff::Verdict;

/// `f` of `src` run natively on each of `inputs`, its `double` result as a number compares:
/// `nan` for every NaN, `0` for both zeros, else the exact hexadecimal value (the report's
/// semantics: floating values compared as numbers, NaN equal to NaN).
fn native(dir: &std::path::Path, name: &str, src: &str, inputs: &[&str]) -> Vec<String> {
    let calls: String = inputs
        .iter()
        .map(|x| format!("  {{ double r = f({x}); if (isnan(r)) puts(\"nan\"); else if (r == 0) puts(\"0\"); else printf(\"%a\\n\", r); }}\n"))
        .collect();
    run_c_lines(dir, name, src, &calls)
}

const INPUTS: &[&str] = &["0.0", "-0.0", "3.0", "-3.0", "1e308", "-INFINITY", "NAN"];

/// Old and new, the verdict wanted, whether they differ natively on [`INPUTS`].
const CASES: &[(&str, &str, bool)] = &[
    // A nonzero constant: the compared value is that constant.
    (
        "double f(double x) { if (x == 3.0) return x; return 1.0; }",
        "double f(double x) { if (x == 3.0) return 3.0; return 1.0; }",
        false,
    ),
    // Zero, from a value that cannot be -0.0.
    (
        "double f(double x) { double y = fabs(x); if (y == 0.0) return 1.0 / y; return y; }",
        "double f(double x) { double y = fabs(x); if (y == 0.0) return 1.0 / 0.0; return y; }",
        false,
    ),
    (
        "double f(double x) { double y = x * x; if (y == 0.0) return 1.0 / y; return y; }",
        "double f(double x) { double y = x * x; if (y == 0.0) return 1.0 / 0.0; return y; }",
        false,
    ),
    // (bess/pythag's refactoring, but with the branches in their old order)
    (
        "double f(double x) { double y = fabs(x); if (y == 0.0) return 0.0; else return y * 2.0; }",
        "double f(double x) { double y = fabs(x); if (y == 0.0) return y; else return y * 2.0; }",
        false,
    ),
    // Zero from a value that may be -0.0, returned as it is: +0.0 and -0.0 are the same result.
    (
        "double f(double x) { double d = x * 0.5; if (d == 0.0) return 0.0; return d; }",
        "double f(double x) { double d = x * 0.5; if (d == 0.0) return d; return d; }",
        false,
    ),
    // Zero from values that may be -0.0: 1/y is -inf there.
    (
        "double f(double x) { double y = sqrt(x); if (y == 0.0) return 1.0 / y; return 1.0; }",
        "double f(double x) { double y = sqrt(x); if (y == 0.0) return 1.0 / 0.0; return 1.0; }",
        true,
    ),
    (
        "double f(double x) { double y = -x; if (y == 0.0) return 1.0 / y; return 1.0; }",
        "double f(double x) { double y = -x; if (y == 0.0) return 1.0 / 0.0; return 1.0; }",
        true,
    ),
    (
        "double f(double x) { if (x == 0.0) return 1.0 / x; return 1.0; }",
        "double f(double x) { if (x == 0.0) return 1.0 / 0.0; return 1.0; }",
        true,
    ),
    // A function of the file named `fabs` is not the library's: here it keeps -0.0.
    (
        "double fabs(double x) { return x; }\ndouble f(double x) { double y = fabs(x); if (y == 0.0) return 1.0 / y; return y; }",
        "double fabs(double x) { return x; }\ndouble f(double x) { double y = fabs(x); if (y == 0.0) return 1.0 / 0.0; return y; }",
        true,
    ),
];

#[test]
fn equality_with_a_constant_pins_only_what_it_determines() {
    let mut failures = vec![];
    for (k, (old, new, differs)) in CASES.iter().enumerate() {
        let dir = tempfile::tempdir().unwrap();
        let o = native(dir.path(), "o", old, INPUTS);
        let n = native(dir.path(), "n", new, INPUTS);
        assert_eq!(
            o != n,
            *differs,
            "case {k}: native behaviour is not as listed"
        );
        let with_math = |src: &str| format!("#include <math.h>\n{src}\n");
        let v = verdict_of(dir.path(), &with_math(old), &with_math(new), "f");
        let ok = match differs {
            true => !common::claims_no_difference(v),
            false => v == Verdict::Equivalent,
        };
        if !ok {
            failures.push(format!("case {k}: {v:?}\n  old: {old}\n  new: {new}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
