//! Hand-built pairs that test the oracle itself (`dizy-fuzz --builtin NAME`).
//!
//! Takes a name; gives a pair whose ground truth is known, so that a test can run it against a
//! fake dizy and check what the oracle concludes:
//! * `termination`: the versions return the same value wherever both terminate, but the new one
//!   does not terminate when `a` is odd (`u += 2` towards an odd bound); both hang when
//!   `a & 32` — an input that is not a difference.
//! * `both-hang`: the versions differ only on inputs where neither terminates (`a & 32`): no
//!   difference at all.
//! * `signed-zero`: `-(d)` against `0.0 - d`, returned and stored in a global: they differ only in
//!   the sign of zeros and of NaNs, which the contract does not observe.

use crate::ast::*;

fn spin(var: &str, step: i64, mask: i64) -> Stmt {
    Stmt::Spin(Spin {
        var: var.into(),
        down: false,
        init: Expr::Int(0),
        cmp: Op::Ne,
        stop: Expr::bin(
            Op::And,
            Expr::cast(Ty::I(IntK::UInt), Expr::var("a")),
            Expr::Int(mask),
        ),
        step,
        body: vec![],
    })
}

fn local(ty: Ty, name: &str, init: Expr) -> Local {
    Local {
        ty,
        name: name.into(),
        init: Some(Init::E(init)),
        is_static: false,
    }
}

fn termination(step: i64) -> Program {
    Program {
        main: Func {
            params: vec![Param {
                ty: INT,
                name: "a".into(),
                role: Role::Value,
            }],
            locals: vec![
                local(Ty::I(IntK::UInt), "u0", Expr::Int(0)),
                local(Ty::I(IntK::UInt), "u1", Expr::Int(0)),
            ],
            body: vec![
                // both versions: never stops when a & 32 (no step towards a nonzero bound)
                spin("u1", 0, 32),
                spin("u0", step, 15),
            ],
            ret_expr: Expr::bin(Op::And, Expr::var("a"), Expr::Int(7)),
            ..Func::default()
        },
        ..Program::default()
    }
}

fn both_hang(new: bool) -> Program {
    let mut p = termination(1);
    if new {
        // only reached when the first loop stopped, i.e. when a & 32 is 0
        p.main.body.insert(
            1,
            Stmt::If(
                Expr::bin(
                    Op::Ne,
                    Expr::bin(Op::And, Expr::var("a"), Expr::Int(32)),
                    Expr::Int(0),
                ),
                vec![Stmt::Assign(Expr::var("a"), Some(Op::Add), Expr::Int(1))],
                vec![],
            ),
        );
    }
    p
}

fn signed_zero(new: bool) -> Program {
    let e = if new {
        Expr::bin(Op::Sub, Expr::Flt("0.0".into()), Expr::var("d"))
    } else {
        Expr::Un(Un::Neg, Box::new(Expr::var("d")))
    };
    Program {
        globals: vec![Global {
            ty: Ty::F64,
            name: "gd".into(),
            is_static: false,
            is_const: false,
            is_volatile: false,
            init: Some(Init::E(Expr::Flt("1.5".into()))),
        }],
        main: Func {
            ret: Ty::F64,
            params: vec![Param {
                ty: Ty::F64,
                name: "d".into(),
                role: Role::Value,
            }],
            locals: vec![local(Ty::F64, "t", Expr::Flt("0.0".into()))],
            body: vec![
                Stmt::Assign(Expr::var("t"), None, e),
                Stmt::Assign(Expr::var("gd"), None, Expr::var("t")),
            ],
            ret_expr: Expr::var("t"),
            ..Func::default()
        },
        ..Program::default()
    }
}

pub const NAMES: [&str; 3] = ["termination", "both-hang", "signed-zero"];

/// The pair called `name`.
pub fn pair(name: &str) -> Option<(Program, Program)> {
    match name {
        "termination" => Some((termination(1), termination(2))),
        "both-hang" => Some((both_hang(false), both_hang(true))),
        "signed-zero" => Some((signed_zero(false), signed_zero(true))),
        _ => None,
    }
}
