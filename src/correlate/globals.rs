//! The globals both versions carry.
//!
//! Takes a version's program and function and the names of the globals either version can see;
//! gives the function with a variable for each of them. Runs before the builder, so the exit
//! compares every global either version may change, even one the other never names.

use std::collections::HashSet;

use crate::gcl::{GclFunction, GclProgram};
use crate::ir::{VarInfo, VarKind};

/// Names of the globals `function` can see: those it or a function of the file it calls
/// (transitively, through pointers too) refers to.
pub(super) fn visible_globals(p: &GclProgram, function: &str) -> HashSet<String> {
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
pub(super) fn with_globals(
    f: &GclFunction,
    p: &GclProgram,
    names: &HashSet<String>,
) -> GclFunction {
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
