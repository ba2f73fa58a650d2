//! Fuzz target `diff`: two small preprocessed C texts (the input split at its first NUL byte)
//! → the whole `dizy diff` pipeline (inline, correlate, analyse, Δ, witness search and
//! validation, text and JSON report) with small time budgets. Any report is fine; a panic, abort
//! or hang is a bug. Inputs beyond 4 KiB are skipped to keep runs short.

#![no_main]

use std::time::Duration;

use libfuzzer_sys::fuzz_target;

#[path = "common.rs"]
mod common;

fuzz_target!(|data: &[u8]| {
    if data.len() > 4096 {
        return;
    }
    let (old, new) = match data.iter().position(|&b| b == 0) {
        Some(i) => (&data[..i], &data[i + 1..]),
        None => (data, data),
    };
    let old = String::from_utf8_lossy(old).into_owned();
    let new = String::from_utf8_lossy(new).into_owned();
    common::on_big_stack(move || {
        let load = |text: String, name: &str| {
            dizy::frontend::parse_text(text, name).and_then(dizy::gcl::flatten_program)
        };
        let (Ok(po), Ok(pn)) = (load(old, "old.c"), load(new, "new.c")) else {
            return;
        };
        let mut opts = dizy::diff::DiffOptions::default();
        opts.analysis.timeout = Some(Duration::from_millis(500));
        opts.witness.time = Duration::from_millis(500);
        opts.witness.max_runs = 200;
        opts.witness.step_budget = 100_000;
        let report = dizy::diff::diff_programs(&po, &pn, &opts);
        let _ = dizy::report::to_text(&report);
        let _ = dizy::report::to_json(&report);
        let _ = report.exit_code();
    });
});
