//! Manifest lines, in the BSD-tagged style of coreutils' `--tag` output:
//!
//! ```text
//! POLY1305-AES (name) nonce=<32 hex> = <32 hex>
//! ```
//!
//! A name containing a newline, carriage return or backslash is escaped as
//! coreutils does (`\n`, `\r`, `\\`) and the whole line then starts with `\`.

/// The algorithm label in manifest lines.
pub const POLY1305AES: &str = "POLY1305-AES";

/// One parsed line.
pub struct Line {
    pub name: String,
    pub nonce: [u8; 16],
    pub tag: [u8; 16],
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
pub fn format(name: &str, nonce: &[u8; 16], tag: &[u8; 16]) -> String {
    let (esc, escaped) = escape(name);
    format!(
        "{}{POLY1305AES} ({esc}) nonce={} = {}",
        if escaped { "\\" } else { "" },
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
    let rest = rest.strip_prefix(POLY1305AES)?.strip_prefix(" (")?;
    // The tail has a fixed shape, so names may contain ") nonce=" themselves.
    const TAIL: usize = ") nonce=".len() + 32 + " = ".len() + 32;
    if rest.len() < TAIL || !rest.is_char_boundary(rest.len() - TAIL) {
        return None;
    }
    let (name, tail) = rest.split_at(rest.len() - TAIL);
    let tail = tail.strip_prefix(") nonce=")?;
    let (nonce_hex, tail) = tail.split_at(32);
    let tag_hex = tail.strip_prefix(" = ")?;
    let nonce = strict_hex(nonce_hex)?;
    let tag = strict_hex(tag_hex)?;
    let name = if escaped { unescape(name)? } else { name.to_string() };
    if name.is_empty() {
        return None;
    }
    Some(Line { name, nonce, tag })
}

fn strict_hex(s: &str) -> Option<[u8; 16]> {
    if !s.bytes().all(|c| c.is_ascii_digit() || (b'a'..=b'f').contains(&c)) {
        return None;
    }
    crate::hexarg::decode::<16>("", s).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_with_awkward_names() {
        for name in ["plain.txt", "a b", "new\nline", "back\\slash", "x) nonce=y", "cr\r", "ünï"] {
            let line = format(name, &[1; 16], &[2; 16]);
            assert!(!line.contains('\n'));
            let p = parse(&line).unwrap();
            assert_eq!(p.name, name);
            assert_eq!(p.nonce, [1; 16]);
            assert_eq!(p.tag, [2; 16]);
        }
        assert!(format("new\nline", &[0; 16], &[0; 16]).starts_with("\\POLY1305-AES (new\\nline) "));
    }

    #[test]
    fn malformed_lines() {
        let good = format("f", &[0xab; 16], &[0xcd; 16]);
        assert!(parse(&good).is_some());
        for bad in [
            String::new(),
            good.replace("POLY1305-AES", "SHA256"),
            good[..good.len() - 1].to_string(),
            good.replace("abab", "ABAB"),
            good.replace("nonce=", "nonce:"),
            format!("{good} "),
            "POLY1305-AES () nonce=00000000000000000000000000000000 = 00000000000000000000000000000000".into(),
            "\\POLY1305-AES (a\\q) nonce=00000000000000000000000000000000 = 00000000000000000000000000000000".into(),
        ] {
            assert!(parse(&bad).is_none(), "{bad:?}");
        }
    }
}
