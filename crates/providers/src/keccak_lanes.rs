//! cryptobench's own N-lane Keccak (`src/keccak`): SHAKE128/256 over N independent
//! messages of equal length per call, and the bare Keccak-f\[1600\] on N states.
//!
//! Names say the lane count and the instructions, e.g. `cryptobench/shake128-x4-avx2`,
//! so that a figure is never credited to instructions it did not use; a backend this CPU
//! lacks is listed and reported unsupported, never run. Where a lane count has several
//! backends, its default (what a caller naming only the lane count gets: the table of
//! measured CPU models in `keccak::choice`, or `KECCAK_LANES_BACKEND`) is registered too,
//! with the path it takes on this host after `@`: `cryptobench/shake128-x2@avx512vl-xor`.

use std::hint::black_box;

use cryptobench_core::catalog::kinds::xof::{SHAKE128, SHAKE256, XofAlgorithm};
use cryptobench_core::catalog::kinds::xof_lanes::{LaneXof, Lanes};
use cryptobench_core::catalog::reference;
use cryptobench_core::catalog::registry::Registry;
use cryptobench_core::catalog::{Call, Implementation, Kind, Mismatch, Operation, PrepareError};
use cryptobench_core::record::Params;
use cryptobench_keccak_lanes::{self as keccak, Backend};

pub const PROVIDER: &str = "cryptobench";

/// The lane counts with more than one backend, whose default is chosen per CPU.
pub const CHOSEN_LANES: [usize; 4] = [1, 2, 4, 8];

pub fn register(r: &mut Registry) {
    for backend in Backend::ALL {
        r.add(ShakeLanes::new(backend, &SHAKE128, None));
        r.add(ShakeLanes::new(backend, &SHAKE256, None));
        r.add(PermuteLanes {
            backend,
            algorithm: format!("keccak-f1600-{}", backend.name()),
            default: false,
            interleaved: None,
        });
        for (times, suffix) in [(1, ""), (2, "-twice"), (4, "-4times"), (8, "-8times")] {
            r.add(PermuteLanes {
                backend,
                algorithm: format!("keccak-f1600-{}-interleaved{suffix}", backend.name()),
                default: false,
                interleaved: Some(times),
            });
        }
    }
    for lanes in CHOSEN_LANES {
        let backend = default_backend(lanes);
        r.add(ShakeLanes::new(backend, &SHAKE128, Some(lanes)));
        r.add(ShakeLanes::new(backend, &SHAKE256, Some(lanes)));
        r.add(PermuteLanes {
            backend,
            algorithm: format!("keccak-f1600-x{lanes}"),
            default: true,
            interleaved: None,
        });
    }
}

/// None: this is the workspace's own code, which the run's git revision names.
pub fn crates(_algorithm: &str) -> &'static [&'static str] {
    &[]
}

/// The default backend for `lanes` here. Where none runs, the last preference (listed,
/// reported unsupported); a bad override was refused before anything was registered
/// (`Backend::check_override`, in `commands::dispatch`), and counts as unset if it was not.
fn default_backend(lanes: usize) -> Backend {
    Backend::default_for(lanes)
        .map(|choice| choice.backend)
        .unwrap_or_else(|_| {
            keccak::PREFERENCE
                .iter()
                .rev()
                .copied()
                .find(|b| b.lanes() == lanes)
                .expect("every lane count has a preference")
        })
}

/// How each default is chosen on this host, one line per lane count, for `info`.
pub fn defaults_here() -> Vec<String> {
    CHOSEN_LANES
        .iter()
        .map(|&lanes| match Backend::default_for(lanes) {
            Ok(choice) => format!("x{lanes}: {} ({})", choice.backend, choice.reason),
            Err(e) => format!("x{lanes}: {e}"),
        })
        .collect()
}

fn unsupported(backend: Backend) -> Option<String> {
    (!backend.is_supported()).then(|| keccak::Error::Unsupported(backend).to_string())
}

/// SHAKE on one of our backends: named after it, or, as the default of its lane count,
/// after the lane count with the backend as its path.
#[derive(Clone)]
struct ShakeLanes {
    backend: Backend,
    alg: &'static XofAlgorithm,
    algorithm: String,
    default: bool,
}

impl ShakeLanes {
    fn new(backend: Backend, alg: &'static XofAlgorithm, default_of: Option<usize>) -> Lanes<Self> {
        let algorithm = match default_of {
            Some(lanes) => format!("{}-x{lanes}", alg.name),
            None => format!("{}-{}", alg.name, backend.name()),
        };
        Lanes(ShakeLanes {
            backend,
            alg,
            algorithm,
            default: default_of.is_some(),
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
    fn path(&self) -> Option<&str> {
        self.default.then(|| self.backend.instructions())
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
    /// The default of its lane count: named with the backend as its path.
    default: bool,
    /// `Some(times)`: the states stay interleaved, word `i` of state `l` at
    /// `N * i + l`, as the backend permutes them (`-interleaved`), and a call
    /// permutes them `times` times in a row (`-twice`, `-4times`, `-8times`). That
    /// is the permutation without the transposition in and out that N separate
    /// states take, as XKCP's `PermuteAll` is called on its own interleaved states;
    /// and (T4 - T2) / 2 or (T8 - T4) / 4 is one permutation without the per-call
    /// cost of the harness, read off ours as off a C wrapper that permutes 1, 2, 4
    /// or 8 times per call. Eight shows code whose cost per permutation is not the
    /// same for the second and the fifth (XKCP's fully unrolled `opt64-ua`).
    interleaved: Option<usize>,
}

impl Implementation for PermuteLanes {
    fn provider(&self) -> &str {
        PROVIDER
    }
    fn algorithm(&self) -> &str {
        &self.algorithm
    }
    fn path(&self) -> Option<&str> {
        self.default.then(|| self.backend.instructions())
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
        let times = self.interleaved.unwrap_or(1);
        let mut want = states.clone();
        for s in want.iter_mut() {
            for _ in 0..times {
                reference::keccak::f1600(s);
            }
        }
        if self.interleaved.is_some() {
            // Through the call that is timed, so that its repetitions are checked too.
            let mut call = InterleavedCall::new(self.backend, times);
            for (k, word) in call.words().iter_mut().enumerate() {
                *word = states[k % n][k / n];
            }
            call.permute()
                .map_err(|e| Mismatch::new("call", e.to_string()))?;
            for (k, word) in call.words().iter().enumerate() {
                states[k % n][k / n] = *word;
            }
        } else {
            keccak::permute(self.backend, &mut states)
                .map_err(|e| Mismatch::new("call", e.to_string()))?;
        }
        for (l, (got, want)) in states.iter().zip(&want).enumerate() {
            if got != want {
                return Err(Mismatch::new(
                    "Keccak-f[1600] against the FIPS 202 reference",
                    format!(
                        "state {l} differs after {times} permutation{}",
                        if times == 1 { "" } else { "s" }
                    ),
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
        Ok(match self.interleaved {
            Some(times) => Box::new(InterleavedCall::new(self.backend, times)),
            None => Box::new(PermuteCall {
                backend: self.backend,
                states: vec![[0u64; 25]; self.backend.lanes()],
            }),
        })
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

struct InterleavedCall {
    backend: Backend,
    times: usize,
    words: Box<VectorAligned>,
}

/// Room for eight interleaved states, aligned for the widest vector, so that the
/// backends permute it in place as a caller keeping its own states would.
#[repr(C, align(64))]
struct VectorAligned([u64; 25 * 8]);

impl InterleavedCall {
    fn new(backend: Backend, times: usize) -> InterleavedCall {
        InterleavedCall {
            backend,
            times,
            words: Box::new(VectorAligned([0; 25 * 8])),
        }
    }

    fn words(&mut self) -> &mut [u64] {
        &mut self.words.0[..25 * self.backend.lanes()]
    }

    fn permute(&mut self) -> Result<(), keccak::Error> {
        let (backend, times) = (self.backend, self.times);
        let words = self.words();
        for _ in 0..times {
            keccak::permute_interleaved(backend, black_box(&mut *words))?;
        }
        Ok(())
    }
}

impl Call for InterleavedCall {
    fn call(&mut self) {
        // The backend runs here (checked before the call was prepared): no error.
        let _ = self.permute();
    }
}
