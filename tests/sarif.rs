//! `dizy diff --format sarif` against an independent validator: Microsoft's SARIF Multitool
//! (`scripts/sarif-multitool`, installed by `scripts/setup`) with the SARIF 2.1.0 schema, its
//! SARIF rules and GitHub's ingestion rules (`--rule-kind Sarif;Gh;Ghas`). Any error or warning
//! fails; a deliberately broken log in the same batch must be flagged, so the check cannot pass
//! by reading nothing.
//!
//! Logs come from every benchmark pair, the configuration fixture (with and without
//! `--config-all`), the unconfigured real-world fixture, a path with spaces, `--git` over a
//! two-commit repository and, when `../shared/realworld/coreutils` is there, coreutils 6.10 →
//! 6.11 given by absolute paths. Each log is also checked with serde_json: required fields,
//! rule references, locations, the results against the JSON report of the same pair, and
//! fingerprints across runs and line shifts.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value as Json;

mod common;
use common::{git, sarif_problems as validate};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Run `dizy diff ARGS` in `cwd` and write its output to `out`; the exit status.
fn dizy(cwd: &Path, args: &[&str], out: &Path) -> i32 {
    let o = Command::new(env!("CARGO_BIN_EXE_dizy"))
        .current_dir(cwd)
        .arg("diff")
        .args(args)
        .output()
        .expect("run dizy");
    std::fs::write(out, &o.stdout).unwrap();
    let code = o.status.code().unwrap_or(-1);
    assert!(
        (0..=2).contains(&code) && !o.stdout.is_empty(),
        "dizy diff {args:?}: exit {code}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    code
}

fn read(path: &Path) -> Json {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap())
        .unwrap_or_else(|e| panic!("{}: not JSON: {e}", path.display()))
}

fn result_count(files: &[PathBuf]) -> usize {
    files
        .iter()
        .map(|f| read(f)["runs"][0]["results"].as_array().map_or(0, Vec::len))
        .sum()
}

/// What every log must have, beyond the schema.
fn check_structure(name: &str, log: &Json, exit: i32) {
    assert_eq!(log["version"], "2.1.0", "{name}");
    let runs = log["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 1, "{name}: one run per invocation");
    let run = &runs[0];
    let driver = &run["tool"]["driver"];
    assert_eq!(driver["name"], "dizy", "{name}");
    assert_eq!(driver["version"], env!("CARGO_PKG_VERSION"), "{name}");
    let rules = driver["rules"].as_array().unwrap();
    let ids: Vec<&str> = rules.iter().map(|r| r["id"].as_str().unwrap()).collect();
    for r in rules {
        for field in ["name", "shortDescription", "fullDescription", "help"] {
            assert!(
                !r[field].is_null(),
                "{name}: rule {} has no {field}",
                r["id"]
            );
        }
        assert!(["error", "warning", "note"]
            .contains(&r["defaultConfiguration"]["level"].as_str().unwrap()));
    }
    let inv = &run["invocations"][0];
    assert_eq!(inv["exitCode"], exit, "{name}");
    assert!(inv["executionSuccessful"].is_boolean(), "{name}");
    assert!(run["columnKind"].is_string(), "{name}");
    let artifacts: Vec<&Json> = run["artifacts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| &a["location"])
        .collect();
    let check_location = |loc: &Json, what: &str| {
        let Some(p) = loc.get("physicalLocation") else {
            return;
        };
        let a = &p["artifactLocation"];
        let i = a["index"].as_u64().unwrap() as usize;
        assert_eq!(
            artifacts[i]["uri"], a["uri"],
            "{name}: {what}: artifact index"
        );
        assert!(
            p["region"]["startLine"].as_u64().unwrap() >= 1,
            "{name}: {what}"
        );
    };
    for res in run["results"].as_array().unwrap() {
        let id = res["ruleId"].as_str().unwrap();
        let i = res["ruleIndex"].as_u64().unwrap() as usize;
        assert_eq!(ids.get(i), Some(&id), "{name}: ruleIndex of {id}");
        assert_eq!(res["level"], rules[i]["defaultConfiguration"]["level"]);
        assert!(!res["message"]["text"].as_str().unwrap().is_empty());
        let locs = res["locations"].as_array().unwrap();
        assert_eq!(locs.len(), 1, "{name}: {id}");
        assert!(locs[0].get("physicalLocation").is_some(), "{name}: {id}");
        check_location(&locs[0], id);
        for r in res["relatedLocations"].as_array().into_iter().flatten() {
            check_location(r, id);
        }
        let fp = res["partialFingerprints"]["dizyFunction/v1"]
            .as_str()
            .unwrap();
        assert!(fp.len() == 16 && fp.chars().all(|c| c.is_ascii_hexdigit()));
    }
    // One difference, one alert: no two results say the same thing at the same place.
    let keys: Vec<String> = run["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["partialFingerprints"].to_string())
        .collect();
    let unique: BTreeSet<&String> = keys.iter().collect();
    assert_eq!(unique.len(), keys.len(), "{name}: duplicate results");
}

/// The function results against the JSON report of a second run on the same pair: one per
/// function whose verdict is not equivalent or unchanged. The runs have a `--timeout` well above
/// what the pairs need (at most 5 s alone), but on a loaded machine two runs may still disagree
/// on what depends on time (a witness found or not, a timeout), so `different` and
/// `possibly-different` count as one and timeouts are left out.
fn check_against_json(name: &str, sarif: &Json, json: &Json) {
    use std::collections::BTreeMap;
    let norm = |v: &str| {
        if v == "different" {
            "possibly-different".to_string()
        } else {
            v.to_string()
        }
    };
    let expected: BTreeMap<String, String> = json["functions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["name"].as_str().unwrap().to_string(),
                norm(f["verdict"].as_str().unwrap()),
            )
        })
        .filter(|(_, v)| v != "equivalent" && v != "unchanged")
        .collect();
    let got: BTreeMap<String, String> = sarif["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|r| {
            let f = r["properties"]["name"].as_str()?;
            let v = r["properties"]["verdict"].as_str().unwrap();
            assert_eq!(r["ruleId"], format!("dizy/{v}"), "{name}: {f}");
            Some((f.to_string(), norm(v)))
        })
        .collect();
    let timed_out = |f: &String| {
        expected
            .get(f)
            .or(got.get(f))
            .is_some_and(|v| v == "timeout")
            || got.get(f).is_some_and(|v| v == "timeout")
    };
    let keep = |m: &BTreeMap<String, String>| -> BTreeMap<String, String> {
        m.iter()
            .filter(|(f, _)| !timed_out(f))
            .map(|(f, v)| (f.clone(), v.clone()))
            .collect()
    };
    assert_eq!(keep(&got), keep(&expected), "{name}");
}

/// A copy of the sign pair with the new version shifted down by `shift` lines, in `dir`.
fn shifted_sign(dir: &Path, shift: usize) -> (PathBuf, PathBuf) {
    std::fs::create_dir_all(dir).unwrap();
    let pair = root().join("benchmarks/pairs/sign");
    let (old, new) = (dir.join("old.c"), dir.join("new.c"));
    std::fs::copy(pair.join("old.c"), &old).unwrap();
    let text = std::fs::read_to_string(pair.join("new.c")).unwrap();
    std::fs::write(&new, format!("{}{text}", "\n".repeat(shift))).unwrap();
    (old, new)
}

/// A repository with two commits changing the sign example, at `src/sign.c`.
fn git_repo(dir: &Path) -> PathBuf {
    let repo = dir.join("repo");
    std::fs::create_dir_all(repo.join("src")).unwrap();
    let pair = root().join("benchmarks/pairs/sign");
    git(&repo, &["init", "-q"]);
    std::fs::copy(pair.join("old.c"), repo.join("src/sign.c")).unwrap();
    git(&repo, &["add", "."]);
    git(&repo, &["commit", "-q", "-m", "old"]);
    std::fs::copy(pair.join("new.c"), repo.join("src/sign.c")).unwrap();
    git(&repo, &["commit", "-q", "-am", "new"]);
    repo
}

/// One run of dizy: where, with what, and whether the JSON report can be compared.
struct Case {
    name: String,
    cwd: PathBuf,
    args: Vec<String>,
    compare_json: bool,
}

impl Case {
    fn new(name: &str, cwd: &Path, args: &[&str], compare_json: bool) -> Case {
        Case {
            name: name.to_string(),
            cwd: cwd.to_path_buf(),
            args: args.iter().map(|s| s.to_string()).collect(),
            compare_json,
        }
    }
}

/// Run the cases on two threads (the machine's cores), write each log to `dir/NAME.sarif`,
/// check it with serde, and return the paths.
fn run_cases(cases: &[Case], dir: &Path) -> Vec<PathBuf> {
    let next = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(c) = cases.get(i) else { break };
                let out = dir.join(format!("{}.sarif", c.name));
                let mut args: Vec<&str> = c.args.iter().map(String::as_str).collect();
                args.extend(["--format", "sarif"]);
                let exit = dizy(&c.cwd, &args, &out);
                let log = read(&out);
                check_structure(&c.name, &log, exit);
                if c.compare_json {
                    let json_out = dir.join(format!("{}.json", c.name));
                    let n = args.len();
                    args[n - 1] = "json";
                    dizy(&c.cwd, &args, &json_out);
                    check_against_json(&c.name, &log, &read(&json_out));
                }
            });
        }
    });
    cases
        .iter()
        .map(|c| dir.join(format!("{}.sarif", c.name)))
        .collect()
}

/// Copies of a real log the validator must reject: against the schema (no tool name, a line
/// 0) and, valid for the schema, against SARIF's rules (a URI with a space; the validator runs
/// those only on logs the schema accepts).
fn broken_copies(from: &Path, dir: &Path) -> [PathBuf; 2] {
    let mut schema = read(from);
    let run = &mut schema["runs"][0];
    run["tool"]["driver"]
        .as_object_mut()
        .unwrap()
        .remove("name");
    run["results"][0]["locations"][0]["physicalLocation"]["region"]["startLine"] = 0.into();
    let mut uri = read(from);
    uri["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] =
        "dir with space/new.c".into();
    let paths = [
        dir.join("broken-schema.sarif"),
        dir.join("broken-uri.sarif"),
    ];
    for (p, v) in paths.iter().zip([schema, uri]) {
        std::fs::write(p, serde_json::to_string(&v).unwrap()).unwrap();
    }
    paths
}

#[test]
fn logs_of_every_benchmark_pair_and_fixture_validate() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let r = root();
    let timeout = ["--timeout", "20"];
    let mut cases = vec![];
    let mut pairs: Vec<PathBuf> = std::fs::read_dir(r.join("benchmarks/pairs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("new.c").exists())
        .collect();
    pairs.sort();
    assert!(pairs.len() >= 40, "benchmark pairs: {}", pairs.len());
    for p in &pairs {
        let rel = p.strip_prefix(&r).unwrap().display().to_string();
        let (old, new) = (format!("{rel}/old.c"), format!("{rel}/new.c"));
        let name = p.file_name().unwrap().to_str().unwrap();
        cases.push(Case::new(
            name,
            &r,
            &[&old, &new, timeout[0], timeout[1]],
            true,
        ));
    }
    let cfg = ["tests/fixtures/config/old.c", "tests/fixtures/config/new.c"];
    cases.push(Case::new(
        "config",
        &r,
        &[cfg[0], cfg[1], "--timeout", "20"],
        true,
    ));
    cases.push(Case::new(
        "config-all",
        &r,
        &[cfg[0], cfg[1], "--timeout", "2", "--config-all"],
        false,
    ));
    let tabs = [
        "benchmarks/realworld/tabs/old.c",
        "benchmarks/realworld/tabs/new.c",
    ];
    cases.push(Case::new(
        "tabs",
        &r,
        &[tabs[0], tabs[1], "--timeout", "20"],
        true,
    ));
    let (old, new) = shifted_sign(&dir.join("dir with space"), 0);
    let (old, new) = (old.display().to_string(), new.display().to_string());
    cases.push(Case::new("space", dir, &[&old, &new], true));
    let repo = git_repo(dir);
    cases.push(Case::new("git", &repo, &["--git", "HEAD~1", "HEAD"], false));
    let files = run_cases(&cases, dir);

    // The relative and the percent-encoded URIs, and --git's paths in the repository.
    let sign = read(&dir.join("sign.sarif"));
    let loc = &sign["runs"][0]["results"][0]["locations"][0]["physicalLocation"];
    assert_eq!(
        loc["artifactLocation"]["uri"],
        "benchmarks/pairs/sign/new.c"
    );
    assert_eq!(loc["artifactLocation"]["uriBaseId"], "%SRCROOT%");
    let space = read(&dir.join("space.sarif"));
    let uri = space["runs"][0]["results"][0]["locations"][0]["physicalLocation"]
        ["artifactLocation"]["uri"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        uri.starts_with("file:///") && uri.ends_with("/dir%20with%20space/new.c"),
        "{uri}"
    );
    let g = read(&dir.join("git.sarif"));
    let res = &g["runs"][0]["results"][0];
    assert_eq!(res["ruleId"], "dizy/different");
    assert_eq!(
        res["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
        "src/sign.c"
    );
    assert!(res["relatedLocations"][0]["message"]["text"]
        .as_str()
        .unwrap()
        .contains("HEAD~1"));

    let broken = broken_copies(&dir.join("sign.sarif"), dir);
    let mut all = files.clone();
    all.extend(broken.iter().cloned());
    let problems = validate(&all, dir);
    let (bad, rest): (Vec<_>, Vec<_>) = problems
        .into_iter()
        .partition(|p| p.0.starts_with("broken-"));
    assert!(rest.is_empty(), "the validator reports: {rest:#?}");
    let flagged: BTreeSet<(&str, &str)> =
        bad.iter().map(|p| (p.0.as_str(), p.1.as_str())).collect();
    for expected in [
        ("broken-schema.sarif", "JSON1002"),
        ("broken-schema.sarif", "JSON1008"),
        ("broken-uri.sarif", "SARIF1002"),
    ] {
        assert!(
            flagged.contains(&expected),
            "the broken log is not flagged {expected:?}: {bad:#?}"
        );
    }
    println!(
        "{} logs, {} results validated: 0 errors, 0 warnings; the broken ones: {} problem(s)",
        files.len(),
        result_count(&files),
        bad.len()
    );
}

/// coreutils 6.10 → 6.11 (pr.c, md5sum.c), outside the repository, given by absolute paths.
#[test]
fn logs_of_coreutils_validate() {
    let base = root().join("../shared/realworld/coreutils");
    if !base.join("v6.10/pr.c").exists() {
        println!(
            "skipped: {} is not there (shared/ beside the repository)",
            base.display()
        );
        return;
    }
    let base = base.canonicalize().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let cases: Vec<Case> = ["pr", "md5sum"]
        .iter()
        .map(|f| {
            let old = base.join(format!("v6.10/{f}.c")).display().to_string();
            let new = base.join(format!("v6.11/{f}.c")).display().to_string();
            Case::new(f, dir, &[&old, &new, "--timeout", "2"], false)
        })
        .collect();
    let files = run_cases(&cases, dir);
    let pr = read(&files[0]);
    let results = pr["runs"][0]["results"].as_array().unwrap();
    assert!(!results.is_empty());
    let uri = results[0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        .as_str()
        .unwrap();
    assert!(
        uri.starts_with("file:///") && uri.ends_with("/v6.11/pr.c"),
        "{uri}"
    );
    let problems = validate(&files, dir);
    assert!(problems.is_empty(), "the validator reports: {problems:#?}");
    println!(
        "coreutils: {} logs, {} results validated: 0 errors, 0 warnings",
        files.len(),
        result_count(&files)
    );
}

/// Fingerprints depend on the file, the function and the verdict, not on the run or on lines;
/// the location is the first changed line of the new version.
#[test]
fn fingerprints_are_stable_and_results_point_at_the_change() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let result = |cwd: &Path, old: &str, new: &str, name: &str| {
        let out = dir.join(format!("{name}.sarif"));
        dizy(cwd, &[old, new, "--format", "sarif"], &out);
        let v = read(&out);
        let r = v["runs"][0]["results"][0].clone();
        let line = r["locations"][0]["physicalLocation"]["region"]["startLine"].as_u64();
        (r["partialFingerprints"]["dizyFunction/v1"].clone(), line)
    };
    let (old, new) = shifted_sign(&dir.join("a"), 0);
    let (o, n) = (old.to_str().unwrap(), new.to_str().unwrap());
    let first = result(dir, o, n, "first");
    let again = result(dir, o, n, "again");
    assert_eq!(first, again);
    // `if (x == 0)` is the new version's first changed line.
    assert_eq!(first.1, Some(9));
    // The same pair five lines lower, under the same path: same fingerprint, line 14.
    std::fs::remove_dir_all(dir.join("a")).unwrap();
    let (old, new) = shifted_sign(&dir.join("a"), 5);
    let shifted = result(dir, old.to_str().unwrap(), new.to_str().unwrap(), "shifted");
    assert_eq!(shifted, (first.0.clone(), Some(14)));
    // Another path, another fingerprint.
    let (old, new) = shifted_sign(&dir.join("b"), 0);
    let other = result(dir, old.to_str().unwrap(), new.to_str().unwrap(), "other");
    assert_ne!(other.0, first.0);
    // A change that only removes code (`break;` at old line 11): the new version's code right
    // after the removed instructions; the first of them is the loop's exit flag, set at the
    // `for` of line 8.
    let r = root();
    let pair = "benchmarks/pairs/ne_removed_break";
    let removed = result(
        &r,
        &format!("{pair}/old.c"),
        &format!("{pair}/new.c"),
        "removed",
    );
    assert_eq!(removed.1, Some(8));
}

#[test]
fn correlate_has_no_sarif() {
    let pair = root().join("benchmarks/pairs/sign");
    let out = Command::new(env!("CARGO_BIN_EXE_dizy"))
        .arg("correlate")
        .arg(pair.join("old.c"))
        .arg(pair.join("new.c"))
        .args(["--function", "sign", "--format", "sarif"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("sarif"));
}
