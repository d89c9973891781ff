//! Deliberately broken or slowed implementations, for testing the gate, the comparison
//! statistics and the worker's isolation. Registered only when the environment variable
//! `CRYPTOBENCH_TEST_IMPLEMENTATIONS=1` is set, so users never see them.

use std::hint::black_box;

use chacha20::cipher::{KeyIvInit, StreamCipher as _};

use cryptobench_core::catalog::kinds::stream::{CHACHA20, Stream, StreamAlgorithm, StreamCipher};
use cryptobench_core::catalog::registry::Registry;

pub const ENV: &str = "CRYPTOBENCH_TEST_IMPLEMENTATIONS";

pub fn register(r: &mut Registry) {
    if std::env::var_os(ENV).is_none_or(|v| v != "1") {
        return;
    }
    // The very same code as `rustcrypto/chacha20` under another name: an A/A comparison.
    r.add(Stream::<super::rustcrypto::ChaCha20>::new("test-same"));
    r.add(Stream::<Wrong>::new("test-wrong"));
    r.add(Stream::<WrongAtOneLength>::new("test-bad-at-length"));
    r.add(Stream::<Slower>::new("test-slower"));
    r.add(Stream::<Planted<true>>::new("test-planted"));
    // The same code with the plant never applied: the plant's own size, within a run.
    r.add(Stream::<Planted<false>>::new("test-unplanted"));
    r.add(Stream::<CrashOnThirdCall>::new("test-crash"));
    r.add(Stream::<HangOnThirdCall>::new("test-hang"));
    r.add(Stream::<CrashAlways>::new("test-gate-crash"));
    r.add(Stream::<HangAlways>::new("test-gate-hang"));
    r.add(Stream::<CrashInThirdProcess>::new("test-crash-later"));
}

/// Each is RustCrypto's ChaCha20, broken or slowed or not.
pub fn crates(_algorithm: &str) -> &'static [&'static str] {
    &["chacha20"]
}

/// A directory shared by the worker processes of one test run, for
/// [`CrashInThirdProcess`] to count them in.
pub const STATE_DIR_ENV: &str = "CRYPTOBENCH_TEST_STATE_DIR";

/// A length of none of the gate's own checks (its longest message is 16385 bytes): only
/// the gate's call at a run's measured point and the calls timed there count the
/// processes of [`CrashInThirdProcess`].
pub const LATER_CRASH_LEN: usize = 20_000;

/// The gate gives an instance at most one call longer than this (a fresh instance per
/// message where it calls once), so the planted faults below, on an instance's third
/// longer call, fire only in timed calls.
const GATE_MAX_PIECE: usize = 4096;

fn chacha(key: &[u8], nonce: &[u8]) -> chacha20::ChaCha20 {
    chacha20::ChaCha20::new_from_slices(key, nonce)
        .expect("the stream adapter passes the declared key and nonce lengths")
}

/// Flips one bit of every output: must be refused by the gate.
pub struct Wrong(chacha20::ChaCha20);

impl StreamCipher for Wrong {
    const ALGORITHM: &'static StreamAlgorithm = &CHACHA20;
    fn new(key: &[u8], nonce: &[u8]) -> Self {
        Wrong(chacha(key, nonce))
    }
    fn apply_keystream(&mut self, buf: &mut [u8]) {
        self.0.apply_keystream(buf);
        if let Some(b) = buf.last_mut() {
            *b ^= 1;
        }
    }
}

/// A length that neither the gate's boundary lengths nor its pieces ask for, which a run
/// may measure: only there is [`WrongAtOneLength`] wrong.
pub const WRONG_AT_LEN: usize = 4000;

/// Flips one bit of a message of [`WRONG_AT_LEN`] bytes alone, as a fast path for one
/// size can: passes every fixed check of the gate, so must be caught where it is measured.
pub struct WrongAtOneLength(chacha20::ChaCha20);

impl StreamCipher for WrongAtOneLength {
    const ALGORITHM: &'static StreamAlgorithm = &CHACHA20;
    fn new(key: &[u8], nonce: &[u8]) -> Self {
        WrongAtOneLength(chacha(key, nonce))
    }
    fn apply_keystream(&mut self, buf: &mut [u8]) {
        self.0.apply_keystream(buf);
        if buf.len() == WRONG_AT_LEN {
            buf[WRONG_AT_LEN - 1] ^= 1;
        }
    }
}

/// Correct output plus the same cipher work again on a scratch buffer: a planted
/// regression of about +100 % for tests of the comparison.
pub struct Slower(chacha20::ChaCha20, chacha20::ChaCha20, Vec<u8>);

impl StreamCipher for Slower {
    const ALGORITHM: &'static StreamAlgorithm = &CHACHA20;
    fn new(key: &[u8], nonce: &[u8]) -> Self {
        Slower(chacha(key, nonce), chacha(key, nonce), Vec::new())
    }
    fn apply_keystream(&mut self, buf: &mut [u8]) {
        self.0.apply_keystream(buf);
        // Sized on first use so that the timed calls never allocate.
        self.2.resize(buf.len(), 0);
        self.1.apply_keystream(black_box(&mut self.2));
    }
}

/// `CRYPTOBENCH_TEST_PLANT_PCT=P`: [`Planted`] takes P % more time per call than the
/// cipher it wraps (0 when unset).
pub const PLANT_ENV: &str = "CRYPTOBENCH_TEST_PLANT_PCT";
/// `CRYPTOBENCH_TEST_PLANT_ADDS=N`: [`Planted`] runs N more links of its add chain per
/// call, uncalibrated: a fixed number of instructions, for the instruction counter.
pub const PLANT_ADDS_ENV: &str = "CRYPTOBENCH_TEST_PLANT_ADDS";

/// Correct output, then a chain of dependent adds calibrated to take a given share of
/// the cipher's time (`CRYPTOBENCH_TEST_PLANT_PCT`): a planted slowdown of a known size,
/// for the validation script. Calibrated per message length on first use, in the worker;
/// messages under 64 bytes are not slowed.
/// `PLANTED = false` is the same code, never slowed, whatever the environment says.
pub struct Planted<const PLANTED: bool> {
    cipher: chacha20::ChaCha20,
    share: f64,
    adds: usize,
    calibrated_for: usize,
}

impl<const PLANTED: bool> Planted<PLANTED> {
    fn calibrate(&mut self, len: usize) {
        let mut scratch = vec![0u8; len];
        let mut other = chacha(&[7; 32], &[7; 12]);
        // Enough calls per timing that the clock's own cost and resolution vanish.
        let calls = (8192 / len.max(1)).max(4);
        let median_ns = |f: &mut dyn FnMut()| {
            let mut t: Vec<u128> = (0..15)
                .map(|_| {
                    let t0 = std::time::Instant::now();
                    for _ in 0..calls {
                        f();
                    }
                    t0.elapsed().as_nanos()
                })
                .collect();
            t.sort_unstable();
            t[t.len() / 2] as f64 / calls as f64
        };
        let cipher_ns = median_ns(&mut || other.apply_keystream(black_box(&mut scratch)));
        const PROBE: usize = 20_000;
        let chain_ns = median_ns(&mut || {
            black_box(add_chain(PROBE));
        });
        let target = self.share * cipher_ns;
        let mut adds = target / chain_ns * PROBE as f64;
        // The chain overlaps the cipher's last instructions out of order: measure the two
        // together and scale the chain until they take the share asked.
        for _ in 0..3 {
            let n = adds.round() as usize;
            let both_ns = median_ns(&mut || {
                other.apply_keystream(black_box(&mut scratch));
                black_box(add_chain(n));
            });
            let added = (both_ns - cipher_ns).max(target / 8.0);
            adds = (adds * target / added).min(16.0 * target / chain_ns * PROBE as f64);
        }
        self.adds = adds.round() as usize;
        self.calibrated_for = len;
    }
}

#[inline(never)]
fn add_chain(n: usize) -> u64 {
    let mut x = 1u64;
    for _ in 0..n {
        x = black_box(x).wrapping_add(1);
    }
    x
}

impl<const PLANTED: bool> StreamCipher for Planted<PLANTED> {
    const ALGORITHM: &'static StreamAlgorithm = &CHACHA20;
    fn new(key: &[u8], nonce: &[u8]) -> Self {
        let pct: f64 = std::env::var(PLANT_ENV)
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(0.0);
        let adds = std::env::var(PLANT_ADDS_ENV)
            .ok()
            .and_then(|v| v.parse().ok())
            .filter(|_| PLANTED)
            .unwrap_or(0);
        Planted {
            cipher: chacha(key, nonce),
            share: if PLANTED { pct / 100.0 } else { 0.0 },
            adds,
            calibrated_for: usize::MAX,
        }
    }
    fn apply_keystream(&mut self, buf: &mut [u8]) {
        // Not below 64 bytes, where the correctness gate cuts its many pieces.
        if self.share > 0.0 && buf.len() >= 64 && self.calibrated_for != buf.len() {
            self.calibrate(buf.len());
        }
        self.cipher.apply_keystream(buf);
        if buf.len() >= 64 {
            black_box(add_chain(self.adds));
        }
    }
}

/// Passes the gate (which runs in a fresh instance), then dies by SIGSEGV on its third
/// timed call: the worker must report it and the run must go on.
pub struct CrashOnThirdCall(chacha20::ChaCha20, u32);

impl StreamCipher for CrashOnThirdCall {
    const ALGORITHM: &'static StreamAlgorithm = &CHACHA20;
    fn new(key: &[u8], nonce: &[u8]) -> Self {
        CrashOnThirdCall(chacha(key, nonce), 0)
    }
    fn apply_keystream(&mut self, buf: &mut [u8]) {
        self.0.apply_keystream(buf);
        if buf.len() > GATE_MAX_PIECE {
            self.1 += 1;
            if self.1 == 3 {
                // SAFETY: none; this is the point. Die as a real wild pointer makes a
                // process die: Rust's own SIGSEGV handler (for stack overflows) returns on
                // a raised signal, which a faulting instruction would just repeat, so the
                // default action is put back first.
                unsafe {
                    libc::signal(libc::SIGSEGV, libc::SIG_DFL);
                    libc::raise(libc::SIGSEGV);
                }
            }
        }
    }
}

/// Passes the gate, then loops forever on its third timed call.
pub struct HangOnThirdCall(chacha20::ChaCha20, u32);

impl StreamCipher for HangOnThirdCall {
    const ALGORITHM: &'static StreamAlgorithm = &CHACHA20;
    fn new(key: &[u8], nonce: &[u8]) -> Self {
        HangOnThirdCall(chacha(key, nonce), 0)
    }
    fn apply_keystream(&mut self, buf: &mut [u8]) {
        self.0.apply_keystream(buf);
        if buf.len() > GATE_MAX_PIECE {
            self.1 += 1;
            if self.1 >= 3 {
                loop {
                    std::thread::sleep(std::time::Duration::from_millis(10));
                }
            }
        }
    }
}

/// Dies by SIGSEGV on its first call, which the correctness gate makes: the gate's own
/// worker crashes.
pub struct CrashAlways(chacha20::ChaCha20);

impl StreamCipher for CrashAlways {
    const ALGORITHM: &'static StreamAlgorithm = &CHACHA20;
    fn new(key: &[u8], nonce: &[u8]) -> Self {
        CrashAlways(chacha(key, nonce))
    }
    fn apply_keystream(&mut self, buf: &mut [u8]) {
        self.0.apply_keystream(buf);
        // SAFETY: none; see `CrashOnThirdCall`.
        unsafe {
            libc::signal(libc::SIGSEGV, libc::SIG_DFL);
            libc::raise(libc::SIGSEGV);
        }
    }
}

/// Loops forever on its first call, inside the correctness gate, ignoring SIGINT as
/// measured code may: a first Ctrl-C does not stop it, a second must end the run.
pub struct HangAlways(chacha20::ChaCha20);

impl StreamCipher for HangAlways {
    const ALGORITHM: &'static StreamAlgorithm = &CHACHA20;
    fn new(key: &[u8], nonce: &[u8]) -> Self {
        HangAlways(chacha(key, nonce))
    }
    fn apply_keystream(&mut self, buf: &mut [u8]) {
        self.0.apply_keystream(buf);
        // SAFETY: signal(2) with SIG_IGN installs no handler.
        unsafe { libc::signal(libc::SIGINT, libc::SIG_IGN) };
        loop {
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
    }
}

/// Correct, checked by the gate's worker at [`LATER_CRASH_LEN`] bytes (a measured length)
/// and measured normally by the first two worker processes that time it there; the
/// third to time it (the fourth process to call it at that length) dies by SIGSEGV on its first such call,
/// after earlier rounds stored samples. The processes count themselves as files in the
/// directory `$CRYPTOBENCH_TEST_STATE_DIR` (without it, it never crashes).
pub struct CrashInThirdProcess(chacha20::ChaCha20);

impl StreamCipher for CrashInThirdProcess {
    const ALGORITHM: &'static StreamAlgorithm = &CHACHA20;
    fn new(key: &[u8], nonce: &[u8]) -> Self {
        CrashInThirdProcess(chacha(key, nonce))
    }
    fn apply_keystream(&mut self, buf: &mut [u8]) {
        self.0.apply_keystream(buf);
        static NTH_PROCESS: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
        if buf.len() != LATER_CRASH_LEN {
            return;
        }
        let nth = *NTH_PROCESS.get_or_init(|| {
            let Some(dir) = std::env::var_os(STATE_DIR_ENV) else {
                return 0;
            };
            let dir = std::path::Path::new(&dir);
            let _ = std::fs::write(dir.join(std::process::id().to_string()), b"");
            std::fs::read_dir(dir).map_or(0, |d| d.count())
        });
        if nth >= 4 {
            // SAFETY: none; see `CrashOnThirdCall`.
            unsafe {
                libc::signal(libc::SIGSEGV, libc::SIG_DFL);
                libc::raise(libc::SIGSEGV);
            }
        }
    }
}
