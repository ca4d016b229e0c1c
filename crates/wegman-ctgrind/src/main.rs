//! Constant-time harness over wegman's Rust API, run under valgrind's
//! memcheck (`tools/ctgrind`, `tests/ctgrind.rs`); refuses to run
//! elsewhere, where it would check nothing.
//!
//! Every secret-handling entry point is called twice per input, with the
//! secrets of one kind marked undefined (see `wegman_ctgrind::client`):
//!
//! * pass "key": the key bytes, before the key is made (so key expansion is
//!   checked too). For Poly1305-AES the 22 bits of r that §2 requires to
//!   be zero stay defined: `Key::from_bytes` must reveal whether r is
//!   valid, one public bit, and they carry no secret in a valid key.
//! * pass "message": the message (CWC: the plaintext, and the ciphertext
//!   for decryption, so that the plaintext it yields is secret too).
//!
//! Lengths, nonces, associated data and tags stay defined: they are public.
//! Memcheck then reports any branch or memory index that depends on a
//! secret. Each output is first checked to carry undefined bits (so the
//! pass tested something), then declassified and compared with the value
//! computed beforehand with nothing marked.
//!
//! Whether a tag verified is public by design. A verdict the library
//! returns (`verify`, `verify_detached`, `Decryptor::finish`) must still be
//! undefined, computed without a branch; the harness declassifies it before
//! acting on it. CWC decryption acts on the verdict inside the library, in
//! one function (`wegman::cwc::key::public_verdict`); `ctgrind.supp`
//! expects a branch there and nowhere else, and the matrix requires that
//! suppression to have been used.
//!
//! Covered, at every backend level `Features::detect().every_level()` gives
//! (under valgrind: portable, AES-NI, AES-NI + AVX2) and Poly1305's
//! `float64`: Poly1305-AES (`Key`, `authenticate`/`verify`, `ExpandedKey`,
//! streaming `Poly1305Aes` with uneven splits, `authenticate_many_with`,
//! `verify_many`), every MMH algorithm (`mmh::mac`/`verify`, `MacKey`,
//! streaming `Mmh`, `mac_many`/`verify_many`) up to 300,000 bytes (three to
//! five tree levels), and CWC-AES with 16-, 24- and 32-byte keys (one-shot
//! in place and combined, `verify_detached`, streaming `Encryptor`,
//! `Verifier` and `Decryptor` with the right tag, a wrong one and a
//! changed second pass, and the RustCrypto `Aead`).
//!
//! Usage: `ctgrind [--quick]` (`--quick`: fewer lengths, the longest MMH
//! message 70,000 bytes). Exit status 0 if every check passed (memcheck's
//! verdict is valgrind's exit status), 2 if one failed, 3 on misuse.

use std::ops::Range;
use std::sync::atomic::{AtomicBool, Ordering};

use aead::{Aead, KeyInit, Payload};
use wegman::Error;
use wegman::cpu::Features;
use wegman::cwc::{CwcAes128, CwcAes192, CwcAes256, CwcKey};
use wegman::mmh::{self, Alg, MacKey};
use wegman::poly1305aes::{self as pa, ExpandedKey, Key, Poly1305Aes};
use wegman_ctgrind::client::{self, carries_undefined_bits, classify, declassify, declassify_value};

/// Piece sizes for the streaming calls, used in turn until the input runs
/// out: empty updates, pieces that straddle blocks (16 bytes for Poly1305
/// and CWC, 128 and 256 for MMH), long runs that take the vector paths.
const PIECES: &[usize] = &[0, 1, 15, 2, 16, 0, 17, 3, 31, 33, 64, 7, 127, 129, 255, 257, 1024, 4099];

/// Poly1305: around the 16-byte block, the AVX2 backend's thresholds (256
/// bytes of whole blocks with an `ExpandedKey`'s powers, 512 without) and
/// its 64-byte groups; 16,401 bytes takes its word table (runs of 8 KiB and
/// more: the 16-pair table, built for a one-shot run of 16 KiB, as here)
/// and ends inside a 512-byte span; 66,001 bytes the 31-pair table an
/// `ExpandedKey` builds once it has seen 1 MiB, built for a one-shot run of
/// 64 KiB, and ends inside a 992-byte span.
const POLY_LENS: &[usize] = &[0, 1, 15, 16, 17, 63, 64, 255, 256, 257, 1023, 1024, 1040, 2000, 16_401, 66_001];
const POLY_LENS_QUICK: &[usize] = &[0, 17, 1040, 16_401];
/// MMH: around the 128- and 256-byte blocks, the AVX2 backend's four-block
/// groups, and past the 64 KiB one-shot limit (the streaming tree; 70,000
/// bytes is three levels for MMH32 and four for MMH64x2, 300,000 one more).
const MMH_LENS: &[usize] = &[0, 1, 127, 128, 129, 255, 256, 257, 1000, 70_000, 300_000];
const MMH_LENS_QUICK: &[usize] = &[0, 129, 1000, 70_000];
/// CWC: around the 16-byte block, the 32-block counter batches, and the
/// one-pass decryption's 15,360-byte chunks (the last chunk is held back
/// until the verdict).
const CWC_LENS: &[usize] = &[0, 1, 15, 16, 17, 63, 64, 65, 496, 497, 513, 1000, 8192, 15360, 15361, 30721];
const CWC_LENS_QUICK: &[usize] = &[0, 17, 497];
/// Associated data for CWC (public; not a multiple of the 12-byte coefficient).
const AAD_LEN: usize = 13;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Secret {
    Key,
    Message,
}

/// Where a check runs, for its failure message.
struct Pass {
    family: &'static str,
    level: String,
    secret: Secret,
    len: usize,
}

impl Pass {
    /// Whether outputs must depend on the secret: always for the key, for
    /// the message unless it is empty.
    fn taints(&self) -> bool {
        self.secret == Secret::Key || self.len > 0
    }

    fn at(&self, level: &str) -> Pass {
        Pass { family: self.family, level: level.to_owned(), secret: self.secret, len: self.len }
    }
}

/// A SplitMix64 stream: reproducible fixtures without a dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.next() as u8).collect()
    }

    fn array<const N: usize>(&mut self) -> [u8; N] {
        core::array::from_fn(|_| self.next() as u8)
    }
}

/// A copy of `bytes` on the heap, exactly as long (so memcheck also sees a
/// read past its end), marked undefined if `secret`.
fn input(bytes: &[u8], secret: bool) -> Vec<u8> {
    let mut v = bytes.to_vec();
    if secret {
        classify(&mut v);
    }
    v
}

/// The ranges `PIECES` cuts `len` bytes into (at least one, possibly empty).
fn pieces(len: usize) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut at = 0;
    for &p in PIECES.iter().cycle() {
        let take = p.min(len - at);
        out.push(at..at + take);
        at += take;
        if at == len && out.len() > 1 {
            break;
        }
    }
    out
}

/// A copy of `tag` with one bit flipped.
fn flipped(tag: &[u8], len: usize) -> Vec<u8> {
    let mut t = tag.to_vec();
    let at = (len + 5) % t.len();
    t[at] ^= 1 << (len % 8);
    t
}

/// A short name for a backend level: the tier the library names for it.
fn level_name(f: Features) -> String {
    if f.prefers_float64() { "float64".into() } else { f.tier().into() }
}

/// `--leaky`: the negative control, [`leak`] on every output and verdict
/// computed from a secret.
static LEAKY: AtomicBool = AtomicBool::new(false);

/// The negative control: a table lookup at an index taken from a value the
/// library computed from the secrets (a tag, a ciphertext byte, a verdict),
/// before the harness declassifies it. memcheck must report a
/// secret-dependent address here, and only here, in every section (every
/// family and level): the proof that this build and this run can see one.
#[inline(never)]
fn leak(secret: u8) {
    static TABLE: [u8; 256] = {
        let mut t = [0u8; 256];
        let mut i = 0;
        while i < 256 {
            t[i] = (i as u8).wrapping_mul(167).wrapping_add(13);
            i += 1;
        }
        t
    };
    // The table is opaque, so the load cannot be folded into arithmetic.
    core::hint::black_box(core::hint::black_box(&TABLE)[usize::from(secret)]);
}

/// The checks' tally, the backends that ran, and memcheck's error count per
/// section (family and level).
#[derive(Default)]
struct Harness {
    passed: u64,
    failed: u64,
    backends: Vec<(&'static str, String)>,
    sections: Vec<(String, u64)>,
}

impl Harness {
    fn check(&mut self, ok: bool, pass: &Pass, what: &str) {
        if ok {
            self.passed += 1;
        } else {
            self.failed += 1;
            let secret = if pass.secret == Secret::Key { "key" } else { "message" };
            println!("FAIL [{} {} {secret} secret, len {}] {what}", pass.family, pass.level, pass.len);
        }
    }

    /// An output computed from the secret: it must carry undefined bits,
    /// then it is declassified and compared with `want`.
    fn output(&mut self, pass: &Pass, got: &mut [u8], want: &[u8], what: &str) {
        if LEAKY.load(Ordering::Relaxed)
            && let Some(&first) = got.first()
        {
            leak(first);
        }
        if pass.taints() && !want.is_empty() {
            self.check(carries_undefined_bits(got), pass, &format!("{what}: output does not depend on the secret"));
        }
        declassify(got);
        self.check(got == want, pass, &format!("{what}: wrong output"));
    }

    /// A verdict the library returns without acting on it: computed without
    /// branching, so still undefined; declassified, then compared.
    fn verdict(&mut self, pass: &Pass, mut got: Result<(), Error>, want_ok: bool, what: &str) {
        let mut bit = [u8::from(got.is_ok())];
        if LEAKY.load(Ordering::Relaxed) {
            leak(bit[0]);
        }
        if pass.taints() {
            let taint = carries_undefined_bits(&bit);
            self.check(taint, pass, &format!("{what}: the verdict does not depend on the secret"));
        }
        declassify(&mut bit);
        declassify_value(&mut got);
        let right = if want_ok { got.is_ok() } else { got == Err(Error::TagMismatch) };
        self.check(right, pass, &format!("{what}: returned {got:?}, expected ok = {want_ok}"));
    }

    /// A result that is public: from public inputs only, or a verdict the
    /// library has already acted on (CWC decryption).
    fn status<T>(&mut self, pass: &Pass, got: &Result<T, Error>, want_ok: bool, what: &str) {
        let right = match got {
            Ok(_) => want_ok,
            Err(e) => !want_ok && *e == Error::TagMismatch,
        };
        self.check(right, pass, &format!("{what}: expected ok = {want_ok}"));
    }

    fn backend(&mut self, family: &'static str, name: impl Into<String>) {
        let name = name.into();
        if !self.backends.iter().any(|(f, n)| *f == family && *n == name) {
            self.backends.push((family, name));
        }
    }

    /// Run `body`, adding the memcheck errors it caused to `section`.
    fn section(&mut self, section: String, body: impl FnOnce(&mut Self)) {
        let before = client::error_count();
        body(self);
        let new = client::error_count() - before;
        match self.sections.iter_mut().find(|(s, _)| *s == section) {
            Some((_, n)) => *n += new,
            None => self.sections.push((section, new)),
        }
    }
}

/// The 32 bytes `k || r` with r's 22 always-zero bits defined and every
/// other bit undefined.
fn classify_key_with_valid_r(kr: &mut [u8; 32]) {
    let mut vbits = [0xffu8; 32];
    for i in [3, 7, 11, 15] {
        vbits[16 + i] = 0x0f;
    }
    for i in [4, 8, 12] {
        vbits[16 + i] = 0xfc;
    }
    client::set_vbits(kr, &vbits);
}

fn poly1305aes(h: &mut Harness, rng: &mut Rng, lens: &[usize], levels: &[Features]) {
    for &len in lens {
        let mut kr: [u8; 32] = rng.array();
        let mut r: [u8; 16] = kr[16..].try_into().expect("16 bytes");
        pa::clamp(&mut r);
        kr[16..].copy_from_slice(&r);
        let nonce: [u8; 16] = rng.array();
        let msg = rng.bytes(len);
        let want = pa::authenticate(&Key::from_bytes(&kr).expect("a clamped r"), &nonce, &msg);
        let bad: [u8; 16] = flipped(&want, len).try_into().expect("16 bytes");
        for secret in [Secret::Key, Secret::Message] {
            let pass = Pass { family: "poly1305aes", level: "detected".into(), secret, len };
            let mut kr = kr;
            if secret == Secret::Key {
                classify_key_with_valid_r(&mut kr);
            }
            let m = input(&msg, secret == Secret::Message);
            let key = Key::from_bytes(&kr).expect("r is valid, and its validity is public");
            let items: Vec<pa::Item> = (0..9).map(|_| pa::Item { key: &key, nonce: &nonce, message: &m }).collect();

            h.section(format!("poly1305aes {}", level_name(Features::detect())), |h| {
                h.output(&pass, &mut pa::authenticate(&key, &nonce, &m), &want, "authenticate");
                h.verdict(&pass, pa::verify(&key, &want, &nonce, &m), true, "verify (right tag)");
                h.verdict(&pass, pa::verify(&key, &bad, &nonce, &m), false, "verify (wrong tag)");
                let tags: Vec<[u8; 16]> = (0..9).map(|i| if i % 3 == 1 { bad } else { want }).collect();
                let mut ok = [false; 9];
                let all = pa::verify_many(&items, &tags, &mut ok);
                let mut bits: [u8; 9] = core::array::from_fn(|i| u8::from(ok[i]));
                if pass.taints() {
                    h.check(carries_undefined_bits(&bits), &pass, "verify_many: verdicts do not depend on the secret");
                }
                declassify(&mut bits);
                declassify_value(&mut ok);
                let mut all = all;
                declassify_value(&mut all);
                let right = (0..9).all(|i| ok[i] == (i % 3 != 1));
                h.check(right && all == Ok(false), &pass, "verify_many: wrong verdicts");
            });

            for &f in levels {
                let pass = pass.at(&level_name(f));
                h.section(format!("poly1305aes {}", pass.level), |h| {
                    let ek = ExpandedKey::with_features(&key, f);
                    h.backend("poly1305aes", ek.platform().name());
                    h.backend("poly1305aes", wegman::platform::Backends::for_features(f).aes_pad);
                    h.output(&pass, &mut ek.authenticate(&nonce, &m), &want, "ExpandedKey::authenticate");
                    h.verdict(&pass, ek.verify(&want, &nonce, &m), true, "ExpandedKey::verify (right tag)");
                    h.verdict(&pass, ek.verify(&bad, &nonce, &m), false, "ExpandedKey::verify (wrong tag)");
                    let mut s = ek.start(&nonce);
                    pieces(len).into_iter().for_each(|p| s.update(&m[p]));
                    h.output(&pass, &mut s.finalize(), &want, "ExpandedKey::start, streaming");

                    let stream = || {
                        let mut s = Poly1305Aes::with_features(&key, &nonce, f);
                        pieces(len).into_iter().for_each(|p| s.update(&m[p]));
                        s
                    };
                    h.output(&pass, &mut stream().finalize(), &want, "Poly1305Aes, streaming");
                    h.verdict(&pass, stream().verify(&want), true, "Poly1305Aes::verify (right tag)");
                    h.verdict(&pass, stream().verify(&bad), false, "Poly1305Aes::verify (wrong tag)");

                    let mut tags = [[0u8; 16]; 9];
                    let done = pa::authenticate_many_with(&items, &mut tags, f);
                    h.status(&pass, &done, true, "authenticate_many_with");
                    for t in &mut tags {
                        h.output(&pass, t, &want, "authenticate_many_with");
                    }
                });
            }
        }
    }
}

fn mmh(h: &mut Harness, rng: &mut Rng, lens: &[usize], levels: &[Features]) {
    for alg in Alg::ALL {
        for &len in lens {
            let key_bytes: [u8; 32] = rng.array();
            let nonce: [u8; 16] = rng.array();
            let msg = rng.bytes(len);
            let want = mmh::mac(alg, &key_bytes, &nonce, &msg).expect("not too long").as_bytes().to_vec();
            let bad = flipped(&want, len);
            for secret in [Secret::Key, Secret::Message] {
                let pass = Pass { family: "mmh", level: "detected".into(), secret, len };
                let mut key = key_bytes;
                if secret == Secret::Key {
                    classify(&mut key);
                }
                let m = input(&msg, secret == Secret::Message);
                let name = alg.name();
                h.section(format!("mmh {}", level_name(Features::detect())), |h| {
                    let mut tag = mmh::mac(alg, &key, &nonce, &m).expect("not too long").as_bytes().to_vec();
                    h.output(&pass, &mut tag, &want, &format!("mmh::mac {name}"));
                    h.verdict(
                        &pass,
                        mmh::verify(alg, &key, &want, &nonce, &m),
                        true,
                        &format!("mmh::verify {name} (right)"),
                    );
                    h.verdict(
                        &pass,
                        mmh::verify(alg, &key, &bad, &nonce, &m),
                        false,
                        &format!("mmh::verify {name} (wrong)"),
                    );
                });
                let mut seen = Vec::new();
                for &f in levels {
                    let mk = MacKey::with_features(alg, &key, f);
                    if seen.contains(&mk.platform()) {
                        continue; // this level runs the same backend as one before
                    }
                    seen.push(mk.platform());
                    let pass = pass.at(&level_name(f));
                    h.backend("mmh", mk.platform().name());
                    h.section(format!("mmh {}", pass.level), |h| {
                        let mut tag = mk.mac(&nonce, &m).expect("not too long").as_bytes().to_vec();
                        h.output(&pass, &mut tag, &want, &format!("MacKey::mac {name}"));
                        h.verdict(&pass, mk.verify(&want, &nonce, &m), true, &format!("MacKey::verify {name} (right)"));
                        h.verdict(&pass, mk.verify(&bad, &nonce, &m), false, &format!("MacKey::verify {name} (wrong)"));
                        let stream = || {
                            let mut s = mk.start(&nonce);
                            for p in pieces(len) {
                                s.update(&m[p]).expect("not too long");
                            }
                            s
                        };
                        let mut tag = stream().finalize().expect("not too long").as_bytes().to_vec();
                        h.output(&pass, &mut tag, &want, &format!("Mmh {name}, streaming"));
                        h.verdict(&pass, stream().verify(&want), true, &format!("Mmh::verify {name} (right)"));
                        h.verdict(&pass, stream().verify(&bad), false, &format!("Mmh::verify {name} (wrong)"));
                        if len <= 1000 {
                            let items = [mmh::Item { key: &mk, nonce: &nonce, message: &m }; 2];
                            let mut tags = [mk.mac(&[0; 16], &[]).expect("empty"); 2];
                            let done = mmh::mac_many(&items, &mut tags);
                            h.status(&pass, &done, true, "mac_many");
                            for t in &tags {
                                h.output(&pass, &mut t.as_bytes().to_vec(), &want, &format!("mac_many {name}"));
                            }
                            let mut ok = [false; 2];
                            let all = mmh::verify_many(&items, &[want.as_slice(), bad.as_slice()], &mut ok);
                            let mut bits = [u8::from(ok[0]), u8::from(ok[1])];
                            if pass.taints() {
                                let taint = carries_undefined_bits(&bits);
                                h.check(taint, &pass, "mmh::verify_many: verdicts do not depend on the secret");
                            }
                            declassify(&mut bits);
                            declassify_value(&mut ok);
                            let mut all = all;
                            declassify_value(&mut all);
                            h.check(ok == [true, false] && all == Ok(false), &pass, "mmh::verify_many: wrong verdicts");
                        }
                    });
                }
            }
        }
    }
}

/// The RustCrypto `Aead` (16-byte tags) of one key size: encrypt, decrypt
/// with the right tag and with a wrong one.
fn aead_roundtrip<C: Aead + KeyInit>(h: &mut Harness, pass: &Pass, key: &[u8], case: &CwcCase, m: &[u8]) {
    let (nonce, aad, want) = (&case.nonce[..], &case.aad[..], &case.aead_sealed[..]);
    let c = C::new_from_slice(key).expect("16, 24 or 32 bytes");
    let n = aead::Nonce::<C>::try_from(nonce).expect("11 bytes");
    let sealed = c.encrypt(&n, Payload { msg: m, aad });
    h.status(pass, &sealed.as_ref().map_err(|_| Error::TagMismatch), true, "Aead::encrypt");
    h.output(pass, &mut sealed.unwrap_or_default(), want, "Aead::encrypt");
    let ct = input(want, pass.secret == Secret::Message);
    let opened = c.decrypt(&n, Payload { msg: &ct, aad }).map_err(|_| Error::TagMismatch);
    h.status(pass, &opened, true, "Aead::decrypt (right tag)");
    h.output(pass, &mut opened.unwrap_or_default(), &case.msg, "Aead::decrypt");
    let mut forged = ct.clone();
    let last = forged.len() - 1;
    forged[last] ^= 1;
    let refused = c.decrypt(&n, Payload { msg: &forged, aad }).map_err(|_| Error::TagMismatch);
    h.status(pass, &refused, false, "Aead::decrypt (wrong tag)");
}

/// One CWC input, every value defined: what the passes copy and mark.
struct CwcCase {
    nonce: [u8; 11],
    aad: Vec<u8>,
    msg: Vec<u8>,
    ct: Vec<u8>,
    tag: Vec<u8>,
    bad: Vec<u8>,
    /// `ct || tag` with a 16-byte tag, for the RustCrypto `Aead`.
    aead_sealed: Vec<u8>,
}

fn cwc(h: &mut Harness, rng: &mut Rng, lens: &[usize], levels: &[Features]) {
    for (i, &len) in lens.iter().enumerate() {
        let key_bytes = rng.bytes([16, 24, 32][i % 3]);
        let tag_len = if i % 4 == 3 { 12 } else { 16 };
        let (nonce, aad, msg) = (rng.array(), rng.bytes(AAD_LEN), rng.bytes(len));
        let reference = CwcKey::new(&key_bytes).expect("a valid key length");
        let mut ct = reference.encrypt(&nonce, &aad, &msg, tag_len).expect("short");
        let tag = ct.split_off(len);
        let bad = flipped(&tag, len);
        let aead_sealed = reference.encrypt(&nonce, &aad, &msg, 16).expect("short");
        let case = CwcCase { nonce, aad, msg, ct, tag, bad, aead_sealed };
        for secret in [Secret::Key, Secret::Message] {
            let pass = Pass { family: "cwc", level: "detected".into(), secret, len };
            let key = input(&key_bytes, secret == Secret::Key);
            let m = input(&case.msg, secret == Secret::Message);
            let ct = input(&case.ct, secret == Secret::Message);
            h.section(format!("cwc {}", level_name(Features::detect())), |h| match key.len() {
                16 => aead_roundtrip::<CwcAes128>(h, &pass, &key, &case, &m),
                24 => aead_roundtrip::<CwcAes192>(h, &pass, &key, &case, &m),
                _ => aead_roundtrip::<CwcAes256>(h, &pass, &key, &case, &m),
            });
            let mut seen = Vec::new();
            for &f in levels {
                let ck = CwcKey::with_features(&key, f).expect("a valid key length");
                if seen.contains(&ck.platform()) {
                    continue; // this level runs the same backend as one before
                }
                seen.push(ck.platform());
                let pass = pass.at(&level_name(f));
                h.backend("cwc", ck.platform().name());
                h.section(format!("cwc {}", pass.level), |h| cwc_key(h, &pass, &ck, &case, &m, &ct));
            }
        }
    }
}

/// Every CWC call under one key, on the plaintext `m` and the ciphertext
/// `ct` (copies of the case's, marked as the pass requires).
fn cwc_key(h: &mut Harness, pass: &Pass, ck: &CwcKey, case: &CwcCase, m: &[u8], ct: &[u8]) {
    let (nonce, aad, tag, bad, tl) = (&case.nonce, &case.aad[..], &case.tag[..], &case.bad[..], case.tag.len());
    // Encryption: detached in place, combined, streaming.
    let mut buf = m.to_vec();
    let t = ck.encrypt_detached(nonce, aad, &mut buf, tl);
    h.status(pass, &t, true, "encrypt_detached");
    h.output(pass, &mut buf, &case.ct, "encrypt_detached (ciphertext)");
    h.output(pass, &mut t.map(|t| t.as_slice().to_vec()).unwrap_or_default(), tag, "encrypt_detached (tag)");
    let sealed = ck.encrypt(nonce, aad, m, tl);
    h.status(pass, &sealed, true, "encrypt");
    h.output(pass, &mut sealed.unwrap_or_default(), &[&case.ct[..], tag].concat(), "encrypt");
    let mut buf = m.to_vec();
    let mut enc = ck.encryptor(nonce, aad, tl).expect("valid lengths");
    for p in pieces(m.len()) {
        enc.update(&mut buf[p]).expect("short");
    }
    h.output(pass, &mut enc.finalize().as_slice().to_vec(), tag, "Encryptor (tag)");
    h.output(pass, &mut buf, &case.ct, "Encryptor (ciphertext)");

    // One-shot decryption: the right tag, then a wrong one (the buffer zeroed).
    let mut buf = ct.to_vec();
    let opened = ck.decrypt_detached(nonce, aad, &mut buf, tag);
    h.status(pass, &opened, true, "decrypt_detached (right tag)");
    h.output(pass, &mut buf, &case.msg, "decrypt_detached");
    let mut buf = ct.to_vec();
    let refused = ck.decrypt_detached(nonce, aad, &mut buf, bad);
    h.status(pass, &refused, false, "decrypt_detached (wrong tag)");
    declassify(&mut buf);
    h.check(buf.iter().all(|&b| b == 0), pass, "decrypt_detached (wrong tag): did not zero the buffer");
    let mut whole = [ct, tag].concat();
    let opened = ck.decrypt(nonce, aad, &whole, tl);
    h.status(pass, &opened, true, "decrypt (right tag)");
    h.output(pass, &mut opened.unwrap_or_default(), &case.msg, "decrypt");
    let n = whole.len();
    whole[n - tl..].copy_from_slice(bad);
    h.status(pass, &ck.decrypt(nonce, aad, &whole, tl), false, "decrypt (wrong tag)");
    h.verdict(pass, ck.verify_detached(nonce, aad, ct, tag), true, "verify_detached (right tag)");
    h.verdict(pass, ck.verify_detached(nonce, aad, ct, bad), false, "verify_detached (wrong tag)");

    // Streaming decryption: Verifier, then Decryptor on the same ciphertext;
    // a wrong tag; a second pass that differs from the first.
    let verifier = || {
        let mut v = ck.verifier(nonce, aad, tl).expect("valid lengths");
        for p in pieces(ct.len()) {
            v.update(&ct[p]).expect("short");
        }
        v
    };
    let decryptor = verifier().verify(tag);
    h.status(pass, &decryptor, true, "Verifier::verify (right tag)");
    if let Ok(mut d) = decryptor {
        let mut buf = ct.to_vec();
        for p in pieces(ct.len()) {
            d.update(&mut buf[p]).expect("short");
        }
        h.verdict(pass, d.finish(), true, "Decryptor::finish");
        h.output(pass, &mut buf, &case.msg, "Decryptor");
    }
    h.status(pass, &verifier().verify(bad), false, "Verifier::verify (wrong tag)");
    if let (Ok(mut d), false) = (verifier().verify(tag), ct.is_empty()) {
        let mut changed = ct.to_vec();
        changed[0] ^= 1;
        d.update(&mut changed).expect("short");
        h.verdict(pass, d.finish(), false, "Decryptor::finish (changed second pass)");
    }
}

fn main() -> std::process::ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (mut quick, mut leaky) = (false, false);
    for a in &args {
        match a.as_str() {
            "--quick" if !quick => quick = true,
            "--leaky" if !leaky => leaky = true,
            _ => {
                eprintln!("usage: ctgrind [--quick] [--leaky]   (under valgrind --tool=memcheck; see tools/ctgrind)");
                return std::process::ExitCode::from(3);
            }
        }
    }
    LEAKY.store(leaky, Ordering::Relaxed);
    if !client::running_on_valgrind() {
        eprintln!("ctgrind: must run under valgrind --tool=memcheck (nothing is checked otherwise); see tools/ctgrind");
        return std::process::ExitCode::from(3);
    }
    let levels = Features::detect().every_level();
    let names: Vec<String> = levels.iter().map(|&f| level_name(f)).collect();
    println!(
        "ctgrind: detected {}; levels {} (and float64 for Poly1305)",
        level_name(Features::detect()),
        names.join(", ")
    );
    let pick = |full, short| if quick { short } else { full };
    let mut h = Harness::default();
    let mut rng = Rng(0x5eed_c7c7);
    let mut poly_levels = levels.clone();
    poly_levels.push(Features::float64());
    poly1305aes(&mut h, &mut rng, pick(POLY_LENS, POLY_LENS_QUICK), &poly_levels);
    mmh(&mut h, &mut rng, pick(MMH_LENS, MMH_LENS_QUICK), &levels);
    cwc(&mut h, &mut rng, pick(CWC_LENS, CWC_LENS_QUICK), &levels);

    for family in ["poly1305aes", "mmh", "cwc"] {
        let b: Vec<&str> = h.backends.iter().filter(|(f, _)| *f == family).map(|(_, n)| n.as_str()).collect();
        println!("ctgrind: backends {family}: {}", b.join(", "));
    }
    for (section, errors) in &h.sections {
        println!("ctgrind: section {section}: {errors} memcheck errors");
    }
    println!("ctgrind: {} passed, {} failed", h.passed, h.failed);
    std::process::ExitCode::from(if h.failed == 0 { 0 } else { 2 })
}
