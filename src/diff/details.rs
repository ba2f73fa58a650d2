//! What the HTML report shows beyond the verdicts, attached to the report by the driver:
//! each function's source lines side by side, aligned by a line diff.
//!
//! Takes the raw text of both files and the loaded programs (for the functions' line extents);
//! gives a [`SideBySide`] per function that has a section of its own (every verdict but
//! `unchanged`), and the input-plane sample of a function ([`input_plane`]). The correlating
//! program's listing is attached where the correlation is at hand (`one_function`). Only with [`super::DiffOptions::details`]; the
//! report renders these and computes nothing.

use similar::{DiffOp, TextDiff};

use super::{DiffOptions, Report, Verdict};
use crate::gcl::GclProgram;
use crate::witness::plane::InputPlane;

/// Functions longer than this many lines are shown without their source.
const MAX_LINES: usize = 5_000;

/// A function's two versions aligned line by line.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct SideBySide {
    pub rows: Vec<SourceRow>,
}

/// One row: a line of the old version, of the new one, or both; `changed` unless the two
/// are the same line of an unchanged stretch.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct SourceRow {
    pub old: Option<(u32, String)>,
    pub new: Option<(u32, String)>,
    pub changed: bool,
}

/// Attach the side-by-side source of every function of `report` that has a section.
pub(super) fn attach_sources(
    report: &mut Report,
    (old_text, new_text): (&str, &str),
    po: &GclProgram,
    pn: &GclProgram,
) {
    let lines = |t: &str| t.lines().map(str::to_string).collect::<Vec<_>>();
    let (lo, ln) = (lines(old_text), lines(new_text));
    for f in &mut report.functions {
        if f.verdict == Verdict::Unchanged {
            continue;
        }
        let extent = |p: &GclProgram, text: &[String]| {
            let g = p.function(&f.name)?;
            let (a, b) = (g.func.line.0, g.func.end_line.0);
            let (a, b) = (a.max(1) as usize, (b as usize).min(text.len()));
            (a <= b && b - a < MAX_LINES).then_some((a, b))
        };
        let (eo, en) = (extent(po, &lo), extent(pn, &ln));
        if eo.is_none() && en.is_none() {
            continue;
        }
        let slice = |text: &[String], e: Option<(usize, usize)>| match e {
            Some((a, b)) => (a as u32, text[a - 1..b].to_vec()),
            None => (0, vec![]),
        };
        f.source = Some(side_by_side(slice(&lo, eo), slice(&ln, en)));
    }
}

/// The input-plane sample of `name` (both programs as loaded, not inlined), centred on the
/// witness's inputs when there is one, reaching `cover` and the constants of the code.
pub(super) fn input_plane(
    po: &GclProgram,
    pn: &GclProgram,
    name: &str,
    witness: Option<&crate::witness::Inputs>,
    cover: &[f64],
    opts: &DiffOptions,
) -> Option<InputPlane> {
    let budget = crate::limits::Budget::new(None, opts.limits.memory_mb);
    crate::witness::plane::sample(po, pn, name, witness, cover, &opts.plane, &budget)
}

/// Align two runs of lines (each with the number of its first line) by a line diff: equal
/// stretches side by side, a replaced stretch pairs its lines in order, the rest stands alone.
pub fn side_by_side(
    (old_first, old): (u32, Vec<String>),
    (new_first, new): (u32, Vec<String>),
) -> SideBySide {
    let (ro, rn): (Vec<&str>, Vec<&str>) = (
        old.iter().map(String::as_str).collect(),
        new.iter().map(String::as_str).collect(),
    );
    let diff = TextDiff::configure()
        .timeout(std::time::Duration::from_secs(1))
        .diff_slices(&ro, &rn);
    let at = |first: u32, lines: &[String], i: usize| Some((first + i as u32, lines[i].clone()));
    let mut rows = vec![];
    for op in diff.ops() {
        match *op {
            DiffOp::Equal {
                old_index,
                new_index,
                len,
            } => rows.extend((0..len).map(|k| SourceRow {
                old: at(old_first, &old, old_index + k),
                new: at(new_first, &new, new_index + k),
                changed: false,
            })),
            DiffOp::Delete {
                old_index, old_len, ..
            } => rows.extend((0..old_len).map(|k| SourceRow {
                old: at(old_first, &old, old_index + k),
                new: None,
                changed: true,
            })),
            DiffOp::Insert {
                new_index, new_len, ..
            } => rows.extend((0..new_len).map(|k| SourceRow {
                old: None,
                new: at(new_first, &new, new_index + k),
                changed: true,
            })),
            DiffOp::Replace {
                old_index,
                old_len,
                new_index,
                new_len,
            } => rows.extend((0..old_len.max(new_len)).map(|k| {
                SourceRow {
                    old: (k < old_len)
                        .then(|| at(old_first, &old, old_index + k))
                        .flatten(),
                    new: (k < new_len)
                        .then(|| at(new_first, &new, new_index + k))
                        .flatten(),
                    changed: true,
                }
            })),
        }
    }
    SideBySide { rows }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(xs: &[&str]) -> Vec<String> {
        xs.iter().map(|s| s.to_string()).collect()
    }

    /// Every line of each version appears once, in order, with its own number; equal lines
    /// sit side by side unchanged, the others are marked.
    #[test]
    fn rows_keep_every_line_and_mark_the_changed_ones() {
        let old = strings(&["int f(int x) {", "  int y = 1;", "  return x > 5;", "}"]);
        let new = strings(&["int f(int x) {", "  return x > 6;", "  /* new */", "}"]);
        let s = side_by_side((10, old.clone()), (20, new.clone()));
        let side = |pick: fn(&SourceRow) -> &Option<(u32, String)>| {
            s.rows
                .iter()
                .filter_map(|r| pick(r).clone())
                .collect::<Vec<_>>()
        };
        let number = |first: u32, v: &[String]| {
            v.iter()
                .enumerate()
                .map(|(i, l)| (first + i as u32, l.clone()))
                .collect::<Vec<_>>()
        };
        assert_eq!(side(|r| &r.old), number(10, &old));
        assert_eq!(side(|r| &r.new), number(20, &new));
        for r in &s.rows {
            let same = matches!((&r.old, &r.new), (Some(a), Some(b)) if a.1 == b.1);
            assert_eq!(r.changed, !same, "{r:?}");
        }
        // The first and last lines are aligned.
        assert_eq!(s.rows[0].new.as_ref().map(|l| l.0), Some(20));
        assert_eq!(s.rows.last().unwrap().old.as_ref().map(|l| l.0), Some(13));
        // One side missing (an added function): every row is changed.
        let added = side_by_side((0, vec![]), (5, new.clone()));
        assert_eq!(added.rows.len(), new.len());
        assert!(added.rows.iter().all(|r| r.changed && r.old.is_none()));
    }
}
