//! `crypto_core`: the gate (the manifest's vectors, the Rust catalog's known answers) and
//! the timed call.

use anyhow::Result;

use super::{
    Api, Build, CSpec, Checked, Guarded, Input, KindInfo, KnownAlgorithm, Wanted, bytes,
    fixed_size, load, refused, refused_there, status, tried,
};
use crate::catalog::kinds;
use crate::catalog::{Call, Kind, Mismatch, Operation, PrepareError};
use crate::cimpl::library::{CoreFn, Library};
use crate::cimpl::manifest::Vector;

pub(super) static INFO: KindInfo = KindInfo {
    kind: Kind::Core,
    known: || {
        (kinds::core::ALL.iter())
            .map(|a| KnownAlgorithm {
                name: a.name,
                sizes: vec![vec![
                    ("CRYPTO_KEYBYTES", a.key_len),
                    ("CRYPTO_INPUTBYTES", a.block_len),
                    ("CRYPTO_OUTPUTBYTES", a.block_len),
                ]],
                reference: Some(Box::new(move |v: &Vector| {
                    let (key, input) = (Vector::bytes(&v.key), Vector::bytes(&v.input));
                    (a.key_len == key.len() && a.block_len == input.len())
                        .then(|| (a.reference)(&key, &input))
                })),
            })
            .collect()
    },
    operations,
    // A `core` build may have neither key nor constant.
    required_sizes: &["CRYPTO_OUTPUTBYTES", "CRYPTO_INPUTBYTES"],
    vector_sizes: &[
        ("input", "CRYPTO_INPUTBYTES"),
        ("key", "CRYPTO_KEYBYTES"),
        ("output", "CRYPTO_OUTPUTBYTES"),
    ],
    functions: &["crypto_core"],
    prototypes: &[
        "int crypto_core(unsigned char *out, const unsigned char *in, const unsigned char *k, const unsigned char *c)",
    ],
    known_answers_from: Some("`vectors`"),
    estimated: "crypto_core",
    // Its one operation, whichever its keying names.
    estimated_operation: |spec| operations(spec)[0].name,
    params: fixed_size,
    load: load::<CoreApi>,
};

/// `crypto_core` is SUPERCOP's name for one fixed-size call; the operation is named after
/// what it does, as the Rust catalog names the same calls, so that C and Rust builds of
/// one algorithm compare: a keyed core is a block cipher (`encrypt`), an unkeyed one a
/// permutation (`permute`). Named before anything is built, so from what the manifest
/// says: its `sizes`, else its vectors' keys, else the catalog's algorithm of that name.
/// (The gate then checks the build's api.h against the same sizes and vectors.)
fn operations(spec: &CSpec) -> &'static [Operation] {
    let keyed = (spec
        .expected_sizes
        .get("CRYPTO_KEYBYTES")
        .map(|&key| key > 0))
    .or_else(|| spec.vectors.first().map(|v| !v.key.is_empty()))
    .or_else(|| kinds::core::algorithm(&spec.algorithm).map(|a| a.key_len > 0))
    .unwrap_or(false);
    if keyed {
        kinds::core::ENCRYPT
    } else {
        kinds::core::PERMUTE
    }
}

pub(super) struct CoreApi {
    core: CoreFn,
}

impl Api for CoreApi {
    fn load(lib: &Library) -> Result<Self> {
        // SAFETY: the signature the API fixes (see `Api::load`).
        let core = unsafe { lib.function("crypto_core")? };
        Ok(CoreApi { core })
    }

    fn has_reference(build: &Build<Self>) -> bool {
        build.known_core().is_some()
    }

    fn verify(build: &Build<Self>) -> Result<(), Mismatch> {
        build.verify_core()
    }

    fn prepare(build: &Build<Self>, wanted: &Wanted) -> Result<Box<dyn Call>, PrepareError> {
        let call = CoreCall {
            f: build.api.core,
            input: bytes(build.size("CRYPTO_INPUTBYTES"), 1),
            out: vec![0; build.size("CRYPTO_OUTPUTBYTES")],
            k: bytes(build.size("CRYPTO_KEYBYTES").max(1), 3),
            c: vec![0; build.size("CRYPTO_CONSTBYTES").max(1)],
        };
        tried(call, wanted)
    }
}

impl Build<CoreApi> {
    fn core(&self, input: &[u8], k: &[u8]) -> Result<Vec<u8>, String> {
        let c = vec![0u8; self.size("CRYPTO_CONSTBYTES").max(1)];
        let k = if k.is_empty() {
            vec![0u8; 1]
        } else {
            k.to_vec()
        };
        self.written(
            "crypto_core",
            format_args!("in of {} bytes", input.len()),
            |fill| {
                let mut out = Guarded::new(fill, self.size("CRYPTO_OUTPUTBYTES"));
                let inputs = [
                    Input::new("input", input),
                    Input::new("key", &k),
                    Input::new("constant", &c),
                ];
                let [in_in, k_in, c_in] = &inputs;
                // SAFETY: buffers have the api.h sizes (at least one byte, so never dangling).
                let r = unsafe {
                    (self.api.core)(
                        out.as_mut_ptr(),
                        in_in.as_ptr(),
                        k_in.as_ptr(),
                        c_in.as_ptr(),
                    )
                };
                Input::unchanged("crypto_core", &[in_in, k_in, c_in])?;
                status("crypto_core", r)?;
                out.checked("crypto_core", "output")
            },
        )
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
        self.known_answers(|v| self.core(&Vector::bytes(&v.input), &Vector::bytes(&v.key)))?;
        if let Some(alg) = self.known_core() {
            kinds::core::conformance(alg, |key, block, calls| {
                (0..calls).try_fold(block.to_vec(), |b, _| self.core(&b, key))
            })?;
        }
        for p in &self.peers {
            for seed in 0..64u64 {
                let input = bytes(self.size("CRYPTO_INPUTBYTES"), 100 + seed);
                let key = bytes(self.size("CRYPTO_KEYBYTES"), 200 + seed);
                let what = format!("random input {seed} against variant {}", p.name);
                let ours = self.core(&input, &key).map_err(refused(&what))?;
                let theirs = p.core(&input, &key).map_err(refused_there(&what))?;
                self.agrees(&what, &ours, &theirs)?;
            }
        }
        Ok(())
    }
}

struct CoreCall {
    f: CoreFn,
    input: Vec<u8>,
    out: Vec<u8>,
    k: Vec<u8>,
    c: Vec<u8>,
}
impl Checked for CoreCall {
    fn run(&mut self) -> (&'static str, i32) {
        // SAFETY: buffers sized from api.h in `prepare`.
        let r = unsafe {
            (self.f)(
                self.out.as_mut_ptr(),
                self.input.as_ptr(),
                self.k.as_ptr(),
                self.c.as_ptr(),
            )
        };
        ("crypto_core", r)
    }
    fn output(&self) -> Option<&[u8]> {
        Some(&self.out)
    }
}
