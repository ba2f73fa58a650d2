//! `--mode correlate`: timing the front half of the pipeline.
//!
//! Takes the pairs of a manifest and a number of runs; gives per pair the median times of parsing
//! both files and of building the correlating program, with the sizes involved, printed and
//! written as CSV.

use std::fs;
use std::path::Path;
use std::time::{Duration, Instant};

use super::manifest::csv_line;
use super::report::{say, write_file};
use super::{Args, Pair};
use crate::diag::{Error, Result};

/// Timings of the front half of the pipeline on one pair.
#[derive(Clone, Debug)]
pub struct CorrelateTiming {
    pub old_lines: usize,
    pub new_lines: usize,
    pub product_instrs: usize,
    pub matched: usize,
    pub diff_points: usize,
    /// Per run: parsing both files to GCL, and building the correlating program.
    pub parse: Vec<Duration>,
    pub correlate: Vec<Duration>,
}

pub fn time_correlate(p: &Pair, runs: usize) -> Result<CorrelateTiming> {
    let fopts = crate::frontend::Options::default();
    let copts = crate::correlate::Options::default();
    let lines = |f: &Path| {
        fs::read_to_string(f)
            .map(|t| t.lines().count())
            .map_err(|e| Error::in_file(f.display().to_string(), e.to_string()))
    };
    let mut t = CorrelateTiming {
        old_lines: lines(&p.old)?,
        new_lines: lines(&p.new)?,
        product_instrs: 0,
        matched: 0,
        diff_points: 0,
        parse: vec![],
        correlate: vec![],
    };
    for _ in 0..runs.max(1) {
        let t0 = Instant::now();
        let po = crate::load_gcl(&p.old, &fopts)?;
        let pn = crate::load_gcl(&p.new, &fopts)?;
        t.parse.push(t0.elapsed());
        let t1 = Instant::now();
        let c = crate::correlate::correlate(&po, &pn, &p.function, &copts)?;
        t.correlate.push(t1.elapsed());
        t.product_instrs = c.product().instrs.len();
        t.matched = c.converge.len();
        t.diff_points = c.diff_points.len();
    }
    Ok(t)
}

fn median(v: &[Duration]) -> Duration {
    let mut v = v.to_vec();
    v.sort();
    v.get(v.len() / 2).copied().unwrap_or_default()
}

fn ms(d: Duration) -> String {
    format!("{:.2}", d.as_secs_f64() * 1000.0)
}

pub const CORRELATE_HEADER: &str = "id,function,old_lines,new_lines,product_instrs,matched,diff_points,runs,parse_ms_median,correlate_ms_median,correlate_ms_min,correlate_ms_max,total_ms_median,error";

pub(super) fn run_correlate_mode(a: &Args, pairs: &[Pair]) -> Result<u8> {
    // Sequential on purpose: timings should not compete for cores.
    let mut csv = format!("{CORRELATE_HEADER}\n");
    let mut status = 0;
    for p in pairs {
        match time_correlate(p, a.runs) {
            Ok(t) => {
                let total: Vec<Duration> = t
                    .parse
                    .iter()
                    .zip(&t.correlate)
                    .map(|(x, y)| *x + *y)
                    .collect();
                let (cmin, cmax) = (
                    t.correlate.iter().min().copied().unwrap_or_default(),
                    t.correlate.iter().max().copied().unwrap_or_default(),
                );
                if !a.quiet {
                    say(format!(
                        "{:<28} {:>5}/{:<5} lines  {:>6} product instructions  parse {:>8} ms  correlate {:>8} ms (median of {})",
                        p.id,
                        t.old_lines,
                        t.new_lines,
                        t.product_instrs,
                        ms(median(&t.parse)),
                        ms(median(&t.correlate)),
                        t.correlate.len()
                    ));
                }
                csv.push_str(&csv_line(&[
                    p.id.clone(),
                    p.function.clone(),
                    t.old_lines.to_string(),
                    t.new_lines.to_string(),
                    t.product_instrs.to_string(),
                    t.matched.to_string(),
                    t.diff_points.to_string(),
                    t.correlate.len().to_string(),
                    ms(median(&t.parse)),
                    ms(median(&t.correlate)),
                    ms(cmin),
                    ms(cmax),
                    ms(median(&total)),
                    String::new(),
                ]));
            }
            Err(e) => {
                eprintln!("dizy: {}: {e}", p.id);
                status = 2;
                let mut f = vec![p.id.clone(), p.function.clone()];
                f.extend((0..11).map(|_| String::new()));
                f.push(e.to_string());
                csv.push_str(&csv_line(&f));
            }
        }
    }
    if let Some(out) = &a.out {
        write_file(out, &csv)?;
    }
    Ok(status)
}
