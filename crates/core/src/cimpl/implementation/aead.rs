//! `crypto_aead_encrypt` and `crypto_aead_decrypt`: the gate (NIST LWC known-answer
//! files, the Rust catalog's known answers, round trips and forgeries) and the timed
//! calls.

use anyhow::Result;

use super::{
    Api, Build, Checked, Guarded, Input, KindInfo, KnownAlgorithm, Wanted, bytes, declined, failed,
    load, refused, refused_there, status, tried,
};
use crate::catalog::kinds::{self, aead::Case};
use crate::catalog::{Call, Kind, Mismatch, PrepareError};
use crate::cimpl::kat;
use crate::cimpl::library::{AeadDecryptFn, AeadEncryptFn, Library};
use crate::record::{Param, Params};

pub(super) static INFO: KindInfo = KindInfo {
    kind: Kind::Aead,
    known: || {
        (kinds::aead::ALL.iter())
            .map(|a| KnownAlgorithm {
                name: a.name,
                sizes: vec![vec![
                    ("CRYPTO_KEYBYTES", a.key_len),
                    ("CRYPTO_NPUBBYTES", a.nonce_len),
                    ("CRYPTO_ABYTES", a.tag_len),
                ]],
                // Known answers of these kinds are not manifest `vectors`.
                reference: None,
            })
            .collect()
    },
    operations: |_| kinds::aead::OPERATIONS,
    required_sizes: &["CRYPTO_KEYBYTES", "CRYPTO_NPUBBYTES", "CRYPTO_ABYTES"],
    vector_sizes: &[],
    functions: &["crypto_aead_encrypt", "crypto_aead_decrypt"],
    prototypes: &[
        "int crypto_aead_encrypt(unsigned char *c, unsigned long long *clen, const unsigned char *m, unsigned long long mlen, const unsigned char *ad, unsigned long long adlen, const unsigned char *nsec, const unsigned char *npub, const unsigned char *k)",
        "int crypto_aead_decrypt(unsigned char *m, unsigned long long *mlen, unsigned char *nsec, const unsigned char *c, unsigned long long clen, const unsigned char *ad, unsigned long long adlen, const unsigned char *npub, const unsigned char *k)",
    ],
    known_answers_from: Some("a `kat` file (NIST LWC genkat_aead form)"),
    estimated: "crypto_aead_encrypt",
    estimated_operation: |_| "encrypt",
    params: |lengths| {
        lengths
            .iter()
            .map(|&l| Params::new().with(Param::Len, l).with(Param::Ad, 0))
            .collect()
    },
    load: load::<AeadApi>,
};

pub(super) struct AeadApi {
    encrypt: AeadEncryptFn,
    decrypt: AeadDecryptFn,
}

impl Api for AeadApi {
    fn load(lib: &Library) -> Result<Self> {
        // SAFETY: the signatures the API fixes (see `Api::load`).
        unsafe {
            Ok(AeadApi {
                encrypt: lib.function("crypto_aead_encrypt")?,
                decrypt: lib.function("crypto_aead_decrypt")?,
            })
        }
    }

    fn has_reference(build: &Build<Self>) -> bool {
        build.spec.kat.is_some() || build.known_aead().is_some()
    }

    fn verify(build: &Build<Self>) -> Result<(), Mismatch> {
        build.verify_aead()
    }

    fn prepare(build: &Build<Self>, wanted: &Wanted) -> Result<Box<dyn Call>, PrepareError> {
        let (len, adlen) = (wanted.param(Param::Len)?, wanted.param(Param::Ad)?);
        let k = bytes(build.size("CRYPTO_KEYBYTES"), 3);
        let npub = bytes(build.size("CRYPTO_NPUBBYTES"), 2);
        let m = bytes(len, 1);
        let ad = bytes(adlen, 4);
        // Decryption is timed on a real ciphertext of this size, so an encryption that
        // fails here refuses both operations' cases.
        let c = build
            .encrypt(&m, &ad, &npub, &k)
            .map_err(|why| failed(why, wanted))?;
        let call = AeadCall {
            enc: build.api.encrypt,
            dec: build.api.decrypt,
            decrypt: wanted.operation == "decrypt",
            out: vec![0; len + build.size("CRYPTO_ABYTES")],
            m,
            c,
            ad,
            npub,
            k,
        };
        tried(call, wanted)
    }
}

impl Build<AeadApi> {
    fn encrypt(&self, m: &[u8], ad: &[u8], npub: &[u8], k: &[u8]) -> Result<Vec<u8>, String> {
        self.written(
            "crypto_aead_encrypt",
            format_args!("mlen = {}, adlen = {}", m.len(), ad.len()),
            |fill| {
                let mut c = Guarded::new(fill, m.len() + self.size("CRYPTO_ABYTES"));
                let mut clen = 0u64;
                let inputs = [
                    Input::new("message", m),
                    Input::new("associated data", ad),
                    Input::new("nonce", npub),
                    Input::new("key", k),
                ];
                let [m_in, ad_in, npub_in, k_in] = &inputs;
                // SAFETY: c has room for the message and the tag (CRYPTO_ABYTES).
                let r = unsafe {
                    (self.api.encrypt)(
                        c.as_mut_ptr(),
                        &mut clen,
                        m_in.as_ptr(),
                        m.len() as u64,
                        ad_in.as_ptr(),
                        ad.len() as u64,
                        std::ptr::null(),
                        npub_in.as_ptr(),
                        k_in.as_ptr(),
                    )
                };
                Input::unchanged("crypto_aead_encrypt", &[m_in, ad_in, npub_in, k_in])?;
                status("crypto_aead_encrypt", r)?;
                let mut c = c.checked("crypto_aead_encrypt", "ciphertext")?;
                // Truncating to a longer length would keep the buffer and hide the lie.
                if clen > c.len() as u64 {
                    return Err(format!(
                        "crypto_aead_encrypt set clen = {clen} for a {}-byte message: more than the message and its {}-byte tag (CRYPTO_ABYTES)",
                        m.len(),
                        self.size("CRYPTO_ABYTES")
                    ));
                }
                c.truncate(clen as usize);
                Ok(c)
            },
        )
    }

    /// The plaintext, or why not (a refusal is a rejected tag, or an error).
    fn decrypt(&self, c: &[u8], ad: &[u8], npub: &[u8], k: &[u8]) -> Result<Vec<u8>, String> {
        self.written(
            "crypto_aead_decrypt",
            format_args!("clen = {}, adlen = {}", c.len(), ad.len()),
            |fill| {
                let mut m = Guarded::new(fill, c.len());
                let mut mlen = 0u64;
                let inputs = [
                    Input::new("ciphertext", c),
                    Input::new("associated data", ad),
                    Input::new("nonce", npub),
                    Input::new("key", k),
                ];
                let [c_in, ad_in, npub_in, k_in] = &inputs;
                // SAFETY: m has room for clen bytes, more than the plaintext.
                let r = unsafe {
                    (self.api.decrypt)(
                        m.as_mut_ptr(),
                        &mut mlen,
                        std::ptr::null_mut(),
                        c_in.as_ptr(),
                        c.len() as u64,
                        ad_in.as_ptr(),
                        ad.len() as u64,
                        npub_in.as_ptr(),
                        k_in.as_ptr(),
                    )
                };
                Input::unchanged("crypto_aead_decrypt", &[c_in, ad_in, npub_in, k_in])?;
                status("crypto_aead_decrypt", r)?;
                let mut m = m.checked("crypto_aead_decrypt", "message")?;
                if mlen > c.len() as u64 {
                    return Err(format!(
                        "crypto_aead_decrypt set mlen = {mlen} for a {}-byte ciphertext: more than the ciphertext itself",
                        c.len()
                    ));
                }
                m.truncate(mlen as usize);
                Ok(m)
            },
        )
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
        let block_len = known.map_or(kinds::UNKNOWN_BLOCK_LEN, |a| a.block_len);
        self.check_timed_lengths(known, block_len)?;
        if let Some(alg) = known {
            kinds::aead::conformance(alg, self)?;
            // Round trips and forgeries were part of it; a peer still has to agree.
            if self.peers.is_empty() {
                return Ok(());
            }
        }
        self.check_round_trips(block_len)
    }

    /// The message lengths the run times beyond the gate's, without associated data (as
    /// they are timed): a round trip, agreement with the peers and, for a known
    /// algorithm, the reference's ciphertext and tag (forgeries are tried at the gate's
    /// lengths).
    fn check_timed_lengths(
        &self,
        known: Option<&kinds::aead::AeadAlgorithm>,
        block_len: usize,
    ) -> Result<(), Mismatch> {
        let key = bytes(self.size("CRYPTO_KEYBYTES"), 4);
        let nonce = bytes(self.size("CRYPTO_NPUBBYTES"), 5);
        for len in self.timed_beyond(&kinds::boundary_lengths(block_len)) {
            let msg = bytes(len, 6);
            let what = format!("{len}-byte message (a length the run times)");
            // A length the function declines (its status) fails the case's own call.
            let sealed = match self.encrypt(&msg, &[], &nonce, &key) {
                Err(why) if declined(&why) => continue,
                sealed => sealed.map_err(refused(&what))?,
            };
            if let Some(alg) = known {
                let (ct, tag) = (alg.reference)(&key, &nonce, &[], &msg);
                let want = [ct, tag].concat();
                let against = format!("{what} against the reference implementation");
                Mismatch::check_bytes(&against, &sealed, &want)?;
            }
            match self.decrypt(&sealed, &[], &nonce, &key) {
                Ok(opened) => Mismatch::check_bytes(&format!("{what}: decrypt"), &opened, &msg)?,
                Err(why) if declined(&why) => {}
                Err(why) => return Err(refused(&what)(why)),
            }
            for p in &self.peers {
                let what = format!("{what} against variant {}", p.name);
                let theirs = match p.encrypt(&msg, &[], &nonce, &key) {
                    Err(why) if declined(&why) => continue,
                    theirs => theirs.map_err(refused_there(&what))?,
                };
                self.agrees(&what, &sealed, &theirs)?;
            }
        }
        Ok(())
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
            for p in &self.peers {
                let what = format!("{what} against variant {}", p.name);
                let theirs = p
                    .encrypt(&msg, &ad, &nonce, &key)
                    .map_err(refused_there(&what))?;
                self.agrees(&what, &sealed, &theirs)?;
            }
        }
        Ok(())
    }

    /// Every entry of a NIST LWC known-answer file, encrypted and decrypted.
    fn check_kat(&self, path: &std::path::Path) -> Result<(), Mismatch> {
        let vectors = kat::read(path).map_err(|e| Mismatch::new("KAT file", format!("{e:#}")))?;
        kat::check_lengths(&vectors, &self.sizes, &self.spec.api_h)
            .map_err(|why| Mismatch::new(format!("KAT file `{}`", path.display()), why))?;
        for v in &vectors {
            // By the line an editor jumps to and the Count a genkat file numbers by.
            let src = format!(
                "{} line {}, Count = {}",
                path.file_name().unwrap_or_default().to_string_lossy(),
                v.lines["Count"],
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
}

/// SUPERCOP's `crypto_aead_encrypt` and `crypto_aead_decrypt` already seal as the gate
/// expects: the ciphertext, then the tag.
impl kinds::aead::Sealer for Build<AeadApi> {
    fn seal(&self, case: &Case) -> Result<Vec<u8>, String> {
        self.encrypt(case.msg, case.ad, case.nonce, case.key)
    }

    fn open(&self, case: &Case, sealed: &[u8]) -> Result<Vec<u8>, String> {
        self.decrypt(sealed, case.ad, case.nonce, case.key)
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
impl Checked for AeadCall {
    fn run(&mut self) -> (&'static str, i32) {
        let mut len = 0u64;
        // SAFETY: buffers sized from api.h in `prepare`; `c` is a valid ciphertext.
        unsafe {
            if self.decrypt {
                let r = (self.dec)(
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
                ("crypto_aead_decrypt", r)
            } else {
                let r = (self.enc)(
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
                ("crypto_aead_encrypt", r)
            }
        }
    }
    fn output(&self) -> Option<&[u8]> {
        Some(&self.out)
    }
}
