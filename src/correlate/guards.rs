//! Guards whose condition changed, paired.
//!
//! Takes the two versions' functions and the variable renames in force; gives pairs
//! `(new guard key, old guard key)` under which more instructions match. A guard is keyed by its
//! defining condition, so changing `if (ax < 8.0)` into `if (-ax > -8.0)` would otherwise change
//! the key of every instruction under it and leave the whole body unmatched. Like the renames,
//! the pairs only steer the alignment: the product still evaluates each version's own
//! condition, and matched instructions under guards that disagree are compared like any other
//! (an effect in one version only is a difference), so a wrong pair costs precision, never
//! soundness.

use std::collections::{HashMap, HashSet};

use super::keys::{self, Keys};
use crate::gcl::GclFunction;

/// Condition guards only one version's keys have, paired in the order of their first
/// definitions, kept where they let more instructions match.
pub(super) fn infer_guard_pairs(
    fo: &GclFunction,
    fnew: &GclFunction,
    map: &[(String, String)],
) -> Vec<(String, String)> {
    let rename: HashMap<String, String> = map.iter().map(|(o, n)| (n.clone(), o.clone())).collect();
    let ko = Keys::against(fo, HashMap::new(), fnew);
    let kn = Keys::against(fnew, rename.clone(), fo);
    let (go, gn) = (ko.cond_guard_keys(), kn.cond_guard_keys());
    let (so, sn): (HashSet<&String>, HashSet<&String>) = (go.iter().collect(), gn.iter().collect());
    let old_only = go.iter().filter(|k| !sn.contains(k));
    let new_only = gn.iter().filter(|k| !so.contains(k));
    let mut seen = HashSet::new();
    let old_keys = ko.all();
    // A pair makes its two definitions match by construction: that match is no evidence.
    let score = |pairs: &[(String, String)]| {
        let guards: HashMap<String, String> = pairs.iter().cloned().collect();
        let n = keys::shared(
            &old_keys,
            &Keys::with_guards(fnew, rename.clone(), &guards, Some(fo)).all(),
        );
        n.saturating_sub(pairs.len())
    };
    // Each pair with the polarity under which more instructions match: a condition negated
    // with its branches swapped (`if (x != 0) B else A` against `if (x == 0) A else B`) pairs
    // with `!(K)`, so its `else` compares with the other version's `then`.
    let candidates: Vec<(String, String)> = new_only
        .zip(old_only)
        .filter(|(n, o)| seen.insert((*n).clone()) && seen.insert((*o).clone()))
        .map(|(n, o)| {
            let (plain, negated) = ((n.clone(), o.clone()), (n.clone(), format!("!{o}")));
            match score(std::slice::from_ref(&negated)) > score(std::slice::from_ref(&plain)) {
                true => negated,
                false => plain,
            }
        })
        .collect();
    keys::keep_useful(candidates, score)
}

#[cfg(test)]
mod tests {
    use super::infer_guard_pairs;

    fn function(src: &str) -> crate::gcl::GclFunction {
        let text = format!("# 1 \"t.c\"\n{src}\n");
        let prog = crate::frontend::parse_text(text, "t.c").expect("parses");
        let g = crate::gcl::flatten_program(prog).expect("flattens");
        g.function("f").expect("f").clone()
    }

    /// A rewritten condition over an unchanged body is paired; a new condition over a new body
    /// is not (nothing would match under it).
    #[test]
    fn a_rewritten_condition_is_paired_only_when_its_body_matches() {
        let old = function("int f(int a) { int r = 0; if (a < 8) { r = a * 2; r += 3; } else { r = a; } return r; }");
        let new = function("int f(int a) { int r = 0; if (-a > -8) { r = a * 2; r += 3; } else { r = a; } return r; }");
        let pairs = infer_guard_pairs(&old, &new, &[]);
        assert_eq!(pairs.len(), 1, "{pairs:?}");
        let other = function(
            "int f(int a) { int r = 0; if (a > 100) { r = a - 7; } else { r = 1; } return r; }",
        );
        assert!(infer_guard_pairs(&old, &other, &[]).is_empty());
    }
}
