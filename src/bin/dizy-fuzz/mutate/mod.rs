//! Second versions by mutation.
//!
//! Takes a generated [`Program`], an RNG and the pair's main construct; gives a mutated copy and
//! the names of the mutations applied. [`KINDS`] lists them: generic ones (`op`, `const`,
//! `bound`, `cond`, `delete`, `add`, `swap-dep`, `temp-stale`; preserving: `algebra`,
//! `reorder`, `loop`, `dead`, `rename`, `if-swap`, `if-negate`, `split-or`, `temp`; from
//! generation 6 `bit-algebra` and its changing twin `bit-algebra-slip`, in [`bits`]; from
//! generation 7 `loop-unroll`, `loop-peel`, `loop-split` and their `-slip` twins, in
//! [`schedule`]; from generation 8 `fall-off` and `fall-off-unreached`, in [`control`]; from
//! generation 9 `builtin-swap` and `builtin-expand`, in [`bits`]) and,
//! per construct, at least one that changes behaviour and one
//! that preserves it (under dizy's contract: -0.0 equals 0.0, NaN equals NaN, struct padding and
//! field order do not count). Some change only an initializer or a type definition, so that the
//! text of `f` stays the same. The kind is only a label for the statistics: the oracle decides
//! what is really different. Second stage of the fuzzer, after `gen`.
//!
//! This file holds the table of kinds, [`apply`] and [`mutate`]; the mutations themselves are in
//! one file per family ([`generic`], [`types`], [`memory`], [`control`], [`stmtexpr`]), what
//! they share in [`sites`].

mod bits;
mod control;
mod generic;
mod memory;
mod schedule;
mod sites;
mod stmtexpr;
mod types;

use crate::ast::*;
use crate::gen::Rng;

pub use sites::counters;
use sites::{func_ref, int_vars};

pub struct Kind {
    pub name: &'static str,
    pub preserving: bool,
    /// The construct it is about ("" for the generic ones).
    pub feature: &'static str,
    /// Applies to the program (types, globals, tables) rather than to one function.
    pub program: bool,
}

const fn k(name: &'static str, preserving: bool, feature: &'static str, program: bool) -> Kind {
    Kind {
        name,
        preserving,
        feature,
        program,
    }
}

pub const KINDS: &[Kind] = &[
    k("op", false, "", false),
    k("const", false, "", false),
    k("bound", false, "", false),
    k("cond", false, "", false),
    k("delete", false, "", false),
    k("add", false, "", false),
    k("swap-dep", false, "", false),
    k("algebra", true, "", false),
    k("reorder", true, "", false),
    k("loop", true, "", false),
    k("dead", true, "", false),
    k("rename", true, "", false),
    k("if-swap", true, "", false),
    k("if-negate", true, "", false),
    k("split-or", true, "", false),
    k("temp", true, "", false),
    k("temp-stale", false, "", false),
    k("int-type", false, "widths", false),
    k("int-type-same", true, "widths", false),
    k("cast-sign", false, "widths", false),
    k("bool-type", false, "bool", false),
    k("bool-norm", true, "bool", false),
    k("enum-value", false, "enum", true),
    k("enum-explicit", true, "enum", true),
    k("float-type", false, "float", false),
    k("float-cmp", false, "float", false),
    k("float-nan", false, "float", false),
    k("float-sub", true, "float", false),
    k("float-zero", true, "float", false),
    k("float-math", false, "float", false),
    k("float-copysign", true, "float", false),
    k("field-swap", false, "struct", false),
    k("field-type", false, "struct", true),
    k("field-reorder", true, "struct", true),
    k("member", false, "union", false),
    k("union-pun", true, "union", false),
    k("out-write", false, "outparam", false),
    k("out-split", true, "outparam", false),
    k("buf-bound", false, "buffer", false),
    k("index-ptr", true, "buffer", false),
    k("str-char", false, "string", false),
    k("str-ptr", true, "string", false),
    k("alias-swap", false, "alias", false),
    k("alias-loads", true, "alias", false),
    k("init", false, "global", true),
    k("init-same", true, "global", true),
    k("static-init", false, "static-local", true),
    k("static-init-same", true, "static-local", true),
    k("array-init", false, "local-array", false),
    k("array-loop", true, "local-array", false),
    k("case-break", false, "switch", false),
    k("case-label", false, "switch", false),
    k("case-reorder", true, "switch", false),
    k("goto-target", false, "goto", false),
    k("goto-loop", true, "goto", false),
    k("do-while", false, "do-while", false),
    k("do-while-same", true, "do-while", false),
    k("rec-base", false, "recursion", true),
    k("rec-same", true, "recursion", true),
    k("table-swap", false, "fnptr", true),
    k("table-helper", false, "fnptr", true),
    k("table-direct", true, "fnptr", false),
    k("print-fmt", false, "printf", false),
    k("print-split", true, "printf", false),
    k("spin-step", false, "hang", false),
    k("spin-cmp", true, "hang", false),
    k("stmt-expr", false, "stmt-expr", false),
    k("stmt-expr-same", true, "stmt-expr", false),
];

/// Kinds added by generation 6, kept apart so that earlier generations draw from the list
/// they had (`--generation` gives their pairs again).
pub const KINDS_6: &[Kind] = &[
    k("bit-algebra", true, "", false),
    k("bit-algebra-slip", false, "", false),
];

/// Kinds added by generation 7: loops unrolled, peeled and split by hand, and their slips.
pub const KINDS_7: &[Kind] = &[
    k("loop-unroll", true, "", false),
    k("loop-unroll-slip", false, "", false),
    k("loop-peel", true, "", false),
    k("loop-peel-slip", false, "", false),
    k("loop-split", true, "", false),
    k("loop-split-slip", false, "", false),
];

/// Kinds added by generation 8: `f`'s final `return` dropped or restored (changing), or
/// moved into the body so that the end is never reached (preserving).
pub const KINDS_8: &[Kind] = &[
    k("fall-off", false, "", true),
    k("fall-off-unreached", true, "", true),
];

/// Kinds added by generation 9: GCC's bit builtins swapped for another of the same signature
/// (changing) or written out by an identity (preserving), and a `case` range split into its
/// values (preserving; the ranges' bounds move with `case-label`).
pub const KINDS_9: &[Kind] = &[
    k("builtin-swap", false, "", false),
    k("builtin-expand", true, "", false),
    k("case-range-split", true, "switch", false),
];

/// The kinds of generation `g`.
fn kinds(g: u8) -> impl Iterator<Item = &'static Kind> {
    KINDS
        .iter()
        .chain(KINDS_6.iter().filter(move |_| g >= 6))
        .chain(KINDS_7.iter().filter(move |_| g >= 7))
        .chain(KINDS_8.iter().filter(move |_| g >= 8))
        .chain(KINDS_9.iter().filter(move |_| g >= 9))
}

pub fn is_preserving(kind: &str) -> bool {
    kinds(u8::MAX).any(|k| k.name == kind && k.preserving)
}

/// What a mutation may look at besides the program it changes: the program and the function as
/// they were before, the function's types, and the integer variables a new statement may use.
struct Cx<'a> {
    env: Env<'a>,
    vs: Vec<String>,
    snap: &'a Program,
    fsnap: &'a Func,
}

/// Apply one mutation of kind `kind` to function `fi` of `p` (0: `f`, k: helper k-1) or to
/// the program; false when it has no site for it.
pub fn apply(kind: &str, p: &mut Program, fi: usize, rng: &mut Rng) -> bool {
    let snap = p.clone();
    let fsnap = func_ref(&snap, fi).clone();
    let env = Env::new(&snap, &fsnap);
    let vs = int_vars(&snap, &fsnap);
    let cx = Cx {
        env,
        vs,
        snap: &snap,
        fsnap: &fsnap,
    };
    // the family of a kind is that of its construct (see `KINDS`)
    let Some(k) = kinds(u8::MAX).find(|k| k.name == kind) else {
        return false;
    };
    match k.feature {
        "" if kind.starts_with("bit-algebra") => bits::apply(kind, p, fi, rng, &cx),
        "" if kind.starts_with("builtin-") => bits::builtin(kind, p, fi, rng),
        "" if kind.starts_with("loop-") => schedule::apply(kind, p, fi, rng),
        "" if kind.starts_with("fall-off") => control::fall_off(kind, p),
        "" => generic::apply(kind, p, fi, rng, &cx),
        "widths" | "bool" | "enum" | "float" | "struct" | "union" => {
            types::apply(kind, p, fi, rng, &cx)
        }
        "outparam" | "buffer" | "string" | "alias" | "global" | "static-local" | "local-array" => {
            memory::apply(kind, p, fi, rng, &cx)
        }
        "switch" | "goto" | "do-while" | "recursion" | "fnptr" | "printf" | "hang" => {
            control::apply(kind, p, fi, rng, &cx)
        }
        "stmt-expr" => stmtexpr::apply(kind, p, fi, rng, &cx),
        _ => false,
    }
}

/// The second version: one mutation (sometimes two) of `f`, a helper or the program; half of
/// them about the pair's main construct when it has mutations of its own. Gives the new program
/// and the kinds applied.
pub fn mutate(
    p: &Program,
    rng: &mut Rng,
    primary: Option<&str>,
    generation: u8,
) -> (Program, Vec<String>) {
    let mut q = p.clone();
    let mut applied = vec![];
    let n = if rng.chance(25) { 2 } else { 1 };
    let own: Vec<&Kind> = kinds(generation)
        .filter(|k| !k.feature.is_empty() && Some(k.feature) == primary)
        .collect();
    let generic: Vec<&Kind> = kinds(generation).filter(|k| k.feature.is_empty()).collect();
    let specific: Vec<&Kind> = kinds(generation)
        .filter(|k| !k.feature.is_empty())
        .collect();
    for _ in 0..n {
        for attempt in 0..40 {
            let kind = if !own.is_empty() && attempt < 20 && rng.chance(65) {
                *rng.pick(&own)
            } else if rng.chance(25) {
                *rng.pick(&specific)
            } else {
                let changing = rng.chance(55);
                let pool: Vec<&&Kind> = generic
                    .iter()
                    .filter(|k| k.preserving != changing)
                    .collect();
                **rng.pick(&pool)
            };
            let fi = if !kind.program && !q.helpers.is_empty() && rng.chance(20) {
                1 + rng.below(q.helpers.len())
            } else {
                0
            };
            let before = q.clone();
            if apply(kind.name, &mut q, fi, rng) && q != before {
                applied.push(kind.name.to_string());
                break;
            }
            q = before;
        }
    }
    (q, applied)
}
