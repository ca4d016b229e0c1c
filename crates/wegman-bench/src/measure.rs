//! How a table of contenders is timed at one length in one regime.
//!
//! * Each contender's batch size is chosen so that one timed batch lasts at
//!   least `target_ticks` (never fewer than one call): the ~40-tick cost of
//!   the fenced counter reads is then spread over many calls. The reported
//!   figure is ticks per call = batch ticks / batch size.
//! * `reps` batches per contender, **interleaved**: repetition r runs every
//!   contender once, starting from a rotating position, so a burst of noise
//!   from other processes hits all of them alike instead of one.
//! * Hot regime: one untimed call right before each timed batch, so the key,
//!   the message and the code are in cache as "hot" promises even though the
//!   other contenders ran in between. Cold regime: no warming; the batch
//!   simply continues cycling through the slots.
//! * A contender's set-up for the cell (`Contender::prepare`, e.g. the
//!   tags its decrypt calls are given) runs before any of its calls and is
//!   not timed.
//! * The caller may split the repetitions into passes over all lengths,
//!   minutes apart, so that a long burst of noise spoils only one pass's
//!   share of a cell.
//! * We report the median with the quartiles and the extremes; the median
//!   ignores the batches that an interrupt or another process landed on.

use crate::contender::{Batch, Expect, Input, Table};

/// The effort spent per (table, length, regime).
#[derive(Clone, Copy, Debug)]
pub struct Plan {
    /// Timed batches per contender and pass.
    pub reps: usize,
    /// Passes over all lengths and regimes (reps are per pass).
    pub passes: usize,
    /// A batch lasts at least this many ticks.
    pub target_ticks: u64,
    /// ... and has at most this many calls.
    pub max_batch: u64,
}

/// Ticks per call over the repetitions.
#[derive(Clone, Copy, Debug, Default)]
pub struct Stats {
    /// Calls per timed batch.
    pub batch: u64,
    /// Number of timed batches.
    pub reps: usize,
    /// Median ticks per call.
    pub median: f64,
    /// First quartile.
    pub p25: f64,
    /// Third quartile.
    pub p75: f64,
    /// Fastest batch.
    pub min: f64,
    /// Slowest batch.
    pub max: f64,
}

impl Stats {
    /// Summary of per-call figures.
    pub fn of(mut per_call: Vec<f64>, batch: u64) -> Stats {
        per_call.sort_by(f64::total_cmp);
        let q = |p: f64| {
            let x = p * (per_call.len() - 1) as f64;
            let (lo, hi) = (x.floor() as usize, x.ceil() as usize);
            per_call[lo] + (per_call[hi] - per_call[lo]) * (x - lo as f64)
        };
        Stats {
            batch,
            reps: per_call.len(),
            median: q(0.5),
            p25: q(0.25),
            p75: q(0.75),
            min: per_call[0],
            max: per_call[per_call.len() - 1],
        }
    }

    /// Half the interquartile range relative to the median ("±x%").
    pub fn spread(&self) -> f64 {
        if self.median > 0.0 { (self.p75 - self.p25) / 2.0 / self.median } else { 0.0 }
    }
}

/// One contender's timed batches in one cell (possibly one pass of several).
#[derive(Clone, Debug, Default)]
pub struct Sample {
    /// Calls per batch.
    pub batch: u64,
    /// Ticks per call, one figure per batch.
    pub per_call: Vec<f64>,
}

impl Sample {
    /// Add another pass's batches (each pass sizes its batches afresh; the
    /// largest size is kept for the report).
    pub fn merge(&mut self, other: Sample) {
        self.batch = self.batch.max(other.batch);
        self.per_call.extend(other.per_call);
    }

    /// The summary.
    pub fn stats(&self) -> Stats {
        Stats::of(self.per_call.clone(), self.batch)
    }
}

/// Time every contender of `table` on `inputs` (one input: hot regime).
pub fn measure_table(plan: &Plan, table: &mut Table, inputs: &[Input<'_>]) -> Result<Vec<Sample>, String> {
    let hot = inputs.len() == 1;
    let n = table.contenders.len();
    for c in table.contenders.iter_mut() {
        c.prepare(inputs);
    }
    // Each contender starts a different part of the input cycle, so that in
    // the cold regimes no contender reads messages (and keys) the one before
    // it has just pulled into the cache: contender k is len/n inputs ahead
    // of contender k-1, i.e. it meets a message about len/n calls after it
    // was last touched, with the whole table's traffic in between.
    let mut next: Vec<usize> = (0..n).map(|k| k * inputs.len() / n).collect();
    let mut calls = vec![0u64; n];
    let mut sinks = vec![0u64; n];
    let mut batch = vec![1u64; n];

    // Warm up, then size the batch from the fastest of a few single calls.
    for (k, c) in table.contenders.iter_mut().enumerate() {
        let mut best = u64::MAX;
        for j in 0..8 {
            let b = c.batch(inputs, &mut next[k], 1);
            calls[k] += 1;
            sinks[k] += b.sink;
            if j >= 2 && b.ticks > 0 {
                best = best.min(b.ticks);
            }
        }
        batch[k] = plan.target_ticks.div_ceil(best.max(1)).clamp(1, plan.max_batch);
    }

    let mut per_call = vec![Vec::with_capacity(plan.reps); n];
    for r in 0..plan.reps {
        for j in 0..n {
            let k = (j + r) % n;
            let c = &mut table.contenders[k];
            if hot {
                let b = c.batch(inputs, &mut next[k], 1);
                calls[k] += 1;
                sinks[k] += b.sink;
            }
            // A batch whose counter went backwards (0 ticks) is run again.
            let mut b = Batch { ticks: 0, sink: 0 };
            for _ in 0..4 {
                b = c.batch(inputs, &mut next[k], batch[k] as usize);
                calls[k] += batch[k];
                sinks[k] += b.sink;
                if b.ticks > 0 {
                    break;
                }
            }
            if b.ticks == 0 {
                return Err(format!("{} {}: the time-stamp counter keeps going backwards", table.family, table.id));
            }
            per_call[k].push(b.ticks as f64 / batch[k] as f64);
        }
    }

    for (k, c) in table.contenders.iter().enumerate() {
        let wrong = match table.expect {
            Expect::Any => continue,
            Expect::Accept => (calls[k] - sinks[k], "rejected", "correct"),
            Expect::Reject => (sinks[k], "accepted", "forged"),
        };
        if wrong.0 != 0 {
            return Err(format!(
                "{} {}: {} {} {} of {} {} tags",
                table.family,
                table.id,
                c.label().name,
                wrong.1,
                wrong.0,
                calls[k],
                wrong.2
            ));
        }
    }
    Ok(per_call.into_iter().zip(batch).map(|(per_call, batch)| Sample { batch, per_call }).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contender::{Contender, Label};

    /// A contender whose every call answers the same byte.
    struct Fixed(u8);

    impl Contender for Fixed {
        fn label(&self) -> Label {
            Label { name: "fixed", ours: false, call: "-" }
        }

        fn call(&mut self, _: &Input<'_>) -> u8 {
            self.0
        }

        fn output(&self) -> Vec<u8> {
            vec![self.0]
        }
    }

    #[test]
    fn a_call_with_the_wrong_verdict_fails_the_table() {
        let plan = Plan { reps: 2, passes: 1, target_ticks: 100, max_batch: 10 };
        let msg = [0u8; 4];
        let inputs = [Input { slot: 0, msg: &msg, tag: [0; 16] }];
        for (expect, answer, ok) in [
            (Expect::Any, 7, true),
            (Expect::Accept, 1, true),
            (Expect::Accept, 0, false),
            (Expect::Reject, 0, true),
            (Expect::Reject, 1, false),
        ] {
            let mut t = Table { family: "f", id: "t", title: "", expect, contenders: vec![Box::new(Fixed(answer))] };
            assert_eq!(measure_table(&plan, &mut t, &inputs).is_ok(), ok, "{expect:?}, every call answering {answer}");
        }
    }

    #[test]
    fn quartiles_interpolate() {
        let s = Stats::of(vec![4.0, 1.0, 3.0, 2.0, 5.0], 7);
        assert_eq!((s.min, s.p25, s.median, s.p75, s.max), (1.0, 2.0, 3.0, 4.0, 5.0));
        assert_eq!((s.batch, s.reps), (7, 5));
        let s = Stats::of(vec![1.0, 2.0], 1);
        assert_eq!(s.median, 1.5);
    }
}
