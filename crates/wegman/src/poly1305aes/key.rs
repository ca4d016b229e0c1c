//! Poly1305-AES keys (§2 "Keys"): a 16-byte AES key k followed by a 16-byte r
//! with 22 bits required to be zero.

use core::fmt;

use zeroize::{Zeroize, ZeroizeOnDrop};

use crate::error::{Error, RRule};

/// Length of a Poly1305-AES key `k || r` in bytes.
pub const KEY_BYTES: usize = 32;
/// Length of a nonce in bytes.
pub const NONCE_BYTES: usize = 16;
/// Length of an authenticator in bytes.
pub const TAG_BYTES: usize = 16;

/// Bytes of r whose top four bits must be clear (§2).
const TOP4: [usize; 4] = [3, 7, 11, 15];
/// Bytes of r whose bottom two bits must be clear (§2).
const BOTTOM2: [usize; 3] = [4, 8, 12];

/// Clear the bits of r that §2 requires to be zero, as Bernstein's
/// `poly1305aes_clamp` does. Turns any 16 bytes into a valid r.
pub fn clamp(r: &mut [u8; 16]) {
    for i in TOP4 {
        r[i] &= 0x0f;
    }
    for i in BOTTOM2 {
        r[i] &= 0xfc;
    }
}

/// Check r against §2 without branching on its bytes; on failure report the
/// first offending byte. (The error reveals which rule a rejected key broke,
/// nothing about a valid one.)
pub fn check_r(r: &[u8; 16]) -> Result<(), Error> {
    let mut bad = 0u8;
    for i in TOP4 {
        bad |= r[i] & 0xf0;
    }
    for i in BOTTOM2 {
        bad |= r[i] & 0x03;
    }
    if bad == 0 {
        return Ok(());
    }
    // Only reached for a key we are about to reject.
    for (i, &b) in r.iter().enumerate() {
        if TOP4.contains(&i) && b & 0xf0 != 0 {
            return Err(Error::ForbiddenRBits { byte: i, rule: RRule::TopFourBitsClear });
        }
        if BOTTOM2.contains(&i) && b & 0x03 != 0 {
            return Err(Error::ForbiddenRBits { byte: i, rule: RRule::BottomTwoBitsClear });
        }
    }
    unreachable!("bad != 0 implies an offending byte")
}

/// A Poly1305-AES secret key `(k, r)`, always with a valid r.
///
/// Zeroized on drop; `Debug` never shows key bytes.
#[derive(Clone)]
pub struct Key {
    k: [u8; 16],
    r: [u8; 16],
}

impl Key {
    /// Import `k || r` (32 bytes, the layout of Bernstein's `kr`), rejecting
    /// an r with forbidden bits set.
    ///
    /// An r of 0 is accepted without a warning: it is a valid key by §2's
    /// definition (and Bernstein's API cannot refuse one), but it makes every
    /// tag `AES_k(n)` whatever the message. A uniformly random r is 0 with
    /// probability 2^-106, so meeting one means the key was not generated as
    /// §3 requires; see the [module docs](super).
    ///
    /// ```
    /// use wegman::poly1305aes::Key;
    /// let mut kr = [0u8; 32];
    /// kr[16 + 3] = 0x10; // r[3] may not exceed 15
    /// let err = Key::from_bytes(&kr).unwrap_err();
    /// assert!(err.to_string().contains("r[3]"));
    /// ```
    pub fn from_bytes(kr: &[u8; KEY_BYTES]) -> Result<Self, Error> {
        let key = Self::split(kr);
        check_r(&key.r)?; // a rejected key is wiped as it drops
        Ok(key)
    }

    /// Import from a slice of exactly 32 bytes.
    pub fn from_slice(kr: &[u8]) -> Result<Self, Error> {
        let kr: &[u8; KEY_BYTES] =
            kr.try_into().map_err(|_| Error::InvalidLength { what: "key", expected: KEY_BYTES, got: kr.len() })?;
        Self::from_bytes(kr)
    }

    /// Import `k || r`, clearing r's forbidden bits first (the explicit clamp path).
    pub fn from_bytes_clamped(kr: &[u8; KEY_BYTES]) -> Self {
        let mut key = Self::split(kr);
        clamp(&mut key.r);
        key
    }

    /// `k || r` copied straight into a `Key`, r unchecked: no loose copy of
    /// either half is left in a local (the `Key` wipes itself on drop).
    fn split(kr: &[u8; KEY_BYTES]) -> Self {
        let mut key = Key { k: [0u8; 16], r: [0u8; 16] };
        key.k.copy_from_slice(&kr[..16]);
        key.r.copy_from_slice(&kr[16..]);
        key
    }

    /// Build from the AES key k and r separately; r must be valid.
    ///
    /// `k` and `r` arrive by value, i.e. as copies this function owns: it
    /// wipes them once they are in the `Key`. The caller's originals are the
    /// caller's to wipe.
    pub fn from_parts(mut k: [u8; 16], mut r: [u8; 16]) -> Result<Self, Error> {
        let key = Key { k, r };
        k.zeroize();
        r.zeroize();
        check_r(&key.r)?;
        Ok(key)
    }

    /// The 32-byte `k || r` encoding (for storing the key).
    ///
    /// The array is a copy of the secret key that this crate cannot wipe:
    /// the caller should, e.g. by holding it in `zeroize::Zeroizing`.
    pub fn to_bytes(&self) -> [u8; KEY_BYTES] {
        let mut out = [0u8; KEY_BYTES];
        out[..16].copy_from_slice(&self.k);
        out[16..].copy_from_slice(&self.r);
        out
    }

    pub(crate) fn r(&self) -> &[u8; 16] {
        &self.r
    }

    pub(crate) fn k(&self) -> &[u8; 16] {
        &self.k
    }

    /// AES_k, expanded for the best code `features` allow.
    #[inline(always)]
    pub(crate) fn cipher(&self, features: crate::cpu::Features) -> crate::aes::Key {
        crate::aes::Key::new128(&self.k, features)
    }
}

impl Zeroize for Key {
    /// Each half as a slice: zeroize's bulk fill behind an optimization
    /// barrier (two stores), where an array is wiped one volatile byte at a
    /// time (32 stores, a fifth of a one-shot short tag's instructions).
    fn zeroize(&mut self) {
        self.k[..].zeroize();
        self.r[..].zeroize();
    }
}

impl Drop for Key {
    fn drop(&mut self) {
        self.zeroize();
    }
}

impl ZeroizeOnDrop for Key {}

impl fmt::Debug for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("poly1305aes::Key { .. }")
    }
}

/// AES_k(n): the one-time pad s of §2, little-endian as Poly1305 reads it.
pub(crate) fn aes_pad(cipher: &crate::aes::Key, nonce: &[u8; NONCE_BYTES]) -> [u8; 16] {
    let mut block = *nonce;
    cipher.encrypt(&mut block);
    block
}
