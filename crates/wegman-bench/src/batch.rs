//! The multi-key batch: `authenticate_many` on 1000 items of 16
//! bytes under 1000 distinct keys, against 1000 calls of `authenticate` on
//! the same items. Both are timed whole with the TSC, interleaved rep by
//! rep, and reported as median ticks per item; their tags are checked equal
//! first.

use wegman::cpu::Features;
use wegman::poly1305aes::{self, Item, Key};

use crate::tsc;

/// Items per batch call and bytes per message.
pub const ITEMS: usize = 1000;
pub const LEN: usize = 16;

/// Median ticks per item of the batch call and of the single calls.
pub struct Figures {
    pub batch: f64,
    pub single: f64,
}

impl Figures {
    /// The table, as printed.
    pub fn text(&self) -> String {
        format!(
            "\n== poly1305aes batch — {ITEMS} items of {LEN} bytes under {ITEMS} distinct keys, one call\n   \
             wegman authenticate_many(items, tags): {:.1} ticks/item | {ITEMS} x authenticate(key, n, m): {:.1} \
             ticks/item | single / batch = {:.2}\n",
            self.batch,
            self.single,
            self.single / self.batch
        )
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Time `reps` interleaved repetitions of both ways; `forced` is `--backend`.
pub fn run(reps: usize, forced: Option<Features>) -> Result<Figures, String> {
    let mut x = 0x6261_7463_6865_7321u64;
    let mut byte = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x as u8
    };
    let keys: Vec<Key> = (0..ITEMS).map(|_| Key::from_bytes_clamped(&core::array::from_fn(|_| byte()))).collect();
    let nonces: Vec<[u8; 16]> = (0..ITEMS).map(|_| core::array::from_fn(|_| byte())).collect();
    let msgs: Vec<[u8; LEN]> = (0..ITEMS).map(|_| core::array::from_fn(|_| byte())).collect();
    let items: Vec<Item> = (0..ITEMS).map(|i| Item { key: &keys[i], nonce: &nonces[i], message: &msgs[i] }).collect();
    let features = forced.unwrap_or_else(Features::detect);
    let mut batch = vec![[0u8; 16]; ITEMS];
    let mut single = vec![[0u8; 16]; ITEMS];
    let one = |i: usize| match forced {
        None => poly1305aes::authenticate(&keys[i], &nonces[i], &msgs[i]),
        Some(f) => {
            let mut m = poly1305aes::Poly1305Aes::with_features(&keys[i], &nonces[i], f);
            m.update(&msgs[i]);
            m.finalize()
        }
    };
    poly1305aes::authenticate_many_with(&items, &mut batch, features).map_err(|e| e.to_string())?;
    for (i, t) in single.iter_mut().enumerate() {
        *t = one(i);
    }
    if batch != single {
        return Err("batch: authenticate_many and authenticate disagree".into());
    }
    let (mut tb, mut ts) = (Vec::with_capacity(reps), Vec::with_capacity(reps));
    for _ in 0..reps {
        let t0 = tsc::now();
        poly1305aes::authenticate_many_with(std::hint::black_box(&items), &mut batch, features)
            .map_err(|e| e.to_string())?;
        let t1 = tsc::now();
        for (i, t) in single.iter_mut().enumerate() {
            *t = one(std::hint::black_box(i));
        }
        let t2 = tsc::now();
        std::hint::black_box((&batch, &single));
        tb.push((t1 - t0) as f64 / ITEMS as f64);
        ts.push((t2 - t1) as f64 / ITEMS as f64);
    }
    Ok(Figures { batch: median(tb), single: median(ts) })
}
