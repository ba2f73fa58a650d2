//! GCC's integer bit builtins for the interpreter (`__builtin_bswap16/32/64`, `clz`, `ctz`,
//! `clrsb`, `popcount`, `parity`, `ffs` and their `l`/`ll` forms).
//!
//! Takes the name of a builtin [`crate::ir::bit_builtin`] knows and its argument; gives its
//! result as GCC computes it on x86-64, or the reason the call is undefined (`clz` and `ctz` of
//! zero).

use crate::ir::{bit_builtin, CType};

/// `name(x)`: `None` when `name` is no bit builtin, `Some(Err)` when the call is undefined.
pub(super) fn call(name: &str, x: i128) -> Option<Result<(i128, CType), String>> {
    let ft = bit_builtin(name)?;
    let CType::Int { bits, .. } = ft.params[0] else {
        return None;
    };
    let bits = u32::from(bits);
    let mask = if bits == 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    };
    let u = (x as u64) & mask;
    let op = name.trim_start_matches("__builtin_").trim_end_matches('l');
    let r: i128 = match op {
        "bswap16" => i128::from((u as u16).swap_bytes()),
        "bswap32" => i128::from((u as u32).swap_bytes()),
        "bswap64" => i128::from(u.swap_bytes()),
        "clz" | "ctz" if u == 0 => {
            return Some(Err(format!("`{name}` of 0 is undefined")));
        }
        "clz" => i128::from(u.leading_zeros() - (64 - bits)),
        "ctz" => i128::from(u.trailing_zeros()),
        "popcount" => i128::from(u.count_ones()),
        "parity" => i128::from(u.count_ones() & 1),
        "ffs" if u == 0 => 0,
        "ffs" => i128::from(u.trailing_zeros() + 1),
        "clrsb" => {
            // leading bits equal to the sign bit, the sign bit not counted
            let v = u << (64 - bits);
            let s = if (v as i64) < 0 { !v } else { v };
            i128::from(s.leading_zeros().min(bits) - 1)
        }
        _ => return None,
    };
    Some(Ok((r, ft.ret)))
}

#[cfg(test)]
mod tests {
    use super::call;

    fn v(name: &str, x: i128) -> i128 {
        call(name, x).unwrap().unwrap().0
    }

    #[test]
    fn bit_builtins_compute_what_gcc_does() {
        assert_eq!(v("__builtin_bswap16", 0x1234), 0x3412);
        assert_eq!(v("__builtin_bswap32", 0x1122_3344), 0x4433_2211);
        assert_eq!(
            v("__builtin_bswap64", 0x0102_0304_0506_0708),
            0x0807_0605_0403_0201
        );
        assert_eq!(v("__builtin_clz", 1), 31);
        assert_eq!(v("__builtin_clzll", 1), 63);
        assert_eq!(v("__builtin_ctz", 8), 3);
        assert_eq!(v("__builtin_popcountl", -1), 64);
        assert_eq!(v("__builtin_popcount", -1), 32);
        assert_eq!(v("__builtin_parity", 7), 1);
        assert_eq!(v("__builtin_ffs", 0), 0);
        assert_eq!(v("__builtin_ffs", 12), 3);
        assert_eq!(v("__builtin_clrsb", 0), 31);
        assert_eq!(v("__builtin_clrsb", -1), 31);
        assert_eq!(v("__builtin_clrsb", 1), 30);
        assert!(call("__builtin_clz", 0).unwrap().is_err());
        assert!(call("__builtin_ctzl", 0).unwrap().is_err());
        assert!(call("__builtin_memcpy", 0).is_none());
    }
}
