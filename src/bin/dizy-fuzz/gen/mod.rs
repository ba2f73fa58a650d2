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
//! function pointers and const tables of them, `printf`/`putchar`, loops that may not
//! terminate, names a missing project header defines (values and `case` labels), a struct
//! reached through a pointer whose member points to a buffer (`r->p[i]`), a `malloc`ed block, and GNU
//! statement expressions (typed `max`, declarations that shadow, loops with
//! `break`/`continue` inside, side effects where they are sequenced; see [`stmtexpr`]). First
//! stage of the fuzzer: `mutate` derives the second version, `oracle` runs both.
//!
//! Termination: ordinary loops are bounded by construction (a counter only its loop increments,
//! a bound that is a constant, `(v < K ? v : K)`, a buffer length the oracle keeps small, or the
//! NUL of a string). Only [`Spin`] loops may run forever, and they are built to either stop
//! within a few hundred steps or never (unsigned counters from small starting values).
//!
//! This file holds the PRNG, the generator's state and [`Gen::program`], which assembles `f`;
//! each construct is added by a method in [`types`], [`memory`], [`control`] or [`stmtexpr`];
//! statements come from [`stmt`], expressions from [`expr`].

mod control;
mod expr;
mod memory;
mod stmt;
mod stmtexpr;
mod types;

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
pub const FEATURES: [&str; 24] = [
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
    "stmt-expr",
    "config",
    "record",
    "heap",
];

/// The generator's versions: a seed of an earlier run gives the same pairs again with the
/// generation it ran with. 1: before `<ctype.h>` calls; 2: before missing-header names
/// (`config`); 3: before bit-fields in structs; 4: before pointer members (`record`) and `malloc`
/// (`heap`); 5: before the mutations of integer identities (`bit-algebra`); 6: before the loop
/// schedule mutations (`loop-unroll`, `loop-peel`, `loop-split`); 7: before functions that
/// reach their end without `return`, writes of a record's pointer member and `realloc`; 8:
/// before GCC's bit builtins and `case` ranges; 9: the current one.
pub const GENERATION: u8 = 9;

/// The constructs of generation `g` (each generation keeps the earlier list as its prefix).
pub fn feature_list(g: u8) -> &'static [&'static str] {
    match g {
        0..=2 => &FEATURES[..21],
        3 | 4 => &FEATURES[..22],
        _ => &FEATURES,
    }
}

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
    /// Names of a missing header ([`Program::config`]).
    pub config: Vec<String>,
    pub loop_depth: usize,
    pub ctx: Ctx,
    pub loops: bool,
    pub print: bool,
    pub ret: Ty,
    /// Aggregates `f` may return (when it returns a struct or union).
    pub ret_aggs: Vec<Expr>,
    /// How deep statement expressions may still nest here (0: none).
    pub stmt_expr: u8,
    /// Parameters and locals a statement expression's declaration may shadow, with their types.
    pub shadow: Vec<(String, Ty)>,
}

impl Scope {
    /// The scope inside the body of a loop the generator adds at this point (no loops nest in
    /// it).
    pub fn loop_body(&self) -> Scope {
        let mut inner = self.clone();
        inner.loops = false;
        inner.loop_depth += 1;
        inner.ctx.in_loop = true;
        inner.ctx.top = false;
        inner
    }

    /// The plain integer variables (not array elements or fields) of `ints`.
    pub fn int_vars(&self) -> Vec<Expr> {
        self.ints
            .iter()
            .filter(|e| matches!(e, Expr::Var(_)))
            .cloned()
            .collect()
    }
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
    /// Which generator ([`GENERATION`]): earlier ones give the pairs of earlier runs, pair for
    /// pair.
    pub generation: u8,
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

/// What [`Gen::program`] gathers before it assembles `f`: the program so far, the scope of
/// `f`'s body, its parameters and locals, the constructs' statements (spliced in at random
/// places) and those that go last.
pub(super) struct Parts {
    p: Program,
    sc: Scope,
    params: Vec<Param>,
    locals: Vec<Local>,
    snippets: Vec<Vec<Stmt>>,
    tail: Vec<Stmt>,
}

impl<'r> Gen<'r> {
    pub fn new(rng: &'r mut Rng) -> Gen<'r> {
        Gen {
            rng,
            variant: 0,
            generation: GENERATION,
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
            let f = *self.rng.pick(feature_list(self.generation));
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
        let p = Program::default();
        let mut sc = Scope {
            loops: true,
            print: has("printf"),
            ctx: top_ctx(),
            ..Scope::default()
        };
        let mut params: Vec<Param> = vec![];
        let mut locals: Vec<Local> = vec![];
        let snippets: Vec<Vec<Stmt>> = vec![];
        // statements that go last
        let tail: Vec<Stmt> = vec![];
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

        let mut b = Parts {
            p,
            sc,
            params,
            locals,
            snippets,
            tail,
        };
        for f in &feats {
            match *f {
                "widths" => self.add_widths(&mut b),
                "bool" => self.add_bool(&mut b),
                "enum" => self.add_enum(&mut b),
                "float" => self.add_float(&mut b, agg_ret),
                "struct" => self.add_struct(&mut b, agg_ret, &feats),
                "union" => self.add_union(&mut b, agg_ret),
                "outparam" => self.add_outparam(&mut b),
                "buffer" => self.add_buffer(&mut b),
                "string" => self.add_string(&mut b),
                "alias" => self.add_alias(&mut b),
                "local-array" => self.add_local_array(&mut b),
                "global" => self.add_global(&mut b),
                "static-local" => self.add_static_local(&mut b),
                "switch" => self.add_switch(&mut b),
                "goto" => self.add_goto(&mut b),
                "do-while" => self.add_do_while(&mut b),
                "recursion" => self.add_recursion(&mut b),
                "fnptr" => self.add_fnptr(&mut b),
                "printf" => self.add_printf(&mut b),
                "hang" => self.add_hang(&mut b),
                "stmt-expr" => self.add_stmt_expr(&mut b),
                "config" => self.add_config(&mut b),
                "record" => self.add_record(&mut b),
                "heap" => self.add_heap(&mut b),
                _ => {}
            }
        }
        let Parts {
            mut p,
            mut sc,
            params,
            mut locals,
            snippets,
            mut tail,
        } = b;

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
        let mut ret_expr = self.ret_expr(&sc);
        if sc.ret_aggs.is_empty() && self.stmt_exprs_here(&sc) && self.rng.chance(20) {
            ret_expr = self.se_return(&sc, ret_expr);
        }
        // counters of loops in statement expressions of the final return too
        locals.append(&mut self.extra);
        // generation 8: `f` may reach its end without `return` (a scalar result only: the
        // harness's stand-in return must convert from 0)
        let falls_off = self.generation >= 8
            && (ret.is_int() || ret.is_float())
            && sc.ret_aggs.is_empty()
            && self.rng.chance(12);
        p.main = Func {
            name: MAIN.into(),
            is_static: false,
            ret,
            params,
            locals,
            body,
            ret_expr,
            falls_off,
        };
        p
    }
}
