/*
 * Spook for cryptobench: Shadow-512 (v1 and v2) with 128-bit SSE vectors.
 *
 * Needs SSE2 only (so it builds for plain -march=x86-64).  When the target
 * also has AVX-512VL (e.g. -march=native on an AVX-512 machine) the same code
 * uses the VL forms of rotate (vprord) and three-input logic (vpternlogd) on
 * the same 128-bit registers; nothing else changes.  -DSPOOK_NO_AVX512VL
 * keeps the pure SSE2 code on such targets.
 *
 * Layout: four __m128i, R[r] = row r of bundles 0..3 (lane b = bundle b).
 * The S-box and L-box then work on all four bundles at once, exactly like the
 * 32-bit code works on one bundle.  The state is transposed into this layout
 * on entry and back on exit.  The D-layer mixes bundles, i.e. the lanes of
 * each R[r]:
 *   v1: every lane becomes the XOR of the other three (two in-register
 *       shuffles per row);
 *   v2: the state is transposed to bundle-major (B[b] = bundle b, lane r =
 *       row r), the D-box is applied vertically on B[0..3], and transposed
 *       back (2 x 8 unpack instructions per step).
 */
#if !defined(__SSE2__)
#error "shadow_128bit.c needs SSE2 (any x86-64 target)"
#endif
#include <immintrin.h>

#include "primitives.h"

typedef __m128i v128;

#if defined(__AVX512VL__) && !defined(SPOOK_NO_AVX512VL)
#define V_ROTR(x, n) _mm_ror_epi32((x), (n))
#define V_ROTL1(x) _mm_rol_epi32((x), 1)
/* a ^ b ^ c, (a & b) ^ c */
#define V_XOR3(a, b, c) _mm_ternarylogic_epi32((a), (b), (c), 0x96)
#define V_ANDXOR(a, b, c) _mm_ternarylogic_epi32((a), (b), (c), 0x6a)
#else
#define V_ROTR(x, n)                                                           \
  _mm_or_si128(_mm_srli_epi32((x), (n)), _mm_slli_epi32((x), 32 - (n)))
/* rotation left by 1: the left shift as an add frees a shift port */
#define V_ROTL1(x) _mm_or_si128(_mm_srli_epi32((x), 31), _mm_add_epi32((x), (x)))
#define V_XOR3(a, b, c) _mm_xor_si128(_mm_xor_si128((a), (b)), (c))
#define V_ANDXOR(a, b, c) _mm_xor_si128(_mm_and_si128((a), (b)), (c))
#endif
#define V_XOR(a, b) _mm_xor_si128((a), (b))

/* In-place 4x4 transpose of 32-bit lanes (its own inverse). */
#define V_TRANSPOSE(a, b, c, d)                                                \
  do {                                                                         \
    v128 t0_ = _mm_unpacklo_epi32((a), (b));                                   \
    v128 t1_ = _mm_unpacklo_epi32((c), (d));                                   \
    v128 t2_ = _mm_unpackhi_epi32((a), (b));                                   \
    v128 t3_ = _mm_unpackhi_epi32((c), (d));                                   \
    (a) = _mm_unpacklo_epi64(t0_, t1_);                                        \
    (b) = _mm_unpackhi_epi64(t0_, t1_);                                        \
    (c) = _mm_unpacklo_epi64(t2_, t3_);                                        \
    (d) = _mm_unpackhi_epi64(t2_, t3_);                                        \
  } while (0)

#define V_SBOX(x0, x1, x2, x3)                                                 \
  do {                                                                         \
    v128 y1_ = V_ANDXOR((x0), (x1), (x2));                                     \
    v128 y0_ = V_ANDXOR((x3), (x0), (x1));                                     \
    v128 y3_ = V_ANDXOR(y1_, (x3), (x0));                                      \
    v128 y2_ = V_ANDXOR(y0_, y1_, (x3));                                       \
    (x0) = y0_;                                                                \
    (x1) = y1_;                                                                \
    (x2) = y2_;                                                                \
    (x3) = y3_;                                                                \
  } while (0)

#define V_LBOX(x, y)                                                           \
  do {                                                                         \
    v128 a_ = V_XOR((x), V_ROTR((x), 12));                                     \
    v128 b_ = V_XOR((y), V_ROTR((y), 12));                                     \
    /* (a ^ rotr(x, 17)) first: x is ready before a (shorter chain) */         \
    a_ = V_XOR3(a_, V_ROTR((x), 17), V_ROTR(a_, 3));                           \
    b_ = V_XOR3(b_, V_ROTR((y), 17), V_ROTR(b_, 3));                           \
    v128 c_ = V_XOR(a_, V_ROTL1(a_)); /* rotl 1 == rotr 31 */                  \
    v128 d_ = V_XOR(b_, V_ROTL1(b_));                                          \
    (x) = V_XOR3(a_, V_ROTR(d_, 26), V_ROTR(c_, 15));                          \
    (y) = V_XOR3(b_, V_ROTR(c_, 25), V_ROTR(d_, 15));                          \
  } while (0)

#if SPOOK_VERSION == 1
/* Row vector of the v1 constant W(r) << b for row `row`: lane b = bit << b. */
#define V1_RC(r, row)                                                          \
  _mm_and_si128(_mm_set1_epi32(-(int32_t)SPOOK_RC_ROW((r), (row))),            \
                _mm_setr_epi32(1, 2, 4, 8))

/* v1 D-box on one row vector: lane b <- XOR of the other three lanes. */
#define V1_DBOX(x)                                                             \
  do {                                                                         \
    v128 t_ = V_XOR((x), _mm_shuffle_epi32((x), _MM_SHUFFLE(2, 3, 0, 1)));     \
    t_ = V_XOR(t_, _mm_shuffle_epi32(t_, _MM_SHUFFLE(1, 0, 3, 2)));            \
    (x) = V_XOR((x), t_); /* x ^ (x0^x1^x2^x3) */                              \
  } while (0)
#else
/* Multiplication by X in F_2[X]/(X^32 + X^8 + 1), lane-wise. */
SPOOK_INLINE v128 v_xtime(v128 x) {
  v128 carry = _mm_and_si128(_mm_srai_epi32(x, 31), _mm_set1_epi32(0x101));
  return V_XOR(_mm_add_epi32(x, x), carry);
}
#endif

/* One step.  Always inlined and called with a literal step number, so that
 * every round constant below folds into an immediate vector. */
#define V_STEP(s)                                                              \
  do {                                                                         \
    V_SBOX(x0, x1, x2, x3);                                                    \
    V_LBOX(x0, x1);                                                            \
    V_LBOX(x2, x3);                                                            \
    V_RC_A(s);                                                                 \
    V_SBOX(x0, x1, x2, x3);                                                    \
    V_DLAYER(s);                                                               \
  } while (0)

#if SPOOK_VERSION == 1
#define V_RC_A(s)                                                              \
  do {                                                                         \
    x0 = V_XOR(x0, V1_RC(2 * (s), 0));                                         \
    x1 = V_XOR(x1, V1_RC(2 * (s), 1));                                         \
    x2 = V_XOR(x2, V1_RC(2 * (s), 2));                                         \
    x3 = V_XOR(x3, V1_RC(2 * (s), 3));                                         \
  } while (0)
#define V_DLAYER(s)                                                            \
  do {                                                                         \
    V1_DBOX(x0);                                                               \
    V1_DBOX(x1);                                                               \
    V1_DBOX(x2);                                                               \
    V1_DBOX(x3);                                                               \
    x0 = V_XOR(x0, V1_RC(2 * (s) + 1, 0));                                     \
    x1 = V_XOR(x1, V1_RC(2 * (s) + 1, 1));                                     \
    x2 = V_XOR(x2, V1_RC(2 * (s) + 1, 2));                                     \
    x3 = V_XOR(x3, V1_RC(2 * (s) + 1, 3));                                     \
  } while (0)
#else
/* constant A: row 1 of bundle b gets rc[s][b] */
#define V_RC_A(s)                                                              \
  x1 = V_XOR(x1, _mm_loadu_si128((const v128 *)&spook_shadow_v2_rc[(s)][0]))
#define V_DLAYER(s)                                                            \
  do {                                                                         \
    V_TRANSPOSE(x0, x1, x2, x3); /* x_b = bundle b, lane r = row r */          \
    x0 = V_XOR(x0, x1);                                                        \
    x2 = V_XOR(x2, x3);                                                        \
    x1 = V_XOR(x1, x2);                                                        \
    x3 = V_XOR(x3, v_xtime(x0));                                               \
    x2 = V_XOR(x2, v_xtime(x3));                                               \
    x1 = v_xtime(x1);                                                          \
    x0 = V_XOR(x0, x1);                                                        \
    x3 = V_XOR(x3, x0);                                                        \
    x1 = V_XOR(x1, x2);                                                        \
    /* constant B: row r of bundle 0 gets rc[s][4 + r] */                      \
    x0 = V_XOR(x0, _mm_loadu_si128((const v128 *)&spook_shadow_v2_rc[(s)][4])); \
    V_TRANSPOSE(x0, x1, x2, x3);                                               \
  } while (0)
#endif

/* The permutation on bundle-major registers (x_b = bundle b, as in memory). */
#define V_PERMUTE()                                                            \
  do {                                                                         \
    V_TRANSPOSE(x0, x1, x2, x3); /* now x_r = row r of all bundles */          \
    V_STEP(0);                                                                 \
    V_STEP(1);                                                                 \
    V_STEP(2);                                                                 \
    V_STEP(3);                                                                 \
    V_STEP(4);                                                                 \
    V_STEP(5);                                                                 \
    V_TRANSPOSE(x0, x1, x2, x3);                                               \
  } while (0)

static void shadow512(spook_state *st) {
  v128 x0 = _mm_load_si128((const v128 *)(st->b + 0));
  v128 x1 = _mm_load_si128((const v128 *)(st->b + 16));
  v128 x2 = _mm_load_si128((const v128 *)(st->b + 32));
  v128 x3 = _mm_load_si128((const v128 *)(st->b + 48));
  V_PERMUTE();
  _mm_store_si128((v128 *)(st->b + 0), x0);
  _mm_store_si128((v128 *)(st->b + 16), x1);
  _mm_store_si128((v128 *)(st->b + 32), x2);
  _mm_store_si128((v128 *)(st->b + 48), x3);
}

#ifndef SPOOK_CORE
/* Full sponge blocks with the state kept in registers (see primitives.h). */
static void shadow512_duplex(spook_state *st, uint8_t *out, const uint8_t *in,
                             size_t nblocks, int mode) {
  v128 x0 = _mm_load_si128((const v128 *)(st->b + 0));
  v128 x1 = _mm_load_si128((const v128 *)(st->b + 16));
  v128 x2 = _mm_load_si128((const v128 *)(st->b + 32));
  v128 x3 = _mm_load_si128((const v128 *)(st->b + 48));
  for (; nblocks; nblocks--, in += SPOOK_RATE) {
    v128 d0 = _mm_loadu_si128((const v128 *)in);
    v128 d1 = _mm_loadu_si128((const v128 *)(in + 16));
    if (mode == SPOOK_DUPLEX_DEC) {
      _mm_storeu_si128((v128 *)out, V_XOR(x0, d0));
      _mm_storeu_si128((v128 *)(out + 16), V_XOR(x1, d1));
      x0 = d0;
      x1 = d1;
    } else {
      x0 = V_XOR(x0, d0);
      x1 = V_XOR(x1, d1);
      if (mode == SPOOK_DUPLEX_ENC) {
        _mm_storeu_si128((v128 *)out, x0);
        _mm_storeu_si128((v128 *)(out + 16), x1);
      }
    }
    if (mode != SPOOK_DUPLEX_AD) out += SPOOK_RATE;
    V_PERMUTE();
  }
  _mm_store_si128((v128 *)(st->b + 0), x0);
  _mm_store_si128((v128 *)(st->b + 16), x1);
  _mm_store_si128((v128 *)(st->b + 32), x2);
  _mm_store_si128((v128 *)(st->b + 48), x3);
}
#endif
