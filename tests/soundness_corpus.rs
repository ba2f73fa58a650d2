//! No "equivalent" verdict on a pair that behaves differently when executed.
//!
//! Oracle: concrete execution. For every pair of the correlator corpus and of the benchmark
//! manifest that `dizy diff` calls equivalent, both versions run (through the correlating
//! program, whose faithfulness `correlate_cc` checks against gcc) on 300 boundary and random
//! inputs; any input with different results is an unsound verdict. Inputs with undefined
//! behaviour or an exhausted step budget are skipped.

mod common;

use std::path::{Path, PathBuf};
use std::time::Duration;

use common::{gen_inputs, Ty};
use dizy::ir::CType;

fn ty_of(t: &CType) -> Option<Ty> {
    match t {
        CType::Bool => Some(Ty::Bool),
        CType::Int { bits, signed } => Some(Ty::Int {
            bits: *bits,
            signed: *signed,
        }),
        CType::Float => Some(Ty::Float),
        CType::Double => Some(Ty::Double),
        _ => None,
    }
}

fn pairs() -> Vec<(String, PathBuf, PathBuf, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut out = vec![];
    let corpus = root.join("tests/corpus/correlate");
    let mut dirs: Vec<_> = std::fs::read_dir(&corpus)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    dirs.sort();
    for d in dirs {
        let old = d.join("old.c");
        let text = std::fs::read_to_string(&old).unwrap();
        let entry = common::corpus_entry(&text).expect("entry comment");
        out.push((
            d.file_name().unwrap().to_string_lossy().into_owned(),
            old,
            d.join("new.c"),
            entry,
        ));
    }
    let bench = root.join("benchmarks");
    let manifest = std::fs::read_to_string(bench.join("manifest.csv")).unwrap();
    for line in manifest.lines().skip(1).filter(|l| !l.trim().is_empty()) {
        let c: Vec<&str> = line.splitn(6, ',').collect();
        out.push((
            c[0].to_string(),
            bench.join(c[1]),
            bench.join(c[2]),
            c[3].to_string(),
        ));
    }
    out
}

#[test]
fn equivalent_verdicts_survive_execution() {
    let mut unsound = vec![];
    let (mut proved, mut checked_inputs) = (0, 0);
    for (id, old, new, entry) in pairs() {
        // Only "equivalent" verdicts are checked here, so no witness search.
        let mut opts = dizy::diff::DiffOptions {
            functions: vec![entry.clone()],
            no_witness: true,
            ..Default::default()
        };
        opts.limits.timeout = Some(Duration::from_secs(30));
        let report =
            dizy::diff::diff_files(&old, &new, &opts).unwrap_or_else(|e| panic!("{id}: {e}"));
        if report.functions[0].verdict != dizy::diff::Verdict::Equivalent {
            continue;
        }
        proved += 1;
        let fe = dizy::frontend::Options::default();
        let (po, pn) = (
            dizy::load_gcl(&old, &fe).unwrap(),
            dizy::load_gcl(&new, &fe).unwrap(),
        );
        let c = dizy::correlate::correlate(&po, &pn, &entry, &Default::default()).unwrap();
        let f = c.product();
        let params: Option<Vec<Ty>> = f
            .func
            .params
            .iter()
            .map(|p| ty_of(&f.func.var(*p).ty))
            .collect();
        let Some(params) = params else { continue };
        for input in gen_inputs(&params, 300, common::fnv1a(&id)) {
            match dizy::interp::run_correlated(&c, &input.lits, 2_000_000) {
                Ok((o, n)) => {
                    checked_inputs += 1;
                    if o != n {
                        unsound.push(format!("{id}: inputs {:?}: old {o}, new {n}", input.lits));
                        break;
                    }
                }
                Err(_) => continue,
            }
        }
    }
    println!("{proved} pairs proved equivalent; {checked_inputs} executions checked");
    assert!(
        proved >= 20,
        "expected a substantial number of equivalence proofs, got {proved}"
    );
    assert!(
        unsound.is_empty(),
        "unsound equivalence verdicts:\n{}",
        unsound.join("\n")
    );
}
