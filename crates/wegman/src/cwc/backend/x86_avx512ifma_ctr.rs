//! CWC-CTR and CWC-HASH in one loop, for long runs under a key whose hash
//! has its IFMA table (`x86_avx512ifma_words.rs`) and whose AES runs on
//! 512-bit VAES (`crate::aes::Keystream`).
//!
//! Each step makes three registers of keystream (12 counter blocks, 192
//! bytes), XORs them into three registers of input and stores the output;
//! the ciphertext registers (the input when decrypting, the output when
//! encrypting) go on to the table's span as two groups of eight
//! coefficients ([`limbs_in`]), without being read back from memory.
//!
//! Why one loop: `vaesenc` on 512-bit registers issues on one port, and
//! the hash's byte permutes on another (`tools/port-probe`, Intel Xeon
//! 6/207: `vaesenc zmm` 0.98 a cycle, port 0 only). In two passes
//! (counter mode, then the hash) each pass leaves the other's port idle.
//!
//! Reads: each input register is loaded once. Decryption hashes the very
//! registers it decrypted, so one-pass decryption (`one_pass.rs`) keeps its
//! guarantee (each ciphertext byte read once) with no private copy.
//!
//! Constant time: AES instructions, XORs and the table's straight-line
//! arithmetic; the branches are on lengths.

use core::arch::x86_64::*;

use super::x86_avx512ifma::{lane_sum, limbs_in, plus_r};
use super::x86_avx512ifma_words::{Coefficients, Table};
use crate::aes::{Keystream, RoundKeys};
use crate::cpu::{Avx512Ifma, Vaes512};
use crate::ifma_table::{Groups, spans_from};
use crate::ifma44::Limbs;

const STEP: usize = OneLoop::STEP;

/// The groups of a run as counter mode makes its ciphertext, two per step,
/// under AES with `ROUNDS` rounds (a constant: the rounds unrolled).
///
/// Encryption hashes what the keystream makes, so its keystream is made a
/// step ahead: the hash of step i then waits on no AES, and step i + 1's
/// rounds run beside it. Without that, one loop gained nothing: AES-128,
/// key made once, 16 KiB, Intel Xeon 6/207, alternating processes, 0.264–0.276
/// ticks a byte against 0.263–0.278 in two passes (medians); with it, 0.222
/// against 0.276 (best batches, three pairs). Decryption hashes its input,
/// which waits on nothing.
///
/// The keystream is borrowed, not held: it is wiped on drop (its address
/// escapes there), and a struct holding it stayed in memory, its pointers
/// reloaded after every store through `dst`.
struct Steps<'k, const DECRYPT: bool, const ROUNDS: usize> {
    ks: &'k mut Keystream<ROUNDS>,
    src: *const u8,
    dst: *mut u8,
    /// Steps left, this one included.
    left: usize,
    /// Encryption: this step's keystream, made by the step before.
    ahead: [__m512i; 3],
}

impl<const DECRYPT: bool, const ROUNDS: usize> Groups<Coefficients> for Steps<'_, DECRYPT, ROUNDS> {
    type Out = [Limbs; 2];

    /// # Safety
    /// Also VAES and AVX-512 BW; at most `left` calls; each reads 192 bytes
    /// at `src` and writes 192 at `dst` (the same or disjoint), then moves
    /// both on.
    #[target_feature(enable = "avx512f,avx512vl,avx512bw,avx512ifma,avx512vbmi,vaes,aes")]
    #[inline]
    unsafe fn next(&mut self) -> [Limbs; 2] {
        let ks = if DECRYPT {
            self.ks.next::<3>()
        } else {
            let now = self.ahead;
            if self.left > 1 {
                self.ahead = self.ks.next::<3>();
            }
            now
        };
        self.left -= 1;
        let mut c = [_mm512_setzero_si512(); 3];
        for (j, (k, c)) in ks.into_iter().zip(&mut c).enumerate() {
            // SAFETY: register j of the step: bytes 64·j .. 64·(j + 1) of the
            // 192 the caller's contract makes readable at `src` and writable
            // at `dst`; each loaded once, before its store.
            unsafe {
                let x = _mm512_loadu_si512(self.src.add(64 * j).cast());
                let y = _mm512_xor_si512(x, k);
                _mm512_storeu_si512(self.dst.add(64 * j).cast(), y);
                *c = if DECRYPT { x } else { y };
            }
        }
        self.src = self.src.wrapping_add(STEP);
        self.dst = self.dst.wrapping_add(STEP);
        [limbs_in::<0>(c[0], c[1]), limbs_in::<32>(c[1], c[2])]
    }
}

/// A key's counter mode and hash in one loop: its round keys, its table,
/// and the tokens that prove the features (`super::HashKey::one_loop`).
pub(crate) struct OneLoop<'a> {
    /// Held as the proof of IFMA that `run` relies on.
    _ifma: Avx512Ifma,
    aes: Vaes512,
    keys: &'a RoundKeys,
    table: &'a Table,
}

impl<'a> OneLoop<'a> {
    /// Bytes per step: three registers of keystream, two groups of
    /// coefficients.
    pub(crate) const STEP: usize = 192;

    pub(super) fn new(ifma: Avx512Ifma, aes: Vaes512, keys: &'a RoundKeys, table: &'a Table) -> Self {
        OneLoop { _ifma: ifma, aes, keys, table }
    }

    /// The bytes of a run of `len` this loop takes: its whole steps.
    pub(crate) fn bytes_of(len: usize) -> usize {
        len - len % STEP
    }

    /// CWC-ENC's loop over `buf` (a multiple of [`STEP`] bytes): its input
    /// XOR the keystream from counter block `first` of `prefix` written to
    /// its output, and R after that output from `r` (<= 2^127; so is the
    /// result). `first + buf.len() / 16` at most 2^32.
    pub(crate) fn encrypt(
        &self,
        prefix: &[u8; 12],
        first: u32,
        r: u128,
        buf: aead::inout::InOutBuf<'_, '_, u8>,
    ) -> u128 {
        let len = buf.len();
        assert!(u64::from(first) + (len / 16) as u64 <= 1 << 32);
        let (src, dst) = buf.into_raw();
        // SAFETY: an `InOutBuf` is `len` readable bytes at `src` and `len`
        // writable ones at `dst`, the same or disjoint, borrowed for this
        // call; the counter bound is checked above.
        unsafe { self.run::<false>(prefix, first, r, src, dst, len) }
    }

    /// R after counter mode from `src` to `dst` over `len` bytes (a
    /// multiple of [`STEP`]) with the keystream from counter block `first`
    /// of `prefix`, and the hash of the ciphertext from R (<= 2^127; so is
    /// the result): the input if `DECRYPT`, else the output.
    ///
    /// # Safety
    /// `src` readable and `dst` writable for `len` bytes, the same or
    /// disjoint (another thread may write either meanwhile); `first + len /
    /// 16` at most 2^32.
    #[allow(clippy::too_many_arguments)]
    pub(crate) unsafe fn run<const DECRYPT: bool>(
        &self,
        prefix: &[u8; 12],
        first: u32,
        r: u128,
        src: *const u8,
        dst: *mut u8,
        len: usize,
    ) -> u128 {
        assert!(len.is_multiple_of(STEP));
        if len == 0 {
            return r;
        }
        /// The loop for `ROUNDS`, under the tokens' features.
        #[target_feature(enable = "avx512f,avx512vl,avx512bw,avx512ifma,avx512vbmi,vaes,aes")]
        unsafe fn inner<const DECRYPT: bool, const ROUNDS: usize>(
            one: &OneLoop<'_>,
            (prefix, first, r): (&[u8; 12], u32, u128),
            (src, dst, len): (*const u8, *mut u8, usize),
        ) -> u128 {
            let z = _mm512_setzero_si512();
            let mut ks = Keystream::new(one.aes, one.keys, prefix, first);
            let ahead = if DECRYPT { [z; 3] } else { ks.next::<3>() };
            let mut steps = Steps::<DECRYPT, ROUNDS> { ks: &mut ks, src, dst, left: len / STEP, ahead };
            // SAFETY: the features are this function's own; `len / 96`
            // groups are `len / 192` steps, inside the caller's buffers.
            let v = unsafe { spans_from(one.table, plus_r([z; 3], r), len / 96, &mut steps) };
            debug_assert_eq!(steps.left, 0);
            lane_sum(v)
        }
        let (at, buffers) = ((prefix, first, r), (src, dst, len));
        // SAFETY: the tokens are handed out by `crate::cpu` only after it
        // has detected AVX-512 F, VL, IFMA and VBMI (`Avx512Ifma`) and
        // VAES, AES-NI and AVX-512 F and BW (`Vaes512`); the buffers and the
        // counter are the caller's contract.
        unsafe {
            match self.keys.rounds() {
                10 => inner::<DECRYPT, 10>(self, at, buffers),
                12 => inner::<DECRYPT, 12>(self, at, buffers),
                _ => inner::<DECRYPT, 14>(self, at, buffers),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{soft, x86_avx512ifma, x86_avx512ifma_words};
    use super::*;
    use crate::aes::Key;
    use crate::cpu::Features;

    /// Encryption gives the loop every whole step of a message, not a
    /// part (which would still be right, and slower: no other test sees it).
    #[test]
    fn the_loop_takes_every_whole_step() {
        for len in [0, 1, 191, 192, 193, 4096, 4224, 16384, 1 << 20] {
            assert_eq!(OneLoop::bytes_of(len), len / 192 * 192, "{len}");
        }
    }

    /// Both loops (encryption and decryption), in place and from one buffer
    /// to another, against counter mode block by block (the portable AES)
    /// and the portable hash of the ciphertext: every run of 1 step to 3
    /// spans and 3 steps, every AES key size, keys, hash keys and running values at
    /// their extremes, all-0xff and random data, counters ending at 2^32 − 1.
    #[test]
    fn equals_counter_mode_then_the_portable_hash_at_every_run_length() {
        let Some(ifma) = crate::cpu::token_for_test("Avx512Ifma", Features::avx512ifma) else { return };
        let p127 = (1u128 << 127) - 1;
        let mut next = crate::xorshift(0x0bad_5eed_1234_5678);
        let mut rand = || (u128::from(next()) << 64) | u128::from(next());
        let steps_max = 3 * crate::ifma_table::GROUPS / 2 + 3;
        for (round, key_len) in [16, 24, 32, 16, 24, 32].into_iter().enumerate() {
            let k: Vec<u8> = (0..key_len).map(|i| if round < 3 { 0xff } else { (rand() >> i) as u8 }).collect();
            let fast = Key::new(&k, Features::detect()).expect("a valid length");
            let Some((keys, aes)) = fast.vaes512() else {
                eprintln!("skipped: no 512-bit VAES ({})", fast.ctr_name());
                return;
            };
            let slow = Key::new(&k, Features::portable()).expect("a valid length");
            let kh = [1, p127 - 1, (1 << 126) + 1, rand() & p127, rand() & p127, 2][round];
            let soft = soft::Powers::new(kh);
            let table = x86_avx512ifma_words::table(ifma, &x86_avx512ifma::Powers::new(ifma, &soft));
            let one = OneLoop::new(ifma, aes, keys, &table);
            let prefix: [u8; 12] = core::array::from_fn(|i| (rand() >> i) as u8);
            for steps in 1..=steps_max {
                let len = steps * STEP;
                let r = [0u128, 1, p127, 1 << 127, rand() & p127][steps % 5];
                let first = if steps % 3 == 0 { u32::MAX - (len / 16) as u32 + 1 } else { (rand() as u32) >> 4 };
                let data: Vec<u8> =
                    (0..len).map(|_| if (steps + round) % 4 == 0 { 0xff } else { rand() as u8 }).collect();
                let keystream: Vec<u8> = (0..len / 16)
                    .flat_map(|i| {
                        let mut b = [0u8; 16];
                        b[..12].copy_from_slice(&prefix);
                        b[12..].copy_from_slice(&(first + i as u32).to_be_bytes());
                        slow.encrypt(&mut b);
                        b
                    })
                    .collect();
                let xored: Vec<u8> = data.iter().zip(&keystream).map(|(d, k)| d ^ k).collect();
                let case = format!("key {key_len} round {round} steps {steps} first {first:#x} r {r:#x}");
                for decrypt in [false, true] {
                    // Encryption hashes what it writes, decryption what it reads.
                    let hashed = if decrypt { &data } else { &xored };
                    let want = soft::canonical(soft.absorb(r, hashed));
                    let mut out = vec![0xa5u8; len];
                    let mut in_place = data.clone();
                    // SAFETY: `data` is `len` readable bytes, `out` and
                    // `in_place` `len` writable ones each, apart from
                    // `data` (or, in place, `in_place` itself); the counter
                    // ends at 2^32 − 1 at most.
                    let (got, got_in_place) = unsafe {
                        if decrypt {
                            (
                                one.run::<true>(&prefix, first, r, data.as_ptr(), out.as_mut_ptr(), len),
                                one.run::<true>(&prefix, first, r, in_place.as_ptr(), in_place.as_mut_ptr(), len),
                            )
                        } else {
                            (
                                one.run::<false>(&prefix, first, r, data.as_ptr(), out.as_mut_ptr(), len),
                                one.encrypt(&prefix, first, r, in_place.as_mut_slice().into()),
                            )
                        }
                    };
                    assert!(got <= 1 << 127 && got_in_place <= 1 << 127, "{case}");
                    assert_eq!(soft::canonical(got), want, "R, decrypt {decrypt}, {case}");
                    assert_eq!(soft::canonical(got_in_place), want, "R in place, decrypt {decrypt}, {case}");
                    assert!(out == xored, "output, decrypt {decrypt}, {case}");
                    assert!(in_place == xored, "output in place, decrypt {decrypt}, {case}");
                }
            }
        }
    }
}
