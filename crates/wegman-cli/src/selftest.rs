//! `wegman selftest`: the README's main job.
//!
//! 1. Checks the library against the four examples of Appendix A of
//!    Bernstein, "The Poly1305-AES message-authentication code" (2005), as
//!    corrected in shared/vectors/poly1305aes.json (group paper-appendix-A),
//!    through one-shot, streaming and verify.
//! 2. Makes a throw-away key in a fresh private temporary directory (a new
//!    random name, mode 0700, created by `tempfile`: never a predictable
//!    path another user could have planted), tags a sample file, checks it,
//!    tampers with it and checks again, printing what it does.

use std::path::Path;
use std::process::Command;

use wegman::poly1305aes::{Key, Poly1305Aes, authenticate, verify};

use crate::out::line;
use wegman_store::hex;

/// (k, r, n, m, tag), hex, from Appendix A.
const APPENDIX_A: [(&str, &str, &str, &str, &str); 4] = [
    (
        "ec074c835580741701425b623235add6",
        "851fc40c3467ac0be05cc20404f3f700",
        "fb447350c4e868c52ac3275cf9d4327e",
        "f3f6",
        "f4c633c3044fc145f84f335cb81953de",
    ),
    (
        "75deaa25c09f208e1dc4ce6b5cad3fbf",
        "a0f3080000f46400d0c7e9076c834403",
        "61ee09218d29b0aaed7e154a2c5509cc",
        "",
        "dd3fab2251f11ac759f0887129cc2ee7",
    ),
    (
        "6acb5f61a7176dd320c5c1eb2edcdc74",
        "48443d0bb0d21109c89a100b5ce2c208",
        "ae212a55399729595dea458bc621ff0e",
        "663cea190ffb83d89593f3f476b6bc24d7e679107ea26adb8caf6652d0656136",
        "0ee1c16bb73f0f4fd19881753c01cdbe",
    ),
    (
        "e1a5668a4d5b66a5f68cc5424ed5982d",
        "12976a08c4426d0ce8a82407c4f48207",
        "9ae831e743978d3a23527c7128149e3a",
        "ab0812724a7f1e342742cbed374d94d136c6b8795d45b3819830f2c04491faf0\
         990c62e48b8018b2c3e4a0fa3134cb67fa83e158c994d961c4cb21095c1bf9",
        "5154ad0d2cb26e01274fc51148491f1b",
    ),
];

fn appendix_a() -> Result<(), String> {
    for (i, (k, r, n, m, t)) in APPENDIX_A.iter().enumerate() {
        let key = Key::from_slice(&hex::decode_vec("key", &format!("{k}{r}"))?).map_err(|e| e.to_string())?;
        let n = hex::decode::<16>("nonce", n)?;
        let t = hex::decode::<16>("tag", t)?;
        let m = hex::decode_vec("message", m)?;
        let got = authenticate(&key, &n, &m);
        let mut stream = Poly1305Aes::new(&key, &n);
        for b in m.chunks(5) {
            stream.update(b);
        }
        let streamed = stream.finalize();
        let mut bad = t;
        bad[0] ^= 1;
        let ok = got == t && streamed == t && verify(&key, &t, &n, &m).is_ok() && verify(&key, &bad, &n, &m).is_err();
        line(format_args!(
            "  Appendix A #{} ({:2}-byte message): tag {} {}",
            i + 1,
            m.len(),
            hex::encode(&got),
            if ok { "ok" } else { "MISMATCH" }
        ))?;
        if !ok {
            return Err(format!("self-check failed on Appendix A example {}", i + 1));
        }
    }
    Ok(())
}

fn wegman(dir: &Path, args: &[&str]) -> Result<(i32, String, String), String> {
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let out = Command::new(exe).args(args).current_dir(dir).output().map_err(|e| e.to_string())?;
    Ok((
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    ))
}

pub fn run() -> Result<u8, String> {
    line(format_args!(
        "wegman {} self-test (backend: {})",
        env!("CARGO_PKG_VERSION"),
        wegman::poly1305aes::Poly1305Aes::new(&Key::from_bytes_clamped(&[0; 32]), &[0; 16]).platform()
    ))?;
    line("1. Poly1305-AES against the paper's Appendix A:")?;
    appendix_a()?;

    line("2. Tagging and checking a sample file (in a temporary directory):")?;
    let tmp = tempfile::Builder::new()
        .prefix("wegman-selftest-")
        .tempdir()
        .map_err(|e| format!("creating a temporary directory: {}", wegman_store::input::describe(&e)))?;
    let dir = tmp.path();
    let result = (|| {
        let sample = "The sender must never use the same nonce for two different messages.\n";
        std::fs::write(dir.join("sample.txt"), sample).map_err(|e| e.to_string())?;
        let step = |args: &[&str], want: i32| -> Result<String, String> {
            let (code, out, err) = wegman(dir, args)?;
            line(format_args!("  $ wegman {}   -> exit {code}", args.join(" ")))?;
            for l in out.lines().chain(err.lines()) {
                line(format_args!("      {l}"))?;
            }
            if code != want {
                return Err(format!("`wegman {}` exited {code}, expected {want}", args.join(" ")));
            }
            Ok(out)
        };
        step(&["keygen", "-o", "demo.key"], 0)?;
        let manifest = step(&["tag", "-k", "demo.key", "sample.txt"], 0)?;
        std::fs::write(dir.join("MANIFEST"), manifest).map_err(|e| e.to_string())?;
        step(&["check", "-k", "demo.key", "MANIFEST"], 0)?;
        std::fs::write(dir.join("sample.txt"), sample.replace("never", "always")).map_err(|e| e.to_string())?;
        line("  (sample.txt tampered with)")?;
        step(&["check", "-k", "demo.key", "MANIFEST"], 1)?;
        Ok::<(), String>(())
    })();
    let removed = tmp.close().map_err(|e| format!("removing the temporary directory: {e}"));
    result?;
    removed?;
    line("self-test passed")?;
    Ok(0)
}
