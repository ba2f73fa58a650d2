//! Native validation of a witness (`dizy diff --validate native`): the system C compiler runs it.
//!
//! Takes the old and new source files with their loaded programs, the function, a [`Witness`]
//! already validated by the interpreter, and the frontend's preprocessor options; gives a
//! [`Native`] verdict. For each version a harness `#include`s the original file by absolute path
//! (so `static` functions and globals are reachable; a user `main` is renamed `dizy_user_main`),
//! calls the function once on the witness inputs, and writes the return value and the final
//! values of the globals the interpreter reported to a result file; bytes the code prints go to
//! stdout as usual. Both harnesses are compiled with `-O0` and UBSan (any report aborts the run)
//! and run under a timeout. The witness is *confirmed* when both runs are clean, each native
//! result equals the interpreter's for that version, and the native results differ.
//!
//! Sits after the witness search, before the report: `diff` downgrades a `different` verdict
//! whose witness native execution refutes. Values cross the boundary as bits (floating point)
//! or decimal (integers) and are rendered with the interpreter's own literal formatting, so the
//! two sides are compared as the same strings. [`run_with_timeout`] is also the process runner
//! of the integration tests. The compiler and the runs are bounded by [`ChildLimits`] (address space
//! from `--max-memory`, CPU time from `--timeout` and their own wall-clock bounds); one that
//! runs into a limit gives [`Native::Limit`].

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

mod harness;

use super::memory::{self, Input, Param, Shape};
use super::{canonical_names, differ, Behaviour, Witness};
use crate::diag::{Error, Limit};
use crate::frontend;
use crate::gcl::GclProgram;
use crate::interp::{self, Target, Value};
use crate::ir::{CType, VarKind};
use crate::resources::ChildLimits;
#[cfg(test)]
use harness::{c_value, input_value};
use harness::{harness, stubs};

/// Sanitizers the harness is built with; float-to-int overflow is undefined in C and in the
/// interpreter, so it is checked too.
const SANITIZE: &str = "-fsanitize=undefined,float-cast-overflow";

/// Result of native validation.
#[derive(Clone, Debug, PartialEq)]
pub enum Native {
    /// Both versions ran cleanly, matched the interpreter and differ; the text is the
    /// `validated_by` description.
    Confirmed(String),
    /// Native execution contradicts the witness (the reason says what it showed).
    Refuted(String),
    /// The witness cannot be checked natively (the reason says why).
    NotApplicable(String),
    /// The compiler or a run ran into a resource limit of [`ChildLimits`]; the error names the
    /// version's file and the limit.
    Limit(Error),
}

/// One version as the harness needs it.
pub struct Version<'a> {
    pub source: &'a Path,
    pub prog: &'a GclProgram,
}

/// What a native run produced, or why it has no result.
#[derive(Clone, Debug, PartialEq)]
pub enum RunResult {
    Ran(Behaviour),
    /// Did not finish within the run's time bound (a non-termination witness expects this).
    TimedOut(Duration),
    /// UBSan report, crash, non-zero exit or missing result.
    Failed(String),
    /// Stopped by a limit of [`ChildLimits`] (with the limits it ran under).
    Limit(ChildLimits, Limit),
}

/// Check `w` natively. `timeout` bounds each run (compilation has its own generous bound).
pub fn validate(
    old: Version,
    new: Version,
    func: &str,
    w: &Witness,
    fe: &frontend::Options,
    timeout: Duration,
) -> Native {
    let no_calls = |b: &Behaviour| Behaviour {
        calls: vec![],
        returned: None,
        ..b.clone()
    };
    if !differ(&no_calls(&w.old), &no_calls(&w.new)) {
        return Native::NotApplicable(
            "the versions differ only in the calls they make to functions the file does not define, or in the contents a returned pointer points to, which the native harness does not record".into(),
        );
    }
    let dir = match TempDir::new() {
        Ok(d) => d,
        Err(e) => {
            return Native::NotApplicable(format!("cannot create a temporary directory: {e}"))
        }
    };
    let mut results = vec![];
    // Pointers returned or stored are named by the old version's parameters in both (the
    // versions may name a parameter differently; its position is what they share).
    let mut param_names = old
        .prog
        .function(func)
        .and_then(|f| super::witness_params(&old.prog.program, f))
        .unwrap_or_default();
    // The globals the witness sets come after the parameters, as in the interpreter's runs.
    for ((name, _), input) in w.global_inputs.iter().zip(&w.global_args) {
        let shape = global_type(&old, func, name).and_then(|t| {
            Some(super::memory::Param {
                name: name.clone(),
                ty: t.clone(),
                shape: super::memory::Shape::of(&old.prog.program, t)?,
            })
        });
        match shape {
            Some(p) => param_names.push(p),
            None => {
                return Native::NotApplicable(format!(
                    "the witness sets global `{name}` = {input:?}, which the harness cannot name"
                ))
            }
        }
    }
    let all_args: Vec<Input> = w.args.iter().chain(&w.global_args).cloned().collect();
    for (tag, v, claimed) in [("old", &old, &w.old), ("new", &new, &w.new)] {
        let src = match harness(v, func, w, claimed) {
            Ok(s) => s,
            Err(e) => return Native::NotApplicable(e),
        };
        let file = v.source.display().to_string();
        // `__FILE__` as the frontend expanded it: the new file's name in both versions.
        let mut names = v.source.canonicalize().map_or_else(
            |_| vec![],
            |p| frontend::file_macro_args(&p, &new.source.display().to_string()),
        );
        // The constants of missing headers, as the witness chose them.
        for (n, val) in &w.constants {
            if !n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                return Native::NotApplicable(format!(
                    "the witness chose a value for `{n}`, which the harness cannot define"
                ));
            }
            names.push(format!("-D{n}={val}"));
        }
        // A version claimed to access memory it may not is built with AddressSanitizer too.
        let asan = claimed.undefined.is_some();
        let stub = match stubs(v, w) {
            Ok(s) => s,
            Err(e) => return Native::NotApplicable(e),
        };
        let fe = &fe.for_file(v.source);
        let exe = match compile(&dir.0, tag, (&src, stub.as_deref()), &names, fe, asan) {
            Ok(p) => p,
            Err(Built::Failed(e)) => return Native::NotApplicable(format!("{tag} version: {e}")),
            Err(Built::Limit(limits, hit)) => {
                return Native::Limit(Error::limit_hit(
                    file,
                    hit,
                    format!(
                        "`{}` building the native harness of the {tag} version exceeded {}",
                        fe.cpp,
                        limits.describe(hit)
                    ),
                ))
            }
        };
        let res = run(
            &exe,
            &dir.0.join(format!("{tag}.out")),
            (v, func, &all_args, &param_names),
            timeout,
            &fe.child,
            asan,
        );
        // The claimed invalid access happened natively when a sanitizer stopped the run or it
        // crashed; a clean run refutes it.
        let res = match (res, asan) {
            (RunResult::Failed(why), true)
                if why.starts_with("has undefined behaviour") || why.starts_with("stopped abnormally") =>
            {
                RunResult::Ran(claimed.clone())
            }
            (RunResult::Ran(_), true) => {
                return Native::Refuted(format!(
                    "the {tag} version ran without an invalid memory access natively (built with AddressSanitizer)"
                ))
            }
            (res, _) => res,
        };
        // A version that did not return in the interpreter is expected to run on natively:
        // running out of time (or of CPU seconds) confirms it.
        let res = match (&res, claimed.diverged) {
            (RunResult::TimedOut(_), Some(_)) => RunResult::Ran(claimed.clone()),
            (RunResult::Limit(_, Limit::CpuTime), Some(_)) => RunResult::Ran(claimed.clone()),
            _ => res,
        };
        if let RunResult::Limit(limits, hit) = res {
            return Native::Limit(Error::limit_hit(
                file,
                hit,
                format!(
                    "the native run of the {tag} version exceeded {}",
                    limits.describe(hit)
                ),
            ));
        }
        results.push((tag, observable(v, func, claimed), res));
    }
    let mut natives = vec![];
    for (tag, claimed, res) in results {
        natives.push(match res {
            RunResult::Ran(b) => (tag, claimed, b),
            RunResult::Failed(why) => {
                return Native::Refuted(format!("the {tag} version {why} natively"));
            }
            RunResult::TimedOut(t) => {
                return Native::Refuted(format!(
                    "the {tag} version did not finish within {t:?} natively"
                ));
            }
            RunResult::Limit(..) => unreachable!("returned above"),
        });
    }
    let (o, n) = (&natives[0], &natives[1]);
    compare((&o.1, &o.2), (&n.1, &n.2), &fe.cpp)
}

/// The decision once both runs produced results: `claimed` is the interpreter's behaviour
/// restricted to what native code can observe, `native` what the run printed.
pub fn compare(
    (old_claimed, old_native): (&Behaviour, &Behaviour),
    (new_claimed, new_native): (&Behaviour, &Behaviour),
    cc: &str,
) -> Native {
    // A version that reaches its end without `return` leaves its caller an indeterminate
    // value: natively whatever the register held, so that value is not compared.
    let unseen = |claimed: &Behaviour, native: &Behaviour| {
        let mut n = native.clone();
        if claimed.ret == crate::interp::NO_VALUE {
            n.ret = claimed.ret.clone();
        }
        n
    };
    let (old_native, new_native) = (
        &unseen(old_claimed, old_native),
        &unseen(new_claimed, new_native),
    );
    let fell_off: Vec<&str> = [("old", old_claimed), ("new", new_claimed)]
        .into_iter()
        .filter(|(_, c)| c.ret == crate::interp::NO_VALUE)
        .map(|(t, _)| t)
        .collect();
    for (tag, claimed, native) in [
        ("old", old_claimed, old_native),
        ("new", new_claimed, new_native),
    ] {
        if claimed.ret != native.ret
            || claimed.globals != native.globals
            || claimed.memory != native.memory
            || claimed.output != native.output
        {
            return Native::Refuted(format!(
                "the {tag} version natively {} but the interpreter claims it {}",
                describe(native),
                describe(claimed)
            ));
        }
    }
    // What each call changed is the interpreter's finding (native code prints finals only).
    let with_modified = |n: &Behaviour, c: &Behaviour| Behaviour {
        modified: c.modified.clone(),
        ..n.clone()
    };
    if !differ(
        &with_modified(old_native, old_claimed),
        &with_modified(new_native, new_claimed),
    ) {
        return Native::NotApplicable(
            "the versions differ only in static locals, which native code cannot observe".into(),
        );
    }
    let unobserved = if fell_off.is_empty() {
        String::new()
    } else {
        format!(
            "; that the {} version reaches the end without `return` is the interpreter's \
             finding (natively its caller reads an indeterminate value)",
            fell_off.join(" and the ")
        )
    };
    Native::Confirmed(format!(
        "interpreter+native ({cc} -O0 -fsanitize=undefined){unobserved}"
    ))
}

fn describe(b: &Behaviour) -> String {
    let mut parts = vec![format!("returns {}", b.ret)];
    parts.extend(b.globals.iter().map(|(n, v)| format!("{n} = {v}")));
    parts.extend(b.memory.iter().map(|(n, v)| format!("{n}[] = {v}")));
    if !b.output.is_empty() {
        parts.push(format!("prints {:?}", String::from_utf8_lossy(&b.output)));
    }
    parts.join(", ")
}

/// A static local is a global named `function.variable`: the harness cannot name it.
fn nameable(global: &str) -> bool {
    !global.contains('.')
}

fn global_type<'p>(v: &'p Version, func: &str, name: &str) -> Option<&'p CType> {
    let f = &v.prog.function(func)?.func;
    f.vars
        .iter()
        .find(|x| x.name == name && matches!(x.kind, VarKind::Global(_)))
        .map(|x| &x.ty)
}

/// Pointers are compared by nullness only: the interpreter's addresses are its own.
fn pointer_text(lit: &str) -> String {
    if lit == "0" { "0" } else { "non-null" }.to_string()
}

/// The interpreter's behaviour as native execution can observe it.
fn observable(v: &Version, func: &str, b: &Behaviour) -> Behaviour {
    let ret_ptr = v
        .prog
        .function(func)
        .is_some_and(|f| f.func.ret.is_pointer());
    Behaviour {
        // A returned pointer is named by the buffer it points into; a function's address
        // is just non-null to native code.
        ret: if ret_ptr && b.ret.starts_with('&') {
            "non-null".into()
        } else {
            b.ret.clone()
        },
        globals: b
            .globals
            .iter()
            .filter(|(n, _)| nameable(n) && global_type(v, func, n).is_some_and(CType::is_scalar))
            .map(|(n, val)| {
                let ptr = global_type(v, func, n).is_some_and(CType::is_pointer);
                (n.clone(), if ptr { pointer_text(val) } else { val.clone() })
            })
            .collect(),
        modified: b.modified.clone(),
        memory: b.memory.clone(),
        output: b.output.clone(),
        diverged: b.diverged,
        undefined: b.undefined.clone(),
        calls: vec![],
        returned: None,
    }
}

/// Why a harness was not built.
enum Built {
    Failed(String),
    Limit(ChildLimits, Limit),
}

/// How long the compiler may take to build a harness (wall clock; its CPU time is bounded by
/// this too, and by `--timeout`).
const COMPILE_TIMEOUT: Duration = Duration::from_secs(120);

fn compile(
    dir: &Path,
    tag: &str,
    (src, stubs): (&str, Option<&str>),
    file_names: &[String],
    fe: &frontend::Options,
    asan: bool,
) -> Result<PathBuf, Built> {
    let c = dir.join(format!("{tag}_harness.c"));
    let exe = dir.join(format!("{tag}_harness"));
    std::fs::write(&c, src).map_err(|e| Built::Failed(format!("cannot write the harness: {e}")))?;
    // UBSan only: an ASan build could not run under the address-space limit (see `ChildLimits`).
    let limits = fe.child.cpu_at_most(COMPILE_TIMEOUT);
    let mut cmd = limits
        .command(&fe.cpp)
        .map_err(|e| Built::Failed(format!("cannot run `{}`: {e}", fe.cpp)))?;
    cmd.args([
        "-std=gnu11",
        "-O0",
        "-w",
        SANITIZE,
        "-fno-sanitize-recover=all",
    ]);
    if asan {
        cmd.arg("-fsanitize=address");
    }
    for d in &fe.include_dirs {
        cmd.arg("-I").arg(d);
    }
    for d in &fe.defines {
        cmd.arg(format!("-D{d}"));
    }
    cmd.args(file_names)
        .env("SOURCE_DATE_EPOCH", frontend::SOURCE_DATE_EPOCH);
    // The C library's mathematics, which the interpreter also runs (`interp::libm`).
    cmd.arg("-o").arg(&exe).arg(&c);
    if let Some(text) = stubs {
        let p = dir.join(format!("{tag}_stubs.c"));
        std::fs::write(&p, text)
            .map_err(|e| Built::Failed(format!("cannot write the stubs: {e}")))?;
        cmd.arg(p);
    }
    cmd.arg("-lm");
    let out = run_with_timeout(&mut cmd, None, COMPILE_TIMEOUT);
    if out.status.is_some_and(|s| s.success()) {
        return Ok(exe);
    }
    if let Some(hit) = out
        .status
        .filter(|_| !out.timed_out)
        .and_then(|s| limits.hit(&s, out.elapsed, Some(&out.stderr)))
    {
        return Err(Built::Limit(limits, hit));
    }
    let err = String::from_utf8_lossy(&out.stderr);
    let first = err
        .lines()
        .find(|l| l.contains("error") || l.contains("undefined reference"))
        .or_else(|| err.lines().next())
        .unwrap_or(if out.timed_out { "timed out" } else { "failed" })
        .trim();
    Err(Built::Failed(format!(
        "`{}` cannot build the harness: {first}",
        fe.cpp
    )))
}

fn run(
    exe: &Path,
    out: &Path,
    (v, func, inputs, names): (&Version, &str, &[Input], &[Param]),
    timeout: Duration,
    child: &ChildLimits,
    asan: bool,
) -> RunResult {
    let mut limits = child.cpu_at_most(timeout);
    // AddressSanitizer reserves terabytes of address space: its own resident-size bound
    // replaces the address-space limit.
    let rss_mb = limits.memory_mb;
    if asan {
        limits.memory_mb = 0;
    }
    let mut cmd = match limits.command(exe) {
        Ok(c) => c,
        Err(e) => return RunResult::Failed(format!("could not be started ({e})")),
    };
    cmd.arg(out).env(
        "UBSAN_OPTIONS",
        "print_stacktrace=0:halt_on_error=1:exitcode=86",
    );
    if asan {
        let rss = if rss_mb == 0 { 4096 } else { rss_mb };
        cmd.env(
            "ASAN_OPTIONS",
            // Only the exit status is read: no time spent symbolizing the report.
            format!("detect_leaks=0:hard_rss_limit_mb={rss}:exitcode=87:symbolize=0"),
        );
    }
    let r = run_with_timeout(&mut cmd, None, timeout);
    let stderr = String::from_utf8_lossy(&r.stderr);
    if r.timed_out {
        return RunResult::TimedOut(timeout);
    }
    // The analysed code's own messages are not read for this: only how the process ended.
    if let Some(hit) = r.status.and_then(|s| limits.hit(&s, r.elapsed, None)) {
        return RunResult::Limit(limits, hit);
    }
    if let Some(ub) = stderr.lines().find(|l| l.contains("runtime error:")) {
        let msg = ub.split("runtime error:").nth(1).unwrap_or("").trim();
        return RunResult::Failed(format!("has undefined behaviour ({msg})"));
    }
    match r.status {
        Some(s) if s.success() => {}
        Some(s) => return RunResult::Failed(format!("stopped abnormally ({s})")),
        None => return RunResult::Failed("could not be waited for".into()),
    }
    let text = match std::fs::read_to_string(out) {
        Ok(t) => t,
        Err(_) => return RunResult::Failed("did not return (no result written)".into()),
    };
    parse_result(&text, (v, func, inputs, names), r.stdout)
        .map_or_else(RunResult::Failed, RunResult::Ran)
}

/// Turn the harness's result file into a [`Behaviour`] in the interpreter's formatting.
fn parse_result(
    text: &str,
    (v, func, inputs, names): (&Version, &str, &[Input], &[Param]),
    output: Vec<u8>,
) -> Result<Behaviour, String> {
    let gf = v.prog.function(func).ok_or("function vanished")?;
    let f = &gf.func;
    let params = super::witness_params(&v.prog.program, gf).unwrap_or_default();
    let np = params.len();
    let mut params = canonical_names(params, names);
    // The globals the witness set, numbered after the parameters.
    params.extend(names.iter().skip(np).cloned());
    let bad = |l: &str| format!("wrote an unreadable result line {l:?}");
    let value = |word: &str, t: &CType| -> Option<String> {
        Some(match t {
            CType::Ptr(_) => pointer_text(word),
            CType::Double => interp::format_value(
                &Value::Double(f64::from_bits(u64::from_str_radix(word, 16).ok()?)),
                t,
            ),
            CType::Float => interp::format_value(
                &Value::Float(f32::from_bits(u32::from_str_radix(word, 16).ok()?)),
                t,
            ),
            _ => interp::format_value(&Value::Int(word.parse::<i128>().ok()?), t),
        })
    };
    let mut b = Behaviour {
        ret: "void".into(),
        globals: vec![],
        modified: vec![],
        memory: vec![],
        output,
        diverged: None,
        undefined: None,
        calls: vec![],
        returned: None,
    };
    for l in text.lines() {
        let words: Vec<&str> = l.split(' ').collect();
        match words.as_slice() {
            ["return", t] if f.ret.is_pointer() => {
                let t = parse_target(t).ok_or_else(|| bad(l))?;
                b.ret = memory::pointer_text(&params, inputs, &t);
            }
            ["return", w] => b.ret = value(w, &f.ret).ok_or_else(|| bad(l))?,
            ["mem", k, rest @ ..] | ["memp", k, rest @ ..] => {
                let p = k
                    .parse::<usize>()
                    .ok()
                    .and_then(|k| params.get(k))
                    .ok_or_else(|| bad(l))?;
                let Shape::Buffer { elem, .. } = &p.shape else {
                    return Err(bad(l));
                };
                let text = if l.starts_with("memp") {
                    let ts: Option<Vec<String>> = rest
                        .iter()
                        .map(|t| parse_target(t).map(|t| memory::pointer_text(&params, inputs, &t)))
                        .collect();
                    format!("{{{}}}", ts.ok_or_else(|| bad(l))?.join(", "))
                } else {
                    let hex = rest.first().copied().unwrap_or("");
                    let bytes: Option<Vec<u8>> = (0..hex.len() / 2)
                        .map(|i| u8::from_str_radix(hex.get(2 * i..2 * i + 2)?, 16).ok())
                        .collect();
                    let bytes = bytes.ok_or_else(|| bad(l))?;
                    memory::contents_text(&v.prog.program, elem, &bytes, &|_| "?".into())
                };
                b.memory.push((p.name.clone(), text));
            }
            ["global", g, w] => {
                let t = global_type(v, func, g).ok_or_else(|| bad(l))?;
                b.globals
                    .push((g.to_string(), value(w, t).ok_or_else(|| bad(l))?));
            }
            _ => return Err(bad(l)),
        }
    }
    Ok(b)
}

/// A target as the harness writes it: `0`, `@K:OFF` or `x`.
fn parse_target(t: &str) -> Option<Target> {
    Some(match t {
        "0" => Target::Null,
        "x" => Target::Other,
        _ => {
            let (k, off) = t.strip_prefix('@')?.split_once(':')?;
            Target::Input {
                arg: k.parse().ok()?,
                off: off.parse().ok()?,
            }
        }
    })
}

/// A directory removed when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new() -> std::io::Result<TempDir> {
        static N: AtomicUsize = AtomicUsize::new(0);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let p = std::env::temp_dir().join(format!(
            "dizy-native-{}-{}-{nanos}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&p)?;
        Ok(TempDir(p))
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// What a process did.
#[derive(Debug)]
pub struct Outcome {
    pub status: Option<ExitStatus>,
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    pub timed_out: bool,
    pub elapsed: Duration,
}

/// Run `cmd` with the given standard input (or none), capturing stdout and stderr; kill it if
/// it has not finished after `timeout`. Readers run on their own threads so a child that fills
/// a pipe cannot block.
pub fn run_with_timeout(cmd: &mut Command, stdin: Option<&[u8]>, timeout: Duration) -> Outcome {
    cmd.stdin(if stdin.is_some() {
        Stdio::piped()
    } else {
        Stdio::null()
    })
    .stdout(Stdio::piped())
    .stderr(Stdio::piped());
    let start = Instant::now();
    let mut child = match cmd.spawn() {
        Ok(c) => c,
        Err(e) => {
            return Outcome {
                status: None,
                stdout: vec![],
                stderr: format!("cannot run {:?}: {e}", cmd.get_program()).into_bytes(),
                timed_out: false,
                elapsed: start.elapsed(),
            }
        }
    };
    let writer = stdin.zip(child.stdin.take()).map(|(data, mut pipe)| {
        let data = data.to_vec();
        std::thread::spawn(move || {
            let _ = pipe.write_all(&data);
        })
    });
    let drain = |p: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut v = Vec::new();
            if let Some(mut p) = p {
                let _ = p.read_to_end(&mut v);
            }
            v
        })
    };
    let out = drain(
        child
            .stdout
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let err = drain(
        child
            .stderr
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let mut timed_out = false;
    let mut nap = Duration::from_millis(1);
    let status = loop {
        match child.try_wait() {
            Ok(Some(st)) => break Some(st),
            Ok(None) if start.elapsed() > timeout => {
                timed_out = true;
                let _ = child.kill();
                break child.wait().ok();
            }
            Ok(None) => {
                std::thread::sleep(nap);
                nap = (nap * 2).min(Duration::from_millis(20));
            }
            Err(_) => break None,
        }
    };
    let elapsed = start.elapsed();
    if let Some(w) = writer {
        let _ = w.join();
    }
    Outcome {
        status,
        stdout: out.join().unwrap_or_default(),
        stderr: err.join().unwrap_or_default(),
        timed_out,
        elapsed,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b(ret: &str, globals: &[(&str, &str)], out: &str) -> Behaviour {
        Behaviour {
            ret: ret.into(),
            globals: globals
                .iter()
                .map(|(n, v)| (n.to_string(), v.to_string()))
                .collect(),
            modified: globals.iter().map(|(n, _)| n.to_string()).collect(),
            memory: vec![],
            output: out.as_bytes().to_vec(),
            diverged: None,
            undefined: None,
            calls: vec![],
            returned: None,
        }
    }

    #[test]
    fn confirmed_when_native_matches_and_differs() {
        let (o, n) = (b("1", &[("g", "0")], ""), b("0", &[("g", "0")], ""));
        assert!(matches!(
            compare((&o, &o.clone()), (&n, &n.clone()), "cc"),
            Native::Confirmed(s) if s.contains("native")
        ));
    }

    #[test]
    fn refuted_when_native_return_disagrees() {
        let (o, n) = (b("1", &[], ""), b("0", &[], ""));
        let native_new = b("1", &[], "");
        let r = compare((&o, &o), (&n, &native_new), "cc");
        assert!(
            matches!(&r, Native::Refuted(s) if s.contains("new version natively returns 1")),
            "{r:?}"
        );
    }

    #[test]
    fn refuted_when_native_global_or_output_disagrees() {
        let o = b("1", &[("g", "5")], "a");
        let n = b("1", &[("g", "6")], "a");
        let wrong_global = b("1", &[("g", "7")], "a");
        assert!(matches!(
            compare((&o, &wrong_global), (&n, &n), "cc"),
            Native::Refuted(_)
        ));
        let wrong_output = b("1", &[("g", "5")], "b");
        assert!(matches!(
            compare((&o, &wrong_output), (&n, &n), "cc"),
            Native::Refuted(_)
        ));
    }

    #[test]
    fn buffers_count_as_results_both_ways() {
        let mem = |v: &str| {
            let mut x = b("void", &[], "");
            x.memory = vec![("p".into(), v.into())];
            x
        };
        let (o, n) = (mem("{1}"), mem("{0}"));
        // A difference only in the buffer is confirmed…
        assert!(matches!(
            compare((&o, &o.clone()), (&n, &n.clone()), "cc"),
            Native::Confirmed(_)
        ));
        // …and a buffer native code left otherwise refutes the witness.
        assert!(matches!(
            compare((&o, &mem("{2}")), (&n, &n.clone()), "cc"),
            Native::Refuted(s) if s.contains("p[] = {2}")
        ));
    }

    #[test]
    fn no_native_difference_is_not_a_confirmation() {
        let o = b("1", &[], "");
        assert!(matches!(
            compare((&o, &o), (&o, &o), "cc"),
            Native::NotApplicable(_)
        ));
    }

    #[test]
    fn values_are_exact_c_expressions() {
        assert_eq!(
            c_value(&Value::Int(i128::from(i64::MIN)), &CType::LONG).as_deref(),
            Some("(long long)0x8000000000000000ULL")
        );
        assert_eq!(
            c_value(&Value::Int(-1), &CType::UCHAR).as_deref(),
            Some("(unsigned char)0xffffffffffffffffULL")
        );
        assert_eq!(
            c_value(&Value::Double(1.5), &CType::Double).as_deref(),
            Some("(double)dizy_f64(0x3ff8000000000000ULL)")
        );
        assert!(matches!(input_value("NAN", &CType::Double), Ok(Value::Double(x)) if x.is_nan()));
        assert!(
            matches!(input_value("-INFINITY", &CType::Float), Ok(Value::Float(x)) if x == f32::NEG_INFINITY)
        );
    }

    #[test]
    fn runner_kills_on_timeout() {
        let r = run_with_timeout(
            Command::new("sleep").arg("5"),
            None,
            Duration::from_millis(100),
        );
        assert!(r.timed_out && r.elapsed < Duration::from_secs(4));
        let r = run_with_timeout(
            &mut Command::new("cat"),
            Some(b"abc"),
            Duration::from_secs(5),
        );
        assert_eq!(r.stdout, b"abc");
    }
}
