//! Lowering of declarations: file-scope declarations (typedefs, prototypes, globals), function
//! definitions and local declarations.
//!
//! Takes `lang-c` declarations and function definitions; gives the program's functions, globals
//! (with their initial values, from `init`) and extern prototypes, binds names in the scopes, and
//! emits the statements that initialize locals. Static locals become globals named
//! `function.name`. Types come from `frontend::types`.

use std::collections::HashMap;

use lang_c::ast::*;
use lang_c::span::Node;

use super::{written, Ctx, FnState, Res};
use crate::frontend::types::{adjust_param, storage, Binding, Scope, SpecList, TypeEnv};
use crate::ir::{CType, FuncType, Function, GlobalId, GlobalVar, Line, Place, StmtKind, VarKind};

impl Ctx<'_> {
    // ---------------------------------------------------------------- file scope

    pub(super) fn fn_name(&mut self, fd: &Node<FunctionDefinition>) -> Option<String> {
        declarator_name(&fd.node.declarator.node)
    }

    pub(super) fn declare_func(&mut self, name: &str, ft: FuncType) {
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
        self.tables.scopes[0]
            .names
            .insert(name.to_string(), Binding::Func(name.to_string()));
    }

    /// Whether a declared name is volatile; `None` when the declaration is a typedef, which is
    /// bound here (volatile typedefs remembered) and needs nothing more.
    fn typedef_or_volatile(
        &mut self,
        d: &Node<Declaration>,
        idecl: &Node<InitDeclarator>,
        typedef: bool,
        name: &str,
        ty: &CType,
    ) -> Option<bool> {
        let volatile = self.tables.is_volatile(
            SpecList::Decl(&d.node.specifiers),
            Some(&idecl.node.declarator.node),
            ty,
        );
        if !typedef {
            return Some(volatile);
        }
        if volatile {
            self.tables.volatile_typedefs.insert(name.to_string());
        }
        // An untagged struct is named by its first file-scope typedef.
        if let CType::Struct(s) = ty {
            let def = &mut self.tables.structs[s.index()];
            if def.name.is_empty() && def.typedef_name.is_none() && self.tables.scopes.len() == 1 {
                def.typedef_name = Some(name.to_string());
            }
        }
        self.tables
            .bind(name.to_string(), Binding::Typedef(ty.clone()));
        None
    }

    pub(super) fn file_declaration(&mut self, d: &Node<Declaration>) -> Res<()> {
        let st = storage(&d.node.specifiers);
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
            let Some(volatile) = self.typedef_or_volatile(d, idecl, st.typedef, &name, &ty) else {
                continue;
            };
            if let CType::Func(ft) = ty {
                if self.map.is_system(d.span.start) {
                    self.library.insert(name.clone());
                }
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
        let existing = match self.tables.scopes[0].names.get(name) {
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
                    opaque: false,
                    line,
                });
                GlobalId::new(self.globals.len() - 1)
            }
        };
        if self.f.is_none() {
            self.tables.scopes[0]
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

    // ---------------------------------------------------------------- functions

    pub(super) fn function(
        &mut self,
        fd: &Node<FunctionDefinition>,
        in_main: bool,
    ) -> Res<Function> {
        let st = storage(&fd.node.specifiers);
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
                    if self
                        .tables
                        .is_volatile(SpecList::Decl(&p.node.specifiers), decl, &t)
                    {
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
            self.in_headers.insert(name.clone());
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
            undeclared_results: HashMap::new(),
            enclosing: vec![],
            const_ints: HashMap::new(),
            written: written::written_names(&fd.node.statement.node, &fd.node.statement.span),
        });
        self.tables.scopes.push(Scope::default());
        let mut pids = vec![];
        for (i, (n, t, off)) in params.iter().enumerate() {
            if matches!(t, CType::Struct(_)) && !self.structs_complete(t) {
                return Err(self.err(*off, "parameter has incomplete struct type"));
            }
            let v = self.new_var(n, t.clone(), VarKind::Param, self.line(*off));
            self.fs().vars[v.index()].volatile = volatile_params.contains(&i);
            self.tables.bind(n.clone(), Binding::Var(v));
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
        self.tables.scopes.pop();
        let f = self.f.take().expect("function state");
        let end_line = Line(self.map.line(fd.span.end.saturating_sub(1)));
        Ok(Function {
            name,
            ret: ft.ret,
            params: pids,
            variadic: ft.variadic,
            vars: f.vars,
            body,
            line,
            end_line,
            is_static: st.is_static,
        })
    }

    // ---------------------------------------------------------------- local declarations

    pub(super) fn local_declaration(&mut self, d: &Node<Declaration>) -> Res<()> {
        self.set_line(d.span.start);
        let st = storage(&d.node.specifiers);
        let base = self.base_type(SpecList::Decl(&d.node.specifiers), d.span.start)?;
        for idecl in &d.node.declarators {
            self.set_line(idecl.span.start);
            let (name, ty) = self.declarator(base.clone(), &idecl.node.declarator)?;
            let Some(name) = name else { continue };
            let Some(volatile) = self.typedef_or_volatile(d, idecl, st.typedef, &name, &ty) else {
                continue;
            };
            if let CType::Func(ft) = ty {
                self.declare_func(&name, *ft.clone());
                self.tables.bind(name.clone(), Binding::Func(name));
                continue;
            }
            if st.is_extern {
                let g = match self.tables.scopes[0].names.get(&name) {
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
                self.tables.bind(name, Binding::Global(g));
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
                self.tables.bind(name, Binding::Global(g));
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
            // C scope: the name denotes the new variable from the end of its declarator on,
            // its own initializer included (`T *p = malloc(sizeof *p)`)
            self.tables.bind(name.clone(), Binding::Var(v));
            match &idecl.node.initializer {
                None => self.emit(StmtKind::Havoc(Place::Var(v))),
                Some(init) => {
                    if super::written::init_reads_itself(init, &name) {
                        // `int x = x + 1;` reads the new variable before it has a value
                        self.emit(StmtKind::Havoc(Place::Var(v)));
                    }
                    self.local_init(v, &ty, init)?
                }
            }
            let fixed = d.node.specifiers.iter().any(|s| {
                matches!(&s.node, DeclarationSpecifier::TypeQualifier(q) if q.node == TypeQualifier::Const)
            }) || self.fs().written.as_ref().is_some_and(|w| !w.contains(&name));
            if let (true, false, CType::Int { bits, signed }, Some(Initializer::Expression(e))) = (
                fixed,
                volatile,
                &ty,
                idecl.node.initializer.as_ref().map(|i| &i.node),
            ) {
                let (lo, hi) = match signed {
                    true => (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1),
                    false => (0, (1i128 << bits) - 1),
                };
                // Only an initializer that is a constant in range: the value the local holds.
                if let Ok(n) = self.const_int(e) {
                    if (lo..=hi).contains(&n) {
                        self.fs().const_ints.insert(v, n);
                    }
                }
            }
        }
        Ok(())
    }
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
