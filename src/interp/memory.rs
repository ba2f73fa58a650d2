//! Byte-addressed memory of the interpreter: one object per variable, global and string literal.
//!
//! Takes allocation, read and write requests from the evaluator and gives bytes or a [`MemErr`]
//! saying precisely what was wrong (null, dangling, out of bounds, uninitialized, read-only, …);
//! the evaluator turns that into a `RunError` with the source line. Each object keeps an
//! "initialized" flag per byte so reads of indeterminate values are caught, and objects of
//! finished calls stay as tombstones so dangling pointers are caught.
//!
//! Pointers are plain `u64` addresses: `(object id + 1) << 32 | (offset + 2^31)`, so that a
//! pointer a little before or past its object (`s - 1`, formed but never dereferenced: undefined
//! behaviour of the arithmetic, which no sanitizer reports) still compares and subtracts as
//! natively; 0 is null; addresses
//! whose high word is at least [`FUNC_BASE`] denote functions (index into the interpreter's
//! function-name table). Objects are treated as 16-byte aligned; an object may start `start`
//! bytes into its slot (a caller's buffer at a misaligned address: `(uintptr_t)p & 7` is then
//! `start & 7`), the bytes before it out of bounds.

/// First high word used for function addresses; object ids stay below it.
pub(super) const FUNC_BASE: u64 = 0xFFFF_0000;
/// Added to an object offset in an address (a multiple of 16: alignment shows in the low bits).
const BIAS: i64 = 1 << 31;
/// How far outside its object pointer arithmetic may go and still give a comparable address.
const SLACK: i128 = 1 << 30;

/// Largest single object and largest total of live bytes the interpreter will allocate.
const MAX_OBJECT: u64 = 1 << 30;
const MAX_LIVE: u64 = 2 << 30;

/// What an object is, for messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Desc {
    /// Variable `var` of function `func` (indices into the GCL program).
    Var {
        func: u32,
        var: u32,
    },
    Global(u32),
    Str(u32),
    /// The caller's buffer a pointer parameter (by index) points to at a top-level call.
    Input(u32),
    /// A buffer a pointer member of input `k`'s object points to ([`super::Arg::Linked`]).
    Pointee(u32),
    /// The object an environment function returned a pointer to (index into the run's
    /// returned objects).
    External(u32),
    /// The `k`-th allocation of the run (`malloc` and friends).
    Heap(u32),
}

pub(super) struct Obj {
    pub desc: Desc,
    pub bytes: Vec<u8>,
    pub init: Vec<bool>,
    pub readonly: bool,
    /// An `extern` declaration without definition: its contents are unknown.
    pub unknown: bool,
    /// Whether a pointer to the object was ever formed (see [`Slot::Free`]).
    pub escaped: bool,
    /// Offset of the object's first byte in `bytes` (the ones before are not part of it).
    pub start: u64,
}

enum Slot {
    Live(Box<Obj>),
    Dead {
        desc: Desc,
        size: u64,
        start: u64,
    },
    /// A dead object whose address was never taken: no pointer can refer to it, so the slot
    /// is reused (keeps memory bounded when a loop makes millions of calls).
    Free,
}

/// A decoded address.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Ptr {
    Null,
    /// `off` counts from the slot's first byte; negative or past the end for a pointer formed
    /// outside its object.
    Obj {
        id: u32,
        off: i64,
    },
    Func(u32),
    /// A non-null integer that points nowhere (e.g. cast from an arbitrary integer).
    Invalid,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum MemErr {
    Null,
    Invalid,
    Func,
    Dead(Desc),
    /// `off` counts from the object's first byte (negative: before it).
    OutOfBounds {
        desc: Desc,
        off: i128,
        size: u64,
        len: u64,
    },
    ReadOnly(Desc),
    Unknown(Desc),
    Uninit {
        desc: Desc,
        off: u64,
        whole: bool,
    },
    ArithOutOfBounds {
        desc: Desc,
        off: i128,
        len: u64,
    },
    NullArith,
    TooBig(u64),
}

pub(super) fn encode(id: u32, off: u64) -> u64 {
    encode_signed(id, off as i64)
}

/// [`encode`] for an offset that may lie outside the object (within [`SLACK`]).
fn encode_signed(id: u32, off: i64) -> u64 {
    ((u64::from(id) + 1) << 32) | (off + BIAS) as u64
}

pub(super) fn func_addr(idx: u32) -> u64 {
    (FUNC_BASE + u64::from(idx)) << 32
}

pub(super) fn decode(a: u64) -> Ptr {
    let hi = a >> 32;
    if a == 0 {
        Ptr::Null
    } else if hi == 0 {
        Ptr::Invalid
    } else if hi >= FUNC_BASE {
        if a & 0xFFFF_FFFF == 0 {
            Ptr::Func((hi - FUNC_BASE) as u32)
        } else {
            Ptr::Invalid
        }
    } else {
        Ptr::Obj {
            id: (hi - 1) as u32,
            off: (a & 0xFFFF_FFFF) as i64 - BIAS,
        }
    }
}

#[derive(Default)]
pub(super) struct Memory {
    slots: Vec<Slot>,
    free: Vec<u32>,
    live: u64,
}

impl Memory {
    /// A new object of `size` bytes, all zero; `init` says whether they count as initialized.
    pub fn alloc(&mut self, desc: Desc, size: u64, init: bool) -> Result<u32, MemErr> {
        self.alloc_at(desc, size, 0, init)
    }

    /// [`Memory::alloc`] for an object whose first byte lies `start` bytes into its slot
    /// (`start < 16`: its address is `start` past a 16-byte boundary).
    pub fn alloc_at(
        &mut self,
        desc: Desc,
        size: u64,
        start: u64,
        init: bool,
    ) -> Result<u32, MemErr> {
        let size = size.saturating_add(start);
        if size > MAX_OBJECT
            || self.live + size > MAX_LIVE
            || self.slots.len() as u64 >= FUNC_BASE - 2
        {
            return Err(MemErr::TooBig(size));
        }
        let n = size as usize;
        self.live += size;
        let obj = Slot::Live(Box::new(Obj {
            desc,
            bytes: vec![0; n],
            init: vec![init; n],
            readonly: false,
            unknown: false,
            escaped: false,
            start,
        }));
        if let Some(id) = self.free.pop() {
            self.slots[id as usize] = obj;
            return Ok(id);
        }
        self.slots.push(obj);
        Ok((self.slots.len() - 1) as u32)
    }

    /// Note that a pointer to the object at `addr` exists.
    pub fn escape(&mut self, addr: u64) {
        if let Ptr::Obj { id, .. } = decode(addr) {
            if let Some(Slot::Live(o)) = self.slots.get_mut(id as usize) {
                o.escaped = true;
            }
        }
    }

    /// End an object's lifetime; later accesses through old pointers report `Dead`.
    pub fn free(&mut self, id: u32) {
        if let Some(slot) = self.slots.get_mut(id as usize) {
            if let Slot::Live(o) = slot {
                let size = o.bytes.len() as u64;
                self.live -= size;
                if o.escaped {
                    *slot = Slot::Dead {
                        desc: o.desc,
                        size,
                        start: o.start,
                    };
                } else {
                    *slot = Slot::Free;
                    self.free.push(id);
                }
            }
        }
    }

    /// What object `id` is (or was, when its lifetime ended).
    pub fn desc(&self, id: u32) -> Option<Desc> {
        match self.slots.get(id as usize) {
            Some(Slot::Live(o)) => Some(o.desc),
            Some(Slot::Dead { desc, .. }) => Some(*desc),
            _ => None,
        }
    }

    /// Size and start offset of a live object.
    pub fn extent(&self, id: u32) -> Option<(u64, u64)> {
        match self.slots.get(id as usize) {
            Some(Slot::Live(o)) => Some((o.bytes.len() as u64 - o.start, o.start)),
            _ => None,
        }
    }

    pub fn obj(&self, id: u32) -> Option<&Obj> {
        match self.slots.get(id as usize) {
            Some(Slot::Live(o)) => Some(o),
            _ => None,
        }
    }

    pub fn obj_mut(&mut self, id: u32) -> Option<&mut Obj> {
        match self.slots.get_mut(id as usize) {
            Some(Slot::Live(o)) => Some(o),
            _ => None,
        }
    }

    /// Check an access of `size` bytes at `addr` and give the object and offset.
    pub fn resolve(&self, addr: u64, size: u64, write: bool) -> Result<(u32, u64), MemErr> {
        match decode(addr) {
            Ptr::Null => Err(MemErr::Null),
            // A small offset from null (`r->hi` with `r = NULL`): natively the null page.
            Ptr::Invalid if addr < 4096 => Err(MemErr::Null),
            Ptr::Invalid => Err(MemErr::Invalid),
            Ptr::Func(_) => Err(MemErr::Func),
            Ptr::Obj { id, off } => match self.slots.get(id as usize) {
                None | Some(Slot::Free) => Err(MemErr::Invalid),
                Some(Slot::Dead { desc, .. }) => Err(MemErr::Dead(*desc)),
                Some(Slot::Live(o)) => {
                    let len = o.bytes.len() as u64;
                    if o.unknown {
                        Err(MemErr::Unknown(o.desc))
                    } else if off < o.start as i64
                        || (off as u64).checked_add(size).is_none_or(|end| end > len)
                    {
                        Err(MemErr::OutOfBounds {
                            desc: o.desc,
                            off: i128::from(off) - i128::from(o.start),
                            size,
                            len: len - o.start,
                        })
                    } else if write && o.readonly {
                        Err(MemErr::ReadOnly(o.desc))
                    } else {
                        Ok((id, off as u64))
                    }
                }
            },
        }
    }

    /// The bytes and init flags of an access (no initialization check).
    pub fn read(&self, addr: u64, size: u64) -> Result<(&[u8], &[bool]), MemErr> {
        let (id, off) = self.resolve(addr, size, false)?;
        let Some(Slot::Live(o)) = self.slots.get(id as usize) else {
            return Err(MemErr::Invalid);
        };
        let r = off as usize..(off + size) as usize;
        Ok((&o.bytes[r.clone()], &o.init[r]))
    }

    /// The bytes of an access whose every byte must be initialized (a scalar load).
    pub fn read_init(&self, addr: u64, size: u64) -> Result<&[u8], MemErr> {
        let (bytes, init) = self.read(addr, size)?;
        if init.iter().all(|&b| b) {
            return Ok(bytes);
        }
        let (id, off) = self.resolve(addr, size, false)?;
        let (desc, len, start) = match self.slots.get(id as usize) {
            Some(Slot::Live(o)) => (o.desc, o.bytes.len() as u64, o.start),
            _ => return Err(MemErr::Invalid),
        };
        Err(MemErr::Uninit {
            desc,
            off: off - start,
            whole: off == start && size == len - start,
        })
    }

    /// Write bytes with their init flags (`init` is either one flag for all or one per byte).
    pub fn write(&mut self, addr: u64, bytes: &[u8], init: &[bool]) -> Result<(), MemErr> {
        let (id, off) = self.resolve(addr, bytes.len() as u64, true)?;
        let Some(Slot::Live(o)) = self.slots.get_mut(id as usize) else {
            return Err(MemErr::Invalid);
        };
        let r = off as usize..off as usize + bytes.len();
        o.bytes[r.clone()].copy_from_slice(bytes);
        if init.len() == bytes.len() {
            o.init[r].copy_from_slice(init);
        } else {
            let v = init.first().copied().unwrap_or(true);
            o.init[r].iter_mut().for_each(|b| *b = v);
        }
        Ok(())
    }

    /// Set `size` bytes to `byte` (initialized); the range is checked before anything is done.
    pub fn fill(&mut self, addr: u64, size: u64, byte: u8) -> Result<(), MemErr> {
        let (id, off) = self.resolve(addr, size, true)?;
        if let Some(Slot::Live(o)) = self.slots.get_mut(id as usize) {
            let r = off as usize..(off + size) as usize;
            o.bytes[r.clone()].iter_mut().for_each(|b| *b = byte);
            o.init[r].iter_mut().for_each(|b| *b = true);
        }
        Ok(())
    }

    /// Mark bytes indeterminate (a declaration without initializer).
    pub fn havoc(&mut self, addr: u64, size: u64) -> Result<(), MemErr> {
        let (id, off) = self.resolve(addr, size, true)?;
        if let Some(Slot::Live(o)) = self.slots.get_mut(id as usize) {
            o.init[off as usize..(off + size) as usize]
                .iter_mut()
                .for_each(|b| *b = false);
        }
        Ok(())
    }

    /// `addr + delta` bytes. Within the object or one past its end: the address. Outside it by
    /// less than [`SLACK`] (or a small positive offset from null): the address too, with the
    /// undefined behaviour of forming it, which only matters if nothing worse follows (an access
    /// through it is out of bounds). Farther: an error.
    pub fn ptr_add(&self, addr: u64, delta: i128) -> Result<(u64, Option<MemErr>), MemErr> {
        // Addresses are 64-bit: `s + n` with `n = SIZE_MAX` is `s - 1` on the machine.
        let delta = i128::from(delta as u64 as i64);
        match decode(addr) {
            Ptr::Null if delta == 0 => Ok((0, None)),
            Ptr::Null if delta > 0 && delta < 1 << 32 => {
                Ok((delta as u64, Some(MemErr::NullArith)))
            }
            Ptr::Null => Err(MemErr::NullArith),
            Ptr::Func(_) => Err(MemErr::Func),
            // Integers cast to pointers: plain integer arithmetic, any dereference fails later.
            Ptr::Invalid => Ok((i128::from(addr).wrapping_add(delta) as u64, None)),
            Ptr::Obj { id, off } => {
                let (desc, len, start) = match self.slots.get(id as usize) {
                    Some(Slot::Live(o)) => (o.desc, o.bytes.len() as u64, o.start),
                    Some(Slot::Dead { desc, size, start }) => (*desc, *size, *start),
                    None | Some(Slot::Free) => return Err(MemErr::Invalid),
                };
                let new = i128::from(off).saturating_add(delta);
                if new >= i128::from(start) && new <= i128::from(len) {
                    return Ok((encode_signed(id, new as i64), None));
                }
                let err = MemErr::ArithOutOfBounds {
                    desc,
                    off: new - i128::from(start),
                    len: len - start,
                };
                if new.abs() < SLACK {
                    Ok((encode_signed(id, new as i64), Some(err)))
                } else {
                    Err(err)
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encode_decode() {
        assert_eq!(decode(0), Ptr::Null);
        assert_eq!(decode(encode(0, 0)), Ptr::Obj { id: 0, off: 0 });
        assert_eq!(decode(encode(7, 12)), Ptr::Obj { id: 7, off: 12 });
        assert_eq!(encode(0, 5) & 15, 5, "alignment shows in the low bits");
        assert_eq!(decode(func_addr(3)), Ptr::Func(3));
        assert_eq!(decode(42), Ptr::Invalid);
    }

    #[test]
    fn bounds_init_and_lifetime() {
        let mut m = Memory::default();
        let d = Desc::Global(0);
        let id = m.alloc(d, 8, false).unwrap();
        let a = encode(id, 0);
        assert!(matches!(
            m.read_init(a, 4),
            Err(MemErr::Uninit { whole: false, .. })
        ));
        m.write(a, &[1, 2, 3, 4], &[true]).unwrap();
        assert_eq!(m.read_init(a, 4).unwrap(), &[1, 2, 3, 4]);
        assert!(matches!(
            m.read(encode(id, 6), 4),
            Err(MemErr::OutOfBounds { .. })
        ));
        assert_eq!(m.ptr_add(a, 8).unwrap(), (encode(id, 8), None));
        // Formed outside the object: an address that compares as natively, with the
        // arithmetic's undefined behaviour; an access through it is out of bounds.
        let (before, ub) = m.ptr_add(a, -1).unwrap();
        assert!(matches!(ub, Some(MemErr::ArithOutOfBounds { off: -1, .. })));
        assert!(before < a);
        assert!(matches!(
            m.read(before, 1),
            Err(MemErr::OutOfBounds { off: -1, .. })
        ));
        assert!(m.ptr_add(a, 9).unwrap().1.is_some());
        assert!(m.ptr_add(a, 1 << 40).is_err());
        // A small offset from null is the null page.
        let (p, ub) = m.ptr_add(0, 4).unwrap();
        assert_eq!(ub, Some(MemErr::NullArith));
        assert_eq!(m.read(p, 4).unwrap_err(), MemErr::Null);
        m.escape(a);
        m.free(id);
        assert_eq!(m.read(a, 1).unwrap_err(), MemErr::Dead(d));
        // Objects whose address was never taken are reused; escaped ones never are.
        let x = m.alloc(d, 4, true).unwrap();
        m.free(x);
        assert_eq!(m.alloc(d, 4, true).unwrap(), x);
        assert_ne!(m.alloc(d, 4, true).unwrap(), id);
    }

    #[test]
    fn an_object_that_starts_inside_its_slot() {
        let mut m = Memory::default();
        let id = m.alloc_at(Desc::Input(0), 3, 5, true).unwrap();
        assert_eq!(m.extent(id), Some((3, 5)));
        let a = encode(id, 5);
        assert_eq!(a & 7, 5, "the address is misaligned by the start");
        m.write(a, &[1, 2, 3], &[true]).unwrap();
        assert_eq!(m.read_init(a, 3).unwrap(), &[1, 2, 3]);
        // The bytes before the start and after the end are out of bounds.
        assert!(matches!(
            m.read(encode(id, 4), 1),
            Err(MemErr::OutOfBounds {
                off: -1,
                len: 3,
                ..
            })
        ));
        assert!(matches!(
            m.read(encode(id, 0), 8),
            Err(MemErr::OutOfBounds { off: -5, .. })
        ));
        assert!(m.read(encode(id, 6), 3).is_err());
        assert_eq!(m.ptr_add(a, 3).unwrap(), (encode(id, 8), None));
        assert!(matches!(
            m.ptr_add(a, -1),
            Ok((
                _,
                Some(MemErr::ArithOutOfBounds {
                    off: -1,
                    len: 3,
                    ..
                })
            ))
        ));
    }
}
