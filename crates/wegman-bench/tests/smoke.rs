//! The CI smoke run: `--smoke` must pass every check, time every contender
//! of every family, and write the JSON and the charts. Not a timing test.

use std::process::Command;

#[test]
fn smoke_run_times_every_contender_and_writes_json_and_plots() {
    let dir = tempfile::tempdir().expect("temp dir");
    let json = dir.path().join("results.json");
    let plots = dir.path().join("plots");
    let out = Command::new(env!("CARGO_BIN_EXE_wegman-bench"))
        .args(["--smoke", "--json"])
        .arg(&json)
        .arg("--plot")
        .arg(&plots)
        .output()
        .expect("run wegman-bench");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "stdout:\n{stdout}\nstderr:\n{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains("Appendix A: appendix-A-1"), "the self-check is printed before timing");
    assert!(stdout.contains("TSC") && stdout.contains("not core cycles"));

    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).expect("json written")).expect("JSON");
    let mut seen = Vec::new();
    let smoke_lengths = serde_json::json!([0, 1, 16, 17, 64, 576, 8192]);
    for t in v["tables"].as_array().expect("tables") {
        let table = format!("{}/{}", t["family"].as_str().unwrap(), t["table"].as_str().unwrap());
        let names: Vec<&str> =
            t["contenders"].as_array().expect("contenders").iter().map(|c| c["name"].as_str().unwrap()).collect();
        let series: Vec<&serde_json::Value> =
            t["series"].as_array().expect("series").iter().filter(|s| s["median_ticks"].is_array()).collect();
        for regime in ["hot", "hot+1", "cold", "cold+1"] {
            for name in &names {
                let found: Vec<_> =
                    series.iter().filter(|s| s["regime"] == regime && s["contender"] == *name).collect();
                assert_eq!(found.len(), 1, "{table}: one series for {name} in {regime}");
                let s = found[0];
                assert_eq!(s["lengths"], smoke_lengths, "{table} {name} {regime}: every smoke length");
                assert_eq!(s["reps"], 5, "{table} {name} {regime}: 1 pass x 5 batches");
                let median = s["median_ticks"].as_array().unwrap();
                let (first, last) = (median[0].as_f64().unwrap(), median[6].as_f64().unwrap());
                // Not a timing assertion: 8192 bytes of work against none is
                // a difference of thousands of ticks for every contender; a
                // contender that skipped its work would not show it.
                assert!(last > first, "{table} {name} {regime}: 8192 bytes ({last}) vs 0 bytes ({first})");
            }
        }
        assert_eq!(series.len(), 4 * names.len(), "{table}: no other series");
        seen.push(table);
    }
    for want in [
        "poly1305aes/authenticate",
        "poly1305aes/verify",
        "poly1305aes/authenticate-precomputed",
        "poly1305aes/verify-precomputed",
        "mmh/mac",
        "mmh/mac-precomputed",
        "cwc/encrypt",
        "cwc/encrypt-precomputed",
        "cwc/decrypt",
        "cwc/decrypt-precomputed",
        "cwc/decrypt-forged",
        "cwc/decrypt-forged-precomputed",
    ] {
        assert!(seen.iter().any(|s| s == want), "table {want} missing from {seen:?}");
    }
    assert_eq!(std::fs::read_dir(&plots).expect("plots written").count(), 3 * seen.len());

    // Every CWC table times the same eight contenders, so every peer decrypts
    // too, with the right tag and with a forged one (the loop above: each
    // with figures in every regime and at every length).
    let names = |id: &str| -> Vec<&str> {
        let t = v["tables"].as_array().unwrap().iter().find(|t| t["family"] == "cwc" && t["table"] == id).unwrap();
        t["contenders"].as_array().unwrap().iter().map(|c| c["name"].as_str().unwrap()).collect()
    };
    let encrypt = names("encrypt");
    assert_eq!(encrypt.len(), 8, "{encrypt:?}");
    for peer in ["OpenSSL GCM", "RustCrypto GCM", "aws-lc-rs GCM", "ring GCM", "aws-lc-rs ChaCha", "ring ChaCha"] {
        assert!(encrypt.contains(&peer), "{peer} in {encrypt:?}");
    }
    let others =
        ["encrypt-precomputed", "decrypt", "decrypt-precomputed", "decrypt-forged", "decrypt-forged-precomputed"];
    for id in others {
        assert_eq!(names(id), encrypt, "cwc {id}");
    }
    // The checks before timing opened the known answers and refused forged tags.
    let checks: Vec<&str> = v["checks"].as_array().unwrap().iter().map(|c| c["detail"].as_str().unwrap()).collect();
    for (what, needle) in [
        ("CWC vectors", "decrypt calls given them the plaintext"),
        ("GCM test cases", "aws-lc-rs GCM, ring GCM"),
        ("random inputs", "one bit flipped"),
    ] {
        assert!(checks.iter().any(|c| c.contains(needle)), "{what}: no check says {needle:?}: {checks:?}");
    }
}

#[test]
fn an_unknown_family_is_refused() {
    let out = Command::new(env!("CARGO_BIN_EXE_wegman-bench"))
        .args(["--smoke", "--family", "nope"])
        .output()
        .expect("run wegman-bench");
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("poly1305aes"));
}

/// A copy of the shared vectors in a temporary directory, with `edit`
/// applied to each file's text (given the file name).
fn edited_shared(edit: impl Fn(&str, String) -> String) -> tempfile::TempDir {
    let shared = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/vectors");
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::create_dir(dir.path().join("vectors")).unwrap();
    for f in ["poly1305aes.json", "mmh.json", "cwc.json"] {
        let text = std::fs::read_to_string(shared.join(f)).expect("shared vectors beside the repository");
        std::fs::write(dir.path().join("vectors").join(f), edit(f, text)).unwrap();
    }
    dir
}

/// Run `--smoke` with `extra` arguments on `shared`; it must fail before
/// timing anything. Returns its stderr.
fn failed_smoke_run(extra: &[&str], shared: &std::path::Path) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_wegman-bench"))
        .arg("--smoke")
        .args(extra)
        .arg("--shared")
        .arg(shared)
        .output()
        .expect("run wegman-bench");
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!stderr.contains("  timed ") && !stderr.contains(" took "), "nothing was timed: {stderr}");
    stderr
}

#[test]
fn a_wrong_answer_aborts_before_any_timing() {
    // One Appendix A tag changed.
    let dir = edited_shared(|f, text| {
        if f == "poly1305aes.json" {
            text.replacen("f4c633c3044fc145f84f335cb81953de", "f4c633c3044fc145f84f335cb81953df", 1)
        } else {
            text
        }
    });
    let stderr = failed_smoke_run(&[], dir.path());
    assert!(stderr.contains("self-check failed") && stderr.contains("appendix-A-1"), "{stderr}");
}

#[test]
fn a_wrong_cwc_vector_aborts_the_cwc_family() {
    // The tag of the first CWC vector changed: the encrypt and the decrypt
    // checks both hold the contenders to it.
    let dir = edited_shared(|f, text| {
        if f != "cwc.json" {
            return text;
        }
        let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
        let draft =
            v["groups"].as_array_mut().unwrap().iter_mut().find(|g| g["name"] == "draft-irtf-cfrg-cwc").unwrap();
        let first = draft["vectors"].as_array_mut().unwrap().iter_mut().find(|t| t["aad_len"] == 0).unwrap();
        let ct = first["ct"].as_str().unwrap();
        let flipped = format!("{}{}", &ct[..ct.len() - 1], if ct.ends_with('0') { '1' } else { '0' });
        first["ct"] = serde_json::Value::String(flipped);
        serde_json::to_string(&v).unwrap()
    });
    let stderr = failed_smoke_run(&["--family", "cwc"], dir.path());
    assert!(stderr.contains("equal-output check failed") && stderr.contains("cwc.json"), "{stderr}");
}

#[test]
fn a_wrong_mmh_vector_aborts_the_mmh_family() {
    // The first mmh64x2 tag changed.
    let dir = edited_shared(|f, text| {
        if f != "mmh.json" {
            return text;
        }
        let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
        let macs = v["groups"].as_array_mut().unwrap().iter_mut().find(|g| g["name"] == "mac").unwrap();
        let first = macs["vectors"].as_array_mut().unwrap().iter_mut().find(|t| t["alg"] == "mmh64x2").unwrap();
        let tag = first["tag"].as_str().unwrap();
        let flipped = format!("{}{}", &tag[..tag.len() - 1], if tag.ends_with('0') { '1' } else { '0' });
        first["tag"] = serde_json::Value::String(flipped);
        serde_json::to_string(&v).unwrap()
    });
    let stderr = failed_smoke_run(&["--family", "mmh"], dir.path());
    assert!(stderr.contains("equal-output check failed") && stderr.contains("mmh64x2"), "{stderr}");
}
