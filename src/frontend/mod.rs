//! Frontend: C source file → typed structured IR ([`crate::ir::Program`]).
//!
//! Takes a path and preprocessor options; runs the system preprocessor (`cc -E`, or `--cpp`),
//! parses the result with `lang-c` (GNU C11), maps every construct back to its line in the
//! original file through the preprocessor's line markers, and lowers each function defined in
//! the main file or in a header it includes (those are listed in [`Program::in_headers`]) to
//! [`crate::ir`] with side effects made explicit. First stage of the pipeline;
//! the `gcl` stage consumes its output.
//!
//! Unconfigured files: when the preprocessor stops at a missing header, the header is replaced
//! by an empty stand-in (searched after every real directory, `-idirafter`) and preprocessing is
//! retried; what that leaves undefined is repaired by `tolerant` during parsing. Every stand-in
//! and repair becomes a note in [`Program::notes`]: grouped notes for the whole file, and notes
//! of the form `file:line: …` for each use inside a function, which the report attaches to that
//! function. `compile_commands` reads the real configuration from a compilation database.
//!
//! Robustness: the preprocessed text is scanned for nesting depth (the parser is recursive) and
//! for runs of `++`/`--` (they make it exponential) before parsing, and parsing runs on a thread
//! with a large stack, so hostile input yields an [`Error`] rather than a crash. Source files and preprocessed text are capped in size, and the
//! preprocessor is killed when its output or running time exceeds a bound (macro bombs); it
//! runs under the address-space and CPU-time limits of [`crate::resources::ChildLimits`], and one
//! that runs into them ends the file with an error naming the limit.
//!
//! Modules, in pipeline order: `preprocess` (the file check and `cc -E` under bounds, with
//! stand-ins), `tolerant` (parsing with repairs), `lines` (offsets → original lines), `lower`
//! (lowering to [`crate::ir`]), which uses `types` (declarations → [`crate::ir::CType`]) and
//! `consteval` (literals, folding); neither of these two depends on `lower`.

pub mod compile_commands;
pub mod conditionals;
mod consteval;
mod lines;
mod lower;
mod opaque;

/// The placeholder literal the tolerant parse puts for an unknown macro next to a string
/// literal (for the lowering, which makes such literals unknown strings).
pub(crate) fn tolerant_placeholder(len: usize) -> String {
    tolerant::placeholder(len)
}
mod preprocess;
mod tolerant;
mod types;

use std::path::{Path, PathBuf};

use crate::diag::{Error, ErrorKind, Note, NoteKind, Result, Stop};
use crate::ir::Program;
use preprocess::{check_input_file, preprocess, Preprocessed};
pub use preprocess::{file_macro_args, search_dirs, SOURCE_DATE_EPOCH};

pub use lines::LineMap;

/// Preprocessor configuration (`--cpp`, `-I`, `-D`, and what `--compile-commands` adds).
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Options {
    /// Preprocessor command; `-E` is added. Default `cc`.
    pub cpp: String,
    pub include_dirs: Vec<PathBuf>,
    /// Directories searched for `#include "…"` only (`-iquote`), before `include_dirs`.
    pub quote_dirs: Vec<PathBuf>,
    /// `NAME` or `NAME=VALUE`.
    pub defines: Vec<String>,
    /// Macros to undefine (`-U`).
    pub undefines: Vec<String>,
    /// Files included before the source (`-include`).
    pub forced_includes: Vec<PathBuf>,
    /// When project headers are missing, include the standard C and POSIX headers first (and
    /// fall back to the plain load if the file then does not load). Default on.
    pub std_prelude: bool,
    /// Language standard (`-std=`); default `gnu11`.
    pub std: Option<String>,
    /// How long one preprocessor run, and separately one parse, may take (a macro bomb keeps
    /// `cc -E` busy for hours; some operator runs make the backtracking parser exponential).
    /// `dizy diff` gives its `--timeout`.
    pub time_limit: std::time::Duration,
    /// Memory and CPU bounds of the preprocessor process.
    pub child: crate::resources::ChildLimits,
    /// The name `__FILE__` gives the main file (headers beside it are named relative to its
    /// directory); `None`: the path as given. The diff driver gives both versions the new
    /// file's name, so that where each version lies is not a difference.
    pub file_name: Option<String>,
    /// The roots of the two source trees the versions come from (old, new), when their paths
    /// differ only in a prefix (`v6.10/src/pr.c`, `v6.11/src/pr.c`): an include directory
    /// inside one tree stands, for a file of the other, for the same directory there, so that
    /// each version reads its own tree's headers (see [`Options::for_file`]).
    pub trees: Option<(PathBuf, PathBuf)>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            cpp: "cc".into(),
            include_dirs: vec![],
            quote_dirs: vec![],
            defines: vec![],
            undefines: vec![],
            forced_includes: vec![],
            std_prelude: true,
            std: None,
            time_limit: std::time::Duration::from_secs(60),
            child: Default::default(),
            file_name: None,
            trees: None,
        }
    }
}

impl Options {
    /// These options under the preprocessing limits of `limits`.
    pub fn with_limits(mut self, limits: &crate::limits::RunLimits) -> Options {
        self.time_limit = limits.preprocess;
        self.child = limits.child.clone();
        self
    }
}

/// A problem with the input file (it cannot be read, preprocessed or parsed).
pub(super) fn bad_input_in(file: &str, msg: impl Into<String>) -> Error {
    Error::bad_input(msg).located(file, None)
}

/// A problem with the input at `file:line`.
pub(super) fn bad_input_at(file: impl Into<String>, line: u32, msg: impl Into<String>) -> Error {
    Error::bad_input(msg).located(file, Some(line))
}

/// Deepest bracket nesting accepted. Real code stays far below; the limit keeps the recursive
/// parser and lowering within their stacks.
pub const MAX_NESTING: usize = 1000;
/// Most `++`/`--` tokens accepted in one run of signs. Valid C has at most two (`a++ + ++b`):
/// the result of `++`/`--` is not an lvalue, so neither can be applied to it.
pub const MAX_INC_DEC_RUN: usize = 2;
/// Largest preprocessed input accepted, in bytes. Parsing and lowering take about a hundred
/// times the text's size in memory; real translation units (even amalgamations) stay below.
pub const MAX_INPUT_BYTES: usize = 16 << 20;
/// Largest source file accepted, in bytes (checked before running the preprocessor).
pub const MAX_SOURCE_BYTES: u64 = 16 << 20;

/// The files the preprocessor reads for `path` (the file itself and every header it includes,
/// active or not in this configuration), as its line markers name them, each once, in order
/// of first mention; stand-ins for missing headers are not files of the project and are left
/// out. What a result cache keys on besides the options. Also gives the names of the missing
/// headers as the source spells them (`gnulib/foo.h`), which a cache must watch for.
pub fn input_files(path: &Path, opts: &Options) -> Result<(Vec<String>, Vec<String>)> {
    let display = path.display().to_string();
    check_input_file(path, &display)?;
    let pre = preprocess(path, opts, &display)?;
    let mut seen = std::collections::BTreeSet::new();
    let mut files = vec![];
    for l in pre.text.lines() {
        // `# 12 "src/x.h" 2`
        let Some(rest) = l.strip_prefix("# ") else {
            continue;
        };
        let Some((num, name)) = rest.split_once(' ') else {
            continue;
        };
        if num.parse::<u32>().is_err() {
            continue;
        }
        let Some(name) = name.strip_prefix('"').and_then(|n| n.split('"').next()) else {
            continue;
        };
        if name.starts_with('<') || pre.missing.iter().any(|(h, _)| name.ends_with(h.as_str())) {
            continue;
        }
        if seen.insert(name.to_string()) {
            files.push(name.to_string());
        }
    }
    let missing = pre.missing.iter().map(|(h, _)| h.clone()).collect();
    Ok((files, missing))
}

impl Options {
    /// The options for preprocessing `file`: with [`Options::trees`], each include directory
    /// inside the other version's tree is the same directory of `file`'s tree where that
    /// exists (`-I v6.11/lib` reads `v6.10/lib` for the old file).
    pub fn for_file(&self, file: &Path) -> Options {
        let mut o = self.clone();
        let Some((old, new)) = &self.trees else {
            return o;
        };
        let Ok(f) = std::path::absolute(file) else {
            return o;
        };
        let (from, to) = match (f.starts_with(old), f.starts_with(new)) {
            (true, false) => (new, old),
            (false, true) => (old, new),
            _ => return o,
        };
        let map = |d: &PathBuf| -> PathBuf {
            std::path::absolute(d)
                .ok()
                .and_then(|a| Some(to.join(a.strip_prefix(from).ok()?)))
                .filter(|t| t.is_dir())
                .unwrap_or_else(|| d.clone())
        };
        o.include_dirs = self.include_dirs.iter().map(map).collect();
        o.quote_dirs = self.quote_dirs.iter().map(map).collect();
        o
    }
}

/// The roots of two versions' source trees: the paths without their longest common trailing
/// components (at least the file name); `None` where they name one tree, or one lies inside
/// the other.
pub fn version_roots(old: &Path, new: &Path) -> Option<(PathBuf, PathBuf)> {
    let (a, b) = (
        std::path::absolute(old).ok()?,
        std::path::absolute(new).ok()?,
    );
    let (ca, cb): (Vec<_>, Vec<_>) = (a.components().collect(), b.components().collect());
    let common = ca
        .iter()
        .rev()
        .zip(cb.iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    if common == 0 {
        return None;
    }
    let root = |c: &[std::path::Component]| c.iter().collect::<PathBuf>();
    let (ra, rb) = (
        root(&ca[..ca.len() - common]),
        root(&cb[..cb.len() - common]),
    );
    (!ra.starts_with(&rb) && !rb.starts_with(&ra)).then_some((ra, rb))
}

/// Load, preprocess, parse and lower `path`.
pub fn load(path: &Path, opts: &Options) -> Result<Program> {
    load_with(path, opts, None).map(|(p, _)| p)
}

/// Load two versions of a file. Where project headers are missing, the records assumed for
/// their types (see `opaque`) are inferred from both versions' uses together, so that both
/// get one layout (a member one version adds must not move the others).
pub fn load_pair(old: &Path, new: &Path, opts: &Options) -> Result<(Program, Program)> {
    let (po, so) = load_with(old, opts, None)?;
    let (pn, sn) = load_with(new, opts, None)?;
    if so == sn {
        return Ok((po, pn));
    }
    let mut both = so.clone();
    both.merge(&sn);
    let po = if both == so {
        po
    } else {
        load_with(old, opts, Some(&both))?.0
    };
    let pn = if both == sn {
        pn
    } else {
        load_with(new, opts, Some(&both))?.0
    };
    Ok((po, pn))
}

/// [`load`], with the record shapes to assume given (`None`: the file's own); also gives the
/// file's own shapes.
fn load_with(
    path: &Path,
    opts: &Options,
    shapes: Option<&opaque::Shapes>,
) -> Result<(Program, opaque::Shapes)> {
    let display = path.display().to_string();
    check_input_file(path, &display)?;
    let pre = preprocess(path, opts, &display)?;
    let with_std = (opts.std_prelude && !pre.missing.is_empty())
        .then(|| with_standard_headers(path, opts, &display, shapes))
        .flatten();
    let missing_none = pre.missing.is_empty();
    let (mut prog, own) = match with_std {
        Some((mut p, own)) => {
            p.notes.push(Note::in_file(
                NoteKind::Assumption,
                &display,
                format!(
                    "project headers are missing: the standard C and POSIX headers stand in ({})",
                    standard_header_list()
                ),
            ));
            (p, own)
        }
        None => {
            let text = (missing_none && opts.std_prelude).then(|| pre.text.clone());
            let p = parse_with(
                pre.text,
                &display,
                pre.missing,
                opts.time_limit,
                shapes,
                false,
            )?;
            match text {
                Some(text) if undeclared(&p.0) > 0 => {
                    let p = standard_names_unconfigured(path, opts, &display, shapes, p);
                    undeclared_as_constants(path, text, opts, &display, shapes, p)
                }
                _ => p,
            }
        }
    };
    let mut seen = std::collections::HashSet::new();
    for e in &pre.skipped_errors {
        if !seen.insert((&e.file, e.line)) {
            continue;
        }
        // The preprocessor names the main file as it was given.
        let main = Path::new(&e.file) == path;
        let file = if main {
            display.as_str()
        } else {
            e.file.as_str()
        };
        let hint = configure_hint(Path::new(&e.file), e.line, opts, &display);
        let what = if main { "the file" } else { "this header" };
        prog.notes.push(Note::at(
            NoteKind::Assumption,
            file,
            e.line,
            format!("`#error {}` skipped: {what} is not configured for this build{hint}; what it would select is missing", e.message),
        ));
    }
    Ok((prog, own))
}

/// A file whose headers are all there but which uses names declared nowhere, even with the
/// standard headers (freetype's `FT_THROW (Invalid_Argument)` pastes `FT_ERR_PREFIX`, which
/// its headers `#undef` unless the build defines `FT2_BUILD_LIBRARY`): the file does not
/// compile as configured. Those names are taken as unknown constants, the same in both
/// versions (as for unconfigured code, see [`GlobalVar::opaque`](crate::ir::GlobalVar)), when
/// that rejects fewer functions, with a note saying so; otherwise `plain`.
fn undeclared_as_constants(
    path: &Path,
    text: String,
    opts: &Options,
    display: &str,
    shapes: Option<&opaque::Shapes>,
    plain: (Program, opaque::Shapes),
) -> (Program, opaque::Shapes) {
    if undeclared(&plain.0) == 0 {
        return plain;
    }
    // The standard headers, if they rescued names, stay.
    let text = match plain.0.prelude.is_empty() {
        true => text,
        false => match standard_prelude(path, opts, display) {
            Some(pre) => pre.text,
            None => return plain,
        },
    };
    let Ok((mut prog, own)) = parse_with(text, display, vec![], opts.time_limit, shapes, true)
    else {
        return plain;
    };
    if undeclared(&prog) >= undeclared(&plain.0) {
        return plain;
    }
    prog.prelude = plain.0.prelude.clone();
    // The note of `standard_names_unconfigured`, its last.
    if !prog.prelude.is_empty() {
        prog.notes.extend(plain.0.notes.last().cloned());
    }
    prog.notes.push(Note::in_file(
        NoteKind::Assumption,
        display,
        "no header is missing, yet the file uses names declared nowhere (macros a build \
         defines with -D, such as a library's own build flag?): the file does not compile as \
         configured; each such name is taken as an unknown constant, the same in both versions"
            .to_string(),
    ));
    (prog, own)
}

/// Standard C and POSIX headers that stand in for missing project headers (`system.h`,
/// `config.h` usually bring these in): their real declarations instead of guesses.
const STANDARD_HEADERS: &[&str] = &[
    "stddef.h",
    "stdbool.h",
    "stdint.h",
    "inttypes.h",
    "limits.h",
    "stdio.h",
    "stdlib.h",
    "string.h",
    "strings.h",
    "errno.h",
    "ctype.h",
    "locale.h",
    "signal.h",
    "time.h",
    "wchar.h",
    "unistd.h",
    "fcntl.h",
    "sys/types.h",
    "sys/stat.h",
];

/// The file loaded with [`STANDARD_HEADERS`] included first (for a file whose project headers
/// are missing), or `None` when that does not load (the file's own declarations may clash
/// with them); the plain load is then used.
fn with_standard_headers(
    path: &Path,
    opts: &Options,
    display: &str,
    shapes: Option<&opaque::Shapes>,
) -> Option<(Program, opaque::Shapes)> {
    let pre = standard_prelude(path, opts, display)?;
    let (mut prog, own) = parse_with(
        pre.text,
        display,
        pre.missing,
        opts.time_limit,
        shapes,
        false,
    )
    .ok()?;
    prog.prelude = STANDARD_HEADERS.iter().map(|h| h.to_string()).collect();
    Some((prog, own))
}

/// `path` preprocessed with [`STANDARD_HEADERS`] included first.
fn standard_prelude(path: &Path, opts: &Options, display: &str) -> Option<Preprocessed> {
    let dir = preprocess::TempDir::new("std").ok()?;
    let prelude = dir.path().join("dizy-standard-headers.h");
    let text: String = STANDARD_HEADERS
        .iter()
        .map(|h| format!("#include <{h}>\n"))
        .collect();
    std::fs::write(&prelude, text).ok()?;
    let mut o = opts.clone();
    o.std_prelude = false;
    o.forced_includes.insert(0, prelude);
    preprocess(path, &o, display).ok()
}

/// `<stddef.h> <stdbool.h> …`: the headers of [`STANDARD_HEADERS`] for a note.
fn standard_header_list() -> String {
    STANDARD_HEADERS
        .iter()
        .map(|h| format!("<{h}>"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Functions rejected for a name nothing declares.
fn undeclared(prog: &Program) -> usize {
    prog.rejected
        .iter()
        .filter(|(_, e)| e.kind == ErrorKind::Undeclared)
        .count()
}

/// A file whose headers are all there but whose configuration leaves standard names
/// undeclared (autoconf's `#ifdef HAVE_ERRNO_H` around `#include <errno.h>`, with no
/// `config.h` to set it): loaded again with [`STANDARD_HEADERS`] first, as a build on a
/// POSIX system would have them, and that load kept (with a note naming the functions it
/// rescued) when it rejects fewer functions for undeclared names; otherwise `plain`.
fn standard_names_unconfigured(
    path: &Path,
    opts: &Options,
    display: &str,
    shapes: Option<&opaque::Shapes>,
    plain: (Program, opaque::Shapes),
) -> (Program, opaque::Shapes) {
    let Some((mut prog, own)) = with_standard_headers(path, opts, display, shapes) else {
        return plain;
    };
    if undeclared(&prog) >= undeclared(&plain.0) {
        return plain;
    }
    let rescued: Vec<&str> = plain
        .0
        .rejected
        .iter()
        .filter(|(n, e)| {
            e.kind == ErrorKind::Undeclared && !prog.rejected.iter().any(|(m, _)| m == n)
        })
        .map(|(n, _)| n.as_str())
        .collect();
    prog.notes.push(Note::in_file(
        NoteKind::Assumption,
        display,
        format!(
            "this configuration leaves standard names undeclared (an `#include` of a standard \
             header behind an unset `HAVE_…` macro?): the standard C and POSIX headers are \
             included first, as on a POSIX system ({}); this declares what {} use{}",
            standard_header_list(),
            list(rescued.iter().map(|n| n.to_string())),
            if rescued.len() == 1 { "s" } else { "" },
        ),
    ));
    (prog, own)
}

/// `; -DNAME would configure it` for an `#error` on `line` of `path`: options that select
/// another alternative of its conditional (searched and checked with the preprocessor), or
/// the condition to falsify.
fn configure_hint(path: &Path, line: u32, opts: &Options, display: &str) -> String {
    use conditionals::GroupTest;
    let Ok(bytes) = std::fs::read(path) else {
        return String::new();
    };
    let c = conditionals::scan(&String::from_utf8_lossy(&bytes));
    let Some(g) = c.lines.get(line as usize - 1).and_then(|l| l.group) else {
        return String::new();
    };
    let grp = &c.groups[g];
    if let Some(first) = grp.before.first() {
        if let Ok(Some(flags)) = conditionals::enabling_defines(&[(&c, *first)], opts, display) {
            return format!(" (e.g. {} would configure it)", flags.join(" "));
        }
    }
    match &grp.test {
        GroupTest::Ifndef(n) => format!(" (-D{n} would configure it)"),
        _ => format!(" (it is compiled when {})", c.condition(g)),
    }
}

/// Parse and lower already-preprocessed text (with line markers) that came from `display`.
pub fn parse_text(text: String, display: &str) -> Result<Program> {
    parse_with(
        text,
        display,
        vec![],
        Options::default().time_limit,
        None,
        false,
    )
    .map(|(p, _)| p)
}

/// Parse and lower within `limit`; `missing` lists the headers replaced by empty stand-ins
/// (name, where); `undeclared_constants`: names declared nowhere are unknown constants even
/// with no header missing. With headers missing, the types they define get records (`opaque`) from
/// `shapes`, or from the file's own uses; the latter are also given back.
fn parse_with(
    text: String,
    display: &str,
    missing: Vec<(String, String)>,
    limit: std::time::Duration,
    shapes: Option<&opaque::Shapes>,
    undeclared_constants: bool,
) -> Result<(Program, opaque::Shapes)> {
    if text.len() > MAX_INPUT_BYTES {
        return Err(Error::bad_input(format!(
            "preprocessed input is {} bytes; the limit is {} bytes",
            text.len(),
            MAX_INPUT_BYTES
        ))
        .located(display, None));
    }
    let map = LineMap::new(&text, display);
    check_shape(&text, &map)?;
    let display_owned = display.to_string();
    let shapes = shapes.cloned();
    // The PEG parser recurses per nesting level; give it room.
    let handle = std::thread::Builder::new()
        .stack_size(512 << 20)
        .spawn(move || -> Result<(Program, opaque::Shapes)> {
            let started = std::time::Instant::now();
            let mut t = match tolerant::parse(text) {
                Ok(t) => t,
                Err((e, _)) => {
                    let map = LineMap::new(&e.source, &display_owned);
                    return Err(syntax_error(&e, &map, &display_owned));
                }
            };
            let unconfigured = !missing.is_empty();
            let mut own = opaque::Shapes::default();
            // Records take up to two more parses: not where those would overrun the limit
            // (the functions that need them are then rejected, as without records).
            if unconfigured && started.elapsed() * 4 < limit {
                let mut guessed = t.repairs.default_guesses();
                let mut named = t.repairs.named_guesses();
                let mut found = opaque::infer(&t.parse.unit, &guessed, &named);
                if !found.type_names.is_empty() {
                    // `T *p;` parsed as a product: `T` is a type name after all.
                    let pl = t.prelude_len;
                    t = tolerant::reparse(t, |rep| {
                        for (n, off) in &found.type_names {
                            if let Some(off) = off.checked_sub(pl) {
                                rep.typedefs
                                    .entry(n.clone())
                                    .or_insert((tolerant::DEFAULT_TYPE, off));
                            }
                        }
                    });
                    guessed = t.repairs.default_guesses();
                    named = t.repairs.named_guesses();
                    found = opaque::infer(&t.parse.unit, &guessed, &named);
                }
                let layout = shapes.as_ref().unwrap_or(&found.shapes).layout(
                    &guessed,
                    &named,
                    &found.defined,
                );
                if !layout.decls.is_empty() {
                    t = tolerant::reparse(t, |rep| rep.layout = layout);
                }
                own = found.shapes;
            }
            let map = LineMap::new(&t.parse.source, &display_owned);
            let tags = t.repairs.layout.tags.clone();
            // The unknown macros next to string literals, at their offsets in the parsed text.
            let strings: std::collections::BTreeMap<usize, String> = t
                .repairs
                .strings
                .iter()
                .map(|(off, n)| (off + t.prelude_len, n.clone()))
                .collect();
            let mut prog = lower::lower_unit(
                &t.parse.unit,
                &map,
                &display_owned,
                unconfigured || undeclared_constants,
                tags,
                &strings,
            )?;
            annotate(&mut prog, &t, &map, &display_owned, &missing);
            Ok((prog, own))
        })
        .map_err(|e| Error::internal(format!("cannot start parser thread: {e}")))?;
    // Wait at most the time limit; a parse that overruns is abandoned (its thread ends with the
    // process, which reports the error and exits).
    let start = std::time::Instant::now();
    while !handle.is_finished() {
        if start.elapsed() > limit {
            return Err(Error::stopped(
                Stop::Timeout,
                format!(
                    "parsing stopped: it did not finish within {:.1} s (pathological syntax, such as a long run of operators?)",
                    limit.as_secs_f64()
                ),
            )
            .located(display, None));
        }
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
    match handle.join() {
        Ok(r) => r,
        Err(_) => Err(
            Error::internal("internal error while parsing (please report)").located(display, None),
        ),
    }
}

/// The message of a syntax error, without its location.
fn syntax_message(e: &lang_c::driver::SyntaxError) -> String {
    let mut expected: Vec<_> = e.expected.iter().copied().collect();
    expected.sort_unstable();
    expected.truncate(8);
    let near: String = e.source[e.offset.min(e.source.len())..]
        .chars()
        .take(20)
        .take_while(|c| *c != '\n')
        .collect();
    if near.is_empty() {
        "syntax error: unexpected end of input".to_string()
    } else {
        format!(
            "syntax error near `{}`; expected one of {}",
            near.trim(),
            expected.join(" ")
        )
    }
}

fn syntax_error(e: &lang_c::driver::SyntaxError, map: &LineMap, display: &str) -> Error {
    let msg = syntax_message(e);
    match map.locate(e.offset) {
        Some((file, line)) if file == display => bad_input_at(display, line, msg),
        Some((file, line)) => bad_input_at(file, line, msg),
        None => bad_input_in(display, msg),
    }
}

/// Items a grouped note lists before "and N more": keeps the report to one screen.
const NOTE_ITEMS: usize = 8;

fn list(items: impl Iterator<Item = String>) -> String {
    let items: Vec<String> = items.collect();
    let mut s = items
        .iter()
        .take(NOTE_ITEMS)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    if items.len() > NOTE_ITEMS {
        s.push_str(&format!(" and {} more", items.len() - NOTE_ITEMS));
    }
    s
}

/// Record what the tolerant load assumed: grouped notes for the file, `file:line: …` notes at
/// each use inside a function, and the functions skipped after a syntax error as rejected.
fn annotate(
    prog: &mut Program,
    t: &tolerant::Tolerated,
    map: &LineMap,
    display: &str,
    missing: &[(String, String)],
) {
    let text = &t.parse.source;
    let pl = t.prelude_len;
    let line_of = |body_off: usize| map.line(body_off + pl);
    let r = &t.repairs;
    let file_note = |text: String| Note::in_file(NoteKind::Assumption, display, text);
    let line_note = |line: u32, text: String| Note::at(NoteKind::Assumption, display, line, text);
    let mut notes = vec![];
    if !missing.is_empty() {
        notes.push(file_note(format!(
            "missing headers replaced by empty files (the real configuration is unknown; give -I/-D or --compile-commands): {}",
            list(missing.iter().map(|(h, at)| {
                // `file.c:6` → `line 6` when the file is the one being read.
                match at.strip_prefix(display).and_then(|l| l.strip_prefix(':')) {
                    Some(line) => format!("{h} (line {line})"),
                    None => format!("{h} ({at})"),
                }
            }))
        )));
    }
    if !r.typedefs.is_empty() {
        notes.push(file_note(format!(
            "unknown type names given assumed typedefs (width and signedness are a guess and decide overflow behaviour): {}",
            list(r.typedefs.iter().map(|(n, (ty, off))| format!("{n} as {} (line {})", r.typedef_type(n, ty), line_of(*off))))
        )));
    }
    if !r.layout.described.is_empty() {
        notes.push(file_note(format!(
            "types a missing header defines taken as records of the members this file uses (distinct fields, scalars `long`; the members the file does not name are one opaque member `__dizy_unnamed`, which a whole copy moves and a witness never shows; their size an unknown constant, the same in both versions, that a witness must not depend on; byte views of them are rejected): {}",
            list(r.layout.described.iter().cloned())
        )));
    }
    if !r.blanked.is_empty() {
        notes.push(file_note(format!(
            "unknown macros where no expression can stand expanded to nothing: {}",
            list(r.blanked.iter().map(|(off, orig)| format!(
                "`{}` (line {})",
                one_line(orig),
                line_of(*off)
            )))
        )));
    }
    if !r.unwrapped.is_empty() {
        notes.push(file_note(format!(
            "macros wrapping a function's name or return type reduced to what they wrap: {}",
            list(
                r.unwrapped
                    .iter()
                    .map(|(off, m, n)| format!("{m}({n}) (line {})", line_of(*off)))
            )
        )));
    }
    if !r.strings.is_empty() {
        notes.push(file_note(format!(
            "unknown macros next to string literals: each such literal an unknown string, the same in both versions: {}",
            list(
                r.strings
                    .iter()
                    .map(|(off, n)| format!("{n} (line {})", line_of(*off)))
            )
        )));
    }
    if !r.semicolons.is_empty() {
        notes.push(file_note(format!(
            "unknown macros used as statements without `;` taken as calls: {}",
            list(
                r.semicolons
                    .iter()
                    .map(|(_, off, n)| format!("{n} (line {})", line_of(*off)))
            )
        )));
    }
    if !r.constants.is_empty() {
        notes.push(file_note(format!(
            "undefined NULL, true, false (their header is missing) taken as 0, 1, 0 (also True/TRUE, False/FALSE): {}",
            list(r.constants.iter().map(|(off, n, _)| format!("{n} (line {})", line_of(*off))))
        )));
    }
    // The lowering records each function called without a declaration; one note lists them.
    let mut other = std::mem::take(&mut prog.notes);
    if !prog.undeclared_calls.is_empty() {
        other.push(file_note(format!(
            "called without a declaration (unknown functions or function-like macros; results assumed `int`, or `void *` where the code uses them as pointers, calls compared as effects): {}",
            list(prog.undeclared_calls.iter().cloned())
        )));
    }
    other.extend(notes);
    // Per use inside each main-file function: the report attaches these to the function.
    for ext in &t.parse.unit.0 {
        let lang_c::ast::ExternalDeclaration::FunctionDefinition(fd) = &ext.node else {
            continue;
        };
        if !map.is_main(fd.span.start) {
            continue;
        }
        let (start, end) = (fd.span.start, fd.span.end);
        for (name, (ty, _)) in &r.typedefs {
            if let Some(off) = tolerant::find_ident(text, start, end, name) {
                let assumed = r.typedef_type(name, ty);
                let why = match r.layout.typedefs.contains_key(name) {
                    true if assumed.contains("struct ") => {
                        "(a record of the members this file uses)"
                    }
                    true if assumed.contains('*') => "(a pointer, as the file subscripts it)",
                    _ => "(a guess: its width and signedness decide overflow)",
                };
                other.push(line_note(
                    map.line(off),
                    format!("uses `{name}`, an unknown type assumed `{assumed}` {why}"),
                ));
            }
        }
        for tag in r.layout.tags.iter().filter(|t| !t.starts_with("__dizy_")) {
            if let Some(off) = tolerant::find_ident(text, start, end, tag) {
                other.push(line_note(
                    map.line(off),
                    format!("uses `struct {tag}`, defined in a missing header: assumed a record of the members this file uses"),
                ));
            }
        }
        for (off, orig) in &r.blanked {
            if (start..end).contains(&(off + pl)) {
                other.push(line_note(
                    line_of(*off),
                    format!("unknown macro `{}` expanded to nothing", one_line(orig)),
                ));
            }
        }
        for (_, off, name) in &r.semicolons {
            if (start..end).contains(&(off + pl)) {
                other.push(line_note(
                    line_of(*off),
                    format!("unknown macro `{name}` used as a statement: taken as a call"),
                ));
            }
        }
        for (off, name, v) in &r.constants {
            if (start..end).contains(&(off + pl)) {
                other.push(line_note(
                    line_of(*off),
                    format!("undefined `{name}` taken as {v}"),
                ));
            }
        }
    }
    (prog.fingerprints, prog.rejected_refs) = fingerprints(prog, t);
    prog.notes = other;
    for (name, off, msg) in &r.bodies {
        prog.functions.retain(|f| f.name != *name);
        prog.rejected.retain(|(n, _)| n != name);
        prog.rejected.push((
            name.clone(),
            Error::at(
                display,
                line_of(*off),
                format!("{msg}; the function was skipped (an unknown macro? give -I/-D or --compile-commands)"),
            ),
        ));
    }
    if !missing.is_empty() {
        for (_, e) in &mut prog.rejected {
            if e.kind == ErrorKind::Undeclared {
                e.msg
                    .push_str(" (defined in a missing header? give -I/-D or --compile-commands)");
            }
        }
    }
}

/// Words that look like calls among tokens but are not (`if (`, `sizeof (`).
pub fn is_c_keyword(w: &str) -> bool {
    matches!(
        w,
        "if" | "while"
            | "for"
            | "switch"
            | "return"
            | "sizeof"
            | "_Alignof"
            | "__alignof__"
            | "_Generic"
            | "typeof"
            | "__typeof__"
            | "__attribute__"
            | "__asm__"
            | "asm"
            | "_Static_assert"
            | "__extension__"
    ) || w.starts_with("__builtin_")
}

/// Fingerprint of a function the lowering rejected: a hash of its preprocessed tokens and of
/// every token outside function bodies (types, globals, prototypes). Equal fingerprints in two
/// versions mean the function's text and everything it could refer to outside other functions
/// is the same; it is unchanged (though not analysed) if, in addition, nothing it refers to
/// changed (`Program::rejected_refs`, checked by the `diff` driver).
pub fn fingerprint(prog: &Program, name: &str) -> Option<u64> {
    prog.fingerprints.get(name).copied()
}

/// The fingerprint and the token references of every rejected function (of the file or of a
/// header).
#[allow(clippy::type_complexity)]
fn fingerprints(
    prog: &Program,
    t: &tolerant::Tolerated,
) -> (
    std::collections::BTreeMap<String, u64>,
    std::collections::BTreeMap<String, crate::ir::TokenRefs>,
) {
    use std::hash::{Hash, Hasher};
    let mut found = std::collections::BTreeMap::new();
    let mut refs = std::collections::BTreeMap::new();
    if prog.rejected.is_empty() {
        return (found, refs);
    }
    let text = &t.parse.source;
    let mut defs = vec![];
    for ext in &t.parse.unit.0 {
        if let lang_c::ast::ExternalDeclaration::FunctionDefinition(fd) = &ext.node {
            defs.push((fd.span.start, fd.span.end, fd));
        }
    }
    // Tokens outside function definitions, without line markers.
    let mut outside = std::collections::hash_map::DefaultHasher::new();
    let mut from = t.prelude_len;
    for (s, e, _) in &defs {
        tolerant::hash_tokens(&text[from.min(*s)..*s], &mut outside);
        from = *e;
    }
    tolerant::hash_tokens(&text[from.min(text.len())..], &mut outside);
    let outside = outside.finish();
    // Rejected functions of headers too: a change to one changes its callers.
    for (s, e, fd) in &defs {
        let Some(name) = declarator_name(&fd.node.declarator.node) else {
            continue;
        };
        let blanked = t.repairs.bodies.iter().any(|b| b.0 == name);
        if blanked || !prog.rejected.iter().any(|(n, _)| *n == name) {
            continue;
        }
        let mut h = std::collections::hash_map::DefaultHasher::new();
        outside.hash(&mut h);
        tolerant::hash_tokens(&text[*s..*e], &mut h);
        refs.insert(name.clone(), tolerant::token_refs(&text[*s..*e]));
        found.insert(name, h.finish());
    }
    (found, refs)
}

fn declarator_name(d: &lang_c::ast::Declarator) -> Option<String> {
    use lang_c::ast::DeclaratorKind;
    match &d.kind.node {
        DeclaratorKind::Identifier(id) => Some(id.node.name.clone()),
        DeclaratorKind::Declarator(inner) => declarator_name(&inner.node),
        DeclaratorKind::Abstract => None,
    }
}

/// Source text on one line, without the line markers the preprocessor put inside it.
fn one_line(s: &str) -> String {
    s.lines()
        .filter(|l| !l.trim_start().starts_with('#'))
        .flat_map(str::split_whitespace)
        .collect::<Vec<_>>()
        .join(" ")
}

/// Reject, before handing the text to the parser, what would make it crash or take exponential
/// time: nesting deeper than [`MAX_NESTING`] (it recurses per level), and runs of `+`/`-` that
/// hold more than [`MAX_INC_DEC_RUN`] `++`/`--` tokens (`w >------> 1`): the PEG parser can split
/// every `--` into two `-` and tries all splits before giving up, so 30 signs took seconds and 60
/// hours. Line markers and string or character literals are skipped.
fn check_shape(text: &str, map: &LineMap) -> Result<()> {
    let at = |i: usize, err: String| match map.locate(i) {
        Some((f, l)) => Error::bad_input(err).located(f, Some(l)),
        None => Error::bad_input(err),
    };
    let mut depth = 0usize;
    // `++`/`--` tokens since the last character that is not a sign or white space.
    let mut inc_dec = 0usize;
    let bytes = text.as_bytes();
    let mut i = 0;
    let mut line_start = true;
    while i < bytes.len() {
        let b = bytes[i];
        let next = bytes.get(i + 1).copied();
        match b {
            b'#' if line_start => {
                // line marker or pragma: skip the line
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            b'"' | b'\'' => {
                inc_dec = 0;
                i += 1;
                while i < bytes.len() && bytes[i] != b && bytes[i] != b'\n' {
                    if bytes[i] == b'\\' {
                        i += 1;
                    }
                    i += 1;
                }
            }
            b'(' | b'[' | b'{' => {
                inc_dec = 0;
                depth += 1;
                if depth > MAX_NESTING {
                    return Err(at(
                        i,
                        format!(
                            "nesting deeper than {MAX_NESTING} levels of brackets is not supported"
                        ),
                    ));
                }
            }
            b')' | b']' | b'}' => {
                inc_dec = 0;
                depth = depth.saturating_sub(1);
            }
            // Maximal munch, as the C lexer does: `++`/`--` first, then `+=`/`-=`/`->`.
            b'+' | b'-' if next == Some(b) => {
                inc_dec += 1;
                if inc_dec > MAX_INC_DEC_RUN {
                    return Err(at(
                        i,
                        format!("more than {MAX_INC_DEC_RUN} `++`/`--` operators in a row (as in `a----b`): not valid C, and not parsed (such runs make the parser's time exponential)"),
                    ));
                }
                i += 2;
                line_start = false;
                continue;
            }
            b'+' | b'-' if matches!(next, Some(b'=') | Some(b'>')) => inc_dec = 0,
            b'+' | b'-' | b' ' | b'\t' | b'\n' | b'\r' => {}
            _ => inc_dec = 0,
        }
        line_start = b == b'\n' || (line_start && (b == b' ' || b == b'\t'));
        i += 1;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::parse_text;

    /// Valid C keeps at most two `++`/`--` in a run of signs; those, and signs in literals and
    /// line markers, still parse.
    #[test]
    fn sign_runs_of_valid_c_parse() {
        let text = "# 1 \"ok.c\"\nint f(int a, int b) {\n  int c = a++ + ++b;\n  c = a-- - --b + - -c;\n  c = c - -1 + (a+++b);\n  const char *s = \"------++++\";\n  char d = '-';\n  return c + d + s[0];\n}\n# 10 \"ok--------.c\"\n".to_string();
        let p = parse_text(text, "ok.c").expect("valid C with sign runs parses");
        assert_eq!(p.functions.len(), 1);
    }

    /// The body of function `f` in `src`, without source lines.
    fn body_without_lines(src: &str) -> String {
        let p = parse_text(format!("# 1 \"t.c\"\n{src}\n"), "t.c").expect("parses");
        let dbg = format!("{:?}", p.function("f").expect("f").body);
        // Drop each `line: Line(N)`: only the shape is compared.
        let mut out = String::new();
        let mut rest = dbg.as_str();
        while let Some(i) = rest.find("line: Line(") {
            out.push_str(&rest[..i]);
            let tail = &rest[i..];
            rest = &tail[tail.find(')').unwrap() + 1..];
        }
        out.push_str(rest);
        out
    }

    /// A local is in scope in its own initializer: `sizeof *p` there is `p`'s pointee (it was
    /// an undeclared identifier), and a read of the name there reads the new, not yet set
    /// variable (it read an outer one of that name), so it is havocked first.
    #[test]
    fn a_local_is_in_scope_in_its_initializer() {
        let sized = body_without_lines(
            "long f(int n) { long *p = (long *)0 + sizeof *p; return (long)p + n; }",
        );
        assert!(
            sized.contains("Int(8)"),
            "sizeof *p is sizeof(long): {sized}"
        );
        let own = body_without_lines("int f(int x) { { int x = x + 1; return x; } }");
        let outer = body_without_lines("int f(int x) { { int y = x + 1; return y; } }");
        assert!(own.contains("Havoc"), "{own}");
        assert!(!outer.contains("Havoc"), "{outer}");
    }

    /// `if (!c) A else B` is lowered as `if (c) B else A` (also `!!c`, `!p`, and a constant 0
    /// condition); an `if` without `else` keeps its `!`.
    #[test]
    fn negated_conditions_swap_branches() {
        let f = |cond: &str, a: &str, b: &str| {
            body_without_lines(&format!(
                "int f(int x, int y, int *p) {{ int r = 0; if ({cond}) {{ r = {a}; }} else {{ r = {b}; }} return r; }}"
            ))
        };
        assert_eq!(f("!(x > y)", "x", "y"), f("x > y", "y", "x"));
        assert_eq!(f("!!(x > y)", "x", "y"), f("x > y", "x", "y"));
        assert_eq!(f("!x", "1", "2"), f("x", "2", "1"));
        assert_eq!(f("!p", "1", "2"), f("p", "2", "1"));
        assert_eq!(f("0", "1", "2"), f("1", "2", "1"));
        assert_ne!(f("!(x > y)", "x", "y"), f("x > y", "x", "y"));
        let no_else = body_without_lines("int f(int x) { int r = 0; if (!x) r = 1; return r; }");
        assert!(no_else.contains("LogNot"), "{no_else}");
    }

    /// A long run of `-` (found by the `frontend` fuzz target: 60 signs took the parser hours) is
    /// rejected at once, naming its line, and so are spaced `-- -- --`.
    #[test]
    fn inc_dec_runs_are_rejected_with_their_line() {
        for run in ["-".repeat(60), "-- ".repeat(20), "+".repeat(7)] {
            let text = format!("# 1 \"bad.c\"\nint f(int w)\n{{\n  return w >{run}> 1;\n}}\n");
            let e = parse_text(text, "bad.c").expect_err("rejected").to_string();
            assert!(e.starts_with("bad.c:3:"), "{e}");
            // (without the check, the parse would end at the time limit with another message)
            assert!(e.contains("`++`/`--`"), "{e}");
        }
    }

    /// A local `int` with a constant initializer sizes an array when nothing in the function
    /// can change it; a write, `&`, `++`, a `goto`, or a declaration inside a `switch` body
    /// (a `case` may jump past its initialization) leaves the array variable-length: rejected.
    #[test]
    fn only_unwritten_locals_size_arrays() {
        let lower = |body: &str| {
            let p = parse_text(format!("# 1 \"t.c\"\nint f(int x) {{ {body} }}\n"), "t.c")
                .expect("parses");
            match p.rejected.iter().find(|(f, _)| f == "f") {
                Some((_, e)) => Err(e.to_string()),
                None => Ok(p.function("f").is_some()),
            }
        };
        let fixed = "int n = 4; int a[n]; a[0] = x; return a[0];";
        assert_eq!(lower(fixed), Ok(true));
        for bad in [
            "int n = 4; n = x; int a[n]; a[0] = x; return a[0];",
            "int n = 4; int a[n]; n++; a[0] = x; return a[0];",
            "int n = 4; int *p = &n; int a[n]; a[0] = *p; return a[0];",
            "int n = 4; if (x) goto out; out: ; int a[n]; a[0] = x; return a[0];",
            "int n = 4; { int n = 2; n += x; } int a[n]; a[0] = x; return a[0];",
            "switch (x) { case 0: ; int n = 4; case 1: ; int a[n]; a[0] = x; return a[0]; } return 0;",
            "int n = x; int a[n]; a[0] = x; return a[0];",
        ] {
            let e = lower(bad).expect_err(bad);
            assert!(e.contains("variable-length"), "{bad}: {e}");
        }
    }
}
