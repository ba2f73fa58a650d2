//! The native octagon backend: Miné's octagons as a difference-bound matrix
//! over the nodes `+xᵢ`, `-xᵢ`, with rational bounds, in plain Rust.
//!
//! Takes: the [`NumDomain`] operations. Gives: [`NativeOctagons`], the
//! `octagon` domain — the same constraints as PPL's `Octagonal_Shape`
//! (`±x ≤ c`, `±x ± y ≤ c`) without the FFI, the process-wide PPL lock or
//! GMP numbers, so it runs on every core at once. `octagon-ppl` keeps PPL's
//! implementation beside it; `tests/octagon_vs_ppl.rs` checks that the two
//! agree wherever both are exact.
//!
//! Representation (Miné 2006; Bagnara, Hill, Zaffanella 2009): node `2i` is
//! `+xᵢ`, node `2i+1` is `-xᵢ`, and `m[a][b]` bounds `v_b - v_a`. Coherence
//! (`m[a][b] = m[b̄][ā]`) is built into the storage: only the lower half
//! (`b ≤ a|1`) is kept, so adding dimensions appends rows.
//!
//! Invariants: a value is `Bottom`, `Closed` (strongly closed, and tightly
//! closed over the integer dimensions: unary bounds of an integer dimension
//! are even, bounds between integer dimensions integral) or `Open` — only a
//! widening's result, whose matrix is kept as computed so that the next
//! widening (its left argument) cannot be undone by closure; every other
//! operation closes a copy first. Arithmetic is checked: a bound that
//! overflows `i128` becomes +∞ (an upper bound only ever moves outwards).
//!
//! Precision against PPL's octagons: the same on octagonal constraints,
//! assignments `x := ±y + c`, joins, projections and inclusion. For the rest
//! both approximate: a non-octagonal constraint adds the one- and
//! two-variable bounds it implies given the current value (PPL: one-variable
//! only); a non-octagonal assignment bounds `x`, `x - u` and `x + u` for the
//! variables `u` it reads by interval arithmetic; `bounds` of a non-octagonal
//! expression is interval arithmetic (PPL solves a linear program).

mod bound;
mod closure;
mod reduce;

use std::borrow::Cow;

use crate::domain::{
    check_dim, check_expr, check_map, check_remove, check_same, merged_ints, ne_hull, NeHull,
};
use crate::linear::{normalize, Dim, LinConstraint, LinExpr, Norm};
use crate::num::{Bound, Interval, Rat};
use crate::{DomainError, DomainKind, NumDomain, Result};
use bound::{add_lower, add_upper, neg_bound, scale_interval, Ub, INF, ZERO};

/// Largest number of dimensions accepted: the matrix holds `2n(n+1)` bounds
/// of 32 bytes (2048 dimensions: 270 MB).
const MAX_DIMS: usize = 2048;

/// Most terms of a non-octagonal constraint whose pairs are turned into
/// two-variable consequences (quadratic in the terms).
const PAIR_TERMS: usize = 8;

/// Where the half matrix keeps `m[a][b]` (or its coherent twin `m[b̄][ā]`).
#[inline]
fn idx(a: usize, b: usize) -> usize {
    if b <= (a | 1) {
        b + (a + 1) * (a + 1) / 2
    } else {
        (a ^ 1) + ((b ^ 1) + 1) * ((b ^ 1) + 1) / 2
    }
}

/// Length of the half matrix over `n` dimensions.
fn size(n: usize) -> usize {
    2 * n * (n + 1)
}

/// The node of `s·x_v` for a sign `s`.
fn node(v: usize, positive: bool) -> usize {
    2 * v + usize::from(!positive)
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Form {
    Bottom,
    Closed,
    Open,
}

/// Octagons: conjunctions of `±xᵢ ≤ c` and `±xᵢ ± xⱼ ≤ c` with rational `c`.
#[derive(Clone)]
pub struct NativeOctagons {
    ints: Vec<bool>,
    /// Work allowed per closure from scratch (matrix cell updates; 0: unbounded), see
    /// [`top_budgeted`](NativeOctagons::top_budgeted).
    budget: u64,
    /// The half matrix; empty when bottom.
    m: Vec<Ub>,
    form: Form,
}

impl std::fmt::Debug for NativeOctagons {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let text = self
            .to_strings::<&str>(&[])
            .unwrap_or_else(|e| vec![format!("<{e}>")]);
        write!(f, "octagon{{{}}}", text.join(", "))
    }
}

fn top_matrix(n: usize) -> Vec<Ub> {
    let mut m = vec![INF; size(n)];
    for a in 0..2 * n {
        m[idx(a, a)] = ZERO;
    }
    m
}

fn check_size(dims: usize) -> Result<()> {
    if dims > MAX_DIMS {
        return Err(DomainError::InvalidArgument(format!(
            "{dims} dimensions is more than the octagon domain supports ({MAX_DIMS})"
        )));
    }
    Ok(())
}

impl NativeOctagons {
    /// The universe over `dims` integer dimensions.
    pub fn top(dims: usize) -> Result<NativeOctagons> {
        Self::top_budgeted(dims, 0)
    }

    /// The universe over `dims` integer dimensions; each closure from scratch on it or on a
    /// value derived from it (after a meet of two values or a widening: `4n³` cell updates for
    /// `n` dimensions) may do at most `budget` updates (0: unbounded), else the operation fails
    /// with [`DomainError::Timeout`] and an in-place one leaves top, as a PPL backend does when
    /// its budget runs out. Incremental closures (`O(n²)`) are not counted.
    pub fn top_budgeted(dims: usize, budget: u64) -> Result<NativeOctagons> {
        check_size(dims)?;
        Ok(NativeOctagons {
            budget,
            ints: vec![true; dims],
            m: top_matrix(dims),
            form: Form::Closed,
        })
    }

    /// The empty set over `dims` integer dimensions.
    pub fn bottom(dims: usize) -> Result<NativeOctagons> {
        check_size(dims)?;
        Ok(NativeOctagons {
            budget: 0,
            ints: vec![true; dims],
            m: Vec::new(),
            form: Form::Bottom,
        })
    }

    fn n(&self) -> usize {
        self.ints.len()
    }

    #[inline]
    fn get(&self, a: usize, b: usize) -> Ub {
        self.m[idx(a, b)]
    }

    #[inline]
    fn set(&mut self, a: usize, b: usize, v: Ub) {
        self.m[idx(a, b)] = v;
    }

    /// `m[a][b] := min(m[a][b], v)`.
    #[inline]
    fn lower(&mut self, a: usize, b: usize, v: Ub) -> bool {
        let i = idx(a, b);
        if v.lt(self.m[i]) {
            self.m[i] = v;
            true
        } else {
            false
        }
    }

    fn set_bottom(&mut self) {
        self.m = Vec::new();
        self.form = Form::Bottom;
    }

    /// This value closed (a copy only when it is a widening's open result).
    fn closed(&self) -> Result<Cow<'_, NativeOctagons>> {
        if self.form == Form::Open {
            let mut c = self.clone();
            c.close_full()?;
            Ok(Cow::Owned(c))
        } else {
            Ok(Cow::Borrowed(self))
        }
    }

    /// Closes an open value in place; past the budget it becomes top (sound) and the error is
    /// returned.
    fn ensure_closed(&mut self) -> Result<()> {
        if self.form == Form::Open {
            if let Err(e) = self.close_full() {
                self.m = top_matrix(self.n());
                self.form = Form::Closed;
                return Err(e);
            }
        }
        Ok(())
    }

    /// Havoc `v` on a closed value (stays closed).
    fn forget_closed(&mut self, v: usize) {
        if self.form == Form::Bottom {
            return;
        }
        let (p, q) = (2 * v, 2 * v + 1);
        for t in 0..2 * self.n() {
            for c in [p, q] {
                self.set(t, c, INF);
            }
        }
        self.set(p, p, ZERO);
        self.set(q, q, ZERO);
    }

    /// `e ≤ 0` as octagonal matrix entries `(a, b, c)`: `v_b - v_a ≤ c`. `None` when `e` is not
    /// octagonal (or constant).
    fn entries_of(e: &LinExpr) -> Option<(usize, usize, Ub)> {
        let c = Rat::int(e.constant_term()).checked_neg();
        match *e.terms() {
            // a·u + c ≤ 0: 2·(sign·u) ≤ 2·(-c/|a|)
            [(u, a)] => {
                let k = c?.checked_div(Rat::int(a.checked_abs()?))?;
                let pos = node(u.index(), a > 0);
                Some((pos ^ 1, pos, Ub::of(k).double()))
            }
            [(u, a), (w, b)] if a.unsigned_abs() == b.unsigned_abs() => {
                let k = c?.checked_div(Rat::int(a.checked_abs()?))?;
                let pu = node(u.index(), a > 0);
                let pw = node(w.index(), b > 0);
                // v_pu + v_pw ≤ k  ⇔  v_pw - v_{p̄u} ≤ k
                Some((pu ^ 1, pw, Ub::of(k)))
            }
            _ => None,
        }
    }

    /// Intersects a closed value with `e ≤ 0` (`e` normalised), closing again.
    fn add_le(&mut self, e: &LinExpr) {
        if self.form == Form::Bottom {
            return;
        }
        if let Some((a, b, c)) = Self::entries_of(e) {
            if self.lower(a, b, c) {
                self.close_var(a / 2);
            }
            return;
        }
        if e.is_constant() {
            if e.constant_term() > 0 {
                self.set_bottom();
            }
            return;
        }
        for (a, b, c) in self.consequences(e) {
            if self.form == Form::Bottom {
                return;
            }
            if self.lower(a, b, c) {
                self.close_var(a / 2);
            }
        }
    }

    /// The one- and two-variable bounds a non-octagonal `e ≤ 0` implies on this value:
    /// `t ≤ -inf(e - t)` for each of its terms `t` and for each pair of terms with equal
    /// coefficients (up to sign).
    fn consequences(&self, e: &LinExpr) -> Vec<(usize, usize, Ub)> {
        let mut out = Vec::new();
        let terms = e.terms();
        let mut parts: Vec<LinExpr> = terms.iter().map(|&(d, a)| LinExpr::term(a, d)).collect();
        if terms.len() <= PAIR_TERMS {
            for (i, &(u, a)) in terms.iter().enumerate() {
                for &(w, b) in &terms[i + 1..] {
                    if a.unsigned_abs() == b.unsigned_abs() {
                        parts.extend(LinExpr::from_terms(&[(a, u), (b, w)], 0));
                    }
                }
            }
        }
        for t in parts {
            // t + rest ≤ 0  ⇒  t + inf(rest) ≤ 0
            let Some(rest) = e.checked_sub(&t) else {
                continue;
            };
            let Bound::Finite(lo) = self.bounds_of(&rest).lower else {
                continue;
            };
            // t + lo ≤ 0 with a rational lo: scale to integers, q·t + p ≤ 0.
            let scaled = t
                .checked_scale(lo.den())
                .and_then(|x| x.checked_add_constant(lo.num()));
            if let Some(entry) = scaled.and_then(|x| Self::entries_of(&x)) {
                out.push(entry);
            }
        }
        out
    }

    /// Bounds of `e` on a closed, non-bottom value, before integer rounding: exact for
    /// octagonal expressions, interval arithmetic otherwise.
    fn bounds_of(&self, e: &LinExpr) -> Interval {
        let c = Rat::int(e.constant_term());
        if e.is_constant() {
            return Interval::point(c);
        }
        let Some(lin) = e
            .constant_term()
            .checked_neg()
            .and_then(|k| e.checked_add_constant(k))
        else {
            return Interval::TOP;
        };
        if Self::entries_of(&lin).is_some() {
            let hi = self.sup_octagonal(&lin);
            let lo = lin
                .checked_neg()
                .map_or(Bound::NegInf, |n| neg_bound(self.sup_octagonal(&n)));
            return Interval::new(
                add_lower(lo, Bound::Finite(c)),
                add_upper(hi, Bound::Finite(c)),
            );
        }
        // Interval arithmetic over the unary bounds.
        let mut lo = Bound::Finite(c);
        let mut hi = Bound::Finite(c);
        for &(d, a) in e.terms() {
            let v = d.index();
            let itv = Interval::new(
                self.get(2 * v, 2 * v + 1).half().neg_lower(),
                self.get(2 * v + 1, 2 * v).half().upper(),
            );
            let (tl, th) = scale_interval(itv, a);
            lo = add_lower(lo, tl);
            hi = add_upper(hi, th);
        }
        Interval::new(lo, hi)
    }

    /// The supremum of a constant-free octagonal `x` (`a·u` or `a·(±u ± w)`) on a closed value.
    fn sup_octagonal(&self, x: &LinExpr) -> Bound {
        let Some((a, b, _)) = Self::entries_of(x) else {
            return Bound::PosInf;
        };
        // The entry bounds 2·(±u) for one variable, ±u ± w for two.
        let scale = match *x.terms() {
            [(_, k)] => k.checked_abs().and_then(|k| Rat::new(k, 2)),
            [(_, k), _] => k.checked_abs().map(Rat::int),
            _ => None,
        };
        match scale {
            Some(s) => self.get(a, b).scale(s).upper(),
            None => Bound::PosInf,
        }
    }

    fn merged_ints(&self, o: &NativeOctagons) -> Vec<bool> {
        merged_ints(&self.ints, &o.ints)
    }

    /// `x := s·x + c` in place (a translation, and for `s = -1` a swap of the two nodes).
    fn shift_self(&mut self, v: usize, negate: bool, c: i128) {
        let (p, q) = (2 * v, 2 * v + 1);
        let nodes = 2 * self.n();
        if negate {
            let old = self.clone();
            let sw = |a: usize| if a / 2 == v { a ^ 1 } else { a };
            for a in 0..nodes {
                for b in 0..=(a | 1) {
                    if a / 2 == v || b / 2 == v {
                        self.set(a, b, old.get(sw(a), sw(b)));
                    }
                }
            }
        }
        if c == 0 {
            return;
        }
        // v_b - v_a grows by δ(b) - δ(a), δ(+x) = c, δ(-x) = -c.
        let delta = |a: usize| -> Option<i128> {
            if a == p {
                Some(c)
            } else if a == q {
                c.checked_neg()
            } else {
                Some(0)
            }
        };
        for a in 0..nodes {
            for b in 0..=(a | 1) {
                if a / 2 != v && b / 2 != v {
                    continue;
                }
                let d = delta(b).zip(delta(a)).and_then(|(x, y)| x.checked_sub(y));
                let i = idx(a, b);
                self.m[i] = match d {
                    Some(0) => self.m[i],
                    Some(d) => self.m[i].add(Ub::int(d)),
                    None => INF,
                };
            }
        }
    }

    /// `x := ±y + c` (`y ≠ x`) on a closed value: `x` becomes a translated copy of `±y`, row
    /// and column, which keeps the matrix closed (no closure needed, `O(n)`). The caller
    /// ensures `-c` exists and that `x` is not integer where `y` is real (whose bounds would
    /// need tightening).
    fn copy_var(&mut self, x: usize, y: usize, positive: bool, c: i128) {
        self.forget_closed(x);
        let py = node(y, positive);
        let (p, q) = (2 * x, 2 * x + 1);
        // v_p = v_py + c, v_q = v_{p̄y} - c.
        let phi = |a: usize| if a == p { py } else { py ^ 1 };
        let delta = |a: usize| if a == p { c } else { -c };
        for t in (0..2 * self.n()).filter(|&t| t / 2 != x) {
            for xn in [p, q] {
                let v = self.get(t, phi(xn)).add(Ub::int(delta(xn)));
                self.set(t, xn, v);
                let w = self.get(phi(xn), t).add(Ub::int(-delta(xn)));
                self.set(xn, t, w);
            }
        }
        for (a, b) in [(p, q), (q, p)] {
            let d = delta(b).checked_sub(delta(a));
            let v = d.map_or(INF, |d| self.get(phi(a), phi(b)).add(Ub::int(d)));
            self.set(a, b, v);
        }
    }

    /// Entries bounding `x := e` for a general `e`, from this (closed) value: `x` itself and
    /// `x ∓ u` for each variable `u ≠ x` that `e` reads.
    fn assignment_bounds(&self, x: usize, e: &LinExpr) -> Vec<(usize, usize, Ub)> {
        let mut out = Vec::new();
        let mut push = |pos: LinExpr, rel: &LinExpr| {
            // pos = e - rel (as x - rel): bound x - rel ≤ sup(pos), rel - x ≤ -inf(pos)
            let b = self.bounds_of(&pos);
            let xs = LinExpr::var(Dim::new(x));
            let (Some(f), Some(g)) = (xs.checked_sub(rel), rel.checked_sub(&xs)) else {
                return;
            };
            for (side, bound) in [(f, b.upper), (g, neg_bound(b.lower))] {
                let Bound::Finite(k) = bound else { continue };
                // side ≤ k  ⇔  q·side - p ≤ 0
                let le = side
                    .checked_scale(k.den())
                    .and_then(|s| s.checked_add_constant(k.num().checked_neg()?));
                if let Some(entry) = le.and_then(|s| Self::entries_of(&s)) {
                    out.push(entry);
                }
            }
        };
        push(e.clone(), &LinExpr::zero());
        for &(u, _) in e.terms() {
            if u.index() == x {
                continue;
            }
            for s in [1, -1] {
                let rel = LinExpr::term(s, u);
                if let Some(pos) = e.checked_sub(&rel) {
                    push(pos, &rel);
                }
            }
        }
        out
    }
}

impl NumDomain for NativeOctagons {
    fn kind(&self) -> DomainKind {
        DomainKind::Octagon
    }

    fn dims(&self) -> usize {
        self.n()
    }

    fn top_like(&self, dims: usize) -> Result<Self> {
        NativeOctagons::top_budgeted(dims, self.budget)
    }

    fn bottom_like(&self, dims: usize) -> Result<Self> {
        let mut b = NativeOctagons::bottom(dims)?;
        b.budget = self.budget;
        Ok(b)
    }

    fn is_integer(&self, dim: Dim) -> bool {
        self.ints.get(dim.index()).copied().unwrap_or(false)
    }

    fn set_integer(&mut self, dim: Dim, integer: bool) -> Result<()> {
        check_dim(dim, self.n())?;
        let was = std::mem::replace(&mut self.ints[dim.index()], integer);
        if integer && !was && self.form != Form::Bottom {
            self.ensure_closed()?;
            // Tightening needs the shortest paths again around the new integer dimension.
            self.close_var(dim.index());
        }
        Ok(())
    }

    fn add_dims(&mut self, n: usize, integer: bool) -> Result<()> {
        let total = self.n().saturating_add(n);
        check_size(total)?;
        let old = self.n();
        self.ints.extend(std::iter::repeat_n(integer, n));
        if self.form != Form::Bottom {
            self.m.resize(size(total), INF);
            for a in 2 * old..2 * total {
                self.m[idx(a, a)] = ZERO;
            }
        }
        Ok(())
    }

    fn remove_dims(&mut self, dims: &[Dim]) -> Result<()> {
        let ds = check_remove(dims, self.n())?;
        if ds.is_empty() {
            return Ok(());
        }
        let mut map = Vec::with_capacity(self.n());
        let mut next = 0;
        for i in 0..self.n() {
            if ds.binary_search(&Dim::new(i)).is_ok() {
                map.push(None);
            } else {
                map.push(Some(Dim::new(next)));
                next += 1;
            }
        }
        self.map_dims(&map)
    }

    fn map_dims(&mut self, map: &[Option<Dim>]) -> Result<()> {
        let k = check_map(map, self.n())?;
        if map.iter().enumerate().all(|(i, t)| *t == Some(Dim::new(i))) {
            return Ok(());
        }
        let mut src = vec![0usize; k];
        let mut ints = vec![true; k];
        for (i, t) in map.iter().enumerate() {
            if let Some(t) = t {
                src[t.index()] = i;
                ints[t.index()] = self.ints[i];
            }
        }
        if self.form != Form::Bottom {
            // Projection of a closed matrix is closed; an open one is closed first.
            self.ensure_closed()?;
        }
        if self.form != Form::Bottom {
            let from = |a: usize| 2 * src[a / 2] + (a & 1);
            let mut m = vec![INF; size(k)];
            for a in 0..2 * k {
                for b in 0..=(a | 1) {
                    m[idx(a, b)] = self.get(from(a), from(b));
                }
            }
            self.m = m;
        }
        self.ints = ints;
        Ok(())
    }

    fn forget(&mut self, dim: Dim) -> Result<()> {
        check_dim(dim, self.n())?;
        self.ensure_closed()?;
        self.forget_closed(dim.index());
        Ok(())
    }

    fn assign_linear(&mut self, dim: Dim, e: &LinExpr) -> Result<()> {
        check_dim(dim, self.n())?;
        check_expr(e, self.n())?;
        self.ensure_closed()?;
        if self.form == Form::Bottom {
            return Ok(());
        }
        let x = dim.index();
        let c = e.constant_term();
        match *e.terms() {
            [] => {
                // 2x ≤ 2c and -2x ≤ -2c (an overflowing side is left open).
                self.forget_closed(x);
                let (p, q) = (2 * x, 2 * x + 1);
                self.lower(q, p, Ub::int(c).double());
                if let Some(nc) = c.checked_neg() {
                    self.lower(p, q, Ub::int(nc).double());
                }
                self.close_var(x);
            }
            [(y, s)] if y == dim && (s == 1 || s == -1) => self.shift_self(x, s < 0, c),
            [(y, s)]
                if (s == 1 || s == -1)
                    && c.checked_neg().is_some()
                    && (self.ints[y.index()] || !self.ints[x]) =>
            {
                self.copy_var(x, y.index(), s > 0, c)
            }
            [(y, s)] if s == 1 || s == -1 => {
                // x - s·y - c = 0, both sides.
                self.forget_closed(x);
                let eq = LinExpr::from_terms(&[(1, dim), (-s, y)], 0)
                    .and_then(|l| l.checked_add_constant(c.checked_neg()?));
                let sides = eq.iter().flat_map(|e| [Some(e.clone()), e.checked_neg()]);
                for side in sides.flatten() {
                    if let Some((a, b, k)) = Self::entries_of(&side) {
                        self.lower(a, b, k);
                    }
                }
                self.close_var(x);
            }
            _ => {
                let entries = self.assignment_bounds(x, e);
                self.forget_closed(x);
                for (a, b, k) in entries {
                    self.lower(a, b, k);
                }
                self.close_var(x);
            }
        }
        Ok(())
    }

    fn meet_constraint(&mut self, c: &LinConstraint) -> Result<()> {
        check_expr(&c.expr, self.n())?;
        self.ensure_closed()?;
        if self.form == Form::Bottom {
            return Ok(());
        }
        let integral = self.is_integral(&c.expr);
        match normalize(c, integral) {
            None | Some(Norm::True) => {}
            Some(Norm::False) => self.set_bottom(),
            Some(Norm::Le(e)) => self.add_le(&e),
            Some(Norm::Eq(e)) => {
                self.add_le(&e);
                if let Some(n) = e.checked_neg() {
                    self.add_le(&n);
                }
            }
            Some(Norm::Ne(e)) => match ne_hull(self.bounds(&e)?, &e, integral) {
                NeHull::Bottom => self.set_bottom(),
                NeHull::Le(x) => self.add_le(&x),
                NeHull::Same => {}
            },
        }
        Ok(())
    }

    fn meet(&self, other: &Self) -> Result<Self> {
        check_same(self.n(), other.n())?;
        let ints = self.merged_ints(other);
        if self.form == Form::Bottom || other.form == Form::Bottom {
            let mut b = NativeOctagons::bottom(self.n())?;
            b.ints = ints;
            return Ok(b);
        }
        // The dimensions whose entries `other` lowers: few of them (a guard's state met with
        // another) are closed one by one, each in O(n²); many, from scratch in O(n³).
        let mut r = self.closed()?.into_owned();
        r.ints = ints;
        if r.form == Form::Bottom {
            return Ok(r);
        }
        let nodes = 2 * r.n();
        let mut lowered = vec![false; r.n()];
        for a in 0..nodes {
            for b in 0..=(a | 1) {
                if other.get(a, b).lt(r.get(a, b)) {
                    lowered[a / 2] = true;
                    lowered[b / 2] = true;
                }
            }
        }
        let k = lowered.iter().filter(|&&l| l).count();
        if 10 * k < 4 * r.n() {
            for v in (0..r.n()).filter(|&v| lowered[v]) {
                for t in 0..nodes {
                    for c in [2 * v, 2 * v + 1] {
                        r.lower(t, c, other.get(t, c));
                    }
                }
                r.close_var(v);
                if r.form == Form::Bottom {
                    break;
                }
            }
            return Ok(r);
        }
        for (a, b) in r.m.iter_mut().zip(&other.m) {
            *a = a.min(*b);
        }
        r.form = Form::Open;
        r.close_full()?;
        Ok(r)
    }

    fn join(&self, other: &Self) -> Result<Self> {
        let mut r = self.clone();
        r.join_assign(other)?;
        Ok(r)
    }

    fn join_assign(&mut self, other: &Self) -> Result<()> {
        check_same(self.n(), other.n())?;
        self.ints = self.merged_ints(other);
        if other.form == Form::Bottom {
            return Ok(());
        }
        self.ensure_closed()?;
        let o = match other.closed() {
            Ok(o) => o,
            Err(e) => {
                // In place: a failed join leaves top, never a value short of the join.
                self.m = top_matrix(self.n());
                self.form = Form::Closed;
                return Err(e);
            }
        };
        if self.form == Form::Bottom {
            self.m = o.m.clone();
            self.form = o.form;
            return Ok(());
        }
        if o.form == Form::Bottom {
            return Ok(());
        }
        for (a, b) in self.m.iter_mut().zip(&o.m) {
            *a = a.max(*b);
        }
        Ok(())
    }

    fn widen(&self, newer: &Self) -> Result<Self> {
        self.widen_with_thresholds(newer, &[])
    }

    fn widen_with_thresholds(&self, newer: &Self, thresholds: &[LinConstraint]) -> Result<Self> {
        check_same(self.n(), newer.n())?;
        // Against the join, as the PPL backends do: the result contains both arguments.
        let j = self.join(newer)?;
        if self.form == Form::Bottom || j.form == Form::Bottom {
            return Ok(j);
        }
        // Entries of the older value as they are (not closed), kept where stable.
        let mut m: Vec<Ub> = self
            .m
            .iter()
            .zip(&j.m)
            .map(|(o, n)| if n.le(*o) { *o } else { INF })
            .collect();
        for c in thresholds {
            if c.expr.max_dim().is_some_and(|d| d.index() >= self.n()) {
                continue;
            }
            let les: Vec<LinExpr> = match normalize(c, j.is_integral(&c.expr)) {
                Some(Norm::Le(e)) => vec![e],
                Some(Norm::Eq(e)) => e.checked_neg().into_iter().chain([e]).collect(),
                _ => continue,
            };
            for e in les {
                if let Some((a, b, k)) = Self::entries_of(&e) {
                    // A threshold both arguments satisfy (their join does) stops the growth.
                    let i = idx(a, b);
                    if j.m[i].le(k) && k.lt(m[i]) {
                        m[i] = k;
                    }
                }
            }
        }
        Ok(NativeOctagons {
            budget: self.budget,
            ints: j.ints,
            m,
            form: Form::Open,
        })
    }

    fn leq(&self, other: &Self) -> Result<bool> {
        check_same(self.n(), other.n())?;
        let a = self.closed()?;
        if a.form == Form::Bottom {
            return Ok(true);
        }
        let b = other.closed()?;
        if b.form == Form::Bottom {
            return Ok(false);
        }
        // A closed left side against the right one's entries as they are decides inclusion.
        Ok(a.m.iter().zip(&other.m).all(|(x, y)| x.le(*y)))
    }

    fn is_bottom(&self) -> Result<bool> {
        Ok(self.closed()?.form == Form::Bottom)
    }

    fn is_top(&self) -> Result<bool> {
        let c = self.closed()?;
        if c.form == Form::Bottom {
            return Ok(false);
        }
        let nodes = 2 * self.n();
        Ok((0..nodes).all(|a| (0..=(a | 1)).all(|b| a == b || c.get(a, b).is_inf())))
    }

    fn bounds(&self, e: &LinExpr) -> Result<Interval> {
        check_expr(e, self.n())?;
        let c = self.closed()?;
        if c.form == Form::Bottom {
            return Ok(Interval::EMPTY);
        }
        let b = c.bounds_of(e);
        Ok(if self.is_integral(e) {
            b.round_to_integers()
        } else {
            b
        })
    }

    fn constraints(&self) -> Result<Vec<LinConstraint>> {
        let c = self.closed()?;
        if c.form == Form::Bottom {
            return Ok(vec![LinConstraint::falsity()]);
        }
        Ok(c.reduced_constraints())
    }

    fn integer_point(&self) -> Result<Option<Vec<i128>>> {
        let mut c = self.closed()?.into_owned();
        if c.form == Form::Bottom {
            return Ok(None);
        }
        let mut point = Vec::with_capacity(self.n());
        for v in 0..self.n() {
            let lo = c.get(2 * v, 2 * v + 1).half().neg_lower();
            let hi = c.get(2 * v + 1, 2 * v).half().upper();
            let lo_i = match lo {
                Bound::Finite(r) => Some(r.ceil()),
                _ => None,
            };
            let hi_i = match hi {
                Bound::Finite(r) => Some(r.floor()),
                _ => None,
            };
            if lo_i.zip(hi_i).is_some_and(|(l, h)| l > h) {
                // No integer in the range of a real dimension: there may still be integer
                // points elsewhere, so this is "not found", not "none".
                return Err(DomainError::Timeout);
            }
            // The value closest to 0.
            let val = match (lo_i, hi_i) {
                (Some(l), _) if l > 0 => l,
                (_, Some(h)) if h < 0 => h,
                _ => 0,
            };
            let x = Dim::new(v);
            let fix = LinExpr::var(x).checked_add_constant(
                val.checked_neg()
                    .ok_or_else(|| DomainError::Overflow("integer point coordinate".into()))?,
            );
            if let Some(le) = fix {
                c.add_le(&le);
                if let Some(ge) = le.checked_neg() {
                    c.add_le(&ge);
                }
            }
            if c.form == Form::Bottom {
                return Err(DomainError::Timeout);
            }
            point.push(val);
        }
        Ok(Some(point))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::linear::ConstraintKind;

    fn le(terms: &[(i128, usize)], c: i128) -> LinConstraint {
        let t: Vec<(i128, Dim)> = terms.iter().map(|&(a, d)| (a, Dim::new(d))).collect();
        LinConstraint::new(LinExpr::from_terms(&t, c).unwrap(), ConstraintKind::Le)
    }

    #[test]
    fn index_is_coherent_and_dense() {
        let n = 4;
        let mut seen = vec![0; size(n)];
        for a in 0..2 * n {
            for b in 0..2 * n {
                // Diagonal entries (always 0) are the one exception: m[a][a] and m[ā][ā].
                if a != b {
                    assert_eq!(idx(a, b), idx(b ^ 1, a ^ 1));
                }
                seen[idx(a, b)] += 1;
            }
        }
        // Every slot holds an entry and its twin (the same entry when a = b̄), or a diagonal.
        assert!(seen.iter().all(|&k| k == 1 || k == 2), "{seen:?}");
    }

    #[test]
    fn incremental_closure_equals_full_closure() {
        // x0 - x1 ≤ 2, x1 + x2 ≤ 5, x2 ≥ 1, then x0 + x3 ≤ 0 and x3 ≥ -1.
        let mut inc = NativeOctagons::top(4).unwrap();
        for c in [
            le(&[(1, 0), (-1, 1)], -2),
            le(&[(1, 1), (1, 2)], -5),
            le(&[(-1, 2)], 1),
            le(&[(1, 0), (1, 3)], 0),
            le(&[(-1, 3)], -1),
        ] {
            inc.meet_constraint(&c).unwrap();
        }
        let mut full = inc.clone();
        full.form = Form::Open;
        full.close_full().unwrap();
        assert_eq!(inc.m, full.m);
        // x0 ≤ 1 follows from x0 + x3 ≤ 0, x3 ≥ -1.
        let b = inc.bounds(&LinExpr::var(Dim::new(0))).unwrap();
        assert_eq!(b.upper, Bound::int(1));
        // x0 + x2 ≤ 7 from x0 - x1 ≤ 2 and x1 + x2 ≤ 5.
        let e = LinExpr::from_terms(&[(1, Dim::new(0)), (1, Dim::new(2))], 0).unwrap();
        assert_eq!(inc.bounds(&e).unwrap().upper, Bound::int(7));
    }

    #[test]
    fn integer_tightening() {
        // 2·x0 ≤ 3 over the integers is x0 ≤ 1; x0 + x1 ≤ 0 and x0 - x1 ≤ -1 give 2x0 ≤ -1,
        // so x0 ≤ -1 (tight closure), which the rational closure would miss.
        let mut d = NativeOctagons::top(2).unwrap();
        d.meet_constraint(&le(&[(1, 0), (1, 1)], 0)).unwrap();
        d.meet_constraint(&le(&[(1, 0), (-1, 1)], 1)).unwrap();
        let b = d.bounds(&LinExpr::var(Dim::new(0))).unwrap();
        assert_eq!(b.upper, Bound::int(-1));
        // Real dimensions keep the half.
        let mut r = NativeOctagons::top(2).unwrap();
        r.set_integer(Dim::new(0), false).unwrap();
        r.set_integer(Dim::new(1), false).unwrap();
        r.meet_constraint(&le(&[(1, 0), (1, 1)], 0)).unwrap();
        r.meet_constraint(&le(&[(1, 0), (-1, 1)], 1)).unwrap();
        let b = r.bounds(&LinExpr::var(Dim::new(0))).unwrap();
        assert_eq!(b.upper, Bound::Finite(Rat::new(-1, 2).unwrap()));
    }
}
