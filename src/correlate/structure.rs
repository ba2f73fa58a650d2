//! Loop and jump structure of one GCL function, as a tree the diff can align.
//!
//! Takes a [`GclFunction`]; gives a list of [`Item`]s: single instructions, *clean* loops (a label
//! whose only incoming jump is one backward `goto` closing the region), and *opaque* blocks (code
//! with forward jumps or irregular backward ones). The correlator may interleave the other
//! version's instructions between items and inside clean loops, but never inside an opaque block:
//! a jump there would skip the other version's code.
//!
//! The builder may also schedule a clean loop with a flat body differently (`build::schedule`):
//! copies of its body run before it (peeled iterations, [`Item::Copy`] with `peel`) or several
//! times per iteration of the product (unrolled, [`Item::Copy`] without), each copy closed by an
//! [`Item::Step`]. A clean loop is straight-line code closed by one conditional backward jump,
//! so `L: B; if (c) goto L` equals `B; if (c) { L: B; if (c) goto L }` and its body may be
//! repeated under the guard that says whether the loop still runs.

use crate::gcl::GclFunction;

#[derive(Clone, Debug)]
pub enum Item {
    Instr(usize),
    /// Instructions `head..=back`; `back` is the closing `goto`, `head` carries the label.
    Loop {
        head: usize,
        back: usize,
        body: Vec<Item>,
    },
    /// Instructions `start..=end`, kept together.
    Opaque {
        start: usize,
        end: usize,
    },
    /// Another run of instruction `instr` of a loop's body: in a peeled iteration before the
    /// loop at `peel` (under that loop's peel guard), or, with `peel: None`, in an unrolled
    /// iteration inside the product's loop (under the loop's activity guard, as the original).
    Copy {
        instr: usize,
        peel: Option<usize>,
    },
    /// The first iterations of the clean loop at `head` (flat body), run in lockstep with the
    /// other version's loop it is matched with and only while that loop runs; the loop itself
    /// (the next item) then goes on from where they stopped. How one loop is matched with two
    /// consecutive loops of the other version (an unrolled loop and its remainder). Unmatched,
    /// it runs no iteration.
    Prefix {
        head: usize,
        back: usize,
        body: Vec<Item>,
    },
    /// The end of one copied iteration of the loop at `head` closed by the jump at `back`: the
    /// guard that says whether the loop still runs (the peel guard, or the lockstep activity
    /// guard) becomes the jump's condition.
    Step {
        head: usize,
        back: usize,
        peel: bool,
    },
}

impl Item {
    /// The instruction whose key this item compares by, for single instructions and copies.
    pub fn instr(&self) -> Option<usize> {
        match self {
            Item::Instr(i) | Item::Copy { instr: i, .. } => Some(*i),
            _ => None,
        }
    }
}

impl Item {
    /// A loop or a loop's prefix: its head, its backward jump and its body.
    pub fn as_loop(&self) -> Option<(usize, usize, &[Item])> {
        match self {
            Item::Loop { head, back, body } | Item::Prefix { head, back, body } => {
                Some((*head, *back, body))
            }
            _ => None,
        }
    }
}

/// Whether a loop's body is straight-line code (no inner loop, no jump), so that it can be
/// copied as it is.
pub fn flat(body: &[Item]) -> bool {
    body.iter().all(|it| matches!(it, Item::Instr(_)))
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    Loop,
    Opaque,
}

#[derive(Clone, Copy, Debug)]
struct Span {
    a: usize,
    b: usize,
    kind: Kind,
}

impl Span {
    fn contains(&self, o: &Span) -> bool {
        self.a <= o.a && o.b <= self.b
    }
    fn overlaps(&self, o: &Span) -> bool {
        self.a <= o.b && o.a <= self.b
    }
}

/// Structure `f.instrs` into items.
pub fn items(f: &GclFunction) -> Vec<Item> {
    let n = f.instrs.len();
    let mut incoming = vec![0usize; f.labels.len()];
    let gotos: Vec<(usize, usize, usize)> = crate::gcl::Cfg::new(f)
        .jumps()
        .map(|(j, t, l)| (j.index(), t.index(), l.index()))
        .collect();
    for &(_, _, l) in &gotos {
        incoming[l] += 1;
    }
    let mut spans: Vec<Span> = vec![];
    for &(j, t, l) in &gotos {
        if t <= j {
            let kind = if incoming[l] == 1 && f.labels.iter().filter(|&&x| x == t).count() == 1 {
                Kind::Loop
            } else {
                Kind::Opaque
            };
            spans.push(Span { a: t, b: j, kind });
        } else if t > j + 1 {
            // forward jump over instructions j+1..t-1: the goto and what it skips stay together
            spans.push(Span {
                a: j,
                b: (t - 1).min(n.saturating_sub(1)),
                kind: Kind::Opaque,
            });
        } else {
            spans.push(Span {
                a: j,
                b: j,
                kind: Kind::Opaque,
            });
        }
    }
    // Loops sharing a label with another jump became opaque above; now resolve overlaps: an
    // opaque span swallows anything it partially overlaps or contains, crossing loops become one
    // opaque span.
    loop {
        let mut changed = false;
        'outer: for i in 0..spans.len() {
            for k in 0..spans.len() {
                if i == k {
                    continue;
                }
                let (x, y) = (spans[i], spans[k]);
                if !x.overlaps(&y) {
                    continue;
                }
                let nested = x.contains(&y) || y.contains(&x);
                let swallow = x.kind == Kind::Opaque && (!nested || x.contains(&y));
                // A jump inside a loop to its exit (just past the back edge) is a second way
                // out: the loop is not clean, or the product would leave it while the other
                // version is still iterating.
                let exits = x.kind == Kind::Opaque && y.kind == Kind::Loop && x.b >= y.b;
                if swallow || exits || (!nested && x.kind == Kind::Loop && y.kind == Kind::Loop) {
                    spans[i] = Span {
                        a: x.a.min(y.a),
                        b: x.b.max(y.b),
                        kind: Kind::Opaque,
                    };
                    spans.remove(k);
                    changed = true;
                    break 'outer;
                }
                if x.kind == Kind::Loop && y.kind == Kind::Loop && x.a == y.a && x.b == y.b && i < k
                {
                    spans.remove(k);
                    changed = true;
                    break 'outer;
                }
            }
        }
        if !changed {
            break;
        }
    }
    spans.sort_by_key(|s| (s.a, std::cmp::Reverse(s.b)));
    build(0, n, &spans)
}

/// Items for instructions `from..to` given the (properly nested) spans.
fn build(from: usize, to: usize, spans: &[Span]) -> Vec<Item> {
    let mut out = vec![];
    let mut i = from;
    while i < to {
        // the outermost span starting at i (sorted by start, longest first)
        match spans.iter().find(|s| s.a == i && s.b < to) {
            Some(s) if s.kind == Kind::Opaque => {
                out.push(Item::Opaque {
                    start: s.a,
                    end: s.b,
                });
                i = s.b + 1;
            }
            Some(s) => {
                let inner: Vec<Span> = spans
                    .iter()
                    .filter(|x| s.contains(x) && !(x.a == s.a && x.b == s.b))
                    .copied()
                    .collect();
                let body = build(s.a, s.b, &inner);
                out.push(Item::Loop {
                    head: s.a,
                    back: s.b,
                    body,
                });
                i = s.b + 1;
            }
            None => {
                out.push(Item::Instr(i));
                i += 1;
            }
        }
    }
    out
}

/// Every instruction index an item covers, in order.
pub fn indices(item: &Item, out: &mut Vec<usize>) {
    match item {
        Item::Instr(i) => out.push(*i),
        Item::Loop { head, back, .. } => out.extend(*head..=*back),
        Item::Opaque { start, end } => out.extend(*start..=*end),
        Item::Copy { instr, .. } => out.push(*instr),
        Item::Step { .. } | Item::Prefix { .. } => {}
    }
}
