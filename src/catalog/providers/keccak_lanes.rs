//! cryptobench's own N-lane Keccak (`src/keccak`): SHAKE128/256 over N independent
//! messages of equal length per call, and the bare Keccak-f[1600] on N states.
//!
//! Names say the lane count and the instructions, e.g. `cryptobench/shake128-x4-avx2`,
//! so that a figure is never credited to instructions it did not use; a backend this CPU
//! lacks is listed and reported unsupported, never run.

use std::hint::black_box;

use crate::catalog::kinds::xof::{SHAKE128, SHAKE256, XofAlgorithm};
use crate::catalog::reference;
use crate::catalog::registry::Registry;
use crate::catalog::{Call, Implementation, Kind, Mismatch, Operation, Params, PrepareError};
use crate::keccak::{self, Backend};

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

/// The lane count in an implementation name such as `cryptobench/shake128-x4-avx2`, and
/// the algorithm each lane computes (`shake128`).
pub fn lanes_of(implementation: &str) -> Option<(&str, usize)> {
    let algorithm = implementation.strip_prefix(PROVIDER)?.strip_prefix('/')?;
    let (base, rest) = algorithm.split_once("-x")?;
    let lanes = rest.split('-').next()?.parse().ok()?;
    Some((base, lanes))
}

fn unsupported(backend: Backend) -> Option<String> {
    (!backend.is_supported()).then(|| keccak::Error::Unsupported(backend).to_string())
}

/// Lane `l` of a test gets its own bytes, so a lane mix-up cannot pass.
fn lane_bytes(len: usize, lane: usize) -> Vec<u8> {
    (0..len).map(|i| (i * 31 + lane * 97 + 7) as u8).collect()
}

struct ShakeLanes {
    backend: Backend,
    alg: &'static XofAlgorithm,
    algorithm: String,
}

impl ShakeLanes {
    fn new(backend: Backend, alg: &'static XofAlgorithm) -> Self {
        ShakeLanes {
            backend,
            alg,
            algorithm: format!("{}-{}", alg.name, backend.name()),
        }
    }
}

const XOF: &[Operation] = &[Operation {
    name: "xof",
    params: &["len", "out"],
}];
const PERMUTE: &[Operation] = &[Operation {
    name: "permute",
    params: &[],
}];

impl Implementation for ShakeLanes {
    fn provider(&self) -> &str {
        PROVIDER
    }
    fn algorithm(&self) -> &str {
        &self.algorithm
    }
    fn kind(&self) -> Kind {
        Kind::Xof
    }
    fn operations(&self) -> &[Operation] {
        XOF
    }
    fn unsupported(&self) -> Option<String> {
        unsupported(self.backend)
    }

    fn verify(&self) -> Result<(), Mismatch> {
        let n = self.backend.lanes();
        let rate = self.alg.rate;
        for len in [0, 1, rate - 1, rate, rate + 1, 3 * rate + 5, 16_384] {
            for out_len in [1, 32, rate - 1, rate, rate + 1, 2 * rate + 3] {
                let inputs: Vec<Vec<u8>> = (0..n).map(|l| lane_bytes(len, l)).collect();
                let mut outputs = vec![vec![0u8; out_len]; n];
                let ins: Vec<&[u8]> = inputs.iter().map(Vec::as_slice).collect();
                let mut outs: Vec<&mut [u8]> = outputs.iter_mut().map(Vec::as_mut_slice).collect();
                keccak::shake(self.backend, rate, &ins, &mut outs)
                    .map_err(|e| Mismatch::new("call", e.to_string()))?;
                for (l, out) in outputs.iter().enumerate() {
                    let check = format!(
                        "lane {l} of {len} bytes in, {out_len} out, against the FIPS 202 reference sponge"
                    );
                    Mismatch::check_bytes(&check, out, &(self.alg.reference)(&inputs[l], out_len))?;
                }
            }
        }
        Ok(())
    }

    fn prepare(&self, operation: &str, params: &Params) -> Result<Box<dyn Call>, PrepareError> {
        if let Some(why) = self.unsupported() {
            return Err(PrepareError::Unsupported(why));
        }
        self.operation(operation)?;
        let need = |p: &'static str| {
            params
                .get(p)
                .map(|v| v as usize)
                .ok_or(PrepareError::MissingParam {
                    implementation: self.name(),
                    operation: operation.to_string(),
                    param: p,
                })
        };
        let (len, out) = (need("len")?, need("out")?);
        let n = self.backend.lanes();
        Ok(Box::new(ShakeCall {
            backend: self.backend,
            rate: self.alg.rate,
            inputs: (0..n).map(|l| lane_bytes(len, l)).collect(),
            outputs: vec![vec![0u8; out]; n],
        }))
    }
}

struct ShakeCall {
    backend: Backend,
    rate: usize,
    inputs: Vec<Vec<u8>>,
    outputs: Vec<Vec<u8>>,
}

impl Call for ShakeCall {
    fn call(&mut self) {
        // Slices of at most 8 lanes on the stack: the call allocates nothing.
        let mut ins: [&[u8]; 8] = [&[]; 8];
        for (slot, input) in ins.iter_mut().zip(&self.inputs) {
            *slot = input;
        }
        let n = self.inputs.len();
        let mut outs: [&mut [u8]; 8] = Default::default();
        for (slot, output) in outs.iter_mut().zip(self.outputs.iter_mut()) {
            *slot = output;
        }
        // Lane counts and lengths were checked by the gate; an error cannot happen here.
        let _ = keccak::shake(
            self.backend,
            self.rate,
            black_box(&ins[..n]),
            &mut outs[..n],
        );
    }
}

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lane_counts_are_read_from_names() {
        assert_eq!(
            lanes_of("cryptobench/shake128-x4-avx2"),
            Some(("shake128", 4))
        );
        assert_eq!(
            lanes_of("cryptobench/shake256-x1-scalar"),
            Some(("shake256", 1))
        );
        assert_eq!(lanes_of("rustcrypto/shake128"), None);
    }
}
