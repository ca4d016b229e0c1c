//! The bytes of the store's files: the base `KEY.nonce` (v1, v2 or the
//! sealed v3) and the generation files `KEY.nonce.<gen>`, each
//! authenticated with HMAC-SHA-256 under the key's [`KeyBinding`].

use hmac::Mac;

use super::KeyBinding;

/// The base format of wegman before the generations: bound to its key, it
/// holds the safe nonce itself. `create` still writes it (safe nonce 0);
/// the first reservation moves the state into generation files.
pub(super) const MAGIC_V2: &str = "wegman-nonce-state v2";
/// The unbound format of earlier versions: read only by `adopt`.
pub(super) const MAGIC_V1: &str = "wegman-nonce-state v1";
/// The sealed base: the state lives in the generation files beside it.
pub(super) const MAGIC_SEALED: &str = "wegman-nonce-state v3";
/// A generation file.
pub(super) const MAGIC_GEN: &str = "wegman-nonce-generation v3";
/// The line of a sealed base after the key.
const SEALED_LINE: &str = "generations beside";
/// The most of a state file that is read (a genuine one is under 250 bytes).
pub(super) const MAX_STATE_BYTES: usize = 4096;

/// Lowercase hex of public bytes (nonces, key ids, HMACs).
pub(super) fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// A base file (`KEY.nonce`), parsed and authenticated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Base {
    /// v2: the state itself, generation 0, with this safe nonce.
    V2(u128),
    /// v3: the state is in the generation files.
    Sealed,
}

/// A generation file's contents, authenticated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct GenRecord {
    pub generation: u64,
    pub safe: u128,
    /// Random, fresh for every file written: which file this is.
    pub writer: [u8; 16],
}

/// Why bytes are refused, before or after the key is checked.
#[derive(Debug)]
pub(super) enum Refusal {
    Corrupt(&'static str),
    WrongKey([u8; 16]),
    Unbound,
}

fn mac_line(key: &KeyBinding, body: &str) -> String {
    let mut m = key.mac();
    m.update(body.as_bytes());
    format!("{body}mac {}\n", hex(&m.finalize().into_bytes()))
}

/// The v2 base of safe nonce `safe` (what earlier versions wrote; the
/// store only reads it now).
#[cfg(test)]
pub(super) fn encode_v2(key: &KeyBinding, safe: u128) -> String {
    mac_line(key, &format!("{MAGIC_V2}\nkey {}\nsafe {}\n", hex(&key.id), hex(&safe.to_le_bytes())))
}

/// The sealed base.
pub(super) fn encode_sealed(key: &KeyBinding) -> String {
    mac_line(key, &format!("{MAGIC_SEALED}\nkey {}\n{SEALED_LINE}\n", hex(&key.id)))
}

/// A generation file.
pub(super) fn encode_gen(key: &KeyBinding, r: &GenRecord) -> String {
    mac_line(
        key,
        &format!(
            "{MAGIC_GEN}\nkey {}\ngeneration {}\nsafe {}\nwriter {}\n",
            hex(&key.id),
            r.generation,
            hex(&r.safe.to_le_bytes()),
            hex(&r.writer)
        ),
    )
}

/// `n` bytes from exactly `2n` lowercase hex digits (base16ct's lowercase
/// decoder refuses upper case, odd lengths and any other byte).
fn strict_hex<const N: usize>(s: &str) -> Option<[u8; N]> {
    let mut b = [0u8; N];
    let len = base16ct::lower::decode(s, &mut b).ok()?.len();
    (len == N).then_some(b)
}

/// A generation number written as in file names: decimal, no sign, no
/// leading zero, at least 1.
pub(super) fn strict_gen(s: &str) -> Option<u64> {
    if s.is_empty() || s.len() > 20 || s.starts_with('0') || !s.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

fn field<'a>(line: &'a str, name: &str) -> Option<&'a str> {
    line.strip_prefix(name)?.strip_prefix(' ')?.strip_suffix('\n')
}

/// Split into lines, check the count and the key id, verify the HMAC over
/// all lines but the last (`mac …`). Returns the lines.
fn authenticated<'a>(key: &KeyBinding, text: &'a str, lines_wanted: usize) -> Result<Vec<&'a str>, Refusal> {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    if lines.len() < lines_wanted {
        return Err(Refusal::Corrupt("truncated"));
    }
    if lines.len() > lines_wanted {
        return Err(Refusal::Corrupt("trailing data"));
    }
    let id = field(lines[1], "key").and_then(strict_hex::<16>).ok_or(Refusal::Corrupt("bad key line"))?;
    let mac =
        field(lines[lines_wanted - 1], "mac").and_then(strict_hex::<32>).ok_or(Refusal::Corrupt("bad mac line"))?;
    if id != key.id {
        return Err(Refusal::WrongKey(id));
    }
    let mut m = key.mac();
    m.update(lines[..lines_wanted - 1].concat().as_bytes());
    // constant-time comparison (hmac's verify_slice uses subtle)
    m.verify_slice(&mac).map_err(|_| Refusal::Corrupt("its authentication code does not match: edited or damaged"))?;
    Ok(lines)
}

fn header(text: &str) -> Result<&str, Refusal> {
    match text.split_inclusive('\n').next() {
        None => Err(Refusal::Corrupt("empty")),
        Some(l) => l.strip_suffix('\n').ok_or(Refusal::Corrupt("truncated")),
    }
}

/// A base file of `key`.
pub(super) fn decode_base(key: &KeyBinding, text: &str) -> Result<Base, Refusal> {
    match header(text)? {
        MAGIC_V1 => Err(Refusal::Unbound),
        MAGIC_V2 => {
            let lines = authenticated(key, text, 4)?;
            let safe = field(lines[2], "safe").and_then(strict_hex::<16>).ok_or(Refusal::Corrupt("bad safe line"))?;
            Ok(Base::V2(u128::from_le_bytes(safe)))
        }
        MAGIC_SEALED => {
            let lines = authenticated(key, text, 4)?;
            if lines[2] != format!("{SEALED_LINE}\n") {
                return Err(Refusal::Corrupt("bad generations line"));
            }
            Ok(Base::Sealed)
        }
        MAGIC_GEN => Err(Refusal::Corrupt("a generation file, not the base state")),
        _ => Err(Refusal::Corrupt("bad header")),
    }
}

/// A generation file of `key`.
pub(super) fn decode_gen(key: &KeyBinding, text: &str) -> Result<GenRecord, Refusal> {
    if header(text)? != MAGIC_GEN {
        return Err(Refusal::Corrupt("bad header"));
    }
    let lines = authenticated(key, text, 6)?;
    let generation =
        field(lines[2], "generation").and_then(strict_gen).ok_or(Refusal::Corrupt("bad generation line"))?;
    let safe = field(lines[3], "safe").and_then(strict_hex::<16>).ok_or(Refusal::Corrupt("bad safe line"))?;
    let writer = field(lines[4], "writer").and_then(strict_hex::<16>).ok_or(Refusal::Corrupt("bad writer line"))?;
    Ok(GenRecord { generation, safe: u128::from_le_bytes(safe), writer })
}

/// The safe nonce of a version-1 file (CRC-checked, unbound).
pub(super) fn decode_v1(text: &str) -> Result<u128, &'static str> {
    let mut lines = text.split_inclusive('\n');
    let l1 = lines.next().ok_or("empty")?;
    let l2 = lines.next().ok_or("truncated")?;
    let l3 = lines.next().ok_or("truncated")?;
    if lines.next().is_some() {
        return Err("trailing data");
    }
    if l1 != format!("{MAGIC_V1}\n") {
        return Err("bad header");
    }
    let safe = field(l2, "safe").and_then(strict_hex::<16>).ok_or("bad safe line")?;
    let crc = field(l3, "crc32").ok_or("bad checksum line")?;
    if crc != format!("{:08x}", crc32(format!("{l1}{l2}").as_bytes())) {
        return Err("checksum mismatch");
    }
    Ok(u128::from_le_bytes(safe))
}

/// CRC-32 (IEEE 802.3, reflected, polynomial 0xEDB88320) of `data`; only
/// detects accidental damage to a version-1 state file.
fn crc32(data: &[u8]) -> u32 {
    let mut c = !0u32;
    for &b in data {
        c ^= u32::from(b);
        for _ in 0..8 {
            c = (c >> 1) ^ (0xEDB8_8320 & (c & 1).wrapping_neg());
        }
    }
    !c
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crc32_check_value() {
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
    }

    #[test]
    fn round_trips_and_refusals() {
        let key = KeyBinding::derive("poly1305aes", &[5; 32]);
        for v in [0u128, 1, 255, 256, 1 << 64, u128::MAX - 1] {
            assert_eq!(decode_base(&key, &encode_v2(&key, v)).ok(), Some(Base::V2(v)));
            let r = GenRecord { generation: 7, safe: v, writer: [9; 16] };
            assert_eq!(decode_gen(&key, &encode_gen(&key, &r)).ok(), Some(r));
        }
        assert_eq!(decode_base(&key, &encode_sealed(&key)).ok(), Some(Base::Sealed));
        let good = encode_v2(&key, 77);
        assert!(decode_base(&key, &good[..good.len() - 1]).is_err());
        assert!(decode_base(&key, &good.replace("safe 4d", "safe 4e")).is_err());
        assert!(decode_base(&key, "").is_err());
        assert!(decode_base(&key, &format!("{good}x")).is_err());
        let g = encode_gen(&key, &GenRecord { generation: 7, safe: 1, writer: [0; 16] });
        assert!(decode_gen(&key, &g.replace("generation 7", "generation 8")).is_err());
        assert!(decode_base(&key, &g).is_err(), "a generation file is not a base");
        let other = KeyBinding::derive("poly1305aes", &[6; 32]);
        assert!(matches!(decode_base(&other, &good), Err(Refusal::WrongKey(_))));
        assert!(matches!(decode_gen(&other, &g), Err(Refusal::WrongKey(_))));
        for bad in ["", "0", "01", "-1", "+1", "1a", "99999999999999999999999"] {
            assert_eq!(strict_gen(bad), None, "{bad}");
        }
        assert_eq!(strict_gen("10"), Some(10));
    }

    #[test]
    fn generation_numbers_run_to_the_largest_u64() {
        // 20 digits: the longest a u64 has
        assert_eq!(strict_gen("18446744073709551615"), Some(u64::MAX));
        assert_eq!(strict_gen("10000000000000000000"), Some(10_000_000_000_000_000_000));
        assert_eq!(strict_gen("18446744073709551616"), None);
    }

    #[test]
    fn a_generation_file_read_as_the_base_is_named_as_such() {
        let key = KeyBinding::derive("poly1305aes", &[5; 32]);
        let g = encode_gen(&key, &GenRecord { generation: 7, safe: 1, writer: [0; 16] });
        assert!(matches!(decode_base(&key, &g), Err(Refusal::Corrupt("a generation file, not the base state"))));
        assert!(matches!(decode_base(&key, "wegman-nonce-state v9\n"), Err(Refusal::Corrupt("bad header"))));
    }
}
