//! Concrete interpreter of GCL with exact C semantics (x86-64 LP64, GCC, DESIGN §7/§10).
//!
//! Takes a [`GclProgram`] and a function name with argument values and gives the return value,
//! or a [`RunError`]: undefined behaviour (detected as UBSan would, plus uninitialized reads,
//! out-of-bounds and dangling accesses), an exhausted step budget, or something the interpreter
//! cannot execute (external calls, abstracted values). `dizy run` uses it, the witness search
//! validates every distinguishing input with it, and tests compare it against gcc-compiled code.
//!
//! Execution follows the GCL model: instructions in order, skipped when their guard is false,
//! `goto` jumps; the end of the instruction list returns `retval`. Calls push a frame on an
//! explicit stack (never the Rust stack), so deep recursion ends in [`RunError::Depth`], not a
//! crash. Every variable, global and string literal is a byte-level memory object (module
//! `memory`); pointers are addresses encoding (object, offset). Globals are initialized when the
//! interpreter is created and keep their values across calls of the same `Interp`.

mod bits;
mod ctype;
mod distance;
mod eval;
mod exec;
mod format;
mod heap;
mod libm;
mod literal;
mod memory;
mod observe;
mod product;
mod strings;
mod world;

pub use eval::{scalar_bytes, scalar_from_bytes};
pub use literal::{format_value, parse_arg};
pub use observe::{same_scalar, Observed};
pub use product::run_correlated;
pub use world::{is_environment, is_standard, result_text, ExtResult, World};

use std::collections::HashMap;
use std::fmt;

use eval::is_aggregate;
use memory::{encode, Desc, Memory};

use crate::gcl::GclProgram;
use crate::ir::{CType, VarId};

/// How often (in steps) the clock is read when there is a deadline.
const DEADLINE_STEPS: u64 = 1 << 14;

/// Bytes from which a library call reads the deadline itself ([`Interp::big_op`]).
const BIG_OP_BYTES: u64 = 1 << 20;

/// Default step budget (instructions executed, including those skipped by their guard).
pub const DEFAULT_BUDGET: u64 = 10_000_000;
/// Maximum call depth (frames on the interpreter's stack).
pub const MAX_CALL_DEPTH: usize = 10_000;
/// Stack the interpreter runs with: expressions are evaluated recursively.
const THREAD_STACK: usize = 256 << 20;

/// A scalar value. Integers (and pointers, as `u64` addresses) are normalized to their type:
/// signed ones sign-extended, unsigned ones zero-extended.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Value {
    Int(i128),
    Float(f32),
    Double(f64),
}

/// An argument of a top-level call ([`Interp::call_args`]).
#[derive(Clone, Debug, PartialEq)]
pub enum Arg {
    /// A scalar, converted to the parameter's type as by assignment.
    Scalar(Value),
    /// An aggregate (struct, union) passed by value: exactly its bytes, all initialized.
    Aggregate(Vec<u8>),
    /// A pointer parameter: the address of a fresh buffer of the caller holding these bytes
    /// (all initialized; reads and writes past them are out of bounds).
    Buffer(Vec<u8>),
    /// [`Arg::Buffer`] at an address that is `offset` (1..=15) bytes past a 16-byte boundary.
    Misaligned(Vec<u8>, u8),
    /// The same pointer as argument `k`, which is a [`Arg::Buffer`] (the two alias).
    SameAs(usize),
    /// A pointer `off` bytes into the buffer of argument `k` (an [`Arg::Buffer`] before it, `off`
    /// at most its length): a cursor and its end, `f(p, p + 4)`.
    Within(usize, u64),
    /// A valid pointer to an object of unknown size and contents: an access through it
    /// cannot be executed ([`RunError::Unsupported`]).
    Opaque,
    /// A buffer or aggregate (`Buffer`, `Misaligned` or `Aggregate`) whose pointer members
    /// point to fresh buffers of the caller ([`Link`]; the bytes where the pointers go are
    /// overwritten with them).
    Linked(Box<Arg>, Vec<Link>),
}

/// A fresh buffer holding `bytes` that a pointer inside an input points to. `path` says where
/// that pointer lies: `[off]` is `off` bytes into the input's object; `[o1, o2]` is `o2`
/// bytes into the buffer of the link at `[o1]` (so `a->format->data`), and so on. A link's
/// parent comes before it in the list.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Link {
    pub path: Vec<u64>,
    pub bytes: Vec<u8>,
    /// When set, `(k, off)`: the pointer points `off` bytes into the buffer of link `k` of the
    /// same input (a fresh one, before or after it) instead of a fresh buffer of its own, and
    /// `bytes` is empty — a cursor and its limit (`r->ptr`, `r->limit`) in one buffer. No link
    /// lies inside such a link.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub into: Option<(usize, u64)>,
    /// When set, the pointer is a function pointer to a function of this name that the
    /// program does not define (a stub: a call through it is a call of an environment
    /// function, whose result the [`World`] gives), and `bytes` is empty.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub func: Option<String>,
}

impl Link {
    /// A link to a fresh buffer holding `bytes`.
    pub fn fresh(path: Vec<u64>, bytes: Vec<u8>) -> Link {
        Link {
            path,
            bytes,
            into: None,
            func: None,
        }
    }

    /// A function pointer at `path` to the environment function `name`.
    pub fn function(path: Vec<u64>, name: String) -> Link {
        Link {
            path,
            bytes: vec![],
            into: None,
            func: Some(name),
        }
    }
}

/// Where a pointer a call gave back points, in terms the caller can name.
#[derive(Clone, Debug, PartialEq)]
pub enum Target {
    Null,
    /// Into the buffer of argument `arg`, `off` bytes from its start.
    Input {
        arg: usize,
        off: u64,
    },
    /// The function of that name.
    Function(String),
    /// Into the object environment function `name` returned ([`World`]), `off` bytes from
    /// its start.
    External {
        name: String,
        off: u64,
    },
    /// Anywhere else (a global, a string literal, a dead local, an invalid address): not
    /// nameable across two versions.
    Other,
}

/// Calls of environment functions a run records with their arguments ([`Interp::env_trace`]);
/// later ones are only counted.
pub const MAX_ENV_TRACE: usize = 64;

/// A call of an environment function ([`World`]): what the caller passed.
#[derive(Clone, Debug, PartialEq)]
pub struct EnvCall {
    pub name: String,
    pub args: Vec<CallArg>,
}

/// One argument of an [`EnvCall`].
#[derive(Clone, Debug, PartialEq)]
pub enum CallArg {
    /// An arithmetic value of that type.
    Value(Value, CType),
    /// A pointer, by what it pointed into when the call was made.
    Pointer(Target),
    /// A `char` pointer to a string of the caller's (not an input): its bytes up to the NUL
    /// (at most 256).
    String(Vec<u8>),
    /// A struct or union by value (not recorded).
    Aggregate,
}

/// The result of a successful call.
#[derive(Clone, Debug, PartialEq)]
pub struct RunOutcome {
    /// The returned value; `None` for a `void` function and for an aggregate result.
    pub ret: Option<Value>,
    /// An aggregate (struct, union) result: its bytes and which of them are initialized.
    pub ret_bytes: Option<(Vec<u8>, Vec<bool>)>,
    pub ret_ty: CType,
    /// A non-void function that reached its end without `return`: no value (`ret` is `None`).
    /// Not undefined behaviour by itself: only a caller using the value has it (C11 6.9.1p12).
    pub fell_off: bool,
    /// Instructions executed (including those skipped by their guard).
    pub steps: u64,
    /// Bytes written by `putchar` during the call.
    pub output: Vec<u8>,
}

/// How a run's result reads when the function reached its end without `return`.
pub const NO_VALUE: &str = "no value (reached the end without `return`)";

/// What kind of undefined behaviour a run hit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UbKind {
    /// An invalid memory access or pointer: null, dangling, out of bounds (a crash or an
    /// AddressSanitizer report natively).
    Memory,
    /// Anything else: signed overflow, an uninitialized read, a bad shift, …
    Other,
}

#[derive(Clone, Debug, PartialEq)]
pub enum RunError {
    /// Undefined behaviour at a source line (the input is not a valid test of the program).
    Ub {
        msg: String,
        line: u32,
        kind: UbKind,
    },
    /// The step budget ran out (probably an infinite loop).
    Budget { steps: u64 },
    /// The caller's deadline passed first ([`Interp::with_deadline`]): nothing is known.
    Deadline,
    /// Calls nested deeper than the interpreter's limit (probably infinite recursion).
    Depth { limit: usize, line: u32 },
    /// Something the interpreter cannot execute (external function, abstracted value, …).
    Unsupported { msg: String, line: u32 },
    /// Wrong function name, argument count or argument text.
    BadArgs(String),
}

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RunError::Ub { msg, line, .. } => {
                write!(f, "undefined behavior: {msg} at line {line}")
            }
            RunError::Budget { steps } => write!(f, "step budget exhausted after {steps} steps"),
            RunError::Deadline => write!(f, "stopped at the deadline"),
            RunError::Depth { limit, line } => {
                write!(f, "call depth limit ({limit}) exceeded at line {line}")
            }
            RunError::Unsupported { msg, line } => write!(f, "cannot execute line {line}: {msg}"),
            RunError::BadArgs(msg) => write!(f, "bad arguments: {msg}"),
        }
    }
}

impl std::error::Error for RunError {}

/// One call in progress.
struct Frame {
    /// Index into `GclProgram::functions`.
    func: usize,
    pc: usize,
    /// Memory object of each variable (globals map to the global's object).
    objs: Vec<u32>,
    guards: Vec<bool>,
    /// With coverage: per guard, how far its last condition was from holding and from
    /// failing ([`distance::of_condition`]); empty otherwise.
    gdist: Vec<(f64, f64)>,
    /// With coverage: variables holding a condition, and its distances.
    vdist: std::collections::HashMap<usize, (f64, f64)>,
}

/// An argument or return value: scalars by value, aggregates as bytes with init flags.
enum Data {
    Scalar(Value),
    Agg(Vec<u8>, Vec<bool>),
}

/// What a finished call gives back.
enum RetVal {
    Void,
    Data(Data),
    /// A non-void function that reached its end without `return`.
    Missing,
}

/// How an instruction was reached ([`Interp::with_coverage`]).
#[derive(Clone, Copy)]
struct Hits {
    held: u32,
    failed: bool,
    /// The least distance of the guard from holding where it failed ([`distance`]).
    dist: f64,
}

impl Default for Hits {
    fn default() -> Self {
        Hits {
            held: 0,
            failed: false,
            dist: f64::INFINITY,
        }
    }
}

/// AFL's hit-count classes: loops that run more often are new behaviour, one more iteration of a
/// long one is not.
fn bucket(n: u32) -> u8 {
    match n {
        0..=3 => n as u8,
        4..=7 => 4,
        8..=15 => 5,
        16..=31 => 6,
        32..=127 => 7,
        _ => 8,
    }
}

pub struct Interp<'a> {
    prog: &'a GclProgram,
    budget: u64,
    /// Read every [`DEADLINE_STEPS`] steps: a budget of millions of steps takes seconds.
    deadline: Option<std::time::Instant>,
    steps: u64,
    /// Source line of the instruction being executed (for errors).
    line: u32,
    /// Current expression nesting (bounded so the Rust stack cannot overflow).
    depth: u32,
    mem: Memory,
    frames: Vec<Frame>,
    funcs: HashMap<&'a str, usize>,
    /// Function-address table: `func_addr(i)` denotes `fn_names[i]`.
    fn_names: Vec<String>,
    fn_ids: HashMap<String, u32>,
    /// Memory object of each global and string literal.
    globals: Vec<u32>,
    strings: Vec<u32>,
    /// Why the globals could not be initialized, reported by every call.
    init_error: Option<RunError>,
    /// Pointer arithmetic of this call that left its object (or null) without an access
    /// following: undefined, but what sanitizers see only if something is then accessed; the
    /// call ends with it (as [`UbKind::Other`]) if nothing worse happens first.
    arith_ub: std::cell::RefCell<Option<RunError>>,
    output: Vec<u8>,
    /// Variables of the called function to read when it returns ([`Interp::call_observe`]).
    observe: Vec<VarId>,
    observed: Vec<Option<Observed>>,
    observed_entry: Vec<Option<Observed>>,
    /// When set, the branch outcomes of the called function's own frame: (instruction, guard
    /// true), at most this many ([`Interp::call_traced`]).
    trace: Option<(Vec<(u32, bool)>, usize)>,
    /// When set ([`Interp::with_coverage`]), per function of the program and instruction, how
    /// often its guard held and whether it ever failed, over every frame of the runs.
    coverage: Option<Vec<Vec<Hits>>>,
    /// Memory object of each [`Arg::Buffer`] of the last top-level call, by argument index
    /// (the globals of [`Interp::with_global_inputs`] numbered after the parameters).
    inputs: Vec<(usize, u32)>,
    /// The buffers members of inputs point to ([`Arg::Linked`]) in the last top-level call.
    pointees: Vec<u32>,
    /// Values the next top-level call gives globals before it starts, by name.
    global_inputs: Vec<(String, Arg)>,
    /// What undefined functions return; `None`: calling one cannot be executed.
    world: Option<World>,
    /// The object each environment function returned a pointer to in this call, by name.
    world_objs: Vec<(String, u32)>,
    /// Environment functions the last top-level call called, in order of first call.
    env_called: Vec<String>,
    /// The declared return type of each environment function called so far.
    env_ret: HashMap<String, CType>,
    /// The functions the inputs' function-pointer members point to ([`Link::func`]).
    stubs: Vec<String>,
    /// The objects `malloc` and friends made in the last top-level call, in order.
    heap: Vec<u32>,
    /// Its first [`MAX_ENV_TRACE`] calls of environment functions, and how many it made.
    env_trace: Vec<EnvCall>,
    env_count: u64,
}

impl<'a> Interp<'a> {
    pub fn new(prog: &'a GclProgram) -> Self {
        let mut me = Interp {
            prog,
            budget: DEFAULT_BUDGET,
            deadline: None,
            steps: 0,
            line: 0,
            depth: 0,
            mem: Memory::default(),
            frames: Vec::new(),
            funcs: HashMap::new(),
            fn_names: Vec::new(),
            fn_ids: HashMap::new(),
            globals: Vec::new(),
            strings: Vec::new(),
            init_error: None,
            arith_ub: std::cell::RefCell::new(None),
            output: Vec::new(),
            observe: Vec::new(),
            observed: Vec::new(),
            observed_entry: Vec::new(),
            trace: None,
            coverage: None,
            inputs: Vec::new(),
            pointees: Vec::new(),
            global_inputs: Vec::new(),
            world: None,
            world_objs: Vec::new(),
            env_called: Vec::new(),
            env_trace: Vec::new(),
            env_count: 0,
            heap: Vec::new(),
            env_ret: HashMap::new(),
            stubs: Vec::new(),
        };
        for (i, f) in prog.functions.iter().enumerate() {
            me.funcs.entry(f.name.as_str()).or_insert(i);
            me.fn_id(&f.name);
        }
        if let Err(e) = me.init_memory() {
            me.init_error = Some(e);
        }
        me
    }

    pub fn with_budget(mut self, steps: u64) -> Self {
        self.budget = steps;
        self
    }

    /// Stop with [`RunError::Deadline`] once `deadline` has passed.
    pub fn with_deadline(mut self, deadline: Option<std::time::Instant>) -> Self {
        self.deadline = deadline;
        self
    }

    /// Let calls of functions the program does not define return what `world` says (see
    /// [`World`] for which functions it may stand in for).
    pub fn with_world(mut self, world: World) -> Self {
        // The constants of missing headers the world gives values (otherwise unknown).
        let prog = self.prog;
        for (i, g) in prog.program.globals.iter().enumerate() {
            let Some(&v) = world
                .constants
                .get(&g.name)
                .filter(|_| g.opaque && g.is_extern)
            else {
                continue;
            };
            let Some(&id) = self.globals.get(i) else {
                continue;
            };
            if let Some(o) = self.mem.obj_mut(id) {
                o.unknown = false;
            }
            let _ = self.store(encode(id, 0), &g.ty, Value::Int(v));
        }
        self.world = Some(world);
        self
    }

    /// The environment functions the last call called, in order of their first call.
    /// The return type a call of environment function `name` had (its declaration's, or for a
    /// stub behind a function-pointer member the pointer's), once it was called.
    pub fn env_return_type(&self, name: &str) -> Option<&CType> {
        self.env_ret.get(name)
    }

    /// Whether `name` is a stub an input's function-pointer member points to ([`Link::func`]).
    pub fn is_stub(&self, name: &str) -> bool {
        self.stubs.iter().any(|s| s == name)
    }

    pub fn env_called(&self) -> &[String] {
        &self.env_called
    }

    /// The calls of environment functions the last call made (the first [`MAX_ENV_TRACE`]),
    /// and how many it made in all.
    pub fn env_trace(&self) -> (&[EnvCall], u64) {
        (&self.env_trace, self.env_count)
    }

    /// Instructions executed in the last call, also when it stopped early.
    pub fn steps(&self) -> u64 {
        self.steps
    }

    /// Bytes written by `putchar` in the last call.
    pub fn output(&self) -> &[u8] {
        &self.output
    }

    /// The bytes of argument `arg`'s buffer as the last call left them (`None`: the argument
    /// was no [`Arg::Buffer`]).
    pub fn input_bytes(&self, arg: usize) -> Option<Vec<u8>> {
        let &(_, id) = self.inputs.iter().find(|(k, _)| *k == arg)?;
        let (len, start) = self.mem.extent(id)?;
        let (bytes, _) = self.mem.read(encode(id, start), len).ok()?;
        Some(bytes.to_vec())
    }

    /// Where the pointer value `addr` points, as the caller of the last call can name it.
    pub fn target(&self, addr: u64) -> Target {
        match memory::decode(addr) {
            memory::Ptr::Null => Target::Null,
            memory::Ptr::Obj { id, off } => self
                .inputs
                .iter()
                .find(|(_, i)| *i == id)
                .and_then(|&(arg, _)| {
                    let start = self.mem.extent(id).map_or(0, |(_, start)| start);
                    let off = u64::try_from(off).ok()?.checked_sub(start)?;
                    Some(Target::Input { arg, off })
                })
                .or_else(|| {
                    let (name, _) = self.world_objs.iter().find(|(_, i)| *i == id)?;
                    Some(Target::External {
                        name: name.clone(),
                        off: u64::try_from(off).ok()?,
                    })
                })
                .unwrap_or(Target::Other),
            memory::Ptr::Func(i) => self
                .fn_names
                .get(i as usize)
                .map_or(Target::Other, |n| Target::Function(n.clone())),
            memory::Ptr::Invalid => Target::Other,
        }
    }

    /// What a pointer the last call returned lets its caller read, where no input names it:
    /// the bytes from the pointer to the end of the live object (at most `max`), each with
    /// whether it is initialized — an object the call allocated, one an environment function
    /// returned, a global or static, a string literal. `None` for null, a function, an input's
    /// buffer (compared as the input), a dead local, an object of unknown contents.
    pub fn returned_object(&self, addr: u64, max: usize) -> Option<(Vec<u8>, Vec<bool>)> {
        let memory::Ptr::Obj { id, off } = memory::decode(addr) else {
            return None;
        };
        let o = self.mem.obj(id)?;
        if matches!(o.desc, memory::Desc::Input(_)) || o.unknown {
            return None;
        }
        // Offsets count from the object's first byte in `bytes` (its alignment padding too).
        let from = usize::try_from(off).ok().filter(|&f| f as u64 >= o.start)?;
        let to = o.bytes.len().min(from.saturating_add(max));
        Some((
            o.bytes.get(from..to)?.to_vec(),
            o.init.get(from..to)?.to_vec(),
        ))
    }

    /// Index of `name` in the function-address table.
    fn fn_id(&mut self, name: &str) -> u32 {
        if let Some(&i) = self.fn_ids.get(name) {
            return i;
        }
        let i = self.fn_names.len() as u32;
        self.fn_names.push(name.to_string());
        self.fn_ids.insert(name.to_string(), i);
        i
    }

    /// Create string literals and globals (zero, then the explicit initializers).
    fn init_memory(&mut self) -> Result<(), RunError> {
        let p = &self.prog.program;
        for (i, s) in p.strings.iter().enumerate() {
            let id = self
                .mem
                .alloc(Desc::Str(i as u32), s.len() as u64, true)
                .map_err(|e| self.mem_err(e))?;
            if let Some(o) = self.mem.obj_mut(id) {
                o.bytes.copy_from_slice(s);
                o.readonly = true;
            }
            self.strings.push(id);
        }
        for (i, g) in p.globals.iter().enumerate() {
            self.line = g.line.0;
            let size = p.size_of(&g.ty);
            let id = self
                .mem
                .alloc(Desc::Global(i as u32), size, true)
                .map_err(|e| self.mem_err(e))?;
            if g.is_extern {
                if let Some(o) = self.mem.obj_mut(id) {
                    o.unknown = true;
                }
            }
            self.globals.push(id);
        }
        for (i, g) in p.globals.iter().enumerate() {
            self.line = g.line.0;
            for (off, ty, e) in &g.init {
                let v = self.eval(e)?;
                let v = self.convert(v, ty)?;
                let a = self.offset(encode(self.globals[i], 0), i128::from(*off))?;
                self.store(a, ty, v)?;
            }
        }
        Ok(())
    }

    /// Like [`Interp::call`], and also give the final values of variables `vars` of `func`'s
    /// frame when it returns (`None` for an indeterminate or non-scalar one). A correlated
    /// product program can so give both versions' results in one run.
    pub fn call_observe(
        &mut self,
        func: &str,
        args: &[Value],
        vars: &[VarId],
    ) -> Result<(RunOutcome, Vec<Option<Observed>>), RunError> {
        let args: Vec<Arg> = args.iter().map(|v| Arg::Scalar(*v)).collect();
        self.call_observe_both(func, &args, vars)
            .map(|(out, _, finals)| (out, finals))
    }

    /// Like [`Interp::call_observe`], and also give the values of `vars` when `func` starts
    /// (globals at their initial values, parameters as passed): what the call changed is
    /// where the two differ.
    #[allow(clippy::type_complexity)]
    pub fn call_observe_both(
        &mut self,
        func: &str,
        args: &[Arg],
        vars: &[VarId],
    ) -> Result<(RunOutcome, Vec<Option<Observed>>, Vec<Option<Observed>>), RunError> {
        self.observe = vars.to_vec();
        self.observed = vec![None; vars.len()];
        self.observed_entry = vec![None; vars.len()];
        let r = self.call_args(func, args);
        self.observe.clear();
        let observed = std::mem::take(&mut self.observed);
        let entry = std::mem::take(&mut self.observed_entry);
        r.map(|out| (out, entry, observed))
    }

    /// The values of the observed variables in frame `fr` (`None`: not readable).
    fn observe_frame(&self, fr: &Frame) -> Vec<Option<Observed>> {
        let gf = &self.prog.functions[fr.func];
        self.observe
            .iter()
            .map(|v| {
                let (id, ty) = (fr.objs.get(v.index())?, &gf.func.vars.get(v.index())?.ty);
                let (bytes, init) = self.mem.read(encode(*id, 0), self.size_of(ty)).ok()?;
                if is_aggregate(ty) {
                    return Some(Observed::aggregate(
                        &self.prog.program.structs,
                        ty,
                        bytes,
                        init,
                    ));
                }
                if !init.iter().all(|&i| i) {
                    return Some(Observed::Indeterminate);
                }
                scalar_from_bytes(ty, bytes).map(|v| Observed::scalar(v, ty))
            })
            .collect()
    }

    /// Like [`Interp::call`], and also give the instructions of `func`'s own frame (not of its
    /// callees) that were reached, each with whether its guard held, up to `max` of them. This is
    /// the concrete path the concolic witness search follows.
    pub fn call_traced(
        &mut self,
        func: &str,
        args: &[Value],
        max: usize,
    ) -> (Result<RunOutcome, RunError>, Vec<(u32, bool)>) {
        self.trace = Some((Vec::new(), max));
        let r = self.call(func, args);
        let edges = self.trace.take().map(|t| t.0).unwrap_or_default();
        (r, edges)
    }

    /// Record which instructions the runs reach and how often ([`Interp::coverage`]): the
    /// progress measure of the coverage-guided witness search.
    pub fn with_coverage(mut self) -> Self {
        self.coverage = Some(
            self.prog
                .functions
                .iter()
                .map(|f| vec![Hits::default(); f.instrs.len()])
                .collect(),
        );
        self
    }

    /// The coverage of the runs so far as features: (function index, instruction, whether its
    /// guard ever failed, how often it held in AFL's buckets: 0, 1, 2, 3, 4–7, 8–15, 16–31,
    /// 32–127, 128 or more). Empty unless [`Interp::with_coverage`].
    pub fn coverage(&self) -> Vec<(u32, u32, bool, u8)> {
        let mut out = vec![];
        for (f, hits) in self.coverage.iter().flatten().enumerate() {
            for (pc, h) in hits.iter().enumerate() {
                if h.held > 0 || h.failed {
                    out.push((f as u32, pc as u32, h.failed, bucket(h.held)));
                }
            }
        }
        out
    }

    /// Instructions the runs reached but never executed, with the least distance of their
    /// guard from holding (a sum over its literals of normalized branch distances, see
    /// [`distance`]): the objective of the branch-distance search. Empty unless
    /// [`Interp::with_coverage`].
    pub fn distances(&self) -> Vec<(u32, u32, f64)> {
        let mut out = vec![];
        for (f, hits) in self.coverage.iter().flatten().enumerate() {
            for (pc, h) in hits.iter().enumerate() {
                if h.held == 0 && h.dist.is_finite() {
                    out.push((f as u32, pc as u32, h.dist));
                }
            }
        }
        out
    }

    /// Give the named globals these values (a buffer for a pointer) at the start of the next
    /// top-level call, after their initializers: a witness's state of the program.
    pub fn with_global_inputs(mut self, globals: Vec<(String, Arg)>) -> Self {
        self.global_inputs = globals;
        self
    }

    /// Call `func` with `args` (converted to the parameter types as by assignment).
    pub fn call(&mut self, func: &str, args: &[Value]) -> Result<RunOutcome, RunError> {
        let args: Vec<Arg> = args.iter().map(|v| Arg::Scalar(*v)).collect();
        self.call_args(func, &args)
    }

    /// Call `func` with arguments that may be aggregates and buffers ([`Arg`]). The buffers
    /// stay readable after the call ([`Interp::input_bytes`]) until the next call.
    pub fn call_args(&mut self, func: &str, args: &[Arg]) -> Result<RunOutcome, RunError> {
        let prog = self.prog;
        let Some(&fi) = self.funcs.get(func) else {
            return Err(RunError::BadArgs(format!("no function named `{func}`")));
        };
        let gf = &prog.functions[fi];
        let params = &gf.func.params;
        if args.len() != params.len() {
            return Err(RunError::BadArgs(format!(
                "`{func}` takes {} argument{}, {} given",
                params.len(),
                if params.len() == 1 { "" } else { "s" },
                args.len()
            )));
        }
        if let Some(e) = &self.init_error {
            return Err(e.clone());
        }
        for (_, id) in std::mem::take(&mut self.inputs) {
            self.mem.free(id);
        }
        for id in std::mem::take(&mut self.pointees) {
            self.mem.free(id);
        }
        let mut argv = Vec::with_capacity(args.len());
        for (k, (a, p)) in args.iter().zip(params).enumerate() {
            let info = gf.func.var(*p);
            self.line = gf.func.line.0;
            let what = format!("parameter `{}`", info.name);
            argv.push(self.input_data(k, a, &info.ty, &what)?);
        }
        for (j, (name, a)) in std::mem::take(&mut self.global_inputs).iter().enumerate() {
            let Some(gi) = prog.program.globals.iter().position(|g| g.name == *name) else {
                return Err(RunError::BadArgs(format!("no global named `{name}`")));
            };
            let ty = prog.program.globals[gi].ty.clone();
            let addr = encode(self.globals[gi], 0);
            match self.input_data(params.len() + j, a, &ty, &format!("global `{name}`"))? {
                Data::Scalar(v) => self
                    .store(addr, &ty, v)
                    .map_err(|e| RunError::BadArgs(e.to_string()))?,
                Data::Agg(b, i) => self
                    .mem
                    .write(addr, &b, &i)
                    .map_err(|e| RunError::BadArgs(format!("{e:?}")))?,
            }
        }
        // Expression evaluation recurses: run where THREAD_STACK bytes of stack are left
        // (the pipeline's threads have more), else on a fresh stack segment of that size. No
        // thread per run: the witness search runs the interpreter thousands of times.
        let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            stacker::maybe_grow(THREAD_STACK, THREAD_STACK, || self.run_top(fi, argv))
        }));
        match run {
            Ok(r) => r,
            Err(_) => Err(RunError::Unsupported {
                msg: "internal error in the interpreter".into(),
                line: self.line,
            }),
        }
    }

    /// The value a top-level call passes for input `k` of type `ty` (`what` names it in errors):
    /// a buffer argument is allocated here, numbered `k` for [`Target::Input`].
    fn input_data(&mut self, k: usize, a: &Arg, ty: &CType, what: &str) -> Result<Data, RunError> {
        let ty = ty.clone();
        let bad = |m: &str| Err(RunError::BadArgs(format!("{what} {m}")));
        let data = match a {
            Arg::Scalar(v) if ty.is_scalar() => Data::Scalar(
                self.convert(*v, &ty)
                    .map_err(|e| RunError::BadArgs(e.to_string()))?,
            ),
            Arg::Scalar(_) => {
                return bad("is not a scalar; it cannot be given on the command line")
            }
            Arg::Aggregate(bytes) if !ty.is_scalar() && bytes.len() as u64 == self.size_of(&ty) => {
                Data::Agg(bytes.clone(), vec![true; bytes.len()])
            }
            Arg::Aggregate(_) => return bad("is not an aggregate of that size"),
            Arg::Buffer(bytes) | Arg::Misaligned(bytes, _) if ty.is_pointer() => {
                let start = match a {
                    Arg::Misaligned(_, o) if *o < 16 => u64::from(*o),
                    Arg::Misaligned(..) => return bad("is misaligned by 16 bytes or more"),
                    _ => 0,
                };
                let id = self
                    .mem
                    .alloc_at(Desc::Input(k as u32), bytes.len() as u64, start, true)
                    .map_err(|e| RunError::BadArgs(format!("{e:?}")))?;
                if let Some(o) = self.mem.obj_mut(id) {
                    o.bytes[start as usize..].copy_from_slice(bytes);
                    o.escaped = true;
                }
                self.inputs.push((k, id));
                Data::Scalar(Value::Int(i128::from(encode(id, start))))
            }
            Arg::Buffer(_) | Arg::Misaligned(..) | Arg::Opaque if !ty.is_pointer() => {
                return bad("is not a pointer")
            }
            Arg::Opaque => {
                let id = self
                    .mem
                    .alloc(Desc::Input(k as u32), 1, true)
                    .map_err(|e| RunError::BadArgs(format!("{e:?}")))?;
                if let Some(o) = self.mem.obj_mut(id) {
                    o.unknown = true;
                    o.escaped = true;
                }
                self.inputs.push((k, id));
                Data::Scalar(Value::Int(i128::from(encode(id, 0))))
            }
            Arg::Buffer(_) | Arg::Misaligned(..) => return bad("is not a pointer"),
            Arg::Linked(base, links) => {
                if matches!(
                    **base,
                    Arg::Linked(..) | Arg::SameAs(_) | Arg::Within(..) | Arg::Scalar(_)
                ) {
                    return bad("links members of something that is no buffer or aggregate");
                }
                let mut data = self.input_data(k, base, &ty, what)?;
                // The fresh buffers first: a link may point into one that comes after it.
                let mut ids: Vec<Option<u32>> = vec![];
                for l in links {
                    if l.into.is_some() || l.func.is_some() {
                        ids.push(None);
                        continue;
                    }
                    let id = self
                        .mem
                        .alloc(Desc::Pointee(k as u32), l.bytes.len() as u64, true)
                        .map_err(|e| RunError::BadArgs(format!("{e:?}")))?;
                    if let Some(o) = self.mem.obj_mut(id) {
                        o.bytes.copy_from_slice(&l.bytes);
                        o.escaped = true;
                    }
                    self.pointees.push(id);
                    ids.push(Some(id));
                }
                let placed: Vec<(&[u64], u32)> = links
                    .iter()
                    .zip(&ids)
                    .filter_map(|(l, id)| Some((&l.path[..], (*id)?)))
                    .collect();
                for (l, id) in links.iter().zip(&ids) {
                    let Some((off, parent)) = l.path.split_last() else {
                        return bad("has a member link with no place");
                    };
                    let ptr = match (l.into, id) {
                        _ if l.func.is_some() => {
                            let name = l.func.clone().unwrap_or_default();
                            if self.funcs.contains_key(name.as_str()) {
                                return bad("points a member at a function the program defines");
                            }
                            if !self.stubs.contains(&name) {
                                self.stubs.push(name.clone());
                            }
                            memory::func_addr(self.fn_id(&name))
                        }
                        (None, Some(id)) => encode(*id, 0),
                        (Some((t, o)), _) => match ids.get(t) {
                            Some(&Some(tid)) if o <= links[t].bytes.len() as u64 => encode(tid, o),
                            _ => return bad("has a member link into no buffer of its own"),
                        },
                        (None, None) => return bad("has a member link with no buffer"),
                    }
                    .to_le_bytes();
                    let at = *off as usize;
                    if !parent.is_empty() {
                        // Inside the buffer of an earlier link.
                        let Some(&(_, pid)) = placed.iter().find(|(p, _)| *p == parent) else {
                            return bad("links a member of a buffer it does not link");
                        };
                        self.mem
                            .write(encode(pid, *off), &ptr, &[true; 8])
                            .map_err(|_| {
                                RunError::BadArgs(format!("{what} has a member link past its end"))
                            })?;
                        continue;
                    }
                    match &mut data {
                        Data::Agg(b, _) => match b.get_mut(at..at + 8) {
                            Some(dst) => dst.copy_from_slice(&ptr),
                            None => return bad("has a member link past its end"),
                        },
                        Data::Scalar(Value::Int(a)) => {
                            let addr = self
                                .mem
                                .ptr_add(*a as u64, i128::from(*off))
                                .map_err(|e| RunError::BadArgs(format!("{e:?}")))?
                                .0;
                            self.mem.write(addr, &ptr, &[true; 8]).map_err(|_| {
                                RunError::BadArgs(format!("{what} has a member link past its end"))
                            })?;
                        }
                        Data::Scalar(_) => return bad("links members of a non-pointer"),
                    }
                }
                data
            }
            Arg::Within(j, off) => match self.inputs.iter().find(|(i, _)| i == j) {
                Some(&(_, id)) if ty.is_pointer() => {
                    let (size, start) = self.mem.extent(id).unwrap_or((0, 0));
                    if *off > size {
                        return bad("points past the end of the buffer it points into");
                    }
                    Data::Scalar(Value::Int(i128::from(encode(id, start + off))))
                }
                _ => return bad("points into an argument that is not an earlier buffer"),
            },
            Arg::SameAs(j) => match self.inputs.iter().find(|(i, _)| i == j) {
                Some(&(_, id)) if ty.is_pointer() => {
                    let start = self.mem.extent(id).map_or(0, |(_, start)| start);
                    Data::Scalar(Value::Int(i128::from(encode(id, start))))
                }
                _ => return bad("aliases an argument that is not an earlier buffer"),
            },
        };
        Ok(data)
    }

    /// Before a library function handles `bytes` bytes (`memcpy`, `memset`, `malloc`): a
    /// megabyte or more is no ordinary step, so the deadline is read at once rather than after
    /// [`DEADLINE_STEPS`] steps (a loop of such calls would overrun it by minutes).
    fn big_op(&self, bytes: u64) -> Result<(), RunError> {
        if bytes >= BIG_OP_BYTES && self.deadline.is_some_and(|d| std::time::Instant::now() > d) {
            return Err(RunError::Deadline);
        }
        Ok(())
    }

    fn run_top(&mut self, fi: usize, argv: Vec<Data>) -> Result<RunOutcome, RunError> {
        self.unwind();
        self.steps = 0;
        self.depth = 0;
        self.output.clear();
        self.arith_ub.replace(None);
        self.env_called.clear();
        self.env_trace.clear();
        self.env_count = 0;
        for id in std::mem::take(&mut self.heap) {
            self.mem.free(id);
        }
        for (_, id) in std::mem::take(&mut self.world_objs) {
            self.mem.free(id);
        }
        let res = self.push_frame(fi, argv).and_then(|()| {
            if !self.observe.is_empty() {
                if let Some(fr) = self.frames.last() {
                    self.observed_entry = self.observe_frame(fr);
                }
            }
            self.exec()
        });
        if res.is_err() {
            self.unwind();
        }
        if let (Ok(_), Some(ub)) = (&res, self.arith_ub.take()) {
            return Err(ub);
        }
        let gf = &self.prog.functions[fi];
        let mut ret_bytes = None;
        let mut fell_off = false;
        let ret = match res? {
            RetVal::Void => None,
            RetVal::Data(Data::Scalar(v)) => Some(v),
            RetVal::Data(Data::Agg(b, i)) => {
                ret_bytes = Some((b, i));
                None
            }
            RetVal::Missing => {
                fell_off = true;
                None
            }
        };
        Ok(RunOutcome {
            ret,
            ret_bytes,
            ret_ty: gf.func.ret.clone(),
            fell_off,
            steps: self.steps,
            output: self.output.clone(),
        })
    }
}

/// Parse `args` as C literals of `func`'s parameter types, run it, and format the result
/// (`"void"` for a void function). What `dizy run` and the tests use.
pub fn run_literals(
    prog: &GclProgram,
    func: &str,
    args: &[String],
    budget: u64,
) -> Result<(String, RunOutcome), RunError> {
    let Some(gf) = prog.function(func) else {
        return Err(RunError::BadArgs(format!("no function named `{func}`")));
    };
    let params = &gf.func.params;
    if args.len() != params.len() {
        return Err(RunError::BadArgs(format!(
            "`{func}` takes {} argument{}, {} given",
            params.len(),
            if params.len() == 1 { "" } else { "s" },
            args.len()
        )));
    }
    let mut vals = Vec::with_capacity(args.len());
    for (a, p) in args.iter().zip(params) {
        let info = gf.func.var(*p);
        vals.push(
            parse_arg(a, &info.ty)
                .map_err(|e| RunError::BadArgs(format!("parameter `{}`: {e}", info.name)))?,
        );
    }
    let out = Interp::new(prog).with_budget(budget).call(func, &vals)?;
    let text = match (&out.ret, &out.ret_bytes) {
        (Some(v), _) => format_value(v, &out.ret_ty),
        (None, Some((b, i))) => {
            Observed::aggregate(&prog.program.structs, &out.ret_ty, b, i).to_c()
        }
        (None, None) if out.fell_off => NO_VALUE.into(),
        (None, None) => "void".into(),
    };
    Ok((text, out))
}

#[cfg(test)]
mod tests;
