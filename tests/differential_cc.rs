//! Differential test of the concrete interpreter against the system C compiler.
//!
//! For every corpus file `tests/corpus/interp/*.c` (entry function named on its first line,
//! `/* entry: NAME */`), this test generates a few hundred reproducible inputs (fixed-seed
//! xorshift: boundary values, small values and random values by parameter type, spelled as varied C
//! literals), runs the entry function
//!
//! * natively: a generated harness `#include`s the corpus file, is compiled by `cc -std=gnu11 -O0
//!   -fsanitize=undefined,float-cast-overflow` and runs every input in a forked child (so globals
//!   start fresh, as in a separate interpreter run) with UBSan in recover mode;
//! * in dizy: `dizy::load_gcl` once per file, then `dizy::interp::run_literals` per input.
//!
//! The oracle is the compiled code: wherever UBSan reports nothing and the interpreter does not
//! report undefined behaviour, the interpreter's return value must equal the native one exactly
//! (integers as numbers, floating values bit for bit with NaN equal to NaN). Inputs are excluded
//! when UBSan flags them or the interpreter reports `Ub`; any other interpreter error (budget,
//! unsupported, bad arguments, load error, panic) is a failure. The test also fails when fewer than
//! 40 corpus functions were checked or when more than 20% of one function's inputs were excluded.

mod common;

use common::{corpus_entry, fnv1a, gen_inputs, parse_dizy, run_native, Input, Native, Ty, Value};
use dizy::interp::RunError;
use dizy::ir::CType;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

const INPUTS_PER_FUNCTION: usize = 240;
const BUDGET: u64 = 10_000_000;
const MIN_FUNCTIONS: usize = 40;
const MAX_EXCLUDED_PERCENT: usize = 20;

#[derive(Default)]
struct FileReport {
    name: String,
    /// Whether the function was loaded and its inputs compared.
    checked: bool,
    compared: usize,
    excluded_native: usize,
    excluded_dizy: usize,
    /// Inputs where only dizy reported undefined behaviour (native ran cleanly): suspicious, but
    /// excluded by the rules; listed for the interpreter's owners.
    dizy_only_ub: Vec<String>,
    failures: Vec<String>,
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

fn show_args(inp: &Input) -> String {
    format!("({})", inp.lits.join(", "))
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

fn check_file(path: &Path, tmp: &Path) -> FileReport {
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    let mut rep = FileReport {
        name: name.clone(),
        ..Default::default()
    };
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) => {
            rep.failures.push(format!("{name}: cannot read: {e}"));
            return rep;
        }
    };
    let Some(entry) = corpus_entry(&text) else {
        rep.failures.push(format!(
            "{name}: first line does not name the entry (/* entry: NAME */)"
        ));
        return rep;
    };
    let opts = dizy::frontend::Options::default();
    let prog = match catch_unwind(AssertUnwindSafe(|| dizy::load_gcl(path, &opts))) {
        Ok(Ok(p)) => p,
        Ok(Err(e)) => {
            rep.failures.push(format!("{name}: load_gcl failed: {e}"));
            return rep;
        }
        Err(p) => {
            rep.failures
                .push(format!("{name}: load_gcl panicked: {}", panic_text(&*p)));
            return rep;
        }
    };
    let Some(func) = prog.program.function(&entry) else {
        rep.failures.push(format!(
            "{name}: entry function `{entry}` not found by the frontend"
        ));
        return rep;
    };
    let mut params = Vec::new();
    for v in &func.params {
        let var = func.var(*v);
        match ty_of(&var.ty) {
            Some(t) => params.push(t),
            None => {
                rep.failures.push(format!(
                    "{name}: parameter {} has unexpected type {:?}",
                    var.name, var.ty
                ));
                return rep;
            }
        }
    }
    let Some(ret) = ty_of(&func.ret) else {
        rep.failures
            .push(format!("{name}: unexpected return type {:?}", func.ret));
        return rep;
    };

    let inputs = gen_inputs(&params, INPUTS_PER_FUNCTION, fnv1a(&name));
    let native = match run_native(tmp, path, &entry, &params, ret, &inputs) {
        Ok(n) => n,
        Err(e) => {
            rep.failures
                .push(format!("{name}: native oracle failed: {e}"));
            return rep;
        }
    };

    for (inp, nat) in inputs.iter().zip(&native) {
        let call = format!("{name}: {entry}{}", show_args(inp));
        let got = catch_unwind(AssertUnwindSafe(|| {
            dizy::interp::run_literals(&prog, &entry, &inp.lits, BUDGET)
        }));
        let got = match got {
            Ok(r) => r,
            Err(p) => {
                rep.failures
                    .push(format!("{call}: interpreter panicked: {}", panic_text(&*p)));
                continue;
            }
        };
        let expected: Value = match nat {
            Native::Value(v) => *v,
            Native::Ub(_) | Native::Crash(_) => {
                rep.excluded_native += 1;
                continue;
            }
        };
        match got {
            Ok((text, _outcome)) => match parse_dizy(&text, ret) {
                Ok(v) if v.same(&expected) => rep.compared += 1,
                Ok(v) => rep
                    .failures
                    .push(format!("{call}: native {expected}, dizy {text} (= {v})")),
                Err(why) => rep.failures.push(format!(
                    "{call}: native {expected}, dizy output malformed: {why}"
                )),
            },
            Err(RunError::Ub { msg, line, .. }) => {
                rep.excluded_dizy += 1;
                rep.dizy_only_ub.push(format!(
                    "{call}: native {expected}, dizy: UB at line {line:?}: {msg}"
                ));
            }
            Err(e) => rep
                .failures
                .push(format!("{call}: native {expected}, dizy error: {e:?}")),
        }
    }
    rep.checked = true;
    let excluded = rep.excluded_native + rep.excluded_dizy;
    if excluded * 100 > inputs.len() * MAX_EXCLUDED_PERCENT {
        rep.failures.push(format!(
            "{name}: {excluded} of {} inputs excluded as undefined behaviour ({} by UBSan, {} by dizy); \
             more than {MAX_EXCLUDED_PERCENT}% means the corpus function or the interpreter's UB \
             detection needs fixing",
            inputs.len(),
            rep.excluded_native,
            rep.excluded_dizy
        ));
    }
    rep
}

fn corpus_files() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus/interp");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "c"))
        .collect();
    files.sort();
    files
}

#[test]
fn interpreter_agrees_with_native_compiler() {
    let files = corpus_files();
    assert!(files.len() >= 45, "corpus has only {} files", files.len());
    let tmp = tempfile::tempdir().expect("temp dir");
    let next = AtomicUsize::new(0);
    let reports = Mutex::new(Vec::new());
    let workers = std::thread::available_parallelism()
        .map_or(2, |n| n.get())
        .clamp(1, 4);
    std::thread::scope(|s| {
        for _ in 0..workers {
            std::thread::Builder::new()
                // Recursive corpus functions may recurse a few hundred levels in the interpreter.
                .stack_size(64 << 20)
                .spawn_scoped(s, || loop {
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    let Some(f) = files.get(i) else { break };
                    let rep = check_file(f, tmp.path());
                    reports.lock().unwrap().push(rep);
                })
                .expect("spawn worker");
        }
    });
    let mut reports = reports.into_inner().unwrap();
    reports.sort_by(|a, b| a.name.cmp(&b.name));

    let checked = reports.iter().filter(|r| r.checked).count();
    let compared: usize = reports.iter().map(|r| r.compared).sum();
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
    let mut failures: Vec<String> = Vec::new();
    for r in &reports {
        let n = r.failures.len();
        failures.extend(r.failures.iter().take(8).cloned());
        if n > 8 {
            failures.push(format!("{}: … and {} more failures", r.name, n - 8));
        }
    }
    if checked < MIN_FUNCTIONS {
        failures.push(format!(
            "only {checked} corpus functions were checked (need at least {MIN_FUNCTIONS})"
        ));
    }
    eprintln!(
        "differential_cc: {} files, {checked} functions checked, {compared} inputs compared, \
         {} excluded as UB ({ex_native} by UBSan, {ex_dizy} by dizy only), {} failures",
        reports.len(),
        ex_native + ex_dizy,
        failures.len()
    );
    assert!(
        failures.is_empty(),
        "interpreter disagrees with the native compiler:\n{}",
        failures.join("\n")
    );
}
