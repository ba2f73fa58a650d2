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
