//! Loop schedules beyond lockstep: which iterations of one version's loop run beside an
//! iteration of the other's.
//!
//! Takes the builder's item lists and keys; gives
//! * for a matched pair of loops, unroll factors ([`Plan`]): k iterations of one version's loop
//!   per iteration of the product, for a loop unrolled by hand (`B; if (c) B` against `B`) or
//!   one whose counters step k times as far (`i += 2` against `i++`);
//! * for a sequence, the loops whose first iteration runs *peeled* before them, where the other
//!   version runs such an iteration's code before its loop (`if (c) B; while (c) B` against
//!   `while (c) B`);
//! * for a sequence, the loops *split* against two consecutive loops of the other version (an
//!   unrolled loop and its remainder, `for (; i + 3 < n; i += 4) {B B B B} for (; i < n; i++) B`
//!   against `for (; i < n; i++) B`): the loop's first iterations ([`Item::Prefix`]) run beside
//!   the first loop as long as it runs, the rest beside the second.
//!
//! A copy only repeats a clean loop's flat body under the guard that says whether that loop
//! still runs ([`structure`] says why that is exact), so the product stays faithful whatever is
//! chosen: a schedule steers the alignment, and a poor one costs precision, never soundness.
//! Each candidate must earn its place by the alignment's weight (most of a copied body
//! matched), or by the counters' steps, so loops that match one to one keep lockstep.

use std::collections::HashMap;

use super::align::Op;
use super::Builder;
use crate::correlate::remap::untagged;
use crate::correlate::structure::{self, Item};
use crate::correlate::Side;
use crate::gcl::{GclFunction, InstrKind};
use crate::ir::{BinOp, Expr, ExprKind, Place};

/// How many iterations of each version's loop one iteration of the product runs.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) struct Plan {
    pub(super) old: usize,
    pub(super) new: usize,
}

impl Plan {
    pub(super) const LOCKSTEP: Plan = Plan { old: 1, new: 1 };
}

/// Largest unroll factor tried.
const MAX_UNROLL: usize = 8;
/// Factors tried on textual evidence alone (larger ones need the counters' steps).
const MAX_TEXT_UNROLL: usize = 4;
/// Instructions an unrolled body may have.
const MAX_UNROLLED: usize = 400;
/// Loops per sequence tried for peeling, and items a sequence may have for it.
const MAX_PEEL_LOOPS: usize = 6;
const MAX_PEEL_ITEMS: usize = 400;
/// Iterations peeled at most.
const MAX_PEEL: usize = 2;

/// A copy is kept when it adds at least half of what its body would weigh fully matched
/// (identical instructions weigh three, see [`super::align`]).
fn enough(gain: usize, body: usize) -> bool {
    gain * 2 >= 3 * body && gain >= 3
}

/// `body` run `k` times per iteration: the original, then copies, each run closed by a step.
fn unrolled(body: &[Item], head: usize, back: usize, k: usize) -> Vec<Item> {
    let mut out = body.to_vec();
    for _ in 1..k {
        out.push(Item::Step {
            head,
            back,
            peel: false,
        });
        out.extend(
            body.iter()
                .filter_map(|it| it.instr().map(|instr| Item::Copy { instr, peel: None })),
        );
    }
    out
}

impl<'a> Builder<'a> {
    /// Sum of the matched pairs' weights.
    fn score(&mut self, ops: &[Op]) -> usize {
        ops.iter()
            .map(|op| match op {
                Op::Both(x, y) => self.weight(x, y),
                _ => 0,
            })
            .sum()
    }

    /// The weight of a matched pair of loops and the plan it is run with: lockstep, unless
    /// unrolling one version's body makes clearly more of the bodies match, or the counters
    /// both loops step say that one version covers k iterations of the other per iteration.
    pub(super) fn loop_plan(
        &mut self,
        (ho, bo, bodyo): (usize, usize, &[Item]),
        (hn, bn, bodyn): (usize, usize, &[Item]),
    ) -> (usize, Plan) {
        let ops = self.align(bodyo, bodyn);
        let lockstep = 3 + self.score(&ops);
        let stride = self.stride(bodyo, bodyn);
        let (lo, ln) = (bodyo.len(), bodyn.len());
        let mut best = (lockstep, Plan::LOCKSTEP);
        for k in 2..=MAX_UNROLL {
            for side in [Side::Old, Side::New] {
                let (body, head, back, len, other) = match side {
                    Side::Old => (bodyo, ho, bo, lo, ln),
                    _ => (bodyn, hn, bn, ln, lo),
                };
                let by_stride = stride == Some((side, k));
                // Text alone suggests k copies only when the other body is about k times
                // as long.
                let by_text = k <= MAX_TEXT_UNROLL && other * 4 >= len * k * 3;
                if !(by_stride || by_text) || !structure::flat(body) || len * k > MAX_UNROLLED {
                    continue;
                }
                let u = unrolled(body, head, back, k);
                let ops = match side {
                    Side::Old => self.align(&u, bodyn),
                    _ => self.align(bodyo, &u),
                };
                let w = 3 + self.score(&ops);
                let plan = match side {
                    Side::Old => Plan { old: k, new: 1 },
                    _ => Plan { old: 1, new: k },
                };
                if by_stride && w >= lockstep {
                    // The counters' evidence decides, as long as the bodies match no worse.
                    return (w, plan);
                }
                if w > best.0 && enough(w - lockstep, len * (k - 1)) {
                    best = (w, plan);
                }
            }
        }
        best
    }

    /// The body with the plan's copies for `side`.
    pub(super) fn planned_body(
        &self,
        side: Side,
        plan: Plan,
        (head, back, body): (usize, usize, &[Item]),
    ) -> Vec<Item> {
        let k = match side {
            Side::Old => plan.old,
            _ => plan.new,
        };
        unrolled(body, head, back, k)
    }

    /// Where both loops step the same counters by constants (`v := v ± c`, summed over the
    /// body), the factor k by which one version's steps are all k times the other's: that
    /// version covers k of the other's iterations in one of its own.
    fn stride(&self, bodyo: &[Item], bodyn: &[Item]) -> Option<(Side, usize)> {
        let so = steps(self.old, bodyo, &HashMap::new());
        let rename: HashMap<String, String> = self
            .opts
            .map
            .iter()
            .map(|(o, n)| (n.clone(), o.clone()))
            .collect();
        let sn = steps(self.new, bodyn, &rename);
        let mut ratio: Option<(Side, usize)> = None;
        for (v, &a) in &so {
            let Some(&b) = sn.get(v) else { continue };
            let r = if b % a == 0 && b / a >= 2 {
                (Side::Old, (b / a) as usize)
            } else if a % b == 0 && a / b >= 2 {
                (Side::New, (a / b) as usize)
            } else {
                // A counter stepping alike (or otherwise) rules the factor out.
                return None;
            };
            if ratio.is_some_and(|x| x != r) {
                return None;
            }
            ratio = Some(r);
        }
        ratio.filter(|&(_, k)| k <= MAX_UNROLL)
    }

    /// The weight of the alignment of `oi` and `ni`, and the loop `side`'s loop at `head` is
    /// matched with there.
    fn matched_loop(
        &mut self,
        oi: &[Item],
        ni: &[Item],
        side: Side,
        head: usize,
    ) -> (usize, Option<usize>) {
        let ops = self.align(oi, ni);
        (self.score(&ops), loop_partner(&ops, side, head, false))
    }

    /// Each flat loop of each version's list in turn (at most [`MAX_PEEL_LOOPS`] in all), with
    /// the weight of the current alignment and the loop it is matched with there: `step` may
    /// insert items before the loop (both lists are passed, this side's first) and says how
    /// many.
    fn each_flat_loop(
        &mut self,
        oi: &mut Vec<Item>,
        ni: &mut Vec<Item>,
        step: &mut FlatStep<'_, 'a>,
    ) {
        let mut tried = 0;
        for side in [Side::Old, Side::New] {
            let mut k = 0;
            loop {
                let (list, other) = match side {
                    Side::Old => (&mut *oi, &mut *ni),
                    _ => (&mut *ni, &mut *oi),
                };
                let Some((at, head, back, body)) = next_flat_loop(list, k) else {
                    break;
                };
                tried += 1;
                if tried > MAX_PEEL_LOOPS {
                    return;
                }
                let (base, partner) = match side {
                    Side::Old => self.matched_loop(list, other, side, head),
                    _ => self.matched_loop(other, list, side, head),
                };
                let flat = Flat {
                    at,
                    head,
                    back,
                    body,
                    base,
                    partner,
                };
                k = at + 1 + step(self, list, other, side, flat);
            }
        }
    }

    /// The alignment of this side's `trial` list with the other side's `other`.
    fn align_trial<'i>(&mut self, side: Side, trial: &'i [Item], other: &'i [Item]) -> Vec<Op<'i>> {
        match side {
            Side::Old => self.align(trial, other),
            _ => self.align(other, trial),
        }
    }

    /// `oi` and `ni` with peeled iterations before the loops where that makes more of the
    /// sequence match: per loop with a flat body, up to [`MAX_PEEL`] iterations, each kept when
    /// it adds enough weight; then with splits ([`Self::with_splits`]).
    pub(super) fn with_peels(&mut self, oi: &[Item], ni: &[Item]) -> (Vec<Item>, Vec<Item>) {
        let (mut oi, mut ni) = (oi.to_vec(), ni.to_vec());
        if oi.len() + ni.len() > MAX_PEEL_ITEMS {
            return (oi, ni);
        }
        self.each_flat_loop(&mut oi, &mut ni, &mut |me, list, other, side, l| {
            // Only a loop matched with one of the other version's is peeled, and only where it
            // stays matched with it: the copy must match code before that loop.
            let Some(partner) = l.partner else { return 0 };
            let (mut best, mut at, mut added) = (l.base, l.at, 0);
            for _ in 0..MAX_PEEL {
                let mut copy: Vec<Item> = l
                    .body
                    .iter()
                    .filter_map(|it| {
                        it.instr().map(|instr| Item::Copy {
                            instr,
                            peel: Some(l.head),
                        })
                    })
                    .collect();
                copy.push(Item::Step {
                    head: l.head,
                    back: l.back,
                    peel: true,
                });
                let n = copy.len();
                let mut trial = list.clone();
                trial.splice(at..at, copy);
                let (w, kept) = {
                    let ops = me.align_trial(side, &trial, other);
                    let kept = loop_partner(&ops, side, l.head, false) == Some(partner);
                    (me.score(&ops), kept)
                };
                if !kept || w <= best || !enough(w - best, l.body.len()) {
                    break;
                }
                best = w;
                at += n;
                added += n;
                *list = trial;
            }
            added
        });
        self.with_splits(oi, ni)
    }

    /// `oi` and `ni` with a prefix before each flat loop that is matched with a loop of the
    /// other version next to another loop, where the prefix then pairs with one of the two and
    /// the loop with the other, and that makes enough more of the sequence match (or the loop
    /// the prefix pairs with steps its counters k times as far).
    fn with_splits(&mut self, mut oi: Vec<Item>, mut ni: Vec<Item>) -> (Vec<Item>, Vec<Item>) {
        self.each_flat_loop(&mut oi, &mut ni, &mut |me, list, other, side, l| {
            let loop_at = |p: usize| {
                other
                    .iter()
                    .position(|it| matches!(it, Item::Loop { head, .. } if *head == p))
            };
            let Some(b) = l.partner.and_then(loop_at) else {
                return 0;
            };
            let is_loop = |j: usize| matches!(other.get(j), Some(Item::Loop { .. }));
            if !(b > 0 && is_loop(b - 1) || is_loop(b + 1)) {
                return 0;
            }
            let mut trial = list.clone();
            let prefix = Item::Prefix {
                head: l.head,
                back: l.back,
                body: l.body.clone(),
            };
            trial.insert(l.at, prefix);
            let (w, first, rest) = {
                let ops = me.align_trial(side, &trial, other);
                let first = loop_partner(&ops, side, l.head, true);
                let rest = loop_partner(&ops, side, l.head, false);
                (me.score(&ops), first, rest)
            };
            let (Some(first), Some(_)) = (first, rest) else {
                return 0;
            };
            // The loop the prefix pairs with steps its counters k times as far: the unrolled
            // part, whatever its copies look like.
            let strided = loop_at(first).is_some_and(|j| {
                let Item::Loop { body: b, .. } = &other[j] else {
                    return false;
                };
                let (bo, bn) = match side {
                    Side::Old => (&l.body[..], &b[..]),
                    _ => (&b[..], &l.body[..]),
                };
                me.stride(bo, bn).is_some_and(|(s, _)| s == side)
            });
            if w > l.base && (strided || enough(w - l.base, l.body.len())) {
                *list = trial;
                1
            } else {
                0
            }
        });
        (oi, ni)
    }
}

/// What [`Builder::each_flat_loop`] does at a loop.
type FlatStep<'s, 'a> =
    dyn FnMut(&mut Builder<'a>, &mut Vec<Item>, &mut Vec<Item>, Side, Flat) -> usize + 's;

/// A flat loop of one version's list as [`Builder::each_flat_loop`] visits it: its index, head,
/// backward jump and body, the current alignment's weight and the loop it is matched with.
struct Flat {
    at: usize,
    head: usize,
    back: usize,
    body: Vec<Item>,
    base: usize,
    partner: Option<usize>,
}

/// The next loop with a flat body in `list`, at or after `from`: its index, head, backward
/// jump and body.
fn next_flat_loop(list: &[Item], from: usize) -> Option<(usize, usize, usize, Vec<Item>)> {
    list[from..]
        .iter()
        .enumerate()
        .find_map(|(d, it)| match it {
            Item::Loop { head, back, body } if structure::flat(body) => {
                Some((from + d, *head, *back, body.clone()))
            }
            _ => None,
        })
}

/// The head of the loop matched with `side`'s loop at `head` in `ops` (with its prefix, when
/// `prefix`).
fn loop_partner(ops: &[Op], side: Side, head: usize, prefix: bool) -> Option<usize> {
    let is = |x: &Item| matches!(x, Item::Prefix { .. }) == prefix;
    ops.iter().find_map(|op| match op {
        Op::Both(x, y) => {
            let (mine, other) = match side {
                Side::Old => (x, y),
                _ => (y, x),
            };
            match (mine.as_loop(), other.as_loop()) {
                (Some((h, ..)), Some((o, ..))) if h == head && is(mine) => Some(o),
                _ => None,
            }
        }
        _ => None,
    })
}

/// The constant steps of a flat body: variable name (the other version's name where renamed)
/// ↦ the sum of its `v := v ± c` updates, for variables the body writes only so.
fn steps(
    f: &GclFunction,
    body: &[Item],
    rename: &HashMap<String, String>,
) -> HashMap<String, i128> {
    let mut out: HashMap<String, i128> = HashMap::new();
    let mut other: Vec<String> = vec![];
    for it in body {
        let Some(i) = it.instr() else { continue };
        let ins = &f.instrs[i];
        let Some(v) = ins.kind.dest().and_then(Place::root_var) else {
            continue;
        };
        let name = untagged(&f.func.var(v).name).to_string();
        let name = rename.get(&name).cloned().unwrap_or(name);
        match &ins.kind {
            InstrKind::Assign(Place::Var(d), e) => match step_of(e, *d) {
                Some(c) => *out.entry(name).or_default() += c,
                None => other.push(name),
            },
            _ => other.push(name),
        }
    }
    for n in other {
        out.remove(&n);
    }
    out.retain(|_, c| *c != 0);
    out
}

/// `c` where `e` is `v + c` or `v - c` (through conversions).
fn step_of(e: &Expr, v: crate::ir::VarId) -> Option<i128> {
    let strip = |e: &Expr| -> Expr {
        let mut e = e.clone();
        while let ExprKind::Cast(inner) = e.kind {
            e = *inner;
        }
        e
    };
    let ExprKind::Binary(op, a, b) = &strip(e).kind else {
        return None;
    };
    let (a, b) = (strip(a), strip(b));
    let (ExprKind::Var(x), ExprKind::Int(c)) = (&a.kind, &b.kind) else {
        return None;
    };
    if *x != v {
        return None;
    }
    match op {
        BinOp::Add => Some(*c),
        BinOp::Sub => Some(-*c),
        _ => None,
    }
}
