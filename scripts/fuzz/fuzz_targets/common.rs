//! Shared by the fuzz targets: run the pipeline on a thread with the stack the CLI gives it.

/// Run `f` on a thread with a 1 GiB stack, as `dizy`'s `main` does (deeply nested input is
/// rejected at depth 1000, but lowering and flattening below that recurse).
pub fn on_big_stack(f: impl FnOnce() + Send + 'static) {
    let h = std::thread::Builder::new()
        .stack_size(1 << 30)
        .spawn(f)
        .expect("spawn");
    // A panic on the thread aborts through libFuzzer's panic hook before this returns.
    h.join().expect("pipeline thread");
}
