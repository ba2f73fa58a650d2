//! The correlating program P ⋈ P' (DIZY Algorithm 1).
//!
//! Takes the GCL forms of an old and a new version of a program and a function name; gives one
//! GCL function that runs both versions side by side, inside a merged program in which the new
//! version's variables, guards, globals and helper functions carry a `'` tag:
//!
//! * inputs start equal: the new version's parameters are copies of the old ones (by position,
//!   or `--map old=new`), and an untouched copy `x₀` of every input is kept for reports;
//! * the two instruction lists are aligned by a diff over normalized instructions ([`keys`]);
//!   matched instructions sit next to each other, unmatched ones are placed in order (the old
//!   version's first in each gap), and a *converge point* follows every matched pair;
//! * matched loops run in lockstep: each version keeps an "active" guard, its instructions run
//!   only while it is active, and the shared back edge repeats while either is, so each body runs
//!   exactly as often as in its own program. Unmatched loops, and code with forward jumps, are
//!   kept whole ([`structure`]);
//! * *diff points* mark where output is produced: after each matched `return`, before each
//!   matched call to an output function, and at the exit.
//!
//! Invariant (tested against the C compiler): running the product on an input gives the old
//! program's results in untagged variables and the new program's in tagged ones. The analysis
//! consumes [`Correlated`]; `dizy correlate` prints it.

mod keys;
mod print;
mod remap;
mod structure;

pub use print::{print_correlated, to_json};

use std::collections::{HashMap, HashSet};

use crate::diag::{Error, Result};
use crate::gcl::{GclFunction, GclProgram, Guard, GuardInfo, GuardKind, Instr, InstrKind, Lit};
use crate::interp::{self, RunError};
use crate::ir::{
    CType, Callee, Expr, ExprKind, FuncId, GuardId, IdVec, Label, Line, LogicOp, Place, Pos, UnOp,
    VarId, VarInfo, VarKind,
};
use remap::Remap;
use structure::Item;

/// Library functions without side effects: their calls are not effects, and matched calls with
/// equal arguments return equal values.
pub const PURE_FUNCTIONS: &[&str] = &[
    "abs",
    "labs",
    "llabs",
    "isalnum",
    "isalpha",
    "isascii",
    "isblank",
    "iscntrl",
    "isdigit",
    "isgraph",
    "islower",
    "isprint",
    "ispunct",
    "isspace",
    "isupper",
    "isxdigit",
    "tolower",
    "toupper",
    "strlen",
    "strcmp",
    "strncmp",
    "memcmp",
    "strchr",
    "strrchr",
    "__builtin_expect",
];

/// Functions whose calls produce output (diff points are placed before matched calls to them).
pub const OUTPUT_FUNCTIONS: &[&str] = &[
    "printf", "fprintf", "puts", "fputs", "putchar", "putc", "fputc", "fwrite", "write", "dprintf",
];

#[derive(Clone, Debug)]
pub struct Options {
    /// Renamed variables: `(old name, new name)`.
    pub map: Vec<(String, String)>,
    pub output_functions: Vec<String>,
    /// Functions of the file whose behaviour differs between the versions (from
    /// [`crate::changes`]); `None` when unknown, and then every function of the file counts as
    /// changed where it matters (effects of calls).
    pub changed: Option<std::collections::BTreeSet<String>>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            map: vec![],
            output_functions: OUTPUT_FUNCTIONS.iter().map(|s| s.to_string()).collect(),
            changed: None,
        }
    }
}

/// Which version an instruction of the product comes from.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Side {
    Old,
    New,
    /// Added by the correlation (input copies, lockstep loop control).
    Glue,
}

#[derive(Clone, Copy, Debug)]
pub struct Origin {
    pub side: Side,
    /// Index of the instruction in its version's GCL.
    pub src: Option<usize>,
    /// Part of a matched pair (or of a matched loop's control).
    pub matched: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub enum DiffKind {
    Return,
    /// A call to an output function (`printf`, `putchar`, …).
    Output(String),
    /// Another observable effect: a call to an unknown function, a helper receiving pointers,
    /// or a store to memory that outlives the call (through a pointer, into a global aggregate).
    Effect(String),
    Exit,
}

#[derive(Clone, Debug)]
pub struct DiffPoint {
    /// Product position: the state *before* instruction `pos` (the exit for the exit).
    pub pos: Pos,
    pub kind: DiffKind,
    pub old_line: u32,
    pub new_line: u32,
    /// `return@12/14`, `printf@30/31`, `exit@40/42`.
    pub label: String,
    /// Indices into [`Correlated::pairs`] compared here.
    pub pairs: Vec<usize>,
    /// For output and effect points: the product positions of the old and new instruction
    /// (one missing when only one version has the effect here).
    pub old_pos: Option<Pos>,
    pub new_pos: Option<Pos>,
    /// For a call: a function of the file it may reach whose behaviour differs between the
    /// versions (then equal arguments do not make the effect equal).
    pub changed_callee: Option<String>,
}

/// A matched pair of loops run in lockstep: each version's body runs while its own activity
/// guard holds, and the shared jump back at `back` repeats while either does.
#[derive(Clone, Debug)]
pub struct Lockstep {
    /// Position of `loop := act || act'`, where both activity guards are final for the
    /// iteration.
    pub test: Pos,
    /// Position of the shared backward jump.
    pub back: Pos,
    pub act_old: GuardId,
    pub act_new: GuardId,
    pub old_line: u32,
    pub new_line: u32,
    /// Each version's own backward jump (index in its GCL function).
    pub old_back: Pos,
    pub new_back: Pos,
}

/// Corresponding variables of the two versions.
#[derive(Clone, Debug)]
pub struct VarPair {
    pub old: VarId,
    pub new: VarId,
}

/// An input of the pair of functions (parameter or global) with its untouched copy.
#[derive(Clone, Debug)]
pub struct Input {
    pub old: Option<VarId>,
    pub new: Option<VarId>,
    pub copy: VarId,
    /// Whether the two sides may be assumed equal at entry: always for parameters; for a
    /// global only when both versions declare it with the same type and initializer (a changed
    /// initializer, e.g. of a static local, is a change of behaviour, not an equal input).
    pub equal: bool,
}

#[derive(Clone, Debug)]
pub struct Correlated {
    /// Old program, new program (tagged) and the product function, merged.
    pub program: GclProgram,
    /// The product function in `program.functions`.
    pub func: FuncId,
    pub name: String,
    /// Where each instruction of the product comes from.
    pub origins: IdVec<Pos, Origin>,
    /// Product positions right after a matched pair.
    pub converge: Vec<Pos>,
    pub diff_points: Vec<DiffPoint>,
    /// Matched loops run in lockstep, by their shared back jump.
    pub lockstep: Vec<Lockstep>,
    /// The control-flow graph of the product function.
    pub cfg: crate::gcl::Cfg,
    pub pairs: Vec<VarPair>,
    pub inputs: Vec<Input>,
    pub old_retval: Option<VarId>,
    pub new_retval: Option<VarId>,
    pub old_ret: GuardId,
    pub new_ret: GuardId,
    /// Which version each variable of the product belongs to (input copies and loop control
    /// are glue); a `'` in a name is for people only.
    pub var_sides: Vec<Side>,
    /// Which version each guard of the product belongs to.
    pub guard_sides: Vec<Side>,
    /// Which version each function of the merged program comes from (the product is glue).
    pub function_sides: Vec<Side>,
    pub old_file: String,
    pub new_file: String,
    /// Locals paired by an inferred rename `(old, new)` (besides `--map`), for the report.
    pub renamed: Vec<(String, String)>,
}

impl Correlated {
    pub fn product(&self) -> &GclFunction {
        &self.program.functions[self.func.index()]
    }

    /// Where the instruction at `p` comes from (glue for the exit).
    pub fn origin(&self, p: Pos) -> Origin {
        self.origins.get(p).copied().unwrap_or(Origin {
            side: Side::Glue,
            src: None,
            matched: false,
        })
    }

    /// The inferred renames as `old → new, …`; `None` when there are none.
    pub fn renamed_text(&self) -> Option<String> {
        let pairs: Vec<String> = self
            .renamed
            .iter()
            .map(|(o, n)| format!("{o} → {n}"))
            .collect();
        (!pairs.is_empty()).then(|| pairs.join(", "))
    }

    pub fn var_side(&self, v: VarId) -> Side {
        self.var_sides.get(v.index()).copied().unwrap_or(Side::Glue)
    }

    pub fn guard_side(&self, g: GuardId) -> Side {
        self.guard_sides
            .get(g.index())
            .copied()
            .unwrap_or(Side::Glue)
    }

    /// The version the function `name` of the merged program comes from.
    pub fn function_side(&self, name: &str) -> Side {
        self.program
            .functions
            .iter()
            .position(|f| f.name == name)
            .and_then(|i| self.function_sides.get(i).copied())
            .unwrap_or(Side::Glue)
    }

    /// The name of a function or variable as its own version calls it (without the tag the
    /// merged program adds to the new version's names).
    pub fn source_name<'n>(&self, name: &'n str) -> &'n str {
        name.strip_suffix('\'').unwrap_or(name)
    }
}

/// Build `old.function ⋈ new.function`.
pub fn correlate(
    old: &GclProgram,
    new: &GclProgram,
    function: &str,
    opts: &Options,
) -> Result<Correlated> {
    let fo = old
        .function(function)
        .ok_or_else(|| no_function(old, function))?;
    let fnew = new
        .function(function)
        .ok_or_else(|| no_function(new, function))?;
    let seen: HashSet<String> = visible_globals(old, function)
        .union(&visible_globals(new, function))
        .cloned()
        .collect();
    let (fo, fnew) = (
        &with_globals(fo, old, &seen),
        &with_globals(fnew, new, &seen),
    );
    let renamed = infer_renames(fo, fnew, &opts.map);
    let with_inferred;
    let opts = if renamed.is_empty() {
        opts
    } else {
        let mut o = opts.clone();
        o.map.extend(renamed.iter().cloned());
        with_inferred = o;
        &with_inferred
    };
    let base = Remap::for_new(old, new);
    let mut program = base.merge_programs(old, new);
    let remap = base.for_product(fo);
    let mut builder = Builder::new(fo, fnew, &remap, opts);
    builder.old_defined = old.functions.iter().map(|f| f.name.clone()).collect();
    builder.new_defined = new.functions.iter().map(|f| f.name.clone()).collect();
    builder.old_effect_free = effect_free(old);
    builder.new_effect_free = effect_free(new);
    builder.old_addr_taken = crate::changes::CallGraph::new(old).address_taken().clone();
    builder.new_addr_taken = crate::changes::CallGraph::new(new).address_taken().clone();
    builder.old_globals = old.program.globals.clone();
    builder.new_globals = new.program.globals.clone();
    let product = builder.build()?;
    let (pf, meta) = product;
    let cfg = crate::gcl::Cfg::new(&pf);
    let mut function_sides = vec![Side::Old; old.functions.len()];
    function_sides.resize(program.functions.len(), Side::New);
    function_sides.push(Side::Glue);
    program.functions.push(pf);
    let func = FuncId::new(program.functions.len() - 1);
    Ok(Correlated {
        program,
        func,
        name: function.to_string(),
        origins: IdVec::from_vec(meta.origins),
        converge: meta.converge.into_iter().map(Pos::new).collect(),
        diff_points: meta.diff_points,
        lockstep: meta.lockstep,
        cfg,
        pairs: meta.pairs,
        inputs: meta.inputs,
        old_retval: fo.retval,
        new_retval: fnew.retval.map(|v| remap.var(v)),
        old_ret: fo.ret_flag,
        new_ret: remap.guard(fnew.ret_flag),
        var_sides: meta.var_sides,
        guard_sides: meta.guard_sides,
        function_sides,
        old_file: old.program.file.clone(),
        new_file: new.program.file.clone(),
        renamed,
    })
}

/// Locals renamed between the versions, as `(old name, new name)`: a local whose name only one
/// version uses is paired with the next such local of the other version with the same type (in
/// declaration order), and the pairs are kept that let more instructions match — counted as the
/// keys both versions share, with `map` (the user's `--map`) already applied. Locals are never
/// compared at diff points (only the return value, globals and effects are), so a wrong pairing
/// costs precision, never soundness; it lets the syntactic diff match the renamed code, which the
/// analysis needs for relational facts and congruence beyond the numeric domain.
fn infer_renames(
    fo: &GclFunction,
    fnew: &GclFunction,
    map: &[(String, String)],
) -> Vec<(String, String)> {
    let names = |f: &GclFunction| -> HashSet<String> {
        f.func.vars.iter().map(|v| v.name.clone()).collect()
    };
    let (old_names, new_names) = (names(fo), names(fnew));
    let lonely = |f: &GclFunction, other: &HashSet<String>, mapped: &dyn Fn(&str) -> bool| {
        f.func
            .vars
            .iter()
            .filter(|v| v.kind == VarKind::Local && !other.contains(&v.name) && !mapped(&v.name))
            .cloned()
            .collect::<Vec<_>>()
    };
    let old_only = lonely(fo, &new_names, &|n| map.iter().any(|(o, _)| o == n));
    let mut new_only = lonely(fnew, &old_names, &|n| map.iter().any(|(_, m)| m == n));
    let mut candidates = vec![];
    for o in &old_only {
        if let Some(k) = new_only
            .iter()
            .position(|n| n.ty == o.ty && n.addr_taken == o.addr_taken)
        {
            candidates.push((o.name.clone(), new_only.remove(k).name));
        }
    }
    if candidates.is_empty() {
        return candidates;
    }
    // Shared keys (multiset intersection) of the two versions under a rename map.
    let old_keys = keys::Keys::new(fo, HashMap::new());
    let mut old_count: HashMap<String, usize> = HashMap::new();
    for i in 0..fo.instrs.len() {
        *old_count.entry(old_keys.instr(i)).or_default() += 1;
    }
    let shared = |extra: &[(String, String)]| -> usize {
        let rename: HashMap<String, String> = map
            .iter()
            .chain(extra)
            .map(|(o, n)| (n.clone(), o.clone()))
            .collect();
        let k = keys::Keys::new(fnew, rename);
        let mut left = old_count.clone();
        let mut n = 0;
        for i in 0..fnew.instrs.len() {
            if let Some(c) = left.get_mut(&k.instr(i)).filter(|c| **c > 0) {
                *c -= 1;
                n += 1;
            }
        }
        n
    };
    // Backward elimination: drop each pair whose removal loses no shared key (a rename's uses
    // often mention other renamed locals, so pairs are judged together, not one by one). A few
    // dozen pairs at most: beyond that, renaming is not what changed.
    candidates.truncate(64);
    let mut best = shared(&candidates);
    if best <= shared(&[]) {
        return vec![];
    }
    let mut k = 0;
    while k < candidates.len() {
        let mut without = candidates.clone();
        without.remove(k);
        let n = shared(&without);
        if n >= best {
            candidates = without;
            best = n;
        } else {
            k += 1;
        }
    }
    candidates
}

/// Names of the globals `function` can see: those it or a function of the file it calls
/// (transitively, through pointers too) refers to.
fn visible_globals(p: &GclProgram, function: &str) -> HashSet<String> {
    let mut reach = crate::changes::CallGraph::new(p).reachable(function);
    reach.insert(function.to_string());
    let mut out = HashSet::new();
    for f in reach.iter().filter_map(|n| p.function(n)) {
        for v in &f.func.vars {
            if let VarKind::Global(g) = v.kind {
                out.insert(p.program.globals[g.index()].name.clone());
            }
        }
    }
    out
}

/// `f` with a variable for each global of `names` that `p` declares and `f` does not refer to.
/// Both versions then carry every global either one can change, so the exit compares it: a
/// version that never touches a global leaves it as it was, and a store to it in the other
/// version alone is a difference (calls forget such globals like any other).
fn with_globals(f: &GclFunction, p: &GclProgram, names: &HashSet<String>) -> GclFunction {
    let mut f = f.clone();
    let have: HashSet<String> = f
        .func
        .vars
        .iter()
        .filter(|v| matches!(v.kind, VarKind::Global(_)))
        .map(|v| v.name.clone())
        .collect();
    let mut missing: Vec<(usize, &crate::ir::GlobalVar)> = p
        .program
        .globals
        .iter()
        .enumerate()
        .filter(|(_, g)| names.contains(&g.name) && !have.contains(&g.name))
        .collect();
    missing.sort_by(|a, b| a.1.name.cmp(&b.1.name));
    for (i, g) in missing {
        f.func.vars.push(VarInfo {
            name: g.name.clone(),
            ty: g.ty.clone(),
            kind: VarKind::Global(crate::ir::GlobalId::new(i)),
            addr_taken: false,
            volatile: g.is_volatile,
            line: g.line,
        });
    }
    f
}

fn no_function(p: &GclProgram, name: &str) -> Error {
    match p.program.rejected.iter().find(|(n, _)| n == name) {
        Some((_, e)) => e.clone(),
        None => Error::in_file(
            p.program.file.clone(),
            format!("no function `{name}` defined in this file"),
        ),
    }
}

/// Run the product on `args` (C literals for its parameters: the old function's, then any
/// parameter only the new one has) and give the old and new return values as C literals.
pub fn run(
    c: &Correlated,
    args: &[String],
    budget: u64,
) -> std::result::Result<(String, String), RunError> {
    let f = c.product();
    if args.len() != f.func.params.len() {
        return Err(RunError::BadArgs(format!(
            "`{}` takes {} argument{}, {} given",
            c.name,
            f.func.params.len(),
            if f.func.params.len() == 1 { "" } else { "s" },
            args.len()
        )));
    }
    let mut vals = vec![];
    for (a, p) in args.iter().zip(&f.func.params) {
        let ty = &f.func.var(*p).ty;
        vals.push(interp::parse_arg(a, ty).map_err(RunError::BadArgs)?);
    }
    // The product returns the old version's `retval`; a second run of the same product that
    // returns the new one's keeps the interpreter unaware of correlation.
    let mut results = vec![];
    for (rv, flag) in [(c.old_retval, c.old_ret), (c.new_retval, c.new_ret)] {
        let mut prog = c.program.clone();
        prog.functions[c.func.index()].retval = rv;
        prog.functions[c.func.index()].ret_flag = flag;
        prog.functions[c.func.index()].func.ret = match rv {
            Some(v) => f.func.var(v).ty.clone(),
            None => CType::Void,
        };
        let mut it = interp::Interp::new(&prog).with_budget(budget);
        let out = it.call(&f.name, &vals)?;
        results.push(match (out.ret, rv) {
            (Some(val), Some(v)) => interp::format_value(&val, &f.func.var(v).ty),
            _ => "void".to_string(),
        });
    }
    let new_s = results.pop().unwrap_or_default();
    let old_s = results.pop().unwrap_or_default();
    Ok((old_s, new_s))
}

// ------------------------------------------------------------------------------------------

enum Op<'i> {
    Both(&'i Item, &'i Item),
    Old(&'i Item),
    New(&'i Item),
}

#[derive(Default)]
struct Meta {
    origins: Vec<Origin>,
    converge: Vec<usize>,
    diff_points: Vec<DiffPoint>,
    lockstep: Vec<Lockstep>,
    pairs: Vec<VarPair>,
    inputs: Vec<Input>,
    var_sides: Vec<Side>,
    guard_sides: Vec<Side>,
}

/// Cells of the alignment table above which the middle of a long edit is left unaligned
/// (still correct, only less precise).
const MAX_DP_CELLS: usize = 30_000_000;

struct Builder<'a> {
    old: &'a GclFunction,
    new: &'a GclFunction,
    remap: &'a Remap,
    opts: &'a Options,
    okeys: Vec<String>,
    nkeys: Vec<String>,
    vars: Vec<VarInfo>,
    guards: Vec<GuardInfo>,
    /// Product label positions; old labels first, then new, then the product's own.
    labels: Vec<Option<usize>>,
    instrs: Vec<Instr>,
    meta: Meta,
    loop_count: usize,
    loop_weight: HashMap<(usize, usize), usize>,
    old_defined: HashSet<String>,
    new_defined: HashSet<String>,
    /// Functions of each version without observable effects (see [`effect_free`]).
    old_effect_free: HashSet<String>,
    new_effect_free: HashSet<String>,
    /// Functions whose address each version takes (targets of its indirect calls).
    old_addr_taken: std::collections::BTreeSet<String>,
    new_addr_taken: std::collections::BTreeSet<String>,
    /// Globals of the two programs as declared (the merged program shifts the new ones past
    /// the old ones).
    old_globals: Vec<crate::ir::GlobalVar>,
    new_globals: Vec<crate::ir::GlobalVar>,
}

impl<'a> Builder<'a> {
    fn new(
        old: &'a GclFunction,
        new: &'a GclFunction,
        remap: &'a Remap,
        opts: &'a Options,
    ) -> Self {
        let ko = keys::Keys::new(old, HashMap::new());
        // Renamed variables compare under their old names, so their instructions can match.
        let kn = keys::Keys::new(
            new,
            opts.map
                .iter()
                .map(|(o, n)| (n.clone(), o.clone()))
                .collect(),
        );
        let okeys = (0..old.instrs.len()).map(|i| ko.instr(i)).collect();
        let nkeys = (0..new.instrs.len()).map(|i| kn.instr(i)).collect();
        Builder {
            old,
            new,
            remap,
            opts,
            okeys,
            nkeys,
            vars: vec![],
            guards: vec![],
            labels: vec![None; old.labels.len() + new.labels.len()],
            instrs: vec![],
            meta: Meta::default(),
            loop_count: 0,
            loop_weight: HashMap::new(),
            old_defined: HashSet::new(),
            new_defined: HashSet::new(),
            old_effect_free: HashSet::new(),
            new_effect_free: HashSet::new(),
            old_addr_taken: Default::default(),
            new_addr_taken: Default::default(),
            old_globals: vec![],
            new_globals: vec![],
        }
    }

    fn build(mut self) -> Result<(GclFunction, Meta)> {
        let (old, new) = (self.old, self.new);
        // Variables: old as they are, new tagged, then input copies.
        self.vars = old.func.vars.clone();
        for v in &new.func.vars {
            let mut v = v.clone();
            v.name = format!("{}'", v.name);
            v.ty = self.remap.ty(&v.ty);
            if let VarKind::Global(g) = v.kind {
                v.kind = VarKind::Global(self.remap.global(g));
            }
            self.vars.push(v);
        }
        self.guards = old.guards.clone();
        for g in &new.guards {
            let mut g = g.clone();
            g.name = format!("{}'", g.name);
            self.guards.push(g);
        }
        self.meta.var_sides = [
            (old.func.vars.len(), Side::Old),
            (new.func.vars.len(), Side::New),
        ]
        .iter()
        .flat_map(|&(n, side)| std::iter::repeat_n(side, n))
        .collect();
        self.meta.guard_sides = [(old.guards.len(), Side::Old), (new.guards.len(), Side::New)]
            .iter()
            .flat_map(|&(n, side)| std::iter::repeat_n(side, n))
            .collect();
        let mut params = old.func.params.clone();
        // Parameters correspond by position unless mapped by name.
        let mut param_pairs = vec![];
        for (k, np) in new.func.params.iter().enumerate() {
            let nname = &new.func.var(*np).name;
            let mapped = self
                .opts
                .map
                .iter()
                .find(|(_, n)| n == nname)
                .and_then(|(o, _)| old.func.find_var(o));
            let op = mapped.or_else(|| old.func.params.get(k).copied());
            let nv = self.remap.var(*np);
            match op {
                Some(op) if old.func.var(op).kind == VarKind::Param => {
                    self.vars[nv.index()].kind = VarKind::Local;
                    param_pairs.push((op, nv));
                }
                _ => params.push(nv),
            }
        }
        // Inputs: parameters, then globals either version references.
        let line = old.func.line;
        for &p in &old.func.params {
            let newp = param_pairs.iter().find(|(o, _)| *o == p).map(|x| x.1);
            self.add_input(Some(p), newp, line);
        }
        for &p in params.iter().skip(old.func.params.len()) {
            self.add_input(None, Some(p), line);
        }
        let mut new_globals: Vec<VarId> = (0..new.func.vars.len())
            .map(VarId::new)
            .filter(|v| matches!(new.func.var(*v).kind, VarKind::Global(_)))
            .collect();
        for (i, v) in old.func.vars.iter().enumerate() {
            if let VarKind::Global(_) = v.kind {
                let partner = self.partner_name(&v.name);
                let nv = partner.and_then(|n| {
                    let pos = new_globals
                        .iter()
                        .position(|x| new.func.var(*x).name == n)?;
                    Some(self.remap.var(new_globals.remove(pos)))
                });
                self.add_input(Some(VarId::new(i)), nv, line);
            }
        }
        for nv in new_globals {
            let nv = self.remap.var(nv);
            self.add_input(None, Some(nv), line);
        }
        // Prologue: equal inputs, untouched copies.
        for (o, n) in &param_pairs {
            let ty = self.vars[n.index()].ty.clone();
            self.push_glue(
                Guard::default(),
                InstrKind::Assign(Place::Var(*n), Expr::var(*o, ty)),
                line,
            );
        }
        for k in 0..self.meta.inputs.len() {
            let inp = self.meta.inputs[k].clone();
            let src = inp.old.or(inp.new).expect("input has a side");
            let ty = self.vars[src.index()].ty.clone();
            if ty.is_scalar() {
                self.push_glue(
                    Guard::default(),
                    InstrKind::Assign(Place::Var(inp.copy), Expr::var(src, ty)),
                    line,
                );
            }
        }
        self.pair_variables(&param_pairs);

        let oitems = structure::items(old);
        let nitems = structure::items(new);
        self.emit_seq(&oitems, &nitems, &[], &[]);
        // Labels never reached by a position (targets at the very end) point at the exit.
        let end = self.instrs.len();
        for l in self.labels.iter_mut() {
            if l.is_none() {
                *l = Some(end);
            }
        }
        let exit_pairs = self.exit_pairs();
        self.meta.diff_points.push(DiffPoint {
            pos: Pos::new(end),
            kind: DiffKind::Exit,
            old_line: old.func.end_line.0,
            new_line: new.func.end_line.0,
            label: format!("exit@{}/{}", old.func.end_line.0, new.func.end_line.0),
            pairs: exit_pairs,
            old_pos: None,
            new_pos: None,
            changed_callee: None,
        });
        let mut func = old.func.clone();
        func.name = format!("{}^{}'", old.name, new.name);
        func.vars = self.vars;
        func.params = params;
        func.body = vec![];
        let pf = GclFunction {
            name: func.name.clone(),
            func,
            guards: self.guards,
            instrs: self.instrs,
            labels: self.labels.into_iter().map(|l| l.unwrap_or(end)).collect(),
            retval: old.retval,
            ret_flag: old.ret_flag,
        };
        Ok((pf, self.meta))
    }

    fn partner_name(&self, old_name: &str) -> Option<String> {
        match self.opts.map.iter().find(|(o, _)| o == old_name) {
            Some((_, n)) => Some(n.clone()),
            None => Some(old_name.to_string()),
        }
    }

    /// Parameters always start equal; globals when declared alike (see [`Input::equal`]).
    fn same_initial_value(&self, o: VarId, n: VarId) -> bool {
        let (VarKind::Global(go), VarKind::Global(gn)) =
            (self.vars[o.index()].kind, self.vars[n.index()].kind)
        else {
            return true;
        };
        let b = gn
            .index()
            .checked_sub(self.old_globals.len())
            .and_then(|i| self.new_globals.get(i));
        let (Some(a), Some(b)) = (self.old_globals.get(go.index()), b) else {
            return false;
        };
        // Compared through their debug form: a spurious mismatch only loses precision.
        a.ty == b.ty
            && a.is_extern == b.is_extern
            && format!("{:?}", a.init) == format!("{:?}", b.init)
    }

    fn add_input(&mut self, old: Option<VarId>, new: Option<VarId>, line: Line) {
        let src = old.or(new).expect("input has a side");
        let base = self.vars[src.index()]
            .name
            .trim_end_matches('\'')
            .to_string();
        let ty = self.vars[src.index()].ty.clone();
        self.vars.push(VarInfo {
            name: format!("{base}₀"),
            ty,
            kind: VarKind::Local,
            addr_taken: false,
            volatile: false,
            line,
        });
        let copy = VarId::new(self.vars.len() - 1);
        self.meta.var_sides.push(Side::Glue);
        let equal = match (old, new) {
            (Some(o), Some(n)) => self.same_initial_value(o, n),
            _ => false,
        };
        self.meta.inputs.push(Input {
            old,
            new,
            copy,
            equal,
        });
    }

    /// Corresponding variables: parameters by position (or map), everything else by name.
    fn pair_variables(&mut self, param_pairs: &[(VarId, VarId)]) {
        let (old, new) = (self.old, self.new);
        let mut pairs: Vec<VarPair> = param_pairs
            .iter()
            .map(|(o, n)| VarPair { old: *o, new: *n })
            .collect();
        let mut by_name: HashMap<&str, VarId> = HashMap::new();
        for (i, v) in new.func.vars.iter().enumerate() {
            if v.kind != VarKind::Param {
                by_name.insert(v.name.as_str(), VarId::new(i));
            }
        }
        for (i, v) in old.func.vars.iter().enumerate() {
            if v.kind == VarKind::Param {
                continue;
            }
            let name = self.partner_name(&v.name).unwrap_or_default();
            if let Some(&nv) = by_name.get(name.as_str()) {
                if new.func.var(nv).ty.is_scalar() == v.ty.is_scalar() {
                    pairs.push(VarPair {
                        old: VarId::new(i),
                        new: self.remap.var(nv),
                    });
                }
            }
        }
        // retval ↔ retval' even if the frontends named them alike already
        if let (Some(o), Some(n)) = (old.retval, new.retval) {
            let n = self.remap.var(n);
            if !pairs.iter().any(|p| p.old == o) {
                pairs.push(VarPair { old: o, new: n });
            }
        }
        self.meta.pairs = pairs;
    }

    fn pair_index(&self, old: VarId) -> Option<usize> {
        self.meta.pairs.iter().position(|p| p.old == old)
    }

    /// Compared at the exit: the return value and every global either version may write.
    /// A global neither writes keeps its initial value, which is the program's state, not the
    /// function's behaviour (even when the versions initialize it differently).
    fn exit_pairs(&self) -> Vec<usize> {
        let mut out = vec![];
        if let Some(r) = self.old.retval {
            out.extend(self.pair_index(r));
        }
        let (wo, any_o) = written_globals(self.old);
        let (wn, any_n) = written_globals(self.new);
        for (k, p) in self.meta.pairs.iter().enumerate() {
            let info = &self.vars[p.old.index()];
            if !matches!(info.kind, VarKind::Global(_)) {
                continue;
            }
            let new_name = self.vars[p.new.index()].name.trim_end_matches('\'');
            if any_o || any_n || wo.contains(info.name.as_str()) || wn.contains(new_name) {
                out.push(k);
            }
        }
        out
    }

    // -------------------------------------------------------------------------- emission

    fn push(&mut self, guard: Guard, kind: InstrKind, line: Line, origin: Origin) {
        self.instrs.push(Instr { guard, kind, line });
        self.meta.origins.push(origin);
    }

    fn push_glue(&mut self, guard: Guard, kind: InstrKind, line: Line) {
        self.push(
            guard,
            kind,
            line,
            Origin {
                side: Side::Glue,
                src: None,
                matched: false,
            },
        );
    }

    fn set_labels_at(&mut self, side: Side, idx: usize) {
        let pos = self.instrs.len();
        let (f, off) = match side {
            Side::Old => (self.old, 0),
            _ => (self.new, self.old.labels.len()),
        };
        for (l, &at) in f.labels.iter().enumerate() {
            if at == idx && self.labels[off + l].is_none() {
                self.labels[off + l] = Some(pos);
            }
        }
    }

    fn emit_instr(&mut self, side: Side, i: usize, extra: &[Lit], matched: bool) {
        self.set_labels_at(side, i);
        let (ins, origin) = match side {
            Side::Old => (
                self.old.instrs[i].clone(),
                Origin {
                    side,
                    src: Some(i),
                    matched,
                },
            ),
            _ => (
                self.remap.instr(&self.new.instrs[i]),
                Origin {
                    side,
                    src: Some(i),
                    matched,
                },
            ),
        };
        let mut guard = ins.guard;
        guard.0.extend_from_slice(extra);
        let kind = match ins.kind {
            InstrKind::Goto(l) if side != Side::Old => {
                InstrKind::Goto(Label::new(l.index() + self.old.labels.len()))
            }
            k => k,
        };
        self.push(guard, kind, ins.line, origin);
    }

    /// Emit an item of one version without a partner.
    fn emit_single(&mut self, side: Side, item: &Item, extra: &[Lit]) {
        let mut idx = vec![];
        structure::indices(item, &mut idx);
        for &i in &idx {
            if let Some(kind) = self.effect_of(side, i) {
                let pos = self.instrs.len();
                let line = match side {
                    Side::Old => self.old.instrs[i].line.0,
                    _ => self.new.instrs[i].line.0,
                };
                let name = match &kind {
                    DiffKind::Output(n) | DiffKind::Effect(n) => n.clone(),
                    _ => String::new(),
                };
                let (old_line, new_line, label, old_pos, new_pos) = match side {
                    Side::Old => (line, 0, format!("{name}@{line}/-"), Some(pos), None),
                    _ => (0, line, format!("{name}@-/{line}"), None, Some(pos)),
                };
                self.meta.diff_points.push(DiffPoint {
                    pos: Pos::new(pos),
                    kind,
                    old_line,
                    new_line,
                    label,
                    pairs: vec![],
                    old_pos: old_pos.map(Pos::new),
                    new_pos: new_pos.map(Pos::new),
                    changed_callee: None,
                });
            }
            self.emit_instr(side, i, extra, false);
        }
        if let Item::Opaque { end, .. } = item {
            // Forward jumps out of the block land right after it.
            self.set_labels_at(side, end + 1);
        }
    }

    fn emit_seq(&mut self, oi: &[Item], ni: &[Item], ox: &[Lit], nx: &[Lit]) {
        let ops = self.align(oi, ni);
        for op in ops {
            match op {
                Op::Old(it) => self.emit_single(Side::Old, it, ox),
                Op::New(it) => self.emit_single(Side::New, it, nx),
                Op::Both(Item::Instr(i), Item::Instr(j)) => self.emit_pair(*i, *j, ox, nx),
                Op::Both(
                    Item::Loop {
                        head: ho,
                        back: bo,
                        body: bodyo,
                    },
                    Item::Loop {
                        head: hn,
                        back: bn,
                        body: bodyn,
                    },
                ) => self.emit_loop_pair((*ho, *bo, bodyo), (*hn, *bn, bodyn), ox, nx),
                Op::Both(a, b) => {
                    self.emit_single(Side::Old, a, ox);
                    self.emit_single(Side::New, b, nx);
                }
            }
        }
    }

    fn emit_pair(&mut self, i: usize, j: usize, ox: &[Lit], nx: &[Lit]) {
        let (oi, ni) = (&self.old.instrs[i], &self.new.instrs[j]);
        // Effects: compare before the pair produces them.
        let (eo, en) = (self.effect_of(Side::Old, i), self.effect_of(Side::New, j));
        if let Some(kind) = eo.clone().or(en.clone()) {
            let pos = self.instrs.len();
            let pairs = match &oi.kind {
                InstrKind::Call { args, .. } => self.arg_pairs(args),
                _ => vec![],
            };
            let name = match &kind {
                DiffKind::Output(n) | DiffKind::Effect(n) => n.clone(),
                _ => String::new(),
            };
            let changed_callee = self
                .changed_target(Side::Old, i)
                .or_else(|| self.changed_target(Side::New, j));
            self.meta.diff_points.push(DiffPoint {
                pos: Pos::new(pos),
                kind,
                old_line: oi.line.0,
                new_line: ni.line.0,
                label: format!("{name}@{}/{}", oi.line.0, ni.line.0),
                pairs,
                old_pos: eo.map(|_| Pos::new(pos)),
                new_pos: en.map(|_| Pos::new(pos + 1)),
                changed_callee,
            });
        }
        let is_return = matches!(&oi.kind, InstrKind::SetGuard(g, e) if *g == self.old.ret_flag && matches!(e.kind, ExprKind::Int(1)))
            && matches!(&ni.kind, InstrKind::SetGuard(g, e) if *g == self.new.ret_flag && matches!(e.kind, ExprKind::Int(1)));
        let (ol, nl) = (oi.line.0, ni.line.0);
        self.emit_instr(Side::Old, i, ox, true);
        self.emit_instr(Side::New, j, nx, true);
        self.meta.converge.push(self.instrs.len());
        if is_return {
            let mut pairs: Vec<usize> = self
                .old
                .retval
                .and_then(|r| self.pair_index(r))
                .into_iter()
                .collect();
            for k in self.exit_pairs() {
                if !pairs.contains(&k) {
                    pairs.push(k);
                }
            }
            self.meta.diff_points.push(DiffPoint {
                pos: Pos::new(self.instrs.len()),
                kind: DiffKind::Return,
                old_line: ol,
                new_line: nl,
                label: format!("return@{ol}/{nl}"),
                pairs,
                old_pos: None,
                new_pos: None,
                changed_callee: None,
            });
        }
    }

    /// Whether instruction `i` of one version has an effect the caller or the outside can
    /// observe: output, a call that may have one (unknown functions, helpers of the file that
    /// are not effect-free, calls through pointers), a store to memory that outlives the call,
    /// or an access to a volatile object.
    fn effect_of(&self, side: Side, i: usize) -> Option<DiffKind> {
        let (f, defined, effect_free) = if side == Side::Old {
            (self.old, &self.old_defined, &self.old_effect_free)
        } else {
            (self.new, &self.new_defined, &self.new_effect_free)
        };
        let kind = &f.instrs[i].kind;
        if touches_volatile(kind, &f.func) {
            return Some(DiffKind::Effect("volatile access".into()));
        }
        match kind {
            InstrKind::Call {
                callee: Callee::Direct(n),
                ..
            } => {
                if defined.contains(n) {
                    // A helper of this file: only its result matters when it has no effect
                    // (its writes to globals are compared at the exit); otherwise the call is
                    // compared like any other effect.
                    (!effect_free.contains(n)).then(|| DiffKind::Effect(n.clone()))
                } else if self.opts.output_functions.iter().any(|o| o == n) {
                    Some(DiffKind::Output(n.clone()))
                } else if PURE_FUNCTIONS.contains(&n.as_str()) {
                    None
                } else {
                    Some(DiffKind::Effect(n.clone()))
                }
            }
            InstrKind::Call {
                callee: Callee::Indirect(_),
                ..
            } => Some(DiffKind::Effect("indirect call".into())),
            InstrKind::Assign(p, _) if !is_local_place(p, &f.func) => {
                Some(DiffKind::Effect("store".into()))
            }
            _ => None,
        }
    }

    /// For a call instruction of one version: a function of the file whose behaviour differs
    /// between the versions and that the call may reach (directly, or through a pointer), so
    /// that equal arguments do not make the call's effect equal.
    fn changed_target(&self, side: Side, i: usize) -> Option<String> {
        let (f, defined, taken) = if side == Side::Old {
            (self.old, &self.old_defined, &self.old_addr_taken)
        } else {
            (self.new, &self.new_defined, &self.new_addr_taken)
        };
        let changed = |n: &str| match &self.opts.changed {
            Some(c) => c.contains(n),
            None => true,
        };
        match &f.instrs[i].kind {
            InstrKind::Call {
                callee: Callee::Direct(n),
                ..
            } => (defined.contains(n) && changed(n)).then(|| n.clone()),
            InstrKind::Call {
                callee: Callee::Indirect(_),
                ..
            } => {
                let mut cands: Vec<&String> = taken.iter().filter(|n| changed(n)).collect();
                cands.sort();
                cands.first().map(|n| n.to_string())
            }
            _ => None,
        }
    }

    fn arg_pairs(&self, args: &[Expr]) -> Vec<usize> {
        let vars: Vec<VarId> = args.iter().flat_map(Expr::vars).collect();
        let mut out: Vec<usize> = vars
            .into_iter()
            .filter_map(|v| self.pair_index(v))
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }

    fn emit_loop_pair(
        &mut self,
        (ho, bo, bodyo): (usize, usize, &[Item]),
        (hn, bn, bodyn): (usize, usize, &[Item]),
        ox: &[Lit],
        nx: &[Lit],
    ) {
        self.loop_count += 1;
        let k = self.loop_count;
        let line_o = self.old.instrs[ho].line;
        let line_n = self.new.instrs[hn].line;
        let act_o = self.new_guard(format!("act{k}"), line_o, Side::Old);
        let act_n = self.new_guard(format!("act{k}'"), line_n, Side::New);
        let any = self.new_guard(format!("loop{k}"), line_o, Side::Glue);
        let one = Expr::int(1, CType::INT);
        let mo = Origin {
            side: Side::Old,
            src: None,
            matched: true,
        };
        let mn = Origin {
            side: Side::New,
            src: None,
            matched: true,
        };
        self.push(
            Guard(ox.to_vec()),
            InstrKind::SetGuard(act_o, one.clone()),
            line_o,
            mo,
        );
        self.push(
            Guard(nx.to_vec()),
            InstrKind::SetGuard(act_n, one),
            line_n,
            mn,
        );
        let head = self.instrs.len();
        self.labels.push(Some(head));
        let lx = Label::new(self.labels.len() - 1);
        self.set_labels_at(Side::Old, ho);
        self.set_labels_at(Side::New, hn);
        let mut oxx = ox.to_vec();
        oxx.push(Lit {
            guard: act_o,
            positive: true,
        });
        let mut nxx = nx.to_vec();
        nxx.push(Lit {
            guard: act_n,
            positive: true,
        });
        self.emit_seq(bodyo, bodyn, &oxx, &nxx);
        // Back edges become "still active" updates.
        let back_o = self.old.instrs[bo].clone();
        let back_n = self.remap.instr(&self.new.instrs[bn]);
        let co = conj(&back_o.guard);
        let cn = conj(&back_n.guard);
        self.push(
            Guard(oxx.clone()),
            InstrKind::SetGuard(act_o, co),
            back_o.line,
            Origin {
                side: Side::Old,
                src: Some(bo),
                matched: true,
            },
        );
        self.push(
            Guard(nxx.clone()),
            InstrKind::SetGuard(act_n, cn),
            back_n.line,
            Origin {
                side: Side::New,
                src: Some(bn),
                matched: true,
            },
        );
        let either = Expr::new(
            ExprKind::Logic(
                LogicOp::Or,
                Box::new(guard_expr(act_o)),
                Box::new(guard_expr(act_n)),
            ),
            CType::INT,
        );
        let glue = Origin {
            side: Side::Glue,
            src: None,
            matched: true,
        };
        let test = self.instrs.len();
        self.push(
            Guard::default(),
            InstrKind::SetGuard(any, either),
            back_o.line,
            glue,
        );
        self.meta.lockstep.push(Lockstep {
            test: Pos::new(test),
            back: Pos::new(test + 1),
            act_old: act_o,
            act_new: act_n,
            old_line: line_o.0,
            new_line: line_n.0,
            old_back: Pos::new(bo),
            new_back: Pos::new(bn),
        });
        self.push(
            Guard(vec![Lit {
                guard: any,
                positive: true,
            }]),
            InstrKind::Goto(lx),
            back_o.line,
            glue,
        );
        self.meta.converge.push(self.instrs.len());
    }

    fn new_guard(&mut self, name: String, line: Line, side: Side) -> GuardId {
        self.guards.push(GuardInfo {
            name,
            kind: GuardKind::Cond,
            line,
        });
        self.meta.guard_sides.push(side);
        GuardId::new(self.guards.len() - 1)
    }

    // -------------------------------------------------------------------------- alignment

    fn weight(&mut self, a: &Item, b: &Item) -> usize {
        match (a, b) {
            (Item::Instr(i), Item::Instr(j)) => usize::from(self.okeys[*i] == self.nkeys[*j]),
            (
                Item::Loop {
                    head: ho, body: bo, ..
                },
                Item::Loop {
                    head: hn, body: bn, ..
                },
            ) => {
                if let Some(&w) = self.loop_weight.get(&(*ho, *hn)) {
                    return w;
                }
                let ops = self.align(bo, bn);
                let mut w = 1;
                for op in &ops {
                    if let Op::Both(x, y) = op {
                        w += self.weight(x, y);
                    }
                }
                self.loop_weight.insert((*ho, *hn), w);
                w
            }
            _ => 0,
        }
    }

    /// Weighted LCS of two item lists; unmatched items of each gap come old-first.
    fn align<'i>(&mut self, a: &'i [Item], b: &'i [Item]) -> Vec<Op<'i>> {
        // Common prefix and suffix of identical instructions need no table.
        let mut pre = 0;
        while pre < a.len() && pre < b.len() && self.same_instr(&a[pre], &b[pre]) {
            pre += 1;
        }
        let mut suf = 0;
        while suf < a.len() - pre
            && suf < b.len() - pre
            && self.same_instr(&a[a.len() - 1 - suf], &b[b.len() - 1 - suf])
        {
            suf += 1;
        }
        let (ma, mb) = (&a[pre..a.len() - suf], &b[pre..b.len() - suf]);
        let mut ops: Vec<Op<'i>> = (0..pre).map(|k| Op::Both(&a[k], &b[k])).collect();
        let (n, m) = (ma.len(), mb.len());
        let mut mid: Vec<Op<'i>> = vec![];
        if n > 0 && m > 0 && (n + 1) * (m + 1) <= MAX_DP_CELLS {
            let w = m + 1;
            let mut dp = vec![0u32; (n + 1) * (m + 1)];
            for i in 1..=n {
                for j in 1..=m {
                    let mut best = dp[(i - 1) * w + j].max(dp[i * w + j - 1]);
                    let x = self.weight(&ma[i - 1], &mb[j - 1]);
                    if x > 0 {
                        best = best.max(dp[(i - 1) * w + j - 1] + x as u32);
                    }
                    dp[i * w + j] = best;
                }
            }
            let (mut i, mut j) = (n, m);
            let mut rev = vec![];
            while i > 0 || j > 0 {
                if i > 0 && j > 0 {
                    let x = self.weight(&ma[i - 1], &mb[j - 1]);
                    if x > 0 && dp[i * w + j] == dp[(i - 1) * w + j - 1] + x as u32 {
                        rev.push(Op::Both(&ma[i - 1], &mb[j - 1]));
                        i -= 1;
                        j -= 1;
                        continue;
                    }
                }
                if j > 0 && (i == 0 || dp[i * w + j - 1] >= dp[(i - 1) * w + j]) {
                    rev.push(Op::New(&mb[j - 1]));
                    j -= 1;
                } else {
                    rev.push(Op::Old(&ma[i - 1]));
                    i -= 1;
                }
            }
            rev.reverse();
            mid = rev;
        } else {
            mid.extend(ma.iter().map(Op::Old));
            mid.extend(mb.iter().map(Op::New));
        }
        // Old-first within each gap between matches.
        let mut gap_old = vec![];
        let mut gap_new = vec![];
        for op in mid {
            match op {
                Op::Old(x) => gap_old.push(Op::Old(x)),
                Op::New(x) => gap_new.push(Op::New(x)),
                both => {
                    ops.append(&mut gap_old);
                    ops.append(&mut gap_new);
                    ops.push(both);
                }
            }
        }
        ops.append(&mut gap_old);
        ops.append(&mut gap_new);
        let (sa, sb) = (a.len() - suf, b.len() - suf);
        ops.extend((0..suf).map(|k| Op::Both(&a[sa + k], &b[sb + k])));
        ops
    }

    fn same_instr(&self, a: &Item, b: &Item) -> bool {
        matches!((a, b), (Item::Instr(i), Item::Instr(j)) if self.okeys[*i] == self.nkeys[*j])
    }
}

/// A place inside the function's own frame (a local scalar, array or struct), as opposed to
/// memory the caller can see (through a pointer, or a global).
fn is_local_place(p: &Place, f: &crate::ir::Function) -> bool {
    match p {
        // A variable itself, global or not, is tracked and compared where it matters.
        Place::Var(_) => true,
        _ => match p.root_var() {
            Some(v) => !matches!(f.var(v).kind, VarKind::Global(_)),
            None => false,
        },
    }
}

/// Globals `f` writes by name, and whether it may write others it does not name (a store
/// through a pointer, a call of anything but a known pure library function).
fn written_globals(f: &GclFunction) -> (HashSet<&str>, bool) {
    let mut named = HashSet::new();
    let mut any = false;
    for ins in &f.instrs {
        if let InstrKind::Call { callee, .. } = &ins.kind {
            any |= !matches!(callee, Callee::Direct(n) if PURE_FUNCTIONS.contains(&n.as_str()));
        }
        if let Some(p) = ins.kind.dest() {
            match p.root_var() {
                Some(v) if matches!(f.func.var(v).kind, VarKind::Global(_)) => {
                    named.insert(f.func.var(v).name.as_str());
                }
                Some(_) => {}
                None => any = true,
            }
        }
    }
    (named, any)
}

/// Whether an instruction reads or writes a volatile variable.
fn touches_volatile(k: &InstrKind, f: &crate::ir::Function) -> bool {
    let mut hit = k
        .dest()
        .and_then(|p| p.root_var())
        .is_some_and(|v| f.var(v).volatile);
    k.walk_exprs(&mut |e| match &e.kind {
        ExprKind::Var(v) => hit |= f.var(*v).volatile,
        ExprKind::Load(p) => hit |= p.root_var().is_some_and(|v| f.var(v).volatile),
        _ => {}
    });
    hit
}

/// Functions of `p` whose calls have no observable effect besides their result and their writes
/// to globals: no output, no stores to memory outside their frame, no volatile access, and only
/// calls to known pure library functions or to other such functions (greatest fixpoint, so
/// recursion alone does not disqualify).
pub fn effect_free(p: &GclProgram) -> HashSet<String> {
    let mut ok: HashSet<String> = p.functions.iter().map(|f| f.name.clone()).collect();
    loop {
        let before = ok.len();
        for f in &p.functions {
            if !ok.contains(&f.name) {
                continue;
            }
            let clean = f.instrs.iter().all(|ins| {
                if touches_volatile(&ins.kind, &f.func) {
                    return false;
                }
                match &ins.kind {
                    InstrKind::Call {
                        callee: Callee::Direct(n),
                        dest,
                        ..
                    } => {
                        (PURE_FUNCTIONS.contains(&n.as_str()) || ok.contains(n))
                            && dest.as_ref().is_none_or(|d| is_local_place(d, &f.func))
                    }
                    InstrKind::Call { .. } => false,
                    InstrKind::Assign(pl, _) | InstrKind::Havoc(pl) | InstrKind::ZeroFill(pl) => {
                        is_local_place(pl, &f.func)
                    }
                    _ => true,
                }
            });
            if !clean {
                ok.remove(&f.name);
            }
        }
        if ok.len() == before {
            return ok;
        }
    }
}

fn guard_expr(g: GuardId) -> Expr {
    Expr::new(ExprKind::Guard(g), CType::INT)
}

/// A guard conjunction as an expression (`1` when empty).
fn conj(g: &Guard) -> Expr {
    let mut out: Option<Expr> = None;
    for l in &g.0 {
        let e = guard_expr(l.guard);
        let e = if l.positive {
            e
        } else {
            Expr::new(ExprKind::Unary(UnOp::LogNot, Box::new(e)), CType::INT)
        };
        out = Some(match out {
            None => e,
            Some(acc) => Expr::new(
                ExprKind::Logic(LogicOp::And, Box::new(acc), Box::new(e)),
                CType::INT,
            ),
        });
    }
    out.unwrap_or_else(|| Expr::int(1, CType::INT))
}
