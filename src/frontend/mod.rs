//! Frontend: C source file → typed structured IR ([`crate::ir::Program`]).
//!
//! Takes a path and preprocessor options; runs the system preprocessor (`cc -E`, or `--cpp`),
//! parses the result with `lang-c` (GNU C11), maps every construct back to its line in the
//! original file through the preprocessor's line markers, and lowers each function defined in
//! the main file to [`crate::ir`] with side effects made explicit. First stage of the pipeline;
//! the `gcl` stage consumes its output.
//!
//! Robustness: the preprocessed text is scanned for nesting depth before parsing (the parser is
//! recursive), and parsing runs on a thread with a large stack, so hostile input yields an
//! [`Error`] rather than a crash.

mod consteval;
mod lines;
mod lower;
mod types;

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::diag::{Error, Result};
use crate::ir::Program;

pub use lines::LineMap;

/// Preprocessor configuration (`--cpp`, `-I`, `-D`).
#[derive(Clone, Debug)]
pub struct Options {
    /// Preprocessor command; `-E` is added. Default `cc`.
    pub cpp: String,
    pub include_dirs: Vec<PathBuf>,
    /// `NAME` or `NAME=VALUE`.
    pub defines: Vec<String>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            cpp: "cc".into(),
            include_dirs: vec![],
            defines: vec![],
        }
    }
}

/// Deepest bracket nesting accepted. Real code stays far below; the limit keeps the recursive
/// parser and lowering within their stacks.
pub const MAX_NESTING: usize = 1000;
/// Largest preprocessed input accepted, in bytes.
pub const MAX_INPUT_BYTES: usize = 64 << 20;

/// Load, preprocess, parse and lower `path`.
pub fn load(path: &Path, opts: &Options) -> Result<Program> {
    let display = path.display().to_string();
    check_input_file(path, &display)?;
    let text = preprocess(path, opts, &display)?;
    parse_text(text, &display)
}

/// Parse and lower already-preprocessed text (with line markers) that came from `display`.
pub fn parse_text(text: String, display: &str) -> Result<Program> {
    if text.len() > MAX_INPUT_BYTES {
        return Err(Error::in_file(
            display,
            format!(
                "preprocessed input is {} bytes; the limit is {} bytes",
                text.len(),
                MAX_INPUT_BYTES
            ),
        ));
    }
    let map = LineMap::new(&text, display);
    check_nesting(&text, &map)?;
    let display_owned = display.to_string();
    // The PEG parser recurses per nesting level; give it room.
    let handle = std::thread::Builder::new()
        .stack_size(512 << 20)
        .spawn(move || -> Result<Program> {
            let cfg = lang_c::driver::Config::default();
            let parsed = match lang_c::driver::parse_preprocessed(&cfg, text) {
                Ok(p) => p,
                Err(e) => return Err(syntax_error(&e, &map, &display_owned)),
            };
            lower::lower_unit(&parsed.unit, &map, &display_owned)
        })
        .map_err(|e| Error::new(format!("cannot start parser thread: {e}")))?;
    match handle.join() {
        Ok(r) => r,
        Err(_) => Err(Error::in_file(
            display,
            "internal error while parsing (please report)",
        )),
    }
}

fn check_input_file(path: &Path, display: &str) -> Result<()> {
    let meta = std::fs::metadata(path)
        .map_err(|e| Error::in_file(display, format!("cannot read file: {e}")))?;
    if meta.is_dir() {
        return Err(Error::in_file(display, "is a directory, not a C file"));
    }
    std::fs::File::open(path)
        .map_err(|e| Error::in_file(display, format!("cannot read file: {e}")))?;
    Ok(())
}

fn preprocess(path: &Path, opts: &Options, display: &str) -> Result<String> {
    let mut cmd = Command::new(&opts.cpp);
    cmd.arg("-E").arg("-std=gnu11");
    for d in &opts.include_dirs {
        cmd.arg("-I").arg(d);
    }
    for d in &opts.defines {
        cmd.arg(format!("-D{d}"));
    }
    cmd.arg(path);
    let out = cmd.output().map_err(|e| {
        Error::in_file(
            display,
            format!("cannot run preprocessor `{}`: {e}", opts.cpp),
        )
    })?;
    if !out.status.success() {
        let stderr = String::from_utf8_lossy(&out.stderr);
        // The compiler's first diagnostic already has the form `file:line:col: error: …`.
        let first = stderr
            .lines()
            .find(|l| l.contains("error"))
            .or_else(|| stderr.lines().next())
            .unwrap_or("preprocessor failed")
            .trim()
            .to_string();
        let msg = format!("preprocessing failed: {first}");
        return Err(match first_line_number(&first) {
            Some(line) => Error::at(display, line, msg),
            None => Error::in_file(display, msg),
        });
    }
    String::from_utf8(out.stdout).map_err(|e| {
        let upto = &e.as_bytes()[..e.utf8_error().valid_up_to()];
        let line = 1 + upto.iter().filter(|&&b| b == b'\n').count();
        Error::in_file(
            display,
            format!("the preprocessed text is not valid UTF-8 (near preprocessed line {line}); dizy reads UTF-8 or ASCII C"),
        )
    })
}

/// `file.c:12:3: error: …` → 12.
fn first_line_number(diag: &str) -> Option<u32> {
    let mut parts = diag.split(':');
    parts.next()?;
    parts.next()?.trim().parse().ok()
}

fn syntax_error(e: &lang_c::driver::SyntaxError, map: &LineMap, display: &str) -> Error {
    let mut expected: Vec<_> = e.expected.iter().copied().collect();
    expected.sort_unstable();
    expected.truncate(8);
    let near: String = e.source[e.offset.min(e.source.len())..]
        .chars()
        .take(20)
        .take_while(|c| *c != '\n')
        .collect();
    let msg = if near.is_empty() {
        "syntax error: unexpected end of input".to_string()
    } else {
        format!(
            "syntax error near `{}`; expected one of {}",
            near.trim(),
            expected.join(" ")
        )
    };
    match map.locate(e.offset) {
        Some((file, line)) if file == display => Error::at(display, line, msg),
        Some((file, line)) => Error::at(file, line, msg),
        None => Error::in_file(display, msg),
    }
}

/// Reject nesting deeper than [`MAX_NESTING`] before handing the text to the recursive parser.
fn check_nesting(text: &str, map: &LineMap) -> Result<()> {
    let mut depth = 0usize;
    let bytes = text.as_bytes();
    let mut i = 0;
    let mut line_start = true;
    while i < bytes.len() {
        let b = bytes[i];
        match b {
            b'#' if line_start => {
                // line marker or pragma: skip the line
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            b'"' | b'\'' => {
                i += 1;
                while i < bytes.len() && bytes[i] != b && bytes[i] != b'\n' {
                    if bytes[i] == b'\\' {
                        i += 1;
                    }
                    i += 1;
                }
            }
            b'(' | b'[' | b'{' => {
                depth += 1;
                if depth > MAX_NESTING {
                    let err = format!(
                        "nesting deeper than {MAX_NESTING} levels of brackets is not supported"
                    );
                    return Err(match map.locate(i) {
                        Some((f, l)) => Error::at(f, l, err),
                        None => Error::new(err),
                    });
                }
            }
            b')' | b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
        line_start = b == b'\n' || (line_start && (b == b' ' || b == b'\t'));
        i += 1;
    }
    Ok(())
}
