//! RustCrypto `aead` 0.6 integration: [`Cwc`] implements `AeadCore` and
//! `AeadInOut` (so `Aead` comes for free) with an 11-byte nonce and a tag
//! size sealed to the legal 1..=16 bytes.

use core::marker::PhantomData;

use aead::array::ArraySize;
use aead::consts::{U1, U2, U3, U4, U5, U6, U7, U8, U9, U10, U11, U12, U13, U14, U15, U16, U24, U32};
use aead::inout::InOutBuf;
use aead::{AeadCore, AeadInOut, Nonce, Tag, TagPosition};
use digest::common::{KeyInit, KeySizeUser};

use super::key::CwcKey;

mod sealed {
    pub trait Sealed {}
}

/// Tag sizes CWC allows: 1 to 16 bytes.
pub trait CwcTagSize: ArraySize + sealed::Sealed {}
/// AES key sizes: 16, 24 or 32 bytes.
pub trait CwcKeySize: ArraySize + sealed::Sealed {}

macro_rules! seal {
    ($tr:ident: $($t:ty),*) => { $(impl sealed::Sealed for $t {} impl $tr for $t {})* };
}
seal!(CwcTagSize: U1, U2, U3, U4, U5, U6, U7, U8, U9, U10, U11, U12, U13, U14, U15, U16);
impl sealed::Sealed for U24 {}
impl sealed::Sealed for U32 {}
impl CwcKeySize for U16 {}
impl CwcKeySize for U24 {}
impl CwcKeySize for U32 {}

/// CWC-AES with key size `K` and tag size `T` as a RustCrypto AEAD.
///
/// ```
/// use aead::{Aead, KeyInit};
/// use wegman::cwc::CwcAes128;
/// let cipher = CwcAes128::new(&[0u8; 16].into());
/// let nonce = [0u8; 11].into();
/// let ct = cipher.encrypt(&nonce, b"plaintext".as_ref()).unwrap();
/// assert_eq!(cipher.decrypt(&nonce, ct.as_ref()).unwrap(), b"plaintext");
/// ```
#[derive(Clone, Debug)]
pub struct Cwc<K: CwcKeySize, T: CwcTagSize = U16> {
    key: CwcKey,
    _sizes: PhantomData<(K, T)>,
}

/// CWC-AES-128 with a 16-byte tag.
pub type CwcAes128 = Cwc<U16>;
/// CWC-AES-192 with a 16-byte tag.
pub type CwcAes192 = Cwc<U24>;
/// CWC-AES-256 with a 16-byte tag.
pub type CwcAes256 = Cwc<U32>;

impl<K: CwcKeySize, T: CwcTagSize> Cwc<K, T> {
    /// The runtime key underneath.
    pub fn key(&self) -> &CwcKey {
        &self.key
    }
}

impl<K: CwcKeySize, T: CwcTagSize> KeySizeUser for Cwc<K, T> {
    type KeySize = K;
}

impl<K: CwcKeySize, T: CwcTagSize> KeyInit for Cwc<K, T> {
    fn new(key: &digest::Key<Self>) -> Self {
        let key = CwcKey::new(key.as_slice()).expect("K is 16, 24 or 32 by the sealed trait");
        Cwc { key, _sizes: PhantomData }
    }
}

impl<K: CwcKeySize, T: CwcTagSize> AeadCore for Cwc<K, T> {
    type NonceSize = U11;
    type TagSize = T;
    const TAG_POSITION: TagPosition = TagPosition::Postfix;
}

impl<K: CwcKeySize, T: CwcTagSize> AeadInOut for Cwc<K, T> {
    fn encrypt_inout_detached(
        &self,
        nonce: &Nonce<Self>,
        associated_data: &[u8],
        buffer: InOutBuf<'_, '_, u8>,
    ) -> aead::Result<Tag<Self>> {
        let nonce: [u8; 11] = (*nonce).into();
        // Every length is checked before any output is written; counter mode
        // goes from the input to the output (no copy first).
        let tag = self.key.seal(&nonce, associated_data, buffer, T::USIZE).map_err(|_| aead::Error)?;
        Ok(Tag::<Self>::try_from(tag.as_slice()).expect("tag length is T"))
    }

    fn decrypt_inout_detached(
        &self,
        nonce: &Nonce<Self>,
        associated_data: &[u8],
        buffer: InOutBuf<'_, '_, u8>,
        tag: &Tag<Self>,
    ) -> aead::Result<()> {
        let nonce: [u8; 11] = (*nonce).into();
        // One pass from the input to the output (the same buffer, or two);
        // on a wrong tag the output is zeroed.
        self.key.raw_decryptor(&nonce, associated_data, tag).and_then(|d| d.inout(buffer)).map_err(|_| aead::Error)
    }
}
