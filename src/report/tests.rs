//! The text and JSON renderings of reports: the `dizy-report/1` schema (DESIGN §9 and the
//! fields README adds), the table and the summary line. Expectations are derived from the
//! report's data (names, verdicts, lines, states), and witness values are checked by running
//! them, so the tests say what must be shown, not how it happens to be spelled today.

use serde_json::Value as Json;

use super::{summary, table, to_json, to_text};
use crate::correlate::DiffKind;
use crate::delta::{Delta, DiffState, EqState, PointDelta};
use crate::diag::{Note, NoteKind};
use crate::diff::{FunctionReport, Report, Verdict};
use crate::witness::memory::Input;
use crate::witness::{Behaviour, Witness};

fn function(name: &str, verdict: Verdict) -> FunctionReport {
    FunctionReport {
        name: name.to_string(),
        verdict,
        time_ms: 7,
        delta: None,
        witness: None,
        notes: vec![],
        error: None,
        max_substates: 0,
        changed_callees: vec![],
        own_changed: true,
        inlined: vec![],
        old_line: Some(3),
        new_line: Some(4),
        changed_line: None,
        source: None,
        correlating: None,
        input_plane: None,
        assumes: vec![],
    }
}

fn point(label: &str, eq: &[&[&str]], diff: &[(&[&str], &[&str])]) -> PointDelta {
    let strings = |xs: &[&str]| xs.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    PointDelta {
        label: label.to_string(),
        kind: DiffKind::Return,
        old_line: 10,
        new_line: 12,
        compared: vec!["retval".into()],
        reachable: !(eq.is_empty() && diff.is_empty()),
        equivalent: eq
            .iter()
            .map(|c| EqState {
                constraints: strings(c),
            })
            .collect(),
        different: diff
            .iter()
            .map(|(vars, cs)| DiffState {
                vars: strings(vars),
                constraints: strings(cs),
                inputs: vec!["x₀ = 0".into()],
                seed: Some(vec![("x".into(), 0)]),
            })
            .collect(),
        omitted: 0,
    }
}

fn behaviour(ret: &str) -> Behaviour {
    Behaviour {
        ret: ret.to_string(),
        globals: vec![],
        modified: vec![],
        memory: vec![],
        output: vec![],
        diverged: None,
        undefined: None,
        calls: vec![],
        returned: None,
    }
}

/// A report with every kind of entry: a different function with a witness (the new version
/// runs on, and the old one prints and changes a global), a possibly different one with many
/// differing variables and an unreachable point, an equivalent one, an unsupported one, an
/// unchanged, an added and a removed one.
pub(super) fn sample() -> Report {
    let mut diff = function("sign", Verdict::Different);
    diff.changed_line = Some(9);
    diff.delta = Some(Delta {
        points: vec![point(
            "return@10/12",
            &[&["x₀ <= -1"], &["x₀ >= 1"]],
            &[(&["retval"], &["retval = 1", "retval' = 0", "x₀ = 0"])],
        )],
        equivalent: false,
    });
    let mut old = behaviour("1");
    old.globals = vec![("count".into(), "3".into())];
    old.modified = vec!["count".into()];
    old.output = b"hi\n".to_vec();
    let mut new = behaviour("does not return within 100 steps");
    new.diverged = Some(100);
    diff.witness = Some(Witness {
        inputs: vec![("x".into(), "0".into()), ("y".into(), "-2".into())],
        args: vec![Input::Scalar("0".into()), Input::Scalar("-2".into())],
        old,
        new,
        strategy: "seed".into(),
        validated_by: "interpreter".into(),
        tries: 1,
        loop_bound: Some(4),
        path_len: Some(9),
        time_us: 3250,
        also: vec![vec![("x".into(), "5".into()), ("y".into(), "1".into())]],
        global_inputs: vec![],
        global_args: vec![],
        externals: vec![],
        external_args: vec![],
        constants: vec![],
    });
    diff.notes = vec![Note::at(NoteKind::Assumption, "new.c", 3, "a note")];
    let mut maybe = function("many", Verdict::PossiblyDifferent);
    maybe.new_line = None;
    maybe.delta = Some(Delta {
        points: vec![
            point(
                "return@20/21",
                &[],
                &[(&["a", "b"], &["a = 1"]), (&["c", "d", "e"], &["c = 2"])],
            ),
            point("return@30/31", &[], &[]),
        ],
        equivalent: false,
    });
    let mut eq = function("same_result", Verdict::Equivalent);
    eq.delta = Some(Delta {
        points: vec![point("exit@40/41", &[&[]], &[])],
        equivalent: true,
    });
    let mut bad = function("weird", Verdict::Unsupported);
    bad.error = Some("f.c:50: unsupported construct".into());
    let mut added = function("fresh", Verdict::Added);
    added.old_line = None;
    let mut removed = function("gone", Verdict::Removed);
    removed.new_line = None;
    Report {
        old: "old.c".into(),
        new: "new.c".into(),
        assumptions: vec![
            Note::new(NoteKind::Semantics, "first assumption"),
            Note::in_file(NoteKind::Assumption, "old.c", "second assumption"),
        ],
        functions: vec![
            diff,
            maybe,
            function("untouched", Verdict::Unchanged),
            eq,
            bad,
            added,
            function("also_untouched", Verdict::Unchanged),
            removed,
        ],
        config_changes: vec![],
        configurations: vec![],
    }
}

// --------------------------------------------------------------------------------- JSON

fn strings(j: &Json) -> Vec<String> {
    j.as_array()
        .unwrap_or_else(|| panic!("array expected: {j}"))
        .iter()
        .map(|s| s.as_str().expect("string").to_string())
        .collect()
}

#[test]
fn json_follows_the_schema() {
    let r = sample();
    let j = to_json(&r);
    assert_eq!(j["schema"], "dizy-report/1");
    assert_eq!(j["old"], r.old.as_str());
    assert_eq!(j["new"], r.new.as_str());
    assert_eq!(
        strings(&j["assumptions"]),
        r.assumptions
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
    );
    let fs = j["functions"].as_array().expect("functions");
    assert_eq!(fs.len(), r.functions.len());
    let verdicts = [
        "equivalent",
        "partially-equivalent",
        "different",
        "possibly-different",
        "unchanged",
        "unsupported",
        "timeout",
        "error",
        "added",
        "removed",
    ];
    for (jf, f) in fs.iter().zip(&r.functions) {
        // DESIGN §9 and README's additions, nothing missing.
        for key in [
            "name",
            "verdict",
            "time_ms",
            "diff_points",
            "witness",
            "notes",
            "old_line",
            "new_line",
            "changed_line",
            "changed_callees",
            "inlined",
            "assumes",
        ] {
            assert!(jf.get(key).is_some(), "{}: no `{key}` in {jf}", f.name);
        }
        assert_eq!(jf["name"], f.name.as_str());
        assert_eq!(jf["verdict"], f.verdict.as_str());
        assert!(verdicts.contains(&jf["verdict"].as_str().unwrap()));
        assert_eq!(jf["time_ms"].as_u64(), Some(f.time_ms as u64));
        assert_eq!(jf["old_line"].as_u64(), f.old_line.map(u64::from));
        assert_eq!(jf["new_line"].as_u64(), f.new_line.map(u64::from));
        assert_eq!(jf["changed_line"].as_u64(), f.changed_line.map(u64::from));
        // Diff points: the delta's content, entry by entry.
        let points: &[PointDelta] = f.delta.as_ref().map_or(&[], |d| &d.points);
        let jp = jf["diff_points"].as_array().expect("diff_points");
        assert_eq!(jp.len(), points.len(), "{}", f.name);
        for (jp, p) in jp.iter().zip(points) {
            assert_eq!(jp["label"], p.label.as_str());
            assert_eq!(jp["old_line"].as_u64(), Some(u64::from(p.old_line)));
            assert_eq!(jp["new_line"].as_u64(), Some(u64::from(p.new_line)));
            assert_eq!(jp["reachable"].as_bool(), Some(p.reachable));
            let je = jp["equivalent"].as_array().expect("equivalent");
            assert_eq!(je.len(), p.equivalent.len());
            for (je, e) in je.iter().zip(&p.equivalent) {
                assert_eq!(strings(&je["constraints"]), e.constraints);
            }
            let jd = jp["different"].as_array().expect("different");
            assert_eq!(jd.len(), p.different.len());
            for (jd, d) in jd.iter().zip(&p.different) {
                assert_eq!(strings(&jd["vars"]), d.vars);
                assert_eq!(strings(&jd["constraints"]), d.constraints);
                assert_eq!(strings(&jd["inputs"]), d.inputs);
                for (name, v) in d.seed.iter().flatten() {
                    // Values are strings in C literal syntax.
                    assert_eq!(jd["seed"][name].as_str(), Some(v.to_string().as_str()));
                }
            }
        }
        // The error comes first among the notes.
        let notes = strings(&jf["notes"]);
        let mut expected: Vec<String> = f.error.iter().cloned().collect();
        expected.extend(f.notes.iter().map(ToString::to_string));
        assert_eq!(notes, expected, "{}", f.name);
        // Typed notes: the same notes (without the error), kind and place kept.
        let typed = jf["typed_notes"].as_array().expect("typed_notes");
        assert_eq!(typed.len(), f.notes.len(), "{}", f.name);
        for (jn, n) in typed.iter().zip(&f.notes) {
            assert_eq!(jn["kind"], crate::report::note_kind(n.kind));
            assert_eq!(jn["text"].as_str(), Some(n.text.as_str()));
            assert_eq!(jn["line"].as_u64(), n.line.map(u64::from));
        }
        match &f.witness {
            None => assert!(jf["witness"].is_null(), "{}", f.name),
            Some(w) => {
                let jw = &jf["witness"];
                for (n, v) in &w.inputs {
                    assert_eq!(jw["inputs"][n].as_str(), Some(v.as_str()));
                }
                assert_eq!(jw["validated_by"], w.validated_by.as_str());
                assert_eq!(jw["strategy"], w.strategy.as_str());
                assert_eq!(jw["loop_bound"].as_u64(), w.loop_bound.map(u64::from));
                assert_eq!(jw["path_length"].as_u64(), w.path_len.map(|x| x as u64));
                assert_eq!(jw["time_ms"].as_f64(), Some(w.time_us as f64 / 1000.0));
                let more = jw["more_inputs"].as_array().expect("more_inputs");
                assert_eq!(more.len(), w.also.len());
                for (m, inputs) in more.iter().zip(&w.also) {
                    for (n, v) in inputs {
                        assert_eq!(m[n].as_str(), Some(v.as_str()));
                    }
                }
                // The old version returned, printed and changed a global; the new one ran on.
                assert_eq!(jw["old"]["return"], w.old.ret.as_str());
                for (g, v) in &w.old.globals {
                    assert_eq!(jw["old"][g].as_str(), Some(v.as_str()));
                }
                assert_eq!(
                    jw["old"]["output"].as_str(),
                    Some(String::from_utf8_lossy(&w.old.output).as_ref())
                );
                assert!(jw["new"]["return"].is_null());
                assert_eq!(
                    jw["new"]["does_not_return_within_steps"].as_u64(),
                    w.new.diverged
                );
            }
        }
    }
}

/// A report made by the pipeline: its JSON witness values are C literals that, run again,
/// give the return values the JSON states.
#[test]
fn json_witness_values_round_trip() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (old, new) = (dir.path().join("old.c"), dir.path().join("new.c"));
    std::fs::write(
        &old,
        "int sign(int x) { if (x < 0) return -1; return 1; }\nint same(int x) { return x; }\n",
    )
    .unwrap();
    std::fs::write(
        &new,
        "int sign(int x) { if (x < 0) return -1; if (x == 0) return 0; return 1; }\nint same(int x) { return x; }\n",
    )
    .unwrap();
    let r = crate::diff::diff_files(&old, &new, &Default::default()).expect("diff");
    let j = to_json(&r);
    let f = j["functions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["name"] == "sign")
        .expect("sign");
    assert_eq!(f["verdict"], "different");
    let w = &f["witness"];
    let x = w["inputs"]["x"].as_str().expect("x as a string");
    let po = crate::load_gcl(&old, &Default::default()).unwrap();
    let pn = crate::load_gcl(&new, &Default::default()).unwrap();
    for (p, side) in [(&po, "old"), (&pn, "new")] {
        let (value, _) =
            crate::interp::run_literals(p, "sign", &[x.to_string()], 1_000_000).expect("run");
        assert_eq!(w[side]["return"].as_str(), Some(value.as_str()), "{side}");
    }
    assert_ne!(w["old"]["return"], w["new"]["return"]);
    let same = j["functions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["name"] == "same")
        .expect("same");
    assert_eq!(same["verdict"], "unchanged");
    assert!(same["witness"].is_null());
}

// --------------------------------------------------------------------------------- text

#[test]
fn table_has_a_row_per_shown_function() {
    let r = sample();
    let t = table(&r);
    let lines: Vec<&str> = t.lines().collect();
    let shown: Vec<&FunctionReport> = r
        .functions
        .iter()
        .filter(|f| f.verdict != Verdict::Unchanged)
        .collect();
    // A header, one row per function that is not unchanged (in report order), one line for the
    // unchanged ones.
    assert_eq!(lines.len(), 1 + shown.len() + 1, "{t}");
    for (row, f) in lines[1..=shown.len()].iter().zip(&shown) {
        let cells: Vec<&str> = row.split_whitespace().collect();
        assert_eq!(cells[0], f.name, "{row}");
        assert_eq!(cells[1], f.verdict.as_str(), "{row}");
        let line = |l: Option<u32>| l.map_or("-".to_string(), |l| l.to_string());
        assert_eq!(cells[2], line(f.old_line), "{row}");
        assert_eq!(cells[3], line(f.new_line), "{row}");
        assert_eq!(cells[4], f.time_ms.to_string(), "{row}");
        // The differing variables, at most three of them by name.
        let vars: Vec<&String> = f
            .delta
            .iter()
            .flat_map(|d| &d.points)
            .flat_map(|p| &p.different)
            .flat_map(|s| &s.vars)
            .collect();
        for v in vars.iter().take(3) {
            assert!(row.contains(v.as_str()), "{row}: {v}");
        }
        for v in vars.iter().skip(3) {
            assert!(!cells.contains(&v.as_str()), "{row}: {v} shown");
        }
        if vars.len() > 3 {
            assert!(row.contains(&(vars.len() - 3).to_string()), "{row}");
        }
        if vars.is_empty() {
            assert_eq!(cells.len(), 6, "{row}");
        }
    }
    // The columns line up: every row starts its verdict where the header does.
    let col = lines[0].find("verdict").expect("header");
    for row in &lines[1..=shown.len()] {
        assert!(
            row[col..].starts_with(|c: char| c.is_ascii_alphabetic()),
            "{row}"
        );
        assert_eq!(&row[col - 1..col], " ", "{row}");
    }
    let last = lines.last().unwrap();
    let unchanged: Vec<&str> = r
        .functions
        .iter()
        .filter(|f| f.verdict == Verdict::Unchanged)
        .map(|f| f.name.as_str())
        .collect();
    assert!(last.contains(&unchanged.len().to_string()), "{last}");
    for n in &unchanged {
        assert!(last.contains(n), "{last}");
    }
    // Nothing but unchanged functions: no header.
    let only = Report {
        functions: vec![function("a", Verdict::Unchanged)],
        ..sample()
    };
    assert_eq!(table(&only).lines().count(), 1);
}

#[test]
fn summary_counts_every_verdict() {
    let r = sample();
    let s = summary(&r);
    assert!(s.ends_with('\n') && s.lines().count() == 1, "{s:?}");
    assert!(s.starts_with("summary: "), "{s}");
    assert!(s.contains(&r.functions.len().to_string()), "{s}");
    let all = [
        Verdict::Equivalent,
        Verdict::PartiallyEquivalent,
        Verdict::Different,
        Verdict::PossiblyDifferent,
        Verdict::Unchanged,
        Verdict::Added,
        Verdict::Removed,
        Verdict::InactiveChange,
        Verdict::Unsupported,
        Verdict::Timeout,
        Verdict::Error,
    ];
    let mut total = 0;
    for v in all {
        let n = r.functions.iter().filter(|f| f.verdict == v).count();
        total += n;
        let shown = s
            .split([':', ','])
            .any(|part| part.trim() == format!("{n} {}", v.as_str()));
        assert_eq!(shown, n > 0, "{} in {s}", v.as_str());
    }
    assert_eq!(total, r.functions.len());
    // The text report ends with it.
    assert!(to_text(&r).ends_with(&s));
    let empty = Report {
        functions: vec![],
        ..sample()
    };
    let s = summary(&empty);
    assert!(s.contains('0') && !s.contains("equivalent"), "{s}");
}

#[test]
fn text_has_a_section_per_analysed_function() {
    let r = sample();
    let t = to_text(&r);
    assert!(t.lines().next().unwrap().contains(&r.old));
    assert!(t.lines().next().unwrap().contains(&r.new));
    for a in &r.assumptions {
        assert_eq!(t.matches(a.to_string().as_str()).count(), 1, "{a}");
    }
    for f in &r.functions {
        let head = format!("function {}: {} (", f.name, f.verdict.as_str());
        let sectioned = !matches!(
            f.verdict,
            Verdict::Unchanged | Verdict::Added | Verdict::Removed
        );
        assert_eq!(t.contains(&head), sectioned, "{}", f.name);
        if !sectioned {
            continue;
        }
        let start = t.find(&head).unwrap();
        let end = t[start + 1..]
            .find("\nfunction ")
            .map_or(t.len(), |k| start + 1 + k);
        let sec = &t[start..end];
        if let Some(e) = &f.error {
            assert!(sec.contains(e.as_str()), "{sec}");
        }
        for n in &f.notes {
            assert!(sec.contains(n.to_string().as_str()), "{sec}");
        }
        if let Some(w) = &f.witness {
            for (n, v) in w.inputs.iter().chain(w.also.iter().flatten()) {
                assert!(sec.contains(&format!("{n} = {v}")), "{sec}");
            }
            assert!(sec.contains(&w.strategy) && sec.contains(&w.validated_by));
            assert!(sec.contains(&w.old.ret), "{sec}");
            // A run that does not return says how long it ran.
            assert!(sec.contains(&w.new.diverged.unwrap().to_string()), "{sec}");
            for (g, v) in &w.old.globals {
                assert!(sec.contains(&format!("{g} = {v}")), "{sec}");
            }
        }
        // Per diff point: its label, one line per state, "not reached" when unreachable.
        for p in f.delta.iter().flat_map(|d| &d.points) {
            let at = sec
                .find(&p.label)
                .unwrap_or_else(|| panic!("{}: {sec}", p.label));
            let block: Vec<&str> = sec[at..]
                .lines()
                .skip(1)
                .take_while(|l| l.starts_with("    "))
                .collect();
            if !p.reachable {
                assert_eq!(block.len(), 1, "{block:?}");
                assert!(!block[0].contains(':'), "{block:?}");
                continue;
            }
            assert_eq!(
                block.len(),
                p.equivalent.len() + p.different.len(),
                "{block:?}"
            );
            for (line, d) in block[p.equivalent.len()..].iter().zip(&p.different) {
                for v in &d.vars {
                    assert!(line.contains(v.as_str()), "{line}");
                }
                for c in &d.constraints {
                    assert!(line.contains(c.as_str()), "{line}");
                }
            }
            for (line, e) in block.iter().zip(&p.equivalent) {
                for c in &e.constraints {
                    assert!(line.contains(c.as_str()), "{line}");
                }
            }
        }
    }
}

/// A changed line in an inactive `#if defined(X)` region outside every loaded function.
pub(super) fn inactive_change() -> crate::config_changes::ConfigChange {
    crate::config_changes::ConfigChange {
        kind: crate::config_changes::ChangeKind::InactiveCode,
        old_lines: Some((3, 3)),
        new_lines: Some((3, 4)),
        condition: Some("defined(X)".into()),
        function: None,
        removed_function: Some("f".into()),
        text: "return a - 1;".into(),
        old_text: Some("return a + 1;".into()),
        escapes: true,
        enable: Some(vec!["-DX".into()]),
        groups: (None, None),
    }
}

#[test]
fn changes_outside_the_configuration_are_shown_and_set_the_status() {
    use crate::config_changes::{ChangeKind, ConfigChange};
    let change = inactive_change();
    let quiet = Report {
        functions: vec![function("g", Verdict::Unchanged)],
        ..sample()
    };
    assert_eq!(quiet.exit_code(), 0);
    let r = Report {
        config_changes: vec![change.clone()],
        ..quiet.clone()
    };
    assert_eq!(
        r.exit_code(),
        1,
        "a change not analysed is not \"nothing changed\""
    );
    let text = to_text(&r);
    assert!(
        text.contains("old line 3, new lines 3-4: code the preprocessor removes changed (in `f`, which this configuration does not compile); compiled when defined(X); enable with -DX"),
        "{text}"
    );
    assert!(summary(&r).contains("1 change(s) in code this configuration does not compile"));
    let j = to_json(&r);
    let c = &j["config_changes"][0];
    assert_eq!(c["kind"], "inactive-code");
    assert_eq!(c["new_lines"], serde_json::json!([3, 4]));
    assert_eq!(c["enable"][0], "-DX");
    assert_eq!(c["not_analysed"], true);
    // Analysed in the configuration that compiles it: that report's status counts instead.
    let covered = Report {
        configurations: vec![crate::diff::Configuration {
            flags: vec!["-DX".into()],
            report: quiet.clone(),
        }],
        ..r.clone()
    };
    assert_eq!(covered.exit_code(), 0);
    assert!(to_text(&covered).contains("=== configuration -DX ==="));
    assert_eq!(to_json(&covered)["configurations"][0]["flags"][0], "-DX");
    // A directive whose effect is in the compiled code does not set the status.
    let directive = Report {
        config_changes: vec![ConfigChange {
            kind: ChangeKind::Directive("include".into()),
            escapes: false,
            enable: None,
            ..change
        }],
        ..quiet
    };
    assert_eq!(directive.exit_code(), 0);
}
