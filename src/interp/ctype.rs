//! `<ctype.h>` for the interpreter: character classes and case mapping in the "C" locale.
//!
//! Takes the name of a classification or case function and its argument; gives its result as
//! glibc computes it in the "C" locale, which a native witness runs in (its harness never calls
//! `setlocale`). glibc's classifiers return the bit of their class in the locale's table
//! (`isprint('a')` is 16384), not 1, so a program that returns or stores the result sees that
//! value: the same bits here. The argument must be `EOF` or a value of `unsigned char`; glibc's
//! tables also answer for -128..-2 (signed `char`s, no class in the "C" locale); anything
//! else indexes outside them, which is undefined behaviour.

/// glibc's class bits (`_ISbit` on a little-endian machine).
const UPPER: i128 = 1 << 8;
const LOWER: i128 = 1 << 9;
const ALPHA: i128 = 1 << 10;
const DIGIT: i128 = 1 << 11;
const XDIGIT: i128 = 1 << 12;
const SPACE: i128 = 1 << 13;
const PRINT: i128 = 1 << 14;
const GRAPH: i128 = 1 << 15;
const BLANK: i128 = 1;
const CNTRL: i128 = 2;
const PUNCT: i128 = 4;
const ALNUM: i128 = 8;

/// Whether `name` is a function of this module.
pub(super) fn knows(name: &str) -> bool {
    mask(name).is_some() || matches!(name, "tolower" | "toupper" | "isascii" | "toascii")
}

/// `name(c)`: `Ok(value)`, or `Err` with the reason when the call is undefined.
pub(super) fn call(name: &str, c: i128) -> Result<i128, String> {
    match name {
        // Defined on every `int` (glibc: a bit test and a mask).
        "isascii" => return Ok(i128::from(c & !0x7f == 0)),
        "toascii" => return Ok(c & 0x7f),
        _ => {}
    }
    if !(-128..=255).contains(&c) {
        return Err(format!(
            "`{name}` of {c}, neither EOF nor an `unsigned char` value"
        ));
    }
    // The "C" locale: only ASCII has classes and cases; -128..-1 (EOF included) have no
    // class, and glibc's case tables map -128..-2 to the `unsigned char` of the same bits.
    let b = u8::try_from(c).ok().filter(u8::is_ascii);
    let unsigned = if c < -1 { c + 256 } else { c };
    Ok(match name {
        "tolower" => b.map_or(unsigned, |b| i128::from(b.to_ascii_lowercase())),
        "toupper" => b.map_or(unsigned, |b| i128::from(b.to_ascii_uppercase())),
        _ => b.map_or(0, classes) & mask(name).unwrap_or(0),
    })
}

/// The class bit `name` tests.
fn mask(name: &str) -> Option<i128> {
    Some(match name {
        "isupper" => UPPER,
        "islower" => LOWER,
        "isalpha" => ALPHA,
        "isdigit" => DIGIT,
        "isxdigit" => XDIGIT,
        "isspace" => SPACE,
        "isprint" => PRINT,
        "isgraph" => GRAPH,
        "isblank" => BLANK,
        "iscntrl" => CNTRL,
        "ispunct" => PUNCT,
        "isalnum" => ALNUM,
        _ => return None,
    })
}

/// Every class bit of an ASCII byte in the "C" locale.
fn classes(b: u8) -> i128 {
    let mut m = 0;
    let mut set = |on: bool, bit: i128| {
        if on {
            m |= bit;
        }
    };
    set(b.is_ascii_uppercase(), UPPER);
    set(b.is_ascii_lowercase(), LOWER);
    set(b.is_ascii_alphabetic(), ALPHA);
    set(b.is_ascii_digit(), DIGIT);
    set(b.is_ascii_hexdigit(), XDIGIT);
    // Space, \t, \n, \v, \f, \r (Rust's `is_ascii_whitespace` leaves out \v).
    set(matches!(b, b' ' | b'\t'..=b'\r'), SPACE);
    set((0x20..0x7f).contains(&b), PRINT);
    set(b.is_ascii_graphic(), GRAPH);
    set(b == b' ' || b == b'\t', BLANK);
    set(b.is_ascii_control(), CNTRL);
    set(b.is_ascii_punctuation(), PUNCT);
    set(b.is_ascii_alphanumeric(), ALNUM);
    m
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Against gcc and glibc: every class and case function on every argument glibc's tables
    /// answer for, in one program whose output must match this module's line for line.
    #[test]
    fn matches_glibc_in_the_c_locale() {
        let names = [
            "isalnum", "isalpha", "iscntrl", "isdigit", "isgraph", "islower", "isprint", "ispunct",
            "isspace", "isupper", "isxdigit", "isblank", "tolower", "toupper", "isascii",
            "toascii",
        ];
        let mut src = String::from("#include <ctype.h>\n#include <stdio.h>\nint main(void) {\n  int c;\n  for (c = -128; c < 256; c++) {\n");
        for n in names {
            src.push_str(&format!("    printf(\"%d \", {n}(c));\n"));
        }
        src.push_str("    printf(\"\\n\");\n  }\n  return 0;\n}\n");
        let dir = tempfile::tempdir().unwrap();
        let (c, exe) = (dir.path().join("t.c"), dir.path().join("t"));
        std::fs::write(&c, src).unwrap();
        let st = std::process::Command::new("gcc")
            .args(["-O0", "-o"])
            .arg(&exe)
            .arg(&c)
            .status()
            .expect("gcc runs");
        assert!(st.success());
        let out = std::process::Command::new(&exe).output().unwrap();
        let native = String::from_utf8(out.stdout).unwrap();
        let mut ours = String::new();
        for c in -128..256 {
            for n in names {
                assert!(knows(n));
                ours.push_str(&format!("{} ", call(n, c).unwrap()));
            }
            ours.push('\n');
        }
        assert_eq!(ours, native);
        assert!(call("isprint", 256).is_err() && call("toupper", -129).is_err());
        assert!(!knows("strlen"));
    }
}
