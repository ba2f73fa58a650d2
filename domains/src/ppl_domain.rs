//! The PPL-backed domains: [`Polyhedra`] (`C_Polyhedron`) and [`Octagons`]
//! (`Octagonal_Shape<mpq_class>`), one generic implementation of
//! [`NumDomain`] over a [`ppl::Shape`].
//!
//! Takes: the safe wrappers of the [`ppl`] module. Gives: the relational
//! backends of the correlating domain. This file holds the domain logic
//! (normalising constraints, integer reasoning, approximating what octagons
//! cannot express); no `unsafe` here.
//!
//! PPL works over the rationals. Integer reasoning is added on top: strict
//! inequalities over integer dimensions are tightened before they reach PPL,
//! bounds of integer expressions are rounded, and integer points come from
//! PPL's MIP solver.

use crate::domain::{
    check_dim, check_expr, check_map, check_remove, check_same, merged_ints, ne_hull, NeHull,
};
use crate::linear::{normalize, ConstraintKind, Dim, LinConstraint, LinExpr, Norm};
use crate::num::{Bound, Interval};
use crate::ppl::{self, Kind, Shape};
use crate::{DomainError, DomainKind, NumDomain, Result};

/// An abstract value backed by a PPL object of kind `K`, plus the per
/// dimension integer flags.
pub struct PplDomain<K: Kind> {
    shape: Shape<K>,
    ints: Vec<bool>,
}

/// Convex polyhedra (PPL `C_Polyhedron`, BHRZ03 widening).
pub type Polyhedra = PplDomain<ppl::CPolyhedron>;

/// Octagons (PPL `Octagonal_Shape<mpq_class>`, BHMZ05 widening).
pub type Octagons = PplDomain<ppl::Octagon>;

impl<K: Kind> std::fmt::Debug for PplDomain<K> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let text = self
            .to_strings::<&str>(&[])
            .unwrap_or_else(|e| vec![format!("<{e}>")]);
        write!(f, "{}{{{}}}", K::NAME, text.join(", "))
    }
}

impl<K: Kind> Clone for PplDomain<K> {
    /// Copies the PPL object. PPL fails to copy only when memory is
    /// exhausted, which (as for `Vec::clone`) is fatal; use
    /// [`PplDomain::try_clone`] to get an `Err` instead.
    fn clone(&self) -> Self {
        match self.try_clone() {
            Ok(v) => v,
            Err(e) => panic!("PPL could not copy an abstract value: {e}"),
        }
    }
}

/// Octagonal constraints are `±x ≤ c` and `±x ± y ≤ c`.
fn is_octagonal(e: &LinExpr) -> bool {
    match e.terms() {
        [] | [_] => true,
        [(_, a), (_, b)] => a.unsigned_abs() == b.unsigned_abs(),
        _ => false,
    }
}

/// Largest number of dimensions accepted. PPL's octagons do not check the
/// size of their (quadratic) matrix for overflow and corrupt the heap on
/// absurd sizes, so we refuse those before calling PPL.
fn max_dims<K: Kind>() -> usize {
    if K::OCTAGONAL {
        1 << 12
    } else {
        1 << 16
    }
}

fn check_size<K: Kind>(dims: usize) -> Result<()> {
    if dims > max_dims::<K>() {
        return Err(DomainError::InvalidArgument(format!(
            "{dims} dimensions is more than the {} domain supports ({})",
            K::NAME,
            max_dims::<K>()
        )));
    }
    Ok(())
}

impl<K: Kind> PplDomain<K> {
    /// The universe over `dims` integer dimensions.
    pub fn top(dims: usize) -> Result<Self> {
        Self::top_budgeted(dims, 0)
    }

    /// The universe over `dims` integer dimensions, each operation on it (and
    /// on every value derived from it) bounded by `budget` units of PPL work
    /// (0: unbounded). An operation that runs out fails with
    /// [`DomainError::Timeout`]; an in-place one then leaves top.
    pub fn top_budgeted(dims: usize, budget: u64) -> Result<Self> {
        check_size::<K>(dims)?;
        let shape = Shape::new(dims, false, budget)?;
        Ok(PplDomain {
            shape,
            ints: vec![true; dims],
        })
    }

    /// The empty set over `dims` integer dimensions.
    pub fn bottom(dims: usize) -> Result<Self> {
        Self::bottom_budgeted(dims, 0)
    }

    fn bottom_budgeted(dims: usize, budget: u64) -> Result<Self> {
        check_size::<K>(dims)?;
        let shape = Shape::new(dims, true, budget)?;
        Ok(PplDomain {
            shape,
            ints: vec![true; dims],
        })
    }

    /// A copy, reporting PPL allocation failure as `Err`.
    pub fn try_clone(&self) -> Result<Self> {
        Ok(PplDomain {
            shape: self.shape.try_clone()?,
            ints: self.ints.clone(),
        })
    }

    fn set_bottom(&mut self) -> Result<()> {
        self.shape = Shape::new(self.dims(), true, self.shape.budget())?;
        Ok(())
    }

    /// Runs an in-place update. If PPL fails midway (a budget timeout, out
    /// of memory) its object is valid but unspecified, so the value is reset
    /// to top over its current dimensions: always a sound over-approximation,
    /// never a half-updated state. Argument errors are detected before
    /// anything changes and leave the value as it was.
    fn update(&mut self, f: impl FnOnce(&mut Self) -> Result<()>) -> Result<()> {
        let r = f(self);
        if let Err(DomainError::Ppl { .. } | DomainError::Timeout) = r {
            if let Ok(top) = Shape::new(self.ints.len(), false, self.shape.budget()) {
                self.shape = top;
            }
        }
        r
    }

    /// `meet_constraint` after argument checks.
    fn meet_normalized(&mut self, c: &LinConstraint) -> Result<()> {
        let integral = self.is_integral(&c.expr);
        match normalize(c, integral) {
            None | Some(Norm::True) => Ok(()),
            Some(Norm::False) => self.set_bottom(),
            Some(Norm::Le(e)) => self.refine(vec![LinConstraint::new(e, ConstraintKind::Le)]),
            Some(Norm::Eq(e)) => self.refine(vec![LinConstraint::new(e, ConstraintKind::Eq)]),
            Some(Norm::Ne(e)) => match ne_hull(self.bounds(&e)?, &e, integral) {
                NeHull::Bottom => self.set_bottom(),
                NeHull::Le(x) => self.refine(vec![LinConstraint::new(x, ConstraintKind::Le)]),
                NeHull::Same => Ok(()),
            },
        }
    }

    fn merged_ints(&self, o: &Self) -> Vec<bool> {
        merged_ints(&self.ints, &o.ints)
    }

    /// Adds non-strict constraints (`≤`, `≥`, `=`). Octagons cannot hold
    /// other shapes, so for those we also add the single-variable bounds
    /// they imply given the current value (`aⱼxⱼ ≤ -inf(rest)`), which is
    /// what PPL would otherwise silently drop.
    fn refine(&mut self, cs: Vec<LinConstraint>) -> Result<()> {
        let dims = self.dims();
        let mut all = Vec::with_capacity(cs.len());
        for c in cs {
            if K::OCTAGONAL && !is_octagonal(&c.expr) {
                all.extend(self.single_var_consequences(&c)?);
            }
            all.push(c);
        }
        self.shape.refine(&all, dims)
    }

    fn single_var_consequences(&self, c: &LinConstraint) -> Result<Vec<LinConstraint>> {
        // Everything as `e ≤ 0`.
        let mut les = Vec::new();
        if matches!(c.kind, ConstraintKind::Le | ConstraintKind::Eq) {
            les.push(c.expr.clone());
        }
        if matches!(c.kind, ConstraintKind::Ge | ConstraintKind::Eq) {
            les.extend(c.expr.checked_neg());
        }
        let mut out = Vec::new();
        for e in les {
            for &(d, a) in e.terms() {
                // a·x + rest ≤ 0  ⇒  a·x + inf(rest) ≤ 0
                let Some(rest) = e.checked_sub(&LinExpr::term(a, d)) else {
                    continue;
                };
                let Bound::Finite(m) = self.shape.inf(&rest, self.dims())? else {
                    continue;
                };
                // a·x + p/q ≤ 0  ⇔  q·a·x + p ≤ 0
                let Some(bound) = LinExpr::term(a, d)
                    .checked_scale(m.den())
                    .and_then(|x| x.checked_add_constant(m.num()))
                else {
                    continue;
                };
                let nc = LinConstraint::new(bound, ConstraintKind::Le);
                match normalize(&nc, self.is_integer(d)) {
                    Some(Norm::Le(x)) => out.push(LinConstraint::new(x, ConstraintKind::Le)),
                    Some(Norm::False) => out.push(LinConstraint::falsity()),
                    _ => {}
                }
            }
        }
        Ok(out)
    }
}

impl<K: Kind> NumDomain for PplDomain<K> {
    fn kind(&self) -> DomainKind {
        if K::OCTAGONAL {
            DomainKind::PplOctagon
        } else {
            DomainKind::Polyhedra
        }
    }

    fn dims(&self) -> usize {
        self.ints.len()
    }

    fn top_like(&self, dims: usize) -> Result<Self> {
        Self::top_budgeted(dims, self.shape.budget())
    }

    fn bottom_like(&self, dims: usize) -> Result<Self> {
        Self::bottom_budgeted(dims, self.shape.budget())
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
        check_size::<K>(self.dims().saturating_add(n))?;
        self.update(|d| {
            d.shape.add_dims(n)?;
            d.ints.extend(std::iter::repeat_n(integer, n));
            Ok(())
        })
    }

    fn remove_dims(&mut self, dims: &[Dim]) -> Result<()> {
        let ds = check_remove(dims, self.dims())?;
        if ds.is_empty() {
            return Ok(());
        }
        self.update(|d| {
            d.shape.remove_dims(&ds)?;
            let mut i = 0;
            d.ints.retain(|_| {
                i += 1;
                ds.binary_search(&Dim::new(i - 1)).is_err()
            });
            Ok(())
        })
    }

    fn map_dims(&mut self, map: &[Option<Dim>]) -> Result<()> {
        let k = check_map(map, self.dims())?;
        if map.iter().enumerate().all(|(i, t)| *t == Some(Dim::new(i))) {
            return Ok(());
        }
        self.update(|d| {
            d.shape.map_dims(map)?;
            let mut ints = vec![true; k];
            for (i, t) in map.iter().enumerate() {
                if let Some(t) = t {
                    ints[t.index()] = d.ints[i];
                }
            }
            d.ints = ints;
            Ok(())
        })
    }

    fn forget(&mut self, dim: Dim) -> Result<()> {
        check_dim(dim, self.dims())?;
        self.update(|d| d.shape.unconstrain(dim))
    }

    fn assign_linear(&mut self, dim: Dim, e: &LinExpr) -> Result<()> {
        check_dim(dim, self.dims())?;
        check_expr(e, self.dims())?;
        let dims = self.dims();
        self.update(|d| d.shape.affine_image(dim, e, dims))
    }

    fn meet_constraint(&mut self, c: &LinConstraint) -> Result<()> {
        check_expr(&c.expr, self.dims())?;
        self.update(|d| d.meet_normalized(c))
    }

    fn meet(&self, other: &Self) -> Result<Self> {
        check_same(self.dims(), other.dims())?;
        let mut r = self.try_clone()?;
        r.shape.meet_assign(&other.shape)?;
        r.ints = self.merged_ints(other);
        Ok(r)
    }

    fn join(&self, other: &Self) -> Result<Self> {
        check_same(self.dims(), other.dims())?;
        let mut r = self.try_clone()?;
        r.shape.join_assign(&other.shape)?;
        r.ints = self.merged_ints(other);
        Ok(r)
    }

    fn join_assign(&mut self, other: &Self) -> Result<()> {
        check_same(self.dims(), other.dims())?;
        self.ints = self.merged_ints(other);
        self.shape.join_assign(&other.shape)
    }

    fn widen(&self, newer: &Self) -> Result<Self> {
        // PPL's widening wants its argument (the older value) included in
        // `*this`: widen against the join, which is what we mean anyway.
        let mut r = self.join(newer)?;
        r.shape.widen_assign(&self.shape)?;
        Ok(r)
    }

    fn widen_with_thresholds(&self, newer: &Self, thresholds: &[LinConstraint]) -> Result<Self> {
        let mut r = self.join(newer)?;
        let mut ths = Vec::new();
        for c in thresholds {
            if c.expr.max_dim().is_some_and(|d| d.index() >= self.dims()) {
                continue;
            }
            let (e, kind) = match normalize(c, self.is_integral(&c.expr)) {
                Some(Norm::Le(e)) => (e, ConstraintKind::Le),
                Some(Norm::Eq(e)) => (e, ConstraintKind::Eq),
                _ => continue,
            };
            if K::OCTAGONAL && !is_octagonal(&e) {
                continue;
            }
            ths.push(LinConstraint::new(e, kind));
        }
        let dims = self.dims();
        r.shape.limited_widen_assign(&self.shape, &ths, dims)?;
        Ok(r)
    }

    fn leq(&self, other: &Self) -> Result<bool> {
        check_same(self.dims(), other.dims())?;
        other.shape.contains(&self.shape)
    }

    fn equals(&self, other: &Self) -> Result<bool> {
        check_same(self.dims(), other.dims())?;
        self.shape.equals(&other.shape)
    }

    fn is_bottom(&self) -> Result<bool> {
        self.shape.is_empty()
    }

    fn is_top(&self) -> Result<bool> {
        self.shape.is_universe()
    }

    fn bounds(&self, e: &LinExpr) -> Result<Interval> {
        check_expr(e, self.dims())?;
        if self.shape.is_empty()? {
            return Ok(Interval::EMPTY);
        }
        let b = if e.is_constant() {
            Interval::new(Bound::int(e.constant_term()), Bound::int(e.constant_term()))
        } else {
            let dims = self.dims();
            Interval::new(self.shape.inf(e, dims)?, self.shape.sup(e, dims)?)
        };
        Ok(if self.is_integral(e) {
            b.round_to_integers()
        } else {
            b
        })
    }

    /// As the default (from the bounds of `c.expr`), but only the side `c` needs is computed,
    /// and for `= 0` the second only when the first is 0: each side is a linear program, and
    /// the analysis asks whether `x = x'` for every pair of corresponding locations of every
    /// sub-state it groups, most of which differ.
    fn entails(&self, c: &LinConstraint) -> Result<bool> {
        check_expr(&c.expr, self.dims())?;
        if self.shape.is_empty()? {
            return Ok(true);
        }
        if c.expr.is_constant() {
            return Ok(c.holds_at(&[]) == Some(true));
        }
        let (e, dims) = (&c.expr, self.dims());
        let integral = self.is_integral(e);
        let sup = || self.shape.sup(e, dims);
        let inf = || self.shape.inf(e, dims);
        // A fractional bound of an integer-valued expression may round past the other one
        // (no integer point: everything is entailed), which needs both sides.
        let frac = |b: Bound| integral && matches!(b, Bound::Finite(r) if !r.is_integer());
        let zero = Bound::int(0);
        // The default's decision from the bounds, rounded as `bounds` rounds them.
        let decide = |lo: Bound, hi: Bound| {
            let i = Interval::new(lo, hi);
            if integral { i.round_to_integers() } else { i }.satisfies(c.kind)
        };
        Ok(match c.kind {
            ConstraintKind::Le | ConstraintKind::Lt => {
                let s = sup()?;
                decide(if frac(s) { inf()? } else { Bound::NegInf }, s)
            }
            ConstraintKind::Ge | ConstraintKind::Gt => {
                let i = inf()?;
                decide(i, if frac(i) { sup()? } else { Bound::PosInf })
            }
            ConstraintKind::Eq => {
                let s = sup()?;
                if !frac(s) && s != zero {
                    false
                } else {
                    decide(inf()?, s)
                }
            }
            ConstraintKind::Ne => decide(inf()?, sup()?),
        })
    }

    fn constraints(&self) -> Result<Vec<LinConstraint>> {
        if self.shape.is_empty()? {
            return Ok(vec![LinConstraint::falsity()]);
        }
        self.shape.constraints()
    }

    fn integer_point(&self) -> Result<Option<Vec<i128>>> {
        if self.shape.is_empty()? {
            return Ok(None);
        }
        self.shape.integer_point(self.dims())
    }
}
