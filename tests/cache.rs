//! `--cache DIR`: a second run gives the first run's output byte for byte, and really comes from
//! the cache; whatever the report depends on (a header the file includes, an option, the
//! files' names) gives a fresh analysis; a corrupt entry is a miss; `diff --git` and `dizy log`
//! reuse entries across their temporary checkouts.
//!
//! That an entry is used is shown by altering it: the next run then prints the altered verdict.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

mod common;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn dizy(cwd: &Path, args: &[&str]) -> Output {
    let out = Command::new(env!("CARGO_BIN_EXE_dizy"))
        .current_dir(cwd)
        .args(args)
        .output()
        .expect("run dizy");
    assert!(
        matches!(out.status.code(), Some(0..=2)) && !out.stdout.is_empty(),
        "dizy {args:?}: {:?} {}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// Every function verdict of a JSON report, a `--git` report or a `dizy log` document.
fn verdicts(out: &Output) -> Vec<String> {
    fn walk(v: &serde_json::Value, out: &mut Vec<String>) {
        match v {
            serde_json::Value::Object(o) => {
                if let (Some(_), Some(verdict)) = (o.get("name"), o.get("verdict")) {
                    out.push(verdict.as_str().unwrap_or("?").to_string());
                }
                o.values().for_each(|x| walk(x, out));
            }
            serde_json::Value::Array(a) => a.iter().for_each(|x| walk(x, out)),
            _ => {}
        }
    }
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON output");
    let mut all = vec![];
    walk(&v, &mut all);
    all
}

/// A JSON output without its times (a fresh analysis takes another time).
fn timeless(out: &Output) -> serde_json::Value {
    let mut v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON output");
    common::strip_times(&mut v);
    v
}

/// The full entries (not the direct mode's records).
fn entries(dir: &Path) -> Vec<PathBuf> {
    let mut out = vec![];
    for sub in std::fs::read_dir(dir).into_iter().flatten() {
        let sub = sub.unwrap().path();
        if sub.file_name().is_some_and(|n| n == "direct") {
            continue;
        }
        for e in std::fs::read_dir(sub).into_iter().flatten() {
            out.push(e.unwrap().path());
        }
    }
    out.sort();
    out
}

/// A copy of the unconfigured real-world fixture with its headers in `dir/tabs`.
fn fixture_copy(dir: &Path) -> PathBuf {
    let work = dir.join("tabs");
    std::fs::create_dir_all(work.join("include")).unwrap();
    let fixture = root().join("benchmarks/realworld/tabs");
    for f in ["old.c", "new.c"] {
        std::fs::copy(fixture.join(f), work.join(f)).unwrap();
    }
    for h in std::fs::read_dir(fixture.join("include")).unwrap() {
        let h = h.unwrap().path();
        std::fs::copy(&h, work.join("include").join(h.file_name().unwrap())).unwrap();
    }
    work
}

/// Rewrite every function verdict of an entry to `verdict`.
fn alter(entry: &Path, verdict: &str) {
    let mut v: serde_json::Value = serde_json::from_slice(&std::fs::read(entry).unwrap()).unwrap();
    for f in v["report"]["functions"].as_array_mut().unwrap() {
        f["verdict"] = verdict.into();
    }
    std::fs::write(entry, serde_json::to_vec(&v).unwrap()).unwrap();
}

#[test]
fn reports_are_reused_exactly_and_only_while_their_inputs_stay() {
    let tmp = tempfile::tempdir().unwrap();
    let cache = tmp.path().join("cache");
    let c = cache.to_str().unwrap();
    // The unconfigured real-world fixture with its headers: a header change must count.
    let work = fixture_copy(tmp.path());
    let args = |fmt: &'static str| {
        vec![
            "diff", "old.c", "new.c", "-I", "include", "--format", fmt, "--cache", c,
        ]
    };

    let first_text = dizy(&work, &args("text"));
    let first_json = dizy(&work, &args("json"));
    assert_eq!(entries(&cache).len(), 1, "text and JSON share one entry");
    let again_text = dizy(&work, &args("text"));
    let again_json = dizy(&work, &args("json"));
    assert!(first_text.stdout == again_text.stdout, "text differs");
    assert!(first_json.stdout == again_json.stdout, "JSON differs");
    assert_eq!(first_text.status.code(), again_text.status.code());

    // Served from the cache: an altered entry shows.
    let entry = entries(&cache).pop().unwrap();
    assert!(verdicts(&first_json).contains(&"different".to_string()));
    alter(&entry, "equivalent");
    let altered = verdicts(&dizy(&work, &args("json")));
    assert!(altered.iter().all(|v| v == "equivalent"), "{altered:?}");

    // A header the file reads changes (a comment only): another key, a fresh analysis.
    let header = std::fs::read_dir(work.join("include"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            std::fs::read_to_string(work.join("new.c"))
                .unwrap()
                .contains(&name)
        })
        .expect("a header the fixture includes");
    let mut text = std::fs::read_to_string(&header).unwrap();
    text.push_str("/* touched */\n");
    std::fs::write(&header, text).unwrap();
    let fresh = dizy(&work, &args("json"));
    assert_eq!(timeless(&fresh), timeless(&first_json), "a fresh analysis");
    assert_eq!(entries(&cache).len(), 2);

    // Another option: another key.
    let mut with_timeout = args("json");
    with_timeout.extend(["--timeout", "30"]);
    dizy(&work, &with_timeout);
    assert_eq!(entries(&cache).len(), 3);

    // The same contents under other names: the report names them, so another entry.
    std::fs::copy(work.join("old.c"), work.join("a.c")).unwrap();
    std::fs::copy(work.join("new.c"), work.join("b.c")).unwrap();
    let renamed = dizy(
        &work,
        &[
            "diff", "a.c", "b.c", "-I", "include", "--format", "json", "--cache", c,
        ],
    );
    assert_eq!(entries(&cache).len(), 4);
    assert!(String::from_utf8_lossy(&renamed.stdout).contains("\"old\": \"a.c\""));

    // A corrupt entry is a miss: a fresh analysis, rewritten.
    for e in entries(&cache) {
        std::fs::write(&e, b"{ not json").unwrap();
    }
    let after = dizy(&work, &args("json"));
    assert_eq!(timeless(&after), timeless(&first_json));
}

/// The direct mode: a warm run with nothing changed runs no preprocessor (a `--cpp` wrapper
/// counts its runs); a header created where an `#include` now finds it, an edited header and
/// another source each make it run again, and each gives the report of a fresh analysis.
#[test]
fn direct_mode_skips_the_preprocessor_only_while_nothing_it_watched_changed() {
    use std::os::unix::fs::PermissionsExt;
    let tmp = tempfile::tempdir().unwrap();
    let cache = tmp.path().join("cache");
    let c = cache.to_str().unwrap();
    let work = fixture_copy(tmp.path());
    let log = tmp.path().join("cpp.log");
    let wrapper = tmp.path().join("cpp");
    std::fs::write(
        &wrapper,
        format!(
            "#!/bin/sh\necho run >> '{}'\nexec cc \"$@\"\n",
            log.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755)).unwrap();
    let runs = || {
        std::fs::read_to_string(&log)
            .map(|t| t.lines().count())
            .unwrap_or(0)
    };
    let w = wrapper.to_str().unwrap();
    let args = [
        "diff", "old.c", "new.c", "-I", "include", "--format", "json", "--cpp", w, "--cache", c,
    ];
    let first = dizy(&work, &args);
    assert!(runs() > 0);
    let before = runs();
    let again = dizy(&work, &args);
    assert_eq!(runs(), before, "a warm run ran the preprocessor");
    assert!(
        first.stdout == again.stdout,
        "the stored report, byte for byte"
    );

    // Served from the cache: an altered entry shows, as long as nothing changes.
    let entry = entries(&cache).pop().unwrap();
    alter(&entry, "equivalent");
    let altered = verdicts(&dizy(&work, &args));
    assert!(altered.iter().all(|v| v == "equivalent"), "{altered:?}");

    // A header created beside the sources shadows `include/system.h` for `#include
    // "system.h"`: the directory changed, so the preprocessor runs and the analysis is fresh.
    std::fs::copy(work.join("include/system.h"), work.join("system.h")).unwrap();
    let before = runs();
    let shadowed = dizy(&work, &args);
    assert!(
        runs() > before,
        "a new header in a searched directory went unseen"
    );
    assert_eq!(timeless(&shadowed), timeless(&first), "a fresh analysis");
    std::fs::remove_file(work.join("system.h")).unwrap();

    // `#include <sys/types.h>` would now find `include/sys/types.h` first.
    dizy(&work, &args);
    let before = runs();
    dizy(&work, &args);
    assert_eq!(runs(), before);
    std::fs::create_dir_all(work.join("include/sys")).unwrap();
    std::fs::write(
        work.join("include/sys/types.h"),
        "#include_next <sys/types.h>\n",
    )
    .unwrap();
    let before = runs();
    dizy(&work, &args);
    assert!(
        runs() > before,
        "a header in a new subdirectory went unseen"
    );

    // An edited header: a miss too.
    dizy(&work, &args);
    let before = runs();
    dizy(&work, &args);
    assert_eq!(runs(), before);
    let mut text = std::fs::read_to_string(work.join("include/die.h")).unwrap();
    text.push_str("/* touched */\n");
    std::fs::write(work.join("include/die.h"), text).unwrap();
    let before = runs();
    dizy(&work, &args);
    assert!(runs() > before, "an edited header went unseen");

    // Another source: a miss.
    let mut src = std::fs::read_to_string(work.join("new.c")).unwrap();
    src.push_str("/* touched */\n");
    std::fs::write(work.join("new.c"), src).unwrap();
    let before = runs();
    dizy(&work, &args);
    assert!(runs() > before, "an edited source went unseen");
}

#[test]
fn git_runs_reuse_entries_across_checkouts() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("repo");
    std::fs::create_dir_all(repo.join("src")).unwrap();
    let pairs = root().join("benchmarks/pairs");
    let git = |args: &[&str]| common::git(&repo, args);
    git(&["init", "-q"]);
    for id in ["sign", "ne_off_by_one"] {
        std::fs::copy(
            pairs.join(id).join("old.c"),
            repo.join(format!("src/{id}.c")),
        )
        .unwrap();
    }
    git(&["add", "-A"]);
    git(&["commit", "-q", "-m", "old"]);
    for id in ["sign", "ne_off_by_one"] {
        std::fs::copy(
            pairs.join(id).join("new.c"),
            repo.join(format!("src/{id}.c")),
        )
        .unwrap();
        git(&["add", "-A"]);
        git(&["commit", "-q", "-m", id]);
    }
    let cache = tmp.path().join("cache");
    let c = cache.to_str().unwrap();
    let diff = [
        "diff", "--git", "HEAD~2", "HEAD", "--format", "json", "--cache", c,
    ];
    let first = dizy(&repo, &diff);
    assert_eq!(entries(&cache).len(), 2);
    for e in entries(&cache) {
        alter(&e, "equivalent");
    }
    let second = dizy(&repo, &diff);
    let vs = verdicts(&second);
    assert!(
        vs.iter().all(|v| v == "equivalent"),
        "served from the cache: {vs:?}"
    );
    assert!(verdicts(&first).contains(&"different".to_string()));
    let text = String::from_utf8_lossy(&second.stdout);
    assert!(!text.contains("/dizy-git-"), "{text}");

    // `dizy log`: its commits are other file pairs (one new entry each), reused on a re-run.
    let log = [
        "log",
        "HEAD~2..HEAD",
        "--format",
        "json",
        "--no-times",
        "--cache",
        c,
    ];
    let one = dizy(&repo, &log);
    assert_eq!(entries(&cache).len(), 4);
    let two = dizy(&repo, &log);
    assert!(one.stdout == two.stdout, "a re-run differs");
    assert_eq!(entries(&cache).len(), 4);
}

/// A header missing when the report was stored (a stand-in took its place), created later in
/// an existing subdirectory of a search directory: the direct mode must not serve the old
/// report, which the header changes.
#[test]
fn direct_mode_sees_a_missing_header_appear() {
    let tmp = tempfile::tempdir().unwrap();
    let cache = tmp.path().join("cache");
    let work = tmp.path().join("w");
    std::fs::create_dir_all(work.join("include/gen")).unwrap();
    std::fs::write(work.join("include/gen/other.h"), "#define OTHER 1\n").unwrap();
    std::fs::write(work.join("old.c"), "int f(int x) { return x; }\n").unwrap();
    std::fs::write(
        work.join("new.c"),
        "#include <gen/extra.h>\nint f(int x) {\n#ifdef EXTRA\n  return x + 1;\n#else\n  return x;\n#endif\n}\n",
    )
    .unwrap();
    let args = [
        "diff",
        "old.c",
        "new.c",
        "-I",
        "include",
        "--format",
        "json",
        "--cache",
        cache.to_str().unwrap(),
    ];
    let first = verdicts(&dizy(&work, &args));
    assert!(first.iter().all(|v| v != "different"), "{first:?}");
    assert_eq!(verdicts(&dizy(&work, &args)), first);
    std::fs::write(work.join("include/gen/extra.h"), "#define EXTRA 1\n").unwrap();
    let now = verdicts(&dizy(&work, &args));
    assert!(now.iter().any(|v| v == "different"), "{now:?}");
}
