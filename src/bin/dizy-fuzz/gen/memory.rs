//! Constructs about memory: out-parameters, buffers, strings, aliasing pointers, local arrays,
//! globals and static locals.
//!
//! Takes the generator and the parts of the program being built ([`Parts`]); each `add_*` adds
//! one construct (its parameters, locals, globals and statements) for [`Gen::program`].

use super::*;

impl Gen<'_> {
    /// `outparam`: an out-parameter `*out`, written on both branches of a condition.
    pub(super) fn add_outparam(&mut self, b: &mut Parts) {
        let Parts {
            sc,
            params,
            snippets,
            ..
        } = b;
        let t = self
            .rng
            .pick(&[INT, INT, Ty::I(IntK::Long), Ty::F64])
            .clone();
        let out = Expr::deref(Expr::var("out"));
        if t.is_float() {
            sc.floats.push(out.clone());
            sc.float_lv.push(out.clone());
        } else {
            sc.ints.push(out.clone());
            sc.int_lv.push(out.clone());
        }
        params.push(param(Ty::Ptr(Box::new(t.clone()), false), "out", Role::Out));
        let e = if t.is_float() {
            self.fexpr(sc, 2)
        } else {
            self.iexpr(sc, 2)
        };
        let c = self.cond(sc);
        let e2 = if t.is_float() {
            self.fexpr(sc, 1)
        } else {
            self.iexpr(sc, 1)
        };
        snippets.push(vec![Stmt::If(
            c,
            vec![Stmt::Assign(out.clone(), None, e)],
            vec![Stmt::Assign(out, Some(Op::Add), e2)],
        )]);
    }

    /// `buffer`: a buffer with its length (`int` or `char`/`size_t`, in turn) and a loop over it.
    pub(super) fn add_buffer(&mut self, b: &mut Parts) {
        let Parts {
            sc,
            params,
            snippets,
            ..
        } = b;
        let char_buf = self.variant % 2 == 1;
        let cap = 3 + self.rng.below(4);
        let bi = params.len();
        let (et, lt) = if char_buf {
            (Ty::I(IntK::Char), Ty::I(IntK::SizeT))
        } else {
            (INT, INT)
        };
        params.push(param(
            Ty::Ptr(Box::new(et), false),
            "buf",
            Role::Buf { cap, len: bi + 1 },
        ));
        params.push(param(lt, "n", Role::Len { buf: bi }));
        sc.ints.push(Expr::var("n"));
        let i = self.counter_var();
        let mut inner = sc.loop_body();
        let elem = Expr::index(Expr::var("buf"), Expr::var(&i));
        inner.ints.push(elem.clone());
        inner.int_lv.push(elem.clone());
        inner.ints.push(Expr::var(&i));
        let mut body = vec![];
        let e = self.iexpr(&inner, 2);
        body.push(Stmt::Assign(
            elem.clone(),
            if self.rng.chance(50) {
                Some(*self.rng.pick(&[Op::Add, Op::Xor, Op::Sub]))
            } else {
                None
            },
            e,
        ));
        if self.rng.chance(60) {
            let x = self.rng.pick(&sc.int_lv).clone();
            let c = Expr::bin(
                *self.rng.pick(&Op::CMP),
                elem.clone(),
                Expr::Int(self.constant()),
            );
            body.push(Stmt::If(
                c,
                vec![Stmt::Assign(x, Some(Op::Add), elem.clone())],
                vec![],
            ));
        }
        self.rng.shuffle(&mut body);
        snippets.push(vec![Stmt::For(i, Bound::Var("n".into()), body)]);
        let k = self.rng.range(0, cap as i64 - 1);
        let x = self.rng.pick(&sc.int_lv).clone();
        snippets.push(vec![Stmt::If(
            Expr::bin(Op::Gt, Expr::var("n"), Expr::Int(k)),
            vec![Stmt::Assign(
                x,
                Some(Op::Add),
                Expr::index(Expr::var("buf"), Expr::Int(k)),
            )],
            vec![],
        )]);
    }

    /// `string`: a string parameter and a loop up to its NUL.
    pub(super) fn add_string(&mut self, b: &mut Parts) {
        let Parts {
            sc,
            params,
            snippets,
            ..
        } = b;
        params.push(param(
            Ty::Ptr(Box::new(Ty::I(IntK::Char)), true),
            "str",
            Role::Str,
        ));
        sc.strs.push("str".into());
        let i = self.counter_var();
        let mut inner = sc.loop_body();
        let ch = Expr::index(Expr::var("str"), Expr::var(&i));
        inner.ints.push(ch.clone());
        inner.ints.push(Expr::var(&i));
        let x = self.rng.pick(&sc.int_lv).clone();
        let c = Expr::bin(
            *self.rng.pick(&[Op::Eq, Op::Ne, Op::Lt, Op::Ge]),
            ch.clone(),
            Expr::Chr(*self.rng.pick(b"ab0 zA")),
        );
        let e = self.iexpr(&inner, 1);
        let mut body = vec![Stmt::If(c, vec![Stmt::Assign(x, Some(Op::Add), e)], vec![])];
        if self.rng.chance(50) {
            body.push(self.stmt(&mut inner, 1));
        }
        snippets.push(vec![Stmt::StrLoop(i, "str".into(), body)]);
    }

    /// `alias`: two pointer parameters that may alias, written and read in turn.
    pub(super) fn add_alias(&mut self, b: &mut Parts) {
        let Parts {
            sc,
            params,
            snippets,
            ..
        } = b;
        for n in ["p", "q"] {
            params.push(param(Ty::Ptr(Box::new(INT), false), n, Role::Alias));
            let d = Expr::deref(Expr::var(n));
            sc.ints.push(d.clone());
            sc.int_lv.push(d);
        }
        let (p_, q_) = (Expr::deref(Expr::var("p")), Expr::deref(Expr::var("q")));
        let x = self.rng.pick(&sc.int_lv).clone();
        let e1 = self.iexpr(sc, 1);
        let e2 = self.iexpr(sc, 1);
        let mut s = vec![
            Stmt::Assign(p_.clone(), None, e1),
            Stmt::Assign(x, None, Expr::bin(Op::Add, q_.clone(), e2)),
        ];
        if self.rng.chance(50) {
            let e3 = self.iexpr(sc, 1);
            s.push(Stmt::Assign(q_, Some(Op::Add), e3));
        }
        snippets.push(s);
    }

    /// `local-array`: an initialized local array and a loop over it.
    pub(super) fn add_local_array(&mut self, b: &mut Parts) {
        let Parts {
            sc,
            locals,
            snippets,
            ..
        } = b;
        let float = !sc.float_lv.is_empty() && self.rng.chance(30);
        let len = *self.rng.pick(&[3usize, 4, 4, 5, 8]);
        let ek = if float {
            Ty::F64
        } else {
            Ty::I(
                *self
                    .rng
                    .pick(&[IntK::Int, IntK::Int, IntK::Short, IntK::UChar, IntK::Long]),
            )
        };
        let items: Vec<Init> = (0..len)
            .map(|_| {
                Init::E(if float {
                    self.fconst(false)
                } else {
                    Expr::Int(self.constant().rem_euclid(100))
                })
            })
            .collect();
        locals.push(local(
            Ty::Arr(Box::new(ek), len),
            "arr",
            Some(Init::List(items)),
        ));
        sc.arrays.push(ArrPlace {
            base: Expr::var("arr"),
            len,
            float,
            writable: true,
        });
        let i = self.counter_var();
        let elem = Expr::index(Expr::var("arr"), Expr::var(&i));
        let mut inner = sc.clone();
        inner.ints.push(Expr::var(&i));
        let x = if float {
            self.rng.pick(&sc.float_lv).clone()
        } else {
            self.rng.pick(&sc.int_lv).clone()
        };
        let e = if float {
            self.fexpr(&inner, 1)
        } else {
            self.iexpr(&inner, 1)
        };
        snippets.push(vec![Stmt::For(
            i,
            Bound::Const(len as i64),
            vec![
                Stmt::Assign(elem.clone(), Some(Op::Add), e),
                Stmt::Assign(x, Some(Op::Add), elem),
            ],
        )]);
    }

    /// `global`: three globals of different storage classes and types (in turn) and a write to one.
    pub(super) fn add_global(&mut self, b: &mut Parts) {
        let Parts {
            p,
            sc,
            snippets,
            tail,
            ..
        } = b;
        let all = [
            "plain", "static", "volatile", "const", "array", "struct", "double",
        ];
        // in turn: each kind once in every three programs about globals
        let mut kinds: Vec<&str> = (0..3)
            .map(|j| all[(self.variant * 3 + j) % all.len()])
            .collect();
        self.rng.shuffle(&mut kinds);
        for (k, kind) in kinds.iter().enumerate() {
            let name = format!("g{k}");
            let mut g = Global {
                ty: INT,
                name: name.clone(),
                is_static: false,
                is_const: false,
                is_volatile: false,
                init: if self.rng.chance(80) {
                    int_init(self.constant())
                } else {
                    None
                },
            };
            match *kind {
                "plain" => {
                    g.ty = Ty::I(*self.rng.pick(&[IntK::Int, IntK::Long, IntK::UInt]));
                }
                "static" => g.is_static = true,
                "volatile" => g.is_volatile = true,
                "const" => {
                    g.is_static = true;
                    g.is_const = true;
                    g.init = int_init(self.constant());
                }
                "double" => {
                    g.ty = Ty::F64;
                    g.is_static = self.rng.chance(50);
                    g.init = if self.rng.chance(80) {
                        Some(Init::E(self.fconst(false)))
                    } else {
                        None
                    };
                    sc.floats.push(Expr::var(&name));
                    sc.float_lv.push(Expr::var(&name));
                    p.globals.push(g);
                    let e = self.fexpr(sc, 2);
                    snippets.push(vec![Stmt::Assign(Expr::var(&name), None, e)]);
                    if self.rng.chance(50) {
                        // last: zero on an integer input, for its sign to show
                        let a = Expr::cast(Ty::F64, Expr::var("a"));
                        let c = *self.rng.pick(&["1.0", "2.0", "5.0"]);
                        tail.push(Stmt::Assign(
                            Expr::var(&name),
                            None,
                            Expr::bin(Op::Sub, a, Expr::Flt(c.into())),
                        ));
                    }
                    continue;
                }
                "array" => {
                    g.is_static = self.rng.chance(50);
                    g.is_const = self.rng.chance(25);
                    g.ty = Ty::Arr(Box::new(INT), 4);
                    g.init = Some(Init::List(
                        (0..4)
                            .map(|_| Init::E(Expr::Int(self.constant())))
                            .collect(),
                    ));
                    sc.arrays.push(ArrPlace {
                        base: Expr::var(&name),
                        len: 4,
                        float: false,
                        writable: !g.is_const,
                    });
                    p.globals.push(g);
                    continue;
                }
                _ => {
                    // a struct global: its own small struct type
                    g.ty = Ty::Struct("G".into());
                    if !p.types.iter().any(|t| t.name() == "G") {
                        let mut fields = vec![
                            (INT, "lo".to_string()),
                            (Ty::I(IntK::Short), "hi".to_string()),
                            (Ty::Arr(Box::new(INT), 2), "pair".to_string()),
                        ];
                        self.rng.shuffle(&mut fields);
                        p.types.push(TypeDef::Struct {
                            tag: "G".into(),
                            fields,
                            widths: vec![],
                        });
                    }
                    g.init = Some(Init::Fields(vec![
                        ("lo".into(), Init::E(Expr::Int(self.constant()))),
                        (
                            "pair".into(),
                            Init::List(vec![
                                Init::E(Expr::Int(self.constant())),
                                Init::E(Expr::Int(self.constant())),
                            ]),
                        ),
                        ("hi".into(), Init::E(Expr::Int(self.constant()))),
                    ]));
                    for f in ["lo", "hi"] {
                        sc.ints.push(Expr::field(Expr::var(&name), f));
                        sc.int_lv.push(Expr::field(Expr::var(&name), f));
                    }
                    sc.arrays.push(ArrPlace {
                        base: Expr::field(Expr::var(&name), "pair"),
                        len: 2,
                        float: false,
                        writable: true,
                    });
                    p.globals.push(g);
                    continue;
                }
            }
            sc.ints.push(Expr::var(&name));
            if !g.is_const {
                sc.int_lv.push(Expr::var(&name));
            }
            p.globals.push(g);
        }
        // make a write to some global likely
        let targets: Vec<Expr> = sc
            .int_lv
            .iter()
            .filter(|e| e.root().starts_with('g'))
            .cloned()
            .collect();
        if !targets.is_empty() {
            let t = self.rng.pick(&targets).clone();
            let e = self.iexpr(sc, 1);
            snippets.push(vec![Stmt::Assign(t, Some(Op::Add), e)]);
        }
    }

    /// `static-local`: a static local counter.
    pub(super) fn add_static_local(&mut self, b: &mut Parts) {
        let Parts {
            sc,
            locals,
            snippets,
            ..
        } = b;
        let v = self.constant();
        locals.push(Local {
            ty: Ty::I(
                *self
                    .rng
                    .pick(&[IntK::Int, IntK::Int, IntK::UInt, IntK::Long]),
            ),
            name: "cnt".into(),
            init: if self.rng.chance(85) {
                int_init(v)
            } else {
                None
            },
            is_static: true,
        });
        sc.ints.push(Expr::var("cnt"));
        sc.int_lv.push(Expr::var("cnt"));
        let e = if self.rng.chance(50) {
            Expr::Int(1)
        } else {
            self.iexpr(sc, 1)
        };
        snippets.push(vec![Stmt::Assign(Expr::var("cnt"), Some(Op::Add), e)]);
    }
}

impl Gen<'_> {
    /// `record`: a pointer to a struct whose member points to a buffer of its own (or is null),
    /// walked up to its count member clamped to the buffer's capacity.
    pub(super) fn add_record(&mut self, b: &mut Parts) {
        let Parts {
            p,
            sc,
            params,
            snippets,
            ..
        } = b;
        let cap = 2 + self.rng.below(4);
        p.types.push(TypeDef::Struct {
            tag: "rec".into(),
            fields: vec![
                (INT, "n".into()),
                (Ty::Ptr(Box::new(INT), false), "p".into()),
            ],
            widths: vec![],
        });
        params.push(param(
            Ty::Ptr(Box::new(Ty::Struct("rec".into())), false),
            "r",
            Role::Rec { cap },
        ));
        let rec = Expr::deref(Expr::var("r"));
        let n = Expr::field(rec.clone(), "n");
        let ptr = Expr::field(rec, "p");
        sc.ints.push(n.clone());
        sc.int_lv.push(n.clone());
        let i = self.counter_var();
        let elem = Expr::index(ptr.clone(), Expr::var(&i));
        let mut inner = sc.loop_body();
        inner.ints.push(elem.clone());
        inner.int_lv.push(elem.clone());
        inner.ints.push(Expr::var(&i));
        let x = self.rng.pick(&sc.int_lv).clone();
        let e = self.iexpr(&inner, 2);
        let op = *self
            .rng
            .pick(&[None, Some(Op::Add), Some(Op::Xor), Some(Op::Sub)]);
        let mut body = vec![
            Stmt::Assign(elem.clone(), op, e),
            Stmt::Assign(x, Some(Op::Add), elem),
        ];
        self.rng.shuffle(&mut body);
        if self.rng.chance(40) {
            body.push(self.stmt(&mut inner, 1));
        }
        let walk = Stmt::For(i, Bound::Clamp(n, cap as i64), body);
        let mut snip = vec![Stmt::If(
            Expr::bin(Op::Ne, ptr.clone(), Expr::Int(0)),
            vec![walk],
            vec![],
        )];
        // generation 8: the member itself is written after the walk (cleared, or advanced
        // within its buffer), which the caller sees
        if self.generation >= 8 && self.rng.chance(60) {
            let c = self.cond(sc);
            let write = if self.rng.chance(50) {
                Stmt::If(c, vec![Stmt::Assign(ptr, None, Expr::Int(0))], vec![])
            } else {
                Stmt::If(
                    Expr::bin(Op::LAnd, Expr::bin(Op::Ne, ptr.clone(), Expr::Int(0)), c),
                    vec![Stmt::Assign(ptr, Some(Op::Add), Expr::Int(1))],
                    vec![],
                )
            };
            snip.push(write);
        }
        snippets.push(snip);
    }

    /// `heap`: a block from `malloc`, filled, read at a masked index and freed (allocated where
    /// it is used, so that a backward `goto` allocates it again).
    pub(super) fn add_heap(&mut self, b: &mut Parts) {
        let Parts {
            sc,
            locals,
            snippets,
            ..
        } = b;
        let len = *self.rng.pick(&[2i64, 4, 8]);
        locals.push(local(Ty::Ptr(Box::new(INT), false), "h", int_init(0)));
        let h = Expr::var("h");
        let i = self.counter_var();
        let mut inner = sc.loop_body();
        inner.ints.push(Expr::var(&i));
        let fill = self.iexpr(&inner, 2);
        // generation 8: the block may grow by `realloc` (its second half filled too), so the
        // read may land in either half
        let grow = self.generation >= 8 && self.rng.chance(50);
        let at_mask = if grow { 2 * len - 1 } else { len - 1 };
        let at = Expr::bin(Op::And, self.iexpr(sc, 1), Expr::Int(at_mask));
        let x = self.rng.pick(&sc.int_lv).clone();
        let mut body = vec![Stmt::For(
            i.clone(),
            Bound::Const(len),
            vec![Stmt::Assign(
                Expr::index(h.clone(), Expr::var(&i)),
                None,
                fill,
            )],
        )];
        if grow {
            locals.push(local(Ty::Ptr(Box::new(INT), false), "hr", int_init(0)));
            let hr = Expr::var("hr");
            let j = self.counter_var();
            let mut inner = sc.loop_body();
            inner.ints.push(Expr::var(&j));
            let fill2 = self.iexpr(&inner, 2);
            body.push(Stmt::Assign(
                hr.clone(),
                None,
                Expr::Lib("realloc".into(), vec![h.clone(), Expr::Int(8 * len)]),
            ));
            // a failed `realloc` leaves the block as it was: read within its first half then
            let fallback = vec![Stmt::Assign(
                x.clone(),
                Some(Op::Add),
                Expr::index(
                    h.clone(),
                    Expr::bin(Op::And, Expr::var(&i), Expr::Int(len - 1)),
                ),
            )];
            body.push(Stmt::If(
                Expr::bin(Op::Ne, hr.clone(), Expr::Int(0)),
                vec![
                    Stmt::Assign(h.clone(), None, hr),
                    Stmt::For(
                        j.clone(),
                        Bound::Const(len),
                        vec![Stmt::Assign(
                            Expr::index(
                                h.clone(),
                                Expr::bin(Op::Add, Expr::var(&j), Expr::Int(len)),
                            ),
                            None,
                            fill2,
                        )],
                    ),
                    Stmt::Assign(x.clone(), Some(Op::Add), Expr::index(h.clone(), at)),
                ],
                fallback,
            ));
        } else {
            body.push(Stmt::Assign(x, Some(Op::Add), Expr::index(h.clone(), at)));
        }
        body.push(Stmt::Call(Expr::Lib("free".into(), vec![h.clone()])));
        snippets.push(vec![
            Stmt::Assign(
                h.clone(),
                None,
                Expr::Lib("malloc".into(), vec![Expr::Int(4 * len)]),
            ),
            Stmt::If(Expr::bin(Op::Ne, h, Expr::Int(0)), body, vec![]),
        ]);
    }
}
