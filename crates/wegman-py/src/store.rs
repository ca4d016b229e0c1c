//! Key files and nonce stores shared with the `wegman` command: `keygen`
//! writes what `wegman keygen` writes, `NonceStore` hands out nonces from
//! the same crash-safe state file (`KEYFILE.nonce`, same format, same lock),
//! and `NonceStore.tag_files` / `check_manifest` produce and check the same
//! manifests as `wegman tag` / `wegman check` — through the code the
//! command uses (the `wegman-store` crate), not a copy of it.

use std::path::PathBuf;

use pyo3::exceptions::{PyOSError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use wegman_store::algs::{AnyKey, CWC_ALGS, MacAlg};
use wegman_store::check::{self, CheckOptions};
use wegman_store::nonce::{DEFAULT_RESERVE, NonceStore as CoreStore, state_path_for_key};
use wegman_store::progress::NoProgress;
use wegman_store::sink::Sink;
use wegman_store::{keyfile, tag};

use crate::buf::Bytes;
use crate::errors::NonceStoreError;

fn store_err(e: impl ToString) -> PyErr {
    NonceStoreError::new_err(e.to_string())
}

/// What `tag` and `check` report, collected for Python.
#[derive(Default)]
struct Collected {
    lines: Vec<String>,
    warnings: Vec<String>,
}

impl Sink for Collected {
    fn line(&mut self, text: &str) -> Result<(), String> {
        self.lines.push(text.to_string());
        Ok(())
    }

    fn warn(&mut self, text: std::fmt::Arguments<'_>) {
        self.warnings.push(text.to_string());
    }
}

/// keygen(path, alg="poly1305aes") -> None
///
/// Create a key file at `path` (mode 0600; an existing file is never
/// overwritten) with a fresh random key for `alg` ("poly1305aes", one of
/// `wegman.mmh.ALGORITHMS`, or "cwc-aes-128"/"-192"/"-256" for the
/// command's `seal`/`open`) and its nonce store `path + ".nonce"`, exactly
/// as `wegman keygen -o path --alg alg` does.
///
/// >>> import os, tempfile, wegman
/// >>> d = tempfile.mkdtemp()
/// >>> wegman.keygen(os.path.join(d, "key"))
/// >>> sorted(os.listdir(d))
/// ['key', 'key.nonce']
#[pyfunction]
#[pyo3(signature = (path, alg = "poly1305aes"))]
fn keygen(py: Python<'_>, path: PathBuf, alg: &str) -> PyResult<()> {
    if CWC_ALGS.iter().any(|(n, _)| *n == alg) {
        // a CWC key with its store, for `wegman seal`/`open`
        return py.detach(|| keyfile::keygen_cwc(&path, alg)).map_err(store_err);
    }
    let alg = MacAlg::from_name(alg)
        .ok_or_else(|| PyValueError::new_err(format!("unknown algorithm name {alg:?} for a key file")))?;
    py.detach(|| keyfile::keygen(&path, alg)).map_err(store_err)
}

/// NonceStore(key_path, reserve=1024)
///
/// The nonce store of a key file made by `keygen` or `wegman keygen`, open
/// and locked (another process, the `wegman` command included, waits for
/// the lock until this one is closed; opening it a second time in this
/// process raises `NonceStoreError`). A process forked from this one (say
/// by `multiprocessing`) that uses an inherited store reserves nonces of
/// its own: it never hands out the parent's, and its `close()` never gives
/// them back. Nonces are reserved on disk
/// `reserve` at a time before they are handed out, so a crash can skip
/// nonces but never repeat one; `close()` (or leaving a `with` block) gives
/// the unused rest back. Never shows the key in `repr`.
///
/// >>> import os, tempfile, wegman
/// >>> key = os.path.join(tempfile.mkdtemp(), "key")
/// >>> wegman.keygen(key)
/// >>> with wegman.NonceStore(key) as store:
/// ...     first, second = store.next_nonce(), store.next_nonce()
/// >>> first != second
/// True
#[pyclass(module = "wegman")]
pub struct NonceStore {
    key_path: PathBuf,
    /// The key and its open store; None once closed. Boxed: Python places
    /// objects 16-byte aligned, and a key's precomputed powers want 64.
    open: Option<Box<(AnyKey, CoreStore)>>,
}

impl NonceStore {
    fn open(&mut self) -> PyResult<&mut (AnyKey, CoreStore)> {
        self.open.as_deref_mut().ok_or_else(|| PyValueError::new_err("the nonce store is closed"))
    }
}

#[pymethods]
impl NonceStore {
    #[new]
    #[pyo3(signature = (key_path, reserve = DEFAULT_RESERVE))]
    fn new(py: Python<'_>, key_path: PathBuf, reserve: u64) -> PyResult<Self> {
        let opened = py.detach(|| -> Result<_, String> {
            let (key, binding) = keyfile::read_managed(&key_path, None)?;
            let state = state_path_for_key(&key_path).map_err(|e| e.to_string())?;
            let store = CoreStore::open(&state, &binding).map_err(|e| e.to_string())?.with_reserve(reserve);
            Ok((key, store))
        });
        Ok(NonceStore { open: Some(Box::new(opened.map_err(store_err)?)), key_path })
    }

    /// next_nonce() -> bytes
    ///
    /// The next unused 16-byte nonce (a little-endian counter), never
    /// handed out before by this store, the `wegman` command or any
    /// process, across crashes included.
    ///
    /// >>> import os, tempfile, wegman
    /// >>> key = os.path.join(tempfile.mkdtemp(), "key")
    /// >>> wegman.keygen(key)
    /// >>> with wegman.NonceStore(key) as s:
    /// ...     s.next_nonce().hex()
    /// '00000000000000000000000000000000'
    fn next_nonce<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let (_, store) = self.open()?;
        let n = py.detach(|| store.next_nonce()).map_err(store_err)?;
        Ok(PyBytes::new(py, &n))
    }

    /// mac(data) -> tuple[bytes, bytes]
    ///
    /// `(nonce, tag)`: the next nonce and the tag of `data` under this key
    /// file's key and algorithm.
    ///
    /// >>> import os, tempfile, wegman
    /// >>> key = os.path.join(tempfile.mkdtemp(), "key")
    /// >>> wegman.keygen(key, "mmh32x2")
    /// >>> with wegman.NonceStore(key) as s:
    /// ...     nonce, tag = s.mac(b"message")
    /// >>> len(tag)
    /// 8
    fn mac<'py>(
        &mut self,
        py: Python<'py>,
        data: &Bound<'py, PyAny>,
    ) -> PyResult<(Bound<'py, PyBytes>, Bound<'py, PyBytes>)> {
        let d = Bytes::new(data, "data")?;
        let m = d.as_slice();
        let (key, store) = self.open()?;
        let (nonce, tag) = py
            .detach(|| -> Result<_, String> {
                let nonce = store.next_nonce().map_err(|e| e.to_string())?;
                let mut mac = key.start(&nonce);
                mac.update(m).map_err(|e| e.to_string())?;
                Ok((nonce, mac.finalize().map_err(|e| e.to_string())?))
            })
            .map_err(PyValueError::new_err)?;
        Ok((PyBytes::new(py, &nonce), PyBytes::new(py, &tag)))
    }

    /// tag_files(paths) -> list[str]
    ///
    /// The manifest `wegman tag -k KEY PATHS...` prints: one line per file
    /// (tag of its name and content, under a nonce from this store), then the
    /// seal line over them. Raises `OSError` (with the command's message) if
    /// a file cannot be read.
    ///
    /// >>> import os, tempfile, wegman
    /// >>> d = tempfile.mkdtemp(); key = os.path.join(d, "key")
    /// >>> wegman.keygen(key)
    /// >>> with open(os.path.join(d, "f"), "w") as f: _ = f.write("hi")
    /// >>> with wegman.NonceStore(key) as s:
    /// ...     lines = s.tag_files([os.path.join(d, "f")])
    /// >>> [line.split(" ")[0] for line in lines]
    /// ['POLY1305-AES/2', 'POLY1305-AES/2']
    fn tag_files(&mut self, py: Python<'_>, paths: Vec<PathBuf>) -> PyResult<Vec<String>> {
        let (key, store) = self.open()?;
        let mut out = Collected::default();
        let status = py.detach(|| tag::tag_files(key, store, &paths, &mut out, |_| NoProgress)).map_err(store_err)?;
        if status != 0 {
            return Err(PyOSError::new_err(out.warnings.join("\n")));
        }
        Ok(out.lines)
    }

    /// tag_file(path) -> list[str]
    ///
    /// `tag_files([path])`: the file's manifest line and the seal line.
    ///
    /// >>> import os, tempfile, wegman
    /// >>> d = tempfile.mkdtemp(); key = os.path.join(d, "key")
    /// >>> wegman.keygen(key)
    /// >>> with wegman.NonceStore(key) as s:
    /// ...     len(s.tag_file(key))
    /// 2
    fn tag_file(&mut self, py: Python<'_>, path: PathBuf) -> PyResult<Vec<String>> {
        self.tag_files(py, vec![path])
    }

    /// close() -> None
    ///
    /// Give back the unused rest of the reserved nonces and release the
    /// lock (closing twice is harmless).
    ///
    /// >>> import os, tempfile, wegman
    /// >>> key = os.path.join(tempfile.mkdtemp(), "key")
    /// >>> wegman.keygen(key)
    /// >>> s = wegman.NonceStore(key)
    /// >>> s.close()
    fn close(&mut self, py: Python<'_>) -> PyResult<()> {
        match self.open.take() {
            Some(open) => {
                let (_, store) = *open;
                py.detach(|| store.close()).map_err(store_err)
            }
            None => Ok(()),
        }
    }

    /// The key file's algorithm ("poly1305aes", "mmh32", …).
    #[getter]
    fn alg(&mut self) -> PyResult<&'static str> {
        Ok(self.open()?.0.alg().name())
    }

    /// The key file's path.
    #[getter]
    fn key_path(&self) -> PathBuf {
        self.key_path.clone()
    }

    fn __enter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    #[pyo3(signature = (*_exc))]
    fn __exit__(&mut self, py: Python<'_>, _exc: &Bound<'_, pyo3::types::PyTuple>) -> PyResult<bool> {
        self.close(py)?;
        Ok(false)
    }

    fn __repr__(&self) -> String {
        let state = if self.open.is_some() { "open" } else { "closed" };
        format!("<wegman.NonceStore {} ({state})>", self.key_path.display())
    }
}

/// The outcome of `check_manifest`: `status` is `wegman check`'s exit
/// status (0 every file and the seal verified, 1 a failure, 2 a malformed
/// manifest), `lines` its output (`name: OK`, `name: FAILED`, …) and
/// `warnings` what it writes to standard error.
///
/// >>> import wegman
/// >>> wegman.ManifestCheck.__name__
/// 'ManifestCheck'
#[pyclass(module = "wegman", frozen, get_all)]
pub struct ManifestCheck {
    /// `wegman check`'s exit status.
    status: u8,
    /// Its output lines.
    lines: Vec<String>,
    /// Its warnings.
    warnings: Vec<String>,
}

#[pymethods]
impl ManifestCheck {
    /// True if every file and the seal verified (status 0).
    #[getter]
    fn ok(&self) -> bool {
        self.status == 0
    }

    fn __bool__(&self) -> bool {
        self.status == 0
    }

    fn __repr__(&self) -> String {
        format!("<wegman.ManifestCheck status={} lines={}>", self.status, self.lines.len())
    }
}

/// check_manifest(key_path, manifest_path, *, ignore_missing=False, allow_unsealed=False) -> ManifestCheck
///
/// Verify a manifest made by `wegman tag` or `NonceStore.tag_files`, as
/// `wegman check -k KEY MANIFEST` does (names in the manifest are relative
/// to the current directory, as for the command).
///
/// >>> import os, tempfile, wegman
/// >>> d = tempfile.mkdtemp(); key = os.path.join(d, "key")
/// >>> wegman.keygen(key)
/// >>> with wegman.NonceStore(key) as s:
/// ...     lines = s.tag_file(key)
/// >>> with open(os.path.join(d, "MANIFEST"), "w") as f: _ = f.write("\n".join(lines) + "\n")
/// >>> result = wegman.check_manifest(key, os.path.join(d, "MANIFEST"))
/// >>> result.ok, result.lines[0].endswith(": OK")
/// (True, True)
#[pyfunction]
#[pyo3(signature = (key_path, manifest_path, *, ignore_missing = false, allow_unsealed = false))]
fn check_manifest(
    py: Python<'_>,
    key_path: PathBuf,
    manifest_path: PathBuf,
    ignore_missing: bool,
    allow_unsealed: bool,
) -> PyResult<ManifestCheck> {
    let mut args = CheckOptions::new(key_path, manifest_path);
    args.ignore_missing = ignore_missing;
    args.allow_unsealed = allow_unsealed;
    let mut out = Collected::default();
    let status = py.detach(|| check::run_to(&args, &mut out)).map_err(store_err)?;
    Ok(ManifestCheck { status, lines: out.lines, warnings: out.warnings })
}

/// Add the key-file functions and classes to the top-level module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(keygen, m)?)?;
    m.add_function(wrap_pyfunction!(check_manifest, m)?)?;
    m.add_class::<NonceStore>()?;
    m.add_class::<ManifestCheck>()?;
    Ok(())
}
