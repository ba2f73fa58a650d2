//! Interpreter tests on hand-built IR: results, UB detection and resource limits.

use super::*;
use crate::gcl::testutil::*;
use crate::ir::*;

fn run(p: &GclProgram, f: &str, args: &[&str]) -> Result<String, RunError> {
    let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    run_literals(p, f, &args, DEFAULT_BUDGET).map(|(s, _)| s)
}

fn ub_msg(r: Result<String, RunError>) -> String {
    match r {
        Err(RunError::Ub { msg, .. }) => msg,
        other => panic!("expected UB, got {other:?}"),
    }
}

#[test]
fn sign_function() {
    let p = prog(vec![sign()]);
    assert_eq!(run(&p, "sign", &["-5"]).unwrap(), "-1");
    assert_eq!(run(&p, "sign", &["0"]).unwrap(), "1");
    assert_eq!(run(&p, "sign", &["2147483647"]).unwrap(), "1");
    assert!(matches!(run(&p, "sign", &[]), Err(RunError::BadArgs(_))));
    assert!(matches!(run(&p, "sign", &["x"]), Err(RunError::BadArgs(_))));
    assert!(matches!(run(&p, "nope", &[]), Err(RunError::BadArgs(_))));
}

#[test]
fn loop_with_break_and_continue() {
    let p = prog(vec![loop_fn()]);
    let expect = |n: i32| {
        let mut s = 0;
        for i in 0..n {
            if i % 3 == 0 {
                continue;
            }
            if i > 50 {
                break;
            }
            s += i;
        }
        s
    };
    for n in [-3, 0, 1, 2, 5, 10, 50, 51, 52, 53, 100, 1000] {
        assert_eq!(
            run(&p, "loop", &[&n.to_string()]).unwrap(),
            expect(n).to_string(),
            "n = {n}"
        );
    }
}

#[test]
fn switch_fallthrough_and_default_in_the_middle() {
    let p = prog(vec![switch_fn()]);
    for (x, r) in [
        (1, 3),
        (2, 2),
        (5, 5),
        (3, 105),
        (0, 105),
        (6, 105),
        (7, 7),
        (8, 7),
        (9, 7),
        (10, 105),
        (-1, 105),
    ] {
        assert_eq!(
            run(&p, "sw", &[&x.to_string()]).unwrap(),
            r.to_string(),
            "x = {x}"
        );
    }
}

#[test]
fn goto_loop() {
    let p = prog(vec![goto_fn()]);
    assert_eq!(run(&p, "gsum", &["0"]).unwrap(), "0");
    assert_eq!(run(&p, "gsum", &["5"]).unwrap(), "10");
    assert_eq!(run(&p, "gsum", &["100"]).unwrap(), "4950");
}

#[test]
fn recursive_factorial_and_overflow() {
    let p = prog(vec![fact()]);
    assert_eq!(run(&p, "fact", &["1"]).unwrap(), "1");
    assert_eq!(run(&p, "fact", &["10"]).unwrap(), "3628800");
    assert_eq!(run(&p, "fact", &["20"]).unwrap(), "2432902008176640000");
    let m = ub_msg(run(&p, "fact", &["21"]));
    assert!(m.contains("signed overflow in `*`"), "{m}");
}

#[test]
fn deep_recursion_is_caught() {
    // int rec(int n) { int t; t = rec(n + 1); return t; }
    let mut b = FnBuilder::new("rec", CType::INT);
    let n = b.param("n", CType::INT);
    let t = b.local("t", CType::INT);
    let f = b.body(vec![
        call(2, Some(pl(&t)), "rec", vec![bin(BinOp::Add, &n, &int(1))]),
        ret(3, Some(t.clone())),
    ]);
    let p = prog(vec![f]);
    assert!(matches!(
        run(&p, "rec", &["0"]),
        Err(RunError::Depth {
            limit: MAX_CALL_DEPTH,
            line: 2
        })
    ));
}

#[test]
fn infinite_loop_exhausts_budget() {
    // void spin(void) { while (1) { } }
    let f = FnBuilder::new("spin", CType::Void).body(vec![while_(2, int(1), vec![], vec![])]);
    let p = prog(vec![f]);
    let r = run_literals(&p, "spin", &[], 1000);
    assert_eq!(r.unwrap_err(), RunError::Budget { steps: 1000 });
}

#[test]
fn pointer_to_local_and_dangling_pointer() {
    // void set(int *p, int v) { *p = v; }
    let mut b = FnBuilder::new("set", CType::Void);
    let p = b.param("p", CType::Ptr(Box::new(CType::INT)));
    let v = b.param("v", CType::INT);
    let set = b.body(vec![assign(
        2,
        Place::Deref(p.clone(), CType::INT),
        v.clone(),
    )]);
    // int use(int a) { int x; set(&x, a + 1); return x; }
    let mut b = FnBuilder::new("use", CType::INT);
    let a = b.param("a", CType::INT);
    let x = b.local("x", CType::INT);
    let use_ = b.body(vec![
        st(4, StmtKind::Havoc(pl(&x))),
        call(
            5,
            None,
            "set",
            vec![addr(pl(&x), CType::INT), bin(BinOp::Add, &a, &int(1))],
        ),
        ret(6, Some(x.clone())),
    ]);
    // int bad(void) { int x; return x; }
    let mut b = FnBuilder::new("bad", CType::INT);
    let x2 = b.local("x", CType::INT);
    let bad = b.body(vec![
        st(8, StmtKind::Havoc(pl(&x2))),
        ret(9, Some(x2.clone())),
    ]);
    // int *esc(void) { int y = 1; return &y; }  int dang(void) { int *q; q = esc(); return *q; }
    let mut b = FnBuilder::new("esc", CType::Ptr(Box::new(CType::INT)));
    let y = b.local("y", CType::INT);
    let esc = b.body(vec![
        assign(11, pl(&y), int(1)),
        ret(12, Some(addr(pl(&y), CType::INT))),
    ]);
    let mut b = FnBuilder::new("dang", CType::INT);
    let q = b.local("q", CType::Ptr(Box::new(CType::INT)));
    let dang = b.body(vec![
        call(14, Some(pl(&q)), "esc", vec![]),
        ret(
            15,
            Some(load(Place::Deref(q.clone(), CType::INT), CType::INT)),
        ),
    ]);
    let p = prog(vec![set, use_, bad, esc, dang]);
    assert_eq!(run(&p, "use", &["4"]).unwrap(), "5");
    assert_eq!(
        run(&p, "bad", &[]),
        Err(RunError::Ub {
            msg: "read of uninitialized variable `x`".into(),
            line: 9,
            kind: crate::interp::UbKind::Other,
        })
    );
    let m = ub_msg(run(&p, "dang", &[]));
    assert!(m.contains("`y` after the end of its lifetime"), "{m}");
    let m = ub_msg(run(&p, "set", &["0", "1"]));
    assert!(m.contains("null pointer"), "{m}");
}

#[test]
fn array_sum_and_bounds() {
    // int asum(int n) { int a[10]; int i, s;
    //   for (i = 0; i < 10; i++) a[i] = i * i;
    //   s = 0; for (i = 0; i < n; i++) s += a[i]; return s; }
    let arr = CType::Array(Box::new(CType::INT), Some(10));
    let mut b = FnBuilder::new("asum", CType::INT);
    let n = b.param("n", CType::INT);
    let a = b.local("a", arr);
    let i = b.local("i", CType::INT);
    let s = b.local("s", CType::INT);
    let elem = |e: &Expr| Place::Index(Box::new(pl(&a)), e.clone(), CType::INT);
    let inc = assign(3, pl(&i), bin(BinOp::Add, &i, &int(1)));
    let f = b.body(vec![
        assign(3, pl(&i), int(0)),
        while_(
            3,
            bin(BinOp::Lt, &i, &int(10)),
            vec![assign(3, elem(&i), bin(BinOp::Mul, &i, &i))],
            vec![inc.clone()],
        ),
        assign(4, pl(&s), int(0)),
        assign(4, pl(&i), int(0)),
        while_(
            4,
            bin(BinOp::Lt, &i, &n),
            vec![assign(
                4,
                pl(&s),
                bin(BinOp::Add, &s, &load(elem(&i), CType::INT)),
            )],
            vec![inc],
        ),
        ret(5, Some(s.clone())),
    ]);
    let p = prog(vec![f]);
    assert_eq!(run(&p, "asum", &["10"]).unwrap(), "285");
    assert_eq!(run(&p, "asum", &["3"]).unwrap(), "5");
    let m = ub_msg(run(&p, "asum", &["11"]));
    assert!(m.contains("index 10 out of bounds"), "{m}");
}

/// `T op(T a, T b) { return a OP b; }`
fn binop_fn(name: &str, op: BinOp, ty: CType) -> Function {
    let mut b = FnBuilder::new(name, ty.clone());
    let x = b.param("a", ty.clone());
    let y = b.param("b", ty);
    b.body(vec![ret(2, Some(bin(op, &x, &y)))])
}

#[test]
fn integer_semantics_and_ub() {
    let p = prog(vec![
        binop_fn("add", BinOp::Add, CType::INT),
        binop_fn("sub", BinOp::Sub, CType::INT),
        binop_fn("div", BinOp::Div, CType::INT),
        binop_fn("rem", BinOp::Rem, CType::INT),
        binop_fn("shl", BinOp::Shl, CType::INT),
        binop_fn("shr", BinOp::Shr, CType::INT),
        binop_fn("umul", BinOp::Mul, CType::UINT),
        binop_fn("ushl", BinOp::Shl, CType::UINT),
        binop_fn("lmul", BinOp::Mul, CType::LONG),
        binop_fn("ulmul", BinOp::Mul, CType::ULONG),
        binop_fn("uladd", BinOp::Add, CType::ULONG),
    ]);
    assert_eq!(run(&p, "add", &["2147483646", "1"]).unwrap(), "2147483647");
    assert!(ub_msg(run(&p, "add", &["2147483647", "1"])).contains("signed overflow in `+`"));
    assert!(ub_msg(run(&p, "sub", &["-2147483648", "1"])).contains("signed overflow in `-`"));
    assert_eq!(run(&p, "div", &["-7", "2"]).unwrap(), "-3");
    assert_eq!(run(&p, "rem", &["-7", "2"]).unwrap(), "-1");
    assert!(ub_msg(run(&p, "div", &["1", "0"])).contains("division by zero"));
    assert!(ub_msg(run(&p, "rem", &["1", "0"])).contains("division by zero"));
    assert!(ub_msg(run(&p, "div", &["-2147483648", "-1"])).contains("signed overflow"));
    assert!(ub_msg(run(&p, "rem", &["-2147483648", "-1"])).contains("signed overflow"));
    assert_eq!(run(&p, "shl", &["1", "30"]).unwrap(), "1073741824");
    assert!(ub_msg(run(&p, "shl", &["1", "31"])).contains("cannot be represented"));
    assert!(ub_msg(run(&p, "shl", &["3", "30"])).contains("cannot be represented"));
    assert!(ub_msg(run(&p, "shl", &["-1", "0"])).contains("negative value"));
    assert!(ub_msg(run(&p, "shl", &["1", "32"])).contains("too large"));
    assert!(ub_msg(run(&p, "shl", &["1", "-1"])).contains("negative"));
    assert_eq!(run(&p, "shl", &["0", "31"]).unwrap(), "0");
    assert_eq!(run(&p, "shr", &["-8", "1"]).unwrap(), "-4");
    assert_eq!(run(&p, "shr", &["-1", "31"]).unwrap(), "-1");
    assert_eq!(run(&p, "umul", &["4294967295", "3"]).unwrap(), "4294967293");
    assert_eq!(
        run(&p, "ushl", &["4294967295", "31"]).unwrap(),
        "2147483648"
    );
    assert!(ub_msg(run(&p, "ushl", &["1", "32"])).contains("too large"));
    assert_eq!(
        run(&p, "lmul", &["4294967296", "-3"]).unwrap(),
        "-12884901888"
    );
    assert!(ub_msg(run(&p, "lmul", &["4294967296", "4294967296"])).contains("signed overflow"));
    assert_eq!(
        run(
            &p,
            "ulmul",
            &["18446744073709551615", "18446744073709551615"]
        )
        .unwrap(),
        "1"
    );
    assert_eq!(
        run(&p, "uladd", &["18446744073709551615", "2"]).unwrap(),
        "1"
    );
}

#[test]
fn conversions_and_floats() {
    // char narrow(int x) { return (char)x; }   unsigned char un(int x) { return x; }
    let mut b = FnBuilder::new("narrow", CType::CHAR);
    let x = b.param("x", CType::INT);
    let narrow = b.body(vec![ret(2, Some(cast(&x, CType::CHAR)))]);
    // int trunc(double d) { return (int)d; }
    let mut b = FnBuilder::new("trunc", CType::INT);
    let d = b.param("d", CType::Double);
    let trunc = b.body(vec![ret(2, Some(cast(&d, CType::INT)))]);
    // float favg(float a, float b) { return (a + b) / 2.0f; }
    let mut b = FnBuilder::new("favg", CType::Float);
    let fa = b.param("a", CType::Float);
    let fb = b.param("b", CType::Float);
    let two = Expr::new(ExprKind::Float(2.0), CType::Float);
    let favg = b.body(vec![ret(
        2,
        Some(bin(BinOp::Div, &bin(BinOp::Add, &fa, &fb), &two)),
    )]);
    // double ddiv(double a, double b) { return a / b; }
    let ddiv = binop_fn("ddiv", BinOp::Div, CType::Double);
    // _Bool tobool(double d) { return d; }
    let mut b = FnBuilder::new("tobool", CType::Bool);
    let d2 = b.param("d", CType::Double);
    let tobool = b.body(vec![ret(2, Some(cast(&d2, CType::Bool)))]);
    // int flt(double a, double b) { return a < b; }
    let flt = {
        let mut b = FnBuilder::new("flt", CType::INT);
        let a = b.param("a", CType::Double);
        let c = b.param("b", CType::Double);
        b.body(vec![ret(2, Some(bin(BinOp::Ne, &a, &c)))])
    };
    // float l2f(long x) { return (float)x; }
    let mut b = FnBuilder::new("l2f", CType::Float);
    let lx = b.param("x", CType::LONG);
    let l2f = b.body(vec![ret(2, Some(cast(&lx, CType::Float)))]);
    let p = prog(vec![narrow, trunc, favg, ddiv, tobool, flt, l2f]);
    assert_eq!(run(&p, "narrow", &["200"]).unwrap(), "-56");
    assert_eq!(run(&p, "narrow", &["-129"]).unwrap(), "127");
    assert_eq!(run(&p, "trunc", &["-2.9"]).unwrap(), "-2");
    assert_eq!(run(&p, "trunc", &["2147483647.5"]).unwrap(), "2147483647");
    assert!(ub_msg(run(&p, "trunc", &["2147483648.0"])).contains("outside the range"));
    assert!(ub_msg(run(&p, "trunc", &["nan"])).contains("outside the range"));
    assert_eq!(
        run(&p, "favg", &["0.1f", "0.2f"]).unwrap(),
        format!("{:?}f", (0.1f32 + 0.2f32) / 2.0)
    );
    assert_eq!(run(&p, "ddiv", &["1", "3"]).unwrap(), "0.3333333333333333");
    assert_eq!(run(&p, "ddiv", &["1", "0"]).unwrap(), "INFINITY");
    assert_eq!(run(&p, "ddiv", &["-1", "0"]).unwrap(), "-INFINITY");
    assert_eq!(run(&p, "ddiv", &["0", "0"]).unwrap(), "NAN");
    assert_eq!(run(&p, "tobool", &["0.5"]).unwrap(), "1");
    assert_eq!(run(&p, "tobool", &["-0.0"]).unwrap(), "0");
    assert_eq!(run(&p, "tobool", &["nan"]).unwrap(), "1");
    assert_eq!(run(&p, "flt", &["nan", "nan"]).unwrap(), "1");
    // 2^53 + 1 rounds to even in f64 but must round once, directly, to f32.
    assert_eq!(run(&p, "l2f", &["16777217"]).unwrap(), "16777216.0f");
    assert_eq!(
        run(&p, "l2f", &["9007199791611905"]).unwrap(),
        format!("{:?}f", 9007199791611905i64 as f32)
    );
}

#[test]
fn globals_indirect_calls_and_builtins() {
    // int counter = 5; int tab[3] = {7, 8, 9};
    let globals = vec![
        GlobalVar {
            name: "counter".into(),
            ty: CType::INT,
            init: vec![(0, CType::INT, int(5))],
            is_static: false,
            is_extern: false,
            is_volatile: false,
            opaque: false,
            line: Line(1),
        },
        GlobalVar {
            name: "tab".into(),
            ty: CType::Array(Box::new(CType::INT), Some(3)),
            init: vec![(0, CType::INT, int(7)), (8, CType::INT, int(9))],
            is_static: false,
            is_extern: false,
            is_volatile: false,
            opaque: false,
            line: Line(1),
        },
        GlobalVar {
            name: "ext".into(),
            ty: CType::INT,
            init: vec![],
            is_static: false,
            is_extern: true,
            is_volatile: false,
            opaque: false,
            line: Line(1),
        },
    ];
    // int bump(int k) { counter = counter + k; return counter + tab[1] + tab[2]; }
    let mut b = FnBuilder::new("bump", CType::INT);
    let k = b.param("k", CType::INT);
    let c = b.global("counter", CType::INT, 0);
    let tab = b.global("tab", CType::Array(Box::new(CType::INT), Some(3)), 1);
    let t = |i| {
        load(
            Place::Index(Box::new(pl(&tab)), int(i), CType::INT),
            CType::INT,
        )
    };
    let bump = b.body(vec![
        assign(2, pl(&c), bin(BinOp::Add, &c, &k)),
        ret(3, Some(bin(BinOp::Add, &bin(BinOp::Add, &c, &t(1)), &t(2)))),
    ]);
    // int twice(int k) { int (*fp)(int) = bump; int r;
    //   r = fp(k); r = fp(k); putchar(65); return abs(-r); }
    let fty = CType::Ptr(Box::new(CType::Func(Box::new(FuncType {
        ret: CType::INT,
        params: vec![CType::INT],
        variadic: false,
    }))));
    let mut b = FnBuilder::new("twice", CType::INT);
    let k2 = b.param("k", CType::INT);
    let fp = b.local("fp", fty.clone());
    let r = b.local("r", CType::INT);
    let icall = |line| {
        st(
            line,
            StmtKind::Call {
                dest: Some(pl(&r)),
                callee: Callee::Indirect(fp.clone()),
                args: vec![k2.clone()],
            },
        )
    };
    let twice = b.body(vec![
        assign(
            5,
            pl(&fp),
            Expr::new(ExprKind::FuncAddr("bump".into()), fty),
        ),
        icall(6),
        icall(7),
        call(8, None, "putchar", vec![int(65)]),
        call(9, Some(pl(&r)), "abs", vec![neg(&r)]),
        ret(9, Some(r.clone())),
    ]);
    // int readext(void) { return ext; }  int ext_call(void) { return sqrt(1); }
    let mut b = FnBuilder::new("readext", CType::INT);
    let e = b.global("ext", CType::INT, 2);
    let readext = b.body(vec![ret(11, Some(e.clone()))]);
    let mut b = FnBuilder::new("extcall", CType::INT);
    let r2 = b.local("r", CType::INT);
    let extcall = b.body(vec![
        call(12, Some(pl(&r2)), "frobnicate", vec![]),
        ret(12, Some(r2.clone())),
    ]);
    let p = prog_with(vec![bump, twice, readext, extcall], globals);
    // counter: 5 → 7 → 9; tab[1] is 0 (not initialized explicitly), tab[2] is 9.
    let (text, out) = run_literals(&p, "twice", &["2".into()], DEFAULT_BUDGET).unwrap();
    assert_eq!(text, "18");
    assert_eq!(out.output, b"A");
    // A fresh interpreter starts from the initializers again; one interpreter keeps state.
    assert_eq!(run(&p, "bump", &["1"]).unwrap(), "15");
    let mut it = Interp::new(&p);
    assert_eq!(
        it.call("bump", &[Value::Int(1)]).unwrap().ret,
        Some(Value::Int(15))
    );
    assert_eq!(
        it.call("bump", &[Value::Int(1)]).unwrap().ret,
        Some(Value::Int(16))
    );
    assert!(matches!(
        run(&p, "readext", &[]),
        Err(RunError::Unsupported { line: 11, .. })
    ));
    match run(&p, "extcall", &[]) {
        Err(RunError::Unsupported { msg, line: 12 }) => {
            assert!(msg.contains("`frobnicate`"), "{msg}")
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn missing_return_and_void_functions() {
    // int noret(int x) { if (x) return 1; }
    let mut b = FnBuilder::new("noret", CType::INT).lines(1, 3);
    let x = b.param("x", CType::INT);
    let noret = b.body(vec![if_(2, x.clone(), vec![ret(2, Some(int(1)))], vec![])]);
    // void nothing(void) { }
    let nothing = FnBuilder::new("nothing", CType::Void).body(vec![]);
    let p = prog(vec![noret, nothing]);
    assert_eq!(run(&p, "noret", &["1"]).unwrap(), "1");
    // reaching the end is no undefined behaviour by itself: only a caller's use of the value
    assert_eq!(run(&p, "noret", &["0"]).unwrap(), super::NO_VALUE);
    assert_eq!(run(&p, "nothing", &[]).unwrap(), "void");
}

#[test]
fn step_count_includes_skipped_instructions() {
    let p = prog(vec![sign()]);
    // ret := 0; g1 := x < 0; [g1] sgn := -1; [!g1] sgn := 1; retval := sgn; ret := 1
    let (_, out) = run_literals(&p, "sign", &["3".into()], 100).unwrap();
    assert_eq!(out.steps, 6);
    assert_eq!(
        run_literals(&p, "sign", &["3".into()], 5).unwrap_err(),
        RunError::Budget { steps: 5 }
    );
}

fn label(line: u32, n: &str) -> Stmt {
    st(line, StmtKind::Label(n.into()))
}

fn goto(line: u32, n: &str) -> Stmt {
    st(line, StmtKind::Goto(n.into()))
}

fn inc(line: u32, v: &Expr, k: i128) -> Stmt {
    assign(line, pl(v), bin(BinOp::Add, v, &int(k)))
}

#[test]
fn goto_into_a_loop_resets_its_flags() {
    // int h(int y) { int x = 0, n = 0;
    //   while (1) { L: x++; n++; if (x > 5) break; }
    //   if (y > 0) { y = 0; x = 0; goto L; }
    //   return n; }
    let mut b = FnBuilder::new("h", CType::INT);
    let y = b.param("y", CType::INT);
    let x = b.local("x", CType::INT);
    let n = b.local("n", CType::INT);
    let f = b.body(vec![
        assign(2, pl(&x), int(0)),
        assign(2, pl(&n), int(0)),
        while_(
            3,
            int(1),
            vec![
                label(4, "L"),
                inc(4, &x, 1),
                inc(5, &n, 1),
                if_(
                    6,
                    bin(BinOp::Gt, &x, &int(5)),
                    vec![st(6, StmtKind::Break)],
                    vec![],
                ),
            ],
            vec![],
        ),
        if_(
            8,
            bin(BinOp::Gt, &y, &int(0)),
            vec![
                assign(8, pl(&y), int(0)),
                assign(8, pl(&x), int(0)),
                goto(8, "L"),
            ],
            vec![],
        ),
        ret(9, Some(n.clone())),
    ]);
    let p = prog(vec![f]);
    assert_eq!(run(&p, "h", &["0"]).unwrap(), "6");
    assert_eq!(run(&p, "h", &["1"]).unwrap(), "12");
}

#[test]
fn goto_into_else_branch_switch_and_past_return() {
    // int k(int a) { int r = 0; if (a > 0) goto inelse;
    //   if (a < -10) r = 1; else { inelse: r = r + 10; } r = r + 100; return r; }
    let mut b = FnBuilder::new("k", CType::INT);
    let a = b.param("a", CType::INT);
    let r = b.local("r", CType::INT);
    let k = b.body(vec![
        assign(1, pl(&r), int(0)),
        if_(
            2,
            bin(BinOp::Gt, &a, &int(0)),
            vec![goto(2, "inelse")],
            vec![],
        ),
        if_(
            3,
            bin(BinOp::Lt, &a, &int(-10)),
            vec![assign(3, pl(&r), int(1))],
            vec![label(4, "inelse"), inc(4, &r, 10)],
        ),
        inc(5, &r, 100),
        ret(6, Some(r.clone())),
    ]);
    // int m(int a) { int r = 0; if (a == 100) goto mid;
    //   switch (a) { case 1: r = 1; break; case 2: mid: r += 2; case 3: r += 3; break; }
    //   return r; }
    let mut b = FnBuilder::new("m", CType::INT);
    let a2 = b.param("a", CType::INT);
    let r2 = b.local("r", CType::INT);
    let s = SwitchItem::Stmt;
    let m = b.body(vec![
        assign(1, pl(&r2), int(0)),
        if_(
            2,
            bin(BinOp::Eq, &a2, &int(100)),
            vec![goto(2, "mid")],
            vec![],
        ),
        st(
            3,
            StmtKind::Switch {
                value: a2.clone(),
                body: vec![
                    SwitchItem::Case(1, 1),
                    s(assign(4, pl(&r2), int(1))),
                    s(st(4, StmtKind::Break)),
                    SwitchItem::Case(2, 2),
                    s(label(5, "mid")),
                    s(inc(5, &r2, 2)),
                    SwitchItem::Case(3, 3),
                    s(inc(6, &r2, 3)),
                    s(st(6, StmtKind::Break)),
                ],
            },
        ),
        ret(8, Some(r2.clone())),
    ]);
    // int q(int a) { int r = 0; goto start; back: r++; return r; start: r = a; goto back; }
    let mut b = FnBuilder::new("q", CType::INT);
    let a3 = b.param("a", CType::INT);
    let r3 = b.local("r", CType::INT);
    let q = b.body(vec![
        assign(1, pl(&r3), int(0)),
        goto(2, "start"),
        label(3, "back"),
        inc(4, &r3, 1),
        ret(5, Some(r3.clone())),
        label(6, "start"),
        assign(7, pl(&r3), a3.clone()),
        goto(8, "back"),
    ]);
    let p = prog(vec![k, m, q]);
    for (a, r) in [(5, 110), (-20, 101), (-5, 110), (0, 110)] {
        assert_eq!(
            run(&p, "k", &[&a.to_string()]).unwrap(),
            r.to_string(),
            "k({a})"
        );
    }
    for (a, r) in [(100, 5), (1, 1), (2, 5), (3, 3), (4, 0)] {
        assert_eq!(
            run(&p, "m", &[&a.to_string()]).unwrap(),
            r.to_string(),
            "m({a})"
        );
    }
    assert_eq!(run(&p, "q", &["5"]).unwrap(), "6");
}

#[test]
fn do_while_switch_in_loop_and_return_in_loop() {
    // int dw(int n) { int i = 0, s = 0;
    //   do { i++; if (i % 2 == 0) continue; s += i; if (s > 20) break; } while (i < n);
    //   return s; }
    let mut b = FnBuilder::new("dw", CType::INT);
    let n = b.param("n", CType::INT);
    let i = b.local("i", CType::INT);
    let s = b.local("s", CType::INT);
    let dw = b.body(vec![
        assign(1, pl(&i), int(0)),
        assign(1, pl(&s), int(0)),
        st(
            2,
            StmtKind::Loop {
                kind: LoopKind::DoWhile,
                pre: vec![],
                cond: bin(BinOp::Lt, &i, &n),
                body: vec![
                    inc(3, &i, 1),
                    if_(
                        4,
                        bin(BinOp::Eq, &bin(BinOp::Rem, &i, &int(2)), &int(0)),
                        vec![st(4, StmtKind::Continue)],
                        vec![],
                    ),
                    assign(5, pl(&s), bin(BinOp::Add, &s, &i)),
                    if_(
                        6,
                        bin(BinOp::Gt, &s, &int(20)),
                        vec![st(6, StmtKind::Break)],
                        vec![],
                    ),
                ],
                step: vec![],
            },
        ),
        ret(8, Some(s.clone())),
    ]);
    let dw_model = |n: i32| {
        let (mut i, mut s) = (0, 0);
        loop {
            i += 1;
            if i % 2 != 0 {
                s += i;
                if s > 20 {
                    break;
                }
            }
            if i >= n {
                break;
            }
        }
        s
    };
    // int sl(int n) { int i = 0, s = 0;
    //   while (i < n) {
    //     i++;
    //     switch (i % 4) { case 0: continue; case 1: s += 1; break; default: s += 10; }
    //     s += 100; }
    //   return s; }
    let mut b = FnBuilder::new("sl", CType::INT);
    let n2 = b.param("n", CType::INT);
    let i2 = b.local("i", CType::INT);
    let s2 = b.local("s", CType::INT);
    let it = SwitchItem::Stmt;
    let sl = b.body(vec![
        assign(1, pl(&i2), int(0)),
        assign(1, pl(&s2), int(0)),
        while_(
            2,
            bin(BinOp::Lt, &i2, &n2),
            vec![
                inc(3, &i2, 1),
                st(
                    4,
                    StmtKind::Switch {
                        value: bin(BinOp::Rem, &i2, &int(4)),
                        body: vec![
                            SwitchItem::Case(0, 0),
                            it(st(5, StmtKind::Continue)),
                            SwitchItem::Case(1, 1),
                            it(inc(6, &s2, 1)),
                            it(st(6, StmtKind::Break)),
                            SwitchItem::Default,
                            it(inc(7, &s2, 10)),
                        ],
                    },
                ),
                inc(9, &s2, 100),
            ],
            vec![],
        ),
        ret(11, Some(s2.clone())),
    ]);
    let sl_model = |n: i32| {
        let (mut i, mut s) = (0, 0);
        while i < n {
            i += 1;
            match i % 4 {
                0 => continue,
                1 => s += 1,
                _ => s += 10,
            }
            s += 100;
        }
        s
    };
    // int find(int n) { int i = 0; while (i < n) { if (i * i > 50) return i; i++; } return -1; }
    let mut b = FnBuilder::new("find", CType::INT);
    let n3 = b.param("n", CType::INT);
    let i3 = b.local("i", CType::INT);
    let find = b.body(vec![
        assign(1, pl(&i3), int(0)),
        while_(
            2,
            bin(BinOp::Lt, &i3, &n3),
            vec![
                if_(
                    3,
                    bin(BinOp::Gt, &bin(BinOp::Mul, &i3, &i3), &int(50)),
                    vec![ret(3, Some(i3.clone()))],
                    vec![],
                ),
                inc(4, &i3, 1),
            ],
            vec![],
        ),
        ret(6, Some(int(-1))),
    ]);
    let p = prog(vec![dw, sl, find]);
    for n in [-1, 0, 1, 2, 3, 5, 8, 9, 10, 20] {
        assert_eq!(
            run(&p, "dw", &[&n.to_string()]).unwrap(),
            dw_model(n).to_string(),
            "dw({n})"
        );
        assert_eq!(
            run(&p, "sl", &[&n.to_string()]).unwrap(),
            sl_model(n).to_string(),
            "sl({n})"
        );
    }
    assert_eq!(run(&p, "find", &["100"]).unwrap(), "8");
    assert_eq!(run(&p, "find", &["5"]).unwrap(), "-1");
}

/// Load C source through the real frontend (end-to-end: C → IR → GCL).
pub(super) fn load_c(src: &str) -> GclProgram {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("t.c");
    std::fs::write(&path, src).expect("write");
    crate::load_gcl(&path, &crate::frontend::Options::default()).expect("load")
}

const E2E: &str = r#"int sign(int x)
{
  int sgn;
  if (x < 0)
    sgn = -1;
  else
    sgn = 1;
  return sgn;
}

struct node { int v; struct node *next; };
int listsum(int n) {
  struct node ns[4];
  struct node *head = 0;
  for (int i = 0; i < 4 && i < n; i++) { ns[i].v = i * 10; ns[i].next = head; head = &ns[i]; }
  int s = 0;
  for (struct node *p = head; p; p = p->next) s += p->v;
  return s;
}

int duff(int count) {
  int n = 0;
  while (count > 0) {
    switch (count % 3) {
      case 0: n += 3; break;
      case 1: { if (n > 10) goto done; n += 1; } break;
      default: n += 2;
    }
    count--;
  }
done:
  return n;
}

static int depth(int n) { return n <= 0 ? 0 : 1 + depth(n - 1); }
int deep(int n) { return depth(n); }
"#;

#[test]
fn end_to_end_through_the_frontend() {
    let p = load_c(E2E);
    let mut text = String::new();
    crate::gcl::print_function(&mut text, p.function("sign").unwrap(), &p.program);
    assert_eq!(
        text,
        "\
int sign(int x)
  1:        ret := 0
  3:        havoc sgn
  4:        g1 := x < 0
  5: [g1]   sgn := -1
  7: [!g1]  sgn := 1
  8:        retval := sgn
  8:        ret := 1
"
    );
    for (n, r) in [("0", "0"), ("1", "0"), ("2", "10"), ("5", "60")] {
        assert_eq!(run(&p, "listsum", &[n]).unwrap(), r, "listsum({n})");
    }
    for (n, r) in [
        ("0", "0"),
        ("7", "12"),
        ("30", "11"),
        ("3", "6"),
        ("-4", "0"),
    ] {
        assert_eq!(run(&p, "duff", &[n]).unwrap(), r, "duff({n})");
    }
    assert_eq!(run(&p, "deep", &["9000"]).unwrap(), "9000");
    assert!(matches!(
        run(&p, "deep", &["20000"]),
        Err(RunError::Depth { .. })
    ));
}

#[test]
fn observe_variables_at_exit() {
    let p = prog(vec![loop_fn()]);
    let f = p.function("loop").unwrap();
    let (s, i) = (f.func.find_var("s").unwrap(), f.func.find_var("i").unwrap());
    let mut it = Interp::new(&p);
    let (out, vals) = it
        .call_observe("loop", &[Value::Int(5)], &[s, i, VarId(999)])
        .unwrap();
    assert_eq!(out.ret, Some(Value::Int(7)));
    let int = |v| Some(super::Observed::scalar(Value::Int(v), &CType::INT));
    assert_eq!(vals, vec![int(7), int(5), None]);
}

/// A loop of calls that each copy megabytes reads the deadline at every such call, not only
/// every `DEADLINE_STEPS` steps (which would be minutes of copying here).
#[test]
fn large_library_calls_read_the_deadline() {
    let src = "void *memset(void *, int, unsigned long);\n\
               char buf[1 << 26];\n\
               int f(int n) { int i; for (i = 0; i < n; i++) memset(buf, i, sizeof buf); return 0; }\n";
    let prog = crate::frontend::parse_text(src.to_string(), "big.c").expect("parse");
    let p = crate::gcl::flatten_program(prog).expect("flatten");
    let start = std::time::Instant::now();
    let r = Interp::new(&p)
        .with_budget(u64::MAX)
        .with_deadline(Some(start + std::time::Duration::from_millis(200)))
        .call("f", &[Value::Int(1_000_000)]);
    assert_eq!(r.unwrap_err(), RunError::Deadline);
    // Without the check: 16,384 steps, about 5,000 memsets of 64 MiB, before the first look
    // at the clock (about 50 s here; 0.3 s with it).
    assert!(
        start.elapsed() < std::time::Duration::from_secs(10),
        "{:?}",
        start.elapsed()
    );
}

/// Coverage records each instruction with whether its guard failed and how often it held, in
/// AFL's buckets: a run that goes round a loop more often, or takes the other branch, shows new
/// features; the same run twice shows none.
#[test]
fn coverage_tells_branches_and_loop_counts_apart() {
    let p = prog(vec![loop_fn()]);
    let features = |n: &str| {
        let mut it = Interp::new(&p).with_coverage();
        it.call("loop", &[Value::Int(n.parse().unwrap())])
            .expect("runs");
        it.coverage()
            .into_iter()
            .collect::<std::collections::BTreeSet<_>>()
    };
    assert!(Interp::new(&p).coverage().is_empty(), "off unless asked");
    let (zero, two, again, many) = (features("0"), features("2"), features("2"), features("100"));
    assert!(!zero.is_empty());
    assert_eq!(two, again);
    assert!(!zero.is_superset(&two), "the loop body is new: {two:?}");
    assert!(!two.is_superset(&many), "more iterations are new buckets");
    assert!(
        many.iter().any(|&(_, _, _, held)| held >= 7),
        "32 or more: {many:?}"
    );
}
