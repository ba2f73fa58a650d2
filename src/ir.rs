//! Typed intermediate representation shared by every stage after parsing.
//!
//! Takes nothing: it only defines data. The frontend produces a [`Program`] whose functions carry a
//! *structured* body ([`Stmt`] trees whose expressions are side-effect free and fully typed); the
//! `gcl` stage flattens that body into guarded instructions ([`crate::gcl`]); the interpreter,
//! the correlator and the analysis all read these types. Indices are newtypes (`VarId`,
//! `GuardId`, `Label`, `StructId`, `GlobalId`, `StrId`, `Pos`, `FuncId`) into per-function or
//! per-program tables, in the style of an entity-indexed compiler IR; [`IdVec`] is a table
//! indexed by one of them.

use std::fmt;
use std::marker::PhantomData;

/// A typed index into a table.
pub trait Idx: Copy {
    fn index(self) -> usize;
    fn new(i: usize) -> Self;
}

macro_rules! entity {
    ($(#[$m:meta])* $name:ident) => {
        $(#[$m])*
        #[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug, serde::Serialize, serde::Deserialize)]
        pub struct $name(pub u32);
        impl $name {
            pub fn index(self) -> usize {
                self.0 as usize
            }
            pub fn new(i: usize) -> Self {
                $name(i as u32)
            }
        }
        impl Idx for $name {
            fn index(self) -> usize {
                self.0 as usize
            }
            fn new(i: usize) -> Self {
                $name(i as u32)
            }
        }
    };
}
pub(crate) use entity;

entity!(
    /// A position in a GCL function's instruction list: the point before instruction `i`;
    /// the position equal to the list's length is the exit.
    Pos
);
entity!(
    /// A function of a GCL program (an index into its function list).
    FuncId
);

impl Pos {
    /// The next position.
    pub fn next(self) -> Pos {
        Pos(self.0 + 1)
    }
}

impl fmt::Display for Pos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// A table indexed by a typed index `I` (cranelift's `PrimaryMap`/`SecondaryMap`).
#[derive(Clone, PartialEq)]
pub struct IdVec<I, T> {
    items: Vec<T>,
    _index: PhantomData<I>,
}

impl<I, T: fmt::Debug> fmt::Debug for IdVec<I, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.items.fmt(f)
    }
}

impl<I, T> Default for IdVec<I, T> {
    fn default() -> Self {
        IdVec {
            items: vec![],
            _index: PhantomData,
        }
    }
}

impl<I: Idx, T> IdVec<I, T> {
    pub fn new() -> Self {
        Self::default()
    }
    pub fn from_vec(items: Vec<T>) -> Self {
        IdVec {
            items,
            _index: PhantomData,
        }
    }
    /// `n` copies of `v`.
    pub fn filled(n: usize, v: T) -> Self
    where
        T: Clone,
    {
        Self::from_vec(vec![v; n])
    }
    /// Append `v`; gives its index.
    pub fn push(&mut self, v: T) -> I {
        self.items.push(v);
        I::new(self.items.len() - 1)
    }
    pub fn len(&self) -> usize {
        self.items.len()
    }
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }
    pub fn get(&self, i: I) -> Option<&T> {
        self.items.get(i.index())
    }
    pub fn get_mut(&mut self, i: I) -> Option<&mut T> {
        self.items.get_mut(i.index())
    }
    pub fn iter(&self) -> std::slice::Iter<'_, T> {
        self.items.iter()
    }
    /// Entries with their indices.
    pub fn iter_enumerated(&self) -> impl Iterator<Item = (I, &T)> {
        self.items.iter().enumerate().map(|(k, v)| (I::new(k), v))
    }
    /// Every index, in order.
    pub fn keys(&self) -> impl Iterator<Item = I> {
        (0..self.items.len()).map(I::new)
    }
    pub fn as_slice(&self) -> &[T] {
        &self.items
    }
}

impl<I: Idx, T> std::ops::Index<I> for IdVec<I, T> {
    type Output = T;
    fn index(&self, i: I) -> &T {
        &self.items[i.index()]
    }
}

impl<I: Idx, T> std::ops::IndexMut<I> for IdVec<I, T> {
    fn index_mut(&mut self, i: I) -> &mut T {
        &mut self.items[i.index()]
    }
}

impl<I: Idx, T> FromIterator<T> for IdVec<I, T> {
    fn from_iter<It: IntoIterator<Item = T>>(it: It) -> Self {
        Self::from_vec(it.into_iter().collect())
    }
}

entity!(
    /// A variable of one function (parameters, locals, temporaries, `retval`, referenced globals).
    VarId
);
entity!(
    /// A boolean guard variable of the GCL form (branch conditions and control flags).
    GuardId
);
entity!(
    /// A jump target in the GCL form.
    Label
);
entity!(
    /// A struct or union definition in [`Program::structs`].
    StructId
);
entity!(
    /// A global variable in [`Program::globals`].
    GlobalId
);
entity!(
    /// A string literal in [`Program::strings`].
    StrId
);

/// C types under the x86-64 LP64 model (plain `char` is signed, `long` is 64 bits).
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum CType {
    Void,
    /// `_Bool`: values 0 and 1, one byte.
    Bool,
    /// Every other integer type, enums included, by width and signedness.
    Int {
        bits: u8,
        signed: bool,
    },
    Float,
    Double,
    Ptr(Box<CType>),
    /// Element type and length (`None` for an incomplete array such as an `extern int a[]`).
    Array(Box<CType>, Option<u64>),
    Struct(StructId),
    Func(Box<FuncType>),
}

#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct FuncType {
    pub ret: CType,
    pub params: Vec<CType>,
    pub variadic: bool,
}

impl CType {
    pub const INT: CType = CType::Int {
        bits: 32,
        signed: true,
    };
    pub const UINT: CType = CType::Int {
        bits: 32,
        signed: false,
    };
    pub const LONG: CType = CType::Int {
        bits: 64,
        signed: true,
    };
    pub const ULONG: CType = CType::Int {
        bits: 64,
        signed: false,
    };
    pub const CHAR: CType = CType::Int {
        bits: 8,
        signed: true,
    };
    pub const UCHAR: CType = CType::Int {
        bits: 8,
        signed: false,
    };

    pub fn is_integer(&self) -> bool {
        matches!(self, CType::Bool | CType::Int { .. })
    }
    pub fn is_float(&self) -> bool {
        matches!(self, CType::Float | CType::Double)
    }
    pub fn is_arith(&self) -> bool {
        self.is_integer() || self.is_float()
    }
    pub fn is_pointer(&self) -> bool {
        matches!(self, CType::Ptr(_))
    }
    pub fn is_scalar(&self) -> bool {
        self.is_arith() || self.is_pointer()
    }
    /// Width in bits and signedness of an integer type (`_Bool` is 1-bit unsigned in value, 8 in
    /// storage; this returns 8 for storage questions use [`Program::size_of`]).
    pub fn int_info(&self) -> Option<(u8, bool)> {
        match self {
            CType::Bool => Some((1, false)),
            CType::Int { bits, signed } => Some((*bits, *signed)),
            CType::Ptr(_) => Some((64, false)),
            _ => None,
        }
    }
    pub fn pointee(&self) -> Option<&CType> {
        match self {
            CType::Ptr(t) => Some(t),
            _ => None,
        }
    }
}

/// The C spelling of `void` or an arithmetic type (`int`, `unsigned`, `unsigned char`, `_Bool`);
/// `None` for pointers, arrays, functions and structs, whose spelling needs more context.
pub fn arith_c_name(t: &CType) -> Option<String> {
    Some(match t {
        CType::Void => "void".into(),
        CType::Bool => "_Bool".into(),
        CType::Int { bits, signed } => {
            let n = match bits {
                8 => "char",
                16 => "short",
                32 => "int",
                64 => "long",
                128 => "__int128",
                _ => return Some(format!("{}int{bits}", if *signed { "" } else { "u" })),
            };
            if *signed {
                n.into()
            } else if *bits == 32 {
                "unsigned".into()
            } else {
                format!("unsigned {n}")
            }
        }
        CType::Float => "float".into(),
        CType::Double => "double".into(),
        _ => return None,
    })
}

/// Layout of a struct or union (offsets computed by the frontend with the System V rules).
#[derive(Clone, Debug)]
pub struct StructDef {
    pub name: String,
    pub is_union: bool,
    pub fields: Vec<Field>,
    pub size: u64,
    pub align: u64,
    /// False for a declared but never defined struct (`struct s;`).
    pub complete: bool,
    /// For a struct without a tag, the first file-scope typedef naming it (`typedef struct {…}
    /// T;`): how C code outside the file's functions can spell its type.
    pub typedef_name: Option<String>,
}

#[derive(Clone, Debug)]
pub struct Field {
    pub name: String,
    pub ty: CType,
    pub offset: u64,
    /// The width of a bit-field. dizy lays a bit-field out as a whole member of its type (a
    /// slot of its own, not packed with its neighbours as the compiler packs it): every store
    /// keeps the value the field can hold (`bit_normalized`) and every read takes it so, which
    /// is what the packed field gives; what depends on the packing (`sizeof`, byte views) is
    /// opaque or rejected (see [`has_bitfields`]).
    pub bits: Option<u8>,
}

/// Whether `ty` holds a struct with a bit-field (by value: nested structs and arrays, not
/// through pointers): its layout is not the compiler's (see [`Field::bits`]).
pub fn has_bitfields(structs: &[StructDef], ty: &CType) -> bool {
    match ty {
        CType::Array(e, _) => has_bitfields(structs, e),
        CType::Struct(s) => structs.get(s.index()).is_some_and(|d| {
            d.fields
                .iter()
                .any(|f| f.bits.is_some() || has_bitfields(structs, &f.ty))
        }),
        _ => false,
    }
}

/// Whether a value of type `ty` reaches a struct with a bit-field, by value or through pointers
/// (a witness's memory inputs then have dizy's layout, not the compiler's).
pub fn reaches_bitfields(structs: &[StructDef], ty: &CType) -> bool {
    fn go(structs: &[StructDef], ty: &CType, seen: &mut Vec<StructId>) -> bool {
        match ty {
            CType::Array(e, _) | CType::Ptr(e) => go(structs, e, seen),
            CType::Struct(s) if !seen.contains(s) => {
                seen.push(*s);
                structs.get(s.index()).is_some_and(|d| {
                    d.fields
                        .iter()
                        .any(|f| f.bits.is_some() || go(structs, &f.ty, seen))
                })
            }
            _ => false,
        }
    }
    go(structs, ty, &mut vec![])
}

/// The bit-field whose slot starts at byte `off` of a `ty` value, with its type: what a witness
/// shows of the slot is the value the field holds ([`bit_normalized_value`]).
pub fn bitfield_at(structs: &[StructDef], ty: &CType, off: u64) -> Option<(u8, CType)> {
    match ty {
        CType::Array(e, Some(_)) => {
            let es = layout_size(structs, e).max(1);
            bitfield_at(structs, e, off % es)
        }
        CType::Struct(s) => {
            let d = structs.get(s.index())?;
            if d.is_union {
                return None;
            }
            let f = d.fields.iter().rev().find(|f| f.offset <= off)?;
            match f.bits {
                Some(w) if f.offset == off => Some((w, f.ty.clone())),
                _ => bitfield_at(structs, &f.ty, off - f.offset),
            }
        }
        _ => None,
    }
}

/// `v` as a bit-field of `width` bits and integer type `ty` holds it: the low bits, sign-extended
/// for a signed type (GCC's conversion into a narrower signed field).
pub fn bit_normalized_value(v: i128, width: u8, ty: &CType) -> i128 {
    let w = u32::from(width).min(127);
    let low = v & ((1i128 << w) - 1);
    match ty {
        CType::Int { signed: true, .. } if w > 0 && low >> (w - 1) & 1 == 1 => low - (1i128 << w),
        _ => low,
    }
}

/// A source position: line in the original (unpreprocessed) file the construct came from.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct Line(pub u32);

impl fmt::Display for Line {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// A typed, side-effect-free expression.
#[derive(Clone, PartialEq, Debug)]
pub struct Expr {
    pub kind: ExprKind,
    pub ty: CType,
}

#[derive(Clone, PartialEq, Debug)]
pub enum ExprKind {
    /// Integer constant, already converted to `ty` (value in range of `ty`).
    Int(i128),
    /// Floating constant of type `Float` or `Double` (for `Float` the value is exactly an f32).
    Float(f64),
    /// The value of a scalar variable (never an array or struct; those are read through places).
    Var(VarId),
    /// The value (0 or 1, type int) of a guard. Only the GCL stage creates these.
    Guard(GuardId),
    /// Read of a memory place other than a plain variable: `a[i]`, `*p`, `s.f`, `p->f`.
    Load(Box<Place>),
    /// Address of a place (`&x`, and array-to-pointer decay as the address of element 0).
    AddrOf(Box<Place>),
    /// Address of a string literal's first byte.
    Str(StrId),
    /// Address of a global's first byte (used in global initializers, where there are no VarIds).
    GlobalAddr(GlobalId),
    /// Address of a function (`f` used as a value).
    FuncAddr(String),
    Unary(UnOp, Box<Expr>),
    /// Operands are already converted to the operation type (usual arithmetic conversions are
    /// explicit casts). For comparisons `ty` is `int`. For `Add`/`Sub` with a pointer operand the
    /// integer operand counts elements of the pointee type (C pointer arithmetic); `PtrDiff` yields
    /// elements as `long`.
    Binary(BinOp, Box<Expr>, Box<Expr>),
    /// `&&` and `||` with C short-circuit evaluation; result is int 0 or 1.
    Logic(LogicOp, Box<Expr>, Box<Expr>),
    /// Conversion to `ty` with C semantics (integer truncation/extension, float<->int, to `_Bool`).
    Cast(Box<Expr>),
    /// A value the frontend cannot model; the reason says what was abstracted. Reading it in the
    /// interpreter is an error, in the analysis it is an unknown value.
    Opaque(String),
}

#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum UnOp {
    Neg,
    BitNot,
    /// `!e`: int 1 when `e` is zero, else 0.
    LogNot,
}

#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    Shl,
    Shr,
    BitAnd,
    BitOr,
    BitXor,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    /// Pointer minus pointer, in elements.
    PtrDiff,
}

impl BinOp {
    /// `== != < <= > >=`: an `int` 0 or 1 that depends only on the operands' values.
    pub fn is_comparison(self) -> bool {
        use BinOp::*;
        matches!(self, Eq | Ne | Lt | Le | Gt | Ge)
    }

    /// The operator `o` with `a self b == b o a` for all operands (the same one for the
    /// commutative operators, the mirrored one for `<`, `<=`, `>`, `>=`), if there is one.
    pub fn swapped(self) -> Option<BinOp> {
        use BinOp::*;
        match self {
            Add | Mul | BitAnd | BitOr | BitXor | Eq | Ne => Some(self),
            Lt => Some(Gt),
            Gt => Some(Lt),
            Le => Some(Ge),
            Ge => Some(Le),
            Sub | Div | Rem | Shl | Shr | PtrDiff => None,
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum LogicOp {
    And,
    Or,
}

/// A memory location that can be read or assigned.
#[derive(Clone, PartialEq, Debug)]
pub enum Place {
    Var(VarId),
    /// `*e`, with the pointed-to type.
    Deref(Expr, CType),
    /// `base[index]` where `base` is an array-typed place; element type given.
    Index(Box<Place>, Expr, CType),
    /// Field `n` of a struct/union-typed place.
    Field(Box<Place>, StructId, u32, CType),
}

/// The callee of the marker the inliner puts after the analysed function's own body unfolded
/// into itself: `@induction(result, params…)` (`@` cannot start a C identifier, so no program
/// defines or calls it). It does nothing when run; where both versions reach it with equal
/// parameters the analysis may take their results equal, by induction on the depth of
/// recursion (`analysis::congruence::recursion_summary`).
pub const INDUCTION: &str = "@induction";

/// Who is called.
#[derive(Clone, PartialEq, Debug)]
pub enum Callee {
    Direct(String),
    Indirect(Expr),
}

/// A structured, typed statement: the frontend's output. Conditions are side-effect free; any
/// side effect they had is an explicit statement before them.
#[derive(Clone, PartialEq, Debug)]
pub struct Stmt {
    pub kind: StmtKind,
    pub line: Line,
}

#[derive(Clone, PartialEq, Debug)]
pub enum StmtKind {
    Assign(Place, Expr),
    /// The place becomes indeterminate (a declaration without initializer).
    Havoc(Place),
    /// Set every byte of an aggregate place to zero (start of a braced initializer).
    ZeroFill(Place),
    Call {
        dest: Option<Place>,
        callee: Callee,
        args: Vec<Expr>,
    },
    If {
        cond: Expr,
        then_: Vec<Stmt>,
        else_: Vec<Stmt>,
    },
    /// `while`, `for` and `do`: `pre` computes side effects of the condition before each test,
    /// `step` runs after the body and after `continue` (the `for` increment).
    Loop {
        kind: LoopKind,
        pre: Vec<Stmt>,
        cond: Expr,
        body: Vec<Stmt>,
        step: Vec<Stmt>,
    },
    Break,
    Continue,
    Return(Option<Expr>),
    /// `switch`; case labels may appear only directly in the switch body (not nested deeper).
    Switch {
        value: Expr,
        body: Vec<SwitchItem>,
    },
    Goto(String),
    Label(String),
    Block(Vec<Stmt>),
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum LoopKind {
    /// Test before each iteration (`while`, `for`).
    While,
    /// Test after each iteration (`do … while`).
    DoWhile,
}

#[derive(Clone, PartialEq, Debug)]
pub enum SwitchItem {
    /// `case lo ... hi:` (a plain `case v:` has lo == hi); values converted to the switch type.
    Case(i128, i128),
    /// `case X:` where `X` is not a constant the file defines but an opaque global
    /// ([`GlobalVar::opaque`]) standing for a missing header's constant: its value, converted to
    /// the switch type, is read where the case is tested (no statement of the switch runs
    /// between its tests).
    CaseExpr(Expr),
    Default,
    Stmt(Stmt),
}

#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum VarKind {
    Param,
    Local,
    /// Introduced by lowering for a side effect or call result.
    Temp,
    /// The function's return value.
    Retval,
    /// A global (or static local) referenced by the function.
    Global(GlobalId),
}

#[derive(Clone, Debug)]
pub struct VarInfo {
    /// Unique within the function; shadowing locals get a `#n` suffix.
    pub name: String,
    pub ty: CType,
    pub kind: VarKind,
    /// Whether `&v` appears (or `v` is an array, which decays to its address).
    pub addr_taken: bool,
    /// Declared `volatile` (also through a typedef, a volatile member, or a volatile pointer
    /// level): every read may see a value from outside the program, every write is observable.
    pub volatile: bool,
    pub line: Line,
}

/// Identifiers a function body mentions, and where it calls something by a name that is not
/// an identifier (`t[i](x)`, `(*p)(x)`): read from tokens, for functions that were not lowered.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TokenRefs {
    pub idents: std::collections::BTreeSet<String>,
    /// Identifiers followed by `(` (calls, or function-like macros).
    pub called: std::collections::BTreeSet<String>,
    /// Identifiers with an occurrence not followed by `(` (a function's address may be taken).
    pub uncalled: std::collections::BTreeSet<String>,
    /// A call whose callee is not a plain name.
    pub computed_call: bool,
}

#[derive(Clone, Debug)]
pub struct GlobalVar {
    pub name: String,
    pub ty: CType,
    /// Byte offset, type and value of each explicitly initialized scalar; everything else is zero.
    pub init: Vec<(u64, CType, Expr)>,
    pub is_static: bool,
    /// `extern` declarations without definition: no storage known in this file.
    pub is_extern: bool,
    /// Declared `volatile` (see [`VarInfo::volatile`]).
    pub is_volatile: bool,
    /// Not declared at all: a name an unconfigured file uses as a value where a missing header
    /// would have declared it (a macro constant, an enumerator, a variable). Modelled as an
    /// `extern int` of unknown value, the same object in both versions; a witness gives it a
    /// value of its own choosing, distinct from the other such constants and listed with it
    /// (`interp::World::constants`). With an initializer (`sizeof(T)` of a record only partly
    /// known, not `extern`) it is an unknown to the analysis while runs read the initializer.
    pub opaque: bool,
    pub line: Line,
}

#[derive(Clone, Debug)]
pub struct Function {
    pub name: String,
    pub ret: CType,
    pub params: Vec<VarId>,
    pub variadic: bool,
    pub vars: Vec<VarInfo>,
    pub body: Vec<Stmt>,
    pub line: Line,
    pub end_line: Line,
    pub is_static: bool,
}

impl Function {
    pub fn var(&self, v: VarId) -> &VarInfo {
        &self.vars[v.index()]
    }
    pub fn find_var(&self, name: &str) -> Option<VarId> {
        self.vars
            .iter()
            .position(|v| v.name == name)
            .map(VarId::new)
    }
    /// The C type of a place.
    pub fn place_ty(&self, p: &Place) -> CType {
        match p {
            Place::Var(v) => self.var(*v).ty.clone(),
            Place::Deref(_, t) | Place::Index(_, _, t) | Place::Field(_, _, _, t) => t.clone(),
        }
    }
}

/// Size in bytes of `t` under LP64 given the struct layouts (saturating: an absurd array size
/// cannot overflow). Incomplete types and functions have size 1, as GCC gives `void`.
pub fn layout_size(structs: &[StructDef], t: &CType) -> u64 {
    match t {
        CType::Void | CType::Func(_) | CType::Bool => 1,
        CType::Int { bits, .. } => u64::from(*bits) / 8,
        CType::Float => 4,
        CType::Double => 8,
        CType::Ptr(_) => 8,
        CType::Array(e, n) => layout_size(structs, e).saturating_mul(n.unwrap_or(0)),
        CType::Struct(s) => structs.get(s.index()).map_or(1, |d| d.size),
    }
}

/// The member that stands, in a record assumed for a missing header's type, for the members
/// the file does not name (`frontend::opaque`): analysed like any member (a whole copy moves
/// it, so a member-wise copy is not the same), but never an observation of a witness, since
/// the real record may have no such members.
pub const UNNAMED_MEMBERS: &str = "__dizy_unnamed";

/// Whether the access path `path` (`.a[2].b`) goes through an [`UNNAMED_MEMBERS`] member.
pub fn through_unnamed(path: &str) -> bool {
    path.split(['.', '[']).any(|p| p == UNNAMED_MEMBERS)
}

/// The scalar leaves of `t` in layout order: an access path (`.a`, `[2].x`), the byte offset
/// and the scalar type of each struct field and array element, nested to any depth. `None`
/// when `t` has a union, an incomplete struct or an array of unknown length inside, or more
/// than `max` leaves: then it can only be handled as bytes.
pub fn scalar_leaves(
    structs: &[StructDef],
    t: &CType,
    max: usize,
) -> Option<Vec<(String, u64, CType)>> {
    fn go(
        structs: &[StructDef],
        t: &CType,
        path: String,
        off: u64,
        max: usize,
        out: &mut Vec<(String, u64, CType)>,
    ) -> Option<()> {
        match t {
            t if t.is_scalar() => out.push((path, off, t.clone())),
            CType::Array(e, Some(n)) => {
                let el = layout_size(structs, e);
                if *n as usize > max {
                    return None;
                }
                for k in 0..*n {
                    go(structs, e, format!("{path}[{k}]"), off + el * k, max, out)?;
                }
            }
            CType::Struct(s) => {
                let d = structs.get(s.index())?;
                if d.is_union || !d.complete {
                    return None;
                }
                for fl in &d.fields {
                    // An anonymous member's fields are reached by their own names.
                    let p = if fl.name.is_empty() {
                        path.clone()
                    } else {
                        format!("{path}.{}", fl.name)
                    };
                    go(structs, &fl.ty, p, off + fl.offset, max, out)?;
                }
            }
            _ => return None,
        }
        (out.len() <= max).then_some(())
    }
    let mut out = vec![];
    go(structs, t, String::new(), 0, max, &mut out)?;
    Some(out)
}

/// A translation unit after the frontend.
#[derive(Clone, Debug, Default)]
pub struct Program {
    /// The file as the user named it.
    pub file: String,
    pub structs: Vec<StructDef>,
    pub globals: Vec<GlobalVar>,
    pub functions: Vec<Function>,
    pub strings: Vec<Vec<u8>>,
    /// Declared (prototype only) functions: name and type.
    pub externs: Vec<(String, FuncType)>,
    /// Assumptions and abstractions the frontend made, for the report.
    pub notes: Vec<crate::diag::Note>,
    /// Functions declared in a system header (the C library's, POSIX's): what a call does is
    /// the library's, never an arbitrary environment's (see `interp::World`).
    pub library: std::collections::BTreeSet<String>,
    /// Functions called without a declaration (unknown functions or function-like macros).
    pub undeclared_calls: Vec<String>,
    /// Fingerprints of the functions in `rejected` (see `frontend::fingerprint`).
    pub fingerprints: std::collections::BTreeMap<String, u64>,
    /// What the body of each function in `rejected` refers to, read from its tokens (it was
    /// not lowered): whether it is unchanged depends on what it can reach.
    pub rejected_refs: std::collections::BTreeMap<String, TokenRefs>,
    /// Functions defined in the file that the frontend could not lower, with the reason.
    pub rejected: Vec<(String, crate::diag::Error)>,
    /// First and last line of each function in `rejected`, where the frontend knows them.
    pub rejected_lines: std::collections::BTreeMap<String, (u32, u32)>,
    /// Functions (in `functions` or `rejected`) defined in an included header rather than in
    /// the file itself (`static inline` helpers): part of the program, so that a change to one
    /// changes its callers and calls to it can be inlined and executed, but not functions of
    /// the file a report lists.
    pub in_headers: std::collections::BTreeSet<String>,
    /// Lines of the file that use `long double`, which the interpreter executes as `double`
    /// (so a witness there needs native confirmation).
    pub long_double_lines: Vec<u32>,
    /// System headers the frontend included before the file (`<errno.h>`, …: the standard
    /// headers that stand in where the file's own configuration does not bring them in); a
    /// native build of the file includes them first too.
    pub prelude: Vec<String>,
    /// Structs the file converts a `void *` to (`struct rar *rar = a->format->data`): what
    /// the `void *` members of a witness's inputs may point to.
    pub void_targets: Vec<StructId>,
}

impl Program {
    pub fn function(&self, name: &str) -> Option<&Function> {
        self.functions.iter().find(|f| f.name == name)
    }
    pub fn global(&self, g: GlobalId) -> &GlobalVar {
        &self.globals[g.index()]
    }

    /// Size in bytes (LP64). Incomplete types and functions have size 1 (as GCC does for `void`).
    pub fn size_of(&self, t: &CType) -> u64 {
        layout_size(&self.structs, t)
    }

    pub fn align_of(&self, t: &CType) -> u64 {
        match t {
            CType::Array(e, _) => self.align_of(e),
            CType::Struct(s) => self.structs[s.index()].align.max(1),
            other => self.size_of(other).max(1),
        }
    }
}

impl Expr {
    pub fn new(kind: ExprKind, ty: CType) -> Expr {
        Expr { kind, ty }
    }
    pub fn int(v: i128, ty: CType) -> Expr {
        Expr::new(ExprKind::Int(v), ty)
    }
    pub fn var(v: VarId, ty: CType) -> Expr {
        Expr::new(ExprKind::Var(v), ty)
    }
}

impl Place {
    /// The root variable of a place built from variables, fields and indices (not through pointers).
    pub fn root_var(&self) -> Option<VarId> {
        match self {
            Place::Var(v) => Some(*v),
            Place::Deref(..) => None,
            Place::Index(b, ..) | Place::Field(b, ..) => b.root_var(),
        }
    }
}

// ------------------------------------------------------------------------------ visitors

impl Expr {
    /// Call `f` on this expression and every sub-expression, places' index and pointer
    /// expressions included, outermost first.
    pub fn walk<'a>(&'a self, f: &mut impl FnMut(&'a Expr)) {
        f(self);
        match &self.kind {
            ExprKind::Load(p) | ExprKind::AddrOf(p) => p.walk_exprs(f),
            ExprKind::Unary(_, x) | ExprKind::Cast(x) => x.walk(f),
            ExprKind::Binary(_, a, b) | ExprKind::Logic(_, a, b) => {
                a.walk(f);
                b.walk(f);
            }
            ExprKind::Int(_)
            | ExprKind::Float(_)
            | ExprKind::Var(_)
            | ExprKind::Guard(_)
            | ExprKind::Str(_)
            | ExprKind::GlobalAddr(_)
            | ExprKind::FuncAddr(_)
            | ExprKind::Opaque(_) => {}
        }
    }

    /// The variables this expression mentions (read, or whose address it takes).
    pub fn vars(&self) -> Vec<VarId> {
        let mut out = vec![];
        self.walk(&mut |e| match &e.kind {
            ExprKind::Var(v) => out.push(*v),
            ExprKind::Load(p) | ExprKind::AddrOf(p) => out.extend(p.root_var()),
            _ => {}
        });
        out
    }
}

impl Place {
    /// Call `f` on every expression inside the place (pointers, indices) and their
    /// sub-expressions.
    pub fn walk_exprs<'a>(&'a self, f: &mut impl FnMut(&'a Expr)) {
        match self {
            Place::Var(_) => {}
            Place::Deref(e, _) => e.walk(f),
            Place::Index(b, i, _) => {
                b.walk_exprs(f);
                i.walk(f);
            }
            Place::Field(b, ..) => b.walk_exprs(f),
        }
    }
}

/// Shortest round-trip text of a double (`1.0`, `0.1`, `1e300`), `INFINITY`, `NAN`.
pub fn fmt_double(x: f64) -> String {
    special(x).unwrap_or_else(|| format!("{x:?}"))
}

/// Shortest round-trip text of a float with the `f` suffix (`1.5f`).
pub fn fmt_float(x: f32) -> String {
    special(f64::from(x)).unwrap_or_else(|| format!("{x:?}f"))
}

/// `NAN`, `INFINITY` or `-INFINITY` for the values C spells with a macro.
fn special(x: f64) -> Option<String> {
    match x {
        _ if x.is_nan() => Some("NAN".into()),
        f64::INFINITY => Some("INFINITY".into()),
        f64::NEG_INFINITY => Some("-INFINITY".into()),
        _ => None,
    }
}

/// GCC's integer bit builtins (`__builtin_bswap32`, `__builtin_clz`, `__builtin_popcountl`,
/// `__builtin_ffsll`, …), which no header declares since the compiler knows them: their
/// prototypes. The frontend declares them where they are called (glibc's `<endian.h>` and
/// `<byteswap.h>` inline functions call them), the interpreter runs them.
pub fn bit_builtin(name: &str) -> Option<FuncType> {
    let rest = name.strip_prefix("__builtin_")?;
    let uint = |bits: u8| CType::Int {
        bits,
        signed: false,
    };
    let f = |p: CType, ret: CType| FuncType {
        ret,
        params: vec![p],
        variadic: false,
    };
    if let Some(w) = rest.strip_prefix("bswap") {
        let bits: u8 = match w {
            "16" => 16,
            "32" => 32,
            "64" => 64,
            _ => return None,
        };
        return Some(f(uint(bits), uint(bits)));
    }
    let (op, suffix) = ["clrsb", "clz", "ctz", "popcount", "parity", "ffs"]
        .iter()
        .find_map(|op| rest.strip_prefix(op).map(|s| (*op, s)))?;
    let bits = match suffix {
        "" => 32,
        "l" | "ll" => 64,
        _ => return None,
    };
    let signed = matches!(op, "ffs" | "clrsb");
    Some(f(CType::Int { bits, signed }, CType::INT))
}
