//! Congruence by SMT: a matched pair of integer computations the structural and linear checks
//! cannot relate (`x * (y + z)` against `x * y + x * z`, `(a ^ b) & 1` against `(a & 1) ^ (b &
//! 1)`, a rewritten bit trick) compared as bit-vector functions of their leaves — DiffKemp's
//! check of small blocks with Z3, at the level of one matched pair of expressions.
//!
//! Takes the two expressions (with the temporaries whose pure definitions the sub-state knows
//! substituted, so that a straight-line block is compared as a whole) and a test telling which
//! leaves of the two sides (variables, reads, guards, anything not arithmetic) are equal in the
//! current state; gives whether the
//! expressions are equal for every value of the leaves on which both are defined (C semantics
//! on bit-vectors: wrapping unsigned arithmetic, signed overflow, division by zero and
//! out-of-range shifts undefined — or wrapping too under `--overflow wrap`). Leaves the test does
//! not pair are independent unknowns, so the answer is sound whatever the state knows besides.
//! Used by [`super::congruence`] for matched pairs; small expressions only, a short z3 time
//! limit per query, limits on the queries and their time per analysed function, and answers
//! cached per pair of expressions and pairing of leaves.

use std::collections::{BTreeMap, HashMap};

use z3::ast::{Ast, Bool, BV};
use z3::{Config, Context, Params, SatResult, Solver};

use crate::ir::{BinOp, CType, Expr, ExprKind, LogicOp, UnOp, VarId};

/// Most nodes in one expression of a compared pair.
const MAX_NODES: usize = 64;
/// Most distinct leaves in one expression.
const MAX_LEAVES: usize = 12;
/// z3's time limit for one comparison.
const QUERY_MS: u32 = 200;
/// Comparisons per analysed function (an analysis revisits pairs at every iteration), and the
/// time all of them may take: 1.5 s, and at most a quarter of the analysis's time left at the
/// first one.
const MAX_QUERIES: usize = 256;
const MAX_TOTAL: std::time::Duration = std::time::Duration::from_millis(1500);

/// The solver, the cache and the count of one analysed function's comparisons.
#[derive(Default)]
pub(super) struct SmtEq {
    ctx: Option<Context>,
    /// Answers by the two expressions (after expansion, as text) and the pairing of leaves.
    cache: HashMap<(String, Vec<Option<usize>>), bool>,
    queries: usize,
    spent: std::time::Duration,
    /// The time all comparisons may take, fixed at the first.
    allowed: Option<std::time::Duration>,
}

impl SmtEq {
    /// Whether `x` and `y` are equal wherever both are defined, the leaves of `y` paired with
    /// leaves of `x` by `paired` (`Ok(true)`: provably equal values in the current state).
    /// `wrap`: signed arithmetic wraps instead of being undefined on overflow.
    /// `stable`: whether every occurrence of a leaf in one expression has one value (a
    /// non-volatile variable, a guard); other leaves (reads of memory) are unknowns of their
    /// own at each occurrence.
    /// `left`: the analysis's time left (`None`: unbounded). `def`: the pure expression a
    /// variable is known to hold ([`super::defs`]), substituted before the comparison, so that
    /// a straight-line block computing through temporaries is compared as a whole.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn equal<E>(
        &mut self,
        x: &Expr,
        y: &Expr,
        wrap: bool,
        left: Option<std::time::Duration>,
        stable: &dyn Fn(&Expr) -> bool,
        def: &dyn Fn(&Expr) -> Option<Expr>,
        call_def: &dyn Fn(&Expr) -> Option<(String, Expr)>,
        mut paired: impl FnMut(&Expr, &Expr) -> Result<bool, E>,
    ) -> Result<bool, E> {
        if x.ty != y.ty || !is_int(&x.ty) || x == y {
            return Ok(false);
        }
        let (x, y) = (&expand(x, def, 3), &expand(y, def, 3));
        let mut calls = Calls::new();
        gather(x, def, call_def, &mut calls, 2);
        gather(y, def, call_def, &mut calls, 2);
        let (mut lx, mut ly) = (vec![], vec![]);
        if !leaves(x, &mut lx, stable, &calls)
            || !leaves(y, &mut ly, stable, &calls)
            || !worth_it(x, y, &calls)
        {
            return Ok(false);
        }
        if lx.len() > MAX_LEAVES || ly.len() > MAX_LEAVES {
            return Ok(false);
        }
        // each leaf of `y`: the leaf of `x` it is equal to
        let mut pairing = Vec::with_capacity(ly.len());
        for b in &ly {
            let mut found = None;
            for (k, a) in lx.iter().enumerate() {
                if a.ty == b.ty && paired(a, b)? {
                    found = Some(k);
                    break;
                }
            }
            pairing.push(found);
        }
        let key = (format!("{x:?} = {y:?} where {calls:?}"), pairing);
        if let Some(r) = self.cache.get(&key) {
            return Ok(*r);
        }
        let allowed = *self
            .allowed
            .get_or_insert_with(|| left.map_or(MAX_TOTAL, |l| MAX_TOTAL.min(l / 4)));
        if self.queries >= MAX_QUERIES || self.spent >= allowed {
            return Ok(false);
        }
        self.queries += 1;
        let start = std::time::Instant::now();
        let ctx = self.ctx.get_or_insert_with(|| Context::new(&Config::new()));
        let r = prove(ctx, (x, y), (&lx, &ly), &key.1, wrap, stable, &calls);
        self.spent += start.elapsed();
        self.cache.insert(key, r);
        Ok(r)
    }
}

/// `e` with each variable that holds a known pure integer expression replaced by it, `depth`
/// levels deep (a definition's operands are variables not written since, so the value is
/// the same).
fn expand(e: &Expr, def: &dyn Fn(&Expr) -> Option<Expr>, depth: u32) -> Expr {
    if depth == 0 {
        return e.clone();
    }
    let sub = |x: &Expr| Box::new(expand(x, def, depth));
    let kind = match &e.kind {
        ExprKind::Var(_) => {
            return match def(e) {
                Some(d) if d.ty == e.ty && is_int(&d.ty) => expand(&d, def, depth - 1),
                _ => e.clone(),
            }
        }
        ExprKind::Cast(x) => ExprKind::Cast(sub(x)),
        ExprKind::Unary(op, x) => ExprKind::Unary(*op, sub(x)),
        ExprKind::Binary(op, a, b) => ExprKind::Binary(*op, sub(a), sub(b)),
        ExprKind::Logic(op, a, b) => ExprKind::Logic(*op, sub(a), sub(b)),
        k => k.clone(),
    };
    Expr {
        kind,
        ty: e.ty.clone(),
    }
}

/// Variables holding the result of a GCC bit builtin ([`super::defs::Def::Call`]): the
/// builtin's name and its argument (expanded like the compared expressions). Encoded as the
/// builtin of the argument instead of as leaves.
type Calls = BTreeMap<VarId, (String, Expr)>;

/// The builtin results `e` reads, and those their arguments read, `depth` levels deep.
fn gather(
    e: &Expr,
    def: &dyn Fn(&Expr) -> Option<Expr>,
    call_def: &dyn Fn(&Expr) -> Option<(String, Expr)>,
    calls: &mut Calls,
    depth: u32,
) {
    if depth == 0 {
        return;
    }
    let mut found = vec![];
    e.walk(&mut |n| {
        if let ExprKind::Var(v) = n.kind {
            if !calls.contains_key(&v) {
                if let Some((name, arg)) = call_def(n) {
                    if crate::cbv::bit_builtin_width(&name).is_some() {
                        found.push((v, name, expand(&arg, def, 2)));
                    }
                }
            }
        }
    });
    for (v, name, arg) in found {
        gather(&arg, def, call_def, calls, depth - 1);
        calls.insert(v, (name, arg));
    }
}

fn is_int(t: &CType) -> bool {
    matches!(t, CType::Int { .. } | CType::Bool)
}

fn width(t: &CType) -> Option<u32> {
    match t {
        CType::Bool => Some(1),
        CType::Int { bits, .. } => Some(u32::from(*bits)),
        _ => None,
    }
}

fn signed(t: &CType) -> bool {
    matches!(t, CType::Int { signed: true, .. })
}

/// Collects the leaves of `e` (integer-typed): each stable one once, the others at every
/// occurrence; false when `e` has a node the encoding does not know (floating or pointer
/// values, a value the frontend could not model) or is too big.
fn leaves<'e>(
    e: &'e Expr,
    out: &mut Vec<&'e Expr>,
    stable: &dyn Fn(&Expr) -> bool,
    calls: &'e Calls,
) -> bool {
    let mut nodes = 0;
    walk(e, out, &mut nodes, stable, calls) && nodes <= MAX_NODES
}

fn walk<'e>(
    e: &'e Expr,
    out: &mut Vec<&'e Expr>,
    nodes: &mut usize,
    stable: &dyn Fn(&Expr) -> bool,
    calls: &'e Calls,
) -> bool {
    *nodes += 1;
    if *nodes > MAX_NODES || !is_int(&e.ty) {
        return false;
    }
    match &e.kind {
        ExprKind::Int(_) => true,
        // a builtin's result: the leaves of its argument
        ExprKind::Var(v) if calls.contains_key(v) => walk(&calls[v].1, out, nodes, stable, calls),
        ExprKind::Cast(x) | ExprKind::Unary(_, x) => walk(x, out, nodes, stable, calls),
        ExprKind::Binary(BinOp::PtrDiff, ..) | ExprKind::Opaque(_) => false,
        ExprKind::Binary(_, a, b) | ExprKind::Logic(_, a, b) => {
            walk(a, out, nodes, stable, calls) && walk(b, out, nodes, stable, calls)
        }
        _ => {
            if !(stable(e) && out.contains(&e)) {
                out.push(e);
            }
            true
        }
    }
}

/// Whether leaf `l` stands for node `e`: the same occurrence, or equal stable leaves.
fn same_leaf(l: &Expr, e: &Expr, stable: &dyn Fn(&Expr) -> bool) -> bool {
    std::ptr::eq(l, e) || (stable(e) && l == e)
}

/// Only pairs a cheaper check cannot settle: both sides compute something (a leaf against a
/// leaf is the linear check's business), and one uses an operation the numeric domains do not
/// relate exactly (products, division, bit operations, shifts).
fn worth_it(x: &Expr, y: &Expr, calls: &Calls) -> bool {
    fn nonlinear(e: &Expr, calls: &Calls) -> bool {
        let inner = |e: &Expr| nonlinear(e, calls);
        match &e.kind {
            ExprKind::Var(v) => calls.contains_key(v),
            ExprKind::Binary(op, a, b) => {
                matches!(
                    op,
                    BinOp::Mul
                        | BinOp::Div
                        | BinOp::Rem
                        | BinOp::Shl
                        | BinOp::Shr
                        | BinOp::BitAnd
                        | BinOp::BitOr
                        | BinOp::BitXor
                ) || inner(a)
                    || inner(b)
            }
            ExprKind::Unary(UnOp::BitNot, _) => true,
            ExprKind::Cast(a) | ExprKind::Unary(_, a) => inner(a),
            ExprKind::Logic(_, a, b) => inner(a) || inner(b),
            _ => false,
        }
    }
    nonlinear(x, calls) || nonlinear(y, calls)
}

/// `x = y` for all leaf values where both are defined.
fn prove(
    ctx: &Context,
    (x, y): (&Expr, &Expr),
    (lx, ly): (&[&Expr], &[&Expr]),
    pairing: &[Option<usize>],
    wrap: bool,
    stable: &dyn Fn(&Expr) -> bool,
    calls: &Calls,
) -> bool {
    let konst = |k: usize, e: &Expr| width(&e.ty).map(|w| BV::new_const(ctx, format!("l!{k}"), w));
    let Some(cx) = lx
        .iter()
        .enumerate()
        .map(|(k, e)| konst(k, e))
        .collect::<Option<Vec<_>>>()
    else {
        return false;
    };
    let mut cy = vec![];
    for (k, (e, p)) in ly.iter().zip(pairing).enumerate() {
        match p {
            Some(i) => cy.push(cx[*i].clone()),
            None => match konst(lx.len() + k, e) {
                Some(c) => cy.push(c),
                None => return false,
            },
        }
    }
    let mut enc = Enc {
        ctx,
        wrap,
        stable,
        calls,
        defined: vec![],
        under: vec![],
        leaves: vec![],
    };
    enc.leaves = lx.iter().copied().zip(cx).collect();
    let Some(vx) = enc.expr(x) else {
        return false;
    };
    enc.leaves = ly.iter().copied().zip(cy).collect();
    let Some(vy) = enc.expr(y) else {
        return false;
    };
    let solver = Solver::new(ctx);
    let mut p = Params::new(ctx);
    p.set_u32("timeout", QUERY_MS);
    solver.set_params(&p);
    for d in &enc.defined {
        solver.assert(d);
    }
    solver.assert(&vx._eq(&vy).not());
    solver.check() == SatResult::Unsat
}

/// C expressions as bit-vectors over the leaves' constants, with the conditions under which
/// evaluating them is defined.
struct Enc<'c, 'e> {
    ctx: &'c Context,
    wrap: bool,
    stable: &'e dyn Fn(&Expr) -> bool,
    calls: &'e Calls,
    defined: Vec<Bool<'c>>,
    /// Conditions under which the subexpression being encoded is evaluated (`&&`, `||`).
    under: Vec<Bool<'c>>,
    leaves: Vec<(&'e Expr, BV<'c>)>,
}

impl<'c> Enc<'c, '_> {
    fn konst(&self, v: i128, w: u32) -> BV<'c> {
        let m = if w >= 64 { u64::MAX } else { (1u64 << w) - 1 };
        BV::from_u64(self.ctx, (v as u64) & m, w)
    }

    fn define(&mut self, cond: Bool<'c>) {
        let f = if self.under.is_empty() {
            cond
        } else {
            let u: Vec<&Bool<'c>> = self.under.iter().collect();
            Bool::and(self.ctx, &u).implies(&cond)
        };
        self.defined.push(f);
    }

    fn nonzero(&self, v: &BV<'c>) -> Bool<'c> {
        v._eq(&self.konst(0, v.get_size())).not()
    }

    fn of_bool(&self, b: &Bool<'c>, w: u32) -> BV<'c> {
        b.ite(&self.konst(1, w), &self.konst(0, w))
    }

    /// `v` of type `from` converted to `w` bits.
    fn resize(v: BV<'c>, from: &CType, w: u32) -> BV<'c> {
        let n = v.get_size();
        if n == w {
            v
        } else if n > w {
            v.extract(w - 1, 0)
        } else if signed(from) {
            v.sign_ext(w - n)
        } else {
            v.zero_ext(w - n)
        }
    }

    fn operand(&mut self, e: &Expr, w: u32) -> Option<BV<'c>> {
        let v = self.expr(e)?;
        Some(Self::resize(v, &e.ty, w))
    }

    fn truth(&mut self, e: &Expr) -> Option<Bool<'c>> {
        let v = self.expr(e)?;
        Some(self.nonzero(&v))
    }

    fn expr(&mut self, e: &Expr) -> Option<BV<'c>> {
        let w = width(&e.ty)?;
        match &e.kind {
            ExprKind::Int(v) => Some(if e.ty == CType::Bool {
                self.konst(i128::from(*v != 0), 1)
            } else {
                self.konst(*v, w)
            }),
            ExprKind::Cast(x) => {
                if e.ty == CType::Bool {
                    let t = self.truth(x)?;
                    return Some(self.of_bool(&t, 1));
                }
                self.operand(x, w)
            }
            ExprKind::Unary(op, x) => {
                if *op == UnOp::LogNot {
                    let t = self.truth(x)?.not();
                    return Some(self.of_bool(&t, w));
                }
                let v = self.operand(x, w)?;
                Some(match op {
                    UnOp::Neg => {
                        if signed(&e.ty) && !self.wrap {
                            self.define(crate::cbv::neg_defined(self.ctx, &v));
                        }
                        v.bvneg()
                    }
                    _ => v.bvnot(),
                })
            }
            ExprKind::Logic(op, a, b) => {
                let ta = self.truth(a)?;
                let when = match op {
                    LogicOp::And => ta.clone(),
                    LogicOp::Or => ta.not(),
                };
                self.under.push(when);
                let tb = self.truth(b);
                self.under.pop();
                let tb = tb?;
                let t = match op {
                    LogicOp::And => Bool::and(self.ctx, &[&ta, &tb]),
                    LogicOp::Or => Bool::or(self.ctx, &[&ta, &tb]),
                };
                Some(self.of_bool(&t, w))
            }
            ExprKind::Binary(op, a, b) => self.binary(*op, a, b, &e.ty, w),
            ExprKind::Var(v) if self.calls.contains_key(v) => {
                let calls = self.calls;
                let (name, arg) = &calls[v];
                let a = self.operand(arg, crate::cbv::bit_builtin_width(name)?)?;
                let (r, defined) = crate::cbv::bit_builtin(self.ctx, name, &a)?;
                for d in defined {
                    self.define(d);
                }
                // the result in the variable's type (`int`, or the `bswap`'s own)
                let from = CType::Int {
                    bits: r.get_size() as u8,
                    signed: !name.contains("bswap"),
                };
                Some(Self::resize(r, &from, w))
            }
            _ => self
                .leaves
                .iter()
                .find(|(l, _)| same_leaf(l, e, self.stable))
                .map(|(_, c)| c.clone()),
        }
    }

    fn binary(&mut self, op: BinOp, a: &Expr, b: &Expr, ty: &CType, w: u32) -> Option<BV<'c>> {
        use BinOp::*;
        if matches!(op, Eq | Ne | Lt | Le | Gt | Ge) {
            // operands in their common type
            let ow = width(&a.ty)?.max(width(&b.ty)?);
            let s = signed(&a.ty) && signed(&b.ty);
            let x = self.operand(a, ow)?;
            let y = self.operand(b, ow)?;
            let t = match (op, s) {
                (Eq, _) => x._eq(&y),
                (Ne, _) => x._eq(&y).not(),
                (Lt, true) => x.bvslt(&y),
                (Lt, false) => x.bvult(&y),
                (Le, true) => x.bvsle(&y),
                (Le, false) => x.bvule(&y),
                (Gt, true) => x.bvsgt(&y),
                (Gt, false) => x.bvugt(&y),
                (Ge, true) => x.bvsge(&y),
                (_, _) => x.bvuge(&y),
            };
            return Some(self.of_bool(&t, w));
        }
        let s = signed(ty);
        let x = self.operand(a, w)?;
        let y = if matches!(op, Shl | Shr) {
            // the count in its own type: not negative, below the width
            let cw = width(&b.ty)?;
            let c = self.expr(b)?;
            if signed(&b.ty) {
                self.define(c.bvsge(&self.konst(0, cw)));
            }
            let wide = cw.max(w);
            let c = Self::resize(c, &b.ty, wide);
            self.define(c.bvult(&self.konst(i128::from(w), wide)));
            Self::resize(c, &CType::ULONG, w)
        } else {
            self.operand(b, w)?
        };
        let (r, defined) = crate::cbv::int_op(self.ctx, op, &x, &y, s, self.wrap)?;
        for d in defined {
            self.define(d);
        }
        Some(r)
    }
}
