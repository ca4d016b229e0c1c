//! The Poly1305-AES C ABI (`wegman-capi`, called through its rlib exactly
//! as C calls it) against the Rust API and the reference model.
//!
//! Input: as the `poly1305aes` target's ([`wegman_fuzz::PolyCase`]), so
//! the two share seeds; `flags & 2` passes the tag's buffer as the
//! message's first 16 bytes (`out` overlapping `m`, which the header
//! allows).
//!
//! Checks: `poly1305aes_clamp` clears exactly what `clamp` does and leaves
//! k alone; `poly1305aes_authenticate` / `_verify` (Bernstein's: an
//! unclamped key is clamped) give the reference's tag of the clamped key
//! and accept it, refusing it with bit `flip` flipped; the `wegman_*`
//! one-shot, core (`wegman_poly1305`) and streaming (`init`, `update` per
//! piece, `final` / `final_verify`) functions give the Rust API's tag for a
//! valid r and, for a forbidden r, -1 with zeros written (never a tag);
//! `final` wipes the state, so a second `final` fails.
//!
//! Fails on: a pointer or length mix-up at the boundary, an overlap of
//! `out` with `m` that changes the message before it is read, a wrong
//! return code, a state that keeps working after `final`, or any panic
//! (the guards would turn one into -1; the fuzzer's panic hook aborts
//! first).

#![no_main]

use libfuzzer_sys::fuzz_target;
use wegman::poly1305aes::{Key, Poly1305, Poly1305Aes, authenticate, clamp};
use wegman_c::{
    Poly1305AesState, poly1305aes_authenticate, poly1305aes_clamp, poly1305aes_verify, wegman_poly1305,
    wegman_poly1305aes_authenticate, wegman_poly1305aes_final, wegman_poly1305aes_final_verify,
    wegman_poly1305aes_init, wegman_poly1305aes_update, wegman_poly1305aes_verify,
};
use wegman_fuzz::{PolyCase, flip_bit, pieces};
use wegman_ref::poly1305aes as reference;

/// `wegman_poly1305aes_init`, `_update` per piece, then `_final` (and a
/// second `_final`, which must fail on the wiped state): the tag, or `None`
/// and zeros if init refused the key.
fn c_stream(kr: &[u8; 32], nonce: &[u8; 16], parts: &[&[u8]]) -> Option<[u8; 16]> {
    let mut st = Box::new(Poly1305AesState::new());
    // SAFETY: st is a live, aligned state; kr and nonce have 32 and 16 bytes.
    if unsafe { wegman_poly1305aes_init(&mut *st, kr.as_ptr(), nonce.as_ptr()) } != 0 {
        // SAFETY: as above; a state whose init failed must refuse update.
        assert_eq!(unsafe { wegman_poly1305aes_update(&mut *st, [0u8].as_ptr(), 1) }, -1, "update after failed init");
        return None;
    }
    for p in parts {
        // SAFETY: p is a live slice of p.len() bytes outside *st.
        assert_eq!(unsafe { wegman_poly1305aes_update(&mut *st, p.as_ptr(), p.len()) }, 0, "update");
    }
    let mut out = [0xa5u8; 16];
    // SAFETY: out has 16 writable bytes.
    assert_eq!(unsafe { wegman_poly1305aes_final(&mut *st, out.as_mut_ptr()) }, 0, "final");
    let mut again = [0xa5u8; 16];
    // SAFETY: as above; the state was wiped by the first final.
    assert_eq!(unsafe { wegman_poly1305aes_final(&mut *st, again.as_mut_ptr()) }, -1, "second final");
    assert_eq!(again, [0; 16], "a failed final writes zeros");
    Some(out)
}

/// `_init`, `_update` per piece, `_final_verify(tag)`: whether it accepted.
fn c_stream_verify(kr: &[u8; 32], nonce: &[u8; 16], parts: &[&[u8]], tag: &[u8; 16]) -> bool {
    let mut st = Box::new(Poly1305AesState::new());
    // SAFETY: st is a live, aligned state; kr, nonce and tag have 32, 16
    // and 16 bytes; every piece is a live slice.
    unsafe {
        if wegman_poly1305aes_init(&mut *st, kr.as_ptr(), nonce.as_ptr()) != 0 {
            return false;
        }
        for p in parts {
            assert_eq!(wegman_poly1305aes_update(&mut *st, p.as_ptr(), p.len()), 0, "update");
        }
        wegman_poly1305aes_final_verify(&mut *st, tag.as_ptr()) == 0
    }
}

fuzz_target!(|data: &[u8]| {
    let case = PolyCase::read(data);
    let kr = case.kr();
    let PolyCase { flags, flip, k, r: r_in, nonce, splits, message: m } = case;
    let len = u32::try_from(m.len()).expect("at most 2 KiB + 64 bytes");
    let mut c_clamped = kr;
    // SAFETY: 32 writable bytes.
    unsafe { poly1305aes_clamp(c_clamped.as_mut_ptr()) };
    let mut r = r_in;
    clamp(&mut r);
    assert_eq!(&c_clamped[..16], &k, "poly1305aes_clamp changed k");
    assert_eq!(&c_clamped[16..], &r, "poly1305aes_clamp");
    let valid = r == r_in;

    // Bernstein's interface: the key as clamped.
    let want = reference::poly1305aes(&k, &r, &nonce, &m);
    let bad: [u8; 16] = flip_bit(&want, flip).try_into().expect("16 bytes");
    let mut out = [0u8; 16];
    // SAFETY: every pointer is valid for its length (m for len bytes).
    unsafe { poly1305aes_authenticate(out.as_mut_ptr(), kr.as_ptr(), nonce.as_ptr(), m.as_ptr(), len) };
    assert_eq!(out, want, "poly1305aes_authenticate");
    if flags & 2 != 0 && m.len() >= 16 {
        // `out` is the message's first 16 bytes: the tag of the message as
        // it was before the call.
        let mut buf = m.clone();
        let p = buf.as_mut_ptr();
        // SAFETY: p is valid for len bytes; out = p overlaps m, as allowed.
        unsafe { poly1305aes_authenticate(p, kr.as_ptr(), nonce.as_ptr(), p, len) };
        assert_eq!(buf[..16], want, "poly1305aes_authenticate with out inside m");
        assert_eq!(buf[16..], m[16..], "poly1305aes_authenticate wrote past out");
    }
    // SAFETY: as above.
    unsafe {
        assert_eq!(poly1305aes_verify(want.as_ptr(), kr.as_ptr(), nonce.as_ptr(), m.as_ptr(), len), 1, "verify");
        assert_eq!(poly1305aes_verify(bad.as_ptr(), kr.as_ptr(), nonce.as_ptr(), m.as_ptr(), len), 0, "verify bad");
    }

    // The wegman_* interface: a forbidden r is refused, never clamped.
    let rust = Key::from_bytes(&kr).ok().map(|key| authenticate(&key, &nonce, &m));
    assert_eq!(rust.is_some(), valid, "Key::from_bytes");
    if let Some(t) = rust {
        assert_eq!(t, want, "Rust authenticate");
    }
    let mut out = [0xa5u8; 16];
    // SAFETY: every pointer is valid for its length.
    let rc =
        unsafe { wegman_poly1305aes_authenticate(out.as_mut_ptr(), kr.as_ptr(), nonce.as_ptr(), m.as_ptr(), m.len()) };
    assert_eq!((rc, out), rust.map_or((-1, [0; 16]), |t| (0, t)), "wegman_poly1305aes_authenticate");
    // SAFETY: every pointer is valid for its length.
    unsafe {
        let ok = wegman_poly1305aes_verify(want.as_ptr(), kr.as_ptr(), nonce.as_ptr(), m.as_ptr(), m.len());
        assert_eq!(ok, if valid { 0 } else { -1 }, "wegman_poly1305aes_verify");
        let ok = wegman_poly1305aes_verify(bad.as_ptr(), kr.as_ptr(), nonce.as_ptr(), m.as_ptr(), m.len());
        assert_eq!(ok, -1, "wegman_poly1305aes_verify accepted a wrong tag");
    }

    // The core with any pad s (here AES_k(n)): r refused unless valid.
    let s = reference::aes128(&k, &nonce);
    let core = Poly1305::new(&r_in, &s).ok().map(|mut p| {
        p.update(&m);
        p.finalize()
    });
    assert_eq!(core.is_some(), valid, "Poly1305::new");
    let mut out = [0xa5u8; 16];
    // SAFETY: every pointer is valid for its length.
    let rc = unsafe { wegman_poly1305(out.as_mut_ptr(), r_in.as_ptr(), s.as_ptr(), m.as_ptr(), m.len()) };
    assert_eq!((rc, out), core.map_or((-1, [0; 16]), |t| (0, t)), "wegman_poly1305");

    // Streaming, cut where the fuzzer says.
    let parts = pieces(&m, &splits);
    let rust_stream = Key::from_bytes(&kr).ok().map(|key| {
        let mut mac = Poly1305Aes::new(&key, &nonce);
        parts.iter().for_each(|p| mac.update(p));
        mac.finalize()
    });
    assert_eq!(c_stream(&kr, &nonce, &parts), rust_stream, "wegman_poly1305aes_init/update/final");
    assert_eq!(c_stream_verify(&kr, &nonce, &parts, &want), valid, "final_verify of the right tag");
    assert!(!c_stream_verify(&kr, &nonce, &parts, &bad), "final_verify accepted a wrong tag");
});
