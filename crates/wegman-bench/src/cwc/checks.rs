//! The checks every CWC-family contender passes before it is timed: known
//! answers (the shared CWC vectors, the GCM spec's test cases) and agreement
//! on random inputs, on contenders built exactly as the timed ones are.
//! Each contender is called twice per input (a key or context made once
//! must give the same answer when reused); a decrypt contender gets the
//! tag its timed calls would get from the set-up, and that tag must be the
//! known one.

use aes_gcm::Aes128Gcm;
use aes_gcm::aead::{Aead, KeyInit};
use wegman::cwc::CwcKey;

use super::sealed::{Alg, Tags};
use super::{CwcFamily, Keys, TAG, build_tables};
use crate::contender::{Check, Expect, Input, Table};
use crate::vectors;
use crate::workload::Rng;

/// The GCM contenders' names.
const GCM_PEERS: [&str; 4] = ["OpenSSL GCM", "RustCrypto GCM", "aws-lc-rs GCM", "ring GCM"];
/// The ChaCha20-Poly1305 contenders' names.
const CHACHA_PEERS: [&str; 3] = ["OpenSSL ChaCha", "aws-lc-rs ChaCha", "ring ChaCha"];

/// Slot `slot`'s plaintext and its `ciphertext || tag`.
struct Case<'a> {
    slot: usize,
    pt: &'a [u8],
    sealed: &'a [u8],
}

/// Short enough to print whole, else its length.
fn show(bytes: &[u8]) -> String {
    if bytes.len() <= 48 { hex::encode(bytes) } else { format!("{} bytes", bytes.len()) }
}

/// Every contender of `tables` named `name` on `case`, twice: an encrypt
/// call on the plaintext must give `ciphertext || tag`; a decrypt call,
/// given the ciphertext and the set-up's tag for it (`tags`, which must be
/// the case's tag), must accept and give back the plaintext, and given that
/// tag forged must return an error, and if it is ours release nothing (no
/// plaintext returned, its in-place buffer zeroed). Returns
/// the number of calls.
fn check_case(tables: &mut [Table], tags: &Tags, name: &str, case: &Case<'_>) -> Result<usize, String> {
    let (ct, tag) = case.sealed.split_at(case.pt.len());
    let made = tags.tag(case.slot, ct);
    if made != tag {
        return Err(format!("the set-up gives {name}'s decrypt calls the tag {}, not {}", show(&made), show(tag)));
    }
    let mut calls = 0;
    for t in tables.iter_mut() {
        let (msg, want) = match t.expect {
            Expect::Any => (case.pt, case.sealed.to_vec()),
            Expect::Accept => (ct, [&[1][..], case.pt].concat()),
            Expect::Reject => (ct, vec![0]),
        };
        let input = Input { slot: case.slot, msg, tag: [0; 16] };
        for c in t.contenders.iter_mut().filter(|c| c.label().name == name) {
            c.prepare(&[input]);
            for _ in 0..2 {
                c.call(&input);
                let got = c.output();
                let right = match t.expect {
                    // ours releases nothing: its in-place buffer is zeroed
                    Expect::Reject if c.label().ours => {
                        got == want || got == [&want[..], &vec![0u8; ct.len()][..]].concat()
                    }
                    Expect::Reject => got.first() == Some(&0),
                    _ => got == want,
                };
                if !right {
                    return Err(format!("cwc {} {name} gives {}, not {}", t.id, show(&got), show(&want)));
                }
                calls += 1;
            }
        }
    }
    Ok(calls)
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
    /// 16-byte tag) through every wegman contender, aligned and at an odd address.
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
        let tags = Tags::new(Alg::Cwc, &keys, self.lib);
        let mut calls = 0;
        for (slot, (name, pt, sealed)) in cases.iter().enumerate() {
            let (pt1, sealed1) = ([&[0x3c][..], pt].concat(), [&[0x3c][..], sealed].concat());
            for (pt, sealed) in [(&pt[..], &sealed[..]), (&pt1[1..], &sealed1[1..])] {
                calls += check_case(&mut tables, &tags, "wegman CWC", &Case { slot, pt, sealed })
                    .map_err(|e| format!("cwc.json {name}: {e}"))?;
            }
        }
        Ok(Check {
            name: "CWC known answers".into(),
            detail: format!(
                "all {} AES-128 vectors of cwc.json without AAD and with a 16-byte tag (3 of the draft, 1 edge case, \
                 the random ones), aligned and +1: wegman CWC's encrypt calls give the vector's ciphertext || tag, its \
                 decrypt calls given them the plaintext, and given the tag with one bit flipped an error and \
                 nothing else; one-shot and precomputed, twice each ({calls} calls)",
                cases.len()
            ),
        })
    }

    /// GCM: every GCM contender, one-shot and precomputed, on the spec's test cases.
    pub(super) fn check_gcm_kat(&self) -> Result<Check, String> {
        let mut calls = 0;
        for (i, (k, n, p, c)) in GCM_KAT.iter().enumerate() {
            let mut key = [0u8; 32];
            key[..16].copy_from_slice(&hex(k));
            let nonce: [u8; 12] = hex(n).try_into().expect("12 bytes");
            let keys = Keys { key: vec![key], nonce: vec![nonce] };
            let mut tables = build_tables(&keys, self.lib);
            let tags = Tags::new(Alg::Gcm, &keys, self.lib);
            let (pt, sealed) = (hex(p), hex(c));
            for name in GCM_PEERS {
                calls += check_case(&mut tables, &tags, name, &Case { slot: 0, pt: &pt, sealed: &sealed })
                    .map_err(|e| format!("GCM test case {}: {e}", i + 1))?;
            }
        }
        Ok(Check {
            name: "AES-128-GCM known answers (GCM spec test cases 1-3)".into(),
            detail: format!(
                "{}, one-shot and precomputed: encrypt gives the known ciphertext || tag, decrypt given them the \
                 plaintext, and an error given the tag with one bit flipped; twice each ({calls} calls)",
                GCM_PEERS.join(", ")
            ),
        })
    }

    /// Random inputs: every contender against an independent answer for its
    /// AEAD (so the peers of one AEAD agree with each other), one-shot and
    /// precomputed, encrypt and decrypt.
    pub(super) fn check_random(&self) -> Result<Check, String> {
        const LENGTHS: [usize; 12] = [0, 1, 15, 16, 17, 63, 64, 100, 1024, 1500, 4097, 65536];
        let keys = Keys::random(LENGTHS.len(), 0xae5);
        let mut tables = build_tables(&keys, self.lib);
        let tags = [Alg::Cwc, Alg::Gcm, Alg::ChaCha].map(|alg| Tags::new(alg, &keys, self.lib));
        let mut rng = Rng::new(11);
        let mut calls = 0;
        for (slot, &len) in LENGTHS.iter().enumerate() {
            let mut buf = vec![0u8; len + 3];
            rng.fill(&mut buf);
            let off = slot % 4;
            let pt = &buf[off..][..len];
            let cwc = CwcKey::new(&keys.aes()[slot])
                .and_then(|k| k.encrypt(&keys.cwc_nonce()[slot], &[], pt, TAG))
                .expect("a 16-byte key, lengths within CWC's limits");
            let gcm = Aes128Gcm::new(&keys.aes()[slot].into())
                .encrypt(&keys.nonce[slot].into(), pt)
                .expect("length within GCM's limit");
            let chacha = self.sodium.chacha20poly1305_ietf(&keys.key[slot], &keys.nonce[slot], pt);
            for ((names, tags), sealed) in
                [(&["wegman CWC"][..], &tags[0]), (&GCM_PEERS[..], &tags[1]), (&CHACHA_PEERS[..], &tags[2])]
                    .into_iter()
                    .zip([cwc, gcm, chacha])
            {
                // At the plaintext's offset, so decrypt calls meet misaligned ciphertexts too.
                let at = [&vec![0; off][..], &sealed].concat();
                for name in names {
                    calls += check_case(&mut tables, tags, name, &Case { slot, pt, sealed: &at[off..] })
                        .map_err(|e| format!("cwc: random input #{slot} ({len} bytes): {e}"))?;
                }
            }
        }
        Ok(Check {
            name: "AEAD contenders on random inputs".into(),
            detail: format!(
                "{} random inputs of lengths 0..65536 at offsets 0..3, every contender one-shot and precomputed, \
                 twice each: encrypt gives the ciphertext || tag of wegman's CwcKey::encrypt, RustCrypto aes-gcm \
                 (so OpenSSL = aws-lc-rs = ring = RustCrypto GCM) and libsodium (so OpenSSL = aws-lc-rs = ring \
                 ChaCha20-Poly1305 = libsodium's); \
                 decrypt given them gives back the plaintext, and an error (wegman: and nothing else) given the tag \
                 with one bit flipped ({calls} calls)",
                LENGTHS.len()
            ),
        })
    }
}
