//! Congruence: when an old and a new computation provably give the same value.
//!
//! Takes a sub-state and a pair of expressions (or the matched pair of instructions at a
//! position); gives whether they are equal there — linear and entailed equal, or the same pure
//! expression over pairwise-equal variables — and which helpers are congruent (identical in both
//! versions, no globals, no pointer parameters, no calls: equal arguments give equal results).
//! The transfer of matched pairs uses it, and so do Δ and termination through [`equal_exprs`].

use std::collections::{BTreeSet, HashSet};

use dizy_domains::{ConstraintKind, Dim, LinConstraint, LinExpr};

use super::analyzer::Analyzer;
use super::defs::Def;
use super::locs::Dims;
use super::memory::{reads_agree, same_repr};
use super::options::Semantics;
use super::state::{Soft, Sub};
use super::translate::Tr;
use crate::correlate::{writes_nothing, Correlated, Side, NO_MEMORY_WRITES, PURE_FUNCTIONS};
use crate::diag::Result;
use crate::gcl::{GclFunction, InstrKind};
use crate::ir::{layout_size, BinOp, CType, Callee, Expr, ExprKind, Place, UnOp, VarId, VarKind};
use crate::limits::Budget;

impl Analyzer<'_> {
    /// Whether the pair at `p` computes its result from pairwise-equal values.
    pub(super) fn congruent(&self, p: usize, s: &Sub) -> Result<bool> {
        let (a, b) = (&self.f.instrs[p].kind, &self.f.instrs[p + 1].kind);
        let (ea, eb): (Vec<&Expr>, Vec<&Expr>) = match (a, b) {
            (InstrKind::Assign(pa, x), InstrKind::Assign(pb, y)) => {
                // Stores through pointers: to equal addresses too.
                let through = (pa.root_var().is_none(), pb.root_var().is_none());
                if through.0 != through.1
                    || (through.0
                        && !(same_repr(&self.f.func.place_ty(pa), &self.f.func.place_ty(pb))
                            && same_address(self.c, &self.tr_plain(s), pa, pb, s)?))
                {
                    return Ok(false);
                }
                (vec![x], vec![y])
            }
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
                    || (reads_memory(xa) && !reads_agree(self.c, s))
                {
                    return Ok(false);
                }
                (xa.iter().collect(), ya.iter().collect())
            }
            _ => return Ok(false),
        };
        for (x, y) in ea.iter().zip(eb.iter()) {
            if !self.equal_exprs(x, y, s)? && !self.smt_equal(x, y, s)? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// [`super::smt_eq`]: `x` and `y` equal as bit-vector functions of their leaves, the leaves
    /// paired where [`Analyzer::equal_exprs`] proves them equal in `s`.
    fn smt_equal(&self, x: &Expr, y: &Expr, s: &Sub) -> Result<bool> {
        let wrap = matches!(self.semantics().overflow, super::options::Overflow::Wrap);
        let func = &self.f.func;
        let def = |e: &Expr| match e.kind {
            ExprKind::Var(v) => match s.defs.get(v) {
                Some(super::defs::Def::Expr(d)) => Some(d.clone()),
                _ => None,
            },
            _ => None,
        };
        // results of GCC's bit builtins, which the comparison encodes as what they compute
        let call_def = |e: &Expr| match e.kind {
            ExprKind::Var(v) => match s.defs.get(v) {
                Some(super::defs::Def::Call(name, args)) if args.len() == 1 => {
                    Some((name.clone(), args[0].clone()))
                }
                _ => None,
            },
            _ => None,
        };
        let stable = |e: &Expr| match e.kind {
            ExprKind::Var(v) => !func.var(v).volatile,
            ExprKind::Guard(_) => true,
            _ => false,
        };
        self.smt_eq.borrow_mut().equal(
            x,
            y,
            wrap,
            self.budget.left(),
            &stable,
            &def,
            &call_def,
            |a, b| self.equal_exprs(a, b, s),
        )
    }

    /// At a matched pair of induction markers ([`crate::ir::INDUCTION`]) that follow the two
    /// versions' bodies unfolded on parameters provably equal in `s`: the dimensions of the two
    /// results, which the induction hypothesis makes equal (only sound while proving the
    /// analysed function itself, see [`recursion_summary`]).
    pub(super) fn induction(&self, p: usize, s: &Sub) -> Result<Option<(Dim, Dim)>> {
        fn marker(k: &InstrKind) -> Option<&Vec<Expr>> {
            match k {
                InstrKind::Call {
                    callee: Callee::Direct(n),
                    args,
                    dest: None,
                } if n == crate::ir::INDUCTION && !args.is_empty() => Some(args),
                _ => None,
            }
        }
        let (Some(xa), Some(ya)) = (
            marker(&self.f.instrs[p].kind),
            marker(&self.f.instrs[p + 1].kind),
        ) else {
            return Ok(None);
        };
        if xa.len() != ya.len() {
            return Ok(None);
        }
        for (x, y) in xa[1..].iter().zip(&ya[1..]) {
            if !self.equal_exprs(x, y, s)? {
                return Ok(None);
            }
        }
        let dim = |e: &Expr| match e.kind {
            ExprKind::Var(v) => self.dims.of(v),
            _ => None,
        };
        Ok(dim(&xa[0]).zip(dim(&ya[0])))
    }

    /// Whether the matched pair at `p` sets two guards to provably opposite values in `s`: one
    /// condition is the other's negation over operands provably equal (`a == b` against
    /// `a' != b'` for any type, `!c` against `c'`, and `<` against `>=` and the like over
    /// integers and pointers, where no NaN breaks the complement).
    pub(super) fn negated_guards(&self, p: usize, s: &Sub) -> Result<bool> {
        let (InstrKind::SetGuard(_, x), InstrKind::SetGuard(_, y)) =
            (&self.f.instrs[p].kind, &self.f.instrs[p + 1].kind)
        else {
            return Ok(false);
        };
        match (&x.kind, &y.kind) {
            (ExprKind::Unary(UnOp::LogNot, x0), _) => self.equal_exprs(x0, y, s),
            (_, ExprKind::Unary(UnOp::LogNot, y0)) => self.equal_exprs(x, y0, s),
            (ExprKind::Binary(o1, a, b), ExprKind::Binary(o2, c, d)) => {
                use BinOp::*;
                let ordered = !a.ty.is_float() && !b.ty.is_float();
                let opposite = match (o1, o2) {
                    (Eq, Ne) | (Ne, Eq) => true,
                    (Lt, Ge) | (Ge, Lt) | (Le, Gt) | (Gt, Le) => ordered,
                    _ => false,
                };
                Ok(opposite && self.equal_exprs(a, c, s)? && self.equal_exprs(b, d, s)?)
            }
            _ => Ok(false),
        }
    }

    /// Whether comparisons `x` and `y` provably have the same outcome in `s`: the same operator
    /// (or its mirror, `a < b` against `b > a`) over operands proved equal.
    pub(super) fn same_atom(&self, x: &Expr, y: &Expr, s: &Sub) -> Result<bool> {
        let (ExprKind::Binary(o1, a, b), ExprKind::Binary(o2, c, d)) = (&x.kind, &y.kind) else {
            return Ok(false);
        };
        if o1 == o2 && self.equal_exprs(a, c, s)? && self.equal_exprs(b, d, s)? {
            return Ok(true);
        }
        Ok(o1.swapped() == Some(*o2) && self.equal_exprs(a, d, s)? && self.equal_exprs(b, c, s)?)
    }

    /// Whether an old and a new expression provably have the same value in `s`: linear and
    /// entailed equal, or the same pure expression over pairwise-equal variables.
    pub(super) fn equal_exprs(&self, x: &Expr, y: &Expr, s: &Sub) -> Result<bool> {
        equal_exprs(self.c, &self.dims, self.semantics(), x, y, s, self.budget)
    }

    /// After an assignment to a variable a diff point compares: each such pair of integer
    /// variables (`pairs`) that a sub-state does not prove equal but whose symbolic
    /// definitions ([`super::defs`]) are congruent — `x := E` in one version and `x' := E'` in
    /// the other with `E` and `E'` equal in the sub-state, or the same pure call on equal
    /// arguments — is made equal in it. The definitions hold in the sub-state, so this only
    /// states what is true; it relates two copies of one computation that the correlation
    /// left unmatched (a `return e;` moved into both branches of an `if`: one copy matched,
    /// the other run alone, earlier). Done right after the assignment, while the operands are
    /// still tracked (they die before the diff point).
    pub(super) fn defs_agree(&self, pairs: &[(VarId, VarId)], s: &mut [Sub]) -> Result<()> {
        let func = &self.f.func;
        for sub in s.iter_mut() {
            for &(x, y) in pairs {
                let (Some(dx), Some(dy)) = (self.dims.of(x), self.dims.of(y)) else {
                    continue;
                };
                let ty = &func.var(x).ty;
                if !matches!(ty, CType::Int { .. } | CType::Bool) || *ty != func.var(y).ty {
                    continue;
                }
                let eq = LinConstraint::new(
                    LinExpr::var(dx)
                        .checked_sub(&LinExpr::var(dy))
                        .expect("two dims"),
                    ConstraintKind::Eq,
                );
                let equal = match (sub.defs.get(x), sub.defs.get(y)) {
                    (Some(Def::Expr(a)), Some(Def::Expr(b))) => {
                        a.ty == b.ty
                            && !sub.data.s_entails(&eq, self.budget)?
                            && (self.equal_exprs(a, b, sub)? || self.smt_equal(a, b, sub)?)
                    }
                    (Some(Def::Call(n, a)), Some(Def::Call(m, b)))
                        if n == m && a.len() == b.len() =>
                    {
                        let mut all = !sub.data.s_entails(&eq, self.budget)?;
                        for (u, v) in a.iter().zip(b) {
                            all = all && self.equal_exprs(u, v, sub)?;
                        }
                        all
                    }
                    _ => false,
                };
                if equal {
                    sub.data.s_meet_constraint(&eq, self.budget)?;
                }
            }
        }
        Ok(())
    }

    /// A translator in `s` that knows no reads of the instruction (congruence is decided
    /// before the pair runs).
    fn tr_plain<'s>(&'s self, s: &'s Sub) -> Tr<'s> {
        self.tr_loads(s, &[], &[])
    }
}

/// Whether a call with these arguments may read memory through them: a pointer argument
/// other than a string literal (whose bytes are its text, compared as such).
pub fn reads_memory(args: &[Expr]) -> bool {
    args.iter()
        .any(|a| a.ty.is_pointer() && !matches!(a.kind, ExprKind::Str(_)))
}

/// Whether two places reached through pointers have provably equal addresses in `s`: their
/// byte addresses are linear and entailed equal, or they are the same access path over equal
/// pointer values.
fn same_address(c: &Correlated, tr: &Tr<'_>, a: &Place, b: &Place, s: &Sub) -> Result<bool> {
    if let (Some(x), Some(y)) = (
        tr.address(a).and_then(|e| e.as_linear()),
        tr.address(b).and_then(|e| e.as_linear()),
    ) {
        if let Some(diff) = x.checked_sub(&y) {
            if s.data
                .s_entails(&LinConstraint::new(diff, ConstraintKind::Eq), tr.budget)?
            {
                return Ok(true);
            }
        }
    }
    let structs = tr.dims.structs();
    Ok(match (a, b) {
        (Place::Deref(x, _), Place::Deref(y, _)) => same_pure(c, tr, x, y, s)?,
        (Place::Field(x, sx, kx, _), Place::Field(y, sy, ky, _)) => {
            let (ox, oy) = (field_at(structs, sx, kx), field_at(structs, sy, ky));
            ox.is_some() && ox == oy && same_address(c, tr, x, y, s)?
        }
        (Place::Index(x, i, ex), Place::Index(y, j, ey)) => {
            layout_size(structs, ex) == layout_size(structs, ey)
                && same_pure(c, tr, i, j, s)?
                && same_address(c, tr, x, y, s)?
        }
        _ => false,
    })
}

/// Whether two aggregate variables hold equal values: every cell of each has a partner of the
/// same path and type, entailed equal (a struct passed by value to a congruent helper).
fn same_aggregate(tr: &Tr<'_>, a: &Place, b: &Place, s: &Sub) -> Result<bool> {
    let (Place::Var(u), Place::Var(w)) = (a, b) else {
        return Ok(false);
    };
    let (Some(ca), Some(cb)) = (tr.dims.cells(*u), tr.dims.cells(*w)) else {
        return Ok(false);
    };
    let (pairs, complete) = super::locs::pair_cells(ca, cb);
    if !complete || pairs.is_empty() {
        return Ok(false);
    }
    for (x, y, _) in pairs {
        let e = LinExpr::from_terms(&[(1, x), (-1, y)], 0).expect("small");
        if !s
            .data
            .s_entails(&LinConstraint::new(e, ConstraintKind::Eq), tr.budget)?
        {
            return Ok(false);
        }
    }
    Ok(true)
}

/// Whether `a` and `b` are elements at equal indices of two arrays (local variables) whose
/// cells are all pairwise equal: `cof[j]` against `cof'[j']` after equal initializers.
fn same_element(c: &Correlated, tr: &Tr<'_>, a: &Place, b: &Place, s: &Sub) -> Result<bool> {
    let (Place::Index(x, i, ex), Place::Index(y, j, ey)) = (a, b) else {
        return Ok(false);
    };
    let (Place::Var(_), Place::Var(_)) = (&**x, &**y) else {
        return Ok(false);
    };
    let structs = tr.dims.structs();
    Ok(layout_size(structs, ex) == layout_size(structs, ey)
        && same_pure(c, tr, i, j, s)?
        && same_aggregate(tr, x, y, s)?)
}

/// Whether `a` and `b` are the same bytes of a global both versions hold alike and no code
/// changes ([`Correlated::immutable_globals`]): element and field paths at equal offsets.
fn same_immutable_bytes(
    c: &Correlated,
    tr: &Tr<'_>,
    a: &Place,
    b: &Place,
    s: &Sub,
) -> Result<bool> {
    let structs = tr.dims.structs();
    Ok(match (a, b) {
        (Place::Var(u), Place::Var(w)) => {
            let name = |v: &crate::ir::VarId| match tr.func.var(*v).kind {
                VarKind::Global(g) => c
                    .program
                    .program
                    .globals
                    .get(g.index())
                    .map(|g| c.source_name(&g.name)),
                _ => None,
            };
            matches!((name(u), name(w)), (Some(p), Some(q)) if p == q && c.immutable_globals.contains(p))
        }
        (Place::Index(x, i, ex), Place::Index(y, j, ey)) => {
            layout_size(structs, ex) == layout_size(structs, ey)
                && same_pure(c, tr, i, j, s)?
                && same_immutable_bytes(c, tr, x, y, s)?
        }
        (Place::Field(x, sx, kx, _), Place::Field(y, sy, ky, _)) => {
            let (ox, oy) = (field_at(structs, sx, kx), field_at(structs, sy, ky));
            ox.is_some() && ox == oy && same_immutable_bytes(c, tr, x, y, s)?
        }
        _ => false,
    })
}

/// Whether field `k` of struct `sid` is a union member, and its byte offset.
fn field_at(
    structs: &[crate::ir::StructDef],
    sid: &crate::ir::StructId,
    k: &u32,
) -> Option<(bool, u64)> {
    structs
        .get(sid.index())
        .and_then(|d| d.fields.get(*k as usize).map(|f| (d.is_union, f.offset)))
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
        loads: &[],
        convs: &[],
        subst: std::cell::Cell::new(super::translate::SUBST_FUEL),
    };
    same_pure(c, &tr, x, y, s)
}

/// Whether `x` and `y` are both linear in `s` and entailed equal there.
fn linear_equal(tr: &Tr<'_>, x: &Expr, y: &Expr, s: &Sub) -> Result<bool> {
    // Equal numbers of different floating types (or a floating and an integer one) are
    // different values to what operates on them.
    if (x.ty.is_float() || y.ty.is_float()) && x.ty != y.ty {
        return Ok(false);
    }
    // A floating value is linear only as a tracked copy or a small constant (see `Tr::expr`).
    let lin = |e: &Expr| {
        if e.ty.is_float() {
            tr.expr(e).as_linear()
        } else {
            tr.linear(e)
        }
    };
    if let (Some(a), Some(b)) = (lin(x), lin(y)) {
        if let Some(diff) = a.checked_sub(&b) {
            return s
                .data
                .s_entails(&LinConstraint::new(diff, ConstraintKind::Eq), tr.budget);
        }
    }
    Ok(false)
}

/// The same expression tree over variables proven pairwise equal (no memory reads), where
/// subexpressions that differ in form may be linear and entailed equal (`two / x` against
/// `2.0 / x` where `two = 2.0`).
fn same_pure(c: &Correlated, tr: &Tr<'_>, x: &Expr, y: &Expr, s: &Sub) -> Result<bool> {
    Ok(same_tree(c, tr, x, y, s)? || linear_equal(tr, x, y, s)? || substituted(c, tr, x, y, s)?)
}

/// [`same_pure`] after replacing a variable by the pure expression it is known to hold
/// ([`Sub::defs`]): `t` against `j * x` where `t = j * x` ran and neither `j` nor `x` was
/// written since; two results of the same pure function on equal arguments.
fn substituted(c: &Correlated, tr: &Tr<'_>, x: &Expr, y: &Expr, s: &Sub) -> Result<bool> {
    let def = |e: &Expr| match e.kind {
        ExprKind::Var(v) => s.defs.get(v),
        _ => None,
    };
    let (dx, dy) = (def(x), def(y));
    if (dx.is_none() && dy.is_none()) || tr.subst.get() == 0 {
        return Ok(false);
    }
    tr.subst.set(tr.subst.get() - 1);
    Ok(match (dx, dy) {
        (Some(Def::Call(f, a)), Some(Def::Call(g, b))) => {
            x.ty == y.ty
                && f == g
                && a.len() == b.len()
                && a.iter().zip(b).try_fold(true, |ok, (p, q)| {
                    Ok::<_, crate::diag::Error>(ok && same_pure(c, tr, p, q, s)?)
                })?
        }
        // An assignment converts to the variable's type; a definition of another type is
        // not the variable's value.
        (Some(Def::Expr(e)), _) if e.ty == x.ty => same_pure(c, tr, e, y, s)?,
        (_, Some(Def::Expr(e))) if e.ty == y.ty => same_pure(c, tr, x, e, s)?,
        _ => false,
    })
}

/// [`same_pure`] at the root of `x` and `y`: the same operator over operands equal by
/// [`same_pure`].
fn same_tree(c: &Correlated, tr: &Tr<'_>, x: &Expr, y: &Expr, s: &Sub) -> Result<bool> {
    let dims = tr.dims;
    // Structs of the two versions are different ids of the merged program: their values are
    // compared cell by cell (path and type), see `same_aggregate`.
    let structs = matches!(x.ty, CType::Struct(_)) && matches!(y.ty, CType::Struct(_));
    if x.ty != y.ty && !(x.ty.is_scalar() && y.ty.is_scalar()) && !structs {
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
            // Struct values compare cell by cell whatever their names: an argument copied into
            // an inlined helper's parameter is the caller's value under another name.
            if structs {
                return same_aggregate(tr, &Place::Var(*a), &Place::Var(*b), s);
            }
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
        (ExprKind::Load(a), ExprKind::Load(b)) => {
            (match (tr.dim_of_place(a), tr.dim_of_place(b)) {
                (Some(da), Some(db)) => {
                    let e = LinExpr::from_terms(&[(1, da), (-1, db)], 0).expect("small");
                    s.data
                        .s_entails(&LinConstraint::new(e, ConstraintKind::Eq), tr.budget)?
                }
                // Reads of equal addresses in equal memories.
                _ => {
                    same_repr(&x.ty, &y.ty)
                        && x.ty.is_scalar()
                        && reads_agree(c, s)
                        && a.root_var().is_none()
                        && b.root_var().is_none()
                        && same_address(c, tr, a, b, s)?
                }
            }) || (same_repr(&x.ty, &y.ty)
                && x.ty.is_scalar()
                && same_immutable_bytes(c, tr, a, b, s)?)
                || same_aggregate(tr, a, b, s)?
                || (same_repr(&x.ty, &y.ty) && x.ty.is_scalar() && same_element(c, tr, a, b, s)?)
        }
        // Arithmetic computes in its type: equal operands give equal results only in the same
        // type (`x - 16` wraps as `unsigned long`, not as `int`). A comparison or `!` depends
        // only on its operands' values.
        (ExprKind::Unary(o1, a), ExprKind::Unary(o2, b)) => {
            o1 == o2 && (*o1 == UnOp::LogNot || x.ty == y.ty) && same_pure(c, tr, a, b, s)?
        }
        (ExprKind::Cast(a), ExprKind::Cast(b)) => x.ty == y.ty && same_pure(c, tr, a, b, s)?,
        (ExprKind::Binary(o1, _, _), ExprKind::Binary(..))
            if !o1.is_comparison() && x.ty != y.ty =>
        {
            false
        }
        (ExprKind::Binary(o1, a1, b1), ExprKind::Binary(o2, a2, b2)) => {
            (o1 == o2 && same_pure(c, tr, a1, a2, s)? && same_pure(c, tr, b1, b2, s)?)
                // Commuted or mirrored operands: `a & b` against `b & a`, `x < y` against `y > x`.
                || (o1.swapped() == Some(*o2)
                    && same_pure(c, tr, a1, b2, s)?
                    && same_pure(c, tr, b1, a2, s)?)
                // Both operands negated: `-a > -b` against `a < b` (or `b > a`).
                || (negatable(o1, a1)
                    && ((o1.swapped() == Some(*o2)
                        && negated(c, tr, a1, a2, s)?
                        && negated(c, tr, b1, b2, s)?)
                        || (o1 == o2
                            && negated(c, tr, a1, b2, s)?
                            && negated(c, tr, b1, a2, s)?)))
        }
        (ExprKind::Logic(o1, a1, b1), ExprKind::Logic(o2, a2, b2)) => {
            o1 == o2 && same_pure(c, tr, a1, a2, s)? && same_pure(c, tr, b1, b2, s)?
        }
        _ => false,
    })
}

/// Whether negating both operands of comparison `op` on values like `a` mirrors it exactly:
/// IEEE negation is exact (NaN stays unordered, ±0 compare equal) and signed integers are
/// mathematical (overflow is undefined, see the report's assumptions); unsigned negation wraps.
fn negatable(op: &BinOp, a: &Expr) -> bool {
    use BinOp::*;
    matches!(op, Lt | Le | Gt | Ge | Eq | Ne)
        && (a.ty.is_float() || matches!(a.ty, CType::Int { signed: true, .. }))
}

/// Whether `x` is provably `-y`: one of them a negation of an expression the other equals, or
/// two constants of opposite value.
fn negated(c: &Correlated, tr: &Tr<'_>, x: &Expr, y: &Expr, s: &Sub) -> Result<bool> {
    Ok(match (&x.kind, &y.kind) {
        (ExprKind::Unary(UnOp::Neg, a), _) if a.ty == y.ty => same_pure(c, tr, a, y, s)?,
        (_, ExprKind::Unary(UnOp::Neg, b)) if b.ty == x.ty => same_pure(c, tr, x, b, s)?,
        (ExprKind::Float(a), ExprKind::Float(b)) => x.ty == y.ty && a.to_bits() == (-b).to_bits(),
        (ExprKind::Int(a), ExprKind::Int(b)) => x.ty == y.ty && a.checked_neg() == Some(*b),
        _ => false,
    })
}

/// Whether values of type `t` are plain data: numbers, and arrays and structs of them (no
/// pointers, nothing a callee could read memory through).
fn plain_data(structs: &[crate::ir::StructDef], t: &CType, depth: usize) -> bool {
    match t {
        CType::Bool | CType::Int { .. } | CType::Float | CType::Double => true,
        CType::Array(e, Some(_)) => plain_data(structs, e, depth),
        CType::Struct(s) if depth < 8 => structs.get(s.index()).is_some_and(|d| {
            d.complete
                && d.fields
                    .iter()
                    .all(|f| plain_data(structs, &f.ty, depth + 1))
        }),
        _ => false,
    }
}

/// Helpers defined in both versions with the same code ([`Correlated::same_functions`]), no
/// globals but immutable ones ([`Correlated::immutable_globals`]) and only scalar parameters, whose calls go only to known pure library functions, to
/// library functions that write nothing of the program's (mathematics, output with a literal
/// format) with scalar or literal arguments, and to other such helpers: equal arguments give
/// equal results, and a call changes nothing the caller can see. Greatest fixpoint, so
/// recursion alone does not disqualify: by induction on the depth of the old call, identical
/// code over equal arguments and congruent callees computes the same result, and runs forever
/// exactly when the other does. The calls' own effects (`errno`, output) stay diff points of
/// the correlating program.
pub(super) fn congruent_helpers(c: &Correlated) -> HashSet<String> {
    let mut out: HashSet<String> = c
        .program
        .functions
        .iter()
        .filter(|f| c.function_side(&f.name) == Side::Old)
        .filter(|f| {
            c.version(&f.name, Side::New).is_some_and(|g| {
                pure_shape(c, f) && pure_shape(c, g) && c.same_functions.contains(&f.name)
            })
        })
        .map(|f| f.name.clone())
        .collect();
    loop {
        let before = out.len();
        let keep: HashSet<String> = out
            .iter()
            .filter(|n| {
                let ok = |h: &GclFunction| calls_only(c, h, &|m| out.contains(m));
                c.version(n, Side::Old).is_some_and(ok) && c.version(n, Side::New).is_some_and(ok)
            })
            .cloned()
            .collect();
        out = keep;
        if out.len() == before {
            return out;
        }
    }
}

/// The functions whose calls may be assumed to give equal results in both versions while the
/// analysed function's two versions are proved equal, by induction on the depth of recursion
/// (regression verification's mutual summaries): the analysed function and the others of its
/// recursion cycle (functions of the file calling each other, in either version), when each of
/// them, in both versions, has no globals but immutable ones, scalar parameters, and calls only
/// to the cycle, to congruent `helpers` and to what [`calls_only`] admits. While proving that
/// equal arguments give equal results, calls of the cycle on equal arguments may be assumed to:
/// every such call is a shallower run, and a call changes nothing else the caller sees.
/// Termination follows the same induction when every call of the cycle is matched by one on
/// equal arguments (Godlin and Strichman's mutual-termination rule; see `termination`). With
/// other members, the proof holds only where each of them is proved as well: `diff` checks
/// that. `None` when the function does not recurse or the conditions fail.
pub(super) fn recursion_summary(
    c: &Correlated,
    helpers: &HashSet<String>,
) -> Option<BTreeSet<String>> {
    let name = c.name.as_str();
    let callees = |m: &str| -> BTreeSet<String> {
        [Side::Old, Side::New]
            .iter()
            .filter_map(|side| c.version(m, *side))
            .flat_map(|h| h.instrs.iter())
            .filter_map(|i| match &i.kind {
                InstrKind::Call {
                    callee: Callee::Direct(x),
                    ..
                } => Some(c.source_name(x).to_string()),
                _ => None,
            })
            .filter(|x| c.version(x, Side::Old).is_some() && c.version(x, Side::New).is_some())
            .collect()
    };
    // The cycle: what the function reaches that reaches it back.
    let mut reach: BTreeSet<String> = BTreeSet::new();
    let mut todo = vec![name.to_string()];
    let mut graph: std::collections::BTreeMap<String, BTreeSet<String>> = Default::default();
    while let Some(m) = todo.pop() {
        let out = callees(&m);
        for x in &out {
            if reach.insert(x.clone()) {
                todo.push(x.clone());
            }
        }
        graph.insert(m, out);
    }
    if !reach.contains(name) {
        return None;
    }
    let reaches_back = |from: &str| {
        let mut seen: BTreeSet<&str> = BTreeSet::new();
        let mut todo = vec![from];
        while let Some(m) = todo.pop() {
            for x in graph.get(m).into_iter().flatten() {
                if x == name {
                    return true;
                }
                if seen.insert(x) {
                    todo.push(x);
                }
            }
        }
        false
    };
    let cycle: BTreeSet<String> = reach.iter().filter(|m| reaches_back(m)).cloned().collect();
    let fits = |m: &str| {
        [Side::Old, Side::New].iter().all(|side| {
            c.version(m, *side).is_some_and(|h| {
                !h.func.ret.is_pointer()
                    && pure_shape(c, h)
                    && calls_only(c, h, &|x| cycle.contains(x) || helpers.contains(x))
            })
        })
    };
    cycle.iter().all(|m| fits(m)).then_some(cycle)
}

/// Whether `h` reads no global but immutable ones ([`Correlated::immutable_globals`]) and takes
/// only scalars and plain-data structs by value (structs only if it takes no address: then no
/// padding, where equal fields may still differ, can be read).
fn pure_shape(c: &Correlated, h: &GclFunction) -> bool {
    let no_globals = h.func.vars.iter().all(|v| match v.kind {
        VarKind::Global(g) => c
            .program
            .program
            .globals
            .get(g.index())
            .is_some_and(|g| c.immutable_globals.contains(c.source_name(&g.name))),
        _ => true,
    });
    let structs = &c.program.program.structs;
    let mut takes_no_address = true;
    for i in &h.instrs {
        i.kind
            .walk_exprs(&mut |e| takes_no_address &= !matches!(e.kind, ExprKind::AddrOf(_)));
    }
    let scalar_params = h.func.params.iter().all(|p| {
        let t = &h.func.var(*p).ty;
        match t {
            CType::Struct(_) => plain_data(structs, t, 0),
            _ => !t.is_pointer() && !matches!(t, CType::Array(..)),
        }
    }) && (takes_no_address
        || h.func
            .params
            .iter()
            .all(|p| !matches!(h.func.var(*p).ty, CType::Struct(_))));
    no_globals && scalar_params
}

/// Whether every call of `h` goes to a function of the file that `ok` admits (by source name),
/// to a known pure library function, to a library function that writes nothing of the
/// program's (mathematics, output with a literal format) with scalar or literal arguments, or
/// is a [`frame_copy`].
fn calls_only(c: &Correlated, h: &GclFunction, ok: &dyn Fn(&str) -> bool) -> bool {
    h.instrs.iter().all(|i| match &i.kind {
        InstrKind::Call {
            callee: Callee::Direct(m),
            args,
            ..
        } => {
            // A function of the file is never the library function it is named after: only
            // one `ok` admits will do.
            let defined = c.program.functions.iter().any(|f| f.name == *m);
            let m = c.source_name(m);
            ok(m)
                || (!defined && PURE_FUNCTIONS.contains(&m))
                || (!defined && frame_copy(c, h, m, args))
                || (!defined
                    && !reads_memory(args)
                    && (NO_MEMORY_WRITES.contains(&m)
                        || writes_nothing(
                            &Callee::Direct(m.to_string()),
                            args,
                            &c.program.program.strings,
                        )))
        }
        InstrKind::Call { .. } => false,
        _ => true,
    })
}

/// A `memcpy`/`memmove` of one whole scalar variable of the helper's frame into another of the
/// same size (`memcpy(&bits, &x, sizeof bits)`, the portable way to reinterpret a value's
/// bits): it writes nothing the caller can see, and what it writes is determined by the
/// helper's own values, so it keeps a helper deterministic.
fn frame_copy(c: &Correlated, h: &GclFunction, m: &str, args: &[Expr]) -> bool {
    if !matches!(m, "memcpy" | "memmove") || args.len() != 3 {
        return false;
    }
    let frame_scalar = |e: &Expr| -> Option<u64> {
        let mut e = e;
        while let ExprKind::Cast(x) = &e.kind {
            e = x;
        }
        match &e.kind {
            ExprKind::AddrOf(p) => {
                let Place::Var(v) = **p else {
                    return None;
                };
                let var = h.func.var(v);
                (!matches!(var.kind, VarKind::Global(_))
                    && !var.volatile
                    && var.ty.is_scalar()
                    && !var.ty.is_pointer())
                .then(|| layout_size(&c.program.program.structs, &var.ty))
            }
            _ => None,
        }
    };
    let (Some(dst), Some(src)) = (frame_scalar(&args[0]), frame_scalar(&args[1])) else {
        return false;
    };
    matches!(args[2].kind, ExprKind::Int(n) if n == dst as i128 && n == src as i128)
}
