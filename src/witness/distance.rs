//! Branch-distance search: the alternating variable method over scalar parameters.
//!
//! Takes a [`Runner`] whose parameters are all scalars, starting points and a deadline; gives
//! the first validated witness its runs meet, or nothing. Where the solver gives up
//! (floating-point paths past its time limit, library mathematics such as `sin`, which it does
//! not model) and random values are unlikely to hit a narrow range, the runs themselves tell
//! how far each unreached instruction's guard is from holding ([`crate::interp::Interp::
//! distances`]: normalized distances of the comparisons that decide it). The search takes the
//! closest such instruction of either version as its target and moves one parameter at a
//! time — a small step in each direction, doubled while the distance keeps falling (Korel's
//! pattern moves) — until the target runs, then takes the next. Every run is an ordinary
//! candidate of the runner, validated as any other.

use std::collections::{HashMap, HashSet};
use std::time::Instant;

use super::{Runner, Witness};
use crate::ir::CType;

const STRATEGY: &str = "search (branch distance)";

/// Targets tried per starting point before the next one.
const MAX_TARGETS: usize = 32;

/// The state of the search: the instructions covered so far (coverage keys without counts).
struct Walk<'r, 'a> {
    r: &'r mut Runner<'a>,
    types: Vec<CType>,
    covered: HashSet<u64>,
    deadline: Instant,
}

/// What one candidate gave: a witness, or the distances of the instructions it did not run.
enum Outcome {
    Found(Box<Witness>),
    Ran(HashMap<u64, f64>),
    Stop,
}

impl Walk<'_, '_> {
    fn literal(&self, k: usize, x: f64) -> String {
        match &self.types[k] {
            CType::Double => crate::ir::fmt_double(x),
            CType::Float => crate::ir::fmt_float(x as f32),
            _ => format!("{}", x.round() as i128),
        }
    }

    fn run(&mut self, x: &[f64]) -> Outcome {
        if Instant::now() > self.deadline || self.r.exhausted() {
            return Outcome::Stop;
        }
        let lits: Vec<String> = (0..x.len()).map(|k| self.literal(k, x[k])).collect();
        if let Some(w) = self.r.try_literals(&lits, STRATEGY) {
            return Outcome::Found(Box::new(w));
        }
        if let Some(cov) = self.r.log.coverage.borrow().as_ref() {
            // an instruction that held: bucket of its count non-zero
            self.covered
                .extend(cov.iter().filter(|f| *f & 0x7f != 0).map(|f| f & !0xff));
        }
        Outcome::Ran(self.r.log.distances.borrow().clone())
    }

    /// The closest instruction not yet covered nor given up.
    fn target(&self, d: &HashMap<u64, f64>, done: &HashSet<u64>) -> Option<(u64, f64)> {
        d.iter()
            .filter(|(k, _)| !self.covered.contains(*k) && !done.contains(*k))
            .map(|(k, v)| (*k, *v))
            .min_by(|a, b| a.1.total_cmp(&b.1).then(a.0.cmp(&b.0)))
    }

    /// The first step of parameter `k` from `x`.
    fn step(&self, x: f64, k: usize) -> f64 {
        if self.types[k].is_float() {
            (x.abs() * 1e-3).max(1e-3)
        } else {
            1.0
        }
    }

    /// Moves `x` towards running `t` (distance `dt` now); gives a witness found on the way
    /// (or `Err(None)` at the deadline), `Ok(true)` when `t` ran, `Ok(false)` when no move
    /// brings it closer. Each parameter in turn: a step each way, doubled while the distance
    /// falls; where neither way helps, steps four times smaller (floating parameters down to
    /// a millionth of the first).
    fn climb(
        &mut self,
        x: &mut Vec<f64>,
        t: u64,
        mut dt: f64,
    ) -> Result<bool, Option<Box<Witness>>> {
        let mut improved = true;
        while improved {
            improved = false;
            for k in 0..x.len() {
                let first = self.step(x[k], k);
                let mut s0 = first;
                while s0 >= first * 1e-6 && !improved {
                    for dir in [1.0, -1.0] {
                        let mut s = s0;
                        loop {
                            let mut y = x.clone();
                            y[k] += dir * s;
                            if !y[k].is_finite() || y[k] == x[k] {
                                break;
                            }
                            let d = match self.run(&y) {
                                Outcome::Found(w) => return Err(Some(w)),
                                Outcome::Stop => return Err(None),
                                Outcome::Ran(d) => d,
                            };
                            if self.covered.contains(&t) {
                                *x = y;
                                return Ok(true);
                            }
                            match d.get(&t) {
                                Some(&v) if v < dt => {
                                    dt = v;
                                    *x = y;
                                    improved = true;
                                    s *= 2.0;
                                }
                                _ => break,
                            }
                        }
                    }
                    // integers move by whole steps only
                    if !self.types[k].is_float() {
                        break;
                    }
                    s0 /= 4.0;
                }
            }
        }
        Ok(false)
    }
}

/// Run the search from each of `starts` (parameter values in order) until `deadline`.
pub(super) fn search(r: &mut Runner, starts: &[Vec<f64>], deadline: Instant) -> Option<Witness> {
    let types: Vec<CType> = r.params.iter().map(|p| p.ty.clone()).collect();
    if types.is_empty() || r.params.iter().any(|p| !p.shape.is_scalar()) {
        return None;
    }
    *r.log.coverage.borrow_mut() = Some(HashSet::new());
    let mut w = Walk {
        r,
        types,
        covered: HashSet::new(),
        deadline,
    };
    let found = explore(&mut w, starts);
    *w.r.log.coverage.borrow_mut() = None;
    found
}

fn explore(w: &mut Walk, starts: &[Vec<f64>]) -> Option<Witness> {
    for start in starts {
        let mut x = start.clone();
        let mut done: HashSet<u64> = HashSet::new();
        for _ in 0..MAX_TARGETS {
            let d = match w.run(&x) {
                Outcome::Found(found) => return Some(*found),
                Outcome::Stop => return None,
                Outcome::Ran(d) => d,
            };
            let Some((t, dt)) = w.target(&d, &done) else {
                break;
            };
            match w.climb(&mut x, t, dt) {
                Err(found) => return found.map(|w| *w),
                Ok(true) => {}
                Ok(false) => {
                    done.insert(t);
                }
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

    use super::super::testutil::{pair, with_runner};

    fn only_distance(old: &str, new: &str, start: f64) -> Option<f64> {
        let p = pair(old, new, "f");
        with_runner(&p, "f", |r| {
            let deadline = Instant::now() + Duration::from_secs(60);
            super::search(r, &[vec![start]], deadline)
                .map(|w| w.inputs[0].1.parse().expect("double literal"))
        })
    }

    /// A range and a peak of `sin` (which the solver does not model): the search climbs to
    /// the range by the comparisons' distances, then up the sine to where it exceeds 0.9999.
    #[test]
    fn climbs_to_a_narrow_peak() {
        let old = "#include <math.h>\nint f(double x) { if (x > 100.0 && x < 200.0 && sin(x) > 0.9999) return 1; return 0; }";
        let x = only_distance(old, "int f(double x) { return 0; }", 0.0).expect("witness");
        assert!(x > 100.0 && x < 200.0 && x.sin() > 0.9999, "x = {x}");
    }

    /// A product within a millionth of 2 (through a temporary and a negated condition).
    #[test]
    fn closes_in_on_a_narrow_band() {
        let old = "int f(double x) { double y = x * x; int far = y < 2.0 || y > 2.000001; if (!far) return 1; return 0; }";
        let x = only_distance(old, "int f(double x) { return 0; }", 5.0).expect("witness");
        assert!((x * x - 2.0).abs() <= 1e-6, "x = {x}");
    }
}
