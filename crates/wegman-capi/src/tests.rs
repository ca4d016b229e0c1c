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

// ---------------------------------------------------------------------------
// The MMH family.

mod mmh {
    use core::ptr::{null, null_mut};

    use wegman::mmh::{self, Alg};

    use crate::*;

    type MacFn = unsafe extern "C" fn(*mut u8, *const u8, *const u8, *const u8, usize) -> i32;
    type VerifyFn = unsafe extern "C" fn(*const u8, *const u8, *const u8, *const u8, usize) -> i32;

    /// Every algorithm with its C functions.
    const ALGS: [(Alg, MacFn, VerifyFn, extern "C" fn() -> usize); 7] = [
        (Alg::Mmh32, wegman_mmh32, wegman_mmh32_verify, wegman_mmh32_bytes),
        (Alg::Mmh32x2, wegman_mmh32x2, wegman_mmh32x2_verify, wegman_mmh32x2_bytes),
        (Alg::Mmh32x3, wegman_mmh32x3, wegman_mmh32x3_verify, wegman_mmh32x3_bytes),
        (Alg::Mmh32x4, wegman_mmh32x4, wegman_mmh32x4_verify, wegman_mmh32x4_bytes),
        (Alg::Nmh32, wegman_nmh32, wegman_nmh32_verify, wegman_nmh32_bytes),
        (Alg::Mmh64, wegman_mmh64, wegman_mmh64_verify, wegman_mmh64_bytes),
        (Alg::Mmh64x2, wegman_mmh64x2, wegman_mmh64x2_verify, wegman_mmh64x2_bytes),
    ];
    const KEY: [u8; 32] = [0x3c; 32];
    const NONCE: [u8; 16] = [0x96; 16];
    /// More than one 256-byte block, so that the tree has two levels.
    const MSG: [u8; 300] = [0x42; 300];

    fn expected(alg: Alg, m: &[u8]) -> Vec<u8> {
        mmh::mac(alg, &KEY, &NONCE, m).unwrap().as_bytes().to_vec()
    }

    #[test]
    fn sizes_match_the_library() {
        for (alg, .., bytes) in ALGS {
            assert_eq!(bytes(), alg.tag_bytes(), "{alg}");
        }
        let keybytes = [
            wegman_mmh32_keybytes,
            wegman_mmh32x2_keybytes,
            wegman_mmh32x3_keybytes,
            wegman_mmh32x4_keybytes,
            wegman_nmh32_keybytes,
            wegman_mmh64_keybytes,
            wegman_mmh64x2_keybytes,
        ];
        let noncebytes = [
            wegman_mmh32_noncebytes,
            wegman_mmh32x2_noncebytes,
            wegman_mmh32x3_noncebytes,
            wegman_mmh32x4_noncebytes,
            wegman_nmh32_noncebytes,
            wegman_mmh64_noncebytes,
            wegman_mmh64x2_noncebytes,
        ];
        assert!(keybytes.iter().all(|f| f() == mmh::KEY_BYTES));
        assert!(noncebytes.iter().all(|f| f() == mmh::NONCE_BYTES));
    }

    #[test]
    fn tags_match_the_rust_api_and_verify() {
        for (alg, mac, verify, _) in ALGS {
            let want = expected(alg, &MSG);
            let n = want.len();
            let mut out = [0xaau8; 17];
            // SAFETY: every buffer is a live Rust array at least as long as
            // the function reads or writes (out: 17 >= n).
            unsafe {
                assert_eq!(mac(out.as_mut_ptr(), KEY.as_ptr(), NONCE.as_ptr(), MSG.as_ptr(), MSG.len()), 0);
                assert_eq!(&out[..n], &want[..], "{alg}");
                assert!(out[n..].iter().all(|&b| b == 0xaa), "{alg}: wrote past the tag");
                assert_eq!(verify(want.as_ptr(), KEY.as_ptr(), NONCE.as_ptr(), MSG.as_ptr(), MSG.len()), 0);
                let mut bad = want.clone();
                bad[n - 1] ^= 0x80;
                assert_eq!(verify(bad.as_ptr(), KEY.as_ptr(), NONCE.as_ptr(), MSG.as_ptr(), MSG.len()), -1);
                assert_eq!(verify(want.as_ptr(), KEY.as_ptr(), NONCE.as_ptr(), MSG.as_ptr(), MSG.len() - 1), -1);
            }
        }
    }

    #[test]
    fn empty_message_may_be_null() {
        for (alg, mac, verify, _) in ALGS {
            let want = expected(alg, b"");
            let mut out = [0u8; 16];
            // SAFETY: all non-NULL buffers are live Rust arrays of the declared sizes.
            unsafe {
                assert_eq!(mac(out.as_mut_ptr(), KEY.as_ptr(), NONCE.as_ptr(), null(), 0), 0);
                assert_eq!(&out[..want.len()], &want[..], "{alg}");
                assert_eq!(verify(want.as_ptr(), KEY.as_ptr(), NONCE.as_ptr(), null(), 0), 0, "{alg}");
            }
        }
    }

    #[test]
    fn null_pointers_fail_and_zero_the_tag() {
        for (alg, mac, verify, _) in ALGS {
            let n = alg.tag_bytes();
            let want = expected(alg, &MSG);
            let (k, nc, m, len) = (KEY.as_ptr(), NONCE.as_ptr(), MSG.as_ptr(), MSG.len());
            let run = |key: *const u8, nonce: *const u8, m: *const u8| {
                let mut out = [0xaau8; 17];
                // SAFETY: non-NULL pointers are live Rust buffers of the
                // declared sizes (m: MSG, len bytes); out has room for n.
                let rc = unsafe { mac(out.as_mut_ptr(), key, nonce, m, len) };
                (rc, out)
            };
            for (rc, out) in [run(null(), nc, m), run(k, null(), m), run(k, nc, null())] {
                assert_eq!(rc, -1, "{alg}");
                assert!(out[..n].iter().all(|&b| b == 0), "{alg}: tag zeroed");
                assert!(out[n..].iter().all(|&b| b == 0xaa), "{alg}: nothing past the tag");
            }
            // SAFETY: as above; a NULL pointer is never dereferenced.
            unsafe {
                assert_eq!(mac(null_mut(), k, nc, m, len), -1);
                assert_eq!(verify(null(), k, nc, m, len), -1);
                assert_eq!(verify(want.as_ptr(), null(), nc, m, len), -1);
                assert_eq!(verify(want.as_ptr(), k, null(), m, len), -1);
                assert_eq!(verify(want.as_ptr(), k, nc, null(), len), -1);
            }
        }
    }

    #[test]
    fn impossible_length_is_refused_without_reading() {
        let one = [0u8; 1];
        for (alg, mac, verify, _) in ALGS {
            let mut out = [0xaau8; 16];
            // SAFETY: the length is refused before m is read.
            unsafe {
                assert_eq!(mac(out.as_mut_ptr(), KEY.as_ptr(), NONCE.as_ptr(), one.as_ptr(), usize::MAX), -1);
                assert!(out[..alg.tag_bytes()].iter().all(|&b| b == 0));
                assert_eq!(verify(out.as_ptr(), KEY.as_ptr(), NONCE.as_ptr(), one.as_ptr(), usize::MAX), -1);
            }
        }
    }

    #[test]
    fn tag_may_overwrite_the_message() {
        for (alg, mac, ..) in ALGS {
            let mut buf = MSG;
            let want = expected(alg, &MSG);
            // SAFETY: buf is live for its length; m is read before out is written.
            let rc = unsafe { mac(buf.as_mut_ptr(), KEY.as_ptr(), NONCE.as_ptr(), buf.as_ptr(), buf.len()) };
            assert_eq!((rc, &buf[..want.len()]), (0, &want[..]), "{alg}");
            assert_eq!(&buf[want.len()..], &MSG[want.len()..]);
        }
    }
}

// ---------------------------------------------------------------------------
// CWC-AES.

mod cwc {
    use core::ptr::{null, null_mut};

    use wegman::cwc::{CwcKey, MAX_BYTES};

    use crate::*;

    const KEY: [u8; 32] = [0x17; 32];
    const NONCE: [u8; 11] = [0xa5; 11];
    const AD: &[u8] = b"associated data";
    /// Two blocks and a partial one.
    const MSG: &[u8] = b"a message of two blocks and a bit";
    const CANARY: u8 = 0xc5;

    fn sealed(key_len: usize, tag_len: usize, m: &[u8]) -> Vec<u8> {
        CwcKey::new(&KEY[..key_len]).unwrap().encrypt(&NONCE, AD, m, tag_len).unwrap()
    }

    /// `wegman_cwc_encrypt_detached` on Rust buffers (`None` = NULL).
    fn enc(
        m: Option<&[u8]>,
        m_len: usize,
        tag_len: usize,
        key: Option<&[u8]>,
        nonce: Option<&[u8; 11]>,
        ad: Option<&[u8]>,
    ) -> (i32, Vec<u8>, [u8; 16]) {
        let mut c = vec![CANARY; m_len.min(1 << 16)];
        let mut tag = [CANARY; 16];
        let ptr = |s: Option<&[u8]>| s.map_or(null(), <[u8]>::as_ptr);
        // SAFETY: non-NULL pointers are live Rust buffers; callers pass
        // lengths within them, or lengths the function refuses before
        // reading (checked by the tests that use them).
        let rc = unsafe {
            wegman_cwc_encrypt_detached(
                if c.is_empty() { null_mut() } else { c.as_mut_ptr() },
                tag.as_mut_ptr(),
                tag_len,
                ptr(m),
                m_len,
                ptr(ad),
                ad.map_or(0, <[u8]>::len),
                nonce.map_or(null(), |n| n.as_ptr()),
                ptr(key),
                key.map_or(0, <[u8]>::len),
            )
        };
        (rc, c, tag)
    }

    #[test]
    fn sizes_match_the_library() {
        assert_eq!(wegman_cwc_noncebytes(), wegman::cwc::NONCE_BYTES);
        assert_eq!(wegman_cwc_abytes(), wegman::cwc::TAG_BYTES);
        assert_eq!((wegman_cwc_keybytes_min(), wegman_cwc_keybytes_max()), (16, 32));
        assert_eq!(wegman_cwc_messagebytes_max(), MAX_BYTES);
        assert_eq!(wegman_cwc_messagebytes_max(), 68_719_476_720);
    }

    #[test]
    fn all_key_and_tag_lengths_match_the_rust_api() {
        for key_len in [16, 24, 32] {
            for tag_len in 1..=16 {
                let want = sealed(key_len, tag_len, MSG);
                let (ct, tag) = want.split_at(MSG.len());
                let (rc, c, t) = enc(Some(MSG), MSG.len(), tag_len, Some(&KEY[..key_len]), Some(&NONCE), Some(AD));
                assert_eq!((rc, &c[..], &t[..tag_len]), (0, ct, tag), "key {key_len}, tag {tag_len}");
                assert!(t[tag_len..].iter().all(|&b| b == CANARY), "nothing past the tag");

                let mut out = vec![CANARY; MSG.len()];
                let mut out_len = 0;
                // SAFETY: all buffers are live Rust buffers of the stated lengths.
                unsafe {
                    let k = KEY.as_ptr();
                    let rc = wegman_cwc_decrypt_detached(
                        out.as_mut_ptr(),
                        ct.as_ptr(),
                        ct.len(),
                        tag.as_ptr(),
                        tag_len,
                        AD.as_ptr(),
                        AD.len(),
                        NONCE.as_ptr(),
                        k,
                        key_len,
                    );
                    assert_eq!((rc, &out[..]), (0, MSG));
                    out.fill(CANARY);
                    let rc = wegman_cwc_decrypt(
                        out.as_mut_ptr(),
                        &mut out_len,
                        want.as_ptr(),
                        want.len(),
                        AD.as_ptr(),
                        AD.len(),
                        tag_len,
                        NONCE.as_ptr(),
                        k,
                        key_len,
                    );
                    assert_eq!((rc, out_len, &out[..]), (0, MSG.len(), MSG));
                    let mut combined = vec![CANARY; want.len()];
                    let rc = wegman_cwc_encrypt(
                        combined.as_mut_ptr(),
                        &mut out_len,
                        MSG.as_ptr(),
                        MSG.len(),
                        AD.as_ptr(),
                        AD.len(),
                        tag_len,
                        NONCE.as_ptr(),
                        k,
                        key_len,
                    );
                    assert_eq!((rc, out_len, &combined), (0, want.len(), &want));
                }
            }
        }
    }

    #[test]
    fn empty_message_and_data_may_be_null() {
        let want = sealed(16, 16, b"");
        let mut tag = [0u8; 16];
        let mut out_len = 99;
        // SAFETY: NULL only where the length is 0; other buffers are live arrays.
        unsafe {
            let (n, k) = (NONCE.as_ptr(), KEY.as_ptr());
            let ad = (AD.as_ptr(), AD.len());
            assert_eq!(
                wegman_cwc_encrypt_detached(null_mut(), tag.as_mut_ptr(), 16, null(), 0, ad.0, ad.1, n, k, 16),
                0
            );
            assert_eq!(&tag[..], &want[..]);
            assert_eq!(wegman_cwc_decrypt_detached(null_mut(), null(), 0, tag.as_ptr(), 16, ad.0, ad.1, n, k, 16), 0);
            assert_eq!(wegman_cwc_decrypt(null_mut(), &mut out_len, want.as_ptr(), 16, ad.0, ad.1, 16, n, k, 16), 0);
            assert_eq!(out_len, 0);
            let mut c = [0u8; 16];
            assert_eq!(wegman_cwc_encrypt(c.as_mut_ptr(), null_mut(), null(), 0, ad.0, ad.1, 16, n, k, 16), 0);
            assert_eq!(&c[..], &want[..]);

            // No associated data either, as NULL.
            let no_ad = CwcKey::new(&KEY[..16]).unwrap().encrypt(&NONCE, b"", b"", 16).unwrap();
            assert_eq!(
                wegman_cwc_encrypt_detached(null_mut(), tag.as_mut_ptr(), 16, null(), 0, null(), 0, n, k, 16),
                0
            );
            assert_eq!(&tag[..], &no_ad[..]);
            assert_eq!(wegman_cwc_decrypt_detached(null_mut(), null(), 0, tag.as_ptr(), 16, null(), 0, n, k, 16), 0);
        }
    }

    #[test]
    fn bad_key_and_tag_lengths_fail_writing_nothing() {
        for key_len in [0, 1, 15, 17, 23, 25, 31] {
            let (rc, c, tag) = enc(Some(MSG), MSG.len(), 16, Some(&KEY[..key_len]), Some(&NONCE), Some(AD));
            assert_eq!(rc, -1, "key length {key_len}");
            assert!(c.iter().chain(&tag).all(|&b| b == CANARY), "key length {key_len}: wrote");
        }
        let long_key = [0u8; 33];
        let (rc, ..) = enc(Some(MSG), MSG.len(), 16, Some(&long_key), Some(&NONCE), Some(AD));
        assert_eq!(rc, -1);
        for tag_len in [0, 17, 32, usize::MAX] {
            let (rc, c, tag) = enc(Some(MSG), MSG.len(), tag_len, Some(&KEY[..16]), Some(&NONCE), Some(AD));
            assert_eq!(rc, -1, "tag length {tag_len}");
            assert!(c.iter().chain(&tag).all(|&b| b == CANARY), "tag length {tag_len}: wrote");
        }

        let want = sealed(16, 16, MSG);
        let mut out = vec![CANARY; want.len()];
        let mut out_len = 99;
        // SAFETY: all buffers are live Rust buffers of the stated lengths (the
        // tag pointer has at least tag_len bytes whenever tag_len <= 16).
        unsafe {
            let (n, ad) = (NONCE.as_ptr(), (AD.as_ptr(), AD.len()));
            let (c, tag) = want.split_at(MSG.len());
            for key_len in [0, 15, 17, 31] {
                let rc = wegman_cwc_decrypt_detached(
                    out.as_mut_ptr(),
                    c.as_ptr(),
                    c.len(),
                    tag.as_ptr(),
                    16,
                    ad.0,
                    ad.1,
                    n,
                    KEY.as_ptr(),
                    key_len,
                );
                assert_eq!(rc, -1);
            }
            // A tag length the mode does not have, even with the right bytes.
            for tag_len in [0, 17] {
                let rc = wegman_cwc_decrypt(
                    out.as_mut_ptr(),
                    &mut out_len,
                    want.as_ptr(),
                    want.len(),
                    ad.0,
                    ad.1,
                    tag_len,
                    n,
                    KEY.as_ptr(),
                    16,
                );
                assert_eq!((rc, out_len), (-1, 0));
                out_len = 99;
                let rc = wegman_cwc_encrypt(
                    out.as_mut_ptr(),
                    &mut out_len,
                    MSG.as_ptr(),
                    MSG.len(),
                    ad.0,
                    ad.1,
                    tag_len,
                    n,
                    KEY.as_ptr(),
                    16,
                );
                assert_eq!((rc, out_len), (-1, 0));
            }
            // Shorter than the tag.
            let rc = wegman_cwc_decrypt(
                out.as_mut_ptr(),
                &mut out_len,
                want.as_ptr(),
                15,
                ad.0,
                ad.1,
                16,
                n,
                KEY.as_ptr(),
                16,
            );
            assert_eq!((rc, out_len), (-1, 0));
        }
        assert!(out.iter().all(|&b| b == CANARY), "a failed call wrote to its output");
    }

    #[test]
    fn null_pointers_fail_writing_nothing() {
        let key = Some(&KEY[..16]);
        let cases = [
            enc(Some(MSG), MSG.len(), 16, None, Some(&NONCE), Some(AD)),
            enc(Some(MSG), MSG.len(), 16, key, None, Some(AD)),
            enc(None, MSG.len(), 16, key, Some(&NONCE), Some(AD)),
            enc(Some(MSG), MSG.len(), 16, key, Some(&NONCE), None), // ad NULL with ad_len 0 is fine...
        ];
        for (i, (rc, c, tag)) in cases.iter().enumerate().take(3) {
            assert_eq!(*rc, -1, "case {i}");
            assert!(c.iter().chain(tag).all(|&b| b == CANARY), "case {i}: wrote");
        }
        assert_eq!(cases[3].0, 0, "...so this one succeeds");

        let want = sealed(16, 16, MSG);
        let (c, tag) = want.split_at(MSG.len());
        let mut out = vec![CANARY; want.len()];
        let mut out_len = 99;
        // SAFETY: every non-NULL pointer is a live Rust buffer of the stated
        // length; NULL ones are never dereferenced.
        unsafe {
            let (n, k, ad) = (NONCE.as_ptr(), KEY.as_ptr(), AD.as_ptr());
            let o = out.as_mut_ptr();
            let (m, ml) = (MSG.as_ptr(), MSG.len());
            let mut tag_out = [CANARY; 16];
            // Encryption: NULL c (with m_len > 0), tag, ad (with ad_len > 0).
            assert_eq!(wegman_cwc_encrypt_detached(null_mut(), tag_out.as_mut_ptr(), 16, m, ml, ad, 15, n, k, 16), -1);
            assert_eq!(wegman_cwc_encrypt_detached(o, null_mut(), 16, m, ml, ad, 15, n, k, 16), -1);
            assert_eq!(wegman_cwc_encrypt_detached(o, tag_out.as_mut_ptr(), 16, m, ml, null(), 15, n, k, 16), -1);
            assert_eq!(wegman_cwc_encrypt(null_mut(), &mut out_len, m, ml, ad, 15, 16, n, k, 16), -1);
            assert_eq!(out_len, 0);
            assert_eq!(
                wegman_cwc_encrypt(null_mut(), null_mut(), null(), 0, ad, 15, 16, n, k, 16),
                -1,
                "c is required"
            );
            assert!(tag_out.iter().all(|&b| b == CANARY));

            // Decryption: NULL m, c, tag, ad, nonce, key.
            let (cp, cl, tp) = (c.as_ptr(), c.len(), tag.as_ptr());
            assert_eq!(wegman_cwc_decrypt_detached(null_mut(), cp, cl, tp, 16, ad, 15, n, k, 16), -1);
            assert_eq!(wegman_cwc_decrypt_detached(o, null(), cl, tp, 16, ad, 15, n, k, 16), -1);
            assert_eq!(wegman_cwc_decrypt_detached(o, cp, cl, null(), 16, ad, 15, n, k, 16), -1);
            assert_eq!(wegman_cwc_decrypt_detached(o, cp, cl, tp, 16, null(), 15, n, k, 16), -1);
            assert_eq!(wegman_cwc_decrypt_detached(o, cp, cl, tp, 16, ad, 15, null(), k, 16), -1);
            assert_eq!(wegman_cwc_decrypt_detached(o, cp, cl, tp, 16, ad, 15, n, null(), 16), -1);
            assert_eq!(wegman_cwc_decrypt(o, &mut out_len, null(), want.len(), ad, 15, 16, n, k, 16), -1);
            assert_eq!(
                wegman_cwc_decrypt(null_mut(), &mut out_len, want.as_ptr(), want.len(), ad, 15, 16, n, k, 16),
                -1
            );
            assert_eq!(out_len, 0);
            // The control: the same call with every pointer present succeeds.
            assert_eq!(wegman_cwc_decrypt_detached(o, cp, cl, tp, 16, ad, 15, n, k, 16), 0);
        }
        assert_eq!(&out[..MSG.len()], MSG);
        assert!(out[MSG.len()..].iter().all(|&b| b == CANARY));
    }

    #[test]
    fn over_long_inputs_are_refused_before_reading() {
        let too_long = usize::try_from(MAX_BYTES + 1).unwrap();
        let one = [0u8; 1];
        let mut c = [CANARY; 1];
        let mut tag = [CANARY; 16];
        let mut out_len = 99;
        // SAFETY: every length is refused before any pointer is dereferenced.
        unsafe {
            let (n, k, p) = (NONCE.as_ptr(), KEY.as_ptr(), one.as_ptr());
            for (m_len, ad_len) in [(too_long, 0), (0, too_long), (usize::MAX, 0), (0, usize::MAX)] {
                let m = if m_len == 0 { null() } else { p };
                let ad = if ad_len == 0 { null() } else { p };
                let (co, to) = (c.as_mut_ptr(), tag.as_mut_ptr());
                assert_eq!(wegman_cwc_encrypt_detached(co, to, 16, m, m_len, ad, ad_len, n, k, 16), -1);
                assert_eq!(wegman_cwc_encrypt(co, &mut out_len, m, m_len, ad, ad_len, 16, n, k, 16), -1);
                assert_eq!(out_len, 0);
                assert_eq!(wegman_cwc_decrypt_detached(co, m, m_len, p, 16, ad, ad_len, n, k, 16), -1);
                out_len = 99;
            }
            // Combined decryption: the ciphertext part (c_len - 16) is what is limited.
            let rc = wegman_cwc_decrypt(c.as_mut_ptr(), &mut out_len, p, too_long + 16, null(), 0, 16, n, k, 16);
            assert_eq!((rc, out_len), (-1, 0));
        }
        assert_eq!(c, [CANARY]);
        assert_eq!(tag, [CANARY; 16]);
    }

    #[test]
    fn in_place_works_and_forgeries_leave_the_buffer_zeroed() {
        let want = sealed(24, 12, MSG);
        // SAFETY: buf is a live Rust buffer of the stated lengths; in-place
        // calls pass the same pointer as input and output.
        unsafe {
            let (n, k, ad, al) = (NONCE.as_ptr(), KEY.as_ptr(), AD.as_ptr(), AD.len());
            let mut buf = MSG.to_vec();
            buf.resize(MSG.len() + 12, 0);
            let p = buf.as_mut_ptr();
            let mut len = 0;
            assert_eq!(wegman_cwc_encrypt(p, &mut len, p, MSG.len(), ad, al, 12, n, k, 24), 0);
            assert_eq!((len, &buf), (want.len(), &want));

            // A wrong tag: -1, the message part zeroed (the tag after it
            // untouched), the length zeroed.
            buf[MSG.len()] ^= 1;
            let bad_tag = buf[MSG.len()..].to_vec();
            assert_eq!(wegman_cwc_decrypt(p, &mut len, p, buf.len(), ad, al, 12, n, k, 24), -1);
            assert_eq!(len, 0);
            assert!(buf[..MSG.len()].iter().all(|&b| b == 0));
            assert_eq!(buf[MSG.len()..], bad_tag[..]);
            buf[..MSG.len()].copy_from_slice(&want[..MSG.len()]);
            let t = p.add(MSG.len());
            assert_eq!(wegman_cwc_decrypt_detached(p, p, MSG.len(), t, 12, ad, al, n, k, 24), -1);
            assert!(buf[..MSG.len()].iter().all(|&b| b == 0));
            buf[MSG.len()] ^= 1;

            buf[..MSG.len()].copy_from_slice(&want[..MSG.len()]);
            let t = p.add(MSG.len());
            assert_eq!(wegman_cwc_decrypt_detached(p, p, MSG.len(), t, 12, ad, al, n, k, 24), 0);
            assert_eq!(&buf[..MSG.len()], MSG);
        }
    }

    #[test]
    fn forbidden_overlaps_are_refused() {
        let mut buf = [CANARY; 200];
        let ml = MSG.len();
        // SAFETY: every pointer is inside buf (or a live constant) with room
        // for the stated length; refused calls touch nothing.
        unsafe {
            let (n, k) = (NONCE.as_ptr(), KEY.as_ptr());
            let b = buf.as_mut_ptr();
            // Set up m at b[0..], ad at b[100..115].
            core::ptr::copy_nonoverlapping(MSG.as_ptr(), b, ml);
            core::ptr::copy_nonoverlapping(AD.as_ptr(), b.add(100), AD.len());
            let before = buf;
            let (m, ad, al) = (b.cast_const(), b.add(100).cast_const(), AD.len());
            let mut tag = [CANARY; 16];
            let t = tag.as_mut_ptr();
            // c straddling m; c over ad; the tag over c.
            assert_eq!(wegman_cwc_encrypt_detached(b.add(1), t, 16, m, ml, ad, al, n, k, 16), -1);
            assert_eq!(wegman_cwc_encrypt_detached(b.add(90), t, 16, m, ml, ad, al, n, k, 16), -1);
            assert_eq!(wegman_cwc_encrypt_detached(b.add(150), b.add(160), 16, m, ml, ad, al, n, k, 16), -1);
            // m straddling c.
            assert_eq!(wegman_cwc_decrypt_detached(b.add(5), m, ml, t, 16, ad, al, n, k, 16), -1);
            assert_eq!(buf, before, "a refused call wrote");
            assert_eq!(tag, [CANARY; 16]);
            // Allowed: disjoint buffers, and the plaintext over the associated
            // data once decryption has read it.
            assert_eq!(wegman_cwc_encrypt_detached(b.add(150), t, 16, m, ml, ad, al, n, k, 16), 0);
            let c = b.add(150).cast_const();
            assert_eq!(wegman_cwc_decrypt_detached(b.add(100), c, ml, t, 16, ad, al, n, k, 16), 0);
            assert_eq!(&buf[100..100 + ml], MSG);
        }
    }
}

#[test]
fn parallel_calls_give_the_one_thread_tag_and_refuse_zero_threads() {
    use crate::oneshot::{wegman_poly1305aes_authenticate_parallel, wegman_poly1305aes_verify_parallel};
    let kr = [0x21u8; 32];
    let mut key = kr;
    poly1305aes::clamp((&mut key[16..]).try_into().unwrap());
    let nonce = NONCE;
    // Past 8 MiB (two threads and more), ending in a partial block.
    let m: Vec<u8> = (0..(9usize << 20) + 3).map(|i| (i % 253) as u8).collect();
    let want = expected(&key, &m);
    for threads in [1usize, 2, 5] {
        let mut out = [0xaau8; 16];
        // SAFETY: every pointer is valid for its stated length.
        let rc = unsafe {
            wegman_poly1305aes_authenticate_parallel(
                out.as_mut_ptr(),
                key.as_ptr(),
                nonce.as_ptr(),
                m.as_ptr(),
                m.len(),
                threads,
            )
        };
        assert_eq!((rc, out), (0, want), "{threads} threads");
        // SAFETY: as above.
        let rc = unsafe {
            wegman_poly1305aes_verify_parallel(
                want.as_ptr(),
                key.as_ptr(),
                nonce.as_ptr(),
                m.as_ptr(),
                m.len(),
                threads,
            )
        };
        assert_eq!(rc, 0);
    }
    let mut out = [0xaau8; 16];
    // SAFETY: as above.
    let rc = unsafe {
        wegman_poly1305aes_authenticate_parallel(out.as_mut_ptr(), key.as_ptr(), nonce.as_ptr(), m.as_ptr(), m.len(), 0)
    };
    assert_eq!((rc, out), (-1, [0; 16]), "0 threads: -1 and out zeroed");
    // SAFETY: as above.
    let rc = unsafe {
        wegman_poly1305aes_verify_parallel(want.as_ptr(), key.as_ptr(), nonce.as_ptr(), m.as_ptr(), m.len(), 0)
    };
    assert_eq!(rc, -1);
}

#[test]
fn mmh_parallel_calls_give_the_one_thread_tag_and_refuse_zero_threads() {
    use crate::mmh::{wegman_mmh64x2, wegman_mmh64x2_parallel, wegman_mmh64x2_verify_parallel};
    let key = [0x33u8; 32];
    let nonce = [6u8; 16];
    let m: Vec<u8> = (0..(9usize << 20) + 5).map(|i| (i % 251) as u8).collect();
    let mut want = [0u8; 16];
    // SAFETY: every pointer is valid for its stated length.
    assert_eq!(unsafe { wegman_mmh64x2(want.as_mut_ptr(), key.as_ptr(), nonce.as_ptr(), m.as_ptr(), m.len()) }, 0);
    for threads in [1usize, 2, 3] {
        let mut out = [0u8; 16];
        // SAFETY: as above.
        let rc = unsafe {
            wegman_mmh64x2_parallel(out.as_mut_ptr(), key.as_ptr(), nonce.as_ptr(), m.as_ptr(), m.len(), threads)
        };
        assert_eq!((rc, out), (0, want), "{threads} threads");
        // SAFETY: as above.
        let rc = unsafe {
            wegman_mmh64x2_verify_parallel(want.as_ptr(), key.as_ptr(), nonce.as_ptr(), m.as_ptr(), m.len(), threads)
        };
        assert_eq!(rc, 0);
    }
    let mut out = [0xaau8; 16];
    // SAFETY: as above.
    let rc = unsafe { wegman_mmh64x2_parallel(out.as_mut_ptr(), key.as_ptr(), nonce.as_ptr(), m.as_ptr(), m.len(), 0) };
    assert_eq!((rc, out), (-1, [0; 16]));
}

#[test]
fn cwc_parallel_calls_give_the_one_thread_bytes_and_zero_m_on_a_wrong_tag() {
    use crate::cwc::wegman_cwc_encrypt;
    use crate::cwc_parallel::{wegman_cwc_decrypt_parallel, wegman_cwc_encrypt_parallel};
    let key = [0x44u8; 32];
    let nonce = [2u8; 11];
    let ad = b"header";
    let m: Vec<u8> = (0..(9usize << 20) + 7).map(|i| (i % 241) as u8).collect();
    let n = m.len();
    let mut want = vec![0u8; n + 16];
    let mut len = 0usize;
    // SAFETY: every pointer is valid for its stated length.
    let rc = unsafe {
        wegman_cwc_encrypt(
            want.as_mut_ptr(),
            &mut len,
            m.as_ptr(),
            n,
            ad.as_ptr(),
            6,
            16,
            nonce.as_ptr(),
            key.as_ptr(),
            32,
        )
    };
    assert_eq!((rc, len), (0, n + 16));
    for threads in [2usize, 3] {
        let mut c = vec![0u8; n + 16];
        // SAFETY: as above.
        let rc = unsafe {
            wegman_cwc_encrypt_parallel(
                c.as_mut_ptr(),
                &mut len,
                m.as_ptr(),
                n,
                ad.as_ptr(),
                6,
                16,
                nonce.as_ptr(),
                key.as_ptr(),
                32,
                threads,
            )
        };
        assert!(rc == 0 && len == n + 16 && c == want, "{threads} threads");
        // In place: the plaintext's buffer, with room for the tag.
        let mut inplace = m.clone();
        inplace.resize(n + 16, 0);
        // SAFETY: as above; c == m is allowed.
        let rc = unsafe {
            wegman_cwc_encrypt_parallel(
                inplace.as_mut_ptr(),
                &mut len,
                inplace.as_ptr(),
                n,
                ad.as_ptr(),
                6,
                16,
                nonce.as_ptr(),
                key.as_ptr(),
                32,
                threads,
            )
        };
        assert!(rc == 0 && inplace == want, "in place, {threads} threads");
        let mut out = vec![0u8; n];
        // SAFETY: as above.
        let rc = unsafe {
            wegman_cwc_decrypt_parallel(
                out.as_mut_ptr(),
                &mut len,
                want.as_ptr(),
                n + 16,
                ad.as_ptr(),
                6,
                16,
                nonce.as_ptr(),
                key.as_ptr(),
                32,
                threads,
            )
        };
        assert!(rc == 0 && len == n && out == m);
        // SAFETY: as above; m == c decrypts in place.
        let rc = unsafe {
            wegman_cwc_decrypt_parallel(
                inplace.as_mut_ptr(),
                &mut len,
                inplace.as_ptr(),
                n + 16,
                ad.as_ptr(),
                6,
                16,
                nonce.as_ptr(),
                key.as_ptr(),
                32,
                threads,
            )
        };
        assert!(rc == 0 && inplace[..n] == m[..]);
    }
    // A flipped byte in the second thread's share: -1, m zeroed.
    let mut bad = want.clone();
    bad[6 << 20] ^= 1;
    let mut out = vec![0xaau8; n];
    // SAFETY: as above.
    let rc = unsafe {
        wegman_cwc_decrypt_parallel(
            out.as_mut_ptr(),
            &mut len,
            bad.as_ptr(),
            n + 16,
            ad.as_ptr(),
            6,
            16,
            nonce.as_ptr(),
            key.as_ptr(),
            32,
            2,
        )
    };
    assert!(rc == -1 && len == 0 && out.iter().all(|&b| b == 0));
    // 0 threads: -1, nothing written.
    let mut out = vec![0xaau8; n];
    // SAFETY: as above.
    let rc = unsafe {
        wegman_cwc_decrypt_parallel(
            out.as_mut_ptr(),
            &mut len,
            want.as_ptr(),
            n + 16,
            ad.as_ptr(),
            6,
            16,
            nonce.as_ptr(),
            key.as_ptr(),
            32,
            0,
        )
    };
    assert!(rc == -1 && out.iter().all(|&b| b == 0xaa));
}
