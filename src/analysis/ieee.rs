//! What a floating equality test tells about its operands' dimensions under IEEE semantics.
//!
//! Takes a guard's condition, the translator of the sub-state it is evaluated in and the
//! sub-state's symbolic definitions; gives the branch on which floating variables are known to
//! hold exactly the constants they were compared with, as alternatives (one sub-state each) of
//! `(dimension, encoding)` conjunctions, for the `SetGuard` transfer to add. Under IEEE a
//! floating dimension is an encoding of the value in which small integral constants stand for
//! themselves (see `translate`), so `x == 5.0` taking the true branch makes `x` exactly `5.0`:
//! no other value, NaN included, compares equal to it. Zero is the exception: `x == 0.0` holds
//! for `-0.0` too, encoded as [`NEG_ZERO`] (far outside every integer an exact conversion can
//! give), so it splits into `x = +0.0` and `x = -0.0` — one alternative only when `x` cannot be
//! `-0.0` (its definition is the library's `fabs`, `y * y`, or an integer converted). `delta`
//! compares `+0.0` and `-0.0` as the same value, as the report's semantics says. Conjunctions
//! (`dx == 0 && dy == 0`) combine their conjuncts' alternatives. Other comparisons pin
//! nothing: no order holds between encodings.

use dizy_domains::{Dim, Expr as DExpr};

use super::defs::{Def, Defs};
use super::translate::Tr;
use crate::ir::{BinOp, Expr, ExprKind, LogicOp};

/// The encoding of `-0.0` in a floating dimension.
pub const NEG_ZERO: i128 = -(1 << 40);

/// Most alternatives one condition may split a sub-state into.
const MAX_ALTERNATIVES: usize = 4;

/// Alternatives of pinned dimensions: each a conjunction of `dimension = encoding`.
pub(super) type Pins = Vec<Vec<(Dim, i128)>>;

/// `(branch, alternatives)`: on the `branch` outcome of `cond`, one of the alternatives holds.
/// `defined`: whether the file defines a function of this name (then it is not the library's).
pub(super) fn pinned_by(
    cond: &Expr,
    tr: &Tr,
    defs: &Defs,
    defined: &dyn Fn(&str) -> bool,
) -> Option<(bool, Pins)> {
    match &cond.kind {
        ExprKind::Binary(BinOp::Ne, a, b) => {
            // `a != b` false is `a == b` true.
            let eq = Expr::new(
                ExprKind::Binary(BinOp::Eq, a.clone(), b.clone()),
                cond.ty.clone(),
            );
            when_true(&eq, tr, defs, defined).map(|p| (false, p))
        }
        _ => when_true(cond, tr, defs, defined).map(|p| (true, p)),
    }
}

/// The alternatives `cond` being true implies, if any.
fn when_true(cond: &Expr, tr: &Tr, defs: &Defs, defined: &dyn Fn(&str) -> bool) -> Option<Pins> {
    match &cond.kind {
        ExprKind::Logic(LogicOp::And, a, b) => {
            let (pa, pb) = (
                when_true(a, tr, defs, defined),
                when_true(b, tr, defs, defined),
            );
            match (pa, pb) {
                (Some(x), Some(y)) => {
                    let both: Pins = x
                        .iter()
                        .flat_map(|l| y.iter().map(move |r| [l.clone(), r.clone()].concat()))
                        .collect();
                    (both.len() <= MAX_ALTERNATIVES).then_some(both)
                }
                (Some(x), None) | (None, Some(x)) => Some(x),
                (None, None) => None,
            }
        }
        ExprKind::Binary(BinOp::Eq, a, b) if a.ty.is_float() && b.ty.is_float() => {
            let (var, c) = match (tr.expr(a), tr.expr(b)) {
                (DExpr::Var(d), DExpr::Const(c)) => ((a, d), c),
                (DExpr::Const(c), DExpr::Var(d)) => ((b, d), c),
                _ => return None,
            };
            Some(if c == 0 && !sign_clear(var.0, defs, defined, 8) {
                vec![vec![(var.1, 0)], vec![(var.1, NEG_ZERO)]]
            } else {
                vec![vec![(var.1, c)]]
            })
        }
        _ => None,
    }
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
