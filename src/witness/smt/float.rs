//! IEEE 754 floating point in the path encoding: `float` and `double` values as bit-vectors of
//! their encoding (32 and 64 bits), their arithmetic, comparisons and conversions in z3's
//! floating-point theory, as x86-64 SSE computes them (round to nearest even; conversions to
//! integers truncate, and are defined only in range).
//!
//! Takes typed IR operands through [`Enc::expr`]; gives bit-vector terms and records
//! definitions. The z3 crate offers floating-point terms only with rounding towards zero, so
//! each operation is written as an SMT-LIB definition of a fresh named result in terms of fresh
//! named operands (`fp!12 = fp.add RNE fp!10 fp!11`), which the solver parses
//! ([`Enc::fp_defs`], given to it by the parent module). A definition constrains only its own
//! fresh result, so the solver takes it outside the path's activation literals; the operands are
//! bound to their terms by ordinary facts of the path. Results that are NaN leave their payload
//! open, which validation by execution does not mind.

use z3::ast::{Ast, Bool, BV};

use super::encode::{is_int, signed, width, Enc};
use crate::ir::{BinOp, CType, Expr, ExprKind};

/// SMT-LIB's sort parameters (exponent and significand bits) of a floating type.
fn sort(t: &CType) -> Option<(u32, u32)> {
    match t {
        CType::Float => Some((8, 24)),
        CType::Double => Some((11, 53)),
        _ => None,
    }
}

/// Floating-point operations encoded exactly on one path; later ones give unconstrained values
/// (a model may then miss the path, which its validation tells).
pub(super) const MAX_OPS: usize = 48;

impl<'ctx> Enc<'ctx, '_> {
    /// Counts one floating-point operation; false when the path has had its share.
    fn fp_op(&mut self) -> bool {
        self.fp_ops += 1;
        self.fp_ops <= MAX_OPS
    }

    /// A fresh name bound to `v` by a fact, and its SMT-LIB declaration.
    fn name_of(&mut self, v: &BV<'ctx>) -> (String, String) {
        self.fp_count += 1;
        let n = format!("fp!{}", self.fp_count);
        let w = v.get_size();
        let named = BV::new_const(self.ctx, n.clone(), w);
        self.facts.push(named._eq(v));
        let decl = format!("(declare-const |{n}| (_ BitVec {w}))");
        (n, decl)
    }

    /// The floating term of an operand converted to `to` (a floating type), with the
    /// declarations it needs.
    fn fp_term(&mut self, e: &Expr, to: &CType, decls: &mut String) -> Option<String> {
        let (eb, sb) = sort(to)?;
        if e.ty == *to {
            let v = self.expr(e)?;
            let (n, d) = self.name_of(&v);
            decls.push_str(&d);
            return Some(format!("((_ to_fp {eb} {sb}) |{n}|)"));
        }
        if let Some((xe, xs)) = sort(&e.ty) {
            // float <-> double
            let v = self.expr(e)?;
            let (n, d) = self.name_of(&v);
            decls.push_str(&d);
            return Some(format!(
                "((_ to_fp {eb} {sb}) RNE ((_ to_fp {xe} {xs}) |{n}|))"
            ));
        }
        if is_int(&e.ty) || e.ty == CType::Bool {
            let v = self.expr(e)?;
            let (n, d) = self.name_of(&v);
            decls.push_str(&d);
            let conv = if signed(&e.ty) {
                "to_fp"
            } else {
                "to_fp_unsigned"
            };
            return Some(format!("((_ {conv} {eb} {sb}) RNE |{n}|)"));
        }
        None
    }

    /// A fresh `w`-bit result defined as the encoding of floating term `term` of type `t`.
    fn fp_result(&mut self, t: &CType, term: &str, mut decls: String) -> Option<BV<'ctx>> {
        let (eb, sb) = sort(t)?;
        self.fp_count += 1;
        let n = format!("fp!{}", self.fp_count);
        let w = eb + sb;
        decls.push_str(&format!("(declare-const |{n}| (_ BitVec {w}))"));
        self.fp_defs.push(format!(
            "{decls}(assert (= ((_ to_fp {eb} {sb}) |{n}|) {term}))"
        ));
        Some(BV::new_const(self.ctx, n, w))
    }

    /// A fresh Boolean defined as `term`.
    fn fp_bool(&mut self, term: &str, mut decls: String) -> Bool<'ctx> {
        self.fp_count += 1;
        let n = format!("fp!{}", self.fp_count);
        decls.push_str(&format!("(declare-const |{n}| Bool)"));
        self.fp_defs
            .push(format!("{decls}(assert (= |{n}| {term}))"));
        Bool::new_const(self.ctx, n)
    }

    /// A floating constant of type `t`.
    pub(super) fn float_const(&self, x: f64, t: &CType) -> Option<BV<'ctx>> {
        match t {
            CType::Float => Some(self.konst(i128::from((x as f32).to_bits()), 32)),
            CType::Double => Some(self.konst(i128::from(x.to_bits()), 64)),
            _ => None,
        }
    }

    /// `a op b` computed in floating type `ty` (`+ - * /`); `None` for anything else.
    pub(super) fn float_binary(
        &mut self,
        op: BinOp,
        a: &Expr,
        b: &Expr,
        ty: &CType,
    ) -> Option<BV<'ctx>> {
        let f = match op {
            BinOp::Add => "fp.add",
            BinOp::Sub => "fp.sub",
            BinOp::Mul => "fp.mul",
            BinOp::Div => "fp.div",
            _ => return None,
        };
        if !self.fp_op() {
            return None;
        }
        let mut decls = String::new();
        let x = self.fp_term(a, ty, &mut decls)?;
        // Dividing by a power of two is multiplying by its (exact) reciprocal: the same
        // correctly rounded result, and z3 solves multiplications far faster than divisions.
        if let (BinOp::Div, Some(c)) = (op, constant(b)) {
            let r = 1.0 / c;
            if c.is_finite() && c != 0.0 && r.is_normal() && c.abs().log2().fract() == 0.0 {
                let y = self.float_const(r, ty)?;
                let (n, d) = self.name_of(&y);
                decls.push_str(&d);
                let (eb, sb) = sort(ty)?;
                let y = format!("((_ to_fp {eb} {sb}) |{n}|)");
                return self.fp_result(ty, &format!("(fp.mul RNE {x} {y})"), decls);
            }
        }
        let y = self.fp_term(b, ty, &mut decls)?;
        self.fp_result(ty, &format!("({f} RNE {x} {y})"), decls)
    }

    /// `-x` of a floating value: its sign bit flipped (NaN included, as SSE does).
    pub(super) fn float_neg(&mut self, x: &Expr, ty: &CType) -> Option<BV<'ctx>> {
        let w = width(ty)?;
        if x.ty != *ty {
            return None;
        }
        let v = self.expr(x)?;
        Some(v.bvxor(&self.konst(1i128 << (w - 1), w)))
    }

    /// A comparison with a floating operand, in the usual arithmetic conversions' type (IEEE:
    /// false on NaN but for `!=`; `-0.0 == 0.0`).
    pub(super) fn float_compare(&mut self, op: BinOp, a: &Expr, b: &Expr) -> Option<Bool<'ctx>> {
        if !self.fp_op() {
            return None;
        }
        let t = if a.ty == CType::Double || b.ty == CType::Double {
            CType::Double
        } else {
            CType::Float
        };
        let mut decls = String::new();
        let x = self.fp_term(a, &t, &mut decls)?;
        let y = self.fp_term(b, &t, &mut decls)?;
        let term = match op {
            BinOp::Eq => format!("(fp.eq {x} {y})"),
            BinOp::Ne => format!("(not (fp.eq {x} {y}))"),
            BinOp::Lt => format!("(fp.lt {x} {y})"),
            BinOp::Le => format!("(fp.leq {x} {y})"),
            BinOp::Gt => format!("(fp.gt {x} {y})"),
            BinOp::Ge => format!("(fp.geq {x} {y})"),
            _ => return None,
        };
        Some(self.fp_bool(&term, decls))
    }

    /// C truth of a floating value: it is not ±0 (NaN is true).
    pub(super) fn float_truth(&mut self, e: &Expr) -> Option<Bool<'ctx>> {
        if !self.fp_op() {
            return None;
        }
        let mut decls = String::new();
        let x = self.fp_term(e, &e.ty.clone(), &mut decls)?;
        Some(self.fp_bool(&format!("(not (fp.isZero {x}))"), decls))
    }

    /// A conversion to or from a floating type. To an integer it truncates and is defined only
    /// when the truncated value fits (a fact); to `_Bool` it is the truth value.
    pub(super) fn float_cast(&mut self, x: &Expr, to: &CType) -> Option<BV<'ctx>> {
        if !self.fp_op() {
            return None;
        }
        if sort(to).is_some() {
            let mut decls = String::new();
            let term = self.fp_term(x, to, &mut decls)?;
            return self.fp_result(to, &term, decls);
        }
        let (eb, sb) = sort(&x.ty)?;
        if *to == CType::Bool {
            let t = self.float_truth(x)?;
            return Some(self.bool_bv(&t, 1));
        }
        let CType::Int { bits, signed } = *to else {
            return None;
        };
        let w = u32::from(bits);
        let mut decls = String::new();
        let v = self.expr(x)?;
        let (n, d) = self.name_of(&v);
        decls.push_str(&d);
        let fx = format!("((_ to_fp {eb} {sb}) |{n}|)");
        // in range: lo < x < hi, the bounds rounded to the source type (a bound that rounds
        // inwards only excludes more inputs)
        let (lo, hi) = if signed {
            (-(2f64.powi(w as i32 - 1)) - 1.0, 2f64.powi(w as i32 - 1))
        } else {
            (-1.0, 2f64.powi(w as i32))
        };
        let bound = |b: f64| format!("((_ to_fp {eb} {sb}) RNE {})", real(b));
        let ok = self.fp_bool(
            &format!(
                "(and (fp.lt {} {fx}) (fp.lt {fx} {}))",
                bound(lo),
                bound(hi)
            ),
            decls.clone(),
        );
        self.defined(ok);
        self.fp_count += 1;
        let r = format!("fp!{}", self.fp_count);
        let conv = if signed { "fp.to_sbv" } else { "fp.to_ubv" };
        self.fp_defs.push(format!(
            "{decls}(declare-const |{r}| (_ BitVec {w}))(assert (= |{r}| ((_ {conv} {w}) RTZ {fx})))"
        ));
        Some(BV::new_const(self.ctx, r, w))
    }
}

/// The value of a floating constant operand, also one converted from a constant of another
/// arithmetic type (only powers of two are used, which convert exactly).
fn constant(e: &Expr) -> Option<f64> {
    match &e.kind {
        ExprKind::Float(x) => Some(*x),
        ExprKind::Int(v) => Some(*v as f64),
        ExprKind::Cast(x) if e.ty.is_float() => match x.kind {
            ExprKind::Float(v) if x.ty.is_float() => Some(v),
            ExprKind::Int(v) if is_int(&x.ty) => Some(v as f64),
            _ => None,
        },
        _ => None,
    }
}

/// An integral `f64` as an SMT-LIB real literal (`-2147483649.0`, `(- 1.0)`).
fn real(x: f64) -> String {
    let a = format!("{:.1}", x.abs());
    if x < 0.0 {
        format!("(- {a})")
    } else {
        a
    }
}

#[cfg(test)]
mod tests {
    use super::real;

    #[test]
    fn bounds_are_smt_lib_reals() {
        assert_eq!(real(2147483648.0), "2147483648.0");
        assert_eq!(real(-2147483649.0), "(- 2147483649.0)");
        assert_eq!(real(-1.0), "(- 1.0)");
    }
}
