//! The checks on one generated pair: run dizy, run the native oracle, compare.
//!
//! Takes both versions and a work directory; gives a [`PairResult`]: dizy's verdict on `f`, the
//! oracle's ground truth ("different" when some UB-free input gives different results) and the
//! failures found — unsound (`equivalent`/`unchanged` although the oracle saw a difference), false
//! witness (a `different` whose witness input does not differ natively, has UB natively, or whose
//! claimed results are not the native ones), crash (panic, signal, no report, `error` or
//! `unsupported` verdict on generated code), hang (killed past `--timeout`), nondeterminism (two runs
//! disagree). Witness inputs and the diff points' seeds are added to the oracle's inputs. Called by
//! `main` for every pair and by `minimize` for every candidate.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use serde_json::Value as Json;

use crate::gen::{Program, Rng, GLOBAL, MAIN};
use crate::oracle::{self, Input, Obs};

pub struct Config {
    pub dizy: PathBuf,
    /// dizy's `--timeout` (seconds per function).
    pub timeout: f64,
    /// Oracle inputs per pair (before witness and seed inputs).
    pub inputs: usize,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Failure {
    Unsound {
        input: Input,
        obs: Obs,
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
    pub fn describe(&self) -> String {
        match self {
            Failure::Unsound { input, obs } => {
                format!("unsound: dizy says equivalent, native run on input {input:?} gives (old ret, new ret, old g, new g) = {obs:?}")
            }
            Failure::FalseWitness(m) => format!("false witness: {m}"),
            Failure::Crash(m) => format!("crash: {m}"),
            Failure::Hang => {
                "hang: dizy killed at twice its --timeout (per changed function) plus 10 s".into()
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
    /// Inputs that ran without UB in both versions.
    pub valid_inputs: usize,
    pub failures: Vec<Failure>,
    /// The first natively distinguishing input, kept for minimization.
    pub diff_input: Option<Input>,
    pub dizy_ms: u128,
    /// dizy finished more than a second after its total timeout (informational, not a failure).
    pub late: bool,
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
    // Each changed function has its own timeout. dizy checks its clock between steps and can
    // overrun by a second or two, and a loaded machine stretches that: only a run far past
    // the total budget is a hang.
    let limit = Duration::from_secs_f64(2.0 * cfg.timeout * nfuncs as f64 + 10.0);
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

fn input_from(p: &Program, vals: &serde_json::Map<String, Json>) -> Input {
    let mut v: Input = p
        .main
        .params
        .iter()
        .map(|(_, n)| {
            vals.get(n)
                .and_then(Json::as_str)
                .and_then(oracle::parse_literal)
                .unwrap_or(0)
        })
        .collect();
    if p.global {
        // a witness runs with the globals' initial values (`int g;` is 0)
        v.push(
            vals.get(GLOBAL)
                .and_then(Json::as_str)
                .and_then(oracle::parse_literal)
                .unwrap_or(0),
        );
    }
    v
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
    if let Err(e) = std::fs::create_dir_all(dir)
        .and_then(|_| std::fs::write(dir.join("old.c"), old.print("")))
        .and_then(|_| std::fs::write(dir.join("new.c"), new.print("")))
    {
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
            let again_timeout = again["functions"]
                .as_array()
                .is_some_and(|a| a.iter().any(|f| f["verdict"] == "timeout"));
            // A timeout depends on the machine's load, not on dizy's logic; so does which step
            // of a slow witness search (its steps have deadlines: smt gets 3 of its 5 s) found
            // the witness. For runs that slow, only whether each function was proved must agree.
            let searched_long = |j: &Json| {
                j["functions"].as_array().is_some_and(|a| {
                    a.iter()
                        .any(|f| f["time_ms"].as_u64().is_some_and(|t| t >= 2000))
                })
            };
            let proved = |j: &Json| -> Vec<(String, bool)> {
                j["functions"].as_array().map_or(vec![], |a| {
                    a.iter()
                        .map(|f| {
                            let v = f["verdict"].as_str().unwrap_or("");
                            (
                                f["name"].to_string(),
                                matches!(v, "equivalent" | "unchanged"),
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

    // The oracle's inputs: fixed by the seed, then the witness and the differing states' seeds.
    let mut inputs = oracle::inputs(old, &mut Rng::new(seed), cfg.inputs);
    inputs.extend(extra.iter().cloned());
    let witness = fr["witness"].as_object().cloned();
    let witness_at = witness.as_ref().map(|w| {
        inputs.push(input_from(
            old,
            w.get("inputs")
                .and_then(Json::as_object)
                .unwrap_or(&Default::default()),
        ));
        inputs.len() - 1
    });
    for p in fr["diff_points"].as_array().into_iter().flatten() {
        for d in p["different"].as_array().into_iter().flatten() {
            if let Some(s) = d["seed"].as_object() {
                inputs.push(input_from(old, s));
            }
        }
    }
    let obs = match oracle::compile(dir, old, new).and_then(|exe| oracle::execute(&exe, &inputs)) {
        Ok(o) => o,
        Err(e) => {
            r.failures.push(Failure::Oracle(e));
            return r;
        }
    };
    r.valid_inputs = obs.iter().filter(|o| matches!(o, Obs::Ran(_))).count();
    if let Some(k) = obs.iter().position(|o| *o == Obs::Hang) {
        r.failures.push(Failure::Oracle(format!(
            "generated code hangs natively on {:?}",
            inputs[k]
        )));
    }
    if let Some(k) = obs.iter().position(Obs::differs) {
        r.truth_differs = true;
        r.diff_input = Some(inputs[k].clone());
        if r.verdict == "equivalent" || r.verdict == "unchanged" {
            r.failures.push(Failure::Unsound {
                input: inputs[k].clone(),
                obs: obs[k].clone(),
            });
        }
    }
    if r.verdict == "different" {
        match (witness_at, &witness) {
            (Some(k), Some(w)) => {
                if let Some(m) = witness_problem(w, &inputs[k], &obs[k], old.global) {
                    r.failures.push(Failure::FalseWitness(m));
                }
            }
            _ => r.failures.push(Failure::FalseWitness(
                "verdict different without a witness".into(),
            )),
        }
    }
    r
}

/// Why a witness does not hold natively, if it does not.
fn witness_problem(
    w: &serde_json::Map<String, Json>,
    input: &Input,
    obs: &Obs,
    global: bool,
) -> Option<String> {
    let v = match obs {
        Obs::Ub => {
            return Some(format!(
                "witness input {input:?} has undefined behaviour natively"
            ))
        }
        Obs::Hang => return Some(format!("witness input {input:?} hangs natively")),
        Obs::Ran(v) => v,
    };
    if !obs.differs() {
        return Some(format!(
            "witness input {input:?}: both versions return {} natively (g {}), dizy claims old {} new {}",
            v[0], v[2], w["old"], w["new"]
        ));
    }
    let claim = |side: &str, key: &str| {
        w.get(side)
            .and_then(|b| b.get(key))
            .and_then(Json::as_str)
            .and_then(oracle::parse_literal)
    };
    let mut wrong = vec![];
    for (side, ret, g) in [("old", v[0], v[2]), ("new", v[1], v[3])] {
        if claim(side, "return").is_some_and(|c| c != ret) {
            wrong.push(format!(
                "{side} returns {ret} natively, dizy claims {}",
                w[side]["return"]
            ));
        }
        if global && claim(side, GLOBAL).is_some_and(|c| c != g) {
            wrong.push(format!(
                "{side} leaves g = {g} natively, dizy claims {}",
                w[side][GLOBAL]
            ));
        }
    }
    (!wrong.is_empty()).then(|| {
        format!(
            "witness input {input:?} differs natively but not as claimed: {}",
            wrong.join("; ")
        )
    })
}
