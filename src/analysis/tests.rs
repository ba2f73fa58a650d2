//! Soundness of the transfer functions against concrete execution.
//!
//! Oracle: the interpreter. A correlated pair is analysed, then its product program is run on
//! many inputs with [`Interp::call_observe`], which gives the final value of every variable of
//! the product. Each run is a concrete point over the analysis's dimensions: every tracked
//! integer location (scalar variables and the cells of aggregates; floating and pointer values
//! are left free, as are values never written) takes its final value. The exit state
//! `states[len]` must contain the point: some sub-state whose data, met with `dim = value` for
//! each of them, is not empty. Runs that end in undefined behaviour or run out of steps are not
//! executions of the program and are skipped; each test checks that enough runs were compared
//! and that the exit state is precise enough to reject a wrong point, so a checker that accepts
//! everything would fail.

use std::path::Path;

use dizy_domains::{ConstraintKind, Dim, DomainKind, LinConstraint, LinExpr, NumDomain};

use super::{analyze, type_range, Analysis, Options, Overflow, Soft, State};
use crate::correlate::{self, Correlated};
use crate::gcl::GclProgram;
use crate::interp::{Interp, Observed, RunError, Value};
use crate::ir::CType;

// ------------------------------------------------------------------------------ fixtures

fn load(path: &Path) -> GclProgram {
    crate::load_gcl(path, &Default::default()).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Two versions given as source text, correlated on `func`.
fn pair(old: &str, new: &str, func: &str) -> Correlated {
    let dir = tempfile::tempdir().expect("tempdir");
    let write = |name: &str, src: &str| {
        let p = dir.path().join(name);
        std::fs::write(&p, src).expect("write");
        load(&p)
    };
    let (po, pn) = (write("old.c", old), write("new.c", new));
    correlate::correlate(&po, &pn, func, &Default::default()).expect("correlate")
}

/// A pair of `tests/corpus/correlate/` with the entry function named in `old.c`.
fn corpus_pair(name: &str) -> Correlated {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/corpus/correlate")
        .join(name);
    let text = std::fs::read_to_string(dir.join("old.c")).expect("old.c");
    let entry = text
        .lines()
        .next()
        .and_then(|l| l.split("entry:").nth(1))
        .and_then(|r| {
            r.trim()
                .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .next()
        })
        .expect("entry comment")
        .to_string();
    let (po, pn) = (load(&dir.join("old.c")), load(&dir.join("new.c")));
    correlate::correlate(&po, &pn, &entry, &Default::default()).expect("correlate")
}

/// Deterministic inputs for the product's parameters: boundary values of each type, small
/// values and pseudo-random ones (xorshift), `n` tuples.
fn inputs(c: &Correlated, n: usize, seed: u64) -> Vec<Vec<Value>> {
    let f = c.product();
    let ranges: Vec<(i128, i128)> = f
        .func
        .params
        .iter()
        .map(|p| {
            let ty = &f.func.var(*p).ty;
            type_range(ty)
                .filter(|_| ty.is_integer() || *ty == CType::Bool)
                .unwrap_or_else(|| panic!("parameter of type {ty:?}: integers only"))
        })
        .collect();
    let mut state = seed | 1;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut out = vec![];
    for k in 0..n {
        let tuple = ranges
            .iter()
            .map(|&(lo, hi)| {
                let r = next();
                let v = match k % 4 {
                    // Boundaries and their neighbours.
                    0 => [lo, lo + 1, -1, 0, 1, hi - 1, hi][(r % 7) as usize],
                    // Small values, where the interesting branches are.
                    1 | 2 => (r % 41) as i128 - 20,
                    // Anywhere in the type.
                    _ => lo + (r as i128).rem_euclid(hi - lo + 1),
                };
                Value::Int(v.clamp(lo, hi))
            })
            .collect();
        out.push(tuple);
    }
    out
}

// ------------------------------------------------------------------------------ the check

/// The concrete point of one run: `(dimension, value)` for every tracked integer location
/// whose final value is known.
fn point(c: &Correlated, a: &Analysis, finals: &[Option<Observed>]) -> Vec<(Dim, i128)> {
    let f = c.product();
    let int_of = |o: &Observed| match o {
        Observed::Scalar(Value::Int(v), ty) if !ty.is_pointer() && !ty.is_float() => Some(*v),
        _ => None,
    };
    let mut out = vec![];
    for (i, fin) in finals.iter().enumerate() {
        let v = crate::ir::VarId::new(i);
        let Some(fin) = fin else { continue };
        if let Some(d) = a.dims.of(v) {
            if let Some(x) = int_of(fin) {
                out.push((d, x));
            }
        } else if let (Some(cells), Observed::Fields(leaves)) = (a.dims.cells(v), fin) {
            for cell in cells {
                let leaf = leaves.iter().find(|(p, _)| *p == cell.path);
                if let Some(x) = leaf.and_then(|(_, o)| int_of(o)) {
                    out.push((cell.dim, x));
                }
            }
        }
        debug_assert!(f.func.vars.len() > i);
    }
    out
}

/// Whether some sub-state of `state` contains the point.
fn contains(state: &State, point: &[(Dim, i128)]) -> bool {
    let eqs: Vec<LinConstraint> = point
        .iter()
        .map(|&(d, x)| {
            let e = LinExpr::from_terms(&[(1, d)], -x).expect("small");
            LinConstraint::new(e, ConstraintKind::Eq)
        })
        .collect();
    state.iter().any(|s| {
        let mut data = s.data.clone();
        let b = crate::limits::Budget::unlimited();
        data.s_meet_constraints(&eqs, &b).expect("meet");
        !data.s_is_bottom(&b).expect("is_bottom")
    })
}

struct Checked {
    /// Runs compared with the exit state.
    runs: usize,
    /// Runs skipped (undefined behaviour, step budget).
    skipped: usize,
    /// Whether some run's point, with one coordinate moved, fell outside the exit state.
    rejects_wrong: bool,
}

/// Analyse `c` under `opts`, run the product on `inputs` and check every run's final point
/// against the exit state. Panics on the first point outside it. With `perturb`, the runs'
/// points are also moved one coordinate at a time until the state rejects one.
fn check(c: &Correlated, opts: &Options, inputs: &[Vec<Value>], perturb: bool) -> Checked {
    let a = analyze(c, opts, &crate::limits::Budget::unlimited()).expect("analysis");
    let f = c.product();
    let exit = a.states[crate::ir::Pos::new(f.instrs.len())].clone();
    let vars: Vec<crate::ir::VarId> = (0..f.func.vars.len()).map(crate::ir::VarId::new).collect();
    let mut out = Checked {
        runs: 0,
        skipped: 0,
        rejects_wrong: false,
    };
    for args in inputs {
        let mut it = Interp::new(&c.program).with_budget(50_000);
        let finals = match it.call_observe(&f.name, args, &vars) {
            Ok((_, finals)) => finals,
            Err(RunError::Ub { .. } | RunError::Budget { .. } | RunError::Depth { .. }) => {
                out.skipped += 1;
                continue;
            }
            Err(e) => panic!("{}: run on {args:?}: {e}", c.name),
        };
        let Some(exit) = &exit else {
            panic!(
                "{}: a run on {args:?} returned, but the analysis finds the exit unreachable",
                c.name
            );
        };
        let p = point(c, &a, &finals);
        assert!(!p.is_empty(), "{}: no tracked value observed", c.name);
        if !contains(exit, &p) {
            let named: Vec<String> = p
                .iter()
                .map(|&(d, x)| format!("{} = {x}", a.dims.names[d.index()]))
                .collect();
            let abs: Vec<Vec<String>> = exit
                .iter()
                .map(|s| s.data.to_strings(&a.dims.names).unwrap_or_default())
                .collect();
            panic!(
                "{} ({:?}): the run on {args:?} ends outside the exit state\npoint: {}\nstate: {abs:#?}",
                c.name,
                opts.domain,
                named.join(", ")
            );
        }
        out.runs += 1;
        // The same point with one value moved: a state that rejects it knows something.
        if perturb && !out.rejects_wrong {
            out.rejects_wrong = p.iter().enumerate().any(|(k, _)| {
                let mut q = p.clone();
                q[k].1 += 1;
                !contains(exit, &q)
            });
        }
    }
    out
}

fn opts(domain: DomainKind) -> Options {
    Options {
        domain,
        ..Default::default()
    }
}

const DOMAINS: [DomainKind; 4] = [
    DomainKind::Polyhedra,
    DomainKind::Octagon,
    DomainKind::Interval,
    DomainKind::PplOctagon,
];

/// Check `c` under every domain with `n` inputs; at least `min_runs` runs must be compared.
/// With `precise`, the polyhedra state must also reject some wrong point (for pairs whose
/// results the domain can relate to the inputs or to each other).
fn check_all_domains(c: &Correlated, n: usize, min_runs: usize, precise: bool) {
    for d in DOMAINS {
        let perturb = precise && d == DomainKind::Polyhedra;
        let r = check(c, &opts(d), &inputs(c, n, 0x5eed ^ n as u64), perturb);
        assert!(
            r.runs >= min_runs,
            "{} ({d:?}): only {} runs compared ({} skipped)",
            c.name,
            r.runs,
            r.skipped
        );
        if perturb {
            assert!(
                r.rejects_wrong,
                "{}: the exit state accepts every perturbed point (vacuous check)",
                c.name
            );
        }
    }
}

// ------------------------------------------------------------------------------ tests

#[test]
fn assignments() {
    let c = pair(
        "int f(int x, int y) { int a = x + 2 * y; int b = a - x; b = b * 3; return b + 1; }",
        "int f(int x, int y) { int a = 2 * y + x; return (a - x) * 3 + 2; }",
        "f",
    );
    check_all_domains(&c, 200, 100, true);
    // Exact linear relations: retval = 6·y₀ + 1 and retval' = retval + 1, nothing else.
    let a = analyze(&c, &Options::default(), &crate::limits::Budget::unlimited()).unwrap();
    let exit = a.states[crate::ir::Pos::new(c.product().instrs.len())]
        .clone()
        .unwrap();
    let dim = |n: &str| Dim::new(a.dims.names.iter().position(|x| x == n).unwrap());
    let (y0, r, r2) = (dim("y₀"), dim("retval"), dim("retval'"));
    assert!(contains(&exit, &[(y0, 2), (r, 13), (r2, 14)]));
    assert!(!contains(&exit, &[(y0, 2), (r, 13), (r2, 13)]));
    assert!(!contains(&exit, &[(y0, 2), (r, 12), (r2, 13)]));
}

#[test]
fn guards_and_branches() {
    // The DIZY paper's running example and a condition with `&&`, `||` and `!=` (a non-convex
    // split into two pieces).
    check_all_domains(&corpus_pair("01_sign_zero"), 120, 100, true);
    let c = pair(
        "int g(int x, int y) { int r = 0; if (x > 0 && y != 3) r = x - y; else if (x < -5 || y == 7) r = 2 * y; else r = -1; return r; }",
        "int g(int x, int y) { int r; if (x >= 1 && y != 3) r = x - y; else if (y == 7 || x <= -6) r = y + y; else r = 0; return r; }",
        "g",
    );
    check_all_domains(&c, 300, 200, true);
    check_all_domains(&corpus_pair("38_and_to_or"), 200, 150, true);
    check_all_domains(&corpus_pair("35_switch_new_case"), 200, 150, true);
    // remembered outcomes of `!=` pieces (switch against an if chain; a test after its operand
    // was written must not use the outcome remembered before)
    let c = pair(
        "int f(int x) { int r = 0; switch (x) { case 1: r = 10; break; case 2: r = 20; break; default: if (x != 3) { x = x - 2; if (x == 1) r = 7; } } return r + x; }",
        "int f(int x) { int r = 0; if (x == 2) r = 20; else if (x == 1) r = 10; else if (x != 3) { x = x - 2; if (x == 1) r = 7; } return r + x; }",
        "f",
    );
    check_all_domains(&c, 300, 200, true);
}

#[test]
fn loops_with_widening() {
    let c = pair(
        "int s(int n) { int t = 0; for (int i = 0; i < n; i++) t += i; return t; }",
        "int s(int n) { int t = 0; for (int i = 1; i <= n; i++) t += i - 1; return t; }",
        "s",
    );
    // Large inputs run out of steps (skipped); the small ones are compared.
    check_all_domains(&c, 200, 100, true);
    let c = pair(
        "int w(int x) { int k = 0; while (x > 10) { x -= 3; k++; } return x + k; }",
        "int w(int x) { int k = 0; while (x >= 11) { x = x - 3; k += 1; } return k + x; }",
        "w",
    );
    check_all_domains(&c, 200, 100, true);
    // The widening delay changes the iterates, not soundness.
    for delay in [0, 1, 5] {
        let o = Options {
            widen_delay: delay,
            ..Default::default()
        };
        let r = check(&c, &o, &inputs(&c, 120, 7), false);
        assert!(r.runs >= 60, "widen_delay {delay}: {} runs", r.runs);
    }
    for name in [
        "13_lt_to_le",
        "16_predecrement",
        "31_add_break",
        "57_while_to_dowhile",
    ] {
        check_all_domains(&corpus_pair(name), 120, 40, false);
    }
}

#[test]
fn unsigned_wrap_around() {
    let c = pair(
        "unsigned u(unsigned x) { unsigned y = x + 4000000000u; unsigned z = 0u - x; return y * 2u + z; }",
        "unsigned u(unsigned x) { unsigned y = x - 294967296u; return y + y - x; }",
        "u",
    );
    check_all_domains(&c, 300, 300, true);
    let c = pair(
        "unsigned char h(unsigned char c, int k) { unsigned char d = c + 200; if (k > 0) d = d * 3; return d; }",
        "unsigned char h(unsigned char c, int k) { unsigned char d = (unsigned char)(c - 56); if (k >= 1) d = (unsigned char)(d + d + d); return d; }",
        "h",
    );
    check_all_domains(&c, 300, 250, true);
    // An unsigned counter that wraps in a loop.
    let c = pair(
        "unsigned short cnt(unsigned short s, int n) { for (int i = 0; i < n && i < 50; i++) s += 1000; return s; }",
        "unsigned short cnt(unsigned short s, int n) { int i = 0; while (i < n && i < 50) { s = s + 1000; i++; } return s; }",
        "cnt",
    );
    check_all_domains(&c, 200, 150, true);
    // Signed arithmetic declared as wrapping: the interpreter skips overflowing runs (undefined
    // behaviour in C), the others must still be covered.
    let o = Options {
        overflow: Overflow::Wrap,
        ..Default::default()
    };
    let c = pair(
        "int s(int x) { if (x > -1000 && x < 1000) { int y = x * 2; return y - 1; } return x; }",
        "int s(int x) { if (x > -1000 && x < 1000) return x + x - 1; return x; }",
        "s",
    );
    let r = check(&c, &o, &inputs(&c, 200, 3), true);
    assert!(r.runs >= 100 && r.rejects_wrong, "{} runs", r.runs);
    for name in [
        "41_widen_unsigned_acc",
        "43_signed_to_unsigned_cmp",
        "45_uchar_hash_same",
    ] {
        check_all_domains(&corpus_pair(name), 120, 60, false);
    }
}

#[test]
fn struct_fields_as_cells() {
    // A struct result is compared cell by cell; a local array with constant indices is tracked
    // element by element, a store at an unknown index forgets the elements.
    let c = pair(
        "struct P { int a; int b; unsigned char c; };\n\
         struct P mk(int x, int y) { struct P p; p.a = x; p.b = x + y; p.c = (unsigned char)y; if (x < 0) p.a = -x; return p; }",
        "struct P { int a; int b; unsigned char c; };\n\
         struct P mk(int x, int y) { struct P p; p.b = y + x; p.a = x < 0 ? -x : x; p.c = (unsigned char)(y + 256); return p; }",
        "mk",
    );
    let a = analyze(&c, &Options::default(), &crate::limits::Budget::unlimited()).unwrap();
    let rv = c.old_retval.expect("retval");
    assert!(
        a.dims.cells(rv).is_some_and(|cs| cs.len() == 3),
        "the struct result has three cells"
    );
    check_all_domains(&c, 300, 200, true);
    let c = pair(
        "int arr(int x, int k) { int v[4]; v[0] = x; v[1] = x + 1; v[2] = 2; v[3] = 3; if (k >= 0 && k < 4) v[k] = 9; return v[0] + v[1] + v[2]; }",
        "int arr(int x, int k) { int v[4]; v[0] = x; v[1] = x + 1; v[2] = 2; v[3] = 3; if (k >= 0 && k < 3) v[k] = 9; return v[1] + v[0] + v[2]; }",
        "arr",
    );
    check_all_domains(&c, 300, 200, true);
    // A global struct updated through a helper: globals are inputs, their final cells compared.
    let c = pair(
        "struct S { int n; int last; } st;\n\
         static void put(int v) { st.n = st.n + 1; st.last = v; }\n\
         int rec(int v) { if (v > 3) put(v); return st.n; }",
        "struct S { int n; int last; } st;\n\
         static void put(int v) { st.n += 1; st.last = v; }\n\
         int rec(int v) { if (v >= 3) put(v); return st.n; }",
        "rec",
    );
    check_all_domains(&c, 200, 150, true);
    // Arrays filled in loops: the DIZY appendix buffer (42 elements: untracked) and a
    // 16-element array (tracked element by element, stores at unknown indices).
    for name in ["02_buffer_bound", "91_array_loop"] {
        check_all_domains(&corpus_pair(name), 120, 60, false);
    }
}

#[test]
fn calls() {
    // An unchanged pure helper (congruent), a changed helper, a helper writing a global.
    let c = pair(
        "static int sq(int x) { return x * x; }\n\
         static int lim(int x) { return x > 100 ? 100 : x; }\n\
         int f(int a, int b) { int s = sq(a % 1000) + lim(b); return s - sq(b % 1000); }",
        "static int sq(int x) { return x * x; }\n\
         static int lim(int x) { return x >= 100 ? 100 : x; }\n\
         int f(int a, int b) { int s = lim(b) + sq(a % 1000); return s - sq(b % 1000); }",
        "f",
    );
    // Results of calls are unknown values: only their equality is known, and not here, where
    // `lim` changed.
    check_all_domains(&c, 300, 250, false);
    // Matched calls of an unchanged helper with equal arguments give equal results.
    let c = pair(
        "static int sq(int x) { return x * x; }\n\
         int e(int a, int b) { int s = sq(a % 1000); if (b > 0) s = s + 1; return s; }",
        "static int sq(int x) { return x * x; }\n\
         int e(int a, int b) { int s = sq(a % 1000); if (b >= 1) s += 1; return s; }",
        "e",
    );
    check_all_domains(&c, 300, 250, true);
    let c = pair(
        "int total;\n\
         static int add(int k) { total += k; return total; }\n\
         int g(int x) { int r = add(x % 100); if (x > 5) r = add(1); return r + total; }",
        "int total;\n\
         static int add(int k) { total = total + k; return total; }\n\
         int g(int x) { int r = add(x % 100); if (x > 6) r = add(2); return r + total; }",
        "g",
    );
    check_all_domains(&c, 200, 150, false);
    for name in [
        "46_helper_changed",
        "48_helper_inlined",
        "49_helper_recursive",
        "51_global_update_order",
        "52_global_counter_added",
    ] {
        check_all_domains(&corpus_pair(name), 100, 40, false);
    }
}

/// The checker itself: a point outside the exit state is found (the test above would not
/// notice a checker that accepts everything otherwise).
#[test]
fn checker_rejects_points_outside() {
    let c = pair(
        "int k(int x) { return x > 0 ? 1 : 2; }",
        "int k(int x) { return x > 0 ? 1 : 3; }",
        "k",
    );
    let a = analyze(&c, &Options::default(), &crate::limits::Budget::unlimited()).unwrap();
    let exit = a.states[crate::ir::Pos::new(c.product().instrs.len())]
        .clone()
        .unwrap();
    let dim = |n: &str| Dim::new(a.dims.names.iter().position(|x| x == n).unwrap());
    let (x0, r, r2) = (dim("x₀"), dim("retval"), dim("retval'"));
    assert!(contains(&exit, &[(x0, 5), (r, 1), (r2, 1)]));
    assert!(contains(&exit, &[(x0, -5), (r, 2), (r2, 3)]));
    assert!(!contains(&exit, &[(x0, -5), (r, 2), (r2, 2)]));
    assert!(!contains(&exit, &[(x0, 5), (r, 2), (r2, 3)]));
}
