//! Lowering of statements: blocks, `if`, loops, `switch`, labels and `goto`, `return`.
//!
//! Takes `lang-c` statements of the function being lowered; gives structured IR statements
//! ([`StmtKind`]) in the function's buffer, each with its source line. A loop condition's side
//! effects become the loop's `pre` statements, a `for` step its `step`; `if (!c) A else B` is
//! turned into `if (c) B else A` (see the `If` case). `case` labels must stand directly in the
//! `switch` body (Duff's device is rejected). Nesting is bounded by
//! [`crate::frontend::MAX_NESTING`]. GNU statement expressions (`({ …; v; })`, glibc's
//! `assert`) are lowered in place: their statements before the expression, their value in a
//! temporary. A `return`, or a `break`/`continue` of the loop or `switch` whose body holds the
//! statement, may leave one (the rest of the enclosing expression is then not evaluated, as in
//! GCC); `goto`, labels and jumps out of a loop's condition or step are rejected.

use lang_c::ast::*;
use lang_c::span::Node;

use super::ops::promote;
use super::{Ctx, Enclosing, Res, Val};
use crate::frontend::consteval::normalize;
use crate::frontend::types::{Binding, Scope, TypeEnv};
use crate::ir::{
    CType, Expr, ExprKind, LoopKind, Place, Stmt, StmtKind, SwitchItem, UnOp, VarKind,
};

impl Ctx<'_> {
    pub(super) fn block_items(&mut self, items: &[Node<BlockItem>]) -> Res<()> {
        for it in items {
            match &it.node {
                BlockItem::Declaration(d) => self.local_declaration(d)?,
                BlockItem::StaticAssert(_) => {}
                BlockItem::Statement(s) => self.stmt(s)?,
            }
        }
        Ok(())
    }

    pub(super) fn set_line(&mut self, offset: usize) {
        let l = self.line(offset);
        if let Some(f) = self.f.as_mut() {
            if l.0 != 0 {
                f.line = l;
            }
        }
    }

    /// A GNU statement expression `({ items; last; })`: the items are lowered where the
    /// expression stands (in its own scope); the value is the last item's when that is an
    /// expression statement (kept in a temporary, so later effects of the enclosing
    /// expression cannot change it), `void` otherwise.
    pub(super) fn statement_expr(&mut self, s: &Node<Statement>, off: usize) -> Res<Val> {
        if self.f.is_none() {
            return Err(self.err(off, "statement expression outside a function"));
        }
        let Statement::Compound(items) = &s.node else {
            return Err(self.err(off, "statement expression without a block"));
        };
        let allowed = self.allowed_jumps();
        if let Some(why) = leaves_block(items, allowed) {
            return Err(self.err(
                off,
                format!("{why} inside a statement expression is not supported"),
            ));
        }
        self.tables.scopes.push(Scope::default());
        let r = self.statement_expr_items(items);
        self.tables.scopes.pop();
        r
    }

    /// The jumps out of a statement expression that land where lowering in place puts them.
    fn allowed_jumps(&mut self) -> Jumps {
        let enc = &self.fs().enclosing;
        let innermost_loop = enc.iter().rev().find(|e| **e != Enclosing::Switch);
        Jumps {
            brk: matches!(enc.last(), Some(Enclosing::Loop | Enclosing::Switch)),
            cont: innermost_loop == Some(&Enclosing::Loop),
            ret: !enc.contains(&Enclosing::Header),
        }
    }

    /// Runs `body` with `e` as the innermost enclosing construct.
    fn inside<T>(&mut self, e: Enclosing, body: impl FnOnce(&mut Self) -> Res<T>) -> Res<T> {
        self.fs().enclosing.push(e);
        let r = body(self);
        self.fs().enclosing.pop();
        r
    }

    fn statement_expr_items(&mut self, items: &[Node<BlockItem>]) -> Res<Val> {
        let Some((
            Node {
                node: BlockItem::Statement(last),
                ..
            },
            init,
        )) = items.split_last()
        else {
            self.block_items(items)?;
            return Ok(Val::Void);
        };
        let Statement::Expression(Some(e)) = &last.node else {
            self.block_items(items)?;
            return Ok(Val::Void);
        };
        self.block_items(init)?;
        self.set_line(e.span.start);
        let v = self.expr(e)?;
        if matches!(v, Val::Void) {
            return Ok(Val::Void);
        }
        let x = self.rvalue_of(v, e.span.start)?;
        let t = self.temp("stmt", x.ty.clone());
        let ty = x.ty.clone();
        self.emit(StmtKind::Assign(Place::Var(t), x));
        Ok(Val::L(Place::Var(t), ty))
    }

    fn stmt(&mut self, s: &Node<Statement>) -> Res<()> {
        self.set_line(s.span.start);
        let depth = {
            let f = self.fs();
            f.depth += 1;
            f.depth
        };
        if depth > crate::frontend::MAX_NESTING {
            return Err(self.err(
                s.span.start,
                format!(
                    "statements nested deeper than {} levels are not supported",
                    crate::frontend::MAX_NESTING
                ),
            ));
        }
        let r = self.stmt_inner(s);
        self.fs().depth -= 1;
        r
    }

    fn sub_block(&mut self, s: &Node<Statement>) -> Res<Vec<Stmt>> {
        let line = self.fs().line;
        let ((), stmts) = self.buffered(|cx| {
            cx.tables.scopes.push(Scope::default());
            let r = cx.stmt(s);
            cx.tables.scopes.pop();
            r
        })?;
        self.fs().line = line;
        Ok(stmts)
    }

    fn stmt_inner(&mut self, s: &Node<Statement>) -> Res<()> {
        match &s.node {
            Statement::Compound(items) => {
                self.tables.scopes.push(Scope::default());
                let r = self.block_items(items);
                self.tables.scopes.pop();
                r
            }
            Statement::Expression(None) => Ok(()),
            Statement::Expression(Some(e)) => {
                // A statement that is only an undeclared name (`case_GETOPT_HELP_CHAR;`) is a
                // macro of a missing header whose expansion (a `case` label, a call, a
                // `return`) is unknown: never an opaque value read for nothing.
                if let Expression::Identifier(id) = &e.node {
                    if self.tables.lookup(&id.node.name).is_none()
                        && !id.node.name.starts_with("__")
                    {
                        return Err(self
                            .err(
                                e.span.start,
                                format!(
                                    "`{};` names nothing declared: a macro whose expansion is unknown",
                                    id.node.name
                                ),
                            )
                            .with_kind(crate::diag::ErrorKind::Undeclared));
                    }
                }
                self.effect(e)
            }
            Statement::If(i) => {
                let c = &i.node.condition;
                let mut x = self.rvalue(c)?;
                let mut then_ = self.sub_block(&i.node.then_statement)?;
                let mut else_ = match &i.node.else_statement {
                    Some(e) => self.sub_block(e)?,
                    None => vec![],
                };
                // `if (!c) A else B` is lowered as `if (c) B else A`, and `if (0) A else B` as
                // `if (1) B else A`: a change that negates a condition and swaps the branches
                // then lines up with the original in the correlating program.
                while !then_.is_empty() && !else_.is_empty() {
                    x = match x.kind {
                        ExprKind::Unary(UnOp::LogNot, y) => *y,
                        ExprKind::Int(0) if x.ty.is_integer() => Expr::new(ExprKind::Int(1), x.ty),
                        _ => break,
                    };
                    std::mem::swap(&mut then_, &mut else_);
                }
                let cond = self.truth(x, c.span.start)?;
                self.set_line(s.span.start);
                self.emit(StmtKind::If { cond, then_, else_ });
                Ok(())
            }
            Statement::While(w) => {
                let (cond, pre) = self.inside(Enclosing::Header, |cx| {
                    cx.buffered(|cx| cx.cond(&w.node.expression))
                })?;
                let body = self.inside(Enclosing::Loop, |cx| cx.sub_block(&w.node.statement))?;
                self.set_line(s.span.start);
                self.emit(StmtKind::Loop {
                    kind: LoopKind::While,
                    pre,
                    cond,
                    body,
                    step: vec![],
                });
                Ok(())
            }
            Statement::DoWhile(w) => {
                let body = self.inside(Enclosing::Loop, |cx| cx.sub_block(&w.node.statement))?;
                self.set_line(w.node.expression.span.start);
                let (cond, pre) = self.inside(Enclosing::Header, |cx| {
                    cx.buffered(|cx| cx.cond(&w.node.expression))
                })?;
                self.emit(StmtKind::Loop {
                    kind: LoopKind::DoWhile,
                    pre,
                    cond,
                    body,
                    step: vec![],
                });
                Ok(())
            }
            Statement::For(fo) => {
                self.tables.scopes.push(Scope::default());
                let r = self.for_loop(s, fo);
                self.tables.scopes.pop();
                r
            }
            Statement::Switch(sw) => self.switch(sw),
            Statement::Labeled(l) => match &l.node.label.node {
                Label::Identifier(id) => {
                    self.emit(StmtKind::Label(id.node.name.clone()));
                    self.stmt(&l.node.statement)
                }
                _ => Err(self.err(
                    s.span.start,
                    "case label not directly inside a switch body is not supported",
                )),
            },
            Statement::Goto(id) => {
                self.emit(StmtKind::Goto(id.node.name.clone()));
                Ok(())
            }
            Statement::Continue => {
                self.emit(StmtKind::Continue);
                Ok(())
            }
            Statement::Break => {
                self.emit(StmtKind::Break);
                Ok(())
            }
            Statement::Return(e) => {
                let ret = self.fs().ret.clone();
                let v = match e {
                    Some(e) if ret != CType::Void => {
                        let v = self.rvalue(e)?;
                        Some(self.convert_checked(v, &ret, e.span.start)?)
                    }
                    Some(e) => {
                        self.effect(e)?;
                        None
                    }
                    None => None,
                };
                self.set_line(s.span.start);
                self.emit(StmtKind::Return(v));
                Ok(())
            }
            Statement::Asm(_) => Err(self.err(s.span.start, "inline assembly is not supported")),
        }
    }

    fn for_loop(&mut self, s: &Node<Statement>, fo: &Node<ForStatement>) -> Res<()> {
        match &fo.node.initializer.node {
            ForInitializer::Empty | ForInitializer::StaticAssert(_) => {}
            ForInitializer::Expression(e) => self.effect(e)?,
            ForInitializer::Declaration(d) => self.local_declaration(d)?,
        }
        let (cond, pre) = match &fo.node.condition {
            Some(c) => self.inside(Enclosing::Header, |cx| cx.buffered(|cx| cx.cond(c)))?,
            None => (Expr::int(1, CType::INT), vec![]),
        };
        let body = self.inside(Enclosing::Loop, |cx| cx.sub_block(&fo.node.statement))?;
        let ((), step) = match &fo.node.step {
            Some(e) => {
                self.set_line(e.span.start);
                self.inside(Enclosing::Header, |cx| cx.buffered(|cx| cx.effect(e)))?
            }
            None => ((), vec![]),
        };
        self.set_line(s.span.start);
        self.emit(StmtKind::Loop {
            kind: LoopKind::While,
            pre,
            cond,
            body,
            step,
        });
        Ok(())
    }

    fn switch(&mut self, sw: &Node<SwitchStatement>) -> Res<()> {
        let v = self.rvalue(&sw.node.expression)?;
        if !v.ty.is_integer() {
            return Err(self.err(sw.span.start, "switch on a non-integer value"));
        }
        let t = promote(&v.ty);
        let value = self.convert(v, &t);
        let Statement::Compound(items) = &sw.node.statement.node else {
            return Err(self.err(sw.span.start, "switch body must be a block"));
        };
        let line = self.fs().line;
        let mut body = vec![];
        self.tables.scopes.push(Scope::default());
        self.fs().enclosing.push(Enclosing::Switch);
        let r = (|| -> Res<()> {
            for it in items {
                match &it.node {
                    BlockItem::Declaration(d) => {
                        let ((), st) = self.buffered(|cx| cx.local_declaration(d))?;
                        body.extend(st.into_iter().map(SwitchItem::Stmt));
                    }
                    BlockItem::StaticAssert(_) => {}
                    BlockItem::Statement(s) => self.switch_stmt(s, &t, &mut body)?,
                }
            }
            Ok(())
        })();
        self.fs().enclosing.pop();
        self.tables.scopes.pop();
        r?;
        self.fs().line = line;
        self.emit(StmtKind::Switch { value, body });
        Ok(())
    }

    /// A case label that is not a constant because it names a missing header's constant (an
    /// opaque global, see [`crate::ir::GlobalVar::opaque`]): its value converted to `t`, if
    /// lowering it emits nothing and reads only opaque globals.
    fn opaque_case(&mut self, e: &Node<Expression>, t: &CType) -> Option<Expr> {
        if !self.opaque_undeclared {
            return None;
        }
        // `case MAKE_MARKER (0, 0, 3, 0xE8):` (libsndfile): a function-like macro of a missing
        // header on constant arguments is a constant too, unknown and the same in both
        // versions: one opaque global per macro name and argument values.
        if let Expression::Call(c) = &e.node {
            if let Expression::Identifier(id) = &c.node.callee.node {
                let name = &id.node.name;
                // (The failed constant evaluation already declared it implicitly.)
                let undeclared = match self.tables.lookup(name) {
                    None => true,
                    Some(Binding::Func(_)) => self.undeclared_calls.contains(name),
                    Some(_) => false,
                };
                if undeclared {
                    let args = c
                        .node
                        .arguments
                        .iter()
                        .map(|a| self.const_int(a).ok().map(|v| v.to_string()))
                        .collect::<Option<Vec<_>>>()?;
                    let g =
                        self.opaque_global(&format!("{name}({})", args.join(", ")), e.span.start);
                    let v = self.global_var(g);
                    return Some(self.convert(Expr::new(ExprKind::Var(v), CType::INT), t));
                }
            }
        }
        let (v, st) = self.buffered(|cx| cx.rvalue(e)).ok()?;
        if !st.is_empty() || !v.ty.is_integer() || !self.reads_only_opaque(&v) {
            return None;
        }
        Some(self.convert(v, t))
    }

    /// Whether `e` is built from integer constants and opaque globals only.
    fn reads_only_opaque(&self, e: &Expr) -> bool {
        match &e.kind {
            ExprKind::Int(_) => true,
            ExprKind::Var(v) => {
                let f = self.f.as_ref().expect("in a function");
                matches!(f.vars[v.index()].kind, VarKind::Global(g) if self.globals[g.index()].opaque)
            }
            ExprKind::Unary(_, a) | ExprKind::Cast(a) => self.reads_only_opaque(a),
            ExprKind::Binary(_, a, b) | ExprKind::Logic(_, a, b) => {
                self.reads_only_opaque(a) && self.reads_only_opaque(b)
            }
            _ => false,
        }
    }

    fn switch_stmt(
        &mut self,
        s: &Node<Statement>,
        t: &CType,
        body: &mut Vec<SwitchItem>,
    ) -> Res<()> {
        if let Statement::Labeled(l) = &s.node {
            let item = match &l.node.label.node {
                Label::Case(e) => Some(match self.const_int(e) {
                    Ok(v) => {
                        let v = normalize(v, t);
                        SwitchItem::Case(v, v)
                    }
                    Err(err) => SwitchItem::CaseExpr(self.opaque_case(e, t).ok_or(err)?),
                }),
                Label::CaseRange(r) => {
                    let lo = normalize(self.const_int(&r.node.low)?, t);
                    let hi = normalize(self.const_int(&r.node.high)?, t);
                    Some(SwitchItem::Case(lo, hi))
                }
                Label::Default => Some(SwitchItem::Default),
                Label::Identifier(_) => None,
            };
            if let Some(item) = item {
                body.push(item);
                return self.switch_stmt(&l.node.statement, t, body);
            }
        }
        let ((), st) = self.buffered(|cx| cx.stmt(s))?;
        body.extend(st.into_iter().map(SwitchItem::Stmt));
        Ok(())
    }
}

/// The jumps a statement expression may make out of itself where it stands.
#[derive(Clone, Copy)]
struct Jumps {
    brk: bool,
    cont: bool,
    ret: bool,
}

/// What in `items` would leave an enclosing statement expression in a way `ok` does not allow
/// (`goto`, a label, a `return`, a `break` or `continue` of a loop or `switch` outside it), if
/// anything.
fn leaves_block(items: &[Node<BlockItem>], ok: Jumps) -> Option<&'static str> {
    items.iter().find_map(|it| match &it.node {
        BlockItem::Statement(s) => leaves(s, ok),
        _ => None,
    })
}

fn leaves(s: &Node<Statement>, ok: Jumps) -> Option<&'static str> {
    let in_loop = Jumps {
        brk: true,
        cont: true,
        ..ok
    };
    match &s.node {
        Statement::Return(_) if !ok.ret => Some("`return` out of a loop's condition or step"),
        Statement::Goto(_) => Some("`goto`"),
        Statement::Labeled(l) => match l.node.label.node {
            Label::Case(_) | Label::CaseRange(_) | Label::Default => {
                Some("a `case` label of a `switch` outside it")
            }
            _ => Some("a label"),
        },
        Statement::Break if !ok.brk => Some("`break` out of a loop's condition or step"),
        Statement::Continue if !ok.cont => Some("`continue` out of a loop's condition or step"),
        Statement::Compound(items) => leaves_block(items, ok),
        Statement::If(i) => leaves(&i.node.then_statement, ok)
            .or_else(|| i.node.else_statement.as_ref().and_then(|e| leaves(e, ok))),
        Statement::Switch(w) => leaves_switch(&w.node.statement, Jumps { brk: true, ..ok }),
        Statement::While(w) => leaves(&w.node.statement, in_loop),
        Statement::DoWhile(w) => leaves(&w.node.statement, in_loop),
        Statement::For(f) => leaves(&f.node.statement, in_loop),
        _ => None,
    }
}

/// [`leaves`] for the body of a `switch` inside the statement expression: its own `case`
/// labels stay inside.
fn leaves_switch(s: &Node<Statement>, ok: Jumps) -> Option<&'static str> {
    match &s.node {
        Statement::Labeled(l)
            if matches!(
                l.node.label.node,
                Label::Case(_) | Label::CaseRange(_) | Label::Default
            ) =>
        {
            leaves_switch(&l.node.statement, ok)
        }
        Statement::Compound(items) => items.iter().find_map(|it| match &it.node {
            BlockItem::Statement(s) => leaves_switch(s, ok),
            _ => None,
        }),
        _ => leaves(s, ok),
    }
}
