//! Translation of typed IR expressions into the numeric domains' language.
//!
//! Takes an IR expression or condition, the sub-state it is evaluated in (guard values and the
//! numeric value, for range checks) and the dimension of each tracked variable; gives a domain
//! [`DExpr`] (non-linear parts as the domain's own nodes, anything unmodelled as a bounded or
//! unbounded unknown) or a condition in disjunctive normal form over linear constraints.
//!
//! Integer semantics: signed arithmetic is mathematical (overflow is undefined behaviour in C,
//! so defined executions never overflow); unsigned arithmetic wraps. Wrapping is modelled
//! soundly: the ring operations (`+ - *`) are computed mathematically, and wherever the exact
//! value matters (division, shifts, comparisons, conversions, stores) a value that may lie
//! outside its type's range is replaced by "any value of the type". With `--overflow wrap`
//! signed types are treated like unsigned ones. Floating values are known only as copies under
//! IEEE semantics (the default) and are analysed as reals under `--floats real`.
//!
//! Pointers are byte addresses: `p + i` moves by `i` elements of the pointee's size, `p - q`
//! counts elements, comparisons are numeric (arithmetic that leaves an object is undefined, so
//! it never wraps). Addresses the analysis cannot relate to its inputs — of locals, string
//! literals, globals, or made from integers — are unknown values, so nothing is ever concluded
//! from them. A read through a pointer (`*p`, `p->f`, `p[i]`) is the value the memory layer
//! gave its access site for this instruction (`Tr::loads`), or unknown.

use dizy_domains::{AnyDomain, ConstraintKind, Expr as DExpr, LinConstraint, LinExpr, NumDomain};

use super::locs::{Dims, Resolved};
use super::options::{Floats, Overflow};
use super::state::Ctx;
use crate::ir::{layout_size, BinOp, CType, Expr, ExprKind, Function, LogicOp, Place, UnOp};

/// A condition in disjunctive normal form: a list of conjunctions. `[]` is false, `[[]]` true.
pub type Dnf = Vec<Vec<LinConstraint>>;

/// Most conjunctions a condition may expand into before it is treated as unknown.
const MAX_DNF: usize = 16;

pub struct Tr<'a> {
    pub dims: &'a Dims,
    /// The function whose variables and places the expressions mention.
    pub func: &'a Function,
    pub ctx: &'a Ctx,
    pub data: &'a AnyDomain,
    pub overflow: Overflow,
    pub floats: Floats,
    pub budget: &'a crate::limits::Budget,
    /// Values of the reads through pointers of the instruction being transferred, by place
    /// (identity, not structure: the same text may be read twice with different results).
    pub loads: &'a [(&'a Place, dizy_domains::Dim)],
    /// Values of the narrowing conversions of the instruction (`memory::Item::Conv`), by
    /// expression identity.
    pub convs: &'a [(&'a Expr, dizy_domains::Dim)],
    /// How many more symbolic definitions (`defs`) congruence may substitute in this
    /// translator's comparisons: definitions form a DAG, whose unfolding can be exponential.
    pub subst: std::cell::Cell<u32>,
}

/// [`Tr::subst`] for a fresh translator.
pub const SUBST_FUEL: u32 = 64;

/// The value range of an integer (or pointer) type.
pub fn type_range(t: &CType) -> Option<(i128, i128)> {
    match t {
        CType::Bool => Some((0, 1)),
        CType::Int { bits, signed: true } => {
            Some((-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1))
        }
        CType::Int {
            bits,
            signed: false,
        } => Some((0, (1i128 << bits) - 1)),
        CType::Ptr(_) => Some((0, (1i128 << 64) - 1)),
        _ => None,
    }
}

/// Whether values of `t` wrap around, so that a result outside the type's range is not the C
/// value: unsigned types always, `_Bool` by conversion, signed ones only under `--overflow wrap`.
/// (Pointers are not modelled as numbers: arithmetic leaving an object is undefined.)
pub fn wraps(t: &CType, overflow: Overflow) -> bool {
    match t {
        CType::Int { signed: false, .. } | CType::Bool => true,
        CType::Int { signed: true, .. } => overflow == Overflow::Wrap,
        _ => false,
    }
}

impl Tr<'_> {
    fn wraps(&self, t: &CType) -> bool {
        wraps(t, self.overflow)
    }

    /// Any value of type `t`. Only wrapping types carry their range as constraints: bounding
    /// every variable on both sides would make polyhedra boxes with exponentially many
    /// vertices, and a signed value outside its range is undefined anyway.
    fn range_expr(&self, t: &CType) -> DExpr {
        match type_range(t) {
            Some((lo, hi)) if self.wraps(t) => DExpr::Range(Some(lo), Some(hi)),
            _ => DExpr::Unknown,
        }
    }

    fn bounds_within(&self, e: &DExpr, lo: i128, hi: i128) -> bool {
        let Some(l) = e.as_linear() else { return false };
        match self.data.bounds(&l) {
            Ok(b) => {
                b.is_empty()
                    || (b.lower >= dizy_domains::Bound::int(lo)
                        && b.upper <= dizy_domains::Bound::int(hi))
            }
            Err(_) => false,
        }
    }

    /// The exact value of `e` as an integer of its type: a wrapping type's mathematical result
    /// is kept only when provably in range.
    pub fn exact(&self, e: &Expr) -> DExpr {
        let x = self.expr(e);
        // A variable (or a read of memory) holds a value of its type in every execution:
        // only computed results can leave the range.
        if matches!(e.kind, ExprKind::Var(_) | ExprKind::Load(_)) {
            return x;
        }
        if self.wraps(&e.ty) {
            if let Some((lo, hi)) = type_range(&e.ty) {
                if matches!(x, DExpr::Const(_) | DExpr::Range(..)) || self.bounds_within(&x, lo, hi)
                {
                    return x;
                }
                return DExpr::Range(Some(lo), Some(hi));
            }
        }
        x
    }

    /// The shift `k` (a multiple of `hi - lo + 1`) that brings every value of `v` into
    /// `[lo, hi]` at once, if one does: then converting `v` to that range is `v + k`.
    fn window(&self, v: &DExpr, lo: i128, hi: i128) -> Option<i128> {
        let m = hi.checked_sub(lo)?.checked_add(1)?;
        let l = v.as_linear()?;
        let b = self.data.bounds(&l).ok()?;
        let (a, z) = (b.lower.finite()?, b.upper.finite()?);
        if !(a.is_integer() && z.is_integer()) {
            return None;
        }
        let (a, z) = (a.num(), z.num());
        // The k with lo <= a + k, i.e. k = lo - a rounded up to a multiple of m.
        let k = (lo - a).div_euclid(m) * m + if (lo - a).rem_euclid(m) == 0 { 0 } else { m };
        (z.checked_add(k)? <= hi).then_some(k)
    }

    /// The one value `e` has in this state, if it has exactly one (used to resolve indices).
    pub fn single_value(&self, e: &Expr) -> Option<i128> {
        if let ExprKind::Int(v) = e.kind {
            return Some(v);
        }
        let l = self.linear(e)?;
        let b = self.data.bounds(&l).ok()?;
        match (b.lower.finite(), b.upper.finite()) {
            (Some(lo), Some(hi)) if lo == hi && lo.is_integer() => Some(lo.num()),
            _ => None,
        }
    }

    /// The dimension holding the value `place` denotes, when it is one tracked scalar.
    pub fn dim_of_place(&self, place: &crate::ir::Place) -> Option<dizy_domains::Dim> {
        self.place_dim(place)
    }

    fn place_dim(&self, place: &crate::ir::Place) -> Option<dizy_domains::Dim> {
        if let Some((_, d)) = self.loads.iter().find(|(p, _)| std::ptr::eq(*p, place)) {
            return Some(*d);
        }
        match self
            .dims
            .resolve(self.func, place, &|i| self.single_value(i))
        {
            Resolved::Scalar(d) => Some(d),
            _ => None,
        }
    }

    /// Mathematical value of `e` (ring operations unreduced; see module doc). Under IEEE
    /// floating point a floating value is only ever known as a copy of a tracked one, as a
    /// small integral constant (`+0.0` included, never `-0.0`), or as an integer variable
    /// converted exactly (`(double)i` for an `int`): values every float type holds exactly, and
    /// a dimension at 0 then always means `+0.0`, since no floating operation sets one (and
    /// the only guard that does, in `ieee`, proves the value is `+0.0`).
    pub fn expr(&self, e: &Expr) -> DExpr {
        if self.floats == Floats::Ieee && e.ty.is_float() {
            // Integers of at most this many bits convert exactly (float: 24-bit significand).
            let exact_bits = if e.ty == CType::Float { 16 } else { 32 };
            return match &e.kind {
                ExprKind::Var(v) => self.dims.of(*v).map_or(DExpr::Unknown, DExpr::Var),
                ExprKind::Load(p) => self.place_dim(p).map_or(DExpr::Unknown, DExpr::Var),
                ExprKind::Float(f)
                    if f.fract() == 0.0
                        && f.abs() < (1u32 << 24) as f64
                        && (*f != 0.0 || f.to_bits() == 0) =>
                {
                    DExpr::Const(*f as i128)
                }
                ExprKind::Cast(x) => match (&x.kind, &x.ty) {
                    (ExprKind::Var(v), CType::Int { bits, .. }) if *bits <= exact_bits => {
                        self.dims.of(*v).map_or(DExpr::Unknown, DExpr::Var)
                    }
                    (ExprKind::Var(v), CType::Bool) => {
                        self.dims.of(*v).map_or(DExpr::Unknown, DExpr::Var)
                    }
                    (ExprKind::Int(n), _) if n.abs() < 1 << 24 => DExpr::Const(*n),
                    _ => DExpr::Unknown,
                },
                _ => DExpr::Unknown,
            };
        }
        match &e.kind {
            ExprKind::Int(v) => DExpr::Const(*v),
            ExprKind::Float(f) => {
                if f.fract() == 0.0 && f.abs() < 1e30 {
                    DExpr::Const(*f as i128)
                } else {
                    DExpr::Unknown
                }
            }
            ExprKind::Var(v) => match self.dims.of(*v) {
                Some(d) => DExpr::Var(d),
                None => self.range_expr(&e.ty),
            },
            ExprKind::Guard(g) => match self.ctx.get(g) {
                Some(true) => DExpr::Const(1),
                Some(false) => DExpr::Const(0),
                None => DExpr::Range(Some(0), Some(1)),
            },
            ExprKind::Unary(UnOp::Neg, x) => DExpr::Neg(Box::new(self.expr(x))),
            ExprKind::Unary(UnOp::BitNot, x) => match &e.ty {
                // ~x = -x - 1 in two's complement; for unsigned, max - x
                CType::Int { signed: true, .. } => {
                    DExpr::sub(DExpr::Neg(Box::new(self.expr(x))), DExpr::Const(1))
                }
                t => match type_range(t) {
                    Some((_, hi)) => DExpr::sub(DExpr::Const(hi), self.exact(x)),
                    None => DExpr::Unknown,
                },
            },
            ExprKind::Unary(UnOp::LogNot, _) | ExprKind::Logic(..) => {
                DExpr::Range(Some(0), Some(1))
            }
            ExprKind::Binary(op, a, b) => self.binary(*op, a, b, &e.ty),
            ExprKind::Cast(x) => match self.convs.iter().find(|(c, _)| std::ptr::eq(*c, e)) {
                Some((_, d)) => DExpr::Var(*d),
                None => self.cast(x, &e.ty),
            },
            ExprKind::Load(p) => match self.place_dim(p) {
                Some(d) => DExpr::Var(d),
                None => self.range_expr(&e.ty),
            },
            // Memory, addresses and unmodelled values: any value of the type.
            ExprKind::AddrOf(_)
            | ExprKind::Str(_)
            | ExprKind::GlobalAddr(_)
            | ExprKind::FuncAddr(_)
            | ExprKind::Opaque(_) => self.range_expr(&e.ty),
        }
    }

    fn binary(&self, op: BinOp, a: &Expr, b: &Expr, ty: &CType) -> DExpr {
        use BinOp::*;
        if ty.is_pointer() || a.ty.is_pointer() || b.ty.is_pointer() {
            return match op {
                Add | Sub if ty.is_pointer() => {
                    let (p, i) = if a.ty.is_pointer() { (a, b) } else { (b, a) };
                    let off = DExpr::mul(self.exact(i), DExpr::Const(self.elem_size(&p.ty)));
                    if op == Add {
                        DExpr::add(self.expr(p), off)
                    } else if a.ty.is_pointer() {
                        DExpr::sub(self.expr(p), off)
                    } else {
                        self.range_expr(ty)
                    }
                }
                PtrDiff if a.ty.is_pointer() && b.ty.is_pointer() => {
                    // Both point into one object (else undefined), a whole number of
                    // elements apart: the division is exact.
                    let bytes = DExpr::sub(self.expr(a), self.expr(b));
                    match self.elem_size(&a.ty) {
                        1 => bytes,
                        k => DExpr::exact_div(bytes, DExpr::Const(k)),
                    }
                }
                Eq | Ne | Lt | Le | Gt | Ge => DExpr::Range(Some(0), Some(1)),
                _ => self.range_expr(ty),
            };
        }
        let real = ty.is_float();
        match op {
            Add => DExpr::add(self.expr(a), self.expr(b)),
            Sub => DExpr::sub(self.expr(a), self.expr(b)),
            Mul => DExpr::mul(self.expr(a), self.expr(b)),
            Div if real => DExpr::real_div(self.expr(a), self.expr(b)),
            Div => DExpr::div(self.exact(a), self.exact(b)),
            Rem => DExpr::rem(self.exact(a), self.exact(b)),
            Shl => match const_of(b) {
                Some(k) if (0..64).contains(&k) => {
                    DExpr::mul(self.expr(a), DExpr::Const(1i128 << k))
                }
                _ => self.range_expr(ty),
            },
            Shr => match const_of(b) {
                Some(k) if (0..64).contains(&k) => {
                    let x = self.exact(a);
                    // Arithmetic shift floors; division truncates: equal for non-negative x.
                    if self.bounds_within(&x, 0, i128::MAX)
                        || !matches!(a.ty, CType::Int { signed: true, .. })
                    {
                        DExpr::div(x, DExpr::Const(1i128 << k))
                    } else {
                        self.range_expr(ty)
                    }
                }
                _ => self.range_expr(ty),
            },
            BitAnd => {
                let mask = const_of(b).or_else(|| const_of(a));
                let other = if const_of(b).is_some() { a } else { b };
                match mask {
                    Some(m) if m >= 0 => {
                        let x = self.exact(other);
                        if self.bounds_within(&x, 0, m) && (m + 1) & m == 0 {
                            x
                        } else if (m + 1) & m == 0 && self.bounds_within(&x, 0, i128::MAX) {
                            DExpr::rem(x, DExpr::Const(m + 1))
                        } else {
                            DExpr::Range(Some(0), Some(m))
                        }
                    }
                    _ => self.range_expr(ty),
                }
            }
            BitOr | BitXor => self.range_expr(ty),
            Eq | Ne | Lt | Le | Gt | Ge => DExpr::Range(Some(0), Some(1)),
            PtrDiff => self.range_expr(ty),
        }
    }

    /// Bytes one element of pointer type `t` spans (GNU C: 1 for `void *`).
    fn elem_size(&self, t: &CType) -> i128 {
        let size = t
            .pointee()
            .map_or(1, |e| layout_size(self.dims.structs(), e));
        i128::from(size.max(1))
    }

    /// The byte address of a place reached through a pointer (`*e`, `e->f`, `(*e).a[i]`):
    /// `None` for a place rooted at a variable, which is not memory the layer follows.
    pub fn address(&self, place: &Place) -> Option<DExpr> {
        match place {
            Place::Var(_) => None,
            Place::Deref(e, _) => Some(self.expr(e)),
            Place::Field(b, sid, k, _) => {
                let base = self.address(b)?;
                let def = self.dims.structs().get(sid.index())?;
                let off = if def.is_union {
                    0
                } else {
                    def.fields.get(*k as usize)?.offset
                };
                Some(DExpr::add(base, DExpr::Const(i128::from(off))))
            }
            Place::Index(b, i, elem) => {
                let base = self.address(b)?;
                let size = i128::from(layout_size(self.dims.structs(), elem).max(1));
                Some(DExpr::add(
                    base,
                    DExpr::mul(self.exact(i), DExpr::Const(size)),
                ))
            }
        }
    }

    fn cast(&self, x: &Expr, to: &CType) -> DExpr {
        let from = &x.ty;
        match to {
            CType::Bool => match self.cond(x, true) {
                Some(d) if d.is_empty() => DExpr::Const(0),
                Some(d) if d.iter().any(|c| c.is_empty()) => DExpr::Const(1),
                _ => DExpr::Range(Some(0), Some(1)),
            },
            CType::Float | CType::Double => {
                if from.is_arith() {
                    if from.is_integer() {
                        self.exact(x)
                    } else {
                        self.expr(x)
                    }
                } else {
                    DExpr::Unknown
                }
            }
            t if t.is_pointer() => {
                // An address made from an integer may be anywhere, a frame included: only the
                // null pointer is known.
                match (&x.kind, from) {
                    (_, f) if f.is_pointer() => self.expr(x),
                    (ExprKind::Int(0), _) => DExpr::Const(0),
                    _ => DExpr::Unknown,
                }
            }
            t if t.is_integer() => {
                let Some((lo, hi)) = type_range(t) else {
                    return DExpr::Unknown;
                };
                if from.is_float() {
                    // Truncation toward zero of a real: only integral values are exact.
                    return DExpr::Range(Some(lo), Some(hi));
                }
                let v = self.exact(x);
                let fits = match type_range(from) {
                    Some((flo, fhi)) => flo >= lo && fhi <= hi,
                    None => false,
                };
                if fits
                    || matches!(v, DExpr::Const(c) if c >= lo && c <= hi)
                    || self.bounds_within(&v, lo, hi)
                {
                    v
                } else if let Some(k) = self.window(&v, lo, hi) {
                    // Every value lies in one window of the modulus: the conversion shifts it.
                    DExpr::add(v, DExpr::Const(k))
                } else {
                    DExpr::Range(Some(lo), Some(hi))
                }
            }
            _ => DExpr::Unknown,
        }
    }

    /// A linear form of the exact value, if there is one. Under IEEE floating point a
    /// floating value has none: its dimension only records which values are identical.
    pub fn linear(&self, e: &Expr) -> Option<LinExpr> {
        if self.floats == Floats::Ieee && e.ty.is_float() {
            return None;
        }
        self.exact(e).as_linear()
    }

    /// The condition `e != 0` (when `positive`) or `e == 0`, in DNF; `None` when it cannot be
    /// expressed (then neither branch can be constrained).
    pub fn cond(&self, e: &Expr, positive: bool) -> Option<Dnf> {
        match &e.kind {
            ExprKind::Int(v) => Some(if (*v != 0) == positive {
                vec![vec![]]
            } else {
                vec![]
            }),
            ExprKind::Guard(g) => {
                self.ctx
                    .get(g)
                    .map(|v| if *v == positive { vec![vec![]] } else { vec![] })
            }
            ExprKind::Unary(UnOp::LogNot, x) => self.cond(x, !positive),
            ExprKind::Logic(op, a, b) => {
                let conj = (*op == LogicOp::And) == positive;
                let (ca, cb) = (self.cond(a, positive), self.cond(b, positive));
                if conj {
                    // both must hold; an unknown side only weakens
                    match (ca, cb) {
                        (Some(x), Some(y)) => product(&x, &y),
                        (Some(x), None) | (None, Some(x)) => Some(x),
                        (None, None) => None,
                    }
                } else {
                    let (x, y) = (ca?, cb?);
                    let mut out = x;
                    out.extend(y);
                    (out.len() <= MAX_DNF).then_some(out)
                }
            }
            ExprKind::Binary(op, a, b)
                if matches!(
                    op,
                    BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge
                ) =>
            {
                if self.floats == Floats::Ieee && (a.ty.is_float() || b.ty.is_float()) {
                    // NaN compares false with everything, infinities and rounding break
                    // real-number facts: nothing is known of the outcome.
                    return None;
                }
                let la = self.linear(a)?;
                let lb = self.linear(b)?;
                let kind = match op {
                    BinOp::Eq => ConstraintKind::Eq,
                    BinOp::Ne => ConstraintKind::Ne,
                    BinOp::Lt => ConstraintKind::Lt,
                    BinOp::Le => ConstraintKind::Le,
                    BinOp::Gt => ConstraintKind::Gt,
                    _ => ConstraintKind::Ge,
                };
                let kind = if positive { kind } else { kind.complement() };
                let c = LinConstraint::compare(&la, kind, &lb)?;
                Some(self.split(c))
            }
            ExprKind::Cast(x)
                if x.ty.is_scalar() && (e.ty == CType::Bool || widening(&x.ty, &e.ty)) =>
            {
                self.cond(x, positive)
            }
            _ => {
                let l = self.linear(e)?;
                let kind = if positive {
                    ConstraintKind::Ne
                } else {
                    ConstraintKind::Eq
                };
                Some(self.split(LinConstraint::new(l, kind)))
            }
        }
    }

    /// `≠` becomes two convex pieces; other constraints one.
    fn split(&self, c: LinConstraint) -> Dnf {
        let integral = c.expr.dims().all(|d| self.data.is_integer(d));
        match c.split_ne(integral) {
            Some([a, b]) => vec![vec![a], vec![b]],
            None => vec![vec![c]],
        }
    }
}

fn product(a: &Dnf, b: &Dnf) -> Option<Dnf> {
    if a.len() * b.len() > MAX_DNF {
        return None;
    }
    let mut out = vec![];
    for x in a {
        for y in b {
            let mut c = x.clone();
            c.extend(y.iter().cloned());
            out.push(c);
        }
    }
    Some(out)
}

fn const_of(e: &Expr) -> Option<i128> {
    match e.kind {
        ExprKind::Int(v) => Some(v),
        _ => None,
    }
}

/// A conversion that keeps every value (integer to a wider or equal range).
fn widening(from: &CType, to: &CType) -> bool {
    match (type_range(from), type_range(to)) {
        (Some((a, b)), Some((c, d))) => c <= a && b <= d,
        _ => from.is_arith() && to.is_float(),
    }
}
