//! Lowering of operators and C's conversions: unary and binary operators, assignments and
//! `++`/`--`, integer promotion, the usual arithmetic conversions, pointer arithmetic.
//!
//! Takes `lang-c` operator expressions and already lowered operands; gives typed IR expressions
//! in which every conversion is an explicit `Cast` and integer constants are folded (with
//! `frontend::consteval`), and emits assignments as statements. Called by `expr`.

use lang_c::ast::*;
use lang_c::span::Node;

use super::{Ctx, Res, Val};
use crate::frontend::consteval::{self, fold, normalize};
use crate::ir::{BinOp, CType, Expr, ExprKind, LogicOp, Place, Stmt, StmtKind, UnOp};

impl Ctx<'_> {
    pub(super) fn unary(&mut self, u: &Node<UnaryOperatorExpression>, off: usize) -> Res<Val> {
        let operand = &u.node.operand;
        match u.node.operator.node {
            UnaryOperator::PreIncrement => self.incdec(operand, true, false),
            UnaryOperator::PreDecrement => self.incdec(operand, false, false),
            UnaryOperator::PostIncrement => self.incdec(operand, true, true),
            UnaryOperator::PostDecrement => self.incdec(operand, false, true),
            UnaryOperator::Address => match self.expr(operand)? {
                Val::L(p, _) if super::expr::field_bits(self, &p).is_some() => {
                    Err(self.err(off, "cannot take the address of a bit-field"))
                }
                Val::L(p, t) => {
                    self.mark_addr_taken(&p);
                    Ok(Val::R(Expr::new(
                        ExprKind::AddrOf(Box::new(p)),
                        CType::Ptr(Box::new(t)),
                    )))
                }
                Val::G(g, t) => Ok(Val::R(Expr::new(
                    ExprKind::GlobalAddr(g),
                    CType::Ptr(Box::new(t)),
                ))),
                // `&func` is the function's address already.
                Val::R(x) if matches!(x.kind, ExprKind::FuncAddr(_)) => Ok(Val::R(x)),
                _ => Err(self.err(off, "cannot take the address of this expression")),
            },
            UnaryOperator::Indirection => {
                let p = self.rvalue(operand)?;
                let CType::Ptr(t) = p.ty.clone() else {
                    return Err(self.err(off, "dereference of a non-pointer"));
                };
                if let CType::Func(_) = *t {
                    return Ok(Val::R(p)); // `*fp` is the function again
                }
                if *t == CType::Void {
                    return Err(self.err(off, "dereference of a void pointer"));
                }
                Ok(Val::L(Place::Deref(p, (*t).clone()), *t))
            }
            UnaryOperator::Plus => {
                let x = self.rvalue(operand)?;
                if !x.ty.is_arith() {
                    return Err(self.err(off, "unary + of a non-arithmetic value"));
                }
                let t = promote(&x.ty);
                Ok(Val::R(self.convert(x, &t)))
            }
            UnaryOperator::Minus | UnaryOperator::Complement => {
                let x = self.rvalue(operand)?;
                let neg = u.node.operator.node == UnaryOperator::Minus;
                if !(x.ty.is_integer() || (neg && x.ty.is_float())) {
                    return Err(self.err(off, "invalid operand of unary operator"));
                }
                let t = promote(&x.ty);
                let x = self.convert(x, &t);
                if let (true, ExprKind::Float(f)) = (neg, &x.kind) {
                    return Ok(Val::R(Expr::new(ExprKind::Float(-f), t)));
                }
                let op = if neg { UnOp::Neg } else { UnOp::BitNot };
                Ok(Val::R(fold_expr(Expr::new(
                    ExprKind::Unary(op, Box::new(x)),
                    t,
                ))))
            }
            UnaryOperator::Negate => {
                let x = self.rvalue(operand)?;
                if !x.ty.is_scalar() {
                    return Err(self.err(off, "operand of ! is not a scalar"));
                }
                Ok(Val::R(fold_expr(Expr::new(
                    ExprKind::Unary(UnOp::LogNot, Box::new(x)),
                    CType::INT,
                ))))
            }
        }
    }

    /// `++x`, `x--` etc. Returns the value when used (`post`: the old value, saved in a temp).
    pub(super) fn incdec(&mut self, operand: &Node<Expression>, inc: bool, post: bool) -> Res<Val> {
        let off = operand.span.start;
        let (place, ty) = self.lvalue(operand)?;
        let old = self.rvalue_of(Val::L(place.clone(), ty.clone()), off)?;
        let saved = if post && self.f.is_some() {
            let hint = match &place {
                Place::Var(v) => self
                    .f
                    .as_ref()
                    .map(|f| f.vars[v.index()].name.clone())
                    .unwrap_or_default(),
                _ => "old".to_string(),
            };
            let hint = hint.split('#').next().unwrap_or("old").to_string();
            let t = self.temp(&hint, ty.clone());
            self.emit(StmtKind::Assign(Place::Var(t), old.clone()));
            Some(t)
        } else {
            None
        };
        let one = Expr::int(1, CType::INT);
        let op = if inc { BinOp::Add } else { BinOp::Sub };
        let new = self.arith(op, old, one, off)?;
        let new = self.convert(new, &ty);
        self.store(place.clone(), new);
        Ok(match saved {
            Some(t) => Val::R(Expr::var(t, ty)),
            None => self.assigned_value(place, ty),
        })
    }

    /// The value of an assignment expression: re-read a plain variable; anything else could be
    /// changed by the very store (`a[a[0]] = 5`), so a caller needing the value gets the place
    /// only when it is a variable.
    fn assigned_value(&mut self, place: Place, ty: CType) -> Val {
        Val::L(place, ty)
    }

    pub(super) fn binary(&mut self, b: &Node<BinaryOperatorExpression>, off: usize) -> Res<Val> {
        use BinaryOperator as B;
        let op = b.node.operator.node.clone();
        let arith_op = |o: &B| -> Option<BinOp> {
            Some(match o {
                B::Multiply | B::AssignMultiply => BinOp::Mul,
                B::Divide | B::AssignDivide => BinOp::Div,
                B::Modulo | B::AssignModulo => BinOp::Rem,
                B::Plus | B::AssignPlus => BinOp::Add,
                B::Minus | B::AssignMinus => BinOp::Sub,
                B::ShiftLeft | B::AssignShiftLeft => BinOp::Shl,
                B::ShiftRight | B::AssignShiftRight => BinOp::Shr,
                B::BitwiseAnd | B::AssignBitwiseAnd => BinOp::BitAnd,
                B::BitwiseXor | B::AssignBitwiseXor => BinOp::BitXor,
                B::BitwiseOr | B::AssignBitwiseOr => BinOp::BitOr,
                B::Less => BinOp::Lt,
                B::Greater => BinOp::Gt,
                B::LessOrEqual => BinOp::Le,
                B::GreaterOrEqual => BinOp::Ge,
                B::Equals => BinOp::Eq,
                B::NotEquals => BinOp::Ne,
                _ => return None,
            })
        };
        match op {
            B::Index => {
                let base = self.expr(&b.node.lhs)?;
                let idx_val = self.expr(&b.node.rhs)?;
                // `i[a]` is `a[i]`
                let (base, idx_val) = match (&base, &idx_val) {
                    (Val::R(x), _) if x.ty.is_integer() => (idx_val, base),
                    (Val::L(_, t), _) if t.is_integer() => (idx_val, base),
                    _ => (base, idx_val),
                };
                let idx = self.rvalue_of(idx_val, off)?;
                if !idx.ty.is_integer() {
                    return Err(self.err(off, "array index is not an integer"));
                }
                let idx = index_operand(self, idx);
                match base {
                    Val::L(p, CType::Array(elem, _)) => {
                        let e = (*elem).clone();
                        Ok(Val::L(Place::Index(Box::new(p), idx, e.clone()), e))
                    }
                    other => {
                        let ptr = self.rvalue_of(other, off)?;
                        let CType::Ptr(elem) = ptr.ty.clone() else {
                            return Err(
                                self.err(off, "subscripted value is not an array or pointer")
                            );
                        };
                        if self.f.is_none() {
                            return Err(self.err(
                                off,
                                "array access in a constant expression is not supported",
                            ));
                        }
                        let addr = Expr::new(
                            ExprKind::Binary(BinOp::Add, Box::new(ptr), Box::new(idx)),
                            CType::Ptr(elem.clone()),
                        );
                        Ok(Val::L(Place::Deref(addr, (*elem).clone()), *elem))
                    }
                }
            }
            B::LogicalAnd | B::LogicalOr => {
                let a = self.cond(&b.node.lhs)?;
                let (bx, stmts) = self.buffered(|cx| cx.cond(&b.node.rhs))?;
                let lop = if op == B::LogicalAnd {
                    LogicOp::And
                } else {
                    LogicOp::Or
                };
                if stmts.is_empty() {
                    return Ok(Val::R(fold_expr(Expr::new(
                        ExprKind::Logic(lop, Box::new(a), Box::new(bx)),
                        CType::INT,
                    ))));
                }
                let t = self.temp("cond", CType::INT);
                self.emit(StmtKind::Assign(Place::Var(t), a));
                let mut rest = stmts;
                let line = self.fs().line;
                rest.push(Stmt {
                    kind: StmtKind::Assign(Place::Var(t), bx),
                    line,
                });
                let (then_, else_) = if lop == LogicOp::And {
                    (rest, vec![])
                } else {
                    (vec![], rest)
                };
                self.emit(StmtKind::If {
                    cond: Expr::var(t, CType::INT),
                    then_,
                    else_,
                });
                Ok(Val::R(Expr::var(t, CType::INT)))
            }
            B::Assign => {
                let (place, ty) = self.lvalue(&b.node.lhs)?;
                let v = self.rvalue(&b.node.rhs)?;
                let v = self.convert_checked(v, &ty, b.node.rhs.span.start)?;
                if matches!(ty, CType::Array(..)) {
                    return Err(self.err(off, "assignment to an array"));
                }
                self.store(place.clone(), v);
                Ok(self.assigned_value(place, ty))
            }
            ref o
                if matches!(
                    o,
                    B::AssignMultiply
                        | B::AssignDivide
                        | B::AssignModulo
                        | B::AssignPlus
                        | B::AssignMinus
                        | B::AssignShiftLeft
                        | B::AssignShiftRight
                        | B::AssignBitwiseAnd
                        | B::AssignBitwiseXor
                        | B::AssignBitwiseOr
                ) =>
            {
                let (place, ty) = self.lvalue(&b.node.lhs)?;
                let old = self.rvalue_of(Val::L(place.clone(), ty.clone()), off)?;
                let rhs = self.rvalue(&b.node.rhs)?;
                let bop = arith_op(o).expect("compound operator");
                let v = self.arith(bop, old, rhs, off)?;
                let v = self.convert(v, &ty);
                self.store(place.clone(), v);
                Ok(self.assigned_value(place, ty))
            }
            o => {
                let a = self.rvalue(&b.node.lhs)?;
                let c = self.rvalue(&b.node.rhs)?;
                let bop = arith_op(&o).ok_or_else(|| self.err(off, "unsupported operator"))?;
                Ok(Val::R(self.arith(bop, a, c, off)?))
            }
        }
    }

    /// Typed binary operation with C's conversions (also used for `+=`, `++`).
    fn arith(&mut self, op: BinOp, a: Expr, b: Expr, off: usize) -> Res<Expr> {
        use BinOp::*;
        let pa = a.ty.is_pointer();
        let pb = b.ty.is_pointer();
        if matches!(op, Add | Sub) && (pa || pb) {
            // Elements of an assumed record (`Tables::assumed_structs`) are laid out with the
            // assumed size: what code can observe through indices and member names is the
            // same for every real size, since elements never overlap; a byte view of them
            // (a conversion to another pointee) is rejected where it is made.
            if pa && pb {
                if op == Add {
                    return Err(self.err(off, "addition of two pointers"));
                }
                return Ok(Expr::new(
                    ExprKind::Binary(PtrDiff, Box::new(a), Box::new(b)),
                    CType::LONG,
                ));
            }
            let (p, i) = if pa { (a, b) } else { (b, a) };
            if !i.ty.is_integer() {
                return Err(self.err(off, "pointer arithmetic with a non-integer"));
            }
            if op == Sub && !pa {
                return Err(self.err(off, "integer minus pointer"));
            }
            let i = index_operand(self, i);
            let ty = p.ty.clone();
            return Ok(Expr::new(
                ExprKind::Binary(op, Box::new(p), Box::new(i)),
                ty,
            ));
        }
        if matches!(op, Eq | Ne | Lt | Le | Gt | Ge) && (pa || pb) {
            // Pointer comparison; an integer operand must be a null pointer constant (or is
            // converted as GCC does with a warning).
            let pt = if pa { a.ty.clone() } else { b.ty.clone() };
            let a = self.convert(a, &pt);
            let b = self.convert(b, &pt);
            return Ok(Expr::new(
                ExprKind::Binary(op, Box::new(a), Box::new(b)),
                CType::INT,
            ));
        }
        if !a.ty.is_arith() || !b.ty.is_arith() {
            return Err(self.err(off, "invalid operands to a binary operator"));
        }
        if matches!(op, Rem | Shl | Shr | BitAnd | BitOr | BitXor)
            && !(a.ty.is_integer() && b.ty.is_integer())
        {
            return Err(self.err(off, "operator needs integer operands"));
        }
        if matches!(op, Shl | Shr) {
            let t = promote(&a.ty);
            let a = self.convert(a, &t);
            // The count is converted to the left operand's type (operands share one type in the
            // IR); a count that does not fit is out of range either way.
            let b = self.convert(b, &t);
            return Ok(fold_expr(Expr::new(
                ExprKind::Binary(op, Box::new(a), Box::new(b)),
                t,
            )));
        }
        let t = usual(&a.ty, &b.ty);
        let a = self.convert(a, &t);
        let b = self.convert(b, &t);
        let rt = if matches!(op, Eq | Ne | Lt | Le | Gt | Ge) {
            CType::INT
        } else {
            t
        };
        Ok(fold_expr(Expr::new(
            ExprKind::Binary(op, Box::new(a), Box::new(b)),
            rt,
        )))
    }

    /// Records the function called without a declaration whose result `x` is, when it is
    /// converted to a pointer or struct type `to` (see [`Ctx::pointer_results`]), and the struct a
    /// `void *` is converted to ([`crate::ir::Program::void_targets`]).
    pub(super) fn note_pointer_use(&mut self, x: &Expr, to: &CType) {
        if let (CType::Ptr(from), CType::Ptr(t)) = (&x.ty, to) {
            if let (CType::Void, CType::Struct(s)) = (&**from, &**t) {
                self.void_targets.insert(*s);
            }
        }
        let assumed = match to {
            CType::Ptr(_) => Some(CType::Ptr(Box::new(CType::Void))),
            CType::Struct(_) => Some(to.clone()),
            _ => None,
        };
        if let (ExprKind::Var(v), Some(t)) = (&x.kind, assumed) {
            if let Some(n) = self.f.as_ref().and_then(|f| f.undeclared_results.get(v)) {
                let e = self
                    .pointer_results
                    .entry(n.clone())
                    .or_insert(Some(t.clone()));
                if e.as_ref() != Some(&t) {
                    *e = None;
                }
            }
        }
    }

    pub(super) fn convert_checked(&mut self, x: Expr, to: &CType, off: usize) -> Res<Expr> {
        self.note_pointer_use(&x, to);
        let ok = match (to, &x.ty) {
            (t, f) if t == f => true,
            (t, f) if t.is_arith() && f.is_arith() => true,
            (CType::Ptr(_), CType::Ptr(_)) => true,
            (CType::Ptr(_), f) if f.is_integer() => true,
            (t, CType::Ptr(_)) if t.is_integer() => true,
            (CType::Struct(a), CType::Struct(b)) => a == b,
            _ => false,
        };
        if !ok {
            return Err(self.err(off, "incompatible types in assignment or argument"));
        }
        self.known_overlap(&x.ty, to, off)?;
        Ok(self.convert(x, to))
    }

    /// Convert to `to` with C semantics; constants are folded.
    pub(super) fn convert(&self, x: Expr, to: &CType) -> Expr {
        if x.ty == *to {
            return x;
        }
        match (&x.kind, to) {
            (ExprKind::Int(v), t)
                if (t.is_integer() || t.is_pointer())
                    && (x.ty.is_integer() || x.ty.is_pointer()) =>
            {
                return Expr::int(normalize(*v, t), t.clone());
            }
            (ExprKind::Int(v), CType::Double) if x.ty.is_integer() => {
                return Expr::new(ExprKind::Float(*v as f64), CType::Double);
            }
            (ExprKind::Float(f), CType::Double) => {
                return Expr::new(ExprKind::Float(*f), CType::Double)
            }
            (ExprKind::Float(f), CType::Float) => {
                return Expr::new(ExprKind::Float(f64::from(*f as f32)), CType::Float)
            }
            _ => {}
        }
        // Pointers of different pointee types share a representation; keep the cast so the
        // typed IR stays honest.
        fold_expr(Expr::new(ExprKind::Cast(Box::new(x)), to.clone()))
    }
}

/// Integer promotion (C11 6.3.1.1).
pub(super) fn promote(t: &CType) -> CType {
    match t {
        CType::Bool => CType::INT,
        CType::Int { bits, .. } if *bits < 32 => CType::INT,
        t => t.clone(),
    }
}

/// Usual arithmetic conversions (C11 6.3.1.8) under LP64.
pub(super) fn usual(a: &CType, b: &CType) -> CType {
    if *a == CType::Double || *b == CType::Double {
        return CType::Double;
    }
    if *a == CType::Float || *b == CType::Float {
        return CType::Float;
    }
    let (a, b) = (promote(a), promote(b));
    if a == b {
        return a;
    }
    let (
        CType::Int {
            bits: ab,
            signed: as_,
        },
        CType::Int {
            bits: bb,
            signed: bs,
        },
    ) = (&a, &b)
    else {
        return a;
    };
    if as_ == bs {
        return if ab >= bb { a } else { b };
    }
    let (ub, sb) = if *as_ { (*bb, *ab) } else { (*ab, *bb) };
    if ub >= sb {
        CType::Int {
            bits: ub,
            signed: false,
        }
    } else {
        // the signed type is wider and can represent every value of the unsigned one
        CType::Int {
            bits: sb,
            signed: true,
        }
    }
}

/// Fold integer and floating constant expressions completely (static initializers).
pub(super) fn fold_const(e: Expr) -> Expr {
    if e.ty.is_float() {
        if let Some(f) = consteval::fold_float(&e) {
            return Expr::new(ExprKind::Float(f), e.ty);
        }
    }
    fold_expr(e)
}

pub(super) fn fold_expr(e: Expr) -> Expr {
    if matches!(e.kind, ExprKind::Int(_)) || !e.ty.is_integer() {
        return e;
    }
    match fold(&e) {
        Some(v) => Expr::int(v, e.ty),
        None => e,
    }
}

pub(super) fn is_boolean(x: &Expr) -> bool {
    match &x.kind {
        ExprKind::Binary(op, ..) => matches!(
            op,
            BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge
        ),
        ExprKind::Logic(..) | ExprKind::Unary(UnOp::LogNot, _) => true,
        _ => false,
    }
}

/// The integer operand of pointer arithmetic and indexing, as `long`: exact for every integer
/// type but a 64-bit unsigned one, which keeps its type. C adds the index's mathematical value
/// (`s[n]` with `n = SIZE_MAX` is far outside any object, hence undefined); converting it to
/// `long` would turn it into `-1`, a step back that the interpreter and the analysis would
/// then have to take as defined.
fn index_operand(cx: &Ctx<'_>, i: Expr) -> Expr {
    match i.ty {
        CType::Int {
            bits: 64,
            signed: false,
        } => i,
        _ => cx.convert(i, &CType::LONG),
    }
}
