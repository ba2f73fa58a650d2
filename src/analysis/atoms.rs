//! Propositional reasoning over comparisons the numeric domain cannot express.
//!
//! Takes a guard's condition and the sub-state it is evaluated in; gives, per branch, the
//! assignments of truth values to the condition's comparisons ("atoms") under which it takes
//! that branch, after the outcomes the sub-state already knows (`Defs::atoms`) are used. The
//! `SetGuard` transfer turns each assignment into a sub-state that remembers the outcomes, or
//! drops a branch no assignment reaches. This is what relates `if (x < 0.0 || a <= 0.0)` in one
//! version to `if (x < 0.0) …; if (a <= 0.0) …` in the other under IEEE, where floating
//! comparisons constrain nothing numerically: an atom of the other version is known when
//! congruence proves it the same comparison over equal operands (`Analyzer::same_atom`).

use crate::analysis::state::Ctx;
use crate::ir::{BinOp, Expr, ExprKind, LogicOp, UnOp};

/// Most atoms of unknown outcome one condition is split over (2^this assignments).
const MAX_UNKNOWN: usize = 3;
/// Most sub-states one branch may become; beyond, only the outcomes common to all are kept.
const MAX_PIECES: usize = 4;

/// Per branch (`[true, false]`), the outcome assignments (atom index, outcome) reaching it.
pub(super) type Branches = [Vec<Vec<(usize, bool)>>; 2];

/// A condition as a formula over atoms (indices into the list `formula` fills).
pub(super) enum Formula {
    Atom(usize),
    Const(bool),
    Not(Box<Formula>),
    And(Box<Formula>, Box<Formula>),
    Or(Box<Formula>, Box<Formula>),
}

/// `e` as a formula over comparisons (collected into `atoms`), or `None` if some part of it is
/// neither a comparison, a connective, a constant nor a guard of known value.
pub(super) fn formula(e: &Expr, atoms: &mut Vec<Expr>, ctx: &Ctx) -> Option<Formula> {
    Some(match &e.kind {
        ExprKind::Logic(op, a, b) => {
            let (x, y) = (formula(a, atoms, ctx)?, formula(b, atoms, ctx)?);
            match op {
                LogicOp::And => Formula::And(Box::new(x), Box::new(y)),
                LogicOp::Or => Formula::Or(Box::new(x), Box::new(y)),
            }
        }
        ExprKind::Unary(UnOp::LogNot, x) => Formula::Not(Box::new(formula(x, atoms, ctx)?)),
        ExprKind::Binary(
            BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge,
            ..,
        ) => {
            let k = match atoms.iter().position(|a| a == e) {
                Some(k) => k,
                None => {
                    atoms.push(e.clone());
                    atoms.len() - 1
                }
            };
            Formula::Atom(k)
        }
        ExprKind::Int(n) => Formula::Const(*n != 0),
        ExprKind::Guard(g) => Formula::Const(*ctx.get(g)?),
        _ => return None,
    })
}

fn eval(f: &Formula, vals: &[bool]) -> bool {
    match f {
        Formula::Atom(k) => vals[*k],
        Formula::Const(b) => *b,
        Formula::Not(x) => !eval(x, vals),
        Formula::And(x, y) => eval(x, vals) && eval(y, vals),
        Formula::Or(x, y) => eval(x, vals) || eval(y, vals),
    }
}

/// Per branch (`[true, false]`), the assignments of outcomes to atoms that reach it, one per
/// sub-state to make: every atom's outcome, or (beyond [`MAX_PIECES`]) one assignment of the
/// outcomes all of them share. `known`: outcomes the sub-state already knows. `None` when too
/// many atoms are unknown to enumerate.
pub(super) fn branches(f: &Formula, known: &[Option<bool>]) -> Option<Branches> {
    let unknown: Vec<usize> = (0..known.len()).filter(|&k| known[k].is_none()).collect();
    if unknown.len() > MAX_UNKNOWN {
        return None;
    }
    let mut out: [Vec<Vec<bool>>; 2] = [vec![], vec![]];
    for bits in 0u32..(1 << unknown.len()) {
        let mut vals: Vec<bool> = known.iter().map(|k| k.unwrap_or(false)).collect();
        for (i, &k) in unknown.iter().enumerate() {
            vals[k] = bits & (1 << i) != 0;
        }
        let branch = if eval(f, &vals) { 0 } else { 1 };
        out[branch].push(vals);
    }
    Some(out.map(|assignments| {
        if assignments.len() <= MAX_PIECES {
            assignments
                .into_iter()
                .map(|v| v.into_iter().enumerate().collect())
                .collect()
        } else {
            // The outcomes every assignment agrees on.
            let first = assignments[0].clone();
            let common: Vec<(usize, bool)> = first
                .into_iter()
                .enumerate()
                .filter(|&(k, b)| assignments.iter().all(|a| a[k] == b))
                .collect();
            vec![common]
        }
    }))
}
