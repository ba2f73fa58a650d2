//! Distinguishing inputs: candidates from Δ and from search, validated by execution.
//!
//! Takes the two loaded programs, the function, and the differing states of Δ; gives a
//! [`Witness`] — inputs on which the two versions, each run alone by the concrete interpreter
//! with C semantics, return different values, change globals differently or print different
//! output — or nothing. Every candidate is executed; a candidate whose run hits undefined
//! behaviour or the step budget is discarded, so a reported witness always reproduces.
//!
//! Strategies, cheapest first: integer points of the differing states' input constraints
//! (`seed`), then paths of the correlating program to the differing diff points solved with z3
//! (`smt`, modules `dfa` and `smt`), then a bounded search over boundary and random values
//! (`search`). Parameters are the inputs a witness sets; globals keep their initial values.

mod concolic;
mod dfa;
pub mod native;
mod smt;
#[cfg(test)]
mod testutil;

use std::time::{Duration, Instant};

use crate::correlate::Correlated;
use crate::delta::Delta;
use crate::gcl::{GclFunction, GclProgram};
use crate::interp::{self, Interp, RunError, Value};
use crate::ir::{CType, VarId, VarKind};

#[derive(Clone, Debug)]
pub struct Options {
    /// Executions allowed per function.
    pub max_runs: usize,
    pub time: Duration,
    /// Interpreter steps per execution.
    pub step_budget: u64,
    /// Largest loop bound ν of the symbolic search (paths use each loop edge at most ν times).
    pub loop_bound: u32,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            max_runs: 2000,
            time: Duration::from_secs(5),
            step_budget: 1_000_000,
            loop_bound: 16,
        }
    }
}

/// What one version did on the witness input.
#[derive(Clone, Debug, PartialEq)]
pub struct Behaviour {
    /// Return value as a C literal (`void` for none).
    pub ret: String,
    /// Final values of the globals the function uses, as C literals.
    pub globals: Vec<(String, String)>,
    /// Bytes printed with `putchar` and friends.
    pub output: Vec<u8>,
}

/// Parameter names and values as C literals, in parameter order.
pub type Inputs = Vec<(String, String)>;

#[derive(Clone, Debug)]
pub struct Witness {
    pub inputs: Inputs,
    pub old: Behaviour,
    pub new: Behaviour,
    /// Which strategy found it (`seed`, `smt`, `concolic`, `search`).
    pub strategy: String,
    pub validated_by: String,
    /// Executions tried before this one was found.
    pub tries: usize,
    /// For `smt`: the loop bound ν and the length (edges) of the solved path.
    pub loop_bound: Option<u32>,
    pub path_len: Option<usize>,
    /// Milliseconds from the start of the search until this witness was validated (`diff`
    /// adds the analysis time before it).
    pub time_ms: u128,
    /// Further validated distinguishing inputs the same strategy found at little extra cost
    /// (other models of the same path, smallest first), in the form of `inputs`.
    pub also: Vec<Inputs>,
}

/// Execute one version; `None` when the run is not a valid test (UB, budget, unsupported).
pub fn behave(prog: &GclProgram, func: &str, args: &[Value], budget: u64) -> Option<Behaviour> {
    let f = prog.function(func)?;
    let globals: Vec<VarId> = (0..f.func.vars.len())
        .map(VarId::new)
        .filter(|v| {
            matches!(f.func.var(*v).kind, VarKind::Global(_)) && f.func.var(*v).ty.is_scalar()
        })
        .collect();
    let mut it = Interp::new(prog).with_budget(budget);
    let (out, finals) = match it.call_observe(func, args, &globals) {
        Ok(x) => x,
        Err(RunError::Ub { .. } | RunError::Budget { .. } | RunError::Depth { .. }) => return None,
        Err(_) => return None,
    };
    let ret = match out.ret {
        Some(v) => interp::format_value(&v, &f.func.ret),
        None => "void".to_string(),
    };
    let globals = globals
        .iter()
        .zip(finals)
        .filter_map(|(v, val)| {
            let info = f.func.var(*v);
            Some((info.name.clone(), interp::format_value(&val?, &info.ty)))
        })
        .collect();
    Some(Behaviour {
        ret,
        globals,
        output: out.output,
    })
}

/// Whether two behaviours differ in what the caller can observe.
pub fn differ(a: &Behaviour, b: &Behaviour) -> bool {
    if a.ret != b.ret || a.output != b.output {
        return true;
    }
    // Globals both versions use.
    a.globals
        .iter()
        .any(|(n, v)| b.globals.iter().any(|(m, w)| m == n && w != v))
}

struct Runner<'a> {
    old: &'a GclProgram,
    new: &'a GclProgram,
    func: &'a str,
    params: Vec<(String, CType)>,
    opts: &'a Options,
    runs: usize,
    start: Instant,
}

impl Runner<'_> {
    /// Out of runs, time, or memory (`--max-memory`; checked between runs and z3 queries, which
    /// have their own time limit — z3's own memory bound crashes the z3 crate when reached).
    fn exhausted(&self) -> bool {
        self.runs >= self.opts.max_runs
            || self.start.elapsed() > self.opts.time
            || crate::analysis::check_memory().is_err()
    }

    /// The arguments for `vals` (in parameter order) and their C literals; `None` when a value
    /// does not fit its parameter's type.
    fn args(&self, vals: &[i128]) -> Option<(Vec<Value>, Inputs)> {
        let mut args = vec![];
        let mut lits = vec![];
        for ((name, ty), v) in self.params.iter().zip(vals) {
            let val = interp::parse_arg(&v.to_string(), ty).ok()?;
            // A value the type cannot hold is not this input.
            if let Value::Int(x) = val {
                if ty.is_integer() && x != *v {
                    return None;
                }
            }
            args.push(val);
            lits.push((name.clone(), interp::format_value(&val, ty)));
        }
        Some((args, lits))
    }

    /// Try one candidate (values already in parameter order).
    fn try_values(&mut self, vals: &[i128], strategy: &str) -> Option<Witness> {
        if self.exhausted() {
            return None;
        }
        let (args, lits) = self.args(vals)?;
        self.runs += 1;
        let o = behave(self.old, self.func, &args, self.opts.step_budget)?;
        let n = behave(self.new, self.func, &args, self.opts.step_budget)?;
        differ(&o, &n).then(|| Witness {
            inputs: lits,
            old: o,
            new: n,
            strategy: strategy.to_string(),
            validated_by: "interpreter".to_string(),
            tries: self.runs,
            loop_bound: None,
            path_len: None,
            time_ms: self.start.elapsed().as_millis(),
            also: vec![],
        })
    }
}

/// Names and types of `f`'s parameters.
fn params_of(f: &GclFunction) -> Vec<(String, CType)> {
    f.func
        .params
        .iter()
        .map(|p| (f.func.var(*p).name.clone(), f.func.var(*p).ty.clone()))
        .collect()
}

/// Integer points of the differing states' inputs, in parameter order (0 where a state does not
/// constrain a parameter).
fn seeds(delta: &Delta, params: &[(String, CType)]) -> Vec<Vec<i128>> {
    let mut out = vec![];
    for d in delta.points.iter().flat_map(|p| &p.different) {
        if let Some(seed) = &d.seed {
            let vals = params
                .iter()
                .map(|(n, _)| seed.iter().find(|(m, _)| m == n).map_or(0, |x| x.1))
                .collect();
            out.push(vals);
        }
    }
    out
}

/// Search for a validated distinguishing input (`corr`: the correlating program, for the
/// symbolic strategy).
pub fn search(
    old: &GclProgram,
    new: &GclProgram,
    func: &str,
    delta: &Delta,
    opts: &Options,
    corr: Option<&Correlated>,
) -> Option<Witness> {
    let fo = old.function(func)?;
    let fnew = new.function(func)?;
    if fo.func.params.len() != fnew.func.params.len() {
        return None;
    }
    let params = params_of(fo);
    if params.iter().any(|(_, t)| !t.is_arith()) {
        return None;
    }
    let mut r = Runner {
        old,
        new,
        func,
        params: params.clone(),
        opts,
        runs: 0,
        start: Instant::now(),
    };
    // 1. Seeds: integer points of the differing states' inputs.
    for vals in seeds(delta, &params) {
        if let Some(w) = r.try_values(&vals, "seed") {
            return Some(w);
        }
    }
    // 2. Symbolic: paths to the differing diff points, solved with z3; at most 60% of the time
    // left, the rest is the random search's.
    if let Some(c) = corr {
        let left = opts.time.saturating_sub(r.start.elapsed());
        let deadline = Instant::now() + left.mul_f64(0.6);
        if let Some(w) = dfa::search(c, delta, &mut r, deadline) {
            return Some(w);
        }
    }
    // 3. Boundary and small values, then random ones.
    let mut pool: Vec<i128> = vec![
        0, 1, -1, 2, -2, 3, 7, 8, 10, 16, 42, 100, 127, 128, 255, 256, 1000, -128, -1000,
    ];
    for p in &delta.points {
        for d in &p.different {
            if let Some(seed) = &d.seed {
                for (_, v) in seed {
                    for x in [*v, v - 1, v + 1] {
                        if !pool.contains(&x) {
                            pool.push(x);
                        }
                    }
                }
            }
        }
    }
    let k = params.len();
    if k == 0 {
        return r.try_values(&[], "search");
    }
    // All combinations of the pool for one or two parameters; diagonal-ish sweeps beyond.
    if k <= 2 {
        let n = pool.len();
        for i in 0..n.pow(k as u32) {
            let vals: Vec<i128> = (0..k).map(|j| pool[(i / n.pow(j as u32)) % n]).collect();
            if let Some(w) = r.try_values(&vals, "search") {
                return Some(w);
            }
            if r.exhausted() {
                return None;
            }
        }
    } else {
        for (i, &a) in pool.iter().enumerate() {
            for &b in &pool {
                let vals: Vec<i128> = (0..k).map(|j| if j == i % k { b } else { a }).collect();
                if let Some(w) = r.try_values(&vals, "search") {
                    return Some(w);
                }
                if r.exhausted() {
                    return None;
                }
            }
        }
    }
    // 4. Alternating concolic execution from zero and the seeds, with half the time left (the
    // random search gets the rest).
    if let Some(c) = corr {
        let left = opts.time.saturating_sub(r.start.elapsed());
        let mut start = vec![vec![0; k]];
        start.extend(seeds(delta, &params));
        if let Some(w) = concolic::search(c, &mut r, start, Instant::now() + left / 2) {
            return Some(w);
        }
    }
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15 ^ (func.len() as u64);
    while !r.exhausted() {
        let vals: Vec<i128> = params
            .iter()
            .map(|(_, t)| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                let magnitude = [16i128, 256, 65536, 1 << 31][(state % 4) as usize];
                let v = (state >> 8) as i128 % (2 * magnitude) - magnitude;
                match t {
                    CType::Int { signed: false, .. } | CType::Bool => v.abs(),
                    _ => v,
                }
            })
            .collect();
        if let Some(w) = r.try_values(&vals, "search") {
            return Some(w);
        }
    }
    None
}
