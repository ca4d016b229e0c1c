//! AVX-512 MMH32, its Toeplitz variants and NMH32: `vpmuludq` on 512-bit
//! registers, eight 32×32→64-bit products per instruction, eight blocks
//! per group. Runs on the IFMA tier, whose token proves AVX-512 F (all this
//! leaf uses).
//!
//! The arithmetic is `x86_avx2.rs`'s (read its "why the lanes cannot
//! overflow": each 64-bit lane adds its products mod 2^64, which is what
//! the spec's inner product mod 2^64 is, in any order), on registers twice
//! as wide:
//!
//! - a 128-byte block is two registers of sixteen 32-bit words; the even
//!   words of each 64-bit lane multiply directly, the odd ones after a
//!   32-bit shift (of the key, once per level key and output);
//! - eight blocks' accumulators are added across their lanes by a transpose
//!   (`sums8`: unpack, then 128-bit lane shuffles), giving one register
//!   whose lane b is block b's inner product mod 2^64;
//! - `reduce8` is `reduce4` on eight lanes: (x mod (2^32 + 15)) mod 2^32.
//!
//! Blocks left after the groups of eight go one at a time, their lanes
//! added by `_mm512_reduce_add_epi64` and reduced by the portable
//! [`reduce64`].
//!
//! Constant time: straight-line vector code; loops and branches depend on
//! the algorithm and the number of blocks only.

use core::arch::x86_64::*;

use super::soft::reduce64;
use crate::cpu::Avx512Ifma;
use crate::mmh::alg::{Alg, K};

/// Words reduced at once: a register's 64-bit lanes.
const GROUP: usize = 8;

/// Hash every 128-byte block of `blocks` under the level key `x`
/// (`alg.level_key_words()` words), writing `alg.toeplitz()` little-endian
/// words per block to `out`. `alg` is one of the 32-bit algorithms.
pub(crate) fn compress32(token: Avx512Ifma, alg: Alg, x: &[u32], blocks: &[u8], out: &mut [u8]) {
    assert!(x.len() >= alg.level_key_words(), "a level key of the algorithm's size");
    assert!(blocks.len().is_multiple_of(4 * K) && out.len() == blocks.len() / (4 * K) * 4 * alg.toeplitz());
    // SAFETY: `token` is an `Avx512Ifma`, which `crate::cpu` hands out only
    // after detecting AVX-512 F, VL, IFMA and VBMI on this CPU (this leaf
    // uses F); the asserts above are the length preconditions of the loads
    // and stores.
    unsafe {
        match alg {
            Alg::Mmh32 => mmh32_blocks::<1>(token, x, blocks, out),
            Alg::Mmh32x2 => mmh32_blocks::<2>(token, x, blocks, out),
            Alg::Mmh32x3 => mmh32_blocks::<3>(token, x, blocks, out),
            Alg::Mmh32x4 => mmh32_blocks::<4>(token, x, blocks, out),
            Alg::Nmh32 => nmh32_blocks(token, x, blocks, out),
            Alg::Mmh64 | Alg::Mmh64x2 => unreachable!("64-bit algorithms take the IFMA leaf"),
        }
    }
}

/// 32 key words from `kp` as two registers, and the same shifted right by
/// 32 in each lane (the odd words, for the odd message words).
///
/// # Safety
/// AVX-512 F present; `kp` points to 32 readable words.
#[target_feature(enable = "avx512f")]
#[inline]
unsafe fn key_words(kp: *const u32) -> [__m512i; 4] {
    // SAFETY: the caller's precondition: two unaligned 64-byte loads.
    let (k0, k1) = unsafe { (_mm512_loadu_si512(kp.cast()), _mm512_loadu_si512(kp.add(16).cast())) };
    [k0, k1, _mm512_srli_epi64::<32>(k0), _mm512_srli_epi64::<32>(k1)]
}

/// One block's MMH32 accumulator under `k` ([`key_words`]).
///
/// # Safety
/// AVX-512 F present; `bp` points to 128 readable bytes.
#[target_feature(enable = "avx512f")]
#[inline]
unsafe fn mmh32_acc(bp: *const u8, k: &[__m512i; 4]) -> __m512i {
    // SAFETY: the caller's precondition: two unaligned 64-byte loads.
    let (m0, m1) = unsafe { (_mm512_loadu_si512(bp.cast()), _mm512_loadu_si512(bp.add(64).cast())) };
    let even = _mm512_add_epi64(_mm512_mul_epu32(m0, k[0]), _mm512_mul_epu32(m1, k[1]));
    let odd = _mm512_add_epi64(
        _mm512_mul_epu32(_mm512_srli_epi64::<32>(m0), k[2]),
        _mm512_mul_epu32(_mm512_srli_epi64::<32>(m1), k[3]),
    );
    _mm512_add_epi64(even, odd)
}

/// One block's NMH32 accumulator under `k` (its first two registers: the
/// 32 key words).
///
/// # Safety
/// AVX-512 F present; `bp` points to 128 readable bytes.
#[target_feature(enable = "avx512f")]
#[inline]
unsafe fn nmh32_acc(bp: *const u8, k: &[__m512i; 4]) -> __m512i {
    // SAFETY: the caller's precondition: two unaligned 64-byte loads.
    let (m0, m1) = unsafe { (_mm512_loadu_si512(bp.cast()), _mm512_loadu_si512(bp.add(64).cast())) };
    let (a0, a1) = (_mm512_add_epi32(m0, k[0]), _mm512_add_epi32(m1, k[1]));
    _mm512_add_epi64(
        _mm512_mul_epu32(a0, _mm512_srli_epi64::<32>(a0)),
        _mm512_mul_epu32(a1, _mm512_srli_epi64::<32>(a1)),
    )
}

/// The lane sums of eight accumulators as the eight lanes of one register
/// (each mod 2^64): lane b is the sum of `acc[b]`'s lanes.
#[target_feature(enable = "avx512f")]
#[inline]
fn sums8(acc: &[__m512i; GROUP]) -> __m512i {
    // Pairs: 128-bit lane j holds (a_2j + a_2j+1, b_2j + b_2j+1).
    let pair = |a: __m512i, b: __m512i| _mm512_add_epi64(_mm512_unpacklo_epi64(a, b), _mm512_unpackhi_epi64(a, b));
    // Lanes 0 and 1 of x plus lanes 2 and 3 … : [x0+x1, x2+x3, y0+y1, y2+y3]
    // in 128-bit lanes.
    let halves = |x: __m512i, y: __m512i| {
        _mm512_add_epi64(_mm512_shuffle_i64x2::<0b10_00_10_00>(x, y), _mm512_shuffle_i64x2::<0b11_01_11_01>(x, y))
    };
    let ab = pair(acc[0], acc[1]);
    let cd = pair(acc[2], acc[3]);
    let ef = pair(acc[4], acc[5]);
    let gh = pair(acc[6], acc[7]);
    // [a0..3 b0..3 | a4..7 b4..7 | c0..3 d0..3 | c4..7 d4..7], likewise e–h.
    halves(halves(ab, cd), halves(ef, gh))
}

/// `reduce4` of `x86_avx2.rs` on eight lanes: `(x mod (2^32 + 15)) mod
/// 2^32` for each 64-bit lane x, the same steps and bounds:
///
/// ```text
/// y = b - 15a          in [-15(2^32 - 1), 2^32 - 1], so floor(y / 2^32) = c in [-15, 0]
///                      is the high 32-bit half of y's lane read as signed
/// z = d + 15(-c)       in [0, 2^32 - 1 + 225] < 2p, d = y mod 2^32
/// r = z - p if z >= p
/// ```
///
/// and the low 32 bits of each lane, as eight words.
#[target_feature(enable = "avx512f")]
#[inline]
fn reduce8(x: __m512i) -> __m256i {
    let lo = _mm512_set1_epi64(0xffff_ffff);
    let fifteen = _mm512_set1_epi64(15);
    let a = _mm512_srli_epi64::<32>(x);
    let b = _mm512_and_si512(x, lo);
    let y = _mm512_sub_epi64(b, _mm512_mul_epu32(a, fifteen));
    // -c: the high half of y negated as a 32-bit value, in [0, 15].
    let neg_c = _mm512_and_si512(_mm512_sub_epi32(_mm512_setzero_si512(), _mm512_srli_epi64::<32>(y)), lo);
    let z = _mm512_add_epi64(_mm512_and_si512(y, lo), _mm512_mul_epu32(neg_c, fifteen));
    // z >= p  <=>  z > p - 1 (z < 2^33: unsigned).
    let ge = _mm512_cmpgt_epu64_mask(z, _mm512_set1_epi64((1 << 32) + 14));
    let r = _mm512_mask_sub_epi64(z, ge, z, _mm512_set1_epi64((1 << 32) + 15));
    _mm512_cvtepi64_epi32(r)
}

/// Eight reduced words, stored little-endian at `o` (32 bytes).
#[target_feature(enable = "avx512f")]
#[inline]
fn store_words(o: &mut [u8], v: __m256i) {
    let o: &mut [u8; 32] = o.try_into().expect("eight words");
    // SAFETY: `o` is 32 writable bytes; an unaligned store.
    unsafe { _mm256_storeu_si256(o.as_mut_ptr().cast(), v) };
}

/// Output words `first .. first + 8` of the run at `bp` (word i is output
/// i mod N of block i / N, so eight consecutive words are consecutive in
/// `out`), each accumulated under its output's key and all eight reduced
/// at once.
///
/// # Safety
/// AVX-512 F present; `bp` points to the blocks of words `first ..
/// first + 8` (through block (first + 7) / N), 128 readable bytes each.
#[target_feature(enable = "avx512f")]
#[inline]
unsafe fn eight_words<const N: usize>(
    bp: *const u8,
    first: usize,
    keys: &[[__m512i; 4]; N],
    acc: unsafe fn(*const u8, &[__m512i; 4]) -> __m512i,
) -> __m256i {
    // Written out: a loop here was not unrolled and kept the accumulators
    // in memory.
    let at = |i: usize| (bp.wrapping_add(4 * K * ((first + i) / N)), &keys[(first + i) % N]);
    let ((b0, k0), (b1, k1), (b2, k2), (b3, k3)) = (at(0), at(1), at(2), at(3));
    let ((b4, k4), (b5, k5), (b6, k6), (b7, k7)) = (at(4), at(5), at(6), at(7));
    // SAFETY: each block pointer is inside the caller's run.
    let sums = unsafe {
        sums8(&[acc(b0, k0), acc(b1, k1), acc(b2, k2), acc(b3, k3), acc(b4, k4), acc(b5, k5), acc(b6, k6), acc(b7, k7)])
    };
    reduce8(sums)
}

/// The N output words of every block of `blocks`, eight at a time
/// ([`eight_words`]), the last few (fewer than eight) one at a time with
/// the lane sum and the portable reduction.
///
/// # Safety
/// AVX-512 F present; `blocks` is whole 128-byte blocks and `out` holds
/// 4·N bytes per block.
#[target_feature(enable = "avx512f")]
#[inline]
unsafe fn words<const N: usize>(
    keys: &[[__m512i; 4]; N],
    blocks: &[u8],
    out: &mut [u8],
    acc: unsafe fn(*const u8, &[__m512i; 4]) -> __m512i,
) {
    // Spill slots on their alignment wherever the stack lands (crate::frame).
    let _frame = crate::frame::Align64::pin();
    let bp = blocks.as_ptr();
    let words = blocks.len() / (4 * K) * N;
    let whole = words / 8 * 8;
    for (j, o) in (0..whole).step_by(8).zip(out.chunks_exact_mut(32)) {
        // The lines of these eight words' blocks, a little way on.
        crate::prefetch::run_ahead(blocks, 4 * K * (j / N), 4 * K * (j + 8).div_ceil(N));
        // SAFETY: words j..j+8 < words lie in blocks below len / 128.
        store_words(o, unsafe { eight_words(bp, j, keys, acc) });
    }
    for (i, d) in (whole..words).zip(out[4 * whole..].chunks_exact_mut(4)) {
        // SAFETY: block i / N < len / 128.
        let v = unsafe { acc(bp.add(4 * K * (i / N)), &keys[i % N]) };
        d.copy_from_slice(&(reduce64::<32, 15>(_mm512_reduce_add_epi64(v) as u64) as u32).to_le_bytes());
    }
}

/// # Safety
/// AVX-512 F present; `x` has at least 31 + N words; `blocks` is whole
/// 128-byte blocks and `out` holds 4·N bytes per block.
#[target_feature(enable = "avx512f")]
unsafe fn mmh32_blocks<const N: usize>(_proof: Avx512Ifma, x: &[u32], blocks: &[u8], out: &mut [u8]) {
    let mut keys = [[_mm512_setzero_si512(); 4]; N];
    for (t, k) in keys.iter_mut().enumerate() {
        // SAFETY: words t..t+32 of x (t < N, so t + 32 <= 31 + N).
        *k = unsafe { key_words(x[t..].as_ptr()) };
    }
    // SAFETY: the caller's preconditions.
    unsafe { words(&keys, blocks, out, mmh32_acc) }
}

/// # Safety
/// AVX-512 F present; `x` has at least 32 words; `blocks` is whole 128-byte
/// blocks and `out` holds 4 bytes per block.
#[target_feature(enable = "avx512f")]
unsafe fn nmh32_blocks(_proof: Avx512Ifma, x: &[u32], blocks: &[u8], out: &mut [u8]) {
    // SAFETY: x has at least 32 words; then the caller's preconditions.
    unsafe { words(&[key_words(x.as_ptr())], blocks, out, nmh32_acc) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mmh::backend::leaf32_checks;

    #[test]
    fn equals_the_portable_block_functions() {
        let Some(token) = crate::cpu::token_for_test("Avx512Ifma", crate::cpu::Features::avx512ifma) else { return };
        leaf32_checks::equals_the_portable_block_functions(&|alg, x, blocks, out| {
            compress32(token, alg, x, blocks, out)
        });
    }

    #[test]
    fn reduce8_equals_reduce64() {
        let Some(_) = crate::cpu::token_for_test("Avx512Ifma", crate::cpu::Features::avx512ifma) else { return };
        leaf32_checks::reduction_equals_reduce64(GROUP, &|l| {
            // SAFETY: AVX-512 F was detected above.
            unsafe { reduce8_test(l.try_into().expect("eight lanes")) }.to_vec()
        });
    }

    /// # Safety
    /// AVX-512 F present.
    #[target_feature(enable = "avx512f")]
    unsafe fn reduce8_test(l: [u64; GROUP]) -> [u32; GROUP] {
        let mut out = [0u8; 32];
        // SAFETY: `l` is 64 readable bytes; an unaligned load.
        store_words(&mut out, reduce8(unsafe { _mm512_loadu_si512(l.as_ptr().cast()) }));
        core::array::from_fn(|i| u32::from_le_bytes(out[4 * i..4 * i + 4].try_into().unwrap()))
    }
}
