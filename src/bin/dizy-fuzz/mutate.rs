//! Second versions by mutation, and the AST walkers the mutator and the minimizer share.
//!
//! Takes a generated [`Program`] and an RNG; gives a mutated copy and the names of the mutations
//! applied. Semantics-changing kinds: `op`, `const`, `bound`, `cond`, `delete`, `add`,
//! `swap-dep`. Semantics-preserving kinds: `algebra`, `reorder`, `loop`, `dead`, `rename`,
//! `if-swap`. The kind is only a label for the statistics: the oracle decides what is really
//! different (a "changing" mutation of dead code changes nothing). Second stage of the fuzzer,
//! after `gen`.

use crate::gen::{Bound, Expr, Func, Gen, Op, Program, Rng, Stmt, Un, GLOBAL};

pub const CHANGING: [&str; 7] = ["op", "const", "bound", "cond", "delete", "add", "swap-dep"];
pub const PRESERVING: [&str; 6] = ["algebra", "reorder", "loop", "dead", "rename", "if-swap"];

/// Visit every expression node, pre-order (a node replaced by `f` has its new children visited).
pub fn each_expr(b: &mut [Stmt], f: &mut dyn FnMut(&mut Expr)) {
    for s in b {
        match s {
            Stmt::Assign(_, _, e) | Stmt::Return(e) => expr_nodes(e, f),
            Stmt::If(c, a, e) => {
                expr_nodes(c, f);
                each_expr(a, f);
                each_expr(e, f);
            }
            Stmt::For(_, _, body) | Stmt::While(_, _, body) | Stmt::WhileEnd(_, _, body) => {
                each_expr(body, f)
            }
            Stmt::Break | Stmt::Continue => {}
        }
    }
}

pub fn expr_nodes(e: &mut Expr, f: &mut dyn FnMut(&mut Expr)) {
    f(e);
    match e {
        Expr::Const(_) | Expr::Var(_) => {}
        Expr::Un(_, a) => expr_nodes(a, f),
        Expr::Bin(_, a, b) => {
            expr_nodes(a, f);
            expr_nodes(b, f);
        }
        Expr::Cond(c, a, b) => {
            expr_nodes(c, f);
            expr_nodes(a, f);
            expr_nodes(b, f);
        }
        Expr::Call(_, args) => args.iter_mut().for_each(|a| expr_nodes(a, f)),
    }
}

/// Every expression of a function, the final return included.
pub fn func_exprs(func: &mut Func, f: &mut dyn FnMut(&mut Expr)) {
    each_expr(&mut func.body, f);
    expr_nodes(&mut func.ret, f);
}

/// Visit every statement list (the body, branches, loop bodies); `in_loop` tells whether
/// `break`/`continue` would be legal there.
pub fn each_block(b: &mut Vec<Stmt>, in_loop: bool, f: &mut dyn FnMut(&mut Vec<Stmt>, bool)) {
    f(b, in_loop);
    for s in b.iter_mut() {
        match s {
            Stmt::If(_, a, e) => {
                each_block(a, in_loop, f);
                each_block(e, in_loop, f);
            }
            Stmt::For(_, _, body) | Stmt::While(_, _, body) | Stmt::WhileEnd(_, _, body) => {
                each_block(body, true, f)
            }
            _ => {}
        }
    }
}

/// Apply `f` to the `k`-th expression node satisfying `pred` (counted in `each_expr` order).
fn nth_expr(
    func: &mut Func,
    pred: &dyn Fn(&Expr) -> bool,
    rng: &mut Rng,
    f: &mut dyn FnMut(&mut Expr, &mut Rng),
) -> bool {
    let mut n = 0;
    func_exprs(func, &mut |e| {
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
    func_exprs(func, &mut |e| {
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
fn nth_block(
    func: &mut Func,
    pred: &dyn Fn(&Vec<Stmt>, bool) -> bool,
    rng: &mut Rng,
    f: &mut dyn FnMut(&mut Vec<Stmt>, bool, &mut Rng) -> bool,
) -> bool {
    let mut n = 0;
    each_block(&mut func.body, false, &mut |b, l| {
        if pred(b, l) {
            n += 1
        }
    });
    if n == 0 {
        return false;
    }
    let k = rng.below(n);
    let (mut i, mut applied) = (0, false);
    each_block(&mut func.body, false, &mut |b, l| {
        if pred(b, l) {
            if i == k {
                applied = f(b, l, rng);
            }
            i += 1;
        }
    });
    applied
}

/// Statement effects: (reads, writes, jumps).
fn fx(s: &Stmt) -> (Vec<String>, Vec<String>, bool) {
    let (mut r, mut w) = (vec![], vec![]);
    let j = s.effects(&mut r, &mut w);
    let j = j || contains_jump(s);
    (r, w, j)
}

fn contains_jump(s: &Stmt) -> bool {
    match s {
        Stmt::Break | Stmt::Continue | Stmt::Return(_) => true,
        Stmt::If(_, a, b) => a.iter().chain(b).any(contains_jump),
        Stmt::For(_, _, b) | Stmt::While(_, _, b) | Stmt::WhileEnd(_, _, b) => {
            b.iter().any(Stmt::has_return)
        }
        Stmt::Assign(..) => false,
    }
}

fn dependent(a: &Stmt, b: &Stmt) -> bool {
    let (ra, wa, _) = fx(a);
    let (rb, wb, _) = fx(b);
    wa.iter().any(|x| rb.contains(x) || wb.contains(x)) || wb.iter().any(|x| ra.contains(x))
}

fn independent(a: &Stmt, b: &Stmt) -> bool {
    !fx(a).2 && !fx(b).2 && !dependent(a, b)
}

fn reads_var(body: &[Stmt], v: &str) -> bool {
    body.iter().any(|s| {
        let (r, _, _) = fx(s);
        r.iter().any(|x| x == v)
    })
}

/// Variables a new statement of `func` may read and write (no loop counters).
fn vars(func: &Func, global: bool) -> Vec<String> {
    let mut v: Vec<String> = func.params.iter().map(|p| p.1.clone()).collect();
    v.extend(
        func.locals
            .iter()
            .filter(|l| !is_counter(func, &l.1))
            .map(|l| l.1.clone()),
    );
    if global && func.name == crate::gen::MAIN {
        v.push(GLOBAL.into());
    }
    v
}

/// Loop counters are the locals some loop of the function drives.
fn is_counter(func: &Func, name: &str) -> bool {
    let mut body = func.body.clone();
    let mut found = false;
    each_block(&mut body, false, &mut |b, _| {
        for s in b.iter() {
            if let Stmt::For(i, _, _) | Stmt::While(i, _, _) | Stmt::WhileEnd(i, _, _) = s {
                found |= i == name;
            }
        }
    });
    found
}

fn small_expr(rng: &mut Rng, vars: &[String]) -> Expr {
    let mut g = Gen { rng };
    let a = g.leaf(vars);
    if g.rng.chance(50) {
        let b = g.leaf(vars);
        let op = *g.rng.pick(&[Op::Add, Op::Sub, Op::Xor, Op::And, Op::Mul]);
        let b = if op == Op::Mul {
            Expr::Const(*g.rng.pick(&[2, 3, -1]))
        } else {
            b
        };
        Expr::bin(op, a, b)
    } else {
        a
    }
}

/// Apply one mutation of kind `kind` to `func`; false when it has no site for it.
pub fn apply(kind: &str, func: &mut Func, global: bool, rng: &mut Rng) -> bool {
    let vs = vars(func, global);
    match kind {
        "op" => nth_expr(func, &|e| matches!(e, Expr::Bin(..)), rng, &mut |e, rng| {
            if let Expr::Bin(op, _, _) = e {
                let choices: &[Op] = if op.is_cmp() {
                    &Op::CMP
                } else if matches!(op, Op::LAnd | Op::LOr) {
                    &[Op::LAnd, Op::LOr]
                } else if matches!(op, Op::Shl | Op::Shr) {
                    &[Op::Shl, Op::Shr]
                } else {
                    &Op::ARITH
                };
                let others: Vec<Op> = choices.iter().copied().filter(|o| o != op).collect();
                *op = *rng.pick(&others);
            }
        }),
        "const" => nth_expr(
            func,
            &|e| matches!(e, Expr::Const(_)),
            rng,
            &mut |e, rng| {
                if let Expr::Const(c) = e {
                    *c = match rng.below(3) {
                        0 => *c + 1,
                        1 => *c - 1,
                        _ => Gen { rng }.constant(),
                    };
                }
            },
        ),
        "bound" => nth_block(
            func,
            &|b, _| {
                b.iter()
                    .any(|s| matches!(s, Stmt::For(..) | Stmt::While(..) | Stmt::WhileEnd(..)))
            },
            rng,
            &mut |b, _, rng| {
                let loops: Vec<usize> = (0..b.len())
                    .filter(|i| {
                        matches!(b[*i], Stmt::For(..) | Stmt::While(..) | Stmt::WhileEnd(..))
                    })
                    .collect();
                let i = *rng.pick(&loops);
                if let Stmt::For(_, bd, _) | Stmt::While(_, bd, _) | Stmt::WhileEnd(_, bd, _) =
                    &mut b[i]
                {
                    let k = match bd {
                        Bound::Const(k) | Bound::Clamp(_, k) => k,
                    };
                    *k = (*k + if rng.chance(50) { 1 } else { -1 }).max(0);
                }
                true
            },
        ),
        "cond" => nth_expr(
            func,
            &|e| matches!(e, Expr::Bin(op, _, _) if op.is_cmp()),
            rng,
            &mut |e, rng| {
                if rng.chance(25) {
                    let inner = std::mem::replace(e, Expr::Const(0));
                    *e = Expr::Un(Un::Not, Box::new(inner));
                } else if let Expr::Bin(op, _, _) = e {
                    *op = match op {
                        Op::Lt => Op::Le,
                        Op::Le => Op::Lt,
                        Op::Gt => Op::Ge,
                        Op::Ge => Op::Gt,
                        Op::Eq => Op::Ne,
                        _ => Op::Eq,
                    };
                }
            },
        ),
        "delete" => nth_block(func, &|b, _| !b.is_empty(), rng, &mut |b, _, rng| {
            let i = rng.below(b.len());
            b.remove(i);
            true
        }),
        "add" => nth_block(func, &|_, _| true, rng, &mut |b, _, rng| {
            let x = rng.pick(&vs).clone();
            let op = if rng.chance(40) {
                Some(*rng.pick(&[Op::Add, Op::Sub, Op::Xor]))
            } else {
                None
            };
            let e = small_expr(rng, &vs);
            let at = rng.below(b.len() + 1);
            b.insert(at, Stmt::Assign(x, op, e));
            true
        }),
        "swap-dep" => nth_block(
            func,
            &|b, _| b.windows(2).any(|w| dependent(&w[0], &w[1])),
            rng,
            &mut |b, _, rng| {
                let at: Vec<usize> = (0..b.len() - 1)
                    .filter(|i| dependent(&b[*i], &b[i + 1]))
                    .collect();
                let i = *rng.pick(&at);
                b.swap(i, i + 1);
                true
            },
        ),
        "algebra" => nth_expr(func, &|e| matches!(e, Expr::Bin(..)), rng, &mut |e, rng| {
            let Expr::Bin(op, a, b) = e.clone() else {
                return;
            };
            *e = match op {
                Op::Add | Op::Mul | Op::And | Op::Or | Op::Xor | Op::Eq | Op::Ne => {
                    Expr::Bin(op, b, a)
                }
                Op::Lt => Expr::Bin(Op::Gt, b, a),
                Op::Le => Expr::Bin(Op::Ge, b, a),
                Op::Gt => Expr::Bin(Op::Lt, b, a),
                Op::Ge => Expr::Bin(Op::Le, b, a),
                // a - b == a + (-b) == -(b - a): only UB inputs differ
                Op::Sub if rng.chance(50) => Expr::bin(Op::Add, *a, Expr::Un(Un::Neg, b)),
                _ => Expr::bin(Op::Add, Expr::Bin(op, a, b), Expr::Const(0)),
            };
            if let Expr::Bin(Op::Mul, a, b) = e.clone() {
                if *b == Expr::Const(2) {
                    *e = Expr::Bin(Op::Add, a.clone(), a);
                }
            }
        }),
        "reorder" => nth_block(
            func,
            &|b, _| b.windows(2).any(|w| independent(&w[0], &w[1])),
            rng,
            &mut |b, _, rng| {
                let at: Vec<usize> = (0..b.len() - 1)
                    .filter(|i| independent(&b[*i], &b[i + 1]))
                    .collect();
                let i = *rng.pick(&at);
                b.swap(i, i + 1);
                true
            },
        ),
        "loop" => nth_block(
            func,
            &|b, _| b.iter().any(restructurable),
            rng,
            &mut |b, _, rng| {
                let at: Vec<usize> = (0..b.len()).filter(|i| restructurable(&b[*i])).collect();
                let i = *rng.pick(&at);
                if let Stmt::For(v, bd, body) = b[i].clone() {
                    b[i] = Stmt::WhileEnd(v, bd, body);
                } else if let Stmt::While(v, bd, body) = b[i].clone() {
                    // counter not read in the body: the increment may move to the end
                    b[i] = Stmt::For(v, bd, body);
                }
                true
            },
        ),
        "dead" => {
            if rng.chance(50) {
                let name = format!("dead{}", func.locals.len());
                func.locals.push((crate::gen::Ty::Int, name.clone(), 0));
                let e = small_expr(rng, &vs);
                nth_block(func, &|_, _| true, rng, &mut |b, _, rng| {
                    let at = rng.below(b.len() + 1);
                    b.insert(at, Stmt::Assign(name.clone(), None, e.clone()));
                    true
                })
            } else {
                let x = rng.pick(&vs).clone();
                let e = small_expr(rng, &vs);
                nth_block(func, &|_, _| true, rng, &mut |b, _, rng| {
                    let at = rng.below(b.len() + 1);
                    let s = Stmt::Assign(x.clone(), None, e.clone());
                    b.insert(at, Stmt::If(Expr::Const(0), vec![s], vec![]));
                    true
                })
            }
        }
        "rename" => {
            if func.locals.is_empty() {
                return false;
            }
            let i = rng.below(func.locals.len());
            let old = func.locals[i].1.clone();
            let new = format!("{old}_r");
            rename(func, &old, &new);
            true
        }
        "if-swap" => nth_block(
            func,
            &|b, _| {
                b.iter()
                    .any(|s| matches!(s, Stmt::If(_, _, e) if !e.is_empty()))
            },
            rng,
            &mut |b, _, rng| {
                let at: Vec<usize> = (0..b.len())
                    .filter(|i| matches!(&b[*i], Stmt::If(_, _, e) if !e.is_empty()))
                    .collect();
                let i = *rng.pick(&at);
                if let Stmt::If(c, t, e) = b[i].clone() {
                    b[i] = Stmt::If(Expr::Un(Un::Not, Box::new(c)), e, t);
                }
                true
            },
        ),
        _ => false,
    }
}

fn restructurable(s: &Stmt) -> bool {
    match s {
        Stmt::For(_, _, body) => !body.iter().any(Stmt::has_own_continue),
        Stmt::While(i, _, body) => !body.iter().any(Stmt::has_own_continue) && !reads_var(body, i),
        _ => false,
    }
}

/// Rename a local everywhere in `func`.
pub fn rename(func: &mut Func, old: &str, new: &str) {
    for l in &mut func.locals {
        if l.1 == old {
            l.1 = new.to_string();
        }
    }
    func_exprs(func, &mut |e| {
        if let Expr::Var(v) = e {
            if v == old {
                *v = new.to_string();
            }
        }
    });
    each_block(&mut func.body, false, &mut |b, _| {
        for s in b.iter_mut() {
            match s {
                Stmt::Assign(x, _, _) if x == old => *x = new.to_string(),
                Stmt::For(i, bd, _) | Stmt::While(i, bd, _) | Stmt::WhileEnd(i, bd, _) => {
                    if i == old {
                        *i = new.to_string();
                    }
                    if let Bound::Clamp(v, _) = bd {
                        if v == old {
                            *v = new.to_string();
                        }
                    }
                }
                _ => {}
            }
        }
    });
}

/// The second version: one mutation (sometimes two) of `f` or of a helper. Gives the new program
/// and the kinds applied.
pub fn mutate(p: &Program, rng: &mut Rng) -> (Program, Vec<String>) {
    let mut q = p.clone();
    let mut kinds = vec![];
    let n = if rng.chance(25) { 2 } else { 1 };
    for _ in 0..n {
        for _attempt in 0..20 {
            let kind = if rng.chance(55) {
                *rng.pick(&CHANGING)
            } else {
                *rng.pick(&PRESERVING)
            };
            let global = q.global;
            let func = if !q.helpers.is_empty() && rng.chance(20) {
                let i = rng.below(q.helpers.len());
                &mut q.helpers[i]
            } else {
                &mut q.main
            };
            let before = func.clone();
            if apply(kind, func, global, rng) && *func != before {
                kinds.push(kind.to_string());
                break;
            }
            *func = before;
        }
    }
    (q, kinds)
}
