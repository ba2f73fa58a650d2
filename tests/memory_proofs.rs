//! Proofs over memory (the analysis' memory layer), checked against native execution.
//!
//! Each case is a pair of functions that read or write through pointers — strings, buffers,
//! structs, possibly aliasing — with the verdict dizy must reach: `Proved` pairs must be
//! `equivalent`, `Differs` pairs must never be `equivalent` (nor `unchanged` or
//! `partially-equivalent`). The labels are not taken on trust: an independent harness compiles
//! both versions with gcc, AddressSanitizer and UBSan and runs them on a fixed-seed sample of
//! memory inputs (random contents, NUL positions, lengths, aliasing between pointer
//! parameters), each input in its own process so that one with undefined behaviour is only
//! dropped; a `Proved` pair must show no difference on any input, a `Differs` pair at least one.

mod common;

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use common::run_with_timeout;
use serde_json::Value as Json;

/// How the harness sets one parameter.
#[derive(Clone, Copy, Debug)]
enum P {
    /// `char *` to a 12-byte buffer holding a NUL-terminated string (bytes after it random).
    Str,
    /// `char *` to a 12-byte buffer of random bytes (no terminator promised).
    Bytes,
    /// `int *` to 6 ints.
    Ints,
    /// A pointer to the buffer of parameter `k`, `off` bytes in (aliasing).
    Alias(usize, usize),
    /// An `int` in -2..=14.
    Int,
    /// An `int` character: 0, 'a', 'b', 0x80, 0xff or 'a' + 256.
    Char,
    /// A `size_t` in 0..=13.
    Len,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Ret {
    Int,
    Long,
    /// A pointer: compared as (buffer, offset) or NULL.
    Ptr,
    Void,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Want {
    Proved,
    Differs,
}

struct Case {
    name: &'static str,
    /// Declarations both versions share (structs), then the function `f`.
    old: &'static str,
    new: &'static str,
    params: &'static [P],
    ret: Ret,
    want: Want,
}

const STRLEN_IDX: &str =
    "unsigned long f(const char *s) { unsigned long n = 0; while (s[n]) n++; return n; }";
const STRLEN_PTR: &str =
    "unsigned long f(const char *s) { const char *p = s; while (*p) p++; return p - s; }";

const CASES: &[Case] = &[
    Case {
        name: "strlen_index_vs_pointer",
        old: STRLEN_IDX,
        new: STRLEN_PTR,
        params: &[P::Str],
        ret: Ret::Long,
        want: Want::Proved,
    },
    Case {
        name: "strlen_off_by_one",
        old: STRLEN_IDX,
        new: "unsigned long f(const char *s) { const char *p = s; while (*p) p++; return p - s + (*s == 'a'); }",
        params: &[P::Str],
        ret: Ret::Long,
        want: Want::Differs,
    },
    Case {
        name: "strchr_for_vs_while",
        old: "char *f(char *s, int c) { for (; *s; s++) if (*s == (char)c) return s; return c == 0 ? s : 0; }",
        new: "char *f(char *s, int c) { while (*s) { if (*s == (char)c) return s; s++; } if ((char)c == 0) return s; return 0; }",
        params: &[P::Str, P::Char],
        ret: Ret::Ptr,
        want: Want::Differs, // c = 256: (char)c == 0 but c != 0
    },
    Case {
        name: "strchr_for_vs_while_same",
        old: "char *f(char *s, int c) { for (; *s; s++) if (*s == (char)c) return s; return c == 0 ? s : 0; }",
        new: "char *f(char *s, int c) { while (*s) { if (*s == (char)c) return s; s++; } if (c == 0) return s; return 0; }",
        params: &[P::Str, P::Char],
        ret: Ret::Ptr,
        want: Want::Proved,
    },
    Case {
        name: "strcmp_pointer_vs_index_unsigned_bytes",
        old: "int f(const char *a, const char *b) { while (*a && *a == *b) { a++; b++; } return *(const unsigned char *)a - *(const unsigned char *)b; }",
        new: "int f(const char *a, const char *b) { int i = 0; while (a[i] && a[i] == b[i]) i++; return (unsigned char)a[i] - (unsigned char)b[i]; }",
        params: &[P::Str, P::Str],
        ret: Ret::Int,
        want: Want::Proved,
    },
    Case {
        name: "strcmp_signed_bytes",
        old: "int f(const char *a, const char *b) { while (*a && *a == *b) { a++; b++; } return *(const unsigned char *)a - *(const unsigned char *)b; }",
        new: "int f(const char *a, const char *b) { int i = 0; while (a[i] && a[i] == b[i]) i++; return a[i] - b[i]; }",
        params: &[P::Str, P::Str],
        ret: Ret::Int,
        want: Want::Differs,
    },
    Case {
        name: "copy_with_temporary",
        old: "void f(char *d, const char *s, int n) { for (int i = 0; i < n; i++) d[i] = s[i]; }",
        new: "void f(char *d, const char *s, int n) { int i; for (i = 0; i < n; i++) { char c = s[i]; d[i] = c; } }",
        params: &[P::Bytes, P::Bytes, P::Int],
        ret: Ret::Void,
        want: Want::Proved,
    },
    Case {
        name: "copy_with_temporary_aliasing",
        old: "void f(char *d, const char *s, int n) { for (int i = 0; i < n; i++) d[i] = s[i]; }",
        new: "void f(char *d, const char *s, int n) { int i; for (i = 0; i < n; i++) { char c = s[i]; d[i] = c; } }",
        params: &[P::Bytes, P::Alias(0, 1), P::Int],
        ret: Ret::Void,
        want: Want::Proved,
    },
    Case {
        // The same bytes stored as `unsigned char` in one version and `char` in the other.
        name: "copy_unsigned_vs_signed_bytes_aliasing",
        old: "void f(void *d, const void *s, unsigned long n) { unsigned char *q = d; const unsigned char *p = s; while (n--) *q++ = *p++; }",
        new: "void f(void *d, const void *s, unsigned long n) { char *q = d; const char *p = s; while (n--) { *q++ = *p++; } }",
        params: &[P::Bytes, P::Alias(0, 1), P::Len],
        ret: Ret::Void,
        want: Want::Proved,
    },
    Case {
        // Equal modulo 256 only when the byte is stored: `(char)(c + 256)` is `c`, while the
        // unsigned copy adds 1.
        name: "copy_unsigned_vs_signed_off_by_one",
        old: "void f(void *d, const void *s, unsigned long n) { unsigned char *q = d; const unsigned char *p = s; while (n--) *q++ = *p++; }",
        new: "void f(void *d, const void *s, unsigned long n) { char *q = d; const char *p = s; while (n--) *q++ = (char)(*p++ + 1); }",
        params: &[P::Bytes, P::Bytes, P::Len],
        ret: Ret::Void,
        want: Want::Differs,
    },
    Case {
        // `++n; while (--n)` wraps at n = SIZE_MAX and back: the wrapped piece stays apart at
        // the loop head until n is assigned again, so n = n' + 1 survives.
        name: "memset_count_wraps_and_back",
        old: "void *f(void *d, int c, unsigned long n) { char *a = d; n++; while (--n) *a++ = c; return d; }",
        new: "void *f(void *d, int c, unsigned long n) { char *q = d; while (n--) { *q++ = c; } return d; }",
        params: &[P::Bytes, P::Char, P::Len],
        ret: Ret::Ptr,
        want: Want::Proved,
    },
    Case {
        name: "memset_count_wraps_one_short",
        old: "void *f(void *d, int c, unsigned long n) { char *a = d; n++; while (--n) *a++ = c; return d; }",
        new: "void *f(void *d, int c, unsigned long n) { char *q = d; while (n-- > 1) { *q++ = c; } return d; }",
        params: &[P::Bytes, P::Char, P::Len],
        ret: Ret::Ptr,
        want: Want::Differs,
    },
    Case {
        name: "copy_backwards_overlap",
        old: "void f(char *d, const char *s, int n) { for (int i = 0; i < n; i++) d[i] = s[i]; }",
        new: "void f(char *d, const char *s, int n) { for (int i = n - 1; i >= 0; i--) d[i] = s[i]; }",
        params: &[P::Bytes, P::Alias(0, 1), P::Int],
        ret: Ret::Void,
        want: Want::Differs,
    },
    Case {
        name: "fill_one_more",
        old: "void f(int *d, int n) { for (int i = 0; i < n && i < 5; i++) d[i] = 7; }",
        new: "void f(int *d, int n) { for (int i = 0; i <= n && i < 5; i++) d[i] = 7; }",
        params: &[P::Ints, P::Int],
        ret: Ret::Void,
        want: Want::Differs,
    },
    Case {
        name: "stores_swapped_may_alias",
        old: "void f(int *p, int *q) { *p = 1; *q = 2; }",
        new: "void f(int *p, int *q) { *q = 2; *p = 1; }",
        params: &[P::Ints, P::Alias(0, 0)],
        ret: Ret::Void,
        want: Want::Differs,
    },
    Case {
        name: "read_after_write_same_address",
        old: "int f(int *p, int x) { *p = x; return *p + 1; }",
        new: "int f(int *p, int x) { *p = x; return x + 1; }",
        params: &[P::Ints, P::Int],
        ret: Ret::Int,
        want: Want::Proved,
    },
    Case {
        name: "read_moved_past_a_store_that_may_alias",
        old: "int f(int *p, int *q) { *q = 5; return *p; }",
        new: "int f(int *p, int *q) { int r = *p; *q = 5; return r; }",
        params: &[P::Ints, P::Alias(0, 0)],
        ret: Ret::Int,
        want: Want::Differs,
    },
    Case {
        name: "read_moved_past_a_store_elsewhere",
        old: "int f(int *p) { p[1] = 5; return p[0]; }",
        new: "int f(int *p) { int r = p[0]; p[1] = 5; return r; }",
        params: &[P::Ints],
        ret: Ret::Int,
        want: Want::Proved,
    },
    Case {
        name: "struct_fields_reordered",
        old: "struct P { int a; int b; };\nint f(struct P *p) { return p->a - p->b; }",
        new: "struct P { int a; int b; };\nint f(struct P *p) { int b = p->b; return -b + p->a; }",
        params: &[P::Ints],
        ret: Ret::Int,
        want: Want::Proved,
    },
    Case {
        name: "struct_field_confused",
        old: "struct P { int a; int b; };\nvoid f(struct P *p, int v) { p->a = v; }",
        new: "struct P { int a; int b; };\nvoid f(struct P *p, int v) { p->b = v; }",
        params: &[P::Ints, P::Int],
        ret: Ret::Void,
        want: Want::Differs,
    },
    Case {
        name: "memset_pointer_vs_index",
        old: "void f(char *d, int c, unsigned long n) { unsigned long i; for (i = 0; i < n; i++) d[i] = (char)c; }",
        new: "void f(char *d, int c, unsigned long n) { char *p = d; while (n--) *p++ = (char)c; }",
        params: &[P::Bytes, P::Char, P::Len],
        ret: Ret::Void,
        want: Want::Proved,
    },
    Case {
        // A pointer walk against an index, with the bytes and the character both read as
        // unsigned in one and signed in the other: the sign splits of each iteration must not
        // pile up at the loop head (the conversions' facts end there).
        name: "memchr_bytes_as_unsigned",
        old: "void *f(const void *s, int c, unsigned long n) { const unsigned char *p = s; for (; n; n--, p++) if (*p == (unsigned char)c) return (void *)p; return 0; }",
        new: "void *f(const void *s, int c, unsigned long n) { const char *p = s; unsigned long i; for (i = 0; i < n; i++) if (p[i] == (char)c) return (void *)(p + i); return 0; }",
        params: &[P::Bytes, P::Char, P::Len],
        ret: Ret::Ptr,
        want: Want::Proved,
    },
    Case {
        // The same bytes compared as unsigned and as signed chars, with the character
        // converted alike: conversion sites relate `(unsigned char)c` and `(char)c`.
        name: "memchr_casts_unsigned_vs_signed",
        old: "void *f(const void *s, int c, unsigned long n) { const unsigned char *p = s; unsigned long i; for (i = 0; i < n; i++) if (p[i] == (unsigned char)c) return (void *)(p + i); return 0; }",
        new: "void *f(const void *s, int c, unsigned long n) { const char *p = s; unsigned long i; for (i = 0; i < n; i++) if (p[i] == (char)c) return (void *)(p + i); return 0; }",
        params: &[P::Bytes, P::Char, P::Len],
        ret: Ret::Ptr,
        want: Want::Proved,
    },
    Case {
        name: "memchr_signed_compare",
        old: "void *f(const void *s, int c, unsigned long n) { const unsigned char *p = s; for (; n; n--, p++) if (*p == (unsigned char)c) return (void *)p; return 0; }",
        new: "void *f(const void *s, int c, unsigned long n) { const char *p = s; unsigned long i; for (i = 0; i < n; i++) if (p[i] == c) return (void *)(p + i); return 0; }",
        params: &[P::Bytes, P::Char, P::Len],
        ret: Ret::Ptr,
        want: Want::Differs,
    },
    Case {
        // A null check one version adds: the other dereferences null (undefined behaviour in
        // one version only is a difference, never pruned away as "no undefined behaviour").
        name: "null_check_added",
        old: "struct R { int lo; int hi; };\nint f(struct R *r, int x) { if (x > 3) r = 0; return r->hi - r->lo; }",
        new: "struct R { int lo; int hi; };\nint f(struct R *r, int x) { if (x > 3) r = 0; if (!r) return 0; return r->hi - r->lo; }",
        params: &[P::Ints, P::Int],
        ret: Ret::Int,
        want: Want::Differs,
    },
    Case {
        // The same pointer returned, the parameter renamed: named by position, not by name.
        name: "renamed_parameter_returned",
        old: "char *f(char *s, int n) { if (n > 2) return s + 1; return s; }",
        new: "char *f(char *t, int n) { if (n > 2) return t + 1; return t; }",
        params: &[P::Bytes, P::Int],
        ret: Ret::Ptr,
        want: Want::Proved,
    },
];

// ---------------------------------------------------------------------------------------------
// The native oracle

fn c_param(p: P) -> &'static str {
    match p {
        P::Str | P::Bytes | P::Alias(..) => "void *",
        P::Ints => "void *",
        P::Int | P::Char => "int",
        P::Len => "unsigned long",
    }
}

/// A harness running both versions (`f_old`, `f_new`) on `inputs` samples, one child process
/// per input; prints `DIFF k` per differing input and `DONE ok ub` at the end.
fn harness(c: &Case, inputs: usize) -> String {
    let n = c.params.len();
    let mut s = String::new();
    s.push_str("#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n#include <unistd.h>\n#include <sys/wait.h>\n#include <sys/mman.h>\n");
    let sig: Vec<&str> = c.params.iter().map(|p| c_param(*p)).collect();
    let rty = match c.ret {
        Ret::Int => "int",
        Ret::Long => "unsigned long",
        Ret::Ptr => "void *",
        Ret::Void => "void",
    };
    // Each version is its own translation unit (they may define the same structs); pointers
    // are passed as `void *`, which the x86-64 ABI passes like any object pointer.
    s.push_str(&format!(
        "{rty} f_old({sig});\n{rty} f_new({sig});\n",
        sig = sig.join(", ")
    ));
    s.push_str(
        r#"
static unsigned long long st = 88172645463325252ULL;
static unsigned long long rnd(void) { st ^= st << 13; st ^= st >> 7; st ^= st << 17; return st; }
static const unsigned char alpha[] = { 'a', 'b', 'c', 0x80, 0xff, 'A', 0 };
#define BUF 24
"#,
    );
    // Per input: raw parameter material, the buffers, then one run per version.
    s.push_str(&format!(
        "typedef struct {{ unsigned char bytes[{n}][BUF]; long ival[{n}]; }} input_t;\n"
    ));
    s.push_str(&format!("static int nparams = {n};\n"));
    s.push_str("static void gen(input_t *in) {\n  memset(in, 0, sizeof *in);\n");
    for (k, p) in c.params.iter().enumerate() {
        match p {
            P::Str => s.push_str(&format!(
                "  {{ int len = rnd() % 12; for (int i = 0; i < BUF; i++) in->bytes[{k}][i] = alpha[rnd() % 6]; in->bytes[{k}][len] = 0; if (rnd() % 3 == 0 && {k} > 0) {{ memcpy(in->bytes[{k}], in->bytes[0], BUF); if (rnd() % 2) in->bytes[{k}][rnd() % (len + 1)] = alpha[rnd() % 7]; }} in->bytes[{k}][BUF - 1] = 0; }}\n"
            )),
            P::Bytes => s.push_str(&format!(
                "  for (int i = 0; i < BUF; i++) in->bytes[{k}][i] = alpha[rnd() % 7];\n"
            )),
            P::Ints => s.push_str(&format!(
                "  for (int i = 0; i < BUF; i++) in->bytes[{k}][i] = (rnd() % 4 == 0) ? 0xff : rnd() % 3;\n"
            )),
            P::Alias(..) => {}
            P::Int => s.push_str(&format!("  in->ival[{k}] = (long)(rnd() % 17) - 2;\n")),
            P::Char => s.push_str(&format!(
                "  {{ static const int cs[] = {{ 0, 'a', 'b', 0x80, 0xff, 'a' + 256, 256 }}; in->ival[{k}] = cs[rnd() % 7]; }}\n"
            )),
            P::Len => s.push_str(&format!("  in->ival[{k}] = rnd() % 14;\n")),
        }
    }
    s.push_str("}\n");
    // Run one version: fresh heap buffers with the input's bytes; record return and buffers.
    s.push_str(&format!(
        "typedef struct {{ int kind; long val; int buf; long off; unsigned char out[{n}][BUF]; }} obs_t;\n"
    ));
    s.push_str("static void run(input_t *in, int ver, obs_t *o) {\n");
    s.push_str(&format!("  unsigned char *b[{n}] = {{0}};\n"));
    for (k, p) in c.params.iter().enumerate() {
        if matches!(p, P::Str | P::Bytes | P::Ints) {
            s.push_str(&format!(
                "  b[{k}] = malloc(BUF); memcpy(b[{k}], in->bytes[{k}], BUF);\n"
            ));
        }
    }
    let args: Vec<String> = c
        .params
        .iter()
        .enumerate()
        .map(|(k, p)| match p {
            P::Str | P::Bytes | P::Ints => format!("b[{k}]"),
            P::Alias(j, off) => format!("(b[{j}] + {off})"),
            _ => format!("in->ival[{k}]"),
        })
        .collect();
    let call = format!("(ver ? f_new : f_old)({})", args.join(", "));
    match c.ret {
        Ret::Void => s.push_str(&format!("  {call}; o->kind = 0;\n")),
        Ret::Int => s.push_str(&format!("  o->val = {call}; o->kind = 1;\n")),
        Ret::Long => s.push_str(&format!("  o->val = (long){call}; o->kind = 1;\n")),
        Ret::Ptr => s.push_str(&format!(
            "  {{ unsigned char *r = {call}; o->kind = 2; o->buf = -1; o->off = 0; if (r) for (int k = 0; k < nparams; k++) if (b[k] && r >= b[k] && r <= b[k] + BUF) {{ o->buf = k; o->off = r - b[k]; break; }} if (r && o->buf < 0) o->buf = -2; }}\n"
        )),
    }
    s.push_str("  for (int k = 0; k < nparams; k++) if (b[k]) { memcpy(o->out[k], b[k], BUF); free(b[k]); }\n}\n");
    s.push_str(&format!(
        r#"
int main(void) {{
  int ok = 0, ub = 0;
  obs_t *shared = mmap(0, 2 * sizeof(obs_t), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  for (int k = 0; k < {inputs}; k++) {{
    input_t in; gen(&in);
    int clean[2];
    for (int ver = 0; ver < 2; ver++) {{
      memset(&shared[ver], 0, sizeof(obs_t));
      pid_t pid = fork();
      if (pid == 0) {{ run(&in, ver, &shared[ver]); _exit(0); }}
      int status = 0; waitpid(pid, &status, 0);
      clean[ver] = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    }}
    if (clean[0] && clean[1]) {{
      if (memcmp(&shared[0], &shared[1], sizeof(obs_t))) printf("DIFF %d\n", k); else ok++;
    }} else if (clean[0] != clean[1]) printf("DIFF %d (undefined behaviour in the %s version only)\n", k, clean[0] ? "new" : "old");
    else ub++;
  }}
  printf("DONE %d %d\n", ok, ub);
  return 0;
}}
"#
    ));
    s
}

/// Native differences of the pair on the fixed sample: (differing inputs, clean agreeing inputs).
fn native(dir: &Path, c: &Case, old: &Path, new: &Path) -> (usize, usize) {
    let src = dir.join("harness.c");
    std::fs::write(&src, harness(c, 800)).unwrap();
    let exe = dir.join("harness");
    let gcc = |args: &[&std::ffi::OsStr]| {
        let out = run_with_timeout(
            Command::new("gcc")
                .args(["-O0", "-g", "-w", "-fsanitize=address,undefined"])
                .arg("-fno-sanitize-recover=all")
                .args(args),
            None,
            Duration::from_secs(120),
        );
        assert_eq!(
            out.code(),
            Some(0),
            "{}: harness build: {}",
            c.name,
            out.stderr
        );
    };
    let (o_old, o_new) = (dir.join("old.o"), dir.join("new.o"));
    gcc(&[
        "-c".as_ref(),
        "-Df=f_old".as_ref(),
        old.as_os_str(),
        "-o".as_ref(),
        o_old.as_os_str(),
    ]);
    gcc(&[
        "-c".as_ref(),
        "-Df=f_new".as_ref(),
        new.as_os_str(),
        "-o".as_ref(),
        o_new.as_os_str(),
    ]);
    gcc(&[
        src.as_os_str(),
        o_old.as_os_str(),
        o_new.as_os_str(),
        "-o".as_ref(),
        exe.as_os_str(),
    ]);
    let run = run_with_timeout(
        Command::new(&exe).env("ASAN_OPTIONS", "detect_leaks=0:symbolize=0"),
        None,
        Duration::from_secs(300),
    );
    let diffs = run.stdout.lines().filter(|l| l.starts_with("DIFF")).count();
    let done = run
        .stdout
        .lines()
        .find_map(|l| l.strip_prefix("DONE "))
        .unwrap_or_else(|| panic!("{}: harness did not finish: {}", c.name, run.stderr));
    let ok: usize = done.split(' ').next().unwrap().parse().unwrap();
    (diffs, ok)
}

fn verdict(old: &Path, new: &Path) -> Json {
    let out = run_with_timeout(
        Command::new(env!("CARGO_BIN_EXE_dizy"))
            .args([
                "diff",
                "--function",
                "f",
                "--format",
                "json",
                "--timeout",
                "20",
            ])
            .arg(old)
            .arg(new),
        None,
        Duration::from_secs(120),
    );
    serde_json::from_str(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", out.stderr))
}

#[test]
fn memory_pairs_get_their_verdicts_and_native_runs_agree() {
    if Command::new("gcc").arg("--version").output().is_err() {
        eprintln!("skipped: no gcc");
        return;
    }
    let tmp = std::env::temp_dir().join(format!("dizy-memproofs-{}", std::process::id()));
    let mut failures = vec![];
    for c in CASES {
        let dir = tmp.join(c.name);
        std::fs::create_dir_all(&dir).unwrap();
        let (old, new) = (dir.join("old.c"), dir.join("new.c"));
        std::fs::write(&old, format!("{}\n", c.old)).unwrap();
        std::fs::write(&new, format!("{}\n", c.new)).unwrap();
        let (diffs, ok) = native(&dir, c, &old, &new);
        // The label holds natively: a sample large enough to be meaningful.
        assert!(ok + diffs >= 300, "{}: only {ok} clean inputs", c.name);
        match c.want {
            Want::Proved => assert_eq!(diffs, 0, "{}: natively different", c.name),
            Want::Differs => assert!(diffs > 0, "{}: no native difference found", c.name),
        }
        let j = verdict(&old, &new);
        let v = j["functions"][0]["verdict"]
            .as_str()
            .unwrap_or("?")
            .to_string();
        let bad = match c.want {
            Want::Proved => v != "equivalent",
            Want::Differs => matches!(
                v.as_str(),
                "equivalent" | "unchanged" | "partially-equivalent"
            ),
        };
        if bad {
            failures.push(format!("{}: {v} (want {:?})", c.name, c.want));
        }
    }
    let _ = std::fs::remove_dir_all(&tmp);
    assert!(failures.is_empty(), "{failures:#?}");
}
