//! Whether the two versions terminate on the same inputs.
//!
//! Takes the correlating program, the analysis fixpoint and the functions whose behaviour
//! changed; gives [`Termination`]: proven, or the reasons it could not be shown. Δ at the diff
//! points only speaks of executions that reach them, so an empty Δ alone is *partial*
//! equivalence; `equivalent` also needs this. It sits after `analysis`, beside `delta`.
//!
//! The argument, per construct of the product:
//! * a pair of loops run in lockstep terminates alike when, at every iteration's test, both
//!   versions' activity guards have the same value in every sub-state of the fixpoint (then
//!   both bodies run equally often), or when each version's loop terminates on its own;
//! * a loop of one version (unmatched, inlined, or kept whole) must terminate on its own
//!   ([`crate::gcl::loops`]);
//! * a call to a function of the file must reach one that terminates on every input, or be a
//!   matched pair of calls to the same unchanged function whose arguments are equal in every
//!   sub-state that reaches it (both calls then behave alike, returning or not); when the
//!   analysis summarized the analysed function's recursion, its own recursive calls count as
//!   such a pair too (Godlin and Strichman's mutual termination: by induction on the depth of
//!   the run that terminates, every call it makes is matched by one that terminates alike),
//!   and a recursive call of one version alone does not;
//! * calls to functions outside the file are assumed to return (they are effects compared
//!   between the versions).

use std::collections::{BTreeSet, HashSet};

use crate::analysis::{equal_exprs, eval_guard, Analysis, Overflow, Tri};
use crate::correlate::{Correlated, Side};
use crate::diag::Result;
use crate::gcl::loops::{loop_terminates, terminating_functions};
use crate::gcl::InstrKind;
use crate::ir::{Callee, Pos};
use crate::limits::Budget;

/// Whether the versions provably terminate on the same inputs.
#[derive(Clone, Debug, Default)]
pub struct Termination {
    pub proven: bool,
    /// Why it is not proven (one line each, with the source line).
    pub reasons: Vec<String>,
}

pub fn check(
    c: &Correlated,
    a: &Analysis,
    changed: &BTreeSet<String>,
    b: &Budget,
) -> Result<Termination> {
    let f = c.product();
    let wrap = a.semantics.overflow == Overflow::Wrap;
    let mut reasons: Vec<String> = vec![];
    let mut note = |r: String| {
        if !reasons.contains(&r) {
            reasons.push(r);
        }
    };
    for &(back, head) in c.cfg.back_edges() {
        if let Some(l) = c.lockstep.iter().find(|l| l.back == back) {
            if agree(a, l.test, l.act_old, l.act_new, b)? || alone_ok(c, l, wrap) {
                continue;
            }
            note(format!(
                "the loops at old line {} and new line {} may run a different number of times",
                l.old_line, l.new_line
            ));
            continue;
        }
        if let Err(why) = loop_terminates(f, &c.cfg, head, back, wrap) {
            let side = match c.origin(back).side {
                Side::Old => "old",
                Side::New => "new",
                Side::Glue => "product",
            };
            note(format!(
                "the loop at {side} line {} may not terminate: {why}",
                f.instr(back).line
            ));
        }
    }
    let defined: HashSet<&str> = c
        .program
        .functions
        .iter()
        .map(|g| g.name.as_str())
        .collect();
    let terminating = terminating_functions(&c.program, wrap);
    let calls = crate::changes::CallGraph::new(&c.program);
    let mut skip_next = false;
    for (k, ins) in f.instrs.iter().enumerate() {
        let p = Pos::new(k);
        if std::mem::take(&mut skip_next) {
            continue;
        }
        let InstrKind::Call { callee, .. } = &ins.kind else {
            continue;
        };
        let side = c.origin(p).side;
        if never_runs(a, p, &ins.guard, b)? {
            continue;
        }
        match callee {
            Callee::Direct(n) if !defined.contains(n.as_str()) => {}
            Callee::Direct(n) if terminating.contains(n) => {}
            Callee::Direct(n) => {
                if matched_call_pair(c, a, p, n, changed, b)? {
                    skip_next = true;
                    continue;
                }
                note(format!(
                    "the call to `{}` at line {} may not return",
                    c.source_name(n),
                    ins.line
                ));
            }
            Callee::Indirect(_) => {
                // Any function of this version whose address is taken may be called.
                let mine = |n: &&String| c.function_side(n) == side;
                let bad = calls
                    .address_taken()
                    .iter()
                    .filter(mine)
                    .find(|n| !terminating.contains(*n));
                if let Some(n) = bad {
                    note(format!(
                        "the call through a pointer at line {} may reach `{}`, which may not return",
                        ins.line,
                        c.source_name(n)
                    ));
                }
            }
        }
    }
    Ok(Termination {
        proven: reasons.is_empty(),
        reasons,
    })
}

/// Whether the instruction at `p` runs in no sub-state of the fixpoint before it (`guard` is
/// false in each): a call there cannot keep either version from returning. A position without
/// a state is not judged (the second half of a matched pair gets none of its own).
fn never_runs(a: &Analysis, p: Pos, guard: &crate::gcl::Guard, b: &Budget) -> Result<bool> {
    use crate::analysis::Soft;
    let Some(state) = a.state(p)? else {
        return Ok(false);
    };
    for s in state {
        if !s.data.s_is_bottom(b)? && eval_guard(guard, &s.ctx) != Tri::False {
            return Ok(false);
        }
    }
    Ok(true)
}

/// Whether in every sub-state before `test` both activity guards are known and equal.
fn agree(
    a: &Analysis,
    test: Pos,
    act_old: crate::ir::GuardId,
    act_new: crate::ir::GuardId,
    b: &Budget,
) -> Result<bool> {
    use crate::analysis::Soft;
    let Some(state) = a.state(test)? else {
        return Ok(true);
    };
    for s in state {
        if s.data.s_is_bottom(b)? {
            continue;
        }
        match (s.ctx.get(&act_old), s.ctx.get(&act_new)) {
            (Some(x), Some(y)) if x == y => {}
            _ => return Ok(false),
        }
    }
    Ok(true)
}

/// Whether each version's own loop behind a lockstep pair terminates on its own.
fn alone_ok(c: &Correlated, l: &crate::correlate::Lockstep, wrap: bool) -> bool {
    let versions = [(Side::Old, l.old_back), (Side::New, l.new_back)];
    versions.iter().all(|(side, back)| {
        let Some(g) = c.version(&c.name, *side) else {
            return false;
        };
        let cfg = crate::gcl::Cfg::new(g);
        let Some(head) = cfg.target(*back) else {
            return false;
        };
        loop_terminates(g, &cfg, head, *back, wrap).is_ok()
    })
}

/// Whether the call at `p` (old version) and the one right after it (new version) are a
/// matched pair of calls to the same unchanged function, with equal arguments wherever they
/// run.
fn matched_call_pair(
    c: &Correlated,
    a: &Analysis,
    p: Pos,
    name: &str,
    changed: &BTreeSet<String>,
    b: &Budget,
) -> Result<bool> {
    use crate::analysis::Soft;
    let f = c.product();
    let (o, n) = (c.origin(p), c.origin(p.next()));
    if !(o.side == Side::Old && n.side == Side::New && o.matched && n.matched) {
        return Ok(false);
    }
    let (
        InstrKind::Call {
            callee: Callee::Direct(on),
            args: oa,
            ..
        },
        InstrKind::Call {
            callee: Callee::Direct(nn),
            args: na,
            ..
        },
    ) = (&f.instr(p).kind, &f.instr(p.next()).kind)
    else {
        return Ok(false);
    };
    // The recursive calls of the analysed function's cycle, when summarized, are the induction
    // of the mutual-termination rule: matched on equal arguments, each pair is a shallower run
    // of a pair being proved (`diff` checks that the cycle's other pairs are proved too).
    let own = a.summarized.contains(on.as_str());
    if on != name
        || *nn != format!("{on}'")
        || (changed.contains(on) && !own)
        || oa.len() != na.len()
    {
        return Ok(false);
    }
    let Some(state) = a.state(p)? else {
        return Ok(true);
    };
    for s in state {
        if s.data.s_is_bottom(b)? {
            continue;
        }
        let go = eval_guard(&f.instr(p).guard, &s.ctx);
        let gn = eval_guard(&f.instr(p.next()).guard, &s.ctx);
        match (go, gn) {
            (Tri::False, Tri::False) => continue,
            (Tri::True, Tri::True) => {}
            _ => return Ok(false),
        }
        for (x, y) in oa.iter().zip(na) {
            if !equal_exprs(c, &a.dims, a.semantics, x, y, s, b)? {
                return Ok(false);
            }
        }
    }
    Ok(true)
}
