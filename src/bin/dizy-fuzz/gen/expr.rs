//! Expressions: integer and floating ones, conditions, places (variables, fields, array
//! elements with a safe index), calls, float→int conversions that cannot overflow and pure
//! statement expressions.
//!
//! Takes the generator and a [`Scope`]; gives expressions over what the scope holds.

use super::*;

impl Gen<'_> {
    /// An index into an array of length `len`: a constant, a masked or a reduced expression.
    pub(super) fn index(&mut self, sc: &Scope, len: usize) -> Expr {
        let cands = sc.int_vars();
        if self.rng.chance(40) || cands.is_empty() {
            return Expr::Int(self.rng.range(0, len as i64 - 1));
        }
        let v = self.rng.pick(&cands).clone();
        if len.is_power_of_two() {
            Expr::bin(Op::And, v, Expr::Int(len as i64 - 1))
        } else {
            Expr::bin(
                Op::Rem,
                Expr::cast(Ty::I(IntK::UInt), v),
                Expr::Int(len as i64),
            )
        }
    }

    pub(super) fn int_place(&mut self, sc: &Scope, write: bool) -> Expr {
        let arrs: Vec<ArrPlace> = sc
            .arrays
            .iter()
            .filter(|a| !a.float && (a.writable || !write))
            .cloned()
            .collect();
        if !arrs.is_empty() && self.rng.chance(20) {
            let a = self.rng.pick(&arrs).clone();
            let i = self.index(sc, a.len);
            return Expr::index(a.base, i);
        }
        let pool = if write { &sc.int_lv } else { &sc.ints };
        self.rng.pick(pool).clone()
    }

    pub(super) fn float_place(&mut self, sc: &Scope, write: bool) -> Expr {
        let arrs: Vec<ArrPlace> = sc
            .arrays
            .iter()
            .filter(|a| a.float && (a.writable || !write))
            .cloned()
            .collect();
        if !arrs.is_empty() && self.rng.chance(25) {
            let a = self.rng.pick(&arrs).clone();
            let i = self.index(sc, a.len);
            return Expr::index(a.base, i);
        }
        let pool = if write { &sc.float_lv } else { &sc.floats };
        self.rng.pick(pool).clone()
    }

    pub(super) fn ileaf(&mut self, sc: &Scope) -> Expr {
        if self.rng.chance(65) && !sc.ints.is_empty() {
            self.int_place(sc, false)
        } else if !sc.enums.is_empty() && self.rng.chance(25) {
            Expr::Var(self.rng.pick(&sc.enums).clone())
        } else if !sc.config.is_empty() && self.rng.chance(30) {
            Expr::Var(self.rng.pick(&sc.config).clone())
        } else if self.rng.chance(5) {
            Expr::Chr(*self.rng.pick(b"a0z "))
        } else {
            Expr::Int(self.constant())
        }
    }

    pub fn leaf(&mut self, readable: &[Expr]) -> Expr {
        if self.rng.chance(65) && !readable.is_empty() {
            self.rng.pick(readable).clone()
        } else {
            Expr::Int(self.constant())
        }
    }

    pub(super) fn call(&mut self, sc: &Scope, h: &HelperSig) -> Expr {
        let args = h
            .args
            .iter()
            .map(|a| {
                let e = self.iexpr(sc, 1);
                match a {
                    Some(m) => Expr::bin(Op::And, e, Expr::Int(*m)),
                    None => e,
                }
            })
            .collect();
        Expr::Call(h.name.clone(), args)
    }

    pub(super) fn ptr_call(&mut self, sc: &Scope) -> Expr {
        let arg = self.iexpr(sc, 1);
        if !sc.fnptrs.is_empty() && self.rng.chance(40) {
            return Expr::CallPtr(
                Box::new(Expr::Var(self.rng.pick(&sc.fnptrs).clone())),
                vec![arg],
            );
        }
        let (t, len) = self.rng.pick(&sc.tables).clone();
        let i = self.ileaf(sc);
        let idx = Expr::bin(Op::And, i, Expr::Int(len as i64 - 1));
        Expr::CallPtr(Box::new(Expr::index(Expr::var(&t), idx)), vec![arg])
    }

    /// A float→int conversion that cannot overflow: `(int)(f > -1000.0 && f < 1000.0 ? f : 0.0)`.
    pub(super) fn f2i(&mut self, sc: &Scope) -> Expr {
        let f = self.float_place(sc, false);
        if self.rng.chance(15) {
            // to _Bool: defined for every value (NaN is true)
            return Expr::cast(Ty::I(IntK::Bool), f);
        }
        let k = *self
            .rng
            .pick(&[IntK::Int, IntK::Int, IntK::Long, IntK::Short]);
        let c = Expr::bin(
            Op::LAnd,
            Expr::bin(Op::Gt, f.clone(), Expr::Flt("-1000.0".into())),
            Expr::bin(Op::Lt, f.clone(), Expr::Flt("1000.0".into())),
        );
        Expr::cast(Ty::I(k), Expr::cond(c, f, Expr::Flt("0.0".into())))
    }

    /// One of GCC's bit builtins (generation 9) on an operand of its parameter type: `clz`
    /// and `ctz` mostly of an operand made odd or with its top bit set (they are undefined for
    /// 0, which the oracle's UBSan reports), `bswap16/32` of the operand converted.
    fn bit_builtin(&mut self, sc: &Scope, depth: usize) -> Expr {
        let e = self.iexpr(sc, depth - 1);
        let uint = |e: Expr| Expr::cast(Ty::I(IntK::UInt), e);
        let name = *self.rng.pick(&[
            "__builtin_popcount",
            "__builtin_parity",
            "__builtin_clz",
            "__builtin_ctz",
            "__builtin_ffs",
            "__builtin_clrsb",
            "__builtin_bswap32",
            "__builtin_bswap16",
        ]);
        let arg = match name {
            "__builtin_ffs" | "__builtin_clrsb" => Expr::cast(INT, e),
            "__builtin_bswap16" => Expr::cast(Ty::I(IntK::UShort), e),
            "__builtin_clz" | "__builtin_ctz" if self.rng.chance(80) => Expr::bin(
                Op::Or,
                uint(e),
                Expr::Int(if name == "__builtin_clz" { 1 } else { 0x8000 }),
            ),
            _ => uint(e),
        };
        Expr::Lib(name.into(), vec![arg])
    }

    pub fn iexpr(&mut self, sc: &Scope, depth: usize) -> Expr {
        if depth == 0 || self.rng.chance(30) {
            return self.ileaf(sc);
        }
        if self.stmt_exprs_here(sc) && self.rng.chance(3) {
            return self.stmt_expr(sc, stmtexpr::SeKind::Pure);
        }
        let roll = self.rng.below(100);
        if roll < 7 && !sc.helpers.is_empty() && !sc.ctx.in_spin {
            let h = self.rng.pick(&sc.helpers).clone();
            return self.call(sc, &h);
        }
        if roll < 11 && !sc.tables.is_empty() && !sc.ctx.in_spin {
            return self.ptr_call(sc);
        }
        if roll < 15 && !sc.floats.is_empty() {
            return self.f2i(sc);
        }
        if roll < 17 && !sc.strs.is_empty() {
            let s = self.rng.pick(&sc.strs).clone();
            return Expr::cast(INT, Expr::Lib("strlen".into(), vec![Expr::var(&s)]));
        }
        if self.generation >= 2 && roll < 19 && self.rng.chance(20) {
            // A `<ctype.h>` function of an `unsigned char` (the values it is defined on):
            // glibc's class bits and case mapping, which dizy must model exactly.
            let f = *self.rng.pick(crate::ast::CTYPE_FUNCTIONS);
            let arg = Expr::cast(Ty::I(IntK::UChar), self.iexpr(sc, depth - 1));
            return Expr::Lib(f.into(), vec![arg]);
        }
        if self.generation >= 9 && roll < 21 && self.rng.chance(12) {
            return self.bit_builtin(sc, depth);
        }
        if roll < 21 {
            // a conversion to another integer type
            let k = *self.rng.pick(&[
                IntK::Char,
                IntK::UChar,
                IntK::Short,
                IntK::UShort,
                IntK::UInt,
                IntK::Long,
                IntK::Bool,
            ]);
            return Expr::cast(Ty::I(k), self.iexpr(sc, depth - 1));
        }
        if roll < 26 {
            let u = *self.rng.pick(&[Un::Neg, Un::Not, Un::BitNot]);
            return Expr::Un(u, Box::new(self.iexpr(sc, depth - 1)));
        }
        if roll < 30 {
            let c = self.cond_leaf(sc);
            return Expr::cond(c, self.iexpr(sc, depth - 1), self.iexpr(sc, depth - 1));
        }
        if roll < 35 {
            let op = *self.rng.pick(&[Op::Shl, Op::Shr]);
            let mut a = self.iexpr(sc, depth - 1);
            if op == Op::Shl {
                // a negative left operand is undefined: keep it in 0..255 most of the time
                a = Expr::bin(Op::And, a, Expr::Int(255));
            }
            // constant shift amounts: a variable amount would be undefined almost always
            return Expr::bin(op, a, Expr::Int(self.rng.range(0, 6)));
        }
        if roll < 41 {
            return Expr::bin(
                *self.rng.pick(&Op::CMP),
                self.iexpr(sc, depth - 1),
                self.iexpr(sc, depth - 1),
            );
        }
        let op = *self.rng.pick(&[
            Op::Add,
            Op::Add,
            Op::Sub,
            Op::Sub,
            Op::Mul,
            Op::And,
            Op::Or,
            Op::Xor,
            Op::Div,
            Op::Rem,
        ]);
        let a = self.iexpr(sc, depth - 1);
        let b = match op {
            // mostly nonzero constant divisors, keeps most inputs free of UB
            Op::Div | Op::Rem if self.rng.chance(75) => {
                Expr::Int(*self.rng.pick(&[2, 3, 4, 5, 7, 10, -3]))
            }
            Op::Mul if self.rng.chance(60) => Expr::Int(*self.rng.pick(&[2, 3, 4, 5, -1, -2, 10])),
            _ => self.iexpr(sc, depth - 1),
        };
        Expr::bin(op, a, b)
    }

    fn fleaf(&mut self, sc: &Scope) -> Expr {
        let r = self.rng.below(100);
        if r < 60 && !sc.floats.is_empty() {
            self.float_place(sc, false)
        } else if r < 80 {
            let single = self.rng.chance(20);
            self.fconst(single)
        } else {
            let i = self.ileaf(sc);
            Expr::cast(Ty::F64, i)
        }
    }

    pub fn fexpr(&mut self, sc: &Scope, depth: usize) -> Expr {
        if depth == 0 || self.rng.chance(30) {
            return self.fleaf(sc);
        }
        if self.stmt_exprs_here(sc) && self.rng.chance(3) {
            let pure = stmtexpr::pure_scope(sc);
            return self.typed_max(&pure, true);
        }
        let roll = self.rng.below(100);
        if roll < 10 {
            return Expr::Un(Un::Neg, Box::new(self.fexpr(sc, depth - 1)));
        }
        if roll < 18 {
            let c = self.cond(sc);
            return Expr::cond(c, self.fexpr(sc, depth - 1), self.fexpr(sc, depth - 1));
        }
        if roll < 24 {
            let i = self.iexpr(sc, depth - 1);
            return Expr::cast(
                if self.rng.chance(70) {
                    Ty::F64
                } else {
                    Ty::F32
                },
                i,
            );
        }
        let op = *self
            .rng
            .pick(&[Op::Add, Op::Add, Op::Sub, Op::Mul, Op::Mul, Op::Div]);
        Expr::bin(op, self.fexpr(sc, depth - 1), self.fexpr(sc, depth - 1))
    }

    pub fn cond(&mut self, sc: &Scope) -> Expr {
        if !sc.floats.is_empty() && self.rng.chance(35) {
            let a = self.fexpr(sc, 1);
            let c = match self.rng.below(10) {
                0 => {
                    // NaN test
                    let v = self.float_place(sc, false);
                    Expr::bin(*self.rng.pick(&[Op::Ne, Op::Eq]), v.clone(), v)
                }
                1..=4 => Expr::bin(*self.rng.pick(&Op::CMP), a, self.fconst(false)),
                _ => Expr::bin(*self.rng.pick(&Op::CMP), a, self.fexpr(sc, 1)),
            };
            return if self.rng.chance(15) {
                Expr::Un(Un::Not, Box::new(c))
            } else {
                c
            };
        }
        let a = self.iexpr(sc, 2);
        let b = if self.rng.chance(60) {
            Expr::Int(self.constant())
        } else {
            self.iexpr(sc, 1)
        };
        let c = Expr::bin(*self.rng.pick(&Op::CMP), a, b);
        if self.rng.chance(15) {
            let d = self.cond_leaf(sc);
            Expr::bin(*self.rng.pick(&[Op::LAnd, Op::LOr]), c, d)
        } else if self.rng.chance(8) {
            Expr::Un(Un::Not, Box::new(c))
        } else {
            c
        }
    }

    fn cond_leaf(&mut self, sc: &Scope) -> Expr {
        let a = self.int_place(sc, false);
        Expr::bin(*self.rng.pick(&Op::CMP), a, Expr::Int(self.constant()))
    }
}
