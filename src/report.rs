//! Reports: the text people read and the JSON tools read (`dizy-report/1`, DESIGN §9); SARIF
//! for code scanning in [`sarif`]; a self-contained HTML page in [`html`].
//!
//! Takes a [`Report`] from the `diff` driver; gives a listing in the spirit of the DIZY paper's
//! results (per diff point, "Equivalent state: …" and "State with diff (vars): …" with source
//! lines) or the JSON document. Last stage of the pipeline; it computes nothing itself.

use serde_json::{json, Value as Json};

pub mod html;
pub mod progress;
pub mod sarif;

use crate::delta::PointDelta;
use crate::diag::{Note, NoteKind};
use crate::diff::{FunctionReport, Report, Verdict};
use crate::witness::{Behaviour, Witness};

pub fn to_json(r: &Report) -> Json {
    json!({
        "schema": "dizy-report/1",
        "old": r.old,
        "new": r.new,
        "assumptions": r.assumptions.iter().map(ToString::to_string).collect::<Vec<_>>(),
        "functions": r.functions.iter().map(function_json).collect::<Vec<_>>(),
        "config_changes": r.config_changes.iter().map(config_change_json).collect::<Vec<_>>(),
        "configurations": r.configurations.iter().map(|c| json!({
            "flags": c.flags,
            "report": to_json(&c.report),
        })).collect::<Vec<_>>(),
    })
}

fn config_change_json(c: &crate::config_changes::ConfigChange) -> Json {
    use crate::config_changes::ChangeKind;
    let (kind, mac) = match &c.kind {
        ChangeKind::InactiveCode => ("inactive-code", None),
        ChangeKind::Condition => ("condition", None),
        ChangeKind::MacroUsedInactive(m) => ("macro-used-inactive", Some(m.clone())),
        ChangeKind::Directive(_) => ("directive", None),
        ChangeKind::UnusedMacro(m) => ("unused-macro", Some(m.clone())),
    };
    let range = |r: Option<(u32, u32)>| r.map(|(a, b)| json!([a, b]));
    json!({
        "kind": kind,
        "macro": mac,
        "old_lines": range(c.old_lines),
        "new_lines": range(c.new_lines),
        "condition": c.condition,
        "function": c.function,
        "removed_function": c.removed_function,
        "text": c.text,
        "old_text": c.old_text,
        "not_analysed": c.escapes,
        "enable": c.enable,
        "description": crate::diff::describe_config_change(c),
    })
}

fn function_json(f: &FunctionReport) -> Json {
    let points: Vec<Json> = f
        .delta
        .as_ref()
        .map(|d| d.points.iter().map(point_json).collect())
        .unwrap_or_default();
    let mut notes: Vec<String> = f.notes.iter().map(ToString::to_string).collect();
    if let Some(e) = &f.error {
        notes.insert(0, e.clone());
    }
    // The same notes with their kind and place, for tools that route them.
    let typed: Vec<Json> = f.notes.iter().map(note_json).collect();
    json!({
        "name": f.name,
        "verdict": f.verdict.as_str(),
        "old_line": f.old_line,
        "new_line": f.new_line,
        "changed_line": f.changed_line,
        "time_ms": f.time_ms as u64,
        "diff_points": points,
        "witness": f.witness.as_ref().map_or(Json::Null, witness_json),
        "notes": notes,
        "typed_notes": typed,
        "changed_callees": f.changed_callees,
        "inlined": f.inlined,
        "assumes": f.assumes,
    })
}

fn behaviour_json(b: &Behaviour) -> Json {
    let mut o = serde_json::Map::new();
    if let Some(what) = &b.undefined {
        o.insert("return".into(), Json::Null);
        o.insert("undefined_behaviour".into(), Json::String(what.clone()));
        return Json::Object(o);
    }
    match b.diverged {
        // Ran out of steps: there is no return value to show.
        Some(steps) => {
            o.insert("return".into(), Json::Null);
            o.insert("does_not_return_within_steps".into(), json!(steps));
        }
        // Reached the end of a non-void function without `return`: no value either.
        None if b.ret == crate::interp::NO_VALUE => {
            o.insert("return".into(), Json::Null);
            o.insert("reaches_end_without_return".into(), Json::Bool(true));
        }
        None => {
            o.insert("return".into(), Json::String(b.ret.clone()));
            if let Some(r) = &b.returned {
                o.insert("returned_points_to".into(), Json::String(r.clone()));
            }
        }
    }
    for (n, v) in &b.globals {
        o.insert(n.clone(), Json::String(v.clone()));
    }
    if !b.calls.is_empty() {
        o.insert("calls".into(), json!(b.calls));
    }
    if !b.memory.is_empty() {
        o.insert(
            "memory".into(),
            Json::Object(
                b.memory
                    .iter()
                    .map(|(n, v)| (n.clone(), Json::String(v.clone())))
                    .collect(),
            ),
        );
    }
    if !b.output.is_empty() {
        o.insert(
            "output".into(),
            Json::String(String::from_utf8_lossy(&b.output).into_owned()),
        );
    }
    Json::Object(o)
}

/// `x = 1, y = 2`, or `(no inputs)`.
/// A witness's inputs as text: its parameters, then the globals it sets (if any).
/// Then what the functions the file does not define return.
fn witness_inputs_text(w: &Witness) -> String {
    let mut t = inputs_text(&w.inputs);
    if !w.global_inputs.is_empty() {
        t = format!(
            "{t}; globals set before the call: {}",
            inputs_text(&w.global_inputs)
        );
    }
    if !w.externals.is_empty() {
        let parts: Vec<String> = w
            .externals
            .iter()
            .map(|(n, v)| format!("{n}() returns {v}"))
            .collect();
        t = format!(
            "{t}; undefined functions (in both versions, whatever their arguments): {}",
            parts.join(", ")
        );
    }
    if !w.constants.is_empty() {
        t = format!(
            "{t}; constants of missing headers (chosen distinct, the same in both versions): {}",
            inputs_text(&w.constants)
        );
    }
    t
}

fn inputs_text(inputs: &crate::witness::Inputs) -> String {
    if inputs.is_empty() {
        return "(no inputs)".to_string();
    }
    let parts: Vec<String> = inputs.iter().map(|(n, v)| format!("{n} = {v}")).collect();
    parts.join(", ")
}

/// The inputs that are memory (buffers, aggregates, aliases, null pointers) as values: kind,
/// exact bytes, and which parameter an alias shares its buffer with.
fn memory_inputs_json(w: &Witness) -> Json {
    let mut o = serde_json::Map::new();
    for ((name, text), input) in w.inputs.iter().zip(&w.args) {
        let Some(v) = input_json(w, input, text) else {
            continue;
        };
        o.insert(name.clone(), v);
    }
    Json::Object(o)
}

/// One memory input as JSON (`None` for a scalar); `text` is its C text in the report.
fn input_json(w: &Witness, input: &crate::witness::memory::Input, text: &str) -> Option<Json> {
    use crate::witness::memory::Input;
    Some(match input {
        Input::Scalar(_) => return None,
        Input::Null => json!({ "kind": "null" }),
        Input::Opaque => json!({ "kind": "opaque", "text": text }),
        Input::Buffer(b) => {
            json!({ "kind": "buffer", "size": b.len(), "bytes": b, "text": text })
        }
        Input::Misaligned(b, o) => json!({
            "kind": "buffer", "size": b.len(), "bytes": b, "text": text,
            "misalignment": o,
        }),
        Input::Aggregate(b) => {
            json!({ "kind": "aggregate", "size": b.len(), "bytes": b, "text": text })
        }
        Input::SameAs(k) => json!({
            "kind": "alias",
            "of": w.inputs.get(*k).map(|(n, _)| n.clone()),
        }),
        Input::Within(k, off) => json!({
            "kind": "within",
            "of": w.inputs.get(*k).map(|(n, _)| n.clone()),
            "offset": off,
            "text": text,
        }),
        // The base with the buffers its pointer members point to, by byte offset.
        Input::Linked(base, links) => {
            let mut v = input_json(w, base, text)?;
            v["pointees"] = links
                .iter()
                .map(|l| {
                    let mut v = json!({
                        "offset": l.path.last(),
                        "path": l.path,
                        "size": l.bytes.len(),
                        "bytes": l.bytes,
                    });
                    if let Some((t, off)) = l.into {
                        v["into"] = json!({ "pointee": t, "offset": off });
                    }
                    if let Some(f) = &l.func {
                        v["function"] = json!(f);
                    }
                    v
                })
                .collect();
            v
        }
    })
}

fn witness_json(w: &Witness) -> Json {
    json!({
        "memory_inputs": memory_inputs_json(w),
        "inputs": Json::Object(w.inputs.iter().map(|(n, v)| (n.clone(), Json::String(v.clone()))).collect()),
        "global_inputs": Json::Object(w.global_inputs.iter().map(|(n, v)| (n.clone(), Json::String(v.clone()))).collect()),
        "externals": Json::Object(w.externals.iter().map(|(n, v)| (n.clone(), Json::String(v.clone()))).collect()),
        "constants": Json::Object(w.constants.iter().map(|(n, v)| (n.clone(), Json::String(v.clone()))).collect()),
        "old": behaviour_json(&w.old),
        "new": behaviour_json(&w.new),
        "validated_by": w.validated_by,
        "strategy": w.strategy,
        "tries": w.tries,
        // Milliseconds with microseconds: the pre-pass finds easy differences well under 1 ms.
        "time_ms": w.time_us as f64 / 1000.0,
        "loop_bound": w.loop_bound,
        "path_length": w.path_len,
        "more_inputs": w.also.iter().map(|i| Json::Object(i.iter().map(|(n, v)| (n.clone(), Json::String(v.clone()))).collect())).collect::<Vec<_>>(),
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

/// For a function whose callees changed: whether the change reaches it.
fn client_text(f: &FunctionReport) -> Option<String> {
    if f.changed_callees.is_empty() {
        return None;
    }
    let s = if f.changed_callees.len() == 1 {
        ""
    } else {
        "s"
    };
    let callees = f.changed_callees.join(", ");
    if f.own_changed {
        return Some(format!(
            "callee{s} {callees} changed too{}",
            if f.inlined.is_empty() {
                ""
            } else {
                " (inlined)"
            }
        ));
    }
    let name = &f.name;
    let how = match (f.verdict, &f.witness) {
        (Verdict::Equivalent, _) => {
            format!("the change is not observable through {name} (equivalent)")
        }
        (Verdict::Different, Some(w)) => {
            format!(
                "the change is observable through {name}, witness: {} (old {}, new {})",
                witness_inputs_text(w),
                behaviour_against(&w.old, Some(&w.new)),
                behaviour_against(&w.new, Some(&w.old))
            )
        }
        (Verdict::PossiblyDifferent, _) => format!(
            "the change may be observable through {name} (possibly-different: no witness found)"
        ),
        (Verdict::PartiallyEquivalent, _) => format!(
            "the change is not observable through {name} where both versions terminate (partially-equivalent: termination not proven)"
        ),
        (v, _) => format!("{name} was not decided ({})", v.as_str()),
    };
    Some(format!("client {name}: callee{s} {callees} changed; {how}"))
}

fn behaviour_text(b: &Behaviour) -> String {
    behaviour_against(b, None)
}

/// What one version did; with `other` (the other version's behaviour), the buffers are shown
/// only where the two versions left different contents.
pub(crate) fn behaviour_against(b: &Behaviour, other: Option<&Behaviour>) -> String {
    if let Some(what) = &b.undefined {
        return format!("undefined behaviour: {what}");
    }
    if let Some(steps) = b.diverged {
        return format!("does not return within {steps} interpreter steps");
    }
    let mut parts = vec![match &b.returned {
        Some(r) => format!("returns {} pointing to {r}", b.ret),
        None => format!("returns {}", b.ret),
    }];
    for (n, v) in &b.globals {
        parts.push(format!("{n} = {v}"));
    }
    // Against a version stopped by an invalid access, no buffer is compared.
    let against_undefined = other.is_some_and(|o| o.undefined.is_some());
    for (n, v) in b.memory.iter().filter(|_| !against_undefined) {
        let same = other.is_some_and(|o| o.memory.iter().any(|(m, w)| m == n && w == v));
        if !same {
            parts.push(format!("{n}[] = {v}"));
        }
    }
    if !b.output.is_empty() {
        parts.push(format!("prints {:?}", String::from_utf8_lossy(&b.output)));
    }
    // Calls are shown where they tell the versions apart.
    let shown = match other {
        Some(o) => o.calls != b.calls,
        None => !b.calls.is_empty(),
    };
    if shown {
        parts.push(match b.calls.is_empty() {
            true => "calls no function the file does not define".into(),
            false => format!("calls {}", b.calls.join("; ")),
        });
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

fn note_json(n: &Note) -> Json {
    json!({
        "kind": note_kind(n.kind),
        "file": n.file,
        "line": n.line,
        "text": n.text,
    })
}

/// The name of a note kind in JSON.
pub fn note_kind(k: NoteKind) -> &'static str {
    match k {
        NoteKind::Semantics => "semantics",
        NoteKind::Assumption => "assumption",
        NoteKind::Change => "change",
        NoteKind::Input => "input",
        NoteKind::Analysis => "analysis",
        NoteKind::Termination => "termination",
        NoteKind::Witness => "witness",
        NoteKind::NotAnalysed => "not-analysed",
    }
}

pub fn to_text(r: &Report) -> String {
    let mut out = String::new();
    out.push_str(&format!("dizy: {} → {}\n", r.old, r.new));
    out.push_str(&table(r));
    out.push_str("assumptions:\n");
    for a in &r.assumptions {
        out.push_str(&format!("  - {a}\n"));
    }
    for f in &r.functions {
        // The table says all there is about these.
        if matches!(
            f.verdict,
            Verdict::Unchanged | Verdict::Added | Verdict::Removed
        ) {
            continue;
        }
        out.push('\n');
        out.push_str(&format!(
            "function {}: {} ({} ms)\n",
            f.name,
            f.verdict.as_str(),
            f.time_ms
        ));
        out.push_str(&function_details(f));
    }
    if !r.config_changes.is_empty() {
        out.push_str("\nchanges outside the analysed configuration:\n");
        for c in &r.config_changes {
            let inside = c
                .function
                .as_ref()
                .map_or(String::new(), |f| format!(" (in {f})"));
            out.push_str(&format!(
                "  - {}{inside}\n",
                crate::diff::describe_config_change(c)
            ));
        }
    }
    out.push('\n');
    out.push_str(&summary(r));
    for c in &r.configurations {
        out.push_str(&format!("\n=== configuration {} ===\n", c.flags.join(" ")));
        out.push_str(&to_text(&c.report));
    }
    out
}

/// The body of a function's section in the text report (after its heading), two-space indented:
/// error, client impact, notes, differing variables, the witness and Δ per diff point.
fn function_details(f: &FunctionReport) -> String {
    let mut out = String::new();
    if let Some(e) = &f.error {
        out.push_str(&format!("  {e}\n"));
    }
    if let Some(c) = client_text(f) {
        out.push_str(&format!("  {c}\n"));
    }
    for n in &f.notes {
        out.push_str(&format!("  note: {n}\n"));
    }
    let lines = differing_lines(f);
    if !lines.is_empty() {
        out.push_str(&format!("  differs in: {}\n", lines.join("; ")));
    }
    if let Some(w) = &f.witness {
        out.push_str(&witness_text(w));
    }
    for p in f.delta.iter().flat_map(|d| &d.points) {
        out.push_str(&point_text(p));
    }
    out
}

/// The witness: inputs, each version's behaviour, how it was found.
fn witness_text(w: &Witness) -> String {
    let mut out = format!("  {}\n", witness_heading(w));
    for l in witness_lines(w) {
        out.push_str(&format!("    {l}\n"));
    }
    out
}

/// `witness (seed, validated by the interpreter): x = 0`.
fn witness_heading(w: &Witness) -> String {
    format!(
        "witness ({}, validated by the {}): {}",
        w.strategy,
        w.validated_by,
        witness_inputs_text(w)
    )
}

/// The lines under the witness's heading: each version's behaviour, the solved path, further
/// inputs.
fn witness_lines(w: &Witness) -> Vec<String> {
    let mut out = vec![
        format!("old: {}", behaviour_against(&w.old, Some(&w.new))),
        format!("new: {}", behaviour_against(&w.new, Some(&w.old))),
    ];
    if let (Some(nu), Some(len)) = (w.loop_bound, w.path_len) {
        out.push(format!(
            "path: {len} edges of the correlating program, loop bound ν = {nu}"
        ));
    }
    for more in &w.also {
        out.push(format!("also differs on: {}", inputs_text(more)));
    }
    out
}

/// One diff point: its lines and what it compares, then its equivalent states and states with
/// diff.
fn point_text(p: &PointDelta) -> String {
    let mut out = format!("  {}\n", point_heading(p));
    for (_, l) in point_states(p) {
        out.push_str(&format!("    {l}\n"));
    }
    out
}

/// `diff point return@9/11 (old line 9, new line 11; compares retval)`.
fn point_heading(p: &PointDelta) -> String {
    let cmp = if p.compared.is_empty() {
        String::new()
    } else {
        format!("; compares {}", p.compared.join(", "))
    };
    format!(
        "diff point {} ({}{cmp})",
        p.label,
        lines_at(p.old_line, p.new_line)
    )
}

/// What a line under a diff point's heading says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum StateKind {
    Equivalent,
    Differs,
    /// `not reached`, or how many states are not shown.
    Remark,
}

/// The lines under a diff point's heading: its equivalent states and states with diff.
fn point_states(p: &PointDelta) -> Vec<(StateKind, String)> {
    if !p.reachable {
        return vec![(StateKind::Remark, "not reached".into())];
    }
    let mut out = vec![];
    for e in &p.equivalent {
        out.push((
            StateKind::Equivalent,
            format!("Equivalent state: {}", constraints_text(&e.constraints)),
        ));
    }
    for s in &p.different {
        out.push((
            StateKind::Differs,
            format!(
                "State with diff ({}): {}",
                s.vars.join(", "),
                constraints_text(&s.constraints)
            ),
        ));
    }
    if p.omitted > 0 {
        out.push((
            StateKind::Remark,
            format!("… {} more states not shown (see --format json)", p.omitted),
        ));
    }
    out
}

/// `old line 9, new line 11` (0 is a version without the point).
fn lines_at(old: u32, new: u32) -> String {
    match (old, new) {
        (0, n) => format!("new line {n}"),
        (o, 0) => format!("old line {o}"),
        (o, n) => format!("old line {o}, new line {n}"),
    }
}

/// Variables that differ in some differing state, per diff point with its lines:
/// `retval, n at return (old line 9, new line 11)`.
fn differing_lines(f: &FunctionReport) -> Vec<String> {
    let Some(d) = &f.delta else { return vec![] };
    let mut out = vec![];
    for p in &d.points {
        let mut vars: Vec<&str> = vec![];
        for s in &p.different {
            for v in &s.vars {
                if !vars.contains(&v.as_str()) {
                    vars.push(v);
                }
            }
        }
        if vars.is_empty() {
            continue;
        }
        let at = lines_at(p.old_line, p.new_line);
        let kind = p.label.split('@').next().unwrap_or(&p.label);
        out.push(format!("{} at {kind} ({at})", vars.join(", ")));
    }
    out
}

/// The variables that differ in some state with diff of `f`, in order of appearance.
fn differing_vars(f: &FunctionReport) -> Vec<&str> {
    let mut vars: Vec<&str> = vec![];
    for v in f
        .delta
        .iter()
        .flat_map(|d| &d.points)
        .flat_map(|p| &p.different)
        .flat_map(|s| &s.vars)
    {
        if !vars.contains(&v.as_str()) {
            vars.push(v);
        }
    }
    vars
}

/// At most three names, then how many more (the details follow in the function's section).
fn few(names: &[&str]) -> String {
    match names.len() {
        0..=3 => names.join(", "),
        n => format!("{}, … ({} more)", names[..3].join(", "), n - 3),
    }
}

/// The summary table on top of the text report: one row per function that is not unchanged
/// (verdict, first line in each version, time, what differs), unchanged ones on one line.
pub fn table(r: &Report) -> String {
    let mut out = String::new();
    let shown: Vec<&FunctionReport> = r
        .functions
        .iter()
        .filter(|f| f.verdict != Verdict::Unchanged)
        .collect();
    if !shown.is_empty() {
        let w = shown.iter().map(|f| f.name.len()).max().unwrap_or(0).max(8);
        out.push_str(&format!(
            "  {:<w$}  {:<20}  {:>6}  {:>6}  {:>8}\n",
            "function", "verdict", "old", "new", "time"
        ));
        let line = |l: Option<u32>| l.map_or("-".to_string(), |l| l.to_string());
        for f in shown {
            let what = match differing_vars(f).as_slice() {
                [] => String::new(),
                vars => format!("  differs in: {}", few(vars)),
            };
            out.push_str(&format!(
                "  {:<w$}  {:<20}  {:>6}  {:>6}  {:>5} ms{what}\n",
                f.name,
                f.verdict.as_str(),
                line(f.old_line),
                line(f.new_line),
                f.time_ms
            ));
        }
    }
    let unchanged: Vec<&str> = r
        .functions
        .iter()
        .filter(|f| f.verdict == Verdict::Unchanged)
        .map(|f| f.name.as_str())
        .collect();
    if !unchanged.is_empty() {
        out.push_str(&format!(
            "  unchanged ({}): {}\n",
            unchanged.len(),
            unchanged.join(", ")
        ));
    }
    out
}

pub fn summary(r: &Report) -> String {
    let count = |v: Verdict| r.functions.iter().filter(|f| f.verdict == v).count();
    let mut parts = vec![];
    for v in Verdict::ALL {
        let n = count(v);
        if n > 0 {
            parts.push(format!("{n} {}", v.as_str()));
        }
    }
    let hidden = r.config_changes.iter().filter(|c| c.escapes).count();
    let hidden = match hidden {
        0 => String::new(),
        n => format!("; {n} change(s) in code this configuration does not compile, not analysed"),
    };
    format!(
        "summary: {} function(s): {}{hidden}\n",
        r.functions.len(),
        if parts.is_empty() {
            "none".into()
        } else {
            parts.join(", ")
        }
    )
}

#[cfg(test)]
mod tests;
