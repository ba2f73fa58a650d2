//! Records for types a missing header would have defined.
//!
//! Takes the tolerant parse of an unconfigured file (see `super::tolerant`), in which an unknown
//! type name such as `gs_memory_t` was given `long` and a `struct S` defined only in a missing
//! header is incomplete, so that `mem->gs_lib_ctx`, `png_ptr->flags` (a pointer typedef) or
//! `p->br_.eos_` cannot be lowered. Gives [`Shapes`]: what the file's own uses say of each such
//! type — a record (or a pointer to one, or a pointer to scalars) and the members used on it —
//! and from them the declarations ([`Layout`]) the tolerant parse puts in its assumed prelude
//! before parsing again. Sits between the tolerant parse and the lowering; the diff driver
//! merges the shapes of both versions first ([`Shapes::merge`]), so that both get one layout
//! and memory at equal addresses means the same member in both.
//!
//! The inference is syntactic and deliberately small: a variable's type is known when its
//! declaration names the type (directly, through a typedef of the file, or as a member of such
//! a record); an expression's type follows identifiers, `->`, `.`, `*`, `&`, `[]`, casts,
//! assignments, `?:` and calls of functions declared in the file; a member assigned to or from
//! a variable of a missing type has that type. It also finds statements `T *p;` of two
//! undeclared names, declarations that parsed as products ([`Inferred::type_names`]). What it
//! assumes is stated in the report: members are distinct, non-overlapping fields (scalars
//! `long`, called members `int (*)()`); members no code of the file uses are not there, so the
//! lowering makes their size an opaque constant and rejects what depends on the full layout
//! (copies of whole records, pointer conversions to or from them). Union tags are left alone
//! (their members overlap). An identifier the file never declares but uses as a record
//! (`funcs.decode`, `ctx->n`) is an `extern` object of such a record.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use lang_c::ast::*;
use lang_c::span::{Node, Span};
use lang_c::visit::{self, Visit};

/// A type whose definition is missing.
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
enum Key {
    /// An unknown typedef name (given `long` by the tolerant parse).
    Name(String),
    /// A struct tag the file uses but never defines.
    Tag(String),
    /// The type of member `f` of the record of another key (the owner: the record that key's
    /// values are, or point to). Keyed by owner, as two records' members of one name (libwebp's
    /// `WebPDecBuffer.u`, a union, and `WebPYUVABuffer.u`, a pointer) are unrelated.
    Member(Box<Key>, String),
    /// The type of an object the file uses but never declares (`funcs.decode`, `glob->n`):
    /// a missing header's `extern` variable (or a macro standing for one).
    Object(String),
}

/// What the uses of one type said: how many pointer levels lie between it and a record (or an
/// element), counted per level, and the members used on the record.
#[derive(Clone, Default, PartialEq, Eq, Debug)]
struct Uses {
    /// Pointer levels over a record → number of member accesses saying so.
    record: BTreeMap<u8, u32>,
    /// Pointer levels over scalar elements (subscripts) → count.
    elements: BTreeMap<u8, u32>,
    members: BTreeSet<String>,
}

/// The shapes inferred for the missing types of one file (or of both versions, merged).
#[derive(Clone, Default, PartialEq, Eq, Debug)]
pub struct Shapes {
    uses: BTreeMap<Key, Uses>,
    /// Members assigned to or from a variable of a missing type (`control = &core->permit`):
    /// member → (that type, pointer levels the member has over it) → count.
    aliases: BTreeMap<Key, BTreeMap<(Key, i32), u32>>,
    /// Members converted to or from a pointer to a type the file defines
    /// (`(struct rar *)(a->format->data)`): the missing header's `void *`, unless other uses
    /// say what they are.
    void_pointers: BTreeSet<Key>,
    /// Members called (`funcs.decode(x)`, `(*p->fn)(x)`): function pointers.
    called: BTreeSet<Key>,
    /// Pairs of members assigned one to the other (`p->background_1 = p->background`): of one
    /// type, so one whose uses say nothing takes the other's.
    same_type: BTreeSet<(Key, Key)>,
    /// Struct tags the file names but never defines (`struct X *p`): a missing header's typedef
    /// of the same name is most likely that struct (`typedef struct X X;`).
    tags: BTreeSet<String>,
    /// Unknown typedef names of variables called (`WebPFilterFunc f; … f (data, w)`): function
    /// pointer types.
    called_names: BTreeSet<String>,
    /// Undeclared objects whose elements are assigned to or from a variable of an unknown
    /// typedef (`f = WebPFilters[i]`): (object, typedef name). Arrays of function pointers when
    /// that typedef is called.
    object_elements: BTreeSet<(String, String)>,
    /// Two unknown typedef names of one type, one with `l` more pointer levels (`(gss_buffer_t)
    /// &empty_message` with `gss_buffer_desc empty_message`: `gss_buffer_t` is
    /// `gss_buffer_desc *`): (that name, the other, l ≥ 0).
    name_aliases: BTreeSet<(String, String, i32)>,
}

/// The assumed declarations of a [`Shapes`] for one file.
#[derive(Clone, Default, Debug)]
pub(super) struct Layout {
    /// Forward declarations and record definitions, for the prelude.
    pub decls: String,
    /// Unknown typedef names → their type (`struct __dizy_T *`).
    pub typedefs: BTreeMap<String, String>,
    /// Tags of the records defined here (the lowering marks them as of unknown full layout).
    pub tags: BTreeSet<String>,
    /// `struct S { a, b }` per record, for the report.
    pub described: Vec<String>,
}

/// The type assumed for a function pointer whose type a missing header defines.
const FUNCTION_POINTER: &str = "__typeof__(int (*)())";

/// Deepest pointer level inferred (`T **`).
const MAX_LEVEL: i32 = 2;

impl Shapes {
    /// Both versions' uses: one layout for both.
    pub fn merge(&mut self, other: &Shapes) {
        for (k, u) in &other.uses {
            let e = self.uses.entry(k.clone()).or_default();
            for (l, n) in &u.record {
                *e.record.entry(*l).or_default() += n;
            }
            for (l, n) in &u.elements {
                *e.elements.entry(*l).or_default() += n;
            }
            e.members.extend(u.members.iter().cloned());
        }
        for (f, ts) in &other.aliases {
            let e = self.aliases.entry(f.clone()).or_default();
            for (t, n) in ts {
                *e.entry(t.clone()).or_default() += n;
            }
        }
        self.void_pointers
            .extend(other.void_pointers.iter().cloned());
        self.called.extend(other.called.iter().cloned());
        self.called_names.extend(other.called_names.iter().cloned());
        self.object_elements
            .extend(other.object_elements.iter().cloned());
        self.name_aliases.extend(other.name_aliases.iter().cloned());
        self.same_type.extend(other.same_type.iter().cloned());
        self.tags.extend(other.tags.iter().cloned());
    }

    /// The declarations for a file whose guessed typedef names are `guessed` and whose defined
    /// struct tags are `defined` (a tag defined there is not redefined).
    pub(super) fn layout(
        &self,
        guessed: &BTreeSet<String>,
        named: &BTreeMap<String, String>,
        defined: &HashSet<String>,
    ) -> Layout {
        // Each key's level and kind: the commonest level of its record uses, else of its
        // element uses.
        let level = |u: &Uses| -> Option<(u8, bool)> {
            let best = |m: &BTreeMap<u8, u32>| {
                m.iter()
                    .max_by_key(|(l, n)| (**n, -i32::from(**l)))
                    .map(|(l, _)| *l)
            };
            match best(&u.record) {
                Some(l) => Some((l, true)),
                None => best(&u.elements).map(|l| (l, false)),
            }
        };
        let record_name = |k: &Key| match k {
            Key::Tag(t) => t.clone(),
            k => format!("__dizy_{}", k.path()),
        };
        let usable = |k: &Key| match k {
            Key::Name(n) => guessed.contains(n) || named.contains_key(n),
            Key::Tag(t) => !defined.contains(t),
            Key::Member(..) | Key::Object(_) => true,
        };
        // `typedef struct X X;` in the missing header, with `struct X` named in the file: the
        // typedef name's uses are the tag's (one record, so that the two spellings convert).
        let same_tag: BTreeSet<String> = self
            .tags
            .iter()
            .filter(|n| !defined.contains(*n) && guessed.contains(*n) && !named.contains_key(*n))
            .filter(|n| {
                self.uses
                    .get(&Key::Name(n.to_string()))
                    .and_then(level)
                    .is_none_or(|(l, rec)| l == 0 && rec)
            })
            .cloned()
            .collect();
        // A member that holds a variable's missing type (or pointers to it) has that type
        // (`redirect`): its own uses are uses of that type, and so are the uses of its members.
        // Keys are made canonical (`Canon`) with the redirections found so far, until no new
        // one is found (each round resolves one more level of nested members).
        // A typedef name that is another's type with pointer levels added: its uses are that
        // name's (one record), followed to the end of a chain, never round a cycle.
        let mut names: BTreeMap<String, (String, i32)> = BTreeMap::new();
        for (a, b, l) in &self.name_aliases {
            let ok = |n: &String| guessed.contains(n) && !named.contains_key(n);
            if !ok(a) || !ok(b) || names.contains_key(a) {
                continue;
            }
            let (mut to, mut lv) = (b.clone(), *l);
            while let Some((t, m)) = names.get(&to) {
                (to, lv) = (t.clone(), lv + m);
            }
            if to != *a && lv <= MAX_LEVEL {
                names.insert(a.clone(), (to, lv));
            }
        }
        let mut canon = Canon {
            same_tag: &same_tag,
            names: &names,
            redirect: BTreeMap::new(),
        };
        for _ in 0..8 {
            let mut aliases: BTreeMap<Key, BTreeMap<(Key, i32), u32>> = BTreeMap::new();
            for (m, ts) in &self.aliases {
                let e = aliases.entry(canon.member(m)).or_default();
                for ((k, l), n) in ts {
                    // A typedef name that is another's pointer: that name, levels added.
                    let l = match k {
                        Key::Name(x) => l + names.get(x).map_or(0, |(_, m)| *m),
                        _ => *l,
                    };
                    *e.entry((canon.owner(k), l)).or_default() += n;
                }
            }
            let mut redirect = BTreeMap::new();
            for (m, ts) in aliases {
                let Some(((k, l), _)) = ts.into_iter().max_by_key(|(_, n)| *n) else {
                    continue;
                };
                // Negative: the member holds what the type points to (`&t->store` passed
                // as a `Store` that is `struct … *`).
                if usable(&k) && (-MAX_LEVEL..=MAX_LEVEL).contains(&l) {
                    redirect.insert(m, (k, l));
                }
            }
            // Members assigned one to the other (`png_ptr->background_1 =
            // png_ptr->background`) are of one type: one record. The one with a type of its
            // own is the target, else the smaller key (so that no chain is a cycle).
            for (a, b) in &self.same_type {
                let (a, b) = (canon.member(a), canon.member(b));
                let (from, to) = match (redirect.contains_key(&a), redirect.contains_key(&b)) {
                    _ if a == b => continue,
                    (true, true) => continue,
                    (true, false) => (b, a),
                    (false, true) => (a, b),
                    (false, false) => (a.clone().max(b.clone()), a.min(b)),
                };
                redirect.entry(from).or_insert((to, 0));
            }
            if redirect == canon.redirect {
                break;
            }
            canon.redirect = redirect;
        }
        let canon = canon;
        let mut uses: BTreeMap<Key, Uses> = BTreeMap::new();
        for (k, u) in &self.uses {
            let (k, shift) = match k {
                Key::Member(..) => {
                    let m = canon.member(k);
                    match canon.resolve(&m) {
                        Some((t, l)) => (t, l),
                        None => (m, 0),
                    }
                }
                Key::Name(n) if names.contains_key(n) => {
                    let (t, l) = &names[n];
                    (canon.owner(&Key::Name(t.clone())), *l)
                }
                k => (canon.owner(k), 0),
            };
            let e = uses.entry(k).or_default();
            let shifted = |n: &u8| {
                u8::try_from(i32::from(*n) - shift)
                    .ok()
                    .filter(|n| i32::from(*n) <= MAX_LEVEL)
            };
            for (n, c) in &u.record {
                if let Some(n) = shifted(n) {
                    *e.record.entry(n).or_default() += c;
                }
            }
            for (n, c) in &u.elements {
                if let Some(n) = shifted(n) {
                    *e.elements.entry(n).or_default() += c;
                }
            }
            e.members.extend(u.members.iter().cloned());
        }
        let member_set =
            |s: &BTreeSet<Key>| -> BTreeSet<Key> { s.iter().map(|m| canon.member(m)).collect() };
        let void_pointers = member_set(&self.void_pointers);
        let called = member_set(&self.called);
        let same_type: BTreeSet<(Key, Key)> = self
            .same_type
            .iter()
            .map(|(a, b)| (canon.member(a), canon.member(b)))
            .filter(|(a, b)| a != b)
            .collect();
        let uses = &uses;
        let mut shape: BTreeMap<&Key, (u8, bool)> = BTreeMap::new();
        for (k, u) in uses {
            if matches!(k, Key::Name(n) if named.contains_key(n)) {
                continue;
            }
            if let Some((l, rec)) = level(u) {
                // A tag is the record itself; a record with no member is nothing to define; an
                // object is (a pointer to) a record, or an array (`kAlphabetSize[j]`).
                let ok = match k {
                    Key::Tag(_) => rec && l == 0,
                    Key::Object(_) => (rec && !u.members.is_empty()) || (!rec && l >= 1),
                    _ => !rec || !u.members.is_empty(),
                };
                if ok && usable(k) {
                    shape.insert(k, (l, rec));
                }
            }
        }
        // Records embedded by value must be defined before their container; a cycle of them
        // cannot be laid out: its members fall back to `long`.
        // A member's type (`m` a canonical member key): the key whose record (or scalar) it
        // holds, with pointer levels.
        let own_ty = |m: &Key, shape: &BTreeMap<&Key, (u8, bool)>| -> Option<(Key, u8, bool)> {
            match canon.resolve(m) {
                Some((k, l)) => {
                    let (lk, rec) = shape.get(&k).map_or((0, false), |(lk, rec)| (*lk, *rec));
                    let l = u8::try_from(i32::from(lk) + l).ok()?;
                    Some((k, l, rec))
                }
                None => shape.get(m).map(|(l, rec)| (m.clone(), *l, *rec)),
            }
        };
        // A member whose own uses say nothing, assigned to or from one whose uses do, has
        // that one's type.
        let member_ty = |m: &Key, shape: &BTreeMap<&Key, (u8, bool)>| -> Option<(Key, u8, bool)> {
            own_ty(m, shape).or_else(|| {
                same_type.iter().find_map(|(a, b)| {
                    let other = match (a == m, b == m) {
                        (true, _) => b,
                        (_, true) => a,
                        _ => return None,
                    };
                    own_ty(other, shape)
                })
            })
        };
        let member = |k: &Key, f: &str| Key::Member(Box::new(k.clone()), f.to_string());
        let records: Vec<&Key> = shape
            .iter()
            .filter(|(_, (_, rec))| *rec)
            .map(|(k, _)| *k)
            .collect();
        let embeds = |k: &Key| -> Vec<Key> {
            uses[k]
                .members
                .iter()
                .filter_map(|f| match member_ty(&member(k, f), &shape) {
                    Some((r, 0, true)) => Some(r),
                    _ => None,
                })
                .collect()
        };
        let mut order: Vec<&Key> = vec![];
        let mut state: HashMap<&Key, u8> = HashMap::new(); // 1 visiting, 2 done
        let mut cyclic: HashSet<Key> = HashSet::new();
        fn visit<'a>(
            k: &'a Key,
            records: &[&'a Key],
            embeds: &dyn Fn(&Key) -> Vec<Key>,
            state: &mut HashMap<&'a Key, u8>,
            order: &mut Vec<&'a Key>,
            cyclic: &mut HashSet<Key>,
        ) {
            state.insert(k, 1);
            for e in embeds(k) {
                let Some(e) = records.iter().find(|r| ***r == e) else {
                    continue;
                };
                match state.get(*e) {
                    Some(1) => {
                        cyclic.insert((*e).clone());
                    }
                    Some(_) => {}
                    None => visit(e, records, embeds, state, order, cyclic),
                }
            }
            state.insert(k, 2);
            order.push(k);
        }
        for k in &records {
            if !state.contains_key(*k) {
                visit(k, &records, &embeds, &mut state, &mut order, &mut cyclic);
            }
        }
        let mut out = Layout::default();
        for n in &same_tag {
            out.typedefs.insert(n.clone(), format!("struct {n}"));
        }
        for k in &records {
            out.decls.push_str(&format!("struct {};\n", record_name(k)));
        }
        for (k, (l, rec)) in &shape {
            if let Key::Name(n) = k {
                let base = if *rec {
                    format!("struct {}", record_name(k))
                } else {
                    "long".to_string()
                };
                out.typedefs.insert(n.clone(), spelled(base, *l));
            }
        }
        // A typedef name that is another's with pointers added.
        for (a, (b, l)) in &names {
            let owner = canon.owner(&Key::Name(b.clone()));
            if let Some((lb, rec)) = shape.get(&owner) {
                let base = match rec {
                    true => format!("struct {}", record_name(&owner)),
                    false => "long".to_string(),
                };
                if let Ok(n) = u8::try_from(i32::from(*lb) + l) {
                    out.typedefs.insert(a.clone(), spelled(base, n));
                }
            }
        }
        // A typedef whose variables are called and never used otherwise: a function pointer,
        // its result `int`, as a call without a declaration.
        for n in &self.called_names {
            let k = Key::Name(n.clone());
            if usable(&k) && !shape.contains_key(&k) && !named.contains_key(n) {
                out.typedefs.insert(n.clone(), FUNCTION_POINTER.to_string());
            }
        }
        for k in order {
            let name = record_name(k);
            let mut body = String::new();
            let mut members = vec![];
            for f in &uses[k].members {
                let m = member(k, f);
                let ty = match member_ty(&m, &shape) {
                    // A function pointer; its result `int`, as a call without a declaration
                    // (`(*ops->step)(a)` dereferences it too, which says nothing more).
                    t if called.contains(&m) && !matches!(t, Some((_, _, true))) => {
                        body.push_str(&format!(" int (*{f})();"));
                        members.push(f.as_str());
                        continue;
                    }
                    // Converted to pointer types and assigned a pointer of some type, but never
                    // dereferenced itself: the header's `void *` (libwebp's `io->opaque`, set
                    // to a decoder here and converted to `ALPHDecoder *` there).
                    Some((_, 1.., _)) if void_pointers.contains(&m) && !shape.contains_key(&m) => {
                        "void *".to_string()
                    }
                    Some((Key::Name(n), l, _)) if named.contains_key(&n) => {
                        spelled(named[&n].clone(), l)
                    }
                    Some((r, 0, true)) if cyclic.contains(&r) => "long".to_string(),
                    Some((r, l, true)) => spelled(format!("struct {}", record_name(&r)), l),
                    Some((_, l, false)) if l > 0 || !void_pointers.contains(&m) => {
                        spelled("long".to_string(), l)
                    }
                    _ if void_pointers.contains(&m) => "void *".to_string(),
                    _ => "long".to_string(),
                };
                body.push_str(&format!(" {ty} {f};"));
                members.push(f.as_str());
            }
            // The members no code of the file names: one opaque member, so that a copy of the
            // whole record moves something a member-wise copy does not.
            body.push_str(&format!(
                " unsigned char {}[1];",
                crate::ir::UNNAMED_MEMBERS
            ));
            out.decls.push_str(&format!("struct {name} {{{body} }};\n"));
            out.tags.insert(name.clone());
            let shown = match k {
                Key::Name(n) => n.clone(),
                Key::Tag(t) => format!("struct {t}"),
                Key::Member(..) => format!("(member {})", k.dotted()),
                Key::Object(o) => format!("(undeclared object `{o}`)"),
            };
            out.described
                .push(format!("{shown} {{ {} }}", members.join(", ")));
        }
        // The objects, once their records are complete; one only subscripted is an array of
        // `long` (of pointers for `t[i][j]`).
        for (k, (l, rec)) in &shape {
            if let Key::Object(o) = k {
                let decl = match rec {
                    true => format!("{} {o}", spelled(format!("struct {}", record_name(k)), *l)),
                    false
                        if *l == 1
                            && self.object_elements.iter().any(|(x, n)| {
                                x == o && out.typedefs.get(n).is_some_and(|t| t == FUNCTION_POINTER)
                            }) =>
                    {
                        format!("{FUNCTION_POINTER} {o}[]")
                    }
                    false => format!("{} {o}[]", spelled("long".into(), l - 1)),
                };
                out.decls.push_str(&format!("extern {decl};\n"));
            }
        }
        out
    }
}

impl Key {
    /// A name for the record of this key, unique per key (`Png__bg` for member `bg` of `Png`).
    fn path(&self) -> String {
        match self {
            Key::Name(n) => n.clone(),
            Key::Tag(t) => format!("s_{t}"),
            Key::Member(o, f) => format!("m_{}__{f}", o.path()),
            Key::Object(o) => format!("v_{o}"),
        }
    }

    /// `Png.bg` for the report.
    fn dotted(&self) -> String {
        match self {
            Key::Name(n) | Key::Object(n) => n.clone(),
            Key::Tag(t) => format!("struct {t}"),
            Key::Member(o, f) => format!("{}.{f}", o.dotted()),
        }
    }
}

/// Keys made canonical: a typedef name that is a tag's (`same_tag`) is the tag, and a member
/// holding another key's type (`redirect`: that key, with pointer levels) owns its members as
/// that key does.
struct Canon<'a> {
    same_tag: &'a BTreeSet<String>,
    /// Typedef names that are others' (see `Shapes::name_aliases`).
    names: &'a BTreeMap<String, (String, i32)>,
    redirect: BTreeMap<Key, (Key, i32)>,
}

impl Canon<'_> {
    /// The key whose record `k` names as an owner of members.
    fn owner(&self, k: &Key) -> Key {
        match k {
            Key::Name(n) if self.names.contains_key(n) => {
                self.owner(&Key::Name(self.names[n].0.clone()))
            }
            Key::Name(n) if self.same_tag.contains(n) => Key::Tag(n.clone()),
            Key::Member(..) => {
                let m = self.member(k);
                self.resolve(&m).map_or(m, |(t, _)| t)
            }
            k => k.clone(),
        }
    }

    /// Where the redirections of member `m` end (a member redirected to a member of one type
    /// goes on from there), with the pointer levels added on the way; `None`: not redirected.
    fn resolve(&self, m: &Key) -> Option<(Key, i32)> {
        let (mut t, mut l) = self.redirect.get(m)?.clone();
        for _ in 0..16 {
            match self.redirect.get(&t) {
                Some((u, k)) if matches!(t, Key::Member(..)) => {
                    l += k;
                    t = u.clone();
                }
                _ => break,
            }
        }
        Some((t, l))
    }

    /// A member key with its owner canonical (the member itself not redirected).
    fn member(&self, k: &Key) -> Key {
        match k {
            Key::Member(o, f) => Key::Member(Box::new(self.owner(o)), f.clone()),
            k => self.owner(k),
        }
    }
}

/// `base` with `levels` pointers: `struct S **`.
fn spelled(base: String, levels: u8) -> String {
    if levels == 0 {
        base
    } else {
        format!("{base} {}", "*".repeat(levels as usize))
    }
}

/// What the uses of a unit say about its missing types.
pub(super) struct Inferred {
    pub shapes: Shapes,
    /// Struct tags the unit defines.
    pub defined: HashSet<String>,
    /// Statements `X * y;` (also `X **y;`) of two names declared nowhere: declarations of `y`
    /// whose type `X` a missing header defines (a product whose value is discarded is no code
    /// anyone writes) — `X` with the offset of the statement.
    pub type_names: BTreeMap<String, usize>,
}

/// The shapes the uses in `unit` give the unknown typedef names `guessed` and the struct tags
/// the unit never defines.
pub(super) fn infer(
    unit: &TranslationUnit,
    guessed: &BTreeSet<String>,
    named: &BTreeMap<String, String>,
) -> Inferred {
    let mut decls = Decls {
        guessed,
        named,
        typedefs: HashMap::new(),
        globals: HashMap::new(),
        fields: HashMap::new(),
        params: HashMap::new(),
        functions: HashSet::new(),
        defined: HashSet::new(),
        mentioned: BTreeSet::new(),
    };
    // File scope first (typedefs, globals, prototypes, struct members), in order.
    for ext in &unit.0 {
        match &ext.node {
            ExternalDeclaration::Declaration(d) => {
                decls.declaration(&d.node);
                if !is_typedef(&d.node.specifiers) {
                    for id in &d.node.declarators {
                        decls.parameters(&id.node.declarator.node);
                    }
                }
            }
            ExternalDeclaration::FunctionDefinition(fd) => {
                let f = &fd.node;
                decls.parameters(&f.declarator.node);
                match decls.spec_key(f.specifiers.iter().filter_map(decl_ts)) {
                    Some(base) => decls.global(base, &f.declarator.node),
                    None => other(&mut decls.globals, &f.declarator.node),
                }
            }
            ExternalDeclaration::StaticAssert(_) => {}
        }
        let mut tags = TagWalk { decls: &mut decls };
        tags.visit_external_declaration(&ext.node, &ext.span);
    }
    let mut uses = UseWalk {
        decls: &decls,
        locals: HashMap::new(),
        shapes: Shapes::default(),
        type_names: BTreeMap::new(),
    };
    for ext in &unit.0 {
        if let ExternalDeclaration::FunctionDefinition(fd) = &ext.node {
            let mut local = LocalWalk {
                decls: &decls,
                locals: HashMap::new(),
            };
            local.visit_function_definition(&fd.node, &fd.span);
            uses.locals = local.locals;
            uses.visit_function_definition(&fd.node, &fd.span);
        }
    }
    let mut shapes = uses.shapes;
    let type_names = uses.type_names;
    shapes.tags = decls
        .mentioned
        .iter()
        .filter(|t| !decls.defined.contains(*t))
        .cloned()
        .collect();
    // Tags the file defines are not missing.
    shapes
        .uses
        .retain(|k, _| !matches!(k, Key::Tag(t) if decls.defined.contains(t)));
    Inferred {
        shapes,
        defined: decls.defined,
        type_names,
    }
}

/// A variable's type: a missing type with pointer levels added (negative: dereferenced).
type Ty = (Key, i32);

/// Declarations of the file that involve missing types.
struct Decls<'a> {
    guessed: &'a BTreeSet<String>,
    /// Unknown typedef names given a type by their name (`byte`, `UInt32`): scalars, never
    /// records, but a member holding one (or a pointer to one) gets that type.
    named: &'a BTreeMap<String, String>,
    /// The file's typedefs of missing types (`typedef T *TP;`).
    typedefs: HashMap<String, Ty>,
    /// Globals and functions (their return type); `None`: declared with two types.
    globals: HashMap<String, Option<Ty>>,
    /// Members of the file's own structs declared with missing types, by name.
    fields: HashMap<String, Option<Ty>>,
    /// Functions' parameter types (`None`: not a missing type), from prototypes and
    /// definitions; a function declared with two lists has none.
    params: HashMap<String, Option<Vec<Option<Ty>>>>,
    /// Names declared as functions: their `globals` entry is their result's type, which only
    /// a call has (the name alone is a function pointer).
    functions: HashSet<String>,
    defined: HashSet<String>,
    /// Tags named without a definition (`struct X *p;`).
    mentioned: BTreeSet<String>,
}

fn decl_ts(s: &Node<DeclarationSpecifier>) -> Option<&TypeSpecifier> {
    match &s.node {
        DeclarationSpecifier::TypeSpecifier(t) => Some(&t.node),
        _ => None,
    }
}

fn sq_ts(s: &Node<SpecifierQualifier>) -> Option<&TypeSpecifier> {
    match &s.node {
        SpecifierQualifier::TypeSpecifier(t) => Some(&t.node),
        _ => None,
    }
}

fn is_typedef(specs: &[Node<DeclarationSpecifier>]) -> bool {
    specs.iter().any(|s| {
        matches!(
            &s.node,
            DeclarationSpecifier::StorageClass(c) if c.node == StorageClassSpecifier::Typedef
        )
    })
}

/// The declared name and the pointer levels (pointers and arrays) a declarator adds; `None`
/// for functions and function pointers, whose values are not records.
fn declarator_levels(d: &Declarator) -> (Option<&str>, Option<i32>) {
    let mut levels = 0;
    let mut func = false;
    for dd in &d.derived {
        match dd.node {
            DerivedDeclarator::Pointer(_) | DerivedDeclarator::Array(_) => levels += 1,
            DerivedDeclarator::Function(_) | DerivedDeclarator::KRFunction(_) => func = true,
            DerivedDeclarator::Block(_) => return (None, None),
        }
    }
    let (name, inner) = match &d.kind.node {
        DeclaratorKind::Identifier(id) => (Some(id.node.name.as_str()), 0),
        DeclaratorKind::Declarator(inner) => {
            let (n, l) = declarator_levels(&inner.node);
            match l {
                // `T (*fp)(…)`: a function pointer.
                Some(l) if func => return (n, if l > 0 { None } else { Some(levels) }),
                Some(l) => (n, l),
                None => return (n, None),
            }
        }
        DeclaratorKind::Abstract => (None, 0),
    };
    (name, Some(levels + inner))
}

impl Decls<'_> {
    fn spec_key<'s>(&self, specs: impl Iterator<Item = &'s TypeSpecifier>) -> Option<Ty> {
        for ts in specs {
            match ts {
                TypeSpecifier::TypedefName(id) => {
                    let n = &id.node.name;
                    if self.guessed.contains(n) || self.named.contains_key(n) {
                        return Some((Key::Name(n.clone()), 0));
                    }
                    return self.typedefs.get(n).cloned();
                }
                // A union's members overlap: never assumed distinct.
                TypeSpecifier::Struct(st) if st.node.kind.node == StructKind::Union => return None,
                TypeSpecifier::Struct(st) if st.node.declarations.is_none() => {
                    return st
                        .node
                        .identifier
                        .as_ref()
                        .map(|i| (Key::Tag(i.node.name.clone()), 0));
                }
                _ => {}
            }
        }
        None
    }

    /// A file-scope declaration: typedefs, globals and prototypes.
    fn declaration(&mut self, d: &Declaration) {
        let typedef = is_typedef(&d.specifiers);
        let Some(base) = self.spec_key(d.specifiers.iter().filter_map(decl_ts)) else {
            if !typedef {
                for id in &d.declarators {
                    other(&mut self.globals, &id.node.declarator.node);
                }
            }
            return;
        };
        for id in &d.declarators {
            let decl = &id.node.declarator.node;
            if typedef {
                if let (Some(n), Some(l)) = declarator_levels(decl) {
                    self.typedefs
                        .insert(n.to_string(), (base.0.clone(), base.1 + l));
                }
            } else {
                self.global(base.clone(), decl);
            }
        }
    }

    /// The parameter types of a function declarator `f(A a, B *b)`.
    fn parameters(&mut self, d: &Declarator) {
        let DeclaratorKind::Identifier(name) = &d.kind.node else {
            return;
        };
        let Some(fd) = d.derived.iter().find_map(|dd| match &dd.node {
            DerivedDeclarator::Function(fd) => Some(&fd.node),
            _ => None,
        }) else {
            return;
        };
        self.functions.insert(name.node.name.clone());
        let list: Vec<Option<Ty>> = fd
            .parameters
            .iter()
            .map(|p| {
                let (k, l) = self.spec_key(p.node.specifiers.iter().filter_map(decl_ts))?;
                let extra = match &p.node.declarator {
                    Some(d) => declarator_levels(&d.node).1?,
                    None => 0,
                };
                Some((k, l + extra))
            })
            .collect();
        self.params
            .entry(name.node.name.clone())
            .and_modify(|e| {
                if e.as_ref() != Some(&list) {
                    *e = None;
                }
            })
            .or_insert(Some(list));
    }

    fn global(&mut self, base: Ty, d: &Declarator) {
        if let (Some(n), Some(l)) = declarator_levels(d) {
            insert(&mut self.globals, n, (base.0, base.1 + l));
        }
    }
}

/// A declaration of a type that is not missing: its name hides any other of that name.
fn other(m: &mut HashMap<String, Option<Ty>>, d: &Declarator) {
    if let (Some(n), _) = declarator_levels(d) {
        other_name(m, n);
    }
}

fn other_name(m: &mut HashMap<String, Option<Ty>>, n: &str) {
    m.insert(n.to_string(), None);
}

fn insert(m: &mut HashMap<String, Option<Ty>>, n: &str, t: Ty) {
    m.entry(n.to_string())
        .and_modify(|e| {
            if e.as_ref() != Some(&t) {
                *e = None;
            }
        })
        .or_insert(Some(t));
}

/// Struct definitions anywhere: defined tags and members of missing types.
struct TagWalk<'d, 'a> {
    decls: &'d mut Decls<'a>,
}

impl<'ast> Visit<'ast> for TagWalk<'_, '_> {
    fn visit_enumerator(&mut self, e: &'ast Enumerator, span: &'ast Span) {
        other_name(&mut self.decls.globals, &e.identifier.node.name);
        visit::visit_enumerator(self, e, span);
    }

    fn visit_struct_type(&mut self, st: &'ast StructType, span: &'ast Span) {
        if let (Some(i), None) = (&st.identifier, &st.declarations) {
            self.decls.mentioned.insert(i.node.name.clone());
        }
        if let Some(ds) = &st.declarations {
            // Members of anonymous structs too (`typedef struct { vorbis_info vi; } V;`).
            if let Some(i) = &st.identifier {
                self.decls.defined.insert(i.node.name.clone());
            }
            for d in ds {
                let StructDeclaration::Field(f) = &d.node else {
                    continue;
                };
                let Some(base) = self
                    .decls
                    .spec_key(f.node.specifiers.iter().filter_map(sq_ts))
                else {
                    continue;
                };
                for sd in &f.node.declarators {
                    if let Some(decl) = &sd.node.declarator {
                        if let (Some(n), Some(l)) = declarator_levels(&decl.node) {
                            insert(&mut self.decls.fields, n, (base.0.clone(), base.1 + l));
                        }
                    }
                }
            }
        }
        visit::visit_struct_type(self, st, span);
    }
}

/// A function's parameters and locals of missing types (one map for the whole body: a name
/// declared twice with different types is dropped).
struct LocalWalk<'d, 'a> {
    decls: &'d Decls<'a>,
    locals: HashMap<String, Option<Ty>>,
}

impl<'ast> Visit<'ast> for LocalWalk<'_, '_> {
    fn visit_declaration(&mut self, d: &'ast Declaration, span: &'ast Span) {
        if !is_typedef(&d.specifiers) {
            let base = self.decls.spec_key(d.specifiers.iter().filter_map(decl_ts));
            for id in &d.declarators {
                let decl = &id.node.declarator.node;
                match (&base, declarator_levels(decl)) {
                    (Some(b), (Some(n), Some(l))) => {
                        insert(&mut self.locals, n, (b.0.clone(), b.1 + l))
                    }
                    _ => other(&mut self.locals, decl),
                }
            }
        }
        visit::visit_declaration(self, d, span);
    }

    fn visit_parameter_declaration(&mut self, p: &'ast ParameterDeclaration, span: &'ast Span) {
        if let Some(d) = &p.declarator {
            match (
                self.decls.spec_key(p.specifiers.iter().filter_map(decl_ts)),
                declarator_levels(&d.node),
            ) {
                (Some(b), (Some(n), Some(l))) => insert(&mut self.locals, n, (b.0, b.1 + l)),
                _ => other(&mut self.locals, &d.node),
            }
        }
        visit::visit_parameter_declaration(self, p, span);
    }
}

/// Member accesses and subscripts on expressions of missing types, recorded as uses.
struct UseWalk<'d, 'a> {
    decls: &'d Decls<'a>,
    locals: HashMap<String, Option<Ty>>,
    shapes: Shapes,
    type_names: BTreeMap<String, usize>,
}

impl UseWalk<'_, '_> {
    fn declared(&self, n: &str) -> bool {
        self.locals.contains_key(n)
            || self.decls.globals.contains_key(n)
            || self.decls.typedefs.contains_key(n)
            || self.decls.guessed.contains(n)
    }

    /// `X` when `e` is `X * y` or `X * *y` with both names declared nowhere.
    fn declaration_statement<'e>(&self, e: &'e Expression) -> Option<&'e str> {
        let Expression::BinaryOperator(b) = e else {
            return None;
        };
        if b.node.operator.node != BinaryOperator::Multiply {
            return None;
        }
        let Expression::Identifier(x) = &b.node.lhs.node else {
            return None;
        };
        let mut y = &b.node.rhs.node;
        while let Expression::UnaryOperator(u) = y {
            if u.node.operator.node != UnaryOperator::Indirection {
                return None;
            }
            y = &u.node.operand.node;
        }
        let Expression::Identifier(y) = y else {
            return None;
        };
        let (x, y) = (&x.node.name, &y.node.name);
        (x != y && !self.declared(x) && !self.declared(y)).then_some(x.as_str())
    }

    fn ty(&self, e: &Expression) -> Option<Ty> {
        match e {
            Expression::Identifier(id) => {
                let n = &id.node.name;
                match self.locals.get(n) {
                    Some(t) => t.clone(),
                    None if self.decls.functions.contains(n) => None,
                    None if !self.declared(n) => Some((Key::Object(n.clone()), 0)),
                    None => self.decls.globals.get(n).cloned().flatten(),
                }
            }
            Expression::Member(m) => {
                let f = &m.node.identifier.node.name;
                match self.ty(&m.node.expression.node) {
                    Some((k, _)) if self.missing(&k) => {
                        Some((Key::Member(Box::new(k), f.clone()), 0))
                    }
                    _ => self.decls.fields.get(f).cloned().flatten(),
                }
            }
            Expression::UnaryOperator(u) => {
                let (k, l) = self.ty(&u.node.operand.node)?;
                match u.node.operator.node {
                    UnaryOperator::Indirection => Some((k, l - 1)),
                    UnaryOperator::Address => Some((k, l + 1)),
                    UnaryOperator::PostIncrement
                    | UnaryOperator::PostDecrement
                    | UnaryOperator::PreIncrement
                    | UnaryOperator::PreDecrement => Some((k, l)),
                    _ => None,
                }
            }
            Expression::BinaryOperator(b) => {
                let lhs = || self.ty(&b.node.lhs.node);
                match b.node.operator.node {
                    BinaryOperator::Index => lhs().map(|(k, l)| (k, l - 1)),
                    BinaryOperator::Assign
                    | BinaryOperator::AssignPlus
                    | BinaryOperator::AssignMinus => lhs(),
                    BinaryOperator::Plus | BinaryOperator::Minus => {
                        let rhs = || self.ty(&b.node.rhs.node);
                        lhs()
                            .filter(|(_, l)| *l > 0)
                            .or_else(|| {
                                (b.node.operator.node == BinaryOperator::Plus)
                                    .then(rhs)
                                    .flatten()
                                    .filter(|(_, l)| *l > 0)
                            })
                            // `base->subglyphs + n` with `n` no pointer or member: of the
                            // member's type, pointer or integer alike (a pointer typedef's
                            // level is not known here), as what it is assigned to says.
                            .or_else(|| {
                                let other = rhs();
                                lhs().filter(|(k, l)| {
                                    *l == 0
                                        && matches!(k, Key::Member(..))
                                        && other.as_ref().is_none_or(|(o, lo)| {
                                            *lo <= 0 && !matches!(o, Key::Member(..))
                                        })
                                })
                            })
                    }
                    _ => None,
                }
            }
            Expression::Cast(c) => self.cast_ty(&c.node.type_name.node),
            Expression::Comma(es) => es.last().and_then(|e| self.ty(&e.node)),
            Expression::Conditional(c) => self
                .ty(&c.node.then_expression.node)
                .or_else(|| self.ty(&c.node.else_expression.node)),
            Expression::Call(c) => match &c.node.callee.node {
                Expression::Identifier(id) if !self.locals.contains_key(&id.node.name) => {
                    self.decls.globals.get(&id.node.name).cloned().flatten()
                }
                _ => None,
            },
            _ => None,
        }
    }

    /// The type a cast to `tn` gives.
    fn cast_ty(&self, tn: &TypeName) -> Option<Ty> {
        let (k, l) = self
            .decls
            .spec_key(tn.specifiers.iter().filter_map(sq_ts))?;
        let extra = match &tn.declarator {
            Some(d) => declarator_levels(&d.node).1?,
            None => 0,
        };
        Some((k, l + extra))
    }

    /// `a = b` (or an initializer): a member on one side holding a variable's missing type on
    /// the other has that type.
    fn unify(&mut self, a: Option<Ty>, b: Option<Ty>) {
        let (Some(a), Some(b)) = (a, b) else {
            return;
        };
        if let ((Key::Name(x), dx), (Key::Name(y), dy)) = (&a, &b) {
            if x != y {
                // `x` with `dx` levels is `y` with `dy`: the one with more levels of its own
                // is the other's type with pointers added.
                let alias = match dy - dx {
                    l if l > 0 => (x.clone(), y.clone(), l),
                    l if l < 0 => (y.clone(), x.clone(), -l),
                    _ => (x.max(y).clone(), x.min(y).clone(), 0),
                };
                self.shapes.name_aliases.insert(alias);
            }
        }
        for ((x, dx), (y, dy)) in [(&a, &b), (&b, &a)] {
            if let (Key::Object(o), -1, Key::Name(n), 0) = (x, dx, y, dy) {
                self.shapes.object_elements.insert((o.clone(), n.clone()));
            }
        }
        if let ((f @ Key::Member(..), 0), (g @ Key::Member(..), 0)) = (&a, &b) {
            if f != g {
                let pair = (f.min(g).clone(), f.max(g).clone());
                self.shapes.same_type.insert(pair);
            }
        }
        for ((m, dm), (k, dk)) in [(&a, &b), (&b, &a)] {
            if let (Key::Member(..), Key::Tag(_), 0, 1..) = (m, k, dm, dk) {
                if !self.missing(k) {
                    self.shapes.void_pointers.insert(m.clone());
                }
            }
            if let (Key::Member(..), Key::Name(_) | Key::Tag(_)) = (m, k) {
                if self.missing(k) {
                    let e = self.shapes.aliases.entry(m.clone()).or_default();
                    *e.entry((k.clone(), dk - dm)).or_default() += 1;
                }
            }
        }
    }

    fn missing(&self, k: &Key) -> bool {
        match k {
            Key::Tag(t) => !self.decls.defined.contains(t),
            _ => true,
        }
    }

    fn record(&mut self, k: Key, level: i32, member: Option<&str>) {
        if !(0..=MAX_LEVEL).contains(&level) || !self.missing(&k) {
            return;
        }
        let u = self.shapes.uses.entry(k).or_default();
        match member {
            Some(f) => {
                *u.record.entry(level as u8).or_default() += 1;
                u.members.insert(f.to_string());
            }
            None => *u.elements.entry(level as u8).or_default() += 1,
        }
    }
}

impl<'ast> Visit<'ast> for UseWalk<'_, '_> {
    fn visit_statement(&mut self, st: &'ast Statement, span: &'ast Span) {
        if let Statement::Expression(Some(e)) = st {
            if let Some(x) = self.declaration_statement(&e.node) {
                self.type_names.entry(x.to_string()).or_insert(span.start);
            }
        }
        visit::visit_statement(self, st, span);
    }

    fn visit_member_expression(&mut self, m: &'ast MemberExpression, span: &'ast Span) {
        if let Some((k, l)) = self.ty(&m.expression.node) {
            let level = match m.operator.node {
                MemberOperator::Indirect => 1 - l,
                MemberOperator::Direct => -l,
            };
            self.record(k, level, Some(&m.identifier.node.name));
        }
        visit::visit_member_expression(self, m, span);
    }

    fn visit_init_declarator(&mut self, d: &'ast InitDeclarator, span: &'ast Span) {
        if let (Some(Initializer::Expression(e)), (Some(n), _)) = (
            d.initializer.as_ref().map(|i| &i.node),
            declarator_levels(&d.declarator.node),
        ) {
            let var = self.locals.get(n).cloned().flatten();
            let init = self.ty(&e.node);
            self.unify(var, init);
        }
        visit::visit_init_declarator(self, d, span);
    }

    fn visit_call_expression(&mut self, c: &'ast CallExpression, span: &'ast Span) {
        let mut callee = &c.callee.node;
        while let Expression::UnaryOperator(u) = callee {
            if u.node.operator.node != UnaryOperator::Indirection {
                break;
            }
            callee = &u.node.operand.node;
        }
        // An argument is assigned to its parameter (`f (face, &table->itemStore)` with
        // `GX_ItemVarStore itemStore`: the member holds the parameter's record).
        if let Expression::Identifier(id) = callee {
            let list = match self.locals.contains_key(&id.node.name) {
                true => None,
                false => self.decls.params.get(&id.node.name).cloned().flatten(),
            };
            for (p, a) in list.unwrap_or_default().into_iter().zip(&c.arguments) {
                let a = self.ty(&a.node);
                self.unify(p, a);
            }
        }
        if let Expression::Identifier(_) = callee {
            if let Some((Key::Name(n), 0)) = self.ty(callee) {
                self.shapes.called_names.insert(n);
            }
        }
        if let Expression::Member(m) = callee {
            if let Some((k, _)) = self.ty(&m.node.expression.node) {
                if self.missing(&k) {
                    let f = m.node.identifier.node.name.clone();
                    self.shapes.called.insert(Key::Member(Box::new(k), f));
                }
            }
        }
        visit::visit_call_expression(self, c, span);
    }

    fn visit_cast_expression(&mut self, c: &'ast CastExpression, span: &'ast Span) {
        // Only what a cast says of a member converted to a pointer to a record: the missing
        // header's `void *` (`(ALPHDecoder *)io->opaque` here, `(WebPDecParams *)io->opaque`
        // there), unless other uses say what it is; the other facts of `unify` come from
        // assignments.
        if let (Some((f @ Key::Member(..), 0)), Some((Key::Tag(_) | Key::Name(_), 1..))) =
            (self.ty(&c.expression.node), self.cast_ty(&c.type_name.node))
        {
            self.shapes.void_pointers.insert(f);
        }
        // `(gss_buffer_t)&empty_message`: a pointer typedef of the record converted.
        if let (Some(t @ (Key::Name(_), _)), Some(e @ (Key::Name(_), _))) =
            (self.cast_ty(&c.type_name.node), self.ty(&c.expression.node))
        {
            self.unify(Some(t), Some(e));
        }
        visit::visit_cast_expression(self, c, span);
    }

    fn visit_unary_operator_expression(
        &mut self,
        u: &'ast UnaryOperatorExpression,
        span: &'ast Span,
    ) {
        // `*in->ptr`: a dereference is an element use, as `in->ptr[0]` is.
        if u.operator.node == UnaryOperator::Indirection {
            if let Some((k, l)) = self.ty(&u.operand.node) {
                self.record(k, 1 - l, None);
            }
        }
        visit::visit_unary_operator_expression(self, u, span);
    }

    fn visit_binary_operator_expression(
        &mut self,
        b: &'ast BinaryOperatorExpression,
        span: &'ast Span,
    ) {
        if b.operator.node == BinaryOperator::Assign {
            let (l, r) = (self.ty(&b.lhs.node), self.ty(&b.rhs.node));
            self.unify(l, r);
        }
        // `pw->limit - q`, `p < pr->limit` with `q`, `p` pointers to a missing type: the
        // member points to that type too (C subtracts and orders pointers of one type only).
        if matches!(
            b.operator.node,
            BinaryOperator::Minus
                | BinaryOperator::Less
                | BinaryOperator::Greater
                | BinaryOperator::LessOrEqual
                | BinaryOperator::GreaterOrEqual
        ) {
            let (l, r) = (self.ty(&b.lhs.node), self.ty(&b.rhs.node));
            let pointer = |t: &Option<Ty>| {
                t.as_ref()
                    .is_some_and(|(k, l)| *l >= 1 && !matches!(k, Key::Member(..)))
            };
            if pointer(&l) || pointer(&r) {
                self.unify(l, r);
            }
        }
        if b.operator.node == BinaryOperator::Index {
            if let Some((k, l)) = self.ty(&b.lhs.node) {
                self.record(k, 1 - l, None);
            }
        }
        visit::visit_binary_operator_expression(self, b, span);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shapes_of(src: &str, guessed: &[&str]) -> Layout {
        let guessed: BTreeSet<String> = guessed.iter().map(|s| s.to_string()).collect();
        let mut text = String::from("typedef unsigned char byte;\n");
        for g in &guessed {
            text.push_str(&format!("typedef long {g};\n"));
        }
        text.push_str(src);
        let p = lang_c::driver::parse_preprocessed(&Default::default(), text).expect("parse");
        let named = BTreeMap::from([("byte".to_string(), "unsigned char".to_string())]);
        let i = infer(&p.unit, &guessed, &named);
        i.shapes.layout(&guessed, &named, &i.defined)
    }

    #[test]
    fn a_product_of_two_undeclared_names_is_a_declaration() {
        let text = "enum { E = 2 }; int g; int h(int);\n\
            int f(int a) { ctl_t *c; ctl_t **cc; E * g; a * b; int k; k * h; ctl_t * ctl_t; return 0; }\n";
        let p = lang_c::driver::parse_preprocessed(&Default::default(), text.to_string())
            .expect("parse");
        let i = infer(&p.unit, &BTreeSet::new(), &BTreeMap::new());
        // Only `ctl_t`: `E`, `a` and `k` are declared; `b` alone does not make a type.
        assert_eq!(i.type_names.keys().collect::<Vec<_>>(), ["ctl_t"]);
        assert_eq!(i.type_names["ctl_t"], text.find("ctl_t *c").unwrap());
    }

    #[test]
    fn a_member_converted_to_a_pointer_to_a_defined_struct_is_a_void_pointer() {
        let l = shapes_of(
            "struct rar { int size; };\n\
             int f(struct archive_read *a, struct S *s) {\n\
               struct rar *r = (struct rar *)(a->format->data);\n\
               struct rar *q = s->priv;\n\
               return r->size + q->size + (int)a->format->flags; }\n",
            &[],
        );
        assert!(l.decls.contains(" void * data;"), "{}", l.decls);
        assert!(l.decls.contains(" void * priv;"), "{}", l.decls);
        assert!(l.decls.contains(" long flags;"), "{}", l.decls);
    }

    #[test]
    fn a_pointer_typedef_a_record_typedef_and_an_incomplete_tag() {
        let l = shapes_of(
            "struct S; struct D { int z; };\n\
             int f(P p, R *r, struct S *s, struct D *d, long n) {\n\
               if (p->flags) return r->count + s->len;\n\
               p->io->x = 1; r->br.eos = n; return d->z; }\n",
            &["P", "R"],
        );
        assert_eq!(l.typedefs["P"], "struct __dizy_P *");
        assert_eq!(l.typedefs["R"], "struct __dizy_R");
        assert!(
            l.decls
                .contains("struct __dizy_P { long flags; struct __dizy_m_P__io * io; unsigned char __dizy_unnamed[1]; };"),
            "{}",
            l.decls
        );
        assert!(l
            .decls
            .contains("struct S { long len; unsigned char __dizy_unnamed[1]; };"));
        // `br` is embedded, so its record comes before `__dizy_R`.
        let br = l.decls.find("struct __dizy_m_R__br {").unwrap();
        let r = l.decls.find("struct __dizy_R {").unwrap();
        assert!(br < r, "{}", l.decls);
        assert!(
            !l.decls.contains("struct D {"),
            "a defined tag is left alone"
        );
        assert!(!l.typedefs.contains_key("n"));
    }

    #[test]
    fn subscripts_make_pointers_and_conflicting_declarations_give_nothing() {
        let l = shapes_of(
            "int f(B b, int i) { return b[i]; }\n\
             int g(C c) { return c->x; } int h(long c) { return c; }\n\
             int k(D d) { { long d = 1; } return d->y; }\n",
            &["B", "C", "D"],
        );
        assert_eq!(l.typedefs["B"], "long *");
        // `c` of another function does not matter; `d` declared twice in `k` does.
        assert_eq!(l.typedefs["C"], "struct __dizy_C *");
        assert!(!l.typedefs.contains_key("D"), "{:?}", l.typedefs);
    }

    #[test]
    fn a_member_holding_a_variable_s_type_has_that_type() {
        let l = shapes_of(
            "int f(Core *core, int w) { Set *control; Set *other = &core->b;\n\
               if (w) control = &core->a; else control = other;\n\
               core->a.extra = 1; return control->num + core->list->num; }\n\
             void g(Core *core, Set *s) { core->list = s; }\n",
            &["Core", "Set"],
        );
        assert_eq!(l.typedefs["Set"], "struct __dizy_Set");
        // `a` and `b` embed the record of `Set` (which gains `extra` through `a`); `list`
        // points to it.
        assert!(
            l.decls.contains(
                "struct __dizy_Core { struct __dizy_Set a; struct __dizy_Set b; struct __dizy_Set * list; unsigned char __dizy_unnamed[1]; };"
            ),
            "{}",
            l.decls
        );
        assert!(
            l.decls.contains(
                "struct __dizy_Set { long extra; long num; unsigned char __dizy_unnamed[1]; };"
            ),
            "{}",
            l.decls
        );
        let set = l.decls.find("struct __dizy_Set {").unwrap();
        assert!(set < l.decls.find("struct __dizy_Core {").unwrap());
    }

    /// ghostscript's `uint wcount = pw->limit - q;` with `byte *q = pw->ptr;`: a member
    /// subtracted from or compared with a pointer to a missing type points to it too.
    #[test]
    fn a_member_subtracted_from_a_pointer_has_its_type() {
        let l = shapes_of(
            "int f(Cur *pw, Cur *pr) { byte *q = pw->ptr; const byte *p = pr->ptr;\n\
               if (p < pr->limit) return 1; return pw->limit - q; }\n",
            &["Cur"],
        );
        assert!(
            l.decls
                .contains("struct __dizy_Cur { unsigned char * limit; unsigned char * ptr; unsigned char __dizy_unnamed[1]; };"),
            "{}",
            l.decls
        );
    }

    /// libsndfile's `typedef struct { vorbis_info vinfo; … } VORBIS_PRIVATE;`: members of an
    /// anonymous struct of the file have their missing types too.
    #[test]
    fn members_of_anonymous_structs_and_undeclared_objects() {
        let l = shapes_of(
            "typedef struct { int x; Info vinfo; } V;\n\
             int f(V *v) { return v->vinfo.rate; }\n\
             int g(int a) { return funcs.decode(a) + (*ops->step)(a) + glob.n; }\n\
             int h(int b) { return b + arr[b]; }\n",
            &["Info"],
        );
        assert_eq!(l.typedefs["Info"], "struct __dizy_Info");
        assert!(
            l.decls
                .contains("struct __dizy_Info { long rate; unsigned char __dizy_unnamed[1]; };"),
            "{}",
            l.decls
        );
        // Undeclared objects used as records are declared (after their records), called
        // members are function pointers; an object only subscripted is an array.
        assert!(
            l.decls.contains(
                "struct __dizy_v_funcs { int (*decode)(); unsigned char __dizy_unnamed[1]; };"
            ),
            "{}",
            l.decls
        );
        assert!(
            l.decls.contains("extern struct __dizy_v_ops * ops;"),
            "{}",
            l.decls
        );
        assert!(l.decls.contains("int (*step)();"), "{}", l.decls);
        let def = l.decls.find("struct __dizy_v_glob {").unwrap();
        assert!(def < l.decls.find("extern struct __dizy_v_glob glob;").unwrap());
        assert!(l.decls.contains("extern long arr[];"), "{}", l.decls);
        assert_eq!(l.decls.matches("extern ").count(), 4, "{}", l.decls);
    }

    /// libwebp: `(ALPHDecoder *)dec->io_->opaque` and `(WebPDecParams *)io->opaque` (a
    /// `void *` member), `struct HuffmanTablesSegment *next = (HuffmanTablesSegment *)…` (a
    /// typedef of the tag), libpng's `png_ptr->background_1 = png_ptr->background` (two
    /// members of one record type).
    #[test]
    fn casts_typedefs_of_tags_and_members_assigned_to_members() {
        let l = shapes_of(
            "int f(Io *io, Dec *d) { Alph *a = (Alph *)io->opaque; Params *p = (Params *)d->io->opaque;\n\
               io->opaque = d; return a->n + p->m; }\n\
             int g(Seg *s) { struct Seg *next = (Seg *)s->next; next->size = 1; return s->size; }\n\
             void h(Png *png) { png->bg_1 = png->bg; png->bg.red = 1; png->bg_1.green = 2; }\n",
            &["Io", "Dec", "Alph", "Params", "Seg", "Png"],
        );
        assert!(l.decls.contains(" void * opaque;"), "{}", l.decls);
        assert_eq!(l.typedefs["Seg"], "struct Seg");
        assert!(
            l.decls.contains(
                "struct Seg { struct Seg * next; long size; unsigned char __dizy_unnamed[1]; };"
            ) || l.decls.contains(
                "struct Seg { void * next; long size; unsigned char __dizy_unnamed[1]; };"
            ),
            "{}",
            l.decls
        );
        assert!(
            l.decls
                .contains("struct __dizy_m_Png__bg bg; struct __dizy_m_Png__bg bg_1;"),
            "{}",
            l.decls
        );
        // Both members' uses make the one record (libpng's `background_1.green`).
        assert!(
            l.decls
                .contains("struct __dizy_m_Png__bg { long green; long red;"),
            "{}",
            l.decls
        );
    }

    /// libwebp's `output->u.YUVA.a` (member `u` of `WebPDecBuffer`, a union) and `buf->u`
    /// (member `u` of `WebPYUVABuffer`, a pointer): members are keyed by their record, and a
    /// member holding a variable's type owns its members as that type does (`n = n->next`).
    #[test]
    fn members_of_one_name_in_two_records_and_nested_members() {
        let l = shapes_of(
            "int f(Out *out, Buf *buf, int i) { return out->u.yuva.a + buf->u[i]; }\n\
             int g(Node *n) { while (n->next->val) n = n->next; return n->val; }\n",
            &["Out", "Buf", "Node"],
        );
        assert!(
            l.decls.contains("struct __dizy_Buf { long * u;"),
            "{}",
            l.decls
        );
        assert!(
            l.decls
                .contains("struct __dizy_Out { struct __dizy_m_Out__u u;"),
            "{}",
            l.decls
        );
        assert!(
            l.decls
                .contains("struct __dizy_m_Out__u { struct __dizy_m_m_Out__u__yuva yuva;"),
            "{}",
            l.decls
        );
        assert!(
            l.decls
                .contains("struct __dizy_Node { struct __dizy_Node * next; long val;"),
            "{}",
            l.decls
        );
        assert!(!l.decls.contains("Node__next"), "{}", l.decls);
    }

    /// freetype's `ft_var_get_item_delta (face, &table->itemStore, …)` with a parameter
    /// `GX_ItemVarStore itemStore` (a pointer typedef): the member holds that record.
    #[test]
    fn an_argument_has_its_parameter_s_type() {
        let l = shapes_of(
            "static int get(Store s, int i);\n\
             int f(Table *t, int i) { return t->store.count + get(&t->store, i); }\n\
             static int get(Store s, int i) { return s->count + s->data[i]; }\n",
            &["Store", "Table"],
        );
        assert_eq!(l.typedefs["Store"], "struct __dizy_Store *");
        assert!(
            l.decls
                .contains("struct __dizy_Table { struct __dizy_Store store;"),
            "{}",
            l.decls
        );
        assert!(!l.decls.contains("Table__store"), "{}", l.decls);
        // A function's name alone is a function pointer, not its result (`Err`).
        let l = shapes_of(
            "static Err fetch(int i);\n\
             void init(Face f) { f->fetch = fetch; }\n\
             int g(Face f) { return f->fetch(1) + f->n; }\n",
            &["Err", "Face"],
        );
        assert!(l.decls.contains(" int (*fetch)();"), "{}", l.decls);
        // `s = l->subs + n` with `n` an `int`: `subs` has the type of `s` (freetype's
        // `subglyph = gloader->base.subglyphs + num_base_subgs + n`).
        let l = shapes_of(
            "int f(Load *l, Count n) { Sub s = l->subs + n; return s->arg + l->count; }\n",
            &["Load", "Sub", "Count"],
        );
        assert!(
            l.decls.contains(" struct __dizy_Sub * subs;"),
            "{}",
            l.decls
        );
        // krb5's `message_buffer = (gss_buffer_t)&empty_message;` with `gss_buffer_desc
        // empty_message`: the pointer typedef points to that record.
        let l = shapes_of(
            "static const Desc empty = { 0, 0 };\n\
             int f(Buf b, int k) { if (k) b = (Buf)&empty; return b->length; }\n",
            &["Desc", "Buf"],
        );
        assert_eq!(l.typedefs["Buf"], "struct __dizy_Desc *", "{}", l.decls);
        assert_eq!(l.typedefs["Desc"], "struct __dizy_Desc", "{}", l.decls);
        // A member assigned such a pointer is one too (libpng's `png_ptr->palette = palette`
        // with `png_colorp palette`, `png_colorp` found to be `png_color *`).
        let l = shapes_of(
            "int f(S *s, Col c, Color *d) { c = (Col)d; s->pal = c; return s->pal->red + d->red; }\n",
            &["S", "Col", "Color"],
        );
        assert!(
            l.decls.contains(" struct __dizy_Color * pal;"),
            "{}",
            l.decls
        );
        // krb5's `*in->ptr != idbyte`: a dereferenced member points to elements.
        let l = shapes_of("int f(In *in) { return *in->ptr + in->len; }\n", &["In"]);
        assert!(
            l.decls.contains("struct __dizy_In { long len; long * ptr;"),
            "{}",
            l.decls
        );
        // libwebp's `WebPFilterFunc filter_func = WebPFilters[filter]; … filter_func (…)`.
        let l = shapes_of(
            "int f(int i, int n) { Fn g; g = Filters[i]; if (g) return g(n); return 0; }\n",
            &["Fn"],
        );
        assert_eq!(l.typedefs["Fn"], FUNCTION_POINTER);
        assert!(
            l.decls
                .contains(&format!("extern {FUNCTION_POINTER} Filters[];")),
            "{}",
            l.decls
        );
    }

    #[test]
    fn union_tags_are_left_alone() {
        let l = shapes_of("union U; int f(union U *u) { return u->a; }\n", &[]);
        assert!(l.decls.is_empty(), "{}", l.decls);
    }

    #[test]
    fn self_embedding_falls_back_to_long() {
        let l = shapes_of("int f(R *r) { return r->a.a.a; }\n", &["R"]);
        assert!(l.decls.contains("long a;"), "{}", l.decls);
    }
}
