//! The compiled half of `wegman.distributed` (python/wegman/distributed.py):
//! `_WorkerKey`, what a worker tags and verifies with, and `_CheckRun`, the
//! driver's side of a distributed `check`. The nonce discipline lives in
//! the store crate (`leased.rs`) and in `NonceStore.reserve`/`seal_lines`.

use std::io::{self, Read};
use std::path::PathBuf;

use pyo3::exceptions::{PyOSError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use wegman_store::check::{self, CheckOptions, Outcome, Plan, Prepared};
use wegman_store::input;
use wegman_store::leased::WorkerKey;
use wegman_store::manifest::Line;

use crate::buf::Bytes;
use crate::store::{Collected, ManifestCheck};

fn nonce_of(nonce: &[u8]) -> PyResult<[u8; 16]> {
    nonce.try_into().map_err(|_| PyValueError::new_err(format!("nonce: expected 16 bytes, got {}", nonce.len())))
}

/// A Python binary file object (`read(n)` returning bytes) as a `Read`.
struct PyReader<'py>(Bound<'py, PyAny>);

impl Read for PyReader<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let got = self.0.call_method1("read", (buf.len(),)).map_err(io::Error::other)?;
        let got = got.cast_into::<PyBytes>().map_err(|_| io::Error::other("read() did not return bytes"))?;
        let got = got.as_bytes();
        if got.len() > buf.len() {
            return Err(io::Error::other("read(n) returned more than n bytes"));
        }
        buf[..got.len()].copy_from_slice(got);
        Ok(got.len())
    }
}

/// An outcome as a worker returns it: `("OK" | "FAILED" | "UNREADABLE",
/// missing, why)`; `missing` is true when the file does not exist.
type Verdict = (&'static str, bool, String);

fn verdict(o: Outcome) -> Verdict {
    match o {
        Outcome::Ok => ("OK", false, String::new()),
        Outcome::Mismatch => ("FAILED", false, String::new()),
        Outcome::Unreadable(e) => ("UNREADABLE", e.kind() == io::ErrorKind::NotFound, input::describe(&e)),
    }
}

fn outcome((code, missing, why): (String, bool, String)) -> PyResult<Outcome> {
    match code.as_str() {
        "OK" => Ok(Outcome::Ok),
        "FAILED" => Ok(Outcome::Mismatch),
        "UNREADABLE" => Ok(Outcome::Unreadable(io::Error::new(
            if missing { io::ErrorKind::NotFound } else { io::ErrorKind::Other },
            why,
        ))),
        _ => Err(PyValueError::new_err(format!("unknown outcome {code:?}"))),
    }
}

/// _WorkerKey(key_file_bytes): the key a worker of a distributed run tags
/// and verifies with (never shown by `repr`). Private: use
/// `wegman.distributed`.
#[pyclass(module = "wegman._wegman", frozen)]
pub struct _WorkerKey {
    key: WorkerKey,
}

impl _WorkerKey {
    fn line_of(&self, name: String, version: u8, nonce: &[u8], tag: Vec<u8>) -> PyResult<Line> {
        if !(1..=2).contains(&version) {
            return Err(PyValueError::new_err(format!("line version {version}")));
        }
        Ok(Line { alg: self.key.alg(), version, name, nonce: nonce_of(nonce)?, tag })
    }
}

#[pymethods]
impl _WorkerKey {
    #[new]
    fn new(key_file: &Bound<'_, PyAny>) -> PyResult<Self> {
        let bytes = Bytes::new(key_file, "key_file")?;
        Ok(_WorkerKey { key: WorkerKey::from_key_file(bytes.as_slice()).map_err(PyValueError::new_err)? })
    }

    /// The algorithm's name ("poly1305aes", "mmh32", …).
    #[getter]
    fn alg(&self) -> &'static str {
        self.key.alg().name()
    }

    /// lease_nonces(lease) -> list[bytes]: the nonces of a lease from
    /// `NonceStore.reserve`, once it is checked to be this key's and
    /// unedited (ValueError otherwise).
    fn lease_nonces<'py>(&self, py: Python<'py>, lease: &[u8]) -> PyResult<Vec<Bound<'py, PyBytes>>> {
        let nonces = self.key.lease_nonces(lease).map_err(PyValueError::new_err)?;
        Ok(nonces.iter().map(|n| PyBytes::new(py, n)).collect())
    }

    /// tag_path(name, nonce) -> str: the manifest line of the regular file
    /// `name` under `nonce` (OSError if it cannot be read).
    fn tag_path(&self, py: Python<'_>, name: String, nonce: &[u8]) -> PyResult<String> {
        let nonce = nonce_of(nonce)?;
        py.detach(|| self.key.tag_path(&name, &nonce)).map_err(|e| PyOSError::new_err(input::describe(&e)))
    }

    /// tag_file(name, nonce, file) -> str: as `tag_path`, the contents read
    /// from the binary file object `file` (an fsspec file).
    fn tag_file(&self, name: String, nonce: &[u8], file: Bound<'_, PyAny>) -> PyResult<String> {
        let nonce = nonce_of(nonce)?;
        self.key.tag_read(&name, &nonce, PyReader(file)).map_err(|e| PyOSError::new_err(input::describe(&e)))
    }

    /// verify_path(name, version, nonce, tag) -> (code, missing, why): the
    /// verdict `wegman check` reaches on the regular file `name`.
    fn verify_path(&self, py: Python<'_>, name: String, version: u8, nonce: &[u8], tag: Vec<u8>) -> PyResult<Verdict> {
        let line = self.line_of(name, version, nonce, tag)?;
        Ok(py.detach(|| verdict(check::verify_listed(self.key.key(), &line, false))))
    }

    /// verify_file(name, version, nonce, tag, file) -> (code, missing, why):
    /// as `verify_path`, the contents read from `file`.
    fn verify_file(
        &self,
        name: String,
        version: u8,
        nonce: &[u8],
        tag: Vec<u8>,
        file: Bound<'_, PyAny>,
    ) -> PyResult<Verdict> {
        let line = self.line_of(name, version, nonce, tag)?;
        Ok(verdict(check::verify_read(self.key.key(), &line, PyReader(file))))
    }

    fn __repr__(&self) -> String {
        format!("<wegman._WorkerKey {} (key hidden)>", self.key.alg().name())
    }
}

/// _CheckRun(key_path, manifest, ignore_missing, allow_unsealed): a
/// distributed `check` on the driver. The manifest (its bytes) is read and
/// its seal checked at once; `todo` lists the lines the workers are to
/// verify, `(name, version, nonce, tag)` — none unless the seal verified —
/// and `finish(verdicts)` reports as `wegman check` does.
#[pyclass(module = "wegman._wegman")]
pub struct _CheckRun {
    args: CheckOptions,
    out: Collected,
    /// The report so far and the lines to verify, or the status when
    /// there is nothing to verify.
    state: Result<(Plan, Vec<Line>), u8>,
}

#[pymethods]
impl _CheckRun {
    #[new]
    fn new(
        py: Python<'_>,
        key_path: PathBuf,
        manifest: Vec<u8>,
        ignore_missing: bool,
        allow_unsealed: bool,
    ) -> PyResult<Self> {
        let mut args = CheckOptions::new(key_path, PathBuf::from("<manifest>"));
        args.ignore_missing = ignore_missing;
        args.allow_unsealed = allow_unsealed;
        let mut out = Collected::default();
        let state = py
            .detach(|| -> Result<_, String> {
                let key = wegman_store::keyfile::read_any(&args.key, None)?;
                Ok(match check::prepare(&args, &key, Box::new(io::Cursor::new(manifest)), "<manifest>", &mut out)? {
                    Prepared::Done(status) => Err(status),
                    Prepared::Verify(plan, lines) => Ok((plan, lines)),
                })
            })
            .map_err(PyValueError::new_err)?;
        Ok(_CheckRun { args, out, state })
    }

    /// The lines to verify: `(name, version, nonce, tag)`.
    #[getter]
    fn todo<'py>(&self, py: Python<'py>) -> Vec<(String, u8, Bound<'py, PyBytes>, Bound<'py, PyBytes>)> {
        let Ok((_, lines)) = &self.state else { return Vec::new() };
        lines
            .iter()
            .map(|l| (l.name.clone(), l.version, PyBytes::new(py, &l.nonce), PyBytes::new(py, &l.tag)))
            .collect()
    }

    /// finish(verdicts) -> ManifestCheck: one verdict per line of `todo`,
    /// in order.
    fn finish(&mut self, verdicts: Vec<(String, bool, String)>) -> PyResult<ManifestCheck> {
        let state = std::mem::replace(&mut self.state, Err(2));
        let status = match state {
            Err(status) => status,
            Ok((mut plan, lines)) => {
                if verdicts.len() != lines.len() {
                    return Err(PyValueError::new_err(format!(
                        "{} verdicts for {} lines",
                        verdicts.len(),
                        lines.len()
                    )));
                }
                for (line, v) in lines.iter().zip(verdicts) {
                    plan.record(&self.args, &mut self.out, line, outcome(v)?).map_err(PyValueError::new_err)?;
                }
                plan.finish(&self.args, &mut self.out)
            }
        };
        let out = std::mem::take(&mut self.out);
        Ok(ManifestCheck::new(status, out.lines, out.warnings))
    }
}

/// Add the classes to the top-level module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<_WorkerKey>()?;
    m.add_class::<_CheckRun>()?;
    Ok(())
}
