//! The nonce store's generation files (`KEY.nonce.<g>`): whatever file an
//! attacker or a broken disk puts beside a key's state, under whatever
//! generation name, the store must never hand out a nonce below the safe
//! nonce its genuine chain records — no rollback, no replay of an old
//! generation under a new name, no forged record — and must refuse, not
//! skip, a forged file at the head of the chain. Never a panic.
//!
//! At start-up the target makes a genuine chain for key A (a sealed base
//! and its two highest generations, after a few reservations) and keeps
//! its bytes. Each input restores that chain, then writes one file:
//!
//! * its name, from the first byte: the next generation, one further, the
//!   current one, the one before it, a far one, the largest `u64`, one past
//!   it, a name with a leading zero, a sign or a space, or the base itself;
//! * its bytes, from the second byte: the input's rest as it is, or the
//!   rest read as an edit of one of the genuine files (which, how, where),
//!   so that most of a genuine record survives.
//!
//! Checks, on `NonceStore::open` and `next_nonce` (reserve 1): a nonce
//! handed out is at least the genuine safe nonce; a file written above the
//! genuine head that is not byte for byte a genuine file of that name is
//! refused; a nonce handed out is followed, after `close` and a reopen, by
//! a larger one.

#![no_main]

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use wegman_fuzz::{Input, work_dir, write_seeds};
use wegman_store::nonce::{KeyBinding, NonceError, NonceStore};

struct World {
    dir: PathBuf,
    key: KeyBinding,
    /// The genuine chain: file name (below `dir`) and bytes.
    files: Vec<(String, Vec<u8>)>,
    /// The highest generation in it.
    head: u64,
    /// The genuine safe nonce: every nonce below it may have been used.
    safe: u128,
}

const STATE: &str = "a.nonce";

fn state(dir: &Path) -> PathBuf {
    dir.join(STATE)
}

/// Every file of the chain in `dir` (the base and its generation files,
/// temporaries and the lock left out), sorted by name.
fn chain_files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .expect("list")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .filter(|n| n == STATE || n.strip_prefix("a.nonce.").is_some_and(|g| !g.starts_with("tmp") && g != "lock"))
        .map(|n| {
            let bytes = std::fs::read(dir.join(&n)).expect("read");
            (n, bytes)
        })
        .collect();
    files.sort();
    files
}

/// Put `dir` back to the genuine chain: remove every other file of it.
fn restore(w: &World) {
    for (name, _) in chain_files(&w.dir) {
        std::fs::remove_file(w.dir.join(name)).expect("remove");
    }
    for (name, bytes) in &w.files {
        std::fs::write(w.dir.join(name), bytes).expect("restore");
    }
}

fn world() -> &'static World {
    static WORLD: OnceLock<World> = OnceLock::new();
    WORLD.get_or_init(|| {
        let dir = work_dir("nonce-chain");
        let key = KeyBinding::derive("poly1305aes", &[0xa1; 32]);
        for (name, _) in chain_files(&dir) {
            std::fs::remove_file(dir.join(name)).expect("clean");
        }
        NonceStore::create(&state(&dir), &key).expect("create");
        // a few reservations, some given back, some not: a sealed base and
        // the two highest generations remain
        let mut last = 0;
        for round in 0..5u64 {
            let mut store = NonceStore::open(&state(&dir), &key).expect("open").with_reserve(3 + round);
            for _ in 0..=round {
                last = u128::from_le_bytes(store.next_nonce().expect("nonce"));
            }
            if round % 2 == 0 {
                store.close().expect("close");
            }
        }
        let files = chain_files(&dir);
        let head = files.iter().filter_map(|(n, _)| n.strip_prefix("a.nonce.")?.parse::<u64>().ok()).max();
        let head = head.expect("the chain has generation files");
        let safe = last + 1;
        // each genuine file replayed at the next generation and at the head
        let seeds: Vec<_> = (0..files.len() as u8)
            .flat_map(|i| {
                [
                    (format!("replay-{i}-next"), vec![3, 1, i, 4, 0, 0]),
                    (format!("replay-{i}-head"), vec![5, 1, i, 4, 0, 0]),
                ]
            })
            .collect();
        write_seeds(&seeds);
        World { dir, key, files, head, safe }
    })
}

/// The file name chosen by `pick`.
fn name(w: &World, pick: u8) -> String {
    let g = match pick % 11 {
        0 => return format!("a.nonce.0{}", w.head + 1),
        1 => return format!("a.nonce.+{}", w.head + 1),
        2 => return format!("a.nonce. {}", w.head + 1),
        3 => w.head + 1,
        4 => w.head + 2,
        5 => w.head,
        6 => w.head - 1,
        7 => w.head + 1000,
        8 => u64::MAX,
        9 => return format!("a.nonce.{}", u128::from(u64::MAX) + 1),
        _ => return STATE.to_string(), // the sealed base itself
    };
    format!("a.nonce.{g}")
}

/// `data` read as an edit of one of the genuine files: which, then
/// [`Input::edit`]'s fields.
fn edited(w: &World, data: &[u8]) -> Vec<u8> {
    let mut input = Input::new(data);
    let which = usize::from(input.byte());
    input.edit(&w.files[which % w.files.len()].1)
}

fn next(path: &Path, key: &KeyBinding) -> Result<u128, NonceError> {
    let mut store = NonceStore::open(path, key)?.with_reserve(1);
    let n = u128::from_le_bytes(store.next_nonce()?);
    store.close()?;
    Ok(n)
}

fuzz_target!(|data: &[u8]| {
    let w = world();
    let mut input = Input::new(data);
    let (pick, how) = (input.byte(), input.byte());
    let rest = input.rest();
    let bytes = if how % 2 == 0 { rest.to_vec() } else { edited(w, rest) };
    let name = name(w, pick);
    restore(w);
    std::fs::write(w.dir.join(&name), &bytes).expect("write");
    let genuine = w.files.iter().any(|(n, b)| *n == name && *b == bytes);
    let above_head = name.strip_prefix("a.nonce.").and_then(|g| g.parse::<u64>().ok()).is_some_and(|g| g > w.head)
        && !name.contains(['+', ' '])
        && !name.strip_prefix("a.nonce.").is_some_and(|g| g.starts_with('0'));

    match next(&state(&w.dir), &w.key) {
        Ok(n) => {
            assert!(n >= w.safe, "rolled back: nonce {n} below the genuine safe nonce {}", w.safe);
            assert!(genuine || !above_head, "a forged head generation {name} was accepted");
            let again = next(&state(&w.dir), &w.key).expect("the store's own state reopens");
            assert!(again > n, "after {n} came {again}");
        }
        Err(NonceError::Exhausted) => {}
        Err(e) => assert!(!genuine, "the genuine chain was refused: {e}"),
    }
});
