//! `crypto_kem_keypair`, `crypto_kem_enc` and `crypto_kem_dec`: the gate and the timed
//! calls.
//!
//! SUPERCOP KEMs take their randomness from `randombytes`, so the gate feeds it: an
//! ML-KEM build gets the seeds of C2SP's accumulated test (d || z for key generation, m
//! for encapsulation, in FIPS 203's order) and must reproduce its hash, and two variants
//! fed the same bytes must agree byte for byte. Round trips and the reference's
//! decapsulation check what known answers cannot (a build with its own `randombytes`).

use anyhow::Result;

use super::{
    Api, Build, Checked, FILLS, Guarded, Input, KindInfo, KnownAlgorithm, Wanted, bytes, failed,
    fixed_size, load, refused, status, tried, unwritten, unwritten_by_chance,
};
use crate::catalog::kinds::kem::{self as rust_kem, KemAlgorithm, accumulated};
use crate::catalog::{Call, Kind, Mismatch, PrepareError};
use crate::cimpl::library::{KemDecFn, KemEncFn, KemKeypairFn, Library};

pub(super) static INFO: KindInfo = KindInfo {
    kind: Kind::Kem,
    known: || {
        (rust_kem::ALL.iter())
            .map(|a| KnownAlgorithm {
                name: a.name,
                sizes: vec![vec![
                    ("CRYPTO_PUBLICKEYBYTES", a.params.ek_len()),
                    ("CRYPTO_SECRETKEYBYTES", a.params.dk_len()),
                    ("CRYPTO_CIPHERTEXTBYTES", a.params.ct_len()),
                    ("CRYPTO_BYTES", 32),
                ]],
                // Known answers of these kinds are not manifest `vectors`.
                reference: None,
            })
            .collect()
    },
    operations: |_| rust_kem::OPERATIONS,
    required_sizes: &[
        "CRYPTO_PUBLICKEYBYTES",
        "CRYPTO_SECRETKEYBYTES",
        "CRYPTO_CIPHERTEXTBYTES",
        "CRYPTO_BYTES",
    ],
    vector_sizes: &[],
    functions: &["crypto_kem_keypair", "crypto_kem_enc", "crypto_kem_dec"],
    prototypes: &[
        "int crypto_kem_keypair(unsigned char *pk, unsigned char *sk)",
        "int crypto_kem_enc(unsigned char *ct, unsigned char *ss, const unsigned char *pk)",
        "int crypto_kem_dec(unsigned char *ss, const unsigned char *ct, const unsigned char *sk)",
    ],
    known_answers_from: None,
    estimated: "crypto_kem_enc",
    estimated_operation: |_| "encaps",
    params: fixed_size,
    load: load::<KemApi>,
};

/// Fixed seeds for the timed calls, so every process measures the same keys.
const KEY_SEED: [u8; 64] = {
    let mut s = [0u8; 64];
    let mut i = 0;
    while i < 64 {
        s[i] = i as u8;
        i += 1;
    }
    s
};
const MESSAGE_SEED: [u8; 32] = [0x5a; 32];

/// Two byte strings: (public key, secret key) or (ciphertext, shared secret).
type Pair = (Vec<u8>, Vec<u8>);

struct Lens {
    pk: usize,
    sk: usize,
    ct: usize,
    ss: usize,
}

pub(super) struct KemApi {
    keypair: KemKeypairFn,
    enc: KemEncFn,
    dec: KemDecFn,
}

impl Api for KemApi {
    fn load(lib: &Library) -> Result<Self> {
        // SAFETY: the signatures the API fixes (see `Api::load`).
        unsafe {
            Ok(KemApi {
                keypair: lib.function("crypto_kem_keypair")?,
                enc: lib.function("crypto_kem_enc")?,
                dec: lib.function("crypto_kem_dec")?,
            })
        }
    }

    fn has_reference(build: &Build<Self>) -> bool {
        rust_kem::algorithm(&build.spec.algorithm).is_some()
    }

    fn verify(build: &Build<Self>) -> Result<(), Mismatch> {
        build.verify_kem()
    }

    fn prepare(build: &Build<Self>, wanted: &Wanted) -> Result<Box<dyn Call>, PrepareError> {
        build.prepare_kem(wanted)
    }
}

impl Build<KemApi> {
    fn kem_lens(&self) -> Lens {
        Lens {
            pk: self.size("CRYPTO_PUBLICKEYBYTES"),
            sk: self.size("CRYPTO_SECRETKEYBYTES"),
            ct: self.size("CRYPTO_CIPHERTEXTBYTES"),
            ss: self.size("CRYPTO_BYTES"),
        }
    }

    /// A key pair, into guarded buffers that start as `fill` bytes.
    fn kem_keypair(&self, fill: u8) -> Result<Pair, String> {
        let l = self.kem_lens();
        let (mut pk, mut sk) = (Guarded::new(fill, l.pk), Guarded::new(fill, l.sk));
        self.note_gate_call(format_args!("crypto_kem_keypair"));
        // SAFETY: buffers have the api.h sizes.
        let r = unsafe { (self.api.keypair)(pk.as_mut_ptr(), sk.as_mut_ptr()) };
        status("crypto_kem_keypair", r)?;
        Ok((
            pk.checked("crypto_kem_keypair", "public key")?,
            sk.checked("crypto_kem_keypair", "secret key")?,
        ))
    }

    /// An encapsulation to `pk`, into guarded buffers that start as `fill` bytes.
    fn kem_enc(&self, pk: &[u8], fill: u8) -> Result<Pair, String> {
        let l = self.kem_lens();
        let (mut ct, mut ss) = (Guarded::new(fill, l.ct), Guarded::new(fill, l.ss));
        self.note_gate_call(format_args!("crypto_kem_enc"));
        let pk_in = Input::new("public key", pk);
        // SAFETY: buffers have the api.h sizes; pk has CRYPTO_PUBLICKEYBYTES.
        let r = unsafe { (self.api.enc)(ct.as_mut_ptr(), ss.as_mut_ptr(), pk_in.as_ptr()) };
        Input::unchanged("crypto_kem_enc", &[&pk_in])?;
        status("crypto_kem_enc", r)?;
        Ok((
            ct.checked("crypto_kem_enc", "ciphertext")?,
            ss.checked("crypto_kem_enc", "shared secret")?,
        ))
    }

    fn kem_dec(&self, ct: &[u8], sk: &[u8]) -> Result<Vec<u8>, String> {
        self.written("crypto_kem_dec", format_args!("ss, ct, sk"), |fill| {
            let mut ss = Guarded::new(fill, self.kem_lens().ss);
            let (ct_in, sk_in) = (Input::new("ciphertext", ct), Input::new("secret key", sk));
            // SAFETY: ss has CRYPTO_BYTES; ct and sk have their api.h sizes.
            let r = unsafe { (self.api.dec)(ss.as_mut_ptr(), ct_in.as_ptr(), sk_in.as_ptr()) };
            Input::unchanged("crypto_kem_dec", &[&ct_in, &sk_in])?;
            status("crypto_kem_dec", r)?;
            ss.checked("crypto_kem_dec", "shared secret")
        })
    }

    /// `f` with `randombytes` fed `bytes`; `None` if the build has its own `randombytes`.
    fn fed<R>(
        &self,
        bytes: &[u8],
        what: &str,
        f: impl FnOnce() -> R,
    ) -> Result<Option<R>, Mismatch> {
        let (r, requests) = self.randomness.feeding(bytes, f);
        let asked: u64 = requests.iter().sum();
        match asked {
            0 => Ok(None),
            n if n == bytes.len() as u64 => Ok(Some(r)),
            n => Err(Mismatch::new(
                format!("randombytes in {what}"),
                format!(
                    "asked for {n} bytes (calls of {requests:?}); the known-answer test \
                     gives it {} bytes",
                    bytes.len()
                ),
            )),
        }
    }

    fn keypair_from(&self, seed: &[u8]) -> Result<Option<Pair>, Mismatch> {
        self.fed(seed, "crypto_kem_keypair", || self.kem_keypair(0))?
            .transpose()
            .map_err(refused("key generation from known randomness"))
    }

    fn enc_from(&self, pk: &[u8], m: &[u8]) -> Result<Option<Pair>, Mismatch> {
        match self.fed(m, "crypto_kem_enc", || self.kem_enc(pk, 0))? {
            None => Ok(None),
            Some(Err(e)) => Err(Mismatch::new(
                "crypto_kem_enc",
                format!("refused a public key from crypto_kem_keypair ({e})"),
            )),
            Some(Ok(r)) => Ok(Some(r)),
        }
    }

    /// A key pair and an encapsulation, each made twice from the same randomness into
    /// buffers that start as zeros and as 0xff bytes, must agree, as [`written`] asks of
    /// the other functions. A build with its own `randombytes` cannot be fed: its outputs,
    /// made into buffers of four fills, must not keep the fill in all four
    /// ([`unwritten_by_chance`]).
    fn check_written_in_full(&self) -> Result<(), Mismatch> {
        let stream = bytes(4096, 11);
        let twice = |f: &dyn Fn(u8) -> Result<Pair, String>| {
            let (zeros, asked) = self.randomness.feeding(&stream, || f(0x00));
            if asked.is_empty() {
                return Ok(None);
            }
            let (ones, _) = self.randomness.feeding(&stream, || f(0xff));
            Ok(Some((zeros?, ones?)))
        };
        let what = "a key pair and an encapsulation made twice from the same randomness";
        let Some((k0, k1)) = twice(&|fill| self.kem_keypair(fill)).map_err(refused(what))? else {
            return self.check_written_unfed();
        };
        unwritten("crypto_kem_keypair", "public key", &k0.0, &k1.0).map_err(refused(what))?;
        unwritten("crypto_kem_keypair", "secret key", &k0.1, &k1.1).map_err(refused(what))?;
        let Some((e0, e1)) = twice(&|fill| self.kem_enc(&k0.0, fill)).map_err(refused(what))?
        else {
            return self.check_written_unfed();
        };
        unwritten("crypto_kem_enc", "ciphertext", &e0.0, &e1.0).map_err(refused(what))?;
        unwritten("crypto_kem_enc", "shared secret", &e0.1, &e1.1).map_err(refused(what))?;
        Ok(())
    }

    /// [`Self::check_written_in_full`] for a build that draws its own randomness.
    fn check_written_unfed(&self) -> Result<(), Mismatch> {
        let what = "key pairs and encapsulations made into buffers of four fills";
        let each = |f: &dyn Fn(u8) -> Result<Pair, String>| -> Result<(Vec<_>, Vec<_>), _> {
            let pairs = FILLS.iter().map(|&fill| f(fill));
            let pairs: Vec<Pair> = pairs.collect::<Result<_, String>>()?;
            Ok(pairs.into_iter().unzip())
        };
        let (pks, sks) = each(&|fill| self.kem_keypair(fill)).map_err(refused(what))?;
        unwritten_by_chance("crypto_kem_keypair", "public key", &pks).map_err(refused(what))?;
        unwritten_by_chance("crypto_kem_keypair", "secret key", &sks).map_err(refused(what))?;
        let (cts, sss) = each(&|fill| self.kem_enc(&pks[0], fill)).map_err(refused(what))?;
        unwritten_by_chance("crypto_kem_enc", "ciphertext", &cts).map_err(refused(what))?;
        unwritten_by_chance("crypto_kem_enc", "shared secret", &sss).map_err(refused(what))?;
        Ok(())
    }

    fn note(&self, n: String) {
        self.gate_notes.lock().expect("not poisoned").push(n);
    }

    fn verify_kem(&self) -> Result<(), Mismatch> {
        let known = rust_kem::algorithm(&self.spec.algorithm);
        if let Some(alg) = known
            && !self.check_accumulated(alg)?
        {
            self.note(format!(
                "{}: brings its own randombytes, so C2SP's known answers cannot be fed to \
                 it; checked by round trips against the FIPS 203 reference only",
                self.name
            ));
        }
        for round in 0..3 {
            self.check_round_trip(round, known)?;
        }
        self.check_written_in_full()?;
        for p in &self.peers {
            self.check_against_peer(p)?;
        }
        Ok(())
    }

    /// C2SP's accumulated test, the first 100 entries; `false` if it cannot be fed.
    fn check_accumulated(&self, alg: &KemAlgorithm) -> Result<bool, Mismatch> {
        if self.keypair_from(&KEY_SEED)?.is_none() {
            return Ok(false);
        }
        let unfed = || Mismatch::new("randombytes", "the build stopped drawing from it");
        let got = accumulated(alg.params, 100, |seed, m, random_ct| {
            let (pk, sk) = self.keypair_from(seed)?.ok_or_else(unfed)?;
            let (ct, ss) = self.enc_from(&pk, m)?.ok_or_else(unfed)?;
            let what = "crypto_kem_dec(crypto_kem_enc(pk)) round trip";
            let back = self.kem_dec(&ct, &sk).map_err(refused(what))?;
            Mismatch::check_bytes(what, &back, &ss)?;
            let rejected = self.kem_dec(random_ct, &sk).map_err(|e| {
                Mismatch::new(
                    "implicit rejection",
                    format!("{e} for a random ciphertext; FIPS 203 returns J(z || c)"),
                )
            })?;
            Ok([pk, sk, ct, ss, rejected])
        });
        match got? {
            h if h == alg.accumulated_100 => Ok(true),
            h => Err(Mismatch::new(
                "C2SP CCTV accumulated ML-KEM vectors, first 100 tests",
                format!("hash {h}, expected {}", alg.accumulated_100),
            )),
        }
    }

    fn check_round_trip(&self, round: usize, known: Option<&KemAlgorithm>) -> Result<(), Mismatch> {
        let what = |s: &str| format!("key pair {round} from randombytes: {s}");
        let (pk, sk) = self
            .kem_keypair(0)
            .map_err(refused(format!("key pair {round} from randombytes")))?;
        let (ct, ss) = self.kem_enc(&pk, 0).map_err(|e| {
            Mismatch::new(
                what("crypto_kem_enc"),
                format!("refused its own public key ({e})"),
            )
        })?;
        let round_trip = what("crypto_kem_dec(crypto_kem_enc(pk)) round trip");
        let back = self.kem_dec(&ct, &sk).map_err(refused(&round_trip))?;
        Mismatch::check_bytes(&round_trip, &back, &ss)?;
        let mut bad = ct.clone();
        bad[(1 + 397 * round) % ct.len()] ^= 0x01;
        if self.kem_dec(&bad, &sk).as_deref() == Ok(&ss[..]) {
            return Err(Mismatch::new(
                what("a changed ciphertext"),
                "decapsulated to the same shared secret",
            ));
        }
        if let Some(alg) = known {
            // The first error crypto_kem_dec returns is reported instead of the
            // comparison it spoils.
            let refusal = std::cell::RefCell::new(None);
            let checked = rust_kem::cross_check_with_reference(
                alg.params,
                &what,
                round,
                (&pk, &sk),
                (&ct, &ss),
                &|c| {
                    self.kem_dec(c, &sk).unwrap_or_else(|e| {
                        refusal.borrow_mut().get_or_insert(e);
                        b"<refused>".to_vec()
                    })
                },
            );
            if let Some(e) = refusal.take() {
                return Err(Mismatch::new(
                    what("ciphertexts of the FIPS 203 reference"),
                    e,
                ));
            }
            checked?;
        }
        Ok(())
    }

    /// Variants fed the same randomness must give the same bytes.
    fn check_against_peer(&self, peer: &Build<KemApi>) -> Result<(), Mismatch> {
        for round in 0..4u8 {
            let seed: Vec<u8> = (0..64).map(|i: u8| i.wrapping_mul(13) ^ round).collect();
            let m: Vec<u8> = (0..32).map(|i: u8| i.wrapping_mul(7) ^ round).collect();
            let ours = self.keypair_from(&seed)?;
            let theirs = peer.keypair_from(&seed)?;
            let (Some((pk, sk)), Some((ppk, psk))) = (ours, theirs) else {
                return Ok(());
            };
            let against =
                |s: &str| format!("{s} against variant {}, fed the same randomness", peer.name);
            self.agrees(&against("public key"), &pk, &ppk)?;
            self.agrees(&against("secret key"), &sk, &psk)?;
            if let (Some((ct, ss)), Some((pct, pss))) =
                (self.enc_from(&pk, &m)?, peer.enc_from(&pk, &m)?)
            {
                self.agrees(&against("ciphertext"), &ct, &pct)?;
                self.agrees(&against("shared secret"), &ss, &pss)?;
            }
        }
        Ok(())
    }

    /// Keys (and a ciphertext) made as the gate makes them, fed the fixed seeds where
    /// the build draws from cryptobench's `randombytes`; a function that fails to make
    /// them refuses the case, which would otherwise time calls on zeros.
    fn prepare_kem(&self, wanted: &Wanted) -> Result<Box<dyn Call>, PrepareError> {
        let KemApi { keypair, enc, dec } = self.api;
        let l = self.kem_lens();
        if wanted.operation == "keypair" {
            let call = KeypairCall {
                f: keypair,
                pk: vec![0; l.pk],
                sk: vec![0; l.sk],
            };
            return tried(call, wanted);
        }
        let (pk, sk) = match self.keypair_from(&KEY_SEED) {
            Ok(Some(pair)) => pair,
            _ => self.kem_keypair(0).map_err(|why| failed(why, wanted))?,
        };
        if wanted.operation == "encaps" {
            let call = EncCall {
                f: enc,
                pk,
                ct: vec![0; l.ct],
                ss: vec![0; l.ss],
            };
            return tried(call, wanted);
        }
        let (ct, _) = match self.enc_from(&pk, &MESSAGE_SEED) {
            Ok(Some(pair)) => pair,
            _ => self.kem_enc(&pk, 0).map_err(|why| failed(why, wanted))?,
        };
        let call = DecCall {
            f: dec,
            ct,
            sk,
            ss: vec![0; l.ss],
        };
        tried(call, wanted)
    }
}

struct KeypairCall {
    f: KemKeypairFn,
    pk: Vec<u8>,
    sk: Vec<u8>,
}
impl Checked for KeypairCall {
    fn run(&mut self) -> (&'static str, i32) {
        // SAFETY: buffers sized from api.h in `prepare_kem`.
        let r = unsafe { (self.f)(self.pk.as_mut_ptr(), self.sk.as_mut_ptr()) };
        ("crypto_kem_keypair", r)
    }
    // Drawn from randombytes: a new key pair each call.
    fn output(&self) -> Option<&[u8]> {
        None
    }
}
struct EncCall {
    f: KemEncFn,
    pk: Vec<u8>,
    ct: Vec<u8>,
    ss: Vec<u8>,
}
impl Checked for EncCall {
    fn run(&mut self) -> (&'static str, i32) {
        // SAFETY: buffers sized from api.h in `prepare_kem`.
        let r = unsafe { (self.f)(self.ct.as_mut_ptr(), self.ss.as_mut_ptr(), self.pk.as_ptr()) };
        ("crypto_kem_enc", r)
    }
    // Drawn from randombytes: a new ciphertext each call.
    fn output(&self) -> Option<&[u8]> {
        None
    }
}
struct DecCall {
    f: KemDecFn,
    ct: Vec<u8>,
    sk: Vec<u8>,
    ss: Vec<u8>,
}
impl Checked for DecCall {
    fn run(&mut self) -> (&'static str, i32) {
        // SAFETY: buffers sized from api.h in `prepare_kem`; ct is a valid ciphertext.
        let r = unsafe { (self.f)(self.ss.as_mut_ptr(), self.ct.as_ptr(), self.sk.as_ptr()) };
        ("crypto_kem_dec", r)
    }
    fn output(&self) -> Option<&[u8]> {
        Some(&self.ss)
    }
}
