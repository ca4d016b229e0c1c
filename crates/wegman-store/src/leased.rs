//! Tagging with no nonce store at hand: the worker's half of a distributed
//! `tag` (the Python package's `wegman.distributed`).
//!
//! The driver holds the key's nonce store and hands each batch of files a
//! [`Lease`] of nonces; a worker holds a [`WorkerKey`] made from the key
//! file's bytes, checks the lease is this key's and unedited, and tags each
//! file with the lease's next nonce into the exact manifest line `wegman tag`
//! would write. The driver then puts the lines in order and seals them
//! ([`seal_line`]) under a nonce of its own store. A worker verifies lines
//! for a distributed `check` with [`crate::check::verify_listed`] and
//! [`crate::check::verify_read`].

use std::io::{self, Read};
use std::path::Path;

use crate::algs::{AnyKey, MacAlg};
use crate::nonce::{KeyBinding, Lease, NonceStore};
use crate::progress::NoProgress;
use crate::{input, keyfile, manifest};

/// A key read from a key file's bytes, with the binding its leases are
/// checked under. Never printed.
pub struct WorkerKey {
    key: AnyKey,
    binding: KeyBinding,
}

impl std::fmt::Debug for WorkerKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "WorkerKey({})", self.key.alg())
    }
}

impl WorkerKey {
    /// The key of a key file in the wegman format (its bytes, as read),
    /// for a MAC algorithm.
    pub fn from_key_file(bytes: &[u8]) -> Result<Self, String> {
        let material = keyfile::parse_material(bytes).map_err(|e| format!("<key>: {e}"))?;
        let (key, binding) = keyfile::managed_from(Path::new("<key>"), &material, None)?;
        Ok(WorkerKey { key, binding })
    }

    /// The key.
    pub fn key(&self) -> &AnyKey {
        &self.key
    }

    /// The algorithm.
    pub fn alg(&self) -> MacAlg {
        self.key.alg()
    }

    /// The nonces of a lease ([`Lease::to_bytes`]), once it is checked to
    /// be this key's and unedited.
    pub fn lease_nonces(&self, lease: &[u8]) -> Result<Vec<[u8; 16]>, String> {
        let lease = Lease::from_bytes(lease, &self.binding).map_err(|e| e.to_string())?;
        Ok(lease.into_nonces().collect())
    }

    /// The manifest line of the regular file `name` (opened by that name),
    /// tagged under `nonce`: the line `wegman tag` writes for it.
    pub fn tag_path(&self, name: &str, nonce: &[u8; 16]) -> io::Result<String> {
        let file = input::open_listed(Path::new(name), false)?;
        self.tag_read(name, nonce, file)
    }

    /// As [`WorkerKey::tag_path`], the contents read from `file`.
    pub fn tag_read(&self, name: &str, nonce: &[u8; 16], file: impl Read) -> io::Result<String> {
        let prefix = manifest::file_message_prefix(name);
        let tag = input::mac_of(&self.key, nonce, &prefix, file, &NoProgress)?.finalize().map_err(io::Error::other)?;
        Ok(self.line(name, nonce, &tag))
    }

    /// The manifest line for `name` with this nonce and tag.
    pub fn line(&self, name: &str, nonce: &[u8; 16], tag: &[u8]) -> String {
        manifest::format(self.key.alg(), name, nonce, tag)
    }
}

/// The seal line over `lines` (each without its newline), under the next
/// nonce of `store`: the line that ends `wegman tag`'s manifest of them.
pub fn seal_line<S: AsRef<str>>(key: &AnyKey, store: &mut NonceStore, lines: &[S]) -> Result<String, String> {
    for l in lines {
        let l = l.as_ref();
        if l.contains(['\n', '\r'])
            || !matches!(manifest::parse(l), Some(manifest::Entry::File(f)) if f.alg == key.alg())
        {
            return Err(format!("not a {} file line of a manifest: {l:?}", key.alg().label()));
        }
    }
    let nonce = store.next_nonce().map_err(|e| e.to_string())?;
    let mut sealer = manifest::Sealer::new(key.start(&nonce)).map_err(|e| e.to_string())?;
    for l in lines {
        sealer.line(l.as_ref().as_bytes()).map_err(|e| e.to_string())?;
    }
    let count = sealer.lines();
    let tag = sealer.finish().and_then(|m| m.finalize()).map_err(|e| e.to_string())?;
    Ok(manifest::format_seal(key.alg(), count, &nonce, &tag))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::{self, CheckOptions};

    /// A new Poly1305-AES key file `name` in `dir`, its key and its open
    /// nonce store.
    fn keyed(dir: &Path, name: &str) -> (std::path::PathBuf, AnyKey, NonceStore) {
        let key_path = dir.join(name);
        keyfile::keygen(&key_path, MacAlg::Poly1305aes).unwrap();
        let (key, binding) = keyfile::read_managed(&key_path, None).unwrap();
        let store = NonceStore::open(&crate::nonce::state_path_for_key(&key_path).unwrap(), &binding).unwrap();
        (key_path, key, store)
    }

    /// A manifest made of lines tagged with a lease's nonces and sealed by
    /// `seal_line` passes `check`; the lease's nonces are not the store's.
    #[test]
    fn leased_lines_and_their_seal_pass_check() {
        let dir = tempfile::tempdir().unwrap();
        let (key_path, key, mut store) = keyed(dir.path(), "key");
        let lease = store.reserve(3).unwrap().to_bytes();
        let worker = WorkerKey::from_key_file(&std::fs::read(&key_path).unwrap()).unwrap();
        let nonces = worker.lease_nonces(&lease).unwrap();
        assert_eq!(nonces.len(), 3);
        let mut lines = Vec::new();
        for (i, nonce) in nonces.iter().enumerate() {
            let name = dir.path().join(format!("f{i}"));
            std::fs::write(&name, vec![i as u8; i * 100]).unwrap();
            lines.push(worker.tag_path(name.to_str().unwrap(), nonce).unwrap());
        }
        let seal = seal_line(&key, &mut store, &lines).unwrap();
        assert!(!nonces.iter().any(|n| seal.contains(&crate::hex::encode(n))));
        store.close().unwrap();
        let manifest = dir.path().join("MANIFEST");
        std::fs::write(&manifest, format!("{}\n{seal}\n", lines.join("\n"))).unwrap();
        let mut out = Lines::default();
        assert_eq!(check::run_to(&CheckOptions::new(key_path.clone(), manifest.clone()), &mut out).unwrap(), 0);
        assert_eq!(out.0.len(), 3);
        // a line dropped after sealing fails the seal
        std::fs::write(&manifest, format!("{}\n{seal}\n", lines[1..].join("\n"))).unwrap();
        assert_eq!(check::run_to(&CheckOptions::new(key_path, manifest), &mut Lines::default()).unwrap(), 1);
    }

    /// `{:?}` names the algorithm and shows nothing of the key.
    #[test]
    fn debug_shows_the_algorithm_not_the_key() {
        let dir = tempfile::tempdir().unwrap();
        let key_path = dir.path().join("key");
        keyfile::keygen(&key_path, MacAlg::Poly1305aes).unwrap();
        let text = std::fs::read_to_string(&key_path).unwrap();
        let digits = text.rsplit("key ").next().unwrap().trim();
        let shown = format!("{:?}", WorkerKey::from_key_file(text.as_bytes()).unwrap());
        assert_eq!(shown, "WorkerKey(poly1305aes)");
        assert!(!shown.contains(&digits[..8]));
    }

    /// A lease of another key, or an edited one, gives no nonces.
    #[test]
    fn a_foreign_or_edited_lease_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let (a, _, mut store) = keyed(dir.path(), "a");
        let (b, _, _) = keyed(dir.path(), "b");
        let lease = store.reserve(5).unwrap().to_bytes();
        let other = WorkerKey::from_key_file(&std::fs::read(&b).unwrap()).unwrap();
        assert!(other.lease_nonces(&lease).is_err());
        let own = WorkerKey::from_key_file(&std::fs::read(&a).unwrap()).unwrap();
        assert_eq!(own.lease_nonces(&lease).unwrap().len(), 5);
        let edited = String::from_utf8(lease).unwrap().replace("count 5", "count 6");
        assert!(own.lease_nonces(edited.as_bytes()).is_err());
    }

    /// `seal_line` refuses what is not a file line of the key's algorithm
    /// (a seal, a line with a newline, another algorithm), before it takes
    /// a nonce.
    #[test]
    fn seal_line_refuses_other_lines() {
        let dir = tempfile::tempdir().unwrap();
        let (key_path, key, mut store) = keyed(dir.path(), "key");
        let worker = WorkerKey::from_key_file(&std::fs::read(&key_path).unwrap()).unwrap();
        let good = worker.line("a", &[1; 16], &[2; 16]);
        let seal = seal_line(&key, &mut store, &[&good]).unwrap();
        for bad in [seal.clone(), format!("{good}\n{good}"), good.replace("POLY1305-AES", "MMH32"), String::new()] {
            assert!(seal_line(&key, &mut store, &[good.clone(), bad]).is_err());
        }
        // none of the refusals took a nonce: the next seal has the next one
        let nonce_of = |line: &str| {
            u128::from_le_bytes(
                crate::manifest::parse(line)
                    .map(|e| match e {
                        crate::manifest::Entry::Seal(s) => s.nonce,
                        crate::manifest::Entry::File(_) => panic!("not a seal"),
                    })
                    .unwrap(),
            )
        };
        let next = seal_line(&key, &mut store, &[&good]).unwrap();
        assert_eq!(nonce_of(&next), nonce_of(&seal) + 1);
    }

    #[derive(Default)]
    struct Lines(Vec<String>);

    impl crate::sink::Sink for Lines {
        fn line(&mut self, text: &str) -> Result<(), String> {
            self.0.push(text.to_string());
            Ok(())
        }
        fn warn(&mut self, _: std::fmt::Arguments<'_>) {}
    }
}
