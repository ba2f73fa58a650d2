//! Constructs about control and calls: `switch`, `goto`, `do`-`while`, recursion, function
//! pointers, output and loops that may not terminate.
//!
//! Takes the generator and the parts of the program being built ([`Parts`]); each `add_*` adds
//! one construct (its helpers, globals and statements) for [`Gen::program`].

use super::*;

impl Gen<'_> {
    /// `switch`: a `switch` with fallthrough and maybe a `default`.
    pub(super) fn add_switch(&mut self, b: &mut Parts) {
        let Parts { sc, snippets, .. } = b;
        let subject = if self.rng.chance(60) {
            let v = self.ileaf(sc);
            Expr::bin(Op::And, v, Expr::Int(7))
        } else {
            let v = self.ileaf(sc);
            Expr::cast(INT, v)
        };
        let mut vals: Vec<i64> = vec![];
        let n = 2 + self.rng.below(3);
        while vals.len() < n {
            let v = self.rng.range(-1, 8);
            if !vals.contains(&v) {
                vals.push(v);
            }
        }
        let mut labels: Vec<CaseLabel> = vals.into_iter().map(CaseLabel::Int).collect();
        // generation 9: a GNU case range over values no other label has
        if self.generation >= 9 && self.rng.chance(40) {
            let j = self.rng.below(labels.len());
            if let CaseLabel::Int(v) = labels[j] {
                let r = CaseLabel::Range(v, v + 1 + self.rng.below(3) as i64);
                if !labels
                    .iter()
                    .enumerate()
                    .any(|(k, l)| k != j && l.overlaps(&r))
                {
                    labels[j] = r;
                }
            }
        }
        if self.rng.chance(60) {
            let at = self.rng.below(labels.len() + 1);
            labels.insert(at, CaseLabel::Default);
        }
        let mut inner = sc.clone();
        inner.ctx.in_switch = true;
        inner.ctx.top = false;
        inner.loops = false;
        let mut cases = vec![];
        for l in labels {
            let k = if self.rng.chance(20) {
                0
            } else {
                1 + self.rng.below(2)
            };
            let body = self.block(&mut inner, k, 1);
            cases.push(Case {
                label: l,
                body,
                brk: self.rng.chance(65),
            });
        }
        snippets.push(vec![Stmt::Switch(subject, cases)]);
    }

    /// `goto`: a loop made of labels and a backward `goto`, and a forward `goto` (placed later).
    pub(super) fn add_goto(&mut self, b: &mut Parts) {
        let Parts { sc, snippets, .. } = b;
        // backward: a loop made of labels and gotos
        let i = self.counter_var();
        let bound = self.bound(sc);
        let mut inner = sc.clone();
        inner.loops = false;
        inner.ctx = Ctx {
            top: false,
            in_loop: false,
            in_switch: false,
            ..sc.ctx
        };
        inner.ints.push(Expr::var(&i));
        let nb = 1 + self.rng.below(2);
        let body = self.block(&mut inner, nb, 1);
        self.label += 1;
        snippets.push(vec![Stmt::GotoLoop(i, bound, body, self.label)]);
        // forward: placed by `splice` (label after the jump)
        snippets.push(vec![Stmt::Goto(String::new())]);
    }

    /// `do-while`: a `do`-`while` loop.
    pub(super) fn add_do_while(&mut self, b: &mut Parts) {
        let Parts { sc, snippets, .. } = b;
        let i = self.counter_var();
        let bound = self.bound(sc);
        let mut inner = sc.clone();
        inner.loops = false;
        inner.loop_depth += 1;
        inner.ctx.in_loop = true;
        inner.ctx.in_switch = false;
        inner.ctx.no_continue = true;
        inner.ctx.top = false;
        inner.ints.push(Expr::var(&i));
        let nb = 1 + self.rng.below(2);
        let body = self.block(&mut inner, nb, 1);
        snippets.push(vec![Stmt::DoWhile(i, bound, body)]);
    }

    /// `recursion`: a bounded recursive helper (accumulator or two calls) and a call to it; from
    /// generation 7 the accumulator is sometimes two helpers calling each other.
    pub(super) fn add_recursion(&mut self, b: &mut Parts) {
        let Parts {
            p, sc, snippets, ..
        } = b;
        let name = format!("rec{}", p.helpers.len());
        let fib = self.rng.chance(30);
        let h = if fib {
            // two recursive calls
            Func {
                name: name.clone(),
                is_static: true,
                ret: INT,
                params: vec![param(INT, "n", Role::Value)],
                locals: vec![],
                // The second test bounds the work whatever the argument (a mutation can undo
                // the caller's `& 7`): the oracle tells non-termination by a CPU limit, and an
                // exponential recursion on a large argument ends only after it.
                body: vec![
                    Stmt::If(
                        Expr::bin(Op::Lt, Expr::var("n"), Expr::Int(2)),
                        vec![Stmt::Return(Expr::var("n"))],
                        vec![],
                    ),
                    Stmt::If(
                        Expr::bin(Op::Gt, Expr::var("n"), Expr::Int(20)),
                        vec![Stmt::Return(Expr::var("n"))],
                        vec![],
                    ),
                ],
                ret_expr: Expr::bin(
                    Op::Add,
                    Expr::Call(
                        name.clone(),
                        vec![Expr::bin(Op::Sub, Expr::var("n"), Expr::Int(1))],
                    ),
                    Expr::Call(
                        name.clone(),
                        vec![Expr::bin(Op::Sub, Expr::var("n"), Expr::Int(2))],
                    ),
                ),
                falls_off: false,
            }
        } else {
            let step = |g: &mut Self| {
                let mut hs = Scope {
                    ints: vec![Expr::var("n"), Expr::var("acc")],
                    int_lv: vec![Expr::var("acc")],
                    ctx: top_ctx(),
                    ..Scope::default()
                };
                match g.stmt(&mut hs, 0) {
                    s @ Stmt::Assign(..) => s,
                    _ => Stmt::Assign(Expr::var("acc"), Some(Op::Add), Expr::var("n")),
                }
            };
            // From generation 7, sometimes two helpers calling each other (mutual recursion).
            let accumulator = |name: &str, step: Stmt, callee: &str| Func {
                name: name.to_string(),
                is_static: true,
                ret: INT,
                params: vec![param(INT, "n", Role::Value), param(INT, "acc", Role::Value)],
                locals: vec![],
                body: vec![
                    Stmt::If(
                        Expr::bin(Op::Le, Expr::var("n"), Expr::Int(0)),
                        vec![Stmt::Return(Expr::var("acc"))],
                        vec![],
                    ),
                    step,
                ],
                ret_expr: Expr::Call(
                    callee.to_string(),
                    vec![
                        Expr::bin(Op::Sub, Expr::var("n"), Expr::Int(1)),
                        Expr::var("acc"),
                    ],
                ),
                falls_off: false,
            };
            let first = step(self);
            let mutual = self.generation >= 7 && self.rng.chance(30);
            if mutual {
                let other = format!("rec{}", p.helpers.len() + 1);
                let second = step(self);
                p.helpers.push(accumulator(&other, second, &name));
                accumulator(&name, first, &other)
            } else {
                accumulator(&name, first, &name)
            }
        };
        let args = if fib {
            vec![Some(7)]
        } else {
            vec![Some(7), None]
        };
        p.helpers.push(h);
        sc.helpers.push(HelperSig {
            name: name.clone(),
            args: args.clone(),
        });
        let x = self.rng.pick(&sc.int_lv).clone();
        let call = self.call(sc, &HelperSig { name, args });
        snippets.push(vec![Stmt::Assign(x, Some(Op::Add), call)]);
    }

    /// `fnptr`: helpers behind a const table of function pointers, maybe a function-pointer
    /// local, and a call through them.
    pub(super) fn add_fnptr(&mut self, b: &mut Parts) {
        let Parts {
            p,
            sc,
            locals,
            snippets,
            ..
        } = b;
        p.types.push(TypeDef::FnPtr {
            name: "fn_t".into(),
            ret: INT,
            params: vec![INT],
        });
        let nt = 2 + self.rng.below(2);
        let mut names = vec![];
        for _ in 0..nt {
            let name = format!("op{}", p.helpers.len());
            let h = self.small_helper(&name, 1, sc);
            p.helpers.push(h);
            names.push(name);
        }
        let len = if self.rng.chance(50) { 2 } else { 4 };
        let items: Vec<Init> = (0..len)
            .map(|k| Init::E(Expr::var(&names[k % names.len()])))
            .collect();
        p.globals.push(Global {
            ty: Ty::Arr(Box::new(Ty::Fn("fn_t".into())), len),
            name: "tbl".into(),
            is_static: true,
            is_const: true,
            is_volatile: false,
            init: Some(Init::List(items)),
        });
        sc.tables.push(("tbl".into(), len));
        if self.rng.chance(50) {
            let first = self.rng.pick(&names).clone();
            locals.push(local(
                Ty::Fn("fn_t".into()),
                "fp",
                Some(Init::E(Expr::var(&first))),
            ));
            sc.fnptrs.push("fp".into());
            sc.fn_targets = names.clone();
            let other = self.rng.pick(&names).clone();
            let c = self.cond(sc);
            snippets.push(vec![Stmt::If(
                c,
                vec![Stmt::Assign(Expr::var("fp"), None, Expr::var(&other))],
                vec![],
            )]);
        }
        let x = self.rng.pick(&sc.int_lv).clone();
        let call = self.ptr_call(sc);
        snippets.push(vec![Stmt::Assign(x, Some(Op::Add), call)]);
    }

    /// `printf`: a `printf` (and every other time a `putchar`).
    pub(super) fn add_printf(&mut self, b: &mut Parts) {
        let Parts { sc, snippets, .. } = b;
        let s = self.print_stmt(sc);
        snippets.push(vec![s]);
        // putchar every other time
        if self.variant % 2 == 1 {
            let e = self.iexpr(sc, 1);
            let c = Expr::bin(
                Op::Add,
                Expr::Chr(b'a'),
                Expr::bin(Op::And, e, Expr::Int(15)),
            );
            snippets.push(vec![Stmt::Call(Expr::Lib("putchar".into(), vec![c]))]);
        }
    }

    /// `hang`: a loop that stops soon or never (see [`Spin`]).
    pub(super) fn add_hang(&mut self, b: &mut Parts) {
        let Parts { sc, snippets, .. } = b;
        let s = self.spin(sc);
        snippets.push(vec![s]);
    }

    /// `if (c) goto Fk;` somewhere in the top-level body and `Fk:;` after it.
    pub(super) fn forward_goto(&mut self, sc: &Scope, body: &mut Vec<Stmt>) {
        self.label += 1;
        let l = format!("F{}", self.label);
        let at = self.rng.below(body.len() + 1);
        let to = at + 1 + self.rng.below(body.len() - at + 1);
        let c = self.cond(sc);
        body.insert(at, Stmt::If(c, vec![Stmt::Goto(l.clone())], vec![]));
        body.insert(to.min(body.len()), Stmt::Label(l));
    }
}
