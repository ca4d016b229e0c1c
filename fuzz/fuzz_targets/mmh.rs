//! Every MMH/NMH algorithm on every backend against the big-integer
//! reference model (`wegman_ref::mmh`), and the C ABI against both.
//!
//! Input: `alg` (mod 7, `Alg::ALL`'s order), `repeat`, `flip`, `key[32]`,
//! `nonce[16]`, split points (a count byte, then u16 lengths), then the
//! message: the rest of the input repeated to `288 * repeat` more bytes
//! (up to ~76 KiB: past `WHOLE_MAX`, 64 KiB, where the one-shot paths
//! switch to the streaming tree, and into a fifth tree level for `mmh32x4`,
//! a fourth for `mmh32x2`, `mmh32x3` and `mmh64x2`).
//!
//! The reference's tag must come out of: the one-shot `mmh::mac` (its
//! short-message AES-NI path, the whole-message path, the lazily expanded
//! streaming one); the RustCrypto `digest::Mac` type of the algorithm fed
//! the fuzzer's pieces (level keys expanded as the length grows);
//! `wegman_<alg>` of the C ABI; and on each backend this CPU has,
//! `MacKey::mac` and `MacKey::start` fed the pieces. Up to 4 KiB, also:
//! the tree hash alone equals the reference's, `mac_many` over two items
//! gives each item's tag, and every verify (Rust, C, `verify_many`)
//! accepts the tag and refuses it with bit `flip` flipped or a byte short.
//!
//! Fails on: an arithmetic slip in a block function (the mod 2^64 sum, the
//! reduction mod 2^32 + 15 or 2^64 + 13), a Toeplitz shift off by a word,
//! the tree's padding or level hand-over (a level opening one block too
//! early or late, or at a piece boundary), a level key expanded from the
//! wrong stream offset, a verify that accepts a wrong tag.

#![no_main]

use digest::Mac;
use digest::common::KeyIvInit;
use libfuzzer_sys::fuzz_target;
use wegman::cpu::Features;
use wegman::mmh::{
    self, Alg, Item, MacKey, Mmh32Mac, Mmh32x2Mac, Mmh32x3Mac, Mmh32x4Mac, Mmh64Mac, Mmh64x2Mac, Nmh32Mac,
};
use wegman::platform::Backends;
use wegman_fuzz::{Input, cycled, flip_bit, levels, pieces};
use wegman_ref::mmh as reference;

/// The label a key of `alg` must report on `features`: what the library's
/// one report of its choices says (`Backends::for_features`; the table of
/// CPU classes in the core's unit tests pins that report).
fn expected(alg: Alg, features: Features) -> &'static str {
    let b = Backends::for_features(features);
    if alg.word_bytes() == 4 { b.mmh32 } else { b.mmh64 }
}

/// The tag of the RustCrypto type `M` fed `parts`.
fn digest_mac<M: Mac + KeyIvInit>(key: &[u8; 32], nonce: &[u8; 16], parts: &[&[u8]]) -> Vec<u8> {
    let mut m = <M as KeyIvInit>::new_from_slices(key, nonce).expect("32-byte key, 16-byte nonce");
    parts.iter().for_each(|p| Mac::update(&mut m, p));
    m.finalize().into_bytes().to_vec()
}

fn digest_any(alg: Alg, key: &[u8; 32], nonce: &[u8; 16], parts: &[&[u8]]) -> Vec<u8> {
    match alg {
        Alg::Mmh32 => digest_mac::<Mmh32Mac>(key, nonce, parts),
        Alg::Mmh32x2 => digest_mac::<Mmh32x2Mac>(key, nonce, parts),
        Alg::Mmh32x3 => digest_mac::<Mmh32x3Mac>(key, nonce, parts),
        Alg::Mmh32x4 => digest_mac::<Mmh32x4Mac>(key, nonce, parts),
        Alg::Nmh32 => digest_mac::<Nmh32Mac>(key, nonce, parts),
        Alg::Mmh64 => digest_mac::<Mmh64Mac>(key, nonce, parts),
        Alg::Mmh64x2 => digest_mac::<Mmh64x2Mac>(key, nonce, parts),
    }
}

type CMac = unsafe extern "C" fn(*mut u8, *const u8, *const u8, *const u8, usize) -> i32;
type CVerify = unsafe extern "C" fn(*const u8, *const u8, *const u8, *const u8, usize) -> i32;

/// The C ABI's MAC and verify functions of `alg`.
fn c_api(alg: Alg) -> (CMac, CVerify) {
    use wegman_c::*;
    match alg {
        Alg::Mmh32 => (wegman_mmh32, wegman_mmh32_verify),
        Alg::Mmh32x2 => (wegman_mmh32x2, wegman_mmh32x2_verify),
        Alg::Mmh32x3 => (wegman_mmh32x3, wegman_mmh32x3_verify),
        Alg::Mmh32x4 => (wegman_mmh32x4, wegman_mmh32x4_verify),
        Alg::Nmh32 => (wegman_nmh32, wegman_nmh32_verify),
        Alg::Mmh64 => (wegman_mmh64, wegman_mmh64_verify),
        Alg::Mmh64x2 => (wegman_mmh64x2, wegman_mmh64x2_verify),
    }
}

/// Two items: `m`, and its first half under the next nonce.
fn batch(mk: &MacKey, nonce: &[u8; 16], m: &[u8], want: &[u8], bad: &[u8], label: &str) {
    let alg = mk.alg();
    let mut n2 = *nonce;
    n2[0] ^= 1;
    let half = &m[..m.len() / 2];
    let items = [Item { key: mk, nonce, message: m }, Item { key: mk, nonce: &n2, message: half }];
    let half_tag = mk.mac(&n2, half).expect("fits");
    let mut tags = [half_tag; 2];
    mmh::mac_many(&items, &mut tags).expect("fits");
    assert_eq!((tags[0].as_bytes(), tags[1]), (want, half_tag), "{alg} mac_many on {label:?}");
    let mut ok = [false; 2];
    assert_eq!(mmh::verify_many(&items, &[bad, tags[1].as_bytes()], &mut ok), Ok(false));
    assert_eq!(ok, [false, true], "{alg} verify_many on {label:?}");
}

/// Messages up to this long get every check; longer ones skip those that
/// only recompute the same MAC to compare it otherwise (verify, batches)
/// and the reference's tree hash, which would double the reference's cost,
/// most of a long message's run.
const CHEAP: usize = 4096;

fuzz_target!(|data: &[u8]| {
    let mut input = Input::new(data);
    let alg = Alg::ALL[usize::from(input.byte()) % Alg::ALL.len()];
    let (repeat, flip) = (input.byte(), usize::from(input.byte()));
    let (key, nonce) = (input.array::<32>(), input.array::<16>());
    let splits = input.splits();
    let tail = input.rest();
    let m = cycled(tail, tail.len() + 288 * usize::from(repeat));
    let m = &m[..];
    let cheap = m.len() <= CHEAP;

    let want = reference::mac(alg.name(), &key, &nonce, m).expect("far below 16 levels");
    let bad = flip_bit(&want, flip);
    let short = &want[..want.len() - 1];
    assert_eq!(mmh::mac(alg, &key, &nonce, m).expect("fits").as_bytes(), want, "{alg} mmh::mac");
    let parts = pieces(m, &splits);
    assert_eq!(digest_any(alg, &key, &nonce, &parts), want, "{alg} digest::Mac");
    let (c_mac, c_verify) = c_api(alg);
    let mut out = vec![0xa5u8; alg.tag_bytes()];
    // SAFETY: out has the tag's length, key 32 bytes, nonce 16, m m.len().
    unsafe {
        assert_eq!(c_mac(out.as_mut_ptr(), key.as_ptr(), nonce.as_ptr(), m.as_ptr(), m.len()), 0, "{alg} C mac");
        assert_eq!(out, want, "{alg} C mac");
    }
    if cheap {
        assert!(mmh::verify(alg, &key, &want, &nonce, m).is_ok(), "{alg} mmh::verify refused the tag");
        assert!(mmh::verify(alg, &key, &bad, &nonce, m).is_err(), "{alg} mmh::verify accepted a wrong tag");
        assert!(mmh::verify(alg, &key, short, &nonce, m).is_err(), "{alg} mmh::verify accepted a short tag");
        // SAFETY: tags of the tag's length, key 32 bytes, nonce 16, m m.len().
        unsafe {
            assert_eq!(c_verify(want.as_ptr(), key.as_ptr(), nonce.as_ptr(), m.as_ptr(), m.len()), 0, "{alg} C verify");
            let rc = c_verify(bad.as_ptr(), key.as_ptr(), nonce.as_ptr(), m.as_ptr(), m.len());
            assert_eq!(rc, -1, "{alg} C verify accepted a wrong tag");
        }
    }
    let ks: [u8; 16] = key[16..].try_into().expect("16 bytes");
    let tree = cheap.then(|| reference::tree_hash(alg.name(), &ks, m).expect("far below 16 levels"));

    for features in levels() {
        let label = expected(alg, features);
        let mk = MacKey::with_features(alg, &key, features);
        assert_eq!(mk.platform().name(), label, "{alg}");
        assert_eq!(mk.mac(&nonce, m).expect("fits").as_bytes(), want, "{alg} MacKey::mac on {label:?}");
        let mut st = mk.start(&nonce);
        for p in &parts {
            st.update(p).expect("fits");
        }
        assert!(st.clone().verify(&bad).is_err(), "{alg} Mmh::verify accepted a wrong tag on {label:?}");
        assert_eq!(st.finalize().expect("fits").as_bytes(), want, "{alg} streaming on {label:?}");
        if let Some(tree) = &tree {
            assert_eq!(mk.tree_hash(m).expect("fits").as_bytes(), tree, "{alg} tree hash on {label:?}");
            assert!(mk.verify(&want, &nonce, m).is_ok(), "{alg} MacKey::verify refused the tag on {label:?}");
            assert!(mk.verify(&bad, &nonce, m).is_err(), "{alg} MacKey::verify accepted a wrong tag on {label:?}");
            assert!(mk.verify(short, &nonce, m).is_err(), "{alg} MacKey::verify accepted a short tag on {label:?}");
            batch(&mk, &nonce, m, &want, &bad, label);
        }
    }
});
