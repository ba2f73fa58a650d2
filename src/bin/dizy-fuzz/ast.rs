//! The fuzzer's C subset: types, a small AST, its printer, walkers and a coarse type inference.
//!
//! Takes nothing; gives the vocabulary every other stage shares. A [`Program`] has type
//! definitions (structs, unions, enums, function-pointer typedefs), globals with initializers,
//! static helpers and the function `f` under test, whose parameters carry a [`Role`] telling the
//! oracle how to build them (plain value, out-parameter, buffer with its length, string, pointer
//! that may alias another). The printer gives the C text dizy reads, or — with a prefix — the
//! same program with every file-scope name prefixed and static locals hoisted to file scope under
//! a unique name, so that the oracle can put both versions into one translation unit and read
//! every object the caller may observe.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

pub const MAIN: &str = "f";

/// Integer types (and `_Bool`, `bool`, `size_t`), x86-64 LP64.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum IntK {
    Char,
    SChar,
    UChar,
    Short,
    UShort,
    Int,
    UInt,
    Long,
    ULong,
    LLong,
    ULLong,
    /// `_Bool`
    Bool,
    /// `bool` from `<stdbool.h>`
    BoolStd,
    SizeT,
}

impl IntK {
    pub fn c(self) -> &'static str {
        match self {
            IntK::Char => "char",
            IntK::SChar => "signed char",
            IntK::UChar => "unsigned char",
            IntK::Short => "short",
            IntK::UShort => "unsigned short",
            IntK::Int => "int",
            IntK::UInt => "unsigned",
            IntK::Long => "long",
            IntK::ULong => "unsigned long",
            IntK::LLong => "long long",
            IntK::ULLong => "unsigned long long",
            IntK::Bool => "_Bool",
            IntK::BoolStd => "bool",
            IntK::SizeT => "size_t",
        }
    }
    pub fn is_bool(self) -> bool {
        matches!(self, IntK::Bool | IntK::BoolStd)
    }
    pub fn signed(self) -> bool {
        matches!(
            self,
            IntK::Char | IntK::SChar | IntK::Short | IntK::Int | IntK::Long | IntK::LLong
        )
    }
    pub fn bits(self) -> u32 {
        match self {
            IntK::Char | IntK::SChar | IntK::UChar => 8,
            IntK::Short | IntK::UShort => 16,
            IntK::Int | IntK::UInt => 32,
            IntK::Long | IntK::ULong | IntK::LLong | IntK::ULLong | IntK::SizeT => 64,
            IntK::Bool | IntK::BoolStd => 1,
        }
    }
    pub fn min(self) -> i128 {
        if self.signed() {
            -(1i128 << (self.bits() - 1))
        } else {
            0
        }
    }
    pub fn max(self) -> i128 {
        if self.is_bool() {
            1
        } else if self.signed() {
            (1i128 << (self.bits() - 1)) - 1
        } else {
            (1i128 << self.bits()) - 1
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Ty {
    I(IntK),
    /// `enum TAG` (GCC: `unsigned int` when no enumerator is negative).
    Enum(String),
    F32,
    F64,
    Struct(String),
    Union(String),
    /// Pointer; `true`: to const.
    Ptr(Box<Ty>, bool),
    Arr(Box<Ty>, usize),
    /// A function-pointer typedef name.
    Fn(String),
}

pub const INT: Ty = Ty::I(IntK::Int);

impl Ty {
    pub fn is_float(&self) -> bool {
        matches!(self, Ty::F32 | Ty::F64)
    }
    /// Integer-like: integers, bools, enums.
    pub fn is_int(&self) -> bool {
        matches!(self, Ty::I(_) | Ty::Enum(_))
    }
    pub fn is_arith(&self) -> bool {
        self.is_int() || self.is_float()
    }
}

/// Type definitions, printed in order after the includes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TypeDef {
    Struct {
        tag: String,
        fields: Vec<(Ty, String)>,
    },
    Union {
        tag: String,
        fields: Vec<(Ty, String)>,
    },
    Enum {
        tag: String,
        items: Vec<(String, Option<i64>)>,
    },
    /// `typedef RET (*NAME)(PARAMS);`
    FnPtr {
        name: String,
        ret: Ty,
        params: Vec<Ty>,
    },
}

impl TypeDef {
    pub fn name(&self) -> &str {
        match self {
            TypeDef::Struct { tag, .. }
            | TypeDef::Union { tag, .. }
            | TypeDef::Enum { tag, .. } => tag,
            TypeDef::FnPtr { name, .. } => name,
        }
    }
}

/// Values of an enum's enumerators, in order.
pub fn enum_values(items: &[(String, Option<i64>)]) -> Vec<(String, i64)> {
    let mut next = 0;
    items
        .iter()
        .map(|(n, v)| {
            let v = v.unwrap_or(next);
            next = v + 1;
            (n.clone(), v)
        })
        .collect()
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Init {
    E(Expr),
    List(Vec<Init>),
    /// Designated: `{.a = 1, .b = 2}`.
    Fields(Vec<(String, Init)>),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Global {
    pub ty: Ty,
    pub name: String,
    pub is_static: bool,
    pub is_const: bool,
    pub is_volatile: bool,
    pub init: Option<Init>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Local {
    pub ty: Ty,
    pub name: String,
    pub init: Option<Init>,
    pub is_static: bool,
}

/// How the oracle builds an argument of `f`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Role {
    /// Passed by value (scalars, structs, unions).
    Value,
    /// A pointer to one object (initialized from the input), observed after the call.
    Out,
    /// A pointer to `cap` elements; parameter `len` holds how many count (at most `cap`).
    Buf { cap: usize, len: usize },
    /// The length of the buffer parameter `buf`.
    Len { buf: usize },
    /// A NUL-terminated string.
    Str,
    /// A pointer to one `int` that may be the same object as another `Alias` parameter.
    Alias,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Param {
    pub ty: Ty,
    pub name: String,
    pub role: Role,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
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
    pub fn is_logic(self) -> bool {
        matches!(self, Op::LAnd | Op::LOr)
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
    pub const FARITH: [Op; 4] = [Op::Add, Op::Sub, Op::Mul, Op::Div];
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
    /// An `int` constant.
    Int(i64),
    /// A floating constant as C text (`0.5`, `-0.0`, `1e10`, `2.5f`).
    Flt(String),
    /// A character constant (`'a'`), type int.
    Chr(u8),
    Var(String),
    Un(Un, Box<Expr>),
    Bin(Op, Box<Expr>, Box<Expr>),
    Cond(Box<Expr>, Box<Expr>, Box<Expr>),
    /// A call to a function of the program (prefixed by the printer).
    Call(String, Vec<Expr>),
    /// A call to a library function (`putchar`, `strlen`): never prefixed.
    Lib(String, Vec<Expr>),
    /// A call through a function pointer (`fp(x)`, `tbl[k](x)`).
    CallPtr(Box<Expr>, Vec<Expr>),
    Index(Box<Expr>, Box<Expr>),
    Field(Box<Expr>, String),
    Deref(Box<Expr>),
    Cast(Ty, Box<Expr>),
}

impl Expr {
    pub fn bin(op: Op, a: Expr, b: Expr) -> Expr {
        Expr::Bin(op, Box::new(a), Box::new(b))
    }
    pub fn var(n: &str) -> Expr {
        Expr::Var(n.to_string())
    }
    pub fn field(e: Expr, f: &str) -> Expr {
        Expr::Field(Box::new(e), f.to_string())
    }
    pub fn index(a: Expr, i: Expr) -> Expr {
        Expr::Index(Box::new(a), Box::new(i))
    }
    pub fn deref(e: Expr) -> Expr {
        Expr::Deref(Box::new(e))
    }
    pub fn cast(t: Ty, e: Expr) -> Expr {
        Expr::Cast(t, Box::new(e))
    }
    pub fn cond(c: Expr, a: Expr, b: Expr) -> Expr {
        Expr::Cond(Box::new(c), Box::new(a), Box::new(b))
    }
    /// Names read (variables, functions, enumerators), recursively.
    pub fn names(&self, out: &mut Vec<String>) {
        match self {
            Expr::Int(_) | Expr::Flt(_) | Expr::Chr(_) => {}
            Expr::Var(v) => out.push(v.clone()),
            Expr::Un(_, a) | Expr::Field(a, _) | Expr::Deref(a) | Expr::Cast(_, a) => a.names(out),
            Expr::Bin(_, a, b) | Expr::Index(a, b) => {
                a.names(out);
                b.names(out);
            }
            Expr::Cond(c, a, b) => {
                c.names(out);
                a.names(out);
                b.names(out);
            }
            Expr::Call(n, args) => {
                out.push(n.clone());
                args.iter().for_each(|a| a.names(out));
            }
            Expr::Lib(_, args) => args.iter().for_each(|a| a.names(out)),
            Expr::CallPtr(f, args) => {
                f.names(out);
                args.iter().for_each(|a| a.names(out));
            }
        }
    }
    /// The variable an lvalue is rooted in (`s` for `s.a[2]`), or `*` for memory behind a
    /// pointer.
    pub fn root(&self) -> String {
        match self {
            Expr::Var(v) => v.clone(),
            Expr::Field(a, _) => a.root(),
            Expr::Index(a, _) => a.root(),
            _ => "*".into(),
        }
    }
    /// Whether evaluating it may call something (a helper, a pointer, a library function).
    pub fn has_call(&self) -> bool {
        match self {
            Expr::Call(..) | Expr::CallPtr(..) | Expr::Lib(..) => true,
            Expr::Int(_) | Expr::Flt(_) | Expr::Chr(_) | Expr::Var(_) => false,
            Expr::Un(_, a) | Expr::Field(a, _) | Expr::Deref(a) | Expr::Cast(_, a) => a.has_call(),
            Expr::Bin(_, a, b) | Expr::Index(a, b) => a.has_call() || b.has_call(),
            Expr::Cond(c, a, b) => c.has_call() || a.has_call() || b.has_call(),
        }
    }
    /// Whether it reads memory behind a pointer.
    pub fn reads_mem(&self) -> bool {
        match self {
            Expr::Deref(_) => true,
            Expr::Index(a, b) => a.reads_mem() || b.reads_mem(),
            Expr::Int(_) | Expr::Flt(_) | Expr::Chr(_) | Expr::Var(_) => false,
            Expr::Un(_, a) | Expr::Field(a, _) | Expr::Cast(_, a) => a.reads_mem(),
            Expr::Bin(_, a, b) => a.reads_mem() || b.reads_mem(),
            Expr::Cond(c, a, b) => c.reads_mem() || a.reads_mem() || b.reads_mem(),
            Expr::Call(_, args) | Expr::Lib(_, args) => args.iter().any(Expr::reads_mem),
            Expr::CallPtr(f, args) => f.reads_mem() || args.iter().any(Expr::reads_mem),
        }
    }
}

/// A loop bound: `i < K`, `i < (e < K ? e : K)` (at most K trips) or `i < n` (a buffer length).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Bound {
    Const(i64),
    Clamp(Expr, i64),
    Var(String),
}

/// `for (v = init; v CMP stop; v += step)` (or `-=` when `down`) over an `unsigned` counter:
/// built so that it either stops within a few hundred steps or never stops (no input makes it
/// run for long and then stop), so that a time limit tells termination apart.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Spin {
    pub var: String,
    pub down: bool,
    pub init: Expr,
    pub cmp: Op,
    pub stop: Expr,
    /// 0: the counter is never stepped.
    pub step: i64,
    pub body: Vec<Stmt>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CaseLabel {
    Int(i64),
    /// An enumerator.
    Name(String),
    Default,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Case {
    pub label: CaseLabel,
    pub body: Vec<Stmt>,
    /// Ends with `break;` (else falls through).
    pub brk: bool,
}

/// printf conversions; the printer casts the argument to the type the conversion expects.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Conv {
    D,
    Ld,
    U,
    X,
    C,
    G,
    F3,
}

impl Conv {
    pub fn spec(self) -> &'static str {
        match self {
            Conv::D => "%d",
            Conv::Ld => "%ld",
            Conv::U => "%u",
            Conv::X => "%x",
            Conv::C => "%c",
            Conv::G => "%g",
            Conv::F3 => "%.3f",
        }
    }
    pub fn cast(self) -> &'static str {
        match self {
            Conv::D => "int",
            Conv::Ld => "long",
            Conv::U | Conv::X => "unsigned",
            Conv::C => "unsigned char",
            Conv::G | Conv::F3 => "double",
        }
    }
    pub fn is_float(self) -> bool {
        matches!(self, Conv::G | Conv::F3)
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Piece {
    Text(String),
    Conv(Conv, Expr),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stmt {
    /// `lv = e;` or `lv op= e;`
    Assign(Expr, Option<Op>, Expr),
    /// An expression statement (a call).
    Call(Expr),
    If(Expr, Vec<Stmt>, Vec<Stmt>),
    /// `for (i = 0; bound; i++) body`
    For(String, Bound, Vec<Stmt>),
    /// `i = 0; while (bound) { i++; body }`
    While(String, Bound, Vec<Stmt>),
    /// `i = 0; while (bound) { body i++; }`: only made from a `For` without `continue`.
    WhileEnd(String, Bound, Vec<Stmt>),
    /// `i = 0; do { body i++; } while (bound);`
    DoWhile(String, Bound, Vec<Stmt>),
    /// `i = 0; Lk: if (!(bound)) goto Lk_end; body i++; goto Lk; Lk_end: ;` (label id k)
    GotoLoop(String, Bound, Vec<Stmt>, u32),
    Spin(Spin),
    /// `for (i = 0; s[i] != 0; i++) body` over a string parameter.
    StrLoop(String, String, Vec<Stmt>),
    Switch(Expr, Vec<Case>),
    Goto(String),
    Label(String),
    Print(Vec<Piece>),
    Return(Expr),
    Break,
    Continue,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Func {
    pub name: String,
    pub is_static: bool,
    pub ret: Ty,
    pub params: Vec<Param>,
    pub locals: Vec<Local>,
    pub body: Vec<Stmt>,
    /// The final `return e;`.
    pub ret_expr: Expr,
}

#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Program {
    pub types: Vec<TypeDef>,
    pub globals: Vec<Global>,
    pub helpers: Vec<Func>,
    pub main: Func,
}

impl Default for Func {
    fn default() -> Self {
        Func {
            name: MAIN.into(),
            is_static: false,
            ret: INT,
            params: vec![],
            locals: vec![],
            body: vec![],
            ret_expr: Expr::Int(0),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Walkers

/// Where a statement list sits: which jumps are legal there, and whether it is the body of a
/// loop that must stay "stops soon or never" (a [`Spin`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Ctx {
    pub in_loop: bool,
    pub in_switch: bool,
    pub in_spin: bool,
    /// A `continue` here would skip the loop's increment (`do`-`while`, increment at the end).
    pub no_continue: bool,
    /// Directly the function's body (labels of forward gotos live here).
    pub top: bool,
}

/// The statement lists directly inside `s`, with their context.
pub fn child_blocks(s: &mut Stmt, ctx: Ctx) -> Vec<(&mut Vec<Stmt>, Ctx)> {
    let inner = Ctx { top: false, ..ctx };
    let loop_ctx = Ctx {
        in_loop: true,
        in_switch: false,
        no_continue: false,
        top: false,
        ..ctx
    };
    match s {
        Stmt::If(_, a, b) => vec![(a, inner), (b, inner)],
        Stmt::For(_, _, b) | Stmt::While(_, _, b) | Stmt::StrLoop(_, _, b) => {
            vec![(b, loop_ctx)]
        }
        Stmt::WhileEnd(_, _, b) | Stmt::DoWhile(_, _, b) => vec![(
            b,
            Ctx {
                no_continue: true,
                ..loop_ctx
            },
        )],
        // not a C loop: break/continue there would leave it for an enclosing one
        Stmt::GotoLoop(_, _, b, _) => vec![(
            b,
            Ctx {
                in_loop: false,
                in_switch: false,
                top: false,
                ..ctx
            },
        )],
        Stmt::Spin(sp) => vec![(
            &mut sp.body,
            Ctx {
                in_spin: true,
                ..loop_ctx
            },
        )],
        Stmt::Switch(_, cases) => cases
            .iter_mut()
            .map(|c| {
                (
                    &mut c.body,
                    Ctx {
                        in_switch: true,
                        top: false,
                        ..ctx
                    },
                )
            })
            .collect(),
        _ => vec![],
    }
}

/// Visit every statement list, pre-order.
pub fn each_block(b: &mut Vec<Stmt>, ctx: Ctx, f: &mut dyn FnMut(&mut Vec<Stmt>, Ctx)) {
    f(b, ctx);
    for s in b.iter_mut() {
        for (blk, c) in child_blocks(s, ctx) {
            each_block(blk, c, f);
        }
    }
}

pub fn top_ctx() -> Ctx {
    Ctx {
        top: true,
        ..Ctx::default()
    }
}

/// Which expressions of a statement a walker visits.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Walk {
    /// All of them (renaming).
    All,
    /// Those a mutation or the minimizer may rewrite: not lvalues' roots, loop headers or the
    /// headers of [`Spin`] loops (whose shape keeps them "stop soon or never").
    Rewritable,
}

/// Visit the expressions of one statement (not of nested statements), pre-order; `lvalue`
/// tells whether the visited expression is an assignment target.
pub fn stmt_exprs(s: &mut Stmt, walk: Walk, f: &mut dyn FnMut(&mut Expr, bool)) {
    match s {
        Stmt::Assign(lv, _, e) => {
            if walk == Walk::All {
                lvalue_nodes(lv, f);
            } else {
                // the index expressions inside the target may change
                lvalue_subexprs(lv, f);
            }
            expr_nodes(e, &mut |x| f(x, false));
        }
        Stmt::Call(e) | Stmt::Return(e) => expr_nodes(e, &mut |x| f(x, false)),
        Stmt::If(c, _, _) | Stmt::Switch(c, _) => expr_nodes(c, &mut |x| f(x, false)),
        Stmt::For(_, b, _)
        | Stmt::While(_, b, _)
        | Stmt::WhileEnd(_, b, _)
        | Stmt::DoWhile(_, b, _)
        | Stmt::GotoLoop(_, b, _, _) => {
            if walk == Walk::All {
                if let Bound::Clamp(e, _) = b {
                    expr_nodes(e, &mut |x| f(x, false));
                }
            }
        }
        Stmt::Spin(sp) => {
            if walk == Walk::All {
                expr_nodes(&mut sp.init, &mut |x| f(x, false));
                expr_nodes(&mut sp.stop, &mut |x| f(x, false));
            }
        }
        Stmt::Print(ps) => {
            for p in ps {
                if let Piece::Conv(_, e) = p {
                    expr_nodes(e, &mut |x| f(x, false));
                }
            }
        }
        Stmt::StrLoop(..) | Stmt::Goto(_) | Stmt::Label(_) | Stmt::Break | Stmt::Continue => {}
    }
}

/// Every node of an assignment target: those on the path to the object as lvalues, index
/// and pointer expressions as values.
fn lvalue_nodes(lv: &mut Expr, f: &mut dyn FnMut(&mut Expr, bool)) {
    f(lv, true);
    match lv {
        Expr::Index(a, i) => {
            lvalue_nodes(a, f);
            expr_nodes(i, &mut |x| f(x, false));
        }
        Expr::Field(a, _) => lvalue_nodes(a, f),
        Expr::Deref(a) => expr_nodes(a, &mut |x| f(x, false)),
        _ => {}
    }
}

fn lvalue_subexprs(lv: &mut Expr, f: &mut dyn FnMut(&mut Expr, bool)) {
    match lv {
        Expr::Index(a, i) => {
            lvalue_subexprs(a, f);
            expr_nodes(i, &mut |x| f(x, false));
        }
        Expr::Field(a, _) => lvalue_subexprs(a, f),
        _ => {}
    }
}

/// Every node of an expression, pre-order (a node replaced by `f` has its new children visited).
pub fn expr_nodes(e: &mut Expr, f: &mut dyn FnMut(&mut Expr)) {
    f(e);
    match e {
        Expr::Int(_) | Expr::Flt(_) | Expr::Chr(_) | Expr::Var(_) => {}
        Expr::Un(_, a) | Expr::Field(a, _) | Expr::Deref(a) | Expr::Cast(_, a) => expr_nodes(a, f),
        Expr::Bin(_, a, b) | Expr::Index(a, b) => {
            expr_nodes(a, f);
            expr_nodes(b, f);
        }
        Expr::Cond(c, a, b) => {
            expr_nodes(c, f);
            expr_nodes(a, f);
            expr_nodes(b, f);
        }
        Expr::Call(_, args) | Expr::Lib(_, args) => args.iter_mut().for_each(|a| expr_nodes(a, f)),
        Expr::CallPtr(p, args) => {
            expr_nodes(p, f);
            args.iter_mut().for_each(|a| expr_nodes(a, f));
        }
    }
}

/// Every expression node of a function (statements in order, then the final return), with
/// `walk` deciding which are visited; `f` also gets whether the node is an assignment target.
pub fn func_exprs(func: &mut Func, walk: Walk, f: &mut dyn FnMut(&mut Expr, bool)) {
    fn rec(b: &mut [Stmt], walk: Walk, f: &mut dyn FnMut(&mut Expr, bool)) {
        for s in b.iter_mut() {
            stmt_exprs(s, walk, f);
            for (blk, _) in child_blocks(s, Ctx::default()) {
                rec(blk, walk, f);
            }
        }
    }
    rec(&mut func.body, walk, f);
    expr_nodes(&mut func.ret_expr, &mut |x| f(x, false));
}

/// Every statement of a list, recursively, pre-order.
pub fn each_stmt(b: &[Stmt], f: &mut dyn FnMut(&Stmt)) {
    for s in b {
        f(s);
        let mut c = s.clone();
        for (blk, _) in child_blocks(&mut c, Ctx::default()) {
            each_stmt(blk, f);
        }
    }
}

impl Stmt {
    /// Whether a `continue` of the innermost enclosing loop occurs in this statement.
    pub fn has_own_continue(&self) -> bool {
        match self {
            Stmt::Continue => true,
            Stmt::If(_, a, b) => a.iter().chain(b).any(Stmt::has_own_continue),
            Stmt::Switch(_, cs) => cs.iter().flat_map(|c| &c.body).any(Stmt::has_own_continue),
            Stmt::GotoLoop(_, _, b, _) => b.iter().any(Stmt::has_own_continue),
            _ => false,
        }
    }
    /// Whether a `break` leaving the innermost enclosing loop occurs in this statement.
    pub fn has_own_break(&self) -> bool {
        match self {
            Stmt::Break => true,
            Stmt::If(_, a, b) => a.iter().chain(b).any(Stmt::has_own_break),
            Stmt::GotoLoop(_, _, b, _) => b.iter().any(Stmt::has_own_break),
            _ => false,
        }
    }
    pub fn has_goto_or_label(&self) -> bool {
        let mut r = false;
        each_stmt(std::slice::from_ref(self), &mut |s| {
            r |= matches!(s, Stmt::Goto(_) | Stmt::Label(_) | Stmt::GotoLoop(..))
        });
        r
    }
}

/// Labels that some `goto` of the function jumps to.
pub fn goto_targets(b: &[Stmt]) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    each_stmt(b, &mut |s| {
        if let Stmt::Goto(l) = s {
            out.insert(l.clone());
        }
    });
    out
}

// ---------------------------------------------------------------------------------------------
// Effects, for the mutations that move statements

/// Names a statement reads and writes (globals, locals, `*` for memory behind pointers,
/// `@out` for output, `@call` for calls, which may touch any global) and whether control
/// may leave it sideways.
pub fn effects(s: &Stmt) -> (BTreeSet<String>, BTreeSet<String>, bool) {
    let mut r = BTreeSet::new();
    let mut w = BTreeSet::new();
    let mut jumps = false;
    let e_reads = |e: &Expr, r: &mut BTreeSet<String>, w: &mut BTreeSet<String>| {
        let mut v = vec![];
        e.names(&mut v);
        r.extend(v);
        if e.reads_mem() {
            r.insert("*".into());
        }
        if e.has_call() {
            // a helper may read and write any global, memory and output
            r.insert("@call".into());
            w.insert("@call".into());
            w.insert("@out".into());
            w.insert("*".into());
        }
    };
    each_stmt(std::slice::from_ref(s), &mut |st| match st {
        Stmt::Assign(lv, op, e) => {
            e_reads(e, &mut r, &mut w);
            let root = lv.root();
            // the target's index expressions are read
            let mut idx = lv.clone();
            lvalue_subexprs(&mut idx, &mut |x, _| {
                let mut v = vec![];
                x.names(&mut v);
                r.extend(v);
            });
            if let Expr::Deref(p) = lv {
                e_reads(p, &mut r, &mut w);
            }
            if op.is_some() || !matches!(lv, Expr::Var(_)) {
                r.insert(root.clone());
            }
            w.insert(root);
        }
        Stmt::Call(e) => {
            e_reads(e, &mut r, &mut w);
            w.insert("@out".into());
        }
        Stmt::Print(ps) => {
            for p in ps {
                if let Piece::Conv(_, e) = p {
                    e_reads(e, &mut r, &mut w);
                }
            }
            r.insert("@out".into());
            w.insert("@out".into());
        }
        Stmt::If(c, _, _) | Stmt::Switch(c, _) => e_reads(c, &mut r, &mut w),
        Stmt::For(i, b, _)
        | Stmt::While(i, b, _)
        | Stmt::WhileEnd(i, b, _)
        | Stmt::DoWhile(i, b, _)
        | Stmt::GotoLoop(i, b, _, _) => {
            r.insert(i.clone());
            w.insert(i.clone());
            match b {
                Bound::Clamp(e, _) => e_reads(e, &mut r, &mut w),
                Bound::Var(v) => {
                    r.insert(v.clone());
                }
                Bound::Const(_) => {}
            }
            if matches!(st, Stmt::GotoLoop(..)) {
                jumps = true;
            }
        }
        Stmt::Spin(sp) => {
            r.insert(sp.var.clone());
            w.insert(sp.var.clone());
            e_reads(&sp.init, &mut r, &mut w);
            e_reads(&sp.stop, &mut r, &mut w);
            // may not terminate: never moved across anything observable
            jumps = true;
        }
        Stmt::StrLoop(i, s, _) => {
            r.insert(i.clone());
            w.insert(i.clone());
            r.insert(s.clone());
            r.insert("*".into());
        }
        Stmt::Return(e) => {
            e_reads(e, &mut r, &mut w);
            jumps = true;
        }
        Stmt::Goto(_) | Stmt::Label(_) | Stmt::Break | Stmt::Continue => jumps = true,
    });
    (r, w, jumps)
}

pub fn dependent(a: &Stmt, b: &Stmt) -> bool {
    let (ra, wa, _) = effects(a);
    let (rb, wb, _) = effects(b);
    let clash = |w: &BTreeSet<String>, other: &BTreeSet<String>| {
        w.iter().any(|x| other.contains(x))
            // a call may touch any global or static; memory may be a global array behind a
            // pointer: be conservative
            || (w.contains("@call") && !other.is_empty())
            || (!w.is_empty() && other.contains("@call"))
    };
    clash(&wa, &rb) || clash(&wa, &wb) || clash(&wb, &ra)
}

pub fn independent(a: &Stmt, b: &Stmt) -> bool {
    !effects(a).2 && !effects(b).2 && !dependent(a, b)
}

// ---------------------------------------------------------------------------------------------
// Type inference

/// What expressions of a function may refer to.
pub struct Env<'a> {
    pub prog: &'a Program,
    pub func: &'a Func,
}

impl<'a> Env<'a> {
    pub fn new(prog: &'a Program, func: &'a Func) -> Self {
        Env { prog, func }
    }
    pub fn var_ty(&self, name: &str) -> Option<Ty> {
        if let Some(p) = self.func.params.iter().find(|p| p.name == name) {
            return Some(p.ty.clone());
        }
        if let Some(l) = self.func.locals.iter().find(|l| l.name == name) {
            return Some(l.ty.clone());
        }
        if let Some(g) = self.prog.globals.iter().find(|g| g.name == name) {
            return Some(g.ty.clone());
        }
        for t in &self.prog.types {
            if let TypeDef::Enum { tag, items } = t {
                if items.iter().any(|i| i.0 == name) {
                    return Some(Ty::Enum(tag.clone()));
                }
            }
        }
        None
    }
    pub fn field_ty(&self, agg: &Ty, field: &str) -> Option<Ty> {
        let tag = match agg {
            Ty::Struct(t) | Ty::Union(t) => t,
            _ => return None,
        };
        self.prog.types.iter().find_map(|t| match t {
            TypeDef::Struct { tag: x, fields } | TypeDef::Union { tag: x, fields } if x == tag => {
                fields.iter().find(|f| f.1 == field).map(|f| f.0.clone())
            }
            _ => None,
        })
    }
    fn func_ret(&self, name: &str) -> Option<Ty> {
        if name == self.prog.main.name {
            return Some(self.prog.main.ret.clone());
        }
        self.prog
            .helpers
            .iter()
            .find(|h| h.name == name)
            .map(|h| h.ret.clone())
    }
    fn fnptr_ret(&self, t: &Ty) -> Option<Ty> {
        let Ty::Fn(n) = t else { return None };
        self.prog.types.iter().find_map(|t| match t {
            TypeDef::FnPtr { name, ret, .. } if name == n => Some(ret.clone()),
            _ => None,
        })
    }
    /// The type of `e`, as far as the fuzzer needs it (`None`: unknown).
    pub fn ty(&self, e: &Expr) -> Option<Ty> {
        Some(match e {
            Expr::Int(_) | Expr::Chr(_) => INT,
            Expr::Flt(s) => {
                if s.ends_with('f') {
                    Ty::F32
                } else {
                    Ty::F64
                }
            }
            Expr::Var(v) => {
                if let Some(t) = self.var_ty(v) {
                    t
                } else if self.func_ret(v).is_some() {
                    // a function designator: only ever stored into function pointers
                    Ty::Fn(String::new())
                } else {
                    return None;
                }
            }
            Expr::Un(Un::Not, _) => INT,
            Expr::Un(_, a) => {
                let t = self.ty(a)?;
                if t.is_float() {
                    t
                } else {
                    promote(&t)
                }
            }
            Expr::Bin(op, a, b) => {
                if op.is_cmp() || op.is_logic() {
                    INT
                } else {
                    let (ta, tb) = (self.ty(a)?, self.ty(b)?);
                    if matches!(op, Op::Shl | Op::Shr) {
                        promote(&ta)
                    } else if ta == Ty::F64 || tb == Ty::F64 {
                        Ty::F64
                    } else if ta.is_float() || tb.is_float() {
                        Ty::F32
                    } else if ta.is_int() && tb.is_int() {
                        usual(&promote(&ta), &promote(&tb))
                    } else {
                        return None;
                    }
                }
            }
            Expr::Cond(_, a, b) => {
                let (ta, tb) = (self.ty(a)?, self.ty(b)?);
                if ta.is_float() || tb.is_float() {
                    if ta == Ty::F64 || tb == Ty::F64 {
                        Ty::F64
                    } else {
                        Ty::F32
                    }
                } else if ta.is_int() && tb.is_int() {
                    usual(&promote(&ta), &promote(&tb))
                } else {
                    ta
                }
            }
            Expr::Call(n, _) => self.func_ret(n)?,
            Expr::Lib(n, _) => match n.as_str() {
                "strlen" => Ty::I(IntK::SizeT),
                _ => INT,
            },
            Expr::CallPtr(p, _) => {
                let t = self.ty(p)?;
                self.fnptr_ret(&t)?
            }
            Expr::Index(a, _) => match self.ty(a)? {
                Ty::Arr(t, _) | Ty::Ptr(t, _) => *t,
                _ => return None,
            },
            Expr::Field(a, f) => {
                let t = self.ty(a)?;
                self.field_ty(&t, f)?
            }
            Expr::Deref(a) => match self.ty(a)? {
                Ty::Ptr(t, _) => *t,
                _ => return None,
            },
            Expr::Cast(t, _) => t.clone(),
        })
    }
    pub fn is_int(&self, e: &Expr) -> bool {
        self.ty(e).is_some_and(|t| t.is_int())
    }
    pub fn is_float(&self, e: &Expr) -> bool {
        self.ty(e).is_some_and(|t| t.is_float())
    }
    pub fn is_arith(&self, e: &Expr) -> bool {
        self.ty(e).is_some_and(|t| t.is_arith())
    }
}

/// Integer promotion (enums count as `unsigned`/`int`; the difference does not matter here).
pub fn promote(t: &Ty) -> Ty {
    match t {
        Ty::I(k) if k.bits() < 32 => INT,
        Ty::Enum(_) => Ty::I(IntK::UInt),
        t => t.clone(),
    }
}

fn usual(a: &Ty, b: &Ty) -> Ty {
    let rank = |t: &Ty| match t {
        Ty::I(k) => (k.bits(), !k.signed()),
        _ => (32, false),
    };
    let (ra, rb) = (rank(a), rank(b));
    if ra >= rb {
        a.clone()
    } else {
        b.clone()
    }
}

// ---------------------------------------------------------------------------------------------
// Printing

/// Headers a program needs (dizy reads the program with them; the harness has them all).
fn includes(p: &Program) -> String {
    let text = p.print_body("");
    let mut s = String::new();
    if text.contains("printf(") || text.contains("putchar(") {
        s.push_str("#include <stdio.h>\n");
    }
    if text.contains("strlen(") {
        s.push_str("#include <string.h>\n");
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

impl Program {
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

    pub fn all_funcs(&self) -> impl Iterator<Item = &Func> {
        self.helpers.iter().chain(std::iter::once(&self.main))
    }

    pub fn all_funcs_mut(&mut self) -> impl Iterator<Item = &mut Func> {
        self.helpers
            .iter_mut()
            .chain(std::iter::once(&mut self.main))
    }

    pub fn struct_fields(&self, tag: &str) -> Option<&Vec<(Ty, String)>> {
        self.types.iter().find_map(|t| match t {
            TypeDef::Struct { tag: x, fields } | TypeDef::Union { tag: x, fields } if x == tag => {
                Some(fields)
            }
            _ => None,
        })
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
            TypeDef::Struct { tag, fields } | TypeDef::Union { tag, fields } => {
                let kw = if matches!(t, TypeDef::Struct { .. }) {
                    "struct"
                } else {
                    "union"
                };
                let _ = writeln!(s, "{kw} {p}{tag} {{");
                for (ft, fnm) in fields {
                    let _ = writeln!(s, "    {};", self.decl(ft, fnm));
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
        let _ = writeln!(s, "    return {};\n}}", self.expr(f, &f.ret_expr));
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
        }
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
