//! C's integer operations (and GCC's bit builtins) on z3 bit-vectors, with the conditions under
//! which C (GCC) defines them.
//!
//! Takes an operator and its two operands, already converted to the operation's width; gives
//! the result (wrapping, as the hardware computes it) and the definedness conditions: no signed
//! overflow (unless signed arithmetic wraps, `-fwrapv`), no division by zero nor `INT_MIN / -1`,
//! shift counts below the width, no signed left shift of a negative value or into the sign
//! bit. Signed overflow is checked on the exact result in a wider vector rather than with z3's
//! `bvmul_no_overflow`-style predicates: Debian's z3 4.8.12 takes `16 * -1` for an overflow
//! (`(bvsmul_noovfl #x00000010 #xffffffff)` is unsat there), which made every state where a
//! product by a negative constant ran look undefined. Shared by the witness search's path encoding (`witness::smt`: a model must not be
//! undefined behaviour) and the analysis's congruence check (`analysis::smt_eq`: equal wherever
//! both versions are defined). A utility below both stages, like `ir`.

use z3::ast::{Ast, Bool, BV};
use z3::Context;

use crate::ir::BinOp;

/// Where C defines the signed negation of `x`: everywhere but the most negative value (written
/// out, like the overflow checks below, rather than z3's `bvneg_no_overflow`).
pub fn neg_defined<'c>(ctx: &'c Context, x: &BV<'c>) -> Bool<'c> {
    let w = x.get_size();
    let min = BV::from_u64(ctx, 1, w).bvshl(&BV::from_u64(ctx, u64::from(w - 1), w));
    x._eq(&min).not()
}

/// Whether the exact result `wide` (a sign-extended computation) is a signed number of `w`
/// bits: its bits from `w - 1` up are all equal.
fn fits<'c>(ctx: &'c Context, wide: &BV<'c>, w: u32) -> Bool<'c> {
    let top = wide.extract(wide.get_size() - 1, w - 1);
    let n = top.get_size();
    let zeros = BV::from_u64(ctx, 0, n);
    Bool::or(ctx, &[&top._eq(&zeros), &top._eq(&zeros.bvnot())])
}

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
                defined.push(fits(ctx, &x.sign_ext(1).bvadd(&y.sign_ext(1)), w));
            }
            x.bvadd(y)
        }
        BinOp::Sub => {
            if checked {
                defined.push(fits(ctx, &x.sign_ext(1).bvsub(&y.sign_ext(1)), w));
            }
            x.bvsub(y)
        }
        BinOp::Mul => {
            if checked {
                defined.push(fits(ctx, &x.sign_ext(w).bvmul(&y.sign_ext(w)), w));
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

/// The width of the parameter of GCC bit builtin `name` (see [`crate::ir::bit_builtin`]).
pub fn bit_builtin_width(name: &str) -> Option<u32> {
    let f = crate::ir::bit_builtin(name)?;
    match f.params.first()? {
        crate::ir::CType::Int { bits, .. } => Some(u32::from(*bits)),
        _ => None,
    }
}

/// GCC bit builtin `name` of `x` (in its parameter's width, [`bit_builtin_width`]): the result
/// (`int`, 32 bits; `bswap` in its own width) and the condition under which GCC defines it
/// (`clz` and `ctz` of 0 are undefined). `None` for a name that is no such builtin.
pub fn bit_builtin<'c>(
    ctx: &'c Context,
    name: &str,
    x: &BV<'c>,
) -> Option<(BV<'c>, Vec<Bool<'c>>)> {
    let w = x.get_size();
    let int = |v: u64| BV::from_u64(ctx, v, 32);
    let bit = |i: u32| x.extract(i, i)._eq(&BV::from_u64(ctx, 1, 1));
    let zero = x._eq(&BV::from_u64(ctx, 0, w));
    let popcount = || (0..w).fold(int(0), |acc, i| acc.bvadd(&x.extract(i, i).zero_ext(31)));
    // leading zeros of `v`: the first set bit from the top decides (w when none is)
    let clz = |v: &BV<'c>| {
        (0..w).fold(int(u64::from(w)), |acc, i| {
            v.extract(i, i)
                ._eq(&BV::from_u64(ctx, 1, 1))
                .ite(&int(u64::from(w - 1 - i)), &acc)
        })
    };
    let ctz = || {
        (0..w).rev().fold(int(u64::from(w)), |acc, i| {
            bit(i).ite(&int(u64::from(i)), &acc)
        })
    };
    let rest = name.strip_prefix("__builtin_")?;
    let op = rest.trim_end_matches('l');
    if let Some(n) = op.strip_prefix("bswap") {
        if n.parse::<u32>().ok()? != w {
            return None;
        }
        let bytes: Vec<BV<'c>> = (0..w / 8).map(|k| x.extract(8 * k + 7, 8 * k)).collect();
        let r = bytes[1..]
            .iter()
            .fold(bytes[0].clone(), |acc, b| acc.concat(b));
        return Some((r, vec![]));
    }
    Some(match op {
        "popcount" => (popcount(), vec![]),
        "parity" => (popcount().bvand(&int(1)), vec![]),
        "clz" => (clz(x), vec![zero.not()]),
        "ctz" => (ctz(), vec![zero.not()]),
        "ffs" => (zero.ite(&int(0), &ctz().bvadd(&int(1))), vec![]),
        "clrsb" => {
            // bits after the sign bit equal to it: leading zeros of `x ^ (x >> (w-1))`, less one
            let y = x.bvxor(&x.bvashr(&BV::from_u64(ctx, u64::from(w - 1), w)));
            (clz(&y).bvsub(&int(1)), vec![])
        }
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use z3::{Config, SatResult, Solver};

    /// Definedness of signed `+ - *` on constants, as z3 decides it, against Rust's checked
    /// arithmetic (the independent oracle): negative operands, zero, the extremes.
    #[test]
    fn signed_overflow_is_decided_as_c_defines_it() {
        let ctx = Context::new(&Config::new());
        let vals: [i32; 11] = [0, 1, -1, 2, -2, 16, -16, 46341, -46341, i32::MAX, i32::MIN];
        for op in [BinOp::Add, BinOp::Sub, BinOp::Mul] {
            for &a in &vals {
                for &b in &vals {
                    let bv = |v: i32| BV::from_u64(&ctx, u64::from(v as u32), 32);
                    let (r, defined) =
                        int_op(&ctx, op, &bv(a), &bv(b), true, false).expect("arithmetic");
                    let exact = match op {
                        BinOp::Add => a.checked_add(b),
                        BinOp::Sub => a.checked_sub(b),
                        _ => a.checked_mul(b),
                    };
                    let solver = Solver::new(&ctx);
                    for d in &defined {
                        solver.assert(d);
                    }
                    let sat = solver.check() == SatResult::Sat;
                    assert_eq!(sat, exact.is_some(), "{a} {op:?} {b}: defined");
                    if let Some(v) = exact {
                        solver.assert(&r._eq(&bv(v)).not());
                        assert_eq!(solver.check(), SatResult::Unsat, "{a} {op:?} {b}: value");
                    }
                }
            }
        }
        for &a in &vals {
            let x = BV::from_u64(&ctx, u64::from(a as u32), 32);
            let solver = Solver::new(&ctx);
            solver.assert(&neg_defined(&ctx, &x));
            let sat = solver.check() == SatResult::Sat;
            assert_eq!(sat, a.checked_neg().is_some(), "-({a}): defined");
        }
    }

    /// The builtins' encodings against Rust's bit operations (the independent oracle) on
    /// constants of both signs and the edge values; `clz`/`ctz` of 0 undefined.
    #[test]
    fn bit_builtins_match_rust() {
        let ctx = Context::new(&Config::new());
        let eval = |name: &str, x: u64, w: u32| -> Option<u64> {
            let (r, defined) = bit_builtin(&ctx, name, &BV::from_u64(&ctx, x, w)).unwrap();
            let s = Solver::new(&ctx);
            for d in &defined {
                s.assert(d);
            }
            if s.check() != SatResult::Sat {
                return None;
            }
            let v = s.get_model()?.eval(&r, true)?.as_u64()?;
            Some(v)
        };
        for x in [
            0u32,
            1,
            2,
            3,
            0x80,
            0xff00,
            0x8000_0000,
            0xffff_ffff,
            0x1234_5678,
            0x7fff_ffff,
        ] {
            let xi = x as i32;
            assert_eq!(
                eval("__builtin_popcount", x.into(), 32),
                Some(x.count_ones().into())
            );
            assert_eq!(
                eval("__builtin_parity", x.into(), 32),
                Some((x.count_ones() & 1).into())
            );
            let nz = |v: u32| (x != 0).then_some(u64::from(v));
            assert_eq!(
                eval("__builtin_clz", x.into(), 32),
                nz(x.leading_zeros()),
                "{x:#x}"
            );
            assert_eq!(
                eval("__builtin_ctz", x.into(), 32),
                nz(x.trailing_zeros()),
                "{x:#x}"
            );
            let ffs = if x == 0 { 0 } else { x.trailing_zeros() + 1 };
            assert_eq!(eval("__builtin_ffs", x.into(), 32), Some(ffs.into()));
            let clrsb = if xi < 0 {
                (!xi).leading_zeros()
            } else {
                xi.leading_zeros()
            } - 1;
            assert_eq!(
                eval("__builtin_clrsb", x.into(), 32),
                Some(clrsb.into()),
                "{x:#x}"
            );
            assert_eq!(
                eval("__builtin_bswap32", x.into(), 32),
                Some(x.swap_bytes().into())
            );
            let h = x as u16;
            assert_eq!(
                eval("__builtin_bswap16", h.into(), 16),
                Some(h.swap_bytes().into())
            );
        }
        let big = 0x0100_0000_0000_00f0u64;
        assert_eq!(eval("__builtin_popcountll", big, 64), Some(5));
        assert_eq!(eval("__builtin_clzl", big, 64), Some(7));
        assert_eq!(eval("__builtin_bswap64", big, 64), Some(big.swap_bytes()));
        assert_eq!(bit_builtin_width("__builtin_ctzll"), Some(64));
        assert_eq!(bit_builtin_width("__builtin_bswap16"), Some(16));
    }
}
