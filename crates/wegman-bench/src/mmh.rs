//! The MMH family: every wegman MMH/NMH MAC against the Poly1305-AES peers.
//!
//! There is no MMH in OpenSSL, libsodium or RustCrypto, so the yardstick is
//! what a user would otherwise reach for: Poly1305-AES from those libraries,
//! built exactly as in the `poly1305aes` tables (same calls, same checks).
//! A table therefore holds seven of ours (one per algorithm of the spec's
//! table, each with its own tag length: 4 to 16 bytes) and three peers.
//!
//! * one-shot — `mmh::mac(alg, &key, &n, m)`: both AES schedules and the
//!   level keys this length needs are made inside every call;
//! * precomputed — `MacKey::new(alg, &key)` once per key (every level key
//!   expanded and cached: [`Alg::expanded_key_bytes`] per key, printed in the
//!   notes), then `MacKey::mac(&n, m)`; the peers keep one AES context per key.
//!
//! The difference between the two tables is the price of MMH's large keys
//! that the Poly1305-AES paper argues about; the cold regimes, with 1000
//! expanded keys cycled, show what they cost in cache.
//!
//! No verify table: `mmh::verify` is `mac` plus a constant-time compare of
//! at most 16 bytes, and the tags differ in length between contenders.

use wegman::mmh::{self, Alg, KEY_BYTES, MacKey, NONCE_BYTES};

use crate::contender::{Check, Contender, Expect, Family, Input, Label, Table};
use crate::peers::openssl::Libcrypto;
use crate::peers::sodium::Sodium;
use crate::poly1305aes::{self, Poly1305AesFamily};
use crate::vectors;
use crate::workload::{Rng, SLOTS};

const NAME: &str = "mmh";

/// MMH keys `kp || ks` and nonces, slot by slot.
struct Keys {
    key: Vec<[u8; KEY_BYTES]>,
    nonce: Vec<[u8; NONCE_BYTES]>,
}

impl Keys {
    fn random(n: usize, seed: u64) -> Keys {
        let mut rng = Rng::new(seed);
        Keys { key: (0..n).map(|_| rng.bytes()).collect(), nonce: (0..n).map(|_| rng.bytes()).collect() }
    }
}

/// The calls, spelled out, per algorithm: [one-shot, precomputed].
fn call_text(alg: Alg) -> [&'static str; 2] {
    macro_rules! calls {
        ($($a:ident),* $(,)?) => {
            match alg {
                $(Alg::$a => [
                    concat!("wegman::mmh::mac(Alg::", stringify!($a), ", &key, &n, m) (AES schedules and level keys made in the call)"),
                    concat!("wegman::mmh::MacKey::mac(&n, m) (MacKey::new(Alg::", stringify!($a), ", &key) once per key)"),
                ],)*
            }
        };
    }
    calls!(Mmh32, Mmh32x2, Mmh32x3, Mmh32x4, Nmh32, Mmh64, Mmh64x2)
}

/// `"ALG[BACKEND]"`: the algorithm and `platform`, the backend a key of it
/// reports (the backend that runs, one-shot or precomputed). Made once per
/// row and kept for the run (rows are labelled with `&'static str`).
fn labelled(alg: Alg, platform: wegman::platform::Platform) -> &'static str {
    Box::leak(format!("{}[{}]", alg.name(), platform.name()).into_boxed_str())
}

/// `mmh::mac(alg, key, n, m)`.
struct OneShot {
    alg: Alg,
    /// The row's label, from a key made the way `mmh::mac` makes its own.
    name: &'static str,
    key: Vec<[u8; KEY_BYTES]>,
    nonce: Vec<[u8; NONCE_BYTES]>,
    out: [u8; 16],
}

impl Contender for OneShot {
    fn label(&self) -> Label {
        Label { name: self.name, ours: true, call: call_text(self.alg)[0] }
    }

    #[inline]
    fn call(&mut self, input: &Input<'_>) -> u8 {
        let tag = mmh::mac(self.alg, &self.key[input.slot], &self.nonce[input.slot], input.msg)
            .expect("benchmark messages are far below the length limit");
        self.out[..tag.len()].copy_from_slice(tag.as_bytes());
        self.out[0]
    }

    fn output(&self) -> Vec<u8> {
        self.out[..self.alg.tag_bytes()].to_vec()
    }
}

/// `MacKey::mac(n, m)` on keys expanded in set-up.
struct Expanded {
    keys: Vec<MacKey>,
    nonce: Vec<[u8; NONCE_BYTES]>,
    out: [u8; 16],
}

impl Expanded {
    fn new(alg: Alg, keys: &Keys) -> Expanded {
        Expanded {
            keys: keys.key.iter().map(|k| MacKey::new(alg, k)).collect(),
            nonce: keys.nonce.clone(),
            out: [0; 16],
        }
    }

    fn alg(&self) -> Alg {
        self.keys[0].alg()
    }
}

impl Contender for Expanded {
    fn label(&self) -> Label {
        Label { name: labelled(self.alg(), self.keys[0].platform()), ours: true, call: call_text(self.alg())[1] }
    }

    #[inline]
    fn call(&mut self, input: &Input<'_>) -> u8 {
        let tag = self.keys[input.slot]
            .mac(&self.nonce[input.slot], input.msg)
            .expect("benchmark messages are far below the length limit");
        self.out[..tag.len()].copy_from_slice(tag.as_bytes());
        self.out[0]
    }

    fn output(&self) -> Vec<u8> {
        self.out[..self.alg().tag_bytes()].to_vec()
    }
}

fn ours(alg: Alg, keys: &Keys, precomputed: bool) -> Box<dyn Contender> {
    if precomputed {
        Box::new(Expanded::new(alg, keys))
    } else {
        Box::new(OneShot {
            alg,
            name: labelled(alg, MacKey::new(alg, &[0; KEY_BYTES]).platform()),
            key: keys.key.clone(),
            nonce: keys.nonce.clone(),
            out: [0; 16],
        })
    }
}

/// The MMH family.
pub struct MmhFamily {
    keys: Keys,
    peer_keys: poly1305aes::Keys,
    lib: Libcrypto,
    sodium: Sodium,
}

impl MmhFamily {
    /// [`SLOTS`] random MMH keys and nonces, and as many Poly1305-AES ones for the peers.
    pub fn new(lib: Libcrypto, sodium: Sodium) -> Self {
        MmhFamily {
            keys: Keys::random(SLOTS, 0x4d4d_4833_3258_3458),
            peer_keys: poly1305aes::Keys::random(SLOTS, 0x4d4d_4850_4545_5253),
            lib,
            sodium,
        }
    }

    fn table(&self, precomputed: bool) -> Table {
        let mut contenders: Vec<Box<dyn Contender>> =
            Alg::ALL.iter().map(|&alg| ours(alg, &self.keys, precomputed)).collect();
        contenders.extend(poly1305aes::peers::<false>(&self.peer_keys, precomputed, self.lib, self.sodium));
        let (id, title) = if precomputed {
            (
                "mac-precomputed",
                "MAC with the key expanded once per key (wegman MacKey: every level key cached); \
                 peers: Poly1305-AES with one AES context per key",
            )
        } else {
            (
                "mac",
                "MAC, one-shot: key expansion inside every call (wegman mmh::mac); \
                 peers: Poly1305-AES authenticate, AES key set-up in the call",
            )
        };
        Table { family: NAME, id, title, expect: Expect::Any, contenders }
    }
}

/// Every `mac` vector of `alg` through `c` (slot i = vector i), aligned and
/// at an odd address. Returns the number of calls.
fn check_vectors(c: &mut dyn Contender, vecs: &[(Vec<u8>, Vec<u8>)]) -> Result<usize, String> {
    let mut calls = 0;
    for (slot, (msg, tag)) in vecs.iter().enumerate() {
        let shifted = [&[0x5a][..], msg].concat();
        for m in [&msg[..], &shifted[1..]] {
            c.call(&Input { slot, msg: m, tag: [0; 16] });
            if c.output() != *tag {
                return Err(format!(
                    "{NAME} {}: vector #{slot} ({} bytes): tag {} but expected {}",
                    c.label().name,
                    msg.len(),
                    hex::encode(c.output()),
                    hex::encode(tag)
                ));
            }
            calls += 1;
        }
    }
    Ok(calls)
}

impl Family for MmhFamily {
    fn name(&self) -> &'static str {
        NAME
    }

    fn check_contenders(&self) -> Result<Vec<Check>, String> {
        let mut out = Vec::new();

        // 1. Every MAC vector of the shared file, through both of our calls.
        let all = vectors::group("mmh.json", "mac")?;
        let mut total = (0, 0);
        for alg in Alg::ALL {
            let mut keys = Keys { key: Vec::new(), nonce: Vec::new() };
            let mut vecs = Vec::new();
            for v in all.iter().filter(|v| v["alg"] == alg.name()) {
                keys.key.push(vectors::array(v, "key")?);
                keys.nonce.push(vectors::array(v, "nonce")?);
                vecs.push((vectors::bytes(v, "m")?, vectors::bytes(v, "tag")?));
            }
            if vecs.is_empty() {
                return Err(format!("mmh.json has no mac vectors for {}", alg.name()));
            }
            for precomputed in [false, true] {
                total.1 += check_vectors(ours(alg, &keys, precomputed).as_mut(), &vecs)?;
            }
            total.0 += vecs.len();
        }
        out.push(Check {
            name: "MMH contenders on the shared vectors".into(),
            detail: format!(
                "all {} mac vectors of mmh.json (7 algorithms), aligned and +1, through mmh::mac and MacKey::mac: \
                 every tag as expected ({} calls)",
                total.0, total.1
            ),
        });

        // 2. The timed keys: one-shot and precomputed agree at many lengths.
        let mut rng = Rng::new(0x3d3d);
        let mut buf = vec![0u8; 70_000];
        rng.fill(&mut buf);
        let mut calls = 0;
        for alg in Alg::ALL {
            let (mut a, mut b) = (ours(alg, &self.keys, false), ours(alg, &self.keys, true));
            for (i, len) in [0, 1, 127, 128, 129, 255, 256, 257, 4095, 4096, 4097, 65537].into_iter().enumerate() {
                let input = Input { slot: (i * 97) % SLOTS, msg: &buf[i % 3..][..len], tag: [0; 16] };
                a.call(&input);
                b.call(&input);
                if a.output() != b.output() {
                    return Err(format!("{NAME} {}: mmh::mac and MacKey::mac differ at {len} bytes", alg.name()));
                }
                calls += 2;
            }
        }
        out.push(Check {
            name: "MMH one-shot and precomputed agree on the timed keys".into(),
            detail: format!("7 algorithms x 12 lengths around block and level boundaries ({calls} calls)"),
        });

        // 3. The peers: the same constructors as the poly1305aes tables, checked the same way.
        for c in Poly1305AesFamily::new(self.lib, self.sodium).check_contenders()? {
            out.push(Check { name: format!("MMH yardstick: {}", c.name), detail: c.detail });
        }
        Ok(out)
    }

    fn tables(&self) -> Result<Vec<Table>, String> {
        Ok(vec![self.table(false), self.table(true)])
    }

    fn notes(&self) -> Vec<String> {
        let sizes: Vec<String> = Alg::ALL
            .iter()
            .map(|a| {
                format!("{} {} B ({:.1} MiB for {SLOTS} keys)", a.name(), a.expanded_key_bytes(), {
                    (a.expanded_key_bytes() * SLOTS) as f64 / (1 << 20) as f64
                })
            })
            .collect();
        vec![
            "MMH: 32-byte key kp||ks, 16-byte nonce, tags of 4 (mmh32, nmh32), 8 (mmh32x2, mmh64), 12 (mmh32x3) or \
             16 bytes (mmh32x4, mmh64x2); the peers are Poly1305-AES (16-byte tag), as in the poly1305aes tables."
                .into(),
            format!(
                "MMH expanded key (MacKey, all 16 tree levels, the cost of MMH's long keys): {}; \
                 Poly1305-AES needs 32 bytes plus an AES schedule.",
                sizes.join(", ")
            ),
        ]
    }
}
