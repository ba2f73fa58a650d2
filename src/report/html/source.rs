//! Both versions of a function side by side: a table of old and new lines with their numbers
//! as the driver aligned them ([`SideBySide`]), changed lines highlighted, and each diff point
//! marked at its line in each version, linked to its states below.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::esc;
use crate::delta::PointDelta;
use crate::diff::SideBySide;

/// Diff points by line of one version: (index, label, whether it has states with diff).
type Marks<'a> = BTreeMap<u32, Vec<(usize, &'a str, bool)>>;

/// The side-by-side table; `id` is the function section's anchor (points are `{id}-p{j}`).
pub(super) fn side_by_side(s: &SideBySide, points: &[PointDelta], id: &str) -> String {
    let mut old: Marks = BTreeMap::new();
    let mut new: Marks = BTreeMap::new();
    for (j, p) in points.iter().enumerate() {
        let differs = !p.different.is_empty();
        for (marks, line) in [(&mut old, p.old_line), (&mut new, p.new_line)] {
            if line > 0 {
                marks
                    .entry(line)
                    .or_default()
                    .push((j, p.label.as_str(), differs));
            }
        }
    }
    let mut out = String::from(
        "<div class=\"sbs-wrap\"><table class=\"sbs\"><colgroup><col class=\"ln\"><col class=\"mk\"><col class=\"code\">\
         <col class=\"ln\"><col class=\"mk\"><col class=\"code\"></colgroup>\n\
         <thead><tr><th colspan=\"3\">old</th><th colspan=\"3\">new</th></tr></thead><tbody>\n",
    );
    for r in &s.rows {
        out.push_str(if r.changed {
            "<tr class=\"chg\">"
        } else {
            "<tr>"
        });
        for (side, marks, class) in [(&r.old, &old, "del"), (&r.new, &new, "ins")] {
            match side {
                Some((n, text)) => {
                    let mark = marks.get(n).map_or(String::new(), |ms| {
                        ms.iter()
                            .map(|(j, label, differs)| {
                                format!(
                                    "<a class=\"dp{}\" href=\"#{id}-p{j}\" title=\"diff point {}\">◆</a>",
                                    if *differs { " dpd" } else { "" },
                                    esc(label)
                                )
                            })
                            .collect()
                    });
                    let class = if r.changed { class } else { "same" };
                    let _ = write!(
                        out,
                        "<td class=\"ln\">{n}</td><td class=\"mk\">{mark}</td><td class=\"code {class}\">{}</td>",
                        esc(text)
                    );
                }
                None => out.push_str(
                    "<td class=\"ln\"></td><td class=\"mk\"></td><td class=\"code none\"></td>",
                ),
            }
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody></table></div>\n");
    out
}
