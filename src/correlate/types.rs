//! The correlator's vocabulary: options, sides, origins, diff points, lockstep loops, variable
//! pairs, inputs, and the [`Correlated`] product that the analysis, the witness search and
//! `dizy correlate` consume.
//!
//! Takes nothing: it only defines data, and the queries over it that later stages share.

use std::collections::HashSet;

use crate::gcl::{GclFunction, GclProgram};
use crate::ir::{FuncId, GuardId, IdVec, Pos, VarId};

use super::effects::OUTPUT_FUNCTIONS;

#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Options {
    /// Renamed variables: `(old name, new name)`.
    pub map: Vec<(String, String)>,
    pub output_functions: Vec<String>,
    /// Functions of the file whose behaviour differs between the versions (from
    /// [`crate::changes`]); `None` when unknown, and then every function of the file counts as
    /// changed where it matters (effects of calls).
    pub changed: Option<std::collections::BTreeSet<String>>,
    /// Condition guards paired across the versions although their conditions differ, as
    /// `(new guard key, old guard key)` (inferred by the correlator; alignment only).
    pub guard_pairs: Vec<(String, String)>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            map: vec![],
            output_functions: OUTPUT_FUNCTIONS.iter().map(|s| s.to_string()).collect(),
            changed: None,
            guard_pairs: vec![],
        }
    }
}

/// Which version an instruction of the product comes from.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
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
    /// Another run of one of the version's instructions: a loop body's copy in a peeled or
    /// unrolled iteration (`src` then repeats an index), or that copy's loop control. The
    /// instructions that are not copies hold each of the version's instructions once, in order.
    pub copy: bool,
}

#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
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
    /// Condition guards `(old, new)` of the product paired although their conditions differ
    /// (so the instructions under them are matched): halves of such pairs may well run alone.
    pub paired_guards: Vec<(GuardId, GuardId)>,
    /// Globals (by source name) that no code of either version can change and that both
    /// declare alike: every read of one sees the same value in both versions.
    pub immutable_globals: HashSet<String>,
    /// Functions (by source name) both versions define with the same code
    /// ([`crate::changes::same_function`], decided on the two programs before merging).
    pub same_functions: HashSet<String>,
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
            copy: false,
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

    /// The first line of the new version where the function's own code changed: the smallest
    /// line of a new-only instruction, or of the new instruction that follows old-only ones
    /// (code the new version removed). Only lines inside each version's definition (`old`, `new`:
    /// first and last line) count, so inlined callees and glue do not; `None` when every
    /// instruction there is matched (only callees or globals changed).
    pub fn first_changed_line(&self, old: (u32, u32), new: (u32, u32)) -> Option<u32> {
        let within = |l: u32, (a, b): (u32, u32)| l > 0 && (a..=b).contains(&l);
        let mut first: Option<u32> = None;
        let mut after_removed = false;
        for (i, ins) in self.product().instrs.iter().enumerate() {
            let o = self.origin(Pos::new(i));
            if o.copy {
                // A loop's copied iteration repeats code that is located elsewhere already.
                continue;
            }
            let line = ins.line.0;
            match o.side {
                Side::Old if !o.matched && within(line, old) => after_removed = true,
                Side::New if within(line, new) && (!o.matched || after_removed) => {
                    first = Some(first.map_or(line, |f| f.min(line)));
                    after_removed = false;
                }
                _ => {}
            }
        }
        first
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
        super::remap::untagged(name)
    }

    /// One version's copy of the function its source calls `name`, in the merged program.
    pub fn version(&self, name: &str, side: Side) -> Option<&GclFunction> {
        let merged = match side {
            Side::Old => name.to_string(),
            Side::New => super::remap::tagged(name),
            Side::Glue => return None,
        };
        let i = self
            .program
            .functions
            .iter()
            .position(|f| f.name == merged)?;
        (self.function_sides.get(i) == Some(&side)).then(|| &self.program.functions[i])
    }
}
