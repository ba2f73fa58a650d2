//! Hand-built IR for unit tests of the GCL and interpreter stages (no frontend needed).
//!
//! Takes builder calls; gives IR functions and their flattened [`GclProgram`]. It lives in `gcl`,
//! the earlier of the two stages that use it, so the flattener's tests need not import the
//! interpreter.

use crate::gcl::{flatten_program, GclProgram};
use crate::ir::*;

pub struct FnBuilder {
    f: Function,
}

impl FnBuilder {
    pub fn new(name: &str, ret: CType) -> Self {
        FnBuilder {
            f: Function {
                name: name.into(),
                ret,
                params: vec![],
                variadic: false,
                vars: vec![],
                body: vec![],
                line: Line(1),
                end_line: Line(99),
                is_static: false,
            },
        }
    }

    fn var(&mut self, name: &str, ty: CType, kind: VarKind) -> VarId {
        self.f.vars.push(VarInfo {
            name: name.into(),
            ty,
            kind,
            addr_taken: false,
            volatile: false,
            line: Line(1),
        });
        VarId::new(self.f.vars.len() - 1)
    }

    pub fn param(&mut self, name: &str, ty: CType) -> Expr {
        let v = self.var(name, ty.clone(), VarKind::Param);
        self.f.params.push(v);
        Expr::var(v, ty)
    }

    pub fn local(&mut self, name: &str, ty: CType) -> Expr {
        let v = self.var(name, ty.clone(), VarKind::Local);
        Expr::var(v, ty)
    }

    pub fn global(&mut self, name: &str, ty: CType, g: usize) -> Expr {
        let v = self.var(name, ty.clone(), VarKind::Global(GlobalId::new(g)));
        Expr::var(v, ty)
    }

    pub fn lines(mut self, start: u32, end: u32) -> Self {
        self.f.line = Line(start);
        self.f.end_line = Line(end);
        self
    }

    pub fn body(mut self, body: Vec<Stmt>) -> Function {
        self.f.body = body;
        self.f
    }
}

/// The place of a variable expression.
pub fn pl(e: &Expr) -> Place {
    match e.kind {
        ExprKind::Var(v) => Place::Var(v),
        _ => panic!("not a variable"),
    }
}

pub fn int(v: i128) -> Expr {
    Expr::int(v, CType::INT)
}

pub fn lit(v: i128, ty: CType) -> Expr {
    Expr::int(v, ty)
}

pub fn bin(op: BinOp, a: &Expr, b: &Expr) -> Expr {
    let ty = match op {
        BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => CType::INT,
        BinOp::PtrDiff => CType::LONG,
        _ if b.ty.is_pointer() => b.ty.clone(),
        _ => a.ty.clone(),
    };
    Expr::new(
        ExprKind::Binary(op, Box::new(a.clone()), Box::new(b.clone())),
        ty,
    )
}

pub fn cast(e: &Expr, ty: CType) -> Expr {
    Expr::new(ExprKind::Cast(Box::new(e.clone())), ty)
}

pub fn neg(e: &Expr) -> Expr {
    Expr::new(
        ExprKind::Unary(UnOp::Neg, Box::new(e.clone())),
        e.ty.clone(),
    )
}

pub fn addr(p: Place, ty: CType) -> Expr {
    Expr::new(ExprKind::AddrOf(Box::new(p)), CType::Ptr(Box::new(ty)))
}

pub fn load(p: Place, ty: CType) -> Expr {
    Expr::new(ExprKind::Load(Box::new(p)), ty)
}

pub fn st(line: u32, kind: StmtKind) -> Stmt {
    Stmt {
        kind,
        line: Line(line),
    }
}

pub fn assign(line: u32, p: Place, e: Expr) -> Stmt {
    st(line, StmtKind::Assign(p, e))
}

pub fn if_(line: u32, c: Expr, t: Vec<Stmt>, e: Vec<Stmt>) -> Stmt {
    st(
        line,
        StmtKind::If {
            cond: c,
            then_: t,
            else_: e,
        },
    )
}

pub fn while_(line: u32, c: Expr, body: Vec<Stmt>, step: Vec<Stmt>) -> Stmt {
    st(
        line,
        StmtKind::Loop {
            kind: LoopKind::While,
            pre: vec![],
            cond: c,
            body,
            step,
        },
    )
}

pub fn ret(line: u32, e: Option<Expr>) -> Stmt {
    st(line, StmtKind::Return(e))
}

pub fn call(line: u32, dest: Option<Place>, f: &str, args: Vec<Expr>) -> Stmt {
    st(
        line,
        StmtKind::Call {
            dest,
            callee: Callee::Direct(f.into()),
            args,
        },
    )
}

pub fn prog(functions: Vec<Function>) -> GclProgram {
    prog_with(functions, vec![])
}

pub fn prog_with(functions: Vec<Function>, globals: Vec<GlobalVar>) -> GclProgram {
    let p = Program {
        file: "test.c".into(),
        functions,
        globals,
        ..Program::default()
    };
    flatten_program(p).expect("flatten")
}

/// `int sign(int x)` (its `ret := 0` gets the function's line, 3):
/// ```c
/// int sign(int x) {      // 3
///   if (x < 0)           // 4
///     sgn = -1;          // 5
///   else                 // 6
///     sgn = 1;           // 7
///   return sgn;          // 8
/// }
/// ```
pub fn sign() -> Function {
    let mut b = FnBuilder::new("sign", CType::INT).lines(3, 9);
    let x = b.param("x", CType::INT);
    let sgn = b.local("sgn", CType::INT);
    b.body(vec![
        if_(
            4,
            bin(BinOp::Lt, &x, &int(0)),
            vec![assign(5, pl(&sgn), int(-1))],
            vec![assign(7, pl(&sgn), int(1))],
        ),
        ret(8, Some(sgn.clone())),
    ])
}

/// ```c
/// int loop(int n) {
///   int s = 0, i = 0;                  // 2
///   for (; i < n; i++) {               // 3
///     if (i % 3 == 0) continue;        // 4
///     if (i > 50) break;               // 5
///     s = s + i;                       // 6
///   }
///   return s;                          // 8
/// }
/// ```
pub fn loop_fn() -> Function {
    let mut b = FnBuilder::new("loop", CType::INT);
    let n = b.param("n", CType::INT);
    let s = b.local("s", CType::INT);
    let i = b.local("i", CType::INT);
    b.body(vec![
        assign(2, pl(&s), int(0)),
        assign(2, pl(&i), int(0)),
        while_(
            3,
            bin(BinOp::Lt, &i, &n),
            vec![
                if_(
                    4,
                    bin(BinOp::Eq, &bin(BinOp::Rem, &i, &int(3)), &int(0)),
                    vec![st(4, StmtKind::Continue)],
                    vec![],
                ),
                if_(
                    5,
                    bin(BinOp::Gt, &i, &int(50)),
                    vec![st(5, StmtKind::Break)],
                    vec![],
                ),
                assign(6, pl(&s), bin(BinOp::Add, &s, &i)),
            ],
            vec![assign(3, pl(&i), bin(BinOp::Add, &i, &int(1)))],
        ),
        ret(8, Some(s.clone())),
    ])
}

/// ```c
/// int sw(int x) {
///   int r = 0;                       // 2
///   switch (x + 0) {                 // 3
///   case 1: r = r + 1;               // 4
///   case 2: r = r + 2; break;        // 5
///   default: r = 100;                // 6
///   case 5: r = r + 5; break;        // 7
///   case 7 ... 9: r = 7;             // 8
///   }
///   return r;                        // 10
/// }
/// ```
pub fn switch_fn() -> Function {
    let mut b = FnBuilder::new("sw", CType::INT);
    let x = b.param("x", CType::INT);
    let r = b.local("r", CType::INT);
    let s = |k| SwitchItem::Stmt(k);
    b.body(vec![
        assign(2, pl(&r), int(0)),
        st(
            3,
            StmtKind::Switch {
                value: bin(BinOp::Add, &x, &int(0)),
                body: vec![
                    SwitchItem::Case(1, 1),
                    s(assign(4, pl(&r), bin(BinOp::Add, &r, &int(1)))),
                    SwitchItem::Case(2, 2),
                    s(assign(5, pl(&r), bin(BinOp::Add, &r, &int(2)))),
                    s(st(5, StmtKind::Break)),
                    SwitchItem::Default,
                    s(assign(6, pl(&r), int(100))),
                    SwitchItem::Case(5, 5),
                    s(assign(7, pl(&r), bin(BinOp::Add, &r, &int(5)))),
                    s(st(7, StmtKind::Break)),
                    SwitchItem::Case(7, 9),
                    s(assign(8, pl(&r), int(7))),
                ],
            },
        ),
        ret(10, Some(r.clone())),
    ])
}

/// ```c
/// int gsum(int n) {
///   int i = 0, s = 0;                  // 2
/// top:                                 // 3
///   if (i >= n) goto done;             // 4
///   s = s + i;                         // 5
///   i = i + 1;                         // 6
///   goto top;                          // 7
/// done:                                // 8
///   return s;                          // 9
/// }
/// ```
pub fn goto_fn() -> Function {
    let mut b = FnBuilder::new("gsum", CType::INT);
    let n = b.param("n", CType::INT);
    let i = b.local("i", CType::INT);
    let s = b.local("s", CType::INT);
    b.body(vec![
        assign(2, pl(&i), int(0)),
        assign(2, pl(&s), int(0)),
        st(3, StmtKind::Label("top".into())),
        if_(
            4,
            bin(BinOp::Ge, &i, &n),
            vec![st(4, StmtKind::Goto("done".into()))],
            vec![],
        ),
        assign(5, pl(&s), bin(BinOp::Add, &s, &i)),
        assign(6, pl(&i), bin(BinOp::Add, &i, &int(1))),
        st(7, StmtKind::Goto("top".into())),
        st(8, StmtKind::Label("done".into())),
        ret(9, Some(s.clone())),
    ])
}

/// ```c
/// long fact(int n) {
///   long t;
///   if (n <= 1) return 1;              // 2
///   t = fact(n - 1);                   // 3
///   return (long)n * t;                // 4
/// }
/// ```
pub fn fact() -> Function {
    let mut b = FnBuilder::new("fact", CType::LONG);
    let n = b.param("n", CType::INT);
    let t = b.local("t", CType::LONG);
    b.body(vec![
        if_(
            2,
            bin(BinOp::Le, &n, &int(1)),
            vec![ret(2, Some(lit(1, CType::LONG)))],
            vec![],
        ),
        call(3, Some(pl(&t)), "fact", vec![bin(BinOp::Sub, &n, &int(1))]),
        ret(4, Some(bin(BinOp::Mul, &cast(&n, CType::LONG), &t))),
    ])
}
