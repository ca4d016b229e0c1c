//! Every vector of ../shared/vectors/mmh.json through the Rust API: the block
//! functions (group "block-functions", including the Appendix-A reduction
//! edge), and the MAC (group "mac": tree hash and tag) one-shot, with an
//! expanded key, streaming at random splits, in a batch, and through the
//! RustCrypto traits; and the reference model on the same vectors.

mod common;

use common::{bytes, vectors};
use digest::Mac;
use digest::common::KeyIvInit;
use rand::{Rng, SeedableRng};
use serde_json::Value;
use wegman::Error;
use wegman::mmh::{self, Alg, Item, MacKey, Mmh, block};
use wegman_ref::mmh as reference;

fn words(v: &Value, field: &str) -> Vec<u64> {
    v[field]
        .as_array()
        .unwrap_or_else(|| panic!("field {field}"))
        .iter()
        .map(|w| u64::from_str_radix(w.as_str().unwrap(), 16).unwrap())
        .collect()
}

fn m_len(v: &Value) -> usize {
    v["m_len"].as_u64().map(|n| n as usize).unwrap_or_else(|| v["m_len"].as_str().unwrap().parse().unwrap())
}

fn group(name: &str) -> Vec<Value> {
    vectors("mmh.json").into_iter().filter(|(g, _)| g == name).map(|(_, v)| v).collect()
}

struct MacVector {
    alg: Alg,
    key: [u8; 32],
    nonce: [u8; 16],
    m: Vec<u8>,
    tree: Vec<u8>,
    tag: Vec<u8>,
}

fn mac_vectors() -> Vec<MacVector> {
    group("mac")
        .iter()
        .map(|v| {
            let m = bytes(v, "m");
            assert_eq!(m.len(), m_len(v));
            MacVector {
                alg: v["alg"].as_str().unwrap().parse().unwrap(),
                key: bytes(v, "key").try_into().unwrap(),
                nonce: bytes(v, "nonce").try_into().unwrap(),
                m,
                tree: bytes(v, "tree"),
                tag: bytes(v, "tag"),
            }
        })
        .collect()
}

#[test]
fn the_file_has_what_we_expect() {
    let all = vectors("mmh.json");
    let blocks = group("block-functions");
    let macs = mac_vectors();
    assert_eq!(all.len(), blocks.len() + macs.len(), "only the two known groups");
    assert!(blocks.len() >= 121, "{}", blocks.len());
    for alg in Alg::ALL {
        let n = macs.iter().filter(|t| t.alg == alg).count();
        assert!(n >= 300, "{alg}: {n} vectors");
        // lengths around every block and the first multi-level messages are there
        for len in [0, 1, alg.block_bytes() - 1, alg.block_bytes(), alg.block_bytes() + 1, 4096, 65537] {
            assert!(macs.iter().any(|t| t.alg == alg && t.m.len() == len), "{alg} len {len}");
        }
    }
    for t in &macs {
        assert_eq!((t.tree.len(), t.tag.len()), (t.alg.tag_bytes(), t.alg.tag_bytes()));
    }
}

#[test]
fn block_functions() {
    let mut seen = [0usize; 3];
    for v in group("block-functions") {
        let name = v.get("name").and_then(Value::as_str).unwrap_or("");
        let x = words(&v, "key_words");
        let m = words(&v, "msg_words");
        let want = words(&v, "outputs_toeplitz");
        assert_eq!((x.len(), m.len()), (36, 32));
        match v["family"].as_str().unwrap() {
            "mmh32" => {
                let x32: Vec<u32> = x.iter().map(|&w| w as u32).collect();
                let m32: [u32; 32] = core::array::from_fn(|i| m[i] as u32);
                let got = u64::from(block::mmh32(x32[..32].try_into().unwrap(), &m32));
                assert_eq!(got, want[0], "{name}");
                if want.len() == 4 {
                    let four: [u32; 4] = block::mmh32_toeplitz(&x32, &m32);
                    assert_eq!(four.map(u64::from).to_vec(), want, "{name}");
                    let two: [u32; 2] = block::mmh32_toeplitz(&x32, &m32);
                    assert_eq!(two.map(u64::from).to_vec(), want[..2], "{name}");
                }
                assert_eq!(reference::toeplitz(reference::Family::Mmh32, want.len(), &x, &m), want, "{name}");
                seen[0] += 1;
            }
            "nmh32" => {
                let x32: [u32; 32] = core::array::from_fn(|i| x[i] as u32);
                let m32: [u32; 32] = core::array::from_fn(|i| m[i] as u32);
                assert_eq!(want.len(), 1);
                assert_eq!(u64::from(block::nmh32(&x32, &m32)), want[0]);
                assert_eq!(reference::nmh32(&x, &m), want[0]);
                seen[1] += 1;
            }
            "mmh64" => {
                let m64: [u64; 32] = m.clone().try_into().unwrap();
                assert_eq!(block::mmh64(x[..32].try_into().unwrap(), &m64), want[0]);
                let two: [u64; 2] = block::mmh64_toeplitz(&x, &m64);
                assert_eq!(two.to_vec(), want);
                assert_eq!(reference::toeplitz(reference::Family::Mmh64, 2, &x, &m), want);
                seen[2] += 1;
            }
            f => panic!("unknown family {f}"),
        }
    }
    assert_eq!(seen, [41, 40, 40]);
}

/// The paper's Appendix A reduction, transcribed: `utmp > p` where `>=` is needed.
fn appendix_a_reduce(sum: u64) -> u32 {
    let stmp = (sum & 0xffff_ffff) as i64 - ((sum >> 32) * 15) as i64;
    let utmp = ((stmp & 0xffff_ffff) - ((stmp >> 32) * 15)) as u64;
    let mut ret = utmp as u32;
    if utmp > 0x1_0000_000f {
        ret = ret.wrapping_sub(15);
    }
    ret
}

#[test]
fn the_appendix_a_edge_vector_is_really_the_edge() {
    let v = group("block-functions")
        .into_iter()
        .find(|v| v.get("name").and_then(Value::as_str).is_some_and(|n| n.contains("Appendix-A")))
        .expect("the Appendix-A vector");
    let x = words(&v, "key_words");
    let m = words(&v, "msg_words");
    let sum = (0..32).fold(0u64, |s, i| s.wrapping_add(x[i] * m[i]));
    assert_eq!(u128::from(sum) % ((1 << 32) + 15), 0, "the inner product is a multiple of p");
    assert_eq!(appendix_a_reduce(sum), 15, "the C code's answer");
    assert_eq!(words(&v, "outputs_toeplitz"), [0], "Definition 5's answer");
    let x32: [u32; 32] = core::array::from_fn(|i| x[i] as u32);
    let m32: [u32; 32] = core::array::from_fn(|i| m[i] as u32);
    assert_eq!(block::mmh32(&x32, &m32), 0);
}

#[test]
fn one_shot_expanded_key_and_tree() {
    for (i, t) in mac_vectors().iter().enumerate() {
        let ctx = format!("#{i} {} len {}", t.alg, t.m.len());
        let tag = mmh::mac(t.alg, &t.key, &t.nonce, &t.m).unwrap();
        assert_eq!(tag.as_bytes(), t.tag, "{ctx}");
        assert!(mmh::verify(t.alg, &t.key, &t.tag, &t.nonce, &t.m).is_ok(), "{ctx}");
        let key = MacKey::new(t.alg, &t.key);
        assert_eq!(key.tree_hash(&t.m).unwrap().as_bytes(), t.tree, "{ctx}");
        assert_eq!(key.mac(&t.nonce, &t.m).unwrap(), tag, "{ctx}");
        assert!(key.verify(&t.tag, &t.nonce, &t.m).is_ok(), "{ctx}");
        // flipping any tag bit is caught (first vectors of each length only; cheap)
        if t.m.len() < 4 {
            for bit in 0..8 * t.tag.len() {
                let mut bad = t.tag.clone();
                bad[bit / 8] ^= 1 << (bit % 8);
                assert_eq!(mmh::verify(t.alg, &t.key, &bad, &t.nonce, &t.m), Err(Error::TagMismatch));
                assert_eq!(key.verify(&bad, &t.nonce, &t.m), Err(Error::TagMismatch));
            }
        }
    }
}

#[test]
fn streaming_random_splits() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(0x4d4d_4832);
    let vs = mac_vectors();
    let keys: Vec<MacKey> = Alg::ALL.iter().map(|&a| MacKey::new(a, &[0; 32])).collect();
    for t in &vs {
        let key = MacKey::new(t.alg, &t.key);
        for round in 0..4 {
            let mut m = Mmh::new(&key, &t.nonce);
            let mut rest = &t.m[..];
            while !rest.is_empty() {
                let cap = if round % 2 == 0 { 40 } else { 600 };
                let take = rng.random_range(0..=rest.len().min(cap));
                m.update(&rest[..take]).unwrap();
                rest = &rest[take..];
            }
            assert_eq!(m.finalize().unwrap().as_bytes(), t.tag, "{} len {}", t.alg, t.m.len());
        }
        if t.m.len() <= 4096 {
            let mut m = key.start(&t.nonce);
            for b in &t.m {
                m.update(std::slice::from_ref(b)).unwrap();
            }
            assert!(m.verify(&t.tag).is_ok());
        }
    }
    drop(keys);
}

#[test]
fn batch_api() {
    let vs = mac_vectors();
    let vs: Vec<&MacVector> = vs.iter().filter(|t| t.m.len() <= 600).collect();
    let keys: Vec<MacKey> = vs.iter().map(|t| MacKey::new(t.alg, &t.key)).collect();
    let items: Vec<Item> = vs.iter().zip(&keys).map(|(t, key)| Item { key, nonce: &t.nonce, message: &t.m }).collect();
    let mut tags = vec![mmh::mac(Alg::Mmh32, &[0; 32], &[0; 16], b"").unwrap(); items.len()];
    mmh::mac_many(&items, &mut tags).unwrap();
    for (tag, t) in tags.iter().zip(&vs) {
        assert_eq!(tag.as_bytes(), t.tag);
    }
    let mut ok = vec![false; items.len()];
    assert_eq!(mmh::verify_many(&items, &tags, &mut ok), Ok(true));
    assert!(ok.iter().all(|&b| b));
    // raw byte strings work as tags too; one corrupted, one of the wrong length
    let mut raw: Vec<Vec<u8>> = vs.iter().map(|t| t.tag.clone()).collect();
    raw[7][0] ^= 0x40;
    raw[11].push(0);
    assert_eq!(mmh::verify_many(&items, &raw, &mut ok), Ok(false));
    assert_eq!(ok.iter().filter(|&&b| !b).count(), 2);
    assert!(!ok[7] && !ok[11]);
    // mismatched lengths are an error, not a panic
    assert!(mmh::mac_many(&items, &mut tags[..3]).is_err());
    assert!(mmh::verify_many(&items, &tags, &mut ok[..1]).is_err());
}

fn via_trait<M: Mac + KeyIvInit>(t: &MacVector, rng: &mut impl Rng) -> Vec<u8> {
    let mut m = M::new_from_slices(&t.key, &t.nonce).unwrap();
    let mut rest = &t.m[..];
    while !rest.is_empty() {
        let take = rng.random_range(0..=rest.len().min(300));
        m.update(&rest[..take]);
        rest = &rest[take..];
    }
    let out = m.finalize().into_bytes().to_vec();
    // verify_slice agrees, and the fixed-size constructor gives the same
    let key = digest::common::Key::<M>::try_from(&t.key[..]).unwrap();
    let iv = digest::common::Iv::<M>::try_from(&t.nonce[..]).unwrap();
    let m2 = M::new(&key, &iv);
    assert!(m2.chain_update(&t.m).verify_slice(&t.tag).is_ok());
    assert!(M::new_from_slices(&t.key[..31], &t.nonce).is_err());
    out
}

#[test]
fn rustcrypto_mac_types() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(7);
    for t in mac_vectors().iter().filter(|t| t.m.len() <= 5000) {
        let got = match t.alg {
            Alg::Mmh32 => via_trait::<mmh::Mmh32Mac>(t, &mut rng),
            Alg::Mmh32x2 => via_trait::<mmh::Mmh32x2Mac>(t, &mut rng),
            Alg::Mmh32x3 => via_trait::<mmh::Mmh32x3Mac>(t, &mut rng),
            Alg::Mmh32x4 => via_trait::<mmh::Mmh32x4Mac>(t, &mut rng),
            Alg::Nmh32 => via_trait::<mmh::Nmh32Mac>(t, &mut rng),
            Alg::Mmh64 => via_trait::<mmh::Mmh64Mac>(t, &mut rng),
            Alg::Mmh64x2 => via_trait::<mmh::Mmh64x2Mac>(t, &mut rng),
        };
        assert_eq!(got, t.tag, "{} len {}", t.alg, t.m.len());
    }
}

#[test]
fn reference_model_agrees_with_the_vectors() {
    for t in mac_vectors().iter().filter(|t| t.m.len() <= 5000 || t.alg == Alg::Mmh32x3) {
        let name = t.alg.name();
        let ks: [u8; 16] = t.key[16..].try_into().unwrap();
        assert_eq!(reference::tree_hash(name, &ks, &t.m).unwrap(), t.tree, "{name} len {}", t.m.len());
        assert_eq!(reference::mac(name, &t.key, &t.nonce, &t.m).unwrap(), t.tag, "{name} len {}", t.m.len());
    }
}

#[test]
fn names_labels_and_parsing() {
    let expect = [
        ("mmh32", "MMH32", 4),
        ("mmh32x2", "MMH32X2", 8),
        ("mmh32x3", "MMH32X3", 12),
        ("mmh32x4", "MMH32X4", 16),
        ("nmh32", "NMH32", 4),
        ("mmh64", "MMH64", 8),
        ("mmh64x2", "MMH64X2", 16),
    ];
    for (alg, (name, label, tag)) in Alg::ALL.into_iter().zip(expect) {
        assert_eq!((alg.name(), alg.label(), alg.tag_bytes()), (name, label, tag));
        assert_eq!(name.parse::<Alg>(), Ok(alg));
        assert_eq!(label.parse::<Alg>(), Ok(alg));
        assert_eq!(alg.to_string(), name);
        assert_eq!(reference::params(name).out_bytes(), tag);
    }
    for bad in ["", "mmh", "mmh16", "mmh32x5", "nmh32x2", "mmh64x4", " mmh32"] {
        assert_eq!(bad.parse::<Alg>(), Err(Error::UnknownAlgorithm), "{bad:?}");
    }
    let sizes: Vec<usize> = Alg::ALL.iter().map(|a| a.expanded_key_bytes()).collect();
    assert_eq!(sizes, [2048, 2112, 2176, 2240, 2048, 4096, 4224]);
}

#[test]
fn wrong_lengths_and_debug() {
    let key = MacKey::new(Alg::Mmh64, &[0xab; 32]);
    let tag = key.mac(&[0; 16], b"x").unwrap();
    assert_eq!(
        key.verify(&tag.as_bytes()[..4], &[0; 16], b"x"),
        Err(Error::InvalidLength { what: "tag", expected: 8, got: 4 })
    );
    assert!(mmh::verify(Alg::Mmh64, &[0xab; 32], &[], &[0; 16], b"x").is_err());
    assert!(MacKey::from_slice(Alg::Mmh32, &[0; 31]).is_err());
    assert_eq!(MacKey::from_slice(Alg::Mmh64, &[0xab; 32]).unwrap().mac(&[0; 16], b"x").unwrap(), tag);
    for text in [
        format!("{key:?}"),
        format!("{:?}", key.start(&[0; 16])),
        format!("{:?}", mmh::Mmh64Mac::new(&[0xab; 32].into(), &[0; 16].into())),
    ] {
        assert!(!text.contains("171") && !text.contains("0xab") && !text.contains("abab"), "{text}");
    }
    assert_eq!(format!("{tag:?}").len(), "Tag()".len() + 16);
}

#[test]
fn cloned_streams_continue_independently() {
    for t in mac_vectors().iter().filter(|t| t.m.len() == 65537) {
        let key = MacKey::new(t.alg, &t.key);
        let mut a = key.start(&t.nonce);
        a.update(&t.m[..40_000]).unwrap();
        let mut b = a.clone();
        a.update(&t.m[40_000..]).unwrap();
        b.update(&t.m[40_000..50_000]).unwrap();
        b.update(&t.m[50_000..]).unwrap();
        assert_eq!(a.finalize().unwrap().as_bytes(), t.tag);
        assert_eq!(b.finalize().unwrap().as_bytes(), t.tag);
    }
}
