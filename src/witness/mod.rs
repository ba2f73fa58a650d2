//! Distinguishing inputs: candidates from Δ and from search, validated by execution.
//!
//! Takes the two loaded programs, the function, and the differing states of Δ; gives a
//! [`Witness`] — inputs on which the two versions, each run alone by the concrete interpreter
//! with C semantics, return different values, change globals differently, leave different
//! bytes in the caller's buffers or print different output — or nothing. Every candidate is
//! executed; a candidate whose run hits undefined behaviour or the step budget is discarded, so
//! a reported witness always reproduces.
//!
//! Parameters are the inputs a witness sets (`memory`: scalars, buffers behind pointers,
//! structs by value, aliasing); globals keep their initial values unless the seeds with them
//! set fail too ([`Witness::global_inputs`]). The strategies, cheapest
//! first, are in `search`; a returned pointer is compared by what it points into
//! ([`memory::pointer_text`]), never by the interpreter's own addresses, and where no input
//! names that, by the contents it points to ([`Behaviour::returned`]).

mod concolic;
mod dfa;
mod distance;
mod fuzz;
pub mod memory;
pub mod native;
pub mod plane;
mod search;
mod smt;
#[cfg(test)]
mod testutil;

use std::cell::{Cell, RefCell};
use std::time::{Duration, Instant};

use crate::correlate::Correlated;
use crate::delta::Delta;
use crate::gcl::{GclFunction, GclProgram};
use crate::interp::{self, Arg, ExtResult, Interp, Observed, RunError, UbKind, Value, World};
use crate::ir::{CType, Program, VarId, VarKind};
use crate::limits::Budget;
use memory::{Input, Param, Shape};

#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Options {
    /// Executions allowed per function.
    pub max_runs: usize,
    pub time: Duration,
    /// Interpreter steps per execution.
    pub step_budget: u64,
    /// Interpreter steps over all executions; `None`: no bound but `max_runs` and `time`.
    /// Unlike `time`, a bound that does not depend on the machine's speed or load.
    pub total_steps: Option<u64>,
    /// Largest loop bound ν of the symbolic search (paths use each loop edge at most ν times).
    pub loop_bound: u32,
    /// Only witnesses on which both versions stop, by returning or by undefined behaviour: an
    /// input on which one runs out of steps is passed over, since telling a long loop from one
    /// that never ends takes a run with a budget ten times larger (the pre-pass before the
    /// analysis takes only these; the full search also shows the others).
    pub stopping_only: bool,
    /// z3's time limit for one query of the symbolic search, and for one on a path with
    /// floating-point operations (z3 bit-blasts them: a query it cannot answer soon rarely
    /// gets answered in the other strategies' time).
    #[serde(default = "query_ms")]
    pub query_ms: u32,
    #[serde(default = "float_query_ms")]
    pub float_query_ms: u32,
}

fn query_ms() -> u32 {
    2000
}

fn float_query_ms() -> u32 {
    500
}

impl Default for Options {
    fn default() -> Self {
        Options {
            max_runs: 2000,
            time: Duration::from_secs(5),
            step_budget: 1_000_000,
            total_steps: None,
            loop_bound: 16,
            stopping_only: false,
            query_ms: query_ms(),
            float_query_ms: float_query_ms(),
        }
    }
}

/// What one version did on the witness input.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Behaviour {
    /// Return value as a C literal (`void` for none; structs as designated initializers).
    pub ret: String,
    /// Final values of the globals the function uses, as C literals.
    pub globals: Vec<(String, String)>,
    /// Globals whose value the call changed (only those are observed, see [`differ`]).
    pub modified: Vec<String>,
    /// Final contents of the buffers the pointer parameters point to, by parameter name.
    pub memory: Vec<(String, String)>,
    /// Bytes printed with `putchar` and friends.
    pub output: Vec<u8>,
    /// Did not return within this many interpreter steps (then `ret` says so).
    pub diverged: Option<u64>,
    /// Stopped by an invalid memory access (null, dangling, out of bounds): what and where.
    /// The other fields then say nothing.
    pub undefined: Option<String>,
    /// What a returned pointer points to, where no input names it (an object the call
    /// allocated, one an undefined function returned, a global or a string literal): its
    /// elements from the pointer on, a string to its terminator, as C text; `?` where bytes
    /// are uninitialized. Not recorded by the native harness.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub returned: Option<String>,
    /// Calls of functions the file does not define, in order, with their arguments as C text
    /// (`set_error(p, 84)`; a pointer by what it points into); observable behaviour as much as
    /// the return value. At most [`interp::MAX_ENV_TRACE`], then how many there were.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub calls: Vec<String>,
}

/// How many times the step budget a run that seemed not to return is given again before its
/// divergence counts as a difference.
const CONFIRM_DIVERGENCE: u64 = 10;

/// Parameter names and values as C literals, in parameter order.
pub type Inputs = Vec<(String, String)>;

#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Witness {
    /// The inputs as C text, by parameter name.
    pub inputs: Inputs,
    /// The same inputs as values (buffers as bytes), in parameter order.
    pub args: Vec<Input>,
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
    /// Microseconds from the start of the search until this witness was validated (`diff`
    /// adds the time spent on the function before the search).
    pub time_us: u128,
    /// Further validated distinguishing inputs the same strategy found at little extra cost
    /// (other models of the same path, smallest first), in the form of `inputs`.
    pub also: Vec<Inputs>,
    /// Globals the witness sets before the call, as C text by name (empty: all keep their
    /// initial values); the function's state as much as its parameters are.
    #[serde(default)]
    pub global_inputs: Inputs,
    /// The same, as values, in the order of `global_inputs`.
    #[serde(default)]
    pub global_args: Vec<Input>,
    /// What the functions the file does not define returned in both runs (each one value,
    /// whatever its arguments, writing no memory: see [`World`]), as C text by name; empty when
    /// the runs called none.
    #[serde(default)]
    pub externals: Inputs,
    /// The same, as values, in the order of `externals` (a scalar literal, `Null`, or the bytes
    /// of the object a pointer result points to).
    #[serde(default)]
    pub external_args: Vec<Input>,
    /// The values the runs gave the constants of missing headers that the function names
    /// ([`World::constants`]: distinct, the same in both versions), by name.
    #[serde(default)]
    pub constants: Inputs,
}

/// What runs report back besides their behaviour.
#[derive(Default)]
struct RunLog {
    /// Interpreter steps of all runs so far.
    steps: Cell<u64>,
    /// Environment functions any run called, in order of first call.
    env: RefCell<Vec<String>>,
    /// Those the runs since the last [`RunLog::start`] called.
    last: RefCell<Vec<String>>,
    /// When set (by the coverage-guided search), the coverage features of the runs since the
    /// last [`RunLog::start`], both versions' ([`RunLog::side`] tells them apart).
    coverage: RefCell<Option<std::collections::HashSet<u64>>>,
    /// With coverage: per instruction reached but not executed (the key of its coverage
    /// features without the counts), the least distance of its guard from holding in the runs
    /// since the last [`RunLog::start`] ([`Interp::distances`]).
    distances: RefCell<std::collections::HashMap<u64, f64>>,
    /// Which version runs now: 0 the old one, 1 the new one.
    side: Cell<u64>,
    /// The return types of the stubs behind function-pointer members the runs called (no
    /// declaration names them).
    stub_types: RefCell<Vec<(String, CType)>>,
}

impl RunLog {
    fn record(&self, it: &Interp) {
        self.steps.set(self.steps.get() + it.steps());
        if let Some(cov) = self.coverage.borrow_mut().as_mut() {
            let side = self.side.get();
            let mut ds = self.distances.borrow_mut();
            for (f, pc, d) in it.distances() {
                let k = side << 63 | u64::from(f) << 40 | u64::from(pc) << 8;
                let e = ds.entry(k).or_insert(d);
                *e = e.min(d);
            }
            for (f, pc, failed, held) in it.coverage() {
                cov.insert(
                    side << 63
                        | u64::from(f) << 40
                        | u64::from(pc) << 8
                        | u64::from(failed) << 7
                        | u64::from(held),
                );
            }
        }
        for n in it.env_called() {
            let mut types = self.stub_types.borrow_mut();
            if it.is_stub(n) {
                if let Some(t) = it.env_return_type(n) {
                    if !types.iter().any(|(m, _)| m == n) {
                        types.push((n.clone(), t.clone()));
                    }
                }
            }
        }
        for list in [&self.env, &self.last] {
            let mut l = list.borrow_mut();
            for n in it.env_called() {
                if !l.contains(n) {
                    l.push(n.clone());
                }
            }
        }
    }

    /// Forget which functions the earlier runs called ([`RunLog::last`]) and what they
    /// covered.
    fn start(&self) {
        self.last.borrow_mut().clear();
        if let Some(c) = self.coverage.borrow_mut().as_mut() {
            c.clear();
        }
        self.distances.borrow_mut().clear();
    }
}

/// What `world` has environment function `name` return, as a witness states it (`ret`: its
/// declared return type).
fn external_text(world: &World, name: &str, ret: &CType) -> String {
    match world.results.get(name) {
        _ if *ret == CType::Void => "nothing (it writes no memory)".into(),
        None if ret.is_pointer() => "NULL".into(),
        None if ret.is_scalar() => interp::format_value(&Value::Int(0), ret),
        None => "zero bytes".into(),
        Some(ExtResult::Scalar(Value::Int(0))) if ret.is_pointer() => "NULL".into(),
        Some(ExtResult::Scalar(v)) if ret.is_scalar() => interp::format_value(v, ret),
        Some(r) => interp::result_text(r),
    }
}

/// What `world` has environment function `name` return, as a witness input of its return type.
fn external_input(world: &World, name: &str, ret: &CType) -> Input {
    match world.results.get(name) {
        _ if *ret == CType::Void => Input::Null,
        Some(ExtResult::Buffer(b)) => Input::Buffer(b.clone()),
        Some(ExtResult::Scalar(v)) if ret.is_scalar() && !ret.is_pointer() => {
            Input::Scalar(interp::format_value(v, ret))
        }
        None if ret.is_scalar() && !ret.is_pointer() => {
            Input::Scalar(interp::format_value(&Value::Int(0), ret))
        }
        Some(ExtResult::Scalar(Value::Int(0))) | None if ret.is_pointer() => Input::Null,
        _ => Input::Aggregate(vec![]),
    }
}

/// The declared return type of function `name` of `prog` (`int` for one called undeclared).
fn return_type(prog: &Program, name: &str) -> CType {
    prog.externs
        .iter()
        .find(|(n, _)| n == name)
        .map_or(CType::INT, |(_, ft)| ft.ret.clone())
}

/// Execute one version on scalar arguments; `None` when the run is not a valid test (UB,
/// budget, unsupported).
pub fn behave(prog: &GclProgram, func: &str, args: &[Value], budget: u64) -> Option<Behaviour> {
    let inputs: Vec<Input> = args
        .iter()
        .map(|v| Input::Scalar(format!("{v:?}")))
        .collect();
    let args: Vec<Arg> = args.iter().map(|v| Arg::Scalar(*v)).collect();
    behave_args(
        prog,
        func,
        (&args, &inputs, &[]),
        (budget, None, None),
        &RunLog::default(),
        &[],
    )
}

/// The globals `func` or a function of the file it may call (through pointers too) names.
fn globals_read<'p>(prog: &'p GclProgram, func: &str) -> Vec<&'p crate::ir::GlobalVar> {
    let mut reach = crate::changes::CallGraph::new(prog).reachable(func);
    reach.insert(func.to_string());
    let mut seen = std::collections::BTreeSet::new();
    reach
        .iter()
        .filter_map(|n| prog.function(n))
        .flat_map(|f| f.func.vars.iter())
        .filter_map(|v| match v.kind {
            VarKind::Global(g) if seen.insert(g.index()) => prog.program.globals.get(g.index()),
            _ => None,
        })
        .collect()
}

/// The opaque sizes of records only partly known (`sizeof(T)` of a missing header's type,
/// [`crate::ir::GlobalVar::opaque`] with an initializer) that `func` reads, each with another
/// value a real layout could have: larger, and a multiple of eight (callees' reads too). A
/// run reads the assumed layout's size; a witness must not depend on it
/// ([`Runner::try_inputs`]).
fn layout_sizes(prog: &GclProgram, func: &str) -> Vec<(String, Arg)> {
    globals_read(prog, func)
        .into_iter()
        .filter(|g| g.opaque && !g.is_extern)
        .filter_map(|g| match g.init.first()?.2.kind {
            crate::ir::ExprKind::Int(n) => Some((
                g.name.clone(),
                Arg::Scalar(Value::Int((n + 8 * 1021 + 7) / 8 * 8)),
            )),
            _ => None,
        })
        .collect()
}

/// `params` with the names of `names` where it has them: the names both versions' behaviours
/// use for what their pointers point to (the old version's), so that a renamed parameter does
/// not make the same pointer look different.
pub(super) fn canonical_names(mut params: Vec<Param>, names: &[Param]) -> Vec<Param> {
    for (p, n) in params.iter_mut().zip(names) {
        p.name = n.name.clone();
    }
    params
}

/// Execute one version on `args` (`inputs`: the same, as the witness states them, which names
/// the buffers pointers returned point into; `names`: the parameters those are named after,
/// the old version's, or this version's own when empty).
fn behave_args(
    prog: &GclProgram,
    func: &str,
    (args, inputs, names): (&[Arg], &[Input], &[Param]),
    (budget, deadline, world): (u64, Option<Instant>, Option<&World>),
    log: &RunLog,
    overrides: &[(String, Arg)],
) -> Option<Behaviour> {
    let f = prog.function(func)?;
    let globals: Vec<VarId> = (0..f.func.vars.len())
        .map(VarId::new)
        .filter(|v| matches!(f.func.var(*v).kind, VarKind::Global(_)))
        .collect();
    // Inputs past the parameters set globals, named as in `names`.
    let np = f.func.params.len().min(args.len());
    let set: Vec<(String, Arg)> = names
        .iter()
        .skip(np)
        .zip(&args[np..])
        .map(|(p, a)| (p.name.clone(), a.clone()))
        .chain(overrides.iter().cloned())
        .collect();
    let mut it = Interp::new(prog)
        .with_budget(budget)
        .with_deadline(deadline)
        .with_global_inputs(set);
    if let Some(w) = world {
        it = it.with_world(w.clone());
    }
    if log.coverage.borrow().is_some() {
        it = it.with_coverage();
    }
    let called = it.call_observe_both(func, &args[..np], &globals);
    log.record(&it);
    let (out, entry, finals) = match called {
        Ok(x) => x,
        Err(RunError::Budget { .. }) => {
            return Some(Behaviour {
                ret: format!("does not return within {budget} steps"),
                globals: vec![],
                modified: vec![],
                memory: vec![],
                output: vec![],
                diverged: Some(budget),
                undefined: None,
                calls: vec![],
                returned: None,
            })
        }
        // An invalid memory access is behaviour of its own: the caller sees a crash (or worse),
        // and a version without it differs.
        Err(RunError::Ub {
            msg,
            line,
            kind: UbKind::Memory,
        }) => {
            return Some(Behaviour {
                ret: "undefined behaviour".into(),
                globals: vec![],
                modified: vec![],
                memory: vec![],
                output: vec![],
                diverged: None,
                undefined: Some(format!("{msg} at line {line}")),
                calls: vec![],
                returned: None,
            })
        }
        Err(RunError::Ub { .. } | RunError::Depth { .. }) => return None,
        Err(_) => return None,
    };
    let mut params = canonical_names(witness_params(&prog.program, f).unwrap_or_default(), names);
    params.extend(names.iter().skip(np).cloned());
    // A pointer means what it points to: addresses are the interpreter's own.
    let pointer = |v: &Value| match v {
        Value::Int(a) => memory::pointer_text(&params, inputs, &it.target(*a as u64)),
        _ => "non-null".into(),
    };
    let returned = match (&out.ret, f.func.ret.pointee()) {
        (Some(Value::Int(a)), Some(elem)) => returned_text(&prog.program, &it, *a as u64, elem),
        _ => None,
    };
    let ret = match (&out.ret, &out.ret_bytes) {
        (Some(v), _) if f.func.ret.is_pointer() => pointer(v),
        (Some(v), _) => interp::format_value(v, &f.func.ret),
        (None, Some((bytes, init))) => {
            Observed::aggregate(&prog.program.structs, &f.func.ret, bytes, init).to_c()
        }
        // the same text in both versions where both fall off: no value to compare
        (None, None) if out.fell_off => interp::NO_VALUE.to_string(),
        (None, None) => "void".to_string(),
    };
    let mut modified = vec![];
    let mut shown = vec![];
    for ((v, before), after) in globals.iter().zip(entry).zip(finals) {
        let info = f.func.var(*v);
        let Some(after) = after else { continue };
        if before.as_ref().is_none_or(|b| b.to_c() != after.to_c()) {
            modified.push(info.name.clone());
        }
        let text = match &after {
            Observed::Scalar(v, t) if t.is_pointer() => pointer(v),
            a => a.to_c(),
        };
        shown.push((info.name.clone(), text));
    }
    let memory = params
        .iter()
        .enumerate()
        .filter_map(|(k, p)| match (&p.shape, inputs.get(k)) {
            (
                Shape::Buffer { elem, .. },
                Some(Input::Buffer(_) | Input::Misaligned(..) | Input::Linked(..)),
            ) => Some((
                p.name.clone(),
                memory::contents_text(&prog.program, elem, &it.input_bytes(k)?, &|a| {
                    pointer(&Value::Int(i128::from(a)))
                }),
            )),
            _ => None,
        })
        .collect();
    let (trace, count) = it.env_trace();
    let mut calls: Vec<String> = trace
        .iter()
        .map(|c| {
            let args: Vec<String> = c
                .args
                .iter()
                .map(|a| match a {
                    // Floating arguments as numbers: -0.0 is 0.0, every NaN is NaN.
                    interp::CallArg::Value(v, t) => interp::format_value(&numeric(*v), t),
                    interp::CallArg::Pointer(t) => memory::pointer_text(&params, inputs, t),
                    interp::CallArg::String(b) => memory::string_literal(b),
                    interp::CallArg::Aggregate => "{…}".into(),
                })
                .collect();
            format!("{}({})", c.name, args.join(", "))
        })
        .collect();
    if count > trace.len() as u64 {
        calls.push(format!("… {count} calls in all"));
    }
    Some(Behaviour {
        ret,
        globals: shown,
        modified,
        memory,
        output: out.output,
        diverged: None,
        undefined: None,
        returned,
        calls,
    })
}

/// `v` with a zero's sign and a NaN's payload dropped (values compared as numbers).
fn numeric(v: Value) -> Value {
    match v {
        Value::Double(x) if x.is_nan() => Value::Double(f64::NAN),
        Value::Float(x) if x.is_nan() => Value::Float(f32::NAN),
        Value::Double(x) => Value::Double(if x == 0.0 { 0.0 } else { x }),
        Value::Float(x) => Value::Float(if x == 0.0 { 0.0 } else { x }),
        v => v,
    }
}

/// Most bytes of a returned object [`Behaviour::returned`] shows.
const MAX_RETURNED: usize = 256;

/// The text of [`Behaviour::returned`] for a returned pointer `addr` to `elem`s.
fn returned_text(prog: &Program, it: &Interp, addr: u64, elem: &CType) -> Option<String> {
    let elem = match elem {
        CType::Void => CType::UCHAR,
        t => t.clone(),
    };
    let (mut bytes, init) = it.returned_object(addr, MAX_RETURNED)?;
    let size = prog.size_of(&elem).max(1) as usize;
    if memory::is_char(&elem) {
        // A string: the caller reads to its terminator.
        let end = bytes
            .iter()
            .position(|&b| b == 0)
            .map_or(bytes.len(), |n| n + 1);
        bytes.truncate(end);
    } else {
        bytes.truncate(bytes.len() / size * size);
    }
    if bytes.is_empty() {
        return None;
    }
    if init[..bytes.len()].iter().any(|i| !i) {
        return Some("?".into());
    }
    Some(memory::buffer_text(prog, &elem, &bytes))
}

/// Whether two behaviours differ in what the caller can observe: the return value, the output,
/// the calls of functions the file does not define, and the final value of every global that
/// either call changed (a global neither changed keeps its initial value, which is the
/// program's, not the function's). Values compare as [`same_value`] says.
pub fn differ(a: &Behaviour, b: &Behaviour) -> bool {
    // An invalid access in one version only, the other returning: a difference (the fixed
    // out-of-bounds read of a security patch). Both invalid, or one running on: none shown.
    match (&a.undefined, &b.undefined) {
        (Some(_), Some(_)) => return false,
        (Some(_), None) => return b.diverged.is_none(),
        (None, Some(_)) => return a.diverged.is_none(),
        (None, None) => {}
    }
    // One version returns, the other runs on: a difference of termination. Two runs that
    // both run on show no difference.
    match (a.diverged, b.diverged) {
        (Some(_), Some(_)) => return false,
        (Some(_), None) | (None, Some(_)) => return true,
        (None, None) => {}
    }
    // A version that returns nothing (a `void` function that gained a result, or lost it)
    // gives its caller no value to compare: the result alone is no difference.
    let void = a.ret == "void" || b.ret == "void";
    if (!void && !same_value(&a.ret, &b.ret)) || a.output != b.output || a.calls != b.calls {
        return true;
    }
    if let (Some(x), Some(y)) = (&a.returned, &b.returned) {
        if !void && !same_value(x, y) {
            return true;
        }
    }
    if a.memory
        .iter()
        .any(|(n, v)| b.memory.iter().any(|(m, w)| m == n && !same_value(v, w)))
    {
        return true;
    }
    a.globals.iter().any(|(n, v)| {
        (a.modified.contains(n) || b.modified.contains(n))
            && b.globals.iter().any(|(m, w)| m == n && !same_value(v, w))
    })
}

/// Whether two behaviours differ only in how equal values are written: the sign of a zero or
/// the payload of a NaN (worth a note, not a witness).
pub fn differ_only_in_bits(a: &Behaviour, b: &Behaviour) -> bool {
    // Globals only one version reads (a `sizeof` constant, say) are no such difference.
    let globals = a
        .globals
        .iter()
        .any(|(n, v)| b.globals.iter().any(|(m, w)| m == n && v != w));
    !differ(a, b) && (a.ret != b.ret || globals || a.memory != b.memory)
}

/// Equality of two C literals as observed values: numbers by value, floating values with `==`
/// except that NaN equals NaN (so `0.0` equals `-0.0`), designated initializers field by
/// field; a `?` (indeterminate) part is no evidence of a difference.
pub fn same_value(a: &str, b: &str) -> bool {
    if a == b || a == "?" || b == "?" {
        return true;
    }
    if let (Some(x), Some(y)) = (parts(a), parts(b)) {
        // Fields by name (a struct whose fields were reordered is the same value), elements
        // of a plain brace list by position.
        let designated = x.iter().chain(&y).all(|(p, _)| !p.is_empty());
        return x.len() == y.len()
            && if designated {
                x.iter().all(|(p, v)| {
                    y.iter()
                        .find(|(q, _)| q == p)
                        .is_some_and(|(_, w)| same_value(v, w))
                })
            } else {
                x.iter()
                    .zip(&y)
                    .all(|((p, v), (q, w))| p == q && same_value(v, w))
            };
    }
    match (float_lit(a), float_lit(b)) {
        (Some(x), Some(y)) => x == y || (x.is_nan() && y.is_nan()),
        _ => false,
    }
}

/// The `(designator, value)` parts of a brace literal `{.a = 1, .b[0] = 2}` or `{1, 2}`.
fn parts(s: &str) -> Option<Vec<(String, String)>> {
    let inner = s.strip_prefix('{')?.strip_suffix('}')?;
    let mut out = vec![];
    let mut depth = 0;
    let mut cur = String::new();
    for ch in inner.chars().chain(std::iter::once(',')) {
        match ch {
            '{' => depth += 1,
            '}' => depth -= 1,
            _ => {}
        }
        if ch == ',' && depth == 0 {
            let t = cur.trim();
            if !t.is_empty() {
                out.push(match t.split_once(" = ") {
                    Some((d, v)) => (d.to_string(), v.to_string()),
                    None => (String::new(), t.to_string()),
                });
            }
            cur.clear();
        } else {
            cur.push(ch);
        }
    }
    Some(out)
}

/// The value of a floating literal as our formatter writes it (`1.5`, `-0.0`, `1e300`,
/// `2.5f`, `INFINITY`, `-INFINITY`, `NAN`); `None` for integers and pointers.
fn float_lit(s: &str) -> Option<f64> {
    let s = s.strip_suffix('f').unwrap_or(s);
    match s {
        "NAN" | "-NAN" => return Some(f64::NAN),
        "INFINITY" => return Some(f64::INFINITY),
        "-INFINITY" => return Some(f64::NEG_INFINITY),
        _ => {}
    }
    let t = s.trim_start_matches('-');
    if t.starts_with("0x") || !(t.contains('.') || t.contains('e')) {
        return None;
    }
    s.parse().ok()
}

struct Runner<'a> {
    old: &'a GclProgram,
    new: &'a GclProgram,
    func: &'a str,
    /// The function's parameters, then the globals a strategy sets ([`Runner::n_params`]).
    params: Vec<Param>,
    /// The new version's types of parameters whose integer type the patch changed
    /// (`int length` → `size_t length`), by position: a value is an input only if both types
    /// hold it.
    retyped: Vec<(usize, CType)>,
    /// How many of `params` are the function's parameters (all of them unless a strategy
    /// added globals after them).
    n_params: usize,
    /// The input of each non-scalar parameter while a strategy chooses the scalars.
    fill: Vec<Input>,
    opts: &'a Options,
    runs: usize,
    /// Runs allowed beyond `opts.max_runs` while a strategy that needs many runs is searching
    /// (the coverage-guided one).
    extra_runs: usize,
    /// Steps and environment calls of all runs so far.
    log: RunLog,
    /// What undefined functions return in the runs ([`World`]).
    world: World,
    start: Instant,
    /// The function's budget (memory; its deadline bounds `opts.time` already).
    budget: &'a Budget,
    /// The first input on which the versions differed only in the sign of a zero or a NaN
    /// payload (the same values, so no witness).
    bits_only: Option<Inputs>,
    /// The first witness whose difference is an invalid memory access, with the run count at
    /// which it was found: kept while the search looks a little longer for one on which both
    /// versions run cleanly, a plainer demonstration.
    unsafe_witness: Option<(Witness, usize)>,
    /// Whether the neighbourhood of the first unsafe witness was searched ([`Runner::repair`]).
    repair: Repair,
}

/// The state of [`Runner::repair`]: it runs once, from inside the first unsafe candidate's
/// [`Runner::try_inputs`], and its own candidates do not start it again.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Repair {
    Pending,
    Running,
    Done,
}

/// Candidates [`Runner::repair`] may run, on top of [`CLEAN_WITNESS_RUNS`].
const REPAIR_RUNS: usize = 600;

/// Runs spent looking for a clean witness once one with an invalid access is known.
const CLEAN_WITNESS_RUNS: usize = 300;

impl Runner<'_> {
    /// Out of runs, time, or memory (`--max-memory`; checked between runs and z3 queries, which
    /// have their own time limit — z3's own memory bound crashes the z3 crate when reached).
    fn exhausted(&self) -> bool {
        self.unsafe_witness
            .as_ref()
            .is_some_and(|(_, at)| self.runs >= at + CLEAN_WITNESS_RUNS)
            || self.runs >= self.opts.max_runs + self.extra_runs
            || self
                .opts
                .total_steps
                .is_some_and(|t| self.log.steps.get() >= t)
            || self.start.elapsed() > self.opts.time
            || self.budget.check().is_err()
    }

    /// The arguments for `inputs` (in parameter order) and their C text; `None` when a value
    /// does not fit its parameter's type.
    fn args(&self, inputs: &[Input]) -> Option<(Vec<Arg>, Inputs)> {
        let mut args = vec![];
        let mut lits = vec![];
        for (k, (p, input)) in self.params.iter().zip(inputs).enumerate() {
            let arg = input.arg(&p.shape)?;
            let text = match (&arg, input) {
                (Arg::Scalar(val), Input::Scalar(v)) => {
                    // A value the type cannot hold is not this input.
                    if let (Value::Int(x), Ok(want)) = (val, v.parse::<i128>()) {
                        if p.ty.is_integer() && *x != want {
                            return None;
                        }
                    }
                    if let Some((_, t)) = self.retyped.iter().find(|(i, _)| *i == k) {
                        match interp::parse_arg(v, t) {
                            Ok(Value::Int(y)) if Some(y) == v.parse::<i128>().ok() => {}
                            _ => return None,
                        }
                    }
                    interp::format_value(val, &p.ty)
                }
                _ => memory::input_text(&self.old.program, &self.params, k, input),
            };
            args.push(arg);
            lits.push((p.name.clone(), text));
        }
        Some((args, lits))
    }

    /// Try one candidate (values already in parameter order).
    fn try_values(&mut self, vals: &[i128], strategy: &str) -> Option<Witness> {
        let lits: Vec<String> = vals.iter().map(|v| v.to_string()).collect();
        self.try_literals(&lits, strategy)
    }

    /// Try one candidate given as C literals in parameter order (`NAN`, `-0.0`, `1e308`); the
    /// non-scalar parameters take their [`Runner::fill`].
    fn try_literals(&mut self, vals: &[String], strategy: &str) -> Option<Witness> {
        let inputs: Vec<Input> = self
            .params
            .iter()
            .zip(vals)
            .enumerate()
            .map(|(k, (p, v))| match p.shape {
                Shape::Scalar(_) => Input::Scalar(v.clone()),
                _ => self.fill.get(k).cloned().unwrap_or(Input::Null),
            })
            .collect();
        self.try_inputs(&inputs, strategy)
    }

    /// Try one candidate: every parameter's input.
    fn try_inputs(&mut self, inputs: &[Input], strategy: &str) -> Option<Witness> {
        if self.exhausted() {
            return None;
        }
        let (args, lits) = self.args(inputs)?;
        self.runs += 1;
        self.log.start();
        let names = &self.params;
        // A run stops at the search's end: a budget of ten million steps takes seconds.
        let end = self.start + self.opts.time;
        let deadline = Some(self.budget.deadline().map_or(end, |d| d.min(end)));
        let run_with = |prog: &GclProgram, budget, overrides: &[(String, Arg)]| {
            behave_args(
                prog,
                self.func,
                (&args, inputs, names),
                (budget, deadline, Some(&self.world)),
                &self.log,
                overrides,
            )
        };
        let run = |prog: &GclProgram, budget| {
            let side = u64::from(!std::ptr::eq(prog, self.old));
            self.log.side.set(side);
            run_with(prog, budget, &[])
        };
        let mut o = run(self.old, self.opts.step_budget)?;
        let mut n = run(self.new, self.opts.step_budget)?;
        if self.opts.stopping_only && (o.diverged.is_some() || n.diverged.is_some()) {
            return None;
        }
        // A run out of steps while the other returned: run it again with a budget ten times
        // larger, so that a long loop is not taken for one that never ends.
        let longer = self.opts.step_budget.saturating_mul(CONFIRM_DIVERGENCE);
        match (o.diverged, n.diverged) {
            (Some(_), None) => o = run(self.old, longer)?,
            (None, Some(_)) => n = run(self.new, longer)?,
            _ => {}
        }
        if self.bits_only.is_none() && differ_only_in_bits(&o, &n) {
            self.bits_only = Some(lits.clone());
        }
        if !differ(&o, &n) {
            return None;
        }
        // Sizes of records only partly known are the assumed layout's in these runs: each
        // version must behave the same with other sizes, so that the difference is not one of
        // the assumed layout (a version printing `sizeof (T)`).
        for (prog, first) in [(self.old, &o), (self.new, &n)] {
            let sizes = layout_sizes(prog, self.func);
            if !sizes.is_empty() {
                let again = run_with(prog, self.opts.step_budget, &sizes)?;
                if differ(first, &again) || first.diverged != again.diverged {
                    return None;
                }
            }
        }
        let unsafe_access = o.undefined.is_some() || n.undefined.is_some();
        let np = self.n_params.min(lits.len());
        let (lits, global_inputs) = (lits[..np].to_vec(), lits[np..].to_vec());
        let (externals, external_args) = self.called_externals();
        let w = Witness {
            inputs: lits,
            args: inputs[..np].to_vec(),
            global_inputs,
            global_args: inputs[np..].to_vec(),
            old: o,
            new: n,
            strategy: strategy.to_string(),
            validated_by: "interpreter".to_string(),
            tries: self.runs,
            loop_bound: None,
            path_len: None,
            time_us: self.start.elapsed().as_micros(),
            also: vec![],
            externals,
            external_args,
            constants: self.named_constants(),
        };
        if unsafe_access {
            if self.unsafe_witness.is_none() {
                self.unsafe_witness = Some((w, self.runs));
            }
            if self.repair == Repair::Pending {
                return self.repair();
            }
            return None;
        }
        Some(w)
    }

    /// The declared return type of environment function `name` (the old version's
    /// declaration, else the new one's).
    fn return_type(&self, name: &str) -> CType {
        if let Some((_, t)) = self.log.stub_types.borrow().iter().find(|(n, _)| n == name) {
            return t.clone();
        }
        let declared = |p: &Program| p.externs.iter().any(|(n, _)| n == name);
        match declared(&self.old.program) || !declared(&self.new.program) {
            true => return_type(&self.old.program, name),
            false => return_type(&self.new.program, name),
        }
    }

    /// The constants of missing headers the function (or a function of the file it may call)
    /// names in either version, with the values the world gives them.
    fn named_constants(&self) -> Inputs {
        let mut out: Inputs = vec![];
        for p in [self.old, self.new] {
            for g in globals_read(p, self.func) {
                if let Some(x) = self.world.constants.get(&g.name) {
                    if !out.iter().any(|(n, _)| *n == g.name) {
                        out.push((g.name.clone(), x.to_string()));
                    }
                }
            }
        }
        out.sort();
        out
    }

    /// The environment functions the runs of the current candidate called, with what the
    /// world had them return.
    fn called_externals(&self) -> (Inputs, Vec<Input>) {
        self.log
            .last
            .borrow()
            .iter()
            .map(|n| {
                let ret = self.return_type(n);
                (
                    (n.clone(), external_text(&self.world, n, &ret)),
                    external_input(&self.world, n, &ret),
                )
            })
            .unzip()
    }

    /// The neighbourhood of the first witness with an invalid access: its scalars changed one
    /// at a time, then two at a time, to small values, the sizes of its buffers and the values
    /// that wrap onto its buffers' bytes (`c = 'a' + 256` for a character parameter compared as
    /// `int` in one version and as `unsigned char` in the other). A count one larger than a
    /// buffer usually is what made the access invalid; the difference behind it usually shows
    /// with a count that fits.
    fn repair(&mut self) -> Option<Witness> {
        self.repair = Repair::Running;
        let found = self.repair_search();
        self.repair = Repair::Done;
        found
    }

    fn repair_search(&mut self) -> Option<Witness> {
        let (w, at) = self.unsafe_witness.clone()?;
        // every input of the current parameter list: with globals set as inputs
        // (`search::global_seeds`) those follow the parameters; any missing take their fill
        let mut args = w.args;
        args.extend(w.global_args);
        args.truncate(self.params.len());
        for k in args.len()..self.params.len() {
            args.push(self.fill.get(k).cloned().unwrap_or(Input::Null));
        }
        let scalars: Vec<usize> = (0..self.params.len())
            .filter(|&k| self.params[k].shape.is_scalar() && !self.params[k].ty.is_pointer())
            .collect();
        let mut pool: Vec<i128> = vec![0, 1, 2, 3, 4, 8, -1, 127, 128, 255, 256, -128];
        let mut bytes: Vec<u8> = vec![];
        for a in &args {
            if let Input::Buffer(b) = a {
                for n in [b.len(), b.len().saturating_sub(1), b.len() + 1] {
                    pool.push(n as i128);
                }
                bytes.extend(b.iter().copied().filter(|x| *x != 0));
            }
        }
        bytes.sort_unstable();
        bytes.dedup();
        for b in bytes.into_iter().take(8) {
            pool.extend([b as i128, b as i128 + 256, b as i8 as i128]);
        }
        let mut seen = std::collections::HashSet::new();
        pool.retain(|v| seen.insert(*v));
        let lit = |k: usize, v: i128| -> Input {
            Input::Scalar(if self.params[k].ty.is_float() {
                format!("{v}.0")
            } else {
                v.to_string()
            })
        };
        let mut tries: Vec<Vec<Input>> = vec![];
        for &k in &scalars {
            for &v in &pool {
                let mut t = args.clone();
                t[k] = lit(k, v);
                tries.push(t);
            }
        }
        let mut pairs = vec![];
        for (i, &a) in scalars.iter().enumerate() {
            for &b in &scalars[i + 1..] {
                for &v in &pool {
                    for &u in &pool {
                        let mut t = args.clone();
                        t[a] = lit(a, v);
                        t[b] = lit(b, u);
                        pairs.push(t);
                    }
                }
            }
        }
        // Pairs of scalars and misaligned buffers take turns: either list alone may exceed
        // the allowance.
        let mut shifted = misaligned_neighbours(&self.params, &args).into_iter();
        let mut pairs = pairs.into_iter();
        loop {
            let (p, m) = (pairs.next(), shifted.next());
            if p.is_none() && m.is_none() {
                break;
            }
            tries.extend(p);
            tries.extend(m);
        }
        let start = self.runs;
        // The clean-witness allowance counts from the end of the repair.
        for t in tries.into_iter().take(REPAIR_RUNS) {
            if let Some((_, at)) = &mut self.unsafe_witness {
                *at = self.runs;
            }
            if let Some(w) = self.try_inputs(&t, "search (near an invalid access)") {
                return Some(w);
            }
            if self.exhausted() {
                break;
            }
        }
        if let Some((_, a)) = &mut self.unsafe_witness {
            *a = at + (self.runs - start);
        }
        None
    }
}

/// Neighbours of `args` where one byte buffer starts at an odd address (1, 3 or 7 bytes past
/// a boundary), alone or with one of the first bytes of a buffer made 0, 0x80 or 0xff: aligned
/// words read past an exact buffer are what makes a word-at-a-time version's witness invalid,
/// and two strings of different alignments take its byte-by-byte path instead.
fn misaligned_neighbours(params: &[Param], args: &[Input]) -> Vec<Vec<Input>> {
    let bytes = |k: usize| {
        matches!(&params[k].shape, Shape::Buffer { elem_size: 1, .. })
            .then(|| args[k].buffer())
            .flatten()
    };
    let bufs: Vec<usize> = (0..args.len()).filter(|&k| bytes(k).is_some()).collect();
    let mut out = vec![];
    let shifted = |k: usize, o: u8, args: &[Input]| {
        let mut t = args.to_vec();
        t[k] = Input::Misaligned(bytes(k).unwrap_or_default().to_vec(), o);
        t
    };
    for &k in &bufs {
        for o in [1u8, 3, 7] {
            out.push(shifted(k, o, args));
        }
    }
    for &k in &bufs {
        for o in [1u8, 3, 7] {
            for &j in &bufs {
                let n = bytes(j).map_or(0, <[u8]>::len).min(4);
                for p in 0..n {
                    for v in [0x80u8, 0xff, 0] {
                        let mut t = shifted(k, o, args);
                        let (b, off) = (
                            t[j].buffer().unwrap_or_default().to_vec(),
                            t[j].misalignment(),
                        );
                        let mut b = b;
                        if b[p] == v {
                            continue;
                        }
                        b[p] = v;
                        t[j] = if off == 0 {
                            Input::Buffer(b)
                        } else {
                            Input::Misaligned(b, off)
                        };
                        out.push(t);
                    }
                }
            }
        }
    }
    out
}

/// Names and types of `f`'s parameters.
fn params_of(f: &GclFunction) -> Vec<(String, CType)> {
    f.func
        .params
        .iter()
        .map(|p| (f.func.var(*p).name.clone(), f.func.var(*p).ty.clone()))
        .collect()
}

/// `f`'s parameters with the way a witness sets each; `None` when one cannot be set.
fn witness_params(prog: &Program, f: &GclFunction) -> Option<Vec<Param>> {
    params_of(f)
        .into_iter()
        .map(|(name, ty)| {
            Some(Param {
                shape: Shape::of(prog, &ty)?,
                name,
                ty,
            })
        })
        .collect()
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
    budget: &Budget,
) -> Search {
    let mut r = Runner {
        old,
        new,
        func,
        params: vec![],
        retyped: vec![],
        n_params: usize::MAX,
        fill: vec![],
        opts,
        runs: 0,
        extra_runs: 0,
        log: RunLog::default(),
        world: World {
            constants: constant_values(old, new),
            ..World::default()
        },
        start: Instant::now(),
        budget,
        bits_only: None,
        unsafe_witness: None,
        repair: Repair::Pending,
    };
    let witness = search::run(&mut r, delta, corr).or(r.unsafe_witness.map(|(w, _)| w));
    let notes = match (&witness, r.bits_only) {
        (None, Some(inputs)) => {
            let lits: Vec<String> = inputs.iter().map(|(n, v)| format!("{n} = {v}")).collect();
            vec![format!(
                "on {} the versions give values that differ only in the sign of a zero or a NaN payload: the same values, not a difference",
                lits.join(", ")
            )]
        }
        _ => vec![],
    };
    Search { witness, notes }
}

/// Values for the constants of missing headers of both programs (their opaque `extern` globals):
/// distinct, so that a version returning `ARCHIVE_FATAL` where the other returns `ARCHIVE_OK`
/// differs, powers of two first, so that flags tested with `&` do not overlap, and small, so
/// that a constant bounding a loop does not make it run long.
fn constant_values(old: &GclProgram, new: &GclProgram) -> std::collections::BTreeMap<String, i128> {
    constant_values_of(
        [old, new]
            .iter()
            .flat_map(|p| p.program.globals.iter())
            .filter(|g| g.opaque && g.is_extern && g.ty.is_integer())
            .map(|g| g.name.as_str()),
    )
}

/// [`constant_values`] for the constants named `names` (the symbolic search pins them so).
pub(super) fn constant_values_of<'n>(
    names: impl Iterator<Item = &'n str>,
) -> std::collections::BTreeMap<String, i128> {
    let names: std::collections::BTreeSet<&str> = names.collect();
    let powers = (0..=10).map(|k| 1i128 << k);
    let others = (3i128..).filter(|v| v & (v - 1) != 0);
    names
        .into_iter()
        .zip(powers.chain(others))
        .map(|(n, v)| (n.to_string(), v))
        .collect()
}

/// What the search found: a witness, and observations worth a note.
#[derive(Clone, Debug, Default)]
pub struct Search {
    pub witness: Option<Witness>,
    pub notes: Vec<String>,
}

#[cfg(test)]
mod value_tests {
    use super::same_value;

    #[test]
    fn observed_values_compare_as_the_contract_says() {
        assert!(same_value("0.0", "-0.0"));
        assert!(same_value("NAN", "NAN"));
        assert!(same_value("1.5f", "1.5f"));
        assert!(!same_value("1.0", "2.0"));
        assert!(!same_value("NAN", "0.0"));
        assert!(!same_value("1", "2"));
        // Struct fields by name, whatever their order; a missing field is a difference.
        assert!(same_value("{.a = 1, .b = 2}", "{.b = 2, .a = 1}"));
        assert!(!same_value("{.a = 1, .b = 2}", "{.b = 1, .a = 2}"));
        assert!(!same_value("{.a = 1, .b = 2}", "{.a = 1, .c = 2}"));
        assert!(same_value("{.x = -0.0, .y = 3}", "{.y = 3, .x = 0.0}"));
        // Bytes by position; an indeterminate part is no evidence.
        assert!(same_value("{0x01, 0x02}", "{0x01, 0x02}"));
        assert!(!same_value("{0x01, 0x02}", "{0x02, 0x01}"));
        assert!(same_value("{.a = ?, .b = 2}", "{.a = 5, .b = 2}"));
    }
}

#[cfg(test)]
mod repair_tests {
    use super::testutil::pair;

    /// The old version compares a signed `char` with an `int`, the new one a byte with
    /// `(unsigned char)c`, walking from the end (`s + n - 1` leaves the buffer when n = 0):
    /// the first differing candidate is an out-of-bounds one; its neighbourhood holds a clean
    /// one (a `c` that wraps onto a byte of the buffer).
    #[test]
    fn an_invalid_access_is_repaired_into_a_clean_witness() {
        let old = "void *f(const void *s, int c, unsigned long n) {\n  const char *t = s; const char *last = 0; int i;\n  for (i = n; i; --i) { if (*t == c) last = t; ++t; }\n  return (void *)last;\n}\n";
        let new = "void *f(const void *s, int c, unsigned long n) {\n  const unsigned char *sp = (const unsigned char *)s + n - 1;\n  while (n--) { if (*sp == (unsigned char)c) return (void *)sp; sp--; }\n  return 0;\n}\n";
        let p = pair(old, new, "f");
        let opts = super::Options {
            time: std::time::Duration::from_secs(60),
            ..Default::default()
        };
        let budget = crate::limits::Budget::unlimited();
        let s = super::search(&p.old, &p.new, "f", &p.d, &opts, Some(&p.c), &budget);
        let w = s.witness.expect("a witness");
        assert!(
            w.old.undefined.is_none() && w.new.undefined.is_none(),
            "{:?}: {:?} / {:?}",
            w.inputs,
            w.old,
            w.new
        );
        assert!(super::differ(&w.old, &w.new));
    }
}

#[cfg(test)]
mod void_result_tests {
    use super::testutil::pair;

    /// A `void` function that gains a result (libsndfile's `vorbis_write_samples`, which now
    /// reports errors) differs only where its effects do: the new result alone is no witness.
    #[test]
    fn a_result_a_void_version_lacks_is_no_difference() {
        let opts = super::Options {
            time: std::time::Duration::from_secs(20),
            ..Default::default()
        };
        let budget = crate::limits::Budget::unlimited();
        let old = "void g(int);\nvoid f(int n) { g(n); }\n";
        let same = "void g(int);\nint f(int n) { g(n); return 0; }\n";
        let p = pair(old, same, "f");
        let s = super::search(&p.old, &p.new, "f", &p.d, &opts, Some(&p.c), &budget);
        assert!(s.witness.is_none(), "{:?}", s.witness.map(|w| w.inputs));
        // An effect that differs still is one.
        let fewer = "void g(int);\nint f(int n) { if (n > 3) return -1; g(n); return 0; }\n";
        let p = pair(old, fewer, "f");
        let s = super::search(&p.old, &p.new, "f", &p.d, &opts, Some(&p.c), &budget);
        let w = s.witness.expect("a witness");
        assert!(w.old.calls != w.new.calls, "{:?} / {:?}", w.old, w.new);
    }
}
