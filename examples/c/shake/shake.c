/*
 * SHAKE128 or SHAKE256 (RATE 168 or 136) through cryptobench's `xof` kind, on the
 * portable FIPS 202 code of examples/c/ml-kem: CRYPTO_LANES messages of inlen bytes
 * in, as many outputs of outlen bytes out, one lane after another. The two-lane build
 * is the baseline an N-way implementation must beat.
 */
#include "api.h"
#include "fips202.h"

#ifndef CRYPTO_LANES
#define CRYPTO_LANES 1
#endif

int crypto_xof(unsigned char *out, unsigned long long outlen,
               const unsigned char *in, unsigned long long inlen) {
  for (unsigned long long l = 0; l < CRYPTO_LANES; l++) {
    keccak_state st;
    keccak_init(&st);
    keccak_absorb(&st, RATE, in + l * inlen, inlen);
    keccak_finalize(&st, RATE, SHAKE_DSBYTE);
    keccak_squeeze(&st, RATE, out + l * outlen, outlen);
  }
  return 0;
}
