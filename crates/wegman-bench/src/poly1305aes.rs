//! Poly1305-AES: wegman against OpenSSL 3, libsodium and RustCrypto.
//!
//! Every contender computes the whole of Bernstein's function,
//! `Poly1305_r(m, AES_k(n))`, from the same secret (k, r) and nonce n:
//!
//! * one-shot — the AES key expansion is inside the call, as in
//!   `verify(a,kr,n,m,mlen)`: wegman's `authenticate`/`verify`; each peer
//!   sets up the AES key, computes s = AES_k(n), builds its 32-byte `r || s`
//!   and runs its Poly1305;
//! * precomputed — the AES schedule is made once per key (wegman's
//!   `ExpandedKey`; one EVP context or one `Aes128Enc` per key for the
//!   peers), everything else per call.
//!
//! The peers take `r || s` (RFC 8439's layout) and clamp r themselves;
//! wegman takes `k || r` and checks r when the key is imported. Those key
//! imports and the split of `k || r` into k and r happen in set-up, as a
//! real application does them once per key.

use aes::Aes128Enc;
use cipher::{BlockCipherEncrypt, KeyInit};
use poly1305::Poly1305;
use subtle::ConstantTimeEq;
use wegman::cpu::Features;
use wegman::poly1305aes::{self, ExpandedKey, Key, Poly1305Aes};

use crate::contender::wegman_name;

use crate::contender::{Check, Contender, Expect, Family, Input, Label, Table};
use crate::peers::openssl::{self, AesEcb, Libcrypto, Poly1305Mac};
use crate::peers::sodium::Sodium;
use crate::vectors;
use crate::workload::{Rng, SLOTS};

/// Secrets and nonces, slot by slot, in wegman's layout `k || r` (r valid).
#[derive(Clone)]
pub struct Keys {
    kr: Vec<[u8; 32]>,
    nonce: Vec<[u8; 16]>,
}

impl Keys {
    /// `n` random keys (r clamped, so valid) and nonces.
    pub fn random(n: usize, seed: u64) -> Keys {
        let mut rng = Rng::new(seed);
        let mut keys = Keys { kr: Vec::with_capacity(n), nonce: Vec::with_capacity(n) };
        for _ in 0..n {
            let kr = Key::from_bytes_clamped(&rng.bytes()).to_bytes();
            keys.kr.push(kr);
            keys.nonce.push(rng.bytes());
        }
        keys
    }

    fn push(&mut self, k: [u8; 16], r: [u8; 16], n: [u8; 16]) {
        let mut kr = [0u8; 32];
        kr[..16].copy_from_slice(&k);
        kr[16..].copy_from_slice(&r);
        self.kr.push(kr);
        self.nonce.push(n);
    }

    fn k(&self) -> Vec<[u8; 16]> {
        self.kr.iter().map(|kr| kr[..16].try_into().expect("16 bytes")).collect()
    }

    fn r(&self) -> Vec<[u8; 16]> {
        self.kr.iter().map(|kr| kr[16..].try_into().expect("16 bytes")).collect()
    }

    fn wegman(&self) -> Vec<Key> {
        self.kr.iter().map(|kr| Key::from_bytes(kr).expect("r was clamped")).collect()
    }
}

// ---------------------------------------------------------------- wegman

/// `poly1305aes::authenticate` / `verify`: AES key expansion inside the
/// call. With `--backend`, the same through `Poly1305Aes::with_features`.
struct WegmanOneShot<const VERIFY: bool> {
    keys: Vec<Key>,
    nonce: Vec<[u8; 16]>,
    out: [u8; 16],
    forced: Option<Features>,
}

impl<const VERIFY: bool> Contender for WegmanOneShot<VERIFY> {
    fn label(&self) -> Label {
        let call = match (VERIFY, self.forced.is_some()) {
            (true, false) => "wegman::poly1305aes::verify(&key, &a, &n, m)",
            (false, false) => "wegman::poly1305aes::authenticate(&key, &n, m)",
            (true, true) => "Poly1305Aes::with_features(&key, &n, F) + update(m) + verify(&a) (--backend)",
            (false, true) => "Poly1305Aes::with_features(&key, &n, F) + update(m) + finalize() (--backend)",
        };
        let platform = match self.forced {
            Some(f) => Poly1305Aes::with_features(&self.keys[0], &self.nonce[0], f).platform(),
            None => Poly1305Aes::new(&self.keys[0], &self.nonce[0]).platform(),
        };
        Label { name: wegman_name(platform), ours: true, call }
    }

    #[inline]
    fn call(&mut self, input: &Input<'_>) -> u8 {
        let (key, n) = (&self.keys[input.slot], &self.nonce[input.slot]);
        match (VERIFY, self.forced) {
            (true, None) => self.out[0] = u8::from(poly1305aes::verify(key, &input.tag, n, input.msg).is_ok()),
            (false, None) => self.out = poly1305aes::authenticate(key, n, input.msg),
            (true, Some(f)) => {
                let mut m = Poly1305Aes::with_features(key, n, f);
                m.update(input.msg);
                self.out[0] = u8::from(m.verify(&input.tag).is_ok());
            }
            (false, Some(f)) => {
                let mut m = Poly1305Aes::with_features(key, n, f);
                m.update(input.msg);
                self.out = m.finalize();
            }
        }
        self.out[0]
    }

    fn output(&self) -> Vec<u8> {
        if VERIFY { vec![self.out[0]] } else { self.out.to_vec() }
    }
}

/// `ExpandedKey::authenticate` / `verify`: the AES schedule made once per key.
struct WegmanExpanded<const VERIFY: bool> {
    keys: Vec<ExpandedKey>,
    nonce: Vec<[u8; 16]>,
    out: [u8; 16],
}

impl<const VERIFY: bool> Contender for WegmanExpanded<VERIFY> {
    fn label(&self) -> Label {
        let call = if VERIFY {
            "wegman::poly1305aes::ExpandedKey::verify(&a, &n, m) (ExpandedKey::new once per key)"
        } else {
            "wegman::poly1305aes::ExpandedKey::authenticate(&n, m) (ExpandedKey::new once per key)"
        };
        Label { name: wegman_name(self.keys[0].platform()), ours: true, call }
    }

    #[inline]
    fn call(&mut self, input: &Input<'_>) -> u8 {
        let (key, n) = (&self.keys[input.slot], &self.nonce[input.slot]);
        if VERIFY {
            self.out[0] = u8::from(key.verify(&input.tag, n, input.msg).is_ok());
        } else {
            self.out = key.authenticate(n, input.msg);
        }
        self.out[0]
    }

    fn output(&self) -> Vec<u8> {
        if VERIFY { vec![self.out[0]] } else { self.out.to_vec() }
    }
}

// ---------------------------------------------------------------- peers

/// Where a peer gets s = AES_k(n) from.
trait Pad {
    fn pad(&mut self, slot: usize, nonce: &[u8; 16]) -> [u8; 16];
}

/// OpenSSL EVP AES-128-ECB, key set up in the call.
struct OsslAes {
    ecb: AesEcb,
    k: Vec<[u8; 16]>,
}

impl Pad for OsslAes {
    #[inline]
    fn pad(&mut self, slot: usize, nonce: &[u8; 16]) -> [u8; 16] {
        self.ecb.set_key(&self.k[slot]);
        self.ecb.encrypt_block(nonce)
    }
}

/// OpenSSL EVP AES-128-ECB, one context per key, keyed in set-up.
struct OsslAesExpanded(Vec<AesEcb>);

impl Pad for OsslAesExpanded {
    #[inline]
    fn pad(&mut self, slot: usize, nonce: &[u8; 16]) -> [u8; 16] {
        self.0[slot].encrypt_block(nonce)
    }
}

/// The hand-assembled reference's AES-NI (C), key expanded in the call.
#[cfg(target_arch = "x86_64")]
struct RefAesNi(Vec<[u8; 16]>);

#[cfg(target_arch = "x86_64")]
impl Pad for RefAesNi {
    #[inline]
    fn pad(&mut self, slot: usize, nonce: &[u8; 16]) -> [u8; 16] {
        crate::peers::reference::aes128(&self.0[slot], nonce)
    }
}

/// RustCrypto `aes`, key expanded in the call.
struct RcAes(Vec<[u8; 16]>);

impl Pad for RcAes {
    #[inline]
    fn pad(&mut self, slot: usize, nonce: &[u8; 16]) -> [u8; 16] {
        let aes = Aes128Enc::new(&self.0[slot].into());
        let mut block = (*nonce).into();
        aes.encrypt_block(&mut block);
        block.into()
    }
}

/// RustCrypto `aes`, one `Aes128Enc` per key, expanded in set-up.
struct RcAesExpanded(Vec<Aes128Enc>);

impl Pad for RcAesExpanded {
    #[inline]
    fn pad(&mut self, slot: usize, nonce: &[u8; 16]) -> [u8; 16] {
        let mut block = (*nonce).into();
        self.0[slot].encrypt_block(&mut block);
        block.into()
    }
}

/// A Poly1305 with the one-time key `r || s`.
trait Poly {
    fn tag(&mut self, key: &[u8; 32], msg: &[u8]) -> [u8; 16];
    fn verify(&mut self, key: &[u8; 32], msg: &[u8], tag: &[u8; 16]) -> bool;
}

impl Poly for Poly1305Mac {
    #[inline]
    fn tag(&mut self, key: &[u8; 32], msg: &[u8]) -> [u8; 16] {
        Poly1305Mac::tag(self, key, msg)
    }

    #[inline]
    fn verify(&mut self, key: &[u8; 32], msg: &[u8], tag: &[u8; 16]) -> bool {
        openssl::tags_equal(&Poly1305Mac::tag(self, key, msg), tag)
    }
}

impl Poly for Sodium {
    #[inline]
    fn tag(&mut self, key: &[u8; 32], msg: &[u8]) -> [u8; 16] {
        self.poly1305(key, msg)
    }

    #[inline]
    fn verify(&mut self, key: &[u8; 32], msg: &[u8], tag: &[u8; 16]) -> bool {
        self.poly1305_verify(tag, key, msg)
    }
}

/// RustCrypto `poly1305`.
struct RcPoly;

impl Poly for RcPoly {
    #[inline]
    fn tag(&mut self, key: &[u8; 32], msg: &[u8]) -> [u8; 16] {
        Poly1305::new(key.into()).compute_unpadded(msg).into()
    }

    #[inline]
    fn verify(&mut self, key: &[u8; 32], msg: &[u8], tag: &[u8; 16]) -> bool {
        let mine: [u8; 16] = Poly1305::new(key.into()).compute_unpadded(msg).into();
        mine.ct_eq(tag).into()
    }
}

/// A peer: s = AES_k(n) from `P`, then `H` on `r || s`.
struct Peer<P, H, const VERIFY: bool> {
    label: Label,
    pad: P,
    poly: H,
    r: Vec<[u8; 16]>,
    nonce: Vec<[u8; 16]>,
    out: [u8; 16],
}

impl<P: Pad, H: Poly, const VERIFY: bool> Contender for Peer<P, H, VERIFY> {
    fn label(&self) -> Label {
        self.label
    }

    #[inline]
    fn call(&mut self, input: &Input<'_>) -> u8 {
        let s = self.pad.pad(input.slot, &self.nonce[input.slot]);
        let mut rs = [0u8; 32];
        rs[..16].copy_from_slice(&self.r[input.slot]);
        rs[16..].copy_from_slice(&s);
        if VERIFY {
            self.out[0] = u8::from(self.poly.verify(&rs, input.msg, &input.tag));
        } else {
            self.out = self.poly.tag(&rs, input.msg);
        }
        self.out[0]
    }

    fn output(&self) -> Vec<u8> {
        if VERIFY { vec![self.out[0]] } else { self.out.to_vec() }
    }
}

/// The calls, spelled out: [one-shot, precomputed] × [authenticate, verify].
mod calls {
    pub const OSSL: [[&str; 2]; 2] = [
        [
            "EVP AES-128-ECB EncryptInit_ex2(k) + EncryptUpdate(n) = s; EVP_MAC POLY1305 init(r||s), update(m), final",
            "the same + CRYPTO_memcmp(tag, a, 16)",
        ],
        [
            "EVP AES-128-ECB EncryptUpdate(n) = s on a context keyed once per key; EVP_MAC POLY1305 init(r||s), update(m), final",
            "the same + CRYPTO_memcmp(tag, a, 16)",
        ],
    ];
    pub const SODIUM: [[&str; 2]; 2] = [
        [
            "OpenSSL EVP AES-128-ECB EncryptInit_ex2(k) + EncryptUpdate(n) = s; crypto_onetimeauth_poly1305(tag, m, len, r||s)",
            "the same AES; crypto_onetimeauth_poly1305_verify(a, m, len, r||s)",
        ],
        [
            "OpenSSL EVP AES-128-ECB EncryptUpdate(n) = s (keyed once per key); crypto_onetimeauth_poly1305(tag, m, len, r||s)",
            "the same AES; crypto_onetimeauth_poly1305_verify(a, m, len, r||s)",
        ],
    ];
    /// The hand-assembled reference (one-shot tables only).
    pub const REFERENCE: [&str; 2] = [
        "C: AES-NI with the pshufb key expansion, round keys in registers (c/ref_aesni.c) = s; crypto_onetimeauth_poly1305(tag, m, len, r||s)",
        "the same AES; crypto_onetimeauth_poly1305_verify(a, m, len, r||s)",
    ];
    pub const RUST: [[&str; 2]; 2] = [
        [
            "aes::Aes128Enc::new(k).encrypt_block(n) = s; poly1305::Poly1305::new(r||s).compute_unpadded(m)",
            "the same + subtle ct_eq(tag, a)",
        ],
        [
            "Aes128Enc (made once per key).encrypt_block(n) = s; Poly1305::new(r||s).compute_unpadded(m)",
            "the same + subtle ct_eq(tag, a)",
        ],
    ];
}

fn peer<P: Pad + 'static, H: Poly + 'static, const VERIFY: bool>(
    name: &'static str,
    call: &'static str,
    pad: P,
    poly: H,
    keys: &Keys,
) -> Box<dyn Contender> {
    Box::new(Peer::<P, H, VERIFY> {
        label: Label { name, ours: false, call },
        pad,
        poly,
        r: keys.r(),
        nonce: keys.nonce.clone(),
        out: [0; 16],
    })
}

/// The three peers of one table: OpenSSL, libsodium and RustCrypto, each
/// computing Poly1305-AES with the AES key set up in the call or, if
/// `precomputed`, once per key. Also the yardstick of the MMH tables.
pub fn peers<const VERIFY: bool>(
    keys: &Keys,
    precomputed: bool,
    lib: Libcrypto,
    sodium: Sodium,
) -> Vec<Box<dyn Contender>> {
    let (p, v) = (usize::from(precomputed), usize::from(VERIFY));
    let (o, s, r) = (calls::OSSL[p][v], calls::SODIUM[p][v], calls::RUST[p][v]);
    let mac = Poly1305Mac::new(lib);
    if precomputed {
        let ossl_aes_x = || OsslAesExpanded(keys.k().iter().map(|k| AesEcb::with_key(lib, k)).collect());
        let rc_aes_x = RcAesExpanded(keys.k().iter().map(|k| Aes128Enc::new(&(*k).into())).collect());
        vec![
            peer::<_, _, VERIFY>("OpenSSL", o, ossl_aes_x(), mac, keys),
            peer::<_, _, VERIFY>("libsodium", s, ossl_aes_x(), sodium, keys),
            peer::<_, _, VERIFY>("RustCrypto", r, rc_aes_x, RcPoly, keys),
        ]
    } else {
        let ossl_aes = || OsslAes { ecb: AesEcb::new(lib), k: keys.k() };
        vec![
            peer::<_, _, VERIFY>("OpenSSL", o, ossl_aes(), mac, keys),
            peer::<_, _, VERIFY>("libsodium", s, ossl_aes(), sodium, keys),
            peer::<_, _, VERIFY>("RustCrypto", r, RcAes(keys.k()), RcPoly, keys),
        ]
    }
}

/// The four contenders of one table: wegman, then the peers.
fn row<const VERIFY: bool>(keys: &Keys, precomputed: bool, ctx: Ctx) -> Vec<Box<dyn Contender>> {
    let Ctx { lib, sodium, forced } = ctx;
    let ours: Box<dyn Contender> = if precomputed {
        let expand = |k: &Key| forced.map_or_else(|| ExpandedKey::new(k), |f| ExpandedKey::with_features(k, f));
        Box::new(WegmanExpanded::<VERIFY> {
            keys: keys.wegman().iter().map(expand).collect(),
            nonce: keys.nonce.clone(),
            out: [0; 16],
        })
    } else {
        Box::new(WegmanOneShot::<VERIFY> { keys: keys.wegman(), nonce: keys.nonce.clone(), out: [0; 16], forced })
    };
    let mut row = vec![ours];
    row.extend(peers::<VERIFY>(keys, precomputed, lib, sodium));
    #[cfg(target_arch = "x86_64")]
    if !precomputed && crate::peers::reference::available() {
        let call = calls::REFERENCE[usize::from(VERIFY)];
        row.push(peer::<_, _, VERIFY>("AES-NI+sodium (ref)", call, RefAesNi(keys.k()), sodium, keys));
    }
    row
}

/// What every table of the family is built with: the peers' libraries and
/// the backend `--backend` forces on wegman, if any.
#[derive(Clone, Copy)]
struct Ctx {
    lib: Libcrypto,
    sodium: Sodium,
    forced: Option<Features>,
}

/// The four tables, on `keys`.
fn build_tables(keys: &Keys, ctx: Ctx) -> Vec<Table> {
    let t = |id, title, verify: bool, contenders| {
        let expect = if verify { Expect::Accept } else { Expect::Any };
        Table { family: NAME, id, title, expect, contenders }
    };
    vec![
        t(
            "authenticate",
            "authenticate, one-shot: AES key expansion inside every call (Bernstein's authenticate(a,kr,n,m,mlen))",
            false,
            row::<false>(keys, false, ctx),
        ),
        t(
            "verify",
            "verify, one-shot: AES key expansion inside every call (Bernstein's verify(a,kr,n,m,mlen)); every tag is correct",
            true,
            row::<true>(keys, false, ctx),
        ),
        t(
            "authenticate-precomputed",
            "authenticate with the AES key schedule made once per key (wegman ExpandedKey; peers: one AES context per key)",
            false,
            row::<false>(keys, true, ctx),
        ),
        t(
            "verify-precomputed",
            "verify with the AES key schedule made once per key (wegman ExpandedKey; peers: one AES context per key)",
            true,
            row::<true>(keys, true, ctx),
        ),
    ]
}

const NAME: &str = "poly1305aes";

/// The Poly1305-AES family.
pub struct Poly1305AesFamily {
    keys: Keys,
    wegman: Vec<Key>,
    lib: Libcrypto,
    sodium: Sodium,
    forced: Option<Features>,
}

impl Poly1305AesFamily {
    /// [`SLOTS`] random keys and nonces.
    pub fn new(lib: Libcrypto, sodium: Sodium) -> Self {
        let keys = Keys::random(SLOTS, 0x5031_3330_3541_4553);
        let wegman = keys.wegman();
        Poly1305AesFamily { keys, wegman, lib, sodium, forced: None }
    }

    /// Run wegman on the best backend `features` allow (`--backend`).
    pub fn with_backend(mut self, features: Option<Features>) -> Self {
        self.forced = features;
        self
    }

    fn ctx(&self) -> Ctx {
        Ctx { lib: self.lib, sodium: self.sodium, forced: self.forced }
    }
}

/// Shared vectors as inputs: slot i holds vector i's key and nonce.
struct VectorSet {
    keys: Keys,
    msgs: Vec<Vec<u8>>,
    tags: Vec<[u8; 16]>,
    appendix_a: usize,
}

/// Appendix A, the edge cases and the random-length vectors.
fn vector_inputs() -> Result<VectorSet, String> {
    let mut set = VectorSet {
        keys: Keys { kr: Vec::new(), nonce: Vec::new() },
        msgs: Vec::new(),
        tags: Vec::new(),
        appendix_a: 0,
    };
    for group in ["paper-appendix-A", "edge-cases", "random-lengths"] {
        for v in vectors::group("poly1305aes.json", group)? {
            set.keys.push(vectors::array(&v, "k")?, vectors::array(&v, "r")?, vectors::array(&v, "n")?);
            set.msgs.push(vectors::bytes(&v, "m")?);
            set.tags.push(vectors::array(&v, "tag")?);
            set.appendix_a += usize::from(group == "paper-appendix-A");
        }
    }
    Ok(set)
}

/// Run every contender of `tables` on (slot i, `msgs[i]`) and compare with
/// `tags[i]`; verify contenders must accept it and reject it with one bit flipped.
fn check_tables(tables: &mut [Table], msgs: &[&[u8]], tags: &[[u8; 16]], what: &str) -> Result<usize, String> {
    let mut calls = 0;
    for t in tables.iter_mut() {
        for c in t.contenders.iter_mut() {
            let name = c.label().name;
            for (slot, (&msg, tag)) in msgs.iter().zip(tags).enumerate() {
                if t.expect == Expect::Accept {
                    let mut bad = *tag;
                    bad[slot % 16] ^= 1 << (slot % 8);
                    c.call(&Input { slot, msg, tag: *tag });
                    let good = c.output() == [1];
                    c.call(&Input { slot, msg, tag: bad });
                    let rejected = c.output() == [0];
                    if !(good && rejected) {
                        return Err(format!(
                            "{NAME} {} {name}: {what} #{slot} ({} bytes): accepts the correct tag: {good}, rejects a wrong one: {rejected}",
                            t.id,
                            msg.len()
                        ));
                    }
                    calls += 2;
                } else {
                    c.call(&Input { slot, msg, tag: [0; 16] });
                    if c.output() != tag {
                        return Err(format!(
                            "{NAME} {} {name}: {what} #{slot} ({} bytes): tag {} but expected {}",
                            t.id,
                            msg.len(),
                            hex::encode(c.output()),
                            hex::encode(tag)
                        ));
                    }
                    calls += 1;
                }
            }
        }
    }
    Ok(calls)
}

impl Family for Poly1305AesFamily {
    fn name(&self) -> &'static str {
        NAME
    }

    fn self_check(&self) -> Result<Vec<Check>, String> {
        let mut out = Vec::new();
        for v in vectors::group("poly1305aes.json", "paper-appendix-A")? {
            let key = Key::from_parts(vectors::array(&v, "k")?, vectors::array(&v, "r")?)
                .map_err(|e| format!("{}: {e}", vectors::name(&v)))?;
            let (n, m, want) = (vectors::array(&v, "n")?, vectors::bytes(&v, "m")?, vectors::array::<16>(&v, "tag")?);
            let got = poly1305aes::authenticate(&key, &n, &m);
            let mut bad = want;
            bad[15] ^= 0x80;
            let ok = got == want
                && poly1305aes::verify(&key, &want, &n, &m).is_ok()
                && poly1305aes::verify(&key, &bad, &n, &m).is_err();
            if !ok {
                return Err(format!(
                    "self-check: {}: wegman gives {} but the paper says {}",
                    vectors::name(&v),
                    hex::encode(got),
                    hex::encode(want)
                ));
            }
            out.push(Check {
                name: format!("Appendix A: {}", vectors::name(&v)),
                detail: format!(
                    "authenticate = {} as in the paper; verify accepts it, rejects a flipped bit",
                    hex::encode(got)
                ),
            });
        }
        Ok(out)
    }

    fn check_contenders(&self) -> Result<Vec<Check>, String> {
        let mut out = Vec::new();
        let names: Vec<&str> = build_tables(&Keys::random(1, 1), self.ctx())
            .iter()
            .flat_map(|t| t.labels().into_iter().map(|l| l.name))
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .collect();

        // 1. The shared vectors, messages aligned and misaligned.
        let set = vector_inputs()?;
        let mut tables = build_tables(&set.keys, self.ctx());
        let aligned: Vec<&[u8]> = set.msgs.iter().map(Vec::as_slice).collect();
        let shifted_bufs: Vec<Vec<u8>> = set.msgs.iter().map(|m| [&[0xa5][..], m].concat()).collect();
        let shifted: Vec<&[u8]> = shifted_bufs.iter().map(|b| &b[1..]).collect();
        let mut calls = check_tables(&mut tables, &aligned, &set.tags, "vector")?;
        calls += check_tables(&mut tables, &shifted, &set.tags, "vector (message at an odd address)")?;
        let (msgs, appendix) = (&set.msgs, set.appendix_a);
        out.push(Check {
            name: "Poly1305-AES contenders on the shared vectors".into(),
            detail: format!(
                "{} vectors ({appendix} of Appendix A, the edge cases, the random lengths), aligned and +1: every one of {} \
                 in all four tables gives the expected tag, accepts it and rejects a flipped bit ({calls} calls)",
                msgs.len(),
                names.join(", ")
            ),
        });

        // 2. Random keys, nonces and messages of many lengths at offsets 0..3,
        //    with wegman's own one-shot tag as the reference.
        const LENGTHS: [usize; 24] = [
            0, 1, 2, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129, 255, 256, 1000, 1024, 1500, 4095, 4096, 8192,
            65539,
        ];
        let keys = Keys::random(LENGTHS.len(), 0xc0ffee);
        let wegman = keys.wegman();
        let mut rng = Rng::new(7);
        let bufs: Vec<Vec<u8>> = LENGTHS
            .iter()
            .map(|&l| {
                let mut b = vec![0u8; l + 3];
                rng.fill(&mut b);
                b
            })
            .collect();
        let msgs: Vec<&[u8]> = LENGTHS.iter().zip(&bufs).enumerate().map(|(i, (&l, b))| &b[i % 4..][..l]).collect();
        let tags: Vec<[u8; 16]> =
            msgs.iter().enumerate().map(|(i, m)| poly1305aes::authenticate(&wegman[i], &keys.nonce[i], m)).collect();
        let mut tables = build_tables(&keys, self.ctx());
        let calls = check_tables(&mut tables, &msgs, &tags, "random input")?;
        out.push(Check {
            name: "Poly1305-AES contenders agree on random inputs".into(),
            detail: format!(
                "{} random (key, nonce, message) of lengths 0..65539 at offsets 0..3: identical tags from every contender, \
                 verify accepts/rejects ({calls} calls)",
                LENGTHS.len()
            ),
        });
        Ok(out)
    }

    fn tables(&self) -> Result<Vec<Table>, String> {
        Ok(build_tables(&self.keys, self.ctx()))
    }

    fn expected_tag(&self, slot: usize, msg: &[u8]) -> [u8; 16] {
        poly1305aes::authenticate(&self.wegman[slot], &self.keys.nonce[slot], msg)
    }

    fn notes(&self) -> Vec<String> {
        vec![
            "Poly1305-AES: 32-byte key k||r, 16-byte nonce, 16-byte tag. Peers take r||s and clamp r themselves; \
             (k, r) are split from wegman's k||r once in set-up; per call each peer computes s = AES_k(n) with \
             the AES named and builds r||s, as an application using that library must."
                .into(),
            format!(
                "wegman's Poly1305 backend here: {} (as reported by an ExpandedKey made on this machine); its AES \
                 is the RustCrypto aes crate (AES-NI when the CPU has it).",
                crate::wegman_backends().poly1305
            ),
            "OpenSSL: algorithms fetched once, one EVP context reused across calls (re-keyed per call in the \
             one-shot tables). libsodium uses OpenSSL's AES for s."
                .into(),
        ]
    }
}
