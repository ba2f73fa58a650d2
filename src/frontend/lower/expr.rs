//! Lowering of expressions: values and places, identifiers, constants and strings, members,
//! calls, `?:`, and expressions evaluated for their side effects only.
//!
//! Takes `lang-c` expressions; gives pure typed IR expressions ([`Val`]: a value, a place, a
//! global in a constant context, or `void`) and emits what they do as statements before them:
//! calls into temporaries (`f$1`), `?:` and short-circuit operands with side effects into `if`s.
//! Also lowers expressions in constant contexts (no function: global initializers, array sizes).
//! Operators and conversions are in `ops`.

use lang_c::ast::*;
use lang_c::span::Node;

use super::ops::{is_boolean, promote, usual};
use super::{Ctx, Res, Val};
use crate::diag::{Error, ErrorKind, Note, NoteKind};
use crate::frontend::consteval::{self, fold};
use crate::frontend::types::{Binding, TypeEnv};
use crate::ir::{
    BinOp, CType, Callee, Expr, ExprKind, FuncType, GlobalId, GlobalVar, Place, Stmt, StmtKind,
    StructId,
};

/// The size runs give a struct no part of the file defines (`sizeof` of it is an unknown
/// constant; a witness must not depend on its value).
const INCOMPLETE_SIZE: u64 = 64;

impl Ctx<'_> {
    /// Lower an expression in a constant context (no function): global initializers, sizes.
    pub(super) fn const_expr(&mut self, e: &Node<Expression>) -> Res<Expr> {
        let Some(f) = self.f.take() else {
            return self.rvalue(e);
        };
        let outer = self.suspended.replace(f);
        let r = self.rvalue(e);
        self.f = self.suspended.take();
        self.suspended = outer;
        r
    }

    /// Type of `e` in a constant context (no function, so no statements to drop).
    pub(super) fn const_expr_val(&mut self, e: &Node<Expression>) -> Res<CType> {
        Ok(match self.expr(e)? {
            Val::R(x) => x.ty,
            Val::L(_, t) | Val::G(_, t) => t,
            Val::Void => CType::Void,
        })
    }

    pub(super) fn rvalue(&mut self, e: &Node<Expression>) -> Res<Expr> {
        let v = self.expr(e)?;
        self.rvalue_of(v, e.span.start)
    }

    pub(super) fn rvalue_of(&mut self, v: Val, offset: usize) -> Res<Expr> {
        match v {
            Val::R(x) => Ok(x),
            Val::Void => Err(self.err(offset, "void value used in an expression")),
            Val::G(g, ty) => match ty {
                CType::Array(elem, _) => Ok(Expr::new(ExprKind::GlobalAddr(g), CType::Ptr(elem))),
                _ => Err(self.err(offset, "global variable read in a constant expression")),
            },
            Val::L(p, ty) => match ty {
                CType::Array(elem, _) => {
                    self.mark_addr_taken(&p);
                    let first =
                        Place::Index(Box::new(p), Expr::int(0, CType::LONG), (*elem).clone());
                    Ok(Expr::new(
                        ExprKind::AddrOf(Box::new(first)),
                        CType::Ptr(elem),
                    ))
                }
                CType::Func(_) => Err(self.err(offset, "function used as a value")),
                _ => {
                    // A copy of a whole assumed record moves its unnamed members too
                    // (`ir::UNNAMED_MEMBERS`).
                    let bits = field_bits(self, &p);
                    if let (Some(w), CType::Int { bits: tb, .. }) = (bits, &ty) {
                        // GCC computes with such a field in its own width.
                        if *tb > 32 && w < *tb {
                            return Err(self.err(
                                offset,
                                format!("a bit-field of {w} bits of a type wider than `int` is not supported"),
                            ));
                        }
                    }
                    let x = match p {
                        Place::Var(v) => Expr::var(v, ty.clone()),
                        p => Expr::new(ExprKind::Load(Box::new(p)), ty.clone()),
                    };
                    Ok(match bits {
                        Some(w) => {
                            let x = self.bit_normalized(x, w, &ty);
                            // A bit-field narrower than `int` promotes to `int` (C11
                            // 6.3.1.1p2): `unsigned a : 3` reads as an `int`.
                            let narrow = match ty {
                                CType::Int { signed, .. } => u32::from(w) < 32 + u32::from(signed),
                                _ => false,
                            };
                            if narrow {
                                self.convert(x, &CType::INT)
                            } else {
                                x
                            }
                        }
                        None => x,
                    })
                }
            },
        }
    }

    pub(super) fn lvalue(&mut self, e: &Node<Expression>) -> Res<(Place, CType)> {
        match self.expr(e)? {
            Val::L(p, t) => Ok((p, t)),
            _ => Err(self.err(e.span.start, "expression is not assignable")),
        }
    }

    /// Condition: an int-valued 0/1 expression.
    pub(super) fn cond(&mut self, e: &Node<Expression>) -> Res<Expr> {
        let x = self.rvalue(e)?;
        self.truth(x, e.span.start)
    }

    pub(super) fn truth(&mut self, x: Expr, offset: usize) -> Res<Expr> {
        if !x.ty.is_scalar() {
            return Err(self.err(offset, "condition is not a scalar value"));
        }
        if is_boolean(&x) {
            return Ok(x);
        }
        let zero = self.zero(&x.ty);
        Ok(Expr::new(
            ExprKind::Binary(BinOp::Ne, Box::new(x), Box::new(zero)),
            CType::INT,
        ))
    }

    pub(super) fn zero(&self, ty: &CType) -> Expr {
        if ty.is_float() {
            Expr::new(ExprKind::Float(0.0), ty.clone())
        } else {
            Expr::int(0, ty.clone())
        }
    }

    /// Evaluate for side effects only (expression statements, `for` steps, comma operands).
    pub(super) fn effect(&mut self, e: &Node<Expression>) -> Res<()> {
        match &e.node {
            Expression::UnaryOperator(u) => match u.node.operator.node {
                UnaryOperator::PostIncrement | UnaryOperator::PreIncrement => {
                    return self.incdec(&u.node.operand, true, false).map(|_| ())
                }
                UnaryOperator::PostDecrement | UnaryOperator::PreDecrement => {
                    return self.incdec(&u.node.operand, false, false).map(|_| ())
                }
                _ => {}
            },
            Expression::Call(c) => return self.call(c, e.span.start, false).map(|_| ()),
            Expression::Comma(list) => {
                for x in list.iter() {
                    self.effect(x)?;
                }
                return Ok(());
            }
            Expression::Cast(c) => {
                return if self.type_name(&c.node.type_name)? == CType::Void {
                    self.effect(&c.node.expression)
                } else {
                    self.expr(e).map(|_| ())
                };
            }
            Expression::Conditional(c) => {
                let cond = self.cond(&c.node.condition)?;
                let ((), then_) = self.buffered(|cx| cx.effect(&c.node.then_expression))?;
                let ((), else_) = self.buffered(|cx| cx.effect(&c.node.else_expression))?;
                if !(then_.is_empty() && else_.is_empty()) {
                    self.emit(StmtKind::If { cond, then_, else_ });
                }
                return Ok(());
            }
            Expression::BinaryOperator(b)
                if matches!(
                    b.node.operator.node,
                    BinaryOperator::LogicalAnd | BinaryOperator::LogicalOr
                ) =>
            {
                let a = self.cond(&b.node.lhs)?;
                let ((), rest) = self.buffered(|cx| cx.effect(&b.node.rhs))?;
                if !rest.is_empty() {
                    let (then_, else_) = if b.node.operator.node == BinaryOperator::LogicalAnd {
                        (rest, vec![])
                    } else {
                        (vec![], rest)
                    };
                    self.emit(StmtKind::If {
                        cond: a,
                        then_,
                        else_,
                    });
                }
                return Ok(());
            }
            _ => {}
        }
        // A plain read (`x;`, `*p;`) has no effect we model.
        self.expr(e).map(|_| ())
    }

    pub(super) fn expr(&mut self, e: &Node<Expression>) -> Res<Val> {
        let off = e.span.start;
        match &e.node {
            Expression::Identifier(id) => self.ident(&id.node.name, off),
            Expression::Constant(c) => self.constant(&c.node, off).map(Val::R),
            Expression::StringLiteral(s) => {
                if let Some(v) = self.opaque_string(&s.node, e.span.start, e.span.end)? {
                    return Ok(v);
                }
                let mut bytes = self.string_bytes(&s.node)?;
                bytes.push(0);
                let id = self.intern(bytes);
                Ok(Val::R(Expr::new(
                    ExprKind::Str(id),
                    CType::Ptr(Box::new(CType::CHAR)),
                )))
            }
            Expression::Member(m) => self.member(m),
            Expression::Call(c) => self.call(c, off, true),
            Expression::SizeOfTy(t) => {
                let ty = self.type_name(&t.node.0)?;
                self.sizeof(ty, off)
            }
            Expression::SizeOfVal(v) => {
                let ty = match &v.node.0.node {
                    Expression::StringLiteral(s) => CType::Array(
                        Box::new(CType::CHAR),
                        Some(self.string_bytes(&s.node)?.len() as u64 + 1),
                    ),
                    _ => self.type_of_expr(&v.node.0)?,
                };
                self.sizeof(ty, off)
            }
            Expression::AlignOf(t) => {
                let ty = self.type_name(&t.node.0)?;
                self.known_layout(&ty, off, "`_Alignof`")?;
                Ok(Val::R(Expr::int(
                    self.tables.prog_align(&ty) as i128,
                    CType::ULONG,
                )))
            }
            Expression::UnaryOperator(u) => self.unary(u, off),
            Expression::Cast(c) => {
                let ty = self.type_name(&c.node.type_name)?;
                if ty == CType::Void {
                    self.effect(&c.node.expression)?;
                    return Ok(Val::Void);
                }
                let x = self.rvalue(&c.node.expression)?;
                self.note_pointer_use(&x, &ty);
                if !ty.is_scalar() {
                    return Err(self.err(off, "cast to a non-scalar type is not supported"));
                }
                if !x.ty.is_scalar() {
                    return Err(self.err(off, "cast of a non-scalar value"));
                }
                if (x.ty.is_float() && ty.is_pointer()) || (x.ty.is_pointer() && ty.is_float()) {
                    return Err(self.err(off, "invalid cast between pointer and floating type"));
                }
                self.known_overlap(&x.ty, &ty, off)?;
                Ok(Val::R(self.convert(x, &ty)))
            }
            Expression::BinaryOperator(b) => self.binary(b, off),
            Expression::Conditional(c) => self.conditional(c, off),
            Expression::Comma(list) => {
                let n = list.len();
                for x in &list[..n - 1] {
                    self.effect(x)?;
                }
                let v = self.expr(&list[n - 1])?;
                // The value of a comma expression is not an lvalue.
                match v {
                    Val::L(..) => Ok(Val::R(self.rvalue_of(v, off)?)),
                    v => Ok(v),
                }
            }
            Expression::GenericSelection(_) => Err(self.err(off, "_Generic is not supported")),
            Expression::CompoundLiteral(_) => {
                Err(self.err(off, "compound literals are not supported"))
            }
            Expression::OffsetOf(o) => {
                let ty = self.type_name(&o.node.type_name)?;
                self.known_layout(&ty, off, "`offsetof`")?;
                let mut cur = ty;
                let mut offset = 0u64;
                let mut names = vec![o.node.designator.node.base.node.name.clone()];
                let mut ok = true;
                for m in &o.node.designator.node.members {
                    match &m.node {
                        OffsetMember::Member(id) => names.push(id.node.name.clone()),
                        _ => ok = false,
                    }
                }
                if !ok {
                    return Err(self.err(
                        off,
                        "offsetof with array or indirect members is not supported",
                    ));
                }
                for n in names {
                    let CType::Struct(s) = cur else {
                        return Err(self.err(off, "offsetof of a non-struct"));
                    };
                    let path = self
                        .find_field(s, &n)
                        .ok_or_else(|| self.err(off, format!("no field `{n}`")))?;
                    for (sid, k) in path {
                        let f = &self.tables.structs[sid.index()].fields[k as usize];
                        offset += f.offset;
                        cur = f.ty.clone();
                    }
                }
                Ok(Val::R(Expr::int(offset as i128, CType::ULONG)))
            }
            Expression::VaArg(_) => Err(self.err(off, "va_arg is not supported")),
            Expression::Statement(s) => self.statement_expr(s, off),
        }
    }

    fn sizeof(&mut self, ty: CType, off: usize) -> Res<Val> {
        // A struct of a missing header that the file never defines (`sizeof (struct dsa_st)`
        // for a `malloc`): an unknown constant like the size of a record only partly known.
        if let (Some(_), true, CType::Struct(s)) = (&self.f, self.opaque_undeclared, &ty) {
            let d = &self.tables.structs[s.index()];
            if !d.complete && !d.name.is_empty() {
                let kw = if d.is_union { "union" } else { "struct" };
                let name = format!("sizeof({kw} {})", d.name);
                let why = "the struct is defined in a missing header, never in this file";
                let g = self.opaque_constant(&name, INCOMPLETE_SIZE, why, off);
                let v = self.global_var(g);
                return Ok(Val::R(Expr::new(ExprKind::Var(v), CType::ULONG)));
            }
        }
        if matches!(ty, CType::Array(_, None)) || !self.structs_complete(&ty) {
            return Err(self.err(off, "sizeof of an incomplete type"));
        }
        if self.f.is_some() {
            if let Some(v) = self.unknown_size(&ty, off) {
                return Ok(Val::R(v));
            }
        }
        self.known_layout(&ty, off, "`sizeof`")?;
        Ok(Val::R(Expr::int(
            self.tables.prog_size(&ty) as i128,
            CType::ULONG,
        )))
    }

    /// In a function, the size of a type holding an assumed record (see
    /// `Tables::assumed_structs`): the real record has members no code of the file names, so
    /// its size is an unknown constant, the same in both versions: an opaque global per
    /// record (`sizeof(T)`), times the lengths of the arrays around it. It starts at the size of
    /// the assumed layout, which is what the interpreter and the native harness (compiled with
    /// that layout) use, but the analysis treats it as any global: an input equal in both
    /// versions, so no proof depends on its value.
    fn unknown_size(&mut self, ty: &CType, off: usize) -> Option<Expr> {
        let gap = self.tables.unknown_layout(ty)?;
        let name = gap.name().to_string();
        let mut n: u64 = 1;
        let mut cur = ty;
        while let CType::Array(e, len) = cur {
            n = n.checked_mul((*len)?)?;
            cur = e;
        }
        let spelled = match cur {
            CType::Struct(s) if !self.tables.assumed_structs.contains(s) => {
                let d = &self.tables.structs[s.index()];
                let kw = if d.is_union { "union" } else { "struct" };
                d.typedef_name
                    .clone()
                    .unwrap_or_else(|| format!("{kw} {}", d.name))
            }
            _ => name,
        };
        let size = self.tables.prog_size(cur);
        let why = match gap {
            crate::frontend::types::LayoutGap::Assumed(_) => {
                "the record is only partly known (a missing header defines it)"
            }
            crate::frontend::types::LayoutGap::Bitfields(_) => {
                "the struct has bit-fields, which dizy lays out apart (not packed)"
            }
        };
        let g = self.opaque_constant(&format!("sizeof({spelled})"), size, why, off);
        let v = self.global_var(g);
        let one = Expr::new(ExprKind::Var(v), CType::ULONG);
        Some(if n == 1 {
            one
        } else {
            Expr::new(
                ExprKind::Binary(
                    BinOp::Mul,
                    Box::new(Expr::int(n as i128, CType::ULONG)),
                    Box::new(one),
                ),
                CType::ULONG,
            )
        })
    }

    fn ident(&mut self, name: &str, off: usize) -> Res<Val> {
        match self.tables.lookup(name).cloned() {
            Some(Binding::Var(v)) => {
                // A local read where a constant is needed (an array size): a local that
                // never changes from its constant initializer is that value, any other makes
                // a VLA.
                if self.f.is_none() {
                    if let Some(f) = &self.suspended {
                        if let Some(n) = f.const_ints.get(&v) {
                            return Ok(Val::R(Expr::int(*n, f.vars[v.index()].ty.clone())));
                        }
                    }
                    return Err(self.err(
                        off,
                        format!(
                            "`{name}` is not a constant (variable-length arrays are not supported)"
                        ),
                    ));
                }
                let t = self.var_ty(v);
                Ok(Val::L(Place::Var(v), t))
            }
            Some(Binding::Global(g)) => {
                let t = self.globals[g.index()].ty.clone();
                if self.f.is_none() {
                    return Ok(Val::G(g, t));
                }
                let v = self.global_var(g);
                Ok(Val::L(Place::Var(v), t))
            }
            Some(Binding::EnumConst(v)) => Ok(Val::R(Expr::int(v, CType::INT))),
            Some(Binding::Func(n)) => {
                let ft = self.funcs[&n].clone();
                Ok(Val::R(Expr::new(
                    ExprKind::FuncAddr(n),
                    CType::Ptr(Box::new(CType::Func(Box::new(ft)))),
                )))
            }
            Some(Binding::Typedef(_)) => {
                Err(self.err(off, format!("type name `{name}` used as a value")))
            }
            None if name == "__func__"
                || name == "__FUNCTION__"
                || name == "__PRETTY_FUNCTION__" =>
            {
                let fname = self.f.as_ref().map(|f| f.name.clone()).unwrap_or_default();
                let mut bytes = fname.into_bytes();
                bytes.push(0);
                let id = self.intern(bytes);
                Ok(Val::R(Expr::new(
                    ExprKind::Str(id),
                    CType::Ptr(Box::new(CType::CHAR)),
                )))
            }
            None if self.opaque_undeclared && self.f.is_some() => {
                let g = self.opaque_global(name, off);
                let v = self.global_var(g);
                Ok(Val::L(Place::Var(v), CType::INT))
            }
            None => Err(self
                .err(off, format!("use of undeclared identifier `{name}`"))
                .with_kind(ErrorKind::Undeclared)),
        }
    }

    /// The opaque global standing for the undeclared `name` (see [`GlobalVar::opaque`]); the
    /// first use in each function gets a note, which the report attaches to the function.
    /// `x` as a bit-field of `width` bits and type `ty` holds it ([`crate::ir::Field::bits`]):
    /// its low bits, sign-extended for a signed type. Computed in (at least) `int` width, as C
    /// computes.
    pub(super) fn bit_normalized(&mut self, x: Expr, width: u8, ty: &CType) -> Expr {
        let CType::Int { bits, signed } = *ty else {
            return x; // `_Bool` holds 0 and 1 already
        };
        if width >= bits {
            return x;
        }
        if width == 0 {
            return Expr::int(0, ty.clone());
        }
        let wide = bits.max(32);
        let uty = CType::Int {
            bits: wide,
            signed: false,
        };
        let bin = |op, a: Expr, b: Expr, t: &CType| {
            Expr::new(ExprKind::Binary(op, Box::new(a), Box::new(b)), t.clone())
        };
        let u = self.convert(x, &uty);
        let low = bin(
            BinOp::BitAnd,
            u,
            Expr::int((1i128 << width) - 1, uty.clone()),
            &uty,
        );
        if !signed {
            return self.convert(low, ty);
        }
        let sty = CType::Int {
            bits: wide,
            signed: true,
        };
        let sign = 1i128 << (width - 1);
        let flipped = bin(BinOp::BitXor, low, Expr::int(sign, uty.clone()), &uty);
        let flipped = self.convert(flipped, &sty);
        let v = bin(BinOp::Sub, flipped, Expr::int(sign, sty.clone()), &sty);
        self.convert(v, ty)
    }

    /// `place = value`, the value kept to what a bit-field can hold where `place` is one.
    pub(super) fn store(&mut self, place: Place, value: Expr) {
        let value = match field_bits(self, &place) {
            Some(w) => {
                let ty = value.ty.clone();
                self.bit_normalized(value, w, &ty)
            }
            None => value,
        };
        self.emit(StmtKind::Assign(place, value));
    }

    /// A string literal with unknown macros among its pieces (`ESCS "]8;"`, see
    /// `tolerant::Repairs::strings`): an unknown string, the same object in both versions (an
    /// opaque `extern char []` named after the text); `None` for any other literal.
    fn opaque_string(&mut self, pieces: &[String], start: usize, end: usize) -> Res<Option<Val>> {
        let macros: Vec<String> = self
            .opaque_strings
            .range(start..end)
            .map(|(_, n)| n.clone())
            .collect();
        if macros.is_empty() {
            return Ok(None);
        }
        if self.f.is_none() {
            return Err(self.err(
                start,
                format!(
                    "a string with the unknown macro `{}` in a constant expression",
                    macros[0]
                ),
            ));
        }
        let mut names = macros.iter();
        let text: Vec<String> = pieces
            .iter()
            .map(
                |p| match p.len() >= 2 && *p == crate::frontend::tolerant_placeholder(p.len()) {
                    true => names.next().cloned().unwrap_or_else(|| p.clone()),
                    false => p.clone(),
                },
            )
            .collect();
        let name = text.join(" ");
        let ty = CType::Array(Box::new(CType::CHAR), None);
        let note = format!(
            "`{name}`: a string with a macro of a missing header: taken as an unknown string, the same in both versions"
        );
        let g = self.opaque_named(&name, (ty.clone(), vec![]), note, start);
        let v = self.global_var(g);
        Ok(Some(Val::L(Place::Var(v), ty)))
    }

    /// An opaque `unsigned long` that the analysis treats as unknown (the same in both
    /// versions) while executions read `value` (the assumed layout's, see `unknown_size`).
    fn opaque_constant(&mut self, name: &str, value: u64, why: &str, off: usize) -> GlobalId {
        let init = vec![(0, CType::ULONG, Expr::int(value as i128, CType::ULONG))];
        let note = format!(
            "`{name}`: {why}, so its size is taken as an unknown constant, the same in both versions (runs use {value} bytes)"
        );
        self.opaque_named(name, (CType::ULONG, init), note, off)
    }

    pub(super) fn opaque_global(&mut self, name: &str, off: usize) -> GlobalId {
        let note = format!(
            "`{name}` is not declared (defined in a missing header, or by a macro the build defines?): taken as an unknown `int`, the same in both versions"
        );
        self.opaque_named(name, (CType::INT, vec![]), note, off)
    }

    /// The opaque global `name` ([`GlobalVar::opaque`]) of type and initializer `ty_init`
    /// (`extern` without one), made at its first use; `note` the first time a function uses it.
    fn opaque_named(
        &mut self,
        name: &str,
        (ty, init): (CType, Vec<(u64, CType, Expr)>),
        note: String,
        off: usize,
    ) -> GlobalId {
        let line = self.line(off);
        let g = *self.opaque.entry(name.to_string()).or_insert_with(|| {
            self.globals.push(GlobalVar {
                name: name.to_string(),
                ty,
                is_extern: init.is_empty(),
                init,
                is_static: false,
                is_volatile: false,
                opaque: true,
                line,
            });
            GlobalId::new(self.globals.len() - 1)
        });
        if self.f.as_ref().is_some_and(|f| !f.globals.contains_key(&g)) {
            self.notes
                .push(Note::at(NoteKind::Assumption, self.file, line.0, note));
        }
        g
    }

    fn constant(&mut self, c: &Constant, off: usize) -> Res<Expr> {
        match c {
            Constant::Integer(i) => {
                if i.suffix.imaginary {
                    return Err(self.err(off, "imaginary constants are not supported"));
                }
                let (v, t) = consteval::int_literal(i).map_err(|m| self.err(off, m))?;
                Ok(Expr::int(v, t))
            }
            Constant::Float(f) => {
                if f.suffix.imaginary {
                    return Err(self.err(off, "imaginary constants are not supported"));
                }
                let (v, t) = consteval::float_literal(f).map_err(|m| self.err(off, m))?;
                Ok(Expr::new(ExprKind::Float(v), t))
            }
            Constant::Character(s) => {
                let v = consteval::char_literal(s).map_err(|m| self.err(off, m))?;
                Ok(Expr::int(v, CType::INT))
            }
        }
    }

    pub(super) fn string_bytes(&self, s: &StringLiteral) -> Res<Vec<u8>> {
        let mut out = vec![];
        for part in s {
            let start = part
                .find('"')
                .ok_or_else(|| Error::in_file(self.file, "bad string literal"))?;
            if start > 0 && !part.starts_with("u8") {
                return Err(Error::in_file(
                    self.file,
                    "wide string literals are not supported",
                ));
            }
            let body = &part[start + 1..part.len().saturating_sub(1)];
            out.extend(consteval::unescape(body).map_err(|m| Error::in_file(self.file, m))?);
        }
        Ok(out)
    }

    fn intern(&mut self, bytes: Vec<u8>) -> crate::ir::StrId {
        if let Some(i) = self.strings.iter().position(|s| *s == bytes) {
            return crate::ir::StrId::new(i);
        }
        self.strings.push(bytes);
        crate::ir::StrId::new(self.strings.len() - 1)
    }

    /// Field path for `name` in struct `s`, descending into anonymous members.
    fn find_field(&self, s: StructId, name: &str) -> Option<Vec<(StructId, u32)>> {
        let d = &self.tables.structs[s.index()];
        for (k, f) in d.fields.iter().enumerate() {
            if f.name == name {
                return Some(vec![(s, k as u32)]);
            }
            if f.name.is_empty() {
                if let CType::Struct(inner) = f.ty {
                    if let Some(mut rest) = self.find_field(inner, name) {
                        rest.insert(0, (s, k as u32));
                        return Some(rest);
                    }
                }
            }
        }
        None
    }

    fn member(&mut self, m: &Node<MemberExpression>) -> Res<Val> {
        let off = m.span.start;
        let name = &m.node.identifier.node.name;
        let (base, bty) = match m.node.operator.node {
            MemberOperator::Direct => match self.expr(&m.node.expression)? {
                Val::L(p, t) => (p, t),
                Val::R(_) => {
                    return Err(self.err(
                        off,
                        "member of a struct value that is not an object is not supported",
                    ))
                }
                Val::G(..) => {
                    return Err(self.err(
                        off,
                        "member access in a constant expression is not supported",
                    ))
                }
                Val::Void => return Err(self.err(off, "member of void")),
            },
            MemberOperator::Indirect => {
                let p = self.rvalue(&m.node.expression)?;
                let CType::Ptr(t) = p.ty.clone() else {
                    return Err(self.err(off, "`->` applied to a non-pointer"));
                };
                ((Place::Deref(p, (*t).clone())), *t)
            }
        };
        let CType::Struct(s) = bty else {
            return Err(self
                .err(off, format!("member `{name}` of a non-struct value"))
                .with_kind(ErrorKind::Undeclared));
        };
        if !self.tables.structs[s.index()].complete {
            return Err(self.err(off, "member of an incomplete struct"));
        }
        let path = self
            .find_field(s, name)
            .ok_or_else(|| self.err(off, format!("no member named `{name}`")))?;
        let mut p = base;
        let mut ty = bty;
        for (sid, k) in path {
            ty = self.tables.structs[sid.index()].fields[k as usize]
                .ty
                .clone();
            p = Place::Field(Box::new(p), sid, k, ty.clone());
        }
        Ok(Val::L(p, ty))
    }

    fn call(&mut self, c: &Node<CallExpression>, off: usize, want_value: bool) -> Res<Val> {
        // Direct calls by name (also to undeclared functions, which C89 allowed).
        let (callee, ft) = match &c.node.callee.node {
            Expression::Identifier(id)
                if !matches!(
                    self.tables.lookup(&id.node.name),
                    Some(Binding::Var(_) | Binding::Global(_))
                ) =>
            {
                let name = id.node.name.clone();
                if name == "__builtin_expect" && c.node.arguments.len() == 2 {
                    let v = self.expr(&c.node.arguments[0])?;
                    return Ok(v);
                }
                let ft = match self.funcs.get(&name) {
                    Some(ft) => ft.clone(),
                    // GCC's bit builtins have prototypes no header declares
                    None => match crate::ir::bit_builtin(&name) {
                        Some(ft) => {
                            self.declare_func(&name, ft.clone());
                            ft
                        }
                        None => {
                            let ret = self
                                .assumed_pointer
                                .get(&name)
                                .cloned()
                                .unwrap_or(CType::INT);
                            let ft = FuncType {
                                ret,
                                params: vec![],
                                variadic: true,
                            };
                            self.undeclared_calls.push(name.clone());
                            self.declare_func(&name, ft.clone());
                            ft
                        }
                    },
                };
                (Callee::Direct(name), ft)
            }
            _ => {
                let f = self.rvalue(&c.node.callee)?;
                let ft = match &f.ty {
                    CType::Ptr(t) => match &**t {
                        CType::Func(ft) => (**ft).clone(),
                        _ => return Err(self.err(off, "call through a non-function pointer")),
                    },
                    _ => return Err(self.err(off, "called object is not a function")),
                };
                (Callee::Indirect(f), ft)
            }
        };
        if self.f.is_none() {
            return Err(self.err(off, "function call in a constant expression"));
        }
        if !ft.variadic && ft.params.len() != c.node.arguments.len() {
            return Err(self.err(
                off,
                format!(
                    "call with {} arguments to a function taking {}",
                    c.node.arguments.len(),
                    ft.params.len()
                ),
            ));
        }
        let mut args = vec![];
        for (i, a) in c.node.arguments.iter().enumerate() {
            let x = self.rvalue(a)?;
            let x = match ft.params.get(i) {
                Some(t) => self.convert_checked(x, t, a.span.start)?,
                None => {
                    // default argument promotions
                    let t = if x.ty == CType::Float {
                        CType::Double
                    } else if x.ty.is_integer() {
                        promote(&x.ty)
                    } else {
                        x.ty.clone()
                    };
                    self.convert(x, &t)
                }
            };
            args.push(x);
        }
        if ft.ret == CType::Void || !want_value {
            self.emit(StmtKind::Call {
                dest: None,
                callee,
                args,
            });
            return Ok(Val::Void);
        }
        let hint = match &callee {
            Callee::Direct(n) => n.clone(),
            Callee::Indirect(_) => "call".to_string(),
        };
        let t = self.temp(&hint, ft.ret.clone());
        if let Callee::Direct(n) = &callee {
            if self.undeclared_calls.contains(n) && ft.ret == CType::INT {
                self.fs().undeclared_results.insert(t, n.clone());
            }
        }
        self.emit(StmtKind::Call {
            dest: Some(Place::Var(t)),
            callee,
            args,
        });
        Ok(Val::L(Place::Var(t), ft.ret))
    }

    fn conditional(&mut self, c: &Node<ConditionalExpression>, off: usize) -> Res<Val> {
        let cond = self.cond(&c.node.condition)?;
        let (a, sa) = self.buffered(|cx| cx.expr(&c.node.then_expression))?;
        let (b, sb) = self.buffered(|cx| cx.expr(&c.node.else_expression))?;
        let void = matches!(a, Val::Void) || matches!(b, Val::Void);
        if void {
            self.emit(StmtKind::If {
                cond,
                then_: sa,
                else_: sb,
            });
            return Ok(Val::Void);
        }
        let a = self.rvalue_of(a, off)?;
        let b = self.rvalue_of(b, off)?;
        let ty = if a.ty.is_arith() && b.ty.is_arith() {
            usual(&a.ty, &b.ty)
        } else if a.ty.is_pointer() {
            a.ty.clone()
        } else if b.ty.is_pointer() {
            b.ty.clone()
        } else if a.ty == b.ty {
            a.ty.clone()
        } else {
            return Err(self.err(off, "incompatible operand types in ?:"));
        };
        // Constant condition: pick the arm (keeps constant expressions foldable).
        if let Some(v) = fold(&cond) {
            if sa.is_empty() && sb.is_empty() {
                let x = if v != 0 { a } else { b };
                return Ok(Val::R(self.convert(x, &ty)));
            }
        }
        if self.f.is_none() {
            return Err(self.err(
                off,
                "?: in a constant expression must have a constant condition",
            ));
        }
        let t = self.temp("sel", ty.clone());
        let line = self.fs().line;
        let mut then_ = sa;
        then_.push(Stmt {
            kind: StmtKind::Assign(Place::Var(t), self.convert(a, &ty)),
            line,
        });
        let mut else_ = sb;
        else_.push(Stmt {
            kind: StmtKind::Assign(Place::Var(t), self.convert(b, &ty)),
            line,
        });
        self.emit(StmtKind::If { cond, then_, else_ });
        Ok(Val::R(Expr::var(t, ty)))
    }
}

/// The width of the bit-field `p` designates, if it is one.
pub(super) fn field_bits(cx: &Ctx<'_>, p: &Place) -> Option<u8> {
    match p {
        Place::Field(_, s, k, _) => cx.tables.structs[s.index()].fields[*k as usize].bits,
        _ => None,
    }
}
