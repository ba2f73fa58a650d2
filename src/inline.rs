//! Inlining of changed callees into their callers (client-specific impact, after CLEVER).
//!
//! Takes an [`ir::Program`](crate::ir::Program) as the frontend gives it, the functions to rewrite
//! (the *clients* being analysed) and the functions whose calls should be inlined (those whose
//! code changed, directly or through their own callees); gives a new `Program` in which those
//! calls are replaced by the callee's body, plus per client what was inlined and what was not.
//! It sits between the frontend and GCL flattening, applied to each version separately by the
//! `diff` driver; the witness search still runs the original programs, so a `different` verdict
//! is validated on the code the user wrote.
//!
//! The rewrite of `d = g(a1, …, an)` is plain C semantics spelled out in IR:
//! * every callee variable gets a fresh caller variable named `g@K.x` (`K` numbers the inlined
//!   calls of `g` under the same parent, so both versions of an unchanged client give the same
//!   names at the same call sites and the correlator pairs them); parameters become locals
//!   assigned from the (already converted) arguments;
//! * globals — static locals included, which the frontend turns into globals named `g.x` — stay
//!   shared: the callee's global variable maps to the caller's variable of the same global;
//! * `return e` becomes an assignment to a result temporary `g@K.ret`, copied to `d` after the
//!   body. Control that must skip the rest of the body is expressed with structured statements
//!   only (no `goto`: the correlator keeps forward jumps as opaque blocks it cannot align): a
//!   guard-clause `if (c) { …; return a; } rest` becomes `if (c) { …; ret = a; } else { rest }`,
//!   other early returns set a flag `g@K.done` and the statements after them run under
//!   `if (!done)`, and a return inside a loop or `switch` of the callee also `break`s out, with
//!   `if (done) break;` after each enclosing loop or switch of the callee.
//!
//! Calls are not inlined (they stay calls, which the analysis treats soundly as unknown results
//! and effects) when the callee is recursive (already being inlined on the current path more
//! than [`Options::unfold`] times: a recursive call is unfolded once by default), when the
//! depth bound is reached, when it is variadic, takes or returns an array or an incomplete struct,
//! or uses `goto`; the reason is recorded for the report. Structs pass by value as whole-struct
//! assignments.

use std::collections::{BTreeSet, HashMap};

use crate::gcl::GclProgram;
use crate::ir::{
    CType, Callee, Expr, ExprKind, Function, Line, Place, Program, Stmt, StmtKind, SwitchItem,
    UnOp, VarId, VarInfo, VarKind,
};

/// How far to inline.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Options {
    /// Nesting depth of inlined calls: 1 inlines only the client's own calls.
    pub max_depth: u32,
    /// Statements that may be inlined into one client in total (fan-out over several levels
    /// would otherwise grow the code exponentially).
    pub max_stmts: usize,
    /// How many times a recursive call is unfolded on one path (the function's own body
    /// inlined into itself): the base cases of the next level become visible, which is what
    /// a proof by induction on the recursion needs when the versions' base cases differ.
    #[serde(default = "one")]
    pub unfold: u32,
}

fn one() -> u32 {
    1
}

impl Default for Options {
    fn default() -> Self {
        Options {
            max_depth: 3,
            max_stmts: 5000,
            unfold: 1,
        }
    }
}

/// What inlining did to one client function.
#[derive(Clone, Debug, Default)]
pub struct Outcome {
    /// Callees whose bodies were inlined somewhere in the client (transitively).
    pub inlined: BTreeSet<String>,
    /// Calls to changed functions that stayed calls, and why.
    pub notes: Vec<String>,
}

/// A program with some calls inlined, and what happened per client.
#[derive(Clone, Debug)]
pub struct Inlined {
    pub program: Program,
    pub outcomes: HashMap<String, Outcome>,
}

/// Rewrite each function of `prog` named in `clients`, inlining its calls (and, up to the depth
/// bound, the calls of inlined bodies) to the functions in `targets` that `prog` defines.
pub fn inline_program(
    prog: &Program,
    clients: &BTreeSet<String>,
    targets: &BTreeSet<String>,
    opts: &Options,
) -> Inlined {
    let mut program = prog.clone();
    let mut outcomes = HashMap::new();
    for f in program.functions.iter_mut() {
        if !clients.contains(&f.name) {
            continue;
        }
        let mut inl = Inliner {
            prog,
            targets,
            opts,
            vars: std::mem::take(&mut f.vars),
            names: Default::default(),
            counters: HashMap::new(),
            stack: vec![f.name.clone()],
            size: 0,
            outcome: Outcome::default(),
        };
        inl.names = inl.vars.iter().map(|v| v.name.clone()).collect();
        let body = std::mem::take(&mut f.body);
        f.body = inl.calls(body, 0, "");
        f.vars = inl.vars;
        outcomes.insert(f.name.clone(), inl.outcome);
    }
    Inlined { program, outcomes }
}

struct Inliner<'a> {
    prog: &'a Program,
    targets: &'a BTreeSet<String>,
    opts: &'a Options,
    /// The client's variables, growing as bodies are inlined.
    vars: Vec<VarInfo>,
    names: BTreeSet<String>,
    /// Inlined calls so far per (parent prefix, callee).
    counters: HashMap<(String, String), u32>,
    /// Functions being inlined on the current path, the client first.
    stack: Vec<String>,
    /// Statements inlined so far.
    size: usize,
    outcome: Outcome,
}

impl Inliner<'_> {
    fn new_var(&mut self, name: String, ty: CType, kind: VarKind, addr: bool, line: Line) -> VarId {
        let mut unique = name.clone();
        let mut k = 2;
        while self.names.contains(&unique) {
            unique = format!("{name}#{k}");
            k += 1;
        }
        self.names.insert(unique.clone());
        self.vars.push(VarInfo {
            name: unique,
            ty,
            kind,
            addr_taken: addr,
            volatile: false,
            line,
        });
        VarId::new(self.vars.len() - 1)
    }

    /// Rewrite the calls of a statement list. `depth` is the nesting of inlined bodies the list
    /// belongs to (0: the client's own body), `prefix` names that body's variables.
    fn calls(&mut self, list: Vec<Stmt>, depth: u32, prefix: &str) -> Vec<Stmt> {
        let mut out = Vec::with_capacity(list.len());
        for s in list {
            let line = s.line;
            let kind = match s.kind {
                StmtKind::Call {
                    dest,
                    callee: Callee::Direct(name),
                    args,
                } => {
                    match self.inline_call(&dest, &name, &args, line, depth, prefix) {
                        Some(body) => out.extend(body),
                        None => out.push(Stmt {
                            kind: StmtKind::Call {
                                dest,
                                callee: Callee::Direct(name),
                                args,
                            },
                            line,
                        }),
                    }
                    continue;
                }
                StmtKind::If { cond, then_, else_ } => StmtKind::If {
                    cond,
                    then_: self.calls(then_, depth, prefix),
                    else_: self.calls(else_, depth, prefix),
                },
                StmtKind::Loop {
                    kind,
                    pre,
                    cond,
                    body,
                    step,
                } => StmtKind::Loop {
                    kind,
                    pre: self.calls(pre, depth, prefix),
                    cond,
                    body: self.calls(body, depth, prefix),
                    step: self.calls(step, depth, prefix),
                },
                StmtKind::Switch { value, body } => StmtKind::Switch {
                    value,
                    body: body
                        .into_iter()
                        .map(|it| match it {
                            SwitchItem::Stmt(s) => {
                                let line = s.line;
                                let mut v = self.calls(vec![s], depth, prefix);
                                // Case labels stay direct items of the switch: several
                                // statements go into one block.
                                SwitchItem::Stmt(if v.len() == 1 {
                                    v.remove(0)
                                } else {
                                    Stmt {
                                        kind: StmtKind::Block(v),
                                        line,
                                    }
                                })
                            }
                            other => other,
                        })
                        .collect(),
                },
                StmtKind::Block(b) => StmtKind::Block(self.calls(b, depth, prefix)),
                other => other,
            };
            out.push(Stmt { kind, line });
        }
        out
    }

    /// Why a call to `g` cannot be inlined, if it cannot.
    fn refusal(&self, g: &Function, args: &[Expr], depth: u32) -> Option<String> {
        let nargs = args.len();
        // Only the client's own recursion is unfolded: that is the induction the analysis can
        // use (`INDUCTION`); other recursion stays a call.
        let on_path = self.stack.iter().filter(|n| **n == g.name).count();
        if on_path > 0 && self.stack[0] != g.name {
            return Some("recursive call".into());
        }
        if on_path > self.opts.unfold as usize {
            return Some(format!(
                "recursive call, unfolded {} time(s) above it",
                self.opts.unfold
            ));
        }
        if depth >= self.opts.max_depth {
            return Some(format!(
                "inlining depth bound {} reached",
                self.opts.max_depth
            ));
        }
        if g.variadic || g.params.len() != nargs {
            return Some("variadic or mismatched arguments".into());
        }
        // Structs by value are copied whole (`param = arg`, `dest = result`): only between
        // values of the one struct type, which C's own argument passing guarantees.
        let by_value = |t: &CType| {
            t.is_scalar()
                || matches!(t, CType::Struct(s)
                    if self.prog.structs.get(s.index()).is_some_and(|d| d.complete))
        };
        if !g
            .params
            .iter()
            .zip(args)
            .all(|(p, a)| by_value(&g.var(*p).ty) && (a.ty.is_scalar() || a.ty == g.var(*p).ty))
            || !(g.ret == CType::Void || by_value(&g.ret))
        {
            return Some("takes or returns an array or a struct of another type".into());
        }
        if uses_goto(&g.body) {
            return Some("uses goto".into());
        }
        if self.size + count_stmts(&g.body) > self.opts.max_stmts {
            return Some(format!(
                "inlining size budget of {} statements reached",
                self.opts.max_stmts
            ));
        }
        None
    }

    fn inline_call(
        &mut self,
        dest: &Option<Place>,
        name: &str,
        args: &[Expr],
        line: Line,
        depth: u32,
        prefix: &str,
    ) -> Option<Vec<Stmt>> {
        if !self.targets.contains(name) {
            return None;
        }
        let prog = self.prog;
        let g = prog.function(name)?;
        if let Some(why) = self.refusal(g, args, depth) {
            let note = format!(
                "call to changed function `{name}` at line {line} not inlined ({why}): treated as an unknown call"
            );
            if !self.outcome.notes.contains(&note) {
                self.outcome.notes.push(note);
            }
            return None;
        }
        self.size += count_stmts(&g.body);
        let k = {
            let c = self
                .counters
                .entry((prefix.to_string(), name.to_string()))
                .or_insert(0);
            *c += 1;
            *c
        };
        let here = if prefix.is_empty() {
            format!("{name}@{k}")
        } else {
            format!("{prefix}.{name}@{k}")
        };
        // Callee variable → client variable.
        let mut map: Vec<VarId> = Vec::with_capacity(g.vars.len());
        for (i, v) in g.vars.iter().enumerate() {
            let id = match v.kind {
                VarKind::Global(gid) => {
                    let found = self
                        .vars
                        .iter()
                        .position(|w| w.kind == VarKind::Global(gid))
                        .map(VarId::new);
                    match found {
                        Some(w) => {
                            self.vars[w.index()].addr_taken |= v.addr_taken;
                            w
                        }
                        None => {
                            self.new_var(v.name.clone(), v.ty.clone(), v.kind, v.addr_taken, v.line)
                        }
                    }
                }
                kind => {
                    let kind = if g.params.contains(&VarId::new(i)) || kind == VarKind::Param {
                        VarKind::Local
                    } else {
                        kind
                    };
                    self.new_var(
                        format!("{here}.{}", v.name),
                        v.ty.clone(),
                        kind,
                        v.addr_taken,
                        v.line,
                    )
                }
            };
            map.push(id);
        }
        let res = (g.ret != CType::Void).then(|| {
            self.new_var(
                format!("{here}.ret"),
                g.ret.clone(),
                VarKind::Temp,
                false,
                g.line,
            )
        });
        let body: Vec<Stmt> = g.body.iter().map(|s| rename_stmt(s, &map)).collect();
        let mut rx = Returns {
            res,
            ret_ty: g.ret.clone(),
            done: None,
            done_id: VarId::new(self.vars.len()),
            done_line: line,
        };
        let body = rx.list(&body, true);
        let done = rx.done;
        if done.is_some() {
            let d = self.new_var(
                format!("{here}.done"),
                CType::INT,
                VarKind::Temp,
                false,
                rx.done_line,
            );
            debug_assert_eq!(Some(d), done);
        }
        let mut out = vec![];
        for (p, a) in g.params.iter().zip(args) {
            let v = map[p.index()];
            let ty = self.vars[v.index()].ty.clone();
            out.push(Stmt {
                kind: StmtKind::Assign(Place::Var(v), cast(a.clone(), &ty)),
                line,
            });
        }
        if let Some(d) = done {
            out.push(Stmt {
                kind: StmtKind::Assign(Place::Var(d), Expr::int(0, CType::INT)),
                line,
            });
        }
        self.stack.push(name.to_string());
        let body = self.calls(body, depth + 1, &here);
        self.stack.pop();
        out.extend(body);
        // The client unfolded into itself: mark where its body ends, with the result and the
        // parameters as they were passed (none of them written by the body).
        if let (true, Some(r)) = (self.stack[0] == name, res) {
            let params: Vec<VarId> = g.params.iter().map(|p| map[p.index()]).collect();
            let untouched = g
                .params
                .iter()
                .all(|p| !g.vars[p.index()].addr_taken && !writes_var(&g.body, *p));
            if untouched && g.ret.is_scalar() && !g.ret.is_pointer() {
                let mut args = vec![Expr::var(r, g.ret.clone())];
                args.extend(
                    params
                        .iter()
                        .map(|v| Expr::var(*v, self.vars[v.index()].ty.clone())),
                );
                out.push(Stmt {
                    kind: StmtKind::Call {
                        dest: None,
                        callee: Callee::Direct(crate::ir::INDUCTION.to_string()),
                        args,
                    },
                    line,
                });
            }
        }
        if let (Some(d), Some(r)) = (dest, res) {
            let ty = self.place_ty(d);
            out.push(Stmt {
                kind: StmtKind::Assign(d.clone(), cast(Expr::var(r, g.ret.clone()), &ty)),
                line,
            });
        }
        self.outcome.inlined.insert(name.to_string());
        Some(out)
    }

    fn place_ty(&self, p: &Place) -> CType {
        match p {
            Place::Var(v) => self.vars[v.index()].ty.clone(),
            Place::Deref(_, t) | Place::Index(_, _, t) | Place::Field(_, _, _, t) => t.clone(),
        }
    }
}

fn cast(e: Expr, ty: &CType) -> Expr {
    if e.ty == *ty {
        e
    } else {
        Expr::new(ExprKind::Cast(Box::new(e)), ty.clone())
    }
}

fn count_stmts(list: &[Stmt]) -> usize {
    list.iter()
        .map(|s| {
            1 + match &s.kind {
                StmtKind::If { then_, else_, .. } => count_stmts(then_) + count_stmts(else_),
                StmtKind::Loop {
                    pre, body, step, ..
                } => count_stmts(pre) + count_stmts(body) + count_stmts(step),
                StmtKind::Switch { body, .. } => body
                    .iter()
                    .map(|it| match it {
                        SwitchItem::Stmt(s) => count_stmts(std::slice::from_ref(s)),
                        _ => 0,
                    })
                    .sum(),
                StmtKind::Block(b) => count_stmts(b),
                _ => 0,
            }
        })
        .sum()
}

/// Whether a statement of `list` assigns variable `v` (directly, as a call's destination, or by
/// a declaration without initializer).
fn writes_var(list: &[Stmt], v: VarId) -> bool {
    let hit = |p: &Place| p.root_var() == Some(v);
    list.iter().any(|s| match &s.kind {
        StmtKind::Assign(p, _) | StmtKind::Havoc(p) | StmtKind::ZeroFill(p) => hit(p),
        StmtKind::Call { dest, .. } => dest.as_ref().is_some_and(hit),
        StmtKind::If { then_, else_, .. } => writes_var(then_, v) || writes_var(else_, v),
        StmtKind::Loop {
            pre, body, step, ..
        } => writes_var(pre, v) || writes_var(body, v) || writes_var(step, v),
        StmtKind::Switch { body, .. } => body
            .iter()
            .any(|it| matches!(it, SwitchItem::Stmt(s) if writes_var(std::slice::from_ref(s), v))),
        StmtKind::Block(b) => writes_var(b, v),
        _ => false,
    })
}

fn uses_goto(list: &[Stmt]) -> bool {
    list.iter().any(|s| match &s.kind {
        StmtKind::Goto(_) | StmtKind::Label(_) => true,
        StmtKind::If { then_, else_, .. } => uses_goto(then_) || uses_goto(else_),
        StmtKind::Loop {
            pre, body, step, ..
        } => uses_goto(pre) || uses_goto(body) || uses_goto(step),
        StmtKind::Switch { body, .. } => body
            .iter()
            .any(|it| matches!(it, SwitchItem::Stmt(s) if uses_goto(std::slice::from_ref(s)))),
        StmtKind::Block(b) => uses_goto(b),
        _ => false,
    })
}

// ------------------------------------------------------------------------------------- renaming

fn rename_expr(e: &Expr, m: &[VarId]) -> Expr {
    let kind = match &e.kind {
        ExprKind::Var(v) => ExprKind::Var(m[v.index()]),
        ExprKind::Load(p) => ExprKind::Load(Box::new(rename_place(p, m))),
        ExprKind::AddrOf(p) => ExprKind::AddrOf(Box::new(rename_place(p, m))),
        ExprKind::Unary(op, a) => ExprKind::Unary(*op, Box::new(rename_expr(a, m))),
        ExprKind::Binary(op, a, b) => ExprKind::Binary(
            *op,
            Box::new(rename_expr(a, m)),
            Box::new(rename_expr(b, m)),
        ),
        ExprKind::Logic(op, a, b) => ExprKind::Logic(
            *op,
            Box::new(rename_expr(a, m)),
            Box::new(rename_expr(b, m)),
        ),
        ExprKind::Cast(a) => ExprKind::Cast(Box::new(rename_expr(a, m))),
        other => other.clone(),
    };
    Expr::new(kind, e.ty.clone())
}

fn rename_place(p: &Place, m: &[VarId]) -> Place {
    match p {
        Place::Var(v) => Place::Var(m[v.index()]),
        Place::Deref(e, t) => Place::Deref(rename_expr(e, m), t.clone()),
        Place::Index(b, i, t) => {
            Place::Index(Box::new(rename_place(b, m)), rename_expr(i, m), t.clone())
        }
        Place::Field(b, s, k, t) => Place::Field(Box::new(rename_place(b, m)), *s, *k, t.clone()),
    }
}

fn rename_list(l: &[Stmt], m: &[VarId]) -> Vec<Stmt> {
    l.iter().map(|s| rename_stmt(s, m)).collect()
}

fn rename_stmt(s: &Stmt, m: &[VarId]) -> Stmt {
    let kind = match &s.kind {
        StmtKind::Assign(p, e) => StmtKind::Assign(rename_place(p, m), rename_expr(e, m)),
        StmtKind::Havoc(p) => StmtKind::Havoc(rename_place(p, m)),
        StmtKind::ZeroFill(p) => StmtKind::ZeroFill(rename_place(p, m)),
        StmtKind::Call { dest, callee, args } => StmtKind::Call {
            dest: dest.as_ref().map(|d| rename_place(d, m)),
            callee: match callee {
                Callee::Direct(n) => Callee::Direct(n.clone()),
                Callee::Indirect(e) => Callee::Indirect(rename_expr(e, m)),
            },
            args: args.iter().map(|a| rename_expr(a, m)).collect(),
        },
        StmtKind::If { cond, then_, else_ } => StmtKind::If {
            cond: rename_expr(cond, m),
            then_: rename_list(then_, m),
            else_: rename_list(else_, m),
        },
        StmtKind::Loop {
            kind,
            pre,
            cond,
            body,
            step,
        } => StmtKind::Loop {
            kind: *kind,
            pre: rename_list(pre, m),
            cond: rename_expr(cond, m),
            body: rename_list(body, m),
            step: rename_list(step, m),
        },
        StmtKind::Return(e) => StmtKind::Return(e.as_ref().map(|e| rename_expr(e, m))),
        StmtKind::Switch { value, body } => StmtKind::Switch {
            value: rename_expr(value, m),
            body: body
                .iter()
                .map(|it| match it {
                    SwitchItem::Stmt(s) => SwitchItem::Stmt(rename_stmt(s, m)),
                    SwitchItem::CaseExpr(e) => SwitchItem::CaseExpr(rename_expr(e, m)),
                    other => other.clone(),
                })
                .collect(),
        },
        StmtKind::Block(b) => StmtKind::Block(rename_list(b, m)),
        other => other.clone(),
    };
    Stmt { kind, line: s.line }
}

// -------------------------------------------------------------------------------------- returns

/// Rewrites the `return`s of one (renamed) callee body into assignments and structured control.
struct Returns {
    res: Option<VarId>,
    ret_ty: CType,
    /// The "returned already" flag, used on first need; the inliner creates it afterwards with
    /// the id reserved in `done_id` (the next free one: nothing else is created in between).
    done: Option<VarId>,
    done_id: VarId,
    done_line: Line,
}

fn contains_return(list: &[Stmt]) -> bool {
    list.iter()
        .any(|s| stmt_returns(s, &|l| contains_return(l)))
}

/// Whether `s` contains a `return` (per `inner` for nested lists).
fn stmt_returns(s: &Stmt, inner: &dyn Fn(&[Stmt]) -> bool) -> bool {
    match &s.kind {
        StmtKind::Return(_) => true,
        StmtKind::If { then_, else_, .. } => inner(then_) || inner(else_),
        StmtKind::Loop { body, .. } => inner(body),
        StmtKind::Switch { body, .. } => body
            .iter()
            .any(|it| matches!(it, SwitchItem::Stmt(s) if inner(std::slice::from_ref(s)))),
        StmtKind::Block(b) => inner(b),
        _ => false,
    }
}

/// Whether control never leaves `list` by its end (it returns on every path that ends).
/// Only used outside loops and switches of the callee, where no `break` can leave the list.
fn never_falls_through(list: &[Stmt]) -> bool {
    list.iter().any(|s| match &s.kind {
        StmtKind::Return(_) => true,
        StmtKind::If { then_, else_, .. } => {
            never_falls_through(then_) && never_falls_through(else_)
        }
        StmtKind::Block(b) => never_falls_through(b),
        _ => false,
    })
}

/// Blocks only scope names, which are unique already: splice them into the list.
fn splice(list: &[Stmt], out: &mut Vec<Stmt>) {
    for s in list {
        match &s.kind {
            StmtKind::Block(b) => splice(b, out),
            _ => out.push(s.clone()),
        }
    }
}

fn st(kind: StmtKind, line: Line) -> Stmt {
    Stmt { kind, line }
}

impl Returns {
    fn done(&mut self, line: Line) -> VarId {
        if self.done.is_none() {
            self.done = Some(self.done_id);
            self.done_line = line;
        }
        self.done_id
    }

    fn set_done(&mut self, line: Line) -> Stmt {
        let d = self.done(line);
        st(
            StmtKind::Assign(Place::Var(d), Expr::int(1, CType::INT)),
            line,
        )
    }

    fn not_done(&mut self, line: Line) -> Expr {
        let d = self.done(line);
        Expr::new(
            ExprKind::Unary(UnOp::LogNot, Box::new(Expr::var(d, CType::INT))),
            CType::INT,
        )
    }

    fn assign_res(&self, e: &Option<Expr>, line: Line, out: &mut Vec<Stmt>) {
        if let (Some(r), Some(e)) = (self.res, e) {
            out.push(st(
                StmtKind::Assign(Place::Var(r), cast(e.clone(), &self.ret_ty)),
                line,
            ));
        }
    }

    /// A list outside the callee's loops and switches. `tail`: nothing of the callee runs after
    /// this list ends, so a `return` at its end needs no flag.
    fn list(&mut self, list: &[Stmt], tail: bool) -> Vec<Stmt> {
        let mut items = vec![];
        splice(list, &mut items);
        let mut out = vec![];
        for (i, s) in items.iter().enumerate() {
            let rest = &items[i + 1..];
            let line = s.line;
            match &s.kind {
                StmtKind::Return(e) => {
                    self.assign_res(e, line, &mut out);
                    if !tail {
                        let d = self.set_done(line);
                        out.push(d);
                    }
                    // What follows a return in the same list is dead (the callee has no labels).
                    return out;
                }
                StmtKind::If { cond, then_, else_ }
                    if contains_return(then_) || contains_return(else_) =>
                {
                    if rest.is_empty() {
                        let t = self.list(then_, tail);
                        let e = self.list(else_, tail);
                        out.push(st(if_(cond.clone(), t, e), line));
                    } else if never_falls_through(then_) {
                        // Guard clause: the rest runs only on the else path.
                        let mut e2 = else_.clone();
                        e2.extend(rest.iter().cloned());
                        let t = self.list(then_, tail);
                        let e = self.list(&e2, tail);
                        out.push(st(if_(cond.clone(), t, e), line));
                    } else if never_falls_through(else_) {
                        let mut t2 = then_.clone();
                        t2.extend(rest.iter().cloned());
                        let t = self.list(&t2, tail);
                        let e = self.list(else_, tail);
                        out.push(st(if_(cond.clone(), t, e), line));
                    } else {
                        let t = self.list(then_, false);
                        let e = self.list(else_, false);
                        out.push(st(if_(cond.clone(), t, e), line));
                        let r = self.list(rest, tail);
                        let c = self.not_done(line);
                        out.push(st(if_(c, r, vec![]), line));
                    }
                    return out;
                }
                StmtKind::Loop { .. } | StmtKind::Switch { .. }
                    if stmt_returns(s, &|l| contains_return(l)) =>
                {
                    out.push(self.construct(s));
                    if !rest.is_empty() {
                        let r = self.list(rest, tail);
                        let c = self.not_done(line);
                        out.push(st(if_(c, r, vec![]), line));
                    }
                    return out;
                }
                _ => out.push(s.clone()),
            }
        }
        out
    }

    /// A loop or switch of the callee that contains a return: its returns set the flag and break.
    fn construct(&mut self, s: &Stmt) -> Stmt {
        let kind = match &s.kind {
            StmtKind::Loop {
                kind,
                pre,
                cond,
                body,
                step,
            } => StmtKind::Loop {
                kind: *kind,
                pre: pre.clone(),
                cond: cond.clone(),
                body: body.iter().map(|x| self.in_construct(x)).collect(),
                step: step.clone(),
            },
            StmtKind::Switch { value, body } => StmtKind::Switch {
                value: value.clone(),
                body: body
                    .iter()
                    .map(|it| match it {
                        SwitchItem::Stmt(x) => SwitchItem::Stmt(self.in_construct(x)),
                        other => other.clone(),
                    })
                    .collect(),
            },
            other => other.clone(),
        };
        st(kind, s.line)
    }

    /// A statement inside a loop or switch of the callee.
    fn in_construct(&mut self, s: &Stmt) -> Stmt {
        let line = s.line;
        match &s.kind {
            StmtKind::Return(e) => {
                let mut v = vec![];
                self.assign_res(e, line, &mut v);
                v.push(self.set_done(line));
                v.push(st(StmtKind::Break, line));
                st(StmtKind::Block(v), line)
            }
            StmtKind::If { cond, then_, else_ } if stmt_returns(s, &|l| contains_return(l)) => {
                let t = then_.iter().map(|x| self.in_construct(x)).collect();
                let e = else_.iter().map(|x| self.in_construct(x)).collect();
                st(if_(cond.clone(), t, e), line)
            }
            StmtKind::Block(b) => st(
                StmtKind::Block(b.iter().map(|x| self.in_construct(x)).collect()),
                line,
            ),
            StmtKind::Loop { .. } | StmtKind::Switch { .. }
                if stmt_returns(s, &|l| contains_return(l)) =>
            {
                // The inner construct's break leaves only it; leave this one too.
                let inner = self.construct(s);
                let d = self.done(line);
                let leave = st(
                    if_(
                        Expr::var(d, CType::INT),
                        vec![st(StmtKind::Break, line)],
                        vec![],
                    ),
                    line,
                );
                st(StmtKind::Block(vec![inner, leave]), line)
            }
            _ => s.clone(),
        }
    }
}

fn if_(cond: Expr, then_: Vec<Stmt>, else_: Vec<Stmt>) -> StmtKind {
    StmtKind::If { cond, then_, else_ }
}

// ------------------------------------------------------------------------- for the diff driver

/// One version prepared for the analysis: the GCL of the program with changed callees inlined
/// into the clients (`None` when nothing was inlined, so the original serves), and what
/// happened per client.
#[derive(Default)]
pub struct Version {
    pub gcl: Option<GclProgram>,
    pub outcomes: HashMap<String, Outcome>,
}

/// Inline the calls of `clients` to `targets` in a loaded program and flatten the result again.
/// Flattening an inlined body cannot fail where the original flattened; should it anyway, the
/// original program is used and the clients say so in their notes.
pub fn inline_gcl(
    p: &GclProgram,
    clients: &BTreeSet<String>,
    targets: &BTreeSet<String>,
    opts: &Options,
) -> Version {
    let defined: BTreeSet<String> = targets
        .iter()
        .filter(|t| p.function(t).is_some())
        .cloned()
        .collect();
    let calls_target = |f: &crate::gcl::GclFunction| {
        f.instrs.iter().any(|i| {
            matches!(&i.kind, crate::gcl::InstrKind::Call { callee: Callee::Direct(n), .. } if defined.contains(n))
        })
    };
    let clients: BTreeSet<String> = p
        .functions
        .iter()
        .filter(|f| clients.contains(&f.name) && calls_target(f))
        .map(|f| f.name.clone())
        .collect();
    if clients.is_empty() {
        return Version {
            gcl: None,
            outcomes: HashMap::new(),
        };
    }
    let inl = inline_program(&p.program, &clients, &defined, opts);
    let mut outcomes = inl.outcomes;
    match crate::gcl::flatten_program(inl.program) {
        Ok(g) => Version {
            gcl: Some(g),
            outcomes,
        },
        Err(e) => {
            for o in outcomes.values_mut() {
                o.inlined.clear();
                o.notes.push(format!(
                    "inlining abandoned ({e}): changed callees are unknown calls"
                ));
            }
            Version {
                gcl: None,
                outcomes,
            }
        }
    }
}
