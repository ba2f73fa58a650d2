//! GMP integers and short-lived PPL objects, with their conversions.
//!
//! Takes this crate's numbers, [`LinExpr`]s and [`LinConstraint`]s; gives RAII
//! handles of GMP integers ([`Mpz`]) and of PPL coefficients, linear
//! expressions, constraint systems and iterators, each tied to a held
//! [`Guard`] so it is destroyed under the lock; and reads PPL constraint
//! systems back ([`read_constraints`]).

use std::marker::PhantomData;
use std::os::raw::{c_int, c_long};
use std::ptr;

use super::ffi;
use super::lock::{check, Guard};
use crate::linear::{ConstraintKind, Dim, LinConstraint, LinExpr};
use crate::{DomainError, Result};

/// An owned GMP integer (`mpz_t`). GMP objects are independent of PPL's
/// global state, so these need no lock.
pub(super) struct Mpz(ffi::mpz_t);

impl Mpz {
    fn new() -> Mpz {
        let mut z = std::mem::MaybeUninit::<ffi::mpz_t>::uninit();
        // SAFETY: mpz_init initialises the struct in place.
        unsafe {
            ffi::__gmpz_init(z.as_mut_ptr().cast());
            Mpz(z.assume_init())
        }
    }

    pub(super) fn from_i128(v: i128) -> Mpz {
        let mut z = std::mem::MaybeUninit::<ffi::mpz_t>::uninit();
        if let Ok(small) = c_long::try_from(v) {
            // SAFETY: initialises the struct in place.
            unsafe {
                ffi::__gmpz_init_set_si(z.as_mut_ptr().cast(), small);
                return Mpz(z.assume_init());
            }
        }
        let mut digits = v.to_string().into_bytes();
        digits.push(0);
        // SAFETY: `digits` is a NUL-terminated decimal string; mpz_init_set_str
        // initialises the struct even when it reports a parse error (which
        // cannot happen for i128's Display output).
        unsafe {
            ffi::__gmpz_init_set_str(z.as_mut_ptr().cast(), digits.as_ptr().cast(), 10);
            Mpz(z.assume_init())
        }
    }

    fn ptr(&mut self) -> *mut ffi::__mpz_struct {
        self.0.as_mut_ptr()
    }

    /// The value if it fits in `i128`.
    pub(super) fn to_i128(&self) -> Option<i128> {
        let p = self.0.as_ptr();
        // SAFETY: `p` points to an initialised mpz.
        unsafe {
            if ffi::__gmpz_fits_slong_p(p) != 0 {
                return Some(i128::from(ffi::__gmpz_get_si(p)));
            }
            // Digits + sign + NUL.
            let len = ffi::__gmpz_sizeinbase(p, 10) + 2;
            if len > 45 {
                return None; // more digits than any i128 has
            }
            let mut buf = vec![0u8; len];
            ffi::__gmpz_get_str(buf.as_mut_ptr().cast(), 10, p);
            let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
            std::str::from_utf8(&buf[..end]).ok()?.parse().ok()
        }
    }
}

impl Drop for Mpz {
    fn drop(&mut self) {
        // SAFETY: initialised in every constructor, cleared once here.
        unsafe { ffi::__gmpz_clear(self.ptr()) }
    }
}

// ---------------------------------------------------------------------------
// Short-lived PPL objects, tied to a held guard

pub(super) struct Coef<'g> {
    pub(super) raw: ffi::ppl_Coefficient_t,
    _g: PhantomData<&'g Guard>,
}

impl<'g> Coef<'g> {
    pub(super) fn new(_g: &'g Guard, v: i128) -> Result<Coef<'g>> {
        let mut z = Mpz::from_i128(v);
        let mut raw = ptr::null_mut();
        // SAFETY: valid out-pointer and initialised mpz; lock held.
        check(unsafe { ffi::ppl_new_Coefficient_from_mpz_t(&mut raw, z.ptr()) })?;
        Ok(Coef {
            raw,
            _g: PhantomData,
        })
    }

    pub(super) fn get(&self) -> Result<Option<i128>> {
        let mut z = Mpz::new();
        // SAFETY: valid coefficient and mpz; lock held.
        check(unsafe { ffi::ppl_Coefficient_to_mpz_t(self.raw, z.ptr()) })?;
        Ok(z.to_i128())
    }
}

impl Drop for Coef<'_> {
    fn drop(&mut self) {
        // SAFETY: owned handle, deleted once; the guard borrow proves the lock.
        unsafe { ffi::ppl_delete_Coefficient(self.raw) };
    }
}

pub(super) struct PLinExpr<'g> {
    pub(super) raw: ffi::ppl_Linear_Expression_t,
    _g: PhantomData<&'g Guard>,
}

impl<'g> PLinExpr<'g> {
    /// Builds `e` in a space of `dims` dimensions. Callers check that every
    /// dimension of `e` is below `dims`.
    pub(super) fn new(g: &'g Guard, e: &LinExpr, dims: usize) -> Result<PLinExpr<'g>> {
        let mut raw = ptr::null_mut();
        // SAFETY: valid out-pointer; lock held.
        check(unsafe { ffi::ppl_new_Linear_Expression_with_dimension(&mut raw, dims) })?;
        let le = PLinExpr {
            raw,
            _g: PhantomData,
        };
        for &(d, a) in e.terms() {
            let c = Coef::new(g, a)?;
            // SAFETY: valid handles.
            check(unsafe {
                ffi::ppl_Linear_Expression_add_to_coefficient(le.raw, d.index(), c.raw)
            })?;
        }
        if e.constant_term() != 0 {
            let c = Coef::new(g, e.constant_term())?;
            // SAFETY: valid handles.
            check(unsafe { ffi::ppl_Linear_Expression_add_to_inhomogeneous(le.raw, c.raw) })?;
        }
        Ok(le)
    }
}

impl Drop for PLinExpr<'_> {
    fn drop(&mut self) {
        // SAFETY: owned handle, deleted once, lock held.
        unsafe { ffi::ppl_delete_Linear_Expression(self.raw) };
    }
}

pub(super) struct PConsSys<'g> {
    pub(super) raw: ffi::ppl_Constraint_System_t,
    _g: PhantomData<&'g Guard>,
}

impl<'g> PConsSys<'g> {
    pub(super) fn new(g: &'g Guard, cs: &[LinConstraint], dims: usize) -> Result<PConsSys<'g>> {
        use ffi::ppl_enum_Constraint_Type as T;
        let mut raw = ptr::null_mut();
        // SAFETY: valid out-pointer; lock held.
        check(unsafe { ffi::ppl_new_Constraint_System(&mut raw) })?;
        let sys = PConsSys {
            raw,
            _g: PhantomData,
        };
        for c in cs {
            let rel = match c.kind {
                ConstraintKind::Eq => T::PPL_CONSTRAINT_TYPE_EQUAL,
                ConstraintKind::Le => T::PPL_CONSTRAINT_TYPE_LESS_OR_EQUAL,
                ConstraintKind::Ge => T::PPL_CONSTRAINT_TYPE_GREATER_OR_EQUAL,
                ConstraintKind::Lt => T::PPL_CONSTRAINT_TYPE_LESS_THAN,
                ConstraintKind::Gt => T::PPL_CONSTRAINT_TYPE_GREATER_THAN,
                ConstraintKind::Ne => {
                    return Err(DomainError::InvalidArgument(
                        "a disequality is not a PPL constraint".into(),
                    ))
                }
            };
            let le = PLinExpr::new(g, &c.expr, dims)?;
            let mut pc = ptr::null_mut();
            // SAFETY: valid handles; the constraint is deleted right after
            // being copied into the system.
            unsafe {
                check(ffi::ppl_new_Constraint(&mut pc, le.raw, rel))?;
                let rc = ffi::ppl_Constraint_System_insert_Constraint(sys.raw, pc);
                ffi::ppl_delete_Constraint(pc);
                check(rc)?;
            }
        }
        Ok(sys)
    }
}

impl Drop for PConsSys<'_> {
    fn drop(&mut self) {
        // SAFETY: owned handle, deleted once, lock held.
        unsafe { ffi::ppl_delete_Constraint_System(self.raw) };
    }
}

struct PIter<'g> {
    raw: ffi::ppl_Constraint_System_const_iterator_t,
    _g: PhantomData<&'g Guard>,
}

impl<'g> PIter<'g> {
    fn new(_g: &'g Guard) -> Result<PIter<'g>> {
        let mut raw = ptr::null_mut();
        // SAFETY: valid out-pointer; lock held.
        check(unsafe { ffi::ppl_new_Constraint_System_const_iterator(&mut raw) })?;
        Ok(PIter {
            raw,
            _g: PhantomData,
        })
    }
}

impl Drop for PIter<'_> {
    fn drop(&mut self) {
        // SAFETY: owned handle, deleted once, lock held.
        unsafe { ffi::ppl_delete_Constraint_System_const_iterator(self.raw) };
    }
}

/// Reads a constraint system back into Rust constraints. A constraint with
/// a coefficient that does not fit in `i128` is dropped: that weakens the
/// described set, which is the sound direction.
pub(super) fn read_constraints(
    g: &Guard,
    cs: ffi::ppl_const_Constraint_System_t,
) -> Result<Vec<LinConstraint>> {
    use ffi::ppl_enum_Constraint_Type as T;
    let it = PIter::new(g)?;
    let end = PIter::new(g)?;
    let coef = Coef::new(g, 0)?;
    let mut out = Vec::new();
    // SAFETY: `cs` is a valid system owned by a live PPL object; iterators
    // and the coefficient are valid; the lock is held throughout.
    unsafe {
        check(ffi::ppl_Constraint_System_begin(cs, it.raw))?;
        check(ffi::ppl_Constraint_System_end(cs, end.raw))?;
        while check(ffi::ppl_Constraint_System_const_iterator_equal_test(
            it.raw, end.raw,
        ))? == 0
        {
            let mut c: ffi::ppl_const_Constraint_t = ptr::null();
            check(ffi::ppl_Constraint_System_const_iterator_dereference(
                it.raw, &mut c,
            ))?;
            let mut sd = 0usize;
            check(ffi::ppl_Constraint_space_dimension(c, &mut sd))?;
            let ty = check(ffi::ppl_Constraint_type(c))?;
            let mut terms = Vec::new();
            let mut fits = true;
            for v in 0..sd {
                check(ffi::ppl_Constraint_coefficient(c, v, coef.raw))?;
                match coef.get()? {
                    Some(0) => {}
                    Some(a) => terms.push((a, Dim::new(v))),
                    None => fits = false,
                }
            }
            check(ffi::ppl_Constraint_inhomogeneous_term(c, coef.raw))?;
            let k = coef.get()?;
            check(ffi::ppl_Constraint_System_const_iterator_increment(it.raw))?;
            let (Some(k), true) = (k, fits) else { continue };
            let kind = match ty {
                t if t == T::PPL_CONSTRAINT_TYPE_EQUAL as c_int => ConstraintKind::Eq,
                t if t == T::PPL_CONSTRAINT_TYPE_LESS_OR_EQUAL as c_int => ConstraintKind::Le,
                t if t == T::PPL_CONSTRAINT_TYPE_LESS_THAN as c_int => ConstraintKind::Lt,
                t if t == T::PPL_CONSTRAINT_TYPE_GREATER_THAN as c_int => ConstraintKind::Gt,
                _ => ConstraintKind::Ge,
            };
            if let Some(e) = LinExpr::from_terms(&terms, k) {
                out.push(LinConstraint::new(e, kind));
            }
        }
    }
    Ok(out)
}
