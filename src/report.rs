//! Reports: the text people read and the JSON tools read (`dizy-report/1`, DESIGN §9).
//!
//! Takes a [`Report`] from the `diff` driver; gives a listing in the spirit of the DIZY paper's
//! results (per diff point, "Equivalent state: …" and "State with diff (vars): …" with source
//! lines) or the JSON document. Last stage of the pipeline; it computes nothing itself.

use serde_json::{json, Value as Json};

use crate::delta::PointDelta;
use crate::diff::{FunctionReport, Report, Verdict};
use crate::witness::{Behaviour, Witness};

pub fn to_json(r: &Report) -> Json {
    json!({
        "schema": "dizy-report/1",
        "old": r.old,
        "new": r.new,
        "assumptions": r.assumptions,
        "functions": r.functions.iter().map(function_json).collect::<Vec<_>>(),
    })
}

fn function_json(f: &FunctionReport) -> Json {
    let points: Vec<Json> = f
        .delta
        .as_ref()
        .map(|d| d.points.iter().map(point_json).collect())
        .unwrap_or_default();
    let mut notes = f.notes.clone();
    if let Some(e) = &f.error {
        notes.insert(0, e.clone());
    }
    json!({
        "name": f.name,
        "verdict": f.verdict.as_str(),
        "time_ms": f.time_ms as u64,
        "diff_points": points,
        "witness": f.witness.as_ref().map_or(Json::Null, witness_json),
        "notes": notes,
    })
}

fn behaviour_json(b: &Behaviour) -> Json {
    let mut o = serde_json::Map::new();
    o.insert("return".into(), Json::String(b.ret.clone()));
    for (n, v) in &b.globals {
        o.insert(n.clone(), Json::String(v.clone()));
    }
    if !b.output.is_empty() {
        o.insert(
            "output".into(),
            Json::String(String::from_utf8_lossy(&b.output).into_owned()),
        );
    }
    Json::Object(o)
}

fn witness_json(w: &Witness) -> Json {
    json!({
        "inputs": Json::Object(w.inputs.iter().map(|(n, v)| (n.clone(), Json::String(v.clone()))).collect()),
        "old": behaviour_json(&w.old),
        "new": behaviour_json(&w.new),
        "validated_by": w.validated_by,
        "strategy": w.strategy,
        "tries": w.tries,
        "loop_bound": w.loop_bound,
        "path_length": w.path_len,
    })
}

fn point_json(p: &PointDelta) -> Json {
    json!({
        "label": p.label,
        "old_line": p.old_line,
        "new_line": p.new_line,
        "compared": p.compared,
        "reachable": p.reachable,
        "equivalent": p.equivalent.iter().map(|e| json!({ "constraints": e.constraints })).collect::<Vec<_>>(),
        "different": p.different.iter().map(|d| {
            let mut o = json!({ "vars": d.vars, "constraints": d.constraints, "inputs": d.inputs });
            if let Some(seed) = &d.seed {
                o["seed"] = Json::Object(seed.iter().map(|(n, v)| (n.clone(), Json::String(v.to_string()))).collect());
            }
            o
        }).collect::<Vec<_>>(),
        "omitted": p.omitted,
    })
}

fn behaviour_text(b: &Behaviour) -> String {
    let mut parts = vec![format!("returns {}", b.ret)];
    for (n, v) in &b.globals {
        parts.push(format!("{n} = {v}"));
    }
    if !b.output.is_empty() {
        parts.push(format!("prints {:?}", String::from_utf8_lossy(&b.output)));
    }
    parts.join(", ")
}

fn constraints_text(cs: &[String]) -> String {
    if cs.is_empty() {
        "(any input)".to_string()
    } else {
        cs.join(", ")
    }
}

pub fn to_text(r: &Report) -> String {
    let mut out = String::new();
    out.push_str(&format!("dizy: {} → {}\n", r.old, r.new));
    out.push_str("assumptions:\n");
    for a in &r.assumptions {
        out.push_str(&format!("  - {a}\n"));
    }
    for f in &r.functions {
        out.push('\n');
        out.push_str(&format!(
            "function {}: {} ({} ms)\n",
            f.name,
            f.verdict.as_str(),
            f.time_ms
        ));
        if let Some(e) = &f.error {
            out.push_str(&format!("  {e}\n"));
        }
        for n in &f.notes {
            out.push_str(&format!("  note: {n}\n"));
        }
        if let Some(w) = &f.witness {
            let inputs: Vec<String> = w.inputs.iter().map(|(n, v)| format!("{n} = {v}")).collect();
            out.push_str(&format!(
                "  witness ({}, validated by the {}): {}\n    old: {}\n    new: {}\n",
                w.strategy,
                w.validated_by,
                if inputs.is_empty() {
                    "(no inputs)".to_string()
                } else {
                    inputs.join(", ")
                },
                behaviour_text(&w.old),
                behaviour_text(&w.new)
            ));
        }
        let Some(d) = &f.delta else { continue };
        for p in &d.points {
            let lines = match (p.old_line, p.new_line) {
                (0, n) => format!("new line {n}"),
                (o, 0) => format!("old line {o}"),
                (o, n) => format!("old line {o}, new line {n}"),
            };
            let cmp = if p.compared.is_empty() {
                String::new()
            } else {
                format!("; compares {}", p.compared.join(", "))
            };
            out.push_str(&format!("  diff point {} ({lines}{cmp})\n", p.label));
            if !p.reachable {
                out.push_str("    not reached\n");
                continue;
            }
            for e in &p.equivalent {
                out.push_str(&format!(
                    "    Equivalent state: {}\n",
                    constraints_text(&e.constraints)
                ));
            }
            for s in &p.different {
                out.push_str(&format!(
                    "    State with diff ({}): {}\n",
                    s.vars.join(", "),
                    constraints_text(&s.constraints)
                ));
            }
            if p.omitted > 0 {
                out.push_str(&format!(
                    "    … {} more states not shown (see --format json)\n",
                    p.omitted
                ));
            }
        }
    }
    out.push('\n');
    out.push_str(&summary(r));
    out
}

pub fn summary(r: &Report) -> String {
    let count = |v: Verdict| r.functions.iter().filter(|f| f.verdict == v).count();
    let mut parts = vec![];
    for v in [
        Verdict::Equivalent,
        Verdict::Different,
        Verdict::PossiblyDifferent,
        Verdict::Unchanged,
        Verdict::Added,
        Verdict::Removed,
        Verdict::Unsupported,
        Verdict::Timeout,
        Verdict::Error,
    ] {
        let n = count(v);
        if n > 0 {
            parts.push(format!("{n} {}", v.as_str()));
        }
    }
    format!(
        "summary: {} function(s): {}\n",
        r.functions.len(),
        if parts.is_empty() {
            "none".into()
        } else {
            parts.join(", ")
        }
    )
}
