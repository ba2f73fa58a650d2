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

#[test]
fn negated_conditions_are_proved_equal() {
    let src = |cond: &str, ty: &str| {
        format!("{ty} f({ty} x) {{ {ty} y = 0, r = 0; if ({cond}) {BODY} return r; }}\n")
    };
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
    let src = |cond: &str, ty: &str| {
        format!("{ty} f({ty} x) {{ {ty} y = 0, r = 0; if ({cond}) {BODY} return r; }}\n")
    };
    for (ty, a, b) in [
        ("int", "x < 8", "x < 9"),
        ("int", "x < 8", "-x > 8"),
        ("double", "x < 8", "-x < -8"),
        // Unsigned negation wraps: `-x > -8u` is not `x < 8u` (x = 0).
        ("unsigned", "x < 8u", "-x > -8u"),
    ] {
        let v = verdict(&src(a, ty), &src(b, ty));
        assert!(
            !matches!(v, Verdict::Equivalent | Verdict::Unchanged),
            "{ty}: {a} against {b}: {v:?}"
        );
    }
}
