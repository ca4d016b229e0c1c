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
