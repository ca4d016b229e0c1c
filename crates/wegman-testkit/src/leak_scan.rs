//! Does a text show any piece of a secret? Shared by the key-hygiene tests
//! of the library (`crates/wegman/tests/key_hygiene.rs`), of the store
//! (`crates/wegman-store/tests/key_hygiene.rs`) and of the command line
//! (`crates/wegman-cli/tests/key_hygiene.rs`).
//!
//! Every 4-byte window of the secret is looked for in the forms a program
//! prints bytes in: raw, hex (either case, also with separators removed),
//! a Rust `Debug` list of bytes (`12, 34, 56, 78`), and the window read as a
//! little- or big-endian 32-bit word in decimal (a `Debug` of key words) and
//! the 8-byte windows as 64-bit words. Four bytes is the shortest piece worth
//! finding: a random 4-byte window shows up by chance in an 8-hex-digit run
//! of unrelated output with probability 2^-32 per position.

/// The first form in which `text` shows a piece of `secret`, if any.
pub fn shows(text: &str, secret: &[u8]) -> Option<String> {
    let raw = text.as_bytes();
    let lower = text.to_ascii_lowercase();
    let hex_only: String = lower.chars().filter(char::is_ascii_hexdigit).collect();
    let digits = decimal_numbers(text);
    for (i, w) in secret.windows(4).enumerate() {
        if raw.windows(4).any(|r| r == w) {
            return Some(format!("raw bytes {i}..{}", i + 4));
        }
        let hex = hex::encode(w);
        if lower.contains(&hex) || hex_only.contains(&hex) {
            return Some(format!("hex of bytes {i}..{}: {hex}", i + 4));
        }
        let list = format!("{}, {}, {}, {}", w[0], w[1], w[2], w[3]);
        if text.contains(&list) {
            return Some(format!("byte list of bytes {i}..{}: [{list}]", i + 4));
        }
        let word = <[u8; 4]>::try_from(w).expect("4 bytes");
        for n in [u64::from(u32::from_le_bytes(word)), u64::from(u32::from_be_bytes(word))] {
            if n >= 100_000 && digits.contains(&n) {
                return Some(format!("32-bit word of bytes {i}..{} in decimal: {n}", i + 4));
            }
        }
    }
    for (i, w) in secret.windows(8).enumerate() {
        let word = <[u8; 8]>::try_from(w).expect("8 bytes");
        for n in [u64::from_le_bytes(word), u64::from_be_bytes(word)] {
            if digits.contains(&n) {
                return Some(format!("64-bit word of bytes {i}..{} in decimal: {n}", i + 8));
            }
        }
    }
    None
}

/// Every run of decimal digits in `text` that fits a u64.
fn decimal_numbers(text: &str) -> Vec<u64> {
    text.split(|c: char| !c.is_ascii_digit()).filter_map(|run| run.parse().ok()).collect()
}

#[test]
fn finds_each_form_and_not_unrelated_text() {
    let secret = [0x12, 0xab, 0xcd, 0xef, 0x01, 0x23, 0x45, 0x67, 0x89];
    for text in [
        "key 12abcdef0123",
        "KEY=12ABCDEF",
        "12:ab:cd:ef",
        "Key { k: [18, 171, 205, 239] }",
        &format!("w: {}", u32::from_le_bytes([0xab, 0xcd, 0xef, 0x01])),
        &format!("w: {}", u64::from_le_bytes([0x12, 0xab, 0xcd, 0xef, 0x01, 0x23, 0x45, 0x67])),
    ] {
        assert!(shows(text, &secret).is_some(), "{text}");
    }
    assert_eq!(shows("Key { .. } tag 00112233 error: r[3] must be at most 15", &secret), None);
}
