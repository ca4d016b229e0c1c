//! The chain of generations: reading the current one, publishing the next
//! (a reservation or a give-back), sealing the base and cleaning. The
//! argument for why this never hands out a nonce twice is in the module
//! documentation of [`super`].

use std::path::Path;

use super::files::{self, FileRead, gen_path};
use super::format::{self, Base, GenRecord, Refusal};
use super::fs::Fs;
use super::{KeyBinding, NonceError, RESERVING, io_err, update_err, with_suffix};

/// How far above a version-2 base's safe nonce the generations continue.
/// An older wegman (before generations) reserves by reading the base and
/// renaming a new one over it, `n < 2^64` nonces at a time (its reserve
/// count was a `u64`); nothing a newer writer does can stop one that read
/// the base before the newer one sealed it from renaming its own over the
/// seal and using what it reserved. So a newer writer that finds a
/// version-2 base (migrating it, or beside generations where an old writer
/// put it back) continues 2^64 above its safe nonce, out of that writer's
/// reach, and seals the base again.
pub(super) const OLD_WRITER_GAP: u128 = 1 << 64;

/// How often reading the current generation starts again when a file it
/// read disappeared meanwhile, and how often a writer retries after losing
/// the race for a generation, before giving up with a conflict.
const ATTEMPTS: usize = 10_000;

/// The refusal of a state file, as the error the store reports.
pub(super) fn refused(path: &Path, r: Refusal, key: &KeyBinding) -> NonceError {
    match r {
        Refusal::Corrupt(why) => NonceError::Corrupt { path: path.to_path_buf(), why },
        Refusal::WrongKey(found) => NonceError::WrongKey { path: path.to_path_buf(), found, expected: key.id },
        Refusal::Unbound => NonceError::Unbound(path.to_path_buf()),
    }
}

/// A sealed base without a generation file beside it.
pub(super) fn missing_gens(base: &Path) -> NonceError {
    NonceError::Missing(with_suffix(base, ".<generation>"))
}

fn read_text(fs: &impl Fs, path: &Path) -> Result<Option<String>, NonceError> {
    match files::read_file(fs, path).map_err(io_err("reading", path))? {
        FileRead::Text(t) => Ok(Some(t)),
        FileRead::NotFound => Ok(None),
        FileRead::NotAFile(why) => Err(NonceError::Corrupt { path: path.to_path_buf(), why }),
        FileRead::NotText => Err(NonceError::Corrupt { path: path.to_path_buf(), why: "not text" }),
    }
}

/// The base `KEY.nonce`, checked.
pub(super) fn read_base(fs: &impl Fs, base: &Path, key: &KeyBinding) -> Result<Base, NonceError> {
    let text = read_text(fs, base)?.ok_or_else(|| NonceError::Missing(base.to_path_buf()))?;
    format::decode_base(key, &text).map_err(|r| refused(base, r, key))
}

/// Generation `gen`, checked, or `None` if no file has that name.
fn read_gen(fs: &impl Fs, base: &Path, key: &KeyBinding, generation: u64) -> Result<Option<GenRecord>, NonceError> {
    let path = gen_path(base, generation);
    let Some(text) = read_text(fs, &path)? else { return Ok(None) };
    let r = format::decode_gen(key, &text).map_err(|r| refused(&path, r, key))?;
    if r.generation != generation {
        return Err(NonceError::Corrupt { path, why: "its generation does not match its name" });
    }
    Ok(Some(r))
}

/// What a new generation is based on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Current {
    /// The unsealed (v2) base, generation 0.
    Base(u128),
    /// A generation file.
    Gen(GenRecord),
}

impl Current {
    pub(super) fn generation(&self) -> u64 {
        match self {
            Current::Base(_) => 0,
            Current::Gen(r) => r.generation,
        }
    }

    pub(super) fn safe(&self) -> u128 {
        match self {
            Current::Base(s) => *s,
            Current::Gen(r) => r.safe,
        }
    }
}

/// Is the exact file `cur` was read from still there?
fn still_present(fs: &impl Fs, base: &Path, key: &KeyBinding, cur: &Current) -> Result<bool, NonceError> {
    match cur {
        Current::Base(safe) => Ok(read_base(fs, base, key)? == Base::V2(*safe)),
        Current::Gen(r) => Ok(read_gen(fs, base, key, r.generation)?.is_some_and(|now| now == *r)),
    }
}

/// The current generation: the highest present. Lists the directory,
/// probes upwards until a name is absent, and checks that the file read is
/// still there (else starts again).
pub(super) fn read_current(fs: &impl Fs, base: &Path, key: &KeyBinding) -> Result<Current, NonceError> {
    read_current_with(fs, base, key, false)
}

/// [`read_current`]; with `v1_as_sealed`, an unbound (v1) base counts as a
/// sealed one (for `adopt`, which binds it).
pub(super) fn read_current_with(
    fs: &impl Fs,
    base: &Path,
    key: &KeyBinding,
    v1_as_sealed: bool,
) -> Result<Current, NonceError> {
    let mut sealed_without_gens = 0;
    'again: for _ in 0..ATTEMPTS {
        let b = match read_base(fs, base, key) {
            Err(NonceError::Unbound(_)) if v1_as_sealed => Base::Sealed,
            other => other?,
        };
        let listed = files::list_gens(fs, base).map_err(io_err("listing the directory of", base))?;
        let mut generation = listed.last().copied().unwrap_or(0);
        let mut found = None;
        loop {
            if generation > 0 {
                match read_gen(fs, base, key, generation)? {
                    Some(r) => found = Some(r),
                    None => continue 'again,
                }
            }
            let Some(next) = generation.checked_add(1) else { break };
            if files::exists(fs, &gen_path(base, next)).map_err(io_err("reading", &gen_path(base, next)))? {
                generation = next;
            } else {
                break;
            }
        }
        let cur = match (found, b) {
            (Some(r), _) => Current::Gen(r),
            (None, Base::V2(safe)) => Current::Base(safe),
            (None, Base::Sealed) => {
                sealed_without_gens += 1;
                if sealed_without_gens >= 3 {
                    return Err(missing_gens(base));
                }
                continue;
            }
        };
        if !still_present(fs, base, key, &cur)? {
            continue;
        }
        // Only a file that is still the highest after it was read is
        // current: a listing begun now sees the highest name ever linked
        // (it is never removed). The listing above may be stale, and the
        // probe can then stop at a name cleaning freed just below a file
        // that never stood (a void publication that a stopped writer linked
        // into a recycled name): building on that would reuse its range.
        let now = files::list_gens(fs, base).map_err(io_err("listing the directory of", base))?;
        if now.last().is_none_or(|&top| top <= cur.generation()) {
            return Ok(cur);
        }
    }
    Err(conflict(base, "its generation files changed on every read"))
}

fn conflict(base: &Path, why: &str) -> NonceError {
    NonceError::Conflict { path: base.to_path_buf(), why: why.to_string() }
}

/// A published generation this store made: its number and random id.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Own {
    pub generation: u64,
    pub writer: [u8; 16],
}

/// How an attempt to publish the generation after `cur` ended.
pub(super) enum Published {
    /// It is published and its parent was still there after the link: it
    /// stands.
    Stands(Own),
    /// Another writer got there first, or the claim is void (its parent
    /// was removed meanwhile): nothing of it may be used.
    Lost,
}

/// Publish generation `cur.gen() + 1` with safe nonce `safe` (step 1 to 4
/// of a reservation); seal the base if `cur` is the base, then clean.
pub(super) fn publish_after(
    fs: &impl Fs,
    base: &Path,
    key: &KeyBinding,
    cur: &Current,
    safe: u128,
    during: &'static str,
) -> Result<Published, NonceError> {
    let generation = cur.generation().checked_add(1).ok_or(NonceError::Exhausted)?;
    let writer = files::random16().map_err(|e| update_err(during)(("choosing an id for", base.to_path_buf(), e)))?;
    let rec = GenRecord { generation, safe, writer };
    if !files::publish(fs, base, &gen_path(base, generation), &format::encode_gen(key, &rec))
        .map_err(update_err(during))?
    {
        return Ok(Published::Lost);
    }
    if !still_present(fs, base, key, cur)? {
        // Void: left for the cleaners. It may be the highest generation
        // (an older writer's base replaced the one it was based on), so
        // every reservation starts above a version-2 base's safe nonce by
        // OLD_WRITER_GAP, and this one's range is never used.
        return Ok(Published::Lost);
    }
    // Seal the base if it is version 2: the one this was based on, or one
    // an older writer put back meanwhile.
    seal(fs, base, key, during)?;
    clean(fs, base, key, generation);
    Ok(Published::Stands(Own { generation, writer }))
}

/// Replace an unsealed base by the sealed one (content that never changes).
pub(super) fn seal(fs: &impl Fs, base: &Path, key: &KeyBinding, during: &'static str) -> Result<(), NonceError> {
    match read_base(fs, base, key) {
        Ok(Base::Sealed) => Ok(()),
        Ok(Base::V2(_)) | Err(NonceError::Unbound(_)) => {
            files::replace(fs, base, base, &format::encode_sealed(key)).map_err(update_err(during))
        }
        Err(e) => Err(e),
    }
}

/// Remove the generations below `own - 1`, in increasing order from the
/// lowest listed, sealing the base first. Best effort: a failure leaves
/// files behind, never a wrong state.
fn clean(fs: &impl Fs, base: &Path, key: &KeyBinding, own: u64) {
    let Some(top) = own.checked_sub(2) else { return };
    let Ok(listed) = files::list_gens(fs, base) else { return };
    let Some(&low) = listed.first() else { return };
    if low > top || seal(fs, base, key, RESERVING).is_err() {
        return;
    }
    files::remove_dead_temps(fs, base);
    for g in low..=top {
        match fs.remove_file(&gen_path(base, g)) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(_) => return,
        }
    }
}

/// A reservation of `n` nonces: the range `[first, limit)` and the
/// generation that shows it reserved.
#[derive(Clone, Copy, Debug)]
pub(super) struct Claim {
    pub first: u128,
    pub limit: u128,
    pub own: Own,
}

/// Reserve `n` (at least 1) nonces: read the current generation, publish
/// the next one, retry on a lost race.
pub(super) fn reserve(fs: &impl Fs, base: &Path, key: &KeyBinding, n: u64) -> Result<Claim, NonceError> {
    for _ in 0..ATTEMPTS {
        let cur = read_current(fs, base, key)?;
        let mut first = cur.safe();
        if let Base::V2(old) = read_base(fs, base, key)? {
            // A version-2 base: migrated now, or written back by an older
            // wegman beside the generations (see OLD_WRITER_GAP).
            first = first.max(old.saturating_add(OLD_WRITER_GAP));
        }
        if first == u128::MAX {
            return Err(NonceError::Exhausted);
        }
        let limit = first.saturating_add(u128::from(n.max(1)));
        if let Published::Stands(own) = publish_after(fs, base, key, &cur, limit, RESERVING)? {
            return Ok(Claim { first, limit, own });
        }
    }
    Err(conflict(base, "other writers won every attempt to reserve"))
}
