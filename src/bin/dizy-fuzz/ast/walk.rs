//! Walkers over the AST, and the effects of statements.
//!
//! Takes statements, expressions and functions of [`super`]; gives the contexts of statement
//! lists ([`Ctx`]: which jumps are legal where), pre-order visits of statement lists, statements
//! and expression nodes, and what a statement reads and writes ([`effects`]), which the
//! mutations that move statements rely on. Used by `gen`, `mutate`, `minimize` and the printer.
//!
//! The bodies of statement expressions are statement lists like the others: [`child_blocks`]
//! gives those of the statement expressions in a statement's own expressions (before its nested
//! blocks, in evaluation order), so every walker over blocks and statements reaches them;
//! [`expr_nodes`] visits a statement expression's declarations' initializers and value but not
//! its statements (the block walkers do), [`deep_nodes`] everything.

use std::collections::BTreeSet;

use super::*;

// ---------------------------------------------------------------------------------------------
// Walkers

/// Where a statement list sits: which jumps are legal there, and whether it is the body of a
/// loop that must stay "stops soon or never" (a [`Spin`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Ctx {
    pub in_loop: bool,
    pub in_switch: bool,
    pub in_spin: bool,
    /// A `continue` here would skip the loop's increment (`do`-`while`, increment at the end).
    pub no_continue: bool,
    /// Directly the function's body (labels of forward gotos live here).
    pub top: bool,
    /// Inside a statement expression (directly or in a statement nested in one): no `return`,
    /// `goto` or label here, and `break`/`continue` only of a loop inside it.
    pub in_stmt_expr: bool,
}

/// The bodies of the statement expressions in `e` that are not inside another one's body, in
/// evaluation order.
fn se_bodies<'a>(e: &'a mut Expr, out: &mut Vec<&'a mut Vec<Stmt>>) {
    if let Expr::Block(se) = e {
        let StmtExpr { decls, body, value } = &mut **se;
        for d in decls {
            se_bodies(&mut d.init, out);
        }
        out.push(body);
        if let Some(v) = value {
            se_bodies(v, out);
        }
    } else {
        for c in children(e) {
            se_bodies(c, out);
        }
    }
}

/// The direct subexpressions of `e`, in evaluation order (of a statement expression: its
/// declarations' initializers and its value, not the expressions of its statements).
fn children(e: &mut Expr) -> Vec<&mut Expr> {
    match e {
        Expr::Int(_) | Expr::Flt(_) | Expr::Chr(_) | Expr::Var(_) => vec![],
        Expr::Un(_, a) | Expr::Field(a, _) | Expr::Deref(a) | Expr::Cast(_, a) => vec![a],
        Expr::Bin(_, a, b) | Expr::Index(a, b) => vec![a, b],
        Expr::Cond(c, a, b) => vec![c, a, b],
        Expr::Call(_, args) | Expr::Lib(_, args) => args.iter_mut().collect(),
        Expr::CallPtr(p, args) => std::iter::once(&mut **p).chain(args.iter_mut()).collect(),
        Expr::Block(se) => {
            let StmtExpr { decls, value, .. } = &mut **se;
            decls
                .iter_mut()
                .map(|d| &mut d.init)
                .chain(value.as_mut())
                .collect()
        }
    }
}

/// A statement's own expressions (not those of its nested statements) and its nested blocks.
fn own_exprs_and_blocks(s: &mut Stmt) -> (Vec<&mut Expr>, Vec<&mut Vec<Stmt>>) {
    match s {
        Stmt::Assign(lv, _, e) => (vec![lv, e], vec![]),
        Stmt::Call(e) | Stmt::Return(e) => (vec![e], vec![]),
        Stmt::If(c, a, b) => (vec![c], vec![a, b]),
        Stmt::WhileCond(c, b) => (vec![c], vec![b]),
        Stmt::For(_, bd, b)
        | Stmt::While(_, bd, b)
        | Stmt::WhileEnd(_, bd, b)
        | Stmt::DoWhile(_, bd, b)
        | Stmt::GotoLoop(_, bd, b, _) => match bd {
            Bound::Clamp(e, _) => (vec![e], vec![b]),
            _ => (vec![], vec![b]),
        },
        Stmt::Spin(sp) => (vec![&mut sp.init, &mut sp.stop], vec![&mut sp.body]),
        Stmt::StrLoop(_, _, b) => (vec![], vec![b]),
        Stmt::Switch(e, cases) => (vec![e], cases.iter_mut().map(|c| &mut c.body).collect()),
        Stmt::Print(ps) => (
            ps.iter_mut()
                .filter_map(|p| match p {
                    Piece::Conv(_, e) => Some(e),
                    Piece::Text(_) => None,
                })
                .collect(),
            vec![],
        ),
        Stmt::Goto(_) | Stmt::Label(_) | Stmt::Break | Stmt::Continue => (vec![], vec![]),
    }
}

/// The statement lists directly inside `s`, with their context: the bodies of the statement
/// expressions in its own expressions first, then its nested blocks.
pub fn child_blocks(s: &mut Stmt, ctx: Ctx) -> Vec<(&mut Vec<Stmt>, Ctx)> {
    let se_ctx = Ctx {
        in_loop: false,
        in_switch: false,
        no_continue: false,
        top: false,
        in_stmt_expr: true,
        ..ctx
    };
    let loop_ctx = Ctx {
        in_loop: true,
        in_switch: false,
        no_continue: false,
        top: false,
        ..ctx
    };
    let block_ctx = match s {
        Stmt::For(..) | Stmt::While(..) | Stmt::WhileCond(..) | Stmt::StrLoop(..) => loop_ctx,
        Stmt::WhileEnd(..) | Stmt::DoWhile(..) => Ctx {
            no_continue: true,
            ..loop_ctx
        },
        // not a C loop: break/continue there would leave it for an enclosing one
        Stmt::GotoLoop(..) => Ctx {
            in_loop: false,
            in_switch: false,
            top: false,
            ..ctx
        },
        Stmt::Spin(_) => Ctx {
            in_spin: true,
            ..loop_ctx
        },
        Stmt::Switch(..) => Ctx {
            in_switch: true,
            top: false,
            ..ctx
        },
        _ => Ctx { top: false, ..ctx },
    };
    let (exprs, blocks) = own_exprs_and_blocks(s);
    let mut bodies = vec![];
    for e in exprs {
        se_bodies(e, &mut bodies);
    }
    let mut out: Vec<(&mut Vec<Stmt>, Ctx)> = bodies.into_iter().map(|b| (b, se_ctx)).collect();
    out.extend(blocks.into_iter().map(|b| (b, block_ctx)));
    out
}

/// Visit every statement list, pre-order.
pub fn each_block(b: &mut Vec<Stmt>, ctx: Ctx, f: &mut dyn FnMut(&mut Vec<Stmt>, Ctx)) {
    f(b, ctx);
    for s in b.iter_mut() {
        for (blk, c) in child_blocks(s, ctx) {
            each_block(blk, c, f);
        }
    }
}

pub fn top_ctx() -> Ctx {
    Ctx {
        top: true,
        ..Ctx::default()
    }
}

/// Which expressions of a statement a walker visits.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Walk {
    /// All of them (renaming).
    All,
    /// Those a mutation or the minimizer may rewrite: not lvalues' roots, loop headers or the
    /// headers of [`Spin`] loops (whose shape keeps them "stop soon or never").
    Rewritable,
}

/// Visit the expressions of one statement (not of nested statements), pre-order; `lvalue`
/// tells whether the visited expression is an assignment target.
pub fn stmt_exprs(s: &mut Stmt, walk: Walk, f: &mut dyn FnMut(&mut Expr, bool)) {
    match s {
        Stmt::Assign(lv, _, e) => {
            if walk == Walk::All {
                lvalue_nodes(lv, f);
            } else {
                // the index expressions inside the target may change
                lvalue_subexprs(lv, f);
            }
            expr_nodes(e, &mut |x| f(x, false));
        }
        Stmt::Call(e) | Stmt::Return(e) => expr_nodes(e, &mut |x| f(x, false)),
        Stmt::If(c, _, _) | Stmt::Switch(c, _) => expr_nodes(c, &mut |x| f(x, false)),
        // a loop header, as the others: rewriting it could make the loop run long
        Stmt::WhileCond(c, _) => {
            if walk == Walk::All {
                expr_nodes(c, &mut |x| f(x, false));
            }
        }
        Stmt::For(_, b, _)
        | Stmt::While(_, b, _)
        | Stmt::WhileEnd(_, b, _)
        | Stmt::DoWhile(_, b, _)
        | Stmt::GotoLoop(_, b, _, _) => {
            if walk == Walk::All {
                if let Bound::Clamp(e, _) = b {
                    expr_nodes(e, &mut |x| f(x, false));
                }
            }
        }
        Stmt::Spin(sp) => {
            if walk == Walk::All {
                expr_nodes(&mut sp.init, &mut |x| f(x, false));
                expr_nodes(&mut sp.stop, &mut |x| f(x, false));
            }
        }
        Stmt::Print(ps) => {
            for p in ps {
                if let Piece::Conv(_, e) = p {
                    expr_nodes(e, &mut |x| f(x, false));
                }
            }
        }
        Stmt::StrLoop(..) | Stmt::Goto(_) | Stmt::Label(_) | Stmt::Break | Stmt::Continue => {}
    }
}

/// Every node of an assignment target: those on the path to the object as lvalues, index
/// and pointer expressions as values.
fn lvalue_nodes(lv: &mut Expr, f: &mut dyn FnMut(&mut Expr, bool)) {
    f(lv, true);
    match lv {
        Expr::Index(a, i) => {
            lvalue_nodes(a, f);
            expr_nodes(i, &mut |x| f(x, false));
        }
        Expr::Field(a, _) => lvalue_nodes(a, f),
        Expr::Deref(a) => expr_nodes(a, &mut |x| f(x, false)),
        _ => {}
    }
}

fn lvalue_subexprs(lv: &mut Expr, f: &mut dyn FnMut(&mut Expr, bool)) {
    match lv {
        Expr::Index(a, i) => {
            lvalue_subexprs(a, f);
            expr_nodes(i, &mut |x| f(x, false));
        }
        Expr::Field(a, _) => lvalue_subexprs(a, f),
        _ => {}
    }
}

/// Every node of an expression, pre-order (a node replaced by `f` has its new children visited);
/// a statement expression's statements are a block of the statement holding it
/// ([`child_blocks`]), not visited here.
pub fn expr_nodes(e: &mut Expr, f: &mut dyn FnMut(&mut Expr)) {
    f(e);
    for c in children(e) {
        expr_nodes(c, f);
    }
}

/// Every node of an expression and of the statements inside its statement expressions
/// (read-only, [`Walk::All`]).
pub fn deep_nodes(e: &Expr, f: &mut dyn FnMut(&Expr)) {
    let mut c = e.clone();
    expr_nodes(&mut c, &mut |x| {
        f(x);
        if let Expr::Block(se) = x {
            block_exprs(&mut se.body, Walk::All, &mut |y, _| f(y));
        }
    });
}

/// Every expression node of a statement list (nested statements and statement expressions
/// included), with `walk` deciding which are visited.
pub fn block_exprs(b: &mut [Stmt], walk: Walk, f: &mut dyn FnMut(&mut Expr, bool)) {
    for s in b.iter_mut() {
        stmt_exprs(s, walk, f);
        for (blk, _) in child_blocks(s, Ctx::default()) {
            block_exprs(blk, walk, f);
        }
    }
}

/// Every expression node of a function (statements in order, then the final return), with
/// `walk` deciding which are visited; `f` also gets whether the node is an assignment target.
pub fn func_exprs(func: &mut Func, walk: Walk, f: &mut dyn FnMut(&mut Expr, bool)) {
    block_exprs(&mut func.body, walk, f);
    // statement expressions of the final return
    let mut ret = vec![Stmt::Return(std::mem::replace(
        &mut func.ret_expr,
        Expr::Int(0),
    ))];
    block_exprs(&mut ret, walk, f);
    if let Some(Stmt::Return(e)) = ret.pop() {
        func.ret_expr = e;
    }
}

/// Every statement of a list, recursively, pre-order.
pub fn each_stmt(b: &[Stmt], f: &mut dyn FnMut(&Stmt)) {
    for s in b {
        f(s);
        let mut c = s.clone();
        for (blk, _) in child_blocks(&mut c, Ctx::default()) {
            each_stmt(blk, f);
        }
    }
}

impl Stmt {
    /// Whether a `continue` of the innermost enclosing loop occurs in this statement.
    pub fn has_own_continue(&self) -> bool {
        match self {
            Stmt::Continue => true,
            Stmt::If(_, a, b) => a.iter().chain(b).any(Stmt::has_own_continue),
            Stmt::Switch(_, cs) => cs.iter().flat_map(|c| &c.body).any(Stmt::has_own_continue),
            Stmt::GotoLoop(_, _, b, _) => b.iter().any(Stmt::has_own_continue),
            _ => false,
        }
    }
    /// Whether a `break` leaving the innermost enclosing loop occurs in this statement.
    pub fn has_own_break(&self) -> bool {
        match self {
            Stmt::Break => true,
            Stmt::If(_, a, b) => a.iter().chain(b).any(Stmt::has_own_break),
            Stmt::GotoLoop(_, _, b, _) => b.iter().any(Stmt::has_own_break),
            _ => false,
        }
    }
    pub fn has_goto_or_label(&self) -> bool {
        let mut r = false;
        each_stmt(std::slice::from_ref(self), &mut |s| {
            r |= matches!(s, Stmt::Goto(_) | Stmt::Label(_) | Stmt::GotoLoop(..))
        });
        r
    }
}

impl StmtExpr {
    /// Whether control may leave it other than by its end: a `return`, `goto` or label inside,
    /// or a `break`/`continue` not of a loop or switch inside it.
    pub fn leaves(&self) -> bool {
        let mut r = false;
        each_stmt(&self.body, &mut |s| {
            r |= matches!(
                s,
                Stmt::Return(_) | Stmt::Goto(_) | Stmt::Label(_) | Stmt::GotoLoop(..)
            )
        });
        r || self
            .body
            .iter()
            .any(|s| s.has_own_break() || s.has_own_continue())
    }
}

/// Labels that some `goto` of the function jumps to.
pub fn goto_targets(b: &[Stmt]) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    each_stmt(b, &mut |s| {
        if let Stmt::Goto(l) = s {
            out.insert(l.clone());
        }
    });
    out
}

// ---------------------------------------------------------------------------------------------
// Effects, for the mutations that move statements

/// Names a statement reads and writes (globals, locals, `*` for memory behind pointers,
/// `@out` for output, `@call` for calls, which may touch any global) and whether control
/// may leave it sideways.
pub fn effects(s: &Stmt) -> (BTreeSet<String>, BTreeSet<String>, bool) {
    let mut r = BTreeSet::new();
    let mut w = BTreeSet::new();
    let mut jumps = false;
    let e_reads = |e: &Expr, r: &mut BTreeSet<String>, w: &mut BTreeSet<String>| {
        let mut v = vec![];
        e.names(&mut v);
        r.extend(v);
        if e.reads_mem() {
            r.insert("*".into());
        }
        if e.has_call() {
            // a helper may read and write any global, memory and output
            r.insert("@call".into());
            w.insert("@call".into());
            w.insert("@out".into());
            w.insert("*".into());
        }
    };
    each_stmt(std::slice::from_ref(s), &mut |st| match st {
        Stmt::Assign(lv, op, e) => {
            e_reads(e, &mut r, &mut w);
            let root = lv.root();
            // the target's index expressions are read
            let mut idx = lv.clone();
            lvalue_subexprs(&mut idx, &mut |x, _| {
                let mut v = vec![];
                x.names(&mut v);
                r.extend(v);
            });
            if let Expr::Deref(p) = lv {
                e_reads(p, &mut r, &mut w);
            }
            if op.is_some() || !matches!(lv, Expr::Var(_)) {
                r.insert(root.clone());
            }
            w.insert(root);
        }
        Stmt::Call(e) => {
            e_reads(e, &mut r, &mut w);
            w.insert("@out".into());
        }
        Stmt::Print(ps) => {
            for p in ps {
                if let Piece::Conv(_, e) = p {
                    e_reads(e, &mut r, &mut w);
                }
            }
            r.insert("@out".into());
            w.insert("@out".into());
        }
        Stmt::If(c, _, _) | Stmt::Switch(c, _) | Stmt::WhileCond(c, _) => {
            e_reads(c, &mut r, &mut w)
        }
        Stmt::For(i, b, _)
        | Stmt::While(i, b, _)
        | Stmt::WhileEnd(i, b, _)
        | Stmt::DoWhile(i, b, _)
        | Stmt::GotoLoop(i, b, _, _) => {
            r.insert(i.clone());
            w.insert(i.clone());
            match b {
                Bound::Clamp(e, _) => e_reads(e, &mut r, &mut w),
                Bound::Var(v) => {
                    r.insert(v.clone());
                }
                Bound::Const(_) => {}
            }
            if matches!(st, Stmt::GotoLoop(..)) {
                jumps = true;
            }
        }
        Stmt::Spin(sp) => {
            r.insert(sp.var.clone());
            w.insert(sp.var.clone());
            e_reads(&sp.init, &mut r, &mut w);
            e_reads(&sp.stop, &mut r, &mut w);
            // may not terminate: never moved across anything observable
            jumps = true;
        }
        Stmt::StrLoop(i, s, _) => {
            r.insert(i.clone());
            w.insert(i.clone());
            r.insert(s.clone());
            r.insert("*".into());
        }
        Stmt::Return(e) => {
            e_reads(e, &mut r, &mut w);
            jumps = true;
        }
        Stmt::Goto(_) | Stmt::Label(_) | Stmt::Break | Stmt::Continue => jumps = true,
    });
    (r, w, jumps)
}

pub fn dependent(a: &Stmt, b: &Stmt) -> bool {
    let (ra, wa, _) = effects(a);
    let (rb, wb, _) = effects(b);
    let clash = |w: &BTreeSet<String>, other: &BTreeSet<String>| {
        w.iter().any(|x| other.contains(x))
            // a call may touch any global or static; memory may be a global array behind a
            // pointer: be conservative
            || (w.contains("@call") && !other.is_empty())
            || (!w.is_empty() && other.contains("@call"))
    };
    clash(&wa, &rb) || clash(&wa, &wb) || clash(&wb, &ra)
}

pub fn independent(a: &Stmt, b: &Stmt) -> bool {
    !effects(a).2 && !effects(b).2 && !dependent(a, b)
}
