/*
 * Spook for cryptobench: Shadow-512 (v1 and v2) in one AVX-512 register.
 *
 * Needs AVX-512F (-march=skylake-avx512, icelake-server, znver4, or native on
 * such a machine); it refuses to compile otherwise.  Only AVX-512F
 * instructions are used (vprord/vprorvd, vpternlogd, masked moves,
 * vshufi32x4).
 *
 * Layout: the natural byte order of the state in one __m512i: 128-bit lane b
 * is bundle b, dword r of a lane is row r (as in shadow_256bit.c).  S-box and
 * L-box use in-lane dword shuffles only; the D-layer works on whole lanes
 * with vshufi32x4 lane rotations.  Three-input XOR/AND-XOR (vpternlogd) and
 * native rotates keep the per-step dependency chain short, which is what
 * bounds a single Shadow state.
 */
#if !defined(__AVX512F__)
#error "shadow_512bit.c needs AVX-512F (e.g. -march=skylake-avx512); use SPOOK_SHADOW=32, 128 or 256"
#endif
#include <immintrin.h>

#include "primitives.h"

typedef __m512i v512;

#define V_XOR(a, b) _mm512_xor_si512((a), (b))
#define V_XOR3(a, b, c) _mm512_ternarylogic_epi32((a), (b), (c), 0x96)
#define V_ANDXOR(a, b, c) _mm512_ternarylogic_epi32((a), (b), (c), 0x6a)
/* lane rotation: lane i <- lane (i + k) mod 4 */
#define V_LANEROT(x, k)                                                        \
  _mm512_shuffle_i32x4((x), (x), _MM_SHUFFLE(((k) + 3) & 3, ((k) + 2) & 3, ((k) + 1) & 3, (k)))

/* dword masks within every lane (bit 4b + r) and lane masks */
#define DW(r) ((__mmask16)(0x1111u << (r)))
#define LANE(b) ((__mmask16)(0xFu << (4 * (b))))

/* S-box (same construction as shadow_256bit.c): t_i = x_i x_{i+1} ^ x_{i+2}
 * gives y1 = t_0, y0 = t_3; y2 and y3 are then written into dwords 2 and 3
 * with masked ternary logic. */
SPOOK_INLINE v512 v_sbox(v512 x) {
  v512 x1 = _mm512_shuffle_epi32(x, _MM_SHUFFLE(0, 3, 2, 1)); /* x1 x2 x3 x0 */
  v512 x2 = _mm512_shuffle_epi32(x, _MM_SHUFFLE(1, 0, 3, 2)); /* x2 x3 x0 x1 */
  v512 t = V_ANDXOR(x, x1, x2);
  v512 s = _mm512_shuffle_epi32(t, _MM_SHUFFLE(0, 3, 0, 3)); /* y0 y1 y0 y1 */
  v512 u = _mm512_shuffle_epi32(t, _MM_SHUFFLE(0, 0, 0, 0)); /* y1 .. */
  /* dword 2: y0 & y1 ^ x3;  dword 3: y1 & x3 ^ x0 */
  s = _mm512_mask_ternarylogic_epi32(s, DW(2), u, x1, 0x6a);
  return _mm512_mask_ternarylogic_epi32(s, DW(3), x, x1, 0x6a);
}

/* L-box on both row pairs of every lane; rc is XORed in for free. */
SPOOK_INLINE v512 v_lbox(v512 x, v512 rc) {
  const v512 cross = _mm512_set4_epi32(25, 26, 25, 26); /* dwords 0..3: 26 25 26 25 */
  v512 a = V_XOR(x, _mm512_ror_epi32(x, 12));
  a = V_XOR3(a, _mm512_ror_epi32(a, 3), _mm512_ror_epi32(x, 17));
  v512 c = V_XOR(a, _mm512_ror_epi32(a, 31)); /* c (even dwords), d (odd) */
  v512 sw = _mm512_shuffle_epi32(c, _MM_SHUFFLE(2, 3, 0, 1));
  return V_XOR3(V_XOR(a, rc), _mm512_rorv_epi32(sw, cross), _mm512_ror_epi32(c, 15));
}

#if SPOOK_VERSION == 1
/* v1 constant W(r) << b in every lane b. */
#define V1_ROWS(r, b)                                                          \
  (int)(SPOOK_RC_ROW(r, 3) << (b)), (int)(SPOOK_RC_ROW(r, 2) << (b)),          \
      (int)(SPOOK_RC_ROW(r, 1) << (b)), (int)(SPOOK_RC_ROW(r, 0) << (b))
#define V1_RC(r)                                                               \
  _mm512_set_epi32(V1_ROWS(r, 3), V1_ROWS(r, 2), V1_ROWS(r, 1), V1_ROWS(r, 0))
#define RC_A(s) V1_RC(2 * (s))

/* v1 D-layer: lane b <- XOR of the three other lanes. */
#define V_DLAYER(s)                                                            \
  x = V_XOR(V_XOR3(V_LANEROT(x, 1), V_LANEROT(x, 2), V_LANEROT(x, 3)),         \
            V1_RC(2 * (s) + 1))
#else
#define RC_A(s)                                                                \
  _mm512_set_epi32(0, 0, (int)spook_shadow_v2_rc[s][3], 0, 0, 0,               \
                   (int)spook_shadow_v2_rc[s][2], 0, 0, 0,                     \
                   (int)spook_shadow_v2_rc[s][1], 0, 0, 0,                     \
                   (int)spook_shadow_v2_rc[s][0], 0)
#define RC_B(s)                                                                \
  _mm512_set_epi32(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,                         \
                   (int)spook_shadow_v2_rc[s][7], (int)spook_shadow_v2_rc[s][6], \
                   (int)spook_shadow_v2_rc[s][5], (int)spook_shadow_v2_rc[s][4])

/* v2 D-layer on the four bundles x_0..x_3 (lanes).  With a = x0^x1,
 * b = x2^x3, the D-box matrix (see shadow_32bit.c) is y = A0 ^ X A1 ^ X^2 A2,
 * lane by lane (0..3):
 *   A0 = (a, b, b, a^x3)          = x{0,2,3} ^ r1 ^ r2{1,3}
 *   A1 = (x1^b, x1^x2, x3, x0^b)  = r1 ^ x{1,3} ^ r3{0,3} ^ r2{0}
 *   A2 = (0, a, a, 0)             = x{1} ^ r2{2} ^ r3{1,2}
 * where r_k is x rotated by k lanes (lane i holds x_{i+k}) and v{S} keeps
 * lanes S of v, zero elsewhere (zero-masked shuffles give those directly).
 * In F_2[X]/(X^32 + X^8 + 1):
 *   X v   = rotl(v, 1) ^ ((v >> 31) << 8),
 *   X^2 v = rotl(v, 2) ^ ((v >> 30) << 8),
 * so both products are computed side by side (no X-after-X chain).
 * Constant B (rows of bundle 0) is folded into A0. */
#define V_LANEROT_Z(k, x, r)                                                   \
  _mm512_maskz_shuffle_i32x4((k), (x), (x),                                    \
                             _MM_SHUFFLE(((r) + 3) & 3, ((r) + 2) & 3,         \
                                         ((r) + 1) & 3, (r)))
#define V_DLAYER(s)                                                            \
  do {                                                                         \
    v512 r1_ = V_LANEROT(x, 1);                                                \
    v512 a0_ = V_XOR3(_mm512_maskz_mov_epi32(LANE(0) | LANE(2) | LANE(3),      \
                                             V_XOR(x, RC_B(s))),               \
                      r1_, V_LANEROT_Z(LANE(1) | LANE(3), x, 2));              \
    v512 a1_ = V_XOR3(V_XOR(r1_, _mm512_maskz_mov_epi32(LANE(1) | LANE(3), x)), \
                      V_LANEROT_Z(LANE(0) | LANE(3), x, 3),                    \
                      V_LANEROT_Z(LANE(0), x, 2));                             \
    v512 a2_ = V_XOR3(_mm512_maskz_mov_epi32(LANE(1), x),                      \
                      V_LANEROT_Z(LANE(2), x, 2),                              \
                      V_LANEROT_Z(LANE(1) | LANE(2), x, 3));                   \
    v512 lin_ = V_XOR3(a0_, _mm512_rol_epi32(a1_, 1), _mm512_rol_epi32(a2_, 2)); \
    x = V_XOR3(lin_, _mm512_slli_epi32(_mm512_srli_epi32(a1_, 31), 8),         \
               _mm512_slli_epi32(_mm512_srli_epi32(a2_, 30), 8));              \
  } while (0)
#endif

#define V_STEP(s)                                                              \
  do {                                                                         \
    x = v_sbox(v_lbox(v_sbox(x), RC_A(s)));                                    \
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
  v512 x = _mm512_load_si512((const void *)st->b);
  V_PERMUTE();
  _mm512_store_si512((void *)st->b, x);
}

#ifndef SPOOK_CORE
/* Full sponge blocks with the state kept in registers (see primitives.h):
 * the rate is the low 256 bits of x. */
static void shadow512_duplex(spook_state *st, uint8_t *out, const uint8_t *in,
                             size_t nblocks, int mode) {
  v512 x = _mm512_load_si512((const void *)st->b);
  for (; nblocks; nblocks--, in += SPOOK_RATE) {
    __m256i d = _mm256_loadu_si256((const __m256i *)in);
    if (mode == SPOOK_DUPLEX_DEC) {
      _mm256_storeu_si256((__m256i *)out,
                          _mm256_xor_si256(_mm512_castsi512_si256(x), d));
      x = _mm512_inserti64x4(x, d, 0);
    } else {
      x = V_XOR(x, _mm512_zextsi256_si512(d));
      if (mode == SPOOK_DUPLEX_ENC)
        _mm256_storeu_si256((__m256i *)out, _mm512_castsi512_si256(x));
    }
    if (mode != SPOOK_DUPLEX_AD) out += SPOOK_RATE;
    V_PERMUTE();
  }
  _mm512_store_si512((void *)st->b, x);
}
#endif
