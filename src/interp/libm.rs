//! The C library's mathematics for the interpreter.
//!
//! Takes the name of a `<math.h>` function and its argument values; gives its result as the
//! compiled program computes it. Rust's `f64`/`f32` methods call the same C library (glibc's
//! libm) that a natively compiled witness links with `-lm`, or are exact operations (`sqrt`,
//! `fabs`, rounding), so a witness found here reproduces natively. `errno` is not modelled: the
//! calls stay effects of the correlating program, compared by their arguments.

use super::Value;
use crate::ir::CType;

/// The value of `name(args)`; `None` when `name` is not a function this module knows, an error
/// text when it is called with the wrong number of arguments. Left out: functions whose result
/// the C standard leaves open (`fmin`/`fmax` of zeros of both signs, `lround` out of range),
/// that Rust has no single libm call for (`ldexp`), or that Rust computes itself (`cbrt`, which
/// differs from glibc's in the last bit: `tests/differential_cc.rs` caught it); the
/// interpreter cannot run them.
pub(super) fn call(name: &str, args: &[Value]) -> Option<Result<(Value, CType), String>> {
    // The `double` form, else the `float` one (`sinf`, `sqrtf`, …).
    let (base, single) = if eval_f64(name, 0.0, 0.0).is_some() {
        (name, false)
    } else {
        let base = name.strip_suffix('f')?;
        eval_f32(base, 0.0, 0.0)?;
        (base, true)
    };
    let arity = match base {
        "atan2" | "pow" | "fmod" | "hypot" | "copysign" => 2,
        _ => 1,
    };
    if args.len() != arity {
        return Some(Err(format!(
            "`{name}` called with {} arguments, expected {arity}",
            args.len()
        )));
    }
    let num = |v: &Value| match *v {
        Value::Int(x) => x as f64,
        Value::Float(x) => f64::from(x),
        Value::Double(x) => x,
    };
    let (x, y) = (num(&args[0]), args.get(1).map_or(0.0, num));
    Some(Ok(if single {
        let r = eval_f32(base, x as f32, y as f32)?;
        (Value::Float(r), CType::Float)
    } else {
        (Value::Double(eval_f64(base, x, y)?), CType::Double)
    }))
}

/// One evaluator per floating type, from one table.
macro_rules! evaluator {
    ($name:ident, $t:ty) => {
        fn $name(name: &str, x: $t, y: $t) -> Option<$t> {
            Some(match name {
                "fabs" => x.abs(),
                "sqrt" => x.sqrt(),
                "sin" => x.sin(),
                "cos" => x.cos(),
                "tan" => x.tan(),
                "asin" => x.asin(),
                "acos" => x.acos(),
                "atan" => x.atan(),
                "atan2" => x.atan2(y),
                "sinh" => x.sinh(),
                "cosh" => x.cosh(),
                "tanh" => x.tanh(),
                "exp" => x.exp(),
                "exp2" => x.exp2(),
                "log" => x.ln(),
                "log2" => x.log2(),
                "log10" => x.log10(),
                "pow" => x.powf(y),
                "floor" => x.floor(),
                "ceil" => x.ceil(),
                "round" => x.round(),
                "trunc" => x.trunc(),
                // C's fmod and Rust's `%` are both the exact remainder with the dividend's sign.
                "fmod" => x % y,
                "hypot" => x.hypot(y),
                "copysign" => x.copysign(y),
                // The default rounding mode: to nearest, ties to even.
                "nearbyint" | "rint" => x.round_ties_even(),
                _ => return None,
            })
        }
    };
}
evaluator!(eval_f64, f64);
evaluator!(eval_f32, f32);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn double_and_float_forms() {
        let d = |name: &str, args: &[f64]| {
            let vals: Vec<Value> = args.iter().map(|x| Value::Double(*x)).collect();
            call(name, &vals).expect("known").expect("arity")
        };
        assert_eq!(d("sqrt", &[4.0]).0, Value::Double(2.0));
        assert_eq!(d("pow", &[2.0, 10.0]).0, Value::Double(1024.0));
        assert_eq!(d("fmod", &[-7.0, 3.0]).0, Value::Double(-1.0));
        assert_eq!(d("rint", &[2.5]).0, Value::Double(2.0));
        assert_eq!(d("round", &[2.5]).0, Value::Double(3.0));
        assert!(call("ldexp", &[Value::Double(1.0), Value::Int(3)]).is_none());
        let (v, t) = d("sqrtf", &[2.0]);
        assert_eq!((v, t), (Value::Float(2f32.sqrt()), CType::Float));
        assert!(call("erf", &[Value::Double(1.0)]).is_none());
        assert!(call("pow", &[Value::Double(1.0)]).expect("known").is_err());
    }
}
