//! Random C programs for the soundness fuzzer: a seeded PRNG, a small C AST and its printer.
//!
//! Takes a seed; gives a [`Program`]: one function `f` with scalar parameters (`int`, `char`,
//! `unsigned`), optionally a global `g` it reads and writes, and up to two small static helpers it
//! calls. Bodies mix integer and char arithmetic, nested branches, loops with constant or clamped
//! input-dependent trip counts, early returns, `break` and `continue`. The printer gives the C
//! text dizy reads, or the same code with every file-scope name prefixed, so the oracle can put
//! both versions into one translation unit. First stage of the fuzzer: `mutate` derives the second
//! version from this AST, `oracle` prints and runs both.
//!
//! Termination is by construction: a loop counter is only ever incremented by its own loop and
//! its bound is a constant or `(v < K ? v : K)`, so no loop runs more than K times.

use std::fmt::Write as _;

/// splitmix64: tiny, seedable, good enough to drive a generator; no extra crate needed.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in `0..n` (n > 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
    pub fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + (self.next_u64() % (hi - lo + 1) as u64) as i64
    }
    /// True with probability `p` percent.
    pub fn chance(&mut self, p: u32) -> bool {
        (self.next_u64() % 100) < u64::from(p)
    }
    pub fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.below(xs.len())]
    }
}

/// Seed of pair `index` of a run with seed `seed`: independent of the number of jobs.
pub fn pair_seed(seed: u64, index: u64) -> u64 {
    Rng::new(seed ^ index.wrapping_mul(0xD6E8_FEB8_6659_FD93)).next_u64()
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ty {
    Int,
    Char,
    Unsigned,
}

impl Ty {
    pub fn c(self) -> &'static str {
        match self {
            Ty::Int => "int",
            Ty::Char => "char",
            Ty::Unsigned => "unsigned",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    And,
    Or,
    Xor,
    Shl,
    Shr,
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
    LAnd,
    LOr,
}

impl Op {
    pub fn c(self) -> &'static str {
        use Op::*;
        match self {
            Add => "+",
            Sub => "-",
            Mul => "*",
            Div => "/",
            Rem => "%",
            And => "&",
            Or => "|",
            Xor => "^",
            Shl => "<<",
            Shr => ">>",
            Lt => "<",
            Le => "<=",
            Gt => ">",
            Ge => ">=",
            Eq => "==",
            Ne => "!=",
            LAnd => "&&",
            LOr => "||",
        }
    }
    pub fn is_cmp(self) -> bool {
        matches!(self, Op::Lt | Op::Le | Op::Gt | Op::Ge | Op::Eq | Op::Ne)
    }
    pub const ARITH: [Op; 8] = [
        Op::Add,
        Op::Sub,
        Op::Mul,
        Op::And,
        Op::Or,
        Op::Xor,
        Op::Div,
        Op::Rem,
    ];
    pub const CMP: [Op; 6] = [Op::Lt, Op::Le, Op::Gt, Op::Ge, Op::Eq, Op::Ne];
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Un {
    Neg,
    Not,
    BitNot,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Expr {
    Const(i64),
    Var(String),
    Un(Un, Box<Expr>),
    Bin(Op, Box<Expr>, Box<Expr>),
    Cond(Box<Expr>, Box<Expr>, Box<Expr>),
    /// A call to a helper (a file-scope name, prefixed by the printer).
    Call(String, Vec<Expr>),
}

impl Expr {
    pub fn bin(op: Op, a: Expr, b: Expr) -> Expr {
        Expr::Bin(op, Box::new(a), Box::new(b))
    }
    /// Variables read.
    pub fn reads(&self, out: &mut Vec<String>) {
        match self {
            Expr::Const(_) => {}
            Expr::Var(v) => out.push(v.clone()),
            Expr::Un(_, a) => a.reads(out),
            Expr::Bin(_, a, b) => {
                a.reads(out);
                b.reads(out);
            }
            Expr::Cond(c, a, b) => {
                c.reads(out);
                a.reads(out);
                b.reads(out);
            }
            Expr::Call(_, args) => args.iter().for_each(|a| a.reads(out)),
        }
    }
}

/// A loop bound: `i < K` or `i < (v < K ? v : K)` (input-dependent, still at most K trips).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Bound {
    Const(i64),
    Clamp(String, i64),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stmt {
    /// `x = e;` or `x op= e;` (`op` one of + - * & | ^).
    Assign(String, Option<Op>, Expr),
    If(Expr, Vec<Stmt>, Vec<Stmt>),
    /// `for (i = 0; i < bound; i++) body`
    For(String, Bound, Vec<Stmt>),
    /// `i = 0; while (i < bound) { i++; body }`
    While(String, Bound, Vec<Stmt>),
    /// `i = 0; while (i < bound) { body i++; }`: only made from a `For` without `continue`.
    WhileEnd(String, Bound, Vec<Stmt>),
    Return(Expr),
    Break,
    Continue,
}

impl Stmt {
    /// Variables read and written (recursively) and whether control leaves the statement
    /// sideways (return, break, continue).
    pub fn effects(&self, reads: &mut Vec<String>, writes: &mut Vec<String>) -> bool {
        match self {
            Stmt::Assign(x, op, e) => {
                e.reads(reads);
                if op.is_some() {
                    reads.push(x.clone());
                }
                writes.push(x.clone());
                false
            }
            Stmt::If(c, a, b) => {
                c.reads(reads);
                let mut jumps = false;
                for s in a.iter().chain(b) {
                    jumps |= s.effects(reads, writes);
                }
                jumps
            }
            Stmt::For(i, bd, body) | Stmt::While(i, bd, body) | Stmt::WhileEnd(i, bd, body) => {
                reads.push(i.clone());
                writes.push(i.clone());
                if let Bound::Clamp(v, _) = bd {
                    reads.push(v.clone());
                }
                let mut jumps = false;
                for s in body {
                    // break/continue of this loop stay inside it
                    jumps |= s.effects(reads, writes) && s.has_return();
                }
                jumps
            }
            Stmt::Return(e) => {
                e.reads(reads);
                true
            }
            Stmt::Break | Stmt::Continue => true,
        }
    }
    pub fn has_return(&self) -> bool {
        match self {
            Stmt::Return(_) => true,
            Stmt::If(_, a, b) => a.iter().chain(b).any(Stmt::has_return),
            Stmt::For(_, _, b) | Stmt::While(_, _, b) | Stmt::WhileEnd(_, _, b) => {
                b.iter().any(Stmt::has_return)
            }
            _ => false,
        }
    }
    /// Whether a `continue` of the innermost enclosing loop occurs in this statement.
    pub fn has_own_continue(&self) -> bool {
        match self {
            Stmt::Continue => true,
            Stmt::If(_, a, b) => a.iter().chain(b).any(Stmt::has_own_continue),
            _ => false,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Func {
    pub name: String,
    pub is_static: bool,
    pub params: Vec<(Ty, String)>,
    /// Locals, declared and initialised at the top; loop counters among them.
    pub locals: Vec<(Ty, String, i64)>,
    pub body: Vec<Stmt>,
    /// The final `return e;` (every function returns int).
    pub ret: Expr,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Program {
    /// The global `int g;`, when the program has one.
    pub global: bool,
    pub helpers: Vec<Func>,
    pub main: Func,
}

pub const GLOBAL: &str = "g";
pub const MAIN: &str = "f";

impl Program {
    /// C text; file-scope names (`f`, helpers, `g`) get `prefix`.
    pub fn print(&self, prefix: &str) -> String {
        let mut s = String::new();
        if self.global {
            let _ = writeln!(s, "int {prefix}{GLOBAL};");
        }
        let p = Printer {
            prefix,
            global: self.global,
        };
        for h in &self.helpers {
            p.func(&mut s, h);
        }
        p.func(&mut s, &self.main);
        s
    }
}

struct Printer<'a> {
    prefix: &'a str,
    global: bool,
}

impl Printer<'_> {
    fn name(&self, v: &str) -> String {
        if self.global && v == GLOBAL {
            format!("{}{v}", self.prefix)
        } else {
            v.to_string()
        }
    }
    fn func(&self, s: &mut String, f: &Func) {
        let params: Vec<String> = f
            .params
            .iter()
            .map(|(t, n)| format!("{} {n}", t.c()))
            .collect();
        let _ = writeln!(
            s,
            "\n{}int {}{}({})\n{{",
            if f.is_static { "static " } else { "" },
            self.prefix,
            f.name,
            if params.is_empty() {
                "void".to_string()
            } else {
                params.join(", ")
            }
        );
        for (t, n, v) in &f.locals {
            let _ = writeln!(s, "    {} {n} = {};", t.c(), lit(*v));
        }
        self.block(s, &f.body, 1);
        let _ = writeln!(s, "    return {};\n}}", self.expr(&f.ret));
    }
    fn block(&self, s: &mut String, b: &[Stmt], depth: usize) {
        for st in b {
            self.stmt(s, st, depth);
        }
    }
    fn bound(&self, i: &str, b: &Bound) -> String {
        match b {
            Bound::Const(k) => format!("{i} < {}", lit(*k)),
            Bound::Clamp(v, k) => {
                let v = self.name(v);
                format!("{i} < ({v} < {k} ? {v} : {k})", k = lit(*k))
            }
        }
    }
    fn stmt(&self, s: &mut String, st: &Stmt, d: usize) {
        let ind = "    ".repeat(d);
        match st {
            Stmt::Assign(x, op, e) => {
                let op = op.map_or("", Op::c);
                let _ = writeln!(s, "{ind}{} {op}= {};", self.name(x), self.expr(e));
            }
            Stmt::If(c, a, b) => {
                let _ = writeln!(s, "{ind}if ({}) {{", self.expr(c));
                self.block(s, a, d + 1);
                if b.is_empty() {
                    let _ = writeln!(s, "{ind}}}");
                } else {
                    let _ = writeln!(s, "{ind}}} else {{");
                    self.block(s, b, d + 1);
                    let _ = writeln!(s, "{ind}}}");
                }
            }
            Stmt::For(i, bd, body) => {
                let _ = writeln!(s, "{ind}for ({i} = 0; {}; {i}++) {{", self.bound(i, bd));
                self.block(s, body, d + 1);
                let _ = writeln!(s, "{ind}}}");
            }
            Stmt::While(i, bd, body) => {
                let _ = writeln!(s, "{ind}{i} = 0;");
                let _ = writeln!(s, "{ind}while ({}) {{", self.bound(i, bd));
                let _ = writeln!(s, "{ind}    {i}++;");
                self.block(s, body, d + 1);
                let _ = writeln!(s, "{ind}}}");
            }
            Stmt::WhileEnd(i, bd, body) => {
                let _ = writeln!(s, "{ind}{i} = 0;");
                let _ = writeln!(s, "{ind}while ({}) {{", self.bound(i, bd));
                self.block(s, body, d + 1);
                let _ = writeln!(s, "{ind}    {i}++;");
                let _ = writeln!(s, "{ind}}}");
            }
            Stmt::Return(e) => {
                let _ = writeln!(s, "{ind}return {};", self.expr(e));
            }
            Stmt::Break => {
                let _ = writeln!(s, "{ind}break;");
            }
            Stmt::Continue => {
                let _ = writeln!(s, "{ind}continue;");
            }
        }
    }
    fn expr(&self, e: &Expr) -> String {
        match e {
            Expr::Const(c) => lit(*c),
            Expr::Var(v) => self.name(v),
            Expr::Un(u, a) => {
                let op = match u {
                    Un::Neg => "-",
                    Un::Not => "!",
                    Un::BitNot => "~",
                };
                format!("{op}({})", self.expr(a))
            }
            Expr::Bin(op, a, b) => format!("({} {} {})", self.expr(a), op.c(), self.expr(b)),
            Expr::Cond(c, a, b) => {
                format!("({} ? {} : {})", self.expr(c), self.expr(a), self.expr(b))
            }
            Expr::Call(n, args) => {
                let a: Vec<String> = args.iter().map(|a| self.expr(a)).collect();
                format!("{}{n}({})", self.prefix, a.join(", "))
            }
        }
    }
}

/// A constant as C text: negative ones parenthesised so `x - -1` never reads as `x--1`.
fn lit(v: i64) -> String {
    if v < 0 {
        format!("({v})")
    } else {
        v.to_string()
    }
}

const CONSTS: [i64; 16] = [0, 1, 2, 3, 4, 5, 7, 8, 10, 16, 100, 127, 255, -1, -2, -128];

/// What the generator may use while building one function.
struct Scope {
    /// Readable variables (params, locals, the global, active loop counters).
    readable: Vec<String>,
    /// Variables that may be assigned (never loop counters).
    assignable: Vec<String>,
    /// Helpers callable here, with their arity.
    helpers: Vec<(String, usize)>,
    loop_depth: usize,
    /// Next free loop counter index.
    counters: usize,
    counter_locals: Vec<String>,
}

pub struct Gen<'r> {
    pub rng: &'r mut Rng,
}

impl Gen<'_> {
    pub fn program(&mut self) -> Program {
        let global = self.rng.chance(40);
        let nh = self.rng.below(3);
        let mut helpers = vec![];
        for k in 0..nh {
            let arity = 1 + self.rng.below(2);
            let params: Vec<(Ty, String)> =
                (0..arity).map(|i| (Ty::Int, format!("p{i}"))).collect();
            let mut sc = Scope {
                readable: params.iter().map(|p| p.1.clone()).collect(),
                assignable: params.iter().map(|p| p.1.clone()).collect(),
                helpers: vec![],
                loop_depth: 0,
                counters: 0,
                counter_locals: vec![],
            };
            let mut locals = vec![];
            if self.rng.chance(50) {
                locals.push((Ty::Int, "t".to_string(), self.constant()));
                sc.readable.push("t".into());
                sc.assignable.push("t".into());
            }
            // Helpers stay small and loop-free; they are there to exercise calls.
            let n = 1 + self.rng.below(2);
            let body = self.block(&mut sc, n, 1, false);
            let ret = self.expr(&sc, 2);
            helpers.push(Func {
                name: format!("h{k}"),
                is_static: true,
                params,
                locals,
                body,
                ret,
            });
        }
        let np = 1 + self.rng.below(3);
        let tys = [Ty::Int, Ty::Int, Ty::Int, Ty::Char, Ty::Unsigned];
        let params: Vec<(Ty, String)> = ["a", "b", "c"][..np]
            .iter()
            .map(|n| (*self.rng.pick(&tys), n.to_string()))
            .collect();
        let mut locals: Vec<(Ty, String, i64)> = vec![];
        let nl = 1 + self.rng.below(3);
        for n in ["x", "y", "z"][..nl].iter() {
            let t = *self
                .rng
                .pick(&[Ty::Int, Ty::Int, Ty::Int, Ty::Char, Ty::Unsigned]);
            locals.push((t, n.to_string(), self.constant()));
        }
        let mut sc = Scope {
            readable: params
                .iter()
                .map(|p| p.1.clone())
                .chain(locals.iter().map(|l| l.1.clone()))
                .collect(),
            assignable: params
                .iter()
                .map(|p| p.1.clone())
                .chain(locals.iter().map(|l| l.1.clone()))
                .collect(),
            helpers: helpers
                .iter()
                .map(|h| (h.name.clone(), h.params.len()))
                .collect(),
            loop_depth: 0,
            counters: 0,
            counter_locals: vec![],
        };
        if global {
            sc.readable.push(GLOBAL.into());
            sc.assignable.push(GLOBAL.into());
        }
        // Small bodies: dizy's cost grows quickly with nested loops and branches, and small
        // pairs are what a failure should be minimized to anyway.
        let n = 2 + self.rng.below(3);
        let depth = 1 + self.rng.below(2);
        let body = self.block(&mut sc, n, depth, true);
        for c in &sc.counter_locals {
            locals.push((Ty::Int, c.clone(), 0));
        }
        // The result depends on most variables, so that a change of any is likely observable.
        let mut ret = self.expr(&sc, 1);
        for v in &sc.readable {
            if self.rng.chance(70) {
                let op = *self.rng.pick(&[Op::Xor, Op::Xor, Op::Add, Op::Sub]);
                ret = Expr::bin(op, ret, Expr::Var(v.clone()));
            }
        }
        Program {
            global,
            helpers,
            main: Func {
                name: MAIN.into(),
                is_static: false,
                params,
                locals,
                body,
                ret,
            },
        }
    }

    pub fn constant(&mut self) -> i64 {
        if self.rng.chance(80) {
            *self.rng.pick(&CONSTS)
        } else {
            self.rng.range(-50, 300)
        }
    }

    fn block(&mut self, sc: &mut Scope, n: usize, depth: usize, loops: bool) -> Vec<Stmt> {
        (0..n).map(|_| self.stmt(sc, depth, loops)).collect()
    }

    fn stmt(&mut self, sc: &mut Scope, depth: usize, loops: bool) -> Stmt {
        let roll = self.rng.below(100);
        if depth > 0 && roll < 22 {
            let c = self.cond(sc);
            let na = 1 + self.rng.below(2);
            let a = self.block(sc, na, depth - 1, loops);
            let b = if self.rng.chance(45) {
                let nb = 1 + self.rng.below(2);
                self.block(sc, nb, depth - 1, loops)
            } else {
                vec![]
            };
            return Stmt::If(c, a, b);
        }
        if depth > 0
            && loops
            && (sc.loop_depth == 0 || (sc.loop_depth == 1 && self.rng.chance(25)))
            && roll < 40
        {
            let i = format!("i{}", sc.counters);
            sc.counters += 1;
            sc.counter_locals.push(i.clone());
            let k = self.rng.range(1, 9);
            let bound = if self.rng.chance(55) {
                let vars: Vec<&String> =
                    sc.readable.iter().filter(|v| !v.starts_with('i')).collect();
                Bound::Clamp((*self.rng.pick(&vars)).clone(), k)
            } else {
                Bound::Const(k)
            };
            sc.loop_depth += 1;
            sc.readable.push(i.clone());
            let nb = 1 + self.rng.below(2);
            let body = self.block(sc, nb, depth - 1, loops);
            sc.readable.retain(|v| v != &i);
            sc.loop_depth -= 1;
            return if self.rng.chance(70) {
                Stmt::For(i, bound, body)
            } else {
                Stmt::While(i, bound, body)
            };
        }
        if sc.loop_depth > 0 && roll < 47 {
            // break/continue under a condition, else the rest of the body would be dead
            let c = self.cond(sc);
            let j = if self.rng.chance(50) {
                Stmt::Break
            } else {
                Stmt::Continue
            };
            return Stmt::If(c, vec![j], vec![]);
        }
        if roll < 53 {
            let c = self.cond(sc);
            let e = self.expr(sc, 2);
            return Stmt::If(c, vec![Stmt::Return(e)], vec![]);
        }
        let x = self.rng.pick(&sc.assignable).clone();
        let op = if self.rng.chance(35) {
            Some(
                *self
                    .rng
                    .pick(&[Op::Add, Op::Sub, Op::Add, Op::Xor, Op::And, Op::Or, Op::Mul]),
            )
        } else {
            None
        };
        let e = self.expr(sc, 2);
        Stmt::Assign(x, op, e)
    }

    fn cond(&mut self, sc: &Scope) -> Expr {
        let a = self.expr(sc, 2);
        let b = if self.rng.chance(60) {
            Expr::Const(self.constant())
        } else {
            self.expr(sc, 1)
        };
        let c = Expr::bin(*self.rng.pick(&Op::CMP), a, b);
        if self.rng.chance(15) {
            let d = self.cond_leaf(sc);
            Expr::bin(*self.rng.pick(&[Op::LAnd, Op::LOr]), c, d)
        } else if self.rng.chance(8) {
            Expr::Un(Un::Not, Box::new(c))
        } else {
            c
        }
    }

    fn cond_leaf(&mut self, sc: &Scope) -> Expr {
        let a = Expr::Var(self.rng.pick(&sc.readable).clone());
        Expr::bin(*self.rng.pick(&Op::CMP), a, Expr::Const(self.constant()))
    }

    pub fn leaf(&mut self, readable: &[String]) -> Expr {
        if self.rng.chance(65) && !readable.is_empty() {
            Expr::Var(self.rng.pick(readable).clone())
        } else {
            Expr::Const(self.constant())
        }
    }

    fn expr(&mut self, sc: &Scope, depth: usize) -> Expr {
        if depth == 0 || self.rng.chance(30) {
            return self.leaf(&sc.readable);
        }
        let roll = self.rng.below(100);
        if roll < 8 && !sc.helpers.is_empty() {
            let (h, n) = self.rng.pick(&sc.helpers).clone();
            let args = (0..n).map(|_| self.expr(sc, depth - 1)).collect();
            return Expr::Call(h, args);
        }
        if roll < 14 {
            let u = *self.rng.pick(&[Un::Neg, Un::Not, Un::BitNot]);
            return Expr::Un(u, Box::new(self.expr(sc, depth - 1)));
        }
        if roll < 19 {
            let c = self.cond_leaf(sc);
            return Expr::Cond(
                Box::new(c),
                Box::new(self.expr(sc, depth - 1)),
                Box::new(self.expr(sc, depth - 1)),
            );
        }
        if roll < 25 {
            let op = *self.rng.pick(&[Op::Shl, Op::Shr]);
            let mut a = self.expr(sc, depth - 1);
            if op == Op::Shl {
                // a negative left operand is undefined: keep it in 0..255 most of the time
                a = Expr::bin(Op::And, a, Expr::Const(255));
            }
            // constant shift amounts: a variable amount would be undefined almost always
            return Expr::bin(op, a, Expr::Const(self.rng.range(0, 6)));
        }
        if roll < 33 {
            return Expr::bin(
                *self.rng.pick(&Op::CMP),
                self.expr(sc, depth - 1),
                self.expr(sc, depth - 1),
            );
        }
        let op = *self.rng.pick(&[
            Op::Add,
            Op::Add,
            Op::Sub,
            Op::Sub,
            Op::Mul,
            Op::And,
            Op::Or,
            Op::Xor,
            Op::Div,
            Op::Rem,
        ]);
        let a = self.expr(sc, depth - 1);
        let b = match op {
            // mostly nonzero constant divisors, keeps most inputs free of UB
            Op::Div | Op::Rem if self.rng.chance(75) => {
                Expr::Const(*self.rng.pick(&[2, 3, 4, 5, 7, 10, -3]))
            }
            Op::Mul if self.rng.chance(60) => {
                Expr::Const(*self.rng.pick(&[2, 3, 4, 5, -1, -2, 10]))
            }
            _ => self.expr(sc, depth - 1),
        };
        Expr::bin(op, a, b)
    }
}
