//! Mutations about GNU statement expressions. Changing (`stmt-expr`): inside one, its value, a
//! declaration's initializer, a statement (deleted) or a `break` of a loop in it (made a
//! `continue`) changes. Preserving (`stmt-expr-same`): an expression `e` (no calls) becomes
//! `({ __typeof__(e) t = (e); t; })` (or `({ T t = e; t; })` where its type `T` is exact), or the
//! statement before another moves into a statement expression at the root of that statement's
//! expression (`s; x = e;` → `x = ({ s; e; });`), which runs it at the same point (also when `s`
//! returns, breaks or continues: the rest of the expression is then skipped).
//!
//! Takes the kind, the program, the function's index, the RNG and what the mutation may look at
//! ([`Cx`]); gives whether it found a site and applied itself. Dispatched by [`super::apply`].

use std::collections::BTreeSet;

use super::sites::*;
use super::Cx;
use crate::ast::*;
use crate::gen::Rng;

/// The statement-expression mutation `kind` on function `fi` of `p`; false when it has no site.
pub(super) fn apply(kind: &str, p: &mut Program, fi: usize, rng: &mut Rng, cx: &Cx) -> bool {
    let env = &cx.env;
    let func = func_mut(p, fi);
    match kind {
        "stmt-expr" => nth_expr(
            func,
            &|e| matches!(e, Expr::Block(_)),
            rng,
            &mut |e, rng| {
                if let Expr::Block(se) = e {
                    change(se, env, rng);
                }
            },
        ),
        "stmt-expr-same" => {
            if rng.chance(50) && move_into(func, rng) {
                return true;
            }
            wrap(func, env, rng)
        }
        _ => false,
    }
}

/// `e` plus one, in its own kind of arithmetic.
fn plus_one(env: &Env, e: Expr) -> Expr {
    let one = if env.is_float(&e) {
        Expr::Flt("1.0".into())
    } else {
        Expr::Int(1)
    };
    Expr::bin(Op::Add, e, one)
}

/// One change inside `se`, among those it has a site for.
fn change(se: &mut StmtExpr, env: &Env, rng: &mut Rng) {
    let mut breaks = 0;
    each_block(&mut se.body, top_ctx(), &mut |b, c| {
        if continuable(c) {
            breaks += b.iter().filter(|s| is_break(s)).count()
        }
    });
    let mut options = vec![];
    if se.value.as_ref().is_some_and(|v| env.is_arith(v)) {
        options.push(0);
    }
    if se.decls.iter().any(|d| env.is_arith(&d.init)) {
        options.push(1);
    }
    if !se.body.is_empty() {
        options.push(2);
    }
    if breaks > 0 {
        options.push(3);
    }
    if options.is_empty() {
        return;
    }
    match *rng.pick(&options) {
        0 => {
            if let Some(v) = se.value.take() {
                se.value = Some(plus_one(env, v));
            }
        }
        1 => {
            let at: Vec<usize> = (0..se.decls.len())
                .filter(|&i| env.is_arith(&se.decls[i].init))
                .collect();
            let d = &mut se.decls[*rng.pick(&at)];
            d.init = plus_one(env, d.init.clone());
        }
        2 => {
            let i = rng.below(se.body.len());
            se.body.remove(i);
        }
        _ => {
            // a `break` of a loop inside becomes a `continue` (the loop still ends: its
            // counter is stepped by its header)
            let k = rng.below(breaks);
            let mut seen = 0;
            each_block(&mut se.body, top_ctx(), &mut |b, c| {
                if !continuable(c) {
                    return;
                }
                for s in b.iter_mut().filter(|s| is_break(s)) {
                    if seen == k {
                        if let Stmt::If(_, t, _) = s {
                            t[0] = Stmt::Continue;
                        }
                    }
                    seen += 1;
                }
            });
        }
    }
}

/// A block where `continue` goes on with a loop that steps its counter first (`for`, `while`).
fn continuable(c: Ctx) -> bool {
    c.in_loop && !c.in_switch && !c.no_continue && !c.in_spin
}

/// `if (c) break;`
fn is_break(s: &Stmt) -> bool {
    matches!(s, Stmt::If(_, t, e) if t == &[Stmt::Break] && e.is_empty())
}

/// The type of `e` where the fuzzer's inference is exact: a declared variable, a comparison, a
/// cast, a constant.
fn exact_ty(env: &Env, e: &Expr) -> Option<Ty> {
    match e {
        Expr::Var(v) => {
            let declared = env.func.params.iter().any(|p| &p.name == v)
                || env.func.locals.iter().any(|l| &l.name == v)
                || env.prog.globals.iter().any(|g| &g.name == v);
            if declared {
                env.var_ty(v)
            } else {
                None
            }
        }
        Expr::Bin(op, _, _) if op.is_cmp() || op.is_logic() => Some(INT),
        Expr::Un(Un::Not, _) | Expr::Int(_) | Expr::Chr(_) => Some(INT),
        Expr::Cast(t, _) => Some(t.clone()),
        _ => None,
    }
    .filter(Ty::is_arith)
}

/// A name no declaration or variable of `func` has.
fn fresh_name(func: &Func) -> String {
    let mut used: BTreeSet<String> = func
        .params
        .iter()
        .map(|p| p.name.clone())
        .chain(func.locals.iter().map(|l| l.name.clone()))
        .collect();
    let mut g = func.clone();
    func_exprs(&mut g, Walk::All, &mut |e, _| {
        if let Expr::Block(se) = e {
            used.extend(se.decls.iter().map(|d| d.name.clone()));
        }
    });
    (0..)
        .map(|k| format!("sw{k}"))
        .find(|n| !used.contains(n))
        .unwrap_or_default()
}

/// `e` → `({ __typeof__(e) t = (e); t; })` or `({ T t = e; t; })`, for an arithmetic `e`
/// without calls (a call moved into a statement expression could be ordered otherwise
/// against the other operands).
fn wrap(func: &mut Func, env: &Env, rng: &mut Rng) -> bool {
    let name = fresh_name(func);
    nth_expr(
        func,
        &|e| env.is_arith(e) && !e.has_call(),
        rng,
        &mut |e, rng| {
            let init = e.clone();
            let (ty, typeof_) = match exact_ty(env, &init) {
                Some(t) if rng.chance(50) => (t, false),
                _ => (env.ty(&init).unwrap_or(INT), true),
            };
            let d = SeDecl {
                ty,
                name: name.clone(),
                init,
                typeof_,
            };
            *e = Expr::stmt_expr(vec![d], vec![], Some(Expr::var(&name)));
        },
    )
}

/// Whether a statement can run inside a statement expression at the same point: no label and
/// no `goto` (a `return`, or a `break`/`continue` of the loop or `switch` around it, leaves the
/// statement expression for the same target as before, skipping the rest of the expression).
fn movable(s: &Stmt) -> bool {
    !s.has_goto_or_label()
}

/// The expression evaluated first by `t` (with nothing of `t` evaluated before it), if any.
fn root_expr(t: &mut Stmt) -> Option<&mut Expr> {
    match t {
        // a compound assignment reads its target unsequenced against the right side
        Stmt::Assign(Expr::Var(_), None, e) | Stmt::Return(e) | Stmt::Call(e) => Some(e),
        Stmt::If(c, _, _) | Stmt::Switch(c, _) => Some(c),
        _ => None,
    }
}

/// `s; t` → `t` with its root expression `e` made `({ s; e; })`; or, for the last statement
/// of the body, into the final return.
fn move_into(func: &mut Func, rng: &mut Rng) -> bool {
    let into = |s: Stmt, e: &mut Expr| {
        let inner = std::mem::replace(e, Expr::Int(0));
        *e = Expr::stmt_expr(vec![], vec![s], Some(inner));
    };
    if rng.chance(25) && func.body.last().is_some_and(movable) {
        if let Some(s) = func.body.pop() {
            into(s, &mut func.ret_expr);
            return true;
        }
    }
    let site = |b: &[Stmt], i: usize| movable(&b[i]) && root_expr(&mut b[i + 1].clone()).is_some();
    nth_block(
        func,
        &|b, _| (0..b.len().saturating_sub(1)).any(|i| site(b, i)),
        rng,
        &mut |b, _, rng| {
            let at: Vec<usize> = (0..b.len() - 1).filter(|&i| site(b, i)).collect();
            let i = *rng.pick(&at);
            let s = b.remove(i);
            match root_expr(&mut b[i]) {
                Some(e) => into(s, e),
                None => b.insert(i, s),
            }
            true
        },
    )
}
