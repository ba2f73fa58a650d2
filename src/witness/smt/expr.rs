//! C expressions as z3 terms, for the path encoding of the symbolic witness search.
//!
//! Takes a typed IR expression in the encoder's current state; gives its value as a bit-vector
//! (or its truth value as a Boolean) and records the conditions under which evaluating it is
//! defined. Values follow the C types: a `w`-bit integer is a `w`-bit vector, comparisons,
//! division, remainder and right shifts are signed or unsigned by the operand type
//! (`bvsdiv`/`bvsrem` truncate like C), conversions extend by the source's signedness or
//! truncate, `_Bool` is one bit. Signed overflow, division by zero, out-of-range shifts and
//! negative left shifts are excluded (the interpreter would reject such a witness). `float` and
//! `double` are their IEEE encodings, computed in z3's floating-point theory ([`super::float`]).
//! What is not modelled — memory reads, addresses, library mathematics — is a fresh
//! unconstrained value of the right width.

use z3::ast::{Ast, Bool, BV};

use super::encode::{arith, is_int, resize, signed, width, Enc};
use crate::ir::{BinOp, CType, Expr, ExprKind, LogicOp, UnOp};

impl<'ctx> Enc<'ctx, '_> {
    /// The value of a scalar expression, `None` for aggregates and `void`.
    pub(super) fn expr(&mut self, e: &Expr) -> Option<BV<'ctx>> {
        let w = width(&e.ty)?;
        Some(match &e.kind {
            ExprKind::Int(v) => match e.ty {
                CType::Bool => self.konst(i128::from(*v != 0), 1),
                CType::Float | CType::Double => self
                    .float_const(*v as f64, &e.ty)
                    .unwrap_or_else(|| self.fresh(w)),
                _ => self.konst(*v, w),
            },
            ExprKind::Float(x) => self.float_const(*x, &e.ty).unwrap_or_else(|| self.fresh(w)),
            ExprKind::Var(v) => match &self.vars[v.index()] {
                Some(b) if b.get_size() == w => b.clone(),
                _ => self.fresh(w),
            },
            ExprKind::Guard(g) => self.bool_bv(&self.guards[g.index()].clone(), w),
            ExprKind::AddrOf(_)
            | ExprKind::Str(_)
            | ExprKind::GlobalAddr(_)
            | ExprKind::FuncAddr(_) => {
                let b = self.fresh(w);
                self.facts.push(self.nonzero(&b));
                b
            }
            ExprKind::Load(_) | ExprKind::Opaque(_) => self.fresh(w),
            ExprKind::Cast(x) => self.cast(x, &e.ty, w),
            ExprKind::Unary(op, x) => self.unary(*op, x, &e.ty, w),
            ExprKind::Logic(..) => {
                let t = self.truth(e);
                self.bool_bv(&t, w)
            }
            ExprKind::Binary(op, a, b) => self.binary(*op, a, b, &e.ty, w),
        })
    }

    /// An operand converted to `(w, _)` from its own type.
    fn operand(&mut self, e: &Expr, w: u32) -> BV<'ctx> {
        match self.expr(e) {
            Some(b) => resize(&b, signed(&e.ty), w),
            None => self.fresh(w),
        }
    }

    /// C truth value of an expression.
    pub(super) fn truth(&mut self, e: &Expr) -> Bool<'ctx> {
        match &e.kind {
            ExprKind::Logic(op, a, b) => {
                let ta = self.truth(a);
                let when = match op {
                    LogicOp::And => ta.clone(),
                    LogicOp::Or => ta.not(),
                };
                self.under.push(when);
                let tb = self.truth(b);
                self.under.pop();
                match op {
                    LogicOp::And => Bool::and(self.ctx, &[&ta, &tb]),
                    LogicOp::Or => Bool::or(self.ctx, &[&ta, &tb]),
                }
            }
            ExprKind::Unary(UnOp::LogNot, x) => self.truth(x).not(),
            ExprKind::Guard(g) => self.guards[g.index()].clone(),
            ExprKind::Int(v) if !e.ty.is_float() => Bool::from_bool(self.ctx, *v != 0),
            ExprKind::Binary(op, a, b) if is_comparison(*op) => self.compare(*op, a, b),
            // Widening or to `_Bool` keeps zero-ness.
            ExprKind::Cast(x)
                if is_int(&x.ty)
                    && (e.ty == CType::Bool || (is_int(&e.ty) && width(&e.ty) >= width(&x.ty))) =>
            {
                self.truth(x)
            }
            _ if e.ty.is_float() => self
                .float_truth(e)
                .unwrap_or_else(|| Bool::fresh_const(self.ctx, "f")),
            _ => match self.expr(e) {
                Some(b) => self.nonzero(&b),
                None => Bool::fresh_const(self.ctx, "t"),
            },
        }
    }

    fn compare(&mut self, op: BinOp, a: &Expr, b: &Expr) -> Bool<'ctx> {
        if a.ty.is_float() || b.ty.is_float() {
            return self
                .float_compare(op, a, b)
                .unwrap_or_else(|| Bool::fresh_const(self.ctx, "f"));
        }
        if !is_int(&a.ty) {
            self.expr(a);
            self.expr(b);
            return Bool::fresh_const(self.ctx, "f");
        }
        let (w, s) = arith(&a.ty);
        let w = if a.ty == CType::Bool { 1 } else { w };
        let x = self.operand(a, w);
        let y = self.operand(b, w);
        match (op, s) {
            (BinOp::Eq, _) => x._eq(&y),
            (BinOp::Ne, _) => x._eq(&y).not(),
            (BinOp::Lt, true) => x.bvslt(&y),
            (BinOp::Lt, false) => x.bvult(&y),
            (BinOp::Le, true) => x.bvsle(&y),
            (BinOp::Le, false) => x.bvule(&y),
            (BinOp::Gt, true) => x.bvsgt(&y),
            (BinOp::Gt, false) => x.bvugt(&y),
            (BinOp::Ge, true) => x.bvsge(&y),
            _ => x.bvuge(&y),
        }
    }

    fn cast(&mut self, x: &Expr, to: &CType, w: u32) -> BV<'ctx> {
        if *to == CType::Bool {
            let t = self.truth(x);
            return self.bool_bv(&t, 1);
        }
        if to.is_float() || x.ty.is_float() {
            return self.float_cast(x, to).unwrap_or_else(|| self.fresh(w));
        }
        if !is_int(to) || !is_int(&x.ty) {
            self.expr(x);
            return self.fresh(w);
        }
        self.operand(x, w)
    }

    fn unary(&mut self, op: UnOp, x: &Expr, ty: &CType, w: u32) -> BV<'ctx> {
        if op == UnOp::LogNot {
            let t = self.truth(x).not();
            return self.bool_bv(&t, w);
        }
        if ty.is_float() && op == UnOp::Neg {
            return self.float_neg(x, ty).unwrap_or_else(|| self.fresh(w));
        }
        if ty.is_float() || !is_int(ty) {
            self.expr(x);
            return self.fresh(w);
        }
        let (aw, s) = arith(ty);
        let v = self.operand(x, aw);
        let r = match op {
            UnOp::Neg => {
                if s {
                    self.defined(crate::cbv::neg_defined(self.ctx, &v));
                }
                v.bvneg()
            }
            _ => v.bvnot(),
        };
        self.finish(r, ty, w)
    }

    /// An arithmetic result in the type of the expression (`_Bool`: non-zero).
    fn finish(&self, r: BV<'ctx>, ty: &CType, w: u32) -> BV<'ctx> {
        if *ty == CType::Bool {
            self.bool_bv(&self.nonzero(&r), 1)
        } else {
            resize(&r, false, w)
        }
    }

    fn binary(&mut self, op: BinOp, a: &Expr, b: &Expr, ty: &CType, w: u32) -> BV<'ctx> {
        if is_comparison(op) {
            let t = self.compare(op, a, b);
            return self.bool_bv(&t, w);
        }
        if a.ty.is_pointer() || b.ty.is_pointer() {
            return self.pointer_op(op, a, b, w);
        }
        if ty.is_float() {
            return self
                .float_binary(op, a, b, ty)
                .unwrap_or_else(|| self.fresh(w));
        }
        if a.ty.is_float() || b.ty.is_float() || !is_int(ty) {
            self.expr(a);
            self.expr(b);
            return self.fresh(w);
        }
        let (aw, s) = arith(ty);
        let x = self.operand(a, aw);
        let y = self.operand(b, aw);
        let Some((r, defined)) = crate::cbv::int_op(self.ctx, op, &x, &y, s, false) else {
            return self.fresh(w);
        };
        for d in defined {
            self.defined(d);
        }
        self.finish(r, ty, w)
    }

    fn pointer_op(&mut self, op: BinOp, a: &Expr, b: &Expr, w: u32) -> BV<'ctx> {
        let prog = &self.c.program.program;
        let elem = |t: &CType| t.pointee().map_or(1, |p| prog.size_of(p)) as i128;
        match op {
            BinOp::Add | BinOp::Sub if a.ty.is_pointer() && is_int(&b.ty) && !b.ty.is_pointer() => {
                let sz = self.konst(elem(&a.ty), 64);
                let p = self.operand(a, 64);
                let n = self.operand(b, 64).bvmul(&sz);
                let r = if op == BinOp::Add {
                    p.bvadd(&n)
                } else {
                    p.bvsub(&n)
                };
                resize(&r, false, w)
            }
            BinOp::PtrDiff | BinOp::Sub if a.ty.is_pointer() && b.ty.is_pointer() => {
                let sz = self.konst(elem(&a.ty).max(1), 64);
                let d = self.operand(a, 64).bvsub(&self.operand(b, 64));
                resize(&d.bvsdiv(&sz), true, w)
            }
            _ => {
                self.expr(a);
                self.expr(b);
                self.fresh(w)
            }
        }
    }
}

fn is_comparison(op: BinOp) -> bool {
    matches!(
        op,
        BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge
    )
}
