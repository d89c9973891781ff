/*
 * Spook for cryptobench: Shadow-512 (v1 and v2) with 256-bit AVX2 vectors.
 *
 * Needs AVX2 (-march=haswell or later; not buildable for plain x86-64).  When
 * the target also has AVX-512VL, rotates and three-input logic use the VL
 * forms (vprord/vprorvd/vpternlogd) on the same 256-bit registers
 * (-DSPOOK_NO_AVX512VL keeps the pure AVX2 code).
 *
 * Layout: the natural byte order of the state, two __m256i:
 *   p = bundles 0 | 1,  q = bundles 2 | 3,
 * i.e. every 128-bit lane is one bundle and dword r of a lane is row r.  With
 * this layout (unlike the row-major one of shadow_128bit.c, which would need
 * lane-crossing shuffles in every S-box here):
 *   - the S-box and the L-box only use in-lane dword shuffles (1-cycle
 *     pshufd / blends), and the L-box's two row pairs are handled by the same
 *     instructions (rotations are identical for the x and y rows; the final
 *     cross terms use a pair swap and a per-dword variable rotation);
 *   - only the D-layer crosses lanes (2 vperm2i128 per step), and no
 *     transposition is needed on entry/exit.
 * The dependency chain of one step is what limits this code (one Shadow state
 * offers little parallelism at two registers), so the layout was chosen for
 * latency rather than instruction count.
 */
#if !defined(__AVX2__)
#error "shadow_256bit.c needs AVX2 (e.g. -march=haswell); use SPOOK_SHADOW=32 or 128"
#endif
#include <immintrin.h>

#include "primitives.h"

typedef __m256i v256;

#define V_XOR(a, b) _mm256_xor_si256((a), (b))
#if defined(__AVX512VL__) && !defined(SPOOK_NO_AVX512VL)
#define V_ROTR(x, n) _mm256_ror_epi32((x), (n))
#define V_ROTL1(x) _mm256_rol_epi32((x), 1)
#define V_ROTRV(x, n) _mm256_rorv_epi32((x), (n))
#define V_XOR3(a, b, c) _mm256_ternarylogic_epi32((a), (b), (c), 0x96)
#define V_ANDXOR(a, b, c) _mm256_ternarylogic_epi32((a), (b), (c), 0x6a)
#else
#define V_ROTR(x, n)                                                           \
  _mm256_or_si256(_mm256_srli_epi32((x), (n)), _mm256_slli_epi32((x), 32 - (n)))
/* rotation left by 1: the left shift as an add frees a shift port */
#define V_ROTL1(x)                                                             \
  _mm256_or_si256(_mm256_srli_epi32((x), 31), _mm256_add_epi32((x), (x)))
#define V_ROTRV(x, n)                                                          \
  _mm256_or_si256(_mm256_srlv_epi32((x), (n)),                                 \
                  _mm256_sllv_epi32((x), _mm256_sub_epi32(_mm256_set1_epi32(32), (n))))
#define V_XOR3(a, b, c) V_XOR(V_XOR((a), (b)), (c))
#define V_ANDXOR(a, b, c) V_XOR(_mm256_and_si256((a), (b)), (c))
#endif

/* S-box on the four rows held as the dwords of every lane:
 *   t_i = x_i x_{i+1} ^ x_{i+2}  gives y1 = t_0 and y0 = t_3 directly;
 *   y2 = y0 y1 ^ x3 and y3 = y1 x3 ^ x0 are then computed in dwords 2, 3. */
SPOOK_INLINE v256 v_sbox(v256 x) {
  v256 x1 = _mm256_shuffle_epi32(x, _MM_SHUFFLE(0, 3, 2, 1)); /* x1 x2 x3 x0 */
  v256 x2 = _mm256_shuffle_epi32(x, _MM_SHUFFLE(1, 0, 3, 2)); /* x2 x3 x0 x1 */
  v256 t = V_ANDXOR(x, x1, x2);
  v256 s = _mm256_shuffle_epi32(t, _MM_SHUFFLE(0, 3, 0, 3)); /* y0 y1 y0 y1 */
  v256 u = _mm256_shuffle_epi32(t, _MM_SHUFFLE(0, 0, 0, 3)); /* y0 y1 y1 y1 */
#if defined(__AVX512VL__) && !defined(SPOOK_NO_AVX512VL)
  /* masked ternary logic writes dwords 2 and 3 in place */
  s = _mm256_mask_ternarylogic_epi32(s, 0x44, u, x1, 0x6a); /* y0 y1 ^ x3 */
  return _mm256_mask_ternarylogic_epi32(s, 0x88, x, x1, 0x6a); /* y1 x3 ^ x0 */
#else
  v256 m = _mm256_blend_epi32(u, x, 0x88);                   /* y0 y1 y1 x3 */
  v256 o = V_ANDXOR(s, m, x1); /* dword 2: y0 y1 ^ x3, dword 3: y1 x3 ^ x0 */
  return _mm256_blend_epi32(s, o, 0xCC);
#endif
}

/* L-box on both row pairs of every lane (even dwords: x rows, odd: y rows),
 * XORing constant rc into the result (free: off the critical path). */
SPOOK_INLINE v256 v_lbox(v256 x, v256 rc) {
  const v256 cross = _mm256_setr_epi32(26, 25, 26, 25, 26, 25, 26, 25);
  v256 a = V_XOR(x, V_ROTR(x, 12));
  a = V_XOR3(a, V_ROTR(x, 17), V_ROTR(a, 3)); /* x is ready before a */
  v256 c = V_XOR(a, V_ROTL1(a)); /* rotr 31; c (even dwords), d (odd) */
  v256 sw = _mm256_shuffle_epi32(c, _MM_SHUFFLE(2, 3, 0, 1)); /* d, c */
  return V_XOR3(V_XOR(a, rc), V_ROTRV(sw, cross), V_ROTR(c, 15));
}

#if SPOOK_VERSION == 1
/* v1 constant W(r) << b for the two bundles b = b0, b0 + 1 of one register. */
#define V1_RC(r, b0)                                                           \
  _mm256_setr_epi32(SPOOK_RC_ROW(r, 0) << (b0), SPOOK_RC_ROW(r, 1) << (b0),    \
                    SPOOK_RC_ROW(r, 2) << (b0), SPOOK_RC_ROW(r, 3) << (b0),    \
                    SPOOK_RC_ROW(r, 0) << ((b0) + 1),                          \
                    SPOOK_RC_ROW(r, 1) << ((b0) + 1),                          \
                    SPOOK_RC_ROW(r, 2) << ((b0) + 1),                          \
                    SPOOK_RC_ROW(r, 3) << ((b0) + 1))
#define RC_A_P(s) V1_RC(2 * (s), 0)
#define RC_A_Q(s) V1_RC(2 * (s), 2)

/* v1 D-layer: every bundle becomes the XOR of the three others. */
#define V_DLAYER(s)                                                            \
  do {                                                                         \
    v256 t_ = V_XOR(p, q);                       /* b0^b2 | b1^b3 */           \
    t_ = V_XOR(t_, _mm256_permute2x128_si256(t_, t_, 0x01)); /* sum | sum */   \
    p = V_XOR3(p, t_, V1_RC(2 * (s) + 1, 0));                                  \
    q = V_XOR3(q, t_, V1_RC(2 * (s) + 1, 2));                                  \
  } while (0)
#else
#define RC_A_P(s)                                                              \
  _mm256_setr_epi32(0, (int)spook_shadow_v2_rc[s][0], 0, 0, 0,                 \
                    (int)spook_shadow_v2_rc[s][1], 0, 0)
#define RC_A_Q(s)                                                              \
  _mm256_setr_epi32(0, (int)spook_shadow_v2_rc[s][2], 0, 0, 0,                 \
                    (int)spook_shadow_v2_rc[s][3], 0, 0)

/* Products by X and X^2 in F_2[X]/(X^32 + X^8 + 1), per dword:
 *   X v   = rotl(v, 1) ^ ((v >> 31) << 8) = (v + v) ^ ((v >>s 31) & 0x101)
 *   X^2 v = rotl(v, 2) ^ ((v >> 30) << 8) = (v << 2) ^ t ^ (t << 8), t = v >> 30
 * Returns w ^ X v1 ^ X^2 v2 (the two products side by side, not chained). */
SPOOK_INLINE v256 v_xor_x_x2(v256 w, v256 v1, v256 v2) {
  v256 c1 = _mm256_and_si256(_mm256_srai_epi32(v1, 31), _mm256_set1_epi32(0x101));
  v256 t2 = _mm256_srli_epi32(v2, 30);
  v256 l = V_XOR3(w, _mm256_add_epi32(v1, v1), _mm256_slli_epi32(v2, 2));
  return V_XOR3(l, c1, V_XOR(t2, _mm256_slli_epi32(t2, 8)));
}

/* v2 D-layer.  With bundles x0..x3 (lanes of p = x0|x1, q = x2|x3), the
 * D-box matrix (see shadow_32bit.c) is evaluated per bundle as
 *   y = A0 ^ X A1 ^ X^2 A2, with a = x0^x1, b = x2^x3 and
 *   A0 = (a,      b,     b,  a^x3),
 *   A1 = (x1^b,   x1^x2, x3, x0^b),
 *   A2 = (0,      a,     a,  0),
 * which needs each register and its lane-swapped copy only. */
#define V_DLAYER(s)                                                            \
  do {                                                                         \
    v256 sp_ = _mm256_permute2x128_si256(p, p, 0x01); /* x1 | x0 */            \
    v256 sq_ = _mm256_permute2x128_si256(q, q, 0x01); /* x3 | x2 */            \
    v256 aa_ = V_XOR(p, sp_);                         /* a | a */              \
    v256 bb_ = V_XOR(q, sq_);                         /* b | b */              \
    v256 a0p_ = _mm256_blend_epi32(aa_, bb_, 0xF0);   /* a | b */              \
    v256 a0q_ = _mm256_blend_epi32(bb_, V_XOR(aa_, q), 0xF0); /* b | a^x3 */   \
    v256 sb_ = V_XOR(sp_, bb_);                       /* x1^b | x0^b */        \
    v256 a1p_ = _mm256_blend_epi32(sb_, V_XOR(p, sq_), 0xF0); /* .| x1^x2 */   \
    v256 a1q_ = _mm256_blend_epi32(sq_, sb_, 0xF0);   /* x3 | x0^b */          \
    v256 a2p_ = _mm256_blend_epi32(_mm256_setzero_si256(), aa_, 0xF0);         \
    v256 a2q_ = _mm256_blend_epi32(aa_, _mm256_setzero_si256(), 0xF0);         \
    /* constant B: row r of bundle 0 */                                        \
    a0p_ = V_XOR(a0p_, _mm256_setr_epi32((int)spook_shadow_v2_rc[s][4],        \
                                         (int)spook_shadow_v2_rc[s][5],        \
                                         (int)spook_shadow_v2_rc[s][6],        \
                                         (int)spook_shadow_v2_rc[s][7], 0, 0,  \
                                         0, 0));                               \
    p = v_xor_x_x2(a0p_, a1p_, a2p_);                                          \
    q = v_xor_x_x2(a0q_, a1q_, a2q_);                                          \
  } while (0)
#endif

#define V_STEP(s)                                                              \
  do {                                                                         \
    p = v_sbox(v_lbox(v_sbox(p), RC_A_P(s)));                                  \
    q = v_sbox(v_lbox(v_sbox(q), RC_A_Q(s)));                                  \
    V_DLAYER(s);                                                               \
  } while (0)

#define V_PERMUTE()                                                            \
  do {                                                                         \
    V_STEP(0);                                                                 \
    V_STEP(1);                                                                 \
    V_STEP(2);                                                                 \
    V_STEP(3);                                                                 \
    V_STEP(4);                                                                 \
    V_STEP(5);                                                                 \
  } while (0)

static void shadow512(spook_state *st) {
  v256 p = _mm256_load_si256((const v256 *)(st->b + 0));
  v256 q = _mm256_load_si256((const v256 *)(st->b + 32));
  V_PERMUTE();
  _mm256_store_si256((v256 *)(st->b + 0), p);
  _mm256_store_si256((v256 *)(st->b + 32), q);
}

#ifndef SPOOK_CORE
/* Full sponge blocks with the state kept in registers (see primitives.h):
 * the rate is exactly register p. */
static void shadow512_duplex(spook_state *st, uint8_t *out, const uint8_t *in,
                             size_t nblocks, int mode) {
  v256 p = _mm256_load_si256((const v256 *)(st->b + 0));
  v256 q = _mm256_load_si256((const v256 *)(st->b + 32));
  for (; nblocks; nblocks--, in += SPOOK_RATE) {
    v256 d = _mm256_loadu_si256((const v256 *)in);
    if (mode == SPOOK_DUPLEX_DEC) {
      _mm256_storeu_si256((v256 *)out, V_XOR(p, d));
      p = d;
    } else {
      p = V_XOR(p, d);
      if (mode == SPOOK_DUPLEX_ENC) _mm256_storeu_si256((v256 *)out, p);
    }
    if (mode != SPOOK_DUPLEX_AD) out += SPOOK_RATE;
    V_PERMUTE();
  }
  _mm256_store_si256((v256 *)(st->b + 0), p);
  _mm256_store_si256((v256 *)(st->b + 32), q);
}
#endif
