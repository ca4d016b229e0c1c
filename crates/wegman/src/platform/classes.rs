//! Each x86-64 CPU class runs the backends it should.
//!
//! The table below says, for every class CI runs (four under
//! `qemu-x86_64 -cpu MODEL`, the fifth natively where the machine has it),
//! which code each family picks. The class is read from the flags the CPU
//! reports, independently of `wegman::cpu::Features`, and the backends are
//! asked of each family's own dispatch ([`Backends::detect`], the labels the
//! benchmark prints), so a CPU that gets the wrong backend — or a SIMD
//! backend it cannot run — fails here. `WEGMAN_EXPECT_CPU=MODEL` (set by
//! `scripts/test-cpu-classes`) also checks that the emulator really
//! presented the class that MODEL stands for.
//!
//! | class | CPUs | qemu model |
//! |---|---|---|
//! | portable | no AES-NI, no AVX2 | `qemu64` |
//! | aesni | AES-NI + SSSE3, no AVX2 (Westmere–Ivy Bridge) | `Westmere` |
//! | avx2 | AVX2 + BMI2, no VAES (Haswell–Skylake, Zen 1/2) | `Haswell-v4` |
//! | avx2-vaes256 | AVX2 + VAES, no AVX-512 (Zen 3, Alder Lake; qemu 7.2's model lacks VPCLMULQDQ) | `Icelake-Server` |
//! | ifma | AVX-512 F/VL/BW/IFMA/VBMI + VAES (Ice Lake server, Zen 4/5) | native only |

use super::Backends;
use crate::cpu::{Cpuid, Features};

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Class {
    Portable,
    AesNi,
    Avx2,
    Avx2Vaes256,
    Ifma,
}

/// The class of a CPU from what it reports; `None` for a mix the table does
/// not name (AVX-512 without IFMA, AVX2 without AES-NI, …).
fn classify(c: Cpuid) -> Option<Class> {
    let avx512 = c.avx512f && c.avx512vl && c.avx512bw && c.avx512ifma && c.avx512vbmi;
    let any512 = c.avx512f || c.avx512vl || c.avx512bw || c.avx512ifma || c.avx512vbmi;
    let aes = c.aes && c.ssse3;
    match (aes, c.avx2 && c.bmi2, c.vaes, avx512, any512) {
        (false, false, false, false, false) => Some(Class::Portable),
        (true, false, false, false, false) => Some(Class::AesNi),
        (true, true, false, false, false) => Some(Class::Avx2),
        (true, true, true, false, false) => Some(Class::Avx2Vaes256),
        (true, true, true, true, true) => Some(Class::Ifma),
        _ => None,
    }
}

/// The table: what each family must run on each class.
fn expected(class: Class) -> Backends {
    let portable = Backends {
        poly1305: "portable",
        aes_pad: "aes-crate",
        batch_pads: "aes-crate",
        batch_lanes: "per-item",
        mmh32: "portable",
        mmh64: "portable",
        cwc_hash: "portable",
        cwc_ctr: "aes-crate",
    };
    let aesni = Backends { aes_pad: "aesni-fused", batch_pads: "aesni-fused", cwc_ctr: "aesni", ..portable };
    let avx2 = Backends { poly1305: "avx2", mmh32: "avx2", mmh64: "avx2", cwc_hash: "avx2", ..aesni };
    match class {
        Class::Portable => portable,
        Class::AesNi => aesni,
        Class::Avx2 => avx2,
        // qemu 7.2 reports VAES but computes 256-bit vaesenc wrongly: its
        // known-answer test fails and the AES-NI leaf runs instead
        Class::Avx2Vaes256 if Features::vaes256_failed_its_check() => avx2,
        Class::Avx2Vaes256 => Backends { cwc_ctr: "vaes256", batch_pads: "vaes256", ..avx2 },
        Class::Ifma => Backends {
            poly1305: "ifma",
            batch_pads: "vaes512",
            batch_lanes: "ifma-lanes",
            mmh32: "ifma",
            mmh64: "ifma",
            cwc_hash: "ifma",
            cwc_ctr: "vaes512",
            ..avx2
        },
    }
}

/// The class a `wegman_backend` cap or `WEGMAN_CPU` leaves of `class`.
fn capped(class: Class) -> Class {
    let build = if cfg!(wegman_backend = "portable") {
        Class::Portable
    } else if cfg!(wegman_backend = "avx2") {
        Class::Avx2
    } else {
        Class::Ifma
    };
    let run = match std::env::var("WEGMAN_CPU").as_deref() {
        Ok("portable") => Class::Portable,
        Ok("aesni") => Class::AesNi,
        Ok("avx2") => Class::Avx2,
        Ok("avx2-vaes") => Class::Avx2Vaes256,
        _ => Class::Ifma,
    };
    class.min(build).min(run)
}

fn model_class(model: &str) -> Class {
    match model {
        "qemu64" => Class::Portable,
        "Westmere" => Class::AesNi,
        "Haswell-v4" => Class::Avx2,
        "Icelake-Server" => Class::Avx2Vaes256,
        "native-ifma" => Class::Ifma,
        other => panic!("WEGMAN_EXPECT_CPU={other}: not a model of the table"),
    }
}

#[test]
fn each_class_runs_the_backends_of_the_table() {
    let cpu = Cpuid::read();
    let got = Backends::detect();
    let class = classify(cpu);
    eprintln!("CPU reports: {cpu}");
    eprintln!("class: {class:?}; tier: {}; backends: {got}", Features::detect().tier());
    if Features::vaes256_failed_its_check() {
        eprintln!("VAES-256 failed its known-answer test here (qemu 7.2's TCG does): its leaf is not used");
    }
    if let Ok(model) = std::env::var("WEGMAN_EXPECT_CPU") {
        assert_eq!(class, Some(model_class(&model)), "qemu model {model} presented flags {cpu}");
    }
    match class {
        Some(class) => assert_eq!(got, expected(capped(class)), "class {class:?} (CPU reports {cpu})"),
        None => {
            // A mix the table does not name: at least no backend the
            // features cannot back, and the rule's tokens exactly.
            eprintln!("a CPU class the table does not name: checking the rule only");
            if !Features::capped() {
                assert_eq!(Features::detect(), Features::uncapped());
            }
        }
    }
}

/// A CPU, not an emulator, that reports VAES and AVX2 computes 256-bit
/// `vaesenc` as two 128-bit `aesenc`s: its known-answer test passes and it
/// gets the `Vaes256` token (a check that always failed would survive every
/// other test here, the table accepting the fallback). The CPU-class runs
/// under qemu, whose TCG fails the check, set `WEGMAN_EMULATED`.
#[test]
fn real_vaes_hardware_passes_its_known_answer_test() {
    if std::env::var_os("WEGMAN_EMULATED").is_some() {
        return;
    }
    assert!(
        !Features::vaes256_failed_its_check(),
        "this CPU reports VAES and AVX2, but its 256-bit vaesenc disagrees with aesenc"
    );
}

/// The rule itself, on the flags of each class and of mixes no machine here
/// has: no token is inferred from another feature.
#[test]
fn tokens_follow_the_flags_they_need() {
    let none = Cpuid::default();
    let westmere = Cpuid { aes: true, ssse3: true, pclmulqdq: true, ..none };
    let haswell = Cpuid { avx2: true, bmi2: true, ..westmere };
    let zen3 = Cpuid { vaes: true, vpclmulqdq: true, ..haswell };
    let zen4 = Cpuid { avx512f: true, avx512vl: true, avx512bw: true, avx512ifma: true, avx512vbmi: true, ..zen3 };
    let tokens = |c: Cpuid| {
        let [aesni, avx2, vaes, ifma, vaes256] = Features::rule(c);
        assert!(!vaes256 || (aesni && avx2 && c.vaes), "256-bit VAES needs AES-NI, AVX2 and VAES: {c}");
        (aesni, avx2, vaes, ifma)
    };
    let vaes256 = |c: Cpuid| Features::rule(c)[4];
    assert_eq!(tokens(none), (false, false, false, false));
    assert_eq!(tokens(westmere), (true, false, false, false));
    assert_eq!(tokens(haswell), (true, true, false, false));
    assert_eq!(tokens(zen3), (true, true, false, false), "VAES without AVX-512 gives no 512-bit VAES token");
    assert_eq!(tokens(zen4), (true, true, true, true));
    assert_eq!([none, westmere, haswell, zen3, zen4].map(vaes256), [false, false, false, true, true]);
    // VAES reported without AVX2, or without AES-NI: no 256-bit VAES token.
    assert!(!vaes256(Cpuid { avx2: false, ..zen3 }) && !vaes256(Cpuid { aes: false, ..zen3 }));
    // AVX2 without BMI2: no AVX2 token (its MMH64 leaf uses mulx).
    assert_eq!(tokens(Cpuid { bmi2: false, ..haswell }), (true, false, false, false));
    // AVX2 without AES-NI (some virtual machines hide AES-NI).
    assert_eq!(tokens(Cpuid { aes: false, ..haswell }), (false, true, false, false));
    // AES without SSSE3 gives no AES-NI token (the leaves use pshufb).
    assert_eq!(tokens(Cpuid { ssse3: false, ..westmere }), (false, false, false, false));
    // AVX-512 without IFMA (Skylake-X) or without VBMI.
    let skx = Cpuid { avx512f: true, avx512vl: true, avx512bw: true, ..haswell };
    assert_eq!(tokens(skx), (true, true, false, false));
    assert_eq!(tokens(Cpuid { avx512vbmi: false, ..zen4 }), (true, true, true, false));
    // VAES-512 without AES-NI reported: no VAES token either.
    assert_eq!(tokens(Cpuid { aes: false, ..zen4 }), (false, true, false, true));
    // The table's classes for these flag sets.
    assert_eq!(classify(none), Some(Class::Portable));
    assert_eq!(classify(westmere), Some(Class::AesNi));
    assert_eq!(classify(haswell), Some(Class::Avx2));
    assert_eq!(classify(zen3), Some(Class::Avx2Vaes256));
    assert_eq!(classify(zen4), Some(Class::Ifma));
    assert_eq!(classify(skx), None);
}

/// The table holds for every level a test can reach on this CPU: the
/// backends asked with the lower levels' features are those lower rows.
#[test]
fn every_lower_level_runs_its_row() {
    let Some(class) = classify(Cpuid::read()) else { return };
    let class = capped(class);
    for f in Features::detect().every_level() {
        let level = match (f.aesni().is_some(), f.avx2().is_some(), f.avx512ifma().is_some()) {
            (_, _, true) => class,
            (true, true, false) if f.vaes256().is_some() => Class::Avx2Vaes256,
            (true, true, false) => Class::Avx2,
            (true, false, false) => Class::AesNi,
            (false, false, false) => Class::Portable,
            (false, true, false) => continue,
        };
        assert_eq!(Backends::for_features(f), expected(level), "level {f:?} on class {class:?}");
    }
}
