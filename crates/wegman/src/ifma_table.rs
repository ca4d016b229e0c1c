//! Long runs under a table of powers, eight lanes of radix-2^44 limbs with
//! AVX-512 IFMA: shared by Poly1305's and CWC-HASH's table leaves
//! (`poly1305aes/backend/x86_avx512ifma_words.rs`,
//! `cwc/backend/x86_avx512ifma_words.rs`), which state the method and the
//! bounds for their modulus.
//!
//! Each element (a block, a coefficient) of a span of n sits in its own lane
//! under its own power of the key, x^(n−j), read from the [`Table`]; its three
//! limbs times the power's three are nine products of weight 2^(44(t+i)),
//! summed by place t + i (low 52 bits, and bits 52 up in a second
//! accumulator worth 2^8 times the next place) with no carry and no wrap.
//! A span starts from V · x^n (V's limbs are three more pieces) and ends
//! with the places folded (place 3 + i into limb i times 2^132 mod p) and
//! one carry step. What differs per modulus is a [`Field`]: how a group of
//! eight elements is loaded, 2^132 mod p, the carry step and the lane
//! product that builds the table.

use core::arch::x86_64::*;

use crate::ifma44::Limbs;

/// Groups of eight elements in a full span.
pub(crate) const GROUPS: usize = 32;

/// A modulus and its elements, as the shared span needs them.
pub(crate) trait Field {
    /// Bytes of a group of eight elements, one per lane.
    const GROUP_BYTES: usize;
    /// Whether an element's limb 2 can reach 2^8 (then its products with a
    /// power can have high halves).
    const HIGH2: bool;
    /// A group of eight elements as limbs, lane j holding the element the
    /// table's lane j has the power of.
    ///
    /// # Safety
    /// AVX-512 F, VL, IFMA and VBMI present.
    unsafe fn load(&self, group: &[u8]) -> Limbs;
    /// x · 2^132 mod p (a multiple of x).
    ///
    /// # Safety
    /// As [`Field::load`].
    unsafe fn wrap(x: __m512i) -> __m512i;
    /// One lazy carry step per lane.
    ///
    /// # Safety
    /// As [`Field::load`].
    unsafe fn carry(t: Limbs) -> Limbs;
    /// x · k per lane, carried.
    ///
    /// # Safety
    /// As [`Field::load`].
    unsafe fn times(x: &Limbs, k: &Limbs) -> Limbs;
}

/// One group's rows: row i is limb i of the powers of the group's lanes.
#[derive(Clone)]
#[repr(C, align(64))]
struct Group([[u64; 8]; 3]);

/// The powers of every element of a full span: group g's lanes hold
/// x^(8·(GROUPS − g) − o) for the element o (0 … 7) of each lane.
#[derive(Clone)]
pub(crate) struct Table {
    groups: [Group; GROUPS],
}

impl Drop for Table {
    /// One `memset` and a `black_box` the optimizer must assume reads the
    /// zeros.
    fn drop(&mut self) {
        self.groups.iter_mut().for_each(|g| g.0.as_flattened_mut().fill(0));
        core::hint::black_box(self);
    }
}

impl Table {
    /// A table in its heap block, written by `build` (which must write all
    /// of it, as [`build`] does).
    ///
    /// # Safety
    /// `build` writes every row of the `Table` it is given.
    pub(crate) unsafe fn new_with(build: impl FnOnce(*mut Table)) -> Box<Self> {
        let mut out = Box::<Table>::new_uninit();
        build(out.as_mut_ptr());
        // SAFETY: `build` wrote every row (the caller's contract); the
        // rows are plain integers.
        unsafe { out.assume_init() }
    }

    /// Every row, for tests.
    #[cfg(test)]
    pub(crate) fn rows(&self) -> impl Iterator<Item = &[u64; 8]> {
        self.groups.iter().flat_map(|g| g.0.iter())
    }
}

/// Writes every row of `*out` from the last two groups' powers (`last`:
/// x^8 … x^1 in the lanes' order, `second`: x^16 … x^9), stepping the
/// others from them: groups q + have … give groups q … at a step of
/// x^(8·have), have = 2, 4, … (x^16 is lane 0 of `second`): a chain of
/// log2(GROUPS) − 1 steps, not GROUPS − 2.
///
/// # Safety
/// AVX-512 F, VL, IFMA and VBMI present; `out` valid for writing one
/// `Table`.
#[target_feature(enable = "avx512f,avx512vl,avx512ifma,avx512vbmi")]
pub(crate) unsafe fn build<F: Field>(last: Limbs, second: Limbs, out: *mut Table) {
    let z = _mm512_setzero_si512();
    let mut v: [Limbs; GROUPS] = [[z; 3]; GROUPS];
    v[GROUPS - 1] = last;
    v[GROUPS - 2] = second;
    let mut k = second.map(|l| _mm512_permutexvar_epi64(_mm512_setzero_si512(), l));
    let mut have = 2;
    while have < GROUPS {
        for q in (GROUPS - 2 * have..GROUPS - have).rev() {
            // SAFETY: the features are this function's own.
            v[q] = unsafe { F::times(&v[q + have], &k) };
        }
        // SAFETY: as above.
        k = unsafe { F::times(&k, &k) };
        have *= 2;
    }
    for (q, power) in v.iter().enumerate() {
        for (i, &row) in power.iter().enumerate() {
            // SAFETY: row i of group q of `*out`: 64 writable bytes (the
            // caller's precondition), written without reading.
            unsafe { _mm512_storeu_si512((&raw mut (*out).groups[q].0[i]).cast(), row) };
        }
    }
    // Every power of the key passed through these on this stack frame.
    k = [z; 3];
    v.as_flattened_mut().fill(z);
    core::hint::black_box((&mut v, &mut k));
}

/// Ten accumulators: the low halves of the products of each limb place
/// 0 … 4, and their high halves.
type Places = ([__m512i; 5], [__m512i; 5]);

/// `acc` plus the products of pieces `y` and powers `e` (three limbs per
/// lane each), by place; piece 2's high halves only if `high2` (a constant
/// where it is inlined).
#[target_feature(enable = "avx512f,avx512vl,avx512ifma")]
#[inline]
fn add_products(acc: &mut Places, y: &Limbs, e: &Limbs, high2: bool) {
    let (l, h) = acc;
    for (t, &piece) in y.iter().enumerate() {
        for (i, &limb) in e.iter().enumerate() {
            l[t + i] = _mm512_madd52lo_epu64(l[t + i], piece, limb);
            if t < 2 || high2 {
                h[t + i] = _mm512_madd52hi_epu64(h[t + i], piece, limb);
            }
        }
    }
}

/// The places folded into three limbs: S_j = low_j + 2^8·high_(j−1), and
/// place 3 + i into limb i times 2^132 mod p; unreduced.
#[target_feature(enable = "avx512f,avx512vl,avx512ifma,avx512vbmi")]
fn fold<F: Field>(acc: &Places) -> Limbs {
    let (l, h) = acc;
    let up = |x: __m512i| _mm512_slli_epi64::<8>(x);
    let s3 = _mm512_add_epi64(l[3], up(h[2]));
    let s4 = _mm512_add_epi64(l[4], up(h[3]));
    let s5 = up(h[4]);
    // SAFETY: the features are this function's own.
    let wrap = |x: __m512i| unsafe { F::wrap(x) };
    [
        _mm512_add_epi64(l[0], wrap(s3)),
        _mm512_add_epi64(_mm512_add_epi64(l[1], up(h[0])), wrap(s4)),
        _mm512_add_epi64(_mm512_add_epi64(l[2], up(h[1])), wrap(s5)),
    ]
}

/// Where a span's groups come from, one after another: whole groups of
/// bytes in memory ([`spans`]), or a caller that makes each group as the
/// span reaches it (CWC's counter mode and hash in one loop,
/// `cwc/backend/x86_avx512ifma_ctr.rs`).
pub(crate) trait Groups<F: Field> {
    /// Groups per call: one, or several made together (a span's count of
    /// groups is a multiple of it).
    type Out: AsRef<[Limbs]>;
    /// The next groups of eight elements as limbs, as [`Field::load`] gives
    /// them.
    ///
    /// # Safety
    /// AVX-512 F, VL, IFMA and VBMI present, and whatever the source's own
    /// contract asks.
    unsafe fn next(&mut self) -> Self::Out;
}

/// Groups of bytes in memory, loaded by the field one at a time.
struct Bytes<'a, F> {
    field: &'a F,
    data: &'a [u8],
}

impl<F: Field> Groups<F> for Bytes<'_, F> {
    type Out = [Limbs; 1];

    #[target_feature(enable = "avx512f,avx512vl,avx512ifma,avx512vbmi")]
    #[inline]
    unsafe fn next(&mut self) -> [Limbs; 1] {
        let (group, rest) = self.data.split_at(F::GROUP_BYTES);
        self.data = rest;
        // SAFETY: the features are this function's own.
        [unsafe { self.field.load(group) }]
    }
}

/// V · x^(8n) plus a span of n groups (1 to [`GROUPS`], a multiple of
/// the source's groups per call) from `src`, carried.
///
/// Always inlined, and with no features of its own: it takes its caller's,
/// so a source may use more than the span does (the fused CWC leaf's
/// VAES) and still be inlined into the loop.
///
/// # Safety
/// AVX-512 F, VL, IFMA and VBMI present, and `src`'s contract for `n`
/// groups.
#[inline(always)]
unsafe fn span<F: Field, G: Groups<F>>(t: &Table, v: &Limbs, n: usize, src: &mut G) -> Limbs {
    let first = GROUPS - n;
    // x^(8n): the power of the span's first element (lane 0 of its group)
    let g = &t.groups[first].0;
    // SAFETY: the features are the caller's contract (the intrinsics and
    // the helpers need no more), and so is the source's for these `n`
    // groups; each row of the table is 64 aligned readable bytes.
    unsafe {
        let z = _mm512_setzero_si512();
        let mut acc: Places = ([z; 5], [z; 5]);
        let k: Limbs = core::array::from_fn(|i| _mm512_set1_epi64(g[i][0] as i64));
        add_products(&mut acc, v, &k, true);
        let mut powers = t.groups[first..].iter();
        while powers.len() > 0 {
            let ys = src.next();
            for (y, rows) in ys.as_ref().iter().zip(&mut powers) {
                let e: Limbs = core::array::from_fn(|i| _mm512_load_si512(rows.0[i].as_ptr().cast()));
                add_products(&mut acc, y, &e, F::HIGH2);
            }
        }
        F::carry(fold::<F>(&acc))
    }
}

/// V after `data` (whole groups) in spans of `groups` groups (1 to
/// [`GROUPS`]), from V.
///
/// # Safety
/// AVX-512 F, VL, IFMA and VBMI present.
#[target_feature(enable = "avx512f,avx512vl,avx512ifma,avx512vbmi")]
pub(crate) unsafe fn spans<F: Field>(f: &F, t: &Table, v: Limbs, data: &[u8], groups: usize) -> Limbs {
    assert!(data.len().is_multiple_of(F::GROUP_BYTES) && (1..=GROUPS).contains(&groups));
    let mut v = v;
    for piece in data.chunks(F::GROUP_BYTES * groups) {
        // SAFETY: the features are this function's own; the source holds
        // the piece's whole groups.
        v = unsafe { span(t, &v, piece.len() / F::GROUP_BYTES, &mut Bytes { field: f, data: piece }) };
    }
    v
}

/// V after `n` groups from `src` (a multiple of its groups per call, as
/// [`GROUPS`] is), in spans of [`GROUPS`] groups, from V. Always inlined,
/// with its caller's features (as [`span`]).
///
/// # Safety
/// AVX-512 F, VL, IFMA and VBMI present, and `src`'s contract for `n`
/// groups.
#[inline(always)]
pub(crate) unsafe fn spans_from<F: Field, G: Groups<F>>(t: &Table, v: Limbs, n: usize, src: &mut G) -> Limbs {
    let mut v = v;
    let mut left = n;
    while left > 0 {
        let now = left.min(GROUPS);
        // SAFETY: the caller's contract, `now` of its `n` groups.
        v = unsafe { span(t, &v, now, src) };
        left -= now;
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Dropping a `Table` zeroes every row: no output shows it, so a drop
    /// made a no-op would survive every other test.
    #[test]
    fn dropping_a_table_zeroes_it() {
        let fill = |out: *mut Table| {
            for q in 0..GROUPS {
                // SAFETY: group q of `*out`, written without reading.
                unsafe { (&raw mut (*out).groups[q]).write(Group([[0x5a5a_5a5a_5a5a_5a5a ^ q as u64; 8]; 3])) };
            }
        };
        // SAFETY: `fill` writes every group, so every row.
        let table = *unsafe { Table::new_with(fill) };
        assert!(table.rows().all(|r| r.iter().all(|&x| x != 0)));
        let mut t = core::mem::MaybeUninit::new(table);
        // SAFETY: `t` holds an initialised `Table`, dropped here once (a
        // `MaybeUninit` never drops it again).
        unsafe { t.as_mut_ptr().drop_in_place() };
        // SAFETY: the dropped value's memory is still `t`'s, and its fields
        // are plain integers, valid for any bits: read through a raw pointer.
        let groups = unsafe { (&raw const (*t.as_ptr()).groups).read().map(|g| g.0) };
        assert!(groups.iter().all(|g| g.as_flattened().iter().all(|&x| x == 0)));
    }
}
