//! One property-test suite, instantiated for every backend.
//!
//! Abstract values are built from random constraints over 3 integer
//! dimensions inside the box `[-B, B]³`. Their concrete sets are computed by
//! brute force (enumerating the box), so every transformer can be checked
//! for soundness: apply the concrete operation to each concrete point and
//! require the image to lie in the abstract result. Lattice laws and
//! widening termination are checked on the same values.

use dizy_domains::{
    AnyDomain, ConstraintKind, Dim, DomainKind, Expr, LinConstraint, LinExpr, NumDomain, Rat,
};
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;

const N: usize = 3;
const B: i128 = 3;

type Point = Vec<i128>;
type Spec = Vec<LinConstraint>;
type TestResult = Result<(), TestCaseError>;

fn err(e: dizy_domains::DomainError) -> TestCaseError {
    TestCaseError::fail(format!("domain error: {e}"))
}

/// 40 cases per property by default (the whole suite then runs in about a
/// second); `PROPTEST_CASES=N` overrides for longer runs.
fn cfg() -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(40);
    ProptestConfig {
        cases,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

// ---------------------------------------------------------------------------
// Generators

fn kind_strategy(with_ne: bool) -> BoxedStrategy<ConstraintKind> {
    use ConstraintKind::*;
    if with_ne {
        prop_oneof![Just(Le), Just(Lt), Just(Ge), Just(Gt), Just(Eq), Just(Ne)].boxed()
    } else {
        prop_oneof![4 => Just(Le), 2 => Just(Lt), 4 => Just(Ge), 2 => Just(Gt), 1 => Just(Eq)]
            .boxed()
    }
}

fn linexpr(coef: i128, cst: i128) -> impl Strategy<Value = LinExpr> {
    (prop::collection::vec(-coef..=coef, N), -cst..=cst).prop_map(|(cs, k)| {
        let terms: Vec<(i128, Dim)> = cs
            .into_iter()
            .enumerate()
            .map(|(d, a)| (a, Dim::new(d)))
            .collect();
        LinExpr::from_terms(&terms, k).expect("small coefficients")
    })
}

fn constraint(with_ne: bool) -> impl Strategy<Value = LinConstraint> {
    (linexpr(2, 6), kind_strategy(with_ne)).prop_map(|(e, k)| LinConstraint::new(e, k))
}

fn spec() -> impl Strategy<Value = Spec> {
    prop::collection::vec(constraint(false), 0..4)
}

fn expr() -> impl Strategy<Value = Expr> {
    let leaf = prop_oneof![
        4 => (-4i128..=4).prop_map(Expr::Const),
        6 => (0..N).prop_map(|d| Expr::Var(Dim::new(d))),
        1 => Just(Expr::Unknown),
        1 => Just(Expr::Range(Some(-2), Some(5))),
    ];
    leaf.prop_recursive(3, 12, 2, |inner| {
        prop_oneof![
            (inner.clone(), inner.clone()).prop_map(|(a, b)| Expr::add(a, b)),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| Expr::sub(a, b)),
            inner.clone().prop_map(Expr::neg),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| Expr::mul(a, b)),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| Expr::div(a, b)),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| Expr::rem(a, b)),
            (inner.clone(), inner).prop_map(|(a, b)| Expr::real_div(a, b)),
        ]
    })
}

// ---------------------------------------------------------------------------
// Concrete side

fn box_points() -> Vec<Point> {
    let mut out = vec![vec![]];
    for _ in 0..N {
        out = out
            .into_iter()
            .flat_map(|p| {
                (-B..=B).map(move |v| {
                    let mut q = p.clone();
                    q.push(v);
                    q
                })
            })
            .collect();
    }
    out
}

fn satisfies(p: &[i128], cs: &[LinConstraint]) -> bool {
    cs.iter()
        .all(|c| c.holds_at(p).expect("no overflow on small values"))
}

fn concrete(s: &Spec) -> Vec<Point> {
    box_points()
        .into_iter()
        .filter(|p| satisfies(p, s))
        .collect()
}

fn box_constraints() -> Vec<LinConstraint> {
    (0..N)
        .flat_map(|d| {
            [
                LinConstraint::new(
                    LinExpr::from_terms(&[(1, Dim::new(d))], -B).unwrap(),
                    ConstraintKind::Le,
                ),
                LinConstraint::new(
                    LinExpr::from_terms(&[(1, Dim::new(d))], B).unwrap(),
                    ConstraintKind::Ge,
                ),
            ]
        })
        .collect()
}

// ---------------------------------------------------------------------------
// Abstract side

fn build(kind: DomainKind, s: &Spec) -> Result<AnyDomain, TestCaseError> {
    let mut d = kind.top(N).map_err(err)?;
    d.meet_constraints(&box_constraints()).map_err(err)?;
    d.meet_constraints(s).map_err(err)?;
    Ok(d)
}

/// Fast membership through the extracted constraints (validated against
/// the meet-based `contains_point` by `membership_agrees`).
struct Member {
    bottom: bool,
    cs: Vec<LinConstraint>,
}

impl Member {
    fn of(d: &AnyDomain) -> Result<Member, TestCaseError> {
        Ok(Member {
            bottom: d.is_bottom().map_err(err)?,
            cs: d.constraints().map_err(err)?,
        })
    }
    fn has(&self, p: &[i128]) -> bool {
        !self.bottom && satisfies(p, &self.cs)
    }
}

fn require_all(d: &AnyDomain, pts: &[Point], what: &str) -> TestResult {
    let m = Member::of(d)?;
    for p in pts {
        prop_assert!(m.has(p), "{what}: concrete point {p:?} not in {d:?}");
    }
    Ok(())
}

fn leq(a: &AnyDomain, b: &AnyDomain) -> Result<bool, TestCaseError> {
    a.leq(b).map_err(err)
}

// ---------------------------------------------------------------------------
// Properties (generic over the backend)

fn p_meet_constraint_sound(kind: DomainKind, s: &Spec, c: &LinConstraint) -> TestResult {
    let a = build(kind, s)?;
    require_all(&a, &concrete(s), "build")?;
    let mut r = a.clone();
    r.meet_constraint(c).map_err(err)?;
    prop_assert!(leq(&r, &a)?, "meet_constraint must not grow the value");
    let pts: Vec<Point> = concrete(s)
        .into_iter()
        .filter(|p| c.holds_at(p) == Some(true))
        .collect();
    require_all(&r, &pts, "meet_constraint")?;
    // The exact split of a disequality (or any constraint).
    let pieces = a.meet_split(c).map_err(err)?;
    let members: Vec<Member> = pieces.iter().map(Member::of).collect::<Result<_, _>>()?;
    for piece in &pieces {
        prop_assert!(leq(piece, &a)?);
    }
    for p in &pts {
        prop_assert!(
            members.iter().any(|m| m.has(p)),
            "meet_split lost {p:?} for {c:?}"
        );
    }
    Ok(())
}

fn p_assign_linear_sound(kind: DomainKind, s: &Spec, d: usize, e: &LinExpr) -> TestResult {
    let mut a = build(kind, s)?;
    a.assign_linear(Dim::new(d), e).map_err(err)?;
    let img: Vec<Point> = concrete(s)
        .into_iter()
        .map(|mut p| {
            p[d] = e.eval(&p).unwrap();
            p
        })
        .collect();
    require_all(&a, &img, "assign_linear")
}

fn p_assign_expr_sound(kind: DomainKind, s: &Spec, d: usize, e: &Expr) -> TestResult {
    let mut a = build(kind, s)?;
    let before = a.dims();
    a.assign_expr(Dim::new(d), e).map_err(err)?;
    prop_assert_eq!(a.dims(), before, "fresh dimensions must be removed");
    let mut img = Vec::new();
    for p in concrete(s) {
        // Unknown/Range nodes: try several concrete choices.
        for pick in [-9i128, 0, 2, 13] {
            let mut choose = |lo: Option<i128>, hi: Option<i128>| {
                pick.clamp(lo.unwrap_or(i128::MIN), hi.unwrap_or(i128::MAX))
            };
            // None: division by zero (undefined behaviour), no image.
            if let Some(v) = e.eval(&p, &mut choose) {
                let mut q = p.clone();
                q[d] = v;
                img.push(q);
            }
        }
    }
    require_all(&a, &img, "assign_expr")
}

fn p_forget_sound(kind: DomainKind, s: &Spec, d: usize) -> TestResult {
    let mut a = build(kind, s)?;
    a.forget(Dim::new(d)).map_err(err)?;
    let img: Vec<Point> = concrete(s)
        .into_iter()
        .flat_map(|p| {
            [-100i128, 0, 57].map(|v| {
                let mut q = p.clone();
                q[d] = v;
                q
            })
        })
        .collect();
    require_all(&a, &img, "forget")
}

fn p_lattice(kind: DomainKind, s1: &Spec, s2: &Spec, ths: &[LinConstraint]) -> TestResult {
    let a = build(kind, s1)?;
    let b = build(kind, s2)?;
    let (ca, cb) = (concrete(s1), concrete(s2));
    let top = kind.top(N).map_err(err)?;
    let bot = kind.bottom(N).map_err(err)?;
    prop_assert!(leq(&a, &a)?, "leq reflexive");
    prop_assert!(a.equals(&a).map_err(err)?, "equals reflexive");
    prop_assert!(leq(&bot, &a)? && leq(&a, &top)?, "bottom <= a <= top");
    prop_assert!(bot.is_bottom().map_err(err)? && top.is_top().map_err(err)?);
    prop_assert!(!leq(&top, &bot)?);

    let j = a.join(&b).map_err(err)?;
    prop_assert!(leq(&a, &j)? && leq(&b, &j)?, "join is an upper bound");
    require_all(&j, &[ca.clone(), cb.clone()].concat(), "join")?;
    prop_assert!(
        a.join(&a).map_err(err)?.equals(&a).map_err(err)?,
        "join idempotent"
    );

    let m = a.meet(&b).map_err(err)?;
    prop_assert!(leq(&m, &a)? && leq(&m, &b)?, "meet is a lower bound");
    let both: Vec<Point> = ca.iter().filter(|p| cb.contains(p)).cloned().collect();
    require_all(&m, &both, "meet")?;

    let w = a.widen(&b).map_err(err)?;
    prop_assert!(leq(&a, &w)? && leq(&b, &w)?, "widening is an upper bound");
    prop_assert!(leq(&j, &w)?, "widening is above the join");
    let wt = a.widen_with_thresholds(&b, ths).map_err(err)?;
    prop_assert!(
        leq(&a, &wt)? && leq(&b, &wt)?,
        "threshold widening is an upper bound"
    );
    prop_assert!(leq(&wt, &w)?, "thresholds only add precision");
    require_all(&wt, &[ca, cb].concat(), "widen_with_thresholds")
}

/// An increasing chain y₀ ⊑ y₁ ⊑ … that grows without bound (boxes
/// `|xᵢ| ≤ k·sᵢ` cut by a relational constraint that moves out by `k`); the
/// widened sequence xₖ₊₁ = xₖ ∇ yₖ₊₁ must become stationary.
fn p_widening_stabilizes(kind: DomainKind, scale: &[i128], rel: &LinExpr) -> TestResult {
    let chain = |k: i128| -> Result<AnyDomain, TestCaseError> {
        let mut d = kind.top(N).map_err(err)?;
        for (i, &s) in scale.iter().enumerate() {
            let e = LinExpr::term(1, Dim::new(i));
            d.meet_constraint(&LinConstraint::new(
                e.checked_add_constant(-k * s).unwrap(),
                ConstraintKind::Le,
            ))
            .map_err(err)?;
            d.meet_constraint(&LinConstraint::new(
                e.checked_add_constant(k * s).unwrap(),
                ConstraintKind::Ge,
            ))
            .map_err(err)?;
        }
        let r = rel.checked_add_constant(-k).unwrap();
        d.meet_constraint(&LinConstraint::new(r, ConstraintKind::Le))
            .map_err(err)?;
        Ok(d)
    };
    let mut x = chain(1)?;
    let limit = 25;
    for k in 2..=limit + 1 {
        let y = chain(k)?;
        let prev = chain(k - 1)?;
        prop_assert!(leq(&prev, &y)?, "the test chain must increase");
        let next = x.widen(&y).map_err(err)?;
        prop_assert!(leq(&x, &next)?, "widening sequence increases");
        if leq(&next, &x)? {
            // Stationary: one more step must not move either.
            let again = next.widen(&chain(k + 1)?).map_err(err)?;
            prop_assert!(leq(&again, &next)?, "stabilised sequence moved again");
            return Ok(());
        }
        x = next;
    }
    prop_assert!(false, "widening did not stabilise within {limit} steps");
    Ok(())
}

fn p_queries_sound(kind: DomainKind, s: &Spec, e: &LinExpr, c: &LinConstraint) -> TestResult {
    let a = build(kind, s)?;
    let pts = concrete(s);
    // Bounds contain every concrete value.
    let b = a.bounds(e).map_err(err)?;
    for p in &pts {
        prop_assert!(
            b.contains(Rat::int(e.eval(p).unwrap())),
            "bounds {b} miss {p:?}"
        );
    }
    // Entailment only claims what holds everywhere.
    if a.entails(c).map_err(err)? {
        for p in &pts {
            prop_assert!(
                c.holds_at(p) == Some(true),
                "entails {c:?} but {p:?} violates it"
            );
        }
    }
    // … and exactly what the bounds of its expression decide (the PPL backends compute one
    // side only where that suffices).
    let bc = a.bounds(&c.expr).map_err(err)?;
    let want = bc.satisfies(c.kind);
    prop_assert_eq!(
        a.entails(c).map_err(err)?,
        want,
        "entails {:?} with bounds {}",
        c,
        bc
    );
    // Emptiness and integer points.
    if !pts.is_empty() {
        prop_assert!(
            !a.is_bottom().map_err(err)?,
            "non-empty set reported bottom"
        );
    }
    match a.integer_point().map_err(err)? {
        Some(p) => {
            prop_assert!(
                a.contains_point(&p).map_err(err)?,
                "integer point {p:?} outside"
            );
            prop_assert!(
                p.iter().all(|v| v.abs() <= B),
                "integer point outside the box"
            );
        }
        None => prop_assert!(
            pts.is_empty(),
            "no integer point found but {:?} exists",
            pts[0]
        ),
    }
    // Extracted constraints describe the same value: every concrete point
    // satisfies them, and rebuilding from them gives something included in
    // the original (equal up to integer tightening).
    let cs = a.constraints().map_err(err)?;
    for p in &pts {
        prop_assert!(satisfies(p, &cs), "extracted constraints exclude {p:?}");
    }
    let mut rebuilt = kind.top(N).map_err(err)?;
    rebuilt.meet_constraints(&cs).map_err(err)?;
    prop_assert!(leq(&rebuilt, &a)?, "rebuilt value larger than the original");
    require_all(&rebuilt, &pts, "rebuilt")?;
    if kind == DomainKind::Interval || a.is_bottom().map_err(err)? {
        prop_assert!(a.equals(&rebuilt).map_err(err)?);
    }
    let text = a.to_strings(&["x", "y", "z"]).map_err(err)?;
    prop_assert!(text.len() <= cs.len().max(1));
    if a.is_bottom().map_err(err)? {
        prop_assert_eq!(text, vec!["false".to_string()]);
    }
    Ok(())
}

/// With dimension 1 declared real the values describe more points (strict
/// constraints are closed, no integer tightening); the integer points must
/// still be kept by meets, assignments and joins.
fn p_real_dims_sound(
    kind: DomainKind,
    s: &Spec,
    c: &LinConstraint,
    e: &LinExpr,
    d: usize,
) -> TestResult {
    let mut a = kind.top(N).map_err(err)?;
    a.set_integer(Dim::new(1), false).map_err(err)?;
    a.meet_constraints(&box_constraints()).map_err(err)?;
    a.meet_constraints(s).map_err(err)?;
    prop_assert!(!a.is_integer(Dim::new(1)) && a.is_integer(Dim::new(0)));
    let pts = concrete(s);
    require_all(&a, &pts, "build (real dim)")?;
    let mut m = a.clone();
    m.meet_constraint(c).map_err(err)?;
    let kept: Vec<Point> = pts
        .iter()
        .filter(|p| c.holds_at(p) == Some(true))
        .cloned()
        .collect();
    require_all(&m, &kept, "meet (real dim)")?;
    let mut t = a.clone();
    t.assign_linear(Dim::new(d), e).map_err(err)?;
    let img: Vec<Point> = pts
        .iter()
        .map(|p| {
            let mut q = p.clone();
            q[d] = e.eval(p).unwrap();
            q
        })
        .collect();
    require_all(&t, &img, "assign (real dim)")?;
    let j = m.join(&t).map_err(err)?;
    prop_assert!(!j.is_integer(Dim::new(1)), "join keeps the real flag");
    require_all(&j, &[kept, img].concat(), "join (real dim)")
}

fn p_membership_agrees(kind: DomainKind, s: &Spec) -> TestResult {
    let a = build(kind, s)?;
    let m = Member::of(&a)?;
    for p in box_points().iter().step_by(5) {
        prop_assert_eq!(a.contains_point(p).map_err(err)?, m.has(p), "at {:?}", p);
    }
    Ok(())
}

fn p_dims_sound(kind: DomainKind, s: &Spec, perm: &[usize], drop: usize) -> TestResult {
    let a = build(kind, s)?;
    let pts = concrete(s);
    // Permutation: new dimension perm[i] is old i.
    let mut p1 = a.clone();
    let map: Vec<Option<Dim>> = perm.iter().map(|&t| Some(Dim::new(t))).collect();
    p1.map_dims(&map).map_err(err)?;
    let img: Vec<Point> = pts
        .iter()
        .map(|p| {
            let mut q = vec![0; N];
            for i in 0..N {
                q[perm[i]] = p[i];
            }
            q
        })
        .collect();
    require_all(&p1, &img, "map_dims")?;
    // Removal and projection drop a coordinate.
    let mut r = a.clone();
    r.remove_dims(&[Dim::new(drop)]).map_err(err)?;
    prop_assert_eq!(r.dims(), N - 1);
    let keep: Vec<Dim> = (0..N).filter(|&i| i != drop).map(Dim::new).collect();
    let pr = a.project(&keep).map_err(err)?;
    prop_assert!(r.equals(&pr).map_err(err)?, "remove_dims and project agree");
    let img: Vec<Point> = pts
        .iter()
        .map(|p| keep.iter().map(|&i| p[i.index()]).collect())
        .collect();
    require_all(&r, &img, "remove_dims")?;
    // Adding a dimension leaves it unconstrained.
    let mut ad = a.clone();
    ad.add_dims(1, true).map_err(err)?;
    let img: Vec<Point> = pts
        .iter()
        .flat_map(|p| {
            [-50i128, 7].map(|v| {
                let mut q = p.clone();
                q.push(v);
                q
            })
        })
        .collect();
    require_all(&ad, &img, "add_dims")
}

macro_rules! suite {
    ($name:ident, $kind:expr) => {
        mod $name {
            use super::*;
            const KIND: DomainKind = $kind;

            proptest! {
                #![proptest_config(cfg())]

                #[test]
                fn meet_constraint_sound(s in spec(), c in constraint(true)) {
                    p_meet_constraint_sound(KIND, &s, &c)?;
                }

                #[test]
                fn assign_linear_sound(s in spec(), d in 0..N, e in linexpr(3, 5)) {
                    p_assign_linear_sound(KIND, &s, d, &e)?;
                }

                #[test]
                fn assign_expr_sound(s in spec(), d in 0..N, e in expr()) {
                    p_assign_expr_sound(KIND, &s, d, &e)?;
                }

                #[test]
                fn forget_sound(s in spec(), d in 0..N) {
                    p_forget_sound(KIND, &s, d)?;
                }

                #[test]
                fn lattice_laws(a in spec(), b in spec(), t in prop::collection::vec(constraint(false), 0..3)) {
                    p_lattice(KIND, &a, &b, &t)?;
                }

                #[test]
                fn widening_stabilizes(scale in prop::collection::vec(1i128..4, N), rel in linexpr(2, 0)) {
                    p_widening_stabilizes(KIND, &scale, &rel)?;
                }

                #[test]
                fn queries_sound(s in spec(), e in linexpr(3, 4), c in constraint(true)) {
                    p_queries_sound(KIND, &s, &e, &c)?;
                }

                #[test]
                fn real_dims_sound(s in spec(), c in constraint(true), e in linexpr(3, 5), d in 0..N) {
                    p_real_dims_sound(KIND, &s, &c, &e, d)?;
                }

                #[test]
                fn membership_agrees(s in spec()) {
                    p_membership_agrees(KIND, &s)?;
                }

                #[test]
                fn dims_sound(s in spec(), perm in Just((0..N).collect::<Vec<_>>()).prop_shuffle(), drop in 0..N) {
                    p_dims_sound(KIND, &s, &perm, drop)?;
                }
            }
        }
    };
}

suite!(polyhedra, DomainKind::Polyhedra);
suite!(octagon, DomainKind::Octagon);
suite!(interval, DomainKind::Interval);
suite!(octagon_ppl, DomainKind::PplOctagon);

/// The checks above can fail: a deliberately wrong "transformer" (claiming
/// `x0 := x0 + 1` leaves the value unchanged) is caught by the same
/// soundness check, and a plain join chain does not stabilise.
#[test]
fn the_checks_can_fail() {
    let s: Spec = vec![];
    let a = build(DomainKind::Polyhedra, &s).unwrap();
    let img: Vec<Point> = concrete(&s)
        .into_iter()
        .map(|mut p| {
            p[0] += 1;
            p
        })
        .collect();
    assert!(require_all(&a, &img, "wrong").is_err());

    let scale = [1, 1, 1];
    let rel = LinExpr::var(Dim::new(0));
    // Plain joins in place of widening: never stationary on this chain.
    let mut x = build(DomainKind::Polyhedra, &vec![]).unwrap();
    x.meet_constraint(&LinConstraint::new(
        LinExpr::var(Dim::new(0)),
        ConstraintKind::Le,
    ))
    .unwrap();
    let mut grew = 0;
    for k in 1..=10i128 {
        let mut y = DomainKind::Polyhedra.top(N).unwrap();
        for (i, s) in scale.iter().enumerate() {
            y.meet_constraint(&LinConstraint::new(
                LinExpr::term(1, Dim::new(i))
                    .checked_add_constant(-k * s)
                    .unwrap(),
                ConstraintKind::Le,
            ))
            .unwrap();
        }
        y.meet_constraint(&LinConstraint::new(
            rel.checked_add_constant(-k).unwrap(),
            ConstraintKind::Le,
        ))
        .unwrap();
        let next = x.join(&y).unwrap();
        if !next.leq(&x).unwrap() {
            grew += 1;
        }
        x = next;
    }
    assert_eq!(grew, 10);
}
