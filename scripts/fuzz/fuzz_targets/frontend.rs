//! Fuzz target `frontend`: arbitrary bytes as preprocessed C text → parse, lower, flatten to GCL
//! and print (`common::frontend`). Bad text must become an `Error`, never a panic or a hang.
//! Works on already-preprocessed text (`frontend::parse_text`) so that no `cc -E` runs per input.

#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "common.rs"]
mod common;

fuzz_target!(|data: &[u8]| {
    let data = data.to_vec();
    assert!(common::on_big_stack(move || common::frontend(&data)));
});
