//! One function of a file pair through the pipeline: correlation, the concrete pre-pass,
//! the analysis, Δ, the witness search and its validation, within the function's budget.
//!
//! Takes both loaded programs (and their versions with changed callees inlined), the function's
//! name, what the driver knows about the pair ([`Known`]) and the options; gives the function's
//! [`FunctionReport`]. Called by [`super::pair`] for each function, in dizy's own process or in
//! a worker process.

use std::collections::BTreeSet;
use std::path::Path;
use std::time::{Duration, Instant};

use super::{details, DiffOptions, FunctionReport, Validate, Verdict};
use crate::analysis::{self, Canon};
use crate::changes;
use crate::correlate;
use crate::delta;
use crate::diag::{Note, NoteKind, Result};
use crate::frontend;
use crate::gcl::GclProgram;
use crate::limits;
use dizy_domains::DomainKind;

pub(super) fn report(name: &str, verdict: Verdict, start: Instant) -> FunctionReport {
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
        assumes: vec![],
    }
}

/// Fill in the definition lines of `r` and, for analysed functions, the frontend's notes about
/// lines inside the definition (assumed typedefs, blanked macros), merged across versions.
pub(super) fn attach_lines(r: &mut FunctionReport, po: &GclProgram, pn: &GclProgram) {
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
pub(super) struct FunctionTime {
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
    pub(super) fn new(timeout: Option<Duration>, inlined: bool) -> FunctionTime {
        let start = Instant::now();
        let share = if inlined { 2.0 / 3.0 } else { 1.0 };
        FunctionTime {
            start,
            end: timeout.map(|t| start + t),
            analysis_end: timeout.map(|t| start + t.mul_f64(share)),
        }
    }

    /// The budget of the fallback: the rest of the whole.
    pub(super) fn fallback(&self) -> FunctionTime {
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
pub(super) struct Known<'a> {
    pub defined_o: &'a BTreeSet<String>,
    pub defined_n: &'a BTreeSet<String>,
    pub changes: &'a changes::Changes,
}

/// Runs of the concrete pre-pass before the analysis (see `one_function`).
const PREPASS_RUNS: usize = 300;
/// Interpreter steps per run of the pre-pass: an input that runs longer is left to the full
/// search (which tells a long loop from one that does not end).
const PREPASS_STEPS: u64 = 100_000;
/// Interpreter steps of the whole pre-pass (a few tens of milliseconds): the pre-pass is
/// bounded by runs and steps, so that what it finds does not depend on the machine's speed or
/// load (two runs of dizy, or the shards of one, give the same report).
const PREPASS_TOTAL_STEPS: u64 = 2_000_000;
/// A time cap as the last resort only (the step bounds come first on any usual machine).
const PREPASS_TIME: std::time::Duration = std::time::Duration::from_secs(5);

/// How the note of a function analysed with cheaper settings ([`analyze_in_steps`]) begins: a
/// report with it depends on the machine's speed, as a timeout does (the fuzzer's determinism
/// check treats both alike).
pub const FALLBACK_NOTE: &str = "the analysis with the settings asked for stopped";

/// Share of the analysis' time the settings the user asked for get when cheaper ones can
/// follow; the cheaper steps end at the shares after it.
const FIRST_SHARE: f64 = 0.5;
const JOIN_ALL_SHARE: f64 = 0.8;

/// The analysis under the user's settings, and when they do not finish in their share of the
/// time (or exceed a size or memory bound), under cheaper ones in what is left: one sub-state
/// per point (no guard partitioning), then the interval domain (no relations between
/// variables). Every step is sound, so a later one only loses precision: a function gets a Δ
/// (and a search guided by it) instead of `timeout`. Gives the analysis and, when a cheaper
/// step gave it, the note that says so. `--no-fallback` keeps the user's settings only.
fn analyze_in_steps(
    c: &correlate::Correlated,
    opts: &DiffOptions,
    budget: &FunctionTime,
    whole: &limits::Budget,
) -> crate::diag::Result<(analysis::Analysis, Option<String>)> {
    use crate::diag::{ErrorKind, Stop};
    let asked = &opts.analysis;
    let mut steps: Vec<(analysis::Options, &str)> = vec![];
    if !opts.no_fallback {
        if asked.canon != Canon::JoinAll || asked.max_substates > 1 {
            let mut o = asked.clone();
            o.canon = Canon::JoinAll;
            o.max_substates = 1;
            steps.push((
                o,
                "one sub-state per point (Join-All: outcomes of branches are no longer told apart)",
            ));
        }
        if asked.domain != DomainKind::Interval {
            let mut o = asked.clone();
            o.domain = DomainKind::Interval;
            steps.push((o, "the interval domain (no relations between variables, so no equalities between the versions: what it cannot rule out is reported as a possible difference)"));
        }
    }
    let t0 = Instant::now();
    let window = budget.analysis_end.map(|e| e.saturating_duration_since(t0));
    let until = |share: f64| window.map(|w| t0 + w.mul_f64(share));
    let shares: Vec<f64> = match steps.len() {
        0 => vec![],
        1 => vec![FIRST_SHARE, 1.0],
        _ => vec![FIRST_SHARE, JOIN_ALL_SHARE, 1.0],
    };
    let first_end = shares.first().map_or(budget.analysis_end, |&s| until(s));
    // What earlier functions freed is given back first, so that the budget measures this one.
    dizy_domains::heap::release_free_memory();
    let mut err = match analysis::analyze(c, asked, &whole.until(first_end)) {
        Ok(a) => return Ok((a, None)),
        Err(e) => e,
    };
    // Why the settings asked for stopped, for the note (without times: a report is the same
    // from run to run but for its `time_ms` fields).
    let first_why = match err.kind {
        ErrorKind::Stopped(Stop::Timeout) => {
            "did not finish in their share of the function's time".to_string()
        }
        _ => err.to_string(),
    };
    for (k, (o, what)) in steps.iter().enumerate() {
        // Only a limit of the analysis is worth a cheaper try, and only while the function's
        // own time lasts.
        let retry = matches!(
            err.kind,
            ErrorKind::Stopped(Stop::Timeout | Stop::Size | Stop::Memory)
        ) && !whole.past_deadline();
        if !retry {
            break;
        }
        // The stopped analysis' values are freed, but glibc keeps their pages: without giving
        // them back, the resident size stays over the bound and the retry stops at once.
        if err.kind == ErrorKind::Stopped(Stop::Memory) {
            dizy_domains::heap::release_free_memory();
        }
        match analysis::analyze(c, o, &whole.until(until(shares[k + 1]))) {
            Ok(a) => {
                let tried = if k > 0 {
                    format!(", and so did the analysis with {}", steps[0].1)
                } else {
                    String::new()
                };
                let note = format!(
                    "{FALLBACK_NOTE} ({first_why}){tried}; analysed again in the time left with {what}; --no-fallback turns this off"
                );
                return Ok((a, Some(note)));
            }
            Err(e) => err = e,
        }
    }
    Err(err)
}

/// Share of the analysis' time the cheaper proof domain gets before the domain asked for.
const PROOF_SHARE: f64 = 0.25;

type Proved = (
    analysis::Analysis,
    delta::Delta,
    crate::termination::Termination,
);

/// The analysis in `proof_domain` (see [`analysis::Options::proof_domain`]), in a share of the
/// analysis' time: its analysis, Δ and termination when it proves the function equivalent and
/// terminating alike, `None` on any other outcome (a possible difference, a limit, an error),
/// after which the domain asked for runs in the time left.
/// The cheaper domain `auto` tries first, if it differs from the one asked for.
fn asked_proof_domain(opts: &DiffOptions) -> Option<DomainKind> {
    let asked = &opts.analysis;
    asked.proof_domain.filter(|k| *k != asked.domain)
}

fn prove_cheaply(
    c: &correlate::Correlated,
    opts: &DiffOptions,
    budget: &FunctionTime,
    whole: &limits::Budget,
    termination: &dyn Fn(
        &analysis::Analysis,
        &delta::Delta,
        &limits::Budget,
    ) -> crate::termination::Termination,
) -> Option<Proved> {
    let domain = asked_proof_domain(opts)?;
    let mut o = opts.analysis.clone();
    o.domain = domain;
    let t0 = Instant::now();
    let end = budget
        .analysis_end
        .map(|e| t0 + e.saturating_duration_since(t0).mul_f64(PROOF_SHARE));
    let share = whole.until(end);
    let a = analysis::analyze(c, &o, &share).ok()?;
    let d = delta::compute(c, &a, &share).ok()?;
    if !d.equivalent {
        return None;
    }
    let term = termination(&a, &d, &share);
    term.proven.then_some((a, d, term))
}

pub(super) fn one_function(
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
        // Only one version has it: added or removed, whatever the lowering made of it.
        let has = |p: &GclProgram, d: &BTreeSet<String>| d.contains(name) || rejected(p).is_some();
        let verdict = match (has(po, known.defined_o), has(pn, known.defined_n)) {
            (false, true) => Some(Verdict::Added),
            (true, false) => Some(Verdict::Removed),
            _ => None,
        };
        if let Some(v) = verdict {
            let mut r = report(name, v, start);
            r.notes.push(Note::new(
                NoteKind::NotAnalysed,
                format!("not analysed: {e}"),
            ));
            return r;
        }
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
    // The analysis may use its share of the time, the rest of the pipeline all of it.
    let whole = limits::Budget::new(budget.end, opts.limits.memory_mb)
        .with_op_budget(opts.limits.op_budget);
    // A concrete pre-pass before the correlation and the analysis: a few hundred runs of the cheap strategies
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
        quick.total_steps = Some(PREPASS_TOTAL_STEPS);
        quick.stopping_only = true;
        let none = delta::Delta {
            points: vec![],
            equivalent: false,
        };
        let before = start.elapsed().as_micros();
        crate::witness::search(po, pn, name, &none, &quick, None, &whole)
            .witness
            .map(|mut w| {
                w.strategy = format!("{} (pre-pass)", w.strategy);
                w.time_us += before;
                w
            })
    };
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
    // The analysis or Δ stopped (a limit, or an internal error): no proof and no Δ. A limit
    // still leaves a difference to find: the pre-pass's, or a search without Δ in the time
    // left; with one the verdict is `different`, otherwise the reason.
    let stopped = |e: crate::diag::Error| {
        if e.is_stop() && !opts.no_witness {
            let witness = early.clone().or_else(|| {
                let mut wopts = opts.witness.clone();
                wopts.time =
                    FunctionTime::left(budget.end).map_or(wopts.time, |t| wopts.time.min(t));
                let none = delta::Delta {
                    points: vec![],
                    equivalent: false,
                };
                (!wopts.time.is_zero())
                    .then(|| {
                        crate::witness::search(po, pn, name, &none, &wopts, None, &whole).witness
                    })
                    .flatten()
            });
            if let Some(r) =
                witness.and_then(|w| stopped_with_witness(po, pn, name, w, opts, start, &e))
            {
                let mut r = r;
                r.correlating = listing.clone();
                return r;
            }
        }
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
    let changed = copts.changed.clone().unwrap_or_default();
    // An empty Δ speaks only of executions that reach the diff points: equivalence also needs
    // both versions to terminate on the same inputs.
    let termination = |a: &analysis::Analysis, d: &delta::Delta, whole: &limits::Budget| {
        if !d.equivalent {
            return Default::default();
        }
        match crate::termination::check(&c, a, &changed, whole) {
            Ok(t) => t,
            Err(e) => crate::termination::Termination {
                proven: false,
                reasons: vec![format!("termination not checked: {e}")],
            },
        }
    };
    let proved = if early.is_none() {
        prove_cheaply(&c, opts, budget, &whole, &termination)
    } else {
        None
    };
    let mut cheap_delta = None;
    let (a, d, term, fell_back) = match proved {
        Some((a, d, term)) => (a, d, term, None),
        None => {
            // The pre-pass already showed a difference, so the verdict is settled and the
            // analysis only describes it: under `auto` the cheap domain describes it (on
            // EqBench's differing pairs about as many differing states, several times faster).
            let described;
            let opts = match (&early, asked_proof_domain(opts)) {
                (Some(_), Some(k)) => {
                    let mut o = opts.clone();
                    o.analysis.domain = k;
                    described = o;
                    cheap_delta = Some(k);
                    &described
                }
                _ => opts,
            };
            let (a, fell_back) = match analyze_in_steps(&c, opts, budget, &whole) {
                Ok(x) => x,
                Err(e) => return stopped(e),
            };
            let d = match delta::compute(&c, &a, &whole) {
                Ok(d) => d,
                Err(e) => return stopped(e),
            };
            let term = termination(&a, &d, &whole);
            (a, d, term, fell_back)
        }
    };
    let partial = d.equivalent && !term.proven;
    // "different" needs inputs on which the versions were seen to differ.
    let before_search = start.elapsed().as_micros();
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
            w.time_us += before_search;
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
    r.assumes = a
        .summarized
        .iter()
        .filter(|m| *m != name)
        .cloned()
        .collect();
    let note = |kind, text: &String| Note::new(kind, text.clone());
    r.notes = fell_back
        .iter()
        .chain(&a.notes)
        .map(|n| note(NoteKind::Analysis, n))
        .collect();
    if let Some(k) = cheap_delta {
        r.notes.push(Note::new(
            NoteKind::Analysis,
            format!(
                "the witness came before the analysis, so the Δ is from the {k} domain (--domain {d} for a Δ from {d})",
                d = opts.analysis.domain
            ),
        ));
    }
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
/// The report of a function whose analysis stopped at a limit but for which `w` was found:
/// `different`, once the witness stands (`--validate native` confirms it, and a file with
/// `long double` needs that), with a note that there is no Δ; `None` when it does not stand.
fn stopped_with_witness(
    po: &GclProgram,
    pn: &GclProgram,
    name: &str,
    mut w: crate::witness::Witness,
    opts: &DiffOptions,
    start: Instant,
    why: &crate::diag::Error,
) -> Option<FunctionReport> {
    let long_double =
        !po.program.long_double_lines.is_empty() || !pn.program.long_double_lines.is_empty();
    let mut notes = vec![Note::new(
        NoteKind::Analysis,
        format!("the analysis stopped ({why}): no Δ, but the witness shows a difference"),
    )];
    if opts.validate == Validate::Native {
        match validate_native(po, pn, name, &mut w, opts) {
            // Confirmed.
            Ok(None) => {}
            // Not applicable: the interpreter's witness stands, except with `long double`.
            Ok(Some((false, note))) if !long_double => {
                notes.push(Note::new(NoteKind::Witness, note))
            }
            _ => return None,
        }
    } else if long_double {
        return None;
    }
    let mut r = report(name, Verdict::Different, start);
    r.witness = Some(w);
    r.notes = notes;
    Some(r)
}

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
    // Each version built with its own tree's headers, as it was loaded.
    let fe = crate::frontend::Options {
        trees: crate::frontend::version_roots(
            Path::new(&po.program.file),
            Path::new(&pn.program.file),
        ),
        ..opts.frontend.clone().with_limits(&opts.limits)
    };
    match native::validate(
        version(po),
        version(pn),
        name,
        w,
        &fe,
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
