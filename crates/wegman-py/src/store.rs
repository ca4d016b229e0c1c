//! Key files and nonce stores shared with the `wegman` command: `keygen`
//! writes what `wegman keygen` writes, `NonceStore` hands out nonces from
//! the same crash-safe state file (`KEYFILE.nonce`, same format, same lock),
//! and `NonceStore.tag_files` / `check_manifest` produce and check the same
//! manifests as `wegman tag` / `wegman check` — through the code the
//! command uses (the `wegman-store` crate), not a copy of it.

use std::cell::RefCell;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError, RwLock, RwLockWriteGuard};

use pyo3::exceptions::{PyOSError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use wegman::cwc::{CwcKey, NONCE_BYTES};
use wegman_store::algs::{AnyKey, CWC_ALGS, MacAlg};
use wegman_store::check::{self, CheckOptions};
use wegman_store::nonce::{DEFAULT_RESERVE, NonceStore as CoreStore, state_path_for_key};
use wegman_store::progress::NoProgress;
use wegman_store::sealed::{HEADER_BYTES, Header, HeaderError, KeyIdent};
use wegman_store::sink::Sink;
use wegman_store::{cwc, keyfile, tag};

use crate::buf::Bytes;
use crate::errors::NonceStoreError;

fn store_err(e: impl ToString) -> PyErr {
    NonceStoreError::new_err(e.to_string())
}

/// What `tag` and `check` report, collected for Python.
#[derive(Default)]
pub(crate) struct Collected {
    pub(crate) lines: Vec<String>,
    pub(crate) warnings: Vec<String>,
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
/// command's `seal`/`open`) and its nonce store `path + ".nonce"` (with
/// its first generation file, `.nonce.1`), exactly as `wegman keygen -o
/// path --alg alg` does.
///
/// >>> import os, tempfile, wegman
/// >>> d = tempfile.mkdtemp()
/// >>> wegman.keygen(os.path.join(d, "key"))
/// >>> sorted(os.listdir(d))
/// ['key', 'key.nonce', 'key.nonce.1']
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
/// process raises `NonceStoreError`). For a MAC key, `mac` and `tag_files`
/// use its nonces; for a CWC key (`keygen(path, "cwc-aes-128")`), `seal`
/// and `open`. Threads may share one store: their
/// calls take turns (with the GIL released), and a `mac` computes its tag
/// outside the turn. A process forked from this one (say by
/// `multiprocessing`) that uses an inherited store reserves nonces of its
/// own: it never hands out the parent's, and its `close()` never gives them
/// back (the fork is seen through `os.register_at_fork`, and by the process
/// id when `fork` did not go through Python). Nonces are reserved on disk
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
    /// The key and its open store; None once closed. Threads share it
    /// through the mutex (each call waits for the one before it, with the
    /// GIL released); boxed: Python places objects 16-byte aligned, and a
    /// key's precomputed powers want 64.
    open: Mutex<Option<Box<Opened>>>,
}

/// A key file's key: a MAC key (`mac`, `tag_files`) or a CWC key (`seal`,
/// `open`), with its algorithm's name.
enum Keyed {
    Mac(AnyKey),
    /// The key, its algorithm's name and what a sealed header names it by.
    Cwc(Box<CwcKey>, &'static str, KeyIdent),
}

impl Keyed {
    fn name(&self) -> &'static str {
        match self {
            Keyed::Mac(k) => k.alg().name(),
            Keyed::Cwc(_, name, _) => name,
        }
    }

    fn mac(&self) -> Result<&AnyKey, String> {
        match self {
            Keyed::Mac(k) => Ok(k),
            Keyed::Cwc(_, name, _) => Err(format!("this is a {name} key: use seal() and open(), not a MAC")),
        }
    }

    fn cwc(&self) -> Result<(&CwcKey, &KeyIdent), String> {
        match self {
            Keyed::Cwc(k, _, ident) => Ok((k, ident)),
            Keyed::Mac(k) => {
                Err(format!("this is a {} key, a MAC: seal() and open() need a CWC key (cwc-aes-128/192/256)", k.alg()))
            }
        }
    }
}

struct Opened {
    /// Shared with the `mac` calls in flight, which compute outside the
    /// mutex; dropped (and zeroized) by `close` and the last of them.
    key: Arc<Keyed>,
    store: CoreStore,
    /// [`FORKS`] when the store last handed out a nonce in this process.
    forks: u64,
}

/// The fork gate. Every call on a store holds its read side for as long as
/// it holds the store's mutex; `os.register_at_fork(before=...)` takes its
/// write side, so no other thread holds a store's mutex at the moment of a
/// fork (a child never inherits a locked one), and `after_in_child` counts
/// the fork in [`FORKS`].
static GATE: RwLock<()> = RwLock::new(());

/// Forks this process has been through as a child (`after_in_child`): a
/// store whose count differs was inherited, and forgets its parent's
/// reservation before it hands out a nonce — even when the child's PID, by
/// which the core store also tells, is one the parent had (PIDs are reused).
static FORKS: AtomicU64 = AtomicU64::new(0);

thread_local! {
    /// The gate's write side, held by the forking thread across `fork`.
    static HELD: RefCell<Option<RwLockWriteGuard<'static, ()>>> = const { RefCell::new(None) };
}

#[pyfunction]
fn _before_fork() {
    // With the GIL held: a thread inside the gate holds it with the GIL
    // released and leaves without needing the GIL, so this cannot deadlock.
    let guard = GATE.write().unwrap_or_else(PoisonError::into_inner);
    HELD.with(|h| *h.borrow_mut() = Some(guard));
}

#[pyfunction]
fn _after_fork_in_parent() {
    HELD.with(|h| h.borrow_mut().take());
}

#[pyfunction]
fn _after_fork_in_child() {
    FORKS.fetch_add(1, Ordering::SeqCst);
    HELD.with(|h| h.borrow_mut().take());
}

impl NonceStore {
    /// `ValueError` unless the key is of the kind `want` accepts (a MAC
    /// key, a CWC key), before any nonce is taken.
    fn kind<T>(&self, py: Python<'_>, want: fn(&Keyed) -> Result<T, String>) -> PyResult<()> {
        self.with_open(py, |o| want(&o.key).err())?.map_or(Ok(()), |e| Err(PyValueError::new_err(e)))
    }

    /// Run `f` on the open store, in the gate, with the GIL released.
    fn with_open<T: Send>(&self, py: Python<'_>, f: impl FnOnce(&mut Opened) -> T + Send) -> PyResult<T> {
        py.detach(|| {
            let _gate = GATE.read().unwrap_or_else(PoisonError::into_inner);
            let mut open = self.open.lock().unwrap_or_else(PoisonError::into_inner);
            let opened = open.as_deref_mut()?;
            let forks = FORKS.load(Ordering::SeqCst);
            if opened.forks != forks {
                opened.store.forget_reservation();
                opened.forks = forks;
            }
            Some(f(opened))
        })
        .ok_or_else(|| PyValueError::new_err("the nonce store is closed"))
    }
}

/// `seal`'s and `open`'s data and associated data viewed in place, and the
/// tag length checked, before a nonce is taken.
fn aead_args<'a>(
    data: &'a Bound<'_, PyAny>,
    associated_data: Option<&'a Bound<'_, PyAny>>,
    tag_len: usize,
) -> PyResult<(Bytes<'a>, Option<Bytes<'a>>)> {
    crate::cwc::tag_len(tag_len)?;
    let aad = associated_data.map(|a| Bytes::new(a, "associated_data")).transpose()?;
    Ok((Bytes::new(data, "data")?, aad))
}

#[pymethods]
impl NonceStore {
    #[new]
    #[pyo3(signature = (key_path, reserve = DEFAULT_RESERVE))]
    fn new(py: Python<'_>, key_path: PathBuf, reserve: u64) -> PyResult<Self> {
        let opened = py.detach(|| -> Result<_, String> {
            let m = keyfile::read_material(&key_path)?;
            let (key, binding) = match CWC_ALGS.iter().find(|(n, _)| m.alg.as_deref() == Some(*n)) {
                Some((name, _)) => match cwc::key_of(&key_path, &m)? {
                    (key, Some(binding)) => (Keyed::Cwc(Box::new(key), name, KeyIdent::of(&m.bytes)?), binding),
                    (_, None) => unreachable!("a {name} key file has a store"),
                },
                None => {
                    let (key, binding) = keyfile::managed_from(&key_path, &m, None)?;
                    (Keyed::Mac(key), binding)
                }
            };
            let state = state_path_for_key(&key_path).map_err(|e| e.to_string())?;
            let _gate = GATE.read().unwrap_or_else(PoisonError::into_inner);
            let store = CoreStore::open(&state, &binding).map_err(|e| e.to_string())?.with_reserve(reserve);
            Ok(Opened { key: Arc::new(key), store, forks: FORKS.load(Ordering::SeqCst) })
        });
        Ok(NonceStore { open: Mutex::new(Some(Box::new(opened.map_err(store_err)?))), key_path })
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
    fn next_nonce<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let n = self.with_open(py, |o| o.store.next_nonce())?.map_err(store_err)?;
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
        &self,
        py: Python<'py>,
        data: &Bound<'py, PyAny>,
    ) -> PyResult<(Bound<'py, PyBytes>, Bound<'py, PyBytes>)> {
        let d = Bytes::new(data, "data")?;
        let m = d.as_slice();
        // the nonce under the store's mutex, the MAC outside it
        self.kind(py, |k| k.mac().map(|_| ()))?;
        let (key, nonce) = self.with_open(py, |o| (Arc::clone(&o.key), o.store.next_nonce()))?;
        let nonce = nonce.map_err(store_err)?;
        let key = key.mac().map_err(PyValueError::new_err)?;
        let tag = py
            .detach(|| -> Result<_, String> {
                let mut mac = key.start(&nonce);
                mac.update(m).map_err(|e| e.to_string())?;
                mac.finalize().map_err(|e| e.to_string())
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
    fn tag_files(&self, py: Python<'_>, paths: Vec<PathBuf>) -> PyResult<Vec<String>> {
        self.kind(py, |k| k.mac().map(|_| ()))?;
        let mut out = Collected::default();
        let status = self
            .with_open(py, |o| {
                let options = tag::TagOptions { threads: wegman_store::input::all_cores(), keep_state: None };
                tag::tag_files(o.key.mac()?, &mut o.store, &paths, &options, &mut out, |_| NoProgress)
            })?
            .map_err(store_err)?;
        if status != 0 {
            return Err(PyOSError::new_err(out.warnings.join("\n")));
        }
        Ok(out.lines)
    }

    /// reserve(count) -> bytes
    ///
    /// A lease: `count` nonces of this key reserved on disk, durably, for
    /// another process to use with no access to the store (a worker of
    /// `wegman.distributed`). No other lease and no nonce this or any store
    /// hands out overlaps it. Its bytes are public (no secret in them) and
    /// authenticated under the key, so the user can check it is this key's
    /// and unedited. **Use a lease once**: its nonces are reserved once.
    ///
    /// >>> import os, tempfile, wegman
    /// >>> key = os.path.join(tempfile.mkdtemp(), "key")
    /// >>> wegman.keygen(key)
    /// >>> with wegman.NonceStore(key) as s:
    /// ...     lease = s.reserve(100)
    /// >>> lease.splitlines()[0]
    /// b'wegman-nonce-lease v1'
    fn reserve<'py>(&self, py: Python<'py>, count: u64) -> PyResult<Bound<'py, PyBytes>> {
        if count == 0 {
            return Err(PyValueError::new_err("count: a lease holds at least one nonce"));
        }
        self.kind(py, |k| k.mac().map(|_| ()))?;
        let lease = self.with_open(py, |o| o.store.reserve(count))?.map_err(store_err)?;
        Ok(PyBytes::new(py, &lease.to_bytes()))
    }

    /// seal_lines(lines) -> str
    ///
    /// The seal line that ends a manifest of these file lines (each
    /// without its newline, in order), under the next nonce of this store:
    /// the lines plus this one are the manifest `wegman check` accepts.
    /// ValueError for a line that is not a file line of this key's
    /// algorithm.
    ///
    /// >>> import os, tempfile, wegman
    /// >>> d = tempfile.mkdtemp(); key = os.path.join(d, "key")
    /// >>> wegman.keygen(key)
    /// >>> with wegman.NonceStore(key) as s:
    /// ...     lines = s.tag_file(key)
    /// ...     seal = s.seal_lines(lines[:1])
    /// >>> seal.startswith("POLY1305-AES/2 MANIFEST lines=1 ")
    /// True
    fn seal_lines(&self, py: Python<'_>, lines: Vec<String>) -> PyResult<String> {
        self.kind(py, |k| k.mac().map(|_| ()))?;
        self.with_open(py, |o| wegman_store::leased::seal_line(o.key.mac()?, &mut o.store, &lines))?
            .map_err(PyValueError::new_err)
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
    fn tag_file(&self, py: Python<'_>, path: PathBuf) -> PyResult<Vec<String>> {
        self.tag_files(py, vec![path])
    }

    /// seal(data, associated_data=None, tag_len=16, *, headerless=False) -> bytes
    ///
    /// CWC-AES encryption under a key made with `keygen(path, "cwc-aes-128")`
    /// (or -192, -256) with the next nonce from this store, in the sealed
    /// format `wegman seal` writes (docs/sealed-format.md): a 30-byte header
    /// naming the algorithm, the key (by its key id), the tag length and
    /// the nonce, authenticated with the data, then ciphertext || tag.
    /// `open` and `wegman open` read it back. The nonce is durable in the
    /// store before it is used, so it never repeats, across processes and
    /// crashes included. `headerless=True` writes `nonce || ciphertext ||
    /// tag` instead, the format before the header (`wegman open
    /// --headerless`).
    ///
    /// >>> import os, tempfile, wegman
    /// >>> key = os.path.join(tempfile.mkdtemp(), "key")
    /// >>> wegman.keygen(key, "cwc-aes-128")
    /// >>> with wegman.NonceStore(key) as s:
    /// ...     sealed = s.seal(b"payload", b"header")
    /// ...     s.open(sealed, b"header")
    /// b'payload'
    /// >>> len(sealed) == 30 + len(b"payload") + 16
    /// True
    #[pyo3(signature = (data, associated_data = None, tag_len = 16, *, headerless = false))]
    fn seal<'py>(
        &self,
        py: Python<'py>,
        data: &Bound<'py, PyAny>,
        associated_data: Option<&Bound<'py, PyAny>>,
        tag_len: usize,
        headerless: bool,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let (p, aad) = aead_args(data, associated_data, tag_len)?;
        let aad = aad.as_ref().map_or(&[][..], Bytes::as_slice);
        self.kind(py, |k| k.cwc().map(|_| ()))?;
        let key_path = &self.key_path;
        let (key, nonce) = self.with_open(py, |o| (Arc::clone(&o.key), cwc::next_nonce(&mut o.store, key_path)))?;
        let nonce = nonce.map_err(store_err)?;
        let (key, ident) = key.cwc().map_err(PyValueError::new_err)?;
        if headerless {
            return crate::cwc::seal(py, key, &nonce, &nonce, p.as_slice(), aad, tag_len);
        }
        let header = Header::new(*ident, tag_len, nonce).map_err(PyValueError::new_err)?;
        crate::cwc::seal(py, key, &nonce, &header.encode(), p.as_slice(), &header.aad(aad), tag_len)
    }

    /// open(data, associated_data=None, tag_len=None, *, headerless=False) -> bytes
    ///
    /// The plaintext of what `seal` (or `wegman seal`) made with this key.
    /// The header says how to open it: the tag length and the nonce come
    /// from it (a `tag_len` given must agree), and a header of another
    /// algorithm or key (key id), of an unknown version, or cut short, is
    /// a `ValueError` naming what differs. Raises `wegman.InvalidTag`,
    /// releasing nothing, if the tag does not verify — a header edited in
    /// any byte, or a tag cut short, included; each byte of `data` is read
    /// once, so a thread that writes it meanwhile can make the call fail but
    /// never return other plaintext. Data without a header (`nonce ||
    /// ciphertext || tag`, the format before it) is opened only with
    /// `headerless=True` (`tag_len` then defaults to 16). Takes no nonce
    /// from the store.
    ///
    /// >>> import os, tempfile, wegman
    /// >>> key = os.path.join(tempfile.mkdtemp(), "key")
    /// >>> wegman.keygen(key, "cwc-aes-256")
    /// >>> with wegman.NonceStore(key) as s:
    /// ...     sealed = bytearray(s.seal(b"payload"))
    /// ...     sealed[-1] ^= 1
    /// ...     try:
    /// ...         s.open(sealed)
    /// ...     except wegman.InvalidTag:
    /// ...         print("rejected")
    /// rejected
    #[pyo3(signature = (data, associated_data = None, tag_len = None, *, headerless = false))]
    fn open<'py>(
        &self,
        py: Python<'py>,
        data: &Bound<'py, PyAny>,
        associated_data: Option<&Bound<'py, PyAny>>,
        tag_len: Option<usize>,
        headerless: bool,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let (sealed, aad) = aead_args(data, associated_data, tag_len.unwrap_or(16))?;
        let aad = aad.as_ref().map_or(&[][..], Bytes::as_slice);
        let key = self.with_open(py, |o| Arc::clone(&o.key))?;
        let (key, ident) = key.cwc().map_err(PyValueError::new_err)?;
        if headerless {
            // Shorter than a nonce: INVALID, like a ciphertext shorter than its tag.
            let Some((nonce, rest)) = sealed.raw().split_front::<NONCE_BYTES>() else {
                return Err(crate::errors::to_py(wegman::Error::TagMismatch));
            };
            return crate::cwc::open(py, key, &nonce, rest, aad, tag_len.unwrap_or(16));
        }
        // The header is copied out once, and only that copy is used; the
        // rest is read through its address, once.
        let (front, rest) = match sealed.raw().split_front::<HEADER_BYTES>() {
            Some((front, rest)) => (front.to_vec(), Some(rest)),
            None => (sealed.as_slice().to_vec(), None),
        };
        let header = Header::parse(&front).map_err(|e| match e {
            HeaderError::NoMagic => PyValueError::new_err(
                "no sealed-file header: this is not what seal() writes (data sealed before the header, nonce || \
                 ciphertext || tag, opens with headerless=True)",
            ),
            e => PyValueError::new_err(e.to_string()),
        })?;
        header.check_key(ident).map_err(PyValueError::new_err)?;
        if let Some(t) = tag_len.filter(|&t| t != header.tag_len) {
            return Err(PyValueError::new_err(format!(
                "tag_len={t}, but the header says the tag is {} bytes",
                header.tag_len
            )));
        }
        let Some(rest) = rest else {
            return Err(PyValueError::new_err(HeaderError::Truncated.to_string()));
        };
        crate::cwc::open(py, key, &header.nonce, rest, &header.aad(aad), header.tag_len)
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
    fn close(&self, py: Python<'_>) -> PyResult<()> {
        py.detach(|| {
            let _gate = GATE.read().unwrap_or_else(PoisonError::into_inner);
            let taken = self.open.lock().unwrap_or_else(PoisonError::into_inner).take();
            match taken {
                Some(opened) => {
                    let Opened { mut store, forks, .. } = *opened;
                    if forks != FORKS.load(Ordering::SeqCst) {
                        store.forget_reservation(); // inherited: nothing of ours to give back
                    }
                    store.close()
                }
                None => Ok(()),
            }
        })
        .map_err(store_err)
    }

    /// The key file's algorithm ("poly1305aes", "mmh32", …).
    #[getter]
    fn alg(&self, py: Python<'_>) -> PyResult<&'static str> {
        self.with_open(py, |o| o.key.name())
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
    fn __exit__(&self, py: Python<'_>, _exc: &Bound<'_, pyo3::types::PyTuple>) -> PyResult<bool> {
        self.close(py)?;
        Ok(false)
    }

    fn __repr__(&self) -> String {
        let open = self.open.try_lock().map_or(true, |o| o.is_some()); // busy: open
        let state = if open { "open" } else { "closed" };
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

impl ManifestCheck {
    pub(crate) fn new(status: u8, lines: Vec<String>, warnings: Vec<String>) -> Self {
        ManifestCheck { status, lines, warnings }
    }
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
    // private module attributes too, so that a test can play the child
    m.add_function(wrap_pyfunction!(_before_fork, m)?)?;
    m.add_function(wrap_pyfunction!(_after_fork_in_parent, m)?)?;
    m.add_function(wrap_pyfunction!(_after_fork_in_child, m)?)?;
    let hooks = PyDict::new(m.py());
    hooks.set_item("before", m.getattr("_before_fork")?)?;
    hooks.set_item("after_in_parent", m.getattr("_after_fork_in_parent")?)?;
    hooks.set_item("after_in_child", m.getattr("_after_fork_in_child")?)?;
    m.py().import("os")?.call_method("register_at_fork", (), Some(&hooks))?;
    Ok(())
}
