//! Arbitrary (possibly non-linear) expressions and their abstract
//! assignment.
//!
//! Takes: an [`Expr`] tree built by the client from a C expression.
//! Gives: [`assign_expr`], the transformer `x := e` for any backend, written
//! once on top of the [`NumDomain`] primitives.
//!
//! Linear parts are kept exactly. Every non-linear node (product of two
//! variables, division, remainder, unknown value) becomes a *fresh
//! dimension* constrained by what is known about it: interval bounds
//! computed from its operands' bounds in the current value, plus relational
//! facts where cheap and exact (`q = a / k` for a constant `k` gives
//! `|a - k·q| ≤ |k| - 1`). Then `x := linear part`, and the fresh
//! dimensions are projected away. A relational backend thus keeps e.g.
//! `x - y ∈ [0, 9]` for `x := y + z*w` with `z*w ∈ [0, 9]`. When nothing is
//! known the target ends up unconstrained (havoc), never wrong.

use crate::domain::check_dim;
use crate::linear::{ConstraintKind, Dim, LinConstraint, LinExpr};
use crate::num::{Bound, Interval, Rat};
use crate::{NumDomain, Result};

/// An arithmetic expression over dimensions. Integer operations follow C
/// (`Div` truncates towards zero, `Rem` takes the sign of the dividend);
/// `RealDiv` is exact division over the rationals (for `double` code
/// analysed as reals).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Expr {
    Const(i128),
    Var(Dim),
    Add(Box<Expr>, Box<Expr>),
    Sub(Box<Expr>, Box<Expr>),
    Neg(Box<Expr>),
    Mul(Box<Expr>, Box<Expr>),
    /// C integer division (truncating); division by zero is undefined
    /// behaviour, so the result is then unconstrained.
    Div(Box<Expr>, Box<Expr>),
    /// C remainder `a % b` (`a == (a/b)*b + a%b`).
    Rem(Box<Expr>, Box<Expr>),
    /// Division over the rationals.
    RealDiv(Box<Expr>, Box<Expr>),
    /// Integer division known to be exact (the dividend is a multiple of the divisor, as for a
    /// difference of pointers into one object divided by the element size): `k·q = a`.
    ExactDiv(Box<Expr>, Box<Expr>),
    /// Any value (an unmodelled read or call result).
    Unknown,
    /// Any value within the bounds (`None` = unbounded on that side), e.g.
    /// the range of a C type.
    Range(Option<i128>, Option<i128>),
}

impl Expr {
    pub fn var(d: Dim) -> Expr {
        Expr::Var(d)
    }
    pub fn constant(c: i128) -> Expr {
        Expr::Const(c)
    }
    #[allow(clippy::should_implement_trait)]
    pub fn add(a: Expr, b: Expr) -> Expr {
        Expr::Add(Box::new(a), Box::new(b))
    }
    #[allow(clippy::should_implement_trait)]
    pub fn sub(a: Expr, b: Expr) -> Expr {
        Expr::Sub(Box::new(a), Box::new(b))
    }
    #[allow(clippy::should_implement_trait)]
    pub fn neg(a: Expr) -> Expr {
        Expr::Neg(Box::new(a))
    }
    #[allow(clippy::should_implement_trait)]
    pub fn mul(a: Expr, b: Expr) -> Expr {
        Expr::Mul(Box::new(a), Box::new(b))
    }
    #[allow(clippy::should_implement_trait)]
    pub fn div(a: Expr, b: Expr) -> Expr {
        Expr::Div(Box::new(a), Box::new(b))
    }
    #[allow(clippy::should_implement_trait)]
    pub fn rem(a: Expr, b: Expr) -> Expr {
        Expr::Rem(Box::new(a), Box::new(b))
    }
    pub fn real_div(a: Expr, b: Expr) -> Expr {
        Expr::RealDiv(Box::new(a), Box::new(b))
    }
    pub fn exact_div(a: Expr, b: Expr) -> Expr {
        Expr::ExactDiv(Box::new(a), Box::new(b))
    }

    /// The expression of a linear form.
    pub fn from_linear(e: &LinExpr) -> Expr {
        let mut out = Expr::Const(e.constant_term());
        for &(d, a) in e.terms() {
            out = Expr::add(out, Expr::mul(Expr::Const(a), Expr::Var(d)));
        }
        out
    }

    /// The highest dimension that occurs.
    pub fn max_dim(&self) -> Option<Dim> {
        match self {
            Expr::Var(d) => Some(*d),
            Expr::Const(_) | Expr::Unknown | Expr::Range(..) => None,
            Expr::Neg(a) => a.max_dim(),
            Expr::Add(a, b)
            | Expr::Sub(a, b)
            | Expr::Mul(a, b)
            | Expr::Div(a, b)
            | Expr::Rem(a, b)
            | Expr::RealDiv(a, b)
            | Expr::ExactDiv(a, b) => a.max_dim().max(b.max_dim()),
        }
    }

    /// The exact linear form, if the expression is linear (products with a
    /// constant factor, exact divisions by constants). `None` otherwise or
    /// on overflow.
    pub fn as_linear(&self) -> Option<LinExpr> {
        Some(match self {
            Expr::Const(c) => LinExpr::constant(*c),
            Expr::Var(d) => LinExpr::var(*d),
            Expr::Add(a, b) => a.as_linear()?.checked_add(&b.as_linear()?)?,
            Expr::Sub(a, b) => a.as_linear()?.checked_sub(&b.as_linear()?)?,
            Expr::Neg(a) => a.as_linear()?.checked_neg()?,
            Expr::Mul(a, b) => {
                let (la, lb) = (a.as_linear()?, b.as_linear()?);
                if la.is_constant() {
                    lb.checked_scale(la.constant_term())?
                } else if lb.is_constant() {
                    la.checked_scale(lb.constant_term())?
                } else {
                    return None;
                }
            }
            // With a constant divisor dividing every coefficient the
            // division is exact, so truncation does not matter.
            Expr::Div(a, b) | Expr::RealDiv(a, b) | Expr::ExactDiv(a, b) => {
                let lb = b.as_linear()?;
                if !lb.is_constant() {
                    return None;
                }
                a.as_linear()?.exact_div(lb.constant_term())?
            }
            Expr::Rem(a, b) => {
                let (la, lb) = (a.as_linear()?, b.as_linear()?);
                match (la.is_constant(), lb.constant_term()) {
                    (_, k) if lb.is_constant() && (k == 1 || k == -1) => LinExpr::zero(),
                    (true, k) if lb.is_constant() && k != 0 => {
                        LinExpr::constant(la.constant_term().checked_rem(k)?)
                    }
                    _ => return None,
                }
            }
            Expr::Unknown | Expr::Range(..) => return None,
        })
    }

    /// Concrete value at an integer point, with C semantics. `choose(lo,
    /// hi)` supplies the values of `Unknown`/`Range` nodes. `None` on
    /// division by zero, overflow, or an inexact `RealDiv`.
    pub fn eval(
        &self,
        point: &[i128],
        choose: &mut dyn FnMut(Option<i128>, Option<i128>) -> i128,
    ) -> Option<i128> {
        Some(match self {
            Expr::Const(c) => *c,
            Expr::Var(d) => *point.get(d.index())?,
            Expr::Add(a, b) => a.eval(point, choose)?.checked_add(b.eval(point, choose)?)?,
            Expr::Sub(a, b) => a.eval(point, choose)?.checked_sub(b.eval(point, choose)?)?,
            Expr::Neg(a) => a.eval(point, choose)?.checked_neg()?,
            Expr::Mul(a, b) => a.eval(point, choose)?.checked_mul(b.eval(point, choose)?)?,
            Expr::Div(a, b) => a.eval(point, choose)?.checked_div(b.eval(point, choose)?)?,
            Expr::Rem(a, b) => a.eval(point, choose)?.checked_rem(b.eval(point, choose)?)?,
            Expr::RealDiv(a, b) | Expr::ExactDiv(a, b) => {
                let (x, y) = (a.eval(point, choose)?, b.eval(point, choose)?);
                if y == 0 || x.checked_rem(y)? != 0 {
                    return None;
                }
                x / y
            }
            Expr::Unknown => choose(None, None),
            Expr::Range(lo, hi) => {
                let v = choose(*lo, *hi);
                if lo.is_some_and(|l| v < l) || hi.is_some_and(|h| v > h) {
                    return None;
                }
                v
            }
        })
    }
}

// ---------------------------------------------------------------------------
// Interval arithmetic on extended rationals

/// Lower/upper contribution of one corner product or quotient. An exact
/// value contributes itself; an overflowing one only its sign (a half-line),
/// which is the sound direction.
fn sign_half(s: i128) -> (Bound, Bound) {
    if s > 0 {
        (Bound::int(0), Bound::PosInf)
    } else if s < 0 {
        (Bound::NegInf, Bound::int(0))
    } else {
        (Bound::int(0), Bound::int(0))
    }
}

fn sign_of(b: Bound) -> i128 {
    match b {
        Bound::NegInf => -1,
        Bound::PosInf => 1,
        Bound::Finite(r) => r.signum(),
    }
}

fn infinite(s: i128) -> (Bound, Bound) {
    if s > 0 {
        (Bound::PosInf, Bound::PosInf)
    } else {
        (Bound::NegInf, Bound::NegInf)
    }
}

fn corner_mul(x: Bound, y: Bound) -> (Bound, Bound) {
    match (x, y) {
        (Bound::Finite(a), Bound::Finite(b)) => match a.checked_mul(b) {
            Some(r) => (Bound::Finite(r), Bound::Finite(r)),
            None => sign_half(a.signum() * b.signum()),
        },
        // 0·∞ = 0 is right for interval products: the 0 endpoint is an
        // actual value, the ∞ one only unboundedness.
        _ => match sign_of(x) * sign_of(y) {
            0 => (Bound::int(0), Bound::int(0)),
            s => infinite(s),
        },
    }
}

/// Quotient corner, `y` never 0 here.
fn corner_div(x: Bound, y: Bound) -> (Bound, Bound) {
    let s = sign_of(x) * sign_of(y);
    match (x, y) {
        (Bound::Finite(a), Bound::Finite(b)) => match a.checked_div(b) {
            Some(r) => (Bound::Finite(r), Bound::Finite(r)),
            None => sign_half(s),
        },
        (Bound::Finite(_), _) => (Bound::int(0), Bound::int(0)),
        (_, Bound::Finite(_)) => infinite(s),
        _ => sign_half(s),
    }
}

fn hull_of(corners: impl IntoIterator<Item = (Bound, Bound)>) -> Interval {
    corners.into_iter().fold(Interval::EMPTY, |acc, (l, h)| {
        acc.hull(&Interval::new(l, h))
    })
}

fn mul_itv(a: Interval, b: Interval) -> Interval {
    if a.is_empty() || b.is_empty() {
        return Interval::EMPTY;
    }
    hull_of([
        corner_mul(a.lower, b.lower),
        corner_mul(a.lower, b.upper),
        corner_mul(a.upper, b.lower),
        corner_mul(a.upper, b.upper),
    ])
}

/// Real quotient `a / b` for `b` of constant sign (not containing 0).
fn div_itv_signed(a: Interval, b: Interval) -> Interval {
    hull_of([
        corner_div(a.lower, b.lower),
        corner_div(a.lower, b.upper),
        corner_div(a.upper, b.lower),
        corner_div(a.upper, b.upper),
    ])
}

/// Splits an integer-valued divisor range into its negative and positive
/// parts (0 excluded, since dividing by 0 is undefined).
fn nonzero_parts(b: Interval) -> Vec<Interval> {
    let mut parts = Vec::new();
    if b.upper >= Bound::int(1) {
        parts.push(Interval::new(b.lower.max(Bound::int(1)), b.upper));
    }
    if b.lower <= Bound::int(-1) {
        parts.push(Interval::new(b.lower, b.upper.min(Bound::int(-1))));
    }
    parts
}

fn trunc_bound(b: Bound) -> Bound {
    match b {
        Bound::Finite(r) => Bound::int(r.trunc()),
        x => x,
    }
}

/// C division of integer ranges; truncation is monotone, so truncating the
/// real quotient's bounds is sound. `TOP` when the divisor can only be 0.
fn trunc_div_itv(a: Interval, b: Interval) -> Interval {
    if a.is_empty() || b.is_empty() {
        return Interval::EMPTY;
    }
    let parts = nonzero_parts(b);
    if parts.is_empty() {
        return Interval::TOP;
    }
    parts
        .into_iter()
        .map(|p| {
            let q = div_itv_signed(a, p);
            Interval::new(trunc_bound(q.lower), trunc_bound(q.upper))
        })
        .fold(Interval::EMPTY, |acc, q| acc.hull(&q))
}

/// Real division; `TOP` when the divisor range contains 0.
fn real_div_itv(a: Interval, b: Interval) -> Interval {
    if a.is_empty() || b.is_empty() {
        return Interval::EMPTY;
    }
    if b.contains(Rat::int(0)) {
        return Interval::TOP;
    }
    div_itv_signed(a, b)
}

/// C remainder of integer ranges: the sign of the dividend, `|r| ≤ |a|`
/// and `|r| ≤ |b| - 1`.
fn rem_itv(a: Interval, b: Interval) -> Interval {
    if a.is_empty() || b.is_empty() {
        return Interval::EMPTY;
    }
    if nonzero_parts(b).is_empty() {
        return Interval::TOP;
    }
    // m = max |b| - 1
    let mag = |x: Bound| match x {
        Bound::Finite(r) => r
            .checked_mul(Rat::int(r.signum()))
            .and_then(|v| v.checked_sub(Rat::int(1)))
            .map_or(Bound::PosInf, Bound::Finite),
        _ => Bound::PosInf,
    };
    let m = mag(b.lower).max(mag(b.upper));
    let neg_m = match m {
        Bound::Finite(r) => r.checked_neg().map_or(Bound::NegInf, Bound::Finite),
        _ => Bound::NegInf,
    };
    let zero = Bound::int(0);
    let lower = if a.lower >= zero {
        zero
    } else {
        a.lower.max(neg_m)
    };
    let upper = if a.upper <= zero {
        zero
    } else {
        a.upper.min(m)
    };
    Interval::new(lower, upper)
}

// ---------------------------------------------------------------------------
// Abstract assignment

/// `x_dim := e` on any backend (see the module doc).
pub(crate) fn assign_expr<D: NumDomain>(dom: &mut D, dim: Dim, e: &Expr) -> Result<()> {
    let base = dom.dims();
    check_dim(dim, base)?;
    if let Some(m) = e.max_dim() {
        check_dim(m, base)?;
    }
    if let Some(l) = e.as_linear() {
        return dom.assign_linear(dim, &l);
    }
    if dom.is_bottom()? {
        return Ok(());
    }
    let target_int = dom.is_integer(dim);
    let result = match linearize(dom, e, target_int) {
        Ok(Some(l)) => dom.assign_linear(dim, &l),
        Ok(None) => dom.forget(dim),
        Err(err) => Err(err),
    };
    // Drop the fresh dimensions, also after an error.
    let fresh: Vec<Dim> = (base..dom.dims()).map(Dim::new).collect();
    let cleanup = if fresh.is_empty() {
        Ok(())
    } else {
        dom.remove_dims(&fresh)
    };
    if dom.dims() != base {
        // The projection failed (e.g. out of work budget): know nothing over the original
        // dimensions, keeping which of them are real (sound, and the shape callers expect).
        let ints: Vec<bool> = (0..base).map(|d| dom.is_integer(Dim::new(d))).collect();
        let mut top = dom.top_like(base)?;
        for (d, int) in ints.into_iter().enumerate() {
            if !int {
                top.set_integer(Dim::new(d), false)?;
            }
        }
        *dom = top;
    }
    result.and(cleanup)
}

/// Appends a fresh dimension bounded by `itv`; returns it.
fn fresh<D: NumDomain>(dom: &mut D, integer: bool, itv: Interval) -> Result<Dim> {
    dom.add_dims(1, integer)?;
    let t = Dim::new(dom.dims() - 1);
    if let Bound::Finite(r) = itv.lower {
        // t ≥ p/q  ⇔  q·t - p ≥ 0
        if let Some(e) = LinExpr::term(r.den(), t).checked_add_constant(-r.num()) {
            dom.meet_constraint(&LinConstraint::new(e, ConstraintKind::Ge))?;
        }
    }
    if let Bound::Finite(r) = itv.upper {
        if let Some(e) = LinExpr::term(r.den(), t).checked_add_constant(-r.num()) {
            dom.meet_constraint(&LinConstraint::new(e, ConstraintKind::Le))?;
        }
    }
    Ok(t)
}

/// The linear form of `e` over the (growing) dimensions of `dom`; `None`
/// if it cannot be expressed (overflow).
fn linearize<D: NumDomain>(dom: &mut D, e: &Expr, target_int: bool) -> Result<Option<LinExpr>> {
    let two = |dom: &mut D, a: &Expr, b: &Expr| -> Result<Option<(LinExpr, LinExpr)>> {
        let Some(la) = linearize(dom, a, target_int)? else {
            return Ok(None);
        };
        let Some(lb) = linearize(dom, b, target_int)? else {
            return Ok(None);
        };
        Ok(Some((la, lb)))
    };
    Ok(match e {
        Expr::Const(c) => Some(LinExpr::constant(*c)),
        Expr::Var(d) => Some(LinExpr::var(*d)),
        Expr::Neg(a) => linearize(dom, a, target_int)?.and_then(|l| l.checked_neg()),
        Expr::Add(a, b) => two(dom, a, b)?.and_then(|(x, y)| x.checked_add(&y)),
        Expr::Sub(a, b) => two(dom, a, b)?.and_then(|(x, y)| x.checked_sub(&y)),
        Expr::Mul(a, b) => {
            let Some((la, lb)) = two(dom, a, b)? else {
                return Ok(None);
            };
            if la.is_constant() {
                lb.checked_scale(la.constant_term())
            } else if lb.is_constant() {
                la.checked_scale(lb.constant_term())
            } else {
                let itv = mul_itv(dom.bounds(&la)?, dom.bounds(&lb)?);
                let int = dom.is_integral(&la) && dom.is_integral(&lb);
                Some(LinExpr::var(fresh(dom, int, itv)?))
            }
        }
        Expr::Div(a, b) => {
            let Some((la, lb)) = two(dom, a, b)? else {
                return Ok(None);
            };
            if lb.is_constant() && lb.constant_term() != 0 {
                let k = lb.constant_term();
                match la.exact_div(k) {
                    Some(q) => Some(q),
                    None => Some(LinExpr::var(div_by_const(dom, &la, k)?)),
                }
            } else {
                let itv = trunc_div_itv(dom.bounds(&la)?, dom.bounds(&lb)?);
                Some(LinExpr::var(fresh(dom, true, itv)?))
            }
        }
        Expr::Rem(a, b) => {
            let Some((la, lb)) = two(dom, a, b)? else {
                return Ok(None);
            };
            let k = lb.constant_term();
            if lb.is_constant() && (k == 1 || k == -1) {
                Some(LinExpr::zero())
            } else if lb.is_constant() && k != 0 {
                // r = a - k·(a / k), with the quotient's relational facts,
                // as a fresh dimension so that boxes keep r's own bounds.
                let ia = dom.bounds(&la)?;
                let q = div_by_const(dom, &la, k)?;
                let r = fresh(dom, true, rem_itv(ia, Interval::point(Rat::int(k))))?;
                // r - a + k·q = 0
                let link = LinExpr::term(k, q)
                    .checked_add(&LinExpr::var(r))
                    .and_then(|x| x.checked_sub(&la));
                if let Some(link) = link {
                    dom.meet_constraint(&LinConstraint::new(link, ConstraintKind::Eq))?;
                }
                Some(LinExpr::var(r))
            } else {
                let itv = rem_itv(dom.bounds(&la)?, dom.bounds(&lb)?);
                Some(LinExpr::var(fresh(dom, true, itv)?))
            }
        }
        Expr::RealDiv(a, b) | Expr::ExactDiv(a, b) => {
            let Some((la, lb)) = two(dom, a, b)? else {
                return Ok(None);
            };
            let k = lb.constant_term();
            let int = matches!(e, Expr::ExactDiv(..));
            if lb.is_constant() && k != 0 {
                match la.exact_div(k) {
                    Some(q) => Some(q),
                    None => {
                        // t = a / k exactly: k·t - a = 0 (an integer for an exact division).
                        let t = fresh(dom, int, Interval::TOP)?;
                        if let Some(c) = LinExpr::term(k, t).checked_sub(&la) {
                            dom.meet_constraint(&LinConstraint::new(c, ConstraintKind::Eq))?;
                        }
                        Some(LinExpr::var(t))
                    }
                }
            } else {
                let itv = real_div_itv(dom.bounds(&la)?, dom.bounds(&lb)?);
                Some(LinExpr::var(fresh(dom, false, itv)?))
            }
        }
        Expr::Unknown => Some(LinExpr::var(fresh(dom, target_int, Interval::TOP)?)),
        Expr::Range(lo, hi) => {
            let itv = Interval::new(
                lo.map_or(Bound::NegInf, Bound::int),
                hi.map_or(Bound::PosInf, Bound::int),
            );
            Some(LinExpr::var(fresh(dom, target_int, itv)?))
        }
    })
}

/// A fresh integer dimension `q` with `q = trunc(a / k)` approximated by
/// `-(|k|-1) ≤ a - k·q ≤ |k|-1`, the remainder's sign following `a`'s when
/// that sign is known, and the interval of the quotient.
fn div_by_const<D: NumDomain>(dom: &mut D, a: &LinExpr, k: i128) -> Result<Dim> {
    let ia = dom.bounds(a)?;
    let q = fresh(dom, true, trunc_div_itv(ia, Interval::point(Rat::int(k))))?;
    let Some(r) = LinExpr::term(k, q)
        .checked_neg()
        .and_then(|x| x.checked_add(a))
    else {
        return Ok(q);
    };
    let m = k.unsigned_abs() - 1;
    let Ok(m) = i128::try_from(m) else {
        return Ok(q);
    };
    let zero = Bound::int(0);
    let lo = if ia.lower >= zero { 0 } else { -m };
    let hi = if ia.upper <= zero { 0 } else { m };
    // r ≥ lo  and  r ≤ hi
    if let Some(e) = r.checked_add_constant(-lo) {
        dom.meet_constraint(&LinConstraint::new(e, ConstraintKind::Ge))?;
    }
    if let Some(e) = r.checked_add_constant(-hi) {
        dom.meet_constraint(&LinConstraint::new(e, ConstraintKind::Le))?;
    }
    Ok(q)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn itv(l: i128, h: i128) -> Interval {
        Interval::new(Bound::int(l), Bound::int(h))
    }

    #[test]
    fn interval_arithmetic() {
        assert_eq!(mul_itv(itv(-2, 3), itv(4, 5)), itv(-10, 15));
        assert_eq!(
            mul_itv(itv(0, 3), Interval::TOP),
            Interval::new(Bound::NegInf, Bound::PosInf)
        );
        assert_eq!(mul_itv(itv(0, 0), Interval::TOP), itv(0, 0));
        assert_eq!(trunc_div_itv(itv(-7, 7), itv(2, 2)), itv(-3, 3));
        assert_eq!(trunc_div_itv(itv(7, 9), itv(-2, 2)), itv(-9, 9));
        assert_eq!(trunc_div_itv(itv(1, 1), itv(0, 0)), Interval::TOP);
        assert_eq!(rem_itv(itv(-20, 5), itv(3, 4)), itv(-3, 3));
        assert_eq!(rem_itv(itv(2, 20), Interval::TOP), itv(0, 20));
        let big = Interval::point(Rat::int(i128::MAX));
        let m = mul_itv(big, big);
        assert_eq!(m.upper, Bound::PosInf);
        assert!(m.lower <= Bound::int(0));
    }

    #[test]
    fn linear_forms() {
        let e = Expr::div(
            Expr::add(
                Expr::mul(Expr::constant(4), Expr::var(Dim::new(0))),
                Expr::constant(2),
            ),
            Expr::constant(2),
        );
        assert_eq!(e.as_linear(), LinExpr::from_terms(&[(2, Dim::new(0))], 1));
        assert_eq!(
            Expr::mul(Expr::var(Dim::new(0)), Expr::var(Dim::new(1))).as_linear(),
            None
        );
        let mut pick = |_: Option<i128>, _: Option<i128>| 0;
        assert_eq!(
            Expr::rem(Expr::constant(-7), Expr::constant(2)).eval(&[], &mut pick),
            Some(-1)
        );
        assert_eq!(
            Expr::div(Expr::constant(-7), Expr::constant(2)).eval(&[], &mut pick),
            Some(-3)
        );
    }
}
