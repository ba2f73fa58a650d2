//! Where mutations apply, and what they share.
//!
//! Takes a function or a program; gives the k-th expression, statement list or statement that
//! satisfies a predicate (for a mutation to rewrite), the variables a new statement may use,
//! loop counters, labels, pointer reads and writes, changed initializers and renaming. Used by
//! every family of mutations, and by `minimize` ([`counters`]).

use std::collections::BTreeSet;

use crate::ast::*;
use crate::gen::{Gen, Rng, FCONSTS};

/// Apply `f` to the `k`-th rewritable expression node of `func` satisfying `pred`.
pub(super) fn nth_expr(
    func: &mut Func,
    pred: &dyn Fn(&Expr) -> bool,
    rng: &mut Rng,
    f: &mut dyn FnMut(&mut Expr, &mut Rng),
) -> bool {
    nth_expr_walk(func, Walk::Rewritable, pred, rng, f)
}

pub(super) fn nth_expr_walk(
    func: &mut Func,
    walk: Walk,
    pred: &dyn Fn(&Expr) -> bool,
    rng: &mut Rng,
    f: &mut dyn FnMut(&mut Expr, &mut Rng),
) -> bool {
    let mut n = 0;
    func_exprs(func, walk, &mut |e, _| {
        if pred(e) {
            n += 1
        }
    });
    if n == 0 {
        return false;
    }
    let k = rng.below(n);
    let mut i = 0;
    let mut done = false;
    func_exprs(func, walk, &mut |e, _| {
        if !done && pred(e) {
            if i == k {
                f(e, rng);
                done = true;
            }
            i += 1;
        }
    });
    true
}

/// Apply `f` to the `k`-th statement list satisfying `pred`.
pub(super) fn nth_block(
    func: &mut Func,
    pred: &dyn Fn(&Vec<Stmt>, Ctx) -> bool,
    rng: &mut Rng,
    f: &mut dyn FnMut(&mut Vec<Stmt>, Ctx, &mut Rng) -> bool,
) -> bool {
    let mut n = 0;
    each_block(&mut func.body, top_ctx(), &mut |b, c| {
        if pred(b, c) {
            n += 1
        }
    });
    if n == 0 {
        return false;
    }
    let k = rng.below(n);
    let (mut i, mut applied) = (0, false);
    each_block(&mut func.body, top_ctx(), &mut |b, c| {
        if pred(b, c) {
            if i == k {
                applied = f(b, c, rng);
            }
            i += 1;
        }
    });
    applied
}

/// Apply `f` to a random statement of `func` satisfying `pred` (in its block, at its index).
pub(super) fn nth_stmt(
    func: &mut Func,
    pred: &dyn Fn(&Stmt) -> bool,
    rng: &mut Rng,
    f: &mut dyn FnMut(&mut Vec<Stmt>, usize, &mut Rng) -> bool,
) -> bool {
    nth_stmt_in(func, &|_| true, pred, rng, f)
}

/// [`nth_stmt`] among the statements of blocks whose context satisfies `where_`.
pub(super) fn nth_stmt_in(
    func: &mut Func,
    where_: &dyn Fn(Ctx) -> bool,
    pred: &dyn Fn(&Stmt) -> bool,
    rng: &mut Rng,
    f: &mut dyn FnMut(&mut Vec<Stmt>, usize, &mut Rng) -> bool,
) -> bool {
    nth_block(
        func,
        &|b, c| where_(c) && b.iter().any(pred),
        rng,
        &mut |b, _, rng| {
            let at: Vec<usize> = (0..b.len()).filter(|i| pred(&b[*i])).collect();
            let i = *rng.pick(&at);
            f(b, i, rng)
        },
    )
}

/// Loop counters, string-loop counters and spin counters of a function.
pub fn counters(func: &Func) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    each_stmt(&func.body, &mut |s| match s {
        Stmt::For(i, ..)
        | Stmt::While(i, ..)
        | Stmt::WhileEnd(i, ..)
        | Stmt::DoWhile(i, ..)
        | Stmt::GotoLoop(i, ..)
        | Stmt::StrLoop(i, ..) => {
            out.insert(i.clone());
        }
        Stmt::Spin(sp) => {
            out.insert(sp.var.clone());
        }
        _ => {}
    });
    out
}

/// Integer variables a new statement of `func` may read and write (no loop counters, no
/// pointers, nothing const).
pub(super) fn int_vars(p: &Program, func: &Func) -> Vec<String> {
    let cs = counters(func);
    let mut v: Vec<String> = func
        .params
        .iter()
        .filter(|pa| pa.role == Role::Value && pa.ty.is_int())
        .map(|pa| pa.name.clone())
        .collect();
    v.extend(
        func.locals
            .iter()
            .filter(|l| l.ty.is_int() && !cs.contains(&l.name))
            .map(|l| l.name.clone()),
    );
    if func.name == MAIN {
        v.extend(
            p.globals
                .iter()
                .filter(|g| g.ty.is_int() && !g.is_const)
                .map(|g| g.name.clone()),
        );
    }
    v
}

pub(super) fn small_expr(rng: &mut Rng, vars: &[String]) -> Expr {
    let readable: Vec<Expr> = vars.iter().map(|v| Expr::var(v)).collect();
    let mut g = Gen::new(rng);
    let a = g.leaf(&readable);
    if g.rng.chance(50) {
        let b = g.leaf(&readable);
        let op = *g.rng.pick(&[Op::Add, Op::Sub, Op::Xor, Op::And, Op::Mul]);
        let b = if op == Op::Mul {
            Expr::Int(*g.rng.pick(&[2, 3, -1]))
        } else {
            b
        };
        Expr::bin(op, a, b)
    } else {
        a
    }
}

pub(super) fn func_mut(p: &mut Program, fi: usize) -> &mut Func {
    if fi == 0 {
        &mut p.main
    } else {
        &mut p.helpers[fi - 1]
    }
}

pub(super) fn func_ref(p: &Program, fi: usize) -> &Func {
    if fi == 0 {
        &p.main
    } else {
        &p.helpers[fi - 1]
    }
}

pub(super) fn other_int_kind(rng: &mut Rng, k: IntK) -> IntK {
    let all = [
        IntK::Char,
        IntK::UChar,
        IntK::Short,
        IntK::UShort,
        IntK::Int,
        IntK::UInt,
        IntK::Long,
        IntK::LLong,
    ];
    let others: Vec<IntK> = all.iter().copied().filter(|x| *x != k).collect();
    *rng.pick(&others)
}

pub(super) fn max_label(func: &Func) -> u32 {
    let mut m = 0;
    each_stmt(&func.body, &mut |s| {
        if let Stmt::GotoLoop(_, _, _, k) = s {
            m = m.max(*k);
        }
        if let Stmt::Label(l) = s {
            if let Ok(k) = l.trim_start_matches('F').parse::<u32>() {
                m = m.max(k);
            }
        }
    });
    m
}

/// Statements writing through pointer `p` (`*p = …`).
pub(super) fn writes_deref(s: &Stmt, p: &str) -> bool {
    matches!(s, Stmt::Assign(Expr::Deref(x), _, _) if **x == Expr::var(p))
}

pub(super) fn reads_deref(s: &Stmt, p: &str) -> bool {
    let mut found = false;
    let mut c = s.clone();
    stmt_exprs(&mut c, Walk::All, &mut |e, lv| {
        if !lv {
            if let Expr::Deref(x) = e {
                found |= **x == Expr::var(p);
            }
        }
    });
    if let Stmt::Assign(Expr::Deref(x), Some(_), _) = s {
        found |= **x == Expr::var(p);
    }
    found
}

/// Tags of the structs `f`'s parameters contain (directly or nested).
pub(super) fn param_structs(p: &Program) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut todo: Vec<Ty> = p.main.params.iter().map(|pa| pa.ty.clone()).collect();
    while let Some(t) = todo.pop() {
        match t {
            Ty::Struct(tag) | Ty::Union(tag) if out.insert(tag.clone()) => {
                todo.extend(
                    p.struct_fields(&tag)
                        .into_iter()
                        .flatten()
                        .map(|f| f.0.clone()),
                );
            }
            Ty::Ptr(e, _) | Ty::Arr(e, _) => todo.push(*e),
            _ => {}
        }
    }
    out
}

/// A new initializer (`same`: the same value written differently).
pub(super) fn change_init(init: &mut Option<Init>, ty: &Ty, same: bool, rng: &mut Rng) -> bool {
    if same {
        return match init {
            None if ty.is_int() => {
                *init = Some(Init::E(Expr::Int(0)));
                true
            }
            Some(Init::E(Expr::Int(0))) => {
                *init = None;
                true
            }
            Some(Init::E(Expr::Int(v))) => {
                let v = *v;
                *init = Some(Init::E(Expr::bin(Op::Add, Expr::Int(v - 1), Expr::Int(1))));
                true
            }
            Some(Init::List(xs)) if xs.len() > 1 && xs.last() == Some(&Init::E(Expr::Int(0))) => {
                xs.pop();
                true
            }
            Some(Init::Fields(xs)) if xs.len() > 1 => {
                // designated initializers in another order
                xs.rotate_left(1);
                true
            }
            _ => false,
        };
    }
    // change one scalar somewhere inside
    fn visit(i: &mut Init, f: &mut dyn FnMut(&mut Expr)) {
        match i {
            Init::E(e) => f(e),
            Init::List(xs) => xs.iter_mut().for_each(|x| visit(x, f)),
            Init::Fields(xs) => xs.iter_mut().for_each(|x| visit(&mut x.1, f)),
        }
    }
    let scalar = |e: &Expr| matches!(e, Expr::Int(_) | Expr::Flt(_) | Expr::Chr(_));
    match init {
        None => {
            if !ty.is_int() {
                return false;
            }
            *init = Some(Init::E(Expr::Int(Gen::new(rng).constant().max(1))));
            true
        }
        Some(i) => {
            let mut n = 0;
            visit(i, &mut |e| n += usize::from(scalar(e)));
            if n == 0 {
                return false;
            }
            let k = rng.below(n);
            let mut seen = 0;
            visit(i, &mut |e| {
                if !scalar(e) {
                    return;
                }
                if seen == k {
                    match e {
                        Expr::Int(v) => {
                            let old = *v;
                            while *v == old {
                                *v = if rng.chance(50) {
                                    old + if rng.chance(50) { 1 } else { -1 }
                                } else {
                                    Gen::new(rng).constant()
                                };
                            }
                        }
                        Expr::Flt(t) => {
                            let old = t.clone();
                            while *t == old {
                                *t = rng.pick(&FCONSTS).to_string();
                            }
                        }
                        Expr::Chr(c) => *c = c.wrapping_add(1),
                        _ => {}
                    }
                }
                seen += 1;
            });
            true
        }
    }
}

pub(super) fn restructurable(s: &Stmt) -> bool {
    let reads = |body: &[Stmt], v: &str| {
        body.iter().any(|s| {
            let (r, _, _) = effects(s);
            r.contains(v)
        })
    };
    match s {
        Stmt::For(_, _, body) => !body.iter().any(Stmt::has_own_continue),
        Stmt::While(i, _, body) => !body.iter().any(Stmt::has_own_continue) && !reads(body, i),
        _ => false,
    }
}

/// Rename a local everywhere in `func` (with the declarations shadowing it).
pub fn rename(func: &mut Func, old: &str, new: &str) {
    for l in &mut func.locals {
        if l.name == old {
            l.name = new.to_string();
        }
    }
    func_exprs(func, Walk::All, &mut |e, _| match e {
        Expr::Var(v) if v == old => *v = new.to_string(),
        // a statement expression's declaration shadowing it is renamed too, or the reads
        // inside would reach the outer variable
        Expr::Block(se) => {
            for d in se.decls.iter_mut().filter(|d| d.name == old) {
                d.name = new.to_string();
            }
        }
        _ => {}
    });
    let r = |s: &mut String| {
        if s == old {
            *s = new.to_string();
        }
    };
    each_block(&mut func.body, top_ctx(), &mut |b, _| {
        for s in b.iter_mut() {
            match s {
                Stmt::For(i, bd, _)
                | Stmt::While(i, bd, _)
                | Stmt::WhileEnd(i, bd, _)
                | Stmt::DoWhile(i, bd, _)
                | Stmt::GotoLoop(i, bd, _, _) => {
                    r(i);
                    if let Bound::Var(v) = bd {
                        r(v);
                    }
                }
                Stmt::Spin(sp) => r(&mut sp.var),
                Stmt::StrLoop(i, st, _) => {
                    r(i);
                    r(st);
                }
                _ => {}
            }
        }
    });
}
