//! A compiled C variant as a catalog [`Implementation`]: its correctness gate and its
//! prepared calls through the SUPERCOP function pointers. The asymmetric kinds, whose
//! gates feed `randombytes` or share the Rust catalog's known answers, have files of
//! their own.

mod kem;
mod scalarmult;

use std::collections::BTreeMap;
use std::path::PathBuf;

use anyhow::{Context, Result};

use super::compile::{API_NAMES, API_SYMBOL};
use super::kat;
use super::library::{
    AeadDecryptFn, AeadEncryptFn, CoreFn, HashFn, KemDecFn, KemEncFn, KemKeypairFn, Library,
    ScalarmultBaseFn, ScalarmultFn, StreamXorFn,
};
use super::manifest::{CKind, CoreVector};
use super::randomness::Hook;
use crate::catalog::kinds::{self, aead::Case};
use crate::catalog::{Call, Implementation, Kind, Mismatch, Operation, Params, PrepareError};
use crate::name::ImplName;

/// Everything a worker needs to load one compiled variant; travels in the worker request.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct CSpec {
    pub provider: String,
    pub algorithm: String,
    pub variant: String,
    pub target: String,
    pub kind: CKind,
    pub library: PathBuf,
    /// Why this CPU cannot run the build, if it cannot.
    pub unsupported: Option<String>,
    pub kat: Option<PathBuf>,
    /// A check that could not be run (e.g. the KAT file is missing), said in the report.
    pub caveats: Vec<String>,
    pub vectors: Vec<CoreVector>,
    pub expected_sizes: BTreeMap<String, u64>,
    /// Another variant of the same algorithm that this one must agree with.
    pub peer: Option<Box<CSpec>>,
    /// The llvm-mca estimate, when asked for (`--estimate`).
    pub estimate: Option<super::estimate::Estimate>,
}

impl CSpec {
    /// `provider/algorithm/variant@target`, the name users filter on.
    pub fn name(&self) -> String {
        ImplName::new(&self.provider, &self.algorithm)
            .with_variant(&self.variant)
            .at(&self.target)
            .to_string()
    }
}

#[derive(Clone, Copy)]
enum Entry {
    Hash(HashFn),
    Stream(StreamXorFn),
    Aead(AeadEncryptFn, AeadDecryptFn),
    Core(CoreFn),
    Kem(KemKeypairFn, KemEncFn, KemDecFn),
    Scalarmult(ScalarmultFn, ScalarmultBaseFn),
    NotLoaded,
}

pub struct CImplementation {
    spec: CSpec,
    name: String,
    /// Keeps the shared object mapped while `entry` points into it.
    _library: Option<Library>,
    sizes: BTreeMap<&'static str, u64>,
    entry: Entry,
    /// Where the gate feeds `randombytes` known bytes (absent for unsupported builds).
    randomness: Option<Hook>,
    /// What the gate could not check, found while it ran (e.g. a build with its own
    /// `randombytes` cannot be fed a known-answer test's seeds).
    gate_notes: std::sync::Mutex<Vec<String>>,
    peer: Option<Box<CImplementation>>,
}

const CORE_OPS: &[Operation] = &[Operation {
    name: "core",
    params: &[],
}];

/// The operations of a kind (what cases a manifest's builds get): the Rust catalog's,
/// so that C and Rust implementations share rows. `core` is SUPERCOP's name for one
/// fixed-size call, which the Rust kind names after what it does (`encrypt`, `permute`).
pub fn operations(kind: CKind) -> &'static [Operation] {
    match kind {
        CKind::Hash => kinds::hash::OPERATIONS,
        CKind::Stream => kinds::stream::OPERATIONS,
        CKind::Aead => kinds::aead::OPERATIONS,
        CKind::Core => CORE_OPS,
        CKind::Kem => kinds::kem::OPERATIONS,
        CKind::Scalarmult => kinds::dh::OPERATIONS,
    }
}

/// The `api.h` sizes a kind cannot do without: the buffers the gate and the timed calls
/// give its functions. (A `core` build may have neither key nor constant.)
fn required_sizes(kind: CKind) -> &'static [&'static str] {
    match kind {
        CKind::Hash => &["CRYPTO_BYTES"],
        CKind::Stream => &["CRYPTO_KEYBYTES", "CRYPTO_NONCEBYTES"],
        CKind::Aead => &["CRYPTO_KEYBYTES", "CRYPTO_NPUBBYTES", "CRYPTO_ABYTES"],
        CKind::Core => &["CRYPTO_OUTPUTBYTES", "CRYPTO_INPUTBYTES"],
        CKind::Kem => &[
            "CRYPTO_PUBLICKEYBYTES",
            "CRYPTO_SECRETKEYBYTES",
            "CRYPTO_CIPHERTEXTBYTES",
            "CRYPTO_BYTES",
        ],
        CKind::Scalarmult => &["CRYPTO_BYTES", "CRYPTO_SCALARBYTES"],
    }
}

/// Whether a build's `api.h` sizes (0 where a macro is undefined) give what its kind
/// needs and what the manifest expects; if not, why, naming the macro and the values.
pub fn check_sizes(
    kind: CKind,
    expected: &BTreeMap<String, u64>,
    sizes: &BTreeMap<&str, u64>,
) -> Result<(), String> {
    for (k, want) in expected {
        let got = sizes.get(k.as_str()).copied();
        if got != Some(*want) {
            return Err(format!(
                "api.h gives {k} = {}, the manifest says {want}; make them agree",
                got.map_or("nothing".into(), |g| g.to_string())
            ));
        }
    }
    for k in required_sizes(kind) {
        if sizes.get(k).copied().unwrap_or(0) == 0 {
            return Err(format!(
                "api.h defines no {k} (or defines it as 0); a {} build needs it",
                format!("{kind:?}").to_lowercase()
            ));
        }
    }
    Ok(())
}

impl CImplementation {
    /// Load the shared object (in a worker: this runs the library's constructors).
    pub fn load(spec: &CSpec) -> Result<CImplementation> {
        let name = spec.name();
        if spec.unsupported.is_some() {
            return Ok(CImplementation {
                spec: spec.clone(),
                name,
                _library: None,
                sizes: BTreeMap::new(),
                entry: Entry::NotLoaded,
                randomness: None,
                gate_notes: Default::default(),
                peer: None,
            });
        }
        let lib = Library::open(&spec.library)?;
        let table = lib.symbol(API_SYMBOL)? as *const u64;
        let mut sizes = BTreeMap::new();
        for (i, n) in API_NAMES.iter().enumerate() {
            // SAFETY: the build's generated probe defines an array of API_NAMES.len() u64s.
            sizes.insert(*n, unsafe { *table.add(i) });
        }
        // Without the case's name: the runner says which case could not be loaded.
        check_sizes(spec.kind, &spec.expected_sizes, &sizes).map_err(anyhow::Error::msg)?;
        // SAFETY: the SUPERCOP API fixes these symbols' C signatures; a library that
        // exports them with other types breaks that contract, which is what running it in
        // an isolated worker is for.
        let entry = unsafe {
            match spec.kind {
                CKind::Hash => Entry::Hash(lib.function("crypto_hash")?),
                CKind::Stream => Entry::Stream(lib.function("crypto_stream_xor")?),
                CKind::Aead => Entry::Aead(
                    lib.function("crypto_aead_encrypt")?,
                    lib.function("crypto_aead_decrypt")?,
                ),
                CKind::Core => Entry::Core(lib.function("crypto_core")?),
                CKind::Kem => Entry::Kem(
                    lib.function("crypto_kem_keypair")?,
                    lib.function("crypto_kem_enc")?,
                    lib.function("crypto_kem_dec")?,
                ),
                CKind::Scalarmult => Entry::Scalarmult(
                    lib.function("crypto_scalarmult")?,
                    lib.function("crypto_scalarmult_base")?,
                ),
            }
        };
        let randomness = Some(Hook::find(&lib)?);
        let peer = match &spec.peer {
            Some(p) if p.name() != name => {
                Some(Box::new(CImplementation::load(p).with_context(|| {
                    format!("loading the reference variant {}", p.name())
                })?))
            }
            _ => None,
        };
        Ok(CImplementation {
            spec: spec.clone(),
            name,
            _library: Some(lib),
            sizes,
            entry,
            randomness,
            gate_notes: Default::default(),
            peer,
        })
    }

    fn size(&self, n: &str) -> usize {
        self.sizes.get(n).copied().unwrap_or(0) as usize
    }

    fn hash(&self, input: &[u8]) -> Result<Vec<u8>, String> {
        let Entry::Hash(f) = self.entry else {
            unreachable!("kind checked")
        };
        let mut out = vec![0u8; self.size("CRYPTO_BYTES")];
        // SAFETY: out has CRYPTO_BYTES bytes, input its own length.
        status("crypto_hash", unsafe {
            f(out.as_mut_ptr(), input.as_ptr(), input.len() as u64)
        })?;
        Ok(out)
    }

    fn stream_xor(&self, m: &[u8], n: &[u8], k: &[u8]) -> Result<Vec<u8>, String> {
        let Entry::Stream(f) = self.entry else {
            unreachable!("kind checked")
        };
        let mut c = vec![0u8; m.len()];
        // SAFETY: c and m have mlen bytes; n and k have the api.h sizes.
        status("crypto_stream_xor", unsafe {
            f(
                c.as_mut_ptr(),
                m.as_ptr(),
                m.len() as u64,
                n.as_ptr(),
                k.as_ptr(),
            )
        })?;
        Ok(c)
    }

    fn encrypt(&self, m: &[u8], ad: &[u8], npub: &[u8], k: &[u8]) -> Result<Vec<u8>, String> {
        let Entry::Aead(enc, _) = self.entry else {
            unreachable!("kind checked")
        };
        let mut c = vec![0u8; m.len() + self.size("CRYPTO_ABYTES")];
        let mut clen = 0u64;
        // SAFETY: c has room for the message and the tag (CRYPTO_ABYTES).
        let r = unsafe {
            enc(
                c.as_mut_ptr(),
                &mut clen,
                m.as_ptr(),
                m.len() as u64,
                ad.as_ptr(),
                ad.len() as u64,
                std::ptr::null(),
                npub.as_ptr(),
                k.as_ptr(),
            )
        };
        status("crypto_aead_encrypt", r)?;
        c.truncate(clen as usize);
        Ok(c)
    }

    /// The plaintext, or why not (a refusal is a rejected tag, or an error).
    fn decrypt(&self, c: &[u8], ad: &[u8], npub: &[u8], k: &[u8]) -> Result<Vec<u8>, String> {
        let Entry::Aead(_, dec) = self.entry else {
            unreachable!("kind checked")
        };
        let mut m = vec![0u8; c.len()];
        let mut mlen = 0u64;
        // SAFETY: m has room for clen bytes, more than the plaintext.
        let r = unsafe {
            dec(
                m.as_mut_ptr(),
                &mut mlen,
                std::ptr::null_mut(),
                c.as_ptr(),
                c.len() as u64,
                ad.as_ptr(),
                ad.len() as u64,
                npub.as_ptr(),
                k.as_ptr(),
            )
        };
        status("crypto_aead_decrypt", r)?;
        m.truncate(mlen as usize);
        Ok(m)
    }

    fn core(&self, input: &[u8], k: &[u8]) -> Result<Vec<u8>, String> {
        let Entry::Core(f) = self.entry else {
            unreachable!("kind checked")
        };
        let mut out = vec![0u8; self.size("CRYPTO_OUTPUTBYTES")];
        let c = vec![0u8; self.size("CRYPTO_CONSTBYTES").max(1)];
        let k = if k.is_empty() {
            vec![0u8; 1]
        } else {
            k.to_vec()
        };
        // SAFETY: buffers have the api.h sizes (at least one byte, so never dangling).
        status("crypto_core", unsafe {
            f(out.as_mut_ptr(), input.as_ptr(), k.as_ptr(), c.as_ptr())
        })?;
        Ok(out)
    }

    fn verify_hash(&self) -> Result<(), Mismatch> {
        let known = kinds::hash::algorithm(&self.spec.algorithm);
        if let Some(alg) = known {
            kinds::hash::conformance(alg, |m| self.hash(m))?;
        }
        // What the gate can still ask of an algorithm it has no reference for: that every
        // call succeeds, and that a peer variant agrees. Without a peer, a known algorithm
        // has been asked all of that already.
        if known.is_some() && self.peer.is_none() {
            return Ok(());
        }
        let block_len = known.map_or(kinds::UNKNOWN_BLOCK_LEN, |a| a.block_len);
        for len in kinds::boundary_lengths(block_len) {
            let m = bytes(len, 1);
            let got = self
                .hash(&m)
                .map_err(refused(format!("{} of {len} bytes", self.spec.algorithm)))?;
            if let Some(p) = &self.peer {
                let what = format!("{len} bytes against variant {}", p.name);
                let theirs = p.hash(&m).map_err(refused_there(&what))?;
                Mismatch::check_bytes(&what, &got, &theirs)?;
            }
        }
        Ok(())
    }

    /// The stream cipher whose published examples and reference this build is checked
    /// against: a known algorithm of this name and of the sizes `api.h` gives.
    fn known_stream(&self) -> Option<&'static kinds::stream::StreamAlgorithm> {
        kinds::stream::algorithm(
            &self.spec.algorithm,
            self.size("CRYPTO_KEYBYTES"),
            self.size("CRYPTO_NONCEBYTES"),
        )
    }

    fn verify_stream(&self) -> Result<(), Mismatch> {
        let known = self.known_stream();
        if let Some(alg) = known {
            kinds::stream::conformance(alg, |k, n, m| self.stream_xor(m, n, k))?;
        }
        // As for hashes: success at every length, and agreement with a peer.
        if known.is_some() && self.peer.is_none() {
            return Ok(());
        }
        let key = bytes(self.size("CRYPTO_KEYBYTES"), 2);
        let nonce = bytes(self.size("CRYPTO_NONCEBYTES"), 3);
        let block_len = known.map_or(kinds::UNKNOWN_BLOCK_LEN, |a| a.block_len);
        for len in kinds::boundary_lengths(block_len) {
            let m = bytes(len, 4);
            let got = self
                .stream_xor(&m, &nonce, &key)
                .map_err(refused(format!("{len}-byte message")))?;
            if let Some(p) = &self.peer {
                let what = format!("{len} bytes against variant {}", p.name);
                let theirs = p
                    .stream_xor(&m, &nonce, &key)
                    .map_err(refused_there(&what))?;
                Mismatch::check_bytes(&what, &got, &theirs)?;
            }
        }
        Ok(())
    }

    /// The AEAD whose published examples and reference this build is checked against: a
    /// known algorithm of this name whose sizes `api.h` agrees with.
    fn known_aead(&self) -> Option<&'static kinds::aead::AeadAlgorithm> {
        kinds::aead::algorithm(&self.spec.algorithm).filter(|a| {
            (a.key_len, a.nonce_len, a.tag_len)
                == (
                    self.size("CRYPTO_KEYBYTES"),
                    self.size("CRYPTO_NPUBBYTES"),
                    self.size("CRYPTO_ABYTES"),
                )
        })
    }

    fn verify_aead(&self) -> Result<(), Mismatch> {
        if let Some(path) = &self.spec.kat {
            self.check_kat(path)?;
        }
        let known = self.known_aead();
        if let Some(alg) = known {
            kinds::aead::conformance(alg, self)?;
            // Round trips and forgeries were part of it; a peer still has to agree.
            if self.peer.is_none() {
                return Ok(());
            }
        }
        self.check_round_trips(known.map_or(kinds::UNKNOWN_BLOCK_LEN, |a| a.block_len))
    }

    /// Round trips and forgeries at the gate's lengths for blocks of `block_len` bytes:
    /// all that can be checked without a reference; with a peer, agreement too.
    fn check_round_trips(&self, block_len: usize) -> Result<(), Mismatch> {
        let key = bytes(self.size("CRYPTO_KEYBYTES"), 4);
        let nonce = bytes(self.size("CRYPTO_NPUBBYTES"), 5);
        let tag_len = self.size("CRYPTO_ABYTES");
        for (len, ad_len) in kinds::aead::lengths(block_len) {
            let (msg, ad) = (bytes(len, 6), bytes(ad_len, 7));
            let case = Case {
                key: &key,
                nonce: &nonce,
                ad: &ad,
                msg: &msg,
            };
            let what = format!("{len}-byte message, {ad_len}-byte ad");
            let sealed = self
                .encrypt(&msg, &ad, &nonce, &key)
                .map_err(refused(&what))?;
            kinds::aead::authenticates(self, &what, &case, &sealed, tag_len)?;
            if let Some(p) = &self.peer {
                let what = format!("{what} against variant {}", p.name);
                let theirs = p
                    .encrypt(&msg, &ad, &nonce, &key)
                    .map_err(refused_there(&what))?;
                Mismatch::check_bytes(&what, &sealed, &theirs)?;
            }
        }
        Ok(())
    }

    /// Every entry of a NIST LWC known-answer file, encrypted and decrypted.
    fn check_kat(&self, path: &std::path::Path) -> Result<(), Mismatch> {
        let vectors = kat::read(path).map_err(|e| Mismatch::new("KAT file", format!("{e:#}")))?;
        for v in &vectors {
            let src = format!(
                "{} entry {}",
                path.file_name().unwrap_or_default().to_string_lossy(),
                v.count
            );
            let what = format!("{src} (encrypt)");
            let c = self
                .encrypt(&v.plaintext, &v.ad, &v.nonce, &v.key)
                .map_err(refused(&what))?;
            Mismatch::check_bytes(&what, &c, &v.ciphertext)?;
            let what = format!("{src} (decrypt)");
            let m = self
                .decrypt(&v.ciphertext, &v.ad, &v.nonce, &v.key)
                .map_err(refused(&what))?;
            Mismatch::check_bytes(&what, &m, &v.plaintext)?;
        }
        Ok(())
    }

    /// The block cipher or permutation whose published examples and reference this build
    /// is checked against: a known algorithm of this name whose sizes `api.h` agrees with.
    fn known_core(&self) -> Option<&'static kinds::core::CoreAlgorithm> {
        kinds::core::algorithm(&self.spec.algorithm).filter(|a| {
            (a.key_len, a.block_len, a.block_len)
                == (
                    self.size("CRYPTO_KEYBYTES"),
                    self.size("CRYPTO_INPUTBYTES"),
                    self.size("CRYPTO_OUTPUTBYTES"),
                )
        })
    }

    fn verify_core(&self) -> Result<(), Mismatch> {
        for v in &self.spec.vectors {
            let input = hex::decode(&v.input).expect("validated hex");
            let key = hex::decode(&v.key).expect("validated hex");
            let source = if v.source.is_empty() {
                "manifest vector"
            } else {
                &v.source
            };
            let got = self.core(&input, &key).map_err(refused(source))?;
            Mismatch::check_bytes(
                source,
                &got,
                &hex::decode(&v.output).expect("validated hex"),
            )?;
        }
        if let Some(alg) = self.known_core() {
            kinds::core::conformance(alg, |key, block, calls| {
                (0..calls).try_fold(block.to_vec(), |b, _| self.core(&b, key))
            })?;
        }
        if let Some(p) = &self.peer {
            for seed in 0..64u64 {
                let input = bytes(self.size("CRYPTO_INPUTBYTES"), 100 + seed);
                let key = bytes(self.size("CRYPTO_KEYBYTES"), 200 + seed);
                let what = format!("random input {seed} against variant {}", p.name);
                let ours = self.core(&input, &key).map_err(refused(&what))?;
                let theirs = p.core(&input, &key).map_err(refused_there(&what))?;
                Mismatch::check_bytes(&what, &ours, &theirs)?;
            }
        }
        Ok(())
    }
}

/// SUPERCOP's `crypto_aead_encrypt` and `crypto_aead_decrypt` already seal as the gate
/// expects: the ciphertext, then the tag.
impl kinds::aead::Sealer for CImplementation {
    fn seal(&self, case: &Case) -> Result<Vec<u8>, String> {
        self.encrypt(case.msg, case.ad, case.nonce, case.key)
    }

    fn open(&self, case: &Case, sealed: &[u8]) -> Result<Vec<u8>, String> {
        self.decrypt(sealed, case.ad, case.nonce, case.key)
    }
}

/// A C API function's status: 0, or what the gate says instead of comparing the bytes
/// the function left behind: its name and what it returned.
fn status(function: &str, r: i32) -> Result<(), String> {
    if r == 0 {
        Ok(())
    } else {
        Err(format!("{function} returned {r}"))
    }
}

/// The gate's refusal, in `check`, of a build whose function returned an error.
fn refused(check: impl Into<String>) -> impl FnOnce(String) -> Mismatch {
    let check = check.into();
    move |why| Mismatch::new(check, why)
}

/// As [`refused`], for a call on the variant that `check` compares with.
fn refused_there(check: &str) -> impl FnOnce(String) -> Mismatch + '_ {
    move |why| Mismatch::new(check, format!("{why} in that variant"))
}

/// Deterministic, well-mixed test bytes (xorshift), different per `stream`.
fn bytes(len: usize, stream: u64) -> Vec<u8> {
    let mut s = 0x9e37_79b9_7f4a_7c15u64 ^ stream.wrapping_mul(0xbf58_476d_1ce4_e5b9) ^ len as u64;
    (0..len)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s >> 24) as u8
        })
        .collect()
}

impl Implementation for CImplementation {
    fn provider(&self) -> &str {
        &self.spec.provider
    }
    fn algorithm(&self) -> &str {
        &self.spec.algorithm
    }
    fn name(&self) -> String {
        self.name.clone()
    }
    fn kind(&self) -> Kind {
        match self.spec.kind {
            CKind::Hash => Kind::Hash,
            CKind::Stream => Kind::Stream,
            CKind::Aead => Kind::Aead,
            CKind::Core => Kind::Core,
            CKind::Kem => Kind::Kem,
            CKind::Scalarmult => Kind::Dh,
        }
    }
    fn operations(&self) -> &[Operation] {
        operations(self.spec.kind)
    }
    fn unsupported(&self) -> Option<String> {
        self.spec.unsupported.clone()
    }
    fn caveats(&self) -> Vec<String> {
        let mut c = self.spec.caveats.clone();
        let has_reference = match self.spec.kind {
            CKind::Hash => kinds::hash::algorithm(&self.spec.algorithm).is_some(),
            CKind::Stream => self.known_stream().is_some(),
            CKind::Aead => self.spec.kat.is_some() || self.known_aead().is_some(),
            CKind::Core => !self.spec.vectors.is_empty() || self.known_core().is_some(),
            CKind::Kem => crate::catalog::kinds::kem::algorithm(&self.spec.algorithm).is_some(),
            CKind::Scalarmult => {
                crate::catalog::kinds::dh::algorithm(&self.spec.algorithm).is_some()
            }
        };
        if !has_reference && self.peer.is_none() {
            c.push(format!(
                "{}: no known answers or independent implementation to check against",
                self.name
            ));
        }
        c.extend(
            self.gate_notes
                .lock()
                .expect("not poisoned")
                .iter()
                .cloned(),
        );
        c
    }

    fn verify(&self) -> Result<(), Mismatch> {
        match self.spec.kind {
            CKind::Hash => self.verify_hash(),
            CKind::Stream => self.verify_stream(),
            CKind::Aead => self.verify_aead(),
            CKind::Core => self.verify_core(),
            CKind::Kem => self.verify_kem(),
            CKind::Scalarmult => self.verify_scalarmult(),
        }
    }

    fn prepare(&self, operation: &str, params: &Params) -> Result<Box<dyn Call>, PrepareError> {
        if let Some(why) = &self.spec.unsupported {
            return Err(PrepareError::Unsupported(format!("{}: {why}", self.name)));
        }
        self.operation(operation)?;
        let need = |p: &'static str| {
            params
                .get(p)
                .map(|v| v as usize)
                .ok_or(PrepareError::MissingParam {
                    implementation: self.name.clone(),
                    operation: operation.to_string(),
                    param: p,
                })
        };
        Ok(match (self.entry, operation) {
            (Entry::Hash(f), _) => Box::new(HashCall {
                f,
                input: bytes(need("len")?, 1),
                out: vec![0; self.size("CRYPTO_BYTES")],
            }),
            (Entry::Stream(f), _) => Box::new(StreamCall {
                f,
                m: bytes(need("len")?, 1),
                c: vec![0; need("len")?],
                n: bytes(self.size("CRYPTO_NONCEBYTES"), 2),
                k: bytes(self.size("CRYPTO_KEYBYTES"), 3),
            }),
            (Entry::Aead(enc, dec), op) => {
                let (len, adlen) = (need("len")?, need("ad")?);
                let k = bytes(self.size("CRYPTO_KEYBYTES"), 3);
                let npub = bytes(self.size("CRYPTO_NPUBBYTES"), 2);
                let m = bytes(len, 1);
                let ad = bytes(adlen, 4);
                // The gate saw encryption succeed; should it fail at this size, decrypt
                // is timed on an empty ciphertext, as before statuses were read.
                let c = self.encrypt(&m, &ad, &npub, &k).unwrap_or_default();
                Box::new(AeadCall {
                    enc,
                    dec,
                    decrypt: op == "decrypt",
                    out: vec![0; len + self.size("CRYPTO_ABYTES")],
                    m,
                    c,
                    ad,
                    npub,
                    k,
                })
            }
            (Entry::Core(f), _) => Box::new(CoreCall {
                f,
                input: bytes(self.size("CRYPTO_INPUTBYTES"), 1),
                out: vec![0; self.size("CRYPTO_OUTPUTBYTES")],
                k: bytes(self.size("CRYPTO_KEYBYTES").max(1), 3),
                c: vec![0; self.size("CRYPTO_CONSTBYTES").max(1)],
            }),
            (Entry::Kem(..), op) => self.prepare_kem(op),
            (Entry::Scalarmult(..), op) => self.prepare_scalarmult(op),
            (Entry::NotLoaded, _) => unreachable!("unsupported builds return above"),
        })
    }
}

struct HashCall {
    f: HashFn,
    input: Vec<u8>,
    out: Vec<u8>,
}
impl Call for HashCall {
    fn call(&mut self) {
        // SAFETY: buffers sized from api.h in `prepare`.
        unsafe {
            (self.f)(
                self.out.as_mut_ptr(),
                self.input.as_ptr(),
                self.input.len() as u64,
            )
        };
    }
}

struct StreamCall {
    f: StreamXorFn,
    m: Vec<u8>,
    c: Vec<u8>,
    n: Vec<u8>,
    k: Vec<u8>,
}
impl Call for StreamCall {
    fn call(&mut self) {
        // SAFETY: buffers sized from api.h in `prepare`.
        unsafe {
            (self.f)(
                self.c.as_mut_ptr(),
                self.m.as_ptr(),
                self.m.len() as u64,
                self.n.as_ptr(),
                self.k.as_ptr(),
            )
        };
    }
}

struct AeadCall {
    enc: AeadEncryptFn,
    dec: AeadDecryptFn,
    decrypt: bool,
    m: Vec<u8>,
    c: Vec<u8>,
    ad: Vec<u8>,
    npub: Vec<u8>,
    k: Vec<u8>,
    out: Vec<u8>,
}
impl Call for AeadCall {
    fn call(&mut self) {
        let mut len = 0u64;
        // SAFETY: buffers sized from api.h in `prepare`; `c` is a valid ciphertext.
        unsafe {
            if self.decrypt {
                (self.dec)(
                    self.out.as_mut_ptr(),
                    &mut len,
                    std::ptr::null_mut(),
                    self.c.as_ptr(),
                    self.c.len() as u64,
                    self.ad.as_ptr(),
                    self.ad.len() as u64,
                    self.npub.as_ptr(),
                    self.k.as_ptr(),
                );
            } else {
                (self.enc)(
                    self.out.as_mut_ptr(),
                    &mut len,
                    self.m.as_ptr(),
                    self.m.len() as u64,
                    self.ad.as_ptr(),
                    self.ad.len() as u64,
                    std::ptr::null(),
                    self.npub.as_ptr(),
                    self.k.as_ptr(),
                );
            }
        }
    }
}

struct CoreCall {
    f: CoreFn,
    input: Vec<u8>,
    out: Vec<u8>,
    k: Vec<u8>,
    c: Vec<u8>,
}
impl Call for CoreCall {
    fn call(&mut self) {
        // SAFETY: buffers sized from api.h in `prepare`.
        unsafe {
            (self.f)(
                self.out.as_mut_ptr(),
                self.input.as_ptr(),
                self.k.as_ptr(),
                self.c.as_ptr(),
            )
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A shared object that exports only the sizes table (CRYPTO_BYTES = 32) and
    /// `crypto_hash`, built with `cc` in `dir`.
    fn sizes_only_library(dir: &std::path::Path) -> PathBuf {
        let source = format!(
            "const unsigned long long {API_SYMBOL}[{}] = {{ 32 }};\n\
             int crypto_hash(void) {{ return 0; }}\n",
            API_NAMES.len()
        );
        crate::cimpl::compile::tests::library(dir, "sizes", &source)
    }

    #[test]
    fn a_size_the_manifest_disagrees_with_is_said_once_without_the_case_name() {
        let d = tempfile::tempdir().unwrap();
        let spec = CSpec {
            provider: "toys".into(),
            algorithm: "sha-256".into(),
            variant: "o2".into(),
            target: "native".into(),
            kind: CKind::Hash,
            library: sizes_only_library(d.path()),
            unsupported: None,
            kat: None,
            caveats: Vec::new(),
            vectors: Vec::new(),
            expected_sizes: [("CRYPTO_BYTES".to_string(), 64)].into(),
            peer: None,
            estimate: None,
        };
        let Err(e) = CImplementation::load(&spec) else {
            panic!("a disagreeing size was loaded")
        };
        assert_eq!(
            format!("{e:#}"),
            "api.h gives CRYPTO_BYTES = 32, the manifest says 64; make them agree"
        );
    }
}
