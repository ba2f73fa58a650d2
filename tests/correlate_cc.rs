//! Tests of the correlating program P ⋈ P' (`dizy::correlate`).
//!
//! **Semantic preservation against the compiler** (`correlating_program_agrees_with_native_compiler`).
//! For every pair `tests/corpus/correlate/NN_name/{old.c,new.c}` (two versions of one entry
//! function, named on the first line of `old.c` as `/* entry: NAME — what changed */`), this
//! test generates a few hundred reproducible inputs (fixed-seed xorshift, seeded by the pair's
//! name: boundary, small and random values by parameter type, spelled as varied C literals) and
//!
//! * runs each version natively: `old.c` and `new.c` are each `#include`d into their own harness,
//!   compiled with `cc -std=gnu11 -O0 -fsanitize=undefined,float-cast-overflow`, and every input
//!   runs in a forked child (fresh globals) with UBSan in recover mode;
//! * builds the correlating program once per pair (`dizy::correlate::correlate`) and runs it on
//!   every input with `dizy::interp::run_correlated`, which gives the old and the new return
//!   value.
//!
//! The oracle is the compiled code: the product's old result must equal the native old result and
//! its new result the native new result, exactly (integers as numbers, floating values bit for
//! bit, NaN equal to NaN). Inputs are excluded when UBSan flags either native run (or a native
//! child dies) or `run` reports `RunError::Ub`; any other error (load, correlate, budget,
//! unsupported, malformed output, panic) is a failure. The test also fails when fewer than 40
//! pairs were checked or when more than 20% of one pair's inputs were excluded. As a check of the
//! corpus itself, pairs whose description says "same semantics" or "identical versions" must
//! agree natively on every compared input.
//!
//! **Structure of the product** (through the library API: `Correlated::origins`, `converge`,
//! `diff_points`): every instruction of each version appears exactly once and in its own order;
//! identical versions are matched instruction by instruction with a converge point after each
//! matched pair; the paper's `sign` pair interleaves `g1 := x < 0` with its tagged twin and
//! places the new `x' == 0` test unmatched after the matched assignments; in the DIZY appendix
//! buffer example the two changed clamps `n := 41` and `n' := 40` are adjacent; `Options::map`
//! pairs renamed variables without changing what the product computes (oracle: the interpreter on
//! each version alone).
//!
//! **CLI**: a few `dizy correlate OLD NEW --function F --run ARGS` end-to-end checks.

mod common;

use common::{
    corpus_entry, fnv1a, gen_inputs, parse_dizy, run_native, run_with_timeout, Input, Native, Ty,
    Value,
};
use dizy::correlate::{Correlated, DiffKind, Side};
use dizy::gcl::{instr_text, GclProgram};
use dizy::interp::RunError;
use dizy::ir::CType;
use dizy::ir::Pos;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Duration;

const INPUTS_PER_PAIR: usize = 200;
const BUDGET: u64 = 20_000_000;
const MIN_CORPUS: usize = 45;
const MIN_PAIRS_CHECKED: usize = 40;
const MAX_EXCLUDED_PERCENT: usize = 20;

// ---------------------------------------------------------------------------------------------
// Corpus access

fn corpus_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus/correlate")
}

/// Every pair directory, sorted by name.
fn corpus_pairs() -> Vec<PathBuf> {
    let root = corpus_root();
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap_or_else(|e| panic!("{}: {e}", root.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    dirs
}

fn pair_name(dir: &Path) -> String {
    dir.file_name().unwrap().to_string_lossy().into_owned()
}

/// The description on the first line of `old.c`, after the entry name.
fn pair_description(old_text: &str) -> String {
    let first = old_text.lines().next().unwrap_or("");
    first
        .trim()
        .trim_start_matches("/*")
        .trim_end_matches("*/")
        .trim()
        .to_string()
}

/// Pairs whose two versions must agree on every input (refactorings and identical copies).
fn declared_equivalent(description: &str) -> bool {
    description.contains("same semantics") || description.contains("identical versions")
}

fn ty_of(t: &CType) -> Option<Ty> {
    match t {
        CType::Bool => Some(Ty::Bool),
        CType::Int { bits, signed } if matches!(bits, 8 | 16 | 32 | 64) => Some(Ty::Int {
            bits: *bits,
            signed: *signed,
        }),
        CType::Float => Some(Ty::Float),
        CType::Double => Some(Ty::Double),
        _ => None,
    }
}

fn panic_text(p: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        s.to_string()
    } else if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else {
        "(non-string panic payload)".to_string()
    }
}

fn load(path: &Path) -> Result<GclProgram, String> {
    let opts = dizy::frontend::Options::default();
    match catch_unwind(AssertUnwindSafe(|| dizy::load_gcl(path, &opts))) {
        Ok(Ok(p)) => Ok(p),
        Ok(Err(e)) => Err(format!("load_gcl failed: {e}")),
        Err(p) => Err(format!("load_gcl panicked: {}", panic_text(&*p))),
    }
}

/// Parameter and return types of `entry` in `prog`.
fn signature(prog: &GclProgram, entry: &str) -> Result<(Vec<Ty>, Ty), String> {
    let func = prog
        .program
        .function(entry)
        .ok_or_else(|| format!("entry function `{entry}` not found by the frontend"))?;
    let mut params = Vec::new();
    for v in &func.params {
        let var = func.var(*v);
        params.push(
            ty_of(&var.ty).ok_or_else(|| {
                format!("parameter {} has unexpected type {:?}", var.name, var.ty)
            })?,
        );
    }
    let ret = ty_of(&func.ret).ok_or_else(|| format!("unexpected return type {:?}", func.ret))?;
    Ok((params, ret))
}

/// Load both versions of a pair and correlate them with default options.
fn correlate_pair(dir: &Path) -> Result<(String, Correlated), String> {
    let old_path = dir.join("old.c");
    let text = std::fs::read_to_string(&old_path).map_err(|e| format!("old.c: {e}"))?;
    let entry = corpus_entry(&text).ok_or("old.c: first line does not name the entry")?;
    let old = load(&old_path).map_err(|e| format!("old.c: {e}"))?;
    let new = load(&dir.join("new.c")).map_err(|e| format!("new.c: {e}"))?;
    let opts = dizy::correlate::Options::default();
    let c = match catch_unwind(AssertUnwindSafe(|| {
        dizy::correlate::correlate(&old, &new, &entry, &opts)
    })) {
        Ok(Ok(c)) => c,
        Ok(Err(e)) => return Err(format!("correlate failed: {e}")),
        Err(p) => return Err(format!("correlate panicked: {}", panic_text(&*p))),
    };
    Ok((entry, c))
}

// ---------------------------------------------------------------------------------------------
// Semantic preservation

#[derive(Default)]
struct PairReport {
    name: String,
    /// The pair is described as a refactoring or identical copy.
    equivalent: bool,
    checked: bool,
    compared: usize,
    /// Compared inputs on which the two versions' native results differ.
    differing: usize,
    excluded_native: usize,
    excluded_dizy: usize,
    /// Inputs where only dizy reported undefined behaviour (excluded by the rules, but listed).
    dizy_only_ub: Vec<String>,
    /// Per-input failures (mismatches, errors).
    failures: Vec<String>,
    /// Failures of the pair as a whole (load, correlate, oracle, exclusion rate); always shown.
    pair_failures: Vec<String>,
}

fn native_value(n: &Native) -> Option<Value> {
    match n {
        Native::Value(v) => Some(*v),
        Native::Ub(_) | Native::Crash(_) => None,
    }
}

fn show_native(n: &Native) -> String {
    match n {
        Native::Value(v) => v.to_string(),
        Native::Ub(m) => format!("UB ({m})"),
        Native::Crash(m) => format!("crash ({m})"),
    }
}

fn check_pair(dir: &Path, tmp: &Path) -> PairReport {
    let name = pair_name(dir);
    let mut rep = PairReport {
        name: name.clone(),
        ..Default::default()
    };
    let fail = |rep: &mut PairReport, msg: String| rep.pair_failures.push(format!("{name}: {msg}"));

    let old_path = dir.join("old.c");
    let new_path = dir.join("new.c");
    let old_text = match std::fs::read_to_string(&old_path) {
        Ok(t) => t,
        Err(e) => {
            fail(&mut rep, format!("cannot read old.c: {e}"));
            return rep;
        }
    };
    let Some(entry) = corpus_entry(&old_text) else {
        fail(
            &mut rep,
            "first line of old.c does not name the entry (/* entry: NAME — ... */)".into(),
        );
        return rep;
    };
    let description = pair_description(&old_text);
    rep.equivalent = declared_equivalent(&description);
    let (old, new) = match (load(&old_path), load(&new_path)) {
        (Ok(o), Ok(n)) => (o, n),
        (Err(e), _) => {
            fail(&mut rep, format!("old.c: {e}"));
            return rep;
        }
        (_, Err(e)) => {
            fail(&mut rep, format!("new.c: {e}"));
            return rep;
        }
    };
    let (params, ret) = match signature(&old, &entry) {
        Ok(s) => s,
        Err(e) => {
            fail(&mut rep, format!("old.c: {e}"));
            return rep;
        }
    };
    match signature(&new, &entry) {
        Ok((np, nr)) if np == params && nr == ret => {}
        Ok((np, nr)) => {
            fail(
                &mut rep,
                format!(
                    "corpus error: new signature {np:?} -> {nr:?} differs from old {params:?} -> {ret:?}"
                ),
            );
            return rep;
        }
        Err(e) => {
            fail(&mut rep, format!("new.c: {e}"));
            return rep;
        }
    }

    let inputs: Vec<Input> = gen_inputs(&params, INPUTS_PER_PAIR, fnv1a(&name));
    let work = tmp.join(&name);
    if let Err(e) = std::fs::create_dir_all(&work) {
        fail(&mut rep, format!("cannot create {}: {e}", work.display()));
        return rep;
    }
    let native_old = match run_native(&work, &old_path, &entry, &params, ret, &inputs) {
        Ok(n) => n,
        Err(e) => {
            fail(&mut rep, format!("native oracle failed on old.c: {e}"));
            return rep;
        }
    };
    let native_new = match run_native(&work, &new_path, &entry, &params, ret, &inputs) {
        Ok(n) => n,
        Err(e) => {
            fail(&mut rep, format!("native oracle failed on new.c: {e}"));
            return rep;
        }
    };

    let opts = dizy::correlate::Options::default();
    let c = match catch_unwind(AssertUnwindSafe(|| {
        dizy::correlate::correlate(&old, &new, &entry, &opts)
    })) {
        Ok(Ok(c)) => c,
        Ok(Err(e)) => {
            fail(&mut rep, format!("correlate failed: {e}"));
            return rep;
        }
        Err(p) => {
            fail(&mut rep, format!("correlate panicked: {}", panic_text(&*p)));
            return rep;
        }
    };

    for ((inp, nat_o), nat_n) in inputs.iter().zip(&native_old).zip(&native_new) {
        let call = format!("{name}: {entry}({})", inp.lits.join(", "));
        let natives = format!(
            "native old {}, new {}",
            show_native(nat_o),
            show_native(nat_n)
        );
        let got = match catch_unwind(AssertUnwindSafe(|| {
            dizy::interp::run_correlated(&c, &inp.lits, BUDGET)
        })) {
            Ok(r) => r,
            Err(p) => {
                rep.failures.push(format!(
                    "{call}: {natives}; run_correlated panicked: {}",
                    panic_text(&*p)
                ));
                continue;
            }
        };
        let (Some(exp_o), Some(exp_n)) = (native_value(nat_o), native_value(nat_n)) else {
            rep.excluded_native += 1;
            continue;
        };
        match got {
            Ok((text_o, text_n)) => {
                let parsed = (parse_dizy(&text_o, ret), parse_dizy(&text_n, ret));
                match parsed {
                    (Ok(vo), Ok(vn)) if vo.same(&exp_o) && vn.same(&exp_n) => {
                        rep.compared += 1;
                        if !exp_o.same(&exp_n) {
                            rep.differing += 1;
                        }
                        if declared_equivalent(&description) && !exp_o.same(&exp_n) {
                            rep.failures.push(format!(
                                "{call}: corpus error: pair is described as equivalent but \
                                 {natives}"
                            ));
                        }
                    }
                    (Ok(vo), Ok(vn)) => {
                        let wrong = match (vo.same(&exp_o), vn.same(&exp_n)) {
                            (false, false) => "both results wrong",
                            (false, true) => "old result wrong",
                            _ => "new result wrong",
                        };
                        rep.failures.push(format!(
                            "{call}: {natives}; dizy old {text_o}, new {text_n} ({wrong})"
                        ))
                    }
                    (Err(why), _) | (_, Err(why)) => rep.failures.push(format!(
                        "{call}: {natives}; dizy old {text_o:?}, new {text_n:?}: malformed output: {why}"
                    )),
                }
            }
            Err(RunError::Ub { msg, line, .. }) => {
                rep.excluded_dizy += 1;
                rep.dizy_only_ub
                    .push(format!("{call}: {natives}; dizy: UB at line {line}: {msg}"));
            }
            Err(e) => rep
                .failures
                .push(format!("{call}: {natives}; dizy error: {e}")),
        }
    }
    rep.checked = true;
    let excluded = rep.excluded_native + rep.excluded_dizy;
    if excluded * 100 > inputs.len() * MAX_EXCLUDED_PERCENT {
        rep.pair_failures.push(format!(
            "{name}: {excluded} of {} inputs excluded as undefined behaviour ({} natively, {} by \
             dizy only); more than {MAX_EXCLUDED_PERCENT}% means the pair or dizy's UB detection \
             needs fixing",
            inputs.len(),
            rep.excluded_native,
            rep.excluded_dizy
        ));
    }
    rep
}

#[test]
fn correlating_program_agrees_with_native_compiler() {
    let pairs = corpus_pairs();
    assert!(
        pairs.len() >= MIN_CORPUS,
        "correlate corpus has only {} pairs (need at least {MIN_CORPUS})",
        pairs.len()
    );
    let tmp = tempfile::tempdir().expect("temp dir");
    let next = AtomicUsize::new(0);
    let reports = Mutex::new(Vec::new());
    let workers = std::thread::available_parallelism()
        .map_or(2, |n| n.get())
        .clamp(1, 4);
    std::thread::scope(|s| {
        for _ in 0..workers {
            std::thread::Builder::new()
                // The recursive helper of one pair recurses in the interpreter.
                .stack_size(64 << 20)
                .spawn_scoped(s, || loop {
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    let Some(dir) = pairs.get(i) else { break };
                    let rep = check_pair(dir, tmp.path());
                    reports.lock().unwrap().push(rep);
                })
                .expect("spawn worker");
        }
    });
    let mut reports = reports.into_inner().unwrap();
    reports.sort_by(|a, b| a.name.cmp(&b.name));

    let checked = reports.iter().filter(|r| r.checked).count();
    let compared: usize = reports.iter().map(|r| r.compared).sum();
    let differing: usize = reports.iter().map(|r| r.differing).sum();
    let pairs_differing = reports.iter().filter(|r| r.differing > 0).count();
    let ex_native: usize = reports.iter().map(|r| r.excluded_native).sum();
    let ex_dizy: usize = reports.iter().map(|r| r.excluded_dizy).sum();
    let dizy_only: Vec<&String> = reports.iter().flat_map(|r| &r.dizy_only_ub).collect();
    if !dizy_only.is_empty() {
        eprintln!(
            "note: {} inputs where only dizy reported undefined behaviour (excluded):",
            dizy_only.len()
        );
        for l in dizy_only.iter().take(30) {
            eprintln!("  {l}");
        }
    }
    let unexercised: Vec<&str> = reports
        .iter()
        .filter(|r| r.checked && !r.equivalent && r.differing == 0)
        .map(|r| r.name.as_str())
        .collect();
    if !unexercised.is_empty() {
        eprintln!(
            "note: changed pairs whose versions agreed on every compared input: {}",
            unexercised.join(", ")
        );
    }
    let mut failures: Vec<String> = Vec::new();
    for r in &reports {
        failures.extend(r.pair_failures.iter().cloned());
        let n = r.failures.len();
        failures.extend(r.failures.iter().take(8).cloned());
        if n > 8 {
            failures.push(format!("{}: … and {} more failures", r.name, n - 8));
        }
    }
    if checked < MIN_PAIRS_CHECKED {
        failures.push(format!(
            "only {checked} pairs were checked (need at least {MIN_PAIRS_CHECKED})"
        ));
    }
    let n_failures: usize = reports
        .iter()
        .map(|r| r.failures.len() + r.pair_failures.len())
        .sum();
    eprintln!(
        "correlate_cc: {} pairs, {checked} checked, {compared} inputs compared ({differing} on \
         which the versions differ, in {pairs_differing} pairs), {} excluded as UB ({ex_native} \
         natively, {ex_dizy} by dizy only), {n_failures} failures",
        reports.len(),
        ex_native + ex_dizy,
    );
    assert!(
        failures.is_empty(),
        "the correlating program disagrees with the native compiler:\n{}",
        failures.join("\n")
    );
}

// ---------------------------------------------------------------------------------------------
// Structure of the product

fn text_at(c: &Correlated, pos: usize) -> String {
    let f = c.product();
    instr_text(f, &c.program.program, &f.instrs[pos].kind)
}

/// A readable listing for assertion messages.
fn listing(c: &Correlated) -> String {
    dizy::correlate::print_correlated(c)
}

fn pair_dir(name: &str) -> PathBuf {
    corpus_root().join(name)
}

fn correlated(name: &str) -> Correlated {
    correlate_pair(&pair_dir(name))
        .unwrap_or_else(|e| panic!("{name}: {e}"))
        .1
}

fn gcl_len(path: &Path, entry: &str) -> usize {
    load(path)
        .unwrap()
        .function(entry)
        .unwrap_or_else(|| panic!("{}: no `{entry}`", path.display()))
        .instrs
        .len()
}

/// Every instruction of each version occurs exactly once in the product (as an instruction whose
/// origin names it and is not a copy of a loop iteration), and in the version's own order;
/// copies repeat instructions of the version; origins cover the product.
#[test]
fn product_contains_each_version_once_in_order() {
    let mut failures = Vec::new();
    for dir in corpus_pairs() {
        let name = pair_name(&dir);
        let (entry, c) = match correlate_pair(&dir) {
            Ok(x) => x,
            Err(e) => {
                failures.push(format!("{name}: {e}"));
                continue;
            }
        };
        let n = c.product().instrs.len();
        if c.origins.len() != n {
            failures.push(format!(
                "{name}: {} origins for {n} product instructions",
                c.origins.len()
            ));
            continue;
        }
        for (side, file) in [(Side::Old, "old.c"), (Side::New, "new.c")] {
            let len = gcl_len(&dir.join(file), &entry);
            let srcs: Vec<usize> = c
                .origins
                .iter()
                .filter(|o| o.side == side && !o.copy)
                .filter_map(|o| o.src)
                .collect();
            if let Some(bad) = c
                .origins
                .iter()
                .filter(|o| o.side == side && o.copy)
                .find_map(|o| o.src.filter(|&i| i >= len))
            {
                failures.push(format!(
                    "{name}: a copy of {side:?} instruction {bad} of {len}"
                ));
            }
            let expected: Vec<usize> = (0..len).collect();
            if srcs != expected {
                failures.push(format!(
                    "{name}: {side:?} instructions in the product, by source index, are {srcs:?}; \
                     expected each of 0..{len} once, in order"
                ));
            }
        }
        for d in &c.diff_points {
            if d.pos.index() > n {
                failures.push(format!("{name}: diff point {} at {} > {n}", d.label, d.pos));
            }
        }
        if !c
            .diff_points
            .iter()
            .any(|d| d.kind == DiffKind::Exit && d.pos.index() == n)
        {
            failures.push(format!("{name}: no exit diff point at the end"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Identical versions without gotos: every instruction is matched, each matched pair is an old
/// instruction immediately followed by its tagged twin (same source index), and a converge point
/// follows every matched pair (after the loop-control glue that closes a matched loop).
/// Identical versions with gotos (`62_identical_goto`) are left out: the correlator may keep
/// code with jumps in coarser, unmatched blocks.
/// Where the product leaves an instruction unmatched, or a matched one without its twin and a
/// converge point after it: one message each, then the listing.
fn unmatched(name: &str, c: &Correlated) -> Vec<String> {
    let mut failures = Vec::new();
    let n = c.product().instrs.len();
    let mut pos = 0;
    while pos < n {
        let o = c.origin(Pos::new(pos));
        if o.side == Side::Glue {
            pos += 1;
            continue;
        }
        if !o.matched {
            failures.push(format!(
                "{name}: instruction {pos} ({:?} `{}`) is unmatched",
                o.side,
                text_at(c, pos)
            ));
            pos += 1;
            continue;
        }
        let twin = c.origins.get(Pos::new(pos + 1)).copied();
        match twin {
            Some(t)
                if o.side == Side::Old && t.side == Side::New && t.matched && t.src == o.src => {}
            _ => {
                failures.push(format!(
                    "{name}: matched {:?} instruction {pos} `{}` is not followed by its twin",
                    o.side,
                    text_at(c, pos)
                ));
                pos += 1;
                continue;
            }
        }
        if o.src.is_some() {
            // A converge point after the pair, possibly after loop-control glue.
            let mut q = pos + 2;
            while !c.converge.contains(&Pos::new(q))
                && q < n
                && c.origin(Pos::new(q)).side == Side::Glue
            {
                q += 1;
            }
            if !c.converge.contains(&Pos::new(q)) {
                failures.push(format!(
                    "{name}: no converge point after the matched pair at {pos} `{}` / `{}`",
                    text_at(c, pos),
                    text_at(c, pos + 1)
                ));
            }
        }
        pos += 2;
    }
    if !failures.is_empty() {
        failures.push(listing(c));
    }
    failures
}

#[test]
fn identical_versions_match_everywhere() {
    let mut failures = Vec::new();
    for name in [
        "60_identical_clamp",
        "61_identical_loops",
        "63_identical_double",
    ] {
        let dir = pair_dir(name);
        let old = std::fs::read(dir.join("old.c")).unwrap();
        let new = std::fs::read(dir.join("new.c")).unwrap();
        assert_eq!(old, new, "{name}: the versions must be textually identical");
        let c = correlated(name);
        assert!(
            c.renamed.is_empty(),
            "{name}: renames inferred: {:?}",
            c.renamed
        );
        failures.extend(unmatched(name, &c));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Locals renamed throughout (a shadowed one and a loop counter among them): the renames are
/// inferred from the code, and with them every instruction matches its twin, as for identical
/// versions. A rename given with `--map` is taken as given and not inferred again.
#[test]
fn renamed_locals_are_inferred_and_match_everywhere() {
    let name = "97_renamed_locals";
    let c = correlated(name);
    let pairs = |v: &[(String, String)]| -> Vec<String> {
        v.iter().map(|(o, n)| format!("{o}->{n}")).collect()
    };
    assert_eq!(
        pairs(&c.renamed),
        ["acc->sum", "bits->rest", "k->i", "acc2->mixed", "k#2->i#2"],
        "{}",
        listing(&c)
    );
    let failures = unmatched(name, &c);
    assert!(failures.is_empty(), "{}", failures.join("\n"));

    let dir = pair_dir(name);
    let (old, new) = (
        load(&dir.join("old.c")).unwrap(),
        load(&dir.join("new.c")).unwrap(),
    );
    let opts = dizy::correlate::Options {
        map: vec![("bits".into(), "rest".into())],
        ..Default::default()
    };
    let c = dizy::correlate::correlate(&old, &new, "fold", &opts).unwrap();
    assert_eq!(
        pairs(&c.renamed),
        ["acc->sum", "k->i", "acc2->mixed", "k#2->i#2"]
    );
    let failures = unmatched(name, &c);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The paper's `sign` pair: `g1 := x < 0` sits next to `g1' := x' < 0` as a matched pair; the
/// new `g2' := x' == 0` and `[g2'] sgn' := 0` are unmatched, placed after the matched
/// assignments `sgn := 1` / `sgn' := 1` and before the matched `retval` pair; the return is a
/// diff point comparing `retval`.
#[test]
fn sign_pair_interleaves_as_in_the_paper() {
    let c = correlated("01_sign_zero");
    let n = c.product().instrs.len();
    let texts: Vec<String> = (0..n).map(|p| text_at(&c, p)).collect();
    let find = |t: &str, side: Side| -> usize {
        (0..n)
            .find(|&p| texts[p] == t && c.origin(Pos::new(p)).side == side)
            .unwrap_or_else(|| panic!("no {side:?} `{t}` in\n{}", listing(&c)))
    };
    let g1 = find("g1 := x < 0", Side::Old);
    assert_eq!(
        texts[g1 + 1],
        "g1' := x' < 0",
        "twin not adjacent:\n{}",
        listing(&c)
    );
    assert!(c.origin(Pos::new(g1)).matched && c.origin(Pos::new(g1 + 1)).matched);
    assert_eq!(c.origin(Pos::new(g1 + 1)).side, Side::New);
    assert!(
        c.converge.contains(&Pos::new(g1 + 2)),
        "no converge after g1:\n{}",
        listing(&c)
    );

    let sgn1 = find("sgn := 1", Side::Old);
    assert_eq!(texts[sgn1 + 1], "sgn' := 1", "{}", listing(&c));
    assert!(c.origin(Pos::new(sgn1)).matched && c.origin(Pos::new(sgn1 + 1)).matched);

    let g2 = find("g2' := x' == 0", Side::New);
    assert!(
        !c.origin(Pos::new(g2)).matched,
        "the new test is matched:\n{}",
        listing(&c)
    );
    assert!(
        g2 > sgn1 + 1,
        "new test before the matched assignments:\n{}",
        listing(&c)
    );
    let sgn0 = find("sgn' := 0", Side::New);
    assert!(!c.origin(Pos::new(sgn0)).matched);
    assert!(sgn0 > g2);

    let rv = find("retval := sgn", Side::Old);
    assert!(
        rv > sgn0,
        "retval before the new assignment:\n{}",
        listing(&c)
    );
    assert_eq!(texts[rv + 1], "retval' := sgn'", "{}", listing(&c));
    assert!(c.origin(Pos::new(rv)).matched && c.origin(Pos::new(rv + 1)).matched);

    let ret = c
        .diff_points
        .iter()
        .find(|d| d.kind == DiffKind::Return)
        .unwrap_or_else(|| panic!("no return diff point:\n{}", listing(&c)));
    assert!(ret.pos.index() > rv + 1, "{}", listing(&c));
    let retval = c.old_retval.expect("sign returns a value");
    assert!(
        ret.pairs.iter().any(|&k| c.pairs[k].old == retval),
        "the return diff point does not compare retval:\n{}",
        listing(&c)
    );
}

/// The DIZY appendix buffer example: the changed clamps `n := 41` (old) and `n' := 40` (new) are
/// unmatched and adjacent in the product, and the loops that follow are matched.
#[test]
fn buffer_example_changed_clamps_are_adjacent() {
    let c = correlated("02_buffer_bound");
    let n = c.product().instrs.len();
    let texts: Vec<String> = (0..n).map(|p| text_at(&c, p)).collect();
    let find = |t: &str, side: Side| -> usize {
        (0..n)
            .find(|&p| texts[p] == t && c.origin(Pos::new(p)).side == side)
            .unwrap_or_else(|| panic!("no {side:?} `{t}` in\n{}", listing(&c)))
    };
    let old = find("n := 41", Side::Old);
    let new = find("n' := 40", Side::New);
    assert_eq!(
        old.abs_diff(new),
        1,
        "changed assignments not adjacent:\n{}",
        listing(&c)
    );
    assert!(!c.origin(Pos::new(old)).matched && !c.origin(Pos::new(new)).matched);
    let inc = find("i := i + 1", Side::Old);
    assert_eq!(texts[inc + 1], "i' := i' + 1", "{}", listing(&c));
    assert!(
        c.origin(Pos::new(inc)).matched,
        "loop bodies not matched:\n{}",
        listing(&c)
    );
}

// ---------------------------------------------------------------------------------------------
// CLI

fn cli_run(pair: &str, entry: &str, args: &[&str]) -> String {
    let dir = pair_dir(pair);
    let out = run_with_timeout(
        Command::new(env!("CARGO_BIN_EXE_dizy"))
            .arg("correlate")
            .arg(dir.join("old.c"))
            .arg(dir.join("new.c"))
            .args(["--function", entry, "--run"])
            .args(args),
        None,
        Duration::from_secs(60),
    );
    assert_eq!(
        out.code(),
        Some(0),
        "dizy correlate {pair} --run {args:?} failed: {}",
        out.stderr
    );
    out.stdout
}

#[test]
fn cli_correlate_run_prints_both_results() {
    assert_eq!(cli_run("01_sign_zero", "sign", &["0"]), "old: 1\nnew: 0\n");
    assert_eq!(
        cli_run("01_sign_zero", "sign", &["-7"]),
        "old: -1\nnew: -1\n"
    );
    assert_eq!(
        cli_run("02_buffer_bound", "foo", &["100"]),
        "old: 41\nnew: 40\n"
    );
    assert_eq!(
        cli_run("02_buffer_bound", "foo", &["-5"]),
        "old: 0\nnew: 0\n"
    );
    assert_eq!(
        cli_run("38_and_to_or", "in_range", &["-5", "3", "1"]),
        "old: 0\nnew: 1\n"
    );
    assert_eq!(
        cli_run("57_while_to_dowhile", "nbits", &["0"]),
        "old: 0\nnew: 1\n"
    );
    assert_eq!(
        cli_run("72_double_clamp_nan", "saturate", &["0.9995"]),
        "old: 0.9995\nnew: 0.75\n"
    );
}

/// `Options::map` pairs renamed variables (`ok` in the old version, `good` in the new one) for the
/// analysis, as the inferred renames do without it, and neither changes what the product
/// computes: on every input the results with and without the map are those of the interpreter
/// run on each version alone.
#[test]
fn map_pairs_renamed_variables_without_changing_results() {
    let dir = pair_dir("66_refactor_demorgan");
    let old = load(&dir.join("old.c")).unwrap();
    let new = load(&dir.join("new.c")).unwrap();
    let plain = dizy::correlate::correlate(&old, &new, "valid", &Default::default()).unwrap();
    let opts = dizy::correlate::Options {
        map: vec![("ok".to_string(), "good".to_string())],
        ..Default::default()
    };
    let mapped = dizy::correlate::correlate(&old, &new, "valid", &opts).unwrap();
    let names = |c: &Correlated| -> Vec<(String, String)> {
        let f = c.product();
        c.pairs
            .iter()
            .map(|p| {
                (
                    f.func.var(p.old).name.clone(),
                    f.func.var(p.new).name.clone(),
                )
            })
            .collect()
    };
    let ok_pair = ("ok".to_string(), "good'".to_string());
    assert!(
        names(&mapped).contains(&ok_pair),
        "with --map ok=good, pairs are {:?}",
        names(&mapped)
    );
    // Without the map the rename is inferred from the code; with it, it is the user's.
    assert!(
        names(&plain).contains(&ok_pair),
        "without a map, `ok` should be paired by inference, but pairs are {:?}",
        names(&plain)
    );
    assert_eq!(plain.renamed, [("ok".to_string(), "good".to_string())]);
    assert!(mapped.renamed.is_empty(), "{:?}", mapped.renamed);
    let (params, _) = signature(&old, "valid").unwrap();
    for inp in gen_inputs(&params, 200, fnv1a("map")) {
        let want_o = dizy::interp::run_literals(&old, "valid", &inp.lits, BUDGET)
            .unwrap()
            .0;
        let want_n = dizy::interp::run_literals(&new, "valid", &inp.lits, BUDGET)
            .unwrap()
            .0;
        for c in [&plain, &mapped] {
            let got = dizy::interp::run_correlated(c, &inp.lits, BUDGET).unwrap();
            assert_eq!(
                got,
                (want_o.clone(), want_n.clone()),
                "valid({})",
                inp.lits.join(", ")
            );
        }
    }
}
