//! Links the two C peers, OpenSSL 3's libcrypto and libsodium, and builds
//! the hand-assembled reference `c/ref_aesni.c` (AES-NI, x86-64 only) with
//! the system C compiler into a static library.
//!
//! The declarations are hand-written in `src/peers/` (a dozen functions
//! each), so no `-sys` crate and no bindgen are needed; this script only
//! names the libraries and, when a C compiler is at hand, checks that they
//! are installed, so a missing package fails here with the package names
//! instead of with a linker error.

use std::path::PathBuf;
use std::process::Command;

/// (library, Debian package that ships its development link).
const LIBS: [(&str, &str); 2] = [("crypto", "libssl-dev"), ("sodium", "libsodium-dev")];

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=CC");
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".to_string());
    let mut missing = Vec::new();
    for (lib, package) in LIBS {
        if !installed(&cc, lib) {
            missing.push(package);
        }
        println!("cargo:rustc-link-lib=dylib={lib}");
    }
    if std::env::var("CARGO_CFG_TARGET_ARCH").as_deref() == Ok("x86_64") {
        build_reference(&cc);
    }
    if !missing.is_empty() {
        panic!(
            "wegman-bench links OpenSSL 3 (libcrypto) and libsodium as benchmark peers; install them with\n\
             \n    apt-get install -y {}\n",
            missing.join(" ")
        );
    }
}

/// `c/ref_aesni.c` as `libwegman_bench_ref.a` in OUT_DIR, linked statically.
fn build_reference(cc: &str) {
    println!("cargo:rerun-if-changed=c/ref_aesni.c");
    println!("cargo:rerun-if-env-changed=AR");
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    let obj = out.join("ref_aesni.o");
    let lib = out.join("libwegman_bench_ref.a");
    let flags = ["-std=c11", "-O2", "-maes", "-mssse3", "-fPIC", "-Wall", "-Wextra", "-Werror", "-c"];
    run(Command::new(cc).args(flags).arg("c/ref_aesni.c").arg("-o").arg(&obj));
    let _ = std::fs::remove_file(&lib);
    let ar = std::env::var("AR").unwrap_or_else(|_| "ar".to_string());
    run(Command::new(ar).arg("crs").arg(&lib).arg(&obj));
    println!("cargo:rustc-link-search=native={}", out.display());
    println!("cargo:rustc-link-lib=static=wegman_bench_ref");
}

fn run(cmd: &mut Command) {
    let st = cmd.status().unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}"));
    assert!(st.success(), "{cmd:?} failed ({st})");
}

/// `cc -print-file-name=libX.so` prints a full path only when the linker
/// would find the library. Without a working `cc` we cannot tell, so we
/// assume yes and let the linker speak.
fn installed(cc: &str, lib: &str) -> bool {
    let name = format!("lib{lib}.so");
    match Command::new(cc).arg(format!("-print-file-name={name}")).output() {
        Ok(out) if out.status.success() => {
            let path = String::from_utf8_lossy(&out.stdout).trim().to_string();
            path != name
        }
        _ => true,
    }
}
