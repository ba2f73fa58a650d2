//! Constructs about types: integer widths, `_Bool`/`bool`, enums, floating types, structs and
//! unions.
//!
//! Takes the generator and the parts of the program being built ([`Parts`]); each `add_*` adds
//! one construct (its types, parameters, locals and statements) for [`Gen::program`].

use super::*;

impl Gen<'_> {
    /// `widths`: a local of a narrow or wide integer type (in turn over the variants).
    pub(super) fn add_widths(&mut self, b: &mut Parts) {
        let Parts { sc, locals, .. } = b;
        let ks = [
            IntK::SChar,
            IntK::UShort,
            IntK::LLong,
            IntK::ULong,
            IntK::Short,
            IntK::UChar,
        ];
        let k = ks[self.variant % ks.len()];
        locals.push(local(Ty::I(k), "w", int_init(self.constant())));
        sc.ints.push(Expr::var("w"));
        sc.int_lv.push(Expr::var("w"));
    }

    /// `bool`: a `_Bool` or `bool` flag (in turn), parameter or local.
    pub(super) fn add_bool(&mut self, b: &mut Parts) {
        let Parts {
            sc, params, locals, ..
        } = b;
        let k = if self.variant.is_multiple_of(2) {
            IntK::Bool
        } else {
            IntK::BoolStd
        };
        if self.rng.chance(50) {
            params.push(param(Ty::I(k), "flag", Role::Value));
        } else {
            locals.push(local(Ty::I(k), "flag", int_init(0)));
        }
        sc.ints.push(Expr::var("flag"));
        sc.int_lv.push(Expr::var("flag"));
    }

    /// `enum`: an enum type, a parameter or local of it, and a `switch` over its enumerators.
    pub(super) fn add_enum(&mut self, b: &mut Parts) {
        let Parts {
            p,
            sc,
            params,
            locals,
            snippets,
            ..
        } = b;
        let mut vals: Vec<i64> = vec![];
        while vals.len() < 3 {
            let lo = if self.rng.chance(15) { -2 } else { 0 };
            let v = self.rng.range(lo, 9);
            if !vals.contains(&v) {
                vals.push(v);
            }
        }
        let names = ["E_A", "E_B", "E_C"];
        // the middle one sometimes implicit (previous + 1)
        let implicit = self.rng.chance(40) && !vals.contains(&(vals[0] + 1));
        let items: Vec<(String, Option<i64>)> = names
            .iter()
            .zip(&vals)
            .enumerate()
            .map(|(i, (n, v))| {
                (
                    n.to_string(),
                    if i == 1 && implicit { None } else { Some(*v) },
                )
            })
            .collect();
        p.types.push(TypeDef::Enum {
            tag: "E".into(),
            items,
        });
        let ty = Ty::Enum("E".into());
        if self.rng.chance(65) {
            params.push(param(ty, "e", Role::Value));
        } else {
            locals.push(local(ty, "e", Some(Init::E(Expr::var("E_B")))));
        }
        sc.ints.push(Expr::var("e"));
        sc.int_lv.push(Expr::var("e"));
        sc.enums = names.iter().map(|s| s.to_string()).collect();
        // a switch over the enum, cases named by enumerators
        let mut labels: Vec<CaseLabel> = names
            .iter()
            .map(|n| CaseLabel::Name(n.to_string()))
            .collect();
        self.rng.shuffle(&mut labels);
        labels.truncate(2 + self.rng.below(2));
        if self.rng.chance(60) {
            labels.push(CaseLabel::Default);
        }
        let cases = self.named_cases(sc, labels);
        snippets.push(vec![Stmt::Switch(Expr::var("e"), cases)]);
    }

    /// `config`: two or three names a missing project header would define (`CFG_A`), with
    /// distinct values the oracle gives them: read as `int` values by the statements, and maybe
    /// the labels of a `switch` over an integer variable (the switch converts them to its type).
    pub(super) fn add_config(&mut self, b: &mut Parts) {
        let Parts {
            p, sc, snippets, ..
        } = b;
        let n = 2 + self.rng.below(2);
        let mut vals: Vec<i64> = vec![];
        while vals.len() < n {
            let v = if self.rng.chance(20) {
                self.rng.range(-3, 300)
            } else {
                self.rng.range(-1, 11)
            };
            if !vals.contains(&v) {
                vals.push(v);
            }
        }
        p.config = ["CFG_A", "CFG_B", "CFG_C"]
            .iter()
            .zip(&vals)
            .map(|(n, v)| (n.to_string(), *v))
            .collect();
        sc.config = p.config.iter().map(|c| c.0.clone()).collect();
        let vars = sc.int_vars();
        if vars.is_empty() || self.rng.chance(40) {
            return;
        }
        let subject = self.rng.pick(&vars).clone();
        let mut labels: Vec<CaseLabel> = sc
            .config
            .iter()
            .map(|n| CaseLabel::Name(n.clone()))
            .collect();
        self.rng.shuffle(&mut labels);
        labels.truncate(1 + self.rng.below(n));
        if self.rng.chance(50) {
            labels.push(CaseLabel::Default);
        }
        let cases = self.named_cases(sc, labels);
        snippets.push(vec![Stmt::Switch(subject, cases)]);
    }

    /// The cases of a `switch` labelled by names (enumerators, a missing header's names): one
    /// or two statements each, most ending with `break`.
    fn named_cases(&mut self, sc: &Scope, labels: Vec<CaseLabel>) -> Vec<Case> {
        let mut inner = sc.clone();
        inner.ctx.in_switch = true;
        inner.ctx.top = false;
        let mut cases = vec![];
        for l in labels {
            let n = 1 + self.rng.below(2);
            let body = self.block(&mut inner, n, 0);
            cases.push(Case {
                label: l,
                body,
                brk: self.rng.chance(75),
            });
        }
        cases
    }

    /// `float`: float or double parameters and a local, NaN tests and conversions both ways;
    /// maybe a floating return type.
    pub(super) fn add_float(&mut self, b: &mut Parts, agg_ret: u32) {
        let Parts {
            sc,
            params,
            locals,
            snippets,
            tail,
            ..
        } = b;
        let single = self.rng.chance(30);
        let ft = if single { Ty::F32 } else { Ty::F64 };
        params.push(param(ft.clone(), "d", Role::Value));
        sc.floats.push(Expr::var("d"));
        sc.float_lv.push(Expr::var("d"));
        if self.rng.chance(40) {
            params.push(param(Ty::F64, "d2", Role::Value));
            sc.floats.push(Expr::var("d2"));
        }
        let init = self.fconst(single);
        locals.push(local(ft, "t", Some(Init::E(init))));
        sc.floats.push(Expr::var("t"));
        sc.float_lv.push(Expr::var("t"));
        if sc.ret == INT && sc.ret_aggs.is_empty() && self.rng.chance(agg_ret) {
            sc.ret = if self.rng.chance(70) {
                Ty::F64
            } else {
                Ty::F32
            };
        }
        if sc.ret.is_float() && self.rng.chance(70) {
            // a difference that is zero on an integer input (witnesses set float
            // parameters to integers): where its sign may change
            let c = *self.rng.pick(&["1.0", "2.0", "10.0", "3.0"]);
            // last, so that nothing after it hides the sign
            tail.push(Stmt::Assign(
                Expr::var("t"),
                None,
                Expr::bin(Op::Sub, Expr::var("d"), Expr::Flt(c.into())),
            ));
        }
        if self.rng.chance(50) {
            // a NaN test with an observable effect
            let v = self.rng.pick(&sc.floats).clone();
            let op = *self.rng.pick(&[Op::Ne, Op::Eq]);
            let r = if sc.ret.is_float() {
                self.fconst(false)
            } else {
                Expr::Int(self.constant())
            };
            snippets.push(vec![Stmt::If(
                Expr::bin(op, v.clone(), v),
                vec![Stmt::Return(r)],
                vec![],
            )]);
        }
        // an explicit conversion both ways
        let x = self.rng.pick(&sc.int_lv).clone();
        let conv = self.f2i(sc);
        snippets.push(vec![Stmt::Assign(x, Some(Op::Add), conv)]);
        let e = self.iexpr(sc, 1);
        snippets.push(vec![Stmt::Assign(
            Expr::var("t"),
            Some(Op::Add),
            Expr::cast(Ty::F64, e),
        )]);
    }

    /// `struct`: nested struct types with an array, a struct parameter and local, their fields as
    /// places; maybe a struct return type and a whole-struct copy.
    pub(super) fn add_struct(&mut self, b: &mut Parts, agg_ret: u32, feats: &[&str]) {
        let Parts {
            p,
            sc,
            params,
            locals,
            snippets,
            ..
        } = b;
        let has = |f: &str| feats.contains(&f);
        let inner_fields = {
            let mut v = vec![
                (INT, "x".to_string()),
                (Ty::Arr(Box::new(Ty::I(IntK::Short)), 3), "arr".to_string()),
            ];
            if self.rng.chance(40) {
                v.push((Ty::I(IntK::Long), "y".to_string()));
            }
            self.rng.shuffle(&mut v);
            v
        };
        p.types.push(TypeDef::Struct {
            tag: "In".into(),
            fields: inner_fields,
            widths: vec![],
        });
        let second = if has("float") || self.rng.chance(40) {
            Ty::F64
        } else {
            Ty::I(IntK::UInt)
        };
        let mut fields = vec![
            (INT, "a".to_string()),
            (second.clone(), "b".to_string()),
            (Ty::Struct("In".into()), "in".to_string()),
            (Ty::I(IntK::Char), "tag".to_string()),
        ];
        // bit-fields: an unsigned and a signed one, narrow, so that stores truncate
        let mut widths = vec![];
        if self.generation >= 4 && self.rng.chance(60) {
            for (t, n, lo) in [(IntK::UInt, "bf_u", 1), (IntK::Int, "bf_s", 2)] {
                fields.push((Ty::I(t), n.to_string()));
                widths.push((n.to_string(), lo + self.rng.below(6) as u8));
            }
        }
        self.rng.shuffle(&mut fields);
        let bitfields: Vec<String> = widths.iter().map(|(n, _)| n.clone()).collect();
        p.types.push(TypeDef::Struct {
            tag: "S".into(),
            fields,
            widths,
        });
        let sty = Ty::Struct("S".into());
        let by_param = self.rng.chance(70);
        if by_param {
            params.push(param(sty.clone(), "s", Role::Value));
        }
        let init = if by_param && self.rng.chance(60) {
            Init::E(Expr::var("s"))
        } else {
            self.struct_init(&second)
        };
        locals.push(local(sty.clone(), "st", Some(init)));
        for v in (if by_param {
            vec!["s", "st"]
        } else {
            vec!["st"]
        })
        .iter()
        {
            let base = Expr::var(v);
            for f in ["a", "tag"]
                .into_iter()
                .chain(bitfields.iter().map(|s| s.as_str()))
            {
                sc.ints.push(Expr::field(base.clone(), f));
                sc.int_lv.push(Expr::field(base.clone(), f));
            }
            let b = Expr::field(base.clone(), "b");
            if second.is_float() {
                sc.floats.push(b.clone());
                sc.float_lv.push(b);
            } else {
                sc.ints.push(b.clone());
                sc.int_lv.push(b);
            }
            let inn = Expr::field(base.clone(), "in");
            sc.ints.push(Expr::field(inn.clone(), "x"));
            sc.int_lv.push(Expr::field(inn.clone(), "x"));
            sc.arrays.push(ArrPlace {
                base: Expr::field(inn, "arr"),
                len: 3,
                float: false,
                writable: true,
            });
        }
        if self.rng.chance(agg_ret) && sc.ret == INT {
            sc.ret = sty;
            sc.ret_aggs = vec![Expr::var("st")];
            if by_param {
                sc.ret_aggs.push(Expr::var("s"));
            }
            // writes to what is returned, for the mutations to change
            let mut w = vec![];
            for _ in 0..1 + self.rng.below(2) {
                let (lv, e) = if self.rng.chance(50) {
                    let f = *self.rng.pick(&["a", "tag"]);
                    (Expr::field(Expr::var("st"), f), self.iexpr(sc, 1))
                } else {
                    let i = self.index(sc, 3);
                    (
                        Expr::index(Expr::field(Expr::field(Expr::var("st"), "in"), "arr"), i),
                        self.iexpr(sc, 1),
                    )
                };
                w.push(Stmt::Assign(lv, None, e));
            }
            snippets.push(w);
        }
        // a whole-struct copy
        if by_param && self.rng.chance(40) {
            snippets.push(vec![Stmt::If(
                self.cond(sc),
                vec![Stmt::Assign(Expr::var("st"), None, Expr::var("s"))],
                vec![],
            )]);
        }
    }

    /// `union`: a union parameter and local, type punning through them; maybe a union return type.
    pub(super) fn add_union(&mut self, b: &mut Parts, agg_ret: u32) {
        let Parts {
            p,
            sc,
            params,
            locals,
            snippets,
            ..
        } = b;
        let mut others = vec![
            (Ty::F64, "d".to_string()),
            (Ty::Arr(Box::new(INT), 2), "i".to_string()),
            (Ty::Arr(Box::new(Ty::I(IntK::UChar)), 8), "c".to_string()),
        ];
        self.rng.shuffle(&mut others);
        // unsigned, so that arithmetic on arbitrary bit patterns is not undefined
        let mut fields = vec![(Ty::I(IntK::ULLong), "l".to_string())];
        fields.extend(others);
        p.types.push(TypeDef::Union {
            tag: "U".into(),
            fields,
        });
        let uty = Ty::Union("U".into());
        let by_param = self.rng.chance(65);
        if by_param {
            params.push(param(uty.clone(), "u", Role::Value));
        }
        let init = if by_param && self.rng.chance(50) {
            Init::E(Expr::var("u"))
        } else {
            Init::List(vec![Init::E(Expr::Int(0))])
        };
        locals.push(local(uty.clone(), "v", Some(init)));
        for n in (if by_param { vec!["u", "v"] } else { vec!["v"] }).iter() {
            let b = Expr::var(n);
            sc.ints.push(Expr::field(b.clone(), "l"));
            sc.int_lv.push(Expr::field(b.clone(), "l"));
            sc.floats.push(Expr::field(b.clone(), "d"));
            sc.float_lv.push(Expr::field(b.clone(), "d"));
            sc.arrays.push(ArrPlace {
                base: Expr::field(b.clone(), "i"),
                len: 2,
                float: false,
                writable: true,
            });
            sc.arrays.push(ArrPlace {
                base: Expr::field(b, "c"),
                len: 8,
                float: false,
                writable: true,
            });
        }
        // type punning: write one member, read another
        let e = self.fexpr(sc, 1);
        let x = self.rng.pick(&sc.int_lv).clone();
        snippets.push(vec![
            Stmt::Assign(Expr::field(Expr::var("v"), "d"), None, e),
            Stmt::Assign(
                x,
                Some(Op::Xor),
                Expr::index(
                    Expr::field(Expr::var("v"), "c"),
                    Expr::Int(self.rng.range(0, 7)),
                ),
            ),
        ]);
        if self.rng.chance(agg_ret) && sc.ret == INT {
            sc.ret = uty;
            sc.ret_aggs = vec![Expr::var("v")];
            let lv = if self.rng.chance(50) {
                Expr::field(Expr::var("v"), "l")
            } else {
                Expr::index(Expr::field(Expr::var("v"), "i"), Expr::Int(1))
            };
            let e = self.iexpr(sc, 1);
            snippets.push(vec![Stmt::Assign(lv, None, e)]);
        }
    }

    fn struct_init(&mut self, second: &Ty) -> Init {
        Init::Fields(vec![
            ("a".into(), Init::E(Expr::Int(self.constant()))),
            (
                "b".into(),
                Init::E(if second.is_float() {
                    self.fconst(false)
                } else {
                    Expr::Int(self.constant().rem_euclid(1000))
                }),
            ),
            (
                "in".into(),
                Init::Fields(vec![
                    ("x".into(), Init::E(Expr::Int(self.constant()))),
                    (
                        "arr".into(),
                        Init::List(
                            (0..3)
                                .map(|_| Init::E(Expr::Int(self.constant())))
                                .collect(),
                        ),
                    ),
                ]),
            ),
            (
                "tag".into(),
                Init::E(Expr::Chr(b'a' + self.rng.below(26) as u8)),
            ),
        ])
    }
}
