//! The limits a run of dizy works under, carried explicitly from the caller to every stage.
//!
//! Takes the user's bounds (`--timeout`, `--max-memory`, the PPL work budget); gives
//! [`RunLimits`], one value that the CLI, `dizy bench` and the tests build alike and pass down
//! (as egg's `Runner` carries its limits as fields), and [`Budget`], the running bound of one
//! piece of work — a deadline and a memory bound — that stages check as they go and that stops
//! them with a typed [`Stop`]. No stage reads a global, a thread-local or the environment for
//! a limit.

use std::cell::Cell;
use std::time::{Duration, Instant};

use crate::diag::{Error, Result, Stop};
use crate::resources::ChildLimits;

/// Default PPL work budget per operation: well above what ordinary states need, far below a
/// blow-up. (Half of this was too little for an assignment `l &= 0xFC000000L` over a state with
/// a few dozen floating-point dimensions: it fell back to forgetting `l`, and EqBench's
/// `sine/mysin/Eq` lost `l = l'`.)
pub const DEFAULT_OP_BUDGET: u64 = 100_000_000;

/// Every bound of a run.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct RunLimits {
    /// Time per function, analysis and witness search together (`--timeout`); `None`: none.
    pub timeout: Option<Duration>,
    /// Resident memory of dizy in MiB (`--max-memory`); `None`: none.
    pub memory_mb: Option<u64>,
    /// PPL work per domain operation (deterministic units); `None`: unbounded.
    pub op_budget: Option<u64>,
    /// Preprocessing and parsing of one file.
    pub preprocess: Duration,
    /// The processes dizy starts (preprocessor, native builds and runs).
    pub child: ChildLimits,
}

impl Default for RunLimits {
    /// The defaults of `dizy diff`: 60 s per function, 4096 MiB.
    fn default() -> RunLimits {
        RunLimits::new(Some(Duration::from_secs(60)), Some(4096))
    }
}

impl RunLimits {
    /// The limits for `--timeout` and `--max-memory`: child processes get the memory bound and
    /// the timeout in CPU seconds (what stops a runaway preprocessor), and the preprocessor
    /// twice the timeout, at least 10 s more, in wall-clock time (or 60 s without one): a
    /// loaded machine must not turn a small file's preprocessing into a timeout.
    pub fn new(timeout: Option<Duration>, memory_mb: Option<u64>) -> RunLimits {
        RunLimits {
            timeout,
            memory_mb,
            op_budget: Some(DEFAULT_OP_BUDGET),
            preprocess: timeout.map_or(Duration::from_secs(60), |t| {
                t + t.max(Duration::from_secs(10))
            }),
            child: ChildLimits::new(memory_mb.unwrap_or(0), timeout),
        }
    }

    /// A budget for one function, starting now.
    pub fn budget(&self) -> Budget {
        Budget::new(self.timeout.map(|t| Instant::now() + t), self.memory_mb)
            .with_op_budget(self.op_budget)
    }
}

/// The running bound of one piece of work: when it must end, how much resident memory the
/// process may use meanwhile, and how much work one numeric domain operation may take.
#[derive(Debug)]
pub struct Budget {
    deadline: Option<Instant>,
    memory_mb: Option<u64>,
    op_budget: Option<u64>,
    /// When the resident size was last read (reading /proc costs system calls: at most every
    /// few milliseconds).
    checked: Cell<Option<Instant>>,
}

impl Clone for Budget {
    fn clone(&self) -> Budget {
        Budget::new(self.deadline, self.memory_mb).with_op_budget(self.op_budget)
    }
}

impl Budget {
    pub fn new(deadline: Option<Instant>, memory_mb: Option<u64>) -> Budget {
        Budget {
            deadline,
            memory_mb: memory_mb.filter(|m| *m > 0),
            op_budget: None,
            checked: Cell::new(None),
        }
    }

    /// The same bounds with `op_budget` units of PPL work per domain operation.
    pub fn with_op_budget(mut self, op_budget: Option<u64>) -> Budget {
        self.op_budget = op_budget;
        self
    }

    /// PPL work per domain operation (`None`: unbounded).
    pub fn op_budget(&self) -> Option<u64> {
        self.op_budget
    }

    /// No bound at all (tests, tools).
    pub fn unlimited() -> Budget {
        Budget::new(None, None)
    }

    /// The same memory bound with an earlier (or no) deadline: `until`, or this budget's own if
    /// it comes first.
    pub fn until(&self, until: Option<Instant>) -> Budget {
        let deadline = match (self.deadline, until) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        Budget::new(deadline, self.memory_mb).with_op_budget(self.op_budget)
    }

    pub fn deadline(&self) -> Option<Instant> {
        self.deadline
    }

    /// Time left (`None`: unbounded).
    pub fn left(&self) -> Option<Duration> {
        self.deadline
            .map(|d| d.saturating_duration_since(Instant::now()))
    }

    pub fn past_deadline(&self) -> bool {
        self.deadline.is_some_and(|d| Instant::now() > d)
    }

    /// An error naming the limit once the deadline has passed or the resident memory exceeds
    /// the bound. The work stopped gets no verdict: precision is lost, never soundness.
    pub fn check(&self) -> Result<()> {
        if self.past_deadline() {
            return Err(Error::stopped(Stop::Timeout, "timed out (--timeout)"));
        }
        self.check_memory()
    }

    /// The memory half of [`Budget::check`].
    pub fn check_memory(&self) -> Result<()> {
        let Some(limit) = self.memory_mb else {
            return Ok(());
        };
        let now = Instant::now();
        let due = self
            .checked
            .get()
            .is_none_or(|t| now.duration_since(t) >= Duration::from_millis(5));
        if !due {
            return Ok(());
        }
        self.checked.set(Some(now));
        match crate::resources::resident_mb() {
            Some(mb) if mb > limit => Err(Error::stopped(
                Stop::Memory,
                format!("memory budget exhausted ({mb} MiB resident, --max-memory {limit})"),
            )),
            _ => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_passed_deadline_stops_with_a_timeout() {
        let b = Budget::new(Some(Instant::now() - Duration::from_millis(1)), None);
        let e = b.check().unwrap_err();
        assert_eq!(e.kind, crate::diag::ErrorKind::Stopped(Stop::Timeout));
        assert!(Budget::unlimited().check().is_ok());
        // A tighter deadline wins, a looser one does not.
        let soon = Instant::now() + Duration::from_secs(1);
        let later = soon + Duration::from_secs(10);
        assert_eq!(
            Budget::new(Some(soon), None).until(Some(later)).deadline(),
            Some(soon)
        );
        assert_eq!(
            Budget::new(Some(later), None).until(Some(soon)).deadline(),
            Some(soon)
        );
        assert_eq!(Budget::unlimited().until(None).deadline(), None);
    }

    #[test]
    fn memory_beyond_the_bound_stops_the_work() {
        // One MiB is always exceeded by a running process.
        let e = Budget::new(None, Some(1)).check().unwrap_err();
        assert_eq!(e.kind, crate::diag::ErrorKind::Stopped(Stop::Memory));
        assert!(Budget::new(None, Some(1 << 30)).check().is_ok());
    }

    #[test]
    fn defaults_match_the_cli() {
        let l = RunLimits::default();
        assert_eq!(l.timeout, Some(Duration::from_secs(60)));
        assert_eq!(l.memory_mb, Some(4096));
        assert_eq!(l.preprocess, Duration::from_secs(120));
        assert_eq!(l.op_budget, Some(DEFAULT_OP_BUDGET));
    }
}
