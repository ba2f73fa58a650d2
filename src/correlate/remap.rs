//! Renaming the new version into the merged program's index spaces.
//!
//! Takes the old and new programs; gives the offsets that move the new version's variables,
//! guards, labels, structs, globals and strings past the old ones, the `'` tag for its globals and
//! functions, and the merged program (old functions, tagged new functions, both sets of globals)
//! in which the product function runs. Used only by the correlator.

use std::collections::HashSet;

use crate::gcl::{GclFunction, GclProgram, Guard, Instr, InstrKind, Lit};
use crate::ir::{
    CType, Callee, Expr, ExprKind, FuncType, GlobalId, GuardId, Place, Program, StrId, StructId,
    VarId, VarKind,
};

pub struct Remap {
    var_off: usize,
    guard_off: usize,
    struct_off: usize,
    global_off: usize,
    str_off: usize,
    /// Functions defined in the new program (calls to them go to the tagged copies).
    new_funcs: HashSet<String>,
}

impl Remap {
    /// Renaming for the new program's own functions (variables and guards stay put).
    pub fn for_new(old: &GclProgram, new: &GclProgram) -> Remap {
        Remap {
            var_off: 0,
            guard_off: 0,
            struct_off: old.program.structs.len(),
            global_off: old.program.globals.len(),
            str_off: old.program.strings.len(),
            new_funcs: new.functions.iter().map(|f| f.name.clone()).collect(),
        }
    }

    /// The same renaming with variables and guards shifted past `old`'s (for the product).
    pub fn for_product(&self, old: &GclFunction) -> Remap {
        Remap {
            var_off: old.func.vars.len(),
            guard_off: old.guards.len(),
            struct_off: self.struct_off,
            global_off: self.global_off,
            str_off: self.str_off,
            new_funcs: self.new_funcs.clone(),
        }
    }

    pub fn var(&self, v: VarId) -> VarId {
        VarId::new(v.index() + self.var_off)
    }
    pub fn guard(&self, g: GuardId) -> GuardId {
        GuardId::new(g.index() + self.guard_off)
    }
    pub fn global(&self, g: GlobalId) -> GlobalId {
        GlobalId::new(g.index() + self.global_off)
    }
    fn func_name(&self, n: &str) -> String {
        if self.new_funcs.contains(n) {
            tagged(n)
        } else {
            n.to_string()
        }
    }

    pub fn ty(&self, t: &CType) -> CType {
        match t {
            CType::Struct(s) => CType::Struct(StructId::new(s.index() + self.struct_off)),
            CType::Ptr(t) => CType::Ptr(Box::new(self.ty(t))),
            CType::Array(t, n) => CType::Array(Box::new(self.ty(t)), *n),
            CType::Func(f) => CType::Func(Box::new(FuncType {
                ret: self.ty(&f.ret),
                params: f.params.iter().map(|p| self.ty(p)).collect(),
                variadic: f.variadic,
            })),
            t => t.clone(),
        }
    }

    pub fn expr(&self, e: &Expr) -> Expr {
        let kind = match &e.kind {
            ExprKind::Var(v) => ExprKind::Var(self.var(*v)),
            ExprKind::Guard(g) => ExprKind::Guard(self.guard(*g)),
            ExprKind::Load(p) => ExprKind::Load(Box::new(self.place(p))),
            ExprKind::AddrOf(p) => ExprKind::AddrOf(Box::new(self.place(p))),
            ExprKind::Str(s) => ExprKind::Str(StrId::new(s.index() + self.str_off)),
            ExprKind::GlobalAddr(g) => ExprKind::GlobalAddr(self.global(*g)),
            ExprKind::FuncAddr(n) => ExprKind::FuncAddr(self.func_name(n)),
            ExprKind::Unary(op, x) => ExprKind::Unary(*op, Box::new(self.expr(x))),
            ExprKind::Binary(op, a, b) => {
                ExprKind::Binary(*op, Box::new(self.expr(a)), Box::new(self.expr(b)))
            }
            ExprKind::Logic(op, a, b) => {
                ExprKind::Logic(*op, Box::new(self.expr(a)), Box::new(self.expr(b)))
            }
            ExprKind::Cast(x) => ExprKind::Cast(Box::new(self.expr(x))),
            k @ (ExprKind::Int(_) | ExprKind::Float(_) | ExprKind::Opaque(_)) => k.clone(),
        };
        Expr {
            kind,
            ty: self.ty(&e.ty),
        }
    }

    pub fn place(&self, p: &Place) -> Place {
        match p {
            Place::Var(v) => Place::Var(self.var(*v)),
            Place::Deref(e, t) => Place::Deref(self.expr(e), self.ty(t)),
            Place::Index(b, i, t) => {
                Place::Index(Box::new(self.place(b)), self.expr(i), self.ty(t))
            }
            Place::Field(b, s, k, t) => Place::Field(
                Box::new(self.place(b)),
                StructId::new(s.index() + self.struct_off),
                *k,
                self.ty(t),
            ),
        }
    }

    pub fn instr(&self, i: &Instr) -> Instr {
        let guard = Guard(
            i.guard
                .0
                .iter()
                .map(|l| Lit {
                    guard: self.guard(l.guard),
                    positive: l.positive,
                })
                .collect(),
        );
        let kind = match &i.kind {
            InstrKind::SetGuard(g, e) => InstrKind::SetGuard(self.guard(*g), self.expr(e)),
            InstrKind::Assign(p, e) => InstrKind::Assign(self.place(p), self.expr(e)),
            InstrKind::Havoc(p) => InstrKind::Havoc(self.place(p)),
            InstrKind::ZeroFill(p) => InstrKind::ZeroFill(self.place(p)),
            InstrKind::Call { dest, callee, args } => InstrKind::Call {
                dest: dest.as_ref().map(|d| self.place(d)),
                callee: match callee {
                    Callee::Direct(n) => Callee::Direct(self.func_name(n)),
                    Callee::Indirect(e) => Callee::Indirect(self.expr(e)),
                },
                args: args.iter().map(|a| self.expr(a)).collect(),
            },
            // Labels are shifted by the caller, which knows the label layout.
            InstrKind::Goto(l) => InstrKind::Goto(*l),
        };
        Instr {
            guard,
            kind,
            line: i.line,
        }
    }

    /// A whole new-version function, tagged, for the merged program.
    fn function(&self, f: &GclFunction) -> GclFunction {
        let mut g = f.clone();
        g.name = self.func_name(&f.name);
        g.func.name = g.name.clone();
        for v in g.func.vars.iter_mut() {
            v.ty = self.ty(&v.ty);
            if let VarKind::Global(x) = v.kind {
                v.kind = VarKind::Global(self.global(x));
            }
        }
        g.func.body.clear();
        g.instrs = f.instrs.iter().map(|i| self.instr(i)).collect();
        g
    }

    /// Old program + tagged new program (functions and globals), without the product.
    pub fn merge_programs(&self, old: &GclProgram, new: &GclProgram) -> GclProgram {
        let mut p: Program = old.program.clone();
        p.file = format!("{} ⋈ {}", old.program.file, new.program.file);
        for s in &new.program.structs {
            let mut s = s.clone();
            for f in s.fields.iter_mut() {
                f.ty = self.ty(&f.ty);
            }
            p.structs.push(s);
        }
        for g in &new.program.globals {
            let mut g = g.clone();
            g.name = tagged(&g.name);
            g.ty = self.ty(&g.ty);
            g.init = g
                .init
                .iter()
                .map(|(o, t, e)| (*o, self.ty(t), self.expr(e)))
                .collect();
            p.globals.push(g);
        }
        p.strings.extend(new.program.strings.iter().cloned());
        for (n, ft) in &new.program.externs {
            if !p.externs.iter().any(|(m, _)| m == n) {
                p.externs.push((n.clone(), ft.clone()));
            }
        }
        p.library.extend(new.program.library.iter().cloned());
        for r in &new.program.rejected {
            if !p.rejected.iter().any(|(m, _)| *m == r.0) {
                p.rejected.push(r.clone());
            }
        }
        p.notes.extend(new.program.notes.iter().cloned());
        p.functions.clear();
        let mut functions = old.functions.clone();
        functions.extend(new.functions.iter().map(|f| self.function(f)));
        GclProgram {
            program: p,
            functions,
        }
    }
}

/// The merged program's name for a function or global of the new version: its source name with
/// a `'` (the listing's tag). The tag is a name only: sides are `Correlated`'s explicit fields.
pub(super) fn tagged(name: &str) -> String {
    format!("{name}'")
}

/// The source name behind a (possibly tagged) merged-program name.
pub(super) fn untagged(name: &str) -> &str {
    name.strip_suffix('\'').unwrap_or(name)
}
