//! Inputs of `f`: boundary, small and random values for every parameter.
//!
//! Takes a program and an RNG (or dizy's literals for a witness); gives [`Input`]s, one [`Val`]
//! per parameter, deterministic in the RNG: plain values, out-parameters, buffers with their
//! lengths, strings and pointers that may alias. Also their display (`name = value`) and their
//! encoding as a line the harness reads.

use std::fmt::Write as _;

use super::literals::{parse_float, parse_literal};
use crate::ast::*;
use crate::gen::Rng;

/// The value of one argument (or of a part of one).
#[derive(Clone, Debug, PartialEq)]
pub enum Val {
    I(i128),
    F(f64),
    /// Raw bytes (a union).
    Bytes(Vec<u8>),
    /// A struct: fields sorted by name.
    Fields(Vec<(String, Val)>),
    /// Array elements, or what a pointer parameter points to.
    Elems(Vec<Val>),
    Str(Vec<u8>),
    /// A pointer parameter pointing to the same object as parameter `k`.
    Same(usize),
}

/// One input: the arguments of `f`, in order.
pub type Input = Vec<Val>;

fn fmt_f(x: f64) -> String {
    if x.is_nan() {
        if x.is_sign_negative() {
            "-NAN".into()
        } else {
            "NAN".into()
        }
    } else if x.is_infinite() {
        if x < 0.0 {
            "-INFINITY".into()
        } else {
            "INFINITY".into()
        }
    } else {
        format!("{x:?}")
    }
}

impl std::fmt::Display for Val {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Val::I(v) => write!(f, "{v}"),
            Val::F(x) => write!(f, "{}", fmt_f(*x)),
            Val::Bytes(b) => {
                write!(f, "bytes ")?;
                for c in b {
                    write!(f, "{c:02x}")?;
                }
                Ok(())
            }
            Val::Fields(fs) => {
                let v: Vec<String> = fs.iter().map(|(n, x)| format!(".{n} = {x}")).collect();
                write!(f, "{{{}}}", v.join(", "))
            }
            Val::Elems(es) => {
                let v: Vec<String> = es.iter().map(|x| x.to_string()).collect();
                write!(f, "[{}]", v.join(", "))
            }
            Val::Str(b) => write!(f, "\"{}\"", c_escape(b)),
            Val::Same(k) => write!(f, "same object as argument {k}"),
        }
    }
}

/// An input as `name = value, …`.
pub fn show_input(p: &Program, inp: &Input) -> String {
    let parts: Vec<String> = p
        .main
        .params
        .iter()
        .zip(inp)
        .map(|(pa, v)| match v {
            Val::Same(k) => format!(
                "{} = {}",
                pa.name,
                p.main.params.get(*k).map_or("?".into(), |q| q.name.clone())
            ),
            _ => format!("{} = {v}", pa.name),
        })
        .collect();
    if parts.is_empty() {
        "(no arguments)".into()
    } else {
        parts.join(", ")
    }
}

const INT_BOUNDS: [i128; 36] = [
    0,
    1,
    -1,
    2,
    -2,
    3,
    5,
    7,
    8,
    9,
    10,
    11,
    16,
    48,
    97,
    100,
    127,
    128,
    -128,
    255,
    256,
    1000,
    -1000,
    32767,
    32768,
    -32768,
    65535,
    65536,
    2147483647,
    -2147483648,
    2147483646,
    4294967295,
    4294967296,
    9223372036854775807,
    -9223372036854775808,
    18446744073709551615,
];

fn int_bounds(k: IntK) -> Vec<i128> {
    let mut v: Vec<i128> = INT_BOUNDS
        .iter()
        .copied()
        .filter(|x| *x >= k.min() && *x <= k.max())
        .collect();
    for x in [k.min(), k.max(), k.min() + 1, k.max() - 1] {
        if !v.contains(&x) && x >= k.min() && x <= k.max() {
            v.push(x);
        }
    }
    v
}

fn f64_bounds() -> Vec<f64> {
    vec![
        0.0,
        -0.0,
        1.0,
        -1.0,
        0.5,
        -0.5,
        1.5,
        2.0,
        3.0,
        3.25,
        -2.5,
        10.0,
        100.0,
        999.5,
        1000.0,
        -1000.0,
        0.1,
        1e10,
        -1e10,
        1e30,
        1e300,
        -1e300,
        f64::MAX,
        f64::MIN_POSITIVE,
        5e-324,
        1e-310,
        f64::NAN,
        f64::from_bits(0xfff8_0000_0000_0000),
        f64::from_bits(0x7ff8_0000_0000_0001),
        f64::INFINITY,
        f64::NEG_INFINITY,
    ]
}

fn f32_bounds() -> Vec<f64> {
    [
        0.0f32,
        -0.0,
        1.0,
        -1.0,
        0.5,
        1.5,
        2.0,
        3.0,
        -2.5,
        10.0,
        100.0,
        1000.0,
        -1000.0,
        0.1,
        1e10,
        3.4e38,
        f32::MIN_POSITIVE,
        1e-40,
        16_777_217.0,
        f32::NAN,
        f32::INFINITY,
        f32::NEG_INFINITY,
    ]
    .iter()
    .map(|x| f64::from(*x))
    .collect()
}

const STRINGS: [&[u8]; 16] = [
    b"",
    b"a",
    b"b",
    b"ab",
    b"abc",
    b"hello",
    b"aaaa",
    b"a b",
    b"0",
    b"z9",
    b"Az",
    b"\x80",
    b"\xff\x01",
    b"abcdefghij",
    b"  ",
    b"ba",
];

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Zero,
    Small,
    Boundary,
    Random,
}

struct Inputs<'a> {
    p: &'a Program,
    rng: &'a mut Rng,
}

impl Inputs<'_> {
    fn leaf(&mut self, ty: &Ty, mode: Mode) -> Val {
        match ty {
            Ty::I(k) => {
                let k = *k;
                Val::I(match mode {
                    Mode::Zero => 0,
                    Mode::Small => {
                        if k.is_bool() {
                            self.rng.range(0, 1) as i128
                        } else if k.signed() {
                            self.rng.range(-3, 12) as i128
                        } else {
                            self.rng.range(0, 12) as i128
                        }
                    }
                    Mode::Boundary => *self.rng.pick(&int_bounds(k)),
                    Mode::Random => {
                        let v = if self.rng.chance(50) {
                            self.rng.range(-100_000, 100_000) as i128
                        } else {
                            self.rng.next_u64() as i128
                        };
                        // into the type's range, as a conversion would
                        let bits = k.bits();
                        if k.is_bool() {
                            v & 1
                        } else {
                            let m = v.rem_euclid(1i128 << bits);
                            if k.signed() && m > k.max() {
                                m - (1i128 << bits)
                            } else {
                                m
                            }
                        }
                    }
                })
            }
            Ty::Enum(tag) => {
                let vals: Vec<i128> = self
                    .p
                    .types
                    .iter()
                    .find_map(|t| match t {
                        TypeDef::Enum { tag: x, items } if x == tag => {
                            Some(enum_values(items).iter().map(|v| v.1 as i128).collect())
                        }
                        _ => None,
                    })
                    .unwrap_or_default();
                Val::I(match mode {
                    Mode::Zero => 0,
                    _ if !vals.is_empty() && self.rng.chance(75) => *self.rng.pick(&vals),
                    _ => self.rng.range(-1, 11) as i128,
                })
            }
            Ty::F32 | Ty::F64 => {
                let single = *ty == Ty::F32;
                Val::F(match mode {
                    Mode::Zero => 0.0,
                    Mode::Small => self.rng.range(-8, 24) as f64 * 0.5,
                    Mode::Boundary => {
                        if single {
                            *self.rng.pick(&f32_bounds())
                        } else {
                            *self.rng.pick(&f64_bounds())
                        }
                    }
                    Mode::Random => {
                        let x = (self.rng.next_u64() % 2_000_001) as f64 / 1000.0 - 1000.0;
                        if single {
                            f64::from(x as f32)
                        } else {
                            x
                        }
                    }
                })
            }
            Ty::Struct(tag) => {
                let mut fields = self.p.struct_fields(tag).cloned().unwrap_or_default();
                fields.sort_by(|a, b| a.1.cmp(&b.1));
                Val::Fields(
                    fields
                        .iter()
                        .map(|(t, n)| {
                            let m = if mode == Mode::Boundary && self.rng.chance(50) {
                                Mode::Small
                            } else {
                                mode
                            };
                            (n.clone(), self.leaf(t, m))
                        })
                        .collect(),
                )
            }
            Ty::Union(_) => {
                let bits: u64 = match mode {
                    Mode::Zero => 0,
                    Mode::Small => self.rng.range(0, 20) as u64,
                    Mode::Boundary => *self.rng.pick(&[
                        0x8000_0000_0000_0000u64,
                        0x7ff8_0000_0000_0000,
                        0x7ff8_0000_0000_0001,
                        0xfff8_0000_0000_0000,
                        0x7ff0_0000_0000_0000,
                        0x3ff0_0000_0000_0000,
                        0xbff0_0000_0000_0000,
                        0xffff_ffff_ffff_ffff,
                        1,
                        0x0000_0001_0000_0000,
                        0x0000_0000_ffff_ffff,
                        0x4059_0000_0000_0000,
                    ]),
                    Mode::Random => self.rng.next_u64(),
                };
                Val::Bytes(bits.to_le_bytes().to_vec())
            }
            Ty::Arr(e, n) => Val::Elems((0..*n).map(|_| self.leaf(e, mode)).collect()),
            Ty::Ptr(..) | Ty::Fn(_) => Val::I(0),
        }
    }

    fn small_elem(&mut self, ty: &Ty, mode: Mode) -> Val {
        match mode {
            Mode::Zero => self.leaf(ty, Mode::Zero),
            Mode::Boundary if self.rng.chance(30) => self.leaf(ty, Mode::Boundary),
            _ => match ty {
                Ty::I(IntK::Char) => Val::I(
                    *self
                        .rng
                        .pick(&[97, 98, 122, 48, 0, 1, -1, 127, -128, 65, 32, 10]),
                ),
                _ => Val::I(self.rng.range(-5, 20) as i128),
            },
        }
    }

    fn string(&mut self, mode: Mode) -> Val {
        Val::Str(match mode {
            Mode::Zero => vec![],
            Mode::Boundary | Mode::Small => self.rng.pick(&STRINGS).to_vec(),
            Mode::Random => {
                let n = self.rng.below(11);
                (0..n)
                    .map(|_| {
                        if self.rng.chance(85) {
                            b'a' + self.rng.below(4) as u8
                        } else {
                            *self.rng.pick(&[b'0', b' ', b'z', 0x80, 0xff])
                        }
                    })
                    .collect()
            }
        })
    }

    /// One argument of parameter `k` (lengths are fixed up afterwards).
    fn arg(&mut self, k: usize, mode: Mode) -> Val {
        let pa = &self.p.main.params[k];
        let pointee = match &pa.ty {
            Ty::Ptr(t, _) => (**t).clone(),
            t => t.clone(),
        };
        match &pa.role {
            Role::Value | Role::Len { .. } => self.leaf(&pa.ty.clone(), mode),
            Role::Out => Val::Elems(vec![self.leaf(&pointee, mode)]),
            Role::Buf { cap, .. } => {
                let cap = *cap;
                Val::Elems((0..cap).map(|_| self.small_elem(&pointee, mode)).collect())
            }
            Role::Str => self.string(mode),
            Role::Rec { cap } => {
                let cap = *cap;
                let n = self.small_elem(&INT, mode);
                let null = mode != Mode::Zero && self.rng.chance(15);
                let elems = (0..cap).map(|_| self.small_elem(&INT, mode)).collect();
                rec_val(n, !null, elems)
            }
            Role::Alias => {
                let first = self.p.main.params[..k]
                    .iter()
                    .position(|q| q.role == Role::Alias);
                match first {
                    Some(j) if mode == Mode::Zero || self.rng.chance(45) => Val::Same(j),
                    _ => Val::Elems(vec![self.small_elem(&INT, mode)]),
                }
            }
        }
    }

    /// Lengths within their buffer's capacity.
    fn fix_lengths(&mut self, inp: &mut Input, mode: Mode) {
        for (k, pa) in self.p.main.params.iter().enumerate() {
            if let Role::Len { buf } = pa.role {
                let cap = match self.p.main.params[buf].role {
                    Role::Buf { cap, .. } => cap,
                    _ => 0,
                };
                let ok = matches!(inp[k], Val::I(v) if v >= 0 && v <= cap as i128);
                if !ok || mode != Mode::Zero {
                    inp[k] = Val::I(if mode == Mode::Zero {
                        0
                    } else {
                        self.rng.range(0, cap as i64) as i128
                    });
                }
            }
        }
    }
}

fn is_scalar_value(pa: &Param) -> bool {
    pa.role == Role::Value && pa.ty.is_arith()
}

/// Boundary, small and random inputs for a program, deterministic in `rng`.
pub fn inputs(p: &Program, rng: &mut Rng, count: usize) -> Vec<Input> {
    let np = p.main.params.len();
    let mut g = Inputs { p, rng };
    let make = |g: &mut Inputs, mode: Mode| -> Input {
        let mut v: Input = (0..np).map(|k| g.arg(k, mode)).collect();
        g.fix_lengths(&mut v, mode);
        v
    };
    let mut out: Vec<Input> = vec![make(&mut g, Mode::Zero)];
    // each parameter through its boundary values, the others small
    for k in 0..np {
        let pa = p.main.params[k].clone();
        let vals: Vec<Val> = match (&pa.ty, &pa.role) {
            (Ty::I(kk), Role::Value) => int_bounds(*kk).into_iter().map(Val::I).collect(),
            (Ty::F64, Role::Value) => f64_bounds().into_iter().map(Val::F).collect(),
            (Ty::F32, Role::Value) => f32_bounds().into_iter().map(Val::F).collect(),
            (_, Role::Len { buf }) => {
                let cap = match p.main.params[*buf].role {
                    Role::Buf { cap, .. } => cap,
                    _ => 0,
                };
                (0..=cap as i128).map(Val::I).collect()
            }
            (_, Role::Str) => STRINGS.iter().map(|s| Val::Str(s.to_vec())).collect(),
            _ => (0..10).map(|_| g.arg(k, Mode::Boundary)).collect(),
        };
        for v in vals {
            let mut inp = make(&mut g, Mode::Small);
            inp[k] = v;
            out.push(inp);
        }
    }
    while out.len() < count {
        let mode = match g.rng.below(3) {
            0 => Mode::Boundary,
            1 => Mode::Small,
            _ => Mode::Random,
        };
        out.push(make(&mut g, mode));
    }
    out
}

/// The zero input with the scalar parameters named in `vals` set from dizy's C literals (a
/// witness or a differing state's seed); `None` when `f` takes something besides scalars.
pub fn input_from_literals(
    p: &Program,
    vals: &serde_json::Map<String, serde_json::Value>,
) -> Option<Input> {
    if !p.main.params.iter().all(is_scalar_value) {
        return None;
    }
    Some(
        p.main
            .params
            .iter()
            .map(|pa| scalar_from(pa, vals))
            .collect(),
    )
}

/// Parameter `pa` from dizy's C literal in `vals` (zero when absent).
fn scalar_from(pa: &Param, vals: &serde_json::Map<String, serde_json::Value>) -> Val {
    let lit = vals.get(&pa.name).and_then(|v| {
        v.as_str()
            .map(str::to_string)
            .or_else(|| v.as_i64().map(|x| x.to_string()))
    });
    match (&pa.ty, lit) {
        (t, Some(l)) if t.is_float() => {
            let x = parse_float(&l).unwrap_or(0.0);
            Val::F(if *t == Ty::F32 {
                f64::from(x as f32)
            } else {
                x
            })
        }
        (_, Some(l)) => Val::I(parse_literal(&l).unwrap_or(0)),
        (t, None) if t.is_float() => Val::F(0.0),
        _ => Val::I(0),
    }
}

/// A witness of dizy as an input of the harness: scalars from `inputs`, buffers, strings and
/// aliasing from `memory_inputs` (exact bytes). `None` when a buffer cannot be given to the
/// harness exactly as dizy ran it: another size than the parameter's capacity (one element for
/// a pointer to one object, the string and one terminator for a string), elements of a type
/// read here only as scalars, structs by value.
pub fn input_from_witness(
    p: &Program,
    w: &serde_json::Map<String, serde_json::Value>,
) -> Option<Input> {
    let empty = serde_json::Map::new();
    // A witness that sets globals is a state the harness does not build: not checked here
    // (`dizy --validate native` checks it).
    if w.get("global_inputs")
        .and_then(serde_json::Value::as_object)
        .is_some_and(|g| !g.is_empty())
    {
        return None;
    }
    let lits = w
        .get("inputs")
        .and_then(serde_json::Value::as_object)
        .unwrap_or(&empty);
    let mem = w
        .get("memory_inputs")
        .and_then(serde_json::Value::as_object)
        .unwrap_or(&empty);
    let names: Vec<&str> = p.main.params.iter().map(|q| q.name.as_str()).collect();
    p.main
        .params
        .iter()
        .map(|pa| {
            let pointee = match &pa.ty {
                Ty::Ptr(t, _) => Some(&**t),
                _ => None,
            };
            match (&pa.role, pointee) {
                (Role::Value | Role::Len { .. }, _) if pa.ty.is_arith() => {
                    Some(scalar_from(pa, lits))
                }
                (Role::Value | Role::Len { .. }, _) => None,
                (role, Some(t)) => {
                    let m = mem.get(&pa.name)?;
                    match m["kind"].as_str()? {
                        "alias" => {
                            let of = m["of"].as_str()?;
                            Some(Val::Same(names.iter().position(|n| *n == of)?))
                        }
                        // A misaligned buffer (`misalignment`) is given aligned: dizy only
                        // misaligns byte buffers, and generated code never looks at addresses.
                        "buffer" => match role {
                            Role::Rec { .. } => rec_from_witness(m),
                            _ => buffer_val(role, t, &json_bytes(&m["bytes"])?),
                        },
                        _ => None,
                    }
                }
                _ => None,
            }
        })
        .collect()
}

/// A `Role::Rec` argument: the struct (its `int n`), whether its member is non-null, the number
/// of `int`s in the member's buffer and the buffer (read in this order by the harness).
fn rec_val(n: Val, nonnull: bool, elems: Vec<Val>) -> Val {
    Val::Fields(vec![
        ("n".into(), n),
        ("p!=0".into(), Val::I(i128::from(nonnull))),
        ("#p".into(), Val::I(elems.len() as i128)),
        ("*p".into(), Val::Elems(elems)),
    ])
}

/// A `Role::Rec` argument from dizy's witness: the struct's bytes (`int n` at 0, the pointer
/// at 8) and its linked member's buffer (`pointees`, path `[8]`), given to the harness with
/// exactly dizy's size (whole `int`s); a null member has no pointee. dizy may pass an array of such structs; the
/// harness passes one, which is all generated code reads (`(*r)`): a run of dizy's that read
/// past it would show natively as an invalid access, so a witness relying on it fails.
fn rec_from_witness(m: &serde_json::Value) -> Option<Val> {
    let bytes = json_bytes(&m["bytes"])?;
    if bytes.is_empty() || !bytes.len().is_multiple_of(16) {
        return None;
    }
    let n = Val::I(i128::from(i32::from_le_bytes(bytes[..4].try_into().ok()?)));
    let link = m["pointees"].as_array().into_iter().flatten().find(|l| {
        l["path"]
            .as_array()
            .is_some_and(|p| p.len() == 1 && p[0] == 8)
    });
    let Some(link) = link else {
        // dizy prints a non-null member it links; without a link the member is null
        return bytes[8..16]
            .iter()
            .all(|b| *b == 0)
            .then(|| rec_val(n, false, vec![]));
    };
    if link.get("into").is_some_and(|v| !v.is_null())
        || link.get("function").is_some_and(|v| !v.is_null())
    {
        return None;
    }
    let bytes = json_bytes(&link["bytes"])?;
    let cap = bytes.len() / 4;
    let elems = buffer_val(&Role::Buf { cap, len: 0 }, &INT, &bytes)?;
    match elems {
        Val::Elems(es) => Some(rec_val(n, true, es)),
        _ => None,
    }
}

fn json_bytes(v: &serde_json::Value) -> Option<Vec<u8>> {
    v.as_array()?
        .iter()
        .map(|b| b.as_u64().map(|x| x as u8))
        .collect()
}

/// A buffer's bytes as the harness reads parameter of role `role` pointing to `t`s.
fn buffer_val(role: &Role, t: &Ty, bytes: &[u8]) -> Option<Val> {
    let size = match t {
        Ty::I(k) if k.is_bool() => 1,
        Ty::I(k) => k.bits() as usize / 8,
        Ty::Enum(_) => 4,
        Ty::F32 => 4,
        Ty::F64 => 8,
        _ => return None,
    };
    let elem = |c: &[u8]| -> Val {
        let mut raw = [0u8; 8];
        raw[..c.len()].copy_from_slice(c);
        let u = u64::from_le_bytes(raw);
        match t {
            Ty::F32 => Val::F(f64::from(f32::from_bits(u as u32))),
            Ty::F64 => Val::F(f64::from_bits(u)),
            Ty::I(k) if k.signed() => {
                let sh = 64 - 8 * size as u32;
                Val::I(i128::from(((u << sh) as i64) >> sh))
            }
            _ => Val::I(i128::from(u)),
        }
    };
    if !bytes.len().is_multiple_of(size) {
        return None;
    }
    let elems: Vec<Val> = bytes.chunks(size).map(elem).collect();
    // Only exactly dizy's bytes are its witness: the native buffer must have the same size
    // (a larger one would make an out-of-bounds access of dizy's run valid natively).
    match role {
        // The harness allocates the string and one terminator.
        Role::Str => {
            let body = bytes.strip_suffix(&[0])?;
            (!body.contains(&0)).then(|| Val::Str(body.to_vec()))
        }
        Role::Out | Role::Alias if elems.len() == 1 => Some(Val::Elems(elems)),
        Role::Buf { cap, .. } if elems.len() == *cap => Some(Val::Elems(elems)),
        _ => None,
    }
}

pub(super) fn encode(v: &Val, out: &mut String) {
    match v {
        Val::I(x) => {
            let _ = write!(out, " {:x}", *x as u64);
        }
        Val::F(x) => {
            let _ = write!(out, " {:x}", x.to_bits());
        }
        Val::Bytes(b) => {
            out.push_str(" x");
            for c in b {
                let _ = write!(out, "{c:02x}");
            }
        }
        Val::Fields(fs) => fs.iter().for_each(|(_, v)| encode(v, out)),
        Val::Elems(es) => es.iter().for_each(|v| encode(v, out)),
        Val::Str(b) => {
            out.push_str(" s");
            for c in b {
                let _ = write!(out, "{c:02x}");
            }
        }
        Val::Same(k) => {
            let _ = write!(out, " ={k}");
        }
    }
}
