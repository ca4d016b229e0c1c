//! CWC-AES on every backend against the big-integer reference model
//! (`wegman_ref::cwc`), streaming against one-shot, the C ABI and the
//! RustCrypto AEAD against both, and modified inputs that must not open.
//!
//! Input: `keysel` (key of 16, 24 or 32 bytes), `tag_len` (mod 16, + 1),
//! `kind`, `at` (u16): the modification; `key[32]` (its first bytes),
//! `nonce[11]`, `aad_len` (u16, cut to what is left), split points (a count
//! byte, then u16 lengths), then the associated data and the plaintext.
//!
//! The reference's `C || T` must come out of, on each backend this CPU has
//! (portable, IFMA): `encrypt`, `encrypt_detached`, and the `Encryptor` fed
//! the fuzzer's pieces; `decrypt`, `decrypt_detached`, and the two-pass
//! `Verifier` / `Decryptor` must give back the plaintext; a `Decryptor`
//! fed a changed ciphertext must fail `finish`. The C ABI's combined and
//! detached functions and, for 16-byte tags, `Cwc<K, U16>` must agree.
//!
//! Then one modification (`kind`): a flipped bit of the ciphertext or tag,
//! of the associated data or of the nonce; the sealed message cut short or
//! extended by a byte; a byte added to or removed from the associated
//! data; another tag length. Every decryption of the modified input must
//! agree with the reference's CWC-DEC, and with a tag of 8 bytes or more
//! must fail (by chance 2^-64 at most), leave the buffer zeroed (no
//! plaintext released), and the C ABI must release nothing (its output untouched or zeroed).
//!
//! Fails on: a CWC-HASH slip (the 96-bit coefficients, the padding between
//! A and the ciphertext, the length block, the reduction mod 2^127 - 1), a
//! counter-mode block off by one, streaming that depends on where the
//! input was cut, a tag check that accepts what it should refuse or that
//! writes plaintext before it refuses.

#![no_main]

use aead::consts::{U16, U24, U32};
use aead::{Aead, KeyInit, Payload};
use libfuzzer_sys::fuzz_target;
use wegman::cpu::Features;
use wegman::cwc::{Cwc, CwcKey};
use wegman::platform::Backends;
use wegman_c::{wegman_cwc_decrypt, wegman_cwc_decrypt_detached, wegman_cwc_encrypt, wegman_cwc_encrypt_detached};
use wegman_fuzz::{Input, flip_bit, levels, pieces};
use wegman_ref::cwc as reference;

/// The label the best backend of `features` must report: what the
/// library's one report of its choices says (`Backends::for_features`; the
/// table of CPU classes in the core's unit tests pins that report).
fn expected(features: Features) -> &'static str {
    Backends::for_features(features).cwc_hash
}

/// One CWC-DEC input: nonce, associated data, `C || T`, tag length.
#[derive(Clone, Debug)]
struct Sealed {
    nonce: [u8; 11],
    aad: Vec<u8>,
    ct: Vec<u8>,
    tl: usize,
}

/// `s` changed in one way, chosen by `kind` and placed by `at`.
fn modify(s: &Sealed, kind: u8, at: usize) -> Sealed {
    let mut m = s.clone();
    match kind % 8 {
        0 => m.ct = flip_bit(&s.ct, at),
        1 if !s.aad.is_empty() => m.aad = flip_bit(&s.aad, at),
        2 => m.nonce = flip_bit(&s.nonce, at).try_into().expect("11 bytes"),
        3 => m.ct.truncate(s.ct.len() - 1 - at % s.ct.len()),
        4 => m.ct.push(at as u8),
        6 if !s.aad.is_empty() => {
            m.aad.pop();
        }
        7 => m.tl = (s.tl + at % 15) % 16 + 1, // any other length
        _ => m.aad.push(at as u8),             // 5, or 1 and 6 with no A
    }
    m
}

/// `Cwc<K, U16>` (the RustCrypto AEAD) encrypting and decrypting.
fn rustcrypto(key: &[u8], nonce: &[u8; 11], aad: &[u8], pt: &[u8], sealed: &[u8]) -> (Vec<u8>, Vec<u8>) {
    fn run<C: KeyInit + Aead>(
        key: &[u8],
        nonce: &[u8; 11],
        aad: &[u8],
        pt: &[u8],
        sealed: &[u8],
    ) -> (Vec<u8>, Vec<u8>) {
        let c = C::new_from_slice(key).expect("key length matches K");
        let n = aead::Nonce::<C>::try_from(&nonce[..]).expect("11 bytes");
        let enc = c.encrypt(&n, Payload { msg: pt, aad }).expect("encrypts");
        let dec = c.decrypt(&n, Payload { msg: sealed, aad }).expect("opens");
        (enc, dec)
    }
    match key.len() {
        16 => run::<Cwc<U16, U16>>(key, nonce, aad, pt, sealed),
        24 => run::<Cwc<U24, U16>>(key, nonce, aad, pt, sealed),
        _ => run::<Cwc<U32, U16>>(key, nonce, aad, pt, sealed),
    }
}

/// The C ABI's combined and detached encryption: `C || T` from each.
fn c_encrypt(key: &[u8], s: &Sealed, pt: &[u8]) -> (Vec<u8>, Vec<u8>) {
    let (mut combined, mut len) = (vec![0u8; pt.len() + s.tl], 0usize);
    let (mut c, mut tag) = (vec![0u8; pt.len()], vec![0u8; s.tl]);
    // SAFETY: every buffer is live for the length passed with it.
    unsafe {
        let rc = wegman_cwc_encrypt(
            combined.as_mut_ptr(),
            &mut len,
            pt.as_ptr(),
            pt.len(),
            s.aad.as_ptr(),
            s.aad.len(),
            s.tl,
            s.nonce.as_ptr(),
            key.as_ptr(),
            key.len(),
        );
        assert_eq!((rc, len), (0, pt.len() + s.tl), "wegman_cwc_encrypt");
        let rc = wegman_cwc_encrypt_detached(
            c.as_mut_ptr(),
            tag.as_mut_ptr(),
            s.tl,
            pt.as_ptr(),
            pt.len(),
            s.aad.as_ptr(),
            s.aad.len(),
            s.nonce.as_ptr(),
            key.as_ptr(),
            key.len(),
        );
        assert_eq!(rc, 0, "wegman_cwc_encrypt_detached");
    }
    c.extend_from_slice(&tag);
    (combined, c)
}

/// The C ABI's combined and detached decryption of `s`: the plaintext or
/// `None`; on failure the output buffers must be untouched.
fn c_decrypt(key: &[u8], s: &Sealed) -> Option<Vec<u8>> {
    let m_len = s.ct.len().checked_sub(s.tl);
    let (mut combined, mut len) = (vec![0xa5u8; m_len.unwrap_or(0)], 7usize);
    // SAFETY: every buffer is live for the length passed with it (with less
    // than a tag there is no plaintext length, and m is never written).
    let rc = unsafe {
        wegman_cwc_decrypt(
            combined.as_mut_ptr(),
            &mut len,
            s.ct.as_ptr(),
            s.ct.len(),
            s.aad.as_ptr(),
            s.aad.len(),
            s.tl,
            s.nonce.as_ptr(),
            key.as_ptr(),
            key.len(),
        )
    };
    let Some(m_len) = m_len else {
        assert_eq!((rc, len), (-1, 0), "wegman_cwc_decrypt of less than a tag");
        return None;
    };
    let mut detached = vec![0x5au8; m_len];
    // SAFETY: as above; the tag is the last tl bytes of the ciphertext.
    let rc_detached = unsafe {
        wegman_cwc_decrypt_detached(
            detached.as_mut_ptr(),
            s.ct.as_ptr(),
            m_len,
            s.ct[m_len..].as_ptr(),
            s.tl,
            s.aad.as_ptr(),
            s.aad.len(),
            s.nonce.as_ptr(),
            key.as_ptr(),
            key.len(),
        )
    };
    assert_eq!(rc, rc_detached, "wegman_cwc_decrypt and _detached disagree");
    if rc != 0 {
        assert_eq!(rc, -1, "wegman_cwc_decrypt");
        assert_eq!(len, 0, "wegman_cwc_decrypt's length on failure");
        // nothing released: untouched (refused before decrypting) or zeroed (a wrong tag)
        assert!(combined.iter().all(|&b| b == 0xa5 || b == 0), "wegman_cwc_decrypt released bytes on failure");
        assert!(detached.iter().all(|&b| b == 0x5a || b == 0), "wegman_cwc_decrypt_detached released bytes on failure");
        return None;
    }
    assert_eq!(len, m_len, "wegman_cwc_decrypt's length");
    assert_eq!(combined, detached, "wegman_cwc_decrypt and _detached disagree");
    Some(combined)
}

/// Every decryption path of `key` on `s`: the plaintext, or `None` if all
/// refused (they must agree). A refusal must leave the buffer zeroed.
fn open(key: &CwcKey, s: &Sealed, parts: &[usize]) -> Option<Vec<u8>> {
    let one_shot = key.decrypt(&s.nonce, &s.aad, &s.ct, s.tl).ok();
    let Some(split) = s.ct.len().checked_sub(s.tl) else {
        assert!(one_shot.is_none(), "opened less than a tag");
        return None;
    };
    let (c, tag) = s.ct.split_at(split);
    let mut buf = c.to_vec();
    let detached = key.decrypt_detached(&s.nonce, &s.aad, &mut buf, tag).ok();
    if detached.is_none() {
        // one pass: a refusal zeroes the buffer, releasing nothing
        assert!(buf.iter().all(|&b| b == 0), "decrypt_detached left bytes in the buffer on failure");
    }
    assert!(key.verify_detached(&s.nonce, &s.aad, c, tag).is_ok() == detached.is_some(), "verify_detached");
    let mut v = key.verifier(&s.nonce, &s.aad, s.tl).expect("tag length 1..=16");
    for p in pieces(c, parts) {
        v.update(p).expect("fits");
    }
    let streamed = match v.verify(tag) {
        Ok(mut d) => {
            let mut out = c.to_vec();
            let mut rest = &mut out[..];
            for &len in parts {
                let (head, tail) = rest.split_at_mut(len.min(rest.len()));
                d.update(head).expect("fits");
                rest = tail;
            }
            d.update(rest).expect("fits");
            d.finish().expect("the same ciphertext in both passes");
            Some(out)
        }
        Err(_) => None,
    };
    assert_eq!(detached.map(|()| buf), one_shot, "decrypt and decrypt_detached disagree");
    assert_eq!(streamed, one_shot, "streaming and one-shot decryption disagree");
    one_shot
}

fuzz_target!(|data: &[u8]| {
    let mut input = Input::new(data);
    let key_len = [16, 24, 32][usize::from(input.byte()) % 3];
    let tl = usize::from(input.byte()) % 16 + 1;
    let (kind, at) = (input.byte(), usize::from(input.u16()));
    let key_bytes = input.array::<32>();
    let k = &key_bytes[..key_len];
    let nonce = input.array::<11>();
    let aad_len = usize::from(input.u16());
    let splits = input.splits();
    let rest = input.rest();
    let (aad, pt) = rest.split_at(aad_len.min(rest.len()));

    let want = reference::encrypt(k, &nonce, aad, pt, tl);
    let sealed = Sealed { nonce, aad: aad.to_vec(), ct: want.clone(), tl };
    let changed = modify(&sealed, kind, at);
    let want_changed = reference::decrypt(k, &changed.nonce, &changed.aad, &changed.ct, changed.tl);
    if changed.tl >= 8 {
        assert!(want_changed.is_none(), "the reference opened a modified input: {changed:?}");
    }

    for features in levels() {
        let key = CwcKey::with_features(k, features).expect("16, 24 or 32 bytes");
        let label = expected(features);
        assert_eq!(key.platform().name(), label);
        assert_eq!(key.encrypt(&nonce, aad, pt, tl).expect("fits"), want, "encrypt on {label:?}");
        let mut buf = pt.to_vec();
        let tag = key.encrypt_detached(&nonce, aad, &mut buf, tl).expect("fits");
        buf.extend_from_slice(tag.as_slice());
        assert_eq!(buf, want, "encrypt_detached on {label:?}");
        let mut buf = pt.to_vec();
        let mut enc = key.encryptor(&nonce, aad, tl).expect("fits");
        let mut rest = &mut buf[..];
        for &len in &splits {
            let (head, tail) = rest.split_at_mut(len.min(rest.len()));
            enc.update(head).expect("fits");
            rest = tail;
        }
        enc.update(rest).expect("fits");
        buf.extend_from_slice(enc.finalize().as_slice());
        assert_eq!(buf, want, "Encryptor on {label:?}");

        assert_eq!(open(&key, &sealed, &splits).as_deref(), Some(pt), "decryption on {label:?}");
        if !pt.is_empty() {
            // The second pass sees another ciphertext than the first verified.
            let c = &want[..pt.len()];
            let mut v = key.verifier(&nonce, aad, tl).expect("fits");
            v.update(c).expect("fits");
            let mut d = v.verify(&want[pt.len()..]).expect("the genuine tag");
            let mut other = flip_bit(c, at);
            d.update(&mut other).expect("fits");
            assert!(d.finish().is_err(), "Decryptor::finish missed a changed ciphertext on {label:?}");
        }

        let got = open(&key, &changed, &splits);
        assert_eq!(got, want_changed, "a modified input on {label:?}: {changed:?}");
    }

    let (combined, detached) = c_encrypt(k, &sealed, pt);
    assert_eq!(combined, want, "wegman_cwc_encrypt");
    assert_eq!(detached, want, "wegman_cwc_encrypt_detached");
    assert_eq!(c_decrypt(k, &sealed).as_deref(), Some(pt), "wegman_cwc_decrypt");
    assert_eq!(c_decrypt(k, &changed), want_changed, "wegman_cwc_decrypt of a modified input: {changed:?}");
    if tl == 16 {
        let (enc, dec) = rustcrypto(k, &nonce, aad, pt, &want);
        assert_eq!((enc.as_slice(), dec.as_slice()), (&want[..], pt), "Cwc<K, U16>");
    }
});
