//! Witnesses with memory: buffers behind pointer parameters, strings, structs by value and
//! aliasing (issue 16, item 2).
//!
//! Oracle: gcc with AddressSanitizer and UBSan, through a driver this test writes itself from the
//! report's `memory_inputs` (exact bytes per buffer) and scalar inputs — independent of dizy's own
//! `--validate native` harness. For every pair that differs, dizy must say `different` with a
//! witness validated natively, and the test's own driver must see the two versions behave
//! differently on it (return value, or final buffer contents) with no sanitizer report. For
//! pairs that are the same function written another way, dizy must never say `different`.

mod common;

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use serde_json::Value as Json;

/// A pair: shared declarations, the old and new definitions, the function, its parameter types
/// (C spelling), its return type.
struct Case {
    name: &'static str,
    prelude: &'static str,
    old: &'static str,
    new: &'static str,
    params: &'static [&'static str],
    ret: &'static str,
}

const DIFFERENT: &[Case] = &[
    Case {
        name: "sum_from_one",
        prelude: "",
        old: "int f(int *a, int n) { int s = 0; for (int i = 0; i < n; i++) s += a[i]; return s; }",
        new: "int f(int *a, int n) { int s = 0; for (int i = 1; i < n; i++) s += a[i]; return s; }",
        params: &["int *", "int"],
        ret: "int",
    },
    Case {
        name: "guarded_store",
        prelude: "",
        old: "void f(int *p, int x) { if (x > 0) *p = 1; }",
        new: "void f(int *p, int x) { if (x > 1) *p = 1; }",
        params: &["int *", "int"],
        ret: "void",
    },
    Case {
        name: "second_char",
        prelude: "",
        old: "int f(const char *s) { return s[0] == 'a'; }",
        new: "int f(const char *s) { return s[1] == 'a'; }",
        params: &["const char *"],
        ret: "int",
    },
    Case {
        name: "struct_field",
        prelude: "struct P { int a; int b; };",
        old: "int f(struct P p) { return p.a + 1; }",
        new: "int f(struct P p) { return p.a + 2; }",
        params: &["struct P"],
        ret: "int",
    },
    Case {
        name: "store_order_alias",
        prelude: "",
        old: "int f(int *p, int *q) { *p = 1; *q = 2; return *p; }",
        new: "int f(int *p, int *q) { *q = 2; *p = 1; return *p; }",
        params: &["int *", "int *"],
        ret: "int",
    },
    Case {
        // The thesis's strchr bug class: the terminator itself is searched for.
        name: "strchr_nul",
        prelude: "",
        old: "char *f(char *s, int c) { while (*s && *s != (char)c) s++; return *s == (char)c ? s : 0; }",
        new: "char *f(char *s, int c) { while (*s && *s != (char)c) s++; return *s ? s : 0; }",
        params: &["char *", "int"],
        ret: "char *",
    },
    Case {
        // strcmp must compare bytes as unsigned char.
        name: "strcmp_signedness",
        prelude: "",
        old: "int f(const char *a, const char *b) { while (*a && *a == *b) { a++; b++; } return (unsigned char)*a - (unsigned char)*b; }",
        new: "int f(const char *a, const char *b) { while (*a && *a == *b) { a++; b++; } return *a - *b; }",
        params: &["const char *", "const char *"],
        ret: "int",
    },
    Case {
        name: "memccpy_stop",
        prelude: "",
        old: "void *f(void *d, const void *s, int c, unsigned long n) { unsigned char *dp = d; const unsigned char *sp = s; for (; n; n--) { if ((*dp++ = *sp++) == (unsigned char)c) return dp; } return 0; }",
        new: "void *f(void *d, const void *s, int c, unsigned long n) { unsigned char *dp = d; const unsigned char *sp = s; for (; n; n--) { if ((*dp++ = *sp++) == c) return dp; } return 0; }",
        params: &["void *", "const void *", "int", "unsigned long"],
        ret: "void *",
    },
    Case {
        name: "swab_odd",
        prelude: "",
        old: "void f(const char *from, char *to, long n) { for (long i = 0; i + 1 < n; i += 2) { to[i] = from[i + 1]; to[i + 1] = from[i]; } }",
        new: "void f(const char *from, char *to, long n) { for (long i = 0; i < n; i += 2) { to[i] = from[i + 1]; to[i + 1] = from[i]; } }",
        params: &["const char *", "char *", "long"],
        ret: "void",
    },
    Case {
        name: "struct_through_pointer",
        prelude: "struct R { int lo; int hi; };",
        old: "int f(struct R *r, int x) { return x >= r->lo && x < r->hi; }",
        new: "int f(struct R *r, int x) { return x >= r->lo && x <= r->hi; }",
        params: &["struct R *", "int"],
        ret: "int",
    },
    Case {
        name: "strlen_off_by_one",
        prelude: "",
        old: "unsigned long f(const char *s) { const char *p = s; while (*p) p++; return p - s; }",
        new: "unsigned long f(const char *s) { const char *p = s; while (*p) p++; return p - s + (*s == '/'); }",
        params: &["const char *"],
        ret: "unsigned long",
    },
    Case {
        name: "bounds_check_added",
        prelude: "",
        old: "int f(const char *s, int n, int i) { return s[i]; }",
        new: "int f(const char *s, int n, int i) { if (i < 0 || i >= n) return -1; return s[i]; }",
        params: &["const char *", "int", "int"],
        ret: "int",
    },
    Case {
        // Strings of different alignments take a byte loop comparing plain (signed) `char`s,
        // as dietlibc's word-at-a-time strcmp does: only a misaligned buffer with a byte of
        // 0x80 or more shows it.
        name: "alignment_dependent_compare",
        prelude: "",
        old: "int f(const char *a, const char *b) { if (((unsigned long)a ^ (unsigned long)b) & 7) { while (*a && *a == *b) a++, b++; return *a - *b; } while (*a && *a == *b) a++, b++; return *(const unsigned char *)a - *(const unsigned char *)b; }",
        new: "int f(const char *a, const char *b) { while (*a && *a == *b) a++, b++; return *(const unsigned char *)a - *(const unsigned char *)b; }",
        params: &["const char *", "const char *"],
        ret: "int",
    },
    Case {
        // The bound is checked against a count in the struct, the elements are behind a member.
        name: "member_buffer_bound",
        prelude: "struct S { int n; int *vals; };",
        old: "int f(struct S *s, int i) { if (!s->vals) return -1; if (i < 0 || i > s->n) return -2; return s->vals[i]; }",
        new: "int f(struct S *s, int i) { if (!s->vals) return -1; if (i < 0 || i >= s->n) return -2; return s->vals[i]; }",
        params: &["struct S *", "int"],
        ret: "int",
    },
    Case {
        name: "argv_second_string",
        prelude: "",
        old: "int f(int argc, char **argv) { if (argc < 2 || !argv[1]) return 0; return argv[1][0] == 'a'; }",
        new: "int f(int argc, char **argv) { if (argc < 2 || !argv[1]) return 0; return argv[1][0] == 'b'; }",
        params: &["int", "char **"],
        ret: "int",
    },
    Case {
        name: "member_string_by_value",
        prelude: "struct B { char *p; int len; };",
        old: "int f(struct B b) { if (!b.p || b.len < 1) return -1; return b.p[0] == 'a'; }",
        new: "int f(struct B b) { if (!b.p || b.len < 1) return -1; return b.p[0] == 'b'; }",
        params: &["struct B"],
        ret: "int",
    },
    Case {
        // A format's private data behind `void *`, two pointers down (libarchive's
        // `a->format->data`, libsndfile's `psf->codec_data`).
        name: "private_data_two_levels",
        prelude: "struct priv { int cap; int used; }; struct fmt { int kind; void *data; }; struct arch { int flags; struct fmt *format; };",
        old: "int f(struct arch *a, int n) { struct priv *r; if (!a->format || !a->format->data) return -1; r = a->format->data; if (n > r->cap) return -2; return n + r->used; }",
        new: "int f(struct arch *a, int n) { struct priv *r; if (!a->format || !a->format->data) return -1; r = a->format->data; if (n >= r->cap) return -2; return n + r->used; }",
        params: &["struct arch *", "int"],
        ret: "int",
    },
    // A pointer and the end of its buffer, two parameters (expat's `ptr, end`).
    Case {
        name: "pointer_and_end",
        prelude: "",
        old: "int f(const char *p, const char *end) { int n = 0; while (p < end) { if (*p == '<') return n; p++; n++; } return -1; }",
        new: "int f(const char *p, const char *end) { int n = 0; while (p < end) { if (*p == '<' || n > 3) return n; p++; n++; } return -1; }",
        params: &["const char *", "const char *"],
        ret: "int",
    },
    // A cursor and its limit in one buffer: their difference is a length only there.
    Case {
        name: "cursor_and_limit",
        prelude: "struct cur { const unsigned char *ptr; const unsigned char *limit; };",
        old: "int f(struct cur *r) { long n = r->limit - r->ptr; if (n > 3) return r->ptr[3]; return -1; }",
        new: "int f(struct cur *r) { long n = r->limit - r->ptr; if (n > 4) return r->ptr[3]; return -1; }",
        params: &["struct cur *"],
        ret: "int",
    },
];

/// Pairs where one version accesses memory it may not on some input (the fix of a security
/// patch) and behaves the same on every other: `different`, with the invalid access as the old
/// version's behaviour. (Where a clean input also differs, dizy prefers that one:
/// `bounds_check_added` above.)
const UNSAFE_IN_OLD: &[Case] = &[
    Case {
        name: "null_check_added",
        prelude: "struct R { int lo; int hi; };",
        old: "int f(struct R *r) { return r->hi - r->lo; }",
        new: "int f(struct R *r) { if (!r) return 0; return r->hi - r->lo; }",
        params: &["struct R *"],
        ret: "int",
    },
    Case {
        // coreutils md5sum's bsd_split_3 before 6.11: `s_len - 1` wraps for an empty line.
        name: "length_zero_wraps",
        prelude: "",
        old: "int f(char *s, unsigned long s_len) { unsigned long i = s_len - 1; while (i && s[i] != ')') i--; return s[i] == ')'; }",
        new: "int f(char *s, unsigned long s_len) { if (s_len == 0) return 0; unsigned long i = s_len - 1; while (i && s[i] != ')') i--; return s[i] == ')'; }",
        params: &["char *", "unsigned long"],
        ret: "int",
    },
    Case {
        // libarchive's RAR e8 filter before its fix: a length of 4 passes the check and
        // `length - 5` wraps, so the loop runs past the VM's memory. The length sits in a
        // struct among other fields, the memory behind another struct's member.
        name: "length_in_a_struct_wraps",
        prelude: "struct F { struct F *next; unsigned regs[8]; unsigned blocklen; }; struct V { unsigned char *memory; };",
        old: "int f(struct F *filter, struct V *vm) { unsigned length = filter->regs[4]; unsigned i; if (length > 1000 || length < 4) return 0; for (i = 0; i <= length - 5; i++) if (vm->memory[i] == 0xE8) i += 4; filter->blocklen = length; return 1; }",
        new: "int f(struct F *filter, struct V *vm) { unsigned length = filter->regs[4]; unsigned i; if (length > 1000 || length <= 4) return 0; for (i = 0; i <= length - 5; i++) if (vm->memory[i] == 0xE8) i += 4; filter->blocklen = length; return 1; }",
        params: &["struct F *", "struct V *"],
        ret: "int",
    },
    Case {
        // libarchive's copy_from_lzss_window_to_unp before CVE-2024-20696's fix, reduced: the
        // length is checked against the window but not the output buffer, and a window that
        // was never allocated is read.
        name: "private_window_unchecked",
        prelude: "struct win { unsigned char *window; int mask; }; struct rar { unsigned bufsize; unsigned char *buf; struct win lz; }; struct fmt { void *data; }; struct arch { struct fmt *format; };",
        old: "int f(struct arch *a, unsigned long len) { struct rar *r = (struct rar *)(a->format->data); if (len == 0) return 0; if (len <= (unsigned long)r->lz.mask + 1) return r->lz.window[len - 1]; return -1; }",
        new: "int f(struct arch *a, unsigned long len) { struct rar *r = (struct rar *)(a->format->data); if (len == 0) return 0; if (len > r->bufsize) return -1; if (len <= (unsigned long)r->lz.mask + 1) return r->lz.window[len - 1]; return -1; }",
        params: &["struct arch *", "unsigned long"],
        ret: "int",
    },
];

/// The same function written another way: never `different`.
const SAME: &[Case] = &[
    Case {
        // musl's strrchr/wcsrchr walk back to `s - 1`: forming that pointer is undefined, but
        // nothing reads it and natively both return the same; not a memory witness.
        name: "backward_scan_forms_s_minus_one",
        prelude: "",
        old: "char *f(char *s, unsigned long n, int c) { char *r = 0; for (unsigned long i = 0; i < n; i++) if (s[i] == (char)c) r = s + i; return r; }",
        new: "char *f(char *s, unsigned long n, int c) { char *p; for (p = s + n - 1; p >= s && *p != (char)c; p--); return p >= s ? p : 0; }",
        params: &["char *", "unsigned long", "int"],
        ret: "char *",
    },
    Case {
        name: "index_vs_pointer",
        prelude: "",
        old: "int f(int *a, int n) { int s = 0; for (int i = 0; i < n; i++) s += a[i]; return s; }",
        new: "int f(int *a, int n) { int s = 0; for (int i = 0; i < n; i++) s += *(a + i); return s; }",
        params: &["int *", "int"],
        ret: "int",
    },
    Case {
        name: "strlen_two_ways",
        prelude: "",
        old: "unsigned long f(const char *s) { unsigned long n = 0; while (s[n]) n++; return n; }",
        new: "unsigned long f(const char *s) { const char *p = s; while (*p) p++; return p - s; }",
        params: &["const char *"],
        ret: "unsigned long",
    },
    Case {
        name: "memset_two_ways",
        prelude: "",
        old: "void f(unsigned char *d, int c, int n) { for (int i = 0; i < n; i++) d[i] = c; }",
        new: "void f(unsigned char *d, int c, int n) { unsigned char *e = d + n; while (d < e) *d++ = (unsigned char)c; }",
        params: &["unsigned char *", "int", "int"],
        ret: "void",
    },
];

fn write_pair(dir: &Path, c: &Case) -> (std::path::PathBuf, std::path::PathBuf) {
    std::fs::create_dir_all(dir).expect("mkdir");
    let old = dir.join("old.c");
    let new = dir.join("new.c");
    std::fs::write(&old, format!("{}\n{}\n", c.prelude, c.old)).expect("write");
    std::fs::write(&new, format!("{}\n{}\n", c.prelude, c.new)).expect("write");
    (old, new)
}

fn dizy_json(old: &Path, new: &Path) -> (Option<i32>, Json) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_dizy"));
    cmd.arg("diff").arg(old).arg(new).args([
        "--format",
        "json",
        "--validate",
        "native",
        "--function",
        "f",
    ]);
    let out = common::run_with_timeout(&mut cmd, None, Duration::from_secs(120));
    assert!(!out.timed_out, "dizy timed out on {}", old.display());
    let json = serde_json::from_str(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {} {}", out.stdout, out.stderr));
    (out.code(), json)
}

/// The exact bytes of a memory input of the report.
fn json_bytes(m: &Json) -> Vec<u8> {
    m["bytes"]
        .as_array()
        .expect("bytes")
        .iter()
        .map(|b| b.as_u64().expect("byte") as u8)
        .collect()
}

/// Bytes as the body of a C string literal.
fn octal(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("\\{b:03o}")).collect()
}

/// The test's own driver for one version: the inputs from the report, the call, then the
/// return value (a pointer as `buffer+offset`) and each buffer's final bytes on stdout.
fn driver(source: &Path, c: &Case, w: &Json) -> String {
    let mem = &w["memory_inputs"];
    let mut s = format!(
        "#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n#include <stdint.h>\n#include \"{}\"\nint main(void) {{\n",
        source.display()
    );
    let names: Vec<String> = w["inputs"]
        .as_object()
        .expect("inputs")
        .keys()
        .cloned()
        .collect();
    // serde_json keeps keys sorted; the parameters are named in the case's order in the file.
    let order = param_names(c);
    assert_eq!(
        {
            let mut o = order.clone();
            o.sort();
            o
        },
        names,
        "{}",
        c.name
    );
    let mut args = vec![];
    let mut buffers = vec![];
    // Byte offsets of pointers to pointees, per buffer: their values differ from run to run.
    let mut masked: Vec<(usize, u64)> = vec![];
    for (i, (name, ty)) in order.iter().zip(c.params).enumerate() {
        let m = &mem[name];
        match m["kind"].as_str() {
            None => {
                let lit = w["inputs"][name].as_str().expect("scalar literal");
                s.push_str(&format!("    {ty} a{i} = {lit};\n"));
                args.push(format!("a{i}"));
            }
            Some("buffer") => {
                let bytes = json_bytes(m);
                // A misaligned buffer starts that many bytes past malloc's 16-byte boundary.
                let mis = m["misalignment"].as_u64().unwrap_or(0);
                s.push_str(&format!(
                    "    unsigned char *b{i} = malloc({});\n    if ((uintptr_t)b{i} & 15) return 3;\n    b{i} += {mis};\n    memcpy(b{i}, \"{}\", {});\n",
                    (bytes.len() as u64 + mis).max(1),
                    octal(&bytes),
                    bytes.len()
                ));
                args.push(format!("(void *)b{i}"));
                buffers.push((i, bytes.len()));
            }
            Some("aggregate") => {
                let bytes = json_bytes(m);
                s.push_str(&format!(
                    "    {ty} a{i};\n    memcpy(&a{i}, \"{}\", sizeof a{i});\n",
                    octal(&bytes)
                ));
                args.push(format!("a{i}"));
            }
            Some("alias") => {
                let of = m["of"].as_str().expect("alias of");
                let j = order
                    .iter()
                    .position(|n| n == of)
                    .expect("aliased parameter");
                args.push(format!("(void *)b{j}"));
            }
            Some("within") => {
                let of = m["of"].as_str().expect("within of");
                let j = order
                    .iter()
                    .position(|n| n == of)
                    .expect("pointed-into parameter");
                let off = m["offset"].as_u64().expect("within offset");
                args.push(format!("(void *)(b{j} + {off})"));
            }
            Some("null") => args.push("(void *)0".into()),
            Some(k) => panic!("unknown memory input kind {k}"),
        }
        // Pointer members set to fresh buffers, as the report's `pointees` say.
        let object = match m["kind"].as_str() {
            Some("buffer") => format!("b{i}"),
            _ => format!("(unsigned char *)&a{i}"),
        };
        let pointees: Vec<&Json> = m["pointees"].as_array().into_iter().flatten().collect();
        // Fresh buffers first: a pointer may point into a later pointee's buffer (`into`).
        for (j, p) in pointees.iter().enumerate() {
            if p.get("into").is_none() {
                let bytes = json_bytes(p);
                s.push_str(&format!(
                    "    unsigned char *p{i}_{j} = malloc({});\n    memcpy(p{i}_{j}, \"{}\", {});\n",
                    bytes.len().max(1),
                    octal(&bytes),
                    bytes.len()
                ));
            }
        }
        for (j, p) in pointees.iter().enumerate() {
            let path: Vec<u64> = p["path"]
                .as_array()
                .expect("pointee path")
                .iter()
                .map(|o| o.as_u64().unwrap())
                .collect();
            let (&off, parent) = path.split_last().expect("a path of one offset or more");
            assert_eq!(p["offset"].as_u64(), Some(off));
            // A pointer in the input's object, or in an earlier pointee's buffer.
            let into = if parent.is_empty() {
                masked.push((i, off));
                object.clone()
            } else {
                let k = pointees[..j]
                    .iter()
                    .position(|q| {
                        q["path"].as_array().unwrap().len() == parent.len()
                            && q["path"]
                                .as_array()
                                .unwrap()
                                .iter()
                                .zip(parent)
                                .all(|(a, b)| a.as_u64() == Some(*b))
                    })
                    .expect("the parent pointee comes first");
                format!("p{i}_{k}")
            };
            let value = match p.get("into") {
                Some(t) => format!(
                    "p{i}_{} + {}",
                    t["pointee"].as_u64().expect("into pointee"),
                    t["offset"].as_u64().expect("into offset")
                ),
                None => format!("p{i}_{j}"),
            };
            s.push_str(&format!(
                "    {{ unsigned char *v = {value}; memcpy({into} + {off}, &v, sizeof(void *)); }}\n"
            ));
        }
    }
    let call = format!("f({})", args.join(", "));
    match c.ret {
        "void" => s.push_str(&format!("    {call};\n    printf(\"void\\n\");\n")),
        t if t.ends_with('*') => {
            s.push_str(&format!(
                "    uintptr_t r = (uintptr_t){call};\n    if (!r) printf(\"null\\n\");\n"
            ));
            for (i, n) in &buffers {
                s.push_str(&format!(
                    "    else if (r >= (uintptr_t)b{i} && r <= (uintptr_t)b{i} + {n}) printf(\"b{i}+%lu\\n\", (unsigned long)(r - (uintptr_t)b{i}));\n"
                ));
            }
            s.push_str("    else printf(\"elsewhere\\n\");\n");
        }
        _ => s.push_str(&format!("    printf(\"%lld\\n\", (long long){call});\n")),
    }
    for (i, n) in &buffers {
        let skip: Vec<String> = masked
            .iter()
            .filter(|(b, _)| b == i)
            .map(|(_, off)| format!("(k >= {off} && k < {off} + 8)"))
            .collect();
        let skip = if skip.is_empty() {
            "0".to_string()
        } else {
            skip.join(" || ")
        };
        s.push_str(&format!(
            "    for (int k = 0; k < {n}; k++) if ({skip}) printf(\"pp\"); else printf(\"%02x\", b{i}[k]);\n    printf(\"\\n\");\n"
        ));
    }
    s.push_str("    return 0;\n}\n");
    s
}

/// Parameter names in declaration order, read off the old definition.
fn param_names(c: &Case) -> Vec<String> {
    let inner = c.old.split_once('(').expect("(").1;
    let inner = inner.split_once(')').expect(")").0;
    inner
        .split(',')
        .map(|p| {
            p.trim()
                .rsplit(|ch: char| !(ch.is_alphanumeric() || ch == '_'))
                .next()
                .expect("name")
                .to_string()
        })
        .collect()
}

/// Build the test's driver for one version with ASan and UBSan; the executable.
fn build_driver(dir: &Path, tag: &str, src: &str) -> std::path::PathBuf {
    let c = dir.join(format!("driver-{tag}.c"));
    let exe = dir.join(format!("driver-{tag}"));
    std::fs::write(&c, src).expect("write driver");
    let out = Command::new("gcc")
        .args([
            "-O0",
            "-g",
            "-fsanitize=address,undefined",
            "-fno-sanitize-recover=all",
        ])
        .arg(&c)
        .arg("-o")
        .arg(&exe)
        .output()
        .expect("run gcc");
    assert!(
        out.status.success(),
        "{}\n{src}",
        String::from_utf8_lossy(&out.stderr)
    );
    exe
}

/// Run the witness `w` on both versions with the test's own driver: a version dizy says
/// accesses memory it may not must trip a sanitizer; otherwise both run clean and print
/// different results.
fn reproduce(dir: &Path, c: &Case, w: &Json, old: &Path, new: &Path) -> Result<(), String> {
    let mut outs = vec![];
    for (tag, file) in [("old", old), ("new", new)] {
        let src = driver(file, c, w);
        if w[tag]["undefined_behaviour"].is_string() {
            let exe = build_driver(dir, tag, &src);
            let mut cmd = Command::new(&exe);
            cmd.env("ASAN_OPTIONS", "detect_leaks=0");
            let run = common::run_with_timeout(&mut cmd, None, Duration::from_secs(30));
            if run.code() == Some(0)
                || !(run.stderr.contains("AddressSanitizer")
                    || run.stderr.contains("runtime error"))
            {
                return Err(format!(
                    "the {tag} version runs clean on the witness {}: {}",
                    w["inputs"], run.stdout
                ));
            }
            outs.push(None);
        } else {
            outs.push(Some(run_driver(dir, tag, &src)));
        }
    }
    match (&outs[0], &outs[1]) {
        (Some(o), Some(n)) if o == n => Err(format!(
            "the versions behave the same on the witness {}: {o}",
            w["inputs"]
        )),
        (None, None) => Err("both versions have undefined behaviour".into()),
        _ => Ok(()),
    }
}

/// Build and run the test's driver for one version with ASan and UBSan; its stdout.
fn run_driver(dir: &Path, tag: &str, src: &str) -> String {
    let exe = build_driver(dir, tag, src);
    let mut cmd = Command::new(&exe);
    // The driver does not free its buffers: leaks are not what this checks.
    cmd.env("ASAN_OPTIONS", "detect_leaks=0");
    let run = common::run_with_timeout(&mut cmd, None, Duration::from_secs(30));
    assert!(
        run.code() == Some(0)
            && !run.stderr.contains("runtime error")
            && !run.stderr.contains("Sanitizer"),
        "{tag} driver failed: {}\n{src}",
        run.stderr
    );
    run.stdout
}

#[test]
fn differing_memory_pairs_get_witnesses_that_reproduce_under_asan() {
    let root = std::env::temp_dir().join(format!("dizy-memory-witness-{}", std::process::id()));
    let mut failures = vec![];
    for c in DIFFERENT {
        let dir = root.join(c.name);
        let (old, new) = write_pair(&dir, c);
        let (code, report) = dizy_json(&old, &new);
        let f = &report["functions"][0];
        let w = &f["witness"];
        if code != Some(1) || f["verdict"] != "different" || w.is_null() {
            failures.push(format!("{}: {} (exit {code:?})", c.name, f["verdict"]));
            continue;
        }
        if !w["validated_by"]
            .as_str()
            .is_some_and(|v| v.starts_with("interpreter+native"))
        {
            failures.push(format!("{}: validated by {}", c.name, w["validated_by"]));
        }
        if let Err(e) = reproduce(&dir, c, w, &old, &new) {
            failures.push(format!("{}: {e}", c.name));
        }
    }
    let _ = std::fs::remove_dir_all(&root);
    assert!(failures.is_empty(), "{failures:#?}");
}

#[test]
fn an_invalid_access_in_one_version_is_a_difference_asan_confirms() {
    let root = std::env::temp_dir().join(format!("dizy-memory-unsafe-{}", std::process::id()));
    for c in UNSAFE_IN_OLD {
        let dir = root.join(c.name);
        let (old, new) = write_pair(&dir, c);
        let (code, report) = dizy_json(&old, &new);
        let f = &report["functions"][0];
        let w = &f["witness"];
        assert_eq!(f["verdict"], "different", "{}: {f:#}", c.name);
        assert_eq!(code, Some(1), "{}", c.name);
        assert!(
            w["old"]["undefined_behaviour"].is_string()
                && w["new"]["undefined_behaviour"].is_null(),
            "{}: {w:#}",
            c.name
        );
        assert!(
            w["validated_by"]
                .as_str()
                .is_some_and(|v| v.starts_with("interpreter+native")),
            "{}: {w:#}",
            c.name
        );
        // The test's own driver: the new version runs clean, the old one trips ASan.
        reproduce(&dir, c, w, &old, &new).unwrap_or_else(|e| panic!("{}: {e}", c.name));
    }
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn rewritten_memory_functions_are_never_different() {
    let root = std::env::temp_dir().join(format!("dizy-memory-same-{}", std::process::id()));
    for c in SAME {
        let (old, new) = write_pair(&root.join(c.name), c);
        let (code, report) = dizy_json(&old, &new);
        let f = &report["functions"][0];
        assert_ne!(f["verdict"], "different", "{}: {f:#}", c.name);
        assert!(f["witness"].is_null(), "{}: {f:#}", c.name);
        assert!(
            matches!(code, Some(0) | Some(1)),
            "{}: exit {code:?}",
            c.name
        );
    }
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn memory_inputs_are_structured_in_json_and_printed_as_c() {
    let root = std::env::temp_dir().join(format!("dizy-memory-json-{}", std::process::id()));
    let c = &DIFFERENT[4]; // store_order_alias: differs only when the pointers alias
    let (old, new) = write_pair(&root.join(c.name), c);
    let (_, report) = dizy_json(&old, &new);
    let w = &report["functions"][0]["witness"];
    let p = &w["memory_inputs"]["p"];
    assert_eq!(p["kind"], "buffer", "{w:#}");
    let size = p["size"].as_u64().expect("size");
    assert_eq!(p["bytes"].as_array().expect("bytes").len() as u64, size);
    assert_eq!(size % 4, 0, "a buffer of ints: {w:#}");
    assert_eq!(w["memory_inputs"]["q"]["kind"], "alias", "{w:#}");
    assert_eq!(w["memory_inputs"]["q"]["of"], "p", "{w:#}");
    assert_eq!(w["inputs"]["q"], "p");
    assert!(
        w["inputs"]["p"]
            .as_str()
            .is_some_and(|t| t.starts_with(&format!("(int[{}]){{", size / 4))),
        "{w:#}"
    );
    // The buffer's final contents differ: the old version leaves 2 in p[0], the new one 1.
    assert!(
        w["old"]["memory"]["p"]
            .as_str()
            .is_some_and(|t| t.starts_with("{2")),
        "{w:#}"
    );
    assert!(
        w["new"]["memory"]["p"]
            .as_str()
            .is_some_and(|t| t.starts_with("{1")),
        "{w:#}"
    );
    let _ = std::fs::remove_dir_all(&root);
}

/// What a returned pointer points to is behaviour when no input names it: a string the call
/// built on the heap, or a string literal. The versions below differ only there; each is
/// `different` with both contents shown (the native harness does not record them, so it
/// does not confirm). Uninitialized bytes are no evidence: two versions returning a fresh
/// `malloc` block they never wrote are not told apart by its garbage.
#[test]
fn returned_strings_are_compared_by_their_contents() {
    let root = std::env::temp_dir().join(format!("dizy-returned-{}", std::process::id()));
    let quote = |q: &str| {
        format!(
            "#include <stdlib.h>\n#include <string.h>\n\
             char *f(const char *s) {{ size_t n = strlen(s); char *r = malloc(n + 3);\n\
             \x20 if (!r) return 0; r[0] = '{q}'; memcpy(r + 1, s, n); r[n + 1] = '{q}'; r[n + 2] = 0; return r; }}\n"
        )
    };
    let name = |w: &str| {
        format!("const char *f(int k) {{ if (k > 2) return \"yes\"; return \"{w}\"; }}\n")
    };
    let fresh = |body: &str| format!("#include <stdlib.h>\nchar *f(int k) {{ {body} }}\n");
    for (tag, old, new, differs) in [
        ("heap", quote("\\\""), quote("\\'"), true),
        ("literal", name("no"), name("No"), true),
        (
            "garbage",
            fresh("(void)k; return malloc(8);"),
            fresh("char *p = malloc(k > 0 ? 8 : 8); return p;"),
            false,
        ),
    ] {
        let dir = root.join(tag);
        std::fs::create_dir_all(&dir).expect("mkdir");
        let (o, n) = (dir.join("old.c"), dir.join("new.c"));
        std::fs::write(&o, &old).expect("write");
        std::fs::write(&n, &new).expect("write");
        let (_, report) = dizy_json(&o, &n);
        let f = &report["functions"][0];
        if !differs {
            assert_ne!(f["verdict"], "different", "{tag}: {f:#}");
            continue;
        }
        assert_eq!(f["verdict"], "different", "{tag}: {f:#}");
        let w = &f["witness"];
        let (a, b) = (
            &w["old"]["returned_points_to"],
            &w["new"]["returned_points_to"],
        );
        assert!(a.is_string() && b.is_string() && a != b, "{tag}: {w:#}");
    }
    let _ = std::fs::remove_dir_all(&root);
}
