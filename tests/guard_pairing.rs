//! A guard whose condition was rewritten keeps its body matched, and the analysis proves the
//! two conditions equal where they are (the same comparison with both operands negated), so
//! the rewrite is `equivalent`; where they are not, the verdict is not.
//!
//! Oracle for the negative cases: `tests/soundness_classes.rs` validates witnesses natively;
//! here the verdicts and the correlation's pairs are checked.

use dizy::diff::{diff_programs, DiffOptions, Verdict};
use dizy::gcl::GclProgram;

fn load(dir: &std::path::Path, name: &str, src: &str) -> GclProgram {
    let p = dir.join(name);
    std::fs::write(&p, src).expect("write");
    dizy::load_gcl(&p, &Default::default()).unwrap_or_else(|e| panic!("{e}"))
}

fn verdict(old: &str, new: &str) -> Verdict {
    let dir = tempfile::tempdir().expect("tempdir");
    let (po, pn) = (
        load(dir.path(), "old.c", old),
        load(dir.path(), "new.c", new),
    );
    let report = diff_programs(&po, &pn, &DiffOptions::default());
    let f = report
        .functions
        .iter()
        .find(|f| f.name == "f")
        .expect("f reported");
    f.verdict
}

const BODY: &str = "{ y = x * x; r = y / (x + 10.5); } else { r = 8.0 / x; r = r * r; }";

/// `f` of type `ty` branching on `cond` into `body` (by default [`BODY`]).
fn src_with(cond: &str, ty: &str, body: &str) -> String {
    format!("{ty} f({ty} x) {{ {ty} y = 0, r = 0; if ({cond}) {body} return r; }}\n")
}

fn src(cond: &str, ty: &str) -> String {
    src_with(cond, ty, BODY)
}

/// `old` against `new` is neither `equivalent` nor `unchanged`.
fn assert_not_proved(old: &str, new: &str, what: &str) {
    let v = verdict(old, new);
    assert!(
        !matches!(v, Verdict::Equivalent | Verdict::Unchanged),
        "{what}: {v:?}"
    );
}

#[test]
fn negated_conditions_are_proved_equal() {
    for ty in ["double", "int"] {
        for (a, b) in [
            ("x < 8", "-x > -8"),
            ("x <= 8", "-8 <= -x"),
            ("x != 3", "-x != -3"),
        ] {
            let v = verdict(&src(a, ty), &src(b, ty));
            assert_eq!(v, Verdict::Equivalent, "{ty}: {a} against {b}");
        }
    }
}

#[test]
fn conditions_that_differ_are_not_equivalent() {
    for (ty, a, b) in [
        ("int", "x < 8", "x < 9"),
        ("int", "x < 8", "-x > 8"),
        ("double", "x < 8", "-x < -8"),
        // Unsigned negation wraps: `-x > -8u` is not `x < 8u` (x = 0).
        ("unsigned", "x < 8u", "-x > -8u"),
    ] {
        assert_not_proved(&src(a, ty), &src(b, ty), &format!("{ty}: {a} against {b}"));
    }
}

/// A condition negated with its branches swapped pairs with the original as its opposite, and
/// the analysis proves the guards opposite where the complement is exact: `==` against `!=`
/// for every type (NaN included), `<` against `>=` over integers.
#[test]
fn negated_conditions_with_swapped_branches_are_proved_equal() {
    let swapped = "{ r = 8.0 / x; r = r * r; } else { y = x * x; r = y / (x + 10.5); }";
    for (ty, a, b) in [
        ("double", "x == 3", "x != 3"),
        ("double", "x != 3", "x == 3"),
        ("int", "x < 8", "x >= 8"),
        ("int", "x > 8", "x <= 8"),
    ] {
        let v = verdict(&src(a, ty), &src_with(b, ty, swapped));
        assert_eq!(v, Verdict::Equivalent, "{ty}: {a} against {b}");
    }
    // Not a complement: NaN makes both `x < 8` and `x >= 8` false; other operands.
    for (ty, a, b) in [
        ("double", "x < 8", "x >= 8"),
        ("int", "x == 3", "x != 4"),
        ("int", "x < 8", "x >= 9"),
    ] {
        assert_not_proved(
            &src(a, ty),
            &src_with(b, ty, swapped),
            &format!("{ty}: {a} against {b}"),
        );
    }
}

/// A condition the numeric domain cannot express (floating comparisons under IEEE) split into
/// two `if`s: the outcomes of its comparisons are remembered on each path, so the split is
/// proved; with another comparison, or after an operand changed, it is not.
#[test]
fn split_floating_disjunctions_are_proved_equal() {
    let joined = "double f(double x, double a) { if (x < 0.0 || a <= 0.0) return -1.0; return x * a + 1.0; }\n";
    let split = "double f(double x, double a) { if (x < 0.0) return -1.0; if (a <= 0.0) return -1.0; return x * a + 1.0; }\n";
    let mirrored = "double f(double x, double a) { if (0.0 > x) return -1.0; if (0.0 >= a) return -1.0; return x * a + 1.0; }\n";
    assert_eq!(verdict(joined, split), Verdict::Equivalent);
    assert_eq!(verdict(joined, mirrored), Verdict::Equivalent);
    let other = "double f(double x, double a) { if (x < 0.0) return -1.0; if (a < 0.0) return -1.0; return x * a + 1.0; }\n";
    assert_not_proved(joined, other, "another comparison");
    // The second test reads `x` after it changed: its outcome is not the first one's.
    let twice = "int f(double x) { int r = 0; if (x < 1.0) r = 1; x = x * 2.0; if (x < 1.0) r = r + 2; return r; }\n";
    let once = "int f(double x) { int r = 0; if (x < 1.0) { r = 1; x = x * 2.0; r = r + 2; } else { x = x * 2.0; } return r; }\n";
    assert_not_proved(twice, once, "a stale outcome");
}

/// An integer test's false branch `x != 1` is two pieces (`x <= 0`, `x >= 2`) that the next
/// join merges; its outcome is remembered, so a later test of the same comparison (in either
/// version) is decided: a `switch` and the `if` chain testing the same values are equivalent,
/// also when the chain tests them in another order or with `!=`. Changing one returned value
/// or one tested value is not proved.
#[test]
fn switch_against_an_if_chain_is_proved() {
    let sw = "int f(int x) { switch (x) { case 1: return 10; case 2: return 20; \
              default: return 0; } }\n";
    for chain in [
        "int f(int x) { if (x == 1) return 10; else if (x == 2) return 20; return 0; }\n",
        "int f(int x) { if (x == 2) return 20; if (x == 1) return 10; return 0; }\n",
        "int f(int x) { if (x != 1) { if (x != 2) return 0; return 20; } return 10; }\n",
    ] {
        assert_eq!(verdict(sw, chain), Verdict::Equivalent, "{chain}");
    }
    let one = "int f(int x) { switch (x) { case 1: return 10; default: return 0; } }\n";
    let one_if = "int f(int x) { if (x == 1) return 10; return 0; }\n";
    assert_eq!(verdict(one, one_if), Verdict::Equivalent);
    assert_not_proved(
        sw,
        "int f(int x) { if (x == 1) return 10; else if (x == 3) return 20; return 0; }\n",
        "another tested value",
    );
    assert_not_proved(
        sw,
        "int f(int x) { if (x == 1) return 10; else if (x == 2) return 21; return 0; }\n",
        "another returned value",
    );
    // a remembered outcome is forgotten when an operand is written
    assert_not_proved(
        "int f(int x) { if (x != 1) { x = x + 1; if (x == 1) return 5; } return 0; }\n",
        "int f(int x) { if (x != 1) { x = x + 1; if (x == 2) return 5; } return 0; }\n",
        "a test after its operand changed",
    );
}

/// A `return e;` moved into both branches of an `if` (tail duplication): one copy matches the
/// old `return`, the other runs alone, earlier. The two copies compute the same expression over
/// equal variables, which their symbolic definitions show right after the assignment
/// (`Analyzer::defs_agree`), so the rewrite is `equivalent` — also for a non-linear
/// expression; a copy that differs is not.
#[test]
fn a_return_duplicated_into_both_branches_is_proved() {
    let old = "int f(int a, int b) { if (a > b) a = a * 2; return (a ^ b) * b; }\n";
    let dup = |then: &str| {
        format!(
            "int f(int a, int b) {{ if (a > b) {{ a = a * 2; return {then}; }} return (a ^ b) * b; }}\n"
        )
    };
    assert_eq!(verdict(old, &dup("(a ^ b) * b")), Verdict::Equivalent);
    assert_eq!(verdict(old, &dup("(a ^ b) * a")), Verdict::Different);
}
