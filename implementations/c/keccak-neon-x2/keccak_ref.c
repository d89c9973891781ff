/*
 * Scalar reference Keccak-f[1600] and SHAKE, written for cryptobench's tests
 * directly from FIPS 202.  It deliberately shares nothing with the NEON code
 * (keccak_x2_neon.c): the ρ offsets and round constants are *generated* here
 * by the specification's own algorithms (3.2.2 Algorithm 2, 3.2.5
 * Algorithms 5 and 6) instead of tabulated, the step mappings are separate
 * passes exactly as in 3.2.1-3.2.5, and the sponge works byte by byte.  A
 * mistake would therefore have to be made twice, in two different forms, to
 * pass the lane-equality tests; the published known answers in test/kat.c
 * check this file itself.
 *
 * Portable C11: lanes are built from bytes with shifts, so it is correct on
 * any host byte order.
 */
#include "keccak_ref.h"

#include <string.h>

static uint64_t rol64(uint64_t v, unsigned n)
{
    n &= 63;
    return n == 0 ? v : (v << n) | (v >> (64 - n));
}

/* Algorithm 5, rc(t): bit t of the LFSR sequence x^8 + x^6 + x^5 + x^4 + 1.
 * R[k] is kept as bit k of an integer, so "R = 0 || R" is a left shift and
 * R[8] is bit 8. */
static unsigned rc_bit(unsigned t)
{
    unsigned R = 1; /* R = 10000000 */
    unsigned i;

    if (t % 255 == 0)
        return 1;
    for (i = 1; i <= t % 255; i++) {
        unsigned r8;
        R <<= 1;
        r8 = (R >> 8) & 1;
        R ^= r8 << 0;
        R ^= r8 << 4;
        R ^= r8 << 5;
        R ^= r8 << 6;
        R &= 0xFF; /* Trunc_8 */
    }
    return R & 1;
}

/* Algorithm 6's RC for round ir (l = 6, w = 64): bit 2^j - 1 is rc(j + 7 ir). */
static uint64_t round_constant(unsigned ir)
{
    uint64_t rc = 0;
    unsigned j;

    for (j = 0; j <= 6; j++)
        rc |= (uint64_t)rc_bit(j + 7 * ir) << ((1u << j) - 1);
    return rc;
}

void keccak_f1600_ref(uint64_t A[25])
{
    static unsigned rho_offset[25];
    static uint64_t rc[24];
    static int ready = 0;
    unsigned ir, x, y, t;

    if (!ready) {
        /* Algorithm 2: walk (x, y) from (1, 0) through the 24 non-zero
         * lanes; lane number t is rotated by (t + 1)(t + 2)/2. */
        x = 1;
        y = 0;
        rho_offset[0] = 0;
        for (t = 0; t < 24; t++) {
            unsigned nx = y, ny = (2 * x + 3 * y) % 5;
            rho_offset[x + 5 * y] = ((t + 1) * (t + 2) / 2) % 64;
            x = nx;
            y = ny;
        }
        for (ir = 0; ir < 24; ir++)
            rc[ir] = round_constant(ir);
        ready = 1;
    }

    /* Keccak-p[1600, 24] = Keccak-f[1600]: rounds ir = 12 + 2l - nr = 0..23. */
    for (ir = 0; ir < 24; ir++) {
        uint64_t C[5], D[5], B[25];

        /* θ (Algorithm 1) */
        for (x = 0; x < 5; x++)
            C[x] = A[x] ^ A[x + 5] ^ A[x + 10] ^ A[x + 15] ^ A[x + 20];
        for (x = 0; x < 5; x++)
            D[x] = C[(x + 4) % 5] ^ rol64(C[(x + 1) % 5], 1);
        for (y = 0; y < 5; y++)
            for (x = 0; x < 5; x++)
                A[x + 5 * y] ^= D[x];

        /* ρ (Algorithm 2) */
        for (t = 0; t < 25; t++)
            A[t] = rol64(A[t], rho_offset[t]);

        /* π (Algorithm 3): A'[x, y] = A[(x + 3y) mod 5, x] */
        for (y = 0; y < 5; y++)
            for (x = 0; x < 5; x++)
                B[x + 5 * y] = A[(x + 3 * y) % 5 + 5 * x];

        /* χ (Algorithm 4): A'[x, y] = A[x, y] ^ ((A[x+1, y] ^ 1) & A[x+2, y]) */
        for (y = 0; y < 5; y++)
            for (x = 0; x < 5; x++)
                A[x + 5 * y] = B[x + 5 * y] ^ (~B[(x + 1) % 5 + 5 * y] & B[(x + 2) % 5 + 5 * y]);

        /* ι (Algorithm 6) */
        A[0] ^= rc[ir];
    }
}

/* Byte i of the state string S (FIPS 202 3.1.2: lane (x, y) holds bytes
 * 8(x + 5y) .. 8(x + 5y) + 7, least significant first). */
static void xor_byte(uint64_t A[25], size_t i, uint8_t b)
{
    A[i / 8] ^= (uint64_t)b << (8 * (i % 8));
}

static uint8_t get_byte(const uint64_t A[25], size_t i)
{
    return (uint8_t)(A[i / 8] >> (8 * (i % 8)));
}

/* SPONGE[Keccak-f[1600], pad10*1, r] on M || 1111 (Algorithm 8, 6.2). */
static void shake_ref(size_t rate, const uint8_t *in, size_t inlen,
                      uint8_t *out, size_t outlen)
{
    uint64_t A[25];
    size_t i, pos = 0;

    memset(A, 0, sizeof A);
    for (i = 0; i < inlen; i++) {
        xor_byte(A, pos++, in[i]);
        if (pos == rate) {
            keccak_f1600_ref(A);
            pos = 0;
        }
    }
    xor_byte(A, pos, 0x1F);      /* suffix 1111, then pad10*1's first 1 */
    xor_byte(A, rate - 1, 0x80); /* pad10*1's last 1 */
    keccak_f1600_ref(A);

    pos = 0;
    for (i = 0; i < outlen; i++) {
        if (pos == rate) {
            keccak_f1600_ref(A);
            pos = 0;
        }
        out[i] = get_byte(A, pos++);
    }
}

void shake128_ref(const uint8_t *in, size_t inlen, uint8_t *out, size_t outlen)
{
    shake_ref(168, in, inlen, out, outlen);
}

void shake256_ref(const uint8_t *in, size_t inlen, uint8_t *out, size_t outlen)
{
    shake_ref(136, in, inlen, out, outlen);
}
