//! The PPL operation budget (process-wide, hence its own test binary):
//! an exponential conversion is cut off with `Timeout`, and a value being
//! updated in place falls back to top instead of a half-updated state.

use dizy_domains::{
    ppl, ConstraintKind, DomainError, LinConstraint, LinExpr, NumDomain, Polyhedra,
};

/// The unit hypercube in `n` dimensions: 2ⁿ vertices for PPL to enumerate.
fn hypercube(n: usize) -> Polyhedra {
    let mut d = Polyhedra::top(n).unwrap();
    for i in 0..n {
        let x = LinExpr::var(i);
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
    let a = hypercube(n);
    let mut b = hypercube(n);
    b.assign_linear(0, &LinExpr::from_terms(&[(1, 0)], 5).unwrap())
        .unwrap();
    ppl::set_operation_budget(Some(2_000));
    let joined = a.join(&b);
    let mut c = hypercube(n);
    let forgot = c.forget(3);
    ppl::set_operation_budget(None);
    assert_eq!(joined.err(), Some(DomainError::Timeout));
    assert_eq!(forgot, Err(DomainError::Timeout));
    // The in-place update left a sound value: top, not something smaller.
    assert!(c.is_top().unwrap());
    assert_eq!(c.dims(), n);
    // Without a budget the same work completes.
    let j = a.join(&b).unwrap();
    assert!(a.leq(&j).unwrap() && b.leq(&j).unwrap());
}
