//! Guarded command language (GCL): DIZY's "guarded instruction format".
//!
//! Takes a function's structured body ([`crate::ir::Stmt`]) and gives a flat list of labelled
//! instructions in which control flow is carried by boolean guard variables: `g := cond` guard
//! assignments, every other instruction executed only when a conjunction of guard literals holds,
//! loops as backward `goto`s, and `return`/`break`/`continue` as flags that guard what follows.
//! The correlator diffs two such lists; the interpreter and the analysis execute them.
//!
//! Execution model: instructions run in order; an instruction whose guard is false is skipped;
//! `Goto` whose guard holds jumps to its label. At the end of the list the function returns
//! `retval` (if the return flag was never set in a non-void function, the value is indeterminate).

pub mod cfg;
mod flatten;
pub mod loops;
mod print;
pub mod recursion;
mod scalarize;

pub use cfg::Cfg;
pub use flatten::flatten_function;
pub use print::{guard_text, instr_text, print_function, type_text};

use crate::ir::{Callee, Expr, Function, GuardId, Label, Line, Place, Program, VarId};

/// One guard literal: `g` or `¬g`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub struct Lit {
    pub guard: GuardId,
    pub positive: bool,
}

/// A conjunction of guard literals; empty means "always".
#[derive(Clone, PartialEq, Eq, Hash, Debug, Default)]
pub struct Guard(pub Vec<Lit>);

#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum GuardKind {
    /// The outcome of a source-level condition (`if`, loop test, `?:`, short-circuit, switch case).
    Cond,
    /// Set when the function has executed a `return`.
    Return,
    /// Set when the enclosing loop or switch (numbered) executed `break`.
    Break,
    /// Set when the enclosing loop executed `continue` in the current iteration.
    Continue,
}

#[derive(Clone, Debug)]
pub struct GuardInfo {
    /// `g1`, `g2`, … for conditions, `ret`, `brk1`, `cont1`, … for flags.
    pub name: String,
    pub kind: GuardKind,
    pub line: Line,
}

#[derive(Clone, PartialEq, Debug)]
pub enum InstrKind {
    /// `g := cond` (true when `cond` is non-zero). Flags are set with constant conditions.
    SetGuard(GuardId, Expr),
    Assign(Place, Expr),
    Havoc(Place),
    ZeroFill(Place),
    Call {
        dest: Option<Place>,
        callee: Callee,
        args: Vec<Expr>,
    },
    Goto(Label),
}

impl InstrKind {
    /// Call `f` on every expression of the instruction and their sub-expressions: values,
    /// conditions, call arguments and callees, and the expressions inside assigned places.
    pub fn walk_exprs<'a>(&'a self, f: &mut impl FnMut(&'a Expr)) {
        match self {
            InstrKind::SetGuard(_, e) => e.walk(f),
            InstrKind::Assign(p, e) => {
                p.walk_exprs(f);
                e.walk(f);
            }
            InstrKind::Havoc(p) | InstrKind::ZeroFill(p) => p.walk_exprs(f),
            InstrKind::Call { dest, callee, args } => {
                if let Some(d) = dest {
                    d.walk_exprs(f);
                }
                if let Callee::Indirect(e) = callee {
                    e.walk(f);
                }
                for a in args {
                    a.walk(f);
                }
            }
            InstrKind::Goto(_) => {}
        }
    }

    /// The place the instruction writes, if any.
    pub fn dest(&self) -> Option<&Place> {
        match self {
            InstrKind::Assign(p, _) | InstrKind::Havoc(p) | InstrKind::ZeroFill(p) => Some(p),
            InstrKind::Call { dest, .. } => dest.as_ref(),
            InstrKind::SetGuard(..) | InstrKind::Goto(_) => None,
        }
    }
}

#[derive(Clone, PartialEq, Debug)]
pub struct Instr {
    pub guard: Guard,
    pub kind: InstrKind,
    pub line: Line,
}

/// A function in GCL form. `vars` extends the source function's variables (temporaries the
/// flattening needed are appended); `retval` is the return-value variable (None for `void`).
#[derive(Clone, Debug)]
pub struct GclFunction {
    pub name: String,
    pub func: Function,
    pub guards: Vec<GuardInfo>,
    pub instrs: Vec<Instr>,
    /// Instruction index each label points at (may equal `instrs.len()`: the exit).
    pub labels: Vec<usize>,
    pub retval: Option<VarId>,
    /// The return flag guard.
    pub ret_flag: GuardId,
}

impl GclFunction {
    /// The instruction at position `p`.
    pub fn instr(&self, p: crate::ir::Pos) -> &Instr {
        &self.instrs[p.index()]
    }
    pub fn guard(&self, g: GuardId) -> &GuardInfo {
        &self.guards[g.index()]
    }
    /// Labels that point at instruction `i`.
    pub fn labels_at(&self, i: usize) -> impl Iterator<Item = Label> + '_ {
        self.labels
            .iter()
            .enumerate()
            .filter(move |(_, &at)| at == i)
            .map(|(l, _)| Label::new(l))
    }
}

/// Every function of a translation unit in GCL form, with the program (types, globals, strings).
#[derive(Clone, Debug)]
pub struct GclProgram {
    pub program: Program,
    pub functions: Vec<GclFunction>,
}

impl GclProgram {
    pub fn function(&self, name: &str) -> Option<&GclFunction> {
        self.functions.iter().find(|f| f.name == name)
    }

    /// The functions defined in the file itself, without those of its headers
    /// ([`Program::in_headers`]): what a listing of the file shows.
    pub fn file_functions(&self) -> impl Iterator<Item = &GclFunction> {
        self.functions
            .iter()
            .filter(|f| !self.program.in_headers.contains(&f.name))
    }

    /// The file's own functions the frontend rejected, with the reason.
    pub fn file_rejected(&self) -> impl Iterator<Item = &(String, crate::diag::Error)> {
        self.program
            .rejected
            .iter()
            .filter(|(n, _)| !self.program.in_headers.contains(n))
    }
}

/// Flatten every function of `program`. Errors name the file and line of the offending construct.
pub fn flatten_program(program: Program) -> crate::Result<GclProgram> {
    let mut functions = Vec::with_capacity(program.functions.len());
    for f in &program.functions {
        let mut g = flatten_function(f).map_err(|e| e.with_file(&program.file))?;
        scalarize::scalarize(&mut g, &program.structs);
        functions.push(g);
    }
    Ok(GclProgram { program, functions })
}

#[cfg(test)]
pub(crate) mod testutil;
