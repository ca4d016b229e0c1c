//! The §3 nonce store under SIGKILL: kill `wegman tag` at random moments,
//! hundreds of times, and prove that no nonce was ever printed twice.
//!
//! The same harness runs against `wegman-broken-store` (the dev-only crate
//! `tools/nonce-controls`: the naive in-memory counter the paper warns
//! about, written in place without fsync or rename) and must catch it.
//!
//! `cargo test` kills 200 times; `WEGMAN_NONCE_KILLS=1000` (what
//! `tools/nonce-faults` sets) asks for more.

use std::collections::HashMap;
use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use rand::{Rng, SeedableRng};

mod common;
use common::{broken_binary, printed_nonces};

/// Kills of the default run: see [`kills_wanted`].
const KILLS: usize = 200;
const FILES: usize = 48;
/// Nonces a campaign must see handed out before its verdict means anything.
const MIN_NONCES: usize = 1000;

struct Report {
    kills: usize,
    kills_after_output: usize,
    clean_runs: usize,
    nonces_printed: usize,
    duplicates: usize,
    errors: Vec<String>,
}

fn campaign(bin: &Path, kills_wanted: usize, seed: u64) -> Report {
    let dir = tempfile::tempdir().unwrap();
    let st = Command::new(bin).args(["keygen", "-o", "key"]).current_dir(dir.path()).status().unwrap();
    assert!(st.success());
    let mut files = Vec::new();
    for i in 0..FILES {
        let name = format!("f{i:02}");
        std::fs::write(dir.path().join(&name), vec![i as u8; 100 + i * 37]).unwrap();
        files.push(name);
    }
    let tag = |reserve: &str| {
        let mut c = Command::new(bin);
        c.args(["tag", "-k", "key", "--nonce-reserve", reserve])
            .args(&files)
            .current_dir(dir.path())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        c
    };

    // How long does an undisturbed run take? Kill moments are drawn up to
    // that. The slowest of three runs: on a loaded CI machine the first run
    // can be the quick one, and kill moments drawn from it then land mostly
    // before any output.
    let mut full = Duration::ZERO;
    let mut outs = Vec::new();
    for _ in 0..3 {
        let t0 = Instant::now();
        let out = tag("3").output().unwrap();
        full = full.max(t0.elapsed());
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        outs.push(out);
    }

    let mut seen: HashMap<String, usize> = HashMap::new();
    let record = |stdout: &[u8], seen: &mut HashMap<String, usize>| -> usize {
        let printed = printed_nonces(stdout);
        for nonce in &printed {
            *seen.entry(nonce.clone()).or_insert(0) += 1;
        }
        printed.len()
    };
    let mut printed_total = 0;
    for out in &outs {
        printed_total += record(&out.stdout, &mut seen);
    }

    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let mut rep =
        Report { kills: 0, kills_after_output: 0, clean_runs: 3, nonces_printed: 0, duplicates: 0, errors: vec![] };
    let max_delay = full.mul_f64(1.2).max(Duration::from_micros(200));
    let mut attempts = 0;
    // Keep killing until the campaign has the power the verdict asks for
    // (enough kills and enough nonces handed out), however fast or slow
    // this machine runs today; the attempt cap only stops a store that
    // never gets anywhere.
    while (rep.kills < kills_wanted || rep.kills_after_output < kills_wanted / 4 || printed_total < MIN_NONCES)
        && attempts < kills_wanted * 10
    {
        attempts += 1;
        let reserve = ["1", "2", "3", "5", "8"][rng.random_range(0..5)];
        let mut child = tag(reserve).spawn().unwrap();
        let mut stdout = child.stdout.take().unwrap();
        let reader = std::thread::spawn(move || {
            let mut buf = Vec::new();
            let _ = stdout.read_to_end(&mut buf);
            buf
        });
        std::thread::sleep(max_delay.mul_f64(rng.random::<f64>()));
        let _ = child.kill(); // SIGKILL on Unix
        let status = child.wait().unwrap();
        let buf = reader.join().unwrap();
        let mut err = String::new();
        let _ = child.stderr.take().unwrap().read_to_string(&mut err);
        let printed = record(&buf, &mut seen);
        printed_total += printed;
        use std::os::unix::process::ExitStatusExt;
        if status.signal() == Some(9) {
            rep.kills += 1;
            if printed > 0 {
                rep.kills_after_output += 1;
            }
        } else if status.success() {
            rep.clean_runs += 1;
        } else {
            // A store that refuses to run (missing/corrupt state) is a failure too.
            rep.errors.push(err);
        }
    }
    rep.nonces_printed = seen.values().sum();
    rep.duplicates = seen.values().filter(|&&c| c > 1).map(|c| c - 1).sum();
    eprintln!(
        "{}: {} SIGKILLs ({} after some output), {} clean runs, {} nonces printed, {} reused, {} errors; run time {:?}",
        bin.display(),
        rep.kills,
        rep.kills_after_output,
        rep.clean_runs,
        rep.nonces_printed,
        rep.duplicates,
        rep.errors.len(),
        full
    );
    if let Some(e) = rep.errors.first() {
        eprintln!("first error: {e}");
    }
    rep
}

/// How many kills a campaign must reach: `WEGMAN_NONCE_KILLS`, or [`KILLS`].
fn kills_wanted() -> usize {
    std::env::var("WEGMAN_NONCE_KILLS").map_or(KILLS, |v| v.parse().expect("WEGMAN_NONCE_KILLS: a number of kills"))
}

/// The acceptance conditions, shared by the real run and the negative control.
fn verdict(rep: &Report, kills: usize) -> Result<(), String> {
    // A reused nonce is reported first: it is the failure this test exists
    // for, whatever else went wrong in the same campaign.
    if rep.duplicates != 0 {
        return Err(format!("{} nonces reused", rep.duplicates));
    }
    if rep.kills < kills {
        return Err(format!("only {} kills", rep.kills));
    }
    if rep.kills_after_output < kills / 4 {
        return Err(format!("kills mostly before any output: {}", rep.kills_after_output));
    }
    if !rep.errors.is_empty() {
        return Err(format!("store errors after kills: {:?}", rep.errors));
    }
    if rep.nonces_printed < MIN_NONCES {
        return Err(format!("only {} nonces printed", rep.nonces_printed));
    }
    Ok(())
}

#[test]
fn sigkill_never_makes_the_store_reuse_a_nonce() {
    let kills = kills_wanted();
    let rep = campaign(Path::new(env!("CARGO_BIN_EXE_wegman")), kills, 0x6b11);
    verdict(&rep, kills).unwrap();
}

#[test]
fn the_same_test_catches_a_broken_store() {
    let bin = broken_binary();
    let rep = campaign(&bin, KILLS, 0xbad);
    let err = verdict(&rep, KILLS).expect_err("the kill test failed to notice a store that reuses nonces");
    eprintln!("broken store caught: {err}");
    assert!(rep.duplicates > 0 && err.contains("reused"), "{err}");
}
