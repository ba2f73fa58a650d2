//! Shared by the fuzz targets and by `tests/fuzz_regressions.rs` (which includes this file to
//! replay saved inputs on stable Rust): what each target does with one input, and the big stack
//! the pipeline runs on. Any outcome but a panic, abort or hang is fine for both targets.

use std::time::Duration;

/// Run `f` on a thread with a 1 GiB stack, as `dizy`'s `main` does (deeply nested input is
/// rejected at depth 1000, but lowering and flattening below that recurse). Gives whether `f`
/// returned without panicking (under libFuzzer a panic aborts through its hook first).
pub fn on_big_stack(f: impl FnOnce() + Send + 'static) -> bool {
    let h = std::thread::Builder::new()
        .stack_size(1 << 30)
        .spawn(f)
        .expect("spawn");
    h.join().is_ok()
}

fn load(text: String, name: &str) -> dizy::Result<dizy::gcl::GclProgram> {
    dizy::frontend::parse_text(text, name).and_then(dizy::gcl::flatten_program)
}

/// Target `frontend`: bytes as preprocessed C text → parse, lower, flatten to GCL, print.
pub fn frontend(data: &[u8]) {
    let Ok(gcl) = load(String::from_utf8_lossy(data).into_owned(), "fuzz.c") else {
        return;
    };
    let mut out = String::new();
    for f in &gcl.functions {
        dizy::gcl::print_function(&mut out, f, &gcl.program);
    }
}

/// Target `diff`: two texts split at the first NUL byte → the whole `dizy diff` pipeline with
/// small budgets, and both reports. Inputs beyond 4 KiB are skipped to keep runs short.
pub fn diff(data: &[u8]) {
    if data.len() > 4096 {
        return;
    }
    let (old, new) = match data.iter().position(|&b| b == 0) {
        Some(i) => (&data[..i], &data[i + 1..]),
        None => (data, data),
    };
    let old = String::from_utf8_lossy(old).into_owned();
    let new = String::from_utf8_lossy(new).into_owned();
    let (Ok(po), Ok(pn)) = (load(old, "old.c"), load(new, "new.c")) else {
        return;
    };
    let mut opts = dizy::diff::DiffOptions::default();
    opts.limits.timeout = Some(Duration::from_millis(500));
    opts.witness.time = Duration::from_millis(500);
    opts.witness.max_runs = 200;
    opts.witness.step_budget = 100_000;
    let report = dizy::diff::diff_programs(&po, &pn, &opts);
    let _ = dizy::report::to_text(&report);
    let _ = dizy::report::to_json(&report);
    let _ = report.exit_code();
}
