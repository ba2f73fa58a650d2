//! Progress of a run on stderr, for people watching a terminal.
//!
//! Takes the [`ProgressEvent`]s `diff` sends (each file's number of functions, each verdict as
//! it is decided) and draws an `indicatif` bar on stderr: functions done of those known so far,
//! the file and function being analysed, elapsed time. At the end the bar is replaced by one
//! line: functions, files, time, and the verdicts counted from the finished reports. Nothing is
//! drawn when stderr is not a terminal or with `--quiet`; then [`Bar::new`] gives `None` and
//! the run sends its events nowhere.

use std::collections::BTreeMap;
use std::io::IsTerminal;
use std::sync::Arc;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::diff::{Progress, ProgressEvent, Report};

/// The progress bar of one `dizy diff` run.
pub struct Bar {
    bar: ProgressBar,
    start: Instant,
}

impl Bar {
    /// A bar on stderr, or `None` when stderr is not a terminal or `quiet` is set.
    pub fn new(quiet: bool) -> Option<Arc<Bar>> {
        if quiet || !std::io::stderr().is_terminal() {
            return None;
        }
        let bar = ProgressBar::with_draw_target(Some(0), ProgressDrawTarget::stderr());
        let style = ProgressStyle::with_template(
            "{spinner} [{elapsed_precise}] {bar:30} {pos}/{len} functions  {wide_msg}",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar());
        bar.set_style(style);
        bar.enable_steady_tick(Duration::from_millis(200));
        Some(Arc::new(Bar {
            bar,
            start: Instant::now(),
        }))
    }

    /// The receiver to put in `DiffOptions::progress`.
    pub fn progress(self: &Arc<Bar>) -> Progress {
        let me = Arc::clone(self);
        Progress::new(move |e| match e {
            ProgressEvent::Start { file, functions } => {
                me.bar.inc_length(functions as u64);
                me.bar.set_message(file.to_string());
            }
            ProgressEvent::Done { function, verdict } => {
                me.bar.inc(1);
                me.bar
                    .set_message(format!("{function}: {}", verdict.as_str()));
            }
        })
    }

    /// Clear the bar and print the run's one summary line (`reports`: the files' reports).
    pub fn finish(&self, reports: &[&Report]) {
        self.bar.finish_and_clear();
        eprintln!("{}", summary_line(reports, self.start.elapsed()));
    }
}

/// `dizy: 7 function(s) in 2 file(s), 3.1 s: 2 equivalent, 1 different, 4 unchanged`.
pub fn summary_line(reports: &[&Report], took: Duration) -> String {
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    let mut n = 0;
    for r in reports {
        for f in &r.functions {
            *counts.entry(f.verdict.as_str()).or_default() += 1;
            n += 1;
        }
    }
    let parts: Vec<String> = counts.iter().map(|(v, k)| format!("{k} {v}")).collect();
    format!(
        "dizy: {n} function(s) in {} file(s), {:.1} s: {}",
        reports.len(),
        took.as_secs_f64(),
        if parts.is_empty() {
            "none".into()
        } else {
            parts.join(", ")
        }
    )
}
