//! MMH: the RustCrypto types (which expand level keys lazily, so a clone
//! keeps expanding after it is made), `MacKey`, `Mmh` and the one-shot MAC.

use aes::Aes128Enc;
use cipher::{BlockCipherEncrypt, KeyInit};
use digest::Mac;
use digest::common::KeyIvInit;
use digest::consts::{U16, U32};
use wegman::mmh::{self, Alg, MacKey, block};

use crate::{assert_no_freed_copies, le8, message};

const KEY: [u8; 32] = *b"kp: pads, 16 B.ks: level keys!!!";
const NONCE: [u8; 16] = *b"nonce, 16 bytes.";

/// Short, around 200 KiB and a few MiB: the longest needs 4 to 6 tree
/// levels depending on the algorithm, so a clone made early still opens 3
/// to 5 levels (and expands their keys) after it is made.
const LENGTHS: [usize; 3] = [100, 200 * 1024 + 17, 3 * 1024 * 1024 + 5];
/// Where a message is cloned: before any data (one level's key expanded),
/// then at lengths needing 2, 3, … levels, so that clones are made holding
/// every number of level keys up to the message's.
const CLONE_AT: [usize; 6] = [0, 300, 9_000, 150_000, 1_100_000, 2_000_000];

/// The first `len` bytes of the key-word stream KS = AES_ks(0) || AES_ks(1)
/// || … (spec §2), computed here independently of the library.
fn key_stream<const LEN: usize>() -> [u8; LEN] {
    let ks = Aes128Enc::new(&KEY[16..].try_into().unwrap());
    let mut out = [0u8; LEN];
    for (i, chunk) in out.chunks_exact_mut(16).enumerate() {
        let mut block = (i as u128).to_le_bytes().into();
        ks.encrypt_block(&mut block);
        chunk.copy_from_slice(&block);
    }
    out
}

fn words32<const N: usize>(bytes: &[u8]) -> [u32; N] {
    core::array::from_fn(|i| u32::from_le_bytes(bytes[4 * i..4 * i + 4].try_into().unwrap()))
}

fn words64<const N: usize>(bytes: &[u8]) -> [u64; N] {
    core::array::from_fn(|i| le8(bytes, 8 * i))
}

/// The first 8 bytes of level 1's input for `message()`: the block
/// function of its first blocks under level 0's key (spec §3). They sit in
/// the streaming tree's level-1 buffer for the whole message.
fn level1_input(alg: Alg, ks: &[u8]) -> u64 {
    let m = message(512);
    let lo32 = |w: &[u32]| u64::from(w[0]) | u64::from(w[1]) << 32;
    match alg {
        Alg::Mmh32 | Alg::Nmh32 => {
            let x: [u32; 32] = words32(ks);
            let f = if alg == Alg::Mmh32 { block::mmh32 } else { block::nmh32 };
            lo32(&[f(&x, &words32(&m[..128])), f(&x, &words32(&m[128..256]))])
        }
        Alg::Mmh32x2 => lo32(&block::mmh32_toeplitz::<2>(&words32::<33>(ks), &words32(&m))),
        Alg::Mmh32x3 => lo32(&block::mmh32_toeplitz::<3>(&words32::<34>(ks), &words32(&m))),
        Alg::Mmh32x4 => lo32(&block::mmh32_toeplitz::<4>(&words32::<35>(ks), &words32(&m))),
        Alg::Mmh64 => block::mmh64(&words64(ks), &words64(&m)),
        Alg::Mmh64x2 => block::mmh64_toeplitz::<2>(&words64::<33>(ks), &words64(&m))[0],
    }
}

/// What no freed block may hold for `alg` under [`KEY`] and [`NONCE`].
fn needles(alg: Alg) -> Vec<(&'static str, u64)> {
    let ks = key_stream::<544>();
    let mut pad = NONCE.into();
    Aes128Enc::new(&KEY[..16].try_into().unwrap()).encrypt_block(&mut pad);
    vec![
        // the AES keys themselves (an AES-NI schedule starts with the key)
        ("kp", le8(&KEY, 0)),
        ("ks", le8(&KEY, 16)),
        // level 0's first, middle and last key words, and levels 1 and 2
        // (512 bytes in is level 1 for MMH64, level 2 for the others)
        ("level-0 key words 0..", le8(&ks, 0)),
        ("level-0 key words 64..", le8(&ks, 64)),
        ("level-0 key words 120..", le8(&ks, 120)),
        ("level-1 key words (32-bit)", le8(&ks, 256)),
        ("level-1/2 key words", le8(&ks, 512)),
        ("pad", le8(&pad, 0)),
        ("level-1 input (hash values)", level1_input(alg, &ks)),
    ]
}

/// Feed a message of each of [`LENGTHS`] to a RustCrypto MMH MAC, cloning
/// it at each of [`CLONE_AT`]: one clone finishes the message (and must give
/// the one-shot tag), one is fed a little more and dropped mid-message, one
/// is a clone of a clone.
fn rustcrypto_clones<M: Mac + KeyIvInit<KeySize = U32, IvSize = U16> + Clone>(alg: Alg) {
    for len in LENGTHS {
        let msg = message(len);
        let want = mmh::mac(alg, &KEY, &NONCE, &msg).unwrap();
        let finish = |mut m: M, from: usize| {
            Mac::update(&mut m, &msg[from..]);
            assert_eq!(m.finalize().into_bytes().as_slice(), want.as_bytes(), "{alg} {len}");
        };
        assert_no_freed_copies(&format!("{alg}, {len} bytes"), &needles(alg), || {
            let mut m = <M as KeyIvInit>::new(&KEY.into(), &NONCE.into());
            let mut at = 0;
            for cut in CLONE_AT.into_iter().filter(|&c| c <= len) {
                Mac::update(&mut m, &msg[at..cut]);
                at = cut;
                finish(m.clone(), at);
                let mut dropped = m.clone();
                Mac::update(&mut dropped, &msg[at..len.min(at + 70_000)]);
                drop(dropped);
                #[allow(clippy::redundant_clone)] // the clone of a clone is the point
                finish(m.clone().clone(), at);
            }
            finish(m, at);
        });
    }
}

#[test]
fn mmh32_mac_clones_mid_message_free_no_key_material() {
    rustcrypto_clones::<mmh::Mmh32Mac>(Alg::Mmh32);
}

#[test]
fn mmh32x2_mac_clones_mid_message_free_no_key_material() {
    rustcrypto_clones::<mmh::Mmh32x2Mac>(Alg::Mmh32x2);
}

#[test]
fn mmh32x3_mac_clones_mid_message_free_no_key_material() {
    rustcrypto_clones::<mmh::Mmh32x3Mac>(Alg::Mmh32x3);
}

#[test]
fn mmh32x4_mac_clones_mid_message_free_no_key_material() {
    rustcrypto_clones::<mmh::Mmh32x4Mac>(Alg::Mmh32x4);
}

#[test]
fn nmh32_mac_clones_mid_message_free_no_key_material() {
    rustcrypto_clones::<mmh::Nmh32Mac>(Alg::Nmh32);
}

#[test]
fn mmh64_mac_clones_mid_message_free_no_key_material() {
    rustcrypto_clones::<mmh::Mmh64Mac>(Alg::Mmh64);
}

#[test]
fn mmh64x2_mac_clones_mid_message_free_no_key_material() {
    rustcrypto_clones::<mmh::Mmh64x2Mac>(Alg::Mmh64x2);
}

/// `MacKey` (all 16 levels at once), the borrowed stream `Mmh` cloned
/// mid-message, and the one-shot paths (whole-message and streaming).
#[test]
fn mac_keys_streams_and_one_shots_free_no_key_material() {
    let msg = message(LENGTHS[2]);
    for alg in Alg::ALL {
        let want = mmh::mac(alg, &KEY, &NONCE, &msg).unwrap();
        let short = mmh::mac(alg, &KEY, &NONCE, &msg[..5000]).unwrap();
        assert_no_freed_copies(&format!("{alg}"), &needles(alg), || {
            let key = MacKey::new(alg, &KEY);
            let copy = key.clone();
            let mut s = copy.start(&NONCE);
            let mut at = 0;
            for cut in CLONE_AT {
                s.update(&msg[at..cut]).unwrap();
                at = cut;
                let mut c = s.clone();
                c.update(&msg[at..]).unwrap();
                assert_eq!(c.finalize().unwrap(), want, "{alg}");
                drop(s.clone());
            }
            drop(s);
            drop(copy);
            assert_eq!(key.mac(&NONCE, &msg).unwrap(), want, "{alg}");
            assert_eq!(key.mac(&NONCE, &msg[..5000]).unwrap(), short, "{alg}");
            assert!(key.tree_hash(&msg).is_ok());
            drop(key);
            assert_eq!(mmh::mac(alg, &KEY, &NONCE, &msg).unwrap(), want, "{alg}");
            assert!(mmh::verify(alg, &KEY, short.as_bytes(), &NONCE, &msg[..5000]).is_ok());
        });
    }
}
