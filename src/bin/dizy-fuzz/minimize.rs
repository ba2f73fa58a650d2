//! Delta debugging of a failing pair.
//!
//! Takes both versions and a predicate "the failure is still there" (in practice: `check_pair`
//! still reports a failure of the same category); gives a smaller pair on which it still holds.
//! Greedy passes to a fixpoint, each accepted only when the predicate holds: drop a statement from
//! both versions (where they share it) or from one, splice an `if`'s branch in place of the `if`,
//! replace an expression by a constant or by one of its operands (in both versions alike, then in
//! one), drop locals, helpers and the global that nothing uses any more. The number of predicate
//! calls is bounded. Last stage of the fuzzer before a regression is saved.

use crate::gen::{Expr, Func, Program, Stmt, GLOBAL};
use crate::mutate::{each_block, func_exprs};

/// Number of statements of `f`, in `each_block` order.
fn stmt_count(f: &Func) -> usize {
    let mut body = f.body.clone();
    let mut n = 0;
    each_block(&mut body, false, &mut |b, _| n += b.len());
    n
}

/// Apply `edit` to the block holding the `k`-th statement, with its position.
fn edit_stmt(f: &mut Func, k: usize, edit: &mut dyn FnMut(&mut Vec<Stmt>, usize) -> bool) -> bool {
    let mut seen = 0;
    let mut done = false;
    let mut ok = false;
    each_block(&mut f.body, false, &mut |b, _| {
        if !done && k < seen + b.len() {
            ok = edit(b, k - seen);
            done = true;
        }
        seen += b.len();
    });
    ok
}

fn nth_stmt(f: &Func, k: usize) -> Option<Stmt> {
    let mut g = f.clone();
    let mut out = None;
    edit_stmt(&mut g, k, &mut |b, i| {
        out = Some(b[i].clone());
        false
    });
    out
}

fn expr_count(f: &Func) -> usize {
    let mut g = f.clone();
    let mut n = 0;
    func_exprs(&mut g, &mut |_| n += 1);
    n
}

fn nth_expr(f: &Func, k: usize) -> Option<Expr> {
    let mut g = f.clone();
    let (mut i, mut out) = (0, None);
    func_exprs(&mut g, &mut |e| {
        if i == k {
            out = Some(e.clone());
        }
        i += 1;
    });
    out
}

fn replace_expr(f: &mut Func, k: usize, by: &Expr) {
    let mut i = 0;
    func_exprs(f, &mut |e| {
        if i == k {
            *e = by.clone();
        }
        i += 1;
    });
}

/// Smaller expressions that could stand for `e`.
fn shrinks(e: &Expr) -> Vec<Expr> {
    let mut v = vec![Expr::Const(0), Expr::Const(1)];
    match e {
        Expr::Const(c) if *c == 0 || *c == 1 => return vec![],
        Expr::Const(_) | Expr::Var(_) => {}
        Expr::Un(_, a) => v.push((**a).clone()),
        Expr::Bin(_, a, b) => {
            v.push((**a).clone());
            v.push((**b).clone());
        }
        Expr::Cond(_, a, b) => {
            v.push((**a).clone());
            v.push((**b).clone());
        }
        Expr::Call(_, args) => v.extend(args.iter().cloned()),
    }
    v
}

fn mentions(p: &Program, name: &str) -> bool {
    let mut found = false;
    let mut q = p.clone();
    for f in q.helpers.iter_mut().chain(std::iter::once(&mut q.main)) {
        func_exprs(f, &mut |e| match e {
            Expr::Var(v) | Expr::Call(v, _) if v == name => found = true,
            _ => {}
        });
        let mut r = vec![];
        let mut w = vec![];
        for s in &f.body {
            s.effects(&mut r, &mut w);
        }
        found |= r.iter().chain(&w).any(|v| v == name);
    }
    found
}

/// Remove what nothing refers to any more (helpers, the global, locals).
fn tidy(p: &mut Program) {
    let q = p.clone();
    p.helpers.retain(|h| mentions(&q, &h.name));
    for f in p.helpers.iter_mut().chain(std::iter::once(&mut p.main)) {
        let g = f.clone();
        f.locals.retain(|l| {
            let mut r = vec![];
            let mut w = vec![];
            for s in &g.body {
                s.effects(&mut r, &mut w);
            }
            let mut ret = vec![];
            g.ret.reads(&mut ret);
            r.iter().chain(&w).chain(&ret).any(|v| v == &l.1)
        });
    }
}

fn size(p: &Program) -> usize {
    let mut n = 0;
    let mut q = p.clone();
    for f in q.helpers.iter_mut().chain(std::iter::once(&mut q.main)) {
        n += stmt_count(f) * 4 + f.locals.len();
        func_exprs(f, &mut |e| {
            if !matches!(e, Expr::Const(0) | Expr::Const(1)) {
                n += 1
            }
        });
    }
    n + p.helpers.len() * 3 + usize::from(p.global)
}

/// Shrink `(old, new)` while `fails` holds, with at most `budget` calls to `fails`.
pub fn minimize(
    old: &Program,
    new: &Program,
    fails: &mut dyn FnMut(&Program, &Program) -> bool,
    budget: usize,
) -> (Program, Program) {
    let (mut o, mut n) = (old.clone(), new.clone());
    let mut calls = 0;
    let mut try_pair =
        |o2: Program, n2: Program, o: &mut Program, n: &mut Program, calls: &mut usize| {
            let (mut o2, mut n2) = (o2, n2);
            tidy(&mut o2);
            tidy(&mut n2);
            // both versions keep the same signature and global so the oracle can run them together
            if o2.global != n2.global
                || *calls >= budget
                || size(&o2) + size(&n2) >= size(o) + size(n)
            {
                return false;
            }
            *calls += 1;
            if fails(&o2, &n2) {
                *o = o2;
                *n = n2;
                true
            } else {
                false
            }
        };
    loop {
        let before = size(&o) + size(&n);
        // the global, when neither version needs it
        if o.global && !mentions(&o, GLOBAL) && !mentions(&n, GLOBAL) {
            let (mut o2, mut n2) = (o.clone(), n.clone());
            o2.global = false;
            n2.global = false;
            try_pair(o2, n2, &mut o, &mut n, &mut calls);
        }
        // statements: the same one in both versions first, then in one version
        let mut k = 0;
        while k < stmt_count(&o.main) {
            let s = nth_stmt(&o.main, k);
            let mut o2 = o.clone();
            edit_stmt(&mut o2.main, k, &mut |b, i| {
                b.remove(i);
                true
            });
            let mut n2 = n.clone();
            let in_new = (0..stmt_count(&n.main)).find(|j| nth_stmt(&n.main, *j) == s);
            if let Some(j) = in_new {
                edit_stmt(&mut n2.main, j, &mut |b, i| {
                    b.remove(i);
                    true
                });
                if try_pair(o2.clone(), n2, &mut o, &mut n, &mut calls) {
                    continue;
                }
            }
            if try_pair(o2, n.clone(), &mut o, &mut n, &mut calls) {
                continue;
            }
            k += 1;
        }
        let mut k = 0;
        while k < stmt_count(&n.main) {
            let mut n2 = n.clone();
            edit_stmt(&mut n2.main, k, &mut |b, i| {
                b.remove(i);
                true
            });
            if !try_pair(o.clone(), n2, &mut o, &mut n, &mut calls) {
                k += 1;
            }
        }
        // an `if` replaced by one of its branches, in one version at a time
        for side in 0..2 {
            let mut k = 0;
            loop {
                let p = if side == 0 { o.clone() } else { n.clone() };
                if k >= stmt_count(&p.main) {
                    break;
                }
                let mut changed = false;
                for branch in 0..2 {
                    let mut p2 = p.clone();
                    let ok = edit_stmt(&mut p2.main, k, &mut |b, i| {
                        if let Stmt::If(_, t, e) = b[i].clone() {
                            let part = if branch == 0 { t } else { e };
                            b.splice(i..=i, part);
                            true
                        } else {
                            false
                        }
                    });
                    if ok {
                        let (o2, n2) = if side == 0 {
                            (p2, n.clone())
                        } else {
                            (o.clone(), p2)
                        };
                        if try_pair(o2, n2, &mut o, &mut n, &mut calls) {
                            changed = true;
                            break;
                        }
                    }
                }
                if !changed {
                    k += 1;
                }
            }
        }
        // expressions: the same node in both versions, then each version alone
        for side in 0..3 {
            let mut k = 0;
            loop {
                let base = if side == 1 { &n.main } else { &o.main };
                if k >= expr_count(base) {
                    break;
                }
                let Some(e) = nth_expr(base, k) else { break };
                let mut changed = false;
                for by in shrinks(&e) {
                    let (mut o2, mut n2) = (o.clone(), n.clone());
                    match side {
                        0 => {
                            let j = (0..expr_count(&n.main))
                                .find(|j| nth_expr(&n.main, *j) == Some(e.clone()));
                            let Some(j) = j else { break };
                            replace_expr(&mut o2.main, k, &by);
                            replace_expr(&mut n2.main, j, &by);
                        }
                        1 => replace_expr(&mut n2.main, k, &by),
                        _ => replace_expr(&mut o2.main, k, &by),
                    }
                    if try_pair(o2, n2, &mut o, &mut n, &mut calls) {
                        changed = true;
                        break;
                    }
                }
                if !changed {
                    k += 1;
                }
            }
        }
        // helpers: statements and return expressions, same positions in both versions
        for h in 0..o.helpers.len().min(n.helpers.len()) {
            let mut k = 0;
            while h < o.helpers.len() && h < n.helpers.len() && k < stmt_count(&o.helpers[h]) {
                let (mut o2, mut n2) = (o.clone(), n.clone());
                edit_stmt(&mut o2.helpers[h], k, &mut |b, i| {
                    b.remove(i);
                    true
                });
                if k < stmt_count(&n2.helpers[h]) {
                    edit_stmt(&mut n2.helpers[h], k, &mut |b, i| {
                        b.remove(i);
                        true
                    });
                }
                if !try_pair(o2, n2, &mut o, &mut n, &mut calls) {
                    k += 1;
                }
            }
        }
        if size(&o) + size(&n) >= before || calls >= budget {
            return (o, n);
        }
    }
}
