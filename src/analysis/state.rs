//! The correlating abstract domain: sets of ⟨ctx, data⟩ sub-states (DIZY §5).
//!
//! Takes sub-states (guard valuation + numeric value over old, new and input-copy dimensions)
//! and the corresponding-variable pairs; gives canonization (Join-Equiv, Join-All, By-Guards),
//! guard-matched widening and the inclusion test the fixpoint uses. Part of the analysis stage.

use std::collections::BTreeMap;

use dizy_domains::{AnyDomain, ConstraintKind, Dim, LinConstraint, LinExpr, NumDomain};

use super::defs::Defs;
use super::memory::Mem;
use super::options::Canon;
use crate::diag::{Error, Result, Stop};
use crate::ir::GuardId;
use crate::limits::Budget;

/// Guard valuation of a sub-state (absent = unknown).
pub type Ctx = im::OrdMap<GuardId, bool>;

#[derive(Clone, Debug)]
pub struct Sub {
    pub ctx: Ctx,
    pub data: AnyDomain,
    /// What is known of memory reached through pointers (`memory`).
    pub mem: Mem,
    /// Variables (dimensions) whose last assignment wrapped around their unsigned type's
    /// range (`n - 1` from 0, `n + 1` at the top). Loop heads keep such a piece apart from the
    /// others until the variable is assigned again: `++n; while (--n)` wraps at `n = SIZE_MAX`
    /// and back, and the hull of the two pieces in between loses `n = n' + 1` for good.
    pub wrapped: im::OrdSet<u32>,
    /// Locals known to hold the value of a pure expression (`defs`).
    pub defs: Defs,
}

pub type State = Vec<Sub>;

pub fn derr(e: dizy_domains::DomainError) -> Error {
    Error::internal(format!("numeric domain error: {e}"))
}

/// Which corresponding pairs (as dimension pairs) a value proves equal.
pub fn equiv_set(data: &AnyDomain, pairs: &[(Dim, Dim)], b: &Budget) -> Result<Vec<bool>> {
    let mut out = Vec::with_capacity(pairs.len());
    for &(x, y) in pairs {
        if x.index() >= data.dims() || y.index() >= data.dims() {
            // A location the value has not met yet: nothing is known of it.
            out.push(false);
            continue;
        }
        let e = LinExpr::from_terms(&[(1, x), (-1, y)], 0).expect("small coefficients");
        out.push(data.s_entails(&LinConstraint::new(e, ConstraintKind::Eq), b)?);
    }
    Ok(out)
}

/// Bring two values to the same dimensions: the environment grows as locations are met
/// ([`super::Dims::add`]), so a value made earlier may lack the newest dimensions; they are
/// added to it unconstrained (it said nothing of them). Dimensions are only ever appended, so
/// a shorter value's dimensions are a prefix of the longer one's.
pub fn reconcile(a: &mut AnyDomain, b: &mut AnyDomain) -> Result<()> {
    let (da, db) = (a.dims(), b.dims());
    let (short, n) = match da.cmp(&db) {
        std::cmp::Ordering::Less => (a, db - da),
        std::cmp::Ordering::Greater => (b, da - db),
        std::cmp::Ordering::Equal => return Ok(()),
    };
    short.add_dims(n, true).map_err(derr)
}

/// `a := a ⊔ b` after [`reconcile`], in place: the canonizations join many sub-states into
/// one, and a copy and a deletion of a polyhedron per join cost more than the hull itself.
fn join_into(a: &mut AnyDomain, b: &AnyDomain, budget: &Budget) -> Result<()> {
    if a.dims() == b.dims() {
        return a.s_join_assign(b, budget);
    }
    let mut y = b.clone();
    reconcile(a, &mut y)?;
    a.s_join_assign(&y, budget)
}

/// One sub-state for two that share a key: the hull of the values, the guards both know, the
/// memories and definitions joined.
fn merge(g: Sub, s: Sub, b: &Budget) -> Result<Sub> {
    let mut data = g.data;
    join_into(&mut data, &s.data, b)?;
    Ok(Sub {
        ctx: ctx_meet(&g.ctx, &s.ctx),
        data,
        mem: g.mem.join(&s.mem),
        wrapped: g.wrapped.intersection(s.wrapped),
        defs: g.defs.join(&s.defs),
    })
}

/// Guards with the same known value in both contexts.
fn ctx_meet(a: &Ctx, b: &Ctx) -> Ctx {
    a.iter()
        .filter(|(g, v)| b.get(g) == Some(v))
        .map(|(g, v)| (*g, *v))
        .collect()
}

/// Grouping key of a sub-state under a canonization strategy.
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Debug)]
pub struct Key {
    guards: Vec<(u32, bool)>,
    equiv: Vec<bool>,
    /// Whether the memories are equal, but for which pending writes (joining equal with
    /// unequal memories loses every read).
    mem: Option<Vec<u32>>,
    /// [`Sub::wrapped`], kept apart where no bound on sub-states is needed (`Canon::None`).
    wrapped: Vec<u32>,
}

/// The guards every strategy but Join-All keeps apart (`kept`): the return flags, so that a
/// state in which one version has returned is never joined with one in which it has not.
pub fn key(
    s: &Sub,
    canon: Canon,
    pairs: &[(Dim, Dim)],
    kept: &[GuardId],
    b: &Budget,
) -> Result<Key> {
    let equiv = match canon {
        Canon::JoinEquiv | Canon::None => equiv_set(&s.data, pairs, b)?,
        _ => vec![],
    };
    Ok(key_with(s, canon, equiv, kept))
}

/// [`key`] with the sub-state's equivalences ([`equiv_set`]) already known.
fn key_with(s: &Sub, canon: Canon, equiv: Vec<bool>, kept: &[GuardId]) -> Key {
    let guards = match canon {
        Canon::ByGuards | Canon::None => s.ctx.iter().map(|(g, v)| (g.0, *v)).collect(),
        Canon::JoinEquiv => kept
            .iter()
            .filter_map(|g| s.ctx.get(g).map(|v| (g.0, *v)))
            .collect(),
        _ => vec![],
    };
    let equiv = match canon {
        Canon::JoinEquiv | Canon::None => equiv,
        _ => vec![],
    };
    let mem = (canon != Canon::JoinAll && s.mem.equal && !s.mem.globals_differ)
        .then(|| s.mem.pending.keys().copied().collect());
    let wrapped = match canon {
        Canon::None => s.wrapped.iter().copied().collect(),
        _ => vec![],
    };
    Key {
        guards,
        equiv,
        mem,
        wrapped,
    }
}

/// Merge the sub-states of `state` that share a key; drop empty ones. `Canon::None` merges only
/// sub-states with identical guards and equivalences (used where a bound is required).
pub fn canonize(
    state: State,
    canon: Canon,
    pairs: &[(Dim, Dim)],
    kept: &[GuardId],
    b: &Budget,
) -> Result<State> {
    let mut groups: BTreeMap<Key, Sub> = BTreeMap::new();
    for s in state {
        if s.data.s_is_bottom(b)? {
            continue;
        }
        let k = key(&s, canon, pairs, kept, b)?;
        match groups.remove(&k) {
            None => {
                groups.insert(k, s);
            }
            Some(g) => {
                groups.insert(k, merge(g, s, b)?);
            }
        }
    }
    Ok(groups.into_values().collect())
}

/// The first of `levels` (finest first) under which `state` has at most `max` sub-states
/// (else the last), applied: each sub-state's equivalences are decided once, not once per level
/// tried. Grouping the sub-states by a coarser key directly gives what canonizing by a finer
/// one first and then by the coarser would: the sub-states a finer group joins share every
/// part of the coarser key, and so does their join.
/// Each level names the guards Join-Equiv keeps apart besides the equivalences.
pub fn canonize_bounded(
    state: State,
    levels: &[(Canon, &[GuardId])],
    max: usize,
    pairs: &[(Dim, Dim)],
    b: &Budget,
) -> Result<State> {
    let mut subs = Vec::with_capacity(state.len());
    let needs_equiv = levels
        .iter()
        .any(|(c, _)| matches!(c, Canon::None | Canon::JoinEquiv));
    for s in state {
        if s.data.s_is_bottom(b)? {
            continue;
        }
        let equiv = if needs_equiv {
            equiv_set(&s.data, pairs, b)?
        } else {
            vec![]
        };
        subs.push((equiv, s));
    }
    let Some(&last) = levels.last() else {
        return Ok(subs.into_iter().map(|x| x.1).collect());
    };
    let (chosen, kept) = levels
        .iter()
        .copied()
        .find(|&(c, kept)| {
            let keys: std::collections::BTreeSet<Key> = subs
                .iter()
                .map(|(e, s)| key_with(s, c, e.clone(), kept))
                .collect();
            keys.len() <= max
        })
        .unwrap_or(last);
    let mut groups: BTreeMap<Key, Sub> = BTreeMap::new();
    for (equiv, s) in subs {
        let k = key_with(&s, chosen, equiv, kept);
        let merged = match groups.remove(&k) {
            None => s,
            Some(g) => merge(g, s, b)?,
        };
        groups.insert(k, merged);
    }
    Ok(groups.into_values().collect())
}

/// Drop empty sub-states only.
pub fn prune(state: State, b: &Budget) -> Result<State> {
    let mut out = Vec::with_capacity(state.len());
    for s in state {
        if !s.data.s_is_bottom(b)? {
            out.push(s);
        }
    }
    Ok(out)
}

/// `a ⊑ b` in the Hoare order: every sub-state of `a` is covered by one of `b` whose known
/// guards it agrees with.
pub fn leq(a: &State, bs: &State, b: &Budget) -> Result<bool> {
    'outer: for x in a {
        for y in bs {
            let ctx_ok = y.ctx.iter().all(|(g, v)| x.ctx.get(g) == Some(v));
            let fits = x.data.dims() == y.data.dims();
            let leq = if fits {
                x.data.s_leq(&y.data, b)?
            } else {
                let (mut p, mut q) = (x.data.clone(), y.data.clone());
                reconcile(&mut p, &mut q)?;
                p.s_leq(&q, b)?
            };
            if ctx_ok && leq && x.mem.leq(&y.mem) && x.defs.leq(&y.defs) {
                continue 'outer;
            }
        }
        return Ok(false);
    }
    Ok(true)
}

/// Guard-matched widening: `old` and `new` are canonical under `canon`; sub-states with the same
/// key are widened pairwise (`old ∇ (old ⊔ new)`), new keys are added as they are. Keys are
/// finite, so increasing chains stabilise.
pub fn widen(
    old: &State,
    new: State,
    canon: Canon,
    pairs: &[(Dim, Dim)],
    kept: &[GuardId],
    b: &Budget,
) -> Result<State> {
    let mut by_key: BTreeMap<Key, Sub> = BTreeMap::new();
    for s in old {
        by_key.insert(key(s, canon, pairs, kept, b)?, s.clone());
    }
    let mut out: BTreeMap<Key, Sub> = BTreeMap::new();
    for s in new {
        let k = key(&s, canon, pairs, kept, b)?;
        let merged = match by_key.get(&k) {
            Some(o) => {
                let mut newer = o.data.clone();
                join_into(&mut newer, &s.data, b)?;
                let mut older = o.data.clone();
                reconcile(&mut older, &mut newer)?;
                let w = older.s_widen(&newer, b)?;
                Sub {
                    ctx: ctx_meet(&o.ctx, &s.ctx),
                    data: w,
                    mem: o.mem.join(&s.mem),
                    wrapped: o.wrapped.clone().intersection(s.wrapped),
                    defs: o.defs.join(&s.defs),
                }
            }
            None => s,
        };
        match out.remove(&k) {
            Some(prev) => {
                out.insert(k, merge(prev, merged, b)?);
            }
            None => {
                out.insert(k, merged);
            }
        }
    }
    // Keys only the old state had stay (the union of iterates).
    for (k, s) in by_key {
        out.entry(k).or_insert(s);
    }
    Ok(out.into_values().collect())
}

/// Domain operations that degrade instead of failing. PPL operations run under a work budget
/// (conversions between constraints and generators can explode); when one runs out, or PPL
/// reports an error, the result is replaced by a sound over-approximation: top for values,
/// "not known" for questions. Other errors (programming errors) still surface.
pub trait Soft: Sized {
    fn s_join_assign(&mut self, o: &Self, b: &Budget) -> Result<()>;
    fn s_widen(&self, newer: &Self, b: &Budget) -> Result<Self>;
    fn s_leq(&self, o: &Self, b: &Budget) -> Result<bool>;
    fn s_is_bottom(&self, b: &Budget) -> Result<bool>;
    fn s_entails(&self, c: &LinConstraint, b: &Budget) -> Result<bool>;
    fn s_bounds(&self, e: &LinExpr, b: &Budget) -> Result<dizy_domains::Interval>;
    fn s_meet_constraint(&mut self, c: &LinConstraint, b: &Budget) -> Result<()>;
    fn s_meet_constraints(&mut self, cs: &[LinConstraint], b: &Budget) -> Result<()>;
    fn s_assign_expr(&mut self, d: Dim, e: &dizy_domains::Expr, b: &Budget) -> Result<()>;
    fn s_assign_linear(&mut self, d: Dim, e: &LinExpr, b: &Budget) -> Result<()>;
    fn s_forget(&mut self, d: Dim, b: &Budget) -> Result<()>;
}

fn recoverable(e: &dizy_domains::DomainError) -> bool {
    matches!(
        e,
        dizy_domains::DomainError::Timeout
            | dizy_domains::DomainError::Ppl { .. }
            | dizy_domains::DomainError::Overflow(_)
    )
}

/// Most numeric dimensions a relational domain (polyhedra) is asked to handle: one operation
/// costs at least quadratic time and memory in them, so beyond this a single step could overrun
/// both `--timeout` and `--max-memory` before any check runs.
pub const MAX_RELATIONAL_DIMS: usize = 2000;
/// Most (program positions × dimensions) of one analysis: the analysis keeps a state per position.
pub const MAX_STATE_CELLS: usize = 50_000_000;

/// Refuse an analysis whose size alone exceeds the caps above (a resource limit, reported like a
/// timeout: no verdict is claimed).
pub fn check_size(dims: usize, positions: usize, relational: bool) -> Result<()> {
    if relational && dims > MAX_RELATIONAL_DIMS {
        return Err(Error::stopped(Stop::Size, format!(
            "analysis budget exhausted: {dims} numeric dimensions (variables of both versions) exceed the limit of {MAX_RELATIONAL_DIMS} for a relational domain; try --domain interval"
        )));
    }
    if dims.saturating_mul(positions) > MAX_STATE_CELLS {
        return Err(Error::stopped(Stop::Size, format!(
            "analysis budget exhausted: {positions} program positions × {dims} numeric dimensions exceed the limit of {MAX_STATE_CELLS}"
        )));
    }
    Ok(())
}

/// Every operation first checks the budget (so a run of cheap steps cannot overrun
/// `--timeout` or `--max-memory` by much), then degrades a failed operation to `fallback`.
fn soft<T>(
    r: impl FnOnce() -> std::result::Result<T, dizy_domains::DomainError>,
    fallback: impl FnOnce() -> Result<T>,
    b: &Budget,
) -> Result<T> {
    b.check()?;
    match r() {
        Ok(v) => Ok(v),
        Err(e) if recoverable(&e) => fallback(),
        Err(e) => Err(derr(e)),
    }
}

impl Soft for AnyDomain {
    fn s_join_assign(&mut self, o: &Self, b: &Budget) -> Result<()> {
        b.check()?;
        match self.join_assign(o) {
            Ok(()) => Ok(()),
            Err(e) if recoverable(&e) => {
                *self = self.top_like(self.dims()).map_err(derr)?;
                Ok(())
            }
            Err(e) => Err(derr(e)),
        }
    }
    fn s_widen(&self, newer: &Self, b: &Budget) -> Result<Self> {
        soft(
            || self.widen(newer),
            || self.top_like(self.dims()).map_err(derr),
            b,
        )
    }
    fn s_leq(&self, o: &Self, b: &Budget) -> Result<bool> {
        soft(|| self.leq(o), || Ok(false), b)
    }
    fn s_is_bottom(&self, b: &Budget) -> Result<bool> {
        soft(|| self.is_bottom(), || Ok(false), b)
    }
    fn s_entails(&self, c: &LinConstraint, b: &Budget) -> Result<bool> {
        soft(|| self.entails(c), || Ok(false), b)
    }
    fn s_bounds(&self, e: &LinExpr, b: &Budget) -> Result<dizy_domains::Interval> {
        soft(
            || self.bounds(e),
            || {
                Ok(dizy_domains::Interval::new(
                    dizy_domains::Bound::NegInf,
                    dizy_domains::Bound::PosInf,
                ))
            },
            b,
        )
    }
    // In-place operations that fail leave the value at top (sound): nothing more to do.
    fn s_meet_constraint(&mut self, c: &LinConstraint, b: &Budget) -> Result<()> {
        soft(|| self.meet_constraint(c), || Ok(()), b)
    }
    fn s_meet_constraints(&mut self, cs: &[LinConstraint], b: &Budget) -> Result<()> {
        soft(|| self.meet_constraints(cs), || Ok(()), b)
    }
    fn s_assign_expr(&mut self, d: Dim, e: &dizy_domains::Expr, b: &Budget) -> Result<()> {
        soft(|| self.assign_expr(d, e), || Ok(()), b)
    }
    fn s_assign_linear(&mut self, d: Dim, e: &LinExpr, b: &Budget) -> Result<()> {
        soft(|| self.assign_linear(d, e), || Ok(()), b)
    }
    fn s_forget(&mut self, d: Dim, b: &Budget) -> Result<()> {
        soft(|| self.forget(d), || Ok(()), b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dizy_domains::DomainKind;

    fn sub(dims: usize, x: i128) -> Sub {
        let b = Budget::unlimited();
        let mut data = DomainKind::Polyhedra.top(dims).unwrap();
        let e = LinExpr::from_terms(&[(1, Dim::new(0))], -x).unwrap();
        data.s_meet_constraint(&LinConstraint::new(e, ConstraintKind::Eq), &b)
            .unwrap();
        Sub {
            ctx: Ctx::new(),
            data,
            mem: Mem::top(),
            wrapped: im::OrdSet::new(),
            defs: Defs::default(),
        }
    }

    /// Values made before the environment grew lack its newest dimensions; where they meet
    /// values that have them, they are extended (unconstrained) instead of failing.
    #[test]
    fn values_of_a_grown_environment_are_reconciled() {
        let b = Budget::unlimited();
        let (old, new) = (sub(1, 1), sub(3, 2));
        let pairs = [(Dim::new(1), Dim::new(2))];
        let joined = canonize(
            vec![old.clone(), new.clone()],
            Canon::JoinAll,
            &pairs,
            &[],
            &b,
        )
        .unwrap();
        assert_eq!(joined.len(), 1);
        assert_eq!(joined[0].data.dims(), 3);
        // Both values are below the join, whatever their dimensions.
        assert!(leq(&vec![old.clone()], &joined, &b).unwrap());
        assert!(leq(&vec![new.clone()], &joined, &b).unwrap());
        // The short value knows nothing of the new dimensions: not below one that does.
        let mut pinned = new.clone();
        let e = LinExpr::from_terms(&[(1, Dim::new(1))], 0).unwrap();
        pinned
            .data
            .s_meet_constraint(&LinConstraint::new(e, ConstraintKind::Eq), &b)
            .unwrap();
        assert!(!leq(&vec![sub(1, 2)], &vec![pinned], &b).unwrap());
        let widened = widen(&vec![old], vec![new], Canon::JoinAll, &pairs, &[], &b).unwrap();
        assert_eq!(widened[0].data.dims(), 3);
        // An equivalence over a dimension the value lacks is simply not known.
        assert_eq!(equiv_set(&sub(1, 0).data, &pairs, &b).unwrap(), vec![false]);
    }
}
