//! Differential tests: the MMH fast paths against the big-integer reference
//! model (wegman-ref), at lengths around every block and level boundary,
//! with all-0xff inputs, with key and message words that drive the inner
//! product to its bounds and onto multiples of p, and at random split points.

use proptest::prelude::*;
use rand::{Rng, RngCore, SeedableRng};
use wegman::cpu::Features;
use wegman::mmh::{self, Alg, MacKey, block};
use wegman::platform::Platform;
use wegman_ref::mmh as reference;

/// The smallest length whose tree needs `levels` levels, found on the
/// library's count and checked against the reference's independent one.
fn first_len_needing(alg: Alg, levels: usize) -> usize {
    let (mut lo, mut hi) = (0u128, 1u128 << 40);
    while lo < hi {
        let mid = (lo + hi) / 2;
        if alg.levels_for_len(mid) >= levels { hi = mid } else { lo = mid + 1 }
    }
    assert_eq!(reference::levels(alg.name(), lo), levels, "{alg}");
    assert_eq!(reference::levels(alg.name(), lo - 1), levels - 1, "{alg}");
    lo as usize
}

/// Lengths around every block and level boundary worth checking for `alg`.
fn boundary_lengths(alg: Alg) -> Vec<usize> {
    let b = alg.block_bytes();
    let mut lens = vec![0, 1, 2, 3, 4, 7, 8, 15, 16, 17, 31, 32, 33];
    for centre in [128, 256, 384, 512, b * 3, 4096, b * 32, first_len_needing(alg, 3), first_len_needing(alg, 4)] {
        lens.extend([centre - 1, centre, centre + 1]);
    }
    lens.sort_unstable();
    lens.dedup();
    lens
}

fn random_bytes(rng: &mut impl RngCore, len: usize) -> Vec<u8> {
    let mut v = vec![0u8; len];
    rng.fill_bytes(&mut v);
    v
}

#[test]
fn level_counts_agree_with_the_reference_and_the_spec() {
    // The first lengths needing 2 and 3 levels, per spec §3 arithmetic.
    let expect = [
        (Alg::Mmh32, 128, 3968),
        (Alg::Mmh32x2, 128, 1920),
        (Alg::Mmh32x3, 128, 1280),
        (Alg::Mmh32x4, 128, 896),
        (Alg::Nmh32, 128, 3968),
        (Alg::Mmh64, 256, 7936),
        (Alg::Mmh64x2, 256, 3840),
    ];
    for (alg, two, three) in expect {
        assert_eq!((first_len_needing(alg, 2), first_len_needing(alg, 3)), (two, three), "{alg}");
        for len in 0..=20_000u128 {
            assert_eq!(alg.levels_for_len(len), reference::levels(alg.name(), len), "{alg} {len}");
        }
        let max = alg.max_message_len();
        assert_eq!(reference::levels(alg.name(), max), 16, "{alg}");
        assert_eq!(reference::levels(alg.name(), max + 1), 17, "{alg}");
    }
    assert_eq!(Alg::Mmh32x4.max_message_len(), 3_860_228_252_031_871);
}

#[test]
fn every_boundary_length_random_and_all_ones() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(0x4d4d48);
    for alg in Alg::ALL {
        for len in boundary_lengths(alg) {
            let mut key = [0u8; 32];
            rng.fill_bytes(&mut key);
            let nonce: [u8; 16] = rng.random();
            let ks: [u8; 16] = key[16..].try_into().unwrap();
            for m in [random_bytes(&mut rng, len), vec![0xff; len]] {
                let want = reference::mac(alg.name(), &key, &nonce, &m).unwrap();
                let tag = mmh::mac(alg, &key, &nonce, &m).unwrap();
                assert_eq!(tag.as_bytes(), want, "{alg} len {len}");
                let expanded = MacKey::new(alg, &key);
                assert_eq!(expanded.mac(&nonce, &m).unwrap(), tag, "{alg} len {len}");
                let tree = expanded.tree_hash(&m).unwrap();
                assert_eq!(tree.as_bytes(), reference::tree_hash(alg.name(), &ks, &m).unwrap(), "{alg} len {len}");
                // two random splits
                let mut s = expanded.start(&nonce);
                let cut = rng.random_range(0..=len);
                s.update(&m[..cut]).unwrap();
                s.update(&m[cut..]).unwrap();
                assert_eq!(s.finalize().unwrap(), tag, "{alg} len {len} cut {cut}");
            }
        }
    }
}

#[test]
fn every_length_up_to_three_blocks_every_alg() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(3);
    for alg in Alg::ALL {
        let key: [u8; 32] = rng.random();
        let expanded = MacKey::with_features(alg, &key, Features::portable());
        assert_eq!(expanded.platform(), Platform::Portable);
        let nonce = [0x33u8; 16];
        for len in 0..=3 * alg.block_bytes() + 1 {
            let m = random_bytes(&mut rng, len);
            let want = reference::mac(alg.name(), &key, &nonce, &m).unwrap();
            assert_eq!(expanded.mac(&nonce, &m).unwrap().as_bytes(), want, "{alg} len {len}");
        }
    }
}

#[test]
fn long_messages_every_split_style() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(11);
    for alg in Alg::ALL {
        for len in [70_001usize, 262_145] {
            let key: [u8; 32] = rng.random();
            let nonce: [u8; 16] = rng.random();
            let m = random_bytes(&mut rng, len);
            let want = mmh::mac(alg, &key, &nonce, &m).unwrap();
            let expanded = MacKey::new(alg, &key);
            for max_piece in [1usize, 127, 4099, 70_000] {
                let mut s = expanded.start(&nonce);
                let mut rest = &m[..];
                while !rest.is_empty() {
                    let take = rng.random_range(0..=rest.len().min(max_piece));
                    s.update(&rest[..take]).unwrap();
                    rest = &rest[take..];
                }
                assert_eq!(s.finalize().unwrap(), want, "{alg} len {len} pieces ≤ {max_piece}");
            }
            if len == 70_001 {
                assert_eq!(want.as_bytes(), reference::mac(alg.name(), &key, &nonce, &m).unwrap(), "{alg}");
            }
        }
    }
}

/// Key and message words with Σ m[i]·x[i] = `sum` exactly (over the
/// integers), for any sum up to 31·(2^32 − 1)² + 2^32 − 1: greedy on
/// x = 0xffffffff for 31 words, the remainder in the last with x = 1.
fn words_with_sum32(sum: u128) -> ([u32; 32], [u32; 32]) {
    let mut x = [u32::MAX; 32];
    let mut m = [0u32; 32];
    let mut rest = sum;
    for mi in &mut m[..31] {
        let q = (rest / u128::from(u32::MAX)).min(u128::from(u32::MAX));
        *mi = q as u32;
        rest -= q * u128::from(u32::MAX);
    }
    // the last term carries the remainder as x = 1
    x[31] = 1;
    m[31] = u32::try_from(rest).expect("sum in range");
    (x, m)
}

#[test]
fn inner_products_on_and_around_multiples_of_p32() {
    // Sums at k·p32 + d for d ∈ [−3, 3]: k small, k around 2^32 (the sum
    // crossing 2^64 and wrapping), and k near the top of what 32 terms reach.
    let p = (1u128 << 32) + 15;
    let mut rng = rand::rngs::StdRng::seed_from_u64(32);
    let top = 31 * u128::from(u32::MAX) * u128::from(u32::MAX) / p;
    let mut ks: Vec<u128> = vec![0, 1, 2, 3, 15, 16, (1 << 32) - 16, (1 << 32) - 1, 1 << 32, (1 << 32) + 1, top - 1];
    ks.extend((0..200).map(|_| rng.random_range(0..top)));
    for k in ks {
        for d in -3i128..=3 {
            let sum = (k * p) as i128 + d;
            if sum < 0 {
                continue;
            }
            let (x, m) = words_with_sum32(sum as u128);
            let (x64, m64): (Vec<u64>, Vec<u64>) = (x.map(u64::from).to_vec(), m.map(u64::from).to_vec());
            let want = ((sum as u128 % (1 << 64)) % p % (1 << 32)) as u32;
            assert_eq!(block::mmh32(&x, &m), want, "k={k} d={d}");
            assert_eq!(reference::mmh32(&x64, &m64), u64::from(want));
        }
    }
}

#[test]
fn inner_products_on_and_around_multiples_of_p64() {
    // MMH64 sums at k·p64 + d: x[0] = k·p64 + d split across two words as
    // x[0]·m[0] + x[1]·m[1] with m = (2^64 − 1, 1), plus the 2^128 wrap.
    let p = (1u128 << 64) + 13;
    let mut rng = rand::rngs::StdRng::seed_from_u64(64);
    for _ in 0..300 {
        let k: u128 = rng.random_range(1..(1u128 << 63));
        for d in -2i128..=2 {
            let sum = (k as i128 * p as i128 + d) as u128; // < 2^127
            let hi = (sum / u128::from(u64::MAX)).min(u128::from(u64::MAX)) as u64;
            let lo = (sum - u128::from(hi) * u128::from(u64::MAX)) as u64;
            let mut x = [0u64; 32];
            let mut m = [0u64; 32];
            (x[0], m[0], x[1], m[1]) = (hi, u64::MAX, lo, 1);
            let want = (sum % p) as u64;
            assert_eq!(block::mmh64(&x, &m), want, "k={k} d={d}");
            assert_eq!(reference::mmh64(&x, &m), want);
        }
    }
    // All words at their maximum: 32·(2^64 − 1)² wraps mod 2^128.
    let ones = [u64::MAX; 32];
    assert_eq!(block::mmh64(&ones, &ones), reference::mmh64(&ones, &ones));
    let two: [u64; 2] = block::mmh64_toeplitz(&[u64::MAX; 33], &ones);
    assert_eq!(two.to_vec(), reference::toeplitz(reference::Family::Mmh64, 2, &[u64::MAX; 33], &ones));
}

fn edge32() -> impl Strategy<Value = u32> {
    prop_oneof![Just(0u32), Just(1), Just(15), Just(u32::MAX), Just(u32::MAX - 14), Just(1 << 31), any::<u32>()]
}

fn edge64() -> impl Strategy<Value = u64> {
    prop_oneof![Just(0u64), Just(1), Just(13), Just(u64::MAX), Just(u64::MAX - 12), Just(1 << 63), any::<u64>()]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn block_functions_32(x in prop::array::uniform32(edge32()), extra in prop::array::uniform3(edge32()),
                          m in prop::array::uniform32(edge32())) {
        let key: Vec<u32> = x.iter().chain(&extra).copied().collect();
        let key64: Vec<u64> = key.iter().map(|&w| u64::from(w)).collect();
        let m64: Vec<u64> = m.iter().map(|&w| u64::from(w)).collect();
        let four: [u32; 4] = block::mmh32_toeplitz(&key, &m);
        prop_assert_eq!(four.map(u64::from).to_vec(), reference::toeplitz(reference::Family::Mmh32, 4, &key64, &m64));
        prop_assert_eq!(u64::from(block::mmh32(&x, &m)), reference::mmh32(&key64, &m64));
        prop_assert_eq!(u64::from(block::nmh32(&x, &m)), reference::nmh32(&key64, &m64));
    }

    #[test]
    fn block_functions_64(x in prop::array::uniform32(edge64()), extra in edge64(),
                          m in prop::array::uniform32(edge64())) {
        let mut key = x.to_vec();
        key.push(extra);
        let two: [u64; 2] = block::mmh64_toeplitz(&key, &m);
        prop_assert_eq!(two.to_vec(), reference::toeplitz(reference::Family::Mmh64, 2, &key, &m));
        prop_assert_eq!(block::mmh64(&x, &m), reference::mmh64(&x, &m));
    }

    #[test]
    fn mac_random_lengths_and_splits(alg_i in 0usize..7, len in 0usize..2500, fill in prop_oneof![Just(None), Just(Some(0xffu8)), Just(Some(0u8))],
                                     key in any::<[u8; 32]>(), nonce in any::<[u8; 16]>(), seed in any::<u64>()) {
        let alg = Alg::ALL[alg_i];
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        let m = match fill { Some(b) => vec![b; len], None => random_bytes(&mut rng, len) };
        let want = reference::mac(alg.name(), &key, &nonce, &m).unwrap();
        let tag = mmh::mac(alg, &key, &nonce, &m).unwrap();
        prop_assert_eq!(tag.as_bytes(), &want[..]);
        let expanded = MacKey::new(alg, &key);
        let mut s = expanded.start(&nonce);
        let mut rest = &m[..];
        while !rest.is_empty() {
            let take = rng.random_range(0..=rest.len().min(300));
            s.update(&rest[..take]).unwrap();
            rest = &rest[take..];
        }
        prop_assert_eq!(s.finalize().unwrap(), tag);
    }
}

#[test]
fn key_stream_levels_are_where_spec_2_puts_them() {
    // A level's key words start every 256 bytes of KS (512 for MMH64): the
    // reference slices one long stream; check its slicing against AES directly.
    let ks = [0x24u8; 16];
    let ctr1 = reference::aes128(&ks, &{
        let mut b = [0u8; 16];
        b[0] = 1;
        b
    });
    assert_eq!(reference::key_stream(&ks, 32)[16..], ctr1, "the second block encrypts 01 00 … 00");
    let lk = reference::level_key("mmh32x4", &ks, 3);
    let ctr48 = reference::aes128(&ks, &48u128.to_le_bytes());
    assert_eq!(lk[0], u64::from(u32::from_le_bytes(ctr48[..4].try_into().unwrap())));
    let lk = reference::level_key("mmh64x2", &ks, 2);
    let ctr64 = reference::aes128(&ks, &64u128.to_le_bytes());
    assert_eq!((lk.len(), lk[0]), (33, u64::from_le_bytes(ctr64[..8].try_into().unwrap())));
}
