//! Statements: blocks, branches, loops, early returns, assignments, output, spin loops and
//! small helpers; statement expressions (see [`super::stmtexpr`]) in their conditions, bounds,
//! right sides and returned values, and as statements.
//!
//! Takes the generator and a [`Scope`] (what may be read and written there, which jumps are
//! legal); gives statements, `f`'s final return expression and loop-free helpers.

use super::*;

impl Gen<'_> {
    /// A fresh loop counter (an `int` local initialized to 0).
    pub(super) fn counter_var(&mut self) -> String {
        let i = format!("i{}", self.counter);
        self.counter += 1;
        self.extra.push(local(INT, &i, int_init(0)));
        i
    }

    pub(super) fn bound(&mut self, sc: &Scope) -> Bound {
        let k = self.rng.range(1, 9);
        let vars: Vec<&Expr> = sc
            .ints
            .iter()
            .filter(|v| {
                // not loop counters, not memory that a loop body might change behind our back
                !matches!(v, Expr::Var(n) if n.starts_with('i') && n[1..].chars().all(|c| c.is_ascii_digit()))
                    && !matches!(v, Expr::Index(..))
            })
            .collect();
        if self.stmt_exprs_here(sc) && self.rng.chance(5) {
            // evaluated at every test: pure
            Bound::Clamp(self.stmt_expr(sc, stmtexpr::SeKind::Pure), k)
        } else if self.rng.chance(55) && !vars.is_empty() {
            Bound::Clamp((*self.rng.pick(&vars)).clone(), k)
        } else {
            Bound::Const(k)
        }
    }

    /// A small loop-free `static int NAME(int p0, …)`.
    pub(super) fn small_helper(&mut self, name: &str, arity: usize, outer: &Scope) -> Func {
        let params: Vec<Param> = (0..arity)
            .map(|i| param(INT, &format!("p{i}"), Role::Value))
            .collect();
        let mut sc = Scope {
            ints: params.iter().map(|p| Expr::var(&p.name)).collect(),
            int_lv: params.iter().map(|p| Expr::var(&p.name)).collect(),
            ctx: top_ctx(),
            stmt_expr: outer.stmt_expr.min(1),
            ..Scope::default()
        };
        // globals are visible to helpers too
        for g in outer.ints.iter().filter(|e| e.root().starts_with('g')) {
            sc.ints.push(g.clone());
        }
        for g in outer.int_lv.iter().filter(|e| e.root().starts_with('g')) {
            if self.rng.chance(50) {
                sc.int_lv.push(g.clone());
            }
        }
        let mut locals = vec![];
        if self.rng.chance(50) {
            locals.push(local(INT, "t", int_init(self.constant())));
            sc.ints.push(Expr::var("t"));
            sc.int_lv.push(Expr::var("t"));
        }
        let n = 1 + self.rng.below(2);
        let body = self.block(&mut sc, n, 1);
        let ret_expr = self.iexpr(&sc, 2);
        Func {
            name: name.into(),
            is_static: true,
            ret: INT,
            params,
            locals,
            body,
            ret_expr,
            falls_off: false,
        }
    }

    pub(super) fn ret_expr(&mut self, sc: &Scope) -> Expr {
        if !sc.ret_aggs.is_empty() {
            return self.rng.pick(&sc.ret_aggs).clone();
        }
        if sc.ret.is_float() {
            if sc.floats.contains(&Expr::var("t")) && self.rng.chance(60) {
                return Expr::var("t");
            }
            let mut e = self.fexpr(sc, 2);
            for v in &sc.floats {
                if self.rng.chance(50) {
                    e = Expr::bin(*self.rng.pick(&[Op::Add, Op::Sub, Op::Mul]), e, v.clone());
                }
            }
            return e;
        }
        // the result depends on most variables, so that a change of any is likely observable
        let mut e = self.iexpr(sc, 1);
        for v in &sc.ints {
            if self.rng.chance(80) {
                let op = *self.rng.pick(&[Op::Xor, Op::Xor, Op::Add, Op::Sub]);
                e = Expr::bin(op, e, v.clone());
            }
        }
        if !sc.floats.is_empty() && self.rng.chance(60) {
            let c = self.f2i(sc);
            e = Expr::bin(Op::Xor, e, c);
        }
        e
    }

    pub(super) fn block(&mut self, sc: &mut Scope, n: usize, depth: usize) -> Vec<Stmt> {
        (0..n).map(|_| self.stmt(sc, depth)).collect()
    }

    pub fn stmt(&mut self, sc: &mut Scope, depth: usize) -> Stmt {
        let roll = self.rng.below(100);
        if depth > 0 && roll < 20 {
            let c = self.if_cond(sc);
            let mut inner = sc.clone();
            inner.ctx.top = false;
            let na = 1 + self.rng.below(2);
            let a = self.block(&mut inner, na, depth - 1);
            let b = if self.rng.chance(45) {
                let nb = 1 + self.rng.below(2);
                self.block(&mut inner, nb, depth - 1)
            } else {
                vec![]
            };
            return Stmt::If(c, a, b);
        }
        if depth > 0
            && sc.loops
            && (sc.loop_depth == 0 || (sc.loop_depth == 1 && self.rng.chance(25)))
            && roll < 36
        {
            let i = self.counter_var();
            let bound = self.bound(sc);
            let mut inner = sc.clone();
            inner.loop_depth += 1;
            inner.ctx.in_loop = true;
            inner.ctx.in_switch = false;
            inner.ctx.no_continue = false;
            inner.ctx.top = false;
            inner.ints.push(Expr::var(&i));
            let nb = 1 + self.rng.below(2);
            let body = self.block(&mut inner, nb, depth - 1);
            return if self.rng.chance(70) {
                Stmt::For(i, bound, body)
            } else {
                Stmt::While(i, bound, body)
            };
        }
        if sc.ctx.in_loop && roll < 43 {
            // break/continue under a condition, else the rest of the body would be dead
            let c = self.if_cond(sc);
            let j = if self.rng.chance(50) || sc.ctx.in_spin || sc.ctx.no_continue {
                Stmt::Break
            } else {
                Stmt::Continue
            };
            return Stmt::If(c, vec![j], vec![]);
        }
        if roll < 49 && !sc.ctx.in_spin && !sc.ctx.in_stmt_expr {
            let c = self.if_cond(sc);
            let e = self.ret_value(sc);
            return Stmt::If(c, vec![Stmt::Return(e)], vec![]);
        }
        if sc.print && roll < 56 {
            return self.print_stmt(sc);
        }
        if !sc.helpers.is_empty() && roll < 59 && !sc.ctx.in_spin {
            let h = self.rng.pick(&sc.helpers).clone();
            let call = self.call(sc, &h);
            return Stmt::Call(call);
        }
        if roll < 61 && self.stmt_exprs_here(sc) {
            return self.se_stmt(sc);
        }
        self.assign(sc)
    }

    pub(super) fn ret_value(&mut self, sc: &Scope) -> Expr {
        if !sc.ret_aggs.is_empty() {
            self.rng.pick(&sc.ret_aggs).clone()
        } else if sc.ret.is_float() {
            self.fexpr(sc, 2)
        } else if self.stmt_exprs_here(sc) && self.rng.chance(15) {
            self.stmt_expr(sc, stmtexpr::SeKind::Effects)
        } else {
            self.iexpr(sc, 2)
        }
    }

    pub(super) fn assign(&mut self, sc: &Scope) -> Stmt {
        let float = !sc.float_lv.is_empty() && (sc.int_lv.is_empty() || self.rng.chance(30));
        if float {
            let x = self.float_place(sc, true);
            let op = if self.rng.chance(30) && !sc.ctx.in_spin {
                Some(*self.rng.pick(&[Op::Add, Op::Sub, Op::Mul]))
            } else {
                None
            };
            let e = self.fexpr(sc, 2);
            return Stmt::Assign(x, op, e);
        }
        let x = self.int_place(sc, true);
        let op = if self.rng.chance(35) && !sc.ctx.in_spin {
            Some(
                *self
                    .rng
                    .pick(&[Op::Add, Op::Sub, Op::Add, Op::Xor, Op::And, Op::Or, Op::Mul]),
            )
        } else {
            None
        };
        let e = match op {
            None => self.se_rhs(sc, &x),
            Some(_) => None,
        };
        let e = e.unwrap_or_else(|| self.iexpr(sc, 2));
        Stmt::Assign(x, op, e)
    }

    pub fn print_stmt(&mut self, sc: &Scope) -> Stmt {
        if self.rng.chance(25) {
            let e = self.iexpr(sc, 1);
            let c = Expr::bin(
                Op::Add,
                Expr::Chr(b'a'),
                Expr::bin(Op::And, e, Expr::Int(15)),
            );
            return Stmt::Call(Expr::Lib("putchar".into(), vec![c]));
        }
        let mut pieces = vec![];
        let n = 1 + self.rng.below(2);
        for k in 0..n {
            let float = !sc.floats.is_empty() && self.rng.chance(35);
            let conv = if float {
                *self.rng.pick(&[Conv::G, Conv::F3])
            } else {
                *self
                    .rng
                    .pick(&[Conv::D, Conv::D, Conv::Ld, Conv::U, Conv::X, Conv::C])
            };
            let e = if float {
                self.fexpr(sc, 1)
            } else if conv == Conv::C {
                let e = self.iexpr(sc, 1);
                Expr::bin(Op::Add, Expr::Int(48), Expr::bin(Op::And, e, Expr::Int(63)))
            } else {
                self.iexpr(sc, 1)
            };
            pieces.push(Piece::Text(if k == 0 {
                self.rng.pick(&["", "v=", "x "]).to_string()
            } else {
                " ".into()
            }));
            pieces.push(Piece::Conv(conv, e));
        }
        pieces.push(Piece::Text("\n".into()));
        Stmt::Print(pieces)
    }

    /// A loop that stops soon or never (see [`Spin`]).
    pub fn spin(&mut self, sc: &Scope) -> Stmt {
        let v = format!("u{}", self.counter);
        self.counter += 1;
        self.extra.push(local(Ty::I(IntK::UInt), &v, int_init(0)));
        let src = {
            let cands: Vec<Expr> = sc
                .ints
                .iter()
                .filter(|e| !matches!(e, Expr::Index(..)))
                .cloned()
                .collect();
            // an input (the first places are parameters) most of the time
            let params: Vec<Expr> = cands
                .iter()
                .filter(|e| matches!(e, Expr::Var(n) if ["a", "b", "c"].contains(&n.as_str())))
                .cloned()
                .collect();
            if !params.is_empty() && self.rng.chance(80) {
                self.rng.pick(&params).clone()
            } else {
                self.rng.pick(&cands).clone()
            }
        };
        let src_root = src.root();
        let down = self.rng.chance(50);
        let (init, cmp, stop) = if down {
            (
                Expr::bin(Op::And, Expr::cast(Ty::I(IntK::UInt), src), Expr::Int(255)),
                *self.rng.pick(&[Op::Ne, Op::Gt]),
                Expr::Int(0),
            )
        } else {
            (
                Expr::Int(0),
                *self.rng.pick(&[Op::Ne, Op::Lt, Op::Le]),
                Expr::bin(Op::And, Expr::cast(Ty::I(IntK::UInt), src), Expr::Int(15)),
            )
        };
        let step = if self.rng.chance(10) {
            0
        } else {
            self.rng.range(1, 2)
        };
        let mut inner = sc.clone();
        inner.loops = false;
        inner.print = false;
        inner.stmt_expr = 0;
        inner.ctx.in_loop = true;
        inner.ctx.in_spin = true;

        inner.ctx.in_switch = false;
        inner.ctx.top = false;
        inner.ints.push(Expr::var(&v));
        // the body never writes what the bound is computed from
        let root = src_root;
        inner.int_lv.retain(|e| e.root() != root);
        inner.arrays.retain(|a| a.base.root() != root);
        let mut body = vec![];
        // often nothing but the loop: then only termination can differ
        let nb = if self.rng.chance(50) {
            0
        } else {
            1 + self.rng.below(2)
        };
        for _ in 0..nb {
            if !inner.int_lv.is_empty() || !inner.float_lv.is_empty() {
                body.push(self.assign(&inner));
            }
        }
        if nb > 0 && self.rng.chance(40) {
            let c = self.cond(&inner);
            body.push(Stmt::If(c, vec![Stmt::Break], vec![]));
        }
        Stmt::Spin(Spin {
            var: v,
            down,
            init,
            cmp,
            stop,
            step,
            body,
        })
    }
}
