//! Valgrind client requests: how a program under memcheck marks its secrets.
//!
//! Memcheck keeps, for every bit of memory and registers, whether it is
//! *defined*, and reports a conditional jump or a memory address that
//! depends on an undefined bit. Marking a secret undefined therefore turns
//! it into a checker of the constant-time rule; marking an output defined
//! again ("declassifying") says the program may now act on it.
//!
//! The requests are `<valgrind/valgrind.h>`'s amd64 "special instruction"
//! sequence with the request numbers of `<valgrind/memcheck.h>` and
//! `<valgrind/valgrind.h>` (valgrind 3.x). Outside valgrind (and on other
//! targets) every request does nothing and returns its default, so
//! [`running_on_valgrind`] is false there: a harness must refuse to run then,
//! because nothing would be checked.
//!
//! The functions take `&mut` where they change memcheck's view of memory:
//! the compiler then reloads the bytes after the request instead of reusing
//! a copy it read before (which would still be defined).

/// `VG_USERREQ_TOOL_BASE('M','C')`: memcheck's first request.
const MEMCHECK_BASE: u64 = (b'M' as u64) << 24 | (b'C' as u64) << 16;
const MAKE_MEM_UNDEFINED: u64 = MEMCHECK_BASE + 1;
const MAKE_MEM_DEFINED: u64 = MEMCHECK_BASE + 2;
const GET_VBITS: u64 = MEMCHECK_BASE + 8;
const SET_VBITS: u64 = MEMCHECK_BASE + 9;
/// `VG_USERREQ__RUNNING_ON_VALGRIND`.
const RUNNING_ON_VALGRIND: u64 = 0x1001;
/// `VG_USERREQ__COUNT_ERRORS`: errors the tool has reported so far.
const COUNT_ERRORS: u64 = 0x1201;

/// A client request: returns valgrind's answer, or `default` natively.
#[cfg(target_arch = "x86_64")]
fn request(default: u64, request: u64, args: [u64; 5]) -> u64 {
    let block = [request, args[0], args[1], args[2], args[3], args[4]];
    let result;
    // SAFETY: the four rotations of rdi add up to 128 bits, leaving it as it
    // was, and `xchg rbx, rbx` exchanges rbx with itself: natively the
    // sequence changes nothing. Under valgrind it reads the 6-word block at
    // rax (alive for the duration) and may read or write the memory the
    // request names: the public functions below pass only memory their
    // arguments borrow, with its length, and only GET_VBITS writes (to a
    // buffer borrowed mutably). It returns its result in rdx.
    unsafe {
        std::arch::asm!(
            "rol rdi, 3", "rol rdi, 13", "rol rdi, 61", "rol rdi, 51",
            "xchg rbx, rbx",
            in("rax") block.as_ptr(),
            inout("rdx") default => result,
            out("rdi") _,
        );
    }
    result
}

#[cfg(not(target_arch = "x86_64"))]
fn request(default: u64, _request: u64, _args: [u64; 5]) -> u64 {
    default
}

fn addr<T: ?Sized>(p: *const T) -> u64 {
    p.cast::<u8>() as usize as u64
}

/// Whether this process runs under valgrind.
pub fn running_on_valgrind() -> bool {
    request(0, RUNNING_ON_VALGRIND, [0; 5]) != 0
}

/// Mark `bytes` undefined: secret from now on. Their values do not change.
pub fn classify(bytes: &mut [u8]) {
    request(0, MAKE_MEM_UNDEFINED, [addr(bytes.as_ptr()), bytes.len() as u64, 0, 0, 0]);
}

/// Mark `bytes` defined: public from now on (the program may branch on them).
pub fn declassify(bytes: &mut [u8]) {
    request(0, MAKE_MEM_DEFINED, [addr(bytes.as_ptr()), bytes.len() as u64, 0, 0, 0]);
}

/// Mark the whole of `value` defined, padding included: for results such as
/// `Result<(), Error>` whose bytes are not a slice.
pub fn declassify_value<T>(value: &mut T) {
    request(0, MAKE_MEM_DEFINED, [addr(value as *const T), size_of::<T>() as u64, 0, 0, 0]);
}

/// memcheck's validity bits of `bytes`, one byte per byte: a set bit is an
/// undefined bit. Panics outside valgrind.
pub fn vbits(bytes: &[u8]) -> Vec<u8> {
    let mut v = vec![0u8; bytes.len()];
    let ok = request(0, GET_VBITS, [addr(bytes.as_ptr()), addr(v.as_mut_ptr()), bytes.len() as u64, 0, 0]);
    assert_eq!(ok, 1, "VALGRIND_GET_VBITS failed (not under memcheck?)");
    v
}

/// Whether any bit of `bytes` is undefined: an output that carries one
/// really was computed from a secret, so the run that made it tested
/// something.
pub fn carries_undefined_bits(bytes: &[u8]) -> bool {
    vbits(bytes).iter().any(|&v| v != 0)
}

/// Set the validity bits of `bytes` to `vbits` (a set bit: undefined), e.g.
/// to keep the always-zero bits of a Poly1305 r defined while the rest is
/// secret. Panics outside valgrind or if the lengths differ.
pub fn set_vbits(bytes: &mut [u8], vbits: &[u8]) {
    assert_eq!(bytes.len(), vbits.len(), "one validity byte per byte");
    let ok = request(0, SET_VBITS, [addr(bytes.as_ptr()), addr(vbits.as_ptr()), bytes.len() as u64, 0, 0]);
    assert_eq!(ok, 1, "VALGRIND_SET_VBITS failed (not under memcheck?)");
}

/// How many errors valgrind has reported so far (suppressed ones not
/// counted), to attribute them to a part of a run.
pub fn error_count() -> u64 {
    request(0, COUNT_ERRORS, [0; 5])
}
