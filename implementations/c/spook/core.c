/*
 * Spook for cryptobench: SUPERCOP-style crypto_core entry points, so that the
 * two primitives can be timed on their own.
 *
 *   -DSPOOK_CORE=clyde:  out(16) = Clyde-128(key = k[0..15], tweak = k[16..31],
 *                        block = in(16)); c unused (may be NULL).
 *   -DSPOOK_CORE=shadow: out(64) = Shadow-512(in(64)) (v1 or v2 after
 *                        SPOOK_VERSION); k and c unused.
 */
#include "api.h"
#include "primitives.h"

int crypto_core(unsigned char *out, const unsigned char *in,
                const unsigned char *k, const unsigned char *c) {
  (void)c;
#if SPOOK_CORE_ID == 1
  clyde128_encrypt(out, in, k + 16, k);
#else
  spook_state st;
  (void)k;
  memcpy(st.b, in, SHADOW512_BYTES);
  shadow512(&st);
  memcpy(out, st.b, SHADOW512_BYTES);
#endif
  return 0;
}
