//! Mutations of any program: change an operator, a constant, a loop bound or a condition,
//! delete, add or swap statements; and preserving ones: algebraic identities, reordering of
//! independent statements, loop restructuring, dead code, renaming, swapped branches.
//!
//! Takes the kind, the program, the function's index, the RNG and what the mutation may look at
//! ([`Cx`]); gives whether it found a site and applied itself. Dispatched by [`super::apply`].

use super::sites::*;
use super::Cx;
use crate::ast::*;
use crate::gen::{Gen, Rng, FCONSTS};

/// The generic mutation `kind` on function `fi` of `p` (or on the program); false when it has no
/// site.
pub(super) fn apply(kind: &str, p: &mut Program, fi: usize, rng: &mut Rng, cx: &Cx) -> bool {
    let Cx { env, vs, .. } = cx;
    match kind {
        // ------------------------------------------------------------------ generic, changing
        "op" => {
            let func = func_mut(p, fi);
            nth_expr(
                func,
                &|e| matches!(e, Expr::Bin(_, a, b) if env.is_arith(a) && env.is_arith(b)),
                rng,
                &mut |e, rng| {
                    if let Expr::Bin(op, a, b) = e {
                        let float = env.is_float(a) || env.is_float(b);
                        let choices: &[Op] = if op.is_cmp() {
                            &Op::CMP
                        } else if op.is_logic() {
                            &[Op::LAnd, Op::LOr]
                        } else if matches!(op, Op::Shl | Op::Shr) {
                            &[Op::Shl, Op::Shr]
                        } else if float {
                            &Op::FARITH
                        } else {
                            &Op::ARITH
                        };
                        let others: Vec<Op> = choices.iter().copied().filter(|o| o != op).collect();
                        *op = *rng.pick(&others);
                    }
                },
            )
        }
        "const" => {
            let func = func_mut(p, fi);
            nth_expr(
                func,
                &|e| matches!(e, Expr::Int(_) | Expr::Flt(_) | Expr::Chr(_)),
                rng,
                &mut |e, rng| match e {
                    Expr::Int(c) => {
                        *c = match rng.below(3) {
                            0 => *c + 1,
                            1 => *c - 1,
                            _ => Gen::new(rng).constant(),
                        }
                    }
                    Expr::Flt(t) => {
                        let single = t.ends_with('f');
                        let c = *rng.pick(&FCONSTS);
                        *t = if single {
                            format!("{c}f")
                        } else {
                            c.to_string()
                        };
                    }
                    Expr::Chr(c) => *c = c.wrapping_add(1),
                    _ => {}
                },
            )
        }
        "bound" => {
            let func = func_mut(p, fi);
            nth_stmt(
                func,
                &|s| {
                    matches!(
                        s,
                        Stmt::For(_, Bound::Const(_) | Bound::Clamp(..), _)
                            | Stmt::While(_, Bound::Const(_) | Bound::Clamp(..), _)
                            | Stmt::WhileEnd(_, Bound::Const(_) | Bound::Clamp(..), _)
                            | Stmt::DoWhile(_, Bound::Const(_) | Bound::Clamp(..), _)
                            | Stmt::GotoLoop(_, Bound::Const(_) | Bound::Clamp(..), _, _)
                    )
                },
                rng,
                &mut |b, i, rng| {
                    if let Stmt::For(_, bd, _)
                    | Stmt::While(_, bd, _)
                    | Stmt::WhileEnd(_, bd, _)
                    | Stmt::DoWhile(_, bd, _)
                    | Stmt::GotoLoop(_, bd, _, _) = &mut b[i]
                    {
                        if let Bound::Const(k) | Bound::Clamp(_, k) = bd {
                            *k = (*k + if rng.chance(50) { 1 } else { -1 }).max(0);
                        }
                    }
                    true
                },
            )
        }
        "cond" => {
            let func = func_mut(p, fi);
            nth_expr(
                func,
                &|e| matches!(e, Expr::Bin(op, _, _) if op.is_cmp()),
                rng,
                &mut |e, rng| {
                    if rng.chance(25) {
                        let inner = std::mem::replace(e, Expr::Int(0));
                        *e = Expr::Un(Un::Not, Box::new(inner));
                    } else if rng.chance(15)
                        && matches!(e, Expr::Bin(_, a, b) if env.is_arith(a) && env.is_arith(b))
                    {
                        // Both operands negated, mirrored: the same test for signed and
                        // floating operands, another one where a side is unsigned (wraps);
                        // never a pointer (`-p` is not C).
                        negate_comparison(e);
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
            )
        }
        "delete" => {
            let func = func_mut(p, fi);
            nth_stmt(
                func,
                &|s| !matches!(s, Stmt::Label(_)),
                rng,
                &mut |b, i, _| {
                    b.remove(i);
                    true
                },
            )
        }
        "add" => {
            if vs.is_empty() {
                return false;
            }
            let func = func_mut(p, fi);
            // not into a statement expression: one standing where its side effects are
            // unsequenced against the rest of the expression must keep writing only its own
            nth_block(func, &|_, c| !c.in_stmt_expr, rng, &mut |b, ctx, rng| {
                let x = rng.pick(vs).clone();
                let op = if rng.chance(40) && !ctx.in_spin {
                    Some(*rng.pick(&[Op::Add, Op::Sub, Op::Xor]))
                } else {
                    None
                };
                let e = small_expr(rng, vs);
                let at = rng.below(b.len() + 1);
                b.insert(at, Stmt::Assign(Expr::var(&x), op, e));
                true
            })
        }
        "swap-dep" => {
            let func = func_mut(p, fi);
            nth_block(
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
            )
        }
        // ---------------------------------------------------------------- generic, preserving
        "algebra" => {
            let func = func_mut(p, fi);
            nth_expr(
                func,
                &|e| matches!(e, Expr::Bin(_, a, b) if env.is_arith(a) && env.is_arith(b)),
                rng,
                &mut |e, rng| {
                    let Expr::Bin(op, a, b) = e.clone() else {
                        return;
                    };
                    let float = env.is_float(&a) || env.is_float(&b);
                    let single = env.ty(e) == Some(Ty::F32);
                    let negatable = |x: &Expr| {
                        env.ty(x).is_some_and(|t| match promote(&t) {
                            Ty::I(k) => k.signed(),
                            t => t.is_float(),
                        })
                    };
                    if op.is_cmp() && negatable(&a) && negatable(&b) && rng.chance(30) {
                        // -a > -b is a < b for signed (overflow is UB) and IEEE operands
                        negate_comparison(e);
                        return;
                    }
                    *e = match op {
                        Op::Add | Op::Mul | Op::And | Op::Or | Op::Xor | Op::Eq | Op::Ne => {
                            Expr::Bin(op, b, a)
                        }
                        Op::Lt => Expr::Bin(Op::Gt, b, a),
                        Op::Le => Expr::Bin(Op::Ge, b, a),
                        Op::Gt => Expr::Bin(Op::Lt, b, a),
                        Op::Ge => Expr::Bin(Op::Le, b, a),
                        // a - b == a + (-b): only UB inputs differ (and IEEE defines it so)
                        Op::Sub if rng.chance(50) => Expr::bin(Op::Add, *a, Expr::Un(Un::Neg, b)),
                        _ if float => Expr::bin(
                            Op::Add,
                            Expr::Bin(op, a, b),
                            Expr::Flt(if single { "0.0f".into() } else { "0.0".into() }),
                        ),
                        _ => Expr::bin(Op::Add, Expr::Bin(op, a, b), Expr::Int(0)),
                    };
                    if let Expr::Bin(Op::Mul, a, b) = e.clone() {
                        if *b == Expr::Int(2) {
                            *e = Expr::Bin(Op::Add, a.clone(), a);
                        }
                    }
                },
            )
        }
        "reorder" => {
            let func = func_mut(p, fi);
            nth_block(
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
            )
        }
        "loop" => {
            let func = func_mut(p, fi);
            nth_stmt(func, &restructurable, rng, &mut |b, i, _| {
                if let Stmt::For(v, bd, body) = b[i].clone() {
                    b[i] = Stmt::WhileEnd(v, bd, body);
                } else if let Stmt::While(v, bd, body) = b[i].clone() {
                    // counter not read in the body: the increment may move to the end
                    b[i] = Stmt::For(v, bd, body);
                }
                true
            })
        }
        "dead" => {
            let func = func_mut(p, fi);
            if rng.chance(50) || vs.is_empty() {
                let name = format!("dead{}", func.locals.len());
                func.locals.push(Local {
                    ty: INT,
                    name: name.clone(),
                    init: Some(Init::E(Expr::Int(0))),
                    is_static: false,
                });
                let e = small_expr(rng, vs);
                nth_block(func, &|_, _| true, rng, &mut |b, _, rng| {
                    let at = rng.below(b.len() + 1);
                    b.insert(at, Stmt::Assign(Expr::var(&name), None, e.clone()));
                    true
                })
            } else {
                let x = rng.pick(vs).clone();
                let e = small_expr(rng, vs);
                nth_block(func, &|_, _| true, rng, &mut |b, _, rng| {
                    let at = rng.below(b.len() + 1);
                    let s = Stmt::Assign(Expr::var(&x), None, e.clone());
                    b.insert(at, Stmt::If(Expr::Int(0), vec![s], vec![]));
                    true
                })
            }
        }
        "rename" => {
            let func = func_mut(p, fi);
            let cands: Vec<String> = func
                .locals
                .iter()
                .filter(|l| !l.is_static)
                .map(|l| l.name.clone())
                .collect();
            if cands.is_empty() {
                return false;
            }
            let old = rng.pick(&cands).clone();
            let new = format!("{old}_r");
            rename(func, &old, &new);
            true
        }
        "if-swap" => {
            let func = func_mut(p, fi);
            nth_stmt(
                func,
                &|s| matches!(s, Stmt::If(_, _, e) if !e.is_empty()),
                rng,
                &mut |b, i, _| {
                    if let Stmt::If(c, t, e) = b[i].clone() {
                        b[i] = Stmt::If(Expr::Un(Un::Not, Box::new(c)), e, t);
                    }
                    true
                },
            )
        }
        // A comparison replaced by its complement with the branches swapped (`if (a == b) A
        // else B` → `if (a != b) B else A`; `<` → `>=`): the same program over integers, a
        // different one over floats where NaN makes both comparisons false.
        "if-negate" => {
            let func = func_mut(p, fi);
            let comparison = |c: &Expr| {
                matches!(
                    c,
                    Expr::Bin(Op::Lt | Op::Le | Op::Gt | Op::Ge | Op::Eq | Op::Ne, ..)
                )
            };
            nth_stmt(
                func,
                &|s| matches!(s, Stmt::If(c, _, e) if !e.is_empty() && comparison(c)),
                rng,
                &mut |b, i, _| {
                    if let Stmt::If(Expr::Bin(op, x, y), t, e) = b[i].clone() {
                        let neg = match op {
                            Op::Lt => Op::Ge,
                            Op::Le => Op::Gt,
                            Op::Gt => Op::Le,
                            Op::Ge => Op::Lt,
                            Op::Eq => Op::Ne,
                            _ => Op::Eq,
                        };
                        b[i] = Stmt::If(Expr::Bin(neg, x, y), e, t);
                    }
                    true
                },
            )
        }
        // `if (a || b) S` split into `if (a) S else if (b) S` (the same program): what the
        // analysis relates by remembering the outcomes of comparisons.
        "split-or" => {
            let func = func_mut(p, fi);
            nth_stmt(
                func,
                // (its body is written twice: no label in it)
                &|s| {
                    matches!(s, Stmt::If(Expr::Bin(Op::LOr, ..), _, e) if e.is_empty())
                        && !s.has_goto_or_label()
                },
                rng,
                &mut |b, i, _| {
                    if let Stmt::If(Expr::Bin(Op::LOr, x, y), t, _) = b[i].clone() {
                        b[i] = Stmt::If(*x, t.clone(), vec![Stmt::If(*y, t, vec![])]);
                    }
                    true
                },
            )
        }
        // A subexpression moved into a new local just before the assignment that used it
        // (`temp`, the same program); with an operand it reads incremented in between
        // (`temp-stale`, usually a change): the temporaries the analysis substitutes.
        "temp" | "temp-stale" => {
            let func = func_mut(p, fi);
            let name = format!("tmp{}", func.locals.len());
            let stale = kind == "temp-stale";
            let mut ty = None;
            let ok = nth_block(func, &|_, _| true, rng, &mut |b, _, rng| {
                let sites: Vec<usize> = (0..b.len())
                    .filter(|&i| matches!(&b[i], Stmt::Assign(_, _, e) if plain(e) && extractable(e) > 0))
                    .collect();
                if sites.is_empty() {
                    return false;
                }
                let i = *rng.pick(&sites);
                let Stmt::Assign(lv, op, e) = &b[i] else {
                    return false;
                };
                let mut e2 = e.clone();
                let k = rng.below(extractable(e));
                let Some(sub) = extract(&mut e2, &mut { k }, &name) else {
                    return false;
                };
                let Some(t) = env.ty(&sub).filter(|_| env.is_arith(&sub)) else {
                    return false;
                };
                let read: Vec<String> = vs.iter().filter(|v| mentions(&sub, v)).cloned().collect();
                let mut new = vec![Stmt::Assign(Expr::var(&name), None, sub)];
                if stale {
                    let Some(x) = read.first() else {
                        return false;
                    };
                    new.push(Stmt::Assign(
                        Expr::var(x),
                        None,
                        Expr::Bin(Op::Add, Box::new(Expr::var(x)), Box::new(Expr::Int(1))),
                    ));
                }
                new.push(Stmt::Assign(lv.clone(), *op, e2));
                b.splice(i..=i, new);
                ty = Some(t);
                true
            });
            match (ok, ty) {
                (true, Some(t)) => {
                    func.locals.push(Local {
                        ty: t,
                        name,
                        init: None,
                        is_static: false,
                    });
                    true
                }
                _ => false,
            }
        }
        _ => false,
    }
}

/// `a OP b` → `-a OP' -b` with OP' the mirrored comparison.
fn negate_comparison(e: &mut Expr) {
    if let Expr::Bin(op, a, b) = e.clone() {
        let mirrored = match op {
            Op::Lt => Op::Gt,
            Op::Le => Op::Ge,
            Op::Gt => Op::Lt,
            Op::Ge => Op::Le,
            o => o,
        };
        *e = Expr::Bin(
            mirrored,
            Box::new(Expr::Un(Un::Neg, a)),
            Box::new(Expr::Un(Un::Neg, b)),
        );
    }
}

/// An expression without side effects or statement expressions: reading it earlier gives the
/// same value as long as nothing in between writes what it reads.
fn plain(e: &Expr) -> bool {
    match e {
        Expr::Int(_) | Expr::Flt(_) | Expr::Chr(_) | Expr::Var(_) => true,
        Expr::Un(_, a) | Expr::Cast(_, a) | Expr::Field(a, _) | Expr::Deref(a) => plain(a),
        Expr::Bin(_, a, b) | Expr::Index(a, b) => plain(a) && plain(b),
        Expr::Cond(c, a, b) => plain(c) && plain(a) && plain(b),
        Expr::Call(..) | Expr::Lib(..) | Expr::CallPtr(..) | Expr::Block(_) => false,
    }
}

/// Binary subexpressions of `e` that are always evaluated when `e` is (not under `?:`'s arms
/// or the right of `&&`/`||`), in a fixed order; [`extract`] counts the same way.
fn extractable(e: &Expr) -> usize {
    match e {
        Expr::Bin(op, a, b) => {
            1 + extractable(a)
                + if matches!(op, Op::LAnd | Op::LOr) {
                    0
                } else {
                    extractable(b)
                }
        }
        Expr::Un(_, a) | Expr::Cast(_, a) | Expr::Field(a, _) | Expr::Deref(a) => extractable(a),
        Expr::Index(a, b) => extractable(a) + extractable(b),
        Expr::Cond(c, _, _) => extractable(c),
        _ => 0,
    }
}

/// Replace the `k`-th [`extractable`] subexpression of `e` by the variable `name`; gives it.
fn extract(e: &mut Expr, k: &mut usize, name: &str) -> Option<Expr> {
    if let Expr::Bin(..) = e {
        if *k == 0 {
            return Some(std::mem::replace(e, Expr::var(name)));
        }
        *k -= 1;
    }
    match e {
        Expr::Bin(op, a, b) => {
            let lazy = matches!(op, Op::LAnd | Op::LOr);
            extract(a, k, name).or_else(|| if lazy { None } else { extract(b, k, name) })
        }
        Expr::Un(_, a) | Expr::Cast(_, a) | Expr::Field(a, _) | Expr::Deref(a) => {
            extract(a, k, name)
        }
        Expr::Index(a, b) => extract(a, k, name).or_else(|| extract(b, k, name)),
        Expr::Cond(c, _, _) => extract(c, k, name),
        _ => None,
    }
}

/// Whether `e` reads the variable `v`.
fn mentions(e: &Expr, v: &str) -> bool {
    match e {
        Expr::Var(x) => x == v,
        Expr::Un(_, a) | Expr::Cast(_, a) | Expr::Field(a, _) | Expr::Deref(a) => mentions(a, v),
        Expr::Bin(_, a, b) | Expr::Index(a, b) => mentions(a, v) || mentions(b, v),
        Expr::Cond(c, a, b) => mentions(c, v) || mentions(a, v) || mentions(b, v),
        _ => false,
    }
}
