//! Exact numbers used at the domain interface: rationals over `i128` and
//! extended bounds (±∞).
//!
//! Takes: values coming out of a backend (PPL suprema, interval bounds).
//! Gives: [`Rat`], [`Bound`] and [`Interval`], the currency of
//! [`NumDomain::bounds`](crate::NumDomain::bounds).
//!
//! Every operation is checked: on `i128` overflow it reports `None`, and the
//! callers then move the affected bound *outwards* (to ±∞), never inwards —
//! an imprecise answer is acceptable, an unsound one is not.

use std::cmp::Ordering;
use std::fmt;

/// A rational number `num/den` in lowest terms with `den > 0`.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Rat {
    num: i128,
    den: i128,
}

/// Greatest common divisor of the magnitudes; `0` only for `gcd(0, 0)`.
/// In the one unrepresentable case (`2¹²⁷`, from `i128::MIN` operands) it
/// returns 1, which is still a common divisor: callers that divide by the
/// result stay exact, they just do not simplify.
pub(crate) fn gcd(a: i128, b: i128) -> i128 {
    // Works on magnitudes; `unsigned_abs` avoids the `i128::MIN` trap.
    let (mut x, mut y) = (a.unsigned_abs(), b.unsigned_abs());
    while y != 0 {
        let t = x % y;
        x = y;
        y = t;
    }
    i128::try_from(x).unwrap_or(1)
}

impl Rat {
    /// `num/den`, normalised; `None` if `den == 0` or normalisation overflows.
    pub fn new(num: i128, den: i128) -> Option<Rat> {
        if den == 0 || num == i128::MIN || den == i128::MIN {
            return None;
        }
        let g = gcd(num, den).max(1);
        let (mut n, mut d) = (num / g, den / g);
        if d < 0 {
            n = n.checked_neg()?;
            d = d.checked_neg()?;
        }
        Some(Rat { num: n, den: d })
    }

    /// `num/den` already in lowest terms with `den > 0` (the caller's invariant, checked in
    /// debug builds): the backends that store rationals unpacked rebuild them without a gcd.
    pub(crate) fn from_parts(num: i128, den: i128) -> Rat {
        debug_assert!(den > 0 && gcd(num, den) == 1 && num != i128::MIN);
        Rat { num, den }
    }

    /// The integer `n`.
    pub const fn int(n: i128) -> Rat {
        Rat { num: n, den: 1 }
    }

    /// The numerator (sign carrier).
    pub fn num(self) -> i128 {
        self.num
    }

    /// The denominator (always positive).
    pub fn den(self) -> i128 {
        self.den
    }

    /// True if the denominator is 1.
    pub fn is_integer(self) -> bool {
        self.den == 1
    }

    /// Largest integer `<= self`.
    pub fn floor(self) -> i128 {
        self.num.div_euclid(self.den)
    }

    /// Smallest integer `>= self`.
    pub fn ceil(self) -> i128 {
        let f = self.floor();
        if self.num.rem_euclid(self.den) == 0 {
            f
        } else {
            f + 1
        }
    }

    /// Rounds towards zero (C integer division semantics).
    pub fn trunc(self) -> i128 {
        if self.num >= 0 {
            self.floor()
        } else {
            self.ceil()
        }
    }

    /// Sign: -1, 0 or 1.
    pub fn signum(self) -> i128 {
        self.num.signum()
    }

    pub fn checked_neg(self) -> Option<Rat> {
        Some(Rat {
            num: self.num.checked_neg()?,
            den: self.den,
        })
    }

    pub fn checked_add(self, o: Rat) -> Option<Rat> {
        let g = gcd(self.den, o.den).max(1);
        let l = (self.den / g).checked_mul(o.den)?;
        let a = self.num.checked_mul(l / self.den)?;
        let b = o.num.checked_mul(l / o.den)?;
        Rat::new(a.checked_add(b)?, l)
    }

    pub fn checked_sub(self, o: Rat) -> Option<Rat> {
        self.checked_add(o.checked_neg()?)
    }

    pub fn checked_mul(self, o: Rat) -> Option<Rat> {
        // Cross-cancel first to keep intermediate values small.
        let g1 = gcd(self.num, o.den).max(1);
        let g2 = gcd(o.num, self.den).max(1);
        let n = (self.num / g1).checked_mul(o.num / g2)?;
        let d = (self.den / g2).checked_mul(o.den / g1)?;
        Rat::new(n, d)
    }

    pub fn checked_div(self, o: Rat) -> Option<Rat> {
        if o.num == 0 {
            return None;
        }
        self.checked_mul(Rat::new(o.den, o.num)?)
    }
}

impl Ord for Rat {
    fn cmp(&self, other: &Self) -> Ordering {
        // Compare without cross-multiplying (which can overflow): compare
        // integer parts, then the fractional parts by the Euclid-style
        // recursion a/b < c/d  <=>  d/c < b/a  for fractions in (0, 1).
        let (fa, fb) = (self.floor(), other.floor());
        if fa != fb {
            return fa.cmp(&fb);
        }
        let (mut n1, mut d1) = (self.num.rem_euclid(self.den), self.den);
        let (mut n2, mut d2) = (other.num.rem_euclid(other.den), other.den);
        let mut flipped = false;
        loop {
            // Both fractions n/d lie in [0, 1).
            let ord = match (n1 == 0, n2 == 0) {
                (true, true) => Some(Ordering::Equal),
                (true, false) => Some(Ordering::Less),
                (false, true) => Some(Ordering::Greater),
                (false, false) => None,
            };
            if let Some(o) = ord {
                return if flipped { o.reverse() } else { o };
            }
            // Invert: n1/d1 vs n2/d2  <=>  d2/n2 vs d1/n1 (reversed).
            let (q1, r1) = (d1 / n1, d1 % n1);
            let (q2, r2) = (d2 / n2, d2 % n2);
            flipped = !flipped;
            if q1 != q2 {
                let o = q1.cmp(&q2);
                return if flipped { o.reverse() } else { o };
            }
            (n1, d1, n2, d2) = (r1, n1, r2, n2);
        }
    }
}

impl PartialOrd for Rat {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl fmt::Display for Rat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.den == 1 {
            write!(f, "{}", self.num)
        } else {
            write!(f, "{}/{}", self.num, self.den)
        }
    }
}

impl fmt::Debug for Rat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl From<i128> for Rat {
    fn from(n: i128) -> Rat {
        Rat::int(n)
    }
}

/// An extended rational: `-∞`, a finite rational, or `+∞`.
/// The derived order is the natural one (`NegInf < Finite(_) < PosInf`).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub enum Bound {
    NegInf,
    Finite(Rat),
    PosInf,
}

impl Bound {
    /// The finite value, if any.
    pub fn finite(self) -> Option<Rat> {
        match self {
            Bound::Finite(r) => Some(r),
            _ => None,
        }
    }

    pub fn int(n: i128) -> Bound {
        Bound::Finite(Rat::int(n))
    }
}

impl fmt::Display for Bound {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Bound::NegInf => write!(f, "-oo"),
            Bound::PosInf => write!(f, "+oo"),
            Bound::Finite(r) => write!(f, "{r}"),
        }
    }
}

/// A closed interval `[lower, upper]` of extended rationals; empty when
/// `lower > upper` (the bounds of an expression over a bottom value).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Interval {
    pub lower: Bound,
    pub upper: Bound,
}

impl Interval {
    pub const TOP: Interval = Interval {
        lower: Bound::NegInf,
        upper: Bound::PosInf,
    };
    pub const EMPTY: Interval = Interval {
        lower: Bound::PosInf,
        upper: Bound::NegInf,
    };

    pub fn new(lower: Bound, upper: Bound) -> Interval {
        Interval { lower, upper }
    }

    pub fn point(r: Rat) -> Interval {
        Interval::new(Bound::Finite(r), Bound::Finite(r))
    }

    pub fn is_empty(&self) -> bool {
        self.lower > self.upper
    }

    /// The single value, if the interval is a point.
    pub fn as_point(&self) -> Option<Rat> {
        match (self.lower, self.upper) {
            (Bound::Finite(a), Bound::Finite(b)) if a == b => Some(a),
            _ => None,
        }
    }

    pub fn contains(&self, r: Rat) -> bool {
        self.lower <= Bound::Finite(r) && Bound::Finite(r) <= self.upper
    }

    /// Smallest interval containing both.
    pub fn hull(&self, o: &Interval) -> Interval {
        if self.is_empty() {
            return *o;
        }
        if o.is_empty() {
            return *self;
        }
        Interval::new(self.lower.min(o.lower), self.upper.max(o.upper))
    }

    /// Whether every value `v` of the interval satisfies `v ⋈ 0` (`true` when it is empty).
    pub fn satisfies(&self, kind: crate::linear::ConstraintKind) -> bool {
        use crate::linear::ConstraintKind::*;
        let zero = Bound::int(0);
        self.is_empty()
            || match kind {
                Eq => self.lower == zero && self.upper == zero,
                Le => self.upper <= zero,
                Lt => self.upper < zero,
                Ge => self.lower >= zero,
                Gt => self.lower > zero,
                Ne => self.upper < zero || self.lower > zero,
            }
    }

    /// Rounds the bounds inwards to integers: valid when the expression only
    /// takes integer values (integer coefficients over integer dimensions).
    pub fn round_to_integers(self) -> Interval {
        let lower = match self.lower {
            Bound::Finite(r) => Bound::int(r.ceil()),
            b => b,
        };
        let upper = match self.upper {
            Bound::Finite(r) => Bound::int(r.floor()),
            b => b,
        };
        Interval::new(lower, upper)
    }
}

impl fmt::Display for Interval {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_empty() {
            write!(f, "empty")
        } else {
            write!(f, "[{}, {}]", self.lower, self.upper)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rat_basics() {
        let a = Rat::new(6, -4).unwrap();
        assert_eq!((a.num(), a.den()), (-3, 2));
        assert_eq!(a.floor(), -2);
        assert_eq!(a.ceil(), -1);
        assert_eq!(a.trunc(), -1);
        assert_eq!(Rat::new(7, 2).unwrap().trunc(), 3);
        assert!(Rat::new(1, 3).unwrap() < Rat::new(1, 2).unwrap());
        assert!(Rat::new(-1, 3).unwrap() > Rat::new(-1, 2).unwrap());
        let big = Rat::new(i128::MAX - 1, i128::MAX).unwrap();
        let big2 = Rat::new(i128::MAX - 2, i128::MAX - 1).unwrap();
        assert!(big2 < big);
        assert_eq!(
            Rat::new(1, 6)
                .unwrap()
                .checked_add(Rat::new(1, 3).unwrap())
                .unwrap(),
            Rat::new(1, 2).unwrap()
        );
        assert!(Rat::int(i128::MAX).checked_add(Rat::int(1)).is_none());
        assert_eq!(gcd(i128::MIN, 0), 1);
        assert_eq!(gcd(i128::MIN, 6), 2);
    }

    #[test]
    fn rat_order_matches_cross_multiplication() {
        for a in -7..7 {
            for b in 1..7 {
                for c in -7..7 {
                    for d in 1..7 {
                        let x = Rat::new(a, b).unwrap();
                        let y = Rat::new(c, d).unwrap();
                        assert_eq!(x.cmp(&y), (a * d).cmp(&(c * b)), "{x} vs {y}");
                    }
                }
            }
        }
    }

    #[test]
    fn interval_ops() {
        let i = Interval::new(Bound::Finite(Rat::new(1, 2).unwrap()), Bound::PosInf);
        assert_eq!(i.round_to_integers().lower, Bound::int(1));
        assert!(Interval::EMPTY.is_empty());
        assert!(!Interval::TOP.is_empty());
        assert!(Bound::NegInf < Bound::int(-5) && Bound::int(5) < Bound::PosInf);
    }
}
