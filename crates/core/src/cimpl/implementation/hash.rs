//! `crypto_hash`: the gate and the timed call.

use anyhow::Result;

use super::{
    Api, Build, Checked, Guarded, Input, KindInfo, KnownAlgorithm, Wanted, bytes, declined, load,
    per_length, refused, refused_there, status, tried,
};
use crate::catalog::kinds;
use crate::catalog::{Call, Kind, Mismatch, PrepareError};
use crate::cimpl::library::{HashFn, Library};
use crate::cimpl::manifest::Vector;
use crate::record::Param;

pub(super) static INFO: KindInfo = KindInfo {
    kind: Kind::Hash,
    known: || {
        (kinds::hash::ALL.iter())
            .map(|a| KnownAlgorithm {
                name: a.name,
                sizes: vec![vec![("CRYPTO_BYTES", a.out_len)]],
                reference: Some(Box::new(move |v: &Vector| {
                    let digest = a.reference?;
                    Some(digest(&Vector::bytes(&v.input)))
                })),
            })
            .collect()
    },
    operations: |_| kinds::hash::OPERATIONS,
    required_sizes: &["CRYPTO_BYTES"],
    vector_sizes: &[("output", "CRYPTO_BYTES")],
    functions: &["crypto_hash"],
    prototypes: &[
        "int crypto_hash(unsigned char *out, const unsigned char *in, unsigned long long inlen)",
    ],
    known_answers_from: Some("`vectors`"),
    estimated: "crypto_hash",
    estimated_operation: |_| "hash",
    params: per_length,
    load: load::<HashApi>,
};

pub(super) struct HashApi {
    hash: HashFn,
}

impl Api for HashApi {
    fn load(lib: &Library) -> Result<Self> {
        // SAFETY: the signature the API fixes (see `Api::load`).
        let hash = unsafe { lib.function("crypto_hash")? };
        Ok(HashApi { hash })
    }

    fn has_reference(build: &Build<Self>) -> bool {
        kinds::hash::algorithm(&build.spec.algorithm).is_some()
    }

    fn verify(build: &Build<Self>) -> Result<(), Mismatch> {
        build.verify_hash()
    }

    fn prepare(build: &Build<Self>, wanted: &Wanted) -> Result<Box<dyn Call>, PrepareError> {
        let call = HashCall {
            f: build.api.hash,
            input: bytes(wanted.param(Param::Len)?, 1),
            out: vec![0; build.size("CRYPTO_BYTES")],
        };
        tried(call, wanted)
    }
}

impl Build<HashApi> {
    fn hash(&self, input: &[u8]) -> Result<Vec<u8>, String> {
        self.written(
            "crypto_hash",
            format_args!("inlen = {}", input.len()),
            |fill| {
                let mut out = Guarded::new(fill, self.size("CRYPTO_BYTES"));
                let given = Input::new("input", input);
                // SAFETY: out has CRYPTO_BYTES bytes, input its own length.
                let r = unsafe {
                    (self.api.hash)(out.as_mut_ptr(), given.as_ptr(), input.len() as u64)
                };
                Input::unchanged("crypto_hash", &[&given])?;
                status("crypto_hash", r)?;
                out.checked("crypto_hash", "output")
            },
        )
    }

    fn verify_hash(&self) -> Result<(), Mismatch> {
        self.known_answers(|v| self.hash(&Vector::bytes(&v.input)))?;
        let known = kinds::hash::algorithm(&self.spec.algorithm);
        if let Some(alg) = known {
            kinds::hash::conformance(alg, |m| self.hash(m))?;
        }
        // What the gate can still ask of an algorithm it has no reference for: that every
        // call succeeds, and that a peer variant agrees. Without a peer, a known algorithm
        // has been asked all of that already, at the gate's lengths; at the lengths the
        // run times beyond them, it is asked again, against the reference.
        let block_len = known.map_or(kinds::UNKNOWN_BLOCK_LEN, |a| a.block_len);
        let (lengths, beyond) = self.lengths_to_compare(block_len, known.is_some());
        for len in lengths {
            let m = bytes(len, 1);
            let got = match self.hash(&m) {
                // At a length the run times, the case's own call fails with the status.
                Err(why) if beyond.contains(&len) && declined(&why) => continue,
                got => got.map_err(refused(format!("{} of {len} bytes", self.spec.algorithm)))?,
            };
            if let Some(reference) = known.and_then(|a| a.reference)
                && beyond.contains(&len)
            {
                let what = format!(
                    "{len}-byte message (a length the run times) against the reference implementation"
                );
                Mismatch::check_bytes(&what, &got, &reference(&m))?;
            }
            for p in &self.peers {
                let what = format!("{len} bytes against variant {}", p.name);
                let theirs = match p.hash(&m) {
                    Err(why) if beyond.contains(&len) && declined(&why) => continue,
                    theirs => theirs.map_err(refused_there(&what))?,
                };
                self.agrees(&what, &got, &theirs)?;
            }
        }
        Ok(())
    }
}

struct HashCall {
    f: HashFn,
    input: Vec<u8>,
    out: Vec<u8>,
}
impl Checked for HashCall {
    fn run(&mut self) -> (&'static str, i32) {
        // SAFETY: buffers sized from api.h in `prepare`.
        let r = unsafe {
            (self.f)(
                self.out.as_mut_ptr(),
                self.input.as_ptr(),
                self.input.len() as u64,
            )
        };
        ("crypto_hash", r)
    }
    fn output(&self) -> Option<&[u8]> {
        Some(&self.out)
    }
}
