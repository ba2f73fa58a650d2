//! Commit-range triage: `dizy log RANGE`, and `--shard I/N` for it and for `dizy diff --git`.
//!
//! Takes a revision range (or two revisions), path limits, `DiffOptions` and optionally a shard;
//! gives, per commit of the range compared with its first parent, the report of every C file the
//! commit changed ([`Log`]), rendered as `dizy-log/1` JSON, a text listing, or SARIF with one run
//! per commit (`render`). A [`Shard`] takes every N-th commit of a range (or changed file of
//! `diff --git`), counted from its position, so N machines each run one shard of the same
//! command and `merge` joins their JSON into exactly what one unsharded run writes. A driver over
//! `git` and `diff`, as `bench` is; it renders with `report` and computes nothing of its own.

mod merge;
mod render;

use std::path::{Path, PathBuf};

pub use merge::{merge, Merged};
pub use render::{
    commit_git_json, commit_sarif, git_json, log_json, log_sarif, log_text, strip_times,
    GITHUB_MAX_RUNS,
};

use crate::diag::{Error, Result};
use crate::diff::{DiffOptions, Report};
use crate::git::{self, Commit};

/// Shard `index` of `count` (1-based, as `--shard I/N` reads): the work items whose position
/// `k` (0-based) has `k mod N = I - 1`. Round robin rather than blocks, so that the costly
/// stretches of a history spread over the shards.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    pub index: usize,
    pub count: usize,
}

impl Shard {
    /// Whether the item at position `k` belongs to this shard.
    pub fn takes(&self, k: usize) -> bool {
        k % self.count == self.index - 1
    }
}

impl std::str::FromStr for Shard {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Shard, String> {
        let bad = || format!("expected I/N with 1 <= I <= N (e.g. 2/4), got `{s}`");
        let (i, n) = s.split_once('/').ok_or_else(bad)?;
        let (index, count) = (
            i.trim().parse::<usize>().map_err(|_| bad())?,
            n.trim().parse::<usize>().map_err(|_| bad())?,
        );
        if index == 0 || index > count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// One changed C file and its report (or the error that kept it from being analysed).
pub struct FileResult {
    /// Its path in the repository.
    pub path: String,
    /// Its position among all changed files of the revision pair (before sharding).
    pub index: usize,
    pub report: std::result::Result<Report, String>,
}

/// The changed C files between two revisions: how many there are, and the reports of those
/// the shard takes (all without a shard).
pub struct Revisions {
    pub changed_files: usize,
    pub files: Vec<FileResult>,
    /// The top of the work tree (paths are relative to it).
    pub top: String,
}

impl Revisions {
    /// The worst exit status of the files (as [`crate::diff::worse_exit`] combines them).
    pub fn exit_code(&self) -> u8 {
        self.files.iter().fold(0, |worst, f| {
            crate::diff::worse_exit(worst, f.report.as_ref().map_or(2, Report::exit_code))
        })
    }
}

/// Diff every C file changed between `rev1` and `rev2` (under `paths`). Reports name the files
/// `NAME:path` with `names` (the revisions as the user wrote them, or abbreviated commit names)
/// instead of the temporary checkout; `db` configures each file from a compilation database.
pub fn diff_revisions(
    (rev1, rev2): (&str, &str),
    names: (&str, &str),
    paths: &[PathBuf],
    db: Option<&Path>,
    opts: &DiffOptions,
    shard: Option<Shard>,
) -> Result<Revisions> {
    let co = git::checkout(rev1, rev2, paths)?;
    let changed_files = co.files.len();
    let mine: Vec<(usize, &git::FilePair)> = co
        .files
        .iter()
        .enumerate()
        .filter(|(index, _)| shard.is_none_or(|s| s.takes(*index)))
        .collect();
    // With workers, files are analysed at the same time and share them (unless the caller
    // already runs several revision pairs at the same time on them: the cores are busy then).
    let mut opts = opts.clone();
    let jobs = match &opts.workers {
        Some(w) if mine.len() > 1 && !w.is_shared() => {
            let jobs = w.jobs();
            opts.workers = Some(w.shared());
            jobs
        }
        _ => 1,
    };
    let files = crate::parallel::parallel_map(&mine, jobs, |_, &(index, f)| {
        let mut o = opts.clone();
        // The temporary checkout is gone when the report is read: name files `REV:path`
        // (before the report is cached, so that the next run's checkout finds it).
        let renames: Vec<(String, String)> = [("old", names.0), ("new", names.1)]
            .iter()
            .map(|(side, name)| {
                (
                    format!("{}/", co.root.join(side).display()),
                    format!("{name}:"),
                )
            })
            .collect();
        o.rename.extend(renames.iter().cloned());
        let rel = Path::new(&f.path);
        let configured = db.map(|db| {
            crate::frontend::compile_commands::apply(db, rel, Some(rel), &mut o.frontend)
        });
        let result = match configured {
            Some(Err(e)) => Err(e),
            _ => crate::diff::diff_files(&f.old, &f.new, &o),
        };
        let report = result.map_err(|e| {
            renames
                .iter()
                .fold(e.to_string(), |e, (from, to)| e.replace(from.as_str(), to))
        });
        FileResult {
            path: f.path.clone(),
            index,
            report,
        }
    });
    Ok(Revisions {
        changed_files,
        files,
        top: co.top.clone(),
    })
}

/// One commit of the range with the reports of the C files it changed.
pub struct CommitResult {
    /// Its position in the range, oldest first (before sharding).
    pub index: usize,
    pub commit: Commit,
    pub revisions: Revisions,
}

/// The commits of a range that one run analysed.
pub struct Log {
    /// The range as given.
    pub range: String,
    /// Commits in the whole range (all shards).
    pub commits_in_range: usize,
    pub shard: Option<Shard>,
    pub commits: Vec<CommitResult>,
}

impl Log {
    /// The worst exit status over the commits.
    pub fn exit_code(&self) -> u8 {
        self.commits.iter().fold(0, |worst, c| {
            crate::diff::worse_exit(worst, c.revisions.exit_code())
        })
    }
}

/// The characters of a commit name used in reports' file names (`0123456789ab:src/x.c`):
/// a fixed length, so that every machine names the same commit alike.
pub const SHORT: usize = 12;

/// How reports name a commit.
pub fn short(sha: &str) -> &str {
    &sha[..sha.len().min(SHORT)]
}

/// The files `--output-dir` writes for a commit, without extension: its position (zero-padded,
/// so a listing sorts as the range) and its name, the same on every machine and shard.
pub fn commit_file_stem(c: &CommitResult) -> String {
    format!("{:04}-{}", c.index, short(&c.commit.sha))
}

/// Run `diff` on every commit of `range` that the shard takes, each against its first parent
/// (a root commit against the empty tree). `first_parent` follows only the first-parent chain
/// (a merge then stands for its branch); otherwise merges are skipped and every commit of the
/// range is listed.
pub fn run(
    range: &str,
    paths: &[PathBuf],
    first_parent: bool,
    db: Option<&Path>,
    opts: &DiffOptions,
    shard: Option<Shard>,
) -> Result<Log> {
    let all = git::commits(range, paths, first_parent)?;
    let mine: Vec<(usize, &Commit)> = all
        .iter()
        .enumerate()
        .filter(|(index, _)| shard.is_none_or(|s| s.takes(*index)))
        .collect();
    // Root commits (usually one) are compared with the empty tree.
    let empty = match mine.iter().any(|(_, c)| c.parent.is_none()) {
        true => Some(git::empty_tree()?),
        false => None,
    };
    // With workers, commits are analysed at the same time and share them; each commit's files
    // then run one after the other. The order of the results is the range's all the same.
    let mut opts = opts.clone();
    let jobs = match &opts.workers {
        Some(w) if mine.len() > 1 => {
            let jobs = w.jobs();
            opts.workers = Some(w.shared());
            jobs
        }
        _ => 1,
    };
    let results = crate::parallel::parallel_map(&mine, jobs, |_, &(index, commit)| {
        let parent = match (&commit.parent, &empty) {
            (Some(p), _) => p.clone(),
            (None, Some(e)) => e.clone(),
            (None, None) => unreachable!("the empty tree is made when a root commit is taken"),
        };
        let parent_name = commit.parent.as_deref().map_or("(empty)", short);
        let revisions = diff_revisions(
            (&parent, &commit.sha),
            (parent_name, short(&commit.sha)),
            paths,
            db,
            &opts,
            None,
        )
        .map_err(|e| Error::bad_input(format!("commit {}: {e}", short(&commit.sha))))?;
        Ok(CommitResult {
            index,
            commit: commit.clone(),
            revisions,
        })
    });
    let commits = results.into_iter().collect::<Result<Vec<_>>>()?;
    Ok(Log {
        range: range.to_string(),
        commits_in_range: all.len(),
        shard,
        commits,
    })
}

#[cfg(test)]
mod tests;
