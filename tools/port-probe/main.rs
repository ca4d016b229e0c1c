//! What limits CWC-ENC on an AVX2 core: the issue rate of the
//! vector instructions CWC-HASH and counter mode are made of, and of `mulx`
//! (a scalar lane's multiply), alone and mixed; and one CWC-HASH group pair
//! (the AVX2 leaf's instruction mix, as compiled on 2026-11-27) and six
//! blocks of VAES-256 counter mode, each alone and both in one loop (the
//! core's out-of-order window overlaps them there: if the two used different
//! execution ports, the loop would cost less than the sum). Built and run by
//! `tools/port-probe/run`; x86-64 with AVX2, AES-NI, VAES and BMI2 only.
//! Figures are TSC ticks and core cycles (from a chain of dependent register
//! adds); the best of seven runs of each loop.
//!
//! No data is secret here: the loops compute nothing anyone reads.

use std::arch::asm;
use std::arch::x86_64::_rdtsc;

const N: u64 = 1_000_000;

/// The best of seven runs of `f(N)`, in TSC ticks per call of its body.
fn best(f: &dyn Fn(u64)) -> f64 {
    (0..7)
        .map(|_| {
            // SAFETY: reads the time-stamp counter; every x86-64 CPU has it.
            let t0 = unsafe { _rdtsc() };
            f(N);
            // SAFETY: as above.
            (unsafe { _rdtsc() } - t0) as f64 / N as f64
        })
        .fold(f64::MAX, f64::min)
}

/// A probe: the twelve instructions given (independent chains on ymm0–ymm11,
/// ymm12 their common operand), eight times over in a counted loop: 96
/// instructions per iteration.
macro_rules! loop12 {
    ($($ins:expr),+ $(,)?) => {
        |n: u64| {
            // SAFETY: register-only arithmetic on clobbered registers and a
            // counted loop.
            unsafe {
                asm!("2:", ".rept 8", $($ins),+, ".endr", "dec {n}", "jnz 2b",
                    n = inout(reg) n => _,
                    out("ymm0") _, out("ymm1") _, out("ymm2") _, out("ymm3") _, out("ymm4") _, out("ymm5") _,
                    out("ymm6") _, out("ymm7") _, out("ymm8") _, out("ymm9") _, out("ymm10") _, out("ymm11") _,
                    out("ymm12") _, options(nostack));
            }
        }
    };
}

/// Twelve independent chains of one instruction (register operands, then
/// `$rest`, e.g. an immediate), eight times: 96 instructions per iteration.
macro_rules! twelve {
    ($ins:literal) => {
        twelve!($ins, "")
    };
    ($ins:literal, $rest:literal) => {
        loop12!(
            concat!($ins, " ymm0, ymm0, ymm12", $rest), concat!($ins, " ymm1, ymm1, ymm12", $rest),
            concat!($ins, " ymm2, ymm2, ymm12", $rest), concat!($ins, " ymm3, ymm3, ymm12", $rest),
            concat!($ins, " ymm4, ymm4, ymm12", $rest), concat!($ins, " ymm5, ymm5, ymm12", $rest),
            concat!($ins, " ymm6, ymm6, ymm12", $rest), concat!($ins, " ymm7, ymm7, ymm12", $rest),
            concat!($ins, " ymm8, ymm8, ymm12", $rest), concat!($ins, " ymm9, ymm9, ymm12", $rest),
            concat!($ins, " ymm10, ymm10, ymm12", $rest), concat!($ins, " ymm11, ymm11, ymm12", $rest),
        )
    };
}

/// Six chains of `a` and six of `b`, alternating, eight times: 48 of each
/// per iteration.
macro_rules! pairs {
    ($a:literal, $b:literal) => {
        loop12!(
            concat!($a, " ymm0, ymm0, ymm12"), concat!($b, " ymm6, ymm6, ymm12"),
            concat!($a, " ymm1, ymm1, ymm12"), concat!($b, " ymm7, ymm7, ymm12"),
            concat!($a, " ymm2, ymm2, ymm12"), concat!($b, " ymm8, ymm8, ymm12"),
            concat!($a, " ymm3, ymm3, ymm12"), concat!($b, " ymm9, ymm9, ymm12"),
            concat!($a, " ymm4, ymm4, ymm12"), concat!($b, " ymm10, ymm10, ymm12"),
            concat!($a, " ymm5, ymm5, ymm12"), concat!($b, " ymm11, ymm11, ymm12"),
        )
    };
}

/// One CWC-HASH group (48 bytes at `{D}`, powers at `{P}`): load and split
/// four coefficients into radix-2^26 limbs, then 20 `vpmuludq` with the
/// powers as memory operands and 20 `vpaddq` into ymm3..ymm7. Constants at
/// `{c}`: three byte shuffles and the 26-bit mask.
macro_rules! group {
    ($d:literal, $p:literal) => {
        concat!(
            "vmovdqu xmm0, [{",
            $d,
            "}]\n",
            "vmovdqu xmm1, [{",
            $d,
            "}+0x18]\n",
            "vinserti128 ymm0, ymm0, [{",
            $d,
            "}+0xc], 1\n",
            "vpshufb ymm8, ymm0, [{c}]\n",
            "vinserti128 ymm1, ymm1, [{",
            $d,
            "}+0x20], 1\n",
            "vpshufb ymm9, ymm1, [{c}+32]\n",
            "vpunpckhqdq ymm10, ymm8, ymm9\n",
            "vpshufb ymm1, ymm1, [{c}+64]\n",
            "vpshufb ymm0, ymm0, [{c}+64]\n",
            "vpbroadcastq ymm11, [{c}+96]\n",
            "vpblendd ymm0, ymm0, ymm1, 0xcc\n",
            "vpand ymm8, ymm11, ymm0\n",
            "vpsrlq ymm1, ymm0, 26\n",
            "vpand ymm9, ymm11, ymm1\n",
            "vpsrlq ymm0, ymm0, 52\n",
            "vpsllq ymm1, ymm10, 12\n",
            "vpor ymm0, ymm1, ymm0\n",
            "vpand ymm11, ymm11, ymm0\n",
            "vpsrlq ymm10, ymm10, 14\n",
            "vpmuludq ymm0, ymm8, [{",
            $p,
            "}]\n",
            "vpaddq ymm0, ymm0, ymm3\n",
            "vpmuludq ymm1, ymm9, [{",
            $p,
            "}+0x100]\n",
            "vpaddq ymm0, ymm0, ymm1\n",
            "vpmuludq ymm1, ymm11, [{",
            $p,
            "}+0xe0]\n",
            "vpaddq ymm0, ymm0, ymm1\n",
            "vpmuludq ymm1, ymm10, [{",
            $p,
            "}+0xc0]\n",
            "vpaddq ymm3, ymm0, ymm1\n",
            "vpmuludq ymm0, ymm8, [{",
            $p,
            "}+0x20]\n",
            "vpaddq ymm0, ymm0, ymm4\n",
            "vpmuludq ymm1, ymm9, [{",
            $p,
            "}]\n",
            "vpaddq ymm0, ymm0, ymm1\n",
            "vpmuludq ymm1, ymm11, [{",
            $p,
            "}+0x100]\n",
            "vpaddq ymm0, ymm0, ymm1\n",
            "vpmuludq ymm1, ymm10, [{",
            $p,
            "}+0xe0]\n",
            "vpaddq ymm4, ymm0, ymm1\n",
            "vpmuludq ymm0, ymm8, [{",
            $p,
            "}+0x40]\n",
            "vpaddq ymm0, ymm0, ymm5\n",
            "vpmuludq ymm1, ymm9, [{",
            $p,
            "}+0x20]\n",
            "vpaddq ymm0, ymm0, ymm1\n",
            "vpmuludq ymm1, ymm11, [{",
            $p,
            "}]\n",
            "vpaddq ymm0, ymm0, ymm1\n",
            "vpmuludq ymm1, ymm10, [{",
            $p,
            "}+0x100]\n",
            "vpaddq ymm5, ymm0, ymm1\n",
            "vpmuludq ymm0, ymm8, [{",
            $p,
            "}+0x60]\n",
            "vpaddq ymm0, ymm0, ymm6\n",
            "vpmuludq ymm1, ymm9, [{",
            $p,
            "}+0x40]\n",
            "vpaddq ymm0, ymm0, ymm1\n",
            "vpmuludq ymm1, ymm11, [{",
            $p,
            "}+0x20]\n",
            "vpaddq ymm0, ymm0, ymm1\n",
            "vpmuludq ymm1, ymm10, [{",
            $p,
            "}]\n",
            "vpaddq ymm6, ymm0, ymm1\n",
            "vpmuludq ymm0, ymm8, [{",
            $p,
            "}+0x80]\n",
            "vpaddq ymm0, ymm0, ymm7\n",
            "vpmuludq ymm1, ymm9, [{",
            $p,
            "}+0x60]\n",
            "vpaddq ymm0, ymm0, ymm1\n",
            "vpmuludq ymm1, ymm11, [{",
            $p,
            "}+0x40]\n",
            "vpaddq ymm0, ymm0, ymm1\n",
            "vpmuludq ymm1, ymm10, [{",
            $p,
            "}+0x20]\n",
            "vpaddq ymm7, ymm0, ymm1\n",
        )
    };
}

/// Counter mode on six blocks (three ymm registers, AES-128 with the round
/// keys at `{k}` as memory operands), XORed into the 96 bytes at `{e}`.
macro_rules! ctr6 {
    () => {
        concat!(
            "vpshufb ymm12, ymm15, [{c}+128]\n",
            "vpaddd ymm15, ymm15, [{c}+160]\n",
            "vpshufb ymm13, ymm15, [{c}+128]\n",
            "vpaddd ymm15, ymm15, [{c}+160]\n",
            "vpshufb ymm14, ymm15, [{c}+128]\n",
            "vpaddd ymm15, ymm15, [{c}+160]\n",
            "vpxor ymm12, ymm12, [{k}]\n",
            "vpxor ymm13, ymm13, [{k}]\n",
            "vpxor ymm14, ymm14, [{k}]\n",
            ".irp off, 32, 64, 96, 128, 160, 192, 224, 256, 288\n",
            "vaesenc ymm12, ymm12, [{k}+\\off]\n",
            "vaesenc ymm13, ymm13, [{k}+\\off]\n",
            "vaesenc ymm14, ymm14, [{k}+\\off]\n",
            ".endr\n",
            "vaesenclast ymm12, ymm12, [{k}+320]\n",
            "vaesenclast ymm13, ymm13, [{k}+320]\n",
            "vaesenclast ymm14, ymm14, [{k}+320]\n",
            "vpxor ymm12, ymm12, [{e}]\n",
            "vmovdqu [{e}], ymm12\n",
            "vpxor ymm13, ymm13, [{e}+32]\n",
            "vmovdqu [{e}+32], ymm13\n",
            "vpxor ymm14, ymm14, [{e}+64]\n",
            "vmovdqu [{e}+64], ymm14\n",
        )
    };
}

#[repr(C, align(64))]
struct Buffers {
    data: [u8; 192],
    powers: [u8; 576],
    keys: [u8; 352],
    consts: [u8; 192],
}

/// A loop of `body` over the buffers, `n` times.
macro_rules! probe {
    ($b:expr, $($body:expr),+) => {
        |n: u64| {
            let b: &Buffers = $b;
            let (d, p) = (b.data.as_ptr(), b.powers.as_ptr());
            // SAFETY: every memory operand is inside `b` (data 0..96 read,
            // 96..192 read and written through a pointer to a buffer this
            // program owns and nothing else reads; powers 0..576, keys
            // 0..352, constants 0..192 read); the rest is register
            // arithmetic on clobbered registers and a counted loop.
            unsafe {
                asm!("/* operands: {d} {d2} {p} {p2} {e} {k} {c} */", "2:", $($body,)+ "dec {n}", "jnz 2b",
                    d = in(reg) d, d2 = in(reg) d.add(48), p = in(reg) p, p2 = in(reg) p.add(288),
                    e = in(reg) d.add(96).cast_mut(), k = in(reg) b.keys.as_ptr(), c = in(reg) b.consts.as_ptr(),
                    n = inout(reg) n => _,
                    out("ymm0") _, out("ymm1") _, out("ymm2") _, out("ymm3") _, out("ymm4") _, out("ymm5") _,
                    out("ymm6") _, out("ymm7") _, out("ymm8") _, out("ymm9") _, out("ymm10") _, out("ymm11") _,
                    out("ymm12") _, out("ymm13") _, out("ymm14") _, out("ymm15") _, options(nostack));
            }
        }
    };
}

fn main() {
    assert!(
        is_x86_feature_detected!("avx2")
            && is_x86_feature_detected!("aes")
            && is_x86_feature_detected!("vaes")
            && is_x86_feature_detected!("bmi2"),
        "port-probe needs AVX2, AES-NI, VAES and BMI2"
    );
    // Core cycles per tick: 800 dependent register adds.
    let chain = best(&|n| {
        // SAFETY: register-only arithmetic and a counted loop.
        unsafe {
            asm!("2:", ".rept 800", "add {x}, {y}", ".endr", "dec {n}", "jnz 2b",
                n = inout(reg) n / 8 => _, x = inout(reg) 0u64 => _, y = in(reg) 1u64, options(nomem, nostack));
        }
    }) * 8.0;
    let cpt = 800.0 / chain;
    println!("core cycles per TSC tick: {cpt:.2}");
    let rate = |name: &str, count: f64, f: &dyn Fn(u64)| {
        let t = best(f);
        println!("  {name:44} {:5.2} per cycle", count / (t * cpt));
    };
    println!("instructions per cycle, independent chains:");
    rate("vpmuludq ymm", 96.0, &twelve!("vpmuludq"));
    rate("vpaddq ymm", 96.0, &twelve!("vpaddq"));
    rate("vaesenc ymm", 96.0, &twelve!("vaesenc"));
    rate("vpmuludq + vpaddq, 1:1 (both counted)", 96.0, &pairs!("vpmuludq", "vpaddq"));
    rate("vaesenc + vpmuludq, 1:1 (both counted)", 96.0, &pairs!("vaesenc", "vpmuludq"));
    rate("vaesenc + vpaddq, 1:1 (both counted)", 96.0, &pairs!("vaesenc", "vpaddq"));
    // A scalar lane beside the vector lanes (a proposed remedy): mulx
    // issues at most one per cycle; if the pair issues two per cycle in all,
    // the scalar multiplies take vpmuludq's place rather than adding to it.
    rate("mulx + vpmuludq, 1:1 (both counted)", 96.0, &|n: u64| {
        // SAFETY: register-only arithmetic on clobbered registers and a
        // counted loop.
        unsafe {
            asm!("2:",
                ".rept 8",
                "mulx r8, r9, r10", "vpmuludq ymm6, ymm6, ymm12", "mulx r11, r9, r10", "vpmuludq ymm7, ymm7, ymm12",
                "mulx r8, r9, r10", "vpmuludq ymm8, ymm8, ymm12", "mulx r11, r9, r10", "vpmuludq ymm9, ymm9, ymm12",
                "mulx r8, r9, r10", "vpmuludq ymm10, ymm10, ymm12", "mulx r11, r9, r10", "vpmuludq ymm11, ymm11, ymm12",
                ".endr", "dec {n}", "jnz 2b",
                n = inout(reg) n => _,
                out("r8") _, out("r9") _, out("r10") _, out("r11") _, out("rdx") _,
                out("ymm6") _, out("ymm7") _, out("ymm8") _, out("ymm9") _, out("ymm10") _, out("ymm11") _,
                out("ymm12") _, options(nostack));
        }
    });
    rate("mulx alone (as many)", 48.0, &|n: u64| {
        // SAFETY: register-only arithmetic on clobbered registers and a
        // counted loop.
        unsafe {
            asm!("2:",
                ".rept 8",
                "mulx r8, r9, r10", "mulx r11, r9, r10", "mulx r8, r9, r10",
                "mulx r11, r9, r10", "mulx r8, r9, r10", "mulx r11, r9, r10",
                ".endr", "dec {n}", "jnz 2b",
                n = inout(reg) n => _,
                out("r8") _, out("r9") _, out("r10") _, out("r11") _, out("rdx") _, options(nostack));
        }
    });

    // The AES-NI tier's counter mode (one block per `aesenc`, xmm) beside
    // the hash's multiplies, and beside GCM's carry-less multiplies.
    macro_rules! xmm_pairs {
        ($a:literal, $b:literal) => {
            loop12!(
                concat!($a, "0, xmm0, xmm12"), concat!($b, "6, ymm6, ymm12"),
                concat!($a, "1, xmm1, xmm12"), concat!($b, "7, ymm7, ymm12"),
                concat!($a, "2, xmm2, xmm12"), concat!($b, "8, ymm8, ymm12"),
                concat!($a, "3, xmm3, xmm12"), concat!($b, "9, ymm9, ymm12"),
                concat!($a, "4, xmm4, xmm12"), concat!($b, "10, ymm10, ymm12"),
                concat!($a, "5, xmm5, xmm12"), concat!($b, "11, ymm11, ymm12"),
            )
        };
    }
    rate("vaesenc xmm", 96.0, &loop12!(
        "vaesenc xmm0, xmm0, xmm12", "vaesenc xmm6, xmm6, xmm12", "vaesenc xmm1, xmm1, xmm12",
        "vaesenc xmm7, xmm7, xmm12", "vaesenc xmm2, xmm2, xmm12", "vaesenc xmm8, xmm8, xmm12",
        "vaesenc xmm3, xmm3, xmm12", "vaesenc xmm9, xmm9, xmm12", "vaesenc xmm4, xmm4, xmm12",
        "vaesenc xmm10, xmm10, xmm12", "vaesenc xmm5, xmm5, xmm12", "vaesenc xmm11, xmm11, xmm12",
    ));
    rate("vaesenc xmm + vpmuludq ymm, 1:1 (both counted)", 96.0, &xmm_pairs!("vaesenc xmm", "vpmuludq ymm"));
    rate("vaesenc xmm + vpaddq ymm, 1:1 (both counted)", 96.0, &xmm_pairs!("vaesenc xmm", "vpaddq ymm"));
    rate("vpclmulqdq xmm", 96.0, &loop12!(
        "vpclmulqdq xmm0, xmm0, xmm12, 0", "vpclmulqdq xmm1, xmm1, xmm12, 0",
        "vpclmulqdq xmm2, xmm2, xmm12, 0", "vpclmulqdq xmm3, xmm3, xmm12, 0",
        "vpclmulqdq xmm4, xmm4, xmm12, 0", "vpclmulqdq xmm5, xmm5, xmm12, 0",
        "vpclmulqdq xmm6, xmm6, xmm12, 0", "vpclmulqdq xmm7, xmm7, xmm12, 0",
        "vpclmulqdq xmm8, xmm8, xmm12, 0", "vpclmulqdq xmm9, xmm9, xmm12, 0",
        "vpclmulqdq xmm10, xmm10, xmm12, 0", "vpclmulqdq xmm11, xmm11, xmm12, 0",
    ));
    rate("vaesenc xmm + vpclmulqdq xmm, 1:1 (both counted)", 96.0, &loop12!(
        "vaesenc xmm0, xmm0, xmm12", "vpclmulqdq xmm6, xmm6, xmm12, 0",
        "vaesenc xmm1, xmm1, xmm12", "vpclmulqdq xmm7, xmm7, xmm12, 0",
        "vaesenc xmm2, xmm2, xmm12", "vpclmulqdq xmm8, xmm8, xmm12, 0",
        "vaesenc xmm3, xmm3, xmm12", "vpclmulqdq xmm9, xmm9, xmm12, 0",
        "vaesenc xmm4, xmm4, xmm12", "vpclmulqdq xmm10, xmm10, xmm12, 0",
        "vaesenc xmm5, xmm5, xmm12", "vpclmulqdq xmm11, xmm11, xmm12, 0",
    ));

    // GHASH's multiply beside counter mode's, on 256-bit registers: two
    // `vaesenc` to one `vpclmulqdq`. If the three shared two ports, this
    // would run at 2 a cycle; on a port of its own, the multiply lets both
    // AES units keep going (up to 3 a cycle).
    rate("vpclmulqdq ymm", 96.0, &twelve!("vpclmulqdq", ", 0"));
    rate("vaesenc ymm + vpclmulqdq ymm, 2:1 (both counted)", 96.0, &loop12!(
        "vaesenc ymm0, ymm0, ymm12", "vaesenc ymm1, ymm1, ymm12", "vpclmulqdq ymm8, ymm8, ymm12, 0",
        "vaesenc ymm2, ymm2, ymm12", "vaesenc ymm3, ymm3, ymm12", "vpclmulqdq ymm9, ymm9, ymm12, 0",
        "vaesenc ymm4, ymm4, ymm12", "vaesenc ymm5, ymm5, ymm12", "vpclmulqdq ymm10, ymm10, ymm12, 0",
        "vaesenc ymm6, ymm6, ymm12", "vaesenc ymm7, ymm7, ymm12", "vpclmulqdq ymm11, ymm11, ymm12, 0",
    ));

    let b = Box::new(Buffers { data: [1; 192], powers: [1; 576], keys: [1; 352], consts: [1; 192] });
    let b = &*b;
    let hash = best(&probe!(b, group!("d", "p"), group!("d2", "p2")));
    let ctr = best(&probe!(b, ctr6!()));
    let apart = best(&probe!(b, group!("d", "p"), group!("d2", "p2"), ctr6!()));
    println!("96 bytes (two CWC-HASH groups, six counter-mode blocks), ticks (cycles):");
    for (name, t) in
        [("hash alone", hash), ("counter mode alone", ctr), ("sum of the two", hash + ctr), ("both in one loop", apart)]
    {
        println!("  {name:44} {t:6.1} ({:5.1})", t * cpt);
    }

    if is_x86_feature_detected!("avx512ifma") && is_x86_feature_detected!("vaes") {
        ifma(&rate);
    }
}

/// `a` and `b` on 512-bit registers, 48 of each per iteration (six chains
/// of each, alternating, eight times): `a` writes zmm0..5 and `b` zmm6..11,
/// each from the operands that follow it (`"zmm12, zmm13"`, or a register
/// and an immediate).
macro_rules! zmm_pairs {
    ($a:literal, $b:literal) => {
        zmm_pairs!($a, "zmm12, zmm13", $b, "zmm12, zmm13")
    };
    ($a:literal, $ao:literal, $b:literal, $bo:literal) => {
        |n: u64| {
            // SAFETY: register-only arithmetic on clobbered registers and a
            // counted loop.
            unsafe {
                asm!("2:",
                    ".rept 8",
                    concat!($a, " zmm0, ", $ao), concat!($b, " zmm6, ", $bo),
                    concat!($a, " zmm1, ", $ao), concat!($b, " zmm7, ", $bo),
                    concat!($a, " zmm2, ", $ao), concat!($b, " zmm8, ", $bo),
                    concat!($a, " zmm3, ", $ao), concat!($b, " zmm9, ", $bo),
                    concat!($a, " zmm4, ", $ao), concat!($b, " zmm10, ", $bo),
                    concat!($a, " zmm5, ", $ao), concat!($b, " zmm11, ", $bo),
                    ".endr", "dec {n}", "jnz 2b",
                    n = inout(reg) n => _,
                    out("zmm0") _, out("zmm1") _, out("zmm2") _, out("zmm3") _, out("zmm4") _, out("zmm5") _,
                    out("zmm6") _, out("zmm7") _, out("zmm8") _, out("zmm9") _, out("zmm10") _, out("zmm11") _,
                    out("zmm12") _, out("zmm13") _, options(nostack));
            }
        }
    };
}

/// The IFMA tier's bounds (issue 36, P1 and C1): the issue rates of the
/// 512-bit instructions Poly1305's and CWC-HASH's IFMA lanes and VAES-512
/// counter mode are made of, alone and paired. `vpmadd52luq` accumulates
/// (zmm0..11 are twelve chains); `vpaddq`, `vpsrlq` (by an immediate) and
/// `vaesenc` write their first operand from others, so nothing waits.
fn ifma(rate: &dyn Fn(&str, f64, &dyn Fn(u64))) {
    println!("512-bit instructions per cycle (AVX-512 IFMA and VAES), independent chains:");
    rate("vpmadd52luq zmm", 96.0, &zmm_pairs!("vpmadd52luq", "vpmadd52luq"));
    rate("vpaddq zmm", 96.0, &zmm_pairs!("vpaddq", "vpaddq"));
    rate("vpsrlq zmm, imm", 96.0, &zmm_pairs!("vpsrlq", "zmm12, 44", "vpsrlq", "zmm12, 44"));
    rate("vaesenc zmm", 96.0, &zmm_pairs!("vaesenc", "vaesenc"));
    rate("vpmadd52luq + vpaddq, 1:1 (both counted)", 96.0, &zmm_pairs!("vpmadd52luq", "vpaddq"));
    rate("vpmadd52luq + vpsrlq imm, 1:1 (both counted)", 96.0, &zmm_pairs!("vpmadd52luq", "zmm12, zmm13", "vpsrlq", "zmm12, 44"));
    rate("vaesenc + vpmadd52luq, 1:1 (both counted)", 96.0, &zmm_pairs!("vaesenc", "vpmadd52luq"));
    rate("vaesenc + vpaddq, 1:1 (both counted)", 96.0, &zmm_pairs!("vaesenc", "vpaddq"));
    rate("vaesenc + vpsrlq imm, 1:1 (both counted)", 96.0, &zmm_pairs!("vaesenc", "zmm12, zmm13", "vpsrlq", "zmm12, 44"));
    // MMH32 and NMH32's 512-bit leaf: products, the odd words' shifts or
    // shuffles, the adds.
    rate("vpmuludq zmm", 96.0, &zmm_pairs!("vpmuludq", "vpmuludq"));
    rate("vpshufd zmm, imm", 96.0, &zmm_pairs!("vpshufd", "zmm12, 0xf5", "vpshufd", "zmm12, 0xf5"));
    rate("vpmuludq + vpsrlq imm, 1:1 (both counted)", 96.0, &zmm_pairs!("vpmuludq", "zmm12, zmm13", "vpsrlq", "zmm12, 32"));
    rate("vpmuludq + vpshufd imm, 1:1 (both counted)", 96.0, &zmm_pairs!("vpmuludq", "zmm12, zmm13", "vpshufd", "zmm12, 0xf5"));
    rate("vpsrlq imm + vpshufd imm, 1:1 (both counted)", 96.0, &zmm_pairs!("vpsrlq", "zmm12, 32", "vpshufd", "zmm12, 0xf5"));
    // CWC-HASH's IFMA load: two byte permutes from two registers per group.
    rate("vpermt2b zmm", 96.0, &zmm_pairs!("vpermt2b", "vpermt2b"));
    rate("vpermb zmm", 96.0, &zmm_pairs!("vpermb", "vpermb"));
    rate("vpermt2b + vpmadd52luq, 1:1 (both counted)", 96.0, &zmm_pairs!("vpermt2b", "vpmadd52luq"));
    rate("vpermb + vpmadd52luq, 1:1 (both counted)", 96.0, &zmm_pairs!("vpermb", "vpmadd52luq"));
}
