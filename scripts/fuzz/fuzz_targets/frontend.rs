//! Fuzz target `frontend`: arbitrary bytes as preprocessed C text → parse, lower, flatten to GCL
//! and print. Any outcome but a panic, abort or hang is fine: bad text must become an `Error`.
//! Works on already-preprocessed text (`frontend::parse_text`) so that no `cc -E` runs per input.

#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "common.rs"]
mod common;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data).into_owned();
    common::on_big_stack(move || {
        let Ok(program) = dizy::frontend::parse_text(text, "fuzz.c") else {
            return;
        };
        let Ok(gcl) = dizy::gcl::flatten_program(program) else {
            return;
        };
        let mut out = String::new();
        for f in &gcl.functions {
            dizy::gcl::print_function(&mut out, f, &gcl.program);
        }
    });
});
