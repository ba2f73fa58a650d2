//! The C library's allocator for the interpreter: `malloc`, `calloc`, `realloc`, `free`,
//! `strdup`.
//!
//! Takes the call's argument values; gives the result as glibc's allocator would, with every
//! heap object a memory object of its own (`Desc::Heap`), so that a read past an allocation, a
//! use after `free`, a double `free` or freeing what `malloc` did not return is an invalid
//! access ([`UbKind::Memory`]) as AddressSanitizer reports it natively. `malloc` contents are
//! uninitialized, `calloc`'s zero. A request the interpreter cannot hold (past its object
//! limit) gets a null pointer, which the C standard allows of any allocation; a native run
//! would then disagree and refute the witness.

use super::eval::{as_addr, norm};
use super::memory::{decode, encode, Desc, Ptr};
use super::{Interp, RunError, UbKind, Value};
use crate::ir::CType;

/// The allocation functions [`Interp::heap_call`] runs.
pub(super) const HEAP_FUNCTIONS: &[&str] = &["malloc", "calloc", "realloc", "free", "strdup"];

impl Interp<'_> {
    /// `name(vals)` for a name of [`HEAP_FUNCTIONS`].
    pub(super) fn heap_call(
        &mut self,
        name: &str,
        vals: &[Value],
    ) -> Result<(Value, CType), RunError> {
        let void_ptr = CType::Ptr(Box::new(CType::Void));
        let int = |i: usize| match vals.get(i) {
            Some(Value::Int(x)) => norm(*x, 64, false) as u64,
            _ => 0,
        };
        match name {
            "malloc" => self.big_op(int(0))?,
            "calloc" => self.big_op(int(0).saturating_mul(int(1)))?,
            "realloc" => self.big_op(int(1))?,
            _ => {}
        }
        let want = |n: usize| self.arity(name, vals, n);
        let ptr = |a: u64| Ok((Value::Int(i128::from(a)), void_ptr.clone()));
        match name {
            "malloc" => {
                want(1)?;
                ptr(self.heap_alloc(int(0), false))
            }
            "calloc" => {
                want(2)?;
                match int(0).checked_mul(int(1)) {
                    Some(n) => ptr(self.heap_alloc(n, true)),
                    None => ptr(0),
                }
            }
            "free" => {
                want(1)?;
                let p = as_addr(vals[0]);
                if p != 0 {
                    let id = self.heap_object(p, "free")?;
                    self.mem.free(id);
                }
                Ok((Value::Int(0), CType::Void))
            }
            "realloc" => {
                want(2)?;
                let (p, n) = (as_addr(vals[0]), int(1));
                if p == 0 {
                    return ptr(self.heap_alloc(n, false));
                }
                let id = self.heap_object(p, "realloc")?;
                if n == 0 {
                    // glibc frees the block and returns a null pointer.
                    self.mem.free(id);
                    return ptr(0);
                }
                let q = self.heap_alloc(n, false);
                if q == 0 {
                    return ptr(0);
                }
                let (len, _) = self.mem.extent(id).unwrap_or((0, 0));
                self.copy_bytes(q, p, len.min(n))?;
                self.mem.free(id);
                ptr(q)
            }
            "strdup" => {
                want(1)?;
                let mut s = self.c_string(vals[0], None)?;
                s.push(0);
                let q = self.heap_alloc(s.len() as u64, true);
                if q != 0 {
                    self.mem
                        .write(q, &s, &vec![true; s.len()])
                        .map_err(|e| self.mem_err(e))?;
                }
                ptr(q)
            }
            _ => self.unsupported(format!("`{name}` is no allocation function")),
        }
    }

    /// A fresh heap object of `size` bytes (zeroed when `zero`, else uninitialized); its
    /// address, or 0 when the interpreter cannot hold it.
    fn heap_alloc(&mut self, size: u64, zero: bool) -> u64 {
        let k = self.heap.len() as u32;
        match self.mem.alloc(Desc::Heap(k), size, zero) {
            Ok(id) => {
                if let Some(o) = self.mem.obj_mut(id) {
                    o.escaped = true;
                }
                self.heap.push(id);
                encode(id, 0)
            }
            Err(_) => 0,
        }
    }

    /// The live heap object `p` is the start of, as `what` (`free`, `realloc`) requires. Memory
    /// the caller or an undefined function gave (a buffer input, a handle, a returned object)
    /// may well come from `malloc` in the real program: freeing it cannot be executed, it is
    /// no invalid access.
    fn heap_object(&self, p: u64, what: &str) -> Result<u32, RunError> {
        let bad = |msg: String| RunError::Ub {
            msg,
            line: self.line,
            kind: UbKind::Memory,
        };
        let not_ours = || format!("`{what}` of a pointer `malloc` did not return");
        let Ptr::Obj { id, off } = decode(p) else {
            return Err(bad(not_ours()));
        };
        match self.mem.desc(id) {
            Some(Desc::Input(_) | Desc::Pointee(_) | Desc::External(_)) => {
                return self.unsupported(format!(
                    "`{what}` of memory the caller or an undefined function gave: where it came from is unknown"
                ))
            }
            Some(Desc::Heap(_)) if self.heap.contains(&id) => {}
            _ => return Err(bad(not_ours())),
        }
        match self.mem.extent(id) {
            None => Err(bad(format!(
                "`{what}` of memory already freed (double free)"
            ))),
            Some(_) if off != 0 => Err(bad(format!(
                "`{what}` of a pointer into the middle of an allocation"
            ))),
            Some(_) => Ok(id),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::load_c;
    use super::super::{run_literals, RunError, UbKind};

    const SRC: &str = r#"#include <stdlib.h>
#include <string.h>
int sum(int n) {
  int *p = malloc(4 * sizeof(int));
  if (!p) return -1;
  for (int i = 0; i < 4; i++) p[i] = i * n;
  int s = p[3];
  free(p);
  return s;
}
int past(int k) { int *p = malloc(4 * sizeof(int)); p[k] = 1; free(p); return 0; }
int after(int n) { int *p = calloc(2, sizeof(int)); free(p); return p[0] + n; }
int twice(int n) { char *p = malloc(8); free(p); free(p); return n; }
int middle(int n) { char *p = malloc(8); free(p + n); return 0; }
int mine(char *p) { free(p); return 0; }
int unset(int n) { int *p = malloc(sizeof(int)); int v = *p + n; free(p); return v; }
int zeroed(int n) { int *p = calloc(3, sizeof(int)); int v = p[2] + n; free(p); return v; }
int grow(int n) {
  char *p = malloc(2); p[0] = 'a'; p[1] = 'b';
  p = realloc(p, 64); p[2] = 0;
  char *q = strdup(p);
  int v = q[1] + (int)strlen(q) + n;
  free(p); free(q);
  return v;
}
"#;

    fn memory_ub(r: Result<(String, super::super::RunOutcome), RunError>) -> String {
        match r {
            Err(RunError::Ub {
                msg,
                kind: UbKind::Memory,
                ..
            }) => msg,
            other => panic!("expected an invalid memory access, got {other:?}"),
        }
    }

    #[test]
    fn allocations_behave_as_glibc_and_asan_say() {
        let p = load_c(SRC);
        let run = |f: &str, a: &str| run_literals(&p, f, &[a.to_string()], 100_000);
        assert_eq!(run("sum", "5").unwrap().0, "15");
        assert_eq!(run("past", "3").unwrap().0, "0");
        assert!(memory_ub(run("past", "4")).contains("out-of-bounds"));
        assert!(memory_ub(run("after", "1")).contains("lifetime"));
        assert!(memory_ub(run("twice", "1")).contains("double free"));
        assert!(memory_ub(run("middle", "2")).contains("middle"));
        assert_eq!(run("middle", "0").unwrap().0, "0");
        assert!(matches!(
            run("unset", "1"),
            Err(RunError::Ub {
                kind: UbKind::Other,
                ..
            })
        ));
        assert_eq!(run("zeroed", "7").unwrap().0, "7");
        // The caller's buffer may come from malloc: freeing it is no invalid access.
        let mut it = super::super::Interp::new(&p);
        let r = it.call_args("mine", &[super::super::Arg::Buffer(vec![1, 2, 3])]);
        assert!(matches!(r, Err(RunError::Unsupported { .. })), "{r:?}");
        assert_eq!(
            run("grow", "1").unwrap().0,
            format!("{}", b'b' as i32 + 2 + 1)
        );
    }
}
