//! Emission of the product's instructions.
//!
//! Takes the aligned items of the two versions; appends their instructions to the product:
//! old ones as they are, new ones remapped (labels shifted past the old ones), each under the
//! extra guard literals of the lockstep loops around it; places converge points after matched
//! pairs and diff points before effects and after matched returns.

use super::align::Op;
use super::Builder;
use crate::correlate::structure::{self, Item};
use crate::correlate::{DiffKind, DiffPoint, Origin, Side};
use crate::gcl::{Guard, Instr, InstrKind, Lit};
use crate::ir::{ExprKind, Label, Line, Pos};

impl Builder<'_> {
    pub(super) fn push(&mut self, guard: Guard, kind: InstrKind, line: Line, origin: Origin) {
        self.instrs.push(Instr { guard, kind, line });
        self.meta.origins.push(origin);
    }

    pub(super) fn push_glue(&mut self, guard: Guard, kind: InstrKind, line: Line) {
        self.push(
            guard,
            kind,
            line,
            Origin {
                side: Side::Glue,
                src: None,
                matched: false,
            },
        );
    }

    pub(super) fn set_labels_at(&mut self, side: Side, idx: usize) {
        let pos = self.instrs.len();
        let (f, off) = match side {
            Side::Old => (self.old, 0),
            _ => (self.new, self.old.labels.len()),
        };
        for (l, &at) in f.labels.iter().enumerate() {
            if at == idx && self.labels[off + l].is_none() {
                self.labels[off + l] = Some(pos);
            }
        }
    }

    fn emit_instr(&mut self, side: Side, i: usize, extra: &[Lit], matched: bool) {
        self.set_labels_at(side, i);
        let (ins, origin) = match side {
            Side::Old => (
                self.old.instrs[i].clone(),
                Origin {
                    side,
                    src: Some(i),
                    matched,
                },
            ),
            _ => (
                self.remap.instr(&self.new.instrs[i]),
                Origin {
                    side,
                    src: Some(i),
                    matched,
                },
            ),
        };
        let mut guard = ins.guard;
        guard.0.extend_from_slice(extra);
        let kind = match ins.kind {
            InstrKind::Goto(l) if side != Side::Old => {
                InstrKind::Goto(Label::new(l.index() + self.old.labels.len()))
            }
            k => k,
        };
        self.push(guard, kind, ins.line, origin);
    }

    /// Emit an item of one version without a partner.
    fn emit_single(&mut self, side: Side, item: &Item, extra: &[Lit]) {
        let mut idx = vec![];
        structure::indices(item, &mut idx);
        for &i in &idx {
            if let Some(kind) = self.effect_of(side, i) {
                let pos = self.instrs.len();
                let line = match side {
                    Side::Old => self.old.instrs[i].line.0,
                    _ => self.new.instrs[i].line.0,
                };
                let name = match &kind {
                    DiffKind::Output(n) | DiffKind::Effect(n) => n.clone(),
                    _ => String::new(),
                };
                let (old_line, new_line, label, old_pos, new_pos) = match side {
                    Side::Old => (line, 0, format!("{name}@{line}/-"), Some(pos), None),
                    _ => (0, line, format!("{name}@-/{line}"), None, Some(pos)),
                };
                self.meta.diff_points.push(DiffPoint {
                    pos: Pos::new(pos),
                    kind,
                    old_line,
                    new_line,
                    label,
                    pairs: vec![],
                    old_pos: old_pos.map(Pos::new),
                    new_pos: new_pos.map(Pos::new),
                    changed_callee: None,
                });
            }
            self.emit_instr(side, i, extra, false);
        }
        if let Item::Opaque { end, .. } = item {
            // Forward jumps out of the block land right after it.
            self.set_labels_at(side, end + 1);
        }
    }

    pub(super) fn emit_seq(&mut self, oi: &[Item], ni: &[Item], ox: &[Lit], nx: &[Lit]) {
        let ops = self.align(oi, ni);
        for op in ops {
            match op {
                Op::Old(it) => self.emit_single(Side::Old, it, ox),
                Op::New(it) => self.emit_single(Side::New, it, nx),
                Op::Both(Item::Instr(i), Item::Instr(j)) => self.emit_pair(*i, *j, ox, nx),
                Op::Both(
                    Item::Loop {
                        head: ho,
                        back: bo,
                        body: bodyo,
                    },
                    Item::Loop {
                        head: hn,
                        back: bn,
                        body: bodyn,
                    },
                ) => self.emit_loop_pair((*ho, *bo, bodyo), (*hn, *bn, bodyn), ox, nx),
                Op::Both(a, b) => {
                    self.emit_single(Side::Old, a, ox);
                    self.emit_single(Side::New, b, nx);
                }
            }
        }
    }

    fn emit_pair(&mut self, i: usize, j: usize, ox: &[Lit], nx: &[Lit]) {
        let (oi, ni) = (&self.old.instrs[i], &self.new.instrs[j]);
        // Effects: compare before the pair produces them.
        let (eo, en) = (self.effect_of(Side::Old, i), self.effect_of(Side::New, j));
        if let Some(kind) = eo.clone().or(en.clone()) {
            let pos = self.instrs.len();
            let pairs = match &oi.kind {
                InstrKind::Call { args, .. } => self.arg_pairs(args),
                _ => vec![],
            };
            let name = match &kind {
                DiffKind::Output(n) | DiffKind::Effect(n) => n.clone(),
                _ => String::new(),
            };
            let changed_callee = self
                .changed_target(Side::Old, i)
                .or_else(|| self.changed_target(Side::New, j));
            self.meta.diff_points.push(DiffPoint {
                pos: Pos::new(pos),
                kind,
                old_line: oi.line.0,
                new_line: ni.line.0,
                label: format!("{name}@{}/{}", oi.line.0, ni.line.0),
                pairs,
                old_pos: eo.map(|_| Pos::new(pos)),
                new_pos: en.map(|_| Pos::new(pos + 1)),
                changed_callee,
            });
        }
        let is_return = matches!(&oi.kind, InstrKind::SetGuard(g, e) if *g == self.old.ret_flag && matches!(e.kind, ExprKind::Int(1)))
            && matches!(&ni.kind, InstrKind::SetGuard(g, e) if *g == self.new.ret_flag && matches!(e.kind, ExprKind::Int(1)));
        let (ol, nl) = (oi.line.0, ni.line.0);
        self.emit_instr(Side::Old, i, ox, true);
        self.emit_instr(Side::New, j, nx, true);
        self.meta.converge.push(self.instrs.len());
        if is_return {
            let mut pairs: Vec<usize> = self
                .old
                .retval
                .and_then(|r| self.pair_index(r))
                .into_iter()
                .collect();
            for k in self.exit_pairs() {
                if !pairs.contains(&k) {
                    pairs.push(k);
                }
            }
            self.meta.diff_points.push(DiffPoint {
                pos: Pos::new(self.instrs.len()),
                kind: DiffKind::Return,
                old_line: ol,
                new_line: nl,
                label: format!("return@{ol}/{nl}"),
                pairs,
                old_pos: None,
                new_pos: None,
                changed_callee: None,
            });
        }
    }
}
