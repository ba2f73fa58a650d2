//! `dizy diff`: the whole pipeline for a pair of files.
//!
//! Takes two C files and [`DiffOptions`]; gives a [`Report`]: for every function the user named
//! (or, by default, every function defined in both files whose code or callees changed) the
//! correlating program is built, analysed and Δ computed, with a verdict per function. Functions
//! only one file defines are listed as added or removed. Drives the stages in order and never
//! reaches into their internals; the `report` module renders the result.

use std::collections::{BTreeSet, HashMap};
use std::path::Path;
use std::time::{Duration, Instant};

use crate::analysis;
use crate::changes;
use crate::correlate;
use crate::delta::{self, Delta};
use crate::diag::{Note, NoteKind, Result};
use crate::frontend;
use crate::gcl::GclProgram;
use crate::limits;

mod assumptions;
mod configs;
mod details;
pub use assumptions::{assumptions, canon_name, point_name};
pub use configs::{describe as describe_config_change, lines_text, Configuration};
pub use details::{side_by_side, SideBySide, SourceRow};

#[derive(Clone, Debug, Default)]
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
    pub progress: Progress,
    /// Path prefixes the report renames (`from`, `to`): `diff --git` names its temporary
    /// checkout `REV:path` this way, before the report is cached.
    pub rename: Vec<(String, String)>,
    /// Reuse and store reports (`--cache DIR`, see [`crate::cache`]).
    pub cache: Option<crate::cache::Cache>,
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
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
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
    let fe = opts.frontend.clone().with_limits(&opts.limits);
    // `__FILE__` names both versions as the new file: where each lies is no difference.
    let fe = crate::frontend::Options {
        file_name: Some(new.display().to_string()),
        ..fe
    };
    let entry = opts
        .cache
        .as_ref()
        .and_then(|c| cache_entry(c, (old, new), &fe, opts));
    if let Some(report) = entry.as_ref().and_then(crate::cache::Entry::load) {
        for r in std::iter::once(&report).chain(report.configurations.iter().map(|c| &c.report)) {
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
        return Ok(report);
    }
    let po = crate::load_gcl(old, &fe)?;
    let pn = crate::load_gcl(new, &fe)?;
    let mut report = diff_programs(&po, &pn, opts);
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
    if let Some(e) = entry {
        e.store(&report);
    }
    Ok(report)
}

/// The cache entry of a file pair: keyed on the options that decide the report (not the cache,
/// the progress receiver or the renaming), the files' names as the report gives them, and every
/// file either version's preprocessor reads.
fn cache_entry(
    cache: &crate::cache::Cache,
    (old, new): (&Path, &Path),
    fe: &crate::frontend::Options,
    opts: &DiffOptions,
) -> Option<crate::cache::Entry> {
    let rename = |s: &str| {
        opts.rename
            .iter()
            .fold(s.to_string(), |s, (from, to)| s.replace(from.as_str(), to))
    };
    let inputs = [
        crate::frontend::input_files(old, fe).ok()?,
        crate::frontend::input_files(new, fe).ok()?,
    ];
    let decisive = DiffOptions {
        cache: None,
        progress: Progress::default(),
        rename: vec![],
        ..opts.clone()
    };
    cache.entry(
        (
            &rename(&old.display().to_string()),
            &rename(&new.display().to_string()),
        ),
        &format!("{decisive:?}"),
        [&inputs[0], &inputs[1]],
        &rename,
    )
}

/// Run the pipeline on two loaded programs.
pub fn diff_programs(po: &GclProgram, pn: &GclProgram, opts: &DiffOptions) -> Report {
    let mut assumptions = assumptions(opts);
    if !opts.no_inline {
        assumptions.push(Note::new(NoteKind::Semantics, format!("calls to functions of the file whose code changed (directly or in their callees) are inlined into the analysed functions up to depth {}; recursive calls and deeper ones stay unknown calls", opts.inline.max_depth)));
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
    let ch = changes::changes(po, pn);
    let defined = |p: &GclProgram| -> BTreeSet<String> {
        p.functions.iter().map(|f| f.name.clone()).collect()
    };
    let (defined_o, defined_n) = (defined(po), defined(pn));
    let mut names: BTreeSet<String> = BTreeSet::new();
    if opts.functions.is_empty() {
        // Functions of headers are not the file's: a change to one shows in its callers.
        for p in [po, pn] {
            names.extend(p.file_functions().map(|f| f.name.clone()));
            names.extend(p.file_rejected().map(|(n, _)| n.clone()));
        }
    } else {
        names.extend(opts.functions.iter().cloned());
    }
    // Client-specific impact: changed callees are inlined into the analysed functions; the
    // witness search still runs the original programs.
    let (vo, vn) = if opts.no_inline {
        (Default::default(), Default::default())
    } else {
        (
            crate::inline::inline_gcl(po, &names, &ch.old, &opts.inline),
            crate::inline::inline_gcl(pn, &names, &ch.new, &opts.inline),
        )
    };
    let known = Known {
        defined_o: &defined_o,
        defined_n: &defined_n,
        changes: &ch,
    };
    let inl = (vo.gcl.as_ref().unwrap_or(po), vn.gcl.as_ref().unwrap_or(pn));
    let mut functions = vec![];
    opts.progress.tell(ProgressEvent::Start {
        file: &pn.program.file,
        functions: names.len(),
    });
    for name in names {
        let was_inlined = |v: &crate::inline::Version| {
            v.gcl.is_some() && v.outcomes.get(&name).is_some_and(|o| !o.inlined.is_empty())
        };
        let inlined_here = was_inlined(&vo) || was_inlined(&vn);
        let budget = FunctionTime::new(opts.limits.timeout, inlined_here);
        let mut r = one_function(po, pn, inl, &name, &known, opts, &budget);
        let failed = matches!(
            r.verdict,
            Verdict::Timeout | Verdict::Error | Verdict::Unsupported
        );
        let fell_back = failed && inlined_here;
        if fell_back {
            // Inlining made the function too big or hit a limit: fall back to opaque calls,
            // within what is left of the same budget.
            let why = r.error.clone().unwrap_or_default();
            let rest = budget.fallback();
            r = one_function(po, pn, (po, pn), &name, &known, opts, &rest);
            r.notes.push(Note::new(
                NoteKind::Analysis,
                format!("analysis with inlined callees failed ({why}); changed callees kept as unknown calls"),
            ));
        }
        opts.progress.tell(ProgressEvent::Done {
            function: &name,
            verdict: r.verdict,
        });
        if opts.details && matches!(r.verdict, Verdict::Timeout | Verdict::Error) {
            // No analysis to show, but both versions still run: the sample shows what they do.
            r.input_plane = details::input_plane(po, pn, &name, None, &[], opts);
        }
        r.own_changed = ch.own.contains(&name);
        r.changed_callees = ch.changed_callees(&name);
        if r.verdict != Verdict::Unchanged && !r.own_changed {
            for why in ch.why.get(&name).into_iter().flatten() {
                let why = Note::new(NoteKind::Change, why.clone());
                if !r.notes.contains(&why) {
                    r.notes.push(why);
                }
            }
        }
        if fell_back
            || matches!(
                r.verdict,
                Verdict::Unchanged | Verdict::Added | Verdict::Removed
            )
        {
            functions.push(r);
            continue;
        }
        let mut inlined = BTreeSet::new();
        for o in [vo.outcomes.get(&name), vn.outcomes.get(&name)]
            .into_iter()
            .flatten()
        {
            inlined.extend(o.inlined.iter().cloned());
            for n in &o.notes {
                let n = Note::new(NoteKind::Analysis, n.clone());
                if !r.notes.contains(&n) {
                    r.notes.push(n);
                }
            }
        }
        r.inlined = inlined.into_iter().collect();
        functions.push(r);
    }
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
        attach_lines(r, po, pn);
    }
    Report {
        old: po.program.file.clone(),
        new: pn.program.file.clone(),
        assumptions,
        functions,
        config_changes: vec![],
        configurations: vec![],
    }
}

fn report(name: &str, verdict: Verdict, start: Instant) -> FunctionReport {
    FunctionReport {
        name: name.to_string(),
        verdict,
        time_ms: start.elapsed().as_millis(),
        delta: None,
        witness: None,
        notes: vec![],
        error: None,
        max_substates: 0,
        changed_callees: vec![],
        own_changed: false,
        inlined: vec![],
        old_line: None,
        new_line: None,
        changed_line: None,
        source: None,
        correlating: None,
        input_plane: None,
    }
}

/// Fill in the definition lines of `r` and, for analysed functions, the frontend's notes about
/// lines inside the definition (assumed typedefs, blanked macros), merged across versions.
fn attach_lines(r: &mut FunctionReport, po: &GclProgram, pn: &GclProgram) {
    let range = |p: &GclProgram| {
        p.functions
            .iter()
            .find(|f| f.name == r.name)
            .map(|f| (f.func.line.0, f.func.end_line.0))
            .or_else(|| p.program.rejected_lines.get(&r.name).copied())
    };
    let (ro, rn) = (range(po), range(pn));
    r.old_line = ro.map(|x| x.0);
    r.new_line = rn.map(|x| x.0);
    if matches!(
        r.verdict,
        Verdict::Unchanged | Verdict::Added | Verdict::Removed
    ) {
        return;
    }
    // (kind, text) → (old line, new line)
    let mut found: Vec<(NoteKind, String, Option<u32>, Option<u32>)> = vec![];
    for (p, range, old) in [(po, ro, true), (pn, rn, false)] {
        let Some((lo, hi)) = range else { continue };
        for (line, n) in p
            .program
            .notes
            .iter()
            .filter_map(|n| Some((n.line_in(&p.program.file)?, n)))
            .filter(|(l, _)| (lo..=hi).contains(l))
        {
            let i = match found.iter().position(|f| f.0 == n.kind && f.1 == n.text) {
                Some(i) => i,
                None => {
                    found.push((n.kind, n.text.clone(), None, None));
                    found.len() - 1
                }
            };
            let slot = if old {
                &mut found[i].2
            } else {
                &mut found[i].3
            };
            slot.get_or_insert(line);
        }
    }
    for (kind, text, o, n) in found {
        let at = match (o, n) {
            (Some(o), Some(n)) => format!("old line {o}, new line {n}"),
            (Some(o), None) => format!("old line {o}"),
            (None, Some(n)) => format!("new line {n}"),
            (None, None) => continue,
        };
        r.notes.push(Note::new(kind, format!("{text} ({at})")));
    }
}

/// The time one function may take (`--timeout`), shared by its attempts: analysis with inlined
/// callees, then (if that fails) with opaque calls, then the witness search.
struct FunctionTime {
    start: Instant,
    /// When everything for the function must be done.
    end: Option<Instant>,
    /// When the analysis must be done.
    analysis_end: Option<Instant>,
}

impl FunctionTime {
    /// With inlined callees the first analysis may use two thirds of the time, so that a
    /// fallback with opaque calls still has a third (before, it got a fresh `--timeout` and a
    /// function could take twice its budget).
    fn new(timeout: Option<Duration>, inlined: bool) -> FunctionTime {
        let start = Instant::now();
        let share = if inlined { 2.0 / 3.0 } else { 1.0 };
        FunctionTime {
            start,
            end: timeout.map(|t| start + t),
            analysis_end: timeout.map(|t| start + t.mul_f64(share)),
        }
    }

    /// The budget of the fallback: the rest of the whole.
    fn fallback(&self) -> FunctionTime {
        FunctionTime {
            start: self.start,
            end: self.end,
            analysis_end: self.end,
        }
    }

    fn left(until: Option<Instant>) -> Option<Duration> {
        until.map(|e| e.saturating_duration_since(Instant::now()))
    }
}

/// What the driver knows about the two programs before analysing a function.
struct Known<'a> {
    defined_o: &'a BTreeSet<String>,
    defined_n: &'a BTreeSet<String>,
    changes: &'a changes::Changes,
}

/// Runs of the concrete pre-pass before the analysis (see `one_function`).
const PREPASS_RUNS: usize = 300;
/// Its time cap, for functions whose runs are slow.
const PREPASS_TIME: std::time::Duration = std::time::Duration::from_millis(100);
/// Interpreter steps per run of the pre-pass: an input that runs longer is left to the full
/// search (which tells a long loop from one that does not end).
const PREPASS_STEPS: u64 = 100_000;

fn one_function(
    po: &GclProgram,
    pn: &GclProgram,
    (io, inew): (&GclProgram, &GclProgram),
    name: &str,
    known: &Known<'_>,
    opts: &DiffOptions,
    budget: &FunctionTime,
) -> FunctionReport {
    crate::resources::set_phase(format!("function {name}"));
    // Times are reported from the function's first attempt on.
    let start = budget.start;
    let rejected = |p: &GclProgram| {
        p.program
            .rejected
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, e)| e.to_string())
    };
    if let Some(e) = rejected(po).or_else(|| rejected(pn)) {
        // Rejected in both versions, but the same text in the same surroundings: unchanged.
        let same = match (
            frontend::fingerprint(&po.program, name),
            frontend::fingerprint(&pn.program, name),
        ) {
            (Some(a), Some(b)) => a == b,
            _ => false,
        };
        let reaches = known.changes.changed(name);
        if same && !reaches && opts.functions.is_empty() {
            let mut r = report(name, Verdict::Unchanged, start);
            r.notes.push(Note::new(
                NoteKind::NotAnalysed,
                format!("not analysed: {e}"),
            ));
            return r;
        }
        let mut r = report(name, Verdict::Unsupported, start);
        r.error = Some(e);
        r.changed_line = pn
            .program
            .rejected
            .iter()
            .find(|(n, _)| n == name)
            .and_then(|(_, e)| e.line);
        if same && reaches {
            for why in known.changes.why.get(name).into_iter().flatten() {
                r.notes.push(Note::new(
                    NoteKind::Change,
                    format!("its text is the same in both versions, but it {why}"),
                ));
            }
        }
        return r;
    }
    match (
        known.defined_o.contains(name),
        known.defined_n.contains(name),
    ) {
        (false, false) => {
            let mut r = report(name, Verdict::Error, start);
            r.error = Some(format!("no function `{name}` is defined in either file"));
            return r;
        }
        (true, false) => return report(name, Verdict::Removed, start),
        (false, true) => return report(name, Verdict::Added, start),
        _ => {}
    }
    if opts.functions.is_empty() && !known.changes.changed(name) {
        return report(name, Verdict::Unchanged, start);
    }
    let mut copts = opts.correlate.clone();
    copts.changed = Some(
        known
            .changes
            .old
            .union(&known.changes.new)
            .cloned()
            .collect(),
    );
    let c = match correlate::correlate(io, inew, name, &copts) {
        Ok(c) => c,
        Err(e) => {
            let mut r = report(name, Verdict::Unsupported, start);
            r.error = Some(e.to_string());
            return r;
        }
    };
    let listing = opts.details.then(|| correlate::print_correlated(&c));
    // The analysis or Δ stopped (a limit, or an internal error): no verdict, the reason.
    let stopped = |e: crate::diag::Error| {
        let v = if e.is_stop() {
            Verdict::Timeout
        } else {
            Verdict::Error
        };
        let mut r = report(name, v, start);
        r.error = Some(e.to_string());
        r.correlating = listing.clone();
        r
    };
    // The analysis may use its share of the time, the rest of the pipeline all of it.
    let whole = limits::Budget::new(budget.end, opts.limits.memory_mb)
        .with_op_budget(opts.limits.op_budget);
    let analysis_budget = whole.until(budget.analysis_end);
    // A concrete pre-pass before the analysis: a few hundred runs of the cheap strategies
    // (boundary values, the code's constants and their neighbours, memory candidates), so that
    // an easy difference is found in milliseconds, not after the fixpoint. Bounded by runs, so
    // that its outcome does not depend on the machine's speed.
    let early = if opts.no_witness {
        None
    } else {
        let mut quick = opts.witness.clone();
        quick.max_runs = quick.max_runs.min(PREPASS_RUNS);
        quick.time = quick.time.min(PREPASS_TIME);
        quick.step_budget = quick.step_budget.min(PREPASS_STEPS);
        quick.clean_only = true;
        let none = delta::Delta {
            points: vec![],
            equivalent: false,
        };
        let before = start.elapsed().as_millis();
        crate::witness::search(po, pn, name, &none, &quick, None, &whole)
            .witness
            .map(|mut w| {
                w.strategy = format!("{} (pre-pass)", w.strategy);
                w.time_ms += before;
                w
            })
    };
    let a = match analysis::analyze(&c, &opts.analysis, &analysis_budget) {
        Ok(a) => a,
        Err(e) => return stopped(e),
    };
    let d = match delta::compute(&c, &a, &whole) {
        Ok(d) => d,
        Err(e) => return stopped(e),
    };
    // An empty Δ speaks only of executions that reach the diff points: equivalence also needs
    // both versions to terminate on the same inputs.
    let term = if d.equivalent {
        match crate::termination::check(&c, &a, &copts.changed.clone().unwrap_or_default(), &whole)
        {
            Ok(t) => t,
            Err(e) => crate::termination::Termination {
                proven: false,
                reasons: vec![format!("termination not checked: {e}")],
            },
        }
    } else {
        Default::default()
    };
    let partial = d.equivalent && !term.proven;
    // "different" needs inputs on which the versions were seen to differ.
    let before_search = start.elapsed().as_millis();
    // `--timeout` bounds the whole function: the search gets what the analysis left of it.
    let mut wopts = opts.witness.clone();
    if let Some(t) = FunctionTime::left(budget.end) {
        wopts.time = wopts.time.min(t);
    }
    let searched = Instant::now();
    let from_prepass = early.is_some();
    let found = if (d.equivalent && !partial) || opts.no_witness || wopts.time.is_zero() {
        Default::default()
    } else if from_prepass {
        crate::witness::Search {
            witness: early,
            notes: vec![],
        }
    } else {
        crate::witness::search(po, pn, name, &d, &wopts, Some(&c), &whole)
    };
    let mut witness = found.witness;
    // Whether the search stopped for lack of time (rather than runs or strategies).
    let out_of_time = searched.elapsed() >= wopts.time.mul_f64(0.95);
    let mut native_note = None;
    let long_double =
        !po.program.long_double_lines.is_empty() || !pn.program.long_double_lines.is_empty();
    if let Some(w) = &mut witness {
        if !from_prepass {
            w.time_ms += before_search;
        }
        if long_double && opts.validate != Validate::Native {
            // The interpreter runs `long double` as `double`: its witness may not hold for the
            // compiled code.
            native_note = Some((
                true,
                format!(
                    "the interpreter found a difference on {}, but the file uses `long double`, which it executes as `double`: run with --validate native to confirm it",
                    w.inputs
                        .iter()
                        .map(|(n, v)| format!("{n} = {v}"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            ));
            witness = None;
        } else if opts.validate == Validate::Native {
            native_note = match validate_native(po, pn, name, w, opts) {
                Ok(note) => note,
                // A process of the check ran into `--max-memory` or `--timeout`: like the
                // analysis at its limits, no verdict.
                Err(e) => {
                    let mut r = report(name, Verdict::Timeout, start);
                    r.error = Some(e.to_string());
                    return r;
                }
            };
            // With `long double` only a confirmed witness counts.
            if native_note
                .as_ref()
                .is_some_and(|(refuted, _)| *refuted || long_double)
            {
                witness = None;
            }
        }
    }
    let verdict = match (&witness, d.equivalent, partial) {
        (_, true, false) => Verdict::Equivalent,
        (Some(_), _, _) => Verdict::Different,
        (None, true, true) => Verdict::PartiallyEquivalent,
        (None, _, _) => Verdict::PossiblyDifferent,
    };
    let mut r = report(name, verdict, start);
    r.witness = witness;
    r.max_substates = a.stats.max_substates;
    let note = |kind, text: &String| Note::new(kind, text.clone());
    r.notes = a
        .notes
        .iter()
        .map(|n| note(NoteKind::Analysis, n))
        .collect();
    r.notes
        .extend(found.notes.iter().map(|n| note(NoteKind::Witness, n)));
    if partial {
        for why in &term.reasons {
            r.notes.push(Note::new(
                NoteKind::Termination,
                format!("termination not proven: {why}"),
            ));
        }
    }
    r.notes
        .extend(native_note.map(|(_, n)| Note::new(NoteKind::Witness, n)));
    if verdict == Verdict::PossiblyDifferent
        && !opts.no_witness
        && wopts.time < opts.witness.time
        && out_of_time
    {
        r.notes.push(Note::new(
            NoteKind::Witness,
            "the witness search had only what --timeout left after the analysis",
        ));
    }
    if let Some(names) = c.renamed_text() {
        r.notes.push(Note::new(
            NoteKind::Analysis,
            format!("locals taken as renamed (inferred; --map overrides): {names}"),
        ));
    }
    let f = c.product();
    for inp in c.inputs.iter().filter(|i| !i.equal) {
        if let (Some(o), Some(_)) = (inp.old, inp.new) {
            r.notes.push(Note::new(
                NoteKind::Input,
                format!(
                    "global `{}` is declared differently in the two versions (type or initializer): not assumed equal at entry",
                    f.func.var(o).name
                ),
            ));
        }
    }
    let extent = |p: &GclProgram| p.function(name).map(|f| (f.func.line.0, f.func.end_line.0));
    if let (Some(old), Some(new)) = (extent(po), extent(pn)) {
        r.changed_line = c.first_changed_line(old, new);
    }
    r.time_ms = start.elapsed().as_millis();
    if opts.details {
        // After the time is taken: the sample is for the picture, not part of the verdict.
        r.correlating = listing;
        let cover: Vec<f64> = d
            .points
            .iter()
            .flat_map(|p| &p.different)
            .flat_map(|s| s.seed.iter().flatten())
            .map(|(_, v)| *v as f64)
            .collect();
        let w = r.witness.as_ref().map(|w| &w.inputs);
        r.input_plane = details::input_plane(po, pn, name, w, &cover, opts);
    }
    r.delta = Some(d);
    r
}

/// Run `w` natively (`--validate native`): on success mark it, otherwise give a note and
/// whether native execution refuted it (then the witness must not support `different`); an
/// error when the compiler or a run ran into a resource limit.
fn validate_native(
    po: &GclProgram,
    pn: &GclProgram,
    name: &str,
    w: &mut crate::witness::Witness,
    opts: &DiffOptions,
) -> Result<Option<(bool, String)>> {
    use crate::witness::native::{self, Native, Version};
    fn version(p: &GclProgram) -> Version<'_> {
        Version {
            source: Path::new(&p.program.file),
            prog: p,
        }
    }
    let inputs: Vec<String> = w.inputs.iter().map(|(n, v)| format!("{n} = {v}")).collect();
    match native::validate(
        version(po),
        version(pn),
        name,
        w,
        &opts.frontend.clone().with_limits(&opts.limits),
        Duration::from_secs(5),
    ) {
        Native::Confirmed(by) => {
            w.validated_by = by;
            Ok(None)
        }
        Native::Refuted(why) => Ok(Some((
            true,
            format!(
                "native validation failed for the interpreter's witness ({}): {why}",
                inputs.join(", ")
            ),
        ))),
        Native::NotApplicable(why) => Ok(Some((
            false,
            format!("native validation not applicable: {why}"),
        ))),
        Native::Limit(e) => Err(e),
    }
}

/// Parse a timeout in seconds.
pub fn timeout_from_secs(s: f64) -> Option<Duration> {
    (s > 0.0).then(|| Duration::from_secs_f64(s))
}

#[cfg(test)]
mod tests {
    use super::FunctionTime as Budget;
    use std::time::Duration;

    /// The attempts of one function share its `--timeout`: a fallback after a failed inlined
    /// analysis gets what is left, not a fresh budget (that made functions take twice theirs).
    #[test]
    fn attempts_share_one_budget() {
        let t = Duration::from_secs(3);
        let first = Budget::new(Some(t), true);
        let (end, analysis_end) = (first.end.unwrap(), first.analysis_end.unwrap());
        assert_eq!(end - first.start, t);
        assert_eq!(analysis_end - first.start, Duration::from_secs(2));
        let rest = first.fallback();
        assert_eq!(
            (rest.start, rest.end, rest.analysis_end),
            (first.start, first.end, first.end)
        );
        assert!(Budget::left(rest.analysis_end).unwrap() <= t);
        // Without inlining the analysis may use all of it; without a timeout nothing is bounded.
        let plain = Budget::new(Some(t), false);
        assert_eq!(plain.analysis_end, plain.end);
        let free = Budget::new(None, true);
        assert!(free.end.is_none() && Budget::left(free.analysis_end).is_none());
    }
}
