//! Renamed locals, inferred.
//!
//! Takes the two versions' functions and the user's `--map`; gives the extra `(old, new)` name
//! pairs under which more instructions match. Runs before the builder, which treats the pairs
//! like `--map` entries, so the alignment sees renamed code as unchanged.

use std::collections::{HashMap, HashSet};

use super::keys;
use crate::gcl::GclFunction;
use crate::ir::VarKind;

/// Locals renamed between the versions, as `(old name, new name)`: a local whose name only one
/// version uses is paired with the next such local of the other version with the same type (in
/// declaration order), and the pairs are kept that let more instructions match — counted as the
/// keys both versions share, with `map` (the user's `--map`) already applied. Locals are never
/// compared at diff points (only the return value, globals and effects are), so a wrong pairing
/// costs precision, never soundness; it lets the syntactic diff match the renamed code, which the
/// analysis needs for relational facts and congruence beyond the numeric domain.
pub(super) fn infer_renames(
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
    let old_keys = keys::Keys::against(fo, HashMap::new(), fnew).all();
    keys::keep_useful(candidates, |extra| {
        let rename: HashMap<String, String> = map
            .iter()
            .chain(extra)
            .map(|(o, n)| (n.clone(), o.clone()))
            .collect();
        keys::shared(&old_keys, &keys::Keys::against(fnew, rename, fo).all())
    })
}
