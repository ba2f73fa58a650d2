//! Δ at diff points and the verdict (DIZY §5.1).
//!
//! Takes the correlating program and the analysis fixpoint; gives, for every diff point, the
//! *equivalent* sub-states (with the input constraints under which they hold) and the
//! *differing* pieces `d ⊓ (v < v')`, `d ⊓ (v > v')` (which variables differ, and the
//! constraints over old, new and initial values), plus whether the function is proven
//! equivalent: Δ empty at every diff point. Effects (output, unknown calls) are compared
//! argument by argument before they happen, with the memory written so far; an effect only one
//! version may perform is a difference. Returns and the exit also compare the memory the
//! versions wrote through pointers (the analysis' memory layer).

use dizy_domains::{AnyDomain, ConstraintKind, Dim, LinConstraint, LinExpr, NumDomain};

use crate::analysis::{
    equal_exprs, eval_guard, pair_cells, reads_agree, Analysis, Soft, Sub, Tri, NEG_ZERO,
};
use crate::correlate::{Correlated, DiffKind, DiffPoint};
use crate::diag::Result;
use crate::gcl::InstrKind;
use crate::ir::{Expr, Place, Pos};
use crate::limits::Budget;

/// Sub-states at a diff point beyond which they are joined (Join-Equiv) before Δ is computed.
const MAX_STATE: usize = 256;

/// Values that may differ in one sub-state beyond which they are reported together instead of
/// one differing piece each.
const MAX_SPLIT: usize = 8;

/// Entries reported per diff point and kind before the rest is summarized.
const MAX_ENTRIES: usize = 24;

#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct EqState {
    /// Constraints over the inputs' initial values (`x₀ <= -1`); empty means "any input".
    pub constraints: Vec<String>,
}

#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct DiffState {
    /// What differs (`retval`, `argument 1 of printf`, `printf only in the new version`).
    pub vars: Vec<String>,
    /// Constraints over the differing variables (old and new) and the inputs.
    pub constraints: Vec<String>,
    /// The same piece projected onto the initial values of the inputs (a witness seed).
    pub inputs: Vec<String>,
    /// An integer point of the input projection, if one was found cheaply.
    pub seed: Option<Vec<(String, i128)>>,
}

#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct PointDelta {
    pub label: String,
    pub kind: DiffKind,
    pub old_line: u32,
    pub new_line: u32,
    pub compared: Vec<String>,
    pub reachable: bool,
    pub equivalent: Vec<EqState>,
    pub different: Vec<DiffState>,
    /// Entries left out beyond [`MAX_ENTRIES`].
    pub omitted: usize,
}

#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Delta {
    pub points: Vec<PointDelta>,
    /// Δ is empty everywhere.
    pub equivalent: bool,
}

pub fn compute(c: &Correlated, a: &Analysis, b: &Budget) -> Result<Delta> {
    let mut points = vec![];
    for d in &c.diff_points {
        points.push(point(c, a, d, b)?);
    }
    let equivalent = points.iter().all(|p| p.different.is_empty());
    Ok(Delta { points, equivalent })
}

struct Names<'a> {
    c: &'a Correlated,
    a: &'a Analysis,
    b: &'a Budget,
}

impl Names<'_> {
    fn dim(&self, d: Dim) -> String {
        self.a.dims.names[d.index()].clone()
    }
    fn input_dims(&self) -> Vec<Dim> {
        self.c
            .inputs
            .iter()
            .filter_map(|i| self.a.dims.of(i.copy))
            .collect()
    }
    /// Constraints of `data` restricted to `keep` (in the order given), as text.
    fn text(&self, data: &AnyDomain, keep: &[Dim]) -> Result<Vec<String>> {
        let mut keep: Vec<Dim> = keep.to_vec();
        keep.sort_unstable();
        keep.dedup();
        let names: Vec<String> = keep.iter().map(|&d| self.dim(d)).collect();
        // Printing needs a projection, which may run out of budget: then say so.
        let mut out = match data.project(&keep).and_then(|p| p.to_strings(&names)) {
            Ok(v) => v,
            Err(_) => return Ok(vec!["(constraints too large to print)".to_string()]),
        };
        // Bounds that only restate an input's C type say nothing.
        let f = self.c.product();
        out.retain(|txt| {
            !keep.iter().any(|&d| {
                match crate::analysis::type_range(self.a.dims.ty_of(&f.func, d)) {
                    Some((lo, hi)) => {
                        let n = &self.a.dims.names[d.index()];
                        *txt == format!("{n} >= {lo}") || *txt == format!("{n} <= {hi}")
                    }
                    None => false,
                }
            })
        });
        // Under IEEE a floating dimension is an encoding of identity, not a number: only its
        // equalities mean something to a reader (and `-0.0` has an encoding of its own).
        if self.a.semantics.floats == crate::analysis::Floats::Ieee {
            let floats: Vec<&str> = keep
                .iter()
                .filter(|&&d| self.a.dims.ty_of(&f.func, d).is_float())
                .map(|&d| self.a.dims.names[d.index()].as_str())
                .collect();
            let neg_zero = NEG_ZERO.to_string();
            out = out
                .into_iter()
                .filter(|txt| {
                    let toks: Vec<&str> = txt.split_whitespace().collect();
                    (toks.len() == 3 && toks[1] == "=")
                        || !toks.iter().any(|tok| floats.contains(tok))
                })
                .map(|txt| match txt.strip_suffix(&neg_zero) {
                    Some(head) if head.ends_with("= ") => format!("{head}-0.0"),
                    _ => txt,
                })
                .filter(|txt| !txt.contains(neg_zero.trim_start_matches('-')))
                .collect();
        }
        out.sort();
        Ok(out)
    }
    fn seed(&self, data: &AnyDomain) -> Option<Vec<(String, i128)>> {
        let keep = self.input_dims();
        let p = data.project(&keep).ok()?;
        let point = p.integer_point().ok()??;
        Some(
            keep.iter()
                .zip(point)
                .map(|(&d, v)| (self.dim(d).trim_end_matches('₀').to_string(), v))
                .collect(),
        )
    }
}

fn point(c: &Correlated, a: &Analysis, d: &DiffPoint, b: &Budget) -> Result<PointDelta> {
    let names = Names { c, a, b };
    let f = c.product();
    let compared: Vec<String> = d
        .pairs
        .iter()
        .map(|&k| f.func.var(c.pairs[k].old).name.clone())
        .collect();
    let mut out = PointDelta {
        label: d.label.clone(),
        kind: d.kind.clone(),
        old_line: d.old_line,
        new_line: d.new_line,
        compared,
        reachable: false,
        equivalent: vec![],
        different: vec![],
        omitted: 0,
    };
    let Some(state) = a.state(d.pos)?.cloned() else {
        return Ok(out);
    };
    // A huge state (e.g. `--canon none` with the cap lifted) is summarized first, so computing
    // Δ stays proportional to what a reader can use (an over-approximation: sound).
    let state = if state.len() > MAX_STATE {
        crate::analysis::canonize(
            state,
            crate::analysis::Canon::JoinEquiv,
            &a.dim_pairs,
            &[],
            b,
        )?
    } else {
        state
    };
    match d.kind {
        DiffKind::Return | DiffKind::Exit => {
            let pairs = compared_pairs(c, a, d);
            for s in &state {
                if d.kind == DiffKind::Return
                    && !(s.ctx.get(&c.old_ret) == Some(&true)
                        && s.ctx.get(&c.new_ret) == Some(&true))
                {
                    continue;
                }
                if s.data.s_is_bottom(b)? {
                    continue;
                }
                out.reachable = true;
                // Both versions reached the end of a non-void function without `return`: no
                // value to compare (a caller that uses it has undefined behaviour in both).
                let fell_off = d.kind == DiffKind::Exit
                    && s.ctx.get(&c.old_ret) == Some(&false)
                    && s.ctx.get(&c.new_ret) == Some(&false);
                // Exactly one version reached the end without `return`: it gives no value where
                // the other gives one, a difference whatever the values (the fallen-off one's
                // `retval` is uninitialized, so an "equal" piece would be an accident).
                let flag = |r| s.ctx.get(r).copied();
                let one_fell_off = d.kind == DiffKind::Exit
                    && matches!(
                        (flag(&c.old_ret), flag(&c.new_ret)),
                        (Some(false), Some(true)) | (Some(true), Some(false))
                    );
                if fell_off || one_fell_off {
                    let retval = c.old_retval.map(|v| f.func.var(v).name.clone());
                    let rest: Vec<Compared> = compared_pairs(c, a, d)
                        .into_iter()
                        .filter(|p| Some(&p.name) != retval.as_ref())
                        .collect();
                    let equal_before = out.equivalent.len();
                    compare_values(&names, s, &rest, &mut out)?;
                    if one_fell_off {
                        out.equivalent.truncate(equal_before);
                        let side = if flag(&c.old_ret) == Some(false) {
                            "old"
                        } else {
                            "new"
                        };
                        let inputs = names.input_dims();
                        out.different.push(DiffState {
                            vars: vec![format!(
                                "{} (the {side} version reaches the end without `return`)",
                                retval.as_deref().unwrap_or("retval")
                            )],
                            constraints: names.text(&s.data, &inputs)?,
                            inputs: names.text(&s.data, &inputs)?,
                            seed: names.seed(&s.data),
                        });
                    }
                } else {
                    compare_values(&names, s, &pairs, &mut out)?;
                }
                compare_memory(&names, s, &mut out)?;
            }
        }
        DiffKind::Output(_) | DiffKind::Effect(_) => {
            for s in &state {
                if s.data.s_is_bottom(b)? {
                    continue;
                }
                compare_effect(c, a, &names, d, s, &mut out)?;
            }
        }
    }
    dedupe(&mut out);
    Ok(out)
}

fn eq_constraint(x: Dim, y: Dim, kind: ConstraintKind) -> LinConstraint {
    LinConstraint::new(
        LinExpr::from_terms(&[(1, x), (-1, y)], 0).expect("small"),
        kind,
    )
}

/// One compared variable at a diff point: its name and its dimension pairs (one for a scalar,
/// one per cell for an aggregate), or `None` when its value is not tracked on both sides (an
/// untracked aggregate, a volatile variable, cells without a partner): then it may differ.
struct Compared {
    name: String,
    dims: Option<Vec<(Dim, Dim)>>,
}

fn compared_pairs(c: &Correlated, a: &Analysis, d: &DiffPoint) -> Vec<Compared> {
    let f = c.product();
    d.pairs
        .iter()
        .map(|&k| {
            let p = &c.pairs[k];
            let name = f.func.var(p.old).name.clone();
            let dims = if let (Some(x), Some(y)) = (a.dims.of(p.old), a.dims.of(p.new)) {
                Some(vec![(x, y)])
            } else if let (Some(x), Some(y)) = (a.dims.cells(p.old), a.dims.cells(p.new)) {
                let (cells, complete) = pair_cells(x, y);
                complete.then(|| cells.into_iter().map(|(x, y, _)| (x, y)).collect())
            } else {
                None
            };
            Compared { name, dims }
        })
        .collect()
}

fn compare_values(
    names: &Names<'_>,
    s: &Sub,
    pairs: &[Compared],
    out: &mut PointDelta,
) -> Result<()> {
    let inputs = names.input_dims();
    let untracked: Vec<String> = pairs
        .iter()
        .filter(|p| p.dims.is_none())
        .map(|p| format!("{} (not tracked)", p.name))
        .collect();
    let tracked: Vec<(&str, Dim, Dim)> = pairs
        .iter()
        .flat_map(|p| {
            p.dims
                .iter()
                .flatten()
                .map(move |&(x, y)| (p.name.as_str(), x, y))
        })
        .collect();
    if !untracked.is_empty() {
        // A value the domain does not follow may differ under any input.
        out.different.push(DiffState {
            vars: untracked.clone(),
            constraints: names.text(&s.data, &inputs)?,
            inputs: names.text(&s.data, &inputs)?,
            seed: names.seed(&s.data),
        });
    }
    // Pairs the sub-state proves equal stay equal in every piece of it: only the others can
    // differ (one entailment each, instead of one per pair and piece).
    let mut open: Vec<(Dim, Dim)> = vec![];
    for &(_, x, y) in &tracked {
        if !s
            .data
            .s_entails(&eq_constraint(x, y, ConstraintKind::Eq), names.b)?
            && !both_zeros(names, s, x, y)?
        {
            open.push((x, y));
        }
    }
    // The equivalent part.
    if untracked.is_empty() {
        let mut eq = s.data.clone();
        for &(x, y) in &open {
            eq.s_meet_constraint(&eq_constraint(x, y, ConstraintKind::Eq), names.b)?;
        }
        if !eq.s_is_bottom(names.b)? {
            out.equivalent.push(EqState {
                constraints: names.text(&eq, &inputs)?,
            });
        }
    }
    if open.len() > MAX_SPLIT {
        // Many values may differ at once (an array after a store at an unknown index): one
        // entry for all of them, constrained by the inputs only.
        let mut vars: Vec<String> = open.iter().map(|&(x, _)| names.dim(x)).collect();
        vars.dedup();
        out.different.push(DiffState {
            vars,
            constraints: names.text(&s.data, &inputs)?,
            inputs: names.text(&s.data, &inputs)?,
            seed: names.seed(&s.data),
        });
        return Ok(());
    }
    // The differing pieces. A floating value under IEEE semantics has no order in the domain
    // (its dimension only records identity): one piece, where equality is not entailed.
    let f = names.c.product();
    for &(x, y) in &open {
        let identity_only = names.a.semantics.floats == crate::analysis::Floats::Ieee
            && names.a.dims.ty_of(&f.func, x).is_float();
        let pieces: Vec<AnyDomain> = if identity_only {
            vec![s.data.clone()]
        } else {
            let mut v = vec![];
            for kind in [ConstraintKind::Lt, ConstraintKind::Gt] {
                let mut piece = s.data.clone();
                piece.s_meet_constraint(&eq_constraint(x, y, kind), names.b)?;
                v.push(piece);
            }
            v
        };
        for piece in pieces {
            if piece.s_is_bottom(names.b)? {
                continue;
            }
            let mut vars: Vec<String> = vec![];
            let mut keep = inputs.clone();
            for &(x2, y2) in &open {
                if !piece.s_entails(&eq_constraint(x2, y2, ConstraintKind::Eq), names.b)? {
                    let n2 = names.dim(x2);
                    if !vars.contains(&n2) {
                        vars.push(n2);
                    }
                    keep.push(x2);
                    keep.push(y2);
                }
            }
            out.different.push(DiffState {
                vars,
                constraints: names.text(&piece, &keep)?,
                inputs: names.text(&piece, &inputs)?,
                seed: names.seed(&piece),
            });
        }
    }
    Ok(())
}

/// Whether `x` and `y` are floating values each known to be `+0.0` or `-0.0` (under IEEE, a
/// dimension fixed at 0 or at [`NEG_ZERO`]): the same value as the report compares numbers.
fn both_zeros(names: &Names<'_>, s: &Sub, x: Dim, y: Dim) -> Result<bool> {
    let f = names.c.product();
    if names.a.semantics.floats != crate::analysis::Floats::Ieee
        || !names.a.dims.ty_of(&f.func, x).is_float()
    {
        return Ok(false);
    }
    let zero = |d: Dim| -> Result<bool> {
        let b = s.data.s_bounds(&LinExpr::var(d), names.b)?;
        Ok([0, NEG_ZERO].iter().any(|&z| {
            let z = dizy_domains::Bound::int(z);
            b.lower == z && b.upper == z
        }))
    };
    Ok(zero(x)? && zero(y)?)
}

/// Memory reached through pointers (the caller's buffers and structs) at a return or the
/// exit: the versions must have written the same bytes with the same values.
fn compare_memory(names: &Names<'_>, s: &Sub, out: &mut PointDelta) -> Result<()> {
    if s.mem.same() {
        return Ok(());
    }
    let inputs = names.input_dims();
    out.different.push(DiffState {
        vars: vec![MEMORY.to_string()],
        constraints: names.text(&s.data, &inputs)?,
        inputs: names.text(&s.data, &inputs)?,
        seed: names.seed(&s.data),
    });
    // The equivalent part printed for this sub-state holds for the values only.
    Ok(())
}

/// How Δ names memory written through pointers when it may differ.
pub const MEMORY: &str = "memory written through pointers";

/// The expressions an effect depends on: call arguments, or a store's address parts and value.
fn effect_exprs(k: &InstrKind) -> Vec<&Expr> {
    fn place<'a>(p: &'a Place, out: &mut Vec<&'a Expr>) {
        match p {
            Place::Var(_) => {}
            Place::Deref(e, _) => out.push(e),
            Place::Index(b, i, _) => {
                place(b, out);
                out.push(i);
            }
            Place::Field(b, ..) => place(b, out),
        }
    }
    let mut out = vec![];
    match k {
        InstrKind::Call { callee, args, .. } => {
            if let crate::ir::Callee::Indirect(e) = callee {
                out.push(e);
            }
            out.extend(args.iter());
        }
        InstrKind::Assign(p, v) => {
            place(p, &mut out);
            out.push(v);
        }
        _ => {}
    }
    out
}

fn compare_effect(
    c: &Correlated,
    a: &Analysis,
    names: &Names<'_>,
    d: &DiffPoint,
    s: &Sub,
    out: &mut PointDelta,
) -> Result<()> {
    let f = c.product();
    let what = match &d.kind {
        DiffKind::Output(n) | DiffKind::Effect(n) => n.clone(),
        _ => String::new(),
    };
    let guard =
        |pos: Option<Pos>| pos.map_or(Tri::False, |p| eval_guard(&f.instr(p).guard, &s.ctx));
    let (go, gn) = (guard(d.old_pos), guard(d.new_pos));
    if go == Tri::False && gn == Tri::False {
        return Ok(());
    }
    out.reachable = true;
    let inputs = names.input_dims();
    let only = match (go, gn) {
        (Tri::False, _) => Some("new"),
        (_, Tri::False) => Some("old"),
        _ => None,
    };
    let mut differs: Vec<String> = vec![];
    if let Some(side) = only {
        differs.push(format!("{what} only in the {side} version"));
    } else if let Some(callee) = &d.changed_callee {
        // Equal arguments do not make a call equal when what it runs changed.
        differs.push(format!("{what} may run `{callee}`, which changed"));
    } else {
        if go == Tri::Unknown || gn == Tri::Unknown {
            differs.push(format!("{what} may happen in only one version"));
        }
        let (ko, kn) = (
            &f.instr(d.old_pos.expect("both")).kind,
            &f.instr(d.new_pos.expect("both")).kind,
        );
        let (xo, xn) = (effect_exprs(ko), effect_exprs(kn));
        if let InstrKind::Call { args, .. } = ko {
            // What the callee may read besides its arguments: memory the versions wrote
            // differently, or (through pointer arguments) memory that may hold other values.
            if matches!(d.kind, DiffKind::Effect(_)) && !s.mem.agrees() {
                differs.push(format!(
                    "{what}: memory or globals written before it may differ"
                ));
            } else if crate::analysis::reads_memory(args) && !reads_agree(c, s) {
                differs.push(format!(
                    "{what}: memory its pointer arguments reach may differ"
                ));
            }
        }
        if xo.len() != xn.len() {
            differs.push(format!("{what} differs in shape"));
        } else {
            for (k, (x, y)) in xo.iter().zip(&xn).enumerate() {
                if !equal_exprs(c, &a.dims, a.semantics, x, y, s, names.b)? {
                    differs.push(format!("{what} operand {}", k + 1));
                }
            }
        }
    }
    if differs.is_empty() {
        out.equivalent.push(EqState {
            constraints: names.text(&s.data, &inputs)?,
        });
    } else {
        out.different.push(DiffState {
            vars: differs,
            constraints: names.text(&s.data, &inputs)?,
            inputs: names.text(&s.data, &inputs)?,
            seed: names.seed(&s.data),
        });
    }
    Ok(())
}

fn dedupe(p: &mut PointDelta) {
    let mut seen = std::collections::HashSet::new();
    p.equivalent
        .retain(|e| seen.insert(e.constraints.join("\u{1}")));
    let mut seen = std::collections::HashSet::new();
    p.different
        .retain(|e| seen.insert(format!("{:?}|{}", e.vars, e.constraints.join("\u{1}"))));
    let total = p.equivalent.len() + p.different.len();
    p.equivalent.truncate(MAX_ENTRIES);
    p.different.truncate(MAX_ENTRIES);
    p.omitted = total - p.equivalent.len() - p.different.len();
}

#[cfg(test)]
mod tests;
