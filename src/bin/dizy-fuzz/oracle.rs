//! The native oracle and the dizy runner: processes with deadlines.
//!
//! Takes both versions of a pair and a list of typed inputs; gives, per input, what each version
//! did when compiled by gcc with AddressSanitizer and UndefinedBehaviorSanitizer (plus
//! float-cast-overflow): its observable behaviour, undefined behaviour, or no termination within
//! a CPU-time limit. One gcc call per pair: both versions go into a single harness, their
//! file-scope names prefixed `o_` / `n_` (static locals hoisted to file scope so the harness can
//! read them); the harness reads one input per line and forks once per input and version, so
//! every version starts from its own initializers and a sanitizer abort or a hang loses only that
//! run. Used by `check` for every pair and by `minimize` for every candidate; also runs `dizy
//! diff` as a subprocess with a hard kill, so panics, crashes and hangs are observed rather than
//! inherited.
//!
//! What one call observes (dizy's contract): the return value; the final contents of what the
//! pointer parameters point to; the globals and static locals, compared where either version
//! changed them; the bytes printed. Values are printed canonically by the harness, so that equal
//! canonical text means equal under the contract: integers in decimal, floating values with NaN
//! as `nan` and both zeros as `0` (so -0.0 equals 0.0 and NaN equals NaN), struct fields sorted
//! by name, arrays element by element, unions as their bytes.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::{Read, Write};
use std::path::Path;
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use crate::ast::*;
use crate::gen::Rng;

/// What a process did.
#[derive(Debug)]
pub struct Outcome {
    pub status: Option<ExitStatus>,
    pub stdout: String,
    pub stderr: String,
    pub killed: bool,
}

/// Run `cmd` with `stdin`, capturing its output; killed after `limit`.
pub fn run(cmd: &mut Command, stdin: &[u8], limit: Duration) -> std::io::Result<Outcome> {
    cmd.stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let start = Instant::now();
    let mut child = cmd.spawn()?;
    let mut pin = child.stdin.take().expect("piped stdin");
    let data = stdin.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = pin.write_all(&data);
    });
    let mut out = child.stdout.take().expect("piped stdout");
    let mut err = child.stderr.take().expect("piped stderr");
    let ro = std::thread::spawn(move || {
        let mut v = vec![];
        let _ = out.read_to_end(&mut v);
        v
    });
    let re = std::thread::spawn(move || {
        let mut v = vec![];
        let _ = err.read_to_end(&mut v);
        v
    });
    let mut killed = false;
    let status = loop {
        if let Some(st) = child.try_wait()? {
            break Some(st);
        }
        if start.elapsed() > limit {
            killed = true;
            let _ = child.kill();
            break child.wait().ok();
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let _ = writer.join();
    Ok(Outcome {
        status,
        stdout: String::from_utf8_lossy(&ro.join().unwrap_or_default()).into_owned(),
        stderr: String::from_utf8_lossy(&re.join().unwrap_or_default()).into_owned(),
        killed,
    })
}

// ---------------------------------------------------------------------------------------------
// Inputs

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
            .map(|pa| {
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
            })
            .collect(),
    )
}

fn encode(v: &Val, out: &mut String) {
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

// ---------------------------------------------------------------------------------------------
// The harness

/// CPU time (user and system, so the machine's load does not matter) a version may use on one
/// input, the forked process's start included, before it counts as not terminating. Generated
/// code that terminates does so within microseconds (every run measured fits in 2 ms with
/// ASan); loops that may not terminate are built to stop within a few hundred steps or never.
pub const HANG_MS: u64 = 20;
/// Inputs (past the priority ones) after this many runs that did not terminate are skipped.
pub const MAX_HANGS: usize = 100;

const RUNTIME: &str = r#"
static char *cur;
static FILE *rec;
static char *tok(void)
{
    while (*cur == ' ') cur++;
    char *t = cur;
    while (*cur && *cur != ' ' && *cur != '\n') cur++;
    if (*cur) *cur++ = 0;
    return t;
}
static unsigned long long rdu(void) { return strtoull(tok(), 0, 16); }
static double rdd(void) { unsigned long long b = rdu(); double d; memcpy(&d, &b, 8); return d; }
static int hexv(char c) { return c <= '9' ? c - '0' : (c | 32) - 'a' + 10; }
static void rdb(void *p, size_t n)
{
    char *t = tok() + 1;
    memset(p, 0, n);
    for (size_t i = 0; i < n && t[0] && t[1]; i++, t += 2)
        ((unsigned char *)p)[i] = (unsigned char)(hexv(t[0]) * 16 + hexv(t[1]));
}
static char *rds(void)
{
    char *t = tok() + 1;
    size_t n = strlen(t) / 2;
    char *s = malloc(n + 1);
    for (size_t i = 0; i < n; i++) s[i] = (char)(hexv(t[2 * i]) * 16 + hexv(t[2 * i + 1]));
    s[n] = 0;
    return s;
}
static void ci(long long v) { fprintf(rec, "%lld", v); }
static void cu(unsigned long long v) { fprintf(rec, "%llu", v); }
static void cf(double x)
{
    if (x != x) fputs("nan", rec);
    else if (x == 0) fputs("0", rec);
    else fprintf(rec, "%.17g", x);
}
static void cb(const void *p, size_t n)
{
    fputc('x', rec);
    for (size_t i = 0; i < n; i++) fprintf(rec, "%02x", ((const unsigned char *)p)[i]);
}
"#;

struct Harness<'a> {
    p: &'a Program,
    pre: &'a str,
    pr: Printer<'a>,
}

impl Harness<'_> {
    fn tname(&self, t: &Ty) -> String {
        self.pr.decl(t, "")
    }
    /// Statements reading one value of type `t` into lvalue `lv`.
    fn read(&self, t: &Ty, lv: &str, depth: usize, out: &mut String) {
        match t {
            Ty::I(_) | Ty::Enum(_) => {
                let _ = writeln!(out, "    {lv} = ({})rdu();", self.tname(t));
            }
            Ty::F32 | Ty::F64 => {
                let _ = writeln!(out, "    {lv} = ({})rdd();", self.tname(t));
            }
            Ty::Struct(tag) => {
                let _ = writeln!(out, "    rd_{}{tag}(&{lv});", self.pre);
            }
            Ty::Union(_) => {
                let _ = writeln!(out, "    rdb(&{lv}, sizeof({lv}));");
            }
            Ty::Arr(e, n) => {
                let k = format!("k{depth}");
                let _ = writeln!(out, "    for (int {k} = 0; {k} < {n}; {k}++) {{");
                self.read(e, &format!("{lv}[{k}]"), depth + 1, out);
                let _ = writeln!(out, "    }}");
            }
            Ty::Ptr(..) | Ty::Fn(_) => {}
        }
    }
    /// Statements printing the canonical text of `e` (an lvalue) of type `t` to `rec`.
    fn canon(&self, t: &Ty, e: &str, depth: usize, out: &mut String) {
        match t {
            Ty::I(k) if k.signed() => {
                let _ = writeln!(out, "    ci((long long)({e}));");
            }
            Ty::I(_) => {
                let _ = writeln!(out, "    cu((unsigned long long)({e}));");
            }
            Ty::Enum(_) => {
                let _ = writeln!(out, "    ci((long long)({e}));");
            }
            Ty::F32 | Ty::F64 => {
                let _ = writeln!(out, "    cf((double)({e}));");
            }
            Ty::Struct(tag) => {
                let _ = writeln!(out, "    pr_{}{tag}(&{e});", self.pre);
            }
            Ty::Union(_) => {
                let _ = writeln!(out, "    cb(&{e}, sizeof({e}));");
            }
            Ty::Arr(el, n) => {
                let k = format!("k{depth}");
                let _ = writeln!(out, "    fputc('[', rec);");
                let _ = writeln!(out, "    for (int {k} = 0; {k} < {n}; {k}++) {{");
                let _ = writeln!(out, "    if ({k}) fputc(',', rec);");
                self.canon(el, &format!("{e}[{k}]"), depth + 1, out);
                let _ = writeln!(out, "    }}");
                let _ = writeln!(out, "    fputc(']', rec);");
            }
            Ty::Ptr(..) | Ty::Fn(_) => {
                let _ = writeln!(out, "    fputs(\"?\", rec);");
            }
        }
    }
    /// Readers and printers of the struct types, then `run_PREFIX`.
    fn version(&self, s: &mut String) {
        let pre = self.pre;
        for t in &self.p.types {
            if let TypeDef::Struct { tag, .. } = t {
                let _ = writeln!(s, "static void rd_{pre}{tag}(struct {pre}{tag} *p);");
                let _ = writeln!(s, "static void pr_{pre}{tag}(const struct {pre}{tag} *p);");
            }
        }
        for t in &self.p.types {
            if let TypeDef::Struct { tag, fields } = t {
                let mut fs = fields.clone();
                fs.sort_by(|a, b| a.1.cmp(&b.1));
                let _ = writeln!(s, "static void rd_{pre}{tag}(struct {pre}{tag} *p)\n{{");
                for (ft, fnm) in &fs {
                    self.read(ft, &format!("p->{fnm}"), 0, s);
                }
                let _ = writeln!(s, "}}");
                let _ = writeln!(
                    s,
                    "static void pr_{pre}{tag}(const struct {pre}{tag} *p)\n{{"
                );
                let _ = writeln!(s, "    fputc('{{', rec);");
                for (k, (ft, fnm)) in fs.iter().enumerate() {
                    let _ = writeln!(
                        s,
                        "    fputs(\"{}{fnm}=\", rec);",
                        if k > 0 { "," } else { "" }
                    );
                    self.canon(ft, &format!("p->{fnm}"), 0, s);
                }
                let _ = writeln!(s, "    fputc('}}', rec);\n}}");
            }
        }
        let f = &self.p.main;
        let _ = writeln!(s, "static void run_{pre}(void)\n{{");
        for (k, pa) in f.params.iter().enumerate() {
            let a = format!("a{k}");
            match (&pa.role, &pa.ty) {
                (Role::Value | Role::Len { .. }, t) => {
                    let _ = writeln!(s, "    {};", self.pr.decl(t, &a));
                    let _ = writeln!(s, "    memset(&{a}, 0, sizeof {a});");
                    self.read(t, &a, 0, s);
                }
                (Role::Out, Ty::Ptr(t, _)) => {
                    let _ = writeln!(
                        s,
                        "    {} = malloc(sizeof(*{a}));",
                        self.pr.decl(&Ty::Ptr(t.clone(), false), &a)
                    );
                    let _ = writeln!(s, "    memset({a}, 0, sizeof(*{a}));");
                    self.read(t, &format!("(*{a})"), 0, s);
                }
                (Role::Buf { cap, .. }, Ty::Ptr(t, _)) => {
                    let _ = writeln!(
                        s,
                        "    {} = malloc(sizeof(*{a}) * {cap});",
                        self.pr.decl(&Ty::Ptr(t.clone(), false), &a)
                    );
                    self.read(&Ty::Arr(t.clone(), *cap), &a, 0, s);
                }
                (Role::Str, _) => {
                    let _ = writeln!(s, "    char *{a} = rds();");
                }
                (Role::Alias, Ty::Ptr(t, _)) => {
                    let d = self.pr.decl(&Ty::Ptr(t.clone(), false), &a);
                    let _ = writeln!(s, "    {d};");
                    let _ = writeln!(s, "    {{ char *t = cur; while (*t == ' ') t++;");
                    let _ = writeln!(
                        s,
                        "      if (*t == '=') {{ int j = atoi(tok() + 1); {a} = (void *)ptrs[j]; }}"
                    );
                    let _ = writeln!(
                        s,
                        "      else {{ {a} = malloc(sizeof(*{a})); *{a} = ({})rdu(); }} }}",
                        self.tname(t)
                    );
                }
                _ => {
                    let _ = writeln!(s, "    {};", self.pr.decl(&pa.ty, &a));
                }
            }
            if matches!(pa.ty, Ty::Ptr(..)) {
                let _ = writeln!(s, "    ptrs[{k}] = (void *){a};");
            }
        }
        let objs = self.p.observed_objects(pre);
        for (name, lv, t) in &objs {
            let _ = writeln!(s, "    fputs(\" I:{name}=\", rec);");
            self.canon(t, lv, 0, s);
        }
        let args: Vec<String> = (0..f.params.len()).map(|k| format!("a{k}")).collect();
        let _ = writeln!(s, "    begin_run();");
        let _ = writeln!(
            s,
            "    {} = {}({});",
            self.pr.decl(&f.ret, "r"),
            self.pr.name(&f.name),
            args.join(", ")
        );
        let _ = writeln!(s, "    end_run();");
        let _ = writeln!(s, "    fputs(\" R=\", rec);");
        self.canon(&f.ret, "r", 0, s);
        for (k, pa) in f.params.iter().enumerate() {
            let a = format!("a{k}");
            match (&pa.role, &pa.ty) {
                (Role::Out | Role::Alias, Ty::Ptr(t, _)) => {
                    let _ = writeln!(s, "    fputs(\" P:{}=\", rec);", pa.name);
                    self.canon(t, &format!("(*{a})"), 0, s);
                }
                (Role::Buf { cap, .. }, Ty::Ptr(t, _)) => {
                    let _ = writeln!(s, "    fputs(\" P:{}=\", rec);", pa.name);
                    self.canon(&Ty::Arr(t.clone(), *cap), &a, 0, s);
                }
                _ => {}
            }
        }
        for (name, lv, t) in &objs {
            let _ = writeln!(s, "    fputs(\" G:{name}=\", rec);");
            self.canon(t, lv, 0, s);
        }
        let _ = writeln!(s, "}}");
    }
}

/// The harness: both versions, readers and printers, and a `main` that reads one input per
/// line and prints, per input and version, `K V OK <observations>`, `K V UB`, `K V HANG` or
/// `K V SKIP`.
pub fn harness(old: &Program, new: &Program) -> String {
    let mut s = String::from(
        "#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n#include <stddef.h>\n\
         #include <stdbool.h>\n#include <unistd.h>\n#include <signal.h>\n#include <sys/wait.h>\n\
         #include <sys/time.h>\n",
    );
    s.push_str(RUNTIME);
    s.push_str(
        r#"
static void *ptrs[16];
static char *obuf;
static size_t olen;
static void begin_run(void) { fflush(stdout); stdout = open_memstream(&obuf, &olen); }
static void end_run(void) { fflush(stdout); }
"#,
    );
    s.push_str(&old.print_body("o_"));
    s.push_str(&new.print_body("n_"));
    for (p, pre) in [(old, "o_"), (new, "n_")] {
        let h = Harness {
            p,
            pre,
            pr: Printer::new(p, pre),
        };
        h.version(&mut s);
    }
    let _ = write!(
        s,
        r#"
static void put(const char *b, size_t n)
{{
    while (n > 0) {{
        ssize_t w = write(1, b, n);
        if (w <= 0) _exit(3);
        b += w;
        n -= (size_t)w;
    }}
}}

static void child(int k, int v, char *line)
{{
    struct itimerval it = {{{{0, 0}}, {{0, {hang_us}}}}};
    setitimer(ITIMER_PROF, &it, 0);
    alarm(5);
    cur = line;
    char *rbuf = 0;
    size_t rlen = 0;
    rec = open_memstream(&rbuf, &rlen);
    if (v == 0) run_o_(); else run_n_();
    struct itimerval off = {{{{0, 0}}, {{0, 0}}}};
    setitimer(ITIMER_PROF, &off, 0);
    alarm(0);
    fflush(stdout);
    fflush(rec);
    char head[64];
    int hn = snprintf(head, sizeof head, "%d %d OK", k, v);
    put(head, (size_t)hn);
    put(rbuf, rlen);
    put(" O=", 3);
    for (size_t i = 0; i < olen; i++) {{
        char hx[3];
        snprintf(hx, sizeof hx, "%02x", (unsigned char)obuf[i]);
        put(hx, 2);
    }}
    put("\n", 1);
    _exit(0);
}}

int main(int argc, char **argv)
{{
    int nprio = argc > 1 ? atoi(argv[1]) : 0;
    int maxhang = argc > 2 ? atoi(argv[2]) : 1000000;
    static char line[1 << 20];
    int k = 0, hangs = 0;
    while (fgets(line, sizeof line, stdin)) {{
        for (int v = 0; v < 2; v++) {{
            if (hangs >= maxhang && k >= nprio) {{
                printf("%d %d SKIP\n", k, v);
                continue;
            }}
            fflush(stdout);
            pid_t pid = fork();
            /* the child parses its own copy of the line */
            if (pid == 0) child(k, v, line);
            int st = 0;
            waitpid(pid, &st, 0);
            if (WIFSIGNALED(st) && (WTERMSIG(st) == SIGPROF || WTERMSIG(st) == SIGALRM)) {{
                printf("%d %d HANG\n", k, v);
                hangs++;
            }} else if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {{
                printf("%d %d UB\n", k, v);
            }}
            fflush(stdout);
        }}
        k++;
    }}
    return 0;
}}
"#,
        hang_us = HANG_MS * 1000
    );
    s
}

/// Compile the harness of a pair in `dir`; gives the executable or gcc's complaint.
pub fn compile(dir: &Path, old: &Program, new: &Program) -> Result<std::path::PathBuf, String> {
    let src = dir.join("harness.c");
    let exe = dir.join("harness");
    std::fs::write(&src, harness(old, new)).map_err(|e| e.to_string())?;
    let o = run(
        Command::new("gcc")
            .args([
                "-std=gnu11",
                "-O0",
                "-w",
                "-fsanitize=address,undefined,float-cast-overflow",
                "-fno-sanitize-recover=all",
                "-o",
            ])
            .arg(&exe)
            .arg(&src),
        b"",
        Duration::from_secs(60),
    )
    .map_err(|e| format!("cannot run gcc: {e}"))?;
    if o.status.is_some_and(|s| s.success()) {
        Ok(exe)
    } else {
        Err(format!(
            "gcc failed on {}: {}",
            src.display(),
            o.stderr.lines().take(12).collect::<Vec<_>>().join("\n")
        ))
    }
}

// ---------------------------------------------------------------------------------------------
// Observations

/// What one version did on one input and returned from.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Run {
    pub ret: String,
    /// Canonical final contents behind each pointer parameter, by parameter name.
    pub ptrs: BTreeMap<String, String>,
    /// Observed objects (globals, static locals): value at entry and at return.
    pub init: BTreeMap<String, String>,
    pub fin: BTreeMap<String, String>,
    pub out: Vec<u8>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum One {
    Ran(Run),
    Ub,
    Hang,
    Skip,
}

/// What both versions did on one input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Obs {
    Ran(Box<Run>, Box<Run>),
    /// Either version has undefined behaviour on this input: it is not a test.
    Ub,
    /// Neither version terminated: not a difference.
    BothHang,
    /// Exactly one version did not terminate; the other's run.
    OneHangs {
        old_hangs: bool,
        other: Box<Run>,
    },
    /// Not run (too many runs before did not terminate).
    Skipped,
}

/// How two terminating runs differ under the contract, if they do.
pub fn run_difference(a: &Run, b: &Run) -> Option<String> {
    if a.ret != b.ret {
        return Some(format!("return {} vs {}", a.ret, b.ret));
    }
    for (k, v) in &a.ptrs {
        if let Some(w) = b.ptrs.get(k) {
            if v != w {
                return Some(format!("*{k} {v} vs {w}"));
            }
        }
    }
    for (k, fa) in &a.fin {
        let Some(fb) = b.fin.get(k) else { continue };
        let changed_a = a.init.get(k) != Some(fa);
        let changed_b = b.init.get(k) != Some(fb);
        if (changed_a || changed_b) && fa != fb {
            return Some(format!("{k} {fa} vs {fb} at return"));
        }
    }
    if a.out != b.out {
        return Some(format!(
            "output {:?} vs {:?}",
            String::from_utf8_lossy(&a.out),
            String::from_utf8_lossy(&b.out)
        ));
    }
    None
}

impl Obs {
    /// The versions differ on this input (a termination difference included).
    pub fn differs(&self) -> bool {
        match self {
            Obs::Ran(a, b) => run_difference(a, b).is_some(),
            Obs::OneHangs { .. } => true,
            _ => false,
        }
    }
    /// Both versions terminated and differ.
    pub fn differs_terminating(&self) -> bool {
        matches!(self, Obs::Ran(a, b) if run_difference(a, b).is_some())
    }
    pub fn describe(&self) -> String {
        match self {
            Obs::Ran(a, b) => match run_difference(a, b) {
                Some(d) => format!("old/new differ: {d}"),
                None => format!("both return {} (no difference)", a.ret),
            },
            Obs::Ub => "undefined behaviour".into(),
            Obs::BothHang => "neither version terminates".into(),
            Obs::OneHangs { old_hangs, other } => format!(
                "the {} version does not terminate (within {HANG_MS} ms of CPU), the {} returns {}",
                if *old_hangs { "old" } else { "new" },
                if *old_hangs { "new" } else { "old" },
                other.ret
            ),
            Obs::Skipped => "not run".into(),
        }
    }
}

fn unhex(s: &str) -> Vec<u8> {
    (0..s.len() / 2)
        .filter_map(|i| u8::from_str_radix(&s[2 * i..2 * i + 2], 16).ok())
        .collect()
}

fn parse_run(rest: &str) -> Run {
    let mut r = Run::default();
    for w in rest.split(' ').filter(|w| !w.is_empty()) {
        if let Some(v) = w.strip_prefix("R=") {
            r.ret = v.to_string();
        } else if let Some(v) = w.strip_prefix("O=") {
            r.out = unhex(v);
        } else if let Some((k, v)) = w.strip_prefix("P:").and_then(|x| x.split_once('=')) {
            r.ptrs.insert(k.into(), v.into());
        } else if let Some((k, v)) = w.strip_prefix("I:").and_then(|x| x.split_once('=')) {
            r.init.insert(k.into(), v.into());
        } else if let Some((k, v)) = w.strip_prefix("G:").and_then(|x| x.split_once('=')) {
            r.fin.insert(k.into(), v.into());
        }
    }
    r
}

/// Run the compiled harness on `inputs`; the first `priority` of them are always run.
pub fn execute(exe: &Path, inputs: &[Input], priority: usize) -> Result<Vec<Obs>, String> {
    let mut text = String::new();
    for v in inputs {
        let mut line = String::new();
        for a in v {
            encode(a, &mut line);
        }
        text.push_str(line.trim_start());
        text.push('\n');
    }
    let limit = Duration::from_secs(20 + inputs.len() as u64 / 10)
        + Duration::from_millis(2 * HANG_MS * MAX_HANGS as u64 * 2);
    let o = run(
        Command::new(exe)
            .arg(priority.to_string())
            .arg(MAX_HANGS.to_string())
            .env("UBSAN_OPTIONS", "print_stacktrace=0")
            .env(
                "ASAN_OPTIONS",
                "detect_leaks=0:print_summary=0:detect_stack_use_after_return=0",
            ),
        text.as_bytes(),
        limit,
    )
    .map_err(|e| format!("cannot run harness: {e}"))?;
    if o.killed {
        return Err("harness timed out".into());
    }
    let mut per: Vec<[Option<One>; 2]> = vec![[None, None]; inputs.len()];
    for l in o.stdout.lines() {
        let mut it = l.splitn(4, ' ');
        let (Some(k), Some(v), Some(st)) = (it.next(), it.next(), it.next()) else {
            continue;
        };
        let (Ok(k), Ok(v)) = (k.parse::<usize>(), v.parse::<usize>()) else {
            continue;
        };
        if k >= inputs.len() || v > 1 {
            continue;
        }
        per[k][v] = Some(match st {
            "OK" => One::Ran(parse_run(it.next().unwrap_or(""))),
            "HANG" => One::Hang,
            "SKIP" => One::Skip,
            _ => One::Ub,
        });
    }
    if per.iter().all(|p| p[0].is_none()) && !inputs.is_empty() {
        return Err(format!(
            "harness gave no results: {}",
            o.stderr.lines().take(5).collect::<Vec<_>>().join(" | ")
        ));
    }
    Ok(per
        .into_iter()
        .map(
            |[a, b]| match (a.unwrap_or(One::Ub), b.unwrap_or(One::Ub)) {
                (One::Ub, _) | (_, One::Ub) => Obs::Ub,
                (One::Skip, _) | (_, One::Skip) => Obs::Skipped,
                (One::Hang, One::Hang) => Obs::BothHang,
                (One::Hang, One::Ran(r)) => Obs::OneHangs {
                    old_hangs: true,
                    other: Box::new(r),
                },
                (One::Ran(r), One::Hang) => Obs::OneHangs {
                    old_hangs: false,
                    other: Box::new(r),
                },
                (One::Ran(a), One::Ran(b)) => Obs::Ran(Box::new(a), Box::new(b)),
            },
        )
        .collect())
}

// ---------------------------------------------------------------------------------------------
// Literals

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
