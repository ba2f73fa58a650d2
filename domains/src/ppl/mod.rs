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
//!
//! # Files
//!
//! [`lock`] holds the global lock, initialisation, error codes and work
//! budgets; [`handles`] GMP integers and the short-lived PPL objects
//! (coefficients, linear expressions, constraint systems) with their
//! conversions from and to this crate's types; [`kinds`] the two PPL object
//! types, polyhedra and octagons, behind one sealed trait; [`shape`] the
//! owned [`Shape`]; [`mip`] integer points.

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

mod handles;
mod kinds;
mod lock;
mod mip;
mod shape;

pub use kinds::{CPolyhedron, Kind, Octagon};
pub use shape::Shape;

use crate::Result;

/// Checks that PPL initialises and reports errors as `Err`: builds a
/// polyhedron with more dimensions than PPL allows. Used by tests and the
/// `exercise` example to walk the error path.
pub fn provoke_error() -> Result<()> {
    Shape::<CPolyhedron>::new(usize::MAX - 1, false, 0).map(|_| ())
}

#[cfg(test)]
mod tests {
    use super::handles::Mpz;
    use super::*;
    use crate::linear::{ConstraintKind, Dim, LinConstraint, LinExpr};
    use crate::DomainError;

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
        let e = LinExpr::from_terms(&[(2, Dim::new(0)), (-2, Dim::new(1))], -1).unwrap();
        s.refine(&[LinConstraint::new(e, ConstraintKind::Eq)], 2)
            .unwrap();
        match s.integer_point(2) {
            Ok(None) | Err(DomainError::Timeout) => {}
            other => panic!("unexpected {other:?}"),
        }
    }
}
