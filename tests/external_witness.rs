//! Witnesses through functions the file does not define: the search chooses what such a
//! function returns (one value per function, whatever its arguments, in both versions), the
//! witness lists it, and the native harness links stubs returning exactly that.
//!
//! Oracle: `cc` running the original files against those stubs (`--validate native`), so a
//! witness counts only where the compiled code differs too. The negative cases check that a
//! library function — declared in a system header, or a standard name called without its
//! header — is never given an arbitrary result: `exit` returning, or `isatty` returning −1,
//! would show differences no real run has.

mod common;

use std::path::{Path, PathBuf};

use serde_json::Value as Json;

fn pair(old: &str, new: &str) -> (tempdir::Dir, PathBuf, PathBuf) {
    let d = tempdir::Dir::new();
    let (o, n) = (d.0.join("old.c"), d.0.join("new.c"));
    std::fs::write(&o, old).unwrap();
    std::fs::write(&n, new).unwrap();
    (d, o, n)
}

mod tempdir {
    /// A directory removed when dropped.
    pub struct Dir(pub std::path::PathBuf);
    impl Dir {
        pub fn new() -> Dir {
            use std::sync::atomic::{AtomicUsize, Ordering};
            static N: AtomicUsize = AtomicUsize::new(0);
            let p = std::env::temp_dir().join(format!(
                "dizy-ext-{}-{}",
                std::process::id(),
                N.fetch_add(1, Ordering::Relaxed)
            ));
            std::fs::create_dir_all(&p).unwrap();
            Dir(p)
        }
    }
    impl Drop for Dir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}

/// The one function of `dizy diff OLD NEW --format json EXTRA`.
fn function(old: &Path, new: &Path, extra: &[&str]) -> Json {
    let (_, v, _) = common::diff_json(old, new, extra);
    let fs = v["functions"].as_array().expect("functions");
    assert_eq!(fs.len(), 1, "{v:#}");
    fs[0].clone()
}

/// A handle of a struct the file does not define, passed to a function it does not define:
/// the witness gives a valid pointer the code never dereferences and has `item_len` return a
/// length between the two bounds; the compiled code, linked with a stub returning it, agrees.
#[test]
fn a_result_of_an_undefined_function_makes_the_witness() {
    let src = |bound: u32| {
        format!(
            "struct item;\nunsigned long item_len(const struct item *it);\n\
             int check(const struct item *it, int max)\n{{\n    unsigned long n = item_len(it);\n\
             \x20   if (n > {bound})\n        return -1;\n    return (int)n + max;\n}}\n"
        )
    };
    let (_d, o, n) = pair(&src(100), &src(64));
    let f = function(&o, &n, &["--validate", "native"]);
    assert_eq!(f["verdict"], "different", "{f:#}");
    let w = &f["witness"];
    let len: i64 = w["externals"]["item_len"]
        .as_str()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("item_len's result stated: {w:#}"));
    assert!((65..=100).contains(&len), "{w:#}");
    assert_eq!(w["memory_inputs"]["it"]["kind"], "opaque", "{w:#}");
    assert!(
        w["validated_by"]
            .as_str()
            .is_some_and(|v| v.contains("native")),
        "{f:#}"
    );
}

/// A result only a solver finds (`3 * n == 370371`): the symbolic strategy's model gives the
/// function's result as well as the inputs.
#[test]
fn the_solver_chooses_the_result_of_an_undefined_function() {
    let src = |k: u32| {
        format!(
            "int next_token(void);\nint f(int x)\n{{\n    int t = next_token();\n\
             \x20   if (3 * t == 370371)\n        return x + {k};\n    return x;\n}}\n"
        )
    };
    let (_d, o, n) = pair(&src(0), &src(1));
    let f = function(&o, &n, &["--validate", "native"]);
    assert_eq!(f["verdict"], "different", "{f:#}");
    assert_eq!(f["witness"]["externals"]["next_token"], "123457", "{f:#}");
    assert!(
        f["witness"]["validated_by"]
            .as_str()
            .is_some_and(|v| v.contains("native")),
        "{f:#}"
    );
}

/// `exit` called without `<stdlib.h>` is still `exit`: no witness may have it return.
#[test]
fn a_standard_function_without_its_header_is_never_chosen() {
    let src = |r: u32| {
        format!(
            "int f(int x)\n{{\n    if (x == 7) {{\n        exit(1);\n        return {r};\n    }}\n    return 0;\n}}\n"
        )
    };
    let (_d, o, n) = pair(&src(1), &src(2));
    let f = function(&o, &n, &[]);
    assert_ne!(f["verdict"], "different", "{f:#}");
    assert!(f["witness"].is_null(), "{f:#}");
}

/// `isatty` is declared by `<unistd.h>`: it never returns −1, so the versions cannot differ,
/// and no witness may claim they do.
#[test]
fn a_function_of_a_system_header_is_never_chosen() {
    let src = |test: &str| {
        format!(
            "#include <unistd.h>\nint f(int fd)\n{{\n    if ({test})\n        return 1;\n    return 0;\n}}\n"
        )
    };
    let (_d, o, n) = pair(&src("isatty(fd) > 0"), &src("isatty(fd) != 0"));
    let f = function(&o, &n, &[]);
    assert_ne!(f["verdict"], "different", "{f:#}");
    assert!(f["witness"].is_null(), "{f:#}");
}

/// A patch that changes only what is reported to a function outside the file: the calls, with
/// their arguments (a string by its text), are behaviour, so the witness shows them; the native
/// harness does not record calls and says so instead of refuting it.
#[test]
fn differing_calls_of_an_undefined_function_make_the_witness() {
    let src = |code: u32, msg: &str| {
        format!(
            "struct archive;\nvoid archive_set_error(struct archive *a, int code, const char *msg);\n\
             int read_header(struct archive *a, int len)\n{{\n    if (len < 0) {{\n\
             \x20       archive_set_error(a, {code}, \"{msg}\");\n        return -30;\n    }}\n    return 0;\n}}\n"
        )
    };
    let (_d, o, n) = pair(&src(84, "bad length"), &src(84, "negative length"));
    let f = function(&o, &n, &["--validate", "native"]);
    assert_eq!(f["verdict"], "different", "{f:#}");
    let w = &f["witness"];
    assert_eq!(
        w["old"]["calls"],
        serde_json::json!(["archive_set_error(a, 84, \"bad length\")"]),
        "{w:#}"
    );
    assert_eq!(
        w["new"]["calls"],
        serde_json::json!(["archive_set_error(a, 84, \"negative length\")"]),
        "{w:#}"
    );
    assert!(
        f["notes"].as_array().is_some_and(|ns| ns
            .iter()
            .any(|n| n.as_str().is_some_and(|t| t.contains("does not record")))),
        "{f:#}"
    );
    // The same calls in both versions are no difference.
    let (_d2, o2, n2) = pair(
        &src(84, "bad length"),
        &src(84, "bad length").replace("len < 0", "0 > len"),
    );
    let f2 = function(&o2, &n2, &[]);
    assert_eq!(f2["verdict"], "equivalent", "{f2:#}");
}

/// A version that frees the buffer its caller passed is no invalid access: the real caller may
/// well have allocated it with `malloc` (the interpreter's own allocations are checked, the
/// caller's cannot be), so no witness may claim one.
#[test]
fn freeing_what_the_caller_gave_is_no_witness() {
    let (_d, o, n) = pair(
        "#include <stdlib.h>\nint f(char *p, int n)\n{\n    return n;\n}\n",
        "#include <stdlib.h>\nint f(char *p, int n)\n{\n    free(p);\n    return n;\n}\n",
    );
    let f = function(&o, &n, &[]);
    assert_ne!(f["verdict"], "different", "{f:#}");
}

/// The shape of libssh's CVE-2025-5318 (`sftp_handle`), unconfigured: the session type and
/// the string functions come from a header that is missing. The witness needs all three
/// things a real message gives: the session's `handles` member pointing at an array, one
/// string function returning the length 4 (chosen first: with it the code goes on to call the
/// other), and the other returning data whose word is the bound; then the old version reads
/// past the array. `ssh_string_data` is called undeclared and its result used as a pointer, so
/// it is assumed to return `void *` (an `int` would not hold a pointer), and the report says so.
#[test]
fn results_of_two_undefined_functions_and_a_member_array_make_the_witness() {
    let src = |cmp: &str| {
        format!(
            "#include <string.h>\n#include <stdint.h>\n#include \"session.h\"\n#define HANDLES 256\n\
             void *get_handle(session_t s, string_t h)\n{{\n    uint32_t v;\n\
             \x20   if (s->handles == NULL)\n        return NULL;\n\
             \x20   if (ssh_string_len(h) != sizeof(uint32_t))\n        return NULL;\n\
             \x20   memcpy(&v, ssh_string_data(h), sizeof(uint32_t));\n\
             \x20   if (v {cmp} HANDLES)\n        return NULL;\n    return s->handles[v];\n}}\n"
        )
    };
    let (_d, o, n) = pair(&src(">"), &src(">="));
    let (_, report, _) = common::diff_json(&o, &n, &[]);
    let f = &report["functions"][0];
    assert_eq!(f["verdict"], "different", "{f:#}");
    let w = &f["witness"];
    assert_eq!(w["externals"]["ssh_string_len"], "4", "{w:#}");
    assert!(w["old"]["undefined_behaviour"].is_string(), "{w:#}");
    assert!(w["new"]["undefined_behaviour"].is_null(), "{w:#}");
    assert_eq!(w["new"]["return"], "0", "{w:#}");
    let s = &w["memory_inputs"]["s"];
    assert!(
        !s["pointees"].as_array().is_some_and(Vec::is_empty),
        "{w:#}"
    );
    let assumed = report["assumptions"].to_string();
    assert!(
        assumed.contains("assumed to return `void *`: ssh_string_data"),
        "{assumed}"
    );
}

/// A difference that shows only where several inputs hold at once: a struct whose member chain
/// is set, an undefined function returning a string, and a path longer than a bound that does
/// not start with a word of the code. The strategies that vary one input at a time miss it;
/// the coverage-guided search combines them, and `memcmp`/`strlen` run as glibc's. The
/// compiled code agrees (`--validate native`).
#[test]
fn inputs_that_must_hold_together_are_found_together() {
    let src = |new: bool| {
        format!(
            "#include <string.h>\n\
             struct core {{ int active; int level; }};\n\
             struct ctx {{ struct core *core; long pad; }};\n\
             const char *current_dir(void);\n\
             int check(const struct ctx *c, const char *path, unsigned len)\n{{\n\
             \x20   const char *d = current_dir();\n\
             \x20   if (d == 0 || c->core == 0 || c->core->active == 0)\n        return 0;\n\
             \x20   if ({}len > 5 && memcmp(path, \"%pipe\", 5) != 0)\n\
             \x20       return 1 + (int)strlen(d);\n\
             \x20   return 2;\n}}\n",
            if new { "" } else { "0 && " }
        )
    };
    let (_d, o, n) = pair(&src(false), &src(true));
    let f = function(&o, &n, &["--validate", "native"]);
    assert_eq!(f["verdict"], "different", "{f:#}");
    let w = &f["witness"];
    assert!(
        w["validated_by"]
            .as_str()
            .is_some_and(|s| s.contains("native")),
        "{w:#}"
    );
    assert!(
        w["externals"]["current_dir"]
            .as_str()
            .is_some_and(|s| s != "NULL"),
        "{w:#}"
    );
}

/// A struct's function-pointer member that the code calls (an allocator in a table of
/// operations, as ghostscript's `mem->procs.alloc_bytes`): the witness points it at a function
/// of its own, named by the member, whose result it chooses as for an undefined function; a
/// null member would make every run stop at the call. The native harness does not build such
/// members, and says so.
#[test]
fn a_called_function_pointer_member_gets_a_function_of_the_witness() {
    let src = |bump: &str| {
        format!(
            "struct mem;\nstruct ops {{ void *(*alloc)(struct mem *self, unsigned long n); int level; }};\n\
             struct mem {{ struct ops procs; int flags; }};\n\
             int f(struct mem *m, unsigned long n)\n{{\n    char *p = m->procs.alloc(m, n + 1);\n\
             \x20   if (!p)\n        return -1;\n    return (int)(n & 7){bump};\n}}\n"
        )
    };
    let (_d, o, n) = pair(&src(""), &src(" + 1"));
    let f = function(&o, &n, &["--validate", "native"]);
    assert_eq!(f["verdict"], "different", "{f:#}");
    let w = &f["witness"];
    assert!(
        w["externals"]["m->procs.alloc"]
            .as_str()
            .is_some_and(|s| s != "NULL"),
        "{w:#}"
    );
    let pointees = w["memory_inputs"]["m"]["pointees"]
        .as_array()
        .expect("pointees");
    assert!(
        pointees.iter().any(|p| p["function"] == "m->procs.alloc"),
        "{w:#}"
    );
    let notes = f["notes"].to_string();
    assert!(notes.contains("function-pointer members"), "{notes}");
}

/// A witness the coverage-guided search finds is made plain before it is shown: here any `x`
/// shows the difference once `cur()` returns a string, and the mutations reach some random
/// `x` first; the witness states `x = 0`.
#[test]
fn a_found_witness_is_shrunk_to_plain_values() {
    let src = |bump: &str| {
        format!(
            "#include <string.h>\nconst char *cur(void);\n\
             int f(int x)\n{{\n    const char *d = cur();\n    return (int)strlen(d) + x{bump};\n}}\n"
        )
    };
    let (_d, o, n) = pair(&src(""), &src(" + 1"));
    let f = function(&o, &n, &["--validate", "native"]);
    assert_eq!(f["verdict"], "different", "{f:#}");
    let w = &f["witness"];
    assert_eq!(w["inputs"]["x"], "0", "{w:#}");
    assert!(
        w["validated_by"]
            .as_str()
            .is_some_and(|s| s.contains("native")),
        "{w:#}"
    );
}
