//! Mutations about memory: out-parameters, buffers and strings, aliasing pointers, and the
//! initializers of globals, static locals and local arrays.
//!
//! Takes the kind, the program, the function's index, the RNG and what the mutation may look at
//! ([`Cx`]); gives whether it found a site and applied itself. Dispatched by [`super::apply`].

use std::collections::BTreeSet;

use super::sites::*;
use super::Cx;
use crate::ast::*;
use crate::gen::Rng;

/// The memory mutation `kind` on function `fi` of `p` (or on the program); false when it has no
/// site.
pub(super) fn apply(kind: &str, p: &mut Program, fi: usize, rng: &mut Rng, cx: &Cx) -> bool {
    let Cx { env, fsnap, .. } = cx;
    match kind {
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
        _ => false,
    }
}
