//! Extendable-output functions: `xof` absorbs `len` bytes and squeezes `out` bytes.

use std::hint::black_box;
use std::marker::PhantomData;

use super::super::buffer::Buffer;
use super::super::reference;
use super::super::{Call, Implementation, Kind, Mismatch, Operation, PrepareError, pattern};
use super::{Faults, boundary_lengths, param, unhex};
use crate::record::{Param, Params};

/// What a provider implements for an XOF.
pub trait XofFunction: Send + 'static {
    /// The algorithm implemented: its sizes, and the vectors and reference the gate uses.
    const ALGORITHM: &'static XofAlgorithm;
    /// A fresh instance, ready for its first message.
    fn new() -> Self;
    /// Absorb `msg` and fill `out` with the first `out.len()` output bytes, leaving `self`
    /// ready for the next message.
    fn xof(&mut self, msg: &[u8], out: &mut [u8]);
}

/// The facts about an algorithm that every provider of it shares.
pub struct XofAlgorithm {
    /// The algorithm's name, e.g. `shake128`: the second half of `provider/algorithm`.
    pub name: &'static str,
    /// Bytes absorbed or squeezed per permutation.
    pub rate: usize,
    /// Published examples, checked first.
    pub vectors: &'static [XofVector],
    /// The first `out_len` output bytes for `msg`, from an independent implementation.
    pub reference: fn(msg: &[u8], out_len: usize) -> Vec<u8>,
}

/// A published example: byte `byte` repeated `repeat` times gives `output` (hex), whose
/// length says how much to squeeze.
pub struct XofVector {
    /// Where the example is published; failing checks name it.
    pub source: &'static str,
    /// The byte the message repeats.
    pub byte: u8,
    /// Message length in bytes; 0 for the empty message.
    pub repeat: usize,
    /// The expected output, hex.
    pub output: &'static str,
}

/// NIST's FIPS 202 examples give 4096 output bits; the first 256 bytes cross the rate of
/// both SHAKEs, which is where squeezing goes wrong.
pub static SHAKE128: XofAlgorithm = XofAlgorithm {
    name: "shake128",
    rate: 168,
    vectors: &[
        XofVector {
            source: "NIST FIPS 202 example SHAKE128 (0-bit message), first 256 bytes",
            byte: 0,
            repeat: 0,
            output: "7f9c2ba4e88f827d616045507605853ed73b8093f6efbc88eb1a6eacfa66ef263cb1eea988004b93103cfb0aeefd2a686e01fa4a58e8a3639ca8a1e3f9ae57e235b8cc873c23dc62b8d260169afa2f75ab916a58d974918835d25e6a435085b2badfd6dfaac359a5efbb7bcc4b59d538df9a04302e10c8bc1cbf1a0b3a5120ea17cda7cfad765f5623474d368ccca8af0007cd9f5e4c849f167a580b14aabdefaee7eef47cb0fca9767be1fda69419dfb927e9df07348b196691abaeb580b32def58538b8d23f87732ea63b02b4fa0f4873360e2841928cd60dd4cee8cc0d4c922a96188d032675c8ac850933c7aff1533b94c834adbb69c6115bad4692d8619",
        },
        XofVector {
            source: "NIST FIPS 202 example SHAKE128 (1600-bit message of 0xa3), first 256 bytes",
            byte: 0xa3,
            repeat: 200,
            output: "131ab8d2b594946b9c81333f9bb6e0ce75c3b93104fa3469d3917457385da037cf232ef7164a6d1eb448c8908186ad852d3f85a5cf28da1ab6fe3438171978467f1c05d58c7ef38c284c41f6c2221a76f12ab1c04082660250802294fb87180213fdef5b0ecb7df50ca1f8555be14d32e10f6edcde892c09424b29f597afc270c904556bfcb47a7d40778d390923642b3cbd0579e60908d5a000c1d08b98ef933f806445bf87f8b009ba9e94f7266122ed7ac24e5e266c42a82fa1bbefb7b8db0066e16a85e0493f07df4809aec084a593748ac3dde5a6d7aae1e8b6e5352b2d71efbb47d4caeed5e6d633805d2d323e6fd81b4684b93a2677d45e7421c2c6ae",
        },
    ],
    reference: reference::keccak::shake128,
};

/// SHAKE256 (FIPS 202); see [`SHAKE128`] for its vectors.
pub static SHAKE256: XofAlgorithm = XofAlgorithm {
    name: "shake256",
    rate: 136,
    vectors: &[
        XofVector {
            source: "NIST FIPS 202 example SHAKE256 (0-bit message), first 256 bytes",
            byte: 0,
            repeat: 0,
            output: "46b9dd2b0ba88d13233b3feb743eeb243fcd52ea62b81b82b50c27646ed5762fd75dc4ddd8c0f200cb05019d67b592f6fc821c49479ab48640292eacb3b7c4be141e96616fb13957692cc7edd0b45ae3dc07223c8e92937bef84bc0eab862853349ec75546f58fb7c2775c38462c5010d846c185c15111e595522a6bcd16cf86f3d122109e3b1fdd943b6aec468a2d621a7c06c6a957c62b54dafc3be87567d677231395f6147293b68ceab7a9e0c58d864e8efde4e1b9a46cbe854713672f5caaae314ed9083dab4b099f8e300f01b8650f1f4b1d8fcf3f3cb53fb8e9eb2ea203bdc970f50ae55428a91f7f53ac266b28419c3778a15fd248d339ede785fb7f",
        },
        XofVector {
            source: "NIST FIPS 202 example SHAKE256 (1600-bit message of 0xa3), first 256 bytes",
            byte: 0xa3,
            repeat: 200,
            output: "cd8a920ed141aa0407a22d59288652e9d9f1a7ee0c1e7c1ca699424da84a904d2d700caae7396ece96604440577da4f3aa22aeb8857f961c4cd8e06f0ae6610b1048a7f64e1074cd629e85ad7566048efc4fb500b486a3309a8f26724c0ed628001a1099422468de726f1061d99eb9e93604d5aa7467d4b1bd6484582a384317d7f47d750b8f5499512bb85a226c4243556e696f6bd072c5aa2d9b69730244b56853d16970ad817e213e470618178001c9fb56c54fefa5fee67d2da524bb3b0b61ef0e9114a92cdbb6cccb98615cfe76e3510dd88d1cc28ff99287512f24bfafa1a76877b6f37198e3a641c68a7c42d45fa7acc10dae5f3cefb7b735f12d4e58",
        },
    ],
    reference: reference::keccak::shake256,
};

/// The operations every implementation of this kind offers (C builds included).
pub const OPERATIONS: &[Operation] = &[Operation {
    name: "xof",
    params: &[Param::Len, Param::Out],
}];

/// The output length every XOF case is timed at, unless an experiment says otherwise.
pub const DEFAULT_OUT: u64 = 32;

/// Every algorithm of this kind with known answers: what a name is checked against.
pub static ALL: [&XofAlgorithm; 2] = [&SHAKE128, &SHAKE256];

/// The algorithm of this name whose vectors and reference the gate knows.
pub fn algorithm(name: &str) -> Option<&'static XofAlgorithm> {
    ALL.into_iter().find(|a| a.name == name)
}

/// Any [`XofFunction`] as an [`Implementation`].
pub struct Xof<X> {
    provider: &'static str,
    xof: PhantomData<fn() -> X>,
}

impl<X: XofFunction> Xof<X> {
    /// The adapter for `X`, credited to `provider` (e.g. `rustcrypto`).
    pub const fn new(provider: &'static str) -> Self {
        Xof {
            provider,
            xof: PhantomData,
        }
    }
}

impl XofAlgorithm {
    /// What is wrong in this description: lengths of 0, vectors not hex or not of its
    /// lengths.
    pub fn faults(&self) -> Vec<String> {
        let mut f = Faults::new();
        f.positive("rate", self.rate);
        for (i, v) in self.vectors.iter().enumerate() {
            if f.hex((i, v.source), "output", v.output, None) == Some(0) {
                f.vector((i, v.source), "its output is empty".into());
            }
        }
        f.into_vec()
    }
}

impl<X: XofFunction> Implementation for Xof<X> {
    fn provider(&self) -> &str {
        self.provider
    }
    fn algorithm(&self) -> &str {
        X::ALGORITHM.name
    }
    fn kind(&self) -> Kind {
        Kind::Xof
    }
    fn operations(&self) -> &[Operation] {
        OPERATIONS
    }

    fn description_faults(&self) -> Vec<String> {
        X::ALGORITHM.faults()
    }

    fn verify(&self) -> Result<(), Mismatch> {
        let alg = X::ALGORITHM;
        // One instance for everything: reusing it checks that it resets after each output.
        let mut x = X::new();
        for v in alg.vectors {
            let want = unhex(v.output);
            let mut got = vec![0u8; want.len()];
            x.xof(&vec![v.byte; v.repeat], &mut got);
            Mismatch::check_bytes(v.source, &got, &want)?;
        }
        let rate = alg.rate;
        for len in boundary_lengths(rate) {
            for out_len in [0, 1, 32, rate - 1, rate, rate + 1, 3 * rate + 7] {
                against_reference::<X>(&mut x, len, out_len)?;
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
        against_reference::<X>(&mut X::new(), len, out_len)
    }

    fn prepare(&self, operation: &str, params: &Params) -> Result<Box<dyn Call>, PrepareError> {
        self.operation(operation)?;
        let len = param(self, operation, params, Param::Len)?;
        let out = param(self, operation, params, Param::Out)?;
        Ok(Box::new(XofCall {
            xof: X::new(),
            msg: Buffer::from_slice(&pattern(len)),
            out: Buffer::zeroed(out),
        }))
    }
}

/// `x`'s output of `out_len` bytes for a `len`-byte message against the reference.
fn against_reference<X: XofFunction>(
    x: &mut X,
    len: usize,
    out_len: usize,
) -> Result<(), Mismatch> {
    let msg = pattern(len);
    let mut got = vec![0u8; out_len];
    x.xof(&msg, &mut got);
    Mismatch::check_bytes(
        &format!("{len}-byte message, {out_len}-byte output against the reference implementation"),
        &got,
        &(X::ALGORITHM.reference)(&msg, out_len),
    )
}

struct XofCall<X> {
    xof: X,
    msg: Buffer,
    out: Buffer,
}

impl<X: XofFunction> Call for XofCall<X> {
    #[inline(never)]
    fn call(&mut self) {
        self.xof.xof(black_box(&self.msg), black_box(&mut self.out));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_reproduce_the_published_vectors() {
        for alg in [&SHAKE128, &SHAKE256] {
            for v in alg.vectors {
                let got = (alg.reference)(&vec![v.byte; v.repeat], v.output.len() / 2);
                assert_eq!(hex::encode(got), v.output, "{}", v.source);
            }
        }
    }

    /// SHAKE256 that squeezes only one block and repeats it: right up to the rate.
    struct OneBlock;

    impl XofFunction for OneBlock {
        const ALGORITHM: &'static XofAlgorithm = &SHAKE256;
        fn new() -> Self {
            OneBlock
        }
        fn xof(&mut self, msg: &[u8], out: &mut [u8]) {
            let block = reference::keccak::shake256(msg, 136);
            for (o, b) in out.iter_mut().zip(block.iter().cycle()) {
                *o = *b;
            }
        }
    }

    #[test]
    fn the_gate_refuses_a_broken_xof() {
        let err = Xof::<OneBlock>::new("test").verify().unwrap_err();
        assert!(err.check.contains("first 256 bytes"), "{err}");
    }
}
