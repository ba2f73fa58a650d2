//! Scalar replacement of local structs: `p.x` becomes a variable of its own.
//!
//! Takes a flattened [`GclFunction`] and the program's struct table; rewrites it in place. A local
//! struct variable whose address is never taken and which is only ever used field by field
//! (besides being zero-filled or left indeterminate at its declaration) is replaced by one scalar
//! variable per field, named `p.x`. The interpreter gives the same results either way; the
//! analysis, which does not track memory, can then follow the fields as numbers instead of
//! reading them as unknown values. Structs with a non-scalar field, unions, parameters, and any
//! variable used whole (copied, passed, returned, addressed) are left alone.

use std::collections::HashMap;

use super::{GclFunction, Instr, InstrKind};
use crate::ir::{CType, Callee, Expr, ExprKind, Place, StructDef, VarId, VarInfo, VarKind};

/// Replace the eligible local structs of `f` by scalars.
pub fn scalarize(f: &mut GclFunction, structs: &[StructDef]) {
    let mut cand: HashMap<VarId, Vec<VarId>> = HashMap::new();
    for (i, v) in f.func.vars.iter().enumerate() {
        let CType::Struct(s) = v.ty else { continue };
        let Some(def) = structs.get(s.index()) else {
            continue;
        };
        if v.kind == VarKind::Local
            && !v.addr_taken
            && def.complete
            && !def.is_union
            && !def.fields.is_empty()
            && def.fields.iter().all(|fl| fl.ty.is_scalar())
        {
            cand.insert(VarId::new(i), vec![]);
        }
    }
    if cand.is_empty() {
        return;
    }
    let mut bad = vec![];
    for ins in &f.instrs {
        uses(ins, &mut |v| bad.push(v));
    }
    for v in bad {
        cand.remove(&v);
    }
    if cand.is_empty() {
        return;
    }
    // One scalar per field.
    let mut ids: Vec<VarId> = cand.keys().copied().collect();
    ids.sort();
    for v in &ids {
        let info = f.func.var(*v).clone();
        let CType::Struct(s) = info.ty else { continue };
        let mut fields = vec![];
        for fl in &structs[s.index()].fields {
            fields.push(VarId::new(f.func.vars.len()));
            f.func.vars.push(VarInfo {
                name: format!("{}.{}", info.name, fl.name),
                ty: fl.ty.clone(),
                kind: VarKind::Local,
                addr_taken: false,
                volatile: false,
                line: info.line,
            });
        }
        cand.insert(*v, fields);
    }
    // Rewrite; a whole-struct zero fill or havoc becomes one per field, so labels move.
    let mut out: Vec<Instr> = Vec::with_capacity(f.instrs.len());
    let mut moved = Vec::with_capacity(f.instrs.len() + 1);
    for ins in std::mem::take(&mut f.instrs) {
        moved.push(out.len());
        let whole = match &ins.kind {
            InstrKind::ZeroFill(Place::Var(v)) | InstrKind::Havoc(Place::Var(v)) => cand
                .get(v)
                .map(|fs| (fs, matches!(ins.kind, InstrKind::ZeroFill(_)))),
            _ => None,
        };
        if let Some((fields, zero)) = whole {
            for &fv in fields {
                let ty = f.func.var(fv).ty.clone();
                let kind = if zero {
                    InstrKind::Assign(Place::Var(fv), zero_of(&ty))
                } else {
                    InstrKind::Havoc(Place::Var(fv))
                };
                out.push(Instr {
                    guard: ins.guard.clone(),
                    kind,
                    line: ins.line,
                });
            }
            continue;
        }
        let kind = match ins.kind {
            InstrKind::SetGuard(g, e) => InstrKind::SetGuard(g, expr(e, &cand)),
            InstrKind::Assign(p, e) => InstrKind::Assign(place(p, &cand), expr(e, &cand)),
            InstrKind::Havoc(p) => InstrKind::Havoc(place(p, &cand)),
            InstrKind::ZeroFill(p) => InstrKind::ZeroFill(place(p, &cand)),
            InstrKind::Call { dest, callee, args } => InstrKind::Call {
                dest: dest.map(|p| place(p, &cand)),
                callee: match callee {
                    Callee::Indirect(e) => Callee::Indirect(expr(e, &cand)),
                    c => c,
                },
                args: args.into_iter().map(|a| expr(a, &cand)).collect(),
            },
            k @ InstrKind::Goto(_) => k,
        };
        out.push(Instr { kind, ..ins });
    }
    moved.push(out.len());
    for l in &mut f.labels {
        *l = moved[*l];
    }
    f.instrs = out;
}

/// The value a zero fill gives a scalar of type `ty`.
fn zero_of(ty: &CType) -> Expr {
    let kind = match ty {
        CType::Float | CType::Double => ExprKind::Float(0.0),
        CType::Ptr(_) => ExprKind::Cast(Box::new(Expr {
            kind: ExprKind::Int(0),
            ty: CType::Int {
                bits: 64,
                signed: true,
            },
        })),
        _ => ExprKind::Int(0),
    };
    Expr {
        kind,
        ty: ty.clone(),
    }
}

/// Report every variable `ins` uses other than field by field (or as the whole target of a
/// zero fill or havoc).
fn uses(ins: &Instr, bad: &mut impl FnMut(VarId)) {
    match &ins.kind {
        InstrKind::ZeroFill(Place::Var(_)) | InstrKind::Havoc(Place::Var(_)) => {}
        InstrKind::SetGuard(_, e) => expr_uses(e, bad),
        InstrKind::Assign(p, e) => {
            place_uses(p, bad);
            expr_uses(e, bad);
        }
        InstrKind::Havoc(p) | InstrKind::ZeroFill(p) => place_uses(p, bad),
        InstrKind::Call { dest, callee, args } => {
            if let Some(p) = dest {
                place_uses(p, bad);
            }
            if let Callee::Indirect(e) = callee {
                expr_uses(e, bad);
            }
            args.iter().for_each(|a| expr_uses(a, bad));
        }
        InstrKind::Goto(_) => {}
    }
}

fn place_uses(p: &Place, bad: &mut impl FnMut(VarId)) {
    match p {
        Place::Var(v) => bad(*v),
        Place::Field(inner, ..) if matches!(**inner, Place::Var(_)) => {}
        Place::Field(inner, ..) => place_uses(inner, bad),
        Place::Deref(e, _) => expr_uses(e, bad),
        Place::Index(b, e, _) => {
            place_uses(b, bad);
            expr_uses(e, bad);
        }
    }
}

fn expr_uses(e: &Expr, bad: &mut impl FnMut(VarId)) {
    match &e.kind {
        // The whole struct read as a value (copied, returned, passed).
        ExprKind::Var(v) => bad(*v),
        ExprKind::Load(p) => place_uses(p, bad),
        // The address of a field exposes the struct's memory.
        ExprKind::AddrOf(p) => {
            let mut q: &Place = p;
            while let Place::Field(inner, ..) = q {
                q = inner;
            }
            place_uses(q, bad);
            place_uses(p, bad);
        }
        ExprKind::Unary(_, x) | ExprKind::Cast(x) => expr_uses(x, bad),
        ExprKind::Binary(_, a, b) | ExprKind::Logic(_, a, b) => {
            expr_uses(a, bad);
            expr_uses(b, bad);
        }
        _ => {}
    }
}

/// The scalar standing for `p.n`, if `p` is replaced.
fn field_var(p: &Place, cand: &HashMap<VarId, Vec<VarId>>) -> Option<VarId> {
    match p {
        Place::Field(inner, _, n, _) => match **inner {
            Place::Var(v) => cand.get(&v)?.get(*n as usize).copied(),
            _ => None,
        },
        _ => None,
    }
}

fn place(p: Place, cand: &HashMap<VarId, Vec<VarId>>) -> Place {
    if let Some(v) = field_var(&p, cand) {
        return Place::Var(v);
    }
    match p {
        Place::Field(inner, s, n, t) => Place::Field(Box::new(place(*inner, cand)), s, n, t),
        Place::Deref(e, t) => Place::Deref(expr(e, cand), t),
        Place::Index(b, e, t) => Place::Index(Box::new(place(*b, cand)), expr(e, cand), t),
        p @ Place::Var(_) => p,
    }
}

fn expr(e: Expr, cand: &HashMap<VarId, Vec<VarId>>) -> Expr {
    let kind = match e.kind {
        ExprKind::Load(p) => match field_var(&p, cand) {
            Some(v) => ExprKind::Var(v),
            None => ExprKind::Load(Box::new(place(*p, cand))),
        },
        ExprKind::AddrOf(p) => ExprKind::AddrOf(Box::new(place(*p, cand))),
        ExprKind::Unary(op, x) => ExprKind::Unary(op, Box::new(expr(*x, cand))),
        ExprKind::Cast(x) => ExprKind::Cast(Box::new(expr(*x, cand))),
        ExprKind::Binary(op, a, b) => {
            ExprKind::Binary(op, Box::new(expr(*a, cand)), Box::new(expr(*b, cand)))
        }
        ExprKind::Logic(op, a, b) => {
            ExprKind::Logic(op, Box::new(expr(*a, cand)), Box::new(expr(*b, cand)))
        }
        k => k,
    };
    Expr { kind, ty: e.ty }
}
