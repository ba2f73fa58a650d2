//! The analysis and limit options shared by `dizy diff` and `dizy bench`.
//!
//! Takes command-line words (clap); gives the analysis [`Options`](crate::analysis::Options),
//! the [`RunLimits`] and the witness switch. One definition for both commands, so they accept
//! the same values, reject unknown ones the same way (clap's message, exit 2), and run under the
//! same limits by construction.

use clap::{Args, ValueEnum};

use crate::analysis::{self, Canon, CanonPoint, Floats, Overflow};
use crate::limits::RunLimits;

/// The numeric domain of the sub-states (`--domain`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Domain {
    /// Octagons (native) for a proof, polyhedra where they do not prove the function
    /// equivalent
    Auto,
    Polyhedra,
    /// Octagons, native implementation
    Octagon,
    Interval,
    /// PPL's octagons (to compare with the native ones)
    OctagonPpl,
}

impl Domain {
    /// The domain whose analysis a report shows when the function is not proved equivalent.
    pub fn kind(self) -> dizy_domains::DomainKind {
        match self {
            Domain::Auto | Domain::Polyhedra => dizy_domains::DomainKind::Polyhedra,
            Domain::Octagon => dizy_domains::DomainKind::Octagon,
            Domain::Interval => dizy_domains::DomainKind::Interval,
            Domain::OctagonPpl => dizy_domains::DomainKind::PplOctagon,
        }
    }

    /// The cheaper domain tried first for a proof (`auto` only).
    pub fn proof_domain(self) -> Option<dizy_domains::DomainKind> {
        (self == Domain::Auto).then_some(dizy_domains::DomainKind::Octagon)
    }
}

/// What the analysis does and how long it may take.
#[derive(Args, Clone, Debug)]
pub struct AnalysisArgs {
    /// Numeric domain of the sub-states
    #[arg(long, value_enum, default_value_t = Domain::Auto)]
    pub domain: Domain,
    /// Canonization strategy bounding the number of sub-states
    #[arg(long, value_enum, default_value_t = Canon::JoinEquiv)]
    pub canon: Canon,
    /// Where canonization happens
    #[arg(long = "canon-point", value_enum, default_value_t = CanonPoint::Diff)]
    pub canon_point: CanonPoint,
    /// Loop-head iterations before widening
    #[arg(long = "widen-delay", default_value_t = 2)]
    pub widen_delay: usize,
    /// Sub-states per program point before forced canonization (precision, not soundness)
    #[arg(long = "max-substates", default_value_t = 64)]
    pub max_substates: usize,
    /// Integer semantics: `math` (signed overflow not modelled) or `wrap`
    #[arg(long, value_enum, default_value_t = Overflow::Math)]
    pub overflow: Overflow,
    /// Floating-point semantics: `ieee` (as compiled: NaN, infinities, rounding) or `real`
    /// (values as real numbers: proves more, but not for NaN, infinities or rounding)
    #[arg(long, value_enum, default_value_t = Floats::Ieee)]
    pub floats: Floats,
    /// Seconds allowed per function, analysis and witness search together (0: no limit)
    #[arg(long, default_value_t = 60.0)]
    pub timeout: f64,
    /// Resident memory (MiB) beyond which the analysis of a function stops with a resource
    /// limit instead of a verdict (0: no limit); also bounds the processes dizy starts
    #[arg(long = "max-memory", value_name = "MB", default_value_t = 4096)]
    pub max_memory: u64,
    /// Do not search for distinguishing inputs (differences stay "possibly different")
    #[arg(long = "no-witness")]
    pub no_witness: bool,
    /// Keep these analysis settings even when they do not finish: by default a function whose
    /// analysis runs out of half its time is analysed again, in the time left, with one
    /// sub-state per point and then with the interval domain (less precise, still sound)
    #[arg(long = "no-fallback")]
    pub no_fallback: bool,
}

impl Default for AnalysisArgs {
    fn default() -> AnalysisArgs {
        AnalysisArgs {
            domain: Domain::Auto,
            canon: Canon::JoinEquiv,
            canon_point: CanonPoint::Diff,
            widen_delay: 2,
            max_substates: 64,
            overflow: Overflow::Math,
            floats: Floats::Ieee,
            timeout: 60.0,
            max_memory: 4096,
            no_witness: false,
            no_fallback: false,
        }
    }
}

impl AnalysisArgs {
    pub fn analysis(&self) -> analysis::Options {
        analysis::Options {
            domain: self.domain.kind(),
            proof_domain: self.domain.proof_domain(),
            canon: self.canon,
            canon_point: self.canon_point,
            widen_delay: self.widen_delay,
            overflow: self.overflow,
            floats: self.floats,
            max_substates: self.max_substates.max(1),
        }
    }

    pub fn limits(&self) -> RunLimits {
        let timeout =
            (self.timeout > 0.0).then(|| std::time::Duration::from_secs_f64(self.timeout));
        RunLimits::new(timeout, (self.max_memory > 0).then_some(self.max_memory))
    }

    /// `dizy diff`'s options for these settings (frontend and correlation at their defaults).
    pub fn diff_options(&self) -> crate::diff::DiffOptions {
        crate::diff::DiffOptions {
            analysis: self.analysis(),
            limits: self.limits(),
            no_witness: self.no_witness,
            no_fallback: self.no_fallback,
            ..Default::default()
        }
    }

    /// The value of an option as its flag names it (`join-equiv`).
    pub fn name<T: ValueEnum>(v: &T) -> String {
        v.to_possible_value()
            .map(|p| p.get_name().to_string())
            .unwrap_or_default()
    }
}
