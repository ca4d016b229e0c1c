//! AVX2 MMH32, its Toeplitz variants and NMH32: `vpmuludq` takes four
//! 32×32→64-bit products per instruction.
//!
//! # Why the lanes cannot overflow
//! Definitions 5 and 10 (and the spec) take the inner product **mod 2^64**
//! before reducing mod 2^32 + 15. Each 64-bit lane adds its products with
//! `vpaddq`, which wraps mod 2^64, and the four lanes are added the same
//! way at the end of the block: a sum mod 2^64 of sums mod 2^64 is the
//! inner product mod 2^64, whatever the order. So there is no bound to
//! keep; the lanes hold exactly what the portable code's wrapping `u64`
//! holds, and the same [`reduce64`] finishes each output word.
//!
//! # Layout
//! A 128-byte block is four 256-bit vectors of eight 32-bit words. `vpmuludq`
//! multiplies the low (even) words of each 64-bit lane; shifting message and
//! key right by 32 gives the odd ones. Output t of an n-fold Toeplitz MMH32
//! uses key words t .. t+32, an unaligned load at word offset t. NMH32 adds
//! message and key words with `vpaddd` (mod 2^32) and multiplies each even
//! sum by the odd one beside it.
//!
//! Constant time: straight-line vector code; loops and branches depend on
//! the algorithm and the number of blocks only.

use core::arch::x86_64::*;

use super::soft::reduce64;
use crate::avx2_mul::mul32;
use crate::cpu::Avx2;
use crate::mmh::alg::{Alg, K};

/// Hash every 128-byte block of `blocks` under the level key `x`
/// (`alg.level_key_words()` words), writing `alg.toeplitz()` little-endian
/// words per block to `out`. `alg` is one of the 32-bit algorithms.
pub(crate) fn compress32(token: Avx2, alg: Alg, x: &[u32], blocks: &[u8], out: &mut [u8]) {
    assert!(x.len() >= alg.level_key_words(), "a level key of the algorithm's size");
    assert!(blocks.len().is_multiple_of(4 * K) && out.len() == blocks.len() / (4 * K) * 4 * alg.toeplitz());
    // SAFETY: `token` is an `Avx2`, which `crate::cpu` hands out only after
    // detecting AVX2 on this CPU; the asserts above are the length
    // preconditions of the loads and stores.
    unsafe {
        match alg {
            Alg::Mmh32 => mmh32_blocks::<1>(token, x, blocks, out),
            Alg::Mmh32x2 => mmh32_blocks::<2>(token, x, blocks, out),
            Alg::Mmh32x3 => mmh32_blocks::<3>(token, x, blocks, out),
            Alg::Mmh32x4 => mmh32_blocks::<4>(token, x, blocks, out),
            Alg::Nmh32 => nmh32_blocks(token, x, blocks, out),
            Alg::Mmh64 | Alg::Mmh64x2 => unreachable!("64-bit algorithms run the portable code"),
        }
    }
}

/// The four 64-bit lanes added mod 2^64 (a block left over after the
/// groups of four).
#[target_feature(enable = "avx2")]
#[inline]
fn lanes_sum(v: __m256i) -> u64 {
    let s = _mm_add_epi64(_mm256_castsi256_si128(v), _mm256_extracti128_si256::<1>(v));
    (_mm_cvtsi128_si64(s) as u64).wrapping_add(_mm_extract_epi64::<1>(s) as u64)
}

/// The lane sums of four accumulators, as the four lanes of one vector
/// (each mod 2^64): `[Σa, Σb, Σc, Σd]`.
#[target_feature(enable = "avx2")]
#[inline]
pub(super) fn sums4(a: __m256i, b: __m256i, c: __m256i, d: __m256i) -> __m256i {
    // [a0+a1, b0+b1, a2+a3, b2+b3] and the same for c, d.
    let ab = _mm256_add_epi64(_mm256_unpacklo_epi64(a, b), _mm256_unpackhi_epi64(a, b));
    let cd = _mm256_add_epi64(_mm256_unpacklo_epi64(c, d), _mm256_unpackhi_epi64(c, d));
    _mm256_add_epi64(_mm256_permute2x128_si256::<0x20>(ab, cd), _mm256_permute2x128_si256::<0x31>(ab, cd))
}

/// [`reduce64::<32, 15>`] on four lanes at once: `(x mod (2^32 + 15)) mod
/// 2^32` for each 64-bit lane x, the same steps and bounds:
///
/// ```text
/// y = b - 15a          in [-15(2^32 - 1), 2^32 - 1], so floor(y / 2^32) = c in [-15, 0]
///                      is the high 32-bit half of y's lane read as signed
/// z = d + 15(-c)       in [0, 2^32 - 1 + 225] < 2p, d = y mod 2^32
/// r = z - p if z >= p  (signed 64-bit compare; z < 2^33)
/// ```
#[target_feature(enable = "avx2")]
#[inline]
fn reduce4(x: __m256i) -> __m256i {
    let lo = _mm256_set1_epi64x(0xffff_ffff);
    let fifteen = _mm256_set1_epi64x(15);
    let a = _mm256_srli_epi64::<32>(x);
    let b = _mm256_and_si256(x, lo);
    let y = _mm256_sub_epi64(b, mul32(a, fifteen));
    // -c: the high half of y negated as a 32-bit value, in [0, 15].
    let neg_c = _mm256_and_si256(_mm256_sub_epi32(_mm256_setzero_si256(), _mm256_srli_epi64::<32>(y)), lo);
    let z = _mm256_add_epi64(_mm256_and_si256(y, lo), mul32(neg_c, fifteen));
    // z >= p  <=>  z > p - 1
    let ge = _mm256_cmpgt_epi64(z, _mm256_set1_epi64x((1 << 32) + 14));
    let r = _mm256_sub_epi64(z, _mm256_and_si256(ge, _mm256_set1_epi64x((1 << 32) + 15)));
    _mm256_and_si256(r, lo)
}

/// The four reduced words of `sums4` output, low 32 bits of each lane.
#[target_feature(enable = "avx2")]
#[inline]
fn words4(v: __m256i) -> [u32; 4] {
    let packed = _mm256_permutevar8x32_epi32(reduce4(v), _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6));
    let w = _mm_cvtsi128_si64(_mm256_castsi256_si128(packed)) as u64;
    let w2 = _mm_extract_epi64::<1>(_mm256_castsi256_si128(packed)) as u64;
    [w as u32, (w >> 32) as u32, w2 as u32, (w2 >> 32) as u32]
}

/// One block's accumulator for output t of an MMH32 (key words t..t+32).
///
/// # Safety
/// AVX2 present; `bp` points to 128 readable bytes and `kp` to 32
/// readable words.
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn mmh32_acc(bp: *const u8, kp: *const u32) -> __m256i {
    let mut acc = _mm256_setzero_si256();
    for j in 0..4 {
        // SAFETY: the caller's preconditions cover bytes 32j..32j+32 of the
        // block and words 8j..8j+8 of the key.
        let (m, k) = unsafe { (_mm256_loadu_si256(bp.add(32 * j).cast()), _mm256_loadu_si256(kp.add(8 * j).cast())) };
        acc = _mm256_add_epi64(acc, mul32(m, k));
        acc = _mm256_add_epi64(acc, mul32(_mm256_srli_epi64::<32>(m), _mm256_srli_epi64::<32>(k)));
    }
    acc
}

/// One block's NMH32 accumulator under key `k` (32 words in four vectors).
///
/// # Safety
/// AVX2 present; `bp` points to 128 readable bytes.
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn nmh32_acc(bp: *const u8, k: &[__m256i; 4]) -> __m256i {
    let mut acc = _mm256_setzero_si256();
    for (j, &kj) in k.iter().enumerate() {
        // SAFETY: bytes 32j..32j+32 of the caller's 128-byte block.
        let m = unsafe { _mm256_loadu_si256(bp.add(32 * j).cast()) };
        let a = _mm256_add_epi32(m, kj);
        acc = _mm256_add_epi64(acc, mul32(a, _mm256_srli_epi64::<32>(a)));
    }
    acc
}

/// # Safety
/// AVX2 present; `x` has at least 31 + N words; `blocks` is whole 128-byte
/// blocks and `out` holds 4·N bytes per block.
#[target_feature(enable = "avx2")]
unsafe fn mmh32_blocks<const N: usize>(_proof: Avx2, x: &[u32], blocks: &[u8], out: &mut [u8]) {
    // Spill slots on their alignment wherever the stack lands (crate::frame).
    let _frame = crate::frame::Align64::pin();
    let mut groups = blocks.chunks_exact(16 * K);
    let mut outs = out.chunks_exact_mut(16 * N);
    for (i, (g, o)) in (&mut groups).zip(&mut outs).enumerate() {
        let gp = g.as_ptr();
        crate::prefetch::run_ahead(blocks, 16 * K * i, 16 * K * (i + 1));
        for t in 0..N {
            let kp = x[t..].as_ptr();
            // SAFETY: `g` is four 128-byte blocks; words t..t+32 lie within
            // x (t + 32 <= 31 + N).
            let s = unsafe {
                sums4(
                    mmh32_acc(gp, kp),
                    mmh32_acc(gp.add(128), kp),
                    mmh32_acc(gp.add(256), kp),
                    mmh32_acc(gp.add(384), kp),
                )
            };
            for (b, w) in words4(s).iter().enumerate() {
                o[4 * (b * N + t)..4 * (b * N + t) + 4].copy_from_slice(&w.to_le_bytes());
            }
        }
    }
    for (b, o) in groups.remainder().chunks_exact(4 * K).zip(outs.into_remainder().chunks_exact_mut(4 * N)) {
        for (t, d) in o.chunks_exact_mut(4).enumerate() {
            // SAFETY: `b` is 128 bytes; words t..t+32 lie within x.
            let acc = unsafe { mmh32_acc(b.as_ptr(), x[t..].as_ptr()) };
            d.copy_from_slice(&(reduce64::<32, 15>(lanes_sum(acc)) as u32).to_le_bytes());
        }
    }
}

/// # Safety
/// AVX2 present; `x` has at least 32 words; `blocks` is whole 128-byte
/// blocks and `out` holds 4 bytes per block.
#[target_feature(enable = "avx2")]
unsafe fn nmh32_blocks(_proof: Avx2, x: &[u32], blocks: &[u8], out: &mut [u8]) {
    // Spill slots on their alignment wherever the stack lands (crate::frame).
    let _frame = crate::frame::Align64::pin();
    let kp = x.as_ptr();
    // SAFETY: x has at least 32 words: four unaligned 32-byte loads.
    let k: [__m256i; 4] = core::array::from_fn(|j| unsafe { _mm256_loadu_si256(kp.add(8 * j).cast()) });
    let mut groups = blocks.chunks_exact(16 * K);
    let mut outs = out.chunks_exact_mut(16);
    for (i, (g, o)) in (&mut groups).zip(&mut outs).enumerate() {
        let gp = g.as_ptr();
        crate::prefetch::run_ahead(blocks, 16 * K * i, 16 * K * (i + 1));
        // SAFETY: `g` is four 128-byte blocks.
        let s = unsafe {
            sums4(nmh32_acc(gp, &k), nmh32_acc(gp.add(128), &k), nmh32_acc(gp.add(256), &k), nmh32_acc(gp.add(384), &k))
        };
        for (w, d) in words4(s).iter().zip(o.chunks_exact_mut(4)) {
            d.copy_from_slice(&w.to_le_bytes());
        }
    }
    for (b, d) in groups.remainder().chunks_exact(4 * K).zip(outs.into_remainder().chunks_exact_mut(4)) {
        // SAFETY: `b` is 128 bytes.
        let acc = unsafe { nmh32_acc(b.as_ptr(), &k) };
        d.copy_from_slice(&(reduce64::<32, 15>(lanes_sum(acc)) as u32).to_le_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mmh::backend::leaf32_checks;

    #[test]
    fn equals_the_portable_block_functions() {
        let Some(token) = crate::cpu::token_for_test("Avx2", crate::cpu::Features::avx2) else { return };
        leaf32_checks::equals_the_portable_block_functions(&|alg, x, blocks, out| {
            compress32(token, alg, x, blocks, out)
        });
    }

    #[test]
    fn reduce4_equals_reduce64() {
        let Some(_) = crate::cpu::token_for_test("Avx2", crate::cpu::Features::avx2) else { return };
        leaf32_checks::reduction_equals_reduce64(4, &|l| {
            // SAFETY: AVX2 was detected above.
            unsafe { reduce4_test(l.try_into().expect("four lanes")) }.to_vec()
        });
    }

    /// # Safety
    /// AVX2 present.
    #[target_feature(enable = "avx2")]
    unsafe fn reduce4_test(l: [u64; 4]) -> [u32; 4] {
        words4(_mm256_setr_epi64x(l[0] as i64, l[1] as i64, l[2] as i64, l[3] as i64))
    }
}
