//! Links the two C peers: OpenSSL 3's libcrypto and libsodium.
//!
//! The declarations are hand-written in `src/peers/` (a dozen functions
//! each), so no `-sys` crate and no bindgen are needed; this script only
//! names the libraries and, when a C compiler is at hand, checks that they
//! are installed, so a missing package fails here with the package names
//! instead of with a linker error.

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
    if !missing.is_empty() {
        panic!(
            "wegman-bench links OpenSSL 3 (libcrypto) and libsodium as benchmark peers; install them with\n\
             \n    apt-get install -y {}\n",
            missing.join(" ")
        );
    }
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
