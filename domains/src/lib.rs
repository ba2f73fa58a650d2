//! Numeric abstract domains for dizy.
//!
//! Takes: linear (and some non-linear) assignments and conditions over
//! numbered program variables, produced by the analysis of the correlating
//! program (DESIGN.md §5).
//! Gives: abstract values behind one trait, [`NumDomain`], with three
//! backends chosen by name at run time ([`make_domain`], [`DomainKind`],
//! [`AnyDomain`]):
//!
//! | name        | type          | implementation                                  |
//! |-------------|---------------|-------------------------------------------------|
//! | `polyhedra` | [`Polyhedra`] | PPL `C_Polyhedron`, BHRZ03 widening              |
//! | `octagon`   | [`NativeOctagons`] | native half DBM over rationals, Miné's widening |
//! | `octagon-ppl` | [`Octagons`] | PPL `Octagonal_Shape<mpq_class>`, BHMZ05 widening |
//! | `interval`  | [`Intervals`] | native boxes over `i128` with ±∞                 |
//!
//! Dimensions are integer-valued by default (C integers); each can be
//! declared real ([`NumDomain::set_integer`]). Over integers, strict
//! inequalities are tightened (`e < 0` ⇒ `e ≤ -1`) and `e ≠ 0` splits into
//! `e ≤ -1 ∨ e ≥ 1` ([`NumDomain::meet_split`]).
//!
//! Soundness first: every overflow, unsupported construct or unknown value
//! loses precision (a bound goes to ±∞, a variable is forgotten), never
//! correctness. Errors from PPL are returned as [`DomainError`], not aborts;
//! an in-place update that fails inside PPL leaves the value at top.
//! Each PPL value carries a work budget per operation ([`DomainKind::top_budgeted`]), which bounds PPL's worst-case exponential work.
//! Thread-safety of the PPL backends (one global lock, values `Send + Sync`):
//! see the [`ppl`] module. Usage, design and how to add a backend:
//! `domains/README.md`.

mod domain;
mod expr;
pub mod heap;
mod interval;
mod linear;
mod num;
mod octagon;
pub mod ppl;
mod ppl_domain;

pub use domain::{make_domain, AnyDomain, DomainKind, NumDomain};
pub use expr::Expr;
pub use interval::Intervals;
pub use linear::{ConstraintKind, Dim, LinConstraint, LinExpr};
pub use num::{Bound, Interval, Rat};
pub use octagon::NativeOctagons;
pub use ppl_domain::{Octagons, Polyhedra, PplDomain};

use std::fmt;

/// Everything that can go wrong in a domain operation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DomainError {
    /// PPL reported an error: its code and description.
    Ppl { code: i32, message: String },
    /// A dimension index is not below the number of dimensions.
    DimOutOfRange { dim: Dim, dims: usize },
    /// Two values with different numbers of dimensions were combined.
    DimMismatch { left: usize, right: usize },
    /// Two values of different backends were combined.
    KindMismatch { left: DomainKind, right: DomainKind },
    /// A malformed argument (dimension map, removal list, point length…).
    InvalidArgument(String),
    /// No backend has this name.
    UnknownBackend(String),
    /// A result does not fit in the Rust number type (e.g. an integer point
    /// coordinate beyond `i128`).
    Overflow(String),
    /// The work budget of an expensive search ran out (integer points).
    Timeout,
}

impl fmt::Display for DomainError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DomainError::Ppl { code, message } => write!(f, "PPL error {code}: {message}"),
            DomainError::DimOutOfRange { dim, dims } => {
                write!(f, "dimension {dim} out of range (value has {dims})")
            }
            DomainError::DimMismatch { left, right } => {
                write!(f, "dimension mismatch: {left} vs {right}")
            }
            DomainError::KindMismatch { left, right } => {
                write!(f, "cannot combine {left} and {right} values")
            }
            DomainError::InvalidArgument(m) => write!(f, "invalid argument: {m}"),
            DomainError::UnknownBackend(n) => write!(
                f,
                "unknown domain {n:?} (expected one of: {})",
                DomainKind::ALL.map(|k| k.name()).join(", ")
            ),
            DomainError::Overflow(m) => write!(f, "overflow: {m}"),
            DomainError::Timeout => write!(f, "work budget exceeded"),
        }
    }
}

impl std::error::Error for DomainError {}

/// Result of a domain operation.
pub type Result<T> = std::result::Result<T, DomainError>;

/// End the process at once with `code`, without running exit-time handlers: PPL's and GMP's
/// static destructors must not run while another thread may be inside them (dizy's memory
/// watchdog stops the process from its own thread). Standard streams are not flushed.
pub fn exit_now(code: i32) -> ! {
    extern "C" {
        fn _exit(status: std::os::raw::c_int) -> !;
    }
    // SAFETY: `_exit` takes a plain integer and never returns; it touches no Rust state.
    unsafe { _exit(code) }
}
