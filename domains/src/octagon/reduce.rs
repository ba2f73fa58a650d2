//! The constraint list of an octagon ([`NumDomain::constraints`](crate::NumDomain::constraints)):
//! the closed matrix without the bounds that others already imply, so that Δ texts stay short.

use super::bound::{Ub, ZERO};
use super::{node, NativeOctagons};
use crate::linear::{ConstraintKind, Dim, LinConstraint, LinExpr};

impl NativeOctagons {
    /// The constraints of a closed, non-bottom value without the obviously redundant ones:
    /// fixed dimensions as `x = c`; the others grouped by equalities `±x ± y = c` under the
    /// first of each group; between group leaders, the bounds not implied by the unary ones or
    /// through a third leader (no zero-weight cycles remain among them, so nothing implied is
    /// kept for a reason that is itself dropped).
    pub(super) fn reduced_constraints(&self) -> Vec<LinConstraint> {
        let n = self.n();
        let mut out = Vec::new();
        let hi = |v: usize| self.get(2 * v + 1, 2 * v); // 2x ≤ hi
        let lo = |v: usize| self.get(2 * v, 2 * v + 1); // -2x ≤ lo
        let fixed: Vec<bool> = (0..n)
            .map(|v| !hi(v).is_inf() && hi(v).add(lo(v)) == ZERO)
            .collect();
        // leader[v] = (leader node for +x_v) when x_v = ±x_l + c with l < v.
        let mut leader: Vec<Option<usize>> = vec![None; n];
        for v in 0..n {
            if fixed[v] {
                continue;
            }
            for l in 0..v {
                if fixed[l] || leader[l].is_some() {
                    continue;
                }
                // x_v - s·x_l has a fixed value?
                let hit = [true, false].into_iter().find(|&pos| {
                    let pl = node(l, pos);
                    let up = self.get(pl, 2 * v); // x_v - s x_l ≤ up
                    let down = self.get(2 * v, pl); // s x_l - x_v ≤ down
                    !up.is_inf() && up.add(down) == ZERO
                });
                if let Some(pos) = hit {
                    leader[v] = Some(node(l, pos));
                    break;
                }
            }
        }
        let push = |out: &mut Vec<LinConstraint>, terms: &[(i128, Dim)], k: Ub, kind| {
            // Σ terms ≤ k (or = k) as q·Σ - p ⋈ 0.
            let Some(r) = k.rat() else { return };
            let e = LinExpr::from_terms(terms, 0)
                .and_then(|e| e.checked_scale(r.den()))
                .and_then(|e| e.checked_add_constant(r.num().checked_neg()?));
            if let Some(e) = e {
                out.push(LinConstraint::new(e, kind));
            }
        };
        let sign = |a: usize| if a & 1 == 0 { 1 } else { -1 };
        for v in 0..n {
            let x = Dim::new(v);
            if fixed[v] {
                push(&mut out, &[(1, x)], hi(v).half(), ConstraintKind::Eq);
            } else if let Some(pl) = leader[v] {
                push(
                    &mut out,
                    &[(1, x), (-sign(pl), Dim::new(pl / 2))],
                    self.get(pl, 2 * v),
                    ConstraintKind::Eq,
                );
            } else {
                push(&mut out, &[(1, x)], hi(v).half(), ConstraintKind::Le);
                push(&mut out, &[(-1, x)], lo(v).half(), ConstraintKind::Le);
            }
        }
        let leaders: Vec<usize> = (0..n)
            .filter(|&v| !fixed[v] && leader[v].is_none())
            .collect();
        for (i, &u) in leaders.iter().enumerate() {
            for &w in &leaders[i + 1..] {
                for (pu, pw) in [(true, true), (true, false), (false, true), (false, false)] {
                    // s_u·x_u + s_w·x_w ≤ m[p̄u][pw]
                    let (a, b) = (node(u, pu) ^ 1, node(w, pw));
                    let k = self.get(a, b);
                    if k.is_inf() {
                        continue;
                    }
                    let by_unary = self.get(a, a ^ 1).add(self.get(b ^ 1, b)).half();
                    if by_unary.le(k) {
                        continue;
                    }
                    let through = leaders.iter().filter(|&&t| t != u && t != w).any(|&t| {
                        [2 * t, 2 * t + 1]
                            .into_iter()
                            .any(|c| self.get(a, c).add(self.get(c, b)).le(k))
                    });
                    if through {
                        continue;
                    }
                    let su = if pu { 1 } else { -1 };
                    let sw = if pw { 1 } else { -1 };
                    push(
                        &mut out,
                        &[(su, Dim::new(u)), (sw, Dim::new(w))],
                        k,
                        ConstraintKind::Le,
                    );
                }
            }
        }
        out
    }
}
