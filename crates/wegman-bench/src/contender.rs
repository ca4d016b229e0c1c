//! What a benchmark family provides: contenders (one exact user call each),
//! grouped in tables of like-for-like calls, plus the checks that make the
//! timings worth reading.
//!
//! Adding a family (e.g. `mmh.rs`) means implementing [`Family`] in one file
//! and listing it in `main.rs`'s `families()`; the measuring, the table, the
//! JSON and the plots need nothing new.

use crate::tsc;

/// One timed batch.
#[derive(Clone, Copy, Debug)]
pub struct Batch {
    /// Ticks for the whole batch.
    pub ticks: u64,
    /// Sum of the calls' result bytes.
    pub sink: u64,
}

/// One call's inputs: which key/nonce slot, the message, and (for verify
/// calls) the correct tag, computed before timing.
#[derive(Clone, Copy, Debug)]
pub struct Input<'a> {
    /// Index into the contender's keys and nonces.
    pub slot: usize,
    /// The message (aligned or misaligned, per the regime).
    pub msg: &'a [u8],
    /// The tag a verify call checks against; unused by the others.
    pub tag: [u8; 16],
}

/// The table name of a wegman contender: `"wegman[BACKEND]"`, the backend its
/// keys report, so a row is labelled with the backend that ran.
pub fn wegman_name(platform: wegman::platform::Platform) -> &'static str {
    use wegman::platform::Platform;
    match platform {
        Platform::Portable => "wegman[portable]",
        Platform::Avx2 => "wegman[avx2]",
        Platform::Avx512Ifma => "wegman[ifma]",
        Platform::Float64 => "wegman[float64]",
        _ => "wegman[?]",
    }
}

/// Who a contender is and exactly what one timed call does.
#[derive(Clone, Copy, Debug)]
pub struct Label {
    /// Short name for tables and legends ("wegman", "OpenSSL", ...).
    pub name: &'static str,
    /// One of ours (its ratio to the best peer is reported).
    pub ours: bool,
    /// The call, spelled out for the report.
    pub call: &'static str,
}

/// One exact public call, on keys and nonces fixed at construction.
pub trait Contender {
    /// Name and call.
    fn label(&self) -> Label;

    /// Make one call on `input`; return a byte of the result (a tag byte, or
    /// 1/0 for accept/reject) so the work cannot be optimised away.
    fn call(&mut self, input: &Input<'_>) -> u8;

    /// Set-up for one cell (a length in a regime), before any of its calls
    /// and not timed: e.g. the tag each slot's ciphertext carries into a
    /// decrypt call. Each slot appears at most once in `inputs`. Most
    /// contenders need none.
    fn prepare(&mut self, _inputs: &[Input<'_>]) {}

    /// The whole result of the last call (tag, ciphertext || tag, `[1]`/`[0]`
    /// for verify, or `[1]`/`[0]` and what a decrypt call released), for the
    /// equal-output checks. Not timed.
    fn output(&self) -> Vec<u8>;

    /// Time `calls` consecutive calls, cycling through `inputs` from `*next`.
    ///
    /// A provided method, so each contender gets its own copy in which
    /// `self.call` is a direct (inlinable) call: the only dynamic dispatch is
    /// one per batch. The loop adds an index update and a `black_box` per
    /// call (a few cycles) to what is measured.
    #[inline(never)]
    fn batch(&mut self, inputs: &[Input<'_>], next: &mut usize, calls: usize) -> Batch {
        let mut i = *next;
        let mut sink = 0u64;
        let t0 = tsc::now();
        for _ in 0..calls {
            let input = std::hint::black_box(&inputs[i]);
            sink += u64::from(self.call(input));
            i += 1;
            if i == inputs.len() {
                i = 0;
            }
        }
        let t1 = tsc::now();
        *next = i;
        // 0 if the counter went backwards (a move to a CPU whose TSC lags):
        // measure_table discards such batches.
        Batch { ticks: t1.saturating_sub(t0), sink: std::hint::black_box(sink) }
    }
}

/// What every timed call of a table must answer, counted from the calls'
/// result bytes while timing: a contender that answers otherwise fails the
/// run (its tag or its set-up is wrong, so its timing would mean nothing).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Expect {
    /// Nothing to count: the result byte is a tag or ciphertext byte.
    Any,
    /// Accept (1): verify, or decrypt, given the right tag.
    Accept,
    /// Reject (0): decrypt given a forged tag.
    Reject,
}

/// Contenders whose calls do the same job, compared with each other.
pub struct Table {
    /// Family name ("poly1305aes").
    pub family: &'static str,
    /// Short id ("authenticate", "verify-precomputed", ...).
    pub id: &'static str,
    /// One line saying what is timed.
    pub title: &'static str,
    /// What each call must answer, counted while timing.
    pub expect: Expect,
    /// Ours first, then the peers.
    pub contenders: Vec<Box<dyn Contender>>,
}

impl Table {
    /// The labels, in order.
    pub fn labels(&self) -> Vec<Label> {
        self.contenders.iter().map(|c| c.label()).collect()
    }
}

/// A line of the self-check / equal-output report.
#[derive(Clone, Debug)]
pub struct Check {
    /// What was checked.
    pub name: String,
    /// Details (which contenders, how many inputs).
    pub detail: String,
}

/// A family of algorithms: its contenders and its checks.
pub trait Family {
    /// "poly1305aes", "cwc", ...
    fn name(&self) -> &'static str;

    /// The paper's vectors against wegman alone, before anything else.
    fn self_check(&self) -> Result<Vec<Check>, String> {
        Ok(Vec::new())
    }

    /// Every contender against known answers and against each other, on
    /// contenders built exactly as the timed ones are. `Err` aborts the run.
    fn check_contenders(&self) -> Result<Vec<Check>, String>;

    /// The timed contenders, on the family's [`crate::workload::SLOTS`] keys
    /// and nonces (slot i of every contender holds the same secret).
    fn tables(&self) -> Result<Vec<Table>, String>;

    /// The correct tag for `msg` under slot `slot` (for verify calls).
    fn expected_tag(&self, _slot: usize, _msg: &[u8]) -> [u8; 16] {
        [0; 16]
    }

    /// Notes for the report (nonce sizes, what "one-shot" includes, ...).
    fn notes(&self) -> Vec<String> {
        Vec::new()
    }
}
