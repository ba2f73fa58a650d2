//! Shards partition; merging shards gives the unsharded document; bad sets are refused.

use serde_json::{json, Value as Json};

use super::render::{git_document, log_document, sarif_document, LogHeader};
use super::*;

#[test]
fn shards_parse_and_partition() {
    assert_eq!("2/3".parse::<Shard>(), Ok(Shard { index: 2, count: 3 }));
    for bad in ["0/3", "4/3", "1/0", "x/2", "2", "", "1/2/3"] {
        assert!(bad.parse::<Shard>().is_err(), "{bad} accepted");
    }
    for n in 1..6 {
        for k in 0..40 {
            let owners = (1..=n)
                .filter(|&i| Shard { index: i, count: n }.takes(k))
                .count();
            assert_eq!(owners, 1, "item {k} of {n} shards");
        }
    }
}

fn commit(i: usize, exit: u8) -> Json {
    json!({ "index": i, "commit": format!("{i:040}"), "exit_code": exit, "files": [] })
}

fn header(shard: Option<Shard>, options: &[String]) -> LogHeader<'_> {
    LogHeader {
        range: "A..B",
        options,
        commits_in_range: 5,
        shard,
    }
}

fn split(n: usize, make: impl Fn(Option<Shard>, Vec<Json>) -> Json) -> Vec<(String, Json)> {
    (1..=n)
        .map(|i| {
            let s = Shard { index: i, count: n };
            let items = (0..5)
                .filter(|&k| s.takes(k))
                .map(|k| commit(k, (k % 3) as u8))
                .collect();
            (format!("shard{i}.json"), make(Some(s), items))
        })
        .collect()
}

#[test]
fn merged_shards_equal_the_unsharded_document() {
    let opts = vec!["--timeout".to_string(), "5".to_string()];
    let whole = log_document(
        &header(None, &opts),
        (0..5).map(|k| commit(k, (k % 3) as u8)).collect(),
    );
    for n in 1..=4 {
        let parts = split(n, |s, items| log_document(&header(s, &opts), items));
        // Any order of the inputs.
        let mut rev = parts.clone();
        rev.reverse();
        for inputs in [parts, rev] {
            let m = merge(&inputs).expect("merge");
            assert_eq!(
                serde_json::to_string(&m.value).unwrap(),
                serde_json::to_string(&whole).unwrap()
            );
            assert_eq!(m.exit_code, 1, "worst of 0, 1, 2 is 1");
            assert!(m.is_log);
        }
    }
    let sarif_whole = sarif_document(&header(None, &opts), vec![]);
    let run =
        |k: usize| json!({ "properties": { "index": k }, "invocations": [{ "exitCode": 0 }] });
    let with_runs = |h: &LogHeader<'_>, ks: Vec<usize>| {
        let mut d = sarif_document(h, vec![]);
        d["runs"] = Json::Array(ks.into_iter().map(run).collect());
        d
    };
    let mut sw = sarif_whole;
    sw["runs"] = Json::Array((0..5).map(run).collect());
    let a = with_runs(
        &header(Some(Shard { index: 1, count: 2 }), &opts),
        vec![0, 2, 4],
    );
    let b = with_runs(
        &header(Some(Shard { index: 2, count: 2 }), &opts),
        vec![1, 3],
    );
    let m = merge(&[("b".into(), b), ("a".into(), a)]).expect("sarif merge");
    assert_eq!(m.value, sw);
    assert_eq!(m.exit_code, 0);
}

#[test]
fn git_reports_merge_by_file_position() {
    let file = |k: usize| json!({ "path": format!("f{k}.c"), "index": k, "exit_code": 0 });
    let whole = git_document(("v1", "v2"), 3, None, (0..3).map(file).collect());
    let part = |i: usize| {
        let s = Shard { index: i, count: 2 };
        let files = (0..3).filter(|&k| s.takes(k)).map(file).collect();
        (
            format!("p{i}"),
            git_document(("v1", "v2"), 3, Some(s), files),
        )
    };
    let m = merge(&[part(2), part(1)]).expect("merge");
    assert_eq!(m.value, whole);
    assert!(!m.is_log);
}

#[test]
fn wrong_sets_of_shards_are_refused() {
    let opts: Vec<String> = vec![];
    let other: Vec<String> = vec!["--domain".into(), "octagon".into()];
    let parts = split(3, |s, items| log_document(&header(s, &opts), items));
    let msg = |inputs: &[(String, Json)]| match merge(inputs) {
        Ok(_) => panic!("merged"),
        Err(e) => {
            assert_eq!(e.kind, crate::diag::ErrorKind::BadInput);
            e.to_string()
        }
    };
    assert!(msg(&parts[..2]).contains("shard 3/3 is missing"));
    let twice = vec![parts[0].clone(), parts[0].clone(), parts[1].clone()];
    assert!(msg(&twice).contains("given twice"));
    let mut foreign = parts.clone();
    foreign[1].1 = log_document(
        &header(Some(Shard { index: 2, count: 3 }), &other),
        vec![commit(1, 0), commit(4, 0)],
    );
    assert!(msg(&foreign).contains("not a shard of the same run"));
    let mut uneven = parts.clone();
    uneven[2].1["shard"] = json!({ "index": 3, "count": 4 });
    assert!(msg(&uneven).contains("another number of shards"));
    let mut lost = parts.clone();
    lost[0].1["commits"] = json!([commit(0, 0)]);
    assert!(msg(&lost).contains("item 3 of 5 is in no input"));
    let report = json!({ "schema": "dizy-report/1" });
    assert!(msg(&[("r.json".into(), report)]).contains("r.json: not the JSON"));
    let git = git_document(("a", "b"), 0, None, vec![]);
    let mixed = vec![parts[0].clone(), ("g.json".into(), git)];
    assert!(msg(&mixed).contains("a different kind"));
    assert!(msg(&[]).contains("no input files"));
}

#[test]
fn text_lists_what_changed_per_commit() {
    let doc = json!({
        "schema": "dizy-log/1", "range": "A..B", "commits_in_range": 2, "options": [],
        "commits": [
            { "index": 0, "commit": "0123456789abcdef", "date": "2026-01-02T03:04:05+00:00",
              "subject": "Fix sign", "files": [
                { "path": "s.c", "report": { "functions": [
                    { "name": "sign", "verdict": "different", "old_line": 3, "new_line": 4,
                      "witness": { "inputs": { "x": "0" } } },
                    { "name": "abs", "verdict": "unchanged" } ], "config_changes": [] } },
                { "path": "t.c", "error": "t.c:1: syntax error" } ] },
            { "index": 1, "commit": "fedcba9876543210", "date": "2026-01-03T00:00:00+00:00",
              "subject": "Docs", "files": [] } ] });
    let text = log_text(&doc);
    for want in [
        "dizy log A..B: 2 commit(s)\n",
        "\n0123456789ab 2026-01-02 Fix sign\n",
        "  s.c: sign different (old line 3, new line 4); witness: x = 0\n",
        "  t.c: error: t.c:1: syntax error\n",
        "\nfedcba987654 2026-01-03 Docs\n  no C file changed\n",
        "summary: 2 commit(s), 2 changed C file(s) (1 not analysed); functions: 1 different, 1 unchanged\n",
    ] {
        assert!(text.contains(want), "missing {want:?} in\n{text}");
    }
    assert!(
        !text.contains("abs"),
        "unchanged functions are only counted"
    );
}
