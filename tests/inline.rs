//! Inlining preserves behaviour, keeps recursion a call and respects the depth bound.
//!
//! Oracle: the interpreter. The client runs in the original program and in the program with
//! its calls inlined, on boundary, small and pseudo-random inputs; both runs must agree on
//! whether the input is valid (no undefined behaviour) and then on the return value, the
//! output and the final values of the globals both can see.

use std::collections::BTreeSet;

use dizy::gcl::{GclProgram, InstrKind};
use dizy::inline::{inline_gcl, Options, Version};
use dizy::interp::Value;
use dizy::ir::Callee;
use dizy::witness::behave;

fn load(src: &str) -> GclProgram {
    let dir = tempfile::tempdir().expect("tempdir");
    let p = dir.path().join("prog.c");
    std::fs::write(&p, src).expect("write");
    dizy::load_gcl(&p, &Default::default()).unwrap_or_else(|e| panic!("{e}"))
}

fn set(names: &[&str]) -> BTreeSet<String> {
    names.iter().map(|s| s.to_string()).collect()
}

fn inline(p: &GclProgram, client: &str, targets: &[&str], depth: u32) -> Version {
    let opts = Options {
        max_depth: depth,
        ..Default::default()
    };
    inline_gcl(p, &set(&[client]), &set(targets), &opts)
}

/// Functions the client still calls directly.
fn calls_left(p: &GclProgram, client: &str) -> BTreeSet<String> {
    p.function(client)
        .expect("client")
        .instrs
        .iter()
        .filter_map(|i| match &i.kind {
            InstrKind::Call {
                callee: Callee::Direct(n),
                ..
            } => Some(n.clone()),
            _ => None,
        })
        .collect()
}

/// Integer arguments: boundaries, small values and pseudo-random ones.
fn inputs(arity: usize, n: usize) -> Vec<Vec<Value>> {
    let mut s: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    };
    let special = [
        i32::MIN as i128,
        -1000,
        -7,
        -1,
        0,
        1,
        2,
        3,
        9,
        100,
        i32::MAX as i128,
    ];
    (0..n)
        .map(|k| {
            (0..arity)
                .map(|_| {
                    let r = next();
                    Value::Int(match k % 3 {
                        0 => special[(r % special.len() as u64) as usize],
                        1 => (r % 61) as i128 - 30,
                        _ => r as u32 as i32 as i128,
                    })
                })
                .collect()
        })
        .collect()
}

/// Run `client` in both programs on `n` inputs; returns how many runs were compared.
fn same_behaviour(orig: &GclProgram, inlined: &GclProgram, client: &str, n: usize) -> usize {
    let arity = orig.function(client).expect("client").func.params.len();
    let mut compared = 0;
    for args in inputs(arity, n) {
        let a = behave(orig, client, &args, 1_000_000);
        let b = behave(inlined, client, &args, 1_000_000);
        match (&a, &b) {
            (None, None) => continue,
            (Some(a), Some(b)) => {
                assert!(
                    a.diverged.is_none() && b.diverged.is_none(),
                    "{client}{args:?}: ran out of steps"
                );
                assert_eq!(a.ret, b.ret, "{client}{args:?}: return value");
                assert_eq!(a.output, b.output, "{client}{args:?}: output");
                for (name, v) in &a.globals {
                    if let Some((_, w)) = b.globals.iter().find(|(m, _)| m == name) {
                        assert_eq!(v, w, "{client}{args:?}: global {name}");
                    }
                }
                compared += 1;
            }
            _ => panic!("{client}{args:?}: valid in one program only: {a:?} / {b:?}"),
        }
    }
    compared
}

#[test]
fn inlined_callees_behave_as_calls() {
    // Early returns in guard clauses, inside a loop and inside a switch; a void callee with a
    // global effect and an early return; a static local (a global of the callee); argument and
    // result conversions; calls inside a loop of the client.
    let src = r#"
int total;
static int clampv(int v, int lo, int hi) { if (v < lo) return lo; if (v > hi) return hi; return v; }
static int find(int x) { for (int i = 0; i < 10; i++) { if (i * i >= x) return i; } return -1; }
static int sw(int k) { switch (k & 3) { case 0: return 10; case 1: total += 1; break; default: return k & 15; } return 0; }
static void bump(int k) { if (k < 0) return; total += k & 255; }
static int counter(void) { static int n; n++; return n; }
static long widen(char c) { return c * 1000L; }
int f(int x, int y) {
    int a = clampv(x, -5, 5);
    int b = find(y);
    int s = 0;
    for (int i = 0; i < 3; i++) s += sw((x & 1023) + i);
    bump(y);
    int c = counter() + counter();
    long w = widen((char)x);
    return a + b * 3 + s + c + (int)(w % 7) + total;
}
"#;
    let p = load(src);
    let targets = ["clampv", "find", "sw", "bump", "counter", "widen"];
    let v = inline(&p, "f", &targets, 3);
    let g = v.gcl.as_ref().expect("something was inlined");
    assert_eq!(v.outcomes["f"].inlined, set(&targets));
    assert!(
        v.outcomes["f"].notes.is_empty(),
        "{:?}",
        v.outcomes["f"].notes
    );
    assert!(calls_left(g, "f").is_empty(), "{:?}", calls_left(g, "f"));
    assert!(calls_left(&p, "f").len() == targets.len());
    let n = same_behaviour(&p, g, "f", 400);
    assert!(n >= 300, "{n} runs compared");
    // A callee outside the targets stays a call.
    let v = inline(&p, "f", &["find"], 3);
    let g = v.gcl.as_ref().expect("find inlined");
    assert_eq!(
        calls_left(g, "f"),
        set(&["clampv", "sw", "bump", "counter", "widen"])
    );
    assert!(same_behaviour(&p, g, "f", 200) >= 150);
    // No target called: nothing to do.
    assert!(inline(&p, "f", &["nothing"], 3).gcl.is_none());
}

#[test]
fn recursion_stays_a_call() {
    let src = r#"
static int fact(int n) { if (n <= 1) return 1; return n * fact(n - 1); }
static int is_even(int n);
static int is_odd(int n) { if (n == 0) return 0; return is_even(n - 1); }
static int is_even(int n) { if (n == 0) return 1; return is_odd(n - 1); }
int f(int n) { int m = n % 10; if (m < 0) m = -m; return fact(m) + 1; }
int g(int n) { int m = n % 50; if (m < 0) m = -m; return is_even(m) * 2 + is_odd(m); }
"#;
    let p = load(src);
    // The client's call is inlined once; the recursive call inside stays a call.
    let v = inline(&p, "f", &["fact"], 3);
    let q = v.gcl.as_ref().expect("fact inlined once");
    assert_eq!(v.outcomes["f"].inlined, set(&["fact"]));
    assert_eq!(calls_left(q, "f"), set(&["fact"]));
    let notes = &v.outcomes["f"].notes;
    assert!(
        notes.len() == 1 && notes[0].contains("`fact`"),
        "the recursive call is noted: {notes:?}"
    );
    assert!(same_behaviour(&p, q, "f", 200) >= 150);
    // Mutual recursion: is_even, then is_odd inside it, then the call back to is_even stays.
    let v = inline(&p, "g", &["is_even", "is_odd"], 3);
    let q = v.gcl.as_ref().expect("inlined");
    assert_eq!(v.outcomes["g"].inlined, set(&["is_even", "is_odd"]));
    assert_eq!(calls_left(q, "g"), set(&["is_even", "is_odd"]));
    assert!(same_behaviour(&p, q, "g", 200) >= 150);
    // A recursive client is unfolded into itself once, its body followed by the induction
    // marker (which runs as nothing); the call inside stays a call.
    let v = inline(&p, "fact", &["fact"], 3);
    let q = v.gcl.as_ref().expect("fact unfolded once");
    assert_eq!(v.outcomes["fact"].inlined, set(&["fact"]));
    assert_eq!(calls_left(q, "fact"), set(&["fact", dizy::ir::INDUCTION]));
    // (Most inputs overflow the product, undefined in both programs and skipped.)
    assert!(same_behaviour(&p, q, "fact", 200) >= 20);
    // Not at all without unfolding.
    let opts = Options {
        unfold: 0,
        ..Default::default()
    };
    let v = inline_gcl(&p, &set(&["fact"]), &set(&["fact"]), &opts);
    let q = v.gcl.as_ref().map_or(&p, |q| q);
    assert!(v.outcomes.get("fact").is_none_or(|o| o.inlined.is_empty()));
    assert_eq!(calls_left(q, "fact"), set(&["fact"]));
}

#[test]
fn depth_bound_holds() {
    let src = r#"
static int d4(int x) { return x + 4; }
static int d3(int x) { return d4(x) * 2; }
static int d2(int x) { return d3(x) - 1; }
static int d1(int x) { return d2(x) + d2(x + 1); }
int f(int x) { return d1(x % 1000); }
"#;
    let p = load(src);
    let chain = ["d1", "d2", "d3", "d4"];
    for depth in 1..=5u32 {
        let v = inline(&p, "f", &chain, depth);
        let q = v.gcl.as_ref().expect("d1 inlined");
        let k = (depth as usize).min(chain.len());
        // Exactly the first `depth` levels are inlined; the next one is still called.
        assert_eq!(v.outcomes["f"].inlined, set(&chain[..k]), "depth {depth}");
        let left = calls_left(q, "f");
        if k < chain.len() {
            assert_eq!(left, set(&[chain[k]]), "depth {depth}");
            assert!(
                v.outcomes["f"].notes.iter().any(|n| n.contains(chain[k])),
                "depth {depth}: the call left is noted: {:?}",
                v.outcomes["f"].notes
            );
        } else {
            assert!(left.is_empty(), "depth {depth}: {left:?}");
            assert!(v.outcomes["f"].notes.is_empty());
        }
        assert!(same_behaviour(&p, q, "f", 150) >= 140, "depth {depth}");
    }
    // Depth 0 inlines nothing.
    let v = inline(&p, "f", &chain, 0);
    let q = v.gcl.as_ref().map_or(&p, |q| q);
    assert_eq!(calls_left(q, "f"), set(&["d1"]));
}
