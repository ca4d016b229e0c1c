//! Run a function over items on all cores, emitting results in input order.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;

/// Compute `f(item)` for every item in parallel and call `emit` with the
/// results strictly in input order, each as soon as it and all before it
/// are done. `emit` returning `Err` stops the run early.
pub fn ordered<T: Sync, R: Send, E>(
    items: &[T],
    f: impl Fn(&T) -> R + Sync,
    mut emit: impl FnMut(usize, R) -> Result<(), E>,
) -> Result<(), E> {
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get()).min(items.len()).max(1);
    let next = AtomicUsize::new(0);
    let stop = std::sync::atomic::AtomicBool::new(false);
    std::thread::scope(|s| {
        let (tx, rx) = mpsc::channel::<(usize, R)>();
        for _ in 0..workers {
            let tx = tx.clone();
            let (next, f, stop) = (&next, &f, &stop);
            s.spawn(move || {
                loop {
                    if stop.load(Ordering::Relaxed) {
                        break;
                    }
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= items.len() || tx.send((i, f(&items[i]))).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        let mut pending: std::collections::BTreeMap<usize, R> = std::collections::BTreeMap::new();
        let mut want = 0;
        for (i, r) in rx {
            pending.insert(i, r);
            while let Some(r) = pending.remove(&want) {
                if let Err(e) = emit(want, r) {
                    stop.store(true, Ordering::Relaxed);
                    return Err(e);
                }
                want += 1;
            }
        }
        Ok(())
    })
}
