//! Normalized instruction keys: what the syntactic diff compares.
//!
//! Takes a GCL function; gives, per instruction, a string in which variables appear by name
//! (shadowing suffixes kept, tags absent) and guards by what defines them (their first
//! condition), so `[g1] sgn := -1` in one version and `[g2] sgn := -1` in the other compare equal
//! when both guards test `x < 0`. Only alignment depends on keys, never semantics.

use std::collections::HashMap;
use std::fmt::Write;

use crate::gcl::{GclFunction, GuardKind, InstrKind, Lit};
use crate::ir::{Callee, Expr, ExprKind, GuardId, Place, VarId, VarKind};

pub struct Keys<'a> {
    f: &'a GclFunction,
    /// Renamed variables of this version (`--map old=new` seen from the new side: new → old).
    rename: HashMap<String, String>,
    guard_keys: Vec<String>,
    /// Instructions that define a paired guard (first definition): keyed as the old version's
    /// definition, so the two definitions form a pair the analysis can prove congruent.
    paired_defs: HashMap<usize, String>,
    /// Condition guards keyed through the `guards` map.
    aliased: Vec<GuardId>,
    /// Locals written once, with a constant, that the other version does not name: read as
    /// that constant (`double two = 2.0; y = two / x` keys as `y = 2.0 / x`). Empty unless the
    /// other version is known ([`Keys::against`]).
    consts: HashMap<VarId, String>,
}

impl<'a> Keys<'a> {
    /// Keys of `f` compared with the other version `other`: a local written once with a
    /// constant and absent from `other` is keyed as its constant, the named constant a
    /// refactoring introduced. (One the other version also names keeps its name, or `acc + cnt`
    /// would no longer match where only one version's `cnt` stays constant.)
    pub fn against(
        f: &'a GclFunction,
        rename: HashMap<String, String>,
        other: &GclFunction,
    ) -> Keys<'a> {
        Keys::with_guards(f, rename, &HashMap::new(), Some(other))
    }

    /// Keys in which a condition guard whose own key is in `guards` takes the mapped key
    /// instead: how a guard whose condition changed is paired with its counterpart, so the
    /// instructions under it compare by what they do.
    pub fn with_guards(
        f: &'a GclFunction,
        rename: HashMap<String, String>,
        guards: &HashMap<String, String>,
        other: Option<&GclFunction>,
    ) -> Keys<'a> {
        let mut me = Keys {
            f,
            rename,
            guard_keys: vec![String::new(); f.guards.len()],
            paired_defs: HashMap::new(),
            aliased: vec![],
            consts: HashMap::new(),
        };
        if let Some(other) = other {
            let names: std::collections::HashSet<&str> =
                other.func.vars.iter().map(|v| v.name.as_str()).collect();
            me.consts = constant_locals(f)
                .into_iter()
                .filter(|(v, _)| !names.contains(me.var(*v).as_str()))
                .collect();
        }
        // A flag is identified by its kind; a condition guard by its first defining condition.
        for (i, g) in f.guards.iter().enumerate() {
            me.guard_keys[i] = match g.kind {
                GuardKind::Return => "ret".into(),
                GuardKind::Break => "brk".into(),
                GuardKind::Continue => "cont".into(),
                GuardKind::Cond => String::new(),
            };
        }
        for (i, ins) in f.instrs.iter().enumerate() {
            if let InstrKind::SetGuard(g, e) = &ins.kind {
                if me.guard_keys[g.index()].is_empty() {
                    let k = format!("({})", me.expr(e));
                    me.guard_keys[g.index()] = match guards.get(&k) {
                        Some(old) => {
                            // `(K)`, or `!(K)` for a guard paired with the negation of `K`:
                            // either way its definition reads as the other version's.
                            let def = old.trim_start_matches('!');
                            let cond = &def[1..def.len() - 1];
                            me.paired_defs.insert(i, format!("{def} := {cond}"));
                            me.aliased.push(*g);
                            old.clone()
                        }
                        None => k,
                    };
                }
            }
        }
        me
    }

    pub fn instr(&self, i: usize) -> String {
        let ins = &self.f.instrs[i];
        let mut s = String::new();
        s.push('[');
        // A guard paired with the negation of the other version's (`!(K)`) reads `K` under `!`.
        let mut lits: Vec<String> = ins
            .guard
            .0
            .iter()
            .map(|l: &Lit| {
                let k = self.guard_key(l.guard);
                match (l.positive, k.strip_prefix('!')) {
                    (true, _) => k,
                    (false, Some(inner)) => inner.to_string(),
                    (false, None) => format!("!{k}"),
                }
            })
            .collect();
        lits.sort_by(|a, b| {
            let base = |x: &str| x.trim_start_matches('!').to_string();
            (base(a), !a.starts_with('!')).cmp(&(base(b), !b.starts_with('!')))
        });
        for l in lits {
            s.push_str(&l);
            s.push(',');
        }
        s.push(']');
        match &ins.kind {
            InstrKind::SetGuard(g, e) => match self.paired_defs.get(&i) {
                Some(k) => s.push_str(k),
                None => {
                    let _ = write!(s, "{} := {}", self.guard_key(*g), self.expr(e));
                }
            },
            InstrKind::Assign(p, e) => {
                let _ = write!(s, "{} := {}", self.place(p), self.expr(e));
            }
            InstrKind::Havoc(p) => {
                let _ = write!(s, "havoc {}", self.place(p));
            }
            InstrKind::ZeroFill(p) => {
                let _ = write!(s, "zero {}", self.place(p));
            }
            InstrKind::Call { dest, callee, args } => {
                if let Some(d) = dest {
                    let _ = write!(s, "{} := ", self.place(d));
                }
                match callee {
                    Callee::Direct(n) => s.push_str(n),
                    Callee::Indirect(e) => s.push_str(&self.expr(e)),
                }
                s.push('(');
                for a in args {
                    s.push_str(&self.expr(a));
                    s.push(',');
                }
                s.push(')');
            }
            InstrKind::Goto(_) => s.push_str("goto"),
        }
        s
    }

    /// Weaker keys of an assignment or a direct call, for pairing instructions whose full keys
    /// differ: what it computes without the variable (`[g1] := e`, so `ans := e` pairs with
    /// `retval := e`), and the variable it writes (`[g1] h :=`, so `h := h * 31 + t` pairs with
    /// `h := x * 31 + t`) or the function it calls (`exp(-z * z)` with `exp(-fabs(x) * z)`). Either way the analysis then compares the two values where they are
    /// computed. None for assignments of constants: they pair too readily to say anything.
    pub fn partial(&self, i: usize) -> Option<(String, String)> {
        let full = self.instr(i);
        let guards = &full[..=full.find(']')?];
        let (p, e) = match &self.f.instrs[i].kind {
            InstrKind::Assign(p, e) => (p, e),
            // A call of the same function with other arguments: paired, its arguments are
            // compared where it runs (unpaired, it would differ in any case).
            InstrKind::Call {
                dest,
                callee: Callee::Direct(n),
                ..
            } => {
                let call = &full[full.find(']')? + 1..];
                let call = call.split_once(" := ").map_or(call, |x| x.1);
                return Some((
                    format!("{guards} := {call}"),
                    format!("{guards} call {n} {}", dest.is_some()),
                ));
            }
            _ => return None,
        };
        if matches!(e.kind, ExprKind::Int(_) | ExprKind::Float(_)) {
            return None;
        }
        Some((
            format!("{guards} := {}", self.expr(e)),
            format!("{guards} {} :=", self.place(p)),
        ))
    }

    /// The key of each condition guard, in the order of their first definitions.
    pub fn cond_guard_keys(&self) -> Vec<String> {
        let mut seen = vec![false; self.guard_keys.len()];
        let mut out = vec![];
        for ins in &self.f.instrs {
            if let InstrKind::SetGuard(g, _) = &ins.kind {
                let i = g.index();
                if self.f.guards[i].kind == GuardKind::Cond
                    && !std::mem::replace(&mut seen[i], true)
                {
                    out.push(self.guard_keys[i].clone());
                }
            }
        }
        out
    }

    /// Guards of the other version paired with this version's guards: `(this, other)` for
    /// every guard keyed through the `guards` map and a condition guard of `other` with that key.
    pub fn paired_guards(&self, other: &Keys<'_>) -> Vec<(GuardId, GuardId)> {
        self.aliased
            .iter()
            .filter_map(|&g| {
                let k = &self.guard_keys[g.index()];
                let o = other
                    .f
                    .guards
                    .iter()
                    .enumerate()
                    .find(|(i, h)| h.kind == GuardKind::Cond && other.guard_keys[*i] == *k)?;
                Some((g, GuardId::new(o.0)))
            })
            .collect()
    }

    /// All instruction keys.
    pub fn all(&self) -> Vec<String> {
        (0..self.f.instrs.len()).map(|i| self.instr(i)).collect()
    }

    fn guard_key(&self, g: GuardId) -> String {
        self.guard_keys.get(g.index()).cloned().unwrap_or_default()
    }

    fn var(&self, v: crate::ir::VarId) -> String {
        let name = self
            .f
            .func
            .vars
            .get(v.index())
            .map(|x| x.name.clone())
            .unwrap_or_default();
        self.rename.get(&name).cloned().unwrap_or(name)
    }

    fn place(&self, p: &Place) -> String {
        match p {
            Place::Var(v) => self.var(*v),
            Place::Deref(e, _) => format!("*({})", self.expr(e)),
            Place::Index(b, i, _) => format!("{}[{}]", self.place(b), self.expr(i)),
            Place::Field(b, _, k, _) => format!("{}.#{k}", self.place(b)),
        }
    }

    pub fn expr(&self, e: &Expr) -> String {
        match &e.kind {
            ExprKind::Int(v) => v.to_string(),
            ExprKind::Float(f) => format!("{f:?}"),
            ExprKind::Var(v) => match self.consts.get(v) {
                Some(k) => k.clone(),
                None => self.var(*v),
            },
            ExprKind::Guard(g) => self.guard_key(*g),
            ExprKind::Load(p) => self.place(p),
            ExprKind::AddrOf(p) => format!("&{}", self.place(p)),
            ExprKind::Str(s) => format!("str{}", s.0),
            ExprKind::GlobalAddr(g) => format!("&global{}", g.0),
            ExprKind::FuncAddr(n) => format!("&{n}"),
            ExprKind::Unary(op, x) => format!("{op:?}({})", self.expr(x)),
            ExprKind::Binary(op, a, b) => {
                // `a & b` and `b & a`, `x < y` and `y > x` get one key.
                let (ka, kb) = (self.expr(a), self.expr(b));
                let here = format!("{op:?}({ka},{kb})");
                match op.swapped() {
                    Some(o) => here.min(format!("{o:?}({kb},{ka})")),
                    None => here,
                }
            }
            ExprKind::Logic(op, a, b) => format!("{op:?}({},{})", self.expr(a), self.expr(b)),
            ExprKind::Cast(x) => format!("cast<{:?}>({})", e.ty, self.expr(x)),
            ExprKind::Opaque(r) => format!("opaque({r})"),
        }
    }
}

/// Locals (not parameters, not address-taken) whose only write is one assignment of a constant,
/// with the constant's key.
fn constant_locals(f: &GclFunction) -> HashMap<VarId, String> {
    let mut writes: HashMap<VarId, (usize, Option<String>)> = HashMap::new();
    for ins in &f.instrs {
        let Some(v) = ins.kind.dest().and_then(|p| p.root_var()) else {
            continue;
        };
        let k = match &ins.kind {
            InstrKind::Assign(Place::Var(_), e) => match &e.kind {
                ExprKind::Int(x) => Some(x.to_string()),
                ExprKind::Float(x) => Some(format!("{x:?}")),
                _ => None,
            },
            _ => None,
        };
        let w = writes.entry(v).or_default();
        w.0 += 1;
        w.1 = k;
    }
    writes
        .into_iter()
        .filter_map(|(v, (n, k))| {
            let info = f.func.vars.get(v.index())?;
            (n == 1 && matches!(info.kind, VarKind::Local) && !info.addr_taken)
                .then_some(())
                .and(k)
                .map(|k| (v, k))
        })
        .collect()
}

/// How many instructions of `new` find an instruction of `old` with the same key (multiset
/// intersection): the measure by which inferred renames and guard pairs are kept.
pub fn shared(old: &[String], new: &[String]) -> usize {
    let mut left: HashMap<&str, usize> = HashMap::new();
    for k in old {
        *left.entry(k).or_default() += 1;
    }
    new.iter()
        .filter(|k| {
            left.get_mut(k.as_str())
                .filter(|c| **c > 0)
                .map(|c| *c -= 1)
                .is_some()
        })
        .count()
}

/// Backward elimination over inferred pairs: drops each candidate whose removal loses nothing
/// by `score` (pairs are judged together: a rename's uses often mention other renamed names,
/// nested guards other guards). Empty when all of them together gain nothing over none.
pub fn keep_useful<T: Clone>(mut candidates: Vec<T>, score: impl Fn(&[T]) -> usize) -> Vec<T> {
    // A few dozen pairs at most: beyond that, renaming is not what changed.
    candidates.truncate(64);
    let mut best = score(&candidates);
    if candidates.is_empty() || best <= score(&[]) {
        return vec![];
    }
    let mut k = 0;
    while k < candidates.len() {
        let mut without = candidates.clone();
        without.remove(k);
        let n = score(&without);
        if n >= best {
            candidates = without;
            best = n;
        } else {
            k += 1;
        }
    }
    candidates
}

#[cfg(test)]
mod tests {
    use super::Keys;
    use std::collections::HashMap;

    /// The keys of `f`'s instructions in `src`.
    fn keys_of(src: &str) -> Vec<String> {
        let text = format!("# 1 \"t.c\"\n{src}\n");
        let prog = crate::frontend::parse_text(text, "t.c").expect("parses");
        let g = crate::gcl::flatten_program(prog).expect("flattens");
        let f = g.function("f").expect("f");
        let k = Keys::with_guards(f, HashMap::new(), &HashMap::new(), None);
        (0..f.instrs.len()).map(|i| k.instr(i)).collect()
    }

    /// Commuted operands of commutative operators and mirrored comparisons share a key; the
    /// operands of `-`, `<<` do not commute.
    #[test]
    fn commuted_and_mirrored_operators_share_keys() {
        let f = |body: &str| {
            keys_of(&format!(
                "int f(int a, int b) {{ int r = {body}; return r; }}"
            ))
        };
        for (x, y) in [
            ("a & b", "b & a"),
            ("a * (b ^ 3)", "(3 ^ b) * a"),
            ("a < b", "b > a"),
            ("(a >= b) == (a | b)", "(b | a) == (b <= a)"),
        ] {
            assert_eq!(f(x), f(y), "{x} against {y}");
        }
        for (x, y) in [("a - b", "b - a"), ("a << b", "b << a"), ("a < b", "b < a")] {
            assert_ne!(f(x), f(y), "{x} against {y}");
        }
    }
}
