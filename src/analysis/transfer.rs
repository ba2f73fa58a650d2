//! Transfer functions: what one instruction, or a matched pair, does to a state.
//!
//! Takes a sub-state and a product instruction; gives the sub-states after it (DIZY Table 1):
//! a guard assignment splits by the condition and its negation, a guarded instruction applies
//! where its guard holds and splits where it is unknown, assignments go through the numeric
//! domain with wrapping types kept in range, and memory the analysis does not track (pointers,
//! calls) is forgotten. Called by the fixpoint in `analyzer`; [`eval_guard`] is also how Δ and
//! termination tell which version runs an instruction in a sub-state.

use dizy_domains::{AnyDomain, ConstraintKind, Dim, LinConstraint, LinExpr};

use super::analyzer::Analyzer;
use super::locs::Resolved;
use super::options::Floats;
use super::state::{Ctx, Soft, State, Sub};
use super::translate::{type_range, wraps, Tr};
use crate::correlate::{Side, PURE_FUNCTIONS};
use crate::diag::{Error, Result, Stop};
use crate::gcl::{Guard, InstrKind};
use crate::ir::{CType, Callee, Expr, ExprKind, Place, Pos, VarId, VarKind};
use crate::limits::Budget;

/// Outcome of a guard under a guard valuation.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Tri {
    True,
    False,
    Unknown,
}

/// The value of guard `g` under valuation `ctx` (unknown when a literal is not valued).
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

impl Analyzer<'_> {
    fn side_of_pos(&self, p: usize) -> Side {
        self.c.origin(Pos::new(p)).side
    }

    /// Fallthrough state and, for a jump, the target and the state taking it. Takes the state
    /// by value: a sub-state goes one way without a copy (polyhedra are costly to copy), and
    /// is copied only when its guard is unknown.
    #[allow(clippy::type_complexity)]
    pub(super) fn transfer(
        &mut self,
        p: usize,
        state: State,
    ) -> Result<(State, Option<(usize, State)>)> {
        let ins = &self.f.instrs[p];
        if let Some(t) = self.c.cfg.target(Pos::new(p)).map(|t| t.index()) {
            let mut taken = vec![];
            let mut fall = vec![];
            for s in state {
                match eval_guard(&ins.guard, &s.ctx) {
                    Tri::True => taken.push(s),
                    Tri::False => fall.push(s),
                    Tri::Unknown => {
                        taken.push(assume_guard(&s, &ins.guard));
                        fall.push(s);
                    }
                }
            }
            return Ok((fall, Some((t, taken))));
        }
        let mut out = vec![];
        for s in state {
            // Per sub-state, not only per worklist step: one instruction over a few dozen large
            // polyhedra took 1.5 s and ran a `--timeout 2` run 1.9 s late.
            self.budget.check()?;
            match eval_guard(&ins.guard, &s.ctx) {
                Tri::False => out.push(s),
                Tri::True => out.extend(self.apply(p, s)?),
                Tri::Unknown => {
                    out.extend(self.apply(p, assume_guard(&s, &ins.guard))?);
                    out.push(s);
                }
            }
        }
        Ok((out, None))
    }

    /// A matched pair at `p`, `p + 1`: both transfers, plus congruence where both run on equal
    /// inputs.
    pub(super) fn transfer_pair(&mut self, p: usize, state: State) -> Result<State> {
        let (io, inew) = (&self.f.instrs[p], &self.f.instrs[p + 1]);
        let mut out = vec![];
        for s in state {
            let both = eval_guard(&io.guard, &s.ctx) == Tri::True
                && eval_guard(&inew.guard, &s.ctx) == Tri::True;
            let congruent = both && self.congruent(p, &s)?;
            let negated = both && !congruent && self.negated_guards(p, &s)?;
            let induction = match both && !self.summarized.is_empty() {
                true => self.induction(p, &s)?,
                false => None,
            };
            // Both wrote the same thing to equal memories: they stay equal.
            let restore = congruent && s.mem.agrees() && self.writes_alike(p);
            let kept = match congruent && self.writes_alike(p) {
                true => self.effects_kept(&s)?,
                false => vec![],
            };
            let (after_old, _) = self.transfer(p, vec![s])?;
            let (mut after_new, _) = self.transfer(p + 1, after_old)?;
            for r in after_new.iter_mut() {
                self.equate(r, &kept)?;
            }
            if restore {
                for r in after_new.iter_mut() {
                    self.mem_pair_done(r, true);
                }
            }
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
            if let (true, InstrKind::SetGuard(go, _), InstrKind::SetGuard(gn, _)) =
                (negated, &io.kind, &inew.kind)
            {
                // Opposite conditions: the guards take opposite values.
                out.extend(after_new.into_iter().filter(
                    |r| !matches!((r.ctx.get(go), r.ctx.get(gn)), (Some(a), Some(b)) if a == b),
                ));
                continue;
            }
            if let Some(pair) = induction {
                for mut r in after_new {
                    self.equate(&mut r, &[pair])?;
                    out.push(r);
                }
                continue;
            }
            if congruent {
                if let (Some(pa), Some(pb)) = (fixed_dest(&io.kind), fixed_dest(&inew.kind)) {
                    for mut r in after_new {
                        let same: Vec<(Dim, Dim)> =
                            match (self.resolve(&r, pa), self.resolve(&r, pb)) {
                                (Resolved::Scalar(a), Resolved::Scalar(b)) => vec![(a, b)],
                                // An aggregate (a struct a congruent helper returned): cell by
                                // cell, where the layouts agree.
                                (Resolved::Cells(a), Resolved::Cells(b))
                                    if a.len() == b.len()
                                        && a.iter().zip(&b).all(|((x, dx), (y, dy))| {
                                            x == y
                                                && self.dims.ty_of(&self.f.func, *dx)
                                                    == self.dims.ty_of(&self.f.func, *dy)
                                        }) =>
                                {
                                    a.iter().zip(&b).map(|(x, y)| (x.1, y.1)).collect()
                                }
                                _ => vec![],
                            };
                        self.equate(&mut r, &same)?;
                        out.push(r);
                    }
                    continue;
                }
            }
            out.extend(after_new);
        }
        Ok(out)
    }

    /// For a congruent pair at `p`, `p + 1` that writes alike (two calls of one external
    /// function on equal arguments, two stores of equal values at equal addresses): the paired
    /// globals that are equal before it. Each version forgets the globals it may write, but
    /// both write the same thing to the same place of equal memories (globals are the same
    /// objects in both, see the memory assumption; an unknown function called with equal
    /// arguments has equal effects), so such a pair is equal afterwards too; a pair that
    /// differs before may still differ (nothing need write it). Address-taken locals are left
    /// out: frames are not shared, so one store may hit the old local and miss the new one.
    fn effects_kept(&self, s: &Sub) -> Result<Vec<(Dim, Dim)>> {
        let (old, new) = (&self.globals_old, &self.globals_new);
        let mut out = vec![];
        for &(a, b) in &self.dim_pairs {
            if !(old.contains(&a) && new.contains(&b)) {
                continue;
            }
            let Some(diff) = LinExpr::var(a).checked_sub(&LinExpr::var(b)) else {
                continue;
            };
            if s.data
                .s_entails(&LinConstraint::new(diff, ConstraintKind::Eq), self.budget)?
            {
                out.push((a, b));
            }
        }
        Ok(out)
    }

    /// Make each pair of dimensions equal in `r`.
    fn equate(&self, r: &mut Sub, pairs: &[(Dim, Dim)]) -> Result<()> {
        for &(a, b) in pairs {
            meet(
                &mut r.data,
                &[(1, a), (-1, b)],
                ConstraintKind::Eq,
                0,
                self.budget,
            )?;
        }
        Ok(())
    }

    /// Apply a non-jump instruction to a sub-state whose guard holds.
    fn apply(&mut self, p: usize, s: Sub) -> Result<Vec<Sub>> {
        let mut out = vec![];
        for piece in self.mem_reads(p, s)? {
            out.extend(self.apply_read(p, piece)?);
        }
        Ok(out)
    }

    /// [`Self::apply`] once the instruction's reads through pointers are done, with the
    /// symbolic definitions it kills and makes (`defs`).
    fn apply_read(&mut self, p: usize, mut s: Sub) -> Result<Vec<Sub>> {
        let kind = &self.f.instrs[p].kind;
        s.defs.before(kind);
        let mut out = self.apply_kind(p, s)?;
        let kind = &self.f.instrs[p].kind;
        // A library function only if the file does not define one of that name (whose two
        // versions may differ); a helper of the file only if congruent.
        let pure = |n: &str| {
            let m = self.c.source_name(n);
            let library = (PURE_FUNCTIONS.contains(&m)
                || crate::correlate::NO_MEMORY_WRITES.contains(&m))
                && !self.c.program.functions.iter().any(|f| f.name == n);
            (library || self.congruent_helpers.contains(m)).then(|| m.to_string())
        };
        let func = &self.f.func;
        let immutable = |v: VarId| match func.var(v).kind {
            VarKind::Global(g) => self
                .c
                .program
                .program
                .globals
                .get(g.index())
                .is_some_and(|g| {
                    self.c
                        .immutable_globals
                        .contains(self.c.source_name(&g.name))
                }),
            _ => false,
        };
        for r in out.iter_mut() {
            r.defs.after(func, kind, pure, immutable);
        }
        Ok(out)
    }

    fn apply_kind(&mut self, p: usize, mut s: Sub) -> Result<Vec<Sub>> {
        let ins = &self.f.instrs[p];
        let side = self.side_of_pos(p);
        match &ins.kind {
            InstrKind::SetGuard(g, cond) => {
                let tr = self.tr(&s);
                let t = tr.cond(cond, true);
                let f = tr.cond(cond, false);
                let defined = |n: &str| self.c.program.functions.iter().any(|f| f.name == n);
                let pinned = match self.ieee() {
                    true => super::ieee::pinned_by(cond, &tr, &s.defs, &defined),
                    false => None,
                };
                // Outcomes of comparisons the domain cannot express (`atoms`), per branch.
                let split = match (&t, &f) {
                    (Some(_), Some(_)) => None,
                    _ => self.atom_branches(cond, &s)?,
                };
                // Both branches expressible, but one is a disjunction (`x != 1`: `x <= 0` or
                // `x >= 2`), which the next join of its pieces loses: its outcomes are
                // remembered too, and outcomes the sub-state remembers decide the condition
                // where the (joined) polyhedron no longer can.
                let decided = match (&t, &f) {
                    (Some(a), Some(b))
                        if a.len() > 1 || b.len() > 1 || s.defs.atoms().next().is_some() =>
                    {
                        self.atom_branches(cond, &s)?
                    }
                    _ => None,
                };
                let mut out = vec![];
                // The last piece takes the sub-state itself: polyhedra are costly to copy.
                let mut rest = Some(s);
                for (val, dnf) in [(true, t), (false, f)] {
                    let mut base = match val {
                        true => rest.clone(),
                        false => rest.take(),
                    }
                    .expect("the sub-state is taken by the last half only");
                    if let Some((atoms, b)) = &decided {
                        let reach = &b[usize::from(!val)];
                        if reach.is_empty() {
                            // the remembered outcomes exclude this branch
                            continue;
                        }
                        if dnf.as_ref().is_some_and(|d| d.len() > 1) {
                            for &(k, o) in &reach[0] {
                                if reach.iter().all(|r| r.contains(&(k, o))) {
                                    base.defs.atom(&self.f.func, &atoms[k], o, |_| false);
                                }
                            }
                        }
                    }
                    let bases = match &split {
                        Some((atoms, b)) => {
                            let mut v = vec![];
                            for outcomes in &b[usize::from(!val)] {
                                let mut x = base.clone();
                                for &(k, o) in outcomes {
                                    x.defs.atom(&self.f.func, &atoms[k], o, |_| false);
                                }
                                v.push(x);
                            }
                            v
                        }
                        None => vec![base],
                    };
                    for mut base in bases {
                        base.ctx.insert(*g, val);
                        // What a floating equality implies on this branch (`ieee`): one base per
                        // alternative.
                        let bases = match pinned.as_ref().filter(|x| x.0 == val) {
                            Some((_, alts)) => self.pin(base, alts)?,
                            None => vec![base],
                        };
                        for base in bases {
                            match dnf.clone() {
                                None => out.push(base),
                                Some(conjs) => {
                                    let last = conjs.len().saturating_sub(1);
                                    let mut base = Some(base);
                                    for (k, conj) in conjs.into_iter().enumerate() {
                                        let mut piece = match k == last {
                                            true => base.take(),
                                            false => base.clone(),
                                        }
                                        .expect("the base is taken by the last piece only");
                                        piece.data.s_meet_constraints(&conj, self.budget)?;
                                        if !piece.data.s_is_bottom(self.budget)? {
                                            out.push(piece);
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
                Ok(out)
            }
            InstrKind::Assign(place, e) => {
                let mut out = match self.resolve(&s, place) {
                    Resolved::Scalar(d) => {
                        let ty = self.f.func.place_ty(place);
                        self.assign(s, d, &ty, e)?
                    }
                    Resolved::Cells(dst) => {
                        self.copy_aggregate(&mut s, &dst, e)?;
                        vec![s]
                    }
                    Resolved::Some(ds) => {
                        for d in ds {
                            s.data.s_forget(d, self.budget)?;
                        }
                        vec![s]
                    }
                    Resolved::Untracked => {
                        if place.root_var().is_none() {
                            let value = self.f.func.place_ty(place).is_scalar().then_some(e);
                            self.mem_store(p, &mut s, place, value)?;
                            self.clobber(&mut s, side, true)?;
                        }
                        vec![s]
                    }
                };
                for r in out.iter_mut() {
                    self.mem_direct_write(r, place, side)?;
                }
                Ok(out)
            }
            InstrKind::Havoc(place) => {
                self.forget_place(&mut s, place, side)?;
                self.mem_write_unknown(p, &mut s, place, side)?;
                Ok(vec![s])
            }
            InstrKind::ZeroFill(place) => {
                self.mem_write_unknown(p, &mut s, place, side)?;
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
                // A function of the file is never the library function it is named after.
                let defined = matches!(callee, Callee::Direct(n)
                    if self.c.program.functions.iter().any(|f| f.name == *n));
                let pure = matches!(callee, Callee::Direct(n) if self.congruent_helpers.contains(self.c.source_name(n)))
                    || (!defined
                        && (matches!(callee, Callee::Direct(n) if PURE_FUNCTIONS.contains(&n.as_str()))
                            || crate::correlate::writes_nothing(
                                callee,
                                args,
                                &self.c.program.program.strings,
                            )));
                let pointers = args.iter().any(|a| a.ty.is_pointer());
                if !pure {
                    self.clobber(&mut s, side, pointers)?;
                    let effect_free =
                        matches!(callee, Callee::Direct(n) if self.effect_free.contains(n));
                    if effect_free {
                        // A helper that stores nothing through pointers may still write
                        // globals by name.
                        self.mem_globals_written(&mut s, side)?;
                    } else if !output_only(callee, args) {
                        self.mem_clobber(&mut s, side)?;
                    }
                }
                if let Some(d) = dest {
                    self.mem_write_unknown(p, &mut s, d, side)?;
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

    /// The atoms of `cond` and, per branch (`[true, false]`), the outcome assignments that
    /// reach it in `s` ([`super::atoms::branches`]); `None` when `cond` is not a formula over
    /// comparisons or has too many unknown ones.
    fn atom_branches(
        &self,
        cond: &Expr,
        s: &Sub,
    ) -> Result<Option<(Vec<Expr>, super::atoms::Branches)>> {
        let mut atoms = vec![];
        let Some(form) = super::atoms::formula(cond, &mut atoms, &s.ctx) else {
            return Ok(None);
        };
        let mut known = vec![None; atoms.len()];
        for (k, a) in atoms.iter().enumerate() {
            let not_a = negated(a);
            for (e, o) in s.defs.atoms() {
                if self.same_atom(e, a, s)? {
                    known[k] = Some(*o);
                    break;
                }
                if let Some(n) = &not_a {
                    if self.same_atom(e, n, s)? {
                        known[k] = Some(!*o);
                        break;
                    }
                }
            }
        }
        Ok(super::atoms::branches(&form, &known).map(|b| (atoms, b)))
    }

    /// `base` split by alternatives of pinned dimensions, the infeasible ones dropped.
    fn pin(&self, base: Sub, alts: &super::ieee::Pins) -> Result<Vec<Sub>> {
        let mut out = vec![];
        for alt in alts {
            let mut b = base.clone();
            for &(d, c) in alt {
                meet(&mut b.data, &[(1, d)], ConstraintKind::Eq, c, self.budget)?;
            }
            if !b.data.s_is_bottom(self.budget)? {
                out.push(b);
            }
        }
        Ok(out)
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
    pub(super) fn tr<'s>(&'s self, s: &'s Sub) -> Tr<'s> {
        self.tr_loads(s, &self.loads, &self.convs)
    }

    /// A translator for expressions in sub-state `s` whose reads through pointers have the
    /// values `loads` and whose narrowing conversions the values `convs` (none: translated).
    pub(super) fn tr_loads<'s>(
        &'s self,
        s: &'s Sub,
        loads: &'s [(&'s Place, Dim)],
        convs: &'s [(&'s Expr, Dim)],
    ) -> Tr<'s> {
        Tr {
            dims: &self.dims,
            func: &self.f.func,
            ctx: &s.ctx,
            data: &s.data,
            overflow: self.opts.overflow,
            floats: self.opts.floats,
            budget: self.budget,
            loads,
            convs,
            subst: std::cell::Cell::new(super::translate::SUBST_FUEL),
        }
    }

    /// A write of a value the analysis does not follow to `place` (a call's result, a havoc, a
    /// zero fill): through a pointer, a store of an unknown value; otherwise a direct write.
    fn mem_write_unknown(
        &mut self,
        p: usize,
        s: &mut Sub,
        place: &Place,
        side: Side,
    ) -> Result<()> {
        if place.root_var().is_none() {
            self.mem_store(p, s, place, None)
        } else {
            self.mem_direct_write(s, place, side)
        }
    }

    /// Whether the matched pair at `p` writes memory the same way in both versions when it is
    /// congruent: stores through pointers, writes of a paired global, calls of one external
    /// function (deterministic: equal arguments in equal memories, equal effects).
    fn writes_alike(&self, p: usize) -> bool {
        let (a, b) = (&self.f.instrs[p].kind, &self.f.instrs[p + 1].kind);
        match (a, b) {
            (InstrKind::Assign(pa, _), InstrKind::Assign(pb, _)) => {
                let global = |v: &VarId| matches!(self.f.func.var(*v).kind, VarKind::Global(_));
                (pa.root_var().is_none() && pb.root_var().is_none())
                    || matches!((pa, pb), (Place::Var(x), Place::Var(y))
                        if global(x) && self.c.pairs.iter().any(|q| q.old == *x && q.new == *y))
            }
            (InstrKind::Call { .. }, InstrKind::Call { .. }) => true,
            _ => false,
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
        s.wrapped.remove(&(d.index() as u32));
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
        // A conversion between integer types at the top, of a value the translation cannot
        // bound (it is not linear: `(size_t)((p - q) / 4)`), is that value reduced into the
        // target's range: assigned as it is, then reduced below. (A linear one the translation
        // converts itself; splitting it by windows here only multiplied sub-states.)
        let (e, converted) = match &e.kind {
            ExprKind::Cast(x)
                if ty.is_integer()
                    && ty != CType::Bool
                    && x.ty.is_integer()
                    && x.ty != CType::Bool
                    && self.tr(&s).exact(x).as_linear().is_none() =>
            {
                (&**x, true)
            }
            _ => (e, false),
        };
        let x = if converted {
            self.tr(&s).exact(e)
        } else {
            self.tr(&s).expr(e)
        };
        // Where the C values of the operands put the mathematical result (before `d` changes).
        let reach = x.as_linear().and_then(|l| self.concrete_interval(&s, &l));
        s.data.s_assign_expr(d, &x, self.budget)?;
        // Wrapping types (and conversions): a result outside the range is not the C value.
        if converted || wraps(&ty, self.opts.overflow) {
            let pieces = self.reduce_windows(s, d, &ty, reach)?;
            // A piece that wrapped, when another did not, stays apart at loop heads until `d`
            // is assigned again (see `Sub::wrapped`).
            let tag = pieces.len() > 1 && !converted;
            return Ok(pieces
                .into_iter()
                .map(|(mut p, shifted)| {
                    if tag && shifted {
                        p.wrapped.insert(d.index() as u32);
                    }
                    p
                })
                .collect());
        }
        Ok(vec![s])
    }

    /// `d`, just assigned a mathematical value whose operands' C values put it in `reach`,
    /// reduced into `ty`'s range as a conversion does: one exact piece per window of the
    /// modulus when it wraps at most once either way (`n - 1` from 0, `i + 1` at the top, a
    /// signed byte read as unsigned), otherwise any value of the type.
    pub(super) fn reduce_into(
        &self,
        s: Sub,
        d: Dim,
        ty: &CType,
        reach: Option<(i128, i128)>,
    ) -> Result<Vec<Sub>> {
        Ok(self
            .reduce_windows(s, d, ty, reach)?
            .into_iter()
            .map(|(p, _)| p)
            .collect())
    }

    /// [`Analyzer::reduce_into`], each piece with whether it was shifted by the modulus.
    fn reduce_windows(
        &self,
        mut s: Sub,
        d: Dim,
        ty: &CType,
        reach: Option<(i128, i128)>,
    ) -> Result<Vec<(Sub, bool)>> {
        let Some((lo, hi)) = type_range(ty) else {
            return Ok(vec![(s, false)]);
        };
        let b = s.data.s_bounds(&LinExpr::var(d), self.budget)?;
        if b.is_empty()
            || (b.lower >= dizy_domains::Bound::int(lo) && b.upper <= dizy_domains::Bound::int(hi))
        {
            return Ok(vec![(s, false)]);
        }
        let m = hi - lo + 1;
        if let Some((a, z)) = reach.filter(|(a, z)| *a >= lo - m && *z <= hi + m) {
            let mut out = vec![];
            for k in [0, m, -m] {
                if a + k > hi || z + k < lo {
                    continue;
                }
                let mut piece = s.clone();
                meet(
                    &mut piece.data,
                    &[(1, d)],
                    ConstraintKind::Ge,
                    lo - k,
                    self.budget,
                )?;
                meet(
                    &mut piece.data,
                    &[(1, d)],
                    ConstraintKind::Le,
                    hi - k,
                    self.budget,
                )?;
                if piece.data.s_is_bottom(self.budget)? {
                    continue;
                }
                if k != 0 {
                    let shifted = LinExpr::var(d)
                        .checked_add_constant(k)
                        .expect("shift within i128");
                    piece.data.s_assign_linear(d, &shifted, self.budget)?;
                }
                out.push((piece, k != 0));
            }
            return Ok(out);
        }
        s.data.s_forget(d, self.budget)?;
        meet(&mut s.data, &[(1, d)], ConstraintKind::Ge, lo, self.budget)?;
        meet(&mut s.data, &[(1, d)], ConstraintKind::Le, hi, self.budget)?;
        Ok(vec![(s, false)])
    }

    /// The values linear expression `l` can take in `s`, each dimension bounded by the state
    /// and by its C type (a variable always holds a value of its type), if finite.
    pub(super) fn concrete_interval(&self, s: &Sub, l: &LinExpr) -> Option<(i128, i128)> {
        let (mut lo, mut hi) = (l.constant_term(), l.constant_term());
        for &(d, a) in l.terms() {
            let (tl, th) = type_range(self.dims.ty_of(&self.f.func, d))?;
            let b = s.data.s_bounds(&LinExpr::var(d), self.budget).ok()?;
            let dl = b
                .lower
                .finite()
                .filter(|v| v.is_integer())
                .map_or(tl, |v| v.num().max(tl));
            let dh = b
                .upper
                .finite()
                .filter(|v| v.is_integer())
                .map_or(th, |v| v.num().min(th));
            let (x, y) = if a > 0 {
                (a.checked_mul(dl)?, a.checked_mul(dh)?)
            } else {
                (a.checked_mul(dh)?, a.checked_mul(dl)?)
            };
            lo = lo.checked_add(x)?;
            hi = hi.checked_add(y)?;
        }
        Some((lo, hi))
    }
}

/// `Σ aᵢ·dᵢ  kind  -c` … i.e. meet `Σ aᵢ·dᵢ - c kind 0` with `c` on the right-hand side.
pub(super) fn meet(
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

/// A call that writes nothing of memory a later read could see: a library function known not to
/// (the mathematics), or an output function whose pointer arguments are text, buffers or
/// streams only (its output is compared as an effect; an `int *` argument may be `printf`'s
/// `%n`, which writes).
fn output_only(callee: &Callee, args: &[Expr]) -> bool {
    let Callee::Direct(n) = callee else {
        return false;
    };
    if crate::correlate::NO_MEMORY_WRITES.contains(&n.as_str()) {
        return true;
    }
    crate::correlate::OUTPUT_FUNCTIONS.contains(&n.as_str())
        && args.iter().all(|a| match a.ty.pointee() {
            None => true,
            Some(t) => matches!(
                t,
                CType::Void | CType::Struct(_) | CType::Int { bits: 8, .. }
            ),
        })
}

/// The comparison `e` negated where that is one comparison again: `==` and `!=` always, the
/// orderings over integers only (under IEEE, `!(x < y)` is not `x >= y` when one is NaN).
fn negated(e: &Expr) -> Option<Expr> {
    use crate::ir::BinOp::*;
    let ExprKind::Binary(op, a, b) = &e.kind else {
        return None;
    };
    let ints = a.ty.is_integer() && b.ty.is_integer();
    let not = match op {
        Eq => Ne,
        Ne => Eq,
        Lt if ints => Ge,
        Ge if ints => Lt,
        Le if ints => Gt,
        Gt if ints => Le,
        _ => return None,
    };
    Some(Expr {
        kind: ExprKind::Binary(not, a.clone(), b.clone()),
        ty: e.ty.clone(),
    })
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

/// The place an assignment or call writes, when what it denotes cannot depend on the value
/// written: a variable, or fields and constant indices of one (so after the pair, the place
/// still names the cell the pair wrote).
pub(super) fn fixed_dest(k: &InstrKind) -> Option<&Place> {
    fn fixed(p: &Place) -> bool {
        match p {
            Place::Var(_) => true,
            Place::Field(b, ..) => fixed(b),
            Place::Index(b, i, _) => matches!(i.kind, ExprKind::Int(_)) && fixed(b),
            Place::Deref(..) => false,
        }
    }
    match k {
        InstrKind::Assign(p, _) | InstrKind::Call { dest: Some(p), .. } => fixed(p).then_some(p),
        _ => None,
    }
}
