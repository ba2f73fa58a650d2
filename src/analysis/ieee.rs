//! What a floating equality test tells about its operand's dimension under IEEE semantics.
//!
//! Takes a guard's condition, the translator of the sub-state it is evaluated in and the
//! sub-state's symbolic definitions; gives the branch on which a floating variable is known to
//! hold exactly the constant it was compared with, as `(branch, dimension, constant)`, for the
//! `SetGuard` transfer to add. Under IEEE a floating dimension is an encoding of the value in
//! which small integral constants stand for themselves (see `translate`), so `x == 5.0` taking
//! the true branch makes `x` exactly `5.0`: no other value, NaN included, compares equal to it.
//! Zero is the exception: `x == 0.0` holds for `-0.0` too, so it pins the dimension only when
//! `x` cannot be `-0.0` — its definition is `fabs(…)` (the library's), `y * y`, or an integer
//! converted. Other comparisons pin nothing: no order holds between encodings.

use dizy_domains::{Dim, Expr as DExpr};

use super::defs::{Def, Defs};
use super::translate::Tr;
use crate::ir::{BinOp, Expr, ExprKind};

/// `(branch, d, c)`: on the `branch` outcome of `cond`, dimension `d` holds the encoding `c`.
/// `defined`: whether the file defines a function of this name (then it is not the library's).
pub(super) fn pinned_by(
    cond: &Expr,
    tr: &Tr,
    defs: &Defs,
    defined: &dyn Fn(&str) -> bool,
) -> Option<(bool, Dim, i128)> {
    let ExprKind::Binary(op @ (BinOp::Eq | BinOp::Ne), a, b) = &cond.kind else {
        return None;
    };
    if !a.ty.is_float() || !b.ty.is_float() {
        return None;
    }
    let branch = *op == BinOp::Eq;
    let (var, c) = match (tr.expr(a), tr.expr(b)) {
        (DExpr::Var(d), DExpr::Const(c)) => ((a, d), c),
        (DExpr::Const(c), DExpr::Var(d)) => ((b, d), c),
        _ => return None,
    };
    if c == 0 && !sign_clear(var.0, defs, defined, 8) {
        return None;
    }
    Some((branch, var.1, c))
}

/// Whether `e` provably is not `-0.0` (NaN never compares equal anyway), following copies
/// `fuel` deep.
fn sign_clear(e: &Expr, defs: &Defs, defined: &dyn Fn(&str) -> bool, fuel: u32) -> bool {
    let ExprKind::Var(v) = &e.kind else {
        return false;
    };
    match defs.get(*v) {
        Some(Def::Call(name, _)) => {
            matches!(name.as_str(), "fabs" | "fabsf" | "fabsl") && !defined(name)
        }
        Some(Def::Expr(x)) => match &x.kind {
            ExprKind::Binary(BinOp::Mul, l, r) => l == r && x.ty.is_float(),
            ExprKind::Cast(i) => i.ty.is_integer(),
            ExprKind::Var(_) if x.ty == e.ty && fuel > 0 => sign_clear(x, defs, defined, fuel - 1),
            _ => false,
        },
        None => false,
    }
}
