//! Symbolic witness search, part 2: one path of the correlating program as a z3 bit-vector
//! formula `WP(f, path) ∧ inputs equal`, and its models as candidate inputs.
//!
//! Takes the correlating program, a diff point, a complete path entry → diff point (from
//! [`super::dfa`]) and a callback that validates a candidate; gives the callback's result for the
//! first candidate it accepts. The path is encoded forwards in SSA form, which is the weakest
//! precondition of the failure condition along it: every edge assumes its instruction's guard
//! (executed, or a `goto` jumping) or its negation (skipped, or falling through); a `g := e`
//! defines a Boolean, an assignment to a scalar variable a new bit-vector. Values follow the C
//! types: a `w`-bit integer is a `w`-bit vector, comparisons, division, remainder and right
//! shifts are signed or unsigned by the operand type (`bvsdiv`/`bvsrem` truncate like C),
//! conversions extend by the source's signedness or truncate, `_Bool` is one bit. Evaluating an
//! executed instruction must not be undefined behaviour (the interpreter would reject the
//! witness), so signed overflow, division by zero, out-of-range shifts and negative left shifts
//! are excluded along the path. What is not modelled — memory reads, calls, floating point,
//! addresses — is a fresh unconstrained value of the right width; stores through pointers and
//! calls forget the address-taken variables and globals of their version. Such a value can make
//! a model spurious, which the caller's validation by execution catches.
//!
//! Inputs: the product's parameters (the new version's are copies of the old ones by its
//! prologue) and the globals, which start from their initializers as they do when the witness is
//! executed (an `extern` global without one is unconstrained, shared by the two versions when
//! [`crate::correlate::Input::equal`]). The failure condition `f` at a return point or at the
//! exit is "both versions returned and a compared pair differs"; at an output or effect point,
//! "only one version performs it, or both do with different arithmetic arguments". Models are
//! asked with small inputs first (|x| ≤ 2^4, 2^8, 2^16, then unbounded) and each one tried is
//! blocked before the next.

use std::time::Instant;

use z3::ast::{Ast, Bool, BV};
use z3::{Context, Model, Params, SatResult, Solver};

use crate::correlate::{Correlated, DiffKind, DiffPoint, Side, PURE_FUNCTIONS};
use crate::gcl::{GclFunction, Guard, InstrKind};
use crate::ir::{BinOp, CType, Callee, Expr, ExprKind, LogicOp, Place, UnOp, VarId, VarKind};

use super::dfa::Edge;

/// Longest single solver call.
const CHECK_MS: u128 = 2000;
/// Magnitude bounds tried before an unbounded model (|x| ≤ 2^k).
const BOUNDS: [u32; 3] = [4, 8, 16];

/// Bits of a scalar type's value (`_Bool`: 1); `None` for aggregates and `void`.
fn width(t: &CType) -> Option<u32> {
    match t {
        CType::Bool => Some(1),
        CType::Int { bits, .. } => Some(u32::from(*bits)),
        CType::Ptr(_) => Some(64),
        CType::Float => Some(32),
        CType::Double => Some(64),
        _ => None,
    }
}

fn signed(t: &CType) -> bool {
    matches!(t, CType::Int { signed: true, .. })
}

/// Width and signedness an integer operation is done in (`_Bool` operands are promoted to int).
fn arith(t: &CType) -> (u32, bool) {
    match t {
        CType::Int { bits, signed } => (u32::from(*bits), *signed),
        CType::Ptr(_) => (64, false),
        _ => (32, true),
    }
}

fn is_int(t: &CType) -> bool {
    t.is_integer() || t.is_pointer()
}

struct Enc<'ctx, 'a> {
    ctx: &'ctx Context,
    c: &'a Correlated,
    f: &'a GclFunction,
    vars: Vec<Option<BV<'ctx>>>,
    guards: Vec<Bool<'ctx>>,
    /// Path conditions and definedness conditions.
    facts: Vec<Bool<'ctx>>,
    /// Conditions under which the expression being encoded is evaluated (`&&`, `||`).
    under: Vec<Bool<'ctx>>,
    /// Initial values of the product's parameters.
    params: Vec<BV<'ctx>>,
}

impl<'ctx, 'a> Enc<'ctx, 'a> {
    fn new(ctx: &'ctx Context, c: &'a Correlated) -> Self {
        let f = c.product();
        let mut e = Enc {
            ctx,
            c,
            f,
            vars: vec![None; f.func.vars.len()],
            guards: vec![Bool::from_bool(ctx, false); f.guards.len()],
            facts: vec![],
            under: vec![],
            params: vec![],
        };
        // Globals compared as equal inputs share one unknown when their value is not known.
        let mut shared: Vec<(VarId, BV<'ctx>)> = vec![];
        for inp in c.inputs.iter().filter(|i| i.equal) {
            if let (Some(o), Some(n)) = (inp.old, inp.new) {
                let info = f.func.var(o);
                if let (VarKind::Global(_), Some(w)) = (info.kind, width(&info.ty)) {
                    let b = BV::new_const(ctx, format!("global!{}", info.name), w);
                    shared.push((o, b.clone()));
                    shared.push((n, b));
                }
            }
        }
        for (i, info) in f.func.vars.iter().enumerate() {
            let Some(w) = width(&info.ty) else { continue };
            let v = VarId::new(i);
            e.vars[i] = Some(match info.kind {
                VarKind::Param => BV::new_const(ctx, format!("in!{}", info.name), w),
                VarKind::Global(g) => match e.global_init(g, &info.ty) {
                    Some(b) => b,
                    None => match shared.iter().find(|(x, _)| *x == v) {
                        Some((_, b)) => b.clone(),
                        None => e.fresh(w),
                    },
                },
                _ => e.fresh(w),
            });
        }
        for p in &f.func.params {
            if let Some(b) = &e.vars[p.index()] {
                e.params.push(b.clone());
            }
        }
        e
    }

    /// The value a scalar global starts with when the program is loaded.
    fn global_init(&self, g: crate::ir::GlobalId, ty: &CType) -> Option<BV<'ctx>> {
        let gv = self.c.program.program.globals.get(g.index())?;
        if gv.is_extern || !is_int(ty) {
            return None;
        }
        let w = width(ty)?;
        match gv.init.iter().find(|(off, _, _)| *off == 0) {
            None => Some(self.konst(0, w)),
            Some((_, t, e)) if t == ty => match e.kind {
                ExprKind::Int(v) if !t.is_pointer() => Some(self.konst(v, w)),
                _ => None,
            },
            Some(_) => None,
        }
    }

    fn fresh(&self, w: u32) -> BV<'ctx> {
        BV::fresh_const(self.ctx, "u", w)
    }

    fn konst(&self, v: i128, w: u32) -> BV<'ctx> {
        if w <= 64 {
            let m = if w == 64 { u64::MAX } else { (1u64 << w) - 1 };
            BV::from_u64(self.ctx, (v as u64) & m, w)
        } else {
            let hi = BV::from_u64(self.ctx, (v >> 64) as u64, 64);
            let lo = BV::from_u64(self.ctx, v as u64, 64);
            resize(&hi.concat(&lo), false, w)
        }
    }

    fn bool_bv(&self, b: &Bool<'ctx>, w: u32) -> BV<'ctx> {
        b.ite(&self.konst(1, w), &self.konst(0, w))
    }

    fn nonzero(&self, v: &BV<'ctx>) -> Bool<'ctx> {
        v._eq(&self.konst(0, v.get_size())).not()
    }

    /// Record that evaluating the current expression is defined.
    fn defined(&mut self, cond: Bool<'ctx>) {
        let f = if self.under.is_empty() {
            cond
        } else {
            let u: Vec<&Bool<'ctx>> = self.under.iter().collect();
            Bool::and(self.ctx, &u).implies(&cond)
        };
        self.facts.push(f);
    }

    fn guard(&self, g: &Guard) -> Bool<'ctx> {
        let lits: Vec<Bool<'ctx>> =
            g.0.iter()
                .map(|l| {
                    let b = self.guards[l.guard.index()].clone();
                    if l.positive {
                        b
                    } else {
                        b.not()
                    }
                })
                .collect();
        let refs: Vec<&Bool<'ctx>> = lits.iter().collect();
        Bool::and(self.ctx, &refs)
    }

    // ---------------------------------------------------------------------- expressions

    /// The value of a scalar expression, `None` for aggregates and `void`.
    fn expr(&mut self, e: &Expr) -> Option<BV<'ctx>> {
        let w = width(&e.ty)?;
        Some(match &e.kind {
            ExprKind::Int(v) => match e.ty {
                CType::Bool => self.konst(i128::from(*v != 0), 1),
                CType::Float | CType::Double => self.fresh(w),
                _ => self.konst(*v, w),
            },
            ExprKind::Var(v) => match &self.vars[v.index()] {
                Some(b) if b.get_size() == w => b.clone(),
                _ => self.fresh(w),
            },
            ExprKind::Guard(g) => self.bool_bv(&self.guards[g.index()].clone(), w),
            ExprKind::AddrOf(_)
            | ExprKind::Str(_)
            | ExprKind::GlobalAddr(_)
            | ExprKind::FuncAddr(_) => {
                let b = self.fresh(w);
                self.facts.push(self.nonzero(&b));
                b
            }
            ExprKind::Float(_) | ExprKind::Load(_) | ExprKind::Opaque(_) => self.fresh(w),
            ExprKind::Cast(x) => self.cast(x, &e.ty, w),
            ExprKind::Unary(op, x) => self.unary(*op, x, &e.ty, w),
            ExprKind::Logic(..) => {
                let t = self.truth(e);
                self.bool_bv(&t, w)
            }
            ExprKind::Binary(op, a, b) => self.binary(*op, a, b, &e.ty, w),
        })
    }

    /// An operand converted to `(w, _)` from its own type.
    fn operand(&mut self, e: &Expr, w: u32) -> BV<'ctx> {
        match self.expr(e) {
            Some(b) => resize(&b, signed(&e.ty), w),
            None => self.fresh(w),
        }
    }

    /// C truth value of an expression.
    fn truth(&mut self, e: &Expr) -> Bool<'ctx> {
        match &e.kind {
            ExprKind::Logic(op, a, b) => {
                let ta = self.truth(a);
                let when = match op {
                    LogicOp::And => ta.clone(),
                    LogicOp::Or => ta.not(),
                };
                self.under.push(when);
                let tb = self.truth(b);
                self.under.pop();
                match op {
                    LogicOp::And => Bool::and(self.ctx, &[&ta, &tb]),
                    LogicOp::Or => Bool::or(self.ctx, &[&ta, &tb]),
                }
            }
            ExprKind::Unary(UnOp::LogNot, x) => self.truth(x).not(),
            ExprKind::Guard(g) => self.guards[g.index()].clone(),
            ExprKind::Int(v) if !e.ty.is_float() => Bool::from_bool(self.ctx, *v != 0),
            ExprKind::Binary(op, a, b) if is_comparison(*op) => self.compare(*op, a, b),
            // Widening or to `_Bool` keeps zero-ness.
            ExprKind::Cast(x)
                if is_int(&x.ty)
                    && (e.ty == CType::Bool || (is_int(&e.ty) && width(&e.ty) >= width(&x.ty))) =>
            {
                self.truth(x)
            }
            _ if e.ty.is_float() => {
                self.expr(e);
                Bool::fresh_const(self.ctx, "f")
            }
            _ => match self.expr(e) {
                Some(b) => self.nonzero(&b),
                None => Bool::fresh_const(self.ctx, "t"),
            },
        }
    }

    fn compare(&mut self, op: BinOp, a: &Expr, b: &Expr) -> Bool<'ctx> {
        if a.ty.is_float() || b.ty.is_float() || !is_int(&a.ty) {
            self.expr(a);
            self.expr(b);
            return Bool::fresh_const(self.ctx, "f");
        }
        let (w, s) = arith(&a.ty);
        let w = if a.ty == CType::Bool { 1 } else { w };
        let x = self.operand(a, w);
        let y = self.operand(b, w);
        match (op, s) {
            (BinOp::Eq, _) => x._eq(&y),
            (BinOp::Ne, _) => x._eq(&y).not(),
            (BinOp::Lt, true) => x.bvslt(&y),
            (BinOp::Lt, false) => x.bvult(&y),
            (BinOp::Le, true) => x.bvsle(&y),
            (BinOp::Le, false) => x.bvule(&y),
            (BinOp::Gt, true) => x.bvsgt(&y),
            (BinOp::Gt, false) => x.bvugt(&y),
            (BinOp::Ge, true) => x.bvsge(&y),
            _ => x.bvuge(&y),
        }
    }

    fn cast(&mut self, x: &Expr, to: &CType, w: u32) -> BV<'ctx> {
        if *to == CType::Bool {
            let t = self.truth(x);
            return self.bool_bv(&t, 1);
        }
        if to.is_float() || x.ty.is_float() || !is_int(to) || !is_int(&x.ty) {
            self.expr(x);
            return self.fresh(w);
        }
        self.operand(x, w)
    }

    fn unary(&mut self, op: UnOp, x: &Expr, ty: &CType, w: u32) -> BV<'ctx> {
        if op == UnOp::LogNot {
            let t = self.truth(x).not();
            return self.bool_bv(&t, w);
        }
        if ty.is_float() || !is_int(ty) {
            self.expr(x);
            return self.fresh(w);
        }
        let (aw, s) = arith(ty);
        let v = self.operand(x, aw);
        let r = match op {
            UnOp::Neg => {
                if s {
                    self.defined(v.bvneg_no_overflow());
                }
                v.bvneg()
            }
            _ => v.bvnot(),
        };
        self.finish(r, ty, w)
    }

    /// An arithmetic result in the type of the expression (`_Bool`: non-zero).
    fn finish(&self, r: BV<'ctx>, ty: &CType, w: u32) -> BV<'ctx> {
        if *ty == CType::Bool {
            self.bool_bv(&self.nonzero(&r), 1)
        } else {
            resize(&r, false, w)
        }
    }

    fn binary(&mut self, op: BinOp, a: &Expr, b: &Expr, ty: &CType, w: u32) -> BV<'ctx> {
        if is_comparison(op) {
            let t = self.compare(op, a, b);
            return self.bool_bv(&t, w);
        }
        if a.ty.is_pointer() || b.ty.is_pointer() {
            return self.pointer_op(op, a, b, w);
        }
        if a.ty.is_float() || b.ty.is_float() || ty.is_float() || !is_int(ty) {
            self.expr(a);
            self.expr(b);
            return self.fresh(w);
        }
        let (aw, s) = arith(ty);
        let x = self.operand(a, aw);
        let y = self.operand(b, aw);
        let r = match op {
            BinOp::Add => {
                if s {
                    self.defined(x.bvadd_no_overflow(&y, true));
                    self.defined(x.bvadd_no_underflow(&y));
                }
                x.bvadd(&y)
            }
            BinOp::Sub => {
                if s {
                    self.defined(x.bvsub_no_overflow(&y));
                    self.defined(x.bvsub_no_underflow(&y, true));
                }
                x.bvsub(&y)
            }
            BinOp::Mul => {
                if s {
                    self.defined(x.bvmul_no_overflow(&y, true));
                    self.defined(x.bvmul_no_underflow(&y));
                }
                x.bvmul(&y)
            }
            BinOp::Div | BinOp::Rem => {
                self.defined(self.nonzero(&y));
                if s {
                    let min = self.konst(-(1i128 << (aw - 1)), aw);
                    let m1 = self.konst(-1, aw);
                    let ok = Bool::and(self.ctx, &[&x._eq(&min), &y._eq(&m1)]).not();
                    self.defined(ok);
                }
                match (op, s) {
                    (BinOp::Div, true) => x.bvsdiv(&y),
                    (BinOp::Div, false) => x.bvudiv(&y),
                    (_, true) => x.bvsrem(&y),
                    (_, false) => x.bvurem(&y),
                }
            }
            BinOp::Shl | BinOp::Shr => {
                // The count has the left operand's type: 0 <= y < width.
                let bits = self.konst(i128::from(aw), aw);
                if s {
                    self.defined(y.bvsge(&self.konst(0, aw)));
                }
                self.defined(y.bvult(&bits));
                if op == BinOp::Shl {
                    let r = x.bvshl(&y);
                    if s {
                        let zero = self.konst(0, aw);
                        let ok = Bool::and(
                            self.ctx,
                            &[&x.bvsge(&zero), &r.bvlshr(&y)._eq(&x), &r.bvsge(&zero)],
                        );
                        self.defined(ok);
                    }
                    r
                } else if s {
                    x.bvashr(&y)
                } else {
                    x.bvlshr(&y)
                }
            }
            BinOp::BitAnd => x.bvand(&y),
            BinOp::BitOr => x.bvor(&y),
            BinOp::BitXor => x.bvxor(&y),
            _ => self.fresh(aw),
        };
        self.finish(r, ty, w)
    }

    fn pointer_op(&mut self, op: BinOp, a: &Expr, b: &Expr, w: u32) -> BV<'ctx> {
        let prog = &self.c.program.program;
        let elem = |t: &CType| t.pointee().map_or(1, |p| prog.size_of(p)) as i128;
        match op {
            BinOp::Add | BinOp::Sub if a.ty.is_pointer() && is_int(&b.ty) && !b.ty.is_pointer() => {
                let sz = self.konst(elem(&a.ty), 64);
                let p = self.operand(a, 64);
                let n = self.operand(b, 64).bvmul(&sz);
                let r = if op == BinOp::Add {
                    p.bvadd(&n)
                } else {
                    p.bvsub(&n)
                };
                resize(&r, false, w)
            }
            BinOp::PtrDiff | BinOp::Sub if a.ty.is_pointer() && b.ty.is_pointer() => {
                let sz = self.konst(elem(&a.ty).max(1), 64);
                let d = self.operand(a, 64).bvsub(&self.operand(b, 64));
                resize(&d.bvsdiv(&sz), true, w)
            }
            _ => {
                self.expr(a);
                self.expr(b);
                self.fresh(w)
            }
        }
    }

    // ---------------------------------------------------------------------- instructions

    fn assign_var(&mut self, v: VarId, val: Option<BV<'ctx>>, from_signed: bool) {
        let w = width(&self.f.func.var(v).ty);
        self.vars[v.index()] = match (w, val) {
            (Some(w), Some(b)) => Some(resize(&b, from_signed, w)),
            (Some(w), None) => Some(self.fresh(w)),
            (None, _) => None,
        };
    }

    /// Forget what a store through a pointer or a call may change: the address-taken variables
    /// and globals of one version.
    fn forget(&mut self, side: Side) {
        for i in 0..self.vars.len() {
            let v = VarId::new(i);
            let info = self.f.func.var(v);
            let escapes = info.addr_taken || matches!(info.kind, VarKind::Global(_));
            if escapes && self.c.var_side(v) == side {
                if let Some(w) = width(&info.ty) {
                    self.vars[i] = Some(self.fresh(w));
                }
            }
        }
    }

    fn exec(&mut self, i: usize) {
        let ins = &self.f.instrs[i];
        let side = self.c.origin(crate::ir::Pos::new(i)).side;
        match &ins.kind {
            InstrKind::SetGuard(g, e) => {
                let t = self.truth(e);
                self.guards[g.index()] = t;
            }
            InstrKind::Assign(p, e) => {
                let val = self.expr(e);
                match p {
                    Place::Var(v) => self.assign_var(*v, val, signed(&e.ty)),
                    Place::Deref(..) => self.forget(side),
                    // Arrays and struct members are memory, which is not modelled.
                    _ => {}
                }
            }
            InstrKind::Havoc(Place::Var(v)) => self.assign_var(*v, None, false),
            InstrKind::ZeroFill(Place::Var(v)) => {
                let z = width(&self.f.func.var(*v).ty).map(|w| self.konst(0, w));
                self.assign_var(*v, z, false);
            }
            InstrKind::Havoc(_) | InstrKind::ZeroFill(_) | InstrKind::Goto(_) => {}
            InstrKind::Call { dest, callee, args } => {
                let vals: Vec<Option<BV<'ctx>>> = args.iter().map(|a| self.expr(a)).collect();
                let name = match callee {
                    Callee::Direct(n) => n.as_str(),
                    Callee::Indirect(e) => {
                        self.expr(e);
                        ""
                    }
                };
                let result = match (name, vals.first(), args.first()) {
                    ("abs" | "labs" | "llabs", Some(Some(x)), Some(a)) if signed(&a.ty) => {
                        let zero = self.konst(0, x.get_size());
                        self.defined(x.bvneg_no_overflow());
                        Some(x.bvslt(&zero).ite(&x.bvneg(), x))
                    }
                    ("__builtin_expect", Some(Some(x)), _) => Some(x.clone()),
                    _ => None,
                };
                let sgn = args.first().is_some_and(|a| signed(&a.ty));
                if !PURE_FUNCTIONS.contains(&name) {
                    self.forget(side);
                }
                if let Some(Place::Var(v)) = dest {
                    self.assign_var(*v, result, sgn);
                }
            }
        }
    }

    /// Follow one edge, assuming its guard outcome.
    fn step(&mut self, e: Edge) {
        let i = e.at as usize;
        let g = self.guard(&self.f.instrs[i].guard);
        if e.taken {
            self.facts.push(g);
            self.exec(i);
        } else {
            self.facts.push(g.not());
        }
    }

    /// Two values differ as C values (compared in 128 bits by each one's signedness).
    fn differ(&self, x: &BV<'ctx>, tx: &CType, y: &BV<'ctx>, ty: &CType) -> Bool<'ctx> {
        if x.get_size() == y.get_size() && (tx.is_float() || ty.is_float()) {
            return x._eq(y).not();
        }
        let a = resize(x, signed(tx), 128);
        let b = resize(y, signed(ty), 128);
        a._eq(&b).not()
    }

    /// The failure condition `f` at the diff point, in the state after the path.
    fn failure(&mut self, d: &DiffPoint) -> Bool<'ctx> {
        let c = self.c;
        let f = self.f;
        match &d.kind {
            DiffKind::Return | DiffKind::Exit => {
                let mut diffs = vec![];
                for &k in &d.pairs {
                    let Some(p) = c.pairs.get(k) else { continue };
                    let (to, tn) = (&f.func.var(p.old).ty, &f.func.var(p.new).ty);
                    if let (Some(x), Some(y)) =
                        (&self.vars[p.old.index()], &self.vars[p.new.index()])
                    {
                        diffs.push(self.differ(x, to, y, tn));
                    }
                }
                let refs: Vec<&Bool<'ctx>> = diffs.iter().collect();
                let any = Bool::or(self.ctx, &refs);
                let returned = match d.kind {
                    DiffKind::Return => true,
                    _ => c.old_retval.is_some() && c.new_retval.is_some(),
                };
                if returned {
                    let (ro, rn) = (
                        self.guards[c.old_ret.index()].clone(),
                        self.guards[c.new_ret.index()].clone(),
                    );
                    Bool::and(self.ctx, &[&ro, &rn, &any])
                } else {
                    any
                }
            }
            DiffKind::Output(_) | DiffKind::Effect(_) => {
                let at = |p: Option<usize>| p.and_then(|p| f.instrs.get(p));
                let (io, inew) = (
                    at(d.old_pos.map(|p| p.index())),
                    at(d.new_pos.map(|p| p.index())),
                );
                let go = io.map(|i| self.guard(&i.guard));
                let gn = inew.map(|i| self.guard(&i.guard));
                match (io, go, inew, gn) {
                    (Some(io), Some(go), Some(inew), Some(gn)) => {
                        let both = Bool::and(self.ctx, &[&go, &gn]);
                        let mut diffs = vec![];
                        if let (
                            InstrKind::Call { args: ao, .. },
                            InstrKind::Call { args: an, .. },
                        ) = (&io.kind, &inew.kind)
                        {
                            self.under.push(both.clone());
                            for (a, b) in ao.iter().zip(an) {
                                if !a.ty.is_arith() || !b.ty.is_arith() {
                                    continue;
                                }
                                if let (Some(x), Some(y)) = (self.expr(a), self.expr(b)) {
                                    diffs.push(self.differ(&x, &a.ty, &y, &b.ty));
                                }
                            }
                            self.under.pop();
                        }
                        let refs: Vec<&Bool<'ctx>> = diffs.iter().collect();
                        let args = Bool::or(self.ctx, &refs);
                        Bool::or(
                            self.ctx,
                            &[&go._eq(&gn).not(), &Bool::and(self.ctx, &[&both, &args])],
                        )
                    }
                    (_, Some(g), _, None) | (_, None, _, Some(g)) => g,
                    _ => Bool::from_bool(self.ctx, false),
                }
            }
        }
    }
}

fn is_comparison(op: BinOp) -> bool {
    matches!(
        op,
        BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge
    )
}

/// Extend (by `signed`) or truncate to `w` bits.
fn resize<'ctx>(v: &BV<'ctx>, signed: bool, w: u32) -> BV<'ctx> {
    let have = v.get_size();
    if w > have {
        if signed {
            v.sign_ext(w - have)
        } else {
            v.zero_ext(w - have)
        }
    } else if w < have {
        v.extract(w - 1, 0)
    } else {
        v.clone()
    }
}

/// A bit-vector numeral of a model as a C value (`signed`: two's complement).
fn numeral(m: &Model, v: &BV, signed: bool) -> Option<i128> {
    let w = v.get_size();
    let u: u128 = if w <= 64 {
        u128::from(m.eval(v, true)?.as_u64()?)
    } else {
        let lo = m.eval(&v.extract(63, 0), true)?.as_u64()?;
        let hi = m.eval(&v.extract(w - 1, 64), true)?.as_u64()?;
        u128::from(hi) << 64 | u128::from(lo)
    };
    let x = u as i128;
    Some(if signed && w < 128 && (x >> (w - 1)) & 1 == 1 {
        x - (1i128 << w)
    } else {
        x
    })
}

/// Solves paths to one diff point incrementally: the solver has one scope per edge of the last
/// path, so a path sharing a prefix with the previous one reuses its encoding (and what the
/// solver learnt about it).
pub(super) struct PathSolver<'ctx, 'a> {
    ctx: &'ctx Context,
    /// The failure condition's diff point; `None` asks only for inputs that follow the path.
    d: Option<&'a DiffPoint>,
    enc: Enc<'ctx, 'a>,
    solver: Solver<'ctx>,
    /// Edges of the encoded prefix, each with the state before it.
    stack: Vec<(Edge, Vec<Option<BV<'ctx>>>, Vec<Bool<'ctx>>)>,
    /// The old function's parameters (the candidates' values) and their types.
    inputs: Vec<(BV<'ctx>, CType)>,
}

impl<'ctx, 'a> PathSolver<'ctx, 'a> {
    /// `n_params`: how many of the product's parameters are the old function's.
    pub fn new(
        ctx: &'ctx Context,
        c: &'a Correlated,
        d: Option<&'a DiffPoint>,
        n_params: usize,
    ) -> Option<Self> {
        let enc = Enc::new(ctx, c);
        let fun = &c.product().func;
        let inputs: Vec<(BV<'ctx>, CType)> = fun
            .params
            .iter()
            .zip(&enc.params)
            .take(n_params)
            .map(|(p, b)| (b.clone(), fun.var(*p).ty.clone()))
            .collect();
        if inputs.len() < n_params {
            return None;
        }
        Some(PathSolver {
            ctx,
            d,
            enc,
            solver: Solver::new(ctx),
            stack: vec![],
            inputs,
        })
    }

    fn check(&self, deadline: Instant) -> Option<SatResult> {
        let left = deadline.checked_duration_since(Instant::now())?.as_millis();
        let mut p = Params::new(self.ctx);
        p.set_u32("timeout", left.clamp(1, CHECK_MS) as u32);
        self.solver.set_params(&p);
        Some(self.solver.check())
    }

    /// Make the solver's scopes hold exactly `path`; false when `deadline` passed first (the
    /// scopes then hold a prefix of it). Long paths (concolic traces of thousands of edges) take
    /// z3 seconds to assert, so the clock is read between edges.
    fn load(&mut self, path: &[Edge], deadline: Instant) -> bool {
        let mut k = 0;
        while k < self.stack.len() && k < path.len() && self.stack[k].0 == path[k] {
            k += 1;
        }
        if k < self.stack.len() {
            self.solver.pop((self.stack.len() - k) as u32);
            let (_, vars, guards) = self.stack.swap_remove(k);
            self.stack.truncate(k);
            self.enc.vars = vars;
            self.enc.guards = guards;
        }
        for (n, &e) in path[k..].iter().enumerate() {
            if n % 16 == 15 && Instant::now() > deadline {
                return false;
            }
            self.stack
                .push((e, self.enc.vars.clone(), self.enc.guards.clone()));
            self.solver.push();
            self.enc.step(e);
            for fact in self.enc.facts.drain(..) {
                self.solver.assert(&fact);
            }
        }
        true
    }

    /// Solve `WP(f, path) ∧ inputs equal` (without a diff point: the path condition alone) and
    /// offer up to `max_models` models, as values of the old function's parameters in order, to
    /// `accept`; gives the first thing `accept` returns.
    pub fn solve<T>(
        &mut self,
        path: &[Edge],
        deadline: Instant,
        max_models: usize,
        mut accept: impl FnMut(&[i128]) -> Option<T>,
    ) -> Option<T> {
        if !self.load(path, deadline) {
            return None;
        }
        self.solver.push();
        let found = self.models(deadline, max_models, &mut accept);
        self.solver.pop(1);
        found
    }

    fn models<T>(
        &mut self,
        deadline: Instant,
        max_models: usize,
        accept: &mut impl FnMut(&[i128]) -> Option<T>,
    ) -> Option<T> {
        let ctx = self.ctx;
        if let Some(d) = self.d {
            let f = self.enc.failure(d);
            for fact in self.enc.facts.drain(..) {
                self.solver.assert(&fact);
            }
            self.solver.assert(&f);
        }
        if self.check(deadline)? != SatResult::Sat {
            return None;
        }
        for _ in 0..max_models {
            let mut model = None;
            for k in BOUNDS {
                let bounds: Vec<Bool> = self
                    .inputs
                    .iter()
                    .filter_map(|(b, t)| {
                        let w = b.get_size();
                        if t.is_float() || w <= k + 1 {
                            return None;
                        }
                        let hi = BV::from_u64(ctx, 1 << k, w);
                        Some(if signed(t) {
                            Bool::and(ctx, &[&b.bvsge(&hi.bvneg()), &b.bvsle(&hi)])
                        } else {
                            b.bvule(&hi)
                        })
                    })
                    .collect();
                if bounds.is_empty() {
                    continue;
                }
                self.solver.push();
                for b in &bounds {
                    self.solver.assert(b);
                }
                if self.check(deadline) == Some(SatResult::Sat) {
                    model = self.solver.get_model();
                }
                self.solver.pop(1);
                if model.is_some() {
                    break;
                }
            }
            if model.is_none() && self.check(deadline)? == SatResult::Sat {
                model = self.solver.get_model();
            }
            let m = model?;
            let vals: Vec<i128> = self
                .inputs
                .iter()
                .map(|(b, t)| {
                    if t.is_float() {
                        0
                    } else {
                        numeral(&m, b, signed(t)).unwrap_or(0)
                    }
                })
                .collect();
            if let Some(t) = accept(&vals) {
                return Some(t);
            }
            // Block this model (integer inputs only) before asking for another.
            let others: Vec<Bool> = self
                .inputs
                .iter()
                .zip(&vals)
                .filter(|((_, t), _)| !t.is_float())
                .map(|((b, _), v)| b._eq(&self.enc.konst(*v, b.get_size())).not())
                .collect();
            if others.is_empty() {
                return None;
            }
            let refs: Vec<&Bool> = others.iter().collect();
            self.solver.assert(&Bool::or(ctx, &refs));
        }
        None
    }
}

/// The path the product takes on concrete inputs (for tests): every guard is decided by
/// simplification.
#[cfg(test)]
pub(super) fn trace(ctx: &Context, c: &Correlated, inputs: &[i128], stop: usize) -> Vec<Edge> {
    let mut enc = Enc::new(ctx, c);
    let f = c.product();
    for (k, p) in f.func.params.iter().enumerate() {
        let w = width(&f.func.var(*p).ty).expect("scalar parameter");
        enc.vars[p.index()] = Some(enc.konst(inputs[k], w));
    }
    let mut out = vec![];
    let mut i = 0;
    while i < f.instrs.len() && out.len() < 100_000 {
        if i == stop && !out.is_empty() {
            break;
        }
        let g = enc.guard(&f.instrs[i].guard).simplify().as_bool();
        let taken = g.expect("guard decided by the inputs");
        out.push(Edge {
            at: i as u32,
            taken,
        });
        if taken {
            enc.exec(i);
            if let Some(t) = c.cfg.target(crate::ir::Pos::new(i)) {
                i = t.index();
                continue;
            }
        }
        i += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

    use z3::{Config, Context};

    use super::super::concolic::product_trace;
    use super::super::testutil::{pair, with_runner};
    use super::PathSolver;

    /// A long path is loaded only while the deadline lasts. A concolic trace through a loop of
    /// hundreds of iterations has thousands of edges, and asserting them took z3 seconds past
    /// `--timeout` (found by the `diff` fuzz target: 18 s with `--timeout 1`).
    #[test]
    fn loading_a_long_path_stops_at_the_deadline() {
        let loop_src = |tail: &str| {
            format!("long f(int n) {{ long s = 0; if (n > 300) n = 300; while (n > 0) {{ s += 2; n--; }} return s{tail}; }}")
        };
        let p = pair(&loop_src(""), &loop_src(" + (n < -7)"), "f");
        with_runner(&p, "f", |r| {
            let path = product_trace(&p.c, r, &[300]).expect("trace");
            assert!(path.len() > 600, "{} edges", path.len());
            let ctx = Context::new(&Config::new());
            let mut ps = PathSolver::new(&ctx, &p.c, None, 1).expect("solver");
            let model = |v: &[i128]| Some(v.to_vec());
            assert_eq!(ps.solve(&path, Instant::now(), 1, model), None);
            assert!(ps.stack.len() < path.len(), "loaded past the deadline");
            // Given time, the same path loads whole (reusing the prefix) and has a model.
            let later = Instant::now() + Duration::from_secs(600);
            let vals = ps
                .solve(&path, later, 1, model)
                .expect("the trace's path is feasible");
            assert_eq!(ps.stack.len(), path.len());
            assert!(
                vals[0] >= 300,
                "{vals:?} does not follow the 300-iteration path"
            );
        });
    }
}
