//! Self-recursive functions that provably terminate.
//!
//! Takes a flat GCL function; gives whether its calls to itself cannot nest forever, by a
//! ranking argument on one integer parameter `p` that the function never writes: every
//! recursive call passes `p - c` (`c ≥ 1`) where its guard implies `p ≥ L` for a constant `L`
//! (or, mirrored, `p + c` where it implies `p ≤ U`). The parameter then falls by at least one
//! per level while every level that recurses has it above the least such `L`, so the nesting
//! is finite. The argument may also name a local assigned once from `p ± k` (how the inliner
//! passes the parameter of a body unfolded into itself), and so may the guard's condition.
//! Functions with jumps (loops, `goto`) are not judged: the argument reads the body as
//! straight-line code. Over wrapping types the bound must keep `p ∓ c` inside the type.
//! `loops::terminating_functions` uses it for the calls a function makes to itself.

use std::collections::HashMap;

use super::{GclFunction, Guard, InstrKind, Lit};
use crate::ir::{BinOp, CType, Callee, Expr, ExprKind, GuardId, Place, VarId, VarKind};

/// Whether the recursion of `f` (its calls to itself) terminates; `Err` says why it could not
/// be shown. `wrap_signed`: signed arithmetic wraps (`--overflow wrap`).
pub fn recursion_terminates(f: &GclFunction, wrap_signed: bool) -> Result<(), String> {
    let calls: Vec<usize> = (0..f.instrs.len())
        .filter(|&k| {
            matches!(&f.instrs[k].kind, InstrKind::Call { callee: Callee::Direct(n), .. }
                if *n == f.func.name)
        })
        .collect();
    if calls.is_empty() {
        return Ok(());
    }
    if f.instrs
        .iter()
        .any(|i| matches!(i.kind, InstrKind::Goto(_)))
    {
        return Err("the function has loops or jumps".into());
    }
    let mut why = String::from("no parameter moves towards a fixed bound in every recursive call");
    for (k, &p) in f.func.params.iter().enumerate() {
        let info = f.func.var(p);
        let plain = matches!(info.kind, VarKind::Param) && !info.addr_taken && !info.volatile;
        if !plain || !info.ty.is_integer() || writes(f, p) > 0 {
            continue;
        }
        let offsets = offsets_of(f, p);
        let wraps = match info.ty {
            CType::Int { signed, bits } => !signed || wrap_signed || bits < 32,
            _ => true,
        };
        let (lo, hi) = type_range(&info.ty);
        for dir in [-1i128, 1] {
            let ok = calls.iter().all(|&at| {
                let InstrKind::Call { args, .. } = &f.instrs[at].kind else {
                    return false;
                };
                // Only locals assigned before the call say what it passes.
                let before = assigned_before(&offsets, at);
                let Some(d) = args.get(k).and_then(|a| offset(a, p, &before)) else {
                    return false;
                };
                if d * dir < 1 {
                    return false;
                }
                // The bound the guard puts on `p` on this side, if any.
                let Some(b) = bound(f, &f.instrs[at].guard, at, p, &offsets, dir) else {
                    return false;
                };
                !wraps || (lo..=hi).contains(&(b + d))
            });
            if ok {
                return Ok(());
            }
        }
        why = format!(
            "the recursive calls do not all move `{}` towards a bound their guards impose",
            info.name
        );
    }
    Err(why)
}

/// How many instructions write `v`.
fn writes(f: &GclFunction, v: VarId) -> usize {
    f.instrs
        .iter()
        .filter(|i| i.kind.dest().and_then(Place::root_var) == Some(v))
        .count()
}

/// Locals assigned exactly once, from `p + k` (or another such local plus a constant), with
/// their offset `k` from `p` and where they are assigned.
fn offsets_of(f: &GclFunction, p: VarId) -> HashMap<VarId, (i128, usize)> {
    let mut out: HashMap<VarId, (i128, usize)> = HashMap::new();
    for (at, ins) in f.instrs.iter().enumerate() {
        let InstrKind::Assign(Place::Var(v), e) = &ins.kind else {
            continue;
        };
        let info = f.func.var(*v);
        let local = matches!(info.kind, VarKind::Local | VarKind::Temp)
            && !info.addr_taken
            && !info.volatile;
        if !local || e.ty != info.ty || writes(f, *v) != 1 {
            continue;
        }
        if let Some(k) = offset(e, p, &out) {
            out.insert(*v, (k, at));
        }
    }
    out
}

/// The locals of `offsets` assigned before position `at`.
fn assigned_before(
    offsets: &HashMap<VarId, (i128, usize)>,
    at: usize,
) -> HashMap<VarId, (i128, usize)> {
    offsets
        .iter()
        .filter(|(_, (_, w))| *w < at)
        .map(|(v, o)| (*v, *o))
        .collect()
}

/// `e` as `p + k`: `p`, a local of `offsets`, either plus or minus a constant.
fn offset(e: &Expr, p: VarId, offsets: &HashMap<VarId, (i128, usize)>) -> Option<i128> {
    let base = |x: &Expr| match x.kind {
        ExprKind::Var(v) if v == p => Some(0),
        ExprKind::Var(v) => offsets.get(&v).map(|o| o.0),
        _ => None,
    };
    let cst = |x: &Expr| match x.kind {
        ExprKind::Int(c) => Some(c),
        _ => None,
    };
    match &e.kind {
        ExprKind::Var(_) => base(e),
        ExprKind::Binary(BinOp::Add, a, b) if a.ty == e.ty && b.ty == e.ty => {
            match (base(a), cst(b), cst(a), base(b)) {
                (Some(k), Some(c), _, _) | (_, _, Some(c), Some(k)) => k.checked_add(c),
                _ => None,
            }
        }
        ExprKind::Binary(BinOp::Sub, a, b) if a.ty == e.ty && b.ty == e.ty => {
            base(a)?.checked_sub(cst(b)?)
        }
        _ => None,
    }
}

/// A bound on `p` that guard `g` of the instruction at `at` implies: a lower bound `L` (`p ≥ L`)
/// when `dir` is -1 (the argument falls), an upper bound when it is 1. Read from a literal of
/// `g` whose guard is set once, before `at`, where `g` holds, to a comparison of `p` (or a local
/// of `offsets` assigned before it) with a constant.
fn bound(
    f: &GclFunction,
    g: &Guard,
    at: usize,
    p: VarId,
    offsets: &HashMap<VarId, (i128, usize)>,
    dir: i128,
) -> Option<i128> {
    let mut best: Option<i128> = None;
    for lit in &effective(f, g, at) {
        let sets: Vec<usize> = (0..at)
            .filter(|&k| matches!(f.instrs[k].kind, InstrKind::SetGuard(h, _) if h == lit.guard))
            .collect();
        let all_sets = f
            .instrs
            .iter()
            .filter(|i| matches!(i.kind, InstrKind::SetGuard(h, _) if h == lit.guard))
            .count();
        let [set] = sets.as_slice() else { continue };
        if all_sets != 1 || !implies(g, &f.instrs[*set].guard, lit.guard) {
            continue;
        }
        let InstrKind::SetGuard(_, cond) = &f.instrs[*set].kind else {
            continue;
        };
        let range = type_range(&f.func.var(p).ty);
        let Some(b) = compare(cond, p, offsets, *set, lit.positive, dir, range) else {
            continue;
        };
        best = Some(match best {
            Some(x) if dir < 0 => x.max(b),
            Some(x) => x.min(b),
            None => b,
        });
    }
    best
}

/// Where guard `g` (of the instruction at `at`) holds: its literals, and for each flag `!h` of
/// it that only goes from false to true by constant assignments (the return flag after
/// `if (c) return …;`), the negation of the one literal under which each earlier assignment of
/// true would have run, the literals known to hold then aside.
fn effective(f: &GclFunction, g: &Guard, at: usize) -> Vec<Lit> {
    let set_once_before = |h: GuardId, k: usize| {
        let sets: Vec<usize> = (0..f.instrs.len())
            .filter(|&j| matches!(f.instrs[j].kind, InstrKind::SetGuard(x, _) if x == h))
            .collect();
        matches!(sets.as_slice(), [j] if *j < k)
    };
    let mut out = g.0.clone();
    for l in g.0.iter().filter(|l| !l.positive) {
        let mut sets: Vec<(usize, bool)> = vec![];
        let mut constant = true;
        for (k, ins) in f.instrs.iter().enumerate() {
            if let InstrKind::SetGuard(h, e) = &ins.kind {
                // Assignments after `at` do not make its value.
                if *h == l.guard && k < at {
                    match e.kind {
                        ExprKind::Int(c) => sets.push((k, c != 0)),
                        _ => constant = false,
                    }
                }
            }
        }
        let first_true = sets.iter().filter(|s| s.1).map(|s| s.0).min();
        let monotone = sets
            .iter()
            .all(|&(k, t)| t || first_true.is_none_or(|f| k < f));
        if !constant || !monotone {
            continue;
        }
        for &(k, _) in sets.iter().filter(|s| s.1) {
            let rest: Vec<&Lit> = f.instrs[k]
                .guard
                .0
                .iter()
                .filter(|m| **m != *l && !(out.contains(m) && set_once_before(m.guard, k)))
                .collect();
            if let [m] = rest.as_slice() {
                if set_once_before(m.guard, k) {
                    out.push(Lit {
                        guard: m.guard,
                        positive: !m.positive,
                    });
                }
            }
        }
    }
    out
}

/// Whether every literal of `weaker` (but `except`) is one of `g`: where `g` holds, the
/// instruction guarded by `weaker` ran.
fn implies(g: &Guard, weaker: &Guard, except: GuardId) -> bool {
    weaker
        .0
        .iter()
        .filter(|l| l.guard != except)
        .all(|l| g.0.contains(l))
}

/// The bound on `p` that `cond` (holding when `holds`, failing otherwise) gives in direction
/// `dir` (see [`bound`]), when `cond` compares `p + k` with a constant.
fn compare(
    cond: &Expr,
    p: VarId,
    offsets: &HashMap<VarId, (i128, usize)>,
    set: usize,
    holds: bool,
    dir: i128,
    range: (i128, i128),
) -> Option<i128> {
    let ExprKind::Binary(op, a, b) = &cond.kind else {
        return None;
    };
    // Locals read by the test must be assigned before it.
    let fresh = assigned_before(offsets, set);
    let (k, c, op) = match (offset(a, p, &fresh), &b.kind, offset(b, p, &fresh), &a.kind) {
        (Some(k), ExprKind::Int(c), _, _) => (k, *c, *op),
        (_, _, Some(k), ExprKind::Int(c)) => (k, *c, op.swapped()?),
        _ => return None,
    };
    // Normalise to `p + k OP c` holding.
    let op = if holds { op } else { negate(op)? };
    let c = c.checked_sub(k)?;
    match (op, dir) {
        (BinOp::Gt, -1) => c.checked_add(1),
        (BinOp::Ge, -1) => Some(c),
        (BinOp::Lt, 1) => c.checked_sub(1),
        (BinOp::Le, 1) => Some(c),
        (BinOp::Eq, _) => Some(c),
        // `p != MIN` over a type whose least value is MIN (`n != 0` for unsigned `n`).
        (BinOp::Ne, -1) if k == 0 && c == range.0 => c.checked_add(1),
        (BinOp::Ne, 1) if k == 0 && c == range.1 => c.checked_sub(1),
        _ => None,
    }
}

/// The comparison that holds exactly when `op` fails (over integers).
fn negate(op: BinOp) -> Option<BinOp> {
    Some(match op {
        BinOp::Lt => BinOp::Ge,
        BinOp::Ge => BinOp::Lt,
        BinOp::Le => BinOp::Gt,
        BinOp::Gt => BinOp::Le,
        BinOp::Eq => BinOp::Ne,
        BinOp::Ne => BinOp::Eq,
        _ => return None,
    })
}

/// The values of an integer type.
fn type_range(t: &CType) -> (i128, i128) {
    match t.int_info() {
        Some((bits, true)) => (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1),
        Some((bits, false)) => (0, (1i128 << bits) - 1),
        None => (0, -1),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn judge(src: &str, wrap: bool) -> Result<(), String> {
        let p = crate::frontend::parse_text(src.to_string(), "t.c").expect("parse");
        let g = crate::gcl::flatten_program(p).expect("flatten");
        recursion_terminates(g.function("f").expect("f"), wrap)
    }

    #[test]
    fn parameters_falling_to_a_guarded_bound_terminate() {
        for src in [
            "int f(int n) { if (n <= 0) return 0; return n + f(n - 1); }",
            "int f(int n) { int r = 0; if (n > 1) r = f(n - 2) + 1; return r; }",
            "int f(int n) { if (n >= 10) return 1; return f(n + 1) * 2; }",
            "int f(int m, int n) { if (m <= 0) return n + 1; if (n == 0) return f(m - 1, 1); return f(m - 1, n); }",
            "int f(int n) { int r; if (n <= 1) { r = n; } else { r = f(n - 1); r = n + r; } return r; }",
            "unsigned f(unsigned n) { if (n == 0) return 1; return n * f(n - 1); }",
            "int f(int n) { if (n < 2) return n; return f(n - 1) + f(n - 2); }",
        ] {
            assert_eq!(judge(src, false), Ok(()), "{src}");
        }
    }

    #[test]
    fn recursion_without_a_ranking_is_not_proven() {
        for src in [
            // No bound on the falling side.
            "int f(int n) { if (n > 100) return 0; return f(n - 1); }",
            // The argument does not move, or moves away from the bound.
            "int f(int n) { if (n <= 0) return 0; return f(n); }",
            "int f(int n) { if (n <= 0) return 0; return f(n + 1); }",
            // Two calls pulling two parameters in opposite directions.
            "int f(int a, int b) { if (a > 0) return f(a - 1, b + 1); if (b > 0) return f(a + 1, b - 1); return 0; }",
            // Signed `m != 0` bounds nothing: f(-1) recurses forever.
            "int f(int m) { if (m == 0) return 1; return f(m - 1); }",
            // The parameter is written.
            "int f(int n) { if (n <= 0) return 0; n = n + 5; return f(n - 1); }",
            // A local read before the one assignment that would relate it to `n`.
            "int f(int n) { int m; int r = 0; if (n > 0) r = f(m); m = n - 1; return r + m; }",
            // A loop around the call.
            "int f(int n) { int s = 0; while (s < 3) { s++; if (n > 0) s += f(n - 1); } return s; }",
            // Unsigned arithmetic wraps below zero: `n - 2` from 1.
            "unsigned f(unsigned n) { if (n == 0) return 1; return f(n - 2); }",
        ] {
            assert!(judge(src, false).is_err(), "{src}");
        }
    }

    #[test]
    fn wrapping_signed_arithmetic_needs_the_bound_inside_the_type() {
        let src = "int f(int n) { if (n < -2147483647) return 0; return f(n - 2); }";
        assert!(judge(src, true).is_err());
        assert_eq!(judge(src, false), Ok(()));
        let ok = "int f(int n) { if (n <= 0) return 0; return f(n - 1); }";
        assert_eq!(judge(ok, true), Ok(()));
    }
}
