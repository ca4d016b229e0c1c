//! The nonce store's state file (`wegman_store::nonce`): any bytes as a state
//! file must be refused, without a panic, unless they are a state the store
//! itself wrote for that key.
//!
//! Input: the file's bytes, and the same bytes read as an edit of a genuine
//! state (which one, how, where, with what), checked the same way: random
//! bytes rarely keep a state's lines intact, edits keep all but one place.
//! At start-up the target makes genuine version-2 states (the base file
//! `create` writes, read as generation 0) of two keys, A and B, for a few
//! safe nonces (and, if `WEGMAN_FUZZ_SEEDS` names a
//! directory, copies them there with a version-1 state as seeds).
//!
//! Checks: `check_state_bytes` under key A accepts the input only if it is
//! one of A's genuine states, byte for byte, and then returns that state's
//! safe nonce (the state is authenticated with HMAC-SHA-256 under a key
//! derived from A: the fuzzer cannot forge one, so any other acceptance is
//! a finding); the same for B; A's genuine states are `WrongKey` under B;
//! `Unbound` exactly for a first line `wegman-nonce-state v1`.
//! `NonceStore::open` on a file holding the input (only its first 4096
//! bytes count) gives the same verdict as `check_state_bytes`.
//! `NonceStore::adopt` succeeds only on a genuine state of A (left as it
//! is) or on a version-1 state in its exact encoding (CRC-32 checked),
//! which it must turn into generation 1 of the same safe nonce and a
//! sealed base.
//!
//! Fails on: a parser that tolerates a changed byte the HMAC does not
//! cover (the file's lines must be exactly the covered ones), a state
//! accepted for the wrong key, an unchecked tail or a truncation that lets
//! trailing data in, a slice or hex decoding that panics on odd input,
//! `open` and the pure check drifting apart.

#![no_main]

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use wegman_fuzz::{Input, work_dir, write_seeds};
use wegman_store::nonce::{KeyBinding, NonceError, NonceStore, check_state_bytes};
use wegman_testkit::nonce_v2;

/// The safe nonces of the genuine states made at start-up.
const SAFE: [u128; 4] = [0, 1, 1000, (1 << 40) + 7];
const V1_HEADER: &str = "wegman-nonce-state v1\n";

struct World {
    dir: PathBuf,
    a: KeyBinding,
    b: KeyBinding,
    /// Genuine states of A and of B: (safe nonce, file bytes).
    genuine_a: Vec<(u128, Vec<u8>)>,
    genuine_b: Vec<(u128, Vec<u8>)>,
}

/// The version-2 states of `key` with each of `SAFE`'s values: what
/// earlier versions wrote at `create` (safe nonce 0) and left after
/// reserving, which the store reads as generation 0 until its first
/// reservation migrates it. (A new store is generation 1 beside a sealed
/// base; the generation files are not covered here.)
fn genuine(material: &[u8]) -> Vec<(u128, Vec<u8>)> {
    SAFE.iter().map(|&safe| (safe, nonce_v2::state_bytes("poly1305aes", material, safe))).collect()
}

/// Remove the generation files an `adopt` left beside `path`.
fn remove_generations(path: &Path) {
    let name = path.file_name().expect("name").to_string_lossy().into_owned();
    for e in std::fs::read_dir(path.parent().expect("dir")).expect("list") {
        let e = e.expect("entry");
        if e.file_name().to_string_lossy().strip_prefix(&format!("{name}.")).is_some_and(|g| g.parse::<u64>().is_ok()) {
            std::fs::remove_file(e.path()).expect("remove generation");
        }
    }
}

/// CRC-32 (IEEE 802.3, reflected polynomial 0xEDB88320).
fn crc32(data: &[u8]) -> u32 {
    let mut c = !0u32;
    for &b in data {
        c ^= u32::from(b);
        for _ in 0..8 {
            c = if c & 1 == 1 { (c >> 1) ^ 0xEDB8_8320 } else { c >> 1 };
        }
    }
    !c
}

/// The version-1 state (unbound, CRC-checked) of `safe`.
fn v1(safe: u128) -> Vec<u8> {
    let hex: String = safe.to_le_bytes().iter().map(|b| format!("{b:02x}")).collect();
    let body = format!("{V1_HEADER}safe {hex}\n");
    format!("{body}crc32 {:08x}\n", crc32(body.as_bytes())).into_bytes()
}

fn world() -> &'static World {
    static WORLD: OnceLock<World> = OnceLock::new();
    WORLD.get_or_init(|| {
        let dir = work_dir("nonce");
        let a = KeyBinding::derive("poly1305aes", &[0xa1; 32]);
        let b = KeyBinding::derive("poly1305aes", &[0xb2; 32]);
        let genuine_a = genuine(&[0xa1; 32]);
        let genuine_b = genuine(&[0xb2; 32]);
        let mut seeds = vec![("v1-1000".to_string(), v1(1000))];
        for (name, states) in [("a", &genuine_a), ("b", &genuine_b)] {
            for (i, (_, bytes)) in states.iter().enumerate() {
                seeds.push((format!("genuine-{name}{i}"), bytes.clone()));
            }
        }
        write_seeds(&seeds);
        World { dir, a, b, genuine_a, genuine_b }
    })
}

/// Which refusal, as a word (the variants carry paths and ids).
fn kind<T>(r: &Result<T, NonceError>) -> &'static str {
    match r {
        Ok(_) => "ok",
        Err(NonceError::Missing(_)) => "missing",
        Err(NonceError::Corrupt { .. }) => "corrupt",
        Err(NonceError::WrongKey { .. }) => "wrong key",
        Err(NonceError::Unbound(_)) => "unbound",
        Err(NonceError::Symlink(_)) => "symlink",
        Err(NonceError::Conflict { .. }) => "conflict",
        Err(_) => "other",
    }
}

/// The safe nonce if `data` is one of `states` byte for byte.
fn lookup(states: &[(u128, Vec<u8>)], data: &[u8]) -> Option<u128> {
    states.iter().find(|(_, bytes)| bytes == data).map(|(safe, _)| *safe)
}

/// `data` read as an edit of one of A's genuine states: which, then
/// [`Input::edit`]'s fields.
fn edited(w: &World, data: &[u8]) -> Vec<u8> {
    let mut input = Input::new(data);
    let which = usize::from(input.byte());
    input.edit(&w.genuine_a[which % SAFE.len()].1)
}

/// Every check above on one state file's bytes.
fn verdicts(w: &World, data: &[u8]) {
    let path = w.dir.join("fuzz.nonce");
    let under_a = check_state_bytes(&path, &w.a, data);
    let under_b = check_state_bytes(&path, &w.b, data);
    let (is_a, is_b) = (lookup(&w.genuine_a, data), lookup(&w.genuine_b, data));
    assert_eq!(under_a.as_ref().ok().copied(), is_a, "key A's verdict ({})", kind(&under_a));
    assert_eq!(under_b.as_ref().ok().copied(), is_b, "key B's verdict ({})", kind(&under_b));
    if is_a.is_some() {
        assert_eq!(kind(&under_b), "wrong key", "A's state under key B");
    }
    let prefix = &data[..data.len().min(4096)];
    let unbound = std::str::from_utf8(prefix).is_ok_and(|t| t.starts_with(V1_HEADER));
    assert_eq!(kind(&under_a) == "unbound", unbound, "unbound verdict ({})", kind(&under_a));

    // The same bytes as a file (alone: no generation file beside it).
    remove_generations(&path);
    std::fs::write(&path, data).expect("write state");
    let opened = NonceStore::open(&path, &w.a);
    assert_eq!(kind(&opened), kind(&under_a), "NonceStore::open and check_state_bytes disagree");
    drop(opened);
    let adopted = NonceStore::adopt(&path, &w.a);
    let after = std::fs::read(&path).expect("read state");
    match (adopted, is_a) {
        (Ok(()), Some(_)) => assert_eq!(after, data, "adopt changed a genuine state"),
        (Ok(()), None) => {
            // adopt made generation 1 with the v1 state's safe nonce and
            // sealed the base
            assert!(matches!(check_state_bytes(&path, &w.a, &after), Err(NonceError::Missing(_))), "not sealed");
            let mut store = NonceStore::open(&path, &w.a).expect("adopt wrote a state that does not open");
            let safe = match store.next_nonce() {
                Ok(n) => u128::from_le_bytes(n),
                Err(NonceError::Exhausted) => u128::MAX,
                Err(e) => panic!("no nonce after adopt: {e}"),
            };
            drop(store);
            assert_eq!(v1(safe), data, "adopt accepted something other than a version-1 state");
        }
        (Err(e), Some(_)) => panic!("adopt refused a genuine state: {e}"),
        (Err(_), None) => assert_eq!(after, data, "adopt changed a state it refused"),
    }
}

fuzz_target!(init: { world(); }, |data: &[u8]| {
    let w = world();
    verdicts(w, data);
    verdicts(w, &edited(w, data));
});
