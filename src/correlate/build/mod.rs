//! The builder of the product function.
//!
//! Takes the two versions' GCL functions (globals already added, see `globals`), the remap of
//! the new version into the merged program, and the options with any inferred renames; gives
//! the product function and its [`Meta`]: origins, converge and diff points, lockstep loops,
//! variable pairs, inputs and sides, from which `correlate` assembles the [`super::Correlated`].
//!
//! This module sets up variables, guards, inputs and the prologue, then emits the aligned
//! instruction lists ([`emit`]) as [`align`] pairs them, with matched loops in [`lockstep`]
//! (scheduled one to one, unrolled or peeled by [`schedule`]) and diff points where [`points`]
//! finds effects.

mod align;
mod emit;
mod lockstep;
mod points;
mod schedule;

use std::collections::{HashMap, HashSet};

use super::effects::effect_free;
use super::keys;
use super::remap::{tagged, untagged, Remap};
use super::structure;
use super::{DiffKind, DiffPoint, Input, Lockstep, Options, Origin, Side, VarPair};
use crate::diag::Result;
use crate::gcl::{GclFunction, GclProgram, Guard, GuardInfo, Instr, InstrKind};
use crate::ir::{Expr, Line, Place, Pos, VarId, VarInfo, VarKind};

/// What the builder records about the product besides its instructions.
#[derive(Default)]
pub(super) struct Meta {
    pub(super) origins: Vec<Origin>,
    pub(super) converge: Vec<usize>,
    pub(super) diff_points: Vec<DiffPoint>,
    pub(super) lockstep: Vec<Lockstep>,
    pub(super) pairs: Vec<VarPair>,
    pub(super) inputs: Vec<Input>,
    pub(super) var_sides: Vec<Side>,
    pub(super) guard_sides: Vec<Side>,
    pub(super) paired_guards: Vec<(crate::ir::GuardId, crate::ir::GuardId)>,
}

/// Build the product of `fo` and `fnew`, the functions of the programs `old` and `new`.
pub(super) fn product(
    old: &GclProgram,
    new: &GclProgram,
    fo: &GclFunction,
    fnew: &GclFunction,
    remap: &Remap,
    opts: &Options,
) -> Result<(GclFunction, Meta)> {
    let mut builder = Builder::new(fo, fnew, remap, opts);
    // Functions the frontend rejected are defined in the file too: a call to a changed one
    // must not count as an unknown function's (equal results for equal arguments).
    let defined = |p: &GclProgram| -> HashSet<String> {
        p.functions
            .iter()
            .map(|f| f.name.clone())
            .chain(p.program.rejected.iter().map(|(n, _)| n.clone()))
            .collect()
    };
    builder.old_defined = defined(old);
    builder.new_defined = defined(new);
    builder.old_effect_free = effect_free(old);
    builder.new_effect_free = effect_free(new);
    builder.old_addr_taken = crate::changes::CallGraph::new(old).address_taken().clone();
    builder.new_addr_taken = crate::changes::CallGraph::new(new).address_taken().clone();
    builder.old_globals = old.program.globals.clone();
    builder.new_globals = new.program.globals.clone();
    builder.build()
}

/// One construction of the product: the two versions, what is known about their programs, and
/// the product built so far (variables, guards, labels, instructions, [`Meta`]).
struct Builder<'a> {
    old: &'a GclFunction,
    new: &'a GclFunction,
    remap: &'a Remap,
    opts: &'a Options,
    okeys: Vec<String>,
    nkeys: Vec<String>,
    /// What each assignment computes and what it writes, apart ([`keys::Keys::partial`]).
    ovals: Vec<Option<(String, String)>>,
    nvals: Vec<Option<(String, String)>>,
    vars: Vec<VarInfo>,
    guards: Vec<GuardInfo>,
    /// Product label positions; old labels first, then new, then the product's own.
    labels: Vec<Option<usize>>,
    instrs: Vec<Instr>,
    meta: Meta,
    loop_count: usize,
    /// Per matched pair of loops (by their heads): its weight and schedule.
    loop_weight: HashMap<(usize, usize), (usize, schedule::Plan)>,
    /// The guard of each peeled loop (by side and head) that says whether it still runs.
    peel_guards: HashMap<(Side, usize), crate::ir::GuardId>,
    /// The activity guard of each lockstep loop being emitted (by side and head), which the
    /// steps of its unrolled copies update.
    unroll_guards: HashMap<(Side, usize), crate::ir::GuardId>,
    old_defined: HashSet<String>,
    new_defined: HashSet<String>,
    /// Functions of each version without observable effects (see [`effect_free`]).
    old_effect_free: HashSet<String>,
    new_effect_free: HashSet<String>,
    /// Functions whose address each version takes (targets of its indirect calls).
    old_addr_taken: std::collections::BTreeSet<String>,
    new_addr_taken: std::collections::BTreeSet<String>,
    /// Globals of the two programs as declared (the merged program shifts the new ones past
    /// the old ones).
    old_globals: Vec<crate::ir::GlobalVar>,
    new_globals: Vec<crate::ir::GlobalVar>,
}

impl<'a> Builder<'a> {
    fn new(
        old: &'a GclFunction,
        new: &'a GclFunction,
        remap: &'a Remap,
        opts: &'a Options,
    ) -> Self {
        let ko = keys::Keys::against(old, HashMap::new(), new);
        // Renamed variables compare under their old names, so their instructions can match.
        let kn = keys::Keys::with_guards(
            new,
            opts.map
                .iter()
                .map(|(o, n)| (n.clone(), o.clone()))
                .collect(),
            &opts.guard_pairs.iter().cloned().collect(),
            Some(old),
        );
        let paired_guards = kn
            .paired_guards(&ko)
            .into_iter()
            .map(|(n, o)| (o, remap.guard(n)))
            .collect();
        let okeys = (0..old.instrs.len()).map(|i| ko.instr(i)).collect();
        let nkeys = (0..new.instrs.len()).map(|i| kn.instr(i)).collect();
        let ovals = (0..old.instrs.len()).map(|i| ko.partial(i)).collect();
        let nvals = (0..new.instrs.len()).map(|i| kn.partial(i)).collect();
        Builder {
            old,
            new,
            remap,
            opts,
            okeys,
            nkeys,
            ovals,
            nvals,
            vars: vec![],
            guards: vec![],
            labels: vec![None; old.labels.len() + new.labels.len()],
            instrs: vec![],
            meta: Meta {
                paired_guards,
                ..Meta::default()
            },
            loop_count: 0,
            loop_weight: HashMap::new(),
            peel_guards: HashMap::new(),
            unroll_guards: HashMap::new(),
            old_defined: HashSet::new(),
            new_defined: HashSet::new(),
            old_effect_free: HashSet::new(),
            new_effect_free: HashSet::new(),
            old_addr_taken: Default::default(),
            new_addr_taken: Default::default(),
            old_globals: vec![],
            new_globals: vec![],
        }
    }

    fn build(mut self) -> Result<(GclFunction, Meta)> {
        let (old, new) = (self.old, self.new);
        // Variables: old as they are, new tagged, then input copies.
        self.vars = old.func.vars.clone();
        for v in &new.func.vars {
            let mut v = v.clone();
            v.name = tagged(&v.name);
            v.ty = self.remap.ty(&v.ty);
            if let VarKind::Global(g) = v.kind {
                v.kind = VarKind::Global(self.remap.global(g));
            }
            self.vars.push(v);
        }
        self.guards = old.guards.clone();
        for g in &new.guards {
            let mut g = g.clone();
            g.name = tagged(&g.name);
            self.guards.push(g);
        }
        self.meta.var_sides = [
            (old.func.vars.len(), Side::Old),
            (new.func.vars.len(), Side::New),
        ]
        .iter()
        .flat_map(|&(n, side)| std::iter::repeat_n(side, n))
        .collect();
        self.meta.guard_sides = [(old.guards.len(), Side::Old), (new.guards.len(), Side::New)]
            .iter()
            .flat_map(|&(n, side)| std::iter::repeat_n(side, n))
            .collect();
        let mut params = old.func.params.clone();
        // Parameters correspond by position unless mapped by name.
        let mut param_pairs = vec![];
        for (k, np) in new.func.params.iter().enumerate() {
            let nname = &new.func.var(*np).name;
            let mapped = self
                .opts
                .map
                .iter()
                .find(|(_, n)| n == nname)
                .and_then(|(o, _)| old.func.find_var(o));
            let op = mapped.or_else(|| old.func.params.get(k).copied());
            let nv = self.remap.var(*np);
            match op {
                Some(op) if old.func.var(op).kind == VarKind::Param => {
                    self.vars[nv.index()].kind = VarKind::Local;
                    param_pairs.push((op, nv));
                }
                _ => params.push(nv),
            }
        }
        // Inputs: parameters, then globals either version references.
        let line = old.func.line;
        for &p in &old.func.params {
            let newp = param_pairs.iter().find(|(o, _)| *o == p).map(|x| x.1);
            self.add_input(Some(p), newp, line);
        }
        for &p in params.iter().skip(old.func.params.len()) {
            self.add_input(None, Some(p), line);
        }
        let mut new_globals: Vec<VarId> = (0..new.func.vars.len())
            .map(VarId::new)
            .filter(|v| matches!(new.func.var(*v).kind, VarKind::Global(_)))
            .collect();
        for (i, v) in old.func.vars.iter().enumerate() {
            if let VarKind::Global(_) = v.kind {
                let partner = self.partner_name(&v.name);
                let nv = partner.and_then(|n| {
                    let pos = new_globals
                        .iter()
                        .position(|x| new.func.var(*x).name == n)?;
                    Some(self.remap.var(new_globals.remove(pos)))
                });
                self.add_input(Some(VarId::new(i)), nv, line);
            }
        }
        for nv in new_globals {
            let nv = self.remap.var(nv);
            self.add_input(None, Some(nv), line);
        }
        // Prologue: equal inputs, untouched copies.
        for (o, n) in &param_pairs {
            let ty = self.vars[n.index()].ty.clone();
            self.push_glue(
                Guard::default(),
                InstrKind::Assign(Place::Var(*n), Expr::var(*o, ty)),
                line,
            );
        }
        for k in 0..self.meta.inputs.len() {
            let inp = self.meta.inputs[k].clone();
            let src = inp.old.or(inp.new).expect("input has a side");
            let ty = self.vars[src.index()].ty.clone();
            if ty.is_scalar() {
                self.push_glue(
                    Guard::default(),
                    InstrKind::Assign(Place::Var(inp.copy), Expr::var(src, ty)),
                    line,
                );
            }
        }
        self.pair_variables(&param_pairs);

        let oitems = structure::items(old);
        let nitems = structure::items(new);
        self.emit_seq(&oitems, &nitems, &[], &[]);
        // Labels never reached by a position (targets at the very end) point at the exit.
        let end = self.instrs.len();
        for l in self.labels.iter_mut() {
            if l.is_none() {
                *l = Some(end);
            }
        }
        let exit_pairs = self.exit_pairs();
        self.meta.diff_points.push(DiffPoint {
            pos: Pos::new(end),
            kind: DiffKind::Exit,
            old_line: old.func.end_line.0,
            new_line: new.func.end_line.0,
            label: format!("exit@{}/{}", old.func.end_line.0, new.func.end_line.0),
            pairs: exit_pairs,
            old_pos: None,
            new_pos: None,
            changed_callee: None,
        });
        let mut func = old.func.clone();
        func.name = format!("{}^{}'", old.name, new.name);
        func.vars = self.vars;
        func.params = params;
        func.body = vec![];
        let pf = GclFunction {
            name: func.name.clone(),
            func,
            guards: self.guards,
            instrs: self.instrs,
            labels: self.labels.into_iter().map(|l| l.unwrap_or(end)).collect(),
            retval: old.retval,
            ret_flag: old.ret_flag,
        };
        Ok((pf, self.meta))
    }

    fn partner_name(&self, old_name: &str) -> Option<String> {
        match self.opts.map.iter().find(|(o, _)| o == old_name) {
            Some((_, n)) => Some(n.clone()),
            None => Some(old_name.to_string()),
        }
    }

    /// Parameters always start equal; globals when declared alike (see [`Input::equal`]).
    fn same_initial_value(&self, o: VarId, n: VarId) -> bool {
        let (VarKind::Global(go), VarKind::Global(gn)) =
            (self.vars[o.index()].kind, self.vars[n.index()].kind)
        else {
            return true;
        };
        let b = gn
            .index()
            .checked_sub(self.old_globals.len())
            .and_then(|i| self.new_globals.get(i));
        let (Some(a), Some(b)) = (self.old_globals.get(go.index()), b) else {
            return false;
        };
        // Compared through their debug form: a spurious mismatch only loses precision.
        a.ty == b.ty
            && a.is_extern == b.is_extern
            && format!("{:?}", a.init) == format!("{:?}", b.init)
    }

    fn add_input(&mut self, old: Option<VarId>, new: Option<VarId>, line: Line) {
        let src = old.or(new).expect("input has a side");
        let base = untagged(&self.vars[src.index()].name).to_string();
        let ty = self.vars[src.index()].ty.clone();
        self.vars.push(VarInfo {
            name: format!("{base}₀"),
            ty,
            kind: VarKind::Local,
            addr_taken: false,
            volatile: false,
            line,
        });
        let copy = VarId::new(self.vars.len() - 1);
        self.meta.var_sides.push(Side::Glue);
        let equal = match (old, new) {
            (Some(o), Some(n)) => self.same_initial_value(o, n),
            _ => false,
        };
        self.meta.inputs.push(Input {
            old,
            new,
            copy,
            equal,
        });
    }

    /// Corresponding variables: parameters by position (or map), everything else by name.
    fn pair_variables(&mut self, param_pairs: &[(VarId, VarId)]) {
        let (old, new) = (self.old, self.new);
        let mut pairs: Vec<VarPair> = param_pairs
            .iter()
            .map(|(o, n)| VarPair { old: *o, new: *n })
            .collect();
        let mut by_name: HashMap<&str, VarId> = HashMap::new();
        for (i, v) in new.func.vars.iter().enumerate() {
            if v.kind != VarKind::Param {
                by_name.insert(v.name.as_str(), VarId::new(i));
            }
        }
        for (i, v) in old.func.vars.iter().enumerate() {
            if v.kind == VarKind::Param {
                continue;
            }
            let name = self.partner_name(&v.name).unwrap_or_default();
            if let Some(&nv) = by_name.get(name.as_str()) {
                if new.func.var(nv).ty.is_scalar() == v.ty.is_scalar() {
                    pairs.push(VarPair {
                        old: VarId::new(i),
                        new: self.remap.var(nv),
                    });
                }
            }
        }
        // retval ↔ retval' even if the frontends named them alike already
        if let (Some(o), Some(n)) = (old.retval, new.retval) {
            let n = self.remap.var(n);
            if !pairs.iter().any(|p| p.old == o) {
                pairs.push(VarPair { old: o, new: n });
            }
        }
        self.meta.pairs = pairs;
    }

    fn pair_index(&self, old: VarId) -> Option<usize> {
        self.meta.pairs.iter().position(|p| p.old == old)
    }
}
