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
//! * `tests/c/mmh_vectors.c`: every vector of group "mac" of `mmh.json`
//!   through `wegman_<alg>` and `wegman_<alg>_verify`.
//! * `tests/c/cwc_vectors.c`: every vector of `cwc.json` through the four
//!   CWC-AES functions, in place and out of place, forgeries included.
//!
//! The C programs are compiled with `-std=c11 -Wall -Wextra -Werror
//! -pedantic` and linked exactly as the README tells C users to, against
//! `target/release/libwegman_c.a` (see [`libs`]).

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

mod common;
use common::{LINK_LIBS, crate_dir, include_dir, libs, run, scratch, tool};

const C_FLAGS: &[&str] = &["-std=c11", "-Wall", "-Wextra", "-Werror", "-pedantic"];
const CXX_FLAGS: &[&str] = &["-x", "c++", "-std=c++11", "-Wall", "-Wextra", "-Werror", "-pedantic"];
/// Prefixes of the exported C names.
const PREFIXES: &[&str] = &["wegman_", "poly1305aes_"];

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
        "*mutusize" => "size_t *",
        "u64" => "uint64_t",
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
        unsafe fn wegman_poly1305aes_authenticate_parallel(*mut u8, *const u8, *const u8, *const u8, usize, usize) -> c_int;
        unsafe fn wegman_poly1305aes_verify_parallel(*const u8, *const u8, *const u8, *const u8, usize, usize) -> c_int;
        unsafe fn wegman_poly1305aes_init(*mut Poly1305AesState, *const u8, *const u8) -> c_int;
        unsafe fn wegman_poly1305aes_update(*mut Poly1305AesState, *const u8, usize) -> c_int;
        unsafe fn wegman_poly1305aes_final(*mut Poly1305AesState, *mut u8) -> c_int;
        unsafe fn wegman_poly1305aes_final_verify(*mut Poly1305AesState, *const u8) -> c_int;
        unsafe fn wegman_poly1305(*mut u8, *const u8, *const u8, *const u8, usize) -> c_int;

        safe fn wegman_mmh32_bytes() -> usize;
        safe fn wegman_mmh32_keybytes() -> usize;
        safe fn wegman_mmh32_noncebytes() -> usize;
        unsafe fn wegman_mmh32(*mut u8, *const u8, *const u8, *const u8, usize) -> c_int;
        unsafe fn wegman_mmh32_verify(*const u8, *const u8, *const u8, *const u8, usize) -> c_int;
        unsafe fn wegman_mmh32_parallel(*mut u8, *const u8, *const u8, *const u8, usize, usize) -> c_int;
        unsafe fn wegman_mmh32_verify_parallel(*const u8, *const u8, *const u8, *const u8, usize, usize) -> c_int;
        safe fn wegman_mmh32x2_bytes() -> usize;
        safe fn wegman_mmh32x2_keybytes() -> usize;
        safe fn wegman_mmh32x2_noncebytes() -> usize;
        unsafe fn wegman_mmh32x2(*mut u8, *const u8, *const u8, *const u8, usize) -> c_int;
        unsafe fn wegman_mmh32x2_verify(*const u8, *const u8, *const u8, *const u8, usize) -> c_int;
        unsafe fn wegman_mmh32x2_parallel(*mut u8, *const u8, *const u8, *const u8, usize, usize) -> c_int;
        unsafe fn wegman_mmh32x2_verify_parallel(*const u8, *const u8, *const u8, *const u8, usize, usize) -> c_int;
        safe fn wegman_mmh32x3_bytes() -> usize;
        safe fn wegman_mmh32x3_keybytes() -> usize;
        safe fn wegman_mmh32x3_noncebytes() -> usize;
        unsafe fn wegman_mmh32x3(*mut u8, *const u8, *const u8, *const u8, usize) -> c_int;
        unsafe fn wegman_mmh32x3_verify(*const u8, *const u8, *const u8, *const u8, usize) -> c_int;
        unsafe fn wegman_mmh32x3_parallel(*mut u8, *const u8, *const u8, *const u8, usize, usize) -> c_int;
        unsafe fn wegman_mmh32x3_verify_parallel(*const u8, *const u8, *const u8, *const u8, usize, usize) -> c_int;
        safe fn wegman_mmh32x4_bytes() -> usize;
        safe fn wegman_mmh32x4_keybytes() -> usize;
        safe fn wegman_mmh32x4_noncebytes() -> usize;
        unsafe fn wegman_mmh32x4(*mut u8, *const u8, *const u8, *const u8, usize) -> c_int;
        unsafe fn wegman_mmh32x4_verify(*const u8, *const u8, *const u8, *const u8, usize) -> c_int;
        unsafe fn wegman_mmh32x4_parallel(*mut u8, *const u8, *const u8, *const u8, usize, usize) -> c_int;
        unsafe fn wegman_mmh32x4_verify_parallel(*const u8, *const u8, *const u8, *const u8, usize, usize) -> c_int;
        safe fn wegman_nmh32_bytes() -> usize;
        safe fn wegman_nmh32_keybytes() -> usize;
        safe fn wegman_nmh32_noncebytes() -> usize;
        unsafe fn wegman_nmh32(*mut u8, *const u8, *const u8, *const u8, usize) -> c_int;
        unsafe fn wegman_nmh32_verify(*const u8, *const u8, *const u8, *const u8, usize) -> c_int;
        unsafe fn wegman_nmh32_parallel(*mut u8, *const u8, *const u8, *const u8, usize, usize) -> c_int;
        unsafe fn wegman_nmh32_verify_parallel(*const u8, *const u8, *const u8, *const u8, usize, usize) -> c_int;
        safe fn wegman_mmh64_bytes() -> usize;
        safe fn wegman_mmh64_keybytes() -> usize;
        safe fn wegman_mmh64_noncebytes() -> usize;
        unsafe fn wegman_mmh64(*mut u8, *const u8, *const u8, *const u8, usize) -> c_int;
        unsafe fn wegman_mmh64_verify(*const u8, *const u8, *const u8, *const u8, usize) -> c_int;
        unsafe fn wegman_mmh64_parallel(*mut u8, *const u8, *const u8, *const u8, usize, usize) -> c_int;
        unsafe fn wegman_mmh64_verify_parallel(*const u8, *const u8, *const u8, *const u8, usize, usize) -> c_int;
        safe fn wegman_mmh64x2_bytes() -> usize;
        safe fn wegman_mmh64x2_keybytes() -> usize;
        safe fn wegman_mmh64x2_noncebytes() -> usize;
        unsafe fn wegman_mmh64x2(*mut u8, *const u8, *const u8, *const u8, usize) -> c_int;
        unsafe fn wegman_mmh64x2_verify(*const u8, *const u8, *const u8, *const u8, usize) -> c_int;
        unsafe fn wegman_mmh64x2_parallel(*mut u8, *const u8, *const u8, *const u8, usize, usize) -> c_int;
        unsafe fn wegman_mmh64x2_verify_parallel(*const u8, *const u8, *const u8, *const u8, usize, usize) -> c_int;

        safe fn wegman_cwc_noncebytes() -> usize;
        safe fn wegman_cwc_abytes() -> usize;
        safe fn wegman_cwc_keybytes_min() -> usize;
        safe fn wegman_cwc_keybytes_max() -> usize;
        safe fn wegman_cwc_messagebytes_max() -> u64;
        unsafe fn wegman_cwc_encrypt_detached(
            *mut u8, *mut u8, usize, *const u8, usize, *const u8, usize, *const u8, *const u8, usize
        ) -> c_int;
        unsafe fn wegman_cwc_decrypt_detached(
            *mut u8, *const u8, usize, *const u8, usize, *const u8, usize, *const u8, *const u8, usize
        ) -> c_int;
        unsafe fn wegman_cwc_encrypt(
            *mut u8, *mut usize, *const u8, usize, *const u8, usize, usize, *const u8, *const u8, usize
        ) -> c_int;
        unsafe fn wegman_cwc_decrypt(
            *mut u8, *mut usize, *const u8, usize, *const u8, usize, usize, *const u8, *const u8, usize
        ) -> c_int;
        unsafe fn wegman_cwc_encrypt_parallel(
            *mut u8, *mut usize, *const u8, usize, *const u8, usize, usize, *const u8, *const u8, usize, usize
        ) -> c_int;
        unsafe fn wegman_cwc_decrypt_parallel(
            *mut u8, *mut usize, *const u8, usize, *const u8, usize, usize, *const u8, *const u8, usize, usize
        ) -> c_int;
    }
}

/// One `#define`d constant: its name, the function that returns it, and the
/// library's value.
struct CConst {
    name: &'static str,
    function: &'static str,
    value: u64,
}

/// Lists `MACRO => function` pairs; each function must return the Rust
/// constant of the macro's name (checked here), and the C program of
/// [`header_check_source`] checks the macro against both.
macro_rules! constants {
    ($($name:ident => $function:ident),* $(,)?) => {
        vec![$({
            assert_eq!(wegman_c::$function() as u64, wegman_c::$name as u64, stringify!($function));
            CConst { name: stringify!($name), function: stringify!($function), value: wegman_c::$name as u64 }
        }),*]
    };
}

/// Every constant `wegman.h` defines.
fn constants() -> Vec<CConst> {
    constants! {
        WEGMAN_POLY1305AES_KEYBYTES => wegman_poly1305aes_keybytes,
        WEGMAN_POLY1305AES_NONCEBYTES => wegman_poly1305aes_noncebytes,
        WEGMAN_POLY1305AES_BYTES => wegman_poly1305aes_bytes,
        WEGMAN_POLY1305AES_STATEBYTES => wegman_poly1305aes_statebytes,
        WEGMAN_MMH32_BYTES => wegman_mmh32_bytes,
        WEGMAN_MMH32_KEYBYTES => wegman_mmh32_keybytes,
        WEGMAN_MMH32_NONCEBYTES => wegman_mmh32_noncebytes,
        WEGMAN_MMH32X2_BYTES => wegman_mmh32x2_bytes,
        WEGMAN_MMH32X2_KEYBYTES => wegman_mmh32x2_keybytes,
        WEGMAN_MMH32X2_NONCEBYTES => wegman_mmh32x2_noncebytes,
        WEGMAN_MMH32X3_BYTES => wegman_mmh32x3_bytes,
        WEGMAN_MMH32X3_KEYBYTES => wegman_mmh32x3_keybytes,
        WEGMAN_MMH32X3_NONCEBYTES => wegman_mmh32x3_noncebytes,
        WEGMAN_MMH32X4_BYTES => wegman_mmh32x4_bytes,
        WEGMAN_MMH32X4_KEYBYTES => wegman_mmh32x4_keybytes,
        WEGMAN_MMH32X4_NONCEBYTES => wegman_mmh32x4_noncebytes,
        WEGMAN_NMH32_BYTES => wegman_nmh32_bytes,
        WEGMAN_NMH32_KEYBYTES => wegman_nmh32_keybytes,
        WEGMAN_NMH32_NONCEBYTES => wegman_nmh32_noncebytes,
        WEGMAN_MMH64_BYTES => wegman_mmh64_bytes,
        WEGMAN_MMH64_KEYBYTES => wegman_mmh64_keybytes,
        WEGMAN_MMH64_NONCEBYTES => wegman_mmh64_noncebytes,
        WEGMAN_MMH64X2_BYTES => wegman_mmh64x2_bytes,
        WEGMAN_MMH64X2_KEYBYTES => wegman_mmh64x2_keybytes,
        WEGMAN_MMH64X2_NONCEBYTES => wegman_mmh64x2_noncebytes,
        WEGMAN_CWC_NONCEBYTES => wegman_cwc_noncebytes,
        WEGMAN_CWC_ABYTES => wegman_cwc_abytes,
        WEGMAN_CWC_KEYBYTES_MIN => wegman_cwc_keybytes_min,
        WEGMAN_CWC_KEYBYTES_MAX => wegman_cwc_keybytes_max,
        WEGMAN_CWC_MESSAGEBYTES_MAX => wegman_cwc_messagebytes_max,
    }
}

/// The object-like macros a header `#define`s with the `WEGMAN_` prefix,
/// other than its include guard and helper macros.
fn defined_constants(header: &str) -> BTreeSet<String> {
    const NOT_CONSTANTS: &[&str] = &["WEGMAN_H", "WEGMAN_WARN_UNUSED_RESULT"];
    header
        .lines()
        .filter_map(|l| l.trim_start().strip_prefix("#define "))
        .filter_map(|rest| rest.split_whitespace().next())
        .filter(|name| name.starts_with("WEGMAN_") && !name.contains('(') && !NOT_CONSTANTS.contains(name))
        .map(String::from)
        .collect()
}

/// A C (and C++) translation unit that assigns every function to a pointer of
/// exactly the table's type (an incompatible declaration is then a
/// diagnostic, an error under -Werror), and checks the state's size and
/// alignment and every constant macro against the library: at compile time
/// against the Rust value, at run time against its function.
fn header_check_source(fns: &[CFn], consts: &[CConst]) -> String {
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
    for k in consts {
        writeln!(c, "CHECK({} == {}ULL);", k.name, k.value).unwrap();
    }
    // 16 * (2^32 - 1) needs 64 bits, also where size_t has 32.
    c.push_str("CHECK(sizeof(WEGMAN_CWC_MESSAGEBYTES_MAX) == 8);\n");
    c.push_str(
        "#ifdef __cplusplus\n}\n#endif\n\
         int main(void) {\n\
         \x20   int bad = 0;\n\
         \x20   bad |= wegman_poly1305aes_statebytes() != sizeof(wegman_poly1305aes_state);\n",
    );
    for k in consts {
        writeln!(c, "    bad |= {}() != {};", k.function, k.name).unwrap();
    }
    c.push_str(
        "    printf(\"header_check: %s\\n\", bad ? \"MISMATCH\" : \"ok\");\n\
         \x20   return bad;\n\
         }\n",
    );
    c
}

#[test]
fn header_matches_rust_signatures_and_constants() {
    let source = scratch("header_check.c");
    std::fs::write(&source, header_check_source(&abi(), &constants())).unwrap();
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
    let consts: BTreeSet<String> = constants().iter().map(|k| k.name.to_owned()).collect();
    assert_eq!(defined_constants(&read("wegman.h")), consts, "wegman.h's constants vs. the table of this test");

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

/// Read `vectors/<name>` from the shared directory.
fn shared_json(name: &str) -> Value {
    let path = shared_dir().join("vectors").join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A hex field of vector `id`, lower case, "-" for the empty string.
fn hex_field(id: &str, v: &Value, f: &str) -> String {
    let h = v.get(f).and_then(Value::as_str).unwrap_or_else(|| panic!("{id}: no hex string {f}"));
    hex::decode(h).unwrap_or_else(|e| panic!("{id}: {f}: {e}"));
    if h.is_empty() { "-".to_owned() } else { h.to_ascii_lowercase() }
}

/// Convert group "mac" of mmh.json to the line format of
/// `tests/c/mmh_vectors.c`; returns how many vectors each algorithm has.
fn write_mmh_file(json: &Value, path: &Path) -> BTreeMap<String, usize> {
    let mut text = String::from("# Generated by tests/c_api.rs from mmh.json; see tests/c/mmh_vectors.c.\n");
    let mut counts = BTreeMap::new();
    let groups = json["groups"].as_array().expect("groups");
    let group = groups.iter().find(|g| g["name"] == "mac").expect("mmh.json has a group \"mac\"");
    for (i, v) in group["vectors"].as_array().expect("vectors").iter().enumerate() {
        let id = format!("mac/{i}");
        let alg = v["alg"].as_str().unwrap_or_else(|| panic!("{id}: no alg"));
        let parsed: wegman::mmh::Alg = alg.parse().unwrap_or_else(|_| panic!("{id}: unknown alg {alg}"));
        check_m_len(&id, v);
        let tag = hex_field(&id, v, "tag");
        assert_eq!(tag.len(), 2 * parsed.tag_bytes(), "{id}: tag length");
        let fields = [hex_field(&id, v, "key"), hex_field(&id, v, "nonce"), hex_field(&id, v, "m"), tag];
        writeln!(text, "mac {id} {} {}", parsed.name(), fields.join(" ")).unwrap();
        *counts.entry(parsed.name().to_owned()).or_insert(0) += 1;
    }
    std::fs::write(path, text).unwrap();
    counts
}

#[test]
fn mmh_vectors_program() {
    let list = scratch("mmh-vectors.txt");
    let counts = write_mmh_file(&shared_json("mmh.json"), &list);
    assert_eq!(counts.len(), 7, "vectors for every algorithm: {counts:?}");

    let exe = build_c(&crate_dir().join("tests/c/mmh_vectors.c"), "mmh_vectors");
    let out = run(Command::new(exe).arg(&list));
    print!("{out}");
    let total: usize = counts.values().sum();
    let per_alg: Vec<String> =
        wegman::mmh::Alg::ALL.iter().map(|a| format!("{} {}", counts[a.name()], a.name())).collect();
    let want = format!("mmh_vectors: {total} passed, 0 failed ({})", per_alg.join(", "));
    assert_eq!(out.lines().last(), Some(want.as_str()));
}

/// Convert cwc.json to the line format of `tests/c/cwc_vectors.c`; returns
/// how many vectors each group has. Vectors with a plaintext (`pt`, or the
/// `expect` of a decrypt-negative control) become "seal" lines, checked in
/// both directions; those expecting "INVALID" become "invalid" lines.
fn write_cwc_file(json: &Value, path: &Path) -> BTreeMap<String, usize> {
    let mut text = String::from("# Generated by tests/c_api.rs from cwc.json; see tests/c/cwc_vectors.c.\n");
    let mut counts = BTreeMap::new();
    for group in json["groups"].as_array().expect("groups") {
        let gname = group["name"].as_str().expect("group name");
        for (i, v) in group["vectors"].as_array().expect("vectors").iter().enumerate() {
            let id = format!("{gname}/{i}");
            let tag_len = v["tag_len"].as_u64().unwrap_or_else(|| panic!("{id}: no tag_len"));
            let [key, nonce, aad, ct] = ["key", "nonce", "aad", "ct"].map(|f| hex_field(&id, v, f));
            let line = match v.get("expect").map(|e| e.as_str().unwrap_or_else(|| panic!("{id}: expect {e}"))) {
                Some("INVALID") => format!("invalid {id} {key} {nonce} {aad} {ct} {tag_len}"),
                Some(_) => format!("seal {id} {key} {nonce} {aad} {} {ct} {tag_len}", hex_field(&id, v, "expect")),
                None => {
                    let pt = hex_field(&id, v, "pt");
                    if let Some(n) = v.get("pt_len").and_then(Value::as_u64) {
                        assert_eq!(if pt == "-" { 0 } else { pt.len() as u64 / 2 }, n, "{id}: pt_len");
                    }
                    format!("seal {id} {key} {nonce} {aad} {pt} {ct} {tag_len}")
                }
            };
            text.push_str(&line);
            text.push('\n');
            *counts.entry(gname.to_owned()).or_insert(0) += 1;
        }
    }
    std::fs::write(path, text).unwrap();
    counts
}

#[test]
fn cwc_vectors_program() {
    let list = scratch("cwc-vectors.txt");
    let counts = write_cwc_file(&shared_json("cwc.json"), &list);
    for group in ["draft-irtf-cfrg-cwc", "random", "edge-cases", "decrypt-negative"] {
        assert!(counts.get(group).is_some_and(|&n| n > 0), "no vectors in group {group}: {counts:?}");
    }
    let text = std::fs::read_to_string(&list).unwrap();
    let invalid = text.lines().filter(|l| l.starts_with("invalid ")).count();
    let seal = text.lines().filter(|l| l.starts_with("seal ")).count();
    assert!(invalid > 0);

    let exe = build_c(&crate_dir().join("tests/c/cwc_vectors.c"), "cwc_vectors");
    let out = run(Command::new(exe).arg(&list));
    print!("{out}");
    let want = format!("cwc_vectors: {} passed, 0 failed ({seal} seal, {invalid} invalid)", seal + invalid);
    assert_eq!(out.lines().last(), Some(want.as_str()));
}

/// The ```` ```c ```` blocks of the README: each is a whole program, which
/// must compile warning-free, run and exit 0.
#[test]
fn readme_examples_compile_and_run() {
    let readme = std::fs::read_to_string(crate_dir().join("README.md")).unwrap();
    let mut examples = Vec::new();
    let mut lines = readme.lines();
    while let Some(line) = lines.next() {
        if line.trim_end() == "```c" {
            let body: Vec<&str> = lines.by_ref().take_while(|l| l.trim_end() != "```").collect();
            examples.push(body.join("\n") + "\n");
        }
    }
    assert_eq!(examples.len(), 3, "one example per family");
    for (i, example) in examples.iter().enumerate() {
        let source = scratch(&format!("readme_example_{i}.c"));
        std::fs::write(&source, example).unwrap();
        let exe = build_c(&source, &format!("readme_example_{i}"));
        print!("{}", run(&mut Command::new(exe)));
    }
}
