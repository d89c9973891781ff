//! Authenticated encryption: `encrypt` and `decrypt` a message of `len` bytes with `ad`
//! bytes of associated data, in place, the tag kept apart.

use std::cell::RefCell;
use std::hint::black_box;
use std::marker::PhantomData;

use super::super::buffer::Buffer;
use crate::record::{Param, Params};

use super::super::reference;
use super::super::{Call, Implementation, Kind, Mismatch, Operation, PrepareError, pattern};
use super::{Faults, boundary_lengths, param, refused, unhex};

/// What a provider implements for an AEAD.
pub trait AeadCipher: Send + 'static {
    /// The algorithm implemented: its sizes, and the vectors and reference the gate uses.
    const ALGORITHM: &'static AeadAlgorithm;
    /// `key` has the length the algorithm declares.
    fn new(key: &[u8]) -> Self;
    /// Encrypt `buf` in place and write its tag to `tag`.
    fn encrypt(&mut self, nonce: &[u8], ad: &[u8], buf: &mut [u8], tag: &mut [u8]);
    /// Decrypt `buf` in place if `tag` authenticates it; `false` (and `buf` in any state)
    /// if not.
    fn decrypt(&mut self, nonce: &[u8], ad: &[u8], buf: &mut [u8], tag: &[u8]) -> bool;
}

/// The facts about an algorithm that every provider of it shares.
pub struct AeadAlgorithm {
    /// The algorithm's name, e.g. `aes-128-gcm`: the second half of `provider/algorithm`.
    pub name: &'static str,
    /// Key length in bytes.
    pub key_len: usize,
    /// Nonce length in bytes.
    pub nonce_len: usize,
    /// Tag length in bytes.
    pub tag_len: usize,
    /// Size of the cipher's blocks: where partial-block bugs hide.
    pub block_len: usize,
    /// Published examples, checked first.
    pub vectors: &'static [AeadVector],
    /// An independent implementation.
    pub reference: Seal,
}

/// Every algorithm of this kind with known answers: what a name is checked against.
pub static ALL: [&AeadAlgorithm; 3] = [&AES_128_GCM, &AES_256_GCM, &CHACHA20_POLY1305];

/// The algorithm of this name whose known answers and reference any implementation of it
/// (a C build included) is checked against.
pub fn algorithm(name: &str) -> Option<&'static AeadAlgorithm> {
    ALL.into_iter().find(|a| a.name == name)
}

/// Encrypt `msg`: (ciphertext, tag).
pub type Seal = fn(key: &[u8], nonce: &[u8], ad: &[u8], msg: &[u8]) -> (Vec<u8>, Vec<u8>);

/// A published example, hex-encoded.
pub struct AeadVector {
    /// Where the example is published; failing checks name it.
    pub source: &'static str,
    /// The key, hex.
    pub key: &'static str,
    /// The nonce, hex.
    pub nonce: &'static str,
    /// The associated data, hex.
    pub ad: &'static str,
    /// The message, hex.
    pub plaintext: &'static str,
    /// The expected ciphertext without the tag, hex.
    pub ciphertext: &'static str,
    /// The expected tag, hex.
    pub tag: &'static str,
}

// Every vector below was also checked against Python's `cryptography` package.

/// The messages of the GCM specification's test cases (McGrew and Viega, "The Galois/Counter
/// Mode of Operation", appendix B), shared by its AES-128 and AES-256 cases.
const GCM_KEY: &str = "feffe9928665731c6d6a8f9467308308";
const GCM_IV: &str = "cafebabefacedbaddecaf888";
const GCM_AD: &str = "feedfacedeadbeeffeedfacedeadbeefabaddad2";
const GCM_P64: &str = "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a721c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b391aafd255";
const GCM_P60: &str = "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a721c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b39";
const ZERO_IV: &str = "000000000000000000000000";
const ZERO_BLOCK: &str = "00000000000000000000000000000000";

/// AES-128-GCM (NIST SP 800-38D) with a 12-byte nonce and a 16-byte tag.
pub static AES_128_GCM: AeadAlgorithm = AeadAlgorithm {
    name: "aes-128-gcm",
    key_len: 16,
    nonce_len: 12,
    tag_len: 16,
    block_len: 16,
    vectors: &[
        AeadVector {
            source: "GCM specification test case 1",
            key: ZERO_BLOCK,
            nonce: ZERO_IV,
            ad: "",
            plaintext: "",
            ciphertext: "",
            tag: "58e2fccefa7e3061367f1d57a4e7455a",
        },
        AeadVector {
            source: "GCM specification test case 2",
            key: ZERO_BLOCK,
            nonce: ZERO_IV,
            ad: "",
            plaintext: ZERO_BLOCK,
            ciphertext: "0388dace60b6a392f328c2b971b2fe78",
            tag: "ab6e47d42cec13bdf53a67b21257bddf",
        },
        AeadVector {
            source: "GCM specification test case 3",
            key: GCM_KEY,
            nonce: GCM_IV,
            ad: "",
            plaintext: GCM_P64,
            ciphertext: "42831ec2217774244b7221b784d0d49ce3aa212f2c02a4e035c17e2329aca12e21d514b25466931c7d8f6a5aac84aa051ba30b396a0aac973d58e091473f5985",
            tag: "4d5c2af327cd64a62cf35abd2ba6fab4",
        },
        AeadVector {
            source: "GCM specification test case 4",
            key: GCM_KEY,
            nonce: GCM_IV,
            ad: GCM_AD,
            plaintext: GCM_P60,
            ciphertext: "42831ec2217774244b7221b784d0d49ce3aa212f2c02a4e035c17e2329aca12e21d514b25466931c7d8f6a5aac84aa051ba30b396a0aac973d58e091",
            tag: "5bc94fbc3221a5db94fae95ae7121a47",
        },
    ],
    reference: aes_gcm_reference,
};

/// AES-256-GCM (NIST SP 800-38D) with a 12-byte nonce and a 16-byte tag.
pub static AES_256_GCM: AeadAlgorithm = AeadAlgorithm {
    name: "aes-256-gcm",
    key_len: 32,
    nonce_len: 12,
    tag_len: 16,
    block_len: 16,
    vectors: &[
        AeadVector {
            source: "GCM specification test case 13",
            key: "0000000000000000000000000000000000000000000000000000000000000000",
            nonce: ZERO_IV,
            ad: "",
            plaintext: "",
            ciphertext: "",
            tag: "530f8afbc74536b9a963b4f1c4cb738b",
        },
        AeadVector {
            source: "GCM specification test case 14",
            key: "0000000000000000000000000000000000000000000000000000000000000000",
            nonce: ZERO_IV,
            ad: "",
            plaintext: ZERO_BLOCK,
            ciphertext: "cea7403d4d606b6e074ec5d3baf39d18",
            tag: "d0d1c8a799996bf0265b98b5d48ab919",
        },
        AeadVector {
            source: "GCM specification test case 15",
            key: "feffe9928665731c6d6a8f9467308308feffe9928665731c6d6a8f9467308308",
            nonce: GCM_IV,
            ad: "",
            plaintext: GCM_P64,
            ciphertext: "522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662898015ad",
            tag: "b094dac5d93471bdec1a502270e3cc6c",
        },
        AeadVector {
            source: "GCM specification test case 16",
            key: "feffe9928665731c6d6a8f9467308308feffe9928665731c6d6a8f9467308308",
            nonce: GCM_IV,
            ad: GCM_AD,
            plaintext: GCM_P60,
            ciphertext: "522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662",
            tag: "76fc6ece0f4e1768cddf8853bb2d551b",
        },
    ],
    reference: aes_gcm_reference,
};

/// ChaCha20-Poly1305 as RFC 8439 section 2.8 defines it.
pub static CHACHA20_POLY1305: AeadAlgorithm = AeadAlgorithm {
    name: "chacha20-poly1305",
    key_len: 32,
    nonce_len: 12,
    tag_len: 16,
    block_len: 64,
    vectors: &[AeadVector {
        source: "RFC 8439 section 2.8.2",
        key: "808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f",
        nonce: "070000004041424344454647",
        ad: "50515253c0c1c2c3c4c5c6c7",
        plaintext: "4c616469657320616e642047656e746c656d656e206f662074686520636c617373206f66202739393a204966204920636f756c64206f6666657220796f75206f6e6c79206f6e652074697020666f7220746865206675747572652c2073756e73637265656e20776f756c642062652069742e",
        ciphertext: "d31a8d34648e60db7b86afbc53ef7ec2a4aded51296e08fea9e2b5a736ee62d63dbea45e8ca9671282fafb69da92728b1a71de0a9e060b2905d6a5b67ecd3b3692ddbd7f2d778b8c9803aee328091b58fab324e4fad675945585808b4831d7bc3ff4def08e4b7a9de576d26586cec64b6116",
        tag: "1ae10b594f09e26a7e902ecbd0600691",
    }],
    reference: |key, nonce, ad, msg| {
        let key: [u8; 32] = key.try_into().expect("ChaCha20-Poly1305 key is 32 bytes");
        let nonce: [u8; 12] = nonce
            .try_into()
            .expect("ChaCha20-Poly1305 nonce is 12 bytes");
        let (ct, tag) = reference::chacha20poly1305::encrypt(&key, &nonce, ad, msg);
        (ct, tag.to_vec())
    },
};

fn aes_gcm_reference(key: &[u8], nonce: &[u8], ad: &[u8], msg: &[u8]) -> (Vec<u8>, Vec<u8>) {
    let iv: [u8; 12] = nonce.try_into().expect("GCM nonce is 12 bytes");
    let (ct, tag) = reference::aes::Aes::new(key).gcm_encrypt(&iv, ad, msg);
    (ct, tag.to_vec())
}

/// The operations every implementation of this kind offers (C builds included).
pub const OPERATIONS: &[Operation] = &[
    Operation {
        name: "encrypt",
        params: &[Param::Len, Param::Ad],
    },
    Operation {
        name: "decrypt",
        params: &[Param::Len, Param::Ad],
    },
];

/// Any [`AeadCipher`] as an [`Implementation`].
pub struct Aead<A> {
    provider: &'static str,
    cipher: PhantomData<fn() -> A>,
}

impl<A: AeadCipher> Aead<A> {
    /// The adapter for `A`, credited to `provider` (e.g. `rustcrypto`).
    pub const fn new(provider: &'static str) -> Self {
        Aead {
            provider,
            cipher: PhantomData,
        }
    }
}

/// An AEAD as the gate calls it, Rust or C alike, in SUPERCOP's form: every call takes
/// the key, and a sealed message is the ciphertext followed by the tag.
pub trait Sealer {
    /// `case.msg` sealed, or why the implementation would not (a C function's name and
    /// return code).
    fn seal(&self, case: &Case) -> Result<Vec<u8>, String>;
    /// The message in `sealed`, or why not: a refused tag, or a C function's error, which
    /// C's `crypto_aead_decrypt` does not tell apart.
    fn open(&self, case: &Case, sealed: &[u8]) -> Result<Vec<u8>, String>;
}

/// What one check seals: `msg` under `key`, `nonce` and associated data `ad`.
pub struct Case<'a> {
    /// The key.
    pub key: &'a [u8],
    /// The nonce.
    pub nonce: &'a [u8],
    /// The associated data.
    pub ad: &'a [u8],
    /// The message to seal.
    pub msg: &'a [u8],
}

/// The gate of every implementation of `alg`, the Rust catalog's and C builds alike: the
/// published vectors, then [`lengths`] of message and AD against the reference written
/// from the standard, each opened again and forged ([`authenticates`]).
pub fn conformance(alg: &AeadAlgorithm, aead: &impl Sealer) -> Result<(), Mismatch> {
    for v in alg.vectors {
        let (key, nonce, ad, msg) = (
            unhex(v.key),
            unhex(v.nonce),
            unhex(v.ad),
            unhex(v.plaintext),
        );
        let case = Case {
            key: &key,
            nonce: &nonce,
            ad: &ad,
            msg: &msg,
        };
        let what = format!("{} ({})", alg.name, v.source);
        check(aead, &what, &case, (&unhex(v.ciphertext), &unhex(v.tag)))?;
    }
    for (len, ad_len) in lengths(alg.block_len) {
        against_reference(alg, aead, len, ad_len)?;
    }
    Ok(())
}

/// A `len`-byte message with `ad_len` bytes of AD sealed against the reference, opened
/// again and forged ([`authenticates`]): the gate's check at each of its [`lengths`], and
/// at each point a run measures.
pub fn against_reference(
    alg: &AeadAlgorithm,
    aead: &impl Sealer,
    len: usize,
    ad_len: usize,
) -> Result<(), Mismatch> {
    let key = pattern(alg.key_len);
    let nonce: Vec<u8> = pattern(alg.nonce_len).iter().map(|b| b ^ 0xa5).collect();
    let ad: Vec<u8> = pattern(ad_len).iter().map(|b| b ^ 0x3c).collect();
    let msg = pattern(len);
    let case = Case {
        key: &key,
        nonce: &nonce,
        ad: &ad,
        msg: &msg,
    };
    let (ct, tag) = (alg.reference)(&key, &nonce, &ad, &msg);
    let what = format!("{len}-byte message, {ad_len}-byte ad against the reference implementation");
    check(aead, &what, &case, (&ct, &tag))
}

/// The (message, AD) lengths of the gate for blocks of `block_len` bytes: every boundary
/// length of the message with AD empty, short, and around one block.
pub fn lengths(block_len: usize) -> impl Iterator<Item = (usize, usize)> {
    boundary_lengths(block_len)
        .into_iter()
        .flat_map(move |len| [0, 1, 13, block_len, block_len + 1].map(|ad| (len, ad)))
}

/// Seal `case` and compare with the expected ciphertext and tag, then [`authenticates`].
fn check(
    aead: &impl Sealer,
    what: &str,
    case: &Case,
    (ct, tag): (&[u8], &[u8]),
) -> Result<(), Mismatch> {
    let sealed = aead.seal(case).map_err(refused(what))?;
    let (got_ct, got_tag) = sealed.split_at(ct.len().min(sealed.len()));
    Mismatch::check_bytes(&format!("{what}: encrypt, ciphertext"), got_ct, ct)?;
    Mismatch::check_bytes(&format!("{what}: encrypt, tag"), got_tag, tag)?;
    authenticates(aead, what, case, &sealed, tag.len())
}

/// `sealed`, what `case` seals to with a tag of `tag_len` bytes, must open to the message,
/// and none of its forgeries may open.
pub fn authenticates(
    aead: &impl Sealer,
    what: &str,
    case: &Case,
    sealed: &[u8],
    tag_len: usize,
) -> Result<(), Mismatch> {
    if tag_len == 0 {
        return Err(Mismatch::new(
            what,
            "a tag of 0 bytes authenticates nothing",
        ));
    }
    // SUPERCOP lets CRYPTO_ABYTES be the most a ciphertext grows; the AEADs measured here
    // (and the LWC API) grow by exactly the tag, so anything else is a wrong length.
    if sealed.len() != case.msg.len() + tag_len {
        return Err(Mismatch::new(
            what,
            format!(
                "sealed to {} bytes: the message has {} and the tag {tag_len}",
                sealed.len(),
                case.msg.len()
            ),
        ));
    }
    let opened = aead
        .open(case, sealed)
        .map_err(|why| Mismatch::new(what, format!("decryption refused the right tag ({why})")))?;
    Mismatch::check_bytes(&format!("{what}: decrypt"), &opened, case.msg)?;
    for (forged, ad, change) in forgeries(case, sealed) {
        if aead.open(&Case { ad: &ad, ..*case }, &forged).is_ok() {
            return Err(Mismatch::new(what, format!("decryption accepted {change}")));
        }
    }
    Ok(())
}

/// What `sealed` (`case` sealed) turns into when forged: (sealed, AD, what changed). A bit
/// flipped in the tag's first byte, its last byte changed (a tag compared only in part
/// lets one of the two through), a changed ciphertext, changed associated data.
fn forgeries(case: &Case, sealed: &[u8]) -> Vec<(Vec<u8>, Vec<u8>, &'static str)> {
    let flip = |v: &[u8], i: usize| {
        let mut v = v.to_vec();
        v[i] ^= 0x01;
        v
    };
    let ad = case.ad.to_vec();
    let tag_at = case.msg.len();
    let mut forged = vec![
        (
            flip(sealed, tag_at),
            ad.clone(),
            "a tag with one bit flipped",
        ),
        (
            flip(sealed, sealed.len() - 1),
            ad.clone(),
            "a tag with its last byte changed",
        ),
    ];
    if tag_at > 0 {
        forged.push((flip(sealed, tag_at - 1), ad.clone(), "a changed ciphertext"));
    }
    if !ad.is_empty() {
        forged.push((sealed.to_vec(), flip(&ad, 0), "changed associated data"));
    }
    forged
}

/// An [`AeadCipher`] as a [`Sealer`]: one instance per key, kept from one message to the
/// next to check that nothing leaks between them.
struct Keyed<A>(RefCell<Option<(Vec<u8>, A)>>);

impl<A: AeadCipher> Keyed<A> {
    /// `f` on the instance for `key`.
    fn with<R>(&self, key: &[u8], f: impl FnOnce(&mut A) -> R) -> R {
        let mut keyed = self.0.borrow_mut();
        if keyed.as_ref().is_none_or(|(k, _)| k != key) {
            *keyed = Some((key.to_vec(), A::new(key)));
        }
        f(&mut keyed.as_mut().expect("made above").1)
    }
}

impl<A: AeadCipher> Sealer for Keyed<A> {
    fn seal(&self, case: &Case) -> Result<Vec<u8>, String> {
        let mut sealed = case.msg.to_vec();
        sealed.resize(case.msg.len() + A::ALGORITHM.tag_len, 0);
        let (buf, tag) = sealed.split_at_mut(case.msg.len());
        self.with(case.key, |a| a.encrypt(case.nonce, case.ad, buf, tag));
        Ok(sealed)
    }

    fn open(&self, case: &Case, sealed: &[u8]) -> Result<Vec<u8>, String> {
        let (ct, tag) = sealed.split_at(sealed.len() - A::ALGORITHM.tag_len);
        let mut buf = ct.to_vec();
        if self.with(case.key, |a| a.decrypt(case.nonce, case.ad, &mut buf, tag)) {
            Ok(buf)
        } else {
            Err("decrypt returned false".into())
        }
    }
}

impl AeadAlgorithm {
    /// What is wrong in this description: lengths of 0, vectors not hex or not of its
    /// lengths.
    pub fn faults(&self) -> Vec<String> {
        let mut f = Faults::new();
        f.positive("tag_len", self.tag_len);
        f.positive("block_len", self.block_len);
        for (i, v) in self.vectors.iter().enumerate() {
            let at = (i, v.source);
            f.hex(at, "key", v.key, Some((self.key_len, "key_len")));
            f.hex(at, "nonce", v.nonce, Some((self.nonce_len, "nonce_len")));
            f.hex(at, "ad", v.ad, None);
            f.hex(at, "tag", v.tag, Some((self.tag_len, "tag_len")));
            if let Some(len) = f.hex(at, "plaintext", v.plaintext, None) {
                f.hex(at, "ciphertext", v.ciphertext, Some((len, "its plaintext")));
            }
        }
        f.into_vec()
    }
}

impl<A: AeadCipher> Implementation for Aead<A> {
    fn provider(&self) -> &str {
        self.provider
    }
    fn algorithm(&self) -> &str {
        A::ALGORITHM.name
    }
    fn kind(&self) -> Kind {
        Kind::Aead
    }
    fn operations(&self) -> &[Operation] {
        OPERATIONS
    }

    fn description_faults(&self) -> Vec<String> {
        A::ALGORITHM.faults()
    }

    fn verify(&self) -> Result<(), Mismatch> {
        conformance(A::ALGORITHM, &Keyed::<A>(RefCell::new(None)))
    }

    fn verify_at(&self, operation: &str, params: &Params) -> Result<(), Mismatch> {
        let (Ok(len), Ok(ad_len)) = (
            param(self, operation, params, Param::Len),
            param(self, operation, params, Param::Ad),
        ) else {
            return Ok(());
        };
        // Encryption and decryption alike: the check seals, then opens.
        against_reference(A::ALGORITHM, &Keyed::<A>(RefCell::new(None)), len, ad_len)
    }

    fn prepare(&self, operation: &str, params: &Params) -> Result<Box<dyn Call>, PrepareError> {
        let op = self.operation(operation)?.name;
        let len = param(self, operation, params, Param::Len)?;
        let ad_len = param(self, operation, params, Param::Ad)?;
        let alg = A::ALGORITHM;
        let mut cipher = A::new(&pattern(alg.key_len));
        let nonce = pattern(alg.nonce_len);
        let ad = pattern(ad_len);
        let mut buf = Buffer::from_slice(&pattern(len));
        let mut tag = vec![0u8; alg.tag_len];
        if op == "encrypt" {
            return Ok(Box::new(EncryptCall {
                cipher,
                nonce,
                ad,
                buf,
                tag,
            }));
        }
        // Decrypting in place turns C into P, and P is itself the ciphertext of C under the
        // same key and nonce: with both tags at hand every timed call decrypts successfully,
        // and no copy has to restore the input.
        cipher.encrypt(&nonce, &ad, &mut buf, &mut tag);
        let mut other_tag = vec![0u8; alg.tag_len];
        cipher.encrypt(&nonce, &ad, &mut buf.to_vec(), &mut other_tag);
        Ok(Box::new(DecryptCall {
            cipher,
            nonce,
            ad,
            buf,
            tags: [tag, other_tag],
            next: 0,
        }))
    }
}

struct EncryptCall<A> {
    cipher: A,
    nonce: Vec<u8>,
    ad: Vec<u8>,
    buf: Buffer,
    tag: Vec<u8>,
}

impl<A: AeadCipher> Call for EncryptCall<A> {
    #[inline(never)]
    fn call(&mut self) {
        self.cipher.encrypt(
            &self.nonce,
            &self.ad,
            black_box(&mut self.buf),
            black_box(&mut self.tag),
        );
    }
}

struct DecryptCall<A> {
    cipher: A,
    nonce: Vec<u8>,
    ad: Vec<u8>,
    buf: Buffer,
    tags: [Vec<u8>; 2],
    next: usize,
}

impl<A: AeadCipher> Call for DecryptCall<A> {
    #[inline(never)]
    fn call(&mut self) {
        black_box(self.cipher.decrypt(
            &self.nonce,
            &self.ad,
            black_box(&mut self.buf),
            &self.tags[self.next],
        ));
        self.next ^= 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALGORITHMS: [&AeadAlgorithm; 3] = [&AES_128_GCM, &AES_256_GCM, &CHACHA20_POLY1305];

    #[test]
    fn references_reproduce_the_published_vectors() {
        for alg in ALGORITHMS {
            for v in alg.vectors {
                let (ct, tag) = (alg.reference)(
                    &unhex(v.key),
                    &unhex(v.nonce),
                    &unhex(v.ad),
                    &unhex(v.plaintext),
                );
                assert_eq!(hex::encode(ct), v.ciphertext, "{}", v.source);
                assert_eq!(hex::encode(tag), v.tag, "{}", v.source);
            }
        }
    }

    /// Decrypt `buf` in place with `alg`'s reference (both modes XOR a keystream that
    /// does not depend on the message) and return the tag it should have come with.
    fn reference_open(
        alg: &AeadAlgorithm,
        key: &[u8],
        nonce: &[u8],
        ad: &[u8],
        buf: &mut [u8],
    ) -> Vec<u8> {
        let (keystream, _) = (alg.reference)(key, nonce, ad, &vec![0; buf.len()]);
        buf.iter_mut().zip(keystream).for_each(|(b, k)| *b ^= k);
        (alg.reference)(key, nonce, ad, buf).1
    }

    /// The reference ChaCha20-Poly1305 checking only the first half of the tag.
    struct HalfTag(Vec<u8>);

    impl AeadCipher for HalfTag {
        const ALGORITHM: &'static AeadAlgorithm = &CHACHA20_POLY1305;
        fn new(key: &[u8]) -> Self {
            HalfTag(key.to_vec())
        }
        fn encrypt(&mut self, nonce: &[u8], ad: &[u8], buf: &mut [u8], tag: &mut [u8]) {
            let (ct, t) = (Self::ALGORITHM.reference)(&self.0, nonce, ad, buf);
            buf.copy_from_slice(&ct);
            tag.copy_from_slice(&t);
        }
        fn decrypt(&mut self, nonce: &[u8], ad: &[u8], buf: &mut [u8], tag: &[u8]) -> bool {
            reference_open(Self::ALGORITHM, &self.0, nonce, ad, buf)[..8] == tag[..8]
        }
    }

    /// The reference AES-128-GCM, ignoring associated data beyond its first block.
    struct ShortAd(Vec<u8>);

    impl AeadCipher for ShortAd {
        const ALGORITHM: &'static AeadAlgorithm = &AES_128_GCM;
        fn new(key: &[u8]) -> Self {
            ShortAd(key.to_vec())
        }
        fn encrypt(&mut self, nonce: &[u8], ad: &[u8], buf: &mut [u8], tag: &mut [u8]) {
            let (ct, t) = (Self::ALGORITHM.reference)(&self.0, nonce, &ad[..ad.len().min(16)], buf);
            buf.copy_from_slice(&ct);
            tag.copy_from_slice(&t);
        }
        fn decrypt(&mut self, nonce: &[u8], ad: &[u8], buf: &mut [u8], tag: &[u8]) -> bool {
            reference_open(
                Self::ALGORITHM,
                &self.0,
                nonce,
                &ad[..ad.len().min(16)],
                buf,
            ) == tag
        }
    }

    #[test]
    fn the_gate_refuses_broken_aeads() {
        let err = Aead::<HalfTag>::new("test").verify().unwrap_err();
        assert!(err.detail.contains("last byte changed"), "{err}");
        let err = Aead::<ShortAd>::new("test").verify().unwrap_err();
        assert!(err.check.contains("test case 4"), "{err}");
    }
}
