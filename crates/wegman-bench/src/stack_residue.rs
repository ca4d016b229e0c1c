//! How many copies of key material (AES round keys, CWC's Kh, Poly1305's r)
//! a call leaves in dead stack frames (docs/security.md, "Key material in
//! dead stack frames"). A measurement, not a test: the library wipes every
//! key it holds when the key drops, but the moves that build a key by
//! value, and the calls that expand a key for one message, leave copies in
//! frames that have returned, which nothing wipes.
//!
//! For each case an `#[inline(never)]` function runs the call (and drops
//! what it made) under the AES-128 key 07 × 16; then, with no call in
//! between, the 16 KiB below the stack pointer (where that function's
//! frame and its callees' were) are copied out and searched for round keys
//! 1 to 10 of that key, computed here from FIPS-197 §5.2 independently of
//! the library. Round key 0 is the key itself, which the caller holds
//! anyway, so it is not counted. Also counted: CWC's hash key Kh (from the
//! reference model `wegman_ref::cwc`, either byte order) and Poly1305's r,
//! whose key is read from static memory so that no case's frame holds it
//! unless the library copied it. The schedule is checked against FIPS-197
//! Appendix A.1 first, and a control case stores the schedule in a local
//! array and returns: if either check fails, the program exits 1.
//!
//!   cargo run --release -p wegman-bench --bin wegman-stack-residue
//!   WEGMAN_CPU=portable cargo run ...     (each tier the CPU allows)

use std::hint::black_box;

use wegman::cwc::CwcKey;
use wegman::mmh::{Alg, MacKey};
use wegman::poly1305aes::{ExpandedKey, Key};

/// The AES-128 key every case uses.
const AES_KEY: [u8; 16] = [7; 16];
/// Bytes of dead stack searched.
const SCAN: usize = 16384;

/// The AES S-box from its definition (the multiplicative inverse in
/// GF(2^8) and the affine map), not from a table.
fn sbox() -> [u8; 256] {
    let mul = |mut a: u8, mut b: u8| {
        let mut p = 0u8;
        while b != 0 {
            if b & 1 != 0 {
                p ^= a;
            }
            a = (a << 1) ^ if a & 0x80 != 0 { 0x1b } else { 0 };
            b >>= 1;
        }
        p
    };
    let mut s = [0u8; 256];
    for (x, out) in s.iter_mut().enumerate() {
        let inv = (1..=255u8).find(|&y| mul(x as u8, y) == 1).unwrap_or(0);
        *out = inv ^ inv.rotate_left(1) ^ inv.rotate_left(2) ^ inv.rotate_left(3) ^ inv.rotate_left(4) ^ 0x63;
    }
    s
}

/// Round keys 0..=10 of an AES-128 key (FIPS-197 §5.2).
fn schedule(key: &[u8; 16]) -> [[u8; 16]; 11] {
    let s = sbox();
    let mut w = [[0u8; 4]; 44];
    for (i, word) in w.iter_mut().take(4).enumerate() {
        word.copy_from_slice(&key[4 * i..4 * i + 4]);
    }
    let mut rcon = 1u8;
    for i in 4..44 {
        let mut t = w[i - 1];
        if i % 4 == 0 {
            t = [s[t[1] as usize] ^ rcon, s[t[2] as usize], s[t[3] as usize], s[t[0] as usize]];
            rcon = (rcon << 1) ^ if rcon & 0x80 != 0 { 0x1b } else { 0 };
        }
        w[i] = core::array::from_fn(|j| w[i - 4][j] ^ t[j]);
    }
    core::array::from_fn(|r| core::array::from_fn(|j| w[4 * r + j / 4][j % 4]))
}

/// The control: the schedule in a local array of a frame that returns.
#[inline(never)]
fn control() {
    let rk = schedule(&AES_KEY);
    black_box(&rk);
}

#[inline(never)]
fn cwc_key() {
    let key = CwcKey::new(&AES_KEY).expect("16 bytes");
    black_box(&key);
}

#[inline(never)]
fn cwc_one_shot() {
    let key = CwcKey::new(&AES_KEY).expect("16 bytes");
    black_box(key.encrypt(&[1; 11], &[], &[0x5a; 64], 16).expect("short"));
}

/// The Poly1305-AES key k || r, in static memory: a case's frame then holds
/// no copy of r unless the library made one. r = 0c × 16 is valid as it is
/// (clamping changes nothing), so the key holds these very bytes.
static KR: [u8; 32] =
    [7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12];

fn poly_key() -> Key {
    Key::from_bytes_clamped(&KR)
}

#[inline(never)]
fn poly1305aes_one_shot() {
    let key = poly_key();
    black_box(wegman::poly1305aes::authenticate(&key, &[1; 16], &[0x5a; 64]));
}

#[inline(never)]
fn poly1305aes_expanded_key() {
    let key = poly_key();
    let expanded = ExpandedKey::new(&key);
    black_box(expanded.authenticate(&[1; 16], &[0x5a; 64]));
}

#[inline(never)]
fn mmh_mac_key() {
    let mut raw = [9u8; 32];
    raw[..16].copy_from_slice(&AES_KEY);
    let key = MacKey::new(Alg::Mmh32x4, &raw);
    black_box(key.mac(&[1; 16], &[0x5a; 64]).expect("short"));
}

/// For each marker (a set of 16-byte patterns), how many times its patterns
/// occur in the `SCAN` bytes below the stack pointer right after `case`
/// returns.
fn residue(case: fn(), markers: &[Vec<[u8; 16]>]) -> Vec<usize> {
    let mut dead = vec![0u8; SCAN];
    // Allocated before the case, so that nothing is called between the
    // case's return and the copy; and the region zeroed first, so that
    // what an earlier case (or the schedule above) left is not counted.
    black_box(&mut dead);
    zero_below_stack_pointer(SCAN);
    case();
    copy_below_stack_pointer(&mut dead);
    let count = |p: &[u8; 16]| dead.windows(16).filter(|w| *w == p.as_slice()).count();
    markers.iter().map(|m| m.iter().map(count).sum()).collect()
}

/// Zero the `len` bytes below the stack pointer.
#[inline(always)]
fn zero_below_stack_pointer(len: usize) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: writes `len` bytes below the stack pointer: dead frames of
    // this thread's mapped stack (see `copy_below_stack_pointer`), which no
    // live value occupies (this function calls nothing and the frames that
    // call it are above the stack pointer; x86-64 code that calls other
    // functions keeps nothing in the red zone).
    unsafe {
        core::arch::asm!(
            "mov rdi, rsp",
            "sub rdi, rcx",
            "xor eax, eax",
            "rep stosb",
            inout("rcx") len => _,
            out("rdi") _,
            out("rax") _,
        );
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = len;
}

/// Copy the `dead.len()` bytes below the stack pointer into `dead`.
#[inline(always)]
fn copy_below_stack_pointer(dead: &mut [u8]) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: reads `dead.len()` bytes below the stack pointer, which lie in
    // this thread's mapped stack (the main thread's is megabytes; 16 KiB
    // below the current frame is touched by any call that deep, and the
    // guard page is far below), and writes `dead`, which is that long;
    // `rep movsb` with the direction flag clear (the ABI's state), no call.
    unsafe {
        core::arch::asm!(
            "mov rsi, rsp",
            "sub rsi, rcx",
            "rep movsb",
            inout("rdi") dead.as_mut_ptr() => _,
            inout("rcx") dead.len() => _,
            out("rsi") _,
        );
    }
    #[cfg(not(target_arch = "x86_64"))]
    dead.fill(0);
}

fn main() {
    // The schedule first: FIPS-197 Appendix A.1's last round key.
    let a1 =
        schedule(&[0x2b, 0x7e, 0x15, 0x16, 0x28, 0xae, 0xd2, 0xa6, 0xab, 0xf7, 0x15, 0x88, 0x09, 0xcf, 0x4f, 0x3c]);
    let want = [0xd0, 0x14, 0xf9, 0xa8, 0xc9, 0xee, 0x25, 0x89, 0xe1, 0x3f, 0x0c, 0xc8, 0xb6, 0x63, 0x0c, 0xa6];
    if a1[10] != want {
        eprintln!("this program's key schedule does not match FIPS-197 Appendix A.1");
        std::process::exit(1);
    }
    let rk = schedule(&AES_KEY);
    // CWC's hash key from the reference model (as tests/zeroize_heap takes
    // it), in either byte order.
    let be = wegman_ref::cwc::hash_key(&AES_KEY).to_bytes_be();
    let mut kh = [0u8; 16];
    kh[16 - be.len()..].copy_from_slice(&be);
    let kh = u128::from_be_bytes(kh);
    let r: [u8; 16] = KR[16..].try_into().expect("16 bytes");
    let markers = [rk[1..].to_vec(), vec![kh.to_be_bytes(), kh.to_le_bytes()], vec![r]];
    println!(
        "{}; wegman tier {}",
        std::fs::read_to_string("/proc/cpuinfo")
            .ok()
            .and_then(|c| c.lines().find(|l| l.starts_with("model name")).map(|l| l.to_string()))
            .unwrap_or_default(),
        wegman::cpu::Features::detect().tier()
    );
    println!("16-byte copies in the {SCAN} bytes of dead stack after each call (AES key 07 x 16, r 0c x 16):");
    println!("{:<56} {:>9} {:>4} {:>4}", "", "AES rk1-10", "Kh", "r");
    let row = |name: &str, counts: &[usize]| println!("{name:<56} {:>9} {:>4} {:>4}", counts[0], counts[1], counts[2]);
    let control_hits = residue(control, &markers);
    row("control (the schedule in a returned frame's array)", &control_hits);
    if control_hits[0] == 0 {
        eprintln!("the scan did not find the control's copy: it cannot see dead frames here");
        std::process::exit(1);
    }
    let cases: [(&str, fn()); 5] = [
        ("cwc::CwcKey::new, then dropped", cwc_key),
        ("CwcKey::new + encrypt (64 bytes), dropped", cwc_one_shot),
        ("poly1305aes::authenticate (one-shot, 64 bytes)", poly1305aes_one_shot),
        ("poly1305aes::ExpandedKey::new + authenticate, dropped", poly1305aes_expanded_key),
        ("mmh::MacKey::new (kp = the AES key) + mac, dropped", mmh_mac_key),
    ];
    for (name, case) in cases {
        row(name, &residue(case, &markers));
    }
}
