//! Running pairs through the library.
//!
//! Takes a [`Pair`] and the `DiffOptions` of the settings; gives its [`Outcome`] (a panic or an
//! error becomes an `error` verdict, not a crash).

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::Instant;

use super::{judge, Args, Outcome, Pair};
use crate::diag::Result;
use crate::diff::{self, DiffOptions, Verdict};

/// The `DiffOptions` of `dizy diff` for these settings.
pub fn diff_options(a: &Args) -> Result<DiffOptions> {
    Ok(a.analysis.diff_options())
}

fn panic_message(p: &(dyn std::any::Any + Send)) -> String {
    p.downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| p.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "panic".into())
}

/// Run `dizy diff OLD NEW --function F` on one pair.
pub fn run_pair(p: &Pair, opts: &DiffOptions) -> Outcome {
    let mut opts = opts.clone();
    opts.functions = vec![p.function.clone()];
    let start = Instant::now();
    let r = catch_unwind(AssertUnwindSafe(|| diff::diff_files(&p.old, &p.new, &opts)));
    let wall = start.elapsed();
    let failed = |verdict: Verdict, msg: String| Outcome {
        verdict,
        judgement: judge(p.expected, verdict),
        wall,
        function_ms: 0,
        max_substates: 0,
        diff_points: 0,
        differing_states: 0,
        omitted: 0,
        error: Some(msg),
    };
    let report = match r {
        Ok(Ok(r)) => r,
        Ok(Err(e)) => return failed(Verdict::Error, e.to_string()),
        Err(panic) => {
            return failed(
                Verdict::Error,
                format!("panic: {}", panic_message(panic.as_ref())),
            )
        }
    };
    let Some(f) = report.functions.iter().find(|f| f.name == p.function) else {
        return failed(
            Verdict::Error,
            "the report does not list the function".into(),
        );
    };
    let (mut diff_points, mut differing, mut omitted) = (0, 0, 0);
    if let Some(d) = &f.delta {
        diff_points = d.points.len();
        for pt in &d.points {
            differing += pt.different.len();
            omitted += pt.omitted;
        }
    }
    Outcome {
        verdict: f.verdict,
        judgement: judge(p.expected, f.verdict),
        wall,
        function_ms: f.time_ms,
        max_substates: f.max_substates,
        diff_points,
        differing_states: differing,
        omitted,
        error: f.error.clone(),
    }
}
