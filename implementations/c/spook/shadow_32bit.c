/*
 * Spook for cryptobench: Shadow-512, portable implementation on 32-bit rows.
 *
 * Shadow-512 is a multiple-LS design over 4 bundles (each a Clyde-128-shaped
 * 4x32-bit state).  One step (6 in total) is:
 *   for each bundle: S-box layer, L-box layer, round constant A, S-box layer
 *   D-layer (mixes the 4 bundles, row by row), round constant B.
 *
 * v1: constant A of step s is W(2s) << b on bundle b (W = the Clyde constants,
 *     one bit per row), constant B is W(2s+1) << b; D-layer: every bundle
 *     becomes the XOR of the three others (the 4x4 matrix J - I).
 * v2: constants from a 32-bit LFSR (spook_shadow_v2_rc): A adds one word to
 *     row 1 of every bundle, B one word to each row of bundle 0; D-layer is an
 *     MDS-like matrix over F_2[X]/(X^32 + X^8 + 1), see shadow_dbox_v2 below.
 */
#include "clyde_common.h"

/* Keep this implementation scalar.  At -O3 GCC packs the four identical
 * bundle computations into SIMD registers (SLP vectorization), which turns
 * the "32-bit" variant into a compiler-made cousin of shadow_128bit (slower
 * than it, faster than scalar code on some targets) and blurs the comparison
 * between variants.  Clang's SLP vectorizer finds little to do here. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC push_options
#pragma GCC optimize("no-tree-vectorize")
#endif

#if SPOOK_VERSION == 2
/* Multiplication by X in F_2[X]/(X^32 + X^8 + 1): a left rotation by one,
 * with the bit that wrapped around also fed back at position 8. */
SPOOK_INLINE uint32_t spook_xtime32(uint32_t x) {
  return (x << 1) ^ ((uint32_t)(0u - (x >> 31)) & 0x101u);
}

/* v2 D-box on one row (x0..x3 = that row of bundles 0..3).  As a matrix over
 * the ring above it is
 *   y0 = x0        + (1+X) x1  + X x2      + X x3
 *   y1 = X^2 x0    + (X^2+X) x1 + (1+X) x2 + x3
 *   y2 = X^2 x0    + X^2 x1    + x2        + (1+X) x3
 *   y3 = (1+X) x0  + x1        + X x2      + (1+X) x3
 * computed with the designers' 9-XOR / 3-xtime sequence. */
#define SPOOK_DBOX_V2_32(x0, x1, x2, x3)                                       \
  do {                                                                         \
    (x0) ^= (x1);                                                              \
    (x2) ^= (x3);                                                              \
    (x1) ^= (x2);                                                              \
    (x3) ^= spook_xtime32(x0);                                                 \
    (x2) ^= spook_xtime32(x3);                                                 \
    (x1) = spook_xtime32(x1);                                                  \
    (x0) ^= (x1);                                                              \
    (x3) ^= (x0);                                                              \
    (x1) ^= (x2);                                                              \
  } while (0)
#endif

/* One step on x[bundle][row].  Always inlined with a literal step number so
 * that the constants fold (and the compiler sees straight-line code). */
SPOOK_INLINE void shadow_step(uint32_t x[4][4], const int s) {
  for (int b = 0; b < 4; b++) {
    SPOOK_SBOX32(x[b][0], x[b][1], x[b][2], x[b][3]);
    SPOOK_LBOX32(x[b][0], x[b][1]);
    SPOOK_LBOX32(x[b][2], x[b][3]);
#if SPOOK_VERSION == 1
    for (int r = 0; r < 4; r++) x[b][r] ^= SPOOK_RC_ROW(2 * s, r) << b;
#else
    x[b][1] ^= spook_shadow_v2_rc[s][b];
#endif
    SPOOK_SBOX32(x[b][0], x[b][1], x[b][2], x[b][3]);
  }
  for (int r = 0; r < 4; r++) {
#if SPOOK_VERSION == 1
    uint32_t all = x[0][r] ^ x[1][r] ^ x[2][r] ^ x[3][r];
    for (int b = 0; b < 4; b++)
      x[b][r] ^= all ^ (SPOOK_RC_ROW(2 * s + 1, r) << b);
#else
    SPOOK_DBOX_V2_32(x[0][r], x[1][r], x[2][r], x[3][r]);
    x[0][r] ^= spook_shadow_v2_rc[s][4 + r];
#endif
  }
}

static void shadow512(spook_state *st) {
  uint32_t x[4][4]; /* x[bundle][row] */
  for (int b = 0; b < 4; b++)
    for (int r = 0; r < 4; r++) x[b][r] = spook_load32(st->b + 16 * b + 4 * r);
  shadow_step(x, 0);
  shadow_step(x, 1);
  shadow_step(x, 2);
  shadow_step(x, 3);
  shadow_step(x, 4);
  shadow_step(x, 5);
  for (int b = 0; b < 4; b++)
    for (int r = 0; r < 4; r++) spook_store32(st->b + 16 * b + 4 * r, x[b][r]);
}

#ifndef SPOOK_CORE
/* Full sponge blocks (see primitives.h). */
static void shadow512_duplex(spook_state *st, uint8_t *out, const uint8_t *in,
                             size_t nblocks, int mode) {
  for (; nblocks; nblocks--, in += SPOOK_RATE) {
    for (int i = 0; i < SPOOK_RATE / 8; i++) {
      uint64_t d = spook_load64(in + 8 * i);
      if (mode == SPOOK_DUPLEX_DEC) {
        spook_store64(out + 8 * i, st->q[i] ^ d);
        st->q[i] = d;
      } else {
        st->q[i] ^= d;
        if (mode == SPOOK_DUPLEX_ENC) spook_store64(out + 8 * i, st->q[i]);
      }
    }
    if (mode != SPOOK_DUPLEX_AD) out += SPOOK_RATE;
    shadow512(st);
  }
}
#endif

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC pop_options
#endif
