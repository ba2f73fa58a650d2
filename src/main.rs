//! The `dizy` command line: a thin layer over the library (argument parsing, exit codes).
//!
//! Exit status follows diff(1): 0 equivalent/unchanged (or success for `gcl`/`run`), 1 different,
//! 2 trouble — bad input, unsupported construct, undefined behaviour in `run`, exhausted budget.
//! Every command runs on a thread with a large stack so deeply nested input cannot overflow it.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};

use dizy::frontend;

#[derive(Parser)]
#[command(name = "dizy", version, about = "Semantic differencing of C functions")]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Args, Clone)]
struct CppArgs {
    /// Preprocessor command (`-E` is added)
    #[arg(long, default_value = "cc")]
    cpp: String,
    /// Add an include directory
    #[arg(short = 'I', value_name = "DIR")]
    include: Vec<PathBuf>,
    /// Define a macro (NAME or NAME=VALUE)
    #[arg(short = 'D', value_name = "MACRO[=V]")]
    define: Vec<String>,
}

impl CppArgs {
    /// The frontend's options; the preprocessor runs under the default limits (those of
    /// `dizy diff` without `--timeout`/`--max-memory`), looked up in `PATH`.
    fn options(&self) -> frontend::Options {
        let mut limits = dizy::limits::RunLimits::default();
        limits.child.search_path = search_path();
        frontend::Options {
            cpp: self.cpp.clone(),
            include_dirs: self.include.clone(),
            defines: self.define.clone(),
            ..Default::default()
        }
        .with_limits(&limits)
    }
}

/// What `diff` and `log` share: which functions, how to analyse them and validate witnesses.
#[derive(Args, Clone)]
struct RunArgs {
    /// Take -I/-D/-U/-include/-std for the file from this compilation database
    #[arg(long = "compile-commands", value_name = "FILE")]
    compile_commands: Option<PathBuf>,
    /// Only these functions (repeatable); default: every function whose code changed
    #[arg(long = "function", short = 'f')]
    functions: Vec<String>,
    /// Only these client functions (repeatable), with their changed callees inlined
    #[arg(long = "client", conflicts_with = "no_inline")]
    clients: Vec<String>,
    /// Keep calls to changed functions opaque instead of inlining them into their callers
    #[arg(long = "no-inline")]
    no_inline: bool,
    /// Nesting depth of inlined calls (recursion is never inlined)
    #[arg(long = "inline-depth", default_value_t = 3)]
    inline_depth: u32,
    #[command(flatten)]
    analysis: dizy::options::AnalysisArgs,
    /// Corresponding variables with different names (repeatable)
    #[arg(long = "map", value_name = "OLD=NEW")]
    map: Vec<String>,
    /// Validate witnesses by the interpreter only, or also by compiling and running both
    /// versions with the C compiler and UBSan (`native`: executes the analysed code)
    #[arg(long, default_value = "interp", value_parser = ["interp", "native"])]
    validate: String,
    /// Also analyse, for each changed region the preprocessor removed (inactive `#if`
    /// code), a configuration (-D/-U) that compiles it; each gets its own report section
    #[arg(long = "config-all")]
    config_all: bool,
    /// No progress bar (it is drawn on stderr only when stderr is a terminal)
    #[arg(long, short = 'q')]
    quiet: bool,
    /// Reuse the reports of file pairs whose inputs (the files, the headers they read, the
    /// options and the dizy build) were analysed before, and store new ones, in DIR
    #[arg(long, value_name = "DIR")]
    cache: Option<PathBuf>,
    /// Analyse up to N functions (and files) at a time, each function in a worker process
    /// [default: the available cores]; 1: all in this process, one after the other. The
    /// report is the same whatever N; `--max-memory` bounds each process
    #[arg(long, short = 'j', value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    jobs: Option<u32>,
    #[command(flatten)]
    cpp: CppArgs,
}

impl RunArgs {
    /// The options of `diff_files`; `details` for the HTML page. Starts the memory watchdog
    /// and, on a terminal, the progress bar.
    fn options(
        &self,
        details: bool,
    ) -> Result<
        (
            dizy::diff::DiffOptions,
            Option<std::sync::Arc<dizy::report::progress::Bar>>,
        ),
        String,
    > {
        let mut opts = self.analysis.diff_options();
        opts.limits.child.search_path = search_path();
        opts.functions = self.functions.clone();
        opts.functions.extend(self.clients.iter().cloned());
        opts.frontend = self.cpp.options();
        opts.no_inline = self.no_inline;
        opts.config_all = self.config_all;
        opts.details = details;
        opts.inline.max_depth = self.inline_depth;
        if self.validate == "native" {
            opts.validate = dizy::diff::Validate::Native;
        }
        opts.correlate.map = parse_map(&self.map)?;
        opts.cache = self.cache.as_ref().map(|dir| dizy::cache::Cache {
            dir: dir.clone(),
            tool: tool_identity(),
        });
        let jobs = self
            .jobs
            .map_or_else(dizy::parallel::default_jobs, |j| j as usize);
        if jobs > 1 {
            let exe = std::env::current_exe()
                .map_err(|e| format!("cannot find dizy's own executable for --jobs: {e}"))?;
            opts.workers = Some(dizy::diff::workers::Workers::new(exe, jobs));
        }
        // The backstop for memory spent where no check runs (the parser, one z3 query).
        dizy::resources::start_watchdog(self.analysis.max_memory);
        let bar = dizy::report::progress::Bar::new(self.quiet);
        if let Some(b) = &bar {
            opts.progress = b.progress();
        }
        Ok((opts, bar))
    }
}

#[derive(Subcommand)]
enum Cmd {
    /// Compare two versions: prove functions equivalent or describe how they differ
    Diff {
        /// The old file (with --git: the old revision)
        old: PathBuf,
        /// The new file (with --git: the new revision)
        new: PathBuf,
        /// With --git: only changed files under these paths
        #[arg(requires = "git")]
        paths: Vec<PathBuf>,
        /// OLD and NEW are git revisions: compare every .c file changed between them
        #[arg(long)]
        git: bool,
        /// With --git: analyse only shard I of N of the changed files (every N-th, from the
        /// I-th); `dizy merge` joins the shards' JSON
        #[arg(long, requires = "git", value_name = "I/N")]
        shard: Option<dizy::log::Shard>,
        /// Output format; `html` writes one self-contained page to stdout (`> report.html`,
        /// then open it in a browser)
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
        #[command(flatten)]
        run: RunArgs,
    },
    /// Triage a commit range: for each commit (against its first parent), which functions of
    /// the C files it changed behave differently, and how
    Log {
        /// The commits, as `git log` takes them (`A..B`, `v1.0..v1.1`)
        range: String,
        /// Only commits and files under these paths
        paths: Vec<PathBuf>,
        /// Follow only the first parent (a merge stands for its branch); default: every
        /// commit of the range except merges
        #[arg(long = "first-parent")]
        first_parent: bool,
        /// Analyse only shard I of N of the commits (every N-th, from the I-th); `dizy merge`
        /// joins the shards' JSON or SARIF into what one run gives
        #[arg(long, value_name = "I/N")]
        shard: Option<dizy::log::Shard>,
        /// Leave out analysis times (`time_ms`), so identical runs give identical bytes
        #[arg(long = "no-times")]
        no_times: bool,
        /// Also write, per commit, `NNNN-COMMIT.json` (`dizy-git-report/1`) and
        /// `NNNN-COMMIT.sarif` (one run, ready for a code-scanning upload) into this directory
        #[arg(long = "output-dir", value_name = "DIR")]
        output_dir: Option<PathBuf>,
        /// `text` lists per commit the functions that changed; `json` (`dizy-log/1`) holds
        /// every report; `sarif` has one run per commit
        #[arg(long, value_enum, default_value_t = LogFormat::Text)]
        format: LogFormat,
        #[command(flatten)]
        run: RunArgs,
    },
    /// Analyse functions for a `dizy` process with `--jobs` (internal: JSON lines on stdin and
    /// stdout)
    #[command(hide = true)]
    Worker,
    /// Join the JSON (or SARIF) outputs of the shards of one `dizy log` or `dizy diff --git`
    /// command into the output of one unsharded run
    Merge {
        /// The shards' outputs, in any order
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// `json` (the same schema as the inputs; SARIF inputs give SARIF), or `text` (the
        /// listing of `dizy log`)
        #[arg(long, value_enum, default_value_t = MergeFormat::Json)]
        format: MergeFormat,
    },
    /// Print the guarded-command form (GCL) of the functions in FILE
    Gcl {
        file: PathBuf,
        /// Only this function (repeatable)
        #[arg(long = "function", short = 'f')]
        functions: Vec<String>,
        #[command(flatten)]
        cpp: CppArgs,
    },
    /// Build and print the correlating program OLD ⋈ NEW of a function, or run it
    Correlate {
        old: PathBuf,
        new: PathBuf,
        #[arg(long = "function", short = 'f')]
        function: String,
        /// Corresponding variables with different names (repeatable)
        #[arg(long = "map", value_name = "OLD=NEW")]
        map: Vec<String>,
        /// Output format
        #[arg(long, value_enum, default_value_t = CorrelateFormat::Text)]
        format: CorrelateFormat,
        /// Step budget for --run
        #[arg(long, default_value_t = 10_000_000)]
        max_steps: u64,
        #[command(flatten)]
        cpp: CppArgs,
        /// Execute the correlating program on these arguments and print `old: V` and `new: V`
        #[arg(long, num_args = 0.., allow_hyphen_values = true, value_name = "ARG")]
        run: Option<Vec<String>>,
    },
    /// Run `dizy diff` on every pair of a manifest CSV and compare with the expected verdicts
    Bench(dizy::bench::Args),
    /// Execute a function with the concrete interpreter and print its return value
    Run {
        file: PathBuf,
        #[arg(long = "function", short = 'f')]
        function: String,
        /// Step budget (executed GCL instructions) before giving up
        #[arg(long, default_value_t = 10_000_000)]
        max_steps: u64,
        #[command(flatten)]
        cpp: CppArgs,
        /// Arguments as C literals (`-5`, `0x1f`, `2.5`, `'a'`); a leading `--` is optional
        #[arg(allow_hyphen_values = true, trailing_var_arg = true)]
        args: Vec<String>,
    },
}

/// `dizy diff`'s output: the text report, `dizy-report/1` JSON, SARIF 2.1.0 for code scanning,
/// or a self-contained HTML page.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Format {
    /// The report people read: a table, then per function its witness and Δ
    Text,
    /// The same content for tools (`dizy-report/1`)
    Json,
    /// SARIF 2.1.0 for code scanning: a result per function that may have changed behaviour
    Sarif,
    /// One self-contained HTML page (open it in a browser): the table, both versions side by
    /// side, Δ, the witness, the correlating program, and a plot of a sample of the inputs of
    /// functions of one or two numeric parameters, run on both versions
    Html,
}

/// `dizy log`'s output.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum LogFormat {
    Text,
    Json,
    Sarif,
}

/// `dizy merge`'s output.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum MergeFormat {
    Json,
    Text,
}

/// `dizy correlate`'s output (a correlating program is no code-scanning log: no SARIF).
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum CorrelateFormat {
    Text,
    Json,
}

fn main() -> ExitCode {
    let matches = <Cli as clap::CommandFactory>::command().get_matches();
    let cli = match <Cli as clap::FromArgMatches>::from_arg_matches(&matches) {
        Ok(c) => c,
        Err(e) => e.exit(),
    };
    let args = matches
        .subcommand_matches("log")
        .map(|m| {
            let cmd = <Cli as clap::CommandFactory>::command();
            let args: Vec<String> = cmd
                .find_subcommand("log")
                .map(|c| c.get_arguments().map(|a| a.get_id().to_string()).collect())
                .unwrap_or_default();
            log_options(m, &args)
        })
        .unwrap_or_default();
    // Debugging aid: `DIZY_LOG=debug` (or `trace`) prints the analysis' worklist steps.
    if let Ok(filter) = tracing_subscriber::EnvFilter::try_from_env("DIZY_LOG") {
        tracing_subscriber::fmt()
            .with_env_filter(filter)
            .with_writer(std::io::stderr)
            .init();
    }
    let worker = std::thread::Builder::new()
        .stack_size(dizy::parallel::STACK)
        .spawn(move || run(cli, args));
    match worker.map(|h| h.join()) {
        Ok(Ok(code)) => code,
        _ => {
            eprintln!("dizy: internal error (please report)");
            ExitCode::from(2)
        }
    }
}

fn parse_map(map: &[String]) -> Result<Vec<(String, String)>, String> {
    map.iter()
        .map(|m| match m.split_once('=') {
            Some((a, b)) if !a.is_empty() && !b.is_empty() => Ok((a.to_string(), b.to_string())),
            _ => Err(format!("--map expects OLD=NEW, got `{m}`")),
        })
        .collect()
}

fn run(cli: Cli, log_opts: Vec<String>) -> ExitCode {
    match cli.cmd {
        Cmd::Diff {
            old,
            new,
            paths,
            git,
            shard,
            format,
            run,
        } => {
            // The HTML page shows source lines, correlating programs and input samples.
            let (opts, bar) = match run.options(format == Format::Html) {
                Ok(o) => o,
                Err(e) => return fail(&e),
            };
            let db = run.compile_commands.as_deref();
            if git {
                return diff_git(
                    &old,
                    &new,
                    &paths,
                    db,
                    (opts, bar.as_deref()),
                    format,
                    shard,
                );
            }
            cmd_diff(&old, &new, db, (opts, bar.as_deref()), format)
        }
        Cmd::Log {
            range,
            paths,
            first_parent,
            shard,
            no_times,
            output_dir,
            format,
            run,
        } => {
            let (opts, bar) = match run.options(false) {
                Ok(o) => o,
                Err(e) => return fail(&e),
            };
            let log = dizy::log::run(
                &range,
                &paths,
                first_parent,
                run.compile_commands.as_deref(),
                &opts,
                shard,
            );
            if let Some(b) = &bar {
                let done: Vec<_> = log
                    .iter()
                    .flat_map(|l| &l.commits)
                    .flat_map(|c| &c.revisions.files)
                    .filter_map(|f| f.report.as_ref().ok())
                    .collect();
                b.finish(&done);
            }
            let log = match log {
                Ok(l) => l,
                Err(e) => return fail(&e.to_string()),
            };
            let options = &log_opts;
            if let Some(dir) = &output_dir {
                if let Err(e) = write_commits(dir, &log, !no_times) {
                    return fail(&e);
                }
            }
            if format == LogFormat::Sarif && log.commits.len() > dizy::log::GITHUB_MAX_RUNS {
                eprintln!(
                    "dizy: note: {} runs in one SARIF log; GitHub code scanning takes at most {} \
                     per file (--output-dir writes one SARIF file per commit)",
                    log.commits.len(),
                    dizy::log::GITHUB_MAX_RUNS
                );
            }
            match format {
                LogFormat::Text => emit(&dizy::log::log_text(&dizy::log::log_json(
                    &log, options, !no_times,
                ))),
                LogFormat::Json => emit_json(&dizy::log::log_json(&log, options, !no_times)),
                LogFormat::Sarif => emit_json(&dizy::log::log_sarif(&log, options, !no_times)),
            }
            ExitCode::from(log.exit_code())
        }
        Cmd::Merge { files, format } => cmd_merge(&files, format),
        Cmd::Worker => {
            match dizy::diff::workers::serve(std::io::stdin().lock(), std::io::stdout().lock()) {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => fail(&e.to_string()),
            }
        }
        Cmd::Gcl {
            file,
            functions,
            cpp,
        } => cmd_gcl(&file, &functions, &cpp),
        Cmd::Correlate {
            old,
            new,
            function,
            map,
            format,
            max_steps,
            cpp,
            run,
        } => cmd_correlate(&old, &new, &function, &map, format, max_steps, &cpp, run),
        Cmd::Bench(args) => ExitCode::from(dizy::bench::cli(
            &args,
            search_path(),
            std::env::current_exe().ok(),
        )),
        Cmd::Run {
            file,
            function,
            max_steps,
            cpp,
            args,
        } => cmd_run(&file, &function, max_steps, &cpp, args),
    }
}

/// What tells this dizy build from another for the result cache: the version, and the
/// executable's size and modification time (a rebuilt binary never reads an older one's
/// entries).
fn tool_identity() -> String {
    let exe = std::env::current_exe()
        .and_then(std::fs::metadata)
        .map(|m| {
            let t = m
                .modified()
                .ok()
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                .map_or(0, |d| d.as_nanos());
            format!("{}:{t}", m.len())
        })
        .unwrap_or_default();
    format!("dizy {} {exe}", env!("CARGO_PKG_VERSION"))
}

/// Where the processes dizy starts are looked up: the user's `PATH` (the library reads no
/// environment; the CLI hands it down).
fn search_path() -> Option<std::ffi::OsString> {
    std::env::var_os("PATH")
}

fn cmd_diff(
    old: &std::path::Path,
    new: &std::path::Path,
    compile_commands: Option<&std::path::Path>,
    (mut opts, bar): (
        dizy::diff::DiffOptions,
        Option<&dizy::report::progress::Bar>,
    ),
    format: Format,
) -> ExitCode {
    if let Some(db) = compile_commands {
        let applied = frontend::compile_commands::apply(db, old, None, &mut opts.frontend)
            .or_else(|_| frontend::compile_commands::apply(db, new, None, &mut opts.frontend));
        if let Err(e) = applied {
            return fail(&e.to_string());
        }
    }
    let report = dizy::diff::diff_files(old, new, &opts);
    if let Some(b) = bar {
        b.finish(&report.iter().collect::<Vec<_>>());
    }
    let report = match report {
        Ok(r) => r,
        Err(e) => return fail(&e.to_string()),
    };
    let code = report.exit_code();
    match format {
        Format::Text => emit(&dizy::report::to_text(&report)),
        Format::Json => emit_json(&dizy::report::to_json(&report)),
        Format::Html => emit(&dizy::report::html::to_html(
            &format!("{} → {}", old.display(), new.display()),
            &[dizy::report::html::Section {
                path: None,
                report: Ok(&report),
            }],
        )),
        Format::Sarif => {
            let (old, new) = (old.display().to_string(), new.display().to_string());
            let source = dizy::report::sarif::Source {
                new: &new,
                old: Some(&old),
                report: Ok(&report),
            };
            let cwd = std::env::current_dir()
                .ok()
                .map(|d| d.display().to_string());
            emit_json(&dizy::report::sarif::to_sarif(
                &[source],
                &dizy::report::sarif::Invocation {
                    exit_code: code,
                    working_dir: cwd.as_deref(),
                    old_revision: None,
                },
            ))
        }
    }
    ExitCode::from(code)
}

fn emit_json(v: &serde_json::Value) {
    emit(&format!(
        "{}\n",
        serde_json::to_string_pretty(v).unwrap_or_default()
    ));
}

/// A program and its functions as `dizy gcl` and `dizy run` load them, or the exit status of
/// the failure already reported.
fn load(file: &std::path::Path, cpp: &CppArgs) -> Result<dizy::gcl::GclProgram, ExitCode> {
    dizy::load_gcl(file, &cpp.options()).map_err(|e| fail(&e.to_string()))
}

/// An error for a function that `prog` does not define (the frontend's reason when it rejected
/// it).
fn missing_function(prog: &dizy::gcl::GclProgram, file: &std::path::Path, name: &str) -> String {
    match prog.program.rejected.iter().find(|(n, _)| n == name) {
        Some((_, e)) => e.to_string(),
        None => format!(
            "{}: no function `{name}` defined in this file",
            file.display()
        ),
    }
}

fn cmd_gcl(file: &std::path::Path, functions: &[String], cpp: &CppArgs) -> ExitCode {
    let prog = match load(file, cpp) {
        Ok(p) => p,
        Err(code) => return code,
    };
    if prog.functions.is_empty() && prog.program.rejected.is_empty() {
        return fail(&format!(
            "{}: no function definitions in this file",
            file.display()
        ));
    }
    if let Some(name) = functions.iter().find(|n| prog.function(n).is_none()) {
        return fail(&missing_function(&prog, file, name));
    }
    let mut out = String::new();
    let mut status = ExitCode::SUCCESS;
    // Without names: the file's own functions (not the `static inline` ones of its headers).
    let listed: Vec<_> = if functions.is_empty() {
        prog.file_functions().collect()
    } else {
        prog.functions
            .iter()
            .filter(|f| functions.contains(&f.name))
            .collect()
    };
    for f in listed {
        dizy::gcl::print_function(&mut out, f, &prog.program);
        out.push('\n');
    }
    if functions.is_empty() {
        for (_, e) in prog.file_rejected() {
            eprintln!("dizy: {e}");
            status = ExitCode::from(2);
        }
    }
    emit(&out);
    status
}

#[allow(clippy::too_many_arguments)]
fn cmd_correlate(
    old: &std::path::Path,
    new: &std::path::Path,
    function: &str,
    map: &[String],
    format: CorrelateFormat,
    max_steps: u64,
    cpp: &CppArgs,
    run: Option<Vec<String>>,
) -> ExitCode {
    let (po, pn) = match dizy::load_gcl_pair(old, new, &cpp.options()) {
        Ok(p) => p,
        Err(e) => return fail(&e.to_string()),
    };
    let copts = dizy::correlate::Options {
        map: match parse_map(map) {
            Ok(m) => m,
            Err(e) => return fail(&e),
        },
        ..Default::default()
    };
    let c = match dizy::correlate::correlate(&po, &pn, function, &copts) {
        Ok(c) => c,
        Err(e) => return fail(&e.to_string()),
    };
    if let Some(args) = run {
        let args: Vec<String> = args.into_iter().skip_while(|a| a == "--").collect();
        return match dizy::interp::run_correlated(&c, &args, max_steps) {
            Ok((o, n)) => {
                emit(&format!("old: {o}\nnew: {n}\n"));
                ExitCode::SUCCESS
            }
            Err(e) => fail(&e.to_string()),
        };
    }
    match format {
        CorrelateFormat::Text => emit(&dizy::correlate::print_correlated(&c)),
        CorrelateFormat::Json => emit(&format!(
            "{}\n",
            serde_json::to_string_pretty(&dizy::correlate::to_json(&c)).unwrap_or_default()
        )),
    }
    ExitCode::SUCCESS
}

fn cmd_run(
    file: &std::path::Path,
    function: &str,
    max_steps: u64,
    cpp: &CppArgs,
    args: Vec<String>,
) -> ExitCode {
    let prog = match load(file, cpp) {
        Ok(p) => p,
        Err(code) => return code,
    };
    if prog.function(function).is_none() {
        return fail(&missing_function(&prog, file, function));
    }
    let args: Vec<String> = args.into_iter().skip_while(|a| a == "--").collect();
    match dizy::interp::run_literals(&prog, function, &args, max_steps) {
        Ok((value, _)) => {
            emit(&format!("{value}\n"));
            ExitCode::SUCCESS
        }
        Err(e) => fail(&format!("{}: {e}", file.display())),
    }
}

/// `dizy diff --git REV1 REV2 [PATH…]`: one report with a section per changed `.c` file (of
/// the shard); the exit status combines the files' as [`dizy::diff::worse_exit`] does.
fn diff_git(
    rev1: &std::path::Path,
    rev2: &std::path::Path,
    paths: &[PathBuf],
    db: Option<&std::path::Path>,
    (opts, bar): (
        dizy::diff::DiffOptions,
        Option<&dizy::report::progress::Bar>,
    ),
    format: Format,
    shard: Option<dizy::log::Shard>,
) -> ExitCode {
    let (r1, r2) = (rev1.display().to_string(), rev2.display().to_string());
    let revs = dizy::log::diff_revisions((&r1, &r2), (&r1, &r2), paths, db, &opts, shard);
    if let Some(b) = bar {
        let done: Vec<_> = revs
            .iter()
            .flat_map(|r| &r.files)
            .filter_map(|f| f.report.as_ref().ok())
            .collect();
        b.finish(&done);
    }
    let revs = match revs {
        Ok(r) => r,
        Err(e) => return fail(&e.to_string()),
    };
    let worst = revs.exit_code();
    let reports: Vec<_> = revs
        .files
        .iter()
        .map(|f| (f.path.as_str(), f.report.as_ref()))
        .collect();
    let what = match shard {
        Some(s) => format!(
            "shard {s}: {} of {} changed C file(s)",
            reports.len(),
            revs.changed_files
        ),
        None => format!("{} changed C file(s)", revs.changed_files),
    };
    match format {
        Format::Text => {
            let mut text = format!("dizy --git {r1} {r2}: {what}\n");
            for (path, r) in &reports {
                text.push_str(&format!("\n=== {path} ({r1} → {r2}) ===\n"));
                match r {
                    Ok(r) => text.push_str(&dizy::report::to_text(r)),
                    Err(e) => text.push_str(&format!("dizy: {e}\n")),
                }
            }
            emit(&text)
        }
        Format::Json => emit_json(&dizy::log::git_json((&r1, &r2), &revs, shard, true)),
        Format::Html => {
            let sections: Vec<_> = reports
                .iter()
                .map(|(path, r)| dizy::report::html::Section {
                    path: Some(path),
                    report: r.map_err(Clone::clone),
                })
                .collect();
            emit(&dizy::report::html::to_html(
                &format!("--git {r1} {r2}: {what}"),
                &sections,
            ))
        }
        Format::Sarif => {
            let sources: Vec<_> = reports
                .iter()
                .map(|(path, r)| dizy::report::sarif::Source {
                    new: path,
                    old: None,
                    report: r.map_err(Clone::clone),
                })
                .collect();
            emit_json(&dizy::report::sarif::to_sarif(
                &sources,
                &dizy::report::sarif::Invocation {
                    exit_code: worst,
                    working_dir: Some(&revs.top),
                    old_revision: Some(&r1),
                },
            ))
        }
    }
    ExitCode::from(worst)
}

/// The options a `dizy log` run was given, as shards must share them: `name=value` for each
/// one given on the command line (the range and paths included), in a fixed order however
/// they were written, without `--shard`, `--format`, `--output-dir`, `--cache` and the progress
/// switch.
/// `args` are the ids of `log`'s arguments (the matches also hold the groups of flattened
/// option structs).
fn log_options(m: &clap::ArgMatches, args: &[String]) -> Vec<String> {
    let mut ids: Vec<&str> = m
        .ids()
        .map(clap::Id::as_str)
        .filter(|id| args.iter().any(|a| a == id))
        .filter(|id| !["shard", "format", "quiet", "output_dir", "cache", "jobs"].contains(id))
        .filter(|id| m.value_source(id) == Some(clap::parser::ValueSource::CommandLine))
        .collect();
    ids.sort_unstable();
    let mut out = vec![];
    for id in ids {
        if let Ok(Some(values)) = m.try_get_raw(id) {
            out.extend(values.map(|v| format!("{id}={}", v.to_string_lossy())));
        }
    }
    out
}

/// `--output-dir`: each commit's JSON and SARIF in files of their own.
fn write_commits(dir: &std::path::Path, log: &dizy::log::Log, times: bool) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    for c in &log.commits {
        let stem = dizy::log::commit_file_stem(c);
        let mut sarif = dizy::log::commit_sarif(c);
        if !times {
            dizy::log::strip_times(&mut sarif);
        }
        for (ext, doc) in [
            ("json", dizy::log::commit_git_json(c, times)),
            ("sarif", sarif),
        ] {
            let path = dir.join(format!("{stem}.{ext}"));
            let text = serde_json::to_string_pretty(&doc).unwrap_or_default() + "\n";
            std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))?;
        }
    }
    Ok(())
}

/// `dizy merge FILE…`: read every shard's output and print the joined document.
fn cmd_merge(files: &[PathBuf], format: MergeFormat) -> ExitCode {
    let mut inputs = vec![];
    for f in files {
        let name = f.display().to_string();
        let text = match std::fs::read_to_string(f) {
            Ok(t) => t,
            Err(e) => return fail(&format!("{name}: {e}")),
        };
        match serde_json::from_str(&text) {
            Ok(v) => inputs.push((name, v)),
            Err(e) => return fail(&format!("{name}: not JSON: {e}")),
        }
    }
    let merged = match dizy::log::merge(&inputs) {
        Ok(m) => m,
        Err(e) => return fail(&e.to_string()),
    };
    match format {
        MergeFormat::Json => emit_json(&merged.value),
        MergeFormat::Text if merged.is_log => emit(&dizy::log::log_text(&merged.value)),
        MergeFormat::Text => {
            return fail("--format text lists `dizy log` results; these inputs give JSON only")
        }
    }
    ExitCode::from(merged.exit_code)
}

/// Write a command's output to stdout. A reader that went away (`dizy correlate … | head`) is
/// not an error: the rest is dropped and the exit status stays the command's. Any other write
/// error ends dizy with status 2.
fn emit(text: &str) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    if let Err(e) = out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        if e.kind() != std::io::ErrorKind::BrokenPipe {
            eprintln!("dizy: cannot write the output: {e}");
            std::process::exit(2);
        }
    }
}

fn fail(msg: &str) -> ExitCode {
    eprintln!("dizy: {msg}");
    ExitCode::from(2)
}
