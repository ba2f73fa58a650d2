//! `dizy log` over a real history, `--shard` and `dizy merge`, and the scheduler recipes in
//! `scripts/triage/`.
//!
//! The test builds a repository of 26 commits (28 with the merge of a side branch): a root commit
//! adding the old versions of 21 benchmark pairs and of the unconfigured real-world fixture
//! (`benchmarks/realworld/tabs`, with its headers), one commit per pair bringing its new version,
//! a commit touching only the README, the fixture's new version, and a side branch (a file added,
//! a file deleted) merged without fast-forward. Checked:
//! * every commit is listed once, oldest first, merges left out (or, with `--first-parent`, the
//!   merge standing for its branch); each pair's function gets the verdict the benchmark
//!   manifest expects (an independent label), added and deleted files give `added`/`removed`;
//! * the same range in 2 shards (JSON) and in 3 shards (SARIF), merged, equals the unsharded
//!   output byte for byte, the merged text equals `dizy log`'s text, and the SARIF passes
//!   Microsoft's validator; `diff --git --shard` merges to the unsharded file list;
//! * the recipes: GNU parallel on this machine and over `--sshlogin` (two hosts, through an ssh
//!   stand-in that runs the remote command here, as sshd would), and the Slurm array script with
//!   its submitter under an `sbatch` stand-in that runs each array task with the environment
//!   Slurm gives it; each yields the unsharded result byte for byte.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value as Json;

mod common;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Benchmark pairs whose new version becomes one commit each (fast ones, both labels).
const PAIRS: &[&str] = &[
    "sign",
    "md5sum_bsd_split_3",
    "buffer_bound_41_40",
    "eq_strength_reduction",
    "eq_mul2_add",
    "eq_reorder_statements",
    "eq_rename_locals",
    "eq_dead_store",
    "eq_if_return_ternary",
    "eq_for_to_while",
    "eq_de_morgan",
    "eq_swap_if_else",
    "ne_off_by_one",
    "ne_changed_constant",
    "ne_added_guard",
    "ne_changed_operator",
    "ne_overflow_guard",
    "ne_needle_777",
    "ne_clamp_order",
    "thesis_3x_vs_x10",
    "ws_median3",
];

/// The manifest's (function, expected verdict) per pair id.
fn manifest() -> BTreeMap<String, (String, String)> {
    let text = std::fs::read_to_string(root().join("benchmarks/manifest.csv")).unwrap();
    text.lines()
        .skip(1)
        .filter_map(|l| {
            let f: Vec<&str> = l.splitn(6, ',').collect();
            (f.len() == 6).then(|| (f[0].to_string(), (f[3].to_string(), f[4].to_string())))
        })
        .collect()
}

/// A git command at minute `k` of a fixed day, so that the history (its order, its commit
/// names) is the same every run.
fn git_at(repo: &Path, k: u32, args: &[&str]) {
    let date = format!("2026-01-01T{:02}:{:02}:00+00:00", k / 60, k % 60);
    common::git_at(repo, Some(&date), args);
}

fn build_history(repo: &Path) {
    let pairs = root().join("benchmarks/pairs");
    let tabs = root().join("benchmarks/realworld/tabs");
    let src = repo.join("src");
    std::fs::create_dir_all(&src).unwrap();
    git_at(repo, 0, &["init", "-q"]);
    std::fs::write(repo.join("README"), "a history for dizy log\n").unwrap();
    std::fs::copy(tabs.join("old.c"), src.join("tabs.c")).unwrap();
    for h in std::fs::read_dir(tabs.join("include")).unwrap() {
        let h = h.unwrap().path();
        std::fs::copy(&h, src.join(h.file_name().unwrap())).unwrap();
    }
    for id in PAIRS {
        std::fs::copy(pairs.join(id).join("old.c"), src.join(format!("{id}.c"))).unwrap();
    }
    let mut k = 0;
    let mut commit = |msg: &str| {
        k += 1;
        git_at(repo, k, &["add", "-A"]);
        git_at(repo, k, &["commit", "-q", "-m", msg]);
    };
    commit("Import");
    for id in PAIRS {
        std::fs::copy(pairs.join(id).join("new.c"), src.join(format!("{id}.c"))).unwrap();
        commit(&format!("{id}: new version"));
    }
    std::fs::write(repo.join("README"), "a history for dizy log, with docs\n").unwrap();
    commit("Docs only");
    std::fs::copy(tabs.join("new.c"), src.join("tabs.c")).unwrap();
    commit("tabs: next_tab_stop, clamp fixes");
    git_at(repo, 100, &["checkout", "-q", "-b", "side"]);
    std::fs::write(src.join("extra.c"), "int twice(int x) { return 2 * x; }\n").unwrap();
    commit("Add extra.c");
    std::fs::remove_file(src.join("sign.c")).unwrap();
    commit("Remove sign.c");
    git_at(repo, 200, &["checkout", "-q", "main"]);
    git_at(
        repo,
        201,
        &["merge", "-q", "--no-ff", "-m", "Merge branch side", "side"],
    );
}

fn dizy(repo: &Path, args: &[&str]) -> Output {
    let out = Command::new(env!("CARGO_BIN_EXE_dizy"))
        .current_dir(repo)
        .args(args)
        .output()
        .expect("run dizy");
    let code = out.status.code();
    assert!(
        matches!(code, Some(0..=2)) && !out.stdout.is_empty(),
        "dizy {args:?}: {code:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn json(out: &Output) -> Json {
    serde_json::from_slice(&out.stdout).expect("JSON output")
}

/// Run `dizy args…` and keep its output in `dir/name`.
fn save(repo: &Path, dir: &Path, name: &str, args: &[&str]) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, dizy(repo, args).stdout).unwrap();
    path
}

fn functions_of(commit: &Json) -> BTreeMap<(String, String), String> {
    let mut out = BTreeMap::new();
    for f in commit["files"].as_array().unwrap() {
        for func in f["report"]["functions"].as_array().into_iter().flatten() {
            out.insert(
                (
                    f["path"].as_str().unwrap().to_string(),
                    func["name"].as_str().unwrap().to_string(),
                ),
                func["verdict"].as_str().unwrap().to_string(),
            );
        }
    }
    out
}

#[test]
fn log_shards_merge_and_recipes() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("repo");
    std::fs::create_dir(&repo).unwrap();
    build_history(&repo);
    let out_dir = tmp.path().join("out");
    std::fs::create_dir(&out_dir).unwrap();

    // The whole range, unsharded: the reference every other way of running it must equal.
    // Commits run three at a time on shared worker processes; one process, one commit after
    // the other, gives the same log.
    let log = |jobs: &str| {
        dizy(
            &repo,
            &["log", "HEAD", "--format", "json", "--no-times", "-j", jobs],
        )
    };
    let whole = log("3");
    assert_eq!(whole.status.code(), Some(1), "the range has differences");
    let doc = json(&whole);
    assert_eq!(doc, json(&log("1")), "--jobs 3 against --jobs 1");
    assert_eq!(doc["schema"], "dizy-log/1");
    let commits = doc["commits"].as_array().unwrap();
    assert_eq!(doc["commits_in_range"], commits.len());
    assert_eq!(
        commits.len(),
        PAIRS.len() + 5,
        "root, pairs, docs, tabs, 2 on the side"
    );
    let subjects: Vec<&str> = commits
        .iter()
        .map(|c| c["subject"].as_str().unwrap())
        .collect();
    assert_eq!(subjects[0], "Import");
    assert!(
        !subjects.iter().any(|s| s.starts_with("Merge")),
        "{subjects:?}"
    );
    for (k, c) in commits.iter().enumerate() {
        assert_eq!(c["index"], k);
        assert_eq!(c["commit"].as_str().unwrap().len(), 40);
    }
    // The root commit is compared with the empty tree: everything it brings is added.
    let root_fns = functions_of(&commits[0]);
    assert!(root_fns.len() > PAIRS.len(), "{root_fns:?}");
    assert!(root_fns.values().all(|v| v == "added"), "{root_fns:?}");
    assert!(commits[0]["parent"].is_null());
    // Each pair's commit: the manifest's label for its function.
    let labels = manifest();
    for (k, id) in PAIRS.iter().enumerate() {
        let c = &commits[k + 1];
        assert_eq!(c["subject"], format!("{id}: new version"));
        let files = c["files"].as_array().unwrap();
        assert_eq!(files.len(), 1, "{id}");
        assert_eq!(files[0]["path"], format!("src/{id}.c"));
        let (function, expected) = &labels[*id];
        let fns = functions_of(c);
        let got = &fns[&(format!("src/{id}.c"), function.clone())];
        let ok = match expected.as_str() {
            "different" => got == "different",
            // Whitespace-only and equivalent rewrites: no behaviour changed.
            _ => got == "equivalent" || got == "unchanged",
        };
        assert!(
            ok,
            "{id}: {function} is {got}, the manifest says {expected}"
        );
        let sha = c["commit"].as_str().unwrap();
        assert_eq!(
            files[0]["report"]["new"],
            format!("{}:src/{id}.c", &sha[..12]),
            "files are named by the commit"
        );
    }
    let docs = &commits[PAIRS.len() + 1];
    assert_eq!(docs["subject"], "Docs only");
    assert_eq!(docs["files"], Json::Array(vec![]));
    assert_eq!(docs["exit_code"], 0);
    let tabs = functions_of(&commits[PAIRS.len() + 2]);
    assert_eq!(
        tabs[&("src/tabs.c".into(), "field_width".into())],
        "different"
    );
    assert_eq!(
        tabs[&("src/tabs.c".into(), "next_tab_stop".into())],
        "added"
    );
    let added = functions_of(&commits[PAIRS.len() + 3]);
    assert_eq!(added[&("src/extra.c".into(), "twice".into())], "added");
    let removed = functions_of(&commits[PAIRS.len() + 4]);
    assert_eq!(removed[&("src/sign.c".into(), "sign".into())], "removed");

    // --first-parent: the merge stands for its branch.
    let fp = json(&dizy(
        &repo,
        &[
            "log",
            "HEAD",
            "--first-parent",
            "--format",
            "json",
            "--no-times",
        ],
    ));
    let fpc = fp["commits"].as_array().unwrap();
    assert_eq!(fpc.len(), PAIRS.len() + 4);
    let merge = fpc.last().unwrap();
    assert_eq!(merge["subject"], "Merge branch side");
    let mf = functions_of(merge);
    assert_eq!(mf[&("src/extra.c".into(), "twice".into())], "added");
    assert_eq!(mf[&("src/sign.c".into(), "sign".into())], "removed");

    // Two JSON shards, merged in either order: the unsharded bytes. Each shard also writes its
    // commits' own JSON and SARIF into one directory (as machines sharing a file system would).
    let per_commit = tmp.path().join("per-commit");
    let pc = per_commit.to_str().unwrap();
    let s1 = save(
        &repo,
        &out_dir,
        "s1.json",
        &[
            "log",
            "HEAD",
            "--shard",
            "1/2",
            "--format",
            "json",
            "--no-times",
            "--output-dir",
            pc,
        ],
    );
    let s2 = save(
        &repo,
        &out_dir,
        "s2.json",
        &[
            "log",
            "--no-times",
            "HEAD",
            "--format=json",
            "--shard=2/2",
            "--output-dir",
            pc,
        ],
    );
    for order in [[&s2, &s1], [&s1, &s2]] {
        let m = dizy(
            &repo,
            &[
                "merge",
                order[0].to_str().unwrap(),
                order[1].to_str().unwrap(),
            ],
        );
        assert_eq!(m.status.code(), Some(1));
        assert!(
            m.stdout == whole.stdout,
            "merged shards differ from the unsharded log"
        );
    }
    let first = json(&dizy(
        &repo,
        &["merge", s1.to_str().unwrap(), s2.to_str().unwrap()],
    ));
    assert!(first["shard"].is_null());
    // One shard alone is refused, naming what is missing.
    let alone = Command::new(env!("CARGO_BIN_EXE_dizy"))
        .current_dir(&repo)
        .args(["merge"])
        .arg(&s1)
        .output()
        .unwrap();
    assert_eq!(alone.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&alone.stderr).contains("shard 2/2 is missing"));
    // Text: the merged listing is `dizy log`'s.
    let text = dizy(&repo, &["log", "HEAD"]);
    let merged_text = dizy(
        &repo,
        &[
            "merge",
            "--format",
            "text",
            s1.to_str().unwrap(),
            s2.to_str().unwrap(),
        ],
    );
    assert_eq!(
        String::from_utf8_lossy(&merged_text.stdout),
        String::from_utf8_lossy(&text.stdout)
    );
    let t = String::from_utf8_lossy(&text.stdout);
    assert!(t.contains("Docs only\n  no C file changed\n"), "{t}");
    assert!(t.contains("src/sign.c: sign different"), "{t}");

    // SARIF: one run per commit; 3 shards merged equal the unsharded log, which validates.
    let all_sarif = dizy(&repo, &["log", "HEAD", "--format", "sarif", "--no-times"]);
    let sarif = out_dir.join("all.sarif");
    std::fs::write(&sarif, &all_sarif.stdout).unwrap();
    // A log of more runs than GitHub takes says so; the files per commit are for uploads.
    let note = String::from_utf8_lossy(&all_sarif.stderr);
    assert!(note.contains("at most 20 per file"), "{note}");
    let sv: Json = serde_json::from_slice(&std::fs::read(&sarif).unwrap()).unwrap();
    assert_eq!(sv["runs"].as_array().unwrap().len(), commits.len());
    assert_eq!(sv["runs"][1]["properties"]["commit"], commits[1]["commit"]);
    let mut shards = vec![];
    for i in 1..=3 {
        let shard = format!("{i}/3");
        shards.push(save(
            &repo,
            &out_dir,
            &format!("s{i}.sarif"),
            &[
                "log",
                "HEAD",
                "--format",
                "sarif",
                "--no-times",
                "--shard",
                &shard,
            ],
        ));
    }
    let mut args = vec!["merge"];
    args.extend(shards.iter().rev().map(|p| p.to_str().unwrap()));
    let m = dizy(&repo, &args);
    assert!(
        m.stdout == std::fs::read(&sarif).unwrap(),
        "merged SARIF differs"
    );
    let recent = save(
        &repo,
        &out_dir,
        "recent.sarif",
        &["log", "HEAD~8..HEAD", "--format", "sarif"],
    );
    let mut files: Vec<PathBuf> = std::fs::read_dir(&per_commit)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    assert_eq!(
        files.len(),
        2 * commits.len(),
        "a JSON and a SARIF file per commit"
    );
    for (k, c) in commits.iter().enumerate() {
        let stem = format!("{k:04}-{}", &c["commit"].as_str().unwrap()[..12]);
        let one: Json = serde_json::from_slice(
            &std::fs::read(per_commit.join(format!("{stem}.json"))).unwrap(),
        )
        .unwrap();
        assert_eq!(one["schema"], "dizy-git-report/1");
        assert_eq!(
            one["files"], c["files"],
            "{stem}: the commit's files as in the log"
        );
        let run: Json = serde_json::from_slice(
            &std::fs::read(per_commit.join(format!("{stem}.sarif"))).unwrap(),
        )
        .unwrap();
        assert_eq!(run["runs"].as_array().unwrap().len(), 1);
        assert_eq!(run["runs"][0], sv["runs"][k], "{stem}: the log's run");
    }
    let mut logs: Vec<PathBuf> = files
        .into_iter()
        .filter(|f| f.extension().is_some_and(|e| e == "sarif"))
        .collect();
    logs.push(recent);
    let problems = common::sarif_problems(&logs, &out_dir);
    assert!(problems.is_empty(), "{problems:?}");

    // diff --git --shard over the whole range: the shards' files make up the unsharded list.
    let revs = ["diff", "--git", "HEAD~3", "HEAD", "--format", "json"];
    let all = json(&dizy(&repo, &revs));
    let mut parts = vec![];
    for i in 1..=2 {
        let shard = format!("{i}/2");
        let mut a = revs.to_vec();
        a.extend(["--shard", &shard]);
        parts.push(save(&repo, &out_dir, &format!("g{i}.json"), &a));
    }
    let mg = json(&dizy(
        &repo,
        &[
            "merge",
            parts[1].to_str().unwrap(),
            parts[0].to_str().unwrap(),
        ],
    ));
    let paths = |v: &Json| -> Vec<String> {
        v["files"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["path"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(paths(&mg), paths(&all));
    assert!(paths(&all).len() >= 2, "{:?}", paths(&all));
    assert_eq!(mg["exit_code"], all["exit_code"]);

    recipes(&repo, tmp.path(), &whole.stdout);
}

/// A directory holding `dizy` (the binary under test) and the stand-ins, put first on PATH.
fn bin_dir(tmp: &Path) -> PathBuf {
    let bin = tmp.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_dizy"), bin.join("dizy")).unwrap();
    let write = |name: &str, text: &str| {
        use std::os::unix::fs::PermissionsExt;
        let p = bin.join(name);
        std::fs::write(&p, text).unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
    };
    // ssh: drop the options and the host (logged), run the command as sshd would: one string,
    // evaluated by the login shell, with SHELL set to it (GNU parallel's remote wrapper runs the
    // job with $SHELL; a CI runner may not have SHELL set on the client side).
    write(
        "ssh",
        &format!(
            "#!/bin/sh\nwhile [ $# -gt 0 ]; do case \"$1\" in -*) shift;; *) break;; esac; done\n\
             echo \"$1\" >> {}\nshift\n[ \"$1\" = \"--\" ] && shift\n\
             SHELL=$(getent passwd \"$(id -u)\" | cut -d: -f7)\n\
             export SHELL=${{SHELL:-/bin/sh}}\nexec \"$SHELL\" -c \"$*\"\n",
            tmp.join("ssh-hosts.log").display()
        ),
    );
    // sbatch: an array job runs each task in turn with the variables Slurm sets; --wrap runs
    // its command with sh; --parsable prints the job id.
    write(
        "sbatch",
        &format!(
            r#"#!/bin/bash
set -u
echo "$*" >> {log}
array="" wrap="" dep=""
while [ $# -gt 0 ]; do
  case "$1" in
    --array=*) array=${{1#--array=}} ;;
    --wrap) wrap=$2; shift ;;
    --dependency=*) dep=${{1#--dependency=}} ;;
    --*) ;;
    *) break ;;
  esac
  shift
done
id=$(( $(wc -l < {log}) + 100 ))
if [ -n "$wrap" ]; then
  sh -c "$wrap" || exit 0
elif [ -n "$array" ]; then
  lo=${{array%-*}} hi=${{array#*-}}
  for i in $(seq "$lo" "$hi"); do
    SLURM_ARRAY_JOB_ID=$id SLURM_ARRAY_TASK_ID=$i SLURM_ARRAY_TASK_COUNT=$((hi - lo + 1)) \
    SLURM_ARRAY_TASK_MIN=$lo SLURM_ARRAY_TASK_MAX=$hi SLURM_SUBMIT_DIR=$PWD \
      bash "$@" || echo "task $i failed" >> {log}
  done
fi
echo "$id"
"#,
            log = tmp.join("sbatch.log").display()
        ),
    );
    bin
}

fn recipes(repo: &Path, tmp: &Path, whole: &[u8]) {
    let bin = bin_dir(tmp);
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let run = |script: &str, args: &[&str]| {
        let out = Command::new(root().join("scripts/triage").join(script))
            .current_dir(repo)
            .env("PATH", &path)
            .args(args)
            .output()
            .unwrap();
        assert!(
            matches!(out.status.code(), Some(0..=1)),
            "{script} {args:?}: {:?}\n{}\n{}",
            out.status.code(),
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        out
    };
    let log_json = |dir: &Path| std::fs::read(dir.join("log.json")).unwrap();

    // GNU parallel on this machine, 3 shards.
    let local = tmp.join("parallel-local");
    let out = run(
        "parallel-log",
        &[
            "-n",
            "3",
            "-o",
            local.to_str().unwrap(),
            "HEAD",
            "--",
            "--no-times",
        ],
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(
        log_json(&local) == whole,
        "parallel (local) differs from one run"
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("Docs only"));

    // GNU parallel over ssh, 2 hosts of one job each.
    let remote = tmp.join("parallel-ssh");
    run(
        "parallel-log",
        &[
            "-n",
            "2",
            "-S",
            "1/alpha,1/beta",
            "-o",
            remote.to_str().unwrap(),
            "HEAD",
            "--",
            "--no-times",
        ],
    );
    assert!(
        log_json(&remote) == whole,
        "parallel (--sshlogin) differs from one run"
    );
    let hosts = std::fs::read_to_string(tmp.join("ssh-hosts.log")).unwrap();
    let mut hosts: Vec<&str> = hosts.lines().collect();
    hosts.sort_unstable();
    assert_eq!(hosts, ["alpha", "beta"], "each shard ran on its own host");

    // Slurm: a job array of 4 and the merge job after it.
    let slurm = tmp.join("slurm");
    let out = run(
        "slurm-log",
        &[
            "-n",
            "4",
            "-o",
            slurm.to_str().unwrap(),
            "HEAD",
            "--",
            "--no-times",
        ],
    );
    let submitted = std::fs::read_to_string(tmp.join("sbatch.log")).unwrap();
    assert!(!submitted.contains("failed"), "{submitted}");
    assert!(submitted.contains("--array=1-4"), "{submitted}");
    assert!(
        submitted.contains("--dependency=afterany:101"),
        "{submitted}"
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("job array 101 (4 shards)"));
    assert!(
        log_json(&slurm) == whole,
        "Slurm shards differ from one run"
    );
    let listing = std::fs::read_to_string(slurm.join("log.txt")).unwrap();
    assert!(listing.starts_with("dizy log HEAD: "), "{listing}");
}
