//! What each backend can and cannot keep: the relations dizy's correlating
//! domain depends on (`x' = x`, `j' = 5·i + c` across a rewritten loop,
//! `x ≤ y + 3`), and the loss of them in the interval backend.

use dizy_domains::{
    make_domain, AnyDomain, Bound, ConstraintKind, Dim, DomainKind, Expr, Intervals, LinConstraint,
    LinExpr, NativeOctagons, NumDomain, Octagons, Polyhedra,
};

/// `(a, d)` pairs with plain dimension indices, as `(a, Dim)` pairs.
fn dims(terms: &[(i128, usize)]) -> Vec<(i128, Dim)> {
    terms.iter().map(|&(a, d)| (a, Dim::new(d))).collect()
}

fn lin(terms: &[(i128, usize)], k: i128) -> LinExpr {
    LinExpr::from_terms(&dims(terms), k).unwrap()
}

fn cons(terms: &[(i128, usize)], k: i128, kind: ConstraintKind) -> LinConstraint {
    LinConstraint::new(lin(terms, k), kind)
}

const X: usize = 0;
const XP: usize = 1;

/// `x' = x`, `0 ≤ x ≤ 10`, then `x := x + 1; x' := x' + 1`.
fn tagged_increment<D: NumDomain>(mut d: D) -> D {
    d.meet_constraint(&cons(&[(1, X)], 0, ConstraintKind::Ge))
        .unwrap();
    d.meet_constraint(&cons(&[(1, X)], -10, ConstraintKind::Le))
        .unwrap();
    d.meet_constraint(&cons(&[(1, X), (-1, XP)], 0, ConstraintKind::Eq))
        .unwrap();
    d.assign_linear(Dim::new(X), &lin(&[(1, X)], 1)).unwrap();
    d.assign_linear(Dim::new(XP), &lin(&[(1, XP)], 1)).unwrap();
    d
}

fn x_eq_xp() -> LinConstraint {
    cons(&[(1, X), (-1, XP)], 0, ConstraintKind::Eq)
}

#[test]
fn polyhedra_keep_tagged_equality() {
    let d = tagged_increment(Polyhedra::top(2).unwrap());
    assert!(d.entails(&x_eq_xp()).unwrap());
    assert_eq!(
        d.to_strings(&["x", "x'"]).unwrap(),
        vec!["x <= 11", "x >= 1", "x' = x"]
    );
}

#[test]
fn octagons_keep_tagged_equality_and_difference_bounds() {
    octagon_keeps_tagged_equality_and_difference_bounds(Octagons::top(3).unwrap());
    octagon_keeps_tagged_equality_and_difference_bounds(NativeOctagons::top(3).unwrap());
}

fn octagon_keeps_tagged_equality_and_difference_bounds<D: NumDomain>(d: D) {
    let y = 2;
    let mut d = d;
    d.meet_constraint(&cons(&[(1, X), (-1, y)], -3, ConstraintKind::Le))
        .unwrap(); // x ≤ y + 3
    let mut d = tagged_increment(d);
    d.assign_linear(Dim::new(y), &lin(&[(1, y)], 1)).unwrap();
    let x_le_y3 = cons(&[(1, X), (-1, y)], -3, ConstraintKind::Le);
    assert!(d.entails(&x_eq_xp()).unwrap());
    assert!(d.entails(&x_le_y3).unwrap());
    // ... also through a join with a differently shifted state and a widening.
    let mut e = d.clone();
    e.assign_linear(Dim::new(X), &lin(&[(1, X)], 5)).unwrap();
    e.assign_linear(Dim::new(XP), &lin(&[(1, XP)], 5)).unwrap();
    e.assign_linear(Dim::new(y), &lin(&[(1, y)], 7)).unwrap();
    let w = d.widen(&d.join(&e).unwrap()).unwrap();
    assert!(w.entails(&x_eq_xp()).unwrap());
    assert!(w.entails(&x_le_y3).unwrap());
    assert!(!w
        .entails(&cons(&[(1, X)], -11, ConstraintKind::Le))
        .unwrap());
}

#[test]
fn intervals_lose_tagged_equality() {
    let d = tagged_increment(Intervals::top(2).unwrap());
    assert!(!d.entails(&x_eq_xp()).unwrap());
    // ... although each variable's range is right.
    assert!(d
        .entails(&cons(&[(1, X)], -11, ConstraintKind::Le))
        .unwrap());
    assert!(d
        .entails(&cons(&[(1, XP)], -1, ConstraintKind::Ge))
        .unwrap());
}

/// REVE-style loop rewrite. Old: `j := 5*i + c` computed after the loop;
/// new: `j' := j' + 5` in every iteration. Dimensions: i, c, n, j, j'.
#[test]
fn polyhedra_keep_strength_reduced_loop_relation() {
    let (i, c, n, j, jp) = (0, 1, 2, 3, 4);
    let rel = cons(&[(1, jp), (-5, i), (-1, c)], 0, ConstraintKind::Eq); // j' = 5i + c
    let mut head = Polyhedra::top(5).unwrap();
    head.meet_constraint(&cons(&[(1, i)], 0, ConstraintKind::Eq))
        .unwrap(); // i = 0
    head.assign_linear(Dim::new(jp), &lin(&[(1, c)], 0))
        .unwrap(); // j' := c
    assert!(head.entails(&rel).unwrap());

    // Iterate the loop head to a fixpoint: head ∇ (head ⊔ body(head)).
    let mut steps = 0;
    loop {
        let mut body = head.clone();
        body.meet_constraint(&cons(&[(1, i), (-1, n)], 0, ConstraintKind::Lt))
            .unwrap(); // i < n
        body.assign_linear(Dim::new(i), &lin(&[(1, i)], 1)).unwrap();
        body.assign_linear(Dim::new(jp), &lin(&[(1, jp)], 5))
            .unwrap();
        let next = head.widen(&head.join(&body).unwrap()).unwrap();
        assert!(
            next.entails(&rel).unwrap(),
            "lost j' = 5i + c at step {steps}"
        );
        steps += 1;
        if next.leq(&head).unwrap() {
            break;
        }
        head = next;
        assert!(steps < 10, "no fixpoint");
    }
    // Exit, then the old version's direct computation: j = j' follows.
    let mut exit = head.clone();
    exit.meet_constraint(&cons(&[(1, i), (-1, n)], 0, ConstraintKind::Ge))
        .unwrap();
    exit.assign_linear(Dim::new(j), &lin(&[(5, i), (1, c)], 0))
        .unwrap();
    assert!(exit
        .entails(&cons(&[(1, j), (-1, jp)], 0, ConstraintKind::Eq))
        .unwrap());
    assert!(exit
        .to_strings(&["i", "c", "n", "j", "j'"])
        .unwrap()
        .contains(&"j' = j".to_string()));
    // Octagons cannot express 5i: the same analysis loses the relation.
    let mut oct = Octagons::top(5).unwrap();
    oct.meet_constraint(&cons(&[(1, i)], 0, ConstraintKind::Eq))
        .unwrap();
    oct.assign_linear(Dim::new(jp), &lin(&[(1, c)], 0)).unwrap();
    let mut body = oct.clone();
    body.assign_linear(Dim::new(i), &lin(&[(1, i)], 1)).unwrap();
    body.assign_linear(Dim::new(jp), &lin(&[(1, jp)], 5))
        .unwrap();
    let w = oct.widen(&oct.join(&body).unwrap()).unwrap();
    assert!(!w.entails(&rel).unwrap());
}

#[test]
fn text_of_constraints() {
    let mut d = make_domain("polyhedra", 2).unwrap();
    d.meet_constraint(&x_eq_xp()).unwrap();
    d.meet_constraint(&cons(&[(1, X)], 0, ConstraintKind::Lt))
        .unwrap(); // x < 0 → x ≤ -1
    assert_eq!(
        d.to_strings(&["x", "x'"]).unwrap(),
        vec!["x <= -1", "x' = x"]
    );
    let bot = DomainKind::Octagon.bottom(2).unwrap();
    assert_eq!(bot.to_strings(&["x", "x'"]).unwrap(), vec!["false"]);
    let top = DomainKind::Interval.top(2).unwrap();
    assert!(top.to_strings(&["x", "x'"]).unwrap().is_empty());
}

#[test]
fn strict_inequalities_integer_and_real() {
    for kind in DomainKind::ALL {
        let mut d = kind.top(1).unwrap();
        d.meet_constraint(&cons(&[(1, 0)], -1, ConstraintKind::Lt))
            .unwrap(); // x < 1
        assert_eq!(
            d.bounds(&LinExpr::var(Dim::new(0))).unwrap().upper,
            Bound::int(0)
        );
        let mut r = kind.top(1).unwrap();
        r.set_integer(Dim::new(0), false).unwrap();
        r.meet_constraint(&cons(&[(1, 0)], -1, ConstraintKind::Lt))
            .unwrap();
        // Over the reals the closure x ≤ 1 is kept (sound).
        assert_eq!(
            r.bounds(&LinExpr::var(Dim::new(0))).unwrap().upper,
            Bound::int(1)
        );
    }
}

#[test]
fn disequality_splits_over_integers() {
    for kind in DomainKind::ALL {
        let mut d = kind.top(1).unwrap();
        d.meet_constraint(&cons(&[(1, 0)], 2, ConstraintKind::Ge))
            .unwrap();
        d.meet_constraint(&cons(&[(1, 0)], -2, ConstraintKind::Le))
            .unwrap();
        let ne = cons(&[(1, 0)], 0, ConstraintKind::Ne);
        let pieces = d.meet_split(&ne).unwrap();
        let ranges: Vec<String> = pieces
            .iter()
            .map(|p| p.bounds(&LinExpr::var(Dim::new(0))).unwrap().to_string())
            .collect();
        assert_eq!(ranges, vec!["[-2, -1]", "[1, 2]"], "{kind}");
        // The convex meet keeps the hull, and tightens a bound at 0.
        let mut hull = d.clone();
        hull.meet_constraint(&ne).unwrap();
        assert!(hull.equals(&d).unwrap());
        let mut half = d.clone();
        half.meet_constraint(&cons(&[(1, 0)], 0, ConstraintKind::Ge))
            .unwrap();
        half.meet_constraint(&ne).unwrap();
        assert_eq!(
            half.bounds(&LinExpr::var(Dim::new(0))).unwrap().to_string(),
            "[1, 2]"
        );
    }
}

#[test]
fn widening_with_thresholds_keeps_loop_bound() {
    // i := 0; while (i < 100) i++;   analysed with and without thresholds.
    let guard = cons(&[(1, 0)], -100, ConstraintKind::Lt);
    let threshold = cons(&[(1, 0)], -100, ConstraintKind::Le);
    for kind in DomainKind::ALL {
        for use_thresholds in [false, true] {
            let mut head = kind.top(1).unwrap();
            head.meet_constraint(&cons(&[(1, 0)], 0, ConstraintKind::Eq))
                .unwrap();
            let mut steps = 0;
            loop {
                let mut body = head.clone();
                body.meet_constraint(&guard).unwrap();
                body.assign_linear(Dim::new(0), &lin(&[(1, 0)], 1)).unwrap();
                let next = if use_thresholds {
                    head.widen_with_thresholds(&body, std::slice::from_ref(&threshold))
                } else {
                    head.widen(&body)
                }
                .unwrap();
                if next.leq(&head).unwrap() {
                    break;
                }
                head = next;
                steps += 1;
                assert!(steps < 10, "{kind}: no fixpoint");
            }
            let expected = if use_thresholds {
                "[0, 100]"
            } else {
                "[0, +oo]"
            };
            assert_eq!(
                head.bounds(&LinExpr::var(Dim::new(0))).unwrap().to_string(),
                expected,
                "{kind}"
            );
        }
    }
}

#[test]
fn non_linear_assignments() {
    let (x, y, z) = (0, 1, 2);
    for kind in DomainKind::ALL {
        let mut d = kind.top(3).unwrap();
        for (v, lo, hi) in [(y, 1, 3), (z, 2, 4)] {
            d.meet_constraint(&cons(&[(1, v)], -lo, ConstraintKind::Ge))
                .unwrap();
            d.meet_constraint(&cons(&[(1, v)], -hi, ConstraintKind::Le))
                .unwrap();
        }
        let bx = |d: &AnyDomain| d.bounds(&LinExpr::var(Dim::new(x))).unwrap().to_string();
        let mut m = d.clone();
        m.assign_expr(
            Dim::new(x),
            &Expr::mul(Expr::var(Dim::new(y)), Expr::var(Dim::new(z))),
        )
        .unwrap();
        assert_eq!(bx(&m), "[2, 12]", "{kind}");
        let mut q = d.clone();
        q.assign_expr(
            Dim::new(x),
            &Expr::div(Expr::constant(13), Expr::var(Dim::new(y))),
        )
        .unwrap();
        assert_eq!(bx(&q), "[4, 13]", "{kind}");
        let mut r = d.clone();
        r.assign_expr(
            Dim::new(x),
            &Expr::rem(Expr::var(Dim::new(z)), Expr::constant(3)),
        )
        .unwrap();
        assert_eq!(bx(&r), "[0, 2]", "{kind}");
        let mut u = d.clone();
        u.assign_expr(Dim::new(x), &Expr::Unknown).unwrap();
        assert!(u.equals(&d).unwrap());
        let mut t = d.clone();
        t.assign_expr(
            Dim::new(x),
            &Expr::add(Expr::var(Dim::new(y)), Expr::Range(Some(0), Some(9))),
        )
        .unwrap();
        assert_eq!(bx(&t), "[1, 12]", "{kind}");
        assert_eq!(t.dims(), 3);
    }
    // Relational backends keep x - y ∈ [0, 9] for x := y + unknown∈[0,9],
    // and 2x ≤ y ≤ 2x + 1 for x := y / 2 with y ≥ 0.
    for kind in [DomainKind::Polyhedra, DomainKind::Octagon] {
        let mut d = kind.top(2).unwrap();
        d.meet_constraint(&cons(&[(1, 1)], 0, ConstraintKind::Ge))
            .unwrap();
        let mut t = d.clone();
        t.assign_expr(
            Dim::new(0),
            &Expr::add(Expr::var(Dim::new(1)), Expr::Range(Some(0), Some(9))),
        )
        .unwrap();
        assert!(t
            .entails(&cons(&[(1, 0), (-1, 1)], -9, ConstraintKind::Le))
            .unwrap());
        assert!(t
            .entails(&cons(&[(1, 0), (-1, 1)], 0, ConstraintKind::Ge))
            .unwrap());
        if kind == DomainKind::Polyhedra {
            let mut h = d.clone();
            h.assign_expr(
                Dim::new(0),
                &Expr::div(Expr::var(Dim::new(1)), Expr::constant(2)),
            )
            .unwrap();
            assert!(h
                .entails(&cons(&[(2, 0), (-1, 1)], 0, ConstraintKind::Le))
                .unwrap());
            assert!(h
                .entails(&cons(&[(2, 0), (-1, 1)], 1, ConstraintKind::Ge))
                .unwrap());
        }
    }
}

#[test]
fn integer_points() {
    // 2x + 3y = 7, x, y ≥ 0: the only integer points are (2, 1).
    for kind in DomainKind::ALL {
        let mut d = kind.top(2).unwrap();
        d.meet_constraint(&cons(&[(2, 0), (3, 1)], -7, ConstraintKind::Eq))
            .unwrap();
        d.meet_constraint(&cons(&[(1, 0)], 0, ConstraintKind::Ge))
            .unwrap();
        d.meet_constraint(&cons(&[(1, 1)], 0, ConstraintKind::Ge))
            .unwrap();
        let p = d.integer_point().unwrap().expect("a point");
        assert!(d.contains_point(&p).unwrap(), "{kind}: {p:?}");
        if kind == DomainKind::Polyhedra {
            assert_eq!(p, vec![2, 1]);
        }
    }
    // Boxes pick the point closest to 0.
    let mut b = Intervals::top(2).unwrap();
    b.meet_constraint(&cons(&[(1, 0)], -5, ConstraintKind::Ge))
        .unwrap();
    b.meet_constraint(&cons(&[(1, 1)], 4, ConstraintKind::Le))
        .unwrap();
    assert_eq!(b.integer_point().unwrap(), Some(vec![5, -4]));
    // No integer point in a thin rational slab: 1 ≤ 3x ≤ 2 over the reals.
    let mut p = Polyhedra::top(1).unwrap();
    p.set_integer(Dim::new(0), false).unwrap();
    p.meet_constraint(&cons(&[(3, 0)], -1, ConstraintKind::Ge))
        .unwrap();
    p.meet_constraint(&cons(&[(3, 0)], -2, ConstraintKind::Le))
        .unwrap();
    assert!(!p.is_bottom().unwrap());
    assert_eq!(p.integer_point().unwrap(), None);
    // Big coordinates beyond i64 survive the GMP round trip.
    let big = i128::from(u64::MAX) + 5;
    let mut g = Polyhedra::top(1).unwrap();
    g.meet_constraint(&cons(&[(1, 0)], -big, ConstraintKind::Eq))
        .unwrap();
    assert_eq!(g.integer_point().unwrap(), Some(vec![big]));
    assert_eq!(g.to_strings(&["x"]).unwrap(), vec![format!("x = {big}")]);
}
