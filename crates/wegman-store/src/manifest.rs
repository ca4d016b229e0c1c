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
//! Names are exact but unambiguous, in the style of coreutils' escaped
//! lines: a newline, carriage return or backslash is written `\n`, `\r`,
//! `\\`; every other control character (C0, DEL, C1) and every
//! [`invisible`] character (bidirectional controls such as U+202E, other
//! format characters such as U+200B, the line and paragraph separators) is
//! written `\u{X}`, X its code point in lowercase hex without leading zeros
//! (`\u{1b}`, `\u{202e}`); the whole line then starts with `\`. That
//! spelling is the only one [`parse`] accepts (no other escape, no raw
//! character that should have been escaped, no `\` before a line with
//! nothing escaped), so each name has exactly one line. Tags cover the name
//! before escaping ([`file_message_prefix`]).

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

/// Characters that draw nothing, or change how the rest of a line is
/// drawn: shown raw, they let a name look like another one, or reorder a
/// terminal line ("Trojan Source"). The ranges are Unicode's Bidi_Control
/// property (PropList.txt; U+061C, U+200E, U+200F, U+202A–U+202E,
/// U+2066–U+2069) and its general category Cf (format characters,
/// DerivedGeneralCategory.txt, Unicode 15.1), plus U+2028 LINE SEPARATOR
/// and U+2029 PARAGRAPH SEPARATOR (categories Zl and Zp), which end a line
/// for some viewers. Every Bidi_Control character is also Cf.
pub fn invisible(c: char) -> bool {
    matches!(
        c as u32,
        0x00ad
            | 0x0600..=0x0605
            | 0x061c
            | 0x06dd
            | 0x070f
            | 0x0890..=0x0891
            | 0x08e2
            | 0x180e
            | 0x200b..=0x200f
            | 0x2028..=0x202e
            | 0x2060..=0x2064
            | 0x2066..=0x206f
            | 0xfeff
            | 0xfff9..=0xfffb
            | 0x110bd
            | 0x110cd
            | 0x13430..=0x1343f
            | 0x1bca0..=0x1bca3
            | 0x1d173..=0x1d17a
            | 0xe0001
            | 0xe0020..=0xe007f
    )
}

/// Control characters other than `\n` and `\r`: C0, DEL, C1.
fn control(c: char) -> bool {
    let c = c as u32;
    (c < 0x20 && c != 0x0a && c != 0x0d) || (0x7f..0xa0).contains(&c)
}

/// Whether a manifest writes `c` as `\u{X}`.
fn escaped_as_code(c: char) -> bool {
    control(c) || invisible(c)
}

/// `\u{X}`: the one spelling of an escaped code point.
fn code_escape(out: &mut String, c: char) {
    use std::fmt::Write;
    let _ = write!(out, "\\u{{{:x}}}", c as u32);
}

/// Escape a file name for a manifest line; returns (escaped, whether
/// anything was escaped).
pub fn escape(name: &str) -> (String, bool) {
    let mut out = String::with_capacity(name.len());
    let mut any = false;
    for c in name.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c if escaped_as_code(c) => code_escape(&mut out, c),
            c => {
                out.push(c);
                continue;
            }
        }
        any = true;
    }
    (out, any)
}

/// The name an escaped manifest name stands for, if it is spelled exactly
/// as [`escape`] spells it; `None` for any other spelling.
fn unescape(s: &str) -> Option<String> {
    let mut out = String::with_capacity(s.len());
    let mut it = s.chars();
    while let Some(c) = it.next() {
        if c == '\\' {
            match it.next()? {
                '\\' => out.push('\\'),
                'n' => out.push('\n'),
                'r' => out.push('\r'),
                'u' => {
                    if it.next()? != '{' {
                        return None;
                    }
                    let mut digits = String::new();
                    loop {
                        match it.next()? {
                            '}' => break,
                            d if digits.len() < 6 => digits.push(d),
                            _ => return None,
                        }
                    }
                    let c = char::from_u32(u32::from_str_radix(&digits, 16).ok()?)?;
                    // lowercase, no leading zero, and a character that is
                    // written this way (not `\u{41}` for `A`)
                    if !escaped_as_code(c) || digits != format!("{:x}", c as u32) {
                        return None;
                    }
                    out.push(c);
                }
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
/// `\xHH` (`\u{HH}` for C1), and every [`invisible`] character (a
/// bidirectional override could reverse the rest of the line) as
/// `\u{X}`, the line again starting with `\`, as coreutils marks an
/// escaped name.
pub fn status_name(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut any = false;
    for c in name.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c if (c as u32) < 0x20 || c as u32 == 0x7f => out.push_str(&format!("\\x{:02x}", c as u32)),
            c if control(c) || invisible(c) => code_escape(&mut out, c),
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
    let raw = name;
    let name = if escaped { unescape(raw)? } else { raw.to_string() };
    // The one spelling: no raw character that should have been escaped,
    // and a leading `\` exactly when something is.
    if name.is_empty() || escape(&name) != (raw.to_string(), escaped) {
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

    /// One name of each escaped class, its one spelling, and a round trip.
    const ESCAPED: [(&str, &str); 14] = [
        ("tab\tx", "tab\\u{9}x"),
        ("nul\0x", "nul\\u{0}x"),
        ("esc\u{1b}[2K", "esc\\u{1b}[2K"),
        ("del\u{7f}", "del\\u{7f}"),
        ("c1\u{9b}x", "c1\\u{9b}x"),
        ("rlo\u{202e}txt.exe", "rlo\\u{202e}txt.exe"),
        ("lri\u{2066}x\u{2069}", "lri\\u{2066}x\\u{2069}"),
        ("zwsp\u{200b}", "zwsp\\u{200b}"),
        ("ls\u{2028}ps\u{2029}", "ls\\u{2028}ps\\u{2029}"),
        ("alm\u{61c}shy\u{ad}bom\u{feff}", "alm\\u{61c}shy\\u{ad}bom\\u{feff}"),
        ("tag\u{e0041}\u{e0001}", "tag\\u{e0041}\\u{e0001}"),
        ("egy\u{1343f}sh\u{1bca3}mus\u{1d17a}", "egy\\u{1343f}sh\\u{1bca3}mus\\u{1d17a}"),
        ("all\\\n\r", "all\\\\\\n\\r"),
        ("mix \u{1b}é\u{202e}", "mix \\u{1b}é\\u{202e}"),
    ];

    #[test]
    fn every_escaped_class_has_one_spelling_and_round_trips() {
        for (name, spelled) in ESCAPED {
            assert_eq!(escape(name), (spelled.to_string(), true), "{name:?}");
            for alg in MacAlg::ALL {
                let tag = vec![7u8; alg.tag_bytes()];
                let line = format(alg, name, &[5; 16], &tag);
                assert!(line.starts_with('\\') && line.contains(&format!("({spelled})")), "{line}");
                assert!(line.chars().all(|c| !escaped_as_code(c) && c != '\n' && c != '\r'), "{line:?}");
                let Some(Entry::File(p)) = parse(&line) else { panic!("{line}") };
                assert_eq!((p.name.as_str(), p.nonce, p.tag), (name, [5; 16], tag));
            }
        }
        // the ends of each range, and their neighbours, which stay raw
        for (inside, outside) in [
            ('\u{1f}', ' '),
            ('\u{9f}', '\u{a0}'),
            ('\u{605}', '\u{606}'),
            ('\u{200b}', '\u{200a}'),
            ('\u{202e}', '\u{202f}'),
            ('\u{2064}', '\u{2065}'),
            ('\u{206f}', '\u{2070}'),
            ('\u{fffb}', '\u{fffc}'),
            ('\u{e007f}', '\u{e0080}'),
        ] {
            assert!(escaped_as_code(inside) && !escaped_as_code(outside), "{inside:?} {outside:?}");
        }
        // other visible characters are not touched
        assert_eq!(escape("ünï 日本 ✓"), ("ünï 日本 ✓".to_string(), false));
    }

    #[test]
    fn other_spellings_are_refused() {
        let good = format(MacAlg::Poly1305aes, "a\u{1b}b", &[0; 16], &[0; 16]);
        assert!(parse(&good).is_some(), "{good}");
        for spelled in [
            "a\\u{1B}b",      // upper case
            "a\\u{01b}b",     // leading zero
            "a\\u{00001b}b",  // leading zeros
            "a\\u{+1b}b",     // a sign
            "a\\u{}b",        // no digits
            "a\\u{1b",        // no closing brace (then the tail is the name)
            "a\\u1bb",        // no braces
            "a\\x1bb",        // the terminal's spelling is not the manifest's
            "a\\u{41}b",      // a character that is never escaped
            "a\\u{a}b",       // a newline is `\n`
            "a\\u{5c}b",      // a backslash is `\\`
            "a\\u{d800}b",    // not a character
            "a\\u{1100000}b", // too many digits
            "a\u{1b}b",       // the raw character, on an escaped line
        ] {
            let line = good.replace("a\\u{1b}b", spelled);
            assert!(parse(&line).is_none(), "{line:?}");
        }
        // raw on a line without the leading backslash, and a backslash
        // before a line with nothing escaped
        for name in ["a\u{1b}b", "rlo\u{202e}", "zw\u{200b}", "tab\t"] {
            let line = format(MacAlg::Poly1305aes, "x", &[0; 16], &[0; 16]).replacen("(x)", &format!("({name})"), 1);
            assert!(parse(&line).is_none(), "{line:?}");
            let v1 = line.replacen("AES/2", "AES", 1);
            assert!(parse(&v1).is_none(), "{v1:?}");
        }
        let plain = format(MacAlg::Poly1305aes, "plain", &[0; 16], &[0; 16]);
        assert!(parse(&plain).is_some() && parse(&format!("\\{plain}")).is_none());
    }

    #[test]
    fn status_names_show_every_invisible_character() {
        assert_eq!(status_name("plain ünï"), "plain ünï");
        assert_eq!(status_name("a\u{1b}[2K\u{7f}\u{9b}"), "\\a\\x1b[2K\\x7f\\u{9b}");
        assert_eq!(
            status_name("x\u{202e}y\u{2066}z\u{200b}w\u{2028}v\u{feff}"),
            "\\x\\u{202e}y\\u{2066}z\\u{200b}w\\u{2028}v\\u{feff}"
        );
        assert_eq!(status_name("t\u{e0020}"), "\\t\\u{e0020}");
        for (name, _) in ESCAPED {
            assert!(status_name(name).chars().all(|c| !escaped_as_code(c) && c != '\n' && c != '\r'), "{name:?}");
        }
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
