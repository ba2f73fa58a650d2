//! Totals, CSV rows, the summary text, and writing them.
//!
//! Takes the pairs, their outcomes and the settings; gives the [`Summary`] of a run, one CSV row
//! per pair, a CSV summary row and the text printed at the end; writes or appends them to files
//! and prints lines that survive a closed pipe.

use std::fmt::Write as _;
use std::fs;
use std::io::Write as _;
use std::path::Path;
use std::time::Duration;

use super::manifest::csv_line;
use super::{Args, Expected, Judgement, Outcome, Pair};
use crate::diag::{Error, Result};
use crate::diff::Verdict;

/// Totals over a manifest run.
#[derive(Clone, Debug, Default)]
pub struct Summary {
    pub pairs: usize,
    pub expected_equivalent: usize,
    pub proved_equivalent: usize,
    pub expected_different: usize,
    /// `different` or `possibly-different` on a different pair.
    pub reported_different: usize,
    /// Of which with the verdict `different` (a validated witness).
    pub witnessed: usize,
    /// Differing sub-states over the different pairs.
    pub differing_states: usize,
    pub imprecise: usize,
    pub unsound: usize,
    pub false_witness: usize,
    pub timeouts: usize,
    pub errors: usize,
    /// Pairs whose wall time exceeded the timeout by more than 10 % + 0.5 s.
    pub overruns: usize,
    pub max_substates: usize,
    pub sum_ms: f64,
    pub max_ms: f64,
    pub max_id: String,
}

pub fn summarize(pairs: &[Pair], outs: &[Outcome], timeout: Option<Duration>) -> Summary {
    let mut s = Summary {
        pairs: pairs.len(),
        ..Default::default()
    };
    for (p, o) in pairs.iter().zip(outs) {
        match p.expected {
            Expected::Equivalent => s.expected_equivalent += 1,
            Expected::Different => {
                s.expected_different += 1;
                s.differing_states += o.differing_states;
            }
        }
        match o.judgement {
            Judgement::Correct if p.expected == Expected::Equivalent => s.proved_equivalent += 1,
            Judgement::Correct => {
                s.reported_different += 1;
                if o.verdict == Verdict::Different {
                    s.witnessed += 1;
                }
            }
            Judgement::Imprecise => s.imprecise += 1,
            Judgement::Unsound => s.unsound += 1,
            Judgement::FalseWitness => s.false_witness += 1,
            Judgement::Timeout => s.timeouts += 1,
            Judgement::Error => s.errors += 1,
        }
        let ms = o.wall.as_secs_f64() * 1000.0;
        if let Some(t) = timeout {
            if ms > t.as_secs_f64() * 1100.0 + 500.0 {
                s.overruns += 1;
            }
        }
        s.max_substates = s.max_substates.max(o.max_substates);
        s.sum_ms += ms;
        if ms > s.max_ms {
            s.max_ms = ms;
            s.max_id = p.id.clone();
        }
    }
    s
}

pub const ROW_HEADER: &str = "id,function,expected,verdict,correct,time_ms,function_ms,max_substates,diff_points,differing_states,omitted,domain,canon,canon_point,timeout_s,witness_search,error";

pub fn row_csv(p: &Pair, o: &Outcome, a: &Args) -> String {
    csv_line(&[
        p.id.clone(),
        p.function.clone(),
        p.expected.as_str().into(),
        o.verdict.as_str().into(),
        o.judgement.as_str().into(),
        format!("{:.1}", o.wall.as_secs_f64() * 1000.0),
        o.function_ms.to_string(),
        o.max_substates.to_string(),
        o.diff_points.to_string(),
        o.differing_states.to_string(),
        o.omitted.to_string(),
        crate::options::AnalysisArgs::name(&a.analysis.domain),
        crate::options::AnalysisArgs::name(&a.analysis.canon),
        crate::options::AnalysisArgs::name(&a.analysis.canon_point),
        a.analysis.timeout.to_string(),
        if a.analysis.no_witness { "no" } else { "yes" }.into(),
        o.error.clone().unwrap_or_default(),
    ])
}

pub const SUMMARY_HEADER: &str = "manifest,domain,canon,canon_point,timeout_s,max_substates,witness_search,jobs,pairs,expected_equivalent,proved_equivalent,expected_different,reported_different,witnessed,differing_states,imprecise,unsound,false_witness,timeouts,errors,overruns,max_substates_seen,sum_ms,wall_ms,max_ms,max_id";

pub fn summary_csv(a: &Args, jobs: usize, s: &Summary, wall: Duration) -> String {
    csv_line(&[
        a.manifest.display().to_string(),
        crate::options::AnalysisArgs::name(&a.analysis.domain),
        crate::options::AnalysisArgs::name(&a.analysis.canon),
        crate::options::AnalysisArgs::name(&a.analysis.canon_point),
        a.analysis.timeout.to_string(),
        a.analysis.max_substates.to_string(),
        if a.analysis.no_witness { "no" } else { "yes" }.into(),
        jobs.to_string(),
        s.pairs.to_string(),
        s.expected_equivalent.to_string(),
        s.proved_equivalent.to_string(),
        s.expected_different.to_string(),
        s.reported_different.to_string(),
        s.witnessed.to_string(),
        s.differing_states.to_string(),
        s.imprecise.to_string(),
        s.unsound.to_string(),
        s.false_witness.to_string(),
        s.timeouts.to_string(),
        s.errors.to_string(),
        s.overruns.to_string(),
        s.max_substates.to_string(),
        format!("{:.1}", s.sum_ms),
        format!("{:.1}", wall.as_secs_f64() * 1000.0),
        format!("{:.1}", s.max_ms),
        s.max_id.clone(),
    ])
}

pub fn summary_text(a: &Args, jobs: usize, s: &Summary, wall: Duration) -> String {
    let mut t = String::new();
    let _ = writeln!(
        t,
        "dizy bench {}: {} pairs; domain {}, canonization {} at {} points, timeout {} s{}, {} job{}",
        a.manifest.display(),
        s.pairs,
        crate::options::AnalysisArgs::name(&a.analysis.domain),
        crate::options::AnalysisArgs::name(&a.analysis.canon),
        crate::options::AnalysisArgs::name(&a.analysis.canon_point),
        a.analysis.timeout,
        if a.analysis.no_witness { ", no witness search" } else { "" },
        jobs,
        if jobs == 1 { "" } else { "s" }
    );
    let _ = writeln!(
        t,
        "  proved equivalent:  {} / {} expected equivalent ({} imprecise)",
        s.proved_equivalent, s.expected_equivalent, s.imprecise
    );
    let _ = writeln!(
        t,
        "  reported different: {} / {} expected different ({} with a witness, {} differing states)",
        s.reported_different, s.expected_different, s.witnessed, s.differing_states
    );
    let _ = writeln!(
        t,
        "  unsound:            {}{}",
        s.unsound,
        if s.false_witness > 0 {
            format!(" (and {} false witnesses)", s.false_witness)
        } else {
            String::new()
        }
    );
    let _ = writeln!(
        t,
        "  timeouts:           {}{}",
        s.timeouts,
        if s.overruns > 0 {
            format!(" ({} pairs overran the timeout)", s.overruns)
        } else {
            String::new()
        }
    );
    let _ = writeln!(t, "  errors:             {}", s.errors);
    let _ = writeln!(
        t,
        "  time:               {:.2} s summed over pairs, {:.2} s wall; slowest {} ({:.0} ms); max sub-states {}",
        s.sum_ms / 1000.0,
        wall.as_secs_f64(),
        s.max_id,
        s.max_ms,
        s.max_substates
    );
    t
}

pub(super) fn write_file(path: &Path, text: &str) -> Result<()> {
    if let Some(d) = path.parent() {
        if !d.as_os_str().is_empty() {
            fs::create_dir_all(d)
                .map_err(|e| Error::in_file(d.display().to_string(), e.to_string()))?;
        }
    }
    fs::write(path, text).map_err(|e| Error::in_file(path.display().to_string(), e.to_string()))
}

pub(super) fn append_file(path: &Path, header: &str, line: &str) -> Result<()> {
    let err = |e: std::io::Error| Error::in_file(path.display().to_string(), e.to_string());
    if let Some(d) = path.parent() {
        if !d.as_os_str().is_empty() {
            fs::create_dir_all(d).map_err(err)?;
        }
    }
    let fresh = fs::metadata(path).map(|m| m.len() == 0).unwrap_or(true);
    let mut f = fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(err)?;
    let mut text = String::new();
    if fresh {
        text.push_str(header);
        text.push('\n');
    }
    text.push_str(line);
    f.write_all(text.as_bytes()).map_err(err)
}

/// Print a line on stdout; a closed pipe (`dizy bench … | head`) is not an error.
pub(super) fn say(line: String) {
    let mut so = std::io::stdout().lock();
    let _ = writeln!(so, "{line}").and_then(|_| so.flush());
}
