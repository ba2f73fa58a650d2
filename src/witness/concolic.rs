//! Witness search, the fallback: alternating concolic execution in the style of Tamarin.
//!
//! Takes the correlating program P ⋈ P', starting inputs and the witness runner; gives a
//! validated [`Witness`] or nothing. It needs no diff point and no Δ, so it still works where the
//! correlation is poor and the path analysis of [`super::dfa`] finds nothing to aim at.
//!
//! Each input is executed twice: by the runner (each version alone — the validation) and on the
//! product by the interpreter with a trace of the branch outcomes of the product's own frame.
//! One version is the *driver*: a branch of the trace that belongs to the driver (its own
//! instructions, or the correlation's glue) is negated, the prefix up to it plus the negated
//! branch is solved with z3 (the same C bit-vector encoding as the path search, without a
//! failure condition), and the model is the next input — a new path of the driver, which the
//! other version, the *verifier*, is run on too. Then the roles swap (Tamarin's alternation), so
//! neither version's paths starve the other's. Branches are negated deepest first (as DART does)
//! and every negated prefix is solved at most once; an exhausted trace is dropped.
//!
//! Because the trace comes from the interpreter, branches that depend on memory or calls are
//! followed exactly; the solver treats such values as unknowns, so a model may miss its path,
//! which costs one execution and nothing else. "No witness" never means "equivalent".

use std::collections::HashSet;
use std::hash::{Hash, Hasher};
use std::time::Instant;

use crate::correlate::{Correlated, Side};
use crate::interp::{Arg, Interp, Value};

use super::dfa::Edge;
use super::memory::Input;
use super::{Runner, Witness};

/// Longest trace followed (edges); longer runs are cut, their tails never negated.
const MAX_TRACE: usize = 5_000;

/// A trace still to be explored, with one cursor per side: branches at or after a side's cursor
/// have been negated (or skipped as not that side's) already.
struct Trace {
    edges: Vec<Edge>,
    cursor: [usize; 2],
}

/// Alternating concolic search from `start` until `deadline` or the runner's budget.
pub(super) fn search(
    c: &Correlated,
    r: &mut Runner,
    start: Vec<Vec<i128>>,
    deadline: Instant,
) -> Option<Witness> {
    let start = start
        .into_iter()
        .map(|v| v.iter().map(i128::to_string).collect())
        .collect();
    // As for the path search: a failure inside the z3 bindings loses this strategy, not the run.
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        explore(c, r, start, deadline)
    }))
    .ok()
    .flatten()
}

fn explore(
    c: &Correlated,
    r: &mut Runner,
    mut pending: Vec<Vec<String>>,
    deadline: Instant,
) -> Option<Witness> {
    let f = c.product();
    if f.func.params.len() != r.params.len() {
        return None;
    }
    let ctx = z3::Context::new(&z3::Config::new());
    let limits = (r.opts.query_ms, r.opts.float_query_ms);
    let mut ps = super::smt::PathSolver::new(&ctx, c, None, r.params.len(), limits)?;
    let mut traces: Vec<Trace> = vec![];
    let mut negated: HashSet<u64> = HashSet::new();
    let mut ran: HashSet<Vec<String>> = HashSet::new();
    // 0: the old version drives, 1: the new one.
    let mut driver = 0usize;
    let owns = |at: u32, side: usize| {
        let i = at as usize;
        !f.instrs[i].guard.0.is_empty()
            && match c.origin(crate::ir::Pos::new(i)).side {
                Side::Old => side == 0,
                Side::New => side == 1,
                Side::Glue => true,
            }
    };
    pending.reverse();
    loop {
        if Instant::now() > deadline || r.exhausted() {
            return None;
        }
        if let Some(vals) = pending.pop() {
            if !ran.insert(vals.clone()) {
                continue;
            }
            if let Some(w) = r.try_literals(&vals, "concolic") {
                return Some(w);
            }
            if let Some(edges) = product_trace(c, r, &vals) {
                let n = edges.len();
                traces.push(Trace {
                    edges,
                    cursor: [n, n],
                });
            }
            continue;
        }
        let t = traces.last_mut()?;
        let mut next = None;
        while t.cursor[driver] > 0 && next.is_none() {
            t.cursor[driver] -= 1;
            let k = t.cursor[driver];
            let e = t.edges[k];
            if !owns(e.at, driver) {
                continue;
            }
            let mut path = t.edges[..k].to_vec();
            path.push(Edge {
                at: e.at,
                taken: !e.taken,
            });
            if !negated.insert(hash(&path)) {
                continue;
            }
            next = ps.solve(&path, deadline, 1, |vals, _| Some(vals.to_vec()));
            if Instant::now() > deadline {
                return None;
            }
        }
        match next {
            Some(vals) => pending.push(vals),
            None if t.cursor == [0, 0] => {
                traces.pop();
            }
            None => {}
        }
        // Tamarin's alternation: the verifier drives next.
        driver = 1 - driver;
    }
}

/// The branch outcomes of the product on `vals`, C literals (a run stopped by undefined
/// behaviour or the budget still gives the prefix it followed).
pub(super) fn product_trace(c: &Correlated, r: &Runner, vals: &[String]) -> Option<Vec<Edge>> {
    // The product runs on scalars only: buffers are the witness runs' business.
    let inputs: Vec<Input> = vals.iter().map(|v| Input::Scalar(v.clone())).collect();
    let args: Vec<Value> = r
        .args(&inputs)?
        .0
        .into_iter()
        .map(|a| match a {
            Arg::Scalar(v) => Some(v),
            _ => None,
        })
        .collect::<Option<_>>()?;
    let mut it = Interp::new(&c.program).with_budget(r.opts.step_budget);
    let (_, edges) = it.call_traced(&c.product().name, &args, MAX_TRACE);
    Some(
        edges
            .into_iter()
            .map(|(at, taken)| Edge { at, taken })
            .collect(),
    )
}

fn hash(path: &[Edge]) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    path.hash(&mut h);
    h.finish()
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

    use super::super::testutil::{bench_pair, input, pair, with_runner, Pair};
    use super::super::Witness;

    /// Only the concolic step, from all-zero inputs.
    fn concolic_only(p: &Pair, func: &str) -> Option<Witness> {
        with_runner(p, func, |r| {
            let start = vec![vec![0; r.params.len()]];
            super::search(&p.c, r, start, Instant::now() + Duration::from_secs(60))
        })
    }

    #[test]
    fn thesis_cyclic_needs_two_by_two() {
        // Thesis §6.4.2: only iteration (1, 1) differs, so every witness has n ≥ 2 and m ≥ 2;
        // from (0, 0) the driver has to grow both loops through negated exit branches.
        let p = bench_pair("ne_cyclic_23", "cyclic_23");
        let w = concolic_only(&p, "cyclic_23").expect("witness");
        assert_eq!(w.strategy, "concolic");
        assert!(input(&w, "n") >= 2 && input(&w, "m") >= 2, "{w:?}");
        // The whole search finds one too.
        let all = super::super::search(
            &p.old,
            &p.new,
            "cyclic_23",
            &p.d,
            &Default::default(),
            Some(&p.c),
            &crate::limits::Budget::unlimited(),
        )
        .witness
        .expect("witness");
        assert!(input(&all, "n") >= 2 && input(&all, "m") >= 2, "{all:?}");
    }

    #[test]
    fn needle_behind_a_loop() {
        // Reached only in the sixth iteration with a particular x.
        let p = pair(
            "int f(int n, int x) { int s = 0; if (n > 50) n = 50; for (int i = 0; i < n; i++) { if (i == 5 && x == 4242) return -1; s += i; } return s; }",
            "int f(int n, int x) { int s = 0; if (n > 50) n = 50; for (int i = 0; i < n; i++) { s += i; } return s; }",
            "f",
        );
        let w = concolic_only(&p, "f").expect("witness");
        assert!(input(&w, "n") >= 6, "{w:?}");
        assert_eq!(input(&w, "x"), 4242);
    }

    #[test]
    fn poorly_correlated_loops() {
        // A goto loop against a for loop: nothing is matched inside them, yet the driver's
        // branches lead to the one input where the versions differ.
        let p = pair(
            "int f(int n) { int s = 0, i = 0; if (n > 40) n = 40; top: if (i >= n) goto done; s += 2 * i; i++; goto top; done: return s; }",
            "int f(int n) { int s = 0; if (n > 40) n = 40; for (int i = 0; i < n; i++) s += i + i; if (n == 37) s++; return s; }",
            "f",
        );
        let w = concolic_only(&p, "f").expect("witness");
        assert_eq!(input(&w, "n"), 37);
    }

    #[test]
    fn only_the_new_version_branches() {
        // The difference hides behind a branch of the new version alone: the alternation lets
        // the new version drive.
        let p = pair(
            "int f(int a, int b) { return a + b; }",
            "int f(int a, int b) { if (a - b == 999) return 0; return a + b; }",
            "f",
        );
        let w = concolic_only(&p, "f").expect("witness");
        assert_eq!(input(&w, "a") - input(&w, "b"), 999);
    }

    #[test]
    fn equivalent_pair_gives_nothing() {
        let p = pair(
            "int f(int x) { if (x > 3) return x * 2; return 0; }",
            "int f(int x) { if (3 < x) return x + x; return 0; }",
            "f",
        );
        assert!(concolic_only(&p, "f").is_none());
    }
}
