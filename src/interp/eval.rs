//! Expression evaluation with exact C semantics (x86-64 LP64, GCC): integer arithmetic with
//! undefined behaviour detected as UBSan does, IEEE floats without excess precision, conversions,
//! pointer arithmetic and places (`a[i]`, `*p`, `s.f`) resolved to addresses in [`Memory`].
//!
//! Takes typed, side-effect-free [`Expr`]s of the current frame and gives [`Value`]s or a
//! [`RunError`] naming the construct and the current source line.

use super::memory::{decode, encode, func_addr, Desc, MemErr, Ptr};
use super::{Interp, RunError, UbKind, Value};
use crate::ir::{BinOp, CType, Expr, ExprKind, LogicOp, Place, UnOp, VarId};

/// Nesting limit for expressions and places (the evaluator recurses on the Rust stack).
const MAX_EXPR_DEPTH: u32 = 20_000;

/// Reduce `v` to the range of an integer type of `bits` bits: modulo 2^bits, sign-extended for
/// signed types.
pub(super) fn norm(v: i128, bits: u32, signed: bool) -> i128 {
    if bits >= 128 {
        return v;
    }
    let m = v & ((1i128 << bits) - 1);
    if signed && (m >> (bits - 1)) & 1 == 1 {
        m - (1i128 << bits)
    } else {
        m
    }
}

/// C truth value: non-zero (NaN counts as non-zero).
pub(super) fn truthy(v: Value) -> bool {
    match v {
        Value::Int(i) => i != 0,
        Value::Float(x) => x != 0.0,
        Value::Double(x) => x != 0.0,
    }
}

pub(super) fn is_aggregate(t: &CType) -> bool {
    matches!(t, CType::Struct(_) | CType::Array(..))
}

fn as_int(v: Value) -> i128 {
    match v {
        Value::Int(i) => i,
        Value::Float(x) => x as i128,
        Value::Double(x) => x as i128,
    }
}

fn as_f32(v: Value) -> f32 {
    match v {
        Value::Int(i) => i as f32,
        Value::Float(x) => x,
        Value::Double(x) => x as f32,
    }
}

fn as_f64(v: Value) -> f64 {
    match v {
        Value::Int(i) => i as f64,
        Value::Float(x) => f64::from(x),
        Value::Double(x) => x,
    }
}

/// A pointer value as an address.
pub(super) fn as_addr(v: Value) -> u64 {
    norm(as_int(v), 64, false) as u64
}

fn op_symbol(op: BinOp) -> &'static str {
    match op {
        BinOp::Add => "+",
        BinOp::Sub | BinOp::PtrDiff => "-",
        BinOp::Mul => "*",
        BinOp::Div => "/",
        BinOp::Rem => "%",
        BinOp::Shl => "<<",
        BinOp::Shr => ">>",
        BinOp::BitAnd => "&",
        BinOp::BitOr => "|",
        BinOp::BitXor => "^",
        BinOp::Eq => "==",
        BinOp::Ne => "!=",
        BinOp::Lt => "<",
        BinOp::Le => "<=",
        BinOp::Gt => ">",
        BinOp::Ge => ">=",
    }
}

fn compare<T: PartialOrd>(op: BinOp, a: T, b: T) -> Option<bool> {
    Some(match op {
        BinOp::Eq => a == b,
        BinOp::Ne => a != b,
        BinOp::Lt => a < b,
        BinOp::Le => a <= b,
        BinOp::Gt => a > b,
        BinOp::Ge => a >= b,
        _ => return None,
    })
}

/// Bytes of a scalar of type `t` (little-endian).
pub fn scalar_bytes(t: &CType, v: Value, size: usize) -> Vec<u8> {
    match t {
        CType::Float => as_f32(v).to_bits().to_le_bytes().to_vec(),
        CType::Double => as_f64(v).to_bits().to_le_bytes().to_vec(),
        _ => {
            let b = (as_int(v) as u128).to_le_bytes();
            b[..size.min(16)].to_vec()
        }
    }
}

/// The scalar of type `t` stored in `bytes`.
pub fn scalar_from_bytes(t: &CType, bytes: &[u8]) -> Option<Value> {
    let raw = || {
        let mut b = [0u8; 16];
        let n = bytes.len().min(16);
        b[..n].copy_from_slice(&bytes[..n]);
        u128::from_le_bytes(b) as i128
    };
    Some(match t {
        CType::Bool => Value::Int(i128::from(bytes.first().is_some_and(|&b| b != 0))),
        CType::Int { bits, signed } => Value::Int(norm(raw(), u32::from(*bits), *signed)),
        CType::Ptr(_) => Value::Int(norm(raw(), 64, false)),
        CType::Float => Value::Float(f32::from_bits(raw() as u32)),
        CType::Double => Value::Double(f64::from_bits(raw() as u64)),
        _ => return None,
    })
}

fn type_text(t: &CType) -> String {
    if let Some(n) = crate::ir::arith_c_name(t) {
        return n;
    }
    match t {
        CType::Ptr(_) => "pointer".into(),
        CType::Array(e, n) => format!(
            "{}[{}]",
            type_text(e),
            n.map(|n| n.to_string()).unwrap_or_default()
        ),
        CType::Struct(_) => "struct".into(),
        _ => "function".into(),
    }
}

impl<'a> Interp<'a> {
    pub(super) fn ub<T>(&self, msg: impl Into<String>) -> Result<T, RunError> {
        Err(RunError::Ub {
            msg: msg.into(),
            line: self.line,
            kind: UbKind::Other,
        })
    }

    pub(super) fn unsupported<T>(&self, msg: impl Into<String>) -> Result<T, RunError> {
        Err(RunError::Unsupported {
            msg: msg.into(),
            line: self.line,
        })
    }

    pub(super) fn desc_name(&self, d: Desc) -> String {
        let prog = self.prog;
        match d {
            Desc::Var { func, var } => prog
                .functions
                .get(func as usize)
                .and_then(|f| f.func.vars.get(var as usize))
                .map_or_else(|| "?".into(), |v| v.name.clone()),
            Desc::Global(g) => prog
                .program
                .globals
                .get(g as usize)
                .map_or_else(|| "?".into(), |g| g.name.clone()),
            Desc::Str(_) => "a string literal".into(),
            Desc::Input(k) | Desc::Pointee(k) => {
                // The parameter of the outermost call, by index.
                let name = self
                    .frames
                    .first()
                    .and_then(|fr| prog.functions.get(fr.func))
                    .and_then(|f| f.func.params.get(k as usize).map(|p| f.func.var(*p)))
                    .map_or_else(|| format!("parameter {k}"), |v| format!("`{}`", v.name));
                match d {
                    Desc::Input(_) => format!("the buffer {name} points to"),
                    _ => format!("a buffer reached through {name}"),
                }
            }
            Desc::Heap(k) => format!("heap allocation {}", k + 1),
            Desc::External(k) => self.world_objs.get(k as usize).map_or_else(
                || "an object an external function returned".into(),
                |(n, _)| format!("the object `{n}` returned"),
            ),
        }
    }

    pub(super) fn mem_err(&self, e: MemErr) -> RunError {
        let line = self.line;
        let ub = |msg: String| RunError::Ub {
            msg,
            line,
            kind: UbKind::Memory,
        };
        let other = |msg: String| RunError::Ub {
            msg,
            line,
            kind: UbKind::Other,
        };
        let name = |d| {
            let n = self.desc_name(d);
            if matches!(
                d,
                Desc::Str(_)
                    | Desc::Input(_)
                    | Desc::Pointee(_)
                    | Desc::External(_)
                    | Desc::Heap(_)
            ) {
                n
            } else {
                format!("`{n}`")
            }
        };
        match e {
            MemErr::Null => ub("null pointer dereference".into()),
            MemErr::Invalid => ub("dereference of an invalid pointer".into()),
            MemErr::Func => ub("a function pointer used as a data pointer".into()),
            MemErr::Dead(d) => ub(format!("use of {} after the end of its lifetime", name(d))),
            MemErr::OutOfBounds {
                desc,
                off,
                size,
                len,
            } => ub(format!(
                "out-of-bounds access to {} (bytes {off}..{} of {len})",
                name(desc),
                off.saturating_add(i128::from(size))
            )),
            MemErr::ReadOnly(_) => other("write to a string literal".into()),
            MemErr::Unknown(d) => RunError::Unsupported {
                msg: format!(
                    "{} is declared `extern` without a definition in this file",
                    name(d)
                ),
                line,
            },
            MemErr::Uninit { desc, off, whole } => {
                let what = if matches!(desc, Desc::Var { .. }) {
                    "variable"
                } else {
                    "object"
                };
                if whole {
                    other(format!("read of uninitialized {what} {}", name(desc)))
                } else {
                    other(format!(
                        "read of uninitialized memory in {} at byte offset {off}",
                        name(desc)
                    ))
                }
            }
            // Undefined, but no access: nothing a sanitizer or a crash shows natively, so no
            // memory witness (an access through the pointer is one).
            MemErr::ArithOutOfBounds { desc, off, len } => other(format!(
                "pointer arithmetic leaves the bounds of {} (offset {off}, size {len})",
                name(desc)
            )),
            MemErr::NullArith => other("pointer arithmetic on a null pointer".into()),
            MemErr::TooBig(n) => RunError::Unsupported {
                msg: format!("memory limit of the interpreter exceeded (allocating {n} bytes)"),
                line,
            },
        }
    }

    pub(super) fn size_of(&self, t: &CType) -> u64 {
        self.prog.program.size_of(t)
    }

    /// Address of variable `v` of the current frame.
    pub(super) fn var_addr(&self, v: VarId) -> Result<u64, RunError> {
        match self.frames.last().and_then(|f| f.objs.get(v.index())) {
            Some(&id) => Ok(encode(id, 0)),
            None => {
                self.unsupported("variable used outside a function (e.g. in a global initializer)")
            }
        }
    }

    /// The type of a place of the current function.
    pub(super) fn place_ty(&self, p: &Place) -> Result<CType, RunError> {
        match p {
            Place::Var(v) => {
                let f = self.frames.last().map(|fr| &self.prog.functions[fr.func]);
                match f.and_then(|f| f.func.vars.get(v.index())) {
                    Some(info) => Ok(info.ty.clone()),
                    None => self.unsupported("variable used outside a function"),
                }
            }
            Place::Deref(_, t) | Place::Index(_, _, t) | Place::Field(_, _, _, t) => Ok(t.clone()),
        }
    }

    /// Load a scalar of type `t` from `addr`.
    pub(super) fn load(&self, addr: u64, t: &CType) -> Result<Value, RunError> {
        if !t.is_scalar() {
            return self.unsupported(format!("load of a value of type `{}`", type_text(t)));
        }
        let size = self.size_of(t);
        self.check_align(addr, t)?;
        let bytes = self
            .mem
            .read_init(addr, size)
            .map_err(|e| self.mem_err(e))?;
        match scalar_from_bytes(t, bytes) {
            Some(v) => Ok(v),
            None => self.unsupported("load of a non-scalar value"),
        }
    }

    /// Store scalar `v` (already of type `t`) at `addr`.
    pub(super) fn store(&mut self, addr: u64, t: &CType, v: Value) -> Result<(), RunError> {
        if !t.is_scalar() {
            return self.unsupported(format!("store of a value of type `{}`", type_text(t)));
        }
        self.check_align(addr, t)?;
        let size = self.size_of(t) as usize;
        let bytes = scalar_bytes(t, v, size);
        self.mem
            .write(addr, &bytes, &[true])
            .map_err(|e| self.mem_err(e))
    }

    fn check_align(&self, addr: u64, t: &CType) -> Result<(), RunError> {
        if let Ptr::Obj { id: _, off } = decode(addr) {
            let al = self.prog.program.align_of(t).max(1);
            if off.rem_euclid(al as i64) != 0 {
                return self.ub(format!(
                    "misaligned access of `{}` at byte offset {off} (alignment {al})",
                    type_text(t)
                ));
            }
        }
        Ok(())
    }

    /// Evaluate a scalar expression of the current frame.
    pub(super) fn eval(&mut self, e: &Expr) -> Result<Value, RunError> {
        if self.depth >= MAX_EXPR_DEPTH {
            return self.unsupported("expression nested too deeply for the interpreter");
        }
        self.depth += 1;
        let r = self.eval_inner(e);
        self.depth -= 1;
        r
    }

    fn eval_inner(&mut self, e: &Expr) -> Result<Value, RunError> {
        match &e.kind {
            ExprKind::Int(v) => Ok(match e.ty {
                CType::Float => Value::Float(*v as f32),
                CType::Double => Value::Double(*v as f64),
                _ => match e.ty.int_info() {
                    Some((bits, signed)) if e.ty != CType::Bool => {
                        Value::Int(norm(*v, u32::from(bits), signed))
                    }
                    _ => Value::Int(i128::from(*v != 0)),
                },
            }),
            ExprKind::Float(x) => Ok(if e.ty == CType::Float {
                Value::Float(*x as f32)
            } else {
                Value::Double(*x)
            }),
            ExprKind::Var(v) => {
                let a = self.var_addr(*v)?;
                self.load(a, &e.ty)
            }
            ExprKind::Guard(g) => match self.frames.last().and_then(|f| f.guards.get(g.index())) {
                Some(&b) => Ok(Value::Int(i128::from(b))),
                None => self.unsupported("guard used outside its function"),
            },
            ExprKind::Load(p) => {
                let a = self.place_addr(p, false)?;
                self.load(a, &e.ty)
            }
            ExprKind::AddrOf(p) => {
                let a = self.place_addr(p, true)?;
                self.mem.escape(a);
                Ok(Value::Int(i128::from(a)))
            }
            ExprKind::Str(s) => match self.strings.get(s.index()) {
                Some(&id) => Ok(Value::Int(i128::from(encode(id, 0)))),
                None => self.unsupported("unknown string literal"),
            },
            ExprKind::GlobalAddr(g) => match self.globals.get(g.index()) {
                Some(&id) => Ok(Value::Int(i128::from(encode(id, 0)))),
                None => self.unsupported("unknown global"),
            },
            ExprKind::FuncAddr(name) => {
                let id = self.fn_id(name);
                Ok(Value::Int(i128::from(func_addr(id))))
            }
            ExprKind::Opaque(why) => {
                self.unsupported(format!("cannot evaluate an abstracted value ({why})"))
            }
            ExprKind::Cast(a) => {
                if is_aggregate(&e.ty) || is_aggregate(&a.ty) {
                    return self.unsupported("cast of an aggregate value");
                }
                let v = self.eval(a)?;
                self.convert(v, &e.ty)
            }
            ExprKind::Unary(op, a) => {
                let v = self.eval(a)?;
                self.unary(*op, v, &e.ty)
            }
            ExprKind::Logic(op, a, b) => {
                let l = truthy(self.eval(a)?);
                let r = match (op, l) {
                    (LogicOp::And, false) => false,
                    (LogicOp::Or, true) => true,
                    _ => truthy(self.eval(b)?),
                };
                Ok(Value::Int(i128::from(r)))
            }
            ExprKind::Binary(op, a, b) => {
                let x = self.eval(a)?;
                let y = self.eval(b)?;
                self.binary(*op, x, &a.ty, y, &b.ty, &e.ty)
            }
        }
    }

    /// Bytes and init flags of an aggregate-typed expression (struct copy, struct argument).
    pub(super) fn eval_agg(&mut self, e: &Expr) -> Result<(Vec<u8>, Vec<bool>), RunError> {
        let addr = match &e.kind {
            ExprKind::Load(p) => self.place_addr(p, false)?,
            ExprKind::Var(v) => self.var_addr(*v)?,
            ExprKind::Opaque(why) => {
                return self.unsupported(format!("cannot evaluate an abstracted value ({why})"))
            }
            _ => return self.unsupported("unsupported aggregate expression"),
        };
        let size = self.size_of(&e.ty);
        let (b, i) = self.mem.read(addr, size).map_err(|err| self.mem_err(err))?;
        Ok((b.to_vec(), i.to_vec()))
    }

    /// `addr + delta` bytes (pointer arithmetic): a pointer outside its object is kept, its
    /// undefined behaviour noted for the end of the call (see [`Interp::arith_ub`]).
    pub(super) fn offset(&self, addr: u64, delta: i128) -> Result<u64, RunError> {
        let (a, ub) = self.mem.ptr_add(addr, delta).map_err(|e| self.mem_err(e))?;
        if let Some(e) = ub {
            let mut pending = self.arith_ub.borrow_mut();
            if pending.is_none() {
                *pending = Some(self.mem_err(e));
            }
        }
        Ok(a)
    }

    /// Address of a place. `for_addr`: the place is only having its address taken, so an array
    /// index may point one past the end.
    pub(super) fn place_addr(&mut self, p: &Place, for_addr: bool) -> Result<u64, RunError> {
        if self.depth >= MAX_EXPR_DEPTH {
            return self.unsupported("expression nested too deeply for the interpreter");
        }
        self.depth += 1;
        let r = self.place_addr_inner(p, for_addr);
        self.depth -= 1;
        r
    }

    fn place_addr_inner(&mut self, p: &Place, for_addr: bool) -> Result<u64, RunError> {
        match p {
            Place::Var(v) => self.var_addr(*v),
            Place::Deref(e, _) => Ok(as_addr(self.eval(e)?)),
            Place::Index(b, i, et) => {
                let base = self.place_addr(b, false)?;
                let bt = self.place_ty(b)?;
                let idx = as_int(self.eval(i)?);
                if let CType::Array(_, Some(n)) = bt {
                    let n = i128::from(n);
                    // A trailing `T a[0]`/`T a[1]` member is the old flexible-array idiom: only the
                    // object's bounds apply (UBSan exempts these too).
                    let flexible = n == 0 || (n == 1 && matches!(**b, Place::Field(..)));
                    if !flexible && (idx < 0 || idx > n || (idx == n && !for_addr)) {
                        return self.ub(format!(
                            "index {idx} out of bounds for type `{}`",
                            type_text(&bt)
                        ));
                    }
                }
                let sz = i128::from(self.size_of(et));
                let delta = idx.checked_mul(sz).unwrap_or(i128::MAX);
                self.offset(base, delta)
            }
            Place::Field(b, sid, k, _) => {
                let base = self.place_addr(b, false)?;
                let off = self
                    .prog
                    .program
                    .structs
                    .get(sid.index())
                    .and_then(|s| s.fields.get(*k as usize))
                    .map(|f| f.offset);
                match off {
                    Some(off) => self.offset(base, i128::from(off)),
                    None => self.unsupported("unknown struct field"),
                }
            }
        }
    }

    /// Convert `v` to type `to` as C does (assignment, cast, argument passing).
    pub(super) fn convert(&self, v: Value, to: &CType) -> Result<Value, RunError> {
        Ok(match to {
            CType::Void => Value::Int(0),
            CType::Bool => Value::Int(i128::from(truthy(v))),
            CType::Int { bits, signed } => {
                let (bits, signed) = (u32::from(*bits), *signed);
                match v {
                    Value::Int(i) => Value::Int(norm(i, bits, signed)),
                    Value::Float(x) => {
                        Value::Int(self.float_to_int(f64::from(x), bits, signed, to)?)
                    }
                    Value::Double(x) => Value::Int(self.float_to_int(x, bits, signed, to)?),
                }
            }
            CType::Ptr(_) => match v {
                // Integer → pointer keeps the bits (GCC sign-extends narrower signed integers).
                Value::Int(i) => Value::Int(norm(i, 64, false)),
                _ => return self.unsupported("conversion of a floating value to a pointer"),
            },
            CType::Float => Value::Float(as_f32(v)),
            CType::Double => Value::Double(as_f64(v)),
            CType::Struct(_) | CType::Array(..) | CType::Func(_) => v,
        })
    }

    fn float_to_int(&self, x: f64, bits: u32, signed: bool, to: &CType) -> Result<i128, RunError> {
        let t = x.trunc();
        let (lo, hi) = if signed {
            (-(2f64.powi(bits as i32 - 1)), 2f64.powi(bits as i32 - 1))
        } else {
            (0.0, 2f64.powi(bits as i32))
        };
        if x.is_nan() || t < lo || t >= hi {
            return self.ub(format!(
                "value {} is outside the range of representable values of type `{}`",
                crate::ir::fmt_double(x),
                type_text(to)
            ));
        }
        Ok(t as i128)
    }

    fn unary(&self, op: UnOp, v: Value, ty: &CType) -> Result<Value, RunError> {
        match op {
            UnOp::LogNot => Ok(Value::Int(i128::from(!truthy(v)))),
            UnOp::Neg => match v {
                Value::Float(x) => Ok(Value::Float(-x)),
                Value::Double(x) => Ok(Value::Double(-x)),
                Value::Int(i) => {
                    let (bits, signed) = self.int_type(ty)?;
                    let r = norm(i.wrapping_neg(), bits, signed);
                    if signed && i != 0 && r == i {
                        return self.ub(format!(
                            "negation of {i} cannot be represented in type `{}`",
                            type_text(ty)
                        ));
                    }
                    Ok(Value::Int(r))
                }
            },
            UnOp::BitNot => match v {
                Value::Int(i) => {
                    let (bits, signed) = self.int_type(ty)?;
                    Ok(Value::Int(norm(!i, bits, signed)))
                }
                _ => self.unsupported("`~` on a floating value"),
            },
        }
    }

    fn int_type(&self, ty: &CType) -> Result<(u32, bool), RunError> {
        match ty {
            // Arithmetic is never done in `_Bool` after promotions; treat it as int.
            CType::Bool => Ok((32, true)),
            _ => match ty.int_info() {
                Some((b, s)) => Ok((u32::from(b), s)),
                None => self.unsupported(format!("integer operation on type `{}`", type_text(ty))),
            },
        }
    }

    pub(super) fn binary(
        &self,
        op: BinOp,
        x: Value,
        xt: &CType,
        y: Value,
        yt: &CType,
        ty: &CType,
    ) -> Result<Value, RunError> {
        if xt.is_pointer() || yt.is_pointer() {
            return self.pointer_op(op, x, xt, y, yt);
        }
        if xt.is_float() || yt.is_float() {
            return self.float_op(
                op,
                x,
                y,
                if *xt == CType::Double || *yt == CType::Double {
                    &CType::Double
                } else {
                    xt
                },
            );
        }
        let (a, b) = (as_int(x), as_int(y));
        if let Some(c) = compare(op, a, b) {
            return Ok(Value::Int(i128::from(c)));
        }
        let r = self.int_op(op, a, b, ty)?;
        Ok(Value::Int(if *ty == CType::Bool {
            i128::from(r != 0)
        } else {
            r
        }))
    }

    fn float_op(&self, op: BinOp, x: Value, y: Value, t: &CType) -> Result<Value, RunError> {
        if *t == CType::Float {
            let (a, b) = (as_f32(x), as_f32(y));
            if let Some(c) = compare(op, a, b) {
                return Ok(Value::Int(i128::from(c)));
            }
            Ok(Value::Float(match op {
                BinOp::Add => a + b,
                BinOp::Sub => a - b,
                BinOp::Mul => a * b,
                BinOp::Div => a / b,
                _ => return self.unsupported(format!("`{}` on floating operands", op_symbol(op))),
            }))
        } else {
            let (a, b) = (as_f64(x), as_f64(y));
            if let Some(c) = compare(op, a, b) {
                return Ok(Value::Int(i128::from(c)));
            }
            Ok(Value::Double(match op {
                BinOp::Add => a + b,
                BinOp::Sub => a - b,
                BinOp::Mul => a * b,
                BinOp::Div => a / b,
                _ => return self.unsupported(format!("`{}` on floating operands", op_symbol(op))),
            }))
        }
    }

    /// Integer operation in type `ty` with UBSan's checks (signed overflow, division by zero,
    /// shift exponent and signed left-shift overflow).
    fn int_op(&self, op: BinOp, x: i128, y: i128, ty: &CType) -> Result<i128, RunError> {
        let (bits, signed) = self.int_type(ty)?;
        let tname = || type_text(ty);
        let in_range = |v: i128| {
            !signed || bits >= 128 || (-(1i128 << (bits - 1))..(1i128 << (bits - 1))).contains(&v)
        };
        let overflow = || {
            self.ub(format!(
                "signed overflow in `{}` ({x} {} {y} cannot be represented in type `{}`)",
                op_symbol(op),
                op_symbol(op),
                tname()
            ))
        };
        let r = match op {
            BinOp::Add | BinOp::Sub | BinOp::Mul => {
                let exact = match op {
                    BinOp::Add => x.checked_add(y),
                    BinOp::Sub => x.checked_sub(y),
                    _ => x.checked_mul(y),
                };
                match exact {
                    Some(r) if in_range(r) => r,
                    _ if signed => return overflow(),
                    Some(r) => r,
                    None => match op {
                        BinOp::Add => x.wrapping_add(y),
                        BinOp::Sub => x.wrapping_sub(y),
                        _ => x.wrapping_mul(y),
                    },
                }
            }
            BinOp::Div | BinOp::Rem => {
                if y == 0 {
                    return self.ub(format!("division by zero in `{}`", op_symbol(op)));
                }
                if signed && y == -1 && !in_range(-x) {
                    return self.ub(format!(
                        "signed overflow in `{}` ({x} {} -1 cannot be represented in type `{}`)",
                        op_symbol(op),
                        op_symbol(op),
                        tname()
                    ));
                }
                // Rust's `/` and `%` truncate toward zero like C's.
                match (op, x.checked_div(y), x.checked_rem(y)) {
                    (BinOp::Div, Some(q), _) => q,
                    (BinOp::Rem, _, Some(r)) => r,
                    _ => return overflow(),
                }
            }
            BinOp::Shl | BinOp::Shr => {
                if y < 0 {
                    return self.ub(format!("shift exponent {y} is negative"));
                }
                if y >= i128::from(bits) {
                    return self.ub(format!(
                        "shift exponent {y} is too large for {bits}-bit type `{}`",
                        tname()
                    ));
                }
                let s = y as u32;
                if op == BinOp::Shr {
                    x >> s
                } else if signed {
                    if x < 0 {
                        return self.ub(format!("left shift of negative value {x}"));
                    }
                    let r = x
                        .checked_shl(s)
                        .filter(|r| r >> s == x)
                        .unwrap_or(i128::MAX);
                    if !in_range(r) {
                        return self.ub(format!(
                            "left shift of {x} by {s} places cannot be represented in type `{}`",
                            tname()
                        ));
                    }
                    r
                } else {
                    x.wrapping_shl(s)
                }
            }
            BinOp::BitAnd => x & y,
            BinOp::BitOr => x | y,
            BinOp::BitXor => x ^ y,
            _ => return self.unsupported(format!("`{}` on integer operands", op_symbol(op))),
        };
        Ok(norm(r, bits, signed))
    }

    fn pointer_op(
        &self,
        op: BinOp,
        x: Value,
        xt: &CType,
        y: Value,
        yt: &CType,
    ) -> Result<Value, RunError> {
        let elem = |t: &CType| t.pointee().map_or(1, |p| self.size_of(p)) as i128;
        let arith = |p: Value, pt: &CType, n: Value, neg: bool| -> Result<Value, RunError> {
            let n = as_int(n);
            let d = n.checked_mul(elem(pt)).unwrap_or(i128::MAX);
            let d = if neg {
                d.checked_neg().unwrap_or(i128::MAX)
            } else {
                d
            };
            let r = self.offset(as_addr(p), d)?;
            Ok(Value::Int(i128::from(r)))
        };
        match op {
            BinOp::Add if xt.is_pointer() && !yt.is_pointer() => arith(x, xt, y, false),
            BinOp::Add if yt.is_pointer() && !xt.is_pointer() => arith(y, yt, x, false),
            BinOp::Sub if xt.is_pointer() && !yt.is_pointer() => arith(x, xt, y, true),
            BinOp::PtrDiff | BinOp::Sub if xt.is_pointer() && yt.is_pointer() => {
                let (a, b) = (as_addr(x), as_addr(y));
                let sz = elem(xt);
                match (decode(a), decode(b)) {
                    (Ptr::Null, Ptr::Null) => Ok(Value::Int(0)),
                    (Ptr::Obj { id: i, off: oa }, Ptr::Obj { id: j, off: ob })
                        if i == j && sz > 0 =>
                    {
                        Ok(Value::Int((i128::from(oa) - i128::from(ob)) / sz))
                    }
                    (Ptr::Obj { .. }, Ptr::Obj { .. }) if sz > 0 => {
                        self.ub("subtraction of pointers into different objects")
                    }
                    _ => self.unsupported("subtraction of these pointers"),
                }
            }
            BinOp::Eq | BinOp::Ne => {
                let c = (as_addr(x) == as_addr(y)) == (op == BinOp::Eq);
                Ok(Value::Int(i128::from(c)))
            }
            BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => {
                let (a, b) = (as_addr(x), as_addr(y));
                let same = match (decode(a), decode(b)) {
                    (Ptr::Obj { id: i, .. }, Ptr::Obj { id: j, .. }) => i == j,
                    (Ptr::Null, Ptr::Null) => true,
                    _ => false,
                };
                if !same {
                    return self
                        .unsupported("relational comparison of pointers to different objects");
                }
                Ok(Value::Int(i128::from(compare(op, a, b).unwrap_or(false))))
            }
            // Bitwise operations etc. on pointers are not valid C; integers cast from pointers
            // are plain integers and never get here.
            _ => self.unsupported(format!("`{}` on pointer operands", op_symbol(op))),
        }
    }
}
