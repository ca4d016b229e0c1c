//! Heap hygiene: no block this crate frees, or leaves behind by growing it,
//! may still hold key material.
//!
//! The global allocator ([`scan`]) searches every freed block for "needles":
//! 8-byte pieces of values each test derives independently from its key
//! (raw key bytes, MMH level-key words, pads, Poly1305's r, CWC's Kh) and for
//! MMH a tree hash value. Every type that holds such values is made, cloned
//! (mid-message for the streaming ones, with messages long enough to open
//! several tree levels after the clone), used and dropped; the tests assert
//! that no freed block held a needle.
//!
//! What is checked is the heap the library manages itself. The values stay
//! on the stack, and stack copies are out of reach of this test (a stack
//! cannot be searched without undefined behaviour). Boxing them would not
//! help either: moving a struct into a box copies its padding bytes from the
//! stack, and those can hold key words an earlier call left there (a boxed
//! `Mmh` did, in its tail padding, after a `MacKey` expansion), which safe
//! Rust can neither prevent nor wipe.

// The allocator reads freed blocks through inline assembly (see scan.rs).
#![cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]

mod cwc;
mod mmh;
mod poly1305aes;
mod scan;

#[global_allocator]
static ALLOCATOR: scan::Scanner = scan::Scanner;

/// Run `f` while watching for `needles` (name, value) and fail, naming
/// each needle found and in how many freed blocks, if any was.
pub fn assert_no_freed_copies(what: &str, needles: &[(&str, u64)], f: impl FnOnce()) {
    let values: Vec<u64> = needles.iter().map(|&(_, v)| v).collect();
    let watch = scan::Watch::start(&values);
    f();
    let (blocks, hits) = watch.stop();
    let found: Vec<String> =
        needles.iter().zip(&hits).filter(|&(_, &h)| h > 0).map(|((name, _), h)| format!("{name}: {h}")).collect();
    assert_eq!(blocks, 0, "{what}: {blocks} freed blocks held key material (blocks per needle: {})", found.join(", "));
}

/// Little-endian 8 bytes at `at`.
pub fn le8(bytes: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap())
}

/// A message of `len` bytes repeating one pseudo-random 256-byte pattern
/// (so that every MMH block pair, and so every level-1 input, looks alike).
pub fn message(len: usize) -> Vec<u8> {
    let mut pattern = [0u8; 256];
    let mut x = 0x2545_f491_4f6c_dd1du64;
    for b in pattern.iter_mut() {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        *b = (x >> 32) as u8;
    }
    (0..len).map(|i| pattern[i % 256]).collect()
}
