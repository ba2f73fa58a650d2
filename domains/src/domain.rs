//! The [`NumDomain`] trait, the run-time choice of backend ([`DomainKind`],
//! [`AnyDomain`], [`make_domain`]) and the argument checks shared by the
//! backends.
//!
//! Takes: nothing but the backends. Gives: the interface the correlating
//! domain (`src/correlating` in the root crate) programs against. A new
//! backend (APRON, ELINA, …) implements the required methods, gets a
//! [`DomainKind`] variant and an [`AnyDomain`] arm; the provided methods
//! (non-linear assignment, entailment, splitting `≠`, projection, text)
//! come for free.

use std::fmt;
use std::str::FromStr;

use crate::expr::{self, Expr};
use crate::linear::{constraints_to_text, ConstraintKind, Dim, LinConstraint, LinExpr};
use crate::num::{Bound, Interval};
use crate::{DomainError, Intervals, NativeOctagons, Octagons, Polyhedra, Result};

/// A numeric abstract domain: a set of points of `Zⁿ`/`Qⁿ` described by
/// constraints over `n` numbered dimensions.
///
/// Values of one backend only combine with values of the same backend and
/// the same number of dimensions (`Err` otherwise). Methods returning a new
/// value never modify `self`. All operations are sound over-approximations
/// of the concrete ones; the doc of each says where precision is lost.
/// Argument errors leave `self` unchanged; when an in-place operation fails
/// inside the backend (PPL error, work budget exceeded), `self` is reset to
/// top over its dimensions — sound, never half-updated.
pub trait NumDomain: Clone + fmt::Debug {
    /// Which backend this value belongs to.
    fn kind(&self) -> DomainKind;

    /// Number of dimensions.
    fn dims(&self) -> usize;

    /// The universe over `dims` integer dimensions, same backend as `self`.
    fn top_like(&self, dims: usize) -> Result<Self>;

    /// The empty set over `dims` integer dimensions, same backend.
    fn bottom_like(&self, dims: usize) -> Result<Self>;

    /// Whether `dim` ranges over the integers (the default) rather than the
    /// reals. `false` for out-of-range dimensions.
    fn is_integer(&self, dim: Dim) -> bool;

    /// Declares `dim` integer or real. Integer dimensions allow tightening
    /// strict inequalities, rounding bounds and splitting `≠` exactly.
    fn set_integer(&mut self, dim: Dim, integer: bool) -> Result<()>;

    /// Appends `n` unconstrained dimensions.
    fn add_dims(&mut self, n: usize, integer: bool) -> Result<()>;

    /// Projects away the given dimensions (any order, duplicates allowed);
    /// the remaining ones are renumbered keeping their order.
    fn remove_dims(&mut self, dims: &[Dim]) -> Result<()>;

    /// Renames dimension `i` to `map[i]` and projects away those mapped to
    /// `None`. `map.len()` must equal [`dims`](Self::dims) and the `Some`
    /// targets must be exactly `0..k` (a permutation when nothing is
    /// dropped).
    fn map_dims(&mut self, map: &[Option<Dim>]) -> Result<()>;

    /// Havoc: forgets everything about `dim`.
    fn forget(&mut self, dim: Dim) -> Result<()>;

    /// `x_dim := e`.
    fn assign_linear(&mut self, dim: Dim, e: &LinExpr) -> Result<()>;

    /// Intersects with one constraint. Convex kinds are handled exactly by
    /// the relational backends (strict `<`/`>` over real dimensions are
    /// closed to `≤`/`≥`). `≠` is not convex: this keeps the convex hull of
    /// the result (bottom if `e = 0` is entailed; over integers `e ≥ 1` when
    /// `e ≥ 0` is entailed, symmetric for `≤`); use
    /// [`meet_split`](Self::meet_split) for the exact pieces. A constraint
    /// whose normalisation overflows `i128` is ignored (sound).
    fn meet_constraint(&mut self, c: &LinConstraint) -> Result<()>;

    /// Greatest lower bound (intersection).
    fn meet(&self, other: &Self) -> Result<Self>;

    /// Least upper bound (convex hull / octagonal hull / box hull).
    fn join(&self, other: &Self) -> Result<Self>;

    /// `self := self ⊔ other`, in place (the PPL backends then copy neither operand). On a
    /// failure inside PPL the value is left at top.
    fn join_assign(&mut self, other: &Self) -> Result<()> {
        *self = self.join(other)?;
        Ok(())
    }

    /// Widening `self ∇ newer`, where `self` is the older iterate; the result
    /// contains both. Sequences `xᵢ₊₁ = xᵢ ∇ yᵢ` stabilise.
    fn widen(&self, newer: &Self) -> Result<Self>;

    /// Widening that keeps every threshold constraint satisfied by both
    /// arguments (e.g. `i ≤ 100` from a loop bound). `≠` thresholds are
    /// ignored; strict ones are closed.
    fn widen_with_thresholds(&self, newer: &Self, thresholds: &[LinConstraint]) -> Result<Self>;

    /// Inclusion `self ⊑ other`.
    fn leq(&self, other: &Self) -> Result<bool>;

    /// Emptiness (over the rationals for the PPL backends: an empty integer
    /// hull may go undetected, which is sound).
    fn is_bottom(&self) -> Result<bool>;

    /// Whether nothing is known.
    fn is_top(&self) -> Result<bool>;

    /// Lower and upper bound of `e` over the value; empty interval for
    /// bottom. Exact for the relational backends (linear programming),
    /// interval arithmetic for boxes. When every dimension of `e` is
    /// integer the bounds are rounded inwards to integers.
    fn bounds(&self, e: &LinExpr) -> Result<Interval>;

    /// A minimized constraint system (`[false]` for bottom, `[]` for top).
    /// PPL constraints with coefficients beyond `i128` are dropped (sound).
    fn constraints(&self) -> Result<Vec<LinConstraint>>;

    /// An integer point of the value, `None` if there is none. PPL: MIP with
    /// every dimension integer (may return [`DomainError::Timeout`] on
    /// pathological unbounded problems); boxes: the point closest to 0.
    fn integer_point(&self) -> Result<Option<Vec<i128>>>;

    // ----- provided methods -------------------------------------------

    /// `x_dim := e` for an arbitrary expression: linear parts exactly,
    /// non-linear nodes through fresh dimensions bounded by interval
    /// arithmetic on their operands (and relational facts for division and
    /// remainder by constants); see [`Expr`].
    fn assign_expr(&mut self, dim: Dim, e: &Expr) -> Result<()> {
        expr::assign_expr(self, dim, e)
    }

    /// Intersects with every constraint in turn.
    fn meet_constraints(&mut self, cs: &[LinConstraint]) -> Result<()> {
        for c in cs {
            self.meet_constraint(c)?;
        }
        Ok(())
    }

    /// Exact intersection with any constraint as a list of non-empty convex
    /// pieces: `e ≠ 0` gives up to two (`e ≤ -1`, `e ≥ 1` over integers;
    /// `e < 0`, `e > 0` over reals, each closed), others at most one.
    fn meet_split(&self, c: &LinConstraint) -> Result<Vec<Self>> {
        let pieces: Vec<LinConstraint> = match c.split_ne(self.is_integral(&c.expr)) {
            Some(two) => two.into(),
            None => vec![c.clone()],
        };
        let mut out = Vec::with_capacity(pieces.len());
        for p in &pieces {
            let mut d = self.clone();
            d.meet_constraint(p)?;
            if !d.is_bottom()? {
                out.push(d);
            }
        }
        Ok(out)
    }

    /// Whether every dimension of `e` is integer (so `e` only takes integer
    /// values).
    fn is_integral(&self, e: &LinExpr) -> bool {
        e.dims().all(|d| self.is_integer(d))
    }

    /// Equality of the described sets.
    fn equals(&self, other: &Self) -> Result<bool> {
        Ok(self.leq(other)? && other.leq(self)?)
    }

    /// Whether every point satisfies `c` (e.g. `x0 - x1 = 0`); bottom
    /// entails everything. Decided from [`bounds`](Self::bounds).
    fn entails(&self, c: &LinConstraint) -> Result<bool> {
        Ok(self.bounds(&c.expr)?.satisfies(c.kind))
    }

    /// Existential projection onto `keep`: the result has `keep.len()`
    /// dimensions, new dimension `i` being old `keep[i]`.
    fn project(&self, keep: &[Dim]) -> Result<Self> {
        let mut map = vec![None; self.dims()];
        for (i, &d) in keep.iter().enumerate() {
            let slot = map.get_mut(d.index()).ok_or(DomainError::DimOutOfRange {
                dim: d,
                dims: self.dims(),
            })?;
            if slot.is_some() {
                return Err(DomainError::InvalidArgument(format!(
                    "dimension {d} kept twice"
                )));
            }
            *slot = Some(Dim::new(i));
        }
        let mut r = self.clone();
        r.map_dims(&map)?;
        Ok(r)
    }

    /// Whether the integer point `p` (one coordinate per dimension) lies in
    /// the value: meets with `xᵢ = pᵢ` and tests emptiness.
    fn contains_point(&self, p: &[i128]) -> Result<bool> {
        if p.len() != self.dims() {
            return Err(DomainError::DimMismatch {
                left: self.dims(),
                right: p.len(),
            });
        }
        let mut d = self.clone();
        for (i, &v) in p.iter().enumerate() {
            let e = LinExpr::from_terms(&[(1, Dim::new(i))], 0)
                .and_then(|x| x.checked_add_constant(v.checked_neg()?))
                .ok_or_else(|| DomainError::Overflow("point coordinate".into()))?;
            d.meet_constraint(&LinConstraint::new(e, ConstraintKind::Eq))?;
        }
        Ok(!d.is_bottom()?)
    }

    /// The minimized constraints as readable text, dimension `i` named
    /// `names[i]` (`x{i}` when missing), in a deterministic order:
    /// e.g. `["x' = x", "x <= -1"]`; `["false"]` for bottom.
    fn to_strings<S: AsRef<str>>(&self, names: &[S]) -> Result<Vec<String>>
    where
        Self: Sized,
    {
        let cs = self.constraints()?;
        let name = |d: Dim| {
            names
                .get(d.index())
                .map_or_else(|| format!("x{d}"), |s| s.as_ref().to_string())
        };
        Ok(constraints_to_text(&cs, &name))
    }
}

// ---------------------------------------------------------------------------
// Argument checks shared by the backends

pub(crate) fn check_dim(d: Dim, dims: usize) -> Result<()> {
    if d.index() < dims {
        Ok(())
    } else {
        Err(DomainError::DimOutOfRange { dim: d, dims })
    }
}

pub(crate) fn check_expr(e: &LinExpr, dims: usize) -> Result<()> {
    match e.max_dim() {
        Some(d) => check_dim(d, dims),
        None => Ok(()),
    }
}

pub(crate) fn check_same(l: usize, r: usize) -> Result<()> {
    if l == r {
        Ok(())
    } else {
        Err(DomainError::DimMismatch { left: l, right: r })
    }
}

/// Validates a dimension map; returns the new number of dimensions.
pub(crate) fn check_map(map: &[Option<Dim>], dims: usize) -> Result<usize> {
    check_same(dims, map.len())?;
    let k = map.iter().flatten().count();
    let mut seen = vec![false; k];
    for &t in map.iter().flatten() {
        match seen.get_mut(t.index()) {
            Some(s) if !*s => *s = true,
            _ => {
                return Err(DomainError::InvalidArgument(format!(
                    "dimension map targets must be a permutation of 0..{k}"
                )))
            }
        }
    }
    Ok(k)
}

/// What `e ≠ 0` adds to a convex value on which `e` has the bounds `b`: the convex hull of
/// the value minus the hyperplane.
pub(crate) enum NeHull {
    /// `e = 0` everywhere: nothing is left.
    Bottom,
    /// Over integers, `e ≥ 0` (or `≤ 0`) tightens to `e ≥ 1` (`≤ -1`): this `≤ 0` form.
    Le(LinExpr),
    /// The hull is the value itself.
    Same,
}

pub(crate) fn ne_hull(b: Interval, e: &LinExpr, integral: bool) -> NeHull {
    let zero = Bound::int(0);
    if b.is_empty() {
        NeHull::Same
    } else if b.lower == zero && b.upper == zero {
        NeHull::Bottom
    } else if integral && b.lower == zero {
        // e ≥ 0 ∧ e ≠ 0 ⇒ e ≥ 1, i.e. -e + 1 ≤ 0
        e.checked_neg()
            .and_then(|x| x.checked_add_constant(1))
            .map_or(NeHull::Same, NeHull::Le)
    } else if integral && b.upper == zero {
        e.checked_add_constant(1).map_or(NeHull::Same, NeHull::Le)
    } else {
        NeHull::Same
    }
}

/// The integer flags of a value combined from two: a dimension stays integer only if it is
/// integer in both (real is the safe reading).
pub(crate) fn merged_ints(a: &[bool], b: &[bool]) -> Vec<bool> {
    a.iter().zip(b).map(|(x, y)| *x && *y).collect()
}

/// Validates a removal list; returns it sorted without duplicates.
pub(crate) fn check_remove(ds: &[Dim], dims: usize) -> Result<Vec<Dim>> {
    let mut v = ds.to_vec();
    v.sort_unstable();
    v.dedup();
    if let Some(&d) = v.last() {
        check_dim(d, dims)?;
    }
    Ok(v)
}

// ---------------------------------------------------------------------------
// Run-time choice of backend

/// The available backends.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub enum DomainKind {
    Polyhedra,
    /// The native octagons ([`NativeOctagons`]).
    Octagon,
    Interval,
    /// PPL's octagons ([`Octagons`]), kept to check the native ones against.
    PplOctagon,
}

impl DomainKind {
    pub const ALL: [DomainKind; 4] = [
        DomainKind::Polyhedra,
        DomainKind::Octagon,
        DomainKind::Interval,
        DomainKind::PplOctagon,
    ];

    /// The name used on the command line (`--domain NAME`).
    pub fn name(self) -> &'static str {
        match self {
            DomainKind::Polyhedra => "polyhedra",
            DomainKind::Octagon => "octagon",
            DomainKind::Interval => "interval",
            DomainKind::PplOctagon => "octagon-ppl",
        }
    }

    /// The universe over `dims` integer dimensions.
    pub fn top(self, dims: usize) -> Result<AnyDomain> {
        self.top_budgeted(dims, None)
    }

    /// The universe over `dims` integer dimensions whose operations (and those of every value
    /// derived from it) each get at most `budget` units of work: PPL's units for the PPL
    /// backends, matrix cell updates of a closure from scratch for the native octagons; the
    /// interval domain needs none (its operations are linear).
    pub fn top_budgeted(self, dims: usize, budget: Option<u64>) -> Result<AnyDomain> {
        let w = budget.unwrap_or(0);
        Ok(match self {
            DomainKind::Polyhedra => AnyDomain::Polyhedra(Polyhedra::top_budgeted(dims, w)?),
            DomainKind::Octagon => AnyDomain::Octagon(NativeOctagons::top_budgeted(dims, w)?),
            DomainKind::Interval => AnyDomain::Interval(Intervals::top(dims)?),
            DomainKind::PplOctagon => AnyDomain::PplOctagon(Octagons::top_budgeted(dims, w)?),
        })
    }

    /// The empty set over `dims` integer dimensions.
    pub fn bottom(self, dims: usize) -> Result<AnyDomain> {
        Ok(match self {
            DomainKind::Polyhedra => AnyDomain::Polyhedra(Polyhedra::bottom(dims)?),
            DomainKind::Octagon => AnyDomain::Octagon(NativeOctagons::bottom(dims)?),
            DomainKind::Interval => AnyDomain::Interval(Intervals::bottom(dims)?),
            DomainKind::PplOctagon => AnyDomain::PplOctagon(Octagons::bottom(dims)?),
        })
    }
}

impl fmt::Display for DomainKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for DomainKind {
    type Err = DomainError;
    fn from_str(s: &str) -> Result<DomainKind> {
        DomainKind::ALL
            .into_iter()
            .find(|k| k.name() == s)
            .ok_or_else(|| DomainError::UnknownBackend(s.to_string()))
    }
}

/// The universe over `dims` integer dimensions of the backend called `name`
/// (`polyhedra`, `octagon`, `interval` or `octagon-ppl`).
pub fn make_domain(name: &str, dims: usize) -> Result<AnyDomain> {
    name.parse::<DomainKind>()?.top(dims)
}

/// A value of any backend, chosen at run time.
#[derive(Clone, Debug)]
pub enum AnyDomain {
    Polyhedra(Polyhedra),
    Octagon(NativeOctagons),
    Interval(Intervals),
    PplOctagon(Octagons),
}

macro_rules! each {
    ($s:expr, $d:ident => $e:expr) => {
        match $s {
            AnyDomain::Polyhedra($d) => $e,
            AnyDomain::Octagon($d) => $e,
            AnyDomain::Interval($d) => $e,
            AnyDomain::PplOctagon($d) => $e,
        }
    };
}

macro_rules! each_new {
    ($s:expr, $d:ident => $e:expr) => {
        match $s {
            AnyDomain::Polyhedra($d) => AnyDomain::Polyhedra($e),
            AnyDomain::Octagon($d) => AnyDomain::Octagon($e),
            AnyDomain::Interval($d) => AnyDomain::Interval($e),
            AnyDomain::PplOctagon($d) => AnyDomain::PplOctagon($e),
        }
    };
}

macro_rules! pair {
    ($a:expr, $b:expr, ($x:ident, $y:ident) => $e:expr, $wrap:ident) => {
        match ($a, $b) {
            (AnyDomain::Polyhedra($x), AnyDomain::Polyhedra($y)) => $wrap!(Polyhedra, $e),
            (AnyDomain::Octagon($x), AnyDomain::Octagon($y)) => $wrap!(Octagon, $e),
            (AnyDomain::Interval($x), AnyDomain::Interval($y)) => $wrap!(Interval, $e),
            (AnyDomain::PplOctagon($x), AnyDomain::PplOctagon($y)) => $wrap!(PplOctagon, $e),
            (a, b) => Err(DomainError::KindMismatch {
                left: a.kind(),
                right: b.kind(),
            }),
        }
    };
}

macro_rules! wrap_value {
    ($v:ident, $e:expr) => {
        Ok(AnyDomain::$v($e?))
    };
}

macro_rules! plain {
    ($v:ident, $e:expr) => {
        $e
    };
}

impl NumDomain for AnyDomain {
    fn kind(&self) -> DomainKind {
        match self {
            AnyDomain::Polyhedra(_) => DomainKind::Polyhedra,
            AnyDomain::Octagon(_) => DomainKind::Octagon,
            AnyDomain::Interval(_) => DomainKind::Interval,
            AnyDomain::PplOctagon(_) => DomainKind::PplOctagon,
        }
    }
    fn dims(&self) -> usize {
        each!(self, d => d.dims())
    }
    fn top_like(&self, dims: usize) -> Result<Self> {
        Ok(each_new!(self, d => d.top_like(dims)?))
    }
    fn bottom_like(&self, dims: usize) -> Result<Self> {
        Ok(each_new!(self, d => d.bottom_like(dims)?))
    }
    fn is_integer(&self, dim: Dim) -> bool {
        each!(self, d => d.is_integer(dim))
    }
    fn set_integer(&mut self, dim: Dim, integer: bool) -> Result<()> {
        each!(self, d => d.set_integer(dim, integer))
    }
    fn add_dims(&mut self, n: usize, integer: bool) -> Result<()> {
        each!(self, d => d.add_dims(n, integer))
    }
    fn remove_dims(&mut self, dims: &[Dim]) -> Result<()> {
        each!(self, d => d.remove_dims(dims))
    }
    fn map_dims(&mut self, map: &[Option<Dim>]) -> Result<()> {
        each!(self, d => d.map_dims(map))
    }
    fn forget(&mut self, dim: Dim) -> Result<()> {
        each!(self, d => d.forget(dim))
    }
    fn assign_linear(&mut self, dim: Dim, e: &LinExpr) -> Result<()> {
        each!(self, d => d.assign_linear(dim, e))
    }
    fn assign_expr(&mut self, dim: Dim, e: &Expr) -> Result<()> {
        each!(self, d => d.assign_expr(dim, e))
    }
    fn meet_constraint(&mut self, c: &LinConstraint) -> Result<()> {
        each!(self, d => d.meet_constraint(c))
    }
    fn meet(&self, other: &Self) -> Result<Self> {
        pair!(self, other, (a, b) => a.meet(b), wrap_value)
    }
    fn join(&self, other: &Self) -> Result<Self> {
        pair!(self, other, (a, b) => a.join(b), wrap_value)
    }
    fn join_assign(&mut self, other: &Self) -> Result<()> {
        match (self, other) {
            (AnyDomain::Polyhedra(a), AnyDomain::Polyhedra(b)) => a.join_assign(b),
            (AnyDomain::Octagon(a), AnyDomain::Octagon(b)) => a.join_assign(b),
            (AnyDomain::Interval(a), AnyDomain::Interval(b)) => a.join_assign(b),
            (AnyDomain::PplOctagon(a), AnyDomain::PplOctagon(b)) => a.join_assign(b),
            (a, b) => Err(DomainError::KindMismatch {
                left: a.kind(),
                right: b.kind(),
            }),
        }
    }
    fn widen(&self, newer: &Self) -> Result<Self> {
        pair!(self, newer, (a, b) => a.widen(b), wrap_value)
    }
    fn widen_with_thresholds(&self, newer: &Self, thresholds: &[LinConstraint]) -> Result<Self> {
        pair!(self, newer, (a, b) => a.widen_with_thresholds(b, thresholds), wrap_value)
    }
    fn leq(&self, other: &Self) -> Result<bool> {
        pair!(self, other, (a, b) => a.leq(b), plain)
    }
    fn equals(&self, other: &Self) -> Result<bool> {
        pair!(self, other, (a, b) => a.equals(b), plain)
    }
    fn is_bottom(&self) -> Result<bool> {
        each!(self, d => d.is_bottom())
    }
    fn is_top(&self) -> Result<bool> {
        each!(self, d => d.is_top())
    }
    fn bounds(&self, e: &LinExpr) -> Result<Interval> {
        each!(self, d => d.bounds(e))
    }
    fn entails(&self, c: &LinConstraint) -> Result<bool> {
        each!(self, d => d.entails(c))
    }
    fn constraints(&self) -> Result<Vec<LinConstraint>> {
        each!(self, d => d.constraints())
    }
    fn integer_point(&self) -> Result<Option<Vec<i128>>> {
        each!(self, d => d.integer_point())
    }
    fn contains_point(&self, p: &[i128]) -> Result<bool> {
        each!(self, d => d.contains_point(p))
    }
}
