//! The nonce store with many writers: threads and processes that take no
//! lock or whose lock file is removed and replaced, a writer stopped
//! between reading and publishing, forked children, and reservations that
//! fail. Every nonce handed out is collected; none may repeat, and the
//! state must stay above every one of them.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use rand::{Rng, SeedableRng, rngs::StdRng};
use wegman_store::nonce::{KeyBinding, NonceError, NonceStore};

mod common;
use common::{PUBLICATION_STEPS, TestFs};

fn key() -> KeyBinding {
    KeyBinding::derive("poly1305aes", &[0x3c; 32])
}

fn fresh() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("k.nonce");
    NonceStore::create(&state, &key()).unwrap();
    (dir, state)
}

fn value(n: [u8; 16]) -> u128 {
    u128::from_le_bytes(n)
}

/// No value twice, and the next nonce of the state is above all of them.
fn check_all(state: &Path, all: &[u128]) {
    if let Err(e) = checked(state, all) {
        panic!("{e}");
    }
}

/// What [`check_all`] checks, as the first requirement broken.
fn checked(state: &Path, all: &[u128]) -> Result<(), String> {
    let mut seen = HashSet::new();
    let dups: Vec<_> = all.iter().filter(|n| !seen.insert(**n)).collect();
    if !dups.is_empty() {
        return Err(format!("{} of {} nonces handed out twice: {dups:?}", dups.len(), all.len()));
    }
    let mut s = NonceStore::open(state, &key()).unwrap();
    let next = value(s.next_nonce().unwrap());
    match all.iter().max() {
        Some(max) if next <= *max => Err(format!("the state went back: next {next}, handed out up to {max}")),
        _ => Ok(()),
    }
}

/// Eight threads, each opening the state `rounds` times through its own
/// file system (`fs(thread)`, without the lock), taking 1 … 5 nonces with
/// reservations of 1, 2, 3 or 7 and closing the store half of the time;
/// every nonce handed out must be new and below the state's next one.
fn race(rounds: usize, fs: impl Fn(u64) -> TestFs + Copy + Send + 'static) -> Result<(), String> {
    let (_dir, state) = fresh();
    let all = Arc::new(Mutex::new(Vec::new()));
    let threads: Vec<_> = (0..8u64)
        .map(|t| {
            let (state, all) = (state.clone(), all.clone());
            std::thread::spawn(move || {
                let mut rng = StdRng::seed_from_u64(t);
                let mut mine = Vec::new();
                for _ in 0..rounds {
                    let reserve = [1, 2, 3, 7][rng.random_range(0..4)];
                    let mut s = NonceStore::open_with(fs(t), &state, &key()).unwrap().with_reserve(reserve);
                    for _ in 0..rng.random_range(1..=5) {
                        mine.push(value(s.next_nonce().unwrap()));
                    }
                    if rng.random_bool(0.5) {
                        s.close().unwrap();
                    }
                }
                all.lock().unwrap().extend(mine);
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    let all = all.lock().unwrap();
    assert!(all.len() > 8 * rounds);
    checked(&state, &all)?;
    // the cleaners keep the directory small
    let files = std::fs::read_dir(state.parent().unwrap()).unwrap().count();
    assert!(files < 40, "{files} files left");
    Ok(())
}

#[test]
fn threads_racing_without_the_lock_never_share_a_nonce() {
    race(150, |_| TestFs::unlocked()).unwrap();
}

#[test]
fn threads_paused_at_random_between_their_steps_never_share_a_nonce() {
    // The race above, with every thread pausing at random before about one
    // file operation in five (TestFs::jittered): stale listings, reads of
    // names that were freed and linked again, links into recycled names, as
    // a loaded machine makes them. The race alone (without pauses) missed
    // the stale-listing bug unless other processes loaded the CPU.
    for round in 0..8 {
        let seed = move |t: u64| TestFs::jittered(0x9e37_79b9_7f4a_7c15 ^ (t << 8) ^ round);
        race(60, seed).unwrap_or_else(|e| panic!("round {round}: {e}"));
    }
}

#[test]
fn a_stopped_writer_cannot_claim_a_recycled_generation() {
    // W reads the current generation g and stops (the hook); meanwhile B
    // publishes g+1 … g+4 and cleans g … g+2. W then links g+1, a name
    // that is free again: its claim is void (g is gone) and it must
    // reserve afresh instead of handing out what B handed out.
    let (_dir, state) = fresh();
    let b_took = Rc::new(RefCell::new(Vec::new()));
    let stops = Rc::new(RefCell::new(0));
    let (st, took, n) = (state.clone(), b_took.clone(), stops.clone());
    let w_fs = TestFs::unlocked();
    w_fs.before_publish(Some(Box::new(move || {
        if *n.borrow() >= 2 {
            return;
        }
        *n.borrow_mut() += 1;
        let mut b = NonceStore::open_with(TestFs::unlocked(), &st, &key()).unwrap().with_reserve(1);
        for _ in 0..4 {
            took.borrow_mut().push(value(b.next_nonce().unwrap()));
        }
        drop(b);
    })));
    let mut w = NonceStore::open_with(w_fs.clone(), &state, &key()).unwrap().with_reserve(3);
    let mut all: Vec<u128> = (0..7).map(|_| value(w.next_nonce().unwrap())).collect();
    w_fs.before_publish(None);
    assert_eq!(*stops.borrow(), 2, "the writer was stopped once on the base, once on a generation");
    all.extend(b_took.borrow().iter());
    drop(w);
    check_all(&state, &all);
}

use std::cell::RefCell;
use std::rc::Rc;

/// How long a step of [`a_stale_listing_cannot_make_a_void_generation_current`]
/// waits for the next before the test fails (instead of hanging).
const STEP: std::time::Duration = std::time::Duration::from_secs(30);

#[test]
fn a_stale_listing_cannot_make_a_void_generation_current() {
    // The interleaving a loaded run of the racing test above once hit,
    // forced step by step. B publishes generations 2 and 3; S, stopped
    // after reading 2, links the name 3 once B has gone on to 6 and
    // cleaned 1 … 4: S's 3 is void (its parent 2 is gone) and stays until
    // a cleaner removes it. R listed the directory when 3 was the highest
    // and was stopped before reading it: it reads S's void 3, finds 4 free
    // and, unless it checks that 3 is still the highest, builds 4 on it,
    // from S's safe nonce 4, which B handed out with 6.
    use std::sync::mpsc::{Receiver, Sender, channel};
    let wait = |rx: &Receiver<&'static str>, what: &str| {
        let got = rx.recv_timeout(STEP).unwrap_or_else(|_| panic!("no {what} within {STEP:?}"));
        assert_eq!(got, what);
    };
    let (_dir, state) = fresh();
    let (to_main, from_threads) = channel();
    let mut b = NonceStore::open_with(TestFs::unlocked(), &state, &key()).unwrap().with_reserve(1);
    let mut all = vec![value(b.next_nonce().unwrap())]; // generation 2: [0, 1)

    // S: reserves 3 from generation 2 and stops before publishing 3, and
    // again before its retry publishes.
    let (go_s, s_waits): (Sender<&str>, _) = channel();
    let (st, tx) = (state.clone(), to_main.clone());
    let s = std::thread::spawn(move || {
        let fs = TestFs::unlocked();
        let calls = Rc::new(RefCell::new(0));
        fs.before_publish(Some(Box::new(move || {
            *calls.borrow_mut() += 1;
            let (tell, until) = match *calls.borrow() {
                1 => ("S read 2", "S links 3"),
                2 => ("S retries", "S goes on"),
                _ => return,
            };
            tx.send(tell).unwrap();
            assert_eq!(s_waits.recv_timeout(STEP).unwrap(), until);
        })));
        let mut s = NonceStore::open_with(fs, &st, &key()).unwrap().with_reserve(3);
        value(s.next_nonce().unwrap())
    });
    wait(&from_threads, "S read 2");
    all.push(value(b.next_nonce().unwrap())); // generation 3: [1, 2)

    // R: lists while 3 is the highest, stops before reading it.
    let (go_r, r_waits): (Sender<&str>, _) = channel();
    let (st, tx) = (state.clone(), to_main.clone());
    let third = state.with_file_name("k.nonce.3");
    let r = std::thread::spawn(move || {
        let fs = TestFs::unlocked();
        let mut r = NonceStore::open_with(fs.clone(), &st, &key()).unwrap().with_reserve(2);
        let mut stopped = false;
        fs.before_open(Some(Box::new(move |path| {
            if path == third && !stopped {
                stopped = true;
                tx.send("R listed 3").unwrap();
                assert_eq!(r_waits.recv_timeout(STEP).unwrap(), "R reads 3");
            }
        })));
        value(r.next_nonce().unwrap())
    });
    wait(&from_threads, "R listed 3");
    for _ in 0..3 {
        all.push(value(b.next_nonce().unwrap())); // generations 4, 5, 6: [2, 5); 1 … 4 cleaned
    }
    let names = |g: u64| state.with_file_name(format!("k.nonce.{g}")).exists();
    assert!((1..=4).all(|g| !names(g)) && names(5) && names(6), "B cleaned 1 … 4 and left 5 and 6");
    go_s.send("S links 3").unwrap();
    wait(&from_threads, "S retries");
    assert!(names(3) && !names(4), "S's void 3 is there, 4 is free");
    go_r.send("R reads 3").unwrap();
    all.push(r.join().unwrap());
    go_s.send("S goes on").unwrap();
    all.push(s.join().unwrap());
    all.push(value(b.next_nonce().unwrap()));
    drop(b);
    check_all(&state, &all);
}

/// What [`failed_reservation`] takes nonces from: the store, or the
/// store with the limit bug of its negative control.
trait Nonces {
    fn next(&mut self) -> Result<[u8; 16], NonceError>;
}

impl Nonces for NonceStore<TestFs> {
    fn next(&mut self) -> Result<[u8; 16], NonceError> {
        self.next_nonce()
    }
}

/// The negative control of [`failed_reservation`]: a store that, when its
/// block runs out, sets the new limit in memory first and reserves on disk
/// after, ignoring a failure, so that the nonces of a failed reservation
/// are still handed out (the bug once planted in the store itself). The
/// reservation on disk is the store's own (`reserve`, which publishes a
/// generation as `next_nonce` does); only the order and the ignored error
/// are the bug's.
struct LimitSetFirst {
    store: NonceStore<TestFs>,
    reserve: u64,
    /// The range handed out from memory, `[next, limit)`; empty before the
    /// first reservation.
    next: u128,
    limit: u128,
}

impl Nonces for LimitSetFirst {
    fn next(&mut self) -> Result<[u8; 16], NonceError> {
        if self.limit == 0 {
            // the first block is reserved as the store does
            let first = value(self.store.next_nonce()?);
            (self.next, self.limit) = (first, first + u128::from(self.reserve));
        } else if self.next >= self.limit {
            self.limit = self.next + u128::from(self.reserve);
            let _ = self.store.reserve(self.reserve);
        }
        let n = self.next;
        self.next += 1;
        Ok(n.to_le_bytes())
    }
}

/// One step failing once (`after`: having acted) during the reservations
/// of a store with blocks of `reserve`, then the store reopened: the first
/// requirement broken, if one is.
fn failed_reservation<S: Nonces>(
    step: common::Op,
    after: bool,
    reserve: u64,
    open: impl Fn(TestFs, &Path) -> S,
) -> Result<(), String> {
    let what = format!("{} after={after} reserve={reserve}", step.step());
    let (_dir, state) = fresh();
    let mut all = Vec::new();
    let fs = TestFs::new();
    let mut s = open(fs.clone(), &state);
    all.push(value(s.next().unwrap()));
    fs.inject_fault(step, after);
    let mut failed = false;
    for _ in 0..8 {
        match s.next() {
            Ok(n) => all.push(value(n)),
            Err(e) if e.to_string().contains(step.step()) => {
                failed = true;
                break;
            }
            Err(e) => return Err(format!("{what}: {e}")),
        }
    }
    if fs.fault_pending() {
        return Err(format!("{what}: the fault never fired"));
    }
    // the same store goes on, or another one after a crash
    if let Ok(n) = s.next() {
        all.push(value(n));
    }
    drop(s);
    let mut again = NonceStore::open(&state, &key()).unwrap().with_reserve(reserve);
    for _ in 0..5 {
        all.push(value(again.next_nonce().unwrap()));
    }
    again.close().unwrap();
    checked(&state, &all).map_err(|e| format!("{what}: {e}"))?;
    if !failed {
        return Err(format!("{what}: the failure was not reported"));
    }
    Ok(())
}

#[test]
fn reopening_after_a_failed_reservation_never_repeats_a_nonce() {
    for step in PUBLICATION_STEPS {
        for after in [false, true] {
            for reserve in [1, 3] {
                let open = |fs, state: &Path| NonceStore::open_with(fs, state, &key()).unwrap().with_reserve(reserve);
                failed_reservation(step, after, reserve, open).unwrap();
            }
        }
    }
}

#[test]
fn the_failed_reservation_test_catches_a_limit_set_before_the_reservation() {
    // The negative control: the same cases against [`LimitSetFirst`]. A
    // step that fails before it acts leaves the disk below what was handed
    // out, and the reopened store repeats it.
    let mut caught = Vec::new();
    for step in PUBLICATION_STEPS {
        for after in [false, true] {
            for reserve in [1, 3] {
                let open = |fs, state: &Path| LimitSetFirst {
                    store: NonceStore::open_with(fs, state, &key()).unwrap().with_reserve(reserve),
                    reserve,
                    next: 0,
                    limit: 0,
                };
                if let Err(e) = failed_reservation(step, after, reserve, open) {
                    caught.push(e);
                }
            }
        }
    }
    eprintln!("{} of 16 cases caught the limit bug:", caught.len());
    for e in &caught {
        eprintln!("  {e}");
    }
    // every case fails; each step that fails before the link took effect
    // lets a nonce be handed out twice
    assert_eq!(caught.len(), 16, "{caught:?}");
    assert_eq!(caught.iter().filter(|e| e.contains("handed out twice")).count(), 10, "{caught:?}");
}

/// The environment variable that makes this binary a child of the tests below.
const CHILD: &str = "WEGMAN_NONCE_RACE_CHILD";

fn run_child(test: &str, args: &[(&str, String)]) -> std::process::Child {
    let mut c = std::process::Command::new(std::env::current_exe().unwrap());
    c.args(["--exact", test, "--test-threads", "1", "--nocapture"]).env(CHILD, "1");
    for (k, v) in args {
        c.env(k, v);
    }
    c.stdout(std::process::Stdio::null()).spawn().unwrap()
}

fn read_nonces(dir: &Path, prefix: &str) -> Vec<u128> {
    let mut all = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let e = e.unwrap();
        if e.file_name().to_string_lossy().starts_with(prefix) {
            for line in std::fs::read_to_string(e.path()).unwrap().lines() {
                all.push(line.parse().unwrap());
            }
        }
    }
    all
}

#[cfg(unix)]
#[test]
fn forked_children_never_hand_out_the_parents_nonces() {
    // A store opened, a nonce taken, then fork (as
    // Python's multiprocessing does). Runs in a child process of its own so
    // that the fork happens with one thread.
    let Some(dir) = std::env::var_os("WEGMAN_FORK_DIR") else {
        if std::env::var_os(CHILD).is_some() {
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        let st = run_child(
            "forked_children_never_hand_out_the_parents_nonces",
            &[("WEGMAN_FORK_DIR", dir.path().display().to_string())],
        )
        .wait()
        .unwrap();
        assert!(st.success());
        let all = read_nonces(dir.path(), "taken-");
        assert_eq!(all.len(), 1 + 6 + 8 * 6, "{all:?}");
        check_all(&dir.path().join("k.nonce"), &all);
        return;
    };
    let dir = PathBuf::from(dir);
    let state = dir.join("k.nonce");
    NonceStore::create(&state, &key()).unwrap();
    let mut s = NonceStore::open(&state, &key()).unwrap().with_reserve(100);
    let first = value(s.next_nonce().unwrap());
    std::fs::write(dir.join("taken-first"), format!("{first}\n")).unwrap();
    let mut pids = Vec::new();
    for i in 0..8 {
        // SAFETY: this process has one thread (see above); the child only
        // uses the store and the file system, then leaves with _exit.
        let pid = unsafe { libc::fork() };
        assert!(pid >= 0);
        if pid == 0 {
            let mut mine = String::new();
            let mut ok = true;
            for _ in 0..6 {
                match s.next_nonce() {
                    Ok(n) => mine.push_str(&format!("{}\n", value(n))),
                    Err(_) => ok = false,
                }
            }
            std::fs::write(dir.join(format!("taken-child{i}")), mine).unwrap();
            ok &= s.close().is_ok();
            // SAFETY: ends the forked child without running the parent's
            // atexit handlers or destructors twice.
            unsafe { libc::_exit(if ok { 0 } else { 1 }) };
        }
        pids.push(pid);
    }
    let mine: String = (0..6).map(|_| format!("{}\n", value(s.next_nonce().unwrap()))).collect();
    std::fs::write(dir.join("taken-parent"), mine).unwrap();
    for pid in pids {
        let mut status = 0;
        // SAFETY: waits for a child this process forked.
        assert_eq!(unsafe { libc::waitpid(pid, &mut status, 0) }, pid);
        assert!(libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0, "child {pid}: {status}");
    }
    s.close().unwrap();
}

/// A forked child with its parent's PID: the parent runs as PID 1 of a PID
/// namespace (as a container's init does), takes a nonce, then forks a
/// child into a new PID namespace, where the child is PID 1 too. A store
/// that told forks by PID handed the child the parent's reserved block (the
/// same nonces twice); the store tells them by a page the kernel wipes in
/// every child. Needs `unshare --pid` (root or user namespaces): where it
/// is refused, the test says so and checks nothing.
#[cfg(target_os = "linux")]
#[test]
fn a_child_with_its_parents_pid_never_hands_out_the_parents_nonces() {
    const TEST: &str = "a_child_with_its_parents_pid_never_hands_out_the_parents_nonces";
    let Some(dir) = std::env::var_os("WEGMAN_PIDNS_DIR") else {
        if std::env::var_os(CHILD).is_some() {
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        let probe = std::process::Command::new("unshare").args(["--pid", "--fork", "true"]).status();
        if !probe.is_ok_and(|s| s.success()) {
            eprintln!("SKIPPED: `unshare --pid --fork` is refused here (needs root or user namespaces)");
            return;
        }
        let st = std::process::Command::new("unshare")
            .args(["--pid", "--fork"])
            .arg(std::env::current_exe().unwrap())
            .args(["--exact", TEST, "--test-threads", "1", "--nocapture"])
            .env(CHILD, "1")
            .env("WEGMAN_PIDNS_DIR", dir.path())
            .status()
            .unwrap();
        assert!(st.success());
        let all = read_nonces(dir.path(), "taken-");
        assert_eq!(all.len(), 1 + 6 + 6, "{all:?}");
        check_all(&dir.path().join("k.nonce"), &all);
        return;
    };
    let dir = PathBuf::from(dir);
    assert_eq!(std::process::id(), 1, "not PID 1 of a new namespace");
    let state = dir.join("k.nonce");
    NonceStore::create(&state, &key()).unwrap();
    let mut s = NonceStore::open(&state, &key()).unwrap().with_reserve(100);
    let first = value(s.next_nonce().unwrap());
    std::fs::write(dir.join("taken-first"), format!("{first}\n")).unwrap();
    // SAFETY: unshare(CLONE_NEWPID) only changes the namespace of the
    // children made after it.
    assert_eq!(unsafe { libc::unshare(libc::CLONE_NEWPID) }, 0, "{}", std::io::Error::last_os_error());
    // SAFETY: this process has one thread (--test-threads 1, the test's
    // own); the child only uses the store and the file system, then leaves
    // with _exit.
    let pid = unsafe { libc::fork() };
    assert!(pid >= 0);
    if pid == 0 {
        let mut mine = String::new();
        let mut ok = std::process::id() == 1; // the same PID as its parent
        for _ in 0..6 {
            match s.next_nonce() {
                Ok(n) => mine.push_str(&format!("{}\n", value(n))),
                Err(_) => ok = false,
            }
        }
        std::fs::write(dir.join("taken-child"), mine).unwrap();
        ok &= s.close().is_ok();
        // SAFETY: ends the forked child without running the parent's
        // atexit handlers or destructors twice.
        unsafe { libc::_exit(if ok { 0 } else { 1 }) };
    }
    let mut status = 0;
    // SAFETY: waits for the child this process forked.
    assert_eq!(unsafe { libc::waitpid(pid, &mut status, 0) }, pid);
    assert!(libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0, "child: {status}");
    let mine: String = (0..6).map(|_| format!("{}\n", value(s.next_nonce().unwrap()))).collect();
    std::fs::write(dir.join("taken-parent"), mine).unwrap();
    s.close().unwrap();
}

#[test]
fn processes_racing_while_the_lock_file_is_removed_and_replaced() {
    // Writers in separate processes take the real lock; meanwhile the lock
    // file is removed or replaced at random moments, so that at times two
    // or more of them hold "the" lock.
    if let Some(dir) = std::env::var_os("WEGMAN_RACE_DIR") {
        let dir = PathBuf::from(dir);
        let me: u64 = std::env::var("WEGMAN_RACE_ME").unwrap().parse().unwrap();
        let mut rng = StdRng::seed_from_u64(me);
        let mut mine = String::new();
        for _ in 0..60 {
            let reserve = [1, 2, 5][rng.random_range(0..3)];
            let mut s = NonceStore::open(&dir.join("k.nonce"), &key()).unwrap().with_reserve(reserve);
            for _ in 0..rng.random_range(1..=4) {
                mine.push_str(&format!("{}\n", value(s.next_nonce().unwrap())));
                if rng.random_bool(0.2) {
                    std::thread::sleep(std::time::Duration::from_micros(rng.random_range(0..500)));
                }
            }
            if rng.random_bool(0.7) {
                s.close().unwrap();
            }
        }
        std::fs::write(dir.join(format!("taken-{me}")), mine).unwrap();
        return;
    }
    if std::env::var_os(CHILD).is_some() {
        return;
    }
    let (dir, state) = fresh();
    let lock = dir.path().join("k.nonce.lock");
    let mut children: Vec<_> = (0..6)
        .map(|me| {
            run_child(
                "processes_racing_while_the_lock_file_is_removed_and_replaced",
                &[("WEGMAN_RACE_DIR", dir.path().display().to_string()), ("WEGMAN_RACE_ME", me.to_string())],
            )
        })
        .collect();
    let mut rng = StdRng::seed_from_u64(99);
    let mut changes = 0;
    while children.iter_mut().any(|c| c.try_wait().unwrap().is_none()) {
        std::thread::sleep(std::time::Duration::from_micros(rng.random_range(100..3000)));
        if rng.random_bool(0.5) {
            let _ = std::fs::remove_file(&lock);
        } else {
            let tmp = dir.path().join("lock.new");
            std::fs::write(&tmp, "").unwrap();
            std::fs::rename(&tmp, &lock).unwrap();
        }
        changes += 1;
    }
    for mut c in children {
        assert!(c.wait().unwrap().success());
    }
    let all = read_nonces(dir.path(), "taken-");
    eprintln!("{} nonces from 6 processes, lock file removed or replaced {changes} times", all.len());
    check_all(&state, &all);
}

#[test]
fn leases_never_overlap_each_other_or_the_stores_nonces() {
    use wegman_store::nonce::{Lease, NonceError};
    let (_dir, state) = fresh();
    let mut a = NonceStore::open(&state, &key()).unwrap().with_reserve(4);
    let mut b = NonceStore::open_with(TestFs::unlocked(), &state, &key()).unwrap().with_reserve(3);
    let mut all = Vec::new();
    let mut leases = Vec::new();
    for i in 0..20u64 {
        all.push(value(a.next_nonce().unwrap()));
        leases.push(a.reserve(i % 5 + 1).unwrap());
        all.push(value(b.next_nonce().unwrap()));
        leases.push(b.reserve(7).unwrap());
    }
    for l in leases {
        // through its bytes, as another process gets it
        let there = Lease::from_bytes(&l.to_bytes(), &key()).unwrap();
        assert_eq!(there, l);
        all.extend(there.into_nonces().map(value));
    }
    a.close().unwrap();
    b.close().unwrap();
    check_all(&state, &all);

    // edited, foreign or damaged bytes are refused
    let mut s = NonceStore::open(&state, &key()).unwrap();
    let good = String::from_utf8(s.reserve(10).unwrap().to_bytes()).unwrap();
    for bad in [good.replace("count 10", "count 11"), good.replace("count 10", "count 010"), good[1..].to_string()] {
        let e = Lease::from_bytes(bad.as_bytes(), &key()).unwrap_err();
        assert!(matches!(e, NonceError::Corrupt { .. }), "{bad:?}: {e}");
    }
    let other = KeyBinding::derive("poly1305aes", &[1; 32]);
    assert!(matches!(Lease::from_bytes(good.as_bytes(), &other), Err(NonceError::WrongKey { .. })));
}
