//! Test support for the witness strategies: a pair of versions taken through correlation,
//! analysis and Δ, and a runner with a generous budget for calling one strategy alone.

use std::path::Path;
use std::time::{Duration, Instant};

use super::{Options, Runner, Witness};
use crate::correlate::{self, Correlated};
use crate::delta::{self, Delta};
use crate::gcl::GclProgram;

pub struct Pair {
    pub old: GclProgram,
    pub new: GclProgram,
    pub c: Correlated,
    pub d: Delta,
}

fn analysed(old: GclProgram, new: GclProgram, func: &str) -> Pair {
    let c = correlate::correlate(&old, &new, func, &Default::default()).expect("correlate");
    let b = crate::limits::Budget::unlimited();
    let a = crate::analysis::analyze(&c, &Default::default(), &b).expect("analysis");
    let d = delta::compute(&c, &a, &b).expect("delta");
    Pair { old, new, c, d }
}

/// Two versions given as source text.
pub fn pair(old: &str, new: &str, func: &str) -> Pair {
    let dir = tempfile::tempdir().expect("tempdir");
    let load = |name: &str, src: &str| {
        let p = dir.path().join(name);
        std::fs::write(&p, src).expect("write");
        crate::load_gcl(&p, &Default::default()).expect("load")
    };
    analysed(load("old.c", old), load("new.c", new), func)
}

/// A pair of `benchmarks/pairs/`.
pub fn bench_pair(name: &str, func: &str) -> Pair {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("benchmarks/pairs")
        .join(name);
    let old = crate::load_gcl(&dir.join("old.c"), &Default::default()).expect("old");
    let new = crate::load_gcl(&dir.join("new.c"), &Default::default()).expect("new");
    analysed(old, new, func)
}

/// Run `f` with a fresh runner for `func` with a one-minute budget.
pub fn with_runner<T>(p: &Pair, func: &str, f: impl FnOnce(&mut Runner) -> T) -> T {
    let params = super::witness_params(&p.old.program, p.old.function(func).expect("function"))
        .expect("parameters a witness can set");
    // generous limits: the tests run in parallel on loaded machines
    let opts = Options {
        time: Duration::from_secs(60),
        query_ms: 20_000,
        float_query_ms: 20_000,
        ..Default::default()
    };
    let budget = crate::limits::Budget::unlimited();
    let mut r = Runner {
        old: &p.old,
        new: &p.new,
        func,
        n_params: params.len(),
        params,
        retyped: vec![],
        fill: vec![],
        opts: &opts,
        runs: 0,
        extra_runs: 0,
        log: Default::default(),
        world: Default::default(),
        start: Instant::now(),
        budget: &budget,
        bits_only: None,
        unsafe_witness: None,
        repair: super::Repair::Pending,
    };
    f(&mut r)
}

/// The integer value of input `name` of a witness.
pub fn input(w: &Witness, name: &str) -> i128 {
    let v = &w.inputs.iter().find(|(n, _)| n == name).expect("input").1;
    v.trim_end_matches(|c: char| c.is_ascii_alphabetic())
        .parse()
        .expect("integer literal")
}
