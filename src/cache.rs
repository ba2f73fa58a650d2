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

impl Cache {
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
        let mut h = Sha256::new();
        piece(&mut h, ENTRY_SCHEMA.as_bytes());
        piece(&mut h, self.tool.as_bytes());
        piece(&mut h, options.as_bytes());
        piece(&mut h, names.0.as_bytes());
        piece(&mut h, names.1.as_bytes());
        for files in inputs {
            piece(&mut h, &(files.len() as u64).to_le_bytes());
            for f in files {
                piece(&mut h, rename(f).as_bytes());
                piece(&mut h, &std::fs::read(f).ok()?);
            }
        }
        let key: String = h.finalize().iter().map(|b| format!("{b:02x}")).collect();
        Some(Entry {
            path: self.dir.join(&key[..2]).join(format!("{key}.json")),
        })
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
        let Some(dir) = self.path.parent() else {
            return;
        };
        let doc = serde_json::json!({ "schema": ENTRY_SCHEMA, "report": report });
        let Ok(text) = serde_json::to_vec(&doc) else {
            return;
        };
        let tmp = self
            .path
            .with_extension(format!("tmp{}", std::process::id()));
        let written = std::fs::create_dir_all(dir)
            .and_then(|()| std::fs::write(&tmp, text))
            .and_then(|()| std::fs::rename(&tmp, &self.path));
        if written.is_err() {
            let _ = std::fs::remove_file(&tmp);
        }
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
