//! Delta debugging of a failing pair.
//!
//! Takes both versions and a predicate "the failure is still there" (in practice: `check_pair`
//! still reports a failure of the same category); gives a smaller pair on which it still holds.
//! Greedy passes to a fixpoint, each accepted only when the predicate holds: drop a statement
//! from both versions (where they share it) or from one, in `f` and in the helpers; replace a
//! compound statement by one of its blocks; replace an expression by a constant or by an operand
//! of the same kind (integer or floating; never an assignment target, a loop header or the
//! header of a loop that may not terminate; a statement expression by its value where that reads
//! none of its declarations), in both versions alike, then in one; drop locals,
//! helpers, labels and globals that nothing uses any more. Parameters and type definitions stay,
//! so that the oracle's inputs keep their meaning. The number of predicate calls is bounded.
//! Last stage of the fuzzer before a regression is saved.

use std::collections::BTreeSet;

use crate::ast::*;
use crate::mutate::counters;

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

/// Number of statements of `f`, in `each_block` order.
fn stmt_count(f: &Func) -> usize {
    let mut body = f.body.clone();
    let mut n = 0;
    each_block(&mut body, top_ctx(), &mut |b, _| n += b.len());
    n
}

/// Apply `edit` to the block holding the `k`-th statement, with its position.
fn edit_stmt(f: &mut Func, k: usize, edit: &mut dyn FnMut(&mut Vec<Stmt>, usize) -> bool) -> bool {
    let mut seen = 0;
    let mut done = false;
    let mut ok = false;
    each_block(&mut f.body, top_ctx(), &mut |b, _| {
        if !done && k < seen + b.len() {
            ok = edit(b, k - seen);
            done = true;
        }
        seen += b.len();
    });
    ok
}

fn nth_stmt(f: &Func, k: usize) -> Option<Stmt> {
    let mut g = f.clone();
    let mut out = None;
    edit_stmt(&mut g, k, &mut |b, i| {
        out = Some(b[i].clone());
        false
    });
    out
}

fn expr_count(f: &Func) -> usize {
    let mut g = f.clone();
    let mut n = 0;
    func_exprs(&mut g, Walk::Rewritable, &mut |_, _| n += 1);
    n
}

fn nth_expr(f: &Func, k: usize) -> Option<Expr> {
    let mut g = f.clone();
    let (mut i, mut out) = (0, None);
    func_exprs(&mut g, Walk::Rewritable, &mut |e, _| {
        if i == k {
            out = Some(e.clone());
        }
        i += 1;
    });
    out
}

fn replace_expr(f: &mut Func, k: usize, by: &Expr) {
    let mut i = 0;
    func_exprs(f, Walk::Rewritable, &mut |e, _| {
        if i == k {
            *e = by.clone();
        }
        i += 1;
    });
}

#[derive(PartialEq, Eq)]
enum Class {
    Int,
    Float,
    Other,
}

fn class(env: &Env, e: &Expr) -> Class {
    match env.ty(e) {
        Some(t) if t.is_int() => Class::Int,
        Some(t) if t.is_float() => Class::Float,
        _ => Class::Other,
    }
}

/// Smaller expressions of the same kind that could stand for `e`.
fn shrinks(env: &Env, e: &Expr) -> Vec<Expr> {
    let c = class(env, e);
    let mut v = match c {
        Class::Int => vec![Expr::Int(0), Expr::Int(1)],
        Class::Float => vec![Expr::Flt("0.0".into()), Expr::Flt("1.0".into())],
        Class::Other => return vec![],
    };
    match e {
        Expr::Int(0 | 1) => return vec![],
        Expr::Flt(t) if t == "0.0" || t == "1.0" => return vec![],
        Expr::Un(_, a) | Expr::Cast(_, a) => v.push((**a).clone()),
        Expr::Bin(_, a, b) => {
            v.push((**a).clone());
            v.push((**b).clone());
        }
        Expr::Cond(_, a, b) => {
            v.push((**a).clone());
            v.push((**b).clone());
        }
        Expr::Call(_, args) | Expr::Lib(_, args) | Expr::CallPtr(_, args) => {
            v.extend(args.iter().cloned())
        }
        // a statement expression's value, where it reads none of its declarations
        Expr::Block(se) => {
            if let Some(x) = &se.value {
                let mut names = vec![];
                x.names(&mut names);
                if !se.decls.iter().any(|d| names.contains(&d.name)) {
                    v.push(x.clone());
                }
            }
        }
        _ => {}
    }
    v.retain(|x| class(env, x) == c && x != e);
    v
}

/// Names a function refers to (variables, functions, enumerators, loop counters, labels
/// targeted by gotos).
fn mentioned(f: &Func) -> BTreeSet<String> {
    let mut g = f.clone();
    let mut out = BTreeSet::new();
    func_exprs(&mut g, Walk::All, &mut |e, _| {
        let mut v = vec![];
        e.names(&mut v);
        out.extend(v);
    });
    out.extend(counters(f));
    each_stmt(&f.body, &mut |s| match s {
        Stmt::For(_, Bound::Var(v), _) => {
            out.insert(v.clone());
        }
        Stmt::StrLoop(_, st, _) => {
            out.insert(st.clone());
        }
        _ => {}
    });
    for l in &f.locals {
        if let Some(i) = &l.init {
            init_names(i, &mut out);
        }
    }
    out
}

fn init_names(i: &Init, out: &mut BTreeSet<String>) {
    match i {
        Init::E(e) => {
            let mut v = vec![];
            e.names(&mut v);
            out.extend(v);
        }
        Init::List(xs) => xs.iter().for_each(|x| init_names(x, out)),
        Init::Fields(xs) => xs.iter().for_each(|x| init_names(&x.1, out)),
    }
}

fn program_mentions(p: &Program) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for f in p.all_funcs() {
        out.extend(mentioned(f));
    }
    for g in &p.globals {
        if let Some(i) = &g.init {
            init_names(i, &mut out);
        }
    }
    out
}

/// Remove what nothing refers to any more in one version (helpers, locals, labels).
fn tidy(p: &mut Program) {
    loop {
        let m = program_mentions(p);
        let before = p.helpers.len();
        p.helpers.retain(|h| m.contains(&h.name));
        if p.helpers.len() == before {
            break;
        }
    }
    for f in p.all_funcs_mut() {
        let m = mentioned(f);
        // static locals are observed objects: they stay
        f.locals.retain(|l| l.is_static || m.contains(&l.name));
        let targets = goto_targets(&f.body);
        each_block(&mut f.body, top_ctx(), &mut |b, _| {
            b.retain(|s| !matches!(s, Stmt::Label(l) if !targets.contains(l)))
        });
    }
}

/// Remove globals neither version refers to, then type definitions neither uses.
fn tidy_pair(o: &mut Program, n: &mut Program) {
    let mut m = program_mentions(o);
    m.extend(program_mentions(n));
    o.globals.retain(|g| m.contains(&g.name));
    n.globals.retain(|g| m.contains(&g.name));
    let mut used = types_used(o);
    used.extend(types_used(n));
    // an enum is used when one of its enumerators is
    let keep = |t: &TypeDef| match t {
        TypeDef::Enum { items, .. } => {
            used.contains(t.name()) || items.iter().any(|i| m.contains(&i.0))
        }
        _ => used.contains(t.name()),
    };
    o.types.retain(keep);
    n.types.retain(keep);
}

/// Names of the types (tags and typedefs) a program's declarations and casts use, with those
/// the used structs' fields use.
fn types_used(p: &Program) -> BTreeSet<String> {
    fn ty(t: &Ty, out: &mut Vec<String>) {
        match t {
            Ty::Enum(n) | Ty::Struct(n) | Ty::Union(n) | Ty::Fn(n) => out.push(n.clone()),
            Ty::Ptr(e, _) | Ty::Arr(e, _) => ty(e, out),
            _ => {}
        }
    }
    let mut todo = vec![];
    for g in &p.globals {
        ty(&g.ty, &mut todo);
    }
    for f in p.all_funcs() {
        ty(&f.ret, &mut todo);
        for pa in &f.params {
            ty(&pa.ty, &mut todo);
        }
        for l in &f.locals {
            ty(&l.ty, &mut todo);
        }
        let mut g = f.clone();
        func_exprs(&mut g, Walk::All, &mut |e, _| {
            if let Expr::Cast(t, _) = e {
                ty(t, &mut todo);
            }
        });
    }
    let mut out = BTreeSet::new();
    while let Some(n) = todo.pop() {
        if out.insert(n.clone()) {
            for f in p.struct_fields(&n).into_iter().flatten() {
                ty(&f.0, &mut todo);
            }
        }
    }
    out
}

fn size(p: &Program) -> usize {
    let mut n = 0;
    for f in p.all_funcs() {
        n += stmt_count(f) * 4 + f.locals.len();
        let mut g = f.clone();
        func_exprs(&mut g, Walk::Rewritable, &mut |e, _| {
            if !matches!(e, Expr::Int(0 | 1)) {
                n += 1
            }
        });
    }
    n + p.helpers.len() * 3 + p.globals.len()
}

/// The index in `q` of the function of `p` with index `fi` (same name).
fn same_func(p: &Program, q: &Program, fi: usize) -> Option<usize> {
    let name = &func_ref(p, fi).name;
    (0..=q.helpers.len()).find(|&j| &func_ref(q, j).name == name)
}

/// The blocks a compound statement could be replaced by.
fn inner_blocks(s: &Stmt) -> Vec<Vec<Stmt>> {
    match s {
        Stmt::If(_, a, b) => vec![a.clone(), b.clone()],
        Stmt::For(_, _, b)
        | Stmt::While(_, _, b)
        | Stmt::WhileCond(_, b)
        | Stmt::WhileEnd(_, _, b)
        | Stmt::DoWhile(_, _, b)
        | Stmt::GotoLoop(_, _, b, _)
        | Stmt::StrLoop(_, _, b) => {
            // a body without its loop must not keep break/continue
            if b.iter().any(|x| x.has_own_break() || x.has_own_continue()) {
                vec![]
            } else {
                vec![b.clone()]
            }
        }
        Stmt::Spin(sp) => {
            if sp
                .body
                .iter()
                .any(|x| x.has_own_break() || x.has_own_continue())
            {
                vec![]
            } else {
                vec![sp.body.clone()]
            }
        }
        Stmt::Switch(_, cs) => cs
            .iter()
            .filter(|c| !c.body.iter().any(Stmt::has_own_break))
            .map(|c| c.body.clone())
            .collect(),
        _ => vec![],
    }
}

/// Shrink `(old, new)` while `fails` holds, with at most `budget` calls to `fails`.
pub fn minimize(
    old: &Program,
    new: &Program,
    fails: &mut dyn FnMut(&Program, &Program) -> bool,
    budget: usize,
) -> (Program, Program) {
    let (mut o, mut n) = (old.clone(), new.clone());
    let mut calls = 0;
    let mut try_pair =
        |o2: Program, n2: Program, o: &mut Program, n: &mut Program, calls: &mut usize| {
            let (mut o2, mut n2) = (o2, n2);
            tidy(&mut o2);
            tidy(&mut n2);
            tidy_pair(&mut o2, &mut n2);
            if *calls >= budget || size(&o2) + size(&n2) >= size(o) + size(n) {
                return false;
            }
            *calls += 1;
            if fails(&o2, &n2) {
                *o = o2;
                *n = n2;
                true
            } else {
                false
            }
        };
    loop {
        let before = size(&o) + size(&n);
        // statements: the same one in both versions first, then in one version
        for fi in 0..=o.helpers.len() {
            let mut k = 0;
            while fi <= o.helpers.len() && k < stmt_count(func_ref(&o, fi)) {
                let s = nth_stmt(func_ref(&o, fi), k);
                if matches!(s, Some(Stmt::Label(_))) {
                    k += 1;
                    continue;
                }
                let mut o2 = o.clone();
                edit_stmt(func_mut(&mut o2, fi), k, &mut |b, i| {
                    b.remove(i);
                    true
                });
                if let Some(nj) = same_func(&o, &n, fi) {
                    let nf = func_ref(&n, nj);
                    let in_new = (0..stmt_count(nf)).find(|j| nth_stmt(nf, *j) == s);
                    if let Some(j) = in_new {
                        let mut n2 = n.clone();
                        edit_stmt(func_mut(&mut n2, nj), j, &mut |b, i| {
                            b.remove(i);
                            true
                        });
                        if try_pair(o2.clone(), n2, &mut o, &mut n, &mut calls) {
                            continue;
                        }
                    }
                }
                if try_pair(o2, n.clone(), &mut o, &mut n, &mut calls) {
                    continue;
                }
                k += 1;
            }
        }
        for fi in 0..=n.helpers.len() {
            let mut k = 0;
            while fi <= n.helpers.len() && k < stmt_count(func_ref(&n, fi)) {
                if matches!(nth_stmt(func_ref(&n, fi), k), Some(Stmt::Label(_))) {
                    k += 1;
                    continue;
                }
                let mut n2 = n.clone();
                edit_stmt(func_mut(&mut n2, fi), k, &mut |b, i| {
                    b.remove(i);
                    true
                });
                if !try_pair(o.clone(), n2, &mut o, &mut n, &mut calls) {
                    k += 1;
                }
            }
        }
        // a compound statement replaced by one of its blocks, in both versions alike, then in
        // one version at a time
        for side in 0..3 {
            let mut k = 0;
            loop {
                let p = if side == 1 { n.clone() } else { o.clone() };
                if k >= stmt_count(&p.main) {
                    break;
                }
                let Some(s) = nth_stmt(&p.main, k) else { break };
                let mut changed = false;
                for part in inner_blocks(&s) {
                    let splice = |f: &mut Func, at: usize| {
                        edit_stmt(f, at, &mut |b, i| {
                            b.splice(i..=i, part.clone());
                            true
                        })
                    };
                    let (mut o2, mut n2) = (o.clone(), n.clone());
                    match side {
                        0 => {
                            let j = (0..stmt_count(&n.main))
                                .find(|j| nth_stmt(&n.main, *j).as_ref() == Some(&s));
                            let Some(j) = j else { break };
                            splice(&mut o2.main, k);
                            splice(&mut n2.main, j);
                        }
                        1 => {
                            splice(&mut n2.main, k);
                        }
                        _ => {
                            splice(&mut o2.main, k);
                        }
                    }
                    if try_pair(o2, n2, &mut o, &mut n, &mut calls) {
                        changed = true;
                        break;
                    }
                }
                if !changed {
                    k += 1;
                }
            }
        }
        // expressions: the same node in both versions, then each version alone
        for fi in 0..=o.helpers.len().min(n.helpers.len()) {
            for side in 0..3 {
                let mut k = 0;
                loop {
                    if fi > o.helpers.len() || fi > n.helpers.len() {
                        break;
                    }
                    let base = if side == 1 { &n } else { &o };
                    let bf = func_ref(base, fi).clone();
                    if k >= expr_count(&bf) {
                        break;
                    }
                    let Some(e) = nth_expr(&bf, k) else { break };
                    let snap = base.clone();
                    let env = Env::new(&snap, &bf);
                    let mut changed = false;
                    for by in shrinks(&env, &e) {
                        let (mut o2, mut n2) = (o.clone(), n.clone());
                        match side {
                            0 => {
                                let Some(nj) = same_func(&o, &n, fi) else {
                                    break;
                                };
                                let nf = func_ref(&n, nj).clone();
                                let j = (0..expr_count(&nf))
                                    .find(|j| nth_expr(&nf, *j).as_ref() == Some(&e));
                                let Some(j) = j else { break };
                                replace_expr(func_mut(&mut o2, fi), k, &by);
                                replace_expr(func_mut(&mut n2, nj), j, &by);
                            }
                            1 => replace_expr(func_mut(&mut n2, fi), k, &by),
                            _ => replace_expr(func_mut(&mut o2, fi), k, &by),
                        }
                        if try_pair(o2, n2, &mut o, &mut n, &mut calls) {
                            changed = true;
                            break;
                        }
                    }
                    if !changed {
                        k += 1;
                    }
                }
            }
        }
        if size(&o) + size(&n) >= before || calls >= budget {
            return (o, n);
        }
    }
}
