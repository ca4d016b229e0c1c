//! CWC-AES-128 against the AEADs people use instead: AES-128-GCM (OpenSSL,
//! RustCrypto `aes-gcm`) and ChaCha20-Poly1305 (OpenSSL).
//!
//! All encrypt with a 16-byte tag and **no associated data**; nonces are 11
//! bytes for CWC (its only size) and 12 for GCM and ChaCha20-Poly1305.
//! AES keys are 128-bit; ChaCha20 only has 256-bit keys.
//!
//! * one-shot — the key set-up is inside the call: `CwcKey::new(k)` +
//!   `encrypt` (returns a fresh `Vec`), `Aes128Gcm::new(k).encrypt(..)`
//!   (also a `Vec`), OpenSSL `EncryptInit_ex2(key, nonce)` + Update + Final +
//!   GET_TAG into a reused output buffer (OpenSSL's API writes to the
//!   caller's buffer);
//! * precomputed — the key made once: `CwcKey` and `encrypt_detached` into a
//!   reused buffer, `Aes128Gcm` and `encrypt_inout_detached` likewise (both
//!   in place, so the call first copies the plaintext into the buffer), and
//!   an OpenSSL context keyed once per key, given only the nonce per call.

use aes_gcm::Aes128Gcm;
use aes_gcm::aead::{Aead, AeadInOut, KeyInit};
use wegman::cwc::CwcKey;

use crate::contender::{Check, Contender, Family, Input, Label, Table};
use crate::peers::openssl::{self, AeadAlg, Libcrypto};
use crate::peers::sodium::Sodium;
use crate::vectors;
use crate::workload::{ALIGN, Rng, SLOTS};

const NAME: &str = "cwc";
const TAG: usize = 16;

/// Secrets and nonces, slot by slot: AES uses the first 16 key bytes,
/// ChaCha20 all 32; CWC the first 11 nonce bytes, the others all 12.
#[derive(Clone)]
pub struct Keys {
    key: Vec<[u8; 32]>,
    nonce: Vec<[u8; 12]>,
}

impl Keys {
    fn random(n: usize, seed: u64) -> Keys {
        let mut rng = Rng::new(seed);
        Keys { key: (0..n).map(|_| rng.bytes()).collect(), nonce: (0..n).map(|_| rng.bytes()).collect() }
    }

    fn aes(&self) -> Vec<[u8; 16]> {
        self.key.iter().map(|k| k[..16].try_into().expect("16 bytes")).collect()
    }

    fn cwc_nonce(&self) -> Vec<[u8; 11]> {
        self.nonce.iter().map(|n| n[..11].try_into().expect("11 bytes")).collect()
    }
}

/// A reused output or in-place buffer whose window starts at the same
/// address modulo 64 as the message it was last placed for, so the
/// misaligned regimes misalign it too. Grown once, then reused.
#[derive(Default)]
struct Window {
    buf: Vec<u8>,
    at: usize,
    len: usize,
}

impl Window {
    /// A `like.len()`-byte window aligned like `like` (not filled).
    #[inline]
    fn place(&mut self, like: &[u8]) -> &mut [u8] {
        let len = like.len();
        if self.buf.len() < len + ALIGN {
            self.buf.resize(len + ALIGN, 0);
        }
        self.at = (like.as_ptr() as usize + ALIGN - self.buf.as_ptr() as usize % ALIGN) % ALIGN;
        self.len = len;
        &mut self.buf[self.at..self.at + len]
    }

    /// The window last placed.
    fn bytes(&self) -> &[u8] {
        &self.buf[self.at..self.at + self.len]
    }
}

// ---------------------------------------------------------------- wegman

/// `CwcKey::new(k)?.encrypt(n, &[], m, 16)?`.
struct WegmanOneShot {
    key: Vec<[u8; 16]>,
    nonce: Vec<[u8; 11]>,
    out: Vec<u8>,
}

impl Contender for WegmanOneShot {
    fn label(&self) -> Label {
        Label { name: "wegman CWC", ours: true, call: "wegman::cwc::CwcKey::new(k)?.encrypt(&n11, &[], m, 16)? -> Vec" }
    }

    #[inline]
    fn call(&mut self, input: &Input<'_>) -> u8 {
        let key = CwcKey::new(&self.key[input.slot]).expect("a 16-byte key");
        self.out = key.encrypt(&self.nonce[input.slot], &[], input.msg, TAG).expect("lengths within CWC's limits");
        self.out[self.out.len() - 1]
    }

    fn output(&self) -> Vec<u8> {
        self.out.clone()
    }
}

/// A `CwcKey` per key, made once; `encrypt_detached` into a reused buffer.
struct WegmanPrecomputed {
    keys: Vec<CwcKey>,
    nonce: Vec<[u8; 11]>,
    buf: Window,
    tag: [u8; TAG],
}

impl Contender for WegmanPrecomputed {
    fn label(&self) -> Label {
        Label {
            name: "wegman CWC",
            ours: true,
            call: "copy m into a reused buffer; CwcKey (made once per key).encrypt_detached(&n11, &[], buf, 16)?",
        }
    }

    #[inline]
    fn call(&mut self, input: &Input<'_>) -> u8 {
        let buf = self.buf.place(input.msg);
        buf.copy_from_slice(input.msg);
        let tag = self.keys[input.slot].encrypt_detached(&self.nonce[input.slot], &[], buf, TAG).expect("lengths");
        self.tag.copy_from_slice(tag.as_slice());
        self.tag[TAG - 1]
    }

    fn output(&self) -> Vec<u8> {
        [self.buf.bytes(), &self.tag[..]].concat()
    }
}

// ---------------------------------------------------------------- peers

/// OpenSSL AEAD, key set-up in the call (`EncryptInit_ex2(key, nonce)`).
struct OsslOneShot {
    alg: AeadAlg,
    ctx: openssl::Aead,
    key: Vec<[u8; 32]>,
    nonce: Vec<[u8; 12]>,
    out: Window,
    tag: [u8; TAG],
}

/// OpenSSL AEAD, one context per key keyed once; only the nonce per call.
struct OsslPrecomputed {
    alg: AeadAlg,
    ctx: Vec<openssl::Aead>,
    nonce: Vec<[u8; 12]>,
    out: Window,
    tag: [u8; TAG],
}

fn ossl_name(alg: AeadAlg) -> &'static str {
    match alg {
        AeadAlg::Aes128Gcm => "OpenSSL GCM",
        AeadAlg::ChaCha20Poly1305 => "OpenSSL ChaCha",
    }
}

impl Contender for OsslOneShot {
    fn label(&self) -> Label {
        let call = match self.alg {
            AeadAlg::Aes128Gcm => {
                "EVP AES-128-GCM: EncryptInit_ex2(ctx, NULL, k, n12) + EncryptUpdate(m) + EncryptFinal_ex + GET_TAG(16)"
            }
            AeadAlg::ChaCha20Poly1305 => {
                "EVP ChaCha20-Poly1305 (256-bit key): EncryptInit_ex2(ctx, NULL, k, n12) + EncryptUpdate(m) + EncryptFinal_ex + GET_TAG(16)"
            }
        };
        Label { name: ossl_name(self.alg), ours: false, call }
    }

    #[inline]
    fn call(&mut self, input: &Input<'_>) -> u8 {
        let key = &self.key[input.slot][..self.alg.key_len()];
        let out = self.out.place(input.msg);
        self.tag = self.ctx.seal_with_key(key, &self.nonce[input.slot], input.msg, out);
        self.tag[TAG - 1]
    }

    fn output(&self) -> Vec<u8> {
        [self.out.bytes(), &self.tag[..]].concat()
    }
}

impl Contender for OsslPrecomputed {
    fn label(&self) -> Label {
        let call = match self.alg {
            AeadAlg::Aes128Gcm => {
                "EVP AES-128-GCM context keyed once per key: EncryptInit_ex2(ctx, NULL, NULL, n12) + Update + Final + GET_TAG(16)"
            }
            AeadAlg::ChaCha20Poly1305 => {
                "EVP ChaCha20-Poly1305 context keyed once per key: EncryptInit_ex2(ctx, NULL, NULL, n12) + Update + Final + GET_TAG(16)"
            }
        };
        Label { name: ossl_name(self.alg), ours: false, call }
    }

    #[inline]
    fn call(&mut self, input: &Input<'_>) -> u8 {
        let out = self.out.place(input.msg);
        self.tag = self.ctx[input.slot].seal(&self.nonce[input.slot], input.msg, out);
        self.tag[TAG - 1]
    }

    fn output(&self) -> Vec<u8> {
        [self.out.bytes(), &self.tag[..]].concat()
    }
}

/// `Aes128Gcm::new(k).encrypt(n, m)`.
struct RcGcmOneShot {
    key: Vec<[u8; 16]>,
    nonce: Vec<[u8; 12]>,
    out: Vec<u8>,
}

impl Contender for RcGcmOneShot {
    fn label(&self) -> Label {
        Label {
            name: "RustCrypto GCM",
            ours: false,
            call: "aes_gcm::Aes128Gcm::new(k).encrypt(n12, m) -> Vec (aes-gcm 0.11)",
        }
    }

    #[inline]
    fn call(&mut self, input: &Input<'_>) -> u8 {
        let gcm = Aes128Gcm::new(&self.key[input.slot].into());
        self.out = gcm.encrypt(&self.nonce[input.slot].into(), input.msg).expect("length within GCM's limit");
        self.out[self.out.len() - 1]
    }

    fn output(&self) -> Vec<u8> {
        self.out.clone()
    }
}

/// An `Aes128Gcm` per key, made once; `encrypt_inout_detached` in place.
struct RcGcmPrecomputed {
    gcm: Vec<Aes128Gcm>,
    nonce: Vec<[u8; 12]>,
    buf: Window,
    tag: [u8; TAG],
}

impl Contender for RcGcmPrecomputed {
    fn label(&self) -> Label {
        Label {
            name: "RustCrypto GCM",
            ours: false,
            call: "copy m into a reused buffer; Aes128Gcm (made once per key).encrypt_inout_detached(n12, &[], buf)",
        }
    }

    #[inline]
    fn call(&mut self, input: &Input<'_>) -> u8 {
        let buf = self.buf.place(input.msg);
        buf.copy_from_slice(input.msg);
        let tag = self.gcm[input.slot]
            .encrypt_inout_detached(&self.nonce[input.slot].into(), &[], buf.into())
            .expect("length within GCM's limit");
        self.tag = tag.into();
        self.tag[TAG - 1]
    }

    fn output(&self) -> Vec<u8> {
        [self.buf.bytes(), &self.tag[..]].concat()
    }
}

fn build_tables(keys: &Keys, lib: Libcrypto) -> Vec<Table> {
    let ossl_one = |alg| -> Box<dyn Contender> {
        Box::new(OsslOneShot {
            alg,
            ctx: openssl::Aead::new(lib, alg),
            key: keys.key.clone(),
            nonce: keys.nonce.clone(),
            out: Window::default(),
            tag: [0; TAG],
        })
    };
    let ossl_pre = |alg: AeadAlg| -> Box<dyn Contender> {
        Box::new(OsslPrecomputed {
            alg,
            ctx: keys.key.iter().map(|k| openssl::Aead::with_key(lib, alg, &k[..alg.key_len()])).collect(),
            nonce: keys.nonce.clone(),
            out: Window::default(),
            tag: [0; TAG],
        })
    };
    vec![
        Table {
            family: NAME,
            id: "encrypt",
            title: "AEAD encryption, one-shot: key set-up inside every call; 16-byte tag, no associated data",
            verify: false,
            contenders: vec![
                Box::new(WegmanOneShot { key: keys.aes(), nonce: keys.cwc_nonce(), out: Vec::new() }),
                ossl_one(AeadAlg::Aes128Gcm),
                Box::new(RcGcmOneShot { key: keys.aes(), nonce: keys.nonce.clone(), out: Vec::new() }),
                ossl_one(AeadAlg::ChaCha20Poly1305),
            ],
        },
        Table {
            family: NAME,
            id: "encrypt-precomputed",
            title: "AEAD encryption with the key set up once per key; 16-byte tag, no associated data",
            verify: false,
            contenders: vec![
                Box::new(WegmanPrecomputed {
                    keys: keys.aes().iter().map(|k| CwcKey::new(k).expect("16-byte key")).collect(),
                    nonce: keys.cwc_nonce(),
                    buf: Window::default(),
                    tag: [0; TAG],
                }),
                ossl_pre(AeadAlg::Aes128Gcm),
                Box::new(RcGcmPrecomputed {
                    gcm: keys.aes().iter().map(|k| Aes128Gcm::new(&(*k).into())).collect(),
                    nonce: keys.nonce.clone(),
                    buf: Window::default(),
                    tag: [0; TAG],
                }),
                ossl_pre(AeadAlg::ChaCha20Poly1305),
            ],
        },
    ]
}

/// Every contender of `tables` named `name`, called on (slot, msg) twice
/// (a precomputed context must give the same answer when reused).
fn outputs(tables: &mut [Table], name: &str, slot: usize, msg: &[u8]) -> Result<Vec<Vec<u8>>, String> {
    let mut out = Vec::new();
    for t in tables.iter_mut() {
        for c in t.contenders.iter_mut().filter(|c| c.label().name == name) {
            c.call(&Input { slot, msg, tag: [0; 16] });
            let first = c.output();
            c.call(&Input { slot, msg, tag: [0; 16] });
            if c.output() != first {
                return Err(format!("cwc {}: {name} gives a different answer when called again", t.id));
            }
            out.push(first);
        }
    }
    Ok(out)
}

/// GCM known answers: Test Cases 1-3 of McGrew & Viega, "The Galois/Counter
/// Mode of Operation (GCM)", Appendix B (key, IV, plaintext, ciphertext || tag).
const GCM_KAT: [(&str, &str, &str, &str); 3] = [
    ("00000000000000000000000000000000", "000000000000000000000000", "", "58e2fccefa7e3061367f1d57a4e7455a"),
    (
        "00000000000000000000000000000000",
        "000000000000000000000000",
        "00000000000000000000000000000000",
        "0388dace60b6a392f328c2b971b2fe78ab6e47d42cec13bdf53a67b21257bddf",
    ),
    (
        "feffe9928665731c6d6a8f9467308308",
        "cafebabefacedbaddecaf888",
        "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a721c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b391aafd255",
        "42831ec2217774244b7221b784d0d49ce3aa212f2c02a4e035c17e2329aca12e21d514b25466931c7d8f6a5aac84aa051ba30b396a0aac973d58e091473f59854d5c2af327cd64a62cf35abd2ba6fab4",
    ),
];

fn hex(s: &str) -> Vec<u8> {
    hex::decode(s).expect("constant hex")
}

/// The CWC family.
pub struct CwcFamily {
    keys: Keys,
    lib: Libcrypto,
    sodium: Sodium,
}

impl CwcFamily {
    /// [`SLOTS`] random keys and nonces.
    pub fn new(lib: Libcrypto, sodium: Sodium) -> Self {
        CwcFamily { keys: Keys::random(SLOTS, 0x4357_4341_4541_4144), lib, sodium }
    }

    /// CWC: every shared vector the contenders can take (AES-128, no AAD,
    /// 16-byte tag) through both wegman contenders, aligned and at an odd address.
    fn check_cwc_vectors(&self) -> Result<Check, String> {
        let mut keys = Keys { key: Vec::new(), nonce: Vec::new() };
        let mut cases = Vec::new();
        for group in ["draft-irtf-cfrg-cwc", "edge-cases", "random"] {
            for v in vectors::group("cwc.json", group)? {
                if !(v["aad_len"] == 0 && v["tag_len"] == 16 && v["key"].as_str().is_some_and(|k| k.len() == 32)) {
                    continue;
                }
                let mut key = [0u8; 32];
                key[..16].copy_from_slice(&vectors::array::<16>(&v, "key")?);
                let mut nonce = [0u8; 12];
                nonce[..11].copy_from_slice(&vectors::array::<11>(&v, "nonce")?);
                keys.key.push(key);
                keys.nonce.push(nonce);
                cases.push((vectors::name(&v), vectors::bytes(&v, "pt")?, vectors::bytes(&v, "ct")?));
            }
        }
        if cases.len() < 100 {
            return Err(format!("cwc.json: only {} AES-128 vectors without AAD and with a 16-byte tag", cases.len()));
        }
        let mut tables = build_tables(&keys, self.lib);
        let mut calls = 0;
        for (slot, (name, pt, ct)) in cases.iter().enumerate() {
            let shifted = [&[0x3c][..], pt].concat();
            for msg in [&pt[..], &shifted[1..]] {
                let got = outputs(&mut tables, "wegman CWC", slot, msg)?;
                if got.len() != 2 || got.iter().any(|g| g != ct) {
                    return Err(format!(
                        "cwc: {name}: wegman gives {:?}, the vector says {}",
                        got.iter().map(hex::encode).collect::<Vec<_>>(),
                        hex::encode(ct)
                    ));
                }
                calls += 4;
            }
        }
        Ok(Check {
            name: "CWC known answers".into(),
            detail: format!(
                "all {} AES-128 vectors of cwc.json without AAD and with a 16-byte tag (3 of the draft, 1 edge case, \
                 the random ones), aligned and +1: wegman CWC one-shot and precomputed give the vector's ciphertext || tag, \
                 twice ({calls} calls)",
                cases.len()
            ),
        })
    }

    /// GCM: OpenSSL and RustCrypto, one-shot and precomputed, on the spec's test cases.
    fn check_gcm_kat(&self) -> Result<Check, String> {
        for (i, (k, n, p, c)) in GCM_KAT.iter().enumerate() {
            let mut key = [0u8; 32];
            key[..16].copy_from_slice(&hex(k));
            let nonce: [u8; 12] = hex(n).try_into().expect("12 bytes");
            let mut tables = build_tables(&Keys { key: vec![key], nonce: vec![nonce] }, self.lib);
            for name in ["OpenSSL GCM", "RustCrypto GCM"] {
                let got = outputs(&mut tables, name, 0, &hex(p))?;
                if got.len() != 2 || got.iter().any(|g| *g != hex(c)) {
                    return Err(format!("cwc: GCM test case {}: {name} does not give the known answer", i + 1));
                }
            }
        }
        Ok(Check {
            name: "AES-128-GCM known answers (GCM spec test cases 1-3)".into(),
            detail: "OpenSSL and RustCrypto aes-gcm, one-shot and precomputed, give the same, known, ciphertext || tag"
                .into(),
        })
    }

    /// Random inputs: GCM peers agree; each contender's one-shot and
    /// precomputed agree; each output decrypts back (and not when tampered).
    fn check_random(&self) -> Result<Check, String> {
        const LENGTHS: [usize; 12] = [0, 1, 15, 16, 17, 63, 64, 100, 1024, 1500, 4097, 65536];
        let keys = Keys::random(LENGTHS.len(), 0xae5);
        let mut tables = build_tables(&keys, self.lib);
        let mut rng = Rng::new(11);
        for (slot, &len) in LENGTHS.iter().enumerate() {
            let mut buf = vec![0u8; len + 3];
            rng.fill(&mut buf);
            let msg = &buf[slot % 4..][..len];
            let fail = |what: &str| format!("cwc: random input #{slot} ({len} bytes): {what}");
            let (cwc, gcm_o, gcm_r, chacha) = (
                outputs(&mut tables, "wegman CWC", slot, msg)?,
                outputs(&mut tables, "OpenSSL GCM", slot, msg)?,
                outputs(&mut tables, "RustCrypto GCM", slot, msg)?,
                outputs(&mut tables, "OpenSSL ChaCha", slot, msg)?,
            );
            for (name, outs) in
                [("wegman CWC", &cwc), ("OpenSSL GCM", &gcm_o), ("RustCrypto GCM", &gcm_r), ("ChaCha", &chacha)]
            {
                if outs.len() != 2 || outs[0] != outs[1] || outs[0].len() != len + TAG {
                    return Err(fail(&format!("{name}: one-shot and precomputed differ")));
                }
            }
            if gcm_o[0] != gcm_r[0] {
                return Err(fail("OpenSSL and RustCrypto AES-128-GCM differ"));
            }
            if chacha[0] != self.sodium.chacha20poly1305_ietf(&keys.key[slot], &keys.nonce[slot], msg) {
                return Err(fail("OpenSSL and libsodium ChaCha20-Poly1305 differ"));
            }
            let mut bad = cwc[0].clone();
            bad[len / 2] ^= 1;
            let cwc_key = CwcKey::new(&keys.aes()[slot]).expect("16-byte key");
            let cwc_nonce = keys.cwc_nonce()[slot];
            if cwc_key.decrypt(&cwc_nonce, &[], &cwc[0], TAG).ok().as_deref() != Some(msg)
                || cwc_key.decrypt(&cwc_nonce, &[], &bad, TAG).is_ok()
            {
                return Err(fail("wegman CWC does not round-trip"));
            }
            let gcm = Aes128Gcm::new(&keys.aes()[slot].into());
            let mut bad = gcm_o[0].clone();
            bad[len / 2] ^= 1;
            let n = keys.nonce[slot].into();
            if gcm.decrypt(&n, gcm_o[0].as_slice()).ok().as_deref() != Some(msg)
                || gcm.decrypt(&n, bad.as_slice()).is_ok()
            {
                return Err(fail("OpenSSL's GCM output does not open with RustCrypto"));
            }
            let (ct, tag) = chacha[0].split_at(len);
            let tag: [u8; 16] = tag.try_into().expect("16 bytes");
            let mut bad_tag = tag;
            bad_tag[slot % 16] ^= 1;
            let open = |t: &[u8; 16]| {
                openssl::Aead::open(self.lib, AeadAlg::ChaCha20Poly1305, &keys.key[slot], &keys.nonce[slot], ct, t)
            };
            if open(&tag).as_deref() != Some(msg) || open(&bad_tag).is_some() {
                return Err(fail("ChaCha20-Poly1305 does not round-trip"));
            }
        }
        Ok(Check {
            name: "AEAD contenders on random inputs".into(),
            detail: format!(
                "{} random inputs of lengths 0..65536 at offsets 0..3: OpenSSL GCM = RustCrypto GCM; OpenSSL \
                 ChaCha20-Poly1305 = libsodium's; one-shot = precomputed, twice, for every contender; CWC, GCM and ChaCha20-Poly1305 outputs decrypt back and fail when tampered",
                LENGTHS.len()
            ),
        })
    }
}

impl Family for CwcFamily {
    fn name(&self) -> &'static str {
        NAME
    }

    fn check_contenders(&self) -> Result<Vec<Check>, String> {
        Ok(vec![self.check_cwc_vectors()?, self.check_gcm_kat()?, self.check_random()?])
    }

    fn tables(&self) -> Result<Vec<Table>, String> {
        Ok(build_tables(&self.keys, self.lib))
    }

    fn notes(&self) -> Vec<String> {
        vec![
            "CWC family: CWC-AES-128 (11-byte nonce) vs AES-128-GCM and ChaCha20-Poly1305 (12-byte nonces, ChaCha20 \
             with its only key size, 256 bits); all with 16-byte tags and no associated data; encryption only."
                .into(),
            "One-shot wegman and RustCrypto return a new Vec (their APIs; its alignment is the allocator's); OpenSSL \
             writes into the caller's reused buffer. Precomputed wegman and RustCrypto encrypt in place, so their \
             call includes copying the plaintext into the reused buffer. Reused buffers sit at the message's \
             address modulo 64, so the misaligned regimes misalign them too."
                .into(),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reused_buffers_take_the_message_alignment() {
        let msg = vec![0u8; 300];
        let mut w = Window::default();
        for off in 0..ALIGN {
            let like = &msg[off..off + 100];
            let addr = w.place(like).as_ptr() as usize;
            assert_eq!(addr % ALIGN, like.as_ptr() as usize % ALIGN, "offset {off}");
            assert_eq!(w.bytes().len(), like.len());
        }
    }
}
