//! Lowering: `lang-c` AST → typed structured IR with explicit side effects.
//!
//! Takes a parsed translation unit and its [`LineMap`]; gives a [`Program`]. Every expression in
//! the output is typed and side-effect free: `x++`, assignments inside expressions, calls,
//! short-circuit operands and `?:` arms with side effects become statements and temporaries
//! (named `$…`, e.g. `f$1` for the first result of a call to `f`), usual arithmetic conversions
//! and integer promotions become explicit casts. Only functions defined in the main file are
//! lowered; a function using something unsupported is recorded in `Program::rejected` with the
//! reason, so one odd function does not stop the analysis of the others.

use std::collections::HashMap;

use lang_c::ast::*;
use lang_c::span::Node;

use super::consteval::{self, fold, normalize};
use super::lines::LineMap;
use super::types::{adjust_param, SpecList};
use crate::diag::{Error, Result};
use crate::ir::{
    BinOp, CType, Callee, Expr, ExprKind, FuncType, Function, GlobalId, GlobalVar, Line, LogicOp,
    LoopKind, Place, Program, Stmt, StmtKind, StructDef, StructId, SwitchItem, UnOp, VarId,
    VarInfo, VarKind,
};

/// What a name in scope denotes.
#[derive(Clone, Debug)]
pub enum Binding {
    Typedef(CType),
    Var(VarId),
    Global(GlobalId),
    EnumConst(i128),
    Func(String),
}

#[derive(Default)]
struct Scope {
    names: HashMap<String, Binding>,
    tags: HashMap<String, StructId>,
}

/// Per-function lowering state.
struct FnState {
    name: String,
    vars: Vec<VarInfo>,
    globals: HashMap<GlobalId, VarId>,
    out: Vec<Stmt>,
    temps: HashMap<String, u32>,
    ret: CType,
    line: Line,
    depth: usize,
    /// Names that shadow an outer variable get `#n` suffixes; count per base name.
    shadow: HashMap<String, u32>,
}

/// Lowering context: program-level tables, scopes, and the function being lowered.
pub struct Ctx<'a> {
    map: &'a LineMap,
    file: &'a str,
    pub structs: Vec<StructDef>,
    globals: Vec<GlobalVar>,
    strings: Vec<Vec<u8>>,
    funcs: HashMap<String, FuncType>,
    func_order: Vec<String>,
    scopes: Vec<Scope>,
    notes: Vec<String>,
    f: Option<FnState>,
    /// Underlying type of each enum tag.
    pub enum_tags: HashMap<String, CType>,
    /// Typedef names whose type is volatile-qualified somewhere.
    pub volatile_typedefs: std::collections::HashSet<String>,
    /// Structs and unions with a volatile member (directly or nested).
    pub volatile_structs: std::collections::HashSet<StructId>,
    /// Main-file lines where `long double` is used (executed as `double`).
    pub long_double_lines: Vec<u32>,
}

/// A lowered expression: a value, a designated object, or nothing (`void`).
enum Val {
    R(Expr),
    L(Place, CType),
    /// A global object in a constant context (global initializers), where there are no VarIds.
    G(GlobalId, CType),
    Void,
}

type Res<T> = Result<T>;

pub fn lower_unit(unit: &TranslationUnit, map: &LineMap, file: &str) -> Res<Program> {
    let mut cx = Ctx {
        map,
        file,
        structs: vec![],
        globals: vec![],
        strings: vec![],
        funcs: HashMap::new(),
        func_order: vec![],
        scopes: vec![Scope::default()],
        notes: vec![],
        f: None,
        enum_tags: HashMap::new(),
        volatile_typedefs: Default::default(),
        volatile_structs: Default::default(),
        long_double_lines: vec![],
    };
    let mut functions = vec![];
    let mut rejected = vec![];
    for ext in &unit.0 {
        match &ext.node {
            ExternalDeclaration::Declaration(d) => {
                if let Err(e) = cx.file_declaration(d) {
                    // A type or object the file cannot define (e.g. an array sized by a macro
                    // of a missing header) is skipped: its names stay undeclared, so every
                    // function using them is rejected. Functions are never skipped: a call
                    // would then be assumed to return `int`.
                    let declares_function = d.node.declarators.iter().any(|i| {
                        i.node.declarator.node.derived.iter().any(|x| {
                            matches!(
                                x.node,
                                DerivedDeclarator::Function(_) | DerivedDeclarator::KRFunction(_)
                            )
                        })
                    });
                    if declares_function {
                        return Err(e);
                    }
                    cx.notes.push(format!(
                        "{}:{}: declaration skipped, its names stay undeclared: {}",
                        file,
                        map.line(d.span.start),
                        e.msg
                    ));
                }
            }
            ExternalDeclaration::StaticAssert(_) => {}
            ExternalDeclaration::FunctionDefinition(fd) => {
                let in_main = map.is_main(fd.span.start);
                match cx.function(fd, in_main) {
                    Ok(Some(f)) => functions.push(f),
                    Ok(None) => {}
                    Err(e) => {
                        cx.f = None;
                        cx.scopes.truncate(1);
                        let name = cx.fn_name(fd).unwrap_or_default();
                        rejected.push((name, e));
                    }
                }
            }
        }
    }
    let defined: Vec<String> = functions
        .iter()
        .map(|f: &Function| f.name.clone())
        .collect();
    let externs = cx
        .func_order
        .iter()
        .filter(|n| !defined.contains(n))
        .map(|n| (n.clone(), cx.funcs[n].clone()))
        .collect();
    Ok(Program {
        file: file.to_string(),
        structs: cx.structs,
        globals: cx.globals,
        functions,
        strings: cx.strings,
        externs,
        notes: cx.notes,
        rejected,
        long_double_lines: cx.long_double_lines,
    })
}

impl<'a> Ctx<'a> {
    // ---------------------------------------------------------------- scopes and errors

    /// Whether `offset` of the preprocessed text lies in the main file.
    pub fn map_is_main(&self, offset: usize) -> bool {
        self.map.is_main(offset)
    }

    /// The original line of `offset`.
    pub fn map_line(&self, offset: usize) -> u32 {
        self.map.line(offset)
    }

    pub fn err(&self, offset: usize, msg: impl Into<String>) -> Error {
        match self.map.locate(offset) {
            Some((file, line)) => Error::at(file, line, msg),
            None => Error::in_file(self.file, msg),
        }
    }

    fn line(&self, offset: usize) -> Line {
        Line(self.map.line(offset))
    }

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

    fn fs(&mut self) -> &mut FnState {
        self.f.as_mut().expect("inside a function")
    }

    fn emit(&mut self, kind: StmtKind) {
        if let Some(f) = self.f.as_mut() {
            let line = f.line;
            f.out.push(Stmt { kind, line });
        }
    }

    /// Run `body` with a fresh statement buffer; return its result and the statements it emitted.
    fn buffered<T>(&mut self, body: impl FnOnce(&mut Self) -> Res<T>) -> Res<(T, Vec<Stmt>)> {
        let saved = match self.f.as_mut() {
            Some(f) => std::mem::take(&mut f.out),
            None => vec![],
        };
        let r = body(self);
        let stmts = match self.f.as_mut() {
            Some(f) => std::mem::replace(&mut f.out, saved),
            None => vec![],
        };
        Ok((r?, stmts))
    }

    fn temp(&mut self, hint: &str, ty: CType) -> VarId {
        let f = self.fs();
        let n = f.temps.entry(hint.to_string()).or_insert(0);
        *n += 1;
        let name = format!("{hint}${n}");
        let line = f.line;
        f.vars.push(VarInfo {
            name,
            ty,
            kind: VarKind::Temp,
            addr_taken: false,
            volatile: false,
            line,
        });
        VarId::new(f.vars.len() - 1)
    }

    fn new_var(&mut self, name: &str, ty: CType, kind: VarKind, line: Line) -> VarId {
        let f = self.fs();
        let base = name.to_string();
        let exists = f.vars.iter().any(|v| v.name == base);
        let uname = if exists {
            let n = f.shadow.entry(base.clone()).or_insert(1);
            *n += 1;
            format!("{base}#{n}")
        } else {
            base
        };
        f.vars.push(VarInfo {
            name: uname,
            ty,
            kind,
            addr_taken: false,
            volatile: false,
            line,
        });
        VarId::new(f.vars.len() - 1)
    }

    fn global_var(&mut self, g: GlobalId) -> VarId {
        if let Some(v) = self.f.as_ref().and_then(|f| f.globals.get(&g)) {
            return *v;
        }
        let gv = &self.globals[g.index()];
        let (name, ty, line, volatile) = (gv.name.clone(), gv.ty.clone(), gv.line, gv.is_volatile);
        let f = self.fs();
        f.vars.push(VarInfo {
            name,
            ty,
            kind: VarKind::Global(g),
            addr_taken: false,
            volatile,
            line,
        });
        let v = VarId::new(f.vars.len() - 1);
        f.globals.insert(g, v);
        v
    }

    fn var_ty(&self, v: VarId) -> CType {
        self.f.as_ref().expect("function").vars[v.index()]
            .ty
            .clone()
    }

    fn mark_addr_taken(&mut self, p: &Place) {
        if let (Some(v), Some(f)) = (p.root_var(), self.f.as_mut()) {
            f.vars[v.index()].addr_taken = true;
        }
    }

    // ---------------------------------------------------------------- file scope

    fn fn_name(&mut self, fd: &Node<FunctionDefinition>) -> Option<String> {
        declarator_name(&fd.node.declarator.node)
    }

    fn declare_func(&mut self, name: &str, ft: FuncType) {
        if !self.funcs.contains_key(name) {
            self.func_order.push(name.to_string());
        }
        // A later prototype refines an unprototyped declaration.
        match self.funcs.get(name) {
            Some(old) if !(old.params.is_empty() && old.variadic) => {}
            _ => {
                self.funcs.insert(name.to_string(), ft);
            }
        }
        self.scopes[0]
            .names
            .insert(name.to_string(), Binding::Func(name.to_string()));
    }

    fn file_declaration(&mut self, d: &Node<Declaration>) -> Res<()> {
        let st = self.storage(&d.node.specifiers);
        let base = match self.base_type(SpecList::Decl(&d.node.specifiers), d.span.start) {
            Ok(t) => t,
            // Header declarations we cannot type are irrelevant unless used; a use reports it.
            Err(e) if !self.map.is_main(d.span.start) => {
                let _ = e;
                return Ok(());
            }
            Err(e) => return Err(e),
        };
        for idecl in &d.node.declarators {
            let (name, ty) = match self.declarator(base.clone(), &idecl.node.declarator) {
                Ok(x) => x,
                Err(_) if !self.map.is_main(d.span.start) => continue,
                Err(e) => return Err(e),
            };
            let Some(name) = name else { continue };
            let volatile = self.is_volatile(
                SpecList::Decl(&d.node.specifiers),
                Some(&idecl.node.declarator.node),
                &ty,
            );
            if st.typedef {
                if volatile {
                    self.volatile_typedefs.insert(name.clone());
                }
                self.bind(name, Binding::Typedef(ty));
                continue;
            }
            if let CType::Func(ft) = ty {
                self.declare_func(&name, *ft);
                continue;
            }
            let g = self.define_global(
                &name,
                ty,
                idecl.node.initializer.as_ref(),
                st.is_static,
                st.is_extern,
                d.span.start,
            )?;
            self.globals[g.index()].is_volatile |= volatile;
        }
        Ok(())
    }

    fn define_global(
        &mut self,
        name: &str,
        ty: CType,
        init: Option<&Node<Initializer>>,
        is_static: bool,
        is_extern: bool,
        offset: usize,
    ) -> Res<GlobalId> {
        let line = self.line(offset);
        let existing = match self.scopes[0].names.get(name) {
            Some(Binding::Global(g)) if self.f.is_none() => Some(*g),
            _ => None,
        };
        let g = match existing {
            Some(g) => g,
            None => {
                self.globals.push(GlobalVar {
                    name: name.to_string(),
                    ty: ty.clone(),
                    init: vec![],
                    is_static,
                    is_extern: true,
                    is_volatile: false,
                    line,
                });
                GlobalId::new(self.globals.len() - 1)
            }
        };
        if self.f.is_none() {
            self.scopes[0]
                .names
                .insert(name.to_string(), Binding::Global(g));
        }
        let gv = &mut self.globals[g.index()];
        // A complete array type from a later declaration wins over `extern int a[];`.
        if matches!(gv.ty, CType::Array(_, None)) || !is_extern {
            gv.ty = ty.clone();
        }
        if !is_extern {
            gv.is_extern = false;
            gv.line = line;
        }
        if let Some(init) = init {
            let ty = self.complete_array_type(&ty, init)?;
            let leaves = self.global_init(&ty, init)?;
            let gv = &mut self.globals[g.index()];
            gv.ty = ty;
            gv.init = leaves;
            gv.is_extern = false;
        }
        Ok(g)
    }

    /// `int a[] = {1,2,3}` / `char s[] = "ab"`: the initializer fixes the length.
    fn complete_array_type(&mut self, ty: &CType, init: &Node<Initializer>) -> Res<CType> {
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

    fn global_init(
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
                    off += i * self.prog_size(&e);
                    cur = *e;
                }
                (Step::Field(sid, k), _) => {
                    let f = &self.structs[sid.index()].fields[*k as usize];
                    off += f.offset;
                    cur = f.ty.clone();
                }
                _ => {}
            }
        }
        off
    }

    /// Lower an expression in a constant context (no function): global initializers, sizes.
    pub fn const_expr(&mut self, e: &Node<Expression>) -> Res<Expr> {
        let saved = self.f.take();
        let r = self.rvalue(e);
        self.f = saved;
        r
    }

    /// Type of an expression without keeping its side effects (`sizeof e`, `typeof(e)`).
    pub fn type_of_expr(&mut self, e: &Node<Expression>) -> Res<CType> {
        if self.f.is_none() {
            return self.const_expr_val(e);
        }
        let saved_vars = self.f.as_ref().map(|f| (f.vars.len(), f.temps.clone()));
        let (v, _) = self.buffered(|cx| cx.expr(e))?;
        if let (Some((n, temps)), Some(f)) = (saved_vars, self.f.as_mut()) {
            f.vars.truncate(n);
            f.temps = temps;
        }
        Ok(match v {
            Val::R(x) => x.ty,
            Val::L(_, t) | Val::G(_, t) => t,
            Val::Void => CType::Void,
        })
    }

    fn const_expr_val(&mut self, e: &Node<Expression>) -> Res<CType> {
        Ok(match self.expr(e)? {
            Val::R(x) => x.ty,
            Val::L(_, t) | Val::G(_, t) => t,
            Val::Void => CType::Void,
        })
    }

    // ---------------------------------------------------------------- functions

    fn function(&mut self, fd: &Node<FunctionDefinition>, in_main: bool) -> Res<Option<Function>> {
        let st = self.storage(&fd.node.specifiers);
        let base = self.base_type(SpecList::Decl(&fd.node.specifiers), fd.span.start)?;
        let (name, ty) = self.declarator(base, &fd.node.declarator)?;
        let name =
            name.ok_or_else(|| self.err(fd.span.start, "function definition without a name"))?;
        let CType::Func(ft) = ty else {
            return Err(self.err(fd.span.start, "function definition without a function type"));
        };
        // Parameter names and (for K&R definitions) types.
        let params_ast = function_params(&fd.node.declarator.node);
        let mut params: Vec<(String, CType, usize)> = vec![];
        let mut volatile_params = std::collections::HashSet::new();
        match params_ast {
            ParamsAst::Proto(list) => {
                for (i, p) in list.iter().enumerate() {
                    let b = self.base_type(SpecList::Decl(&p.node.specifiers), p.span.start)?;
                    let (n, t) = match &p.node.declarator {
                        Some(d) => self.declarator(b, d)?,
                        None => (None, b),
                    };
                    if t == CType::Void && list.len() == 1 {
                        break;
                    }
                    let decl = p.node.declarator.as_ref().map(|d| &d.node);
                    if self.is_volatile(SpecList::Decl(&p.node.specifiers), decl, &t) {
                        volatile_params.insert(i);
                    }
                    params.push((
                        n.unwrap_or_else(|| format!("$arg{}", i + 1)),
                        adjust_param(t),
                        p.span.start,
                    ));
                }
            }
            ParamsAst::KR(ids) => {
                for id in ids {
                    let mut t = CType::INT;
                    for d in &fd.node.declarations {
                        let b = self.base_type(SpecList::Decl(&d.node.specifiers), d.span.start)?;
                        for idl in &d.node.declarators {
                            let (n, pt) = self.declarator(b.clone(), &idl.node.declarator)?;
                            if n.as_deref() == Some(id.node.name.as_str()) {
                                t = pt;
                            }
                        }
                    }
                    params.push((id.node.name.clone(), adjust_param(t), id.span.start));
                }
            }
        }
        let ft = FuncType {
            ret: ft.ret.clone(),
            params: params.iter().map(|p| p.1.clone()).collect(),
            variadic: ft.variadic,
        };
        self.declare_func(&name, ft.clone());
        if !in_main {
            return Ok(None);
        }
        let line = self.line(fd.span.start);
        self.f = Some(FnState {
            name: name.clone(),
            vars: vec![],
            globals: HashMap::new(),
            out: vec![],
            temps: HashMap::new(),
            ret: ft.ret.clone(),
            line,
            depth: 0,
            shadow: HashMap::new(),
        });
        self.scopes.push(Scope::default());
        let mut pids = vec![];
        for (i, (n, t, off)) in params.iter().enumerate() {
            if matches!(t, CType::Struct(_)) && !self.structs_complete(t) {
                return Err(self.err(*off, "parameter has incomplete struct type"));
            }
            let v = self.new_var(n, t.clone(), VarKind::Param, self.line(*off));
            self.fs().vars[v.index()].volatile = volatile_params.contains(&i);
            self.bind(n.clone(), Binding::Var(v));
            pids.push(v);
        }
        // `__func__`
        let body = match &fd.node.statement.node {
            Statement::Compound(items) => {
                self.block_items(items)?;
                self.fs().out.drain(..).collect()
            }
            _ => return Err(self.err(fd.span.start, "function body is not a block")),
        };
        self.scopes.pop();
        let f = self.f.take().expect("function state");
        let end_line = Line(self.map.line(fd.span.end.saturating_sub(1)));
        Ok(Some(Function {
            name,
            ret: ft.ret,
            params: pids,
            variadic: ft.variadic,
            vars: f.vars,
            body,
            line,
            end_line,
            is_static: st.is_static,
        }))
    }

    fn structs_complete(&self, t: &CType) -> bool {
        match t {
            CType::Struct(s) => self.structs[s.index()].complete,
            _ => true,
        }
    }

    // ---------------------------------------------------------------- statements

    fn block_items(&mut self, items: &[Node<BlockItem>]) -> Res<()> {
        for it in items {
            match &it.node {
                BlockItem::Declaration(d) => self.local_declaration(d)?,
                BlockItem::StaticAssert(_) => {}
                BlockItem::Statement(s) => self.stmt(s)?,
            }
        }
        Ok(())
    }

    fn set_line(&mut self, offset: usize) {
        let l = self.line(offset);
        if let Some(f) = self.f.as_mut() {
            if l.0 != 0 {
                f.line = l;
            }
        }
    }

    fn stmt(&mut self, s: &Node<Statement>) -> Res<()> {
        self.set_line(s.span.start);
        let depth = {
            let f = self.fs();
            f.depth += 1;
            f.depth
        };
        if depth > super::MAX_NESTING {
            return Err(self.err(
                s.span.start,
                format!(
                    "statements nested deeper than {} levels are not supported",
                    super::MAX_NESTING
                ),
            ));
        }
        let r = self.stmt_inner(s);
        self.fs().depth -= 1;
        r
    }

    fn sub_block(&mut self, s: &Node<Statement>) -> Res<Vec<Stmt>> {
        let line = self.fs().line;
        let ((), stmts) = self.buffered(|cx| {
            cx.scopes.push(Scope::default());
            let r = cx.stmt(s);
            cx.scopes.pop();
            r
        })?;
        self.fs().line = line;
        Ok(stmts)
    }

    fn stmt_inner(&mut self, s: &Node<Statement>) -> Res<()> {
        match &s.node {
            Statement::Compound(items) => {
                self.scopes.push(Scope::default());
                let r = self.block_items(items);
                self.scopes.pop();
                r
            }
            Statement::Expression(None) => Ok(()),
            Statement::Expression(Some(e)) => self.effect(e),
            Statement::If(i) => {
                let c = &i.node.condition;
                let mut x = self.rvalue(c)?;
                let mut then_ = self.sub_block(&i.node.then_statement)?;
                let mut else_ = match &i.node.else_statement {
                    Some(e) => self.sub_block(e)?,
                    None => vec![],
                };
                // `if (!c) A else B` is lowered as `if (c) B else A`, and `if (0) A else B` as
                // `if (1) B else A`: a change that negates a condition and swaps the branches
                // then lines up with the original in the correlating program.
                while !then_.is_empty() && !else_.is_empty() {
                    x = match x.kind {
                        ExprKind::Unary(UnOp::LogNot, y) => *y,
                        ExprKind::Int(0) if x.ty.is_integer() => Expr::new(ExprKind::Int(1), x.ty),
                        _ => break,
                    };
                    std::mem::swap(&mut then_, &mut else_);
                }
                let cond = self.truth(x, c.span.start)?;
                self.set_line(s.span.start);
                self.emit(StmtKind::If { cond, then_, else_ });
                Ok(())
            }
            Statement::While(w) => {
                let (cond, pre) = self.buffered(|cx| cx.cond(&w.node.expression))?;
                let body = self.sub_block(&w.node.statement)?;
                self.set_line(s.span.start);
                self.emit(StmtKind::Loop {
                    kind: LoopKind::While,
                    pre,
                    cond,
                    body,
                    step: vec![],
                });
                Ok(())
            }
            Statement::DoWhile(w) => {
                let body = self.sub_block(&w.node.statement)?;
                self.set_line(w.node.expression.span.start);
                let (cond, pre) = self.buffered(|cx| cx.cond(&w.node.expression))?;
                self.emit(StmtKind::Loop {
                    kind: LoopKind::DoWhile,
                    pre,
                    cond,
                    body,
                    step: vec![],
                });
                Ok(())
            }
            Statement::For(fo) => {
                self.scopes.push(Scope::default());
                let r = self.for_loop(s, fo);
                self.scopes.pop();
                r
            }
            Statement::Switch(sw) => self.switch(sw),
            Statement::Labeled(l) => match &l.node.label.node {
                Label::Identifier(id) => {
                    self.emit(StmtKind::Label(id.node.name.clone()));
                    self.stmt(&l.node.statement)
                }
                _ => Err(self.err(
                    s.span.start,
                    "case label not directly inside a switch body is not supported",
                )),
            },
            Statement::Goto(id) => {
                self.emit(StmtKind::Goto(id.node.name.clone()));
                Ok(())
            }
            Statement::Continue => {
                self.emit(StmtKind::Continue);
                Ok(())
            }
            Statement::Break => {
                self.emit(StmtKind::Break);
                Ok(())
            }
            Statement::Return(e) => {
                let ret = self.fs().ret.clone();
                let v = match e {
                    Some(e) if ret != CType::Void => {
                        let v = self.rvalue(e)?;
                        Some(self.convert_checked(v, &ret, e.span.start)?)
                    }
                    Some(e) => {
                        self.effect(e)?;
                        None
                    }
                    None => None,
                };
                self.set_line(s.span.start);
                self.emit(StmtKind::Return(v));
                Ok(())
            }
            Statement::Asm(_) => Err(self.err(s.span.start, "inline assembly is not supported")),
        }
    }

    fn for_loop(&mut self, s: &Node<Statement>, fo: &Node<ForStatement>) -> Res<()> {
        match &fo.node.initializer.node {
            ForInitializer::Empty | ForInitializer::StaticAssert(_) => {}
            ForInitializer::Expression(e) => self.effect(e)?,
            ForInitializer::Declaration(d) => self.local_declaration(d)?,
        }
        let (cond, pre) = match &fo.node.condition {
            Some(c) => self.buffered(|cx| cx.cond(c))?,
            None => (Expr::int(1, CType::INT), vec![]),
        };
        let body = self.sub_block(&fo.node.statement)?;
        let ((), step) = match &fo.node.step {
            Some(e) => {
                self.set_line(e.span.start);
                self.buffered(|cx| cx.effect(e))?
            }
            None => ((), vec![]),
        };
        self.set_line(s.span.start);
        self.emit(StmtKind::Loop {
            kind: LoopKind::While,
            pre,
            cond,
            body,
            step,
        });
        Ok(())
    }

    fn switch(&mut self, sw: &Node<SwitchStatement>) -> Res<()> {
        let v = self.rvalue(&sw.node.expression)?;
        if !v.ty.is_integer() {
            return Err(self.err(sw.span.start, "switch on a non-integer value"));
        }
        let t = promote(&v.ty);
        let value = self.convert(v, &t);
        let Statement::Compound(items) = &sw.node.statement.node else {
            return Err(self.err(sw.span.start, "switch body must be a block"));
        };
        let line = self.fs().line;
        let mut body = vec![];
        self.scopes.push(Scope::default());
        let r = (|| -> Res<()> {
            for it in items {
                match &it.node {
                    BlockItem::Declaration(d) => {
                        let ((), st) = self.buffered(|cx| cx.local_declaration(d))?;
                        body.extend(st.into_iter().map(SwitchItem::Stmt));
                    }
                    BlockItem::StaticAssert(_) => {}
                    BlockItem::Statement(s) => self.switch_stmt(s, &t, &mut body)?,
                }
            }
            Ok(())
        })();
        self.scopes.pop();
        r?;
        self.fs().line = line;
        self.emit(StmtKind::Switch { value, body });
        Ok(())
    }

    fn switch_stmt(
        &mut self,
        s: &Node<Statement>,
        t: &CType,
        body: &mut Vec<SwitchItem>,
    ) -> Res<()> {
        if let Statement::Labeled(l) = &s.node {
            let item = match &l.node.label.node {
                Label::Case(e) => {
                    let v = normalize(self.const_int(e)?, t);
                    Some(SwitchItem::Case(v, v))
                }
                Label::CaseRange(r) => {
                    let lo = normalize(self.const_int(&r.node.low)?, t);
                    let hi = normalize(self.const_int(&r.node.high)?, t);
                    Some(SwitchItem::Case(lo, hi))
                }
                Label::Default => Some(SwitchItem::Default),
                Label::Identifier(_) => None,
            };
            if let Some(item) = item {
                body.push(item);
                return self.switch_stmt(&l.node.statement, t, body);
            }
        }
        let ((), st) = self.buffered(|cx| cx.stmt(s))?;
        body.extend(st.into_iter().map(SwitchItem::Stmt));
        Ok(())
    }

    // ---------------------------------------------------------------- declarations

    fn local_declaration(&mut self, d: &Node<Declaration>) -> Res<()> {
        self.set_line(d.span.start);
        let st = self.storage(&d.node.specifiers);
        let base = self.base_type(SpecList::Decl(&d.node.specifiers), d.span.start)?;
        for idecl in &d.node.declarators {
            self.set_line(idecl.span.start);
            let (name, ty) = self.declarator(base.clone(), &idecl.node.declarator)?;
            let Some(name) = name else { continue };
            let volatile = self.is_volatile(
                SpecList::Decl(&d.node.specifiers),
                Some(&idecl.node.declarator.node),
                &ty,
            );
            if st.typedef {
                if volatile {
                    self.volatile_typedefs.insert(name.clone());
                }
                self.bind(name, Binding::Typedef(ty));
                continue;
            }
            if let CType::Func(ft) = ty {
                self.declare_func(&name, *ft.clone());
                self.bind(name.clone(), Binding::Func(name));
                continue;
            }
            if st.is_extern {
                let g = match self.scopes[0].names.get(&name) {
                    Some(Binding::Global(g)) => *g,
                    _ => {
                        let saved = self.f.take();
                        let r =
                            self.define_global(&name, ty.clone(), None, false, true, d.span.start);
                        self.f = saved;
                        r?
                    }
                };
                self.globals[g.index()].is_volatile |= volatile;
                self.bind(name, Binding::Global(g));
                continue;
            }
            if st.is_static {
                // A static local is a global with a function-qualified name.
                let fname = self.fs().name.clone();
                let gname = format!("{fname}.{name}");
                let saved = self.f.take();
                let r = self.define_global(
                    &gname,
                    ty.clone(),
                    idecl.node.initializer.as_ref(),
                    true,
                    false,
                    d.span.start,
                );
                self.f = saved;
                let g = r?;
                self.globals[g.index()].is_volatile |= volatile;
                self.bind(name, Binding::Global(g));
                continue;
            }
            let ty = match &idecl.node.initializer {
                Some(init) => self.complete_array_type(&ty, init)?,
                None => ty,
            };
            if let CType::Array(_, None) = ty {
                return Err(self.err(idecl.span.start, format!("array `{name}` has no size")));
            }
            if !self.structs_complete(&ty) {
                return Err(self.err(
                    idecl.span.start,
                    format!("variable `{name}` has incomplete type"),
                ));
            }
            let line = self.fs().line;
            let v = self.new_var(&name, ty.clone(), VarKind::Local, line);
            if matches!(ty, CType::Array(..)) {
                self.fs().vars[v.index()].addr_taken = true;
            }
            self.fs().vars[v.index()].volatile = volatile;
            match &idecl.node.initializer {
                None => self.emit(StmtKind::Havoc(Place::Var(v))),
                Some(init) => self.local_init(v, &ty, init)?,
            }
            // The name is visible from its own initializer on, but C code relying on that is
            // rare; binding after keeps `int x = x;` pointing at an outer x (also rare).
            self.bind(name, Binding::Var(v));
        }
        Ok(())
    }

    fn local_init(&mut self, v: VarId, ty: &CType, init: &Node<Initializer>) -> Res<()> {
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
            self.emit(StmtKind::Assign(place, value));
        }
        Ok(())
    }

    fn zero(&self, ty: &CType) -> Expr {
        if ty.is_float() {
            Expr::new(ExprKind::Float(0.0), ty.clone())
        } else {
            Expr::int(0, ty.clone())
        }
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
                    let fty = self.structs[sid.index()].fields[*k as usize].ty.clone();
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
                let d = &self.structs[s.index()];
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

    // ---------------------------------------------------------------- expressions

    fn rvalue(&mut self, e: &Node<Expression>) -> Res<Expr> {
        let v = self.expr(e)?;
        self.rvalue_of(v, e.span.start)
    }

    fn rvalue_of(&mut self, v: Val, offset: usize) -> Res<Expr> {
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
                    if let Some(bits) = field_bitfield(self, &p) {
                        return Err(self.err(
                            offset,
                            format!("bit-field `{bits}` access is not supported"),
                        ));
                    }
                    Ok(match p {
                        Place::Var(v) => Expr::var(v, ty),
                        p => Expr::new(ExprKind::Load(Box::new(p)), ty),
                    })
                }
            },
        }
    }

    fn lvalue(&mut self, e: &Node<Expression>) -> Res<(Place, CType)> {
        match self.expr(e)? {
            Val::L(p, t) => Ok((p, t)),
            _ => Err(self.err(e.span.start, "expression is not assignable")),
        }
    }

    /// Condition: an int-valued 0/1 expression.
    fn cond(&mut self, e: &Node<Expression>) -> Res<Expr> {
        let x = self.rvalue(e)?;
        self.truth(x, e.span.start)
    }

    fn truth(&mut self, x: Expr, offset: usize) -> Res<Expr> {
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

    /// Evaluate for side effects only (expression statements, `for` steps, comma operands).
    fn effect(&mut self, e: &Node<Expression>) -> Res<()> {
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

    fn expr(&mut self, e: &Node<Expression>) -> Res<Val> {
        let off = e.span.start;
        match &e.node {
            Expression::Identifier(id) => self.ident(&id.node.name, off),
            Expression::Constant(c) => self.constant(&c.node, off).map(Val::R),
            Expression::StringLiteral(s) => {
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
                Ok(Val::R(Expr::int(
                    self.prog_align(&ty) as i128,
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
                if !ty.is_scalar() {
                    return Err(self.err(off, "cast to a non-scalar type is not supported"));
                }
                if !x.ty.is_scalar() {
                    return Err(self.err(off, "cast of a non-scalar value"));
                }
                if (x.ty.is_float() && ty.is_pointer()) || (x.ty.is_pointer() && ty.is_float()) {
                    return Err(self.err(off, "invalid cast between pointer and floating type"));
                }
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
                        let f = &self.structs[sid.index()].fields[k as usize];
                        offset += f.offset;
                        cur = f.ty.clone();
                    }
                }
                Ok(Val::R(Expr::int(offset as i128, CType::ULONG)))
            }
            Expression::VaArg(_) => Err(self.err(off, "va_arg is not supported")),
            Expression::Statement(_) => {
                Err(self.err(off, "statement expressions are not supported"))
            }
        }
    }

    fn sizeof(&mut self, ty: CType, off: usize) -> Res<Val> {
        if matches!(ty, CType::Array(_, None)) || !self.structs_complete(&ty) {
            return Err(self.err(off, "sizeof of an incomplete type"));
        }
        Ok(Val::R(Expr::int(self.prog_size(&ty) as i128, CType::ULONG)))
    }

    fn ident(&mut self, name: &str, off: usize) -> Res<Val> {
        match self.lookup(name).cloned() {
            Some(Binding::Var(v)) => {
                // A local read where a constant is needed (an array size: a VLA).
                if self.f.is_none() {
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
            None => Err(self.err(off, format!("use of undeclared identifier `{name}`"))),
        }
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

    fn string_bytes(&self, s: &StringLiteral) -> Res<Vec<u8>> {
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
        let d = &self.structs[s.index()];
        for (k, f) in d.fields.iter().enumerate() {
            if f.name == name || f.name.strip_suffix(":bitfield") == Some(name) {
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
            return Err(self.err(off, format!("member `{name}` of a non-struct value")));
        };
        if !self.structs[s.index()].complete {
            return Err(self.err(off, "member of an incomplete struct"));
        }
        let path = self
            .find_field(s, name)
            .ok_or_else(|| self.err(off, format!("no member named `{name}`")))?;
        let mut p = base;
        let mut ty = bty;
        for (sid, k) in path {
            ty = self.structs[sid.index()].fields[k as usize].ty.clone();
            p = Place::Field(Box::new(p), sid, k, ty.clone());
        }
        Ok(Val::L(p, ty))
    }

    fn call(&mut self, c: &Node<CallExpression>, off: usize, want_value: bool) -> Res<Val> {
        // Direct calls by name (also to undeclared functions, which C89 allowed).
        let (callee, ft) = match &c.node.callee.node {
            Expression::Identifier(id)
                if !matches!(
                    self.lookup(&id.node.name),
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
                    None => {
                        let ft = FuncType {
                            ret: CType::INT,
                            params: vec![],
                            variadic: true,
                        };
                        self.notes.push(format!(
                            "`{name}` is called without a declaration; assumed `int {name}()`"
                        ));
                        self.declare_func(&name, ft.clone());
                        ft
                    }
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
        self.emit(StmtKind::Call {
            dest: Some(Place::Var(t)),
            callee,
            args,
        });
        Ok(Val::L(Place::Var(t), ft.ret))
    }

    fn unary(&mut self, u: &Node<UnaryOperatorExpression>, off: usize) -> Res<Val> {
        let operand = &u.node.operand;
        match u.node.operator.node {
            UnaryOperator::PreIncrement => self.incdec(operand, true, false),
            UnaryOperator::PreDecrement => self.incdec(operand, false, false),
            UnaryOperator::PostIncrement => self.incdec(operand, true, true),
            UnaryOperator::PostDecrement => self.incdec(operand, false, true),
            UnaryOperator::Address => match self.expr(operand)? {
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
    fn incdec(&mut self, operand: &Node<Expression>, inc: bool, post: bool) -> Res<Val> {
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
        self.emit(StmtKind::Assign(place.clone(), new));
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

    fn binary(&mut self, b: &Node<BinaryOperatorExpression>, off: usize) -> Res<Val> {
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
                let idx = self.convert(idx, &CType::LONG);
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
                self.emit(StmtKind::Assign(place.clone(), v));
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
                self.emit(StmtKind::Assign(place.clone(), v));
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
            let i = self.convert(i, &CType::LONG);
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

    fn convert_checked(&mut self, x: Expr, to: &CType, off: usize) -> Res<Expr> {
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
        Ok(self.convert(x, to))
    }

    /// Convert to `to` with C semantics; constants are folded.
    pub fn convert(&self, x: Expr, to: &CType) -> Expr {
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
pub fn promote(t: &CType) -> CType {
    match t {
        CType::Bool => CType::INT,
        CType::Int { bits, .. } if *bits < 32 => CType::INT,
        t => t.clone(),
    }
}

/// Usual arithmetic conversions (C11 6.3.1.8) under LP64.
pub fn usual(a: &CType, b: &CType) -> CType {
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
fn fold_const(e: Expr) -> Expr {
    if e.ty.is_float() {
        if let Some(f) = consteval::fold_float(&e) {
            return Expr::new(ExprKind::Float(f), e.ty);
        }
    }
    fold_expr(e)
}

fn fold_expr(e: Expr) -> Expr {
    if matches!(e.kind, ExprKind::Int(_)) || !e.ty.is_integer() {
        return e;
    }
    match fold(&e) {
        Some(v) => Expr::int(v, e.ty),
        None => e,
    }
}

fn is_boolean(x: &Expr) -> bool {
    match &x.kind {
        ExprKind::Binary(op, ..) => matches!(
            op,
            BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge
        ),
        ExprKind::Logic(..) | ExprKind::Unary(UnOp::LogNot, _) => true,
        _ => false,
    }
}

fn is_char(t: &CType) -> bool {
    matches!(t, CType::Int { bits: 8, .. })
}

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

fn field_bitfield(cx: &Ctx<'_>, p: &Place) -> Option<String> {
    if let Place::Field(_, s, k, _) = p {
        let f = &cx.structs[s.index()].fields[*k as usize];
        if let Some(n) = f.name.strip_suffix(":bitfield") {
            return Some(n.to_string());
        }
    }
    None
}

fn declarator_name(d: &Declarator) -> Option<String> {
    match &d.kind.node {
        DeclaratorKind::Identifier(id) => Some(id.node.name.clone()),
        DeclaratorKind::Declarator(inner) => declarator_name(&inner.node),
        DeclaratorKind::Abstract => None,
    }
}

enum ParamsAst<'a> {
    Proto(&'a [Node<ParameterDeclaration>]),
    KR(&'a [Node<Identifier>]),
}

/// The parameter list of a function definition's declarator (the innermost function part).
fn function_params(d: &Declarator) -> ParamsAst<'_> {
    if let DeclaratorKind::Declarator(inner) = &d.kind.node {
        if inner.node.derived.iter().any(|x| {
            matches!(
                x.node,
                DerivedDeclarator::Function(_) | DerivedDeclarator::KRFunction(_)
            )
        }) {
            return function_params(&inner.node);
        }
    }
    for der in &d.derived {
        match &der.node {
            DerivedDeclarator::Function(f) => return ParamsAst::Proto(&f.node.parameters),
            DerivedDeclarator::KRFunction(ids) => return ParamsAst::KR(ids),
            _ => {}
        }
    }
    ParamsAst::Proto(&[])
}

#[derive(Clone, Debug)]
enum Step {
    Index(u64),
    Field(StructId, u32),
}

enum Leaf<'i> {
    Expr(&'i Node<Expression>),
    Byte(i128),
}

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
