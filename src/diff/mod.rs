//! `dizy diff`: the whole pipeline for a pair of files.
//!
//! Takes two C files and [`DiffOptions`]; gives a [`Report`]: for every function the user named
//! (or, by default, every function defined in both files whose code or callees changed) the
//! correlating program is built, analysed and Δ computed, with a verdict per function. Functions
//! only one file defines are listed as added or removed. Drives the stages in order and never
//! reaches into their internals; the `report` module renders the result.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::analysis;
use crate::correlate;
use crate::delta::Delta;
use crate::diag::{Note, NoteKind, Result};
use crate::frontend;
use crate::gcl::GclProgram;
use crate::limits;

mod assumptions;
mod configs;
mod cycles;
mod details;
mod function;
mod pair;
pub mod workers;
pub use assumptions::{assumptions, canon_name, point_name};
pub use configs::{describe as describe_config_change, lines_text, Configuration};
pub use details::{side_by_side, SideBySide, SourceRow};
pub use function::FALLBACK_NOTE;

/// Everything that decides a report, and how the run goes. Serialized (without the fields that
/// only say how the run goes) for worker processes.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct DiffOptions {
    pub functions: Vec<String>,
    /// Skip the search for distinguishing inputs (`--no-witness`).
    pub no_witness: bool,
    pub witness: crate::witness::Options,
    pub frontend: frontend::Options,
    pub correlate: correlate::Options,
    pub analysis: analysis::Options,
    /// Keep calls to changed same-file functions opaque instead of inlining them (`--no-inline`).
    pub no_inline: bool,
    /// Keep the analysis settings asked for when they run out of time, instead of finishing
    /// with cheaper ones (`--no-fallback`; see `function::analyze_in_steps`).
    pub no_fallback: bool,
    pub inline: crate::inline::Options,
    /// How a witness is validated (`--validate`).
    pub validate: Validate,
    /// Every bound of the run: time per function, memory, PPL work, child processes.
    pub limits: limits::RunLimits,
    /// Also analyse, for each changed region the preprocessor removed, a configuration that
    /// compiles it (`--config-all`).
    pub config_all: bool,
    /// Attach what the HTML report shows beyond the verdicts (`--format html`): each
    /// function's source lines side by side, its correlating program, and a sample of its
    /// input plane executed on both versions (functions of one or two arithmetic parameters).
    pub details: bool,
    /// The size and budget of that sample.
    pub plane: crate::witness::plane::Options,
    /// Told how the run goes (the CLI draws a progress bar with it).
    #[serde(skip)]
    pub progress: Progress,
    /// Path prefixes the report renames (`from`, `to`): `diff --git` names its temporary
    /// checkout `REV:path` this way, before the report is cached.
    #[serde(skip)]
    pub rename: Vec<(String, String)>,
    /// Reuse and store reports (`--cache DIR`, see [`crate::cache`]).
    #[serde(skip)]
    pub cache: Option<crate::cache::Cache>,
    /// Worker processes that analyse functions in parallel (`--jobs`); `None`: all in this
    /// process, one after the other.
    #[serde(skip)]
    pub workers: Option<workers::Workers>,
}

/// What a run tells while it goes: once per file the number of functions it will analyse, then
/// each function's verdict as it is decided.
#[derive(Clone, Copy, Debug)]
pub enum ProgressEvent<'a> {
    Start { file: &'a str, functions: usize },
    Done { function: &'a str, verdict: Verdict },
}

/// A function receiving [`ProgressEvent`]s.
type Receiver = dyn Fn(ProgressEvent<'_>) + Send + Sync;

/// A receiver of [`ProgressEvent`]s; the default receives nothing.
#[derive(Clone, Default)]
pub struct Progress(Option<std::sync::Arc<Receiver>>);

impl Progress {
    pub fn new(f: impl Fn(ProgressEvent<'_>) + Send + Sync + 'static) -> Progress {
        Progress(Some(std::sync::Arc::new(f)))
    }

    fn tell(&self, e: ProgressEvent<'_>) {
        if let Some(f) = &self.0 {
            f(e);
        }
    }
}

impl std::fmt::Debug for Progress {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_some() {
            "Progress(on)"
        } else {
            "Progress(off)"
        })
    }
}

/// Witness validation: by the interpreter only, or also by compiling and running both versions
/// natively (opt-in: it executes the analysed code).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Validate {
    #[default]
    Interp,
    Native,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    Equivalent,
    /// Equal results wherever both versions terminate; that they terminate on the same
    /// inputs is not proven.
    PartiallyEquivalent,
    Different,
    PossiblyDifferent,
    Unchanged,
    Unsupported,
    Timeout,
    Error,
    Added,
    Removed,
    /// Unchanged or equivalent in the analysed configuration, but lines of the function that
    /// the preprocessor removed changed.
    InactiveChange,
}

impl Verdict {
    /// Every verdict, in the order summaries count them.
    pub const ALL: [Verdict; 11] = [
        Verdict::Equivalent,
        Verdict::PartiallyEquivalent,
        Verdict::Different,
        Verdict::PossiblyDifferent,
        Verdict::Unchanged,
        Verdict::Added,
        Verdict::Removed,
        Verdict::InactiveChange,
        Verdict::Unsupported,
        Verdict::Timeout,
        Verdict::Error,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Equivalent => "equivalent",
            Verdict::PartiallyEquivalent => "partially-equivalent",
            Verdict::Different => "different",
            Verdict::PossiblyDifferent => "possibly-different",
            Verdict::Unchanged => "unchanged",
            Verdict::Unsupported => "unsupported",
            Verdict::Timeout => "timeout",
            Verdict::Error => "error",
            Verdict::Added => "added",
            Verdict::Removed => "removed",
            Verdict::InactiveChange => "inactive-change",
        }
    }
}

#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct FunctionReport {
    pub name: String,
    pub verdict: Verdict,
    pub time_ms: u128,
    pub delta: Option<Delta>,
    pub witness: Option<crate::witness::Witness>,
    pub notes: Vec<Note>,
    pub error: Option<String>,
    pub max_substates: usize,
    /// Functions reachable through calls whose own code changed (client-specific impact).
    pub changed_callees: Vec<String>,
    /// Whether the function's own code changed (false: only callees did).
    pub own_changed: bool,
    /// Callees whose bodies were inlined for the analysis.
    pub inlined: Vec<String>,
    /// First line of the definition in the old and the new file.
    pub old_line: Option<u32>,
    pub new_line: Option<u32>,
    /// Where a reader of the new file should look first: the first line of the function's own
    /// code that changed ([`correlate::Correlated::first_changed_line`]), or for a function the
    /// frontend rejected, the line of the rejected construct. `None` when neither is known
    /// (only callees changed, added/removed or unchanged functions): use `new_line`.
    pub changed_line: Option<u32>,
    /// With [`DiffOptions::details`]: both versions' lines side by side (functions that are
    /// not `unchanged`).
    pub source: Option<SideBySide>,
    /// With [`DiffOptions::details`]: the correlating program as `dizy correlate` prints it
    /// (functions that were correlated, also when their analysis then stopped).
    pub correlating: Option<String>,
    /// With [`DiffOptions::details`]: where the versions agree and differ on a grid of inputs
    /// (analysed or timed-out functions of one or two arithmetic parameters).
    pub input_plane: Option<crate::witness::plane::InputPlane>,
    /// The functions this one's proof assumed to be proved as well: the rest of its recursion
    /// cycle, whose calls were summarized by induction ([`cycles::settle`] weakens the verdict
    /// where they are not).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub assumes: Vec<String>,
}

#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Report {
    pub old: String,
    pub new: String,
    pub assumptions: Vec<Note>,
    pub functions: Vec<FunctionReport>,
    /// Changed lines outside the analysed configuration (inactive `#if` regions, changed
    /// conditions and directives), in file order.
    pub config_changes: Vec<crate::config_changes::ConfigChange>,
    /// With `--config-all`: the same pair analysed in configurations that compile those lines.
    pub configurations: Vec<Configuration>,
}

impl Report {
    /// Write paths that start with `from` as starting with `to` instead, in the file names,
    /// notes and errors (`dizy diff --git` names its temporary checkout `REV:path` this way).
    pub fn rename_prefix(&mut self, from: &str, to: &str) {
        let fix = |s: &mut String| {
            if s.contains(from) {
                *s = s.replace(from, to);
            }
        };
        let fix_note = |n: &mut Note| {
            if let Some(f) = &mut n.file {
                fix(f);
            }
            fix(&mut n.text);
        };
        fix(&mut self.old);
        fix(&mut self.new);
        self.assumptions.iter_mut().for_each(fix_note);
        for f in &mut self.functions {
            f.notes.iter_mut().for_each(fix_note);
            if let Some(e) = &mut f.error {
                fix(e);
            }
        }
        for c in &mut self.configurations {
            c.report.rename_prefix(from, to);
        }
    }

    /// Changes that may alter behaviour in a configuration other than the analysed one, and
    /// for which no configuration that compiles them was analysed (`--config-all`).
    pub fn unanalysed_config_changes(
        &self,
    ) -> impl Iterator<Item = &crate::config_changes::ConfigChange> {
        self.config_changes.iter().filter(|c| {
            c.escapes
                && !c
                    .enable
                    .as_ref()
                    .is_some_and(|f| self.configurations.iter().any(|k| k.flags == *f))
        })
    }

    /// diff(1)-style status: 1 if anything may differ, else 2 on trouble, else 0. A changed line
    /// the preprocessor removed counts as "may differ" unless an extra configuration that
    /// compiles it was analysed (whose status then counts).
    pub fn exit_code(&self) -> u8 {
        let any = |vs: &[Verdict]| self.functions.iter().any(|f| vs.contains(&f.verdict));
        let hidden = self.unanalysed_config_changes().next().is_some();
        let own = if hidden
            || any(&[
                Verdict::Different,
                Verdict::PossiblyDifferent,
                Verdict::PartiallyEquivalent,
                Verdict::Added,
                Verdict::Removed,
            ]) {
            1
        } else if any(&[Verdict::Unsupported, Verdict::Timeout, Verdict::Error]) {
            2
        } else {
            0
        };
        self.configurations
            .iter()
            .fold(own, |acc, c| worse_exit(acc, c.report.exit_code()))
    }
}

/// The exit status of two results together (configurations, files of `--git`): 1 (may differ)
/// outranks 2 (trouble), as for functions, so a found difference is never hidden by trouble
/// elsewhere; 0 only when both are 0.
pub fn worse_exit(a: u8, b: u8) -> u8 {
    if a == 1 || b == 1 {
        1
    } else {
        a.max(b)
    }
}

/// Run the pipeline on a pair of files (or take its report from the cache).
pub fn diff_files(old: &Path, new: &Path, opts: &DiffOptions) -> Result<Report> {
    let fe = frontend_options((old, new), opts);
    let tell = |report: &Report| {
        for r in std::iter::once(report).chain(report.configurations.iter().map(|c| &c.report)) {
            opts.progress.tell(ProgressEvent::Start {
                file: &r.new,
                functions: r.functions.len(),
            });
            for f in &r.functions {
                opts.progress.tell(ProgressEvent::Done {
                    function: &f.name,
                    verdict: f.verdict,
                });
            }
        }
    };
    // The direct mode first: no preprocessor run when nothing watched changed.
    let direct = opts
        .cache
        .as_ref()
        .and_then(|c| direct_entry(c, (old, new), opts));
    if let Some(report) = direct
        .as_ref()
        .and_then(crate::cache::Direct::lookup)
        .and_then(|e| e.load())
    {
        tell(&report);
        return Ok(report);
    }
    let entry = opts
        .cache
        .as_ref()
        .and_then(|c| cache_entry(c, (old, new), &fe, opts));
    let record = |e: &crate::cache::Entry, inputs: &[String], missing: &[String]| {
        if let (Some(d), Some(w)) = (&direct, watched(inputs, missing, &fe)) {
            d.record(e, inputs, &w);
        }
    };
    if let Some((e, inputs, missing)) = &entry {
        if let Some(report) = e.load() {
            record(e, inputs, missing);
            tell(&report);
            return Ok(report);
        }
    }
    let (po, pn) = load_pair((old, new), opts)?;
    let mut report = diff_loaded(&po, &pn, Some((old, new)), opts);
    if opts.details {
        let read = |p: &Path| std::fs::read(p).map(|b| String::from_utf8_lossy(&b).into_owned());
        if let (Ok(to), Ok(tn)) = (read(old), read(new)) {
            details::attach_sources(&mut report, (&to, &tn), &po, &pn);
        }
    }
    configs::add_config_changes(old, new, &po, &pn, &fe, opts, &mut report);
    for (from, to) in &opts.rename {
        report.rename_prefix(from, to);
    }
    if let Some((e, inputs, missing)) = &entry {
        e.store(&report);
        record(e, inputs, missing);
    }
    Ok(report)
}

/// The preprocessor options of a file pair.
fn frontend_options((old, new): (&Path, &Path), opts: &DiffOptions) -> frontend::Options {
    let fe = opts.frontend.clone().with_limits(&opts.limits);
    // `__FILE__` names both versions as the new file: where each lies is no difference. Each
    // version reads the headers of its own tree.
    frontend::Options {
        file_name: Some(new.display().to_string()),
        trees: frontend::version_roots(old, new),
        ..fe
    }
}

/// Load both versions of a file pair as `diff_files` does (a worker process loads them the
/// same way).
fn load_pair((old, new): (&Path, &Path), opts: &DiffOptions) -> Result<(GclProgram, GclProgram)> {
    let fe = frontend_options((old, new), opts);
    crate::load_gcl_pair(old, new, &fe)
}

/// The options that decide a report, as the cache keys on them: all but the cache, the
/// progress receiver, the renaming and the workers.
fn decisive_options(opts: &DiffOptions) -> String {
    let decisive = DiffOptions {
        cache: None,
        progress: Progress::default(),
        rename: vec![],
        workers: None,
        ..opts.clone()
    };
    format!("{decisive:?}")
}

/// `s` with the report's renamings applied.
fn renamed(opts: &DiffOptions, s: &str) -> String {
    opts.rename
        .iter()
        .fold(s.to_string(), |s, (from, to)| s.replace(from.as_str(), to))
}

/// The cache entry of a file pair: keyed on the options that decide the report, the files'
/// names as the report gives them, and every file either version's preprocessor reads (given
/// back, both versions' in one list, with the headers found missing).
fn cache_entry(
    cache: &crate::cache::Cache,
    (old, new): (&Path, &Path),
    fe: &crate::frontend::Options,
    opts: &DiffOptions,
) -> Option<(crate::cache::Entry, Vec<String>, Vec<String>)> {
    let rename = |s: &str| renamed(opts, s);
    let (files_old, missing_old) = crate::frontend::input_files(old, fe).ok()?;
    let (files_new, missing_new) = crate::frontend::input_files(new, fe).ok()?;
    let inputs = [files_old, files_new];
    let entry = cache.entry(
        (
            &rename(&old.display().to_string()),
            &rename(&new.display().to_string()),
        ),
        &decisive_options(opts),
        [&inputs[0], &inputs[1]],
        &rename,
    )?;
    Some((entry, inputs.concat(), [missing_old, missing_new].concat()))
}

/// The direct-mode entry of a file pair (see [`crate::cache::Direct`]).
fn direct_entry(
    cache: &crate::cache::Cache,
    (old, new): (&Path, &Path),
    opts: &DiffOptions,
) -> Option<crate::cache::Direct> {
    let rename = |s: &str| renamed(opts, s);
    cache.direct(
        (
            &rename(&old.display().to_string()),
            &rename(&new.display().to_string()),
        ),
        &decisive_options(opts),
        [old, new],
        &rename,
    )
}

/// What else a preprocessor run that read `inputs` depends on: the preprocessor executable,
/// the header search directories, the directories of the files read, and — for each file found
/// in a search directory under a relative name — that name's directory in every search
/// directory (its deepest existing part: creating `sys/x.h` in an earlier directory changes
/// what `#include <sys/x.h>` finds), and so for each `missing` header's name, also beside every
/// file read (a quoted include looks there first). `None` when the search directories cannot be
/// listed.
fn watched(
    inputs: &[String],
    missing: &[String],
    fe: &crate::frontend::Options,
) -> Option<Vec<String>> {
    let search = crate::frontend::search_dirs(fe)?;
    let mut out: Vec<String> = vec![];
    let mut add = |p: String| {
        if !out.contains(&p) {
            out.push(p);
        }
    };
    if fe.cpp.contains('/') {
        add(fe.cpp.clone());
    } else if let Some(path) = std::env::var_os("PATH") {
        if let Some(exe) = std::env::split_paths(&path)
            .map(|d| d.join(&fe.cpp))
            .find(|p| p.is_file())
        {
            add(exe.display().to_string());
        }
    }
    for d in &search {
        add(d.clone());
    }
    // The deepest existing directory on the way from `base` to `base/sub`.
    let deepest = |base: &Path, sub: &Path| -> String {
        let mut p = base.join(sub);
        while !p.exists() && p != base {
            match p.parent() {
                Some(q) => p = q.to_path_buf(),
                None => break,
            }
        }
        p.display().to_string()
    };
    let parents: Vec<PathBuf> = inputs
        .iter()
        .map(|f| match Path::new(f).parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        })
        .collect();
    for m in missing {
        let sub = Path::new(m).parent().unwrap_or(Path::new(""));
        for base in search
            .iter()
            .map(PathBuf::from)
            .chain(parents.iter().cloned())
        {
            add(deepest(&base, sub));
        }
    }
    for f in inputs {
        let f = Path::new(f);
        // The includer's own directory comes first for `#include "…"` (`.` for a bare name).
        match f.parent() {
            Some(p) if !p.as_os_str().is_empty() => add(p.display().to_string()),
            _ => add(".".into()),
        }
        for d in &search {
            let Ok(rel) = f.strip_prefix(d) else { continue };
            let sub = rel.parent().unwrap_or(Path::new(""));
            for e in &search {
                add(deepest(Path::new(e), sub));
            }
        }
    }
    Some(out)
}

/// Run the pipeline on two loaded programs.
pub fn diff_programs(po: &GclProgram, pn: &GclProgram, opts: &DiffOptions) -> Report {
    diff_loaded(po, pn, None, opts)
}

/// [`diff_programs`] on programs loaded from `files` by [`load_pair`] (so that worker processes
/// can load them again).
fn diff_loaded(
    po: &GclProgram,
    pn: &GclProgram,
    files: Option<(&Path, &Path)>,
    opts: &DiffOptions,
) -> Report {
    let mut assumptions = assumptions(opts);
    if !opts.no_inline {
        assumptions.push(Note::new(NoteKind::Semantics, format!("calls to functions of the file whose code changed (directly or in their callees) are inlined into the analysed functions up to depth {}; an analysed function's own recursive calls are unfolded {} time(s), then stay calls, as do other recursive calls and deeper ones (unknown calls)", opts.inline.max_depth, opts.inline.unfold)));
    }
    for n in po.program.notes.iter().chain(&pn.program.notes) {
        // Notes about one line go to the function that contains it.
        let inside = |p: &GclProgram| {
            n.line_in(&p.program.file).is_some_and(|l| {
                p.functions
                    .iter()
                    .any(|f| (f.func.line.0..=f.func.end_line.0).contains(&l))
            })
        };
        // The same note about the new file as about the old one is said once.
        let same = n.file.as_deref() == Some(pn.program.file.as_str())
            && assumptions.contains(&Note {
                file: Some(po.program.file.clone()),
                ..n.clone()
            });
        if !inside(po) && !inside(pn) && !same && !assumptions.contains(n) {
            assumptions.push(n.clone());
        }
    }
    let pair = pair::Pair::new(po, pn, opts);
    let names: Vec<&String> = pair.names.iter().collect();
    opts.progress.tell(ProgressEvent::Start {
        file: &pn.program.file,
        functions: names.len(),
    });
    let done = |r: FunctionReport| {
        opts.progress.tell(ProgressEvent::Done {
            function: &r.name,
            verdict: r.verdict,
        });
        r
    };
    // Functions that need the analysis go to worker processes when there are several of them
    // (or other files' functions share the workers); the rest are decided here at once.
    let analysed = names
        .iter()
        .filter(|n| pair.needs_analysis(n, opts))
        .count();
    let pool = files.zip(opts.workers.as_ref().filter(|w| w.takes(analysed)));
    let mut functions: Vec<FunctionReport> = match pool {
        None => names.iter().map(|n| done(pair.function(n, opts))).collect(),
        Some((files, w)) => crate::parallel::parallel_map(&names, w.jobs(), |_, n| {
            done(if pair.needs_analysis(n, opts) {
                w.function(files, n, opts)
            } else {
                pair.function(n, opts)
            })
        }),
    };
    // Keep the order of the old file (then new-only functions) for readability.
    let mut order: HashMap<String, usize> = HashMap::new();
    for (i, n) in po
        .functions
        .iter()
        .chain(pn.functions.iter())
        .map(|f| f.name.clone())
        .enumerate()
    {
        order.entry(n).or_insert(i);
    }
    functions.sort_by_key(|f: &FunctionReport| order.get(&f.name).copied().unwrap_or(usize::MAX));
    for r in &mut functions {
        function::attach_lines(r, po, pn);
    }
    cycles::settle(&mut functions);
    Report {
        old: po.program.file.clone(),
        new: pn.program.file.clone(),
        assumptions,
        functions,
        config_changes: vec![],
        configurations: vec![],
    }
}

/// Parse a timeout in seconds.
pub fn timeout_from_secs(s: f64) -> Option<Duration> {
    (s > 0.0).then(|| Duration::from_secs_f64(s))
}
