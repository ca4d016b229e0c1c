//! `wegman seal cwc …` and `wegman open cwc …`: CWC-AES authenticated
//! encryption of one input.
//!
//! `seal` writes the sealed format of docs/sealed-format.md (the store's
//! `sealed.rs`): a 30-byte header naming the format version, the algorithm,
//! the key (by its key id), the tag length and the nonce, then ciphertext
//! || tag; the header is authenticated, as the start of the associated
//! data. `open` takes the tag length and the nonce from the header, and
//! refuses (exit 2, nothing written) a header of another version, another
//! algorithm or another key, a truncated one, a `--tag-len` or
//! `--nonce-hex` that disagrees with it, and an input without one unless
//! `--headerless` is given: `seal --headerless` writes, and `open
//! --headerless` reads, the format of before the header (ciphertext || tag,
//! the tag length and for a key without a store the nonce given by flags).
//!
//! `open` writes the plaintext and exits 0,
//! or exits 1 and writes nothing at all when the tag is wrong: output goes
//! to a private hidden file beside the destination (removed on SIGINT,
//! SIGTERM and SIGHUP too), or for standard output to an anonymous temporary
//! file, and is renamed or copied only after the tag verified. A regular
//! file is read twice — once to verify, once to decrypt — and the second
//! pass must hash to the same value as the first; standard input, pipes,
//! FIFOs and devices are read once into memory.
//!
//! **Nonces.** A key made by `wegman keygen --alg cwc-aes-128|192|256` has a
//! nonce store beside it (`KEY.nonce`, as for the MACs): `seal` takes each
//! nonce from it and writes it in the header (`--headerless`: at the front
//! of its output, nonce ‖ ciphertext ‖ tag), `open` reads it from there,
//! and `--nonce-hex` is refused for such a key. With a key given any other
//! way (`--key-hex`, a bare hex key file, an `alg cwc` key file) the caller
//! owns nonce uniqueness: `seal` requires `--nonce-hex` (and writes it in
//! the header; `open` needs it only with `--headerless`) and nothing
//! detects a repeat, which under CWC reveals the XOR of the two plaintexts.
//!
//! `-o FILE` renames the finished output onto FILE, which would replace
//! whatever is there: so FILE must be a regular file or not exist. A FIFO,
//! device, socket, directory or symbolic link (e.g. `/dev/stdout`) is
//! refused before any work; write to standard output and redirect instead.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::num::NonZeroUsize;
use std::path::{Path, PathBuf};

use clap::{Args, ValueEnum};
use wegman::cwc::{CwcKey, NONCE_BYTES};
use wegman_store::nonce::{KeyBinding, NonceStore, state_path_for_key};
use zeroize::Zeroizing;

use wegman_store::sealed::{HEADER_BYTES, Header, HeaderError, KeyIdent};
use wegman_store::{cwc, hex, input, keyfile};

use crate::staged::{Staged, check_destination};

const CHUNK: usize = 1 << 16;

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum AeadAlg {
    /// CWC-AES-128/192/256 (Kohno, Viega, Whiting): key of 16, 24 or 32 bytes, 11-byte nonce.
    Cwc,
}

#[derive(Args)]
pub struct AeadArgs {
    /// Algorithm.
    alg: AeadAlg,
    /// The AES key as 32, 48 or 64 hex digits. UNSAFE for real secrets: argv
    /// is visible to other users and lands in shell history.
    #[arg(long, value_name = "HEX", required_unless_present = "key_file", conflicts_with = "key_file")]
    key_hex: Option<String>,
    /// Read the key from a key file (wegman format, or just the hex key).
    #[arg(long, value_name = "PATH")]
    key_file: Option<PathBuf>,
    /// The 11-byte nonce as 22 hex digits, for a key without a nonce store
    /// (`--key-hex`, a bare key file): YOU must never reuse a nonce with one
    /// key, nothing checks it. open: not needed (the header has the nonce;
    /// if given, it must agree) unless --headerless. Refused for a `keygen
    /// --alg cwc-aes-N` key, whose nonces come from its store and travel in
    /// the header.
    #[arg(long, value_name = "HEX")]
    nonce_hex: Option<String>,
    /// Associated data (authenticated, not encrypted), as hex.
    #[arg(long, value_name = "HEX", conflicts_with = "aad_file")]
    aad_hex: Option<String>,
    /// Read the associated data from a file.
    #[arg(long, value_name = "FILE")]
    aad_file: Option<PathBuf>,
    /// Tag length in bytes, 1 to 16. seal: default 16, recorded in the
    /// header. open: the header's; if given, it must agree (with
    /// --headerless: default 16, as the file cannot say).
    #[arg(long, value_name = "N")]
    tag_len: Option<usize>,
    /// seal: write ciphertext || tag (nonce || ciphertext || tag for a key
    /// with a nonce store) without the header, as wegman did before the
    /// header (docs/sealed-format.md). open: read such a file; the tag
    /// length (--tag-len) and the nonce are then the caller's to give.
    #[arg(long)]
    headerless: bool,
    /// Where to write the result (default, or `-`: standard output).
    #[arg(short = 'o', long = "output", value_name = "OUT")]
    output: Option<PathBuf>,
    /// Threads that read a large input at once (a regular file of 8 MiB or
    /// more); the output is the same for any number. Default: one per core.
    #[arg(long, value_name = "N")]
    threads: Option<NonZeroUsize>,
    /// Input file; `-` or nothing reads standard input.
    #[arg(value_name = "FILE")]
    file: Option<PathBuf>,
}

struct Inputs {
    key: CwcKey,
    /// The key's algorithm and id, as a header names them.
    ident: KeyIdent,
    /// The explicit nonce, or `None` for a key with a store (`seal` takes
    /// one from it, `open` reads it from the input).
    nonce: Option<[u8; NONCE_BYTES]>,
    /// The key file and its binding, for a key with a store.
    store: Option<(PathBuf, KeyBinding)>,
    aad: Vec<u8>,
    /// `--tag-len`, if given.
    tag_len: Option<usize>,
    input: PathBuf,
}

/// Whether the command writes (`seal`) or reads (`open`) a sealed file.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Op {
    Seal,
    Open,
}

fn inputs(a: &AeadArgs, op: Op) -> Result<Inputs, String> {
    let AeadAlg::Cwc = a.alg;
    let (key, ident, store) = match (&a.key_hex, &a.key_file) {
        (Some(digits), None) => {
            let bytes = hex::decode_secret("key", digits.trim_ascii().as_bytes())?;
            (CwcKey::new(&bytes).map_err(|e| e.to_string())?, KeyIdent::of(&bytes)?, None)
        }
        (None, Some(path)) => {
            let material = keyfile::read_material(path)?;
            let (key, binding) = cwc::key_of(path, &material)?;
            (key, KeyIdent::of(&material.bytes)?, binding.map(|b| (path.clone(), b)))
        }
        _ => return Err("give exactly one of --key-hex and --key-file".into()),
    };
    let nonce = match (&a.nonce_hex, &store) {
        (Some(_), Some((path, _))) => {
            return Err(format!(
                "{}: this key's nonces come from its nonce store (and travel in the sealed output): \
                 --nonce-hex is refused",
                path.display()
            ));
        }
        (Some(h), None) => Some(hex::decode::<NONCE_BYTES>("nonce", h)?),
        (None, Some(_)) => None,
        // opening a file with a header: the nonce is the header's
        (None, None) if op == Op::Open && !a.headerless => None,
        (None, None) => {
            return Err("--nonce-hex is required for a key without a nonce store (make one with \
                 `wegman keygen --alg cwc-aes-128`)"
                .into());
        }
    };
    let aad = match (&a.aad_hex, &a.aad_file) {
        (Some(h), _) => hex::decode_vec("associated data", h)?,
        (None, Some(p)) => std::fs::read(p).map_err(|e| format!("{}: {}", p.display(), input::describe(&e)))?,
        (None, None) => Vec::new(),
    };
    if let Some(t) = a.tag_len.filter(|t| !(1..=16).contains(t)) {
        return Err(format!("--tag-len {t}: must be 1 to 16"));
    }
    let input = a.file.clone().unwrap_or_else(|| PathBuf::from("-"));
    Ok(Inputs { key, ident, nonce, store, aad, tag_len: a.tag_len, input })
}

/// A fresh nonce from the key's store: durable before it is returned, never
/// handed out again.
fn nonce_from_store(key_file: &Path, binding: &KeyBinding) -> Result<[u8; NONCE_BYTES], String> {
    let state = state_path_for_key(key_file).map_err(|e| e.to_string())?;
    let mut store = NonceStore::open_noting_waits(&state, binding, &mut |m| crate::out::warn(format_args!("{m}")))
        .map_err(|e| e.to_string())?
        .with_reserve(1);
    let n = cwc::next_nonce(&mut store, key_file)?;
    store.close().map_err(|e| e.to_string())?;
    Ok(n)
}

fn read_chunk(r: &mut dyn Read, buf: &mut [u8]) -> io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match r.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

/// Feed the next `len` bytes of `f` to `body` in pieces of at most `buf.len()`.
fn each_chunk(
    f: &mut File,
    len: u64,
    buf: &mut [u8],
    name: &str,
    mut body: impl FnMut(&mut [u8]) -> Result<(), String>,
) -> Result<(), String> {
    let mut left = len;
    while left > 0 {
        let want = left.min(buf.len() as u64) as usize;
        let n = read_chunk(f, &mut buf[..want]).map_err(|e| format!("{name}: {}", input::describe(&e)))?;
        if n == 0 {
            return Err(format!("{name}: file shrank while reading"));
        }
        body(&mut buf[..n])?;
        left -= n as u64;
    }
    Ok(())
}

pub fn seal(a: &AeadArgs) -> Result<u8, String> {
    check_destination(a.destination())?;
    let inp = inputs(a, Op::Seal)?;
    let name = inp.input.display().to_string();
    let tag_len = inp.tag_len.unwrap_or(16);
    let mut src = input::open(&inp.input).map_err(|e| format!("{name}: {}", input::describe(&e)))?;
    let mut out = Staged::new(a.destination())?;
    let nonce = match (inp.nonce, &inp.store) {
        (Some(n), _) => n,
        // reserved on disk before any byte is encrypted
        (None, Some((path, binding))) => nonce_from_store(path, binding)?,
        (None, None) => unreachable!("inputs() requires a nonce or a store"),
    };
    // What goes before the ciphertext, and the associated data.
    let (front, aad) = if a.headerless {
        let front = if inp.nonce.is_some() { Vec::new() } else { nonce.to_vec() };
        (front, inp.aad.clone())
    } else {
        let header = Header::new(inp.ident, tag_len, nonce)?;
        (header.encode().to_vec(), header.aad(&inp.aad))
    };
    out.write(&front)?;
    let threads = a.threads.unwrap_or_else(input::all_cores);
    if let Some((file, len)) =
        crate::cwc_threads::large_file(&inp.input, threads).map_err(|e| format!("{name}: {}", input::describe(&e)))?
    {
        let io = (&file, len, name.as_str());
        crate::cwc_threads::seal(&inp.key, &nonce, &aad, tag_len, threads, io, &mut out, front.len() as u64)?;
        out.commit()?;
        return Ok(0);
    }
    let mut enc = inp.key.encryptor(&nonce, &aad, tag_len).map_err(|e| e.to_string())?;
    let mut buf = vec![0u8; CHUNK];
    loop {
        let n = read_chunk(&mut *src, &mut buf).map_err(|e| format!("{name}: {}", input::describe(&e)))?;
        if n == 0 {
            break;
        }
        enc.update(&mut buf[..n]).map_err(|e| format!("{name}: {e}"))?;
        out.write(&buf[..n])?;
    }
    let tag = enc.finalize();
    out.write(tag.as_slice())?;
    out.commit()?;
    Ok(0)
}

impl AeadArgs {
    /// `-o FILE`, or `None` for standard output (no `-o`, or `-o -`).
    fn destination(&self) -> Option<&Path> {
        self.output.as_deref().filter(|p| p.as_os_str() != "-")
    }
}

/// How to open an input, from its front (its header, or for a headerless
/// file the flags): where the ciphertext starts, the nonce, the associated
/// data, the tag length.
struct Frame {
    start: u64,
    nonce: [u8; NONCE_BYTES],
    aad: Vec<u8>,
    tag_len: usize,
}

/// How many bytes of the input's front [`frame`] needs.
fn front_bytes(a: &AeadArgs, inp: &Inputs) -> usize {
    match (a.headerless, inp.nonce) {
        (false, _) => HEADER_BYTES,
        (true, None) => NONCE_BYTES,
        (true, Some(_)) => 0,
    }
}

/// The frame of an input whose first bytes are `front` ([`front_bytes`] of
/// them, or fewer if the input is shorter). `Ok(None)`: a headerless input
/// too short to hold its nonce, which fails as a wrong tag would. An error
/// (exit 2, nothing written): a header that is not this key's, or that the
/// flags disagree with, or no header without `--headerless`.
fn frame(a: &AeadArgs, inp: &Inputs, front: &[u8], name: &str) -> Result<Option<Frame>, String> {
    if a.headerless {
        let tag_len = inp.tag_len.unwrap_or(16);
        let aad = inp.aad.clone();
        return Ok(match inp.nonce {
            Some(nonce) => Some(Frame { start: 0, nonce, aad, tag_len }),
            None => {
                front.first_chunk::<NONCE_BYTES>().map(|n| Frame { start: NONCE_BYTES as u64, nonce: *n, aad, tag_len })
            }
        });
    }
    let header = Header::parse(front).map_err(|e| match e {
        HeaderError::NoMagic => format!(
            "{name}: {e}: not a file sealed by wegman, or one sealed with --headerless (open that with \
             --headerless, giving --tag-len and the nonce as when it was sealed)"
        ),
        e => format!("{name}: {e}"),
    })?;
    header.check_key(&inp.ident).map_err(|e| format!("{name}: {e}"))?;
    if let Some(t) = inp.tag_len.filter(|&t| t != header.tag_len) {
        return Err(format!(
            "{name}: --tag-len {t}, but the file's header says its tag is {} bytes (the header decides; \
             leave --tag-len out)",
            header.tag_len
        ));
    }
    if inp.nonce.is_some_and(|n| n != header.nonce) {
        return Err(format!("{name}: --nonce-hex differs from the nonce in the file's header"));
    }
    Ok(Some(Frame {
        start: HEADER_BYTES as u64,
        nonce: header.nonce,
        aad: header.aad(&inp.aad),
        tag_len: header.tag_len,
    }))
}

/// `open` on an input held in memory: one-shot decryption, which releases
/// nothing unless the tag verifies.
fn open_in_memory(a: &AeadArgs, inp: &Inputs, all: &[u8], fail: impl Fn() -> Result<u8, String>) -> Result<u8, String> {
    let name = inp.input.display().to_string();
    let front = &all[..all.len().min(front_bytes(a, inp))];
    let Some(fr) = frame(a, inp, front, &name)? else {
        return fail();
    };
    let Ok(plain) = inp.key.decrypt(&fr.nonce, &fr.aad, &all[fr.start as usize..], fr.tag_len) else {
        return fail();
    };
    let plain = Zeroizing::new(plain);
    let mut out = Staged::new(a.destination())?;
    out.write(&plain)?;
    out.commit()?;
    Ok(0)
}

pub fn open(a: &AeadArgs) -> Result<u8, String> {
    check_destination(a.destination())?;
    let inp = inputs(a, Op::Open)?;
    let name = inp.input.display().to_string();
    let rd = |e: io::Error| format!("{name}: {}", input::describe(&e));
    let fail = || {
        crate::out::warn(format_args!("{name}: authentication FAILED; nothing written"));
        Ok(1)
    };

    // Standard input, a pipe, a FIFO or a device cannot be read twice (and
    // has no length to split the tag off by): hold it in memory.
    let opened = if inp.input.as_os_str() == "-" { None } else { Some(File::open(&inp.input).map_err(rd)?) };
    // The length of a regular file; None for anything that must be held in memory.
    let size = match &opened {
        Some(f) => Some(f.metadata().map_err(rd)?).filter(|m| m.is_file()).map(|m| m.len()),
        None => None,
    };
    let (mut f, total) = match (opened, size) {
        (Some(f), Some(total)) => (f, total),
        (other, _) => {
            let mut all = Zeroizing::new(Vec::new());
            match other {
                Some(mut f) => f.read_to_end(&mut all),
                None => io::stdin().read_to_end(&mut all),
            }
            .map_err(rd)?;
            return open_in_memory(a, &inp, &all, fail);
        }
    };
    // The header (or for a headerless file of a key with a store, the
    // nonce): the input's first bytes, after which `f` is at the ciphertext.
    let mut front = vec![0u8; front_bytes(a, &inp)];
    let got = read_chunk(&mut f, &mut front).map_err(rd)?;
    let Some(Frame { start, nonce, aad, tag_len }) = frame(a, &inp, &front[..got], &name)? else {
        return fail();
    };
    let Some(body) = total.checked_sub(start + tag_len as u64) else {
        return fail();
    };
    let threads = a.threads.unwrap_or_else(input::all_cores);
    if threads.get() > 1 && body >= input::PARALLEL_MIN_BYTES {
        let mut tag = vec![0u8; tag_len];
        {
            use std::os::unix::fs::FileExt;
            f.read_exact_at(&mut tag, start + body).map_err(|_| format!("{name}: file shrank while reading"))?;
        }
        let out = Staged::new(a.destination())?;
        let io = (&f, start, body, name.as_str());
        if !crate::cwc_threads::open(&inp.key, &nonce, &aad, &tag, threads, io, &out)? {
            return fail();
        }
        out.commit()?;
        return Ok(0);
    }
    // Pass 1: verify. Nothing is written.
    let mut ver = inp.key.verifier(&nonce, &aad, tag_len).map_err(|e| e.to_string())?;
    let mut buf = vec![0u8; CHUNK];
    each_chunk(&mut f, body, &mut buf, &name, |piece| ver.update(piece).map_err(|e| format!("{name}: {e}")))?;
    let mut tag = vec![0u8; tag_len];
    if read_chunk(&mut f, &mut tag).map_err(rd)? != tag_len {
        return Err(format!("{name}: file shrank while reading"));
    }
    let Ok(mut dec) = ver.verify(&tag) else {
        return fail();
    };
    // Pass 2: decrypt into the private staging file.
    let mut out = Staged::new(a.destination())?;
    f.seek(SeekFrom::Start(start)).map_err(rd)?;
    each_chunk(&mut f, body, &mut buf, &name, |piece| {
        dec.update(piece).map_err(|e| e.to_string())?;
        out.write(piece)
    })?;
    if dec.finish().is_err() {
        crate::out::warn(format_args!("{name}: input changed between verification and decryption; nothing written"));
        return Ok(1);
    }
    buf.iter_mut().for_each(|b| *b = 0);
    out.commit()?;
    Ok(0)
}
