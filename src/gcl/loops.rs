//! Loops of a GCL function that provably terminate.
//!
//! Takes a flat GCL function (a version's, or the correlating product) and a backward jump;
//! gives whether the loop it closes terminates on every input, by a simple ranking argument:
//! the jump is taken only while a guard `g := i < e` (or `<=`, `>`, `>=`, either side) holds,
//! `g` is evaluated afresh in every iteration, the counter `i` is a local integer changed in the
//! loop only by one `i := i ± c` that runs in every iteration taking the jump, `e` does not
//! change in the loop, and the step moves `i` towards `e`. Over wrapping types (unsigned, or
//! signed with `--overflow wrap`) only a step of one towards a strict bound is accepted, so the
//! counter cannot wrap past it. Everything else is "not proven", with the reason.
//!
//! Also gives the functions of a program that terminate on every input: every loop proven,
//! every call to a function of the file to one that terminates (so no recursion); calls to
//! functions outside the file are assumed to return. The `termination` stage uses both to
//! decide whether equal results mean equal behaviour.

use std::collections::HashSet;

use super::{GclFunction, GclProgram, Guard, InstrKind};
use crate::ir::{BinOp, CType, Callee, Expr, ExprKind, GuardId, Place, VarId, VarKind};

/// The backward jumps of `f`: (jump position, target position).
pub fn back_edges(f: &GclFunction) -> Vec<(usize, usize)> {
    f.instrs
        .iter()
        .enumerate()
        .filter_map(|(j, ins)| match ins.kind {
            InstrKind::Goto(l) => {
                let t = f.labels[l.index()];
                (t <= j).then_some((j, t))
            }
            _ => None,
        })
        .collect()
}

/// Whether the loop closed by the jump at `back` (to `head`) terminates; `Err` says why it
/// could not be shown. `wrap_signed`: signed arithmetic wraps (`--overflow wrap`).
pub fn loop_terminates(
    f: &GclFunction,
    head: usize,
    back: usize,
    wrap_signed: bool,
) -> Result<(), String> {
    let region = head..=back;
    let jump = &f.instrs[back];
    let others = back_edges(f)
        .into_iter()
        .filter(|&(j, t)| t == head && j != back)
        .count();
    if others > 0 {
        return Err("the loop has several backward jumps".into());
    }
    // The argument reads the loop as straight-line code per iteration: no jump may enter it
    // or skip around inside it, and inner loops may not repeat its test or step.
    let inner: Vec<(usize, usize)> = back_edges(f)
        .into_iter()
        .filter(|&(j, _)| j != back && region.contains(&j))
        .map(|(j, t)| (t, j))
        .collect();
    for (j, ins) in f.instrs.iter().enumerate() {
        if let InstrKind::Goto(l) = ins.kind {
            let t = f.labels[l.index()];
            let is_inner = inner.iter().any(|&(h, b)| b == j && h == t);
            if j != back && !is_inner && t > head && t <= back {
                return Err("a jump enters or skips within the loop".into());
            }
        }
    }
    let in_inner = |p: usize| inner.iter().any(|&(h, b)| (h..=b).contains(&p));
    // Writes in the loop, by variable and by guard.
    let mut writes: Vec<(usize, VarId)> = vec![];
    let mut guard_writes: Vec<(usize, GuardId)> = vec![];
    let mut unknown_writes = false;
    for p in region.clone() {
        let ins = &f.instrs[p];
        match &ins.kind {
            InstrKind::SetGuard(g, _) => guard_writes.push((p, *g)),
            InstrKind::Call { callee, .. } => {
                unknown_writes = true;
                if let Some(v) = ins.kind.dest().and_then(Place::root_var) {
                    writes.push((p, v));
                }
                let _ = callee;
            }
            k => {
                if let Some(d) = k.dest() {
                    match d.root_var() {
                        Some(v) => writes.push((p, v)),
                        None => unknown_writes = true,
                    }
                }
            }
        }
    }
    let written = |v: VarId| writes.iter().any(|w| w.1 == v);
    // A guard literal of the jump that stays as it was set, with its condition.
    let stable = |g: GuardId, from: usize| {
        !guard_writes
            .iter()
            .any(|&(p, h)| h == g && p > from && p < back)
    };
    let lits_stable = |gd: &Guard, at: usize| gd.0.iter().all(|l| stable(l.guard, at));
    let mut why = String::from("no counter moves towards a fixed bound in every iteration");
    for lit in jump.guard.0.iter().filter(|l| l.positive) {
        let sets: Vec<usize> = guard_writes
            .iter()
            .filter(|w| w.1 == lit.guard)
            .map(|w| w.0)
            .collect();
        let [set] = sets.as_slice() else { continue };
        if in_inner(*set) {
            continue;
        }
        let set_ins = &f.instrs[*set];
        // The test runs whenever the jump is taken, and its value is the current one.
        if !subset(&set_ins.guard, &jump.guard, Some(lit.guard))
            || !lits_stable(&set_ins.guard, *set)
        {
            continue;
        }
        let InstrKind::SetGuard(_, cond) = &set_ins.kind else {
            continue;
        };
        let Some((i, dir, strict, bound)) = counter_test(cond) else {
            continue;
        };
        let info = f.func.var(i);
        let local = matches!(info.kind, VarKind::Local | VarKind::Param | VarKind::Temp);
        if !local || info.addr_taken || info.volatile || !info.ty.is_integer() {
            why = format!(
                "the loop counter `{}` is not a plain local integer",
                info.name
            );
            continue;
        }
        if !invariant(bound, &written, unknown_writes, f) {
            why = format!("the bound of `{}` may change in the loop", info.name);
            continue;
        }
        let steps: Vec<usize> = writes.iter().filter(|w| w.1 == i).map(|w| w.0).collect();
        let [step] = steps.as_slice() else {
            why = format!("`{}` is not changed exactly once in the loop", info.name);
            continue;
        };
        if in_inner(*step) {
            why = format!("`{}` changes inside an inner loop", info.name);
            continue;
        }
        let step_ins = &f.instrs[*step];
        if !subset(&step_ins.guard, &jump.guard, None) || !lits_stable(&step_ins.guard, *step) {
            why = format!("`{}` does not change in every iteration", info.name);
            continue;
        }
        let Some(c) = step_of(&step_ins.kind, i, &info.ty) else {
            why = format!("`{}` does not change by a constant", info.name);
            continue;
        };
        if c == 0 || (c > 0) != (dir > 0) {
            why = format!("`{}` does not move towards its bound", info.name);
            continue;
        }
        let wraps = match info.ty {
            CType::Int { signed, bits } => !signed || wrap_signed || bits < 32,
            _ => true,
        };
        if wraps && (c.abs() != 1 || !strict) {
            why = format!("`{}` may wrap around past its bound", info.name);
            continue;
        }
        return Ok(());
    }
    Err(why)
}

/// Whether every literal of `a` (other than `except`) is a literal of `b`.
fn subset(a: &Guard, b: &Guard, except: Option<GuardId>) -> bool {
    a.0.iter()
        .filter(|l| Some(l.guard) != except)
        .all(|l| b.0.contains(l))
}

/// `i op e` or `e op i` with a counter variable `i`: the counter, the direction the counter
/// must move for the test to fail eventually (+1 up, -1 down), whether the bound is strict,
/// and the bound.
fn counter_test(cond: &Expr) -> Option<(VarId, i32, bool, &Expr)> {
    let ExprKind::Binary(op, a, b) = &cond.kind else {
        return None;
    };
    let var = |e: &Expr| -> Option<VarId> {
        match &e.kind {
            ExprKind::Var(v) => Some(*v),
            // A value-preserving conversion of the counter (`(long)i < n`).
            ExprKind::Cast(x) if widens(&x.ty, &e.ty) => match x.kind {
                ExprKind::Var(v) => Some(v),
                _ => None,
            },
            _ => None,
        }
    };
    let (i, left, bound) = match (var(a), var(b)) {
        (Some(i), _) => (i, true, &**b),
        (None, Some(i)) => (i, false, &**a),
        _ => return None,
    };
    // Normalise to `i OP bound`.
    let op = if left { *op } else { op.swapped()? };
    match op {
        BinOp::Lt => Some((i, 1, true, bound)),
        BinOp::Le => Some((i, 1, false, bound)),
        BinOp::Gt => Some((i, -1, true, bound)),
        BinOp::Ge => Some((i, -1, false, bound)),
        _ => None,
    }
}

fn widens(from: &CType, to: &CType) -> bool {
    match (from.int_info(), to.int_info()) {
        (Some((fb, fs)), Some((tb, ts))) => (fs == ts && tb >= fb) || (!fs && ts && tb > fb),
        _ => false,
    }
}

/// The constant `c` of `i := i + c` / `i := c + i` / `i := i - c`, in the type of `i`.
fn step_of(k: &InstrKind, i: VarId, ty: &CType) -> Option<i128> {
    let InstrKind::Assign(Place::Var(v), e) = k else {
        return None;
    };
    if *v != i || e.ty != *ty {
        return None;
    }
    let ExprKind::Binary(op, a, b) = &e.kind else {
        return None;
    };
    let is_i = |x: &Expr| matches!(x.kind, ExprKind::Var(w) if w == i);
    let cst = |x: &Expr| match x.kind {
        ExprKind::Int(c) => Some(c),
        _ => None,
    };
    match op {
        BinOp::Add if is_i(a) => cst(b),
        BinOp::Add if is_i(b) => cst(a),
        BinOp::Sub if is_i(a) => cst(b).and_then(i128::checked_neg),
        _ => None,
    }
}

/// Whether `e` has the same value in every iteration: it reads no variable the loop writes, no
/// memory, and, when the loop may write memory or call functions, no global or address-taken
/// variable.
fn invariant(
    e: &Expr,
    written: &dyn Fn(VarId) -> bool,
    unknown_writes: bool,
    f: &GclFunction,
) -> bool {
    let mut ok = true;
    e.walk(&mut |x| match &x.kind {
        ExprKind::Var(v) => {
            let info = f.func.var(*v);
            let shared = info.addr_taken || matches!(info.kind, VarKind::Global(_));
            if written(*v) || info.volatile || (unknown_writes && shared) {
                ok = false;
            }
        }
        ExprKind::Load(_) | ExprKind::Guard(_) | ExprKind::Opaque(_) => ok = false,
        _ => {}
    });
    ok
}

/// Functions of `p` that terminate on every input (see the module doc).
pub fn terminating_functions(p: &GclProgram, wrap_signed: bool) -> HashSet<String> {
    let defined: HashSet<&str> = p.functions.iter().map(|f| f.name.as_str()).collect();
    let loops_ok: HashSet<&str> = p
        .functions
        .iter()
        .filter(|f| {
            back_edges(f)
                .iter()
                .all(|&(b, h)| loop_terminates(f, h, b, wrap_signed).is_ok())
        })
        .map(|f| f.name.as_str())
        .collect();
    let mut done: HashSet<String> = HashSet::new();
    loop {
        let before = done.len();
        for f in &p.functions {
            if done.contains(&f.name) || !loops_ok.contains(f.name.as_str()) {
                continue;
            }
            let calls_ok = f.instrs.iter().all(|ins| match &ins.kind {
                InstrKind::Call {
                    callee: Callee::Direct(n),
                    ..
                } => !defined.contains(n.as_str()) || done.contains(n),
                InstrKind::Call { .. } => false,
                _ => true,
            });
            if calls_ok {
                done.insert(f.name.clone());
            }
        }
        if done.len() == before {
            return done;
        }
    }
}
