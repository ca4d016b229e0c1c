//! What a checked incremental edit costs: a 1 GiB message's state built on
//! every core, then 4 KiB edits at random offsets, each `replace` (which
//! reads and checks the 64 KiB runs it touches) and `tag`, timed one by one;
//! the median and the largest, in microseconds, beside a one-thread tag of
//! the whole message. Also the state's size serialized.
//!
//! `cargo run --release -p wegman --example incremental_speed [MiB]`

use std::num::NonZeroUsize;
use std::time::Instant;

use wegman::poly1305aes::{Incremental, Key, authenticate};

fn main() {
    let mib: usize = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(1024);
    let len = mib << 20;
    let key = Key::from_bytes_clamped(&[0x5a; 32]);
    let mut message: Vec<u8> = (0..len).map(|i| (i as u64).wrapping_mul(0x9e37_79b9) as u8).collect();
    let threads = std::thread::available_parallelism().unwrap_or(NonZeroUsize::MIN);
    let t = Instant::now();
    let mut kept = Incremental::new_parallel(&key, &message, threads);
    let built = t.elapsed();
    let t = Instant::now();
    let whole = authenticate(&key, &[1; 16], &message);
    let one_thread = t.elapsed();
    assert_eq!(kept.tag(&[1; 16]), whole);
    let mut seed = 0x2026_1128_u64;
    let mut next = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let mut times = Vec::new();
    let new = [0xa5u8; 4096];
    for i in 0..101u32 {
        let offset = (next() % (len as u64 - 4096)) as usize;
        let nonce = {
            let mut n = [0u8; 16];
            n[..4].copy_from_slice(&i.to_le_bytes());
            n
        };
        let t = Instant::now();
        kept.replace(&message, offset as u64, &new).expect("the message is the state's");
        let tag = kept.tag(&nonce);
        times.push(t.elapsed().as_secs_f64() * 1e6);
        message[offset..offset + 4096].copy_from_slice(&new);
        std::hint::black_box(tag);
    }
    assert_eq!(kept.tag(&[2; 16]), authenticate(&key, &[2; 16], &message));
    times.sort_by(f64::total_cmp);
    println!("message {mib} MiB, {} threads: state built in {built:.2?}; one-thread tag {one_thread:.2?}", threads);
    println!(
        "4 KiB edit (replace, reading and checking its runs, + tag), 101 edits: median {:.1} µs, max {:.1} µs",
        times[50], times[100]
    );
    println!(
        "state serialized: {} bytes ({} runs of {} bytes)",
        kept.to_secret_bytes().len(),
        (len / 16).div_ceil(Incremental::RUN_BYTES / 16),
        Incremental::RUN_BYTES
    );
}
