//! Constant-time check of the command line's key parsing under valgrind's
//! memcheck, run by wegman-cli's `tests/ctgrind_keys.rs` (not meant to be run
//! by hand). It lives here, beside the Rust API harness, so that both build in
//! one target directory (`wegman_ctgrind::matrix::Build`) from the same
//! dependencies: as an example of wegman-cli it built the CLI's own too.
//!
//! It builds key files in memory — the wegman format `keygen` writes, in
//! lower and upper case, and a bare hex key — marks every hex digit of the
//! key *undefined* with a memcheck client request, and parses them with the
//! code the CLI runs: `wegman_store::keyfile::parse_material` (and
//! `hex::decode_secret`, the `--key-hex` path). Memcheck reports every
//! conditional jump or memory address that depends on an undefined bit, so
//! a clean run means no branch and no index depended on a key digit. The one branch allowed is the
//! validity verdict at the end of `base16ct`'s decoder (all digits valid or
//! not: one bit, public by design), suppressed by name in
//! wegman-cli's `tests/ctgrind_keys.supp`; the test requires that suppression to be used,
//! which proves the digits really were undefined when they were decoded.
//! Each decoded key is checked to still carry undefined bits before it is
//! declassified and compared with the expected bytes.
//!
//! `--leaky` runs the decoder wegman used before the security review (`u8::from_str_radix`
//! on each pair of digits, after an `is_ascii_hexdigit` check), which must
//! be reported: the negative control.
//!
//! The memcheck client requests (inline assembly, x86-64 only, like the
//! machines this runs on) come from `wegman_ctgrind::client`, which the Rust
//! API harness (`src/main.rs`) uses too.

use std::process::ExitCode;

use wegman_ctgrind::client::{carries_undefined_bits, classify, declassify, running_on_valgrind};
use wegman_store::{hex, keyfile};

/// The decoder of wegman before the security review, for the negative control.
#[inline(never)]
fn leaky_decode(s: &str) -> Option<Vec<u8>> {
    if !s.len().is_multiple_of(2) || !s.bytes().all(|c| c.is_ascii_hexdigit()) {
        return None;
    }
    (0..s.len() / 2).map(|i| u8::from_str_radix(&s[2 * i..2 * i + 2], 16).ok()).collect()
}

/// Parse `text` with its bytes `digits` marked undefined, then check the
/// decoded key against `want`. Returns a description of a failure.
fn check(
    name: &str,
    mut text: Vec<u8>,
    digits: std::ops::Range<usize>,
    want: &[u8],
    leaky: bool,
) -> Result<(), String> {
    classify(&mut text[digits.clone()]);
    let got: Vec<u8> = if leaky {
        let hex = std::str::from_utf8(&text[digits.clone()]).map_err(|e| e.to_string())?;
        leaky_decode(hex).ok_or("leaky decoder refused")?
    } else if name.starts_with("--key-hex") {
        hex::decode_secret("key", &text[digits.clone()])?.to_vec()
    } else {
        keyfile::parse_material(&text)?.bytes.to_vec()
    };
    let mut got = got;
    let flowed = carries_undefined_bits(&got);
    declassify(&mut got);
    declassify(&mut text);
    text.iter_mut().for_each(|b| *b = 0);
    if !flowed {
        return Err(format!("{name}: the decoded key carries no undefined bits: the test marked nothing"));
    }
    if got != want {
        return Err(format!("{name}: decoded {got:02x?}, expected {want:02x?}"));
    }
    Ok(())
}

fn main() -> ExitCode {
    let leaky = std::env::args().any(|a| a == "--leaky");
    if !running_on_valgrind() {
        eprintln!(
            "ctgrind_keys: run me under valgrind (wegman-cli's tests/ctgrind_keys.rs does): outside it nothing is checked"
        );
        return ExitCode::from(2);
    }
    // A fixed key with every nibble value in both positions.
    let key: Vec<u8> = (0..32u8).map(|i| i.wrapping_mul(0x3b) ^ 0xa5).collect();
    let lower: String = key.iter().map(|b| format!("{b:02x}")).collect();
    let upper = lower.to_uppercase();
    let mut cases: Vec<(String, Vec<u8>, std::ops::Range<usize>)> = Vec::new();
    for (case, hex) in [("lower", &lower), ("upper", &upper)] {
        let head = "wegman-key v1\n# secret: never share, never commit\nalg poly1305aes\nkey ";
        let text = format!("{head}{hex}\n");
        cases.push((format!("key file ({case} case)"), text.into_bytes(), head.len()..head.len() + 64));
        cases.push((format!("bare key file ({case} case)"), format!("{hex}\n").into_bytes(), 0..64));
        cases.push((format!("--key-hex ({case} case)"), hex.clone().into_bytes(), 0..64));
    }
    let (mut passed, mut failed) = (0, 0);
    for (name, text, digits) in cases {
        match check(&name, text, digits, &key, leaky) {
            Ok(()) => passed += 1,
            Err(e) => {
                println!("FAILED {e}");
                failed += 1;
            }
        }
    }
    if leaky {
        println!("ctgrind_keys --leaky: ran the old decoder on {passed} keys");
    }
    println!("ctgrind_keys: {passed} passed, {failed} failed");
    if failed == 0 { ExitCode::SUCCESS } else { ExitCode::FAILURE }
}
