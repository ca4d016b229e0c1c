//! The one skeleton of the x86 counter-mode leaves (`x86_aesni.rs`,
//! `x86_vaes256.rs`, `x86_vaes512.rs`), which differ only in their register
//! width: `ctr_leaf!` writes a leaf's `apply` and its loop from the
//! intrinsics of one width.
//!
//! A register holds `blocks` counter blocks `P || i` (a 12-byte prefix and
//! i big-endian in the last four bytes), kept with i little-endian in each
//! lane's top dword and turned into the blocks by one byte shuffle; one
//! 32-bit add (`step`) moves every lane on (the caller keeps i below 2^32,
//! the mode's limit, so the add never wraps). The loop encrypts eight
//! registers at a time, then one register at a time; what is left (fewer
//! blocks than a register holds) goes to the leaf's `tail`.
//!
//! Constant time: the keys and keystream go through AES instructions and
//! XORs only; the branches are on lengths.

/// A counter-mode leaf from the intrinsics of one register width: defines
/// `apply` (the leaf's entry, for `key.rs`), `encrypt::<N>` (N registers of
/// blocks under broadcast round keys) and the loop.
///
/// The leaf supplies `counters(template, first)` (the first register of
/// counter blocks, i little-endian) and `step()` (the add that moves a
/// register on), and `tail::<KEEP>(src, dst, keep, bytes, keystream)` when
/// a register holds more than one block.
macro_rules! ctr_leaf {
    (
        token: $Token:ty,
        features: $features:literal,
        vector: $V:ty,
        blocks: $blocks:literal,
        zero: $zero:path,
        broadcast: $bcast:path,
        xor: $xor:path,
        add: $add:path,
        shuffle: $shuffle:path,
        aesenc: $enc:path,
        aesenclast: $last:path,
        loadu: $load:path,
        storeu: $store:path
        $(, tail: $tail:ident)? $(,)?
    ) => {
        /// The input XOR the keystream blocks `first`, `first + 1`, … of
        /// `prefix`, written to the output (`buf`: in place, or two slices;
        /// a multiple of 16 bytes; `first + buf.len() / 16` at most 2^32).
        pub(crate) fn apply(
            token: $Token,
            keys: &RoundKeys,
            prefix: &[u8; 12],
            first: u32,
            buf: aead::inout::InOutBuf<'_, '_, u8>,
        ) {
            let (src, dst, len) = super::buffer(first, buf);
            // SAFETY: `token` is the leaf's CPU-feature token, which
            // `crate::cpu` hands out only after detecting every feature `ctr`
            // enables; the pointers are `buffer`'s (its contract).
            unsafe { ctr::<false>(token, keys, prefix, first, src, dst, core::ptr::null_mut(), len) }
        }

        /// As [`apply`] from `src` to `dst` (`keep.len()` bytes, a multiple
        /// of 16), also storing each input register, as it was loaded, at
        /// the same offset of `keep`: the input is read once, and `keep`
        /// holds what was decrypted (one-pass decryption hashes it).
        ///
        /// # Safety
        /// `src` readable and `dst` writable for `keep.len()` bytes, the
        /// same or disjoint (another thread may write either meanwhile);
        /// `first + keep.len() / 16` at most 2^32.
        pub(crate) unsafe fn apply_keeping(
            token: $Token,
            keys: &RoundKeys,
            prefix: &[u8; 12],
            first: u32,
            src: *const u8,
            dst: *mut u8,
            keep: &mut [core::mem::MaybeUninit<u8>],
        ) {
            let len = keep.len();
            super::check_run(first, len);
            // SAFETY: `token` is the leaf's CPU-feature token (as in
            // `apply`); the buffers are the caller's contract, and `keep` is
            // `len` writable bytes of its own (a `&mut` borrow: apart from
            // both).
            unsafe { ctr::<true>(token, keys, prefix, first, src, dst, keep.as_mut_ptr().cast(), len) }
        }

        /// AES of `N` registers of blocks under the round keys `rk[..=rounds]`.
        #[target_feature(enable = $features)]
        #[inline]
        fn encrypt<const N: usize>(mut b: [$V; N], rk: &[$V; 15], rounds: usize) -> [$V; N] {
            for x in b.iter_mut() {
                *x = $xor(*x, rk[0]);
            }
            for k in &rk[1..rounds] {
                for x in b.iter_mut() {
                    *x = $enc(*x, *k);
                }
            }
            for x in b.iter_mut() {
                *x = $last(*x, rk[rounds]);
            }
            b
        }

        /// Load one register's bytes at `src`, XOR them with `ks`, store them
        /// at `dst`; with `KEEP`, store them as loaded at `keep` too.
        ///
        /// # Safety
        /// `src` readable and `dst` writable for one register's bytes, the
        /// same or disjoint; with `KEEP`, `keep` writable for as many, apart
        /// from both.
        #[target_feature(enable = $features)]
        #[inline]
        unsafe fn xor_at<const KEEP: bool>(src: *const u8, dst: *mut u8, keep: *mut u8, ks: $V) {
            // SAFETY: the caller's contract: one unaligned load, one or two
            // unaligned stores.
            unsafe {
                let x = $load(src.cast());
                if KEEP {
                    $store(keep.cast(), x);
                }
                $store(dst.cast(), $xor(x, ks))
            }
        }

        /// # Safety
        /// As [`apply`]'s buffer: `src` readable and `dst` writable for `len`
        /// bytes (a multiple of 16), the same or disjoint; with `KEEP`,
        /// `keep` writable for `len` bytes apart from both.
        #[target_feature(enable = $features)]
        #[allow(clippy::too_many_arguments)]
        unsafe fn ctr<const KEEP: bool>(
            _proof: $Token,
            keys: &RoundKeys,
            prefix: &[u8; 12],
            first: u32,
            src: *const u8,
            dst: *mut u8,
            keep: *mut u8,
            len: usize,
        ) {
            // The copy's address at offset `o` (never used without `KEEP`).
            let keep_at = |o: usize| if KEEP { keep.wrapping_add(o) } else { keep };
            const WIDTH: usize = 16 * $blocks;
            let mut rk = [$zero(); 15];
            for (v, k) in rk.iter_mut().zip(&keys.rk[..=keys.rounds]) {
                // SAFETY: `k` is 16 readable bytes: one unaligned 16-byte load.
                *v = $bcast(unsafe { _mm_loadu_si128(k.as_ptr().cast()) });
            }
            // Bytes 0..12 as in the block, the counter little-endian in 12..16.
            let mut t = [0u8; 16];
            t[..12].copy_from_slice(prefix);
            // SAFETY: `t` is 16 readable bytes.
            let template = $bcast(unsafe { _mm_loadu_si128(t.as_ptr().cast()) });
            let mut ctr = counters(template, first);
            let step = step();
            let swap = $bcast(_mm_set_epi8(12, 13, 14, 15, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0));
            let mut next = || {
                let b = $shuffle(ctr, swap);
                ctr = $add(ctr, step);
                b
            };
            // Offsets: whole steps of eight registers, then whole registers,
            // then the tail, all inside the `len` bytes of the caller's buffers.
            let steps = len / (8 * WIDTH) * (8 * WIDTH);
            for o in (0..steps).step_by(8 * WIDTH) {
                let ks = encrypt::<8>(core::array::from_fn(|_| next()), &rk, keys.rounds);
                for (j, k) in ks.into_iter().enumerate() {
                    // SAFETY: bytes o + WIDTH·j .. o + WIDTH·(j + 1) <= steps <= len.
                    unsafe { xor_at::<KEEP>(src.add(o + WIDTH * j), dst.add(o + WIDTH * j), keep_at(o + WIDTH * j), k) };
                }
            }
            let whole = steps + (len - steps) / WIDTH * WIDTH;
            for o in (steps..whole).step_by(WIDTH) {
                let [k] = encrypt::<1>([next()], &rk, keys.rounds);
                // SAFETY: bytes o .. o + WIDTH <= whole <= len.
                unsafe { xor_at::<KEEP>(src.add(o), dst.add(o), keep_at(o), k) };
            }
            $(
                if whole < len {
                    let [k] = encrypt::<1>([next()], &rk, keys.rounds);
                    // SAFETY: bytes whole .. len of both buffers, the tail's
                    // contract.
                    unsafe { $tail::<KEEP>(src.add(whole), dst.add(whole), keep_at(whole), len - whole, k) };
                }
            )?
            debug_assert!(whole == len || WIDTH > 16);
            t.zeroize();
            for k in rk.iter_mut() {
                *k = $zero();
            }
        }
    };
}
