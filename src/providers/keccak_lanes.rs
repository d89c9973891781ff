//! cryptobench's own N-lane Keccak (`src/keccak`): SHAKE128/256 over N independent
//! messages of equal length per call, and the bare Keccak-f[1600] on N states.
//!
//! Names say the lane count and the instructions, e.g. `cryptobench/shake128-x4-avx2`,
//! so that a figure is never credited to instructions it did not use; a backend this CPU
//! lacks is listed and reported unsupported, never run.

use std::hint::black_box;

use crate::catalog::kinds::xof::{SHAKE128, SHAKE256, XofAlgorithm};
use crate::catalog::kinds::xof_lanes::{LaneXof, Lanes};
use crate::catalog::reference;
use crate::catalog::registry::Registry;
use crate::catalog::{Call, Implementation, Kind, Mismatch, Operation, PrepareError};
use crate::keccak::{self, Backend};
use crate::record::Params;

pub const PROVIDER: &str = "cryptobench";

pub fn register(r: &mut Registry) {
    for backend in Backend::ALL {
        r.add(ShakeLanes::new(backend, &SHAKE128));
        r.add(ShakeLanes::new(backend, &SHAKE256));
        r.add(PermuteLanes {
            backend,
            algorithm: format!("keccak-f1600-{}", backend.name()),
        });
    }
}

fn unsupported(backend: Backend) -> Option<String> {
    (!backend.is_supported()).then(|| keccak::Error::Unsupported(backend).to_string())
}

/// SHAKE on one of our backends.
#[derive(Clone)]
struct ShakeLanes {
    backend: Backend,
    alg: &'static XofAlgorithm,
    algorithm: String,
}

impl ShakeLanes {
    fn new(backend: Backend, alg: &'static XofAlgorithm) -> Lanes<Self> {
        Lanes(ShakeLanes {
            backend,
            alg,
            algorithm: format!("{}-{}", alg.name, backend.name()),
        })
    }
}

impl LaneXof for ShakeLanes {
    fn provider(&self) -> &str {
        PROVIDER
    }
    fn algorithm(&self) -> &str {
        &self.algorithm
    }
    fn xof(&self) -> &'static XofAlgorithm {
        self.alg
    }
    fn lanes(&self) -> usize {
        self.backend.lanes()
    }
    fn unsupported(&self) -> Option<String> {
        unsupported(self.backend)
    }
    fn shake(&self, ins: &[&[u8]], outs: &mut [&mut [u8]]) {
        // Lane counts and lengths are the adapter's, checked by the gate: no error here.
        let _ = keccak::shake(self.backend, self.alg.rate, ins, outs);
    }
}

const PERMUTE: &[Operation] = &[Operation {
    name: "permute",
    params: &[],
}];

struct PermuteLanes {
    backend: Backend,
    algorithm: String,
}

impl Implementation for PermuteLanes {
    fn provider(&self) -> &str {
        PROVIDER
    }
    fn algorithm(&self) -> &str {
        &self.algorithm
    }
    fn kind(&self) -> Kind {
        Kind::Core
    }
    fn operations(&self) -> &[Operation] {
        PERMUTE
    }
    fn unsupported(&self) -> Option<String> {
        unsupported(self.backend)
    }
    fn lanes(&self) -> usize {
        self.backend.lanes()
    }

    fn verify(&self) -> Result<(), Mismatch> {
        let n = self.backend.lanes();
        let mut states: Vec<[u64; 25]> = (0..n)
            .map(|l| {
                std::array::from_fn(|i| {
                    (i as u64 + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ (l as u64) << 40
                })
            })
            .collect();
        let mut want = states.clone();
        for s in want.iter_mut() {
            reference::keccak::f1600(s);
        }
        keccak::permute(self.backend, &mut states)
            .map_err(|e| Mismatch::new("call", e.to_string()))?;
        for (l, (got, want)) in states.iter().zip(&want).enumerate() {
            if got != want {
                return Err(Mismatch::new(
                    "Keccak-f[1600] against the FIPS 202 reference",
                    format!("state {l} differs"),
                ));
            }
        }
        Ok(())
    }

    fn prepare(&self, operation: &str, _params: &Params) -> Result<Box<dyn Call>, PrepareError> {
        if let Some(why) = self.unsupported() {
            return Err(PrepareError::Unsupported(why));
        }
        self.operation(operation)?;
        Ok(Box::new(PermuteCall {
            backend: self.backend,
            states: vec![[0u64; 25]; self.backend.lanes()],
        }))
    }
}

struct PermuteCall {
    backend: Backend,
    states: Vec<[u64; 25]>,
}

impl Call for PermuteCall {
    fn call(&mut self) {
        let _ = keccak::permute(self.backend, black_box(&mut self.states));
    }
}
