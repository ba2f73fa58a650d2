//! `<string.h>` (and `sprintf`/`snprintf`) for the interpreter.
//!
//! Takes a call's argument values; gives the result glibc gives on x86-64, reading and writing
//! the caller's memory through the byte-addressed store, so that a read past a buffer, of
//! uninitialized bytes or through a null pointer is an invalid access as AddressSanitizer
//! reports it natively. Comparisons return the difference of the first differing bytes (as
//! `unsigned char`), which is what glibc's x86-64 versions return. `memcmp`, `bcmp` and
//! `memrchr` read all `n` bytes of their arguments (AddressSanitizer checks the whole range of
//! `memcmp`); the string functions read up to the terminator or the byte that decides. Used by
//! `exec` for calls of functions the program does not define; the witness search depends on
//! these, since real code compares and copies strings on most paths.

use super::eval::{as_addr, norm};
use super::{Interp, RunError, Value};
use crate::ir::CType;

/// The functions [`Interp::string_call`] runs.
pub(super) const STRING_FUNCTIONS: &[&str] = &[
    "strlen",
    "strnlen",
    "strcmp",
    "strncmp",
    "strcasecmp",
    "strncasecmp",
    "memcmp",
    "bcmp",
    "strchr",
    "index",
    "strrchr",
    "rindex",
    "memchr",
    "memrchr",
    "strcpy",
    "stpcpy",
    "strncpy",
    "strcat",
    "strncat",
    "strspn",
    "strcspn",
    "strpbrk",
    "strstr",
    "sprintf",
    "snprintf",
];

/// How a comparison treats letters.
#[derive(Clone, Copy, PartialEq)]
enum Case {
    Exact,
    /// As `tolower` in the "C" locale.
    Fold,
}

impl Interp<'_> {
    /// The byte `k` bytes after address `s`.
    fn byte_at(&self, s: u64, k: u64) -> Result<u8, RunError> {
        let (a, _) = self
            .mem
            .ptr_add(s, i128::from(k))
            .map_err(|e| self.mem_err(e))?;
        Ok(self.mem.read_init(a, 1).map_err(|e| self.mem_err(e))?[0])
    }

    /// Write `bytes` at address `d`.
    fn put_bytes(&mut self, d: u64, bytes: &[u8]) -> Result<(), RunError> {
        if bytes.is_empty() {
            return Ok(());
        }
        self.big_op(bytes.len() as u64)?;
        self.mem
            .write(d, bytes, &vec![true; bytes.len()])
            .map_err(|e| self.mem_err(e))
    }

    /// `s + k` as a value of type `char *`.
    fn char_ptr(&self, s: u64, k: u64) -> Result<(Value, CType), RunError> {
        let (a, _) = self
            .mem
            .ptr_add(s, i128::from(k))
            .map_err(|e| self.mem_err(e))?;
        Ok((Value::Int(i128::from(a)), CType::Ptr(Box::new(CType::CHAR))))
    }

    /// Compare the strings at `s` and `t`, at most `n` bytes.
    fn compare(&self, s: u64, t: u64, n: Option<u64>, case: Case) -> Result<i128, RunError> {
        let fold = |b: u8| match case {
            Case::Fold => b.to_ascii_lowercase(),
            Case::Exact => b,
        };
        let mut k = 0;
        while n.is_none_or(|n| k < n) {
            let (x, y) = (fold(self.byte_at(s, k)?), fold(self.byte_at(t, k)?));
            if x != y || x == 0 {
                return Ok(i128::from(x) - i128::from(y));
            }
            k += 1;
        }
        Ok(0)
    }

    /// The index of the first byte of the string at `s` that is (`member`) or is not in the
    /// string at `set`, or its length.
    fn span(&self, s: u64, set: u64, member: bool) -> Result<u64, RunError> {
        let set = self.c_string(Value::Int(i128::from(set)), None)?;
        let mut k = 0;
        loop {
            let b = self.byte_at(s, k)?;
            if b == 0 || set.contains(&b) != member {
                return Ok(k);
            }
            k += 1;
        }
    }

    /// `name(vals)` for a name of [`STRING_FUNCTIONS`].
    pub(super) fn string_call(
        &mut self,
        name: &str,
        vals: &[Value],
    ) -> Result<(Value, CType), RunError> {
        let want = |n: usize| self.arity(name, vals, n);
        let addr = |i: usize| vals.get(i).map_or(0, |v| as_addr(*v));
        let size = |i: usize| match vals.get(i) {
            Some(Value::Int(x)) => norm(*x, 64, false) as u64,
            _ => 0,
        };
        // The character argument of `strchr` and friends, converted to `char`.
        let ch = |i: usize| match vals.get(i) {
            Some(Value::Int(x)) => *x as u8,
            _ => 0,
        };
        let int = |v: i128| Ok((Value::Int(v), CType::INT));
        let count = |v: u64| Ok((Value::Int(i128::from(v)), CType::ULONG));
        let null = || Ok((Value::Int(0), CType::Ptr(Box::new(CType::CHAR))));
        match name {
            "strlen" => {
                want(1)?;
                count(self.length(addr(0))?)
            }
            "strnlen" => {
                want(2)?;
                let (s, n) = (addr(0), size(1));
                let mut k = 0;
                while k < n && self.byte_at(s, k)? != 0 {
                    k += 1;
                }
                count(k)
            }
            "strcmp" => {
                want(2)?;
                int(self.compare(addr(0), addr(1), None, Case::Exact)?)
            }
            "strncmp" => {
                want(3)?;
                int(self.compare(addr(0), addr(1), Some(size(2)), Case::Exact)?)
            }
            "strcasecmp" => {
                want(2)?;
                int(self.compare(addr(0), addr(1), None, Case::Fold)?)
            }
            "strncasecmp" => {
                want(3)?;
                int(self.compare(addr(0), addr(1), Some(size(2)), Case::Fold)?)
            }
            "memcmp" | "bcmp" => {
                want(3)?;
                let n = size(2);
                if n == 0 {
                    return int(0);
                }
                self.big_op(n)?;
                let a = self
                    .mem
                    .read_init(addr(0), n)
                    .map_err(|e| self.mem_err(e))?
                    .to_vec();
                let b = self
                    .mem
                    .read_init(addr(1), n)
                    .map_err(|e| self.mem_err(e))?;
                let d = a
                    .iter()
                    .zip(b)
                    .find(|(x, y)| x != y)
                    .map_or(0, |(x, y)| i128::from(*x) - i128::from(*y));
                int(d)
            }
            "strchr" | "index" => {
                want(2)?;
                let (s, c) = (addr(0), ch(1));
                let mut k = 0;
                loop {
                    let b = self.byte_at(s, k)?;
                    if b == c {
                        return self.char_ptr(s, k);
                    }
                    if b == 0 {
                        return null();
                    }
                    k += 1;
                }
            }
            "strrchr" | "rindex" => {
                want(2)?;
                let (s, c) = (addr(0), ch(1));
                let (mut k, mut last) = (0, None);
                loop {
                    let b = self.byte_at(s, k)?;
                    if b == c {
                        last = Some(k);
                    }
                    if b == 0 {
                        break;
                    }
                    k += 1;
                }
                match last {
                    Some(k) => self.char_ptr(s, k),
                    None => null(),
                }
            }
            "memchr" => {
                want(3)?;
                let (s, c, n) = (addr(0), ch(1), size(2));
                for k in 0..n {
                    if self.byte_at(s, k)? == c {
                        return self.char_ptr(s, k);
                    }
                }
                null()
            }
            "memrchr" => {
                want(3)?;
                let (s, c, n) = (addr(0), ch(1), size(2));
                if n == 0 {
                    return null();
                }
                self.big_op(n)?;
                let b = self.mem.read_init(s, n).map_err(|e| self.mem_err(e))?;
                match b.iter().rposition(|&x| x == c) {
                    Some(k) => self.char_ptr(s, k as u64),
                    None => null(),
                }
            }
            "strcpy" | "stpcpy" => {
                want(2)?;
                let (d, s) = (addr(0), addr(1));
                let mut text = self.c_string(Value::Int(i128::from(s)), None)?;
                let n = text.len() as u64;
                text.push(0);
                self.put_bytes(d, &text)?;
                self.char_ptr(d, if name == "stpcpy" { n } else { 0 })
            }
            "strncpy" => {
                want(3)?;
                let (d, s, n) = (addr(0), addr(1), size(2));
                self.big_op(n)?;
                let mut text = self.c_string(Value::Int(i128::from(s)), Some(n as usize))?;
                text.resize(n as usize, 0);
                self.put_bytes(d, &text)?;
                self.char_ptr(d, 0)
            }
            "strcat" | "strncat" => {
                want(if name == "strcat" { 2 } else { 3 })?;
                let (d, s) = (addr(0), addr(1));
                let limit = (name == "strncat").then(|| size(2) as usize);
                let at = self.length(d)?;
                let mut text = self.c_string(Value::Int(i128::from(s)), limit)?;
                text.push(0);
                let (end, _) = self
                    .mem
                    .ptr_add(d, i128::from(at))
                    .map_err(|e| self.mem_err(e))?;
                self.put_bytes(end, &text)?;
                self.char_ptr(d, 0)
            }
            "strspn" => {
                want(2)?;
                count(self.span(addr(0), addr(1), true)?)
            }
            "strcspn" => {
                want(2)?;
                count(self.span(addr(0), addr(1), false)?)
            }
            "strpbrk" => {
                want(2)?;
                let k = self.span(addr(0), addr(1), false)?;
                match self.byte_at(addr(0), k)? {
                    0 => null(),
                    _ => self.char_ptr(addr(0), k),
                }
            }
            "strstr" => {
                want(2)?;
                let (h, needle) = (addr(0), self.c_string(vals[1], None)?);
                let hay = self.c_string(vals[0], None)?;
                match hay
                    .windows(needle.len().max(1))
                    .position(|w| w == &needle[..])
                {
                    _ if needle.is_empty() => self.char_ptr(h, 0),
                    Some(k) => self.char_ptr(h, k as u64),
                    None => null(),
                }
            }
            "sprintf" | "snprintf" => {
                let first = if name == "sprintf" { 1 } else { 2 };
                let Some(&fmt) = vals.get(first) else {
                    return self.unsupported(format!("`{name}` without a format"));
                };
                let text = self.c_string(fmt, None)?;
                let mut read = |v: Value, limit: Option<usize>| self.c_string(v, limit);
                let out = match super::format::render(&text, &vals[first + 1..], &mut read)? {
                    Ok(t) => t,
                    Err(super::format::FormatError::MissingArgument) => {
                        return self.ub(format!(
                            "`{name}` with fewer arguments than its format uses"
                        ))
                    }
                    Err(super::format::FormatError::Unsupported(what)) => {
                        return self.unsupported(format!("`{name}` with {what}"))
                    }
                };
                let d = addr(0);
                let written = if name == "sprintf" {
                    out.len() + 1
                } else {
                    (size(1) as usize).min(out.len() + 1)
                };
                if written > 0 {
                    let mut bytes = out[..written - 1].to_vec();
                    bytes.push(0);
                    self.put_bytes(d, &bytes)?;
                }
                int(out.len() as i128)
            }
            _ => self.unsupported(format!("`{name}` is no string function")),
        }
    }

    /// The length of the string at `s`.
    fn length(&self, s: u64) -> Result<u64, RunError> {
        let mut k = 0;
        while self.byte_at(s, k)? != 0 {
            k += 1;
        }
        Ok(k)
    }
}
