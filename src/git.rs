//! `dizy diff --git REV1 REV2 [PATH…]` and `dizy log RANGE`: the C files changed between two
//! revisions, and the commits of a range.
//!
//! Takes a git repository (the current directory's), two revisions and optional path limits;
//! gives, per changed `.c` file, the two versions written into a temporary directory (`git show
//! REV:path`, with the headers of the file's directory at that revision beside it, so quoted
//! includes resolve as in that revision). The `diff` driver then runs on each pair; a file that
//! exists in only one revision is compared with an empty file. [`commits`] lists a range's
//! commits with their first parents (a root commit's parent is the empty tree). Read-only: runs
//! only `git rev-parse`, `git diff --name-only`, `git ls-tree`, `git show`, `git log` and `git
//! hash-object` (without `-w`).

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::diag::{Error, Result};

/// One changed file: its path in the repository and the two versions on disk.
pub struct FilePair {
    pub path: String,
    pub old: PathBuf,
    pub new: PathBuf,
}

/// The temporary tree holding both revisions; removed when dropped.
pub struct Checkout {
    /// The top of the work tree, which `FilePair::path` is relative to.
    pub top: String,
    pub root: PathBuf,
    pub files: Vec<FilePair>,
}

impl Drop for Checkout {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.root);
    }
}

fn git(args: &[&str]) -> Result<Vec<u8>> {
    let out = Command::new("git")
        .args(args)
        .output()
        .map_err(|e| Error::bad_input(format!("cannot run git: {e}")))?;
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        return Err(Error::bad_input(format!(
            "git {} failed: {}",
            args.join(" "),
            err.lines().next().unwrap_or("").trim()
        )));
    }
    Ok(out.stdout)
}

fn lines(bytes: Vec<u8>) -> Vec<String> {
    String::from_utf8_lossy(&bytes)
        .lines()
        .filter(|l| !l.is_empty())
        .map(str::to_string)
        .collect()
}

/// One commit of a range, as `dizy log` reports it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Commit {
    /// The full object name.
    pub sha: String,
    /// The first parent; `None` for a root commit (compared with the empty tree).
    pub parent: Option<String>,
    pub author: String,
    /// The author date, strict ISO 8601.
    pub date: String,
    pub subject: String,
}

/// The top of the current directory's work tree.
pub fn top() -> Result<String> {
    lines(git(&["rev-parse", "--show-toplevel"])?)
        .pop()
        .ok_or_else(|| Error::bad_input("git rev-parse --show-toplevel printed nothing"))
}

/// The object name of the empty tree in this repository's hash (what a root commit is
/// compared with).
pub fn empty_tree() -> Result<String> {
    let out = Command::new("git")
        .args(["hash-object", "-t", "tree", "--stdin"])
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|e| Error::bad_input(format!("cannot run git: {e}")))?;
    lines(out.stdout)
        .pop()
        .filter(|_| out.status.success())
        .ok_or_else(|| Error::bad_input("git hash-object -t tree printed nothing"))
}

/// The commits of `range` (anything `git log` takes: `A..B`, `v1.0..v1.1`, `^A B`), oldest
/// first, limited to those touching `paths` when given. Merge commits are left out (their
/// branches' commits are listed one by one), unless `first_parent`: then only the first-parent
/// chain is followed and a merge stands for its whole branch.
pub fn commits(range: &str, paths: &[PathBuf], first_parent: bool) -> Result<Vec<Commit>> {
    if range.is_empty() || range.starts_with('-') {
        return Err(Error::bad_input(format!(
            "`{range}` is not a revision range (expected e.g. A..B)"
        )));
    }
    let top = top()?;
    let mut args: Vec<String> = vec!["-C".into(), top, "log".into(), "--reverse".into()];
    args.push(
        if first_parent {
            "--first-parent"
        } else {
            "--no-merges"
        }
        .into(),
    );
    // NUL-separated fields, one commit per line (subjects hold no newline).
    args.push("--format=%H%x00%P%x00%an%x00%aI%x00%s".into());
    args.push(range.to_string());
    args.push("--".into());
    args.extend(absolute(paths)?);
    let argv: Vec<&str> = args.iter().map(String::as_str).collect();
    lines(git(&argv)?)
        .into_iter()
        .map(|l| {
            let f: Vec<&str> = l.split('\0').collect();
            match f.as_slice() {
                [sha, parents, author, date, subject] => Ok(Commit {
                    sha: sha.to_string(),
                    parent: parents
                        .split(' ')
                        .find(|p| !p.is_empty())
                        .map(str::to_string),
                    author: author.to_string(),
                    date: date.to_string(),
                    subject: subject.to_string(),
                }),
                _ => Err(Error::bad_input(format!("unexpected git log line `{l}`"))),
            }
        })
        .collect()
}

/// Path limits are given relative to the current directory; git runs with `-C top`.
fn absolute(paths: &[PathBuf]) -> Result<Vec<String>> {
    let cwd = std::env::current_dir()
        .map_err(|e| Error::bad_input(format!("no current directory: {e}")))?;
    Ok(paths
        .iter()
        .map(|p| cwd.join(p).display().to_string())
        .collect())
}

/// Write the changed `.c` files between `rev1` and `rev2` (limited to `paths`) into a
/// temporary directory.
pub fn checkout(rev1: &str, rev2: &str, paths: &[PathBuf]) -> Result<Checkout> {
    // Paths from `git diff` are relative to the top of the work tree.
    let top = top()?;
    let mut args: Vec<String> = vec![
        "-C".into(),
        top.clone(),
        "diff".into(),
        "--name-only".into(),
        "--no-renames".into(),
        rev1.to_string(),
        rev2.to_string(),
        "--".into(),
    ];
    args.extend(absolute(paths)?);
    let argv: Vec<&str> = args.iter().map(String::as_str).collect();
    let changed: Vec<String> = lines(git(&argv)?)
        .into_iter()
        .filter(|p| p.ends_with(".c"))
        .collect();
    use std::sync::atomic::{AtomicUsize, Ordering};
    static COUNTER: AtomicUsize = AtomicUsize::new(0);
    let root = std::env::temp_dir().join(format!(
        "dizy-git-{}-{}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    let mut co = Checkout {
        top: top.clone(),
        root: root.clone(),
        files: vec![],
    };
    for path in changed {
        let mut sides = vec![];
        for (side, rev) in [("old", rev1), ("new", rev2)] {
            let dest = root.join(side).join(&path);
            let dir = dest.parent().map(Path::to_path_buf).unwrap_or(root.clone());
            std::fs::create_dir_all(&dir)
                .map_err(|e| Error::bad_input(format!("cannot create {}: {e}", dir.display())))?;
            // Absent in this revision (added or deleted file): compare with an empty file.
            let text = git(&["-C", &top, "show", &format!("{rev}:{path}")]).unwrap_or_default();
            std::fs::write(&dest, text)
                .map_err(|e| Error::bad_input(format!("cannot write {}: {e}", dest.display())))?;
            write_headers(&top, rev, &path, &dir)?;
            sides.push(dest);
        }
        let new = sides.pop().expect("two sides");
        let old = sides.pop().expect("two sides");
        co.files.push(FilePair { path, old, new });
    }
    Ok(co)
}

/// The `.h` files next to `path` at `rev`, so that `#include "x.h"` finds that revision's.
fn write_headers(top: &str, rev: &str, path: &str, dir: &Path) -> Result<()> {
    let parent = Path::new(path)
        .parent()
        .map(|p| p.display().to_string())
        .unwrap_or_default();
    let spec = if parent.is_empty() {
        rev.to_string()
    } else {
        format!("{rev}:{parent}")
    };
    let Ok(listing) = git(&["-C", top, "ls-tree", "--name-only", &spec]) else {
        return Ok(());
    };
    for name in lines(listing).into_iter().filter(|n| n.ends_with(".h")) {
        let file = if parent.is_empty() {
            name.clone()
        } else {
            format!("{parent}/{name}")
        };
        if let Ok(text) = git(&["-C", top, "show", &format!("{rev}:{file}")]) {
            let _ = std::fs::write(dir.join(&name), text);
        }
    }
    Ok(())
}
