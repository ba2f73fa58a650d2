//! Bounds of the octagon matrix: [`Ub`], an upper bound that is a rational over `i128` or
//! +∞, and the interval arithmetic on [`Bound`]s the non-octagonal operations use.
//!
//! Every operation is checked: an upper bound that overflows becomes +∞, a lower bound -∞
//! (outwards, never inwards).

use crate::num::{Bound, Interval, Rat};

/// An upper bound: the rational `n/d` in lowest terms with `d > 0`, or +∞
/// (`d == 0`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) struct Ub {
    pub(super) n: i128,
    pub(super) d: i128,
}

pub(super) const INF: Ub = Ub { n: 1, d: 0 };
pub(super) const ZERO: Ub = Ub { n: 0, d: 1 };

impl Ub {
    /// The integer `v`; `i128::MIN`, which [`Rat`] cannot hold, as +∞ (an upper bound may
    /// always move outwards).
    pub(super) fn int(v: i128) -> Ub {
        if v == i128::MIN {
            INF
        } else {
            Ub { n: v, d: 1 }
        }
    }

    pub(super) fn of(r: Rat) -> Ub {
        Ub {
            n: r.num(),
            d: r.den(),
        }
    }

    /// A finite bound, or +∞ when the computation overflowed.
    pub(super) fn or_inf(r: Option<Rat>) -> Ub {
        r.map_or(INF, Ub::of)
    }

    pub(super) fn is_inf(self) -> bool {
        self.d == 0
    }

    pub(super) fn rat(self) -> Option<Rat> {
        (!self.is_inf()).then(|| Rat::from_parts(self.n, self.d))
    }

    pub(super) fn is_neg(self) -> bool {
        !self.is_inf() && self.n < 0
    }

    pub(super) fn add(self, o: Ub) -> Ub {
        if self.d == 1 && o.d == 1 {
            return self.n.checked_add(o.n).map_or(INF, Ub::int);
        }
        match (self.rat(), o.rat()) {
            (Some(a), Some(b)) => Ub::or_inf(a.checked_add(b)),
            _ => INF,
        }
    }

    pub(super) fn lt(self, o: Ub) -> bool {
        match (self.is_inf(), o.is_inf()) {
            (_, true) => !self.is_inf(),
            (true, false) => false,
            _ if self.d == 1 && o.d == 1 => self.n < o.n,
            _ => self.rat() < o.rat(),
        }
    }

    pub(super) fn le(self, o: Ub) -> bool {
        !o.lt(self)
    }

    pub(super) fn min(self, o: Ub) -> Ub {
        if o.lt(self) {
            o
        } else {
            self
        }
    }

    pub(super) fn max(self, o: Ub) -> Ub {
        if self.lt(o) {
            o
        } else {
            self
        }
    }

    pub(super) fn scale(self, k: Rat) -> Ub {
        Ub::or_inf(self.rat().and_then(|r| r.checked_mul(k)))
    }

    pub(super) fn half(self) -> Ub {
        if self.d == 1 && self.n % 2 == 0 {
            Ub::int(self.n / 2)
        } else {
            self.scale(Rat::from_parts(1, 2))
        }
    }

    pub(super) fn double(self) -> Ub {
        if self.d == 1 {
            self.n.checked_mul(2).map_or(INF, Ub::int)
        } else {
            self.scale(Rat::int(2))
        }
    }

    pub(super) fn floor(self) -> Ub {
        if self.is_inf() || self.d == 1 {
            self
        } else {
            Ub::int(self.n.div_euclid(self.d))
        }
    }

    /// `2·⌊self/2⌋`: the tight bound of `2x` for an integer `x`.
    pub(super) fn floor_even(self) -> Ub {
        if self.d == 1 {
            Ub::int(self.n - self.n.rem_euclid(2))
        } else {
            self.half().floor().double()
        }
    }

    /// `-self` as a lower bound.
    pub(super) fn neg_lower(self) -> Bound {
        match self.rat().and_then(Rat::checked_neg) {
            Some(r) => Bound::Finite(r),
            None => Bound::NegInf,
        }
    }

    pub(super) fn upper(self) -> Bound {
        self.rat().map_or(Bound::PosInf, Bound::Finite)
    }
}

pub(super) fn neg_bound(b: Bound) -> Bound {
    match b {
        Bound::PosInf => Bound::NegInf,
        Bound::NegInf => Bound::PosInf,
        Bound::Finite(r) => r.checked_neg().map_or(Bound::NegInf, Bound::Finite),
    }
}

pub(super) fn add_lower(a: Bound, b: Bound) -> Bound {
    match (a, b) {
        (Bound::Finite(x), Bound::Finite(y)) => {
            x.checked_add(y).map_or(Bound::NegInf, Bound::Finite)
        }
        _ => Bound::NegInf,
    }
}

pub(super) fn add_upper(a: Bound, b: Bound) -> Bound {
    match (a, b) {
        (Bound::Finite(x), Bound::Finite(y)) => {
            x.checked_add(y).map_or(Bound::PosInf, Bound::Finite)
        }
        _ => Bound::PosInf,
    }
}

/// `[a·lo, a·hi]` (ordered), each side moved outwards on overflow.
pub(super) fn scale_interval(i: Interval, a: i128) -> (Bound, Bound) {
    let mul = |b: Bound, outward_up: bool| -> Bound {
        let flip = a < 0;
        match b {
            Bound::Finite(r) => match r.checked_mul(Rat::int(a)) {
                Some(v) => Bound::Finite(v),
                None if outward_up => Bound::PosInf,
                None => Bound::NegInf,
            },
            Bound::PosInf if flip => Bound::NegInf,
            Bound::NegInf if flip => Bound::PosInf,
            other => other,
        }
    };
    if a >= 0 {
        (mul(i.lower, false), mul(i.upper, true))
    } else {
        (mul(i.upper, false), mul(i.lower, true))
    }
}
