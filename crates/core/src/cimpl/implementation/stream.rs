//! `crypto_stream_xor`: the gate and the timed call.

use anyhow::Result;

use super::{
    Api, Build, Checked, Guarded, Input, KindInfo, KnownAlgorithm, Wanted, bytes, declined, load,
    per_length, refused, refused_there, status, tried,
};
use crate::catalog::kinds;
use crate::catalog::{Call, Kind, Mismatch, PrepareError};
use crate::cimpl::library::{Library, StreamXorFn};
use crate::cimpl::manifest::Vector;
use crate::record::Param;

pub(super) static INFO: KindInfo = KindInfo {
    kind: Kind::Stream,
    // One algorithm a name, in as many forms as the catalog has sizes for it.
    known: || {
        let mut known: Vec<KnownAlgorithm> = Vec::new();
        for a in kinds::stream::ALL {
            let form = vec![
                ("CRYPTO_KEYBYTES", a.key_len),
                ("CRYPTO_NONCEBYTES", a.nonce_len),
            ];
            match known.iter_mut().find(|k| k.name == a.name) {
                Some(k) => k.sizes.push(form),
                None => known.push(KnownAlgorithm {
                    name: a.name,
                    sizes: vec![form],
                    reference: Some(Box::new(move |v: &Vector| reference(a.name, v))),
                }),
            }
        }
        known
    },
    operations: |_| kinds::stream::OPERATIONS,
    required_sizes: &["CRYPTO_KEYBYTES", "CRYPTO_NONCEBYTES"],
    vector_sizes: &[("key", "CRYPTO_KEYBYTES"), ("nonce", "CRYPTO_NONCEBYTES")],
    functions: &["crypto_stream_xor"],
    prototypes: &[
        "int crypto_stream_xor(unsigned char *c, const unsigned char *m, unsigned long long mlen, const unsigned char *n, const unsigned char *k)",
    ],
    known_answers_from: Some("`vectors`"),
    estimated: "crypto_stream_xor",
    estimated_operation: |_| "xor",
    params: per_length,
    load: load::<StreamApi>,
};

/// What the reference of the stream cipher `name`, in the form of the vector's key and
/// nonce lengths, gives for the vector's fields.
fn reference(name: &str, v: &Vector) -> Option<Vec<u8>> {
    let (key, nonce, input) = (
        Vector::bytes(&v.key),
        Vector::bytes(&v.nonce),
        Vector::bytes(&v.input),
    );
    let keystream = kinds::stream::algorithm(name, key.len(), nonce.len())?.reference?;
    let stream = keystream(&key, &nonce, input.len());
    Some(input.iter().zip(stream).map(|(m, k)| m ^ k).collect())
}

pub(super) struct StreamApi {
    xor: StreamXorFn,
}

impl Api for StreamApi {
    fn load(lib: &Library) -> Result<Self> {
        // SAFETY: the signature the API fixes (see `Api::load`).
        let xor = unsafe { lib.function("crypto_stream_xor")? };
        Ok(StreamApi { xor })
    }

    fn has_reference(build: &Build<Self>) -> bool {
        build.known_stream().is_some()
    }

    fn verify(build: &Build<Self>) -> Result<(), Mismatch> {
        build.verify_stream()
    }

    fn prepare(build: &Build<Self>, wanted: &Wanted) -> Result<Box<dyn Call>, PrepareError> {
        let call = StreamCall {
            f: build.api.xor,
            m: bytes(wanted.param(Param::Len)?, 1),
            c: vec![0; wanted.param(Param::Len)?],
            n: bytes(build.size("CRYPTO_NONCEBYTES"), 2),
            k: bytes(build.size("CRYPTO_KEYBYTES"), 3),
        };
        tried(call, wanted)
    }
}

impl Build<StreamApi> {
    fn stream_xor(&self, m: &[u8], n: &[u8], k: &[u8]) -> Result<Vec<u8>, String> {
        self.written(
            "crypto_stream_xor",
            format_args!("mlen = {}", m.len()),
            |fill| {
                let mut c = Guarded::new(fill, m.len());
                let inputs = [
                    Input::new("message", m),
                    Input::new("nonce", n),
                    Input::new("key", k),
                ];
                let [m_in, n_in, k_in] = &inputs;
                // SAFETY: c and m have mlen bytes; n and k have the api.h sizes.
                let r = unsafe {
                    (self.api.xor)(
                        c.as_mut_ptr(),
                        m_in.as_ptr(),
                        m.len() as u64,
                        n_in.as_ptr(),
                        k_in.as_ptr(),
                    )
                };
                Input::unchanged("crypto_stream_xor", &[m_in, n_in, k_in])?;
                status("crypto_stream_xor", r)?;
                c.checked("crypto_stream_xor", "output")
            },
        )
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
        self.known_answers(|v| {
            let bytes = Vector::bytes;
            self.stream_xor(&bytes(&v.input), &bytes(&v.nonce), &bytes(&v.key))
        })?;
        let known = self.known_stream();
        if let Some(alg) = known {
            kinds::stream::conformance(alg, |k, n, m| self.stream_xor(m, n, k))?;
        }
        // As for hashes: success at every length, and agreement with a peer; the lengths
        // the run times beyond the gate's, against the reference too.
        let key = bytes(self.size("CRYPTO_KEYBYTES"), 2);
        let nonce = bytes(self.size("CRYPTO_NONCEBYTES"), 3);
        let block_len = known.map_or(kinds::UNKNOWN_BLOCK_LEN, |a| a.block_len);
        let (lengths, beyond) = self.lengths_to_compare(block_len, known.is_some());
        for len in lengths {
            let m = bytes(len, 4);
            let got = match self.stream_xor(&m, &nonce, &key) {
                // At a length the run times, the case's own call fails with the status.
                Err(why) if beyond.contains(&len) && declined(&why) => continue,
                got => got.map_err(refused(format!("{len}-byte message")))?,
            };
            if let Some(keystream) = known.and_then(|a| a.reference)
                && beyond.contains(&len)
            {
                let want: Vec<u8> = (m.iter().zip(keystream(&key, &nonce, len)))
                    .map(|(a, b)| a ^ b)
                    .collect();
                let what = format!(
                    "{len}-byte message (a length the run times) against the reference implementation"
                );
                Mismatch::check_bytes(&what, &got, &want)?;
            }
            for p in &self.peers {
                let what = format!("{len} bytes against variant {}", p.name);
                let theirs = match p.stream_xor(&m, &nonce, &key) {
                    Err(why) if beyond.contains(&len) && declined(&why) => continue,
                    theirs => theirs.map_err(refused_there(&what))?,
                };
                self.agrees(&what, &got, &theirs)?;
            }
        }
        Ok(())
    }
}

struct StreamCall {
    f: StreamXorFn,
    m: Vec<u8>,
    c: Vec<u8>,
    n: Vec<u8>,
    k: Vec<u8>,
}
impl Checked for StreamCall {
    fn run(&mut self) -> (&'static str, i32) {
        // SAFETY: buffers sized from api.h in `prepare`.
        let r = unsafe {
            (self.f)(
                self.c.as_mut_ptr(),
                self.m.as_ptr(),
                self.m.len() as u64,
                self.n.as_ptr(),
                self.k.as_ptr(),
            )
        };
        ("crypto_stream_xor", r)
    }
    fn output(&self) -> Option<&[u8]> {
        Some(&self.c)
    }
}
