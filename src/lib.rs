//! dizy: semantic differencing of C functions.
//!
//! Pipeline (one module per stage, data flows one way; `ARCHITECTURE.md` is the map):
//! `frontend` (C → typed structured IR, [`ir`]) → `gcl` (guarded instruction form) →
//! `changes` (what changed, call graphs) → `inline` (changed callees into their callers) →
//! `correlate` (the correlating program P ⋈ P') → `analysis` (correlating abstract domain) →
//! `termination` and `delta` (Δ at diff points) → `witness` (distinguishing inputs, executed by
//! `interp`) → `report` (text, JSON, SARIF, HTML); `diff` drives them for a pair of files under the
//! [`limits`] it is given. The `dizy` binary is a thin CLI over this library.

pub mod analysis;
pub mod bench;
pub mod cache;
pub mod cbv;
pub mod changes;
pub mod config_changes;
pub mod correlate;
pub mod delta;
pub mod diag;
pub mod diff;
pub mod frontend;
pub mod gcl;
pub mod git;
pub mod inline;
pub mod interp;
pub mod ir;
pub mod limits;
pub mod log;
pub mod options;
pub mod parallel;
pub mod report;
pub mod resources;
pub mod termination;
pub mod witness;

pub use diag::{Error, Result};

use std::path::Path;

/// Parse a C file and flatten every function to GCL: what `dizy gcl` and `dizy run` start from.
pub fn load_gcl(path: &Path, opts: &frontend::Options) -> Result<gcl::GclProgram> {
    resources::set_phase(path.display().to_string());
    let prog = frontend::load(path, opts)?;
    gcl::flatten_program(prog)
}

/// [`load_gcl`] for two versions of a file, loaded together (see [`frontend::load_pair`]).
pub fn load_gcl_pair(
    old: &Path,
    new: &Path,
    opts: &frontend::Options,
) -> Result<(gcl::GclProgram, gcl::GclProgram)> {
    resources::set_phase(old.display().to_string());
    let (po, pn) = frontend::load_pair(old, new, opts)?;
    Ok((gcl::flatten_program(po)?, gcl::flatten_program(pn)?))
}
