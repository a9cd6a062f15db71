//! A small pool of scoped worker threads for runs of independent jobs
//! (proofs, mutants), each of which is mostly an external tool or a
//! Verilator model and none of which shares state with another.
use std::sync::Mutex;

/// Runs `work` on every item, `jobs` at a time (at least one, at most one
/// per item), and returns the results in the items' order. Items are
/// taken in order, so the first ones finish first.
pub(crate) fn run_in_parallel<T: Sync, R: Send>(items: &[T], jobs: usize, work: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let next = Mutex::new(0usize);
    let results: Mutex<Vec<Option<R>>> = Mutex::new((0..items.len()).map(|_| None).collect());
    std::thread::scope(|scope| {
        for _ in 0..jobs.clamp(1, items.len().max(1)) {
            scope.spawn(|| loop {
                let index = {
                    let mut next = next.lock().expect("no worker panics holding it");
                    *next += 1;
                    *next - 1
                };
                let Some(item) = items.get(index) else { break };
                let result = work(item);
                results.lock().expect("no worker panics holding it")[index] = Some(result);
            });
        }
    });
    results.into_inner().expect("the workers are done").into_iter().map(|r| r.expect("every item ran")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_come_back_in_order_whatever_the_jobs() {
        let items: Vec<u64> = (0..37).collect();
        for jobs in [0, 1, 2, 5, 100] {
            let squares = run_in_parallel(&items, jobs, |&n| {
                // Uneven work, so that the workers finish out of order.
                std::thread::sleep(std::time::Duration::from_micros((n % 5) * 200));
                n * n
            });
            assert_eq!(squares, items.iter().map(|n| n * n).collect::<Vec<_>>(), "jobs {jobs}");
        }
        assert!(run_in_parallel(&[] as &[u64], 2, |&n| n).is_empty());
    }
}
