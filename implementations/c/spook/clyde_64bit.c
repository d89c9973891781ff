/*
 * Spook for cryptobench: Clyde-128 on two 64-bit registers (identical in
 * Spook v1 and v2).
 *
 * Representation: the two rows of each L-box pair are bit-interleaved,
 *   w01 = zip(x0, x1),  w23 = zip(x2, x3),
 * with row x0 (resp. x2) in the even bit positions and x1 (x3) in the odd
 * ones.  A right rotation of both 32-bit rows by r is then one 64-bit
 * rotation by 2r, so each L-box pair costs about half the instructions of the
 * 32-bit code.  The S-box needs the four rows aligned bit for bit, which is
 * obtained with 1-bit shifts of the interleaved words (results are collected
 * in the even/odd slots and merged under a mask).
 *
 * The (un)interleaving happens once on entry and once on exit (and for the
 * key and tweak); with BMI2 it is pdep/pext, otherwise a portable
 * shift-and-mask "perfect shuffle".  Note: pdep/pext are slow (microcoded) on
 * AMD before Zen 3; the portable path is used whenever __BMI2__ is absent.
 */
#include "primitives.h"

#if defined(__BMI2__) && defined(__x86_64__)
#include <immintrin.h>
#endif

#define EVEN64 0x5555555555555555ull
#define ODD64 0xAAAAAAAAAAAAAAAAull

/* zip(lo, hi): bit i of lo -> bit 2i, bit i of hi -> bit 2i+1. */
SPOOK_INLINE uint64_t zip32(uint32_t lo, uint32_t hi) {
#if defined(__BMI2__) && defined(__x86_64__)
  return _pdep_u64(lo, EVEN64) | _pdep_u64(hi, ODD64);
#else
  /* Perfect shuffle of the 64-bit word hi:lo by four delta swaps. */
  uint64_t x = ((uint64_t)hi << 32) | lo, t;
  t = (x ^ (x >> 16)) & 0x00000000FFFF0000ull; x ^= t ^ (t << 16);
  t = (x ^ (x >> 8)) & 0x0000FF000000FF00ull;  x ^= t ^ (t << 8);
  t = (x ^ (x >> 4)) & 0x00F000F000F000F0ull;  x ^= t ^ (t << 4);
  t = (x ^ (x >> 2)) & 0x0C0C0C0C0C0C0C0Cull;  x ^= t ^ (t << 2);
  t = (x ^ (x >> 1)) & 0x2222222222222222ull;  x ^= t ^ (t << 1);
  return x;
#endif
}

/* unzip: inverse of zip32. */
SPOOK_INLINE void unzip32(uint64_t w, uint32_t *lo, uint32_t *hi) {
#if defined(__BMI2__) && defined(__x86_64__)
  *lo = (uint32_t)_pext_u64(w, EVEN64);
  *hi = (uint32_t)_pext_u64(w, ODD64);
#else
  uint64_t x = w, t;
  t = (x ^ (x >> 1)) & 0x2222222222222222ull;  x ^= t ^ (t << 1);
  t = (x ^ (x >> 2)) & 0x0C0C0C0C0C0C0C0Cull;  x ^= t ^ (t << 2);
  t = (x ^ (x >> 4)) & 0x00F000F000F000F0ull;  x ^= t ^ (t << 4);
  t = (x ^ (x >> 8)) & 0x0000FF000000FF00ull;  x ^= t ^ (t << 8);
  t = (x ^ (x >> 16)) & 0x00000000FFFF0000ull; x ^= t ^ (t << 16);
  *lo = (uint32_t)x;
  *hi = (uint32_t)(x >> 32);
#endif
}

/* S-box on the interleaved pair words (see clyde_common.h for the formulas).
 * Values are computed in the slot where they are needed: y0 (even) and y1
 * (odd) form the new w01, y2 (even) and y3 (odd) the new w23. */
#define SBOX64(w01, w23)                                                       \
  do {                                                                         \
    uint64_t x1e_ = (w01) >> 1;   /* x1 in even slots */                       \
    uint64_t x0o_ = (w01) << 1;   /* x0 in odd slots  */                       \
    uint64_t x3e_ = (w23) >> 1;   /* x3 in even slots */                       \
    uint64_t x2o_ = (w23) << 1;   /* x2 in odd slots  */                       \
    uint64_t y0_ = ((w01) & x3e_) ^ x1e_;          /* even: x0 x3 ^ x1 */      \
    uint64_t y1_ = ((w01) & x0o_) ^ x2o_;          /* odd:  x0 x1 ^ x2 */      \
    uint64_t n01_ = (y0_ & EVEN64) | (y1_ & ODD64);                            \
    uint64_t y2_ = (n01_ & (n01_ >> 1)) ^ x3e_;    /* even: y0 y1 ^ x3 */      \
    uint64_t y3_ = (n01_ & (w23)) ^ x0o_;          /* odd:  y1 x3 ^ x0 */      \
    (w23) = (y2_ & EVEN64) | (y3_ & ODD64);                                    \
    (w01) = n01_;                                                              \
  } while (0)

/* L-box on an interleaved pair w = zip(x, y).  Rotating both rows by r is a
 * 64-bit rotation by 2r.  The cross terms x ^= rotr(d, 26), y ^= rotr(c, 25)
 * have different amounts: rotr64(zip(c, d), 53) puts rotr(d, 26) in the even
 * slots, rotr64(.., 49) puts rotr(c, 25) in the odd slots. */
#define LBOX64(w)                                                              \
  do {                                                                         \
    uint64_t a_ = (w) ^ spook_rotr64((w), 24);                                 \
    a_ ^= spook_rotr64(a_, 6) ^ spook_rotr64((w), 34);                         \
    uint64_t c_ = a_ ^ spook_rotr64(a_, 62);                                   \
    a_ ^= (spook_rotr64(c_, 53) & EVEN64) | (spook_rotr64(c_, 49) & ODD64);    \
    (w) = a_ ^ spook_rotr64(c_, 30);                                           \
  } while (0)

static void clyde128_encrypt(uint8_t out[CLYDE128_BYTES],
                             const uint8_t in[CLYDE128_BYTES],
                             const uint8_t tweak[CLYDE128_BYTES],
                             const uint8_t key[CLYDE128_BYTES]) {
  uint64_t k01 = zip32(spook_load32(key), spook_load32(key + 4));
  uint64_t k23 = zip32(spook_load32(key + 8), spook_load32(key + 12));
  uint64_t t01 = zip32(spook_load32(tweak), spook_load32(tweak + 4));
  uint64_t t23 = zip32(spook_load32(tweak + 8), spook_load32(tweak + 12));
  /* Tweakeys (see clyde_32bit.c), one (rows 0-1, rows 2-3) pair each. */
  const uint64_t tk[3][2] = {{k01 ^ t01, k23 ^ t23},
                             {k01 ^ t01 ^ t23, k23 ^ t01},
                             {k01 ^ t23, k23 ^ t01 ^ t23}};

  uint64_t w01 = zip32(spook_load32(in), spook_load32(in + 4)) ^ tk[0][0];
  uint64_t w23 = zip32(spook_load32(in + 8), spook_load32(in + 12)) ^ tk[0][1];

  /* Fully unrolled (literal round numbers) so the constants fold. */
#define ROUND64(r)                                                             \
  do {                                                                         \
    SBOX64(w01, w23);                                                          \
    LBOX64(w01);                                                               \
    LBOX64(w23);                                                               \
    /* W(r): row 0 -> bit 0 of w01, row 1 -> bit 1, rows 2/3 -> w23 */         \
    w01 ^= SPOOK_RC_ROW(r, 0) | (SPOOK_RC_ROW(r, 1) << 1);                     \
    w23 ^= SPOOK_RC_ROW(r, 2) | (SPOOK_RC_ROW(r, 3) << 1);                     \
  } while (0)
#define STEP64(s)                                                              \
  do {                                                                         \
    ROUND64(2 * (s));                                                          \
    ROUND64(2 * (s) + 1);                                                      \
    w01 ^= tk[((s) + 1) % 3][0];                                               \
    w23 ^= tk[((s) + 1) % 3][1];                                               \
  } while (0)
  STEP64(0);
  STEP64(1);
  STEP64(2);
  STEP64(3);
  STEP64(4);
  STEP64(5);
#undef STEP64
#undef ROUND64

  uint32_t x0, x1, x2, x3;
  unzip32(w01, &x0, &x1);
  unzip32(w23, &x2, &x3);
  spook_store32(out, x0);
  spook_store32(out + 4, x1);
  spook_store32(out + 8, x2);
  spook_store32(out + 12, x3);
}
