//! The timed calls and their two classes of inputs.
//!
//! Each case times one public call, exactly as users make it, on inputs of
//! two classes that differ only in a secret (or a secret-dependent value:
//! the tag compared with the computed one). Inputs are made in pools of
//! [`POOL`], each entry's class drawn at random and every entry in its own
//! memory, so both classes see the same cache behaviour and any drift of the
//! machine (frequency, the other core's load) falls on both alike.

use std::hint::black_box;

use rand::rngs::StdRng;
use rand::{Rng, RngCore};
use wegman::cwc::CwcKey;
use wegman::mmh::{self, Alg};
use wegman::poly1305aes::{self, Key};

use crate::tsc;

/// Inputs made at a time (and measured once each, in order).
const POOL: usize = 4096;
/// The message length of the short cases (one 64-byte group: the compare
/// and the key set-up are a large share of the call).
const SHORT: usize = 64;
/// A length that takes the SIMD paths of the Poly1305 backends.
const LONG: usize = 1024;

/// One timing test.
pub struct Case {
    pub name: &'static str,
    /// What class a and class b are.
    pub classes: &'static str,
    /// A deliberately leaky control, which the test must flag.
    pub control: bool,
    run: fn(usize, &mut StdRng) -> Vec<(bool, u32)>,
}

impl Case {
    /// At least `per_class` timings of each class, as (is class b, ticks).
    pub fn run(&self, per_class: usize, rng: &mut StdRng) -> Vec<(bool, u32)> {
        (self.run)(per_class, rng)
    }
}

/// Time `call` on pools of inputs from `make(class, rng)` until each class
/// has `per_class` timings.
fn measure<I>(
    per_class: usize,
    rng: &mut StdRng,
    mut make: impl FnMut(bool, &mut StdRng) -> I,
    mut call: impl FnMut(&mut I),
) -> Vec<(bool, u32)> {
    let mut out = Vec::with_capacity(2 * per_class + POOL);
    let mut counts = [0usize; 2];
    while counts[0] < per_class || counts[1] < per_class {
        let mut pool: Vec<(bool, I)> = (0..POOL)
            .map(|_| {
                let class = rng.random::<bool>();
                (class, make(class, rng))
            })
            .collect();
        for (class, input) in &mut pool {
            let t0 = tsc::now();
            call(black_box(input));
            let t1 = tsc::now();
            out.push((*class, u32::try_from(t1.saturating_sub(t0)).unwrap_or(u32::MAX)));
            counts[usize::from(*class)] += 1;
        }
    }
    out
}

fn random<const N: usize>(rng: &mut StdRng) -> [u8; N] {
    let mut b = [0u8; N];
    rng.fill_bytes(&mut b);
    b
}

/// A random Poly1305-AES key with r clamped.
fn poly_key_bytes(rng: &mut StdRng) -> [u8; 32] {
    let mut kr = random::<32>(rng);
    poly1305aes::clamp((&mut kr[16..]).try_into().expect("16 bytes"));
    kr
}

/// A copy of `tag` with byte `at` changed (by a random non-zero XOR).
fn flipped(tag: [u8; 16], at: usize, rng: &mut StdRng) -> [u8; 16] {
    let mut t = tag;
    t[at] ^= rng.random_range(1..=255u8);
    t
}

/// Poly1305-AES `verify(key, tag, nonce, message)`; the message, nonce and
/// key fixed, the tag from `tag_of(class, right tag, rng)`.
fn poly_tags(
    per_class: usize,
    rng: &mut StdRng,
    len: usize,
    tag_of: fn(bool, [u8; 16], &mut StdRng) -> [u8; 16],
) -> Vec<(bool, u32)> {
    let key = Key::from_bytes(&poly_key_bytes(rng)).expect("clamped");
    let nonce = random::<16>(rng);
    let mut message = vec![0u8; len];
    rng.fill_bytes(&mut message);
    let right = poly1305aes::authenticate(&key, &nonce, &message);
    measure(
        per_class,
        rng,
        |class, rng| tag_of(class, right, rng),
        |tag| {
            black_box(poly1305aes::verify(&key, tag, &nonce, &message).is_ok());
        },
    )
}

/// Poly1305-AES `verify` under a fixed key (class a) or random keys (class
/// b), each with a random (wrong) tag.
fn poly_keys(per_class: usize, rng: &mut StdRng, fixed: [u8; 32]) -> Vec<(bool, u32)> {
    let nonce = random::<16>(rng);
    let message = random::<SHORT>(rng);
    measure(
        per_class,
        rng,
        |class, rng| {
            let kr = if class { poly_key_bytes(rng) } else { fixed };
            (Key::from_bytes(&kr).expect("clamped"), random::<16>(rng))
        },
        |(key, tag)| {
            black_box(poly1305aes::verify(key, tag, &nonce, &message).is_ok());
        },
    )
}

/// MMH32 `verify(alg, key, tag, nonce, message)`: right tag (a) or a random
/// one (b), or a fixed all-zero key (a) against random keys (b).
fn mmh(per_class: usize, rng: &mut StdRng, vary_key: bool) -> Vec<(bool, u32)> {
    let alg = Alg::Mmh32;
    let key = random::<32>(rng);
    let nonce = random::<16>(rng);
    let message = random::<SHORT>(rng);
    let right = mmh::mac(alg, &key, &nonce, &message).expect("short message");
    measure(
        per_class,
        rng,
        |class, rng| {
            let k = if vary_key && class {
                random::<32>(rng)
            } else if vary_key {
                [0u8; 32]
            } else {
                key
            };
            let mut tag = [0u8; 4];
            if class || vary_key {
                rng.fill_bytes(&mut tag);
            } else {
                tag.copy_from_slice(right.as_bytes());
            }
            (k, tag)
        },
        |(k, tag)| {
            black_box(mmh::verify(alg, k, tag, &nonce, &message).is_ok());
        },
    )
}

/// CWC-AES-128 `decrypt_detached` of a 64-byte ciphertext with a forged
/// tag: wrong in its first byte (a) or its last (b); or under a fixed
/// all-zero key (a) against random keys (b), with random tags.
fn cwc(per_class: usize, rng: &mut StdRng, vary_key: bool) -> Vec<(bool, u32)> {
    let k = random::<16>(rng);
    let key = CwcKey::new(&k).expect("16-byte key");
    let nonce = random::<11>(rng);
    let aad = random::<16>(rng);
    let mut ciphertext = random::<SHORT>(rng);
    let right: [u8; 16] =
        key.encrypt_detached(&nonce, &aad, &mut ciphertext, 16).expect("short").as_slice().try_into().expect("16");
    measure(
        per_class,
        rng,
        |class, rng| {
            let input_key = if !vary_key {
                None
            } else if class {
                Some(CwcKey::new(&random::<16>(rng)).expect("16-byte key"))
            } else {
                Some(CwcKey::new(&[0u8; 16]).expect("16-byte key"))
            };
            let tag = if vary_key { random::<16>(rng) } else { flipped(right, if class { 15 } else { 0 }, rng) };
            (input_key, tag, ciphertext)
        },
        |(input_key, tag, buf)| {
            let key = input_key.as_ref().unwrap_or(&key);
            black_box(key.decrypt_detached(&nonce, &aad, buf, tag).is_ok());
        },
    )
}

/// The negative control: Poly1305-AES's tag compared with an early-exit
/// loop, the tag wrong in its first byte (a) or its last (b).
fn leaky_control(per_class: usize, rng: &mut StdRng) -> Vec<(bool, u32)> {
    let key = Key::from_bytes(&poly_key_bytes(rng)).expect("clamped");
    let nonce = random::<16>(rng);
    let message = random::<SHORT>(rng);
    let right = poly1305aes::authenticate(&key, &nonce, &message);
    measure(
        per_class,
        rng,
        |class, rng| flipped(right, if class { 15 } else { 0 }, rng),
        |tag| {
            let computed = poly1305aes::authenticate(&key, &nonce, &message);
            let mut equal = true;
            for i in 0..16 {
                if black_box(computed[i]) != black_box(tag[i]) {
                    equal = false;
                    break;
                }
            }
            black_box(equal);
        },
    )
}

/// r with every bit §2 allows set, and k all ones.
const KEY_MAX: [u8; 32] = [
    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, //
    0xff, 0xff, 0xff, 0x0f, 0xfc, 0xff, 0xff, 0x0f, 0xfc, 0xff, 0xff, 0x0f, 0xfc, 0xff, 0xff, 0x0f,
];

pub const CASES: &[Case] = &[
    Case {
        name: "poly1305aes-verify-64B-right-vs-wrong-tag",
        classes: "a: the right tag; b: a random tag",
        control: false,
        run: |n, rng| poly_tags(n, rng, SHORT, |class, right, rng| if class { random(rng) } else { right }),
    },
    Case {
        name: "poly1305aes-verify-64B-first-vs-last-byte",
        classes: "a: tag wrong in byte 0; b: wrong in byte 15",
        control: false,
        run: |n, rng| poly_tags(n, rng, SHORT, |class, right, rng| flipped(right, if class { 15 } else { 0 }, rng)),
    },
    Case {
        name: "poly1305aes-verify-1KiB-right-vs-wrong-tag",
        classes: "a: the right tag; b: a random tag",
        control: false,
        run: |n, rng| poly_tags(n, rng, LONG, |class, right, rng| if class { random(rng) } else { right }),
    },
    Case {
        name: "poly1305aes-verify-key-zero-vs-random",
        classes: "a: k = 0, r = 0; b: random keys",
        control: false,
        run: |n, rng| poly_keys(n, rng, [0u8; 32]),
    },
    Case {
        name: "poly1305aes-verify-key-max-vs-random",
        classes: "a: k all ones, r all allowed bits; b: random keys",
        control: false,
        run: |n, rng| poly_keys(n, rng, KEY_MAX),
    },
    Case {
        name: "mmh32-verify-64B-right-vs-wrong-tag",
        classes: "a: the right tag; b: a random tag",
        control: false,
        run: |n, rng| mmh(n, rng, false),
    },
    Case {
        name: "mmh32-verify-key-zero-vs-random",
        classes: "a: all-zero key; b: random keys",
        control: false,
        run: |n, rng| mmh(n, rng, true),
    },
    Case {
        name: "cwc-decrypt-64B-forged-first-vs-last-byte",
        classes: "a: tag wrong in byte 0; b: wrong in byte 15",
        control: false,
        run: |n, rng| cwc(n, rng, false),
    },
    Case {
        name: "cwc-decrypt-64B-key-zero-vs-random",
        classes: "a: all-zero key; b: random keys (random tags)",
        control: false,
        run: |n, rng| cwc(n, rng, true),
    },
    Case {
        name: "CONTROL-early-exit-compare",
        classes: "a: tag wrong in byte 0; b: wrong in byte 15",
        control: true,
        run: leaky_control,
    },
];
