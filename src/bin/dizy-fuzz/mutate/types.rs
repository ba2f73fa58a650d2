//! Mutations about types: integer widths, `_Bool`/`bool`, enums, floating types, structs and
//! unions (changing ones, and ones that preserve behaviour under dizy's contract).
//!
//! Takes the kind, the program, the function's index, the RNG and what the mutation may look at
//! ([`Cx`]); gives whether it found a site and applied itself. Dispatched by [`super::apply`].

use std::collections::BTreeSet;

use super::sites::*;
use super::Cx;
use crate::ast::*;
use crate::gen::Rng;

/// The type mutation `kind` on function `fi` of `p` (or on the program); false when it has no
/// site.
pub(super) fn apply(kind: &str, p: &mut Program, fi: usize, rng: &mut Rng, cx: &Cx) -> bool {
    let Cx {
        env, snap, fsnap, ..
    } = cx;
    match kind {
        // ------------------------------------------------------------------- integer widths
        "int-type" | "int-type-same" | "bool-type" | "float-type" => {
            let same = kind == "int-type-same";
            let cs = counters(fsnap);
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
        "cast-sign" => {
            // `(char)e` ↔ `(unsigned char)e`, `(short)e` ↔ `(unsigned short)e`: the same bits,
            // another value wherever the top bit is set (the conversions the memory layer's
            // conversion sites relate)
            let func = func_mut(p, fi);
            nth_expr(
                func,
                &|e| {
                    matches!(e, Expr::Cast(Ty::I(k), _)
                        if matches!(k, IntK::Char | IntK::SChar | IntK::UChar | IntK::Short | IntK::UShort))
                },
                rng,
                &mut |e, _| {
                    if let Expr::Cast(Ty::I(k), x) = e.clone() {
                        let flipped = match k {
                            IntK::Char | IntK::SChar => IntK::UChar,
                            IntK::UChar => IntK::Char,
                            IntK::Short => IntK::UShort,
                            _ => IntK::Short,
                        };
                        *e = Expr::Cast(Ty::I(flipped), x);
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
        // `float-zero`: `e + 0.0` or `e * 1.0` (equal as numbers). `float-math`: `fabs(e)` or
        // `sqrt(fabs(e))`, the C library's mathematics, which the analysis treats as pure
        // (`fabs`) or as an effect (`sqrt`) and the interpreter runs through libm.
        "float-zero" | "float-math" => {
            let func = func_mut(p, fi);
            nth_expr(
                func,
                &|e| env.is_float(e) && !matches!(e, Expr::Flt(_)),
                rng,
                &mut |e, rng| {
                    let single = env.ty(e) == Some(Ty::F32);
                    let sfx = if single { "f" } else { "" };
                    let inner = std::mem::replace(e, Expr::Int(0));
                    let first = rng.chance(50);
                    *e = match (kind, first) {
                        ("float-zero", true) => {
                            Expr::bin(Op::Add, inner, Expr::Flt(format!("0.0{sfx}")))
                        }
                        ("float-zero", false) => {
                            Expr::bin(Op::Mul, inner, Expr::Flt(format!("1.0{sfx}")))
                        }
                        (_, true) => Expr::Lib("fabs".into(), vec![inner]),
                        (_, false) => {
                            Expr::Lib("sqrt".into(), vec![Expr::Lib("fabs".into(), vec![inner])])
                        }
                    };
                },
            )
        }
        // `x` → `copysign(fabs(x), x)`: the same bits for every `x` (signed zeros and NaN
        // included), written with library calls.
        "float-copysign" => {
            let func = func_mut(p, fi);
            nth_expr(
                func,
                &|e| matches!(e, Expr::Var(_)) && env.ty(e) == Some(Ty::F64),
                rng,
                &mut |e, _| {
                    let x = e.clone();
                    let abs = Expr::Lib("fabs".into(), vec![x.clone()]);
                    *e = Expr::Lib("copysign".into(), vec![abs, x]);
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
                param_structs(snap)
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
            // (a bit-field keeps its type: not every width fits every type)
            let cands: Vec<usize> = (0..fields.len())
                .filter(|&j| {
                    matches!(fields[j].0, Ty::I(_) | Ty::F64)
                        && !crate::ast::is_bitfield_name(&fields[j].1)
                })
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
        _ => false,
    }
}
