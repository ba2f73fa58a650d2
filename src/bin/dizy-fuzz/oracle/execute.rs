//! Running the compiled harness, and what both versions did.
//!
//! Takes the harness executable and the inputs; gives one [`Obs`] per input: both versions'
//! [`Run`]s (return value, pointed-to contents, globals and static locals, output), undefined
//! behaviour or no termination, and how two runs differ under dizy's contract.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;
use std::time::Duration;

use super::harness::{HANG_MS, MAX_HANGS, RECHECK_MS};
use super::inputs::{encode, Input};
use super::run;

/// What one version did on one input and returned from.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Run {
    pub ret: String,
    /// Canonical final contents behind each pointer parameter, by parameter name.
    pub ptrs: BTreeMap<String, String>,
    /// Observed objects (globals, static locals): value at entry and at return.
    pub init: BTreeMap<String, String>,
    pub fin: BTreeMap<String, String>,
    pub out: Vec<u8>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum One {
    Ran(Run),
    Ub,
    Hang,
    Skip,
}

/// What both versions did on one input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Obs {
    Ran(Box<Run>, Box<Run>),
    /// Either version has undefined behaviour on this input (which one): it is not a test of
    /// equal behaviour, only of a witness that says so.
    Ub {
        old: bool,
        new: bool,
    },
    /// Neither version terminated: not a difference.
    BothHang,
    /// Exactly one version did not terminate; the other's run.
    OneHangs {
        old_hangs: bool,
        other: Box<Run>,
    },
    /// Not run (too many runs before did not terminate).
    Skipped,
}

/// How two terminating runs differ under the contract, if they do.
pub fn run_difference(a: &Run, b: &Run) -> Option<String> {
    if a.ret != b.ret {
        return Some(format!("return {} vs {}", a.ret, b.ret));
    }
    for (k, v) in &a.ptrs {
        if let Some(w) = b.ptrs.get(k) {
            if v != w {
                return Some(format!("*{k} {v} vs {w}"));
            }
        }
    }
    for (k, fa) in &a.fin {
        let Some(fb) = b.fin.get(k) else { continue };
        let changed_a = a.init.get(k) != Some(fa);
        let changed_b = b.init.get(k) != Some(fb);
        if (changed_a || changed_b) && fa != fb {
            return Some(format!("{k} {fa} vs {fb} at return"));
        }
    }
    if a.out != b.out {
        return Some(format!(
            "output {:?} vs {:?}",
            String::from_utf8_lossy(&a.out),
            String::from_utf8_lossy(&b.out)
        ));
    }
    None
}

impl Obs {
    /// The versions differ on this input (a termination difference included).
    pub fn differs(&self) -> bool {
        match self {
            Obs::Ran(a, b) => run_difference(a, b).is_some(),
            Obs::OneHangs { .. } => true,
            _ => false,
        }
    }
    /// Both versions terminated and differ.
    pub fn differs_terminating(&self) -> bool {
        matches!(self, Obs::Ran(a, b) if run_difference(a, b).is_some())
    }
    pub fn describe(&self) -> String {
        match self {
            Obs::Ran(a, b) => match run_difference(a, b) {
                Some(d) => format!("old/new differ: {d}"),
                None => format!("both return {} (no difference)", a.ret),
            },
            Obs::Ub { old, new } => format!(
                "undefined behaviour in {}",
                match (old, new) {
                    (true, true) => "both versions",
                    (true, false) => "the old version",
                    _ => "the new version",
                }
            ),
            Obs::BothHang => "neither version terminates".into(),
            Obs::OneHangs { old_hangs, other } => format!(
                "the {} version does not terminate (within {RECHECK_MS} ms of CPU), the {} returns {}",
                if *old_hangs { "old" } else { "new" },
                if *old_hangs { "new" } else { "old" },
                other.ret
            ),
            Obs::Skipped => "not run".into(),
        }
    }
}

fn unhex(s: &str) -> Vec<u8> {
    (0..s.len() / 2)
        .filter_map(|i| u8::from_str_radix(&s[2 * i..2 * i + 2], 16).ok())
        .collect()
}

fn parse_run(rest: &str) -> Run {
    let mut r = Run::default();
    for w in rest.split(' ').filter(|w| !w.is_empty()) {
        if let Some(v) = w.strip_prefix("R=") {
            r.ret = v.to_string();
        } else if let Some(v) = w.strip_prefix("O=") {
            r.out = unhex(v);
        } else if let Some((k, v)) = w.strip_prefix("P:").and_then(|x| x.split_once('=')) {
            r.ptrs.insert(k.into(), v.into());
        } else if let Some((k, v)) = w.strip_prefix("I:").and_then(|x| x.split_once('=')) {
            r.init.insert(k.into(), v.into());
        } else if let Some((k, v)) = w.strip_prefix("G:").and_then(|x| x.split_once('=')) {
            r.fin.insert(k.into(), v.into());
        }
    }
    r
}

/// Inputs on which one version seemed not to terminate that are run again with [`RECHECK_MS`].
const RECHECKS: usize = 3;

/// Run the compiled harness on `inputs`; the first `priority` of them are always run. An input
/// on which exactly one version exceeds [`HANG_MS`] is run again with [`RECHECK_MS`] (the first
/// [`RECHECKS`] of them); when one of those ends after all, the unchecked ones are not trusted
/// either and count as not run.
pub fn execute(exe: &Path, inputs: &[Input], priority: usize) -> Result<Vec<Obs>, String> {
    let mut obs = execute_with(exe, inputs, priority, HANG_MS)?;
    let one_hangs: Vec<usize> = (0..obs.len())
        .filter(|&k| matches!(obs[k], Obs::OneHangs { .. }))
        .collect();
    if one_hangs.is_empty() {
        return Ok(obs);
    }
    let (checked, unchecked) = one_hangs.split_at(one_hangs.len().min(RECHECKS));
    let again: Vec<Input> = checked.iter().map(|&k| inputs[k].clone()).collect();
    let second = execute_with(exe, &again, again.len(), RECHECK_MS)?;
    let mut ended = false;
    for (&k, o) in checked.iter().zip(second) {
        ended |= !matches!(o, Obs::OneHangs { .. });
        obs[k] = o;
    }
    if ended {
        for &k in unchecked {
            obs[k] = Obs::Skipped;
        }
    }
    Ok(obs)
}

fn execute_with(
    exe: &Path,
    inputs: &[Input],
    priority: usize,
    hang_ms: u64,
) -> Result<Vec<Obs>, String> {
    let mut text = String::new();
    for v in inputs {
        let mut line = String::new();
        for a in v {
            encode(a, &mut line);
        }
        text.push_str(line.trim_start());
        text.push('\n');
    }
    let limit = Duration::from_secs(20 + inputs.len() as u64 / 10)
        + Duration::from_millis(2 * hang_ms * MAX_HANGS.min(inputs.len()) as u64 * 2);
    let o = run(
        Command::new(exe)
            .arg(priority.to_string())
            .arg(MAX_HANGS.to_string())
            .arg((hang_ms * 1000).to_string())
            .env("UBSAN_OPTIONS", "print_stacktrace=0")
            // No symbolization: the report is not read, and symbolizing it can take longer
            // than the CPU limit that tells a hang (an out-of-bounds read then looked like a
            // non-terminating run: seed 309 pair 697).
            .env(
                "ASAN_OPTIONS",
                "detect_leaks=0:print_summary=0:detect_stack_use_after_return=0:symbolize=0",
            ),
        text.as_bytes(),
        limit,
    )
    .map_err(|e| format!("cannot run harness: {e}"))?;
    if o.killed {
        return Err("harness timed out".into());
    }
    let mut per: Vec<[Option<One>; 2]> = vec![[None, None]; inputs.len()];
    for l in o.stdout.lines() {
        let mut it = l.splitn(4, ' ');
        let (Some(k), Some(v), Some(st)) = (it.next(), it.next(), it.next()) else {
            continue;
        };
        let (Ok(k), Ok(v)) = (k.parse::<usize>(), v.parse::<usize>()) else {
            continue;
        };
        if k >= inputs.len() || v > 1 {
            continue;
        }
        per[k][v] = Some(match st {
            "OK" => One::Ran(parse_run(it.next().unwrap_or(""))),
            "HANG" => One::Hang,
            "SKIP" => One::Skip,
            _ => One::Ub,
        });
    }
    if per.iter().all(|p| p[0].is_none()) && !inputs.is_empty() {
        return Err(format!(
            "harness gave no results: {}",
            o.stderr.lines().take(5).collect::<Vec<_>>().join(" | ")
        ));
    }
    Ok(per
        .into_iter()
        .map(
            |[a, b]| match (a.unwrap_or(One::Ub), b.unwrap_or(One::Ub)) {
                (One::Ub, y) => Obs::Ub {
                    old: true,
                    new: matches!(y, One::Ub),
                },
                (_, One::Ub) => Obs::Ub {
                    old: false,
                    new: true,
                },
                (One::Skip, _) | (_, One::Skip) => Obs::Skipped,
                (One::Hang, One::Hang) => Obs::BothHang,
                (One::Hang, One::Ran(r)) => Obs::OneHangs {
                    old_hangs: true,
                    other: Box::new(r),
                },
                (One::Ran(r), One::Hang) => Obs::OneHangs {
                    old_hangs: false,
                    other: Box::new(r),
                },
                (One::Ran(a), One::Ran(b)) => Obs::Ran(Box::new(a), Box::new(b)),
            },
        )
        .collect())
}
