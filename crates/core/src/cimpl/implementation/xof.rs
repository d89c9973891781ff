//! `crypto_xof`: an extendable-output function, one lane or `CRYPTO_LANES` of them per
//! call (an N-way SHAKE: N messages of one length in, N outputs out, back to back).

use anyhow::Result;

use super::{
    Api, Build, Checked, Guarded, Input, KindInfo, KnownAlgorithm, Wanted, bytes, declined, load,
    refused, refused_there, status, tried,
};
use crate::catalog::kinds::{self, xof};
use crate::catalog::{Call, Kind, Mismatch, PrepareError};
use crate::cimpl::library::{Library, XofFn};
use crate::cimpl::manifest::Vector;
use crate::record::{Param, Params};

pub(super) static INFO: KindInfo = KindInfo {
    kind: Kind::Xof,
    known: || {
        (kinds::xof::ALL.iter())
            .map(|a| KnownAlgorithm {
                name: a.name,
                // An XOF's output is as long as it is asked for: its api.h fixes nothing
                // of it.
                sizes: Vec::new(),
                reference: Some(Box::new(move |v: &Vector| {
                    Some((a.reference)(
                        &Vector::bytes(&v.input),
                        Vector::bytes(&v.output).len(),
                    ))
                })),
            })
            .collect()
    },
    operations: |_| xof::OPERATIONS,
    required_sizes: &[],
    vector_sizes: &[],
    functions: &["crypto_xof"],
    prototypes: &[
        "int crypto_xof(unsigned char *out, unsigned long long outlen, const unsigned char *in, unsigned long long inlen)",
    ],
    known_answers_from: Some("`vectors`"),
    estimated: "crypto_xof",
    estimated_operation: |_| "xof",
    params: |lengths| {
        lengths
            .iter()
            .map(|&l| {
                Params::new()
                    .with(Param::Len, l)
                    .with(Param::Out, xof::DEFAULT_OUT)
            })
            .collect()
    },
    load: load::<XofApi>,
};

pub(super) struct XofApi {
    xof: XofFn,
}

impl Api for XofApi {
    fn load(lib: &Library) -> Result<Self> {
        // SAFETY: the signature the API fixes (see `Api::load`).
        let xof = unsafe { lib.function("crypto_xof")? };
        Ok(XofApi { xof })
    }

    fn has_reference(build: &Build<Self>) -> bool {
        xof::algorithm(&build.spec.algorithm).is_some()
    }

    fn verify(build: &Build<Self>) -> Result<(), Mismatch> {
        build.verify_xof()
    }

    fn prepare(build: &Build<Self>, wanted: &Wanted) -> Result<Box<dyn Call>, PrepareError> {
        let lanes = build.lanes();
        let len = wanted.param(Param::Len)?;
        let out = wanted.param(Param::Out)?;
        let input: Vec<u8> = (0..lanes).flat_map(|l| bytes(len, l as u64)).collect();
        let call = XofCall {
            f: build.api.xof,
            input,
            len,
            out: vec![0; lanes * out],
            out_len: out,
        };
        tried(call, wanted)
    }
}

impl Build<XofApi> {
    /// `CRYPTO_LANES`, or 1 where `api.h` does not define it.
    fn lanes(&self) -> usize {
        self.size("CRYPTO_LANES").max(1)
    }

    /// One call: `messages` (one per lane, of one length) in, an output of `out_len`
    /// bytes per lane out.
    fn xof(&self, messages: &[Vec<u8>], out_len: usize) -> Result<Vec<Vec<u8>>, String> {
        let len = messages[0].len();
        let input: Vec<u8> = messages.concat();
        let out = self.written(
            "crypto_xof",
            format_args!("outlen = {out_len}, inlen = {len}"),
            |fill| {
                let mut out = Guarded::new(fill, messages.len() * out_len);
                let given = Input::new("input", &input);
                // SAFETY: input holds lanes x len bytes, out lanes x out_len, as the API says.
                let r = unsafe {
                    (self.api.xof)(out.as_mut_ptr(), out_len as u64, given.as_ptr(), len as u64)
                };
                Input::unchanged("crypto_xof", &[&given])?;
                status("crypto_xof", r)?;
                out.checked("crypto_xof", "output")
            },
        )?;
        Ok(out.chunks(out_len.max(1)).map(<[u8]>::to_vec).collect())
    }

    /// Every lane against the published vectors and, at the lengths where absorbing and
    /// squeezing cross the rate and at those the run times, against the reference, each
    /// lane with a message of its own (a lane that reads its neighbour's message is
    /// caught); then agreement with a peer variant.
    fn verify_xof(&self) -> Result<(), Mismatch> {
        let lanes = self.lanes();
        let known = xof::algorithm(&self.spec.algorithm);
        let alg_name = &self.spec.algorithm;
        // Every lane the vector's message: every lane must give lane 0's output, which
        // must be the vector's.
        self.known_answers(|v| {
            let want = Vector::bytes(&v.output).len();
            let got = self.xof(&vec![Vector::bytes(&v.input); lanes], want)?;
            match got.iter().position(|lane| *lane != got[0]) {
                Some(lane) => Err(format!("lane {lane} gave other bytes than lane 0")),
                None => Ok(got[0].clone()),
            }
        })?;
        if let Some(alg) = known {
            for v in alg.vectors {
                let want = kinds::unhex(v.output);
                let messages = vec![vec![v.byte; v.repeat]; lanes];
                let got = self
                    .xof(&messages, want.len())
                    .map_err(refused(v.source.to_string()))?;
                for (lane, got) in got.iter().enumerate() {
                    Mismatch::check_bytes(&format!("{} (lane {lane})", v.source), got, &want)?;
                }
            }
        }
        let rate = known.map_or(kinds::UNKNOWN_BLOCK_LEN, |a| a.rate);
        // The gate's lengths, then those the run times beyond them: a build wrong only
        // at a long message is caught before it is timed there.
        let gate = kinds::boundary_lengths(rate);
        let beyond = self.timed_beyond(&gate);
        for len in gate.into_iter().chain(beyond.iter().copied()) {
            let timed = beyond.contains(&len);
            let messages: Vec<Vec<u8>> = (0..lanes).map(|l| bytes(len, 7 + l as u64)).collect();
            for out_len in [1, 32, rate - 1, rate, rate + 1, 3 * rate + 7] {
                let what = format!(
                    "{alg_name}: {len}-byte messages{}, {out_len}-byte outputs",
                    if timed {
                        " (a length the run times)"
                    } else {
                        ""
                    }
                );
                let got = match self.xof(&messages, out_len) {
                    // At a length the run times, the case's own call fails with the status.
                    Err(why) if timed && declined(&why) => break,
                    got => got.map_err(refused(what.clone()))?,
                };
                for (lane, (msg, got)) in messages.iter().zip(&got).enumerate() {
                    if let Some(alg) = known {
                        Mismatch::check_bytes(
                            &format!("{what}, lane {lane}, against the reference implementation"),
                            got,
                            &(alg.reference)(msg, out_len),
                        )?;
                    }
                }
                for p in &self.peers {
                    let what = format!("{what} against variant {}", p.name);
                    // The peer may have another number of lanes: it gets each message alone.
                    for (msg, got) in messages.iter().zip(&got) {
                        let theirs = match p.xof(&vec![msg.clone(); p.lanes()], out_len) {
                            Err(why) if timed && declined(&why) => continue,
                            theirs => theirs.map_err(refused_there(&what))?,
                        };
                        self.agrees(&what, got, &theirs[0])?;
                    }
                }
            }
        }
        Ok(())
    }
}

struct XofCall {
    f: XofFn,
    input: Vec<u8>,
    len: usize,
    out: Vec<u8>,
    out_len: usize,
}

impl Checked for XofCall {
    fn run(&mut self) -> (&'static str, i32) {
        // SAFETY: buffers sized for every lane in `prepare`.
        let r = unsafe {
            (self.f)(
                self.out.as_mut_ptr(),
                self.out_len as u64,
                self.input.as_ptr(),
                self.len as u64,
            )
        };
        ("crypto_xof", r)
    }
    fn output(&self) -> Option<&[u8]> {
        Some(&self.out)
    }
}
