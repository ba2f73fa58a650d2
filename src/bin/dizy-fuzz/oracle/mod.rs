//! The native oracle and the dizy runner: processes with deadlines.
//!
//! Takes both versions of a pair and a list of typed inputs; gives, per input, what each version
//! did when compiled by gcc with AddressSanitizer and UndefinedBehaviorSanitizer (plus
//! float-cast-overflow): its observable behaviour, undefined behaviour, or no termination within
//! a CPU-time limit. One gcc call per pair: both versions go into a single harness, their
//! file-scope names prefixed `o_` / `n_` (static locals hoisted to file scope so the harness can
//! read them); the harness reads one input per line and forks once per input and version, so
//! every version starts from its own initializers and a sanitizer abort or a hang loses only that
//! run. Used by `check` for every pair and by `minimize` for every candidate; also runs `dizy
//! diff` as a subprocess with a hard kill, so panics, crashes and hangs are observed rather than
//! inherited.
//!
//! What one call observes (dizy's contract): the return value; the final contents of what the
//! pointer parameters point to; the globals and static locals, compared where either version
//! changed them; the bytes printed. Values are printed canonically by the harness, so that equal
//! canonical text means equal under the contract: integers in decimal, floating values with NaN
//! as `nan` and both zeros as `0` (so -0.0 equals 0.0 and NaN equals NaN), struct fields sorted
//! by name, arrays element by element, unions as their bytes.
//!
//! This file runs processes; [`inputs`] makes the inputs, [`harness`] writes and compiles the
//! harness, [`execute`] runs it and reads the observations, [`literals`] parses dizy's literals.

use std::io::{Read, Write};
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

mod execute;
mod harness;
mod inputs;
mod literals;

pub use execute::{execute, run_difference, Obs, Run};
pub use harness::{compile, recursive_helper_differs};
pub use inputs::{input_from_literals, input_from_witness, inputs, show_input, Input};
pub use literals::{float_eq, parse_float, parse_literal};

/// What a process did.
#[derive(Debug)]
pub struct Outcome {
    pub status: Option<ExitStatus>,
    pub stdout: String,
    pub stderr: String,
    pub killed: bool,
}

/// Run `cmd` with `stdin`, capturing its output; killed after `limit`.
pub fn run(cmd: &mut Command, stdin: &[u8], limit: Duration) -> std::io::Result<Outcome> {
    cmd.stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let start = Instant::now();
    let mut child = cmd.spawn()?;
    let mut pin = child.stdin.take().expect("piped stdin");
    let data = stdin.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = pin.write_all(&data);
    });
    let mut out = child.stdout.take().expect("piped stdout");
    let mut err = child.stderr.take().expect("piped stderr");
    let ro = std::thread::spawn(move || {
        let mut v = vec![];
        let _ = out.read_to_end(&mut v);
        v
    });
    let re = std::thread::spawn(move || {
        let mut v = vec![];
        let _ = err.read_to_end(&mut v);
        v
    });
    let mut killed = false;
    let status = loop {
        if let Some(st) = child.try_wait()? {
            break Some(st);
        }
        if start.elapsed() > limit {
            killed = true;
            let _ = child.kill();
            break child.wait().ok();
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let _ = writer.join();
    Ok(Outcome {
        status,
        stdout: String::from_utf8_lossy(&ro.join().unwrap_or_default()).into_owned(),
        stderr: String::from_utf8_lossy(&re.join().unwrap_or_default()).into_owned(),
        killed,
    })
}
