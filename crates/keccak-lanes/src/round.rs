//! The Keccak-f\[1600\] round, written once for every lane type.

/// Round constants for iota (FIPS 202, section 3.2.5).
pub(super) const RC: [u64; 24] = [
    0x0000_0000_0000_0001,
    0x0000_0000_0000_8082,
    0x8000_0000_0000_808A,
    0x8000_0000_8000_8000,
    0x0000_0000_0000_808B,
    0x0000_0000_8000_0001,
    0x8000_0000_8000_8081,
    0x8000_0000_0000_8009,
    0x0000_0000_0000_008A,
    0x0000_0000_0000_0088,
    0x0000_0000_8000_8009,
    0x0000_0000_8000_000A,
    0x0000_0000_8000_808B,
    0x8000_0000_0000_008B,
    0x8000_0000_0000_8089,
    0x8000_0000_0000_8003,
    0x8000_0000_0000_8002,
    0x8000_0000_0000_0080,
    0x0000_0000_0000_800A,
    0x8000_0000_8000_000A,
    0x8000_0000_8000_8081,
    0x8000_0000_0000_8080,
    0x0000_0000_8000_0001,
    0x8000_0000_8000_8008,
];

/// One output row of theta+rho+pi+chi: five input lanes, the theta column
/// term each one takes, and the rho rotation each one gets.
macro_rules! chi_row {
    ($a:ident, $d:ident; $(($i:literal, $x:literal, $r:literal)),+) => {{
        let [b0, b1, b2, b3, b4] =
            [$(rotl::<$r, { 64 - $r }>(theta_apply($a[$i], $d[$x]))),+];
        $crate::round::chi_row!(@chi b0, b1, b2, b3, b4)
    }};
    (@chi $b0:ident, $b1:ident, $b2:ident, $b3:ident, $b4:ident) => {
        [
            chi($b0, $b1, $b2),
            chi($b1, $b2, $b3),
            chi($b2, $b3, $b4),
            chi($b3, $b4, $b0),
            chi($b4, $b0, $b1),
        ]
    };
}

/// [`chi_row`] with the rotations done by `rotl_with::<L, R>(lane, $k)`.
macro_rules! chi_row_with {
    ($a:ident, $d:ident, $k:expr; $(($i:literal, $x:literal, $r:literal)),+) => {{
        let [b0, b1, b2, b3, b4] =
            [$(rotl_with::<$r, { 64 - $r }>(theta_apply($a[$i], $d[$x]), $k)),+];
        $crate::round::chi_row!(@chi b0, b1, b2, b3, b4)
    }};
}

/// Expands to the state after one Keccak-f\[1600\] round of `$a: [Lane; 25]`
/// (lane `x + 5 * y`), with `$rc` the round constant.
///
/// The lane operations are taken from the invocation site, so that each
/// backend supplies them with its own instructions and target features:
/// `xor5(a, b, c, d, e)`, `theta_d(c[x - 1], c[x + 1]) -> D` (`D` is whatever
/// `theta_apply(lane, D)` wants; a backend with a 3-input XOR keeps both terms
/// apart), `rotl::<L, R>(lane)` with `L + R == 64` (passing both spares
/// backends from needing generic const expressions), `chi(a, b, c) = a ^ (!b & c)`
/// and `iota(lane, rc)`.
///
/// Rows are written out explicitly (the pi permutation is folded into the
/// indices) so the whole round is straight-line code with constant indices,
/// which keeps the 25 lanes in registers (or at fixed stack slots).
///
/// With a third argument `$k`, the rotations are `rotl_with::<L, R>(lane, $k)`
/// instead, for a backend whose rotations need constants it keeps in the
/// permutation's own stack frame (see [`keccak_f1600`]).
macro_rules! keccak_round {
    ($a:ident, $rc:expr) => {
        $crate::round::keccak_round!(@rows $a, $rc, chi_row)
    };
    ($a:ident, $rc:expr, $k:expr) => {
        $crate::round::keccak_round!(@rows $a, $rc, chi_row_with, $k)
    };
    (@rows $a:ident, $rc:expr, $chi_row:ident $(, $k:expr)?) => {{
        let c = [
            xor5($a[0], $a[5], $a[10], $a[15], $a[20]),
            xor5($a[1], $a[6], $a[11], $a[16], $a[21]),
            xor5($a[2], $a[7], $a[12], $a[17], $a[22]),
            xor5($a[3], $a[8], $a[13], $a[18], $a[23]),
            xor5($a[4], $a[9], $a[14], $a[19], $a[24]),
        ];
        let d = [
            theta_d(c[4], c[1]),
            theta_d(c[0], c[2]),
            theta_d(c[1], c[3]),
            theta_d(c[2], c[4]),
            theta_d(c[3], c[0]),
        ];
        // Output row y takes lane (x + 3y, x) for x = 0..5 (indices mod 5),
        // as (lane index, theta column, rho rotation).
        #[allow(unused_imports)]
        use $crate::round::{chi_row, chi_row_with};
        let [e0, e1, e2, e3, e4] =
            $chi_row!($a, d $(, $k)?; (0, 0, 0), (6, 1, 44), (12, 2, 43), (18, 3, 21), (24, 4, 14));
        let [e5, e6, e7, e8, e9] =
            $chi_row!($a, d $(, $k)?; (3, 3, 28), (9, 4, 20), (10, 0, 3), (16, 1, 45), (22, 2, 61));
        let [e10, e11, e12, e13, e14] =
            $chi_row!($a, d $(, $k)?; (1, 1, 1), (7, 2, 6), (13, 3, 25), (19, 4, 8), (20, 0, 18));
        let [e15, e16, e17, e18, e19] =
            $chi_row!($a, d $(, $k)?; (4, 4, 27), (5, 0, 36), (11, 1, 10), (17, 2, 15), (23, 3, 56));
        let [e20, e21, e22, e23, e24] =
            $chi_row!($a, d $(, $k)?; (2, 2, 62), (8, 3, 55), (14, 4, 39), (15, 0, 41), (21, 1, 2));
        [
            iota(e0, $rc), e1, e2, e3, e4, e5, e6, e7, e8, e9, e10, e11, e12, e13, e14, e15,
            e16, e17, e18, e19, e20, e21, e22, e23, e24,
        ]
    }};
}

/// Expands to a Keccak-f\[1600\] permutation of `$state: &mut [Lane; 25]`, with
/// the lane operations described at [`keccak_round`].
///
/// The SIMD backends loop over two rounds per iteration, except x4 AVX2,
/// which loops over one with its constants copied into its own frame
/// (`one_round_per_loop, constants`: see [`FrameConstants`]). Measured on a
/// Sapphire Rapids guest with `cryptobench run keccak-xn` (docs/keccak.md),
/// x4 AVX2 SHAKE against N single calls, in core cycles: 1.94-1.95x with four
/// rounds per loop and constants in `.rodata` (and 4-18 % slower at a quarter
/// of stack positions), 1.86x four rounds with frame constants, 1.91x all 24
/// unrolled with them, 1.96x two rounds, 1.97-1.99x one round. The AVX-512VL
/// and x8 backends lost 3-7 % with one round and frame constants, and 1.4 %
/// with four rounds, so they keep two and `.rodata` (no stack-position band was
/// found for them). The portable scalar permutation (`unrolled`) gained about
/// 6 % from straight-line code, for 19 KiB of it, on Sapphire Rapids; the BMI
/// one (`rounds_per_loop: 0 1 2 3 4 5`, as XKCP's `u6`) takes 925 core cycles
/// on Zen 4 against 943 unrolled, 929 with 12 rounds a loop, 935 with 8, 943
/// with 3 and 949 with 4, and its SHAKE 1.7-14 % fewer at every length
/// (docs/results/keccak-xkcp-permutation.md).
macro_rules! keccak_f1600 {
    ($state:expr) => {{
        let state = $state;
        let mut a = *state;
        for rc in $crate::round::RC.chunks_exact(2) {
            let e = $crate::round::keccak_round!(a, rc[0]);
            a = $crate::round::keccak_round!(e, rc[1]);
        }
        *state = a;
    }};
    ($state:expr, one_round_per_loop, $constants:expr) => {{
        let state = $state;
        let mut a = *state;
        let k = core::hint::black_box($constants);
        for r in 0..24 {
            a = $crate::round::keccak_round!(a, k.rc[r], &k);
        }
        *state = a;
    }};
    ($state:expr, rounds_per_loop: $($i:literal)+) => {{
        let state = $state;
        let mut a = *state;
        for rc in $crate::round::RC.chunks_exact([$($i),+].len()) {
            $(
                let a_next = $crate::round::keccak_round!(a, rc[$i]);
                a = a_next;
            )+
        }
        *state = a;
    }};
    ($state:expr, unrolled) => {{
        let state = $state;
        let a = *state;
        $crate::round::keccak_rounds!(
            a; 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23
        );
        *state = a;
    }};
}

macro_rules! keccak_rounds {
    ($a:ident; $($round:literal)+) => {
        $(
            let $a = $crate::round::keccak_round!($a, $crate::round::RC[$round]);
        )+
    };
}

/// Constants a permutation keeps in its own stack frame instead of reading
/// them from read-only data: the round constants and whatever the backend's
/// `rotl_with` needs (`M`: byte-shuffle masks for AVX2).
///
/// A permutation that spills state stores to its frame all the time, and a
/// load whose address equals an in-flight store's in the low 12 bits waits
/// for it (4K aliasing). Read-only data sits at fixed page offsets, so
/// wherever the stack lands on them every constant load (iota's is on the
/// critical path) stalls: x4 AVX2 SHAKE ran 4-18 % slower in a quarter of
/// the stack positions on a Sapphire Rapids core. Addresses within one frame
/// never alias that way, and a copy per call costs a few stores.
#[derive(Clone, Copy)]
pub(super) struct FrameConstants<M> {
    pub rc: [u64; 24],
    pub masks: M,
}

pub(super) use {chi_row, chi_row_with, keccak_f1600, keccak_round, keccak_rounds};
