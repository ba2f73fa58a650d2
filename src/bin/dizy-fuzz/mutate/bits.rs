//! Mutations that rewrite integer arithmetic by identities of two's complement — De Morgan,
//! `x ^ y` as `(x | y) & ~(x & y)`, a sum as `(x ^ y) + 2 * (x & y)`, a product distributed
//! over a sum or as `x * (y - 1) + x` — which the numeric domains cannot relate
//! and dizy proves with z3 (`analysis::smt_eq`); and the same rewrites with a slip, which change
//! behaviour. Added in generation 6.
//!
//! Takes the kind, the program, the function's index, the RNG and [`Cx`]; gives whether it found
//! a site. Dispatched by [`super::apply`].

use super::sites::*;
use super::Cx;
use crate::ast::*;
use crate::gen::Rng;

/// `bit-algebra` (preserving) or `bit-algebra-slip` (changing) on function `fi` of `p`.
pub(super) fn apply(kind: &str, p: &mut Program, fi: usize, rng: &mut Rng, cx: &Cx) -> bool {
    let env = &cx.env;
    let slip = kind == "bit-algebra-slip";
    let func = func_mut(p, fi);
    nth_expr(
        func,
        &|e| {
            matches!(e, Expr::Bin(op, a, b)
                if matches!(op, Op::And | Op::Or | Op::Xor | Op::Add | Op::Sub | Op::Mul)
                    && env.is_int(a) && env.is_int(b))
        },
        rng,
        &mut |e, rng| {
            let Expr::Bin(op, a, b) = e.clone() else {
                return;
            };
            // both operands in the expression's (promoted, common) type, so that `~` and the
            // identities work on the bits the original operation saw
            let Some(t) = env.ty(e) else {
                return;
            };
            let (a, b) = (Expr::cast(t.clone(), *a), Expr::cast(t.clone(), *b));
            let not = |x: Expr| Expr::Un(Un::BitNot, Box::new(x));
            let bin = Expr::bin;
            let rewritten = match (op, slip) {
                // De Morgan
                (Op::And, false) => not(bin(Op::Or, not(a), not(b))),
                (Op::And, true) => not(bin(Op::And, not(a), not(b))),
                (Op::Or, false) => not(bin(Op::And, not(a), not(b))),
                (Op::Or, true) => not(bin(Op::Or, not(a), not(b))),
                (Op::Xor, false) => bin(
                    Op::And,
                    bin(Op::Or, a.clone(), b.clone()),
                    not(bin(Op::And, a, b)),
                ),
                (Op::Xor, true) => bin(
                    Op::And,
                    bin(Op::Or, a.clone(), b.clone()),
                    bin(Op::And, a, b),
                ),
                // carries
                (Op::Add, false) => bin(
                    Op::Add,
                    bin(Op::Xor, a.clone(), b.clone()),
                    bin(Op::Mul, Expr::Int(2), bin(Op::And, a, b)),
                ),
                (Op::Add, true) => bin(
                    Op::Add,
                    bin(Op::Xor, a.clone(), b.clone()),
                    bin(Op::And, a, b),
                ),
                // two's complement negation
                (Op::Sub, false) => bin(Op::Add, bin(Op::Add, a, not(b)), Expr::Int(1)),
                (Op::Sub, true) => bin(Op::Add, a, not(b)),
                (Op::Mul, _) => {
                    if let Expr::Cast(_, inner) = &b {
                        if let Expr::Bin(Op::Add, c, d) = &**inner {
                            // distributed (with the slip: the second term not multiplied)
                            let (c, d) = ((**c).clone(), (**d).clone());
                            let second = if slip { d } else { bin(Op::Mul, a.clone(), d) };
                            *e = Expr::cast(t, bin(Op::Add, bin(Op::Mul, a, c), second));
                            return;
                        }
                    }
                    // a * (b - 1) + a (with the slip: + b)
                    let last = if slip { b.clone() } else { a.clone() };
                    let _ = rng;
                    bin(
                        Op::Add,
                        bin(Op::Mul, a, bin(Op::Sub, b, Expr::Int(1))),
                        last,
                    )
                }
                _ => return,
            };
            *e = Expr::cast(t, rewritten);
        },
    )
}
