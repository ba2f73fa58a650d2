//! Symbolic witness search, part 1: the thesis's backward data-flow analysis (ch. 3, Table 3.1)
//! that collects paths of the correlating program from its entry to a diff point.
//!
//! Takes the correlating program P ⋈ P' and Δ; gives a validated [`Witness`] or nothing. For
//! every diff point whose Δ has differing states it collects complete paths entry → diff point,
//! which [`super::smt`] turns into `WP(f, path) ∧ inputs equal` and solves; the driver
//! [`search`] runs the analysis with the loop bound ν = 1, 2, 4, … up to
//! [`super::Options::loop_bound`] (as the thesis's Algorithm 1) and hands every model to the
//! witness runner, so only differences that reproduce when both versions are executed count.
//!
//! The CFG is the product's instruction list: node `i` is the state before instruction `i`
//! (node `len` is the exit). Every guarded instruction is a two-way branch on its guard: an
//! edge that executes it (guard true; for a `goto`, the jump to its label) and an edge that
//! skips it (guard false; the fall-through). An unguarded instruction has only the first.
//!
//! DFA values follow Table 3.1: a value at node `n` is the pair `(p, S)` of a path `p` starting
//! at `n` and a set `S` of suffixes (`f` holds at the diff point after `p·s`). Since a pair only
//! ever stands for the set of complete paths `p·S` (the thesis's `WP(e, p) ≡ p·S`, §3.5), it is
//! kept in that form: complete paths as cons lists sharing their suffixes, so "prepend an edge"
//! (the transfer) is O(1) and the meet — longest common prefix with the suffixes re-attached — is
//! the union of the two path sets. Paths are bounded by ν: every edge inside a loop occurs at most
//! ν times on a complete path (the set 𝒫_ν, eq. 3.2; edges outside loops occur at most once
//! anyway). This is slightly stricter than the thesis's transfer, which bounds the prefix and each
//! suffix separately. The boundary is `(ε, f)` at the diff point, every other node starts at ⊤
//! (no path), and Kildall's worklist propagates backwards until nothing changes.
//!
//! Additions that keep the number of paths manageable:
//! * each path carries the guard values its suffix requires (from constant flag assignments such
//!   as `ret := 1`, from `g := h`, `¬h`, `h && k`, `h || k`, and from guard literals), so a path
//!   that contradicts them — both arms of one `if`, code run after a `return` — is dropped when
//!   it is built (the failure condition's `ret ∧ ret'` seeds them at return points);
//! * paths are ordered by a cost, their length plus a penalty for each matched pair of
//!   instructions of which only one half runs (in a correlated program such paths are mostly
//!   infeasible), and each node keeps the cheapest ones up to a cap; the whole analysis has a
//!   step limit and the caller's deadline;
//! * at each ν only the cheapest paths not solved at a smaller ν are solved, in lexicographic
//!   order so that an incremental solver reuses shared prefixes.
//!
//! Because of the caps, "no witness" never means "equivalent".

use std::collections::{HashSet, VecDeque};
use std::rc::Rc;
use std::time::Instant;

use crate::correlate::{Correlated, DiffKind, DiffPoint, Side};
use crate::delta::Delta;
use crate::gcl::{GclFunction, InstrKind};
use crate::ir::{Expr, ExprKind, GuardId, LogicOp, Pos, UnOp};

use super::{Runner, Witness};

/// Paths kept per CFG node: at most this many…
const NODE_CAP: usize = 1024;
/// …and at most about this many over all nodes.
const TOTAL_CAP: usize = 300_000;
/// Paths solved per diff point and loop bound.
const ENTRY_CAP: usize = 256;
/// Models tried per feasible path (each one blocked before asking for the next).
const MODELS_PER_PATH: usize = 3;
/// Worklist steps allowed per analysis (in addition to the deadline).
const MAX_STEPS: usize = 200_000;
/// Cost of a matched pair of instructions of which only one half runs, in edges.
const SPLIT_COST: usize = 8;

/// One edge of the product CFG: leaving node `at`, with instruction `at`'s guard true (`taken`:
/// executed, or a `goto` jumping) or false (skipped, or falling through).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub(super) struct Edge {
    pub at: u32,
    pub taken: bool,
}

/// The product's edges as the path search walks them: a guarded instruction has a taken and a
/// skipped edge. Jumps and loops come from the product's shared CFG.
pub(super) struct Cfg<'a> {
    f: &'a GclFunction,
    graph: &'a crate::gcl::Cfg,
    /// Edges entering each node (nodes `0..=len`).
    preds: Vec<Vec<Edge>>,
    /// Whether instruction `i` is the old half of a matched pair whose new half is `i + 1`.
    matched: Vec<bool>,
}

impl<'a> Cfg<'a> {
    pub fn new(c: &'a Correlated) -> Self {
        let f = c.product();
        let n = f.instrs.len();
        // Pairs under guards paired despite different conditions are expected to split.
        let under_paired = |i: usize| {
            f.instrs[i]
                .guard
                .0
                .iter()
                .any(|l| c.paired_guards.iter().any(|&(o, _)| o == l.guard))
        };
        let matched = (0..n)
            .map(|i| {
                let (a, b) = (c.origin(Pos::new(i)), c.origin(Pos::new(i + 1)));
                a.matched
                    && b.matched
                    && a.side == Side::Old
                    && b.side == Side::New
                    && !under_paired(i)
            })
            .collect();
        let mut cfg = Cfg {
            f,
            graph: &c.cfg,
            preds: vec![vec![]; n + 1],
            matched,
        };
        for i in 0..n {
            for e in cfg.out_edges(i) {
                let t = cfg.target(e);
                cfg.preds[t].push(e);
            }
        }
        cfg
    }

    fn out_edges(&self, i: usize) -> impl Iterator<Item = Edge> {
        let guarded = !self.f.instrs[i].guard.0.is_empty();
        let at = i as u32;
        std::iter::once(Edge { at, taken: true })
            .chain(guarded.then_some(Edge { at, taken: false }))
    }

    /// The node an edge leads to.
    pub fn target(&self, e: Edge) -> usize {
        let i = e.at as usize;
        match self.graph.target(Pos::new(i)) {
            Some(t) if e.taken => t.index(),
            _ => i + 1,
        }
    }
}

/// A list cell of a path; suffixes are shared between paths.
struct Cell {
    edge: Edge,
    next: Option<Rc<Cell>>,
}

/// A complete path from some node to the diff point, with what the analysis knows about it.
#[derive(Clone)]
pub(super) struct Path {
    head: Option<Rc<Cell>>,
    len: usize,
    /// Order in which paths are kept and solved: the length, plus a penalty for every matched
    /// pair of instructions of which only one half runs (such paths are rarely feasible).
    cost: usize,
    /// Structural hash of the edge sequence (identity of the path).
    hash: u64,
    /// Occurrences of each loop edge (the ν bound).
    counts: im::HashMap<Edge, u32>,
    /// Guard values at the path's start that its edges require.
    req: im::HashMap<GuardId, bool>,
}

impl Path {
    fn empty(req: &[(GuardId, bool)]) -> Path {
        Path {
            head: None,
            len: 0,
            cost: 0,
            hash: 0x51_7cc1_b727_220a,
            counts: im::HashMap::new(),
            req: req.iter().copied().collect(),
        }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn hash(&self) -> u64 {
        self.hash
    }

    pub fn edges(&self) -> Vec<Edge> {
        let mut out = Vec::with_capacity(self.len);
        let mut cur = self.head.as_ref();
        while let Some(c) = cur {
            out.push(c.edge);
            cur = c.next.as_ref();
        }
        out
    }

    fn key(&self) -> (usize, usize, u64) {
        (self.cost, self.len, self.hash)
    }
}

fn mix(h: u64, e: Edge) -> u64 {
    // splitmix64 of the previous hash and the edge
    let mut z = h ^ (u64::from(e.at) << 1 | u64::from(e.taken)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Record that guard `g` must be `v`; `None` when the path already requires the opposite.
fn set(req: &mut im::HashMap<GuardId, bool>, g: GuardId, v: bool) -> Option<()> {
    match req.get(&g) {
        Some(&w) if w != v => None,
        Some(_) => Some(()),
        None => {
            req.insert(g, v);
            Some(())
        }
    }
}

/// Requirements on guards for `e` (a guard's new value) to be `v`, as far as they are plain.
fn require(e: &Expr, v: bool, req: &mut im::HashMap<GuardId, bool>) -> Option<()> {
    match &e.kind {
        ExprKind::Int(c) => ((*c != 0) == v).then_some(()),
        ExprKind::Guard(h) => set(req, *h, v),
        ExprKind::Unary(UnOp::LogNot, x) => require(x, !v, req),
        ExprKind::Logic(LogicOp::And, a, b) if v => {
            require(a, true, req)?;
            require(b, true, req)
        }
        ExprKind::Logic(LogicOp::Or, a, b) if !v => {
            require(a, false, req)?;
            require(b, false, req)
        }
        ExprKind::Cast(x) if matches!(x.kind, ExprKind::Guard(_)) => require(x, v, req),
        _ => Some(()),
    }
}

/// The transfer function `f_ω` for one edge: prepend it, or drop the path when the result leaves
/// 𝒫_ν (`cut`) or contradicts a guard value the path requires.
fn transfer(cfg: &Cfg, e: Edge, p: &Path, nu: u32, cut: &mut bool) -> Option<Path> {
    let i = e.at as usize;
    let mut counts = p.counts.clone();
    if cfg.graph.in_loop(Pos::new(i)) {
        let k = counts.get(&e).copied().unwrap_or(0) + 1;
        if k > nu {
            *cut = true;
            return None;
        }
        counts.insert(e, k);
    }
    let ins = &cfg.f.instrs[i];
    let split = cfg.matched[i]
        && p.head
            .as_ref()
            .is_some_and(|h| h.edge.at == e.at + 1 && h.edge.taken != e.taken);
    let mut req = p.req.clone();
    if e.taken {
        if let InstrKind::SetGuard(g, x) = &ins.kind {
            if let Some(v) = req.remove(g) {
                require(x, v, &mut req)?;
            }
        }
        for l in &ins.guard.0 {
            set(&mut req, l.guard, l.positive)?;
        }
    } else {
        // ¬(l₁ ∧ … ∧ lₖ): contradiction if every literal is required; one unknown literal
        // left must be false.
        let mut unknown = vec![];
        let mut violated = false;
        for l in &ins.guard.0 {
            match req.get(&l.guard) {
                Some(&v) if v == l.positive => {}
                Some(_) => violated = true,
                None => unknown.push(*l),
            }
        }
        if !violated {
            match unknown.as_slice() {
                [] => return None,
                [l] => set(&mut req, l.guard, !l.positive)?,
                _ => {}
            }
        }
    }
    Some(Path {
        head: Some(Rc::new(Cell {
            edge: e,
            next: p.head.clone(),
        })),
        len: p.len + 1,
        cost: p.cost + 1 + if split { SPLIT_COST } else { 0 },
        hash: mix(p.hash, e),
        counts,
        req,
    })
}

/// A DFA value: the paths `p·S` of the thesis's pair `(p, S)`, cheapest first, unique.
#[derive(Clone, Default)]
struct Value {
    paths: Vec<Path>,
}

impl Value {
    /// Meet (eq. 3.5): union of the path sets, keeping the `cap` cheapest. Gives the paths that
    /// were not there before.
    fn meet(&mut self, new: Vec<Path>, cap: usize) -> Vec<Path> {
        let have: HashSet<(usize, usize, u64)> = self.paths.iter().map(Path::key).collect();
        let mut added: Vec<Path> = vec![];
        let mut seen = have.clone();
        for p in new {
            if seen.insert(p.key()) {
                added.push(p);
            }
        }
        if added.is_empty() {
            return added;
        }
        self.paths.extend(added.iter().cloned());
        self.paths.sort_by_key(Path::key);
        self.paths.truncate(cap);
        let kept: HashSet<(usize, usize, u64)> = self.paths.iter().map(Path::key).collect();
        added.retain(|p| kept.contains(&p.key()));
        added
    }
}

/// What one run of the analysis found at the entry.
pub(super) struct Collected {
    /// Complete paths entry → diff point, cheapest first.
    pub paths: Vec<Path>,
    /// Some path was dropped for leaving 𝒫_ν: a larger ν may find more.
    pub cut: bool,
}

/// Kildall's worklist, backwards from `(ε, f)` at node `pos`.
pub(super) fn collect(
    cfg: &Cfg,
    pos: usize,
    boundary: &[(GuardId, bool)],
    nu: u32,
    deadline: Instant,
) -> Collected {
    let n = cfg.preds.len();
    let mut vals: Vec<Value> = vec![Value::default(); n];
    let mut pending: Vec<Vec<Path>> = vec![vec![]; n];
    let mut queued = vec![false; n];
    let mut work = VecDeque::new();
    let mut cut = false;
    let start = Path::empty(boundary);
    pending[pos] = vals[pos].meet(vec![start], 1);
    work.push_back(pos);
    queued[pos] = true;
    let cap = (TOTAL_CAP / n).clamp(64, NODE_CAP);
    let mut steps = 0;
    while let Some(m) = work.pop_front() {
        queued[m] = false;
        steps += 1;
        if steps > MAX_STEPS || (steps % 64 == 0 && Instant::now() > deadline) {
            break;
        }
        let todo = std::mem::take(&mut pending[m]);
        for &e in &cfg.preds[m] {
            let from = e.at as usize;
            let new: Vec<Path> = todo
                .iter()
                .filter_map(|p| transfer(cfg, e, p, nu, &mut cut))
                .collect();
            if new.is_empty() {
                continue;
            }
            let added = vals[from].meet(new, cap);
            if !added.is_empty() {
                pending[from].extend(added);
                if !queued[from] {
                    queued[from] = true;
                    work.push_back(from);
                }
            }
        }
    }
    let paths = std::mem::take(&mut vals[0].paths);
    Collected { paths, cut }
}

/// Guard values the failure condition requires at the diff point: both versions have returned
/// at a return point, and at the exit of a function that returns a value.
fn boundary(c: &Correlated, d: &DiffPoint) -> Vec<(GuardId, bool)> {
    let returned = match d.kind {
        DiffKind::Return => true,
        DiffKind::Exit => c.old_retval.is_some() && c.new_retval.is_some(),
        _ => false,
    };
    if returned {
        vec![(c.old_ret, true), (c.new_ret, true)]
    } else {
        vec![]
    }
}

/// Step of the witness search between the seeds and the random search: paths to every diff point
/// with differing states, solved with z3 under ν = 1, 2, 4, …, each model validated by `r`.
pub(super) fn search(
    c: &Correlated,
    delta: &Delta,
    r: &mut Runner,
    deadline: Instant,
) -> Option<Witness> {
    // The z3 bindings assert on malformed terms; a bug there loses this strategy, not the run.
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        search_paths(c, delta, r, deadline)
    }))
    .ok()
    .flatten()
}

fn search_paths(
    c: &Correlated,
    delta: &Delta,
    r: &mut Runner,
    deadline: Instant,
) -> Option<Witness> {
    let f = c.product();
    let mut targets: Vec<&DiffPoint> = vec![];
    for (d, p) in c.diff_points.iter().zip(&delta.points) {
        // A return point at the exit compares what the exit point compares.
        let same = |t: &&DiffPoint| {
            t.pos == d.pos && t.pairs == d.pairs && boundary(c, t) == boundary(c, d)
        };
        if p.reachable && !p.different.is_empty() && !targets.iter().any(same) {
            targets.push(d);
        }
    }
    if targets.is_empty() || f.func.params.len() < r.params.len() {
        return None;
    }
    let cfg = Cfg::new(c);
    let ctx = z3::Context::new(&z3::Config::new());
    let mut solved: HashSet<(usize, u64)> = HashSet::new();
    let max_nu = r.opts.loop_bound.max(1);
    let mut nu = 1;
    loop {
        let mut cut = false;
        for (k, d) in targets.iter().enumerate() {
            if Instant::now() > deadline || r.exhausted() {
                return None;
            }
            let col = collect(&cfg, d.pos.index(), &boundary(c, d), nu, deadline);
            cut |= col.cut;
            // The cheapest paths not solved at a smaller ν, in lexicographic order so that
            // consecutive ones share their prefix in the incremental solver.
            let mut fresh: Vec<(Vec<Edge>, &Path)> = col
                .paths
                .iter()
                .filter(|p| !solved.contains(&(k, p.hash())))
                .take(ENTRY_CAP)
                .map(|p| (p.edges(), p))
                .collect();
            fresh.sort_by(|a, b| {
                let key = |e: &Edge| (e.at, e.taken);
                a.0.iter().map(key).cmp(b.0.iter().map(key))
            });
            let limits = (r.opts.query_ms, r.opts.float_query_ms);
            let mut ps = super::smt::PathSolver::new(&ctx, c, Some(*d), r.params.len(), limits)?;
            for (edges, p) in fresh {
                if Instant::now() > deadline || r.exhausted() {
                    return None;
                }
                solved.insert((k, p.hash()));
                // Every model of a feasible path is tried (smallest first); the validated ones
                // after the first are kept as further examples.
                let mut found: Vec<Witness> = vec![];
                ps.solve(&edges, deadline, MODELS_PER_PATH, |vals, world| {
                    // The model's world for the functions, the runner's for the constants.
                    let world = crate::interp::World {
                        constants: r.world.constants.clone(),
                        ..world.clone()
                    };
                    let base = std::mem::replace(&mut r.world, world);
                    found.extend(r.try_literals(vals, "smt"));
                    r.world = base;
                    None::<()>
                });
                if !found.is_empty() {
                    let mut w = found.remove(0);
                    w.also = found.into_iter().map(|x| x.inputs).collect();
                    w.loop_bound = Some(nu);
                    w.path_len = Some(p.len());
                    return Some(w);
                }
            }
        }
        if !cut || nu >= max_nu {
            return None;
        }
        nu = (nu * 2).min(max_nu);
    }
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

    use super::super::testutil::{bench_pair, input, pair, with_runner, Pair};
    use super::super::{Options, Witness};

    /// Only the symbolic step, with a generous budget.
    fn smt_only(p: &Pair, func: &str) -> Option<Witness> {
        with_runner(p, func, |r| {
            super::search(&p.c, &p.d, r, Instant::now() + Duration::from_secs(60))
        })
    }

    #[test]
    fn needle_equality() {
        let p = pair(
            "int f(int x) { return x == 123456789 ? 1 : 0; }",
            "int f(int x) { return 0; }",
            "f",
        );
        let w = smt_only(&p, "f").expect("witness");
        assert_eq!(w.strategy, "smt");
        assert_eq!(input(&w, "x"), 123456789);
        assert_ne!(w.old, w.new);
    }

    #[test]
    fn needle_linear() {
        let p = pair(
            "int f(int x) { if (x * 3 + 7 == 1000000006) return 1; return 0; }",
            "int f(int x) { return 0; }",
            "f",
        );
        let w = smt_only(&p, "f").expect("witness");
        assert_eq!(input(&w, "x"), 333333333);
        // The whole search (seeds, smt, random) finds it too.
        let opts = Options::default();
        let b = crate::limits::Budget::unlimited();
        let w = super::super::search(&p.old, &p.new, "f", &p.d, &opts, Some(&p.c), &b);
        assert!(w.witness.is_some());
    }

    #[test]
    fn unsigned_wraps() {
        // No mathematical integer x has 3x = 5; modulo 2^32 one does.
        let p = pair(
            "unsigned f(unsigned x) { if (x * 3u == 5u) return 1; return 0; }",
            "unsigned f(unsigned x) { return 0; }",
            "f",
        );
        let w = smt_only(&p, "f").expect("witness");
        assert_eq!(input(&w, "x"), 1431655767);
        assert_eq!(w.old.ret, "1");
    }

    #[test]
    fn signed_division_truncates() {
        // -7 / 2 is -3 in C; the needle is only reached with C's truncation.
        let p = pair(
            "int f(int x, int y) { if (y != 0 && x / y == -3 && x % y == -1 && y == 2) return 1; return 0; }",
            "int f(int x, int y) { return 0; }",
            "f",
        );
        let w = smt_only(&p, "f").expect("witness");
        assert_eq!((input(&w, "x"), input(&w, "y")), (-7, 2));
    }

    #[test]
    fn loop_needs_several_iterations() {
        // Differs only when the loop runs at least three times (i == 2).
        let p = pair(
            "int f(int n) { int s = 0; if (n > 100) n = 100; for (int i = 0; i < n; i++) { s += 1; } return s; }",
            "int f(int n) { int s = 0; if (n > 100) n = 100; for (int i = 0; i < n; i++) { if (i == 2) s += 7; s += 1; } return s; }",
            "f",
        );
        let w = smt_only(&p, "f").expect("witness");
        assert!(input(&w, "n") >= 3);
        assert!(w.loop_bound.expect("loop bound") >= 2, "{w:?}");
    }

    #[test]
    fn sunrpc_needle() {
        // The fix rejects lengths 57 and 58 that the old check let through.
        let func = "rpc_uaddr2port";
        let p = bench_pair("sunrpc_uaddr2port", func);
        let w = smt_only(&p, func).expect("witness");
        assert!((57..=58).contains(&input(&w, "uaddr_len")), "{w:?}");
    }

    /// The path the product takes on `inputs` is among those the analysis collects.
    fn collects_trace(p: &Pair, inputs: &[i128], nu: u32) {
        let ctx = z3::Context::new(&z3::Config::new());
        let cfg = super::Cfg::new(&p.c);
        let exit = p.c.product().instrs.len();
        let d =
            p.c.diff_points
                .iter()
                .find(|d| d.pos.index() == exit)
                .expect("exit point");
        let want = super::super::smt::trace(&ctx, &p.c, inputs, exit);
        let col = super::collect(
            &cfg,
            exit,
            &super::boundary(&p.c, d),
            nu,
            Instant::now() + Duration::from_secs(60),
        );
        let t: String = want
            .iter()
            .map(|e| if e.taken { '1' } else { '0' })
            .collect();
        let mut counts = std::collections::HashMap::new();
        for e in &want {
            *counts.entry(*e).or_insert(0u32) += 1;
        }
        let most = counts.values().copied().max().unwrap_or(0);
        assert!(most <= nu, "the path needs ν = {most}");
        // Replay the transfers backwards: the path must survive them.
        let mut path = super::Path::empty(&super::boundary(&p.c, d));
        let mut cut = false;
        for (k, e) in want.iter().enumerate().rev() {
            path = super::transfer(&cfg, *e, &path, nu, &mut cut)
                .unwrap_or_else(|| panic!("edge {k} {e:?} drops the path"));
        }
        assert!(
            col.paths.iter().any(|x| x.edges() == want),
            "{t} ({} edges) not among {} paths",
            want.len(),
            col.paths.len()
        );
    }

    #[test]
    fn nested_loops() {
        // n = 1, m = 0: the old inner loop runs once, the new one not at all; the edges of the
        // inner loop are passed three times.
        let p = bench_pair("ne_nested_inner_bound", "nested_count");
        collects_trace(&p, &[1, 0], 4);
        let w = smt_only(&p, "nested_count").expect("witness");
        assert_eq!(w.strategy, "smt");
        assert!(w.loop_bound.expect("loop bound") >= 4, "{w:?}");
    }

    #[test]
    fn thesis_three_x_versus_x_plus_ten() {
        // Thesis eq. 3.1: the failure condition 3x ≠ x + 10 means x ≠ 5.
        let p = bench_pair("thesis_3x_vs_x10", "scale");
        let w = smt_only(&p, "scale").expect("witness");
        assert_eq!(w.strategy, "smt");
        assert_ne!(input(&w, "x"), 5);
        assert_ne!(w.old.ret, w.new.ret);
    }

    #[test]
    fn memchr_char_signedness() {
        // Bytes read as signed char differ from unsigned char only for c in [128, 256).
        let p = bench_pair("memchr_char_sign", "scan_word");
        let w = smt_only(&p, "scan_word").expect("witness");
        assert!((128..256).contains(&input(&w, "c")), "{w:?}");
    }

    #[test]
    fn signed_overflow_is_no_witness() {
        // Only an overflowing x + 1 (undefined behaviour) would tell them apart.
        let p = pair(
            "int f(int x) { if (x + 1 < x) return 1; return 0; }",
            "int f(int x) { return 0; }",
            "f",
        );
        assert!(smt_only(&p, "f").is_none());
    }

    #[test]
    fn output_only_in_old_version() {
        let p = pair(
            "int putchar(int); void f(int x) { if (x == 77777) putchar('a'); }",
            "int putchar(int); void f(int x) { }",
            "f",
        );
        let w = smt_only(&p, "f").expect("witness");
        assert_eq!(input(&w, "x"), 77777);
        assert_eq!(w.old.output, b"a");
    }

    #[test]
    fn globals_start_from_their_initializer() {
        let p = pair(
            "int k = 5; int f(int x) { return x == 123450 + k; }",
            "int k = 5; int f(int x) { return 0; }",
            "f",
        );
        let w = smt_only(&p, "f").expect("witness");
        assert_eq!(input(&w, "x"), 123455);
    }

    /// Floating-point paths are solved in IEEE arithmetic: the input must make `x * 3 + 0.25`
    /// exactly 7.75 in `float` (no boundary or small value does), `y` must be a double whose
    /// sum with 1.0 is itself (at least 2^53, or infinite), and the conversion to int of `d / 2`
    /// must be exactly 1000 with `d` not an integer. (Single precision and additions keep z3
    /// fast enough for a loaded machine.)
    #[test]
    fn floating_needles_are_solved_in_ieee_arithmetic() {
        // the witness's literal for the one parameter of `old`, against `return 0`
        let solved = |old: &str, param: &str| -> String {
            let p = pair(old, &format!("int f({param}) {{ return 0; }}"), "f");
            let w = smt_only(&p, "f").expect("witness");
            w.inputs[0].1.trim_end_matches('f').to_string()
        };
        let x: f32 = solved(
            "int f(float x) { return x * 3.0f + 0.25f == 7.75f; }",
            "float x",
        )
        .parse()
        .expect("float literal");
        assert_eq!(x * 3.0 + 0.25, 7.75, "x = {x}");
        let y: f64 = solved(
            "int f(double y) { return y + 1.0 == y && y == y; }",
            "double y",
        )
        .parse()
        .expect("double literal");
        assert!(y + 1.0 == y, "y = {y}");
        let d: f32 = solved(
            "int f(float d) { return (int)(d / 2) == 1000 && d != (int)d; }",
            "float d",
        )
        .parse()
        .expect("float literal");
        assert_eq!((d / 2.0) as i32, 1000, "d = {d}");
        assert_ne!(d, d.trunc(), "d = {d}");
    }

    #[test]
    fn equivalent_pair_gives_nothing() {
        let p = pair(
            "int f(int x) { return x * 2; }",
            "int f(int x) { return x + x; }",
            "f",
        );
        assert!(smt_only(&p, "f").is_none());
    }
}
