//! The native octagons against PPL's, operation by operation.
//!
//! Random sequences of the operations both implement exactly (octagonal
//! constraints, `x := ±y + c`, `x := c`, havoc, join, meet, projection) run
//! on both backends. Over real dimensions both compute the rational closure,
//! so the results must describe the same set: every constraint of one is
//! entailed by the other, and every octagonal expression has the same bounds.
//! Over integer dimensions the native backend closes tightly (Bagnara, Hill,
//! Zaffanella) where PPL keeps rational bounds, so it may only be tighter:
//! it entails every constraint of PPL's result and its bounds lie inside.
//! Soundness against brute-forced concrete sets is `properties.rs`'s job.

use dizy_domains::{AnyDomain, ConstraintKind, Dim, DomainKind, LinConstraint, LinExpr, NumDomain};
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;

const N: usize = 4;

#[derive(Clone, Debug)]
enum Op {
    Meet(LinConstraint),
    Assign(usize, i128, usize, i128),
    Const(usize, i128),
    Forget(usize),
}

fn octagonal() -> impl Strategy<Value = LinConstraint> {
    use ConstraintKind::*;
    let kind = prop_oneof![Just(Le), Just(Lt), Just(Ge), Just(Gt), Just(Eq)];
    (
        0..N,
        0..N,
        prop_oneof![Just(1i128), Just(-1)],
        prop_oneof![Just(0i128), Just(1), Just(-1)],
        1i128..=2,
        -6i128..=6,
        kind,
    )
        .prop_map(|(u, w, su, sw, scale, c, kind)| {
            let terms = [(scale * su, Dim::new(u)), (scale * sw, Dim::new(w))];
            let e = LinExpr::from_terms(&terms, c).expect("small");
            LinConstraint::new(e, kind)
        })
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        5 => octagonal().prop_map(Op::Meet),
        2 => (0..N, prop_oneof![Just(1i128), Just(-1)], 0..N, -4i128..=4)
            .prop_map(|(x, s, y, c)| Op::Assign(x, s, y, c)),
        1 => (0..N, -5i128..=5).prop_map(|(x, c)| Op::Const(x, c)),
        1 => (0..N).prop_map(Op::Forget),
    ]
}

fn err(e: dizy_domains::DomainError) -> TestCaseError {
    TestCaseError::fail(format!("domain error: {e}"))
}

fn run(kind: DomainKind, real: bool, ops: &[Op]) -> Result<AnyDomain, TestCaseError> {
    let mut d = kind.top(N).map_err(err)?;
    if real {
        for i in 0..N {
            d.set_integer(Dim::new(i), false).map_err(err)?;
        }
    }
    for o in ops {
        match o {
            Op::Meet(c) => d.meet_constraint(c),
            Op::Assign(x, s, y, c) => {
                let e = LinExpr::from_terms(&[(*s, Dim::new(*y))], *c).expect("small");
                d.assign_linear(Dim::new(*x), &e)
            }
            Op::Const(x, c) => d.assign_linear(Dim::new(*x), &LinExpr::constant(*c)),
            Op::Forget(x) => d.forget(Dim::new(*x)),
        }
        .map_err(err)?;
    }
    Ok(d)
}

/// Every `±x`, `±x ± y` over the value's dimensions.
fn octagonal_exprs(n: usize) -> Vec<LinExpr> {
    let mut out = Vec::new();
    for u in 0..n {
        for su in [1, -1] {
            out.push(LinExpr::term(su, Dim::new(u)));
            for w in u + 1..n {
                for sw in [1, -1] {
                    out.push(
                        LinExpr::from_terms(&[(su, Dim::new(u)), (sw, Dim::new(w))], 0).unwrap(),
                    );
                }
            }
        }
    }
    out
}

/// `native` against `ppl`: the same set over the reals, at least as tight over the integers.
fn compare(
    native: &AnyDomain,
    ppl: &AnyDomain,
    real: bool,
    what: &str,
) -> Result<(), TestCaseError> {
    let nb = native.is_bottom().map_err(err)?;
    let pb = ppl.is_bottom().map_err(err)?;
    if real {
        prop_assert_eq!(
            nb,
            pb,
            "{}: emptiness, native {:?}, ppl {:?}",
            what,
            native,
            ppl
        );
    } else {
        prop_assert!(nb || !pb, "{}: PPL empty, native not: {:?}", what, native);
    }
    if nb || pb {
        return Ok(());
    }
    for c in ppl.constraints().map_err(err)? {
        prop_assert!(
            native.entails(&c).map_err(err)?,
            "{}: native {:?} misses {:?} of ppl {:?}",
            what,
            native,
            c,
            ppl
        );
    }
    for e in octagonal_exprs(native.dims()) {
        let (a, b) = (
            native.bounds(&e).map_err(err)?,
            ppl.bounds(&e).map_err(err)?,
        );
        if real {
            prop_assert_eq!(
                a,
                b,
                "{}: bounds of {:?}: native {:?}, ppl {:?}",
                what,
                e,
                native,
                ppl
            );
        } else {
            prop_assert!(
                b.lower <= a.lower && a.upper <= b.upper,
                "{}: bounds of {:?}: native {} outside ppl {}",
                what,
                e,
                a,
                b
            );
        }
    }
    if real {
        for c in native.constraints().map_err(err)? {
            prop_assert!(
                ppl.entails(&c).map_err(err)?,
                "{}: ppl {:?} misses {:?} of native {:?}",
                what,
                ppl,
                c,
                native
            );
        }
    }
    // The native constraint list describes the native value.
    let mut rebuilt = DomainKind::Octagon.top(native.dims()).map_err(err)?;
    if real {
        for i in 0..native.dims() {
            rebuilt.set_integer(Dim::new(i), false).map_err(err)?;
        }
    }
    rebuilt
        .meet_constraints(&native.constraints().map_err(err)?)
        .map_err(err)?;
    prop_assert!(
        rebuilt.equals(native).map_err(err)?,
        "{}: constraints of {:?} rebuild {:?}",
        what,
        native,
        rebuilt
    );
    Ok(())
}

fn check(real: bool, a: &[Op], b: &[Op], keep: &[usize]) -> Result<(), TestCaseError> {
    let (na, pa) = (
        run(DomainKind::Octagon, real, a)?,
        run(DomainKind::PplOctagon, real, a)?,
    );
    let (nb, pb) = (
        run(DomainKind::Octagon, real, b)?,
        run(DomainKind::PplOctagon, real, b)?,
    );
    compare(&na, &pa, real, "first")?;
    compare(&nb, &pb, real, "second")?;
    if real {
        // Join and meet are exact on equal inputs; over the integers the inputs may differ.
        compare(
            &na.join(&nb).map_err(err)?,
            &pa.join(&pb).map_err(err)?,
            real,
            "join",
        )?;
        compare(
            &na.meet(&nb).map_err(err)?,
            &pa.meet(&pb).map_err(err)?,
            real,
            "meet",
        )?;
        prop_assert_eq!(
            na.leq(&nb).map_err(err)?,
            pa.leq(&pb).map_err(err)?,
            "inclusion"
        );
    }
    let keep: Vec<Dim> = keep.iter().map(|&d| Dim::new(d)).collect();
    compare(
        &na.project(&keep).map_err(err)?,
        &pa.project(&keep).map_err(err)?,
        real,
        "projection",
    )?;
    Ok(())
}

fn cfg() -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(200);
    ProptestConfig {
        cases,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

fn keep() -> impl Strategy<Value = Vec<usize>> {
    Just((0..N).collect::<Vec<_>>())
        .prop_shuffle()
        .prop_flat_map(|v| (1..=N).prop_map(move |k| v[..k].to_vec()))
}

proptest! {
    #![proptest_config(cfg())]

    #[test]
    fn same_as_ppl_over_the_reals(a in prop::collection::vec(op(), 0..8), b in prop::collection::vec(op(), 0..8), k in keep()) {
        check(true, &a, &b, &k)?;
    }

    #[test]
    fn at_least_as_tight_as_ppl_over_the_integers(a in prop::collection::vec(op(), 0..8), b in prop::collection::vec(op(), 0..8), k in keep()) {
        check(false, &a, &b, &k)?;
    }
}

/// The comparison can fail: a value missing one of PPL's constraints is caught.
#[test]
fn the_comparison_can_fail() {
    let c = LinConstraint::new(
        LinExpr::from_terms(&[(1, Dim::new(0)), (-1, Dim::new(1))], -2).unwrap(),
        ConstraintKind::Le,
    );
    let native = run(DomainKind::Octagon, true, &[]).unwrap();
    let ppl = run(DomainKind::PplOctagon, true, &[Op::Meet(c)]).unwrap();
    assert!(compare(&native, &ppl, true, "test").is_err());
    assert!(compare(&native, &ppl, false, "test").is_err());
}
