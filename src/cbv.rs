//! C's integer operations on z3 bit-vectors, with the conditions under which C defines them.
//!
//! Takes an operator and its two operands, already converted to the operation's width; gives
//! the result (wrapping, as the hardware computes it) and the definedness conditions: no signed
//! overflow (unless signed arithmetic wraps, `-fwrapv`), no division by zero nor `INT_MIN / -1`,
//! shift counts below the width, no signed left shift of a negative value or into the sign
//! bit. Shared by the witness search's path encoding (`witness::smt`: a model must not be
//! undefined behaviour) and the analysis's congruence check (`analysis::smt_eq`: equal wherever
//! both versions are defined). A utility below both stages, like `ir`.

use z3::ast::{Ast, Bool, BV};
use z3::Context;

use crate::ir::BinOp;

/// `x op y` for an arithmetic, bitwise or shift operator (`None` for the others), computed in
/// the operands' width; `signed`: of a signed type; `wrap`: signed overflow wraps instead of
/// being undefined.
pub fn int_op<'c>(
    ctx: &'c Context,
    op: BinOp,
    x: &BV<'c>,
    y: &BV<'c>,
    signed: bool,
    wrap: bool,
) -> Option<(BV<'c>, Vec<Bool<'c>>)> {
    let w = x.get_size();
    let konst = |v: i128| {
        let m = if w >= 64 { u64::MAX } else { (1u64 << w) - 1 };
        BV::from_u64(ctx, (v as u64) & m, w)
    };
    let checked = signed && !wrap;
    let mut defined = vec![];
    let r = match op {
        BinOp::Add => {
            if checked {
                defined.push(x.bvadd_no_overflow(y, true));
                defined.push(x.bvadd_no_underflow(y));
            }
            x.bvadd(y)
        }
        BinOp::Sub => {
            if checked {
                defined.push(x.bvsub_no_overflow(y));
                defined.push(x.bvsub_no_underflow(y, true));
            }
            x.bvsub(y)
        }
        BinOp::Mul => {
            if checked {
                defined.push(x.bvmul_no_overflow(y, true));
                defined.push(x.bvmul_no_underflow(y));
            }
            x.bvmul(y)
        }
        BinOp::Div | BinOp::Rem => {
            defined.push(y._eq(&konst(0)).not());
            if signed {
                // INT_MIN / -1 traps even where signed arithmetic wraps
                let min = konst(-(1i128 << (w - 1)));
                let ok = Bool::and(ctx, &[&x._eq(&min), &y._eq(&konst(-1))]).not();
                defined.push(ok);
            }
            match (op, signed) {
                (BinOp::Div, true) => x.bvsdiv(y),
                (BinOp::Div, false) => x.bvudiv(y),
                (_, true) => x.bvsrem(y),
                (_, false) => x.bvurem(y),
            }
        }
        BinOp::Shl | BinOp::Shr => {
            // the count as an unsigned number of this width: below the width (a negative
            // count is a huge one)
            defined.push(y.bvult(&konst(i128::from(w))));
            if op == BinOp::Shl {
                let r = x.bvshl(y);
                if checked {
                    let zero = konst(0);
                    let ok = Bool::and(
                        ctx,
                        &[&x.bvsge(&zero), &r.bvlshr(y)._eq(x), &r.bvsge(&zero)],
                    );
                    defined.push(ok);
                }
                r
            } else if signed {
                x.bvashr(y)
            } else {
                x.bvlshr(y)
            }
        }
        BinOp::BitAnd => x.bvand(y),
        BinOp::BitOr => x.bvor(y),
        BinOp::BitXor => x.bvxor(y),
        _ => return None,
    };
    Some((r, defined))
}
