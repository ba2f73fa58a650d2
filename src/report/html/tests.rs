//! The HTML page: escaping (no text of the report can become markup), its structure (the
//! table, one section per function that is not unchanged, anchors), the source table with its
//! diff-point marks, and the plot (present exactly for functions with an input-plane sample,
//! one cell per sampled point, coloured by its outcome). Expectations come from the report's
//! data, not from a rendering kept as it happens to be.

use std::collections::BTreeSet;

use super::{esc, to_html, Section};
use crate::diag::{Note, NoteKind};
use crate::diff::{side_by_side, Report, Verdict};
use crate::report::tests::{inactive_change, sample};
use crate::witness::plane::{Axis, InputPlane, Outcome, Point};

fn page(r: &Report) -> String {
    to_html(
        "old.c → new.c",
        &[Section {
            path: None,
            report: Ok(r),
        }],
    )
}

/// The names of the elements opened in `html` (`<name …>`), with their counts.
fn tags(html: &str) -> Vec<String> {
    let mut out = vec![];
    let b = html.as_bytes();
    for (i, _) in html.match_indices('<') {
        let name: String = html[i + 1..]
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '!')
            .collect();
        if !name.is_empty() && b.get(i + 1) != Some(&b'/') {
            out.push(name.to_ascii_lowercase());
        }
    }
    out
}

/// The values of attribute `attr` in `html`, in order.
fn attrs(html: &str, attr: &str) -> Vec<String> {
    let key = format!(" {attr}=\"");
    html.match_indices(&key)
        .map(|(i, _)| {
            let rest = &html[i + key.len()..];
            rest[..rest.find('"').unwrap()].to_string()
        })
        .collect()
}

const HOSTILE: &str = "</script><b>bold</b><script>alert(1)</script><img src=x onerror=alert(2)>\"' onmouseover=\"alert(3)\" <!-- & \u{1}";

/// Every element the page may contain; a report's text must never add another.
const ALLOWED: &[&str] = &[
    "!doctype",
    "html",
    "head",
    "meta",
    "link",
    "title",
    "style",
    "body",
    "header",
    "h1",
    "h2",
    "h3",
    "p",
    "main",
    "section",
    "table",
    "thead",
    "tbody",
    "tr",
    "th",
    "td",
    "colgroup",
    "col",
    "a",
    "span",
    "details",
    "summary",
    "ul",
    "li",
    "div",
    "pre",
    "figure",
    "figcaption",
    "svg",
    "rect",
    "line",
    "text",
    "path",
    "circle",
    "br",
    "strong",
    "footer",
    "code",
];

fn plane(axes: &[(&str, &[i64])], outcome: impl Fn(&[i64]) -> Outcome) -> InputPlane {
    let dims = axes.len();
    let axes: Vec<Axis> = axes
        .iter()
        .map(|(n, vs)| Axis {
            name: n.to_string(),
            ty: "int".into(),
            values: vs.iter().map(|v| *v as f64).collect(),
            literals: vs.iter().map(|v| v.to_string()).collect(),
        })
        .collect();
    let mut points = vec![];
    let ys: Vec<i64> = match axes.get(1) {
        Some(a) => a.values.iter().map(|v| *v as i64).collect(),
        None => vec![0],
    };
    for y in &ys {
        for x in &axes[0].values {
            let xy = [*x as i64, *y];
            let o = outcome(&xy[..axes.len()]);
            let b = |r: &str| crate::witness::Behaviour {
                ret: r.into(),
                globals: vec![],
                modified: vec![],
                memory: vec![],
                output: vec![],
                diverged: None,
                undefined: None,
                returned: None,
                calls: vec![],
            };
            let (old, new) = match o {
                Outcome::Agree => (Some(b("0")), Some(b("0"))),
                Outcome::Differ => (Some(b("0")), Some(b("1"))),
                _ => (None, None),
            };
            points.push(Point {
                outcome: o,
                old,
                new,
            });
        }
    }
    InputPlane {
        axes,
        points,
        witness: Some(vec![6.0; dims]),
        step_budget: 1000,
    }
}

#[test]
fn nothing_from_the_report_becomes_markup() {
    let mut r = sample();
    r.old = HOSTILE.into();
    r.assumptions.push(Note::new(NoteKind::Semantics, HOSTILE));
    let mut c = inactive_change();
    c.text = HOSTILE.into();
    c.function = Some(HOSTILE.into());
    r.config_changes.push(c);
    for f in &mut r.functions {
        f.notes
            .push(Note::at(NoteKind::Analysis, HOSTILE, 3, HOSTILE));
        f.error = Some(HOSTILE.into());
        f.correlating = Some(format!("// {HOSTILE}\n= x := 1;"));
        f.source = Some(side_by_side(
            (3, vec![format!("char *s = \"{HOSTILE}\";"), "}".into()]),
            (4, vec![format!("/* {HOSTILE} */"), "}".into()]),
        ));
        if let Some(w) = &mut f.witness {
            w.inputs[0].1 = HOSTILE.into();
            w.old.ret = HOSTILE.into();
        }
        if let Some(d) = &mut f.delta {
            for p in &mut d.points {
                p.label = HOSTILE.into();
                for s in &mut p.different {
                    s.vars.push(HOSTILE.into());
                }
            }
        }
    }
    r.functions[0].name = HOSTILE.into();
    let mut p = plane(&[(HOSTILE, &[5, 6, 7])], |_| Outcome::Differ);
    p.axes[0].literals[1] = HOSTILE.into();
    p.axes[0].ty = HOSTILE.into();
    r.functions[0].input_plane = Some(p);
    let html = page(&r);
    let found: BTreeSet<String> = tags(&html).into_iter().collect();
    let extra: Vec<&String> = found
        .iter()
        .filter(|t| !ALLOWED.contains(&t.as_str()))
        .collect();
    assert!(
        extra.is_empty(),
        "elements from the report's text: {extra:?}"
    );
    for bad in [
        "<script",
        "</script",
        "<b>",
        "<img",
        "<!--",
        "onmouseover=\"",
        "\u{1}",
    ] {
        assert!(!html.contains(bad), "{bad:?} is in the page");
    }
    // The text is there, escaped, in each place it was put.
    let escaped = esc(HOSTILE);
    assert!(escaped.contains("&lt;/script&gt;&lt;b&gt;") && escaped.contains('␁'));
    let copies = html.matches(escaped.as_str()).count();
    assert!(copies >= 3 * r.functions.len(), "{copies} escaped copies");
    // Attribute values stay single values: every attribute value is free of quotes and angle
    // brackets.
    for a in ["class", "href", "id", "title", "data-in"] {
        for v in attrs(&html, a) {
            assert!(!v.contains(['<', '>', '"']), "{a}={v:?}");
        }
    }
}

#[test]
fn a_table_row_per_function_and_a_section_per_function_that_is_not_unchanged() {
    let r = sample();
    let html = page(&r);
    let rows = html
        .split("<tbody>")
        .nth(1)
        .unwrap()
        .split("</tbody>")
        .next()
        .unwrap();
    assert_eq!(rows.matches("<tr>").count(), r.functions.len());
    let shown: Vec<&str> = r
        .functions
        .iter()
        .filter(|f| f.verdict != Verdict::Unchanged)
        .map(|f| f.name.as_str())
        .collect();
    assert_eq!(
        html.matches("<section class=\"function\"").count(),
        shown.len()
    );
    // Each section is linked from its table row, and ids are unique.
    let ids: Vec<String> = attrs(&html, "id")
        .into_iter()
        .filter(|i| i.starts_with('f') && !i.contains('-'))
        .collect();
    let unique: BTreeSet<&String> = ids.iter().collect();
    assert_eq!((ids.len(), unique.len()), (shown.len(), shown.len()));
    let mut order = vec![];
    for name in &shown {
        let link = rows
            .split("<a href=\"#")
            .skip(1)
            .find(|l| l.contains(&format!("\">{name}</a>")))
            .unwrap_or_else(|| panic!("{name} has no link"));
        let id = &link[..link.find('"').unwrap()];
        let at = html
            .find(&format!("<section class=\"function\" id=\"{id}\">"))
            .unwrap_or_else(|| panic!("{name}: no section #{id}"));
        assert!(html[at..].contains(&format!(">{name}</a>")));
        order.push((at, name));
    }
    // Sections come by urgency: behaviour changes first, equivalent last.
    order.sort();
    let verdicts: Vec<Verdict> = order
        .iter()
        .map(|(_, n)| r.functions.iter().find(|f| &f.name == *n).unwrap().verdict)
        .collect();
    assert_eq!(verdicts.first(), Some(&Verdict::Different));
    assert!(verdicts
        .windows(2)
        .all(|w| super::urgency(w[0]) <= super::urgency(w[1])));
    assert_eq!(verdicts.last(), Some(&Verdict::Equivalent));
    // Unchanged functions only have a row.
    for f in r
        .functions
        .iter()
        .filter(|f| f.verdict == Verdict::Unchanged)
    {
        assert!(rows.contains(&format!("<td class=\"name\">{}</td>", f.name)));
    }
    // Every verdict has its badge; the assumptions and the witness's text are there.
    for f in &r.functions {
        assert!(html.contains(&format!(">{}</span>", f.verdict.as_str())));
    }
    for a in &r.assumptions {
        assert!(html.contains(&format!("<li>{}</li>", esc(&a.to_string()))));
    }
    let w = r.functions[0].witness.as_ref().unwrap();
    assert!(html.contains(&esc(&super::witness_heading(w))));
    for l in super::witness_lines(w) {
        assert!(html.contains(&format!("<li>{}</li>", esc(&l))), "{l}");
    }
    // No script, no external reference.
    assert!(!html.contains("<script") && !html.contains(" src="));
    assert!(!html.contains("http") && !html.contains("url("));
    // The states of each diff point, as the text report says them.
    for p in r
        .functions
        .iter()
        .flat_map(|f| f.delta.iter())
        .flat_map(|d| &d.points)
    {
        for (_, l) in super::point_states(p) {
            assert!(html.contains(&esc(&l)), "{l}");
        }
    }
}

#[test]
fn the_plot_is_there_exactly_for_a_sample_with_a_cell_per_point() {
    let mut r = sample();
    assert!(!page(&r).contains("<svg"), "no sample, no plot");
    let xs: &[i64] = &[3, 4, 5, 6, 7, 8];
    r.functions[0].input_plane = Some(plane(&[("x", xs)], |v| {
        if v[0] == 6 {
            Outcome::Differ
        } else if v[0] == 3 {
            Outcome::Failed
        } else {
            Outcome::Agree
        }
    }));
    let ys: &[i64] = &[0, 1, 2];
    r.functions[1].input_plane = Some(plane(&[("a", xs), ("b", ys)], |v| {
        if v[1] == 0 {
            Outcome::NoReturn
        } else if v[0] > v[1] + 4 {
            Outcome::Differ
        } else {
            Outcome::Agree
        }
    }));
    let html = page(&r);
    assert_eq!(html.matches("<svg").count(), 2);
    let sections: Vec<&str> = html.split("<section class=\"function\"").skip(1).collect();
    for (k, s) in sections.iter().enumerate() {
        assert_eq!(s.contains("<svg"), k < 2, "section {k}");
    }
    // Each point is one cell with its inputs, coloured by its outcome.
    let cells = |s: &str| -> Vec<(String, String)> {
        s.match_indices("<rect class=\"pt ")
            .map(|(i, _)| {
                let t = &s[i..];
                let t = &t["<rect class=\"pt ".len()..];
                let class = t[..t.find('"').unwrap()].to_string();
                (attrs(t, "data-in")[0].clone(), class)
            })
            .collect()
    };
    let strip = cells(sections[0]);
    assert_eq!(strip.len(), xs.len());
    for (inputs, class) in &strip {
        let want = match inputs.as_str() {
            "6" => "pd",
            "3" => "pn",
            _ => "pa",
        };
        assert_eq!(class, want, "x = {inputs}");
    }
    let grid = cells(sections[1]);
    assert_eq!(grid.len(), xs.len() * ys.len());
    for (inputs, class) in &grid {
        let (a, b) = inputs.split_once(',').unwrap();
        let (a, b): (i64, i64) = (a.parse().unwrap(), b.parse().unwrap());
        let want = if b == 0 {
            "pn"
        } else if a > b + 4 {
            "pd"
        } else {
            "pa"
        };
        assert_eq!(class, want, "a = {a}, b = {b}");
    }
    // The witness is marked, and the legend says it is a sample with its counts.
    assert!(sections[0].contains("class=\"wit\"") && sections[1].contains("class=\"wit-ring\""));
    assert!(sections[0].contains("agree (4)") && sections[0].contains("differ (1)"));
    assert!(sections[0].contains("<strong>sample</strong> of 6 inputs"));
    assert!(sections[1].contains("<strong>sample</strong> of 18 inputs"));
    // Why points were not evaluated, by reason.
    assert!(sections[0].contains("not evaluated (1: 1 undefined behaviour)"));
    assert!(sections[1].contains("not evaluated (6: 6 no return within 1000 interpreter steps)"));
}

#[test]
fn source_side_by_side_marks_changed_lines_and_diff_points() {
    let mut r = sample();
    // sample()'s first function has one diff point at old line 10, new line 12.
    r.functions[0].source = Some(side_by_side(
        (
            9,
            vec![
                "int sign(int x) {".into(),
                "  return x >= 0;".into(),
                "}".into(),
            ],
        ),
        (
            10,
            vec![
                "int sign(int x) {".into(),
                "  if (x == 0) return 0;".into(),
                "  return x > 0;".into(),
                "}".into(),
            ],
        ),
    ));
    let html = page(&r);
    let table = html.split("<table class=\"sbs\">").nth(1).unwrap();
    let table = table.split("</table>").next().unwrap();
    let rows: Vec<&str> = table.split("<tr").skip(2).collect();
    let changed = rows
        .iter()
        .filter(|r| r.starts_with(" class=\"chg\""))
        .count();
    let source = &r.functions[0].source.as_ref().unwrap().rows;
    let want = source.iter().filter(|r| r.changed).count();
    assert_eq!((rows.len(), changed), (source.len(), want));
    assert!(want > 0 && want < source.len());
    // The point is marked on old line 10 and new line 12, linked to its states.
    let id = attrs(&html, "id")
        .into_iter()
        .find(|i| i.starts_with('f'))
        .unwrap();
    let mark = format!("href=\"#{id}-p0\"");
    let marked: Vec<&&str> = rows.iter().filter(|r| r.contains(&mark)).collect();
    assert!(!marked.is_empty());
    for r in &marked {
        assert!(
            r.contains("<td class=\"ln\">10</td><td class=\"mk\"><a")
                || r.contains("<td class=\"ln\">12</td><td class=\"mk\"><a"),
            "{r}"
        );
    }
    assert!(html.contains(&format!("id=\"{id}-p0\"")));
    // A point with states with diff is marked as such.
    assert!(marked.iter().all(|r| r.contains("class=\"dp dpd\"")));
}

#[test]
fn git_sections_have_their_paths_and_errors() {
    let r = sample();
    let html = to_html(
        "--git a b",
        &[
            Section {
                path: Some("src/one.c"),
                report: Ok(&r),
            },
            Section {
                path: Some("src/<two>.c"),
                report: Err("src/two.c:3: bad <input>".into()),
            },
            Section {
                path: Some("src/three.c"),
                report: Ok(&r),
            },
        ],
    );
    assert!(html.contains("<h1 class=\"file\">src/one.c</h1>"));
    assert!(html.contains("<h1 class=\"file\">src/&lt;two&gt;.c</h1>"));
    assert!(html.contains("dizy: src/two.c:3: bad &lt;input&gt;"));
    let ids: Vec<String> = attrs(&html, "id");
    let unique: BTreeSet<&String> = ids.iter().collect();
    assert_eq!(ids.len(), unique.len(), "ids are unique across files");
    let shown = r
        .functions
        .iter()
        .filter(|f| f.verdict != Verdict::Unchanged)
        .count();
    assert_eq!(
        html.matches("<section class=\"function\"").count(),
        2 * shown
    );
}
