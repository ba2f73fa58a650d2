//! The native interval backend: one `[lo, hi]` per dimension over `i128`
//! with ±∞.
//!
//! Takes: the [`NumDomain`] operations. Gives: [`Intervals`], a cheap
//! non-relational domain (it cannot keep `x' = x`, which is why dizy
//! defaults to polyhedra).
//!
//! Bounds are integers. For integer dimensions that is exact (a bound
//! `x ≤ 7/2` is `x ≤ 3`); for real dimensions bounds are rounded outwards
//! (`x ≤ 7/2` is kept as `x ≤ 4`). Every arithmetic step is checked, and an
//! overflowing bound becomes ±∞ (in the direction that only enlarges the
//! box).

use crate::domain::{
    check_dim, check_expr, check_map, check_remove, check_same, merged_ints, ne_hull, NeHull,
};
use crate::linear::{normalize, ConstraintKind, Dim, LinConstraint, LinExpr, Norm};
use crate::num::{Bound, Interval, Rat};
use crate::{DomainError, DomainKind, NumDomain, Result};

/// Largest number of dimensions accepted (the box is a dense vector).
const MAX_DIMS: usize = 1 << 24;

/// One dimension's range; `None` is -∞ for `lo`, +∞ for `hi`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Itv {
    lo: Option<i128>,
    hi: Option<i128>,
}

impl Itv {
    const TOP: Itv = Itv { lo: None, hi: None };

    fn is_empty(&self) -> bool {
        matches!((self.lo, self.hi), (Some(l), Some(h)) if l > h)
    }

    fn contains(&self, v: i128) -> bool {
        self.lo.is_none_or(|l| l <= v) && self.hi.is_none_or(|h| v <= h)
    }
}

/// Boxes: a conjunction of `lo ≤ xᵢ ≤ hi`.
#[derive(Clone)]
pub struct Intervals {
    ints: Vec<bool>,
    /// `None` is bottom; otherwise no component is empty.
    itvs: Option<Vec<Itv>>,
}

impl std::fmt::Debug for Intervals {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let text = self
            .to_strings::<&str>(&[])
            .unwrap_or_else(|e| vec![format!("<{e}>")]);
        write!(f, "interval{{{}}}", text.join(", "))
    }
}

fn floor_div(a: i128, b: i128) -> Option<i128> {
    let q = a.checked_div(b)?;
    let r = a % b;
    Some(if r != 0 && ((r < 0) != (b < 0)) {
        q - 1
    } else {
        q
    })
}

fn ceil_div(a: i128, b: i128) -> Option<i128> {
    let q = a.checked_div(b)?;
    let r = a % b;
    Some(if r != 0 && ((r < 0) == (b < 0)) {
        q + 1
    } else {
        q
    })
}

fn min_opt(a: Option<i128>, b: Option<i128>) -> Option<i128> {
    // For upper bounds: None (+∞) is the identity.
    match (a, b) {
        (Some(x), Some(y)) => Some(x.min(y)),
        (x, None) | (None, x) => x,
    }
}

fn max_opt(a: Option<i128>, b: Option<i128>) -> Option<i128> {
    // For lower bounds: None (-∞) is the identity.
    match (a, b) {
        (Some(x), Some(y)) => Some(x.max(y)),
        (x, None) | (None, x) => x,
    }
}

impl Intervals {
    /// The universe over `dims` integer dimensions.
    pub fn top(dims: usize) -> Result<Intervals> {
        if dims > MAX_DIMS {
            return Err(DomainError::InvalidArgument(format!(
                "{dims} dimensions is more than the interval domain supports ({MAX_DIMS})"
            )));
        }
        Ok(Intervals {
            ints: vec![true; dims],
            itvs: Some(vec![Itv::TOP; dims]),
        })
    }

    /// The empty set over `dims` integer dimensions.
    pub fn bottom(dims: usize) -> Result<Intervals> {
        let mut d = Intervals::top(dims)?;
        d.itvs = None;
        Ok(d)
    }

    /// `[lo, hi]` of `e` by interval arithmetic (`None` = infinite).
    fn eval(itvs: &[Itv], e: &LinExpr) -> (Option<i128>, Option<i128>) {
        let mut lo = Some(e.constant_term());
        let mut hi = lo;
        for &(d, a) in e.terms() {
            let x = itvs[d.index()];
            let (l, h) = if a > 0 { (x.lo, x.hi) } else { (x.hi, x.lo) };
            lo = lo.and_then(|s| s.checked_add(a.checked_mul(l?)?));
            hi = hi.and_then(|s| s.checked_add(a.checked_mul(h?)?));
        }
        (lo, hi)
    }

    /// Tightens the box with `e ≤ 0` (one propagation pass, the standard
    /// HC4-style revise step).
    fn refine_le(&mut self, e: &LinExpr) {
        let Some(itvs) = self.itvs.as_mut() else {
            return;
        };
        // Minimum of each term a·x, and how many of them are -∞.
        let mins: Vec<Option<i128>> = e
            .terms()
            .iter()
            .map(|&(d, a)| {
                let b = if a > 0 {
                    itvs[d.index()].lo
                } else {
                    itvs[d.index()].hi
                };
                a.checked_mul(b?)
            })
            .collect();
        let infinite = mins.iter().filter(|m| m.is_none()).count();
        let finite_sum = mins
            .iter()
            .flatten()
            .try_fold(e.constant_term(), |s, &m| s.checked_add(m));
        for (i, &(d, a)) in e.terms().iter().enumerate() {
            // a·x ≤ u where u = -(c + Σ_{j≠i} min(aⱼxⱼ)).
            let others_infinite = infinite - usize::from(mins[i].is_none());
            if others_infinite > 0 {
                continue;
            }
            let Some(rest) = (match mins[i] {
                Some(m) => finite_sum.and_then(|s| s.checked_sub(m)),
                None => finite_sum,
            }) else {
                continue;
            };
            let Some(u) = rest.checked_neg() else {
                continue;
            };
            let int = self.ints[d.index()];
            let x = &mut itvs[d.index()];
            if a > 0 {
                // x ≤ u/a; integers round down, reals outwards (up).
                let b = if int { floor_div(u, a) } else { ceil_div(u, a) };
                x.hi = min_opt(x.hi, b);
            } else {
                // x ≥ u/a (a < 0 flips); integers round up, reals down.
                let b = if int { ceil_div(u, a) } else { floor_div(u, a) };
                x.lo = max_opt(x.lo, b);
            }
        }
        if itvs.iter().any(Itv::is_empty) {
            self.itvs = None;
        }
    }

    /// Threshold bounds per dimension from single-variable constraints.
    fn thresholds(&self, cs: &[LinConstraint]) -> (Vec<Vec<i128>>, Vec<Vec<i128>>) {
        let n = self.dims();
        let (mut lows, mut highs) = (vec![Vec::new(); n], vec![Vec::new(); n]);
        for c in cs {
            if c.expr.max_dim().is_none_or(|d| d.index() >= n) || c.expr.terms().len() != 1 {
                continue;
            }
            let integral = self.is_integral(&c.expr);
            // As `e ≤ 0` pieces.
            let les = match normalize(c, integral) {
                Some(Norm::Le(e)) => vec![e],
                Some(Norm::Eq(e)) => match e.checked_neg() {
                    Some(ne) => vec![e, ne],
                    None => continue,
                },
                _ => continue,
            };
            for e in les {
                let (d, a) = e.terms()[0];
                let Some(u) = e.constant_term().checked_neg() else {
                    continue;
                };
                if a > 0 {
                    if let Some(b) = floor_div(u, a) {
                        highs[d.index()].push(b);
                    }
                } else if let Some(b) = ceil_div(u, a) {
                    lows[d.index()].push(b);
                }
            }
        }
        (lows, highs)
    }

    fn widen_impl(&self, newer: &Intervals, th: Option<&[LinConstraint]>) -> Result<Intervals> {
        check_same(self.dims(), newer.dims())?;
        let ints = self.merged_ints(newer);
        let (Some(old), Some(new)) = (&self.itvs, &newer.itvs) else {
            // With a bottom argument the widening is the join.
            let mut j = self.join(newer)?;
            j.ints = ints;
            return Ok(j);
        };
        let (lows, highs) = match th {
            Some(cs) => self.thresholds(cs),
            None => (vec![Vec::new(); old.len()], vec![Vec::new(); old.len()]),
        };
        let mut out = Vec::with_capacity(old.len());
        for (i, (o, n)) in old.iter().zip(new).enumerate() {
            let j_lo = match (o.lo, n.lo) {
                (Some(a), Some(b)) => Some(a.min(b)),
                _ => None,
            };
            let j_hi = match (o.hi, n.hi) {
                (Some(a), Some(b)) => Some(a.max(b)),
                _ => None,
            };
            // Unstable bounds jump to the nearest threshold that still
            // contains the join, else to infinity.
            let lo = if j_lo == o.lo {
                o.lo
            } else {
                j_lo.and_then(|l| lows[i].iter().copied().filter(|&t| t <= l).max())
            };
            let hi = if j_hi == o.hi {
                o.hi
            } else {
                j_hi.and_then(|h| highs[i].iter().copied().filter(|&t| t >= h).min())
            };
            out.push(Itv { lo, hi });
        }
        Ok(Intervals {
            ints,
            itvs: Some(out),
        })
    }

    fn merged_ints(&self, o: &Intervals) -> Vec<bool> {
        merged_ints(&self.ints, &o.ints)
    }
}

impl NumDomain for Intervals {
    fn kind(&self) -> DomainKind {
        DomainKind::Interval
    }

    fn dims(&self) -> usize {
        self.ints.len()
    }

    fn top_like(&self, dims: usize) -> Result<Self> {
        Intervals::top(dims)
    }

    fn bottom_like(&self, dims: usize) -> Result<Self> {
        Intervals::bottom(dims)
    }

    fn is_integer(&self, dim: Dim) -> bool {
        self.ints.get(dim.index()).copied().unwrap_or(false)
    }

    fn set_integer(&mut self, dim: Dim, integer: bool) -> Result<()> {
        check_dim(dim, self.dims())?;
        self.ints[dim.index()] = integer;
        Ok(())
    }

    fn add_dims(&mut self, n: usize, integer: bool) -> Result<()> {
        if self.dims().saturating_add(n) > MAX_DIMS {
            return Err(DomainError::InvalidArgument("too many dimensions".into()));
        }
        self.ints.extend(std::iter::repeat_n(integer, n));
        if let Some(v) = self.itvs.as_mut() {
            v.extend(std::iter::repeat_n(Itv::TOP, n));
        }
        Ok(())
    }

    fn remove_dims(&mut self, dims: &[Dim]) -> Result<()> {
        let ds = check_remove(dims, self.dims())?;
        let keep = |&i: &usize| ds.binary_search(&Dim::new(i)).is_err();
        let idx: Vec<usize> = (0..self.dims()).filter(keep).collect();
        self.ints = idx.iter().map(|&i| self.ints[i]).collect();
        if let Some(v) = self.itvs.as_mut() {
            *v = idx.iter().map(|&i| v[i]).collect();
        }
        Ok(())
    }

    fn map_dims(&mut self, map: &[Option<Dim>]) -> Result<()> {
        let k = check_map(map, self.dims())?;
        let mut ints = vec![true; k];
        for (i, t) in map.iter().enumerate() {
            if let Some(t) = t {
                ints[t.index()] = self.ints[i];
            }
        }
        self.ints = ints;
        if let Some(v) = self.itvs.as_mut() {
            let mut nv = vec![Itv::TOP; k];
            for (i, t) in map.iter().enumerate() {
                if let Some(t) = t {
                    nv[t.index()] = v[i];
                }
            }
            *v = nv;
        }
        Ok(())
    }

    fn forget(&mut self, dim: Dim) -> Result<()> {
        check_dim(dim, self.dims())?;
        if let Some(v) = self.itvs.as_mut() {
            v[dim.index()] = Itv::TOP;
        }
        Ok(())
    }

    fn assign_linear(&mut self, dim: Dim, e: &LinExpr) -> Result<()> {
        check_dim(dim, self.dims())?;
        check_expr(e, self.dims())?;
        // Integer coefficients over integer bounds give integer bounds:
        // nothing to round, whatever the dimension's type.
        if let Some(v) = self.itvs.as_mut() {
            let (lo, hi) = Intervals::eval(v, e);
            v[dim.index()] = Itv { lo, hi };
        }
        Ok(())
    }

    fn meet_constraint(&mut self, c: &LinConstraint) -> Result<()> {
        check_expr(&c.expr, self.dims())?;
        if self.itvs.is_none() {
            return Ok(());
        }
        let integral = self.is_integral(&c.expr);
        match normalize(c, integral) {
            None | Some(Norm::True) => {}
            Some(Norm::False) => self.itvs = None,
            Some(Norm::Le(e)) => self.refine_le(&e),
            Some(Norm::Eq(e)) => {
                self.refine_le(&e);
                if let Some(ne) = e.checked_neg() {
                    self.refine_le(&ne);
                }
            }
            Some(Norm::Ne(e)) => match ne_hull(self.bounds(&e)?, &e, integral) {
                NeHull::Bottom => self.itvs = None,
                NeHull::Le(x) => self.refine_le(&x),
                NeHull::Same => {}
            },
        }
        Ok(())
    }

    fn meet(&self, other: &Self) -> Result<Self> {
        check_same(self.dims(), other.dims())?;
        let ints = self.merged_ints(other);
        let itvs = match (&self.itvs, &other.itvs) {
            (Some(a), Some(b)) => {
                let v: Vec<Itv> = a
                    .iter()
                    .zip(b)
                    .map(|(x, y)| Itv {
                        lo: max_opt(x.lo, y.lo),
                        hi: min_opt(x.hi, y.hi),
                    })
                    .collect();
                (!v.iter().any(Itv::is_empty)).then_some(v)
            }
            _ => None,
        };
        Ok(Intervals { ints, itvs })
    }

    fn join(&self, other: &Self) -> Result<Self> {
        check_same(self.dims(), other.dims())?;
        let ints = self.merged_ints(other);
        let itvs = match (&self.itvs, &other.itvs) {
            (Some(a), Some(b)) => Some(
                a.iter()
                    .zip(b)
                    .map(|(x, y)| Itv {
                        lo: x.lo.zip(y.lo).map(|(p, q)| p.min(q)),
                        hi: x.hi.zip(y.hi).map(|(p, q)| p.max(q)),
                    })
                    .collect(),
            ),
            (Some(a), None) => Some(a.clone()),
            (None, b) => b.clone(),
        };
        Ok(Intervals { ints, itvs })
    }

    fn widen(&self, newer: &Self) -> Result<Self> {
        self.widen_impl(newer, None)
    }

    fn widen_with_thresholds(&self, newer: &Self, thresholds: &[LinConstraint]) -> Result<Self> {
        self.widen_impl(newer, Some(thresholds))
    }

    fn leq(&self, other: &Self) -> Result<bool> {
        check_same(self.dims(), other.dims())?;
        Ok(match (&self.itvs, &other.itvs) {
            (None, _) => true,
            (Some(_), None) => false,
            (Some(a), Some(b)) => a.iter().zip(b).all(|(x, y)| {
                y.lo.is_none_or(|l| x.lo.is_some_and(|xl| l <= xl))
                    && y.hi.is_none_or(|h| x.hi.is_some_and(|xh| xh <= h))
            }),
        })
    }

    fn is_bottom(&self) -> Result<bool> {
        Ok(self.itvs.is_none())
    }

    fn is_top(&self) -> Result<bool> {
        Ok(self
            .itvs
            .as_ref()
            .is_some_and(|v| v.iter().all(|x| *x == Itv::TOP)))
    }

    fn bounds(&self, e: &LinExpr) -> Result<Interval> {
        check_expr(e, self.dims())?;
        let Some(v) = &self.itvs else {
            return Ok(Interval::EMPTY);
        };
        let (lo, hi) = Intervals::eval(v, e);
        Ok(Interval::new(
            lo.map_or(Bound::NegInf, |l| Bound::Finite(Rat::int(l))),
            hi.map_or(Bound::PosInf, |h| Bound::Finite(Rat::int(h))),
        ))
    }

    fn constraints(&self) -> Result<Vec<LinConstraint>> {
        let Some(v) = &self.itvs else {
            return Ok(vec![LinConstraint::falsity()]);
        };
        let mut out = Vec::new();
        for (d, x) in v.iter().enumerate() {
            let bound = |b: i128, kind| {
                let e = LinExpr::var(Dim::new(d)).checked_add_constant(b.checked_neg()?)?;
                Some(LinConstraint::new(e, kind))
            };
            match (x.lo, x.hi) {
                (Some(l), Some(h)) if l == h => out.extend(bound(l, ConstraintKind::Eq)),
                (lo, hi) => {
                    out.extend(lo.and_then(|l| bound(l, ConstraintKind::Ge)));
                    out.extend(hi.and_then(|h| bound(h, ConstraintKind::Le)));
                }
            }
        }
        Ok(out)
    }

    fn integer_point(&self) -> Result<Option<Vec<i128>>> {
        Ok(self.itvs.as_ref().map(|v| {
            v.iter()
                .map(|x| 0i128.clamp(x.lo.unwrap_or(i128::MIN), x.hi.unwrap_or(i128::MAX)))
                .collect()
        }))
    }

    fn contains_point(&self, p: &[i128]) -> Result<bool> {
        check_same(self.dims(), p.len())?;
        Ok(self
            .itvs
            .as_ref()
            .is_some_and(|v| v.iter().zip(p).all(|(x, &c)| x.contains(c))))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounding_helpers() {
        assert_eq!(floor_div(7, 2), Some(3));
        assert_eq!(floor_div(-7, 2), Some(-4));
        assert_eq!(floor_div(7, -2), Some(-4));
        assert_eq!(ceil_div(7, 2), Some(4));
        assert_eq!(ceil_div(-7, 2), Some(-3));
        assert_eq!(ceil_div(-7, -2), Some(4));
        assert_eq!(floor_div(i128::MIN, -1), None);
    }

    #[test]
    fn real_dims_round_outwards() {
        let mut d = Intervals::top(1).unwrap();
        d.set_integer(Dim::new(0), false).unwrap();
        // 2x <= 7  →  x <= 4 over the reals (3.5 rounded up), x <= 3 over ints.
        let c = LinConstraint::new(
            LinExpr::from_terms(&[(2, Dim::new(0))], -7).unwrap(),
            ConstraintKind::Le,
        );
        d.meet_constraint(&c).unwrap();
        assert_eq!(
            d.bounds(&LinExpr::var(Dim::new(0))).unwrap().upper,
            Bound::int(4)
        );
        let mut i = Intervals::top(1).unwrap();
        i.meet_constraint(&c).unwrap();
        assert_eq!(
            i.bounds(&LinExpr::var(Dim::new(0))).unwrap().upper,
            Bound::int(3)
        );
    }

    #[test]
    fn overflow_goes_to_infinity() {
        let mut d = Intervals::top(2).unwrap();
        let big = LinExpr::from_terms(&[(1, Dim::new(0))], -i128::MAX).unwrap();
        d.meet_constraint(&LinConstraint::new(big, ConstraintKind::Ge))
            .unwrap();
        // x1 := 2*x0 overflows: x1 must become unbounded above, not wrap.
        d.assign_linear(Dim::new(1), &LinExpr::term(2, Dim::new(0)))
            .unwrap();
        let b = d.bounds(&LinExpr::var(Dim::new(1))).unwrap();
        assert_eq!(b.upper, Bound::PosInf);
        assert_eq!(b.lower, Bound::NegInf);
    }
}
