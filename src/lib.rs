//! dizy: semantic differencing of C functions.
//!
//! Pipeline (one module per stage, data flows one way):
//! `frontend` (C → typed structured IR, [`ir`]) → `gcl` (guarded instruction form) →
//! `interp` (concrete execution with exact C semantics). Later stages (correlate, analysis, delta,
//! witness, report) build on these. The `dizy` binary is a thin CLI over this library.

pub mod correlate;
pub mod diag;
pub mod frontend;
pub mod gcl;
pub mod interp;
pub mod ir;

pub use diag::{Error, Result};

use std::path::Path;

/// Parse a C file and flatten every function to GCL: what `dizy gcl` and `dizy run` start from.
pub fn load_gcl(path: &Path, opts: &frontend::Options) -> Result<gcl::GclProgram> {
    let prog = frontend::load(path, opts)?;
    gcl::flatten_program(prog)
}
