//! The shared test vectors (`../shared/vectors/*.json`), the same files the
//! library's tests, the CLI's self-test and the C tests read.

use std::path::PathBuf;
use std::sync::OnceLock;

use serde_json::Value;

static DIR: OnceLock<PathBuf> = OnceLock::new();

/// Use `dir` (holding `vectors/`) instead of the default.
pub fn set_shared_dir(dir: PathBuf) {
    let _ = DIR.set(dir);
}

/// `--shared DIR`, else `$WEGMAN_SHARED`, else `../shared` beside the repository.
pub fn shared_dir() -> PathBuf {
    DIR.get_or_init(|| {
        std::env::var_os("WEGMAN_SHARED")
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared"))
    })
    .clone()
}

/// One vector file, parsed.
pub fn load(file: &str) -> Result<Value, String> {
    let path = shared_dir().join("vectors").join(file);
    let text = std::fs::read_to_string(&path).map_err(|e| format!("reading {}: {e}", path.display()))?;
    serde_json::from_str(&text).map_err(|e| format!("parsing {}: {e}", path.display()))
}

/// The vectors of group `group` in `file`.
pub fn group(file: &str, group: &str) -> Result<Vec<Value>, String> {
    let v = load(file)?;
    let groups = v["groups"].as_array().ok_or_else(|| format!("{file}: no groups"))?;
    groups
        .iter()
        .find(|g| g["name"] == group)
        .and_then(|g| g["vectors"].as_array().cloned())
        .ok_or_else(|| format!("{file}: no group {group:?}"))
}

/// A hex field as bytes.
pub fn bytes(v: &Value, field: &str) -> Result<Vec<u8>, String> {
    let s = v[field].as_str().ok_or_else(|| format!("vector {}: no field {field}", v["name"]))?;
    hex::decode(s).map_err(|e| format!("vector {}: field {field}: {e}", v["name"]))
}

/// A hex field of exactly N bytes.
pub fn array<const N: usize>(v: &Value, field: &str) -> Result<[u8; N], String> {
    let b = bytes(v, field)?;
    b.as_slice().try_into().map_err(|_| format!("vector {}: field {field} has {} bytes, not {N}", v["name"], b.len()))
}

/// The vector's name.
pub fn name(v: &Value) -> String {
    v["name"].as_str().unwrap_or("?").to_string()
}
