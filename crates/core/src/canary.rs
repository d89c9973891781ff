//! The canary: a fixed reference workload timed in every worker process between its
//! samples, so that a run can tell a host that moved from code that changed.
//!
//! A shared host has modes: for long stretches every case runs 25–45 % slower while the
//! core clock, read by a dependent-add chain, does not move (docs/measurement.md). A
//! latency chain issues one instruction per cycle and barely notices a neighbour on the
//! core; code under test is throughput-bound and does. So the canary is throughput-bound
//! too, in the parts crypto code leans on: independent integer multiply chains, SIMD
//! add-rotate-xor rounds over a block of words, AES rounds over independent blocks where
//! the CPU has them, and independent read-modify-writes over a buffer larger than a
//! core's L2, so that it also notices a neighbour thrashing the shared cache.
//!
//! It costs about ten to twenty microseconds a reading and a handful of readings a
//! process. Its figures only flag; nothing is corrected by them, since a neighbour slows
//! each code differently.

use std::hint::black_box;

/// The canary's definition: a run's canary is compared with another run's only under
/// the same one.
pub const VERSION: &str = "canary/1";

/// Words of the memory part's buffer: 256 KiB, beyond every host's L1 and within every
/// core's L2, walked whole each reading. (A buffer that must come from L3 or DRAM times
/// the shared cache's occupancy by other tenants and the measured code's evictions, which
/// vary far more than anything the canary is meant to notice.)
const MEMORY_WORDS: usize = 256 << 10 >> 3;
/// Cache lines the memory part touches per reading: all of them, in an order no
/// prefetcher follows.
const LINES_PER_READING: usize = MEMORY_WORDS / WORDS_PER_LINE;
const WORDS_PER_LINE: usize = 8;

/// The canary's work and its state, kept from one reading to the next so that no
/// reading pays for setting it up.
pub struct Canary {
    integer: [u64; 8],
    simd: [[u32; 64]; 2],
    aes: Option<[[u8; 16]; 8]>,
    memory: Vec<u64>,
    /// Runs of the work per reading: 1, or [`TEST_REPEAT_ENV`]'s number, which moves the
    /// canary as a host would, for tests and the validation script.
    repeat: u32,
}

/// `CRYPTOBENCH_TEST_CANARY_REPEAT=N`: the canary does N times its work, as if the host
/// had moved; what tests and `scripts/validate-host.sh` plant.
pub const TEST_REPEAT_ENV: &str = "CRYPTOBENCH_TEST_CANARY_REPEAT";

impl Default for Canary {
    fn default() -> Self {
        Self::new()
    }
}

impl Canary {
    /// A canary with its buffer's pages touched and its code warmed up: the first
    /// reading already runs at its steady speed.
    pub fn new() -> Self {
        let mut canary = Canary {
            integer: std::array::from_fn(|i| 0x9e37_79b9_7f4a_7c15 ^ i as u64),
            simd: [
                std::array::from_fn(|i| i as u32 * 0x0101_0101),
                std::array::from_fn(|i| !(i as u32)),
            ],
            aes: aes_available().then(|| std::array::from_fn(|i| [i as u8; 16])),
            memory: (0..MEMORY_WORDS as u64).collect(),
            repeat: std::env::var(TEST_REPEAT_ENV)
                .ok()
                .and_then(|n| n.parse().ok())
                .filter(|&n| n >= 1)
                .unwrap_or(1),
        };
        // Its pages mapped, its lines cached, its code and predictors warm.
        for _ in 0..4 {
            canary.run();
        }
        canary
    }

    /// What this canary runs on this CPU: a run's readings are comparable with another's
    /// only where both say the same.
    pub fn describe() -> String {
        format!(
            "{VERSION}: integer multiply chains, SIMD add-rotate-xor, {}, 256 KiB read-modify-write",
            if aes_available() {
                "AES rounds"
            } else {
                "no AES (not on this CPU)"
            }
        )
    }

    /// One reading's worth of work.
    #[inline(never)]
    pub fn run(&mut self) {
        for _ in 0..self.repeat {
            self.integer_part();
            self.simd_part();
            self.aes_part();
            self.memory_part();
        }
    }

    fn integer_part(&mut self) {
        let mut lanes = self.integer;
        for _ in 0..512 {
            for x in lanes.iter_mut() {
                *x = x.wrapping_mul(0xff51_afd7_ed55_8ccd) ^ (*x >> 29);
            }
        }
        self.integer = black_box(lanes);
    }

    fn simd_part(&mut self) {
        let [mut a, mut b] = self.simd;
        for _ in 0..128 {
            for (x, y) in a.iter_mut().zip(b.iter_mut()) {
                *x = x.wrapping_add(*y);
                *y = (*y ^ *x).rotate_left(7);
            }
        }
        self.simd = black_box([a, b]);
    }

    fn aes_part(&mut self) {
        #[cfg(target_arch = "x86_64")]
        if let Some(blocks) = self.aes.as_mut() {
            // SAFETY: `aes` is set only where the CPU has AES-NI (`aes_available`).
            unsafe { aes_rounds(blocks) };
            black_box(&blocks);
        }
    }

    fn memory_part(&mut self) {
        let lines = MEMORY_WORDS / WORDS_PER_LINE;
        // An odd step through a power-of-two number of lines visits every line once; a
        // large one defeats the prefetchers, and the loads do not depend on each other,
        // so they overlap as a streaming cipher's would.
        let mut line = 0;
        for _ in 0..LINES_PER_READING {
            line = (line + 0x9e37) & (lines - 1);
            let w = &mut self.memory[line * WORDS_PER_LINE];
            *w = w.wrapping_add(line as u64) ^ 1;
        }
        black_box(&self.memory);
    }
}

fn aes_available() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("aes") && std::arch::is_x86_feature_detected!("sse2")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "aes,sse2")]
unsafe fn aes_rounds(blocks: &mut [[u8; 16]; 8]) {
    use std::arch::x86_64::*;
    // SAFETY (of the loads and stores): unaligned 16-byte accesses within each block.
    let key = _mm_set1_epi32(0x6363_6363);
    let mut state: [__m128i; 8] =
        std::array::from_fn(|i| unsafe { _mm_loadu_si128(blocks[i].as_ptr().cast()) });
    for _ in 0..1024 {
        for s in state.iter_mut() {
            *s = _mm_aesenc_si128(*s, key);
        }
    }
    for (block, s) in blocks.iter_mut().zip(state) {
        unsafe { _mm_storeu_si128(block.as_mut_ptr().cast(), s) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_memory_part_visits_every_line_once_per_pass() {
        let lines = MEMORY_WORDS / WORDS_PER_LINE;
        let mut seen = vec![false; lines];
        let mut line = 0;
        for _ in 0..lines {
            line = (line + 0x9e37) & (lines - 1);
            assert!(!seen[line], "line {line} twice");
            seen[line] = true;
        }
    }

    #[test]
    fn readings_change_the_state_and_say_what_they_run() {
        let mut c = Canary::new();
        let before = (c.integer, c.simd, c.aes, c.memory[0..64].to_vec());
        c.run();
        assert_ne!(before.0, c.integer);
        assert_ne!(before.1, c.simd);
        assert_ne!(before.3, c.memory[0..64]);
        if let Some(blocks) = before.2 {
            assert_ne!(Some(blocks), c.aes);
        }
        assert!(Canary::describe().starts_with(VERSION));
    }
}
