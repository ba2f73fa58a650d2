//! Safe wrappers around the Parma Polyhedra Library's C interface.
//!
//! Takes: the bindgen-generated declarations of `ppl_c.h` (see `build.rs`).
//! Gives: [`Shape`], an owned PPL object (`C_Polyhedron` or
//! `Octagonal_Shape_mpq_class`) with safe methods speaking this crate's
//! [`LinExpr`]/[`LinConstraint`] types, and [`integer_point`]-style helpers
//! built on `MIP_Problem`. [`crate::PplDomain`] builds the abstract domains
//! on top of it; every `unsafe` block of the crate lives in this module.
//!
//! # Initialisation, errors, thread-safety
//!
//! * `ppl_initialize()` runs exactly once, on first use, under the lock
//!   below. PPL then switches the calling thread's FPU to round-upward; we
//!   immediately restore the previous rounding mode (our PPL types are exact
//!   mpz/mpq ones, they never depend on it), so the client's floating-point
//!   code (the interpreter executes `double` as IEEE) is not disturbed.
//! * An error handler (`ppl_set_error_handler`) records PPL's message in a
//!   thread-local; every call's return code is checked and a negative one
//!   becomes [`DomainError::Ppl`] carrying that message. Nothing aborts.
//! * PPL's C interface and library keep global state (the handler, static
//!   temporaries inside the algorithms, timeouts), so **every PPL call in
//!   the process is serialised by one global mutex**, including object
//!   destruction. The lock is re-entrant per thread (a thread-local flag),
//!   so nested helpers and `Drop` never deadlock. Because all access goes
//!   through the lock, the owning types are `Send` and `Sync`: several
//!   threads may use PPL-backed values safely, but PPL work does not run in
//!   parallel. Use processes for parallel PPL analyses.
//! * `ppl_io_print_*` (which writes to stdout) is never used: constraints
//!   are read back through the constraint-system iterators.

#[allow(
    non_camel_case_types,
    non_upper_case_globals,
    non_snake_case,
    dead_code,
    clippy::all
)]
mod ffi {
    include!(concat!(env!("OUT_DIR"), "/ppl_bindings.rs"));
}

use std::cell::{Cell, RefCell};
use std::ffi::CStr;
use std::marker::PhantomData;
use std::os::raw::{c_char, c_int, c_long};
use std::ptr;
use std::sync::{Mutex, MutexGuard, OnceLock};

use crate::linear::{ConstraintKind, LinConstraint, LinExpr};
use crate::num::{Bound, Rat};
use crate::{DomainError, Result};

// ---------------------------------------------------------------------------
// Lock, initialisation, errors

static PPL_LOCK: Mutex<()> = Mutex::new(());
static INIT: OnceLock<std::result::Result<(), DomainError>> = OnceLock::new();

thread_local! {
    /// Whether this thread currently holds `PPL_LOCK`.
    static HELD: Cell<bool> = const { Cell::new(false) };
    /// The last message passed to the PPL error handler on this thread.
    static LAST_ERROR: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Proof that this thread holds the PPL lock. Temporaries created under a
/// guard borrow it, so they are destroyed before the lock is released.
pub(crate) struct Guard {
    outer: Option<MutexGuard<'static, ()>>,
}

impl Drop for Guard {
    fn drop(&mut self) {
        if self.outer.is_some() {
            HELD.with(|h| h.set(false));
        }
    }
}

/// Takes the global PPL lock (re-entrantly) and initialises PPL if needed.
fn lock() -> Result<Guard> {
    let guard = if HELD.with(|h| h.get()) {
        Guard { outer: None }
    } else {
        let g = PPL_LOCK.lock().unwrap_or_else(|e| e.into_inner());
        HELD.with(|h| h.set(true));
        Guard { outer: Some(g) }
    };
    INIT.get_or_init(init).clone()?;
    Ok(guard)
}

fn init() -> std::result::Result<(), DomainError> {
    // SAFETY: called once, under PPL_LOCK, before any other PPL function.
    unsafe {
        let rc = ffi::ppl_initialize();
        // INVALID_ARGUMENT means "already initialised" (by someone else in
        // this process): fine for us.
        if rc < 0 && rc != ffi::ppl_enum_error_code::PPL_ERROR_INVALID_ARGUMENT as c_int {
            return Err(DomainError::Ppl {
                code: rc,
                message: "ppl_initialize failed".into(),
            });
        }
        ffi::ppl_set_error_handler(Some(on_error));
        ffi::ppl_restore_pre_PPL_rounding();
    }
    Ok(())
}

unsafe extern "C" fn on_error(_code: ffi::ppl_enum_error_code, description: *const c_char) {
    let msg = if description.is_null() {
        String::new()
    } else {
        // SAFETY: PPL passes a NUL-terminated string valid during the call.
        unsafe { CStr::from_ptr(description) }
            .to_string_lossy()
            .into_owned()
    };
    let _ = LAST_ERROR.try_with(|e| {
        if let Ok(mut slot) = e.try_borrow_mut() {
            *slot = Some(msg);
        }
    });
}

fn error_name(rc: c_int) -> &'static str {
    use ffi::ppl_enum_error_code as E;
    const NAMES: [(E, &str); 11] = [
        (E::PPL_ERROR_OUT_OF_MEMORY, "out of memory"),
        (E::PPL_ERROR_INVALID_ARGUMENT, "invalid argument"),
        (E::PPL_ERROR_DOMAIN_ERROR, "domain error"),
        (E::PPL_ERROR_LENGTH_ERROR, "length error"),
        (E::PPL_ARITHMETIC_OVERFLOW, "arithmetic overflow"),
        (E::PPL_STDIO_ERROR, "stdio error"),
        (E::PPL_ERROR_INTERNAL_ERROR, "internal error"),
        (
            E::PPL_ERROR_UNKNOWN_STANDARD_EXCEPTION,
            "unknown standard exception",
        ),
        (E::PPL_ERROR_UNEXPECTED_ERROR, "unexpected error"),
        (E::PPL_TIMEOUT_EXCEPTION, "timeout"),
        (E::PPL_ERROR_LOGIC_ERROR, "logic error"),
    ];
    NAMES
        .iter()
        .find(|(e, _)| *e as c_int == rc)
        .map_or("unknown error", |(_, n)| n)
}

/// Turns a PPL return code into a `Result`, picking up the handler's message.
fn check(rc: c_int) -> Result<c_int> {
    if rc >= 0 {
        return Ok(rc);
    }
    let msg = LAST_ERROR
        .try_with(|e| e.try_borrow_mut().ok().and_then(|mut s| s.take()))
        .ok()
        .flatten()
        .unwrap_or_default();
    if rc == ffi::ppl_enum_error_code::PPL_TIMEOUT_EXCEPTION as c_int {
        return Err(DomainError::Timeout);
    }
    Err(DomainError::Ppl {
        code: rc,
        message: format!("{}: {msg}", error_name(rc)),
    })
}

/// Runs one PPL call under a work budget in PPL's deterministic weight
/// units (0: unlimited). Call with the lock held: the timeout is global PPL
/// state, set from the value's own budget around each call and always reset.
fn budgeted(budget: u64, f: impl FnOnce() -> c_int) -> c_int {
    if budget == 0 {
        return f();
    }
    let weight = std::os::raw::c_ulong::try_from(budget).unwrap_or(std::os::raw::c_ulong::MAX);
    // SAFETY: global timeout state, protected by the lock; always reset.
    unsafe {
        let rc = ffi::ppl_set_deterministic_timeout(weight, 0);
        if rc < 0 {
            return rc;
        }
        let rc = f();
        ffi::ppl_reset_deterministic_timeout();
        rc
    }
}

// ---------------------------------------------------------------------------
// GMP integers

/// An owned GMP integer (`mpz_t`). GMP objects are independent of PPL's
/// global state, so these need no lock.
struct Mpz(ffi::mpz_t);

impl Mpz {
    fn new() -> Mpz {
        let mut z = std::mem::MaybeUninit::<ffi::mpz_t>::uninit();
        // SAFETY: mpz_init initialises the struct in place.
        unsafe {
            ffi::__gmpz_init(z.as_mut_ptr().cast());
            Mpz(z.assume_init())
        }
    }

    fn from_i128(v: i128) -> Mpz {
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
    fn to_i128(&self) -> Option<i128> {
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

struct Coef<'g> {
    raw: ffi::ppl_Coefficient_t,
    _g: PhantomData<&'g Guard>,
}

impl<'g> Coef<'g> {
    fn new(_g: &'g Guard, v: i128) -> Result<Coef<'g>> {
        let mut z = Mpz::from_i128(v);
        let mut raw = ptr::null_mut();
        // SAFETY: valid out-pointer and initialised mpz; lock held.
        check(unsafe { ffi::ppl_new_Coefficient_from_mpz_t(&mut raw, z.ptr()) })?;
        Ok(Coef {
            raw,
            _g: PhantomData,
        })
    }

    fn get(&self) -> Result<Option<i128>> {
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

struct PLinExpr<'g> {
    raw: ffi::ppl_Linear_Expression_t,
    _g: PhantomData<&'g Guard>,
}

impl<'g> PLinExpr<'g> {
    /// Builds `e` in a space of `dims` dimensions. Callers check that every
    /// dimension of `e` is below `dims`.
    fn new(g: &'g Guard, e: &LinExpr, dims: usize) -> Result<PLinExpr<'g>> {
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
            check(unsafe { ffi::ppl_Linear_Expression_add_to_coefficient(le.raw, d, c.raw) })?;
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

struct PConsSys<'g> {
    raw: ffi::ppl_Constraint_System_t,
    _g: PhantomData<&'g Guard>,
}

impl<'g> PConsSys<'g> {
    fn new(g: &'g Guard, cs: &[LinConstraint], dims: usize) -> Result<PConsSys<'g>> {
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
fn read_constraints(
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
                    Some(a) => terms.push((a, v)),
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

// ---------------------------------------------------------------------------
// The two PPL object kinds

mod sealed {
    use super::ffi;
    use std::os::raw::c_int;

    /// The raw entry points of one PPL object type.
    pub trait RawOps {
        type Tag;
        unsafe fn new_space(p: *mut *mut Self::Tag, d: usize, empty: c_int) -> c_int;
        unsafe fn copy(p: *mut *mut Self::Tag, src: *const Self::Tag) -> c_int;
        unsafe fn delete(p: *const Self::Tag) -> c_int;
        unsafe fn refine(p: *mut Self::Tag, cs: ffi::ppl_const_Constraint_System_t) -> c_int;
        unsafe fn affine_image(
            p: *mut Self::Tag,
            var: usize,
            le: ffi::ppl_const_Linear_Expression_t,
            d: ffi::ppl_const_Coefficient_t,
        ) -> c_int;
        unsafe fn unconstrain(p: *mut Self::Tag, var: usize) -> c_int;
        unsafe fn add_dims(p: *mut Self::Tag, n: usize) -> c_int;
        unsafe fn remove_dims(p: *mut Self::Tag, ds: *mut usize, n: usize) -> c_int;
        unsafe fn map_dims(p: *mut Self::Tag, maps: *mut usize, n: usize) -> c_int;
        unsafe fn meet(x: *mut Self::Tag, y: *const Self::Tag) -> c_int;
        unsafe fn join(x: *mut Self::Tag, y: *const Self::Tag) -> c_int;
        unsafe fn widen(x: *mut Self::Tag, y: *const Self::Tag) -> c_int;
        unsafe fn limited_widen(
            x: *mut Self::Tag,
            y: *const Self::Tag,
            cs: ffi::ppl_const_Constraint_System_t,
        ) -> c_int;
        unsafe fn contains(x: *const Self::Tag, y: *const Self::Tag) -> c_int;
        unsafe fn equals(x: *const Self::Tag, y: *const Self::Tag) -> c_int;
        unsafe fn is_empty(p: *const Self::Tag) -> c_int;
        unsafe fn is_universe(p: *const Self::Tag) -> c_int;
        unsafe fn maximize(
            p: *const Self::Tag,
            le: ffi::ppl_const_Linear_Expression_t,
            n: ffi::ppl_Coefficient_t,
            d: ffi::ppl_Coefficient_t,
            opt: *mut c_int,
        ) -> c_int;
        unsafe fn minimize(
            p: *const Self::Tag,
            le: ffi::ppl_const_Linear_Expression_t,
            n: ffi::ppl_Coefficient_t,
            d: ffi::ppl_Coefficient_t,
            opt: *mut c_int,
        ) -> c_int;
        /// A new `C_Polyhedron` equal to `p`.
        unsafe fn to_polyhedron(out: *mut ffi::ppl_Polyhedron_t, p: *const Self::Tag) -> c_int;
    }
}

/// A PPL object type usable as a domain ([`CPolyhedron`], [`Octagon`]).
/// Sealed: the raw entry points are private to this module.
pub trait Kind: sealed::RawOps + 'static {
    /// Backend name, as accepted by [`crate::make_domain`].
    const NAME: &'static str;
    /// True when the object only keeps octagonal constraints
    /// (`±x ± y ≤ c`), so other constraints must be approximated first.
    const OCTAGONAL: bool;
}

macro_rules! raw_ops {
    ($kind:ident, $tag:ty, $new:ident, $copy:ident, $delete:ident, $refine:ident,
     $affine:ident, $unconstrain:ident, $add:ident, $remove:ident, $map:ident,
     $meet:ident, $join:ident, $widen:ident, $limited:ident, $contains:ident,
     $equals:ident, $empty:ident, $universe:ident, $max:ident, $min:ident,
     $topoly:ident) => {
        impl sealed::RawOps for $kind {
            type Tag = $tag;
            unsafe fn new_space(p: *mut *mut $tag, d: usize, empty: c_int) -> c_int {
                unsafe { ffi::$new(p, d, empty) }
            }
            unsafe fn copy(p: *mut *mut $tag, src: *const $tag) -> c_int {
                unsafe { ffi::$copy(p, src) }
            }
            unsafe fn delete(p: *const $tag) -> c_int {
                unsafe { ffi::$delete(p) }
            }
            unsafe fn refine(p: *mut $tag, cs: ffi::ppl_const_Constraint_System_t) -> c_int {
                unsafe { ffi::$refine(p, cs) }
            }
            unsafe fn affine_image(
                p: *mut $tag,
                var: usize,
                le: ffi::ppl_const_Linear_Expression_t,
                d: ffi::ppl_const_Coefficient_t,
            ) -> c_int {
                unsafe { ffi::$affine(p, var, le, d) }
            }
            unsafe fn unconstrain(p: *mut $tag, var: usize) -> c_int {
                unsafe { ffi::$unconstrain(p, var) }
            }
            unsafe fn add_dims(p: *mut $tag, n: usize) -> c_int {
                unsafe { ffi::$add(p, n) }
            }
            unsafe fn remove_dims(p: *mut $tag, ds: *mut usize, n: usize) -> c_int {
                unsafe { ffi::$remove(p, ds, n) }
            }
            unsafe fn map_dims(p: *mut $tag, maps: *mut usize, n: usize) -> c_int {
                unsafe { ffi::$map(p, maps, n) }
            }
            unsafe fn meet(x: *mut $tag, y: *const $tag) -> c_int {
                unsafe { ffi::$meet(x, y) }
            }
            unsafe fn join(x: *mut $tag, y: *const $tag) -> c_int {
                unsafe { ffi::$join(x, y) }
            }
            unsafe fn widen(x: *mut $tag, y: *const $tag) -> c_int {
                unsafe { ffi::$widen(x, y) }
            }
            unsafe fn limited_widen(
                x: *mut $tag,
                y: *const $tag,
                cs: ffi::ppl_const_Constraint_System_t,
            ) -> c_int {
                unsafe { ffi::$limited(x, y, cs) }
            }
            unsafe fn contains(x: *const $tag, y: *const $tag) -> c_int {
                unsafe { ffi::$contains(x, y) }
            }
            unsafe fn equals(x: *const $tag, y: *const $tag) -> c_int {
                unsafe { ffi::$equals(x, y) }
            }
            unsafe fn is_empty(p: *const $tag) -> c_int {
                unsafe { ffi::$empty(p) }
            }
            unsafe fn is_universe(p: *const $tag) -> c_int {
                unsafe { ffi::$universe(p) }
            }
            unsafe fn maximize(
                p: *const $tag,
                le: ffi::ppl_const_Linear_Expression_t,
                n: ffi::ppl_Coefficient_t,
                d: ffi::ppl_Coefficient_t,
                opt: *mut c_int,
            ) -> c_int {
                unsafe { ffi::$max(p, le, n, d, opt) }
            }
            unsafe fn minimize(
                p: *const $tag,
                le: ffi::ppl_const_Linear_Expression_t,
                n: ffi::ppl_Coefficient_t,
                d: ffi::ppl_Coefficient_t,
                opt: *mut c_int,
            ) -> c_int {
                unsafe { ffi::$min(p, le, n, d, opt) }
            }
            unsafe fn to_polyhedron(out: *mut ffi::ppl_Polyhedron_t, p: *const $tag) -> c_int {
                unsafe { ffi::$topoly(out, p) }
            }
        }
    };
}

/// PPL's `C_Polyhedron` (closed convex polyhedra over the rationals);
/// widening BHRZ03, thresholds via the limited BHRZ03 extrapolation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CPolyhedron {}

/// PPL's `Octagonal_Shape<mpq_class>`; widening BHMZ05, thresholds via the
/// limited BHMZ05 extrapolation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Octagon {}

impl Kind for CPolyhedron {
    const NAME: &'static str = "polyhedra";
    const OCTAGONAL: bool = false;
}

impl Kind for Octagon {
    const NAME: &'static str = "octagon";
    const OCTAGONAL: bool = true;
}

raw_ops!(
    CPolyhedron,
    ffi::ppl_Polyhedron_tag,
    ppl_new_C_Polyhedron_from_space_dimension,
    ppl_new_C_Polyhedron_from_C_Polyhedron,
    ppl_delete_Polyhedron,
    ppl_Polyhedron_refine_with_constraints,
    ppl_Polyhedron_affine_image,
    ppl_Polyhedron_unconstrain_space_dimension,
    ppl_Polyhedron_add_space_dimensions_and_embed,
    ppl_Polyhedron_remove_space_dimensions,
    ppl_Polyhedron_map_space_dimensions,
    ppl_Polyhedron_intersection_assign,
    ppl_Polyhedron_poly_hull_assign,
    ppl_Polyhedron_BHRZ03_widening_assign,
    ppl_Polyhedron_limited_BHRZ03_extrapolation_assign,
    ppl_Polyhedron_contains_Polyhedron,
    ppl_Polyhedron_equals_Polyhedron,
    ppl_Polyhedron_is_empty,
    ppl_Polyhedron_is_universe,
    ppl_Polyhedron_maximize,
    ppl_Polyhedron_minimize,
    ppl_new_C_Polyhedron_from_C_Polyhedron
);

raw_ops!(
    Octagon,
    ffi::ppl_Octagonal_Shape_mpq_class_tag,
    ppl_new_Octagonal_Shape_mpq_class_from_space_dimension,
    ppl_new_Octagonal_Shape_mpq_class_from_Octagonal_Shape_mpq_class,
    ppl_delete_Octagonal_Shape_mpq_class,
    ppl_Octagonal_Shape_mpq_class_refine_with_constraints,
    ppl_Octagonal_Shape_mpq_class_affine_image,
    ppl_Octagonal_Shape_mpq_class_unconstrain_space_dimension,
    ppl_Octagonal_Shape_mpq_class_add_space_dimensions_and_embed,
    ppl_Octagonal_Shape_mpq_class_remove_space_dimensions,
    ppl_Octagonal_Shape_mpq_class_map_space_dimensions,
    ppl_Octagonal_Shape_mpq_class_intersection_assign,
    ppl_Octagonal_Shape_mpq_class_upper_bound_assign,
    ppl_Octagonal_Shape_mpq_class_BHMZ05_widening_assign,
    ppl_Octagonal_Shape_mpq_class_limited_BHMZ05_extrapolation_assign,
    ppl_Octagonal_Shape_mpq_class_contains_Octagonal_Shape_mpq_class,
    ppl_Octagonal_Shape_mpq_class_equals_Octagonal_Shape_mpq_class,
    ppl_Octagonal_Shape_mpq_class_is_empty,
    ppl_Octagonal_Shape_mpq_class_is_universe,
    ppl_Octagonal_Shape_mpq_class_maximize,
    ppl_Octagonal_Shape_mpq_class_minimize,
    ppl_new_C_Polyhedron_from_Octagonal_Shape_mpq_class
);

// ---------------------------------------------------------------------------
// Owned PPL objects

/// An owned PPL object of kind `K`. Dimension indices passed to its methods
/// must be checked by the caller (out-of-range ones make PPL report an
/// error, which surfaces as `Err`, never as a crash).
pub struct Shape<K: Kind> {
    raw: *mut K::Tag,
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
            unsafe { K::delete(self.raw) };
        }
    }
}

impl<K: Kind> std::fmt::Debug for Shape<K> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}@{:p}", K::NAME, self.raw)
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
        Ok(Shape { raw, budget })
    }

    /// The work budget of this value's operations.
    pub fn budget(&self) -> u64 {
        self.budget
    }

    /// A copy; fails only if PPL runs out of memory.
    pub fn try_clone(&self) -> Result<Self> {
        let _g = lock()?;
        let mut raw = ptr::null_mut();
        // SAFETY: valid source handle and out-pointer; lock held.
        check(unsafe { K::copy(&mut raw, self.raw) })?;
        Ok(Shape {
            raw,
            budget: self.budget,
        })
    }

    /// Intersects with non-strict constraints (`=`, `≤`, `≥`). Octagons
    /// ignore non-octagonal ones (sound; callers approximate them first).
    pub fn refine(&mut self, cs: &[LinConstraint], dims: usize) -> Result<()> {
        let g = lock()?;
        let sys = PConsSys::new(&g, cs, dims)?;
        // SAFETY: valid handles; lock held.
        check(budgeted(self.budget, || unsafe {
            K::refine(self.raw, sys.raw)
        }))?;
        Ok(())
    }

    /// `x_var := e`.
    pub fn affine_image(&mut self, var: usize, e: &LinExpr, dims: usize) -> Result<()> {
        let g = lock()?;
        let le = PLinExpr::new(&g, e, dims)?;
        let one = Coef::new(&g, 1)?;
        // SAFETY: valid handles; lock held.
        check(budgeted(self.budget, || unsafe {
            K::affine_image(self.raw, var, le.raw, one.raw)
        }))?;
        Ok(())
    }

    /// Forgets everything about `x_var`.
    pub fn unconstrain(&mut self, var: usize) -> Result<()> {
        let _g = lock()?;
        // SAFETY: valid handle; lock held.
        check(budgeted(self.budget, || unsafe {
            K::unconstrain(self.raw, var)
        }))?;
        Ok(())
    }

    /// Appends `n` unconstrained dimensions.
    pub fn add_dims(&mut self, n: usize) -> Result<()> {
        let _g = lock()?;
        // SAFETY: valid handle; lock held.
        check(unsafe { K::add_dims(self.raw, n) })?;
        Ok(())
    }

    /// Projects away the given dimensions (sorted, distinct); the others
    /// keep their order.
    pub fn remove_dims(&mut self, ds: &[usize]) -> Result<()> {
        let _g = lock()?;
        let mut ds = ds.to_vec();
        // SAFETY: valid handle and array of `ds.len()` entries; lock held.
        check(budgeted(self.budget, || unsafe {
            K::remove_dims(self.raw, ds.as_mut_ptr(), ds.len())
        }))?;
        Ok(())
    }

    /// Renames dimension `i` to `map[i]`, projecting away those mapped to
    /// `None`. The caller checks that the image is exactly `0..k`.
    pub fn map_dims(&mut self, map: &[Option<usize>]) -> Result<()> {
        let _g = lock()?;
        let mut nad = 0usize;
        // SAFETY: valid out-pointer; lock held.
        check(unsafe { ffi::ppl_not_a_dimension(&mut nad) })?;
        let mut maps: Vec<usize> = map.iter().map(|m| m.unwrap_or(nad)).collect();
        // SAFETY: valid handle and array of `maps.len()` entries; lock held.
        check(budgeted(self.budget, || unsafe {
            K::map_dims(self.raw, maps.as_mut_ptr(), maps.len())
        }))?;
        Ok(())
    }

    pub fn meet_assign(&mut self, o: &Self) -> Result<()> {
        let _g = lock()?;
        // SAFETY: valid handles; lock held.
        check(budgeted(self.budget, || unsafe {
            K::meet(self.raw, o.raw)
        }))?;
        Ok(())
    }

    pub fn join_assign(&mut self, o: &Self) -> Result<()> {
        let _g = lock()?;
        // SAFETY: valid handles; lock held.
        check(budgeted(self.budget, || unsafe {
            K::join(self.raw, o.raw)
        }))?;
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
        check(budgeted(self.budget, || unsafe {
            ffi::ppl_Polyhedron_get_minimized_constraints(
                self.raw as ffi::ppl_Polyhedron_t,
                &mut cs,
            )
        }))?;
        Ok(())
    }

    /// `self := older ∇ self`; requires `older ⊆ self`.
    pub fn widen_assign(&mut self, older: &Self) -> Result<()> {
        let _g = lock()?;
        // SAFETY: valid handles; lock held.
        check(budgeted(self.budget, || unsafe {
            K::widen(self.raw, older.raw)
        }))?;
        Ok(())
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
        // SAFETY: valid handles; lock held.
        check(budgeted(self.budget, || unsafe {
            K::limited_widen(self.raw, older.raw, sys.raw)
        }))?;
        Ok(())
    }

    /// `o ⊆ self`.
    pub fn contains(&self, o: &Self) -> Result<bool> {
        let _g = lock()?;
        // SAFETY: valid handles; lock held.
        Ok(check(budgeted(self.budget, || unsafe {
            K::contains(self.raw, o.raw)
        }))? > 0)
    }

    pub fn equals(&self, o: &Self) -> Result<bool> {
        let _g = lock()?;
        // SAFETY: valid handles; lock held.
        Ok(check(budgeted(self.budget, || unsafe {
            K::equals(self.raw, o.raw)
        }))? > 0)
    }

    pub fn is_empty(&self) -> Result<bool> {
        let _g = lock()?;
        // SAFETY: valid handle; lock held.
        Ok(check(budgeted(self.budget, || unsafe { K::is_empty(self.raw) }))? > 0)
    }

    pub fn is_universe(&self) -> Result<bool> {
        let _g = lock()?;
        // SAFETY: valid handle; lock held.
        Ok(check(budgeted(self.budget, || unsafe {
            K::is_universe(self.raw)
        }))? > 0)
    }

    /// Supremum of `e` (`+∞` when unbounded or too large for `i128`).
    /// Meaningless on an empty object: callers test emptiness first.
    pub fn sup(&self, e: &LinExpr, dims: usize) -> Result<Bound> {
        let g = lock()?;
        let le = PLinExpr::new(&g, e, dims)?;
        let (n, d) = (Coef::new(&g, 0)?, Coef::new(&g, 1)?);
        let mut opt = 0;
        // SAFETY: valid handles and out-pointer; lock held.
        let bounded = check(budgeted(self.budget, || unsafe {
            K::maximize(self.raw, le.raw, n.raw, d.raw, &mut opt)
        }))?;
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
        let bounded = check(budgeted(self.budget, || unsafe {
            K::minimize(self.raw, le.raw, n.raw, d.raw, &mut opt)
        }))?;
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
        check(budgeted(self.budget, || unsafe {
            K::to_polyhedron(&mut raw, self.raw)
        }))?;
        Ok(PPoly {
            raw,
            budget: self.budget,
            _g: PhantomData,
        })
    }
}

/// A temporary polyhedron (see [`Shape::as_polyhedron`]), with the budget of
/// the value it copies.
struct PPoly<'g> {
    raw: ffi::ppl_Polyhedron_t,
    budget: u64,
    _g: PhantomData<&'g Guard>,
}

impl PPoly<'_> {
    /// Its minimized constraints, owned by the polyhedron (valid while it
    /// lives and is not modified).
    fn minimized_constraints(&self) -> Result<ffi::ppl_const_Constraint_System_t> {
        let mut cs: ffi::ppl_const_Constraint_System_t = ptr::null();
        // SAFETY: valid handle and out-pointer; lock held by the borrow.
        check(budgeted(self.budget, || unsafe {
            ffi::ppl_Polyhedron_get_minimized_constraints(self.raw, &mut cs)
        }))?;
        Ok(cs)
    }
}

impl Drop for PPoly<'_> {
    fn drop(&mut self) {
        // SAFETY: owned handle, deleted once, lock held.
        unsafe { ffi::ppl_delete_Polyhedron(self.raw) };
    }
}

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

fn mip_point(
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

/// Checks that PPL initialises and reports errors as `Err`: builds a
/// polyhedron with more dimensions than PPL allows. Used by tests and the
/// `exercise` example to walk the error path.
pub fn provoke_error() -> Result<()> {
    Shape::<CPolyhedron>::new(usize::MAX - 1, false, 0).map(|_| ())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mpz_round_trip() {
        for v in [
            0,
            1,
            -1,
            i64::MAX as i128 + 1,
            i128::MAX,
            i128::MIN + 1,
            -(1 << 100),
        ] {
            assert_eq!(Mpz::from_i128(v).to_i128(), Some(v));
        }
    }

    #[test]
    fn errors_become_results() {
        match provoke_error() {
            Err(DomainError::Ppl { message, .. }) => assert!(!message.is_empty()),
            other => panic!("expected a PPL error, got {other:?}"),
        }
        // The library still works afterwards.
        assert!(Shape::<CPolyhedron>::new(3, false, 0)
            .unwrap()
            .is_universe()
            .unwrap());
    }

    #[test]
    fn rounding_mode_is_restored() {
        let _ = Shape::<Octagon>::new(1, false, 0).unwrap();
        // 1 + 2^-53 is a tie: round-to-nearest-even gives 1, upward does not.
        let x = std::hint::black_box(1.0f64) + std::hint::black_box(f64::EPSILON / 2.0);
        assert_eq!(x, 1.0);
    }

    #[test]
    fn mip_gives_up_on_lattice_free_unbounded_problem() {
        // 2x - 2y = 1 has rational but no integer solutions.
        let mut s = Shape::<CPolyhedron>::new(2, false, 0).unwrap();
        let e = LinExpr::from_terms(&[(2, 0), (-2, 1)], -1).unwrap();
        s.refine(&[LinConstraint::new(e, ConstraintKind::Eq)], 2)
            .unwrap();
        match s.integer_point(2) {
            Ok(None) | Err(DomainError::Timeout) => {}
            other => panic!("unexpected {other:?}"),
        }
    }
}
