//! The results: the table on stdout, the summary of ratios, and the JSON.

use std::fmt::Write as _;

use serde_json::{Value, json};

use crate::contender::{Check, Label};
use crate::measure::{Plan, Stats};
use crate::workload::{COLD_CAP, Regime, SLOTS};

/// One table's figures.
pub struct TableResult {
    /// Family name.
    pub family: &'static str,
    /// Table id.
    pub id: &'static str,
    /// What is timed.
    pub title: &'static str,
    /// The contenders, ours first.
    pub labels: Vec<Label>,
    /// One row per (regime, length), in run order.
    pub rows: Vec<Row>,
}

/// One (regime, length) cell of a table: every contender's figures.
pub struct Row {
    /// Regime.
    pub regime: Regime,
    /// Message length in bytes.
    pub len: usize,
    /// Distinct (key, nonce, message) slots cycled.
    pub slots: usize,
    /// Per contender, in label order.
    pub stats: Vec<Stats>,
}

impl TableResult {
    /// The fastest peer (not ours) of a row: (index, median ticks).
    pub fn best_peer(&self, row: &Row) -> Option<(usize, f64)> {
        self.labels
            .iter()
            .zip(&row.stats)
            .enumerate()
            .filter(|(_, (l, _))| !l.ours)
            .map(|(i, (_, s))| (i, s.median))
            .min_by(|a, b| a.1.total_cmp(&b.1))
    }

    /// Our contenders' indexes.
    pub fn ours(&self) -> Vec<usize> {
        self.labels.iter().enumerate().filter(|(_, l)| l.ours).map(|(i, _)| i).collect()
    }

    /// ours / best peer (above 1: we are slower).
    pub fn ratio(&self, row: &Row, ours: usize) -> Option<f64> {
        self.best_peer(row).map(|(_, best)| row.stats[ours].median / best)
    }

    /// The regimes present, in report order.
    pub fn regimes(&self) -> Vec<Regime> {
        Regime::ALL.into_iter().filter(|r| self.rows.iter().any(|row| row.regime == *r)).collect()
    }
}

/// Everything about the run that is not a timing.
pub struct Meta {
    /// "quick", "full" or "smoke".
    pub mode: &'static str,
    /// CPU model name.
    pub cpu: String,
    /// Online CPUs.
    pub cpus: usize,
    /// TSC MHz (calibrated) and the rounds.
    pub tsc_mhz: f64,
    /// Each calibration round.
    pub tsc_rounds: Vec<f64>,
    /// Core cycles per TSC tick (estimate).
    pub core_ratio: f64,
    /// Library versions.
    pub software: Vec<(&'static str, String)>,
    /// /proc/loadavg at the start and the end.
    pub load: (String, String),
    /// Effort per cell.
    pub plan: Plan,
    /// The lengths measured.
    pub lengths: Vec<usize>,
    /// Self-checks and equal-output checks that passed.
    pub checks: Vec<Check>,
    /// Notes from the families.
    pub notes: Vec<String>,
    /// Seconds spent, total.
    pub seconds: f64,
}

fn per_byte(s: &Stats, len: usize) -> Option<f64> {
    (len > 0).then(|| s.median / len as f64)
}

/// The stdout table of one (table, regime), restricted to `lengths` if given.
pub fn table_text(t: &TableResult, regime: Regime, lengths: Option<&[usize]>) -> String {
    const W: usize = 24;
    let mut s = String::new();
    let _ = writeln!(s, "\n== {} {} — {}", t.family, t.id, regime.id());
    let _ = writeln!(s, "   {}", t.title);
    let _ = writeln!(s, "   regime: {}", regime.describe());
    let _ = write!(s, "{:>8} |", "bytes");
    for l in &t.labels {
        let _ = write!(s, " {:^W$} |", l.name);
    }
    for &o in &t.ours() {
        let _ = write!(s, " {} / best peer", t.labels[o].name);
    }
    let _ = writeln!(s);
    let _ = write!(s, "{:>8} |", "");
    for _ in &t.labels {
        let _ = write!(s, " {:>9} {:>5} {:>8} |", "ticks/msg", "±IQR", "ticks/B");
    }
    let _ = writeln!(s);
    for row in t.rows.iter().filter(|r| r.regime == regime && lengths.is_none_or(|ls| ls.contains(&r.len))) {
        let _ = write!(s, "{:>8} |", row.len);
        for st in &row.stats {
            let pb = per_byte(st, row.len).map_or("-".to_string(), |x| format!("{x:.2}"));
            let _ = write!(s, " {:>9.0} {:>4.0}% {:>8} |", st.median, 100.0 * st.spread(), pb);
        }
        for &o in &t.ours() {
            if let (Some(r), Some((b, _))) = (t.ratio(row, o), t.best_peer(row)) {
                let _ = write!(s, " {r:>5.2} ({})", t.labels[b].name);
            }
        }
        if row.slots > 1 && row.slots < SLOTS {
            let _ = write!(s, "  [{} slots: {} MiB cap]", row.slots, COLD_CAP >> 20);
        }
        let _ = writeln!(s);
    }
    s
}

/// The lengths the summary quotes.
const SUMMARY_LENGTHS: [usize; 7] = [0, 16, 64, 576, 1500, 8192, 1 << 20];

fn geomean(xs: &[f64]) -> f64 {
    (xs.iter().map(|x| x.ln()).sum::<f64>() / xs.len() as f64).exp()
}

/// Ours / best peer, per table and regime: at a few lengths, and the
/// geometric mean and range over all measured lengths up to 8192.
pub fn summary_text(tables: &[TableResult]) -> String {
    let mut s = String::from("\n== Summary: wegman / best peer (median ticks; above 1.00 means wegman is slower)\n");
    let _ = write!(s, "{:<38} {:<7}", "table", "regime");
    for l in SUMMARY_LENGTHS {
        let _ = write!(s, " {:>7}", if l == 1 << 20 { "1MiB".to_string() } else { l.to_string() });
    }
    let _ = writeln!(s, "  {:>7} {:>13}", "gm≤8192", "range≤8192");
    for t in tables {
        for o in t.ours() {
            for regime in t.regimes() {
                let rows: Vec<&Row> = t.rows.iter().filter(|r| r.regime == regime).collect();
                let name = if t.ours().len() > 1 {
                    format!("{} {} {}", t.family, t.id, t.labels[o].name)
                } else {
                    format!("{} {}", t.family, t.id)
                };
                let _ = write!(s, "{name:<38} {:<7}", regime.id());
                for l in SUMMARY_LENGTHS {
                    match rows.iter().find(|r| r.len == l).and_then(|r| t.ratio(r, o)) {
                        Some(x) => {
                            let _ = write!(s, " {x:>7.2}");
                        }
                        None => {
                            let _ = write!(s, " {:>7}", "-");
                        }
                    }
                }
                let short: Vec<f64> = rows.iter().filter(|r| r.len <= 8192).filter_map(|r| t.ratio(r, o)).collect();
                if !short.is_empty() {
                    let (lo, hi) = short.iter().fold((f64::MAX, f64::MIN), |(a, b), &x| (a.min(x), b.max(x)));
                    let _ = write!(s, "  {:>7.2} {:>6.2}-{:<6.2}", geomean(&short), lo, hi);
                }
                let _ = writeln!(s);
            }
        }
    }
    s
}

fn r1(x: f64) -> f64 {
    (x * 10.0).round() / 10.0
}

fn r2(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

/// Every figure, as JSON: one series per (table, regime, contender) with
/// columns (lengths, median, quartiles, extremes, batch sizes, slots).
pub fn json(meta: &Meta, tables: &[TableResult]) -> Value {
    let tables_json: Vec<Value> = tables
        .iter()
        .map(|t| {
            let mut series = Vec::new();
            for regime in t.regimes() {
                let rows: Vec<&Row> = t.rows.iter().filter(|r| r.regime == regime).collect();
                for (i, l) in t.labels.iter().enumerate() {
                    let col = |f: &dyn Fn(&Stats) -> f64| rows.iter().map(|r| r1(f(&r.stats[i]))).collect::<Vec<_>>();
                    series.push(json!({
                        "regime": regime.id(),
                        "contender": l.name,
                        "ours": l.ours,
                        "lengths": rows.iter().map(|r| r.len).collect::<Vec<_>>(),
                        "slots": rows.iter().map(|r| r.slots).collect::<Vec<_>>(),
                        "median_ticks": col(&|s| s.median),
                        "p25_ticks": col(&|s| s.p25),
                        "p75_ticks": col(&|s| s.p75),
                        "min_ticks": col(&|s| s.min),
                        "max_ticks": col(&|s| s.max),
                        "ticks_per_byte": rows.iter().map(|r| per_byte(&r.stats[i], r.len).map(|x| (x * 1e4).round() / 1e4)).collect::<Vec<_>>(),
                        "batch": rows.iter().map(|r| r.stats[i].batch).collect::<Vec<_>>(),
                        "reps": rows.first().map_or(0, |r| r.stats[i].reps),
                    }));
                }
                for o in t.ours() {
                    series.push(json!({
                        "regime": regime.id(),
                        "ratio_of": t.labels[o].name,
                        "to": "best peer (lowest median)",
                        "lengths": rows.iter().map(|r| r.len).collect::<Vec<_>>(),
                        "ratio": rows.iter().map(|r| t.ratio(r, o).map(|x| (x * 1e3).round() / 1e3)).collect::<Vec<_>>(),
                        "best_peer": rows.iter().map(|r| t.best_peer(r).map(|(b, _)| t.labels[b].name)).collect::<Vec<_>>(),
                    }));
                }
            }
            json!({
                "family": t.family,
                "table": t.id,
                "title": t.title,
                "contenders": t.labels.iter().map(|l| json!({"name": l.name, "ours": l.ours, "call": l.call})).collect::<Vec<_>>(),
                "series": series,
            })
        })
        .collect();
    json!({
        "tool": "wegman-bench",
        "mode": meta.mode,
        "machine": {
            "cpu": meta.cpu,
            "cpus": meta.cpus,
            "tsc_mhz": r2(meta.tsc_mhz),
            "tsc_calibration_rounds_mhz": meta.tsc_rounds.iter().map(|&x| r2(x)).collect::<Vec<_>>(),
            "core_cycles_per_tsc_tick_estimate": r2(meta.core_ratio),
            "loadavg_start": meta.load.0,
            "loadavg_end": meta.load.1,
        },
        "software": meta.software.iter().map(|(k, v)| (k.to_string(), Value::from(v.clone()))).collect::<serde_json::Map<_, _>>(),
        "method": {
            "unit": "TSC ticks per call (invariant TSC at tsc_mhz; not core cycles: cores run faster than the TSC)",
            "timer": crate::tsc::timer_name(),
            "statistic": "each timed batch gives ticks/batch size; reported: median, quartiles, min, max over reps batches",
            "reps_per_pass": meta.plan.reps,
            "passes": meta.plan.passes,
            "passes_note": "odd passes run the lengths backwards; a cell's batches from all passes are pooled",
            "batch_target_ticks": meta.plan.target_ticks,
            "batch_max_calls": meta.plan.max_batch,
            "interleaved": "each repetition runs every contender of a table once, in rotating order",
            "regimes": Regime::ALL.iter().map(|r| json!({"id": r.id(), "what": r.describe()})).collect::<Vec<_>>(),
            "cold_slots": SLOTS,
            "cold_cap_bytes": COLD_CAP,
            "lengths": meta.lengths,
        },
        "checks": meta.checks.iter().map(|c| json!({"name": c.name, "detail": c.detail, "ok": true})).collect::<Vec<_>>(),
        "notes": meta.notes,
        "seconds": r2(meta.seconds),
        "tables": tables_json,
    })
}
