//! The worklist fixpoint over the product program.
//!
//! Takes a [`Correlated`] product and [`Options`]; gives the state before every position. The
//! constructor precomputes what the iteration consults (canonization points, matched pairs
//! transferred in one step, the dimensions calls and pointer stores clobber, liveness); the
//! iteration canonizes at canonization points, merges incoming edges, and widens at loop heads.
//! The transfer of single instructions is in `transfer`, congruence of pairs in `congruence`.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::time::Instant;

use dizy_domains::{ConstraintKind, Dim, NumDomain};

use super::congruence::{congruent_helpers, recursion_summary};
use super::dead;
use super::locs::{self, Dims};
use super::memory::{Mem, Sites};
use super::options::{Canon, CanonPoint, Options, Semantics, Stats};
use super::state::{self, derr, Ctx, Soft, State, Sub};
use super::transfer::meet;
use super::translate::{type_range, wraps};
use crate::correlate::{Correlated, Side};
use crate::diag::{Error, Result, Stop};
use crate::gcl::{GclFunction, InstrKind};
use crate::ir::{CType, GuardId, Place, Pos, VarId, VarKind};
use crate::limits::Budget;

/// The fixpoint in progress. Fields marked `pub(super)` are read by the transfer functions
/// and congruence (sibling modules), and by `analyze` when it collects the result.
pub(super) struct Analyzer<'a> {
    pub(super) c: &'a Correlated,
    pub(super) f: &'a GclFunction,
    pub(super) opts: &'a Options,
    pub(super) dims: Dims,
    pub(super) dim_pairs: Vec<(Dim, Dim)>,
    /// Guards Join-Equiv keeps apart ([`state::key`]): both versions' return flags.
    pub(super) kept_guards: Vec<GuardId>,
    pub(super) states: Vec<Option<State>>,
    /// Positions whose state no consumer reads once the fixpoint is reached (assignments that
    /// are neither loop heads nor diff points): their state is moved into the transfer, not
    /// copied (a copy of each polyhedron per step was an eighth of the analysis time).
    pub(super) transient: Vec<bool>,
    /// Positions of the diff points of effects (calls, output, volatile accesses).
    effect_points: HashSet<usize>,
    /// Latest contribution of each incoming edge `(from, to)` at merge points.
    contrib: HashMap<(usize, usize), State>,
    head_iters: HashMap<usize, usize>,
    canon_points: HashSet<usize>,
    /// The variable pairs diff points compare, by either variable ([`Self::defs_agree`]).
    compared: HashMap<VarId, (VarId, VarId)>,
    /// Old positions `k` whose instruction is matched with the new one at `k + 1`.
    pairs_at: HashSet<usize>,
    /// Per side: tracked dims of globals and of address-taken variables (forgotten by stores
    /// through pointers and by calls).
    pub(super) clobber_old: Vec<Dim>,
    pub(super) clobber_new: Vec<Dim>,
    pub(super) globals_old: Vec<Dim>,
    pub(super) globals_new: Vec<Dim>,
    /// Helpers whose calls are congruent (unchanged, no globals, no pointer arguments).
    pub(super) congruent_helpers: HashSet<String>,
    /// The analysed function and the rest of its recursion cycle when they are among
    /// `congruent_helpers` by induction on the depth of recursion ([`recursion_summary`]);
    /// empty otherwise.
    pub(super) summarized: BTreeSet<String>,
    pub(super) stats: Stats,
    /// Matched computations compared by z3 ([`super::smt_eq`]).
    pub(super) smt_eq: std::cell::RefCell<super::smt_eq::SmtEq>,
    pub(super) notes: Vec<String>,
    pub(super) budget: &'a Budget,
    /// Dimensions and guards to forget at each loop head.
    dead_dims: HashMap<usize, Vec<Dim>>,
    dead_guards: HashMap<usize, Vec<GuardId>>,
    /// Dimensions and guards that die at each position (forgotten as states reach it).
    dying_dims: Vec<Vec<Dim>>,
    dying_guards: Vec<Vec<GuardId>>,
    /// Reads and writes through pointers, with their dimensions (`memory`).
    pub(super) sites: Sites<'a>,
    /// The values of the reads of the instruction being transferred (`memory::mem_reads`).
    pub(super) loads: Vec<(&'a Place, Dim)>,
    /// The values of the narrowing conversions of the instruction being transferred.
    pub(super) convs: Vec<(&'a crate::ir::Expr, Dim)>,
    /// Functions of the program that store nothing through pointers (their calls leave the
    /// memory layer's equality alone).
    pub(super) effect_free: HashSet<String>,
}

/// Most worklist steps before the analysis gives up (reported as a timeout).
const MAX_TRANSFERS: usize = 2_000_000;
/// Sub-states an effect diff point keeps apart by their live guards; beyond, Join-Equiv.
const EFFECT_SUBSTATES: usize = 8;
/// Iterations at one loop head after which everything there is joined before widening.
const MAX_HEAD_ITERS: usize = 40;

impl<'a> Analyzer<'a> {
    pub(super) fn new(c: &'a Correlated, opts: &'a Options, budget: &'a Budget) -> Result<Self> {
        let f = c.product();
        let n = f.instrs.len();
        // Copies of aggregate inputs would only serve the report: they cost a dimension per
        // cell, so they stay untracked.
        let copies: Vec<VarId> = c.inputs.iter().map(|i| i.copy).collect();
        let mut dims = Dims::new(&f.func, &c.program.program.structs, &copies);
        let sites = Sites::new(f, &c.program.program.structs, &mut dims, |p| {
            c.origin(Pos::new(p)).side
        });
        let dim_pairs = dim_pairs(c, &dims);
        tracing::debug!(dims = dims.len(), positions = n, "analysis size");
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
        for d in (0..dims.len()).map(Dim::new) {
            let Some(v) = dims.var_of(d) else { continue };
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
        let (congruent_helpers, summary) = helpers_and_summary(c);
        Ok(Analyzer {
            c,
            f,
            opts,
            dims,
            dim_pairs,
            kept_guards: vec![c.old_ret, c.new_ret],
            states: vec![None; n + 1],
            transient: transient_positions(c),
            contrib: HashMap::new(),
            effect_points: c
                .diff_points
                .iter()
                .filter(|d| {
                    matches!(
                        d.kind,
                        crate::correlate::DiffKind::Output(_)
                            | crate::correlate::DiffKind::Effect(_)
                    )
                })
                .map(|d| d.pos.index())
                .collect(),
            head_iters: HashMap::new(),
            canon_points,
            compared: c
                .diff_points
                .iter()
                .flat_map(|d| d.pairs.iter())
                .flat_map(|&k| {
                    let p = (c.pairs[k].old, c.pairs[k].new);
                    [(p.0, p), (p.1, p)]
                })
                .collect(),
            pairs_at,
            clobber_old,
            clobber_new,
            globals_old,
            globals_new,
            congruent_helpers,
            stats: Stats::default(),
            smt_eq: Default::default(),
            notes: summary_note(&c.name, &summary).into_iter().collect(),
            summarized: summary,
            budget,
            dead_dims,
            dead_guards,
            dying_dims,
            dying_guards,
            sites,
            loads: vec![],
            convs: vec![],
            effect_free: crate::correlate::effect_free(&c.program),
        })
    }

    fn initial(&self) -> Result<State> {
        let mut data = self
            .opts
            .domain
            .top_budgeted(self.dims.len(), self.budget.op_budget())
            .map_err(derr)?;
        for d in (0..self.dims.len()).map(Dim::new) {
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
            mem: Mem::entry(),
            wrapped: im::OrdSet::new(),
            defs: Default::default(),
        }])
    }

    fn check_time(&self) -> Result<()> {
        self.budget.check()?;
        if self.stats.transfers > MAX_TRANSFERS {
            return Err(Error::stopped(Stop::Size, "analysis step budget exhausted"));
        }
        Ok(())
    }

    pub(super) fn run(&mut self) -> Result<()> {
        let n = self.f.instrs.len();
        self.states[0] = Some(self.initial()?);
        let mut work: BTreeSet<usize> = BTreeSet::new();
        work.insert(0);
        while let Some(p) = work.pop_first() {
            self.check_time()?;
            if p >= n {
                continue;
            }
            let stored = if self.transient[p] {
                self.states[p].take()
            } else {
                self.states[p].clone()
            };
            let Some(state) = stored else {
                continue;
            };
            let state = self.prepare(p, state)?;
            if tracing::enabled!(tracing::Level::TRACE) {
                for x in &state {
                    tracing::trace!(ctx = ?x.ctx, mem = ?x.mem, data = ?x.data.to_strings(&self.dims.names), "sub-state");
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
                (self.transfer_pair(p, state)?, None, p + 2)
            } else {
                let (f, j) = self.transfer(p, state)?;
                (f, j, p + 1)
            };
            tracing::debug!(ms = t0.elapsed().as_millis(), "transfer");
            let mut fall = fall;
            // a compared variable just assigned: its definition against the other version's
            let assigned: Vec<(VarId, VarId)> = (p..next)
                .filter_map(|i| match &self.f.instrs[i].kind {
                    InstrKind::Assign(Place::Var(v), _)
                    | InstrKind::Call {
                        dest: Some(Place::Var(v)),
                        ..
                    } => self.compared.get(v).copied(),
                    _ => None,
                })
                .collect();
            if !assigned.is_empty() {
                self.defs_agree(&assigned, &mut fall)?;
            }
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
            // A guard that is still live selects what runs next; joining its true and false
            // sub-states would run both, so Join-Equiv keeps them apart (at diff points too: Δ
            // reads the state before this, and an early return inside a loop is a diff point
            // whose live loop guards must survive it). At effects (calls, output), which code
            // may be full of, only while that leaves few sub-states; then the paper's Join-Equiv,
            // still apart by the guards of the effect itself: joining sub-states where it runs
            // with ones where it does not would make it run in one version alone (a call then
            // forgets that the versions' memories agree, and every later call differs).
            let canon = match self.opts.canon {
                Canon::JoinEquiv => Canon::None,
                c => c,
            };
            let kept = state::canonize(state, canon, pairs, &self.kept_guards, self.budget)?;
            if canon == Canon::None
                && self.effect_points.contains(&p)
                && kept.len() > EFFECT_SUBSTATES
            {
                let guards = self.guards_here(p);
                state::canonize(kept, Canon::JoinEquiv, pairs, &guards, self.budget)?
            } else {
                kept
            }
        } else {
            state
        };
        if s.len() > self.opts.max_substates {
            // Coarsest last: sub-states that agree on the live guards and the equivalences
            // first (what a guard selects stays exact); then on the equivalences and the guards
            // of the instruction about to run (joining sub-states where it runs with ones where
            // it does not makes its write weak, in each version on its own: a matched
            // `e := d`, `e' := d'` under `g`, `g'` then loses `e = e'`); then on the
            // equivalences alone.
            self.stats.forced_canonizations += 1;
            let here = self.guards_here(p);
            s = state::canonize_bounded(
                s,
                &[
                    (Canon::None, &self.kept_guards),
                    (Canon::JoinEquiv, &here),
                    (Canon::JoinEquiv, &self.kept_guards),
                    (Canon::JoinAll, &self.kept_guards),
                ],
                self.opts.max_substates,
                pairs,
                self.budget,
            )?;
        }
        Ok(s)
    }

    /// The guards Join-Equiv keeps apart at `p`: the return flags and the guards of the
    /// instruction at `p` (and of its partner when `p` starts a matched pair).
    fn guards_here(&self, p: usize) -> Vec<GuardId> {
        let mut guards = self.kept_guards.clone();
        let ends = if self.pairs_at.contains(&p) { p + 1 } else { p };
        for i in p..=ends.min(self.f.instrs.len().saturating_sub(1)) {
            guards.extend(self.f.instrs[i].guard.0.iter().map(|l| l.guard));
        }
        guards.sort();
        guards.dedup();
        guards
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
                state::canonize(
                    union,
                    canon,
                    &self.dim_pairs,
                    &self.kept_guards,
                    self.budget,
                )?
            } else {
                state::prune(union, self.budget)?
            };
            self.states[to] = Some(u);
            return Ok(true);
        }
        // Loop head: forget what the loop body overwrites before reading, then make the state
        // canonical by guards and equivalences so widening pairs sub-states up.
        let end = self
            .c
            .cfg
            .loops()
            .find(|(h, _)| h.index() == to)
            .map_or(to, |(_, b)| b.index());
        for s in union.iter_mut() {
            self.mem_loop_head(s, to..=end)?;
        }
        if let (Some(dd), Some(dg)) = (self.dead_dims.get(&to), self.dead_guards.get(&to)) {
            for s in union.iter_mut() {
                for &d in dd {
                    s.data.s_forget(d, self.budget)?;
                    s.wrapped.remove(&(d.index() as u32));
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
        let mut new = state::canonize(
            union,
            key_canon,
            &self.dim_pairs,
            &self.kept_guards,
            self.budget,
        )?;
        if new.len() > self.opts.max_substates {
            new = state::canonize(
                new,
                Canon::JoinAll,
                &self.dim_pairs,
                &self.kept_guards,
                self.budget,
            )?;
        }
        // Taken out (not copied) while the new contribution is compared and widened.
        let Some(old) = self.states[to].take() else {
            self.states[to] = Some(new);
            return Ok(true);
        };
        if state::leq(&new, &old, self.budget)? {
            self.states[to] = Some(old);
            return Ok(false);
        }
        let next = if iters > self.opts.widen_delay {
            self.stats.widenings += 1;
            let mut w = state::widen(
                &old,
                new,
                key_canon,
                &self.dim_pairs,
                &self.kept_guards,
                self.budget,
            )?;
            if w.len() > self.opts.max_substates {
                w = state::canonize(
                    w,
                    Canon::JoinAll,
                    &self.dim_pairs,
                    &self.kept_guards,
                    self.budget,
                )?;
            }
            w
        } else {
            new
        };
        self.states[to] = Some(next);
        Ok(true)
    }

    pub(super) fn semantics(&self) -> Semantics {
        Semantics {
            overflow: self.opts.overflow,
            floats: self.opts.floats,
        }
    }
}

/// Matched instructions transferred in one step, so that congruence can relate their results:
/// guard assignments, assignments to variables (their fields and constant indices included),
/// stores through pointers, and calls whose result (if any) goes to such a variable.
fn pairable(a: &InstrKind, b: &InstrKind) -> bool {
    use super::transfer::fixed_dest;
    match (a, b) {
        (InstrKind::SetGuard(..), InstrKind::SetGuard(..)) => true,
        (InstrKind::Assign(pa, _), InstrKind::Assign(pb, _)) => {
            (fixed_dest(a).is_some() && fixed_dest(b).is_some())
                || (super::memory::through_pointer(pa) && super::memory::through_pointer(pb))
        }
        (InstrKind::Call { dest: da, .. }, InstrKind::Call { dest: db, .. }) => match (da, db) {
            (None, None) => true,
            (Some(_), Some(_)) => fixed_dest(a).is_some() && fixed_dest(b).is_some(),
            _ => false,
        },
        _ => false,
    }
}

/// Corresponding locations as dimension pairs: paired scalar variables, and the cells of paired
/// aggregates that have the same path and type in both.
fn dim_pairs(c: &Correlated, dims: &Dims) -> Vec<(Dim, Dim)> {
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

/// What the report says of the summarized recursion.
fn summary_note(name: &str, summary: &BTreeSet<String>) -> Option<String> {
    let others: Vec<String> = summary
        .iter()
        .filter(|m| *m != name)
        .map(|m| format!("`{m}`"))
        .collect();
    match (summary.is_empty(), others.is_empty()) {
        (true, _) => None,
        (false, true) => Some(format!(
            "recursive calls of `{name}` on equal arguments are taken to give equal results in \
             both versions: induction on the depth of recursion (a difference shown is one \
             where the versions first differ)"
        )),
        (false, false) => Some(format!(
            "calls of `{name}` and of {} (which call each other) on equal arguments are taken \
             to give equal results in both versions: induction on the depth of recursion, so \
             this function is proved only where those are proved too",
            others.join(", ")
        )),
    }
}

/// The congruent helpers of `c`, with the analysed function and the rest of its recursion
/// cycle added when their recursion may be summarized ([`recursion_summary`]), and those.
fn helpers_and_summary(c: &Correlated) -> (HashSet<String>, BTreeSet<String>) {
    let mut h = congruent_helpers(c);
    let summary = match h.contains(&c.name) {
        true => BTreeSet::new(),
        false => recursion_summary(c, &h).unwrap_or_default(),
    };
    h.extend(summary.iter().cloned());
    (h, summary)
}

/// The positions whose state only the transfer needs (see [`Analyzer::transient`]): plain
/// assignments, havocs and zero-fills that are not loop heads (whose state widening compares
/// against), diff points (Δ), lockstep loop tests (termination); calls and guard tests keep
/// theirs for termination, the exit for everyone.
fn transient_positions(c: &Correlated) -> Vec<bool> {
    let f = c.product();
    let mut t: Vec<bool> = f
        .instrs
        .iter()
        .enumerate()
        .map(|(p, i)| {
            matches!(
                i.kind,
                InstrKind::Assign(..) | InstrKind::Havoc(_) | InstrKind::ZeroFill(_)
            ) && !c.cfg.is_loop_head(Pos::new(p))
        })
        .collect();
    t.push(false);
    for p in c
        .diff_points
        .iter()
        .map(|d| d.pos)
        .chain(c.lockstep.iter().map(|l| l.test))
    {
        if let Some(x) = t.get_mut(p.index()) {
            *x = false;
        }
    }
    t
}
