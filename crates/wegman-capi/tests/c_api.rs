//! The C side of wegman-capi, driven from `cargo test -p wegman-capi`:
//!
//! * `include/wegman.h` and `include/poly1305aes.h` against the Rust exports:
//!   one table ([`abi`]) gives every function's Rust signature (checked by
//!   rustc) and, mechanically translated, its C signature (checked by the C
//!   and C++ compilers against the headers); the names declared in the
//!   headers, the table and the symbols exported by `libwegman_c.a` and
//!   `libwegman_c.so` must be the same set.
//! * `tests/c/bernstein_api.c`: a program that knows only Bernstein's header
//!   checks the paper's Appendix A examples.
//! * `tests/c/vectors.c`: every vector of `poly1305aes.json`, converted here
//!   to a line-per-vector text file, through every C entry point.
//!
//! The C programs are compiled with `-std=c11 -Wall -Wextra -Werror
//! -pedantic` and linked exactly as the README tells C users to, against
//! `target/release/libwegman_c.a` (see [`libs`]).

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use serde_json::Value;

const C_FLAGS: &[&str] = &["-std=c11", "-Wall", "-Wextra", "-Werror", "-pedantic"];
const CXX_FLAGS: &[&str] = &["-x", "c++", "-std=c++11", "-Wall", "-Wextra", "-Werror", "-pedantic"];
/// What a Rust staticlib needs from the C library on Linux.
const LINK_LIBS: &[&str] = &["-lpthread", "-ldl", "-lm"];
/// Prefixes of the exported C names.
const PREFIXES: &[&str] = &["wegman_", "poly1305aes_"];

fn crate_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn include_dir() -> PathBuf {
    crate_dir().join("include")
}

fn scratch(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name)
}

/// The C library as a C user gets it: `cargo build --release -p wegman-capi`
/// (run once per test process, with the cargo running this test, into the
/// workspace's target directory). Cargo's own report names the artifacts,
/// so a stale file from another profile is never picked up.
struct Libs {
    staticlib: PathBuf,
    cdylib: PathBuf,
}

fn libs() -> &'static Libs {
    static LIBS: OnceLock<Libs> = OnceLock::new();
    LIBS.get_or_init(|| {
        let stdout = run(Command::new(env!("CARGO"))
            .args(["build", "--release", "-p", "wegman-capi", "--message-format=json-render-diagnostics"])
            .arg("--manifest-path")
            .arg(crate_dir().join("Cargo.toml")));
        let files: Vec<PathBuf> = stdout
            .lines()
            .filter_map(|line| serde_json::from_str::<Value>(line).ok())
            .filter(|msg| msg["reason"] == "compiler-artifact" && msg["target"]["name"] == "wegman_c")
            .flat_map(|msg| msg["filenames"].as_array().cloned().unwrap_or_default())
            .filter_map(|f| f.as_str().map(PathBuf::from))
            .collect();
        let find = |ext: &str| {
            let path = files
                .iter()
                .find(|f| f.extension().is_some_and(|e| e == ext))
                .unwrap_or_else(|| panic!("cargo reported no .{ext} for wegman_c: {files:?}"))
                .clone();
            assert!(path.is_file(), "{} is missing", path.display());
            path
        };
        Libs { staticlib: find("a"), cdylib: find("so") }
    })
}

fn tool(var: &str, default: &str) -> String {
    std::env::var(var).unwrap_or_else(|_| default.to_owned())
}

/// Run `cmd`, panicking with its output unless it succeeds; returns stdout.
fn run(cmd: &mut Command) -> String {
    let out = cmd.output().unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}"));
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{cmd:?} failed ({}):\n{stdout}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

/// Compile and link a C program against `libwegman_c.a`; returns the executable.
fn build_c(source: &Path, exe_name: &str) -> PathBuf {
    let exe = scratch(exe_name);
    run(Command::new(tool("CC", "cc"))
        .args(C_FLAGS)
        .arg("-I")
        .arg(include_dir())
        .arg(source)
        .arg(&libs().staticlib)
        .args(LINK_LIBS)
        .arg("-o")
        .arg(&exe));
    exe
}

// ---------------------------------------------------------------------------
// The ABI table.

/// One exported function: its name and its C signature as the header must
/// declare it.
struct CFn {
    name: &'static str,
    ret: &'static str,
    params: Vec<&'static str>,
}

/// The C spelling of a Rust type of the ABI (`stringify!`ed, spaces removed).
fn c_type(rust: &str) -> &'static str {
    match rust {
        "()" => "void",
        "c_int" => "int",
        "c_uint" => "unsigned int",
        "usize" => "size_t",
        "*mutc_uchar" => "unsigned char *",
        "*constc_uchar" => "const unsigned char *",
        "*mutu8" => "uint8_t *",
        "*constu8" => "const uint8_t *",
        "*mutPoly1305AesState" => "wegman_poly1305aes_state *",
        other => panic!("no C spelling for Rust type {other}: extend c_type"),
    }
}

/// Lists functions with their Rust parameter and return types. Each entry is
/// coerced to the function-pointer type it spells out, so rustc rejects the
/// table if it disagrees with the library.
macro_rules! abi {
    ($( $kind:ident fn $name:ident ( $($arg:ty),* ) -> $ret:ty ; )*) => {
        vec![$({
            let _: abi!(@ptr $kind ($($arg),*) -> $ret) = wegman_c::$name;
            let squash = |s: &str| s.replace(' ', "");
            CFn {
                name: stringify!($name),
                ret: c_type(&squash(stringify!($ret))),
                params: vec![$(c_type(&squash(stringify!($arg)))),*],
            }
        }),*]
    };
    (@ptr unsafe ($($arg:ty),*) -> $ret:ty) => { unsafe extern "C" fn($($arg),*) -> $ret };
    (@ptr safe ($($arg:ty),*) -> $ret:ty) => { extern "C" fn($($arg),*) -> $ret };
}

/// Every function the C headers declare.
fn abi() -> Vec<CFn> {
    use core::ffi::{c_int, c_uchar, c_uint};
    use wegman_c::Poly1305AesState;
    abi! {
        unsafe fn poly1305aes_clamp(*mut c_uchar) -> ();
        unsafe fn poly1305aes_authenticate(*mut c_uchar, *const c_uchar, *const c_uchar, *const c_uchar, c_uint) -> ();
        unsafe fn poly1305aes_verify(*const c_uchar, *const c_uchar, *const c_uchar, *const c_uchar, c_uint) -> c_int;
        safe fn wegman_poly1305aes_keybytes() -> usize;
        safe fn wegman_poly1305aes_noncebytes() -> usize;
        safe fn wegman_poly1305aes_bytes() -> usize;
        safe fn wegman_poly1305aes_statebytes() -> usize;
        unsafe fn wegman_poly1305aes_authenticate(*mut u8, *const u8, *const u8, *const u8, usize) -> c_int;
        unsafe fn wegman_poly1305aes_verify(*const u8, *const u8, *const u8, *const u8, usize) -> c_int;
        unsafe fn wegman_poly1305aes_init(*mut Poly1305AesState, *const u8, *const u8) -> c_int;
        unsafe fn wegman_poly1305aes_update(*mut Poly1305AesState, *const u8, usize) -> c_int;
        unsafe fn wegman_poly1305aes_final(*mut Poly1305AesState, *mut u8) -> c_int;
        unsafe fn wegman_poly1305aes_final_verify(*mut Poly1305AesState, *const u8) -> c_int;
        unsafe fn wegman_poly1305(*mut u8, *const u8, *const u8, *const u8, usize) -> c_int;
    }
}

/// A C (and C++) translation unit that assigns every function to a pointer of
/// exactly the table's type (an incompatible declaration is then a
/// diagnostic, an error under -Werror), and checks the state's size and
/// alignment and the `_BYTES` macros against the library.
fn header_check_source(fns: &[CFn]) -> String {
    let mut c = String::from(
        "/* Generated by tests/c_api.rs. */\n\
         #include <stdio.h>\n\
         #include \"wegman.h\"\n\
         #include \"poly1305aes.h\" /* a second inclusion must be harmless */\n\
         #ifdef __cplusplus\n\
         #define CHECK(cond) static_assert(cond, #cond)\n\
         #define ALIGNOF(t) alignof(t)\n\
         extern \"C\" {\n\
         #else\n\
         #define CHECK(cond) _Static_assert(cond, #cond)\n\
         #define ALIGNOF(t) _Alignof(t)\n\
         #endif\n\
         CHECK(sizeof(wegman_poly1305aes_state) == WEGMAN_POLY1305AES_STATEBYTES);\n\
         CHECK(ALIGNOF(wegman_poly1305aes_state) == 64);\n",
    );
    for f in fns {
        let params = if f.params.is_empty() { "void".to_owned() } else { f.params.join(", ") };
        writeln!(c, "{} (*p_{})({}) = {};", f.ret, f.name, params, f.name).unwrap();
    }
    c.push_str(
        "#ifdef __cplusplus\n}\n#endif\n\
         int main(void) {\n\
         \x20   int bad = 0;\n\
         \x20   bad |= wegman_poly1305aes_keybytes() != WEGMAN_POLY1305AES_KEYBYTES;\n\
         \x20   bad |= wegman_poly1305aes_noncebytes() != WEGMAN_POLY1305AES_NONCEBYTES;\n\
         \x20   bad |= wegman_poly1305aes_bytes() != WEGMAN_POLY1305AES_BYTES;\n\
         \x20   bad |= wegman_poly1305aes_statebytes() != WEGMAN_POLY1305AES_STATEBYTES;\n\
         \x20   bad |= wegman_poly1305aes_statebytes() != sizeof(wegman_poly1305aes_state);\n\
         \x20   printf(\"header_check: %s\\n\", bad ? \"MISMATCH\" : \"ok\");\n\
         \x20   return bad;\n\
         }\n",
    );
    c
}

#[test]
fn header_matches_rust_signatures_and_constants() {
    let source = scratch("header_check.c");
    std::fs::write(&source, header_check_source(&abi())).unwrap();
    let exe = build_c(&source, "header_check");
    assert_eq!(run(&mut Command::new(exe)).trim(), "header_check: ok");
    // The header must also be usable from C++ (extern "C", alignas).
    run(Command::new(tool("CXX", "c++"))
        .args(CXX_FLAGS)
        .arg("-I")
        .arg(include_dir())
        .arg("-c")
        .arg(&source)
        .arg("-o")
        .arg(scratch("header_check_cxx.o")));
}

/// The function names declared in a header (identifiers with one of our
/// prefixes followed by `(`, outside comments).
fn declared_names(header: &str) -> BTreeSet<String> {
    let mut code = String::new();
    let mut rest = header;
    while let Some(start) = rest.find("/*") {
        code.push_str(&rest[..start]);
        let end = rest[start..].find("*/").expect("unterminated comment") + start + 2;
        rest = &rest[end..];
    }
    code.push_str(rest);
    let code: String = code.lines().map(|l| l.split("//").next().unwrap()).collect::<Vec<_>>().join("\n");

    let mut names = BTreeSet::new();
    let bytes = code.as_bytes();
    let is_ident = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let mut i = 0;
    while i < bytes.len() {
        if is_ident(bytes[i]) && (i == 0 || !is_ident(bytes[i - 1])) {
            let end = (i..bytes.len()).find(|&j| !is_ident(bytes[j])).unwrap_or(bytes.len());
            let word = &code[i..end];
            let next = code[end..].trim_start();
            if PREFIXES.iter().any(|p| word.starts_with(p)) && next.starts_with('(') {
                names.insert(word.to_owned());
            }
            i = end;
        } else {
            i += 1;
        }
    }
    names
}

/// Global text symbols of a library, as `nm` lists them.
fn exported(nm_args: &[&str], lib: &Path) -> BTreeSet<String> {
    run(Command::new(tool("NM", "nm")).args(nm_args).arg(lib))
        .lines()
        .filter_map(|line| match line.split_whitespace().collect::<Vec<_>>()[..] {
            [_, "T", name] => Some(name.to_owned()),
            _ => None,
        })
        .collect()
}

#[test]
fn headers_declare_exactly_the_exported_functions() {
    let read = |f: &str| std::fs::read_to_string(include_dir().join(f)).unwrap();
    let compat = declared_names(&read("poly1305aes.h"));
    let mut in_headers = declared_names(&read("wegman.h"));
    in_headers.extend(compat.iter().cloned());
    let in_table: BTreeSet<String> = abi().iter().map(|f| f.name.to_owned()).collect();

    let bernstein: BTreeSet<String> =
        ["poly1305aes_clamp", "poly1305aes_authenticate", "poly1305aes_verify"].map(String::from).into();
    assert_eq!(compat, bernstein, "poly1305aes.h declares Bernstein's three functions, no more");
    assert_eq!(in_headers, in_table, "headers vs. the ABI table of this test");

    let in_staticlib: BTreeSet<String> = exported(&["-g", "--defined-only"], &libs().staticlib)
        .into_iter()
        .filter(|s| PREFIXES.iter().any(|p| s.starts_with(p)))
        .collect();
    assert_eq!(in_staticlib, in_headers, "libwegman_c.a exports vs. headers");
    // The shared library exports nothing but the C API.
    let in_cdylib = exported(&["-D", "--defined-only"], &libs().cdylib);
    assert_eq!(in_cdylib, in_headers, "libwegman_c.so exports vs. headers");
}

// ---------------------------------------------------------------------------
// The C programs.

#[test]
fn bernstein_api_program() {
    let exe = build_c(&crate_dir().join("tests/c/bernstein_api.c"), "bernstein_api");
    let out = run(&mut Command::new(exe));
    print!("{out}");
    assert_eq!(out.lines().last(), Some("bernstein_api: 4 passed, 0 failed"));
}

fn shared_dir() -> PathBuf {
    std::env::var_os("WEGMAN_SHARED").map_or_else(|| crate_dir().join("../../../shared"), PathBuf::from)
}

/// How many records of each kind a vector file holds.
#[derive(Debug, Default, PartialEq)]
struct Counts {
    mac: usize,
    core: usize,
    badr: usize,
}

/// Convert poly1305aes.json to the line format `tests/c/vectors.c` reads.
/// Every vector must land in one of the three kinds.
fn write_vector_file(json: &Value, path: &Path) -> Counts {
    let mut text = String::from("# Generated by tests/c_api.rs from poly1305aes.json; see tests/c/vectors.c.\n");
    let mut counts = Counts::default();
    for group in json["groups"].as_array().expect("groups") {
        let gname = group["name"].as_str().expect("group name");
        for (i, v) in group["vectors"].as_array().expect("vectors").iter().enumerate() {
            let id = format!("{gname}/{i}");
            let hexf = |f: &str| -> Option<String> {
                let h = v.get(f)?.as_str().unwrap_or_else(|| panic!("{id}: {f} is not a string"));
                hex::decode(h).unwrap_or_else(|e| panic!("{id}: {f}: {e}"));
                Some(if h.is_empty() { "-".to_owned() } else { h.to_ascii_lowercase() })
            };
            let need = |f: &str| hexf(f).unwrap_or_else(|| panic!("{id}: no {f}"));
            check_m_len(&id, v);
            let line = if v.get("expect").is_some() {
                counts.badr += 1;
                ["badr", &id, &need("k"), &need("r"), &need("n"), &need("m"), &need("r_clamped")].join(" ")
            } else if let Some(s) = hexf("s") {
                counts.core += 1;
                let r = hexf("r").or_else(|| hexf("r_clamped")).unwrap_or_else(|| panic!("{id}: no r"));
                ["core", &id, &r, &s, &need("m"), &need("tag")].join(" ")
            } else {
                counts.mac += 1;
                ["mac", &id, &need("k"), &need("r"), &need("n"), &need("m"), &need("tag")].join(" ")
            };
            text.push_str(&line);
            text.push('\n');
        }
    }
    std::fs::write(path, text).unwrap();
    counts
}

/// `m_len`, when present (a number or a decimal string), must match `m`.
fn check_m_len(id: &str, v: &Value) {
    let m_len = match v.get("m_len") {
        None | Some(Value::Null) => return,
        Some(Value::Number(n)) => n.as_u64().expect("m_len is a length"),
        Some(Value::String(s)) => s.parse().unwrap_or_else(|_| panic!("{id}: m_len {s:?}")),
        Some(other) => panic!("{id}: m_len {other}"),
    };
    let m = v["m"].as_str().unwrap_or_else(|| panic!("{id}: no m"));
    assert_eq!(m.len() as u64, 2 * m_len, "{id}: m_len disagrees with m");
}

#[test]
fn vectors_program() {
    let json_path = shared_dir().join("vectors/poly1305aes.json");
    let json: Value = serde_json::from_str(
        &std::fs::read_to_string(&json_path).unwrap_or_else(|e| panic!("{}: {e}", json_path.display())),
    )
    .expect("poly1305aes.json is JSON");
    let list = scratch("poly1305aes-vectors.txt");
    let counts = write_vector_file(&json, &list);
    assert!(counts.mac > 0 && counts.core > 0 && counts.badr > 0, "{counts:?}");

    let exe = build_c(&crate_dir().join("tests/c/vectors.c"), "vectors");
    let out = run(Command::new(exe).arg(&list));
    print!("{out}");
    let total = counts.mac + counts.core + counts.badr;
    let want =
        format!("vectors: {total} passed, 0 failed ({} mac, {} core, {} badr)", counts.mac, counts.core, counts.badr);
    assert_eq!(out.lines().last(), Some(want.as_str()));
}
