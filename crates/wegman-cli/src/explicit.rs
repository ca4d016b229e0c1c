//! `wegman mac ALG --key-hex … --nonce-hex … [FILE|-]` and `wegman verify …`.
//!
//! For scripting and interop with other implementations. The tag is printed
//! as lowercase hex (32 digits for Poly1305-AES, 8 to 32 for the MMH
//! family) and a newline; `verify` exits 0 if the tag is valid and 1 if
//! not; bad arguments or an invalid Poly1305 r exit 2.

use std::path::{Path, PathBuf};

use zeroize::Zeroizing;

use crate::algs::{AnyKey, AnyMac, MacAlg};
use crate::{ExplicitArgs, KeySource, VerifyArgs, hexarg, input, keyfile};

fn key(alg: MacAlg, src: &KeySource) -> Result<AnyKey, String> {
    let bytes = match (&src.key_hex, &src.key_file) {
        (Some(hex), None) => Zeroizing::new(hexarg::decode_vec("key", hex)?),
        (None, Some(path)) => {
            let m = keyfile::read_material(path)?;
            if let Some(other) = m.alg.as_deref().filter(|a| *a != alg.name()) {
                return Err(format!("{}: this is a {other} key, not a {alg} key", path.display()));
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

fn compute<'k>(args: &ExplicitArgs, key: &'k AnyKey) -> Result<AnyMac<'k>, String> {
    let nonce = hexarg::decode::<16>("nonce", &args.nonce_hex)?;
    let path = args.file.clone().unwrap_or_else(|| PathBuf::from("-"));
    input::mac(key, &nonce, Path::new(&path), &indicatif::ProgressBar::hidden())
        .map_err(|e| format!("{}: {}", path.display(), input::describe(&e)))
}

pub fn mac(args: &ExplicitArgs) -> Result<u8, String> {
    let key = key(args.alg, &args.key)?;
    let tag = compute(args, &key)?.finalize().map_err(|e| e.to_string())?;
    println!("{}", hexarg::encode(&tag));
    Ok(0)
}

pub fn verify(args: &VerifyArgs) -> Result<u8, String> {
    let alg = args.common.alg;
    let tag = hexarg::decode_vec("tag", &args.tag_hex)?;
    if tag.len() != alg.tag_bytes() {
        return Err(format!("tag: {alg} tags are {} hex digits, got {}", 2 * alg.tag_bytes(), 2 * tag.len()));
    }
    let key = key(alg, &args.common.key)?;
    let mac = compute(&args.common, &key)?;
    if mac.verify(&tag).map_err(|e| e.to_string())? {
        Ok(0)
    } else {
        eprintln!("wegman: verification FAILED");
        Ok(1)
    }
}
