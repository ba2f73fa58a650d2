//! Matched loops run in lockstep.
//!
//! Takes a matched pair of clean loops; emits one loop in which each version's body runs under
//! its own activity guard and the shared back jump repeats while either is active, so each body
//! runs exactly as often as in its own program; records the [`Lockstep`] for the analysis.

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
    ) {
        self.loop_count += 1;
        let k = self.loop_count;
        let line_o = self.old.instrs[ho].line;
        let line_n = self.new.instrs[hn].line;
        let act_o = self.new_guard(format!("act{k}"), line_o, Side::Old);
        let act_n = self.new_guard(format!("act{k}'"), line_n, Side::New);
        let any = self.new_guard(format!("loop{k}"), line_o, Side::Glue);
        let one = Expr::int(1, CType::INT);
        let mo = Origin {
            side: Side::Old,
            src: None,
            matched: true,
        };
        let mn = Origin {
            side: Side::New,
            src: None,
            matched: true,
        };
        self.push(
            Guard(ox.to_vec()),
            InstrKind::SetGuard(act_o, one.clone()),
            line_o,
            mo,
        );
        self.push(
            Guard(nx.to_vec()),
            InstrKind::SetGuard(act_n, one),
            line_n,
            mn,
        );
        let head = self.instrs.len();
        self.labels.push(Some(head));
        let lx = Label::new(self.labels.len() - 1);
        self.set_labels_at(Side::Old, ho);
        self.set_labels_at(Side::New, hn);
        let mut oxx = ox.to_vec();
        oxx.push(Lit {
            guard: act_o,
            positive: true,
        });
        let mut nxx = nx.to_vec();
        nxx.push(Lit {
            guard: act_n,
            positive: true,
        });
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
            },
        );
        let either = Expr::new(
            ExprKind::Logic(
                LogicOp::Or,
                Box::new(guard_expr(act_o)),
                Box::new(guard_expr(act_n)),
            ),
            CType::INT,
        );
        let glue = Origin {
            side: Side::Glue,
            src: None,
            matched: true,
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
    }

    fn new_guard(&mut self, name: String, line: Line, side: Side) -> GuardId {
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
fn conj(g: &Guard) -> Expr {
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
