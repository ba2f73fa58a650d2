//! Coverage-guided search: inputs, memory and environment results mutated together.
//!
//! Takes a [`Runner`] (both versions, the function, the parameters and their memory candidates)
//! and a deadline; gives the first validated witness its runs meet, or nothing. The strategies
//! before it vary one dimension at a time — parameters with the environment's results at zero,
//! or one environment function's result with the parameters at their first candidate — while
//! real functions often part only where several hold at once: a struct whose member chain is
//! non-null, a helper that returns a non-empty string, and a length past a bound. Here, as in
//! AFL, a corpus of inputs grows by mutation (a parameter's scalar, a field of a buffer or of a
//! struct a member points to, a buffer's length, a candidate of the memory layer, what an
//! environment function returns), and a child joins the corpus when the runs of both versions
//! reach instructions, or loop counts, no earlier input reached. Every run is an ordinary
//! candidate of the runner, validated as any other.

use std::collections::HashSet;
use std::time::Instant;

use super::memory::{self, is_char, Alphabet, Candidates, Input, Shape};
use super::{search as strategies, Runner, Witness};
use crate::interp::{self, ExtResult, Link, Value, World};
use crate::ir::{CType, Program};

/// One member of the corpus: every parameter's input and the environment's results.
#[derive(Clone)]
struct Seed {
    inputs: Vec<Input>,
    world: World,
}

/// Runs the search may make beyond the runner's allowance, in multiples of it.
const EXTRA_RUNS: usize = 2;

/// Most inputs the corpus keeps (the oldest beyond it are dropped, the first kept).
const MAX_CORPUS: usize = 256;

/// Mutations applied to a parent to make one child: between one and this many.
const MAX_STACK: u64 = 4;

/// A xorshift generator: deterministic, so a search finds the same witness on every machine
/// (as far as its time allows).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }

    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
}

/// Run the coverage-guided search until `deadline`, the runner's budget, or a witness.
/// `starts`: scalar values (in parameter order) to begin from besides all zeros.
pub(super) fn search(
    r: &mut Runner,
    cands: &Candidates,
    alpha: &Alphabet,
    starts: &[Vec<i128>],
    deadline: Instant,
) -> Option<Witness> {
    let base = r.world.clone();
    *r.log.coverage.borrow_mut() = Some(HashSet::new());
    // Its own allowance of runs, beyond what the other strategies left.
    r.extra_runs = r.runs.saturating_sub(r.opts.max_runs) + EXTRA_RUNS * r.opts.max_runs;
    let found = run(r, cands, alpha, starts, deadline);
    r.extra_runs = 0;
    *r.log.coverage.borrow_mut() = None;
    r.world = base;
    found
}

fn run(
    r: &mut Runner,
    cands: &Candidates,
    alpha: &Alphabet,
    starts: &[Vec<i128>],
    deadline: Instant,
) -> Option<Witness> {
    let mut rng = Rng(0x2545_f491_4f6c_dd1d ^ (r.func.len() as u64) << 7);
    let mut seen: HashSet<u64> = HashSet::new();
    let mut corpus: Vec<Seed> = vec![];
    let done = |r: &Runner| r.exhausted() || Instant::now() > deadline;
    // The first inputs: the scalars of each start with the memory the other strategies used.
    let mut first: Vec<Vec<i128>> = vec![vec![0; r.params.len()]];
    first.extend(starts.iter().take(3).cloned());
    for vals in first {
        let inputs = start_inputs(r, &vals);
        let seed = Seed {
            inputs,
            world: r.world.clone(),
        };
        if let Some(w) = try_seed(r, &seed, &mut seen, &mut corpus) {
            return Some(w);
        }
        if done(r) {
            return None;
        }
    }
    if corpus.is_empty() {
        // No start ran (every one stopped before its first instruction): start from the first.
        let inputs = start_inputs(r, &[]);
        corpus.push(Seed {
            inputs,
            world: r.world.clone(),
        });
    }
    let mut tried: HashSet<u64> = HashSet::new();
    let mut skipped = 0;
    while !done(r) {
        // Recent finds more often: they are where the search is making progress.
        let parent = if rng.chance(50) {
            corpus.len() - 1 - rng.below(corpus.len().min(8))
        } else {
            rng.below(corpus.len())
        };
        let mut child = corpus[parent].clone();
        for _ in 0..1 + rng.next() % MAX_STACK {
            mutate(r, cands, alpha, &mut child, &mut rng);
        }
        // An input run before tells nothing new (mutations often undo one another).
        if !tried.insert(fingerprint(&child)) {
            skipped += 1;
            if skipped > MAX_SKIPPED {
                break;
            }
            continue;
        }
        skipped = 0;
        if let Some(w) = try_seed(r, &child, &mut seen, &mut corpus) {
            return Some(w);
        }
    }
    None
}

/// The inputs of a start: its scalar values (0 where it has none), the memory inputs the
/// earlier strategies used.
fn start_inputs(r: &Runner, vals: &[i128]) -> Vec<Input> {
    r.params
        .iter()
        .enumerate()
        .map(|(k, p)| match p.shape {
            Shape::Scalar(_) => Input::Scalar(vals.get(k).copied().unwrap_or(0).to_string()),
            _ => r.fill.get(k).cloned().unwrap_or(Input::Null),
        })
        .collect()
}

/// Children in a row that were all run before: the mutations have nothing new to offer.
const MAX_SKIPPED: usize = 10_000;

/// A hash of a seed's inputs and world.
fn fingerprint(seed: &Seed) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    format!("{:?}", seed.inputs).hash(&mut h);
    format!("{:?}", seed.world).hash(&mut h);
    h.finish()
}

const STRATEGY: &str = "search (coverage-guided)";

/// Runs [`shrink`] may make.
const SHRINK_RUNS: usize = 64;

/// A plainer witness near `w` (found on `inputs`, in the runner's current world): each integer
/// scalar made 0, 1 or half its value while the versions still differ, so that a reader sees
/// `x = 0` rather than a random number the mutations happened to reach.
fn shrink(r: &mut Runner, mut inputs: Vec<Input>, mut w: Witness) -> Witness {
    let mut runs = 0;
    for k in 0..inputs.len() {
        if !r.params[k].ty.is_integer() {
            continue;
        }
        while let Input::Scalar(text) = &inputs[k] {
            let Ok(v) = text.parse::<i128>() else {
                break;
            };
            let mut better = None;
            for c in [0, 1, v / 2] {
                if c.abs() >= v.abs() || runs >= SHRINK_RUNS || r.exhausted() {
                    continue;
                }
                runs += 1;
                let mut t = inputs.clone();
                t[k] = Input::Scalar(c.to_string());
                if let Some(x) = r.try_inputs(&t, STRATEGY) {
                    better = Some((t, x));
                    break;
                }
            }
            match better {
                Some((t, x)) => {
                    inputs = t;
                    w = x;
                }
                None => break,
            }
        }
    }
    w
}

/// Run `seed`; keep it in the corpus when its runs covered something new.
fn try_seed(
    r: &mut Runner,
    seed: &Seed,
    seen: &mut HashSet<u64>,
    corpus: &mut Vec<Seed>,
) -> Option<Witness> {
    r.world = seed.world.clone();
    let found = r.try_inputs(&seed.inputs, STRATEGY);
    if let Some(w) = found {
        return Some(shrink(r, seed.inputs.clone(), w));
    }
    let cov = r.log.coverage.borrow();
    let mut new = false;
    for f in cov.iter().flatten() {
        new |= seen.insert(*f);
    }
    if new {
        if corpus.len() >= MAX_CORPUS {
            corpus.remove(1);
        }
        corpus.push(seed.clone());
    }
    None
}

/// Change one thing of `seed`: a parameter, or what an environment function the runs called
/// returns.
fn mutate(r: &Runner, cands: &Candidates, alpha: &Alphabet, seed: &mut Seed, rng: &mut Rng) {
    let env: Vec<String> = r.log.env.borrow().clone();
    if !env.is_empty() && (r.params.is_empty() || rng.chance(30)) {
        let name = &env[rng.below(env.len())];
        mutate_world(r, alpha, &mut seed.world, name, rng);
        return;
    }
    if r.params.is_empty() {
        return;
    }
    let k = rng.below(r.params.len());
    let prog = &r.old.program;
    let p = &r.params[k];
    let input = &mut seed.inputs[k];
    match &p.shape {
        // A length or an index of a buffer of the input (`f(buf, len)`), or near one; or a
        // buffer resized and the length set to match.
        Shape::Scalar(t) if t.is_integer() && rng.chance(30) => {
            let bufs: Vec<usize> = (0..r.params.len())
                .filter(|&j| {
                    elem_size(&r.params[j].shape).is_some()
                        && matches!(seed.inputs[j], Input::Buffer(_) | Input::Misaligned(..))
                })
                .collect();
            let Some(&j) = bufs.get(rng.below(bufs.len())) else {
                return;
            };
            let (size, char_buffer) = match &r.params[j].shape {
                Shape::Buffer { elem, elem_size } => ((*elem_size as usize).max(1), is_char(elem)),
                _ => return,
            };
            let n = if rng.chance(50) {
                let n = [0, 1, 2, 3, 4, 5, 6, 7, 8, 12, 16, 32, 64, 100, 255, 256][rng.below(16)];
                let n = match alpha.ints.get(rng.below(alpha.ints.len() * 2)) {
                    Some(&v) if (0..=1024).contains(&v) => v as usize,
                    _ => n,
                };
                if let Input::Buffer(b) | Input::Misaligned(b, _) = &mut seed.inputs[j] {
                    resize(b, n, size, char_buffer, alpha, rng);
                }
                n as i128
            } else {
                let len = seed.inputs[j].buffer().map_or(0, <[u8]>::len) / size;
                len as i128 + [0, 0, -1, 1, -2][rng.below(5)]
            };
            seed.inputs[k] = Input::Scalar(n.max(0).to_string());
        }
        Shape::Scalar(t) => *input = Input::Scalar(scalar(t, input, alpha, rng)),
        Shape::Opaque(_) => {
            *input = if matches!(input, Input::Null) {
                Input::Opaque
            } else {
                Input::Null
            }
        }
        shape => {
            let c = &cands.per_param[k];
            let size = elem_size(shape).unwrap_or(1);
            // Into an earlier buffer of the same elements (a cursor and its end, `f(p, p + n)`),
            // or elsewhere in it.
            let earlier: Vec<usize> = (0..k)
                .filter(|&j| {
                    elem_size(&r.params[j].shape) == Some(size)
                        && matches!(seed.inputs[j], Input::Buffer(_) | Input::Misaligned(..))
                })
                .collect();
            let within = match seed.inputs[k] {
                Input::Within(j, _) => Some(j),
                _ if !earlier.is_empty() && rng.chance(10) => {
                    Some(earlier[rng.below(earlier.len())])
                }
                _ => None,
            };
            if let Some(j) = within.filter(|_| rng.chance(85)) {
                let n = seed.inputs[j].buffer().map_or(0, <[u8]>::len) / size;
                let now = match seed.inputs[k] {
                    Input::Within(_, off) => off as usize / size,
                    _ => n,
                };
                let m = match rng.below(4) {
                    0 => now + 1,
                    1 => now.saturating_sub(1),
                    2 => n,
                    _ => rng.below(n + 1),
                };
                seed.inputs[k] = Input::Within(j, (m.min(n) * size) as u64);
                return;
            }
            let input = &mut seed.inputs[k];
            if rng.chance(15) && !c.is_empty() {
                *input = c[rng.below(c.len())].clone();
            } else if rng.chance(8) {
                if let Some(x) = memory::random_input(prog, k, &r.params, alpha, &mut || rng.next())
                {
                    *input = x;
                }
            } else {
                mutate_memory(prog, shape, &p.name, input, alpha, rng);
            }
            // An alias must point at an earlier buffer.
            if let Input::SameAs(j) | Input::Within(j, _) = seed.inputs[k] {
                if seed.inputs.get(j).and_then(Input::buffer).is_none() {
                    seed.inputs[k] = c.first().cloned().unwrap_or(Input::Null);
                }
            }
        }
    }
}

/// The size of the elements of a buffer parameter.
fn elem_size(shape: &Shape) -> Option<usize> {
    match shape {
        Shape::Buffer { elem_size, .. } => Some((*elem_size as usize).max(1)),
        _ => None,
    }
}

/// A new value for a scalar parameter of type `t`: one of the code's constants, a neighbour of
/// the current value, a type boundary, or a random number of some magnitude.
fn scalar(t: &CType, current: &Input, alpha: &Alphabet, rng: &mut Rng) -> String {
    if t.is_float() {
        const SPECIAL: [&str; 19] = strategies::FLOAT_SPECIALS;
        return match rng.below(3) {
            0 => SPECIAL[rng.below(SPECIAL.len())].to_string(),
            _ => format!("{}.0", alpha.ints[rng.below(alpha.ints.len())]),
        };
    }
    let now = match current {
        Input::Scalar(s) => s.parse::<i128>().unwrap_or(0),
        _ => 0,
    };
    let v = integer(alpha, now, rng);
    // Out of the type's range: the runner rejects it, so bring it in.
    match t.int_info() {
        Some((bits, signed)) if bits < 128 => {
            let lo = if signed { -(1i128 << (bits - 1)) } else { 0 };
            let span = 1i128 << bits;
            (v - lo).rem_euclid(span) + lo
        }
        _ => v,
    }
    .to_string()
}

/// An integer near `now`, among the code's constants, or at a boundary.
fn integer(alpha: &Alphabet, now: i128, rng: &mut Rng) -> i128 {
    match rng.below(10) {
        0..=3 => alpha.ints[rng.below(alpha.ints.len())],
        4 => now + 1,
        5 => now - 1,
        6 => now + (rng.below(64) as i128 - 32),
        7 => [
            i128::from(i32::MAX),
            i128::from(i32::MIN),
            i128::from(u32::MAX),
            i128::from(i64::MAX),
            i128::from(u16::MAX),
            i128::from(u8::MAX),
        ][rng.below(6)],
        _ => {
            let magnitude = [16i128, 256, 65536, 1 << 31][rng.below(4)];
            (rng.next() as i128) % (2 * magnitude) - magnitude
        }
    }
}

/// A mutation of a memory input: a scalar of one of its elements (of the buffer itself or of
/// one its pointer members point to), a byte, its length.
fn mutate_memory(
    prog: &Program,
    shape: &Shape,
    name: &str,
    input: &mut Input,
    alpha: &Alphabet,
    rng: &mut Rng,
) {
    let elem = match shape {
        Shape::Buffer { elem, .. } => elem.clone(),
        Shape::Aggregate { ty, .. } => ty.clone(),
        _ => return,
    };
    let resizable = matches!(shape, Shape::Buffer { .. });
    match input {
        Input::Buffer(b) | Input::Misaligned(b, _) => {
            mutate_bytes(prog, &elem, b, resizable, alpha, rng)
        }
        Input::Aggregate(b) => mutate_bytes(prog, &elem, b, false, alpha, rng),
        Input::Linked(base, links) => {
            if links.len() >= 2 && rng.chance(15) {
                relink(prog, shape, name, links, rng);
                return;
            }
            // The object itself or one of the buffers its members point to.
            let k = rng.below(links.len() + 1);
            if k == links.len() {
                if let Input::Buffer(b) | Input::Misaligned(b, _) | Input::Aggregate(b) =
                    &mut **base
                {
                    // Its pointer members are the links': the length stays.
                    mutate_bytes(prog, &elem, b, false, alpha, rng);
                }
            } else if links[k].into.is_none() && links[k].func.is_none() {
                let Link { path, bytes, .. } = &mut links[k];
                if let Some((_, e)) = memory::link_target(prog, shape, name, path) {
                    // A buffer whose members are links of their own keeps its length.
                    mutate_bytes(
                        prog,
                        &e,
                        bytes,
                        path.len() == memory::LINK_DEPTH,
                        alpha,
                        rng,
                    );
                }
            }
        }
        _ => {}
    }
}

/// Point one linked member into the buffer of another member of the same element size (a
/// cursor and its limit, `r->ptr` and `r->limit`: code subtracts and compares them, which
/// means nothing for two buffers), at one of its elements or its end; or give one so linked a
/// buffer of its own again.
fn relink(prog: &Program, shape: &Shape, name: &str, links: &mut [Link], rng: &mut Rng) {
    let j = rng.below(links.len());
    let elem = |l: &Link| memory::link_target(prog, shape, name, &l.path).map(|(_, e)| e);
    let Some(e) = elem(&links[j]) else {
        return;
    };
    let size = prog.size_of(&e).max(1) as usize;
    if let Some((t, off)) = links[j].into {
        if rng.chance(25) {
            links[j].into = None;
            links[j].bytes = vec![0; 16 * size];
        } else {
            // Another place in the same buffer: near the current one, or anywhere in it.
            let n = (links[t].bytes.len() / size) as u64;
            let k = off / size as u64;
            let k = match rng.below(3) {
                0 => k + 1,
                1 => k.saturating_sub(1),
                _ => rng.below(n as usize + 1) as u64,
            };
            links[j].into = Some((t, k.min(n) * size as u64));
        }
        return;
    }
    let path = links[j].path.clone();
    let inside = |c: &Link| c.path.len() > path.len() && c.path.starts_with(&path);
    let targeted = |c: &Link| c.into.is_some_and(|(t, _)| t == j);
    if links.iter().any(|c| inside(c) || targeted(c)) {
        return;
    }
    let targets: Vec<usize> = (0..links.len())
        .filter(|&t| {
            t != j
                && links[t].into.is_none()
                && elem(&links[t]).is_some_and(|f| prog.size_of(&f) as usize == size.max(1))
        })
        .collect();
    let Some(&t) = targets.get(rng.below(targets.len())) else {
        return;
    };
    let n = links[t].bytes.len() / size;
    let k = if rng.chance(50) { n } else { rng.below(n + 1) };
    links[j].into = Some((t, (k * size) as u64));
    links[j].bytes.clear();
}

/// Mutate the bytes of a buffer of `elem`s: set a scalar member of one element (never a
/// pointer: the witness links those), set a byte, or (when `resizable`) add or drop an element.
fn mutate_bytes(
    prog: &Program,
    elem: &CType,
    bytes: &mut Vec<u8>,
    resizable: bool,
    alpha: &Alphabet,
    rng: &mut Rng,
) {
    let size = (prog.size_of(elem) as usize).max(1);
    let n = bytes.len() / size;
    // A word of the code's strings, at the start or anywhere.
    if is_char(elem) && !alpha.strings.is_empty() && rng.chance(15) {
        let word = &alpha.strings[rng.below(alpha.strings.len())];
        let at = if rng.chance(50) {
            0
        } else {
            rng.below(bytes.len())
        };
        if resizable {
            let end = (at + word.len()).min(bytes.len());
            bytes.splice(at..end, word.iter().copied());
            if bytes.len() > MAX_BUFFER {
                bytes.truncate(MAX_BUFFER);
            }
        } else {
            for (d, w) in bytes.iter_mut().skip(at).zip(word) {
                *d = *w;
            }
        }
        return;
    }
    if resizable && rng.chance(25) {
        if (rng.chance(50) || n <= 1) && bytes.len() + 8 * size <= MAX_BUFFER {
            // Grow by one to eight elements: copies of the last one (a string gets characters
            // before its terminator).
            let at = n.saturating_sub(1) * size;
            let copy: Vec<u8> = bytes
                .get(at..at + size)
                .map_or(vec![0; size], <[u8]>::to_vec);
            let at = if is_char(elem) && bytes.last() == Some(&0) {
                bytes.len() - 1
            } else {
                bytes.len()
            };
            let count = [1, 1, 2, 4, 8][rng.below(5)];
            let fill: Vec<u8> = if is_char(elem) {
                (0..count)
                    .map(|_| alpha.bytes[rng.below(alpha.bytes.len())])
                    .collect()
            } else {
                copy.repeat(count)
            };
            bytes.splice(at..at, fill);
        } else if n > 1 {
            let at = rng.below(n) * size;
            bytes.drain(at..at + size);
        }
        return;
    }
    if n == 0 {
        return;
    }
    let at = rng.below(n) * size;
    let leaves: Vec<(u64, CType)> = crate::ir::scalar_leaves(&prog.structs, elem, 256)
        .unwrap_or_default()
        .into_iter()
        .filter(|(_, _, t)| !t.is_pointer())
        .map(|(_, off, t)| (off, t))
        .collect();
    if leaves.is_empty() || rng.chance(10) {
        // A raw byte: the code's characters, or any.
        let i = rng.below(bytes.len());
        bytes[i] = if rng.chance(70) {
            alpha.bytes[rng.below(alpha.bytes.len())]
        } else {
            rng.next() as u8
        };
        return;
    }
    let (off, t) = &leaves[rng.below(leaves.len())];
    let lo = at + *off as usize;
    let width = prog.size_of(t) as usize;
    let Some(dst) = bytes.get_mut(lo..lo + width) else {
        return;
    };
    let now = interp::scalar_from_bytes(t, dst).map_or(0, |v| match v {
        Value::Int(x) => x,
        _ => 0,
    });
    let v = if is_char(t) && rng.chance(60) {
        i128::from(alpha.bytes[rng.below(alpha.bytes.len())])
    } else {
        integer(alpha, now, rng)
    };
    let val = match t {
        CType::Float => Value::Float(v as f32),
        CType::Double => Value::Double(v as f64),
        CType::Bool => Value::Int(i128::from(v != 0)),
        _ => Value::Int(v),
    };
    dst.copy_from_slice(&interp::scalar_bytes(t, val, width));
}

/// Make `bytes` hold `n` elements of `size` bytes (a `char` buffer `n` characters and its
/// terminator), new ones copies of the last or characters of the code.
fn resize(
    bytes: &mut Vec<u8>,
    n: usize,
    size: usize,
    char_buffer: bool,
    alpha: &Alphabet,
    rng: &mut Rng,
) {
    if char_buffer {
        let text = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
        bytes.truncate(text.min(n));
        while bytes.len() < n {
            bytes.push(alpha.bytes[rng.below(alpha.bytes.len())]);
        }
        bytes.push(0);
    } else {
        let last: Vec<u8> = match bytes.len() / size {
            0 => vec![0; size],
            m => bytes[(m - 1) * size..m * size].to_vec(),
        };
        bytes.truncate(n * size);
        while bytes.len() < n * size {
            bytes.extend_from_slice(&last);
        }
    }
}

/// Longest buffer a mutation grows.
const MAX_BUFFER: usize = 4096;

/// Change what environment function `name` returns: another of the results worth trying, or
/// a mutation of the buffer it returns.
fn mutate_world(r: &Runner, alpha: &Alphabet, world: &mut World, name: &str, rng: &mut Rng) {
    let ret = r.return_type(name);
    if let (Some(ExtResult::Buffer(b)), CType::Ptr(p)) = (world.results.get_mut(name), &ret) {
        if rng.chance(60) {
            let elem = if **p == CType::Void {
                CType::UCHAR
            } else {
                (**p).clone()
            };
            mutate_bytes(&r.old.program, &elem, b, true, alpha, rng);
            return;
        }
    }
    let options = strategies::world_candidates(&r.old.program, &ret, alpha);
    if options.is_empty() || rng.chance(10) {
        world.results.remove(name);
        return;
    }
    let pick = options[rng.below(options.len())].clone();
    world.results.insert(name.to_string(), pick);
}
