//! What counts as an observable effect of an instruction or a function.
//!
//! Takes GCL functions and programs; gives the library functions known to be pure or to produce
//! output, which places are the function's own, which globals a function writes, and which
//! functions of a program are effect-free. The builder places diff points with these; the
//! analysis and the witness search use the same lists, so all agree on what is compared.

use std::collections::HashSet;

use crate::gcl::{GclFunction, GclProgram, InstrKind};
use crate::ir::{Callee, ExprKind, Place, VarKind};

/// Library functions without side effects: their calls are not effects, and matched calls with
/// equal arguments return equal values.
pub const PURE_FUNCTIONS: &[&str] = &[
    "abs",
    "labs",
    "llabs",
    "isalnum",
    "isalpha",
    "isascii",
    "isblank",
    "iscntrl",
    "isdigit",
    "isgraph",
    "islower",
    "isprint",
    "ispunct",
    "isspace",
    "isupper",
    "isxdigit",
    "tolower",
    "toupper",
    "strlen",
    "strcmp",
    "strncmp",
    "memcmp",
    "strchr",
    "strrchr",
    "__builtin_expect",
    // Mathematics that is exact and never sets `errno`.
    "fabs",
    "fabsf",
    "floor",
    "floorf",
    "ceil",
    "ceilf",
    "round",
    "roundf",
    "trunc",
    "truncf",
    "copysign",
    "copysignf",
    "isnan",
    "isinf",
];

/// Library functions that write no memory a pointer of the caller reaches (the C library's
/// mathematics: at most `errno`, which the effect comparison of their calls covers). Their calls
/// stay effects, compared argument by argument, but leave memory as it was.
pub const NO_MEMORY_WRITES: &[&str] = &[
    "sqrt",
    "sqrtf",
    "sin",
    "sinf",
    "cos",
    "cosf",
    "tan",
    "tanf",
    "asin",
    "acos",
    "atan",
    "atan2",
    "sinh",
    "cosh",
    "tanh",
    "exp",
    "expf",
    "exp2",
    "log",
    "logf",
    "log2",
    "log10",
    "pow",
    "powf",
    "fmod",
    "fmin",
    "fmax",
    "hypot",
    "cbrt",
    "ldexp",
    "nearbyint",
    "rint",
    "lround",
    "atoi",
    "atol",
    "atoll",
];

/// Functions whose calls produce output (diff points are placed before matched calls to them).
pub const OUTPUT_FUNCTIONS: &[&str] = &[
    "printf", "fprintf", "puts", "fputs", "putchar", "putc", "fputc", "fwrite", "write", "dprintf",
];

/// A place inside the function's own frame (a local scalar, array or struct), as opposed to
/// memory the caller can see (through a pointer, or a global).
pub(super) fn is_local_place(p: &Place, f: &crate::ir::Function) -> bool {
    match p {
        // A variable itself, global or not, is tracked and compared where it matters.
        Place::Var(_) => true,
        _ => match p.root_var() {
            Some(v) => !matches!(f.var(v).kind, VarKind::Global(_)),
            None => false,
        },
    }
}

/// Globals `f` writes by name, and whether it may write others it does not name (a store
/// through a pointer, a call of anything but a known pure library function).
pub(super) fn written_globals(f: &GclFunction) -> (HashSet<&str>, bool) {
    let mut named = HashSet::new();
    let mut any = false;
    for ins in &f.instrs {
        if let InstrKind::Call { callee, .. } = &ins.kind {
            any |= !matches!(callee, Callee::Direct(n) if PURE_FUNCTIONS.contains(&n.as_str()));
        }
        if let Some(p) = ins.kind.dest() {
            match p.root_var() {
                Some(v) if matches!(f.func.var(v).kind, VarKind::Global(_)) => {
                    named.insert(f.func.var(v).name.as_str());
                }
                Some(_) => {}
                None => any = true,
            }
        }
    }
    (named, any)
}

/// Whether an instruction reads or writes a volatile variable.
pub(super) fn touches_volatile(k: &InstrKind, f: &crate::ir::Function) -> bool {
    let mut hit = k
        .dest()
        .and_then(|p| p.root_var())
        .is_some_and(|v| f.var(v).volatile);
    k.walk_exprs(&mut |e| match &e.kind {
        ExprKind::Var(v) => hit |= f.var(*v).volatile,
        ExprKind::Load(p) => hit |= p.root_var().is_some_and(|v| f.var(v).volatile),
        _ => {}
    });
    hit
}

/// Functions of `p` whose calls have no observable effect besides their result and their writes
/// to globals: no output, no stores to memory outside their frame, no volatile access, and only
/// calls to known pure library functions or to other such functions (greatest fixpoint, so
/// recursion alone does not disqualify).
pub fn effect_free(p: &GclProgram) -> HashSet<String> {
    let mut ok: HashSet<String> = p.functions.iter().map(|f| f.name.clone()).collect();
    loop {
        let before = ok.len();
        for f in &p.functions {
            if !ok.contains(&f.name) {
                continue;
            }
            let clean = f.instrs.iter().all(|ins| {
                if touches_volatile(&ins.kind, &f.func) {
                    return false;
                }
                match &ins.kind {
                    InstrKind::Call {
                        callee: Callee::Direct(n),
                        dest,
                        ..
                    } => {
                        (PURE_FUNCTIONS.contains(&n.as_str()) || ok.contains(n))
                            && dest.as_ref().is_none_or(|d| is_local_place(d, &f.func))
                    }
                    InstrKind::Call { .. } => false,
                    InstrKind::Assign(pl, _) | InstrKind::Havoc(pl) | InstrKind::ZeroFill(pl) => {
                        is_local_place(pl, &f.func)
                    }
                    _ => true,
                }
            });
            if !clean {
                ok.remove(&f.name);
            }
        }
        if ok.len() == before {
            return ok;
        }
    }
}
