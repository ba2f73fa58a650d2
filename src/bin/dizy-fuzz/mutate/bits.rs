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

/// `builtin-swap` (changing: another builtin of the same parameter type) or `builtin-expand`
/// (preserving: the builtin written out by an identity) on a call of a GCC bit builtin in
/// function `fi` of `p`. Identities that evaluate the operand twice apply only to operands
/// without calls, statement expressions, memory reads or volatile objects.
pub(super) fn builtin(kind: &str, p: &mut Program, fi: usize, rng: &mut Rng) -> bool {
    let volatile: Vec<String> = p
        .globals
        .iter()
        .filter(|g| g.is_volatile)
        .map(|g| g.name.clone())
        .collect();
    let expand = kind == "builtin-expand";
    let func = func_mut(p, fi);
    let mut applied = false;
    let found = nth_expr(
        func,
        &|e| matches!(e, Expr::Lib(n, a) if n.starts_with("__builtin_") && a.len() == 1),
        rng,
        &mut |e, _| {
            let Expr::Lib(name, args) = e.clone() else {
                return;
            };
            let x = args[0].clone();
            let pure = !x.any(&|n| match n {
                Expr::Call(..)
                | Expr::CallPtr(..)
                | Expr::Lib(..)
                | Expr::Block(_)
                | Expr::Deref(_) => true,
                Expr::Var(v) => volatile.contains(v),
                _ => false,
            });
            let call = |n: &str, a: Expr| Expr::Lib(n.into(), vec![a]);
            let bin = Expr::bin;
            let uint = |e: Expr| Expr::cast(Ty::I(IntK::UInt), e);
            let new = if expand {
                match name.as_str() {
                    "__builtin_parity" => {
                        Some(bin(Op::And, call("__builtin_popcount", x), Expr::Int(1)))
                    }
                    "__builtin_clrsb" => Some(call(&name, Expr::Un(Un::BitNot, Box::new(x)))),
                    "__builtin_clz" => Some(bin(
                        Op::Xor,
                        bin(Op::Xor, call(&name, x), Expr::Int(31)),
                        Expr::Int(31),
                    )),
                    "__builtin_popcount" if pure => Some(bin(
                        Op::Add,
                        call(&name, bin(Op::And, x.clone(), Expr::Int(0xffff))),
                        call(&name, bin(Op::Shr, x, Expr::Int(16))),
                    )),
                    "__builtin_ffs" if pure => Some(Expr::cond(
                        bin(Op::Eq, x.clone(), Expr::Int(0)),
                        Expr::Int(0),
                        bin(Op::Add, call("__builtin_ctz", uint(x)), Expr::Int(1)),
                    )),
                    "__builtin_ctz" if pure => Some(call(
                        "__builtin_popcount",
                        bin(
                            Op::Sub,
                            bin(Op::And, x.clone(), Expr::Un(Un::Neg, Box::new(x))),
                            Expr::Int(1),
                        ),
                    )),
                    "__builtin_bswap32" if pure => Some(bin(
                        Op::Or,
                        bin(
                            Op::Or,
                            bin(Op::Shr, x.clone(), Expr::Int(24)),
                            bin(
                                Op::And,
                                bin(Op::Shr, x.clone(), Expr::Int(8)),
                                Expr::Int(0xff00),
                            ),
                        ),
                        bin(
                            Op::Or,
                            bin(
                                Op::And,
                                bin(Op::Shl, x.clone(), Expr::Int(8)),
                                Expr::Int(0xff0000),
                            ),
                            bin(Op::Shl, x, Expr::Int(24)),
                        ),
                    )),
                    "__builtin_bswap16" if pure => Some(Expr::cast(
                        Ty::I(IntK::UShort),
                        bin(
                            Op::Or,
                            bin(Op::Shr, Expr::cast(INT, x.clone()), Expr::Int(8)),
                            bin(Op::Shl, Expr::cast(INT, x), Expr::Int(8)),
                        ),
                    )),
                    _ => None,
                }
            } else {
                let other = match name.as_str() {
                    "__builtin_popcount" => "__builtin_parity",
                    "__builtin_parity" => "__builtin_popcount",
                    "__builtin_clz" => "__builtin_ctz",
                    "__builtin_ctz" => "__builtin_clz",
                    "__builtin_ffs" => "__builtin_clrsb",
                    "__builtin_clrsb" => "__builtin_ffs",
                    "__builtin_bswap32" => "__builtin_popcount",
                    _ => "",
                };
                match (other, name.as_str()) {
                    ("", "__builtin_bswap16") => Some(x),
                    ("", _) => None,
                    (o, _) => Some(call(o, x)),
                }
            };
            if let Some(n) = new {
                *e = n;
                applied = true;
            }
        },
    );
    found && applied
}
