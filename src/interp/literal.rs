//! C literals for interpreter inputs and outputs.
//!
//! Takes command-line or witness text (`-5`, `0x1f`, `'a'`, `1.5`, `-inf`) and a parameter type
//! and gives the [`Value`] C assignment would store; and formats values back as C literals that
//! round-trip exactly (DESIGN §9: integers in decimal, doubles in shortest repr, `INFINITY`,
//! `NAN`, pointers `0` or hex).

use super::eval::norm;
use super::Value;
use crate::ir::{fmt_double, fmt_float, CType};

/// A parsed literal before conversion to the parameter type.
enum Lit {
    Int(i128),
    Double(f64),
    Float(f32),
}

/// Parse a C literal and convert it to `ty` as C assignment would (integers modulo the type's
/// width, doubles to float by rounding, floats to integers by truncation).
pub fn parse_arg(s: &str, ty: &CType) -> Result<Value, String> {
    let lit = parse_literal(s.trim())?;
    match ty {
        CType::Bool => Ok(Value::Int(i128::from(match lit {
            Lit::Int(i) => i != 0,
            Lit::Double(x) => x != 0.0,
            Lit::Float(x) => x != 0.0,
        }))),
        CType::Int { bits, signed } => {
            let (bits, signed) = (u32::from(*bits), *signed);
            match lit {
                Lit::Int(i) => Ok(Value::Int(norm(i, bits, signed))),
                Lit::Double(x) => float_to_int(x, bits, signed, s),
                Lit::Float(x) => float_to_int(f64::from(x), bits, signed, s),
            }
        }
        CType::Ptr(_) => match lit {
            Lit::Int(i) => Ok(Value::Int(norm(i, 64, false))),
            _ => Err(format!("`{s}` is not a pointer value")),
        },
        CType::Float => Ok(Value::Float(match lit {
            Lit::Int(i) => i as f32,
            // `float x = 0.1;` converts the double constant: round twice, as C does.
            Lit::Double(x) => x as f32,
            Lit::Float(x) => x,
        })),
        CType::Double => Ok(Value::Double(match lit {
            Lit::Int(i) => i as f64,
            Lit::Double(x) => x,
            Lit::Float(x) => f64::from(x),
        })),
        CType::Void | CType::Array(..) | CType::Struct(_) | CType::Func(_) => Err(format!(
            "cannot pass `{s}` as a value of this type (only scalars can be given)"
        )),
    }
}

fn float_to_int(x: f64, bits: u32, signed: bool, s: &str) -> Result<Value, String> {
    let t = x.trunc();
    let (lo, hi) = if signed {
        (-(2f64.powi(bits as i32 - 1)), 2f64.powi(bits as i32 - 1))
    } else {
        (0.0, 2f64.powi(bits as i32))
    };
    if x.is_nan() || t < lo || t >= hi {
        return Err(format!(
            "`{s}` is out of range of the parameter's integer type"
        ));
    }
    Ok(Value::Int(t as i128))
}

fn parse_literal(s: &str) -> Result<Lit, String> {
    let bad = || format!("`{s}` is not a C literal");
    let (neg, body) = match s.as_bytes().first() {
        Some(b'-') => (true, s[1..].trim_start()),
        Some(b'+') => (false, s[1..].trim_start()),
        _ => (false, s),
    };
    if body.is_empty() {
        return Err(bad());
    }
    if body.starts_with('\'') {
        let v = char_literal(body).ok_or_else(bad)?;
        return Ok(Lit::Int(if neg { -v } else { v }));
    }
    if body == "NULL" {
        return Ok(Lit::Int(0));
    }
    let lower = body.to_ascii_lowercase();
    let is_hex = lower.starts_with("0x");
    let named = matches!(lower.as_str(), "inf" | "infinity" | "nan" | "huge_val");
    if !is_hex && (named || lower.contains(['.', 'e'])) {
        return float_literal(&lower, neg).ok_or_else(bad);
    }
    if is_hex && lower.contains('p') {
        return Err(format!(
            "`{s}`: hexadecimal floating literals are not supported"
        ));
    }
    // Integer: prefix, digits, suffix of u/l letters.
    let digits_end = lower.find(['u', 'l']).unwrap_or(lower.len());
    let (num, suffix) = lower.split_at(digits_end);
    if !matches!(suffix, "" | "u" | "l" | "ul" | "lu" | "ll" | "ull" | "llu") {
        return Err(bad());
    }
    let (radix, digits) = if let Some(h) = num.strip_prefix("0x") {
        (16, h)
    } else if let Some(b) = num.strip_prefix("0b") {
        (2, b)
    } else if num.len() > 1 && num.starts_with('0') {
        (8, &num[1..])
    } else {
        (10, num)
    };
    if digits.is_empty() {
        return Err(bad());
    }
    let v = u128::from_str_radix(digits, radix).map_err(|_| bad())?;
    if v > u128::from(u64::MAX) {
        return Err(format!("`{s}` does not fit in 64 bits"));
    }
    let v = v as i128;
    Ok(Lit::Int(if neg { -v } else { v }))
}

fn float_literal(lower: &str, neg: bool) -> Option<Lit> {
    let (text, is_float) = match lower.strip_suffix('f') {
        // `inf` ends in `f` too.
        Some(t) if !lower.ends_with("inf") => (t, true),
        _ => (lower.strip_suffix('l').unwrap_or(lower), false),
    };
    let text = if text == "huge_val" { "inf" } else { text };
    if text.is_empty()
        || !text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '+' | '-'))
    {
        return None;
    }
    if is_float {
        let x: f32 = text.parse().ok()?;
        Some(Lit::Float(if neg { -x } else { x }))
    } else {
        let x: f64 = text.parse().ok()?;
        Some(Lit::Double(if neg { -x } else { x }))
    }
}

/// Value of a C character constant (type `int`; plain `char` is signed, so `'\xff'` is -1).
fn char_literal(s: &str) -> Option<i128> {
    let inner = s.strip_prefix('\'')?.strip_suffix('\'')?;
    let b = inner.as_bytes();
    let byte: u32 = match b {
        [c] if *c != b'\\' && *c != b'\'' => u32::from(*c),
        [b'\\', rest @ ..] => match rest {
            [b'n'] => 10,
            [b't'] => 9,
            [b'r'] => 13,
            [b'0'..=b'7', ..] if rest.len() <= 3 => {
                u32::from_str_radix(std::str::from_utf8(rest).ok()?, 8).ok()?
            }
            [b'x', hex @ ..] if !hex.is_empty() => {
                u32::from_str_radix(std::str::from_utf8(hex).ok()?, 16).ok()?
            }
            [b'a'] => 7,
            [b'b'] => 8,
            [b'f'] => 12,
            [b'v'] => 11,
            [b'e'] => 27,
            [c @ (b'\\' | b'\'' | b'"' | b'?')] => u32::from(*c),
            _ => return None,
        },
        // A multi-byte UTF-8 character is a multi-character constant in C: not accepted.
        _ => return None,
    };
    if byte > 0xff {
        return None;
    }
    Some(i128::from(byte as u8 as i8))
}

/// Format a value of type `ty` as a C literal that reads back to the same value.
pub fn format_value(v: &Value, ty: &CType) -> String {
    match *v {
        Value::Int(i) if ty.is_pointer() => {
            if i == 0 {
                "0".into()
            } else {
                format!("{:#x}", norm(i, 64, false))
            }
        }
        Value::Int(i) => i.to_string(),
        Value::Float(x) => fmt_float(x),
        Value::Double(x) => fmt_double(x),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn int(s: &str, ty: &CType) -> i128 {
        match parse_arg(s, ty) {
            Ok(Value::Int(i)) => i,
            other => panic!("{s}: {other:?}"),
        }
    }

    #[test]
    fn integers() {
        assert_eq!(int("42", &CType::INT), 42);
        assert_eq!(int("-42", &CType::INT), -42);
        assert_eq!(int("0x1F", &CType::INT), 31);
        assert_eq!(int("017", &CType::INT), 15);
        assert_eq!(int("0", &CType::INT), 0);
        assert_eq!(int("-1", &CType::UINT), 4294967295);
        assert_eq!(int("4294967295u", &CType::INT), -1);
        assert_eq!(int("18446744073709551615ULL", &CType::LONG), -1);
        assert_eq!(int("10l", &CType::LONG), 10);
        assert_eq!(int("'a'", &CType::INT), 97);
        assert_eq!(int("'\\n'", &CType::CHAR), 10);
        assert_eq!(int("'\\xff'", &CType::INT), -1);
        assert_eq!(int("'\\0'", &CType::INT), 0);
        assert_eq!(int("300", &CType::UCHAR), 44);
        assert_eq!(int("2", &CType::Bool), 1);
        assert_eq!(int("3.9", &CType::INT), 3);
        assert_eq!(int("-3.9", &CType::INT), -3);
        assert!(parse_arg("1e10", &CType::INT).is_err());
        assert!(parse_arg("12abc", &CType::INT).is_err());
        assert!(parse_arg("", &CType::INT).is_err());
        assert!(parse_arg("99999999999999999999999", &CType::LONG).is_err());
    }

    #[test]
    fn floats() {
        assert_eq!(parse_arg("1.5", &CType::Double), Ok(Value::Double(1.5)));
        assert_eq!(
            parse_arg("-2e3", &CType::Double),
            Ok(Value::Double(-2000.0))
        );
        assert_eq!(parse_arg(".5", &CType::Double), Ok(Value::Double(0.5)));
        assert_eq!(
            parse_arg("0.1", &CType::Float),
            Ok(Value::Float(0.1f64 as f32))
        );
        assert_eq!(parse_arg("0.1f", &CType::Float), Ok(Value::Float(0.1f32)));
        assert_eq!(parse_arg("3", &CType::Double), Ok(Value::Double(3.0)));
        assert_eq!(
            parse_arg("inf", &CType::Double),
            Ok(Value::Double(f64::INFINITY))
        );
        assert_eq!(
            parse_arg("-INFINITY", &CType::Double),
            Ok(Value::Double(f64::NEG_INFINITY))
        );
        assert!(matches!(parse_arg("nan", &CType::Double), Ok(Value::Double(x)) if x.is_nan()));
        assert!(matches!(parse_arg("NAN", &CType::Float), Ok(Value::Float(x)) if x.is_nan()));
    }

    #[test]
    fn formatting_round_trips() {
        for x in [1.0, 0.1, 1e300, -0.0, 123456.789, 5e-324, f64::MAX] {
            let s = format_value(&Value::Double(x), &CType::Double);
            assert_eq!(parse_arg(&s, &CType::Double), Ok(Value::Double(x)), "{s}");
        }
        for x in [1.0f32, 0.1, 3.4e38, 1e-45] {
            let s = format_value(&Value::Float(x), &CType::Float);
            assert_eq!(parse_arg(&s, &CType::Float), Ok(Value::Float(x)), "{s}");
        }
        assert_eq!(format_value(&Value::Double(1.0), &CType::Double), "1.0");
        assert_eq!(
            format_value(&Value::Double(f64::NEG_INFINITY), &CType::Double),
            "-INFINITY"
        );
        assert_eq!(format_value(&Value::Float(1.5), &CType::Float), "1.5f");
        assert_eq!(format_value(&Value::Int(-7), &CType::INT), "-7");
        assert_eq!(
            format_value(&Value::Int(0), &CType::Ptr(Box::new(CType::INT))),
            "0"
        );
        assert_eq!(
            format_value(
                &Value::Int(0x1_0000_0004),
                &CType::Ptr(Box::new(CType::INT))
            ),
            "0x100000004"
        );
    }
}
