//! Loops of another shape (issue 17, item 2): the correlation runs one version's loop unrolled
//! against the other's (k:1, by hand or by the counters' steps), with peeled iterations before
//! it, or split against two consecutive loops (an unrolled part and its remainder), so that
//! the analysis relates iterations that belong together. Every pair is compiled with gcc and run
//! on a grid of inputs: a pair that must be proved is equal there, a near miss is different
//! there and must get a validated witness. The lockstep baseline proves none of the first group
//! (each was `possibly-different` or `partially-equivalent` before the schedules).

mod common;

use common::{run_c_lines, verdict_of};
use dizy::diff::Verdict;

/// `f(n, x)` of `src` compiled and run natively on the grid.
fn native(dir: &std::path::Path, name: &str, src: &str) -> Vec<String> {
    let mut calls = String::new();
    for n in -2..=21 {
        for x in [-7, 0, 1, 3, 250, 1000] {
            calls.push_str(&format!("  printf(\"%d\\n\", f({n}, {x}));\n"));
        }
    }
    run_c_lines(dir, name, src, &calls)
}

/// Pairs that must be proved equivalent.
const PROVED: &[(&str, &str, &str)] = &[
    (
        "unrolled by hand: a guarded second copy of the body",
        "int f(int n, int x) { int i = 0, s = 0; while (i < n) { s += x; i++; } return s; }",
        "int f(int n, int x) { int i = 0, s = 0; while (i < n) { s += x; i++; if (i < n) { s += x; i++; } } return s; }",
    ),
    (
        "stepping by two with a remainder",
        "int f(int n, int x) { int i, s = 0; for (i = 0; i < n; i++) s += x; return s; }",
        "int f(int n, int x) { int i, s = 0; for (i = 0; i + 1 < n; i += 2) { s += x; s += x; } if (i < n) s += x; return s; }",
    ),
    (
        "counters stepping twice as far, rolled up",
        "int f(int n, int x) { int i = 0, j = 0; while (i < n) { j = j + 1; i++; } return j; }",
        "int f(int n, int x) { int i = 0, j = 0; while (i + 1 < n) { j = j + 2; i += 2; } if (i < n) { j++; i++; } return j; }",
    ),
    (
        "the first iteration peeled",
        "int f(int n, int x) { unsigned s = 0; int i = 0; while (i < n) { s = s * 3u + x; i++; } return s & 0xffff; }",
        "int f(int n, int x) { unsigned s = 0; int i = 0; if (i < n) { s = s * 3u + x; i++; } while (i < n) { s = s * 3u + x; i++; } return s & 0xffff; }",
    ),
    (
        "unrolled by four with a remainder loop",
        "int f(int n, int x) { int i, s = 0; for (i = 0; i < n; i++) s += x; return s; }",
        "int f(int n, int x) { int i, s = 0; for (i = 0; i + 3 < n; i += 4) { s += x; s += x; s += x; s += x; } for (; i < n; i++) s += x; return s; }",
    ),
    (
        "the old version was the unrolled one",
        "int f(int n, int x) { int i, s = 0; for (i = 0; i + 3 < n; i += 4) { s += x; s += x; s += x; s += x; } for (; i < n; i++) s += x; return s; }",
        "int f(int n, int x) { int i, s = 0; for (i = 0; i < n; i++) s += x; return s; }",
    ),
];

/// Near misses: natively different, and dizy must show it.
const DIFFERENT: &[(&str, &str, &str)] = &[
    (
        "the unrolled copy adds twice as much",
        "int f(int n, int x) { int i = 0, s = 0; while (i < n) { s += x; i++; } return s; }",
        "int f(int n, int x) { int i = 0, s = 0; while (i < n) { s += x; i++; if (i < n) { s += 2 * x; i++; } } return s; }",
    ),
    (
        "the remainder is missing",
        "int f(int n, int x) { int i, s = 0; for (i = 0; i < n; i++) s += x; return s; }",
        "int f(int n, int x) { int i, s = 0; for (i = 0; i + 1 < n; i += 2) { s += x; s += x; } return s; }",
    ),
    (
        "the peeled iteration runs unconditionally",
        "int f(int n, int x) { unsigned s = 0; int i = 0; while (i < n) { s = s * 3u + x; i++; } return s & 0xffff; }",
        "int f(int n, int x) { unsigned s = 0; int i = 0; { s = s * 3u + x; i++; } while (i < n) { s = s * 3u + x; i++; } return s & 0xffff; }",
    ),
    (
        "the remainder loop steps differently",
        "int f(int n, int x) { int i, s = 0; for (i = 0; i < n; i++) s += x; return s; }",
        "int f(int n, int x) { int i, s = 0; for (i = 0; i + 3 < n; i += 4) { s += x; s += x; s += x; s += x; } for (; i < n; i++) s += 2 * x; return s; }",
    ),
];

#[test]
fn loops_of_another_shape_are_proved_and_near_misses_shown() {
    let mut failures = vec![];
    for (what, old, new) in PROVED {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(
            native(dir.path(), "o", old),
            native(dir.path(), "n", new),
            "{what}: the versions differ natively"
        );
        let v = verdict_of(dir.path(), old, new, "f");
        if v != Verdict::Equivalent {
            failures.push(format!("{what}: {v:?}, wanted equivalent"));
        }
    }
    for (what, old, new) in DIFFERENT {
        let dir = tempfile::tempdir().unwrap();
        assert_ne!(
            native(dir.path(), "o", old),
            native(dir.path(), "n", new),
            "{what}: the versions agree natively"
        );
        let v = verdict_of(dir.path(), old, new, "f");
        if v != Verdict::Different {
            failures.push(format!("{what}: {v:?}, wanted different"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The schedule is visible in the correlating program: an unrolled copy of the old body and a
/// peeled iteration are marked as copies, and every instruction that is not a copy still occurs
/// once.
#[test]
fn copies_of_iterations_are_marked_in_the_product() {
    let dir = tempfile::tempdir().unwrap();
    let load = |name: &str, src: &str| {
        let p = dir.path().join(name);
        std::fs::write(&p, src).unwrap();
        dizy::load_gcl(&p, &Default::default()).unwrap()
    };
    let (_, old, new) = PROVED[0];
    let (o, n) = (load("o.c", old), load("n.c", new));
    let c = dizy::correlate::correlate(&o, &n, "f", &Default::default()).unwrap();
    let copies = c.origins.iter().filter(|x| x.copy).count();
    assert!(
        copies > 0,
        "no copy in {}",
        dizy::correlate::print_correlated(&c)
    );
    let own = |side| {
        c.origins
            .iter()
            .filter(|x| x.side == side && !x.copy)
            .filter_map(|x| x.src)
            .collect::<Vec<_>>()
    };
    let len = |g: &dizy::gcl::GclProgram| g.function("f").unwrap().instrs.len();
    assert_eq!(
        own(dizy::correlate::Side::Old),
        (0..len(&o)).collect::<Vec<_>>()
    );
    assert_eq!(
        own(dizy::correlate::Side::New),
        (0..len(&n)).collect::<Vec<_>>()
    );
}

/// Memory: an array summed, and a buffer filled, by a loop unrolled by four with a remainder
/// loop, against the plain loop — proved through the memory layer once the copies are paired
/// with the plain loop's iterations in order; a store of the unrolled body moved to the wrong
/// offset is shown.
#[test]
fn unrolled_loops_over_memory_are_proved() {
    let sum_old =
        "int f(const int *a, int n) { int i, s = 0; for (i = 0; i < n; i++) s += a[i]; return s; }";
    let sum_new = "int f(const int *a, int n) { int i, s = 0; for (i = 0; i + 3 < n; i += 4) { s += a[i]; s += a[i + 1]; s += a[i + 2]; s += a[i + 3]; } for (; i < n; i++) s += a[i]; return s; }";
    let fill_old = "void f(char *d, int c, int n) { int i; for (i = 0; i < n; i++) d[i] = c; }";
    let fill_new = "void f(char *d, int c, int n) { int i = 0; for (; i + 4 <= n; i += 4) { d[i] = c; d[i + 1] = c; d[i + 3] = c; d[i + 2] = c; } for (; i < n; i++) d[i] = c; }";
    let fill_bad = "void f(char *d, int c, int n) { int i = 0; for (; i + 4 <= n; i += 4) { d[i] = c; d[i + 1] = c; d[i + 2] = c; d[i + 2] = c; } for (; i < n; i++) d[i] = c; }";
    let dir = tempfile::tempdir().unwrap();
    // natively: the sums over a fixed array, and the filled buffers
    let sums = "  int a[24]; for (int k = 0; k < 24; k++) a[k] = k * 37 - 300;\n  for (int n = 0; n <= 20; n++) printf(\"%d\\n\", f(a, n));\n";
    let fills = "  for (int n = 0; n <= 20; n++) { char d[24]; memset(d, '.', 24); f(d, 'x', n); printf(\"%.24s\\n\", d); }\n";
    assert_eq!(
        run_c_lines(dir.path(), "so", sum_old, sums),
        run_c_lines(dir.path(), "sn", sum_new, sums)
    );
    assert_eq!(
        run_c_lines(dir.path(), "fo", fill_old, fills),
        run_c_lines(dir.path(), "fn", fill_new, fills)
    );
    assert_ne!(
        run_c_lines(dir.path(), "fo", fill_old, fills),
        run_c_lines(dir.path(), "fb", fill_bad, fills)
    );
    assert_eq!(
        verdict_of(dir.path(), sum_old, sum_new, "f"),
        Verdict::Equivalent
    );
    assert_eq!(
        verdict_of(dir.path(), fill_old, fill_new, "f"),
        Verdict::Equivalent
    );
    assert_eq!(
        verdict_of(dir.path(), fill_old, fill_bad, "f"),
        Verdict::Different
    );
}
