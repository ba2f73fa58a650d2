//! dizy's C literals as numbers.
//!
//! Takes the literal text of a witness or a differing state (or the harness's canonical text);
//! gives the integer or floating value, and equality of floating values under the contract.
//! Used to build inputs from witnesses and to compare dizy's claims with the native runs.

/// Parse a C integer literal as dizy prints it (decimal or hex, maybe a sign, suffix or char
/// literal).
pub fn parse_literal(s: &str) -> Option<i128> {
    let s = s.trim();
    if let Some(body) = s.strip_prefix('\'').and_then(|r| r.strip_suffix('\'')) {
        let b = body.as_bytes();
        return match b {
            [c] => Some(i128::from(*c as i8)),
            [b'\\', b'n'] => Some(10),
            [b'\\', b't'] => Some(9),
            [b'\\', b'0'] => Some(0),
            [b'\\', b'\\'] => Some(92),
            [b'\\', b'\''] => Some(39),
            [b'\\', b'x', h @ ..] => i128::from_str_radix(std::str::from_utf8(h).ok()?, 16)
                .ok()
                .map(|v| i128::from(v as u8 as i8)),
            [b'\\', o @ ..] => i128::from_str_radix(std::str::from_utf8(o).ok()?, 8)
                .ok()
                .map(|v| i128::from(v as u8 as i8)),
            _ => None,
        };
    }
    match s {
        "true" => return Some(1),
        "false" => return Some(0),
        _ => {}
    }
    let t = s.trim_end_matches(['u', 'U', 'l', 'L']);
    let (neg, t) = match t.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, t),
    };
    let v = if let Some(h) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        i128::from_str_radix(h, 16).ok()?
    } else {
        t.parse::<i128>().ok()?
    };
    Some(if neg { -v } else { v })
}

/// Parse a floating literal as dizy prints it (`1.5`, `2.5f`, `-0.0`, `1e300`, `NAN`,
/// `-INFINITY`), or the harness's canonical text (`nan`, `0`, `%.17g`).
pub fn parse_float(s: &str) -> Option<f64> {
    let s = s.trim();
    let (neg, t) = match s.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, s.strip_prefix('+').unwrap_or(s)),
    };
    let up = t.to_ascii_uppercase();
    let v = match up.as_str() {
        "NAN" => f64::NAN,
        "INFINITY" | "INF" => f64::INFINITY,
        _ => {
            let t = if up.starts_with("0X") {
                t
            } else {
                t.trim_end_matches(['f', 'F', 'l', 'L'])
            };
            match t.parse::<f64>() {
                Ok(v) => v,
                Err(_) => parse_literal(t)? as f64,
            }
        }
    };
    Some(if neg { -v } else { v })
}

/// Equal as floating values under the contract (NaN equals NaN, -0.0 equals 0.0).
pub fn float_eq(a: f64, b: f64) -> bool {
    (a.is_nan() && b.is_nan()) || a == b
}
