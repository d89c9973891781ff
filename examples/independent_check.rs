//! An independent measurement of the `chacha20-rng` experiment's implementations, with
//! none of cryptobench's machinery: one process, pinned with `taskset`, `rdtsc` around
//! single calls after a warm-up, median of 20 000 calls. Used to check that cryptobench's
//! figures agree with the obvious way of measuring (see docs/validation.md).
//!
//!     taskset -c 1 cargo run --release --example independent_check
//!
//! Compare with `cryptobench run --counter tsc` (reference cycles, like this harness). On
//! a CPU where glibc picks its AVX-512 memcpy, the RNGs here skip that memcpy (their copies
//! inline) while cryptobench's calls it; run cryptobench with
//! `GLIBC_TUNABLES=glibc.cpu.hwcaps=-AVX512F,-AVX512VL` to compare like with like
//! (docs/validation.md).

use std::hint::black_box;

use chacha20::cipher::{KeyIvInit, StreamCipher};
use rand_core::{Rng, SeedableRng};

#[cfg(target_arch = "x86_64")]
fn median_cycles(mut f: impl FnMut()) -> f64 {
    use std::arch::x86_64::{__rdtscp, _mm_lfence, _rdtsc};
    for _ in 0..2000 {
        f();
    }
    let mut t = Vec::with_capacity(20_000);
    let mut aux = 0;
    for _ in 0..20_000 {
        // SAFETY: rdtsc, rdtscp and lfence exist on every x86-64 CPU this runs on.
        let (a, b) = unsafe {
            _mm_lfence();
            let a = _rdtsc();
            _mm_lfence();
            f();
            let b = __rdtscp(&mut aux);
            _mm_lfence();
            (a, b)
        };
        t.push(b - a);
    }
    t.sort_unstable();
    t[t.len() / 2] as f64
}

#[cfg(target_arch = "x86_64")]
fn main() {
    let seed: [u8; 32] = std::array::from_fn(|i| i as u8);
    println!("implementation              len    median TSC cycles   cycles/byte");
    for len in [1024usize, 2048, 4096, 8192, 16384] {
        let mut buf = vec![0u8; len];
        let mut cipher = chacha20::ChaCha20::new(&seed.into(), &[0u8; 12].into());
        let c = median_cycles(|| cipher.apply_keystream(black_box(&mut buf)));
        let mut rng = chacha20::ChaCha20Rng::from_seed(seed);
        let r1 = median_cycles(|| rng.fill_bytes(black_box(&mut buf)));
        let mut rng = rand_chacha::ChaCha20Rng::from_seed(seed);
        let r2 = median_cycles(|| rng.fill_bytes(black_box(&mut buf)));
        for (name, cycles) in [
            ("rustcrypto/chacha20", c),
            ("rustcrypto/chacha20-rng", r1),
            ("rand_chacha/chacha20-rng", r2),
        ] {
            println!(
                "{name:<26} {len:>6} {cycles:>18.0} {:>13.4}",
                cycles / len as f64
            );
        }
    }
}

#[cfg(not(target_arch = "x86_64"))]
fn main() {
    eprintln!("this check reads the x86-64 TSC");
}
