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

use crate::analysis::{self, Overflow};
use crate::correlate;
use crate::delta::{self, Delta};
use crate::diag::Result;
use crate::frontend;
use crate::gcl::{self, GclProgram, InstrKind};
use crate::ir::Callee;

#[derive(Clone, Debug, Default)]
pub struct DiffOptions {
    pub functions: Vec<String>,
    /// Skip the search for distinguishing inputs (`--no-witness`).
    pub no_witness: bool,
    pub witness: crate::witness::Options,
    pub frontend: frontend::Options,
    pub correlate: correlate::Options,
    pub analysis: analysis::Options,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Verdict {
    Equivalent,
    Different,
    PossiblyDifferent,
    Unchanged,
    Unsupported,
    Timeout,
    Error,
    Added,
    Removed,
}

impl Verdict {
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Equivalent => "equivalent",
            Verdict::Different => "different",
            Verdict::PossiblyDifferent => "possibly-different",
            Verdict::Unchanged => "unchanged",
            Verdict::Unsupported => "unsupported",
            Verdict::Timeout => "timeout",
            Verdict::Error => "error",
            Verdict::Added => "added",
            Verdict::Removed => "removed",
        }
    }
}

#[derive(Clone, Debug)]
pub struct FunctionReport {
    pub name: String,
    pub verdict: Verdict,
    pub time_ms: u128,
    pub delta: Option<Delta>,
    pub witness: Option<crate::witness::Witness>,
    pub notes: Vec<String>,
    pub error: Option<String>,
    pub max_substates: usize,
}

#[derive(Clone, Debug)]
pub struct Report {
    pub old: String,
    pub new: String,
    pub assumptions: Vec<String>,
    pub functions: Vec<FunctionReport>,
}

impl Report {
    /// diff(1)-style status: 1 if anything may differ, else 2 on trouble, else 0.
    pub fn exit_code(&self) -> u8 {
        let any = |vs: &[Verdict]| self.functions.iter().any(|f| vs.contains(&f.verdict));
        if any(&[
            Verdict::Different,
            Verdict::PossiblyDifferent,
            Verdict::Added,
            Verdict::Removed,
        ]) {
            1
        } else if any(&[Verdict::Unsupported, Verdict::Timeout, Verdict::Error]) {
            2
        } else {
            0
        }
    }
}

pub fn assumptions(opts: &DiffOptions) -> Vec<String> {
    let mut a = vec![];
    a.push(match opts.analysis.overflow {
        Overflow::Math => "signed integers are mathematical: signed overflow is undefined behaviour and is not modelled".to_string(),
        Overflow::Wrap => "signed integer arithmetic wraps around (two's complement, as with -fwrapv)".to_string(),
    });
    a.push("unsigned integer arithmetic wraps modulo 2^width".into());
    a.push("floating-point values are analysed as real numbers (rounding is not modelled); witnesses are executed in IEEE arithmetic".into());
    a.push(
        "both versions start from equal inputs: parameters (by position) and globals (by name) that both versions declare with the same type and initializer"
            .into(),
    );
    a.push("memory is not tracked: reads through pointers and from arrays are unknown values; stores through pointers and calls forget the globals and address-taken variables of their version".into());
    a.push("an unknown function called with equal arguments at matched points returns equal results in both versions; calls to it are compared as effects".into());
    a.push(format!(
        "numeric domain {}, canonization {} at {} points, widening after {} iterations",
        opts.analysis.domain,
        canon_name(opts.analysis.canon),
        point_name(opts.analysis.canon_point),
        opts.analysis.widen_delay
    ));
    a
}

pub fn canon_name(c: analysis::Canon) -> &'static str {
    match c {
        analysis::Canon::JoinEquiv => "join-equiv",
        analysis::Canon::JoinAll => "join-all",
        analysis::Canon::ByGuards => "by-guards",
        analysis::Canon::None => "none",
    }
}

pub fn point_name(c: analysis::CanonPoint) -> &'static str {
    match c {
        analysis::CanonPoint::Diff => "diff",
        analysis::CanonPoint::Converge => "converge",
        analysis::CanonPoint::Join => "join",
    }
}

/// Run the pipeline on a pair of files.
pub fn diff_files(old: &Path, new: &Path, opts: &DiffOptions) -> Result<Report> {
    let po = crate::load_gcl(old, &opts.frontend)?;
    let pn = crate::load_gcl(new, &opts.frontend)?;
    Ok(diff_programs(&po, &pn, opts))
}

/// Run the pipeline on two loaded programs.
pub fn diff_programs(po: &GclProgram, pn: &GclProgram, opts: &DiffOptions) -> Report {
    let mut assumptions = assumptions(opts);
    for n in po.program.notes.iter().chain(&pn.program.notes) {
        if !assumptions.contains(n) {
            assumptions.push(n.clone());
        }
    }
    let texts_o = texts(po);
    let texts_n = texts(pn);
    let changed_o = changed_set(po, &texts_o, &texts_n);
    let mut names: BTreeSet<String> = BTreeSet::new();
    if opts.functions.is_empty() {
        names.extend(texts_o.keys().cloned());
        names.extend(texts_n.keys().cloned());
        names.extend(po.program.rejected.iter().map(|(n, _)| n.clone()));
        names.extend(pn.program.rejected.iter().map(|(n, _)| n.clone()));
    } else {
        names.extend(opts.functions.iter().cloned());
    }
    let mut functions = vec![];
    for name in names {
        functions.push(one_function(
            po, pn, &name, &texts_o, &texts_n, &changed_o, opts,
        ));
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
    Report {
        old: po.program.file.clone(),
        new: pn.program.file.clone(),
        assumptions,
        functions,
    }
}

fn texts(p: &GclProgram) -> HashMap<String, String> {
    p.functions
        .iter()
        .map(|f| {
            let mut s = String::new();
            // Lines are not part of the behaviour: compare the listing without them.
            gcl::print_function(&mut s, f, &p.program);
            let body: String = s
                .lines()
                .map(|l| l.split_once(':').map_or(l, |x| x.1).trim())
                .collect::<Vec<_>>()
                .join("\n");
            (f.name.clone(), body)
        })
        .collect()
}

/// Functions of the old program whose text, or the text of something they call, changed.
fn changed_set(
    po: &GclProgram,
    to: &HashMap<String, String>,
    tn: &HashMap<String, String>,
) -> BTreeSet<String> {
    let mut changed: BTreeSet<String> = to
        .iter()
        .filter(|(n, t)| tn.get(*n) != Some(t))
        .map(|(n, _)| n.clone())
        .collect();
    loop {
        let mut grew = false;
        for f in &po.functions {
            if changed.contains(&f.name) {
                continue;
            }
            let calls_changed = f.instrs.iter().any(|i| match &i.kind {
                InstrKind::Call {
                    callee: Callee::Direct(n),
                    ..
                } => changed.contains(n),
                InstrKind::Call {
                    callee: Callee::Indirect(_),
                    ..
                } => false,
                _ => false,
            });
            if calls_changed {
                changed.insert(f.name.clone());
                grew = true;
            }
        }
        if !grew {
            return changed;
        }
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
    }
}

fn one_function(
    po: &GclProgram,
    pn: &GclProgram,
    name: &str,
    to: &HashMap<String, String>,
    tn: &HashMap<String, String>,
    changed: &BTreeSet<String>,
    opts: &DiffOptions,
) -> FunctionReport {
    let start = Instant::now();
    let rejected = |p: &GclProgram| {
        p.program
            .rejected
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, e)| e.to_string())
    };
    if let Some(e) = rejected(po).or_else(|| rejected(pn)) {
        let mut r = report(name, Verdict::Unsupported, start);
        r.error = Some(e);
        return r;
    }
    match (to.contains_key(name), tn.contains_key(name)) {
        (false, false) => {
            let mut r = report(name, Verdict::Error, start);
            r.error = Some(format!("no function `{name}` is defined in either file"));
            return r;
        }
        (true, false) => return report(name, Verdict::Removed, start),
        (false, true) => return report(name, Verdict::Added, start),
        _ => {}
    }
    if opts.functions.is_empty() && !changed.contains(name) {
        return report(name, Verdict::Unchanged, start);
    }
    let c = match correlate::correlate(po, pn, name, &opts.correlate) {
        Ok(c) => c,
        Err(e) => {
            let mut r = report(name, Verdict::Unsupported, start);
            r.error = Some(e.to_string());
            return r;
        }
    };
    let a = match analysis::analyze(&c, &opts.analysis) {
        Ok(a) => a,
        Err(e) => {
            let timeout = e.msg.contains("timed out") || e.msg.contains("budget");
            let mut r = report(
                name,
                if timeout {
                    Verdict::Timeout
                } else {
                    Verdict::Error
                },
                start,
            );
            r.error = Some(e.to_string());
            return r;
        }
    };
    let d = match delta::compute(&c, &a, opts.analysis.overflow) {
        Ok(d) => d,
        Err(e) => {
            let mut r = report(name, Verdict::Error, start);
            r.error = Some(e.to_string());
            return r;
        }
    };
    // "different" needs inputs on which the versions were seen to differ.
    let witness = if d.equivalent || opts.no_witness {
        None
    } else {
        crate::witness::search(po, pn, name, &d, &opts.witness, Some(&c))
    };
    let verdict = match (&witness, d.equivalent) {
        (_, true) => Verdict::Equivalent,
        (Some(_), _) => Verdict::Different,
        (None, _) => Verdict::PossiblyDifferent,
    };
    let mut r = report(name, verdict, start);
    r.witness = witness;
    r.max_substates = a.stats.max_substates;
    r.notes = a.notes.clone();
    let f = c.product();
    for inp in c.inputs.iter().filter(|i| !i.equal) {
        if let (Some(o), Some(_)) = (inp.old, inp.new) {
            r.notes.push(format!(
                "global `{}` is declared differently in the two versions (type or initializer): not assumed equal at entry",
                f.func.var(o).name
            ));
        }
    }
    r.delta = Some(d);
    r.time_ms = start.elapsed().as_millis();
    r
}

/// Parse a timeout in seconds.
pub fn timeout_from_secs(s: f64) -> Option<Duration> {
    (s > 0.0).then(|| Duration::from_secs_f64(s))
}
