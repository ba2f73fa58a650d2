//! Precision of the Join-Equiv fallback at effects inside nested loops: where many sub-states
//! reach a call, they are joined by their equivalences, but still kept apart by the call's own
//! guards. Joining sub-states where the call runs with ones where it does not made it run in
//! one version alone, the versions' memories stopped agreeing, and every later call (an
//! unknown function reads memory) differed: identical loops came out `possibly-different`.
//! The same holds where a state outgrows `--max-substates`: the forced canonization keeps the
//! guards of the instruction about to run before it falls back to the equivalences alone.

mod common;

use common::verdict_of;
use dizy::diff::Verdict;

/// Three nested loops; the innermost runs only where an unknown call's result says so.
fn program(bound: &str, ret: &str) -> String {
    format!(
        "int g(int a);\n\
         int f(int b) {{\n\
           int im, iy, jd = 0;\n\
           for (iy = b; iy <= b + 1; iy++)\n\
             for (im = 1; im <= {bound}; im++) {{\n\
               if (g(im) > 5) {{\n\
                 for (int u = 0; u < 2; u++) {{ jd++; if (jd == g(jd)) return im; }}\n\
               }}\n\
             }}\n\
           return {ret};\n\
         }}\n"
    )
}

#[test]
fn calls_under_guarded_inner_loops_keep_the_versions_aligned() {
    let dir = tempfile::tempdir().unwrap();
    // The same behaviour written twice (a bound in an unwritten local, `+ 0`): equivalent.
    let old = program("2", "jd");
    let new = program("lv", "jd + 0").replace("int im, iy", "int lv = 2; int im, iy");
    assert_eq!(verdict_of(dir.path(), &old, &new, "f"), Verdict::Equivalent);
    // One more middle iteration in the new version: a call the old version never makes.
    let new = program("3", "jd");
    let v = verdict_of(dir.path(), &old, &new, "f");
    assert!(!common::claims_no_difference(v), "{v:?}");
}

/// A loop whose body selects by a float comparison and may return early: the state before the
/// selected assignments holds more sub-states than the cap allows. Joined by equivalences
/// alone, sub-states where `g` holds met ones where it does not, each version's `e := d`
/// became a weak update of its own, and `e = e'` was lost (EqBench's `ell/zbrent` has this
/// shape at the default cap of 64).
fn capped(ret: &str) -> String {
    format!(
        "double f(double x, double y, int k) {{\n\
           double p = 0, q = 1, e = 0, d = 0;\n\
           for (int i = 0; i < 2; i++) {{\n\
             if (k > i) p = x * y;\n\
             if (k > 5) q = x + y;\n\
             if (2.0 * p < q) {{ e = d; d = p / q; }} else {{ d = x; e = d; }}\n\
             if (d > 7.0) return e;\n\
           }}\n\
           return {ret};\n\
         }}\n"
    )
}

#[test]
fn forced_canonization_keeps_the_guards_of_the_next_instruction() {
    let dir = tempfile::tempdir().unwrap();
    let mut opts = dizy::diff::DiffOptions {
        no_witness: true,
        ..Default::default()
    };
    opts.analysis.max_substates = 4;
    let old = capped("d + e");
    let v = common::verdict_with(dir.path(), &old, &capped("e + d"), "f", &opts);
    assert_eq!(v, Verdict::Equivalent);
    // A real difference at the end stays one.
    let v = common::verdict_with(dir.path(), &old, &capped("d - e"), "f", &opts);
    assert!(!common::claims_no_difference(v), "{v:?}");
}
