//! The checks every CWC-family contender passes before it is timed: known
//! answers (the shared CWC vectors, the GCM spec's test cases) and agreement
//! on random inputs, on contenders built exactly as the timed ones are.

use aes_gcm::Aes128Gcm;
use aes_gcm::aead::{Aead, KeyInit};
use wegman::cwc::CwcKey;

use super::{CwcFamily, Keys, TAG, build_tables};
use crate::contender::{Check, Input, Table};
use crate::peers::openssl::{self, AeadAlg};
use crate::vectors;
use crate::workload::Rng;

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

impl CwcFamily {
    /// CWC: every shared vector the contenders can take (AES-128, no AAD,
    /// 16-byte tag) through both wegman contenders, aligned and at an odd address.
    pub(super) fn check_cwc_vectors(&self) -> Result<Check, String> {
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
    pub(super) fn check_gcm_kat(&self) -> Result<Check, String> {
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
    pub(super) fn check_random(&self) -> Result<Check, String> {
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
