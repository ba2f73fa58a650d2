//! Branch distances for the witness search: how far a condition is from holding, and from
//! failing, on the values a run gave it (Korel's and Tracey's measure).
//!
//! Takes a guard's condition and the interpreter that just evaluated it; gives the pair
//! `(to_true, to_false)`, each 0 when the condition already has that outcome and otherwise a
//! positive number that shrinks as the operands approach the boundary (`|a - b|` for a
//! comparison, plus one step for integers). The interpreter records them per guard
//! ([`super::Interp::with_coverage`]) and, for an instruction whose guard failed, the sum over
//! the guard's literals of the normalized distances (`d / (d + 1)`); the search
//! (`witness::distance`) moves the inputs to bring an instruction never reached down to 0.

use super::{Interp, Value};
use crate::ir::{BinOp, Expr, ExprKind, UnOp};

/// A distance normalized to [0, 1), so that no literal's scale drowns the others.
pub(super) fn normalized(d: f64) -> f64 {
    if d.is_nan() {
        1.0
    } else {
        d / (d + 1.0)
    }
}

fn num(v: &Value) -> Option<(f64, bool)> {
    Some(match *v {
        Value::Int(x) => (x as f64, true),
        Value::Float(x) => (f64::from(x), false),
        Value::Double(x) => (x, false),
    })
}

/// Whether `e` is a condition whose distance is measured (not just its truth value).
fn is_condition(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Binary(op, ..) => matches!(
            op,
            BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge
        ),
        ExprKind::Logic(..) | ExprKind::Unary(UnOp::LogNot, _) => true,
        _ => false,
    }
}

impl Interp<'_> {
    /// Records, with coverage, the distances of a condition stored in variable `v` (the
    /// frontend keeps `a && b` of an `if` in a temporary before the guard reads it).
    pub(super) fn note_assignment(&mut self, v: usize, e: &Expr) {
        if self.coverage.is_none() {
            return;
        }
        let d = if is_condition(e) {
            match self.eval(e) {
                Ok(x) => Some(self.condition_distance(e, super::eval::truthy(x))),
                Err(_) => None,
            }
        } else {
            None
        };
        if let Some(f) = self.frames.last_mut() {
            match d {
                Some(d) => {
                    f.vdist.insert(v, d);
                }
                None => {
                    f.vdist.remove(&v);
                }
            }
        }
    }

    /// `(to_true, to_false)` of condition `e`, whose truth value was `holds`: comparisons by
    /// the distance of their operands (evaluated again: expressions are pure, and these were
    /// just evaluated), `!`, `&&` and `||` from their operands (the right one only where C
    /// evaluated it), a variable holding a condition by what it held; anything else 0 or 1.
    pub(super) fn condition_distance(&mut self, e: &Expr, holds: bool) -> (f64, f64) {
        let flat = if holds { (0.0, 1.0) } else { (1.0, 0.0) };
        match &e.kind {
            ExprKind::Var(v) => self
                .frames
                .last()
                .and_then(|f| f.vdist.get(&v.index()).copied())
                .unwrap_or(flat),
            ExprKind::Unary(UnOp::LogNot, x) => {
                let (t, f) = self.condition_distance(x, !holds);
                (f, t)
            }
            ExprKind::Cast(x) if is_condition(x) || matches!(x.kind, ExprKind::Var(_)) => {
                self.condition_distance(x, holds)
            }
            ExprKind::Logic(op, a, b) => {
                let Ok(va) = self.eval(a).map(super::eval::truthy) else {
                    return flat;
                };
                let (ta, fa) = self.condition_distance(a, va);
                // the right operand only where C evaluated it
                let right = |it: &mut Self| match it.eval(b).map(super::eval::truthy) {
                    Ok(vb) => it.condition_distance(b, vb),
                    Err(_) => (1.0, 1.0),
                };
                match (op, va) {
                    (crate::ir::LogicOp::And, false) => (ta + 1.0, 0.0),
                    (crate::ir::LogicOp::And, true) => {
                        let (tb, fb) = right(self);
                        (ta + tb, fa.min(fb))
                    }
                    (crate::ir::LogicOp::Or, true) => (0.0, fa + 1.0),
                    (crate::ir::LogicOp::Or, false) => {
                        let (tb, fb) = right(self);
                        (ta.min(tb), fa + fb)
                    }
                }
            }
            // a condition compared with zero: `c != 0` is `c`, `c == 0` its negation
            ExprKind::Binary(op @ (BinOp::Ne | BinOp::Eq), x, z)
                if matches!(z.kind, ExprKind::Int(0))
                    && (is_condition(x) || matches!(x.kind, ExprKind::Var(_))) =>
            {
                let inner = if *op == BinOp::Ne { holds } else { !holds };
                let (t, f) = self.condition_distance(x, inner);
                if *op == BinOp::Ne {
                    (t, f)
                } else {
                    (f, t)
                }
            }
            ExprKind::Binary(op, a, b) if is_condition(e) && !a.ty.is_pointer() => {
                let va = self.eval(a).ok();
                let vb = self.eval(b).ok();
                match (va.as_ref().and_then(num), vb.as_ref().and_then(num)) {
                    (Some((x, i1)), Some((y, i2))) => compare(*op, x, y, i1 && i2),
                    _ => flat,
                }
            }
            _ => flat,
        }
    }
}

/// `(to_true, to_false)` of `x op y`; `int`: both integers, so a strict bound is one step away.
fn compare(op: BinOp, x: f64, y: f64, int: bool) -> (f64, f64) {
    let step = if int { 1.0 } else { f64::MIN_POSITIVE };
    let d = (x - y).abs();
    // a NaN operand: no comparison but `!=` holds, and nothing brings it closer
    if d.is_nan() {
        return if op == BinOp::Ne {
            (0.0, 1.0)
        } else {
            (1.0, 0.0)
        };
    }
    let lt = |a: f64, b: f64| if a < b { 0.0 } else { a - b + step };
    let le = |a: f64, b: f64| if a <= b { 0.0 } else { a - b };
    match op {
        BinOp::Eq => (d, if d == 0.0 { step } else { 0.0 }),
        BinOp::Ne => (if d == 0.0 { step } else { 0.0 }, d),
        BinOp::Lt => (lt(x, y), le(y, x)),
        BinOp::Le => (le(x, y), lt(y, x)),
        BinOp::Gt => (lt(y, x), le(x, y)),
        _ => (le(y, x), lt(x, y)),
    }
}

#[cfg(test)]
mod tests {
    use super::compare;
    use crate::ir::BinOp;

    #[test]
    fn distances_are_zero_exactly_on_the_outcome() {
        assert_eq!(compare(BinOp::Lt, 3.0, 5.0, true), (0.0, 2.0));
        assert_eq!(compare(BinOp::Lt, 5.0, 5.0, true), (1.0, 0.0));
        assert_eq!(compare(BinOp::Ge, 5.0, 5.0, true), (0.0, 1.0));
        assert_eq!(compare(BinOp::Eq, 7.0, 4.0, true), (3.0, 0.0));
        assert_eq!(compare(BinOp::Ne, 4.0, 4.0, false).1, 0.0);
        assert!(compare(BinOp::Gt, 1.0, 1.0, false).0 > 0.0);
        assert_eq!(compare(BinOp::Eq, f64::NAN, 1.0, false), (1.0, 0.0));
    }
}
