//! Run a function over items on all cores, emitting results in input order.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, mpsc};

/// For every item, in parallel: `claim(i)` (called under a lock, strictly in
/// index order, so it can hand out sequence numbers such as nonces), then
/// `work(item, claimed)`. `emit` sees the results strictly in input order,
/// each as soon as it and all before it are done. `claim` or `emit`
/// returning `Err` stops the run early (work already claimed still finishes).
///
/// Returns only once every worker thread has exited: the threads are
/// joined, not left to the scope, which waits for their closures but lets
/// the threads themselves end a moment later (their thread-locals still
/// being dropped after the caller has moved on).
pub fn ordered<T: Sync, C: Send, R: Send, E: Send>(
    items: &[T],
    claim: impl FnMut(usize) -> Result<C, E> + Send,
    work: impl Fn(&T, &C) -> R + Sync,
    mut emit: impl FnMut(usize, C, R) -> Result<(), E>,
) -> Result<(), E> {
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get()).min(items.len()).max(1);
    let queue = Mutex::new((0usize, claim));
    let stop = AtomicBool::new(false);
    std::thread::scope(|s| {
        let (tx, rx) = mpsc::channel::<(usize, Result<(C, R), E>)>();
        let mut threads = Vec::with_capacity(workers);
        for _ in 0..workers {
            let tx = tx.clone();
            let (queue, work, stop) = (&queue, &work, &stop);
            threads.push(s.spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    let (i, claimed) = {
                        let mut q = queue.lock().unwrap_or_else(|p| p.into_inner());
                        let i = q.0;
                        if i >= items.len() {
                            break;
                        }
                        q.0 += 1;
                        (i, (q.1)(i))
                    };
                    let msg = claimed.map(|c| {
                        let r = work(&items[i], &c);
                        (c, r)
                    });
                    let failed = msg.is_err();
                    if tx.send((i, msg)).is_err() || failed {
                        stop.store(true, Ordering::Relaxed);
                        break;
                    }
                }
            }));
        }
        drop(tx);
        let result = 'emit: {
            let mut pending = BTreeMap::new();
            let mut want = 0;
            for (i, r) in rx {
                pending.insert(i, r);
                while let Some(r) = pending.remove(&want) {
                    let res = r.and_then(|(c, r)| emit(want, c, r));
                    if let Err(e) = res {
                        stop.store(true, Ordering::Relaxed);
                        break 'emit Err(e);
                    }
                    want += 1;
                }
            }
            Ok(())
        };
        for t in threads {
            if let Err(panic) = t.join() {
                std::panic::resume_unwind(panic);
            }
        }
        result
    })
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::AtomicUsize;

    use super::*;

    /// Worker threads whose thread-local `Mark` is still alive.
    static LIVE: AtomicUsize = AtomicUsize::new(0);

    struct Mark;

    impl Drop for Mark {
        fn drop(&mut self) {
            // Slow, so that a thread still exiting is seen.
            std::thread::sleep(std::time::Duration::from_millis(10));
            LIVE.fetch_sub(1, Ordering::SeqCst);
        }
    }

    thread_local! {
        static MARK: Mark = {
            LIVE.fetch_add(1, Ordering::SeqCst);
            Mark
        };
    }

    #[test]
    fn workers_have_exited_when_it_returns() {
        // A thread's thread-locals are dropped as it exits. The fuzz target
        // for `check` had LeakSanitizer report glibc's record of one, and a
        // thread handle, as leaked: `ordered` had returned while its
        // threads were still exiting.
        for round in 0..20 {
            let items: Vec<usize> = (0..8).collect();
            let mut seen = Vec::new();
            let work = |item: &usize, claimed: &usize| {
                MARK.with(|_| ());
                item + claimed
            };
            ordered(&items, Ok::<usize, ()>, work, |i, _, r| {
                seen.push((i, r));
                Ok(())
            })
            .unwrap();
            assert_eq!(LIVE.load(Ordering::SeqCst), 0, "round {round}: a worker thread outlived ordered");
            assert_eq!(seen, (0..8).map(|i| (i, 2 * i)).collect::<Vec<_>>());
        }
    }
}
