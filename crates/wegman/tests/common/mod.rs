//! Shared helpers for the integration tests: finding and reading
//! ../shared/vectors (the shared truth across Rust, C, CLI and Python).

#![allow(dead_code)]

use std::path::PathBuf;

use serde_json::Value;

/// `../shared` beside the repository, or `$WEGMAN_SHARED`.
pub fn shared_dir() -> PathBuf {
    if let Ok(d) = std::env::var("WEGMAN_SHARED") {
        return PathBuf::from(d);
    }
    let here = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    here.join("../../../shared")
}

pub fn load(name: &str) -> Value {
    let path = shared_dir().join("vectors").join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
    serde_json::from_str(&text).expect("vector file is JSON")
}

/// Every vector of every group, with its group name.
pub fn vectors(file: &str) -> Vec<(String, Value)> {
    let v = load(file);
    let mut out = Vec::new();
    for g in v["groups"].as_array().expect("groups") {
        let name = g["name"].as_str().unwrap().to_string();
        for t in g["vectors"].as_array().expect("vectors") {
            out.push((name.clone(), t.clone()));
        }
    }
    out
}

pub fn bytes(v: &Value, field: &str) -> Vec<u8> {
    hex::decode(v[field].as_str().unwrap_or_else(|| panic!("field {field}"))).expect("hex")
}

pub fn arr16(v: &Value, field: &str) -> [u8; 16] {
    bytes(v, field).try_into().expect("16 bytes")
}

pub fn has(v: &Value, field: &str) -> bool {
    v.get(field).is_some()
}

/// Whether the tests run under an emulator (`WEGMAN_EMULATED=1`, set by
/// `scripts/test-cpu-classes` for its qemu runs), where the heaviest loops
/// run fewer random cases but never fewer backends or threshold lengths.
pub fn emulated() -> bool {
    std::env::var_os("WEGMAN_EMULATED").is_some_and(|v| v == "1")
}

/// Every length `0..=max`; under emulation every length to `dense`, then
/// each length within one byte of a multiple of 16 (every block boundary,
/// so every threshold, which are all multiples of 16).
pub fn lengths(max: usize, dense: usize) -> Vec<usize> {
    (0..=max).filter(|&n| keep(n, dense, &[16])).collect()
}

/// Whether a test keeps length `n`: always natively; under emulation when
/// `n <= dense` or `n` is within one byte of a multiple of one of `steps`
/// (the block and chunk sizes whose multiples every threshold is).
pub fn keep(n: usize, dense: usize, steps: &[usize]) -> bool {
    !emulated() || n <= dense || steps.iter().any(|&s| matches!(n % s, 0 | 1) || n % s == s - 1)
}

/// `n` random cases, or an eighth of them (at least one) under emulation.
pub fn scaled(n: usize) -> usize {
    if emulated() { n.div_ceil(8) } else { n }
}

/// The levels of `Features::detect().every_level()` that run different code
/// for one family (`family` picks its labels from the backend report): the
/// levels between them run the same leaves, so testing them again adds time
/// (an emulator's, mostly) and no coverage. Under emulation only the CPU
/// class's own level: each lower one is another class's own there (the
/// four classes together run every level once), and runs natively too.
pub fn distinct_levels<T: PartialEq>(family: impl Fn(wegman::platform::Backends) -> T) -> Vec<wegman::cpu::Features> {
    if emulated() {
        return vec![wegman::cpu::Features::detect()];
    }
    let mut seen: Vec<T> = Vec::new();
    let mut out = Vec::new();
    for f in wegman::cpu::Features::detect().every_level() {
        let labels = family(wegman::platform::Backends::for_features(f));
        if !seen.contains(&labels) {
            seen.push(labels);
            out.push(f);
        }
    }
    out
}
