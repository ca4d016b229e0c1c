//! The §3 nonce store: uniqueness across reopenings, refusal to guess.

use std::collections::HashSet;

use wegman::nonce::{NonceError, NonceStore, state_path_for_key, state_path_for_new_key};

#[test]
fn nonces_never_repeat_across_close_and_abandon() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("k.nonce");
    NonceStore::create(&state).unwrap();
    let mut seen = HashSet::new();
    for round in 0..20 {
        let mut s = NonceStore::open(&state).unwrap().with_reserve(7);
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
    let mut s = NonceStore::open(&state).unwrap();
    let n = u128::from_le_bytes(s.next_nonce().unwrap());
    // 590 used; at most 7 skipped for each of the 10 abandoned rounds
    assert!((590..=660).contains(&n), "{n}");
}

#[test]
fn counter_is_little_endian_reverse_lexicographic() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("k.nonce");
    NonceStore::create(&state).unwrap();
    let mut s = NonceStore::open(&state).unwrap();
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
    NonceStore::create(&state).unwrap();
    assert!(matches!(NonceStore::create(&state), Err(NonceError::AlreadyExists(_))));
}

#[test]
fn missing_state_is_an_error_not_zero() {
    let dir = tempfile::tempdir().unwrap();
    let e = NonceStore::open(&dir.path().join("nope.nonce")).unwrap_err();
    assert!(matches!(e, NonceError::Missing(_)));
    assert!(e.to_string().contains("refusing to guess"), "{e}");
}

#[test]
fn corrupt_state_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("k.nonce");
    NonceStore::create(&state).unwrap();
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
        b"wegman-nonce-state v1\nsafe 00\ncrc32 00000000\n".to_vec(),
    ];
    for bad in cases {
        std::fs::write(&state, &bad).unwrap();
        let e = NonceStore::open(&state).unwrap_err();
        assert!(matches!(e, NonceError::Corrupt { .. }), "{bad:?} gave {e}");
    }
}

#[test]
fn io_errors_stop_the_store() {
    let dir = tempfile::tempdir().unwrap();
    let sub = dir.path().join("sub");
    std::fs::create_dir(&sub).unwrap();
    let state = sub.join("k.nonce");
    NonceStore::create(&state).unwrap();
    let mut s = NonceStore::open(&state).unwrap().with_reserve(2);
    s.next_nonce().unwrap();
    s.next_nonce().unwrap();
    // the next reservation cannot be written: the directory is gone
    std::fs::remove_dir_all(&sub).unwrap();
    let e = s.next_nonce().unwrap_err();
    assert!(matches!(e, NonceError::Io { .. }), "{e}");
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
    NonceStore::create(&state).unwrap();
    let alias = dir.path().join("alias.nonce");
    std::os::unix::fs::symlink(&state, &alias).unwrap();
    let e = NonceStore::open(&alias).unwrap_err();
    assert!(matches!(e, NonceError::Symlink(_)), "{e}");
    assert!(e.to_string().contains("symbolic link"), "{e}");
    assert!(matches!(NonceStore::create(&alias), Err(NonceError::AlreadyExists(_))));
}

#[test]
fn create_checks_for_an_existing_state_under_the_lock() {
    // A creator that passed the existence check before a racing creator
    // took the lock would overwrite a state already in use.
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("k.nonce");
    let held = NonceStore::create(&state).and_then(|()| NonceStore::open(&state)).unwrap();
    std::fs::remove_file(&state).unwrap(); // as if the racing creator had not written yet
    let path = state.clone();
    let racer = std::thread::spawn(move || NonceStore::create(&path));
    std::thread::sleep(std::time::Duration::from_millis(100));
    // the holder (the first creator) now writes its state and uses nonces
    let mut held = held;
    let first = held.next_nonce().unwrap();
    held.close().unwrap();
    let r = racer.join().unwrap();
    assert!(matches!(r, Err(NonceError::AlreadyExists(_))), "{r:?}");
    let mut again = NonceStore::open(&state).unwrap();
    assert_ne!(again.next_nonce().unwrap(), first, "the racing create must not reset the state");
}

#[test]
fn lock_serialises_two_openers() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("k.nonce");
    NonceStore::create(&state).unwrap();
    let state2 = state.clone();
    let mut first = NonceStore::open(&state).unwrap();
    let a = first.next_nonce().unwrap();
    let t = std::thread::spawn(move || {
        let mut second = NonceStore::open(&state2).unwrap(); // blocks until `first` is dropped
        second.next_nonce().unwrap()
    });
    std::thread::sleep(std::time::Duration::from_millis(100));
    let b = first.next_nonce().unwrap();
    first.close().unwrap();
    let c = t.join().unwrap();
    assert!(a != b && b != c && a != c);
}
