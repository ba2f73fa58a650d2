//! The documents of `dizy log` and `dizy diff --git`: `dizy-log/1` and `dizy-git-report/1`
//! JSON, the text listing of a log (rendered from its JSON, so `dizy merge --format text` prints
//! what `dizy log` prints), and SARIF with one run per commit.
//!
//! Each document is built by one function from its header and its items (`log_document`,
//! `git_document`, `sarif_document`); `dizy merge` calls the same functions with the items of
//! every shard, which is why merged shards equal an unsharded run byte for byte.

use serde_json::{json, Value as Json};

use super::{short, CommitResult, FileResult, Log, Revisions, Shard};
use crate::diff::worse_exit;
use crate::report::{self, sarif};

pub(super) const LOG_SCHEMA: &str = "dizy-log/1";
pub(super) const GIT_SCHEMA: &str = "dizy-git-report/1";

/// Remove every `time_ms` (for `--no-times`: runs of the same input then give the same bytes).
pub fn strip_times(v: &mut Json) {
    match v {
        Json::Object(o) => {
            o.remove("time_ms");
            o.values_mut().for_each(strip_times);
        }
        Json::Array(a) => a.iter_mut().for_each(strip_times),
        _ => {}
    }
}

fn shard_json(shard: Option<Shard>) -> Json {
    shard.map_or(
        Json::Null,
        |s| json!({ "index": s.index, "count": s.count }),
    )
}

/// The exit status recorded in an item (`exit_code`), 2 when it has none.
pub(super) fn item_exit(v: &Json) -> u8 {
    v["exit_code"]
        .as_u64()
        .and_then(|c| u8::try_from(c).ok())
        .unwrap_or(2)
}

fn worst(items: &[Json]) -> u8 {
    items.iter().fold(0, |w, i| worse_exit(w, item_exit(i)))
}

fn file_json(f: &FileResult) -> Json {
    match &f.report {
        Ok(r) => json!({
            "path": f.path,
            "index": f.index,
            "exit_code": r.exit_code(),
            "report": report::to_json(r),
        }),
        Err(e) => json!({ "path": f.path, "index": f.index, "exit_code": 2, "error": e }),
    }
}

/// A `dizy-git-report/1` document from its header and its file entries.
pub(super) fn git_document(
    (old, new): (&str, &str),
    changed_files: usize,
    shard: Option<Shard>,
    files: Vec<Json>,
) -> Json {
    let mut doc = json!({
        "schema": GIT_SCHEMA,
        "old_revision": old,
        "new_revision": new,
        "changed_files": changed_files,
        "exit_code": worst(&files),
        "files": files,
    });
    if shard.is_some() {
        doc["shard"] = shard_json(shard);
    }
    doc
}

/// `dizy diff --git`'s JSON: every changed file the shard took, with its report.
pub fn git_json(revs: (&str, &str), r: &Revisions, shard: Option<Shard>, times: bool) -> Json {
    let mut doc = git_document(
        revs,
        r.changed_files,
        shard,
        r.files.iter().map(file_json).collect(),
    );
    if !times {
        strip_times(&mut doc);
    }
    doc
}

fn commit_json(c: &CommitResult) -> Json {
    json!({
        "index": c.index,
        "commit": c.commit.sha,
        "parent": c.commit.parent,
        "author": c.commit.author,
        "date": c.commit.date,
        "subject": c.commit.subject,
        "changed_files": c.revisions.changed_files,
        "exit_code": c.revisions.exit_code(),
        "files": c.revisions.files.iter().map(file_json).collect::<Vec<_>>(),
    })
}

/// What every part of a sharded run must share: the range, the analysis options, the number
/// of commits.
pub(super) struct LogHeader<'a> {
    pub range: &'a str,
    pub options: &'a [String],
    pub commits_in_range: usize,
    pub shard: Option<Shard>,
}

/// A `dizy-log/1` document from its header and its commit entries.
pub(super) fn log_document(h: &LogHeader<'_>, commits: Vec<Json>) -> Json {
    let mut doc = json!({
        "schema": LOG_SCHEMA,
        "range": h.range,
        "options": h.options,
        "commits_in_range": h.commits_in_range,
        "exit_code": worst(&commits),
        "commits": commits,
    });
    if h.shard.is_some() {
        doc["shard"] = shard_json(h.shard);
    }
    doc
}

/// `dizy log`'s JSON. `options` are the analysis options as given (shards must agree on them).
pub fn log_json(log: &Log, options: &[String], times: bool) -> Json {
    let h = LogHeader {
        range: &log.range,
        options,
        commits_in_range: log.commits_in_range,
        shard: log.shard,
    };
    let mut doc = log_document(&h, log.commits.iter().map(commit_json).collect());
    if !times {
        strip_times(&mut doc);
    }
    doc
}

/// A SARIF log whose runs are commits, with the log's header in its `properties`.
pub(super) fn sarif_document(h: &LogHeader<'_>, runs: Vec<Json>) -> Json {
    let mut header = json!({
        "range": h.range,
        "options": h.options,
        "commits_in_range": h.commits_in_range,
    });
    if h.shard.is_some() {
        header["shard"] = shard_json(h.shard);
    }
    json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": runs,
        "properties": { "dizy_log": header },
    })
}

/// GitHub code scanning takes at most this many runs per SARIF file.
pub const GITHUB_MAX_RUNS: usize = 20;

/// One commit as SARIF: a log with one run, the results `dizy diff --git PARENT COMMIT --format
/// sarif` gives, the commit named in the run's `properties` (what `--output-dir` writes).
pub fn commit_sarif(c: &CommitResult) -> Json {
    let sources: Vec<_> = c
        .revisions
        .files
        .iter()
        .map(|f| sarif::Source {
            new: &f.path,
            old: None,
            report: f.report.as_ref().map_err(Clone::clone),
        })
        .collect();
    let mut doc = sarif::to_sarif(
        &sources,
        &sarif::Invocation {
            exit_code: c.revisions.exit_code(),
            working_dir: Some(&c.revisions.top),
            old_revision: Some(c.commit.parent.as_deref().map_or("(empty)", short)),
        },
    );
    doc["runs"][0]["properties"] = json!({
        "index": c.index,
        "commit": c.commit.sha,
        "parent": c.commit.parent,
        "subject": c.commit.subject,
        "changed_files": c.revisions.changed_files,
    });
    doc
}

/// One commit as `dizy-git-report/1` JSON (what `--output-dir` writes).
pub fn commit_git_json(c: &CommitResult, times: bool) -> Json {
    let parent = c.commit.parent.as_deref().map_or("(empty)", short);
    git_json((parent, short(&c.commit.sha)), &c.revisions, None, times)
}

/// `dizy log --format sarif`: one SARIF run per commit (see [`commit_sarif`]).
pub fn log_sarif(log: &Log, options: &[String], times: bool) -> Json {
    let runs = log
        .commits
        .iter()
        .map(|c| commit_sarif(c)["runs"][0].clone())
        .collect();
    let h = LogHeader {
        range: &log.range,
        options,
        commits_in_range: log.commits_in_range,
        shard: log.shard,
    };
    let mut doc = sarif_document(&h, runs);
    if !times {
        strip_times(&mut doc);
    }
    doc
}

/// The text listing of a `dizy-log/1` document: per commit its name, date and subject, then
/// per changed C file the functions whose verdict is not `unchanged` (with lines and the
/// witness's inputs), and a summary. The full Δ is in the JSON.
pub fn log_text(doc: &Json) -> String {
    let s = |v: &Json| v.as_str().unwrap_or("").to_string();
    let commits = doc["commits"].as_array().cloned().unwrap_or_default();
    let total = doc["commits_in_range"].as_u64().unwrap_or(0);
    let mut out = format!("dizy log {}: {total} commit(s)", s(&doc["range"]));
    if let Some(sh) = doc["shard"].as_object() {
        out.push_str(&format!(
            ", shard {}/{} ({} of them)",
            sh["index"],
            sh["count"],
            commits.len()
        ));
    }
    out.push('\n');
    let mut verdicts = std::collections::BTreeMap::<String, usize>::new();
    let (mut files_seen, mut errors) = (0, 0);
    for c in &commits {
        let date: String = s(&c["date"]).chars().take(10).collect();
        out.push_str(&format!(
            "\n{} {date} {}\n",
            short(&s(&c["commit"])),
            s(&c["subject"])
        ));
        let files = c["files"].as_array().cloned().unwrap_or_default();
        if files.is_empty() {
            out.push_str("  no C file changed\n");
        }
        for f in &files {
            files_seen += 1;
            let path = s(&f["path"]);
            if let Some(e) = f["error"].as_str() {
                errors += 1;
                out.push_str(&format!("  {path}: error: {e}\n"));
                continue;
            }
            let fns = f["report"]["functions"]
                .as_array()
                .cloned()
                .unwrap_or_default();
            let mut unchanged = 0;
            for func in &fns {
                let verdict = s(&func["verdict"]);
                *verdicts.entry(verdict.clone()).or_default() += 1;
                if verdict == "unchanged" {
                    unchanged += 1;
                    continue;
                }
                let lines = match (func["old_line"].as_u64(), func["new_line"].as_u64()) {
                    (Some(o), Some(n)) => format!(" (old line {o}, new line {n})"),
                    (Some(o), None) => format!(" (old line {o})"),
                    (None, Some(n)) => format!(" (new line {n})"),
                    (None, None) => String::new(),
                };
                let mut row = format!("  {path}: {} {verdict}{lines}", s(&func["name"]));
                if let Some(inputs) = func["witness"]["inputs"].as_object() {
                    let shown: Vec<String> = inputs
                        .iter()
                        .map(|(n, v)| format!("{n} = {}", v.as_str().unwrap_or("?")))
                        .collect();
                    row.push_str(&format!("; witness: {}", shown.join(", ")));
                }
                out.push_str(&row);
                out.push('\n');
            }
            let hidden = f["report"]["config_changes"].as_array().map_or(0, |cs| {
                cs.iter().filter(|c| c["not_analysed"] == true).count()
            });
            if hidden > 0 {
                out.push_str(&format!(
                    "  {path}: {hidden} change(s) in code this configuration does not compile\n"
                ));
            }
            if fns.is_empty() && hidden == 0 {
                out.push_str(&format!("  {path}: no function changed\n"));
            } else if unchanged > 0 && unchanged == fns.len() {
                out.push_str(&format!("  {path}: {unchanged} function(s) unchanged\n"));
            }
        }
    }
    let counts: Vec<String> = verdicts.iter().map(|(v, n)| format!("{n} {v}")).collect();
    out.push_str(&format!(
        "\nsummary: {} commit(s), {files_seen} changed C file(s){}; functions: {}\n",
        commits.len(),
        if errors > 0 {
            format!(" ({errors} not analysed)")
        } else {
            String::new()
        },
        if counts.is_empty() {
            "none".into()
        } else {
            counts.join(", ")
        }
    ));
    out
}
