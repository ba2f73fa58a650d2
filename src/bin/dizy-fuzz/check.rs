//! The checks on one generated pair: run dizy, run the native oracle, compare.
//!
//! Takes both versions and a work directory; gives a [`PairResult`]: dizy's verdict on `f`, the
//! oracle's ground truth ("different" when some UB-free input gives a different observable
//! behaviour, a termination difference included) and the failures found — unsound
//! (`equivalent`/`unchanged` although the oracle saw a difference; `partially-equivalent`
//! although the versions differ on an input where both terminate), false witness (a `different`
//! whose witness input does not differ natively, has UB natively, or whose claimed results are
//! not the native ones), crash (panic, signal, no report, `error` or `unsupported` verdict on
//! generated code — but `unsupported` is expected, and no claim, for a function holding a
//! statement expression that control may leave, which dizy rejects), hang (killed past `--timeout`), nondeterminism (two runs disagree). Witness
//! inputs and the diff points' seeds are run first, so they are never skipped. Called by `main`
//! for every pair and by `minimize` for every candidate.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use serde_json::Value as Json;

use crate::ast::{Program, Ty, MAIN};
use crate::gen::Rng;
use crate::oracle::{self, Input, Obs, Run};

pub struct Config {
    pub dizy: PathBuf,
    /// dizy's `--timeout` (seconds per function).
    pub timeout: f64,
    /// Oracle inputs per pair (before witness and seed inputs).
    pub inputs: usize,
    /// Run the oracle only where dizy claims something (equivalent, unchanged, partially
    /// equivalent, different): what soundness needs, and faster for long runs.
    pub claims_only: bool,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Failure {
    Unsound {
        verdict: String,
        input: String,
        obs: String,
    },
    FalseWitness(String),
    Crash(String),
    Hang,
    Nondeterministic(String),
    /// The fuzzer's own harness failed: a bug of the fuzzer, never blamed on dizy.
    Oracle(String),
}

impl Failure {
    /// Category used by the minimizer (the failure must keep its category while shrinking).
    pub fn category(&self) -> &'static str {
        match self {
            Failure::Unsound { .. } => "unsound",
            Failure::FalseWitness(_) => "false-witness",
            Failure::Crash(_) => "crash",
            Failure::Hang => "hang",
            Failure::Nondeterministic(_) => "nondeterministic",
            Failure::Oracle(_) => "oracle",
        }
    }
    /// The category refined by what was seen: an unsound verdict on a termination difference
    /// or on a value difference; a false witness with no native difference, with other values
    /// than claimed, with undefined behaviour, or about termination.
    pub fn class(&self) -> String {
        let sub = match self {
            Failure::Unsound { obs, .. } => {
                if obs.contains("does not terminate") {
                    "termination"
                } else {
                    "value"
                }
            }
            Failure::FalseWitness(m) => {
                if m.contains("no difference natively") {
                    "no-difference"
                } else if m.contains("not as claimed") {
                    "claim"
                } else if m.contains("undefined behaviour") {
                    "ub"
                } else if m.contains("terminate") {
                    "termination"
                } else {
                    "missing"
                }
            }
            _ => return self.category().to_string(),
        };
        format!("{}/{sub}", self.category())
    }
    pub fn describe(&self) -> String {
        match self {
            Failure::Unsound {
                verdict,
                input,
                obs,
            } => {
                format!("unsound: dizy says {verdict}, native run on input {input}: {obs}")
            }
            Failure::FalseWitness(m) => format!("false witness: {m}"),
            Failure::Crash(m) => format!("crash: {m}"),
            Failure::Hang => {
                "hang: dizy killed at twice its --timeout (per changed function) plus its preprocessing bound per file plus 10 s".into()
            }
            Failure::Nondeterministic(m) => format!("nondeterministic: {m}"),
            Failure::Oracle(m) => format!("oracle error: {m}"),
        }
    }
}

#[derive(Clone, Debug, Default)]
pub struct PairResult {
    /// dizy's verdict on `f` (empty when there was no report).
    pub verdict: String,
    /// Some UB-free input distinguishes the versions natively.
    pub truth_differs: bool,
    /// Inputs that ran without UB in both versions (or did not terminate in one or both).
    pub valid_inputs: usize,
    /// Inputs on which exactly one version did not terminate.
    pub hang_inputs: usize,
    pub failures: Vec<Failure>,
    /// The first natively distinguishing input, kept for minimization.
    pub diff_input: Option<Input>,
    /// What the oracle saw on it.
    pub diff_obs: Option<String>,
    pub dizy_ms: u128,
    /// dizy finished more than a second after its total timeout (informational, not a failure).
    pub late: bool,
    /// The oracle did not run (`--claims-only` and no claim to check).
    pub oracle_skipped: bool,
    /// dizy's witness could not be given to the harness exactly (see
    /// `oracle::input_from_witness`), so it was not checked.
    pub unchecked_witness: bool,
}

/// dizy's report, or the failure that prevented one.
fn run_dizy(cfg: &Config, dir: &Path, nfuncs: usize) -> Result<Json, Failure> {
    let mut cmd = Command::new(&cfg.dizy);
    cmd.current_dir(dir).args([
        "diff",
        "old.c",
        "new.c",
        "--format",
        "json",
        "--timeout",
        &cfg.timeout.to_string(),
    ]);
    // Each changed function has its own timeout, and each of the two files its preprocessing
    // bound (dizy's `RunLimits::preprocess`). dizy checks its clock between steps and can
    // overrun by a second or two, and a loaded machine stretches that: only a run far past
    // the total budget is a hang.
    let pp = dizy::limits::RunLimits::new(Some(Duration::from_secs_f64(cfg.timeout)), None)
        .preprocess
        .as_secs_f64();
    let limit = Duration::from_secs_f64(2.0 * pp + 2.0 * cfg.timeout * nfuncs as f64 + 10.0);
    let o = oracle::run(&mut cmd, b"", limit)
        .map_err(|e| Failure::Oracle(format!("cannot run {}: {e}", cfg.dizy.display())))?;
    if o.killed {
        return Err(Failure::Hang);
    }
    let tail = |s: &str| s.lines().rev().take(3).collect::<Vec<_>>().join(" | ");
    if o.stderr.contains("panicked") {
        return Err(Failure::Crash(format!("panic: {}", tail(&o.stderr))));
    }
    let code = o.status.and_then(|s| s.code());
    if !matches!(code, Some(0..=2)) {
        return Err(Failure::Crash(format!(
            "exit status {:?}: {}",
            o.status,
            tail(&o.stderr)
        )));
    }
    serde_json::from_str(&o.stdout).map_err(|_| {
        Failure::Crash(format!(
            "no JSON report (exit {code:?}): {}",
            tail(&o.stderr)
        ))
    })
}

/// The report without timings, for the determinism check.
fn normalized(mut j: Json) -> Json {
    fn strip(j: &mut Json) {
        match j {
            Json::Object(m) => {
                m.remove("time_ms");
                m.values_mut().for_each(strip);
            }
            Json::Array(a) => a.iter_mut().for_each(strip),
            _ => {}
        }
    }
    strip(&mut j);
    j
}

/// Write both versions into `dir` (created if needed).
pub fn write_pair(dir: &Path, old: &Program, new: &Program) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    std::fs::write(dir.join("old.c"), old.print())?;
    std::fs::write(dir.join("new.c"), new.print())
}

/// Check one pair in `dir` (created if needed). `seed` fixes the oracle inputs; `extra` are
/// inputs to try as well; `twice` runs dizy a second time to check determinism.
pub fn check_pair(
    cfg: &Config,
    old: &Program,
    new: &Program,
    dir: &Path,
    seed: u64,
    extra: &[Input],
    twice: bool,
) -> PairResult {
    let mut r = PairResult::default();
    if let Err(e) = write_pair(dir, old, new) {
        r.failures.push(Failure::Oracle(format!(
            "cannot write {}: {e}",
            dir.display()
        )));
        return r;
    }
    let nfuncs = 1 + old.helpers.len().max(new.helpers.len());
    let start = std::time::Instant::now();
    let report = match run_dizy(cfg, dir, nfuncs) {
        Ok(j) => j,
        Err(f) => {
            r.failures.push(f);
            return r;
        }
    };
    r.dizy_ms = start.elapsed().as_millis();
    r.late = r.dizy_ms as f64 > (cfg.timeout * nfuncs as f64 + 1.0) * 1000.0;
    let funcs = report["functions"].as_array().cloned().unwrap_or_default();
    let mut any_timeout = false;
    for f in &funcs {
        let v = f["verdict"].as_str().unwrap_or("");
        any_timeout |= v == "timeout";
        // everything generated is lowerable, statement expressions left by `return`, `break`
        // or `continue` included
        if v == "error" || v == "unsupported" {
            r.failures.push(Failure::Crash(format!(
                "function {}: {v}: {}",
                f["name"].as_str().unwrap_or("?"),
                f["notes"]
            )));
        }
    }
    let Some(fr) = funcs.iter().find(|f| f["name"] == MAIN) else {
        r.failures.push(Failure::Crash(format!(
            "no verdict for `{MAIN}` in the report"
        )));
        return r;
    };
    r.verdict = fr["verdict"].as_str().unwrap_or("").to_string();

    if twice {
        if let Ok(again) = run_dizy(cfg, dir, nfuncs) {
            // A function that timed out, or whose analysis fell back to cheaper settings in the
            // time left (`dizy::diff::FALLBACK_NOTE`), has a report that depends on the
            // machine's load.
            let load_dependent = |j: &Json| {
                j["functions"].as_array().is_some_and(|a| {
                    a.iter().any(|f| {
                        f["verdict"] == "timeout"
                            || f["notes"].as_array().is_some_and(|n| {
                                n.iter().any(|t| {
                                    t.as_str()
                                        .is_some_and(|t| t.starts_with(dizy::diff::FALLBACK_NOTE))
                                })
                            })
                    })
                })
            };
            let again_timeout = load_dependent(&again) || load_dependent(&report);
            // A timeout depends on the machine's load, not on dizy's logic; so does which step
            // of a slow witness search (its steps have deadlines: smt gets 3 of its 5 s) found
            // the witness. For runs that slow (a second already: on a loaded machine a 1.9 s
            // search gave another witness than the same search alone), only whether each
            // function was proved must agree.
            let searched_long = |j: &Json| {
                j["functions"].as_array().is_some_and(|a| {
                    a.iter()
                        .any(|f| f["time_ms"].as_u64().is_some_and(|t| t >= 1000))
                })
            };
            let proved = |j: &Json| -> Vec<(String, bool)> {
                j["functions"].as_array().map_or(vec![], |a| {
                    a.iter()
                        .map(|f| {
                            let v = f["verdict"].as_str().unwrap_or("");
                            (
                                f["name"].to_string(),
                                matches!(v, "equivalent" | "unchanged" | "partially-equivalent"),
                            )
                        })
                        .collect()
                })
            };
            let differs = if searched_long(&again) || searched_long(&report) {
                proved(&again) != proved(&report)
            } else {
                normalized(again) != normalized(report.clone())
            };
            if !any_timeout && !again_timeout && differs {
                r.failures.push(Failure::Nondeterministic(
                    "two runs on the same pair gave different reports".into(),
                ));
            }
        }
    }

    // Claims on changed recursive helpers (proved by induction on the recursion) are checked
    // on a grid of their own inputs.
    for f in &funcs {
        let name = f["name"].as_str().unwrap_or("");
        let v = f["verdict"].as_str().unwrap_or("");
        if name.starts_with("rec") && matches!(v, "equivalent" | "partially-equivalent") {
            if let Some(obs) = oracle::recursive_helper_differs(dir, old, new, name) {
                r.failures.push(Failure::Unsound {
                    verdict: format!("{v} (on {name})"),
                    input: String::new(),
                    obs,
                });
            }
        }
    }

    let claims = matches!(
        r.verdict.as_str(),
        "equivalent" | "unchanged" | "partially-equivalent" | "different"
    );
    if cfg.claims_only && !claims {
        r.oracle_skipped = true;
        return r;
    }

    // The oracle's inputs: the extra ones, the witness and the differing states' seeds first
    // (never skipped), then those fixed by the seed.
    let mut inputs: Vec<Input> = extra.to_vec();
    let witness = fr["witness"].as_object().cloned();
    let witness_at = witness.as_ref().and_then(|w| {
        let inp = oracle::input_from_witness(old, w)?;
        inputs.push(inp);
        Some(inputs.len() - 1)
    });
    for p in fr["diff_points"].as_array().into_iter().flatten() {
        for d in p["different"].as_array().into_iter().flatten() {
            if let Some(s) = d["seed"].as_object() {
                if let Some(inp) = oracle::input_from_literals(old, s) {
                    inputs.push(inp);
                }
            }
        }
    }
    let priority = inputs.len();
    inputs.extend(oracle::inputs(old, &mut Rng::new(seed), cfg.inputs));
    let obs = match oracle::compile(dir, old, new)
        .and_then(|exe| oracle::execute(&exe, &inputs, priority))
    {
        Ok(o) => o,
        Err(e) => {
            r.failures.push(Failure::Oracle(e));
            return r;
        }
    };
    r.valid_inputs = obs
        .iter()
        .filter(|o| !matches!(o, Obs::Ub { .. } | Obs::Skipped))
        .count();
    r.hang_inputs = obs
        .iter()
        .filter(|o| matches!(o, Obs::OneHangs { .. }))
        .count();
    // prefer a difference on which both terminate (it also refutes partial equivalence)
    let first = obs
        .iter()
        .position(Obs::differs_terminating)
        .or_else(|| obs.iter().position(Obs::differs));
    if let Some(k) = first {
        r.truth_differs = true;
        r.diff_input = Some(inputs[k].clone());
        r.diff_obs = Some(obs[k].describe());
        let unsound = match r.verdict.as_str() {
            "equivalent" | "unchanged" => true,
            "partially-equivalent" => obs[k].differs_terminating(),
            _ => false,
        };
        if unsound {
            r.failures.push(Failure::Unsound {
                verdict: r.verdict.clone(),
                input: oracle::show_input(old, &inputs[k]),
                obs: obs[k].describe(),
            });
        }
    }
    if r.verdict == "different" {
        match (witness_at, &witness) {
            (Some(k), Some(w)) => {
                // A witness that chose values for the missing header's names holds for those:
                // run it so.
                let chosen = match witness_with_constants(dir, old, new, w, &inputs[k]) {
                    Ok(o) => o,
                    Err(e) => {
                        r.failures.push(Failure::Oracle(e));
                        return r;
                    }
                };
                let o = chosen.as_ref().unwrap_or(&obs[k]);
                if let Some(m) = witness_problem(old, new, w, &inputs[k], o) {
                    r.failures.push(Failure::FalseWitness(m));
                }
            }
            // a witness whose buffers the harness cannot give exactly (larger than a parameter's
            // capacity, bytes after a string's end, structs): counted, not checked
            (None, Some(_)) => r.unchecked_witness = true,
            _ => r.failures.push(Failure::FalseWitness(
                "verdict different without a witness".into(),
            )),
        }
    }
    r
}

/// The native behaviour on witness input `input` with the values the witness chose for the
/// missing header's names (its `constants`), where it chose any that differ from the program's.
fn witness_with_constants(
    dir: &Path,
    old: &Program,
    new: &Program,
    w: &serde_json::Map<String, Json>,
    input: &Input,
) -> Result<Option<Obs>, String> {
    let Some(chosen) = w.get("constants").and_then(Json::as_object) else {
        return Ok(None);
    };
    let with = |p: &Program| {
        let mut p = p.clone();
        for (n, v) in p.config.iter_mut() {
            if let Some(x) = chosen.get(n.as_str()).and_then(Json::as_str) {
                if let Ok(x) = x.parse::<i64>() {
                    *v = x;
                }
            }
        }
        p
    };
    let (o2, n2) = (with(old), with(new));
    if o2.config == old.config {
        return Ok(None);
    }
    let sub = dir.join("chosen-constants");
    std::fs::create_dir_all(&sub).map_err(|e| format!("cannot create {}: {e}", sub.display()))?;
    let exe = oracle::compile(&sub, &o2, &n2)?;
    let obs = oracle::execute(&exe, std::slice::from_ref(input), 1)?;
    Ok(obs.into_iter().next())
}

/// The type of what `key` names in a behaviour of `p`: the return value or an observed object.
fn claim_ty(p: &Program, key: &str) -> Option<Ty> {
    if key == "return" {
        return Some(p.main.ret.clone());
    }
    p.observed_objects("")
        .into_iter()
        .find(|o| o.0 == key)
        .map(|o| o.2)
}

/// Whether dizy's literal `claim` and the harness's canonical `native` text are different
/// values of type `t` (`None`: cannot tell).
fn claim_differs(t: &Ty, claim: &str, native: &str) -> Option<bool> {
    if t.is_float() {
        let (mut c, mut n) = (oracle::parse_float(claim)?, oracle::parse_float(native)?);
        if *t == Ty::F32 {
            // A `float` literal denotes the nearest `float` (`10000001000.0f` is 10000001024).
            (c, n) = (f64::from(c as f32), f64::from(n as f32));
        }
        Some(!oracle::float_eq(c, n))
    } else if t.is_int() {
        let (c, n) = (
            oracle::parse_literal(claim)?,
            oracle::parse_literal(native)?,
        );
        Some(c != n)
    } else {
        None
    }
}

/// Why a witness does not hold natively, if it does not.
fn witness_problem(
    old: &Program,
    new: &Program,
    w: &serde_json::Map<String, Json>,
    input: &Input,
    obs: &Obs,
) -> Option<String> {
    let shown = oracle::show_input(old, input);
    let claimed = |side: &str| {
        w.get(side)
            .and_then(Json::as_object)
            .cloned()
            .unwrap_or_default()
    };
    let claim_text = format!("dizy claims old {}, new {}", w["old"], w["new"]);
    // dizy may claim that one version accesses memory it may not (`undefined_behaviour`):
    // that version must have undefined behaviour natively, the other none.
    let undefined = |side: &str| claimed(side).contains_key("undefined_behaviour");
    let runs: (Option<&Run>, Option<&Run>) = match obs {
        Obs::Ub { old: o, new: n } if (*o, *n) == (undefined("old"), undefined("new")) => {
            return None
        }
        Obs::Ub { .. } => {
            return Some(format!(
                "witness input {shown} has undefined behaviour natively ({}); {claim_text}",
                obs.describe()
            ))
        }
        _ if undefined("old") || undefined("new") => {
            return Some(format!(
                "witness input {shown}: dizy claims undefined behaviour, natively {}; {claim_text}",
                obs.describe()
            ))
        }
        Obs::Skipped => return None,
        Obs::BothHang => {
            return Some(format!(
                "witness input {shown}: neither version terminates natively; {claim_text}"
            ))
        }
        Obs::OneHangs { old_hangs, other } => {
            // a non-termination witness is valid when the version dizy says does not stop is
            // the one that does not stop natively; a claimed return value for it is not
            let side = if *old_hangs { "old" } else { "new" };
            let p = if *old_hangs { old } else { new };
            let c = claimed(side);
            if let Some(ret) = c.get("return").and_then(Json::as_str) {
                if claim_ty(p, "return").is_some_and(|t| claim_differs(&t, ret, "0").is_some()) {
                    return Some(format!(
                        "witness input {shown}: the {side} version does not terminate natively, \
                         dizy claims it returns {ret}"
                    ));
                }
            }
            if *old_hangs {
                (None, Some(other))
            } else {
                (Some(other), None)
            }
        }
        Obs::Ran(a, b) => {
            if oracle::run_difference(a, b).is_none() {
                return Some(format!(
                    "witness input {shown}: no difference natively (both return {}); {claim_text}",
                    a.ret
                ));
            }
            (Some(a), Some(b))
        }
    };
    let mut wrong = vec![];
    for (side, run, p) in [("old", runs.0, old), ("new", runs.1, new)] {
        let Some(run) = run else { continue };
        for (key, v) in claimed(side) {
            let Some(c) = v.as_str() else { continue };
            if key == "output" {
                let native = String::from_utf8_lossy(&run.out);
                if c != native {
                    wrong.push(format!(
                        "{side} prints {native:?} natively, dizy claims {c:?}"
                    ));
                }
                continue;
            }
            let native = if key == "return" {
                Some(&run.ret)
            } else {
                run.fin.get(&key)
            };
            let (Some(native), Some(t)) = (native, claim_ty(p, &key)) else {
                continue;
            };
            if claim_differs(&t, c, native) == Some(true) {
                wrong.push(format!(
                    "{side} {} {native} natively, dizy claims {c}",
                    if key == "return" {
                        "returns".to_string()
                    } else {
                        format!("leaves {key} =")
                    }
                ));
            }
        }
    }
    (!wrong.is_empty()).then(|| {
        format!(
            "witness input {shown} differs natively but not as claimed: {}",
            wrong.join("; ")
        )
    })
}
