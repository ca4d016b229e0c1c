//! wegman-bench: times the exact public calls of wegman against OpenSSL 3,
//! libsodium and RustCrypto (and, for CWC's AEAD peers, aws-lc-rs and ring),
//! in one process, after checking that every contender computes the same
//! function.
//!
//! ```sh
//! cargo run --release -p wegman-bench -- --quick --json bench-out/results.json --plot bench-out
//! ```
//!
//! What it answers from Bernstein's "art of benchmarking" (Poly1305-AES
//! talk, slides 9-15): one function per table, measured, not estimated
//! (the exact call `verify(a,kr,n,m,mlen)` with AES key expansion inside);
//! every length 0..8192 (`--full`), not just long messages; one hot key
//! *and* 1000 keys, nonces and messages cycled, aligned and misaligned; the
//! precomputed-key variants shown separately, never instead. The machine
//! (CPU, TSC rate) is printed; run it on every CPU you have.
//!
//! Layout: `contender.rs` (the `Contender`/`Family` traits), one file per
//! family (`poly1305aes.rs`, `mmh.rs`, `cwc.rs`), `peers/` (C FFI), `tsc.rs`,
//! `measure.rs`, `workload.rs`, `report.rs`, `plot.rs`, `vectors.rs`.

#![deny(unsafe_code)]

mod batch;
mod contender;
mod cwc;
mod machine;
mod measure;
mod mmh;
#[allow(unsafe_code)]
mod peers;
mod plot;
mod poly1305aes;
mod report;
#[allow(unsafe_code)]
mod tsc;
mod vectors;
mod workload;

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use clap::Parser;

use contender::{Check, Family};
use measure::{Plan, Sample};
use peers::openssl::Libcrypto;
use peers::sodium::Sodium;
use report::{Meta, Row, TableResult};
use workload::{Pool, Regime};

/// Benchmark wegman's exact public calls against OpenSSL 3, libsodium and
/// RustCrypto (Poly1305-AES; MMH/NMH vs those Poly1305-AES; CWC-AES vs AES-GCM and
/// ChaCha20-Poly1305, also from aws-lc-rs and ring).
///
/// Times are TSC ticks (the invariant time-stamp counter, calibrated against
/// the wall clock and printed); cores usually run faster than the TSC, so a
/// tick is not a core cycle.
#[derive(Parser, Debug)]
#[command(name = "wegman-bench", version)]
struct Args {
    /// 26 lengths from 0 to 1 MiB, every regime (the default); about two minutes.
    #[arg(long, conflicts_with_all = ["full", "smoke"])]
    quick: bool,
    /// Every length 0..=8192 plus 16 KiB..1 MiB; fewer repetitions per cell; long.
    #[arg(long, conflicts_with = "smoke")]
    full: bool,
    /// A few lengths and repetitions: exercises every contender and every
    /// check in seconds (for CI; not a timing).
    #[arg(long)]
    smoke: bool,
    /// Which family to time: poly1305aes, mmh, cwc or all.
    #[arg(long, default_value = "all", value_name = "NAME")]
    family: String,
    /// Only these regimes (hot, hot+1, cold, cold+1); repeatable; default all.
    #[arg(long, value_name = "ID", value_parser = parse_regime)]
    regime: Vec<Regime>,
    /// Timed batches per contender, cell and pass (overrides the mode's default).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    reps: Option<u64>,
    /// Write every figure to this JSON file (the last one given counts, so
    /// `scripts/bench --json F` overrides the script's default).
    #[arg(long, value_name = "FILE", overrides_with = "json")]
    json: Option<PathBuf>,
    /// Write SVG charts into this directory (the last one given counts).
    #[arg(long, value_name = "DIR", overrides_with = "plot")]
    plot: Option<PathBuf>,
    /// The shared directory holding vectors/ (default: $WEGMAN_SHARED or ../shared).
    #[arg(long, value_name = "DIR")]
    shared: Option<PathBuf>,
    /// Run the self-check and the equal-output checks, then stop.
    #[arg(long)]
    check_only: bool,
    /// Run wegman's Poly1305 on this backend (portable, float64, avx2, ifma)
    /// instead of the best this CPU has; refused if the CPU lacks it.
    #[arg(long, value_name = "NAME")]
    backend: Option<String>,
}

/// `--backend NAME` as the feature level whose Poly1305 backend is NAME.
fn parse_backend(name: &str) -> Result<wegman::cpu::Features, String> {
    let mut levels = wegman::cpu::Features::detect().every_level();
    levels.push(wegman::cpu::Features::float64());
    let key = wegman::poly1305aes::Key::from_bytes_clamped(&[1; 32]);
    let label = |f| wegman::poly1305aes::ExpandedKey::with_features(&key, f).platform();
    levels.iter().copied().find(|&f| label(f).name() == name).ok_or_else(|| {
        let mut have: Vec<&str> = levels.iter().map(|&f| label(f).name()).collect();
        have.dedup();
        format!("--backend {name}: this CPU runs {}", have.join(", "))
    })
}

fn parse_regime(s: &str) -> Result<Regime, String> {
    Regime::from_id(s).ok_or_else(|| "expected hot, hot+1, cold or cold+1".to_string())
}

/// Every family the program knows; add one line per new family.
fn families(lib: Libcrypto, sodium: Sodium, backend: Option<wegman::cpu::Features>) -> Vec<Box<dyn Family>> {
    vec![
        Box::new(poly1305aes::Poly1305AesFamily::new(lib, sodium).with_backend(backend)),
        Box::new(mmh::MmhFamily::new(lib, sodium)),
        Box::new(cwc::CwcFamily::new(lib, sodium)),
    ]
}

struct Mode {
    name: &'static str,
    lengths: Vec<usize>,
    plan: Plan,
    calibration: (usize, Duration),
    warmup: Duration,
}

impl Mode {
    fn from(args: &Args) -> Mode {
        let mut m = if args.smoke {
            Mode {
                name: "smoke",
                lengths: workload::SMOKE_LENGTHS.to_vec(),
                plan: Plan { reps: 5, passes: 1, target_ticks: 5_000, max_batch: 1_000 },
                calibration: (3, Duration::from_millis(20)),
                warmup: Duration::from_millis(50),
            }
        } else if args.full {
            Mode {
                name: "full",
                lengths: workload::full_lengths(),
                plan: Plan { reps: 7, passes: 3, target_ticks: 20_000, max_batch: 10_000 },
                calibration: (5, Duration::from_millis(100)),
                warmup: Duration::from_millis(300),
            }
        } else {
            Mode {
                name: "quick",
                lengths: workload::QUICK_LENGTHS.to_vec(),
                plan: Plan { reps: 51, passes: 5, target_ticks: 150_000, max_batch: 100_000 },
                calibration: (5, Duration::from_millis(100)),
                warmup: Duration::from_millis(300),
            }
        };
        if let Some(r) = args.reps {
            m.plan.reps = r as usize;
        }
        m
    }
}

fn print_checks(checks: &[Check]) {
    for c in checks {
        println!("  ok  {}: {}", c.name, c.detail);
    }
}

fn main() -> ExitCode {
    let args = Args::parse();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            let _ = std::io::stdout().flush();
            eprintln!("wegman-bench: error: {e}");
            if e.contains("check") {
                eprintln!("wegman-bench: aborted; no timing is reported for a contender that fails its checks");
            }
            ExitCode::FAILURE
        }
    }
}

fn run(args: &Args) -> Result<(), String> {
    let started = Instant::now();
    if let Some(dir) = &args.shared {
        vectors::set_shared_dir(dir.clone());
    }
    let mode = Mode::from(args);
    let lib = Libcrypto::init()?;
    let sodium = Sodium::init()?;
    let backend = args.backend.as_deref().map(parse_backend).transpose()?;
    let all = families(lib, sodium, backend);
    let known: Vec<&str> = all.iter().map(|f| f.name()).collect();
    if args.family != "all" && !known.contains(&args.family.as_str()) {
        return Err(format!("--family {}: expected all or one of {}", args.family, known.join(", ")));
    }
    let selected: Vec<&dyn Family> =
        all.iter().map(AsRef::as_ref).filter(|f| args.family == "all" || f.name() == args.family).collect();
    let regimes: Vec<Regime> = if args.regime.is_empty() { Regime::ALL.to_vec() } else { args.regime.clone() };

    // The machine and the clock.
    let load_start = machine::loadavg();
    let cal = tsc::calibrate(mode.calibration.0, mode.calibration.1);
    let core_ratio = tsc::core_ticks_ratio();
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    let software = vec![
        (
            "wegman",
            format!(
                "{} (tier {}; backends: {})",
                env!("CARGO_PKG_VERSION"),
                wegman::cpu::Features::detect().tier(),
                wegman_backends()
            ),
        ),
        ("openssl", lib.version()),
        ("libsodium", sodium.version()),
        ("rustcrypto", "poly1305 0.9, aes 0.9, aes-gcm 0.11 (exact versions in Cargo.lock)".to_string()),
        ("aws-lc-rs", "1.19 (AWS-LC built from source; exact version in Cargo.lock)".to_string()),
        ("ring", "0.17 (exact version in Cargo.lock)".to_string()),
    ];
    println!("wegman-bench, {} mode", mode.name);
    println!("  cpu: {} ({cpus} logical CPUs); load average at start: {load_start}", machine::cpu_model());
    println!(
        "  clock: {}; TSC {:.1} MHz, calibrated against the OS clock ({} x {} ms: {})",
        tsc::timer_name(),
        cal.mhz,
        cal.rounds.len(),
        cal.round.as_millis(),
        cal.rounds.iter().map(|m| format!("{m:.1}")).collect::<Vec<_>>().join(", ")
    );
    println!(
        "  figures are TSC ticks, not core cycles: the cores run faster than the TSC (about {:.2} core cycles per tick \
         here, i.e. ~{:.0} MHz, estimated from a chain of dependent adds); perf counters are not available in this VM",
        core_ratio,
        core_ratio * cal.mhz
    );
    for (k, v) in &software {
        println!("  {k}: {v}");
    }
    println!(
        "  method: per contender and cell, {} passes x {} timed batches of >= {} ticks (<= {} calls), interleaved across \
         a table's contenders; median reported with the interquartile range",
        mode.plan.passes, mode.plan.reps, mode.plan.target_ticks, mode.plan.max_batch
    );
    println!(
        "  cold regimes cycle {} (key, nonce, message) slots, fewer for long messages so that the messages stay within {} MiB",
        workload::SLOTS,
        workload::COLD_CAP >> 20
    );

    // Checks before any timing.
    let mut checks = Vec::new();
    println!("\nSelf-check against the paper (wegman alone):");
    for f in &all {
        let c = f.self_check().map_err(|e| format!("self-check failed: {e}"))?;
        print_checks(&c);
        checks.extend(c);
    }
    println!("\nEqual-output checks (every contender, built as timed):");
    for f in &selected {
        let c = f.check_contenders().map_err(|e| format!("equal-output check failed: {e}"))?;
        print_checks(&c);
        checks.extend(c);
    }
    if args.check_only {
        println!("\nchecks passed; --check-only: no timing");
        return Ok(());
    }

    // Timing.
    let pool = Pool::for_lengths(&mode.lengths);
    let tty = std::io::stderr().is_terminal();
    let mut results: Vec<TableResult> = Vec::new();
    for f in &selected {
        let t0 = Instant::now();
        let mut tables = f.tables()?;
        let first = results.len();
        results.extend(tables.iter().map(|t| TableResult {
            family: t.family,
            id: t.id,
            title: t.title,
            labels: t.labels(),
            rows: Vec::new(),
        }));
        // Wake the core up (an idle core starts at a low clock) and fault
        // in every contender's code and buffers: one discarded cell.
        tsc::spin(mode.warmup);
        let inputs = workload::inputs(&pool, *f, regimes[0], mode.lengths[0]);
        for t in tables.iter_mut() {
            measure::measure_table(&mode.plan, t, &inputs)?;
        }
        // Passes over every (regime, length); odd passes run the lengths backwards.
        let cells: Vec<(Regime, usize)> =
            regimes.iter().flat_map(|&r| mode.lengths.iter().map(move |&l| (r, l))).collect();
        let mut acc: Vec<Vec<(usize, Vec<Sample>)>> =
            tables.iter().map(|t| vec![(0, vec![Sample::default(); t.contenders.len()]); cells.len()]).collect();
        for pass in 0..mode.plan.passes {
            let order: Vec<usize> =
                if pass % 2 == 0 { (0..cells.len()).collect() } else { (0..cells.len()).rev().collect() };
            for (n, &c) in order.iter().enumerate() {
                let (regime, len) = cells[c];
                if tty && n % 16 == 0 {
                    eprint!(
                        "\r  timing {}, pass {}/{}: {:<6} length {len:>7} ({}/{})   ",
                        f.name(),
                        pass + 1,
                        mode.plan.passes,
                        regime.id(),
                        n + 1,
                        cells.len()
                    );
                }
                let inputs = workload::inputs(&pool, *f, regime, len);
                for (k, t) in tables.iter_mut().enumerate() {
                    let samples = measure::measure_table(&mode.plan, t, &inputs)?;
                    acc[k][c].0 = inputs.len();
                    for (into, s) in acc[k][c].1.iter_mut().zip(samples) {
                        into.merge(s);
                    }
                }
            }
            if !tty {
                eprintln!("  timed {}, pass {}/{} ({} cells)", f.name(), pass + 1, mode.plan.passes, cells.len());
            }
        }
        for (k, cells_k) in acc.into_iter().enumerate() {
            for (&(regime, len), (slots, samples)) in cells.iter().zip(cells_k) {
                let stats = samples.iter().map(Sample::stats).collect();
                results[first + k].rows.push(Row { regime, len, slots, stats });
            }
        }
        if tty {
            eprintln!();
        }
        eprintln!("  {} took {:.1} s", f.name(), t0.elapsed().as_secs_f64());
    }

    // The multi-key batch, with the Poly1305-AES family.
    let batch = if selected.iter().any(|f| f.name() == "poly1305aes") {
        let reps = if mode.name == "smoke" { 3 } else { 101 };
        Some(batch::run(reps, backend)?)
    } else {
        None
    };

    // Report.
    let shown: Option<Vec<usize>> = (mode.name == "full").then(|| workload::QUICK_LENGTHS.to_vec());
    for t in &results {
        for regime in t.regimes() {
            print!("{}", report::table_text(t, regime, shown.as_deref()));
        }
    }
    if shown.is_some() {
        println!("\n(the table shows the quick lengths; every length is in the JSON and the plots)");
    }
    if let Some(b) = &batch {
        print!("{}", b.text());
    }
    print!("{}", report::summary_text(&results));
    let load_end = machine::loadavg();
    let seconds = started.elapsed().as_secs_f64();
    println!("\nload average at end: {load_end}; total time {seconds:.1} s");

    let mut notes: Vec<String> = selected.iter().flat_map(|f| f.notes()).collect();
    if let Some(b) = &batch {
        notes.push(format!(
            "batch: {} items of {} bytes under {} keys: authenticate_many {:.1} ticks/item, {} x authenticate {:.1} \
             ticks/item (median of interleaved repetitions)",
            batch::ITEMS,
            batch::LEN,
            batch::ITEMS,
            b.batch,
            batch::ITEMS,
            b.single
        ));
    }
    notes.push(format!(
        "load average at start {load_start}, at end {load_end} ({cpus} CPUs; other processes may have run)"
    ));
    let meta = Meta {
        mode: mode.name,
        cpu: machine::cpu_model(),
        cpus,
        tsc_mhz: cal.mhz,
        tsc_rounds: cal.rounds.clone(),
        core_ratio,
        software,
        load: (load_start, load_end),
        plan: mode.plan,
        lengths: mode.lengths.clone(),
        checks,
        notes,
        seconds,
    };
    if let Some(path) = &args.json {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|e| format!("creating {}: {e}", dir.display()))?;
        }
        // Pretty for the quick and smoke runs; compact for --full (tens of MB).
        let value = report::json(&meta, &results);
        let text = if mode.lengths.len() <= 100 {
            serde_json::to_string_pretty(&value)
        } else {
            serde_json::to_string(&value)
        };
        let text = text.map_err(|e| e.to_string())?;
        std::fs::write(path, text).map_err(|e| format!("writing {}: {e}", path.display()))?;
        println!("wrote {}", path.display());
    }
    if let Some(dir) = &args.plot {
        let caption = format!(
            "{} | TSC {:.0} MHz (ticks are not core cycles) | {} mode, median of {} batches | wegman backends: {}",
            meta.cpu,
            meta.tsc_mhz,
            meta.mode,
            meta.plan.reps * meta.plan.passes,
            wegman_backends()
        );
        let files = plot::write(dir, &results, meta.tsc_mhz, &caption).map_err(|e| format!("writing plots: {e}"))?;
        println!("wrote {} charts into {}", files.len(), dir.display());
    }
    Ok(())
}

/// The backend each wegman family runs on here, as its own dispatch reports
/// it (so the label is the code that runs, not a guess), with the CPU class.
pub(crate) fn wegman_backends() -> wegman::platform::Backends {
    wegman::platform::Backends::detect()
}
