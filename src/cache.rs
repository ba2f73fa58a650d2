//! `--cache DIR`: reports of file pairs already analysed, reused when nothing they depend on
//! changed.
//!
//! Takes the two files of a `diff`, its options and the identity of the dizy build; gives the
//! [`Report`] a previous run stored under the same key, or stores a new one. The key is a
//! SHA-256 over: the build, the options (everything but the cache and the progress receiver),
//! the names the report gives the files, and the name and bytes of every file the preprocessor
//! reads for either version (the file itself and each header it includes, so a changed header,
//! an `-I` that finds another one or a changed inactive `#if` region all give another key).
//! Every report is stored, `timeout` verdicts included (a file of real code nearly always has
//! one, and re-running all of it for that would make the cache useless there); `--timeout` is
//! part of the key, so a larger one analyses again. Used by `diff::diff_files` when `DiffOptions::cache` is set; the granularity
//! is the file pair (a rebased branch or an overlapping commit range re-runs only the pairs
//! whose inputs changed). A missing, unreadable or corrupt entry is a miss, never an error.

use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use crate::diff::Report;

/// Format of the stored entries; bump when `Report` changes shape.
const ENTRY_SCHEMA: &str = "dizy-cache/1";

/// Where entries live and which build writes them.
#[derive(Clone, Debug)]
pub struct Cache {
    pub dir: PathBuf,
    /// What identifies the dizy build (version, and for the CLI the executable's size and
    /// modification time): another build never reads this one's entries.
    pub tool: String,
}

/// One file pair's place in the cache.
pub struct Entry {
    path: PathBuf,
}

/// Feed a length-prefixed piece into the hash (so that no two sequences of pieces collide by
/// concatenation).
fn piece(h: &mut Sha256, bytes: &[u8]) {
    h.update((bytes.len() as u64).to_le_bytes());
    h.update(bytes);
}

/// The hash's digest in hexadecimal.
fn hex(h: Sha256) -> String {
    h.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

impl Cache {
    /// A hash started on what every key covers: the entry format, the build, the options and
    /// the names the report gives the files.
    fn hasher(&self, names: (&str, &str), options: &str) -> Sha256 {
        let mut h = Sha256::new();
        piece(&mut h, ENTRY_SCHEMA.as_bytes());
        piece(&mut h, self.tool.as_bytes());
        piece(&mut h, options.as_bytes());
        piece(&mut h, names.0.as_bytes());
        piece(&mut h, names.1.as_bytes());
        h
    }

    /// The entry of a file pair, or `None` when the inputs cannot be listed (the file is
    /// missing, the preprocessor fails: the run then reports that itself).
    /// `names`: the file names the report uses; `options`: the rendering of the options that
    /// decide the result; `inputs`: per version, the files its preprocessor reads, each with
    /// the name it is hashed under (`rename` maps temporary directories to stable names).
    pub fn entry(
        &self,
        names: (&str, &str),
        options: &str,
        inputs: [&[String]; 2],
        rename: &dyn Fn(&str) -> String,
    ) -> Option<Entry> {
        let mut h = self.hasher(names, options);
        for files in inputs {
            piece(&mut h, &(files.len() as u64).to_le_bytes());
            for f in files {
                piece(&mut h, rename(f).as_bytes());
                piece(&mut h, &std::fs::read(f).ok()?);
            }
        }
        let key = hex(h);
        Some(Entry {
            path: self.dir.join(&key[..2]).join(format!("{key}.json")),
        })
    }
}

/// The direct mode (as ccache has one): a report found from the two source files alone,
/// without running the preprocessor. Keyed like an [`Entry`] but on the two files' bytes
/// instead of every file the preprocessor reads; it records, per earlier run, which full
/// entry that run used and what it depended on: each file the preprocessor read (by content)
/// and the directories where a new or removed header could change what an `#include` finds
/// (by modification time), and the preprocessor executable. A variant whose watched files and
/// directories are all as they were names the full entry the run would compute; any change
/// (an edited header, a header created in a search directory or its subdirectory, another
/// compiler) is a miss, and the run takes the full path.
pub struct Direct {
    path: PathBuf,
    /// The cache directory (variants name full entries relative to it).
    root: PathBuf,
}

/// Variants one direct entry keeps (the most recent first).
const MAX_VARIANTS: usize = 8;

/// The hex SHA-256 of a file's bytes.
fn file_digest(path: &str) -> Option<String> {
    let bytes = std::fs::read(path).ok()?;
    Some(
        Sha256::digest(&bytes)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect(),
    )
}

/// A path's modification time in nanoseconds and size (`None`: it does not exist).
fn stamp(path: &str) -> Option<(u128, u64)> {
    let m = std::fs::metadata(path).ok()?;
    let t = m
        .modified()
        .ok()?
        .duration_since(std::time::UNIX_EPOCH)
        .ok()?
        .as_nanos();
    Some((t, m.len()))
}

impl Cache {
    /// The direct entry of a file pair (`sources`: the two files), or `None` when one cannot
    /// be read.
    pub fn direct(
        &self,
        names: (&str, &str),
        options: &str,
        sources: [&Path; 2],
        rename: &dyn Fn(&str) -> String,
    ) -> Option<Direct> {
        let mut h = self.hasher(names, options);
        piece(&mut h, b"direct");
        for f in sources {
            piece(&mut h, rename(&f.display().to_string()).as_bytes());
            piece(&mut h, &std::fs::read(f).ok()?);
        }
        let key = hex(h);
        Some(Direct {
            path: self
                .dir
                .join("direct")
                .join(&key[..2])
                .join(format!("{key}.json")),
            root: self.dir.clone(),
        })
    }
}

impl Direct {
    fn variants(&self) -> Vec<serde_json::Value> {
        let Some(v) = std::fs::read(&self.path)
            .ok()
            .and_then(|t| serde_json::from_slice::<serde_json::Value>(&t).ok())
        else {
            return vec![];
        };
        if v["schema"] != ENTRY_SCHEMA {
            return vec![];
        }
        v["variants"].as_array().cloned().unwrap_or_default()
    }

    /// The full entry of the first recorded variant whose watched files and directories are
    /// unchanged.
    pub fn lookup(&self) -> Option<Entry> {
        'variant: for v in self.variants() {
            for f in v["files"].as_array()? {
                let (path, digest) = (f[0].as_str()?, f[1].as_str());
                if file_digest(path).as_deref() != digest {
                    continue 'variant;
                }
            }
            for d in v["stamps"].as_array()? {
                let path = d[0].as_str()?;
                let was = d[1].as_array().map(|a| {
                    (
                        a[0].as_str().and_then(|t| t.parse::<u128>().ok()),
                        a[1].as_u64(),
                    )
                });
                let now = stamp(path).map(|(t, n)| (Some(t), Some(n)));
                if was != now {
                    continue 'variant;
                }
            }
            return Some(Entry {
                path: self.root.join(v["entry"].as_str()?),
            });
        }
        None
    }

    /// Record that the run used full entry `entry`, the preprocessor reading `files` and the
    /// outcome depending on `watched` (directories and the preprocessor executable) as they are
    /// now. Failures to write are ignored.
    pub fn record(&self, entry: &Entry, files: &[String], watched: &[String]) {
        let mut list = vec![];
        for f in files {
            let Some(d) = file_digest(f) else { return };
            list.push(serde_json::json!([f, d]));
        }
        let stamps: Vec<serde_json::Value> = watched
            .iter()
            .map(|p| match stamp(p) {
                Some((t, n)) => serde_json::json!([p, [t.to_string(), n]]),
                None => serde_json::json!([p, null]),
            })
            .collect();
        let Ok(rel) = entry.path.strip_prefix(&self.root) else {
            return;
        };
        let new = serde_json::json!({
            "entry": rel.display().to_string(),
            "files": list,
            "stamps": stamps,
        });
        let mut variants = vec![new.clone()];
        variants.extend(self.variants().into_iter().filter(|v| *v != new));
        variants.truncate(MAX_VARIANTS);
        write_atomically(
            &self.path,
            &serde_json::json!({ "schema": ENTRY_SCHEMA, "variants": variants }),
        );
    }
}

/// Write `doc` to `path` aside and rename it, so that concurrent runs never read half a file;
/// failures are ignored (a cache that cannot be written is a cache that misses).
fn write_atomically(path: &Path, doc: &serde_json::Value) {
    let Some(dir) = path.parent() else {
        return;
    };
    let Ok(text) = serde_json::to_vec(doc) else {
        return;
    };
    let tmp = path.with_extension(format!("tmp{}", std::process::id()));
    let written = std::fs::create_dir_all(dir)
        .and_then(|()| std::fs::write(&tmp, text))
        .and_then(|()| std::fs::rename(&tmp, path));
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
}

impl Entry {
    /// The stored report, if there is a readable one.
    pub fn load(&self) -> Option<Report> {
        let text = std::fs::read(&self.path).ok()?;
        let v: serde_json::Value = serde_json::from_slice(&text).ok()?;
        if v["schema"] != ENTRY_SCHEMA {
            return None;
        }
        serde_json::from_value(v["report"].clone()).ok()
    }

    /// Store `report` (written aside and renamed, so that concurrent runs never read half an
    /// entry); failures to write are ignored.
    pub fn store(&self, report: &Report) {
        write_atomically(
            &self.path,
            &serde_json::json!({ "schema": ENTRY_SCHEMA, "report": report }),
        );
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

#[cfg(test)]
mod tests {
    use crate::diff::Verdict;

    /// Stored verdicts read as the reports write them (`possibly-different`).
    #[test]
    fn verdicts_are_stored_by_their_report_names() {
        for v in Verdict::ALL {
            let j = serde_json::to_value(v).unwrap();
            assert_eq!(j, v.as_str());
            assert_eq!(serde_json::from_value::<Verdict>(j).unwrap(), v);
        }
    }
}
