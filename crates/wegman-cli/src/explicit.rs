//! `wegman mac ALG --key-hex … --nonce-hex … [FILE|-]` and `wegman verify …`.
//!
//! For scripting and interop with other implementations. The tag is printed
//! as lowercase hex (32 digits for Poly1305-AES, 8 to 32 for the MMH
//! family) and a newline; `verify` exits 0 if the tag is valid and 1 if
//! not; bad arguments or an invalid Poly1305 r exit 2.
//!
//! A key file made by `wegman keygen` has a nonce store, and `tag` takes its
//! nonces from it. `mac` with such a key file and an explicit nonce could
//! re-issue a tag for a nonce the store already handed out (a repeat that
//! reveals the key), so it is refused unless `--caller-manages-nonces` says
//! the nonces of this key are managed elsewhere. `verify` takes any nonce:
//! checking a tag never uses one up.

use std::path::{Path, PathBuf};

use wegman_store::algs::{AnyKey, AnyMac, MacAlg};
use wegman_store::progress::NoProgress;
use wegman_store::{hex, input, keyfile};

use crate::backend::Backend;
use crate::{ExplicitArgs, KeySource, MacArgs, VerifyArgs};

/// Whether an explicit nonce may be used with a key file that has a nonce store.
#[derive(Clone, Copy, PartialEq, Eq)]
enum ExplicitNonce {
    /// `verify`, or `mac --caller-manages-nonces`.
    Allowed,
    /// `mac` without the flag.
    OnlyForUnmanagedKeys,
}

fn key(alg: MacAlg, src: &KeySource, nonce: ExplicitNonce) -> Result<AnyKey, String> {
    let bytes = match (&src.key_hex, &src.key_file) {
        (Some(digits), None) => hex::decode_secret("key", digits.trim_ascii().as_bytes())?,
        (None, Some(path)) => {
            let m = keyfile::read_material(path)?;
            if let Some(other) = m.alg.as_deref().filter(|a| *a != alg.name()) {
                return Err(format!("{}: this is a {other} key, not a {alg} key", path.display()));
            }
            if m.alg.is_some() && nonce == ExplicitNonce::OnlyForUnmanagedKeys {
                return Err(format!(
                    "{}: this key's nonces come from its nonce store, and an explicit --nonce-hex could repeat \
                     one it already handed out (revealing the key); use `wegman tag -k KEYFILE FILE`, which takes \
                     the next nonce, or add --caller-manages-nonces if this key's nonces are managed elsewhere",
                    path.display()
                ));
            }
            m.bytes
        }
        _ => return Err("give exactly one of --key-hex and --key-file".into()),
    };
    if bytes.len() != 32 {
        return Err(format!("key: expected 64 hex digits (32 bytes), got {}", 2 * bytes.len()));
    }
    AnyKey::from_bytes(alg, &bytes, src.clamp)
}

/// The key on the backend `--backend` names (MMH has one backend per CPU).
fn on_backend(key: AnyKey, backend: Backend) -> Result<AnyKey, String> {
    match key {
        AnyKey::Poly1305Aes(k, _) => Ok(AnyKey::Poly1305Aes(k, backend.features()?)),
        other if matches!(backend, Backend::Auto | Backend::Portable) => Ok(other),
        other => Err(format!(
            "--backend {}: {} runs its portable backend only; --backend chooses Poly1305's",
            backend.name(),
            other.alg()
        )),
    }
}

fn compute<'k>(args: &ExplicitArgs, key: &'k AnyKey) -> Result<AnyMac<'k>, String> {
    let nonce = hex::decode::<16>("nonce", &args.nonce_hex)?;
    let path = args.file.clone().unwrap_or_else(|| PathBuf::from("-"));
    let threads = args.threads.unwrap_or_else(input::all_cores);
    input::mac_threads(key, &nonce, &[], Path::new(&path), threads, &NoProgress)
        .map_err(|e| format!("{}: {}", path.display(), input::describe(&e)))
}

pub fn mac(args: &MacArgs) -> Result<u8, String> {
    let policy = if args.caller_manages_nonces { ExplicitNonce::Allowed } else { ExplicitNonce::OnlyForUnmanagedKeys };
    let key = on_backend(key(args.common.alg.0, &args.common.key, policy)?, args.common.backend)?;
    let tag = compute(&args.common, &key)?.finalize().map_err(|e| e.to_string())?;
    crate::out::line(hex::encode(&tag))?;
    Ok(0)
}

pub fn verify(args: &VerifyArgs) -> Result<u8, String> {
    let alg = args.common.alg.0;
    let tag = hex::decode_vec("tag", &args.tag_hex)?;
    if tag.len() != alg.tag_bytes() {
        return Err(format!("tag: {alg} tags are {} hex digits, got {}", 2 * alg.tag_bytes(), 2 * tag.len()));
    }
    let key = on_backend(key(alg, &args.common.key, ExplicitNonce::Allowed)?, args.common.backend)?;
    let mac = compute(&args.common, &key)?;
    if mac.verify(&tag).map_err(|e| e.to_string())? {
        Ok(0)
    } else {
        crate::out::warn(format_args!("verification FAILED"));
        Ok(1)
    }
}
