//! Printing GCL as readable, C-like text (`dizy gcl`).
//!
//! Takes a [`GclFunction`] and the [`Program`] it belongs to (struct field names, string
//! literals) and appends text to a `String`: the function's signature, then one instruction per
//! line with its source line, its guard in brackets and a C-like rendering (`t1 := f(a, b)`,
//! `p->f := (long)x + 1L`, `goto L2`), and `L2:` lines where labels point. Output is
//! deterministic, so tests and users can diff it.

use super::{GclFunction, Guard, InstrKind};
use crate::ir::{
    fmt_double, fmt_float, BinOp, CType, Callee, Expr, ExprKind, LogicOp, Place, Program, UnOp,
};

/// Append the GCL text of `f` to `out`.
pub fn print_function(out: &mut String, f: &GclFunction, prog: &Program) {
    let p = Printer { f, prog };
    let func = &f.func;
    let params: Vec<String> = func
        .params
        .iter()
        .filter_map(|v| func.vars.get(v.index()))
        .map(|v| p.decl(&v.ty, &v.name))
        .collect();
    let mut params = params.join(", ");
    if func.variadic {
        params.push_str(if params.is_empty() { "..." } else { ", ..." });
    } else if params.is_empty() {
        params.push_str("void");
    }
    if func.is_static {
        out.push_str("static ");
    }
    out.push_str(&p.decl(&func.ret, &format!("{}({params})", f.name)));
    out.push('\n');

    let guards: Vec<String> = f.instrs.iter().map(|i| p.guard(&i.guard)).collect();
    // Align instructions after the guard column, but do not let one huge guard push every line.
    let gw = guards
        .iter()
        .map(|g| g.len())
        .filter(|&n| n <= 30)
        .max()
        .unwrap_or(0);
    let max_line = f.instrs.iter().map(|i| i.line.0).max().unwrap_or(0);
    let lw = max_line.to_string().len().max(3);
    let label_lines = |out: &mut String, at: usize| {
        for l in f.labels_at(at) {
            out.push_str(&format!("{:lw$}  L{}:\n", "", l.index() + 1));
        }
    };
    for (i, ins) in f.instrs.iter().enumerate() {
        label_lines(out, i);
        out.push_str(&format!(
            "{:>lw$}: {:<gw$}  {}\n",
            ins.line.0,
            guards[i],
            p.instr(&ins.kind)
        ));
    }
    label_lines(out, f.instrs.len());
}

// C operator precedence, higher binds tighter.
const P_LOR: u8 = 4;
const P_LAND: u8 = 5;
const P_UNARY: u8 = 14;
const P_POSTFIX: u8 = 15;
const P_PRIMARY: u8 = 16;

fn bin_info(op: BinOp) -> (&'static str, u8) {
    match op {
        BinOp::Mul => ("*", 13),
        BinOp::Div => ("/", 13),
        BinOp::Rem => ("%", 13),
        BinOp::Add => ("+", 12),
        BinOp::Sub | BinOp::PtrDiff => ("-", 12),
        BinOp::Shl => ("<<", 11),
        BinOp::Shr => (">>", 11),
        BinOp::Lt => ("<", 10),
        BinOp::Le => ("<=", 10),
        BinOp::Gt => (">", 10),
        BinOp::Ge => (">=", 10),
        BinOp::Eq => ("==", 9),
        BinOp::Ne => ("!=", 9),
        BinOp::BitAnd => ("&", 8),
        BinOp::BitXor => ("^", 7),
        BinOp::BitOr => ("|", 6),
    }
}

/// A C string literal for `bytes` (a trailing NUL terminator is not shown).
fn c_string(bytes: &[u8]) -> String {
    let bytes = bytes.strip_suffix(&[0]).unwrap_or(bytes);
    let mut s = String::from("\"");
    for &b in bytes {
        match b {
            b'"' => s.push_str("\\\""),
            b'\\' => s.push_str("\\\\"),
            b'\n' => s.push_str("\\n"),
            b'\t' => s.push_str("\\t"),
            b'\r' => s.push_str("\\r"),
            0x20..=0x7e => s.push(b as char),
            // Octal escapes take at most three digits, so a following digit is safe.
            _ => s.push_str(&format!("\\{b:03o}")),
        }
    }
    s.push('"');
    s
}

struct Printer<'a> {
    f: &'a GclFunction,
    prog: &'a Program,
}

impl Printer<'_> {
    fn guard(&self, g: &Guard) -> String {
        if g.0.is_empty() {
            return String::new();
        }
        let lits: Vec<String> =
            g.0.iter()
                .map(|l| {
                    format!(
                        "{}{}",
                        if l.positive { "" } else { "!" },
                        self.guard_name(l.guard.index())
                    )
                })
                .collect();
        format!("[{}]", lits.join(" && "))
    }

    fn guard_name(&self, i: usize) -> String {
        self.f
            .guards
            .get(i)
            .map_or_else(|| format!("<guard{i}>"), |g| g.name.clone())
    }

    fn var_name(&self, i: usize) -> String {
        self.f
            .func
            .vars
            .get(i)
            .map_or_else(|| format!("<var{i}>"), |v| v.name.clone())
    }

    fn instr(&self, k: &InstrKind) -> String {
        match k {
            InstrKind::SetGuard(g, e) => {
                format!("{} := {}", self.guard_name(g.index()), self.expr(e, 0))
            }
            InstrKind::Assign(p, e) => format!("{} := {}", self.place(p, 0), self.expr(e, 0)),
            InstrKind::Havoc(p) => format!("havoc {}", self.place(p, 0)),
            InstrKind::ZeroFill(p) => format!("zero {}", self.place(p, 0)),
            InstrKind::Call { dest, callee, args } => {
                let callee = match callee {
                    Callee::Direct(n) => n.clone(),
                    Callee::Indirect(e) => self.expr(e, P_POSTFIX),
                };
                let args: Vec<String> = args.iter().map(|a| self.expr(a, 0)).collect();
                let call = format!("{callee}({})", args.join(", "));
                match dest {
                    Some(d) => format!("{} := {call}", self.place(d, 0)),
                    None => call,
                }
            }
            InstrKind::Goto(l) => format!("goto L{}", l.index() + 1),
        }
    }

    /// Render `e`, parenthesized if its precedence is below `min`.
    fn expr(&self, e: &Expr, min: u8) -> String {
        let (s, prec) = self.expr_prec(e);
        if prec < min {
            format!("({s})")
        } else {
            s
        }
    }

    fn expr_prec(&self, e: &Expr) -> (String, u8) {
        match &e.kind {
            ExprKind::Int(v) => {
                let suffix = match e.ty {
                    CType::Int {
                        bits: 32,
                        signed: false,
                    } => "u",
                    CType::Int {
                        bits: 64,
                        signed: true,
                    } => "L",
                    CType::Int {
                        bits: 64,
                        signed: false,
                    } => "UL",
                    _ => "",
                };
                let s = if e.ty.is_pointer() && *v != 0 {
                    format!("{v:#x}")
                } else {
                    format!("{v}{suffix}")
                };
                let p = if *v < 0 { P_UNARY } else { P_PRIMARY };
                (s, p)
            }
            ExprKind::Float(x) => {
                let s = if e.ty == CType::Float {
                    fmt_float(*x as f32)
                } else {
                    fmt_double(*x)
                };
                let p = if s.starts_with('-') {
                    P_UNARY
                } else {
                    P_PRIMARY
                };
                (s, p)
            }
            ExprKind::Var(v) => (self.var_name(v.index()), P_PRIMARY),
            ExprKind::Guard(g) => (self.guard_name(g.index()), P_PRIMARY),
            ExprKind::Load(p) => self.place_prec(p),
            ExprKind::AddrOf(p) => (format!("&{}", self.place(p, P_UNARY)), P_UNARY),
            ExprKind::Str(id) => {
                let bytes = self
                    .prog
                    .strings
                    .get(id.index())
                    .map(|b| b.as_slice())
                    .unwrap_or(&[]);
                (c_string(bytes), P_PRIMARY)
            }
            ExprKind::GlobalAddr(g) => {
                let name = self
                    .prog
                    .globals
                    .get(g.index())
                    .map_or_else(|| format!("<global{}>", g.index()), |g| g.name.clone());
                (format!("&{name}"), P_UNARY)
            }
            ExprKind::FuncAddr(n) => (n.clone(), P_PRIMARY),
            ExprKind::Unary(op, a) => {
                let o = match op {
                    UnOp::Neg => "-",
                    UnOp::BitNot => "~",
                    UnOp::LogNot => "!",
                };
                let a = self.expr(a, P_UNARY);
                // Keep `- -x` from reading as `--x`.
                let sep = if *op == UnOp::Neg && a.starts_with('-') {
                    " "
                } else {
                    ""
                };
                (format!("{o}{sep}{a}"), P_UNARY)
            }
            ExprKind::Binary(op, a, b) => {
                let (o, p) = bin_info(*op);
                (
                    format!("{} {o} {}", self.expr(a, p), self.expr(b, p + 1)),
                    p,
                )
            }
            ExprKind::Logic(op, a, b) => {
                let (o, p) = match op {
                    LogicOp::And => ("&&", P_LAND),
                    LogicOp::Or => ("||", P_LOR),
                };
                // `&&` and `||` are associative: no parentheses for a right operand of the same
                // operator (the flattener builds balanced chains).
                let same = matches!(&b.kind, ExprKind::Logic(o2, ..) if o2 == op);
                let rmin = if same { p } else { p + 1 };
                (format!("{} {o} {}", self.expr(a, p), self.expr(b, rmin)), p)
            }
            ExprKind::Cast(a) => (
                format!("({}){}", self.type_name(&e.ty), self.expr(a, P_UNARY)),
                P_UNARY,
            ),
            ExprKind::Opaque(why) => (format!("__opaque({})", c_string(why.as_bytes())), P_POSTFIX),
        }
    }

    /// An array index: constant indices without their type suffix (`a[0]`, not `a[0L]`).
    fn index(&self, i: &Expr) -> String {
        match i.kind {
            ExprKind::Int(v) => v.to_string(),
            _ => self.expr(i, 0),
        }
    }

    fn place(&self, p: &Place, min: u8) -> String {
        let (s, prec) = self.place_prec(p);
        if prec < min {
            format!("({s})")
        } else {
            s
        }
    }

    fn place_prec(&self, p: &Place) -> (String, u8) {
        match p {
            Place::Var(v) => (self.var_name(v.index()), P_PRIMARY),
            Place::Deref(e, _) => match &e.kind {
                // `*(p + i)` reads better as `p[i]`.
                ExprKind::Binary(BinOp::Add, a, i) if a.ty.is_pointer() => (
                    format!("{}[{}]", self.expr(a, P_POSTFIX), self.index(i)),
                    P_POSTFIX,
                ),
                _ => (format!("*{}", self.expr(e, P_UNARY)), P_UNARY),
            },
            Place::Index(b, i, _) => (
                format!("{}[{}]", self.place(b, P_POSTFIX), self.index(i)),
                P_POSTFIX,
            ),
            Place::Field(b, sid, idx, _) => {
                let name = self
                    .prog
                    .structs
                    .get(sid.index())
                    .and_then(|s| s.fields.get(*idx as usize))
                    .map_or_else(|| format!("<field{idx}>"), |f| f.name.clone());
                match &**b {
                    Place::Deref(e, _) if !matches!(e.kind, ExprKind::Binary(BinOp::Add, ..)) => {
                        (format!("{}->{name}", self.expr(e, P_POSTFIX)), P_POSTFIX)
                    }
                    _ => (format!("{}.{name}", self.place(b, P_POSTFIX)), P_POSTFIX),
                }
            }
        }
    }

    fn type_name(&self, t: &CType) -> String {
        self.decl(t, "")
    }

    /// A C declaration of `name` with type `t` (`int *p`, `char a[4]`, `int (*fp)(int)`); with an
    /// empty name, a type name for casts.
    fn decl(&self, t: &CType, inner: &str) -> String {
        match t {
            CType::Ptr(p) => {
                let inner = format!("*{inner}");
                match **p {
                    CType::Array(..) | CType::Func(_) => self.decl(p, &format!("({inner})")),
                    _ => self.decl(p, &inner),
                }
            }
            CType::Array(e, n) => {
                let n = n.map(|n| n.to_string()).unwrap_or_default();
                self.decl(e, &format!("{inner}[{n}]"))
            }
            CType::Func(ft) => {
                let mut ps: Vec<String> = ft.params.iter().map(|p| self.type_name(p)).collect();
                if ft.variadic {
                    ps.push("...".into());
                } else if ps.is_empty() {
                    ps.push("void".into());
                }
                self.decl(&ft.ret, &format!("{inner}({})", ps.join(", ")))
            }
            base => {
                let b = self.base_name(base);
                if inner.is_empty() {
                    b
                } else {
                    format!("{b} {inner}")
                }
            }
        }
    }

    fn base_name(&self, t: &CType) -> String {
        if let Some(n) = crate::ir::arith_c_name(t) {
            return n;
        }
        match t {
            CType::Struct(s) => match self.prog.structs.get(s.index()) {
                Some(d) => {
                    let kw = if d.is_union { "union" } else { "struct" };
                    if d.name.is_empty() {
                        format!("{kw} <anon{}>", s.index())
                    } else {
                        format!("{kw} {}", d.name)
                    }
                }
                None => format!("struct <{}>", s.index()),
            },
            // Derived types are handled by `decl`.
            _ => self.decl(t, ""),
        }
    }
}

/// A C type name as `dizy gcl` writes it in casts (`int`, `unsigned char`, `int *`).
pub fn type_text(f: &GclFunction, prog: &Program, t: &CType) -> String {
    Printer { f, prog }.type_name(t)
}

/// Text of one instruction (without guard or line), as `dizy gcl` shows it.
pub fn instr_text(f: &GclFunction, prog: &Program, kind: &InstrKind) -> String {
    Printer { f, prog }.instr(kind)
}

/// Text of a guard conjunction (`[g1 && !ret]`, empty when always true).
pub fn guard_text(f: &GclFunction, prog: &Program, g: &Guard) -> String {
    Printer { f, prog }.guard(g)
}
