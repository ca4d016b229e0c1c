//! Manifest lines, in the BSD-tagged style of coreutils' `--tag` output:
//!
//! ```text
//! POLY1305-AES (name) nonce=<32 hex> = <32 hex>
//! MMH32 (name) nonce=<32 hex> = <8 hex>
//! ```
//!
//! The label names the algorithm; the tag has that algorithm's length.
//!
//! A name containing a newline, carriage return or backslash is escaped as
//! coreutils does (`\n`, `\r`, `\\`) and the whole line then starts with `\`.

use crate::algs::MacAlg;

/// One parsed line.
pub struct Line {
    pub alg: MacAlg,
    pub name: String,
    pub nonce: [u8; 16],
    pub tag: Vec<u8>,
}

/// Escape a file name; returns (escaped, whether anything was escaped).
pub fn escape(name: &str) -> (String, bool) {
    let mut out = String::with_capacity(name.len());
    let mut any = false;
    for c in name.chars() {
        match c {
            '\\' => {
                out.push_str("\\\\");
                any = true;
            }
            '\n' => {
                out.push_str("\\n");
                any = true;
            }
            '\r' => {
                out.push_str("\\r");
                any = true;
            }
            c => out.push(c),
        }
    }
    (out, any)
}

fn unescape(s: &str) -> Option<String> {
    let mut out = String::with_capacity(s.len());
    let mut it = s.chars();
    while let Some(c) = it.next() {
        if c == '\\' {
            match it.next()? {
                '\\' => out.push('\\'),
                'n' => out.push('\n'),
                'r' => out.push('\r'),
                _ => return None,
            }
        } else {
            out.push(c);
        }
    }
    Some(out)
}

/// Format one manifest line (without the trailing newline).
pub fn format(alg: MacAlg, name: &str, nonce: &[u8; 16], tag: &[u8]) -> String {
    let (esc, escaped) = escape(name);
    format!(
        "{}{} ({esc}) nonce={} = {}",
        if escaped { "\\" } else { "" },
        alg.label(),
        crate::hexarg::encode(nonce),
        crate::hexarg::encode(tag)
    )
}

/// Prefix for a status line about `name`, escaped the same way.
pub fn status_name(name: &str) -> String {
    let (esc, escaped) = escape(name);
    if escaped { format!("\\{esc}") } else { esc }
}

/// Parse a line; `None` if it is not properly formatted.
pub fn parse(line: &str) -> Option<Line> {
    let (escaped, rest) = match line.strip_prefix('\\') {
        Some(r) => (true, r),
        None => (false, line),
    };
    let (label, rest) = rest.split_once(" (")?;
    let alg = MacAlg::from_label(label)?;
    // The tail has a fixed shape, so names may contain ") nonce=" themselves.
    let tail_len = ") nonce=".len() + 32 + " = ".len() + 2 * alg.tag_bytes();
    if rest.len() < tail_len || !rest.is_char_boundary(rest.len() - tail_len) {
        return None;
    }
    let (name, tail) = rest.split_at(rest.len() - tail_len);
    let tail = tail.strip_prefix(") nonce=")?;
    // `get` rather than `split_at`: a tail with multi-byte characters in it
    // is malformed, not a reason to panic.
    let (nonce_hex, tail) = (tail.get(..32)?, tail.get(32..)?);
    let tag_hex = tail.strip_prefix(" = ")?;
    let nonce: [u8; 16] = strict_hex(nonce_hex)?.try_into().ok()?;
    let tag = strict_hex(tag_hex)?;
    let name = if escaped { unescape(name)? } else { name.to_string() };
    if name.is_empty() {
        return None;
    }
    Some(Line { alg, name, nonce, tag })
}

fn strict_hex(s: &str) -> Option<Vec<u8>> {
    if !s.bytes().all(|c| c.is_ascii_digit() || (b'a'..=b'f').contains(&c)) {
        return None;
    }
    crate::hexarg::decode_vec("", s).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_with_awkward_names() {
        for name in ["plain.txt", "a b", "new\nline", "back\\slash", "x) nonce=y", "cr\r", "ünï"] {
            for alg in MacAlg::ALL {
                let tag = vec![2u8; alg.tag_bytes()];
                let line = format(alg, name, &[1; 16], &tag);
                assert!(!line.contains('\n'));
                let p = parse(&line).unwrap();
                assert_eq!((p.alg, p.name.as_str(), p.nonce, p.tag), (alg, name, [1; 16], tag));
            }
        }
        assert!(
            format(MacAlg::Poly1305aes, "new\nline", &[0; 16], &[0; 16]).starts_with("\\POLY1305-AES (new\\nline) ")
        );
    }

    #[test]
    fn malformed_lines() {
        let good = format(MacAlg::Poly1305aes, "f", &[0xab; 16], &[0xcd; 16]);
        assert!(parse(&good).is_some());
        for bad in [
            String::new(),
            good.replace("POLY1305-AES", "SHA256"),
            good.replace("POLY1305-AES", "MMH32"), // wrong tag length for the label
            good[..good.len() - 1].to_string(),
            good.replace("abab", "ABAB"),
            good.replace("nonce=", "nonce:"),
            format!("{good} "),
            "POLY1305-AES () nonce=00000000000000000000000000000000 = 00000000000000000000000000000000".into(),
            "\\POLY1305-AES (a\\q) nonce=00000000000000000000000000000000 = 00000000000000000000000000000000".into(),
            // multi-byte characters where the hex should be: must not panic
            format!("POLY1305-AES (f) nonce=a{}{}", "é".repeat(16), "x".repeat(34)),
            format!("POLY1305-AES (f) nonce={} = {}", "é".repeat(16), "0".repeat(32)),
        ] {
            assert!(parse(&bad).is_none(), "{bad:?}");
        }
    }
}
