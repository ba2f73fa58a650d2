//! Which C constructs a generated pair contains, for the summary's coverage table and the test
//! that a fixed-seed run covers all of them.
//!
//! Takes both versions of a pair; gives the names (from [`CONSTRUCTS`]) of the constructs found
//! in either version, by scanning types, declarations, statements and expressions — what the
//! pair really contains after mutation, not what the generator meant to put in.

use std::collections::BTreeSet;

use crate::ast::*;

/// Every construct the generator produces, in the order the summary lists them.
pub const CONSTRUCTS: &[&str] = &[
    "char",
    "signed char",
    "unsigned char",
    "short",
    "unsigned short",
    "int",
    "unsigned",
    "long",
    "unsigned long",
    "long long",
    "_Bool",
    "bool",
    "size_t",
    "enum",
    "missing-header name",
    "missing-header case",
    "float",
    "double",
    "float->int",
    "int->float",
    "struct",
    "nested struct",
    "array in struct",
    "bit-field",
    "struct param",
    "struct return",
    "union",
    "union param",
    "union return",
    "out-param",
    "int buffer+len",
    "char buffer+size_t",
    "string",
    "alias",
    "pointer member",
    "pointer member write",
    "malloc/free",
    "realloc",
    "local array",
    "global",
    "global array",
    "global struct",
    "static global",
    "static const",
    "volatile",
    "static local",
    "init-only change",
    "switch",
    "fallthrough",
    "case range",
    "goto forward",
    "goto backward",
    "do-while",
    "recursion",
    "function pointer",
    "fn-pointer table",
    "printf",
    "putchar",
    "ctype",
    "bit builtin",
    "statement expr",
    "stmt expr leaving",
    "may not terminate",
    "helper",
    "loop",
    "early return",
    "falls off end",
    "break/continue",
];

fn ty_names(t: &Ty, out: &mut BTreeSet<&'static str>) {
    match t {
        Ty::I(k) => {
            out.insert(match k {
                IntK::Char => "char",
                IntK::SChar => "signed char",
                IntK::UChar => "unsigned char",
                IntK::Short => "short",
                IntK::UShort => "unsigned short",
                IntK::Int => "int",
                IntK::UInt => "unsigned",
                IntK::Long => "long",
                IntK::ULong => "unsigned long",
                // grouped with long long: both 64-bit
                IntK::LLong | IntK::ULLong => "long long",
                IntK::Bool => "_Bool",
                IntK::BoolStd => "bool",
                IntK::SizeT => "size_t",
            });
        }
        Ty::Enum(_) => {
            out.insert("enum");
        }
        Ty::F32 => {
            out.insert("float");
        }
        Ty::F64 => {
            out.insert("double");
        }
        Ty::Struct(_) => {
            out.insert("struct");
        }
        Ty::Union(_) => {
            out.insert("union");
        }
        Ty::Ptr(e, _) | Ty::Arr(e, _) => ty_names(e, out),
        Ty::Fn(_) => {
            out.insert("function pointer");
        }
    }
}

fn program(p: &Program, out: &mut BTreeSet<&'static str>) {
    for t in &p.types {
        match t {
            TypeDef::Struct { fields, .. } | TypeDef::Union { fields, .. } => {
                if matches!(t, TypeDef::Struct { widths, .. } if !widths.is_empty()) {
                    out.insert("bit-field");
                }
                for (ft, _) in fields {
                    ty_names(ft, out);
                    if matches!(t, TypeDef::Struct { .. }) {
                        if matches!(ft, Ty::Struct(_)) {
                            out.insert("nested struct");
                        }
                        if matches!(ft, Ty::Arr(..)) {
                            out.insert("array in struct");
                        }
                    }
                }
            }
            TypeDef::Enum { .. } => {
                out.insert("enum");
            }
            TypeDef::FnPtr { .. } => {
                out.insert("function pointer");
            }
        }
    }
    for g in &p.globals {
        ty_names(&g.ty, out);
        match &g.ty {
            Ty::Arr(e, _) if matches!(**e, Ty::Fn(_)) => {
                out.insert("fn-pointer table");
                continue;
            }
            Ty::Arr(..) => {
                out.insert("global array");
            }
            Ty::Struct(_) => {
                out.insert("global struct");
            }
            _ => {}
        }
        out.insert("global");
        if g.is_const {
            out.insert("static const");
        } else if g.is_static {
            out.insert("static global");
        }
        if g.is_volatile {
            out.insert("volatile");
        }
    }
    if !p.helpers.is_empty() {
        out.insert("helper");
    }
    for f in p.all_funcs() {
        for pa in &f.params {
            ty_names(&pa.ty, out);
        }
        for l in &f.locals {
            ty_names(&l.ty, out);
            if l.is_static {
                out.insert("static local");
            } else if matches!(l.ty, Ty::Arr(..)) {
                out.insert("local array");
            }
        }
        ty_names(&f.ret, out);
        if f.name != MAIN {
            let mut calls = vec![];
            let mut g = f.clone();
            func_exprs(&mut g, Walk::All, &mut |e, _| {
                if let Expr::Call(n, _) = e {
                    calls.push(n.clone());
                }
            });
            if calls.contains(&f.name) {
                out.insert("recursion");
            }
        }
        let env = Env::new(p, f);
        let mut g = f.clone();
        func_exprs(&mut g, Walk::All, &mut |e, _| match e {
            Expr::Cast(t, a) => {
                ty_names(t, out);
                if t.is_int() && env.is_float(a) {
                    out.insert("float->int");
                }
                if t.is_float() && env.is_int(a) {
                    out.insert("int->float");
                }
            }
            Expr::Lib(n, _) if n == "malloc" => {
                out.insert("malloc/free");
            }
            Expr::Lib(n, _) if n == "realloc" => {
                out.insert("realloc");
            }
            Expr::Lib(n, _) if n == "putchar" => {
                out.insert("putchar");
            }
            Expr::Lib(n, _) if CTYPE_FUNCTIONS.contains(&n.as_str()) => {
                out.insert("ctype");
            }
            Expr::Lib(n, _) if n.starts_with("__builtin_") => {
                out.insert("bit builtin");
            }
            Expr::Var(n) if p.config.iter().any(|c| &c.0 == n) => {
                out.insert("missing-header name");
            }
            Expr::Block(se) => {
                out.insert("statement expr");
                if se.leaves() {
                    out.insert("stmt expr leaving");
                }
            }
            _ => {}
        });
        each_stmt(&f.body, &mut |s| match s {
            Stmt::For(..)
            | Stmt::While(..)
            | Stmt::WhileEnd(..)
            | Stmt::WhileCond(..)
            | Stmt::StrLoop(..) => {
                out.insert("loop");
            }
            Stmt::DoWhile(..) => {
                out.insert("do-while");
            }
            Stmt::GotoLoop(..) => {
                out.insert("goto backward");
            }
            Stmt::Goto(_) => {
                out.insert("goto forward");
            }
            Stmt::Spin(_) => {
                out.insert("may not terminate");
            }
            Stmt::Switch(_, cs) => {
                out.insert("switch");
                if cs.iter().any(|c| {
                    matches!(&c.label, CaseLabel::Name(n) if p.config.iter().any(|x| &x.0 == n))
                }) {
                    out.insert("missing-header case");
                }
                if cs.len() > 1 && cs[..cs.len() - 1].iter().any(|c| !c.brk) {
                    out.insert("fallthrough");
                }
                if cs.iter().any(|c| matches!(c.label, CaseLabel::Range(..))) {
                    out.insert("case range");
                }
            }
            Stmt::Print(_) => {
                out.insert("printf");
            }
            // a store to a member holding a pointer (`r->p = …`)
            Stmt::Assign(Expr::Field(_, m), _, _)
                if m == "p"
                    && f.params
                        .iter()
                        .any(|pa| matches!(pa.role, Role::Rec { .. })) =>
            {
                out.insert("pointer member write");
            }
            Stmt::Return(_) => {
                out.insert("early return");
            }
            Stmt::Break | Stmt::Continue => {
                out.insert("break/continue");
            }
            _ => {}
        });
    }
    let m = &p.main;
    if m.falls_off {
        out.insert("falls off end");
    }
    for pa in &m.params {
        match (&pa.role, &pa.ty) {
            (Role::Value, Ty::Struct(_)) => {
                out.insert("struct param");
            }
            (Role::Value, Ty::Union(_)) => {
                out.insert("union param");
            }
            (Role::Out, _) => {
                out.insert("out-param");
            }
            (Role::Buf { .. }, Ty::Ptr(e, _)) => {
                out.insert(if matches!(**e, Ty::I(IntK::Char)) {
                    "char buffer+size_t"
                } else {
                    "int buffer+len"
                });
            }
            (Role::Str, _) => {
                out.insert("string");
            }
            (Role::Alias, _) => {
                out.insert("alias");
            }
            (Role::Rec { .. }, _) => {
                out.insert("pointer member");
            }
            _ => {}
        }
    }
    match m.ret {
        Ty::Struct(_) => {
            out.insert("struct return");
        }
        Ty::Union(_) => {
            out.insert("union return");
        }
        _ => {}
    }
}

/// The program with every initializer of a global or static local replaced by nothing.
fn without_initializers(p: &Program) -> Program {
    let mut q = p.clone();
    for g in &mut q.globals {
        g.init = None;
    }
    for f in q.all_funcs_mut() {
        for l in &mut f.locals {
            if l.is_static {
                l.init = None;
            }
        }
    }
    q
}

/// The constructs of a pair: those of either version, and `init-only change` when the
/// versions differ only in initializers of globals and static locals.
pub fn of_pair(old: &Program, new: &Program) -> BTreeSet<&'static str> {
    let mut out = BTreeSet::new();
    program(old, &mut out);
    program(new, &mut out);
    if old != new && without_initializers(old) == without_initializers(new) {
        out.insert("init-only change");
    }
    out
}
