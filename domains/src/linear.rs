//! Linear expressions and constraints over numbered dimensions.
//!
//! Takes: what the client builds from program expressions and conditions.
//! Gives: [`LinExpr`] (`Σ aᵢ·xᵢ + c`, integer coefficients), [`LinConstraint`]
//! (`expr ⋈ 0` with `⋈ ∈ {=, ≤, <, ≥, >, ≠}`), their readable text, and the
//! normal form every backend consumes (strict inequalities over integers
//! tightened to `≤ … - 1`, gcd tightening over integers).
//!
//! Coefficients are `i128`: C constants (up to `u64::MAX`) fit, and every
//! arithmetic step is checked so that an overflow can be handled soundly by
//! the caller (a meet ignores the constraint, an assignment forgets the
//! target) instead of wrapping.

use std::fmt;

use crate::num::gcd;

/// Index of a dimension (a program variable) in an abstract value.
///
/// A typed index, distinct from dimension *counts* (which stay `usize`).
/// Prints as the bare number.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Dim(usize);

impl Dim {
    /// The dimension with index `i`.
    pub const fn new(i: usize) -> Dim {
        Dim(i)
    }

    /// The index of this dimension.
    pub const fn index(self) -> usize {
        self.0
    }
}

impl fmt::Display for Dim {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0, f)
    }
}

/// `Σ aᵢ·xᵢ + c` with integer coefficients. Terms are kept sorted by
/// dimension with no zero coefficient, so equal expressions compare equal.
#[derive(Clone, PartialEq, Eq, Hash, Default)]
pub struct LinExpr {
    terms: Vec<(Dim, i128)>,
    constant: i128,
}

impl LinExpr {
    /// The constant 0.
    pub fn zero() -> LinExpr {
        LinExpr::default()
    }

    /// The constant `c`.
    pub fn constant(c: i128) -> LinExpr {
        LinExpr {
            terms: Vec::new(),
            constant: c,
        }
    }

    /// The variable `x_d`.
    pub fn var(d: Dim) -> LinExpr {
        LinExpr::term(1, d)
    }

    /// `a·x_d`.
    pub fn term(a: i128, d: Dim) -> LinExpr {
        let terms = if a == 0 { Vec::new() } else { vec![(d, a)] };
        LinExpr { terms, constant: 0 }
    }

    /// `Σ a·x_d + c` from `(a, d)` pairs; repeated dimensions are summed.
    /// `None` on overflow.
    pub fn from_terms(terms: &[(i128, Dim)], c: i128) -> Option<LinExpr> {
        let mut e = LinExpr::constant(c);
        for &(a, d) in terms {
            e = e.checked_add(&LinExpr::term(a, d))?;
        }
        Some(e)
    }

    /// The `(dimension, coefficient)` pairs, sorted by dimension, no zeros.
    pub fn terms(&self) -> &[(Dim, i128)] {
        &self.terms
    }

    /// The constant term `c`.
    pub fn constant_term(&self) -> i128 {
        self.constant
    }

    /// The coefficient of `x_d` (0 if absent).
    pub fn coeff(&self, d: Dim) -> i128 {
        self.terms
            .binary_search_by_key(&d, |t| t.0)
            .map_or(0, |i| self.terms[i].1)
    }

    /// True when no variable occurs.
    pub fn is_constant(&self) -> bool {
        self.terms.is_empty()
    }

    /// The highest dimension that occurs.
    pub fn max_dim(&self) -> Option<Dim> {
        self.terms.last().map(|t| t.0)
    }

    /// The dimensions that occur, ascending.
    pub fn dims(&self) -> impl Iterator<Item = Dim> + '_ {
        self.terms.iter().map(|t| t.0)
    }

    pub fn checked_add(&self, o: &LinExpr) -> Option<LinExpr> {
        let mut terms = Vec::with_capacity(self.terms.len() + o.terms.len());
        let (mut i, mut j) = (0, 0);
        while i < self.terms.len() || j < o.terms.len() {
            let a = self.terms.get(i);
            let b = o.terms.get(j);
            match (a, b) {
                (Some(&(da, ca)), Some(&(db, cb))) if da == db => {
                    let s = ca.checked_add(cb)?;
                    if s != 0 {
                        terms.push((da, s));
                    }
                    i += 1;
                    j += 1;
                }
                (Some(&(da, ca)), Some(&(db, _))) if da < db => {
                    terms.push((da, ca));
                    i += 1;
                }
                (Some(&(da, ca)), None) => {
                    terms.push((da, ca));
                    i += 1;
                }
                (_, Some(&(db, cb))) => {
                    terms.push((db, cb));
                    j += 1;
                }
                (None, None) => break,
            }
        }
        Some(LinExpr {
            terms,
            constant: self.constant.checked_add(o.constant)?,
        })
    }

    pub fn checked_scale(&self, k: i128) -> Option<LinExpr> {
        if k == 0 {
            return Some(LinExpr::zero());
        }
        let mut terms = Vec::with_capacity(self.terms.len());
        for &(d, a) in &self.terms {
            terms.push((d, a.checked_mul(k)?));
        }
        Some(LinExpr {
            terms,
            constant: self.constant.checked_mul(k)?,
        })
    }

    pub fn checked_neg(&self) -> Option<LinExpr> {
        self.checked_scale(-1)
    }

    pub fn checked_sub(&self, o: &LinExpr) -> Option<LinExpr> {
        self.checked_add(&o.checked_neg()?)
    }

    pub fn checked_add_constant(&self, c: i128) -> Option<LinExpr> {
        let mut e = self.clone();
        e.constant = e.constant.checked_add(c)?;
        Some(e)
    }

    /// Exact division of every coefficient and the constant by `k`, if `k`
    /// divides them all.
    pub fn exact_div(&self, k: i128) -> Option<LinExpr> {
        if k == 0 {
            return None;
        }
        let mut terms = Vec::with_capacity(self.terms.len());
        for &(d, a) in &self.terms {
            if a.checked_rem(k)? != 0 {
                return None;
            }
            terms.push((d, a.checked_div(k)?));
        }
        if self.constant.checked_rem(k)? != 0 {
            return None;
        }
        Some(LinExpr {
            terms,
            constant: self.constant.checked_div(k)?,
        })
    }

    /// gcd of the variable coefficients (0 for a constant expression).
    pub fn coeff_gcd(&self) -> i128 {
        self.terms.iter().fold(0, |g, t| gcd(g, t.1))
    }

    /// The value at an integer point; `None` on overflow or if the point is
    /// too short.
    pub fn eval(&self, point: &[i128]) -> Option<i128> {
        let mut v = self.constant;
        for &(d, a) in &self.terms {
            v = v.checked_add(a.checked_mul(*point.get(d.index())?)?)?;
        }
        Some(v)
    }

    /// Text such as `2*x - y + 3`, dimensions named by `name`.
    pub fn to_text(&self, name: &dyn Fn(Dim) -> String) -> String {
        let mut s = String::new();
        for &(d, a) in &self.terms {
            push_term(&mut s, a, &name(d));
        }
        if self.constant != 0 || s.is_empty() {
            push_const(&mut s, self.constant);
        }
        s
    }
}

fn push_term(s: &mut String, a: i128, name: &str) {
    push_signed_term(s, a < 0, a.unsigned_abs(), name);
}

fn push_signed_term(s: &mut String, negative: bool, mag: u128, name: &str) {
    let first = s.is_empty();
    match (first, negative) {
        (true, true) => s.push('-'),
        (true, false) => {}
        (false, true) => s.push_str(" - "),
        (false, false) => s.push_str(" + "),
    }
    if mag != 1 {
        s.push_str(&format!("{mag}*"));
    }
    s.push_str(name);
}

fn push_const(s: &mut String, c: i128) {
    if s.is_empty() {
        s.push_str(&c.to_string());
    } else if c < 0 {
        s.push_str(&format!(" - {}", c.unsigned_abs()));
    } else {
        s.push_str(&format!(" + {c}"));
    }
}

impl fmt::Debug for LinExpr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.to_text(&|d| format!("x{d}")))
    }
}

/// The relation of a constraint `expr ⋈ 0`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub enum ConstraintKind {
    Eq,
    Le,
    Lt,
    Ge,
    Gt,
    /// `expr ≠ 0`: not convex; see [`LinConstraint::split_ne`].
    Ne,
}

impl ConstraintKind {
    /// The relation text (`=`, `<=`, `<`, `>=`, `>`, `!=`).
    pub fn symbol(self) -> &'static str {
        match self {
            ConstraintKind::Eq => "=",
            ConstraintKind::Le => "<=",
            ConstraintKind::Lt => "<",
            ConstraintKind::Ge => ">=",
            ConstraintKind::Gt => ">",
            ConstraintKind::Ne => "!=",
        }
    }

    /// The relation with sides swapped (`a ⋈ b` iff `b ⋈' a`).
    pub fn flip(self) -> ConstraintKind {
        match self {
            ConstraintKind::Le => ConstraintKind::Ge,
            ConstraintKind::Lt => ConstraintKind::Gt,
            ConstraintKind::Ge => ConstraintKind::Le,
            ConstraintKind::Gt => ConstraintKind::Lt,
            k => k,
        }
    }

    /// The logical complement (`¬(a ⋈ b)` iff `a ⋈' b`).
    pub fn complement(self) -> ConstraintKind {
        match self {
            ConstraintKind::Eq => ConstraintKind::Ne,
            ConstraintKind::Ne => ConstraintKind::Eq,
            ConstraintKind::Le => ConstraintKind::Gt,
            ConstraintKind::Lt => ConstraintKind::Ge,
            ConstraintKind::Ge => ConstraintKind::Lt,
            ConstraintKind::Gt => ConstraintKind::Le,
        }
    }

    fn holds(self, v: i128) -> bool {
        match self {
            ConstraintKind::Eq => v == 0,
            ConstraintKind::Le => v <= 0,
            ConstraintKind::Lt => v < 0,
            ConstraintKind::Ge => v >= 0,
            ConstraintKind::Gt => v > 0,
            ConstraintKind::Ne => v != 0,
        }
    }
}

/// A linear constraint `expr ⋈ 0`.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct LinConstraint {
    pub expr: LinExpr,
    pub kind: ConstraintKind,
}

impl LinConstraint {
    pub fn new(expr: LinExpr, kind: ConstraintKind) -> LinConstraint {
        LinConstraint { expr, kind }
    }

    /// `lhs ⋈ rhs`; `None` on coefficient overflow.
    pub fn compare(lhs: &LinExpr, kind: ConstraintKind, rhs: &LinExpr) -> Option<LinConstraint> {
        Some(LinConstraint::new(lhs.checked_sub(rhs)?, kind))
    }

    /// The constraint `false` (`-1 >= 0`).
    pub fn falsity() -> LinConstraint {
        LinConstraint::new(LinExpr::constant(-1), ConstraintKind::Ge)
    }

    /// The logical negation (`e ≤ 0` ↦ `e > 0`, `e = 0` ↦ `e ≠ 0`, …).
    pub fn negate(&self) -> LinConstraint {
        LinConstraint::new(self.expr.clone(), self.kind.complement())
    }

    /// Splits `e ≠ 0` into its two convex pieces: `[e ≤ -1, e ≥ 1]` when
    /// `integer` (the expression only takes integer values), otherwise
    /// `[e < 0, e > 0]`. `None` if the constraint is not a `≠` or on overflow.
    pub fn split_ne(&self, integer: bool) -> Option<[LinConstraint; 2]> {
        if self.kind != ConstraintKind::Ne {
            return None;
        }
        if integer {
            Some([
                LinConstraint::new(self.expr.checked_add_constant(1)?, ConstraintKind::Le),
                LinConstraint::new(self.expr.checked_add_constant(-1)?, ConstraintKind::Ge),
            ])
        } else {
            Some([
                LinConstraint::new(self.expr.clone(), ConstraintKind::Lt),
                LinConstraint::new(self.expr.clone(), ConstraintKind::Gt),
            ])
        }
    }

    /// Whether the constraint holds at an integer point (`None` on overflow).
    pub fn holds_at(&self, point: &[i128]) -> Option<bool> {
        Some(self.kind.holds(self.expr.eval(point)?))
    }

    /// Readable text: the highest dimension alone on the left with a positive
    /// coefficient, the rest on the right (`x' = x`, `y >= x - 3`,
    /// `x <= -1`); `true`/`false` for constant constraints.
    pub fn to_text(&self, name: &dyn Fn(Dim) -> String) -> String {
        let e = &self.expr;
        let Some(&(pivot, a)) = e.terms.last() else {
            return self.kind.holds(e.constant).to_string();
        };
        // Divide by the common factor of everything: exact over the reals.
        let g = e.terms.iter().fold(e.constant, |g, t| gcd(g, t.1)).max(1);
        let (sign, kind) = if a < 0 {
            (-1, self.kind.flip())
        } else {
            (1, self.kind)
        };
        let mut lhs = String::new();
        push_signed_term(&mut lhs, false, (a / g).unsigned_abs(), &name(pivot));
        // rhs = -sign·(rest)/g, built from signs and magnitudes so that no
        // negation can overflow.
        let mut rhs = String::new();
        for &(d, c) in &e.terms[..e.terms.len() - 1] {
            let c = c / g;
            push_signed_term(&mut rhs, (c > 0) == (sign > 0), c.unsigned_abs(), &name(d));
        }
        let k = e.constant / g;
        if k != 0 || rhs.is_empty() {
            let v = k.unsigned_abs();
            let neg = (k > 0) == (sign > 0);
            if rhs.is_empty() {
                rhs = if neg && v != 0 {
                    format!("-{v}")
                } else {
                    v.to_string()
                };
            } else if neg {
                rhs.push_str(&format!(" - {v}"));
            } else {
                rhs.push_str(&format!(" + {v}"));
            }
        }
        format!("{lhs} {} {rhs}", kind.symbol())
    }
}

/// A constraint after normalisation: what backends actually apply.
#[derive(Clone, PartialEq, Eq, Debug)]
pub(crate) enum Norm {
    True,
    False,
    /// `e ≤ 0`
    Le(LinExpr),
    /// `e = 0`
    Eq(LinExpr),
    /// `e ≠ 0` (convex over-approximation is the caller's business)
    Ne(LinExpr),
}

/// Normalises `c`. `integral` says that `c.expr` only takes integer values
/// (every dimension in it is an integer dimension); then `e < 0` becomes
/// `e + 1 ≤ 0` and coefficients are divided by their gcd with the constant
/// rounded soundly. Over the reals a strict inequality is replaced by its
/// closure — an over-approximation, since the closed backends cannot
/// express strictness. `None` on overflow (callers then skip the constraint,
/// which is sound for a meet).
pub(crate) fn normalize(c: &LinConstraint, integral: bool) -> Option<Norm> {
    use ConstraintKind as K;
    let e = &c.expr;
    if e.is_constant() {
        return Some(if c.kind.holds(e.constant) {
            Norm::True
        } else {
            Norm::False
        });
    }
    // Everything as `e ≤ 0`, `e < 0`, `e = 0`, `e ≠ 0`.
    let (e, strict, kind) = match c.kind {
        K::Le => (e.clone(), false, K::Le),
        K::Lt => (e.clone(), true, K::Le),
        K::Ge => (e.checked_neg()?, false, K::Le),
        K::Gt => (e.checked_neg()?, true, K::Le),
        K::Eq => (e.clone(), false, K::Eq),
        K::Ne => (e.clone(), false, K::Ne),
    };
    let e = if strict && integral {
        e.checked_add_constant(1)?
    } else {
        e
    };
    if !integral {
        return Some(match kind {
            K::Le => Norm::Le(e),
            K::Eq => Norm::Eq(e),
            _ => Norm::Ne(e),
        });
    }
    let g = e.coeff_gcd();
    let c0 = e.constant;
    let mut scaled = LinExpr {
        terms: e.terms.iter().map(|&(d, a)| (d, a / g)).collect(),
        constant: 0,
    };
    Some(match kind {
        K::Le => {
            // g·s + c ≤ 0  ⇔  s ≤ -c/g  ⇔  s ≤ floor(-c/g)  ⇔  s + ceil(c/g) ≤ 0
            scaled.constant = ceil_div(c0, g);
            Norm::Le(scaled)
        }
        K::Eq => {
            if c0 % g != 0 {
                Norm::False
            } else {
                scaled.constant = c0 / g;
                Norm::Eq(scaled)
            }
        }
        _ => {
            if c0 % g != 0 {
                Norm::True
            } else {
                scaled.constant = c0 / g;
                Norm::Ne(scaled)
            }
        }
    })
}

/// `ceil(a / b)` for `b > 0`.
fn ceil_div(a: i128, b: i128) -> i128 {
    let q = a.div_euclid(b);
    if a.rem_euclid(b) == 0 {
        q
    } else {
        q + 1
    }
}

/// Sorts readable constraints deterministically: by the dimension on the
/// left, then by the number of variables, then by text.
pub(crate) fn constraints_to_text(
    cs: &[LinConstraint],
    name: &dyn Fn(Dim) -> String,
) -> Vec<String> {
    let mut keyed: Vec<(Option<Dim>, usize, String)> = cs
        .iter()
        .map(|c| (c.expr.max_dim(), c.expr.terms().len(), c.to_text(name)))
        .collect();
    keyed.sort();
    keyed.dedup();
    keyed.into_iter().map(|k| k.2).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(d: Dim) -> String {
        ["x", "x'", "y"][d.index()].to_string()
    }

    fn c(terms: &[(i128, usize)], k: i128, kind: ConstraintKind) -> LinConstraint {
        let terms: Vec<(i128, Dim)> = terms.iter().map(|&(a, d)| (a, Dim::new(d))).collect();
        LinConstraint::new(LinExpr::from_terms(&terms, k).unwrap(), kind)
    }

    #[test]
    fn text() {
        use ConstraintKind::*;
        assert_eq!(c(&[(1, 0), (-1, 1)], 0, Eq).to_text(&names), "x' = x");
        assert_eq!(c(&[(1, 0)], 1, Le).to_text(&names), "x <= -1");
        assert_eq!(c(&[(1, 0), (-1, 2)], -3, Le).to_text(&names), "y >= x - 3");
        assert_eq!(c(&[(2, 0), (-4, 2)], 6, Ge).to_text(&names), "2*y <= x + 3");
        assert_eq!(c(&[(3, 1)], -7, Le).to_text(&names), "3*x' <= 7");
        assert_eq!(c(&[(-2, 0), (3, 1)], 0, Gt).to_text(&names), "3*x' > 2*x");
        assert_eq!(c(&[], -1, Ge).to_text(&names), "false");
        assert_eq!(c(&[(1, 0)], 0, Ne).to_text(&names), "x != 0");
        assert_eq!(c(&[(-1, 0)], 5, Ge).to_text(&names), "x <= 5");
    }

    #[test]
    fn normal_forms() {
        use ConstraintKind::*;
        // x < 0 over integers: x + 1 <= 0
        assert_eq!(
            normalize(&c(&[(1, 0)], 0, Lt), true),
            Some(Norm::Le(
                LinExpr::from_terms(&[(1, Dim::new(0))], 1).unwrap()
            ))
        );
        // over reals: closure
        assert_eq!(
            normalize(&c(&[(1, 0)], 0, Lt), false),
            Some(Norm::Le(LinExpr::var(Dim::new(0))))
        );
        // 2x + 4y >= 3  ->  -x - 2y + 2 <= 0   (x + 2y >= 3/2 → ≥ 2)
        assert_eq!(
            normalize(&c(&[(2, 0), (4, 1)], -3, Ge), true),
            Some(Norm::Le(
                LinExpr::from_terms(&[(-1, Dim::new(0)), (-2, Dim::new(1))], 2).unwrap()
            ))
        );
        assert_eq!(normalize(&c(&[(2, 0)], 1, Eq), true), Some(Norm::False));
        assert_eq!(normalize(&c(&[(2, 0)], 1, Ne), true), Some(Norm::True));
        assert_eq!(normalize(&c(&[], 1, Gt), true), Some(Norm::True));
    }

    #[test]
    fn expr_arith() {
        let a = LinExpr::from_terms(&[(1, Dim::new(2)), (3, Dim::new(0)), (-1, Dim::new(2))], 4)
            .unwrap();
        assert_eq!(a.terms(), &[(Dim::new(0), 3)]);
        assert_eq!(a.coeff(Dim::new(0)), 3);
        assert_eq!(a.coeff(Dim::new(2)), 0);
        let b = a.checked_sub(&LinExpr::term(3, Dim::new(0))).unwrap();
        assert!(b.is_constant());
        assert_eq!(b.constant_term(), 4);
        assert!(LinExpr::constant(i128::MAX)
            .checked_add_constant(1)
            .is_none());
        assert_eq!(a.eval(&[2]), Some(10));
        let s = c(&[(1, 0)], 0, ConstraintKind::Ne).split_ne(true).unwrap();
        assert_eq!(s[0].holds_at(&[-1]), Some(true));
        assert_eq!(s[1].holds_at(&[0]), Some(false));
    }
}
