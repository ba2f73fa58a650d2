//! Preprocessing: a C file → preprocessed text with line markers, under bounds.
//!
//! Takes a path and [`Options`]; gives the output of `cc -E` (or `--cpp`) and the headers that
//! were missing and replaced by empty stand-ins (each with the `file:line` that included it).
//! The file is checked first (a directory, FIFO, device or an oversized file is an [`Error`],
//! never a hang). The preprocessor runs under the address-space and CPU-time limits of
//! [`crate::resources::ChildLimits`], and is killed when its output exceeds [`MAX_INPUT_BYTES`] or it
//! runs past the time limit, so a macro bomb ends with a message. First step of the frontend;
//! `super` parses its output.

use std::path::{Path, PathBuf};
use std::process::Command;

use super::{bad_input_at, bad_input_in, LineMap, Options, MAX_INPUT_BYTES, MAX_SOURCE_BYTES};
use crate::diag::{Error, Result, Stop};

/// Missing headers replaced by stand-ins before giving up.
const MAX_MISSING_HEADERS: usize = 100;

/// Refuse, before running anything on it, what is not a readable regular file of acceptable
/// size (a FIFO or device would block the preprocessor).
pub(super) fn check_input_file(path: &Path, display: &str) -> Result<()> {
    let meta = std::fs::metadata(path)
        .map_err(|e| bad_input_in(display, format!("cannot read file: {e}")))?;
    if meta.is_dir() {
        return Err(bad_input_in(display, "is a directory, not a C file"));
    }
    // A FIFO or device would block or never end.
    if !meta.is_file() {
        return Err(bad_input_in(display, "is not a regular file"));
    }
    if meta.len() > MAX_SOURCE_BYTES {
        return Err(bad_input_in(
            display,
            format!(
                "file is {} bytes; dizy accepts C files up to {MAX_SOURCE_BYTES} bytes",
                meta.len()
            ),
        ));
    }
    std::fs::File::open(path)
        .map_err(|e| bad_input_in(display, format!("cannot read file: {e}")))?;
    Ok(())
}

/// What the preprocessor gave, and what dizy changed to get it.
pub(super) struct Preprocessed {
    /// The output, with line markers naming the original file.
    pub text: String,
    /// Headers replaced by empty stand-ins, each with the `file:line` that included it.
    pub missing: Vec<(String, String)>,
    /// `#error` directives that were skipped, in the main file or a header: the file as the
    /// preprocessor named it, the line and the message.
    pub skipped_errors: Vec<SkippedError>,
}

/// An `#error` directive the preprocessor met and dizy went past.
pub(super) struct SkippedError {
    pub file: String,
    pub line: u32,
    pub message: String,
}

/// Run the preprocessor; when it stops at a missing header, give the header an empty stand-in
/// in a temporary directory searched after all real ones, and retry. `#error` directives
/// (unconfigured code: `#error "Can't decide which …"`, in the main file or a project header)
/// do not stop the preprocessor, which writes its whole output anyway: when they are the only
/// errors, that output is used and they are listed in [`Preprocessed::skipped_errors`].
pub(super) fn preprocess(path: &Path, opts: &Options, display: &str) -> Result<Preprocessed> {
    // This version's tree's headers (see `Options::trees`).
    let opts = &opts.for_file(path);
    let mut standins: Option<TempDir> = None;
    let mut missing: Vec<(String, String)> = vec![];
    // Address space and CPU time bounded by `--max-memory` and `--timeout` (the wall-clock
    // kill of `output_bounded` stays: it usually comes first).
    let limits = &opts.child;
    loop {
        let mut cmd = limits.command(&opts.cpp).map_err(|e| {
            bad_input_in(
                display,
                format!("cannot run preprocessor `{}`: {e}", opts.cpp),
            )
        })?;
        cmd.arg("-E")
            .arg(format!("-std={}", opts.std.as_deref().unwrap_or("gnu11")))
            // glibc's `<ctype.h>` otherwise turns `isprint(c)` into a read of the table that
            // `__ctype_b_loc()` returns, which neither the analysis (a pure function of `c`)
            // nor the interpreter (the "C" locale's classes) can see as what it is; the
            // functions compute the same values. A `-U__NO_CTYPE` of the user comes later.
            .arg("-D__NO_CTYPE");
        for d in &opts.quote_dirs {
            cmd.arg("-iquote").arg(d);
        }
        for d in &opts.include_dirs {
            cmd.arg("-I").arg(d);
        }
        for d in &opts.defines {
            cmd.arg(format!("-D{d}"));
        }
        for u in &opts.undefines {
            cmd.arg(format!("-U{u}"));
        }
        for f in &opts.forced_includes {
            cmd.arg("-include").arg(f);
        }
        if let Some(dir) = &standins {
            cmd.arg("-idirafter").arg(&dir.0);
        }
        if let Some(name) = &opts.file_name {
            cmd.args(file_macro_args(path, name));
        }
        cmd.env("SOURCE_DATE_EPOCH", SOURCE_DATE_EPOCH);
        cmd.arg(path);
        let started = std::time::Instant::now();
        let out = output_bounded(&mut cmd, opts.time_limit).map_err(|e| {
            bad_input_in(
                display,
                match e {
                    Bounded::Io(e) => format!("cannot run preprocessor `{}`: {e}", opts.cpp),
                    Bounded::TooLarge => format!(
                        "preprocessing stopped: the output exceeds {MAX_INPUT_BYTES} bytes (runaway macro expansion?)"
                    ),
                    Bounded::TooSlow(t) => {
                        return Error::stopped(
                            Stop::Timeout,
                            format!(
                                "preprocessing stopped: `{} -E` did not finish within {:.1} s (runaway macro expansion?)",
                                opts.cpp,
                                t.as_secs_f64()
                            ),
                        )
                        .located(display, None)
                    }
                },
            )
        })?;
        let stderr = String::from_utf8_lossy(&out.stderr);
        // `#include FT_FREETYPE_H` whose macro a missing header would define: the preprocessor
        // skips the line and goes on, as with an empty stand-in; the macro is listed with the
        // missing headers.
        let (computed, rest) = if out.status.success() {
            (vec![], stderr.to_string())
        } else {
            computed_includes(&stderr)
        };
        let skipped_errors = if out.status.success() {
            Some(vec![])
        } else if computed.is_empty() {
            only_error_directives(&stderr)
        } else if !(rest.contains(": error: ") || rest.contains(": fatal error: "))
            && limits
                .hit(&out.status, started.elapsed(), Some(&out.stderr))
                .is_none()
            && out.status.code() == Some(1)
        {
            // Only computed includes failed: the preprocessor went on and wrote everything
            // (exit status 1, not a signal or a limit).
            Some(vec![])
        } else {
            only_error_directives(&rest)
        };
        if skipped_errors.is_some() {
            for c in computed {
                if !missing.contains(&c) {
                    missing.push(c);
                }
            }
        }
        let stderr = rest;
        if let Some(skipped_errors) = skipped_errors {
            let text = String::from_utf8(out.stdout).map_err(|e| {
                let upto = &e.as_bytes()[..e.utf8_error().valid_up_to()];
                let msg = "the text is not valid UTF-8; dizy reads UTF-8 or ASCII C";
                // The valid prefix carries the line markers that lead back to the source line.
                let prefix = std::str::from_utf8(upto).unwrap_or("");
                match LineMap::new(prefix, display).locate(prefix.len()) {
                    Some((file, line)) => bad_input_at(file, line, msg),
                    None => bad_input_in(display, msg),
                }
            })?;
            return Ok(Preprocessed {
                text,
                missing,
                skipped_errors,
            });
        }
        if let Some(hit) = limits.hit(&out.status, started.elapsed(), Some(&out.stderr)) {
            return Err(Error::limit_hit(
                display,
                hit,
                format!("the preprocessor exceeded {}", limits.describe(hit)),
            ));
        }
        if missing.len() < MAX_MISSING_HEADERS {
            if let Some((header, at)) = missing_header(&stderr) {
                if !missing.iter().any(|(h, _)| *h == header) {
                    if standins.is_none() {
                        standins = Some(TempDir::new("standins").map_err(|e| {
                            bad_input_in(
                                display,
                                format!("cannot create a temporary directory: {e}"),
                            )
                        })?);
                    }
                    let dir = &standins.as_ref().expect("created above").0;
                    let file = dir.join(&header);
                    let made = file
                        .parent()
                        .map_or(Ok(()), std::fs::create_dir_all)
                        .and_then(|_| std::fs::write(&file, b""));
                    if made.is_ok() {
                        missing.push((header, at));
                        continue;
                    }
                }
            }
        }
        // The compiler's first diagnostic that is not a skippable `#error` already has the
        // form `file:line:col: error: …`.
        let first = stderr
            .lines()
            .find(|l| {
                (l.contains(": error: ") || l.contains(": fatal error: "))
                    && error_directive(l).is_none()
            })
            .or_else(|| stderr.lines().find(|l| l.contains("error")))
            .or_else(|| stderr.lines().next())
            .unwrap_or("preprocessor failed")
            .trim()
            .to_string();
        // Located where the diagnostic is (a header, or the file itself).
        return Err(match diagnostic_place(&first) {
            Some((file, line, what)) => {
                bad_input_at(file, line, format!("preprocessing failed: {what}"))
            }
            None => bad_input_in(display, format!("preprocessing failed: {first}")),
        });
    }
}

/// The `#error` directives of a failed run, when they are its only errors (the output is then
/// complete: the preprocessor goes on after an `#error`); `None` when anything else failed.
fn only_error_directives(stderr: &str) -> Option<Vec<SkippedError>> {
    let mut found = vec![];
    for l in stderr.lines() {
        if l.contains(": fatal error: ") {
            return None;
        }
        if l.contains(": error: ") {
            found.push(error_directive(l)?);
        }
    }
    (!found.is_empty()).then_some(found)
}

/// Computed includes the preprocessor could not expand to a header name (`#include MACRO`
/// with `MACRO` undefined: GCC's "#include expects", Clang's "expected \"FILENAME\""): each as
/// (`MACRO (computed #include)`, `file:line`), and the diagnostics without those lines.
fn computed_includes(stderr: &str) -> (Vec<(String, String)>, String) {
    let mut found = vec![];
    let mut rest = String::new();
    for l in stderr.lines() {
        let computed = l.split_once(": error: ").filter(|(_, m)| {
            m.starts_with("#include expects")
                || m.starts_with("#include_next expects")
                || m.starts_with("expected \"FILENAME\"")
        });
        let at = computed.and_then(|(loc, _)| {
            let mut parts = loc.rsplitn(3, ':');
            let (_col, line, file) = (parts.next()?, parts.next()?, parts.next()?);
            Some((file.to_string(), line.parse::<usize>().ok()?))
        });
        let Some((file, line)) = at else {
            rest.push_str(l);
            rest.push('\n');
            continue;
        };
        let text = std::fs::read_to_string(&file).unwrap_or_default();
        let name = text
            .lines()
            .nth(line.saturating_sub(1))
            .and_then(|t| t.trim_start().strip_prefix('#'))
            .map(|t| {
                let t = t.trim_start();
                let t = t
                    .strip_prefix("include_next")
                    .or_else(|| t.strip_prefix("include"))
                    .unwrap_or(t);
                t.trim().to_string()
            })
            .filter(|t| !t.is_empty())
            .unwrap_or_else(|| "a macro".into());
        found.push((
            format!("{name} (computed #include)"),
            format!("{file}:{line}"),
        ));
    }
    (found, rest)
}

/// The place and message of a diagnostic line `file:line:col: error: #error message`.
fn error_directive(diagnostic: &str) -> Option<SkippedError> {
    let (loc, msg) = diagnostic.split_once(": error: ")?;
    let message = msg.strip_prefix("#error")?.trim().to_string();
    let mut parts = loc.rsplitn(3, ':');
    let (_col, line, file) = (parts.next()?, parts.next()?, parts.next()?);
    Some(SkippedError {
        file: file.to_string(),
        line: line.parse().ok()?,
        message,
    })
}

/// What `__DATE__` and `__TIME__` expand to (through `SOURCE_DATE_EPOCH`): one fixed instant, so
/// that two versions preprocessed a second apart do not differ in them.
pub const SOURCE_DATE_EPOCH: &str = "0";

/// Preprocessor arguments that make `__FILE__` name `main` as `name`, and the headers beside
/// `main` by their path relative to its directory (GCC and Clang's `-fmacro-prefix-map`; the
/// last matching map wins). Paths holding `=` cannot be mapped and are left as they are.
pub fn file_macro_args(main: &Path, name: &str) -> Vec<String> {
    let main = main.display().to_string();
    if main.contains('=') || name.contains('=') {
        return vec![];
    }
    let mut args = vec![];
    if let Some(dir) = Path::new(&main)
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
    {
        args.push(format!("-fmacro-prefix-map={}/=", dir.display()));
    }
    args.push(format!("-fmacro-prefix-map={main}={name}"));
    args
}

/// A temporary directory (header stand-ins, probe copies), removed when dropped.
pub(super) struct TempDir(PathBuf);

impl TempDir {
    pub(super) fn new(tag: &str) -> std::io::Result<TempDir> {
        use std::sync::atomic::{AtomicUsize, Ordering};
        static COUNTER: AtomicUsize = AtomicUsize::new(0);
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("dizy-{tag}-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir)?;
        Ok(TempDir(dir))
    }

    pub(super) fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The header named by a "No such file" diagnostic (GCC or Clang) and the `file:line` of the
/// include. Only plain relative names: a stand-in must not land outside its directory.
fn missing_header(stderr: &str) -> Option<(String, String)> {
    for l in stderr.lines() {
        let Some((loc, rest)) = l.split_once(": fatal error: ") else {
            continue;
        };
        let name = if let Some(n) = rest.strip_suffix(": No such file or directory") {
            n.trim()
        } else if let Some(n) = rest.strip_suffix(" file not found") {
            n.trim().trim_matches('\'')
        } else {
            continue;
        };
        let p = Path::new(name);
        let plain = !name.is_empty()
            && p.components()
                .all(|c| matches!(c, std::path::Component::Normal(_)));
        if !plain {
            return None;
        }
        // `file.c:6:10` → `file.c:6`
        let at = match loc.rsplitn(3, ':').collect::<Vec<_>>().as_slice() {
            [_, line, file] => format!("{file}:{line}"),
            _ => loc.to_string(),
        };
        return Some((name.to_string(), at));
    }
    None
}

enum Bounded {
    Io(std::io::Error),
    TooLarge,
    TooSlow(std::time::Duration),
}

/// `cmd.output()`, but the child is killed once its standard output exceeds [`MAX_INPUT_BYTES`]
/// or it runs longer than the preprocessor timeout, so neither memory nor time is unbounded.
fn output_bounded(
    cmd: &mut Command,
    limit: std::time::Duration,
) -> std::result::Result<std::process::Output, Bounded> {
    use std::io::Read;
    use std::process::Stdio;
    use std::sync::atomic::{AtomicBool, Ordering};
    let start = std::time::Instant::now();
    // Its own process group, so that the compiler proper (`cc1`, a grandchild) can be stopped too.
    #[cfg(unix)]
    std::os::unix::process::CommandExt::process_group(cmd, 0);
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(Bounded::Io)?;
    let too_large = std::sync::Arc::new(AtomicBool::new(false));
    let (mut out, err) = (child.stdout.take(), child.stderr.take());
    let flag = too_large.clone();
    let out_reader = std::thread::spawn(move || {
        let mut v = Vec::new();
        if let Some(o) = out.as_mut() {
            let _ = o.take(MAX_INPUT_BYTES as u64 + 1).read_to_end(&mut v);
        }
        if v.len() > MAX_INPUT_BYTES {
            flag.store(true, Ordering::Relaxed);
        }
        v
    });
    // Diagnostics are short; cap them too, in case of a flood.
    let err_reader = std::thread::spawn(move || {
        let mut v = Vec::new();
        if let Some(e) = err {
            let _ = e.take(1 << 20).read_to_end(&mut v);
        }
        v
    });
    let mut nap = std::time::Duration::from_millis(1);
    let status = loop {
        if let Some(st) = child.try_wait().map_err(Bounded::Io)? {
            break st;
        }
        let stop = if too_large.load(Ordering::Relaxed) {
            Some(Bounded::TooLarge)
        } else if start.elapsed() > limit {
            Some(Bounded::TooSlow(limit))
        } else {
            None
        };
        if let Some(why) = stop {
            #[cfg(unix)]
            let _ = Command::new("kill")
                .args(["-KILL", "--", &format!("-{}", child.id())])
                .stderr(Stdio::null())
                .status();
            let _ = child.kill();
            let _ = child.wait();
            // The readers are not joined: a grandchild that survived would keep them waiting.
            return Err(why);
        }
        std::thread::sleep(nap);
        nap = (nap * 2).min(std::time::Duration::from_millis(20));
    };
    let stdout = out_reader.join().unwrap_or_default();
    let stderr = err_reader.join().unwrap_or_default();
    if stdout.len() > MAX_INPUT_BYTES {
        return Err(Bounded::TooLarge);
    }
    Ok(std::process::Output {
        status,
        stdout,
        stderr,
    })
}

/// `file.c:12:3: error: …` → (`file.c`, 12, `error: …`).
fn diagnostic_place(diag: &str) -> Option<(&str, u32, &str)> {
    let at = diag
        .find(": error: ")
        .or_else(|| diag.find(": fatal error: "))?;
    let mut parts = diag[..at].rsplitn(3, ':');
    let (col, line, file) = (parts.next()?, parts.next()?, parts.next()?);
    col.trim().parse::<u32>().ok()?;
    Some((file, line.trim().parse().ok()?, &diag[at + 2..]))
}

/// The directories the preprocessor searches for headers under `opts`, in order (`-iquote`
/// ones, then `-I` ones, then the system's), as `cpp -v` lists them; `None` when it cannot be
/// run. A header created in one of them, or in a subdirectory, may change what an `#include`
/// finds: what the result cache's direct mode watches.
pub fn search_dirs(opts: &Options) -> Option<Vec<String>> {
    let mut cmd = opts.child.command(&opts.cpp).ok()?;
    cmd.arg("-E")
        .arg("-v")
        .arg(format!("-std={}", opts.std.as_deref().unwrap_or("gnu11")));
    for d in &opts.quote_dirs {
        cmd.arg("-iquote").arg(d);
    }
    for d in &opts.include_dirs {
        cmd.arg("-I").arg(d);
    }
    cmd.args(["-x", "c", "/dev/null"]);
    let out = output_bounded(&mut cmd, opts.time_limit).ok()?;
    if !out.status.success() {
        return None;
    }
    let err = String::from_utf8_lossy(&out.stderr);
    let mut dirs = vec![];
    let mut inside = false;
    for l in err.lines() {
        if l.starts_with("#include \"...\" search starts here") {
            inside = true;
        } else if l.starts_with("End of search list") {
            break;
        } else if inside && l.starts_with(' ') {
            // `(framework directory)` annotations do not occur on Linux; a trailing one is cut.
            let d = l.trim().trim_end_matches(" (framework directory)");
            dirs.push(d.to_string());
        }
    }
    Some(dirs)
}
