/*
 * Spook for cryptobench: Clyde-128, portable bitsliced implementation on four
 * 32-bit rows (identical in Spook v1 and v2).
 *
 * Clyde-128 is an LS-design tweakable block cipher: 6 steps of 2 rounds, each
 * round = S-box layer, L-box layer on the row pairs (0,1) and (2,3), round
 * constant W(r) (one bit per row, at bit 0); a tweakey is added before the
 * first step and after each step.
 */
#include "clyde_common.h"

static void clyde128_encrypt(uint8_t out[CLYDE128_BYTES],
                             const uint8_t in[CLYDE128_BYTES],
                             const uint8_t tweak[CLYDE128_BYTES],
                             const uint8_t key[CLYDE128_BYTES]) {
  uint32_t k[4], t[4], tk[3][4];
  for (int i = 0; i < 4; i++) {
    k[i] = spook_load32(key + 4 * i);
    t[i] = spook_load32(tweak + 4 * i);
  }
  /* Tweakey schedule: with the tweak split into 64-bit halves T = (t0 || t1)
   * (rows 0-1 and rows 2-3), the three tweakeys are
   *   TK0 = K ^ (t0 || t1), TK1 = K ^ (t0^t1 || t0), TK2 = K ^ (t1 || t0^t1),
   * used cyclically: TK0 before step 0, TK((s+1) mod 3) after step s. */
  for (int i = 0; i < 2; i++) {
    uint32_t lo = t[i], hi = t[i + 2], x = lo ^ hi;
    tk[0][i] = k[i] ^ lo;
    tk[0][i + 2] = k[i + 2] ^ hi;
    tk[1][i] = k[i] ^ x;
    tk[1][i + 2] = k[i + 2] ^ lo;
    tk[2][i] = k[i] ^ hi;
    tk[2][i + 2] = k[i + 2] ^ x;
  }

  uint32_t x0 = spook_load32(in) ^ tk[0][0];
  uint32_t x1 = spook_load32(in + 4) ^ tk[0][1];
  uint32_t x2 = spook_load32(in + 8) ^ tk[0][2];
  uint32_t x3 = spook_load32(in + 12) ^ tk[0][3];

  /* Fully unrolled (literal round numbers) so the constants fold. */
#define ROUND32(r)                                                             \
  do {                                                                         \
    SPOOK_SBOX32(x0, x1, x2, x3);                                              \
    SPOOK_LBOX32(x0, x1);                                                      \
    SPOOK_LBOX32(x2, x3);                                                      \
    x0 ^= SPOOK_RC_ROW(r, 0);                                                  \
    x1 ^= SPOOK_RC_ROW(r, 1);                                                  \
    x2 ^= SPOOK_RC_ROW(r, 2);                                                  \
    x3 ^= SPOOK_RC_ROW(r, 3);                                                  \
  } while (0)
#define STEP32(s)                                                              \
  do {                                                                         \
    ROUND32(2 * (s));                                                          \
    ROUND32(2 * (s) + 1);                                                      \
    x0 ^= tk[((s) + 1) % 3][0];                                                \
    x1 ^= tk[((s) + 1) % 3][1];                                                \
    x2 ^= tk[((s) + 1) % 3][2];                                                \
    x3 ^= tk[((s) + 1) % 3][3];                                                \
  } while (0)
  STEP32(0);
  STEP32(1);
  STEP32(2);
  STEP32(3);
  STEP32(4);
  STEP32(5);
#undef STEP32
#undef ROUND32

  spook_store32(out, x0);
  spook_store32(out + 4, x1);
  spook_store32(out + 8, x2);
  spook_store32(out + 12, x3);
}
