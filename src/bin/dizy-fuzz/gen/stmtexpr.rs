//! GNU statement expressions: `({ decls; stmts; value; })` and the typed-`max` macro's
//! `({ __typeof__(a) _a = (a); __typeof__(b) _b = (b); _a > _b ? _a : _b; })`.
//!
//! Takes the generator and a [`Scope`]; gives statement expressions with declarations (fresh
//! names, or shadowing a parameter or local with one of the same type, never read in its own
//! initializer), statements (assignments, branches, loops whose `break`/`continue` stay inside,
//! calls, nested statement expressions) and a value. A *pure* one writes nothing but its own
//! declarations and its own loop counters and calls nothing, so it may stand anywhere in an
//! expression ([`Gen::iexpr`], [`Gen::fexpr`], loop bounds). One with side effects on the
//! outer variables, calls or output stands only where nothing else of the expression is
//! unsequenced against it: the whole right side of `v = …`, the whole condition of an `if`, an
//! operand of `&&`/`||`/`?:` there (so its effects happen only when it is evaluated), a returned
//! value, or a statement of its own (the `void` form). A leaving one (a `return` inside, which
//! skips the rest of the enclosing assignment) is generated now and then.

use super::*;

/// What a statement expression may do.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum SeKind {
    /// Writes only its own declarations and loop counters, calls nothing.
    Pure,
    /// May write outer variables, call helpers and print.
    Effects,
    /// With effects, and a `return` inside.
    Leaving,
}

/// The scope a pure statement expression's expressions are made in: nothing to call, nothing
/// outer to write.
pub(super) fn pure_scope(sc: &Scope) -> Scope {
    let mut s = sc.clone();
    s.helpers.clear();
    s.tables.clear();
    s.fnptrs.clear();
    s.int_lv.clear();
    s.float_lv.clear();
    s.print = false;
    for a in &mut s.arrays {
        a.writable = false;
    }
    s
}

impl Gen<'_> {
    /// Whether statement expressions may be made here.
    pub(super) fn stmt_exprs_here(&self, sc: &Scope) -> bool {
        sc.stmt_expr > 0 && !sc.ctx.in_spin
    }

    /// A statement expression of integer value.
    pub(super) fn stmt_expr(&mut self, sc: &Scope, kind: SeKind) -> Expr {
        let outer = if kind == SeKind::Pure {
            pure_scope(sc)
        } else {
            sc.clone()
        };
        if kind != SeKind::Leaving && self.rng.chance(25) {
            return self.typed_max(&outer, false);
        }
        let n = self.counter;
        self.counter += 1;
        let mut inner = outer.clone();
        inner.stmt_expr = sc.stmt_expr.saturating_sub(1);
        inner.ctx = Ctx {
            in_stmt_expr: true,
            ..Ctx::default()
        };
        // declarations: a pure one needs one to write
        let nd = if kind != SeKind::Pure && self.rng.chance(20) {
            0
        } else {
            1 + self.rng.below(2)
        };
        let mut decls: Vec<SeDecl> = vec![];
        for k in 0..nd {
            let shadowable: Vec<(String, Ty)> = sc
                .shadow
                .iter()
                .filter(|(v, _)| !decls.iter().any(|d| &d.name == v))
                .cloned()
                .collect();
            let (name, ty) = if !shadowable.is_empty() && self.rng.chance(30) {
                self.rng.pick(&shadowable).clone()
            } else {
                let k_ty = *self.rng.pick(&[
                    IntK::Int,
                    IntK::Int,
                    IntK::Int,
                    IntK::Long,
                    IntK::UInt,
                    IntK::UChar,
                    IntK::Short,
                ]);
                (format!("se{n}_{k}"), Ty::I(k_ty))
            };
            // the initializer never reads the name it declares (that would be the new,
            // uninitialized object)
            let mut init_sc = inner.clone();
            init_sc.ints.retain(|e| e.root() != name);
            init_sc.int_lv.retain(|e| e.root() != name);
            let init = self.iexpr(&init_sc, 1);
            inner.ints.retain(|e| e.root() != name);
            inner.int_lv.retain(|e| e.root() != name);
            inner.ints.push(Expr::var(&name));
            inner.int_lv.push(Expr::var(&name));
            decls.push(SeDecl {
                ty,
                name,
                init,
                typeof_: false,
            });
        }
        let mut body = vec![];
        if inner.loops && !inner.int_lv.is_empty() && self.rng.chance(25) {
            body.push(self.se_loop(&inner));
        }
        // loops (which keep dizy's analysis long) only from `se_loop`
        inner.loops = false;
        if !inner.int_lv.is_empty() && (body.is_empty() || self.rng.chance(30)) {
            let nb = 1 + usize::from(self.rng.chance(30));
            let at = self.rng.below(body.len() + 1);
            let more = self.block(&mut inner, nb, 1);
            body.splice(at..at, more);
        }
        if kind == SeKind::Leaving {
            let c = self.cond(&inner);
            let v = self.ret_value(&inner);
            let at = self.rng.below(body.len() + 1);
            body.insert(at, Stmt::If(c, vec![Stmt::Return(v)], vec![]));
        }
        let value = if !decls.is_empty() && self.rng.chance(50) {
            let d = Expr::var(&self.rng.pick(&decls).name);
            if self.rng.chance(50) {
                d
            } else {
                let e = self.iexpr(&inner, 1);
                Expr::bin(*self.rng.pick(&[Op::Add, Op::Xor, Op::Sub]), d, e)
            }
        } else {
            self.iexpr(&inner, 2)
        };
        Expr::stmt_expr(decls, body, Some(value))
    }

    /// A loop inside a statement expression whose `break` or `continue` stays inside it.
    fn se_loop(&mut self, sc: &Scope) -> Stmt {
        let i = self.counter_var();
        let bound = self.bound(sc);
        let mut inner = sc.clone();
        inner.loop_depth += 1;
        inner.ctx.in_loop = true;
        inner.ints.push(Expr::var(&i));
        let mut body = vec![self.assign(&inner)];
        let c = self.cond(&inner);
        let j = if self.rng.chance(50) {
            Stmt::Break
        } else {
            Stmt::Continue
        };
        let at = self.rng.below(2);
        body.insert(at, Stmt::If(c, vec![j], vec![]));
        if self.rng.chance(70) {
            Stmt::For(i, bound, body)
        } else {
            Stmt::While(i, bound, body)
        }
    }

    /// `({ __typeof__(A) _aN = (A); __typeof__(B) _bN = (B); _aN > _bN ? _aN : _bN; })` (or
    /// another comparison: max or min), over integers or floats.
    pub(super) fn typed_max(&mut self, sc: &Scope, float: bool) -> Expr {
        let n = self.counter;
        self.counter += 1;
        // no statement expression inside `__typeof__`
        let mut args = sc.clone();
        args.stmt_expr = 0;
        let (a, b) = if float {
            (self.fexpr(&args, 1), self.fexpr(&args, 1))
        } else {
            (self.iexpr(&args, 1), self.iexpr(&args, 1))
        };
        let (an, bn) = (format!("_a{n}"), format!("_b{n}"));
        let ty = if float { Ty::F64 } else { INT };
        let decl = |name: &str, init: Expr| SeDecl {
            ty: ty.clone(),
            name: name.to_string(),
            init,
            typeof_: true,
        };
        let cmp = *self.rng.pick(&[Op::Gt, Op::Lt, Op::Ge, Op::Le]);
        let value = Expr::cond(
            Expr::bin(cmp, Expr::var(&an), Expr::var(&bn)),
            Expr::var(&an),
            Expr::var(&bn),
        );
        Expr::stmt_expr(vec![decl(&an, a), decl(&bn, b)], vec![], Some(value))
    }

    /// The condition of an `if`: sometimes with a statement expression with effects, alone,
    /// compared, or as an operand of `&&`/`||` evaluated only when the other allows it.
    pub(super) fn if_cond(&mut self, sc: &Scope) -> Expr {
        if !self.stmt_exprs_here(sc) || !self.rng.chance(12) {
            return self.cond(sc);
        }
        let se = self.stmt_expr(sc, SeKind::Effects);
        match self.rng.below(3) {
            0 => Expr::bin(*self.rng.pick(&Op::CMP), se, Expr::Int(self.constant())),
            1 => {
                let c = self.cond(sc);
                Expr::bin(*self.rng.pick(&[Op::LAnd, Op::LOr]), c, se)
            }
            _ => {
                let c = self.cond(sc);
                Expr::bin(*self.rng.pick(&[Op::LAnd, Op::LOr]), se, c)
            }
        }
    }

    /// The right side of `target = …` (plain assignment to a variable): a statement expression
    /// with effects, or one under `?:` (evaluated only when chosen); `None`: not this time.
    pub(super) fn se_rhs(&mut self, sc: &Scope, target: &Expr) -> Option<Expr> {
        if !self.stmt_exprs_here(sc) || !matches!(target, Expr::Var(_)) || !self.rng.chance(12) {
            return None;
        }
        let se = self.stmt_expr(sc, SeKind::Effects);
        Some(if self.rng.chance(30) {
            let c = self.cond(sc);
            let other = self.iexpr(sc, 1);
            if self.rng.chance(50) {
                Expr::cond(c, se, other)
            } else {
                Expr::cond(c, other, se)
            }
        } else {
            se
        })
    }

    /// A statement expression standing as a statement: `({ stmts; });` (no value).
    pub(super) fn se_stmt(&mut self, sc: &Scope) -> Stmt {
        let mut e = self.stmt_expr(sc, SeKind::Effects);
        if let Expr::Block(se) = &mut e {
            if !se.body.is_empty() {
                se.value = None;
            }
        }
        Stmt::Call(e)
    }

    /// `e` → `({ __typeof__(e) t = (e); [a statement with effects;] t; })` for the final return.
    pub(super) fn se_return(&mut self, sc: &Scope, e: Expr) -> Expr {
        let name = format!("ret{}", self.counter);
        self.counter += 1;
        let mut inner = sc.clone();
        inner.ctx = Ctx {
            in_stmt_expr: true,
            ..Ctx::default()
        };
        let body = if !inner.int_lv.is_empty() && self.rng.chance(50) {
            vec![self.assign(&inner)]
        } else {
            vec![]
        };
        let d = SeDecl {
            ty: sc.ret.clone(),
            name: name.clone(),
            init: e,
            typeof_: true,
        };
        Expr::stmt_expr(vec![d], body, Some(Expr::var(&name)))
    }

    /// `stmt-expr`: statement expressions throughout `f` (and its helpers): a typed `max`
    /// assigned, a statement expression with effects in a condition, and every fifth program
    /// about them one that returns from inside (rejected by dizy).
    pub(super) fn add_stmt_expr(&mut self, b: &mut Parts) {
        let Parts {
            sc,
            params,
            locals,
            snippets,
            ..
        } = b;
        sc.stmt_expr = 2;
        sc.shadow = params
            .iter()
            .filter(|p| p.role == Role::Value && p.ty.is_int())
            .map(|p| (p.name.clone(), p.ty.clone()))
            .chain(
                locals
                    .iter()
                    .filter(|l| !l.is_static && l.ty.is_int())
                    .map(|l| (l.name.clone(), l.ty.clone())),
            )
            .collect();
        let vars: Vec<Expr> = sc
            .int_lv
            .iter()
            .filter(|e| matches!(e, Expr::Var(_)))
            .cloned()
            .collect();
        let x = self.rng.pick(&vars).clone();
        let m = if self.rng.chance(50) {
            self.typed_max(sc, false)
        } else {
            self.stmt_expr(sc, SeKind::Effects)
        };
        snippets.push(vec![Stmt::Assign(x, None, m)]);
        let se = self.stmt_expr(sc, SeKind::Effects);
        let c = Expr::bin(*self.rng.pick(&Op::CMP), se, Expr::Int(self.constant()));
        let mut inner = sc.clone();
        inner.ctx.top = false;
        let then = self.block(&mut inner, 1, 1);
        snippets.push(vec![Stmt::If(c, then, vec![])]);
        if self.variant % 5 == 3 {
            let y = self.rng.pick(&vars).clone();
            let l = self.stmt_expr(sc, SeKind::Leaving);
            snippets.push(vec![Stmt::Assign(y, None, l)]);
        }
    }
}
