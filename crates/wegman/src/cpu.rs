//! Run-time CPU feature detection: the one place that decides which
//! instruction sets a backend may use.
//!
//! A SIMD backend runs only with a *proof token* in hand — [`AesNi`],
//! [`Avx2`], [`Avx512Ifma`], [`Vaes256`], [`Vaes512`] — a zero-sized value that can only be obtained from
//! [`Features`], and [`Features`] hands one out only after a positive
//! run-time detection (ring's and RustCrypto `cpufeatures`' pattern). So no
//! safe code can make a backend run on a CPU that lacks its instructions:
//! the `unsafe` calls into `#[target_feature]` code in the `x86_*` leaves
//! each name the token that proves the feature.
//!
//! Every keyed object asks for [`Features`] once, when it is made (per key,
//! never per block), and keeps the backend it picked; the standard library
//! caches the detection itself. Tests use [`Features::portable`] and
//! [`Features::every_level`] to run each backend this CPU has.
//!
//! Building with `RUSTFLAGS='--cfg wegman_backend="portable"'` makes
//! [`Features::detect`] find nothing, so the portable code runs everywhere
//! (CI runs the suite that way too); `wegman_backend="avx2"` caps it at
//! AES-NI and AVX2 (no AVX-512 IFMA, no VAES), for same-ISA figures on an
//! AVX-512 machine, one-shot calls included.
//!
//! At run time, `WEGMAN_CPU=portable|aesni|avx2|avx2-vaes|ifma` caps the
//! detection at that tier (read once, with the first detection; like
//! `OPENSSL_ia32cap` it can only take away what the CPU has, never add):
//! one machine can measure and test every tier below its own. An unknown
//! value caps nothing; [`Features::tier`] names what runs.

use core::fmt;
use core::sync::atomic::{AtomicU8, Ordering};

#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
mod vaes_check;

/// Proof that this CPU runs AES-NI and SSSE3 (`aesenc`, `pshufb`).
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct AesNi(());

/// Proof that this CPU runs VAES on 512-bit registers (AES-NI, VAES,
/// AVX-512 F and BW): four AES blocks per instruction.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Vaes512(());

/// Proof that this CPU runs VAES on 256-bit registers in their AVX2
/// encoding (AES-NI, SSSE3, VAES and AVX2): two AES blocks per instruction.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Vaes256(());

/// Proof that this CPU runs AVX2 (and the OS saves its registers) and BMI2
/// (`mulx`, which the MMH64 AVX2 leaf's scalar half uses; every AVX2 CPU so
/// far has both, and a CPU that reports AVX2 alone gets no token).
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Avx2(());

/// Proof that this CPU runs AVX-512 F, VL, IFMA (52-bit multiply-add) and
/// VBMI (byte permutes; every CPU with IFMA so far has it too).
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Avx512Ifma(());

/// What [`Features::detect`] found, once known: its bits and [`KNOWN`].
static DETECTED: AtomicU8 = AtomicU8::new(0);
const KNOWN: u8 = 1 << 7;

/// Each proof prints as its name (`AesNi`, not `AesNi(())`).
macro_rules! debug_as_name {
    ($($token:ident),*) => {$(
        impl fmt::Debug for $token {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(stringify!($token))
            }
        }
    )*};
}
debug_as_name!(AesNi, Vaes512, Vaes256, Avx2, Avx512Ifma);

/// The instruction-set extensions a backend may use: at most what the CPU
/// has (fewer, to test a lower level).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Features {
    aesni: Option<AesNi>,
    avx2: Option<Avx2>,
    avx512ifma: Option<Avx512Ifma>,
    vaes: Option<Vaes512>,
    vaes256: Option<Vaes256>,
    /// Prefer the paper's §4 floating-point Poly1305 (portable code, so no
    /// token; never set by a detection).
    float64: bool,
}

impl Features {
    /// No extensions: the portable backends.
    pub const fn portable() -> Self {
        Features { aesni: None, avx2: None, avx512ifma: None, vaes: None, vaes256: None, float64: false }
    }

    /// No extensions, and Poly1305 on the paper's §4 floating-point method
    /// (binary64 limbs at 2^0, 2^32, 2^64, 2^96): a portable backend that
    /// is never chosen automatically, kept as the seed's technique and a
    /// benchmark row. MMH and CWC run their portable backends.
    pub const fn float64() -> Self {
        Features { float64: true, ..Self::portable() }
    }

    /// Whether Poly1305 should run the §4 floating-point backend.
    pub fn prefers_float64(self) -> bool {
        self.float64
    }

    /// What this CPU supports (nothing in a `wegman_backend="portable"` build).
    ///
    /// Detected once per process and cached in one atomic byte (a one-shot
    /// tag asks every time; six feature lookups cost it ~35 instructions).
    /// The cache holds only what a detection found, so the tokens it
    /// rebuilds are as sound as the detection's.
    pub fn detect() -> Self {
        if cfg!(wegman_backend = "portable") {
            return Self::portable();
        }
        let bits = DETECTED.load(Ordering::Relaxed);
        if bits & KNOWN != 0 {
            return Self::from_bits(bits);
        }
        Self::detect_first()
    }

    /// The first call's detection, cold and out of line: every later
    /// [`Features::detect`] is then a load, a test and the bits' unpacking,
    /// with no registers to save (it used to push six, most of its 45
    /// instructions, on every one-shot tag). Not forced inline either: that
    /// moved the compiler's inlining elsewhere and slowed `ExpandedKey`'s
    /// short tags by 15 ticks.
    #[cold]
    #[inline(never)]
    fn detect_first() -> Self {
        let found = Self::detect_x86();
        DETECTED.store(found.bits() | KNOWN, Ordering::Relaxed);
        found
    }

    fn bits(self) -> u8 {
        u8::from(self.aesni.is_some())
            | u8::from(self.avx2.is_some()) << 1
            | u8::from(self.avx512ifma.is_some()) << 2
            | u8::from(self.vaes.is_some()) << 3
            | u8::from(self.vaes256.is_some()) << 4
    }

    /// Only ever called on bits that [`Features::bits`] made from a detection.
    fn from_bits(bits: u8) -> Self {
        Features {
            aesni: (bits & 1 != 0).then_some(AesNi(())),
            avx2: (bits & 2 != 0).then_some(Avx2(())),
            avx512ifma: (bits & 4 != 0).then_some(Avx512Ifma(())),
            vaes: (bits & 8 != 0).then_some(Vaes512(())),
            vaes256: (bits & 16 != 0).then_some(Vaes256(())),
            float64: false,
        }
    }

    #[cfg(target_arch = "x86_64")]
    fn detect_x86() -> Self {
        let found = Self::from_cpuid(Cpuid::read()).checked();
        let found = if cfg!(wegman_backend = "avx2") {
            Features { avx512ifma: None, vaes: None, vaes256: None, ..found }
        } else {
            found
        };
        found.cap(std::env::var("WEGMAN_CPU").ok().as_deref())
    }

    /// These features lowered to the tier `cap` names (`WEGMAN_CPU`): only
    /// ever removes tokens.
    fn cap(self, cap: Option<&str>) -> Self {
        let none = Self::portable();
        match cap {
            Some("portable") => none,
            Some("aesni") => Features { aesni: self.aesni, ..none },
            Some("avx2") => Features { aesni: self.aesni, avx2: self.avx2, ..none },
            Some("avx2-vaes") => Features { aesni: self.aesni, avx2: self.avx2, vaes256: self.vaes256, ..none },
            _ => self,
        }
    }

    /// Whether `WEGMAN_CPU` names a tier (so detection may be below the CPU).
    #[cfg(test)]
    fn env_capped() -> bool {
        matches!(std::env::var("WEGMAN_CPU").as_deref(), Ok("portable" | "aesni" | "avx2" | "avx2-vaes"))
    }

    /// The tier these features run, as `WEGMAN_CPU` spells it: `portable`,
    /// `aesni`, `avx2`, `avx2-vaes`, `ifma` (the tokens decide).
    pub fn tier(self) -> &'static str {
        match (self.aesni.is_some(), self.avx2.is_some(), self.avx512ifma.is_some()) {
            (_, _, true) => "ifma",
            (_, true, false) if self.vaes256.is_some() => "avx2-vaes",
            (_, true, false) => "avx2",
            (true, false, false) => "aesni",
            (false, false, false) => "portable",
        }
    }

    /// The one rule from what the CPU reports to the tokens a backend may
    /// use. Each token needs exactly the instructions its leaves execute,
    /// and no token is inferred from another: a CPU may have VAES without
    /// AVX-512 (Zen 3, Alder Lake), AVX2 without AES-NI, and so on.
    ///
    /// - [`AesNi`]: AES-NI and SSSE3;
    /// - [`Avx2`]: AVX2 (with the OS saving the ymm registers, which the
    ///   standard library's detection checks);
    /// - [`Avx512Ifma`]: AVX-512 F, VL, IFMA and VBMI, and AVX2 (the IFMA
    ///   backends finish their tails with the AVX2 code);
    /// - [`Vaes512`]: VAES on 512-bit registers: AES-NI, SSSE3, VAES, AVX-512 F
    ///   and BW;
    /// - [`Vaes256`]: VAES on 256-bit registers: AES-NI, SSSE3, VAES and AVX2
    ///   (Zen 3, Alder Lake; and every CPU with [`Vaes512`] so far).
    #[cfg(target_arch = "x86_64")]
    fn from_cpuid(c: Cpuid) -> Self {
        let aesni = c.aes && c.ssse3;
        let ifma = c.avx2 && c.avx512f && c.avx512vl && c.avx512ifma && c.avx512vbmi;
        let vaes = aesni && c.vaes && c.avx512f && c.avx512bw;
        let vaes256 = aesni && c.vaes && c.avx2;
        Features {
            aesni: aesni.then_some(AesNi(())),
            avx2: (c.avx2 && c.bmi2).then_some(Avx2(())),
            avx512ifma: ifma.then_some(Avx512Ifma(())),
            vaes: vaes.then_some(Vaes512(())),
            vaes256: vaes256.then_some(Vaes256(())),
            float64: false,
        }
    }

    /// The rule's verdict on a set of flags, as booleans (`[AES-NI, AVX2,
    /// VAES-512, AVX-512 IFMA, VAES-256]`), for tests of the rule on CPUs this machine
    /// is not: a token itself can only come from a real detection.
    #[cfg(all(test, target_arch = "x86_64"))]
    pub(crate) fn rule(c: Cpuid) -> [bool; 5] {
        let f = Self::from_cpuid(c);
        [f.aesni.is_some(), f.avx2.is_some(), f.vaes.is_some(), f.avx512ifma.is_some(), f.vaes256.is_some()]
    }

    /// What [`Features::detect`] would give on this CPU without the
    /// `wegman_backend` caps: tests compare the two, so a token missing on a
    /// CPU that has its instructions fails a test, and a token the CPU
    /// cannot back is impossible (it only ever comes from this rule).
    #[cfg(test)]
    pub(crate) fn uncapped() -> Self {
        #[cfg(target_arch = "x86_64")]
        return Self::from_cpuid(Cpuid::read()).checked();
        #[cfg(not(target_arch = "x86_64"))]
        Self::portable()
    }

    /// These features without [`Vaes256`] if the CPU computes 256-bit
    /// `vaesenc` wrongly: one known-answer test per detection (both lanes
    /// against 128-bit `aesenc`). An emulator can report instructions it
    /// gets wrong: qemu 7.2's TCG (Debian 12's `qemu-user`, which CI runs)
    /// computes the upper lane of a 256-bit `vaesenc` wrongly, and a CPU
    /// class test there would otherwise see wrong ciphertexts, as would a
    /// user's program run under it.
    #[cfg(target_arch = "x86_64")]
    fn checked(self) -> Self {
        match self.vaes256 {
            Some(_) if !vaes_check::vaes256_agrees() => Features { vaes256: None, ..self },
            _ => self,
        }
    }

    /// Whether this CPU reports VAES and AVX2 but failed the 256-bit
    /// `vaesenc` known-answer test (an emulator's bug; see the CPU-class
    /// test), so that no [`Vaes256`] token is handed out.
    #[cfg(test)]
    pub(crate) fn vaes256_failed_its_check() -> bool {
        #[cfg(target_arch = "x86_64")]
        return Self::from_cpuid(Cpuid::read()).vaes256.is_some() && Self::uncapped().vaes256.is_none();
        #[cfg(not(target_arch = "x86_64"))]
        false
    }

    /// Whether this build or `WEGMAN_CPU` caps detection below what the CPU
    /// has (`wegman_backend` set): tests that find a backend missing ask this
    /// before blaming the CPU.
    #[cfg(test)]
    pub(crate) fn capped() -> bool {
        cfg!(wegman_backend = "portable") || cfg!(wegman_backend = "avx2") || Self::env_capped()
    }

    #[cfg(not(target_arch = "x86_64"))]
    fn detect_x86() -> Self {
        Self::portable()
    }

    /// Why a test of a leaf needing `token` finds no such token here: the
    /// build's cap, or a CPU without the instructions (named with every flag
    /// it reports). Panics if the CPU has them and the build does not cap
    /// them, since then a token is missing that should not be.
    #[cfg(test)]
    fn explain_missing(token: &str, uncapped_has_it: bool) -> String {
        let why = if Self::capped() {
            "this build caps detection (wegman_backend)".to_string()
        } else {
            assert!(!uncapped_has_it, "the CPU has what {token} needs, yet detect() gave no {token} token");
            if token == "Vaes256" && Self::vaes256_failed_its_check() {
                "the CPU reports VAES and AVX2 but failed the 256-bit vaesenc known-answer test (an emulator's bug)"
                    .to_string()
            } else {
                format!("the CPU lacks what {token} needs")
            }
        };
        #[cfg(target_arch = "x86_64")]
        let seen = Cpuid::read().to_string();
        #[cfg(not(target_arch = "x86_64"))]
        let seen = "not x86-64".to_string();
        format!("no {token} token: {why} (CPU reports: {seen})")
    }

    /// The AES-NI token, if these features include AES-NI and SSSE3.
    pub fn aesni(self) -> Option<AesNi> {
        self.aesni
    }

    /// The VAES token, if these features include 512-bit VAES.
    pub fn vaes512(self) -> Option<Vaes512> {
        self.vaes
    }

    /// The 256-bit VAES token, if these features include VAES and AVX2.
    pub fn vaes256(self) -> Option<Vaes256> {
        self.vaes256
    }

    /// The AVX2 token, if these features include AVX2.
    pub fn avx2(self) -> Option<Avx2> {
        self.avx2
    }

    /// The AVX-512 IFMA token, if these features include it.
    pub fn avx512ifma(self) -> Option<Avx512Ifma> {
        self.avx512ifma
    }

    /// These features and every lower level: portable first, then each
    /// extension level up to these features (for tests that run every
    /// backend this CPU has).
    pub fn every_level(self) -> Vec<Features> {
        let mut levels = vec![Self::portable()];
        let none = Self::portable();
        if self.aesni.is_some() {
            levels.push(Features { aesni: self.aesni, ..none });
        }
        if self.avx2.is_some() {
            levels.push(Features { aesni: self.aesni, avx2: self.avx2, ..none });
        }
        if self.vaes256.is_some() {
            levels.push(Features { aesni: self.aesni, avx2: self.avx2, vaes256: self.vaes256, ..none });
        }
        if levels.last() != Some(&self) {
            levels.push(self);
        }
        levels
    }
}

/// What this CPU reports, one flag per instruction set a backend could
/// use: the input of [`Features`]' rule, and what tests print when they
/// find no backend for a CPU.
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Cpuid {
    pub(crate) aes: bool,
    pub(crate) ssse3: bool,
    pub(crate) pclmulqdq: bool,
    pub(crate) avx2: bool,
    pub(crate) bmi2: bool,
    pub(crate) avx512f: bool,
    pub(crate) avx512vl: bool,
    pub(crate) avx512bw: bool,
    pub(crate) avx512ifma: bool,
    pub(crate) avx512vbmi: bool,
    pub(crate) vaes: bool,
    pub(crate) vpclmulqdq: bool,
}

#[cfg(target_arch = "x86_64")]
impl Cpuid {
    /// The flags, as the standard library detects them (cached by it).
    pub(crate) fn read() -> Self {
        use std::is_x86_feature_detected as has;
        Cpuid {
            aes: has!("aes"),
            ssse3: has!("ssse3"),
            pclmulqdq: has!("pclmulqdq"),
            avx2: has!("avx2"),
            bmi2: has!("bmi2"),
            avx512f: has!("avx512f"),
            avx512vl: has!("avx512vl"),
            avx512bw: has!("avx512bw"),
            avx512ifma: has!("avx512ifma"),
            avx512vbmi: has!("avx512vbmi"),
            vaes: has!("vaes"),
            vpclmulqdq: has!("vpclmulqdq"),
        }
    }

    fn flags(self) -> [(&'static str, bool); 12] {
        [
            ("aes", self.aes),
            ("ssse3", self.ssse3),
            ("pclmulqdq", self.pclmulqdq),
            ("avx2", self.avx2),
            ("bmi2", self.bmi2),
            ("avx512f", self.avx512f),
            ("avx512vl", self.avx512vl),
            ("avx512bw", self.avx512bw),
            ("avx512ifma", self.avx512ifma),
            ("avx512vbmi", self.avx512vbmi),
            ("vaes", self.vaes),
            ("vpclmulqdq", self.vpclmulqdq),
        ]
    }
}

/// The flags the CPU has, space-separated (`none` if it has none of them).
#[cfg(target_arch = "x86_64")]
impl fmt::Display for Cpuid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let have: Vec<&str> = self.flags().iter().filter(|(_, on)| *on).map(|(name, _)| *name).collect();
        f.write_str(if have.is_empty() { "none" } else { "" })?;
        f.write_str(&have.join(" "))
    }
}

/// The token a leaf's unit test needs, `pick`ed from what this CPU and
/// build allow, or `None` after printing why the test is skipped (a capped
/// build, or a CPU without the instructions); panics if the CPU has the
/// instructions and nothing caps them, since then a token is missing that
/// should not be. Every leaf test starts with it:
/// `let Some(token) = token_for_test("Avx2", Features::avx2) else { return };`
#[cfg(test)]
pub(crate) fn token_for_test<T>(name: &str, pick: impl Fn(Features) -> Option<T>) -> Option<T> {
    let token = pick(Features::detect());
    if token.is_none() {
        let uncapped = pick(Features::uncapped()).is_some();
        eprintln!("skipped: {}", Features::explain_missing(name, uncapped));
    }
    token
}

/// The feature levels a unit test runs its backends at: natively every
/// level this CPU has ([`Features::every_level`]); under an emulator
/// (`WEGMAN_EMULATED`, set by `scripts/test-cpu-classes`) only the CPU
/// class's own, since each lower level is another class's own there (the
/// four classes together run every level once) and runs natively here.
#[cfg(test)]
pub(crate) fn levels_for_test() -> Vec<Features> {
    if std::env::var_os("WEGMAN_EMULATED").is_some() {
        vec![Features::detect()]
    } else {
        Features::detect().every_level()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cache_returns_what_was_detected() {
        let first = Features::detect();
        assert_eq!(Features::detect(), first);
        if !cfg!(wegman_backend = "portable") {
            assert_eq!(first, Features::detect_x86());
        }
        if !Features::capped() {
            assert_eq!(first, Features::uncapped());
        }
    }

    #[test]
    fn the_run_time_cap_only_lowers() {
        let all = Features::uncapped();
        for (cap, tier) in [("portable", "portable"), ("aesni", "aesni"), ("avx2", "avx2"), ("avx2-vaes", "avx2-vaes")]
        {
            let f = all.cap(Some(cap));
            assert!(f.aesni().is_none() || all.aesni().is_some());
            assert!(f.avx2().is_none() || all.avx2().is_some());
            assert!(f.vaes256().is_none() || all.vaes256().is_some());
            assert!(f.vaes256().is_none() || cap == "avx2-vaes", "{cap}");
            assert!(f.avx512ifma().is_none() && f.vaes512().is_none(), "{cap}");
            // the tier named, or lower where the CPU lacks it
            let order = ["portable", "aesni", "avx2", "avx2-vaes", "ifma"];
            let rank = |t: &str| order.iter().position(|&o| o == t).unwrap();
            assert!(rank(f.tier()) <= rank(tier), "{cap}: {}", f.tier());
        }
        assert_eq!(all.cap(None), all);
        assert_eq!(all.cap(Some("no-such-tier")), all);
        assert_eq!(all.cap(Some("ifma")), all);
    }

    #[test]
    fn proofs_print_as_their_names() {
        let printed = [
            format!("{:?}", AesNi(())),
            format!("{:?}", Vaes512(())),
            format!("{:?}", Vaes256(())),
            format!("{:?}", Avx2(())),
            format!("{:?}", Avx512Ifma(())),
        ];
        assert_eq!(printed, ["AesNi", "Vaes512", "Vaes256", "Avx2", "Avx512Ifma"]);
    }

    #[test]
    fn the_portable_build_detects_nothing() {
        if cfg!(wegman_backend = "portable") {
            assert_eq!(Features::detect(), Features::portable());
        }
    }

    #[test]
    fn levels_never_claim_more_than_detected() {
        let all = Features::detect();
        let levels = all.every_level();
        assert_eq!(levels[0], Features::portable());
        assert_eq!(*levels.last().unwrap(), all);
        for f in levels {
            assert!(f.aesni().is_none() || all.aesni().is_some());
            assert!(f.avx2().is_none() || all.avx2().is_some());
            assert!(f.avx512ifma().is_none() || all.avx512ifma().is_some());
            assert!(f.vaes512().is_none() || all.vaes512().is_some());
            assert!(f.vaes256().is_none() || all.vaes256().is_some());
        }
    }
}
