//! Abstract interpretation of the correlating program with the correlating domain (DIZY §5).
//!
//! Takes a [`Correlated`] product program and [`Options`] (numeric domain, canonization strategy
//! and points, widening delay, integer semantics); gives the abstract state — a set of
//! ⟨guard valuation, numeric value⟩ sub-states — before every product instruction, computed by a
//! worklist fixpoint over the flat GCL with guard-matched widening at loop heads. The `delta`
//! stage reads the states at diff points.
//!
//! Transformers follow DIZY's Table 1: a guard assignment splits each sub-state by the
//! condition and its negation (non-convex `≠` into two pieces); a guarded instruction applies to
//! sub-states whose guard holds and splits those where it is unknown. Pointers are byte
//! addresses in the numeric domain; memory reached through them is the `memory` layer's:
//! both versions' memories start equal, reads and writes are facts over address and value
//! dimensions, and equal reads of equal memories give equal values. A store through a pointer
//! also forgets that version's globals and address-taken variables; calls forget their result,
//! and (unless the callee is a known pure function) that version's globals and memory facts.
//! Matched pairs of instructions computing the same expression from equal values, and matched
//! calls with equal arguments (in equal memories, when they take pointers), give equal results
//! (congruence), also once a temporary is replaced by the pure expression it holds (`defs`).

mod analyzer;
mod atoms;
mod congruence;
mod dead;
mod defs;
mod ieee;
mod locs;
mod memory;
mod options;
mod smt_eq;
mod state;
mod transfer;
mod translate;

// ------------------------------------------------------------------ public API
//
// What the later stages (delta, termination, witness, diff, options) use; everything else in
// the submodules is the analysis's own business.

/// Provable equality of an old and a new expression in a sub-state.
pub use congruence::equal_exprs;
/// Whether a call's arguments let it read memory (pointers other than string literals).
pub use congruence::reads_memory;
/// The encoding of `-0.0` in a floating dimension under IEEE semantics.
pub use ieee::NEG_ZERO;
/// Dimension pairs of the cells two aggregates share (same path and type), and whether all do.
pub use locs::pair_cells;
/// Numeric locations: the dimension of each tracked variable or aggregate cell.
pub use locs::Dims;
/// What a sub-state knows of memory through pointers (equal in both versions, facts).
pub use memory::{reads_agree, Mem};
/// Analysis options and the semantics a run was under.
pub use options::{Canon, CanonPoint, Floats, Options, Overflow, Semantics, Stats};
/// Canonize a state (Join-Equiv, Join-All, By-Guards): Δ joins a diff point's sub-states.
pub use state::canonize;
/// Guard valuation of a sub-state (absent = unknown).
pub use state::Ctx;
/// Domain operations that degrade to a sound over-approximation instead of failing (`s_*`).
pub use state::Soft;
/// One ⟨guard valuation, numeric value, memory⟩ sub-state, and the abstract state (a set).
pub use state::{State, Sub};
/// A guard's value under a guard valuation (true, false or unknown).
pub use transfer::{eval_guard, Tri};
/// The range of an integer type (`None` for others).
pub use translate::type_range;

// ------------------------------------------------------------------ entry point

use dizy_domains::{Dim, DomainKind};

use crate::correlate::Correlated;
use crate::diag::Result;
use crate::ir::{IdVec, Pos};
use crate::limits::Budget;
use analyzer::Analyzer;

/// The fixpoint: the state before every product position (the last is the exit's).
pub struct Analysis {
    pub dims: Dims,
    pub semantics: Semantics,
    /// The fixpoint before each position (`None`: not reached); see [`Analysis::state`].
    states: IdVec<Pos, Option<State>>,
    /// Positions whose state was not kept (only the transfer needed it).
    transient: Vec<bool>,
    /// Corresponding pairs as dimension pairs (both tracked).
    pub dim_pairs: Vec<(Dim, Dim)>,
    pub stats: Stats,
    pub notes: Vec<String>,
    /// Whether recursive calls of the analysed function were summarized by induction
    /// ([`congruence::recursion_summary`]): termination then needs every one of them matched.
    pub recursion_summary: bool,
    /// The functions whose calls were summarized so (the analysed one and the rest of its
    /// recursion cycle, by source name): a proof holds only where the others are proved too.
    pub summarized: std::collections::BTreeSet<String>,
}

impl Analysis {
    /// The fixpoint before `p` (`None`: no execution reaches it). Asking for a position whose
    /// state the analysis did not keep is an internal error, never an unreached position.
    pub fn state(&self, p: Pos) -> Result<Option<&State>> {
        if self.transient.get(p.index()).copied().unwrap_or(false) {
            return Err(crate::diag::Error::internal(format!(
                "the analysis kept no state at position {}",
                p.index()
            )));
        }
        Ok(self.states.get(p).and_then(|s| s.as_ref()))
    }
}

/// Analyse `c` under `opts`, within `budget` (a deadline and a memory bound: past either, the
/// analysis stops with a typed [`crate::diag::Stop`] and claims nothing).
pub fn analyze(c: &Correlated, opts: &Options, budget: &Budget) -> Result<Analysis> {
    let mut a = Analyzer::new(c, opts, budget)?;
    state::check_size(
        a.dims.len(),
        a.f.instrs.len(),
        opts.domain != DomainKind::Interval,
    )?;
    a.run()?;
    Ok(Analysis {
        semantics: a.semantics(),
        dims: a.dims,
        states: IdVec::from_vec(a.states),
        transient: a.transient,
        dim_pairs: a.dim_pairs,
        stats: a.stats,
        notes: a.notes,
        recursion_summary: !a.summarized.is_empty(),
        summarized: a.summarized,
    })
}

#[cfg(test)]
mod tests;
