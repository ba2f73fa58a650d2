//! `dizy bench`: run the pipeline over a manifest of program pairs and measure it.
//!
//! Takes a manifest CSV (`id,old,new,function,expected,note`, paths relative to the manifest's
//! directory) and analysis settings; gives one CSV row per pair (verdict, whether it agrees with
//! `expected`, time, sub-states, size of Δ) and a summary. Pairs run on `--jobs` threads; with
//! more than one job, each pair's function is analysed in one of `--jobs` worker processes
//! shared by all pairs (as `dizy diff --jobs`), since the PPL domains (polyhedra, octagon)
//! serialise on one lock per process. Verdicts are those of `--jobs 1` (one process) except
//! where a function is close to its `--timeout`.
//!
//! A second mode, `--mode correlate`, times only the front half: parsing both files and building
//! the correlating program (median of `--runs` runs), for the < 1 s requirement on large functions.
//!
//! Verdicts are judged against `expected`: on a `different` pair, `equivalent` (or `unchanged`) is
//! **unsound**; on an `equivalent` pair, `different` is a false witness and `possibly-different` a
//! precision loss. `dizy bench` exits 1 when any verdict is unsound or a false witness.
//!
//! This file holds the types, the judgement of verdicts and the entry point; [`manifest`] reads
//! manifests (CSV), [`run`] runs pairs on threads, [`report`] gives the rows, the summary and
//! writes them, [`correlate`] is the `--mode correlate` timing.

use std::io::Write as _;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use crate::diag::Result;
use crate::diff::Verdict;

mod correlate;
mod manifest;
mod report;
mod run;

pub use crate::parallel::parallel_map;
pub use correlate::{time_correlate, CorrelateTiming, CORRELATE_HEADER};
pub use manifest::{csv_field, parse_csv, read_manifest, Records};
pub use report::{
    row_csv, summarize, summary_csv, summary_text, Summary, ROW_HEADER, SUMMARY_HEADER,
};
pub use run::{diff_options, run_pair};

use crate::parallel::default_jobs;
use correlate::run_correlate_mode;
use report::{append_file, say, write_file};

/// Command-line arguments of `dizy bench`.
#[derive(clap::Args, Clone, Debug)]
pub struct Args {
    /// Manifest CSV: id,old,new,function,expected,note (paths relative to its directory)
    pub manifest: PathBuf,
    /// Pairs run at the same time, their functions analysed in as many worker processes
    /// (default: available cores; 1: everything in this process)
    #[arg(long, short = 'j')]
    pub jobs: Option<usize>,
    /// Write one CSV row per pair to this file
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Append one CSV summary row (settings and totals) to this file; the header is written
    /// when the file is new or empty
    #[arg(long)]
    pub summary: Option<PathBuf>,
    /// `diff`: run the whole pipeline; `correlate`: time parsing and the correlating program only
    #[arg(long, default_value = "diff", value_parser = ["diff", "correlate"])]
    pub mode: String,
    /// Runs per pair in `correlate` mode (the median is reported)
    #[arg(long, default_value_t = 7)]
    pub runs: usize,
    #[command(flatten)]
    pub analysis: crate::options::AnalysisArgs,
    /// Do not print one line per pair (the summary is still printed)
    #[arg(long, short = 'q')]
    pub quiet: bool,
}

/// The verdict a pair should get.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Expected {
    Equivalent,
    Different,
}

impl Expected {
    pub fn as_str(self) -> &'static str {
        match self {
            Expected::Equivalent => "equivalent",
            Expected::Different => "different",
        }
    }
}

/// One row of a manifest.
#[derive(Clone, Debug)]
pub struct Pair {
    pub id: String,
    pub old: PathBuf,
    pub new: PathBuf,
    pub function: String,
    pub expected: Expected,
    pub note: String,
}

/// How a verdict compares with the expected one.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Judgement {
    /// Agrees (`equivalent`/`unchanged` on an equivalent pair, `different`/`possibly-different`
    /// on a different one).
    Correct,
    /// `possibly-different` on an equivalent pair: a precision loss.
    Imprecise,
    /// `equivalent` or `unchanged` on a different pair.
    Unsound,
    /// `different` on an equivalent pair: a witness that cannot be right.
    FalseWitness,
    Timeout,
    /// Error, unsupported, or a function missing from one side.
    Error,
}

impl Judgement {
    pub fn as_str(self) -> &'static str {
        match self {
            Judgement::Correct => "yes",
            Judgement::Imprecise => "imprecise",
            Judgement::Unsound => "UNSOUND",
            Judgement::FalseWitness => "FALSE-WITNESS",
            Judgement::Timeout => "timeout",
            Judgement::Error => "error",
        }
    }
}

pub fn judge(expected: Expected, verdict: Verdict) -> Judgement {
    use Verdict as V;
    match (expected, verdict) {
        (_, V::Timeout) => Judgement::Timeout,
        (Expected::Equivalent, V::Equivalent | V::Unchanged) => Judgement::Correct,
        (
            Expected::Equivalent,
            V::PossiblyDifferent | V::PartiallyEquivalent | V::InactiveChange,
        ) => Judgement::Imprecise,
        (Expected::Equivalent, V::Different) => Judgement::FalseWitness,
        (Expected::Different, V::Different | V::PossiblyDifferent | V::InactiveChange) => {
            Judgement::Correct
        }
        // A manifest's difference is one of results unless it says otherwise: claiming equal
        // results where both terminate is then wrong too.
        (Expected::Different, V::Equivalent | V::Unchanged | V::PartiallyEquivalent) => {
            Judgement::Unsound
        }
        (_, V::Unsupported | V::Error | V::Added | V::Removed) => Judgement::Error,
    }
}

/// The outcome of `dizy diff` on one pair.
#[derive(Clone, Debug)]
pub struct Outcome {
    pub verdict: Verdict,
    pub judgement: Judgement,
    /// Wall time of the whole pipeline (parsing included).
    pub wall: Duration,
    /// The function's own time as the report gives it (correlation, analysis, Δ, witness search).
    pub function_ms: u128,
    pub max_substates: usize,
    pub diff_points: usize,
    /// Differing sub-states reported over all diff points (as listed in the report).
    pub differing_states: usize,
    /// Entries left out of the report (beyond its per-point limit).
    pub omitted: usize,
    pub error: Option<String>,
}

/// `dizy bench`: returns the exit status (0 fine, 1 an unsound verdict or false witness,
/// 2 trouble).
/// `dizy bench`: processes it starts are looked up in `search_path` (the CLI's `PATH`);
/// `worker_exe` is dizy's own executable, started as `dizy worker` when `--jobs` is above 1.
pub fn cli(a: &Args, search_path: Option<std::ffi::OsString>, worker_exe: Option<PathBuf>) -> u8 {
    match run_cli(a, search_path, worker_exe) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("dizy: {e}");
            2
        }
    }
}

fn run_cli(
    a: &Args,
    search_path: Option<std::ffi::OsString>,
    worker_exe: Option<PathBuf>,
) -> Result<u8> {
    let pairs = read_manifest(&a.manifest)?;
    if a.mode == "correlate" {
        return run_correlate_mode(a, &pairs);
    }
    let mut opts = diff_options(a)?;
    opts.limits.child.search_path = search_path;
    let jobs = a.jobs.unwrap_or_else(default_jobs).max(1);
    // Pairs run at the same time share the worker processes; each pair's function goes to one
    // (shared: even a file's only function, so that the threads only wait).
    if let Some(exe) = worker_exe.filter(|_| jobs > 1) {
        opts.workers = Some(crate::diff::workers::Workers::new(exe, jobs).shared());
    }
    let start = Instant::now();
    let quiet = a.quiet;
    let outs = parallel_map(&pairs, jobs, |_, p| {
        let o = run_pair(p, &opts);
        if !quiet {
            say(format!(
                "{:<28} {:<10} {:<18} {:<9} {:>9.1} ms  sub-states {:>4}  differing {:>3}",
                p.id,
                p.expected.as_str(),
                o.verdict.as_str(),
                o.judgement.as_str(),
                o.wall.as_secs_f64() * 1000.0,
                o.max_substates,
                o.differing_states
            ));
        }
        o
    });
    let wall = start.elapsed();
    let s = summarize(&pairs, &outs, opts.limits.timeout);
    if let Some(out) = &a.out {
        let mut csv = format!("{ROW_HEADER}\n");
        for (p, o) in pairs.iter().zip(&outs) {
            csv.push_str(&row_csv(p, o, a));
        }
        write_file(out, &csv)?;
    }
    if let Some(path) = &a.summary {
        append_file(path, SUMMARY_HEADER, &summary_csv(a, jobs, &s, wall))?;
    }
    for (p, o) in pairs.iter().zip(&outs) {
        if matches!(o.judgement, Judgement::Unsound | Judgement::FalseWitness) {
            eprintln!(
                "dizy: {}: {} on a pair expected {}",
                p.id,
                o.verdict.as_str(),
                p.expected.as_str()
            );
        }
    }
    let text = summary_text(a, jobs, &s, wall);
    let mut so = std::io::stdout().lock();
    let _ = so.write_all(text.as_bytes()).and_then(|_| so.flush());
    Ok(if s.unsound + s.false_witness > 0 {
        1
    } else {
        0
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn judgements() {
        assert_eq!(
            judge(Expected::Different, Verdict::Equivalent),
            Judgement::Unsound
        );
        assert_eq!(
            judge(Expected::Equivalent, Verdict::Unchanged),
            Judgement::Correct
        );
        assert_eq!(
            judge(Expected::Equivalent, Verdict::PossiblyDifferent),
            Judgement::Imprecise
        );
    }
}
