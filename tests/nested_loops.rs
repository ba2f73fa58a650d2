//! Precision of the Join-Equiv fallback at effects inside nested loops: where many sub-states
//! reach a call, they are joined by their equivalences, but still kept apart by the call's own
//! guards. Joining sub-states where the call runs with ones where it does not made it run in
//! one version alone, the versions' memories stopped agreeing, and every later call (an
//! unknown function reads memory) differed: identical loops came out `possibly-different`.

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
    assert!(
        !matches!(
            v,
            Verdict::Equivalent | Verdict::Unchanged | Verdict::PartiallyEquivalent
        ),
        "{v:?}"
    );
}
