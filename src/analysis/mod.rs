//! Abstract interpretation of the correlating program with the correlating domain (DIZY §5).
//!
//! Takes a [`Correlated`] product program and [`Options`] (numeric domain, canonization strategy
//! and points, widening delay, integer semantics); gives the abstract state — a set of
//! ⟨guard valuation, numeric value⟩ sub-states — before every product instruction, computed by a
//! worklist fixpoint over the flat GCL with guard-matched widening at loop heads. The `delta`
//! stage reads the states at diff points.
//!
//! Transformers follow DIZY's Table 1: a guard assignment splits each sub-state by the
//! condition and its negation (non-convex `≠` into two pieces); a guarded instruction applies to
//! sub-states whose guard holds and splits those where it is unknown. Memory is not tracked:
//! reads through pointers and from arrays are unknown values; a store through a pointer forgets
//! that version's globals and address-taken variables; calls forget their result, and (unless
//! the callee is a known pure function) that version's globals. Matched pairs of instructions
//! computing the same expression from equal values, and matched calls with equal arguments,
//! give equal results (congruence).

mod dead;
pub mod locs;
mod state;
mod translate;

pub use state::{canonize, derr, equiv_set, reconcile, Soft, State, Sub};
pub use translate::{type_range, wraps, Tr};

use std::collections::{BTreeSet, HashMap, HashSet};
use std::time::Instant;

use dizy_domains::{AnyDomain, ConstraintKind, Dim, DomainKind, LinConstraint, LinExpr, NumDomain};

use crate::correlate::{Correlated, Side, PURE_FUNCTIONS};
use crate::diag::{Error, Result, Stop};
use crate::gcl::{GclFunction, Guard, InstrKind};
use crate::ir::{CType, Callee, Expr, ExprKind, GuardId, IdVec, Place, Pos, VarId, VarKind};
use crate::limits::Budget;

/// Guard valuation of a sub-state (absent = unknown).
pub type Ctx = im::OrdMap<GuardId, bool>;

#[derive(Clone, Copy, PartialEq, Eq, Debug, clap::ValueEnum)]
pub enum Canon {
    JoinEquiv,
    JoinAll,
    ByGuards,
    None,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug, clap::ValueEnum)]
pub enum CanonPoint {
    /// Only at diff points and loop heads.
    Diff,
    /// Also after every matched pair (converge points).
    Converge,
    /// After every instruction.
    Join,
}

/// How floating-point values are analysed.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default, clap::ValueEnum)]
pub enum Floats {
    /// IEEE 754 as the compiled program computes it (x86-64 SSE, round to nearest): NaN, ±inf
    /// and rounding exist, so the analysis knows of a floating value only that it is identical
    /// to another (a copy, an equal input, the same operation on identical operands).
    #[default]
    Ieee,
    /// Floating values as real numbers (`--floats real`): more is proved, but a proof does not
    /// hold for NaN, infinities or rounding.
    Real,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug, clap::ValueEnum)]
pub enum Overflow {
    /// Signed overflow is undefined behaviour and not modelled; unsigned arithmetic wraps.
    Math,
    /// Signed arithmetic wraps too (as with `-fwrapv`).
    Wrap,
}

#[derive(Clone, Debug)]
pub struct Options {
    pub domain: DomainKind,
    pub canon: Canon,
    pub canon_point: CanonPoint,
    pub widen_delay: usize,
    pub overflow: Overflow,
    pub floats: Floats,
    /// Sub-states per point above which the state is canonized anyway (Join-Equiv, then
    /// Join-All): precision degrades, soundness does not.
    pub max_substates: usize,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            domain: DomainKind::Polyhedra,
            canon: Canon::JoinEquiv,
            canon_point: CanonPoint::Diff,
            widen_delay: 2,
            overflow: Overflow::Math,
            floats: Floats::Ieee,
            max_substates: 64,
        }
    }
}

pub use locs::{Dims, Loc, Resolved};

#[derive(Clone, Debug, Default)]
pub struct Stats {
    pub transfers: usize,
    pub max_substates: usize,
    pub widenings: usize,
    pub forced_canonizations: usize,
}

/// The fixpoint: the state before every product position (the last is the exit's).
pub struct Analysis {
    pub dims: Dims,
    pub semantics: Semantics,
    pub states: IdVec<Pos, Option<State>>,
    /// Corresponding pairs as dimension pairs (both tracked).
    pub dim_pairs: Vec<(Dim, Dim)>,
    pub stats: Stats,
    pub notes: Vec<String>,
}

/// Outcome of a guard under a guard valuation.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Tri {
    True,
    False,
    Unknown,
}

pub fn eval_guard(g: &Guard, ctx: &Ctx) -> Tri {
    let mut unknown = false;
    for l in &g.0 {
        match ctx.get(&l.guard) {
            Some(v) if *v != l.positive => return Tri::False,
            Some(_) => {}
            None => unknown = true,
        }
    }
    if unknown {
        Tri::Unknown
    } else {
        Tri::True
    }
}

/// The part of `s` where guard `g` holds (unknown literals assumed true).
fn assume_guard(s: &Sub, g: &Guard) -> Sub {
    let mut s = s.clone();
    for l in &g.0 {
        s.ctx.insert(l.guard, l.positive);
    }
    s
}

pub use crate::limits::DEFAULT_OP_BUDGET;

/// Analyse `c` under `opts`, within `budget` (a deadline and a memory bound: past either, the
/// analysis stops with a typed [`crate::diag::Stop`] and claims nothing).
pub fn analyze(c: &Correlated, opts: &Options, budget: &Budget) -> Result<Analysis> {
    let mut a = Analyzer::new(c, opts, budget)?;
    state::check_size(
        a.dims.len(),
        a.f.instrs.len(),
        opts.domain != DomainKind::Interval,
    )?;
    a.run()?;
    Ok(Analysis {
        semantics: a.semantics(),
        dims: a.dims,
        states: IdVec::from_vec(a.states),
        dim_pairs: a.dim_pairs,
        stats: a.stats,
        notes: a.notes,
    })
}

struct Analyzer<'a> {
    c: &'a Correlated,
    f: &'a GclFunction,
    opts: &'a Options,
    dims: Dims,
    dim_pairs: Vec<(Dim, Dim)>,
    states: Vec<Option<State>>,
    /// Latest contribution of each incoming edge `(from, to)` at merge points.
    contrib: HashMap<(usize, usize), State>,
    head_iters: HashMap<usize, usize>,
    canon_points: HashSet<usize>,
    /// Positions of diff points.
    diff_at: HashSet<usize>,
    /// Old positions `k` whose instruction is matched with the new one at `k + 1`.
    pairs_at: HashSet<usize>,
    /// Per side: tracked dims of globals and of address-taken variables (forgotten by stores
    /// through pointers and by calls).
    clobber_old: Vec<Dim>,
    clobber_new: Vec<Dim>,
    globals_old: Vec<Dim>,
    globals_new: Vec<Dim>,
    /// Helpers whose calls are congruent (unchanged, no globals, no pointer arguments).
    congruent_helpers: HashSet<String>,
    stats: Stats,
    notes: Vec<String>,
    budget: &'a Budget,
    /// Dimensions and guards to forget at each loop head.
    dead_dims: HashMap<usize, Vec<Dim>>,
    dead_guards: HashMap<usize, Vec<GuardId>>,
    /// Dimensions and guards that die at each position (forgotten as states reach it).
    dying_dims: Vec<Vec<Dim>>,
    dying_guards: Vec<Vec<GuardId>>,
}

/// Most worklist steps before the analysis gives up (reported as a timeout).
const MAX_TRANSFERS: usize = 2_000_000;
/// Iterations at one loop head after which everything there is joined before widening.
const MAX_HEAD_ITERS: usize = 40;

impl<'a> Analyzer<'a> {
    fn new(c: &'a Correlated, opts: &'a Options, budget: &'a Budget) -> Result<Self> {
        let f = c.product();
        let n = f.instrs.len();
        // Copies of aggregate inputs would only serve the report: they cost a dimension per
        // cell, so they stay untracked.
        let copies: Vec<VarId> = c.inputs.iter().map(|i| i.copy).collect();
        let dims = Dims::new(&f.func, &c.program.program.structs, &copies);
        let dim_pairs = dim_pairs(c, &dims);
        let mut canon_points: HashSet<usize> =
            c.diff_points.iter().map(|d| d.pos.index()).collect();
        match opts.canon_point {
            CanonPoint::Diff => {}
            CanonPoint::Converge => canon_points.extend(c.converge.iter().map(|p| p.index())),
            CanonPoint::Join => canon_points.extend(0..=n),
        }
        let targets: HashSet<usize> = (0..=n)
            .filter(|&p| c.cfg.preds(Pos::new(p)).len() > 1)
            .collect();
        let mut pairs_at = HashSet::new();
        for k in 0..n.saturating_sub(1) {
            let (a, b) = (c.origin(Pos::new(k)), c.origin(Pos::new(k + 1)));
            if a.side == Side::Old
                && b.side == Side::New
                && a.matched
                && b.matched
                && a.src.is_some()
                && b.src.is_some()
                && !targets.contains(&(k + 1))
                && pairable(&f.instrs[k].kind, &f.instrs[k + 1].kind)
            {
                pairs_at.insert(k);
            }
        }
        let mut clobber_old = vec![];
        let mut clobber_new = vec![];
        let mut globals_old = vec![];
        let mut globals_new = vec![];
        for d in 0..dims.len() {
            let v = dims.var_of(d);
            let info = f.func.var(v);
            let global = matches!(info.kind, VarKind::Global(_));
            let side = c.var_side(v);
            if global || info.addr_taken {
                match side {
                    Side::Old => clobber_old.push(d),
                    Side::New => clobber_new.push(d),
                    Side::Glue => {}
                }
            }
            if global {
                match side {
                    Side::Old => globals_old.push(d),
                    Side::New => globals_new.push(d),
                    Side::Glue => {}
                }
            }
        }
        let mut pinned: HashSet<VarId> = c.inputs.iter().map(|i| i.copy).collect();
        for d in &c.diff_points {
            for &k in &d.pairs {
                pinned.insert(c.pairs[k].old);
                pinned.insert(c.pairs[k].new);
            }
        }
        let mut dead_dims = HashMap::new();
        let mut dead_guards = HashMap::new();
        let (dv, mut dying_guards) = dead::dying(f, &c.cfg, &pinned);
        // The return flags are read by Δ at the return diff points, after their last read by
        // an instruction: forgetting them would leave those points without a state.
        for g in dying_guards.iter_mut() {
            g.retain(|x| *x != c.old_ret && *x != c.new_ret);
        }
        let mut dying_dims: Vec<Vec<Dim>> = dv
            .iter()
            .map(|vs| vs.iter().flat_map(|v| dims.all_of(*v)).collect())
            .collect();
        // A pair is transferred in one step, so nothing flows into its second instruction:
        // what dies there (last read by the first half) dies after the pair.
        for &k in &pairs_at {
            if k + 2 < dying_guards.len() {
                let g = std::mem::take(&mut dying_guards[k + 1]);
                dying_guards[k + 2].extend(g);
                let d = std::mem::take(&mut dying_dims[k + 1]);
                dying_dims[k + 2].extend(d);
            }
        }
        for (h, d) in dead::dead_at_heads(f, &c.cfg, &pinned) {
            dead_dims.insert(
                h,
                d.vars
                    .iter()
                    .flat_map(|v| dims.all_of(*v))
                    .collect::<Vec<Dim>>(),
            );
            let keep = |g: &GuardId| *g != c.old_ret && *g != c.new_ret;
            dead_guards.insert(h, d.guards.into_iter().filter(keep).collect());
        }
        Ok(Analyzer {
            c,
            f,
            opts,
            dims,
            dim_pairs,
            states: vec![None; n + 1],
            contrib: HashMap::new(),
            head_iters: HashMap::new(),
            canon_points,
            diff_at: c.diff_points.iter().map(|d| d.pos.index()).collect(),
            pairs_at,
            clobber_old,
            clobber_new,
            globals_old,
            globals_new,
            congruent_helpers: congruent_helpers(c),
            stats: Stats::default(),
            notes: vec![],
            budget,
            dead_dims,
            dead_guards,
            dying_dims,
            dying_guards,
        })
    }

    fn initial(&self) -> Result<State> {
        let mut data = self
            .opts
            .domain
            .top_budgeted(self.dims.len(), self.budget.op_budget())
            .map_err(derr)?;
        for d in 0..self.dims.len() {
            if self.dims.ty_of(&self.f.func, d).is_float() {
                data.set_integer(d, false).map_err(derr)?;
            }
        }
        // Inputs start equal; the copies remember them; inputs lie in their types' ranges.
        // Aggregates do so cell by cell.
        let parts = |v: Option<VarId>| -> Vec<(String, Dim, CType)> {
            let Some(v) = v else { return vec![] };
            if let Some(d) = self.dims.of(v) {
                return vec![(String::new(), d, self.f.func.var(v).ty.clone())];
            }
            self.dims
                .cells(v)
                .into_iter()
                .flatten()
                .map(|c| (c.path.clone(), c.dim, c.ty.clone()))
                .collect()
        };
        for inp in &self.c.inputs {
            let (po, pn, pc) = (parts(inp.old), parts(inp.new), parts(Some(inp.copy)));
            for part in po.iter().chain(&pn).chain(&pc) {
                let (path, d, ty) = part;
                // Cells of aggregates go without: dozens of bounded dimensions make a polyhedron
                // a box with exponentially many vertices, and a range is precision, not
                // soundness (a wrapping result is checked against its type where it is stored).
                if !wraps(ty, self.opts.overflow) || !path.is_empty() {
                    continue;
                }
                if let Some((lo, hi)) = type_range(ty) {
                    meet(&mut data, &[(1, *d)], ConstraintKind::Ge, lo, self.budget)?;
                    meet(&mut data, &[(1, *d)], ConstraintKind::Le, hi, self.budget)?;
                }
            }
            // The copy remembers the old side (or the only side); the new side starts equal
            // only when the input is known to be shared.
            let first = if po.is_empty() { &pn } else { &po };
            let find = |xs: &[(String, Dim, CType)], path: &str, ty: &CType| {
                xs.iter()
                    .find(|(p, _, t)| p == path && t == ty)
                    .map(|x| x.1)
            };
            for (path, d, ty) in first {
                if let Some(c) = find(&pc, path, ty) {
                    meet(
                        &mut data,
                        &[(1, *d), (-1, c)],
                        ConstraintKind::Eq,
                        0,
                        self.budget,
                    )?;
                }
            }
            if inp.equal && !po.is_empty() {
                for (path, d, ty) in &po {
                    if let Some(n) = find(&pn, path, ty) {
                        meet(
                            &mut data,
                            &[(1, *d), (-1, n)],
                            ConstraintKind::Eq,
                            0,
                            self.budget,
                        )?;
                    }
                }
            }
        }
        Ok(vec![Sub {
            ctx: Ctx::new(),
            data,
        }])
    }

    fn check_time(&self) -> Result<()> {
        self.budget.check()?;
        if self.stats.transfers > MAX_TRANSFERS {
            return Err(Error::stopped(Stop::Size, "analysis step budget exhausted"));
        }
        Ok(())
    }

    fn run(&mut self) -> Result<()> {
        let n = self.f.instrs.len();
        self.states[0] = Some(self.initial()?);
        let mut work: BTreeSet<usize> = BTreeSet::new();
        work.insert(0);
        while let Some(p) = work.pop_first() {
            self.check_time()?;
            if p >= n {
                continue;
            }
            let Some(state) = self.states[p].clone() else {
                continue;
            };
            let state = self.prepare(p, state)?;
            if tracing::enabled!(tracing::Level::TRACE) {
                for x in &state {
                    tracing::trace!(ctx = ?x.ctx, data = ?x.data.to_strings(&self.dims.names), "sub-state");
                }
            }
            tracing::debug!(
                pos = p,
                substates = state.len(),
                instr = ?self.f.instrs[p].kind,
                "worklist step"
            );
            self.stats.transfers += 1;
            self.stats.max_substates = self.stats.max_substates.max(state.len());
            let t0 = Instant::now();
            let paired = self.pairs_at.contains(&p);
            let (fall, jump, next) = if paired {
                (self.transfer_pair(p, &state)?, None, p + 2)
            } else {
                let (f, j) = self.transfer(p, &state)?;
                (f, j, p + 1)
            };
            tracing::debug!(ms = t0.elapsed().as_millis(), "transfer");
            let mut fall = fall;
            if let Some((t, js)) = jump {
                if t == next {
                    // A jump to the next instruction: both edges arrive from here, as one
                    // contribution (recorded separately, one would replace the other).
                    fall.extend(js);
                } else if self.propagate(p, t, js)? {
                    work.insert(t);
                }
            }
            // A pair's successor is reached from its second instruction.
            if self.propagate(next - 1, next, fall)? {
                work.insert(next);
            }
        }
        Ok(())
    }

    /// Canonize at canonization points, and whenever the state grows past the cap.
    fn prepare(&mut self, p: usize, state: State) -> Result<State> {
        let pairs = &self.dim_pairs;
        let mut s = if self.canon_points.contains(&p) && self.opts.canon != Canon::None {
            // Away from diff points a guard that is still live selects what runs next; joining
            // its true and false sub-states would run both, so Join-Equiv keeps them apart there.
            let canon = match self.opts.canon {
                Canon::JoinEquiv if !self.diff_at.contains(&p) => Canon::None,
                c => c,
            };
            state::canonize(state, canon, pairs, self.budget)?
        } else {
            state
        };
        if s.len() > self.opts.max_substates {
            // Coarsest last: sub-states that agree on the live guards and the equivalences
            // first (what a guard selects stays exact), then on the equivalences alone.
            self.stats.forced_canonizations += 1;
            for c in [Canon::None, Canon::JoinEquiv, Canon::JoinAll] {
                s = state::canonize(s, c, pairs, self.budget)?;
                if s.len() <= self.opts.max_substates {
                    break;
                }
            }
        }
        Ok(s)
    }

    /// Record the state flowing along `from → to`; returns whether `to` must be (re)processed.
    fn propagate(&mut self, from: usize, to: usize, mut s: State) -> Result<bool> {
        // What dies on the way is forgotten, so stale values neither split nor slow states.
        let (dd, dg) = (&self.dying_dims[to], &self.dying_guards[to]);
        if !dd.is_empty() || !dg.is_empty() {
            for sub in s.iter_mut() {
                for &d in dd {
                    sub.data.s_forget(d, self.budget)?;
                }
                for g in dg {
                    sub.ctx.remove(g);
                }
            }
        }
        let n_preds = self.c.cfg.preds(Pos::new(to)).len();
        let head = self.c.cfg.is_loop_head(Pos::new(to));
        if n_preds <= 1 && !head {
            self.states[to] = Some(s);
            return Ok(true);
        }
        self.contrib.insert((from, to), s);
        let mut union: State = vec![];
        for p in self.c.cfg.preds(Pos::new(to)).iter().map(|p| p.index()) {
            if let Some(c) = self.contrib.get(&(p, to)) {
                union.extend(c.iter().cloned());
            }
        }
        if !head {
            let canon = if self.opts.canon == Canon::None {
                Canon::None
            } else {
                self.opts.canon
            };
            let u = if self.opts.canon_point == CanonPoint::Join {
                state::canonize(union, canon, &self.dim_pairs, self.budget)?
            } else {
                state::prune(union, self.budget)?
            };
            self.states[to] = Some(u);
            return Ok(true);
        }
        // Loop head: forget what the loop body overwrites before reading, then make the state
        // canonical by guards and equivalences so widening pairs sub-states up.
        if let (Some(dd), Some(dg)) = (self.dead_dims.get(&to), self.dead_guards.get(&to)) {
            for s in union.iter_mut() {
                for &d in dd {
                    s.data.s_forget(d, self.budget)?;
                }
                for g in dg {
                    s.ctx.remove(g);
                }
            }
        }
        let iters = self.head_iters.entry(to).or_insert(0);
        *iters += 1;
        let iters = *iters;
        let key_canon = if iters > MAX_HEAD_ITERS {
            Canon::JoinAll
        } else {
            Canon::None
        };
        let mut new = state::canonize(union, key_canon, &self.dim_pairs, self.budget)?;
        if new.len() > self.opts.max_substates {
            new = state::canonize(new, Canon::JoinAll, &self.dim_pairs, self.budget)?;
        }
        let Some(old) = self.states[to].clone() else {
            self.states[to] = Some(new);
            return Ok(true);
        };
        if state::leq(&new, &old, self.budget)? {
            return Ok(false);
        }
        let next = if iters > self.opts.widen_delay {
            self.stats.widenings += 1;
            let mut w = state::widen(&old, new, key_canon, &self.dim_pairs, self.budget)?;
            if w.len() > self.opts.max_substates {
                w = state::canonize(w, Canon::JoinAll, &self.dim_pairs, self.budget)?;
            }
            w
        } else {
            new
        };
        self.states[to] = Some(next);
        Ok(true)
    }

    // ------------------------------------------------------------------ transformers

    fn side_of_pos(&self, p: usize) -> Side {
        self.c.origin(Pos::new(p)).side
    }

    /// Fallthrough state and, for a jump, the target and the state taking it.
    #[allow(clippy::type_complexity)]
    fn transfer(&mut self, p: usize, state: &State) -> Result<(State, Option<(usize, State)>)> {
        let ins = &self.f.instrs[p];
        if let Some(t) = self.c.cfg.target(Pos::new(p)).map(|t| t.index()) {
            let mut taken = vec![];
            let mut fall = vec![];
            for s in state {
                match eval_guard(&ins.guard, &s.ctx) {
                    Tri::True => taken.push(s.clone()),
                    Tri::False => fall.push(s.clone()),
                    Tri::Unknown => {
                        taken.push(assume_guard(s, &ins.guard));
                        fall.push(s.clone());
                    }
                }
            }
            return Ok((fall, Some((t, taken))));
        }
        let mut out = vec![];
        for s in state {
            match eval_guard(&ins.guard, &s.ctx) {
                Tri::False => out.push(s.clone()),
                Tri::True => out.extend(self.apply(p, s.clone())?),
                Tri::Unknown => {
                    out.extend(self.apply(p, assume_guard(s, &ins.guard))?);
                    out.push(s.clone());
                }
            }
        }
        Ok((out, None))
    }

    /// A matched pair at `p`, `p + 1`: both transfers, plus congruence where both run on equal
    /// inputs.
    fn transfer_pair(&mut self, p: usize, state: &State) -> Result<State> {
        let (io, inew) = (&self.f.instrs[p], &self.f.instrs[p + 1]);
        let mut out = vec![];
        for s in state {
            let both = eval_guard(&io.guard, &s.ctx) == Tri::True
                && eval_guard(&inew.guard, &s.ctx) == Tri::True;
            let congruent = both && self.congruent(p, s)?;
            let (after_old, _) = self.transfer(p, &vec![s.clone()])?;
            let (after_new, _) = self.transfer(p + 1, &after_old)?;
            if let (true, InstrKind::SetGuard(go, _), InstrKind::SetGuard(gn, _)) =
                (congruent, &io.kind, &inew.kind)
            {
                // Equal conditions: the two guards take the same value (the mixed pieces are
                // infeasible even when the condition is beyond the numeric domain).
                out.extend(
                    after_new
                        .into_iter()
                        .filter(|r| r.ctx.get(go) == r.ctx.get(gn)),
                );
                continue;
            }
            if congruent {
                let (dold, dnew) = (dest_var(&io.kind), dest_var(&inew.kind));
                if let (Some(a), Some(b)) = (
                    dold.and_then(|v| self.dims.of(v)),
                    dnew.and_then(|v| self.dims.of(v)),
                ) {
                    for mut r in after_new {
                        meet(
                            &mut r.data,
                            &[(1, a), (-1, b)],
                            ConstraintKind::Eq,
                            0,
                            self.budget,
                        )?;
                        out.push(r);
                    }
                    continue;
                }
            }
            out.extend(after_new);
        }
        Ok(out)
    }

    /// Whether the pair at `p` computes its result from pairwise-equal values.
    fn congruent(&self, p: usize, s: &Sub) -> Result<bool> {
        let (a, b) = (&self.f.instrs[p].kind, &self.f.instrs[p + 1].kind);
        let (ea, eb): (Vec<&Expr>, Vec<&Expr>) = match (a, b) {
            (InstrKind::Assign(_, x), InstrKind::Assign(_, y)) => (vec![x], vec![y]),
            (InstrKind::SetGuard(_, x), InstrKind::SetGuard(_, y)) => (vec![x], vec![y]),
            (
                InstrKind::Call {
                    callee: Callee::Direct(fa),
                    args: xa,
                    ..
                },
                InstrKind::Call {
                    callee: Callee::Direct(fb),
                    args: ya,
                    ..
                },
            ) => {
                let same = fa == fb || *fb == format!("{fa}'");
                let extern_ok = fa == fb && !self.c.program.functions.iter().any(|f| f.name == *fa);
                if !same
                    || !(extern_ok || self.congruent_helpers.contains(fa))
                    || xa.len() != ya.len()
                {
                    return Ok(false);
                }
                (xa.iter().collect(), ya.iter().collect())
            }
            _ => return Ok(false),
        };
        for (x, y) in ea.iter().zip(eb.iter()) {
            if !self.equal_exprs(x, y, s)? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// Whether an old and a new expression provably have the same value in `s`: linear and
    /// entailed equal, or the same pure expression over pairwise-equal variables.
    pub fn equal_exprs(&self, x: &Expr, y: &Expr, s: &Sub) -> Result<bool> {
        equal_exprs(self.c, &self.dims, self.semantics(), x, y, s, self.budget)
    }

    fn semantics(&self) -> Semantics {
        Semantics {
            overflow: self.opts.overflow,
            floats: self.opts.floats,
        }
    }

    /// Apply a non-jump instruction to a sub-state whose guard holds.
    fn apply(&mut self, p: usize, mut s: Sub) -> Result<Vec<Sub>> {
        let ins = &self.f.instrs[p];
        let side = self.side_of_pos(p);
        match &ins.kind {
            InstrKind::SetGuard(g, cond) => {
                let tr = self.tr(&s);
                let t = tr.cond(cond, true);
                let f = tr.cond(cond, false);
                let mut out = vec![];
                for (val, dnf) in [(true, t), (false, f)] {
                    let mut base = s.clone();
                    base.ctx.insert(*g, val);
                    match dnf {
                        None => out.push(base),
                        Some(conjs) => {
                            for conj in conjs {
                                let mut piece = base.clone();
                                piece.data.s_meet_constraints(&conj, self.budget)?;
                                if !piece.data.s_is_bottom(self.budget)? {
                                    out.push(piece);
                                }
                            }
                        }
                    }
                }
                Ok(out)
            }
            InstrKind::Assign(place, e) => match self.resolve(&s, place) {
                Resolved::Scalar(d) => {
                    let ty = self.f.func.place_ty(place);
                    self.assign(s, d, &ty, e)
                }
                Resolved::Cells(dst) => {
                    self.copy_aggregate(&mut s, &dst, e)?;
                    Ok(vec![s])
                }
                Resolved::Some(ds) => {
                    for d in ds {
                        s.data.s_forget(d, self.budget)?;
                    }
                    Ok(vec![s])
                }
                Resolved::Untracked => {
                    if place.root_var().is_none() {
                        self.clobber(&mut s, side, true)?;
                    }
                    Ok(vec![s])
                }
            },
            InstrKind::Havoc(place) => {
                self.forget_place(&mut s, place, side)?;
                Ok(vec![s])
            }
            InstrKind::ZeroFill(place) => {
                let res = self.resolve(&s, place);
                let dims: Vec<Dim> = match res {
                    Resolved::Scalar(d) => vec![d],
                    Resolved::Cells(cs) => cs.into_iter().map(|x| x.1).collect(),
                    _ => return self.forget_place(&mut s, place, side).map(|_| vec![s]),
                };
                for d in dims {
                    if self.ieee() && self.dims.ty_of(&self.f.func, d).is_float() {
                        s.data.s_forget(d, self.budget)?;
                    } else {
                        s.data
                            .s_assign_linear(d, &LinExpr::constant(0), self.budget)?;
                    }
                }
                Ok(vec![s])
            }
            InstrKind::Call { dest, callee, args } => {
                let pure = matches!(callee, Callee::Direct(n) if PURE_FUNCTIONS.contains(&n.as_str()) || self.congruent_helpers.contains(self.c.source_name(n)));
                let pointers = args.iter().any(|a| a.ty.is_pointer());
                if !pure {
                    self.clobber(&mut s, side, pointers)?;
                }
                if let Some(d) = dest {
                    self.forget_place(&mut s, d, side)?;
                    if let Resolved::Scalar(dim) = self.resolve(&s, d) {
                        let ty = self.f.func.place_ty(d);
                        let range = type_range(&ty).filter(|_| wraps(&ty, self.opts.overflow));
                        if let Some((lo, hi)) = range {
                            meet(
                                &mut s.data,
                                &[(1, dim)],
                                ConstraintKind::Ge,
                                lo,
                                self.budget,
                            )?;
                            meet(
                                &mut s.data,
                                &[(1, dim)],
                                ConstraintKind::Le,
                                hi,
                                self.budget,
                            )?;
                        }
                    }
                }
                Ok(vec![s])
            }
            InstrKind::Goto(_) => Ok(vec![s]),
        }
    }

    /// Forget what a call or a store through a pointer may change on one side.
    fn clobber(&self, s: &mut Sub, side: Side, address_taken: bool) -> Result<()> {
        let dims = match (side, address_taken) {
            (Side::Old, true) => &self.clobber_old,
            (Side::Old, false) => &self.globals_old,
            (_, true) => &self.clobber_new,
            (_, false) => &self.globals_new,
        };
        for &d in dims {
            s.data.s_forget(d, self.budget)?;
        }
        Ok(())
    }

    fn ieee(&self) -> bool {
        self.opts.floats == Floats::Ieee
    }

    /// A translator for expressions in sub-state `s`.
    fn tr<'s>(&'s self, s: &'s Sub) -> Tr<'s> {
        Tr {
            dims: &self.dims,
            func: &self.f.func,
            ctx: &s.ctx,
            data: &s.data,
            overflow: self.opts.overflow,
            floats: self.opts.floats,
            budget: self.budget,
        }
    }

    /// What `place` denotes in `s` (an index known to have one value there counts as a
    /// constant).
    fn resolve(&self, s: &Sub, place: &Place) -> Resolved {
        let tr = self.tr(s);
        self.dims
            .resolve(&self.f.func, place, &|e| tr.single_value(e))
    }

    /// Forget every tracked value `place` may denote; a place reached through a pointer may
    /// be any address-taken object or global of that version.
    fn forget_place(&self, s: &mut Sub, place: &Place, side: Side) -> Result<()> {
        match self.resolve(s, place) {
            Resolved::Scalar(d) => s.data.s_forget(d, self.budget)?,
            Resolved::Cells(cs) => {
                for (_, d) in cs {
                    s.data.s_forget(d, self.budget)?;
                }
            }
            Resolved::Some(ds) => {
                for d in ds {
                    s.data.s_forget(d, self.budget)?;
                }
            }
            Resolved::Untracked => {
                if place.root_var().is_none() {
                    self.clobber(s, side, true)?;
                }
            }
        }
        Ok(())
    }

    /// `dst := e` for an aggregate destination: cell by cell from a tracked aggregate of the
    /// same layout, otherwise every cell of the destination becomes unknown.
    fn copy_aggregate(&self, s: &mut Sub, dst: &[(u64, Dim)], e: &Expr) -> Result<()> {
        let src = match &e.kind {
            ExprKind::Var(w) => self.resolve(s, &Place::Var(*w)),
            ExprKind::Load(p) => self.resolve(s, p),
            _ => Resolved::Untracked,
        };
        let same_layout = |src: &[(u64, Dim)]| {
            src.len() == dst.len()
                && src.iter().zip(dst).all(|((a, x), (b, y))| {
                    a == b && self.dims.ty_of(&self.f.func, *x) == self.dims.ty_of(&self.f.func, *y)
                })
        };
        match src {
            Resolved::Cells(src) if same_layout(&src) => {
                for ((_, from), (_, to)) in src.iter().zip(dst) {
                    if from != to {
                        s.data
                            .s_assign_linear(*to, &LinExpr::var(*from), self.budget)?;
                    }
                }
            }
            _ => {
                for (_, d) in dst {
                    s.data.s_forget(*d, self.budget)?;
                }
            }
        }
        Ok(())
    }

    /// `d := e`, where `d` holds a value of type `ty`.
    fn assign(&mut self, mut s: Sub, d: Dim, ty: &CType, e: &Expr) -> Result<Vec<Sub>> {
        let ty = ty.clone();
        // A truth value: split so each piece knows which (keeps `r = a < b` precise).
        if is_truth_valued(e) {
            let tr = self.tr(&s);
            if let (Some(t), Some(f)) = (tr.cond(e, true), tr.cond(e, false)) {
                let mut out = vec![];
                for (val, conjs) in [(1, t), (0, f)] {
                    for conj in conjs {
                        let mut piece = s.clone();
                        piece.data.s_meet_constraints(&conj, self.budget)?;
                        if piece.data.s_is_bottom(self.budget)? {
                            continue;
                        }
                        piece
                            .data
                            .s_assign_linear(d, &LinExpr::constant(val), self.budget)?;
                        out.push(piece);
                    }
                }
                return Ok(out);
            }
        }
        let x = self.tr(&s).expr(e);
        s.data.s_assign_expr(d, &x, self.budget)?;
        // Wrapping types: a result outside the range is not the C value.
        if wraps(&ty, self.opts.overflow) {
            if let Some((lo, hi)) = type_range(&ty) {
                let b = s.data.s_bounds(&LinExpr::var(d), self.budget)?;
                if !b.is_empty()
                    && (b.lower < dizy_domains::Bound::int(lo)
                        || b.upper > dizy_domains::Bound::int(hi))
                {
                    s.data.s_forget(d, self.budget)?;
                    meet(&mut s.data, &[(1, d)], ConstraintKind::Ge, lo, self.budget)?;
                    meet(&mut s.data, &[(1, d)], ConstraintKind::Le, hi, self.budget)?;
                }
            }
        }
        Ok(vec![s])
    }
}

/// `Σ aᵢ·dᵢ  kind  -c` … i.e. meet `Σ aᵢ·dᵢ - c kind 0` with `c` on the right-hand side.
pub fn meet(
    data: &mut AnyDomain,
    terms: &[(i128, Dim)],
    kind: ConstraintKind,
    rhs: i128,
    b: &Budget,
) -> Result<()> {
    let e = LinExpr::from_terms(terms, rhs.checked_neg().unwrap_or(i128::MAX))
        .ok_or_else(|| Error::stopped(Stop::Size, "constraint coefficient overflow"))?;
    data.s_meet_constraint(&LinConstraint::new(e, kind), b)
}

fn is_truth_valued(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Binary(op, ..) => matches!(
            op,
            crate::ir::BinOp::Eq
                | crate::ir::BinOp::Ne
                | crate::ir::BinOp::Lt
                | crate::ir::BinOp::Le
                | crate::ir::BinOp::Gt
                | crate::ir::BinOp::Ge
        ),
        ExprKind::Logic(..) | ExprKind::Unary(crate::ir::UnOp::LogNot, _) => true,
        ExprKind::Cast(x) if e.ty == CType::Bool => !x.ty.is_float(),
        _ => false,
    }
}

fn dest_var(k: &InstrKind) -> Option<VarId> {
    match k {
        InstrKind::Assign(Place::Var(v), _) => Some(*v),
        InstrKind::Call {
            dest: Some(Place::Var(v)),
            ..
        } => Some(*v),
        _ => None,
    }
}

fn pairable(a: &InstrKind, b: &InstrKind) -> bool {
    matches!(
        (a, b),
        (InstrKind::SetGuard(..), InstrKind::SetGuard(..))
            | (
                InstrKind::Assign(Place::Var(_), _),
                InstrKind::Assign(Place::Var(_), _)
            )
            | (
                InstrKind::Call {
                    dest: Some(Place::Var(_)),
                    ..
                },
                InstrKind::Call {
                    dest: Some(Place::Var(_)),
                    ..
                }
            )
    )
}

/// The semantics the analysis was run under (what the expressions of a report mean).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Semantics {
    pub overflow: Overflow,
    pub floats: Floats,
}

/// Corresponding locations as dimension pairs: paired scalar variables, and the cells of paired
/// aggregates that have the same path and type in both.
pub fn dim_pairs(c: &Correlated, dims: &Dims) -> Vec<(Dim, Dim)> {
    let mut out = vec![];
    for p in &c.pairs {
        if let (Some(a), Some(b)) = (dims.of(p.old), dims.of(p.new)) {
            out.push((a, b));
        } else if let (Some(a), Some(b)) = (dims.cells(p.old), dims.cells(p.new)) {
            out.extend(locs::pair_cells(a, b).0.into_iter().map(|(x, y, _)| (x, y)));
        }
    }
    out
}

/// Equality of an old and a new expression in sub-state `s` (see [`Analyzer::equal_exprs`]).
pub fn equal_exprs(
    c: &Correlated,
    dims: &Dims,
    sem: Semantics,
    x: &Expr,
    y: &Expr,
    s: &Sub,
    budget: &Budget,
) -> Result<bool> {
    let tr = Tr {
        dims,
        func: &c.product().func,
        ctx: &s.ctx,
        data: &s.data,
        overflow: sem.overflow,
        floats: sem.floats,
        budget,
    };
    if let (Some(a), Some(b)) = (tr.linear(x), tr.linear(y)) {
        if let Some(diff) = a.checked_sub(&b) {
            if s.data
                .s_entails(&LinConstraint::new(diff, ConstraintKind::Eq), tr.budget)?
            {
                return Ok(true);
            }
        }
    }
    same_pure(c, &tr, x, y, s)
}

/// The same expression tree over variables proven pairwise equal (no memory reads).
fn same_pure(c: &Correlated, tr: &Tr<'_>, x: &Expr, y: &Expr, s: &Sub) -> Result<bool> {
    let dims = tr.dims;
    if x.ty != y.ty && !(x.ty.is_scalar() && y.ty.is_scalar()) {
        return Ok(false);
    }
    Ok(match (&x.kind, &y.kind) {
        (ExprKind::Int(a), ExprKind::Int(b)) => a == b,
        (ExprKind::Guard(a), ExprKind::Guard(b)) => {
            matches!((s.ctx.get(a), s.ctx.get(b)), (Some(x), Some(y)) if x == y)
        }
        (ExprKind::Str(a), ExprKind::Str(b)) => {
            let st = &c.program.program.strings;
            st.get(a.index()).is_some() && st.get(a.index()) == st.get(b.index())
        }
        (ExprKind::FuncAddr(a), ExprKind::FuncAddr(b)) => {
            // The same external function, or a helper both versions define identically.
            a == b || (*b == format!("{a}'") && congruent_helpers(c).contains(a))
        }
        (ExprKind::Float(a), ExprKind::Float(b)) => a.to_bits() == b.to_bits(),
        (ExprKind::Var(a), ExprKind::Var(b)) => {
            let paired = c.pairs.iter().any(|p| p.old == *a && p.new == *b);
            if !paired {
                return Ok(false);
            }
            match (dims.of(*a), dims.of(*b)) {
                (Some(da), Some(db)) => {
                    let e = LinExpr::from_terms(&[(1, da), (-1, db)], 0).expect("small");
                    s.data
                        .s_entails(&LinConstraint::new(e, ConstraintKind::Eq), tr.budget)?
                }
                _ => false,
            }
        }
        (ExprKind::Load(a), ExprKind::Load(b)) => match (tr.dim_of_place(a), tr.dim_of_place(b)) {
            (Some(da), Some(db)) => {
                let e = LinExpr::from_terms(&[(1, da), (-1, db)], 0).expect("small");
                s.data
                    .s_entails(&LinConstraint::new(e, ConstraintKind::Eq), tr.budget)?
            }
            _ => false,
        },
        (ExprKind::Unary(o1, a), ExprKind::Unary(o2, b)) => o1 == o2 && same_pure(c, tr, a, b, s)?,
        (ExprKind::Cast(a), ExprKind::Cast(b)) => x.ty == y.ty && same_pure(c, tr, a, b, s)?,
        (ExprKind::Binary(o1, a1, b1), ExprKind::Binary(o2, a2, b2)) => {
            (o1 == o2 && same_pure(c, tr, a1, a2, s)? && same_pure(c, tr, b1, b2, s)?)
                // Commuted or mirrored operands: `a & b` against `b & a`, `x < y` against `y > x`.
                || (o1.swapped() == Some(*o2)
                    && same_pure(c, tr, a1, b2, s)?
                    && same_pure(c, tr, b1, a2, s)?)
        }
        (ExprKind::Logic(o1, a1, b1), ExprKind::Logic(o2, a2, b2)) => {
            o1 == o2 && same_pure(c, tr, a1, a2, s)? && same_pure(c, tr, b1, b2, s)?
        }
        _ => false,
    })
}

/// Helpers defined in both versions with identical code, no globals and no pointer
/// parameters: equal arguments give equal results.
fn congruent_helpers(c: &Correlated) -> HashSet<String> {
    let mut out = HashSet::new();
    let funcs = &c.program.functions;
    for f in funcs {
        if c.function_side(&f.name) != Side::Old {
            continue;
        }
        let Some(g) = funcs.iter().find(|x| x.name == format!("{}'", f.name)) else {
            continue;
        };
        let no_globals = |h: &GclFunction| {
            h.func
                .vars
                .iter()
                .all(|v| !matches!(v.kind, VarKind::Global(_)))
        };
        let no_ptrs = |h: &GclFunction| {
            h.func
                .params
                .iter()
                .all(|p| !h.func.var(*p).ty.is_pointer())
        };
        let no_calls = |h: &GclFunction| {
            h.instrs
                .iter()
                .all(|i| !matches!(i.kind, InstrKind::Call { .. }))
        };
        if no_globals(f)
            && no_globals(g)
            && no_ptrs(f)
            && no_calls(f)
            && no_calls(g)
            && same_code(f, g)
        {
            out.insert(f.name.clone());
        }
    }
    out
}

/// Identical GCL up to the tag (compared through the printed form of each instruction).
fn same_code(a: &GclFunction, b: &GclFunction) -> bool {
    if a.instrs.len() != b.instrs.len() || a.func.vars.len() != b.func.vars.len() {
        return false;
    }
    a.instrs
        .iter()
        .zip(&b.instrs)
        .all(|(x, y)| x.guard == y.guard && same_kind(&x.kind, &y.kind))
        && a.func
            .vars
            .iter()
            .zip(&b.func.vars)
            .all(|(x, y)| x.name == y.name && x.ty == y.ty)
}

fn same_kind(a: &InstrKind, b: &InstrKind) -> bool {
    // Variables and guards share indices between the two copies (they are the same function
    // body, each in its own frame), so structural equality is the right test.
    a == b
}

#[cfg(test)]
mod tests;
