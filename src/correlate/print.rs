//! Text and JSON views of a correlating program (`dizy correlate`).
//!
//! Takes a [`Correlated`]; gives a listing in which old-only instructions are marked `-`,
//! new-only `+`, matched pairs `=`, and correlation glue `*`, with converge and diff points on
//! their own lines; or the same content as JSON for tools.

use serde_json::{json, Value as Json};

use super::{Correlated, DiffKind, Side};
use crate::gcl::{guard_text, instr_text};
use crate::ir::Pos;

fn marker(c: &Correlated, i: usize) -> char {
    let o = c.origin(Pos::new(i));
    match (o.side, o.matched) {
        (Side::Glue, _) => '*',
        (_, true) => '=',
        (Side::Old, false) => '-',
        (Side::New, false) => '+',
    }
}

pub fn print_correlated(c: &Correlated) -> String {
    let f = c.product();
    let prog = &c.program.program;
    let mut out = String::new();
    out.push_str(&format!(
        "// {} ⋈ {}: function {}\n",
        c.old_file, c.new_file, c.name
    ));
    out.push_str("// - old only   + new only   = matched pair   * correlation glue\n");
    if c.origins.iter().any(|o| o.copy) {
        out.push_str(
            "// ^ a copy of a loop iteration (peeled, or unrolled beside the other loop)\n",
        );
    }
    if let Some(r) = c.renamed_text() {
        out.push_str(&format!("// locals taken as renamed: {r}\n"));
    }
    let guards: Vec<String> = f
        .instrs
        .iter()
        .map(|i| guard_text(f, prog, &i.guard))
        .collect();
    let gw = guards
        .iter()
        .map(|g| g.len())
        .filter(|&n| n <= 36)
        .max()
        .unwrap_or(0);
    let n = f.instrs.len();
    // Loop heads of matched loops lose their own jumps; show only labels something jumps to.
    let targeted: std::collections::HashSet<usize> = f
        .instrs
        .iter()
        .filter_map(|i| match i.kind {
            crate::gcl::InstrKind::Goto(l) => Some(l.index()),
            _ => None,
        })
        .collect();
    for pos in 0..=n {
        for d in c.diff_points.iter().filter(|d| d.pos.index() == pos) {
            let names: Vec<String> = d
                .pairs
                .iter()
                .map(|&k| f.func.var(c.pairs[k].old).name.clone())
                .collect();
            out.push_str(&format!(
                "   ◆ diff point {}: compare {}\n",
                d.label,
                if names.is_empty() {
                    "-".into()
                } else {
                    names.join(", ")
                }
            ));
        }
        for l in f.labels_at(pos).filter(|l| targeted.contains(&l.index())) {
            out.push_str(&format!("     L{}:\n", l.index() + 1));
        }
        if pos == n {
            break;
        }
        let ins = &f.instrs[pos];
        let guard = guards.get(pos).map_or("", String::as_str);
        let copy = if c.origin(Pos::new(pos)).copy {
            '^'
        } else {
            ' '
        };
        out.push_str(&format!(
            "{copy}{} {:>4}: {:<gw$}  {}\n",
            marker(c, pos),
            ins.line.0,
            guard,
            instr_text(f, prog, &ins.kind)
        ));
        if c.converge.contains(&Pos::new(pos + 1)) && c.origin(Pos::new(pos)).matched {
            out.push_str("   ── converge\n");
        }
    }
    out
}

pub fn to_json(c: &Correlated) -> Json {
    let f = c.product();
    let prog = &c.program.program;
    let instrs: Vec<Json> = f
        .instrs
        .iter()
        .enumerate()
        .map(|(i, ins)| {
            let o = c.origin(Pos::new(i));
            json!({
                "index": i,
                "side": match o.side { Side::Old => "old", Side::New => "new", Side::Glue => "glue" },
                "matched": o.matched,
                "source_index": o.src,
                "copy": o.copy,
                "line": ins.line.0,
                "guard": guard_text(f, prog, &ins.guard),
                "text": instr_text(f, prog, &ins.kind),
                "labels": f.labels_at(i).map(|l| format!("L{}", l.index() + 1)).collect::<Vec<_>>(),
            })
        })
        .collect();
    let dps: Vec<Json> = c
        .diff_points
        .iter()
        .map(|d| {
            json!({
                "label": d.label,
                "position": d.pos.index(),
                "kind": match &d.kind { DiffKind::Return => "return".to_string(), DiffKind::Output(n) => format!("output:{n}"), DiffKind::Effect(n) => format!("effect:{n}"), DiffKind::Exit => "exit".to_string() },
                "old_line": d.old_line,
                "new_line": d.new_line,
                "compare": d.pairs.iter().map(|&k| json!([f.func.var(c.pairs[k].old).name, f.func.var(c.pairs[k].new).name])).collect::<Vec<_>>(),
            })
        })
        .collect();
    json!({
        "schema": "dizy-correlate/1",
        "old": c.old_file,
        "new": c.new_file,
        "function": c.name,
        "instructions": instrs,
        "converge_points": c.converge.iter().map(|p| p.index()).collect::<Vec<_>>(),
        "diff_points": dps,
        "renamed": c.renamed.iter().map(|(o, n)| json!([o, n])).collect::<Vec<_>>(),
        "inputs": c.inputs.iter().map(|i| json!({
            "old": i.old.map(|v| f.func.var(v).name.clone()),
            "new": i.new.map(|v| f.func.var(v).name.clone()),
            "copy": f.func.var(i.copy).name,
        })).collect::<Vec<_>>(),
    })
}
