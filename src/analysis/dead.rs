//! Variables and guards that are dead at loop heads.
//!
//! Takes the product GCL; gives, for each loop head, the tracked dimensions and guards whose
//! value there can never be observed: inside the loop they are always written before being
//! read (by a write whose guard every later read implies), and nothing after the loop reads
//! them. The fixpoint forgets them at the head, so stale values from the previous iteration do
//! not split sub-states apart or slow the numeric domain down.

use std::collections::{HashMap, HashSet};

use crate::gcl::{Cfg, GclFunction, Guard, InstrKind, Lit};
use crate::ir::{Callee, Expr, ExprKind, GuardId, Place, VarId};

#[derive(Default, Clone, Debug)]
pub struct Dead {
    pub vars: Vec<VarId>,
    pub guards: Vec<GuardId>,
}

/// What `e` reads: its variables (a memory place counts as its root variable) and guards.
fn expr_uses(e: &Expr, vars: &mut Vec<VarId>, guards: &mut Vec<GuardId>) {
    e.walk(&mut |x| match &x.kind {
        ExprKind::Var(v) => vars.push(*v),
        ExprKind::Guard(g) => guards.push(*g),
        ExprKind::Load(p) | ExprKind::AddrOf(p) => vars.extend(p.root_var()),
        _ => {}
    });
}

/// What writing to `p` reads: the expressions inside it (pointers, indices), and for a part of
/// a variable (`a[i]`, `s.f`) the variable, whose other parts stay as they were.
fn place_uses(p: &Place, vars: &mut Vec<VarId>, guards: &mut Vec<GuardId>) {
    if !matches!(p, Place::Var(_)) {
        vars.extend(p.root_var());
    }
    p.walk_exprs(&mut |x| expr_uses(x, vars, guards));
}

/// Variables and guards an instruction reads, and the variable or guard it writes.
pub fn uses(
    kind: &InstrKind,
    guard: &Guard,
) -> (Vec<VarId>, Vec<GuardId>, Option<VarId>, Option<GuardId>) {
    let mut vars = vec![];
    let mut guards: Vec<GuardId> = guard.0.iter().map(|l: &Lit| l.guard).collect();
    let mut wv = None;
    let mut wg = None;
    match kind {
        InstrKind::SetGuard(g, e) => {
            expr_uses(e, &mut vars, &mut guards);
            wg = Some(*g);
        }
        InstrKind::Assign(p, e) => {
            expr_uses(e, &mut vars, &mut guards);
            match p {
                Place::Var(v) => wv = Some(*v),
                p => place_uses(p, &mut vars, &mut guards),
            }
        }
        InstrKind::Havoc(Place::Var(v)) => wv = Some(*v),
        InstrKind::Havoc(p) | InstrKind::ZeroFill(p) => place_uses(p, &mut vars, &mut guards),
        InstrKind::Call { dest, callee, args } => {
            if let Callee::Indirect(e) = callee {
                expr_uses(e, &mut vars, &mut guards);
            }
            for a in args {
                expr_uses(a, &mut vars, &mut guards);
            }
            match dest {
                Some(Place::Var(v)) => wv = Some(*v),
                Some(p) => place_uses(p, &mut vars, &mut guards),
                None => {}
            }
        }
        InstrKind::Goto(_) => {}
    }
    (vars, guards, wv, wg)
}

fn implies(read: &Guard, write: &Guard) -> bool {
    write.0.iter().all(|l| read.0.contains(l))
}

/// Dead variables and guards at each loop head `h` (regions `[h, back]` of backward jumps).
/// `pinned` are never dead (input copies, variables compared at diff points).
pub fn dead_at_heads(f: &GclFunction, cfg: &Cfg, pinned: &HashSet<VarId>) -> HashMap<usize, Dead> {
    let n = f.instrs.len();
    let info: Vec<_> = f.instrs.iter().map(|i| uses(&i.kind, &i.guard)).collect();
    let mut out = HashMap::new();
    for (h, back) in cfg.loops() {
        let (h, back) = (h.index(), back.index());
        // Read outside the region (before it: only through a jump back in, which the region
        // structure excludes for clean loops; after it: a later use).
        let mut read_outside_v: HashSet<VarId> = HashSet::new();
        let mut read_outside_g: HashSet<GuardId> = HashSet::new();
        for (p, (rv, rg, _, _)) in info.iter().enumerate() {
            if p < h || p > back {
                read_outside_v.extend(rv.iter().copied());
                read_outside_g.extend(rg.iter().copied());
            }
        }
        // Jumps into the region other than at its head make the analysis unsafe: skip.
        let entered_elsewhere = cfg.jumps().any(|(p, t, _)| {
            let (p, t) = (p.index(), t.index());
            t > h && t <= back && !(h..=back).contains(&p)
        });
        if entered_elsewhere || back >= n {
            continue;
        }
        let mut first_write_v: HashMap<VarId, &Guard> = HashMap::new();
        let mut first_write_g: HashMap<GuardId, &Guard> = HashMap::new();
        let mut live_v: HashSet<VarId> = HashSet::new();
        let mut live_g: HashSet<GuardId> = HashSet::new();
        for (p, (rv, rg, wv, wg)) in info.iter().enumerate().take(back + 1).skip(h) {
            let g = &f.instrs[p].guard;
            for v in rv {
                match first_write_v.get(v) {
                    Some(w) if implies(g, w) => {}
                    _ => {
                        live_v.insert(*v);
                    }
                }
            }
            for x in rg {
                match first_write_g.get(x) {
                    Some(w) if implies(g, w) => {}
                    _ => {
                        live_g.insert(*x);
                    }
                }
            }
            if let Some(v) = wv {
                first_write_v.entry(*v).or_insert(g);
            }
            if let Some(x) = wg {
                first_write_g.entry(*x).or_insert(g);
            }
        }
        let vars: Vec<VarId> = first_write_v
            .keys()
            .filter(|v| !live_v.contains(v) && !read_outside_v.contains(v) && !pinned.contains(v))
            .copied()
            .collect();
        let guards: Vec<GuardId> = first_write_g
            .keys()
            .filter(|g| !live_g.contains(g) && !read_outside_g.contains(g))
            .copied()
            .collect();
        out.insert(h, Dead { vars, guards });
    }
    out
}

/// Variables and guards that die at each position: nothing at or after it reads them, counting
/// reads inside a loop as lasting to the loop's back edge (the next iteration may need them).
/// `pinned` variables never die.
pub fn dying(
    f: &GclFunction,
    cfg: &Cfg,
    pinned: &HashSet<VarId>,
) -> (Vec<Vec<VarId>>, Vec<Vec<GuardId>>) {
    let n = f.instrs.len();
    let regions: Vec<(usize, usize)> = cfg
        .back_edges()
        .iter()
        .map(|&(j, t)| (t.index(), j.index()))
        .collect();
    let extend = |r: usize| -> usize {
        let mut end = r;
        // Loops may nest: extend until stable.
        loop {
            let next = regions
                .iter()
                .filter(|(h, b)| *h <= end.min(r) && r <= *b)
                .map(|x| x.1)
                .max()
                .unwrap_or(end)
                .max(end);
            if next == end {
                return end;
            }
            end = next;
        }
    };
    let mut last_v: HashMap<VarId, usize> = HashMap::new();
    let mut last_g: HashMap<GuardId, usize> = HashMap::new();
    let mut seen_v: HashSet<VarId> = HashSet::new();
    let mut seen_g: HashSet<GuardId> = HashSet::new();
    for (p, ins) in f.instrs.iter().enumerate() {
        let (rv, rg, wv, wg) = uses(&ins.kind, &ins.guard);
        let until = extend(p);
        for v in rv {
            let e = last_v.entry(v).or_insert(until);
            *e = (*e).max(until);
        }
        for g in rg {
            let e = last_g.entry(g).or_insert(until);
            *e = (*e).max(until);
        }
        seen_v.extend(wv);
        seen_g.extend(wg);
    }
    let mut dv = vec![vec![]; n + 1];
    let mut dg = vec![vec![]; n + 1];
    for v in seen_v
        .into_iter()
        .chain(last_v.keys().copied())
        .collect::<HashSet<_>>()
    {
        if pinned.contains(&v) {
            continue;
        }
        // Dies right after its last read (or, never read, right after the first write).
        let at = match last_v.get(&v) {
            Some(&r) => r + 1,
            None => continue,
        };
        if at <= n {
            dv[at].push(v);
        }
    }
    for g in seen_g
        .into_iter()
        .chain(last_g.keys().copied())
        .collect::<HashSet<_>>()
    {
        if let Some(&r) = last_g.get(&g) {
            if r < n {
                dg[r + 1].push(g);
            }
        }
    }
    (dv, dg)
}
