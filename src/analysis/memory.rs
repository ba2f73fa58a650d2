//! The memory layer: what the analysis knows of memory reached through pointers.
//!
//! Takes the product function (its reads and writes through pointers, its writes to globals
//! and to address-taken variables, its calls) and gives, per sub-state, a [`Mem`]: whether the
//! two versions' memories outside their own frames are equal, and *facts* — "the bytes at
//! address `a` hold `v`" — recorded by the access sites that read or wrote them. It sits between
//! the guard-partitioned state and the numeric domain: addresses and values are dimensions of
//! the numeric value, so the domain relates them to the program's variables (`a = s₀ + i`).
//! Sites share a few *slots* of such dimensions ([`super::locs::Loc::Mem`]; a site recording
//! its fact ends the facts of the other sites of its slot): every PPL operation costs in
//! proportion to the number of dimensions, and one set per site made string functions with
//! inlined helpers ten times slower.
//!
//! What this gives the analysis:
//! * memory starts equal in both versions, as the inputs do (the caller's buffers, strings and
//!   structs are the same objects with the same contents);
//! * a read at an address equal to that of a fact valid for that version's memory gives the
//!   fact's value; with the memories equal, facts hold for both versions, so an old read and a
//!   new read of one address give one value, whichever code shapes made them (`s[i]` against
//!   `*p` with `p = s + i`);
//! * congruence (`congruence`): two reads of equal addresses in equal memories are equal;
//! * narrowing integer conversions (`(char)c`, `(unsigned char)c` of an `int`) are sites too:
//!   their operand in the address dimension, their result in the value dimension, recorded as
//!   a conversion fact that no write ends (a conversion is a function of its operand). The
//!   domain cannot follow a conversion of an operand spanning many multiples of the modulus,
//!   but another conversion of an equal operand, in either version, gives the same bits: so
//!   `*s == (char)c` and `*(unsigned char *)s == (unsigned char)c` are related, as reads of one
//!   byte as two types are;
//! * a matched pair of stores of the same bytes at equal addresses (equal values, or values of
//!   one width and the other signedness that differ by its modulus: a byte copied as `char`
//!   against as `unsigned char`), and a matched pair of calls of one external function with
//!   equal arguments, keep the memories equal.
//!
//! Soundness: a fact is dropped by every write of its version that may overlap it (an
//! address not provably disjoint), by every direct write of a global or an address-taken
//! variable of its version (its address is not known), and by every call that may write
//! memory; any write of one version alone makes the memories unequal. Frames are not part of
//! the equality: addresses of locals are unknown values (`translate`), so no two reads are
//! ever proved to hit the same local. Reads are recorded even where a short-circuit skips them:
//! a fresh value for the bytes at an address claims nothing. At a loop head the facts of the
//! loop body's sites end (pending writes excepted): the body reads and converts again in each
//! iteration, and the hull of the iterations' sign splits grew until a domain operation ran
//! out of budget and lost everything.

use std::collections::HashMap;

use dizy_domains::{ConstraintKind, Dim, Expr as DExpr, LinConstraint, LinExpr};

use super::analyzer::Analyzer;
use super::locs::{Dims, Loc, MemPart};
use super::state::{Soft, Sub};
use super::translate::{type_range, wraps};
use crate::correlate::Side;
use crate::diag::Result;
use crate::gcl::{GclFunction, InstrKind};
use crate::ir::{layout_size, CType, Callee, Expr, ExprKind, Place, StructDef, VarKind};

/// Access sites given dimensions; further sites read unknown values and record nothing.
pub const MAX_SITES: usize = 64;
/// Sets of dimensions the sites share (each PPL operation costs in proportion to the number of
/// dimensions, so they are not one set per site); also the most facts alive at once.
const MAX_SLOTS: usize = 8;
/// Facts one sub-state keeps; beyond, those of the earliest sites are dropped.
const MAX_FACTS: usize = 16;
/// Pending writes one sub-state keeps; one more makes the memories unequal.
const MAX_PENDING: usize = 4;

/// Whose memory a fact describes.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub enum Tag {
    /// Both versions' (the memories agree at its address).
    Shared,
    Old,
    New,
}

impl Tag {
    fn of(side: Side) -> Option<Tag> {
        match side {
            Side::Old => Some(Tag::Old),
            Side::New => Some(Tag::New),
            Side::Glue => None,
        }
    }
    fn valid_for(self, side: Tag) -> bool {
        self == Tag::Shared || self == side
    }
    /// What remains of a fact valid for `self` once `side`'s memory changed at its address.
    fn without(self, side: Tag) -> Option<Tag> {
        match (self, side) {
            (Tag::Shared, Tag::Old) => Some(Tag::New),
            (Tag::Shared, Tag::New) => Some(Tag::Old),
            (t, s) if t == s => None,
            (t, _) => Some(t),
        }
    }
    fn join(self, o: Tag) -> Option<Tag> {
        match (self, o) {
            (a, b) if a == b => Some(a),
            (Tag::Shared, t) | (t, Tag::Shared) => Some(t),
            _ => None,
        }
    }
}

/// The memory part of a sub-state.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Mem {
    /// The two versions made the same writes to memory outside their frames, except the
    /// pending ones: their memories agree there if they agreed at entry (they do unless a
    /// global input differs, see [`reads_agree`]).
    pub equal: bool,
    /// Writes (store sites) of one version the other has not made yet: while `equal`, the
    /// memories may differ only there; a write of the other version of the same value at the
    /// same address resolves one. Each one's fact stays valid for its version while pending.
    pub pending: im::OrdMap<u32, Tag>,
    /// Valid facts: access site → whose memory it describes.
    pub facts: im::OrdMap<u32, Tag>,
    /// Valid conversion facts (conversion sites whose dimensions hold an operand and its
    /// converted value): a function of the operand, true in both versions whatever memory does.
    pub convs: im::OrdSet<u32>,
    /// A global was written directly by one version and not alike by the other: the globals'
    /// values are compared as variables, but a pointer may point to one, so reads through
    /// pointers no longer agree, and a call may read it.
    pub globals_differ: bool,
}

impl Mem {
    /// Nothing known: memories may differ, no facts.
    pub fn top() -> Mem {
        Mem {
            equal: false,
            pending: im::OrdMap::new(),
            facts: im::OrdMap::new(),
            convs: im::OrdSet::new(),
            globals_differ: true,
        }
    }

    /// Equal memories and no facts: the state at entry.
    pub fn entry() -> Mem {
        Mem {
            equal: true,
            globals_differ: false,
            ..Mem::top()
        }
    }

    /// Whether the memory a call or a read may see agrees: the same writes through pointers
    /// and to globals (given memories that agreed at entry).
    pub fn agrees(&self) -> bool {
        self.same() && !self.globals_differ
    }

    /// Whether the two versions wrote the same bytes with the same values (so far): their
    /// memories differ at most where they differed at entry.
    pub fn same(&self) -> bool {
        self.equal && self.pending.is_empty()
    }

    /// The least upper bound: equal (with the same pending writes) only if both are, the
    /// facts both hold.
    pub fn join(&self, o: &Mem) -> Mem {
        let mut facts = im::OrdMap::new();
        for (k, t) in &self.facts {
            if let Some(j) = o.facts.get(k).and_then(|u| t.join(*u)) {
                facts.insert(*k, j);
            }
        }
        let equal = self.equal && o.equal && self.pending == o.pending;
        Mem {
            equal,
            pending: if equal {
                self.pending.clone()
            } else {
                im::OrdMap::new()
            },
            facts,
            convs: self.convs.clone().intersection(o.convs.clone()),
            globals_differ: self.globals_differ || o.globals_differ,
        }
    }

    /// `self ⊑ o`: `o` claims nothing `self` does not.
    pub fn leq(&self, o: &Mem) -> bool {
        (!o.equal || (self.equal && self.pending == o.pending))
            && (o.globals_differ || !self.globals_differ)
            && o.facts
                .iter()
                .all(|(k, t)| self.facts.get(k).is_some_and(|u| u.join(*t) == Some(*t)))
            && o.convs.iter().all(|k| self.convs.contains(k))
    }

    /// The memories became equal again (after a matched pair of equal writes): every fact of
    /// either holds for both.
    fn make_equal(&mut self) {
        self.equal = true;
        self.globals_differ = false;
        self.pending = im::OrdMap::new();
        self.facts = self.facts.keys().map(|k| (*k, Tag::Shared)).collect();
    }

    /// The memories may differ anywhere.
    fn unequal(&mut self) {
        self.equal = false;
        self.pending = im::OrdMap::new();
    }

    /// Drop or narrow the facts valid for `side` whose bytes `keep` does not clear.
    fn drop_facts(
        &mut self,
        side: Tag,
        mut overlaps: impl FnMut(u32) -> Result<bool>,
    ) -> Result<()> {
        let facts: Vec<(u32, Tag)> = self.facts.iter().map(|(k, t)| (*k, *t)).collect();
        for (k, tag) in facts {
            if !tag.valid_for(side) || !overlaps(k)? {
                continue;
            }
            match tag.without(side) {
                Some(t) => {
                    self.facts.insert(k, t);
                }
                None => {
                    self.facts.remove(&k);
                }
            }
        }
        Ok(())
    }
}

/// Whether reads of equal addresses give equal values in `s`: the versions made the same
/// writes and started from the same memory (every input is equal: a global whose initializer
/// changed may be what a pointer points to).
pub fn reads_agree(c: &crate::correlate::Correlated, s: &Sub) -> bool {
    s.mem.agrees() && c.inputs.iter().all(|i| i.equal)
}

/// A read or write through a pointer at one product position.
pub struct Site<'a> {
    /// The place read or written; `None` for a conversion site.
    pub place: Option<&'a Place>,
    /// A narrowing integer conversion (`(unsigned char)c`) instead of a memory access: its
    /// "address" dimension holds the value converted, its value the result, and its facts
    /// (never invalidated: a conversion is a function of its operand) let another conversion
    /// of an equal value, in either version, give the same bits.
    pub conv: Option<&'a Expr>,
    /// The product position of the instruction.
    pub pos: usize,
    pub ty: CType,
    pub size: u64,
    pub addr: Dim,
    pub val: Dim,
    pub store: bool,
    /// The version whose instruction it is.
    pub side: Side,
    /// Whether the access happens whenever its instruction runs (not behind `&&`/`||`).
    pub definite: bool,
    /// The pointer its address arithmetic started from, when it has such arithmetic (`s` of
    /// `s[i]`), as it was at the access.
    pub base: Option<Dim>,
    /// For a store of a converted integer (`*p = (char)c`): the value before the conversion
    /// (the stored value is that conversion of it, a function of it alone).
    pub pre: Option<Dim>,
    /// The slot whose dimensions it uses (shared with other sites: recording this site's
    /// fact ends theirs).
    pub slot: usize,
}

/// A site as the planning of [`Sites::new`] sees it.
struct Planned<'a> {
    pos: usize,
    place: Option<&'a Place>,
    conv: Option<&'a Expr>,
    store: bool,
    definite: bool,
    side: Side,
    pre: bool,
}

/// The dimensions of one slot.
#[derive(Clone, Copy)]
struct SlotDims {
    addr: Dim,
    val: Dim,
    base: Option<Dim>,
    pre: Option<Dim>,
}

/// The type a slot's value dimension is given: its sites' type when they agree; otherwise one
/// whose range holds every value of theirs (a wider integer, or `double` if one is floating).
fn slot_type(tys: &[CType]) -> CType {
    match tys.split_first() {
        Some((t, rest)) if rest.iter().all(|u| u == t) => t.clone(),
        _ if tys.iter().any(CType::is_float) => CType::Double,
        _ if tys.iter().all(CType::is_pointer) => CType::Ptr(Box::new(CType::Void)),
        // Every integer and pointer value fits in 65 signed bits.
        _ => CType::Int {
            bits: 65,
            signed: true,
        },
    }
}

/// The access sites of a product function, with their dimensions.
pub struct Sites<'a> {
    pub sites: Vec<Site<'a>>,
    /// Per position: its read sites (inner reads first), then its write site.
    pub at: HashMap<usize, Vec<usize>>,
}

/// One past the highest byte address (x86-64: 64-bit addresses; an object never wraps).
const ADDRESS_END: i128 = 1 << 64;

/// An access of `size` bytes at `a` without undefined behaviour, its address arithmetic
/// started from `base`: both above null, within the address space.
fn access_constraints(a: &LinExpr, size: u64, base: Option<&LinExpr>) -> Vec<LinConstraint> {
    let one = LinExpr::constant(1);
    let mut cs = vec![];
    cs.extend(LinConstraint::compare(a, ConstraintKind::Ge, &one));
    cs.extend(LinConstraint::compare(
        a,
        ConstraintKind::Le,
        &LinExpr::constant(ADDRESS_END - i128::from(size.max(1))),
    ));
    if let Some(b) = base {
        cs.extend(LinConstraint::compare(b, ConstraintKind::Ge, &one));
        cs.extend(LinConstraint::compare(
            b,
            ConstraintKind::Le,
            &LinExpr::constant(ADDRESS_END - 1),
        ));
    }
    cs
}

/// The pointer that pointer arithmetic in `p`'s address starts from (`q` of `*(q + i)`,
/// `q[i].f`), when there is such arithmetic.
fn pointer_base(p: &Place) -> Option<&Expr> {
    match p {
        Place::Deref(e, _) => match &e.kind {
            ExprKind::Binary(crate::ir::BinOp::Add | crate::ir::BinOp::Sub, a, b) => {
                if a.ty.is_pointer() {
                    Some(a)
                } else if b.ty.is_pointer() {
                    Some(b)
                } else {
                    None
                }
            }
            _ => None,
        },
        Place::Field(b, ..) | Place::Index(b, ..) => pointer_base(b),
        Place::Var(_) => None,
    }
}

/// The operand of an integer conversion between integer types that `e` is (`(char)c`).
fn converted(e: &Expr) -> Option<&Expr> {
    match &e.kind {
        ExprKind::Cast(x) if e.ty.is_integer() && x.ty.is_integer() => Some(x),
        _ => None,
    }
}

/// How a value stored as type `from` reads as type `to`.
#[derive(Clone, Copy, Debug)]
enum Reinterpret {
    /// The same value.
    Same,
    /// The same bits as an integer of the other signedness.
    Sign { bits: u8, to_signed: bool },
}

/// Whether bytes written or read as `from` can be read back as `to` by the memory layer.
fn reinterpret(from: &CType, to: &CType) -> Option<Reinterpret> {
    if same_repr(from, to) {
        return Some(Reinterpret::Same);
    }
    match (from, to) {
        (CType::Int { bits: a, .. }, CType::Int { bits: b, signed }) if a == b => {
            Some(Reinterpret::Sign {
                bits: *b,
                to_signed: *signed,
            })
        }
        _ => None,
    }
}

/// Whether values of types `a` and `b` are stored alike: the same arithmetic type, or two
/// pointers (whose pointee types may be the two versions' copies of one struct).
pub fn same_repr(a: &CType, b: &CType) -> bool {
    a == b || (a.is_pointer() && b.is_pointer())
}

/// Whether `p` is reached through a pointer.
pub fn through_pointer(p: &Place) -> bool {
    p.root_var().is_none()
}

/// What an instruction's expressions make the memory layer follow: a read through a pointer
/// (with whether it happens whenever the expression is evaluated: not behind `&&` or `||`), or
/// a narrowing integer conversion.
enum Item<'a> {
    Read(&'a Place, bool),
    Conv(&'a Expr),
}

/// Whether `e` is a conversion to a narrower integer type (whose value the domain cannot
/// follow when the operand spans several multiples of the modulus).
fn narrowing(e: &Expr) -> Option<&Expr> {
    match (&e.kind, &e.ty) {
        (ExprKind::Cast(x), CType::Int { bits, .. }) if *bits <= 16 => match x.ty {
            CType::Int { bits: from, .. } if from > *bits => Some(x),
            _ => None,
        },
        _ => None,
    }
}

/// The reads through pointers and the conversions in `e`, inner ones first (an address may
/// depend on a read).
fn reads_in<'a>(e: &'a Expr, definite: bool, out: &mut Vec<Item<'a>>) {
    match &e.kind {
        ExprKind::Load(p) => {
            reads_in_place(p, definite, out);
            if through_pointer(p) && e.ty.is_scalar() {
                out.push(Item::Read(p, definite));
            }
        }
        ExprKind::AddrOf(p) => reads_in_place(p, definite, out),
        ExprKind::Cast(x) => {
            reads_in(x, definite, out);
            if narrowing(e).is_some() {
                out.push(Item::Conv(e));
            }
        }
        ExprKind::Unary(_, x) => reads_in(x, definite, out),
        ExprKind::Binary(_, a, b) => {
            reads_in(a, definite, out);
            reads_in(b, definite, out);
        }
        ExprKind::Logic(_, a, b) => {
            reads_in(a, definite, out);
            reads_in(b, false, out);
        }
        _ => {}
    }
}

fn reads_in_place<'a>(p: &'a Place, definite: bool, out: &mut Vec<Item<'a>>) {
    match p {
        Place::Var(_) => {}
        Place::Deref(e, _) => reads_in(e, definite, out),
        Place::Index(b, i, _) => {
            reads_in_place(b, definite, out);
            reads_in(i, definite, out);
        }
        Place::Field(b, ..) => reads_in_place(b, definite, out),
    }
}

impl<'a> Sites<'a> {
    /// The sites of `f` (up to [`MAX_SITES`]), with the dimensions of their slots added to
    /// `dims`.
    pub fn new(
        f: &'a GclFunction,
        structs: &[StructDef],
        dims: &mut Dims,
        origin_side: impl Fn(usize) -> Side,
    ) -> Sites<'a> {
        let mut sites = vec![];
        let mut at: HashMap<usize, Vec<usize>> = HashMap::new();
        let mut planned = vec![];
        for (pos, ins) in f.instrs.iter().enumerate() {
            let mut reads = vec![];
            let mut store = None;
            match &ins.kind {
                InstrKind::Assign(p, e) => {
                    reads_in_place(p, true, &mut reads);
                    reads_in(e, true, &mut reads);
                    store = Some(p);
                }
                InstrKind::SetGuard(_, e) => reads_in(e, true, &mut reads),
                InstrKind::Call { dest, callee, args } => {
                    if let Callee::Indirect(e) = callee {
                        reads_in(e, true, &mut reads);
                    }
                    for a in args {
                        reads_in(a, true, &mut reads);
                    }
                    if let Some(d) = dest {
                        reads_in_place(d, true, &mut reads);
                    }
                }
                InstrKind::Havoc(p) | InstrKind::ZeroFill(p) => reads_in_place(p, true, &mut reads),
                InstrKind::Goto(_) => {}
            }
            let store = store.filter(|p| through_pointer(p) && f.func.place_ty(p).is_scalar());
            let side = origin_side(pos);
            let all = reads
                .into_iter()
                .map(|item| match item {
                    Item::Read(p, definite) => (Some(p), None, false, definite),
                    Item::Conv(e) => (None, Some(e), false, true),
                })
                .chain(store.map(|p| (Some(p), None, true, true)));
            // An instruction's sites take distinct slots: their values are all read at once.
            for (place, conv, is_store, definite) in all.take(MAX_SLOTS) {
                if planned.len() >= MAX_SITES {
                    break;
                }
                let pre = matches!(&ins.kind, InstrKind::Assign(_, e) if is_store && converted(e).is_some());
                planned.push(Planned {
                    pos,
                    place,
                    conv,
                    store: is_store,
                    definite,
                    side,
                    pre,
                });
            }
        }
        // Dimensions per slot: sites take the slots in turn (neighbours rarely share one),
        // and a slot's value dimension ranges over every type its sites have.
        let slot_of = |k: usize| k % MAX_SLOTS;
        let n_slots = planned.len().min(MAX_SLOTS);
        let ty_of = |m: &Planned<'_>| match (m.place, m.conv) {
            (Some(p), _) => f.func.place_ty(p),
            (None, Some(e)) => e.ty.clone(),
            (None, None) => CType::Void,
        };
        let mut slots: Vec<SlotDims> = vec![];
        for slot in 0..n_slots {
            let members: Vec<&Planned<'_>> = planned
                .iter()
                .enumerate()
                .filter(|(k, _)| slot_of(*k) == slot)
                .map(|(_, x)| x)
                .collect();
            let tys: Vec<CType> = members.iter().map(|m| ty_of(m)).collect();
            let ty = slot_type(&tys);
            let k = slot as u32;
            let part = |part: MemPart, ty: CType, name: String, dims: &mut Dims| {
                dims.add(Loc::Mem { site: k, part, ty }, name)
            };
            // A conversion's "address" is the value it converts: any integer.
            let addr_ty = if members.iter().any(|m| m.conv.is_some()) {
                CType::Int {
                    bits: 65,
                    signed: true,
                }
            } else {
                CType::Ptr(Box::new(CType::Void))
            };
            slots.push(SlotDims {
                addr: part(MemPart::Addr, addr_ty, format!("&mem{k}"), dims),
                val: part(MemPart::Val, ty, format!("mem{k}"), dims),
                base: members
                    .iter()
                    .any(|m| m.place.and_then(pointer_base).is_some())
                    .then(|| {
                        part(
                            MemPart::Base,
                            CType::Ptr(Box::new(CType::Void)),
                            format!("&base{k}"),
                            dims,
                        )
                    }),
                pre: members
                    .iter()
                    .any(|m| m.pre)
                    .then(|| part(MemPart::Pre, CType::LONG, format!("pre{k}"), dims)),
            });
        }
        for (k, m) in planned.iter().enumerate() {
            let slot = &slots[slot_of(k)];
            let ty = ty_of(m);
            at.entry(m.pos).or_default().push(sites.len());
            sites.push(Site {
                pre: slot.pre.filter(|_| m.pre),
                base: slot
                    .base
                    .filter(|_| m.place.and_then(pointer_base).is_some()),
                place: m.place,
                conv: m.conv,
                pos: m.pos,
                size: layout_size(structs, &ty),
                ty,
                addr: slot.addr,
                val: slot.val,
                store: m.store,
                side: m.side,
                definite: m.definite,
                slot: slot_of(k),
            });
        }
        Sites { sites, at }
    }
}

impl<'a> Analyzer<'a> {
    /// The reads through pointers of instruction `p` in `s`, inner ones first: each site's
    /// address and value are assigned, the value taken from a fact at an equal address when
    /// one is valid for this version's memory (the same bytes read as an integer of the other
    /// signedness split the sub-state by sign), and the read recorded as a fact. Leaves the
    /// sites' values in `self.loads` for the instruction's own translation.
    pub(super) fn mem_reads(&mut self, p: usize, s: Sub) -> Result<Vec<Sub>> {
        self.loads.clear();
        self.convs.clear();
        let Some(ids) = self.sites.at.get(&p).cloned() else {
            return Ok(vec![s]);
        };
        let side = Tag::of(self.c.origin(crate::ir::Pos::new(p)).side);
        let mut pieces = vec![s];
        for id in ids {
            if self.sites.sites[id].store {
                continue;
            }
            let mut next = vec![];
            for s in pieces {
                next.extend(match self.sites.sites[id].place {
                    Some(_) => self.read(id, side, s)?,
                    None => self.convert(id, s)?,
                });
            }
            pieces = next;
            let site = &self.sites.sites[id];
            match (site.place, site.conv) {
                (Some(place), _) => self.loads.push((place, site.val)),
                (None, Some(e)) => self.convs.push((e, site.val)),
                (None, None) => {}
            }
        }
        Ok(pieces)
    }

    /// One read (site `id`) in `s`.
    fn read(&self, id: usize, side: Option<Tag>, mut s: Sub) -> Result<Vec<Sub>> {
        let site = &self.sites.sites[id];
        let Some(place) = site.place else {
            return Ok(vec![s]);
        };
        let addr = self.tr(&s).address(place).and_then(|a| a.as_linear());
        let mut from = None;
        let mut both_access_with = None;
        if let (Some(a), Some(side)) = (&addr, side) {
            for (&k, &tag) in &s.mem.facts {
                let f = &self.sites.sites[k as usize];
                let how = reinterpret(&f.ty, &site.ty);
                if !tag.valid_for(side) || how.is_none() {
                    continue;
                }
                if entails_eq(&s, a, f.addr, self.budget)? {
                    from = from.or(how.map(|h| (f.val, h)));
                    if site.definite && f.definite && f.side != site.side {
                        both_access_with = Some(k as usize);
                        break;
                    }
                }
            }
            if let Some(k) = both_access_with {
                // Both versions access these bytes: an invalid address is undefined in both.
                self.valid_access(&mut s, place, a, site.size)?;
                self.valid_recorded_access(&mut s, k)?;
            }
        }
        self.record_base(&mut s, id)?;
        let (ad, vd) = (site.addr, site.val);
        self.claim_slot(&mut s, id);
        match (&addr, side) {
            (Some(a), Some(side)) => {
                let shared = s.mem.equal
                    && !s.mem.globals_differ
                    && self.c.inputs.iter().all(|i| i.equal)
                    && self.clear_of_pending(&s, a, site.size)?;
                s.data.s_assign_linear(ad, a, self.budget)?;
                let tag = if shared { Tag::Shared } else { side };
                record(&mut s.mem, id as u32, tag);
            }
            _ => {
                s.data.s_forget(ad, self.budget)?;
                s.mem.facts.remove(&(id as u32));
            }
        }
        self.take_value(s, from, vd, &site.ty)
    }

    /// `vd` := the value `from` holds (the same bits read as the same type, or as the other
    /// signedness: then equal where the value fits both types, 2^bits apart elsewhere, one
    /// piece each), or a fresh value of type `ty` when there is none.
    fn take_value(
        &self,
        mut s: Sub,
        from: Option<(Dim, Reinterpret)>,
        vd: Dim,
        ty: &CType,
    ) -> Result<Vec<Sub>> {
        let mut out = vec![];
        match from {
            Some((v, Reinterpret::Same)) if v == vd => out.push(s),
            Some((v, Reinterpret::Same)) => {
                s.data.s_assign_linear(vd, &LinExpr::var(v), self.budget)?;
                out.push(s);
            }
            Some((v, Reinterpret::Sign { bits, to_signed })) => {
                // `v` may be `vd` itself (a fact of another site of the slot): constrained
                // first, then assigned.
                let half = 1i128 << (bits - 1);
                let (fits, shift) = if to_signed {
                    ((ConstraintKind::Le, half - 1), -(1i128 << bits))
                } else {
                    ((ConstraintKind::Ge, 0), 1i128 << bits)
                };
                let mut other = s.clone();
                super::transfer::meet(&mut s.data, &[(1, v)], fits.0, fits.1, self.budget)?;
                let flip = if to_signed {
                    (ConstraintKind::Ge, half)
                } else {
                    (ConstraintKind::Le, -1)
                };
                super::transfer::meet(&mut other.data, &[(1, v)], flip.0, flip.1, self.budget)?;
                s.data.s_assign_linear(vd, &LinExpr::var(v), self.budget)?;
                let moved = LinExpr::var(v)
                    .checked_add_constant(shift)
                    .expect("small constant");
                other.data.s_assign_linear(vd, &moved, self.budget)?;
                for piece in [s, other] {
                    if !piece.data.s_is_bottom(self.budget)? {
                        out.push(piece);
                    }
                }
            }
            None => {
                self.fresh(&mut s, vd, ty)?;
                out.push(s);
            }
        }
        Ok(out)
    }

    /// One narrowing conversion (site `id`) in `s`: its operand into the site's "address"
    /// dimension, its result into the value dimension — the translation's when it is exact,
    /// else the same bits as an earlier conversion of an equal operand (in either version:
    /// `(char)c` then `(unsigned char)c`), else the operand reduced into the type's range.
    fn convert(&self, id: usize, mut s: Sub) -> Result<Vec<Sub>> {
        let site = &self.sites.sites[id];
        let (ad, vd) = (site.addr, site.val);
        let Some(e) = site.conv else {
            return Ok(vec![s]);
        };
        let ExprKind::Cast(x) = &e.kind else {
            return Ok(vec![s]);
        };
        let tr = self.tr(&s);
        let direct = tr.expr(e).as_linear();
        let operand = tr.exact(x).as_linear();
        let reach = operand.as_ref().and_then(|l| self.concrete_interval(&s, l));
        let mut from = None;
        if let Some(a) = &operand {
            for k in s.mem.convs.iter().copied() {
                let f = &self.sites.sites[k as usize];
                if let Some(how) = reinterpret(&f.ty, &site.ty) {
                    if entails_eq(&s, a, f.addr, self.budget)? {
                        from = Some((f.val, how));
                        break;
                    }
                }
            }
        }
        self.claim_slot(&mut s, id);
        match &operand {
            Some(a) => {
                s.data.s_assign_linear(ad, a, self.budget)?;
                s.mem.convs.insert(id as u32);
            }
            None => {
                s.data.s_forget(ad, self.budget)?;
                s.mem.convs.remove(&(id as u32));
            }
        }
        match (direct, from, operand) {
            (Some(d), _, _) => {
                s.data.s_assign_linear(vd, &d, self.budget)?;
                Ok(vec![s])
            }
            (None, Some(f), _) => self.take_value(s, Some(f), vd, &site.ty),
            (None, None, Some(a)) => {
                s.data.s_assign_linear(vd, &a, self.budget)?;
                self.reduce_into(s, vd, &site.ty, reach)
            }
            (None, None, None) => self.take_value(s, None, vd, &site.ty),
        }
    }

    /// What an access without undefined behaviour implies: the bytes `[a, a + size)` lie in
    /// the 64-bit address space above null, and so does the pointer that pointer arithmetic
    /// started from (`p` of `p[i]`: the result must stay inside `p`'s object). This is what
    /// keeps an index counting along a buffer from wrapping (`n + 1` after reading `s[n]`).
    /// Assumed only where both versions access the same bytes (so an invalid address is
    /// undefined behaviour in both, inputs `equivalent` does not cover): a null check one
    /// version adds must stay a difference.
    fn valid_access(&self, s: &mut Sub, place: &Place, a: &LinExpr, size: u64) -> Result<()> {
        let base = pointer_base(place).and_then(|b| self.tr(s).expr(b).as_linear());
        let cs = access_constraints(a, size, base.as_ref());
        s.data.s_meet_constraints(&cs, self.budget)
    }

    /// [`Self::valid_access`] for the access site `k` recorded earlier (its address and base
    /// as they were then).
    fn valid_recorded_access(&self, s: &mut Sub, k: usize) -> Result<()> {
        let f = &self.sites.sites[k];
        let base = f.base.map(LinExpr::var);
        let cs = access_constraints(&LinExpr::var(f.addr), f.size, base.as_ref());
        s.data.s_meet_constraints(&cs, self.budget)
    }

    /// Record the pointer site `id`'s address arithmetic started from, as it is now.
    fn record_base(&self, s: &mut Sub, id: usize) -> Result<()> {
        let site = &self.sites.sites[id];
        let Some(d) = site.base else { return Ok(()) };
        match site
            .place
            .and_then(pointer_base)
            .and_then(|b| self.tr(s).expr(b).as_linear())
        {
            Some(b) => s.data.s_assign_linear(d, &b, self.budget),
            None => s.data.s_forget(d, self.budget),
        }
    }

    /// Site `id` is about to overwrite its slot's dimensions: the facts of the other sites of
    /// the slot end (a pending write among them leaves the memories unequal: what it wrote
    /// is no longer known).
    fn claim_slot(&self, s: &mut Sub, id: usize) {
        let slot = self.sites.sites[id].slot;
        let rival = |k: &u32| *k as usize != id && self.sites.sites[*k as usize].slot == slot;
        let others: Vec<u32> = s.mem.facts.keys().copied().filter(rival).collect();
        for k in others {
            s.mem.facts.remove(&k);
            if s.mem.pending.contains_key(&k) {
                s.mem.unequal();
            }
        }
        let convs: Vec<u32> = s.mem.convs.iter().copied().filter(rival).collect();
        for k in convs {
            s.mem.convs.remove(&k);
        }
    }

    /// A value nothing is known of but its type.
    fn fresh(&self, s: &mut Sub, d: Dim, ty: &CType) -> Result<()> {
        s.data.s_forget(d, self.budget)?;
        // Wrapping types always carry their range (see `translate`); so do narrow ones, whose
        // ranges keep conversions between signed and unsigned bytes exact.
        let narrow = matches!(ty, CType::Int { bits, .. } if *bits <= 16);
        if let Some((lo, hi)) = type_range(ty).filter(|_| narrow || wraps(ty, self.opts.overflow)) {
            super::transfer::meet(&mut s.data, &[(1, d)], ConstraintKind::Ge, lo, self.budget)?;
            super::transfer::meet(&mut s.data, &[(1, d)], ConstraintKind::Le, hi, self.budget)?;
        }
        Ok(())
    }

    /// A write of `value` (`None`: unknown) through pointer place `place` at position `p`,
    /// evaluated in `s` before the write: facts of this version that may overlap the written
    /// bytes are dropped and the write is recorded as a fact. With equal memories, it resolves
    /// a pending write of the other version of the same value to the same bytes, or becomes
    /// pending itself; otherwise the memories may differ anywhere.
    pub(super) fn mem_store(
        &mut self,
        p: usize,
        s: &mut Sub,
        place: &Place,
        value: Option<&Expr>,
    ) -> Result<()> {
        let side = Tag::of(self.c.origin(crate::ir::Pos::new(p)).side);
        let tr = self.tr(s);
        let addr = tr.address(place).and_then(|a| a.as_linear());
        let size = layout_size(self.dims.structs(), &self.f.func.place_ty(place));
        let val: Option<DExpr> = value.map(|v| tr.exact(v));
        let site = self.sites.at.get(&p).and_then(|ids| {
            ids.iter().copied().find(|&id| {
                self.sites.sites[id].store
                    && self.sites.sites[id]
                        .place
                        .is_some_and(|q| std::ptr::eq(q, place))
            })
        });
        let (Some(side), Some(a)) = (side, addr) else {
            return self.mem_clobber(s, Side::Glue);
        };
        let Some(id) = site else {
            // A write with no dimensions to record it: what it overwrote is lost.
            s.mem.unequal();
            return self.mem_clobber(s, Side::Glue);
        };
        let (ad, vd, ty) = {
            let st = &self.sites.sites[id];
            (st.addr, st.val, st.ty.clone())
        };
        // The other version's pending write this one mirrors, if any: same bytes, same value,
        // and still in place.
        // The value before a final integer conversion (`(char)c`), which the domain may know
        // although it cannot follow the conversion.
        let pre = value
            .and_then(converted)
            .and_then(|x| self.tr(s).exact(x).as_linear());
        let mut resolves = None;
        if s.mem.equal && s.mem.pending.get(&(id as u32)).is_none() {
            let v = val.as_ref().and_then(|v| v.as_linear());
            for (&k, &t) in &s.mem.pending {
                let f = &self.sites.sites[k as usize];
                let in_place = s.mem.facts.get(&k).is_some_and(|u| u.valid_for(t));
                let Some(how) = reinterpret(&f.ty, &ty) else {
                    continue;
                };
                if t == side
                    || !in_place
                    || f.size != size
                    || !entails_eq(s, &a, f.addr, self.budget)?
                {
                    continue;
                }
                let same_value = match &v {
                    Some(v) if same_bits(s, v, f.val, how, self.budget)? => true,
                    _ => match (&pre, f.pre, self.sites.sites[id].pre) {
                        (Some(x), Some(fp), Some(_)) => entails_eq(s, x, fp, self.budget)?,
                        _ => false,
                    },
                };
                if same_value {
                    resolves = Some(k);
                    break;
                }
            }
        }
        // Drop what the write may overwrite.
        let sites = &self.sites.sites;
        let budget = self.budget;
        let data = s.data.clone();
        s.mem.drop_facts(side, |k| {
            let f = &sites[k as usize];
            Ok(!disjoint(&data, &a, size, f.addr, f.size, budget)?)
        })?;
        // Record the write (in its slot: a resolved write's fact lives on in this one's if
        // they share it).
        if let Some(k) = resolves {
            s.mem.pending.remove(&k);
        }
        self.claim_slot(s, id);
        self.record_base(s, id)?;
        if let Some(d) = self.sites.sites[id].pre {
            match &pre {
                Some(x) => s.data.s_assign_linear(d, x, self.budget)?,
                None => s.data.s_forget(d, self.budget)?,
            }
        }
        s.data.s_assign_linear(ad, &a, self.budget)?;
        match &val {
            Some(v) => s.data.s_assign_expr(vd, v, self.budget)?,
            None => self.fresh(s, vd, &ty)?,
        }
        match resolves {
            Some(k) => {
                // Both versions write these bytes: an invalid address is undefined in both.
                self.valid_access(s, place, &a, size)?;
                self.valid_recorded_access(s, k as usize)?;
                // Both memories now hold the value there.
                if self.sites.sites[k as usize].slot != self.sites.sites[id].slot {
                    s.mem.facts.insert(k, Tag::Shared);
                }
                record(&mut s.mem, id as u32, Tag::Shared);
            }
            None if s.mem.equal
                && s.mem.pending.len() < MAX_PENDING
                && !s.mem.pending.contains_key(&(id as u32)) =>
            {
                s.mem.pending.insert(id as u32, side);
                record(&mut s.mem, id as u32, side);
            }
            None => {
                s.mem.unequal();
                record(&mut s.mem, id as u32, side);
            }
        }
        Ok(())
    }

    /// Whether bytes `[a, a + size)` provably lie outside every pending write.
    fn clear_of_pending(&self, s: &Sub, a: &LinExpr, size: u64) -> Result<bool> {
        for k in s.mem.pending.keys() {
            let f = &self.sites.sites[*k as usize];
            if !disjoint(&s.data, a, size, f.addr, f.size, self.budget)? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// Something of `side` may have written anywhere (a call, a write to an object whose
    /// address is unknown): its facts are dropped and the memories may differ. `Side::Glue`
    /// drops every fact.
    pub(super) fn mem_clobber(&self, s: &mut Sub, side: Side) -> Result<()> {
        s.mem.unequal();
        match Tag::of(side) {
            None => s.mem.facts.clear(),
            Some(t) => s.mem.drop_facts(t, |_| Ok(true))?,
        }
        Ok(())
    }

    /// A direct write to variable place `dest` (not through a pointer): a global is memory the
    /// caller shares, an address-taken variable memory a pointer may read; either drops this
    /// version's facts (their addresses may be its), and a global makes the globals differ
    /// (unless the other version writes it alike, see [`Self::mem_pair_done`]).
    pub(super) fn mem_direct_write(&self, s: &mut Sub, dest: &Place, side: Side) -> Result<()> {
        let Some(v) = dest.root_var() else {
            return Ok(());
        };
        let info = self.f.func.var(v);
        let global = matches!(info.kind, VarKind::Global(_));
        if !(global || info.addr_taken) {
            return Ok(());
        }
        if let Some(t) = Tag::of(side) {
            s.mem.drop_facts(t, |_| Ok(true))?;
        } else {
            s.mem.facts.clear();
        }
        s.mem.globals_differ |= global;
        Ok(())
    }

    /// Globals of `side` may have been written (a helper of the file that stores nothing
    /// through pointers): this version's facts may be stale, and the globals may differ.
    pub(super) fn mem_globals_written(&self, s: &mut Sub, side: Side) -> Result<()> {
        match Tag::of(side) {
            Some(t) => s.mem.drop_facts(t, |_| Ok(true))?,
            None => s.mem.facts.clear(),
        }
        s.mem.globals_differ = true;
        Ok(())
    }

    /// At a loop head whose body spans positions `body`: the facts of the conversions inside
    /// the body end, their dimensions forgotten. The body converts again in each iteration
    /// (the fact saves nothing there), and joining the iterations' sign splits of a conversion
    /// (`c'' = c'` where `c' >= 0`, `c' + 256` below) builds hulls whose constraints grow with
    /// every iteration until a domain operation exceeds its budget and everything is lost.
    /// Conversions before the loop keep their facts: the body's conversions of the same
    /// operand find them in every iteration.
    pub(super) fn mem_loop_head(
        &self,
        s: &mut Sub,
        body: std::ops::RangeInclusive<usize>,
    ) -> Result<()> {
        let inside: Vec<u32> = s
            .mem
            .convs
            .iter()
            .copied()
            .filter(|&k| body.contains(&self.sites.sites[k as usize].pos))
            .collect();
        for k in inside {
            s.mem.convs.remove(&k);
            let site = &self.sites.sites[k as usize];
            s.data.s_forget(site.addr, self.budget)?;
            s.data.s_forget(site.val, self.budget)?;
        }
        // So do the body's reads and settled writes (a pending write stays: the memories'
        // equality depends on it), for the same reason: the next iteration reads again.
        let stale: Vec<u32> = s
            .mem
            .facts
            .keys()
            .copied()
            .filter(|k| {
                body.contains(&self.sites.sites[*k as usize].pos) && !s.mem.pending.contains_key(k)
            })
            .collect();
        for k in stale {
            s.mem.facts.remove(&k);
            let site = &self.sites.sites[k as usize];
            for d in [Some(site.addr), Some(site.val), site.base, site.pre]
                .into_iter()
                .flatten()
            {
                s.data.s_forget(d, self.budget)?;
            }
        }
        Ok(())
    }

    /// After a matched pair that wrote the same thing to both memories (equal stores, equal
    /// external calls, equal writes to a paired global): if the memories were equal before,
    /// they are again.
    pub(super) fn mem_pair_done(&self, s: &mut Sub, equal_before: bool) {
        if equal_before {
            s.mem.make_equal();
        }
    }
}

fn record(m: &mut Mem, site: u32, tag: Tag) {
    m.facts.insert(site, tag);
    while m.facts.len() > MAX_FACTS {
        let Some(first) = m
            .facts
            .keys()
            .find(|k| **k != site && !m.pending.contains_key(k))
            .copied()
        else {
            break;
        };
        m.facts.remove(&first);
    }
}

fn entails_eq(s: &Sub, a: &LinExpr, d: Dim, b: &crate::limits::Budget) -> Result<bool> {
    if a.terms().len() == 1 && a.constant_term() == 0 && a.coeff(d) == 1 {
        return Ok(true);
    }
    let Some(e) = a.checked_sub(&LinExpr::var(d)) else {
        return Ok(false);
    };
    s.data
        .s_entails(&LinConstraint::new(e, ConstraintKind::Eq), b)
}

/// Whether value `a` of a write and the value in dimension `d` of another write, of the same
/// type or (`how`) of the same width and the other signedness, provably store the same bytes:
/// equal, or differing by the width's modulus (the sign splits of a byte read as `char` and
/// copied as `unsigned char` put each sub-state in one of the cases).
fn same_bits(
    s: &Sub,
    a: &LinExpr,
    d: Dim,
    how: Reinterpret,
    b: &crate::limits::Budget,
) -> Result<bool> {
    if entails_eq(s, a, d, b)? {
        return Ok(true);
    }
    let Reinterpret::Sign { bits, .. } = how else {
        return Ok(false);
    };
    if bits >= 64 {
        return Ok(false);
    }
    let m = 1i128 << bits;
    for k in [m, -m] {
        if let Some(shifted) = a.checked_add_constant(k) {
            if entails_eq(s, &shifted, d, b)? {
                return Ok(true);
            }
        }
    }
    Ok(false)
}

/// Whether bytes `[a, a + n)` and `[d, d + m)` provably do not overlap.
fn disjoint(
    data: &dizy_domains::AnyDomain,
    a: &LinExpr,
    n: u64,
    d: Dim,
    m: u64,
    b: &crate::limits::Budget,
) -> Result<bool> {
    let dv = LinExpr::var(d);
    // a + n <= d, or d + m <= a.
    for (lhs, rhs, k) in [(a, &dv, n), (&dv, a, m)] {
        let Some(e) = lhs
            .checked_sub(rhs)
            .and_then(|e| e.checked_add(&LinExpr::constant(i128::from(k))))
        else {
            continue;
        };
        if data.s_entails(&LinConstraint::new(e, ConstraintKind::Le), b)? {
            return Ok(true);
        }
    }
    Ok(false)
}
