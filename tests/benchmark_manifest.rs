//! Every benchmark pair under default settings: no unsound verdict, and most equivalent pairs
//! proved.
//!
//! Oracle: `benchmarks/manifest.csv`, whose expected verdicts were checked by compiling and
//! running both versions (see `benchmarks/README.md`). A pair expected to differ must never be
//! reported equivalent; at least 80% of the pairs expected equivalent must be proved.

use std::path::Path;
use std::time::Duration;

#[test]
fn manifest_verdicts_are_sound_and_mostly_precise() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("benchmarks");
    let text = std::fs::read_to_string(root.join("manifest.csv")).expect("manifest");
    let mut unsound = vec![];
    let mut errors = vec![];
    let (mut eq_total, mut eq_proved, mut rows) = (0, 0, 0);
    for line in text.lines().skip(1).filter(|l| !l.trim().is_empty()) {
        let cols: Vec<&str> = line.splitn(6, ',').collect();
        let (id, old, new, function, expected) = (cols[0], cols[1], cols[2], cols[3], cols[4]);
        rows += 1;
        let mut opts = dizy::diff::DiffOptions {
            functions: vec![function.to_string()],
            ..Default::default()
        };
        opts.limits.timeout = Some(Duration::from_secs(60));
        let r = dizy::diff::diff_files(&root.join(old), &root.join(new), &opts);
        let verdict = match r {
            Ok(r) => r.functions[0].verdict,
            Err(e) => {
                errors.push(format!("{id}: {e}"));
                continue;
            }
        };
        use dizy::diff::Verdict;
        if expected == "different" && verdict == Verdict::Equivalent {
            unsound.push(id.to_string());
        }
        if expected == "equivalent" {
            eq_total += 1;
            if verdict == Verdict::Equivalent {
                eq_proved += 1;
            }
        }
        if matches!(verdict, Verdict::Error | Verdict::Unsupported) {
            errors.push(format!("{id}: verdict {}", verdict.as_str()));
        }
    }
    println!("{rows} pairs; {eq_proved}/{eq_total} equivalent pairs proved; unsound: {unsound:?}; errors: {errors:?}");
    assert!(rows >= 30, "the manifest has at least 30 pairs");
    assert!(
        unsound.is_empty(),
        "pairs expected to differ were reported equivalent: {unsound:?}"
    );
    assert!(
        errors.is_empty(),
        "pairs that failed to analyse: {errors:?}"
    );
    assert!(
        eq_proved * 10 >= eq_total * 8,
        "only {eq_proved} of {eq_total} equivalent pairs proved"
    );
}
