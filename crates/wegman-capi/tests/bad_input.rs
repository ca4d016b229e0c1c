//! The C ABI's bad-input matrix (docs/security.md): every exported function
//! that takes pointers, called from Rust through the rlib with each pointer
//! NULL in turn (lengths non-zero), lengths the library must refuse before
//! reading (past `isize::MAX`, past CWC's limit, wrong key and tag lengths,
//! ciphertexts shorter than their tag), every forbidden bit of r, and CWC
//! ciphertexts, tags, associated data and nonces changed byte by byte.
//!
//! Each case must fail as documented (-1 for `wegman_*`, 0 from
//! `poly1305aes_verify`, a zeroed tag from `poly1305aes_authenticate`),
//! leave outputs zeroed or untouched, release no byte of plaintext and
//! panic nowhere — the library's guard would turn a panic into a plain
//! failure, so a panic hook counts them instead. The test prints the
//! number of cases per row of the table.

use std::ptr::{null, null_mut};
use std::sync::atomic::{AtomicUsize, Ordering};

use wegman_c::*;

const FAIL: i32 = -1;
const SENTINEL: u8 = 0xa5;

static PANICS: AtomicUsize = AtomicUsize::new(0);

#[derive(Default)]
struct Tally {
    rows: Vec<(&'static str, usize)>,
    plaintext_released: usize,
}

impl Tally {
    fn row(&mut self, name: &'static str, cases: usize) {
        self.rows.push((name, cases));
    }
}

/// `buf` or NULL.
fn p(buf: &[u8], null_it: bool) -> *const u8 {
    if null_it { null() } else { buf.as_ptr() }
}

fn pm(buf: &mut [u8], null_it: bool) -> *mut u8 {
    if null_it { null_mut() } else { buf.as_mut_ptr() }
}

type MacFn = unsafe extern "C" fn(*mut u8, *const u8, *const u8, *const u8, usize) -> i32;
type VerifyFn = unsafe extern "C" fn(*const u8, *const u8, *const u8, *const u8, usize) -> i32;

/// (name, mac, verify, key bytes, nonce bytes, tag bytes) of a one-shot MAC
/// with the `(out, key, nonce, m, len)` shape.
type MacRow = (&'static str, MacFn, Option<VerifyFn>, usize, usize, usize);

/// Every one-shot MAC of that shape.
fn macs() -> Vec<MacRow> {
    vec![
        ("wegman_poly1305aes", wegman_poly1305aes_authenticate, Some(wegman_poly1305aes_verify), 32, 16, 16),
        ("wegman_poly1305 (r, s)", wegman_poly1305, None, 16, 16, 16),
        ("wegman_mmh32", wegman_mmh32, Some(wegman_mmh32_verify), 32, 16, 4),
        ("wegman_mmh32x2", wegman_mmh32x2, Some(wegman_mmh32x2_verify), 32, 16, 8),
        ("wegman_mmh32x3", wegman_mmh32x3, Some(wegman_mmh32x3_verify), 32, 16, 12),
        ("wegman_mmh32x4", wegman_mmh32x4, Some(wegman_mmh32x4_verify), 32, 16, 16),
        ("wegman_nmh32", wegman_nmh32, Some(wegman_nmh32_verify), 32, 16, 4),
        ("wegman_mmh64", wegman_mmh64, Some(wegman_mmh64_verify), 32, 16, 8),
        ("wegman_mmh64x2", wegman_mmh64x2, Some(wegman_mmh64x2_verify), 32, 16, 16),
    ]
}

/// NULL pointers and impossible lengths for the one-shot MACs and their
/// verify functions; wrong tags for the verify functions.
fn one_shot_macs(t: &mut Tally) {
    let (mut nulls, mut lengths, mut wrong) = (0, 0, 0);
    let m = [0x3cu8; 100];
    for (name, mac, verify, key_len, nonce_len, tag_len) in macs() {
        // Every r byte 0x10 but bytes 3, 7, 11, 15 (0x01): a valid r (§2).
        let key: Vec<u8> = (0..key_len).map(|i| if i % 4 == 3 { 0x01 } else { 0x10 }).collect();
        let nonce = vec![0x22u8; nonce_len];
        // Each pointer NULL in turn, then all of them.
        for null_at in [Some(0), Some(1), Some(2), Some(3), None] {
            let n = |i: usize| null_at.is_none_or(|a| a == i);
            let mut out = [SENTINEL; 16];
            // SAFETY: every pointer is NULL or a live buffer of the stated size.
            let rc = unsafe { mac(pm(&mut out, n(0)), p(&key, n(1)), p(&nonce, n(2)), p(&m, n(3)), m.len()) };
            assert_eq!(rc, FAIL, "{name}: NULL at {null_at:?}");
            if !n(0) {
                assert!(out[..tag_len].iter().all(|&b| b == 0 || b == SENTINEL), "{name}: output not cleared");
            }
            nulls += 1;
            if let Some(verify) = verify {
                let tag = [0u8; 16];
                // SAFETY: as above.
                let rc = unsafe { verify(p(&tag, n(0)), p(&key, n(1)), p(&nonce, n(2)), p(&m, n(3)), m.len()) };
                assert_eq!(rc, FAIL, "{name}_verify: NULL at {null_at:?}");
                nulls += 1;
            }
        }
        // Lengths past what any buffer can hold: refused before reading.
        for len in [isize::MAX as usize + 1, usize::MAX] {
            let mut out = [SENTINEL; 16];
            // SAFETY: the length is refused before `m` is read (ffi::message).
            let rc = unsafe { mac(out.as_mut_ptr(), key.as_ptr(), nonce.as_ptr(), m.as_ptr(), len) };
            assert_eq!(rc, FAIL, "{name}: length {len}");
            lengths += 1;
        }
        // A wrong tag: every single-bit change of the right one.
        if let Some(verify) = verify {
            let mut right = [0u8; 16];
            // SAFETY: live buffers of the stated sizes.
            assert_eq!(unsafe { mac(right.as_mut_ptr(), key.as_ptr(), nonce.as_ptr(), m.as_ptr(), m.len()) }, 0);
            for bit in 0..tag_len * 8 {
                let mut tag = right;
                tag[bit / 8] ^= 1 << (bit % 8);
                // SAFETY: as above.
                let rc = unsafe { verify(tag.as_ptr(), key.as_ptr(), nonce.as_ptr(), m.as_ptr(), m.len()) };
                assert_eq!(rc, FAIL, "{name}_verify accepted a tag with bit {bit} changed");
                wrong += 1;
            }
        }
    }
    t.row("C: NULL pointers (one-shot MACs and verify, Bernstein's and streaming functions)", nulls);
    t.row("C: lengths past isize::MAX", lengths);
    t.row("C: tags with one bit changed (every MAC's verify)", wrong);
}

/// Bernstein's functions (no return code for authenticate: a zero tag) and
/// the streaming functions with NULL pointers; returns the count.
fn bernstein_and_streaming_nulls() -> usize {
    let mut cases = 0;
    let kr = [0u8; 32];
    let n = [0u8; 16];
    let m = [7u8; 40];
    for null_at in 0..3 {
        let mut out = [SENTINEL; 16];
        let q = |i: usize, b: &[u8]| p(b, i == null_at);
        // SAFETY: every pointer is NULL or a live buffer of the stated size.
        unsafe { poly1305aes_authenticate(out.as_mut_ptr(), q(0, &kr), q(1, &n), q(2, &m), m.len() as u32) };
        assert_eq!(out, [0u8; 16], "poly1305aes_authenticate: NULL input {null_at} must give a zero tag");
        cases += 1;
    }
    // SAFETY: NULL output: nothing is written; the rest are live buffers.
    unsafe { poly1305aes_authenticate(null_mut(), kr.as_ptr(), n.as_ptr(), m.as_ptr(), m.len() as u32) };
    // SAFETY: NULL: clamp does nothing.
    unsafe { poly1305aes_clamp(null_mut()) };
    cases += 2;
    for null_at in 0..4 {
        let a = [0u8; 16];
        let q = |i: usize, b: &[u8]| p(b, i == null_at);
        // SAFETY: as above.
        let rc = unsafe { poly1305aes_verify(q(0, &a), q(1, &kr), q(2, &n), q(3, &m), m.len() as u32) };
        assert_eq!(rc, 0, "poly1305aes_verify: NULL {null_at}");
        cases += 1;
    }
    let key = [0u8; 32];
    let mut st = Poly1305AesState::new();
    // SAFETY: NULL or live buffers / a live state, as each call states.
    unsafe {
        assert_eq!(wegman_poly1305aes_init(null_mut(), key.as_ptr(), n.as_ptr()), FAIL);
        assert_eq!(wegman_poly1305aes_init(&mut st, null(), n.as_ptr()), FAIL);
        assert_eq!(wegman_poly1305aes_init(&mut st, key.as_ptr(), null()), FAIL);
        assert_eq!(wegman_poly1305aes_init(&mut st, key.as_ptr(), n.as_ptr()), 0);
        assert_eq!(wegman_poly1305aes_update(null_mut(), m.as_ptr(), m.len()), FAIL);
        assert_eq!(wegman_poly1305aes_update(&mut st, null(), 3), FAIL);
        assert_eq!(wegman_poly1305aes_final(null_mut(), [0u8; 16].as_mut_ptr()), FAIL);
        assert_eq!(wegman_poly1305aes_final_verify(null_mut(), [0u8; 16].as_ptr()), FAIL);
        let mut st2 = Poly1305AesState::new();
        assert_eq!(wegman_poly1305aes_final(&mut st2, [0u8; 16].as_mut_ptr()), FAIL, "final before init");
        assert_eq!(wegman_poly1305aes_final_verify(&mut st, null()), FAIL);
        assert_eq!(wegman_poly1305aes_update(&mut st, m.as_ptr(), m.len()), FAIL, "update after a final");
    }
    cases + 11
}

/// Every forbidden bit of r, alone, through each function that checks r.
fn forbidden_r_bits(t: &mut Tally) {
    let mut cases = 0;
    let forbidden: Vec<(usize, u8)> = [3usize, 7, 11, 15]
        .iter()
        .flat_map(|&b| (4..8).map(move |bit| (b, 1u8 << bit)))
        .chain([4usize, 8, 12].iter().flat_map(|&b| (0..2).map(move |bit| (b, 1u8 << bit))))
        .collect();
    assert_eq!(forbidden.len(), 22);
    let (n, m) = ([1u8; 16], [2u8; 33]);
    for &(byte, bit) in &forbidden {
        let mut key = [0u8; 32];
        key[16 + byte] = bit;
        let mut r = [0u8; 16];
        r[byte] = bit;
        let mut out = [SENTINEL; 16];
        let mut st = Poly1305AesState::new();
        // SAFETY: live buffers of the stated sizes.
        unsafe {
            assert_eq!(
                wegman_poly1305aes_authenticate(out.as_mut_ptr(), key.as_ptr(), n.as_ptr(), m.as_ptr(), 33),
                FAIL
            );
            assert_eq!(out, [0u8; 16], "the tag of a refused key is zeroed");
            assert_eq!(wegman_poly1305aes_verify(out.as_ptr(), key.as_ptr(), n.as_ptr(), m.as_ptr(), 33), FAIL);
            assert_eq!(wegman_poly1305(out.as_mut_ptr(), r.as_ptr(), n.as_ptr(), m.as_ptr(), 33), FAIL);
            assert_eq!(wegman_poly1305aes_init(&mut st, key.as_ptr(), n.as_ptr()), FAIL);
        }
        cases += 4;
    }
    t.row("C: forbidden bits of r (22 bits x 4 functions)", cases);
}

/// Does `out` hold any byte of `plaintext` where it differs from what
/// failure may leave (the sentinel or zero)? Counts such bytes.
fn released(out: &[u8], plaintext: &[u8]) -> usize {
    out.iter().zip(plaintext).filter(|&(&o, &pt)| o == pt && pt != SENTINEL && pt != 0).count()
}

/// CWC: NULL pointers, bad key and tag lengths, truncated ciphertexts,
/// lengths past the limit, and every byte of a sealed message, its tag, its
/// associated data and its nonce changed.
fn cwc(t: &mut Tally) {
    let key = [0x5au8; 16];
    let nonce = [0x01u8; 11];
    let ad = [0x0fu8; 9];
    let pt: Vec<u8> = (1..=40u8).collect();
    let mut sealed = vec![0u8; pt.len() + 16];
    let mut sealed_len = 0usize;
    // SAFETY: live buffers of the stated sizes.
    let rc = unsafe {
        wegman_cwc_encrypt(
            sealed.as_mut_ptr(),
            &mut sealed_len,
            pt.as_ptr(),
            pt.len(),
            ad.as_ptr(),
            ad.len(),
            16,
            nonce.as_ptr(),
            key.as_ptr(),
            16,
        )
    };
    assert_eq!((rc, sealed_len), (0, sealed.len()));
    let (ct, tag) = sealed.split_at(pt.len());

    // wegman_cwc_decrypt of the first `len` bytes of `sealed` with `tag_len`;
    // counts plaintext left in the output if it fails.
    let open = |t: &mut Tally, len: usize, tag_len: usize| {
        let mut out = vec![SENTINEL; sealed.len()];
        let mut out_len = usize::MAX;
        // SAFETY: live buffers; `len` <= sealed.len() bytes of it are readable.
        let rc = unsafe {
            wegman_cwc_decrypt(
                out.as_mut_ptr(),
                &mut out_len,
                sealed.as_ptr(),
                len,
                ad.as_ptr(),
                ad.len(),
                tag_len,
                nonce.as_ptr(),
                key.as_ptr(),
                16,
            )
        };
        if rc != 0 {
            t.plaintext_released += released(&out, &pt);
        }
        rc
    };

    let decrypt_detached =
        |t: &mut Tally, c: &[u8], tag: &[u8], ad: &[u8], nonce: &[u8], key_len: usize, nul: usize| {
            let mut out = vec![SENTINEL; c.len()];
            let key32 = [0x5au8; 32];
            let q = |i: usize, b: &[u8]| p(b, i == nul);
            // SAFETY: every pointer is NULL or a live buffer of the stated size.
            let rc = unsafe {
                wegman_cwc_decrypt_detached(
                    pm(&mut out, nul == 0),
                    q(1, c),
                    c.len(),
                    q(2, tag),
                    tag.len(),
                    q(3, ad),
                    ad.len(),
                    q(4, nonce),
                    q(5, &key32[..key_len.min(32)]),
                    key_len,
                )
            };
            if rc != 0 {
                t.plaintext_released += released(&out, &pt);
            }
            rc
        };

    // Changed bytes: ciphertext, tag, associated data, nonce.
    let mut changed = 0;
    for i in 0..ct.len() {
        let mut c = ct.to_vec();
        c[i] ^= 0x80;
        assert_eq!(decrypt_detached(t, &c, tag, &ad, &nonce, 16, usize::MAX), FAIL);
        changed += 1;
    }
    for i in 0..16 {
        let mut g = tag.to_vec();
        g[i] ^= 1;
        assert_eq!(decrypt_detached(t, ct, &g, &ad, &nonce, 16, usize::MAX), FAIL);
        changed += 1;
    }
    for i in 0..ad.len() {
        let mut a = ad.to_vec();
        a[i] ^= 2;
        assert_eq!(decrypt_detached(t, ct, tag, &a, &nonce, 16, usize::MAX), FAIL);
        changed += 1;
    }
    for i in 0..nonce.len() {
        let mut nn = nonce.to_vec();
        nn[i] ^= 4;
        assert_eq!(decrypt_detached(t, ct, tag, &ad, &nn, 16, usize::MAX), FAIL);
        changed += 1;
    }
    // The same message under a 32-byte key of the same first 16 bytes.
    assert_eq!(decrypt_detached(t, ct, tag, &ad, &nonce, 32, usize::MAX), FAIL);
    changed += 1;
    // And the untouched message opens (the oracle works).
    assert_eq!(decrypt_detached(t, ct, tag, &ad, &nonce, 16, usize::MAX), 0);
    t.row("C: CWC sealed messages with one byte of ciphertext, tag, AD or nonce changed, or another key", changed);

    // NULL pointers (each in turn) for decrypt_detached; bad key lengths.
    let mut nulls = 0;
    for nul in 0..6 {
        assert_eq!(decrypt_detached(t, ct, tag, &ad, &nonce, 16, nul), FAIL, "NULL {nul}");
        nulls += 1;
    }
    let mut lengths = 0;
    for key_len in [0, 1, 15, 17, 23, 25, 31, 33, 64] {
        // key_len bytes are readable for every valid length; longer ones are
        // refused before the key is read.
        assert_eq!(decrypt_detached(t, ct, tag, &ad, &nonce, key_len, usize::MAX), FAIL, "key length {key_len}");
        let mut c = [0u8; 1];
        let mut tg = [0u8; 16];
        let key64 = [0u8; 64];
        // SAFETY: live buffers; key_len bytes of key64 are readable.
        let rc = unsafe {
            wegman_cwc_encrypt_detached(
                c.as_mut_ptr(),
                tg.as_mut_ptr(),
                16,
                [9u8].as_ptr(),
                1,
                null(),
                0,
                nonce.as_ptr(),
                key64.as_ptr(),
                key_len,
            )
        };
        assert_eq!(rc, FAIL, "key length {key_len}");
        lengths += 2;
    }
    // Tag lengths outside 1..=16, for encrypt and decrypt.
    for tag_len in [0, 17, 32, usize::MAX] {
        let mut c = vec![0u8; 64];
        let mut c_len = 0usize;
        // SAFETY: live buffers; the tag length is refused before anything is written.
        let rc = unsafe {
            wegman_cwc_encrypt(
                c.as_mut_ptr(),
                &mut c_len,
                pt.as_ptr(),
                pt.len(),
                null(),
                0,
                tag_len,
                nonce.as_ptr(),
                key.as_ptr(),
                16,
            )
        };
        assert_eq!(rc, FAIL, "tag length {tag_len}");
        assert_eq!(open(t, sealed.len(), tag_len), FAIL, "tag length {tag_len}");
        lengths += 2;
    }
    // Truncated and empty ciphertexts: shorter than the tag, and the sealed
    // message cut at every length.
    let mut truncated = 0;
    for cut in 0..sealed.len() {
        assert_eq!(open(t, cut, 16), FAIL, "sealed message cut to {cut} bytes");
        truncated += 1;
    }
    // Past CWC's limit (2^32 - 1 blocks): refused before reading.
    for len in [WEGMAN_CWC_MESSAGEBYTES_MAX as usize + 1, isize::MAX as usize + 1, usize::MAX] {
        let mut c = [0u8; 16];
        let mut tg = [0u8; 16];
        // SAFETY: the length is refused before `m` (1 readable byte) is read.
        let rc = unsafe {
            wegman_cwc_encrypt_detached(
                c.as_mut_ptr(),
                tg.as_mut_ptr(),
                16,
                [0u8].as_ptr(),
                len,
                null(),
                0,
                nonce.as_ptr(),
                key.as_ptr(),
                16,
            )
        };
        assert_eq!(rc, FAIL, "message of {len} bytes");
        // SAFETY: as above, for the associated data.
        let rc = unsafe {
            wegman_cwc_encrypt_detached(
                c.as_mut_ptr(),
                tg.as_mut_ptr(),
                16,
                null(),
                0,
                [0u8].as_ptr(),
                len,
                nonce.as_ptr(),
                key.as_ptr(),
                16,
            )
        };
        assert_eq!(rc, FAIL, "associated data of {len} bytes");
        lengths += 2;
    }
    t.row("C: CWC NULL pointers (decrypt_detached, each in turn)", nulls);
    t.row("C: CWC wrong key/tag lengths, lengths past 2^32-1 blocks", lengths);
    t.row("C: CWC sealed messages cut at every length (truncated, empty)", truncated);
}

#[test]
fn the_c_abi_refuses_every_bad_input() {
    let default_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        PANICS.fetch_add(1, Ordering::SeqCst);
        default_hook(info);
    }));
    let mut t = Tally::default();
    one_shot_macs(&mut t);
    let n = bernstein_and_streaming_nulls();
    t.rows[0].1 += n;
    forbidden_r_bits(&mut t);
    cwc(&mut t);
    let total: usize = t.rows.iter().map(|r| r.1).sum();
    for (name, cases) in &t.rows {
        println!("{cases:>6}  {name}");
    }
    let panics = PANICS.load(Ordering::SeqCst);
    println!(
        "C ABI bad-input matrix: {total} cases, {panics} panics, {} bytes of plaintext released",
        t.plaintext_released
    );
    assert_eq!(panics, 0);
    assert_eq!(t.plaintext_released, 0);
}
