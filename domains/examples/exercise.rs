//! Exercises every backend and every kind of PPL object once, for
//! `scripts/valgrind-domains` (leak and memory-error check): transformers,
//! join/meet/widening (with thresholds), MIP integer points, constraint
//! extraction, dimension changes, a MIP work-budget timeout and a PPL error.
//! Exits non-zero if a result is not the expected one.

use dizy_domains::{
    ppl, ConstraintKind, Dim, DomainError, DomainKind, Expr, LinConstraint, LinExpr, NumDomain,
};

fn c(terms: &[(i128, Dim)], k: i128, kind: ConstraintKind) -> LinConstraint {
    LinConstraint::new(LinExpr::from_terms(terms, k).expect("small"), kind)
}

fn run(kind: DomainKind) -> Result<Vec<String>, DomainError> {
    let (x, xp, y, i) = (Dim::new(0), Dim::new(1), Dim::new(2), Dim::new(3));
    let names = ["x", "x'", "y", "i"];
    let mut d = kind.top(4)?;
    d.meet_constraints(&[
        c(&[(1, x)], 0, ConstraintKind::Ge),
        c(&[(1, x)], -10, ConstraintKind::Le),
        c(&[(1, x), (-1, xp)], 0, ConstraintKind::Eq),
        c(&[(1, y), (-1, x)], -3, ConstraintKind::Le),
        c(&[(1, i)], 0, ConstraintKind::Eq),
    ])?;
    d.assign_linear(x, &LinExpr::from_terms(&[(1, x)], 1).expect("small"))?;
    d.assign_linear(xp, &LinExpr::from_terms(&[(1, xp)], 1).expect("small"))?;
    d.assign_expr(
        y,
        &Expr::add(Expr::mul(Expr::var(x), Expr::var(xp)), Expr::Unknown),
    )?;
    d.assign_expr(y, &Expr::rem(Expr::var(x), Expr::constant(3)))?;
    // A loop head: i counts to 50, widened with and without a threshold.
    let mut head = d.clone();
    for _ in 0..4 {
        let mut body = head.clone();
        body.meet_constraint(&c(&[(1, i)], -50, ConstraintKind::Lt))?;
        body.assign_linear(i, &LinExpr::from_terms(&[(1, i)], 1).expect("small"))?;
        let plain = head.widen(&body)?;
        head = head.widen_with_thresholds(&body, &[c(&[(1, i)], -50, ConstraintKind::Le)])?;
        assert!(head.leq(&plain)?);
    }
    let met = head.meet(&d)?;
    assert!(met.leq(&head)?);
    let pieces = head.meet_split(&c(&[(1, i)], -7, ConstraintKind::Ne))?;
    assert_eq!(pieces.len(), 2);
    let kept = head.entails(&c(&[(1, x), (-1, xp)], 0, ConstraintKind::Eq))?;
    assert_eq!(kept, kind != DomainKind::Interval);
    let point = head.integer_point()?.expect("non-empty");
    assert!(head.contains_point(&point)?);
    let b = head.bounds(&LinExpr::var(i))?;
    let mut p = head.project(&[i, x])?;
    p.add_dims(1, false)?;
    p.map_dims(&[Some(Dim::new(2)), Some(Dim::new(0)), Some(Dim::new(1))])?;
    p.remove_dims(&[Dim::new(0)])?;
    let mut out = head.to_strings(&names)?;
    out.push(format!(
        "i in {b}, point {point:?}, projected {:?}",
        p.to_strings(&["i", "x"])?
    ));
    Ok(out)
}

fn main() {
    let mut ok = true;
    for kind in DomainKind::ALL {
        match run(kind) {
            Ok(lines) => println!("{kind}: {}", lines.join("; ")),
            Err(e) => {
                println!("{kind}: unexpected error: {e}");
                ok = false;
            }
        }
    }
    // Error paths: PPL's own length check, and the MIP work budget on a
    // problem with rational but no integer points (2x - 2y = 1 over reals).
    match ppl::provoke_error() {
        Err(e @ DomainError::Ppl { .. }) => println!("PPL error path: {e}"),
        other => {
            println!("expected a PPL error, got {other:?}");
            ok = false;
        }
    }
    let mip = (|| -> Result<Option<Vec<i128>>, DomainError> {
        let (x, y) = (Dim::new(0), Dim::new(1));
        let mut d = DomainKind::Polyhedra.top(2)?;
        d.set_integer(x, false)?;
        d.meet_constraint(&c(&[(2, x), (-2, y)], -1, ConstraintKind::Eq))?;
        d.integer_point()
    })();
    match mip {
        Err(DomainError::Timeout) | Ok(None) => println!("MIP without integer points: {mip:?}"),
        other => {
            println!("unexpected MIP result {other:?}");
            ok = false;
        }
    }
    std::process::exit(if ok { 0 } else { 1 });
}
