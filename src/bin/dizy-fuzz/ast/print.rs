//! The printer: C text of a [`Program`].
//!
//! Takes a program and a prefix; gives the C text dizy reads (with the headers it needs) or, with
//! a non-empty prefix, the body the oracle puts into its harness: every file-scope name prefixed
//! and static locals hoisted to file scope (a statement expression's declarations are never
//! file-scope names, so they stay as they are). Statement expressions are printed on one line,
//! `({ decls; stmts; value; })`. Also the objects a caller can observe
//! ([`Program::observed_objects`]) and C literals for constants and strings.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use super::*;

/// Headers a program needs (dizy reads the program with them; the harness has them all).
fn includes(p: &Program) -> String {
    let text = p.print_body("");
    let mut s = String::new();
    if !p.config.is_empty() {
        let _ = writeln!(s, "#include \"{CONFIG_HEADER}\"");
    }
    if text.contains("printf(") || text.contains("putchar(") {
        s.push_str("#include <stdio.h>\n");
    }
    if text.contains("malloc(") {
        s.push_str("#include <stdlib.h>\n");
    }
    if text.contains("strlen(") {
        s.push_str("#include <string.h>\n");
    }
    if CTYPE_FUNCTIONS
        .iter()
        .any(|f| text.contains(&format!("{f}(")))
    {
        s.push_str("#include <ctype.h>\n");
    }
    if ["fabs(", "sqrt(", "copysign("]
        .iter()
        .any(|f| text.contains(f))
    {
        s.push_str("#include <math.h>\n");
    }
    let words: BTreeSet<&str> = text
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .collect();
    if words.contains("size_t") {
        s.push_str("#include <stddef.h>\n");
    }
    if words.contains("bool") {
        s.push_str("#include <stdbool.h>\n");
    }
    s
}

/// The project header the generated programs include and dizy never finds.
pub const CONFIG_HEADER: &str = "dizy_fuzz_cfg.h";

impl Program {
    /// `#define`s of the missing header's names ([`Program::config`]), for the oracle's text.
    pub fn config_defines(&self) -> String {
        self.config
            .iter()
            .map(|(n, v)| format!("#define {n} ({v})\n"))
            .collect()
    }

    /// The C text dizy reads.
    pub fn print(&self) -> String {
        let mut s = includes(self);
        s.push_str(&self.print_body(""));
        s
    }

    /// The program without includes; with a non-empty prefix every file-scope name gets it and
    /// static locals are hoisted to file scope as `PREFIXfunc__name`.
    pub fn print_body(&self, prefix: &str) -> String {
        let pr = Printer::new(self, prefix);
        let mut s = String::new();
        for t in &self.types {
            pr.typedef(&mut s, t);
        }
        // prototypes first, so that globals (tables of function pointers) and helpers may refer
        // to any helper
        for h in &self.helpers {
            let _ = writeln!(s, "{};", pr.signature(h));
        }
        if !self.helpers.is_empty() {
            s.push('\n');
        }
        for g in &self.globals {
            let _ = writeln!(
                s,
                "{}{}{}{}{};",
                if g.is_static { "static " } else { "" },
                if g.is_const { "const " } else { "" },
                if g.is_volatile { "volatile " } else { "" },
                pr.decl(&g.ty, &pr.name(&g.name)),
                g.init
                    .as_ref()
                    .map_or(String::new(), |i| format!(" = {}", pr.init(i)))
            );
        }
        if !prefix.is_empty() {
            for f in self.helpers.iter().chain(std::iter::once(&self.main)) {
                for l in f.locals.iter().filter(|l| l.is_static) {
                    let _ = writeln!(
                        s,
                        "static {}{};",
                        pr.decl(&l.ty, &pr.hoisted(&f.name, &l.name)),
                        l.init
                            .as_ref()
                            .map_or(String::new(), |i| format!(" = {}", pr.init(i)))
                    );
                }
            }
        }
        for h in &self.helpers {
            pr.func(&mut s, h);
        }
        pr.func(&mut s, &self.main);
        s
    }

    /// Objects the caller can observe after a call: (display name, C lvalue in the program
    /// printed with `prefix`, type). Non-const globals and every static local (as `f.name`,
    /// the way dizy names them).
    pub fn observed_objects(&self, prefix: &str) -> Vec<(String, String, Ty)> {
        let pr = Printer::new(self, prefix);
        let mut out = vec![];
        for g in &self.globals {
            if !g.is_const && !matches!(g.ty, Ty::Fn(_)) {
                out.push((g.name.clone(), pr.name(&g.name), g.ty.clone()));
            }
        }
        for f in self.all_funcs() {
            for l in f.locals.iter().filter(|l| l.is_static) {
                out.push((
                    format!("{}.{}", f.name, l.name),
                    pr.hoisted(&f.name, &l.name),
                    l.ty.clone(),
                ));
            }
        }
        out
    }
}

pub struct Printer<'a> {
    pub prefix: &'a str,
    /// File-scope names (globals, functions, enumerators, tags, typedefs).
    file: BTreeSet<String>,
    /// Static locals per function.
    statics: BTreeMap<String, BTreeSet<String>>,
}

impl<'a> Printer<'a> {
    pub fn new(p: &Program, prefix: &'a str) -> Printer<'a> {
        let mut file = BTreeSet::new();
        for g in &p.globals {
            file.insert(g.name.clone());
        }
        for f in p.all_funcs() {
            file.insert(f.name.clone());
        }
        for t in &p.types {
            if let TypeDef::Enum { items, .. } = t {
                for i in items {
                    file.insert(i.0.clone());
                }
            }
        }
        let statics = p
            .all_funcs()
            .map(|f| {
                (
                    f.name.clone(),
                    f.locals
                        .iter()
                        .filter(|l| l.is_static)
                        .map(|l| l.name.clone())
                        .collect(),
                )
            })
            .collect();
        Printer {
            prefix,
            file,
            statics,
        }
    }
    pub fn name(&self, v: &str) -> String {
        if self.file.contains(v) {
            format!("{}{v}", self.prefix)
        } else {
            v.to_string()
        }
    }
    pub fn hoisted(&self, func: &str, v: &str) -> String {
        format!("{}{func}__{v}", self.prefix)
    }
    /// A variable as seen from inside `func`.
    fn var(&self, func: &Func, v: &str) -> String {
        if !self.prefix.is_empty() && self.statics.get(&func.name).is_some_and(|s| s.contains(v)) {
            return self.hoisted(&func.name, v);
        }
        if func.params.iter().any(|p| p.name == v) || func.locals.iter().any(|l| l.name == v) {
            return v.to_string();
        }
        self.name(v)
    }
    pub fn base(&self, t: &Ty) -> String {
        match t {
            Ty::I(k) => k.c().to_string(),
            Ty::Enum(tag) => format!("enum {}{tag}", self.prefix),
            Ty::F32 => "float".into(),
            Ty::F64 => "double".into(),
            Ty::Struct(tag) => format!("struct {}{tag}", self.prefix),
            Ty::Union(tag) => format!("union {}{tag}", self.prefix),
            Ty::Fn(n) => format!("{}{n}", self.prefix),
            Ty::Ptr(..) | Ty::Arr(..) => self.decl(t, ""),
        }
    }
    /// A declaration of `name` with type `t` (`int a[4]`, `const char *s`).
    pub fn decl(&self, t: &Ty, name: &str) -> String {
        match t {
            Ty::Arr(e, n) => self.decl(e, &format!("{name}[{n}]")),
            Ty::Ptr(e, c) => {
                let inner = format!("*{name}");
                format!("{}{}", if *c { "const " } else { "" }, self.decl(e, &inner))
            }
            _ => {
                if name.is_empty() {
                    self.base(t)
                } else {
                    format!("{} {name}", self.base(t))
                }
            }
        }
    }
    fn typedef(&self, s: &mut String, t: &TypeDef) {
        let p = self.prefix;
        match t {
            TypeDef::Struct { tag, fields, .. } | TypeDef::Union { tag, fields } => {
                let (kw, widths) = match t {
                    TypeDef::Struct { widths, .. } => ("struct", &widths[..]),
                    _ => ("union", &[][..]),
                };
                let _ = writeln!(s, "{kw} {p}{tag} {{");
                for (ft, fnm) in fields {
                    match widths.iter().find(|(n, _)| n == fnm) {
                        Some((_, w)) => {
                            let _ = writeln!(s, "    {} : {w};", self.decl(ft, fnm));
                        }
                        None => {
                            let _ = writeln!(s, "    {};", self.decl(ft, fnm));
                        }
                    }
                }
                let _ = writeln!(s, "}};");
            }
            TypeDef::Enum { tag, items } => {
                let its: Vec<String> = items
                    .iter()
                    .map(|(n, v)| match v {
                        Some(v) => format!("{p}{n} = {}", lit(*v)),
                        None => format!("{p}{n}"),
                    })
                    .collect();
                let _ = writeln!(s, "enum {p}{tag} {{ {} }};", its.join(", "));
            }
            TypeDef::FnPtr { name, ret, params } => {
                let ps: Vec<String> = params.iter().map(|t| self.decl(t, "")).collect();
                let _ = writeln!(
                    s,
                    "typedef {} (*{p}{name})({});",
                    self.decl(ret, ""),
                    ps.join(", ")
                );
            }
        }
    }
    fn init(&self, i: &Init) -> String {
        self.init_in(i, None)
    }
    fn init_in(&self, i: &Init, f: Option<&Func>) -> String {
        match i {
            Init::E(e) => match f {
                Some(f) => self.expr(f, e),
                None => self.const_expr(e),
            },
            Init::List(xs) => {
                let v: Vec<String> = xs.iter().map(|x| self.init_in(x, f)).collect();
                format!("{{{}}}", v.join(", "))
            }
            Init::Fields(xs) => {
                let v: Vec<String> = xs
                    .iter()
                    .map(|(n, x)| format!(".{n} = {}", self.init_in(x, f)))
                    .collect();
                format!("{{{}}}", v.join(", "))
            }
        }
    }
    /// A constant expression at file scope (initializers of globals and static locals).
    fn const_expr(&self, e: &Expr) -> String {
        self.expr(&Func::default(), e)
    }
    pub fn signature(&self, f: &Func) -> String {
        let params: Vec<String> = f.params.iter().map(|p| self.decl(&p.ty, &p.name)).collect();
        format!(
            "{}{}",
            if f.is_static { "static " } else { "" },
            self.decl(
                &f.ret,
                &format!(
                    "{}({})",
                    self.name(&f.name),
                    if params.is_empty() {
                        "void".to_string()
                    } else {
                        params.join(", ")
                    }
                )
            )
        )
    }
    fn func(&self, s: &mut String, f: &Func) {
        let _ = writeln!(s, "\n{}\n{{", self.signature(f));
        for l in &f.locals {
            if l.is_static {
                if self.prefix.is_empty() {
                    let _ = writeln!(
                        s,
                        "    static {}{};",
                        self.decl(&l.ty, &l.name),
                        l.init
                            .as_ref()
                            .map_or(String::new(), |i| format!(" = {}", self.init(i)))
                    );
                }
                continue;
            }
            let _ = writeln!(
                s,
                "    {}{};",
                self.decl(&l.ty, &l.name),
                l.init.as_ref().map_or(String::new(), |i| format!(
                    " = {}",
                    self.init_in(i, Some(f))
                ))
            );
        }
        self.block(s, f, &f.body, 1);
        if !f.falls_off {
            let _ = writeln!(s, "    return {};\n}}", self.expr(f, &f.ret_expr));
        } else if self.prefix.is_empty() {
            // what dizy reads: the end of the function without `return`
            let _ = writeln!(s, "}}");
        } else {
            // the harness's copy: the end is marked, and a stand-in value keeps the caller's
            // read defined (it records the result as undefined instead)
            let _ = writeln!(s, "    fell_off = 1;\n    return 0;\n}}");
        }
    }
    fn block(&self, s: &mut String, f: &Func, b: &[Stmt], depth: usize) {
        for st in b {
            self.stmt(s, f, st, depth);
        }
    }
    fn bound(&self, f: &Func, i: &str, b: &Bound) -> String {
        match b {
            Bound::Const(k) => format!("{i} < {}", lit(*k)),
            Bound::Clamp(e, k) => {
                let v = self.expr(f, e);
                format!("{i} < ({v} < {k} ? {v} : {k})", k = lit(*k))
            }
            Bound::Var(v) => format!("{i} < {}", self.var(f, v)),
        }
    }
    fn stmt(&self, s: &mut String, f: &Func, st: &Stmt, d: usize) {
        let ind = "    ".repeat(d);
        match st {
            Stmt::Assign(lv, op, e) => {
                let op = op.map_or("", Op::c);
                let _ = writeln!(s, "{ind}{} {op}= {};", self.expr(f, lv), self.expr(f, e));
            }
            Stmt::Call(e) => {
                let _ = writeln!(s, "{ind}{};", self.expr(f, e));
            }
            Stmt::If(c, a, b) => {
                let _ = writeln!(s, "{ind}if ({}) {{", self.expr(f, c));
                self.block(s, f, a, d + 1);
                if b.is_empty() {
                    let _ = writeln!(s, "{ind}}}");
                } else {
                    let _ = writeln!(s, "{ind}}} else {{");
                    self.block(s, f, b, d + 1);
                    let _ = writeln!(s, "{ind}}}");
                }
            }
            Stmt::For(i, bd, body) => {
                let _ = writeln!(s, "{ind}for ({i} = 0; {}; {i}++) {{", self.bound(f, i, bd));
                self.block(s, f, body, d + 1);
                let _ = writeln!(s, "{ind}}}");
            }
            Stmt::While(i, bd, body) => {
                let _ = writeln!(s, "{ind}{i} = 0;");
                let _ = writeln!(s, "{ind}while ({}) {{", self.bound(f, i, bd));
                let _ = writeln!(s, "{ind}    {i}++;");
                self.block(s, f, body, d + 1);
                let _ = writeln!(s, "{ind}}}");
            }
            Stmt::WhileCond(c, body) => {
                let _ = writeln!(s, "{ind}while ({}) {{", self.expr(f, c));
                self.block(s, f, body, d + 1);
                let _ = writeln!(s, "{ind}}}");
            }
            Stmt::WhileEnd(i, bd, body) => {
                let _ = writeln!(s, "{ind}{i} = 0;");
                let _ = writeln!(s, "{ind}while ({}) {{", self.bound(f, i, bd));
                self.block(s, f, body, d + 1);
                let _ = writeln!(s, "{ind}    {i}++;");
                let _ = writeln!(s, "{ind}}}");
            }
            Stmt::DoWhile(i, bd, body) => {
                let _ = writeln!(s, "{ind}{i} = 0;");
                let _ = writeln!(s, "{ind}do {{");
                self.block(s, f, body, d + 1);
                let _ = writeln!(s, "{ind}    {i}++;");
                let _ = writeln!(s, "{ind}}} while ({});", self.bound(f, i, bd));
            }
            Stmt::GotoLoop(i, bd, body, k) => {
                let _ = writeln!(s, "{ind}{i} = 0;");
                let _ = writeln!(s, "L{k}:");
                let _ = writeln!(s, "{ind}if (!({})) goto L{k}_end;", self.bound(f, i, bd));
                self.block(s, f, body, d);
                let _ = writeln!(s, "{ind}{i}++;");
                let _ = writeln!(s, "{ind}goto L{k};");
                let _ = writeln!(s, "L{k}_end:;");
            }
            Stmt::Spin(sp) => {
                let step = match sp.step {
                    0 => String::new(),
                    k => format!(" {} {} {}", sp.var, if sp.down { "-=" } else { "+=" }, k),
                };
                let _ = writeln!(
                    s,
                    "{ind}for ({v} = {}; {v} {} {};{step}) {{",
                    self.expr(f, &sp.init),
                    sp.cmp.c(),
                    self.expr(f, &sp.stop),
                    v = sp.var
                );
                self.block(s, f, &sp.body, d + 1);
                let _ = writeln!(s, "{ind}}}");
            }
            Stmt::StrLoop(i, st, body) => {
                let st = self.var(f, st);
                let _ = writeln!(s, "{ind}for ({i} = 0; {st}[{i}] != 0; {i}++) {{");
                self.block(s, f, body, d + 1);
                let _ = writeln!(s, "{ind}}}");
            }
            Stmt::Switch(e, cases) => {
                let _ = writeln!(s, "{ind}switch ({}) {{", self.expr(f, e));
                for c in cases {
                    match &c.label {
                        CaseLabel::Int(v) => {
                            let _ = writeln!(s, "{ind}case {}:", lit(*v));
                        }
                        CaseLabel::Range(a, b) => {
                            let _ = writeln!(s, "{ind}case {} ... {}:", lit(*a), lit(*b));
                        }
                        CaseLabel::Name(n) => {
                            let _ = writeln!(s, "{ind}case {}:", self.name(n));
                        }
                        CaseLabel::Default => {
                            let _ = writeln!(s, "{ind}default:");
                        }
                    }
                    self.block(s, f, &c.body, d + 1);
                    if c.brk {
                        let _ = writeln!(s, "{ind}    break;");
                    } else if c.body.is_empty() {
                        // a label needs a statement after it
                        let _ = writeln!(s, "{ind}    ;");
                    }
                }
                let _ = writeln!(s, "{ind}}}");
            }
            Stmt::Goto(l) => {
                let _ = writeln!(s, "{ind}goto {l};");
            }
            Stmt::Label(l) => {
                let _ = writeln!(s, "{l}:;");
            }
            Stmt::Print(ps) => {
                let mut fmt = String::new();
                let mut args = vec![];
                for p in ps {
                    match p {
                        Piece::Text(t) => fmt.push_str(&t.replace('%', "%%")),
                        Piece::Conv(c, e) => {
                            fmt.push_str(c.spec());
                            args.push(format!("({})({})", c.cast(), self.expr(f, e)));
                        }
                    }
                }
                let mut a = format!("\"{}\"", c_escape(fmt.as_bytes()));
                for x in args {
                    a.push_str(", ");
                    a.push_str(&x);
                }
                let _ = writeln!(s, "{ind}printf({a});");
            }
            Stmt::Return(e) => {
                let _ = writeln!(s, "{ind}return {};", self.expr(f, e));
            }
            Stmt::Break => {
                let _ = writeln!(s, "{ind}break;");
            }
            Stmt::Continue => {
                let _ = writeln!(s, "{ind}continue;");
            }
        }
    }
    pub fn expr(&self, f: &Func, e: &Expr) -> String {
        match e {
            Expr::Int(c) => lit(*c),
            Expr::Flt(t) => {
                if t.starts_with('-') {
                    format!("({t})")
                } else {
                    t.clone()
                }
            }
            Expr::Chr(c) => match c {
                b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b' ' => format!("'{}'", *c as char),
                _ => format!("'\\{:o}'", c),
            },
            Expr::Var(v) => self.var(f, v),
            Expr::Un(u, a) => {
                let op = match u {
                    Un::Neg => "-",
                    Un::Not => "!",
                    Un::BitNot => "~",
                };
                format!("{op}({})", self.expr(f, a))
            }
            Expr::Bin(op, a, b) => {
                format!("({} {} {})", self.expr(f, a), op.c(), self.expr(f, b))
            }
            Expr::Cond(c, a, b) => format!(
                "({} ? {} : {})",
                self.expr(f, c),
                self.expr(f, a),
                self.expr(f, b)
            ),
            Expr::Call(n, args) => {
                let a: Vec<String> = args.iter().map(|a| self.expr(f, a)).collect();
                format!("{}({})", self.name(n), a.join(", "))
            }
            Expr::Lib(n, args) => {
                let a: Vec<String> = args.iter().map(|a| self.expr(f, a)).collect();
                format!("{n}({})", a.join(", "))
            }
            Expr::CallPtr(p, args) => {
                let a: Vec<String> = args.iter().map(|a| self.expr(f, a)).collect();
                format!("{}({})", self.expr(f, p), a.join(", "))
            }
            Expr::Index(a, i) => format!("{}[{}]", self.expr(f, a), self.expr(f, i)),
            Expr::Field(a, n) => format!("{}.{n}", self.expr(f, a)),
            Expr::Deref(a) => format!("(*{})", self.expr(f, a)),
            Expr::Cast(t, a) => format!("(({})({}))", self.decl(t, ""), self.expr(f, a)),
            Expr::Block(se) => self.stmt_expr(f, se),
        }
    }
    /// `({ decls; stmts; value; })` on one line.
    fn stmt_expr(&self, f: &Func, se: &StmtExpr) -> String {
        let mut s = String::from("({ ");
        for d in &se.decls {
            let init = self.expr(f, &d.init);
            if d.typeof_ {
                // `__typeof__` of a bit-field is an error: of its promoted value instead.
                let of = match &d.init {
                    Expr::Field(_, n) if super::is_bitfield_name(n) => format!("+({init})"),
                    _ => init.clone(),
                };
                let _ = write!(s, "__typeof__({of}) {} = ({init}); ", d.name);
            } else {
                let _ = write!(s, "{} = {init}; ", self.decl(&d.ty, &d.name));
            }
        }
        let mut body = String::new();
        self.block(&mut body, f, &se.body, 0);
        for l in body.lines() {
            s.push_str(l.trim());
            s.push(' ');
        }
        if let Some(v) = &se.value {
            let _ = write!(s, "{}; ", self.expr(f, v));
        }
        s.push_str("})");
        s
    }
}

/// A constant as C text: negative ones parenthesised so `x - -1` never reads as `x--1`.
pub fn lit(v: i64) -> String {
    if v < 0 {
        format!("({v})")
    } else {
        v.to_string()
    }
}

/// Bytes as the inside of a C string literal (octal escapes for anything unusual).
pub fn c_escape(b: &[u8]) -> String {
    let mut s = String::new();
    for &c in b {
        match c {
            b'\n' => s.push_str("\\n"),
            b'%' => s.push('%'),
            b'"' | b'\\' => {
                s.push('\\');
                s.push(c as char);
            }
            0x20..=0x7e => s.push(c as char),
            _ => {
                let _ = write!(s, "\\{c:03o}");
            }
        }
    }
    s
}
