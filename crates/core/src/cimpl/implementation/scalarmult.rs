//! `crypto_scalarmult` and `crypto_scalarmult_base`: the gate and the timed calls, with
//! the Rust catalog's operation names (`base`, `shared`) and inputs, so a C X25519 sits
//! in the same rows as the Rust ones.

use anyhow::Result;

use super::{
    Api, Build, Checked, Guarded, Input, KindInfo, KnownAlgorithm, Wanted, bytes, failed,
    fixed_size, load, refused, refused_there, status, tried,
};
use crate::catalog::kinds::dh;
use crate::catalog::{Call, Kind, Mismatch, PrepareError, pattern};
use crate::cimpl::library::{Library, ScalarmultBaseFn, ScalarmultFn};

pub(super) static INFO: KindInfo = KindInfo {
    kind: Kind::Dh,
    known: || {
        (dh::ALL.iter())
            .map(|a| KnownAlgorithm {
                name: a.name,
                sizes: vec![vec![
                    ("CRYPTO_BYTES", a.public_len),
                    ("CRYPTO_SCALARBYTES", a.secret_len),
                ]],
                // Known answers of these kinds are not manifest `vectors`.
                reference: None,
            })
            .collect()
    },
    operations: |_| dh::OPERATIONS,
    required_sizes: &["CRYPTO_BYTES", "CRYPTO_SCALARBYTES"],
    vector_sizes: &[],
    functions: &["crypto_scalarmult", "crypto_scalarmult_base"],
    prototypes: &[
        "int crypto_scalarmult(unsigned char *q, const unsigned char *n, const unsigned char *p)",
        "int crypto_scalarmult_base(unsigned char *q, const unsigned char *n)",
    ],
    known_answers_from: None,
    estimated: "crypto_scalarmult",
    estimated_operation: |_| "shared",
    params: fixed_size,
    load: load::<ScalarmultApi>,
};

pub(super) struct ScalarmultApi {
    mult: ScalarmultFn,
    base: ScalarmultBaseFn,
}

impl Api for ScalarmultApi {
    fn load(lib: &Library) -> Result<Self> {
        // SAFETY: the signatures the API fixes (see `Api::load`).
        unsafe {
            Ok(ScalarmultApi {
                mult: lib.function("crypto_scalarmult")?,
                base: lib.function("crypto_scalarmult_base")?,
            })
        }
    }

    fn has_reference(build: &Build<Self>) -> bool {
        dh::algorithm(&build.spec.algorithm).is_some()
    }

    fn verify(build: &Build<Self>) -> Result<(), Mismatch> {
        build.verify_scalarmult()
    }

    fn prepare(build: &Build<Self>, wanted: &Wanted) -> Result<Box<dyn Call>, PrepareError> {
        build.prepare_scalarmult(wanted)
    }
}

impl Build<ScalarmultApi> {
    fn scalarmult(&self, n: &[u8], p: &[u8]) -> Result<Vec<u8>, String> {
        self.written("crypto_scalarmult", format_args!("q, n, p"), |fill| {
            let mut q = Guarded::new(fill, self.size("CRYPTO_BYTES"));
            let (n_in, p_in) = (Input::new("scalar", n), Input::new("point", p));
            // SAFETY: q has CRYPTO_BYTES; n and p have the api.h sizes (checked by callers).
            let r = unsafe { (self.api.mult)(q.as_mut_ptr(), n_in.as_ptr(), p_in.as_ptr()) };
            Input::unchanged("crypto_scalarmult", &[&n_in, &p_in])?;
            status("crypto_scalarmult", r)?;
            q.checked("crypto_scalarmult", "output")
        })
    }

    fn scalarmult_base(&self, n: &[u8]) -> Result<Vec<u8>, String> {
        self.written("crypto_scalarmult_base", format_args!("q, n"), |fill| {
            let mut q = Guarded::new(fill, self.size("CRYPTO_BYTES"));
            let n_in = Input::new("scalar", n);
            // SAFETY: q has CRYPTO_BYTES, n CRYPTO_SCALARBYTES.
            let r = unsafe { (self.api.base)(q.as_mut_ptr(), n_in.as_ptr()) };
            Input::unchanged("crypto_scalarmult_base", &[&n_in])?;
            status("crypto_scalarmult_base", r)?;
            q.checked("crypto_scalarmult_base", "output")
        })
    }

    fn shared_or_refusal(&self, what: &str, n: &[u8], p: &[u8]) -> Result<Vec<u8>, Mismatch> {
        if n.len() != self.size("CRYPTO_SCALARBYTES") || p.len() != self.size("CRYPTO_BYTES") {
            return Err(Mismatch::new(
                what,
                format!(
                    "the test has a {}-byte scalar and a {}-byte point; `{}` says {} and {}",
                    n.len(),
                    p.len(),
                    self.spec.api_h,
                    self.size("CRYPTO_SCALARBYTES"),
                    self.size("CRYPTO_BYTES")
                ),
            ));
        }
        self.scalarmult(n, p).map_err(refused(what))
    }

    fn verify_scalarmult(&self) -> Result<(), Mismatch> {
        if let Some(alg) = dh::algorithm(&self.spec.algorithm) {
            // The first error crypto_scalarmult_base returns is reported instead of the
            // comparison it spoils.
            let refusal = std::cell::RefCell::new(None);
            let base = |n: &[u8]| {
                self.scalarmult_base(n).unwrap_or_else(|e| {
                    refusal.borrow_mut().get_or_insert(e);
                    vec![0; self.size("CRYPTO_BYTES")]
                })
            };
            let checked = dh::check(alg, &base, &|what, n, p| self.shared_or_refusal(what, n, p));
            if let Some(e) = refusal.take() {
                return Err(Mismatch::new(format!("{} known answers", alg.name), e));
            }
            checked?;
        }
        // Diffie-Hellman must commute, whatever the group.
        let sl = self.size("CRYPTO_SCALARBYTES");
        for i in 0..8u64 {
            let (a, b) = (bytes(sl, 300 + i), bytes(sl, 400 + i));
            let public = format!("key exchange {i}: public keys");
            let pa = self.scalarmult_base(&a).map_err(refused(&public))?;
            let pb = self.scalarmult_base(&b).map_err(refused(&public))?;
            let what = format!("key exchange {i}: shared secret of A equals that of B");
            Mismatch::check_bytes(
                &what,
                &self.shared_or_refusal(&what, &a, &pb)?,
                &self.shared_or_refusal(&what, &b, &pa)?,
            )?;
            for p in &self.peers {
                let against = |s: &str| format!("key exchange {i}: {s} against variant {}", p.name);
                let public = against("public key");
                let theirs = p.scalarmult_base(&a).map_err(refused_there(&public))?;
                self.agrees(&public, &pa, &theirs)?;
                let what = against("shared secret");
                self.agrees(
                    &what,
                    &self.shared_or_refusal(&what, &a, &pb)?,
                    &p.shared_or_refusal(&what, &a, &pb)?,
                )?;
            }
        }
        Ok(())
    }

    fn prepare_scalarmult(&self, wanted: &Wanted) -> Result<Box<dyn Call>, PrepareError> {
        let ScalarmultApi { mult, base } = self.api;
        let n = pattern(self.size("CRYPTO_SCALARBYTES"));
        let q = vec![0u8; self.size("CRYPTO_BYTES")];
        if wanted.operation == "base" {
            return tried(BaseCall { f: base, n, q }, wanted);
        }
        // As in the Rust catalog: the peer's key is a real public key.
        let peer_secret: Vec<u8> = n.iter().map(|b| b ^ 0xa5).collect();
        let p = self
            .scalarmult_base(&peer_secret)
            .map_err(|why| failed(why, wanted))?;
        tried(SharedCall { f: mult, n, p, q }, wanted)
    }
}

struct BaseCall {
    f: ScalarmultBaseFn,
    n: Vec<u8>,
    q: Vec<u8>,
}
impl Checked for BaseCall {
    fn run(&mut self) -> (&'static str, i32) {
        // SAFETY: buffers sized from api.h in `prepare_scalarmult`.
        let r = unsafe { (self.f)(self.q.as_mut_ptr(), self.n.as_ptr()) };
        ("crypto_scalarmult_base", r)
    }
    fn output(&self) -> Option<&[u8]> {
        Some(&self.q)
    }
}
struct SharedCall {
    f: ScalarmultFn,
    n: Vec<u8>,
    p: Vec<u8>,
    q: Vec<u8>,
}
impl Checked for SharedCall {
    fn run(&mut self) -> (&'static str, i32) {
        // SAFETY: buffers sized from api.h in `prepare_scalarmult`.
        let r = unsafe { (self.f)(self.q.as_mut_ptr(), self.n.as_ptr(), self.p.as_ptr()) };
        ("crypto_scalarmult", r)
    }
    fn output(&self) -> Option<&[u8]> {
        Some(&self.q)
    }
}
