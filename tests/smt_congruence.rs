//! Matched computations the numeric domains cannot relate — products, division, bit operations,
//! shifts — are proved equal by z3 as bit-vector functions of their leaves (`analysis::smt_eq`),
//! and only where they are: each rewrite below is `equivalent`, and each near miss is not (it
//! gets a witness, which the interpreter validated by running both versions). GCC's bit
//! builtins are encoded too (`cbv::bit_builtin`, checked against Rust's bit operations there).

mod common;

use dizy::diff::Verdict;

fn verdict(old: &str, new: &str) -> Verdict {
    let dir = tempfile::tempdir().expect("tempdir");
    common::verdict_of(dir.path(), old, new, "f")
}

/// `f` with parameters `params` returning `r` computed as `body`.
fn src(params: &str, body: &str) -> String {
    format!("long f({params}) {{ long r = 0; {body} return r; }}\n")
}

const CASES: &[(&str, &str, &str, &str)] = &[
    // distributivity, signed (overflow is undefined, so both sides are defined alike)
    (
        "int x, int y, int z",
        "r = x * (y + z);",
        "r = x * y + x * z;",
        "r = x * y + x * z + (x == 7);",
    ),
    // bit operations
    (
        "unsigned a, unsigned b",
        "r = (a ^ b) & 1u;",
        "r = (a & 1u) ^ (b & 1u);",
        "r = (a & 1u) | (b & 1u);",
    ),
    // a strength reduction
    (
        "unsigned x",
        "r = (x << 3) + x;",
        "r = x * 9u;",
        "r = x * 9u + (x >> 31);",
    ),
    // a guard rewritten: the remainder's sign follows the dividend
    (
        "int a, int b",
        "if ((a & 3) == 1) r = a * b;",
        "if (a % 4 == 1 || a % 4 == -3) r = b * a;",
        "if (a % 4 == 1) r = b * a;",
    ),
    // a straight-line block through temporaries (their definitions are substituted)
    (
        "int x, int y, int z",
        "int t = x * y; int u = x * z; r = t + u;",
        "int s = y + z; r = x * s;",
        "int s = y + z; r = x * s + (s == 3);",
    ),
    // unsigned division by a power of two is a shift; signed division is not (it rounds
    // towards zero)
    (
        "unsigned u, int s",
        "r = u / 8u + s / 2;",
        "r = (u >> 3) + s / 2;",
        "r = (u >> 3) + (s >> 1);",
    ),
    // GCC's bit builtins: results of the calls are encoded as what they compute
    (
        "unsigned x",
        "int a = __builtin_parity(x); r = a;",
        "int a = __builtin_popcount(x) & 1; r = a;",
        "int a = __builtin_popcount(x) & 3; r = a;",
    ),
    (
        "unsigned x",
        "unsigned c = __builtin_bswap32(x); r = c;",
        "unsigned c = (x >> 24) | ((x >> 8) & 0xff00u) | ((x << 8) & 0xff0000u) | (x << 24); r = c;",
        "unsigned c = (x >> 24) | ((x >> 8) & 0xff01u) | ((x << 8) & 0xff0000u) | (x << 24); r = c;",
    ),
    (
        "int y",
        "int t = __builtin_clrsb(y); r = t;",
        "int t = __builtin_clrsb(~y); r = t;",
        "int t = __builtin_clrsb(-y); r = t;",
    ),
    (
        "unsigned x",
        "int t = __builtin_ctz(x | 8u); r = t;",
        "int t = __builtin_popcount(((x | 8u) & -(x | 8u)) - 1u); r = t;",
        "int t = __builtin_popcount((x | 8u) & -(x | 8u)); r = t;",
    ),
];

#[test]
fn rewritten_computations_are_proved_equal() {
    for (params, old, new, _) in CASES {
        let v = verdict(&src(params, old), &src(params, new));
        assert_eq!(v, Verdict::Equivalent, "{old} against {new}");
    }
}

#[test]
fn near_misses_are_not() {
    for (params, old, _, wrong) in CASES {
        let v = verdict(&src(params, old), &src(params, wrong));
        assert_eq!(v, Verdict::Different, "{old} against {wrong}");
    }
}

/// Unsigned arithmetic wraps: `x * 2u / 2u` is not `x` (x = 2^31), while the signed version is
/// equal wherever it is defined.
#[test]
fn wrapping_is_respected() {
    let v = verdict(
        &src("unsigned x", "r = x * 2u / 2u;"),
        &src("unsigned x", "r = x;"),
    );
    assert_eq!(v, Verdict::Different);
    let v = verdict(&src("int x", "r = x * 4 / 4;"), &src("int x", "r = x;"));
    assert_eq!(v, Verdict::Equivalent);
}
