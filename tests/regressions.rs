//! Regression pairs found by the soundness fuzzer (`scripts/fuzz-soundness`) or written by hand
//! for bugs of that kind, run through `dizy diff` and checked against gcc.
//!
//! Takes `benchmarks/regressions/manifest.csv` (`id,old,new,function,expected,note`, the format of
//! `benchmarks/manifest.csv`; `expected` is the native ground truth: `different` when some input
//! distinguishes the versions, `equivalent` when the oracle found none). Checks per pair: dizy
//! neither panics nor hangs and gives the function a verdict other than `error`/`unsupported`;
//! no `equivalent`/`unchanged` on an `expected = different` pair; and a `different` verdict's
//! witness, compiled natively with UBSan (each version alone, its own `main`), runs without
//! undefined behaviour and gives the two different results dizy claims. A witness that sets
//! globals before the call or fills buffers is beyond that scalar harness: `dizy diff
//! --validate native` (gcc with UBSan on the same inputs) must confirm it instead.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use common::run_with_timeout;
use serde_json::Value as Json;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("benchmarks/regressions")
}

struct Row {
    id: String,
    old: PathBuf,
    new: PathBuf,
    function: String,
    expected: String,
}

/// Split one CSV line (quoted fields may contain commas; no quotes inside quotes).
fn fields(line: &str) -> Vec<String> {
    let (mut out, mut cur, mut quoted) = (vec![], String::new(), false);
    for ch in line.chars() {
        match ch {
            '"' => quoted = !quoted,
            ',' if !quoted => out.push(std::mem::take(&mut cur)),
            c => cur.push(c),
        }
    }
    out.push(cur);
    out
}

fn manifest() -> Vec<Row> {
    let path = root().join("manifest.csv");
    let text = std::fs::read_to_string(&path).expect("benchmarks/regressions/manifest.csv");
    let mut lines = text.lines();
    assert_eq!(
        lines.next(),
        Some("id,old,new,function,expected,note"),
        "header of {}",
        path.display()
    );
    let mut rows = vec![];
    let mut ids = std::collections::BTreeSet::new();
    for (n, line) in lines.enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        let f = fields(line);
        let at = format!("{}:{}", path.display(), n + 2);
        assert_eq!(f.len(), 6, "{at}: 6 fields expected, got {f:?}");
        assert!(ids.insert(f[0].clone()), "{at}: duplicate id {}", f[0]);
        assert!(
            f[4] == "different" || f[4] == "equivalent",
            "{at}: expected must be `different` or `equivalent`, not {:?}",
            f[4]
        );
        assert!(!f[5].is_empty(), "{at}: a note saying what the pair tests");
        let (old, new) = (root().join(&f[1]), root().join(&f[2]));
        assert!(
            old.is_file() && new.is_file(),
            "{at}: missing {} or {}",
            f[1],
            f[2]
        );
        rows.push(Row {
            id: f[0].clone(),
            old,
            new,
            function: f[3].clone(),
            expected: f[4].clone(),
        });
    }
    rows
}

/// Parameter types of `int NAME(...)` and whether the file has the global `int g;`, read from
/// the text (regression files keep the generator's one-line signatures).
fn signature(src: &str, name: &str) -> (Vec<(String, String)>, bool) {
    let head = format!("int {name}(");
    let line = src
        .lines()
        .find(|l| l.starts_with(&head))
        .unwrap_or_else(|| panic!("no line starting with `{head}`"));
    let inner = &line[head.len()..line.rfind(')').expect("closing parenthesis")];
    let params = inner
        .split(',')
        .map(str::trim)
        .filter(|p| !p.is_empty() && *p != "void")
        .map(|p| {
            let (t, n) = p.rsplit_once(' ').expect("`type name` parameter");
            (t.trim().to_string(), n.trim().to_string())
        })
        .collect();
    (params, src.lines().any(|l| l.trim() == "int g;"))
}

/// Compile `file` alone with a `main` that calls `func` on its arguments and prints
/// `return g` (g 0 when there is none); gives the executable.
fn native(file: &Path, func: &str, dir: &Path, tag: &str) -> PathBuf {
    let src = std::fs::read_to_string(file).unwrap();
    let (params, global) = signature(&src, func);
    let args: Vec<String> = params
        .iter()
        .enumerate()
        .map(|(i, (t, _))| format!("({t})strtoll(argv[{}], 0, 10)", i + 1))
        .collect();
    let main = format!(
        "#include <stdio.h>\n#include <stdlib.h>\n#include \"{}\"\nint main(int argc, char **argv)\n{{\n    (void)argc;\n    int r = {func}({});\n    printf(\"%d %d\\n\", r, {});\n    return 0;\n}}\n",
        file.display(),
        args.join(", "),
        if global { "g" } else { "0" }
    );
    let c = dir.join(format!("{tag}.c"));
    let exe = dir.join(tag);
    std::fs::write(&c, main).unwrap();
    let o = Command::new("gcc")
        .args([
            "-std=gnu11",
            "-O0",
            "-w",
            "-fsanitize=undefined",
            "-fno-sanitize-recover=all",
            "-o",
        ])
        .arg(&exe)
        .arg(&c)
        .output()
        .expect("gcc");
    assert!(
        o.status.success(),
        "gcc on {}: {}",
        c.display(),
        String::from_utf8_lossy(&o.stderr)
    );
    exe
}

/// Run a native version on the witness inputs: `Some((ret, g))`, `None` on undefined behaviour.
fn run_native(exe: &Path, inputs: &[String]) -> Option<(String, String)> {
    let o = run_with_timeout(
        Command::new(exe).args(inputs),
        None,
        Duration::from_secs(10),
    );
    if o.timed_out || o.code() != Some(0) {
        return None;
    }
    let mut w = o.stdout.split_whitespace();
    Some((w.next()?.to_string(), w.next()?.to_string()))
}

#[test]
fn regressions_hold() {
    let rows = manifest();
    assert!(
        !rows.is_empty(),
        "the manifest lists at least the hand-written pairs"
    );
    let tmp = tempfile::tempdir().unwrap();
    let mut failures = vec![];
    for r in &rows {
        let o = run_with_timeout(
            Command::new(env!("CARGO_BIN_EXE_dizy"))
                .args(["diff", "--format", "json", "--timeout", "20"])
                .arg(&r.old)
                .arg(&r.new),
            None,
            Duration::from_secs(90),
        );
        if o.timed_out || o.stderr.contains("panicked") || !matches!(o.code(), Some(0..=2)) {
            failures.push(format!(
                "{}: dizy crashed or hung: {:?} {}",
                r.id, o.status, o.stderr
            ));
            continue;
        }
        let report: Json = match serde_json::from_str(&o.stdout) {
            Ok(j) => j,
            Err(e) => {
                failures.push(format!("{}: no JSON report ({e}): {}", r.id, o.stderr));
                continue;
            }
        };
        let Some(f) = report["functions"]
            .as_array()
            .and_then(|a| a.iter().find(|f| f["name"] == r.function.as_str()))
        else {
            failures.push(format!("{}: no verdict for {}", r.id, r.function));
            continue;
        };
        let verdict = f["verdict"].as_str().unwrap_or("");
        if matches!(verdict, "error" | "unsupported") {
            failures.push(format!("{}: verdict {verdict}: {}", r.id, f["notes"]));
        }
        if r.expected == "different" && matches!(verdict, "equivalent" | "unchanged") {
            failures.push(format!(
                "{}: unsound: {verdict} on a pair that differs natively",
                r.id
            ));
        }
        let w = &f["witness"];
        let nonempty = |k: &str| w[k].as_object().is_some_and(|m| !m.is_empty());
        if verdict == "different" && (nonempty("global_inputs") || nonempty("memory_inputs")) {
            // Globals set before the call or buffers: beyond this file's scalar harness, so
            // dizy's own native replay (gcc with UBSan, the same inputs) must confirm it.
            let o = run_with_timeout(
                Command::new(env!("CARGO_BIN_EXE_dizy"))
                    .args(["diff", "--format", "json", "--timeout", "20"])
                    .args(["--validate", "native", "--function", &r.function])
                    .arg(&r.old)
                    .arg(&r.new),
                None,
                Duration::from_secs(90),
            );
            let j: Json = serde_json::from_str(&o.stdout).unwrap_or(Json::Null);
            let by = j["functions"]
                .as_array()
                .and_then(|a| a.iter().find(|f| f["name"] == r.function.as_str()))
                .and_then(|f| f["witness"]["validated_by"].as_str())
                .unwrap_or("");
            if !by.contains("native") {
                failures.push(format!(
                    "{}: witness with globals or memory not confirmed natively ({by:?}): {}",
                    r.id, o.stderr
                ));
            }
        } else if verdict == "different" {
            let (params, _) = signature(&std::fs::read_to_string(&r.old).unwrap(), &r.function);
            let inputs: Vec<String> = params
                .iter()
                .map(|(_, n)| w["inputs"][n].as_str().unwrap_or("0").to_string())
                .collect();
            let eo = native(&r.old, &r.function, tmp.path(), &format!("{}_old", r.id));
            let en = native(&r.new, &r.function, tmp.path(), &format!("{}_new", r.id));
            match (run_native(&eo, &inputs), run_native(&en, &inputs)) {
                (Some(a), Some(b)) => {
                    if a == b {
                        failures.push(format!(
                            "{}: false witness {inputs:?}: both give {a:?} natively",
                            r.id
                        ));
                    }
                    if w["old"]["return"].as_str() != Some(a.0.as_str())
                        || w["new"]["return"].as_str() != Some(b.0.as_str())
                    {
                        failures.push(format!(
                            "{}: witness {inputs:?} claims {} / {}, natively {a:?} / {b:?}",
                            r.id, w["old"], w["new"]
                        ));
                    }
                }
                _ => failures.push(format!(
                    "{}: witness {inputs:?} has undefined behaviour natively",
                    r.id
                )),
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn csv_fields_split_on_unquoted_commas() {
    assert_eq!(fields("a,\"b, c\",d"), vec!["a", "b, c", "d"]);
    let (p, g) = signature("int g;\n\nint f(char a, unsigned b)\n{\n", "f");
    assert_eq!(
        p,
        vec![("char".into(), "a".into()), ("unsigned".into(), "b".into())]
    );
    assert!(g);
}
