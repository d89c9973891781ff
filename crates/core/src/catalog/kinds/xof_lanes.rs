//! N-lane XOFs: N independent messages of equal length absorbed together per call, N
//! outputs of equal length squeezed together (the shape ML-KEM's matrix expansion and
//! the N-way Keccak seed use). Timed per call of all N lanes.
//!
//! Each implementation declares its lanes ([`LaneXof::lanes`], carried on every case
//! as data); names say them too (`provider/shake128-x4-avx2`), with the instructions,
//! so that a figure is never credited to instructions it did not use.

use std::hint::black_box;

use super::super::{Call, Implementation, Kind, Mismatch, Operation, PrepareError};
use super::param;
use super::xof::XofAlgorithm;
use crate::record::{Param, Params};

/// What a provider implements for an N-lane XOF.
pub trait LaneXof: Clone + Send + Sync + 'static {
    /// Who wrote the code: the first half of `provider/algorithm`.
    fn provider(&self) -> &str;
    /// E.g. `shake128-x4-avx2`: the algorithm one lane computes, `-x`, the lane count.
    fn algorithm(&self) -> &str;
    /// As [`Implementation::path`].
    fn path(&self) -> Option<&str> {
        None
    }
    /// The XOF each lane computes; its reference checks every lane.
    fn xof(&self) -> &'static XofAlgorithm;
    /// The lane count N, at most 8: the timed call keeps its lane slices on the stack,
    /// and refuses more.
    fn lanes(&self) -> usize;
    /// Why this CPU cannot run it (a missing instruction set), if it cannot.
    fn unsupported(&self) -> Option<String>;
    /// `ins.len() == outs.len() == lanes()`, inputs of one length, outputs of one length;
    /// called only where `unsupported` is `None`.
    fn shake(&self, ins: &[&[u8]], outs: &mut [&mut [u8]]);
}

/// Lane `l` of a test gets its own bytes, so a lane mix-up cannot pass.
fn lane_bytes(len: usize, lane: usize) -> Vec<u8> {
    (0..len).map(|i| (i * 31 + lane * 97 + 7) as u8).collect()
}

const OPERATIONS: &[Operation] = &[Operation {
    name: "xof",
    params: &[Param::Len, Param::Out],
}];

/// Any [`LaneXof`] as an [`Implementation`].
pub struct Lanes<L>(pub L);

fn run<L: LaneXof>(l: &L, inputs: &[Vec<u8>], outputs: &mut [Vec<u8>]) {
    let ins: Vec<&[u8]> = inputs.iter().map(Vec::as_slice).collect();
    let mut outs: Vec<&mut [u8]> = outputs.iter_mut().map(Vec::as_mut_slice).collect();
    l.shake(&ins, &mut outs);
}

/// One call of `len` bytes in and `out_len` out per lane, each lane against the
/// reference sponge.
fn every_lane<L: LaneXof>(lanes: &L, len: usize, out_len: usize) -> Result<(), Mismatch> {
    let (n, alg) = (lanes.lanes(), lanes.xof());
    let inputs: Vec<Vec<u8>> = (0..n).map(|l| lane_bytes(len, l)).collect();
    let mut outputs = vec![vec![0u8; out_len]; n];
    run(lanes, &inputs, &mut outputs);
    for (l, out) in outputs.iter().enumerate() {
        let check = format!(
            "lane {l} of {len} bytes in, {out_len} out, against the FIPS 202 reference sponge"
        );
        Mismatch::check_bytes(&check, out, &(alg.reference)(&inputs[l], out_len))?;
    }
    Ok(())
}

impl<L: LaneXof> Implementation for Lanes<L> {
    fn provider(&self) -> &str {
        self.0.provider()
    }
    fn algorithm(&self) -> &str {
        self.0.algorithm()
    }
    fn path(&self) -> Option<&str> {
        self.0.path()
    }
    fn kind(&self) -> Kind {
        Kind::Xof
    }
    fn operations(&self) -> &[Operation] {
        OPERATIONS
    }
    fn unsupported(&self) -> Option<String> {
        self.0.unsupported()
    }
    fn lanes(&self) -> usize {
        self.0.lanes()
    }

    /// Every lane against the FIPS 202 reference sponge, around the rate on both sides.
    fn verify(&self) -> Result<(), Mismatch> {
        let rate = self.0.xof().rate;
        for len in [0, 1, rate - 1, rate, rate + 1, 3 * rate + 5, 16_384] {
            for out_len in [1, 32, rate - 1, rate, rate + 1, 2 * rate + 3] {
                every_lane(&self.0, len, out_len)?;
            }
        }
        Ok(())
    }

    fn verify_at(&self, operation: &str, params: &Params) -> Result<(), Mismatch> {
        let (Ok(len), Ok(out_len)) = (
            param(self, operation, params, Param::Len),
            param(self, operation, params, Param::Out),
        ) else {
            return Ok(());
        };
        every_lane(&self.0, len, out_len)
    }

    fn prepare(&self, operation: &str, params: &Params) -> Result<Box<dyn Call>, PrepareError> {
        if let Some(why) = self.0.unsupported() {
            return Err(PrepareError::Unsupported(why));
        }
        self.operation(operation)?;
        let len = param(self, operation, params, Param::Len)?;
        let out = param(self, operation, params, Param::Out)?;
        let n = self.0.lanes();
        if n > MAX_LANES {
            return Err(PrepareError::Failed(format!(
                "`{}` has {n} lanes; a timed call passes at most {MAX_LANES}",
                self.name()
            )));
        }
        Ok(Box::new(LanesCall {
            lanes: self.0.clone(),
            inputs: (0..n).map(|l| lane_bytes(len, l)).collect(),
            outputs: vec![vec![0u8; out]; n],
        }))
    }
}

/// The most lanes a timed call passes: its slices live on the stack.
const MAX_LANES: usize = 8;

struct LanesCall<L> {
    lanes: L,
    inputs: Vec<Vec<u8>>,
    outputs: Vec<Vec<u8>>,
}

impl<L: LaneXof> Call for LanesCall<L> {
    fn call(&mut self) {
        // Slices of at most 8 lanes on the stack: the call allocates nothing.
        let mut ins: [&[u8]; MAX_LANES] = [&[]; MAX_LANES];
        for (slot, input) in ins.iter_mut().zip(&self.inputs) {
            *slot = input;
        }
        let n = self.inputs.len();
        let mut outs: [&mut [u8]; MAX_LANES] = Default::default();
        for (slot, output) in outs.iter_mut().zip(self.outputs.iter_mut()) {
            *slot = output;
        }
        self.lanes.shake(black_box(&ins[..n]), &mut outs[..n]);
    }
}

#[cfg(test)]
mod tests {
    use super::super::xof::SHAKE128;
    use super::*;

    /// Two lanes whose outputs come back swapped.
    #[derive(Clone)]
    struct Swapped;
    impl LaneXof for Swapped {
        fn provider(&self) -> &str {
            "test"
        }
        fn algorithm(&self) -> &str {
            "shake128-x2-swapped"
        }
        fn xof(&self) -> &'static XofAlgorithm {
            &SHAKE128
        }
        fn lanes(&self) -> usize {
            2
        }
        fn unsupported(&self) -> Option<String> {
            None
        }
        fn shake(&self, ins: &[&[u8]], outs: &mut [&mut [u8]]) {
            let n = outs[0].len();
            outs[1].copy_from_slice(&(SHAKE128.reference)(ins[0], n));
            outs[0].copy_from_slice(&(SHAKE128.reference)(ins[1], n));
        }
    }

    #[test]
    fn the_gate_refuses_lanes_that_mix_up_messages() {
        let err = Lanes(Swapped).verify().unwrap_err();
        assert!(err.check.contains("lane 0"), "{err}");
    }
}
