//! `wegman.mmh`: the MMH/NMH Wegman–Carter MACs (Halevi & Krawczyk),
//! byte-exact to the project's spec.

use digest::common::KeyIvInit;
use digest::{FixedOutput, Update};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyTuple};
use wegman::mmh::{self as core, Alg, KEY_BYTES, NONCE_BYTES};

use crate::buf::{Bytes, maybe_detach};
use crate::errors::{exact, to_py};

/// An algorithm by name (`"mmh32"`, …, as in `ALGORITHMS`; any letter case).
fn alg(name: &str) -> PyResult<Alg> {
    name.parse::<Alg>().map_err(|e| {
        let all: Vec<&str> = Alg::ALL.iter().map(|a| a.name()).collect();
        PyValueError::new_err(format!("{e} {name:?}: one of {}", all.join(", ")))
    })
}

/// alg, key (32 bytes) and nonce (16 bytes) of a call, checked.
fn args<'a>(
    name: &str,
    key: &'a Bytes<'_>,
    nonce: &'a Bytes<'_>,
) -> PyResult<(Alg, &'a [u8; KEY_BYTES], &'a [u8; NONCE_BYTES])> {
    Ok((alg(name)?, exact::<KEY_BYTES>("key", key.as_slice())?, exact::<NONCE_BYTES>("nonce", nonce.as_slice())?))
}

/// mac(alg, key, nonce, data) -> bytes
///
/// The tag (4, 8, 12 or 16 bytes, by algorithm) of `data` under the
/// 32-byte key `kp || ks` and a 16-byte nonce that never repeats under this
/// key. To tag many messages under one key, `MacKey` is faster. With
/// `threads` above 1, data of 8 MiB or more is hashed on up to that many
/// threads (the same tag).
///
/// >>> from wegman import mmh
/// >>> len(mmh.mac("mmh32x4", bytes(32), bytes(16), b"attack at dawn"))
/// 16
#[pyfunction]
#[pyo3(signature = (alg, key, nonce, data, *, threads = 1))]
fn mac<'py>(
    py: Python<'py>,
    alg: &str,
    key: &Bound<'py, PyAny>,
    nonce: &Bound<'py, PyAny>,
    data: &Bound<'py, PyAny>,
    threads: usize,
) -> PyResult<Bound<'py, PyBytes>> {
    let threads = crate::poly::threads(threads)?;
    let (k, n) = (Bytes::new(key, "key")?, Bytes::new(nonce, "nonce")?);
    let (alg, k, n) = args(alg, &k, &n)?;
    let d = Bytes::new(data, "data")?;
    let m = d.as_slice();
    let tag = maybe_detach(py, m.len(), || core::mac_parallel(alg, k, n, m, threads)).map_err(to_py)?;
    Ok(PyBytes::new(py, tag.as_bytes()))
}

/// verify(alg, key, tag, nonce, data) -> None
///
/// Check a tag in constant time: `wegman.InvalidTag` if it does not match,
/// `ValueError` if it has the wrong length for `alg`. `threads` as for
/// `mac`.
///
/// >>> from wegman import mmh
/// >>> t = mmh.mac("nmh32", bytes(32), bytes(16), b"m")
/// >>> mmh.verify("nmh32", bytes(32), t, bytes(16), b"m")
#[pyfunction]
#[pyo3(signature = (alg, key, tag, nonce, data, *, threads = 1))]
fn verify(
    py: Python<'_>,
    alg: &str,
    key: &Bound<'_, PyAny>,
    tag: &Bound<'_, PyAny>,
    nonce: &Bound<'_, PyAny>,
    data: &Bound<'_, PyAny>,
    threads: usize,
) -> PyResult<()> {
    let threads = crate::poly::threads(threads)?;
    let (k, n) = (Bytes::new(key, "key")?, Bytes::new(nonce, "nonce")?);
    let (alg, k, n) = args(alg, &k, &n)?;
    let t = Bytes::new(tag, "tag")?;
    let t = t.as_slice();
    let d = Bytes::new(data, "data")?;
    let m = d.as_slice();
    maybe_detach(py, m.len(), || core::verify_parallel(alg, k, t, n, m, threads)).map_err(to_py)
}

/// MacKey(alg, key)
///
/// A key expanded once for `alg` (all 16 tree levels), for many messages.
/// Safe to use from several threads at once; never shown by `repr`; wiped
/// when freed.
///
/// >>> from wegman.mmh import MacKey, mac
/// >>> k = MacKey("mmh64x2", bytes(32))
/// >>> k.mac(bytes(16), b"hi") == mac("mmh64x2", bytes(32), bytes(16), b"hi")
/// True
#[pyclass(module = "wegman.mmh", frozen)]
pub struct MacKey {
    /// Boxed: Python places objects 16-byte aligned, and the backends'
    /// precomputed powers are 64-byte aligned (a debug build caught the
    /// misaligned reference).
    inner: Box<core::MacKey>,
}

#[pymethods]
impl MacKey {
    #[new]
    fn new(alg: &str, key: &Bound<'_, PyAny>) -> PyResult<Self> {
        let k = Bytes::new(key, "key")?;
        Ok(MacKey { inner: Box::new(core::MacKey::new(self::alg(alg)?, exact::<KEY_BYTES>("key", k.as_slice())?)) })
    }

    /// mac(nonce, data, *, threads=1) -> bytes
    ///
    /// The tag of `data` under this key and `nonce` (`threads` as for
    /// `wegman.mmh.mac`).
    ///
    /// >>> from wegman.mmh import MacKey
    /// >>> len(MacKey("mmh32", bytes(32)).mac(bytes(16), b"x"))
    /// 4
    #[pyo3(signature = (nonce, data, *, threads = 1))]
    fn mac<'py>(
        &self,
        py: Python<'py>,
        nonce: &Bound<'py, PyAny>,
        data: &Bound<'py, PyAny>,
        threads: usize,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let threads = crate::poly::threads(threads)?;
        let n = Bytes::new(nonce, "nonce")?;
        let n = exact::<NONCE_BYTES>("nonce", n.as_slice())?;
        let d = Bytes::new(data, "data")?;
        let m = d.as_slice();
        let tag = maybe_detach(py, m.len(), || self.inner.mac_parallel(n, m, threads)).map_err(to_py)?;
        Ok(PyBytes::new(py, tag.as_bytes()))
    }

    /// verify(tag, nonce, data) -> None
    ///
    /// Constant-time check; raises `wegman.InvalidTag` on a mismatch.
    ///
    /// >>> from wegman.mmh import MacKey
    /// >>> k = MacKey("mmh32x2", bytes(32))
    /// >>> k.verify(k.mac(bytes(16), b"m"), bytes(16), b"m")
    #[pyo3(signature = (tag, nonce, data, *, threads = 1))]
    fn verify(
        &self,
        py: Python<'_>,
        tag: &Bound<'_, PyAny>,
        nonce: &Bound<'_, PyAny>,
        data: &Bound<'_, PyAny>,
        threads: usize,
    ) -> PyResult<()> {
        let threads = crate::poly::threads(threads)?;
        let t = Bytes::new(tag, "tag")?;
        let t = t.as_slice();
        let n = Bytes::new(nonce, "nonce")?;
        let n = exact::<NONCE_BYTES>("nonce", n.as_slice())?;
        let d = Bytes::new(data, "data")?;
        let m = d.as_slice();
        maybe_detach(py, m.len(), || self.inner.verify_parallel(t, n, m, threads)).map_err(to_py)
    }

    /// The algorithm's name.
    #[getter]
    fn alg(&self) -> &'static str {
        self.inner.alg().name()
    }

    /// Tag length in bytes.
    #[getter]
    fn digest_size(&self) -> usize {
        self.inner.alg().tag_bytes()
    }

    fn __repr__(&self) -> String {
        format!("<wegman.mmh.MacKey {} (key hidden)>", self.inner.alg().name())
    }
}

/// A running computation of one of the core's `digest::Mac` types (they own
/// their key and expand tree levels as the length requires them).
trait Running: Send + Sync {
    fn absorb(&mut self, data: &[u8]);
    fn tag(&self) -> Vec<u8>;
    fn fork(&self) -> Box<dyn Running>;
}

impl<T: Update + FixedOutput + Clone + Send + Sync + 'static> Running for T {
    fn absorb(&mut self, data: &[u8]) {
        self.update(data);
    }

    fn tag(&self) -> Vec<u8> {
        self.clone().finalize_fixed().to_vec()
    }

    fn fork(&self) -> Box<dyn Running> {
        Box::new(self.clone())
    }
}

fn start(alg: Alg, key: &[u8; KEY_BYTES], nonce: &[u8; NONCE_BYTES]) -> PyResult<Box<dyn Running>> {
    fn boxed<T: KeyIvInit + Running + 'static>(key: &[u8], nonce: &[u8]) -> PyResult<Box<dyn Running>> {
        // The lengths were checked already; an error here would be a bug.
        let m = T::new_from_slices(key, nonce).map_err(|e| PyValueError::new_err(e.to_string()))?;
        Ok(Box::new(m))
    }
    match alg {
        Alg::Mmh32 => boxed::<core::Mmh32Mac>(key, nonce),
        Alg::Mmh32x2 => boxed::<core::Mmh32x2Mac>(key, nonce),
        Alg::Mmh32x3 => boxed::<core::Mmh32x3Mac>(key, nonce),
        Alg::Mmh32x4 => boxed::<core::Mmh32x4Mac>(key, nonce),
        Alg::Nmh32 => boxed::<core::Nmh32Mac>(key, nonce),
        Alg::Mmh64 => boxed::<core::Mmh64Mac>(key, nonce),
        Alg::Mmh64x2 => boxed::<core::Mmh64x2Mac>(key, nonce),
    }
}

/// Mmh(alg, key, nonce, data=None)
///
/// Streaming MMH/NMH in the shape of `hashlib`: `update`, then `digest`,
/// `hexdigest` or `verify` (none ends the computation); `copy` forks it.
/// Not meant to be updated from two threads at once.
///
/// >>> from wegman.mmh import Mmh, mac
/// >>> m = Mmh("mmh32x3", bytes(32), bytes(16))
/// >>> m.update(b"hello, ")
/// >>> m.update(b"world")
/// >>> m.digest() == mac("mmh32x3", bytes(32), bytes(16), b"hello, world")
/// True
#[pyclass(module = "wegman.mmh")]
pub struct Mmh {
    alg: Alg,
    running: Box<dyn Running>,
    /// Bytes absorbed so far: checked against the algorithm's limit before
    /// each update, so the core's "message too long" panic is never reached.
    len: u128,
}

#[pymethods]
impl Mmh {
    #[new]
    #[pyo3(signature = (alg, key, nonce, data = None))]
    fn new(
        py: Python<'_>,
        alg: &str,
        key: &Bound<'_, PyAny>,
        nonce: &Bound<'_, PyAny>,
        data: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let (k, n) = (Bytes::new(key, "key")?, Bytes::new(nonce, "nonce")?);
        let (alg, k, n) = args(alg, &k, &n)?;
        let mut me = Mmh { alg, running: start(alg, k, n)?, len: 0 };
        if let Some(d) = data {
            me.update(py, d)?;
        }
        Ok(me)
    }

    /// update(data) -> None
    ///
    /// Absorb more of the message; any split gives the same tag.
    ///
    /// >>> from wegman.mmh import Mmh
    /// >>> Mmh("mmh64", bytes(32), bytes(16)).update(bytearray(b"abc"))
    fn update(&mut self, py: Python<'_>, data: &Bound<'_, PyAny>) -> PyResult<()> {
        let d = Bytes::new(data, "data")?;
        let m = d.as_slice();
        let len = self.len + m.len() as u128;
        let max = self.alg.max_message_len();
        if len > max {
            let max = u64::try_from(max).unwrap_or(u64::MAX);
            return Err(to_py(wegman::Error::TooLong { what: "message", max }));
        }
        let running = &mut self.running;
        maybe_detach(py, m.len(), || running.absorb(m));
        self.len = len;
        Ok(())
    }

    /// digest() -> bytes
    ///
    /// The tag of the message so far.
    ///
    /// >>> from wegman.mmh import Mmh
    /// >>> len(Mmh("mmh32x2", bytes(32), bytes(16), b"x").digest())
    /// 8
    fn digest<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.running.tag())
    }

    /// hexdigest() -> str
    ///
    /// The tag in lowercase hex.
    ///
    /// >>> from wegman.mmh import Mmh
    /// >>> len(Mmh("nmh32", bytes(32), bytes(16)).hexdigest())
    /// 8
    fn hexdigest(&self) -> String {
        crate::buf::hex(&self.running.tag())
    }

    /// verify(tag) -> None
    ///
    /// Constant-time comparison with the tag of the message so far:
    /// `wegman.InvalidTag` if they differ, `ValueError` for a wrong length.
    ///
    /// >>> from wegman.mmh import Mmh
    /// >>> m = Mmh("mmh32", bytes(32), bytes(16), b"x")
    /// >>> m.verify(m.digest())
    fn verify(&self, tag: &Bound<'_, PyAny>) -> PyResult<()> {
        let t = Bytes::new(tag, "tag")?;
        let t = t.as_slice();
        let want = self.alg.tag_bytes();
        if t.len() != want {
            return Err(to_py(wegman::Error::InvalidLength { what: "tag", expected: want, got: t.len() }));
        }
        if wegman::ct::eq(&self.running.tag(), t) { Ok(()) } else { Err(to_py(wegman::Error::TagMismatch)) }
    }

    /// copy() -> Mmh
    ///
    /// An independent copy of the computation.
    ///
    /// >>> from wegman.mmh import Mmh
    /// >>> a = Mmh("mmh32", bytes(32), bytes(16), b"x")
    /// >>> a.copy().digest() == a.digest()
    /// True
    fn copy(&self) -> Self {
        Mmh { alg: self.alg, running: self.running.fork(), len: self.len }
    }

    /// The algorithm's name.
    #[getter]
    fn alg(&self) -> &'static str {
        self.alg.name()
    }

    /// Tag length in bytes.
    #[getter]
    fn digest_size(&self) -> usize {
        self.alg.tag_bytes()
    }

    fn __repr__(&self) -> String {
        format!("<wegman.mmh.Mmh {} (key hidden)>", self.alg.name())
    }
}

/// The `wegman.mmh` submodule.
pub fn module(py: Python<'_>) -> PyResult<Bound<'_, PyModule>> {
    let m = PyModule::new(py, "mmh")?;
    m.add_function(wrap_pyfunction!(mac, &m)?)?;
    m.add_function(wrap_pyfunction!(verify, &m)?)?;
    m.add_class::<MacKey>()?;
    m.add_class::<Mmh>()?;
    m.add("ALGORITHMS", PyTuple::new(py, Alg::ALL.iter().map(|a| a.name()))?)?;
    m.add("KEY_SIZE", KEY_BYTES)?;
    m.add("NONCE_SIZE", NONCE_BYTES)?;
    Ok(m)
}
