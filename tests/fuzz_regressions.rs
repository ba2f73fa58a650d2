//! Replays the inputs the cargo-fuzz targets once failed on (`scripts/fuzz/regressions/`, named
//! after their target: `frontend-*`, `diff-*`) through the targets' own code
//! (`scripts/fuzz/fuzz_targets/common.rs`), so a crash, panic or runaway parse found by
//! `scripts/fuzz-targets` stays fixed without nightly or libFuzzer. Any result but a panic is
//! accepted, as in the targets.

use std::path::Path;

#[path = "../scripts/fuzz/fuzz_targets/common.rs"]
mod common;

#[test]
fn cargo_fuzz_regressions_stay_fixed() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/fuzz/regressions");
    let mut seen = 0;
    for entry in std::fs::read_dir(&dir).expect("scripts/fuzz/regressions") {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let data = std::fs::read(&path).unwrap();
        let run: fn(&[u8]) = if name.starts_with("frontend-") {
            common::frontend
        } else if name.starts_with("diff-") {
            common::diff
        } else {
            panic!("{name}: a regression input must be named frontend-* or diff-*");
        };
        let start = std::time::Instant::now();
        assert!(
            common::on_big_stack(move || run(&data)),
            "{name}: the pipeline panicked"
        );
        eprintln!("{name}: no panic ({} ms)", start.elapsed().as_millis());
        seen += 1;
    }
    assert!(
        seen >= 6,
        "only {seen} regression inputs in {}",
        dir.display()
    );
}
