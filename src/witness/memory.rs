//! Memory inputs of a witness: buffers behind pointer parameters, aggregates passed by value,
//! and aliasing between pointer parameters.
//!
//! Takes a function's parameter types and both versions' code; gives how a witness sets each
//! parameter ([`Shape`]), candidate values for the search ([`Candidates`]: small buffers,
//! strings over an alphabet of the constants both versions compare against, struct fields from
//! a pool), their interpreter arguments ([`Input::arg`]) and their C text — `"ab\x80"` (a
//! NUL-terminated `char` buffer), `(char[2]){"ab"}` (one without the NUL), `(int[3]){1, 2, 3}`,
//! `(struct P){.a = 1, .b = 2}`, `NULL`, and the name of the parameter another one aliases.
//! Used by the search in `witness` and by `native`, which builds the same bytes in its harness.
//!
//! A buffer holds exactly the bytes given: the interpreter reports any access past them as
//! undefined behaviour, so a candidate that is too small is discarded, never mistaken for a
//! difference.

use crate::interp::{self, Arg, Link, Target, Value};
use crate::ir::{CType, Program};

/// How a witness sets one parameter.
#[derive(Clone, Debug, PartialEq)]
pub enum Shape {
    /// An arithmetic value, given as a C literal.
    Scalar(CType),
    /// A pointer to a caller-owned buffer of `elem`s (`void *` as bytes).
    Buffer { elem: CType, elem_size: u64 },
    /// A struct or union passed by value.
    Aggregate { ty: CType, size: u64 },
    /// A pointer to a struct whose definition the file does not have (a handle the function
    /// only passes on or compares): null, or [`Input::Opaque`].
    Opaque(CType),
}

impl Shape {
    /// The shape of a parameter of type `ty`; `None` when no witness can set it (pointers to
    /// pointers or functions, incomplete types).
    pub fn of(prog: &Program, ty: &CType) -> Option<Shape> {
        let complete = |t: &CType| match t {
            CType::Struct(s) => prog.structs[s.index()].complete && prog.size_of(t) > 0,
            _ => true,
        };
        Some(match ty {
            t if t.is_arith() => Shape::Scalar(t.clone()),
            CType::Ptr(p) => {
                let elem = match &**p {
                    CType::Void => CType::UCHAR,
                    // Slots for pointers the function stores (`char **end`), null at entry.
                    t if t.is_arith() || t.is_pointer() => t.clone(),
                    t @ CType::Struct(_) if complete(t) => t.clone(),
                    t @ CType::Struct(_) => return Some(Shape::Opaque(t.clone())),
                    _ => return None,
                };
                Shape::Buffer {
                    elem_size: prog.size_of(&elem),
                    elem,
                }
            }
            t @ CType::Struct(_) if complete(t) => Shape::Aggregate {
                ty: t.clone(),
                size: prog.size_of(t),
            },
            _ => return None,
        })
    }

    pub fn is_scalar(&self) -> bool {
        matches!(self, Shape::Scalar(_))
    }
}

/// The value a witness gives one parameter.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum Input {
    /// A C literal of an arithmetic type.
    Scalar(String),
    /// A null pointer.
    Null,
    /// A buffer holding exactly these bytes.
    Buffer(Vec<u8>),
    /// A buffer holding exactly these bytes at an address `offset` (1..=15) bytes past a
    /// 16-byte boundary (`s + 1` of an aligned array): word-at-a-time code takes other paths.
    Misaligned(Vec<u8>, u8),
    /// A struct or union's bytes.
    Aggregate(Vec<u8>),
    /// The same pointer as parameter `k` (an earlier [`Input::Buffer`]).
    SameAs(usize),
    /// A pointer `off` bytes into the buffer of parameter `k` (an earlier [`Input::Buffer`]):
    /// a cursor and its end, `f(p, p + 4)`.
    Within(usize, u64),
    /// A valid pointer to an object the witness does not know ([`Shape::Opaque`]): a run that
    /// accesses it is no test.
    Opaque,
    /// A buffer or aggregate whose pointer members (in its first element) point to fresh
    /// buffers, and pointer members of those to buffers of their own ([`Link`], at most
    /// [`LINK_DEPTH`] levels; the pointers inside the last level are null).
    Linked(Box<Input>, Vec<Link>),
}

impl Input {
    /// The bytes of a buffer input, aligned or not.
    pub fn buffer(&self) -> Option<&[u8]> {
        match self {
            Input::Buffer(b) | Input::Misaligned(b, _) => Some(b),
            Input::Linked(base, _) => base.buffer(),
            _ => None,
        }
    }

    /// How far past a 16-byte boundary a buffer input starts (0 for anything else).
    pub fn misalignment(&self) -> u8 {
        match self {
            Input::Misaligned(_, o) => *o,
            Input::Linked(base, _) => base.misalignment(),
            _ => 0,
        }
    }

    /// The interpreter argument; `None` when a scalar literal does not fit its type.
    pub fn arg(&self, shape: &Shape) -> Option<Arg> {
        Some(match (self, shape) {
            (Input::Scalar(s), Shape::Scalar(t)) => Arg::Scalar(interp::parse_arg(s, t).ok()?),
            (Input::Null, _) => Arg::Scalar(Value::Int(0)),
            (Input::Buffer(b), _) => Arg::Buffer(b.clone()),
            (Input::Misaligned(b, o), _) => Arg::Misaligned(b.clone(), *o),
            (Input::Aggregate(b), _) => Arg::Aggregate(b.clone()),
            (Input::SameAs(k), _) => Arg::SameAs(*k),
            (Input::Within(k, off), _) => Arg::Within(*k, *off),
            (Input::Opaque, Shape::Opaque(_)) => Arg::Opaque,
            (Input::Linked(base, links), _) => {
                Arg::Linked(Box::new(base.arg(shape)?), links.clone())
            }
            (Input::Scalar(_) | Input::Opaque, _) => return None,
        })
    }
}

/// A parameter as a witness sees it.
#[derive(Clone, Debug)]
pub struct Param {
    pub name: String,
    pub ty: CType,
    pub shape: Shape,
}

/// The C text of `input` for parameter `k` of `params`.
pub fn input_text(prog: &Program, params: &[Param], k: usize, input: &Input) -> String {
    match (input, &params[k].shape) {
        (Input::Scalar(s), _) => s.clone(),
        (Input::Null, _) => "NULL".into(),
        (Input::Opaque, _) => "a valid pointer (the object is never accessed)".into(),
        (Input::Buffer(b), Shape::Buffer { elem, .. }) => buffer_text(prog, elem, b),
        (Input::Misaligned(b, o), Shape::Buffer { elem, .. }) => {
            format!(
                "{} (at an address ≡ {o} mod 16)",
                buffer_text(prog, elem, b)
            )
        }
        (Input::Aggregate(b), Shape::Aggregate { ty, .. }) => {
            format!("({}){}", type_name(prog, ty), aggregate_text(prog, ty, b))
        }
        (Input::SameAs(j), _) => params.get(*j).map_or("?".into(), |p| p.name.clone()),
        (Input::Within(j, off), _) => {
            let Some(p) = params.get(*j) else {
                return "?".into();
            };
            let size = match &p.shape {
                Shape::Buffer { elem_size, .. } => (*elem_size).max(1),
                _ => 1,
            };
            match (off % size, off / size) {
                (_, 0) if *off == 0 => p.name.clone(),
                (0, n) => format!("{} + {n}", p.name),
                _ => format!("(char *){} + {off}", p.name),
            }
        }
        (Input::Linked(base, links), shape) => {
            // The base with its linked members non-null, then each member's buffer (its own
            // linked members shown as `non-null`).
            let mut marked = (**base).clone();
            if let Input::Buffer(b) | Input::Misaligned(b, _) | Input::Aggregate(b) = &mut marked {
                for l in links.iter().filter(|l| l.path.len() == 1) {
                    if let Some(x) = b.get_mut(l.path[0] as usize) {
                        *x = 1;
                    }
                }
            }
            let mut s = input_text(prog, params, k, &marked);
            let name = &params[k].name;
            for l in links {
                if let Some(f) = &l.func {
                    // Named by its access; what it returns is listed with the witness.
                    s.push_str(&format!(", {f} = a function of the witness"));
                    continue;
                }
                let Some((member, elem)) = link_target(prog, shape, name, &l.path) else {
                    continue;
                };
                // Into another link's buffer: `r->limit = r->ptr + 3`.
                if let Some((t, off)) = l.into {
                    let Some((into, e)) = links
                        .get(t)
                        .and_then(|t| link_target(prog, shape, name, &t.path))
                    else {
                        continue;
                    };
                    let size = prog.size_of(&e).max(1);
                    s.push_str(&match off {
                        0 => format!(", {member} = {into}"),
                        _ if off % size == 0 => format!(", {member} = {into} + {}", off / size),
                        _ => format!(", {member} = (char *){into} + {off}"),
                    });
                    continue;
                }
                let mut bytes = l.bytes.clone();
                for c in links
                    .iter()
                    .filter(|c| c.path.split_last().map(|x| x.1) == Some(&l.path[..]))
                {
                    if let Some(x) = c.path.last().and_then(|&o| bytes.get_mut(o as usize)) {
                        *x = 1;
                    }
                }
                s.push_str(&format!(
                    ", {member} = {}",
                    buffer_text(prog, &elem, &bytes)
                ));
            }
            s
        }
        (Input::Buffer(b) | Input::Misaligned(b, _) | Input::Aggregate(b), _) => {
            format!("{b:02x?}")
        }
    }
}

/// Most pointer members of one object a witness points at buffers.
const MAX_LINKS: usize = 16;

/// Most levels of [`Link`]s: `a->format` and `a->format->data`.
pub const LINK_DEPTH: usize = 2;

/// The C access (`a->format->data`) and element type of the buffer at link `path` of the
/// input `name` of `shape` ([`link_slots`] level by level); `None` if the path names no slot.
pub fn link_target(
    prog: &Program,
    shape: &Shape,
    name: &str,
    path: &[u64],
) -> Option<(String, CType)> {
    let mut shape = shape.clone();
    let mut access = name.to_string();
    let mut elem = None;
    for off in path {
        let (_, p, e) = link_slots(prog, &shape)
            .into_iter()
            .find(|(o, ..)| o == off)?;
        access = match (&shape, p.strip_prefix('.')) {
            (Shape::Buffer { .. }, Some(m)) => format!("{access}->{m}"),
            _ => format!("{access}{p}"),
        };
        shape = Shape::Buffer {
            elem_size: prog.size_of(&e),
            elem: e.clone(),
        };
        elem = Some(e);
    }
    Some((access, elem?))
}

/// The struct a `void *` member is taken to point to: the largest one the file converts a
/// `void *` to ([`Program::void_targets`]), so that any of the conversions reads inside it;
/// `None` when there is none (the member then points to bytes).
pub fn void_target(prog: &Program) -> Option<CType> {
    prog.void_targets
        .iter()
        .map(|s| CType::Struct(*s))
        .filter(|t| {
            matches!(
                Shape::of(prog, &CType::Ptr(Box::new(t.clone()))),
                Some(Shape::Buffer { .. })
            )
        })
        .filter(|t| prog.size_of(t) <= MAX_POINTEE_BYTES as u64)
        .max_by_key(|t| prog.size_of(t))
}

/// Largest buffer a link points to, in bytes.
const MAX_POINTEE_BYTES: usize = 1 << 16;

/// The pointers an input of `shape` can point at fresh buffers ([`Input::Linked`]): byte
/// offset, access path (`.a.p` of a struct, `[1]` of an array of pointers), and the buffer's
/// element type (for a `void *` member, see [`void_target`]). For a buffer of structs, the
/// members of its first element; for a buffer of pointers (`char **argv`), its first elements.
pub fn link_slots(prog: &Program, shape: &Shape) -> Vec<(u64, String, CType)> {
    let pointee = |t: &CType| match (t, Shape::of(prog, t)) {
        (CType::Ptr(p), Some(Shape::Buffer { .. })) if **p == CType::Void => {
            Some(void_target(prog).unwrap_or(CType::UCHAR))
        }
        (_, Some(Shape::Buffer { elem, .. })) => Some(elem),
        _ => None,
    };
    match shape {
        Shape::Buffer { elem, .. } | Shape::Aggregate { ty: elem, .. }
            if matches!(elem, CType::Struct(_)) =>
        {
            let mut out: Vec<(u64, String, CType)> = vec![];
            for (off, path, t) in pointer_members(prog, elem) {
                // Union members that share a place: the first one.
                if out.iter().all(|(o, ..)| *o != off) {
                    if let Some(e) = pointee(&t) {
                        out.push((off, path, e));
                    }
                }
            }
            out
        }
        Shape::Buffer { elem, elem_size } if elem.is_pointer() => match pointee(elem) {
            Some(e) => (0..POINTER_LINKS)
                .map(|k| (k * elem_size, format!("[{k}]"), e.clone()))
                .collect(),
            None => vec![],
        },
        _ => vec![],
    }
}

/// Elements of a buffer of pointers that can point at buffers ([`link_slots`]).
const POINTER_LINKS: u64 = 2;

/// The pointer members of struct `t` (in nested structs and unions too, and the first
/// elements of small arrays of pointers), in layout order: offset, access path, type. Not
/// [`crate::ir::scalar_leaves`]: large structs with unions and big arrays (libarchive's
/// `struct archive_read`) have pointer members worth linking too.
fn pointer_members(prog: &Program, t: &CType) -> Vec<(u64, String, CType)> {
    fn go(
        prog: &Program,
        t: &CType,
        path: String,
        off: u64,
        depth: usize,
        out: &mut Vec<(u64, String, CType)>,
    ) {
        if out.len() >= MAX_POINTER_MEMBERS {
            return;
        }
        match t {
            CType::Ptr(_) => out.push((off, path, t.clone())),
            CType::Array(e, Some(n)) if e.is_pointer() => {
                for k in 0..(*n).min(POINTER_LINKS) {
                    out.push((
                        off + k * prog.size_of(e),
                        format!("{path}[{k}]"),
                        (**e).clone(),
                    ));
                }
            }
            CType::Struct(s) if depth < 4 => {
                let Some(d) = prog.structs.get(s.index()).filter(|d| d.complete) else {
                    return;
                };
                for fl in &d.fields {
                    let p = if fl.name.is_empty() {
                        path.clone()
                    } else {
                        format!("{path}.{}", fl.name)
                    };
                    go(prog, &fl.ty, p, off + fl.offset, depth + 1, out);
                }
            }
            _ => {}
        }
    }
    let mut out = vec![];
    go(prog, t, String::new(), 0, 0, &mut out);
    out
}

/// Most pointer members [`pointer_members`] lists.
const MAX_POINTER_MEMBERS: usize = 4096;

/// Of `slots`, those whose member the code accesses ([`Alphabet::members`]), or all when it
/// accesses none of them (the pointer is passed on); at most [`MAX_LINKS`].
fn used_first(slots: Vec<(u64, String, CType)>, alpha: &Alphabet) -> Vec<(u64, String, CType)> {
    let used = |p: &str| {
        p.starts_with('[')
            || p.rsplit('.')
                .next()
                .is_some_and(|m| alpha.members.contains(m.split('[').next().unwrap_or(m)))
    };
    let (mut a, b): (Vec<_>, Vec<_>) = slots.into_iter().partition(|(_, p, _)| used(p));
    if a.is_empty() {
        a = b;
    }
    a.truncate(MAX_LINKS);
    a
}

/// The C name of `ty` for the reader (`char`, `unsigned long`, `struct P`).
pub fn type_name(prog: &Program, ty: &CType) -> String {
    if let Some(n) = crate::ir::arith_c_name(ty) {
        return n;
    }
    match ty {
        CType::Ptr(t) => format!("{} *", type_name(prog, t)),
        CType::Struct(s) => {
            let d = &prog.structs[s.index()];
            let kw = if d.is_union { "union" } else { "struct" };
            match &d.typedef_name {
                _ if !d.name.is_empty() => format!("{kw} {}", d.name),
                Some(t) => t.clone(),
                None => format!("{kw} <anonymous>"),
            }
        }
        other => format!("{other:?}"),
    }
}

/// String `s`, its terminator, and NUL bytes up to the end of the next 8-byte word.
fn word_padded(s: &[u8]) -> Vec<u8> {
    let mut b = s.to_vec();
    b.push(0);
    let len = b.len().div_ceil(8) * 8 + 8;
    b.resize(len, 0);
    b
}

pub(super) fn is_char(t: &CType) -> bool {
    matches!(t, CType::Int { bits: 8, .. })
}

/// A buffer of `elem`s as a C expression: a string literal for a `char` buffer whose only NUL
/// ends it, a compound literal otherwise.
pub fn buffer_text(prog: &Program, elem: &CType, bytes: &[u8]) -> String {
    let esize = prog.size_of(elem).max(1) as usize;
    let n = bytes.len() / esize;
    let ty = type_name(prog, elem);
    if is_char(elem) && n > 1 && bytes.iter().all(|&b| b == 0) {
        return format!("({ty}[{n}]){{0}}");
    }
    if is_char(elem) {
        let terminated = bytes.last() == Some(&0) && !bytes[..bytes.len() - 1].contains(&0);
        return if terminated && ty == "char" {
            string_literal(&bytes[..bytes.len() - 1])
        } else {
            format!("({ty}[{n}]){{{}}}", string_literal(bytes))
        };
    }
    // Trailing zero elements are left out, as C's initializers allow (`{0}` for all).
    let chunks: Vec<&[u8]> = bytes.chunks(esize).collect();
    let shown = chunks
        .iter()
        .rposition(|c| c.iter().any(|&b| b != 0))
        .map_or(0, |i| i + 1);
    if shown == 0 && n > 1 {
        return format!("({ty}[{n}]){{0}}");
    }
    let elems: Vec<String> = chunks[..shown.max(1).min(chunks.len())]
        .iter()
        .map(|c| element_text(prog, elem, c))
        .collect();
    format!("({ty}[{n}]){{{}}}", elems.join(", "))
}

/// The contents of a buffer after a call, as compared between the versions: a brace list of
/// its elements (a string literal for `char`s); `pointer` names a pointer element's target
/// (see [`pointer_text`]), given its address.
pub fn contents_text(
    prog: &Program,
    elem: &CType,
    bytes: &[u8],
    pointer: &dyn Fn(u64) -> String,
) -> String {
    if is_char(elem) {
        return string_literal(bytes);
    }
    if elem.is_pointer() {
        let elems: Vec<String> = bytes
            .chunks(8)
            .map(|c| {
                let mut raw = [0u8; 8];
                raw[..c.len()].copy_from_slice(c);
                pointer(u64::from_le_bytes(raw))
            })
            .collect();
        return format!("{{{}}}", elems.join(", "));
    }
    let esize = prog.size_of(elem).max(1) as usize;
    let elems: Vec<String> = bytes
        .chunks(esize)
        .map(|c| element_text(prog, elem, c))
        .collect();
    format!("{{{}}}", elems.join(", "))
}

fn element_text(prog: &Program, elem: &CType, bytes: &[u8]) -> String {
    match interp::scalar_from_bytes(elem, bytes) {
        // Inputs hold null pointers only.
        Some(Value::Int(0)) if elem.is_pointer() => "0".into(),
        Some(_) if elem.is_pointer() => "non-null".into(),
        Some(v) if elem.is_arith() => interp::format_value(&v, elem),
        _ => aggregate_text(prog, elem, bytes),
    }
}

/// A struct's bytes as a designated initializer. Pointer members show only whether they are
/// null (`0`, `non-null`): an address means nothing across two runs or processes, so the
/// interpreter and the native harness compare members so.
pub fn aggregate_text(prog: &Program, ty: &CType, bytes: &[u8]) -> String {
    let Some(leaves) = crate::ir::scalar_leaves(&prog.structs, ty, 256) else {
        return sparse_text(prog, ty, bytes);
    };
    let parts: Vec<String> = leaves
        .iter()
        .filter(|(path, _, _)| !crate::ir::through_unnamed(path))
        .map(|(path, off, t)| {
            let lo = *off as usize;
            let n = prog.size_of(t) as usize;
            let v = match bytes.get(lo..lo + n) {
                Some(b) if t.is_pointer() && b.iter().any(|&x| x != 0) => "non-null".into(),
                Some(_) if t.is_pointer() => "0".into(),
                Some(b) => interp::scalar_from_bytes(t, b).map_or_else(
                    || "?".into(),
                    |v| interp::format_value(&bitfield_value(prog, ty, *off, v), t),
                ),
                None => "?".into(),
            };
            format!("{path} = {v}")
        })
        .collect();
    format!("{{{}}}", parts.join(", "))
}

/// The value a bit-field whose slot is at byte `off` of a `ty` value holds (see
/// [`crate::ir::Field::bits`]); any other value as it is.
fn bitfield_value(prog: &Program, ty: &CType, off: u64, v: Value) -> Value {
    match (crate::ir::bitfield_at(&prog.structs, ty, off), v) {
        (Some((w, t)), Value::Int(x)) => Value::Int(crate::ir::bit_normalized_value(x, w, &t)),
        _ => v,
    }
}

/// A large struct's bytes (one with unions, or too many members to list) as a designated
/// initializer of its non-zero members only, as C reads one (`{.format = non-null}`; `{0}`
/// when all are zero); a union that is not all zero shows its bytes.
fn sparse_text(prog: &Program, ty: &CType, bytes: &[u8]) -> String {
    fn go(
        prog: &Program,
        t: &CType,
        path: String,
        off: usize,
        bytes: &[u8],
        out: &mut Vec<String>,
    ) {
        let size = prog.size_of(t) as usize;
        let Some(b) = bytes.get(off..off + size) else {
            return;
        };
        if b.iter().all(|&x| x == 0) || out.len() >= SPARSE_MEMBERS {
            return;
        }
        match t {
            t if t.is_pointer() => out.push(format!("{path} = non-null")),
            t if t.is_scalar() => out.push(format!(
                "{path} = {}",
                interp::scalar_from_bytes(t, b)
                    .map_or_else(|| "?".into(), |v| interp::format_value(&v, t))
            )),
            CType::Array(e, Some(n)) => {
                let es = prog.size_of(e) as usize;
                for k in 0..*n as usize {
                    go(prog, e, format!("{path}[{k}]"), off + k * es, bytes, out);
                }
            }
            CType::Struct(s)
                if prog
                    .structs
                    .get(s.index())
                    .is_some_and(|d| !d.is_union && d.complete) =>
            {
                for fl in &prog.structs[s.index()].fields {
                    if fl.name == crate::ir::UNNAMED_MEMBERS {
                        continue;
                    }
                    let p = if fl.name.is_empty() {
                        path.clone()
                    } else {
                        format!("{path}.{}", fl.name)
                    };
                    go(prog, &fl.ty, p, off + fl.offset as usize, bytes, out);
                }
            }
            _ => out.push(format!("{path} = {}", string_literal(b))),
        }
    }
    let mut out = vec![];
    go(prog, ty, String::new(), 0, bytes, &mut out);
    if out.is_empty() {
        return "{0}".into();
    }
    if out.len() >= SPARSE_MEMBERS {
        out.push("…".into());
    }
    format!("{{{}}}", out.join(", "))
}

/// Most members [`sparse_text`] lists.
const SPARSE_MEMBERS: usize = 64;

/// `bytes` as a C string literal (no NUL added). A hex escape followed by a hex digit ends the
/// literal and starts another, so the escape cannot swallow the digit.
pub fn string_literal(bytes: &[u8]) -> String {
    let mut s = String::from("\"");
    let mut after_hex = false;
    for &b in bytes {
        let c = b as char;
        if after_hex && c.is_ascii_hexdigit() {
            s.push_str("\" \"");
        }
        after_hex = false;
        match b {
            b'"' => s.push_str("\\\""),
            b'\\' => s.push_str("\\\\"),
            b'\n' => s.push_str("\\n"),
            b'\t' => s.push_str("\\t"),
            0x20..=0x7e => s.push(c),
            _ => {
                s.push_str(&format!("\\x{b:02x}"));
                after_hex = true;
            }
        }
    }
    s.push('"');
    s
}

/// The parameter whose buffer `k`'s pointer is (itself, or the one it aliases).
fn owner(inputs: &[Input], k: usize) -> usize {
    match inputs.get(k) {
        Some(Input::SameAs(j) | Input::Within(j, _)) => *j,
        _ => k,
    }
}

/// A pointer the call gave back, as both versions can name it: `0`, `p`, `p + 2`,
/// `(char *)p + 3`, `&f`, or `non-null` for anything else (an address of the interpreter's
/// own, which means nothing across two versions).
pub fn pointer_text(params: &[Param], inputs: &[Input], t: &Target) -> String {
    match t {
        Target::Null => "0".into(),
        Target::Function(f) => format!("&{f}"),
        Target::Other => "non-null".into(),
        Target::External { name, off: 0 } => format!("{name}()"),
        Target::External { name, off } => format!("(char *){name}() + {off}"),
        Target::Input { arg, off } => {
            let k = owner(inputs, *arg);
            let Some(p) = params.get(k) else {
                return "non-null".into();
            };
            let esize = match &p.shape {
                Shape::Buffer { elem_size, .. } => (*elem_size).max(1),
                _ => 1,
            };
            match (off % esize, off / esize) {
                (0, 0) => p.name.clone(),
                (0, e) => format!("{} + {e}", p.name),
                _ => format!("(char *){} + {off}", p.name),
            }
        }
    }
}

/// Constants of both versions' code, as values worth putting in inputs.
#[derive(Clone, Debug, Default)]
pub struct Alphabet {
    /// Integers (with their neighbours), small ones first.
    pub ints: Vec<i128>,
    /// Bytes for strings: the code's character constants, then letters and edge bytes.
    pub bytes: Vec<u8>,
    /// Names of the struct members the code accesses: the pointer members among them are
    /// the ones worth pointing at buffers ([`link_slots`]).
    pub members: std::collections::BTreeSet<String>,
    /// The string literals of the code (without their terminator): what `strcmp`/`memcmp`
    /// compare inputs against.
    pub strings: Vec<Vec<u8>>,
}

impl Alphabet {
    pub fn new(constants: impl IntoIterator<Item = i128>) -> Alphabet {
        let mut ints: Vec<i128> = vec![0, 1, -1, 2, 3, 4, 7, 8, 16, 100, 127, 128, 255, -128];
        let mut bytes: Vec<u8> = vec![];
        let mut code_bytes = vec![];
        for c in constants {
            for x in [c, c - 1, c + 1] {
                if x.abs() <= 1 << 31 && !ints.contains(&x) {
                    ints.push(x);
                }
            }
            if (1..=255).contains(&c) {
                code_bytes.push(c as u8);
            } else if (-128..0).contains(&c) {
                code_bytes.push(c as i8 as u8);
            }
        }
        for b in code_bytes
            .into_iter()
            .chain([b'a', b'b', b'A', b'0', b' ', 0x80, 0xff, 0x01, b'\n', b'z'])
        {
            if b != 0 && !bytes.contains(&b) {
                bytes.push(b);
            }
        }
        Alphabet {
            ints,
            bytes,
            members: Default::default(),
            strings: vec![],
        }
    }

    /// This alphabet, with these string literals of the code (at most [`MAX_STRINGS`]).
    pub fn with_strings(mut self, strings: impl IntoIterator<Item = Vec<u8>>) -> Alphabet {
        for mut s in strings {
            if s.last() == Some(&0) {
                s.pop();
            }
            if !s.is_empty() && !self.strings.contains(&s) && self.strings.len() < MAX_STRINGS {
                self.strings.push(s);
            }
        }
        self
    }

    /// This alphabet, knowing the code accesses these members.
    pub fn with_members(mut self, names: impl IntoIterator<Item = String>) -> Alphabet {
        self.members.extend(names);
        self
    }
}

/// Most string literals an [`Alphabet`] keeps.
const MAX_STRINGS: usize = 64;

/// Bytes of `elem` holding `v` (every scalar leaf of a struct set to `v`, plus its leaf index
/// when `step` is set, so fields differ; pointer leaves null).
fn element_bytes(prog: &Program, elem: &CType, v: i128, step: bool) -> Vec<u8> {
    let size = prog.size_of(elem) as usize;
    let scalar = |t: &CType, v: i128| -> Vec<u8> {
        let val = match t {
            CType::Float => Value::Float(v as f32),
            CType::Double => Value::Double(v as f64),
            CType::Bool => Value::Int(i128::from(v != 0)),
            CType::Ptr(_) => Value::Int(0),
            _ => Value::Int(v),
        };
        interp::scalar_bytes(t, val, prog.size_of(t) as usize)
    };
    if elem.is_scalar() {
        return scalar(elem, v);
    }
    let mut out = vec![0u8; size];
    if let Some(leaves) = crate::ir::scalar_leaves(&prog.structs, elem, 256) {
        for (i, (_, off, t)) in leaves.iter().enumerate() {
            let x = if step { v + i as i128 } else { v };
            let b = scalar(t, x);
            let lo = *off as usize;
            if let Some(dst) = out.get_mut(lo..lo + b.len()) {
                dst.copy_from_slice(&b);
            }
        }
    }
    out
}

fn buffer_of(prog: &Program, elem: &CType, vals: &[i128], step: bool) -> Vec<u8> {
    vals.iter()
        .flat_map(|&v| element_bytes(prog, elem, v, step))
        .collect()
}

/// Candidate values of every non-scalar parameter, tried in order by the search.
pub struct Candidates {
    pub per_param: Vec<Vec<Input>>,
}

impl Candidates {
    pub fn new(prog: &Program, params: &[Param], alpha: &Alphabet) -> Candidates {
        let per_param = params
            .iter()
            .enumerate()
            .map(|(k, p)| candidates(prog, params, k, &p.shape, alpha))
            .collect();
        Candidates { per_param }
    }
}

fn candidates(
    prog: &Program,
    params: &[Param],
    k: usize,
    shape: &Shape,
    alpha: &Alphabet,
) -> Vec<Input> {
    let mut out = vec![];
    match shape {
        Shape::Scalar(_) | Shape::Opaque(_) => {}
        // Slots for pointers the function stores: one or two, null at entry.
        Shape::Buffer { elem_size, elem } if elem.is_pointer() => {
            out.push(Input::Buffer(vec![0; *elem_size as usize]));
            out.push(Input::Buffer(vec![0; 2 * *elem_size as usize]));
        }
        Shape::Buffer { elem, .. } if is_char(elem) => {
            let mut strings: Vec<Vec<u8>> = vec![
                b"ab".to_vec(),
                b"".to_vec(),
                b"a".to_vec(),
                b"abc".to_vec(),
                b"aa".to_vec(),
                b"ba".to_vec(),
                vec![0x80],
                b"a\x80".to_vec(),
                vec![0xff],
                b"A".to_vec(),
                b"aB".to_vec(),
                b"abcdefgh".to_vec(),
            ];
            for &c in alpha.bytes.iter().take(12) {
                strings.extend([vec![c], vec![b'a', c], vec![c, b'a'], vec![c, c]]);
            }
            let padded: Vec<Vec<u8>> = strings.iter().take(12).map(|s| word_padded(s)).collect();
            for s in strings {
                let mut b = s.clone();
                b.push(0);
                out.push(Input::Buffer(b));
            }
            // The same strings in buffers that end on a word boundary past the terminator:
            // code that reads a word at a time reads the whole word holding the NUL, past the
            // end of an exact buffer, but inside these.
            out.extend(padded.into_iter().map(Input::Buffer));
            // Without a terminator, and with bytes after it.
            out.push(Input::Buffer(b"ab".to_vec()));
            out.push(Input::Buffer(b"a\0b\0".to_vec()));
            out.push(Input::Buffer(b"\0a\0".to_vec()));
        }
        Shape::Buffer { elem, .. } => {
            let mut lists: Vec<Vec<i128>> = vec![
                vec![1, 2, 3, 4],
                vec![0],
                vec![1],
                vec![-1],
                vec![1, 2],
                vec![2, 1],
                vec![0, 0],
                vec![1, 1],
                vec![1, 2, 3],
                vec![3, 2, 1],
                vec![0, 1, 2, 3, 4, 5, 6, 7],
                vec![-1, 1, -2, 2],
            ];
            for &c in alpha.ints.iter().skip(14).take(10) {
                lists.extend([vec![c], vec![c, c], vec![1, c]]);
            }
            for (i, l) in lists.into_iter().enumerate() {
                out.push(Input::Buffer(buffer_of(prog, elem, &l, i % 2 == 0)));
            }
            // A struct with every field the same small number: a field compared with a small
            // bound (`len <= 4`) meets it while the others stay harmless.
            if let CType::Struct(_) = elem {
                for &c in alpha.ints.iter().take(14).skip(3) {
                    out.push(Input::Buffer(element_bytes(prog, elem, c, false)));
                }
            }
        }
        Shape::Aggregate { ty, .. } => {
            for (v, step) in [(1, true), (0, false), (1, false), (-1, true), (2, true)] {
                out.push(Input::Aggregate(element_bytes(prog, ty, v, step)));
            }
            for &c in alpha.ints.iter().skip(14).take(6) {
                out.push(Input::Aggregate(element_bytes(prog, ty, c, false)));
            }
            for &c in alpha.ints.iter().take(14).skip(3) {
                out.push(Input::Aggregate(element_bytes(prog, ty, c, false)));
            }
        }
    }
    // Objects whose pointer members point to buffers come first: code that follows a member
    // (`s->buf[i]`, `sess->handles[v]`) gets past its null checks only with them, and the
    // later strategies run with the first candidate.
    let slots = used_first(link_slots(prog, shape), alpha);
    let called = !function_slots(prog, shape, alpha).is_empty();
    if !slots.is_empty() || called {
        let mut linked = vec![];
        match shape {
            // Arrays of pointers (`argv`): one and two elements pointing at buffers, then a
            // null one; after the null slots above (out-parameters such as `char **end`).
            Shape::Buffer { elem_size, elem } if elem.is_pointer() => {
                for n in 1..=slots.len() {
                    for small in [true, false] {
                        let links = links_of(prog, &slots[..n], small, alpha);
                        let base = Input::Buffer(vec![0; (n + 1) * *elem_size as usize]);
                        linked.push(Input::Linked(Box::new(base), links));
                    }
                }
                out.extend(linked);
            }
            // Objects whose pointer members point to buffers come first: code that follows
            // a member (`s->buf[i]`, `sess->handles[v]`) gets past its null checks only with
            // them, and the later strategies run with the first candidate.
            _ => {
                let name = &params[k].name;
                for base in out.iter().take(3) {
                    for small in [true, false] {
                        let mut links = links_of(prog, &slots, small, alpha);
                        let stubs = function_links(prog, shape, name, &links, alpha);
                        links.extend(stubs);
                        linked.push(Input::Linked(Box::new(base.clone()), links));
                    }
                }
                linked.append(&mut out);
                out = linked;
            }
        }
    }
    if let Shape::Buffer { elem_size, .. } = shape {
        // The same buffer as an earlier pointer parameter of the same element size.
        for (j, q) in params[..k].iter().enumerate() {
            if matches!(&q.shape, Shape::Buffer { elem_size: s, .. } if s == elem_size) {
                out.push(Input::SameAs(j));
            }
        }
        out.push(Input::Null);
    }
    if let Shape::Opaque(_) = shape {
        out.extend([Input::Opaque, Input::Null]);
    }
    out
}

/// The function-pointer members of an input of `shape` that the code accesses (by name), as
/// byte offset and access path (`.procs.alloc`).
fn function_slots(prog: &Program, shape: &Shape, alpha: &Alphabet) -> Vec<(u64, String)> {
    let elem = match shape {
        Shape::Buffer { elem, .. } | Shape::Aggregate { ty: elem, .. } => elem,
        _ => return vec![],
    };
    if !matches!(elem, CType::Struct(_)) {
        return vec![];
    }
    pointer_members(prog, elem)
        .into_iter()
        .filter(|(_, p, t)| {
            matches!(t.pointee(), Some(CType::Func(_)))
                && p.rsplit('.')
                    .next()
                    .is_some_and(|m| alpha.members.contains(m))
        })
        .map(|(off, p, _)| (off, p))
        .take(MAX_LINKS)
        .collect()
}

/// Function-pointer members pointed at stubs ([`Link::function`], named by their access:
/// `m->procs.alloc`), in the input's object and in the struct buffers of its first-level
/// `links`: code that calls through them (a vtable of allocators or readers) gets past the
/// call only with them, and what each returns is the world's, as for a function the file
/// does not define.
fn function_links(
    prog: &Program,
    shape: &Shape,
    name: &str,
    links: &[Link],
    alpha: &Alphabet,
) -> Vec<Link> {
    let sep = match shape {
        Shape::Buffer { .. } => "->",
        _ => ".",
    };
    let mut out: Vec<Link> = function_slots(prog, shape, alpha)
        .into_iter()
        .map(|(off, p)| Link::function(vec![off], format!("{name}{sep}{}", &p[1..])))
        .collect();
    for l in links
        .iter()
        .filter(|l| l.path.len() == 1 && l.into.is_none())
    {
        let Some((access, e)) = link_target(prog, shape, name, &l.path) else {
            continue;
        };
        let inner = Shape::Buffer {
            elem_size: prog.size_of(&e),
            elem: e,
        };
        for (off, p) in function_slots(prog, &inner, alpha) {
            out.push(Link::function(
                vec![l.path[0], off],
                format!("{access}->{}", &p[1..]),
            ));
        }
    }
    out
}

/// Links for `slots` (of an input's object) and, a level down, for the pointer members of
/// the structs they point to ([`LINK_DEPTH`]), parents first; contents by [`pointee_bytes`].
fn links_of(
    prog: &Program,
    slots: &[(u64, String, CType)],
    small: bool,
    alpha: &Alphabet,
) -> Vec<Link> {
    let mut links: Vec<Link> = slots
        .iter()
        .map(|(off, _, elem)| Link::fresh(vec![*off], pointee_bytes(prog, elem, small)))
        .collect();
    for (off, _, elem) in slots {
        if !matches!(elem, CType::Struct(_)) || LINK_DEPTH < 2 {
            continue;
        }
        let inner = Shape::Buffer {
            elem: elem.clone(),
            elem_size: prog.size_of(elem),
        };
        for (o, _, e) in used_first(link_slots(prog, &inner), alpha) {
            if links.len() >= 2 * MAX_LINKS {
                return links;
            }
            links.push(Link::fresh(vec![*off, o], pointee_bytes(prog, &e, small)));
        }
    }
    links
}

/// The contents of a buffer a pointer member points to: a short string, a few distinct
/// elements (`small`), or sixteen zero elements (null pointers, zero counts); one element
/// where sixteen would pass [`MAX_POINTEE_BYTES`] (a `void *` member's large struct).
fn pointee_bytes(prog: &Program, elem: &CType, small: bool) -> Vec<u8> {
    let size = prog.size_of(elem).max(1) as usize;
    match (small, is_char(elem)) {
        (true, true) => b"ab\0".to_vec(),
        (true, false) if !elem.is_pointer() && 4 * size <= MAX_POINTEE_BYTES => {
            buffer_of(prog, elem, &[1, 2, 3, 4], true)
        }
        (true, false) if !elem.is_pointer() => element_bytes(prog, elem, 1, true),
        _ if 16 * size <= MAX_POINTEE_BYTES => vec![0; 16 * size],
        _ => vec![0; size],
    }
}

/// A pseudo-random input for a non-scalar parameter (`rnd` yields fresh 64-bit values).
pub fn random_input(
    prog: &Program,
    k: usize,
    params: &[Param],
    alpha: &Alphabet,
    rnd: &mut impl FnMut() -> u64,
) -> Option<Input> {
    let pick = |rnd: &mut dyn FnMut() -> u64, xs: &[i128]| xs[(rnd() % xs.len() as u64) as usize];
    Some(match &params[k].shape {
        Shape::Scalar(_) => return None,
        Shape::Opaque(_) if rnd().is_multiple_of(4) => Input::Null,
        Shape::Opaque(_) => Input::Opaque,
        Shape::Buffer { elem_size, .. }
            if rnd().is_multiple_of(8)
                && params[..k].iter().any(
                    |q| matches!(&q.shape, Shape::Buffer { elem_size: s, .. } if s == elem_size),
                ) =>
        {
            let js: Vec<usize> = (0..k)
                .filter(|&j| {
                    matches!(&params[j].shape, Shape::Buffer { elem_size: s, .. } if s == elem_size)
                })
                .collect();
            Input::SameAs(js[(rnd() % js.len() as u64) as usize])
        }
        Shape::Buffer { elem, .. } if is_char(elem) => {
            let len = (rnd() % 9) as usize;
            let mut b: Vec<u8> = (0..len)
                .map(|_| match rnd() % 4 {
                    0 => (rnd() % 255 + 1) as u8,
                    _ => alpha.bytes[(rnd() % alpha.bytes.len() as u64) as usize],
                })
                .collect();
            if !rnd().is_multiple_of(4) {
                b.push(0);
            }
            if b.is_empty() {
                b.push(0);
            }
            if rnd().is_multiple_of(3) && b.last() == Some(&0) {
                b.pop();
                b = word_padded(&b);
            }
            // Now and then at an odd address: word-at-a-time code handles a misaligned head
            // byte by byte, or two strings of different alignments on another path.
            if rnd().is_multiple_of(6) {
                Input::Misaligned(b, (1 + rnd() % 7) as u8)
            } else {
                Input::Buffer(b)
            }
        }
        Shape::Buffer { elem, elem_size } if elem.is_pointer() => {
            Input::Buffer(vec![0; *elem_size as usize * (1 + (rnd() % 2) as usize)])
        }
        Shape::Buffer { elem, .. } => {
            let len = 1 + (rnd() % 8) as usize;
            let vals: Vec<i128> = (0..len).map(|_| pick(rnd, &alpha.ints)).collect();
            Input::Buffer(buffer_of(prog, elem, &vals, false))
        }
        Shape::Aggregate { ty, .. } => {
            let mut b = element_bytes(prog, ty, 0, false);
            if let Some(leaves) = crate::ir::scalar_leaves(&prog.structs, ty, 256) {
                for (_, off, t) in leaves {
                    let x = element_bytes(prog, &t, pick(rnd, &alpha.ints), false);
                    let lo = off as usize;
                    if let Some(dst) = b.get_mut(lo..lo + x.len()) {
                        dst.copy_from_slice(&x);
                    }
                }
            }
            Input::Aggregate(b)
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn string_literals_escape_and_split_after_hex_escapes() {
        assert_eq!(string_literal(b"ab\x80"), r#""ab\x80""#);
        assert_eq!(string_literal(b"\x80a"), r#""\x80" "a""#);
        assert_eq!(string_literal(b"\x80z\"\\"), r#""\x80z\"\\""#);
        assert_eq!(string_literal(b"a\0"), r#""a\x00""#);
    }

    #[test]
    fn buffers_are_exactly_their_bytes_in_the_interpreter() {
        use crate::interp::{Interp, RunError};
        let p = crate::witness::testutil::pair(
            "char *f(char *s, int *q, int n) { q[0] = n; return s + n; }\n",
            "char *f(char *s, int *q, int n) { q[0] = n; return s + n; }\n",
            "f",
        );
        let mut it = Interp::new(&p.old);
        let args = |n: i128| {
            vec![
                Arg::Buffer(b"ab\0".to_vec()),
                Arg::Buffer(vec![9; 8]),
                Arg::Scalar(Value::Int(n)),
            ]
        };
        let out = it.call_args("f", &args(2)).expect("in bounds");
        let Some(Value::Int(r)) = out.ret else {
            panic!("{out:?}")
        };
        assert_eq!(it.target(r as u64), Target::Input { arg: 0, off: 2 });
        assert_eq!(it.input_bytes(1), Some(vec![2, 0, 0, 0, 9, 9, 9, 9]));
        // One past the end is a valid pointer; two past is not.
        assert!(it.call_args("f", &args(3)).is_ok());
        let e = it.call_args("f", &args(4)).expect_err("out of bounds");
        assert!(
            matches!(&e, RunError::Ub { msg, .. } if msg.contains("the buffer `s` points to")),
            "{e:?}"
        );
        // Aliasing: both parameters are one buffer.
        let alias = vec![
            Arg::Buffer(vec![0; 4]),
            Arg::SameAs(0),
            Arg::Scalar(Value::Int(1)),
        ];
        it.call_args("f", &alias).expect("aliased");
        assert_eq!(it.input_bytes(0), Some(vec![1, 0, 0, 0]));
        // A scalar where a buffer is needed is an error, not a guess.
        let bad = vec![
            Arg::Buffer(vec![0; 4]),
            Arg::Aggregate(vec![0; 4]),
            Arg::Scalar(Value::Int(0)),
        ];
        assert!(matches!(it.call_args("f", &bad), Err(RunError::BadArgs(_))));
    }

    #[test]
    fn texts_are_c_expressions() {
        let p = crate::witness::testutil::pair(
            "typedef struct { int a; char c; } T;\nint f(T t, int *v, const char *s) { return t.a; }\n",
            "typedef struct { int a; char c; } T;\nint f(T t, int *v, const char *s) { return t.a; }\n",
            "f",
        );
        let prog = &p.old.program;
        let f = p.old.function("f").expect("f");
        let params = crate::witness::witness_params(prog, f).expect("params");
        let t = Input::Aggregate(element_bytes(prog, &params[0].ty, 1, true));
        assert_eq!(input_text(prog, &params, 0, &t), "(T){.a = 1, .c = 2}");
        let v = Input::Buffer(buffer_of(prog, &CType::INT, &[1, -2], false));
        assert_eq!(input_text(prog, &params, 1, &v), "(int[2]){1, -2}");
        let s = Input::Buffer(b"a\x80\0".to_vec());
        assert_eq!(input_text(prog, &params, 2, &s), r#""a\x80""#);
        let raw = Input::Buffer(b"ab".to_vec());
        assert_eq!(input_text(prog, &params, 2, &raw), r#"(char[2]){"ab"}"#);
        assert_eq!(input_text(prog, &params, 2, &Input::SameAs(1)), "v");
        assert_eq!(input_text(prog, &params, 2, &Input::Null), "NULL");
        let at = |arg, off| pointer_text(&params, &[], &Target::Input { arg, off });
        assert_eq!(at(1, 0), "v");
        assert_eq!(at(1, 8), "v + 2");
        assert_eq!(at(1, 6), "(char *)v + 6");
    }

    #[test]
    fn alphabet_starts_with_the_codes_characters() {
        let a = Alphabet::new([i128::from(b'/'), -1, 1 << 40]);
        assert_eq!(a.bytes[0], b'/');
        assert!(a.bytes.contains(&0xff) && !a.bytes.contains(&0));
        assert!(a.ints.contains(&46) && a.ints.contains(&48));
        assert!(!a.ints.contains(&(1 << 40)));
    }
}
