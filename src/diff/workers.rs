//! Worker processes: the functions of file pairs analysed in parallel, each in a process.
//!
//! PPL serialises its calls on one process-wide lock, so threads bring nothing to the analysis;
//! processes do, and a worker that crashes or runs out of memory costs one function's verdict,
//! not the run. The driver ([`super::diff_files`]) hands every function that needs the analysis
//! to [`Workers::function`] from up to `jobs` threads; a worker (`dizy worker`, [`serve`])
//! loads the same file pair with the same options, builds the same [`Pair`], and answers with
//! the function's report. Functions decided without the analysis (unchanged, added, removed,
//! rejected) never leave the driver.
//!
//! Protocol: one JSON [`Request`] per line on the worker's stdin, one JSON `FunctionReport` per
//! line on its stdout; the worker ends at the end of its input. A worker keeps the last pair it
//! loaded, and the pool gives a function to a worker that holds its pair when one is free.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use super::function::report;
use super::pair::Pair;
use super::{load_pair, DiffOptions, FunctionReport, Verdict};
use crate::diag::{Error, Result};

/// One function to analyse.
#[derive(serde::Serialize, serde::Deserialize)]
struct Request {
    old: PathBuf,
    new: PathBuf,
    function: String,
    options: DiffOptions,
}

impl Request {
    /// Requests with the same key share the loaded pair.
    fn key(&self) -> String {
        let opts = serde_json::to_string(&self.options).unwrap_or_default();
        format!("{}\0{}\0{opts}", self.old.display(), self.new.display())
    }
}

/// A pool of up to `jobs` worker processes, started when first needed and ended when the last
/// handle is dropped. Cloning gives another handle on the same pool.
#[derive(Clone)]
pub struct Workers {
    pool: Arc<Pool>,
    /// Hand over a file's only function too (its file shares the pool with others).
    shared: bool,
}

impl std::fmt::Debug for Workers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Workers({})", self.pool.jobs)
    }
}

struct Pool {
    /// The `dizy` executable (`dizy worker`).
    exe: PathBuf,
    jobs: usize,
    state: Mutex<State>,
    freed: Condvar,
    /// Processes started so far.
    started: AtomicUsize,
}

#[derive(Default)]
struct State {
    idle: Vec<Proc>,
    /// Processes started and not ended (idle or busy).
    live: usize,
}

struct Proc {
    child: Arc<Mutex<Child>>,
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
    /// The key of the pair it holds.
    key: Option<String>,
}

impl Drop for Proc {
    fn drop(&mut self) {
        // End of input ends the worker; wait for it so that no zombie is left.
        drop(self.stdin.take());
        if let Ok(mut c) = self.child.lock() {
            let _ = c.wait();
        }
    }
}

impl Workers {
    /// Workers running `exe worker` (the `dizy` binary), at most `jobs` at a time.
    pub fn new(exe: impl Into<PathBuf>, jobs: usize) -> Workers {
        Workers {
            pool: Arc::new(Pool {
                exe: exe.into(),
                jobs: jobs.max(1),
                state: Mutex::new(State::default()),
                freed: Condvar::new(),
                started: AtomicUsize::new(0),
            }),
            shared: false,
        }
    }

    pub fn jobs(&self) -> usize {
        self.pool.jobs
    }

    /// How many worker processes were started so far (one is started when a function needs
    /// one and fewer than `jobs` run; a failed one is replaced).
    pub fn started(&self) -> usize {
        self.pool.started.load(Ordering::SeqCst)
    }

    /// The same pool, for runs over several files analysed at the same time: then a file's
    /// only function is handed over too, so that files run in parallel.
    pub fn shared(&self) -> Workers {
        Workers {
            shared: true,
            ..self.clone()
        }
    }

    /// Whether this handle is shared by runs going on at the same time (see [`Workers::shared`]).
    pub fn is_shared(&self) -> bool {
        self.shared
    }

    /// Whether a file with `analysed` functions to analyse uses the workers: with one
    /// function alone a worker would only load the files again.
    pub(super) fn takes(&self, analysed: usize) -> bool {
        analysed >= 2 || (self.shared && analysed == 1)
    }

    /// The report of `function` of the pair `files`, as [`Pair::function`] gives it, from a
    /// worker; if the worker fails, an `error` report saying why.
    pub(super) fn function(
        &self,
        (old, new): (&Path, &Path),
        function: &str,
        opts: &DiffOptions,
    ) -> FunctionReport {
        let start = Instant::now();
        let req = Request {
            old: old.to_path_buf(),
            new: new.to_path_buf(),
            function: function.to_string(),
            options: DiffOptions {
                workers: None,
                ..opts.clone()
            },
        };
        let answer = serde_json::to_string(&req)
            .map_err(|e| format!("could not encode the request: {e}"))
            .and_then(|line| self.ask(&req.key(), &line, patience(opts)));
        match answer {
            Ok(r) => r,
            Err(why) => {
                let mut r = report(function, Verdict::Error, start);
                r.error = Some(why);
                r
            }
        }
    }

    fn ask(
        &self,
        key: &str,
        line: &str,
        patience: Option<Duration>,
    ) -> std::result::Result<FunctionReport, String> {
        let mut p = self
            .pool
            .acquire(key)
            .map_err(|e| format!("could not start a worker process: {e}"))?;
        match p.ask(line, patience) {
            Ok(r) => {
                p.key = Some(key.to_string());
                self.pool.release(p);
                Ok(r)
            }
            Err(why) => {
                self.pool.discard(p);
                Err(why)
            }
        }
    }
}

/// How long a worker may take for one function before it is stopped: its `--timeout` is
/// enforced inside the worker; this only catches a worker that no longer checks it.
fn patience(opts: &DiffOptions) -> Option<Duration> {
    opts.limits
        .timeout
        .map(|t| t * 2 + opts.witness.time + Duration::from_secs(30))
}

impl Pool {
    /// A free worker, preferring one that holds the pair `key`, else a new one while there are
    /// fewer than `jobs`, else any free one; waits while all are busy.
    fn acquire(&self, key: &str) -> std::io::Result<Proc> {
        let mut st = self.state.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            if let Some(i) = st.idle.iter().position(|p| p.key.as_deref() == Some(key)) {
                return Ok(st.idle.swap_remove(i));
            }
            if st.live < self.jobs {
                st.live += 1;
                drop(st);
                return self.spawn().inspect_err(|_| self.ended());
            }
            if let Some(p) = st.idle.pop() {
                return Ok(p);
            }
            st = self.freed.wait(st).unwrap_or_else(|e| e.into_inner());
        }
    }

    fn spawn(&self) -> std::io::Result<Proc> {
        self.started.fetch_add(1, Ordering::SeqCst);
        let mut child = Command::new(&self.exe)
            .arg("worker")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()?;
        let (stdin, stdout) = (child.stdin.take(), child.stdout.take());
        let stdout = stdout.ok_or_else(|| std::io::Error::other("no pipe from the worker"))?;
        Ok(Proc {
            child: Arc::new(Mutex::new(child)),
            stdin,
            stdout: BufReader::new(stdout),
            key: None,
        })
    }

    fn release(&self, p: Proc) {
        self.state
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .idle
            .push(p);
        self.freed.notify_one();
    }

    /// A worker that failed is ended (dropping it waits for it) and may be replaced.
    fn discard(&self, p: Proc) {
        if let Ok(mut c) = p.child.lock() {
            let _ = c.kill();
        }
        drop(p);
        self.ended();
    }

    fn ended(&self) {
        self.state.lock().unwrap_or_else(|e| e.into_inner()).live -= 1;
        self.freed.notify_one();
    }
}

impl Proc {
    /// Send one request and read its answer, stopping the worker after `patience`.
    fn ask(
        &mut self,
        line: &str,
        patience: Option<Duration>,
    ) -> std::result::Result<FunctionReport, String> {
        let stdin = self.stdin.as_mut().ok_or("the worker's input is closed")?;
        let sent = stdin
            .write_all(line.as_bytes())
            .and_then(|_| stdin.write_all(b"\n"))
            .and_then(|_| stdin.flush());
        let (tx, rx) = mpsc::channel::<()>();
        let stopped = Arc::new(AtomicBool::new(false));
        let guard = patience.map(|limit| {
            let (child, stopped) = (self.child.clone(), stopped.clone());
            std::thread::spawn(move || {
                if let Err(RecvTimeoutError::Timeout) = rx.recv_timeout(limit) {
                    stopped.store(true, Ordering::SeqCst);
                    if let Ok(mut c) = child.lock() {
                        let _ = c.kill();
                    }
                }
            })
        });
        let mut answer = String::new();
        let read = sent.and_then(|_| self.stdout.read_line(&mut answer));
        drop(tx);
        if let Some(g) = guard {
            let _ = g.join();
        }
        if stopped.load(Ordering::SeqCst) {
            return Err(format!(
                "the worker process gave no answer within {} s and was stopped",
                patience.unwrap_or_default().as_secs()
            ));
        }
        match read {
            Ok(n) if n > 0 => serde_json::from_str(&answer)
                .map_err(|e| format!("the worker process answered with something else ({e})")),
            _ => {
                let status = self
                    .child
                    .lock()
                    .ok()
                    .and_then(|mut c| c.wait().ok())
                    .map_or("its status is unknown".to_string(), |s| s.to_string());
                Err(format!(
                    "the worker process analysing it ended without an answer ({status}; its message, if any, is on stderr)"
                ))
            }
        }
    }
}

/// The worker's side (`dizy worker`): answer requests from `input` on `output` until the input
/// ends. A request the worker cannot read is an error (the driver and the worker are the same
/// build); everything else, a panic included, is answered with a report.
pub fn serve(input: impl BufRead, mut output: impl Write) -> Result<()> {
    let mut lines = input.lines();
    let mut read = move || -> Result<Option<Request>> {
        match lines.next() {
            None => Ok(None),
            Some(Err(e)) => Err(Error::internal(format!("worker: reading a request: {e}"))),
            Some(Ok(l)) => serde_json::from_str(&l)
                .map(Some)
                .map_err(|e| Error::internal(format!("worker: not a request: {e}"))),
        }
    };
    let mut answer = |r: &FunctionReport| -> Result<()> {
        let line = serde_json::to_string(r)
            .map_err(|e| Error::internal(format!("worker: encoding a report: {e}")))?;
        writeln!(output, "{line}")
            .and_then(|_| output.flush())
            .map_err(|e| Error::internal(format!("worker: writing a report: {e}")))
    };
    let mut watchdog = false;
    let mut next = read()?;
    while let Some(req) = next.take() {
        if !watchdog {
            // The backstop for memory spent where no check runs, as in the driver.
            crate::resources::start_watchdog(req.options.limits.memory_mb.unwrap_or(0));
            watchdog = true;
        }
        let key = req.key();
        let start = Instant::now();
        let loaded = load_pair((&req.old, &req.new), &req.options);
        let (po, pn) = match loaded {
            Ok(p) => p,
            Err(e) => {
                let mut r = report(&req.function, Verdict::Error, start);
                r.error = Some(e.to_string());
                answer(&r)?;
                next = read()?;
                continue;
            }
        };
        let pair = Pair::new(&po, &pn, &req.options);
        let mut cur = req;
        loop {
            answer(&one(&pair, &cur))?;
            match read()? {
                Some(r) if r.key() == key => cur = r,
                other => {
                    next = other;
                    break;
                }
            }
        }
    }
    Ok(())
}

/// One function's report; a panic becomes an `error` report.
fn one(pair: &Pair<'_>, req: &Request) -> FunctionReport {
    let start = Instant::now();
    let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        pair.function(&req.function, &req.options)
    }));
    run.unwrap_or_else(|p| {
        let what = p
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_default();
        let mut r = report(&req.function, Verdict::Error, start);
        r.error = Some(format!("internal error (please report): {what}"));
        r
    })
}
