//! Mutations that reshape a counted loop the way people unroll and peel loops by hand, which
//! dizy's correlation follows by scheduling one version's loop against the other's (unrolled,
//! peeled, split into an unrolled part and its remainder); and the same shapes with a slip.
//! Added in generation 7.
//!
//! Takes the kind, the program, the function's index and the RNG; gives whether it found a
//! site. A `for (i = 0; B; i++) S` (no `continue` of its own) or `i = 0; while (B) { i++; S }`
//! loop, whose body has no label or `goto` (a copy would repeat them), becomes, with `I` one
//! iteration (`S; i += 1` or `i += 1; S`) and `C` the bound as a condition:
//! * `loop-unroll`: `i = 0; while (C) { I if (C) { I } }` (exact: the inner test runs where the
//!   loop's own would; `break` and `continue` in either copy leave or repeat the loop as
//!   before); the slip runs the copy without its test;
//! * `loop-peel`: `i = 0; if (C) { I } while (C) { I }` (no `break` or `continue` of its own);
//!   the slip runs the peeled iteration without its test;
//! * `loop-split`: `i = 0; while (i + 1 < …) { I I } while (C) { I }` (the bound is not written
//!   in the loop, nor the counter but by `I`; no `break`; `continue` only in the `while` form);
//!   the slip leaves the remainder loop out.
//!
//! Dispatched by [`super::apply`].

use crate::ast::*;
use crate::gen::Rng;

use super::sites::*;

/// The loop of `s` as (counter, bound, one iteration, whether the body has its own `continue`),
/// where the shapes above apply.
fn counted(s: &Stmt) -> Option<(String, Bound, Vec<Stmt>, bool)> {
    let inc = |i: &str| Stmt::Assign(Expr::var(i), Some(Op::Add), Expr::Int(1));
    let (i, bd, body, it) = match s {
        Stmt::For(i, bd, body) => {
            if body.iter().any(Stmt::has_own_continue) {
                return None;
            }
            let mut it = body.clone();
            it.push(inc(i));
            (i, bd, body, it)
        }
        Stmt::While(i, bd, body) => {
            let mut it = vec![inc(i)];
            it.extend(body.iter().cloned());
            (i, bd, body, it)
        }
        _ => return None,
    };
    if body.iter().any(Stmt::has_goto_or_label) {
        return None;
    }
    let cont = body.iter().any(Stmt::has_own_continue);
    Some((i.clone(), bd.clone(), it, cont))
}

/// `i + shift < B` as an expression.
fn condition(i: &str, bd: &Bound, shift: i64) -> Expr {
    let lhs = if shift == 0 {
        Expr::var(i)
    } else {
        Expr::bin(Op::Add, Expr::var(i), Expr::Int(shift))
    };
    let rhs = match bd {
        Bound::Const(k) => Expr::Int(*k),
        Bound::Var(v) => Expr::var(v),
        Bound::Clamp(e, k) => Expr::Cond(
            Box::new(Expr::bin(Op::Lt, e.clone(), Expr::Int(*k))),
            Box::new(e.clone()),
            Box::new(Expr::Int(*k)),
        ),
    };
    Expr::bin(Op::Lt, lhs, rhs)
}

/// Whether the loop's body writes the counter (other than by its own step) or what the bound
/// reads.
fn writes_bound_or_counter(s: &Stmt, i: &str, bd: &Bound) -> bool {
    let body = match s {
        Stmt::For(_, _, b) | Stmt::While(_, _, b) => b,
        _ => return true,
    };
    let mut reads = vec![];
    match bd {
        Bound::Const(_) => {}
        Bound::Var(v) => reads.push(v.clone()),
        Bound::Clamp(e, _) => {
            if e.has_call() || e.reads_mem() {
                return true;
            }
            e.names(&mut reads);
        }
    }
    // where the bound reads variables, a call or a store through a pointer might change them
    let shared = !reads.is_empty();
    body.iter().any(|st| {
        let (_, w, _) = effects(st);
        w.contains(i)
            || (shared && (w.contains("*") || w.contains("@call")))
            || reads.iter().any(|r| w.contains(r))
    })
}

pub(super) fn apply(kind: &str, p: &mut Program, fi: usize, rng: &mut Rng) -> bool {
    let slip = kind.ends_with("-slip");
    let shape = kind.trim_end_matches("-slip");
    let func = func_mut(p, fi);
    let fits = |s: &Stmt| -> bool {
        let Some((i, bd, _, cont)) = counted(s) else {
            return false;
        };
        let breaks = match s {
            Stmt::For(_, _, b) | Stmt::While(_, _, b) => b.iter().any(Stmt::has_own_break),
            _ => true,
        };
        match shape {
            "loop-unroll" => true,
            "loop-peel" => !breaks && !cont,
            "loop-split" => !breaks && !writes_bound_or_counter(s, &i, &bd),
            _ => false,
        }
    };
    nth_stmt(func, &fits, rng, &mut |b, at, _| {
        let Some((i, bd, it, _)) = counted(&b[at]) else {
            return false;
        };
        let c = condition(&i, &bd, 0);
        let test = |c: &Expr| if slip { Expr::Int(1) } else { c.clone() };
        let init = Stmt::Assign(Expr::var(&i), None, Expr::Int(0));
        let new: Vec<Stmt> = match shape {
            "loop-unroll" => {
                let mut body = it.clone();
                body.push(Stmt::If(test(&c), it.clone(), vec![]));
                vec![init, Stmt::WhileCond(c, body)]
            }
            "loop-peel" => vec![
                init,
                Stmt::If(test(&c), it.clone(), vec![]),
                Stmt::WhileCond(c, it),
            ],
            _ => {
                let mut two = it.clone();
                two.extend(it.iter().cloned());
                let mut v = vec![init, Stmt::WhileCond(condition(&i, &bd, 1), two)];
                if !slip {
                    v.push(Stmt::WhileCond(c, it));
                }
                v
            }
        };
        b.splice(at..=at, new);
        true
    })
}
