//! Emission of the product's instructions.
//!
//! Takes the aligned items of the two versions; appends their instructions to the product:
//! old ones as they are, new ones remapped (labels shifted past the old ones), each under the
//! extra guard literals of the lockstep loops around it; places converge points after matched
//! pairs and diff points before effects and after matched returns. Copies of loop bodies
//! ([`Item::Copy`], [`Item::Step`]) run under the guard of their schedule: a peeled copy under
//! its loop's peel guard, set at its first copy; an unrolled one under the lockstep's.

use super::align::Op;
use super::Builder;
use crate::correlate::structure::{self, Item};
use crate::correlate::{DiffKind, DiffPoint, Origin, Side};
use crate::gcl::{Guard, Instr, InstrKind, Lit};
use crate::ir::{CType, Expr, ExprKind, GuardId, Label, Line, Pos};

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
                copy: false,
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

    /// A version's instruction `i` as the product holds it (the new version's remapped).
    pub(super) fn version_instr(&self, side: Side, i: usize) -> Instr {
        match side {
            Side::Old => self.old.instrs[i].clone(),
            _ => self.remap.instr(&self.new.instrs[i]),
        }
    }

    fn emit_instr(&mut self, side: Side, i: usize, extra: &[Lit], matched: bool, copy: bool) {
        if !copy {
            self.set_labels_at(side, i);
        }
        let ins = self.version_instr(side, i);
        let origin = Origin {
            side,
            src: Some(i),
            matched,
            copy,
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

    /// The instruction an item runs, the guard literals it runs under and whether it is a copy;
    /// `None` for items that are not one instruction. A peeled copy's loop gets its peel guard
    /// here, at the first copy.
    fn placed(
        &mut self,
        side: Side,
        item: &Item,
        extra: &[Lit],
    ) -> Option<(usize, Vec<Lit>, bool)> {
        match *item {
            Item::Instr(i) => Some((i, extra.to_vec(), false)),
            Item::Copy { instr, peel: None } => Some((instr, extra.to_vec(), true)),
            Item::Copy {
                instr,
                peel: Some(head),
            } => {
                let g = self.peel_guard(side, head, extra);
                let mut x = extra.to_vec();
                x.push(Lit {
                    guard: g,
                    positive: true,
                });
                Some((instr, x, true))
            }
            _ => None,
        }
    }

    /// The guard that says whether the loop at `head` still runs after its peeled iterations:
    /// set to 1 (under `extra`) the first time it is asked for.
    fn peel_guard(&mut self, side: Side, head: usize, extra: &[Lit]) -> GuardId {
        if let Some(&g) = self.peel_guards.get(&(side, head)) {
            return g;
        }
        let line = self.version_instr(side, head).line;
        let k = self.peel_guards.len() + 1;
        let name = match side {
            Side::Old => format!("peel{k}"),
            _ => format!("peel{k}'"),
        };
        let g = self.new_guard(name, line, side);
        self.peel_guards.insert((side, head), g);
        self.push_control(
            side,
            Guard(extra.to_vec()),
            g,
            Expr::int(1, CType::INT),
            line,
        );
        g
    }

    /// Loop control of a copied iteration (its guard's update), part of a matched loop.
    fn push_control(&mut self, side: Side, guard: Guard, g: GuardId, e: Expr, line: Line) {
        self.push(
            guard,
            InstrKind::SetGuard(g, e),
            line,
            Origin {
                side,
                src: None,
                matched: true,
                copy: true,
            },
        );
    }

    /// The end of a copied iteration: the guard of its schedule takes the back jump's
    /// condition.
    fn emit_step(&mut self, side: Side, (head, back, peel): (usize, usize, bool), extra: &[Lit]) {
        let g = if peel {
            self.peel_guards.get(&(side, head))
        } else {
            self.unroll_guards.get(&(side, head))
        };
        let Some(&g) = g else {
            debug_assert!(false, "a step without its loop's guard");
            return;
        };
        let jump = self.version_instr(side, back);
        let mut guard = extra.to_vec();
        if peel {
            guard.push(Lit {
                guard: g,
                positive: true,
            });
        }
        self.push_control(
            side,
            Guard(guard),
            g,
            super::lockstep::conj(&jump.guard),
            jump.line,
        );
    }

    /// The guard literals a loop of `side` at `head` runs under: `extra`, and its peel guard
    /// when iterations of it were peeled.
    pub(super) fn loop_extra(&self, side: Side, head: usize, extra: &[Lit]) -> Vec<Lit> {
        let mut x = extra.to_vec();
        if let Some(&g) = self.peel_guards.get(&(side, head)) {
            x.push(Lit {
                guard: g,
                positive: true,
            });
        }
        x
    }

    /// Emit an item of one version without a partner.
    fn emit_single(&mut self, side: Side, item: &Item, extra: &[Lit]) {
        match *item {
            Item::Step { head, back, peel } => {
                return self.emit_step(side, (head, back, peel), extra)
            }
            Item::Copy { .. } => {
                if let Some((i, x, copy)) = self.placed(side, item, extra) {
                    self.emit_effect_point(side, i);
                    self.emit_instr(side, i, &x, false, copy);
                }
                return;
            }
            Item::Loop { head, .. } if self.peel_guards.contains_key(&(side, head)) => {
                let x = self.loop_extra(side, head, extra);
                return self.emit_plain(side, item, &x);
            }
            _ => {}
        }
        self.emit_plain(side, item, extra)
    }

    /// A diff point before an effect of one version alone.
    fn emit_effect_point(&mut self, side: Side, i: usize) {
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
    }

    /// An instruction, loop or block of one version, copied as it is.
    pub(super) fn emit_plain(&mut self, side: Side, item: &Item, extra: &[Lit]) {
        let mut idx = vec![];
        structure::indices(item, &mut idx);
        for &i in &idx {
            self.emit_effect_point(side, i);
            self.emit_instr(side, i, extra, false, false);
        }
        if let Item::Opaque { end, .. } = item {
            // Forward jumps out of the block land right after it.
            self.set_labels_at(side, end + 1);
        }
    }

    pub(super) fn emit_seq(&mut self, oi: &[Item], ni: &[Item], ox: &[Lit], nx: &[Lit]) {
        let (oi, ni) = self.with_peels(oi, ni);
        let ops = self.align(&oi, &ni);
        for op in ops {
            match op {
                Op::Old(it) => self.emit_single(Side::Old, it, ox),
                Op::New(it) => self.emit_single(Side::New, it, nx),
                Op::Both(a, b) if a.instr().is_some() && b.instr().is_some() => {
                    self.emit_pair(a, b, ox, nx)
                }
                Op::Both(a, b) if a.as_loop().is_some() && b.as_loop().is_some() => {
                    let (lo, ln) = (a.as_loop().expect("loop"), b.as_loop().expect("loop"));
                    let bounded = match (a, b) {
                        (Item::Prefix { .. }, _) => Some(Side::Old),
                        (_, Item::Prefix { .. }) => Some(Side::New),
                        _ => None,
                    };
                    self.emit_loop_pair(lo, ln, ox, nx, bounded)
                }
                Op::Both(a, b) => {
                    self.emit_single(Side::Old, a, ox);
                    self.emit_single(Side::New, b, nx);
                }
            }
        }
    }

    fn emit_pair(&mut self, a: &Item, b: &Item, ox: &[Lit], nx: &[Lit]) {
        // Both placed first: a peel guard set here must not separate the pair.
        let (Some((i, ox, copy_o)), Some((j, nx, copy_n))) =
            (self.placed(Side::Old, a, ox), self.placed(Side::New, b, nx))
        else {
            return;
        };
        let (ox, nx) = (&ox[..], &nx[..]);
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
        self.emit_instr(Side::Old, i, ox, true, copy_o);
        self.emit_instr(Side::New, j, nx, true, copy_n);
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
