//! The §3 nonce store: uniqueness across reopenings, refusal to guess.

use std::collections::HashSet;

use wegman_store::nonce::{KeyBinding, NonceError, NonceStore, state_path_for_key, state_path_for_new_key};

mod common;
use common::{Op, TestFs};

/// The key material of [`key`] and of [`v2_state_bytes`]'s states.
const MATERIAL: [u8; 32] = [0x5a; 32];

fn key() -> KeyBinding {
    KeyBinding::derive("poly1305aes", &MATERIAL)
}

/// A version-2 state of [`key`] (what earlier versions wrote), made from
/// the format's description by the test kit, not by the store.
fn v2_state_bytes(safe: u128) -> Vec<u8> {
    wegman_testkit::nonce_v2::state_bytes("poly1305aes", &MATERIAL, safe)
}

#[test]
fn nonces_never_repeat_across_close_and_abandon() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("k.nonce");
    NonceStore::create(&state, &key()).unwrap();
    let mut seen = HashSet::new();
    for round in 0..20 {
        let mut s = NonceStore::open(&state, &key()).unwrap().with_reserve(7);
        for _ in 0..(round * 3 + 1) {
            assert!(seen.insert(s.next_nonce().unwrap()), "repeat in round {round}");
        }
        if round % 2 == 0 {
            s.close().unwrap();
        } else {
            drop(s); // a crash after the last reservation: the rest of the block is skipped
        }
    }
    // clean closes give back the unused block: counters stay dense-ish
    let mut s = NonceStore::open(&state, &key()).unwrap();
    let n = u128::from_le_bytes(s.next_nonce().unwrap());
    // 590 used; at most 7 skipped for each of the 10 abandoned rounds
    assert!((590..=660).contains(&n), "{n}");
}

#[test]
fn counter_is_little_endian_reverse_lexicographic() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("k.nonce");
    NonceStore::create(&state, &key()).unwrap();
    let mut s = NonceStore::open(&state, &key()).unwrap();
    let a = s.next_nonce().unwrap();
    let b = s.next_nonce().unwrap();
    assert_eq!(a, [0; 16]);
    let mut one = [0u8; 16];
    one[0] = 1;
    assert_eq!(b, one);
}

#[test]
fn create_refuses_to_overwrite() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("k.nonce");
    NonceStore::create(&state, &key()).unwrap();
    assert!(matches!(NonceStore::create(&state, &key()), Err(NonceError::AlreadyExists(_))));
}

#[test]
fn missing_state_is_an_error_not_zero() {
    let dir = tempfile::tempdir().unwrap();
    let e = NonceStore::open(&dir.path().join("nope.nonce"), &key()).unwrap_err();
    assert!(matches!(e, NonceError::Missing(_)));
    assert!(e.to_string().contains("refusing to guess"), "{e}");
}

#[test]
fn corrupt_state_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("k.nonce");
    NonceStore::create(&state, &key()).unwrap();
    let good = std::fs::read(&state).unwrap();
    let cases: Vec<Vec<u8>> = vec![
        vec![],
        good[..good.len() / 2].to_vec(),
        {
            let mut g = good.clone();
            let i = good.iter().position(|&c| c == b' ').unwrap() + 3;
            g[i] ^= 1;
            g
        },
        vec![0xff, 0xfe, 0x00],
        b"wegman-nonce-state v2\nkey 00\nsafe 00\nmac 00\n".to_vec(),
        // a valid (version-2) state with its safe nonce edited
        String::from_utf8(v2_state_bytes(0)).unwrap().replace("safe 00", "safe 01").into_bytes(),
    ];
    for bad in cases {
        std::fs::write(&state, &bad).unwrap();
        let e = NonceStore::open(&state, &key()).unwrap_err();
        assert!(matches!(e, NonceError::Corrupt { .. }), "{:?} gave {e}", String::from_utf8_lossy(&bad));
    }
    // the same for the current generation file (2: `create` made 1)
    std::fs::write(&state, &good).unwrap();
    let mut s = NonceStore::open(&state, &key()).unwrap().with_reserve(5);
    s.next_nonce().unwrap();
    drop(s);
    let gen1 = dir.path().join("k.nonce.2");
    let good = std::fs::read_to_string(&gen1).unwrap();
    let cases = [
        good.replace("safe 05", "safe 04"),
        good.replace("generation 2", "generation 3"),
        good[..good.len() - 2].to_string(),
        format!("{good}x"),
        String::new(),
    ];
    for bad in cases {
        std::fs::write(&gen1, &bad).unwrap();
        let e = NonceStore::open(&state, &key()).unwrap_err();
        assert!(matches!(e, NonceError::Corrupt { .. }), "{bad:?} gave {e}");
    }
    // a genuine generation file under another name
    std::fs::write(&gen1, &good).unwrap();
    std::fs::rename(&gen1, dir.path().join("k.nonce.3")).unwrap();
    let e = NonceStore::open(&state, &key()).unwrap_err();
    assert!(e.to_string().contains("its generation does not match its name"), "{e}");
    // the sealed base with its generations gone is a missing state
    std::fs::remove_file(dir.path().join("k.nonce.3")).unwrap();
    std::fs::remove_file(dir.path().join("k.nonce.1")).unwrap();
    let e = NonceStore::open(&state, &key()).unwrap_err();
    assert!(matches!(e, NonceError::Missing(_)), "{e}");
}

#[test]
fn the_fuzz_targets_byte_check_agrees_with_open() {
    // `check_state_bytes` is `open` without the file: the fuzz target
    // trusts it only as far as this holds (it checks the same on its inputs).
    use wegman_store::nonce::check_state_bytes;
    // A state as versions before generations left it: the base alone.
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("k.nonce");
    let good = v2_state_bytes(0);
    let mut split_char = vec![b'x'; 4095];
    split_char.extend_from_slice("é".as_bytes()); // the 4096-byte prefix ends inside it
    let cases = [
        good.clone(),
        [&good[..], b"\n"].concat(),
        [&good[..], &[b'x'; 5000][..]].concat(),
        split_char,
        good[..good.len() - 1].to_vec(),
        b"wegman-nonce-state v1\n".to_vec(),
    ];
    for bytes in cases {
        std::fs::write(&state, &bytes).unwrap();
        let by_file = NonceStore::open(&state, &key()).map(|_| ()).map_err(|e| e.to_string());
        let by_bytes = check_state_bytes(&state, &key(), &bytes).map(|_| ()).map_err(|e| e.to_string());
        assert_eq!(by_file, by_bytes, "{:?}", String::from_utf8_lossy(&bytes[..bytes.len().min(80)]));
    }
    assert_eq!(check_state_bytes(&state, &key(), &good).unwrap(), 0);
}

#[test]
fn io_errors_stop_the_store() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("k.nonce");
    NonceStore::create(&state, &key()).unwrap();
    let fs = TestFs::new();
    let mut s = NonceStore::open_with(fs.clone(), &state, &key()).unwrap().with_reserve(2);
    s.next_nonce().unwrap();
    s.next_nonce().unwrap();
    // the next reservation cannot be made durable
    fs.inject_fault(Op::Sync, false);
    let e = s.next_nonce().unwrap_err();
    assert!(matches!(e, NonceError::Update { .. }), "{e}");
    // the message says what the store was doing, at which step, and that no
    // nonce of the failed reservation was used
    let msg = e.to_string();
    assert!(msg.starts_with("reserving nonces failed at syncing the temporary nonce state "), "{msg}");
    assert!(msg.ends_with("; no nonce of this reservation was handed out"), "{msg}");
    // and the store does not hand out the nonce it could not reserve
    assert_eq!(s.next_nonce().unwrap()[0], 2);
    // no temporary file is left behind
    let left: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.contains(".tmp"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

#[test]
fn state_path_is_beside_the_real_key_file() {
    let dir = tempfile::tempdir().unwrap();
    let real = dir.path().canonicalize().unwrap();
    std::fs::write(real.join("k"), "key").unwrap();
    std::os::unix::fs::symlink(real.join("k"), real.join("alias")).unwrap();
    let want = real.join("k.nonce");
    assert_eq!(state_path_for_key(&real.join("k")).unwrap(), want);
    // every name of the key file finds the same state (and the same lock)
    assert_eq!(state_path_for_key(&real.join("alias")).unwrap(), want);
    std::fs::create_dir(real.join("sub")).unwrap();
    assert_eq!(state_path_for_key(&real.join("sub/../k")).unwrap(), want);
    assert!(matches!(state_path_for_key(&real.join("missing")), Err(NonceError::Io { .. })));
    // before the key file exists: the same path it will have
    assert_eq!(state_path_for_new_key(&real.join("sub/../k")).unwrap(), want);
    assert_eq!(state_path_for_new_key(&real.join("sub/../new")).unwrap(), real.join("new.nonce"));
}

#[test]
fn a_symlinked_state_is_refused() {
    // Renaming a new state over a link would replace the link; the file it
    // points to would keep its old value and a second name would repeat nonces.
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("k.nonce");
    NonceStore::create(&state, &key()).unwrap();
    let alias = dir.path().join("alias.nonce");
    std::os::unix::fs::symlink(&state, &alias).unwrap();
    let e = NonceStore::open(&alias, &key()).unwrap_err();
    assert!(matches!(e, NonceError::Symlink(_)), "{e}");
    assert!(e.to_string().contains("symbolic link"), "{e}");
    assert!(matches!(NonceStore::create(&alias, &key()), Err(NonceError::AlreadyExists(_))));
}

#[test]
fn racing_creators_cannot_both_succeed() {
    // A creator that passed an existence check before a racing creator
    // wrote would overwrite a state already in use: the state is created
    // with an exclusive link, so exactly one creator succeeds.
    for _ in 0..20 {
        let dir = tempfile::tempdir().unwrap();
        let state = dir.path().join("k.nonce");
        let results: Vec<_> = (0..6)
            .map(|_| {
                let p = state.clone();
                std::thread::spawn(move || NonceStore::create(&p, &key()))
            })
            .collect::<Vec<_>>()
            .into_iter()
            .map(|t| t.join().unwrap())
            .collect();
        assert_eq!(results.iter().filter(|r| r.is_ok()).count(), 1, "{results:?}");
        assert!(results.iter().all(|r| matches!(r, Ok(()) | Err(NonceError::AlreadyExists(_)))), "{results:?}");
    }
}

#[test]
fn opening_a_state_twice_in_one_process_is_an_error_not_a_deadlock() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("k.nonce");
    NonceStore::create(&state, &key()).unwrap();
    let mut first = NonceStore::open(&state, &key()).unwrap();
    let a = first.next_nonce().unwrap();
    // from another thread, and by another name of the same file
    let other_name = dir.path().join(".").join("k.nonce");
    let t = std::thread::spawn(move || NonceStore::open(&other_name, &key()).map(|_| ()));
    let e = t.join().unwrap().unwrap_err();
    assert!(matches!(e, NonceError::AlreadyOpen(_)), "{e}");
    assert!(e.to_string().contains("already open in this process"), "{e}");
    let b = first.next_nonce().unwrap();
    first.close().unwrap();
    // once closed, it opens again
    let mut again = NonceStore::open(&state, &key()).unwrap();
    let c = again.next_nonce().unwrap();
    assert!(a != b && b != c && a != c);
}

#[cfg(unix)]
#[test]
fn a_symlink_at_the_lock_path_is_refused() {
    // Before: the link was followed and a lock file created where it points.
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("k.nonce");
    NonceStore::create(&state, &key()).unwrap();
    let target = dir.path().join("elsewhere");
    std::os::unix::fs::symlink(&target, dir.path().join("k.nonce.lock")).unwrap();
    let e = NonceStore::open(&state, &key()).unwrap_err();
    assert!(matches!(e, NonceError::LockSymlink(_)), "{e}");
    assert!(e.to_string().contains("is a symbolic link"), "{e}");
    assert!(!target.exists(), "a file was created through the link");
}

/// Every nonce a store hands out, into `seen`; fails on a repeat.
fn take<F: wegman_store::nonce::Fs>(store: &mut NonceStore<F>, n: usize, seen: &mut HashSet<[u8; 16]>) {
    for _ in 0..n {
        let x = store.next_nonce().unwrap();
        assert!(seen.insert(x), "nonce {x:02x?} handed out twice");
    }
}

#[test]
fn a_removed_lock_file_cannot_make_a_nonce_repeat() {
    // The security review's finding 1: A holds the lock, the lock
    // file is deleted, B (here: a writer that takes no lock at all) takes
    // nonces meanwhile. Uniqueness does not depend on the lock.
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("k.nonce");
    NonceStore::create(&state, &key()).unwrap();
    let mut seen = HashSet::new();
    let mut a = NonceStore::open(&state, &key()).unwrap().with_reserve(3);
    take(&mut a, 1, &mut seen);
    std::fs::remove_file(dir.path().join("k.nonce.lock")).unwrap();
    let mut b = NonceStore::open_with(TestFs::unlocked(), &state, &key()).unwrap().with_reserve(3);
    for _ in 0..5 {
        take(&mut a, 2, &mut seen);
        take(&mut b, 2, &mut seen);
    }
    b.close().unwrap();
    // A's generation is no longer the current one: it gives nothing back
    a.close().unwrap();
    let mut c = NonceStore::open(&state, &key()).unwrap();
    take(&mut c, 3, &mut seen);
    let max = seen.iter().map(|n| u128::from_le_bytes(*n)).max().unwrap();
    let next = u128::from_le_bytes(c.next_nonce().unwrap());
    assert!(next > max, "{next} <= {max}");
}

#[test]
fn close_never_moves_the_safe_nonce_backwards() {
    // Another writer moved the state while this store held a valid lock
    // (say, one that ignores locks): no give-back over it.
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("k.nonce");
    NonceStore::create(&state, &key()).unwrap();
    let mut a = NonceStore::open(&state, &key()).unwrap().with_reserve(10);
    assert_eq!(a.next_nonce().unwrap()[0], 0);
    let mut o = NonceStore::open_with(TestFs::unlocked(), &state, &key()).unwrap().with_reserve(50);
    for i in 10..30 {
        assert_eq!(o.next_nonce().unwrap()[0], i);
    }
    o.close().unwrap(); // gives back 30..60
    a.close().unwrap(); // would give back 1..10 over it: must not
    let mut c = NonceStore::open(&state, &key()).unwrap();
    assert_eq!(c.next_nonce().unwrap()[0], 30, "the state moved back");
}

#[test]
fn a_state_of_another_key_is_refused() {
    // The security review's finding 2: `mv a.key b.key` onto a leftover b.key.nonce.
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("k.nonce");
    let b = KeyBinding::derive("poly1305aes", &[0xbb; 32]);
    NonceStore::create(&state, &b).unwrap();
    let e = NonceStore::open(&state, &key()).unwrap_err();
    assert!(matches!(e, NonceError::WrongKey { .. }), "{e}");
    assert!(e.to_string().contains("belongs to another key"), "{e}");
    // the same bytes under another algorithm are another key too
    let e = NonceStore::open(&state, &KeyBinding::derive("mmh32", &[0xbb; 32])).unwrap_err();
    assert!(matches!(e, NonceError::WrongKey { .. }), "{e}");
    // and a key cannot adopt it
    assert!(matches!(NonceStore::adopt(&state, &key()), Err(NonceError::WrongKey { .. })));
}

#[test]
fn an_unbound_v1_state_is_refused_until_adopted() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("k.nonce");
    // what wegman before the binding wrote: safe nonce 5
    std::fs::write(&state, "wegman-nonce-state v1\nsafe 05000000000000000000000000000000\ncrc32 496a60d2\n").unwrap();
    let e = NonceStore::open(&state, &key()).unwrap_err();
    assert!(matches!(e, NonceError::Unbound(_)), "{e}");
    NonceStore::adopt(&state, &key()).unwrap();
    NonceStore::adopt(&state, &key()).unwrap(); // idempotent
    let mut s = NonceStore::open(&state, &key()).unwrap();
    assert_eq!(s.next_nonce().unwrap()[0], 5);
}

#[cfg(unix)]
#[test]
fn state_lock_and_temp_files_are_private_whatever_the_umask() {
    // The security review's finding 8. The umask is process-wide, so this runs in a child.
    use std::os::unix::fs::PermissionsExt;
    if std::env::var_os("WEGMAN_UMASK_CHILD").is_none() {
        let dir = tempfile::tempdir().unwrap();
        let exe = std::env::current_exe().unwrap();
        let st = std::process::Command::new("sh")
            .arg("-c")
            .arg(
                "umask 000 && exec \"$0\" --exact state_lock_and_temp_files_are_private_whatever_the_umask --nocapture",
            )
            .arg(exe)
            .env("WEGMAN_UMASK_CHILD", dir.path())
            .status()
            .unwrap();
        assert!(st.success());
        let mut seen = 0;
        for e in std::fs::read_dir(dir.path()).unwrap() {
            let e = e.unwrap();
            let f = e.file_name().into_string().unwrap();
            if f.starts_with("k.nonce") {
                let mode = e.metadata().unwrap().permissions().mode() & 0o777;
                assert_eq!(mode, 0o600, "{f}");
                seen += 1;
            }
        }
        assert!(seen >= 4, "the base, the lock and two generations: {seen} files");
        return;
    }
    let dir = std::path::PathBuf::from(std::env::var_os("WEGMAN_UMASK_CHILD").unwrap());
    let state = dir.join("k.nonce");
    NonceStore::create(&state, &key()).unwrap();
    let mut s = NonceStore::open(&state, &key()).unwrap();
    s.next_nonce().unwrap();
    s.close().unwrap();
}

#[cfg(unix)]
#[test]
fn a_planted_temp_file_link_is_not_followed() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("k.nonce");
    NonceStore::create(&state, &key()).unwrap();
    let victim = dir.path().join("victim");
    std::fs::write(&victim, "precious").unwrap();
    std::os::unix::fs::symlink(&victim, dir.path().join("k.nonce.tmp")).unwrap();
    let mut s = NonceStore::open(&state, &key()).unwrap();
    s.next_nonce().unwrap();
    s.close().unwrap();
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
}

#[cfg(unix)]
#[test]
fn a_state_that_is_not_a_regular_file_is_refused_at_once() {
    // Opening a FIFO for reading waits for a writer: a FIFO at the state's
    // path used to hang `wegman tag` forever.
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("k.nonce");
    std::fs::create_dir(&state).unwrap();
    let e = NonceStore::open(&state, &key()).unwrap_err();
    assert!(e.to_string().contains("is corrupt (a directory, not a file)"), "{e}");
    std::fs::remove_dir(&state).unwrap();
    assert!(std::process::Command::new("mkfifo").arg(&state).status().unwrap().success());
    let (tx, rx) = std::sync::mpsc::channel();
    let path = state.clone();
    std::thread::spawn(move || tx.send(NonceStore::open(&path, &key()).map(|_| ())));
    let r = rx.recv_timeout(std::time::Duration::from_secs(20)).expect("opening a FIFO state hangs");
    let e = r.unwrap_err();
    assert!(e.to_string().contains("is corrupt (not a regular file)"), "{e}");
}

#[cfg(unix)]
#[test]
fn a_temporary_file_of_a_dead_writer_is_cleaned_up() {
    // A writer killed between creating its temporary file and removing it
    // leaves KEY.nonce.tmp.<pid>.<random>; a later writer removes it once
    // that process is gone, and leaves a live one's alone.
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("k.nonce");
    NonceStore::create(&state, &key()).unwrap();
    let mut child = std::process::Command::new("true").spawn().unwrap();
    let dead = child.id();
    child.wait().unwrap();
    let dead_tmp = dir.path().join(format!("k.nonce.tmp.{dead}.0123456789abcdef"));
    let live_tmp = dir.path().join(format!("k.nonce.tmp.{}.0123456789abcdef", std::process::id()));
    std::fs::write(&dead_tmp, "x").unwrap();
    std::fs::write(&live_tmp, "x").unwrap();
    let mut s = NonceStore::open(&state, &key()).unwrap().with_reserve(1);
    for _ in 0..4 {
        s.next_nonce().unwrap(); // generations 1..4: the cleaner runs
    }
    assert!(!dead_tmp.exists(), "a dead writer's temporary file was left");
    assert!(live_tmp.exists(), "a live writer's temporary file was removed");
}

// The tests below kill mutants that `tools/mutants nonce` found surviving
// (docs/security.md, "Mutation testing"): each checks an output
// no test above looked at.

#[test]
fn a_lease_reports_its_key_first_nonce_and_count() {
    use wegman_store::nonce::{Lease, nonce_bytes};
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("k.nonce");
    NonceStore::create(&state, &key()).unwrap();
    let mut s = NonceStore::open(&state, &key()).unwrap().with_reserve(3);
    for i in 0..3 {
        assert_eq!(s.next_nonce().unwrap(), nonce_bytes(i));
    }
    // the next block, 3..8, is the lease's
    let lease = s.reserve(5).unwrap();
    assert_eq!(lease.key_id(), key().id());
    assert_eq!(lease.first(), nonce_bytes(3));
    assert_eq!(lease.count(), 5);
    let want: Vec<[u8; 16]> = (3..8).map(nonce_bytes).collect();
    assert_eq!(lease.clone().into_nonces().collect::<Vec<_>>(), want);
    // the same from its bytes, as another process sees it
    let there = Lease::from_bytes(&lease.to_bytes(), &key()).unwrap();
    assert_eq!((there.key_id(), there.first(), there.count()), (key().id(), nonce_bytes(3), 5));
    assert_eq!(there.into_nonces().collect::<Vec<_>>(), want);
    // and the store's own next block comes after it
    assert_eq!(s.next_nonce().unwrap(), nonce_bytes(8));
    // its Debug form names the key id and the range (and no authentication code)
    let debug = format!("{lease:?}");
    assert!(debug.starts_with("Lease {"), "{debug}");
    for part in [hex::encode(key().id()), "first: 3".to_string(), "count: 5".to_string()] {
        assert!(debug.contains(&part), "{debug} lacks {part}");
    }
    assert!(!debug.contains("mac"), "{debug}");
}

#[test]
fn a_key_binding_shows_its_id_and_ids_differ_by_key_and_algorithm() {
    let a = key();
    assert_eq!(a.id(), key().id());
    let others = [KeyBinding::derive("poly1305aes", &[0x5b; 32]), KeyBinding::derive("mmh32", &MATERIAL)];
    for b in &others {
        assert_ne!(a.id(), b.id());
    }
    // the id a state of another key names is that key's `id()`
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("k.nonce");
    NonceStore::create(&state, &others[0]).unwrap();
    match NonceStore::open(&state, &a) {
        Err(NonceError::WrongKey { found, expected, .. }) => assert_eq!((found, expected), (others[0].id(), a.id())),
        other => panic!("{other:?}"),
    }
    let debug = format!("{a:?}");
    assert!(debug.starts_with("KeyBinding {") && debug.contains(&hex::encode(a.id())), "{debug}");
}

#[test]
fn errors_from_the_system_keep_their_cause() {
    use std::error::Error;
    let dir = tempfile::tempdir().unwrap();
    // an Io error: its source is the system's error
    let e = state_path_for_key(&dir.path().join("missing")).unwrap_err();
    let cause = e.source().expect("an Io error has a source");
    assert_eq!(cause.downcast_ref::<std::io::Error>().unwrap().kind(), std::io::ErrorKind::NotFound);
    // an Update error: the error of the failed step
    let state = dir.path().join("k.nonce");
    NonceStore::create(&state, &key()).unwrap();
    let fs = TestFs::new();
    let mut s = NonceStore::open_with(fs.clone(), &state, &key()).unwrap();
    fs.inject_fault(Op::Write, false);
    let e = s.next_nonce().unwrap_err();
    assert!(matches!(e, NonceError::Update { .. }), "{e}");
    let cause = e.source().expect("an Update error has a source");
    assert_eq!(cause.downcast_ref::<std::io::Error>().unwrap().raw_os_error(), Some(5));
    // the store's own refusals have none
    assert!(NonceStore::create(&state, &key()).unwrap_err().source().is_none());
}

#[test]
fn a_failed_give_back_says_the_unused_nonces_may_be_skipped() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("k.nonce");
    NonceStore::create(&state, &key()).unwrap();
    let fs = TestFs::new();
    let mut s = NonceStore::open_with(fs.clone(), &state, &key()).unwrap().with_reserve(10);
    assert_eq!(s.next_nonce().unwrap()[0], 0);
    fs.inject_fault(Op::Sync, false);
    let e = s.close().unwrap_err();
    assert!(matches!(e, NonceError::Update { .. }), "{e}");
    let msg = e.to_string();
    assert!(msg.starts_with("giving back unused nonces failed at syncing the temporary nonce state "), "{msg}");
    assert!(msg.ends_with("; the unused nonces may be skipped, none is reused"), "{msg}");
    // skipped indeed: the next store starts after the whole block
    let mut again = NonceStore::open(&state, &key()).unwrap();
    assert_eq!(again.next_nonce().unwrap()[0], 10);
}

#[test]
fn the_fuzz_targets_genuine_states_are_what_earlier_versions_wrote() {
    use wegman_store::nonce::check_state_bytes;
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("k.nonce");
    // a v2 state with safe nonce 77, as an earlier version left it: it is
    // migrated, continuing 2^64 above (out of reach of an earlier wegman
    // still writing it), and its base sealed
    let bytes = v2_state_bytes(77);
    assert_eq!(check_state_bytes(&state, &key(), &bytes).unwrap(), 77);
    std::fs::write(&state, &bytes).unwrap();
    let mut s = NonceStore::open(&state, &key()).unwrap();
    assert_eq!(u128::from_le_bytes(s.next_nonce().unwrap()), 77 + (1 << 64));
    assert!(matches!(check_state_bytes(&state, &key(), &std::fs::read(&state).unwrap()), Err(NonceError::Missing(_))));
    // a new state is never version 2
    let fresh = dir.path().join("new.nonce");
    NonceStore::create(&fresh, &key()).unwrap();
    assert!(matches!(check_state_bytes(&fresh, &key(), &std::fs::read(&fresh).unwrap()), Err(NonceError::Missing(_))));
    assert_eq!(NonceStore::open(&fresh, &key()).unwrap().next_nonce().unwrap(), [0; 16]);
}

/// The generation numbers of the files `k.nonce.<g>` in `dir`, sorted.
fn generations(dir: &std::path::Path) -> Vec<u64> {
    let mut g: Vec<u64> = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.unwrap().file_name().into_string().unwrap().strip_prefix("k.nonce.")?.parse().ok())
        .collect();
    g.sort_unstable();
    g
}

#[test]
fn cleaning_keeps_exactly_the_two_highest_generations() {
    // After publishing generation `own`, a writer removes those below
    // `own - 1` (module documentation of `nonce`, "Cleaning").
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("k.nonce");
    NonceStore::create(&state, &key()).unwrap();
    let mut s = NonceStore::open(&state, &key()).unwrap().with_reserve(1);
    assert_eq!(generations(dir.path()), [1], "as created");
    for own in 2..=9u64 {
        assert_eq!(s.next_nonce().unwrap()[0], own as u8 - 2);
        assert_eq!(generations(dir.path()), [own - 1, own], "after generation {own}");
    }
}

#[test]
fn cleaning_steps_over_missing_generations_and_stops_at_one_it_cannot_remove() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("k.nonce");
    NonceStore::create(&state, &key()).unwrap();
    let mut s = NonceStore::open(&state, &key()).unwrap().with_reserve(1);
    for _ in 0..6 {
        s.next_nonce().unwrap();
    }
    assert_eq!(generations(dir.path()), [6, 7]);
    // a leftover low generation (say, restored from a backup): the next
    // cleaner removes it, passes over the names already gone, and removes 6
    std::fs::write(dir.path().join("k.nonce.2"), "leftover").unwrap();
    assert_eq!(s.next_nonce().unwrap()[0], 6);
    assert_eq!(generations(dir.path()), [7, 8]);
    // one it cannot remove (a directory): it stops there, strictly in
    // increasing order, and removes nothing above it (the argument of
    // step 4 needs generation g gone before g + 1 is)
    std::fs::create_dir(dir.path().join("k.nonce.3")).unwrap();
    assert_eq!(s.next_nonce().unwrap()[0], 7);
    assert_eq!(generations(dir.path()), [3, 7, 8, 9], "generation 7 removed while 3 stayed");
}

#[test]
fn a_cleaner_seals_the_base_before_removing_generation_one() {
    // A writer killed after linking generation 1 and before sealing the
    // base, and the writer of generation 2 killed before cleaning, leave
    // the unsealed base beside generations 1 and 2. The next cleaner must
    // seal the base before it removes generation 1: else a writer stopped
    // since it read the unsealed base could link generation 1 again, find
    // its base still there and hand out nonces from 0.
    use wegman_store::nonce::check_state_bytes;
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("k.nonce");
    // an earlier version's state (new ones are never unsealed)
    let unsealed = v2_state_bytes(0);
    std::fs::write(&state, &unsealed).unwrap();
    let mut s = NonceStore::open(&state, &key()).unwrap().with_reserve(1);
    s.next_nonce().unwrap();
    s.next_nonce().unwrap();
    drop(s);
    assert_eq!(generations(dir.path()), [1, 2]);
    std::fs::write(&state, &unsealed).unwrap();
    let mut s = NonceStore::open(&state, &key()).unwrap().with_reserve(1);
    assert_eq!(s.next_nonce().unwrap()[0], 2);
    assert_eq!(generations(dir.path()), [2, 3]);
    let base = std::fs::read(&state).unwrap();
    assert!(matches!(check_state_bytes(&state, &key(), &base), Err(NonceError::Missing(_))), "the base was not sealed");
}

#[test]
fn a_bare_key_file_name_is_in_the_current_directory() {
    let here = std::env::current_dir().unwrap().canonicalize().unwrap();
    let p = state_path_for_new_key(std::path::Path::new("wegman-no-such-key")).unwrap();
    assert_eq!(p, here.join("wegman-no-such-key.nonce"));
}

#[cfg(unix)]
#[test]
fn a_state_path_that_cannot_be_read_is_an_io_error_not_a_missing_state() {
    // Its "directory" is a regular file: every look-up fails with ENOTDIR,
    // which is not "no such file" (that would make `create` try to write,
    // and `open` report a missing state).
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("f");
    std::fs::write(&file, "").unwrap();
    let state = file.join("k.nonce");
    for (what, e) in [
        ("create", NonceStore::create(&state, &key()).unwrap_err()),
        ("adopt", NonceStore::adopt(&state, &key()).unwrap_err()),
        ("open", NonceStore::open_with(TestFs::unlocked(), &state, &key()).unwrap_err()),
    ] {
        assert!(matches!(&e, NonceError::Io { op: "reading", .. }), "{what}: {e}");
    }
}

#[cfg(unix)]
#[test]
fn a_link_or_a_socket_at_a_generation_name_is_corrupt() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("k.nonce");
    NonceStore::create(&state, &key()).unwrap();
    let mut s = NonceStore::open(&state, &key()).unwrap();
    s.next_nonce().unwrap();
    drop(s);
    let gen1 = dir.path().join("k.nonce.2"); // the current one (`create` made 1)
    let copy = dir.path().join("copy");
    std::fs::rename(&gen1, &copy).unwrap();
    std::os::unix::fs::symlink(&copy, &gen1).unwrap();
    let e = NonceStore::open(&state, &key()).unwrap_err();
    assert!(e.to_string().contains("is corrupt (a symbolic link, not a file)"), "{e}");
    std::fs::remove_file(&gen1).unwrap();
    let _socket = std::os::unix::net::UnixListener::bind(&gen1).unwrap();
    let e = NonceStore::open(&state, &key()).unwrap_err();
    assert!(e.to_string().contains("is corrupt (not a regular file)"), "{e}");
}

#[test]
fn a_store_shows_its_path_and_next_nonce() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("k.nonce");
    NonceStore::create(&state, &key()).unwrap();
    let mut s = NonceStore::open(&state, &key()).unwrap();
    for _ in 0..3 {
        s.next_nonce().unwrap();
    }
    let debug = format!("{s:?}");
    assert!(debug.starts_with("NonceStore {"), "{debug}");
    assert!(debug.contains(&format!("{state:?}")) && debug.contains("next: 3"), "{debug}");
}

#[test]
fn a_forgotten_reservation_is_skipped_not_reused() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("k.nonce");
    NonceStore::create(&state, &key()).unwrap();
    let mut s = NonceStore::open(&state, &key()).unwrap().with_reserve(10);
    assert_eq!(s.next_nonce().unwrap()[0], 0);
    s.forget_reservation();
    assert_eq!(s.next_nonce().unwrap()[0], 10);
    assert_eq!(s.next_nonce().unwrap()[0], 11);
}

#[test]
fn closing_with_the_whole_block_used_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("k.nonce");
    NonceStore::create(&state, &key()).unwrap();
    let mut s = NonceStore::open(&state, &key()).unwrap().with_reserve(2);
    s.next_nonce().unwrap();
    s.next_nonce().unwrap();
    s.close().unwrap();
    assert_eq!(generations(dir.path()), [1, 2], "nothing to give back, yet a generation was written");
    let mut again = NonceStore::open(&state, &key()).unwrap();
    assert_eq!(again.next_nonce().unwrap()[0], 2);
}

#[test]
fn close_gives_back_only_over_its_own_generation_file() {
    // Generation 2 replaced by another genuine generation 2 of this key (a
    // file from another directory, with another random id and a higher
    // safe nonce): the current generation has the store's number but is
    // not its file, so nothing is given back over it.
    let other = tempfile::tempdir().unwrap();
    let other_state = other.path().join("k.nonce");
    NonceStore::create(&other_state, &key()).unwrap();
    let mut o = NonceStore::open(&other_state, &key()).unwrap().with_reserve(50);
    o.next_nonce().unwrap();
    drop(o);
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("k.nonce");
    NonceStore::create(&state, &key()).unwrap();
    let mut s = NonceStore::open(&state, &key()).unwrap().with_reserve(10);
    assert_eq!(s.next_nonce().unwrap()[0], 0);
    std::fs::copy(other.path().join("k.nonce.2"), dir.path().join("k.nonce.2")).unwrap();
    s.close().unwrap();
    let mut again = NonceStore::open(&state, &key()).unwrap();
    assert_eq!(again.next_nonce().unwrap()[0], 50, "gave back over a generation that was not its own");
}

#[cfg(target_os = "linux")]
#[test]
fn a_store_waiting_for_the_lock_says_who_holds_it_after_a_second() {
    use std::time::Duration;
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("k.nonce");
    NonceStore::create(&state, &key()).unwrap();
    let lock_path = dir.path().join("k.nonce.lock");
    let lock = || {
        let f = std::fs::OpenOptions::new().create(true).truncate(false).write(true).open(&lock_path).unwrap();
        f.lock().unwrap();
        f
    };
    let open_in_thread = || {
        let st = state.clone();
        std::thread::spawn(move || {
            let mut said = Vec::new();
            let r = NonceStore::open_noting_waits(&st, &key(), &mut |m| said.push(m.to_string())).map(|_| ());
            (r, said)
        })
    };
    // held for a short while: it waits without a word
    let held = lock();
    let t = open_in_thread();
    std::thread::sleep(Duration::from_millis(300));
    drop(held);
    let (r, said) = t.join().unwrap();
    r.unwrap();
    assert!(said.is_empty(), "{said:?}");
    // held for longer: once, naming this process (the holder) and the lock,
    // not another process that holds a lock on another file of the same
    // file system (two such decoys, taken before and after the real lock,
    // so that one precedes it in /proc/locks whichever order that lists)
    let decoy = |name: &str| {
        let child = std::process::Command::new("flock")
            .arg(dir.path().join(name))
            .args(["sleep", "30"])
            .spawn()
            .expect("flock(1) runs");
        let listed = format!(" {} ", child.id());
        while !std::fs::read_to_string("/proc/locks").unwrap().contains(&listed) {
            std::thread::sleep(Duration::from_millis(10));
        }
        child
    };
    let before = decoy("decoy-before");
    let held = lock();
    let after = decoy("decoy-after");
    let t = open_in_thread();
    std::thread::sleep(Duration::from_millis(1600));
    assert!(!t.is_finished(), "opened while the lock was held");
    drop(held);
    for mut child in [before, after] {
        let _ = child.kill();
        let _ = child.wait();
    }
    let (r, said) = t.join().unwrap();
    r.unwrap();
    let comm = std::fs::read_to_string("/proc/self/comm").unwrap();
    let want = format!(
        "waiting for process {} ({}), which holds the nonce lock {}",
        std::process::id(),
        comm.trim(),
        lock_path.display()
    );
    assert_eq!(said, [want]);
}

#[cfg(unix)]
#[test]
fn a_lock_path_that_cannot_be_opened_is_an_io_error() {
    // Only a symbolic link is LockSymlink; a directory there is another error.
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("k.nonce");
    NonceStore::create(&state, &key()).unwrap();
    std::fs::create_dir(dir.path().join("k.nonce.lock")).unwrap();
    let e = NonceStore::open(&state, &key()).unwrap_err();
    assert!(matches!(&e, NonceError::Io { op: "opening lock file", .. }), "{e}");
}

#[cfg(target_os = "linux")]
#[test]
fn only_temporary_files_named_for_a_dead_process_are_removed() {
    // Names that give no process id (0 is none) are left alone.
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("k.nonce");
    NonceStore::create(&state, &key()).unwrap();
    let kept = ["k.nonce.tmp.0.0123456789abcdef", "k.nonce.tmp.x.0123456789abcdef", "k.nonce.tmp..0123456789abcdef"];
    for n in kept {
        std::fs::write(dir.path().join(n), "x").unwrap();
    }
    let mut s = NonceStore::open(&state, &key()).unwrap().with_reserve(1);
    for _ in 0..4 {
        s.next_nonce().unwrap(); // generations 1..4: the cleaner runs
    }
    for n in kept {
        assert!(dir.path().join(n).exists(), "{n} was removed");
    }
}

#[cfg(unix)]
#[test]
fn a_file_swapped_between_its_check_and_its_opening_is_still_refused() {
    // `read_file` checks the type of a name, then opens it: another process
    // can replace the file in between. The flags of the opening
    // (O_NOFOLLOW) and its error handling must then give what the check
    // would have given. The hook swaps the file at exactly that moment.
    use std::cell::Cell;
    use std::path::PathBuf;
    use std::rc::Rc;
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("k.nonce");
    NonceStore::create(&state, &key()).unwrap();
    let mut s = NonceStore::open(&state, &key()).unwrap();
    s.next_nonce().unwrap();
    drop(s);
    let gen1 = dir.path().join("k.nonce.2"); // the current one (`create` made 1)
    let aside = dir.path().join("aside");
    std::fs::copy(&gen1, &aside).unwrap();
    let sealed = dir.path().join("sealed");
    std::fs::copy(&state, &sealed).unwrap();
    // Run `swap` once, the first time `path` is about to be opened.
    let fs = TestFs::new();
    let once = |path: &PathBuf, swap: Box<dyn FnOnce(&PathBuf)>| {
        let (path, mut swap) = (path.clone(), Some(swap));
        fs.before_open(Some(Box::new(move |p| {
            if p == path
                && let Some(f) = swap.take()
            {
                f(&path);
            }
        })));
    };

    // a link to a genuine (sealed) base: refused, not followed. The base,
    // unlike the current generation, is read once by `open` (no second
    // read's type check could see the link).
    let target = sealed.clone();
    once(
        &state,
        Box::new(move |b| {
            std::fs::remove_file(b).unwrap();
            std::os::unix::fs::symlink(&target, b).unwrap();
        }),
    );
    let e = NonceStore::open_with(fs.clone(), &state, &key()).unwrap_err();
    fs.before_open(None);
    assert!(e.to_string().contains("is corrupt (a symbolic link, not a file)"), "{e}");
    std::fs::remove_file(&state).unwrap();
    std::fs::copy(&sealed, &state).unwrap();

    // a FIFO with no writer: refused at once, not waited on (O_NONBLOCK).
    // In a thread of its own (with a file system of its own), so that a
    // hang fails the test instead of stopping it.
    let (tx, rx) = std::sync::mpsc::channel();
    let st = state.clone();
    std::thread::spawn(move || {
        let mut swap = true;
        let b = st.clone();
        let fs = TestFs::new();
        fs.before_open(Some(Box::new(move |p| {
            if p == b && std::mem::take(&mut swap) {
                std::fs::remove_file(&b).unwrap();
                assert!(std::process::Command::new("mkfifo").arg(&b).status().unwrap().success());
            }
        })));
        let _ = tx.send(NonceStore::open_with(fs, &st, &key()).map(|_| ()).map_err(|e| e.to_string()));
    });
    let r = rx.recv_timeout(std::time::Duration::from_secs(20)).expect("opening a FIFO swapped in hangs");
    let e = r.unwrap_err();
    assert!(e.contains("is corrupt (not a regular file)"), "{e}");
    std::fs::remove_file(&state).unwrap();
    std::fs::copy(&sealed, &state).unwrap();

    // a socket (it cannot be opened): an I/O error, neither a missing nor a
    // corrupt file
    let socket = Rc::new(Cell::new(None));
    let keep = socket.clone();
    once(
        &gen1,
        Box::new(move |g| {
            std::fs::remove_file(g).unwrap();
            keep.set(Some(std::os::unix::net::UnixListener::bind(g).unwrap()));
        }),
    );
    let e = NonceStore::open_with(fs.clone(), &state, &key()).unwrap_err();
    fs.before_open(None);
    assert!(matches!(&e, NonceError::Io { op: "reading", .. }), "{e}");
    drop(socket.take());
    std::fs::remove_file(&gen1).unwrap();
    std::fs::copy(&aside, &gen1).unwrap();

    // gone (moved away, and back before the next look): read as absent,
    // and the reading starts again and finds it
    let g1 = gen1.clone();
    let moved = Rc::new(Cell::new(false));
    let m = moved.clone();
    fs.before_open(Some(Box::new(move |p| {
        if p == g1 && !m.get() {
            std::fs::rename(&g1, dir_of(&g1).join("moved")).unwrap();
            m.set(true);
        } else if p != g1 && m.get() && !g1.exists() {
            std::fs::rename(dir_of(&g1).join("moved"), &g1).unwrap();
        }
    })));
    let mut s = NonceStore::open_with(fs.clone(), &state, &key()).unwrap();
    fs.before_open(None);
    assert!(moved.get(), "the hook never ran");
    assert_eq!(u128::from_le_bytes(s.next_nonce().unwrap()), 1024, "after the default block of 1,024");
}

#[cfg(unix)]
fn dir_of(p: &std::path::Path) -> &std::path::Path {
    p.parent().unwrap()
}

/// An older wegman (before generations: it reads the version-2 base,
/// renames a new one over it and then uses what it reserved, whatever a
/// newer writer did meanwhile) racing a newer one that migrates the base.
/// Its rename can land (a) between the newer writer's read and its link,
/// which voids the newer claim and leaves its generation 1 the highest, or
/// (b) after the newer writer sealed the base, over the seal. Either way
/// the nonces the newer one hands out must miss the older one's range:
/// with migration continuing at the base's safe nonce itself, (a) handed
/// out 110.. against the older writer's 100..150 and (b) 100..110.
#[test]
fn an_older_writer_racing_the_migration_never_shares_a_nonce() {
    let old_writer = |state: &std::path::Path, safe: u128| {
        let tmp = state.with_extension("nonce.old-writer");
        std::fs::write(&tmp, v2_state_bytes(safe)).unwrap();
        std::fs::rename(&tmp, state).unwrap();
    };
    for case in ["between the newer writer's read and its link", "over the newer writer's seal"] {
        let dir = tempfile::tempdir().unwrap();
        let state = dir.path().join("k.nonce");
        std::fs::write(&state, v2_state_bytes(100)).unwrap();
        // The older writer read safe nonce 100 and reserves 50: 100..150.
        let theirs = 100u128..150;
        let fs = TestFs::new();
        let mut s = NonceStore::open_with(fs.clone(), &state, &key()).unwrap().with_reserve(10);
        let mut mine = Vec::new();
        if case.starts_with("between") {
            let st = state.clone();
            let mut once = true;
            fs.before_publish(Some(Box::new(move || {
                if std::mem::take(&mut once) {
                    old_writer(&st, theirs.end);
                }
            })));
            mine.extend((0..25).map(|_| u128::from_le_bytes(s.next_nonce().unwrap())));
            fs.before_publish(None);
        } else {
            mine.extend((0..5).map(|_| u128::from_le_bytes(s.next_nonce().unwrap())));
            old_writer(&state, theirs.end);
            mine.extend((0..25).map(|_| u128::from_le_bytes(s.next_nonce().unwrap())));
        }
        s.close().unwrap();
        let mut again = NonceStore::open(&state, &key()).unwrap().with_reserve(3);
        mine.extend((0..5).map(|_| u128::from_le_bytes(again.next_nonce().unwrap())));
        let shared: Vec<_> = mine.iter().filter(|n| theirs.contains(n)).collect();
        assert!(shared.is_empty(), "{case}: nonces of the older writer's range handed out again: {shared:?}");
        let unique: HashSet<_> = mine.iter().collect();
        assert_eq!(unique.len(), mine.len(), "{case}: a nonce twice");
        // The base is sealed again: the older writer's next run refuses it.
        let base = std::fs::read(&state).unwrap();
        assert!(
            matches!(wegman_store::nonce::check_state_bytes(&state, &key(), &base), Err(NonceError::Missing(_))),
            "{case}: the base was left unsealed"
        );
    }
}

#[test]
fn a_reservation_is_one_private_file_synced_linked_and_its_directory_synced() {
    // The order of the steps the module documentation gives, as the store
    // performs them (what a crash between two of them can leave is the
    // argument of the crash tests).
    use std::path::PathBuf;
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("k.nonce");
    NonceStore::create(&state, &key()).unwrap();
    let fs = TestFs::new();
    let mut s = NonceStore::open_with(fs.clone(), &state, &key()).unwrap().with_reserve(5);
    fs.clear_ops();
    s.next_nonce().unwrap();
    let changes: Vec<(Op, PathBuf)> = fs
        .ops()
        .into_iter()
        .filter(|(op, _)| !matches!(op, Op::SymlinkMetadata | Op::OpenRead | Op::ReadDir))
        .collect();
    let ops: Vec<Op> = changes.iter().map(|(op, _)| *op).collect();
    assert_eq!(ops, [Op::CreateNew, Op::Write, Op::Sync, Op::HardLink, Op::RemoveFile, Op::SyncDir], "{changes:?}");
    let tmp = &changes[0].1;
    let name = tmp.file_name().unwrap().to_str().unwrap();
    assert!(name.starts_with(&format!("k.nonce.tmp.{}.", std::process::id())), "{name}");
    assert_eq!([&changes[1].1, &changes[2].1, &changes[4].1], [tmp, tmp, tmp]);
    assert_eq!(changes[3].1, dir.path().join("k.nonce.2"));
    assert_eq!(changes[5].1, dir.path());
    // the rest of the block touches no file
    fs.clear_ops();
    for _ in 0..4 {
        s.next_nonce().unwrap();
    }
    assert_eq!(fs.ops(), []);
}

/// The real file system's lock prints as what it is, without its file
/// (a store's `Debug` form shows no descriptor or path of its lock).
#[test]
fn the_real_lock_prints_its_type_only() {
    use wegman_store::nonce::{Fs, RealFs};
    let dir = tempfile::tempdir().unwrap();
    let lock = RealFs.lock(&dir.path().join("key.nonce"), &mut |_| {}).unwrap();
    assert_eq!(format!("{lock:?}"), "FileLock { .. }");
}

#[test]
fn a_base_put_back_between_the_seal_and_the_cleaning_is_sealed_again() {
    // A reservation seals the base, then cleans. An older writer (of a
    // version that wrote version-2 bases) may put its unsealed base back in
    // between; the cleaner must seal it again before it removes generation
    // 1, or a writer that read that base could link generation 1 again and
    // hand out nonces from 0. The put-back is made where the cleaner reads
    // the base: its first opening after a directory listing (the cleaner
    // lists the generations, then seals).
    use wegman_store::nonce::check_state_bytes;
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("k.nonce");
    std::fs::write(&state, v2_state_bytes(0)).unwrap();
    let fs = TestFs::new();
    let mut s = NonceStore::open_with(fs.clone(), &state, &key()).unwrap().with_reserve(1);
    s.next_nonce().unwrap();
    s.next_nonce().unwrap();
    assert_eq!(generations(dir.path()), [1, 2]);
    let (log, base, put_back) = (fs.clone(), state.clone(), std::rc::Rc::new(std::cell::Cell::new(false)));
    let done = put_back.clone();
    fs.before_open(Some(Box::new(move |path: &std::path::Path| {
        let ops = log.ops();
        let since_listing = ops.iter().rev().take_while(|(op, _)| *op != Op::ReadDir).collect::<Vec<_>>();
        let listed = since_listing.len() < ops.len();
        if path == base && listed && !since_listing.iter().any(|(op, _)| *op == Op::OpenRead) && !done.get() {
            std::fs::write(&base, v2_state_bytes(0)).unwrap();
            done.set(true);
        }
    })));
    fs.clear_ops(); // only this reservation's listings count
    s.next_nonce().unwrap(); // generation 3, which cleans generation 1
    fs.before_open(None);
    assert!(put_back.get(), "the cleaner never read the base");
    assert_eq!(generations(dir.path()), [2, 3]);
    let base = std::fs::read(&state).unwrap();
    assert!(matches!(check_state_bytes(&state, &key(), &base), Err(NonceError::Missing(_))), "the base was not sealed");
}
