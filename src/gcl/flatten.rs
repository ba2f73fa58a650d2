//! Flattening: structured IR body → guarded instructions (DIZY's Algorithm 2, DESIGN §3).
//!
//! Takes one [`Function`] from the frontend and gives a [`GclFunction`]: a flat instruction list in
//! which every non-jump instruction carries the conjunction of guard literals under which it runs.
//! The correlator diffs these lists, the interpreter and the analysis execute them.
//!
//! The scheme (fixed, because the correlator diffs its output):
//! * a *context* is the current conjunction of literals; every emitted instruction gets it, guard
//!   assignments included (`[G] g := cond`: evaluating `cond` outside `G` could be UB);
//! * `if` creates a condition guard `gN`; loops a condition guard plus, when needed, `brkK`/`contK`
//!   flags and a head label with a guarded backward `goto`; `switch` a temporary for the value, an
//!   "executing" guard `swK` set by the case tests, and a `brkK` flag;
//! * `return`, `break`, `continue` set a flag; every instruction textually after a point where the
//!   flag *may* be set (and still inside the flag's scope) gets the flag's negation in its guard;
//! * `goto L` first makes `L`'s context true (`g3 := 1`, `brk2 := 0`, …) and then jumps. Label
//!   contexts are only known after flattening, so the whole function is flattened twice: pass 1
//!   records each label's context, pass 2 emits the fix-ups. Both passes create guards, variables
//!   and labels in the same order, so their numbering agrees.
//!
//! Statements after a `return`/`break`/`continue` in the same straight-line block are kept (they
//! carry the flag's negation, so they never run unless a `goto` lands among them).

use std::collections::HashMap;

use super::{GclFunction, Guard, GuardInfo, GuardKind, Instr, InstrKind, Lit};
use crate::diag::Error;
use crate::ir::{
    BinOp, CType, Expr, ExprKind, Function, GuardId, Label, Line, LogicOp, LoopKind, Place, Stmt,
    StmtKind, SwitchItem, UnOp, VarId, VarInfo, VarKind,
};

/// Flatten one function to GCL. Errors (with the line) for `break`/`continue` outside a loop or
/// switch, `goto` to an undefined label and duplicate labels.
pub fn flatten_function(f: &Function) -> crate::Result<GclFunction> {
    let mut pass1 = Flattener::new(f, None);
    pass1.run()?;
    let known = std::mem::take(&mut pass1.label_info);
    let mut pass2 = Flattener::new(f, Some(&known));
    pass2.run()?;
    Ok(pass2.finish())
}

/// A context: conjunction of guard literals, in the order they were added.
type Ctx = Vec<Lit>;

fn pos(g: GuardId) -> Lit {
    Lit {
        guard: g,
        positive: true,
    }
}

fn neg(g: GuardId) -> Lit {
    Lit {
        guard: g,
        positive: false,
    }
}

fn err(line: Line, msg: impl Into<String>) -> Error {
    Error {
        line: Some(line.0),
        ..Error::unsupported(msg)
    }
}

/// An enclosing loop or switch, innermost last.
struct Target {
    /// Construct number K (loops and switches share one counter).
    id: u32,
    is_loop: bool,
    brk: Option<GuardId>,
    cont: Option<GuardId>,
}

/// What pass 1 learned about a source label.
#[derive(Clone)]
struct LabelInfo {
    label: Label,
    /// The context at the label.
    ctx: Ctx,
    /// Flags of the loops/switches enclosing the label, with their construct number. They must be
    /// 0 when control enters the construct's body from outside through a `goto`: statements before
    /// the first `break` in the body do not test the flag but later ones do.
    flags: Vec<(u32, GuardId)>,
}

struct Flattener<'f> {
    f: &'f Function,
    vars: Vec<VarInfo>,
    guards: Vec<GuardInfo>,
    instrs: Vec<Instr>,
    /// Instruction index of each label (`usize::MAX` until placed).
    labels: Vec<usize>,
    ret_flag: GuardId,
    retval: Option<VarId>,
    n_cond: u32,
    n_construct: u32,
    targets: Vec<Target>,
    label_info: HashMap<String, LabelInfo>,
    /// Pass 2 only: every label's information from pass 1.
    known: Option<&'f HashMap<String, LabelInfo>>,
}

impl<'f> Flattener<'f> {
    fn new(f: &'f Function, known: Option<&'f HashMap<String, LabelInfo>>) -> Self {
        let mut me = Flattener {
            f,
            vars: f.vars.clone(),
            guards: Vec::new(),
            instrs: Vec::new(),
            labels: Vec::new(),
            ret_flag: GuardId(0),
            retval: None,
            n_cond: 0,
            n_construct: 0,
            targets: Vec::new(),
            label_info: HashMap::new(),
            known,
        };
        me.ret_flag = me.new_guard("ret".into(), GuardKind::Return, f.line);
        if f.ret != CType::Void {
            me.retval = Some(me.new_var("retval", f.ret.clone(), VarKind::Retval, f.line));
        }
        me
    }

    fn run(&mut self) -> crate::Result<()> {
        let f = self.f;
        self.emit(
            &Vec::new(),
            InstrKind::SetGuard(self.ret_flag, flag_value(false)),
            f.line,
        );
        let mut ctx = Ctx::new();
        self.block(&f.body, &mut ctx)
    }

    fn finish(self) -> GclFunction {
        let mut func = self.f.clone();
        func.vars = self.vars;
        GclFunction {
            name: func.name.clone(),
            func,
            guards: self.guards,
            instrs: self.instrs,
            labels: self.labels,
            retval: self.retval,
            ret_flag: self.ret_flag,
        }
    }

    fn new_guard(&mut self, name: String, kind: GuardKind, line: Line) -> GuardId {
        self.guards.push(GuardInfo { name, kind, line });
        GuardId::new(self.guards.len() - 1)
    }

    fn new_cond(&mut self, line: Line) -> GuardId {
        self.n_cond += 1;
        self.new_guard(format!("g{}", self.n_cond), GuardKind::Cond, line)
    }

    /// Append a variable with a name not used by any other variable of the function.
    fn new_var(&mut self, base: &str, ty: CType, kind: VarKind, line: Line) -> VarId {
        let mut name = base.to_string();
        let mut n = 1;
        while self.vars.iter().any(|v| v.name == name) {
            n += 1;
            name = format!("{base}#{n}");
        }
        self.vars.push(VarInfo {
            name,
            ty,
            kind,
            addr_taken: false,
            volatile: false,
            line,
        });
        VarId::new(self.vars.len() - 1)
    }

    fn new_label(&mut self) -> Label {
        self.labels.push(usize::MAX);
        Label::new(self.labels.len() - 1)
    }

    fn place_label(&mut self, l: Label) {
        self.labels[l.index()] = self.instrs.len();
    }

    fn emit(&mut self, ctx: &Ctx, kind: InstrKind, line: Line) {
        self.instrs.push(Instr {
            guard: Guard(ctx.clone()),
            kind,
            line,
        });
    }

    fn set_flag(&mut self, ctx: &Ctx, g: GuardId, value: bool, line: Line) {
        self.emit(ctx, InstrKind::SetGuard(g, flag_value(value)), line);
    }

    fn block(&mut self, stmts: &[Stmt], ctx: &mut Ctx) -> crate::Result<()> {
        for s in stmts {
            self.stmt(s, ctx)?;
        }
        Ok(())
    }

    fn stmt(&mut self, s: &Stmt, ctx: &mut Ctx) -> crate::Result<()> {
        let line = s.line;
        match &s.kind {
            StmtKind::Assign(p, e) => self.emit(ctx, InstrKind::Assign(p.clone(), e.clone()), line),
            StmtKind::Havoc(p) => self.emit(ctx, InstrKind::Havoc(p.clone()), line),
            StmtKind::ZeroFill(p) => self.emit(ctx, InstrKind::ZeroFill(p.clone()), line),
            StmtKind::Call { dest, callee, args } => {
                let kind = InstrKind::Call {
                    dest: dest.clone(),
                    callee: callee.clone(),
                    args: args.clone(),
                };
                self.emit(ctx, kind, line)
            }
            StmtKind::Block(b) => self.block(b, ctx)?,
            StmtKind::If { cond, then_, else_ } => {
                let g = self.new_cond(line);
                self.emit(ctx, InstrKind::SetGuard(g, cond.clone()), line);
                let base = ctx.len() + 1;
                let mut t = ctx.clone();
                t.push(pos(g));
                self.block(then_, &mut t)?;
                let mut e = ctx.clone();
                e.push(neg(g));
                self.block(else_, &mut e)?;
                absorb(ctx, &t[base..], None);
                absorb(ctx, &e[base..], None);
            }
            StmtKind::Loop {
                kind,
                pre,
                cond,
                body,
                step,
            } => self.flatten_loop(*kind, pre, cond, body, step, ctx, line)?,
            StmtKind::Switch { value, body } => self.flatten_switch(value, body, ctx, line)?,
            StmtKind::Break => {
                let Some(t) = self.targets.last() else {
                    return Err(err(line, "`break` outside a loop or switch"));
                };
                // The pre-scan created the flag for every construct whose body breaks.
                let Some(brk) = t.brk else {
                    return Err(err(line, "internal: break flag missing"));
                };
                self.set_flag(ctx, brk, true, line);
                add_flag(ctx, brk);
            }
            StmtKind::Continue => {
                let Some(t) = self.targets.iter().rev().find(|t| t.is_loop) else {
                    return Err(err(line, "`continue` outside a loop"));
                };
                let Some(cont) = t.cont else {
                    return Err(err(line, "internal: continue flag missing"));
                };
                self.set_flag(ctx, cont, true, line);
                add_flag(ctx, cont);
            }
            StmtKind::Return(e) => {
                // `return e;` in a void function (e.g. `return (void)x;`): e is side-effect
                // free, nothing to keep.
                if let (Some(e), Some(rv)) = (e, self.retval) {
                    self.emit(ctx, InstrKind::Assign(Place::Var(rv), e.clone()), line);
                }
                let ret = self.ret_flag;
                self.set_flag(ctx, ret, true, line);
                add_flag(ctx, ret);
            }
            StmtKind::Label(name) => {
                if self.label_info.contains_key(name) {
                    return Err(err(line, format!("duplicate label `{name}`")));
                }
                let l = self.new_label();
                self.place_label(l);
                let flags = self
                    .targets
                    .iter()
                    .flat_map(|t| {
                        [t.brk, t.cont]
                            .into_iter()
                            .flatten()
                            .map(move |g| (t.id, g))
                    })
                    .collect();
                self.label_info.insert(
                    name.clone(),
                    LabelInfo {
                        label: l,
                        ctx: ctx.clone(),
                        flags,
                    },
                );
            }
            StmtKind::Goto(name) => {
                let Some(known) = self.known else {
                    // Pass 1: the jump's fix-ups are unknown yet and nothing depends on them.
                    self.emit(ctx, InstrKind::Goto(Label(0)), line);
                    return Ok(());
                };
                let Some(info) = known.get(name) else {
                    return Err(err(line, format!("`goto {name}`: label not defined")));
                };
                // Make the label's context true. Literals already in the jump's own context hold
                // there; flags of constructs enclosing both ends are 0 already (see LabelInfo).
                let mut sets: Vec<Lit> = Vec::new();
                for lit in &info.ctx {
                    if !ctx.contains(lit) && !sets.contains(lit) {
                        sets.push(*lit);
                    }
                }
                for &(id, g) in &info.flags {
                    let lit = neg(g);
                    if self.targets.iter().all(|t| t.id != id)
                        && !ctx.contains(&lit)
                        && !sets.contains(&lit)
                    {
                        sets.push(lit);
                    }
                }
                for lit in sets {
                    self.set_flag(ctx, lit.guard, lit.positive, line);
                }
                self.emit(ctx, InstrKind::Goto(info.label), line);
            }
        }
        Ok(())
    }

    /// Create the `brkK`/`contK` flags a construct's body needs.
    fn construct_flags(
        &mut self,
        need_brk: bool,
        need_cont: bool,
        line: Line,
    ) -> (u32, Option<GuardId>, Option<GuardId>) {
        self.n_construct += 1;
        let k = self.n_construct;
        let brk = need_brk.then(|| self.new_guard(format!("brk{k}"), GuardKind::Break, line));
        let cont = need_cont.then(|| self.new_guard(format!("cont{k}"), GuardKind::Continue, line));
        (k, brk, cont)
    }

    /// A loop, with G' the context at the loop:
    /// ```text
    /// [G'] brkK := 0                       (only if the body breaks)
    /// L:   [G'] contK := 0                 (only if the body continues)
    /// while:    pre [G']; [G'] gN := cond; body [G' gN …]; step and goto [G' gN !brkK !ret]
    /// do-while: body [G' …]; step, pre and gN := cond [G' !brkK !ret]; goto [G' gN !brkK !ret]
    /// ```
    /// (`!ret` only where a return in the body may have happened.)
    #[allow(clippy::too_many_arguments)]
    fn flatten_loop(
        &mut self,
        kind: LoopKind,
        pre: &[Stmt],
        cond: &Expr,
        body: &[Stmt],
        step: &[Stmt],
        ctx: &mut Ctx,
        line: Line,
    ) -> crate::Result<()> {
        let (id, brk, cont) = self.construct_flags(has_break(body), has_continue(body), line);
        let ret = self.ret_flag;
        let ret_known = ctx.contains(&neg(ret));
        if let Some(b) = brk {
            self.set_flag(ctx, b, false, line);
        }
        let head = self.new_label();
        self.place_label(head);
        let g0 = ctx.clone();
        if let Some(c) = cont {
            self.set_flag(&g0, c, false, line);
        }
        // Flags set by `pre`/`step` (none in practice: they hold lowered side effects only) do
        // not leak out of them.
        let target = Target {
            id,
            is_loop: true,
            brk,
            cont,
        };
        match kind {
            LoopKind::While => {
                self.block(pre, &mut g0.clone())?;
                let g = self.new_cond(line);
                self.emit(&g0, InstrKind::SetGuard(g, cond.clone()), line);
                let mut b = g0.clone();
                b.push(pos(g));
                self.targets.push(target);
                let res = self.block(body, &mut b);
                self.targets.pop();
                res?;
                let may_ret = !ret_known && b.contains(&neg(ret));
                let mut tail = g0.clone();
                tail.push(pos(g));
                tail.extend(brk.map(neg));
                if may_ret {
                    tail.push(neg(ret));
                }
                self.block(step, &mut tail.clone())?;
                self.emit(&tail, InstrKind::Goto(head), line);
                if may_ret {
                    add_flag(ctx, ret);
                }
            }
            LoopKind::DoWhile => {
                let mut b = g0.clone();
                self.targets.push(target);
                let res = self.block(body, &mut b);
                self.targets.pop();
                res?;
                let may_ret = !ret_known && b.contains(&neg(ret));
                let mut tail = g0.clone();
                tail.extend(brk.map(neg));
                if may_ret {
                    tail.push(neg(ret));
                }
                self.block(step, &mut tail.clone())?;
                self.block(pre, &mut tail.clone())?;
                let g = self.new_cond(line);
                self.emit(&tail, InstrKind::SetGuard(g, cond.clone()), line);
                let mut jump = tail.clone();
                // Keep the spec's literal order: G' ∧ gN ∧ ¬brk ∧ ¬ret.
                jump.insert(g0.len(), pos(g));
                self.emit(&jump, InstrKind::Goto(head), line);
                if may_ret {
                    add_flag(ctx, ret);
                }
            }
        }
        Ok(())
    }

    fn flatten_switch(
        &mut self,
        value: &Expr,
        body: &[SwitchItem],
        ctx: &mut Ctx,
        line: Line,
    ) -> crate::Result<()> {
        let stmts: Vec<Stmt> = body
            .iter()
            .filter_map(|i| match i {
                SwitchItem::Stmt(s) => Some(s.clone()),
                _ => None,
            })
            .collect();
        let (id, brk, _) = self.construct_flags(has_break(&stmts), false, line);
        let ty = value.ty.clone();
        let t = match value.kind {
            ExprKind::Var(v) => v,
            _ => {
                let v = self.new_var(&format!("switch{id}"), ty.clone(), VarKind::Temp, line);
                self.emit(ctx, InstrKind::Assign(Place::Var(v), value.clone()), line);
                v
            }
        };
        let tv = Expr::var(t, ty.clone());
        let sw = self.new_guard(format!("sw{id}"), GuardKind::Cond, line);
        self.set_flag(ctx, sw, false, line);
        if let Some(b) = brk {
            self.set_flag(ctx, b, false, line);
        }
        // `default` matches when no case of the whole switch does, wherever it stands.
        let tests: Vec<Expr> = body
            .iter()
            .filter_map(|i| match i {
                SwitchItem::Case(lo, hi) => Some(case_test(&tv, *lo, *hi)),
                SwitchItem::CaseExpr(e) => Some(case_expr_test(&tv, e)),
                _ => None,
            })
            .collect();
        let any_case = any_of(&tests);
        let default_test = match any_case {
            Some(e) => Expr::new(ExprKind::Unary(UnOp::LogNot, Box::new(e)), CType::INT),
            None => flag_value(true),
        };
        let mut test_ctx = ctx.clone();
        test_ctx.push(neg(sw));
        let mut b = ctx.clone();
        b.push(pos(sw));
        let base = b.len();
        self.targets.push(Target {
            id,
            is_loop: false,
            brk,
            cont: None,
        });
        let mut res = Ok(());
        for (i, item) in body.iter().enumerate() {
            // A case test has no line of its own: use the statement it labels.
            let item_line = body[i..]
                .iter()
                .find_map(|it| match it {
                    SwitchItem::Stmt(s) => Some(s.line),
                    _ => None,
                })
                .unwrap_or(line);
            match item {
                SwitchItem::Case(lo, hi) => self.emit(
                    &test_ctx,
                    InstrKind::SetGuard(sw, case_test(&tv, *lo, *hi)),
                    item_line,
                ),
                SwitchItem::CaseExpr(e) => self.emit(
                    &test_ctx,
                    InstrKind::SetGuard(sw, case_expr_test(&tv, e)),
                    item_line,
                ),
                SwitchItem::Default => {
                    // After the last case label, `[!sw]` already says that no case matched
                    // (each was tested under it, on the value it had before any body ran): the
                    // test is `true`, which the analysis needs no disequality to see.
                    let last = !body[i..]
                        .iter()
                        .any(|it| matches!(it, SwitchItem::Case(..) | SwitchItem::CaseExpr(_)));
                    let test = if last {
                        flag_value(true)
                    } else {
                        default_test.clone()
                    };
                    self.emit(&test_ctx, InstrKind::SetGuard(sw, test), item_line)
                }
                SwitchItem::Stmt(s) => {
                    res = self.stmt(s, &mut b);
                    if res.is_err() {
                        break;
                    }
                }
            }
        }
        self.targets.pop();
        res?;
        absorb(ctx, &b[base..], brk);
        Ok(())
    }
}

/// Constant guard value for flags (`ret := 0`, `brk1 := 1`).
fn flag_value(v: bool) -> Expr {
    Expr::int(i128::from(v), CType::INT)
}

/// `t == e` for a case label read from an opaque global.
fn case_expr_test(t: &Expr, e: &Expr) -> Expr {
    Expr::new(
        ExprKind::Binary(BinOp::Eq, Box::new(t.clone()), Box::new(e.clone())),
        CType::INT,
    )
}

/// `t == lo`, or `lo <= t && t <= hi` for a GNU case range.
fn case_test(t: &Expr, lo: i128, hi: i128) -> Expr {
    let cmp = |op, a: Expr, b: Expr| {
        Expr::new(ExprKind::Binary(op, Box::new(a), Box::new(b)), CType::INT)
    };
    let c = |v| Expr::int(v, t.ty.clone());
    if lo == hi {
        cmp(BinOp::Eq, t.clone(), c(lo))
    } else {
        let a = cmp(BinOp::Le, c(lo), t.clone());
        let b = cmp(BinOp::Le, t.clone(), c(hi));
        Expr::new(
            ExprKind::Logic(LogicOp::And, Box::new(a), Box::new(b)),
            CType::INT,
        )
    }
}

/// The disjunction of `tests`, as a balanced tree so that a switch with thousands of cases does
/// not give an expression thousands of levels deep (evaluators and printers recurse on it).
fn any_of(tests: &[Expr]) -> Option<Expr> {
    match tests {
        [] => None,
        [one] => Some(one.clone()),
        _ => {
            let (l, r) = tests.split_at(tests.len() / 2);
            let (l, r) = (any_of(l)?, any_of(r)?);
            Some(Expr::new(
                ExprKind::Logic(LogicOp::Or, Box::new(l), Box::new(r)),
                CType::INT,
            ))
        }
    }
}

/// Note that flag `g` may be set from here on.
fn add_flag(ctx: &mut Ctx, g: GuardId) {
    let l = neg(g);
    if !ctx.contains(&l) {
        ctx.push(l);
    }
}

/// Carry flag literals that a nested block added (`added`) to the enclosing context, except the
/// nested construct's own `brk` flag, which means nothing after the construct.
fn absorb(ctx: &mut Ctx, added: &[Lit], own: Option<GuardId>) {
    for lit in added {
        if Some(lit.guard) != own && !ctx.contains(lit) {
            ctx.push(*lit);
        }
    }
}

/// Does a `break` in `body` target the construct owning `body`? (Not one inside a nested loop
/// or switch.)
fn has_break(body: &[Stmt]) -> bool {
    body.iter().any(|s| match &s.kind {
        StmtKind::Break => true,
        StmtKind::If { then_, else_, .. } => has_break(then_) || has_break(else_),
        StmtKind::Block(b) => has_break(b),
        _ => false,
    })
}

/// Does a `continue` in `body` target the loop owning `body`? (`continue` passes through a
/// nested switch but not a nested loop.)
fn has_continue(body: &[Stmt]) -> bool {
    body.iter().any(|s| match &s.kind {
        StmtKind::Continue => true,
        StmtKind::If { then_, else_, .. } => has_continue(then_) || has_continue(else_),
        StmtKind::Block(b) => has_continue(b),
        StmtKind::Switch { body, .. } => body.iter().any(|i| match i {
            SwitchItem::Stmt(s) => has_continue(std::slice::from_ref(s)),
            _ => false,
        }),
        _ => false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gcl::print_function;
    use crate::gcl::testutil::*;

    fn text(p: &crate::gcl::GclProgram) -> String {
        let mut s = String::new();
        for f in &p.functions {
            print_function(&mut s, f, &p.program);
        }
        s
    }

    #[test]
    fn sign_prints_as_documented() {
        let p = prog(vec![sign()]);
        let expected = "\
int sign(int x)
  3:        ret := 0
  4:        g1 := x < 0
  5: [g1]   sgn := -1
  7: [!g1]  sgn := 1
  8:        retval := sgn
  8:        ret := 1
";
        assert_eq!(text(&p), expected);
        let f = &p.functions[0];
        assert_eq!(
            f.func.vars.last().map(|v| (v.name.as_str(), v.kind)),
            Some(("retval", VarKind::Retval))
        );
        assert_eq!(f.retval, Some(VarId::new(2)));
        assert_eq!(f.guard(f.ret_flag).kind, GuardKind::Return);
    }

    #[test]
    fn loop_flags_and_guards() {
        let p = prog(vec![loop_fn()]);
        let t = text(&p);
        for line in [
            "  3:                          brk1 := 0",
            "     L1:",
            "  3:                          cont1 := 0",
            "  4: [g1 && g2]               cont1 := 1",
            "  5: [g1 && !cont1]           g3 := i > 50",
            "  6: [g1 && !cont1 && !brk1]  s := s + i",
            "  3: [g1 && !brk1]            i := i + 1",
            "  3: [g1 && !brk1]            goto L1",
            "  8:                          retval := s",
        ] {
            assert!(t.lines().any(|l| l == line), "missing {line:?} in\n{t}");
        }
    }

    #[test]
    fn return_guards_what_follows_only() {
        let p = prog(vec![fact()]);
        let f = &p.functions[0];
        let ret = f.ret_flag;
        let has_not_ret = |i: usize| f.instrs[i].guard.0.contains(&super::neg(ret));
        // ret := 0; g1 := n <= 1; [g1] retval := 1; [g1] ret := 1; then three under !ret.
        assert_eq!(f.instrs.len(), 7);
        assert!((0..4).all(|i| !has_not_ret(i)));
        assert!((4..7).all(has_not_ret));
    }

    /// A `default` after the last case label is taken whenever it is reached: its test is
    /// `1`, not the negation of every case (which needs a disequality the domains may lose).
    #[test]
    fn a_default_after_every_case_needs_no_test() {
        let mut b = FnBuilder::new("sw", CType::INT);
        let x = b.param("x", CType::INT);
        let y = b.param("y", CType::INT);
        let f = b.body(vec![
            st(
                2,
                StmtKind::Switch {
                    value: x.clone(),
                    body: vec![
                        SwitchItem::CaseExpr(y.clone()),
                        SwitchItem::Stmt(ret(3, Some(int(8)))),
                        SwitchItem::Default,
                        SwitchItem::Stmt(ret(4, Some(int(4)))),
                    ],
                },
            ),
            ret(5, Some(int(0))),
        ]);
        let t = text(&prog(vec![f]));
        assert!(t.contains("[!sw1]         sw1 := 1"), "{t}");
        assert!(!t.contains("!(x == y)"), "{t}");
    }

    #[test]
    fn switch_default_tests_all_cases() {
        let p = prog(vec![switch_fn()]);
        let t = text(&p);
        let default = "sw1 := !(switch1 == 1 || switch1 == 2 || switch1 == 5 \
                       || 7 <= switch1 && switch1 <= 9)";
        assert!(t.contains(default), "{t}");
        assert!(
            t.contains("  8: [!sw1]          sw1 := 7 <= switch1 && switch1 <= 9"),
            "{t}"
        );
        let f = &p.functions[0];
        assert!(f
            .func
            .vars
            .iter()
            .any(|v| v.name == "switch1" && v.kind == VarKind::Temp));
    }

    #[test]
    fn goto_fixups_make_the_label_context_true() {
        // if (a > 0) goto inelse; if (a < -10) r = 1; else { inelse: r = r + 10; }
        let mut b = FnBuilder::new("k", CType::INT);
        let a = b.param("a", CType::INT);
        let r = b.local("r", CType::INT);
        let f = b.body(vec![
            if_(
                2,
                bin(BinOp::Gt, &a, &int(0)),
                vec![st(2, StmtKind::Goto("inelse".into()))],
                vec![],
            ),
            if_(
                3,
                bin(BinOp::Lt, &a, &int(-10)),
                vec![assign(3, pl(&r), int(1))],
                vec![
                    st(4, StmtKind::Label("inelse".into())),
                    assign(4, pl(&r), bin(BinOp::Add, &r, &int(10))),
                ],
            ),
            ret(5, Some(r.clone())),
        ]);
        let p = prog(vec![f]);
        let t = text(&p);
        assert!(
            t.contains("  2: [g1]   g2 := 0\n  2: [g1]   goto L1\n"),
            "{t}"
        );
    }

    fn flatten_err(body: Vec<Stmt>) -> crate::Error {
        let f = FnBuilder::new("e", CType::Void).body(body);
        flatten_function(&f).unwrap_err()
    }

    #[test]
    fn errors_name_the_line() {
        let e = flatten_err(vec![st(7, StmtKind::Break)]);
        assert_eq!(
            (e.line, e.msg.as_str()),
            (Some(7), "`break` outside a loop or switch")
        );
        let e = flatten_err(vec![
            while_(2, int(1), vec![], vec![]),
            st(8, StmtKind::Continue),
        ]);
        assert_eq!(e.line, Some(8));
        let e = flatten_err(vec![st(9, StmtKind::Goto("nowhere".into()))]);
        assert_eq!(
            (e.line, e.msg.as_str()),
            (Some(9), "`goto nowhere`: label not defined")
        );
        let e = flatten_err(vec![
            st(3, StmtKind::Label("x".into())),
            st(4, StmtKind::Label("x".into())),
        ]);
        assert_eq!(e.line, Some(4));
        // flatten_program adds the file name.
        let f = FnBuilder::new("e", CType::Void).body(vec![st(7, StmtKind::Break)]);
        let p = crate::ir::Program {
            file: "t.c".into(),
            functions: vec![f],
            ..Default::default()
        };
        assert_eq!(
            crate::gcl::flatten_program(p).unwrap_err().to_string(),
            "t.c:7: `break` outside a loop or switch"
        );
    }
}
