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
        /// Output format; `html` writes one self-contained page to stdout (`> report.html`,
        /// then open it in a browser)
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
        /// Also analyse, for each changed region the preprocessor removed (inactive `#if`
        /// code), a configuration (-D/-U) that compiles it; each gets its own report section
        #[arg(long = "config-all")]
        config_all: bool,
        /// No progress bar (it is drawn on stderr only when stderr is a terminal)
        #[arg(long, short = 'q')]
        quiet: bool,
        #[command(flatten)]
        cpp: CppArgs,
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

/// `dizy correlate`'s output (a correlating program is no code-scanning log: no SARIF).
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum CorrelateFormat {
    Text,
    Json,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    // Debugging aid: `DIZY_LOG=debug` (or `trace`) prints the analysis' worklist steps.
    if let Ok(filter) = tracing_subscriber::EnvFilter::try_from_env("DIZY_LOG") {
        tracing_subscriber::fmt()
            .with_env_filter(filter)
            .with_writer(std::io::stderr)
            .init();
    }
    let worker = std::thread::Builder::new()
        .stack_size(1 << 30)
        .spawn(move || run(cli));
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

fn run(cli: Cli) -> ExitCode {
    match cli.cmd {
        Cmd::Diff {
            old,
            new,
            paths,
            git,
            compile_commands,
            mut functions,
            clients,
            no_inline,
            inline_depth,
            analysis,
            map,
            validate,
            format,
            config_all,
            quiet,
            cpp,
        } => {
            functions.extend(clients);
            let mut opts = analysis.diff_options();
            opts.limits.child.search_path = search_path();
            opts.functions = functions;
            opts.frontend = cpp.options();
            opts.no_inline = no_inline;
            opts.config_all = config_all;
            // The HTML page shows source lines, correlating programs and input samples.
            opts.details = format == Format::Html;
            opts.inline.max_depth = inline_depth;
            if validate == "native" {
                opts.validate = dizy::diff::Validate::Native;
            }
            opts.correlate.map = match parse_map(&map) {
                Ok(m) => m,
                Err(e) => return fail(&e),
            };
            // The backstop for memory spent where no check runs (the parser, one z3 query).
            dizy::resources::start_watchdog(analysis.max_memory);
            let bar = dizy::report::progress::Bar::new(quiet);
            if let Some(b) = &bar {
                opts.progress = b.progress();
            }
            let bar = bar.as_deref();
            if git {
                return diff_git(
                    &old,
                    &new,
                    &paths,
                    compile_commands.as_deref(),
                    (opts, bar),
                    format,
                );
            }
            cmd_diff(&old, &new, compile_commands.as_deref(), (opts, bar), format)
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
        Cmd::Bench(args) => ExitCode::from(dizy::bench::cli(&args, search_path())),
        Cmd::Run {
            file,
            function,
            max_steps,
            cpp,
            args,
        } => cmd_run(&file, &function, max_steps, &cpp, args),
    }
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
    let (po, pn) = match (load(old, cpp), load(new, cpp)) {
        (Ok(a), Ok(b)) => (a, b),
        (Err(code), _) | (_, Err(code)) => return code,
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

/// `dizy diff --git REV1 REV2 [PATH…]`: one report with a section per changed `.c` file; the
/// exit status combines the files' as [`dizy::diff::worse_exit`] does.
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
) -> ExitCode {
    let (r1, r2) = (rev1.display().to_string(), rev2.display().to_string());
    let co = match dizy::git::checkout(&r1, &r2, paths) {
        Ok(c) => c,
        Err(e) => return fail(&e.to_string()),
    };
    let mut worst = 0u8;
    let mut reports = vec![];
    for f in &co.files {
        let mut o = opts.clone();
        let rel = std::path::Path::new(&f.path);
        let configured = db
            .map(|db| dizy::frontend::compile_commands::apply(db, rel, Some(rel), &mut o.frontend));
        let result = match configured {
            Some(Err(e)) => Err(e),
            _ => dizy::diff::diff_files(&f.old, &f.new, &o),
        };
        // The temporary checkout is gone when the report is read: name files `REV:path`.
        let result = result.map(|mut r| {
            for (side, rev) in [("old", &r1), ("new", &r2)] {
                let dir = co.root.join(side);
                r.rename_prefix(&format!("{}/", dir.display()), &format!("{rev}:"));
            }
            r
        });
        worst = dizy::diff::worse_exit(worst, result.as_ref().map_or(2, |r| r.exit_code()));
        reports.push((f.path.as_str(), result.map_err(|e| e.to_string())));
    }
    if let Some(b) = bar {
        let done: Vec<_> = reports
            .iter()
            .filter_map(|(_, r)| r.as_ref().ok())
            .collect();
        b.finish(&done);
    }
    match format {
        Format::Text => {
            let mut text = format!(
                "dizy --git {r1} {r2}: {} changed C file(s)\n",
                co.files.len()
            );
            for (path, r) in &reports {
                text.push_str(&format!("\n=== {path} ({r1} → {r2}) ===\n"));
                match r {
                    Ok(r) => text.push_str(&dizy::report::to_text(r)),
                    Err(e) => text.push_str(&format!("dizy: {e}\n")),
                }
            }
            emit(&text)
        }
        Format::Json => emit_json(&serde_json::json!({
            "schema": "dizy-git-report/1",
            "old_revision": r1,
            "new_revision": r2,
            "files": reports.iter().map(|(path, r)| match r {
                Ok(r) => serde_json::json!({ "path": path, "report": dizy::report::to_json(r) }),
                Err(e) => serde_json::json!({ "path": path, "error": e }),
            }).collect::<Vec<_>>(),
        })),
        Format::Html => {
            let sections: Vec<_> = reports
                .iter()
                .map(|(path, r)| dizy::report::html::Section {
                    path: Some(path),
                    report: r.as_ref().map_err(Clone::clone),
                })
                .collect();
            emit(&dizy::report::html::to_html(
                &format!("--git {r1} {r2}: {} changed C file(s)", co.files.len()),
                &sections,
            ))
        }
        Format::Sarif => {
            let sources: Vec<_> = reports
                .iter()
                .map(|(path, r)| dizy::report::sarif::Source {
                    new: path,
                    old: None,
                    report: r.as_ref().map_err(Clone::clone),
                })
                .collect();
            emit_json(&dizy::report::sarif::to_sarif(
                &sources,
                &dizy::report::sarif::Invocation {
                    exit_code: worst,
                    working_dir: Some(&co.top),
                    old_revision: Some(&r1),
                },
            ))
        }
    }
    ExitCode::from(worst)
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
