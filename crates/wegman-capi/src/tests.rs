//! The exported functions called directly from Rust: NULL pointers, empty
//! messages, bad keys and state misuse. Results are compared with the Rust
//! API of `wegman`, which the vector tests in `tests/` pin to the paper.

use core::ptr::{null, null_mut};

use wegman::poly1305aes::{self, Key, Poly1305};

use crate::*;

/// A valid key (r = 0x0c repeated obeys both §2 restrictions).
const KEY: [u8; 32] = {
    let mut kr = [0x0cu8; 32];
    kr[0] = 0x2b;
    kr
};
const NONCE: [u8; 16] = [0x5a; 16];
/// r[3] = 0x10 breaks §2 (top four bits of r[3] must be clear).
const BAD_KEY: [u8; 32] = {
    let mut kr = KEY;
    kr[16 + 3] = 0x10;
    kr
};
/// Two full blocks and a partial one.
const MSG: &[u8] = b"a message of two blocks and a bit";

fn expected(kr: &[u8; 32], m: &[u8]) -> [u8; 16] {
    poly1305aes::authenticate(&Key::from_bytes_clamped(kr), &NONCE, m)
}

/// Safe wrapper: the one-shot prefixed authenticate on Rust buffers.
fn auth(key: Option<&[u8; 32]>, nonce: Option<&[u8; 16]>, m: *const u8, len: usize) -> (i32, [u8; 16]) {
    let mut out = [0xaa; 16];
    // SAFETY: every pointer is NULL or a live Rust buffer of the right size;
    // callers pass m = NULL or a pointer to at least len bytes.
    let rc = unsafe {
        wegman_poly1305aes_authenticate(
            out.as_mut_ptr(),
            key.map_or(null(), |k| k.as_ptr()),
            nonce.map_or(null(), |n| n.as_ptr()),
            m,
            len,
        )
    };
    (rc, out)
}

#[test]
fn sizes_match_constants() {
    assert_eq!(wegman_poly1305aes_keybytes(), 32);
    assert_eq!(wegman_poly1305aes_noncebytes(), 16);
    assert_eq!(wegman_poly1305aes_bytes(), 16);
    assert_eq!(wegman_poly1305aes_statebytes(), size_of::<Poly1305AesState>());
    assert_eq!(align_of::<Poly1305AesState>(), 64);
}

#[test]
fn empty_message_may_be_null() {
    let want = expected(&KEY, b"");
    let empty = [0u8; 0];
    assert_eq!(auth(Some(&KEY), Some(&NONCE), null(), 0), (0, want));
    assert_eq!(auth(Some(&KEY), Some(&NONCE), empty.as_ptr(), 0), (0, want));

    let mut out = [0xaa; 16];
    // SAFETY: all buffers are live Rust arrays of the declared sizes.
    unsafe {
        assert_eq!(wegman_poly1305aes_verify(want.as_ptr(), KEY.as_ptr(), NONCE.as_ptr(), null(), 0), 0);
        poly1305aes_authenticate(out.as_mut_ptr(), KEY.as_ptr(), NONCE.as_ptr(), null(), 0);
        assert_eq!(out, want);
        assert_eq!(poly1305aes_verify(want.as_ptr(), KEY.as_ptr(), NONCE.as_ptr(), null(), 0), 1);

        let (r, s) = ([0u8; 16], [7u8; 16]);
        assert_eq!(wegman_poly1305(out.as_mut_ptr(), r.as_ptr(), s.as_ptr(), null(), 0), 0);
        assert_eq!(out, s, "Poly1305 of the empty message is s");
    }
}

#[test]
fn null_message_with_length_fails_and_zeroes_output() {
    assert_eq!(auth(Some(&KEY), Some(&NONCE), null(), 1), (-1, [0; 16]));
    let mut out = [0xaa; 16];
    let tag = expected(&KEY, b"x");
    // SAFETY: all non-NULL buffers are live Rust arrays of the declared sizes.
    unsafe {
        assert_eq!(wegman_poly1305aes_verify(tag.as_ptr(), KEY.as_ptr(), NONCE.as_ptr(), null(), 1), -1);
        assert_eq!(wegman_poly1305(out.as_mut_ptr(), [0; 16].as_ptr(), [0; 16].as_ptr(), null(), 5), -1);
        assert_eq!(out, [0; 16]);
        out = [0xaa; 16];
        poly1305aes_authenticate(out.as_mut_ptr(), KEY.as_ptr(), NONCE.as_ptr(), null(), 1);
        assert_eq!(out, [0; 16]);
        assert_eq!(poly1305aes_verify(tag.as_ptr(), KEY.as_ptr(), NONCE.as_ptr(), null(), 1), 0);
    }
}

#[test]
fn impossible_length_is_refused_without_reading() {
    // No C object is longer than isize::MAX bytes; the pointer is never read.
    let one = [0u8; 1];
    assert_eq!(auth(Some(&KEY), Some(&NONCE), one.as_ptr(), usize::MAX), (-1, [0; 16]));
}

#[test]
fn null_required_pointers_fail() {
    assert_eq!(auth(None, Some(&NONCE), MSG.as_ptr(), MSG.len()), (-1, [0; 16]));
    assert_eq!(auth(Some(&KEY), None, MSG.as_ptr(), MSG.len()), (-1, [0; 16]));
    let tag = expected(&KEY, MSG);
    let mut out = [0xaa; 16];
    // SAFETY: all non-NULL buffers are live Rust arrays of the declared sizes.
    unsafe {
        let (k, n, m, len) = (KEY.as_ptr(), NONCE.as_ptr(), MSG.as_ptr(), MSG.len());
        assert_eq!(wegman_poly1305aes_authenticate(null_mut(), k, n, m, len), -1);
        assert_eq!(wegman_poly1305aes_verify(null(), k, n, m, len), -1);
        assert_eq!(wegman_poly1305aes_verify(tag.as_ptr(), null(), n, m, len), -1);
        assert_eq!(wegman_poly1305aes_verify(tag.as_ptr(), k, null(), m, len), -1);
        assert_eq!(wegman_poly1305(null_mut(), [0; 16].as_ptr(), [0; 16].as_ptr(), m, len), -1);
        assert_eq!(wegman_poly1305(out.as_mut_ptr(), null(), [0; 16].as_ptr(), m, len), -1);
        assert_eq!(wegman_poly1305(out.as_mut_ptr(), [0; 16].as_ptr(), null(), m, len), -1);

        // Bernstein's functions cannot report an error: they must not crash,
        // verify must say "invalid", authenticate must not leave a tag behind.
        poly1305aes_clamp(null_mut());
        poly1305aes_authenticate(null_mut(), k, n, m, len as u32);
        poly1305aes_authenticate(out.as_mut_ptr(), null(), n, m, len as u32);
        assert_eq!(out, [0; 16]);
        assert_eq!(poly1305aes_verify(null(), k, n, m, len as u32), 0);
        assert_eq!(poly1305aes_verify(tag.as_ptr(), k, null(), m, len as u32), 0);
        assert_eq!(poly1305aes_verify(tag.as_ptr(), k, n, m, len as u32), 1);
    }
}

#[test]
fn forbidden_r_bits_rejected_by_wegman_api_clamped_by_bernstein_api() {
    assert_eq!(auth(Some(&BAD_KEY), Some(&NONCE), MSG.as_ptr(), MSG.len()), (-1, [0; 16]));
    let clamped_tag = expected(&BAD_KEY, MSG);
    let mut clamped = BAD_KEY;
    let mut out = [0u8; 16];
    // SAFETY: all buffers are live Rust arrays of the declared sizes.
    unsafe {
        let (n, m, len) = (NONCE.as_ptr(), MSG.as_ptr(), MSG.len());
        assert_eq!(wegman_poly1305aes_verify(clamped_tag.as_ptr(), BAD_KEY.as_ptr(), n, m, len), -1);
        poly1305aes_authenticate(out.as_mut_ptr(), BAD_KEY.as_ptr(), n, m, len as u32);
        assert_eq!(out, clamped_tag);
        assert_eq!(poly1305aes_verify(clamped_tag.as_ptr(), BAD_KEY.as_ptr(), n, m, len as u32), 1);
        poly1305aes_clamp(clamped.as_mut_ptr());
        assert_eq!(wegman_poly1305aes_verify(clamped_tag.as_ptr(), clamped.as_ptr(), n, m, len), 0);

        let mut st = Poly1305AesState::new();
        assert_eq!(wegman_poly1305aes_init(&mut st, BAD_KEY.as_ptr(), n), -1);
        assert_eq!(wegman_poly1305aes_update(&mut st, m, len), -1);
        let r: &[u8; 16] = BAD_KEY[16..].try_into().unwrap();
        assert_eq!(wegman_poly1305(out.as_mut_ptr(), r.as_ptr(), [0; 16].as_ptr(), m, len), -1);
        assert_eq!(out, [0; 16]);
    }
    assert_eq!(&clamped[..16], &BAD_KEY[..16], "clamp leaves k alone");
}

#[test]
fn output_may_overlap_message() {
    let mut buf = [0x33u8; 40];
    let want = expected(&KEY, &buf);
    // SAFETY: buf is live for 40 bytes; the function reads m before writing out.
    let rc =
        unsafe { wegman_poly1305aes_authenticate(buf.as_mut_ptr(), KEY.as_ptr(), NONCE.as_ptr(), buf.as_ptr(), 40) };
    assert_eq!((rc, &buf[..16]), (0, &want[..]));
}

#[test]
fn streaming_matches_one_shot_and_wipes() {
    let want = expected(&KEY, MSG);
    let mut st = Poly1305AesState::new();
    let mut out = [0u8; 16];
    // SAFETY: st is a live state; all other buffers are live Rust arrays.
    unsafe {
        assert_eq!(wegman_poly1305aes_init(&mut st, KEY.as_ptr(), NONCE.as_ptr()), 0);
        assert_eq!(wegman_poly1305aes_update(&mut st, null(), 0), 0);
        for piece in MSG.chunks(7) {
            assert_eq!(wegman_poly1305aes_update(&mut st, piece.as_ptr(), piece.len()), 0);
        }
        assert_eq!(wegman_poly1305aes_update(&mut st, null(), 3), -1, "NULL m with len > 0");
        assert_eq!(wegman_poly1305aes_final(&mut st, out.as_mut_ptr()), 0);
    }
    assert_eq!(out, want);
    assert!(st.bytes().iter().all(|&b| b == 0), "final wipes the state");

    // SAFETY: as above.
    unsafe {
        assert_eq!(wegman_poly1305aes_init(&mut st, KEY.as_ptr(), NONCE.as_ptr()), 0);
        assert_eq!(wegman_poly1305aes_update(&mut st, MSG.as_ptr(), MSG.len()), 0);
        assert_eq!(wegman_poly1305aes_final_verify(&mut st, want.as_ptr()), 0);
        assert!(st.bytes().iter().all(|&b| b == 0), "final_verify wipes the state");

        let mut bad = want;
        bad[15] ^= 0x80;
        assert_eq!(wegman_poly1305aes_init(&mut st, KEY.as_ptr(), NONCE.as_ptr()), 0);
        assert_eq!(wegman_poly1305aes_update(&mut st, MSG.as_ptr(), MSG.len()), 0);
        assert_eq!(wegman_poly1305aes_final_verify(&mut st, bad.as_ptr()), -1);
        assert!(st.bytes().iter().all(|&b| b == 0), "a failed final_verify wipes too");
    }
}

#[test]
fn state_misuse_fails_cleanly() {
    let mut st = Poly1305AesState::new();
    let mut out = [0xaa; 16];
    let tag = [0u8; 16];
    // SAFETY: st is a live (zeroed or initialized) state; all other buffers
    // are live Rust arrays of the declared sizes.
    unsafe {
        // Never initialized (zeroed, as C's `= {0}`).
        assert_eq!(wegman_poly1305aes_update(&mut st, MSG.as_ptr(), MSG.len()), -1);
        assert_eq!(wegman_poly1305aes_final(&mut st, out.as_mut_ptr()), -1);
        assert_eq!(out, [0; 16]);
        assert_eq!(wegman_poly1305aes_final_verify(&mut st, tag.as_ptr()), -1);

        // NULL state, NULL key or nonce.
        assert_eq!(wegman_poly1305aes_init(null_mut(), KEY.as_ptr(), NONCE.as_ptr()), -1);
        assert_eq!(wegman_poly1305aes_update(null_mut(), MSG.as_ptr(), MSG.len()), -1);
        assert_eq!(wegman_poly1305aes_final(null_mut(), out.as_mut_ptr()), -1);
        assert_eq!(wegman_poly1305aes_final_verify(null_mut(), tag.as_ptr()), -1);
        assert_eq!(wegman_poly1305aes_init(&mut st, null(), NONCE.as_ptr()), -1);
        assert_eq!(wegman_poly1305aes_init(&mut st, KEY.as_ptr(), null()), -1);

        // A failed init leaves nothing usable behind, even over a live state.
        assert_eq!(wegman_poly1305aes_init(&mut st, KEY.as_ptr(), NONCE.as_ptr()), 0);
        assert_eq!(wegman_poly1305aes_init(&mut st, KEY.as_ptr(), null()), -1);
        assert_eq!(wegman_poly1305aes_update(&mut st, MSG.as_ptr(), MSG.len()), -1);

        // After final: update, a second final and final_verify all fail.
        assert_eq!(wegman_poly1305aes_init(&mut st, KEY.as_ptr(), NONCE.as_ptr()), 0);
        assert_eq!(wegman_poly1305aes_final(&mut st, out.as_mut_ptr()), 0);
        assert_eq!(out, expected(&KEY, b""));
        assert_eq!(wegman_poly1305aes_update(&mut st, MSG.as_ptr(), MSG.len()), -1);
        assert_eq!(wegman_poly1305aes_final(&mut st, out.as_mut_ptr()), -1);
        assert_eq!(wegman_poly1305aes_final_verify(&mut st, tag.as_ptr()), -1);

        // NULL out / tag still consume and wipe the state.
        assert_eq!(wegman_poly1305aes_init(&mut st, KEY.as_ptr(), NONCE.as_ptr()), 0);
        assert_eq!(wegman_poly1305aes_final(&mut st, null_mut()), -1);
        assert!(st.bytes().iter().all(|&b| b == 0));
        assert_eq!(wegman_poly1305aes_init(&mut st, KEY.as_ptr(), NONCE.as_ptr()), 0);
        assert_eq!(wegman_poly1305aes_final_verify(&mut st, null()), -1);
        assert!(st.bytes().iter().all(|&b| b == 0));
    }
}

#[test]
fn misaligned_state_is_refused() {
    // Two states' worth of 64-aligned bytes; a pointer 16 bytes in is what a
    // plain malloc may return.
    let mut two = [Poly1305AesState::new(), Poly1305AesState::new()];
    let misaligned = two.as_mut_ptr().cast::<u8>().wrapping_add(16).cast::<Poly1305AesState>();
    // SAFETY: misaligned points 16 bytes into `two`, so 512 bytes from it are
    // inside the array; the functions refuse it before touching it.
    unsafe {
        assert_eq!(wegman_poly1305aes_init(misaligned, KEY.as_ptr(), NONCE.as_ptr()), -1);
        assert_eq!(wegman_poly1305aes_update(misaligned, MSG.as_ptr(), MSG.len()), -1);
    }
}

#[test]
fn core_matches_rust_poly1305() {
    let (r, s) = ([0x0fu8; 16], [0xf0u8; 16]);
    let mut r_valid = r;
    poly1305aes::clamp(&mut r_valid);
    let mut mac = Poly1305::new(&r_valid, &s).unwrap();
    mac.update(MSG);
    let want = mac.finalize();
    let mut out = [0u8; 16];
    // SAFETY: all buffers are live Rust arrays of the declared sizes.
    let rc = unsafe { wegman_poly1305(out.as_mut_ptr(), r_valid.as_ptr(), s.as_ptr(), MSG.as_ptr(), MSG.len()) };
    assert_eq!((rc, out), (0, want));
}
