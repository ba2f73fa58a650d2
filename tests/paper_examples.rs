//! The DIZY paper's examples reproduce the paper's findings, checked on the JSON report.
//!
//! Oracle: the paper's own descriptions (sign differs exactly at x = 0, old 1 / new 0, and is
//! equivalent for x < 0 and x > 0; char_to_clump differs where the new version resets
//! input_position to 0; bsd_split_3 differs only for s_len = 0).

use std::path::Path;

use serde_json::Value;

fn report(id: &str, function: &str) -> Value {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("benchmarks/pairs")
        .join(id);
    let opts = dizy::diff::DiffOptions {
        functions: vec![function.to_string()],
        ..Default::default()
    };
    let r =
        dizy::diff::diff_files(&dir.join("old.c"), &dir.join("new.c"), &opts).expect("pair loads");
    dizy::report::to_json(&r)
}

fn function(r: &Value) -> &Value {
    &r["functions"][0]
}

fn constraints(state: &Value) -> Vec<String> {
    state["constraints"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_str().unwrap().to_string())
        .collect()
}

fn point<'a>(f: &'a Value, prefix: &str) -> &'a Value {
    f["diff_points"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["label"].as_str().unwrap().starts_with(prefix))
        .unwrap_or_else(|| panic!("no diff point {prefix} in {f}"))
}

#[test]
fn sign_differs_exactly_at_zero() {
    let r = report("sign", "sign");
    let f = function(&r);
    assert_ne!(f["verdict"], "equivalent");
    assert_eq!(r["schema"], "dizy-report/1");
    for label in ["return", "exit"] {
        let p = point(f, label);
        let diffs = p["different"].as_array().unwrap();
        assert!(!diffs.is_empty(), "{label}: a difference is reported");
        for d in diffs {
            let cs = constraints(d);
            assert!(
                cs.contains(&"x₀ = 0".to_string()),
                "{label}: difference only at x = 0: {cs:?}"
            );
            assert!(
                cs.contains(&"retval = 1".to_string()) && cs.contains(&"retval' = 0".to_string()),
                "{cs:?}"
            );
            assert_eq!(d["vars"], serde_json::json!(["retval"]));
        }
        let eqs: Vec<Vec<String>> = p["equivalent"]
            .as_array()
            .unwrap()
            .iter()
            .map(constraints)
            .collect();
        assert!(
            eqs.iter().any(|c| c == &vec!["x₀ <= -1".to_string()]),
            "{label}: x < 0 equivalent: {eqs:?}"
        );
        assert!(
            eqs.iter().any(|c| c == &vec!["x₀ >= 1".to_string()]),
            "{label}: x > 0 equivalent: {eqs:?}"
        );
    }
}

#[test]
fn char_to_clump_differs_where_input_position_is_reset() {
    let r = report("pr_char_to_clump", "char_to_clump");
    let f = function(&r);
    assert_ne!(f["verdict"], "equivalent");
    let p = point(f, "return");
    let diffs = p["different"].as_array().unwrap();
    // The new version sets input_position to 0 where the old one moved it by a negative width.
    assert!(
        diffs.iter().any(|d| {
            let cs = constraints(d);
            cs.contains(&"input_position' = 0".to_string())
                && d["vars"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .any(|v| v == "input_position")
        }),
        "no differing state with input_position' = 0: {diffs:?}"
    );
    // Only the return value and input_position can differ: the other globals are untouched.
    for d in diffs {
        for v in d["vars"].as_array().unwrap() {
            assert!(
                v == "retval" || v == "input_position",
                "unexpected differing variable {v}"
            );
        }
    }
}

#[test]
fn bsd_split_3_differs_only_for_empty_input() {
    let r = report("md5sum_bsd_split_3", "bsd_split_3");
    let f = function(&r);
    assert_ne!(f["verdict"], "equivalent");
    let mut any_diff = false;
    for p in f["diff_points"].as_array().unwrap() {
        for d in p["different"].as_array().unwrap() {
            any_diff = true;
            let cs = constraints(d);
            assert!(
                cs.contains(&"s_len₀ = 0".to_string()),
                "{}: difference outside s_len = 0: {cs:?}",
                p["label"]
            );
        }
    }
    assert!(any_diff, "the empty-input difference is reported");
    let exit = point(f, "exit");
    let eqs: Vec<Vec<String>> = exit["equivalent"]
        .as_array()
        .unwrap()
        .iter()
        .map(constraints)
        .collect();
    assert!(
        eqs.iter().any(|c| c == &vec!["s_len₀ >= 1".to_string()]),
        "equivalent for non-empty input: {eqs:?}"
    );
}
