//! Keccak-f\[1600\] and SHAKE on several independent states at once.
//!
//! Each SIMD [`Backend`] interleaves `lanes()` states in its registers, one
//! per 64-bit element, so one instruction stream permutes them all. Which
//! backends run is decided at run time from the CPU's features, never from the
//! build machine's: the crate is built for baseline x86-64 and the
//! instructions a backend needs live only inside its `#[target_feature]`
//! functions, entered after detection. Where a lane count has several
//! backends, [`Backend::default_for`] says which one a caller naming only the
//! lane count should take on this CPU, from a table of CPU models measured
//! beforehand (`choice.rs`), overridable by [`OVERRIDE_VAR`].

#![deny(missing_docs)]
use core::fmt;

#[cfg(target_arch = "x86_64")]
mod avx512;
#[cfg(target_arch = "x86_64")]
mod avx512vl;
mod choice;
mod round;
mod scalar;
mod sponge;
#[cfg(target_arch = "x86_64")]
mod x1_asm;
#[cfg(target_arch = "x86_64")]
mod x2;
#[cfg(target_arch = "x86_64")]
mod x4;
#[cfg(target_arch = "x86_64")]
mod x4_asm;
#[cfg(target_arch = "x86_64")]
mod x8;

#[cfg(test)]
mod tests;

pub use choice::{Choice, ChoiceError, Cpu, MEASURED, Measured, OVERRIDE_VAR, PREFERENCE, Reason};

/// SHAKE128's rate in bytes.
pub const SHAKE128_RATE: usize = 168;
/// SHAKE256's rate in bytes.
pub const SHAKE256_RATE: usize = 136;

/// A way of running Keccak, named after how many states it processes at once.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Backend {
    /// One state in general-purpose registers: the shared round as LLVM
    /// compiles it (with BMI1's `andn` and BMI2's `rorx` where the CPU has them).
    Scalar,
    /// One state in general-purpose registers, in assembly of our own (BMI1
    /// and BMI2) whose instruction order and register allocation were searched
    /// on a Zen 4 core (`asm/x1_schedule.py`).
    ScalarAsm,
    /// Two states in 128-bit SSE2 registers (VEX-encoded where AVX exists).
    Sse2x2,
    /// Two states in 128-bit registers with AVX-512VL's rotate and
    /// three-input logic.
    Avx512vlX2,
    /// [`Backend::Avx512vlX2`] with theta's column term XORed once a column and
    /// applied by two-input XORs instead of three-input logic (faster on AMD Zen 4,
    /// slower on Intel Sapphire Rapids).
    Avx512vlX2Xor,
    /// Four states in 256-bit AVX2 registers.
    Avx2x4,
    /// Four states in 256-bit AVX2 registers, in assembly of our own whose
    /// instruction order and register allocation were searched on a Zen 4
    /// core (`asm/x4_schedule.py`).
    Avx2x4Asm,
    /// Four states in 256-bit registers with AVX-512VL's rotate and
    /// three-input logic.
    Avx512vlX4,
    /// [`Backend::Avx512vlX4`] with theta's column term XORed once a column and
    /// applied by two-input XORs (as [`Backend::Avx512vlX2Xor`]).
    Avx512vlX4Xor,
    /// Eight states in 512-bit AVX-512F registers, theta applied by three-input
    /// logic.
    Avx512x8,
    /// [`Backend::Avx512x8`] with theta's column term XORed once a column and
    /// applied by two-input XORs (as [`Backend::Avx512vlX2Xor`]).
    Avx512x8Xor,
}

impl Backend {
    /// Every backend, narrowest first, and for one lane count the one with
    /// fewer CPU features first.
    pub const ALL: [Backend; 11] = [
        Backend::Scalar,
        Backend::ScalarAsm,
        Backend::Sse2x2,
        Backend::Avx512vlX2,
        Backend::Avx512vlX2Xor,
        Backend::Avx2x4,
        Backend::Avx2x4Asm,
        Backend::Avx512vlX4,
        Backend::Avx512vlX4Xor,
        Backend::Avx512x8,
        Backend::Avx512x8Xor,
    ];

    /// How many states one call processes.
    pub fn lanes(self) -> usize {
        match self {
            Backend::Scalar | Backend::ScalarAsm => 1,
            Backend::Sse2x2 | Backend::Avx512vlX2 | Backend::Avx512vlX2Xor => 2,
            Backend::Avx2x4 | Backend::Avx2x4Asm | Backend::Avx512vlX4 | Backend::Avx512vlX4Xor => {
                4
            }
            Backend::Avx512x8 | Backend::Avx512x8Xor => 8,
        }
    }

    /// A short name for reports, such as `x4-avx2`.
    pub fn name(self) -> &'static str {
        match self {
            Backend::Scalar => "x1-scalar",
            Backend::ScalarAsm => "x1-asm",
            Backend::Sse2x2 => "x2-sse2",
            Backend::Avx512vlX2 => "x2-avx512vl",
            Backend::Avx512vlX2Xor => "x2-avx512vl-xor",
            Backend::Avx2x4 => "x4-avx2",
            Backend::Avx2x4Asm => "x4-avx2-asm",
            Backend::Avx512vlX4 => "x4-avx512vl",
            Backend::Avx512vlX4Xor => "x4-avx512vl-xor",
            Backend::Avx512x8 => "x8-avx512",
            Backend::Avx512x8Xor => "x8-avx512-xor",
        }
    }

    /// The instructions alone, such as `avx2` for `x4-avx2`: with the lane
    /// count said elsewhere, the path a default call took.
    pub fn instructions(self) -> &'static str {
        self.name().split_once('-').map_or("", |(_, rest)| rest)
    }

    /// The x86-64 CPU features the backend needs, for error messages.
    fn needs(self) -> &'static str {
        match self {
            Backend::Scalar => "nothing",
            Backend::ScalarAsm => "bmi1+bmi2",
            Backend::Sse2x2 => "sse2",
            Backend::Avx2x4 | Backend::Avx2x4Asm => "avx2",
            Backend::Avx512x8 | Backend::Avx512x8Xor => "avx512f",
            Backend::Avx512vlX2
            | Backend::Avx512vlX2Xor
            | Backend::Avx512vlX4
            | Backend::Avx512vlX4Xor => "avx512f+avx512vl",
        }
    }

    /// Whether the CPU running this program has what the backend needs.
    pub fn is_supported(self) -> bool {
        match self {
            Backend::Scalar => true,
            #[cfg(target_arch = "x86_64")]
            Backend::ScalarAsm => x1_asm::is_supported(),
            #[cfg(target_arch = "x86_64")]
            Backend::Sse2x2 => true,
            #[cfg(target_arch = "x86_64")]
            Backend::Avx2x4 | Backend::Avx2x4Asm => x4::is_supported(),
            #[cfg(target_arch = "x86_64")]
            Backend::Avx512x8 | Backend::Avx512x8Xor => x8::is_supported(),
            #[cfg(target_arch = "x86_64")]
            Backend::Avx512vlX2
            | Backend::Avx512vlX2Xor
            | Backend::Avx512vlX4
            | Backend::Avx512vlX4Xor => avx512vl::is_supported(),
            #[cfg(not(target_arch = "x86_64"))]
            _ => false,
        }
    }
}

impl fmt::Display for Backend {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Why a call did not run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Error {
    /// The CPU lacks the instructions the backend needs.
    Unsupported(Backend),
    /// The number of inputs, outputs or states is not the backend's lane count.
    LaneCount {
        /// The backend called.
        backend: Backend,
        /// Which argument had the wrong count ("inputs", "outputs", "states").
        what: &'static str,
        /// How many it had.
        got: usize,
    },
    /// Inputs (or outputs) of one call differ in length.
    UnequalLengths {
        /// Which argument ("inputs" or "outputs").
        what: &'static str,
        /// The first lane's length in bytes.
        first: usize,
        /// The length of a lane that differs from it.
        other: usize,
    },
    /// The rate is not a multiple of 8 in `8..=192`.
    Rate(usize),
    /// An interleaved state is not 25 words per lane.
    Words {
        /// The backend called.
        backend: Backend,
        /// How many words it had.
        got: usize,
    },
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Error::Unsupported(backend) => write!(
                f,
                "{backend}: not supported on this CPU (needs {})",
                backend.needs()
            ),
            Error::LaneCount { backend, what, got } => {
                write!(f, "{backend}: takes {} {what}, got {got}", backend.lanes())
            }
            Error::UnequalLengths { what, first, other } => write!(
                f,
                "all {what} must have the same length, got {first} and {other} bytes"
            ),
            Error::Words { backend, got } => write!(
                f,
                "{backend}: takes {} interleaved words (25 per state), got {got}",
                25 * backend.lanes()
            ),
            Error::Rate(rate) => write!(
                f,
                "rate must be a multiple of 8 bytes from 8 to {}, got {rate}",
                sponge::MAX_RATE
            ),
        }
    }
}

impl std::error::Error for Error {}

/// Applies Keccak-f\[1600\] to `backend.lanes()` states, each holding lane
/// (x, y) at index `x + 5 * y` as FIPS 202 numbers them.
pub fn permute(backend: Backend, states: &mut [[u64; 25]]) -> Result<(), Error> {
    if !backend.is_supported() {
        return Err(Error::Unsupported(backend));
    }
    match backend {
        Backend::Scalar => {
            scalar::permute(lanes_mut::<1, _>(backend, "states", states)?);
            Ok(())
        }
        #[cfg(target_arch = "x86_64")]
        Backend::ScalarAsm => {
            x1_asm::permute(lanes_mut::<1, _>(backend, "states", states)?);
            Ok(())
        }
        #[cfg(target_arch = "x86_64")]
        Backend::Sse2x2 => {
            x2::permute(lanes_mut(backend, "states", states)?);
            Ok(())
        }
        #[cfg(target_arch = "x86_64")]
        Backend::Avx512vlX2 => avx512vl::x2::permute(lanes_mut(backend, "states", states)?),
        #[cfg(target_arch = "x86_64")]
        Backend::Avx512vlX2Xor => avx512vl::x2_xor::permute(lanes_mut(backend, "states", states)?),
        #[cfg(target_arch = "x86_64")]
        Backend::Avx2x4 => x4::permute(lanes_mut(backend, "states", states)?),
        #[cfg(target_arch = "x86_64")]
        Backend::Avx2x4Asm => x4_asm::permute(lanes_mut(backend, "states", states)?),
        #[cfg(target_arch = "x86_64")]
        Backend::Avx512vlX4 => avx512vl::x4::permute(lanes_mut(backend, "states", states)?),
        #[cfg(target_arch = "x86_64")]
        Backend::Avx512vlX4Xor => avx512vl::x4_xor::permute(lanes_mut(backend, "states", states)?),
        #[cfg(target_arch = "x86_64")]
        Backend::Avx512x8 => x8::ternary::permute(lanes_mut(backend, "states", states)?),
        #[cfg(target_arch = "x86_64")]
        Backend::Avx512x8Xor => x8::xor::permute(lanes_mut(backend, "states", states)?),
        #[cfg(not(target_arch = "x86_64"))]
        _ => Err(Error::Unsupported(backend)),
    }
}

/// Applies Keccak-f\[1600\] to `backend.lanes()` states kept interleaved:
/// `words[N * i + l]` is word `i` (FIPS 202's lane `x + 5 * y`) of state `l`,
/// for `N = backend.lanes()`. That is the layout the SIMD backends permute in,
/// so no transposition is made: for a caller that keeps its states this way
/// across calls (a sponge of its own), and to measure the permutation alone.
/// Words aligned for the backend's vector (16, 32 or 64 bytes) are permuted in
/// place; others are copied into an aligned state and back, which on Zen 4
/// took 80-140 more cycles a call than the permutation in place.
pub fn permute_interleaved(backend: Backend, words: &mut [u64]) -> Result<(), Error> {
    if !backend.is_supported() {
        return Err(Error::Unsupported(backend));
    }
    if words.len() != 25 * backend.lanes() {
        return Err(Error::Words {
            backend,
            got: words.len(),
        });
    }
    match backend {
        Backend::Scalar => {
            let state: &mut [u64; 25] = words.try_into().expect("25 words, checked above");
            scalar::permute(core::array::from_mut(state));
            Ok(())
        }
        #[cfg(target_arch = "x86_64")]
        Backend::ScalarAsm => {
            let state: &mut [u64; 25] = words.try_into().expect("25 words, checked above");
            x1_asm::permute(core::array::from_mut(state));
            Ok(())
        }
        #[cfg(target_arch = "x86_64")]
        Backend::Sse2x2 => {
            x2::permute_interleaved(interleaved_mut(words));
            Ok(())
        }
        #[cfg(target_arch = "x86_64")]
        Backend::Avx512vlX2 => avx512vl::x2::permute_interleaved(interleaved_mut(words)),
        #[cfg(target_arch = "x86_64")]
        Backend::Avx512vlX2Xor => avx512vl::x2_xor::permute_interleaved(interleaved_mut(words)),
        #[cfg(target_arch = "x86_64")]
        Backend::Avx2x4 => x4::permute_interleaved(interleaved_mut(words)),
        #[cfg(target_arch = "x86_64")]
        Backend::Avx2x4Asm => x4_asm::permute_interleaved(interleaved_mut(words)),
        #[cfg(target_arch = "x86_64")]
        Backend::Avx512vlX4 => avx512vl::x4::permute_interleaved(interleaved_mut(words)),
        #[cfg(target_arch = "x86_64")]
        Backend::Avx512vlX4Xor => avx512vl::x4_xor::permute_interleaved(interleaved_mut(words)),
        #[cfg(target_arch = "x86_64")]
        Backend::Avx512x8 => x8::ternary::permute_interleaved(interleaved_mut(words)),
        #[cfg(target_arch = "x86_64")]
        Backend::Avx512x8Xor => x8::xor::permute_interleaved(interleaved_mut(words)),
        #[cfg(not(target_arch = "x86_64"))]
        _ => Err(Error::Unsupported(backend)),
    }
}

/// `words` (25 N of them, checked by the caller) as 25 groups of N.
fn interleaved_mut<const N: usize>(words: &mut [u64]) -> &mut [[u64; N]; 25] {
    words
        .as_chunks_mut::<N>()
        .0
        .try_into()
        .expect("25 N words, checked by the caller")
}

/// SHAKE with the given `rate` (such as [`SHAKE128_RATE`]) over
/// `backend.lanes()` inputs of equal length, filling as many outputs of equal
/// length: `outputs[i]` receives the first bytes of SHAKE(`inputs[i]`).
pub fn shake(
    backend: Backend,
    rate: usize,
    inputs: &[&[u8]],
    outputs: &mut [&mut [u8]],
) -> Result<(), Error> {
    if !backend.is_supported() {
        return Err(Error::Unsupported(backend));
    }
    if !rate.is_multiple_of(8) || !(8..=sponge::MAX_RATE).contains(&rate) {
        return Err(Error::Rate(rate));
    }
    equal_lengths("inputs", inputs.iter().map(|input| input.len()))?;
    equal_lengths("outputs", outputs.iter().map(|output| output.len()))?;
    match backend {
        Backend::Scalar => {
            let [input] = lanes::<1, _>(backend, "inputs", inputs)?;
            let [output] = lanes_mut::<1, _>(backend, "outputs", outputs)?;
            scalar::shake(rate, input, output);
            Ok(())
        }
        #[cfg(target_arch = "x86_64")]
        Backend::ScalarAsm => {
            let [input] = lanes::<1, _>(backend, "inputs", inputs)?;
            let [output] = lanes_mut::<1, _>(backend, "outputs", outputs)?;
            x1_asm::shake(rate, input, output);
            Ok(())
        }
        #[cfg(target_arch = "x86_64")]
        Backend::Sse2x2 => {
            let inputs = lanes(backend, "inputs", inputs)?;
            x2::shake(rate, inputs, lanes_mut(backend, "outputs", outputs)?);
            Ok(())
        }
        #[cfg(target_arch = "x86_64")]
        Backend::Avx512vlX2 => {
            let inputs = lanes(backend, "inputs", inputs)?;
            avx512vl::x2::shake(rate, inputs, lanes_mut(backend, "outputs", outputs)?)
        }
        #[cfg(target_arch = "x86_64")]
        Backend::Avx512vlX2Xor => {
            let inputs = lanes(backend, "inputs", inputs)?;
            avx512vl::x2_xor::shake(rate, inputs, lanes_mut(backend, "outputs", outputs)?)
        }
        #[cfg(target_arch = "x86_64")]
        Backend::Avx2x4 => {
            let inputs = lanes(backend, "inputs", inputs)?;
            x4::shake(rate, inputs, lanes_mut(backend, "outputs", outputs)?)
        }
        #[cfg(target_arch = "x86_64")]
        Backend::Avx2x4Asm => {
            let inputs = lanes(backend, "inputs", inputs)?;
            x4_asm::shake(rate, inputs, lanes_mut(backend, "outputs", outputs)?)
        }
        #[cfg(target_arch = "x86_64")]
        Backend::Avx512vlX4 => {
            let inputs = lanes(backend, "inputs", inputs)?;
            avx512vl::x4::shake(rate, inputs, lanes_mut(backend, "outputs", outputs)?)
        }
        #[cfg(target_arch = "x86_64")]
        Backend::Avx512vlX4Xor => {
            let inputs = lanes(backend, "inputs", inputs)?;
            avx512vl::x4_xor::shake(rate, inputs, lanes_mut(backend, "outputs", outputs)?)
        }
        #[cfg(target_arch = "x86_64")]
        Backend::Avx512x8 => {
            let inputs = lanes(backend, "inputs", inputs)?;
            x8::ternary::shake(rate, inputs, lanes_mut(backend, "outputs", outputs)?)
        }
        #[cfg(target_arch = "x86_64")]
        Backend::Avx512x8Xor => {
            let inputs = lanes(backend, "inputs", inputs)?;
            x8::xor::shake(rate, inputs, lanes_mut(backend, "outputs", outputs)?)
        }
        #[cfg(not(target_arch = "x86_64"))]
        _ => Err(Error::Unsupported(backend)),
    }
}

/// SHAKE128 of one input, on the scalar backend.
pub fn shake128_x1(input: &[u8], output: &mut [u8]) {
    scalar::shake(SHAKE128_RATE, input, output);
}

/// SHAKE256 of one input, on the scalar backend.
pub fn shake256_x1(input: &[u8], output: &mut [u8]) {
    scalar::shake(SHAKE256_RATE, input, output);
}

fn lanes<'a, const N: usize, T>(
    backend: Backend,
    what: &'static str,
    items: &'a [T],
) -> Result<&'a [T; N], Error> {
    items.try_into().map_err(|_| Error::LaneCount {
        backend,
        what,
        got: items.len(),
    })
}

fn lanes_mut<'a, const N: usize, T>(
    backend: Backend,
    what: &'static str,
    items: &'a mut [T],
) -> Result<&'a mut [T; N], Error> {
    let got = items.len();
    items
        .try_into()
        .map_err(|_| Error::LaneCount { backend, what, got })
}

fn equal_lengths(
    what: &'static str,
    mut lengths: impl Iterator<Item = usize>,
) -> Result<(), Error> {
    let Some(first) = lengths.next() else {
        return Ok(());
    };
    match lengths.find(|&other| other != first) {
        Some(other) => Err(Error::UnequalLengths { what, first, other }),
        None => Ok(()),
    }
}
