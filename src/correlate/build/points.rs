//! Where the diff points compare, and what.
//!
//! Takes an instruction of one version; gives whether it has an observable effect (and of
//! which kind), which changed function of the file a call may reach, and which variable pairs a
//! call's arguments or the exit compare. The emitter places diff points from these.

use super::Builder;
use crate::correlate::effects::{touches_volatile, written_globals};
use crate::correlate::remap::untagged;
use crate::correlate::{DiffKind, Side, PURE_FUNCTIONS};
use crate::gcl::InstrKind;
use crate::ir::{Callee, Expr, VarId, VarKind};

impl Builder<'_> {
    /// Compared at the exit: the return value and every global either version may write.
    /// A global neither writes keeps its initial value, which is the program's state, not the
    /// function's behaviour (even when the versions initialize it differently).
    pub(super) fn exit_pairs(&self) -> Vec<usize> {
        let mut out = vec![];
        if let Some(r) = self.old.retval {
            out.extend(self.pair_index(r));
        }
        let (wo, any_o) = written_globals(self.old);
        let (wn, any_n) = written_globals(self.new);
        for (k, p) in self.meta.pairs.iter().enumerate() {
            let info = &self.vars[p.old.index()];
            let VarKind::Global(g) = info.kind else {
                continue;
            };
            // An unknown string of a missing header's macro (`ESCS "]8;"`) is a string literal:
            // no code may write it.
            if self
                .old_globals
                .get(g.index())
                .is_some_and(|gv| gv.opaque && matches!(gv.ty, crate::ir::CType::Array(..)))
            {
                continue;
            }
            let new_name = untagged(&self.vars[p.new.index()].name);
            if any_o || any_n || wo.contains(info.name.as_str()) || wn.contains(new_name) {
                out.push(k);
            }
        }
        out
    }

    /// Whether instruction `i` of one version has an effect the caller or the outside can
    /// observe: output, a call that may have one (unknown functions, helpers of the file that
    /// are not effect-free, calls through pointers), or an access to a volatile object. (What
    /// stores through pointers write is compared where the versions return, by the analysis.)
    pub(super) fn effect_of(&self, side: Side, i: usize) -> Option<DiffKind> {
        let (f, defined, effect_free) = if side == Side::Old {
            (self.old, &self.old_defined, &self.old_effect_free)
        } else {
            (self.new, &self.new_defined, &self.new_effect_free)
        };
        let kind = &f.instrs[i].kind;
        if touches_volatile(kind, &f.func) {
            return Some(DiffKind::Effect("volatile access".into()));
        }
        match kind {
            InstrKind::Call {
                callee: Callee::Direct(n),
                ..
            } => {
                if defined.contains(n) {
                    // A helper of this file: only its result matters when it has no effect
                    // (its writes to globals are compared at the exit); otherwise the call is
                    // compared like any other effect.
                    (!effect_free.contains(n)).then(|| DiffKind::Effect(n.clone()))
                } else if self.opts.output_functions.iter().any(|o| o == n) {
                    Some(DiffKind::Output(n.clone()))
                } else if PURE_FUNCTIONS.contains(&n.as_str()) {
                    None
                } else {
                    Some(DiffKind::Effect(n.clone()))
                }
            }
            InstrKind::Call {
                callee: Callee::Indirect(_),
                ..
            } => Some(DiffKind::Effect("indirect call".into())),
            // Stores are not compared one by one: the memory they write is, where the versions
            // return (the analysis' memory layer).
            _ => None,
        }
    }

    /// For a call instruction of one version: a function of the file whose behaviour differs
    /// between the versions and that the call may reach (directly, or through a pointer), so
    /// that equal arguments do not make the call's effect equal.
    pub(super) fn changed_target(&self, side: Side, i: usize) -> Option<String> {
        let (f, defined, taken) = if side == Side::Old {
            (self.old, &self.old_defined, &self.old_addr_taken)
        } else {
            (self.new, &self.new_defined, &self.new_addr_taken)
        };
        let changed = |n: &str| match &self.opts.changed {
            Some(c) => c.contains(n),
            None => true,
        };
        match &f.instrs[i].kind {
            InstrKind::Call {
                callee: Callee::Direct(n),
                ..
            } => (defined.contains(n) && changed(n)).then(|| n.clone()),
            InstrKind::Call {
                callee: Callee::Indirect(_),
                ..
            } => {
                let mut cands: Vec<&String> = taken.iter().filter(|n| changed(n)).collect();
                cands.sort();
                cands.first().map(|n| n.to_string())
            }
            _ => None,
        }
    }

    pub(super) fn arg_pairs(&self, args: &[Expr]) -> Vec<usize> {
        let vars: Vec<VarId> = args.iter().flat_map(Expr::vars).collect();
        let mut out: Vec<usize> = vars
            .into_iter()
            .filter_map(|v| self.pair_index(v))
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }
}
