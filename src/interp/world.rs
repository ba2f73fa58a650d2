//! The environment a run calls into: results for the functions a program declares (or calls)
//! but does not define.
//!
//! Takes the names and declared return types of such calls; gives what each returns in one
//! run. dizy's analysis treats a call of an undefined function as an arbitrary deterministic
//! function (equal arguments, equal results in both versions); a [`World`] is one such function
//! per name, the simplest kind: it returns one value whatever its arguments and writes no memory.
//! The witness search chooses the values, and a witness states them, so that a difference that
//! hangs on what `lookup()` returns can be shown at all. A world also gives the constants of
//! missing headers (`ARCHIVE_FATAL`) values, distinct ones ([`World::constants`]).
//!
//! Library functions are not environment: their behaviour is the C library's. A function
//! declared in a system header ([`crate::ir::Program::library`]), one in [`STANDARD`] (known by
//! name even where its header is missing, like `exit` or `malloc`), and one the file defines but
//! the frontend could not lower are never given a world value: their calls stay unexecutable.

use std::collections::BTreeMap;

use super::Value;

/// What an environment function returns.
#[derive(Clone, Debug, PartialEq)]
pub enum ExtResult {
    /// A scalar (converted to the declared return type as by `return`).
    Scalar(Value),
    /// A pointer to a fresh object holding these bytes (all initialized): the same object for
    /// every call in one run.
    Buffer(Vec<u8>),
}

/// Results of environment functions by name; a function without an entry returns zero (a null
/// pointer, a zero-filled struct).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct World {
    pub results: BTreeMap<String, ExtResult>,
    /// Values of the constants a missing header would have defined
    /// ([`crate::ir::GlobalVar::opaque`] globals declared `extern`, the same in both versions);
    /// one without an entry stays unknown, and a run that reads it proves nothing.
    pub constants: BTreeMap<String, i128>,
}

impl World {
    pub fn with(mut self, name: &str, r: ExtResult) -> World {
        self.results.insert(name.to_string(), r);
        self
    }
}

/// Standard C and POSIX functions a world never stands in for, also when the file calls them
/// without their header: their behaviour is fixed (they end the program, allocate, copy, read
/// or print), so an arbitrary result would describe no real run.
pub const STANDARD: &[&str] = &[
    // ending the program or jumping
    "exit",
    "_exit",
    "_Exit",
    "abort",
    "quick_exit",
    "err",
    "errx",
    "verr",
    "verrx",
    "error",
    "error_at_line",
    "longjmp",
    "siglongjmp",
    "_longjmp",
    "__assert_fail",
    "assert",
    "pthread_exit",
    "raise",
    "kill",
    "execv",
    "execve",
    "execvp",
    "execl",
    "execlp",
    "fork",
    "setjmp",
    "sigsetjmp",
    "_setjmp",
    "atexit",
    // memory
    "malloc",
    "calloc",
    "realloc",
    "reallocarray",
    "free",
    "aligned_alloc",
    "posix_memalign",
    "valloc",
    "alloca",
    "strdup",
    "strndup",
    "memcpy",
    "memmove",
    "memset",
    "memcmp",
    "memchr",
    "memrchr",
    "mempcpy",
    "bzero",
    "bcopy",
    "explicit_bzero",
    // strings
    "strlen",
    "strnlen",
    "strcpy",
    "strncpy",
    "stpcpy",
    "stpncpy",
    "strcat",
    "strncat",
    "strcmp",
    "strncmp",
    "strcasecmp",
    "strncasecmp",
    "strchr",
    "strrchr",
    "strstr",
    "strpbrk",
    "strspn",
    "strcspn",
    "strtok",
    "strtok_r",
    "strsep",
    "strerror",
    "strcoll",
    "strxfrm",
    "strlcpy",
    "strlcat",
    "strtol",
    "strtoul",
    "strtoll",
    "strtoull",
    "strtod",
    "strtof",
    "strtold",
    "strtoimax",
    "strtoumax",
    "atoi",
    "atol",
    "atoll",
    "atof",
    // input and output
    "printf",
    "fprintf",
    "sprintf",
    "snprintf",
    "vprintf",
    "vfprintf",
    "vsprintf",
    "vsnprintf",
    "dprintf",
    "asprintf",
    "vasprintf",
    "puts",
    "fputs",
    "putchar",
    "putc",
    "fputc",
    "fwrite",
    "write",
    "read",
    "fread",
    "fgets",
    "fgetc",
    "getc",
    "getchar",
    "gets",
    "ungetc",
    "scanf",
    "fscanf",
    "sscanf",
    "fopen",
    "fclose",
    "fflush",
    "fseek",
    "ftell",
    "open",
    "close",
    "lseek",
    "perror",
    "getenv",
    "setenv",
    "time",
    "clock",
    "rand",
    "srand",
    "random",
    "signal",
    "sigaction",
    "qsort",
    "bsearch",
];

/// Whether `name` is a library function by name ([`STANDARD`], a compiler builtin).
pub fn is_standard(name: &str) -> bool {
    STANDARD.contains(&name) || name.starts_with("__builtin_") || name.starts_with("__sync_")
}

/// Whether a call of `name`, which `prog` does not define, may be given a world result: not a
/// library function (declared in a system header or [`is_standard`]), not one the file defines
/// but the frontend rejected, not one the interpreter executes itself.
pub fn is_environment(prog: &crate::ir::Program, name: &str) -> bool {
    !(prog.library.contains(name)
        || is_standard(name)
        || super::exec::is_builtin(name)
        || prog.rejected.iter().any(|(n, _)| n == name)
        || prog.functions.iter().any(|f| f.name == name)
        || name == crate::ir::INDUCTION)
}

/// The C text of a result, as a witness states it.
pub fn result_text(r: &ExtResult) -> String {
    match r {
        ExtResult::Scalar(Value::Int(v)) => v.to_string(),
        ExtResult::Scalar(v @ Value::Float(_)) => super::format_value(v, &crate::ir::CType::Float),
        ExtResult::Scalar(v) => super::format_value(v, &crate::ir::CType::Double),
        ExtResult::Buffer(b) => format!(
            "a pointer to {} byte{} {{{}}}",
            b.len(),
            if b.len() == 1 { "" } else { "s" },
            b.iter()
                .map(|x| format!("0x{x:02x}"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}
