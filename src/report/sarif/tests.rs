//! The SARIF rendering of the sample report of `report::tests`: which functions give results
//! and where, rule references, related locations, URIs, fingerprints and the caps. The log's
//! conformance to the SARIF schema and GitHub's ingestion rules is checked by Microsoft's
//! validator in `tests/sarif.rs`.

use serde_json::Value as Json;

use super::{encode_path, fnv1a, shorten, to_sarif, Invocation, Source, MAX_MESSAGE, RULES};
use crate::diff::{FunctionReport, Report, Verdict};
use crate::report::tests::{inactive_change, sample};

fn log(r: &Report, old: Option<&str>, new: &str) -> Json {
    to_sarif(
        &[Source {
            new,
            old,
            report: Ok(r),
        }],
        &Invocation {
            exit_code: r.exit_code(),
            working_dir: Some("/work/my repo"),
            old_revision: None,
        },
    )
}

fn result<'a>(log: &'a Json, function: &str) -> &'a Json {
    log["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["properties"]["name"] == function)
        .unwrap_or_else(|| panic!("no result for {function}"))
}

fn line_of(loc: &Json) -> (String, u64) {
    let p = &loc["physicalLocation"];
    (
        p["artifactLocation"]["uri"].as_str().unwrap().to_string(),
        p["region"]["startLine"].as_u64().unwrap(),
    )
}

#[test]
fn a_result_per_function_that_needs_attention() {
    let r = sample();
    let l = log(&r, Some("a/old.c"), "a/new.c");
    let run = &l["runs"][0];
    assert_eq!(l["version"], "2.1.0");
    assert_eq!(run["tool"]["driver"]["name"], "dizy");
    let rules = run["tool"]["driver"]["rules"].as_array().unwrap();
    let results = run["results"].as_array().unwrap();
    let expected: Vec<&FunctionReport> = r
        .functions
        .iter()
        .filter(|f| !matches!(f.verdict, Verdict::Equivalent | Verdict::Unchanged))
        .collect();
    assert_eq!(results.len(), expected.len());
    for (res, f) in results.iter().zip(expected) {
        let i = res["ruleIndex"].as_u64().unwrap() as usize;
        assert_eq!(res["ruleId"], rules[i]["id"]);
        assert_eq!(res["ruleId"], format!("dizy/{}", f.verdict.as_str()));
        assert_eq!(res["level"], rules[i]["defaultConfiguration"]["level"]);
        assert!(res["message"]["text"]
            .as_str()
            .unwrap()
            .starts_with(&format!("{}: {}", f.name, f.verdict.as_str())));
        assert_eq!(res["properties"]["verdict"], f.verdict.as_str());
    }
    let level = |f: &str| result(&l, f)["level"].as_str().unwrap().to_string();
    assert_eq!(level("sign"), "error");
    assert_eq!(level("many"), "warning");
    assert_eq!(level("gone"), "warning");
    assert_eq!(level("weird"), "note");
    // Every verdict that gives a result has a rule, and no other does.
    for v in [Verdict::Equivalent, Verdict::Unchanged] {
        assert!(RULES.iter().all(|r| r.verdict != v));
    }
}

#[test]
fn results_point_at_the_change_and_relate_both_versions() {
    let r = sample();
    let l = log(&r, Some("a/old.c"), "a/new.c");
    let sign = result(&l, "sign");
    // The first changed line of the new file; the definition in the old one; each diff point
    // in both.
    assert_eq!(line_of(&sign["locations"][0]), ("a/new.c".into(), 9));
    let related: Vec<(String, u64)> = sign["relatedLocations"]
        .as_array()
        .unwrap()
        .iter()
        .map(line_of)
        .collect();
    assert_eq!(
        related,
        [
            ("a/old.c".into(), 3),
            ("a/new.c".into(), 12),
            ("a/old.c".into(), 10)
        ]
    );
    let text = sign["message"]["text"].as_str().unwrap();
    for part in [
        "x = 0, y = -2",
        "State with diff (retval): retval = 1, retval' = 0, x₀ = 0",
        "Equivalent state: x₀ <= -1",
    ] {
        assert!(text.contains(part), "{part} not in {text}");
    }
    assert_eq!(sign["properties"]["witness"]["inputs"]["x"], "0");
    // Without a changed line: the definition; removed functions in the old file.
    assert_eq!(
        line_of(&result(&l, "fresh")["locations"][0]),
        ("a/new.c".into(), 4)
    );
    assert_eq!(
        line_of(&result(&l, "gone")["locations"][0]),
        ("a/old.c".into(), 3)
    );
    // The definition line is unknown: line 1, never 0.
    assert_eq!(
        line_of(&result(&l, "many")["locations"][0]),
        ("a/new.c".into(), 1)
    );
    let artifacts: Vec<&str> = l["runs"][0]["artifacts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["location"]["uri"].as_str().unwrap())
        .collect();
    assert_eq!(artifacts, ["a/new.c", "a/old.c"]);
    assert_eq!(
        l["runs"][0]["originalUriBaseIds"]["%SRCROOT%"]["uri"],
        "file:///work/my%20repo/"
    );
}

#[test]
fn git_mode_names_the_old_revision_without_a_file() {
    let r = sample();
    let l = log(&r, None, "src/new.c");
    let sign = result(&l, "sign");
    let old = &sign["relatedLocations"][0];
    assert!(old.get("physicalLocation").is_none());
    assert_eq!(old["logicalLocations"][0]["name"], "sign");
    assert!(old["message"]["text"]
        .as_str()
        .unwrap()
        .contains("line 3 of the old revision"));
    assert_eq!(
        line_of(&result(&l, "gone")["locations"][0]),
        ("src/new.c".into(), 3)
    );
}

#[test]
fn fingerprints_ignore_lines_but_not_file_function_or_verdict() {
    let r = sample();
    let fp = |r: &Report, new: &str, f: &str| {
        result(&log(r, Some("old.c"), new), f)["partialFingerprints"]["dizyFunction/v1"].clone()
    };
    let mut shifted = sample();
    for f in &mut shifted.functions {
        f.new_line = f.new_line.map(|l| l + 10);
        f.changed_line = Some(40);
    }
    assert_eq!(fp(&r, "new.c", "sign"), fp(&shifted, "new.c", "sign"));
    assert_ne!(fp(&r, "new.c", "sign"), fp(&r, "other.c", "sign"));
    assert_ne!(fp(&r, "new.c", "sign"), fp(&r, "new.c", "many"));
    let mut maybe = sample();
    maybe.functions[0].verdict = Verdict::PossiblyDifferent;
    assert_ne!(fp(&r, "new.c", "sign"), fp(&maybe, "new.c", "sign"));
    // FNV-1a's offset basis for nothing; a value computed apart (Python) for one key, so that a
    // change of the hash, which would renew every alert, fails here.
    assert_eq!(fnv1a(&[]), 0xcbf2_9ce4_8422_2325);
    assert_eq!(
        fnv1a(&["sign.c", "sign", "different"]),
        0x2ed9_b8c9_c48f_0ab7
    );
}

#[test]
fn unanalysed_config_changes_become_results() {
    use crate::config_changes::ConfigChange;
    let change = ConfigChange {
        new_lines: Some((5, 6)),
        ..inactive_change()
    };
    let r = Report {
        functions: vec![],
        config_changes: vec![change.clone()],
        ..sample()
    };
    let l = log(&r, Some("old.c"), "new.c");
    let res = &l["runs"][0]["results"][0];
    assert_eq!(res["ruleId"], "dizy/inactive-change");
    assert_eq!(line_of(&res["locations"][0]), ("new.c".into(), 5));
    assert!(res["message"]["text"].as_str().unwrap().contains("-DX"));
    // Covered by the function's own inactive-change result: not said twice.
    let mut g = sample().functions[0].clone();
    g.name = "g".into();
    g.verdict = Verdict::InactiveChange;
    let r = Report {
        functions: vec![g],
        config_changes: vec![ConfigChange {
            function: Some("g".into()),
            ..change
        }],
        ..sample()
    };
    let l = log(&r, Some("old.c"), "new.c");
    let results = l["runs"][0]["results"].as_array().unwrap();
    assert_eq!(results.len(), 1);
    assert_eq!(line_of(&results[0]["locations"][0]), ("new.c".into(), 5));
}

#[test]
fn uris_are_encoded_and_messages_capped() {
    assert_eq!(encode_path("dir with space/a.c"), "dir%20with%20space/a.c");
    assert_eq!(encode_path("a:b/ü#?.c"), "a%3Ab/%C3%BC%23%3F.c");
    let r = sample();
    let l = log(&r, Some("/abs/old.c"), "/abs/new file.c");
    assert_eq!(
        line_of(&result(&l, "sign")["locations"][0]).0,
        "file:///abs/new%20file.c"
    );
    assert!(
        result(&l, "sign")["locations"][0]["physicalLocation"]["artifactLocation"]
            .get("uriBaseId")
            .is_none()
    );
    let long = "line\n".repeat(MAX_MESSAGE);
    let short = shorten(&long);
    assert!(short.chars().count() < MAX_MESSAGE + 200);
    assert!(short.contains("more line(s)"));
    assert_eq!(shorten("a\nb\n"), "a\nb");
}

#[test]
fn files_that_failed_are_notifications() {
    let r = sample();
    let l = to_sarif(
        &[
            Source {
                new: "ok.c",
                old: None,
                report: Ok(&r),
            },
            Source {
                new: "bad.c",
                old: None,
                report: Err("bad.c:1: syntax error".into()),
            },
        ],
        &Invocation {
            exit_code: 2,
            working_dir: None,
            old_revision: Some("HEAD~1"),
        },
    );
    let inv = &l["runs"][0]["invocations"][0];
    assert_eq!(inv["executionSuccessful"], false);
    assert_eq!(inv["exitCode"], 2);
    assert_eq!(inv["toolExecutionNotifications"][0]["level"], "error");
    assert!(l["runs"][0].get("originalUriBaseIds").is_none());
}
