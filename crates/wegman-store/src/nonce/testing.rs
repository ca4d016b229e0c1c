//! Hooks for the store's own tests, per thread: an injected failure of one
//! step of a publication, a callback between reading the current
//! generation and publishing the next (where a writer can be stopped), and
//! one between checking a file's type and opening it (where the file can be
//! swapped). Not part of the API.

use std::cell::{Cell, RefCell};
use std::io;
use std::path::Path;

/// A hook run before a file is opened, with its path.
type OpenHook = Box<dyn FnMut(&Path)>;

thread_local! {
    static FAULT: Cell<Option<(&'static str, bool)>> = const { Cell::new(None) };
    static BEFORE_PUBLISH: RefCell<Option<Box<dyn FnMut()>>> = const { RefCell::new(None) };
    static BEFORE_OPEN: RefCell<Option<OpenHook>> = const { RefCell::new(None) };
}

/// The next step named `op` in this thread fails once with EIO: `after`
/// false, without doing anything; true, after taking effect (a lost reply).
/// `op` is one of the steps [`super::NonceError::Update`] names: "writing
/// the temporary nonce state", "syncing the temporary nonce state",
/// "linking the new nonce state to", "syncing the directory of the nonce
/// state".
pub fn inject_fault(op: &'static str, after: bool) {
    FAULT.with(|f| f.set(Some((op, after))));
}

/// Whether an injected fault is still pending in this thread.
pub fn fault_pending() -> bool {
    FAULT.with(|f| f.get().is_some())
}

/// Run `hook` in this thread before each publication, after the current
/// generation was read (`None` removes it).
pub fn before_publish(hook: Option<Box<dyn FnMut()>>) {
    BEFORE_PUBLISH.with(|h| *h.borrow_mut() = hook);
}

/// Called by each step: fails it if a fault is injected for it.
pub(super) fn step(op: &'static str, after: bool) -> io::Result<()> {
    FAULT.with(|f| match f.get() {
        Some((o, a)) if o == op && a == after => {
            f.set(None);
            Err(io::Error::from_raw_os_error(5))
        }
        _ => Ok(()),
    })
}

pub(super) fn run_before_publish() {
    // Taken out while it runs: the hook may itself use stores.
    let hook = BEFORE_PUBLISH.with(|h| h.borrow_mut().take());
    if let Some(mut hook) = hook {
        hook();
        BEFORE_PUBLISH.with(|h| {
            let mut slot = h.borrow_mut();
            if slot.is_none() {
                *slot = Some(hook);
            }
        });
    }
}

/// Run `hook` in this thread each time the store is about to open one of
/// its files for reading, after it checked the file's type (`None`
/// removes it): the hook may replace the file by a link, a socket or
/// nothing, as another process could at that moment.
pub fn before_open(hook: Option<OpenHook>) {
    BEFORE_OPEN.with(|h| *h.borrow_mut() = hook);
}

pub(super) fn run_before_open(path: &Path) {
    let hook = BEFORE_OPEN.with(|h| h.borrow_mut().take());
    if let Some(mut hook) = hook {
        hook(path);
        BEFORE_OPEN.with(|h| {
            let mut slot = h.borrow_mut();
            if slot.is_none() {
                *slot = Some(hook);
            }
        });
    }
}
