//! `dizy diff --git REV1 REV2 [PATH…]`: the C files changed between two revisions.
//!
//! Takes a git repository (the current directory's), two revisions and optional path limits;
//! gives, per changed `.c` file, the two versions written into a temporary directory (`git show
//! REV:path`, with the headers of the file's directory at that revision beside it, so quoted
//! includes resolve as in that revision). The `diff` driver then runs on each pair; a file that
//! exists in only one revision is compared with an empty file. Read-only: runs only `git
//! rev-parse`, `git diff --name-only`, `git ls-tree` and `git show`.

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

/// Write the changed `.c` files between `rev1` and `rev2` (limited to `paths`) into a
/// temporary directory.
pub fn checkout(rev1: &str, rev2: &str, paths: &[PathBuf]) -> Result<Checkout> {
    // Paths from `git diff` are relative to the top of the work tree.
    let top = lines(git(&["rev-parse", "--show-toplevel"])?)
        .pop()
        .ok_or_else(|| Error::bad_input("git rev-parse --show-toplevel printed nothing"))?;
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
    let cwd = std::env::current_dir()
        .map_err(|e| Error::bad_input(format!("no current directory: {e}")))?;
    for p in paths {
        // Limits are given relative to the current directory; make them absolute for `-C top`.
        args.push(cwd.join(p).display().to_string());
    }
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
