//! `wegman-dudect`: a dudect-style timing test of wegman's verify calls.
//!
//! For each case (see `cases.rs`) it times one public call on two classes of
//! inputs that differ only in a secret — the right tag or a wrong one, a
//! tag wrong in its first byte or its last, a fixed extreme key or random
//! keys — interleaved at random, and reports Welch's t statistic of the two
//! classes' timings (the largest |t| over dudect's crops, see `welch.rs`).
//! |t| < 4.5 after at least 10^6 timings per class is the pass mark dudect
//! uses; a negative control (an early-exit tag compare) must exceed it, so a
//! pass means the test could have failed.
//!
//! Timings are TSC ticks (`lfence; rdtsc; lfence`) around each call, so
//! this is a program to run on a machine as quiet as you can get, not a
//! unit test: `tools/dudect` runs it; CI runs `--smoke` (few timings, no
//! verdict).

use std::process::ExitCode;

use clap::Parser;
use rand::SeedableRng;
use rand::rngs::StdRng;

mod cases;
#[path = "../machine.rs"]
mod machine;
#[path = "../tsc.rs"]
#[allow(dead_code)]
mod tsc;
mod welch;

/// dudect's threshold: |t| above it is evidence of a timing difference.
const T_LIMIT: f64 = 4.5;

#[derive(Parser)]
#[command(about = "dudect-style timing test of wegman's verify calls (Welch's t, |t| < 4.5 passes)")]
struct Args {
    /// Timings per class and case.
    #[arg(long, default_value_t = 1_000_000)]
    per_class: usize,
    /// Run only the cases whose name contains this (repeatable).
    #[arg(long)]
    only: Vec<String>,
    /// A quick run (20,000 timings per class) that reports t but gives no verdict.
    #[arg(long)]
    smoke: bool,
    /// Seed for the inputs (default: from the OS).
    #[arg(long)]
    seed: Option<u64>,
}

fn main() -> ExitCode {
    let args = Args::parse();
    let per_class = if args.smoke { 20_000 } else { args.per_class };
    let seed = args.seed.unwrap_or_else(rand::random);
    let mut rng = StdRng::seed_from_u64(seed);
    println!("wegman-dudect: Welch's t between two classes of timings; |t| < {T_LIMIT} passes");
    println!(
        "  cpu: {}; timer: {}; load average at start: {}",
        machine::cpu_model(),
        tsc::timer_name(),
        machine::loadavg()
    );
    println!("  backends: {:?}; seed {seed}; at least {per_class} timings per class", wegman::cpu::Features::detect());
    println!();
    println!(
        "{:<44} {:>10} {:>10} {:>9} {:>9} {:>8} {:>7}  verdict",
        "case", "n a", "n b", "mean a", "mean b", "max |t|", "crop"
    );
    let mut failures = 0;
    for case in cases::CASES.iter().filter(|c| args.only.is_empty() || args.only.iter().any(|o| c.name.contains(o))) {
        let samples = case.run(per_class, &mut rng);
        let crops = welch::crops(&samples);
        let worst = welch::worst(&crops);
        let flagged = worst.t.abs() >= T_LIMIT;
        let verdict = match (args.smoke, case.control, flagged) {
            (true, _, _) => "(smoke: no verdict)",
            (false, false, false) => "pass",
            (false, true, true) => "pass (control flagged, as it must be)",
            (false, false, true) => "FAIL: timing depends on the class",
            (false, true, false) => "FAIL: the leaky control was not flagged",
        };
        if verdict.starts_with("FAIL") {
            failures += 1;
        }
        let all = crops[0];
        println!(
            "{:<44} {:>10} {:>10} {:>9.1} {:>9.1} {:>8.2} {:>7}  {verdict}",
            case.name,
            all.a.count(),
            all.b.count(),
            all.a.mean(),
            all.b.mean(),
            worst.t.abs(),
            worst.percentile.map_or("none".to_string(), |p| format!("{:.1}%", p * 100.0)),
        );
        println!("{:<44} {}", "", case.classes);
    }
    println!();
    println!("load average at end: {}", machine::loadavg());
    if failures == 0 {
        ExitCode::SUCCESS
    } else {
        println!("{failures} case(s) failed");
        ExitCode::FAILURE
    }
}
