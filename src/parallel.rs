//! Work on several threads: a parallel map whose results keep the input order.
//!
//! Takes items and a function; gives the results in item order, computed on up to `jobs`
//! threads with the CLI's large stacks (the frontend and the analysis recurse deeply). Used by
//! `dizy bench` over pairs, by the diff driver over functions handed to worker processes, and
//! by `--git` / `dizy log` over files.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// Stack size of every thread that may run the pipeline (as the CLI's main thread).
pub const STACK: usize = 1 << 30;

/// Apply `work` to every item on `jobs` threads (also for one job: the caller's stack may be
/// small); results keep the input order.
pub fn parallel_map<T: Sync, R: Send>(
    items: &[T],
    jobs: usize,
    work: impl Fn(usize, &T) -> R + Sync,
) -> Vec<R> {
    let jobs = jobs.clamp(1, items.len().max(1));
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<R>>> = Mutex::new((0..items.len()).map(|_| None).collect());
    std::thread::scope(|s| {
        let mut handles = vec![];
        for _ in 0..jobs {
            let h = std::thread::Builder::new()
                .stack_size(STACK)
                .spawn_scoped(s, || loop {
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    if i >= items.len() {
                        break;
                    }
                    let r = work(i, &items[i]);
                    results.lock().unwrap_or_else(|e| e.into_inner())[i] = Some(r);
                })
                .expect("spawn a worker thread");
            handles.push(h);
        }
        for h in handles {
            if let Err(p) = h.join() {
                std::panic::resume_unwind(p);
            }
        }
    });
    results
        .into_inner()
        .unwrap_or_else(|e| e.into_inner())
        .into_iter()
        .map(|r| r.expect("every item was processed"))
        .collect()
}

/// The number of jobs when none is given: the available cores.
pub fn default_jobs() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_keep_the_input_order_for_every_job_count() {
        let items: Vec<u64> = (0..200).collect();
        for jobs in [1, 2, 3, 8, 500] {
            // Uneven work, so that threads finish out of order.
            let out = parallel_map(&items, jobs, |i, x| {
                std::thread::sleep(std::time::Duration::from_micros((x % 7) * 50));
                (i as u64) * 1000 + x * x
            });
            let want: Vec<u64> = items.iter().map(|x| x * 1000 + x * x).collect();
            assert_eq!(out, want, "jobs {jobs}");
        }
        assert!(parallel_map(&[] as &[u8], 4, |_, _| 0).is_empty());
    }
}
