//! Proofs that lean on each other: mutually recursive functions proved by induction.
//!
//! Takes a file pair's function reports once all are in; gives them with every verdict that
//! assumed other functions proved (`FunctionReport::assumes`: the rest of a recursion cycle
//! whose calls were summarized, see `analysis::congruence::recursion_summary`) weakened to what
//! those functions' own verdicts allow. The induction proves each pair of the cycle from the
//! others' equal results on shallower calls, so `equivalent` holds only where every member is
//! `equivalent`; where each is at least `partially-equivalent` (equal wherever both return),
//! that much holds; otherwise nothing is claimed. Runs in `diff` after the reports, before
//! they are rendered; weakening one report may weaken others, so it repeats until nothing
//! changes.

use super::{FunctionReport, Verdict};
use crate::diag::{Note, NoteKind};

/// Weaken the verdicts whose proofs assumed functions that were not proved as much.
pub(super) fn settle(functions: &mut [FunctionReport]) {
    loop {
        let verdict = |n: &str| functions.iter().find(|f| f.name == n).map(|f| f.verdict);
        let mut changes: Vec<(usize, Verdict, String)> = vec![];
        for (k, f) in functions.iter().enumerate() {
            if f.assumes.is_empty()
                || !matches!(
                    f.verdict,
                    Verdict::Equivalent | Verdict::PartiallyEquivalent
                )
            {
                continue;
            }
            let rank = |v: Option<Verdict>| match v {
                Some(Verdict::Equivalent | Verdict::Unchanged) => 2,
                Some(Verdict::PartiallyEquivalent) => 1,
                _ => 0,
            };
            let weakest = f
                .assumes
                .iter()
                .min_by_key(|m| rank(verdict(m)))
                .expect("not empty");
            let allowed = match rank(verdict(weakest)) {
                2 => continue,
                1 => Verdict::PartiallyEquivalent,
                _ => Verdict::PossiblyDifferent,
            };
            if allowed == f.verdict {
                continue;
            }
            let seen = match verdict(weakest) {
                Some(v) => format!("is {}", v.as_str()),
                None => "was not analysed (name it with --function too)".to_string(),
            };
            changes.push((
                k,
                allowed,
                format!(
                    "the proof assumed `{weakest}`, which it calls recursively, proved as well, \
                     but `{weakest}` {seen}"
                ),
            ));
        }
        if changes.is_empty() {
            return;
        }
        for (k, v, why) in changes {
            functions[k].verdict = v;
            functions[k].notes.push(Note::new(NoteKind::Analysis, why));
        }
    }
}
