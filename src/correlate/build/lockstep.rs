//! Matched loops run in lockstep.
//!
//! Takes a matched pair of clean loops; emits one loop in which each version's body runs under
//! its own activity guard and the shared back jump repeats while either is active, so each body
//! runs exactly as often as in its own program; records the [`Lockstep`] for the analysis.
//! A body the loops' [`super::schedule::Plan`] unrolls runs k times per iteration, each copy
//! closed by the activity update its own back jump would make; a loop with peeled iterations
//! starts active only where those iterations went on. A *bounded* side (the prefix of a loop
//! split against two loops of the other version) runs only while the other side is active,
//! the product's loop repeats while the other side is, and the bounded side's activity is
//! where its loop goes on afterwards.

use super::Builder;
use crate::correlate::structure::Item;
use crate::correlate::{Lockstep, Origin, Side};
use crate::gcl::{Guard, GuardInfo, GuardKind, InstrKind, Lit};
use crate::ir::{CType, Expr, ExprKind, GuardId, Label, Line, LogicOp, Pos, UnOp};

impl Builder<'_> {
    pub(super) fn emit_loop_pair(
        &mut self,
        (ho, bo, bodyo): (usize, usize, &[Item]),
        (hn, bn, bodyn): (usize, usize, &[Item]),
        ox: &[Lit],
        nx: &[Lit],
        bounded: Option<Side>,
    ) {
        self.loop_count += 1;
        let k = self.loop_count;
        let line_o = self.old.instrs[ho].line;
        let line_n = self.new.instrs[hn].line;
        let act_o = self.new_guard(format!("act{k}"), line_o, Side::Old);
        let act_n = self.new_guard(format!("act{k}'"), line_n, Side::New);
        let any = self.new_guard(format!("loop{k}"), line_o, Side::Glue);
        // Active at entry, or, after peeled iterations, where they went on.
        let entry = |b: &Self, side: Side, head: usize| match b.peel_guards.get(&(side, head)) {
            Some(&g) => guard_expr(g),
            None => Expr::int(1, CType::INT),
        };
        // A bounded side's iterations run again in the loop that follows: here they are copies.
        let (copy_o, copy_n) = (bounded == Some(Side::Old), bounded == Some(Side::New));
        let mo = Origin {
            side: Side::Old,
            src: None,
            matched: true,
            copy: copy_o,
        };
        let mn = Origin {
            side: Side::New,
            src: None,
            matched: true,
            copy: copy_n,
        };
        let (eo, en) = (entry(self, Side::Old, ho), entry(self, Side::New, hn));
        self.push(
            Guard(ox.to_vec()),
            InstrKind::SetGuard(act_o, eo),
            line_o,
            mo,
        );
        self.push(
            Guard(nx.to_vec()),
            InstrKind::SetGuard(act_n, en),
            line_n,
            mn,
        );
        self.unroll_guards.insert((Side::Old, ho), act_o);
        self.unroll_guards.insert((Side::New, hn), act_n);
        let plan = match self.loop_weight.get(&(ho, hn)) {
            Some(&(_, plan)) => plan,
            None => self.loop_plan((ho, bo, bodyo), (hn, bn, bodyn)).1,
        };
        let as_copies = |body: Vec<Item>, yes: bool| -> Vec<Item> {
            if !yes {
                return body;
            }
            body.into_iter()
                .map(|it| match it {
                    Item::Instr(instr) => Item::Copy { instr, peel: None },
                    other => other,
                })
                .collect()
        };
        let bodyo = as_copies(self.planned_body(Side::Old, plan, (ho, bo, bodyo)), copy_o);
        let bodyn = as_copies(self.planned_body(Side::New, plan, (hn, bn, bodyn)), copy_n);
        let head = self.instrs.len();
        self.labels.push(Some(head));
        let lx = Label::new(self.labels.len() - 1);
        self.set_labels_at(Side::Old, ho);
        self.set_labels_at(Side::New, hn);
        let lit = |guard| Lit {
            guard,
            positive: true,
        };
        let mut oxx = ox.to_vec();
        oxx.push(lit(act_o));
        let mut nxx = nx.to_vec();
        nxx.push(lit(act_n));
        // A bounded side runs (and updates its activity) only in iterations in which the other
        // side runs its body: the other side began the iteration active (activities change
        // only at its end) and, where its loop tests at its head, the test held — so that
        // test runs first. Without such a test the bounded side may run an iteration more
        // beside the other's last: still faithful, only less aligned.
        let mut bodyo = &bodyo[..];
        let mut bodyn = &bodyn[..];
        if let Some(b) = bounded {
            let (other, oh, ob, act) = match b {
                Side::Old => (Side::New, hn, bn, act_n),
                _ => (Side::Old, ho, bo, act_o),
            };
            let mut extra = vec![lit(act)];
            let test = self.head_test(other, oh, ob);
            if let Some(g) = test {
                extra.push(lit(g));
                let x = match other {
                    Side::Old => oxx.clone(),
                    _ => nxx.clone(),
                };
                self.emit_plain(other, &Item::Instr(oh), &x);
            }
            let skip = usize::from(test.is_some());
            match b {
                Side::Old => {
                    oxx.extend(extra);
                    bodyn = &bodyn[skip..];
                }
                _ => {
                    nxx.extend(extra);
                    bodyo = &bodyo[skip..];
                }
            }
        }
        self.emit_seq(bodyo, bodyn, &oxx, &nxx);
        // Back edges become "still active" updates.
        let back_o = self.old.instrs[bo].clone();
        let back_n = self.remap.instr(&self.new.instrs[bn]);
        let co = conj(&back_o.guard);
        let cn = conj(&back_n.guard);
        self.push(
            Guard(oxx.clone()),
            InstrKind::SetGuard(act_o, co),
            back_o.line,
            Origin {
                side: Side::Old,
                src: Some(bo),
                matched: true,
                copy: copy_o,
            },
        );
        self.push(
            Guard(nxx.clone()),
            InstrKind::SetGuard(act_n, cn),
            back_n.line,
            Origin {
                side: Side::New,
                src: Some(bn),
                matched: true,
                copy: copy_n,
            },
        );
        let either = match bounded {
            Some(Side::Old) => guard_expr(act_n),
            Some(Side::New) => guard_expr(act_o),
            _ => Expr::new(
                ExprKind::Logic(
                    LogicOp::Or,
                    Box::new(guard_expr(act_o)),
                    Box::new(guard_expr(act_n)),
                ),
                CType::INT,
            ),
        };
        let glue = Origin {
            side: Side::Glue,
            src: None,
            matched: true,
            copy: false,
        };
        let test = self.instrs.len();
        self.push(
            Guard::default(),
            InstrKind::SetGuard(any, either),
            back_o.line,
            glue,
        );
        self.meta.lockstep.push(Lockstep {
            test: Pos::new(test),
            back: Pos::new(test + 1),
            act_old: act_o,
            act_new: act_n,
            old_line: line_o.0,
            new_line: line_n.0,
            old_back: Pos::new(bo),
            new_back: Pos::new(bn),
        });
        self.push(
            Guard(vec![Lit {
                guard: any,
                positive: true,
            }]),
            InstrKind::Goto(lx),
            back_o.line,
            glue,
        );
        self.meta.converge.push(self.instrs.len());
        // The bounded loop goes on, where it was still active, as the next item.
        match bounded {
            Some(Side::Old) => {
                self.peel_guards.insert((Side::Old, ho), act_o);
            }
            Some(Side::New) => {
                self.peel_guards.insert((Side::New, hn), act_n);
            }
            _ => {}
        }
    }

    /// The guard a loop's head instruction sets when the loop's back jump needs it (a loop that
    /// tests at its head), in the product's numbering.
    fn head_test(&self, side: Side, head: usize, back: usize) -> Option<GuardId> {
        let h = self.version_instr(side, head);
        let jump = self.version_instr(side, back);
        match h.kind {
            InstrKind::SetGuard(g, _)
                if jump.guard.0.contains(&Lit {
                    guard: g,
                    positive: true,
                }) =>
            {
                Some(g)
            }
            _ => None,
        }
    }

    pub(super) fn new_guard(&mut self, name: String, line: Line, side: Side) -> GuardId {
        self.guards.push(GuardInfo {
            name,
            kind: GuardKind::Cond,
            line,
        });
        self.meta.guard_sides.push(side);
        GuardId::new(self.guards.len() - 1)
    }
}

fn guard_expr(g: GuardId) -> Expr {
    Expr::new(ExprKind::Guard(g), CType::INT)
}

/// A guard conjunction as an expression (`1` when empty).
pub(super) fn conj(g: &Guard) -> Expr {
    let mut out: Option<Expr> = None;
    for l in &g.0 {
        let e = guard_expr(l.guard);
        let e = if l.positive {
            e
        } else {
            Expr::new(ExprKind::Unary(UnOp::LogNot, Box::new(e)), CType::INT)
        };
        out = Some(match out {
            None => e,
            Some(acc) => Expr::new(
                ExprKind::Logic(LogicOp::And, Box::new(acc), Box::new(e)),
                CType::INT,
            ),
        });
    }
    out.unwrap_or_else(|| Expr::int(1, CType::INT))
}
