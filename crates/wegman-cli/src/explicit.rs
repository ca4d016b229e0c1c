//! `wegman mac ALG --key-hex … --nonce-hex … [FILE|-]` and `wegman verify …`.
//!
//! For scripting and interop with other implementations. The tag is printed
//! as 32 lowercase hex digits and a newline; `verify` exits 0 if the tag is
//! valid and 1 if not; bad arguments or an invalid r exit 2.

use std::path::{Path, PathBuf};

use wegman::poly1305aes::Key;

use crate::{Alg, ExplicitArgs, KeySource, VerifyArgs, hexarg, input, keyfile};

fn key(src: &KeySource) -> Result<Key, String> {
    match (&src.key_hex, &src.key_file) {
        (Some(hex), None) => keyfile::parse_key(hex, src.clamp),
        (None, Some(path)) => keyfile::read(path, src.clamp),
        _ => Err("give exactly one of --key-hex and --key-file".into()),
    }
}

fn compute(args: &ExplicitArgs) -> Result<wegman::poly1305aes::Poly1305Aes, String> {
    let Alg::Poly1305aes = args.alg;
    let key = key(&args.key)?;
    let nonce = hexarg::decode::<16>("nonce", &args.nonce_hex)?;
    let path = args.file.clone().unwrap_or_else(|| PathBuf::from("-"));
    input::poly1305aes(&key, &nonce, Path::new(&path), &indicatif::ProgressBar::hidden())
        .map_err(|e| format!("{}: {}", path.display(), input::describe(&e)))
}

pub fn mac(args: &ExplicitArgs) -> Result<u8, String> {
    let tag = compute(args)?.finalize();
    println!("{}", hexarg::encode(&tag));
    Ok(0)
}

pub fn verify(args: &VerifyArgs) -> Result<u8, String> {
    let tag = hexarg::decode::<16>("tag", &args.tag_hex)?;
    let mac = compute(&args.common)?;
    if mac.verify(&tag).is_ok() {
        Ok(0)
    } else {
        eprintln!("wegman: verification FAILED");
        Ok(1)
    }
}
