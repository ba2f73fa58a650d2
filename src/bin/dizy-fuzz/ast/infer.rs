//! A coarse type inference over the fuzzer's AST.
//!
//! Takes a program and one of its functions ([`Env`]); gives the type of a variable (declarations
//! inside statement expressions included), a field or an expression (with C's integer promotions
//! and usual arithmetic conversions), enough for the mutations and the oracle to tell integer
//! from floating from aggregate values.

use super::*;

/// What expressions of a function may refer to.
pub struct Env<'a> {
    pub prog: &'a Program,
    pub func: &'a Func,
    /// The declarations of the function's statement expressions. Their names are unique in the
    /// function, or shadow a parameter or local with one of the same type, so a name has one
    /// type wherever it is read.
    decls: Vec<SeDecl>,
}

impl<'a> Env<'a> {
    pub fn new(prog: &'a Program, func: &'a Func) -> Self {
        let mut decls = vec![];
        let mut g = func.clone();
        func_exprs(&mut g, Walk::All, &mut |e, _| {
            if let Expr::Block(se) = e {
                decls.extend(se.decls.iter().cloned());
            }
        });
        Env { prog, func, decls }
    }
    pub fn var_ty(&self, name: &str) -> Option<Ty> {
        if let Some(p) = self.func.params.iter().find(|p| p.name == name) {
            return Some(p.ty.clone());
        }
        if let Some(l) = self.func.locals.iter().find(|l| l.name == name) {
            return Some(l.ty.clone());
        }
        if let Some(d) = self.decls.iter().find(|d| d.name == name) {
            return if d.typeof_ {
                self.ty(&d.init)
            } else {
                Some(d.ty.clone())
            };
        }
        if let Some(g) = self.prog.globals.iter().find(|g| g.name == name) {
            return Some(g.ty.clone());
        }
        if self.prog.config.iter().any(|c| c.0 == name) {
            return Some(INT);
        }
        for t in &self.prog.types {
            if let TypeDef::Enum { tag, items } = t {
                if items.iter().any(|i| i.0 == name) {
                    return Some(Ty::Enum(tag.clone()));
                }
            }
        }
        None
    }
    pub fn field_ty(&self, agg: &Ty, field: &str) -> Option<Ty> {
        let tag = match agg {
            Ty::Struct(t) | Ty::Union(t) => t,
            _ => return None,
        };
        self.prog.types.iter().find_map(|t| match t {
            TypeDef::Struct { tag: x, fields, .. } | TypeDef::Union { tag: x, fields }
                if x == tag =>
            {
                fields.iter().find(|f| f.1 == field).map(|f| f.0.clone())
            }
            _ => None,
        })
    }
    fn func_ret(&self, name: &str) -> Option<Ty> {
        if name == self.prog.main.name {
            return Some(self.prog.main.ret.clone());
        }
        self.prog
            .helpers
            .iter()
            .find(|h| h.name == name)
            .map(|h| h.ret.clone())
    }
    fn fnptr_ret(&self, t: &Ty) -> Option<Ty> {
        let Ty::Fn(n) = t else { return None };
        self.prog.types.iter().find_map(|t| match t {
            TypeDef::FnPtr { name, ret, .. } if name == n => Some(ret.clone()),
            _ => None,
        })
    }
    /// The type of `e`, as far as the fuzzer needs it (`None`: unknown).
    pub fn ty(&self, e: &Expr) -> Option<Ty> {
        Some(match e {
            Expr::Int(_) | Expr::Chr(_) => INT,
            Expr::Flt(s) => {
                if s.ends_with('f') {
                    Ty::F32
                } else {
                    Ty::F64
                }
            }
            Expr::Var(v) => {
                if let Some(t) = self.var_ty(v) {
                    t
                } else if self.func_ret(v).is_some() {
                    // a function designator: only ever stored into function pointers
                    Ty::Fn(String::new())
                } else {
                    return None;
                }
            }
            Expr::Un(Un::Not, _) => INT,
            Expr::Un(_, a) => {
                let t = self.ty(a)?;
                if t.is_float() {
                    t
                } else {
                    promote(&t)
                }
            }
            Expr::Bin(op, a, b) => {
                if op.is_cmp() || op.is_logic() {
                    INT
                } else {
                    let (ta, tb) = (self.ty(a)?, self.ty(b)?);
                    if matches!(op, Op::Shl | Op::Shr) {
                        promote(&ta)
                    } else if ta == Ty::F64 || tb == Ty::F64 {
                        Ty::F64
                    } else if ta.is_float() || tb.is_float() {
                        Ty::F32
                    } else if ta.is_int() && tb.is_int() {
                        usual(&promote(&ta), &promote(&tb))
                    } else {
                        return None;
                    }
                }
            }
            Expr::Cond(_, a, b) => {
                let (ta, tb) = (self.ty(a)?, self.ty(b)?);
                if ta.is_float() || tb.is_float() {
                    if ta == Ty::F64 || tb == Ty::F64 {
                        Ty::F64
                    } else {
                        Ty::F32
                    }
                } else if ta.is_int() && tb.is_int() {
                    usual(&promote(&ta), &promote(&tb))
                } else {
                    ta
                }
            }
            Expr::Call(n, _) => self.func_ret(n)?,
            Expr::Lib(n, _) => match n.as_str() {
                "strlen" => Ty::I(IntK::SizeT),
                "fabs" | "sqrt" | "copysign" => Ty::F64,
                // `void *` in C; the generator only assigns it to an `int *`
                "malloc" | "realloc" => Ty::Ptr(Box::new(INT), false),
                "__builtin_bswap32" => Ty::I(IntK::UInt),
                "__builtin_bswap16" => Ty::I(IntK::UShort),
                _ => INT,
            },
            Expr::CallPtr(p, _) => {
                let t = self.ty(p)?;
                self.fnptr_ret(&t)?
            }
            Expr::Index(a, _) => match self.ty(a)? {
                Ty::Arr(t, _) | Ty::Ptr(t, _) => *t,
                _ => return None,
            },
            Expr::Field(a, f) => {
                let t = self.ty(a)?;
                self.field_ty(&t, f)?
            }
            Expr::Deref(a) => match self.ty(a)? {
                Ty::Ptr(t, _) => *t,
                _ => return None,
            },
            Expr::Cast(t, _) => t.clone(),
            Expr::Block(se) => self.ty(se.value.as_ref()?)?,
        })
    }
    pub fn is_int(&self, e: &Expr) -> bool {
        self.ty(e).is_some_and(|t| t.is_int())
    }
    pub fn is_float(&self, e: &Expr) -> bool {
        self.ty(e).is_some_and(|t| t.is_float())
    }
    pub fn is_arith(&self, e: &Expr) -> bool {
        self.ty(e).is_some_and(|t| t.is_arith())
    }
}

/// Integer promotion (enums count as `unsigned`/`int`; the difference does not matter here).
pub fn promote(t: &Ty) -> Ty {
    match t {
        Ty::I(k) if k.bits() < 32 => INT,
        Ty::Enum(_) => Ty::I(IntK::UInt),
        t => t.clone(),
    }
}

fn usual(a: &Ty, b: &Ty) -> Ty {
    let rank = |t: &Ty| match t {
        Ty::I(k) => (k.bits(), !k.signed()),
        _ => (32, false),
    };
    let (ra, rb) = (rank(a), rank(b));
    if ra >= rb {
        a.clone()
    } else {
        b.clone()
    }
}
