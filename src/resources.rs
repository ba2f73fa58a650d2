//! Process-wide resource accounting: the resident size, what the process is doing, a memory
//! backstop, and the limits of the processes dizy starts.
//!
//! Takes `--max-memory` from the CLI; gives [`resident_mb`] (read by the analysis' own, graceful
//! memory check) and a watchdog thread that ends the process with exit code 2 and a message once
//! the resident size passes the limit plus a slack. The analysis and the witness search stop a
//! function cleanly at the limit itself; the watchdog only catches memory spent where no check
//! can run — inside the C parser on a huge file, or inside one z3 query — so dizy never runs
//! into the kernel's OOM killer. Stages say what they are doing with [`set_phase`], so that the
//! message can name the file or function.
//!
//! Every process dizy starts (the preprocessor, and the compiler and harness runs of
//! `--validate native`) is started through [`ChildLimits::command`], which bounds its address
//! space by `--max-memory` and its CPU time by `--timeout`; [`ChildLimits::hit`] tells whether a
//! failed process ran into one of them. The limits travel in [`crate::limits::RunLimits`]. Only `git` plumbing (`dizy diff --git`) and `kill` run
//! without: they do bounded work, and an address-space limit would break `git` on repositories
//! whose pack files it maps.

use std::ffi::{OsStr, OsString};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus};
use std::sync::Mutex;
use std::time::Duration;

use crate::diag::Limit;

static PHASE: Mutex<String> = Mutex::new(String::new());

/// Record what the process is doing (`old.c`, `function f`), for the watchdog's message.
pub fn set_phase(what: impl Into<String>) {
    if let Ok(mut p) = PHASE.lock() {
        *p = what.into();
    }
}

/// Resident set size of this process in MiB (Linux `/proc/self/statm`; `None` elsewhere).
pub fn resident_mb() -> Option<u64> {
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: u64 = statm.split_whitespace().nth(1)?.parse().ok()?;
    // 4 KiB pages on the platforms dizy targets (x86-64, aarch64 Linux defaults).
    Some(pages * 4 / 1024)
}

/// The resident size at which the watchdog ends the process: the limit plus a quarter of it,
/// at least 256 MiB, so that the analysis' own check at the limit always gets to act first.
pub fn hard_limit_mb(limit_mb: u64) -> u64 {
    limit_mb + (limit_mb / 4).max(256)
}

/// Start the watchdog for `--max-memory limit_mb` (0: none). It polls every 10 ms.
pub fn start_watchdog(limit_mb: u64) {
    if limit_mb == 0 || resident_mb().is_none() {
        return;
    }
    let hard = hard_limit_mb(limit_mb);
    let spawned = std::thread::Builder::new()
        .name("dizy-memory-watchdog".into())
        .stack_size(64 * 1024)
        .spawn(move || loop {
            std::thread::sleep(Duration::from_millis(10));
            let Some(mb) = resident_mb() else { return };
            if mb > hard {
                let phase = PHASE.try_lock().map(|p| p.clone()).unwrap_or_default();
                let at = if phase.is_empty() {
                    String::new()
                } else {
                    format!("{phase}: ")
                };
                let msg = format!(
                    "error: {at}out of memory: {mb} MiB resident, over --max-memory {limit_mb} MiB plus slack ({hard} MiB); stopped without a verdict\n"
                );
                let _ = std::io::stderr().write_all(msg.as_bytes());
                // Not `process::exit`: the main thread may be inside z3 or PPL, whose static
                // destructors must not run under it.
                dizy_domains::exit_now(2)
            }
        });
    // Without the thread the analysis' own checks still apply.
    drop(spawned);
}

// ---------------------------------------------------------------------------------------------
// Limits of the processes dizy starts.

/// Memory and CPU-time bounds for a process dizy starts (the preprocessor, the compiler and the
/// harness runs of `--validate native`), derived from `--max-memory` and `--timeout`
/// ([`ChildLimits::new`]); part of [`crate::limits::RunLimits`].
///
/// They are applied by a wrapper process that sets the limits on itself and then `exec`s the
/// command, so no `unsafe` `pre_exec` hook is needed: `prlimit` (util-linux) when it is
/// installed, else `sh -c 'ulimit …; exec "$@"'`. The memory bound is the address-space limit
/// (`RLIMIT_AS`), inherited by the command's own children (`cc` → `cc1`). Programs built with
/// AddressSanitizer reserve terabytes of address space for their shadow memory and cannot run
/// under it: a run of such a binary must be bounded by a data-segment or resident-size limit
/// (`RLIMIT_DATA`, a cgroup) instead. Native validation builds with UBSan only, which is fine.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ChildLimits {
    /// Address-space limit in MiB (`--max-memory`, at least [`MIN_CHILD_MEMORY_MB`]); 0 for none.
    pub memory_mb: u64,
    /// CPU-time limit in seconds (`ceil(--timeout) + 1`); 0 for none. The process gets SIGXCPU
    /// at this many seconds, SIGKILL one second later.
    pub cpu_secs: u64,
    /// Where programs named without a directory are looked up (the CLI passes `PATH`); `None`:
    /// the usual system directories.
    pub search_path: Option<OsString>,
}

/// The least address space a process is given, in MiB, whatever `--max-memory` says: `cc -E`
/// needs about 40 MiB to start at all (below that it crashes without a message), and a
/// `--max-memory` far below the size of a compiler is meant for dizy's own analysis.
pub const MIN_CHILD_MEMORY_MB: u64 = 256;

impl Default for ChildLimits {
    /// Those of `dizy diff` by default: 4096 MiB, 61 CPU seconds.
    fn default() -> ChildLimits {
        ChildLimits::new(4096, Some(Duration::from_secs(60)))
    }
}

impl ChildLimits {
    /// From `--max-memory MB` (0: none) and `--timeout` (`None`: none): the memory limit is the
    /// same number of MiB (at least [`MIN_CHILD_MEMORY_MB`]), the CPU limit the timeout rounded
    /// up plus one second, so that the wall-clock kill that dizy applies at the timeout comes
    /// first for a single-threaded process, and the CPU limit still ends a process that
    /// outlives dizy.
    pub fn new(max_memory_mb: u64, timeout: Option<Duration>) -> ChildLimits {
        ChildLimits {
            memory_mb: match max_memory_mb {
                0 => 0,
                m => m.max(MIN_CHILD_MEMORY_MB),
            },
            cpu_secs: timeout.map_or(0, |t| t.as_secs_f64().ceil() as u64 + 1),
            search_path: None,
        }
    }

    /// These limits with the CPU limit lowered to `wall` (rounded up) plus one second, for a
    /// process that dizy kills after `wall` anyway: the wall-clock kill then comes first.
    pub fn cpu_at_most(&self, wall: Duration) -> ChildLimits {
        let cap = wall.as_secs_f64().ceil() as u64 + 1;
        ChildLimits {
            cpu_secs: match self.cpu_secs {
                0 => cap,
                c => c.min(cap),
            },
            ..self.clone()
        }
    }

    /// A [`Command`] that runs `program` under these limits; arguments, environment and
    /// standard streams are then set on it as usual. `program` is looked up in `PATH` here, so
    /// that a missing program is an error of this call (`NotFound`) rather than a failure
    /// reported by the wrapper.
    pub fn command(&self, program: impl AsRef<OsStr>) -> std::io::Result<Command> {
        let exe = find_program(program.as_ref(), self.search_path.as_deref())?;
        let prlimit = find_program(OsStr::new("prlimit"), self.search_path.as_deref()).ok();
        Ok(self.wrap(exe, prlimit.as_deref()))
    }

    /// `exe` under these limits, through `prlimit` if given, else through `sh`.
    fn wrap(&self, exe: PathBuf, prlimit: Option<&Path>) -> Command {
        if self.memory_mb == 0 && self.cpu_secs == 0 {
            return Command::new(exe);
        }
        let (mem, cpu) = self.clamped();
        let mut cmd;
        if let Some(prlimit) = prlimit {
            cmd = Command::new(prlimit);
            cmd.arg("--core=0");
            if let Some(bytes) = mem {
                cmd.arg(format!("--as={bytes}:{bytes}"));
            }
            if let Some((soft, hard)) = cpu {
                cmd.arg(format!("--cpu={soft}:{hard}"));
            }
            cmd.arg("--");
        } else {
            // dash and bash: `ulimit -v` is in KiB and sets both soft and hard limits; the soft
            // CPU limit is lowered before the hard one (a hard limit below the soft one is
            // invalid). A limit that cannot be set leaves the inherited, lower, one.
            let mut script = String::from("ulimit -c 0 2>/dev/null; ");
            if let Some(bytes) = mem {
                script.push_str(&format!("ulimit -v {} 2>/dev/null; ", bytes / 1024));
            }
            if let Some((soft, hard)) = cpu {
                script.push_str(&format!(
                    "ulimit -S -t {soft} 2>/dev/null; ulimit -H -t {hard} 2>/dev/null; "
                ));
            }
            script.push_str("exec \"$@\"");
            cmd = Command::new("/bin/sh");
            cmd.arg("-c").arg(script).arg("sh");
        }
        cmd.arg(exe);
        cmd
    }

    /// The address-space limit in bytes and the CPU limits (soft, hard), each at most the hard
    /// limit dizy itself runs under (raising a hard limit is not allowed).
    fn clamped(&self) -> (Option<u64>, Option<(u64, u64)>) {
        let own = own_hard_limits();
        let mem = (self.memory_mb > 0).then(|| {
            let bytes = self.memory_mb.saturating_mul(1 << 20);
            own.address_space.map_or(bytes, |h| bytes.min(h))
        });
        let cpu = (self.cpu_secs > 0).then(|| {
            let hard = self.cpu_secs.saturating_add(1);
            match own.cpu {
                Some(h) => (self.cpu_secs.min(h), hard.min(h)),
                None => (self.cpu_secs, hard),
            }
        });
        (mem, cpu)
    }

    /// Whether a process started by [`ChildLimits::command`] and finished unsuccessfully after
    /// `elapsed` ran into one of these limits. Decided from how it ended: SIGXCPU is the CPU
    /// limit; SIGKILL not sent by dizy is the CPU limit's hard stop once `elapsed` reaches the
    /// CPU limit, else the kernel's out-of-memory killer. For a compiler (`diagnostics` given:
    /// its standard error) also from the fixed messages with which GCC and Clang report a
    /// failed allocation or a compiler process killed by a signal (`cc1: out of memory
    /// allocating …`, `virtual memory exhausted: Cannot allocate memory`, `LLVM ERROR: out of
    /// memory`, `cc: fatal error: CPU time limit exceeded signal terminated program cc1`): the
    /// driver itself exits normally when its `cc1` dies. Only lines that start with a program
    /// name count, so an `#error` in the source (`file.c:3:2: error: …`) is never taken for one.
    /// Never given for a limit that is not set.
    pub fn hit(
        &self,
        status: &ExitStatus,
        elapsed: Duration,
        diagnostics: Option<&[u8]>,
    ) -> Option<Limit> {
        if status.success() {
            return None;
        }
        let killed = |cpu_signal: bool| {
            if cpu_signal || (self.cpu_secs > 0 && elapsed.as_secs() >= self.cpu_secs) {
                (self.cpu_secs > 0).then_some(Limit::CpuTime)
            } else {
                (self.memory_mb > 0).then_some(Limit::Memory)
            }
        };
        #[cfg(unix)]
        {
            use std::os::unix::process::ExitStatusExt;
            match status.signal() {
                Some(SIGXCPU) => return killed(true),
                Some(SIGKILL) => return killed(false),
                _ => {}
            }
        }
        let text = String::from_utf8_lossy(diagnostics?).to_lowercase();
        for line in text.lines() {
            let mut rest = line.trim();
            rest = rest.strip_prefix("llvm error: ").unwrap_or(rest);
            // `cc1: `, `gcc: fatal error: `, `clang: error: `
            if let Some((prog, after)) = rest.split_once(": ") {
                if !prog.is_empty() && !prog.contains([' ', ':']) {
                    rest = after;
                }
            }
            for kind in ["fatal error: ", "internal compiler error: ", "error: "] {
                rest = rest.strip_prefix(kind).unwrap_or(rest);
            }
            if [
                "out of memory",
                "virtual memory exhausted",
                "cannot allocate memory",
            ]
            .iter()
            .any(|m| rest.starts_with(m))
            {
                return (self.memory_mb > 0).then_some(Limit::Memory);
            }
            if rest.starts_with("cpu time limit exceeded") {
                return killed(true);
            }
            if rest.starts_with("killed signal terminated program") {
                return killed(false);
            }
        }
        None
    }

    /// The limit in words, with the option it comes from:
    /// `the memory limit (--max-memory 4096 MB)`.
    pub fn describe(&self, hit: Limit) -> String {
        match hit {
            Limit::Memory if self.memory_mb == MIN_CHILD_MEMORY_MB => format!(
                "the memory limit ({MIN_CHILD_MEMORY_MB} MB, the least --max-memory gives a child process)"
            ),
            Limit::Memory => format!("the memory limit (--max-memory {} MB)", self.memory_mb),
            Limit::CpuTime => format!(
                "the CPU-time limit ({} CPU seconds; see --timeout)",
                self.cpu_secs
            ),
        }
    }
}

#[cfg(unix)]
const SIGKILL: i32 = 9;
#[cfg(unix)]
const SIGXCPU: i32 = 24;

/// `program` as `exec` would find it: a path as it is, a bare name in `search_path` (by default
/// the usual system directories).
fn find_program(program: &OsStr, search_path: Option<&OsStr>) -> std::io::Result<PathBuf> {
    let runnable = |p: &Path| {
        std::fs::metadata(p).is_ok_and(|m| {
            #[cfg(unix)]
            let exec = std::os::unix::fs::PermissionsExt::mode(&m.permissions()) & 0o111 != 0;
            #[cfg(not(unix))]
            let exec = true;
            m.is_file() && exec
        })
    };
    let p = Path::new(program);
    if p.components().count() > 1 || p.is_absolute() {
        return if runnable(p) {
            Ok(p.to_path_buf())
        } else {
            Err(std::io::Error::new(
                std::io::ErrorKind::NotFound,
                format!("{} is not an executable file", p.display()),
            ))
        };
    }
    let path = search_path.unwrap_or(OsStr::new("/usr/local/bin:/usr/bin:/bin"));
    std::env::split_paths(path)
        .map(|d| d.join(program))
        .find(|c| runnable(c))
        .ok_or_else(|| {
            std::io::Error::new(
                std::io::ErrorKind::NotFound,
                format!("{} not found in the search path", p.display()),
            )
        })
}

/// The hard limits dizy runs under (`None`: unlimited or unknown), from `/proc/self/limits`.
struct OwnHard {
    cpu: Option<u64>,
    address_space: Option<u64>,
}

fn own_hard_limits() -> OwnHard {
    let text = std::fs::read_to_string("/proc/self/limits").unwrap_or_default();
    // `Max cpu time   unlimited   unlimited   seconds`: the hard limit is the second-last word.
    let hard = |name: &str| {
        let line = text.lines().find(|l| l.starts_with(name))?;
        let words: Vec<&str> = line.split_whitespace().collect();
        words.get(words.len().checked_sub(2)?)?.parse::<u64>().ok()
    };
    OwnHard {
        cpu: hard("Max cpu time"),
        address_space: hard("Max address space"),
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;
    use std::os::unix::process::ExitStatusExt;

    /// What the shell reports as its limits when started under `l` through each wrapper.
    #[test]
    fn both_wrappers_set_the_limits() {
        let l = ChildLimits {
            memory_mb: 64,
            cpu_secs: 7,
            search_path: None,
        };
        let mut wrappers = vec![None];
        if let Ok(p) = find_program(OsStr::new("prlimit"), None) {
            wrappers.push(Some(p));
        }
        for w in wrappers {
            let out = l
                .wrap(find_program(OsStr::new("sh"), None).unwrap(), w.as_deref())
                .args(["-c", "ulimit -v; ulimit -S -t; ulimit -H -t; ulimit -c"])
                .output()
                .unwrap();
            assert_eq!(
                String::from_utf8_lossy(&out.stdout),
                "65536\n7\n8\n0\n",
                "through {w:?}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        // No limits: the program itself.
        let none = ChildLimits {
            memory_mb: 0,
            cpu_secs: 0,
            search_path: None,
        };
        let cmd = none.command("sh").unwrap();
        assert!(cmd.get_program().to_string_lossy().ends_with("/sh"));
        assert_eq!(
            l.command("no-such-program-dizy").unwrap_err().kind(),
            std::io::ErrorKind::NotFound
        );
    }

    #[test]
    fn a_busy_loop_ends_at_the_cpu_limit() {
        let l = ChildLimits {
            memory_mb: 0,
            cpu_secs: 1,
            search_path: None,
        };
        let start = std::time::Instant::now();
        let st = l
            .command("sh")
            .unwrap()
            .args(["-c", "while :; do :; done"])
            .status()
            .unwrap();
        assert_eq!(st.signal(), Some(SIGXCPU));
        assert_eq!(l.hit(&st, start.elapsed(), None), Some(Limit::CpuTime));
        assert!(start.elapsed() < Duration::from_secs(30));
    }

    #[test]
    fn limits_are_recognised_by_how_the_process_ended() {
        let l = ChildLimits::new(1024, Some(Duration::from_millis(2500)));
        assert_eq!(l.cpu_secs, 4);
        let failed = ExitStatus::from_raw(1 << 8);
        let t = Duration::from_secs(1);
        let hit = |msg: &str| l.hit(&failed, t, Some(msg.as_bytes()));
        assert_eq!(
            hit("cc1: out of memory allocating 6000 bytes after a total of 155795456 bytes\n"),
            Some(Limit::Memory)
        );
        assert_eq!(
            hit("virtual memory exhausted: Cannot allocate memory\n"),
            Some(Limit::Memory)
        );
        assert_eq!(hit("LLVM ERROR: out of memory\n"), Some(Limit::Memory));
        assert_eq!(
            hit("cc: fatal error: CPU time limit exceeded signal terminated program cc1\ncompilation terminated.\n"),
            Some(Limit::CpuTime)
        );
        assert_eq!(
            hit("cc: fatal error: Killed signal terminated program cc1\n"),
            Some(Limit::Memory)
        );
        // The source's own `#error` and ordinary errors are not limits.
        assert_eq!(hit("bomb.c:3:2: error: #error out of memory\n"), None);
        assert_eq!(
            hit("a.c:1:10: fatal error: x.h: No such file or directory\n"),
            None
        );
        // Signals: SIGXCPU is the CPU limit, SIGKILL the OOM killer before the CPU limit's time.
        assert_eq!(
            l.hit(&ExitStatus::from_raw(SIGXCPU), t, None),
            Some(Limit::CpuTime)
        );
        assert_eq!(
            l.hit(&ExitStatus::from_raw(SIGKILL), t, None),
            Some(Limit::Memory)
        );
        assert_eq!(
            l.hit(&ExitStatus::from_raw(SIGKILL), Duration::from_secs(5), None),
            Some(Limit::CpuTime)
        );
        // Success, and limits that are not set, are never hits.
        assert_eq!(
            l.hit(&ExitStatus::from_raw(0), t, Some(b"out of memory")),
            None
        );
        assert_eq!(ChildLimits::new(1, None).memory_mb, MIN_CHILD_MEMORY_MB);
        let none = ChildLimits::new(0, None);
        assert_eq!(none.hit(&ExitStatus::from_raw(SIGXCPU), t, None), None);
        assert_eq!(none.hit(&failed, t, Some(b"cc1: out of memory")), None);
        assert_eq!(
            l.describe(Limit::Memory),
            "the memory limit (--max-memory 1024 MB)"
        );
    }
}
