//! The correlating abstract domain: sets of ⟨ctx, data⟩ sub-states (DIZY §5).
//!
//! Takes sub-states (guard valuation + numeric value over old, new and input-copy dimensions)
//! and the corresponding-variable pairs; gives canonization (Join-Equiv, Join-All, By-Guards),
//! guard-matched widening and the inclusion test the fixpoint uses. Part of the analysis stage.

use std::collections::BTreeMap;

use dizy_domains::{AnyDomain, ConstraintKind, Dim, LinConstraint, LinExpr, NumDomain};

use super::{Canon, Ctx};
use crate::diag::{Error, Result};

#[derive(Clone, Debug)]
pub struct Sub {
    pub ctx: Ctx,
    pub data: AnyDomain,
}

pub type State = Vec<Sub>;

pub fn derr(e: dizy_domains::DomainError) -> Error {
    Error::new(format!("numeric domain error: {e}"))
}

/// Which corresponding pairs (as dimension pairs) a value proves equal.
pub fn equiv_set(data: &AnyDomain, pairs: &[(Dim, Dim)]) -> Result<Vec<bool>> {
    let mut out = Vec::with_capacity(pairs.len());
    for &(a, b) in pairs {
        let e = LinExpr::from_terms(&[(1, a), (-1, b)], 0).expect("small coefficients");
        out.push(data.s_entails(&LinConstraint::new(e, ConstraintKind::Eq))?);
    }
    Ok(out)
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
}

pub fn key(s: &Sub, canon: Canon, pairs: &[(Dim, Dim)]) -> Result<Key> {
    let guards = match canon {
        Canon::ByGuards | Canon::None => s.ctx.iter().map(|(g, v)| (g.0, *v)).collect(),
        _ => vec![],
    };
    let equiv = match canon {
        Canon::JoinEquiv | Canon::None => equiv_set(&s.data, pairs)?,
        _ => vec![],
    };
    Ok(Key { guards, equiv })
}

/// Merge the sub-states of `state` that share a key; drop empty ones. `Canon::None` merges only
/// sub-states with identical guards and equivalences (used where a bound is required).
pub fn canonize(state: State, canon: Canon, pairs: &[(Dim, Dim)]) -> Result<State> {
    let mut groups: BTreeMap<Key, Sub> = BTreeMap::new();
    for s in state {
        if s.data.s_is_bottom()? {
            continue;
        }
        let k = key(&s, canon, pairs)?;
        match groups.remove(&k) {
            None => {
                groups.insert(k, s);
            }
            Some(g) => {
                let data = g.data.s_join(&s.data)?;
                groups.insert(
                    k,
                    Sub {
                        ctx: ctx_meet(&g.ctx, &s.ctx),
                        data,
                    },
                );
            }
        }
    }
    Ok(groups.into_values().collect())
}

/// Drop empty sub-states only.
pub fn prune(state: State) -> Result<State> {
    let mut out = Vec::with_capacity(state.len());
    for s in state {
        if !s.data.s_is_bottom()? {
            out.push(s);
        }
    }
    Ok(out)
}

/// `a ⊑ b` in the Hoare order: every sub-state of `a` is covered by one of `b` whose known
/// guards it agrees with.
pub fn leq(a: &State, b: &State) -> Result<bool> {
    'outer: for x in a {
        for y in b {
            let ctx_ok = y.ctx.iter().all(|(g, v)| x.ctx.get(g) == Some(v));
            if ctx_ok && x.data.s_leq(&y.data)? {
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
pub fn widen(old: &State, new: State, canon: Canon, pairs: &[(Dim, Dim)]) -> Result<State> {
    let mut by_key: BTreeMap<Key, Sub> = BTreeMap::new();
    for s in old {
        by_key.insert(key(s, canon, pairs)?, s.clone());
    }
    let mut out: BTreeMap<Key, Sub> = BTreeMap::new();
    for s in new {
        let k = key(&s, canon, pairs)?;
        let merged = match by_key.get(&k) {
            Some(o) => {
                let j = o.data.s_join(&s.data)?;
                let w = o.data.s_widen(&j)?;
                Sub {
                    ctx: ctx_meet(&o.ctx, &s.ctx),
                    data: w,
                }
            }
            None => s,
        };
        match out.remove(&k) {
            Some(prev) => {
                let data = prev.data.s_join(&merged.data)?;
                out.insert(
                    k,
                    Sub {
                        ctx: ctx_meet(&prev.ctx, &merged.ctx),
                        data,
                    },
                );
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
    fn s_join(&self, o: &Self) -> Result<Self>;
    fn s_widen(&self, newer: &Self) -> Result<Self>;
    fn s_leq(&self, o: &Self) -> Result<bool>;
    fn s_is_bottom(&self) -> Result<bool>;
    fn s_entails(&self, c: &LinConstraint) -> Result<bool>;
    fn s_bounds(&self, e: &LinExpr) -> Result<dizy_domains::Interval>;
    fn s_meet_constraint(&mut self, c: &LinConstraint) -> Result<()>;
    fn s_meet_constraints(&mut self, cs: &[LinConstraint]) -> Result<()>;
    fn s_assign_expr(&mut self, d: Dim, e: &dizy_domains::Expr) -> Result<()>;
    fn s_assign_linear(&mut self, d: Dim, e: &LinExpr) -> Result<()>;
    fn s_forget(&mut self, d: Dim) -> Result<()>;
}

fn recoverable(e: &dizy_domains::DomainError) -> bool {
    matches!(
        e,
        dizy_domains::DomainError::Timeout
            | dizy_domains::DomainError::Ppl { .. }
            | dizy_domains::DomainError::Overflow(_)
    )
}

thread_local! {
    /// When the analysis running on this thread must stop (checked at every domain operation,
    /// so a single slow step cannot overrun `--timeout` by much).
    static DEADLINE: std::cell::Cell<Option<std::time::Instant>> = const { std::cell::Cell::new(None) };
}

pub fn set_deadline(d: Option<std::time::Instant>) {
    DEADLINE.with(|c| c.set(d));
}

pub fn past_deadline() -> bool {
    DEADLINE
        .with(|c| c.get())
        .is_some_and(|d| std::time::Instant::now() > d)
}

/// Resident-memory budget of the whole process in MiB (`--max-memory`); 0: none.
static MEMORY_LIMIT_MB: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

thread_local! {
    /// When the resident size was last read (reading /proc costs a few system calls, so at most
    /// every few milliseconds).
    static MEMORY_CHECKED: std::cell::Cell<Option<std::time::Instant>> = const { std::cell::Cell::new(None) };
}

pub fn set_memory_limit_mb(mb: u64) {
    MEMORY_LIMIT_MB.store(mb, std::sync::atomic::Ordering::Relaxed);
}

/// An error once the process's resident memory exceeds `--max-memory`. The analysis of the
/// current function stops (it gets no verdict beyond "resource limit"), which loses precision,
/// never soundness; its states are freed before the next function starts.
pub fn check_memory() -> Result<()> {
    let limit = MEMORY_LIMIT_MB.load(std::sync::atomic::Ordering::Relaxed);
    if limit == 0 {
        return Ok(());
    }
    let now = std::time::Instant::now();
    let due = MEMORY_CHECKED.with(|c| {
        let due = c
            .get()
            .is_none_or(|t| now.duration_since(t) >= std::time::Duration::from_millis(5));
        if due {
            c.set(Some(now));
        }
        due
    });
    if !due {
        return Ok(());
    }
    match crate::resources::resident_mb() {
        Some(mb) if mb > limit => Err(Error::new(format!(
            "analysis stopped: memory budget exhausted ({mb} MiB resident, --max-memory {limit})"
        ))),
        _ => Ok(()),
    }
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
        return Err(Error::new(format!(
            "analysis budget exhausted: {dims} numeric dimensions (variables of both versions) exceed the limit of {MAX_RELATIONAL_DIMS} for a relational domain; try --domain interval"
        )));
    }
    if dims.saturating_mul(positions) > MAX_STATE_CELLS {
        return Err(Error::new(format!(
            "analysis budget exhausted: {positions} program positions × {dims} numeric dimensions exceed the limit of {MAX_STATE_CELLS}"
        )));
    }
    Ok(())
}

fn soft<T>(
    r: std::result::Result<T, dizy_domains::DomainError>,
    fallback: impl FnOnce() -> Result<T>,
) -> Result<T> {
    if past_deadline() {
        return Err(Error::new("analysis timed out"));
    }
    check_memory()?;
    match r {
        Ok(v) => Ok(v),
        Err(e) if recoverable(&e) => fallback(),
        Err(e) => Err(derr(e)),
    }
}

impl Soft for AnyDomain {
    fn s_join(&self, o: &Self) -> Result<Self> {
        soft(self.join(o), || self.top_like(self.dims()).map_err(derr))
    }
    fn s_widen(&self, newer: &Self) -> Result<Self> {
        soft(self.widen(newer), || {
            self.top_like(self.dims()).map_err(derr)
        })
    }
    fn s_leq(&self, o: &Self) -> Result<bool> {
        soft(self.leq(o), || Ok(false))
    }
    fn s_is_bottom(&self) -> Result<bool> {
        soft(self.is_bottom(), || Ok(false))
    }
    fn s_entails(&self, c: &LinConstraint) -> Result<bool> {
        soft(self.entails(c), || Ok(false))
    }
    fn s_bounds(&self, e: &LinExpr) -> Result<dizy_domains::Interval> {
        soft(self.bounds(e), || {
            Ok(dizy_domains::Interval::new(
                dizy_domains::Bound::NegInf,
                dizy_domains::Bound::PosInf,
            ))
        })
    }
    // In-place operations that fail leave the value at top (sound): nothing more to do.
    fn s_meet_constraint(&mut self, c: &LinConstraint) -> Result<()> {
        soft(self.meet_constraint(c), || Ok(()))
    }
    fn s_meet_constraints(&mut self, cs: &[LinConstraint]) -> Result<()> {
        soft(self.meet_constraints(cs), || Ok(()))
    }
    fn s_assign_expr(&mut self, d: Dim, e: &dizy_domains::Expr) -> Result<()> {
        soft(self.assign_expr(d, e), || Ok(()))
    }
    fn s_assign_linear(&mut self, d: Dim, e: &LinExpr) -> Result<()> {
        soft(self.assign_linear(d, e), || Ok(()))
    }
    fn s_forget(&mut self, d: Dim) -> Result<()> {
        soft(self.forget(d), || Ok(()))
    }
}
