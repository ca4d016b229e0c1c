//! Manifest lines, in the BSD-tagged style of coreutils' `--tag` output.
//! `wegman tag` writes version 2: each file line's tag authenticates the
//! file's name with its content, and a final seal line authenticates every
//! line before it (so dropped, added or reordered lines are detected):
//!
//! ```text
//! POLY1305-AES/2 (name) nonce=<32 hex> = <32 hex>
//! MMH32/2 (name) nonce=<32 hex> = <8 hex>
//! POLY1305-AES/2 MANIFEST lines=<count> nonce=<32 hex> = <32 hex>
//! ```
//!
//! What each tag covers ([`file_message_prefix`], [`Seal`]):
//! - a file line: `0x01 || u64le(len(name)) || name || content`, the name
//!   as UTF-8 bytes before escaping;
//! - the seal: `0x02 || line_1 || … || line_n || u64le(n)`, each line the
//!   exact bytes of the manifest with its `\n`.
//!
//! Version-1 lines (`POLY1305-AES (name) …`, no `/2`), written by earlier
//! versions, authenticate the content only; `check` still reads them, with
//! a warning. The label names the algorithm; the tag has that algorithm's
//! length.
//!
//! A name containing a newline, carriage return or backslash is escaped as
//! coreutils does (`\n`, `\r`, `\\`) and the whole line then starts with `\`.

use crate::algs::{AnyMac, MacAlg};

/// One parsed file line.
pub struct Line {
    /// The algorithm its label names.
    pub alg: MacAlg,
    /// 1: the tag covers the content only; 2: name and content.
    pub version: u8,
    /// The file's name, unescaped.
    pub name: String,
    /// The nonce of its tag.
    pub nonce: [u8; 16],
    /// The tag.
    pub tag: Vec<u8>,
}

/// A parsed seal line: the tag of every line before it.
pub struct Seal {
    /// The algorithm its label names.
    pub alg: MacAlg,
    /// How many lines it covers.
    pub lines: u64,
    /// The nonce of its tag.
    pub nonce: [u8; 16],
    /// The tag.
    pub tag: Vec<u8>,
}

/// A manifest line of either kind.
pub enum Entry {
    /// A file's line.
    File(Line),
    /// The seal line.
    Seal(Seal),
}

/// What a version-2 file line's tag covers before the content.
pub fn file_message_prefix(name: &str) -> Vec<u8> {
    let mut m = Vec::with_capacity(9 + name.len());
    m.push(1);
    m.extend_from_slice(&(name.len() as u64).to_le_bytes());
    m.extend_from_slice(name.as_bytes());
    m
}

/// The seal's MAC over the manifest lines, fed as they are written or read.
pub struct Sealer<'k> {
    mac: AnyMac<'k>,
    lines: u64,
}

impl<'k> Sealer<'k> {
    /// Start the seal's MAC (a computation started with the seal's nonce).
    pub fn new(mut mac: AnyMac<'k>) -> Result<Self, wegman::Error> {
        mac.update(&[2])?;
        Ok(Sealer { mac, lines: 0 })
    }

    /// One line, without its newline.
    pub fn line(&mut self, line: &[u8]) -> Result<(), wegman::Error> {
        self.mac.update(line)?;
        self.mac.update(b"\n")?;
        self.lines += 1;
        Ok(())
    }

    /// The lines fed so far.
    pub fn lines(&self) -> u64 {
        self.lines
    }

    /// The finished computation, for `finalize` or `verify`.
    pub fn finish(mut self) -> Result<AnyMac<'k>, wegman::Error> {
        self.mac.update(&self.lines.to_le_bytes())?;
        Ok(self.mac)
    }
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

/// Format one version-2 file line (without the trailing newline).
pub fn format(alg: MacAlg, name: &str, nonce: &[u8; 16], tag: &[u8]) -> String {
    let (esc, escaped) = escape(name);
    format!(
        "{}{}/2 ({esc}) nonce={} = {}",
        if escaped { "\\" } else { "" },
        alg.label(),
        crate::hex::encode(nonce),
        crate::hex::encode(tag)
    )
}

/// Format the seal line (without the trailing newline).
pub fn format_seal(alg: MacAlg, lines: u64, nonce: &[u8; 16], tag: &[u8]) -> String {
    format!(
        "{}/2 MANIFEST lines={lines} nonce={} = {}",
        alg.label(),
        crate::hex::encode(nonce),
        crate::hex::encode(tag)
    )
}

/// Prefix for a status line about `name`, escaped the same way.
///
/// For a terminal, every other control character (C0, DEL and C1: escape
/// sequences could move the cursor and hide a `FAILED`) is written as
/// `\xHH` (`\u{HH}` for C1), the line again starting with `\`, as
/// coreutils marks an escaped name.
pub fn status_name(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut any = false;
    for c in name.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c if (c as u32) < 0x20 || c as u32 == 0x7f => out.push_str(&format!("\\x{:02x}", c as u32)),
            c if (0x80..0xa0).contains(&(c as u32)) => out.push_str(&format!("\\u{{{:02x}}}", c as u32)),
            c => {
                out.push(c);
                continue;
            }
        }
        any = true;
    }
    if any { format!("\\{out}") } else { out }
}

/// Parse a line; `None` if it is not properly formatted.
pub fn parse(line: &str) -> Option<Entry> {
    parse_seal(line).map(Entry::Seal).or_else(|| parse_file(line).map(Entry::File))
}

/// `nonce=<32 hex> = <tag hex>` at the end of a line: the fixed-shape tail.
fn parse_tail(alg: MacAlg, tail: &str) -> Option<([u8; 16], Vec<u8>)> {
    let tail = tail.strip_prefix("nonce=")?;
    // `get` rather than `split_at`: a tail with multi-byte characters in it
    // is malformed, not a reason to panic.
    let (nonce_hex, tail) = (tail.get(..32)?, tail.get(32..)?);
    let tag_hex = tail.strip_prefix(" = ")?;
    if tag_hex.len() != 2 * alg.tag_bytes() {
        return None;
    }
    Some((strict_hex(nonce_hex)?.try_into().ok()?, strict_hex(tag_hex)?))
}

/// `LABEL/2 MANIFEST lines=N nonce=… = …`
fn parse_seal(line: &str) -> Option<Seal> {
    let (label, rest) = line.split_once("/2 MANIFEST lines=")?;
    let alg = MacAlg::from_label(label)?;
    let (count, tail) = rest.split_once(' ')?;
    if count.is_empty() || !count.bytes().all(|c| c.is_ascii_digit()) || (count.len() > 1 && count.starts_with('0')) {
        return None;
    }
    let lines = count.parse().ok()?;
    let (nonce, tag) = parse_tail(alg, tail)?;
    Some(Seal { alg, lines, nonce, tag })
}

/// `LABEL/2 (name) nonce=… = …`, or version 1 without the `/2`.
fn parse_file(line: &str) -> Option<Line> {
    let (escaped, rest) = match line.strip_prefix('\\') {
        Some(r) => (true, r),
        None => (false, line),
    };
    let (label, rest) = rest.split_once(" (")?;
    let (label, version) = match label.strip_suffix("/2") {
        Some(l) => (l, 2),
        None => (label, 1),
    };
    let alg = MacAlg::from_label(label)?;
    // The tail has a fixed shape, so names may contain ") nonce=" themselves.
    let tail_len = ") nonce=".len() + 32 + " = ".len() + 2 * alg.tag_bytes();
    if rest.len() < tail_len || !rest.is_char_boundary(rest.len() - tail_len) {
        return None;
    }
    let (name, tail) = rest.split_at(rest.len() - tail_len);
    let (nonce, tag) = parse_tail(alg, tail.strip_prefix(") ")?)?;
    let name = if escaped { unescape(name)? } else { name.to_string() };
    if name.is_empty() {
        return None;
    }
    Some(Line { alg, version, name, nonce, tag })
}

fn strict_hex(s: &str) -> Option<Vec<u8>> {
    if !s.bytes().all(|c| c.is_ascii_digit() || (b'a'..=b'f').contains(&c)) {
        return None;
    }
    crate::hex::decode_vec("", s).ok()
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
                let Some(Entry::File(p)) = parse(&line) else { panic!("{line}") };
                assert_eq!((p.alg, p.version, p.name.as_str(), p.nonce, p.tag), (alg, 2, name, [1; 16], tag));
            }
        }
        assert!(
            format(MacAlg::Poly1305aes, "new\nline", &[0; 16], &[0; 16]).starts_with("\\POLY1305-AES/2 (new\\nline) ")
        );
    }

    #[test]
    fn version_1_lines_and_seals_parse() {
        let v1 = "POLY1305-AES (a b) nonce=01000000000000000000000000000000 = 0202020202020202020202020202020f";
        let Some(Entry::File(l)) = parse(v1) else { panic!() };
        assert_eq!((l.version, l.name.as_str()), (1, "a b"));
        for alg in MacAlg::ALL {
            let line = format_seal(alg, 12, &[3; 16], &vec![4; alg.tag_bytes()]);
            let Some(Entry::Seal(s)) = parse(&line) else { panic!("{line}") };
            assert_eq!((s.alg, s.lines, s.nonce, s.tag), (alg, 12, [3; 16], vec![4; alg.tag_bytes()]));
        }
        let seal = format_seal(MacAlg::Poly1305aes, 3, &[0; 16], &[0; 16]);
        for bad in [seal.replace("lines=3", "lines=03"), seal.replace("lines=3", "lines="), seal.replace("/2 M", " M")]
        {
            assert!(!matches!(parse(&bad), Some(Entry::Seal(_))), "{bad}");
        }
    }

    #[test]
    fn file_messages_bind_the_name_unambiguously() {
        // name || content split differently gives a different message
        let a = [file_message_prefix("ab"), b"c".to_vec()].concat();
        let b = [file_message_prefix("a"), b"bc".to_vec()].concat();
        assert_ne!(a, b);
        assert_eq!(file_message_prefix("é"), [&[1u8, 2, 0, 0, 0, 0, 0, 0, 0][..], "é".as_bytes()].concat());
    }

    #[test]
    fn malformed_lines() {
        let good = format(MacAlg::Poly1305aes, "f", &[0xab; 16], &[0xcd; 16]);
        assert!(parse(&good).is_some());
        let good = good.replace("AES/2", "AES"); // the same cases in version 1
        assert!(parse(&good).is_some());
        for bad in [
            String::new(),
            good.replace("POLY1305-AES", "SHA256"),
            good.replace("POLY1305-AES", "MMH32"), // wrong tag length for the label
            good.replace("POLY1305-AES", "POLY1305-AES/3"),
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
