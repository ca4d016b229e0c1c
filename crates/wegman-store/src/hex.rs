//! Hex for key files, manifests and arguments: exact lengths, clear errors.
//!
//! Key material is decoded by [`decode_secret`] only: RustCrypto's
//! `base16ct`, which turns each digit into its value with arithmetic
//! (no branch, no table lookup on the digit) and checks all digits at once
//! at the end. The other decoders here are for public values (nonces, tags,
//! associated data) and may branch on them.

use zeroize::Zeroizing;

/// Decode exactly `N` bytes from hex (either case), naming `what` on error.
pub fn decode<const N: usize>(what: &str, s: &str) -> Result<[u8; N], String> {
    let s = s.trim();
    if s.len() != 2 * N {
        return Err(format!("{what}: expected {} hex digits, got {}", 2 * N, s.len()));
    }
    if !s.bytes().all(|c| c.is_ascii_hexdigit()) {
        return Err(format!("{what}: not a hex string"));
    }
    let mut out = [0u8; N];
    for (i, o) in out.iter_mut().enumerate() {
        *o = u8::from_str_radix(&s[2 * i..2 * i + 2], 16).map_err(|_| format!("{what}: not a hex string"))?;
    }
    Ok(out)
}

/// Lowercase hex.
pub fn encode(b: &[u8]) -> String {
    let mut s = String::with_capacity(2 * b.len());
    encode_secret_into(b, &mut s);
    s
}

/// Append the lowercase hex of secret bytes to `out` without temporaries
/// and without table lookups or branches on the bytes (digit = n + '0',
/// plus 39 when n > 9, computed with a mask). Reserve `out` first so that
/// it never reallocates and leaves a copy behind.
pub fn encode_secret_into(b: &[u8], out: &mut String) {
    fn digit(n: u8) -> char {
        // (9 - n) is negative exactly when n > 9: its sign bit makes the mask.
        let over = ((9i16 - i16::from(n)) >> 8) as u8;
        char::from(n + b'0' + (over & 39))
    }
    for &x in b {
        out.push(digit(x >> 4));
        out.push(digit(x & 15));
    }
}

/// Decode secret key material (any even number of hex digits, either case)
/// in constant time, into a buffer wiped on drop. Only the length, and
/// whether every digit was valid (one bit, public by design, computed by
/// `base16ct` without branching and branched on once at its end), decide
/// anything. The caller strips whatever surrounds the digits.
pub fn decode_secret(what: &str, digits: &[u8]) -> Result<Zeroizing<Vec<u8>>, String> {
    if !digits.len().is_multiple_of(2) {
        return Err(format!("{what}: not a hex string of whole bytes"));
    }
    let mut out = Zeroizing::new(vec![0u8; digits.len() / 2]);
    base16ct::mixed::decode(digits, &mut out[..]).map_err(|_| format!("{what}: not a hex string of whole bytes"))?;
    Ok(out)
}

/// Decode any even number of hex digits of a public value.
pub fn decode_vec(what: &str, s: &str) -> Result<Vec<u8>, String> {
    let s = s.trim();
    if !s.len().is_multiple_of(2) || !s.bytes().all(|c| c.is_ascii_hexdigit()) {
        return Err(format!("{what}: not a hex string of whole bytes"));
    }
    Ok((0..s.len() / 2).map(|i| u8::from_str_radix(&s[2 * i..2 * i + 2], 16).expect("hex checked")).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secret_decoding_is_exact() {
        let all: Vec<u8> = (0..=255).collect();
        let lower = encode(&all);
        assert_eq!(*decode_secret("key", lower.as_bytes()).unwrap(), all);
        assert_eq!(*decode_secret("key", lower.to_uppercase().as_bytes()).unwrap(), all);
        assert_eq!(*decode_secret("key", b"").unwrap(), Vec::<u8>::new());
        for bad in ["0", "0g", "g0", "00 11", "-1", "0x00", "é0", " 00", "00\n"] {
            let e = decode_secret("key", bad.as_bytes()).unwrap_err();
            assert_eq!(e, "key: not a hex string of whole bytes", "{bad:?}");
        }
    }

    #[test]
    fn hex_matches_format() {
        let all: Vec<u8> = (0..=255).collect();
        let mut s = String::new();
        encode_secret_into(&all, &mut s);
        let want: String = all.iter().map(|x| format!("{x:02x}")).collect();
        assert_eq!(s, want);
        assert_eq!(encode(&all), want);
    }
}
