//! Second versions by mutation.
//!
//! Takes a generated [`Program`], an RNG and the pair's main construct; gives a mutated copy and
//! the names of the mutations applied. [`KINDS`] lists them: generic ones (`op`, `const`,
//! `bound`, `cond`, `delete`, `add`, `swap-dep`; preserving: `algebra`, `reorder`, `loop`,
//! `dead`, `rename`, `if-swap`) and, per construct, at least one that changes behaviour and one
//! that preserves it (under dizy's contract: -0.0 equals 0.0, NaN equals NaN, struct padding and
//! field order do not count). Some change only an initializer or a type definition, so that the
//! text of `f` stays the same. The kind is only a label for the statistics: the oracle decides
//! what is really different. Second stage of the fuzzer, after `gen`.

use std::collections::BTreeSet;

use crate::ast::*;
use crate::gen::{Gen, Rng, FCONSTS};

pub struct Kind {
    pub name: &'static str,
    pub preserving: bool,
    /// The construct it is about ("" for the generic ones).
    pub feature: &'static str,
    /// Applies to the program (types, globals, tables) rather than to one function.
    pub program: bool,
}

const fn k(name: &'static str, preserving: bool, feature: &'static str, program: bool) -> Kind {
    Kind {
        name,
        preserving,
        feature,
        program,
    }
}

pub const KINDS: &[Kind] = &[
    k("op", false, "", false),
    k("const", false, "", false),
    k("bound", false, "", false),
    k("cond", false, "", false),
    k("delete", false, "", false),
    k("add", false, "", false),
    k("swap-dep", false, "", false),
    k("algebra", true, "", false),
    k("reorder", true, "", false),
    k("loop", true, "", false),
    k("dead", true, "", false),
    k("rename", true, "", false),
    k("if-swap", true, "", false),
    k("int-type", false, "widths", false),
    k("int-type-same", true, "widths", false),
    k("bool-type", false, "bool", false),
    k("bool-norm", true, "bool", false),
    k("enum-value", false, "enum", true),
    k("enum-explicit", true, "enum", true),
    k("float-type", false, "float", false),
    k("float-cmp", false, "float", false),
    k("float-nan", false, "float", false),
    k("float-sub", true, "float", false),
    k("float-zero", true, "float", false),
    k("field-swap", false, "struct", false),
    k("field-type", false, "struct", true),
    k("field-reorder", true, "struct", true),
    k("member", false, "union", false),
    k("union-pun", true, "union", false),
    k("out-write", false, "outparam", false),
    k("out-split", true, "outparam", false),
    k("buf-bound", false, "buffer", false),
    k("index-ptr", true, "buffer", false),
    k("str-char", false, "string", false),
    k("str-ptr", true, "string", false),
    k("alias-swap", false, "alias", false),
    k("alias-loads", true, "alias", false),
    k("init", false, "global", true),
    k("init-same", true, "global", true),
    k("static-init", false, "static-local", true),
    k("static-init-same", true, "static-local", true),
    k("array-init", false, "local-array", false),
    k("array-loop", true, "local-array", false),
    k("case-break", false, "switch", false),
    k("case-label", false, "switch", false),
    k("case-reorder", true, "switch", false),
    k("goto-target", false, "goto", false),
    k("goto-loop", true, "goto", false),
    k("do-while", false, "do-while", false),
    k("do-while-same", true, "do-while", false),
    k("rec-base", false, "recursion", true),
    k("rec-same", true, "recursion", true),
    k("table-swap", false, "fnptr", true),
    k("table-helper", false, "fnptr", true),
    k("table-direct", true, "fnptr", false),
    k("print-fmt", false, "printf", false),
    k("print-split", true, "printf", false),
    k("spin-step", false, "hang", false),
    k("spin-cmp", true, "hang", false),
];

pub fn is_preserving(kind: &str) -> bool {
    KINDS.iter().any(|k| k.name == kind && k.preserving)
}

// ---------------------------------------------------------------------------------------------
// Walkers

/// Apply `f` to the `k`-th rewritable expression node of `func` satisfying `pred`.
fn nth_expr(
    func: &mut Func,
    pred: &dyn Fn(&Expr) -> bool,
    rng: &mut Rng,
    f: &mut dyn FnMut(&mut Expr, &mut Rng),
) -> bool {
    nth_expr_walk(func, Walk::Rewritable, pred, rng, f)
}

fn nth_expr_walk(
    func: &mut Func,
    walk: Walk,
    pred: &dyn Fn(&Expr) -> bool,
    rng: &mut Rng,
    f: &mut dyn FnMut(&mut Expr, &mut Rng),
) -> bool {
    let mut n = 0;
    func_exprs(func, walk, &mut |e, _| {
        if pred(e) {
            n += 1
        }
    });
    if n == 0 {
        return false;
    }
    let k = rng.below(n);
    let mut i = 0;
    let mut done = false;
    func_exprs(func, walk, &mut |e, _| {
        if !done && pred(e) {
            if i == k {
                f(e, rng);
                done = true;
            }
            i += 1;
        }
    });
    true
}

/// Apply `f` to the `k`-th statement list satisfying `pred`.
fn nth_block(
    func: &mut Func,
    pred: &dyn Fn(&Vec<Stmt>, Ctx) -> bool,
    rng: &mut Rng,
    f: &mut dyn FnMut(&mut Vec<Stmt>, Ctx, &mut Rng) -> bool,
) -> bool {
    let mut n = 0;
    each_block(&mut func.body, top_ctx(), &mut |b, c| {
        if pred(b, c) {
            n += 1
        }
    });
    if n == 0 {
        return false;
    }
    let k = rng.below(n);
    let (mut i, mut applied) = (0, false);
    each_block(&mut func.body, top_ctx(), &mut |b, c| {
        if pred(b, c) {
            if i == k {
                applied = f(b, c, rng);
            }
            i += 1;
        }
    });
    applied
}

/// Apply `f` to a random statement of `func` satisfying `pred` (in its block, at its index).
fn nth_stmt(
    func: &mut Func,
    pred: &dyn Fn(&Stmt) -> bool,
    rng: &mut Rng,
    f: &mut dyn FnMut(&mut Vec<Stmt>, usize, &mut Rng) -> bool,
) -> bool {
    nth_block(func, &|b, _| b.iter().any(pred), rng, &mut |b, _, rng| {
        let at: Vec<usize> = (0..b.len()).filter(|i| pred(&b[*i])).collect();
        let i = *rng.pick(&at);
        f(b, i, rng)
    })
}

/// Loop counters, string-loop counters and spin counters of a function.
pub fn counters(func: &Func) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    each_stmt(&func.body, &mut |s| match s {
        Stmt::For(i, ..)
        | Stmt::While(i, ..)
        | Stmt::WhileEnd(i, ..)
        | Stmt::DoWhile(i, ..)
        | Stmt::GotoLoop(i, ..)
        | Stmt::StrLoop(i, ..) => {
            out.insert(i.clone());
        }
        Stmt::Spin(sp) => {
            out.insert(sp.var.clone());
        }
        _ => {}
    });
    out
}

/// Integer variables a new statement of `func` may read and write (no loop counters, no
/// pointers, nothing const).
fn int_vars(p: &Program, func: &Func) -> Vec<String> {
    let cs = counters(func);
    let mut v: Vec<String> = func
        .params
        .iter()
        .filter(|pa| pa.role == Role::Value && pa.ty.is_int())
        .map(|pa| pa.name.clone())
        .collect();
    v.extend(
        func.locals
            .iter()
            .filter(|l| l.ty.is_int() && !cs.contains(&l.name))
            .map(|l| l.name.clone()),
    );
    if func.name == MAIN {
        v.extend(
            p.globals
                .iter()
                .filter(|g| g.ty.is_int() && !g.is_const)
                .map(|g| g.name.clone()),
        );
    }
    v
}

fn small_expr(rng: &mut Rng, vars: &[String]) -> Expr {
    let readable: Vec<Expr> = vars.iter().map(|v| Expr::var(v)).collect();
    let mut g = Gen::new(rng);
    let a = g.leaf(&readable);
    if g.rng.chance(50) {
        let b = g.leaf(&readable);
        let op = *g.rng.pick(&[Op::Add, Op::Sub, Op::Xor, Op::And, Op::Mul]);
        let b = if op == Op::Mul {
            Expr::Int(*g.rng.pick(&[2, 3, -1]))
        } else {
            b
        };
        Expr::bin(op, a, b)
    } else {
        a
    }
}

fn func_mut(p: &mut Program, fi: usize) -> &mut Func {
    if fi == 0 {
        &mut p.main
    } else {
        &mut p.helpers[fi - 1]
    }
}

fn func_ref(p: &Program, fi: usize) -> &Func {
    if fi == 0 {
        &p.main
    } else {
        &p.helpers[fi - 1]
    }
}

fn other_int_kind(rng: &mut Rng, k: IntK) -> IntK {
    let all = [
        IntK::Char,
        IntK::UChar,
        IntK::Short,
        IntK::UShort,
        IntK::Int,
        IntK::UInt,
        IntK::Long,
        IntK::LLong,
    ];
    let others: Vec<IntK> = all.iter().copied().filter(|x| *x != k).collect();
    *rng.pick(&others)
}

fn max_label(func: &Func) -> u32 {
    let mut m = 0;
    each_stmt(&func.body, &mut |s| {
        if let Stmt::GotoLoop(_, _, _, k) = s {
            m = m.max(*k);
        }
        if let Stmt::Label(l) = s {
            if let Ok(k) = l.trim_start_matches('F').parse::<u32>() {
                m = m.max(k);
            }
        }
    });
    m
}

/// Statements writing through pointer `p` (`*p = …`).
fn writes_deref(s: &Stmt, p: &str) -> bool {
    matches!(s, Stmt::Assign(Expr::Deref(x), _, _) if **x == Expr::var(p))
}

fn reads_deref(s: &Stmt, p: &str) -> bool {
    let mut found = false;
    let mut c = s.clone();
    stmt_exprs(&mut c, Walk::All, &mut |e, lv| {
        if !lv {
            if let Expr::Deref(x) = e {
                found |= **x == Expr::var(p);
            }
        }
    });
    if let Stmt::Assign(Expr::Deref(x), Some(_), _) = s {
        found |= **x == Expr::var(p);
    }
    found
}

/// Apply one mutation of kind `kind` to function `fi` of `p` (0: `f`, k: helper k-1) or to
/// the program; false when it has no site for it.
pub fn apply(kind: &str, p: &mut Program, fi: usize, rng: &mut Rng) -> bool {
    let snap = p.clone();
    let fsnap = func_ref(&snap, fi).clone();
    let env = Env::new(&snap, &fsnap);
    let vs = int_vars(&snap, &fsnap);
    match kind {
        // ------------------------------------------------------------------ generic, changing
        "op" => {
            let func = func_mut(p, fi);
            nth_expr(
                func,
                &|e| matches!(e, Expr::Bin(_, a, b) if env.is_arith(a) && env.is_arith(b)),
                rng,
                &mut |e, rng| {
                    if let Expr::Bin(op, a, b) = e {
                        let float = env.is_float(a) || env.is_float(b);
                        let choices: &[Op] = if op.is_cmp() {
                            &Op::CMP
                        } else if op.is_logic() {
                            &[Op::LAnd, Op::LOr]
                        } else if matches!(op, Op::Shl | Op::Shr) {
                            &[Op::Shl, Op::Shr]
                        } else if float {
                            &Op::FARITH
                        } else {
                            &Op::ARITH
                        };
                        let others: Vec<Op> = choices.iter().copied().filter(|o| o != op).collect();
                        *op = *rng.pick(&others);
                    }
                },
            )
        }
        "const" => {
            let func = func_mut(p, fi);
            nth_expr(
                func,
                &|e| matches!(e, Expr::Int(_) | Expr::Flt(_) | Expr::Chr(_)),
                rng,
                &mut |e, rng| match e {
                    Expr::Int(c) => {
                        *c = match rng.below(3) {
                            0 => *c + 1,
                            1 => *c - 1,
                            _ => Gen::new(rng).constant(),
                        }
                    }
                    Expr::Flt(t) => {
                        let single = t.ends_with('f');
                        let c = *rng.pick(&FCONSTS);
                        *t = if single {
                            format!("{c}f")
                        } else {
                            c.to_string()
                        };
                    }
                    Expr::Chr(c) => *c = c.wrapping_add(1),
                    _ => {}
                },
            )
        }
        "bound" => {
            let func = func_mut(p, fi);
            nth_stmt(
                func,
                &|s| {
                    matches!(
                        s,
                        Stmt::For(_, Bound::Const(_) | Bound::Clamp(..), _)
                            | Stmt::While(_, Bound::Const(_) | Bound::Clamp(..), _)
                            | Stmt::WhileEnd(_, Bound::Const(_) | Bound::Clamp(..), _)
                            | Stmt::DoWhile(_, Bound::Const(_) | Bound::Clamp(..), _)
                            | Stmt::GotoLoop(_, Bound::Const(_) | Bound::Clamp(..), _, _)
                    )
                },
                rng,
                &mut |b, i, rng| {
                    if let Stmt::For(_, bd, _)
                    | Stmt::While(_, bd, _)
                    | Stmt::WhileEnd(_, bd, _)
                    | Stmt::DoWhile(_, bd, _)
                    | Stmt::GotoLoop(_, bd, _, _) = &mut b[i]
                    {
                        if let Bound::Const(k) | Bound::Clamp(_, k) = bd {
                            *k = (*k + if rng.chance(50) { 1 } else { -1 }).max(0);
                        }
                    }
                    true
                },
            )
        }
        "cond" => {
            let func = func_mut(p, fi);
            nth_expr(
                func,
                &|e| matches!(e, Expr::Bin(op, _, _) if op.is_cmp()),
                rng,
                &mut |e, rng| {
                    if rng.chance(25) {
                        let inner = std::mem::replace(e, Expr::Int(0));
                        *e = Expr::Un(Un::Not, Box::new(inner));
                    } else if let Expr::Bin(op, _, _) = e {
                        *op = match op {
                            Op::Lt => Op::Le,
                            Op::Le => Op::Lt,
                            Op::Gt => Op::Ge,
                            Op::Ge => Op::Gt,
                            Op::Eq => Op::Ne,
                            _ => Op::Eq,
                        };
                    }
                },
            )
        }
        "delete" => {
            let func = func_mut(p, fi);
            nth_stmt(
                func,
                &|s| !matches!(s, Stmt::Label(_)),
                rng,
                &mut |b, i, _| {
                    b.remove(i);
                    true
                },
            )
        }
        "add" => {
            if vs.is_empty() {
                return false;
            }
            let func = func_mut(p, fi);
            nth_block(func, &|_, _| true, rng, &mut |b, ctx, rng| {
                let x = rng.pick(&vs).clone();
                let op = if rng.chance(40) && !ctx.in_spin {
                    Some(*rng.pick(&[Op::Add, Op::Sub, Op::Xor]))
                } else {
                    None
                };
                let e = small_expr(rng, &vs);
                let at = rng.below(b.len() + 1);
                b.insert(at, Stmt::Assign(Expr::var(&x), op, e));
                true
            })
        }
        "swap-dep" => {
            let func = func_mut(p, fi);
            nth_block(
                func,
                &|b, _| b.windows(2).any(|w| dependent(&w[0], &w[1])),
                rng,
                &mut |b, _, rng| {
                    let at: Vec<usize> = (0..b.len() - 1)
                        .filter(|i| dependent(&b[*i], &b[i + 1]))
                        .collect();
                    let i = *rng.pick(&at);
                    b.swap(i, i + 1);
                    true
                },
            )
        }
        // ---------------------------------------------------------------- generic, preserving
        "algebra" => {
            let func = func_mut(p, fi);
            nth_expr(
                func,
                &|e| matches!(e, Expr::Bin(_, a, b) if env.is_arith(a) && env.is_arith(b)),
                rng,
                &mut |e, rng| {
                    let Expr::Bin(op, a, b) = e.clone() else {
                        return;
                    };
                    let float = env.is_float(&a) || env.is_float(&b);
                    let single = env.ty(e) == Some(Ty::F32);
                    *e = match op {
                        Op::Add | Op::Mul | Op::And | Op::Or | Op::Xor | Op::Eq | Op::Ne => {
                            Expr::Bin(op, b, a)
                        }
                        Op::Lt => Expr::Bin(Op::Gt, b, a),
                        Op::Le => Expr::Bin(Op::Ge, b, a),
                        Op::Gt => Expr::Bin(Op::Lt, b, a),
                        Op::Ge => Expr::Bin(Op::Le, b, a),
                        // a - b == a + (-b): only UB inputs differ (and IEEE defines it so)
                        Op::Sub if rng.chance(50) => Expr::bin(Op::Add, *a, Expr::Un(Un::Neg, b)),
                        _ if float => Expr::bin(
                            Op::Add,
                            Expr::Bin(op, a, b),
                            Expr::Flt(if single { "0.0f".into() } else { "0.0".into() }),
                        ),
                        _ => Expr::bin(Op::Add, Expr::Bin(op, a, b), Expr::Int(0)),
                    };
                    if let Expr::Bin(Op::Mul, a, b) = e.clone() {
                        if *b == Expr::Int(2) {
                            *e = Expr::Bin(Op::Add, a.clone(), a);
                        }
                    }
                },
            )
        }
        "reorder" => {
            let func = func_mut(p, fi);
            nth_block(
                func,
                &|b, _| b.windows(2).any(|w| independent(&w[0], &w[1])),
                rng,
                &mut |b, _, rng| {
                    let at: Vec<usize> = (0..b.len() - 1)
                        .filter(|i| independent(&b[*i], &b[i + 1]))
                        .collect();
                    let i = *rng.pick(&at);
                    b.swap(i, i + 1);
                    true
                },
            )
        }
        "loop" => {
            let func = func_mut(p, fi);
            nth_stmt(func, &restructurable, rng, &mut |b, i, _| {
                if let Stmt::For(v, bd, body) = b[i].clone() {
                    b[i] = Stmt::WhileEnd(v, bd, body);
                } else if let Stmt::While(v, bd, body) = b[i].clone() {
                    // counter not read in the body: the increment may move to the end
                    b[i] = Stmt::For(v, bd, body);
                }
                true
            })
        }
        "dead" => {
            let func = func_mut(p, fi);
            if rng.chance(50) || vs.is_empty() {
                let name = format!("dead{}", func.locals.len());
                func.locals.push(Local {
                    ty: INT,
                    name: name.clone(),
                    init: Some(Init::E(Expr::Int(0))),
                    is_static: false,
                });
                let e = small_expr(rng, &vs);
                nth_block(func, &|_, _| true, rng, &mut |b, _, rng| {
                    let at = rng.below(b.len() + 1);
                    b.insert(at, Stmt::Assign(Expr::var(&name), None, e.clone()));
                    true
                })
            } else {
                let x = rng.pick(&vs).clone();
                let e = small_expr(rng, &vs);
                nth_block(func, &|_, _| true, rng, &mut |b, _, rng| {
                    let at = rng.below(b.len() + 1);
                    let s = Stmt::Assign(Expr::var(&x), None, e.clone());
                    b.insert(at, Stmt::If(Expr::Int(0), vec![s], vec![]));
                    true
                })
            }
        }
        "rename" => {
            let func = func_mut(p, fi);
            let cands: Vec<String> = func
                .locals
                .iter()
                .filter(|l| !l.is_static)
                .map(|l| l.name.clone())
                .collect();
            if cands.is_empty() {
                return false;
            }
            let old = rng.pick(&cands).clone();
            let new = format!("{old}_r");
            rename(func, &old, &new);
            true
        }
        "if-swap" => {
            let func = func_mut(p, fi);
            nth_stmt(
                func,
                &|s| matches!(s, Stmt::If(_, _, e) if !e.is_empty()),
                rng,
                &mut |b, i, _| {
                    if let Stmt::If(c, t, e) = b[i].clone() {
                        b[i] = Stmt::If(Expr::Un(Un::Not, Box::new(c)), e, t);
                    }
                    true
                },
            )
        }
        // ------------------------------------------------------------------- integer widths
        "int-type" | "int-type-same" | "bool-type" | "float-type" => {
            let same = kind == "int-type-same";
            let cs = counters(&fsnap);
            let func = func_mut(p, fi);
            let cands: Vec<usize> = (0..func.locals.len())
                .filter(|&i| {
                    let l = &func.locals[i];
                    !cs.contains(&l.name)
                        && match (kind, &l.ty) {
                            ("int-type", Ty::I(k)) => !k.is_bool() && *k != IntK::SizeT,
                            ("int-type-same", Ty::I(k)) => matches!(
                                k,
                                IntK::Long
                                    | IntK::LLong
                                    | IntK::ULong
                                    | IntK::ULLong
                                    | IntK::Char
                                    | IntK::SChar
                            ),
                            ("bool-type", Ty::I(k)) => k.is_bool(),
                            ("float-type", Ty::F64) => true,
                            _ => false,
                        }
                })
                .collect();
            if cands.is_empty() {
                return false;
            }
            let i = *rng.pick(&cands);
            let l = &mut func.locals[i];
            l.ty = match &l.ty {
                Ty::I(k) if same => Ty::I(match k {
                    IntK::Long => IntK::LLong,
                    IntK::LLong => IntK::Long,
                    IntK::ULong => IntK::ULLong,
                    IntK::ULLong => IntK::ULong,
                    IntK::Char => IntK::SChar,
                    _ => IntK::Char,
                }),
                Ty::I(k) if k.is_bool() => Ty::I(*rng.pick(&[IntK::Int, IntK::UChar])),
                Ty::I(k) => Ty::I(other_int_kind(rng, *k)),
                _ => Ty::F32,
            };
            // a float initializer of a now-float local keeps its text
            true
        }
        "bool-norm" => {
            // `flag = e` → `flag = (e) != 0`: the same for a _Bool target
            let bools: Vec<String> = fsnap
                .params
                .iter()
                .map(|pa| (pa.name.clone(), pa.ty.clone()))
                .chain(fsnap.locals.iter().map(|l| (l.name.clone(), l.ty.clone())))
                .filter(|(_, t)| matches!(t, Ty::I(k) if k.is_bool()))
                .map(|(n, _)| n)
                .collect();
            let func = func_mut(p, fi);
            nth_stmt(
                func,
                &|s| matches!(s, Stmt::Assign(Expr::Var(v), None, e) if bools.contains(v) && env.is_int(e)),
                rng,
                &mut |b, i, _| {
                    if let Stmt::Assign(_, _, e) = &mut b[i] {
                        let inner = std::mem::replace(e, Expr::Int(0));
                        *e = Expr::bin(Op::Ne, inner, Expr::Int(0));
                    }
                    true
                },
            )
        }
        // ----------------------------------------------------------------------------- enums
        "enum-value" | "enum-explicit" => {
            let Some(TypeDef::Enum { items, .. }) = p
                .types
                .iter_mut()
                .find(|t| matches!(t, TypeDef::Enum { .. }))
            else {
                return false;
            };
            let before = enum_values(items);
            let i = rng.below(items.len());
            if kind == "enum-explicit" {
                if items[i].1.is_none() {
                    items[i].1 = Some(before[i].1);
                } else if i > 0 && before[i].1 == before[i - 1].1 + 1 {
                    items[i].1 = None;
                } else {
                    return false;
                }
                return true;
            }
            for _ in 0..10 {
                let v = rng.range(-1, 9);
                let old = items[i].1;
                items[i].1 = Some(v);
                let vals: Vec<i64> = enum_values(items).iter().map(|x| x.1).collect();
                let distinct = vals.iter().collect::<BTreeSet<_>>().len() == vals.len();
                if distinct && vals != before.iter().map(|x| x.1).collect::<Vec<_>>() {
                    return true;
                }
                items[i].1 = old;
            }
            false
        }
        // ---------------------------------------------------------------------------- floats
        "float-cmp" => {
            let func = func_mut(p, fi);
            nth_expr(
                func,
                &|e| {
                    // not the comparisons of a clamp before a conversion to an integer: NaN
                    // fails the other one too
                    matches!(e, Expr::Bin(op, a, b)
                        if matches!(op, Op::Lt | Op::Le | Op::Gt | Op::Ge)
                            && (env.is_float(a) || env.is_float(b))
                            && !matches!(&**b, Expr::Flt(t) if t == "1000.0" || t == "-1000.0"))
                },
                rng,
                &mut |e, _| {
                    if let Expr::Bin(op, a, b) = e.clone() {
                        let inv = match op {
                            Op::Lt => Op::Ge,
                            Op::Le => Op::Gt,
                            Op::Gt => Op::Le,
                            _ => Op::Lt,
                        };
                        *e = Expr::Un(Un::Not, Box::new(Expr::Bin(inv, a, b)));
                    }
                },
            )
        }
        "float-nan" => {
            // `v != v` → 0 and `v == v` → 1: the same on reals, not for NaN
            let func = func_mut(p, fi);
            nth_expr(
                func,
                &|e| matches!(e, Expr::Bin(Op::Eq | Op::Ne, a, b) if a == b && env.is_float(a)),
                rng,
                &mut |e, _| {
                    if let Expr::Bin(op, _, _) = e {
                        *e = Expr::Int(i64::from(*op == Op::Eq));
                    }
                },
            )
        }
        "float-sub" => {
            let func = func_mut(p, fi);
            let sub = |e: &Expr| matches!(e, Expr::Bin(Op::Sub, a, b) if env.is_float(a) || env.is_float(b));
            // mostly `x - C`, which is zero on an integer input
            let by_const =
                |e: &Expr| sub(e) && matches!(e, Expr::Bin(_, _, b) if matches!(**b, Expr::Flt(_)));
            let mut n = 0;
            func_exprs(&mut func.clone(), Walk::Rewritable, &mut |e, _| {
                n += usize::from(by_const(e))
            });
            let pred: &dyn Fn(&Expr) -> bool = if n > 0 && rng.chance(70) {
                &by_const
            } else {
                &sub
            };
            nth_expr(func, pred, rng, &mut |e, _| {
                if let Expr::Bin(_, a, b) = e.clone() {
                    *e = Expr::Un(Un::Neg, Box::new(Expr::Bin(Op::Sub, b, a)));
                }
            })
        }
        "float-zero" => {
            let func = func_mut(p, fi);
            nth_expr(
                func,
                &|e| env.is_float(e) && !matches!(e, Expr::Flt(_)),
                rng,
                &mut |e, rng| {
                    let single = env.ty(e) == Some(Ty::F32);
                    let sfx = if single { "f" } else { "" };
                    let inner = std::mem::replace(e, Expr::Int(0));
                    *e = if rng.chance(50) {
                        Expr::bin(Op::Add, inner, Expr::Flt(format!("0.0{sfx}")))
                    } else {
                        Expr::bin(Op::Mul, inner, Expr::Flt(format!("1.0{sfx}")))
                    };
                },
            )
        }
        // --------------------------------------------------------------------------- structs
        "field-swap" => {
            let func = func_mut(p, fi);
            nth_expr_walk(
                func,
                Walk::All,
                &|e| {
                    matches!(e, Expr::Field(b, _) if matches!(env.ty(b), Some(Ty::Struct(_))))
                        && env.is_int(e)
                },
                rng,
                &mut |e, rng| {
                    if let Expr::Field(b, f) = e {
                        if let Some(Ty::Struct(tag)) = env.ty(b) {
                            let others: Vec<String> = snap
                                .struct_fields(&tag)
                                .into_iter()
                                .flatten()
                                .filter(|(t, n)| t.is_int() && n != f)
                                .map(|(_, n)| n.clone())
                                .collect();
                            if !others.is_empty() {
                                *f = rng.pick(&others).clone();
                            }
                        }
                    }
                },
            )
        }
        "field-type" | "field-reorder" => {
            // a field of a parameter's type keeps its type: the same argument could not be
            // passed to both versions
            let in_params = if kind == "field-type" {
                param_structs(&snap)
            } else {
                BTreeSet::new()
            };
            let structs: Vec<usize> = (0..p.types.len())
                .filter(|&i| {
                    matches!(&p.types[i], TypeDef::Struct { fields, .. } if fields.len() > 1)
                        && !in_params.contains(p.types[i].name())
                })
                .collect();
            if structs.is_empty() {
                return false;
            }
            let i = *rng.pick(&structs);
            let TypeDef::Struct { fields, .. } = &mut p.types[i] else {
                return false;
            };
            if kind == "field-reorder" {
                let before = fields.clone();
                for _ in 0..5 {
                    rng.shuffle(fields);
                    if *fields != before {
                        return true;
                    }
                }
                return false;
            }
            let cands: Vec<usize> = (0..fields.len())
                .filter(|&j| matches!(fields[j].0, Ty::I(_) | Ty::F64))
                .collect();
            if cands.is_empty() {
                return false;
            }
            let j = *rng.pick(&cands);
            fields[j].0 = match &fields[j].0 {
                Ty::I(k) => Ty::I(other_int_kind(rng, *k)),
                _ => Ty::F32,
            };
            true
        }
        // ---------------------------------------------------------------------------- unions
        "member" | "union-pun" => {
            let is_union = |b: &Expr| matches!(env.ty(b), Some(Ty::Union(_)));
            let func = func_mut(p, fi);
            if kind == "member" {
                nth_expr_walk(
                    func,
                    Walk::All,
                    &|e| match e {
                        Expr::Field(b, f) => is_union(b) && f == "l",
                        Expr::Index(a, i) => {
                            matches!(&**a, Expr::Field(b, f) if is_union(b) && (f == "i" || f == "c"))
                                && matches!(**i, Expr::Int(0..=1))
                        }
                        _ => false,
                    },
                    rng,
                    &mut |e, rng| match e.clone() {
                        Expr::Field(b, _) => {
                            let m = *rng.pick(&["i", "c"]);
                            *e = Expr::index(Expr::Field(b, m.into()), Expr::Int(0));
                        }
                        Expr::Index(a, i) => {
                            if let Expr::Field(b, f) = *a {
                                let m = if f == "i" { "c" } else { "i" };
                                *e = Expr::Index(Box::new(Expr::Field(b, m.into())), i);
                            }
                        }
                        _ => {}
                    },
                )
            } else {
                nth_expr(
                    func,
                    &|e| {
                        matches!(e, Expr::Index(a, i)
                            if matches!(&**a, Expr::Field(b, f) if is_union(b) && (f == "i" || f == "c"))
                                && **i == Expr::Int(0))
                    },
                    rng,
                    &mut |e, _| {
                        if let Expr::Index(a, _) = e.clone() {
                            if let Expr::Field(b, f) = *a {
                                let t = if f == "i" { INT } else { Ty::I(IntK::UChar) };
                                *e = Expr::cast(t, Expr::Field(b, "l".into()));
                            }
                        }
                    },
                )
            }
        }
        // --------------------------------------------------------------------- out-parameters
        "out-write" | "out-split" => {
            let outs: Vec<String> = fsnap
                .params
                .iter()
                .filter(|pa| pa.role == Role::Out)
                .map(|pa| pa.name.clone())
                .collect();
            let is_out = |s: &Stmt| outs.iter().any(|o| writes_deref(s, o));
            let func = func_mut(p, fi);
            if kind == "out-write" {
                nth_stmt(func, &is_out, rng, &mut |b, i, _| {
                    if let Stmt::Assign(_, op, _) = &mut b[i] {
                        *op = if op.is_some() { None } else { Some(Op::Add) };
                    }
                    true
                })
            } else {
                nth_stmt(
                    func,
                    &|s| {
                        is_out(s)
                            && matches!(s, Stmt::Assign(_, None, e)
                                if !e.reads_mem() && !e.has_call())
                    },
                    rng,
                    &mut |b, i, _| {
                        let Stmt::Assign(lv, _, e) = b[i].clone() else {
                            return false;
                        };
                        let zero = if env.is_float(&lv) {
                            Expr::Flt("0.0".into())
                        } else {
                            Expr::Int(0)
                        };
                        b[i] = Stmt::Assign(lv.clone(), None, zero);
                        b.insert(i + 1, Stmt::Assign(lv, Some(Op::Add), e));
                        true
                    },
                )
            }
        }
        // --------------------------------------------------------------- buffers and strings
        "buf-bound" => {
            let caps: Vec<(String, usize)> = fsnap
                .params
                .iter()
                .filter_map(|pa| match pa.role {
                    Role::Len { buf } => match fsnap.params[buf].role {
                        Role::Buf { cap, .. } => Some((pa.name.clone(), cap)),
                        _ => None,
                    },
                    _ => None,
                })
                .collect();
            let func = func_mut(p, fi);
            nth_stmt(
                func,
                &|s| matches!(s, Stmt::For(_, Bound::Var(v), _) if caps.iter().any(|c| &c.0 == v)),
                rng,
                &mut |b, i, rng| {
                    if let Stmt::For(_, bd, _) = &mut b[i] {
                        if let Bound::Var(v) = bd.clone() {
                            let cap = caps.iter().find(|c| c.0 == v).map_or(1, |c| c.1);
                            let k = rng.range(0, cap as i64 - 1);
                            *bd = if rng.chance(50) {
                                Bound::Clamp(Expr::var(&v), k)
                            } else {
                                Bound::Const(cap as i64)
                            };
                        }
                    }
                    true
                },
            )
        }
        "index-ptr" | "str-ptr" => {
            let role_ok = |r: &Role| {
                if kind == "index-ptr" {
                    matches!(r, Role::Buf { .. })
                } else {
                    *r == Role::Str
                }
            };
            let ptrs: Vec<String> = fsnap
                .params
                .iter()
                .filter(|pa| role_ok(&pa.role))
                .map(|pa| pa.name.clone())
                .collect();
            // string loops index the string themselves: rewrite them as pointer walks is not
            // possible in this AST, so only explicit indexing is rewritten
            let func = func_mut(p, fi);
            nth_expr_walk(
                func,
                Walk::All,
                &|e| matches!(e, Expr::Index(a, _) if matches!(&**a, Expr::Var(v) if ptrs.contains(v))),
                rng,
                &mut |e, _| {
                    if let Expr::Index(a, i) = e.clone() {
                        *e = Expr::Deref(Box::new(Expr::Bin(Op::Add, a, i)));
                    }
                },
            )
        }
        "str-char" => {
            let func = func_mut(p, fi);
            nth_expr(func, &|e| matches!(e, Expr::Chr(_)), rng, &mut |e, rng| {
                if let Expr::Chr(c) = e {
                    let others: Vec<u8> = [b'a', b'b', b'z', b'0', b' ', b'A', 0]
                        .iter()
                        .copied()
                        .filter(|x| x != c)
                        .collect();
                    *c = *rng.pick(&others);
                }
            })
        }
        // ---------------------------------------------------------------------------- alias
        "alias-swap" | "alias-loads" => {
            let al: Vec<String> = fsnap
                .params
                .iter()
                .filter(|pa| pa.role == Role::Alias)
                .map(|pa| pa.name.clone())
                .collect();
            if al.len() < 2 {
                return false;
            }
            let (pn, qn) = (al[0].clone(), al[1].clone());
            let loads = kind == "alias-loads";
            let swappable = move |a: &Stmt, b: &Stmt| -> bool {
                if effects(a).2 || effects(b).2 {
                    return false;
                }
                let mem = |s: &Stmt| {
                    writes_deref(s, &pn)
                        || writes_deref(s, &qn)
                        || reads_deref(s, &pn)
                        || reads_deref(s, &qn)
                };
                if !mem(a) || !mem(b) {
                    return false;
                }
                // apart from memory, the two must not depend on each other
                let strip = |s: &BTreeSet<String>| -> BTreeSet<String> {
                    s.iter()
                        .filter(|x| *x != "*" && **x != pn && **x != qn)
                        .cloned()
                        .collect()
                };
                let (ra, wa, _) = effects(a);
                let (rb, wb, _) = effects(b);
                let (ra, wa, rb, wb) = (strip(&ra), strip(&wa), strip(&rb), strip(&wb));
                if wa.iter().any(|x| rb.contains(x) || wb.contains(x))
                    || wb.iter().any(|x| ra.contains(x))
                {
                    return false;
                }
                let writes = |s: &Stmt| writes_deref(s, &pn) || writes_deref(s, &qn);
                if loads {
                    !writes(a) && !writes(b)
                } else {
                    writes(a) || writes(b)
                }
            };
            let func = func_mut(p, fi);
            nth_block(
                func,
                &|b, _| b.windows(2).any(|w| swappable(&w[0], &w[1])),
                rng,
                &mut |b, _, rng| {
                    let at: Vec<usize> = (0..b.len() - 1)
                        .filter(|i| swappable(&b[*i], &b[i + 1]))
                        .collect();
                    let i = *rng.pick(&at);
                    b.swap(i, i + 1);
                    true
                },
            )
        }
        // ---------------------------------------------------------------------- initializers
        "init" | "init-same" => {
            let cands: Vec<usize> = (0..p.globals.len())
                .filter(
                    |&i| !matches!(p.globals[i].ty, Ty::Arr(ref e, _) if matches!(**e, Ty::Fn(_))),
                )
                .collect();
            if cands.is_empty() {
                return false;
            }
            let i = *rng.pick(&cands);
            let g = &mut p.globals[i];
            change_init(&mut g.init, &g.ty, kind == "init-same", rng)
        }
        "static-init" | "static-init-same" => {
            let mut cands = vec![];
            for (fi2, f) in std::iter::once(&p.main).chain(&p.helpers).enumerate() {
                for (li, l) in f.locals.iter().enumerate() {
                    if l.is_static {
                        cands.push((fi2, li));
                    }
                }
            }
            if cands.is_empty() {
                return false;
            }
            let (fi2, li) = *rng.pick(&cands);
            let l = &mut func_mut(p, fi2).locals[li];
            change_init(&mut l.init, &l.ty.clone(), kind == "static-init-same", rng)
        }
        "array-init" => {
            let func = func_mut(p, fi);
            let cands: Vec<usize> = (0..func.locals.len())
                .filter(|&i| {
                    !func.locals[i].is_static
                        && matches!(func.locals[i].init, Some(Init::List(_) | Init::Fields(_)))
                })
                .collect();
            if cands.is_empty() {
                return false;
            }
            let i = *rng.pick(&cands);
            let l = &mut func.locals[i];
            change_init(&mut l.init, &l.ty.clone(), false, rng)
        }
        "array-loop" => {
            // `for (i = 0; i < K; i++) body` over a local array → the same with the bound as a
            // clamp that never binds: `i < (K < K ? K : K)` is not expressible, so use the
            // while-with-increment-at-the-end form (the `loop` kind restricted to array loops)
            let func = func_mut(p, fi);
            nth_stmt(
                func,
                &|s| {
                    matches!(s, Stmt::For(_, Bound::Const(_), body)
                        if !body.iter().any(Stmt::has_own_continue)
                            && body.iter().any(|x| matches!(x, Stmt::Assign(Expr::Index(..), _, _))))
                },
                rng,
                &mut |b, i, _| {
                    if let Stmt::For(v, bd, body) = b[i].clone() {
                        b[i] = Stmt::WhileEnd(v, bd, body);
                        true
                    } else {
                        false
                    }
                },
            )
        }
        // ---------------------------------------------------------------------------- switch
        "case-break" | "case-label" | "case-reorder" => {
            let func = func_mut(p, fi);
            let enums: Vec<String> = snap
                .types
                .iter()
                .flat_map(|t| match t {
                    TypeDef::Enum { items, .. } => items.iter().map(|i| i.0.clone()).collect(),
                    _ => vec![],
                })
                .collect();
            nth_stmt(
                func,
                &|s| matches!(s, Stmt::Switch(_, cs) if cs.len() >= 2),
                rng,
                &mut |b, i, rng| {
                    let Stmt::Switch(_, cases) = &mut b[i] else {
                        return false;
                    };
                    let n = cases.len();
                    match kind {
                        "case-break" => {
                            let j = rng.below(n - 1);
                            cases[j].brk = !cases[j].brk;
                            true
                        }
                        "case-label" => {
                            let j = rng.below(n);
                            let used: Vec<CaseLabel> =
                                cases.iter().map(|c| c.label.clone()).collect();
                            match &cases[j].label {
                                CaseLabel::Int(_) => {
                                    for _ in 0..10 {
                                        let v = CaseLabel::Int(rng.range(-1, 9));
                                        if !used.contains(&v) {
                                            cases[j].label = v;
                                            return true;
                                        }
                                    }
                                    false
                                }
                                CaseLabel::Name(_) => {
                                    let free: Vec<&String> = enums
                                        .iter()
                                        .filter(|e| !used.contains(&CaseLabel::Name((*e).clone())))
                                        .collect();
                                    if free.is_empty() {
                                        return false;
                                    }
                                    cases[j].label = CaseLabel::Name(rng.pick(&free).to_string());
                                    true
                                }
                                CaseLabel::Default => false,
                            }
                        }
                        _ => {
                            let ok: Vec<usize> = (0..n - 1)
                                .filter(|&j| {
                                    cases[j].brk && cases[j + 1].brk && (j == 0 || cases[j - 1].brk)
                                })
                                .collect();
                            if ok.is_empty() {
                                return false;
                            }
                            let j = *rng.pick(&ok);
                            cases.swap(j, j + 1);
                            true
                        }
                    }
                },
            )
        }
        // ------------------------------------------------------------------------------ goto
        "goto-target" => {
            let func = func_mut(p, fi);
            let labels: Vec<usize> = (0..func.body.len())
                .filter(|&i| matches!(func.body[i], Stmt::Label(_)))
                .collect();
            if labels.is_empty() {
                return false;
            }
            let li = *rng.pick(&labels);
            let Stmt::Label(l) = func.body[li].clone() else {
                return false;
            };
            // the top-level statement holding the jump
            let from = (0..func.body.len()).find(|&i| {
                let mut has = false;
                each_stmt(std::slice::from_ref(&func.body[i]), &mut |s| {
                    has |= *s == Stmt::Goto(l.clone())
                });
                has
            });
            let Some(from) = from else { return false };
            let lab = func.body.remove(li);
            let from = if from > li { from - 1 } else { from };
            // anywhere after the jump but where it was
            let spots: Vec<usize> = (from + 1..=func.body.len()).filter(|&s| s != li).collect();
            if spots.is_empty() {
                func.body.insert(li, lab);
                return false;
            }
            let at = *rng.pick(&spots);
            func.body.insert(at, lab);
            true
        }
        "goto-loop" => {
            let next = max_label(&fsnap) + 1;
            let func = func_mut(p, fi);
            nth_stmt(
                func,
                &|s| match s {
                    Stmt::For(_, _, body) => !body.iter().any(|x| {
                        x.has_own_continue() || x.has_own_break() || x.has_goto_or_label()
                    }),
                    Stmt::GotoLoop(..) => true,
                    _ => false,
                },
                rng,
                &mut |b, i, _| {
                    b[i] = match b[i].clone() {
                        Stmt::For(v, bd, body) => Stmt::GotoLoop(v, bd, body, next),
                        Stmt::GotoLoop(v, bd, body, _) => Stmt::For(v, bd, body),
                        s => s,
                    };
                    true
                },
            )
        }
        // -------------------------------------------------------------------------- do-while
        "do-while" | "do-while-same" => {
            let same = kind == "do-while-same";
            let func = func_mut(p, fi);
            nth_stmt(
                func,
                &|s| match s {
                    // with a constant bound of at least 1 the first test passes anyway
                    Stmt::For(_, bd, body) => {
                        !body.iter().any(Stmt::has_own_continue)
                            && (matches!(bd, Bound::Const(k) if *k >= 1) == same)
                    }
                    Stmt::DoWhile(_, bd, _) => matches!(bd, Bound::Const(k) if *k >= 1) == same,
                    _ => false,
                },
                rng,
                &mut |b, i, _| {
                    b[i] = match b[i].clone() {
                        Stmt::For(v, bd, body) => Stmt::DoWhile(v, bd, body),
                        Stmt::DoWhile(v, bd, body) => Stmt::For(v, bd, body),
                        s => s,
                    };
                    true
                },
            )
        }
        // ------------------------------------------------------------------------- recursion
        "rec-base" | "rec-same" => {
            let recs: Vec<usize> = (0..p.helpers.len())
                .filter(|&i| p.helpers[i].name.starts_with("rec"))
                .collect();
            if recs.is_empty() {
                return false;
            }
            let h = &mut p.helpers[*rng.pick(&recs)];
            let Some(Stmt::If(Expr::Bin(op, _, c), _, _)) = h.body.first_mut() else {
                return false;
            };
            let Expr::Int(v) = &mut **c else { return false };
            if kind == "rec-same" {
                // n <= K  ⇔  n < K + 1 on integers
                match op {
                    Op::Le => {
                        *op = Op::Lt;
                        *v += 1;
                    }
                    Op::Lt => {
                        *op = Op::Le;
                        *v -= 1;
                    }
                    _ => return false,
                }
            } else {
                *v += if rng.chance(50) { 1 } else { -1 };
            }
            true
        }
        // ------------------------------------------------------------------ function pointers
        "table-swap" => {
            let Some(g) = p.globals.iter_mut().find(|g| g.name == "tbl") else {
                return false;
            };
            let Some(Init::List(items)) = &mut g.init else {
                return false;
            };
            let n = items.len();
            let pairs: Vec<(usize, usize)> = (0..n)
                .flat_map(|a| (a + 1..n).map(move |b| (a, b)))
                .filter(|(a, b)| items[*a] != items[*b])
                .collect();
            if pairs.is_empty() {
                return false;
            }
            let (a, b) = *rng.pick(&pairs);
            items.swap(a, b);
            true
        }
        "table-helper" => {
            let ops: Vec<usize> = (0..p.helpers.len())
                .filter(|&i| p.helpers[i].name.starts_with("op"))
                .collect();
            if ops.is_empty() {
                return false;
            }
            let h = 1 + *rng.pick(&ops);
            let inner = *rng.pick(&["op", "const", "cond", "add"]);
            apply(inner, p, h, rng)
        }
        "table-direct" => {
            // `tbl[i & 1](a)` → `((i & 1) == 0 ? op0(a) : op1(a))`, entries from the table
            let Some(Some(Init::List(items))) = snap
                .globals
                .iter()
                .find(|g| g.name == "tbl")
                .map(|g| g.init.clone())
            else {
                return false;
            };
            let names: Vec<String> = items
                .iter()
                .filter_map(|i| match i {
                    Init::E(Expr::Var(n)) => Some(n.clone()),
                    _ => None,
                })
                .collect();
            let func = func_mut(p, fi);
            nth_expr(
                func,
                &|e| matches!(e, Expr::CallPtr(t, args) if matches!(&**t, Expr::Index(a, _) if **a == Expr::var("tbl")) && !args.iter().any(Expr::has_call)),
                rng,
                &mut |e, _| {
                    let Expr::CallPtr(t, args) = e.clone() else {
                        return;
                    };
                    let Expr::Index(_, idx) = *t else { return };
                    let mut out = Expr::Call(names[names.len() - 1].clone(), args.clone());
                    for k in (0..names.len() - 1).rev() {
                        out = Expr::cond(
                            Expr::bin(Op::Eq, (*idx).clone(), Expr::Int(k as i64)),
                            Expr::Call(names[k].clone(), args.clone()),
                            out,
                        );
                    }
                    *e = out;
                },
            )
        }
        // ---------------------------------------------------------------------------- output
        "print-fmt" => {
            let func = func_mut(p, fi);
            nth_stmt(
                func,
                &|s| matches!(s, Stmt::Print(_)),
                rng,
                &mut |b, i, rng| {
                    let Stmt::Print(ps) = &mut b[i] else {
                        return false;
                    };
                    let j = rng.below(ps.len());
                    match &mut ps[j] {
                        Piece::Text(t) => {
                            t.push(*rng.pick(&['-', ':', '!']));
                        }
                        Piece::Conv(c, _) => {
                            let class: &[Conv] = if c.is_float() {
                                &[Conv::G, Conv::F3]
                            } else if *c == Conv::C {
                                &[Conv::C, Conv::D]
                            } else {
                                &[Conv::D, Conv::Ld, Conv::U, Conv::X]
                            };
                            let others: Vec<Conv> =
                                class.iter().copied().filter(|x| x != c).collect();
                            *c = *rng.pick(&others);
                        }
                    }
                    true
                },
            )
        }
        "print-split" => {
            let func = func_mut(p, fi);
            nth_stmt(
                func,
                &|s| match s {
                    Stmt::Print(ps) => {
                        ps.iter().filter(|x| matches!(x, Piece::Conv(..))).count() >= 2
                    }
                    Stmt::Call(Expr::Lib(n, _)) => n == "putchar",
                    _ => false,
                },
                rng,
                &mut |b, i, _| {
                    match b[i].clone() {
                        Stmt::Print(ps) => {
                            let cut = ps
                                .iter()
                                .position(|x| matches!(x, Piece::Conv(..)))
                                .unwrap_or(0)
                                + 1;
                            b[i] = Stmt::Print(ps[..cut].to_vec());
                            b.insert(i + 1, Stmt::Print(ps[cut..].to_vec()));
                        }
                        Stmt::Call(Expr::Lib(_, args)) => {
                            // putchar(c) prints (unsigned char)c, as %c does
                            b[i] = Stmt::Print(vec![Piece::Conv(Conv::C, args[0].clone())]);
                        }
                        _ => return false,
                    }
                    true
                },
            )
        }
        // ---------------------------------------------------------------------- termination
        "spin-step" | "spin-cmp" => {
            let same = kind == "spin-cmp";
            let func = func_mut(p, fi);
            nth_stmt(
                func,
                &|s| matches!(s, Stmt::Spin(sp) if !same || (sp.step == 1 && matches!(sp.cmp, Op::Ne | Op::Lt | Op::Gt))),
                rng,
                &mut |b, i, rng| {
                    let Stmt::Spin(sp) = &mut b[i] else {
                        return false;
                    };
                    if same {
                        // with step 1 from below (up) or down to 0, != stops where < or > does
                        sp.cmp = match (sp.down, sp.cmp) {
                            (false, Op::Ne) => Op::Lt,
                            (false, _) => Op::Ne,
                            (true, Op::Ne) => Op::Gt,
                            (true, _) => Op::Ne,
                        };
                    } else if rng.chance(70) {
                        let others: Vec<i64> = [0, 1, 2]
                            .iter()
                            .copied()
                            .filter(|x| *x != sp.step)
                            .collect();
                        sp.step = *rng.pick(&others);
                    } else {
                        let set: &[Op] = if sp.down {
                            &[Op::Ne, Op::Gt]
                        } else {
                            &[Op::Ne, Op::Lt, Op::Le]
                        };
                        let others: Vec<Op> =
                            set.iter().copied().filter(|x| *x != sp.cmp).collect();
                        sp.cmp = *rng.pick(&others);
                    }
                    true
                },
            )
        }
        _ => false,
    }
}

/// Tags of the structs `f`'s parameters contain (directly or nested).
fn param_structs(p: &Program) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut todo: Vec<Ty> = p.main.params.iter().map(|pa| pa.ty.clone()).collect();
    while let Some(t) = todo.pop() {
        match t {
            Ty::Struct(tag) | Ty::Union(tag) if out.insert(tag.clone()) => {
                todo.extend(
                    p.struct_fields(&tag)
                        .into_iter()
                        .flatten()
                        .map(|f| f.0.clone()),
                );
            }
            Ty::Ptr(e, _) | Ty::Arr(e, _) => todo.push(*e),
            _ => {}
        }
    }
    out
}

/// A new initializer (`same`: the same value written differently).
fn change_init(init: &mut Option<Init>, ty: &Ty, same: bool, rng: &mut Rng) -> bool {
    if same {
        return match init {
            None if ty.is_int() => {
                *init = Some(Init::E(Expr::Int(0)));
                true
            }
            Some(Init::E(Expr::Int(0))) => {
                *init = None;
                true
            }
            Some(Init::E(Expr::Int(v))) => {
                let v = *v;
                *init = Some(Init::E(Expr::bin(Op::Add, Expr::Int(v - 1), Expr::Int(1))));
                true
            }
            Some(Init::List(xs)) if xs.len() > 1 && xs.last() == Some(&Init::E(Expr::Int(0))) => {
                xs.pop();
                true
            }
            Some(Init::Fields(xs)) if xs.len() > 1 => {
                // designated initializers in another order
                xs.rotate_left(1);
                true
            }
            _ => false,
        };
    }
    // change one scalar somewhere inside
    fn visit(i: &mut Init, f: &mut dyn FnMut(&mut Expr)) {
        match i {
            Init::E(e) => f(e),
            Init::List(xs) => xs.iter_mut().for_each(|x| visit(x, f)),
            Init::Fields(xs) => xs.iter_mut().for_each(|x| visit(&mut x.1, f)),
        }
    }
    let scalar = |e: &Expr| matches!(e, Expr::Int(_) | Expr::Flt(_) | Expr::Chr(_));
    match init {
        None => {
            if !ty.is_int() {
                return false;
            }
            *init = Some(Init::E(Expr::Int(Gen::new(rng).constant().max(1))));
            true
        }
        Some(i) => {
            let mut n = 0;
            visit(i, &mut |e| n += usize::from(scalar(e)));
            if n == 0 {
                return false;
            }
            let k = rng.below(n);
            let mut seen = 0;
            visit(i, &mut |e| {
                if !scalar(e) {
                    return;
                }
                if seen == k {
                    match e {
                        Expr::Int(v) => {
                            let old = *v;
                            while *v == old {
                                *v = if rng.chance(50) {
                                    old + if rng.chance(50) { 1 } else { -1 }
                                } else {
                                    Gen::new(rng).constant()
                                };
                            }
                        }
                        Expr::Flt(t) => {
                            let old = t.clone();
                            while *t == old {
                                *t = rng.pick(&FCONSTS).to_string();
                            }
                        }
                        Expr::Chr(c) => *c = c.wrapping_add(1),
                        _ => {}
                    }
                }
                seen += 1;
            });
            true
        }
    }
}

fn restructurable(s: &Stmt) -> bool {
    let reads = |body: &[Stmt], v: &str| {
        body.iter().any(|s| {
            let (r, _, _) = effects(s);
            r.contains(v)
        })
    };
    match s {
        Stmt::For(_, _, body) => !body.iter().any(Stmt::has_own_continue),
        Stmt::While(i, _, body) => !body.iter().any(Stmt::has_own_continue) && !reads(body, i),
        _ => false,
    }
}

/// Rename a local everywhere in `func`.
pub fn rename(func: &mut Func, old: &str, new: &str) {
    for l in &mut func.locals {
        if l.name == old {
            l.name = new.to_string();
        }
    }
    func_exprs(func, Walk::All, &mut |e, _| {
        if let Expr::Var(v) = e {
            if v == old {
                *v = new.to_string();
            }
        }
    });
    let r = |s: &mut String| {
        if s == old {
            *s = new.to_string();
        }
    };
    each_block(&mut func.body, top_ctx(), &mut |b, _| {
        for s in b.iter_mut() {
            match s {
                Stmt::For(i, bd, _)
                | Stmt::While(i, bd, _)
                | Stmt::WhileEnd(i, bd, _)
                | Stmt::DoWhile(i, bd, _)
                | Stmt::GotoLoop(i, bd, _, _) => {
                    r(i);
                    if let Bound::Var(v) = bd {
                        r(v);
                    }
                }
                Stmt::Spin(sp) => r(&mut sp.var),
                Stmt::StrLoop(i, st, _) => {
                    r(i);
                    r(st);
                }
                _ => {}
            }
        }
    });
}

/// The second version: one mutation (sometimes two) of `f`, a helper or the program; half of
/// them about the pair's main construct when it has mutations of its own. Gives the new program
/// and the kinds applied.
pub fn mutate(p: &Program, rng: &mut Rng, primary: Option<&str>) -> (Program, Vec<String>) {
    let mut q = p.clone();
    let mut kinds = vec![];
    let n = if rng.chance(25) { 2 } else { 1 };
    let own: Vec<&Kind> = KINDS
        .iter()
        .filter(|k| !k.feature.is_empty() && Some(k.feature) == primary)
        .collect();
    let generic: Vec<&Kind> = KINDS.iter().filter(|k| k.feature.is_empty()).collect();
    let specific: Vec<&Kind> = KINDS.iter().filter(|k| !k.feature.is_empty()).collect();
    for _ in 0..n {
        for attempt in 0..40 {
            let kind = if !own.is_empty() && attempt < 20 && rng.chance(65) {
                *rng.pick(&own)
            } else if rng.chance(25) {
                *rng.pick(&specific)
            } else {
                let changing = rng.chance(55);
                let pool: Vec<&&Kind> = generic
                    .iter()
                    .filter(|k| k.preserving != changing)
                    .collect();
                **rng.pick(&pool)
            };
            let fi = if !kind.program && !q.helpers.is_empty() && rng.chance(20) {
                1 + rng.below(q.helpers.len())
            } else {
                0
            };
            let before = q.clone();
            if apply(kind.name, &mut q, fi, rng) && q != before {
                kinds.push(kind.name.to_string());
                break;
            }
            q = before;
        }
    }
    (q, kinds)
}
