//! Micro-benchmark of the numeric domains (run by `scripts/bench-domains`,
//! never as a test).
//!
//! For each backend and 4…64 dimensions it times assign, meet, join, widen
//! and entail on a value shaped like dizy's correlating states: pairs of
//! tagged variables known equal (`x₂ₖ₊₁ = x₂ₖ`), a chain `x₀ ≤ x₂ ≤ x₄ …`,
//! and a bounded first variable. Writes `backend,dims,op,ns_per_op,iterations`
//! to the CSV path given as the first argument (default
//! `results/domains.csv`) and prints the ratios between the relational backends.

use std::fmt::Write as _;
use std::hint::black_box;
use std::time::{Duration, Instant};

use dizy_domains::{AnyDomain, ConstraintKind, Dim, DomainKind, LinConstraint, LinExpr, NumDomain};

const DIMS: [usize; 5] = [4, 8, 16, 32, 64];
const OPS: [&str; 5] = ["assign", "meet", "join", "widen", "entail"];
const BUDGET: Duration = Duration::from_millis(150);

/// `(a, d)` pairs with plain dimension indices, as `(a, Dim)` pairs.
fn dims(terms: &[(i128, usize)]) -> Vec<(i128, Dim)> {
    terms.iter().map(|&(a, d)| (a, Dim::new(d))).collect()
}

fn c(terms: &[(i128, usize)], k: i128, kind: ConstraintKind) -> LinConstraint {
    LinConstraint::new(LinExpr::from_terms(&dims(terms), k).expect("small"), kind)
}

/// The benchmark state over `n` dimensions; `hi` bounds the first variable.
fn state(kind: DomainKind, n: usize, hi: i128) -> AnyDomain {
    let mut d = kind.top(n).expect("top");
    let mut cs = vec![
        c(&[(1, 0)], 0, ConstraintKind::Ge),
        c(&[(1, 0)], -hi, ConstraintKind::Le),
    ];
    for k in (0..n).step_by(2) {
        if k + 1 < n {
            cs.push(c(&[(1, k + 1), (-1, k)], 0, ConstraintKind::Eq));
        }
        if k + 2 < n {
            cs.push(c(&[(1, k), (-1, k + 2)], 0, ConstraintKind::Le));
        }
    }
    d.meet_constraints(&cs).expect("meet");
    d
}

/// Runs `f` repeatedly for about `BUDGET`; returns (ns per call, calls).
fn time(mut f: impl FnMut(u64)) -> (f64, u64) {
    let start = Instant::now();
    let mut iters = 0u64;
    while iters < 3 || (start.elapsed() < BUDGET && iters < 1_000_000) {
        f(iters);
        iters += 1;
    }
    (start.elapsed().as_nanos() as f64 / iters as f64, iters)
}

fn main() {
    let out = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "results/domains.csv".to_string());
    let mut csv = String::from("backend,dims,op,ns_per_op,iterations\n");
    let mut table: Vec<(DomainKind, usize, &str, f64)> = Vec::new();
    for kind in DomainKind::ALL {
        for n in DIMS {
            let a = state(kind, n, 100);
            let b = state(kind, n, 200);
            let eq = c(&[(1, 0), (-1, 1)], 0, ConstraintKind::Eq);
            let guard = c(&[(1, 0), (-1, n - 1)], 5, ConstraintKind::Le);
            for op in OPS {
                let (ns, iters) = match op {
                    // x_k := x_{k+1} + 1 on a copy that keeps its shape.
                    "assign" => {
                        let mut d = a.clone();
                        time(|i| {
                            let k = (i as usize * 2) % n;
                            let e = LinExpr::from_terms(&[(1, Dim::new((k + 1) % n))], 1)
                                .expect("small");
                            d.assign_linear(Dim::new(k), &e).expect("assign");
                            if i % 64 == 63 {
                                d = a.clone();
                            }
                        })
                    }
                    "meet" => time(|_| {
                        let mut d = black_box(&a).meet(&b).expect("meet");
                        d.meet_constraint(&guard).expect("meet");
                        black_box(d);
                    }),
                    "join" => time(|_| {
                        black_box(a.join(&b).expect("join"));
                    }),
                    "widen" => time(|_| {
                        black_box(a.widen(&b).expect("widen"));
                    }),
                    _ => time(|_| {
                        black_box(a.entails(&eq).expect("entails"));
                    }),
                };
                writeln!(csv, "{},{n},{op},{ns:.0},{iters}", kind.name()).expect("string");
                eprintln!(
                    "{:9} {n:3} {op:6} {ns:12.0} ns  ({iters} iterations)",
                    kind.name()
                );
                table.push((kind, n, op, ns));
            }
        }
    }
    if let Err(e) = std::fs::write(&out, csv) {
        eprintln!("cannot write {out}: {e}");
        std::process::exit(2);
    }
    let get = |k: DomainKind, n: usize, op: &str| {
        table
            .iter()
            .find(|t| t.0 == k && t.1 == n && t.2 == op)
            .map_or(f64::NAN, |t| t.3)
    };
    for (x, y, what) in [
        (
            DomainKind::Octagon,
            DomainKind::Polyhedra,
            "native octagons faster",
        ),
        (
            DomainKind::Octagon,
            DomainKind::PplOctagon,
            "native octagons faster",
        ),
        (
            DomainKind::PplOctagon,
            DomainKind::Polyhedra,
            "PPL's octagons faster",
        ),
    ] {
        println!("{x} / {y} time ratio (below 1: {what})");
        println!("{:>6} {}", "dims", OPS.map(|o| format!("{o:>8}")).join(""));
        for n in DIMS {
            let row: Vec<String> = OPS
                .iter()
                .map(|op| format!("{:>8.2}", get(x, n, op) / get(y, n, op)))
                .collect();
            println!("{n:>6} {}", row.join(""));
        }
    }
    println!("growth from 4 to 64 dimensions (time(64) / time(4))");
    for kind in DomainKind::ALL {
        let row: Vec<String> = OPS
            .iter()
            .map(|op| format!("{:>8.1}", get(kind, 64, op) / get(kind, 4, op)))
            .collect();
        println!("{:>11} {}", kind.name(), row.join(""));
    }
    println!("wrote {out}");
}
