/* examples/c/ml-kem's Keccak-f[1600] behind crypto_core, the state as 200 bytes: 25 lanes,
 * each little-endian (FIPS 202 section 3.1.2). FAULT_BIG_ENDIAN reads and writes the lanes
 * big-endian instead. */
#include <stdint.h>

#include "api.h"

void keccak_f1600(uint64_t s[25]);

static int byte_of_lane(int i) {
#ifdef FAULT_BIG_ENDIAN
  return 7 - i;
#else
  return i;
#endif
}

int crypto_core(unsigned char *out, const unsigned char *in, const unsigned char *k,
                const unsigned char *c) {
  (void)k;
  (void)c;
  uint64_t s[25] = {0};
  for (int l = 0; l < 25; l++)
    for (int i = 0; i < 8; i++) s[l] |= (uint64_t)in[8 * l + byte_of_lane(i)] << (8 * i);
  keccak_f1600(s);
  for (int l = 0; l < 25; l++)
    for (int i = 0; i < 8; i++) out[8 * l + byte_of_lane(i)] = (unsigned char)(s[l] >> (8 * i));
  return 0;
}
