//! Path encoding for the symbolic witness search: the correlating program's state along one
//! path as z3 terms, and the failure condition at the diff point.
//!
//! Takes the correlating program and the edges of a path, one at a time; gives the facts they
//! add (SSA, forwards: the weakest precondition of the failure condition along the path) and the
//! failure condition in the state after them. Every edge assumes its instruction's guard
//! (executed, or a `goto` jumping) or its negation (skipped, or falling through); a `g := e`
//! defines a Boolean, an assignment to a scalar variable a new bit-vector. Evaluating an executed
//! instruction must not be undefined behaviour (the interpreter would reject the witness), so its
//! definedness conditions are facts too. Stores through pointers and calls forget the
//! address-taken variables and globals of their version.
//!
//! Inputs: the product's parameters (the new version's are copies of the old ones by its
//! prologue) and the globals, which start from their initializers as they do when the witness is
//! executed (an `extern` global without one is unconstrained, shared by the two versions when
//! [`crate::correlate::Input::equal`]). The failure condition `f` at a return point or at the
//! exit is "both versions returned and a compared pair differs"; at an output or effect point,
//! "only one version performs it, or both do with different arithmetic arguments". The solving
//! is in the parent module, expressions in [`super::expr`].

use z3::ast::{Ast, Bool, BV};
use z3::Context;

use crate::correlate::{Correlated, DiffKind, DiffPoint, Side, PURE_FUNCTIONS};
use crate::gcl::{GclFunction, Guard, InstrKind};
use crate::ir::{CType, Callee, ExprKind, Place, VarId, VarKind};
use crate::witness::dfa::Edge;

/// Bits of a scalar type's value (`_Bool`: 1); `None` for aggregates and `void`.
pub(super) fn width(t: &CType) -> Option<u32> {
    match t {
        CType::Bool => Some(1),
        CType::Int { bits, .. } => Some(u32::from(*bits)),
        CType::Ptr(_) => Some(64),
        CType::Float => Some(32),
        CType::Double => Some(64),
        _ => None,
    }
}

pub(super) fn signed(t: &CType) -> bool {
    matches!(t, CType::Int { signed: true, .. })
}

/// Width and signedness an integer operation is done in (`_Bool` operands are promoted to int).
pub(super) fn arith(t: &CType) -> (u32, bool) {
    match t {
        CType::Int { bits, signed } => (u32::from(*bits), *signed),
        CType::Ptr(_) => (64, false),
        _ => (32, true),
    }
}

pub(super) fn is_int(t: &CType) -> bool {
    t.is_integer() || t.is_pointer()
}

/// The encoder's state after the edges stepped so far: each variable's and guard's current
/// term, and the facts not yet handed to the solver.
pub(super) struct Enc<'ctx, 'a> {
    pub(super) ctx: &'ctx Context,
    pub(super) c: &'a Correlated,
    pub(super) f: &'a GclFunction,
    pub(super) vars: Vec<Option<BV<'ctx>>>,
    pub(super) guards: Vec<Bool<'ctx>>,
    /// Path conditions and definedness conditions.
    pub(super) facts: Vec<Bool<'ctx>>,
    /// Conditions under which the expression being encoded is evaluated (`&&`, `||`).
    pub(super) under: Vec<Bool<'ctx>>,
    /// Initial values of the product's parameters.
    pub(super) params: Vec<BV<'ctx>>,
    /// The one result of each environment function called so far (see `interp::World`: one
    /// value per function, in both versions), with its declared return type.
    pub(super) externals: Vec<(String, BV<'ctx>, CType)>,
    /// The values runs give the constants of missing headers (`World::constants`), by name.
    constants: std::collections::BTreeMap<String, i128>,
    /// Floating-point definitions (SMT-LIB text) not yet handed to the solver, and the count
    /// of names made for them ([`super::float`]).
    pub(super) fp_defs: Vec<String>,
    pub(super) fp_count: usize,
    /// Floating-point operations encoded on the current path; past [`super::float::MAX_OPS`]
    /// their results are unconstrained, which keeps queries through long loops small.
    pub(super) fp_ops: usize,
}

impl<'ctx, 'a> Enc<'ctx, 'a> {
    pub(super) fn new(ctx: &'ctx Context, c: &'a Correlated) -> Self {
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
            externals: vec![],
            fp_defs: vec![],
            fp_count: 0,
            fp_ops: 0,
            constants: crate::witness::constant_values_of(
                c.program
                    .program
                    .globals
                    .iter()
                    .filter(|g| g.opaque && g.is_extern && g.ty.is_integer())
                    .map(|g| c.source_name(&g.name)),
            ),
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
        if gv.opaque && gv.is_extern && is_int(ty) {
            let v = self.constants.get(self.c.source_name(&gv.name))?;
            return Some(self.konst(*v, width(ty)?));
        }
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

    pub(super) fn fresh(&self, w: u32) -> BV<'ctx> {
        BV::fresh_const(self.ctx, "u", w)
    }

    pub(super) fn konst(&self, v: i128, w: u32) -> BV<'ctx> {
        if w <= 64 {
            let m = if w == 64 { u64::MAX } else { (1u64 << w) - 1 };
            BV::from_u64(self.ctx, (v as u64) & m, w)
        } else {
            let hi = BV::from_u64(self.ctx, (v >> 64) as u64, 64);
            let lo = BV::from_u64(self.ctx, v as u64, 64);
            resize(&hi.concat(&lo), false, w)
        }
    }

    pub(super) fn bool_bv(&self, b: &Bool<'ctx>, w: u32) -> BV<'ctx> {
        b.ite(&self.konst(1, w), &self.konst(0, w))
    }

    pub(super) fn nonzero(&self, v: &BV<'ctx>) -> Bool<'ctx> {
        v._eq(&self.konst(0, v.get_size())).not()
    }

    /// Record that evaluating the current expression is defined.
    pub(super) fn defined(&mut self, cond: Bool<'ctx>) {
        let f = if self.under.is_empty() {
            cond
        } else {
            let u: Vec<&Bool<'ctx>> = self.under.iter().collect();
            Bool::and(self.ctx, &u).implies(&cond)
        };
        self.facts.push(f);
    }

    pub(super) fn guard(&self, g: &Guard) -> Bool<'ctx> {
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

    pub(super) fn exec(&mut self, i: usize) {
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
                        self.defined(crate::cbv::neg_defined(self.ctx, x));
                        Some(x.bvslt(&zero).ite(&x.bvneg(), x))
                    }
                    ("__builtin_expect", Some(Some(x)), _) => Some(x.clone()),
                    _ => None,
                };
                let mut sgn = args.first().is_some_and(|a| signed(&a.ty));
                // A function of the environment: its one result, and no memory written.
                let prog = &self.c.program.program;
                if !name.is_empty() && crate::interp::is_environment(prog, name) {
                    let ret = prog
                        .externs
                        .iter()
                        .find(|(n, _)| n == name)
                        .map_or(CType::INT, |(_, ft)| ft.ret.clone());
                    if let (Some(Place::Var(_)), true) = (dest, is_int(&ret)) {
                        sgn = signed(&ret);
                        if let Some(v) = self.external(name, &ret) {
                            if let Some(Place::Var(v2)) = dest {
                                self.assign_var(*v2, Some(v), sgn);
                            }
                            return;
                        }
                    }
                    if ret == CType::Void || dest.is_none() {
                        return;
                    }
                }
                if !PURE_FUNCTIONS.contains(&name) {
                    self.forget(side);
                }
                if let Some(Place::Var(v)) = dest {
                    self.assign_var(*v, result, sgn);
                }
            }
        }
    }

    /// The result of environment function `name` (returning `ret`, an integer or pointer).
    fn external(&mut self, name: &str, ret: &CType) -> Option<BV<'ctx>> {
        if let Some((_, b, _)) = self.externals.iter().find(|(n, _, _)| n == name) {
            return Some(b.clone());
        }
        let b = BV::new_const(self.ctx, format!("ext!{name}"), width(ret)?);
        self.externals
            .push((name.to_string(), b.clone(), ret.clone()));
        Some(b)
    }

    /// Follow one edge, assuming its guard outcome.
    pub(super) fn step(&mut self, e: Edge) {
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
    pub(super) fn failure(&mut self, d: &DiffPoint) -> Bool<'ctx> {
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

/// Extend (by `signed`) or truncate to `w` bits.
pub(super) fn resize<'ctx>(v: &BV<'ctx>, signed: bool, w: u32) -> BV<'ctx> {
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
