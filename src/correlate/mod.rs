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
//!
//! Layout: [`types`] holds the public data; [`globals`] and [`renames`] prepare the two
//! functions; [`remap`] moves the new version into the merged program's index spaces; [`build`]
//! constructs the product, with [`effects`] saying what is observable; [`print`] shows it.

mod build;
mod effects;
mod globals;
mod guards;
mod keys;
mod print;
mod remap;
mod renames;
mod structure;
mod types;

pub use effects::{
    effect_free, writes_nothing, NO_MEMORY_WRITES, OUTPUT_FUNCTIONS, PURE_FUNCTIONS,
};
pub use print::{print_correlated, to_json};
pub use types::{Correlated, DiffKind, DiffPoint, Input, Lockstep, Options, Origin, Side, VarPair};

use std::collections::HashSet;

use crate::diag::{Error, Result};
use crate::gcl::GclProgram;
use crate::ir::{FuncId, IdVec, Pos};
use globals::{visible_globals, with_globals};
use guards::infer_guard_pairs;
use remap::Remap;
use renames::infer_renames;

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
    let mut map = opts.map.clone();
    map.extend(renamed.iter().cloned());
    let guard_pairs = infer_guard_pairs(fo, fnew, &map);
    let with_inferred;
    let opts = if renamed.is_empty() && guard_pairs.is_empty() {
        opts
    } else {
        let mut o = opts.clone();
        o.map = map;
        o.guard_pairs = guard_pairs;
        with_inferred = o;
        &with_inferred
    };
    let base = Remap::for_new(old, new);
    let mut program = base.merge_programs(old, new);
    let remap = base.for_product(fo);
    let (pf, meta) = build::product(old, new, fo, fnew, &remap, opts)?;
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
        paired_guards: meta.paired_guards,
        immutable_globals: unchanging_globals(old, new),
        same_functions: old
            .functions
            .iter()
            .filter(|f| {
                new.function(&f.name)
                    .is_some_and(|g| crate::changes::same_function(old, f, new, g))
            })
            .map(|f| f.name.clone())
            .collect(),
    })
}

/// Globals neither version can change ([`effects::immutable_globals`]) declared alike in both
/// (type, initializer, linkage): reads of them see the same value in both versions.
fn unchanging_globals(old: &GclProgram, new: &GclProgram) -> HashSet<String> {
    let (io, inew) = (
        effects::immutable_globals(old),
        effects::immutable_globals(new),
    );
    let decl = |p: &GclProgram, n: &str| {
        p.program
            .globals
            .iter()
            .find(|g| g.name == n)
            .map(|g| crate::changes::global_key(&p.program, g))
    };
    io.into_iter()
        .filter(|n| inew.contains(n) && decl(old, n).is_some() && decl(old, n) == decl(new, n))
        .collect()
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
