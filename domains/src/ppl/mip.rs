//! Integer points by PPL's MIP solver.
//!
//! Takes a constraint system (of a temporary polyhedron) and its number of
//! dimensions; gives an integer point of it, `None` when there is none, or
//! [`DomainError::Timeout`] when the search exceeds its work budget.

use std::marker::PhantomData;
use std::ptr;

use super::ffi;
use super::handles::{Coef, PLinExpr};
use super::lock::{check, Guard};
use crate::linear::LinExpr;
use crate::{DomainError, Result};

/// Work budget of one integer-point search (PPL weight units, `u·2^s`).
/// Branch and bound need not terminate on unbounded problems without
/// integer points (e.g. `2x - 2y = 1`); the budget turns that into an error.
const MIP_WEIGHT: (std::os::raw::c_ulong, u32) = (1, 22);

struct PMip<'g> {
    raw: ffi::ppl_MIP_Problem_t,
    _g: PhantomData<&'g Guard>,
}

impl Drop for PMip<'_> {
    fn drop(&mut self) {
        // SAFETY: owned handle, deleted once, lock held.
        unsafe { ffi::ppl_delete_MIP_Problem(self.raw) };
    }
}

pub(super) fn mip_point(
    g: &Guard,
    dims: usize,
    cs: ffi::ppl_const_Constraint_System_t,
) -> Result<Option<Vec<i128>>> {
    let obj = PLinExpr::new(g, &LinExpr::zero(), dims)?;
    let mut raw = ptr::null_mut();
    // SAFETY: valid handles; reading an `extern int` constant; lock held.
    check(unsafe {
        ffi::ppl_new_MIP_Problem(
            &mut raw,
            dims,
            cs,
            obj.raw,
            ffi::PPL_OPTIMIZATION_MODE_MINIMIZATION,
        )
    })?;
    let mip = PMip {
        raw,
        _g: PhantomData,
    };
    let mut ds: Vec<usize> = (0..dims).collect();
    // SAFETY: valid handle and array; lock held.
    check(unsafe {
        ffi::ppl_MIP_Problem_add_to_integer_space_dimensions(mip.raw, ds.as_mut_ptr(), dims)
    })?;
    // SAFETY: global timeout state, protected by the lock; always reset.
    let sat = unsafe {
        check(ffi::ppl_set_deterministic_timeout(
            MIP_WEIGHT.0,
            MIP_WEIGHT.1,
        ))?;
        let sat = check(ffi::ppl_MIP_Problem_is_satisfiable(mip.raw));
        ffi::ppl_reset_deterministic_timeout();
        sat?
    };
    if sat == 0 {
        return Ok(None);
    }
    let mut gen: ffi::ppl_const_Generator_t = ptr::null();
    // SAFETY: valid handle and out-pointer; the generator is owned by `mip`.
    check(unsafe { ffi::ppl_MIP_Problem_feasible_point(mip.raw, &mut gen) })?;
    let c = Coef::new(g, 0)?;
    // SAFETY: valid generator and coefficient; lock held.
    check(unsafe { ffi::ppl_Generator_divisor(gen, c.raw) })?;
    let div = c
        .get()?
        .filter(|&d| d > 0)
        .ok_or_else(|| DomainError::Overflow("MIP point divisor does not fit in i128".into()))?;
    let mut sd = 0usize;
    // SAFETY: valid generator and out-pointer.
    check(unsafe { ffi::ppl_Generator_space_dimension(gen, &mut sd) })?;
    let mut point = vec![0i128; dims];
    for (v, slot) in point.iter_mut().enumerate().take(sd.min(dims)) {
        // SAFETY: valid generator and coefficient; `v` < space dimension.
        check(unsafe { ffi::ppl_Generator_coefficient(gen, v, c.raw) })?;
        let n = c.get()?.ok_or_else(|| {
            DomainError::Overflow("integer point coordinate does not fit in i128".into())
        })?;
        if n % div != 0 {
            return Err(DomainError::InvalidArgument(
                "MIP returned a non-integer point".into(),
            ));
        }
        *slot = n / div;
    }
    Ok(Some(point))
}
