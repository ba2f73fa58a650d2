//! Lowering: `lang-c` AST → typed structured IR with explicit side effects.
//!
//! Takes a parsed translation unit and its [`LineMap`]; gives a [`Program`]. Every expression in
//! the output is typed and side-effect free: `x++`, assignments inside expressions, calls,
//! short-circuit operands and `?:` arms with side effects become statements and temporaries
//! (named `$…`, e.g. `f$1` for the first result of a call to `f`), usual arithmetic conversions
//! and integer promotions become explicit casts. Only functions defined in the main file are
//! lowered; a function using something unsupported is recorded in `Program::rejected` with the
//! reason, so one odd function does not stop the analysis of the others.
//!
//! This file holds the lowering context [`Ctx`] (program-level tables, the function being
//! lowered and its statement buffer) and [`lower_unit`]. The lowering itself is split by what it
//! lowers, each part a set of `Ctx` methods: `decl` (file-scope and local declarations, function
//! definitions), `init` (initializers), `stmt` (statements), `expr` (expressions as values and
//! places, calls, side effects) and `ops` (operators and C's conversions).
//!
//! Type resolution (`super::types`) is called from here and calls back: C types contain
//! expressions (array sizes, enumerator values, `typeof`) as expressions contain types (casts,
//! `sizeof`). It sees `Ctx` only through [`TypeEnv`] (the scopes and struct table, [`Tables`],
//! which `Ctx` owns; source positions; and the call-backs `const_int` and `type_of_expr`, at the
//! end of this file), so `types` does not depend on the lowering.

mod decl;
mod expr;
mod init;
mod ops;
mod stmt;
mod written;

use std::collections::{HashMap, HashSet};

use lang_c::ast::*;
use lang_c::span::Node;

use super::consteval::fold;
use super::lines::LineMap;
use super::types::{LayoutGap, Scope, Tables, TypeEnv};
use crate::diag::{Error, Note, NoteKind, Result};
use crate::ir::{
    CType, Expr, FuncType, Function, GlobalId, GlobalVar, Line, Place, Program, Stmt, StmtKind,
    VarId, VarInfo, VarKind,
};

/// Per-function lowering state.
struct FnState {
    name: String,
    vars: Vec<VarInfo>,
    globals: HashMap<GlobalId, VarId>,
    out: Vec<Stmt>,
    temps: HashMap<String, u32>,
    ret: CType,
    line: Line,
    depth: usize,
    /// Names that shadow an outer variable get `#n` suffixes; count per base name.
    shadow: HashMap<String, u32>,
    /// Temporaries holding the result of a function called without a declaration.
    undeclared_results: HashMap<VarId, String>,
    /// The statements being lowered sit in these, innermost last: what a `break`, `continue`
    /// or `return` inside a statement expression would leave (see [`Enclosing`]).
    enclosing: Vec<Enclosing>,
    /// Integer locals with a constant initializer that never change (declared `const`, or
    /// never written: see `written`), by value: what they stand for where C wants a constant
    /// (`const int N = 32; int a[N];` is a VLA of a size known when lowering).
    const_ints: HashMap<VarId, i128>,
    /// The names the function body may write ([`written::written_names`]); `None` if unknown.
    /// A local `int` initialized with a constant and not among them stands for that constant
    /// where C wants one, like a `const` local.
    written: Option<HashSet<String>>,
}

/// A construct the statement being lowered sits in, for the jumps a statement expression may
/// make out of itself.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Enclosing {
    /// A loop's body: `break` and `continue` target it.
    Loop,
    /// A `switch` body: `break` targets it.
    Switch,
    /// A loop's condition or step, lowered into statements the loop re-runs: no jump out of a
    /// statement expression there is modelled (GCC's own binding of such a `break` differs
    /// between the C and C++ front ends).
    Header,
}

/// Lowering context: program-level tables, scopes, and the function being lowered.
struct Ctx<'a> {
    map: &'a LineMap,
    file: &'a str,
    /// Scopes, structs and what type resolution learns; shared with it through [`TypeEnv`].
    tables: Tables,
    globals: Vec<GlobalVar>,
    strings: Vec<Vec<u8>>,
    funcs: HashMap<String, FuncType>,
    func_order: Vec<String>,
    notes: Vec<Note>,
    undeclared_calls: Vec<String>,
    /// Functions called without a declaration whose result is converted to a pointer (passed
    /// as one, assigned to one, cast to one) or to a struct somewhere: the type (`None` when
    /// uses disagree).
    pointer_results: std::collections::BTreeMap<String, Option<CType>>,
    /// See [`Program::void_targets`].
    void_targets: std::collections::BTreeSet<crate::ir::StructId>,
    /// The result types assumed for functions called without a declaration: `void *` where
    /// the result is used as a pointer (an `int` would not hold a pointer on LP64), the struct
    /// a result initializes or is assigned to; the missing header surely declared them so.
    assumed_pointer: std::collections::BTreeMap<String, CType>,
    /// Whether a name used as a value without a declaration becomes an opaque global
    /// ([`GlobalVar::opaque`]): only when project headers are missing, where it was most
    /// likely declared; otherwise it is an error in the code.
    opaque_undeclared: bool,
    /// The opaque globals made so far, by name.
    opaque: HashMap<String, GlobalId>,
    /// Unknown macros next to string literals, by offset in the parsed text (see
    /// `tolerant::Repairs::strings`): a literal spanning one is an unknown string.
    opaque_strings: std::collections::BTreeMap<usize, String>,
    /// Functions defined in headers (see [`Program::in_headers`]).
    in_headers: std::collections::BTreeSet<String>,
    /// Functions declared in system headers (see [`Program::library`]).
    library: std::collections::BTreeSet<String>,
    f: Option<FnState>,
    /// The function being lowered while a constant expression inside it is (`f` is `None`
    /// then, so nothing reads a variable's value): `sizeof` may still ask a local's type.
    suspended: Option<FnState>,
}

/// A lowered expression: a value, a designated object, or nothing (`void`).
enum Val {
    R(Expr),
    L(Place, CType),
    /// A global object in a constant context (global initializers), where there are no VarIds.
    G(GlobalId, CType),
    Void,
}

type Res<T> = Result<T>;

/// `opaque_undeclared`: project headers are missing (see [`GlobalVar::opaque`]).
pub fn lower_unit(
    unit: &TranslationUnit,
    map: &LineMap,
    file: &str,
    opaque_undeclared: bool,
    assumed_tags: std::collections::BTreeSet<String>,
    strings: &std::collections::BTreeMap<usize, String>,
) -> Res<Program> {
    let (mut prog, pointers) = lower_pass(
        unit,
        map,
        file,
        opaque_undeclared,
        (assumed_tags.clone(), strings),
        Default::default(),
    )?;
    // Without the project's headers, a function called undeclared whose result the code uses
    // as a pointer is lowered again as returning `void *` (or the struct it initializes). A
    // function's lowering stops at its first error, so a pass may find further such uses
    // behind one the pass before it failed on: a few passes, until nothing new is found.
    let mut assumed: std::collections::BTreeMap<String, CType> = pointers
        .into_iter()
        .filter_map(|(n, t)| Some((n, t?)))
        .collect();
    if opaque_undeclared && !assumed.is_empty() {
        let mut passes = 0;
        let assumed = loop {
            passes += 1;
            let used = assumed.clone();
            let found;
            (prog, found) = lower_pass(
                unit,
                map,
                file,
                opaque_undeclared,
                (assumed_tags.clone(), strings),
                used.clone(),
            )?;
            for (n, t) in found {
                if let (Some(t), false) = (t, assumed.contains_key(&n)) {
                    assumed.insert(n, t);
                }
            }
            if assumed.len() == used.len() || passes == MAX_RESULT_PASSES {
                break used;
            }
        };
        let (ptrs, recs): (Vec<_>, Vec<_>) = assumed.iter().partition(|(_, t)| t.is_pointer());
        for (names, what) in [
            (ptrs, "pointers: assumed to return `void *`"),
            (
                recs,
                "structs: assumed to return the struct they initialize",
            ),
        ] {
            if !names.is_empty() {
                let names: Vec<&str> = names.iter().map(|(n, _)| n.as_str()).collect();
                prog.notes.push(Note::in_file(
                    NoteKind::Assumption,
                    file,
                    format!(
                        "called without a declaration, their results used as {what}: {}",
                        names.join(", ")
                    ),
                ));
            }
        }
    }
    Ok(prog)
}

/// Most lowerings of a unit that assume results of undeclared functions (see `lower_unit`).
const MAX_RESULT_PASSES: usize = 4;

/// One lowering of the unit; also gives the functions called without a declaration whose
/// results are used as pointers (`assumed_pointer`: those assumed to return `void *`).
fn lower_pass(
    unit: &TranslationUnit,
    map: &LineMap,
    file: &str,
    opaque_undeclared: bool,
    (assumed_tags, opaque_strings): (
        std::collections::BTreeSet<String>,
        &std::collections::BTreeMap<usize, String>,
    ),
    assumed_pointer: std::collections::BTreeMap<String, CType>,
) -> Res<(Program, std::collections::BTreeMap<String, Option<CType>>)> {
    let mut cx = Ctx {
        map,
        file,
        tables: Tables {
            structs: vec![],
            scopes: vec![Scope::default()],
            enum_tags: HashMap::new(),
            volatile_typedefs: Default::default(),
            volatile_structs: Default::default(),
            long_double_lines: vec![],
            assumed_tags,
            assumed_structs: Default::default(),
        },
        globals: vec![],
        strings: vec![],
        funcs: HashMap::new(),
        func_order: vec![],
        notes: vec![],
        undeclared_calls: vec![],
        pointer_results: Default::default(),
        void_targets: Default::default(),
        assumed_pointer,
        opaque_undeclared,
        opaque: HashMap::new(),
        opaque_strings: opaque_strings.clone(),
        in_headers: Default::default(),
        library: Default::default(),
        f: None,
        suspended: None,
    };
    let mut functions = vec![];
    let mut rejected = vec![];
    let mut rejected_lines = std::collections::BTreeMap::new();
    for ext in &unit.0 {
        match &ext.node {
            ExternalDeclaration::Declaration(d) => {
                if let Err(e) = cx.file_declaration(d) {
                    // A type or object the file cannot define (e.g. an array sized by a macro
                    // of a missing header) is skipped: its names stay undeclared, so every
                    // function using them is rejected. Functions are never skipped: a call
                    // would then be assumed to return `int`.
                    let declares_function = d.node.declarators.iter().any(|i| {
                        i.node.declarator.node.derived.iter().any(|x| {
                            matches!(
                                x.node,
                                DerivedDeclarator::Function(_) | DerivedDeclarator::KRFunction(_)
                            )
                        })
                    });
                    if declares_function {
                        return Err(e);
                    }
                    cx.notes.push(Note::at(
                        NoteKind::Assumption,
                        file,
                        map.line(d.span.start),
                        format!("declaration skipped, its names stay undeclared: {}", e.msg),
                    ));
                }
            }
            ExternalDeclaration::StaticAssert(_) => {}
            ExternalDeclaration::FunctionDefinition(fd) => {
                let in_main = map.is_main(fd.span.start);
                match cx.function(fd, in_main) {
                    Ok(f) => functions.push(f),
                    Err(e) => {
                        cx.f = None;
                        cx.tables.scopes.truncate(1);
                        let name = cx.fn_name(fd).unwrap_or_default();
                        if !in_main {
                            cx.in_headers.insert(name.clone());
                        }
                        rejected_lines.insert(
                            name.clone(),
                            (map.line(fd.span.start), map.line(fd.span.end)),
                        );
                        rejected.push((name, e));
                    }
                }
            }
        }
    }
    let defined: Vec<String> = functions
        .iter()
        .map(|f: &Function| f.name.clone())
        .collect();
    let externs = cx
        .func_order
        .iter()
        .filter(|n| !defined.contains(n))
        .map(|n| (n.clone(), cx.funcs[n].clone()))
        .collect();
    let pointers = std::mem::take(&mut cx.pointer_results);
    let prog = Program {
        file: file.to_string(),
        structs: cx.tables.structs,
        globals: cx.globals,
        functions,
        strings: cx.strings,
        externs,
        notes: cx.notes,
        library: cx.library,
        undeclared_calls: cx.undeclared_calls,
        fingerprints: Default::default(),
        rejected_refs: Default::default(),
        rejected,
        rejected_lines,
        in_headers: cx.in_headers,
        long_double_lines: cx.tables.long_double_lines,
        prelude: vec![],
        void_targets: cx.void_targets.into_iter().collect(),
    };
    Ok((prog, pointers))
}

impl Ctx<'_> {
    // ---------------------------------------------------------------- errors, variables, output

    fn err(&self, offset: usize, msg: impl Into<String>) -> Error {
        match self.map.locate(offset) {
            Some((file, line)) => Error::at(file, line, msg),
            None => Error::in_file(self.file, msg),
        }
    }

    fn line(&self, offset: usize) -> Line {
        Line(self.map.line(offset))
    }

    fn fs(&mut self) -> &mut FnState {
        self.f.as_mut().expect("inside a function")
    }

    fn emit(&mut self, kind: StmtKind) {
        if let Some(f) = self.f.as_mut() {
            let line = f.line;
            f.out.push(Stmt { kind, line });
        }
    }

    /// Run `body` with a fresh statement buffer; return its result and the statements it emitted.
    fn buffered<T>(&mut self, body: impl FnOnce(&mut Self) -> Res<T>) -> Res<(T, Vec<Stmt>)> {
        let saved = match self.f.as_mut() {
            Some(f) => std::mem::take(&mut f.out),
            None => vec![],
        };
        let r = body(self);
        let stmts = match self.f.as_mut() {
            Some(f) => std::mem::replace(&mut f.out, saved),
            None => vec![],
        };
        Ok((r?, stmts))
    }

    fn temp(&mut self, hint: &str, ty: CType) -> VarId {
        let f = self.fs();
        let n = f.temps.entry(hint.to_string()).or_insert(0);
        *n += 1;
        let name = format!("{hint}${n}");
        let line = f.line;
        f.vars.push(VarInfo {
            name,
            ty,
            kind: VarKind::Temp,
            addr_taken: false,
            volatile: false,
            line,
        });
        VarId::new(f.vars.len() - 1)
    }

    fn new_var(&mut self, name: &str, ty: CType, kind: VarKind, line: Line) -> VarId {
        let f = self.fs();
        let base = name.to_string();
        let exists = f.vars.iter().any(|v| v.name == base);
        let uname = if exists {
            let n = f.shadow.entry(base.clone()).or_insert(1);
            *n += 1;
            format!("{base}#{n}")
        } else {
            base
        };
        f.vars.push(VarInfo {
            name: uname,
            ty,
            kind,
            addr_taken: false,
            volatile: false,
            line,
        });
        VarId::new(f.vars.len() - 1)
    }

    fn global_var(&mut self, g: GlobalId) -> VarId {
        if let Some(v) = self.f.as_ref().and_then(|f| f.globals.get(&g)) {
            return *v;
        }
        let gv = &self.globals[g.index()];
        let (name, ty, line, volatile) = (gv.name.clone(), gv.ty.clone(), gv.line, gv.is_volatile);
        let f = self.fs();
        f.vars.push(VarInfo {
            name,
            ty,
            kind: VarKind::Global(g),
            addr_taken: false,
            volatile,
            line,
        });
        let v = VarId::new(f.vars.len() - 1);
        f.globals.insert(g, v);
        v
    }

    fn var_ty(&self, v: VarId) -> CType {
        self.f.as_ref().expect("function").vars[v.index()]
            .ty
            .clone()
    }

    fn mark_addr_taken(&mut self, p: &Place) {
        if let (Some(v), Some(f)) = (p.root_var(), self.f.as_mut()) {
            f.vars[v.index()].addr_taken = true;
        }
    }

    /// An error when `t` holds a record whose size is unknown (see `Tables::assumed_structs`):
    /// `what` (`sizeof` in a constant expression, `offsetof`, `_Alignof`) would depend on the
    /// members no code of the file names.
    fn known_layout(&self, t: &CType, off: usize, what: &str) -> Res<()> {
        match self.tables.unknown_layout(t) {
            Some(gap) => {
                let e = self.err(off, format!("{what} of `{}`, {}", gap.name(), gap.why()));
                // A missing header's record: configuring the file would help.
                Err(match gap {
                    LayoutGap::Assumed(_) => e.with_kind(crate::diag::ErrorKind::Undeclared),
                    LayoutGap::Bitfields(_) => e,
                })
            }
            None => Ok(()),
        }
    }

    /// An error when a pointer converts between an assumed record and another non-void
    /// pointee: what the record's members would then overlap depends on its real layout.
    fn known_overlap(&self, from: &CType, to: &CType, off: usize) -> Res<()> {
        let (CType::Ptr(a), CType::Ptr(b)) = (from, to) else {
            return Ok(());
        };
        if a == b || **a == CType::Void || **b == CType::Void {
            return Ok(());
        }
        for t in [a, b] {
            self.known_layout(t, off, "a pointer conversion to or from a pointer")?;
        }
        Ok(())
    }

    fn structs_complete(&self, t: &CType) -> bool {
        match t {
            CType::Struct(s) => self.tables.structs[s.index()].complete,
            _ => true,
        }
    }
}

/// Type resolution's view of the lowering: the tables, source positions, and the expressions a
/// type can contain, lowered and folded (array sizes, enumerators) or only typed (`typeof`).
impl TypeEnv for Ctx<'_> {
    fn tables(&self) -> &Tables {
        &self.tables
    }

    fn tables_mut(&mut self) -> &mut Tables {
        &mut self.tables
    }

    fn line_map(&self) -> &LineMap {
        self.map
    }

    fn err(&self, offset: usize, msg: impl Into<String>) -> Error {
        Ctx::err(self, offset, msg)
    }

    fn const_int(&mut self, e: &Node<Expression>) -> Result<i128> {
        let x = self.const_expr(e)?;
        fold(&x).ok_or_else(|| self.err(e.span.start, "expression is not an integer constant"))
    }

    /// Type of an expression without keeping its side effects (`sizeof e`, `typeof(e)`).
    fn type_of_expr(&mut self, e: &Node<Expression>) -> Result<CType> {
        if self.f.is_none() {
            // Inside a function's constant expression (`char x[sizeof w]`): the function's
            // locals have types, and asking one changes nothing (see below).
            if self.suspended.is_some() {
                self.f = self.suspended.take();
                let r = self.type_of_expr(e);
                self.suspended = self.f.take();
                return r;
            }
            return self.const_expr_val(e);
        }
        // The operand is not evaluated: what lowering it added to the function goes, and so do
        // the maps that could name those variables (a global first read here must not keep a
        // variable that a later declaration reuses).
        let saved = self.f.as_ref().map(|f| {
            (
                f.vars.len(),
                f.temps.clone(),
                f.globals.clone(),
                f.shadow.clone(),
            )
        });
        let r = self.buffered(|cx| cx.expr(e));
        if let (Some((n, temps, globals, shadow)), Some(f)) = (saved, self.f.as_mut()) {
            f.vars.truncate(n);
            f.temps = temps;
            f.globals = globals;
            f.shadow = shadow;
        }
        let (v, _) = r?;
        Ok(match v {
            Val::R(x) => x.ty,
            Val::L(_, t) | Val::G(_, t) => t,
            Val::Void => CType::Void,
        })
    }
}
