//! What a caller observes of a value, and when two observations differ.
//!
//! Takes a scalar [`Value`] or the bytes of an aggregate and its type; gives an [`Observed`]
//! tree (struct fields and array elements as leaves, unions as bytes) that prints as a C
//! literal and compares under dizy's rule for observable values: integers and pointers by
//! value, floating values as numbers with `==` except that NaN equals NaN (so `0.0` and `-0.0`
//! are the same value and NaN payloads do not matter), aggregates leaf by leaf, padding
//! ignored; an indeterminate leaf (never written) is no evidence of a difference. The witness
//! search decides with it whether two runs differ.

use super::eval::scalar_from_bytes;
use super::literal::format_value;
use super::Value;
use crate::ir::{CType, StructDef};

/// Leaves shown and compared one by one before an aggregate is handled as bytes.
const MAX_LEAVES: usize = 256;

#[derive(Clone, Debug, PartialEq)]
pub enum Observed {
    /// A scalar, with its type (for printing).
    Scalar(Value, CType),
    /// A leaf that was never written.
    Indeterminate,
    /// Leaves of a struct or array: access path (`.a`, `[1].x`) and value.
    Fields(Vec<(String, Observed)>),
    /// A union or a very large aggregate: its bytes (`None`: indeterminate byte).
    Bytes(Vec<Option<u8>>),
}

impl Observed {
    pub fn scalar(v: Value, ty: &CType) -> Observed {
        Observed::Scalar(v, ty.clone())
    }

    /// The aggregate of type `ty` stored in `bytes` (`init`: which bytes were written).
    pub fn aggregate(structs: &[StructDef], ty: &CType, bytes: &[u8], init: &[bool]) -> Observed {
        let byte = |k: usize| init.get(k).copied().unwrap_or(false).then(|| bytes[k]);
        match crate::ir::scalar_leaves(structs, ty, MAX_LEAVES) {
            Some(leaves) => Observed::Fields(
                leaves
                    .into_iter()
                    .filter(|(path, _, _)| !crate::ir::through_unnamed(path))
                    .map(|(path, off, t)| {
                        let (lo, n) = (off as usize, crate::ir::layout_size(structs, &t) as usize);
                        let known = (lo..lo + n).all(|k| byte(k).is_some());
                        let v = match (known, bytes.get(lo..lo + n)) {
                            (true, Some(b)) => {
                                scalar_from_bytes(&t, b).map_or(Observed::Indeterminate, |v| {
                                    // A bit-field's slot holds what the field holds.
                                    let v = match (crate::ir::bitfield_at(structs, ty, off), v) {
                                        (Some((w, ft)), Value::Int(x)) => {
                                            Value::Int(crate::ir::bit_normalized_value(x, w, &ft))
                                        }
                                        _ => v,
                                    };
                                    Observed::Scalar(v, t)
                                })
                            }
                            _ => Observed::Indeterminate,
                        };
                        (path, v)
                    })
                    .collect(),
            ),
            None => Observed::Bytes((0..bytes.len()).map(byte).collect()),
        }
    }

    /// Whether the two observations are different values (see the module doc).
    pub fn differs(&self, other: &Observed) -> bool {
        match (self, other) {
            (Observed::Indeterminate, _) | (_, Observed::Indeterminate) => false,
            (Observed::Scalar(a, _), Observed::Scalar(b, _)) => !same_scalar(*a, *b),
            (Observed::Fields(a), Observed::Fields(b)) => {
                a.len() != b.len()
                    || a.iter()
                        .zip(b)
                        .any(|((pa, va), (pb, vb))| pa != pb || va.differs(vb))
            }
            (Observed::Bytes(a), Observed::Bytes(b)) => {
                a.len() != b.len()
                    || a.iter()
                        .zip(b)
                        .any(|(x, y)| matches!((x, y), (Some(x), Some(y)) if x != y))
            }
            _ => true,
        }
    }

    /// Whether the only difference is the sign of a zero or a NaN payload (worth a note, not
    /// a witness).
    pub fn same_but_bits(&self, other: &Observed) -> bool {
        !self.differs(other) && self.to_c() != other.to_c()
    }

    /// As a C literal: scalars as [`format_value`] does, structs and arrays as designated
    /// initializers (`{.a = 1, .b[0] = 2}`), bytes as a brace list of hex bytes.
    pub fn to_c(&self) -> String {
        match self {
            Observed::Scalar(v, t) => format_value(v, t),
            Observed::Indeterminate => "?".into(),
            Observed::Fields(fs) => {
                let parts: Vec<String> = fs
                    .iter()
                    .map(|(p, v)| format!("{p} = {}", v.to_c()))
                    .collect();
                format!("{{{}}}", parts.join(", "))
            }
            Observed::Bytes(bs) => {
                let parts: Vec<String> = bs
                    .iter()
                    .map(|b| b.map_or("?".into(), |b| format!("{b:#04x}")))
                    .collect();
                format!("{{{}}}", parts.join(", "))
            }
        }
    }
}

/// Equality of two scalars as observed values: floating values numerically with NaN equal to
/// NaN; everything else by value.
pub fn same_scalar(a: Value, b: Value) -> bool {
    let as_f = |v: Value| match v {
        Value::Float(x) => Some(f64::from(x)),
        Value::Double(x) => Some(x),
        Value::Int(_) => None,
    };
    match (as_f(a), as_f(b)) {
        (Some(x), Some(y)) => x == y || (x.is_nan() && y.is_nan()),
        (None, None) => a == b,
        _ => false,
    }
}
