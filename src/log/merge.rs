//! `dizy merge`: the JSON (or SARIF) outputs of the shards of one `dizy log` or `dizy diff
//! --git` command, joined into the document one unsharded run writes.
//!
//! Takes the parsed documents with the names they were read from; gives the merged document and
//! its exit status, or an error naming the file at fault. Refuses what would give a wrong
//! whole: documents of different kinds, ranges, revisions or options, a missing, repeated or
//! foreign shard, an item listed twice or missing.

use serde_json::Value as Json;

use super::render::{
    git_document, item_exit, log_document, sarif_document, LogHeader, GIT_SCHEMA, LOG_SCHEMA,
};
use super::Shard;
use crate::diag::{Error, Result};
use crate::diff::worse_exit;

/// The joined document and the exit status it records.
pub struct Merged {
    pub value: Json,
    pub exit_code: u8,
    /// Whether it is a `dizy-log/1` document (which `--format text` can list).
    pub is_log: bool,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    Log,
    Git,
    Sarif,
}

fn kind(name: &str, v: &Json) -> Result<Kind> {
    match v["schema"].as_str() {
        Some(LOG_SCHEMA) => return Ok(Kind::Log),
        Some(GIT_SCHEMA) => return Ok(Kind::Git),
        _ => {}
    }
    if v["version"] == "2.1.0" && v["properties"]["dizy_log"].is_object() {
        return Ok(Kind::Sarif);
    }
    Err(Error::bad_input(format!(
        "{name}: not the JSON of `dizy log` or `dizy diff --git`, nor the SARIF of `dizy log` \
         (schema {})",
        v["schema"]
    )))
}

fn shard_of(name: &str, v: &Json) -> Result<Option<Shard>> {
    if v.is_null() {
        return Ok(None);
    }
    let (i, n) = (v["index"].as_u64(), v["count"].as_u64());
    match (i, n) {
        (Some(i), Some(n)) if i >= 1 && i <= n => Ok(Some(Shard {
            index: i as usize,
            count: n as usize,
        })),
        _ => Err(Error::bad_input(format!("{name}: malformed shard {v}"))),
    }
}

/// The whole a set of shards claims to make up; every input must state the same.
#[derive(PartialEq, Debug)]
struct Whole {
    /// Range and options (log), or the two revisions (git).
    identity: Json,
    total: usize,
}

/// Join documents; see the module comment.
pub fn merge(inputs: &[(String, Json)]) -> Result<Merged> {
    let Some((first_name, first)) = inputs.first() else {
        return Err(Error::bad_input("dizy merge: no input files"));
    };
    let k = kind(first_name, first)?;
    let mut whole: Option<Whole> = None;
    let mut shards: Vec<(Option<Shard>, &str)> = vec![];
    let mut items: Vec<(usize, Json, &str)> = vec![];
    for (name, v) in inputs {
        let this = kind(name, v)?;
        if this != k {
            return Err(Error::bad_input(format!(
                "{name}: a different kind of document than {first_name}"
            )));
        }
        let (header, list, total_key) = parts(k, v);
        let identity = match k {
            Kind::Log | Kind::Sarif => {
                serde_json::json!([header["range"], header["options"]])
            }
            Kind::Git => serde_json::json!([header["old_revision"], header["new_revision"]]),
        };
        let this_whole = Whole {
            identity,
            total: header[total_key]
                .as_u64()
                .ok_or_else(|| Error::bad_input(format!("{name}: no `{total_key}`")))?
                as usize,
        };
        match &whole {
            None => whole = Some(this_whole),
            Some(w) if *w != this_whole => {
                return Err(Error::bad_input(format!(
                    "{name}: not a shard of the same run as {first_name} (range, revisions, \
                     options or size differ: {} against {})",
                    this_whole.identity, w.identity
                )))
            }
            Some(_) => {}
        }
        shards.push((shard_of(name, &header["shard"])?, name));
        let list = list
            .as_array()
            .ok_or_else(|| Error::bad_input(format!("{name}: no item list")))?;
        for item in list {
            let i = item_index(k, item)
                .ok_or_else(|| Error::bad_input(format!("{name}: an item without its index")))?;
            items.push((i as usize, item.clone(), name));
        }
    }
    let whole = whole.expect("at least one input");
    check_shards(&shards)?;
    items.sort_by_key(|(i, _, _)| *i);
    for (k, (i, _, name)) in items.iter().enumerate() {
        if *i != k {
            return Err(Error::bad_input(if *i < k {
                format!("{name}: item {i} is also in another input")
            } else {
                format!("item {k} of {} is in no input", whole.total)
            }));
        }
    }
    if items.len() != whole.total {
        return Err(Error::bad_input(format!(
            "the inputs hold {} of {} items",
            items.len(),
            whole.total
        )));
    }
    let list: Vec<Json> = items.into_iter().map(|(_, v, _)| v).collect();
    let (value, exit_code) = match k {
        Kind::Log | Kind::Sarif => {
            let options: Vec<String> = whole.identity[1]
                .as_array()
                .map(|a| {
                    a.iter()
                        .filter_map(|o| o.as_str().map(String::from))
                        .collect()
                })
                .unwrap_or_default();
            let h = LogHeader {
                range: whole.identity[0].as_str().unwrap_or(""),
                options: &options,
                commits_in_range: whole.total,
                shard: None,
            };
            if k == Kind::Log {
                let doc = log_document(&h, list);
                let code = item_exit(&doc);
                (doc, code)
            } else {
                let code = list.iter().fold(0, |w, r| {
                    let c = r["invocations"][0]["exitCode"].as_u64().unwrap_or(2);
                    worse_exit(w, u8::try_from(c).unwrap_or(2))
                });
                (sarif_document(&h, list), code)
            }
        }
        Kind::Git => {
            let revs = (
                whole.identity[0].as_str().unwrap_or(""),
                whole.identity[1].as_str().unwrap_or(""),
            );
            let doc = git_document(revs, whole.total, None, list);
            let code = item_exit(&doc);
            (doc, code)
        }
    };
    Ok(Merged {
        value,
        exit_code,
        is_log: k == Kind::Log,
    })
}

/// A document's header (what shards share), its list of items and the header's key for the
/// number of items in the whole.
fn parts(k: Kind, v: &Json) -> (&Json, &Json, &'static str) {
    match k {
        Kind::Log => (v, &v["commits"], "commits_in_range"),
        Kind::Git => (v, &v["files"], "changed_files"),
        Kind::Sarif => (&v["properties"]["dizy_log"], &v["runs"], "commits_in_range"),
    }
}

/// An item's position in the whole: a commit's or file's `index`, a run's `properties.index`.
fn item_index(k: Kind, item: &Json) -> Option<u64> {
    match k {
        Kind::Log | Kind::Git => item["index"].as_u64(),
        Kind::Sarif => item["properties"]["index"].as_u64(),
    }
}

/// One unsharded input, or shards 1..N of one N, each once.
fn check_shards(shards: &[(Option<Shard>, &str)]) -> Result<()> {
    if let [(None, _)] = shards {
        return Ok(());
    }
    let mut seen = vec![];
    let mut count = None;
    for (s, name) in shards {
        let Some(s) = s else {
            return Err(Error::bad_input(format!(
                "{name}: an unsharded run cannot be merged with others"
            )));
        };
        if count.is_some_and(|n| n != s.count) {
            return Err(Error::bad_input(format!(
                "{name}: shard {s} of a split into another number of shards"
            )));
        }
        count = Some(s.count);
        if seen.contains(&s.index) {
            return Err(Error::bad_input(format!("{name}: shard {s} given twice")));
        }
        seen.push(s.index);
    }
    let n = count.unwrap_or(0);
    if let Some(missing) = (1..=n).find(|i| !seen.contains(i)) {
        return Err(Error::bad_input(format!("shard {missing}/{n} is missing")));
    }
    Ok(())
}
