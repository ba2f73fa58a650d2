//! Owned PPL objects: [`Shape`].
//!
//! Takes a [`Kind`] and this crate's linear expressions and constraints; gives
//! an owned PPL object with safe methods (refinement, assignment, dimensions,
//! lattice operations, widening, tests, bounds, constraints, integer points),
//! each taking the lock and running under the value's work budget.

use std::cell::Cell;
use std::marker::PhantomData;
use std::os::raw::c_int;
use std::ptr;

use super::ffi;
use super::handles::{read_constraints, Coef, PConsSys, PLinExpr};
use super::kinds::Kind;
use super::lock::{budgeted, check, lock, Guard};
use super::mip::mip_point;
use crate::linear::{Dim, LinConstraint, LinExpr};
use crate::num::{Bound, Rat};
use crate::Result;

/// Estimated size of the rays BHRZ03's evolving-points step builds, above
/// which polyhedra are widened with H79 rather than BHRZ03 (see
/// [`Shape::widen_assign`]).
const BHRZ03_MAX_BYTES: usize = 64 << 20;

/// Bytes PPL takes per coefficient of a generator row (a GMP integer of one
/// limb), used to turn an operand's size into a number of generators.
const BYTES_PER_COEFFICIENT: usize = 16;

/// An owned PPL object of kind `K`. Dimension indices passed to its methods
/// must be checked by the caller (out-of-range ones make PPL report an
/// error, which surfaces as `Err`, never as a crash).
pub struct Shape<K: Kind> {
    /// The PPL object. Read and replaced only with the lock held (a `Cell`: a
    /// failed call replaces it even through `&self`, see [`Shape::poison`]).
    raw: Cell<*mut K::Tag>,
    /// Its space dimension, tracked so that a poisoned object can be replaced.
    dims: Cell<usize>,
    /// Work budget of each potentially exponential operation on this value
    /// (0: unlimited); copies and values derived from it keep it.
    budget: u64,
}

// SAFETY: the handle is only dereferenced by PPL under the global lock, and
// PPL objects have no affinity to the thread that created them.
unsafe impl<K: Kind> Send for Shape<K> {}
// SAFETY: as above; `&Shape` methods also take the lock.
unsafe impl<K: Kind> Sync for Shape<K> {}

impl<K: Kind> Drop for Shape<K> {
    fn drop(&mut self) {
        if let Ok(_g) = lock() {
            // SAFETY: owned handle, deleted once, lock held.
            unsafe { K::delete(self.raw.get()) };
        }
    }
}

impl<K: Kind> std::fmt::Debug for Shape<K> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}@{:p}", K::NAME, self.raw.get())
    }
}

/// Extended-rational value `n/d` from PPL coefficients; `None` if either
/// does not fit in `i128`.
fn rat_of(n: &Coef<'_>, d: &Coef<'_>) -> Result<Option<Rat>> {
    Ok(match (n.get()?, d.get()?) {
        (Some(n), Some(d)) => Rat::new(n, d),
        _ => None,
    })
}

impl<K: Kind> Shape<K> {
    /// The universe (`empty == false`) or the empty set of `dims` dimensions,
    /// whose operations each get at most `budget` units of work (0: no bound;
    /// an operation that runs out fails with [`DomainError::Timeout`]).
    pub fn new(dims: usize, empty: bool, budget: u64) -> Result<Self> {
        let _g = lock()?;
        let mut raw = ptr::null_mut();
        // SAFETY: valid out-pointer; lock held.
        check(unsafe { K::new_space(&mut raw, dims, c_int::from(empty)) })?;
        Ok(Shape {
            raw: Cell::new(raw),
            dims: Cell::new(dims),
            budget,
        })
    }

    /// The work budget of this value's operations.
    pub fn budget(&self) -> u64 {
        self.budget
    }

    /// The PPL handle. Call with the lock held.
    fn h(&self) -> *mut K::Tag {
        self.raw.get()
    }

    /// The result of a PPL call on this object (and on `others`), with the lock held. A call
    /// PPL interrupts (its work budget ran out) or that fails inside may leave every object it
    /// touched inconsistent — queries too: PPL updates its representations lazily, even in
    /// `const` operations — and a later call on such an object can crash. So each of them is
    /// replaced by the universe: a sound over-approximation of whatever it held.
    fn run(&self, others: &[&Self], rc: c_int) -> Result<c_int> {
        let r = check(rc);
        if let Err(crate::DomainError::Timeout | crate::DomainError::Ppl { .. }) = r {
            self.poison();
            for o in others {
                o.poison();
            }
        }
        r
    }

    /// Replace the object by the universe of its dimensions. The old one is leaked: deleting
    /// an inconsistent PPL object is itself unsafe. Call with the lock held.
    fn poison(&self) {
        let mut raw = ptr::null_mut();
        // SAFETY: valid out-pointer; lock held by the caller.
        if check(unsafe { K::new_space(&mut raw, self.dims.get(), 0) }).is_ok() {
            self.raw.set(raw);
        }
    }

    /// A copy; fails only if PPL runs out of memory.
    pub fn try_clone(&self) -> Result<Self> {
        let _g = lock()?;
        let mut raw = ptr::null_mut();
        // SAFETY: valid source handle and out-pointer; lock held.
        check(unsafe { K::copy(&mut raw, self.h()) })?;
        Ok(Shape {
            raw: Cell::new(raw),
            dims: Cell::new(self.dims.get()),
            budget: self.budget,
        })
    }

    /// Intersects with non-strict constraints (`=`, `≤`, `≥`). Octagons
    /// ignore non-octagonal ones (sound; callers approximate them first).
    pub fn refine(&mut self, cs: &[LinConstraint], dims: usize) -> Result<()> {
        let g = lock()?;
        let sys = PConsSys::new(&g, cs, dims)?;
        // SAFETY: valid handles; lock held.
        self.run(
            &[],
            budgeted(self.budget, || unsafe { K::refine(self.h(), sys.raw) }),
        )?;
        Ok(())
    }

    /// `x_var := e`.
    pub fn affine_image(&mut self, var: Dim, e: &LinExpr, dims: usize) -> Result<()> {
        let g = lock()?;
        let le = PLinExpr::new(&g, e, dims)?;
        let one = Coef::new(&g, 1)?;
        // SAFETY: valid handles; lock held.
        self.run(
            &[],
            budgeted(self.budget, || unsafe {
                K::affine_image(self.h(), var.index(), le.raw, one.raw)
            }),
        )?;
        Ok(())
    }

    /// Forgets everything about `x_var`.
    pub fn unconstrain(&mut self, var: Dim) -> Result<()> {
        let _g = lock()?;
        // SAFETY: valid handle; lock held.
        self.run(
            &[],
            budgeted(self.budget, || unsafe {
                K::unconstrain(self.h(), var.index())
            }),
        )?;
        Ok(())
    }

    /// Appends `n` unconstrained dimensions.
    pub fn add_dims(&mut self, n: usize) -> Result<()> {
        let _g = lock()?;
        // SAFETY: valid handle; lock held.
        self.run(&[], unsafe { K::add_dims(self.h(), n) })?;
        self.dims.set(self.dims.get() + n);
        Ok(())
    }

    /// Projects away the given dimensions (sorted, distinct); the others
    /// keep their order.
    pub fn remove_dims(&mut self, ds: &[Dim]) -> Result<()> {
        let _g = lock()?;
        let mut ds: Vec<usize> = ds.iter().map(|d| d.index()).collect();
        // SAFETY: valid handle and array of `ds.len()` entries; lock held.
        self.run(
            &[],
            budgeted(self.budget, || unsafe {
                K::remove_dims(self.h(), ds.as_mut_ptr(), ds.len())
            }),
        )?;
        self.dims.set(self.dims.get().saturating_sub(ds.len()));
        Ok(())
    }

    /// Renames dimension `i` to `map[i]`, projecting away those mapped to
    /// `None`. The caller checks that the image is exactly `0..k`.
    pub fn map_dims(&mut self, map: &[Option<Dim>]) -> Result<()> {
        let _g = lock()?;
        let mut nad = 0usize;
        // SAFETY: valid out-pointer; lock held.
        check(unsafe { ffi::ppl_not_a_dimension(&mut nad) })?;
        let mut maps: Vec<usize> = map.iter().map(|m| m.map_or(nad, Dim::index)).collect();
        // SAFETY: valid handle and array of `maps.len()` entries; lock held.
        self.run(
            &[],
            budgeted(self.budget, || unsafe {
                K::map_dims(self.h(), maps.as_mut_ptr(), maps.len())
            }),
        )?;
        self.dims.set(map.iter().filter(|m| m.is_some()).count());
        Ok(())
    }

    pub fn meet_assign(&mut self, o: &Self) -> Result<()> {
        let _g = lock()?;
        // SAFETY: valid handles; lock held.
        self.run(
            &[o],
            budgeted(self.budget, || unsafe { K::meet(self.h(), o.h()) }),
        )?;
        Ok(())
    }

    pub fn join_assign(&mut self, o: &Self) -> Result<()> {
        let _g = lock()?;
        // SAFETY: valid handles; lock held.
        self.run(
            &[o],
            budgeted(self.budget, || unsafe { K::join(self.h(), o.h()) }),
        )?;
        self.minimize_locked()
    }

    /// PPL computes polyhedral hulls by queueing the other operand's generators as
    /// "pending"; a value joined again and again (loop heads, canonization) then carries every
    /// generator it ever saw, and each copy and test pays for all of them. Minimizing after a
    /// join keeps the representation as small as the polyhedron. Call with the lock held.
    fn minimize_locked(&mut self) -> Result<()> {
        if K::OCTAGONAL {
            return Ok(());
        }
        let mut cs: ffi::ppl_const_Constraint_System_t = ptr::null();
        // SAFETY: for the polyhedron kind the tag is `ppl_Polyhedron_tag`, so the cast is the
        // identity; valid handle and out-pointer; lock held by the caller.
        self.run(
            &[],
            budgeted(self.budget, || unsafe {
                ffi::ppl_Polyhedron_get_minimized_constraints(
                    self.h() as ffi::ppl_Polyhedron_t,
                    &mut cs,
                )
            }),
        )?;
        Ok(())
    }

    /// `self := older ∇ self`; requires `older ⊆ self`.
    ///
    /// BHRZ03's evolving-points step builds a ray for each pair of points of
    /// the two operands and PPL's work budget does not interrupt it: on two
    /// polyhedra of a few MB (thousands of vertices) it ran for 30 s past
    /// `--timeout` and reached 5 GB, and on two of 0.6 MB each it took 1.1 s,
    /// a run's whole remaining time. When those rays would take more than
    /// [`BHRZ03_MAX_BYTES`] the coarser H79 widening (constraints of `older`
    /// that `self` satisfies), whose conversions the budget does bound, is
    /// used instead.
    pub fn widen_assign(&mut self, older: &Self) -> Result<()> {
        let _g = lock()?;
        let coarse = self.too_big_for_bhrz03(older)?;
        // SAFETY: valid handles; lock held.
        self.run(
            &[older],
            budgeted(self.budget, || unsafe {
                if coarse {
                    K::coarse_widen(self.h(), older.h())
                } else {
                    K::widen(self.h(), older.h())
                }
            }),
        )?;
        Ok(())
    }

    /// True when the pairwise rays of the two operands' generators (which
    /// BHRZ03 needs and computes anyway; here under the budget) would take
    /// more than [`BHRZ03_MAX_BYTES`]: `g1 · g2` rows of `d + 2` coefficients,
    /// each operand's generator count estimated from its size in bytes.
    /// Lock held by the caller.
    fn too_big_for_bhrz03(&self, older: &Self) -> Result<bool> {
        if K::OCTAGONAL {
            return Ok(false);
        }
        let row = BYTES_PER_COEFFICIENT * (self.dims.get() + 2);
        let mut rays = 1usize;
        for p in [self, older] {
            let mut gs: ffi::ppl_const_Generator_System_t = ptr::null();
            let mut n = 0usize;
            // SAFETY (both calls): polyhedron kind (identity casts), valid handles and
            // out-pointers; lock held. The generator system stays owned by the polyhedron.
            self.run(
                &[older],
                budgeted(self.budget, || unsafe {
                    ffi::ppl_Polyhedron_get_minimized_generators(
                        p.h() as ffi::ppl_const_Polyhedron_t,
                        &mut gs,
                    )
                }),
            )?;
            self.run(&[older], unsafe {
                ffi::ppl_Polyhedron_total_memory_in_bytes(
                    p.h() as ffi::ppl_const_Polyhedron_t,
                    &mut n,
                )
            })?;
            rays = rays.saturating_mul(n / row + 1);
        }
        Ok(rays.saturating_mul(row) > BHRZ03_MAX_BYTES)
    }

    /// Widening that keeps those of the (non-strict) `thresholds` that
    /// `self` satisfies; requires `older ⊆ self`.
    pub fn limited_widen_assign(
        &mut self,
        older: &Self,
        thresholds: &[LinConstraint],
        dims: usize,
    ) -> Result<()> {
        let g = lock()?;
        let sys = PConsSys::new(&g, thresholds, dims)?;
        let coarse = self.too_big_for_bhrz03(older)?;
        // SAFETY: valid handles; the constraint system lives to the end of the call; lock held.
        self.run(
            &[older],
            budgeted(self.budget, || unsafe {
                if coarse {
                    K::coarse_limited_widen(self.h(), older.h(), sys.raw)
                } else {
                    K::limited_widen(self.h(), older.h(), sys.raw)
                }
            }),
        )?;
        Ok(())
    }

    /// `o ⊆ self`.
    pub fn contains(&self, o: &Self) -> Result<bool> {
        let _g = lock()?;
        // SAFETY: valid handles; lock held.
        Ok(self.run(
            &[o],
            budgeted(self.budget, || unsafe { K::contains(self.h(), o.h()) }),
        )? > 0)
    }

    pub fn equals(&self, o: &Self) -> Result<bool> {
        let _g = lock()?;
        // SAFETY: valid handles; lock held.
        Ok(self.run(
            &[o],
            budgeted(self.budget, || unsafe { K::equals(self.h(), o.h()) }),
        )? > 0)
    }

    pub fn is_empty(&self) -> Result<bool> {
        let _g = lock()?;
        // SAFETY: valid handle; lock held.
        Ok(self.run(
            &[],
            budgeted(self.budget, || unsafe { K::is_empty(self.h()) }),
        )? > 0)
    }

    pub fn is_universe(&self) -> Result<bool> {
        let _g = lock()?;
        // SAFETY: valid handle; lock held.
        Ok(self.run(
            &[],
            budgeted(self.budget, || unsafe { K::is_universe(self.h()) }),
        )? > 0)
    }

    /// Supremum of `e` (`+∞` when unbounded or too large for `i128`).
    /// Meaningless on an empty object: callers test emptiness first.
    pub fn sup(&self, e: &LinExpr, dims: usize) -> Result<Bound> {
        let g = lock()?;
        let le = PLinExpr::new(&g, e, dims)?;
        let (n, d) = (Coef::new(&g, 0)?, Coef::new(&g, 1)?);
        let mut opt = 0;
        // SAFETY: valid handles and out-pointer; lock held.
        let bounded = self.run(
            &[],
            budgeted(self.budget, || unsafe {
                K::maximize(self.h(), le.raw, n.raw, d.raw, &mut opt)
            }),
        )?;
        if bounded == 0 {
            return Ok(Bound::PosInf);
        }
        Ok(rat_of(&n, &d)?.map_or(Bound::PosInf, Bound::Finite))
    }

    /// Infimum of `e` (`-∞` when unbounded or too large for `i128`).
    pub fn inf(&self, e: &LinExpr, dims: usize) -> Result<Bound> {
        let g = lock()?;
        let le = PLinExpr::new(&g, e, dims)?;
        let (n, d) = (Coef::new(&g, 0)?, Coef::new(&g, 1)?);
        let mut opt = 0;
        // SAFETY: valid handles and out-pointer; lock held.
        let bounded = self.run(
            &[],
            budgeted(self.budget, || unsafe {
                K::minimize(self.h(), le.raw, n.raw, d.raw, &mut opt)
            }),
        )?;
        if bounded == 0 {
            return Ok(Bound::NegInf);
        }
        Ok(rat_of(&n, &d)?.map_or(Bound::NegInf, Bound::Finite))
    }

    /// The minimized constraint system.
    pub fn constraints(&self) -> Result<Vec<LinConstraint>> {
        let g = lock()?;
        let poly = self.as_polyhedron(&g)?;
        let cs = poly.minimized_constraints()?;
        read_constraints(&g, cs)
    }

    /// An integer point of the object, found by PPL's MIP solver with every
    /// dimension integer, under a deterministic work budget
    /// ([`DomainError::Timeout`] when exceeded).
    pub fn integer_point(&self, dims: usize) -> Result<Option<Vec<i128>>> {
        let g = lock()?;
        let poly = self.as_polyhedron(&g)?;
        let cs = poly.minimized_constraints()?;
        mip_point(&g, dims, cs)
    }

    /// A `C_Polyhedron` copy to read constraints from. PPL's C interface
    /// returns the constraint system of an octagon as a pointer to a
    /// temporary that is already destroyed (`Octagonal_Shape::constraints()`
    /// returns by value), so reading it directly is a use-after-free; a
    /// polyhedron keeps its system alive. (Polyhedra are copied too, for
    /// uniformity: extraction is not on the hot path.)
    fn as_polyhedron<'g>(&self, _g: &'g Guard) -> Result<PPoly<'g>> {
        let mut raw = ptr::null_mut();
        // SAFETY: valid source handle and out-pointer; lock held.
        self.run(
            &[],
            budgeted(self.budget, || unsafe {
                K::to_polyhedron(&mut raw, self.h())
            }),
        )?;
        Ok(PPoly {
            raw,
            budget: self.budget,
            failed: Cell::new(false),
            _g: PhantomData,
        })
    }
}

/// A temporary polyhedron (see [`Shape::as_polyhedron`]), with the budget of
/// the value it copies.
struct PPoly<'g> {
    raw: ffi::ppl_Polyhedron_t,
    budget: u64,
    /// A call on it failed: it may be inconsistent, and is leaked rather than deleted.
    failed: Cell<bool>,
    _g: PhantomData<&'g Guard>,
}

impl PPoly<'_> {
    /// Its minimized constraints, owned by the polyhedron (valid while it
    /// lives and is not modified).
    fn minimized_constraints(&self) -> Result<ffi::ppl_const_Constraint_System_t> {
        let mut cs: ffi::ppl_const_Constraint_System_t = ptr::null();
        // SAFETY: valid handle and out-pointer; lock held by the borrow.
        let r = check(budgeted(self.budget, || unsafe {
            ffi::ppl_Polyhedron_get_minimized_constraints(self.raw, &mut cs)
        }));
        self.failed.set(r.is_err());
        r?;
        Ok(cs)
    }
}

impl Drop for PPoly<'_> {
    fn drop(&mut self) {
        if self.failed.get() {
            return;
        }
        // SAFETY: owned handle, deleted once, lock held.
        unsafe { ffi::ppl_delete_Polyhedron(self.raw) };
    }
}
