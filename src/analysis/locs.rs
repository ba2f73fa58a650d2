//! Numeric locations: which dimension of the numeric domain holds which value.
//!
//! Takes the product function and the program's struct layouts; gives [`Dims`]: one dimension
//! per tracked *location* — a scalar variable, or a scalar *cell* of an aggregate variable (a
//! struct field or an array element at a known byte offset, nested to any depth) — and the
//! resolution of IR places to them. This is how the analysis compares aggregates field by field:
//! a struct returned by value is a set of cells, each compared like a variable.
//!
//! Not tracked (no dimension; reads are unknown values and comparisons are "may differ"):
//! volatile variables, aggregates containing a union or an array of unknown length, and
//! aggregates with more than [`MAX_CELLS`] scalar cells.

use std::collections::HashMap;

use dizy_domains::Dim;

use crate::ir::{CType, ExprKind, Function, Place, StructDef, VarId};

/// Scalar cells an aggregate variable may have and still be tracked.
pub const MAX_CELLS: usize = 64;

/// Elements an array may have and still be tracked element by element: a larger one costs a
/// dimension per element in every state, and a store at an unknown index forgets them all
/// anyway (array contents summaries are the memory model's job).
pub const MAX_ARRAY_CELLS: u64 = 16;

/// A numeric location.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum Loc {
    /// A scalar variable.
    Var(VarId),
    /// The scalar at `offset` bytes into aggregate variable `var` (its region), of type `ty`.
    Cell { var: VarId, offset: u64, ty: CType },
    /// A memory access site of the product (see `memory`): the address it last accessed, the
    /// value it last read or wrote there, and what else it records, of type `ty`.
    Mem { site: u32, part: MemPart, ty: CType },
}

/// Which value of a memory access site a dimension holds.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum MemPart {
    Addr,
    Val,
    /// The pointer its address arithmetic started from.
    Base,
    /// A stored integer before its final conversion.
    Pre,
}

/// One scalar cell of an aggregate variable.
#[derive(Clone, Debug)]
pub struct Cell {
    /// Access path from the variable: `.a`, `[2].x`.
    pub path: String,
    pub offset: u64,
    pub ty: CType,
    pub dim: Dim,
}

/// What a place denotes in terms of dimensions.
#[derive(Clone, Debug, PartialEq)]
pub enum Resolved {
    /// One scalar location.
    Scalar(Dim),
    /// An aggregate part of a tracked variable: its cells in layout order (relative offsets).
    Cells(Vec<(u64, Dim)>),
    /// Some cells of a tracked variable, which one is not known (an index that is not a
    /// constant): a store there may change any of them.
    Some(Vec<Dim>),
    /// Nothing tracked (untracked variable, memory through a pointer).
    Untracked,
}

/// Dimensions of the tracked locations.
#[derive(Clone, Debug)]
pub struct Dims {
    of_var: Vec<Option<Dim>>,
    cells: Vec<Option<Vec<Cell>>>,
    /// The location of each dimension.
    pub locs: Vec<Loc>,
    /// Display name of each dimension (`x`, `retval'.a`).
    pub names: Vec<String>,
    structs: Vec<StructDef>,
}

impl Dims {
    /// Dimensions for every scalar variable and every cell of trackable aggregates of `f`,
    /// except the aggregates in `no_cells` (kept untracked).
    pub fn new(f: &Function, structs: &[StructDef], no_cells: &[VarId]) -> Dims {
        let mut d = Dims {
            of_var: vec![None; f.vars.len()],
            cells: vec![None; f.vars.len()],
            locs: vec![],
            names: vec![],
            structs: structs.to_vec(),
        };
        for (i, v) in f.vars.iter().enumerate() {
            let var = VarId::new(i);
            if v.volatile {
                continue;
            }
            if v.ty.is_scalar() {
                d.of_var[i] = Some(Dim::new(d.locs.len()));
                d.locs.push(Loc::Var(var));
                d.names.push(v.name.clone());
            } else if no_cells.contains(&var) || has_big_array(structs, &v.ty) {
                continue;
            } else if let Some(leaves) = crate::ir::scalar_leaves(structs, &v.ty, MAX_CELLS) {
                let mut cells = vec![];
                for (path, offset, ty) in leaves {
                    let dim = Dim::new(d.locs.len());
                    d.locs.push(Loc::Cell {
                        var,
                        offset,
                        ty: ty.clone(),
                    });
                    d.names.push(format!("{}{path}", v.name));
                    cells.push(Cell {
                        path,
                        offset,
                        ty,
                        dim,
                    });
                }
                d.cells[i] = Some(cells);
            }
        }
        d
    }

    /// The dimension of `loc`, adding one at the end when it has none yet. Values made before
    /// lack it: [`crate::analysis::reconcile`] extends them, unconstrained, where two meet.
    pub fn add(&mut self, loc: Loc, name: impl Into<String>) -> Dim {
        if let Some(d) = self.locs.iter().position(|l| *l == loc) {
            return Dim::new(d);
        }
        let d = Dim::new(self.locs.len());
        match &loc {
            Loc::Var(v) if v.index() < self.of_var.len() => self.of_var[v.index()] = Some(d),
            _ => {}
        }
        self.locs.push(loc);
        self.names.push(name.into());
        d
    }

    /// The dimension of a scalar variable.
    pub fn of(&self, v: VarId) -> Option<Dim> {
        self.of_var.get(v.index()).copied().flatten()
    }

    /// The cells of an aggregate variable, when it is tracked.
    pub fn cells(&self, v: VarId) -> Option<&[Cell]> {
        self.cells.get(v.index())?.as_deref()
    }

    /// Every dimension holding part of `v` (its own, or its cells').
    pub fn all_of(&self, v: VarId) -> Vec<Dim> {
        match (self.of(v), self.cells(v)) {
            (Some(d), _) => vec![d],
            (None, Some(cs)) => cs.iter().map(|c| c.dim).collect(),
            _ => vec![],
        }
    }

    /// Whether `v` has a value the domain can follow (a scalar, or an aggregate with cells).
    pub fn tracked(&self, v: VarId) -> bool {
        self.of(v).is_some() || self.cells(v).is_some()
    }

    /// The C type of the value dimension `d` holds.
    pub fn ty_of<'a>(&'a self, f: &'a Function, d: Dim) -> &'a CType {
        match &self.locs[d.index()] {
            Loc::Var(v) => &f.var(*v).ty,
            Loc::Cell { ty, .. } | Loc::Mem { ty, .. } => ty,
        }
    }

    /// The variable whose value (or part of it) dimension `d` holds (`None` for a memory
    /// access site's dimensions).
    pub fn var_of(&self, d: Dim) -> Option<VarId> {
        match &self.locs[d.index()] {
            Loc::Var(v) | Loc::Cell { var: v, .. } => Some(*v),
            Loc::Mem { .. } => None,
        }
    }

    /// The struct layouts places are resolved with.
    pub fn structs(&self) -> &[StructDef] {
        &self.structs
    }

    pub fn len(&self) -> usize {
        self.locs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.locs.is_empty()
    }

    /// What `p` denotes; `index` gives the value of an index expression when it is known.
    pub fn resolve(
        &self,
        f: &Function,
        p: &Place,
        index: &dyn Fn(&crate::ir::Expr) -> Option<i128>,
    ) -> Resolved {
        let Some(root) = p.root_var() else {
            return Resolved::Untracked;
        };
        if let Some(d) = self.of(root) {
            return match p {
                Place::Var(_) => Resolved::Scalar(d),
                _ => Resolved::Untracked,
            };
        }
        let Some(cells) = self.cells(root) else {
            return Resolved::Untracked;
        };
        // Byte range of the place inside the variable: exact, or the whole of some array.
        let Some((start, span)) = self.offset(f, p, index) else {
            return Resolved::Untracked;
        };
        let exact = span.is_none();
        let size = span.unwrap_or_else(|| crate::ir::layout_size(&self.structs, &f.place_ty(p)));
        let inside: Vec<&Cell> = cells
            .iter()
            .filter(|c| c.offset >= start && c.offset < start.saturating_add(size))
            .collect();
        if !exact {
            return Resolved::Some(inside.iter().map(|c| c.dim).collect());
        }
        let ty = f.place_ty(p);
        if ty.is_scalar() {
            return match inside.as_slice() {
                [c] if c.offset == start && c.ty == ty => Resolved::Scalar(c.dim),
                _ => Resolved::Some(inside.iter().map(|c| c.dim).collect()),
            };
        }
        Resolved::Cells(inside.iter().map(|c| (c.offset - start, c.dim)).collect())
    }

    /// Byte offset of `p` inside its root variable: exact (`None`), or, where an index is
    /// unknown or out of bounds, the byte range (start, length) of the whole array that index
    /// selects in, which the place lies somewhere inside.
    fn offset(
        &self,
        f: &Function,
        p: &Place,
        index: &dyn Fn(&crate::ir::Expr) -> Option<i128>,
    ) -> Option<(u64, Option<u64>)> {
        match p {
            Place::Var(_) => Some((0, None)),
            Place::Deref(..) => None,
            Place::Field(b, sid, k, _) => {
                let (o, span) = self.offset(f, b, index)?;
                let def = self.structs.get(sid.index())?;
                if def.is_union {
                    return None;
                }
                let fl = def.fields.get(*k as usize)?;
                match span {
                    None => Some((o + fl.offset, None)),
                    // Somewhere in the array: so is its field.
                    Some(_) => Some((o, span)),
                }
            }
            Place::Index(b, i, ty) => {
                let (o, span) = self.offset(f, b, index)?;
                let CType::Array(_, Some(n)) = f.place_ty(b) else {
                    return None;
                };
                if span.is_some() {
                    return Some((o, span));
                }
                let k = match &i.kind {
                    ExprKind::Int(k) => Some(*k),
                    _ => index(i),
                };
                let el = crate::ir::layout_size(&self.structs, ty);
                match k {
                    Some(k) if (0..n as i128).contains(&k) => Some((o + el * k as u64, None)),
                    // Out of bounds is undefined; an unknown index may hit any element.
                    _ => Some((o, Some(el.saturating_mul(n)))),
                }
            }
        }
    }
}

/// Whether `t` has an array of more than [`MAX_ARRAY_CELLS`] elements (outside pointers).
fn has_big_array(structs: &[StructDef], t: &CType) -> bool {
    match t {
        CType::Array(e, n) => n.is_none_or(|n| n > MAX_ARRAY_CELLS) || has_big_array(structs, e),
        CType::Struct(s) => structs
            .get(s.index())
            .is_some_and(|d| d.fields.iter().any(|f| has_big_array(structs, &f.ty))),
        _ => false,
    }
}

/// Cells of two aggregate variables that correspond (same path and type), and whether every
/// cell of each has a partner.
pub fn pair_cells(a: &[Cell], b: &[Cell]) -> (Vec<(Dim, Dim, String)>, bool) {
    let by_path: HashMap<&str, &Cell> = b.iter().map(|c| (c.path.as_str(), c)).collect();
    let mut out = vec![];
    for c in a {
        if let Some(d) = by_path.get(c.path.as_str()).filter(|d| d.ty == c.ty) {
            out.push((c.dim, d.dim, c.path.clone()));
        }
    }
    let complete = out.len() == a.len() && out.len() == b.len();
    (out, complete)
}
