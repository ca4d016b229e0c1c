//! Run a function over items on all cores, emitting results in input order.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, mpsc};

/// For every item, in parallel: `claim(i)` (called under a lock, strictly in
/// index order, so it can hand out sequence numbers such as nonces), then
/// `work(item, claimed)`. `emit` sees the results strictly in input order,
/// each as soon as it and all before it are done. `claim` or `emit`
/// returning `Err` stops the run early (work already claimed still finishes).
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
        for _ in 0..workers {
            let tx = tx.clone();
            let (queue, work, stop) = (&queue, &work, &stop);
            s.spawn(move || {
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
            });
        }
        drop(tx);
        let mut pending = BTreeMap::new();
        let mut want = 0;
        for (i, r) in rx {
            pending.insert(i, r);
            while let Some(r) = pending.remove(&want) {
                let res = r.and_then(|(c, r)| emit(want, c, r));
                if let Err(e) = res {
                    stop.store(true, Ordering::Relaxed);
                    return Err(e);
                }
                want += 1;
            }
        }
        Ok(())
    })
}
