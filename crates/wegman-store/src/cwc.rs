//! CWC-AES keys in key files, and their nonces from the key's store.
//!
//! `keygen --alg cwc-aes-128|192|256` writes a key file naming one of
//! [`CWC_ALGS`] and a nonce store beside it: every nonce comes from the
//! store, and travels with the sealed output, in its header
//! ([`crate::sealed`]; in the headerless format, at its front: nonce ‖
//! ciphertext ‖ tag). A bare hex key file, or one naming `alg cwc`, has no store: its
//! user owns nonce uniqueness.

use std::path::Path;

use wegman::cwc::{CwcKey, NONCE_BYTES};

use crate::algs::CWC_ALGS;
use crate::keyfile::Material;
use crate::nonce::{KeyBinding, NonceStore};

/// The CWC key in `m` (read from `path`), with the binding of its nonce
/// store if its file names a [`CWC_ALGS`] algorithm, `None` for a key
/// without a store (no algorithm, or `alg cwc`).
pub fn key_of(path: &Path, m: &Material) -> Result<(CwcKey, Option<KeyBinding>), String> {
    let binding = match m.alg.as_deref() {
        None | Some("cwc") => None,
        Some(alg) => match CWC_ALGS.iter().find(|(n, _)| *n == alg) {
            Some((name, len)) if m.bytes.len() == *len => Some(KeyBinding::derive(name, &m.bytes)),
            Some((name, len)) => return Err(format!("{}: a {name} key must be {len} bytes", path.display())),
            None => return Err(format!("{}: this is a {alg} key, not a CWC key", path.display())),
        },
    };
    let key = CwcKey::new(&m.bytes).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok((key, binding))
}

/// The next 11-byte CWC nonce from the store of the key file `key_file`:
/// the store's counter, durable before it is returned, which must stay
/// below 2^88.
pub fn next_nonce(store: &mut NonceStore, key_file: &Path) -> Result<[u8; NONCE_BYTES], String> {
    let n = store.next_nonce().map_err(|e| e.to_string())?;
    let (nonce, high) = n.split_at(NONCE_BYTES);
    if high.iter().any(|&b| b != 0) {
        return Err(format!("{}: the key's 2^88 CWC nonces are used up: make a new key", key_file.display()));
    }
    Ok(nonce.try_into().expect("11 bytes"))
}
