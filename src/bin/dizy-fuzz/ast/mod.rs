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
//!
//! GNU statement expressions ([`StmtExpr`], `({ decls; stmts; value; })`) nest statements inside
//! expressions: the walkers reach their statements as blocks of the statement holding them
//! ([`walk::child_blocks`], context [`Ctx::in_stmt_expr`]), and [`Expr::names`],
//! [`Expr::has_call`] and [`Expr::reads_mem`] look inside them.
//!
//! This file holds the types; [`walk`] the walkers and the effects of statements, [`infer`] the
//! type inference, [`print`] the printer.

mod infer;
mod print;
mod walk;

pub use infer::{promote, Env};
pub use print::{c_escape, Printer};
pub use walk::{
    deep_nodes, dependent, each_block, each_stmt, effects, func_exprs, goto_targets, independent,
    stmt_exprs, top_ctx, Ctx, Walk,
};

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

/// The `<ctype.h>` functions the generator calls (on `unsigned char` values).
pub const CTYPE_FUNCTIONS: &[&str] = &[
    "isalnum", "isalpha", "isdigit", "isxdigit", "isspace", "isprint", "ispunct", "isupper",
    "islower", "iscntrl", "tolower", "toupper",
];

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
        /// The bit-fields among `fields`, with their widths (named `bf_…`: see
        /// [`is_bitfield_name`]).
        widths: Vec<(String, u8)>,
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

/// Whether a field of that name is a bit-field: the generator names them `bf_…`, so that the
/// places where C forbids one (`__typeof__` of it alone, a mutation that would put one there) can
/// tell without types.
pub fn is_bitfield_name(name: &str) -> bool {
    name.starts_with("bf_")
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
    /// A pointer to one `struct rec { int n; int *p; }` whose member `p` is null or points to
    /// `cap` `int`s of their own (a linked member).
    Rec { cap: usize },
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
    /// A GNU statement expression `({ … })`.
    Block(Box<StmtExpr>),
}

/// `({ decls; body; value; })`: the declarations, then the statements, then the value (the last
/// expression statement, whose value the whole has); without a value it is `void` and stands
/// only as an expression statement. Its declarations are fresh names or shadow a parameter or
/// local of the function with one of the same type; dizy rejects one that `return`s, jumps out
/// or `break`s/`continue`s an enclosing loop ([`StmtExpr::leaves`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StmtExpr {
    pub decls: Vec<SeDecl>,
    pub body: Vec<Stmt>,
    pub value: Option<Expr>,
}

/// A declaration inside a statement expression: `T name = init;`, or with `typeof_`
/// `__typeof__(init) name = (init);` (the typed-`max` macro's way to evaluate an argument once).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SeDecl {
    /// The declared type (with `typeof_`: the type of `init`, as far as known).
    pub ty: Ty,
    pub name: String,
    pub init: Expr,
    pub typeof_: bool,
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
    /// Names read (variables, functions, enumerators), recursively, inside statement
    /// expressions too.
    pub fn names(&self, out: &mut Vec<String>) {
        deep_nodes(self, &mut |e| match e {
            Expr::Var(v) | Expr::Call(v, _) => out.push(v.clone()),
            _ => {}
        });
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
        self.any(&|e| matches!(e, Expr::Call(..) | Expr::CallPtr(..) | Expr::Lib(..)))
    }
    /// Whether it reads memory behind a pointer.
    pub fn reads_mem(&self) -> bool {
        self.any(&|e| matches!(e, Expr::Deref(_)))
    }
    /// Whether some node (inside statement expressions too) satisfies `p`.
    pub fn any(&self, p: &dyn Fn(&Expr) -> bool) -> bool {
        let mut found = false;
        deep_nodes(self, &mut |e| found |= p(e));
        found
    }
    pub fn stmt_expr(decls: Vec<SeDecl>, body: Vec<Stmt>, value: Option<Expr>) -> Expr {
        Expr::Block(Box::new(StmtExpr { decls, body, value }))
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
    /// GNU `case lo ... hi:` (generation 9).
    Range(i64, i64),
    /// An enumerator or a missing header's name ([`Program::config`]).
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

impl CaseLabel {
    /// Whether two integer labels share a value (a duplicate `case` does not compile).
    pub fn overlaps(&self, other: &CaseLabel) -> bool {
        let span = |l: &CaseLabel| match *l {
            CaseLabel::Int(v) => Some((v, v)),
            CaseLabel::Range(a, b) => Some((a, b)),
            _ => None,
        };
        match (span(self), span(other)) {
            (Some((a, b)), Some((c, d))) => a <= d && c <= b,
            _ => self == other,
        }
    }
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
    /// `while (cond) body`, the counter stepped by the body itself: only made by the loop
    /// schedule mutations (a loop peeled, or split into an unrolled part and its remainder).
    WhileCond(Expr, Vec<Stmt>),
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
    /// No final `return`: the function reaches its end without a value there (generation 8;
    /// only `f`, whose caller, the harness, then records the return value as undefined).
    pub falls_off: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Program {
    pub types: Vec<TypeDef>,
    /// Names a missing project header would define (`CFG_A`), with the value the oracle gives
    /// them (`#define CFG_A (v)` in its harness, the same in both versions). dizy reads the
    /// program with `#include "dizy_fuzz_cfg.h"`, a header that does not exist, so it must
    /// hold for every value; the mutations never change them. Used as `int` values and as
    /// `case` labels ([`CaseLabel::Name`]), never assigned.
    pub config: Vec<(String, i64)>,
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
            falls_off: false,
        }
    }
}

impl Program {
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
            TypeDef::Struct { tag: x, fields, .. } | TypeDef::Union { tag: x, fields }
                if x == tag =>
            {
                Some(fields)
            }
            _ => None,
        })
    }
}
