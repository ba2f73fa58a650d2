//! A sample of a function's input plane: where the two versions agree and where they differ.
//!
//! Takes both loaded programs, a function of one or two arithmetic (integer or floating)
//! parameters, the point to centre on (the witness, if any) and the values the grid must cover
//! (the constants of both versions, the seeds of Δ); gives an [`InputPlane`]: a grid of inputs
//! on which *both versions were executed* by the interpreter, each point marked as agreeing,
//! differing ([`super::differ`], as for witnesses), or not evaluated (undefined behaviour, no
//! return within the step budget, or not run when the sample's time ran out). It is a sample,
//! not a proof: the HTML report draws it as a picture next to the verdict.
//!
//! Runs in the witness stage (it needs the interpreter and the witness) and only when the
//! driver asks for it (`--format html`); the report renders it and computes nothing.

use std::time::{Duration, Instant};

use super::{behave, differ, params_of, Behaviour, Inputs};
use crate::gcl::GclProgram;
use crate::interp::{self, Value};
use crate::ir::{CType, ExprKind};
use crate::limits::Budget;

/// How large the sample is and what it may spend.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Options {
    /// Grid points of a one-parameter function (before constants are added).
    pub points_1d: usize,
    /// Grid points per axis of a two-parameter function (before constants are added).
    pub points_2d: usize,
    /// Interpreter steps per execution; a version still running then is "not evaluated".
    pub step_budget: u64,
    /// Time for the whole sample; points not run by then are "not evaluated".
    pub time: Duration,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            points_1d: 81,
            points_2d: 31,
            step_budget: 100_000,
            time: Duration::from_secs(2),
        }
    }
}

/// Constants farther than this from the centre are not covered: the grid would be too coarse
/// to show anything near the centre.
const FAR: f64 = (1u64 << 20) as f64;
/// At most this many values of the code (each with its neighbours) are added to an axis.
const MAX_EXTRA: usize = 24;

/// One parameter's axis: the values sampled, increasing.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Axis {
    pub name: String,
    /// The parameter's C type, as written in the report (`int`, `unsigned char`, `double`).
    pub ty: String,
    /// The values as numbers (for placing them) and as the C literals that were run.
    pub values: Vec<f64>,
    pub literals: Vec<String>,
}

/// What running both versions on one point showed.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum Outcome {
    Agree,
    Differ,
    /// Either version had undefined behaviour (or did something the interpreter does not run).
    Failed,
    /// Either version did not return within the step budget.
    NoReturn,
    /// Not run: the sample's time ran out.
    NotRun,
}

impl Outcome {
    /// Whether the point tells anything about the two versions (agree or differ).
    pub fn evaluated(&self) -> bool {
        matches!(self, Outcome::Agree | Outcome::Differ)
    }
}

/// One grid point: its outcome and, where both versions returned, their behaviours.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Point {
    pub outcome: Outcome,
    pub old: Option<Behaviour>,
    pub new: Option<Behaviour>,
}

/// The sample: one or two axes and the points, the first axis varying fastest
/// (`points[i + j * axes[0].values.len()]`).
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct InputPlane {
    pub axes: Vec<Axis>,
    pub points: Vec<Point>,
    /// The witness's coordinates (one per axis), when the sample is centred on one.
    pub witness: Option<Vec<f64>>,
    /// The step budget each execution had.
    pub step_budget: u64,
}

impl InputPlane {
    /// The point at grid indices `(i, j)` (`j` is 0 for one axis).
    pub fn at(&self, i: usize, j: usize) -> &Point {
        &self.points[i + j * self.axes[0].values.len()]
    }

    /// How many points have each outcome: agree, differ, not evaluated.
    pub fn counts(&self) -> (usize, usize, usize) {
        let n = |o: Outcome| self.points.iter().filter(|p| p.outcome == o).count();
        let (a, d) = (n(Outcome::Agree), n(Outcome::Differ));
        (a, d, self.points.len() - a - d)
    }
}

/// Sample `func`'s inputs around `center` (the witness; 0 without one). `None` unless both
/// versions define `func` with the same one or two arithmetic parameter types.
pub fn sample(
    old: &GclProgram,
    new: &GclProgram,
    func: &str,
    center: Option<&Inputs>,
    cover: &[f64],
    opts: &Options,
    budget: &Budget,
) -> Option<InputPlane> {
    let (fo, fnew) = (old.function(func)?, new.function(func)?);
    let params = params_of(fo);
    let types = |ps: &[(String, CType)]| ps.iter().map(|p| p.1.clone()).collect::<Vec<_>>();
    if !(1..=2).contains(&params.len())
        || types(&params) != types(&params_of(fnew))
        || params.iter().any(|(_, t)| !t.is_arith())
    {
        return None;
    }
    // The values of the code the grid should reach: its constants and what the caller adds.
    let mut wanted: Vec<f64> = cover.to_vec();
    for f in [fo, fnew] {
        for ins in &f.instrs {
            ins.kind.walk_exprs(&mut |e| match e.kind {
                ExprKind::Int(v) => wanted.push(v as f64),
                ExprKind::Float(x) if x.is_finite() => wanted.push(x),
                _ => {}
            });
        }
    }
    let per_axis = if params.len() == 1 {
        opts.points_1d
    } else {
        opts.points_2d
    };
    let mut axes = vec![];
    let mut witness = vec![];
    for (k, (name, ty)) in params.iter().enumerate() {
        let c = center
            .and_then(|w| w.get(k))
            .and_then(|(_, lit)| interp::parse_arg(lit, ty).ok())
            .map(|v| number(&v))
            .filter(|x| x.is_finite());
        witness.extend(c);
        let ty_text = crate::gcl::type_text(fo, &old.program, ty);
        axes.push(axis(
            name,
            ty,
            ty_text,
            c.unwrap_or(0.0),
            &wanted,
            per_axis,
        )?);
    }
    let witness = (center.is_some() && witness.len() == axes.len()).then_some(witness);
    let start = Instant::now();
    let run = |vals: &[&String]| -> Point {
        let args: Option<Vec<Value>> = params
            .iter()
            .zip(vals)
            .map(|((_, t), v)| interp::parse_arg(v, t).ok())
            .collect();
        let none = |outcome| Point {
            outcome,
            old: None,
            new: None,
        };
        let Some(args) = args else {
            return none(Outcome::Failed);
        };
        if start.elapsed() > opts.time || budget.check().is_err() {
            return none(Outcome::NotRun);
        }
        let (o, n) = match (
            behave(old, func, &args, opts.step_budget),
            behave(new, func, &args, opts.step_budget),
        ) {
            (Some(o), Some(n)) => (o, n),
            _ => return none(Outcome::Failed),
        };
        if o.diverged.is_some() || n.diverged.is_some() {
            return none(Outcome::NoReturn);
        }
        Point {
            outcome: if differ(&o, &n) {
                Outcome::Differ
            } else {
                Outcome::Agree
            },
            old: Some(o),
            new: Some(n),
        }
    };
    let mut points = vec![];
    match axes.as_slice() {
        [x] => points.extend(x.literals.iter().map(|a| run(&[a]))),
        [x, y] => {
            for b in &y.literals {
                for a in &x.literals {
                    points.push(run(&[a, b]));
                }
            }
        }
        _ => return None,
    }
    Some(InputPlane {
        axes,
        points,
        witness,
        step_budget: opts.step_budget,
    })
}

fn number(v: &Value) -> f64 {
    match *v {
        Value::Int(i) => i as f64,
        Value::Float(x) => f64::from(x),
        Value::Double(x) => x,
    }
}

/// The axis of one parameter: about `n` evenly spaced values centred on `c`, wide enough to
/// reach the values of `wanted` within [`FAR`] of it, plus each such value and its neighbours
/// (where the behaviour of code usually changes) and `c` itself; within the type's range.
fn axis(name: &str, ty: &CType, ty_text: String, c: f64, wanted: &[f64], n: usize) -> Option<Axis> {
    // The values an integer type can hold (constants beyond them are never its value).
    let range = ty.int_info().map(|(bits, signed)| {
        if bits == 1 {
            (0i128, 1i128)
        } else if signed {
            (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
        } else {
            (0, (1i128 << bits) - 1)
        }
    });
    let near: Vec<f64> = {
        let mut v: Vec<f64> = wanted
            .iter()
            .copied()
            .filter(|k| (k - c).abs() <= FAR)
            .filter(|k| range.is_none_or(|(lo, hi)| (lo as f64..=hi as f64).contains(k)))
            .collect();
        v.sort_by(|a, b| (a - c).abs().total_cmp(&(b - c).abs()));
        v.dedup();
        v.truncate(MAX_EXTRA);
        v
    };
    let reach = near.iter().map(|k| (k - c).abs()).fold(0.0, f64::max) * 1.1;
    let half = (n.max(2) - 1) as f64 / 2.0;
    let mut values: Vec<f64> = vec![c];
    if let Some((min, max)) = range {
        let step = (reach / half).ceil().max(1.0) as i128;
        let span = step * (n.max(2) as i128 - 1);
        // Centred on c, shifted (not cut) to stay within the type; a type with fewer values
        // than the grid is sampled whole.
        let mut lo = c as i128 - span / 2;
        lo = lo.max(min).min((max - span).max(min));
        values.extend((0..n as i128).map(|i| (lo + i * step).min(max) as f64));
        for k in &near {
            let k = k.round() as i128;
            values.extend(
                [k - 1, k, k + 1]
                    .into_iter()
                    .filter(|v| (min..=max).contains(v))
                    .map(|v| v as f64),
            );
        }
        values.retain(|v| (min as f64..=max as f64).contains(v));
    } else {
        let step = (reach.max(1.0) / half).max(f64::MIN_POSITIVE);
        values.extend((0..n).map(|i| c + (i as f64 - half) * step));
        values.extend(near.iter().copied());
        if ty == &CType::Float {
            values = values.iter().map(|v| f64::from(*v as f32)).collect();
        }
    }
    values.sort_by(f64::total_cmp);
    values.dedup();
    let literals: Vec<String> = values
        .iter()
        .map(|v| {
            let lit = if ty.is_integer() {
                format!("{}", *v as i128)
            } else {
                format!("{v:?}")
            };
            interp::parse_arg(&lit, ty)
                .map(|x| interp::format_value(&x, ty))
                .ok()
        })
        .collect::<Option<_>>()?;
    Some(Axis {
        name: name.to_string(),
        ty: ty_text,
        values,
        literals,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load(dir: &std::path::Path, name: &str, src: &str) -> GclProgram {
        let p = dir.join(name);
        std::fs::write(&p, src).unwrap();
        crate::load_gcl(&p, &Default::default()).unwrap()
    }

    fn plane(old: &str, new: &str, center: Option<&Inputs>) -> Option<InputPlane> {
        let dir = tempfile::tempdir().unwrap();
        let (o, n) = (load(dir.path(), "o.c", old), load(dir.path(), "n.c", new));
        sample(
            &o,
            &n,
            "f",
            center,
            &[],
            &Options::default(),
            &Budget::unlimited(),
        )
    }

    /// Each point's outcome is what running both versions on it gives: here `x > 5` and
    /// `x > 6` differ exactly at 6, which the grid contains because 5 and 6 are constants.
    #[test]
    fn one_parameter_differs_exactly_where_the_versions_do() {
        let p = plane(
            "int f(int x) { return x > 5; }",
            "int f(int x) { return x > 6; }",
            None,
        )
        .expect("a sample");
        assert_eq!(p.axes.len(), 1);
        let xs = &p.axes[0].values;
        assert!(xs.contains(&6.0) && xs.contains(&0.0) && xs.len() >= 81);
        assert!(xs.windows(2).all(|w| w[0] < w[1]));
        for (x, pt) in xs.iter().zip(&p.points) {
            let want = if *x == 6.0 {
                Outcome::Differ
            } else {
                Outcome::Agree
            };
            assert_eq!(pt.outcome, want, "x = {x}");
        }
        assert_eq!(p.witness, None);
    }

    /// Two parameters give a plane centred on the witness; undefined behaviour (division by
    /// zero in the old version) is "not evaluated", never "agree" or "differ".
    #[test]
    fn two_parameters_and_undefined_behaviour() {
        let w: Inputs = vec![("x".into(), "40".into()), ("y".into(), "3".into())];
        let p = plane(
            "int f(int x, int y) { return x / y; }",
            "int f(int x, int y) { return y == 0 ? 0 : x / y + (x > 30); }",
            Some(&w),
        )
        .expect("a sample");
        assert_eq!(p.axes.len(), 2);
        assert_eq!(p.witness, Some(vec![40.0, 3.0]));
        let (xs, ys) = (&p.axes[0].values, &p.axes[1].values);
        assert!(ys.contains(&0.0), "the grid reaches y = 0: {ys:?}");
        for (j, y) in ys.iter().enumerate() {
            for (i, x) in xs.iter().enumerate() {
                let want = if *y == 0.0 {
                    Outcome::Failed
                } else if *x > 30.0 {
                    Outcome::Differ
                } else {
                    Outcome::Agree
                };
                assert_eq!(p.at(i, j).outcome, want, "x = {x}, y = {y}");
            }
        }
    }

    /// No plot without one or two arithmetic parameters.
    #[test]
    fn only_one_or_two_arithmetic_parameters() {
        for (o, n) in [
            ("int f(void) { return 1; }", "int f(void) { return 2; }"),
            (
                "int f(int a, int b, int c) { return a; }",
                "int f(int a, int b, int c) { return b; }",
            ),
            (
                "int f(int *p) { return !p; }",
                "int f(int *p) { return 0; }",
            ),
            (
                "int f(int a) { return a; }",
                "int f(long a) { return (int)a; }",
            ),
        ] {
            assert_eq!(plane(o, n, None), None, "{o} / {n}");
        }
        let p = plane(
            "double f(double x, unsigned char c) { return x < 2.5 ? c : 0; }",
            "double f(double x, unsigned char c) { return x <= 2.5 ? c : 0; }",
            None,
        )
        .expect("a sample");
        assert_eq!(p.axes[0].ty, "double");
        assert_eq!(p.axes[1].ty, "unsigned char");
        assert!(p.axes[1].values.iter().all(|v| (0.0..=255.0).contains(v)));
        // x = 2.5 is a constant of the code, so it is sampled; there the versions differ
        // unless c is 0.
        let i = p.axes[0].values.iter().position(|v| *v == 2.5).unwrap();
        for (j, c) in p.axes[1].values.iter().enumerate() {
            let want = if *c == 0.0 {
                Outcome::Agree
            } else {
                Outcome::Differ
            };
            assert_eq!(p.at(i, j).outcome, want, "c = {c}");
        }
    }

    /// A narrow type is sampled within its range, with as many points as the grid has, even
    /// when the code has constants its values never reach.
    #[test]
    fn narrow_types_keep_their_points() {
        let p = plane(
            "int f(signed char c) { return c == 9 || c > 100000; }",
            "int f(signed char c) { return c == 10 || c > 100000; }",
            None,
        )
        .unwrap();
        let xs = &p.axes[0].values;
        assert!(xs.len() >= Options::default().points_1d, "{xs:?}");
        assert!(xs.iter().all(|x| (-128.0..=127.0).contains(x)));
        assert_eq!(p.counts().1, 2, "c = 9 and c = 10 differ");
    }

    /// A version that does not return within the step budget makes its points "not
    /// evaluated"; so does the end of the sample's time.
    #[test]
    fn loops_and_time_are_not_evaluated() {
        let p = plane(
            "int f(int n) { while (n > 3) { } return n; }",
            "int f(int n) { return n; }",
            None,
        )
        .unwrap();
        for (x, pt) in p.axes[0].values.iter().zip(&p.points) {
            let want = if *x > 3.0 {
                Outcome::NoReturn
            } else {
                Outcome::Agree
            };
            assert_eq!(pt.outcome, want, "n = {x}");
        }
        let dir = tempfile::tempdir().unwrap();
        let o = load(dir.path(), "o.c", "int f(int x) { return x; }");
        let opts = Options {
            time: Duration::ZERO,
            ..Default::default()
        };
        let p = sample(&o, &o, "f", None, &[], &opts, &Budget::unlimited()).unwrap();
        assert!(p.points.iter().all(|p| p.outcome == Outcome::NotRun));
    }
}
