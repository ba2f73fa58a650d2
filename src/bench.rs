//! `dizy bench`: run the pipeline over a manifest of program pairs and measure it.
//!
//! Takes a manifest CSV (`id,old,new,function,expected,note`, paths relative to the manifest's
//! directory) and analysis settings; gives one CSV row per pair (verdict, whether it agrees with
//! `expected`, time, sub-states, size of Δ) and a summary. Pairs run in parallel on `--jobs`
//! threads through the library (no subprocess). The PPL domains (polyhedra, octagon) serialise on
//! one process-wide lock, so threads only overlap parsing, correlation and the interval domain; to
//! use several cores for PPL, run several `dizy bench` processes.
//!
//! A second mode, `--mode correlate`, times only the front half: parsing both files and building
//! the correlating program (median of `--runs` runs), for the < 1 s requirement on large functions.
//!
//! Verdicts are judged against `expected`: on a `different` pair, `equivalent` (or `unchanged`) is
//! **unsound**; on an `equivalent` pair, `different` is a false witness and `possibly-different` a
//! precision loss. `dizy bench` exits 1 when any verdict is unsound or a false witness.

use std::fmt::Write as _;
use std::fs;
use std::io::Write as _;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::diag::{Error, Result};
use crate::diff::{self, DiffOptions, Verdict};

/// Command-line arguments of `dizy bench`.
#[derive(clap::Args, Clone, Debug)]
pub struct Args {
    /// Manifest CSV: id,old,new,function,expected,note (paths relative to its directory)
    pub manifest: PathBuf,
    /// Worker threads (default: available cores)
    #[arg(long, short = 'j')]
    pub jobs: Option<usize>,
    /// Write one CSV row per pair to this file
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Append one CSV summary row (settings and totals) to this file; the header is written
    /// when the file is new or empty
    #[arg(long)]
    pub summary: Option<PathBuf>,
    /// `diff`: run the whole pipeline; `correlate`: time parsing and the correlating program only
    #[arg(long, default_value = "diff", value_parser = ["diff", "correlate"])]
    pub mode: String,
    /// Runs per pair in `correlate` mode (the median is reported)
    #[arg(long, default_value_t = 7)]
    pub runs: usize,
    #[command(flatten)]
    pub analysis: crate::options::AnalysisArgs,
    /// Do not print one line per pair (the summary is still printed)
    #[arg(long, short = 'q')]
    pub quiet: bool,
}

/// The verdict a pair should get.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Expected {
    Equivalent,
    Different,
}

impl Expected {
    pub fn as_str(self) -> &'static str {
        match self {
            Expected::Equivalent => "equivalent",
            Expected::Different => "different",
        }
    }
}

/// One row of a manifest.
#[derive(Clone, Debug)]
pub struct Pair {
    pub id: String,
    pub old: PathBuf,
    pub new: PathBuf,
    pub function: String,
    pub expected: Expected,
    pub note: String,
}

/// How a verdict compares with the expected one.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Judgement {
    /// Agrees (`equivalent`/`unchanged` on an equivalent pair, `different`/`possibly-different`
    /// on a different one).
    Correct,
    /// `possibly-different` on an equivalent pair: a precision loss.
    Imprecise,
    /// `equivalent` or `unchanged` on a different pair.
    Unsound,
    /// `different` on an equivalent pair: a witness that cannot be right.
    FalseWitness,
    Timeout,
    /// Error, unsupported, or a function missing from one side.
    Error,
}

impl Judgement {
    pub fn as_str(self) -> &'static str {
        match self {
            Judgement::Correct => "yes",
            Judgement::Imprecise => "imprecise",
            Judgement::Unsound => "UNSOUND",
            Judgement::FalseWitness => "FALSE-WITNESS",
            Judgement::Timeout => "timeout",
            Judgement::Error => "error",
        }
    }
}

pub fn judge(expected: Expected, verdict: Verdict) -> Judgement {
    use Verdict as V;
    match (expected, verdict) {
        (_, V::Timeout) => Judgement::Timeout,
        (Expected::Equivalent, V::Equivalent | V::Unchanged) => Judgement::Correct,
        (Expected::Equivalent, V::PossiblyDifferent | V::PartiallyEquivalent) => {
            Judgement::Imprecise
        }
        (Expected::Equivalent, V::Different) => Judgement::FalseWitness,
        (Expected::Different, V::Different | V::PossiblyDifferent) => Judgement::Correct,
        // A manifest's difference is one of results unless it says otherwise: claiming equal
        // results where both terminate is then wrong too.
        (Expected::Different, V::Equivalent | V::Unchanged | V::PartiallyEquivalent) => {
            Judgement::Unsound
        }
        (_, V::Unsupported | V::Error | V::Added | V::Removed) => Judgement::Error,
    }
}

/// The outcome of `dizy diff` on one pair.
#[derive(Clone, Debug)]
pub struct Outcome {
    pub verdict: Verdict,
    pub judgement: Judgement,
    /// Wall time of the whole pipeline (parsing included).
    pub wall: Duration,
    /// The function's own time as the report gives it (correlation, analysis, Δ, witness search).
    pub function_ms: u128,
    pub max_substates: usize,
    pub diff_points: usize,
    /// Differing sub-states reported over all diff points (as listed in the report).
    pub differing_states: usize,
    /// Entries left out of the report (beyond its per-point limit).
    pub omitted: usize,
    pub error: Option<String>,
}

// ---------------------------------------------------------------------------------- CSV

/// CSV records, each with the line it starts on.
pub type Records = Vec<(u32, Vec<String>)>;

/// Split CSV text into records (RFC 4180: quoted fields may hold commas, doubled quotes and
/// newlines). An error gives the line and the problem.
pub fn parse_csv(text: &str) -> std::result::Result<Records, (u32, String)> {
    let mut out = vec![];
    let mut line = 1u32;
    let mut chars = text.chars().peekable();
    while chars.peek().is_some() {
        let start = line;
        let mut rec = vec![];
        let mut field = String::new();
        let mut quoted = false;
        let mut at_start = true;
        loop {
            let Some(c) = chars.next() else {
                if quoted {
                    return Err((start, "unterminated quoted field".into()));
                }
                rec.push(std::mem::take(&mut field));
                break;
            };
            if quoted {
                match c {
                    '"' if chars.peek() == Some(&'"') => {
                        chars.next();
                        field.push('"');
                    }
                    '"' => quoted = false,
                    '\n' => {
                        line += 1;
                        field.push(c);
                    }
                    _ => field.push(c),
                }
                continue;
            }
            match c {
                '"' if at_start => {
                    quoted = true;
                    at_start = false;
                }
                ',' => {
                    rec.push(std::mem::take(&mut field));
                    at_start = true;
                }
                '\r' if chars.peek() == Some(&'\n') => {}
                '\n' => {
                    line += 1;
                    rec.push(std::mem::take(&mut field));
                    break;
                }
                _ => {
                    field.push(c);
                    at_start = false;
                }
            }
        }
        if !(rec.len() == 1 && rec[0].trim().is_empty()) {
            out.push((start, rec));
        }
    }
    Ok(out)
}

/// A CSV field, quoted when it needs to be.
pub fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

fn csv_line(fields: &[String]) -> String {
    let mut s = fields
        .iter()
        .map(|f| csv_field(f))
        .collect::<Vec<_>>()
        .join(",");
    s.push('\n');
    s
}

/// Read a manifest; paths are resolved against the manifest's directory.
pub fn read_manifest(path: &Path) -> Result<Vec<Pair>> {
    let file = path.display().to_string();
    let text = fs::read_to_string(path).map_err(|e| Error::in_file(&file, e.to_string()))?;
    let recs = parse_csv(&text).map_err(|(l, m)| Error::at(&file, l, m))?;
    let Some((_, header)) = recs.first() else {
        return Err(Error::in_file(&file, "empty manifest"));
    };
    let col = |name: &str| {
        header
            .iter()
            .position(|h| h.trim() == name)
            .ok_or_else(|| Error::at(&file, 1, format!("manifest header has no `{name}` column")))
    };
    let (ci, co, cn, cf, ce) = (
        col("id")?,
        col("old")?,
        col("new")?,
        col("function")?,
        col("expected")?,
    );
    let cnote = col("note").ok();
    let dir = path.parent().unwrap_or(Path::new("."));
    let mut pairs = vec![];
    for (line, r) in &recs[1..] {
        let get = |c: usize| -> Result<String> {
            r.get(c)
                .map(|s| s.trim().to_string())
                .ok_or_else(|| Error::at(&file, *line, format!("expected {} fields", header.len())))
        };
        let expected = match get(ce)?.as_str() {
            "equivalent" => Expected::Equivalent,
            "different" => Expected::Different,
            other => {
                return Err(Error::at(
                    &file,
                    *line,
                    format!("expected must be `equivalent` or `different`, not `{other}`"),
                ))
            }
        };
        let id = get(ci)?;
        if pairs.iter().any(|p: &Pair| p.id == id) {
            return Err(Error::at(&file, *line, format!("duplicate id `{id}`")));
        }
        pairs.push(Pair {
            id,
            old: dir.join(get(co)?),
            new: dir.join(get(cn)?),
            function: get(cf)?,
            expected,
            note: cnote.and_then(|c| r.get(c).cloned()).unwrap_or_default(),
        });
    }
    Ok(pairs)
}

// ---------------------------------------------------------------------------------- running

/// The `DiffOptions` of `dizy diff` for these settings.
pub fn diff_options(a: &Args) -> Result<DiffOptions> {
    Ok(a.analysis.diff_options())
}

fn panic_message(p: &(dyn std::any::Any + Send)) -> String {
    p.downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| p.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "panic".into())
}

/// Run `dizy diff OLD NEW --function F` on one pair.
pub fn run_pair(p: &Pair, opts: &DiffOptions) -> Outcome {
    let mut opts = opts.clone();
    opts.functions = vec![p.function.clone()];
    let start = Instant::now();
    let r = catch_unwind(AssertUnwindSafe(|| diff::diff_files(&p.old, &p.new, &opts)));
    let wall = start.elapsed();
    let failed = |verdict: Verdict, msg: String| Outcome {
        verdict,
        judgement: judge(p.expected, verdict),
        wall,
        function_ms: 0,
        max_substates: 0,
        diff_points: 0,
        differing_states: 0,
        omitted: 0,
        error: Some(msg),
    };
    let report = match r {
        Ok(Ok(r)) => r,
        Ok(Err(e)) => return failed(Verdict::Error, e.to_string()),
        Err(panic) => {
            return failed(
                Verdict::Error,
                format!("panic: {}", panic_message(panic.as_ref())),
            )
        }
    };
    let Some(f) = report.functions.iter().find(|f| f.name == p.function) else {
        return failed(
            Verdict::Error,
            "the report does not list the function".into(),
        );
    };
    let (mut diff_points, mut differing, mut omitted) = (0, 0, 0);
    if let Some(d) = &f.delta {
        diff_points = d.points.len();
        for pt in &d.points {
            differing += pt.different.len();
            omitted += pt.omitted;
        }
    }
    Outcome {
        verdict: f.verdict,
        judgement: judge(p.expected, f.verdict),
        wall,
        function_ms: f.time_ms,
        max_substates: f.max_substates,
        diff_points,
        differing_states: differing,
        omitted,
        error: f.error.clone(),
    }
}

/// Apply `work` to every item on `jobs` threads (large stacks, as the CLI uses); results keep
/// the input order.
pub fn parallel_map<T: Sync, R: Send>(
    items: &[T],
    jobs: usize,
    work: impl Fn(usize, &T) -> R + Sync,
) -> Vec<R> {
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<R>>> = Mutex::new((0..items.len()).map(|_| None).collect());
    let jobs = jobs.clamp(1, items.len().max(1));
    std::thread::scope(|s| {
        let mut handles = vec![];
        for _ in 0..jobs {
            let h = std::thread::Builder::new()
                .stack_size(1 << 30)
                .spawn_scoped(s, || loop {
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    if i >= items.len() {
                        break;
                    }
                    let r = work(i, &items[i]);
                    results.lock().unwrap_or_else(|e| e.into_inner())[i] = Some(r);
                })
                .expect("spawn bench worker");
            handles.push(h);
        }
        for h in handles {
            let _ = h.join();
        }
    });
    results
        .into_inner()
        .unwrap_or_else(|e| e.into_inner())
        .into_iter()
        .map(|r| r.expect("every item was processed"))
        .collect()
}

/// Totals over a manifest run.
#[derive(Clone, Debug, Default)]
pub struct Summary {
    pub pairs: usize,
    pub expected_equivalent: usize,
    pub proved_equivalent: usize,
    pub expected_different: usize,
    /// `different` or `possibly-different` on a different pair.
    pub reported_different: usize,
    /// Of which with the verdict `different` (a validated witness).
    pub witnessed: usize,
    /// Differing sub-states over the different pairs.
    pub differing_states: usize,
    pub imprecise: usize,
    pub unsound: usize,
    pub false_witness: usize,
    pub timeouts: usize,
    pub errors: usize,
    /// Pairs whose wall time exceeded the timeout by more than 10 % + 0.5 s.
    pub overruns: usize,
    pub max_substates: usize,
    pub sum_ms: f64,
    pub max_ms: f64,
    pub max_id: String,
}

pub fn summarize(pairs: &[Pair], outs: &[Outcome], timeout: Option<Duration>) -> Summary {
    let mut s = Summary {
        pairs: pairs.len(),
        ..Default::default()
    };
    for (p, o) in pairs.iter().zip(outs) {
        match p.expected {
            Expected::Equivalent => s.expected_equivalent += 1,
            Expected::Different => {
                s.expected_different += 1;
                s.differing_states += o.differing_states;
            }
        }
        match o.judgement {
            Judgement::Correct if p.expected == Expected::Equivalent => s.proved_equivalent += 1,
            Judgement::Correct => {
                s.reported_different += 1;
                if o.verdict == Verdict::Different {
                    s.witnessed += 1;
                }
            }
            Judgement::Imprecise => s.imprecise += 1,
            Judgement::Unsound => s.unsound += 1,
            Judgement::FalseWitness => s.false_witness += 1,
            Judgement::Timeout => s.timeouts += 1,
            Judgement::Error => s.errors += 1,
        }
        let ms = o.wall.as_secs_f64() * 1000.0;
        if let Some(t) = timeout {
            if ms > t.as_secs_f64() * 1100.0 + 500.0 {
                s.overruns += 1;
            }
        }
        s.max_substates = s.max_substates.max(o.max_substates);
        s.sum_ms += ms;
        if ms > s.max_ms {
            s.max_ms = ms;
            s.max_id = p.id.clone();
        }
    }
    s
}

pub const ROW_HEADER: &str = "id,function,expected,verdict,correct,time_ms,function_ms,max_substates,diff_points,differing_states,omitted,domain,canon,canon_point,timeout_s,witness_search,error";

pub fn row_csv(p: &Pair, o: &Outcome, a: &Args) -> String {
    csv_line(&[
        p.id.clone(),
        p.function.clone(),
        p.expected.as_str().into(),
        o.verdict.as_str().into(),
        o.judgement.as_str().into(),
        format!("{:.1}", o.wall.as_secs_f64() * 1000.0),
        o.function_ms.to_string(),
        o.max_substates.to_string(),
        o.diff_points.to_string(),
        o.differing_states.to_string(),
        o.omitted.to_string(),
        crate::options::AnalysisArgs::name(&a.analysis.domain),
        crate::options::AnalysisArgs::name(&a.analysis.canon),
        crate::options::AnalysisArgs::name(&a.analysis.canon_point),
        a.analysis.timeout.to_string(),
        if a.analysis.no_witness { "no" } else { "yes" }.into(),
        o.error.clone().unwrap_or_default(),
    ])
}

pub const SUMMARY_HEADER: &str = "manifest,domain,canon,canon_point,timeout_s,max_substates,witness_search,jobs,pairs,expected_equivalent,proved_equivalent,expected_different,reported_different,witnessed,differing_states,imprecise,unsound,false_witness,timeouts,errors,overruns,max_substates_seen,sum_ms,wall_ms,max_ms,max_id";

pub fn summary_csv(a: &Args, jobs: usize, s: &Summary, wall: Duration) -> String {
    csv_line(&[
        a.manifest.display().to_string(),
        crate::options::AnalysisArgs::name(&a.analysis.domain),
        crate::options::AnalysisArgs::name(&a.analysis.canon),
        crate::options::AnalysisArgs::name(&a.analysis.canon_point),
        a.analysis.timeout.to_string(),
        a.analysis.max_substates.to_string(),
        if a.analysis.no_witness { "no" } else { "yes" }.into(),
        jobs.to_string(),
        s.pairs.to_string(),
        s.expected_equivalent.to_string(),
        s.proved_equivalent.to_string(),
        s.expected_different.to_string(),
        s.reported_different.to_string(),
        s.witnessed.to_string(),
        s.differing_states.to_string(),
        s.imprecise.to_string(),
        s.unsound.to_string(),
        s.false_witness.to_string(),
        s.timeouts.to_string(),
        s.errors.to_string(),
        s.overruns.to_string(),
        s.max_substates.to_string(),
        format!("{:.1}", s.sum_ms),
        format!("{:.1}", wall.as_secs_f64() * 1000.0),
        format!("{:.1}", s.max_ms),
        s.max_id.clone(),
    ])
}

pub fn summary_text(a: &Args, jobs: usize, s: &Summary, wall: Duration) -> String {
    let mut t = String::new();
    let _ = writeln!(
        t,
        "dizy bench {}: {} pairs; domain {}, canonization {} at {} points, timeout {} s{}, {} job{}",
        a.manifest.display(),
        s.pairs,
        crate::options::AnalysisArgs::name(&a.analysis.domain),
        crate::options::AnalysisArgs::name(&a.analysis.canon),
        crate::options::AnalysisArgs::name(&a.analysis.canon_point),
        a.analysis.timeout,
        if a.analysis.no_witness { ", no witness search" } else { "" },
        jobs,
        if jobs == 1 { "" } else { "s" }
    );
    let _ = writeln!(
        t,
        "  proved equivalent:  {} / {} expected equivalent ({} imprecise)",
        s.proved_equivalent, s.expected_equivalent, s.imprecise
    );
    let _ = writeln!(
        t,
        "  reported different: {} / {} expected different ({} with a witness, {} differing states)",
        s.reported_different, s.expected_different, s.witnessed, s.differing_states
    );
    let _ = writeln!(
        t,
        "  unsound:            {}{}",
        s.unsound,
        if s.false_witness > 0 {
            format!(" (and {} false witnesses)", s.false_witness)
        } else {
            String::new()
        }
    );
    let _ = writeln!(
        t,
        "  timeouts:           {}{}",
        s.timeouts,
        if s.overruns > 0 {
            format!(" ({} pairs overran the timeout)", s.overruns)
        } else {
            String::new()
        }
    );
    let _ = writeln!(t, "  errors:             {}", s.errors);
    let _ = writeln!(
        t,
        "  time:               {:.2} s summed over pairs, {:.2} s wall; slowest {} ({:.0} ms); max sub-states {}",
        s.sum_ms / 1000.0,
        wall.as_secs_f64(),
        s.max_id,
        s.max_ms,
        s.max_substates
    );
    t
}

fn write_file(path: &Path, text: &str) -> Result<()> {
    if let Some(d) = path.parent() {
        if !d.as_os_str().is_empty() {
            fs::create_dir_all(d)
                .map_err(|e| Error::in_file(d.display().to_string(), e.to_string()))?;
        }
    }
    fs::write(path, text).map_err(|e| Error::in_file(path.display().to_string(), e.to_string()))
}

fn append_file(path: &Path, header: &str, line: &str) -> Result<()> {
    let err = |e: std::io::Error| Error::in_file(path.display().to_string(), e.to_string());
    if let Some(d) = path.parent() {
        if !d.as_os_str().is_empty() {
            fs::create_dir_all(d).map_err(err)?;
        }
    }
    let fresh = fs::metadata(path).map(|m| m.len() == 0).unwrap_or(true);
    let mut f = fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(err)?;
    let mut text = String::new();
    if fresh {
        text.push_str(header);
        text.push('\n');
    }
    text.push_str(line);
    f.write_all(text.as_bytes()).map_err(err)
}

/// Print a line on stdout; a closed pipe (`dizy bench … | head`) is not an error.
fn say(line: String) {
    let mut so = std::io::stdout().lock();
    let _ = writeln!(so, "{line}").and_then(|_| so.flush());
}

fn default_jobs() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

// ---------------------------------------------------------------------------------- correlate mode

/// Timings of the front half of the pipeline on one pair.
#[derive(Clone, Debug)]
pub struct CorrelateTiming {
    pub old_lines: usize,
    pub new_lines: usize,
    pub product_instrs: usize,
    pub matched: usize,
    pub diff_points: usize,
    /// Per run: parsing both files to GCL, and building the correlating program.
    pub parse: Vec<Duration>,
    pub correlate: Vec<Duration>,
}

pub fn time_correlate(p: &Pair, runs: usize) -> Result<CorrelateTiming> {
    let fopts = crate::frontend::Options::default();
    let copts = crate::correlate::Options::default();
    let lines = |f: &Path| {
        fs::read_to_string(f)
            .map(|t| t.lines().count())
            .map_err(|e| Error::in_file(f.display().to_string(), e.to_string()))
    };
    let mut t = CorrelateTiming {
        old_lines: lines(&p.old)?,
        new_lines: lines(&p.new)?,
        product_instrs: 0,
        matched: 0,
        diff_points: 0,
        parse: vec![],
        correlate: vec![],
    };
    for _ in 0..runs.max(1) {
        let t0 = Instant::now();
        let po = crate::load_gcl(&p.old, &fopts)?;
        let pn = crate::load_gcl(&p.new, &fopts)?;
        t.parse.push(t0.elapsed());
        let t1 = Instant::now();
        let c = crate::correlate::correlate(&po, &pn, &p.function, &copts)?;
        t.correlate.push(t1.elapsed());
        t.product_instrs = c.product().instrs.len();
        t.matched = c.converge.len();
        t.diff_points = c.diff_points.len();
    }
    Ok(t)
}

fn median(v: &[Duration]) -> Duration {
    let mut v = v.to_vec();
    v.sort();
    v.get(v.len() / 2).copied().unwrap_or_default()
}

fn ms(d: Duration) -> String {
    format!("{:.2}", d.as_secs_f64() * 1000.0)
}

pub const CORRELATE_HEADER: &str = "id,function,old_lines,new_lines,product_instrs,matched,diff_points,runs,parse_ms_median,correlate_ms_median,correlate_ms_min,correlate_ms_max,total_ms_median,error";

fn run_correlate_mode(a: &Args, pairs: &[Pair]) -> Result<u8> {
    // Sequential on purpose: timings should not compete for cores.
    let mut csv = format!("{CORRELATE_HEADER}\n");
    let mut status = 0;
    for p in pairs {
        match time_correlate(p, a.runs) {
            Ok(t) => {
                let total: Vec<Duration> = t
                    .parse
                    .iter()
                    .zip(&t.correlate)
                    .map(|(x, y)| *x + *y)
                    .collect();
                let (cmin, cmax) = (
                    t.correlate.iter().min().copied().unwrap_or_default(),
                    t.correlate.iter().max().copied().unwrap_or_default(),
                );
                if !a.quiet {
                    say(format!(
                        "{:<28} {:>5}/{:<5} lines  {:>6} product instructions  parse {:>8} ms  correlate {:>8} ms (median of {})",
                        p.id,
                        t.old_lines,
                        t.new_lines,
                        t.product_instrs,
                        ms(median(&t.parse)),
                        ms(median(&t.correlate)),
                        t.correlate.len()
                    ));
                }
                csv.push_str(&csv_line(&[
                    p.id.clone(),
                    p.function.clone(),
                    t.old_lines.to_string(),
                    t.new_lines.to_string(),
                    t.product_instrs.to_string(),
                    t.matched.to_string(),
                    t.diff_points.to_string(),
                    t.correlate.len().to_string(),
                    ms(median(&t.parse)),
                    ms(median(&t.correlate)),
                    ms(cmin),
                    ms(cmax),
                    ms(median(&total)),
                    String::new(),
                ]));
            }
            Err(e) => {
                eprintln!("dizy: {}: {e}", p.id);
                status = 2;
                let mut f = vec![p.id.clone(), p.function.clone()];
                f.extend((0..11).map(|_| String::new()));
                f.push(e.to_string());
                csv.push_str(&csv_line(&f));
            }
        }
    }
    if let Some(out) = &a.out {
        write_file(out, &csv)?;
    }
    Ok(status)
}

// ---------------------------------------------------------------------------------- entry point

/// `dizy bench`: returns the exit status (0 fine, 1 an unsound verdict or false witness,
/// 2 trouble).
/// `dizy bench`: processes it starts are looked up in `search_path` (the CLI's `PATH`).
pub fn cli(a: &Args, search_path: Option<std::ffi::OsString>) -> u8 {
    match run_cli(a, search_path) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("dizy: {e}");
            2
        }
    }
}

fn run_cli(a: &Args, search_path: Option<std::ffi::OsString>) -> Result<u8> {
    let pairs = read_manifest(&a.manifest)?;
    if a.mode == "correlate" {
        return run_correlate_mode(a, &pairs);
    }
    let mut opts = diff_options(a)?;
    opts.limits.child.search_path = search_path;
    let jobs = a.jobs.unwrap_or_else(default_jobs).max(1);
    let start = Instant::now();
    let quiet = a.quiet;
    let outs = parallel_map(&pairs, jobs, |_, p| {
        let o = run_pair(p, &opts);
        if !quiet {
            say(format!(
                "{:<28} {:<10} {:<18} {:<9} {:>9.1} ms  sub-states {:>4}  differing {:>3}",
                p.id,
                p.expected.as_str(),
                o.verdict.as_str(),
                o.judgement.as_str(),
                o.wall.as_secs_f64() * 1000.0,
                o.max_substates,
                o.differing_states
            ));
        }
        o
    });
    let wall = start.elapsed();
    let s = summarize(&pairs, &outs, opts.limits.timeout);
    if let Some(out) = &a.out {
        let mut csv = format!("{ROW_HEADER}\n");
        for (p, o) in pairs.iter().zip(&outs) {
            csv.push_str(&row_csv(p, o, a));
        }
        write_file(out, &csv)?;
    }
    if let Some(path) = &a.summary {
        append_file(path, SUMMARY_HEADER, &summary_csv(a, jobs, &s, wall))?;
    }
    for (p, o) in pairs.iter().zip(&outs) {
        if matches!(o.judgement, Judgement::Unsound | Judgement::FalseWitness) {
            eprintln!(
                "dizy: {}: {} on a pair expected {}",
                p.id,
                o.verdict.as_str(),
                p.expected.as_str()
            );
        }
    }
    let text = summary_text(a, jobs, &s, wall);
    let mut so = std::io::stdout().lock();
    let _ = so.write_all(text.as_bytes()).and_then(|_| so.flush());
    Ok(if s.unsound + s.false_witness > 0 {
        1
    } else {
        0
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_quotes_and_newlines() {
        let r = parse_csv("a,b\n1,\"x, \"\"y\"\"\"\n\"multi\nline\",2\n").unwrap();
        assert_eq!(r.len(), 3);
        assert_eq!(r[1].1, vec!["1", "x, \"y\""]);
        assert_eq!(r[2], (3, vec!["multi\nline".to_string(), "2".to_string()]));
        assert_eq!(csv_field("x, \"y\""), "\"x, \"\"y\"\"\"");
    }

    #[test]
    fn judgements() {
        assert_eq!(
            judge(Expected::Different, Verdict::Equivalent),
            Judgement::Unsound
        );
        assert_eq!(
            judge(Expected::Equivalent, Verdict::Unchanged),
            Judgement::Correct
        );
        assert_eq!(
            judge(Expected::Equivalent, Verdict::PossiblyDifferent),
            Judgement::Imprecise
        );
    }
}
