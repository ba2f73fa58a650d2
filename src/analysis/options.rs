//! Options of the analysis and the public types describing a run.
//!
//! Takes nothing (plain data); gives [`Options`] (domain, canonization, widening, integer and
//! floating-point semantics, sub-state cap) as the command line and `diff` set them, the
//! [`Semantics`] a run was under (what Δ and the report's expressions mean), and [`Stats`].

use dizy_domains::DomainKind;

#[derive(
    Clone, Copy, PartialEq, Eq, Debug, clap::ValueEnum, serde::Serialize, serde::Deserialize,
)]
pub enum Canon {
    JoinEquiv,
    JoinAll,
    ByGuards,
    None,
}

#[derive(
    Clone, Copy, PartialEq, Eq, Debug, clap::ValueEnum, serde::Serialize, serde::Deserialize,
)]
pub enum CanonPoint {
    /// Only at diff points and loop heads.
    Diff,
    /// Also after every matched pair (converge points).
    Converge,
    /// After every instruction.
    Join,
}

/// How floating-point values are analysed.
#[derive(
    Clone,
    Copy,
    PartialEq,
    Eq,
    Debug,
    Default,
    clap::ValueEnum,
    serde::Serialize,
    serde::Deserialize,
)]
pub enum Floats {
    /// IEEE 754 as the compiled program computes it (x86-64 SSE, round to nearest): NaN, ±inf
    /// and rounding exist, so the analysis knows of a floating value only that it is identical
    /// to another (a copy, an equal input, the same operation on identical operands).
    #[default]
    Ieee,
    /// Floating values as real numbers (`--floats real`): more is proved, but a proof does not
    /// hold for NaN, infinities or rounding.
    Real,
}

#[derive(
    Clone, Copy, PartialEq, Eq, Debug, clap::ValueEnum, serde::Serialize, serde::Deserialize,
)]
pub enum Overflow {
    /// Signed overflow is undefined behaviour and not modelled; unsigned arithmetic wraps.
    Math,
    /// Signed arithmetic wraps too (as with `-fwrapv`).
    Wrap,
}

#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Options {
    pub domain: DomainKind,
    /// A cheaper domain `dizy diff` tries first for a proof: a function its analysis proves
    /// equivalent (and terminating alike) is reported so; any other outcome gets the analysis
    /// with `domain`, whose Δ the report shows. A function whose pre-pass already found a
    /// difference is analysed (for its Δ only) with this domain. `None`, or the same as `domain`: `domain` only. [`analyze`](super::analyze)
    /// itself ignores it.
    pub proof_domain: Option<DomainKind>,
    pub canon: Canon,
    pub canon_point: CanonPoint,
    pub widen_delay: usize,
    pub overflow: Overflow,
    pub floats: Floats,
    /// Sub-states per point above which the state is canonized anyway (Join-Equiv, then
    /// Join-All): precision degrades, soundness does not.
    pub max_substates: usize,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            domain: DomainKind::Polyhedra,
            proof_domain: Some(DomainKind::Octagon),
            canon: Canon::JoinEquiv,
            canon_point: CanonPoint::Diff,
            widen_delay: 2,
            overflow: Overflow::Math,
            floats: Floats::Ieee,
            max_substates: 64,
        }
    }
}

#[derive(Clone, Debug, Default)]
pub struct Stats {
    pub transfers: usize,
    pub max_substates: usize,
    pub widenings: usize,
    pub forced_canonizations: usize,
}

/// The semantics the analysis was run under (what the expressions of a report mean).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Semantics {
    pub overflow: Overflow,
    pub floats: Floats,
}
