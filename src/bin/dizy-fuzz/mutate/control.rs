//! Mutations about control and calls: `switch`, `goto`, `do`-`while`, recursion, function
//! pointers, output and loops that may not terminate.
//!
//! Takes the kind, the program, the function's index, the RNG and what the mutation may look at
//! ([`Cx`]); gives whether it found a site and applied itself. Dispatched by [`super::apply`].

use super::sites::*;
use super::Cx;
use crate::ast::*;
use crate::gen::Rng;

/// The control mutation `kind` on function `fi` of `p` (or on the program); false when it has no
/// site.
pub(super) fn apply(kind: &str, p: &mut Program, fi: usize, rng: &mut Rng, cx: &Cx) -> bool {
    let Cx { snap, fsnap, .. } = cx;
    match kind {
        // ---------------------------------------------------------------------------- switch
        "case-range-split" => {
            // `case a ... b: body` as `case a: case a+1: … case b: body` (preserving)
            let func = func_mut(p, fi);
            nth_stmt(
                func,
                &|s| {
                    matches!(s, Stmt::Switch(_, cs)
                        if cs.iter().any(|c| matches!(c.label, CaseLabel::Range(..))))
                },
                rng,
                &mut |b, i, rng| {
                    let Stmt::Switch(_, cases) = &mut b[i] else {
                        return false;
                    };
                    let at: Vec<usize> = (0..cases.len())
                        .filter(|&j| matches!(cases[j].label, CaseLabel::Range(..)))
                        .collect();
                    let j = *rng.pick(&at);
                    let CaseLabel::Range(lo, hi) = cases[j].label else {
                        return false;
                    };
                    cases[j].label = CaseLabel::Int(hi);
                    for (k, v) in (lo..hi).enumerate() {
                        cases.insert(
                            j + k,
                            Case {
                                label: CaseLabel::Int(v),
                                body: vec![],
                                brk: false,
                            },
                        );
                    }
                    true
                },
            )
        }
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
                                CaseLabel::Int(_) | CaseLabel::Range(..) => {
                                    // a value or a range (its bounds moved) no other label has
                                    let was = cases[j].label.clone();
                                    for _ in 0..10 {
                                        let v = match was {
                                            CaseLabel::Range(a, b) if rng.chance(50) => {
                                                let d = if rng.chance(50) { 1 } else { -1 };
                                                if rng.chance(50) {
                                                    CaseLabel::Range(a + d, b)
                                                } else {
                                                    CaseLabel::Range(a, b + d)
                                                }
                                            }
                                            _ => CaseLabel::Int(rng.range(-1, 9)),
                                        };
                                        let valid = !matches!(v, CaseLabel::Range(a, b) if a > b);
                                        if valid
                                            && v != was
                                            && !used
                                                .iter()
                                                .enumerate()
                                                .any(|(k, u)| k != j && u.overlaps(&v))
                                        {
                                            cases[j].label = v;
                                            return true;
                                        }
                                    }
                                    false
                                }
                                CaseLabel::Name(cur) => {
                                    // a label of the same family (enumerators, or names of
                                    // the missing header): their values are distinct, so no
                                    // two labels of the switch become equal
                                    let config: Vec<String> =
                                        snap.config.iter().map(|c| c.0.clone()).collect();
                                    let family = if config.contains(cur) {
                                        &config
                                    } else {
                                        &enums
                                    };
                                    let free: Vec<&String> = family
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
            let next = max_label(fsnap) + 1;
            let func = func_mut(p, fi);
            // labels inside a statement expression are rejected by dizy
            nth_stmt_in(
                func,
                &|c| !c.in_stmt_expr,
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
            super::apply(inner, p, h, rng)
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

/// `fall-off` (changing): `f` loses its final `return` (or gets it back), so that where the
/// end is reached one version returns a value and the other none. `fall-off-unreached`
/// (preserving): the final `return` becomes the body's last statement, and the function's end
/// is never reached. Scalar results only (the harness's stand-in return converts from 0).
pub(super) fn fall_off(kind: &str, p: &mut Program) -> bool {
    let f = &mut p.main;
    if !(f.ret.is_int() || f.ret.is_float()) {
        return false;
    }
    match kind {
        "fall-off" => f.falls_off = !f.falls_off,
        "fall-off-unreached" if !f.falls_off => {
            // both branches of the last `if` return, or a new `if` on a parameter does (a
            // bare `return e;` at the end would print as the original)
            let ret = Stmt::Return(f.ret_expr.clone());
            match f.body.last_mut() {
                Some(Stmt::If(_, a, b)) => {
                    a.push(ret.clone());
                    b.push(ret);
                }
                _ => {
                    let Some(x) = f.params.iter().find(|pa| pa.ty.is_int()) else {
                        return false;
                    };
                    let c = Expr::bin(Op::Gt, Expr::var(&x.name), Expr::Int(0));
                    f.body.push(Stmt::If(c, vec![ret.clone()], vec![ret]));
                }
            }
            f.falls_off = true;
        }
        _ => return false,
    }
    true
}
