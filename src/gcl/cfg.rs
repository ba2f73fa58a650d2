//! The control-flow graph of a GCL function, computed once and shared.
//!
//! Takes a flat [`GclFunction`]; gives its jumps (each `goto` with its target position), the
//! predecessors of every position (fallthrough and jumps; position `len` is the exit), the
//! backward jumps that close loops and their heads, and which positions lie inside a loop.
//! The correlator computes the product's once ([`crate::correlate::Correlated::cfg`]); the
//! analysis, liveness, termination and the witness search read it instead of walking labels
//! themselves.

use std::collections::BTreeMap;

use super::{GclFunction, InstrKind};
use crate::ir::{IdVec, Label, Pos};

#[derive(Clone, Debug, Default)]
pub struct Cfg {
    /// Number of instructions (positions `0..len`; `len` is the exit).
    len: usize,
    /// Target position of each instruction that is a `goto`, and its label.
    target: IdVec<Pos, Option<(Pos, Label)>>,
    /// Positions from which each position `0..=len` is entered.
    preds: IdVec<Pos, Vec<Pos>>,
    /// Backward jumps `(jump, head)` in order of the jump.
    back: Vec<(Pos, Pos)>,
    /// Per loop head, the last backward jump to it.
    regions: BTreeMap<Pos, Pos>,
    /// Whether a position lies between a loop head and a backward jump to it.
    in_loop: IdVec<Pos, bool>,
}

impl Cfg {
    pub fn new(f: &GclFunction) -> Cfg {
        let n = f.instrs.len();
        let mut cfg = Cfg {
            len: n,
            target: IdVec::filled(n, None),
            preds: IdVec::filled(n + 1, vec![]),
            back: vec![],
            regions: BTreeMap::new(),
            in_loop: IdVec::filled(n, false),
        };
        for (k, ins) in f.instrs.iter().enumerate() {
            let i = Pos::new(k);
            cfg.preds[i.next()].push(i);
            if let InstrKind::Goto(l) = ins.kind {
                let t = Pos::new(f.labels.get(l.index()).copied().unwrap_or(n).min(n));
                cfg.target[i] = Some((t, l));
                cfg.preds[t].push(i);
                if t <= i {
                    cfg.back.push((i, t));
                    let e = cfg.regions.entry(t).or_insert(i);
                    *e = (*e).max(i);
                    for x in t.index()..=k {
                        cfg.in_loop[Pos::new(x)] = true;
                    }
                }
            }
        }
        cfg
    }

    /// Number of instructions.
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The exit position.
    pub fn exit(&self) -> Pos {
        Pos::new(self.len)
    }

    /// Where instruction `i` jumps when it is a `goto` (`exit()` for the end).
    pub fn target(&self, i: Pos) -> Option<Pos> {
        self.target.get(i).copied().flatten().map(|t| t.0)
    }

    /// Every `goto`: `(position, target position, label)`.
    pub fn jumps(&self) -> impl Iterator<Item = (Pos, Pos, Label)> + '_ {
        self.target
            .iter_enumerated()
            .filter_map(|(i, t)| t.map(|(t, l)| (i, t, l)))
    }

    /// Positions from which position `p` (up to the exit) is entered.
    pub fn preds(&self, p: Pos) -> &[Pos] {
        self.preds.get(p).map_or(&[], Vec::as_slice)
    }

    /// Backward jumps `(jump, head)`.
    pub fn back_edges(&self) -> &[(Pos, Pos)] {
        &self.back
    }

    /// Whether position `p` is the target of a backward jump.
    pub fn is_loop_head(&self, p: Pos) -> bool {
        self.regions.contains_key(&p)
    }

    /// Loop regions: each head with the last backward jump to it.
    pub fn loops(&self) -> impl Iterator<Item = (Pos, Pos)> + '_ {
        self.regions.iter().map(|(&h, &b)| (h, b))
    }

    /// Whether position `i` lies inside a loop (between a head and a backward jump to it).
    pub fn in_loop(&self, i: Pos) -> bool {
        self.in_loop.get(i).copied().unwrap_or(false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load(src: &str) -> crate::gcl::GclProgram {
        let p = crate::frontend::parse_text(src.to_string(), "t.c").expect("parse");
        crate::gcl::flatten_program(p).expect("flatten")
    }

    #[test]
    fn loops_jumps_and_predecessors() {
        let p = load(
            "int f(int n) { int s = 0; for (int i = 0; i < n; i++) { if (i == 2) continue; s += i; } return s; }",
        );
        let f = p.function("f").unwrap();
        let cfg = Cfg::new(f);
        assert_eq!(cfg.len(), f.instrs.len());
        let [(back, head)] = cfg.back_edges() else {
            panic!("one loop: {:?}", cfg.back_edges())
        };
        assert!(head < back);
        assert_eq!(cfg.target(*back), Some(*head));
        assert!(cfg.is_loop_head(*head));
        assert!(cfg.preds(*head).contains(back));
        assert!((head.index()..=back.index()).all(|i| cfg.in_loop(Pos::new(i))));
        assert!(!cfg.in_loop(Pos::new(0)));
        // Every position but the entry has its fallthrough predecessor.
        assert!((1..=cfg.len()).all(|p| cfg.preds(Pos::new(p)).contains(&Pos::new(p - 1))));
        assert_eq!(cfg.loops().collect::<Vec<_>>(), vec![(*head, *back)]);
        assert_eq!(cfg.jumps().count(), 1);
    }

    #[test]
    fn forward_jumps_are_not_loops() {
        let p = load("int f(int x) { if (x) goto out; x = 2; out: return x; }");
        let f = p.function("f").unwrap();
        let cfg = Cfg::new(f);
        assert!(cfg.back_edges().is_empty());
        let (j, t, _) = cfg.jumps().next().expect("a goto");
        assert!(t > j);
        assert!(cfg.preds(t).contains(&j));
    }
}
