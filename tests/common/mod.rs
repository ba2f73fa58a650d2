//! Shared helpers for the integration tests.
//!
//! * [`run_with_timeout`]: run a process with a deadline (killed on overrun) so that a hang fails a
//!   test instead of blocking CI.
//! * [`git`]: a git command in a test repository, with a committer of its own.
//! * [`sarif_problems`]: the errors and warnings Microsoft's SARIF validator finds in logs.
//! * [`verdict_of`] and [`claims_no_difference`]: a pair's verdict through the library, and
//!   whether it claims the versions do not differ.
//! * The native oracle of `differential_cc.rs`: scalar parameter types ([`Ty`]), a fixed-seed input
//!   generator ([`gen_inputs`]) that gives each input both as dizy C-literal arguments and as the
//!   already-converted value the C harness reads, the harness generator ([`harness_source`]), the
//!   compile-and-run driver ([`run_native`]) and value parsing/comparison ([`Value`]).
//!
//! The oracle (types, inputs, harness, value parsing) does not depend on the `dizy` crate, so it
//! stays independent of what it checks; only the process runner is the library's.
#![allow(dead_code)]

use std::path::Path;
use std::process::{Command, ExitStatus};
use std::time::Duration;

/// What a process did.
#[derive(Debug)]
pub struct Outcome {
    pub status: Option<ExitStatus>,
    pub stdout: String,
    pub stderr: String,
    pub timed_out: bool,
    pub elapsed: Duration,
}

impl Outcome {
    pub fn code(&self) -> Option<i32> {
        self.status.and_then(|s| s.code())
    }
}

/// Run `cmd` with the given standard input (or none), capturing stdout and stderr; kill it if it
/// has not finished after `timeout`. The process plumbing is the library's (native witness
/// validation uses it too); a command that cannot be started fails the test.
pub fn run_with_timeout(cmd: &mut Command, stdin: Option<&[u8]>, timeout: Duration) -> Outcome {
    let out = dizy::witness::native::run_with_timeout(cmd, stdin, timeout);
    assert!(
        out.status.is_some() || out.timed_out,
        "cannot spawn {cmd:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    Outcome {
        status: out.status,
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        timed_out: out.timed_out,
        elapsed: out.elapsed,
    }
}

// ---------------------------------------------------------------------------------------------
// Types and values

/// A scalar parameter or return type, as far as the harness is concerned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ty {
    Bool,
    Int { bits: u8, signed: bool },
    Float,
    Double,
}

impl Ty {
    pub fn c_name(self) -> &'static str {
        match self {
            Ty::Bool => "_Bool",
            Ty::Int {
                bits: 8,
                signed: true,
            } => "signed char",
            Ty::Int {
                bits: 8,
                signed: false,
            } => "unsigned char",
            Ty::Int {
                bits: 16,
                signed: true,
            } => "short",
            Ty::Int {
                bits: 16,
                signed: false,
            } => "unsigned short",
            Ty::Int {
                bits: 32,
                signed: true,
            } => "int",
            Ty::Int {
                bits: 32,
                signed: false,
            } => "unsigned int",
            Ty::Int {
                bits: 64,
                signed: true,
            } => "long",
            Ty::Int {
                bits: 64,
                signed: false,
            } => "unsigned long",
            Ty::Float => "float",
            Ty::Double => "double",
            Ty::Int { bits, signed } => panic!("no C type for {bits}-bit signed={signed}"),
        }
    }

    /// Range of an integer type.
    pub fn range(self) -> (i128, i128) {
        match self {
            Ty::Bool => (0, 1),
            Ty::Int { bits, signed: true } => (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1),
            Ty::Int {
                bits,
                signed: false,
            } => (0, (1i128 << bits) - 1),
            _ => panic!("range of a floating type"),
        }
    }

    pub fn is_float(self) -> bool {
        matches!(self, Ty::Float | Ty::Double)
    }
}

/// A return value, parsed from the harness output or from dizy's C-literal output.
#[derive(Clone, Copy, Debug)]
pub enum Value {
    Int(i128),
    F64(f64),
    F32(f32),
}

impl Value {
    /// Exact equality: integers as numbers, floating values bit for bit except that any NaN
    /// equals any NaN.
    pub fn same(&self, other: &Value) -> bool {
        match (self, other) {
            (Value::Int(a), Value::Int(b)) => a == b,
            (Value::F64(a), Value::F64(b)) => {
                (a.is_nan() && b.is_nan()) || a.to_bits() == b.to_bits()
            }
            (Value::F32(a), Value::F32(b)) => {
                (a.is_nan() && b.is_nan()) || a.to_bits() == b.to_bits()
            }
            _ => false,
        }
    }
}

impl std::fmt::Display for Value {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Value::Int(v) => write!(f, "{v}"),
            Value::F64(v) => write!(f, "{v:?}"),
            Value::F32(v) => write!(f, "{v:?}f"),
        }
    }
}

/// Parse the C harness's printf output (`%lld`, `%llu`, `%.17g`, `%.9g`; `inf`, `-nan`, …).
pub fn parse_native(text: &str, ty: Ty) -> Option<Value> {
    let t = text.trim();
    match ty {
        Ty::Bool | Ty::Int { .. } => t.parse::<i128>().ok().map(Value::Int),
        Ty::Double => parse_c_float_word(t).map(Value::F64),
        Ty::Float => {
            let lower = t.to_ascii_lowercase();
            if lower.contains("inf") || lower.contains("nan") {
                parse_c_float_word(t).map(|v| Value::F32(v as f32))
            } else {
                t.parse::<f32>().ok().map(Value::F32)
            }
        }
    }
}

fn parse_c_float_word(t: &str) -> Option<f64> {
    let (neg, body) = match t.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, t.strip_prefix('+').unwrap_or(t)),
    };
    let lower = body.to_ascii_lowercase();
    let v = if lower == "inf" || lower == "infinity" {
        f64::INFINITY
    } else if lower == "nan" || lower.starts_with("nan(") {
        f64::NAN
    } else {
        body.parse::<f64>().ok()?
    };
    Some(if neg { -v } else { v })
}

/// Parse dizy's return-value text, which must follow the documented format: integers in plain
/// decimal; doubles in Rust-`{:?}`-like shortest form; floats with an `f` suffix; `INFINITY`,
/// `-INFINITY`, `NAN` for the special values. Returns an explanation when the text is malformed.
pub fn parse_dizy(text: &str, ty: Ty) -> Result<Value, String> {
    let t = text.trim();
    let special = |t: &str| -> Option<f64> {
        match t {
            "INFINITY" | "+INFINITY" => Some(f64::INFINITY),
            "-INFINITY" => Some(f64::NEG_INFINITY),
            "NAN" | "-NAN" | "+NAN" => Some(f64::NAN),
            _ => None,
        }
    };
    match ty {
        Ty::Bool | Ty::Int { .. } => {
            let digits = t.strip_prefix('-').unwrap_or(t);
            if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
                return Err(format!("not a plain decimal integer: {t:?}"));
            }
            t.parse::<i128>()
                .map(Value::Int)
                .map_err(|e| format!("{t:?}: {e}"))
        }
        Ty::Double => {
            if let Some(v) = special(t) {
                return Ok(Value::F64(v));
            }
            if t.ends_with(['f', 'F', 'l', 'L']) {
                return Err(format!("double printed with a suffix: {t:?}"));
            }
            let lower = t.to_ascii_lowercase();
            if lower.contains("inf") || lower.contains("nan") {
                return Err(format!("special value not spelled INFINITY/NAN: {t:?}"));
            }
            t.parse::<f64>()
                .map(Value::F64)
                .map_err(|e| format!("{t:?}: {e}"))
        }
        Ty::Float => {
            if let Some(v) = special(t) {
                return Ok(Value::F32(v as f32));
            }
            let Some(body) = t.strip_suffix('f') else {
                return Err(format!("float printed without an `f` suffix: {t:?}"));
            };
            let lower = body.to_ascii_lowercase();
            if lower.contains("inf") || lower.contains("nan") {
                return Err(format!("special value not spelled INFINITY/NAN: {t:?}"));
            }
            body.parse::<f32>()
                .map(Value::F32)
                .map_err(|e| format!("{t:?}: {e}"))
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Inputs

/// xorshift64* with a fixed seed: reproducible inputs without extra crates.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed ^ 0x9e37_79b9_7f4a_7c15 | 1)
    }
    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    /// Uniform in `0..n` (n > 0).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    pub fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
    pub fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.below(xs.len() as u64) as usize]
    }
    /// Uniform in [0, 1).
    pub fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// FNV-1a, to derive a per-file seed from its name.
pub fn fnv1a(s: &str) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    for b in s.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// One call's arguments: as dizy C-literal arguments and as the already-converted values the C
/// harness parses (decimal integers, `{:?}`-formatted doubles).
#[derive(Clone, Debug)]
pub struct Input {
    pub lits: Vec<String>,
    pub c_args: Vec<String>,
}

fn gen_int(rng: &mut Rng, ty: Ty) -> i128 {
    let (min, max) = ty.range();
    let bits = match ty {
        Ty::Bool => 1,
        Ty::Int { bits, .. } => bits as u32,
        _ => unreachable!(),
    };
    let signed = min < 0;
    let v = match rng.below(100) {
        // Boundary values.
        0..=29 => {
            let k = rng.below(bits as u64) as u32;
            let p = 1i128 << k;
            let cands = [
                0,
                1,
                -1,
                2,
                -2,
                min,
                max,
                min + 1,
                max - 1,
                p,
                p - 1,
                p + 1,
                -p,
                -p + 1,
                -p - 1,
            ];
            *rng.pick(&cands)
        }
        // Small values.
        30..=54 => {
            if signed {
                rng.below(33) as i128 - 16
            } else {
                rng.below(33) as i128
            }
        }
        // Log-uniform magnitude.
        55..=79 => {
            let width = 1 + rng.below(bits as u64) as u32;
            let mag = (rng.next() as i128) & ((1i128 << width) - 1);
            if signed && rng.chance(50) {
                -mag
            } else {
                mag
            }
        }
        // Uniform over the whole type.
        _ => {
            let raw = (rng.next() as i128) & ((1i128 << bits) - 1);
            if signed && raw > max {
                raw - (1i128 << bits)
            } else {
                raw
            }
        }
    };
    v.clamp(min, max)
}

/// A C literal that converts to `v` when converted to `ty` (varied spellings: decimal, hex,
/// character constants, suffixes, out-of-range values for narrow types).
fn int_literal(rng: &mut Rng, ty: Ty, v: i128) -> String {
    if ty == Ty::Bool {
        return match (v, rng.below(10)) {
            (0, 0) => "0x0".to_string(),
            (0, _) => "0".to_string(),
            (_, 0) => "2".to_string(),
            (_, 1) => "-1".to_string(),
            (_, 2) => "0x10".to_string(),
            (_, 3) => "'a'".to_string(),
            _ => "1".to_string(),
        };
    }
    let (bits, signed) = match ty {
        Ty::Int { bits, signed } => (bits, signed),
        _ => unreachable!(),
    };
    let roll = rng.below(100);
    if bits <= 16 && roll < 4 {
        let alt = if v < 0 {
            v + (1i128 << bits)
        } else {
            v - (1i128 << bits)
        };
        return alt.to_string();
    }
    if roll < 12 && v >= 0 {
        return format!("{v:#x}");
    }
    if roll < 16 && (32..=126).contains(&v) && v != 39 && v != 92 {
        return format!("'{}'", v as u8 as char);
    }
    if roll < 20 && v >= 0 && !signed {
        return format!("{v}u");
    }
    if roll < 20 && bits == 64 && signed {
        return format!("{v}L");
    }
    v.to_string()
}

fn gen_f64(rng: &mut Rng) -> f64 {
    match rng.below(100) {
        0..=29 => *rng.pick(&[
            0.0,
            -0.0,
            1.0,
            -1.0,
            0.5,
            -0.5,
            2.0,
            3.0,
            100.0,
            -100.0,
            0.1,
            255.0,
            2147483647.0,
            -2147483648.0,
            1e10,
            1e15,
            1e-300,
            1e300,
            -1e300,
            f64::MAX,
            -f64::MAX,
            f64::MIN_POSITIVE,
            5e-324,
            f64::EPSILON,
        ]),
        30..=49 => (rng.below(81) as f64 - 40.0) / 2.0,
        50..=69 => (rng.unit() - 0.5) * 2000.0,
        70..=89 => {
            let e = rng.below(121) as i32 - 60;
            let m = 1.0 + rng.unit();
            let s = if rng.chance(50) { -1.0 } else { 1.0 };
            s * m * 2f64.powi(e)
        }
        _ => loop {
            let v = f64::from_bits(rng.next());
            if v.is_finite() {
                break v;
            }
        },
    }
}

fn gen_f32(rng: &mut Rng) -> f32 {
    match rng.below(100) {
        0..=29 => *rng.pick(&[
            0.0f32,
            -0.0,
            1.0,
            -1.0,
            0.5,
            -0.5,
            2.0,
            3.0,
            100.0,
            -100.0,
            0.1,
            255.0,
            2147483648.0,
            -2147483648.0,
            1e10,
            1e-30,
            1e30,
            f32::MAX,
            -f32::MAX,
            f32::MIN_POSITIVE,
            1e-45,
            f32::EPSILON,
        ]),
        30..=89 => {
            let v = gen_f64(rng) as f32;
            if v.is_finite() {
                v
            } else {
                1.5
            }
        }
        _ => loop {
            let v = f32::from_bits(rng.next() as u32);
            if v.is_finite() {
                break v;
            }
        },
    }
}

fn one_arg(rng: &mut Rng, ty: Ty) -> (String, String) {
    match ty {
        Ty::Bool | Ty::Int { .. } => {
            let v = gen_int(rng, ty);
            (int_literal(rng, ty, v), v.to_string())
        }
        Ty::Double => {
            let v = gen_f64(rng);
            let c = format!("{v:?}");
            let lit = if v == v.trunc() && v.abs() < 1e6 && v.is_sign_positive() && rng.chance(20) {
                format!("{}", v as i64)
            } else {
                c.clone()
            };
            (lit, c)
        }
        Ty::Float => {
            let v = gen_f32(rng);
            // The widened value is exactly representable as a double, so the decimal text of
            // the double denotes exactly `v` whether read as a double or as a float.
            let c = format!("{:?}", v as f64);
            let lit = if rng.chance(30) {
                format!("{c}f")
            } else {
                c.clone()
            };
            (lit, c)
        }
    }
}

/// `n` reproducible inputs for a function with the given parameter types.
pub fn gen_inputs(params: &[Ty], n: usize, seed: u64) -> Vec<Input> {
    let mut rng = Rng::new(seed);
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        let mut lits = Vec::new();
        let mut c_args = Vec::new();
        for &ty in params {
            let (l, c) = one_arg(&mut rng, ty);
            lits.push(l);
            c_args.push(c);
        }
        out.push(Input { lits, c_args });
    }
    out
}

// ---------------------------------------------------------------------------------------------
// The native harness

/// C source of a harness that includes `corpus` and, for each stdin line (one input, arguments
/// separated by spaces), forks a child that marks the input on stderr (`@@input K`), calls
/// `entry` and prints `@@result K VALUE` on stdout. A child that dies prints `@@crash K` from the
/// parent. Forking keeps globals fresh for every input, as in a separate interpreter run.
pub fn harness_source(corpus: &Path, entry: &str, params: &[Ty], ret: Ty) -> String {
    let mut s = String::new();
    s.push_str(
        "#include <stdio.h>\n#include <stdlib.h>\n#include <unistd.h>\n#include <sys/types.h>\n\
         #include <sys/wait.h>\n",
    );
    s.push_str(&format!("#include \"{}\"\n\n", corpus.display()));
    s.push_str(
        "int main(void)\n{\n    static char line[8192];\n    int k = 0;\n\
         \x20   while (fgets(line, sizeof line, stdin)) {\n\
         \x20       fflush(stdout);\n        fflush(stderr);\n\
         \x20       pid_t pid = fork();\n\
         \x20       if (pid < 0) {\n            perror(\"fork\");\n            return 3;\n        }\n\
         \x20       if (pid == 0) {\n            char *p = line, *e;\n            alarm(10);\n",
    );
    let mut names = Vec::new();
    for (i, &ty) in params.iter().enumerate() {
        let parse = match ty {
            Ty::Bool | Ty::Int { signed: true, .. } => "strtoll(p, &e, 10)",
            Ty::Int { signed: false, .. } => "strtoull(p, &e, 10)",
            Ty::Float | Ty::Double => "strtod(p, &e)",
        };
        s.push_str(&format!(
            "            {} a{i} = ({}){parse};\n            if (e == p) _exit(4);\n            p = e;\n",
            ty.c_name(),
            ty.c_name()
        ));
        names.push(format!("a{i}"));
    }
    s.push_str("            fprintf(stderr, \"@@input %d\\n\", k);\n            fflush(stderr);\n");
    s.push_str(&format!(
        "            {} r = {entry}({});\n",
        ret.c_name(),
        names.join(", ")
    ));
    let print = match ret {
        Ty::Int { signed: true, .. } => "printf(\"@@result %d %lld\\n\", k, (long long)r);",
        Ty::Bool | Ty::Int { signed: false, .. } => {
            "printf(\"@@result %d %llu\\n\", k, (unsigned long long)r);"
        }
        Ty::Double => "printf(\"@@result %d %.17g\\n\", k, r);",
        Ty::Float => "printf(\"@@result %d %.9g\\n\", k, (double)r);",
    };
    s.push_str(&format!(
        "            {print}\n            fflush(stdout);\n            _exit(0);\n        }}\n"
    ));
    s.push_str(
        "        int st = 0;\n        waitpid(pid, &st, 0);\n\
         \x20       if (!(WIFEXITED(st) && WEXITSTATUS(st) == 0)) {\n\
         \x20           printf(\"@@crash %d %d\\n\", k, st);\n            fflush(stdout);\n        }\n\
         \x20       k++;\n    }\n    return 0;\n}\n",
    );
    s
}

/// The native result of one input.
#[derive(Clone, Debug)]
pub enum Native {
    Value(Value),
    /// UBSan reported undefined behaviour (the report's first line).
    Ub(String),
    /// The child died (signal or non-zero exit) without a result.
    Crash(String),
}

/// Compile the harness for `corpus` with UBSan in `dir` and run it on `inputs`.
pub fn run_native(
    dir: &Path,
    corpus: &Path,
    entry: &str,
    params: &[Ty],
    ret: Ty,
    inputs: &[Input],
) -> Result<Vec<Native>, String> {
    let stem = corpus.file_stem().unwrap().to_string_lossy().into_owned();
    let src = dir.join(format!("{stem}_harness.c"));
    let exe = dir.join(format!("{stem}_harness"));
    let corpus_abs = corpus
        .canonicalize()
        .map_err(|e| format!("{}: {e}", corpus.display()))?;
    std::fs::write(&src, harness_source(&corpus_abs, entry, params, ret))
        .map_err(|e| e.to_string())?;
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".to_string());
    let compiled = run_with_timeout(
        Command::new(&cc)
            .args([
                "-std=gnu11",
                "-O0",
                "-w",
                "-fsanitize=undefined,float-cast-overflow",
                "-o",
            ])
            .arg(&exe)
            .arg(&src)
            // The C library's mathematics (the interpreter runs the same libm).
            .arg("-lm"),
        None,
        Duration::from_secs(120),
    );
    if compiled.code() != Some(0) {
        return Err(format!(
            "{cc} failed on the harness for {}:\n{}",
            corpus.display(),
            compiled.stderr
        ));
    }
    let mut stdin = String::new();
    for inp in inputs {
        stdin.push_str(&inp.c_args.join(" "));
        stdin.push('\n');
    }
    let run = run_with_timeout(
        Command::new(&exe).env("UBSAN_OPTIONS", "print_stacktrace=0:halt_on_error=0"),
        Some(stdin.as_bytes()),
        Duration::from_secs(300),
    );
    if run.timed_out || run.code() != Some(0) {
        return Err(format!(
            "native harness for {} did not finish cleanly ({:?}, timed out: {})\n{}",
            corpus.display(),
            run.status,
            run.timed_out,
            run.stderr.lines().take(20).collect::<Vec<_>>().join("\n")
        ));
    }
    let mut results: Vec<Option<Native>> = vec![None; inputs.len()];
    // UBSan reports, attributed to the input whose marker precedes them.
    let mut current: Option<usize> = None;
    for line in run.stderr.lines() {
        if let Some(k) = line.strip_prefix("@@input ") {
            current = k.trim().parse().ok();
        } else if line.contains("runtime error:") {
            if let Some(k) = current {
                if k < results.len() && results[k].is_none() {
                    let msg = line
                        .split("runtime error:")
                        .nth(1)
                        .unwrap_or("")
                        .trim()
                        .to_string();
                    results[k] = Some(Native::Ub(msg));
                }
            }
        }
    }
    for line in run.stdout.lines() {
        let mut it = line.splitn(3, ' ');
        let tag = it.next().unwrap_or("");
        let k: Option<usize> = it.next().and_then(|k| k.parse().ok());
        let rest = it.next().unwrap_or("");
        let Some(k) = k.filter(|&k| k < inputs.len()) else {
            continue;
        };
        match tag {
            "@@result" if results[k].is_none() => {
                let v = parse_native(rest, ret).ok_or_else(|| {
                    format!(
                        "cannot parse native output {line:?} of {}",
                        corpus.display()
                    )
                })?;
                results[k] = Some(Native::Value(v));
            }
            "@@crash" if results[k].is_none() => {
                results[k] = Some(Native::Crash(format!("wait status {rest}")));
            }
            _ => {}
        }
    }
    results
        .into_iter()
        .enumerate()
        .map(|(k, r)| {
            r.ok_or_else(|| format!("no native result for input {k} of {}", corpus.display()))
        })
        .collect()
}

/// The entry function named on the first line of a corpus file: `/* entry: NAME */`.
pub fn corpus_entry(text: &str) -> Option<String> {
    let first = text.lines().next()?;
    let after = first.split("entry:").nth(1)?;
    let name: String = after
        .trim_start()
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect();
    (!name.is_empty()).then_some(name)
}

/// Run `git ARGS` in `dir` with a committer of its own (the machine may have none); fails the
/// test when git does.
pub fn git(dir: &Path, args: &[&str]) {
    git_at(dir, None, args);
}

/// `git` with the author and committer date set (`2026-01-01T00:01:00+00:00`), for histories
/// whose order and names must be the same on every run; the first branch is `main`.
pub fn git_at(dir: &Path, date: Option<&str>, args: &[&str]) {
    let mut cmd = Command::new("git");
    if let Some(d) = date {
        cmd.env("GIT_AUTHOR_DATE", d).env("GIT_COMMITTER_DATE", d);
    }
    let out = cmd
        .current_dir(dir)
        .args(["-c", "user.name=t", "-c", "user.email=t@example.org"])
        .args([
            "-c",
            "commit.gpgsign=false",
            "-c",
            "init.defaultBranch=main",
        ])
        .args(args)
        .output()
        .expect("run git");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The validator's binary, as `scripts/setup` installs it.
pub fn sarif_multitool() -> std::path::PathBuf {
    installed_tool(
        Command::new("bash")
            .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/sarif-multitool")),
        "the SARIF Multitool is not installed: run scripts/setup",
    )
}

/// Errors and warnings Microsoft's SARIF Multitool reports on `files` (the schema, its SARIF rules
/// and GitHub's ingestion rules), per file (the SARIF log it writes with
/// `--output`: its console output is for people, and its exit status is 0 either way).
pub fn sarif_problems(files: &[std::path::PathBuf], dir: &Path) -> Vec<(String, String, String)> {
    // dizy has no web page for `informationUri` (the one thing SARIF2005 asks of a tool's
    // description that dizy leaves out); its other checks of `tool.driver` are the serde ones
    // below.
    let policy = dir.join("policy.xml");
    std::fs::write(
        &policy,
        r#"<?xml version="1.0" encoding="utf-8"?>
<Properties>
  <Properties Key="SARIF2005.ProvideToolProperties.Options">
    <Property Key="RuleEnabled" Value="Disabled" Type="Driver.RuleEnabledState" />
  </Properties>
</Properties>
"#,
    )
    .unwrap();
    let log = dir.join("validation.sarif");
    let out = Command::new(sarif_multitool())
        .arg("validate")
        .args(files)
        .args(["--rule-kind", "Sarif;Gh;Ghas", "--config"])
        .arg(&policy)
        .arg("--output")
        .arg(&log)
        .args(["--log", "ForceOverwrite"])
        // The binary is self-contained .NET: without ICU installed it needs invariant mode.
        .env("DOTNET_SYSTEM_GLOBALIZATION_INVARIANT", "1")
        .output()
        .expect("run the SARIF Multitool");
    let text = std::fs::read_to_string(&log).unwrap_or_else(|e| {
        panic!(
            "the validator wrote no log ({e}): {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    let v: serde_json::Value = serde_json::from_str(text.trim_start_matches('\u{feff}')).unwrap();
    let run = &v["runs"][0];
    assert!(
        run["invocations"][0]["executionSuccessful"] == true,
        "the validator failed: {}",
        String::from_utf8_lossy(&out.stdout)
    );
    let mut problems = vec![];
    for r in run["results"].as_array().unwrap() {
        // SARIF's default level is warning.
        let level = r["level"].as_str().unwrap_or("warning");
        if level == "error" || level == "warning" {
            let file = r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
                .as_str()
                .unwrap_or("?");
            let file = file.rsplit('/').next().unwrap_or(file).to_string();
            let args = r["message"]["arguments"].to_string();
            problems.push((file, r["ruleId"].as_str().unwrap_or("?").to_string(), args));
        }
    }
    problems
}

/// The path a locating command prints for an external tool that `scripts/setup` installs;
/// fails the test with `missing` when the command fails or prints nothing (no silent skip).
pub fn installed_tool(locate: &mut Command, missing: &str) -> std::path::PathBuf {
    let out = locate.output().expect("run the tool's locating command");
    let path = String::from_utf8_lossy(&out.stdout).trim().to_string();
    assert!(out.status.success() && !path.is_empty(), "{missing}");
    std::path::PathBuf::from(path)
}

/// Remove every `time_ms` (and the library's `time_us`) from a JSON report (times differ
/// between runs of the same analysis).
pub fn strip_times(v: &mut serde_json::Value) {
    match v {
        serde_json::Value::Object(o) => {
            o.remove("time_ms");
            o.remove("time_us");
            o.values_mut().for_each(strip_times);
        }
        serde_json::Value::Array(a) => a.iter_mut().for_each(strip_times),
        _ => {}
    }
}

/// The verdict `dizy::diff` gives function `func` of the two versions, written to `old.c` and
/// `new.c` in `dir` (default options).
pub fn verdict_of(dir: &Path, old: &str, new: &str, func: &str) -> dizy::diff::Verdict {
    verdict_with(dir, old, new, func, &dizy::diff::DiffOptions::default())
}

/// [`verdict_of`] under the given options.
pub fn verdict_with(
    dir: &Path,
    old: &str,
    new: &str,
    func: &str,
    opts: &dizy::diff::DiffOptions,
) -> dizy::diff::Verdict {
    let load = |name: &str, src: &str| {
        let p = dir.join(name);
        std::fs::write(&p, src).expect("write");
        dizy::load_gcl(&p, &Default::default()).unwrap_or_else(|e| panic!("{e}"))
    };
    let report = dizy::diff::diff_programs(&load("old.c", old), &load("new.c", new), opts);
    report
        .functions
        .iter()
        .find(|f| f.name == func)
        .unwrap_or_else(|| panic!("{func} reported"))
        .verdict
}

/// `src` compiled with gcc (`-O0 -fno-builtin`, with `<math.h>`, `<stdio.h>`, `<string.h>` and
/// `-lm`) under a `main` whose body is `body`, run once: its output lines.
pub fn run_c_lines(dir: &Path, name: &str, src: &str, body: &str) -> Vec<String> {
    let c = dir.join(format!("{name}.c"));
    let exe = dir.join(name);
    std::fs::write(
        &c,
        format!("#include <math.h>\n#include <stdio.h>\n#include <string.h>\n{src}\nint main(void) {{\n{body}  return 0;\n}}\n"),
    )
    .unwrap();
    let st = Command::new("gcc")
        .args(["-O0", "-fno-builtin", "-o"])
        .arg(&exe)
        .arg(&c)
        .arg("-lm")
        .status()
        .expect("gcc runs");
    assert!(st.success(), "gcc failed on {src}");
    let out = Command::new(&exe).output().expect("runs");
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect()
}

/// Whether `v` claims that the versions do not differ (proved, unchanged or partially
/// equivalent): what a differing pair must never get.
pub fn claims_no_difference(v: dizy::diff::Verdict) -> bool {
    use dizy::diff::Verdict::*;
    matches!(v, Equivalent | Unchanged | PartiallyEquivalent)
}

/// `dizy diff OLD NEW --format json EXTRA`: the exit code and the parsed report (panics when
/// dizy times out after 300 s or prints no JSON).
pub fn diff_json(
    old: &Path,
    new: &Path,
    extra: &[&str],
) -> (Option<i32>, serde_json::Value, String) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_dizy"));
    cmd.arg("diff")
        .arg(old)
        .arg(new)
        .args(["--format", "json"])
        .args(extra);
    let out = run_with_timeout(&mut cmd, None, Duration::from_secs(300));
    assert!(!out.timed_out, "dizy timed out on {}", old.display());
    let v = serde_json::from_str(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", out.stdout));
    (out.code(), v, out.stderr)
}
