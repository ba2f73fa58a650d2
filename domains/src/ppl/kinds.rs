//! The two PPL object kinds: polyhedra and octagons.
//!
//! Takes the raw entry points of `C_Polyhedron` and `Octagonal_Shape_mpq_class`;
//! gives the sealed trait [`Kind`] that [`super::Shape`] is generic over, and its
//! two implementations [`CPolyhedron`] and [`Octagon`] (one macro maps each
//! raw operation to the kind's C function).

use std::os::raw::c_int;

use super::ffi;

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
        /// A widening whose work the budget bounds throughout, for operands too large for
        /// [`RawOps::widen`] (H79 for polyhedra; octagons' widening already is).
        unsafe fn coarse_widen(x: *mut Self::Tag, y: *const Self::Tag) -> c_int;
        /// [`RawOps::coarse_widen`] with thresholds.
        unsafe fn coarse_limited_widen(
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
     $meet:ident, $join:ident, $widen:ident, $limited:ident, $coarse:ident,
     $coarse_limited:ident, $contains:ident,
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
            unsafe fn coarse_widen(x: *mut $tag, y: *const $tag) -> c_int {
                unsafe { ffi::$coarse(x, y) }
            }
            unsafe fn coarse_limited_widen(
                x: *mut $tag,
                y: *const $tag,
                cs: ffi::ppl_const_Constraint_System_t,
            ) -> c_int {
                unsafe { ffi::$coarse_limited(x, y, cs) }
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
/// widening BHRZ03, thresholds via the limited BHRZ03 extrapolation (H79 and
/// its limited extrapolation for operands too large for BHRZ03).
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
    ppl_Polyhedron_H79_widening_assign,
    ppl_Polyhedron_limited_H79_extrapolation_assign,
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
