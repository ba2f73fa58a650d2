//! The input-plane sample ([`InputPlane`]) as an inline SVG: a strip for one parameter, a
//! plane for two, each grid point coloured by what running both versions on it showed (agree,
//! differ, not evaluated), the witness marked, and a legend that says it is a sample.
//!
//! Points are drawn by grid index (equal cells), and the axes are labelled with the sampled
//! values, which are not evenly spaced where the driver added constants of the code. Every
//! point carries its inputs (`data-in`) and a tooltip with both versions' behaviours.

use std::fmt::Write as _;

use super::esc;
use crate::witness::plane::{Axis, InputPlane, Outcome, Point};
use crate::witness::Behaviour;

/// Left, top, right and bottom margins (pixels).
const ML: f64 = 64.0;
const MT: f64 = 22.0;
const MR: f64 = 24.0;
const MB: f64 = 46.0;
/// Height of a one-parameter strip.
const STRIP: f64 = 32.0;

fn class(o: &Outcome) -> &'static str {
    match o {
        Outcome::Agree => "pa",
        Outcome::Differ => "pd",
        Outcome::Failed | Outcome::NoReturn | Outcome::NotRun => "pn",
    }
}

/// A short label for an axis value: the literal, or a rounded number when that is long.
fn label(a: &Axis, i: usize) -> String {
    let lit = &a.literals[i];
    if lit.len() <= 9 {
        lit.clone()
    } else {
        format!("{:.3e}", a.values[i])
    }
}

/// Where a coordinate falls on an axis drawn by index: its index, or between two.
fn index_of(a: &Axis, x: f64) -> f64 {
    let v = &a.values;
    match v.iter().position(|&y| y >= x) {
        _ if v.is_empty() => 0.0,
        Some(0) => 0.0,
        None => (v.len() - 1) as f64,
        Some(i) if v[i] == x => i as f64,
        Some(i) => i as f64 - 1.0 + (x - v[i - 1]) / (v[i] - v[i - 1]),
    }
}

/// Indices to label on an axis of `n` values: about `k` evenly spread, always the ends.
fn ticks(n: usize, k: usize) -> Vec<usize> {
    if n <= k {
        return (0..n).collect();
    }
    let mut t: Vec<usize> = (0..k).map(|i| i * (n - 1) / (k - 1)).collect();
    t.dedup();
    t
}

/// The tooltip of a point.
fn tip(p: &InputPlane, idx: &[usize], pt: &Point, behaviour: fn(&Behaviour) -> String) -> String {
    let inputs: Vec<String> = p
        .axes
        .iter()
        .zip(idx)
        .map(|(a, &i)| format!("{} = {}", a.name, a.literals[i]))
        .collect();
    let what = match (&pt.outcome, &pt.old, &pt.new) {
        (Outcome::Agree, Some(o), _) => format!("agree: both {}", behaviour(o)),
        (Outcome::Differ, Some(o), Some(n)) => {
            format!("differ: old {}; new {}", behaviour(o), behaviour(n))
        }
        (Outcome::NoReturn, ..) => format!(
            "not evaluated: a version does not return within {} steps",
            p.step_budget
        ),
        (Outcome::NotRun, ..) => "not evaluated: the sample ran out of time".to_string(),
        _ => "not evaluated: undefined behaviour in a version".to_string(),
    };
    format!("{}: {what}", inputs.join(", "))
}

/// The figure: the SVG and its legend.
pub(super) fn figure(p: &InputPlane, behaviour: fn(&Behaviour) -> String) -> String {
    let mut out = String::from("<figure class=\"plane\">\n");
    out.push_str(&match p.axes.len() {
        1 => strip(p, behaviour),
        _ => plane(p, behaviour),
    });
    let (agree, differ, other) = p.counts();
    let n = |o: Outcome| p.points.iter().filter(|pt| pt.outcome == o).count();
    let why: Vec<String> = [
        (n(Outcome::Failed), "undefined behaviour".to_string()),
        (
            n(Outcome::NoReturn),
            format!("no return within {} interpreter steps", p.step_budget),
        ),
        (n(Outcome::NotRun), "out of the sample's time".to_string()),
    ]
    .into_iter()
    .filter(|(k, _)| *k > 0)
    .map(|(k, what)| format!("{k} {what}"))
    .collect();
    let why = if why.is_empty() {
        String::new()
    } else {
        format!(": {}", why.join(", "))
    };
    let names: Vec<String> = p
        .axes
        .iter()
        .map(|a| format!("{} ({})", esc(&a.name), esc(&a.ty)))
        .collect();
    let centre = if p.witness.is_some() {
        "the witness"
    } else {
        "0"
    };
    let _ = write!(
        out,
        "<figcaption><span class=\"sw pa\"></span> agree ({agree}) \
         <span class=\"sw pd\"></span> differ ({differ}) \
         <span class=\"sw pn\"></span> not evaluated ({other}{why}){}<br>\
         A <strong>sample</strong> of {} inputs of {}, each run on both versions by dizy's \
         interpreter (globals keep their initial values) — not a proof: the verdict is what the \
         analysis proved or found. The grid is centred on {centre} and reaches the constants of \
         the code; the axes are drawn by sample, not to scale, where constants and their \
         neighbours were added.</figcaption>\n</figure>\n",
        if p.witness.is_some() {
            " <span class=\"wmark\">◆</span> witness"
        } else {
            ""
        },
        p.points.len(),
        names.join(" × ")
    );
    out
}

/// One point's cell at `(x, y)`, `w` × `h` pixels.
fn rect(out: &mut String, (x, y, w, h): (f64, f64, f64, f64), pt: &Point, data: &str, tip: &str) {
    let _ = writeln!(
        out,
        "<rect class=\"pt {}\" x=\"{x:.1}\" y=\"{y:.1}\" width=\"{w:.1}\" height=\"{h:.1}\" data-in=\"{}\"><title>{}</title></rect>",
        class(&pt.outcome),
        esc(data),
        esc(tip)
    );
}

/// Ticks and labels under a horizontal axis whose bottom edge is at `y`; `x_of` places the
/// value of an index.
fn x_ticks(out: &mut String, a: &Axis, y: f64, x_of: impl Fn(usize) -> f64) {
    for i in ticks(a.values.len(), 7) {
        let x = x_of(i);
        let _ = writeln!(
            out,
            "<line class=\"tick\" x1=\"{x:.1}\" y1=\"{y:.1}\" x2=\"{x:.1}\" y2=\"{:.1}\"/><text class=\"tl\" x=\"{x:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text>",
            y + 4.0,
            y + 16.0,
            esc(&label(a, i))
        );
    }
}

fn strip(p: &InputPlane, behaviour: fn(&Behaviour) -> String) -> String {
    let a = &p.axes[0];
    let n = a.values.len();
    let cw = (720.0 / n as f64).clamp(3.0, 16.0);
    let (w, h) = (ML + MR + cw * n as f64, MT + STRIP + MB);
    let mut out = format!(
        "<svg class=\"plot\" width=\"{w:.0}\" height=\"{h:.0}\" viewBox=\"0 0 {w:.0} {h:.0}\" role=\"img\" aria-label=\"input sample of {}\">\n",
        esc(&a.name)
    );
    for i in 0..n {
        let pt = p.at(i, 0);
        let x = ML + cw * i as f64;
        rect(
            &mut out,
            (x, MT, cw, STRIP),
            pt,
            &a.literals[i],
            &tip(p, &[i], pt, behaviour),
        );
    }
    x_ticks(&mut out, a, MT + STRIP, |i| ML + cw * (i as f64 + 0.5));
    let _ = writeln!(
        out,
        "<text class=\"al\" x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{} ({})</text>",
        ML + cw * n as f64 / 2.0,
        h - 8.0,
        esc(&a.name),
        esc(&a.ty)
    );
    if let Some(wx) = p.witness.as_ref().and_then(|w| w.first()) {
        let x = ML + cw * (index_of(a, *wx) + 0.5);
        let _ = writeln!(
            out,
            "<path class=\"wit\" d=\"M{:.1} {:.1} L{:.1} {:.1} L{x:.1} {:.1} Z\"/><text class=\"wl\" x=\"{:.1}\" y=\"{:.1}\">witness</text>",
            x - 6.0,
            MT - 12.0,
            x + 6.0,
            MT - 12.0,
            MT - 1.0,
            x + 8.0,
            MT - 8.0
        );
    }
    out.push_str("</svg>\n");
    out
}

fn plane(p: &InputPlane, behaviour: fn(&Behaviour) -> String) -> String {
    let (ax, ay) = (&p.axes[0], &p.axes[1]);
    let (nx, ny) = (ax.values.len(), ay.values.len());
    let cs = (420.0 / nx.max(ny) as f64).clamp(4.0, 18.0);
    let (gw, gh) = (cs * nx as f64, cs * ny as f64);
    let (w, h) = (ML + MR + gw, MT + gh + MB);
    let mut out = format!(
        "<svg class=\"plot\" width=\"{w:.0}\" height=\"{h:.0}\" viewBox=\"0 0 {w:.0} {h:.0}\" role=\"img\" aria-label=\"input sample of {} and {}\">\n",
        esc(&ax.name),
        esc(&ay.name)
    );
    // The second parameter grows upwards.
    let top = |j: f64| MT + gh - cs * (j + 1.0);
    for j in 0..ny {
        for i in 0..nx {
            let pt = p.at(i, j);
            rect(
                &mut out,
                (ML + cs * i as f64, top(j as f64), cs, cs),
                pt,
                &format!("{},{}", ax.literals[i], ay.literals[j]),
                &tip(p, &[i, j], pt, behaviour),
            );
        }
    }
    x_ticks(&mut out, ax, MT + gh, |i| ML + cs * (i as f64 + 0.5));
    for j in ticks(ny, 7) {
        let y = top(j as f64) + cs / 2.0;
        let _ = writeln!(
            out,
            "<line class=\"tick\" x1=\"{:.1}\" y1=\"{y:.1}\" x2=\"{ML:.1}\" y2=\"{y:.1}\"/><text class=\"tl\" x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>",
            ML - 4.0,
            ML - 6.0,
            y + 3.5,
            esc(&label(ay, j))
        );
    }
    let _ = writeln!(
        out,
        "<text class=\"al\" x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{} ({})</text>\
         <text class=\"al\" x=\"14\" y=\"{:.1}\" text-anchor=\"middle\" transform=\"rotate(-90 14 {:.1})\">{} ({})</text>",
        ML + gw / 2.0,
        h - 8.0,
        esc(&ax.name),
        esc(&ax.ty),
        MT + gh / 2.0,
        MT + gh / 2.0,
        esc(&ay.name),
        esc(&ay.ty)
    );
    if let Some([wx, wy]) = p.witness.as_deref() {
        let x = ML + cs * (index_of(ax, *wx) + 0.5);
        let y = top(index_of(ay, *wy)) + cs / 2.0;
        let _ = writeln!(
            out,
            "<circle class=\"wit-ring\" cx=\"{x:.1}\" cy=\"{y:.1}\" r=\"{:.1}\"/><text class=\"wl\" x=\"{:.1}\" y=\"{:.1}\">witness</text>",
            (cs * 0.9).max(6.0),
            x + cs.max(6.0) + 2.0,
            y - cs.max(6.0)
        );
    }
    out.push_str("</svg>\n");
    out
}
