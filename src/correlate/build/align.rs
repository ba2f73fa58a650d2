//! Alignment of the two versions' item lists.
//!
//! Takes two lists of [`Item`]s and the builder's instruction keys; gives the edit script
//! ([`Op`]s) that the emitter follows: a weighted longest common subsequence in which identical
//! instructions weigh three, assignments of the same value to different variables two (a renamed
//! temporary, `ans := e` against `retval := e`: the analysis then knows both equal), assignments
//! to the same variable one (a rewritten right-hand side, which the analysis may still prove
//! equal), and a pair of loops three plus what their bodies share under the loops' schedule
//! ([`super::schedule`]), so loops that match well are run in lockstep. Copies of a loop's
//! instructions compare as those instructions.

use super::Builder;
use crate::correlate::structure::Item;

/// One step of the edit script: a matched pair, or an item of one version alone.
pub(super) enum Op<'i> {
    Both(&'i Item, &'i Item),
    Old(&'i Item),
    New(&'i Item),
}

/// Cells of the alignment table above which the middle of a long edit is left unaligned
/// (still correct, only less precise).
const MAX_DP_CELLS: usize = 30_000_000;

impl Builder<'_> {
    pub(super) fn weight(&mut self, a: &Item, b: &Item) -> usize {
        if let (Some(i), Some(j)) = (a.instr(), b.instr()) {
            return self.instr_weight(i, j);
        }
        let prefix = |x: &Item| matches!(x, Item::Prefix { .. });
        match (a.as_loop(), b.as_loop()) {
            // A prefix pairs only with a whole loop of the other version.
            (Some((ho, bo, bodyo)), Some((hn, bn, bodyn))) if !(prefix(a) && prefix(b)) => {
                if let Some(&(w, _)) = self.loop_weight.get(&(ho, hn)) {
                    return w;
                }
                let (w, plan) = self.loop_plan((ho, bo, bodyo), (hn, bn, bodyn));
                self.loop_weight.insert((ho, hn), (w, plan));
                w
            }
            _ => 0,
        }
    }

    /// Two single instructions: identical keys weigh three, see the module doc for the rest.
    fn instr_weight(&self, i: usize, j: usize) -> usize {
        if self.okeys[i] == self.nkeys[j] {
            return 3;
        }
        // The same instruction under guards that differ: code that moved under another
        // condition, such as the rest of a function after an `if` whose branches now `return`
        // (`[!g2] x := e` against `[!ret'] x := e`). Each half keeps its own guard in the
        // product.
        let unguarded = |k: &str| k.split_once(']').map(|x| x.1.to_string());
        match (&self.ovals[i], &self.nvals[j]) {
            (Some((vx, _)), Some((vy, _))) if vx == vy => return 2,
            (Some((_, tx)), Some((_, ty))) if tx == ty => return 1,
            _ => {}
        }
        if matches!((unguarded(&self.okeys[i]), unguarded(&self.nkeys[j])),
            (Some(x), Some(y)) if x == y && x != "goto")
        {
            return 2;
        }
        // Under other guards, the same value or the same target: the copies of an unrolled
        // body against a loop's body (`d[i] := c` against `d[i + 1] := c`, `s := s + a[i]`
        // against `s := s + a[i + 1]`), in order.
        let part = |v: &Option<(String, String)>, k: usize| {
            v.as_ref().map(|(val, tgt)| {
                let strip = |x: &str| x.split_once(']').map_or(x.to_string(), |y| y.1.to_string());
                if k == 0 {
                    strip(val)
                } else {
                    strip(tgt)
                }
            })
        };
        for k in 0..2 {
            if let (Some(x), Some(y)) = (part(&self.ovals[i], k), part(&self.nvals[j], k)) {
                if x == y {
                    return 1;
                }
            }
        }
        0
    }

    /// Weighted LCS of two item lists; unmatched items of each gap come old-first.
    pub(super) fn align<'i>(&mut self, a: &'i [Item], b: &'i [Item]) -> Vec<Op<'i>> {
        // Common prefix and suffix of identical instructions need no table.
        let mut pre = 0;
        while pre < a.len() && pre < b.len() && self.same_instr(&a[pre], &b[pre]) {
            pre += 1;
        }
        let mut suf = 0;
        while suf < a.len() - pre
            && suf < b.len() - pre
            && self.same_instr(&a[a.len() - 1 - suf], &b[b.len() - 1 - suf])
        {
            suf += 1;
        }
        let (ma, mb) = (&a[pre..a.len() - suf], &b[pre..b.len() - suf]);
        let mut ops: Vec<Op<'i>> = (0..pre).map(|k| Op::Both(&a[k], &b[k])).collect();
        let (n, m) = (ma.len(), mb.len());
        let mut mid: Vec<Op<'i>> = vec![];
        if n > 0 && m > 0 && (n + 1) * (m + 1) <= MAX_DP_CELLS {
            let w = m + 1;
            let mut dp = vec![0u32; (n + 1) * (m + 1)];
            for i in 1..=n {
                for j in 1..=m {
                    let mut best = dp[(i - 1) * w + j].max(dp[i * w + j - 1]);
                    let x = self.weight(&ma[i - 1], &mb[j - 1]);
                    if x > 0 {
                        best = best.max(dp[(i - 1) * w + j - 1] + x as u32);
                    }
                    dp[i * w + j] = best;
                }
            }
            let (mut i, mut j) = (n, m);
            let mut rev = vec![];
            while i > 0 || j > 0 {
                if i > 0 && j > 0 {
                    let x = self.weight(&ma[i - 1], &mb[j - 1]);
                    if x > 0 && dp[i * w + j] == dp[(i - 1) * w + j - 1] + x as u32 {
                        rev.push(Op::Both(&ma[i - 1], &mb[j - 1]));
                        i -= 1;
                        j -= 1;
                        continue;
                    }
                }
                if j > 0 && (i == 0 || dp[i * w + j - 1] >= dp[(i - 1) * w + j]) {
                    rev.push(Op::New(&mb[j - 1]));
                    j -= 1;
                } else {
                    rev.push(Op::Old(&ma[i - 1]));
                    i -= 1;
                }
            }
            rev.reverse();
            mid = rev;
        } else {
            mid.extend(ma.iter().map(Op::Old));
            mid.extend(mb.iter().map(Op::New));
        }
        // Old-first within each gap between matches.
        let mut gap_old = vec![];
        let mut gap_new = vec![];
        for op in mid {
            match op {
                Op::Old(x) => gap_old.push(Op::Old(x)),
                Op::New(x) => gap_new.push(Op::New(x)),
                both => {
                    ops.append(&mut gap_old);
                    ops.append(&mut gap_new);
                    ops.push(both);
                }
            }
        }
        ops.append(&mut gap_old);
        ops.append(&mut gap_new);
        let (sa, sb) = (a.len() - suf, b.len() - suf);
        ops.extend((0..suf).map(|k| Op::Both(&a[sa + k], &b[sb + k])));
        ops
    }

    fn same_instr(&self, a: &Item, b: &Item) -> bool {
        matches!((a.instr(), b.instr()), (Some(i), Some(j)) if self.okeys[i] == self.nkeys[j])
    }
}
