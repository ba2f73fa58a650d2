//! The native oracle and the dizy runner: processes with deadlines.
//!
//! Takes both versions of a pair and a list of inputs; gives, per input, the observable results of
//! each version compiled by the system C compiler (return value and the global `g`), or `Ub` when
//! UndefinedBehaviorSanitizer stopped either version. One gcc call per pair: both versions go into
//! a single harness, their file-scope names prefixed `o_` / `n_`; the harness forks once per
//! input so that a sanitizer abort or a hang loses only that input. Also runs `dizy diff` as a
//! subprocess with a hard kill, so panics, crashes and hangs are observed rather than inherited.
//! Used by `check` for every pair and by `minimize` for every candidate.

use std::io::{Read, Write};
use std::path::Path;
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use crate::gen::{Program, Rng, Ty, MAIN};

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

/// One oracle input: the parameters in order, then the entry value of `g` when there is one.
pub type Input = Vec<i64>;

/// Observable results of both versions on one input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Obs {
    /// (old return, new return, old g, new g); the globals are 0 when there is none.
    Ran([i64; 4]),
    /// Either version has undefined behaviour on this input: it is not a test.
    Ub,
    /// A version did not finish in time (the generator should prevent this).
    Hang,
}

impl Obs {
    pub fn differs(&self) -> bool {
        matches!(self, Obs::Ran(v) if v[0] != v[1] || v[2] != v[3])
    }
}

fn bounds(t: Ty) -> &'static [i64] {
    match t {
        Ty::Int => &[
            0,
            1,
            -1,
            2,
            -2,
            3,
            5,
            7,
            8,
            9,
            10,
            11,
            16,
            100,
            127,
            128,
            -128,
            255,
            256,
            1000,
            -1000,
            65535,
            65536,
            2147483647,
            -2147483648,
            2147483646,
            -2147483647,
        ],
        Ty::Char => &[0, 1, -1, 2, 7, 8, 10, 48, 97, 127, -128, -127, 126],
        Ty::Unsigned => &[
            0, 1, 2, 3, 7, 8, 10, 100, 255, 256, 65536, 2147483647, 2147483648, 4294967294,
            4294967295,
        ],
    }
}

/// Boundary, small and random inputs for a program, deterministic in `rng`.
pub fn inputs(p: &Program, rng: &mut Rng, count: usize) -> Vec<Input> {
    let mut tys: Vec<Ty> = p.main.params.iter().map(|x| x.0).collect();
    if p.global {
        tys.push(Ty::Int);
    }
    let mut out: Vec<Input> = vec![vec![0; tys.len()]];
    // each parameter through its boundary values, the others small
    for (k, t) in tys.iter().enumerate() {
        for &b in bounds(*t) {
            let mut v: Input = tys.iter().map(|_| rng.range(-3, 12)).collect();
            v[k] = b;
            out.push(v);
        }
    }
    while out.len() < count {
        let v = match rng.below(3) {
            0 => tys.iter().map(|t| *rng.pick(bounds(*t))).collect(),
            1 => tys.iter().map(|_| rng.range(-12, 40)).collect(),
            _ => tys
                .iter()
                .map(|t| match t {
                    Ty::Int => rng.range(-100_000, 100_000),
                    Ty::Char => rng.range(-128, 127),
                    Ty::Unsigned => rng.range(0, 4_294_967_295),
                })
                .collect(),
        };
        out.push(v);
    }
    out
}

/// The harness: both versions, then a `main` reading one input per line and printing, per
/// input, `ro rn go gn`, `UB` or `HANG`.
pub fn harness(old: &Program, new: &Program) -> String {
    let mut s = String::from(
        "#include <stdio.h>\n#include <stdlib.h>\n#include <unistd.h>\n#include <sys/wait.h>\n#include <signal.h>\n",
    );
    s.push_str(&old.print("o_"));
    s.push_str(&new.print("n_"));
    let args = old
        .main
        .params
        .iter()
        .enumerate()
        .map(|(i, (t, _))| format!("({})v[{i}]", t.c()))
        .collect::<Vec<_>>()
        .join(", ");
    let np = old.main.params.len();
    // Globals are set from the input before each version runs; a program without one prints 0.
    let (set_o, set_n, get) = if old.global {
        (
            format!("o_g = (int)v[{np}];"),
            format!("n_g = (int)v[{np}];"),
            "o_g, n_g".to_string(),
        )
    } else {
        (String::new(), String::new(), "0, 0".to_string())
    };
    let _ = new.global; // both versions of a pair share the global's presence
    s.push_str(&format!(
        r#"
static void one(long long *v)
{{
    {set_o}
    int ro = o_{MAIN}({ao});
    {set_n}
    int rn = n_{MAIN}({an});
    printf("%d %d %d %d\n", ro, rn, {get});
}}

int main(void)
{{
    char line[512];
    while (fgets(line, sizeof line, stdin)) {{
        long long v[8] = {{0}};
        char *p = line, *e;
        for (int k = 0; k < 8; k++) {{
            v[k] = strtoll(p, &e, 10);
            if (e == p) break;
            p = e;
        }}
        fflush(stdout);
        pid_t pid = fork();
        if (pid == 0) {{
            alarm(2);
            one(v);
            fflush(stdout);
            _exit(0);
        }}
        int st = 0;
        waitpid(pid, &st, 0);
        if (WIFSIGNALED(st) && WTERMSIG(st) == SIGALRM) printf("HANG\n");
        else if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) printf("UB\n");
        fflush(stdout);
    }}
    return 0;
}}
"#,
        ao = args,
        an = args,
    ));
    s
}

/// Compile the harness of a pair in `dir`; gives the executable or gcc's complaint.
pub fn compile(dir: &Path, old: &Program, new: &Program) -> Result<std::path::PathBuf, String> {
    let src = dir.join("harness.c");
    let exe = dir.join("harness");
    std::fs::write(&src, harness(old, new)).map_err(|e| e.to_string())?;
    let o = run(
        Command::new("gcc")
            .args([
                "-std=gnu11",
                "-O0",
                "-w",
                "-fsanitize=undefined",
                "-fno-sanitize-recover=all",
                "-o",
            ])
            .arg(&exe)
            .arg(&src),
        b"",
        Duration::from_secs(60),
    )
    .map_err(|e| format!("cannot run gcc: {e}"))?;
    if o.status.is_some_and(|s| s.success()) {
        Ok(exe)
    } else {
        Err(format!("gcc failed on {}: {}", src.display(), o.stderr))
    }
}

/// Run the compiled harness on `inputs`.
pub fn execute(exe: &Path, inputs: &[Input]) -> Result<Vec<Obs>, String> {
    let mut text = String::new();
    for v in inputs {
        let parts: Vec<String> = v.iter().map(i64::to_string).collect();
        text.push_str(&parts.join(" "));
        text.push('\n');
    }
    let limit = Duration::from_secs(10 + inputs.len() as u64 / 10);
    let o = run(
        Command::new(exe).env("UBSAN_OPTIONS", "print_stacktrace=0"),
        text.as_bytes(),
        limit,
    )
    .map_err(|e| format!("cannot run harness: {e}"))?;
    if o.killed {
        return Err("harness timed out".into());
    }
    let obs: Vec<Obs> = o
        .stdout
        .lines()
        .map(|l| match l.trim() {
            "UB" => Obs::Ub,
            "HANG" => Obs::Hang,
            l => {
                let mut v = [0i64; 4];
                for (k, w) in l.split_whitespace().take(4).enumerate() {
                    v[k] = w.parse().unwrap_or(0);
                }
                Obs::Ran(v)
            }
        })
        .collect();
    if obs.len() != inputs.len() {
        return Err(format!(
            "harness gave {} results for {} inputs",
            obs.len(),
            inputs.len()
        ));
    }
    Ok(obs)
}

/// Parse a C integer literal as dizy prints it (decimal, maybe a sign, suffix or char literal).
pub fn parse_literal(s: &str) -> Option<i64> {
    let s = s.trim();
    if let Some(body) = s.strip_prefix('\'').and_then(|r| r.strip_suffix('\'')) {
        let b = body.as_bytes();
        return match b {
            [c] => Some(i64::from(*c as i8)),
            [b'\\', b'n'] => Some(10),
            [b'\\', b'0'] => Some(0),
            [b'\\', b'\\'] => Some(92),
            [b'\\', b'\''] => Some(39),
            [b'\\', b'x', h @ ..] => i64::from_str_radix(std::str::from_utf8(h).ok()?, 16)
                .ok()
                .map(|v| i64::from(v as u8 as i8)),
            _ => None,
        };
    }
    let t = s.trim_end_matches(['u', 'U', 'l', 'L']);
    let (neg, t) = match t.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, t),
    };
    let v = if let Some(h) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        i128::from_str_radix(h, 16).ok()?
    } else {
        t.parse::<i128>().ok()?
    };
    let v = if neg { -v } else { v };
    i64::try_from(v).ok()
}
