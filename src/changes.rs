//! Which functions changed between two versions of a program, and why.
//!
//! Takes the GCL forms of an old and a new program; gives, per function, whether its own code
//! changed, which globals' declarations changed, each version's call graph, and the functions
//! whose behaviour may have changed although their text did not. It sits between `gcl` and
//! `correlate`: `diff` decides from it which functions to analyse and which are `unchanged`,
//! `inline` which calls to inline.
//!
//! What a function can observe is more than its text: the globals it reads (file statics and
//! static locals included, with their initializers), everything its callees can observe, and
//! every function it may reach through a function pointer. So a function is *changed* when
//! * its behaviour key differs ([`function_key`]: the listing without lines, every variable's
//!   type, and the layout of every struct it touches, structs named by order of first use so a
//!   renamed tag is no change), or it exists in one version only;
//! * it refers to a global whose declaration differs ([`global_key`]: type, initializer,
//!   linkage, qualifiers), directly or through the initializer of a global it refers to;
//! * it calls a changed function directly, or makes an indirect call while some function whose
//!   address is taken anywhere in the file (code or initializers) changed.
//!
//! This is the one notion of "same function" in dizy.

use std::collections::{BTreeMap, BTreeSet};

use crate::gcl::{GclFunction, GclProgram, InstrKind};
use crate::ir::{CType, Callee, Expr, ExprKind, GlobalVar, Program, StructId, VarKind};

/// Calls of one version: direct edges, and indirect calls resolved conservatively to every
/// function whose address is taken somewhere in the program.
#[derive(Clone, Debug, Default)]
pub struct CallGraph {
    direct: BTreeMap<String, BTreeSet<String>>,
    indirect_callers: BTreeSet<String>,
    address_taken: BTreeSet<String>,
}

impl CallGraph {
    pub fn new(p: &GclProgram) -> CallGraph {
        let mut g = CallGraph::default();
        let note_addr = |e: &Expr, taken: &mut BTreeSet<String>| {
            if let ExprKind::FuncAddr(n) = &e.kind {
                taken.insert(n.clone());
            }
        };
        for gv in &p.program.globals {
            for (_, _, e) in &gv.init {
                e.walk(&mut |x| note_addr(x, &mut g.address_taken));
            }
        }
        for f in &p.functions {
            let callees = g.direct.entry(f.name.clone()).or_default();
            for ins in &f.instrs {
                if let InstrKind::Call { callee, .. } = &ins.kind {
                    match callee {
                        Callee::Direct(n) => {
                            callees.insert(n.clone());
                        }
                        Callee::Indirect(_) => {
                            g.indirect_callers.insert(f.name.clone());
                        }
                    }
                }
                ins.kind
                    .walk_exprs(&mut |x| note_addr(x, &mut g.address_taken));
            }
        }
        g
    }

    /// Functions `f` may call: its direct callees, and every address-taken function when it
    /// makes an indirect call.
    pub fn callees(&self, f: &str) -> BTreeSet<String> {
        let mut out = self.direct.get(f).cloned().unwrap_or_default();
        if self.indirect_callers.contains(f) {
            out.extend(self.address_taken.iter().cloned());
        }
        out
    }

    /// Whether `f` makes a call through a function pointer.
    pub fn calls_indirectly(&self, f: &str) -> bool {
        self.indirect_callers.contains(f)
    }

    /// Functions whose address is taken (candidates of every indirect call).
    pub fn address_taken(&self) -> &BTreeSet<String> {
        &self.address_taken
    }

    /// Every function reachable from `f` by one or more calls.
    pub fn reachable(&self, f: &str) -> BTreeSet<String> {
        let mut seen = BTreeSet::new();
        let mut work: Vec<String> = self.callees(f).into_iter().collect();
        while let Some(n) = work.pop() {
            if seen.insert(n.clone()) {
                work.extend(self.callees(&n));
            }
        }
        seen
    }
}

/// The behaviour-relevant text of `f`: its GCL listing without source lines, the name, kind and
/// type of every variable, and the layout of every struct or union it touches. Two functions with
/// the same key compute the same thing from the same state.
pub fn function_key(p: &GclProgram, f: &GclFunction) -> String {
    let mut s = String::new();
    crate::gcl::print_function(&mut s, f, &p.program);
    let mut out: String = s
        .lines()
        .map(|l| l.split_once(':').map_or(l, |x| x.1).trim())
        .collect::<Vec<_>>()
        .join("\n");
    let structs = &p.program.structs;
    let mut used: BTreeSet<StructId> = BTreeSet::new();
    out.push_str("\n-- vars\n");
    for v in &f.func.vars {
        let kind = match v.kind {
            VarKind::Global(g) => format!("global {}", p.program.global(g).name),
            k => format!("{k:?}"),
        };
        out.push_str(&format!(
            "{} {kind} {}{}\n",
            v.name,
            type_key(structs, &v.ty),
            if v.addr_taken { " &" } else { "" }
        ));
        collect_structs(structs, &v.ty, &mut used);
    }
    for ins in &f.instrs {
        ins.kind
            .walk_exprs(&mut |e| collect_structs(structs, &e.ty, &mut used));
    }
    // Struct tags by order of first use, so a tag renamed throughout keeps the key.
    let mut tags: Vec<String> = vec![];
    let mut out = canonical_tags(&out, structs, &mut tags);
    out.push_str("-- structs\n");
    let mut defs: Vec<String> = used
        .iter()
        .filter_map(|s| structs.get(s.index()))
        .filter(|d| !d.name.is_empty())
        .map(|d| {
            let fields: Vec<String> = d
                .fields
                .iter()
                .map(|fl| format!("{}:{}@{}", fl.name, type_key(structs, &fl.ty), fl.offset))
                .collect();
            format!(
                "{} {} {{{}}} size {} align {} {}",
                if d.is_union { "union" } else { "struct" },
                d.name,
                fields.join(","),
                d.size,
                d.align,
                if d.complete { "" } else { "incomplete" }
            )
        })
        .map(|d| canonical_tags(&d, structs, &mut tags))
        .collect();
    defs.sort();
    out.push_str(&defs.join("\n"));
    out
}

/// `text` with each `struct T` / `union T` naming a struct of the program written `struct #k`,
/// `k` the tag's position in `tags` (appended when new), outside string literals. What a
/// function computes does not depend on its structs' tags, only on their layouts (listed with
/// the key); a literal's text is output, so it stays as it is.
fn canonical_tags(text: &str, structs: &[crate::ir::StructDef], tags: &mut Vec<String>) -> String {
    let b = text.as_bytes();
    let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let mut out = String::with_capacity(text.len());
    let (mut i, mut from, mut in_str) = (0, 0, false);
    while i < b.len() {
        if in_str {
            match b[i] {
                b'\\' => i += 1,
                b'"' => in_str = false,
                _ => {}
            }
            i += 1;
            continue;
        }
        if b[i] == b'"' {
            in_str = true;
            i += 1;
            continue;
        }
        let kw = ["struct ", "union "]
            .into_iter()
            .find(|k| text[i..].starts_with(k) && (i == 0 || !ident(b[i - 1])));
        let Some(kw) = kw else {
            i += 1;
            continue;
        };
        let start = i + kw.len();
        let mut end = start;
        while end < b.len() && ident(b[end]) {
            end += 1;
        }
        let name = &text[start..end];
        if !name.is_empty() && structs.iter().any(|d| d.name == name) {
            let k = match tags.iter().position(|t| t == name) {
                Some(k) => k,
                None => {
                    tags.push(name.to_string());
                    tags.len() - 1
                }
            };
            out.push_str(&text[from..start]);
            out.push_str(&format!("#{k}"));
            from = end;
        }
        i = end.max(i + 1);
    }
    out.push_str(&text[from..]);
    out
}

/// Whether `f` of `p` and `g` of `q` are the same function up to their names — the one notion
/// of "same code" ([`function_key`]), for two copies that live under different names (the two
/// versions of a helper inside the correlating program).
pub fn same_function(p: &GclProgram, f: &GclFunction, q: &GclProgram, g: &GclFunction) -> bool {
    let unnamed = |p: &GclProgram, f: &GclFunction| {
        let key = function_key(p, f);
        let (head, rest) = key.split_once('\n').unwrap_or((&key, ""));
        format!("{}\n{rest}", head.replacen(&format!("{}(", f.name), "(", 1))
    };
    unnamed(p, f) == unnamed(q, g)
}

/// Struct ids reachable from `t`, through fields and pointers.
fn collect_structs(structs: &[crate::ir::StructDef], t: &CType, out: &mut BTreeSet<StructId>) {
    match t {
        CType::Ptr(x) | CType::Array(x, _) => collect_structs(structs, x, out),
        CType::Struct(s) if out.insert(*s) => {
            for fl in structs.get(s.index()).map_or(&[][..], |d| &d.fields[..]) {
                collect_structs(structs, &fl.ty, out);
            }
        }
        CType::Func(ft) => {
            collect_structs(structs, &ft.ret, out);
            for p in &ft.params {
                collect_structs(structs, p, out);
            }
        }
        _ => {}
    }
}

/// A type as text that does not depend on the program's struct numbering: named structs by
/// name (their layouts are listed separately), anonymous ones by their fields.
pub fn type_key(structs: &[crate::ir::StructDef], t: &CType) -> String {
    fn go(structs: &[crate::ir::StructDef], t: &CType, depth: usize) -> String {
        match t {
            CType::Void => "void".into(),
            CType::Bool => "_Bool".into(),
            CType::Int { bits, signed } => format!("{}{bits}", if *signed { "i" } else { "u" }),
            CType::Float => "float".into(),
            CType::Double => "double".into(),
            CType::Ptr(x) => format!("*{}", go(structs, x, depth)),
            CType::Array(x, n) => format!("[{}]{}", n.map_or("?".into(), |n| n.to_string()), {
                go(structs, x, depth)
            }),
            CType::Func(ft) => {
                let ps: Vec<String> = ft.params.iter().map(|p| go(structs, p, depth)).collect();
                format!(
                    "fn({}{})->{}",
                    ps.join(","),
                    if ft.variadic { ",..." } else { "" },
                    go(structs, &ft.ret, depth)
                )
            }
            CType::Struct(s) => match structs.get(s.index()) {
                Some(d) if !d.name.is_empty() => {
                    format!("{} {}", if d.is_union { "union" } else { "struct" }, d.name)
                }
                Some(d) if depth < 8 => {
                    let fields: Vec<String> = d
                        .fields
                        .iter()
                        .map(|fl| {
                            format!(
                                "{}:{}@{}",
                                fl.name,
                                go(structs, &fl.ty, depth + 1),
                                fl.offset
                            )
                        })
                        .collect();
                    format!(
                        "{}{{{}}}",
                        if d.is_union { "union" } else { "struct" },
                        fields.join(",")
                    )
                }
                _ => "struct ?".into(),
            },
        }
    }
    go(structs, t, 0)
}

/// The declaration of a global as text: type, linkage, qualifiers and initializer (addresses of
/// other globals and functions by name, string literals by content).
pub fn global_key(p: &Program, g: &GlobalVar) -> String {
    let init: Vec<String> = g
        .init
        .iter()
        .map(|(off, ty, e)| format!("{off}:{}={}", type_key(&p.structs, ty), value_key(p, e)))
        .collect();
    format!(
        "{} {}{}{} = {{{}}}",
        type_key(&p.structs, &g.ty),
        if g.is_static { "static " } else { "" },
        if g.is_extern { "extern " } else { "" },
        if g.is_volatile { "volatile " } else { "" },
        init.join(", ")
    )
}

/// A constant initializer expression as text independent of the program's numbering.
fn value_key(p: &Program, e: &Expr) -> String {
    let ty = type_key(&p.structs, &e.ty);
    match &e.kind {
        ExprKind::Int(v) => format!("{v}:{ty}"),
        ExprKind::Float(f) => format!("{:#x}:{ty}", f.to_bits()),
        ExprKind::Str(s) => format!("{:?}", p.strings.get(s.index())),
        ExprKind::GlobalAddr(g) => format!("&{}", p.global(*g).name),
        ExprKind::FuncAddr(n) => format!("&{n}()"),
        ExprKind::Cast(x) => format!("({ty}){}", value_key(p, x)),
        ExprKind::Unary(op, x) => format!("{op:?}({})", value_key(p, x)),
        ExprKind::Binary(op, a, b) => {
            format!("{op:?}({},{})", value_key(p, a), value_key(p, b))
        }
        ExprKind::Logic(op, a, b) => format!("{op:?}({},{})", value_key(p, a), value_key(p, b)),
        other => format!("{other:?}:{ty}"),
    }
}

/// Globals `f` refers to by name (as variables or by address), and, transitively, the globals
/// those refer to through their initializers.
fn globals_used(p: &GclProgram, f: &GclFunction) -> BTreeSet<String> {
    let mut ids = vec![];
    for v in &f.func.vars {
        if let VarKind::Global(g) = v.kind {
            ids.push(g);
        }
    }
    for ins in &f.instrs {
        ins.kind.walk_exprs(&mut |e| {
            if let ExprKind::GlobalAddr(g) = e.kind {
                ids.push(g);
            }
        });
    }
    let mut out = BTreeSet::new();
    while let Some(g) = ids.pop() {
        let Some(gv) = p.program.globals.get(g.index()) else {
            continue;
        };
        if out.insert(gv.name.clone()) {
            for (_, _, e) in &gv.init {
                e.walk(&mut |x| {
                    if let ExprKind::GlobalAddr(h) = x.kind {
                        ids.push(h);
                    }
                });
            }
        }
    }
    out
}

/// What changed between two programs.
#[derive(Clone, Debug, Default)]
pub struct Changes {
    /// Functions whose own code differs, or that only one version defines.
    pub own: BTreeSet<String>,
    /// Globals (static locals included, as `f.x`) declared differently or in one version only.
    pub globals: BTreeSet<String>,
    /// Functions of the old (new) program whose behaviour may differ: own code, globals,
    /// callees.
    pub old: BTreeSet<String>,
    pub new: BTreeSet<String>,
    /// Why a function whose own code is the same counts as changed, per version.
    pub why: BTreeMap<String, Vec<String>>,
    pub old_calls: CallGraph,
    pub new_calls: CallGraph,
}

impl Changes {
    /// Whether `f`'s behaviour may differ between the versions.
    pub fn changed(&self, f: &str) -> bool {
        self.old.contains(f) || self.new.contains(f)
    }

    /// Functions reachable from `f` (in either version) whose own code changed.
    pub fn changed_callees(&self, f: &str) -> Vec<String> {
        let mut out: BTreeSet<String> = BTreeSet::new();
        for g in [&self.old_calls, &self.new_calls] {
            out.extend(
                g.reachable(f)
                    .into_iter()
                    .filter(|n| n != f && self.own.contains(n)),
            );
        }
        out.into_iter().collect()
    }
}

/// Compare two programs.
pub fn changes(po: &GclProgram, pn: &GclProgram) -> Changes {
    let keys = |p: &GclProgram| -> BTreeMap<String, String> {
        p.functions
            .iter()
            .map(|f| (f.name.clone(), function_key(p, f)))
            .collect()
    };
    let own = differing(&keys(po), &keys(pn));
    let gkeys = |p: &GclProgram| -> BTreeMap<String, String> {
        p.program
            .globals
            .iter()
            .map(|g| (g.name.clone(), global_key(&p.program, g)))
            .collect()
    };
    let globals = differing(&gkeys(po), &gkeys(pn));
    let mut why: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let old_calls = CallGraph::new(po);
    let new_calls = CallGraph::new(pn);
    // Functions the frontend rejected are known only by their tokens: changed when their text
    // differs, or when they name something that changed (a fixpoint with the lowered ones).
    let mut own = own;
    let (mut old, mut new);
    loop {
        old = closure(po, &old_calls, &own, &globals, &mut why);
        new = closure(pn, &new_calls, &own, &globals, &mut why);
        let before = own.len();
        let lowered: BTreeSet<String> = old.union(&new).cloned().collect();
        let taken = [&old_calls, &new_calls];
        own.extend(rejected_changed(po, pn, &taken, &lowered, &own, &mut why));
        if own.len() == before {
            break;
        }
    }
    Changes {
        own,
        globals,
        old,
        new,
        why,
        old_calls,
        new_calls,
    }
}

/// Functions rejected by the frontend (in either version) that may behave differently: their
/// fingerprints differ, one version does not reject (or define) them, or their tokens name a
/// function in `changed`, or they call through a pointer (or an unknown name) while a changed
/// function may be reached that way (its address is taken, or a rejected function names it).
fn rejected_changed(
    po: &GclProgram,
    pn: &GclProgram,
    calls: &[&CallGraph; 2],
    lowered: &BTreeSet<String>,
    own: &BTreeSet<String>,
    why: &mut BTreeMap<String, Vec<String>>,
) -> BTreeSet<String> {
    let rejected = |p: &GclProgram| -> BTreeSet<String> {
        p.program.rejected.iter().map(|(n, _)| n.clone()).collect()
    };
    let names: BTreeSet<String> = rejected(po).union(&rejected(pn)).cloned().collect();
    let defined = |p: &GclProgram, f: &str| {
        p.function(f).is_some() || p.program.rejected.iter().any(|(n, _)| n == f)
    };
    let declared = |f: &str| {
        [po, pn]
            .iter()
            .any(|p| defined(p, f) || p.program.externs.iter().any(|(n, _)| n == f))
    };
    let changed = |f: &str| lowered.contains(f) || own.contains(f);
    // Functions a pointer may reach: address taken in lowered code, or named by a rejected
    // function (whose uses are not known).
    let mut taken: BTreeSet<&str> = calls
        .iter()
        .flat_map(|c| c.address_taken.iter().map(String::as_str))
        .collect();
    for p in [po, pn] {
        for refs in p.program.rejected_refs.values() {
            taken.extend(
                refs.uncalled
                    .iter()
                    .filter(|f| defined(po, f) || defined(pn, f))
                    .map(String::as_str),
            );
        }
    }
    let reachable_by_pointer = taken.iter().find(|f| changed(f)).map(|f| f.to_string());
    let mut out = BTreeSet::new();
    for r in names.iter().filter(|r| !own.contains(*r)) {
        let fp = |p: &GclProgram| p.program.fingerprints.get(r.as_str()).copied();
        let reason = match (fp(po), fp(pn), pn.program.rejected_refs.get(r.as_str())) {
            (Some(a), Some(b), _) if a != b => Some("has a changed text".to_string()),
            (Some(_), Some(_), Some(refs)) => {
                // A called global is a pointer. A name only ever called is an unknown function,
                // under the assumption the report states for all code (equal arguments, equal
                // effects); one also used as a value (`fp = p->func; fp (x)`) is a pointer.
                let global = |c: &str| {
                    [po, pn]
                        .iter()
                        .any(|p| p.program.globals.iter().any(|g| g.name == c))
                };
                let unknown_call = refs.called.iter().any(|c| {
                    global(c)
                        || (!declared(c)
                            && !crate::frontend::is_c_keyword(c)
                            && refs.uncalled.contains(c))
                });
                if let Some(f) = refs.idents.iter().find(|f| *f != r && changed(f)) {
                    Some(format!("refers to `{f}`, which changed"))
                } else {
                    reachable_by_pointer
                        .as_ref()
                        .filter(|_| refs.computed_call || unknown_call)
                        .map(|f| {
                            format!("calls through a pointer, which may reach `{f}` (changed)")
                        })
                }
            }
            _ => Some("is not rejected the same way in both versions".to_string()),
        };
        if let Some(reason) = reason {
            let v = why.entry(r.clone()).or_default();
            if !v.contains(&reason) {
                v.push(reason);
            }
            out.insert(r.clone());
        }
    }
    out
}

/// Names whose key differs between the two maps, or that only one has.
fn differing(a: &BTreeMap<String, String>, b: &BTreeMap<String, String>) -> BTreeSet<String> {
    let mut out: BTreeSet<String> = a
        .iter()
        .filter(|(n, k)| b.get(*n) != Some(k))
        .map(|(n, _)| n.clone())
        .collect();
    out.extend(b.keys().filter(|n| !a.contains_key(*n)).cloned());
    out
}

/// The changed functions of one version: own code, changed globals, then callers to a fixpoint.
fn closure(
    p: &GclProgram,
    calls: &CallGraph,
    own: &BTreeSet<String>,
    globals: &BTreeSet<String>,
    why: &mut BTreeMap<String, Vec<String>>,
) -> BTreeSet<String> {
    let mut changed: BTreeSet<String> = BTreeSet::new();
    let note = |why: &mut BTreeMap<String, Vec<String>>, f: &str, text: String| {
        let v = why.entry(f.to_string()).or_default();
        if !v.contains(&text) {
            v.push(text);
        }
    };
    // Changed functions this version does not lower (rejected, or defined only in the other):
    // their callers change too.
    changed.extend(own.iter().filter(|n| p.function(n).is_none()).cloned());
    for f in &p.functions {
        if own.contains(&f.name) {
            changed.insert(f.name.clone());
            continue;
        }
        for g in globals_used(p, f).intersection(globals) {
            changed.insert(f.name.clone());
            note(
                why,
                &f.name,
                format!("refers to `{g}`, whose declaration or initializer changed"),
            );
        }
    }
    loop {
        let mut grew = false;
        for f in &p.functions {
            if changed.contains(&f.name) {
                continue;
            }
            let direct = calls.direct.get(&f.name);
            let hit = calls
                .callees(&f.name)
                .into_iter()
                .find(|c| changed.contains(c));
            if let Some(c) = hit {
                let header = if p.program.in_headers.contains(&c) {
                    " (defined in a header)"
                } else {
                    ""
                };
                let how = if direct.is_some_and(|d| d.contains(&c)) {
                    format!("calls `{c}`{header}, which changed")
                } else {
                    format!("may call `{c}` (changed) through a function pointer")
                };
                note(why, &f.name, how);
                changed.insert(f.name.clone());
                grew = true;
            }
        }
        if !grew {
            return changed;
        }
    }
}
