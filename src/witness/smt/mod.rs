//! Symbolic witness search, part 2: one path of the correlating program as a z3 bit-vector
//! formula `WP(f, path) ∧ inputs equal`, and its models as candidate inputs.
//!
//! Takes the correlating program, a diff point, a complete path entry → diff point (from
//! [`super::dfa`]) and a callback that validates a candidate; gives the callback's result for the
//! first candidate it accepts. The path is encoded forwards in SSA form by [`encode`] (the
//! weakest precondition of the failure condition along it, instructions and the failure
//! condition) and [`expr`] (C expressions as bit-vectors); this module keeps the encoding of the
//! last path edge by edge in one incremental solver (a path sharing a prefix reuses it) and turns
//! models into inputs. An unmodelled value can make a model
//! spurious, which the caller's validation by execution catches.
//!
//! Models are asked with small inputs first (|x| ≤ 2^4, 2^8, 2^16, then unbounded) and each one
//! tried is blocked before the next.

mod encode;
mod expr;
mod float;

use std::time::Instant;

use z3::ast::{Ast, Bool, BV};
use z3::{Context, Model, Params, SatResult, Solver};

use crate::correlate::{Correlated, DiffPoint};
use crate::interp::{ExtResult, Value, World};
use crate::ir::CType;
use crate::witness::dfa::Edge;

#[cfg(test)]
use encode::width;
use encode::{signed, Enc};

/// Magnitude bounds tried before an unbounded model (|x| ≤ 2^k).
const BOUNDS: [u32; 3] = [4, 8, 16];

/// A bit-vector numeral of a model as a C value (`signed`: two's complement).
fn numeral(m: &Model, v: &BV, signed: bool) -> Option<i128> {
    let w = v.get_size();
    let u: u128 = if w <= 64 {
        u128::from(m.eval(v, true)?.as_u64()?)
    } else {
        let lo = m.eval(&v.extract(63, 0), true)?.as_u64()?;
        let hi = m.eval(&v.extract(w - 1, 64), true)?.as_u64()?;
        u128::from(hi) << 64 | u128::from(lo)
    };
    let x = u as i128;
    Some(if signed && w < 128 && (x >> (w - 1)) & 1 == 1 {
        x - (1i128 << w)
    } else {
        x
    })
}

/// A model's value of a parameter of type `t` as a C literal: a floating value from its
/// encoding's bits.
fn literal(v: i128, t: &CType) -> String {
    match t {
        CType::Double => crate::ir::fmt_double(f64::from_bits(v as u64)),
        CType::Float => crate::ir::fmt_float(f32::from_bits(v as u32)),
        _ => v.to_string(),
    }
}

/// Solves paths to one diff point: the encoding of the last path is kept edge by edge, so a path
/// sharing a prefix with the previous one reuses it.
///
/// The solver is incremental without scopes: each edge's facts are asserted behind an
/// activation literal of its own, and a query assumes the literals of the path. A z3 `push`
/// would make z3 internalize and propagate what was asserted outside any time limit (13 s on
/// a path through eight 32-bit squarings, with `--timeout 2`); `check_assumptions` does that
/// work under the `timeout` parameter. A fresh solver for every query is as safe but repeats
/// the work: seven times slower on a loop's concolic paths.
pub(super) struct PathSolver<'ctx, 'a> {
    ctx: &'ctx Context,
    /// The failure condition's diff point; `None` asks only for inputs that follow the path.
    d: Option<&'a DiffPoint>,
    enc: Enc<'ctx, 'a>,
    solver: Solver<'ctx>,
    /// Implications asserted for frames or queries that are gone: when they outnumber the live
    /// ones, the solver is rebuilt from the stack.
    dead: usize,
    /// Edges of the encoded prefix.
    stack: Vec<Frame<'ctx>>,
    /// The old function's parameters (the candidates' values) and their types.
    inputs: Vec<(BV<'ctx>, CType)>,
    /// Every floating-point definition given to the solver (SMT-LIB text), for a rebuild.
    defs: Vec<String>,
    /// Time limits of one query: integer paths, paths with floating-point operations
    /// ([`crate::witness::Options::query_ms`]).
    limits_ms: (u32, u32),
}

/// One edge of the encoded prefix: the encoder's state before it and the facts it added,
/// asserted in the solver as `act ⇒ fact`.
struct Frame<'ctx> {
    edge: Edge,
    vars: Vec<Option<BV<'ctx>>>,
    guards: Vec<Bool<'ctx>>,
    /// Floating-point operations on the path before the edge.
    fp_ops: usize,
    act: Bool<'ctx>,
    facts: Vec<Bool<'ctx>>,
}

/// Dead implications tolerated before the solver is rebuilt (see [`PathSolver::dead`]).
const MAX_DEAD: usize = 4096;

impl<'ctx, 'a> PathSolver<'ctx, 'a> {
    /// `n_params`: how many of the product's parameters are the old function's; `limits_ms`:
    /// the time limits of one query on an integer path and on a floating-point one.
    pub fn new(
        ctx: &'ctx Context,
        c: &'a Correlated,
        d: Option<&'a DiffPoint>,
        n_params: usize,
        limits_ms: (u32, u32),
    ) -> Option<Self> {
        let enc = Enc::new(ctx, c);
        let fun = &c.product().func;
        let inputs: Vec<(BV<'ctx>, CType)> = fun
            .params
            .iter()
            .zip(&enc.params)
            .take(n_params)
            .map(|(p, b)| (b.clone(), fun.var(*p).ty.clone()))
            .collect();
        if inputs.len() < n_params {
            return None;
        }
        Some(PathSolver {
            ctx,
            d,
            enc,
            solver: Solver::new(ctx),
            dead: 0,
            stack: vec![],
            inputs,
            defs: vec![],
            limits_ms,
        })
    }

    /// Checks the loaded path's facts, `tail` and `extra`; the model when satisfiable. `None`
    /// also when the deadline passed or z3 gave up.
    fn check(
        &mut self,
        tail: &[Bool<'ctx>],
        extra: &[Bool<'ctx>],
        deadline: Instant,
    ) -> Option<Model<'ctx>> {
        let left = deadline.checked_duration_since(Instant::now())?.as_millis();
        let cap = if self.enc.fp_ops > 0 {
            self.limits_ms.1
        } else {
            self.limits_ms.0
        };
        let mut p = Params::new(self.ctx);
        p.set_u32("timeout", left.clamp(1, u128::from(cap)) as u32);
        self.solver.set_params(&p);
        let act = Bool::fresh_const(self.ctx, "q");
        for fact in tail.iter().chain(extra) {
            self.solver.assert(&act.implies(fact));
        }
        self.dead += tail.len() + extra.len();
        let mut lits: Vec<Bool> = self.stack.iter().map(|f| f.act.clone()).collect();
        lits.push(act);
        match self.solver.check_assumptions(&lits) {
            SatResult::Sat => self.solver.get_model(),
            _ => None,
        }
    }

    /// A new solver holding the live frames' implications only.
    fn rebuild(&mut self) {
        self.solver = Solver::new(self.ctx);
        for d in &self.defs {
            self.solver.from_string(d.as_str());
        }
        for f in &self.stack {
            for fact in &f.facts {
                self.solver.assert(&f.act.implies(fact));
            }
        }
        self.dead = 0;
    }

    /// Gives the solver the encoder's new floating-point definitions: each defines fresh names
    /// only, so they hold outside every activation literal.
    fn take_defs(&mut self) {
        for d in self.enc.fp_defs.drain(..) {
            self.solver.from_string(d.as_str());
            self.defs.push(d);
        }
    }

    /// Make the encoded prefix exactly `path`; false when `deadline` passed first (it then
    /// holds a prefix of it). Long paths (concolic traces of thousands of edges) take z3
    /// seconds to encode, so the clock is read between edges.
    fn load(&mut self, path: &[Edge], deadline: Instant) -> bool {
        let mut k = 0;
        while k < self.stack.len() && k < path.len() && self.stack[k].edge == path[k] {
            k += 1;
        }
        if k < self.stack.len() {
            self.dead += self.stack[k..].iter().map(|f| f.facts.len()).sum::<usize>();
            let f = self.stack.swap_remove(k);
            self.stack.truncate(k);
            self.enc.vars = f.vars;
            self.enc.guards = f.guards;
            self.enc.fp_ops = f.fp_ops;
        }
        let live: usize = self.stack.iter().map(|f| f.facts.len()).sum();
        if self.dead > MAX_DEAD && self.dead > 2 * live {
            self.rebuild();
        }
        for (n, &edge) in path[k..].iter().enumerate() {
            if n % 16 == 15 && Instant::now() > deadline {
                return false;
            }
            let (vars, guards) = (self.enc.vars.clone(), self.enc.guards.clone());
            let fp_ops = self.enc.fp_ops;
            self.enc.step(edge);
            self.take_defs();
            let facts: Vec<Bool> = self.enc.facts.drain(..).collect();
            let act = Bool::fresh_const(self.ctx, "e");
            for fact in &facts {
                self.solver.assert(&act.implies(fact));
            }
            self.stack.push(Frame {
                edge,
                vars,
                guards,
                fp_ops,
                act,
                facts,
            });
        }
        true
    }

    /// What the environment functions return in model `m` (a non-null pointer: to 64 zero
    /// bytes, all a path that knows no memory can ask of it).
    fn world(&self, m: &Model<'ctx>) -> World {
        let mut w = World::default();
        for (name, b, ret) in &self.enc.externals {
            let Some(v) = numeral(m, b, signed(ret)) else {
                continue;
            };
            let r = match ret {
                CType::Ptr(_) if v != 0 => ExtResult::Buffer(vec![0; 64]),
                _ => ExtResult::Scalar(Value::Int(v)),
            };
            w.results.insert(name.clone(), r);
        }
        w
    }

    /// Solve `WP(f, path) ∧ inputs equal` (without a diff point: the path condition alone) and
    /// offer up to `max_models` models, as C literals of the old function's parameters in order
    /// (integers in decimal, floating values exactly: `0.1`, `-0.0`, `NAN`, `1.5f`), to
    /// `accept`; gives the first thing `accept` returns.
    pub fn solve<T>(
        &mut self,
        path: &[Edge],
        deadline: Instant,
        max_models: usize,
        mut accept: impl FnMut(&[String], &World) -> Option<T>,
    ) -> Option<T> {
        if !self.load(path, deadline) {
            return None;
        }
        self.models(deadline, max_models, &mut accept)
    }

    fn models<T>(
        &mut self,
        deadline: Instant,
        max_models: usize,
        accept: &mut impl FnMut(&[String], &World) -> Option<T>,
    ) -> Option<T> {
        let ctx = self.ctx;
        // The failure condition and the models blocked so far.
        let mut tail = vec![];
        if let Some(d) = self.d {
            let f = self.enc.failure(d);
            self.take_defs();
            tail.append(&mut self.enc.facts);
            tail.push(f);
        }
        let mut first = Some(self.check(&tail, &[], deadline)?);
        for _ in 0..max_models {
            let mut model = None;
            for k in BOUNDS {
                let bounds: Vec<Bool> = self
                    .inputs
                    .iter()
                    .filter_map(|(b, t)| {
                        let w = b.get_size();
                        if t.is_float() || w <= k + 1 {
                            return None;
                        }
                        let hi = BV::from_u64(ctx, 1 << k, w);
                        Some(if signed(t) {
                            Bool::and(ctx, &[&b.bvsge(&hi.bvneg()), &b.bvsle(&hi)])
                        } else {
                            b.bvule(&hi)
                        })
                    })
                    .collect();
                if bounds.is_empty() {
                    continue;
                }
                model = self.check(&tail, &bounds, deadline);
                if model.is_some() {
                    break;
                }
            }
            // Unbounded: the first query's model serves the first round.
            let m = match (model, first.take()) {
                (Some(m), _) | (None, Some(m)) => m,
                (None, None) => self.check(&tail, &[], deadline)?,
            };
            // integers as numbers, floating values as their encodings
            let vals: Vec<i128> = self
                .inputs
                .iter()
                .map(|(b, t)| numeral(&m, b, signed(t)).unwrap_or(0))
                .collect();
            let lits: Vec<String> = self
                .inputs
                .iter()
                .zip(&vals)
                .map(|((_, t), v)| literal(*v, t))
                .collect();
            let world = self.world(&m);
            if let Some(t) = accept(&lits, &world) {
                return Some(t);
            }
            // Block this model before asking for another.
            let others: Vec<Bool> = self
                .inputs
                .iter()
                .zip(&vals)
                .map(|((b, _), v)| b._eq(&self.enc.konst(*v, b.get_size())).not())
                .collect();
            if others.is_empty() {
                return None;
            }
            let refs: Vec<&Bool> = others.iter().collect();
            tail.push(Bool::or(ctx, &refs));
        }
        None
    }
}

/// The path the product takes on concrete inputs (for tests): every guard is decided by
/// simplification.
#[cfg(test)]
pub(super) fn trace(ctx: &Context, c: &Correlated, inputs: &[i128], stop: usize) -> Vec<Edge> {
    let mut enc = Enc::new(ctx, c);
    let f = c.product();
    for (k, p) in f.func.params.iter().enumerate() {
        let w = width(&f.func.var(*p).ty).expect("scalar parameter");
        enc.vars[p.index()] = Some(enc.konst(inputs[k], w));
    }
    let mut out = vec![];
    let mut i = 0;
    while i < f.instrs.len() && out.len() < 100_000 {
        if i == stop && !out.is_empty() {
            break;
        }
        let g = enc.guard(&f.instrs[i].guard).simplify().as_bool();
        let taken = g.expect("guard decided by the inputs");
        out.push(Edge {
            at: i as u32,
            taken,
        });
        if taken {
            enc.exec(i);
            if let Some(t) = c.cfg.target(crate::ir::Pos::new(i)) {
                i = t.index();
                continue;
            }
        }
        i += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

    use z3::{Config, Context};

    use super::PathSolver;
    use crate::witness::concolic::product_trace;
    use crate::witness::testutil::{pair, with_runner};

    /// A long path is loaded only while the deadline lasts. A concolic trace through a loop of
    /// hundreds of iterations has thousands of edges, and asserting them took z3 seconds past
    /// `--timeout` (found by the `diff` fuzz target: 18 s with `--timeout 1`).
    #[test]
    fn loading_a_long_path_stops_at_the_deadline() {
        let loop_src = |tail: &str| {
            format!("long f(int n) {{ long s = 0; if (n > 300) n = 300; while (n > 0) {{ s += 2; n--; }} return s{tail}; }}")
        };
        let p = pair(&loop_src(""), &loop_src(" + (n < -7)"), "f");
        with_runner(&p, "f", |r| {
            let path = product_trace(&p.c, r, &["300".to_string()]).expect("trace");
            assert!(path.len() > 600, "{} edges", path.len());
            let ctx = Context::new(&Config::new());
            // generous per-query limits: under a loaded machine (a debug build beside other
            // work) 2 s per query ran out on the full path, and the test is about the deadline
            let mut ps = PathSolver::new(&ctx, &p.c, None, 1, (30_000, 30_000)).expect("solver");
            let model = |v: &[String], _: &crate::interp::World| Some(v.to_vec());
            assert_eq!(ps.solve(&path, Instant::now(), 1, model), None);
            assert!(ps.stack.len() < path.len(), "loaded past the deadline");
            // Given time, the same path loads whole (reusing the prefix) and has a model.
            let later = Instant::now() + Duration::from_secs(600);
            let vals = ps
                .solve(&path, later, 1, model)
                .expect("the trace's path is feasible");
            assert_eq!(ps.stack.len(), path.len());
            assert!(
                vals[0].parse::<i128>().unwrap() >= 300,
                "{vals:?} does not follow the 300-iteration path"
            );
        });
    }
}
