//! Lowering of initializers: braces, designators (`.f =`, `[i] =`, `[a ... b] =`), brace
//! elision and string literals for arrays of char.
//!
//! Takes a declared type and its `lang-c` initializer; gives the scalar leaves in order, as
//! constant `(offset, type, value)` triples for a global and as a zero fill followed by
//! assignments for a local. Also completes `T a[] = …` from the initializer's length. Called by
//! `decl`.

use lang_c::ast::*;
use lang_c::span::Node;

use super::ops::fold_const;
use super::{Ctx, Res};
use crate::frontend::consteval::normalize;
use crate::frontend::types::TypeEnv;
use crate::ir::{BinOp, CType, Expr, ExprKind, Place, StmtKind, StructId, VarId};

impl Ctx<'_> {
    /// `int a[] = {1,2,3}` / `char s[] = "ab"`: the initializer fixes the length.
    pub(super) fn complete_array_type(
        &mut self,
        ty: &CType,
        init: &Node<Initializer>,
    ) -> Res<CType> {
        let CType::Array(elem, None) = ty else {
            return Ok(ty.clone());
        };
        let n = match &init.node {
            Initializer::Expression(e) => match &e.node {
                Expression::StringLiteral(s) => self.string_bytes(&s.node)?.len() as u64 + 1,
                _ => 1,
            },
            Initializer::List(items) => {
                let mut idx: u64 = 0;
                let mut max: u64 = 0;
                for it in items {
                    if let Some(d) = it.node.designation.first() {
                        match &d.node {
                            Designator::Index(e) => idx = self.const_int(e)? as u64,
                            Designator::Range(r) => idx = self.const_int(&r.node.to)? as u64,
                            Designator::Member(_) => {}
                        }
                    }
                    idx += 1;
                    max = max.max(idx);
                }
                // A string in braces: `char s[] = {"ab"}`.
                if items.len() == 1 && is_char(elem) {
                    if let Initializer::Expression(e) = &items[0].node.initializer.node {
                        if let Expression::StringLiteral(s) = &e.node {
                            max = self.string_bytes(&s.node)?.len() as u64 + 1;
                        }
                    }
                }
                max
            }
        };
        Ok(CType::Array(elem.clone(), Some(n)))
    }

    pub(super) fn global_init(
        &mut self,
        ty: &CType,
        init: &Node<Initializer>,
    ) -> Res<Vec<(u64, CType, Expr)>> {
        let mut leaves = vec![];
        self.init_walk(ty, init, &mut vec![], &mut leaves)?;
        let mut out = vec![];
        for (path, lty, leaf) in leaves {
            let off = self.path_offset(ty, &path);
            let value = match leaf {
                Leaf::Byte(b) => Expr::int(b, lty.clone()),
                Leaf::Expr(e) => {
                    let v = self.const_expr(e)?;
                    let v = self.convert(v, &lty);
                    let v = match path.last() {
                        Some(Step::Field(sid, k)) => {
                            match self.tables.structs[sid.index()].fields[*k as usize].bits {
                                Some(w) => self.bit_normalized(v, w, &lty),
                                None => v,
                            }
                        }
                        _ => v,
                    };
                    let v = fold_const(v);
                    if !is_constant_init(&v) {
                        return Err(
                            self.err(e.span.start, "initializer of a global is not a constant")
                        );
                    }
                    v
                }
            };
            out.push((off, lty, value));
        }
        Ok(out)
    }

    fn path_offset(&self, ty: &CType, path: &[Step]) -> u64 {
        let mut off = 0;
        let mut cur = ty.clone();
        for s in path {
            match (s, cur.clone()) {
                (Step::Index(i), CType::Array(e, _)) => {
                    off += i * self.tables.prog_size(&e);
                    cur = *e;
                }
                (Step::Field(sid, k), _) => {
                    let f = &self.tables.structs[sid.index()].fields[*k as usize];
                    off += f.offset;
                    cur = f.ty.clone();
                }
                _ => {}
            }
        }
        off
    }

    pub(super) fn local_init(&mut self, v: VarId, ty: &CType, init: &Node<Initializer>) -> Res<()> {
        if let Initializer::Expression(e) = &init.node {
            let is_str = matches!(e.node, Expression::StringLiteral(_));
            if !(matches!(ty, CType::Array(..)) && is_str) {
                let x = self.rvalue(e)?;
                let x = self.convert_checked(x, ty, e.span.start)?;
                self.emit(StmtKind::Assign(Place::Var(v), x));
                return Ok(());
            }
        }
        let mut leaves = vec![];
        self.init_walk(ty, init, &mut vec![], &mut leaves)?;
        if ty.is_scalar() {
            // `int x = {5};`
            match leaves.into_iter().next() {
                Some((_, lty, Leaf::Expr(e))) => {
                    let x = self.rvalue(e)?;
                    let x = self.convert_checked(x, &lty, e.span.start)?;
                    self.emit(StmtKind::Assign(Place::Var(v), x));
                }
                _ => self.emit(StmtKind::Assign(Place::Var(v), self.zero(ty))),
            }
            return Ok(());
        }
        self.emit(StmtKind::ZeroFill(Place::Var(v)));
        for (path, lty, leaf) in leaves {
            let place = self.path_place(Place::Var(v), ty, &path);
            let value = match leaf {
                Leaf::Byte(b) => Expr::int(b, lty.clone()),
                Leaf::Expr(e) => {
                    let x = self.rvalue(e)?;
                    self.convert_checked(x, &lty, e.span.start)?
                }
            };
            if matches!(value.kind, ExprKind::Int(0)) && lty.is_scalar() {
                continue; // already zero-filled
            }
            self.store(place, value);
        }
        Ok(())
    }

    fn path_place(&self, base: Place, ty: &CType, path: &[Step]) -> Place {
        let mut p = base;
        let mut cur = ty.clone();
        for s in path {
            match (s, cur.clone()) {
                (Step::Index(i), CType::Array(e, _)) => {
                    p = Place::Index(
                        Box::new(p),
                        Expr::int(*i as i128, CType::LONG),
                        (*e).clone(),
                    );
                    cur = *e;
                }
                (Step::Field(sid, k), _) => {
                    let fty = self.tables.structs[sid.index()].fields[*k as usize]
                        .ty
                        .clone();
                    p = Place::Field(Box::new(p), *sid, *k, fty.clone());
                    cur = fty;
                }
                _ => {}
            }
        }
        p
    }

    /// Walk a (possibly braced, designated, brace-elided) initializer for an object of type
    /// `ty`, producing the scalar leaves in order.
    fn init_walk<'i>(
        &mut self,
        ty: &CType,
        init: &'i Node<Initializer>,
        path: &mut Vec<Step>,
        out: &mut Vec<(Vec<Step>, CType, Leaf<'i>)>,
    ) -> Res<()> {
        match &init.node {
            Initializer::Expression(e) => {
                if let (CType::Array(elem, n), Expression::StringLiteral(s)) = (ty, &e.node) {
                    if is_char(elem) {
                        let bytes = self.string_bytes(&s.node)?;
                        let n = n.unwrap_or(bytes.len() as u64 + 1);
                        for (i, b) in bytes.iter().enumerate().take(n as usize) {
                            path.push(Step::Index(i as u64));
                            out.push((
                                path.clone(),
                                (**elem).clone(),
                                Leaf::Byte(normalize(i128::from(*b), elem)),
                            ));
                            path.pop();
                        }
                        return Ok(());
                    }
                }
                out.push((path.clone(), ty.clone(), Leaf::Expr(e)));
                Ok(())
            }
            Initializer::List(items) => {
                if ty.is_scalar() {
                    if let Some(first) = items.first() {
                        return self.init_walk(ty, &first.node.initializer, path, out);
                    }
                    return Ok(());
                }
                let mut pos = 0;
                self.init_list(ty, items, &mut pos, path, out, true)
            }
        }
    }

    /// Fill aggregate `ty` from `items[*pos..]`. `braced`: the list belongs to this aggregate
    /// (consume until its end); otherwise brace elision: consume only as many as it needs.
    fn init_list<'i>(
        &mut self,
        ty: &CType,
        items: &'i [Node<InitializerListItem>],
        pos: &mut usize,
        path: &mut Vec<Step>,
        out: &mut Vec<(Vec<Step>, CType, Leaf<'i>)>,
        braced: bool,
    ) -> Res<()> {
        let members = self.members(ty);
        let mut k = 0usize;
        while *pos < items.len() {
            let item = &items[*pos];
            if !item.node.designation.is_empty() {
                if !braced {
                    return Ok(()); // a designator ends an elided sub-aggregate
                }
                k = self.init_designated(
                    ty,
                    &members,
                    &item.node.designation,
                    &item.node.initializer,
                    path,
                    out,
                )?;
                *pos += 1;
                continue;
            }
            let union_done = matches!(members, Members::Struct { union: true, .. }) && k >= 1;
            let next = if union_done {
                None
            } else {
                self.member_at(&members, k)
            };
            let Some((mstep, mty)) = next else {
                if braced {
                    // Excess initializers: GCC warns and ignores them.
                    *pos = items.len();
                }
                return Ok(());
            };
            path.push(mstep);
            self.init_member(&mty, item, items, pos, path, out)?;
            path.pop();
            k += 1;
        }
        Ok(())
    }

    /// A designated initializer item (`.a.b = x`, `[2] = x`, `[1 ... 3] = x`) for aggregate
    /// `ty`; returns the positional index that follows it.
    fn init_designated<'i>(
        &mut self,
        ty: &CType,
        members: &Members,
        desig: &'i [Node<Designator>],
        init: &'i Node<Initializer>,
        path: &mut Vec<Step>,
        out: &mut Vec<(Vec<Step>, CType, Leaf<'i>)>,
    ) -> Res<usize> {
        let Some(d) = desig.first() else {
            self.init_walk(ty, init, path, out)?;
            return Ok(0);
        };
        let (lo, hi) = match &d.node {
            Designator::Index(e) => {
                let i = self.const_int(e)?;
                (i, i)
            }
            Designator::Range(r) => (self.const_int(&r.node.from)?, self.const_int(&r.node.to)?),
            Designator::Member(id) => match members {
                Members::Struct { fields, .. } => {
                    let i = fields
                        .iter()
                        .position(|f| f.0 == id.node.name)
                        .ok_or_else(|| {
                            self.err(d.span.start, format!("no field `{}`", id.node.name))
                        })?;
                    (i as i128, i as i128)
                }
                _ => return Err(self.err(d.span.start, "field designator for a non-struct")),
            },
        };
        if lo < 0 || hi < lo || hi - lo > 1 << 20 {
            return Err(self.err(d.span.start, "bad designator range"));
        }
        for k in lo as usize..=hi as usize {
            let (step, mty) = self
                .member_at(members, k)
                .ok_or_else(|| self.err(d.span.start, "designator outside the object"))?;
            path.push(step);
            let sub = self.members(&mty);
            self.init_designated(&mty, &sub, &desig[1..], init, path, out)?;
            path.pop();
        }
        Ok(hi as usize + 1)
    }

    fn init_member<'i>(
        &mut self,
        mty: &CType,
        item: &'i Node<InitializerListItem>,
        items: &'i [Node<InitializerListItem>],
        pos: &mut usize,
        path: &mut Vec<Step>,
        out: &mut Vec<(Vec<Step>, CType, Leaf<'i>)>,
    ) -> Res<()> {
        match &item.node.initializer.node {
            Initializer::List(_) => {
                self.init_walk(mty, &item.node.initializer, path, out)?;
                *pos += 1;
            }
            Initializer::Expression(e) => {
                let direct = mty.is_scalar()
                    || (matches!(mty, CType::Array(..))
                        && matches!(e.node, Expression::StringLiteral(_)))
                    || (matches!(mty, CType::Struct(_)) && self.type_of_expr(e)? == *mty);
                if direct {
                    self.init_walk(mty, &item.node.initializer, path, out)?;
                    *pos += 1;
                } else {
                    // brace elision: the sub-aggregate takes items from this list
                    self.init_list(mty, items, pos, path, out, false)?;
                }
            }
        }
        Ok(())
    }

    fn members(&self, ty: &CType) -> Members {
        match ty {
            CType::Array(e, n) => Members::Array((**e).clone(), n.unwrap_or(u64::MAX)),
            CType::Struct(s) => {
                let d = &self.tables.structs[s.index()];
                Members::Struct {
                    id: *s,
                    union: d.is_union,
                    fields: d
                        .fields
                        .iter()
                        .map(|f| (f.name.clone(), f.ty.clone()))
                        .collect(),
                }
            }
            _ => Members::Scalar,
        }
    }

    fn member_at(&self, m: &Members, k: usize) -> Option<(Step, CType)> {
        match m {
            Members::Array(e, n) if (k as u64) < *n => Some((Step::Index(k as u64), e.clone())),
            Members::Struct { id, fields, .. } => fields
                .get(k)
                .map(|f| (Step::Field(*id, k as u32), f.1.clone())),
            _ => None,
        }
    }
}

fn is_char(t: &CType) -> bool {
    matches!(t, CType::Int { bits: 8, .. })
}

/// What a global may be initialized with: constants and addresses, and sums of them.
fn is_constant_init(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Int(_)
        | ExprKind::Float(_)
        | ExprKind::Str(_)
        | ExprKind::GlobalAddr(_)
        | ExprKind::FuncAddr(_) => true,
        ExprKind::Cast(x) => is_constant_init(x),
        ExprKind::Binary(BinOp::Add | BinOp::Sub, a, b) => {
            is_constant_init(a) && is_constant_init(b)
        }
        _ => false,
    }
}

/// One step from an initialized object down to one of its scalars.
#[derive(Clone, Debug)]
enum Step {
    Index(u64),
    Field(StructId, u32),
}

/// A scalar's initial value: an expression, or a byte of a string literal.
enum Leaf<'i> {
    Expr(&'i Node<Expression>),
    Byte(i128),
}

/// Where the positional items of an initializer list go.
enum Members {
    Array(CType, u64),
    /// Unions are initialized positionally through their first member only.
    Struct {
        id: StructId,
        union: bool,
        fields: Vec<(String, CType)>,
    },
    Scalar,
}
