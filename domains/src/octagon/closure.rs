//! Closure of the octagon matrix: shortest paths (Floyd–Warshall over the pairs of nodes of
//! a dimension, from scratch or incrementally after a change around one dimension), then
//! emptiness, integer tightening and strengthening (Bagnara, Hill, Zaffanella 2009).
//!
//! Incremental closure: when only entries touching the nodes of `v` changed in a closed
//! matrix, a shortest path either avoids those nodes (an old distance) or passes through them,
//! so closing the rows and columns of `v` first and then pivoting on `v` alone gives the
//! closure in `O(n²)`. `tests` in the parent checks it against the full closure.

use super::bound::ZERO;
use super::{idx, Form, NativeOctagons};
use crate::{DomainError, Result};

impl NativeOctagons {
    /// Shortest paths through the nodes of dimension `k`: first each through the other, then
    /// every entry through either.
    pub(super) fn pivot_pair(&mut self, k: usize) {
        let (p, q) = (2 * k, 2 * k + 1);
        let nodes = 2 * self.n();
        let (qp, pq) = (self.get(q, p), self.get(p, q));
        for a in 0..nodes {
            let v = self.get(a, q).add(qp);
            self.lower(a, p, v);
        }
        for a in 0..nodes {
            let v = self.get(a, p).add(pq);
            self.lower(a, q, v);
        }
        for a in 0..nodes {
            let (ap, aq) = (self.get(a, p), self.get(a, q));
            if ap.is_inf() && aq.is_inf() {
                continue;
            }
            for b in 0..=(a | 1) {
                let v = ap.add(self.get(p, b)).min(aq.add(self.get(q, b)));
                self.lower(a, b, v);
            }
        }
    }

    /// Closure from scratch (Floyd–Warshall over pairs of nodes), then [`finish`](Self::finish).
    pub(super) fn close_full(&mut self) -> Result<()> {
        if self.form == Form::Bottom {
            return Ok(());
        }
        let n = self.n() as u64;
        let work = n.saturating_mul(n).saturating_mul(n).saturating_mul(4);
        if self.budget > 0 && work > self.budget {
            return Err(DomainError::Timeout);
        }
        for k in 0..self.n() {
            self.pivot_pair(k);
        }
        self.finish();
        Ok(())
    }

    /// Closure of a closed value in which only entries touching the nodes of `v` changed:
    /// `O(n²)` instead of `O(n³)`.
    pub(super) fn close_var(&mut self, v: usize) {
        if self.form == Form::Bottom {
            return;
        }
        let (p, q) = (2 * v, 2 * v + 1);
        let nodes = 2 * self.n();
        // Paths into the nodes of v whose last edge is new: the rest of the path is an old
        // (closed) distance.
        for k in (0..self.n()).filter(|&k| k != v) {
            let (r, s) = (2 * k, 2 * k + 1);
            for c in [p, q] {
                let (rc, sc) = (self.get(r, c), self.get(s, c));
                if rc.is_inf() && sc.is_inf() {
                    continue;
                }
                for a in 0..nodes {
                    let w = self.get(a, r).add(rc).min(self.get(a, s).add(sc));
                    self.lower(a, c, w);
                }
            }
        }
        // Between the nodes of v through any other node.
        for (x, y) in [(p, q), (q, p)] {
            for t in (0..nodes).filter(|&t| t != p && t != q) {
                let w = self.get(x, t).add(self.get(t, y));
                self.lower(x, y, w);
            }
        }
        self.pivot_pair(v);
        self.finish();
    }

    /// After shortest paths: emptiness, integer tightening, strengthening.
    pub(super) fn finish(&mut self) {
        let nodes = 2 * self.n();
        for a in 0..nodes {
            if self.get(a, a).is_neg() {
                return self.set_bottom();
            }
            self.set(a, a, ZERO);
        }
        if self.ints.iter().any(|&i| i) {
            for a in 0..nodes {
                if !self.ints[a / 2] {
                    continue;
                }
                for b in 0..=(a | 1) {
                    if !self.ints[b / 2] {
                        continue;
                    }
                    let i = idx(a, b);
                    self.m[i] = if a / 2 == b / 2 {
                        if a == b {
                            continue;
                        }
                        self.m[i].floor_even()
                    } else {
                        self.m[i].floor()
                    };
                }
            }
        }
        // Strengthening: ±x ± y ≤ (bound of 2·±x + bound of 2·±y) / 2.
        for a in 0..nodes {
            let aa = self.get(a, a ^ 1);
            if aa.is_inf() {
                continue;
            }
            for b in 0..=(a | 1) {
                let bb = self.get(b ^ 1, b);
                if bb.is_inf() {
                    continue;
                }
                self.lower(a, b, aa.add(bb).half());
            }
        }
        for a in 0..nodes {
            if self.get(a, a).is_neg() {
                return self.set_bottom();
            }
        }
        self.form = Form::Closed;
    }
}
