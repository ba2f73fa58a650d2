//! The PPL operation budget, carried by each value: an exponential conversion
//! is cut off with `Timeout`, and a value being updated in place falls back to
//! top instead of a half-updated state.

use dizy_domains::{
    ConstraintKind, Dim, DomainError, LinConstraint, LinExpr, NumDomain, Polyhedra,
};

/// The unit hypercube in `n` dimensions: 2ⁿ vertices for PPL to enumerate.
fn hypercube(n: usize, budget: u64) -> Polyhedra {
    let mut d = Polyhedra::top_budgeted(n, budget).unwrap();
    for i in 0..n {
        let x = LinExpr::var(Dim::new(i));
        d.meet_constraint(&LinConstraint::new(x.clone(), ConstraintKind::Ge))
            .unwrap();
        d.meet_constraint(&LinConstraint::new(
            x.checked_add_constant(-1).unwrap(),
            ConstraintKind::Le,
        ))
        .unwrap();
    }
    d
}

#[test]
fn budget_cuts_exponential_work_soundly() {
    let n = 12;
    let shape = |budget| {
        let a = hypercube(n, budget);
        let mut b = hypercube(n, budget);
        b.assign_linear(
            Dim::new(0),
            &LinExpr::from_terms(&[(1, Dim::new(0))], 5).unwrap(),
        )
        .unwrap();
        (a, b)
    };
    let (a, b) = shape(2_000);
    let joined = a.join(&b);
    let mut c = hypercube(n, 2_000);
    let forgot = c.forget(Dim::new(3));
    assert_eq!(joined.err(), Some(DomainError::Timeout));
    assert_eq!(forgot, Err(DomainError::Timeout));
    // The in-place update left a sound value: top, not something smaller.
    assert!(c.is_top().unwrap());
    assert_eq!(c.dims(), n);
    // Values derived from a budgeted one keep its budget.
    assert_eq!(a.clone().join(&b).err(), Some(DomainError::Timeout));
    // Without a budget the same work completes.
    let (a, b) = shape(0);
    let j = a.join(&b).unwrap();
    assert!(a.leq(&j).unwrap() && b.leq(&j).unwrap());
}

/// A query PPL interrupts (its representations are updated lazily, even by `const` calls) may
/// leave the object inconsistent, and a later call on it crashed (seen on the libc corpus: a
/// segmentation fault in PPL's saturation matrices after an interrupted emptiness test). The
/// value is replaced by top instead: later operations work on it, and it claims nothing.
#[test]
fn an_interrupted_query_leaves_top_not_a_broken_object() {
    let n = 12;
    let a = hypercube(n, 2_000);
    let mut b = hypercube(n, 2_000);
    b.assign_linear(
        Dim::new(0),
        &LinExpr::from_terms(&[(1, Dim::new(0))], 5).unwrap(),
    )
    .unwrap();
    // Inclusion between two pending hypercubes needs their generators: 2^12 vertices each.
    assert_eq!(b.leq(&a).err(), Some(DomainError::Timeout));
    // Both operands are now the universe, and everything still runs on them (under the same
    // small budget, an operation may still run out: then it says so, it does not crash).
    for v in [&a, &b] {
        assert!(v.is_top().unwrap());
        assert_eq!(v.dims(), n);
        let x = LinExpr::var(Dim::new(1));
        match v.bounds(&x) {
            Ok(bounds) => {
                assert!(!bounds.is_empty() && bounds.upper == dizy_domains::Bound::PosInf)
            }
            Err(e) => assert_eq!(e, DomainError::Timeout),
        }
        let mut w = v.clone();
        if w.meet_constraint(&LinConstraint::new(x, ConstraintKind::Le))
            .is_ok()
        {
            assert!(!w.is_bottom().unwrap_or(false));
            assert!(w.leq(v).unwrap_or(true));
        }
        assert!(w.join(v).is_ok() || w.join(v).err() == Some(DomainError::Timeout));
    }
}

/// BHRZ03's evolving-points step is quadratic in the operands' vertices and PPL's budget does
/// not interrupt it (a fuzz pair spent 30 s and 5 GB in it). Operands whose generators are that
/// large are widened with H79: the result must still be an upper bound of both, drop the
/// growing bound and keep the stable ones.
#[test]
fn widening_large_polyhedra_stays_an_upper_bound() {
    let n = 13; // 2^13 vertices each: above the BHRZ03 size limit
    let older = hypercube(n, 0);
    let mut newer = hypercube(n, 0);
    newer
        .meet_constraint(&LinConstraint::new(
            LinExpr::var(Dim::new(0)),
            ConstraintKind::Ge,
        ))
        .unwrap();
    // x0 in [0, 2] in `newer`: the join of the cube and its shift by 1 along x0.
    let mut shifted = hypercube(n, 0);
    shifted
        .assign_linear(
            Dim::new(0),
            &LinExpr::from_terms(&[(1, Dim::new(0))], 1).unwrap(),
        )
        .unwrap();
    let newer = newer.join(&shifted).unwrap();
    let w = older.widen(&newer).unwrap();
    assert!(older.leq(&w).unwrap() && newer.leq(&w).unwrap());
    let b0 = w.bounds(&LinExpr::var(Dim::new(0))).unwrap();
    assert_eq!(b0.upper, dizy_domains::Bound::PosInf);
    let b1 = w.bounds(&LinExpr::var(Dim::new(1))).unwrap();
    assert_eq!(b1.upper, dizy_domains::Bound::Finite(1.into()));
    assert_eq!(b1.lower, dizy_domains::Bound::Finite(0.into()));
}

/// The native octagons count a closure from scratch (`4n³` cell updates) against the same
/// budget: past it a meet fails with `Timeout`, and a widened value closed in place by the
/// next operation is left at top, which still contains every point.
#[test]
fn octagon_budget_bounds_cubic_closures_soundly() {
    use dizy_domains::NativeOctagons;
    let n = 20; // 4·20³ = 32,000 cell updates per closure
    let x = |i: usize| LinExpr::var(Dim::new(i));
    let chain = |budget| {
        let mut d = NativeOctagons::top_budgeted(n, budget).unwrap();
        for i in 0..n - 1 {
            let e = x(i).checked_sub(&x(i + 1)).unwrap();
            d.meet_constraint(&LinConstraint::new(e, ConstraintKind::Le))
                .unwrap();
        }
        d
    };
    // The other side bounds every variable: too many lowered to close them one by one.
    let bounded = |budget| {
        let mut d = NativeOctagons::top_budgeted(n, budget).unwrap();
        for i in 0..n {
            let e = x(i).checked_add_constant(-(i as i128)).unwrap();
            d.meet_constraint(&LinConstraint::new(e, ConstraintKind::Le))
                .unwrap();
        }
        d
    };
    let a = chain(10_000);
    assert_eq!(a.meet(&bounded(10_000)).unwrap_err(), DomainError::Timeout);
    // Unbounded and generous budgets close; a meet that lowers one variable is incremental.
    assert!(chain(0).meet(&bounded(0)).is_ok());
    assert!(chain(40_000).meet(&bounded(40_000)).is_ok());
    let mut one = chain(10_000);
    one.meet_constraint(&LinConstraint::new(
        x(5).checked_add_constant(-3).unwrap(),
        ConstraintKind::Le,
    ))
    .unwrap();
    let met = a.meet(&one).unwrap();
    // x0 ≤ x1 ≤ … ≤ x5 ≤ 3.
    assert!(met
        .entails(&LinConstraint::new(
            x(0).checked_add_constant(-3).unwrap(),
            ConstraintKind::Le
        ))
        .unwrap());
    // A widening's result is closed by the next in-place operation: past the budget, top.
    let mut grown = chain(10_000);
    grown
        .assign_linear(Dim::new(0), &x(0).checked_add_constant(1).unwrap())
        .unwrap();
    let mut w = a.widen(&grown).unwrap();
    assert_eq!(w.forget(Dim::new(3)).unwrap_err(), DomainError::Timeout);
    assert!(w.is_top().unwrap());
}
