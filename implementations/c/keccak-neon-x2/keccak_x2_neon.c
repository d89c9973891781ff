/*
 * Two-way Keccak-f[1600] and SHAKE128/SHAKE256 for AArch64 NEON.
 * Written for cryptobench from FIPS 202 (sections 3.2 and 6.2); see
 * keccak_x2_neon.h for the interface and README.md for how it was checked.
 *
 * Layout: one uint64x2_t per Keccak lane (x, y), low 64-bit half = state 0,
 * high half = state 1.  Both states always undergo the same operation, so the
 * whole permutation is vertical: no lane shuffles, no table lookups.  The
 * 25 state registers plus the round's temporaries (almost) fit in AArch64's
 * 32 vector registers, so the state stays in registers inside
 * keccakx2_permute() apart from a few spills (see there).
 */
#include "keccak_x2_neon.h"

#include <string.h>

#if !defined(__aarch64__)
#error "keccak_x2_neon.c is AArch64-only (it uses 64-bit-lane NEON: vsriq_n_u64, vzip1q_u64, ...)"
#endif
#if defined(__AARCH64EB__)
/* Absorbing and squeezing reinterpret loaded bytes as 64-bit lanes, which is
 * FIPS 202's little-endian lane encoding only on a little-endian target. */
#error "keccak_x2_neon.c assumes little-endian AArch64"
#endif

#include <arm_neon.h>

/* FIPS 202 3.2.5 round constants RC[i_r], i.e. rc(j + 7 i_r) placed at bit
 * positions 2^j - 1.  Tabulated rather than generated because they feed a
 * vector load per round; the test's scalar reference generates them with the
 * LFSR of Algorithm 5, so a typo here cannot go unnoticed. */
static const uint64_t keccak_rc[24] = {
    0x0000000000000001ULL, 0x0000000000008082ULL, 0x800000000000808AULL,
    0x8000000080008000ULL, 0x000000000000808BULL, 0x0000000080000001ULL,
    0x8000000080008081ULL, 0x8000000000008009ULL, 0x000000000000008AULL,
    0x0000000000000088ULL, 0x0000000080008009ULL, 0x000000008000000AULL,
    0x000000008000808BULL, 0x800000000000008BULL, 0x8000000000008089ULL,
    0x8000000000008003ULL, 0x8000000000008002ULL, 0x8000000000000080ULL,
    0x000000000000800AULL, 0x800000008000000AULL, 0x8000000080008081ULL,
    0x8000000000008080ULL, 0x0000000080000001ULL, 0x8000000080008008ULL,
};

/*
 * The primitive operations of a round, in two flavours.
 *
 *   XOR5(a..e)            θ's column parity C[x]
 *   THETA_D(cm, cp)       θ's D[x] = C[x-1] ^ rol(C[x+1], 1)
 *   THETA_APPLY(A, x, d)  θ's A[x][y] ^= D[x] for the whole column, where a
 *                         flavour does it as a separate step
 *   THETA_RHO(dst, a, d, n), THETA_RHO0(a, d)
 *                         the lane after θ (if not yet applied) and ρ's
 *                         rotation by n; π costs nothing, being only which
 *                         variable the result lands in
 *   CHI(b0, b1, b2)       χ: b0 ^ (~b1 & b2)
 *
 * Where θ's XOR goes differs on purpose.  With the SHA-3 extension XAR does
 * XOR and rotate in one instruction, so D is applied lane by lane as part of
 * ρ and the five D values stay live through the row loop.  Without it the
 * XOR is a separate instruction either way, so it is done column by column
 * right after each D[x] is computed: each D then dies at once, which frees
 * five registers for the rest of the round (fewer stack spills).
 *
 * All macros take plain variables (no side effects), so evaluating an
 * argument twice is harmless; they are macros rather than inline functions
 * because the shift/rotate counts must be integer constant expressions
 * (the NEON immediate forms), which a function parameter is not at -O0.
 */
#if defined(__ARM_FEATURE_SHA3)
/* ARMv8.2-A SHA-3 extension: these instructions exist precisely for Keccak.
 * EOR3 halves the θ parity cost, RAX1 is D[x] in one instruction, XAR
 * (xor-and-rotate-right) merges θ's xor with ρ's rotation, and BCAX
 * (bit-clear-and-xor) is χ in one instruction. */
#define XOR5(a, b, c, d, e) veor3q_u64(veor3q_u64(a, b, c), d, e)
#define THETA_D(cm, cp) vrax1q_u64(cm, cp)
#define THETA_APPLY(A, x, d) ((void)0)
/* XAR rotates right; rotating left by n is rotating right by (64 - n) mod 64.
 * Lane (0, 0) has offset 0, so it needs only the XOR. */
#define THETA_RHO(dst, a, d, n) ((dst) = vxarq_u64(a, d, (64 - (n)) & 63))
#define THETA_RHO0(a, d) veorq_u64(a, d)
#define CHI(b0, b1, b2) vbcaxq_u64(b0, b2, b1)
#else
/* ARMv8.0-A NEON has no vector rotate.  SHL + SRI (shift right and insert:
 * keeps the destination's top n bits, inserts the source shifted right) is a
 * rotate in two instructions, against three (two shifts and an OR) with
 * plain shifts.  n must be 1..63 (vsriq_n_u64 takes 1..64, vshlq_n_u64
 * 0..63). */
#define ROL(v, n) vsriq_n_u64(vshlq_n_u64(v, n), v, 64 - (n))
/* Balanced tree: two independent XORs first, so the dependency chain is 3
 * deep instead of 4. */
#define XOR5(a, b, c, d, e) veorq_u64(veorq_u64(veorq_u64(a, b), veorq_u64(c, d)), e)
#define THETA_D(cm, cp) veorq_u64(cm, ROL(cp, 1))
#define THETA_APPLY(A, x, d)             \
    do {                                 \
        A##x##0 = veorq_u64(A##x##0, d); \
        A##x##1 = veorq_u64(A##x##1, d); \
        A##x##2 = veorq_u64(A##x##2, d); \
        A##x##3 = veorq_u64(A##x##3, d); \
        A##x##4 = veorq_u64(A##x##4, d); \
    } while (0)
/* D was already applied by THETA_APPLY. */
#define THETA_RHO(dst, a, d, n) ((void)(d), (dst) = ROL(a, n))
#define THETA_RHO0(a, d) ((void)(d), (a))
/* BIC computes b2 & ~b1: χ's complement-and in one instruction. */
#define CHI(b0, b1, b2) veorq_u64(b0, vbicq_u64(b2, b1))
#endif

/*
 * One round, reading state A and writing state E (variables A##xy / E##xy,
 * x = column, y = row, lane index x + 5y).  Writing to a second set of
 * variables instead of back into A is what lets every round be a single
 * straight pass: π moves lane (x, y) to (y, 2x + 3y), so writing in place
 * would overwrite lanes that later rows still read.  Two rounds per loop
 * iteration (A -> E -> A) make the swap free.
 *
 * The output is produced one row (plane) y at a time: the five ρπ results
 * B[0..4][y] are gathered (B[X][Y] = rol(θ(A)[x][y], r[x][y]) with
 * (x, y) = ((X + 3Y) mod 5, X)), χ consumes them immediately and ι touches
 * lane (0, 0) only.  Doing χ per row keeps just five B values alive at once,
 * which is what keeps the round close to the 32 vector registers.
 *
 * ρ offsets r[x][y] (FIPS 202 Table 2):
 *        y=0 y=1 y=2 y=3 y=4
 *   x=0:   0  36   3  41  18
 *   x=1:   1  44  10  45   2
 *   x=2:  62   6  43  15  61
 *   x=3:  28  55  25  21  56
 *   x=4:  27  20  39   8  14
 */
#define ROUND(A, E, rc)                                                  \
    do {                                                                 \
        uint64x2_t c0_, c1_, c2_, c3_, c4_, d0_, d1_, d2_, d3_, d4_;     \
        uint64x2_t b0_, b1_, b2_, b3_, b4_;                              \
        /* θ */                                                          \
        c0_ = XOR5(A##00, A##01, A##02, A##03, A##04);                   \
        c1_ = XOR5(A##10, A##11, A##12, A##13, A##14);                   \
        c2_ = XOR5(A##20, A##21, A##22, A##23, A##24);                   \
        c3_ = XOR5(A##30, A##31, A##32, A##33, A##34);                   \
        c4_ = XOR5(A##40, A##41, A##42, A##43, A##44);                   \
        d0_ = THETA_D(c4_, c1_);                                         \
        THETA_APPLY(A, 0, d0_);                                          \
        d1_ = THETA_D(c0_, c2_);                                         \
        THETA_APPLY(A, 1, d1_);                                          \
        d2_ = THETA_D(c1_, c3_);                                         \
        THETA_APPLY(A, 2, d2_);                                          \
        d3_ = THETA_D(c2_, c4_);                                         \
        THETA_APPLY(A, 3, d3_);                                          \
        d4_ = THETA_D(c3_, c0_);                                         \
        THETA_APPLY(A, 4, d4_);                                          \
        /* row y = 0: sources (0,0) (1,1) (2,2) (3,3) (4,4) */           \
        b0_ = THETA_RHO0(A##00, d0_); /* r = 0: no rotation */           \
        THETA_RHO(b1_, A##11, d1_, 44);                                  \
        THETA_RHO(b2_, A##22, d2_, 43);                                  \
        THETA_RHO(b3_, A##33, d3_, 21);                                  \
        THETA_RHO(b4_, A##44, d4_, 14);                                  \
        E##00 = veorq_u64(CHI(b0_, b1_, b2_), rc); /* ι */               \
        E##10 = CHI(b1_, b2_, b3_);                                      \
        E##20 = CHI(b2_, b3_, b4_);                                      \
        E##30 = CHI(b3_, b4_, b0_);                                      \
        E##40 = CHI(b4_, b0_, b1_);                                      \
        /* row y = 1: sources (3,0) (4,1) (0,2) (1,3) (2,4) */           \
        THETA_RHO(b0_, A##30, d3_, 28);                                  \
        THETA_RHO(b1_, A##41, d4_, 20);                                  \
        THETA_RHO(b2_, A##02, d0_, 3);                                   \
        THETA_RHO(b3_, A##13, d1_, 45);                                  \
        THETA_RHO(b4_, A##24, d2_, 61);                                  \
        E##01 = CHI(b0_, b1_, b2_);                                      \
        E##11 = CHI(b1_, b2_, b3_);                                      \
        E##21 = CHI(b2_, b3_, b4_);                                      \
        E##31 = CHI(b3_, b4_, b0_);                                      \
        E##41 = CHI(b4_, b0_, b1_);                                      \
        /* row y = 2: sources (1,0) (2,1) (3,2) (4,3) (0,4) */           \
        THETA_RHO(b0_, A##10, d1_, 1);                                   \
        THETA_RHO(b1_, A##21, d2_, 6);                                   \
        THETA_RHO(b2_, A##32, d3_, 25);                                  \
        THETA_RHO(b3_, A##43, d4_, 8);                                   \
        THETA_RHO(b4_, A##04, d0_, 18);                                  \
        E##02 = CHI(b0_, b1_, b2_);                                      \
        E##12 = CHI(b1_, b2_, b3_);                                      \
        E##22 = CHI(b2_, b3_, b4_);                                      \
        E##32 = CHI(b3_, b4_, b0_);                                      \
        E##42 = CHI(b4_, b0_, b1_);                                      \
        /* row y = 3: sources (4,0) (0,1) (1,2) (2,3) (3,4) */           \
        THETA_RHO(b0_, A##40, d4_, 27);                                  \
        THETA_RHO(b1_, A##01, d0_, 36);                                  \
        THETA_RHO(b2_, A##12, d1_, 10);                                  \
        THETA_RHO(b3_, A##23, d2_, 15);                                  \
        THETA_RHO(b4_, A##34, d3_, 56);                                  \
        E##03 = CHI(b0_, b1_, b2_);                                      \
        E##13 = CHI(b1_, b2_, b3_);                                      \
        E##23 = CHI(b2_, b3_, b4_);                                      \
        E##33 = CHI(b3_, b4_, b0_);                                      \
        E##43 = CHI(b4_, b0_, b1_);                                      \
        /* row y = 4: sources (2,0) (3,1) (4,2) (0,3) (1,4) */           \
        THETA_RHO(b0_, A##20, d2_, 62);                                  \
        THETA_RHO(b1_, A##31, d3_, 55);                                  \
        THETA_RHO(b2_, A##42, d4_, 39);                                  \
        THETA_RHO(b3_, A##03, d0_, 41);                                  \
        THETA_RHO(b4_, A##14, d1_, 2);                                   \
        E##04 = CHI(b0_, b1_, b2_);                                      \
        E##14 = CHI(b1_, b2_, b3_);                                      \
        E##24 = CHI(b2_, b3_, b4_);                                      \
        E##34 = CHI(b3_, b4_, b0_);                                      \
        E##44 = CHI(b4_, b0_, b1_);                                      \
    } while (0)

/* Lists the 25 variables of a state in lane order (x + 5y), so that loading,
 * storing and declaring them cannot disagree on the order. */
#define FOR_EACH_LANE(F, P)                                                       \
    F(P, 00, 0) F(P, 10, 1) F(P, 20, 2) F(P, 30, 3) F(P, 40, 4)                   \
    F(P, 01, 5) F(P, 11, 6) F(P, 21, 7) F(P, 31, 8) F(P, 41, 9)                   \
    F(P, 02, 10) F(P, 12, 11) F(P, 22, 12) F(P, 32, 13) F(P, 42, 14)              \
    F(P, 03, 15) F(P, 13, 16) F(P, 23, 17) F(P, 33, 18) F(P, 43, 19)              \
    F(P, 04, 20) F(P, 14, 21) F(P, 24, 22) F(P, 34, 23) F(P, 44, 24)

#define DECLARE_LANE(P, xy, i) uint64x2_t P##xy;
#define LOAD_LANE(P, xy, i) P##xy = st[i];
#define STORE_LANE(P, xy, i) st[i] = P##xy;

/*
 * GCC's pre-register-allocation scheduler (-fschedule-insns, on by default
 * for AArch64 at -O2) hoists independent work so eagerly that the round no
 * longer fits in 32 registers: with GCC 12 the 2-round loop body grew from
 * 327 to 382 instructions (3 -> 49 stack loads/stores) in the ARMv8.0 build
 * and from 153 to 161 (14 -> 21) in the SHA-3 build.  The source order above
 * is already register-friendly, so the pass is switched off for this one
 * function.  (Counted with aarch64-linux-gnu-objdump; the effect on speed is
 * unmeasured: out-of-order cores may hide much of either.)
 */
#if defined(__GNUC__) && !defined(__clang__)
#define KECCAKX2_KEEP_SOURCE_ORDER __attribute__((optimize("no-schedule-insns")))
#else
#define KECCAKX2_KEEP_SOURCE_ORDER
#endif

/*
 * Keccak-f[1600] on two interleaved states held in memory as st[lane].
 * The state is copied into 25 local variables so the compiler can keep it in
 * registers for all 24 rounds; the memory copy is only the hand-over point
 * between permutation, absorbing and squeezing (50 loads/stores against
 * about 1600 (SHA-3) to 3800 (ARMv8.0) vector operations for the rounds).
 */
KECCAKX2_KEEP_SOURCE_ORDER
static void keccakx2_permute(uint64x2_t st[25])
{
    FOR_EACH_LANE(DECLARE_LANE, a)
    FOR_EACH_LANE(DECLARE_LANE, e)
    int i;

    FOR_EACH_LANE(LOAD_LANE, a)
    for (i = 0; i < 24; i += 2) {
        /* vld1q_dup: the same round constant goes into both halves, as
         * both states are at the same round. */
        ROUND(a, e, vld1q_dup_u64(&keccak_rc[i]));
        ROUND(e, a, vld1q_dup_u64(&keccak_rc[i + 1]));
    }
    FOR_EACH_LANE(STORE_LANE, a)
}

void keccak_f1600_x2_neon(uint64_t s[2][25])
{
    uint64x2_t st[25];
    int i;

    /* The caller's layout is two separate states; ours pairs lane i of both
     * in one register.  Loading two consecutive lanes of each state and
     * zipping them converts two lanes per 4 instructions (ZIP1/ZIP2 pick the
     * low or high halves of both sources). */
    for (i = 0; i < 24; i += 2) {
        const uint64x2_t p = vld1q_u64(&s[0][i]);
        const uint64x2_t q = vld1q_u64(&s[1][i]);
        st[i] = vzip1q_u64(p, q);
        st[i + 1] = vzip2q_u64(p, q);
    }
    st[24] = vcombine_u64(vld1_u64(&s[0][24]), vld1_u64(&s[1][24]));

    keccakx2_permute(st);

    for (i = 0; i < 24; i += 2) {
        vst1q_u64(&s[0][i], vzip1q_u64(st[i], st[i + 1]));
        vst1q_u64(&s[1][i], vzip2q_u64(st[i], st[i + 1]));
    }
    vst1_u64(&s[0][24], vget_low_u64(st[24]));
    vst1_u64(&s[1][24], vget_high_u64(st[24]));
}

/*
 * XOR n whole 8-byte lanes of the two messages into the state.  Byte loads
 * (vld1q_u8) rather than uint64_t loads because the inputs need not be
 * 8-byte aligned, and reinterpreting the bytes as 64-bit lanes is FIPS 202's
 * little-endian lane encoding on little-endian AArch64.
 */
static inline void absorb_lanes(uint64x2_t st[25], const uint8_t *p0,
                                const uint8_t *p1, size_t n)
{
    size_t j;

    for (j = 0; j + 2 <= n; j += 2) {
        const uint64x2_t u0 = vreinterpretq_u64_u8(vld1q_u8(p0 + 8 * j));
        const uint64x2_t u1 = vreinterpretq_u64_u8(vld1q_u8(p1 + 8 * j));
        st[j] = veorq_u64(st[j], vzip1q_u64(u0, u1));
        st[j + 1] = veorq_u64(st[j + 1], vzip2q_u64(u0, u1));
    }
    if (j < n) { /* both rates are an odd number of lanes (21 and 17) */
        const uint64x1_t u0 = vreinterpret_u64_u8(vld1_u8(p0 + 8 * j));
        const uint64x1_t u1 = vreinterpret_u64_u8(vld1_u8(p1 + 8 * j));
        st[j] = veorq_u64(st[j], vcombine_u64(u0, u1));
    }
}

/* The inverse: write n whole lanes of each state to its own output. */
static inline void squeeze_lanes(const uint64x2_t st[25], uint8_t *p0,
                                 uint8_t *p1, size_t n)
{
    size_t j;

    for (j = 0; j + 2 <= n; j += 2) {
        vst1q_u8(p0 + 8 * j, vreinterpretq_u8_u64(vzip1q_u64(st[j], st[j + 1])));
        vst1q_u8(p1 + 8 * j, vreinterpretq_u8_u64(vzip2q_u64(st[j], st[j + 1])));
    }
    if (j < n) {
        vst1_u8(p0 + 8 * j, vreinterpret_u8_u64(vget_low_u64(st[j])));
        vst1_u8(p1 + 8 * j, vreinterpret_u8_u64(vget_high_u64(st[j])));
    }
}

/*
 * SHAKE (FIPS 202 6.2: SHAKE(M, d) = KECCAK[c](M || 1111, d)) on two
 * messages of the same length.  Equal lengths are what make the two-lane
 * sponge possible at all: both states need a permutation at exactly the same
 * points, and the padding lands at the same byte of both.
 */
static inline void shake_x2(size_t rate, const uint8_t *in0, const uint8_t *in1,
                            size_t inlen, uint8_t *out0, uint8_t *out1,
                            size_t outlen)
{
    uint64x2_t st[25];
    const size_t lanes = rate / 8;
    size_t i, full, rem;

    for (i = 0; i < 25; i++)
        st[i] = vdupq_n_u64(0);

    /* Absorb whole blocks straight from the inputs (no copy). */
    while (inlen >= rate) {
        absorb_lanes(st, in0, in1, lanes);
        keccakx2_permute(st);
        in0 += rate;
        in1 += rate;
        inlen -= rate;
    }

    /* The last, partial (possibly empty) block: whole lanes as above, then
     * the 0..7 trailing bytes via a zeroed scalar, since a vector load could
     * read past the end of the caller's buffer. */
    full = inlen / 8;
    rem = inlen % 8;
    absorb_lanes(st, in0, in1, full);
    if (rem != 0) {
        uint64_t t0 = 0, t1 = 0;
        memcpy(&t0, in0 + 8 * full, rem);
        memcpy(&t1, in1 + 8 * full, rem);
        st[full] = veorq_u64(st[full], vcombine_u64(vcreate_u64(t0), vcreate_u64(t1)));
    }

    /* Padding, identical in both lanes: SHAKE's domain bits 1111 followed by
     * pad10*1's first 1 give the byte 0x1F right after the message (bits are
     * numbered LSB-first within a byte), and pad10*1's final 1 is the top bit
     * of the last byte of the block.  If the message fills the block up to
     * rate-1 bytes both land in the same byte (0x9F), which the two XORs
     * produce naturally. */
    st[inlen / 8] = veorq_u64(st[inlen / 8], vdupq_n_u64((uint64_t)0x1F << (8 * (inlen % 8))));
    st[lanes - 1] = veorq_u64(st[lanes - 1], vdupq_n_u64((uint64_t)0x80 << 56));
    keccakx2_permute(st);

    /* Squeeze.  Permute only between output blocks, never after the last
     * one, so an output of exactly k blocks costs exactly k permutations. */
    while (outlen > 0) {
        const size_t n = outlen < rate ? outlen : rate;

        squeeze_lanes(st, out0, out1, n / 8);
        if (n % 8 != 0) {
            /* Trailing bytes of a partial lane: go through a scalar so
             * nothing is written past outlen. */
            const uint64_t t0 = vgetq_lane_u64(st[n / 8], 0);
            const uint64_t t1 = vgetq_lane_u64(st[n / 8], 1);
            memcpy(out0 + (n & ~(size_t)7), &t0, n % 8);
            memcpy(out1 + (n & ~(size_t)7), &t1, n % 8);
        }
        out0 += n;
        out1 += n;
        outlen -= n;
        if (outlen > 0)
            keccakx2_permute(st);
    }
}

/* c = 256 and 512 bits: rate = 200 - c/8 bytes. */
void shake128_x2_neon(const uint8_t *in0, const uint8_t *in1, size_t inlen,
                      uint8_t *out0, uint8_t *out1, size_t outlen)
{
    shake_x2(KECCAK_X2_SHAKE128_RATE, in0, in1, inlen, out0, out1, outlen);
}

void shake256_x2_neon(const uint8_t *in0, const uint8_t *in1, size_t inlen,
                      uint8_t *out0, uint8_t *out1, size_t outlen)
{
    shake_x2(KECCAK_X2_SHAKE256_RATE, in0, in1, inlen, out0, out1, outlen);
}

int keccak_x2_neon_uses_sha3(void)
{
#if defined(__ARM_FEATURE_SHA3)
    return 1;
#else
    return 0;
#endif
}
