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

/// `limit_work` re-bounds a value's later operations through `&self` (how the analysis ties
/// them to the time it has left), and a widening whose precise step runs out of its share
/// falls back to the standard one: under any bound the result is either `Timeout` or an upper
/// bound of both arguments.
#[test]
fn work_limits_set_later_and_widening_degrades_soundly() {
    let n = 8;
    let a = hypercube(n, 0);
    let mut b = hypercube(n, 0);
    b.assign_linear(
        Dim::new(0),
        &LinExpr::from_terms(&[(1, Dim::new(0))], 1).unwrap(),
    )
    .unwrap();
    a.limit_work(1);
    assert_eq!(a.join(&b).err(), Some(DomainError::Timeout));
    a.limit_work(0);
    let joined = a.join(&b).unwrap();
    let mut outcomes = (0, 0);
    for shift in 0..32 {
        a.limit_work(1 << shift);
        match a.widen(&b) {
            Ok(w) => {
                assert!(
                    joined.leq(&w).unwrap(),
                    "budget 2^{shift}: not an upper bound"
                );
                outcomes.1 += 1;
            }
            Err(e) => {
                assert_eq!(e, DomainError::Timeout);
                outcomes.0 += 1;
            }
        }
    }
    // Both regimes were exercised: tiny budgets fail, large ones succeed.
    assert!(outcomes.0 > 0 && outcomes.1 > 0, "{outcomes:?}");
}
