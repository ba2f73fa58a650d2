//! Fuzz target `diff`: two small preprocessed C texts (the input split at its first NUL byte)
//! → the whole `dizy diff` pipeline (inline, correlate, analyse, Δ, witness search and
//! validation, text and JSON report) with small time budgets (`common::diff`). Any report is
//! fine; a panic, abort or hang is a bug.

#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "common.rs"]
mod common;

fuzz_target!(|data: &[u8]| {
    let data = data.to_vec();
    assert!(common::on_big_stack(move || common::diff(&data)));
});
