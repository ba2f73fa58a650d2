//! Symbolic definitions: which local scalars hold the value of which pure expression.
//!
//! Takes the instructions the transfer functions apply; gives, per sub-state, `v ↦ e` for each
//! local `v` last assigned a pure expression `e` (or the result of a pure call) whose operands
//! have not been written since, so `e` evaluated now gives `v`'s value. Congruence substitutes
//! these where two expressions differ only in what a temporary names: `t = j * x; b + t`
//! against `b + j * x`, `z = fabs(x); 1 / z` against `1 / fabs(x)`. The numeric domain cannot
//! say this for floating values (it keeps only copies of them, see `translate`), and under
//! IEEE the substitution is exact: C evaluates each operation once, rounding its result, so the
//! same operations on the same values give the same bits wherever they are written.
//!
//! Only locals that nothing can write behind the analysis' back qualify: not globals, not
//! address-taken, not volatile, scalar. A definition is dropped when its variable or one of its
//! operands is written, so reads of memory and guards (which change without a write to a
//! variable) never appear in one — except reads of globals no code changes at all
//! (`Correlated::immutable_globals`).

use crate::gcl::InstrKind;
use crate::ir::{Callee, Expr, ExprKind, Function, Place, VarId, VarKind};

/// What a variable holds.
#[derive(Clone, Debug, PartialEq)]
pub enum Def {
    /// The value of a pure expression over other qualifying locals.
    Expr(Expr),
    /// The result of a call of a function whose result depends only on its arguments (by
    /// source name, so the two versions' copies of a helper compare equal).
    Call(String, Vec<Expr>),
}

/// The definitions of one sub-state, and the truth values of comparisons it has seen
/// (`atoms`: see [`Defs::atom`]).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Defs(im::OrdMap<VarId, Def>, im::Vector<(Expr, bool)>);

/// Most comparisons a sub-state remembers the outcome of.
const MAX_ATOMS: usize = 16;

impl Defs {
    pub fn get(&self, v: VarId) -> Option<&Def> {
        self.0.get(&v)
    }

    /// The comparisons whose outcome is known, with it: a guard's condition the numeric domain
    /// cannot express (a floating comparison) evaluated on this path, whose operands have not
    /// been written since, so evaluating it again gives the same outcome.
    pub fn atoms(&self) -> impl Iterator<Item = &(Expr, bool)> {
        self.1.iter()
    }

    /// Record that comparison `e` (a pure expression over qualifying locals, see
    /// [`Self::after`]) has outcome `value`.
    pub fn atom(&mut self, f: &Function, e: &Expr, value: bool, immutable: impl Fn(VarId) -> bool) {
        if self.1.len() < MAX_ATOMS
            && operand(f, e, &immutable)
            && !self.1.iter().any(|(x, _)| x == e)
        {
            self.1.push_back((e.clone(), value));
        }
    }

    /// Definitions and outcomes both hold.
    pub fn join(&self, o: &Defs) -> Defs {
        if self.0.ptr_eq(&o.0) && self.1 == o.1 {
            return self.clone();
        }
        Defs(
            self.0
                .iter()
                .filter(|(v, d)| o.0.get(v) == Some(d))
                .map(|(v, d)| (*v, d.clone()))
                .collect(),
            self.1.iter().filter(|a| o.1.contains(a)).cloned().collect(),
        )
    }

    /// Whether `self` knows at least what `o` knows (fewer definitions is less information).
    pub fn leq(&self, o: &Defs) -> bool {
        (o.0.ptr_eq(&self.0) || o.0.iter().all(|(v, d)| self.0.get(v) == Some(d)))
            && o.1.iter().all(|a| self.1.contains(a))
    }

    /// `v` was written: its definition and those that read it no longer hold, nor the
    /// outcomes of comparisons that read it.
    pub fn written(&mut self, v: VarId) {
        self.0.remove(&v);
        if self.0.values().any(|d| mentions(d, v)) {
            self.0 = self
                .0
                .iter()
                .filter(|(_, d)| !mentions(d, v))
                .map(|(w, d)| (*w, d.clone()))
                .collect();
        }
        if self.1.iter().any(|(e, _)| reads(e, v)) {
            self.1 = self
                .1
                .iter()
                .filter(|(e, _)| !reads(e, v))
                .cloned()
                .collect();
        }
    }

    /// Before the instruction runs: forget what it writes.
    pub fn before(&mut self, k: &InstrKind) {
        if let Some(v) = k.dest().and_then(|p| p.root_var()) {
            self.written(v);
        }
    }

    /// After the instruction ran (and [`Self::before`]): what it defines, if anything.
    /// `pure_call` gives the source name of a directly called function whose result depends
    /// only on its arguments.
    /// `immutable` says which globals no code changes: reads of them may appear in a
    /// definition.
    pub fn after(
        &mut self,
        f: &Function,
        k: &InstrKind,
        pure_call: impl Fn(&str) -> Option<String>,
        immutable: impl Fn(VarId) -> bool,
    ) {
        let operand = |e: &Expr| operand(f, e, &immutable);
        let def = match k {
            InstrKind::Assign(Place::Var(v), e) if qualifies(f, *v) && operand(e) => {
                Some((*v, Def::Expr(e.clone())))
            }
            InstrKind::Call {
                dest: Some(Place::Var(v)),
                callee: Callee::Direct(n),
                args,
            } if qualifies(f, *v)
                && args
                    .iter()
                    .all(|a| a.ty.is_scalar() && !a.ty.is_pointer() && operand(a)) =>
            {
                pure_call(n).map(|n| (*v, Def::Call(n, args.clone())))
            }
            _ => None,
        };
        if let Some((v, d)) = def {
            if !mentions(&d, v) {
                self.0.insert(v, d);
            }
        }
    }
}

/// A local nothing but a direct assignment can change.
fn qualifies(f: &Function, v: VarId) -> bool {
    let i = f.var(v);
    !matches!(i.kind, VarKind::Global(_)) && !i.addr_taken && !i.volatile && i.ty.is_scalar()
}

/// A pure expression over qualifying locals, constants and immutable globals.
fn operand(f: &Function, e: &Expr, immutable: &impl Fn(VarId) -> bool) -> bool {
    let mut ok = true;
    e.walk(&mut |x| {
        ok &= match &x.kind {
            ExprKind::Var(v) => qualifies(f, *v) || immutable(*v),
            // Element and field paths only (their indices are walked too), no pointers.
            ExprKind::Load(p) => {
                let mut q: &Place = p;
                loop {
                    match q {
                        Place::Index(b, ..) | Place::Field(b, ..) => q = b,
                        Place::Var(v) => break immutable(*v),
                        Place::Deref(..) => break false,
                    }
                }
            }
            ExprKind::Int(_)
            | ExprKind::Float(_)
            | ExprKind::Str(_)
            | ExprKind::FuncAddr(_)
            | ExprKind::Unary(..)
            | ExprKind::Binary(..)
            | ExprKind::Logic(..)
            | ExprKind::Cast(_) => true,
            ExprKind::Guard(_)
            | ExprKind::AddrOf(_)
            | ExprKind::GlobalAddr(_)
            | ExprKind::Opaque(_) => false,
        }
    });
    ok
}

fn mentions(d: &Def, v: VarId) -> bool {
    match d {
        Def::Expr(e) => reads(e, v),
        Def::Call(_, args) => args.iter().any(|a| reads(a, v)),
    }
}

fn reads(e: &Expr, v: VarId) -> bool {
    let mut hit = false;
    e.walk(&mut |x: &Expr| hit |= matches!(x.kind, ExprKind::Var(w) if w == v));
    hit
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{BinOp, CType};

    fn var(i: u32) -> Expr {
        Expr {
            kind: ExprKind::Var(VarId(i)),
            ty: CType::Double,
        }
    }

    fn add(a: Expr, b: Expr) -> Def {
        Def::Expr(Expr {
            kind: ExprKind::Binary(BinOp::Add, Box::new(a), Box::new(b)),
            ty: CType::Double,
        })
    }

    fn defs(items: &[(u32, Def)]) -> Defs {
        Defs(
            items.iter().map(|(v, d)| (VarId(*v), d.clone())).collect(),
            Default::default(),
        )
    }

    #[test]
    fn writes_kill_the_variable_and_what_reads_it() {
        let mut d = defs(&[
            (0, add(var(1), var(2))),
            (3, add(var(2), var(4))),
            (5, Def::Expr(var(4))),
        ]);
        d.written(VarId(2));
        assert_eq!(d, defs(&[(5, Def::Expr(var(4)))]));
        d.written(VarId(5));
        assert_eq!(d, Defs::default());
    }

    #[test]
    fn join_is_the_greatest_lower_bound_of_knowledge() {
        let a = defs(&[(0, add(var(1), var(2))), (3, Def::Expr(var(4)))]);
        let b = defs(&[(0, add(var(1), var(2))), (3, Def::Expr(var(5)))]);
        let j = a.join(&b);
        assert_eq!(j, b.join(&a));
        assert_eq!(j, defs(&[(0, add(var(1), var(2)))]));
        assert!(a.leq(&j) && b.leq(&j));
        assert!(!j.leq(&a));
        assert!(a.leq(&a) && a.join(&a) == a);
    }
}
