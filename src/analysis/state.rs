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
        out.push(
            data.entails(&LinConstraint::new(e, ConstraintKind::Eq))
                .map_err(derr)?,
        );
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
        if s.data.is_bottom().map_err(derr)? {
            continue;
        }
        let k = key(&s, canon, pairs)?;
        match groups.remove(&k) {
            None => {
                groups.insert(k, s);
            }
            Some(g) => {
                let data = g.data.join(&s.data).map_err(derr)?;
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
        if !s.data.is_bottom().map_err(derr)? {
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
            if ctx_ok && x.data.leq(&y.data).map_err(derr)? {
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
                let j = o.data.join(&s.data).map_err(derr)?;
                let w = o.data.widen(&j).map_err(derr)?;
                Sub {
                    ctx: ctx_meet(&o.ctx, &s.ctx),
                    data: w,
                }
            }
            None => s,
        };
        match out.remove(&k) {
            Some(prev) => {
                let data = prev.data.join(&merged.data).map_err(derr)?;
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
