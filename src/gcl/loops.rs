//! Loops of a GCL function that provably terminate.
//!
//! Takes a flat GCL function (a version's, or the correlating product) and a backward jump;
//! gives whether the loop it closes terminates on every input, by a simple ranking argument:
//! the jump is taken only while a guard `g := i < e` (or `<=`, `>`, `>=`, either side, also
//! `i + c < e`) holds, `g` is evaluated afresh in every iteration, the counter `i` is a local
//! integer changed in the loop only by steps `i := i ± c` that all move `i` towards `e`, one of
//! which runs in every iteration taking the jump, and `e` does not change in the loop. Over
//! wrapping types (unsigned, or signed with `--overflow wrap`) only one step of one towards a
//! strict bound on the counter itself is accepted, so the counter cannot wrap past it.
//! Everything else is "not proven", with the reason.
//!
//! Also gives the functions of a program that terminate on every input: every loop proven,
//! every call to a function of the file to one that terminates, or to itself where
//! [`super::recursion`] bounds how deep the calls nest (no mutual recursion); calls to
//! functions outside the file are assumed to return. The `termination` stage uses both to
//! decide whether equal results mean equal behaviour.

use std::collections::HashSet;

use super::{Cfg, GclFunction, GclProgram, Guard, InstrKind};
use crate::ir::Pos;
use crate::ir::{BinOp, CType, Callee, Expr, ExprKind, GuardId, Place, VarId, VarKind};

/// Whether the loop closed by the jump at `back` (to `head`) terminates; `Err` says why it
/// could not be shown. `wrap_signed`: signed arithmetic wraps (`--overflow wrap`).
pub fn loop_terminates(
    f: &GclFunction,
    cfg: &Cfg,
    head: Pos,
    back: Pos,
    wrap_signed: bool,
) -> Result<(), String> {
    // Positions as instruction indices from here on.
    let (head, back) = (head.index(), back.index());
    let region = head..=back;
    let jump = &f.instrs[back];
    let others = cfg
        .back_edges()
        .iter()
        .filter(|&&(j, t)| t.index() == head && j.index() != back)
        .count();
    if others > 0 {
        return Err("the loop has several backward jumps".into());
    }
    // The argument reads the loop as straight-line code per iteration: no jump may enter it
    // or skip around inside it, and inner loops may not repeat its test or step.
    let inner: Vec<(usize, usize)> = cfg
        .back_edges()
        .iter()
        .map(|&(j, t)| (j.index(), t.index()))
        .filter(|&(j, _)| j != back && region.contains(&j))
        .map(|(j, t)| (t, j))
        .collect();
    for (j, t, _) in cfg.jumps() {
        let (j, t) = (j.index(), t.index());
        let is_inner = inner.iter().any(|&(h, b)| b == j && h == t);
        if j != back && !is_inner && t > head && t <= back {
            return Err("a jump enters or skips within the loop".into());
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
    // A guard literal of the jump that stays as it was set, with its condition.
    let stable = |g: GuardId, from: usize| {
        !guard_writes
            .iter()
            .any(|&(p, h)| h == g && p > from && p < back)
    };
    let lits_stable = |gd: &Guard, at: usize| gd.0.iter().all(|l| stable(l.guard, at));
    let cx = LoopCx {
        writes: &writes,
        unknown_writes,
        wrap_signed,
    };
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
        // Each conjunct of the test that can only become false after finitely many of its
        // progress events is a measure; the loop terminates when every iteration taking the
        // jump makes progress on one of them.
        let mut events: Vec<usize> = vec![];
        for c in conjuncts(cond) {
            let ev = if let Some((i, dir, strict, bound, offset)) = counter_test(c) {
                counter_events(f, (i, dir, strict, offset), bound, &cx)
            } else if let Some(flag) = flag_test(c) {
                flag_events(f, flag, &cx)
            } else {
                continue;
            };
            match ev {
                Ok(mut e) => events.append(&mut e),
                Err(w) => why = w,
            }
        }
        let events: Vec<&Guard> = events
            .iter()
            .filter(|&&e| !in_inner(e) && lits_stable(&f.instrs[e].guard, e))
            .map(|&e| &f.instrs[e].guard)
            .collect();
        if !events.is_empty() && covers(&jump.guard, &events) {
            return Ok(());
        }
        if !events.is_empty() {
            why = "progress towards the end of the loop is not made in every iteration".into();
        }
    }
    Err(why)
}

/// What the measures need to know of the loop.
struct LoopCx<'a> {
    writes: &'a [(usize, VarId)],
    unknown_writes: bool,
    wrap_signed: bool,
}

/// The steps of counter `i` (moving in direction `dir` towards `bound`, tested with a constant
/// added where `offset`) as the progress events of its measure, or why they are not.
fn counter_events(
    f: &GclFunction,
    (i, dir, strict, offset): (VarId, i32, bool, bool),
    bound: &Expr,
    cx: &LoopCx,
) -> Result<Vec<usize>, String> {
    let info = f.func.var(i);
    if !plain_local(f, i) || !info.ty.is_integer() {
        return Err(format!(
            "the loop counter `{}` is not a plain local integer",
            info.name
        ));
    }
    let written = |v: VarId| cx.writes.iter().any(|w| w.1 == v);
    if !invariant(bound, &written, cx.unknown_writes, f) {
        return Err(format!(
            "the bound of `{}` may change in the loop",
            info.name
        ));
    }
    let steps: Vec<usize> = cx.writes.iter().filter(|w| w.1 == i).map(|w| w.0).collect();
    if steps.is_empty() {
        return Err(format!("`{}` is not changed in the loop", info.name));
    }
    // Division (or a right shift) by a constant: a positive counter falls strictly, never
    // below zero, so a test that needs it positive fails after finitely many steps.
    if steps
        .iter()
        .all(|&p| divides(&f.instrs[p].kind, i, &info.ty))
    {
        let positive = match bound.kind {
            ExprKind::Int(k) => (strict && k >= 0) || k >= 1,
            _ => false,
        };
        if dir < 0 && !offset && positive {
            return Ok(steps);
        }
        return Err(format!("`{}` is divided but not towards zero", info.name));
    }
    let mut unit = true;
    for &step in &steps {
        let Some(c) = step_of(&f.instrs[step].kind, i, &info.ty) else {
            return Err(format!("`{}` does not change by a constant", info.name));
        };
        if c == 0 || (c > 0) != (dir > 0) {
            return Err(format!("`{}` does not move towards its bound", info.name));
        }
        unit &= c.abs() == 1;
    }
    let wraps = match info.ty {
        CType::Int { signed, bits } => !signed || cx.wrap_signed || bits < 32,
        _ => true,
    };
    if wraps && (steps.len() != 1 || !unit || !strict || offset) {
        return Err(format!("`{}` may wrap around past its bound", info.name));
    }
    Ok(steps)
}

/// The writes of flag `v` (the test needs it zero) as progress events: every write in the loop
/// must set it to a non-zero constant, so after the first the test fails for good.
fn flag_events(f: &GclFunction, v: VarId, cx: &LoopCx) -> Result<Vec<usize>, String> {
    let info = f.func.var(v);
    if !plain_local(f, v) {
        return Err(format!("the flag `{}` is not a plain local", info.name));
    }
    let sets: Vec<usize> = cx.writes.iter().filter(|w| w.1 == v).map(|w| w.0).collect();
    for &p in &sets {
        let ok = matches!(&f.instrs[p].kind,
            InstrKind::Assign(Place::Var(w), e) if *w == v && matches!(e.kind, ExprKind::Int(k) if k != 0));
        if !ok {
            return Err(format!(
                "the flag `{}` may be cleared in the loop",
                info.name
            ));
        }
    }
    Ok(sets)
}

/// A local of the function whose value only its own assignments change.
fn plain_local(f: &GclFunction, v: VarId) -> bool {
    let info = f.func.var(v);
    matches!(info.kind, VarKind::Local | VarKind::Param | VarKind::Temp)
        && !info.addr_taken
        && !info.volatile
}

/// The conjuncts of a condition (`a && b && c`).
fn conjuncts(e: &Expr) -> Vec<&Expr> {
    match &e.kind {
        ExprKind::Logic(crate::ir::LogicOp::And, a, b) => {
            let mut v = conjuncts(a);
            v.extend(conjuncts(b));
            v
        }
        _ => vec![e],
    }
}

/// `!v` or `v == 0` (`0 == v`): the test holds only while the flag `v` is zero.
fn flag_test(e: &Expr) -> Option<VarId> {
    let var = |x: &Expr| match x.kind {
        ExprKind::Var(v) => Some(v),
        _ => None,
    };
    match &e.kind {
        ExprKind::Unary(crate::ir::UnOp::LogNot, x) => var(x),
        ExprKind::Binary(BinOp::Eq, a, b) => match (&a.kind, &b.kind) {
            (ExprKind::Int(0), _) => var(b),
            (_, ExprKind::Int(0)) => var(a),
            _ => None,
        },
        _ => None,
    }
}

/// Whether the jump's guard implies one of the events' guards (checked over every valuation of
/// the guard variables involved; guards are conjunctions of literals).
fn covers(jump: &Guard, events: &[&Guard]) -> bool {
    let mut vars: Vec<GuardId> = jump.0.iter().map(|l| l.guard).collect();
    for g in events {
        vars.extend(g.0.iter().map(|l| l.guard));
    }
    vars.sort();
    vars.dedup();
    if vars.len() > 16 {
        // Too many to enumerate: only the plain case, an event no weaker than the jump.
        return events.iter().any(|g| subset(g, jump, None));
    }
    let holds = |g: &Guard, bits: u32| {
        g.0.iter().all(|l| {
            let k = vars.iter().position(|v| *v == l.guard).expect("collected");
            ((bits >> k) & 1 == 1) == l.positive
        })
    };
    (0..1u32 << vars.len()).all(|bits| !holds(jump, bits) || events.iter().any(|g| holds(g, bits)))
}

/// Whether every literal of `a` (other than `except`) is a literal of `b`.
fn subset(a: &Guard, b: &Guard, except: Option<GuardId>) -> bool {
    a.0.iter()
        .filter(|l| Some(l.guard) != except)
        .all(|l| b.0.contains(l))
}

/// `i op e` or `e op i` with a counter variable `i` (or `i ± c`): the counter, the direction
/// the counter must move for the test to fail eventually (+1 up, -1 down), whether the bound is
/// strict, the bound, and whether a constant is added to the counter.
fn counter_test(cond: &Expr) -> Option<(VarId, i32, bool, &Expr, bool)> {
    let ExprKind::Binary(op, a, b) = &cond.kind else {
        return None;
    };
    fn var(e: &Expr) -> Option<VarId> {
        match &e.kind {
            ExprKind::Var(v) => Some(*v),
            // A value-preserving conversion of the counter (`(long)i < n`).
            ExprKind::Cast(x) if widens(&x.ty, &e.ty) => match x.kind {
                ExprKind::Var(v) => Some(v),
                _ => None,
            },
            _ => None,
        }
    }
    // The counter plus or minus a constant (`i + 1 < n`): the same measure.
    let shifted = |e: &Expr| -> Option<(VarId, bool)> {
        if let Some(v) = var(e) {
            return Some((v, false));
        }
        match &e.kind {
            ExprKind::Binary(BinOp::Add | BinOp::Sub, x, c)
                if matches!(c.kind, ExprKind::Int(_)) =>
            {
                var(x).map(|v| (v, true))
            }
            _ => None,
        }
    };
    let (i, offset, left, bound) = match (shifted(a), shifted(b)) {
        (Some((i, off)), _) => (i, off, true, &**b),
        (None, Some((i, off))) => (i, off, false, &**a),
        _ => return None,
    };
    // Normalise to `i OP bound`.
    let op = if left { *op } else { op.swapped()? };
    let unsigned = |e: &Expr| matches!(e.ty, CType::Int { signed: false, .. });
    let counter = if left { &**a } else { &**b };
    if op == BinOp::Ne && matches!(bound.kind, ExprKind::Int(0)) && unsigned(counter) && !offset {
        // an unsigned counter is non-zero exactly when it is above zero
        return Some((i, -1, true, bound, false));
    }
    match op {
        BinOp::Lt => Some((i, 1, true, bound, offset)),
        BinOp::Le => Some((i, 1, false, bound, offset)),
        BinOp::Gt => Some((i, -1, true, bound, offset)),
        BinOp::Ge => Some((i, -1, false, bound, offset)),
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

/// Whether `k` is `i := i / c` (c ≥ 2) or `i := i >> c` (c ≥ 1), in the type of `i`.
fn divides(k: &InstrKind, i: VarId, ty: &CType) -> bool {
    let InstrKind::Assign(Place::Var(v), e) = k else {
        return false;
    };
    if *v != i || e.ty != *ty {
        return false;
    }
    let ExprKind::Binary(op, a, b) = &e.kind else {
        return false;
    };
    let is_i = matches!(a.kind, ExprKind::Var(w) if w == i);
    match (op, &b.kind) {
        (BinOp::Div, ExprKind::Int(c)) => is_i && *c >= 2,
        (BinOp::Shr, ExprKind::Int(c)) => is_i && *c >= 1,
        (BinOp::Shr, ExprKind::Cast(x)) => is_i && matches!(x.kind, ExprKind::Int(c) if c >= 1),
        _ => false,
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
            let cfg = Cfg::new(f);
            cfg.back_edges()
                .iter()
                .all(|&(b, h)| loop_terminates(f, &cfg, h, b, wrap_signed).is_ok())
        })
        .map(|f| f.name.as_str())
        .collect();
    // Calls to itself: where a ranking bounds how deep they nest (decided once per function).
    let ranked: HashSet<&str> = p
        .functions
        .iter()
        .filter(|f| super::recursion::recursion_terminates(f, wrap_signed).is_ok())
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
                } => {
                    !defined.contains(n.as_str())
                        || done.contains(n)
                        || (*n == f.name && ranked.contains(n.as_str()))
                }
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

#[cfg(test)]
mod tests {
    use super::*;

    fn load(src: &str) -> GclProgram {
        let p = crate::frontend::parse_text(src.to_string(), "t.c").expect("parse");
        crate::gcl::flatten_program(p).expect("flatten")
    }

    /// Whether every loop of `f` in `src` is proven to terminate.
    fn proven(src: &str, wrap: bool) -> Result<(), String> {
        let p = load(src);
        let f = p.function("f").expect("f");
        let cfg = Cfg::new(f);
        assert!(!cfg.back_edges().is_empty(), "no loop in {src}");
        for &(b, h) in cfg.back_edges() {
            loop_terminates(f, &cfg, h, b, wrap)?;
        }
        Ok(())
    }

    #[test]
    fn counters_moving_towards_fixed_bounds_terminate() {
        for src in [
            "int f(int n) { int s = 0; for (int i = 0; i < n; i++) s += i; return s; }",
            "int f(int n) { int s = 0; for (int i = n; i > 0; i -= 3) s++; return s; }",
            "int f(int x) { int s = 0; do { s++; x--; } while (x > 0); return s; }",
            "int f(int n) { int s = 0; for (int i = 0; i < n; i++) { if (i == 3) continue; s += i; } return s; }",
            "int f(int n) { int i; for (i = 0; i < n; i++) if (3 * i >= 7) break; return i; }",
            "int f(unsigned n) { unsigned s = 0; for (unsigned i = 0; i < n; i++) s += i; return s; }",
            "int f(long n) { int s = 0; for (int i = 0; i < n; i++) s++; return s; }",
            // A flag that ends the loop once set, or the counter moving on otherwise.
            "int f(int n, int t) { int i = 0, found = 0; while (i < n && !found) { if (3 * i >= t) found = 1; else i++; } return i; }",
            "int f(int n) { int s = 0; for (int i = 0; i < n; i++) for (int j = 0; j < i; j++) s++; return s; }",
            // A loop made of a backward goto counts the same.
            "int f(int x) { again: if (x > 0) { x--; goto again; } return x; }",
            // The counter tested with an offset, stepped twice (once only sometimes).
            "int f(int n) { int s = 0, i; for (i = 0; i + 1 < n; i += 2) s++; return s; }",
            "int f(int n) { int i = 0; while (i < n) { i++; if (i < n) i++; } return i; }",
            // Divided towards zero, or an unsigned counter stepped down to zero.
            "int f(unsigned v) { int d = 0; while (v != 0u) { v /= 10u; d++; } return d; }",
            "int f(int v) { int d = 0; while (v > 0) { v >>= 1; d++; } return d; }",
            "int f(unsigned v) { int d = 0; while (v != 0u) { v--; d++; } return d; }",
        ] {
            assert_eq!(proven(src, false), Ok(()), "{src}");
        }
    }

    #[test]
    fn loops_that_may_run_forever_are_not_proven() {
        for src in [
            // From an odd value the counter jumps over zero.
            "int f(int x) { while (x != 0) x -= 2; return 0; }",
            "int f(int n) { int s = 0; for (int i = 0; i != n; i += 2) s++; return s; }",
            // The counter never moves.
            "int f(int n) { int s = 0, i = 0; while (i < n) s++; return s; }",
            // It moves away from the bound.
            "int f(int n) { int s = 0; for (int i = 0; i < n; i--) s++; return s; }",
            // Only on some iterations.
            "int f(int n) { int s = 0, i = 0; while (i < n) { if (s & 1) i++; s++; } return s; }",
            // The bound moves with it.
            "int f(int n) { int s = 0; for (int i = 0; i < n; i++) n++; return s; }",
            // Unsigned `<=` never fails at the maximum; a char counter wraps past 200.
            "int f(unsigned n) { int s = 0; for (unsigned i = 0; i <= n; i++) s++; return s; }",
            "int f(int n) { int s = 0; for (char c = 0; c < 200; c++) s++; return s; }",
            // The flag is cleared again.
            "int f(int n) { int i = 0, done = 0; while (i < n && !done) { done = 1; done = 0; } return i; }",
            // A backward goto.
            "int f(int x) { again: if (x != 0) { x -= 2; goto again; } return x; }",
            // A second step away from the bound: from 0 it falls for ever.
            "int f(int n) { int i = 0; while (i < n) { i += 1; if (i & 1) i -= 3; } return i; }",
            // Divided, but tested against a bound it never falls below; an unsigned counter
            // stepped down by two past zero.
            "int f(int v) { while (v >= 0) v /= 2; return v; }",
            "int f(unsigned v) { while (v != 0u) v -= 2u; return 0; }",
        ] {
            assert!(proven(src, false).is_err(), "{src}");
        }
    }

    #[test]
    fn wrapping_signed_counters_need_unit_steps_to_strict_bounds() {
        let src = "int f(int n) { int s = 0; for (int i = 0; i <= n; i++) s++; return s; }";
        assert_eq!(proven(src, false), Ok(()));
        assert!(proven(src, true).is_err());
    }

    #[test]
    fn unranked_recursion_and_unproven_loops_make_functions_non_terminating() {
        let p = load(
            "static int r(int n) { return n <= 0 ? 0 : r(n - 1); }\n\
             static int spin(int x) { while (x != 0) x -= 2; return x; }\n\
             static int fine(int n) { int s = 0; for (int i = 0; i < n; i++) s++; return s; }\n\
             int a(int n) { return fine(n); }\n\
             int b(int n) { return r(n); }\n\
             int c(int n) { return spin(n) + fine(n); }\n\
             static int up(int n) { return n <= 0 ? 0 : up(n + 1); }\n\
             int d(int n) { return up(n); }\n",
        );
        let t = terminating_functions(&p, false);
        let mut names: Vec<&str> = t.iter().map(String::as_str).collect();
        names.sort();
        // `r` falls to its base case (see `recursion`); `up` moves away from it.
        assert_eq!(names, vec!["a", "b", "fine", "r"]);
    }
}
