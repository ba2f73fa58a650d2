//! Process-wide resource accounting: the resident size, what the process is doing, and a memory
//! backstop.
//!
//! Takes `--max-memory` from the CLI; gives [`resident_mb`] (read by the analysis' own, graceful
//! memory check) and a watchdog thread that ends the process with exit code 2 and a message once
//! the resident size passes the limit plus a slack. The analysis and the witness search stop a
//! function cleanly at the limit itself; the watchdog only catches memory spent where no check
//! can run — inside the C parser on a huge file, or inside one z3 query — so dizy never runs
//! into the kernel's OOM killer. Stages say what they are doing with [`set_phase`], so that the
//! message can name the file or function.

use std::io::Write;
use std::sync::Mutex;
use std::time::Duration;

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
