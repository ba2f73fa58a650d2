//! `dizy-fuzz`: soundness fuzzing of dizy on generated pairs of C programs.
//!
//! Takes a pair count, a seed and the `dizy` binary to test; gives a summary — the share of
//! pairs containing each C construct with the failures found among them, per mutation kind the
//! verdicts — whose last line is `N pairs: U unsound, W false witnesses, C crashes, T timeouts`,
//! exit status 1 when any of those (or nondeterminism, or an oracle error) is non-zero. Pipeline
//! per pair: `gen` writes a random program around the pair's main construct (pair i:
//! `gen::FEATURES[i % 24]`, so every run of a few dozen pairs covers them all), `mutate` derives
//! a second version, `check` runs dizy (subprocess, hard-killed after its `--timeout`) and the
//! native `oracle` (gcc with ASan and UBSan, both versions in one harness, each run in its own
//! process per input) and compares; a failing pair is shrunk by `minimize` and saved as a
//! regression (`<save>/<id>/{old,new}.c` plus a line of `<save>/manifest.csv`). Pairs are
//! independent (pair i uses a seed derived from the run seed and i), so results do not depend on
//! `--jobs`.

mod ast;
mod builtin;
mod check;
mod constructs;
mod gen;
mod minimize;
mod mutate;
mod oracle;

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use clap::Parser;

use ast::Program;
use check::{Config, PairResult};
use gen::{Gen, Rng};

#[derive(Parser)]
#[command(
    name = "dizy-fuzz",
    about = "Soundness fuzzing of `dizy diff` on generated C pairs, with gcc + UBSan as the oracle"
)]
struct Args {
    /// Number of generated pairs.
    #[arg(long, default_value_t = 100)]
    pairs: u64,
    /// Run seed (pair i uses a seed derived from it and i).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Worker threads (default: the number of cores).
    #[arg(long)]
    jobs: Option<usize>,
    /// dizy's --timeout per function, seconds; the process is killed 5 s after all have run out.
    #[arg(long, default_value_t = 10.0)]
    timeout: f64,
    /// The dizy binary under test (default: `dizy` next to this executable).
    #[arg(long)]
    dizy: Option<PathBuf>,
    /// Oracle inputs per pair (boundary, small and random values; witnesses come on top).
    #[arg(long, default_value_t = 120)]
    inputs: usize,
    /// Run dizy twice on every K-th pair and compare the reports (0: never).
    #[arg(long, default_value_t = 10)]
    determinism_every: u64,
    /// Where minimized failures are saved (`<dir>/<id>/{old,new}.c`, `<dir>/manifest.csv`).
    #[arg(long, default_value = "benchmarks/regressions")]
    save: PathBuf,
    /// Do not save failures.
    #[arg(long)]
    no_save: bool,
    /// Predicate calls allowed per minimization (0: do not minimize).
    #[arg(long, default_value_t = 120)]
    minimize_budget: usize,
    /// Failures minimized and saved per class (failure category and the pair's main
    /// construct); the others are only listed.
    #[arg(long, default_value_t = 1)]
    minimize_per_class: usize,
    /// Scratch directory (default: a fresh one under the system temp dir, removed at the end).
    #[arg(long)]
    work: Option<PathBuf>,
    /// Only run the pairs with these indices (repeatable), e.g. to replay a failure.
    #[arg(long = "only")]
    only: Vec<u64>,
    /// Print every pair's verdict.
    #[arg(long)]
    verbose: bool,
    /// Keep each pair's files (old.c, new.c, harness.c) in the work directory.
    #[arg(long)]
    keep: bool,
    /// Run the oracle only on pairs where dizy claims something (equivalent, unchanged,
    /// partially-equivalent, different): all soundness needs, about a third faster; the native
    /// difference figures then cover the checked pairs only.
    #[arg(long)]
    claims_only: bool,
    /// Check a hand-built pair instead of generated ones (every pair index gives it), to test
    /// the oracle: `termination` or `signed-zero` (see src/bin/dizy-fuzz/builtin.rs).
    #[arg(long, value_parser = clap::builder::PossibleValuesParser::new(builtin::NAMES))]
    builtin: Option<String>,
    /// The generator's version (see `gen::GENERATION`: 1 before `<ctype.h>` calls, …, 6
    /// before the loop schedule mutations, 7 before falling off the end, 8 before bit builtins
    /// and case ranges, 9 the current one); a seed of an earlier run gives the same pairs
    /// again with the generation it ran with
    #[arg(long, default_value_t = gen::GENERATION,
          value_parser = clap::value_parser!(u8).range(1..=gen::GENERATION as i64))]
    generation: u8,
}

/// The main construct of pair `i` for generator `generation`.
fn primary(i: u64, generation: u8) -> &'static str {
    let fs = gen::feature_list(generation);
    fs[(i % fs.len() as u64) as usize]
}

/// What the pair is about, for messages: its main construct or the built-in pair's name.
fn label(args: &Args, i: u64) -> String {
    args.builtin
        .clone()
        .unwrap_or_else(|| primary(i, args.generation).to_string())
}

/// The pair with index `i` of a run: both versions and the mutation kinds.
fn make_pair(
    run_seed: u64,
    i: u64,
    builtin: Option<&str>,
    generation: u8,
) -> (Program, Program, Vec<String>, u64) {
    let seed = gen::pair_seed(run_seed, i);
    if let Some((old, new)) = builtin.and_then(builtin::pair) {
        return (
            old,
            new,
            vec![builtin.unwrap_or_default().to_string()],
            seed,
        );
    }
    let mut rng = Rng::new(seed);
    let mut g = Gen::new(&mut rng);
    g.variant = (i / gen::feature_list(generation).len() as u64) as usize;
    g.generation = generation;
    let old = g.program(Some(primary(i, generation)));
    let (new, kinds) = mutate::mutate(&old, &mut rng, Some(primary(i, generation)), generation);
    (old, new, kinds, seed)
}

struct Done {
    index: u64,
    kinds: Vec<String>,
    constructs: BTreeSet<&'static str>,
    result: PairResult,
    saved: Option<String>,
}

fn main() {
    let args = Args::parse();
    let dizy = args.dizy.clone().unwrap_or_else(|| {
        std::env::current_exe()
            .ok()
            .and_then(|p| p.parent().map(|d| d.join("dizy")))
            .unwrap_or_else(|| PathBuf::from("dizy"))
    });
    if !dizy.exists() {
        eprintln!(
            "dizy-fuzz: {}: no such dizy binary (use --dizy)",
            dizy.display()
        );
        std::process::exit(2);
    }
    let dizy = dizy.canonicalize().unwrap_or(dizy);
    let cfg = Config {
        dizy,
        timeout: args.timeout,
        inputs: args.inputs,
        claims_only: args.claims_only,
    };
    let own_work = args.work.is_none();
    let work = args.work.clone().unwrap_or_else(|| {
        std::env::temp_dir().join(format!("dizy-fuzz-{}-{}", std::process::id(), args.seed))
    });
    let jobs = args
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(2, |n| n.get()));
    let indices: Vec<u64> = if args.only.is_empty() {
        (0..args.pairs).collect()
    } else {
        args.only.clone()
    };
    let next = AtomicU64::new(0);
    let done: Mutex<Vec<Done>> = Mutex::new(vec![]);
    let save_lock = Mutex::new(());
    // failures minimized so far per class (category, main construct)
    let classes: Mutex<BTreeMap<(String, String), usize>> = Mutex::new(BTreeMap::new());
    let start = std::time::Instant::now();
    std::thread::scope(|s| {
        for _ in 0..jobs.max(1) {
            s.spawn(|| loop {
                let k = next.fetch_add(1, Ordering::SeqCst) as usize;
                let Some(&i) = indices.get(k) else { break };
                let (old, new, kinds, seed) =
                    make_pair(args.seed, i, args.builtin.as_deref(), args.generation);
                let dir = work.join(format!("p{i}"));
                let twice = args.determinism_every > 0 && i % args.determinism_every == 0;
                let result = check::check_pair(&cfg, &old, &new, &dir, seed, &[], twice);
                let constructs = constructs::of_pair(&old, &new);
                let mut saved = None;
                if !result.failures.is_empty() {
                    for f in &result.failures {
                        println!(
                            "pair {i} [{}; {}]: {}",
                            label(&args, i),
                            kinds.join("+"),
                            f.describe()
                        );
                    }
                    let class = (result.failures[0].class(), label(&args, i));
                    let fresh = {
                        let mut c = classes.lock().unwrap();
                        let n = c.entry(class).or_insert(0);
                        *n += 1;
                        *n <= args.minimize_per_class
                    };
                    if fresh && !args.no_save && args.minimize_budget > 0 {
                        let _g = save_lock.lock();
                        saved = shrink_and_save(&cfg, &args, &work, i, &old, &new, seed, &result);
                    }
                }
                if args.verbose {
                    println!(
                        "pair {i} [{}]: {} in {} ms (oracle: {}, {} valid inputs)",
                        kinds.join("+"),
                        result.verdict,
                        result.dizy_ms,
                        if result.oracle_skipped {
                            "not run"
                        } else if result.truth_differs {
                            "different"
                        } else {
                            "no difference"
                        },
                        result.valid_inputs
                    );
                }
                let mut d = done.lock().unwrap();
                d.push(Done {
                    index: i,
                    kinds,
                    constructs,
                    result,
                    saved,
                });
                if d.len().is_multiple_of(500) {
                    eprintln!(
                        "dizy-fuzz: {} pairs done ({:.0} s)",
                        d.len(),
                        start.elapsed().as_secs_f64()
                    );
                }
                if !args.keep {
                    let _ = std::fs::remove_dir_all(&dir);
                }
            });
        }
    });
    if own_work && !args.keep {
        let _ = std::fs::remove_dir_all(&work);
    }
    let mut done = done.into_inner().unwrap();
    done.sort_by_key(|d| d.index);
    let code = summarize(&done, start.elapsed().as_secs_f64());
    let _ = std::io::stdout().flush();
    std::process::exit(code);
}

/// Minimize a failing pair and save it; gives the regression id.
#[allow(clippy::too_many_arguments)]
fn shrink_and_save(
    cfg: &Config,
    args: &Args,
    work: &Path,
    i: u64,
    old: &Program,
    new: &Program,
    seed: u64,
    result: &PairResult,
) -> Option<String> {
    let first = &result.failures[0];
    let cat = first.category();
    // the failure must keep its kind while shrinking, not only its category (a false witness
    // showing -0.0 against 0.0 must not become one with a wrongly rounded claim)
    let class = first.class();
    if cat == "oracle" {
        return None; // a fuzzer bug, not a dizy regression
    }
    let extra: Vec<oracle::Input> = result.diff_input.iter().cloned().collect();
    let dir = work.join(format!("min{i}"));
    let mut fails = |o: &Program, n: &Program| {
        // a candidate must stay valid C (else dizy's complaint would pass for a crash)
        if check::write_pair(&dir, o, n).is_err() || oracle::compile(&dir, o, n).is_err() {
            return false;
        }
        let r = check::check_pair(cfg, o, n, &dir, seed, &extra, cat == "nondeterministic");
        r.failures.iter().any(|f| f.class() == class)
    };
    // a hang costs tens of seconds per try: shrink it much less
    let budget = if cat == "hang" {
        args.minimize_budget / 10
    } else {
        args.minimize_budget
    };
    let (o, n) = minimize::minimize(old, new, &mut fails, budget);
    let last = check::check_pair(cfg, &o, &n, &dir, seed, &extra, cat == "nondeterministic");
    let id = format!("fuzz_s{}_p{i}", args.seed);
    let out = args.save.join(&id);
    let res = (|| -> std::io::Result<()> {
        std::fs::create_dir_all(&out)?;
        std::fs::write(out.join("old.c"), o.print())?;
        std::fs::write(out.join("new.c"), n.print())?;
        let manifest = args.save.join("manifest.csv");
        let fresh = !manifest.exists();
        let mut m = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&manifest)?;
        if fresh {
            writeln!(m, "id,old,new,function,expected,note")?;
        }
        let expected = if last.truth_differs {
            "different"
        } else {
            "equivalent"
        };
        let what = last
            .failures
            .iter()
            .find(|f| f.class() == class)
            .unwrap_or(first)
            .describe();
        let input = last
            .diff_input
            .as_ref()
            .filter(|_| cat != "unsound")
            .map_or(String::new(), |v| {
                format!(
                    "; native difference on {}: {}",
                    oracle::show_input(&o, v),
                    last.diff_obs.clone().unwrap_or_default()
                )
            });
        let note = format!(
            "dizy-fuzz --seed {} --only {i}: dizy said {}; {what}{input}",
            args.seed, last.verdict
        )
        .replace('"', "'");
        writeln!(
            m,
            "{id},{id}/old.c,{id}/new.c,{},{expected},\"{note}\"",
            ast::MAIN
        )
    })();
    let _ = std::fs::remove_dir_all(&dir);
    match res {
        Ok(()) => {
            println!("pair {i}: minimized and saved as {}", out.display());
            Some(id)
        }
        Err(e) => {
            eprintln!("dizy-fuzz: cannot save {}: {e}", out.display());
            None
        }
    }
}

fn pct(a: usize, b: usize) -> String {
    if b == 0 {
        "-".into()
    } else {
        format!("{:.1}%", 100.0 * a as f64 / b as f64)
    }
}

/// Print the statistics and the summary line; gives the exit status.
fn summarize(done: &[Done], secs: f64) -> i32 {
    let n = done.len();
    let count = |cat: &str| {
        done.iter()
            .filter(|d| d.result.failures.iter().any(|f| f.category() == cat))
            .count()
    };
    let verdict = |v: &str| done.iter().filter(|d| d.result.verdict == v).count();
    let truth = done.iter().filter(|d| d.result.truth_differs).count();
    let skipped = done.iter().filter(|d| d.result.oracle_skipped).count();
    let no_diff = n - skipped - truth;
    let eq = verdict("equivalent") + verdict("unchanged");
    let eq_nodiff = done
        .iter()
        .filter(|d| {
            !d.result.truth_differs
                && matches!(d.result.verdict.as_str(), "equivalent" | "unchanged")
        })
        .count();
    let diff_truth = done
        .iter()
        .filter(|d| d.result.truth_differs && d.result.verdict == "different")
        .count();
    let inputs: usize = done.iter().map(|d| d.result.valid_inputs).sum();
    let unchecked = done.iter().filter(|d| d.result.unchecked_witness).count();
    let ms: u128 = done.iter().map(|d| d.result.dizy_ms).sum();
    println!();
    println!("dizy-fuzz: {n} pairs in {secs:.0} s; {} UB-free oracle inputs per pair on average; dizy {:.0} ms per pair on average", inputs / n.max(1), ms as f64 / n.max(1) as f64);
    println!(
        "verdicts on f: equivalent {} ({}), unchanged {} ({}), different with validated witness {} ({}), possibly-different {} ({}), timeout {} ({})",
        verdict("equivalent"),
        pct(verdict("equivalent"), n),
        verdict("unchanged"),
        pct(verdict("unchanged"), n),
        verdict("different"),
        pct(verdict("different"), n),
        verdict("possibly-different"),
        pct(verdict("possibly-different"), n),
        verdict("timeout"),
        pct(verdict("timeout"), n)
    );
    println!(
        "oracle: {truth} pairs differ natively, {no_diff} show no difference; proved equivalent or unchanged: {eq} ({} of the pairs without a native difference); witnesses: {diff_truth} ({} of the natively different pairs)",
        pct(eq_nodiff, no_diff),
        pct(diff_truth, truth)
    );
    if unchecked > 0 {
        println!("witnesses the harness cannot rebuild exactly (buffers beyond a parameter's capacity, bytes after a string's end, structs, globals set before the call), so not checked: {unchecked}");
    }
    if skipped > 0 {
        println!("oracle not run on {skipped} pairs without a claim (--claims-only): native figures cover the other {}", n - skipped);
    }
    let mut per: BTreeMap<String, [usize; 5]> = BTreeMap::new();
    for d in done {
        let kinds = if d.kinds.is_empty() {
            vec!["none".to_string()]
        } else {
            d.kinds.clone()
        };
        for k in kinds {
            let e = per.entry(k).or_default();
            e[0] += 1;
            match d.result.verdict.as_str() {
                "equivalent" | "unchanged" => e[1] += 1,
                "different" => e[2] += 1,
                "possibly-different" => e[3] += 1,
                _ => {}
            }
            e[4] += usize::from(d.result.truth_differs);
        }
    }
    println!("per mutation kind (a pair with two mutations counts for both):");
    println!(
        "  {:<16} {:>6} {:>8} {:>8} {:>8} {:>12}",
        "kind", "pairs", "equiv", "witness", "possibly", "native diff"
    );
    for (k, e) in &per {
        let class = if mutate::is_preserving(k) {
            " (preserving)"
        } else {
            ""
        };
        println!(
            "  {:<16} {:>6} {:>8} {:>8} {:>8} {:>12}{class}",
            k,
            e[0],
            pct(e[1], e[0]),
            pct(e[2], e[0]),
            pct(e[3], e[0]),
            pct(e[4], e[0])
        );
    }
    println!("constructs (share of pairs containing each, in either version):");
    println!(
        "  {:<20} {:>6} {:>8} {:>8} {:>15} {:>12}",
        "construct", "pairs", "% pairs", "unsound", "false witness", "native diff"
    );
    let has_cat = |d: &Done, cat: &str| d.result.failures.iter().any(|f| f.category() == cat);
    for c in constructs::CONSTRUCTS {
        let with: Vec<&Done> = done.iter().filter(|d| d.constructs.contains(c)).collect();
        println!(
            "  {:<20} {:>6} {:>8} {:>8} {:>15} {:>12}",
            c,
            with.len(),
            pct(with.len(), n),
            with.iter().filter(|d| has_cat(d, "unsound")).count(),
            with.iter().filter(|d| has_cat(d, "false-witness")).count(),
            with.iter().filter(|d| d.result.truth_differs).count()
        );
    }
    let term = done.iter().filter(|d| d.result.hang_inputs > 0).count();
    println!("pairs where one version does not terminate on some input: {term}");
    let failing: Vec<&Done> = done
        .iter()
        .filter(|d| !d.result.failures.is_empty())
        .collect();
    if !failing.is_empty() {
        println!("failures:");
        for d in &failing {
            for f in &d.result.failures {
                println!(
                    "  pair {} [{}]: {}{}",
                    d.index,
                    d.kinds.join("+"),
                    f.describe(),
                    d.saved
                        .as_ref()
                        .map_or(String::new(), |s| format!(" (saved as {s})"))
                );
            }
        }
    }
    let (u, w, c, t) = (
        count("unsound"),
        count("false-witness"),
        count("crash"),
        count("hang"),
    );
    let late: Vec<&Done> = done.iter().filter(|d| d.result.late).collect();
    let slowest = done.iter().map(|d| d.result.dizy_ms).max().unwrap_or(0);
    println!(
        "dizy runs finishing over 1 s past their --timeout: {} (slowest run {slowest} ms)",
        late.len()
    );
    if !late.is_empty() {
        // Indices, so a late run can be replayed with --only and --keep.
        let list: Vec<String> = late
            .iter()
            .map(|d| format!("{} ({} ms)", d.index, d.result.dizy_ms))
            .collect();
        println!("  late pairs: {}", list.join(", "));
    }
    let (nd, oe) = (count("nondeterministic"), count("oracle"));
    println!("nondeterministic pairs: {nd}, oracle errors: {oe}");
    // Pairs the oracle could not check are no evidence: the last line says so.
    let unchecked = match (oe, nd) {
        (0, 0) => String::new(),
        _ => format!(", {oe} oracle errors, {nd} nondeterministic"),
    };
    println!("{n} pairs: {u} unsound, {w} false witnesses, {c} crashes, {t} timeouts{unchecked}");
    i32::from(u + w + c + t + nd + oe > 0)
}
