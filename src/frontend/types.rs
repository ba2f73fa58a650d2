//! Type resolution: `lang-c` specifiers and declarators → [`CType`], struct layout, enums.
//!
//! Takes declaration specifiers and declarators; gives C types under x86-64 LP64 with System V
//! struct layout. Part of the frontend; the lowering calls it for every declaration, cast and
//! `sizeof`.
//!
//! The names in scope, the struct table and what resolution learns on the way (enum types,
//! volatile typedefs and structs, `long double` lines) are [`Tables`], defined here and owned by
//! the lowering. Resolution reaches them, and the two things only the lowering can do (evaluate
//! an integer constant expression, type an expression for `typeof`), through the [`TypeEnv`]
//! trait, so this module does not depend on the lowering. Scopes hold variables too: typedef
//! names and enum constants share C's one namespace of ordinary identifiers with them.

use std::collections::HashMap;

use lang_c::ast::*;
use lang_c::span::Node;

use super::lines::LineMap;
use crate::diag::{Error, ErrorKind, Result};
use crate::ir::{CType, Field, FuncType, GlobalId, StructDef, StructId, VarId};

/// What a declaration's specifiers say besides the type.
#[derive(Default, Clone, Copy)]
pub struct Storage {
    pub typedef: bool,
    pub is_static: bool,
    pub is_extern: bool,
}

/// The base type specifiers of a declaration, in whatever order they came.
pub enum SpecList<'a> {
    Decl(&'a [Node<DeclarationSpecifier>]),
    Qual(&'a [Node<SpecifierQualifier>]),
}

/// Whether a declarator has a `volatile` pointer level (`int *volatile p`).
fn declarator_volatile(d: &Declarator) -> bool {
    let here = d.derived.iter().any(|x| match &x.node {
        DerivedDeclarator::Pointer(qs) => qs.iter().any(|q| {
            matches!(&q.node, PointerQualifier::TypeQualifier(t) if t.node == TypeQualifier::Volatile)
        }),
        _ => false,
    });
    here || matches!(&d.kind.node, DeclaratorKind::Declarator(inner) if declarator_volatile(&inner.node))
}

/// What a name in scope denotes.
#[derive(Clone, Debug)]
pub enum Binding {
    Typedef(CType),
    Var(VarId),
    Global(GlobalId),
    EnumConst(i128),
    Func(String),
}

/// One block's names (ordinary identifiers) and struct, union and enum tags.
#[derive(Default)]
pub struct Scope {
    pub names: HashMap<String, Binding>,
    tags: HashMap<String, StructId>,
}

/// The tables a translation unit's declarations build: names and tags in nested scopes, the
/// struct table, and facts about types the lowering needs later.
pub struct Tables {
    /// Innermost last; `scopes[0]` is the file scope.
    pub scopes: Vec<Scope>,
    pub structs: Vec<StructDef>,
    /// Underlying type of each enum tag.
    pub enum_tags: HashMap<String, CType>,
    /// Typedef names whose type is volatile-qualified somewhere.
    pub volatile_typedefs: std::collections::HashSet<String>,
    /// Structs and unions with a volatile member (directly or nested).
    pub volatile_structs: std::collections::HashSet<StructId>,
    /// Main-file lines where `long double` is used (executed as `double`).
    pub long_double_lines: Vec<u32>,
    /// Tags of the records assumed for types a missing header defines (`super::opaque`).
    pub assumed_tags: std::collections::BTreeSet<String>,
    /// Their structs: only the members the file uses are known, so their size is not.
    pub assumed_structs: std::collections::HashSet<StructId>,
}

/// Why a record's layout in the IR is not the compiler's ([`Tables::unknown_layout`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LayoutGap {
    /// A record assumed for a missing header's type: only the members the file uses.
    Assumed(String),
    /// A struct with bit-fields, each laid out as a whole member.
    Bitfields(String),
}

impl LayoutGap {
    /// The record's name as C spells it.
    pub fn name(&self) -> &str {
        match self {
            LayoutGap::Assumed(n) | LayoutGap::Bitfields(n) => n,
        }
    }

    pub fn why(&self) -> &'static str {
        match self {
            LayoutGap::Assumed(_) => {
                "whose full layout is unknown (only the members this file uses are)"
            }
            LayoutGap::Bitfields(_) => {
                "whose bit-fields dizy lays out apart, not packed as the compiler does"
            }
        }
    }
}

impl Tables {
    /// The innermost binding of `name`.
    pub fn lookup(&self, name: &str) -> Option<&Binding> {
        self.scopes.iter().rev().find_map(|s| s.names.get(name))
    }

    pub fn bind(&mut self, name: String, b: Binding) {
        self.scopes
            .last_mut()
            .expect("file scope")
            .names
            .insert(name, b);
    }

    pub fn lookup_tag(&self, name: &str) -> Option<StructId> {
        self.scopes
            .iter()
            .rev()
            .find_map(|s| s.tags.get(name).copied())
    }

    /// A tag of the innermost scope only: a definition there declares a new type even when an
    /// outer scope has the tag.
    pub fn lookup_tag_here(&self, name: &str) -> Option<StructId> {
        self.scopes.last().and_then(|s| s.tags.get(name).copied())
    }

    pub fn bind_tag(&mut self, name: String, id: StructId) {
        self.scopes
            .last_mut()
            .expect("file scope")
            .tags
            .insert(name, id);
    }

    pub fn prog_size(&self, t: &CType) -> u64 {
        crate::ir::layout_size(&self.structs, t)
    }

    pub fn prog_align(&self, t: &CType) -> u64 {
        match t {
            CType::Array(e, _) => self.prog_align(e),
            CType::Struct(s) => self.structs[s.index()].align.max(1),
            other => self.prog_size(other).max(1),
        }
    }

    /// Whether an object declared with `specs`, `declarator` and resolved type `ty` is volatile:
    /// a `volatile` qualifier at any level (the object, what it points to, a typedef it uses) or
    /// a struct type with a volatile member. Pointer-to-volatile counts too: conservative, since
    /// the pointer's own value is then treated as changing behind the program's back.
    pub fn is_volatile(
        &self,
        specs: SpecList<'_>,
        declarator: Option<&Declarator>,
        ty: &CType,
    ) -> bool {
        let typedef_volatile = |name: &str| self.volatile_typedefs.contains(name);
        let in_specs = match specs {
            SpecList::Decl(s) => s.iter().any(|d| match &d.node {
                DeclarationSpecifier::TypeQualifier(t) => t.node == TypeQualifier::Volatile,
                DeclarationSpecifier::TypeSpecifier(t) => {
                    matches!(&t.node, TypeSpecifier::TypedefName(id) if typedef_volatile(&id.node.name))
                }
                _ => false,
            }),
            SpecList::Qual(s) => s.iter().any(|d| match &d.node {
                SpecifierQualifier::TypeQualifier(t) => t.node == TypeQualifier::Volatile,
                SpecifierQualifier::TypeSpecifier(t) => {
                    matches!(&t.node, TypeSpecifier::TypedefName(id) if typedef_volatile(&id.node.name))
                }
                _ => false,
            }),
        };
        in_specs || declarator.is_some_and(declarator_volatile) || self.type_volatile(ty)
    }

    /// Whether `ty` contains a struct or union with a volatile member (through arrays and
    /// nesting, not through pointers).
    /// The record `ty` holds by value whose layout is not the compiler's, if any: an assumed
    /// record (see `assumed_structs`), or a struct with bit-fields (see
    /// [`crate::ir::Field::bits`]). What depends on its size or offsets cannot be lowered as a
    /// constant.
    pub fn unknown_layout(&self, ty: &CType) -> Option<LayoutGap> {
        match ty {
            CType::Array(e, _) => self.unknown_layout(e),
            CType::Struct(s) => {
                let d = &self.structs[s.index()];
                if self.assumed_structs.contains(s) {
                    let name = d.name.strip_prefix("__dizy_").unwrap_or(&d.name);
                    return Some(LayoutGap::Assumed(name.to_string()));
                }
                if d.fields.iter().any(|f| f.bits.is_some()) {
                    let kw = if d.is_union { "union" } else { "struct" };
                    let name = d
                        .typedef_name
                        .clone()
                        .unwrap_or_else(|| format!("{kw} {}", d.name));
                    return Some(LayoutGap::Bitfields(name));
                }
                d.fields.iter().find_map(|f| self.unknown_layout(&f.ty))
            }
            _ => None,
        }
    }

    pub fn type_volatile(&self, ty: &CType) -> bool {
        match ty {
            CType::Array(e, _) => self.type_volatile(e),
            CType::Struct(s) => self.volatile_structs.contains(s),
            _ => false,
        }
    }

    fn new_struct(&mut self, name: String, is_union: bool, declare_only: bool) -> StructId {
        let id = StructId::new(self.structs.len());
        self.structs.push(StructDef {
            name: name.clone(),
            is_union,
            fields: vec![],
            size: 0,
            align: 1,
            complete: false,
            typedef_name: None,
        });
        if self.assumed_tags.contains(&name) {
            self.assumed_structs.insert(id);
        }
        if !name.is_empty() {
            self.bind_tag(name, id);
        }
        let _ = declare_only;
        id
    }

    /// System V layout, except that a bit-field is laid out as a whole member of its declared
    /// type, a slot of its own (see [`crate::ir::Field::bits`]).
    fn layout(&mut self, id: StructId, fields: Vec<(String, CType, Option<u8>)>) {
        let is_union = self.structs[id.index()].is_union;
        let mut off = 0u64;
        let mut size = 0u64;
        let mut align = 1u64;
        let mut out = vec![];
        for (name, ty, bits) in fields {
            let a = self.prog_align(&ty);
            let s = self.prog_size(&ty);
            align = align.max(a);
            let fo = if is_union { 0 } else { off.div_ceil(a) * a };
            out.push(Field {
                name,
                ty,
                offset: fo,
                bits,
            });
            if is_union {
                size = size.max(s);
            } else {
                off = fo + s;
                size = off;
            }
        }
        let size = size.div_ceil(align) * align;
        let def = &mut self.structs[id.index()];
        def.fields = out;
        def.size = size;
        def.align = align;
        def.complete = true;
    }
}

/// What type resolution needs from its caller, the lowering context (which owns the [`Tables`]):
/// the tables, source positions (errors, `long double` lines), and the evaluation of expressions
/// inside types, which needs the expression lowering. Implementors give the first six methods;
/// the others are the resolution itself.
pub trait TypeEnv {
    fn tables(&self) -> &Tables;
    fn tables_mut(&mut self) -> &mut Tables;
    /// Maps offsets of the preprocessed text to original lines.
    fn line_map(&self) -> &LineMap;
    /// An error at `offset` of the preprocessed text, with its original file and line.
    fn err(&self, offset: usize, msg: impl Into<String>) -> Error;
    /// Evaluate an integer constant expression (array sizes, case labels, enumerators).
    fn const_int(&mut self, e: &Node<Expression>) -> Result<i128>;
    /// Type of an expression without keeping its side effects (`sizeof e`, `typeof(e)`).
    fn type_of_expr(&mut self, e: &Node<Expression>) -> Result<CType>;

    /// Resolve the base type named by a list of type specifiers.
    fn base_type(&mut self, specs: SpecList<'_>, offset: usize) -> Result<CType> {
        let list: Vec<&Node<TypeSpecifier>> = match specs {
            SpecList::Decl(s) => s
                .iter()
                .filter_map(|d| match &d.node {
                    DeclarationSpecifier::TypeSpecifier(t) => Some(t),
                    _ => None,
                })
                .collect(),
            SpecList::Qual(s) => s
                .iter()
                .filter_map(|d| match &d.node {
                    SpecifierQualifier::TypeSpecifier(t) => Some(t),
                    _ => None,
                })
                .collect(),
        };
        let (mut signed, mut unsigned, mut short, mut long, mut char_, mut int_) =
            (false, false, false, 0, false, false);
        let (mut float, mut double, mut void, mut bool_) = (false, false, false, false);
        let mut other: Option<CType> = None;
        for t in &list {
            match &t.node {
                TypeSpecifier::Void => void = true,
                TypeSpecifier::Char => char_ = true,
                TypeSpecifier::Short => short = true,
                TypeSpecifier::Int => int_ = true,
                TypeSpecifier::Long => long += 1,
                TypeSpecifier::Float => float = true,
                TypeSpecifier::Double => double = true,
                TypeSpecifier::Signed => signed = true,
                TypeSpecifier::Unsigned => unsigned = true,
                TypeSpecifier::Bool => bool_ = true,
                TypeSpecifier::Complex => {
                    return Err(self.err(t.span.start, "complex types are not supported"))
                }
                TypeSpecifier::Atomic(tn) => other = Some(self.type_name(tn)?),
                TypeSpecifier::Struct(st) => other = Some(self.struct_type(st)?),
                TypeSpecifier::Enum(en) => other = Some(self.enum_type(en)?),
                TypeSpecifier::TypedefName(id) => match self.tables().lookup(&id.node.name) {
                    Some(Binding::Typedef(ty)) => other = Some(ty.clone()),
                    _ => {
                        return Err(self
                            .err(
                                id.span.start,
                                format!("unknown type name `{}`", id.node.name),
                            )
                            .with_kind(ErrorKind::Undeclared))
                    }
                },
                TypeSpecifier::TypeOf(to) => {
                    other = Some(match &to.node {
                        TypeOf::Type(tn) => self.type_name(tn)?,
                        TypeOf::Expression(e) => self.type_of_expr(e)?,
                    })
                }
                TypeSpecifier::TS18661Float(f) => {
                    other = Some(match f.width {
                        32 => CType::Float,
                        64 => CType::Double,
                        // _Float128 and friends: only reachable from headers' prototypes.
                        _ => CType::Double,
                    })
                }
            }
        }
        if let Some(t) = other {
            return Ok(t);
        }
        Ok(if void {
            CType::Void
        } else if bool_ {
            CType::Bool
        } else if float {
            CType::Float
        } else if double {
            // long double is analysed and executed as double: the file's lines that use it are
            // recorded, so witnesses there are only claimed when native execution confirms them.
            if long > 0 && self.line_map().is_main(offset) {
                let line = self.line_map().line(offset);
                if !self.tables().long_double_lines.contains(&line) {
                    self.tables_mut().long_double_lines.push(line);
                }
            }
            CType::Double
        } else if char_ {
            CType::Int {
                bits: 8,
                signed: !unsigned,
            }
        } else if short {
            CType::Int {
                bits: 16,
                signed: !unsigned,
            }
        } else if long > 0 {
            CType::Int {
                bits: 64,
                signed: !unsigned,
            }
        } else if int_ || signed || unsigned {
            CType::Int {
                bits: 32,
                signed: !unsigned,
            }
        } else {
            // Implicit int (old-style code).
            CType::INT
        })
    }

    /// Apply a declarator to a base type; returns the declared name (if any) and its type.
    fn declarator(&mut self, base: CType, d: &Node<Declarator>) -> Result<(Option<String>, CType)> {
        // lang-c lists prefix pointers first, then postfix array/function parts in source order.
        // Postfix binds tighter, and the first postfix is the outermost (`int b[2][3]` is an
        // array of 2 arrays of 3), so pointers apply in order and postfix parts in reverse.
        let (ptrs, post): (Vec<_>, Vec<_>) = d
            .node
            .derived
            .iter()
            .partition(|x| matches!(x.node, DerivedDeclarator::Pointer(_)));
        let mut ty = base;
        for der in ptrs.into_iter().chain(post.into_iter().rev()) {
            ty = match &der.node {
                DerivedDeclarator::Pointer(_) => CType::Ptr(Box::new(ty)),
                DerivedDeclarator::Array(a) => {
                    let n = match &a.node.size {
                        ArraySize::Unknown => None,
                        ArraySize::VariableExpression(e) | ArraySize::StaticExpression(e) => {
                            match self.const_int(e) {
                                Ok(n) if n >= 0 => Some(n as u64),
                                Ok(_) => {
                                    return Err(self.err(e.span.start, "array size is negative"))
                                }
                                // A size that is not constant because a name in it is
                                // undeclared (a macro of a missing header) keeps that kind.
                                Err(why) => {
                                    let kind = match why.kind {
                                        ErrorKind::Undeclared => ErrorKind::Undeclared,
                                        _ => ErrorKind::Unsupported,
                                    };
                                    return Err(self
                                        .err(
                                            e.span.start,
                                            "variable-length arrays are not supported",
                                        )
                                        .with_kind(kind));
                                }
                            }
                        }
                        ArraySize::VariableUnknown => {
                            return Err(self
                                .err(der.span.start, "variable-length arrays are not supported"))
                        }
                    };
                    CType::Array(Box::new(ty), n)
                }
                DerivedDeclarator::Function(f) => {
                    let (params, variadic) = self.param_types(&f.node)?;
                    CType::Func(Box::new(FuncType {
                        ret: ty,
                        params,
                        variadic,
                    }))
                }
                DerivedDeclarator::KRFunction(ids) => {
                    // K&R definition: parameter types come from the declaration list; callers
                    // see an unprototyped function.
                    let _ = ids;
                    CType::Func(Box::new(FuncType {
                        ret: ty,
                        params: vec![],
                        variadic: true,
                    }))
                }
                DerivedDeclarator::Block(_) => {
                    return Err(self.err(der.span.start, "blocks are not supported"))
                }
            };
        }
        match &d.node.kind.node {
            DeclaratorKind::Abstract => Ok((None, ty)),
            DeclaratorKind::Identifier(id) => Ok((Some(id.node.name.clone()), ty)),
            DeclaratorKind::Declarator(inner) => self.declarator(ty, inner),
        }
    }

    fn param_types(&mut self, f: &FunctionDeclarator) -> Result<(Vec<CType>, bool)> {
        let mut out = vec![];
        for p in &f.parameters {
            let base = self.base_type(SpecList::Decl(&p.node.specifiers), p.span.start)?;
            let ty = match &p.node.declarator {
                Some(d) => self.declarator(base, d)?.1,
                None => base,
            };
            out.push(adjust_param(ty));
        }
        // `f(void)` means no parameters; `f()` leaves them unspecified (callable with any).
        if out.len() == 1 && out[0] == CType::Void {
            out.clear();
            return Ok((out, f.ellipsis == Ellipsis::Some));
        }
        let unprototyped = f.parameters.is_empty();
        Ok((out, f.ellipsis == Ellipsis::Some || unprototyped))
    }

    fn type_name(&mut self, tn: &Node<TypeName>) -> Result<CType> {
        let base = self.base_type(SpecList::Qual(&tn.node.specifiers), tn.span.start)?;
        match &tn.node.declarator {
            Some(d) => Ok(self.declarator(base, d)?.1),
            None => Ok(base),
        }
    }

    fn struct_type(&mut self, st: &Node<StructType>) -> Result<CType> {
        let is_union = st.node.kind.node == StructKind::Union;
        let name = st.node.identifier.as_ref().map(|i| i.node.name.clone());
        let id = match (&name, &st.node.declarations) {
            (Some(n), None) => match self.tables().lookup_tag(n) {
                Some(id) => id,
                None => self.tables_mut().new_struct(n.clone(), is_union, true),
            },
            (Some(n), Some(_)) => match self.tables().lookup_tag_here(n) {
                Some(id) if !self.tables().structs[id.index()].complete => id,
                _ => self.tables_mut().new_struct(n.clone(), is_union, false),
            },
            (None, _) => self.tables_mut().new_struct(String::new(), is_union, false),
        };
        if let Some(decls) = &st.node.declarations {
            let mut fields = vec![];
            for d in decls {
                let StructDeclaration::Field(f) = &d.node else {
                    continue;
                };
                let base = self.base_type(SpecList::Qual(&f.node.specifiers), f.span.start)?;
                if f.node.declarators.is_empty() {
                    // anonymous struct/union member: its fields are reachable by name
                    if self
                        .tables()
                        .is_volatile(SpecList::Qual(&f.node.specifiers), None, &base)
                    {
                        self.tables_mut().volatile_structs.insert(id);
                    }
                    fields.push((String::new(), base.clone(), None));
                }
                for sd in &f.node.declarators {
                    let (fname, fty) = match &sd.node.declarator {
                        Some(dd) => self.declarator(base.clone(), dd)?,
                        None => (None, base.clone()),
                    };
                    let decl = sd.node.declarator.as_ref().map(|d| &d.node);
                    if self
                        .tables()
                        .is_volatile(SpecList::Qual(&f.node.specifiers), decl, &fty)
                    {
                        self.tables_mut().volatile_structs.insert(id);
                    }
                    let bits = match &sd.node.bit_width {
                        Some(w) => {
                            let n = self.const_int(w)?;
                            let max = match fty {
                                CType::Bool => 1,
                                CType::Int { bits, .. } => i128::from(bits),
                                _ => {
                                    return Err(
                                        self.err(w.span.start, "bit-field of a non-integer type")
                                    )
                                }
                            };
                            if !(0..=max).contains(&n) {
                                return Err(self.err(w.span.start, "invalid bit-field width"));
                            }
                            // An unnamed bit-field only pads the packing dizy does not do.
                            if fname.is_none() {
                                continue;
                            }
                            Some(n as u8)
                        }
                        None => None,
                    };
                    fields.push((fname.unwrap_or_default(), fty, bits));
                }
            }
            self.tables_mut().layout(id, fields);
        }
        Ok(CType::Struct(id))
    }

    fn enum_type(&mut self, en: &Node<EnumType>) -> Result<CType> {
        let tag = en.node.identifier.as_ref().map(|i| i.node.name.clone());
        if en.node.enumerators.is_empty() {
            // A reference to an enum declared earlier (or a forward declaration).
            return Ok(tag
                .and_then(|t| self.tables().enum_tags.get(&t).cloned())
                .unwrap_or(CType::UINT));
        }
        let mut next: i128 = 0;
        let mut any_negative = false;
        for e in &en.node.enumerators {
            let v = match &e.node.expression {
                Some(x) => self.const_int(x)?,
                None => next,
            };
            any_negative |= v < 0;
            self.tables_mut()
                .bind(e.node.identifier.node.name.clone(), Binding::EnumConst(v));
            next = v + 1;
        }
        // GCC gives an enum without negative values the underlying type unsigned int.
        let ty = CType::Int {
            bits: 32,
            signed: any_negative,
        };
        if let Some(t) = tag {
            self.tables_mut().enum_tags.insert(t, ty.clone());
        }
        Ok(ty)
    }
}

/// The storage class of a declaration (`typedef` counts as one, as in C's grammar).
pub fn storage(specs: &[Node<DeclarationSpecifier>]) -> Storage {
    let mut s = Storage::default();
    for sp in specs {
        if let DeclarationSpecifier::StorageClass(c) = &sp.node {
            match c.node {
                StorageClassSpecifier::Typedef => s.typedef = true,
                StorageClassSpecifier::Static => s.is_static = true,
                StorageClassSpecifier::Extern => s.is_extern = true,
                _ => {}
            }
        }
    }
    s
}

/// Parameters of array type are pointers; of function type, function pointers.
pub fn adjust_param(t: CType) -> CType {
    match t {
        CType::Array(e, _) => CType::Ptr(e),
        CType::Func(f) => CType::Ptr(Box::new(CType::Func(f))),
        t => t,
    }
}
