use proptest::prelude::*;
use shake::{ExtendableOutput, Shake128, Shake256, Update, XofReader};

use super::*;

/// Keccak-f\[1600\] as FIPS 202 section 3 states it, deriving the rotation
/// offsets, lane order and round constants instead of copying tables.
fn reference_f1600(a: &mut [u64; 25]) {
    let mut rho = [0u32; 25];
    let (mut x, mut y) = (1, 0);
    for t in 0..24 {
        rho[x + 5 * y] = ((t + 1) * (t + 2) / 2) % 64;
        (x, y) = (y, (2 * x + 3 * y) % 5);
    }
    let mut lfsr = 1u8;
    let mut rc_bit = || {
        let bit = lfsr & 1;
        lfsr = (lfsr << 1) ^ if lfsr & 0x80 != 0 { 0x71 } else { 0 };
        u64::from(bit)
    };
    for _ in 0..24 {
        let c: [u64; 5] = core::array::from_fn(|x| (0..5).fold(0, |c, y| c ^ a[x + 5 * y]));
        for x in 0..5 {
            for y in 0..5 {
                a[x + 5 * y] ^= c[(x + 4) % 5] ^ c[(x + 1) % 5].rotate_left(1);
            }
        }
        let mut b = [0u64; 25];
        for x in 0..5 {
            for y in 0..5 {
                b[y + 5 * ((2 * x + 3 * y) % 5)] = a[x + 5 * y].rotate_left(rho[x + 5 * y]);
            }
        }
        for x in 0..5 {
            for y in 0..5 {
                a[x + 5 * y] = b[x + 5 * y] ^ (!b[(x + 1) % 5 + 5 * y] & b[(x + 2) % 5 + 5 * y]);
            }
        }
        for j in 0..7 {
            a[0] ^= rc_bit() << ((1 << j) - 1);
        }
    }
}

/// A byte-at-a-time SHAKE sponge on `reference_f1600`, for any rate.
fn reference_shake(rate: usize, input: &[u8], output: &mut [u8]) {
    let mut state = [0u64; 25];
    let xor_byte = |state: &mut [u64; 25], i: usize, byte: u8| {
        state[i / 8] ^= u64::from(byte) << (8 * (i % 8));
    };
    let mut chunks = input.chunks_exact(rate);
    for block in &mut chunks {
        for (i, &byte) in block.iter().enumerate() {
            xor_byte(&mut state, i, byte);
        }
        reference_f1600(&mut state);
    }
    let tail = chunks.remainder();
    for (i, &byte) in tail.iter().enumerate() {
        xor_byte(&mut state, i, byte);
    }
    xor_byte(&mut state, tail.len(), 0x1F);
    xor_byte(&mut state, rate - 1, 0x80);
    for block in output.chunks_mut(rate) {
        reference_f1600(&mut state);
        for (i, byte) in block.iter_mut().enumerate() {
            *byte = (state[i / 8] >> (8 * (i % 8))) as u8;
        }
    }
}

/// SHAKE from RustCrypto's `shake` crate.
fn rustcrypto_shake(rate: usize, input: &[u8], output: &mut [u8]) {
    match rate {
        SHAKE128_RATE => Shake128::default().chain(input).finalize_xof().read(output),
        SHAKE256_RATE => Shake256::default().chain(input).finalize_xof().read(output),
        _ => panic!("the shake crate has no rate {rate}"),
    }
}

/// Deterministic bytes that differ between lanes and lengths (splitmix64).
fn bytes(seed: u64, len: usize) -> Vec<u8> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ len as u64;
    (0..len)
        .map(|_| {
            x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = x;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            (z ^ (z >> 31)) as u8
        })
        .collect()
}

fn hex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).expect("test vectors are hex"))
        .collect()
}

/// Whether to test `backend` here; prints why not, so that a skipped backend
/// shows in `cargo test -- --nocapture` instead of passing silently.
fn runs_here(backend: Backend) -> bool {
    let supported = backend.is_supported();
    if !supported {
        println!("note: skipping {backend}: {}", Error::Unsupported(backend));
    }
    supported
}

/// Runs `backend` on `lanes()` different inputs of `in_len` bytes and
/// returns the outputs of `out_len` bytes.
fn run_backend(backend: Backend, rate: usize, inputs: &[Vec<u8>], out_len: usize) -> Vec<Vec<u8>> {
    let inputs: Vec<&[u8]> = inputs.iter().map(Vec::as_slice).collect();
    let mut outputs = vec![vec![0u8; out_len]; inputs.len()];
    let mut refs: Vec<&mut [u8]> = outputs.iter_mut().map(Vec::as_mut_slice).collect();
    shake(backend, rate, &inputs, &mut refs).expect("valid call on a supported backend");
    outputs
}

fn lane_inputs(lanes: usize, len: usize) -> Vec<Vec<u8>> {
    (0..lanes).map(|lane| bytes(lane as u64 + 1, len)).collect()
}

/// FIPS 202 example values (NIST's SHAKE example files, 4096-bit outputs):
/// the first and last 32 bytes.
#[test]
fn known_answers() {
    let vectors = [
        (
            SHAKE128_RATE,
            0,
            "7F9C2BA4E88F827D616045507605853ED73B8093F6EFBC88EB1A6EACFA66EF26",
            "43E41B45A653F2A5C4492C1ADD544512DDA2529833462B71A41A45BE97290B6F",
        ),
        (
            SHAKE128_RATE,
            200,
            "131AB8D2B594946B9C81333F9BB6E0CE75C3B93104FA3469D3917457385DA037",
            "44C9FB359FD56AC0A9A75A743CFF6862F17D7259AB075216C0699511643B6439",
        ),
        (
            SHAKE256_RATE,
            0,
            "46B9DD2B0BA88D13233B3FEB743EEB243FCD52EA62B81B82B50C27646ED5762F",
            "AB0BAE316339894304E35877B0C28A9B1FD166C796B9CC258A064A8F57E27F2A",
        ),
        (
            SHAKE256_RATE,
            200,
            "CD8A920ED141AA0407A22D59288652E9D9F1A7EE0C1E7C1CA699424DA84A904D",
            "6A1A9D7846436E4DCA5728B6F760EEF0CA92BF0BE5615E96959D767197A0BEEB",
        ),
    ];
    for (rate, len, head, tail) in vectors {
        let message = vec![0xA3; len];
        let mut expected = [0u8; 512];
        expected[..32].copy_from_slice(&hex(head));
        expected[480..].copy_from_slice(&hex(tail));
        let check = |what: &str, out: &[u8]| {
            assert_eq!(
                (&out[..32], &out[480..]),
                (&expected[..32], &expected[480..]),
                "{what}, rate {rate}, {len}-byte message"
            );
        };

        let mut out = [0u8; 512];
        rustcrypto_shake(rate, &message, &mut out);
        check("shake crate", &out);
        reference_shake(rate, &message, &mut out);
        check("reference", &out);
        match rate {
            SHAKE128_RATE => shake128_x1(&message, &mut out),
            _ => shake256_x1(&message, &mut out),
        }
        check("x1 convenience", &out);
        for backend in Backend::ALL.into_iter().filter(|&b| runs_here(b)) {
            let inputs = vec![message.clone(); backend.lanes()];
            for out in run_backend(backend, rate, &inputs, 512) {
                check(backend.name(), &out);
            }
        }
    }
}

#[test]
fn permutation_matches_reference() {
    for backend in Backend::ALL.into_iter().filter(|&b| runs_here(b)) {
        for seed in 0..20u64 {
            let mut states: Vec<[u64; 25]> = (0..backend.lanes())
                .map(|lane| {
                    core::array::from_fn(|i| {
                        let b = bytes(seed * 8 + lane as u64, 8 * 25);
                        u64::from_le_bytes(b[8 * i..8 * i + 8].try_into().expect("8 bytes"))
                    })
                })
                .collect();
            let mut expected = states.clone();
            expected.iter_mut().for_each(reference_f1600);
            permute(backend, &mut states).expect("supported backend");
            assert_eq!(states, expected, "{backend}, seed {seed}");
        }
    }
}

/// The interleaved entry permutes word `i` of state `l` at `N * i + l`, as
/// the one-state reference does, whatever the words' alignment (aligned for
/// the vector they are permuted in place, otherwise through a copy), and
/// refuses a slice of the wrong length.
#[test]
fn interleaved_permutation_matches_reference() {
    /// Room for 8 states and a start at any word of a 64-byte line.
    #[repr(C, align(64))]
    struct Line([u64; 25 * 8 + 8]);
    let mut room = Box::new(Line([0; 25 * 8 + 8]));
    for backend in Backend::ALL.into_iter().filter(|&b| runs_here(b)) {
        let n = backend.lanes();
        for seed in 0..8u64 {
            let states: Vec<[u64; 25]> = (0..n)
                .map(|lane| core::array::from_fn(|i| (seed << 32) ^ (lane as u64) << 16 ^ i as u64))
                .collect();
            // Seeds 0-7 start at each of the 8 words of a line: aligned for 128-bit
            // vectors at even ones, 256-bit at 0 and 4, 512-bit at 0 only.
            let start = seed as usize;
            let words = &mut room.0[start..start + 25 * n];
            for (k, word) in words.iter_mut().enumerate() {
                *word = states[k % n][k / n];
            }
            permute_interleaved(backend, words).expect("supported backend");
            for (lane, state) in states.iter().enumerate() {
                let mut want = *state;
                reference_f1600(&mut want);
                let got: Vec<u64> = (0..25).map(|i| words[n * i + lane]).collect();
                assert_eq!(got, want, "{backend}, seed {seed}, state {lane}");
            }
        }
        let mut short = vec![0u64; 25 * n - 1];
        let err = permute_interleaved(backend, &mut short).unwrap_err();
        assert_eq!(
            err,
            Error::Words {
                backend,
                got: 25 * n - 1
            }
        );
        assert_eq!(
            err.to_string(),
            format!(
                "{backend}: takes {} interleaved words (25 per state), got {}",
                25 * n,
                25 * n - 1
            )
        );
    }
}

/// Lengths around the block and word boundaries (the last partial word and
/// the padding are the sponge's own code), and several blocks.
fn edge_lengths(rate: usize) -> [usize; 10] {
    [
        0,
        1,
        7,
        8,
        9,
        rate - 1,
        rate,
        rate + 1,
        rate + 8,
        3 * rate + 5,
    ]
}

fn check_lanes_at_edges(backend: Backend) {
    if !runs_here(backend) {
        return;
    }
    for rate in [SHAKE128_RATE, SHAKE256_RATE] {
        for in_len in edge_lengths(rate) {
            let inputs = lane_inputs(backend.lanes(), in_len);
            for out_len in edge_lengths(rate) {
                let outputs = run_backend(backend, rate, &inputs, out_len);
                for (lane, (input, output)) in inputs.iter().zip(&outputs).enumerate() {
                    let mut expected = vec![0u8; out_len];
                    rustcrypto_shake(rate, input, &mut expected);
                    assert_eq!(
                        output, &expected,
                        "{backend} lane {lane}, rate {rate}, in {in_len}, out {out_len}"
                    );
                }
            }
        }
    }
}

#[test]
fn x1_matches_shake_crate_at_block_edges() {
    check_lanes_at_edges(Backend::Scalar);
}

#[test]
fn x1_asm_matches_shake_crate_at_block_edges() {
    check_lanes_at_edges(Backend::ScalarAsm);
}

#[test]
fn x2_matches_shake_crate_at_block_edges() {
    check_lanes_at_edges(Backend::Sse2x2);
}

#[test]
fn x2_avx512vl_matches_shake_crate_at_block_edges() {
    check_lanes_at_edges(Backend::Avx512vlX2);
}

#[test]
fn x2_avx512vl_xor_matches_shake_crate_at_block_edges() {
    check_lanes_at_edges(Backend::Avx512vlX2Xor);
}

#[test]
fn x4_matches_shake_crate_at_block_edges() {
    check_lanes_at_edges(Backend::Avx2x4);
}

#[test]
fn x4_asm_matches_shake_crate_at_block_edges() {
    check_lanes_at_edges(Backend::Avx2x4Asm);
}

#[test]
fn x4_avx512vl_matches_shake_crate_at_block_edges() {
    check_lanes_at_edges(Backend::Avx512vlX4);
}

#[test]
fn x4_avx512vl_xor_matches_shake_crate_at_block_edges() {
    check_lanes_at_edges(Backend::Avx512vlX4Xor);
}

#[test]
fn x8_matches_shake_crate_at_block_edges() {
    check_lanes_at_edges(Backend::Avx512x8);
    check_lanes_at_edges(Backend::Avx512x8Xor);
}

/// Rates other than SHAKE's (the sponge accepts any multiple of 8 up to
/// 192), against the reference sponge.
#[test]
fn other_rates_match_reference() {
    for backend in Backend::ALL.into_iter().filter(|&b| runs_here(b)) {
        for rate in [8, 16, 72, 104, 144, 192] {
            for in_len in [0, rate - 1, rate, 2 * rate + 3] {
                let inputs = lane_inputs(backend.lanes(), in_len);
                let outputs = run_backend(backend, rate, &inputs, 2 * rate + 1);
                for (lane, (input, output)) in inputs.iter().zip(&outputs).enumerate() {
                    let mut expected = vec![0u8; output.len()];
                    reference_shake(rate, input, &mut expected);
                    assert_eq!(
                        output, &expected,
                        "{backend} lane {lane}, rate {rate}, in {in_len}"
                    );
                }
            }
        }
    }
}

/// The baseline code paths that this CPU's detection would skip.
#[cfg(target_arch = "x86_64")]
#[test]
fn fallback_variants_match_reference() {
    for rate in [SHAKE128_RATE, SHAKE256_RATE, 72] {
        for in_len in [0, rate + 1, 3 * rate] {
            let inputs = lane_inputs(2, in_len);
            let mut expected = vec![vec![0u8; 2 * rate + 9]; 2];
            for (input, expected) in inputs.iter().zip(&mut expected) {
                reference_shake(rate, input, expected);
            }

            let mut out = vec![0u8; expected[0].len()];
            scalar::shake_portable(rate, &inputs[0], &mut out);
            assert_eq!(
                out, expected[0],
                "portable scalar, rate {rate}, in {in_len}"
            );

            let mut outs = [vec![0u8; out.len()], vec![0u8; out.len()]];
            let [o0, o1] = &mut outs;
            // SAFETY: SSE2 is part of the x86_64 baseline.
            unsafe {
                x2::sse2::shake(rate, &[&inputs[0], &inputs[1]], &mut [o0, o1]);
            }
            assert_eq!(
                outs.to_vec(),
                expected,
                "x2 sse2 variant, rate {rate}, in {in_len}"
            );
        }
    }
    let mut states = [[7u64; 25], [9u64; 25]];
    let mut expected = states;
    expected.iter_mut().for_each(reference_f1600);
    // SAFETY: SSE2 is part of the x86_64 baseline.
    unsafe { x2::sse2::permute(&mut states) };
    assert_eq!(states, expected);
    let mut state = [3u64; 25];
    let mut want = state;
    scalar::f1600_portable(&mut state);
    reference_f1600(&mut want);
    assert_eq!(state, want);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn lanes_match_shake_crate(
        use_shake128 in any::<bool>(),
        in_len in 0usize..700,
        out_len in 0usize..600,
        seed in any::<u64>(),
    ) {
        let rate = if use_shake128 { SHAKE128_RATE } else { SHAKE256_RATE };
        for backend in Backend::ALL.into_iter().filter(|&b| runs_here(b)) {
            let inputs: Vec<Vec<u8>> =
                (0..backend.lanes()).map(|lane| bytes(seed ^ lane as u64, in_len)).collect();
            let outputs = run_backend(backend, rate, &inputs, out_len);
            for (lane, (input, output)) in inputs.iter().zip(&outputs).enumerate() {
                let mut expected = vec![0u8; out_len];
                rustcrypto_shake(rate, input, &mut expected);
                prop_assert_eq!(output, &expected, "{} lane {}", backend, lane);
            }
        }
    }
}

#[test]
fn support_follows_cpu_detection() {
    #[cfg(target_arch = "x86_64")]
    let expected = {
        let vl = is_x86_feature_detected!("avx512f") && is_x86_feature_detected!("avx512vl");
        [
            true,
            is_x86_feature_detected!("bmi1") && is_x86_feature_detected!("bmi2"),
            is_x86_feature_detected!("sse2"),
            vl,
            vl,
            is_x86_feature_detected!("avx2"),
            vl,
            vl,
            is_x86_feature_detected!("avx512f"),
            is_x86_feature_detected!("avx512f"),
        ]
    };
    #[cfg(not(target_arch = "x86_64"))]
    let expected = [
        true, false, false, false, false, false, false, false, false, false,
    ];
    for (backend, expected) in Backend::ALL.into_iter().zip(expected) {
        assert_eq!(backend.is_supported(), expected, "{backend}");
    }
}

#[test]
fn unsupported_backends_refuse_to_run() {
    for backend in Backend::ALL {
        if backend.is_supported() {
            println!("note: {backend} is supported here, its refusal is not exercised");
            continue;
        }
        let n = backend.lanes();
        let inputs = vec![&[][..]; n];
        let mut outs = vec![[0u8; 4]; n];
        let mut outputs: Vec<&mut [u8]> = outs.iter_mut().map(|o| &mut o[..]).collect();
        let err = shake(backend, SHAKE128_RATE, &inputs, &mut outputs).expect_err("unsupported");
        assert_eq!(err, Error::Unsupported(backend));
        assert!(err.to_string().starts_with(&format!(
            "{}: not supported on this CPU (needs ",
            backend.name()
        )));
        assert_eq!(
            permute(backend, &mut vec![[0; 25]; n]),
            Err(Error::Unsupported(backend))
        );
        assert_eq!(outs, vec![[0u8; 4]; n], "nothing written");
    }
}

#[test]
fn unsupported_message() {
    assert_eq!(
        Error::Unsupported(Backend::Avx512x8).to_string(),
        "x8-avx512: not supported on this CPU (needs avx512f)"
    );
    assert_eq!(
        Error::Unsupported(Backend::Avx512vlX2).to_string(),
        "x2-avx512vl: not supported on this CPU (needs avx512f+avx512vl)"
    );
    assert_eq!(
        Error::Unsupported(Backend::Avx512vlX4).to_string(),
        "x4-avx512vl: not supported on this CPU (needs avx512f+avx512vl)"
    );
}

/// Backends are told apart by name in reports, and each lane count's
/// AVX-512VL backend is a backend of its own.
#[test]
fn names_and_lanes() {
    let named: Vec<(&str, usize)> = Backend::ALL.iter().map(|b| (b.name(), b.lanes())).collect();
    assert_eq!(
        named,
        [
            ("x1-scalar", 1),
            ("x1-asm", 1),
            ("x2-sse2", 2),
            ("x2-avx512vl", 2),
            ("x2-avx512vl-xor", 2),
            ("x4-avx2", 4),
            ("x4-avx2-asm", 4),
            ("x4-avx512vl", 4),
            ("x4-avx512vl-xor", 4),
            ("x8-avx512", 8),
            ("x8-avx512-xor", 8),
        ]
    );
}

#[test]
fn malformed_calls_are_errors() {
    for backend in Backend::ALL.into_iter().filter(|&b| runs_here(b)) {
        let n = backend.lanes();
        let data = [0u8; 8];
        let mut outs = vec![[0u8; 8]; n + 1];
        let mut outputs: Vec<&mut [u8]> = outs.iter_mut().map(|o| &mut o[..]).collect();

        let inputs = vec![&data[..]; n + 1];
        assert_eq!(
            shake(backend, SHAKE128_RATE, &inputs[..n + 1], &mut outputs[..n]),
            Err(Error::LaneCount {
                backend,
                what: "inputs",
                got: n + 1
            })
        );
        assert_eq!(
            shake(backend, SHAKE128_RATE, &inputs[..n], &mut outputs[..n + 1]),
            Err(Error::LaneCount {
                backend,
                what: "outputs",
                got: n + 1
            })
        );
        assert_eq!(
            shake(backend, SHAKE128_RATE, &inputs[..n - 1], &mut outputs[..n]),
            Err(Error::LaneCount {
                backend,
                what: "inputs",
                got: n - 1
            })
        );
        assert_eq!(
            permute(backend, &mut vec![[0; 25]; n + 1]),
            Err(Error::LaneCount {
                backend,
                what: "states",
                got: n + 1
            })
        );
        for rate in [0, 7, 100, 200, 208] {
            assert_eq!(
                shake(backend, rate, &inputs[..n], &mut outputs[..n]),
                Err(Error::Rate(rate))
            );
        }
        if n > 1 {
            let mut uneven = inputs[..n].to_vec();
            uneven[n - 1] = &data[..7];
            assert_eq!(
                shake(backend, SHAKE128_RATE, &uneven, &mut outputs[..n]),
                Err(Error::UnequalLengths {
                    what: "inputs",
                    first: 8,
                    other: 7
                })
            );
            let (last, rest) = outputs[..n].split_last_mut().expect("n > 1");
            let mut uneven: Vec<&mut [u8]> = rest.iter_mut().map(|o| &mut o[..]).collect();
            uneven.push(&mut last[..3]);
            assert_eq!(
                shake(backend, SHAKE128_RATE, &inputs[..n], &mut uneven),
                Err(Error::UnequalLengths {
                    what: "outputs",
                    first: 8,
                    other: 3
                })
            );
        }
    }
    assert_eq!(
        Error::Rate(100).to_string(),
        "rate must be a multiple of 8 bytes from 8 to 192, got 100"
    );
    assert_eq!(
        Error::LaneCount {
            backend: Backend::Avx2x4,
            what: "inputs",
            got: 3
        }
        .to_string(),
        "x4-avx2: takes 4 inputs, got 3"
    );
}
