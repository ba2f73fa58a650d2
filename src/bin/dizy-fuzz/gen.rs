//! Random C programs for the soundness fuzzer: a seeded PRNG and the generator.
//!
//! Takes a seed (and optionally the construct a pair must contain); gives a [`Program`]: one
//! function `f` and what it uses. The base is integer arithmetic over parameters and locals of
//! every width, nested branches, loops with constant or clamped input-dependent trip counts,
//! early returns, `break`/`continue` and small static helpers. On top of it each program gets a
//! few constructs ([`FEATURES`]): `_Bool`/`bool`, enums, float and double (with clamped
//! float→int conversions), structs and unions by value (nested, with arrays, as parameters,
//! locals and return values), out-parameters, buffers with their length, strings, two pointers
//! that may alias, local arrays, globals of every storage class with initializers, static locals,
//! `switch` with fallthrough, forward and backward `goto`, `do`-`while`, bounded recursion,
//! function pointers and const tables of them, `printf`/`putchar`, and loops that may not
//! terminate. First stage of the fuzzer: `mutate` derives the second version, `oracle` runs both.
//!
//! Termination: ordinary loops are bounded by construction (a counter only its loop increments,
//! a bound that is a constant, `(v < K ? v : K)`, a buffer length the oracle keeps small, or the
//! NUL of a string). Only [`Spin`] loops may run forever, and they are built to either stop
//! within a few hundred steps or never (unsigned counters from small starting values).

use crate::ast::*;

/// splitmix64: tiny, seedable, good enough to drive a generator; no extra crate needed.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in `0..n` (n > 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
    pub fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + (self.next_u64() % (hi - lo + 1) as u64) as i64
    }
    /// True with probability `p` percent.
    pub fn chance(&mut self, p: u32) -> bool {
        (self.next_u64() % 100) < u64::from(p)
    }
    pub fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.below(xs.len())]
    }
    pub fn shuffle<T>(&mut self, xs: &mut [T]) {
        for i in (1..xs.len()).rev() {
            let j = self.below(i + 1);
            xs.swap(i, j);
        }
    }
}

/// Seed of pair `index` of a run with seed `seed`: independent of the number of jobs.
pub fn pair_seed(seed: u64, index: u64) -> u64 {
    Rng::new(seed ^ index.wrapping_mul(0xD6E8_FEB8_6659_FD93)).next_u64()
}

/// The constructs a program may be built around; pair `i` of a run always contains
/// `FEATURES[i % FEATURES.len()]` (plus others at random), so that every run of a few dozen
/// pairs covers all of them.
pub const FEATURES: [&str; 20] = [
    "widths",
    "float",
    "struct",
    "global",
    "buffer",
    "switch",
    "union",
    "outparam",
    "static-local",
    "string",
    "alias",
    "goto",
    "enum",
    "fnptr",
    "printf",
    "hang",
    "local-array",
    "recursion",
    "do-while",
    "bool",
];

const CONSTS: [i64; 16] = [0, 1, 2, 3, 4, 5, 7, 8, 10, 16, 100, 127, 255, -1, -2, -128];
pub const FCONSTS: [&str; 14] = [
    "0.0", "-0.0", "0.5", "1.0", "1.5", "2.0", "-1.0", "3.25", "10.0", "100.0", "1e10", "1e-5",
    "0.1", "-2.5",
];

/// An array the generator may index with a computed (masked or reduced) index.
#[derive(Clone, Debug)]
pub struct ArrPlace {
    pub base: Expr,
    pub len: usize,
    pub float: bool,
    pub writable: bool,
}

#[derive(Clone, Debug)]
pub struct HelperSig {
    pub name: String,
    /// Per argument: `None` any int, `Some(m)`: `(e) & m` (recursion depth).
    pub args: Vec<Option<i64>>,
}

/// What the generator may use at one point of one function.
#[derive(Clone, Debug, Default)]
pub struct Scope {
    pub ints: Vec<Expr>,
    pub int_lv: Vec<Expr>,
    pub floats: Vec<Expr>,
    pub float_lv: Vec<Expr>,
    pub arrays: Vec<ArrPlace>,
    pub helpers: Vec<HelperSig>,
    /// Const tables of function pointers (name, length) and function-pointer variables.
    pub tables: Vec<(String, usize)>,
    pub fnptrs: Vec<String>,
    /// Functions a function-pointer variable may be set to.
    pub fn_targets: Vec<String>,
    pub strs: Vec<String>,
    pub enums: Vec<String>,
    pub loop_depth: usize,
    pub ctx: Ctx,
    pub loops: bool,
    pub print: bool,
    pub ret: Ty,
    /// Aggregates `f` may return (when it returns a struct or union).
    pub ret_aggs: Vec<Expr>,
}

impl Default for Ty {
    fn default() -> Self {
        INT
    }
}

pub struct Gen<'r> {
    pub rng: &'r mut Rng,
    /// How many pairs of the run before this one had the same main construct: constructs with
    /// variants (the storage class of a global, the width of an integer) take them in turn, so
    /// that a short run covers all of them.
    pub variant: usize,
    /// Locals the function being built needs besides its own (loop counters).
    extra: Vec<Local>,
    counter: usize,
    label: u32,
}

fn local(ty: Ty, name: &str, init: Option<Init>) -> Local {
    Local {
        ty,
        name: name.into(),
        init,
        is_static: false,
    }
}

fn param(ty: Ty, name: &str, role: Role) -> Param {
    Param {
        ty,
        name: name.into(),
        role,
    }
}

fn int_init(v: i64) -> Option<Init> {
    Some(Init::E(Expr::Int(v)))
}

impl<'r> Gen<'r> {
    pub fn new(rng: &'r mut Rng) -> Gen<'r> {
        Gen {
            rng,
            variant: 0,
            extra: vec![],
            counter: 0,
            label: 0,
        }
    }

    pub fn constant(&mut self) -> i64 {
        if self.rng.chance(80) {
            *self.rng.pick(&CONSTS)
        } else {
            self.rng.range(-50, 300)
        }
    }

    pub fn fconst(&mut self, single: bool) -> Expr {
        let c = *self.rng.pick(&FCONSTS);
        Expr::Flt(if single {
            format!("{c}f")
        } else {
            c.to_string()
        })
    }

    /// The features of pair `index` (the forced one first).
    pub fn features(&mut self, primary: Option<&'static str>) -> Vec<&'static str> {
        let mut fs: Vec<&'static str> = primary.into_iter().collect();
        // few constructs per program keep dizy's runs short
        let extra = match self.rng.below(100) {
            0..=44 => 0,
            45..=84 => 1,
            _ => 2,
        };
        for _ in 0..extra {
            let f = *self.rng.pick(&FEATURES);
            if !fs.contains(&f) {
                fs.push(f);
            }
        }
        fs
    }

    /// A program containing at least `primary` (when given).
    pub fn program(&mut self, primary: Option<&'static str>) -> Program {
        let feats = self.features(primary);
        let has = |f: &str| feats.contains(&f);
        // how likely `f` returns the main construct's value (an aggregate, a float): high when
        // the pair is about it
        let agg_ret = if primary.is_some_and(|p| ["struct", "union", "float"].contains(&p)) {
            70
        } else {
            40
        };
        let mut p = Program::default();
        let mut sc = Scope {
            loops: true,
            print: has("printf"),
            ctx: top_ctx(),
            ..Scope::default()
        };
        let mut params: Vec<Param> = vec![];
        let mut locals: Vec<Local> = vec![];
        let mut snippets: Vec<Vec<Stmt>> = vec![];
        // statements that go last
        let mut tail: Vec<Stmt> = vec![];
        self.extra.clear();
        self.counter = 0;
        self.label = 0;

        // base integer parameters and locals
        let wide = has("widths");
        let int_tys: Vec<IntK> = if wide {
            vec![
                IntK::Char,
                IntK::SChar,
                IntK::UChar,
                IntK::Short,
                IntK::UShort,
                IntK::Int,
                IntK::UInt,
                IntK::Long,
                IntK::ULong,
                IntK::LLong,
                IntK::ULLong,
                IntK::Int,
            ]
        } else {
            vec![IntK::Int, IntK::Int, IntK::Int, IntK::Char, IntK::UInt]
        };
        let np = 1 + self.rng.below(if feats.len() > 1 { 2 } else { 3 });
        for n in ["a", "b", "c"][..np].iter() {
            let k = *self.rng.pick(&int_tys);
            params.push(param(Ty::I(k), n, Role::Value));
            sc.ints.push(Expr::var(n));
            sc.int_lv.push(Expr::var(n));
        }
        let nl = 1 + self.rng.below(2);
        for n in ["x", "y"][..nl].iter() {
            let k = *self.rng.pick(&int_tys);
            let v = self.constant();
            locals.push(local(Ty::I(k), n, int_init(v)));
            sc.ints.push(Expr::var(n));
            sc.int_lv.push(Expr::var(n));
        }

        // base helpers (int -> int), loop-free
        let nh = if self.rng.chance(40) {
            1 + self.rng.below(2)
        } else {
            0
        };

        for f in &feats {
            match *f {
                "widths" => {
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
                "bool" => {
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
                "enum" => {
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
                    let mut cases = vec![];
                    let mut labels: Vec<CaseLabel> = names
                        .iter()
                        .map(|n| CaseLabel::Name(n.to_string()))
                        .collect();
                    self.rng.shuffle(&mut labels);
                    labels.truncate(2 + self.rng.below(2));
                    if self.rng.chance(60) {
                        labels.push(CaseLabel::Default);
                    }
                    let mut inner = sc.clone();
                    inner.ctx.in_switch = true;
                    inner.ctx.top = false;
                    for l in labels {
                        let n = 1 + self.rng.below(2);
                        let body = self.block(&mut inner, n, 0);
                        cases.push(Case {
                            label: l,
                            body,
                            brk: self.rng.chance(75),
                        });
                    }
                    snippets.push(vec![Stmt::Switch(Expr::var("e"), cases)]);
                }
                "float" => {
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
                    let conv = self.f2i(&sc);
                    snippets.push(vec![Stmt::Assign(x, Some(Op::Add), conv)]);
                    let e = self.iexpr(&sc, 1);
                    snippets.push(vec![Stmt::Assign(
                        Expr::var("t"),
                        Some(Op::Add),
                        Expr::cast(Ty::F64, e),
                    )]);
                }
                "struct" => {
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
                    self.rng.shuffle(&mut fields);
                    p.types.push(TypeDef::Struct {
                        tag: "S".into(),
                        fields,
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
                        for f in ["a", "tag"] {
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
                                (Expr::field(Expr::var("st"), f), self.iexpr(&sc, 1))
                            } else {
                                let i = self.index(&sc, 3);
                                (
                                    Expr::index(
                                        Expr::field(Expr::field(Expr::var("st"), "in"), "arr"),
                                        i,
                                    ),
                                    self.iexpr(&sc, 1),
                                )
                            };
                            w.push(Stmt::Assign(lv, None, e));
                        }
                        snippets.push(w);
                    }
                    // a whole-struct copy
                    if by_param && self.rng.chance(40) {
                        snippets.push(vec![Stmt::If(
                            self.cond(&sc),
                            vec![Stmt::Assign(Expr::var("st"), None, Expr::var("s"))],
                            vec![],
                        )]);
                    }
                }
                "union" => {
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
                    let e = self.fexpr(&sc, 1);
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
                        let e = self.iexpr(&sc, 1);
                        snippets.push(vec![Stmt::Assign(lv, None, e)]);
                    }
                }
                "outparam" => {
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
                        self.fexpr(&sc, 2)
                    } else {
                        self.iexpr(&sc, 2)
                    };
                    let c = self.cond(&sc);
                    let e2 = if t.is_float() {
                        self.fexpr(&sc, 1)
                    } else {
                        self.iexpr(&sc, 1)
                    };
                    snippets.push(vec![Stmt::If(
                        c,
                        vec![Stmt::Assign(out.clone(), None, e)],
                        vec![Stmt::Assign(out, Some(Op::Add), e2)],
                    )]);
                }
                "buffer" => {
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
                    let mut inner = sc.clone();
                    inner.loops = false;
                    inner.loop_depth += 1;
                    inner.ctx.in_loop = true;
                    inner.ctx.top = false;
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
                "string" => {
                    params.push(param(
                        Ty::Ptr(Box::new(Ty::I(IntK::Char)), true),
                        "str",
                        Role::Str,
                    ));
                    sc.strs.push("str".into());
                    let i = self.counter_var();
                    let mut inner = sc.clone();
                    inner.loops = false;
                    inner.loop_depth += 1;
                    inner.ctx.in_loop = true;
                    inner.ctx.top = false;
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
                    let mut body =
                        vec![Stmt::If(c, vec![Stmt::Assign(x, Some(Op::Add), e)], vec![])];
                    if self.rng.chance(50) {
                        body.push(self.stmt(&mut inner, 1));
                    }
                    snippets.push(vec![Stmt::StrLoop(i, "str".into(), body)]);
                }
                "alias" => {
                    for n in ["p", "q"] {
                        params.push(param(Ty::Ptr(Box::new(INT), false), n, Role::Alias));
                        let d = Expr::deref(Expr::var(n));
                        sc.ints.push(d.clone());
                        sc.int_lv.push(d);
                    }
                    let (p_, q_) = (Expr::deref(Expr::var("p")), Expr::deref(Expr::var("q")));
                    let x = self.rng.pick(&sc.int_lv).clone();
                    let e1 = self.iexpr(&sc, 1);
                    let e2 = self.iexpr(&sc, 1);
                    let mut s = vec![
                        Stmt::Assign(p_.clone(), None, e1),
                        Stmt::Assign(x, None, Expr::bin(Op::Add, q_.clone(), e2)),
                    ];
                    if self.rng.chance(50) {
                        let e3 = self.iexpr(&sc, 1);
                        s.push(Stmt::Assign(q_, Some(Op::Add), e3));
                    }
                    snippets.push(s);
                }
                "local-array" => {
                    let float = !sc.float_lv.is_empty() && self.rng.chance(30);
                    let len = *self.rng.pick(&[3usize, 4, 4, 5, 8]);
                    let ek = if float {
                        Ty::F64
                    } else {
                        Ty::I(*self.rng.pick(&[
                            IntK::Int,
                            IntK::Int,
                            IntK::Short,
                            IntK::UChar,
                            IntK::Long,
                        ]))
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
                "global" => {
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
                                let e = self.fexpr(&sc, 2);
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
                        let e = self.iexpr(&sc, 1);
                        snippets.push(vec![Stmt::Assign(t, Some(Op::Add), e)]);
                    }
                }
                "static-local" => {
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
                        self.iexpr(&sc, 1)
                    };
                    snippets.push(vec![Stmt::Assign(Expr::var("cnt"), Some(Op::Add), e)]);
                }
                "switch" => {
                    let subject = if self.rng.chance(60) {
                        let v = self.ileaf(&sc);
                        Expr::bin(Op::And, v, Expr::Int(7))
                    } else {
                        let v = self.ileaf(&sc);
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
                "goto" => {
                    // backward: a loop made of labels and gotos
                    let i = self.counter_var();
                    let bound = self.bound(&sc);
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
                "do-while" => {
                    let i = self.counter_var();
                    let bound = self.bound(&sc);
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
                "recursion" => {
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
                            body: vec![Stmt::If(
                                Expr::bin(Op::Lt, Expr::var("n"), Expr::Int(2)),
                                vec![Stmt::Return(Expr::var("n"))],
                                vec![],
                            )],
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
                        }
                    } else {
                        let mut hs = Scope {
                            ints: vec![Expr::var("n"), Expr::var("acc")],
                            int_lv: vec![Expr::var("acc")],
                            ctx: top_ctx(),
                            ..Scope::default()
                        };
                        let step = self.stmt(&mut hs, 0);
                        let step = match step {
                            Stmt::Assign(..) => step,
                            _ => Stmt::Assign(Expr::var("acc"), Some(Op::Add), Expr::var("n")),
                        };
                        Func {
                            name: name.clone(),
                            is_static: true,
                            ret: INT,
                            params: vec![
                                param(INT, "n", Role::Value),
                                param(INT, "acc", Role::Value),
                            ],
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
                                name.clone(),
                                vec![
                                    Expr::bin(Op::Sub, Expr::var("n"), Expr::Int(1)),
                                    Expr::var("acc"),
                                ],
                            ),
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
                    let call = self.call(&sc, &HelperSig { name, args });
                    snippets.push(vec![Stmt::Assign(x, Some(Op::Add), call)]);
                }
                "fnptr" => {
                    p.types.push(TypeDef::FnPtr {
                        name: "fn_t".into(),
                        ret: INT,
                        params: vec![INT],
                    });
                    let nt = 2 + self.rng.below(2);
                    let mut names = vec![];
                    for _ in 0..nt {
                        let name = format!("op{}", p.helpers.len());
                        let h = self.small_helper(&name, 1, &sc);
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
                        let c = self.cond(&sc);
                        snippets.push(vec![Stmt::If(
                            c,
                            vec![Stmt::Assign(Expr::var("fp"), None, Expr::var(&other))],
                            vec![],
                        )]);
                    }
                    let x = self.rng.pick(&sc.int_lv).clone();
                    let call = self.ptr_call(&sc);
                    snippets.push(vec![Stmt::Assign(x, Some(Op::Add), call)]);
                }
                "printf" => {
                    let s = self.print_stmt(&sc);
                    snippets.push(vec![s]);
                    // putchar every other time
                    if self.variant % 2 == 1 {
                        let e = self.iexpr(&sc, 1);
                        let c = Expr::bin(
                            Op::Add,
                            Expr::Chr(b'a'),
                            Expr::bin(Op::And, e, Expr::Int(15)),
                        );
                        snippets.push(vec![Stmt::Call(Expr::Lib("putchar".into(), vec![c]))]);
                    }
                }
                "hang" => {
                    let s = self.spin(&sc);
                    snippets.push(vec![s]);
                }
                _ => {}
            }
        }

        // base helpers, which may use the globals
        for _ in 0..nh {
            let name = format!("h{}", p.helpers.len());
            let arity = 1 + self.rng.below(2);
            let mut h = self.small_helper(&name, arity, &sc);
            if has("static-local") && self.rng.chance(50) {
                h.locals.push(Local {
                    ty: INT,
                    name: "calls".into(),
                    init: int_init(self.rng.range(0, 3)),
                    is_static: true,
                });
                h.body.insert(
                    0,
                    Stmt::Assign(Expr::var("calls"), Some(Op::Add), Expr::Int(1)),
                );
                h.ret_expr = Expr::bin(Op::Add, h.ret_expr, Expr::var("calls"));
            }
            p.helpers.push(h);
            sc.helpers.push(HelperSig {
                name,
                args: vec![None; arity],
            });
        }

        // the body: random statements with the features' statements spliced in
        let n = 1 + self.rng.below(if feats.len() > 1 { 2 } else { 3 });
        let depth = 1 + self.rng.below(2);
        let mut body = self.block(&mut sc, n, depth);
        for snip in snippets {
            if let [Stmt::Goto(l)] = snip.as_slice() {
                if l.is_empty() {
                    self.forward_goto(&sc, &mut body);
                    continue;
                }
            }
            let at = self.rng.below(body.len() + 1);
            body.splice(at..at, snip);
        }
        body.append(&mut tail);
        locals.append(&mut self.extra);
        // statements made before `f` got an aggregate return type return an aggregate too
        if let Some(agg) = sc.ret_aggs.first() {
            let aggs = sc.ret_aggs.clone();
            each_block(&mut body, top_ctx(), &mut |b, _| {
                for s in b.iter_mut() {
                    if let Stmt::Return(e) = s {
                        if !aggs.contains(e) {
                            *e = agg.clone();
                        }
                    }
                }
            });
        }
        let ret = sc.ret.clone();
        let ret_expr = self.ret_expr(&sc);
        p.main = Func {
            name: MAIN.into(),
            is_static: false,
            ret,
            params,
            locals,
            body,
            ret_expr,
        };
        p
    }

    /// `if (c) goto Fk;` somewhere in the top-level body and `Fk:;` after it.
    fn forward_goto(&mut self, sc: &Scope, body: &mut Vec<Stmt>) {
        self.label += 1;
        let l = format!("F{}", self.label);
        let at = self.rng.below(body.len() + 1);
        let to = at + 1 + self.rng.below(body.len() - at + 1);
        let c = self.cond(sc);
        body.insert(at, Stmt::If(c, vec![Stmt::Goto(l.clone())], vec![]));
        body.insert(to.min(body.len()), Stmt::Label(l));
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

    /// A fresh loop counter (an `int` local initialized to 0).
    fn counter_var(&mut self) -> String {
        let i = format!("i{}", self.counter);
        self.counter += 1;
        self.extra.push(local(INT, &i, int_init(0)));
        i
    }

    fn bound(&mut self, sc: &Scope) -> Bound {
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
        if self.rng.chance(55) && !vars.is_empty() {
            Bound::Clamp((*self.rng.pick(&vars)).clone(), k)
        } else {
            Bound::Const(k)
        }
    }

    /// A small loop-free `static int NAME(int p0, …)`.
    fn small_helper(&mut self, name: &str, arity: usize, outer: &Scope) -> Func {
        let params: Vec<Param> = (0..arity)
            .map(|i| param(INT, &format!("p{i}"), Role::Value))
            .collect();
        let mut sc = Scope {
            ints: params.iter().map(|p| Expr::var(&p.name)).collect(),
            int_lv: params.iter().map(|p| Expr::var(&p.name)).collect(),
            ctx: top_ctx(),
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
        }
    }

    fn ret_expr(&mut self, sc: &Scope) -> Expr {
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

    fn block(&mut self, sc: &mut Scope, n: usize, depth: usize) -> Vec<Stmt> {
        (0..n).map(|_| self.stmt(sc, depth)).collect()
    }

    pub fn stmt(&mut self, sc: &mut Scope, depth: usize) -> Stmt {
        let roll = self.rng.below(100);
        if depth > 0 && roll < 20 {
            let c = self.cond(sc);
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
            let c = self.cond(sc);
            let j = if self.rng.chance(50) || sc.ctx.in_spin || sc.ctx.no_continue {
                Stmt::Break
            } else {
                Stmt::Continue
            };
            return Stmt::If(c, vec![j], vec![]);
        }
        if roll < 49 && !sc.ctx.in_spin {
            let c = self.cond(sc);
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
        self.assign(sc)
    }

    fn ret_value(&mut self, sc: &Scope) -> Expr {
        if !sc.ret_aggs.is_empty() {
            self.rng.pick(&sc.ret_aggs).clone()
        } else if sc.ret.is_float() {
            self.fexpr(sc, 2)
        } else {
            self.iexpr(sc, 2)
        }
    }

    fn assign(&mut self, sc: &Scope) -> Stmt {
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
        let e = self.iexpr(sc, 2);
        Stmt::Assign(x, op, e)
    }

    /// An index into an array of length `len`: a constant, a masked or a reduced expression.
    fn index(&mut self, sc: &Scope, len: usize) -> Expr {
        let cands: Vec<Expr> = sc
            .ints
            .iter()
            .filter(|e| matches!(e, Expr::Var(_)))
            .cloned()
            .collect();
        if self.rng.chance(40) || cands.is_empty() {
            return Expr::Int(self.rng.range(0, len as i64 - 1));
        }
        let v = self.rng.pick(&cands).clone();
        if len.is_power_of_two() {
            Expr::bin(Op::And, v, Expr::Int(len as i64 - 1))
        } else {
            Expr::bin(
                Op::Rem,
                Expr::cast(Ty::I(IntK::UInt), v),
                Expr::Int(len as i64),
            )
        }
    }

    fn int_place(&mut self, sc: &Scope, write: bool) -> Expr {
        let arrs: Vec<ArrPlace> = sc
            .arrays
            .iter()
            .filter(|a| !a.float && (a.writable || !write))
            .cloned()
            .collect();
        if !arrs.is_empty() && self.rng.chance(20) {
            let a = self.rng.pick(&arrs).clone();
            let i = self.index(sc, a.len);
            return Expr::index(a.base, i);
        }
        let pool = if write { &sc.int_lv } else { &sc.ints };
        self.rng.pick(pool).clone()
    }

    fn float_place(&mut self, sc: &Scope, write: bool) -> Expr {
        let arrs: Vec<ArrPlace> = sc
            .arrays
            .iter()
            .filter(|a| a.float && (a.writable || !write))
            .cloned()
            .collect();
        if !arrs.is_empty() && self.rng.chance(25) {
            let a = self.rng.pick(&arrs).clone();
            let i = self.index(sc, a.len);
            return Expr::index(a.base, i);
        }
        let pool = if write { &sc.float_lv } else { &sc.floats };
        self.rng.pick(pool).clone()
    }

    fn ileaf(&mut self, sc: &Scope) -> Expr {
        if self.rng.chance(65) && !sc.ints.is_empty() {
            self.int_place(sc, false)
        } else if !sc.enums.is_empty() && self.rng.chance(25) {
            Expr::Var(self.rng.pick(&sc.enums).clone())
        } else if self.rng.chance(5) {
            Expr::Chr(*self.rng.pick(b"a0z "))
        } else {
            Expr::Int(self.constant())
        }
    }

    pub fn leaf(&mut self, readable: &[Expr]) -> Expr {
        if self.rng.chance(65) && !readable.is_empty() {
            self.rng.pick(readable).clone()
        } else {
            Expr::Int(self.constant())
        }
    }

    fn call(&mut self, sc: &Scope, h: &HelperSig) -> Expr {
        let args = h
            .args
            .iter()
            .map(|a| {
                let e = self.iexpr(sc, 1);
                match a {
                    Some(m) => Expr::bin(Op::And, e, Expr::Int(*m)),
                    None => e,
                }
            })
            .collect();
        Expr::Call(h.name.clone(), args)
    }

    fn ptr_call(&mut self, sc: &Scope) -> Expr {
        let arg = self.iexpr(sc, 1);
        if !sc.fnptrs.is_empty() && self.rng.chance(40) {
            return Expr::CallPtr(
                Box::new(Expr::Var(self.rng.pick(&sc.fnptrs).clone())),
                vec![arg],
            );
        }
        let (t, len) = self.rng.pick(&sc.tables).clone();
        let i = self.ileaf(sc);
        let idx = Expr::bin(Op::And, i, Expr::Int(len as i64 - 1));
        Expr::CallPtr(Box::new(Expr::index(Expr::var(&t), idx)), vec![arg])
    }

    /// A float→int conversion that cannot overflow: `(int)(f > -1000.0 && f < 1000.0 ? f : 0.0)`.
    fn f2i(&mut self, sc: &Scope) -> Expr {
        let f = self.float_place(sc, false);
        if self.rng.chance(15) {
            // to _Bool: defined for every value (NaN is true)
            return Expr::cast(Ty::I(IntK::Bool), f);
        }
        let k = *self
            .rng
            .pick(&[IntK::Int, IntK::Int, IntK::Long, IntK::Short]);
        let c = Expr::bin(
            Op::LAnd,
            Expr::bin(Op::Gt, f.clone(), Expr::Flt("-1000.0".into())),
            Expr::bin(Op::Lt, f.clone(), Expr::Flt("1000.0".into())),
        );
        Expr::cast(Ty::I(k), Expr::cond(c, f, Expr::Flt("0.0".into())))
    }

    pub fn iexpr(&mut self, sc: &Scope, depth: usize) -> Expr {
        if depth == 0 || self.rng.chance(30) {
            return self.ileaf(sc);
        }
        let roll = self.rng.below(100);
        if roll < 7 && !sc.helpers.is_empty() && !sc.ctx.in_spin {
            let h = self.rng.pick(&sc.helpers).clone();
            return self.call(sc, &h);
        }
        if roll < 11 && !sc.tables.is_empty() && !sc.ctx.in_spin {
            return self.ptr_call(sc);
        }
        if roll < 15 && !sc.floats.is_empty() {
            return self.f2i(sc);
        }
        if roll < 17 && !sc.strs.is_empty() {
            let s = self.rng.pick(&sc.strs).clone();
            return Expr::cast(INT, Expr::Lib("strlen".into(), vec![Expr::var(&s)]));
        }
        if roll < 21 {
            // a conversion to another integer type
            let k = *self.rng.pick(&[
                IntK::Char,
                IntK::UChar,
                IntK::Short,
                IntK::UShort,
                IntK::UInt,
                IntK::Long,
                IntK::Bool,
            ]);
            return Expr::cast(Ty::I(k), self.iexpr(sc, depth - 1));
        }
        if roll < 26 {
            let u = *self.rng.pick(&[Un::Neg, Un::Not, Un::BitNot]);
            return Expr::Un(u, Box::new(self.iexpr(sc, depth - 1)));
        }
        if roll < 30 {
            let c = self.cond_leaf(sc);
            return Expr::cond(c, self.iexpr(sc, depth - 1), self.iexpr(sc, depth - 1));
        }
        if roll < 35 {
            let op = *self.rng.pick(&[Op::Shl, Op::Shr]);
            let mut a = self.iexpr(sc, depth - 1);
            if op == Op::Shl {
                // a negative left operand is undefined: keep it in 0..255 most of the time
                a = Expr::bin(Op::And, a, Expr::Int(255));
            }
            // constant shift amounts: a variable amount would be undefined almost always
            return Expr::bin(op, a, Expr::Int(self.rng.range(0, 6)));
        }
        if roll < 41 {
            return Expr::bin(
                *self.rng.pick(&Op::CMP),
                self.iexpr(sc, depth - 1),
                self.iexpr(sc, depth - 1),
            );
        }
        let op = *self.rng.pick(&[
            Op::Add,
            Op::Add,
            Op::Sub,
            Op::Sub,
            Op::Mul,
            Op::And,
            Op::Or,
            Op::Xor,
            Op::Div,
            Op::Rem,
        ]);
        let a = self.iexpr(sc, depth - 1);
        let b = match op {
            // mostly nonzero constant divisors, keeps most inputs free of UB
            Op::Div | Op::Rem if self.rng.chance(75) => {
                Expr::Int(*self.rng.pick(&[2, 3, 4, 5, 7, 10, -3]))
            }
            Op::Mul if self.rng.chance(60) => Expr::Int(*self.rng.pick(&[2, 3, 4, 5, -1, -2, 10])),
            _ => self.iexpr(sc, depth - 1),
        };
        Expr::bin(op, a, b)
    }

    fn fleaf(&mut self, sc: &Scope) -> Expr {
        let r = self.rng.below(100);
        if r < 60 && !sc.floats.is_empty() {
            self.float_place(sc, false)
        } else if r < 80 {
            let single = self.rng.chance(20);
            self.fconst(single)
        } else {
            let i = self.ileaf(sc);
            Expr::cast(Ty::F64, i)
        }
    }

    pub fn fexpr(&mut self, sc: &Scope, depth: usize) -> Expr {
        if depth == 0 || self.rng.chance(30) {
            return self.fleaf(sc);
        }
        let roll = self.rng.below(100);
        if roll < 10 {
            return Expr::Un(Un::Neg, Box::new(self.fexpr(sc, depth - 1)));
        }
        if roll < 18 {
            let c = self.cond(sc);
            return Expr::cond(c, self.fexpr(sc, depth - 1), self.fexpr(sc, depth - 1));
        }
        if roll < 24 {
            let i = self.iexpr(sc, depth - 1);
            return Expr::cast(
                if self.rng.chance(70) {
                    Ty::F64
                } else {
                    Ty::F32
                },
                i,
            );
        }
        let op = *self
            .rng
            .pick(&[Op::Add, Op::Add, Op::Sub, Op::Mul, Op::Mul, Op::Div]);
        Expr::bin(op, self.fexpr(sc, depth - 1), self.fexpr(sc, depth - 1))
    }

    pub fn cond(&mut self, sc: &Scope) -> Expr {
        if !sc.floats.is_empty() && self.rng.chance(35) {
            let a = self.fexpr(sc, 1);
            let c = match self.rng.below(10) {
                0 => {
                    // NaN test
                    let v = self.float_place(sc, false);
                    Expr::bin(*self.rng.pick(&[Op::Ne, Op::Eq]), v.clone(), v)
                }
                1..=4 => Expr::bin(*self.rng.pick(&Op::CMP), a, self.fconst(false)),
                _ => Expr::bin(*self.rng.pick(&Op::CMP), a, self.fexpr(sc, 1)),
            };
            return if self.rng.chance(15) {
                Expr::Un(Un::Not, Box::new(c))
            } else {
                c
            };
        }
        let a = self.iexpr(sc, 2);
        let b = if self.rng.chance(60) {
            Expr::Int(self.constant())
        } else {
            self.iexpr(sc, 1)
        };
        let c = Expr::bin(*self.rng.pick(&Op::CMP), a, b);
        if self.rng.chance(15) {
            let d = self.cond_leaf(sc);
            Expr::bin(*self.rng.pick(&[Op::LAnd, Op::LOr]), c, d)
        } else if self.rng.chance(8) {
            Expr::Un(Un::Not, Box::new(c))
        } else {
            c
        }
    }

    fn cond_leaf(&mut self, sc: &Scope) -> Expr {
        let a = self.int_place(sc, false);
        Expr::bin(*self.rng.pick(&Op::CMP), a, Expr::Int(self.constant()))
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
