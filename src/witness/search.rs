//! The search for a distinguishing input, cheapest strategy first.
//!
//! Takes a [`Runner`] (both versions, the function, its parameters and budget) and Δ; gives the
//! first candidate both versions' runs show different, or nothing. Order: the integer points of
//! Δ's differing states (`seed`); for a function with buffers or aggregates, every parameter's
//! memory candidates in step (`memory`); paths of the correlating program solved with z3 (`dfa`);
//! the seeds again with the function's globals set as they say (`seed, globals set`); the
//! results of undefined functions chosen one at a time; for a function with memory or such
//! calls, the coverage-guided search (`fuzz`) over all of these at once; then boundary,
//! floating-point and small values of the scalars, concolic execution, the coverage-guided
//! search, and random values — with memory, random combinations of candidates and random
//! buffers instead.

use std::time::Instant;

use super::memory::{self, Input, Param, Shape};
use super::{concolic, dfa, distance, fuzz, witness_params, Runner, Witness};
use crate::correlate::Correlated;
use crate::delta::Delta;
use crate::gcl::{GclFunction, GclProgram};
use crate::ir::{CType, Program, VarKind};

/// Integer points of the differing states' inputs, in parameter order (0 where a state does not
/// constrain a parameter).
fn seeds(delta: &Delta, params: &[Param]) -> Vec<Vec<i128>> {
    let mut out = vec![];
    for d in delta.points.iter().flat_map(|p| &p.different) {
        if let Some(seed) = &d.seed {
            let vals = params
                .iter()
                .map(|p| seed.iter().find(|(m, _)| *m == p.name).map_or(0, |x| x.1))
                .collect();
            out.push(vals);
        }
    }
    out
}

pub(super) fn run(r: &mut Runner, delta: &Delta, corr: Option<&Correlated>) -> Option<Witness> {
    let (old, new, func, opts) = (r.old, r.new, r.func, r.opts);
    let fo = old.function(func)?;
    let fnew = new.function(func)?;
    if fo.func.params.len() != fnew.func.params.len() {
        return None;
    }
    let params = witness_params(&old.program, fo)?;
    let new_params = witness_params(&new.program, fnew)?;
    if !same_shapes(old, new, &params, &new_params) {
        return None;
    }
    r.retyped = params
        .iter()
        .zip(&new_params)
        .enumerate()
        .filter(|(_, (p, q))| p.ty != q.ty && p.shape.is_scalar())
        .map(|(k, (_, q))| (k, q.ty.clone()))
        .collect();
    r.params = params.clone();
    r.n_params = params.len();
    let alpha = memory::Alphabet::new(constants(fo).into_iter().chain(constants(fnew)))
        .with_members(
            members(&old.program, fo)
                .into_iter()
                .chain(members(&new.program, fnew)),
        )
        .with_strings(strings(&old.program, fo).chain(strings(&new.program, fnew)));
    let cands = memory::Candidates::new(&old.program, &params, &alpha);
    r.fill = cands
        .per_param
        .iter()
        .map(|c| c.first().cloned().unwrap_or(Input::Null))
        .collect();
    let with_memory = params.iter().any(|p| !p.shape.is_scalar());
    // 1. Seeds: integer points of the differing states' inputs.
    for vals in seeds(delta, &params) {
        if let Some(w) = r.try_values(&vals, "seed") {
            return Some(w);
        }
    }
    // With memory: the candidates in step before the solver, whose paths know no memory.
    if with_memory {
        if let Some(w) = memory_systematic(r, &cands, &alpha) {
            return Some(w);
        }
    }
    // 1b. IEEE special values of floating parameters (scalars only: with memory the
    // candidates above and the mutations below set them).
    if !with_memory {
        let typed: Vec<(String, CType)> = params
            .iter()
            .map(|p| (p.name.clone(), p.ty.clone()))
            .collect();
        if let Some(w) = float_specials(r, &typed) {
            return Some(w);
        }
    }
    // 2. Symbolic: paths to the differing diff points, solved with z3; at most 60% of the time
    // left, the rest is the random search's.
    if let Some(c) = corr {
        let left = opts.time.saturating_sub(r.start.elapsed());
        let deadline = Instant::now() + left.mul_f64(0.6);
        if let Some(w) = dfa::search(c, delta, r, deadline) {
            return Some(w);
        }
    }
    // 3. The seeds again, with the globals set as they say (pointers to buffers): a function's
    // behaviour often hangs on the program's state, which the strategies above leave at the
    // initializers (a null buffer pointer, a position of 0).
    if let Some(w) = global_seeds(r, delta, corr, &alpha) {
        return Some(w);
    }
    // 3b. With the results of the functions the file does not define chosen, one function at a
    // time (they returned zero, or null, so far).
    if let Some(w) = world_seeds(r, delta, &alpha) {
        return Some(w);
    }
    // 3c. Where inputs are more than numbers (memory, the environment's results), all of them
    // mutated together, guided by coverage.
    let with_world = !r.log.env.borrow().is_empty();
    if with_memory || with_world {
        if let Some(w) = fuzz::search(r, &cands, &alpha, &seeds(delta, &r.params), share(r, 0.7)) {
            return Some(w);
        }
    }
    if with_memory {
        return memory_random(r, &cands, &alpha);
    }
    // 3d. Scalars moved towards the instructions no run reached, by branch distance.
    let mut starts: Vec<Vec<f64>> = seeds(delta, &r.params)
        .into_iter()
        .map(|v| v.into_iter().map(|x| x as f64).collect())
        .collect();
    starts.push(vec![0.0; r.params.len()]);
    if let Some(w) = distance::search(r, &starts, share(r, 0.3)) {
        return Some(w);
    }
    // 4. Boundary and small values, then random ones.
    let mut pool: Vec<i128> = vec![
        0, 1, -1, 2, -2, 3, 7, 8, 10, 16, 42, 100, 127, 128, 255, 256, 1000, -128, -1000,
    ];
    // The code's own constants and their neighbours (a `case 777:` or `x == 12345` is where
    // versions part).
    for v in constants(fo).into_iter().chain(constants(fnew)) {
        for x in [v, v - 1, v + 1] {
            if !pool.contains(&x) {
                pool.push(x);
            }
        }
    }
    for p in &delta.points {
        for d in &p.different {
            if let Some(seed) = &d.seed {
                for (_, v) in seed {
                    for x in [*v, v - 1, v + 1] {
                        if !pool.contains(&x) {
                            pool.push(x);
                        }
                    }
                }
            }
        }
    }
    let k = params.len();
    if k == 0 {
        return r.try_values(&[], "search");
    }
    let params: Vec<(String, CType)> = params.into_iter().map(|p| (p.name, p.ty)).collect();
    // Two objects built from repeated parameter groups (`x1, y1, z1, x2, y2, z2`), as
    // comparisons and hash-collision checks take them: the second group equal to the first,
    // whose members differ from one another (equal objects with distinct fields).
    let half = k / 2;
    if k >= 4 && k % 2 == 0 && (0..half).all(|j| params[j].1 == params[half + j].1) {
        let n = pool.len();
        for i in 0..n {
            let group: Vec<i128> = (0..half).map(|j| pool[(i + j) % n]).collect();
            let vals: Vec<i128> = group.iter().chain(group.iter()).copied().collect();
            if let Some(w) = r.try_values(&vals, "search") {
                return Some(w);
            }
            if r.exhausted() {
                return None;
            }
        }
    }
    // All combinations of the pool for one or two parameters; diagonal-ish sweeps beyond.
    if k <= 2 {
        let n = pool.len();
        for i in 0..n.pow(k as u32) {
            let vals: Vec<i128> = (0..k).map(|j| pool[(i / n.pow(j as u32)) % n]).collect();
            if let Some(w) = r.try_values(&vals, "search") {
                return Some(w);
            }
            if r.exhausted() {
                return None;
            }
        }
    } else {
        for (i, &a) in pool.iter().enumerate() {
            for &b in &pool {
                let vals: Vec<i128> = (0..k).map(|j| if j == i % k { b } else { a }).collect();
                if let Some(w) = r.try_values(&vals, "search") {
                    return Some(w);
                }
                if r.exhausted() {
                    return None;
                }
            }
        }
    }
    // 5. Alternating concolic execution from zero and the seeds, with half the time left (the
    // random search gets the rest).
    if let Some(c) = corr {
        let left = opts.time.saturating_sub(r.start.elapsed());
        let mut start = vec![vec![0; k]];
        start.extend(seeds(delta, &r.params));
        if let Some(w) = concolic::search(c, r, start, Instant::now() + left / 2) {
            return Some(w);
        }
    }
    if !with_world {
        let starts = seeds(delta, &r.params);
        if let Some(w) = fuzz::search(r, &cands, &alpha, &starts, share(r, 0.6)) {
            return Some(w);
        }
    }
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15 ^ (func.len() as u64);
    while !r.exhausted() {
        let vals: Vec<i128> = params
            .iter()
            .map(|(_, t)| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                let magnitude = [16i128, 256, 65536, 1 << 31][(state % 4) as usize];
                let v = (state >> 8) as i128 % (2 * magnitude) - magnitude;
                match t {
                    CType::Int { signed: false, .. } | CType::Bool => v.abs(),
                    _ => v,
                }
            })
            .collect();
        if let Some(w) = r.try_values(&vals, "search") {
            return Some(w);
        }
    }
    None
}

/// Floating parameters: every combination (at most 4096) of the values where IEEE arithmetic
/// leaves the reals (NaN, infinities, signed zeros, the ends of exact integers, the extremes),
/// the other parameters from a few integers. Cheap runs, so they come before the solver, whose
/// floating-point queries are slow.
fn float_specials(r: &mut Runner, params: &[(String, CType)]) -> Option<Witness> {
    if !params.iter().any(|(_, t)| t.is_float()) {
        return None;
    }
    let specials = FLOAT_SPECIALS;
    let ints = [
        "0",
        "1",
        "-1",
        "2",
        "10",
        "100",
        "2147483647",
        "-2147483648",
    ];
    let choices: Vec<Vec<&str>> = params
        .iter()
        .map(|(_, t)| {
            if t.is_float() {
                specials.to_vec()
            } else {
                ints.to_vec()
            }
        })
        .collect();
    let total: usize = choices.iter().map(Vec::len).product::<usize>().min(4096);
    for i in 0..total {
        let mut rest = i;
        let vals: Vec<String> = choices
            .iter()
            .map(|c| {
                let v = c[rest % c.len()];
                rest /= c.len();
                v.to_string()
            })
            .collect();
        if let Some(w) = r.try_literals(&vals, "search") {
            return Some(w);
        }
        if r.exhausted() {
            return None;
        }
    }
    None
}

/// Floating values where IEEE arithmetic leaves the reals: NaN, infinities, signed zeros, the
/// ends of exact integers, the extremes, and a few plain ones.
pub(super) const FLOAT_SPECIALS: [&str; 19] = [
    "0.0",
    "-0.0",
    "1.0",
    "-1.0",
    "0.5",
    "NAN",
    "INFINITY",
    "-INFINITY",
    "9007199254740992.0",
    "-9007199254740993.0",
    "1e308",
    "-1e308",
    "2.2250738585072014e-308",
    "16777216.0",
    "3.4028234663852886e38",
    "1e-45",
    "2.0",
    "10.0",
    "100.0",
];

/// The instant at which `fraction` of the search's time left is spent.
fn share(r: &Runner, fraction: f64) -> Instant {
    let left = r.opts.time.saturating_sub(r.start.elapsed());
    Instant::now() + left.mul_f64(fraction)
}

/// Most environment functions [`world_seeds`] gives other results.
const MAX_WORLD_FUNCTIONS: usize = 8;

/// Δ's seeds and the all-zero input, with the results of environment functions (those the
/// runs so far called) chosen greedily: one function at a time returns boundary values, the
/// code's constants, or a pointer to a buffer; a result on which a run calls more environment
/// functions than before (it got past a check: `if (len(h) != 4) return NULL;`) is kept, and the
/// next round chooses among the functions called then.
fn world_seeds(r: &mut Runner, delta: &Delta, alpha: &memory::Alphabet) -> Option<Witness> {
    if r.log.env.borrow().is_empty() {
        return None;
    }
    let mut starts = seeds(delta, &r.params);
    starts.insert(0, vec![0; r.params.len()]);
    starts.dedup();
    starts.truncate(4);
    let base = r.world.clone();
    let mut fixed: Vec<String> = vec![];
    let calls = |r: &Runner| r.log.last.borrow().len();
    for _round in 0..MAX_WORLD_FUNCTIONS {
        // How many functions each start calls in the world chosen so far.
        let mut reach = vec![];
        for s in &starts {
            let found = r.try_values(s, "search, external results chosen");
            if found.is_some() || r.exhausted() {
                r.world = base;
                return found;
            }
            reach.push(calls(r));
        }
        let env: Vec<String> = r
            .log
            .env
            .borrow()
            .iter()
            .filter(|n| !fixed.contains(n))
            .take(MAX_WORLD_FUNCTIONS)
            .cloned()
            .collect();
        let mut progress = None;
        'functions: for name in env {
            let ret = r.return_type(&name);
            for cand in world_candidates(&r.old.program, &ret, alpha) {
                let world = r.world.clone().with(&name, cand.clone());
                let chosen = std::mem::replace(&mut r.world, world);
                for (s, before) in starts.iter().zip(&reach) {
                    let found = r.try_values(s, "search, external results chosen");
                    if found.is_some() || r.exhausted() {
                        // The witness states the world it was found in.
                        r.world = base;
                        return found;
                    }
                    if calls(r) > *before {
                        progress = Some((name.clone(), cand.clone()));
                    }
                }
                r.world = chosen;
                if progress.is_some() {
                    break 'functions;
                }
            }
        }
        let Some((name, cand)) = progress else { break };
        r.world = r.world.clone().with(&name, cand);
        fixed.push(name);
    }
    r.world = base;
    None
}

/// Results worth trying for an environment function returning `ret`.
pub(super) fn world_candidates(
    prog: &crate::ir::Program,
    ret: &CType,
    alpha: &memory::Alphabet,
) -> Vec<crate::interp::ExtResult> {
    use crate::interp::{ExtResult, Value};
    match ret {
        CType::Ptr(p) => {
            let n = (prog.size_of(p) as usize).clamp(64, 4096);
            let mut text = vec![b'a'; n];
            text[n - 1] = 0;
            let mut out = vec![ExtResult::Buffer(vec![0; n]), ExtResult::Buffer(text)];
            // Data whose words are one of the code's constants (a length or a handle read
            // from a message: `memcpy(&v, data(h), 4); if (v >= MAX) …`).
            for &c in alpha.ints.iter().skip(14).take(12) {
                let word = (c as u32).to_le_bytes();
                out.push(ExtResult::Buffer(
                    word.iter().copied().cycle().take(n).collect(),
                ));
            }
            out
        }
        t if t.is_float() => [1.0, -1.0, 0.5, 2.0, 1e300, f64::NAN, f64::INFINITY]
            .into_iter()
            .map(|x| ExtResult::Scalar(Value::Double(x)))
            .collect(),
        t if t.is_integer() => {
            let mut vals: Vec<i128> = vec![
                1,
                -1,
                2,
                3,
                4,
                8,
                16,
                64,
                100,
                127,
                128,
                255,
                256,
                1024,
                65535,
                65536,
                i128::from(i32::MAX),
                i128::from(i32::MIN),
                i128::from(u32::MAX),
                1 << 32,
            ];
            for &v in alpha.ints.iter().take(24) {
                for x in [v, v - 1, v + 1] {
                    if x != 0 && !vals.contains(&x) {
                        vals.push(x);
                    }
                }
            }
            vals.into_iter()
                .map(|v| ExtResult::Scalar(Value::Int(v)))
                .collect()
        }
        _ => vec![],
    }
}

/// Most globals [`global_seeds`] sets at once.
const MAX_GLOBAL_INPUTS: usize = 32;

/// Δ's seeds with the globals of the function set too: every global both versions declare
/// with the same type that some code may write (one neither version writes keeps its
/// initializer in every run of the program) and a witness can give (a number, or a pointer
/// to a buffer), valued as the seed says (0 where it says nothing; a pointer gets the first
/// buffer its candidates offer). The parameters go back to the function's own afterwards.
fn global_seeds(
    r: &mut Runner,
    delta: &Delta,
    corr: Option<&Correlated>,
    alpha: &memory::Alphabet,
) -> Option<Witness> {
    let (old, new) = (r.old, r.new);
    let (fo, fnew) = (old.function(r.func)?, new.function(r.func)?);
    let immutable = corr.map(|c| &c.immutable_globals);
    let mut globals: Vec<Param> = vec![];
    for v in &fo.func.vars {
        let VarKind::Global(_) = v.kind else { continue };
        let paired = fnew
            .func
            .vars
            .iter()
            .any(|w| matches!(w.kind, VarKind::Global(_)) && w.name == v.name && w.ty == v.ty);
        // Opaque globals stand for a missing header's constants: their value is not ours to
        // choose.
        let declared = |p: &GclProgram| {
            p.program
                .globals
                .iter()
                .any(|g| g.name == v.name && !g.opaque)
        };
        if !paired
            || !declared(old)
            || !declared(new)
            || immutable.is_some_and(|i| i.contains(&v.name))
            || globals.iter().any(|g| g.name == v.name)
        {
            continue;
        }
        let Some(shape) = Shape::of(&old.program, &v.ty) else {
            continue;
        };
        if matches!(shape, Shape::Aggregate { .. }) {
            continue;
        }
        globals.push(Param {
            name: v.name.clone(),
            ty: v.ty.clone(),
            shape,
        });
    }
    globals.truncate(MAX_GLOBAL_INPUTS);
    if globals.is_empty() {
        return None;
    }
    let np = r.params.len();
    let mut all = r.params.clone();
    all.extend(globals);
    let cands = memory::Candidates::new(&old.program, &all, alpha);
    let fill: Vec<Input> = (0..all.len())
        .map(|k| match r.fill.get(k) {
            Some(f) if k < np => f.clone(),
            _ => cands.per_param[k]
                .iter()
                .find(|c| !matches!(c, Input::Null))
                .cloned()
                .unwrap_or(Input::Null),
        })
        .collect();
    let (saved_params, saved_fill) = (
        std::mem::replace(&mut r.params, all),
        std::mem::replace(&mut r.fill, fill),
    );
    let saved_np = std::mem::replace(&mut r.n_params, np);
    let mut found = None;
    for vals in seeds(delta, &r.params) {
        found = r.try_values(&vals, "seed, globals set");
        if found.is_some() || r.exhausted() {
            break;
        }
    }
    r.params = saved_params;
    r.fill = saved_fill;
    r.n_params = saved_np;
    found
}

/// Whether both versions' parameters are set the same way: equal scalar types, buffers and
/// aggregates of the same layout (the bytes of an input mean the same in both).
fn same_shapes(old: &GclProgram, new: &GclProgram, a: &[Param], b: &[Param]) -> bool {
    let (po, pn) = (&old.program, &new.program);
    // What a `void *` member's link points to (`memory::link_slots`) must be laid out alike,
    // and its members' buffers (it is a first-level link at most). A new version that reads
    // one as a struct where the old one has none would read past the old one's bytes.
    let void_ok = match (memory::void_target(po), memory::void_target(pn)) {
        (None, None) | (Some(_), None) => true,
        (Some(x), Some(y)) => same_layout(po, &x, pn, &y, 1, &mut Default::default()),
        (None, Some(_)) => !a.iter().any(|p| match &p.shape {
            Shape::Buffer { elem: t, .. } | Shape::Aggregate { ty: t, .. } => {
                reaches_void(po, t, memory::LINK_DEPTH, &mut Default::default())
            }
            _ => false,
        }),
    };
    let same = |x: &CType, y: &CType| {
        void_ok && same_layout(po, x, pn, y, memory::LINK_DEPTH, &mut Default::default())
    };
    a.len() == b.len()
        && a.iter().zip(b).all(|(p, q)| match (&p.shape, &q.shape) {
            // An integer parameter the patch retyped takes the values both types hold
            // (`Runner::retyped`).
            (Shape::Scalar(x), Shape::Scalar(y)) => x == y || (x.is_integer() && y.is_integer()),
            (Shape::Buffer { elem: x, .. }, Shape::Buffer { elem: y, .. })
            | (Shape::Aggregate { ty: x, .. }, Shape::Aggregate { ty: y, .. }) => same(x, y),
            (Shape::Opaque(_), Shape::Opaque(_)) => true,
            _ => false,
        })
}

/// The string literals of `f`'s code.
fn strings<'a>(prog: &'a Program, f: &GclFunction) -> impl Iterator<Item = Vec<u8>> + 'a {
    let mut ids = vec![];
    for i in &f.instrs {
        i.kind.walk_exprs(&mut |e| {
            if let crate::ir::ExprKind::Str(id) = e.kind {
                if !ids.contains(&id) {
                    ids.push(id);
                }
            }
        });
    }
    ids.into_iter()
        .filter_map(|id| prog.strings.get(id.index()).cloned())
}

/// The integer constants of `f`'s code.
fn constants(f: &GclFunction) -> Vec<i128> {
    let mut out = vec![];
    for i in &f.instrs {
        i.kind.walk_exprs(&mut |e| {
            if let crate::ir::ExprKind::Int(v) = e.kind {
                if !out.contains(&v) {
                    out.push(v);
                }
            }
        });
    }
    out
}

/// Whether an object of type `t` has a `void *` member a witness links, `links` levels down.
fn reaches_void(
    prog: &Program,
    t: &CType,
    links: usize,
    seen: &mut std::collections::HashSet<(usize, usize)>,
) -> bool {
    match t {
        CType::Ptr(p) if **p == CType::Void => links > 0,
        CType::Ptr(p) => links > 0 && reaches_void(prog, p, links - 1, seen),
        CType::Array(e, _) => reaches_void(prog, e, links, seen),
        CType::Struct(s) if seen.insert((s.index(), links)) => {
            prog.structs.get(s.index()).is_some_and(|d| {
                d.fields
                    .iter()
                    .any(|f| reaches_void(prog, &f.ty, links, seen))
            })
        }
        _ => false,
    }
}

/// Whether `x` of `po` and `y` of `pn` have one layout: the same scalars at the same offsets
/// under the same member names, and the same for what their pointers point to, `links`
/// pointers down (the buffers a witness links, `memory::LINK_DEPTH` levels, are read by both
/// versions as their own types; the pointers inside the last level are null). `seen`: what was
/// already compared or is being compared, taken as alike (recursive types).
fn same_layout(
    po: &Program,
    x: &CType,
    pn: &Program,
    y: &CType,
    links: usize,
    seen: &mut std::collections::HashSet<(usize, usize, usize)>,
) -> bool {
    match (x, y) {
        (CType::Ptr(_), CType::Ptr(_)) if links == 0 => true,
        (CType::Ptr(a), CType::Ptr(b)) => same_layout(po, a, pn, b, links - 1, seen),
        (CType::Array(a, n), CType::Array(b, m)) => {
            n == m && same_layout(po, a, pn, b, links, seen)
        }
        (CType::Struct(s), CType::Struct(t)) => {
            if !seen.insert((s.index(), t.index(), links)) {
                return true;
            }
            let (Some(d), Some(e)) = (po.structs.get(s.index()), pn.structs.get(t.index())) else {
                return false;
            };
            d.complete == e.complete
                && d.is_union == e.is_union
                && d.size == e.size
                && d.fields.len() == e.fields.len()
                && d.fields.iter().zip(&e.fields).all(|(f, g)| {
                    f.name == g.name
                        && f.offset == g.offset
                        && same_layout(po, &f.ty, pn, &g.ty, links, seen)
                })
        }
        (CType::Func(_), CType::Func(_)) => true,
        _ => x == y,
    }
}

/// Names of the struct members `f` accesses (reads, writes, takes the address of).
fn members(prog: &crate::ir::Program, f: &GclFunction) -> Vec<String> {
    use crate::ir::{ExprKind, Place};
    fn place(prog: &crate::ir::Program, p: &Place, out: &mut Vec<String>) {
        match p {
            Place::Field(b, s, k, _) => {
                if let Some(fl) = prog
                    .structs
                    .get(s.index())
                    .and_then(|d| d.fields.get(*k as usize))
                {
                    out.push(fl.name.clone());
                }
                place(prog, b, out);
            }
            Place::Index(b, ..) => place(prog, b, out),
            Place::Var(_) | Place::Deref(..) => {}
        }
    }
    let mut out = vec![];
    for i in &f.instrs {
        i.kind.walk_exprs(&mut |e| {
            if let ExprKind::Load(p) | ExprKind::AddrOf(p) = &e.kind {
                place(prog, p, &mut out);
            }
        });
        match &i.kind {
            crate::gcl::InstrKind::Assign(p, _)
            | crate::gcl::InstrKind::Havoc(p)
            | crate::gcl::InstrKind::ZeroFill(p)
            | crate::gcl::InstrKind::Call { dest: Some(p), .. } => place(prog, p, &mut out),
            _ => {}
        }
    }
    out
}

/// Scalar input `i` of the pool for parameter `p` (small values first).
fn pool_scalar(p: &Param, pool: &[i128], i: usize) -> Input {
    let v = pool[i % pool.len()];
    Input::Scalar(if p.ty.is_float() {
        format!("{v}.0")
    } else {
        v.to_string()
    })
}

/// For a function with buffers or aggregates among its parameters, the systematic part:
/// every parameter's candidates in step, the j-th non-scalar parameter `round · j` candidates
/// ahead in each round (so two strings are equal in round 0 and neighbours later), scalars
/// from the pool.
fn memory_systematic(
    r: &mut Runner,
    cands: &memory::Candidates,
    alpha: &memory::Alphabet,
) -> Option<Witness> {
    let params = r.params.clone();
    let widest = cands.per_param.iter().map(Vec::len).max().unwrap_or(1);
    let buffers = params.iter().filter(|p| !p.shape.is_scalar()).count();
    let rounds = if buffers > 1 { 3 } else { 1 };
    for round in 0..rounds {
        for i in 0..widest.max(alpha.ints.len().min(16)) {
            let inputs: Vec<Input> = params
                .iter()
                .zip(&cands.per_param)
                .enumerate()
                .map(|(j, (p, c))| match p.shape {
                    Shape::Scalar(_) => pool_scalar(p, &alpha.ints, i),
                    _ => c[(i + round * j) % c.len()].clone(),
                })
                .collect();
            if let Some(w) = r.try_inputs(&inputs, "search") {
                return Some(w);
            }
            if r.exhausted() {
                return None;
            }
        }
    }
    None
}

/// The random part of the search with memory: combinations of candidates, random buffers and
/// small scalars until the runs or the time are spent.
fn memory_random(
    r: &mut Runner,
    cands: &memory::Candidates,
    alpha: &memory::Alphabet,
) -> Option<Witness> {
    let params = r.params.clone();
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15 ^ (r.func.len() as u64);
    let mut rnd = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    while !r.exhausted() {
        let mut inputs: Vec<Input> = vec![];
        for (k, (p, c)) in params.iter().zip(&cands.per_param).enumerate() {
            let input = match p.shape {
                // Small values mostly: sizes and indices into small buffers.
                Shape::Scalar(_) => {
                    pool_scalar(p, &alpha.ints, (rnd() % (8 + (rnd() % 2) * 24)) as usize)
                }
                _ if rnd() % 2 == 0 => c[(rnd() % c.len() as u64) as usize].clone(),
                _ => memory::random_input(&r.old.program, k, &params, alpha, &mut rnd)?,
            };
            // An alias must point at an earlier buffer.
            let input = match input {
                Input::SameAs(j) | Input::Within(j, _)
                    if inputs.get(j).and_then(Input::buffer).is_none() =>
                {
                    c[0].clone()
                }
                x => x,
            };
            inputs.push(input);
        }
        if let Some(w) = r.try_inputs(&inputs, "search") {
            return Some(w);
        }
    }
    None
}
