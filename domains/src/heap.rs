//! The C heap shared by PPL, GMP and Rust's allocator (glibc `malloc` on Linux).
//!
//! Takes nothing; gives [`release_free_memory`], which hands the heap's free pages back to the
//! operating system. Used between analyses of one function: an analysis stopped by the memory
//! budget frees its polyhedra, but glibc keeps the freed pages mapped, so the resident size the
//! budget measures stays above the bound and the cheaper retry would stop at once.

#[cfg(all(target_os = "linux", target_env = "gnu"))]
extern "C" {
    fn malloc_trim(pad: usize) -> std::os::raw::c_int;
}

/// Return the heap's free pages to the operating system (glibc's `malloc_trim(0)`); a no-op
/// where the C library has no such call. Safe at any time: it only releases pages no
/// allocation uses.
pub fn release_free_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: `malloc_trim` takes no pointers and only unmaps free pages of the allocator,
    // under the allocator's own locks.
    unsafe {
        malloc_trim(0);
    }
}
