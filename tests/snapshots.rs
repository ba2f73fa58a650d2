//! Snapshot tests of the middle layers, guarding refactorings that must not change behaviour.
//!
//! For every file `tests/corpus/interp/*.c` the `dizy gcl` listing of all its functions, and for
//! every pair `tests/corpus/correlate/NAME/{old.c,new.c}` (entry function named on the first line
//! of `old.c`, as `/* entry: NAME … */`)
//!
//! * the `dizy correlate OLD NEW --function F` listing, and
//! * the Δ section of `dizy diff --no-witness --function F OLD NEW`: the function's verdict,
//!   notes, differing variables and, per diff point, the equivalent and differing states
//!   (without the time, the table, the assumptions and the summary),
//!
//! are rendered through the library (no process is started) and compared with the files
//! `tests/snapshots/{gcl,correlate,delta}/NAME.txt`. A change of output fails the test with a
//! diff; `UPDATE_EXPECT=1 cargo test --release --test snapshots` rewrites the files after an
//! intended change (review the diff in git before committing). A snapshot file without a corpus
//! entry also fails the test, so renamed entries do not leave stale files behind.
//!
//! Files are loaded by paths relative to the package root (cargo runs tests there), so the
//! listings that name files are the same in every checkout. The `gcl` and `correlate` listings
//! are rendered twice and must agree (no dependence on hash order); the Δ is rendered once (its
//! analysis is the expensive part), and its stability across processes is what the committed
//! files check. The two versions of a pair are loaded once and shared by its `correlate` and
//! `delta` snapshots.

use std::collections::HashMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use expect_test::expect_file;

/// Entries of a corpus directory (files or pair directories), sorted, as (name, path relative to
/// the package root).
fn entries(dir: &str, want_dirs: bool) -> Vec<(String, PathBuf)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut out: Vec<(String, PathBuf)> = std::fs::read_dir(root.join(dir))
        .unwrap_or_else(|e| panic!("{dir}: {e}"))
        .map(|e| e.unwrap().path())
        .filter(|p| {
            if want_dirs {
                p.is_dir()
            } else {
                p.extension().is_some_and(|x| x == "c")
            }
        })
        .map(|p| {
            let name = p.file_stem().unwrap().to_string_lossy().into_owned();
            let rel = Path::new(dir).join(p.file_name().unwrap());
            (name, rel)
        })
        .collect();
    out.sort();
    out
}

/// The entry function named on the first line of a corpus file (`/* entry: NAME … */`).
fn entry_of(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    let first = text.lines().next().unwrap_or("");
    let rest = first
        .split("entry:")
        .nth(1)
        .unwrap_or_else(|| panic!("{path:?}: no `entry:` on the first line"));
    rest.trim()
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .next()
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| panic!("{path:?}: empty entry name"))
        .to_string()
}

fn load(path: &Path) -> dizy::gcl::GclProgram {
    dizy::load_gcl(path, &dizy::frontend::Options::default())
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Programs of the pair corpus, loaded once for the `correlate` and `delta` snapshots (each
/// load runs the preprocessor; the `gcl` snapshots load afresh every time).
fn load_cached(path: &Path) -> Arc<dizy::gcl::GclProgram> {
    static CACHE: OnceLock<Mutex<HashMap<PathBuf, Arc<dizy::gcl::GclProgram>>>> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    if let Some(p) = cache.lock().unwrap().get(path) {
        return p.clone();
    }
    let p = Arc::new(load(path));
    cache
        .lock()
        .unwrap()
        .entry(path.to_path_buf())
        .or_insert(p)
        .clone()
}

/// Paths in the text are relative already; an absolute one (should a stage make paths
/// absolute) is cut back so the snapshot stays the same in every checkout.
fn normalize(text: &str) -> String {
    let root = format!("{}/", env!("CARGO_MANIFEST_DIR"));
    text.replace(&root, "")
}

/// What `dizy gcl FILE` prints: every function, then the functions the frontend rejected.
fn render_gcl(file: &Path) -> String {
    let prog = load(file);
    let mut out = String::new();
    for f in prog.file_functions() {
        dizy::gcl::print_function(&mut out, f, &prog.program);
        out.push('\n');
    }
    for (name, e) in prog.file_rejected() {
        out.push_str(&format!("rejected {name}: {e}\n"));
    }
    normalize(&out)
}

/// What `dizy correlate OLD NEW --function F` prints.
fn render_correlate(dir: &Path) -> String {
    let (old, new) = (dir.join("old.c"), dir.join("new.c"));
    let entry = entry_of(&old);
    let (po, pn) = (load_cached(&old), load_cached(&new));
    let c = dizy::correlate::correlate(&po, &pn, &entry, &Default::default())
        .unwrap_or_else(|e| panic!("{}: correlate {entry}: {e}", dir.display()));
    normalize(&dizy::correlate::print_correlated(&c))
}

/// The function's section of `dizy diff --no-witness --function F OLD NEW`, without its time.
fn render_delta(dir: &Path) -> String {
    let (old, new) = (dir.join("old.c"), dir.join("new.c"));
    let entry = entry_of(&old);
    let (po, pn) = (load_cached(&old), load_cached(&new));
    let mut opts = dizy::diff::DiffOptions {
        functions: vec![entry.clone()],
        no_witness: true,
        ..Default::default()
    };
    // Only a safety net against a hang: a timeout is not a snapshot (it depends on the machine).
    opts.limits.timeout = Some(Duration::from_secs(300));
    let report = dizy::diff::diff_programs(&po, &pn, &opts);
    assert_eq!(report.functions.len(), 1, "{}: one function", dir.display());
    let f = &report.functions[0];
    assert_ne!(
        f.verdict,
        dizy::diff::Verdict::Timeout,
        "{}: {entry} timed out: {:?}",
        dir.display(),
        f.error
    );
    let text = dizy::report::to_text(&report);
    let header = format!("function {entry}: {} (", f.verdict.as_str());
    let start = text
        .find(&format!("\n{header}"))
        .unwrap_or_else(|| panic!("{}: no section `{header}` in\n{text}", dir.display()))
        + 1;
    let end = text
        .rfind("\nsummary: ")
        .unwrap_or_else(|| panic!("{}: no summary line in\n{text}", dir.display()));
    let section = text[start..end].trim_end_matches('\n');
    // `function F: verdict (N ms)` → `function F: verdict`.
    let (first, rest) = section.split_once('\n').unwrap_or((section, ""));
    let first = match first.rfind(" (") {
        Some(k) if first.ends_with(" ms)") => &first[..k],
        _ => panic!("{}: unexpected header `{first}`", dir.display()),
    };
    let mut out = format!("{first}\n");
    if !rest.is_empty() {
        out.push_str(rest);
        out.push('\n');
    }
    normalize(&out)
}

/// Compare `render(entry)` with `tests/snapshots/KIND/NAME.txt` for every entry, collecting all
/// mismatches (each one's diff is printed by expect-test) before failing. Entries are spread over
/// `threads` threads.
fn check_all(
    kind: &str,
    entries: Vec<(String, PathBuf)>,
    twice: bool,
    threads: usize,
    render: fn(&Path) -> String,
) {
    let t0 = Instant::now();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/snapshots")
        .join(kind);
    std::fs::create_dir_all(&dir).unwrap();
    // Stale snapshots: files without an entry.
    let names: Vec<&str> = entries.iter().map(|(n, _)| n.as_str()).collect();
    let mut stale = vec![];
    for e in std::fs::read_dir(&dir).unwrap() {
        let p = e.unwrap().path();
        let stem = p.file_stem().unwrap().to_string_lossy().into_owned();
        if p.extension().is_none_or(|x| x != "txt") || !names.contains(&stem.as_str()) {
            stale.push(p.display().to_string());
        }
    }
    let failures = Mutex::new(vec![]);
    let queue = Mutex::new(entries.iter());
    std::thread::scope(|s| {
        for _ in 0..threads.max(1) {
            std::thread::Builder::new()
                .stack_size(256 << 20)
                .spawn_scoped(s, || loop {
                    let Some((name, path)) = queue.lock().unwrap().next() else {
                        break;
                    };
                    let result = catch_unwind(AssertUnwindSafe(|| {
                        let text = render(path);
                        assert!(!text.trim().is_empty(), "{name}: empty rendering");
                        if twice {
                            let again = render(path);
                            assert!(
                                text == again,
                                "{name}: two renderings differ (nondeterministic output)\n--- first\n{text}\n--- second\n{again}"
                            );
                        }
                        expect_file![format!("snapshots/{kind}/{name}.txt")].assert_eq(&text);
                    }));
                    if result.is_err() {
                        failures.lock().unwrap().push(name.clone());
                    }
                })
                .unwrap();
        }
    });
    let mut failures = failures.into_inner().unwrap();
    failures.sort();
    println!(
        "{kind}: {} snapshots checked in {:.1} s",
        entries.len(),
        t0.elapsed().as_secs_f64()
    );
    assert!(
        stale.is_empty(),
        "snapshot files without a corpus entry (delete them):\n{}",
        stale.join("\n")
    );
    assert!(
        failures.is_empty(),
        "{} {kind} snapshot(s) differ (diffs above; UPDATE_EXPECT=1 to accept): {}",
        failures.len(),
        failures.join(", ")
    );
}

fn threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get().min(4))
}

#[test]
fn gcl_listings() {
    let files = entries("tests/corpus/interp", false);
    assert!(files.len() >= 70, "interp corpus: {} files", files.len());
    check_all("gcl", files, true, 1, render_gcl);
}

#[test]
fn correlate_listings() {
    let pairs = entries("tests/corpus/correlate", true);
    assert!(pairs.len() >= 90, "correlate corpus: {} pairs", pairs.len());
    check_all("correlate", pairs, true, 1, render_correlate);
}

#[test]
fn delta_sections() {
    let pairs = entries("tests/corpus/correlate", true);
    assert!(pairs.len() >= 90, "correlate corpus: {} pairs", pairs.len());
    check_all("delta", pairs, false, threads(), render_delta);
}
