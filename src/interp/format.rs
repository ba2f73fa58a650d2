//! `printf` formatting for the interpreter.
//!
//! Takes a format string and the call's argument values; gives the bytes glibc's `printf`
//! writes, for the conversions whose text does not depend on the machine: `d i u o x X c s %`
//! with flags, width, precision (`*` included) and length modifiers. Floating conversions
//! (whose rounding of ties would have to be glibc's exactly), `%p` (addresses differ between
//! the interpreter and a native run) and `%n` (a store) are refused, so a run that reaches them
//! is no witness. The interpreter calls this for `printf` and `puts`; the output is compared
//! as an effect, and `--validate native` checks it against the compiled program.

use super::{RunError, Value};

/// Why a format could not be rendered.
#[derive(Debug, PartialEq)]
pub(super) enum FormatError {
    /// A conversion this module does not render (floating, `%p`, `%n`, unknown).
    Unsupported(String),
    /// Fewer arguments than the format consumes (undefined behaviour).
    MissingArgument,
}

/// Render `fmt` with `args` (the values after the format); `strings` reads what a `%s`
/// argument points to (the bytes of the NUL-terminated string at an address, at most `limit`
/// of them), from the caller's memory.
pub(super) fn render(
    fmt: &[u8],
    args: &[Value],
    strings: &mut dyn FnMut(Value, Option<usize>) -> Result<Vec<u8>, RunError>,
) -> Result<Result<Vec<u8>, FormatError>, RunError> {
    let mut out = Vec::new();
    let mut next = args.iter();
    let mut k = 0;
    macro_rules! arg {
        () => {
            match next.next() {
                Some(v) => *v,
                None => return Ok(Err(FormatError::MissingArgument)),
            }
        };
    }
    while k < fmt.len() {
        let c = fmt[k];
        k += 1;
        if c != b'%' {
            out.push(c);
            continue;
        }
        let mut flags = Flags::default();
        while let Some(&f) = fmt.get(k) {
            match f {
                b'-' => flags.left = true,
                b'+' => flags.plus = true,
                b' ' => flags.space = true,
                b'#' => flags.alt = true,
                b'0' => flags.zero = true,
                _ => break,
            }
            k += 1;
        }
        let mut width: usize = 0;
        if fmt.get(k) == Some(&b'*') {
            k += 1;
            let w = int_of(arg!()) as i32;
            // A negative width is the `-` flag and its magnitude.
            flags.left |= w < 0;
            width = w.unsigned_abs() as usize;
        } else {
            while let Some(d) = fmt.get(k).filter(|d| d.is_ascii_digit()) {
                width = width
                    .saturating_mul(10)
                    .saturating_add(usize::from(d - b'0'));
                k += 1;
            }
        }
        let mut precision: Option<usize> = None;
        if fmt.get(k) == Some(&b'.') {
            k += 1;
            if fmt.get(k) == Some(&b'*') {
                k += 1;
                let p = int_of(arg!()) as i32;
                // A negative precision is taken as if it were omitted.
                precision = (p >= 0).then_some(p as usize);
            } else {
                let mut p = 0usize;
                while let Some(d) = fmt.get(k).filter(|d| d.is_ascii_digit()) {
                    p = p.saturating_mul(10).saturating_add(usize::from(d - b'0'));
                    k += 1;
                }
                precision = Some(p);
            }
        }
        if width > 1 << 16 || precision.is_some_and(|p| p > 1 << 16) {
            return Ok(Err(FormatError::Unsupported("a width beyond 65536".into())));
        }
        let mut bits = 32;
        while let Some(&l) = fmt.get(k) {
            match l {
                b'h' => bits = if bits == 16 { 8 } else { 16 },
                b'l' | b'q' | b'j' | b'z' | b't' => bits = 64,
                b'L' => return Ok(Err(FormatError::Unsupported("`long double`".into()))),
                _ => break,
            }
            k += 1;
        }
        let Some(&conv) = fmt.get(k) else {
            return Ok(Err(FormatError::Unsupported(
                "a format ending in `%`".into(),
            )));
        };
        k += 1;
        let body: Vec<u8> = match conv {
            b'%' => {
                out.push(b'%');
                continue;
            }
            b'd' | b'i' => {
                let v = wrap(int_of(arg!()), bits, true);
                let sign: &[u8] = if v < 0 {
                    b"-"
                } else if flags.plus {
                    b"+"
                } else if flags.space {
                    b" "
                } else {
                    b""
                };
                integer(
                    sign,
                    b"",
                    v.unsigned_abs(),
                    10,
                    false,
                    precision,
                    width,
                    &flags,
                )
            }
            b'u' | b'o' | b'x' | b'X' => {
                let v = wrap(int_of(arg!()), bits, false) as u128;
                let (base, upper) = match conv {
                    b'u' => (10, false),
                    b'o' => (8, false),
                    b'x' => (16, false),
                    _ => (16, true),
                };
                let prefix: &[u8] = match conv {
                    b'x' if flags.alt && v != 0 => b"0x",
                    b'X' if flags.alt && v != 0 => b"0X",
                    _ => b"",
                };
                integer(b"", prefix, v, base, upper, precision, width, &flags)
            }
            b'c' => pad(vec![int_of(arg!()) as u8], width, flags.left),
            b's' => {
                let text = strings(arg!(), precision)?;
                pad(text, width, flags.left)
            }
            other => {
                return Ok(Err(FormatError::Unsupported(format!(
                    "the conversion `%{}`",
                    char::from(other)
                ))))
            }
        };
        out.extend(body);
    }
    Ok(Ok(out))
}

#[derive(Default)]
struct Flags {
    left: bool,
    plus: bool,
    space: bool,
    alt: bool,
    zero: bool,
}

fn int_of(v: Value) -> i128 {
    match v {
        Value::Int(x) => x,
        Value::Float(x) => x as i128,
        Value::Double(x) => x as i128,
    }
}

/// `v` converted to the integer type of `bits` bits the conversion reads.
fn wrap(v: i128, bits: u32, signed: bool) -> i128 {
    let m = 1i128 << bits;
    let u = v.rem_euclid(m);
    if signed && u >= m / 2 {
        u - m
    } else {
        u
    }
}

/// An integer conversion: sign or prefix, at least `precision` digits (none for a zero with
/// precision 0, except `%#o`'s `0`), padded to `width` with spaces or, for `0` without a
/// precision, zeros after the sign.
#[allow(clippy::too_many_arguments)]
fn integer(
    sign: &[u8],
    prefix: &[u8],
    v: u128,
    base: u32,
    upper: bool,
    precision: Option<usize>,
    width: usize,
    flags: &Flags,
) -> Vec<u8> {
    let mut digits: Vec<u8> = if v == 0 && precision == Some(0) {
        vec![]
    } else {
        let mut d = vec![];
        let mut x = v;
        loop {
            let r = (x % u128::from(base)) as u8;
            d.push(match r {
                0..=9 => b'0' + r,
                _ if upper => b'A' + r - 10,
                _ => b'a' + r - 10,
            });
            x /= u128::from(base);
            if x == 0 {
                break;
            }
        }
        d.reverse();
        d
    };
    if let Some(p) = precision {
        if digits.len() < p {
            let mut z = vec![b'0'; p - digits.len()];
            z.extend(digits);
            digits = z;
        }
    }
    // `%#o` makes the first digit a zero.
    if base == 8 && flags.alt && digits.first() != Some(&b'0') {
        digits.insert(0, b'0');
    }
    let len = sign.len() + prefix.len() + digits.len();
    let mut out = Vec::with_capacity(width.max(len));
    if flags.zero && !flags.left && precision.is_none() && width > len {
        out.extend_from_slice(sign);
        out.extend_from_slice(prefix);
        out.extend(std::iter::repeat_n(b'0', width - len));
        out.extend(digits);
        return out;
    }
    out.extend_from_slice(sign);
    out.extend_from_slice(prefix);
    out.extend(digits);
    pad(out, width, flags.left)
}

fn pad(text: Vec<u8>, width: usize, left: bool) -> Vec<u8> {
    if text.len() >= width {
        return text;
    }
    let fill = std::iter::repeat_n(b' ', width - text.len());
    if left {
        let mut t = text;
        t.extend(fill);
        t
    } else {
        let mut t: Vec<u8> = fill.collect();
        t.extend(text);
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One string, "hello", at address 1.
    fn hello(addr: Value, limit: Option<usize>) -> Result<Vec<u8>, RunError> {
        assert_eq!(addr, Value::Int(1));
        let s = b"hello";
        Ok(s[..limit.unwrap_or(s.len()).min(s.len())].to_vec())
    }

    fn r(fmt: &str, args: &[i128]) -> String {
        let vals: Vec<Value> = args.iter().map(|x| Value::Int(*x)).collect();
        let out = render(fmt.as_bytes(), &vals, &mut hello)
            .expect("reads")
            .expect("renders");
        String::from_utf8(out).expect("text")
    }

    /// Expected texts are what glibc's printf writes (`tests/native_witness.rs` also checks a
    /// witness's printed output against the compiled program).
    #[test]
    fn integer_conversions_as_glibc_writes_them() {
        assert_eq!(
            r("%d|%5d|%-5d|%05d|%+d|% d", &[-3, 42, 42, 42, 7, 7]),
            "-3|   42|42   |00042|+7| 7"
        );
        assert_eq!(
            r("%u|%x|%X|%#x|%#o|%o", &[-1, 255, 255, 255, 8, 0]),
            "4294967295|ff|FF|0xff|010|0"
        );
        assert_eq!(
            r("%.3d|%.0d|%8.3d|%-8.3x|", &[5, 0, -5, 10]),
            "005||    -005|00a     |"
        );
        assert_eq!(
            r("%hhd|%hu|%ld|%lu", &[255, 65537, -1, -1]),
            "-1|1|-1|18446744073709551615"
        );
        assert_eq!(r("%*d|%-*d|%.*d", &[4, 1, 3, 2, 2, 3]), "   1|2  |03");
        assert_eq!(r("%c%c|%5s|%.2s|%%", &[104, 105, 1, 1]), "hi|hello|he|%");
        assert_eq!(r("%#x|%#.0o", &[0, 0]), "0|0");
    }

    #[test]
    fn machine_dependent_conversions_are_refused() {
        for f in ["%f", "%p", "%n", "%Lf", "%g", "%"] {
            let res = render(f.as_bytes(), &[Value::Double(1.0)], &mut hello).expect("reads");
            assert!(
                matches!(res, Err(FormatError::Unsupported(_))),
                "{f}: {res:?}"
            );
        }
        assert_eq!(
            render(b"%d %d", &[Value::Int(1)], &mut hello).expect("reads"),
            Err(FormatError::MissingArgument)
        );
    }
}
