//! `wegman.poly1305aes`: Poly1305-AES (Bernstein, FSE 2005), one-shot,
//! streaming, with an expanded key, and in batches.

use std::num::NonZeroUsize;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList, PyTuple};
use wegman::poly1305aes::{self as core, ExpandedKey as CoreExpanded, Item, Key, NONCE_BYTES, TAG_BYTES};

use crate::buf::{Bytes, maybe_detach};
use crate::errors::{exact, to_py};

/// The key `k || r` (32 bytes), checked: a wrong length or an r with
/// forbidden bits set is a `ValueError` naming it.
pub(crate) fn key(obj: &Bound<'_, PyAny>) -> PyResult<Key> {
    Key::from_slice(Bytes::new(obj, "key")?.as_slice()).map_err(to_py)
}

/// The `threads` argument: at least 1 (1, the default, starts no thread).
pub(crate) fn threads(n: usize) -> PyResult<NonZeroUsize> {
    NonZeroUsize::new(n).ok_or_else(|| PyValueError::new_err("threads must be at least 1"))
}

/// A view of a 16-byte argument (nonce or tag).
pub(crate) fn block<'a>(what: &'static str, b: &'a Bytes<'_>) -> PyResult<&'a [u8; 16]> {
    exact::<16>(what, b.as_slice())
}

/// A 16-byte nonce and a message, viewed in place.
struct Msg<'a> {
    nonce: Bytes<'a>,
    data: Bytes<'a>,
}

impl<'a> Msg<'a> {
    fn new(nonce: &'a Bound<'_, PyAny>, data: &'a Bound<'_, PyAny>) -> PyResult<Self> {
        let msg = Msg { nonce: Bytes::new(nonce, "nonce")?, data: Bytes::new(data, "data")? };
        block("nonce", &msg.nonce)?;
        Ok(msg)
    }

    fn nonce(&self) -> &[u8; NONCE_BYTES] {
        // checked in `new`
        block("nonce", &self.nonce).unwrap_or(&[0; NONCE_BYTES])
    }

    fn data(&self) -> &[u8] {
        self.data.as_slice()
    }
}

/// authenticate(key, nonce, data) -> bytes
///
/// The 16-byte Poly1305-AES tag of `data` under the 32-byte key `k || r`
/// and a 16-byte nonce that must never repeat under this key. Every
/// argument may be any bytes-like object; data of 2 KiB or more is hashed
/// with the GIL released. With `threads` above 1, data of 8 MiB or more is
/// hashed on up to that many threads (one per 4 MiB at most; e.g.
/// `threads=os.cpu_count()`), with the same tag.
///
/// >>> from wegman import poly1305aes
/// >>> poly1305aes.authenticate(bytes(32), bytes(16), b"").hex()
/// '66e94bd4ef8a2c3b884cfa59ca342b2e'
/// >>> big = bytes(9 << 20)
/// >>> poly1305aes.authenticate(bytes(32), bytes(16), big, threads=2) == poly1305aes.authenticate(bytes(32), bytes(16), big)
/// True
#[pyfunction]
#[pyo3(signature = (key, nonce, data, *, threads = 1))]
fn authenticate<'py>(
    py: Python<'py>,
    key: &Bound<'py, PyAny>,
    nonce: &Bound<'py, PyAny>,
    data: &Bound<'py, PyAny>,
    threads: usize,
) -> PyResult<Bound<'py, PyBytes>> {
    let threads = self::threads(threads)?;
    let key = self::key(key)?;
    let msg = Msg::new(nonce, data)?;
    let (n, m) = (msg.nonce(), msg.data());
    let tag = maybe_detach(py, m.len(), || core::authenticate_parallel(&key, n, m, threads));
    Ok(PyBytes::new(py, &tag))
}

/// verify(key, tag, nonce, data) -> None
///
/// Check a 16-byte tag in constant time; raises `wegman.InvalidTag` if it
/// does not match (and `ValueError` for arguments of the wrong length).
/// `threads` as for `authenticate`.
///
/// >>> from wegman import poly1305aes
/// >>> tag = poly1305aes.authenticate(bytes(32), bytes(16), b"hi")
/// >>> poly1305aes.verify(bytes(32), tag, bytes(16), b"hi")
#[pyfunction]
#[pyo3(signature = (key, tag, nonce, data, *, threads = 1))]
fn verify(
    py: Python<'_>,
    key: &Bound<'_, PyAny>,
    tag: &Bound<'_, PyAny>,
    nonce: &Bound<'_, PyAny>,
    data: &Bound<'_, PyAny>,
    threads: usize,
) -> PyResult<()> {
    let threads = self::threads(threads)?;
    let key = self::key(key)?;
    let t = Bytes::new(tag, "tag")?;
    let t = block("tag", &t)?;
    let msg = Msg::new(nonce, data)?;
    let (n, m) = (msg.nonce(), msg.data());
    maybe_detach(py, m.len(), || core::verify_parallel(&key, t, n, m, threads)).map_err(to_py)
}

/// clamp(key) -> bytes
///
/// `k || r` with r's 22 forbidden bits cleared (§2 of the paper; what
/// Bernstein's `poly1305aes_clamp` does): turns 32 random bytes into a
/// valid key. wegman never clamps unless asked: a key with a bad r is
/// otherwise a `ValueError`.
///
/// >>> from wegman import poly1305aes
/// >>> poly1305aes.clamp(b"\xff" * 32)[16:].hex()
/// 'ffffff0ffcffff0ffcffff0ffcffff0f'
#[pyfunction]
fn clamp<'py>(py: Python<'py>, key: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyBytes>> {
    let k = Bytes::new(key, "key")?;
    let kr = exact::<{ core::KEY_BYTES }>("key", k.as_slice())?;
    PyBytes::new_with(py, kr.len(), |out| {
        out.copy_from_slice(kr);
        if let Ok(r) = <&mut [u8; 16]>::try_from(&mut out[16..]) {
            core::clamp(r);
        }
        Ok(())
    })
}

/// Poly1305AES(key, nonce, data=None)
///
/// Streaming Poly1305-AES in the shape of `hashlib`/`hmac`: `update` any
/// number of times, then `digest`/`hexdigest` (which do not end the
/// computation) or `verify`. `copy` forks the state. The key is never
/// shown by `repr` and is wiped when the object is freed.
///
/// An object is not meant to be shared between threads while it is being
/// updated (a concurrent call raises `RuntimeError: Already borrowed`).
///
/// >>> from wegman.poly1305aes import Poly1305AES, authenticate
/// >>> m = Poly1305AES(bytes(32), bytes(16))
/// >>> m.update(b"hello, ")
/// >>> m.update(b"world")
/// >>> m.digest() == authenticate(bytes(32), bytes(16), b"hello, world")
/// True
#[pyclass(module = "wegman.poly1305aes", name = "Poly1305AES")]
#[derive(Clone)]
pub struct Poly1305AES {
    /// Boxed: Python places objects 16-byte aligned, and the backends'
    /// precomputed powers are 64-byte aligned (a debug build caught the
    /// misaligned reference).
    inner: Box<core::Poly1305Aes>,
}

impl Poly1305AES {
    fn tag(&self) -> [u8; TAG_BYTES] {
        self.inner.clone().finalize()
    }
}

#[pymethods]
impl Poly1305AES {
    #[new]
    #[pyo3(signature = (key, nonce, data = None))]
    fn new(
        py: Python<'_>,
        key: &Bound<'_, PyAny>,
        nonce: &Bound<'_, PyAny>,
        data: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let key = self::key(key)?;
        let n = Bytes::new(nonce, "nonce")?;
        let mut me = Poly1305AES { inner: Box::new(core::Poly1305Aes::new(&key, block("nonce", &n)?)) };
        if let Some(d) = data {
            me.update(py, d)?;
        }
        Ok(me)
    }

    /// update(data) -> None
    ///
    /// Absorb more of the message (any bytes-like object); any split of the
    /// message gives the same tag.
    ///
    /// >>> from wegman.poly1305aes import Poly1305AES
    /// >>> m = Poly1305AES(bytes(32), bytes(16))
    /// >>> m.update(memoryview(b"abc")[1:])
    fn update(&mut self, py: Python<'_>, data: &Bound<'_, PyAny>) -> PyResult<()> {
        let d = Bytes::new(data, "data")?;
        let m = d.as_slice();
        let inner = &mut self.inner;
        maybe_detach(py, m.len(), || inner.update(m));
        Ok(())
    }

    /// digest() -> bytes
    ///
    /// The 16-byte tag of the message so far (the object can go on).
    ///
    /// >>> from wegman.poly1305aes import Poly1305AES
    /// >>> len(Poly1305AES(bytes(32), bytes(16), b"x").digest())
    /// 16
    fn digest<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.tag())
    }

    /// hexdigest() -> str
    ///
    /// The tag in lowercase hex.
    ///
    /// >>> from wegman.poly1305aes import Poly1305AES
    /// >>> Poly1305AES(bytes(32), bytes(16)).hexdigest()
    /// '66e94bd4ef8a2c3b884cfa59ca342b2e'
    fn hexdigest(&self) -> String {
        crate::buf::hex(&self.tag())
    }

    /// verify(tag) -> None
    ///
    /// Compare the tag of the message so far with `tag` in constant time;
    /// raises `wegman.InvalidTag` if they differ.
    ///
    /// >>> from wegman.poly1305aes import Poly1305AES
    /// >>> Poly1305AES(bytes(32), bytes(16)).verify(bytes.fromhex("66e94bd4ef8a2c3b884cfa59ca342b2e"))
    fn verify(&self, tag: &Bound<'_, PyAny>) -> PyResult<()> {
        let t = Bytes::new(tag, "tag")?;
        self.inner.clone().verify(block("tag", &t)?).map_err(to_py)
    }

    /// copy() -> Poly1305AES
    ///
    /// An independent copy of the computation (for messages sharing a prefix
    /// — under one nonce only one of them may ever be sent).
    ///
    /// >>> from wegman.poly1305aes import Poly1305AES
    /// >>> a = Poly1305AES(bytes(32), bytes(16), b"x")
    /// >>> a.copy().digest() == a.digest()
    /// True
    fn copy(&self) -> Self {
        self.clone()
    }

    /// Tag length in bytes (16).
    #[getter]
    fn digest_size(&self) -> usize {
        TAG_BYTES
    }

    /// Block length in bytes (16).
    #[getter]
    fn block_size(&self) -> usize {
        16
    }

    /// The algorithm's name, `"poly1305-aes"`.
    #[getter]
    fn name(&self) -> &'static str {
        "poly1305-aes"
    }

    fn __repr__(&self) -> &'static str {
        "<wegman.poly1305aes.Poly1305AES (key hidden)>"
    }
}

/// ExpandedKey(key)
///
/// A key prepared once (AES round keys, powers of r) for many messages:
/// faster than `authenticate` when one key tags many messages. Safe to use
/// from several threads at once. Never shown by `repr`; wiped when freed.
///
/// >>> from wegman.poly1305aes import ExpandedKey, authenticate
/// >>> ek = ExpandedKey(bytes(32))
/// >>> ek.authenticate(bytes(16), b"hi") == authenticate(bytes(32), bytes(16), b"hi")
/// True
#[pyclass(module = "wegman.poly1305aes", frozen)]
pub struct ExpandedKey {
    /// Boxed: Python places objects 16-byte aligned, and the backends'
    /// precomputed powers are 64-byte aligned (a debug build caught the
    /// misaligned reference).
    inner: Box<CoreExpanded>,
}

#[pymethods]
impl ExpandedKey {
    #[new]
    fn new(key: &Bound<'_, PyAny>) -> PyResult<Self> {
        Ok(ExpandedKey { inner: Box::new(CoreExpanded::new(&self::key(key)?)) })
    }

    /// authenticate(nonce, data, *, threads=1) -> bytes
    ///
    /// The 16-byte tag of `data` under this key and `nonce` (`threads` as
    /// for `wegman.poly1305aes.authenticate`).
    ///
    /// >>> from wegman.poly1305aes import ExpandedKey
    /// >>> ExpandedKey(bytes(32)).authenticate(bytes(16), b"").hex()
    /// '66e94bd4ef8a2c3b884cfa59ca342b2e'
    #[pyo3(signature = (nonce, data, *, threads = 1))]
    fn authenticate<'py>(
        &self,
        py: Python<'py>,
        nonce: &Bound<'py, PyAny>,
        data: &Bound<'py, PyAny>,
        threads: usize,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let threads = self::threads(threads)?;
        let msg = Msg::new(nonce, data)?;
        let (n, m) = (msg.nonce(), msg.data());
        let tag = maybe_detach(py, m.len(), || self.inner.authenticate_parallel(n, m, threads));
        Ok(PyBytes::new(py, &tag))
    }

    /// verify(tag, nonce, data) -> None
    ///
    /// Constant-time check; raises `wegman.InvalidTag` on a mismatch.
    ///
    /// >>> from wegman.poly1305aes import ExpandedKey
    /// >>> ek = ExpandedKey(bytes(32))
    /// >>> ek.verify(ek.authenticate(bytes(16), b"m"), bytes(16), b"m")
    #[pyo3(signature = (tag, nonce, data, *, threads = 1))]
    fn verify(
        &self,
        py: Python<'_>,
        tag: &Bound<'_, PyAny>,
        nonce: &Bound<'_, PyAny>,
        data: &Bound<'_, PyAny>,
        threads: usize,
    ) -> PyResult<()> {
        let threads = self::threads(threads)?;
        let t = Bytes::new(tag, "tag")?;
        let t = block("tag", &t)?;
        let msg = Msg::new(nonce, data)?;
        let (n, m) = (msg.nonce(), msg.data());
        maybe_detach(py, m.len(), || self.inner.verify_parallel(t, n, m, threads)).map_err(to_py)
    }

    /// start(nonce) -> Poly1305AES
    ///
    /// A streaming computation under this key and `nonce`.
    ///
    /// >>> from wegman.poly1305aes import ExpandedKey
    /// >>> ek = ExpandedKey(bytes(32))
    /// >>> ek.start(bytes(16)).hexdigest()
    /// '66e94bd4ef8a2c3b884cfa59ca342b2e'
    fn start(&self, nonce: &Bound<'_, PyAny>) -> PyResult<Poly1305AES> {
        let n = Bytes::new(nonce, "nonce")?;
        Ok(Poly1305AES { inner: Box::new(self.inner.start(block("nonce", &n)?)) })
    }

    fn __repr__(&self) -> &'static str {
        "<wegman.poly1305aes.ExpandedKey (key hidden)>"
    }
}

/// authenticate_many(items) -> list[bytes]
///
/// The tags of many `(key, nonce, data)` triples in one call, through the
/// core's batch path (eight AES pads and polynomials at a time where the
/// CPU allows): the fastest way to tag many short messages under many keys.
/// The GIL is released when the messages total 2 KiB or more.
///
/// >>> from wegman import poly1305aes
/// >>> from wegman.poly1305aes import authenticate_many, authenticate
/// >>> items = [(poly1305aes.clamp(bytes([i]) * 32), bytes(16), b"ping") for i in range(10)]
/// >>> authenticate_many(items)[3] == authenticate(*items[3])
/// True
#[pyfunction]
fn authenticate_many<'py>(py: Python<'py>, items: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyList>> {
    let mut triples = Vec::new();
    for item in items.try_iter()? {
        let item = item?;
        let t = item.cast_into::<PyTuple>().map_err(|e| {
            pyo3::exceptions::PyTypeError::new_err(format!("items must be (key, nonce, data) tuples: {e}"))
        })?;
        if t.len() != 3 {
            return Err(pyo3::exceptions::PyTypeError::new_err(format!(
                "items must be (key, nonce, data) tuples, got a tuple of {}",
                t.len()
            )));
        }
        triples.push((t.get_item(0)?, t.get_item(1)?, t.get_item(2)?));
    }
    let mut keys = Vec::with_capacity(triples.len());
    let mut views = Vec::with_capacity(triples.len());
    for (k, n, d) in &triples {
        keys.push(key(k)?);
        let n = Bytes::new(n, "nonce")?;
        exact::<NONCE_BYTES>("nonce", n.as_slice())?;
        views.push((n, Bytes::new(d, "data")?));
    }
    let mut batch = Vec::with_capacity(keys.len());
    for (key, (n, d)) in keys.iter().zip(&views) {
        batch.push(Item { key, nonce: exact::<NONCE_BYTES>("nonce", n.as_slice())?, message: d.as_slice() });
    }
    let total = batch.iter().map(|i| i.message.len()).sum();
    let mut tags = vec![[0u8; TAG_BYTES]; batch.len()];
    maybe_detach(py, total, || core::authenticate_many(&batch, &mut tags)).map_err(to_py)?;
    PyList::new(py, tags.iter().map(|t| PyBytes::new(py, t)))
}

/// The `wegman.poly1305aes` submodule.
pub fn module(py: Python<'_>) -> PyResult<Bound<'_, PyModule>> {
    let m = PyModule::new(py, "poly1305aes")?;
    m.add_function(wrap_pyfunction!(authenticate, &m)?)?;
    m.add_function(wrap_pyfunction!(verify, &m)?)?;
    m.add_function(wrap_pyfunction!(clamp, &m)?)?;
    m.add_function(wrap_pyfunction!(authenticate_many, &m)?)?;
    m.add_class::<Poly1305AES>()?;
    m.add_class::<ExpandedKey>()?;
    m.add("KEY_SIZE", core::KEY_BYTES)?;
    m.add("NONCE_SIZE", NONCE_BYTES)?;
    m.add("TAG_SIZE", TAG_BYTES)?;
    Ok(m)
}
