//! The interface around the lattice: choosing a backend by name, errors
//! instead of panics, dimension management, PPL from several threads.

use dizy_domains::{
    make_domain, ppl, AnyDomain, ConstraintKind, Dim, DomainError, DomainKind, Expr, LinConstraint,
    LinExpr, NumDomain, Polyhedra,
};

/// `Σ a·x_d + k ⋈ 0` from `(a, d)` pairs with plain dimension indices.
fn cons(terms: &[(i128, usize)], k: i128, kind: ConstraintKind) -> LinConstraint {
    let terms: Vec<(i128, Dim)> = terms.iter().map(|&(a, d)| (a, Dim::new(d))).collect();
    LinConstraint::new(LinExpr::from_terms(&terms, k).unwrap(), kind)
}

#[test]
fn backends_by_name() {
    for name in ["polyhedra", "octagon", "interval"] {
        let d = make_domain(name, 4).unwrap();
        assert_eq!(d.kind().name(), name);
        assert_eq!(d.dims(), 4);
        assert!(d.is_top().unwrap());
        assert!((0..4).all(|i| d.is_integer(Dim::new(i))));
        assert_eq!(name.parse::<DomainKind>().unwrap(), d.kind());
    }
    match make_domain("apron", 1) {
        Err(DomainError::UnknownBackend(n)) => assert_eq!(n, "apron"),
        other => panic!("{other:?}"),
    }
    let msg = make_domain("box", 1).unwrap_err().to_string();
    assert!(
        msg.contains("polyhedra, octagon, interval, octagon-ppl"),
        "{msg}"
    );
}

#[test]
fn misuse_is_an_error_not_a_panic() {
    let p = make_domain("polyhedra", 2).unwrap();
    let o = make_domain("octagon", 2).unwrap();
    assert!(matches!(p.join(&o), Err(DomainError::KindMismatch { .. })));
    let p3 = make_domain("polyhedra", 3).unwrap();
    assert!(matches!(p.join(&p3), Err(DomainError::DimMismatch { .. })));
    for kind in DomainKind::ALL {
        let mut d = kind.top(2).unwrap();
        let out = cons(&[(1, 5)], 0, ConstraintKind::Le);
        assert!(matches!(
            d.meet_constraint(&out),
            Err(DomainError::DimOutOfRange { dim, dims: 2 }) if dim == Dim::new(5)
        ));
        assert!(d
            .assign_linear(Dim::new(2), &LinExpr::var(Dim::new(0)))
            .is_err());
        assert!(d.assign_expr(Dim::new(0), &Expr::var(Dim::new(9))).is_err());
        assert!(d.forget(Dim::new(7)).is_err());
        assert!(d.bounds(&LinExpr::var(Dim::new(3))).is_err());
        assert!(d.remove_dims(&[Dim::new(4)]).is_err());
        assert!(d.map_dims(&[Some(Dim::new(0)), Some(Dim::new(0))]).is_err());
        assert!(d.map_dims(&[Some(Dim::new(1)), Some(Dim::new(2))]).is_err());
        assert!(d.map_dims(&[Some(Dim::new(0))]).is_err());
        assert!(d.project(&[Dim::new(0), Dim::new(0)]).is_err());
        assert!(d.contains_point(&[1]).is_err());
        assert!(d.set_integer(Dim::new(2), false).is_err());
        // Still usable afterwards.
        assert!(d.is_top().unwrap());
    }
    assert!(make_domain("interval", usize::MAX).is_err());
}

#[test]
fn ppl_errors_become_results() {
    match ppl::provoke_error() {
        Err(DomainError::Ppl { code, message }) => {
            assert!(code < 0);
            assert!(message.starts_with("length error"), "{message}");
        }
        other => panic!("expected a PPL error, got {other:?}"),
    }
    assert!(Polyhedra::top(usize::MAX - 1).is_err());
    assert!(make_domain("octagon", usize::MAX / 4).is_err());
}

#[test]
fn dimension_management_keeps_relations() {
    // x0 = x1 + 1, x2 ≥ 5
    for kind in DomainKind::ALL {
        let mut d = kind.top(3).unwrap();
        d.meet_constraint(&cons(&[(1, 2)], -5, ConstraintKind::Ge))
            .unwrap();
        d.meet_constraint(&cons(&[(1, 1)], 0, ConstraintKind::Eq))
            .unwrap();
        d.meet_constraint(&cons(&[(1, 0), (-1, 1)], -1, ConstraintKind::Eq))
            .unwrap();
        // Swap x0 and x2.
        let mut s = d.clone();
        s.map_dims(&[Some(Dim::new(2)), Some(Dim::new(1)), Some(Dim::new(0))])
            .unwrap();
        assert!(s.entails(&cons(&[(1, 2)], -1, ConstraintKind::Eq)).unwrap());
        assert!(s.entails(&cons(&[(1, 0)], -5, ConstraintKind::Ge)).unwrap());
        // Project onto (x2, x0): new x0 is old x2.
        let p = d.project(&[Dim::new(2), Dim::new(0)]).unwrap();
        assert_eq!(p.dims(), 2);
        assert_eq!(
            p.to_strings(&["z", "x"]).unwrap(),
            vec!["z >= 5", "x = 1"],
            "{kind}"
        );
        // Added dimensions are unconstrained and carry their integer flag.
        let mut a = d.clone();
        a.add_dims(2, false).unwrap();
        assert_eq!(a.dims(), 5);
        assert!(!a.is_integer(Dim::new(4)) && a.is_integer(Dim::new(2)));
        assert!(a.bounds(&LinExpr::var(Dim::new(4))).unwrap().lower == dizy_domains::Bound::NegInf);
        a.remove_dims(&[Dim::new(3), Dim::new(4), Dim::new(3)])
            .unwrap();
        assert!(a.equals(&d).unwrap());
    }
    // Relational: the relation survives renaming in polyhedra and octagons.
    for kind in [
        DomainKind::Polyhedra,
        DomainKind::Octagon,
        DomainKind::PplOctagon,
    ] {
        let mut d = kind.top(2).unwrap();
        d.meet_constraint(&cons(&[(1, 0), (-1, 1)], -1, ConstraintKind::Eq))
            .unwrap();
        d.map_dims(&[Some(Dim::new(1)), Some(Dim::new(0))]).unwrap();
        assert!(d
            .entails(&cons(&[(1, 1), (-1, 0)], -1, ConstraintKind::Eq))
            .unwrap());
    }
}

#[test]
fn any_domain_is_generic_over_backends() {
    fn count_pieces<D: NumDomain>(d: &D) -> usize {
        d.meet_split(&cons(&[(1, 0)], 0, ConstraintKind::Ne))
            .unwrap()
            .len()
    }
    let all: Vec<AnyDomain> = DomainKind::ALL.iter().map(|k| k.top(1).unwrap()).collect();
    for d in &all {
        assert_eq!(count_pieces(d), 2);
    }
}

#[test]
fn ppl_values_cross_threads() {
    // Values are Send + Sync; all PPL calls are serialised by one lock.
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<AnyDomain>();
    let shared = {
        let mut d = make_domain("polyhedra", 2).unwrap();
        d.meet_constraint(&cons(&[(1, 0), (-1, 1)], 0, ConstraintKind::Eq))
            .unwrap();
        std::sync::Arc::new(d)
    };
    let handles: Vec<_> = (0..4)
        .map(|t| {
            let shared = shared.clone();
            std::thread::spawn(move || {
                for i in 0..200 {
                    let mut d = (*shared).clone();
                    d.assign_linear(
                        Dim::new(0),
                        &LinExpr::from_terms(&[(1, Dim::new(0))], t + i).unwrap(),
                    )
                    .unwrap();
                    d.assign_linear(
                        Dim::new(1),
                        &LinExpr::from_terms(&[(1, Dim::new(1))], t + i).unwrap(),
                    )
                    .unwrap();
                    let j = d.join(&shared).unwrap();
                    assert!(j
                        .entails(&cons(&[(1, 0), (-1, 1)], 0, ConstraintKind::Eq))
                        .unwrap());
                    let kind = if i % 2 == 0 { "octagon" } else { "interval" };
                    let o = make_domain(kind, 3).unwrap();
                    drop(o);
                }
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
}

#[test]
fn extreme_numbers_do_not_panic_and_stay_sound() {
    let (min, max) = (i128::MIN, i128::MAX);
    for kind in DomainKind::ALL {
        let mut d = kind.top(2).unwrap();
        d.meet_constraint(&cons(&[(1, 0)], 0, ConstraintKind::Ge))
            .unwrap();
        d.meet_constraint(&cons(&[(1, 0)], -5, ConstraintKind::Le))
            .unwrap();
        // min·x1 + max ≤ 0 holds at x1 = 1; (0, 1) must stay inside.
        for c in [
            cons(&[(min, 1)], max, ConstraintKind::Le),
            cons(&[(min, 1), (min, 0)], max, ConstraintKind::Lt),
            cons(&[(max, 1), (1, 0)], min + 1, ConstraintKind::Ge),
            cons(&[(min, 1)], 0, ConstraintKind::Ne),
        ] {
            d.meet_constraint(&c).unwrap();
            let _ = d.meet_split(&c).unwrap();
            let _ = d.entails(&c).unwrap();
            let _ = c.to_text(&|i| format!("v{i}"));
        }
        assert!(d.contains_point(&[0, 1]).unwrap(), "{kind}: {d:?}");
        let mut a = d.clone();
        a.assign_linear(
            Dim::new(0),
            &LinExpr::from_terms(&[(max, Dim::new(1))], max).unwrap(),
        )
        .unwrap();
        a.assign_expr(
            Dim::new(1),
            &Expr::mul(Expr::var(Dim::new(0)), Expr::constant(max)),
        )
        .unwrap();
        a.assign_expr(
            Dim::new(1),
            &Expr::div(Expr::var(Dim::new(0)), Expr::constant(min)),
        )
        .unwrap();
        a.assign_expr(
            Dim::new(1),
            &Expr::rem(Expr::constant(min), Expr::constant(-1)),
        )
        .unwrap();
        let _ =
            a.bounds(&LinExpr::from_terms(&[(max, Dim::new(0)), (max, Dim::new(1))], min).unwrap());
        let _ = a.to_strings(&["x", "y"]).unwrap();
        let _ = a.integer_point();
        let _ = a.widen(&d.join(&a).unwrap()).unwrap();
    }
}

/// An integer-valued expression whose rational bounds lie strictly between two integers has no
/// integer value: every constraint on it is entailed, whichever side the backend computes first
/// (`x1 = 0`, `3·x0 = 2·x1 + 1` leaves only x0 = 1/3 among the rationals).
#[test]
fn entailment_sees_bounds_that_round_past_each_other() {
    use ConstraintKind::*;
    for kind in DomainKind::ALL {
        let mut d = kind.top(2).unwrap();
        d.meet_constraint(&cons(&[(1, 1)], 0, Eq)).unwrap();
        d.meet_constraint(&cons(&[(3, 0), (-2, 1)], -1, Eq))
            .unwrap();
        if d.is_bottom().unwrap() {
            continue; // a backend that tightens to integers first: nothing to decide
        }
        for k in [Le, Lt, Ge, Gt, Eq, Ne] {
            for c in [-5, 5] {
                let con = cons(&[(1, 0)], c, k);
                assert!(d.entails(&con).unwrap(), "{kind}: {con:?} on {d:?}");
            }
        }
    }
}
