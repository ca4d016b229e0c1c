//! `--backend NAME` for `mac` and `verify`: run Poly1305-AES on a chosen
//! backend instead of the best this CPU has (to compare them, or to use the
//! paper's §4 floating-point method). A backend the CPU lacks is refused;
//! safe code cannot run one (see `wegman::cpu`).

use clap::ValueEnum;
use wegman::cpu::Features;
use wegman::platform::Platform;

/// A Poly1305 backend as named on the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Backend {
    /// The best this CPU has (the default).
    Auto,
    /// Portable 64-bit integer code.
    Portable,
    /// The paper's §4 method in IEEE binary64 (portable; never automatic).
    Float64,
    /// AVX2, radix 2^26.
    Avx2,
    /// AVX-512 IFMA, radix 2^44.
    Ifma,
}

impl Backend {
    /// The name as typed on the command line.
    pub fn name(self) -> String {
        self.to_possible_value().map(|v| v.get_name().to_string()).unwrap_or_default()
    }

    /// The features that make Poly1305 run this backend, or why not here.
    pub fn features(self) -> Result<Features, String> {
        let want = match self {
            Backend::Auto => return Ok(Features::detect()),
            Backend::Portable => return Ok(Features::portable()),
            Backend::Float64 => return Ok(Features::float64()),
            Backend::Avx2 => Platform::Avx2,
            Backend::Ifma => Platform::Avx512Ifma,
        };
        let levels = Features::detect().every_level();
        let key = wegman::poly1305aes::Key::from_bytes_clamped(&[1; 32]);
        let label = |f| wegman::poly1305aes::ExpandedKey::with_features(&key, f).platform();
        levels.iter().copied().find(|&f| label(f) == want).ok_or_else(|| {
            let mut have: Vec<&str> = levels.iter().map(|&f| label(f).name()).collect();
            have.dedup();
            format!(
                "--backend {}: this CPU has no {} backend; it runs {}, float64",
                want.name(),
                want.name(),
                have.join(", ")
            )
        })
    }
}
