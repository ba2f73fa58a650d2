//! Constants: C literal parsing and integer constant folding.
//!
//! Takes literal tokens from `lang-c` and typed IR expressions; gives typed constant values with
//! C's literal typing rules, and folds integer constant expressions (array sizes, case labels,
//! enumerators, `sizeof`, readable GCL). Part of the frontend; depends only on `ir` (the lowering
//! evaluates a constant expression by lowering it and folding the result with [`fold`]).

use lang_c::ast::{Float, FloatBase, FloatFormat, Integer, IntegerBase, IntegerSize};

use crate::ir::{BinOp, CType, Expr, ExprKind, LogicOp, UnOp};

/// Reduce `v` to the range of integer type `ty` (two's complement wrap; `_Bool` by `!= 0`).
pub fn normalize(v: i128, ty: &CType) -> i128 {
    match ty {
        CType::Bool => (v != 0) as i128,
        CType::Int { bits, signed } => wrap(v, *bits, *signed),
        CType::Ptr(_) => wrap(v, 64, false),
        _ => v,
    }
}

fn wrap(v: i128, bits: u8, signed: bool) -> i128 {
    let bits = u32::from(bits);
    let m = v & ((1i128 << bits) - 1);
    if signed && m >= 1i128 << (bits - 1) {
        m - (1i128 << bits)
    } else {
        m
    }
}

pub fn in_range(v: i128, ty: &CType) -> bool {
    normalize(v, ty) == v
}

/// Type and value of an integer literal (C11 6.4.4.1).
pub fn int_literal(i: &Integer) -> std::result::Result<(i128, CType), String> {
    let radix = match i.base {
        IntegerBase::Decimal => 10,
        IntegerBase::Octal => 8,
        IntegerBase::Hexadecimal => 16,
        IntegerBase::Binary => 2,
    };
    let digits = i.number.trim_start_matches("0x").trim_start_matches("0X");
    let digits = if radix == 2 {
        digits.trim_start_matches("0b").trim_start_matches("0B")
    } else {
        digits
    };
    let v = if digits.is_empty() {
        Ok(0)
    } else {
        u128::from_str_radix(digits, radix)
    }
    .map_err(|_| format!("integer constant `{}` is too large", i.number))?;
    if v > u128::from(u64::MAX) {
        return Err(format!(
            "integer constant `{}` is too large for any integer type",
            i.number
        ));
    }
    let v = v as i128;
    let decimal = radix == 10;
    let cands: &[CType] = match (i.suffix.unsigned, i.suffix.size, decimal) {
        (false, IntegerSize::Int, true) => &[CType::INT, CType::LONG],
        (false, IntegerSize::Int, false) => &[CType::INT, CType::UINT, CType::LONG, CType::ULONG],
        (true, IntegerSize::Int, _) => &[CType::UINT, CType::ULONG],
        (false, _, true) => &[CType::LONG],
        (false, _, false) => &[CType::LONG, CType::ULONG],
        (true, _, _) => &[CType::ULONG],
    };
    for c in cands {
        if in_range(v, c) {
            return Ok((v, c.clone()));
        }
    }
    // GCC gives an over-large decimal constant type unsigned long with a warning.
    Ok((v, CType::ULONG))
}

pub fn float_literal(f: &Float) -> std::result::Result<(f64, CType), String> {
    let ty = match f.suffix.format {
        FloatFormat::Float => CType::Float,
        _ => CType::Double,
    };
    let text = f.number.to_string();
    let v = match f.base {
        FloatBase::Decimal => {
            if ty == CType::Float {
                text.parse::<f32>()
                    .map(f64::from)
                    .map_err(|_| format!("bad floating constant `{text}`"))?
            } else {
                text.parse::<f64>()
                    .map_err(|_| format!("bad floating constant `{text}`"))?
            }
        }
        FloatBase::Hexadecimal => {
            let v = parse_hex_float(&text)
                .ok_or_else(|| format!("bad hexadecimal floating constant `{text}`"))?;
            if ty == CType::Float {
                f64::from(v as f32)
            } else {
                v
            }
        }
    };
    Ok((v, ty))
}

/// `1.8p3` (digits after `0x` already stripped by lang-c or not) → value. Exact for up to 53
/// significant bits, which covers every literal written in practice.
fn parse_hex_float(s: &str) -> Option<f64> {
    let s = s.trim_start_matches("0x").trim_start_matches("0X");
    let (mant, exp) = match s.find(['p', 'P']) {
        Some(i) => (&s[..i], s[i + 1..].parse::<i32>().ok()?),
        None => (s, 0),
    };
    let (int, frac) = match mant.find('.') {
        Some(i) => (&mant[..i], &mant[i + 1..]),
        None => (mant, ""),
    };
    let mut m: u128 = 0;
    for c in int.chars().chain(frac.chars()) {
        m = m.checked_mul(16)?.checked_add(c.to_digit(16)? as u128)?;
    }
    let e = exp - 4 * frac.len() as i32;
    Some((m as f64) * 2f64.powi(e))
}

/// Value of a character constant such as `'a'`, `'\n'`, `'\x41'` (type int; plain char is
/// signed, so `'\xff'` is -1).
pub fn char_literal(s: &str) -> std::result::Result<i128, String> {
    let (wide, body) = match s.find('\'') {
        Some(i) => (i > 0, &s[i + 1..s.len().saturating_sub(1)]),
        None => return Err(format!("bad character constant {s}")),
    };
    let bytes = unescape(body)?;
    match bytes.as_slice() {
        [b] if !wide => Ok(i128::from(*b as i8)),
        [b] => Ok(i128::from(*b)),
        [] => Err("empty character constant".into()),
        many => {
            // Multi-character constants: GCC packs bytes big-endian into an int.
            let mut v: i128 = 0;
            for b in many.iter().rev().take(4).rev() {
                v = (v << 8) | i128::from(*b);
            }
            Ok(normalize(v, &CType::INT))
        }
    }
}

/// Process C escapes in the body of a string or character literal.
pub fn unescape(body: &str) -> std::result::Result<Vec<u8>, String> {
    let b = body.as_bytes();
    let mut out = vec![];
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'\\' {
            out.push(b[i]);
            i += 1;
            continue;
        }
        i += 1;
        let c = *b.get(i).ok_or("trailing backslash in literal")?;
        i += 1;
        match c {
            b'n' => out.push(b'\n'),
            b't' => out.push(b'\t'),
            b'r' => out.push(b'\r'),
            b'a' => out.push(7),
            b'b' => out.push(8),
            b'f' => out.push(12),
            b'v' => out.push(11),
            b'e' | b'E' => out.push(27),
            b'x' => {
                let start = i;
                while i < b.len() && b[i].is_ascii_hexdigit() {
                    i += 1;
                }
                let v = u32::from_str_radix(&body[start..i], 16).map_err(|_| "bad \\x escape")?;
                out.push(v as u8);
            }
            b'0'..=b'7' => {
                let start = i - 1;
                while i < b.len() && i < start + 3 && (b'0'..=b'7').contains(&b[i]) {
                    i += 1;
                }
                let v = u32::from_str_radix(&body[start..i], 8).map_err(|_| "bad octal escape")?;
                out.push(v as u8);
            }
            other => out.push(other),
        }
    }
    Ok(out)
}

/// Fold an integer constant expression; `None` if it is not constant or would be undefined.
pub fn fold(e: &Expr) -> Option<i128> {
    let ty = &e.ty;
    match &e.kind {
        ExprKind::Int(v) => Some(*v),
        ExprKind::Cast(x) => {
            if !ty.is_integer() {
                return None;
            }
            if x.ty.is_float() {
                let f = fold_float(x)?;
                if *ty == CType::Bool {
                    return Some((f != 0.0 || f.is_nan()) as i128);
                }
                let t = f.trunc();
                if !t.is_finite() || t.abs() > 1e38 {
                    return None;
                }
                let v = t as i128;
                return in_range(v, ty).then_some(v);
            }
            Some(normalize(fold(x)?, ty))
        }
        ExprKind::Unary(op, x) => {
            let v = fold(x)?;
            let r = match op {
                UnOp::Neg => -v,
                UnOp::BitNot => !v,
                UnOp::LogNot => (v == 0) as i128,
            };
            checked(r, ty, *op == UnOp::Neg)
        }
        ExprKind::Logic(op, a, b) => {
            let a = fold(a)? != 0;
            match (op, a) {
                (LogicOp::And, false) => Some(0),
                (LogicOp::Or, true) => Some(1),
                _ => Some((fold(b)? != 0) as i128),
            }
        }
        ExprKind::Binary(op, a, b) if a.ty.is_float() => {
            let (x, y) = (fold_float(a)?, fold_float(b)?);
            let r = match op {
                BinOp::Eq => x == y,
                BinOp::Ne => x != y,
                BinOp::Lt => x < y,
                BinOp::Le => x <= y,
                BinOp::Gt => x > y,
                BinOp::Ge => x >= y,
                _ => return None,
            };
            Some(r as i128)
        }
        ExprKind::Binary(op, a, b) => {
            if a.ty.is_pointer() || b.ty.is_pointer() {
                return None;
            }
            let (x, y) = (fold(a)?, fold(b)?);
            let signed = matches!(a.ty, CType::Int { signed: true, .. });
            let r = match op {
                BinOp::Add => x + y,
                BinOp::Sub => x - y,
                BinOp::Mul => x.checked_mul(y)?,
                BinOp::Div | BinOp::Rem if y == 0 => return None,
                BinOp::Div => x / y,
                BinOp::Rem => x % y,
                BinOp::Shl | BinOp::Shr => {
                    let (bits, _) = a.ty.int_info()?;
                    if y < 0 || y >= i128::from(bits) || (signed && x < 0 && *op == BinOp::Shl) {
                        return None;
                    }
                    if *op == BinOp::Shl {
                        x << y
                    } else {
                        x >> y
                    }
                }
                BinOp::BitAnd => x & y,
                BinOp::BitOr => x | y,
                BinOp::BitXor => x ^ y,
                BinOp::Eq => (x == y) as i128,
                BinOp::Ne => (x != y) as i128,
                BinOp::Lt => (x < y) as i128,
                BinOp::Le => (x <= y) as i128,
                BinOp::Gt => (x > y) as i128,
                BinOp::Ge => (x >= y) as i128,
                BinOp::PtrDiff => return None,
            };
            let arith = matches!(
                op,
                BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div | BinOp::Rem | BinOp::Shl
            );
            checked(r, ty, arith)
        }
        _ => None,
    }
}

/// Fold a floating constant expression (static initializers such as `1 / 3.0`). `Float`
/// operations round to single precision after each step, as GCC does on x86-64 (SSE).
pub fn fold_float(e: &Expr) -> Option<f64> {
    let single = e.ty == CType::Float;
    let round = |v: f64| if single { f64::from(v as f32) } else { v };
    match &e.kind {
        ExprKind::Float(f) => Some(*f),
        ExprKind::Cast(x) if e.ty.is_float() => {
            if x.ty.is_float() {
                return Some(round(fold_float(x)?));
            }
            let v = fold(x)?;
            // Integer to float: convert directly to the target precision (no double rounding).
            Some(if single {
                f64::from(v as f32)
            } else {
                v as f64
            })
        }
        ExprKind::Unary(UnOp::Neg, x) if e.ty.is_float() => Some(-fold_float(x)?),
        ExprKind::Binary(op, a, b) if e.ty.is_float() => {
            let (x, y) = (fold_float(a)?, fold_float(b)?);
            let r = if single {
                let (x, y) = (x as f32, y as f32);
                f64::from(match op {
                    BinOp::Add => x + y,
                    BinOp::Sub => x - y,
                    BinOp::Mul => x * y,
                    BinOp::Div => x / y,
                    _ => return None,
                })
            } else {
                match op {
                    BinOp::Add => x + y,
                    BinOp::Sub => x - y,
                    BinOp::Mul => x * y,
                    BinOp::Div => x / y,
                    _ => return None,
                }
            };
            Some(r)
        }
        _ => None,
    }
}

/// Signed arithmetic that overflows is undefined: refuse to fold it (the interpreter reports it).
fn checked(r: i128, ty: &CType, arith: bool) -> Option<i128> {
    match ty {
        CType::Int { signed: true, .. } if arith && !in_range(r, ty) => None,
        _ => Some(normalize(r, ty)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wraps_to_type() {
        assert_eq!(normalize(256, &CType::UCHAR), 0);
        assert_eq!(normalize(255, &CType::CHAR), -1);
        assert_eq!(normalize(-1, &CType::UINT), 4294967295);
        assert_eq!(normalize(2, &CType::Bool), 1);
    }

    #[test]
    fn escapes_and_chars() {
        assert_eq!(char_literal("'a'").unwrap(), 97);
        assert_eq!(char_literal("'\\n'").unwrap(), 10);
        assert_eq!(char_literal("'\\xff'").unwrap(), -1);
        assert_eq!(char_literal("'\\0'").unwrap(), 0);
        assert_eq!(unescape("a\\101\\x42").unwrap(), b"aAB");
    }

    #[test]
    fn float_to_bool_tests_nonzero() {
        let half = Expr::new(ExprKind::Float(0.5), CType::Double);
        assert_eq!(
            fold(&Expr::new(
                ExprKind::Cast(Box::new(half.clone())),
                CType::Bool
            )),
            Some(1)
        );
        assert_eq!(
            fold(&Expr::new(ExprKind::Cast(Box::new(half)), CType::INT)),
            Some(0)
        );
        let nan = Expr::new(ExprKind::Float(f64::NAN), CType::Double);
        assert_eq!(
            fold(&Expr::new(ExprKind::Cast(Box::new(nan)), CType::Bool)),
            Some(1)
        );
    }

    #[test]
    fn folds_float_arithmetic() {
        let third = Expr::new(
            ExprKind::Binary(
                BinOp::Div,
                Box::new(Expr::new(ExprKind::Float(1.0), CType::Double)),
                Box::new(Expr::new(ExprKind::Float(3.0), CType::Double)),
            ),
            CType::Double,
        );
        assert_eq!(fold_float(&third), Some(1.0 / 3.0));
    }

    #[test]
    fn hex_floats() {
        assert_eq!(parse_hex_float("0x1.8p1"), Some(3.0));
        assert_eq!(parse_hex_float("0x10"), Some(16.0));
    }
}
