//! What counts as an observable effect of an instruction or a function.
//!
//! Takes GCL functions and programs; gives the library functions known to be pure or to produce
//! output, which places are the function's own, which globals a function writes, and which
//! functions of a program are effect-free. The builder places diff points with these; the
//! analysis and the witness search use the same lists, so all agree on what is compared.

use std::collections::HashSet;

use crate::gcl::{GclFunction, GclProgram, InstrKind};
use crate::ir::{Callee, Expr, ExprKind, Place, VarKind};

/// Library functions without side effects: their calls are not effects, and matched calls with
/// equal arguments return equal values.
pub const PURE_FUNCTIONS: &[&str] = &[
    crate::ir::INDUCTION,
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
    // GCC's bit builtins (`crate::ir::bit_builtin`)
    "__builtin_bswap16",
    "__builtin_bswap32",
    "__builtin_bswap64",
    "__builtin_clz",
    "__builtin_clzl",
    "__builtin_clzll",
    "__builtin_ctz",
    "__builtin_ctzl",
    "__builtin_ctzll",
    "__builtin_clrsb",
    "__builtin_clrsbl",
    "__builtin_clrsbll",
    "__builtin_popcount",
    "__builtin_popcountl",
    "__builtin_popcountll",
    "__builtin_parity",
    "__builtin_parityl",
    "__builtin_parityll",
    "__builtin_ffs",
    "__builtin_ffsl",
    "__builtin_ffsll",
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

/// A library call that writes no variable or memory of the program at all (its output and
/// its `errno` are compared as the call's effect): the mathematics, output without a format,
/// and formatted output whose format is a literal without a `%n` conversion.
pub fn writes_nothing(callee: &Callee, args: &[Expr], strings: &[Vec<u8>]) -> bool {
    let Callee::Direct(n) = callee else {
        return false;
    };
    let format = match n.as_str() {
        n if NO_MEMORY_WRITES.contains(&n) => return true,
        "printf" => 0,
        "fprintf" | "dprintf" => 1,
        "puts" | "fputs" | "putchar" | "putc" | "fputc" | "fwrite" | "write" => return true,
        _ => return false,
    };
    let Some(ExprKind::Str(id)) = args.get(format).map(|a| &a.kind) else {
        return false;
    };
    let Some(text) = strings.get(id.index()) else {
        return false;
    };
    // Each conversion: `%`, flags, width, precision and length, then its letter.
    let mut k = 0;
    while k < text.len() {
        if text[k] == b'%' {
            k += 1;
            while k < text.len() && b"-+ #0123456789.*hlLqjzt'".contains(&text[k]) {
                k += 1;
            }
            if text.get(k) == Some(&b'n') {
                return false;
            }
        }
        k += 1;
    }
    true
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
                        (ok.contains(n)
                            || (PURE_FUNCTIONS.contains(&n.as_str())
                                && !p.functions.iter().any(|g| g.name == *n)))
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

/// Names of the globals of `p` that nothing can change while one of its functions runs, so
/// that every read sees the value the function was entered with: not volatile, defined in the
/// file, never the destination of a store and never address-taken (in code or initializers),
/// not named by a function the frontend could not lower, and — unless it is `static`, so that
/// only the file's own code can reach it — no call of the program may run code outside it
/// (only its own functions and library functions that write nothing of the program's).
pub fn immutable_globals(p: &GclProgram) -> HashSet<String> {
    let globals = &p.program.globals;
    let mut out: HashSet<usize> = (0..globals.len())
        .filter(|&i| !globals[i].is_volatile && !globals[i].is_extern)
        .collect();
    let rejected_refs = |name: &str| {
        p.program.rejected.iter().any(|(f, _)| {
            p.program
                .rejected_refs
                .get(f)
                .is_none_or(|r| r.idents.contains(name))
        })
    };
    out.retain(|&i| !rejected_refs(&globals[i].name));
    // Globals stored to or whose address is taken.
    let mut gone: HashSet<usize> = HashSet::new();
    let note_addr =
        |e: &Expr, f: Option<&crate::ir::Function>, gone: &mut HashSet<usize>| match &e.kind {
            ExprKind::GlobalAddr(g) => {
                gone.insert(g.index());
            }
            ExprKind::AddrOf(pl) => {
                if let (Some(f), Some(v)) = (f, pl.root_var()) {
                    if let VarKind::Global(g) = f.var(v).kind {
                        gone.insert(g.index());
                    }
                }
            }
            _ => {}
        };
    for g in globals {
        for (_, _, e) in &g.init {
            e.walk(&mut |x| note_addr(x, None, &mut gone));
        }
    }
    let mut outside = false;
    let defined: HashSet<&str> = p.functions.iter().map(|f| f.name.as_str()).collect();
    for f in &p.functions {
        for ins in &f.instrs {
            ins.kind
                .walk_exprs(&mut |x| note_addr(x, Some(&f.func), &mut gone));
            if let Some(v) = ins.kind.dest().and_then(|d| d.root_var()) {
                if let VarKind::Global(g) = f.func.var(v).kind {
                    gone.insert(g.index());
                }
            }
            if let InstrKind::Call { callee, args, .. } = &ins.kind {
                outside |= match callee {
                    Callee::Direct(n) => {
                        !defined.contains(n.as_str())
                            && !PURE_FUNCTIONS.contains(&n.as_str())
                            && !writes_nothing(callee, args, &p.program.strings)
                    }
                    Callee::Indirect(_) => true,
                };
            }
        }
    }
    // Names are how the versions' globals are paired; an ambiguous one pairs nothing.
    let unique = |i: usize| globals.iter().filter(|g| g.name == globals[i].name).count() == 1;
    out.into_iter()
        .filter(|i| !gone.contains(i))
        .filter(|&i| (globals[i].is_static || !outside) && unique(i))
        .map(|i| globals[i].name.clone())
        .collect()
}

#[cfg(test)]
mod tests {
    /// Every bit builtin the frontend declares is pure here, and no other name of that family.
    #[test]
    fn bit_builtins_are_pure() {
        let mut names = vec![];
        for w in ["16", "32", "64", "8"] {
            names.push(format!("__builtin_bswap{w}"));
        }
        for op in ["clz", "ctz", "clrsb", "popcount", "parity", "ffs", "clo"] {
            for suffix in ["", "l", "ll", "lll"] {
                names.push(format!("__builtin_{op}{suffix}"));
            }
        }
        for n in &names {
            assert_eq!(
                crate::ir::bit_builtin(n).is_some(),
                super::PURE_FUNCTIONS.contains(&n.as_str()),
                "{n}"
            );
        }
    }
}
