/* Toy KEM and scalar multiplication builds for the tests of cryptobench's gates for
 * crypto_kem_* and crypto_scalarmult. None of this is cryptography.
 *
 * The KEM: pk = seed xor 0x5c, sk = seed; ct = m xor pk (the rest zero), ss = m; decaps
 * refuses a ciphertext that is not exactly enc(m). Round trips hold, so a build claiming
 * to be "toy-kem" passes; one claiming ML-KEM fails the known answers; FAULT_DECAPS
 * breaks the round trip; FAULT_SK_TAIL leaves the secret key past its 32 bytes unwritten
 * (round trips hold: only buffers filled two ways show it); FAULT_PK_PAST and FAULT_CT_PAST
 * write one byte past the public key and the ciphertext (only guards around them show it).
 * The scalar multiplication: q = n xor p, which a build claiming X25519 must fail on. */
#include <string.h>

#include "api.h"

int randombytes(unsigned char *x, unsigned long long n);

int crypto_kem_keypair(unsigned char *pk, unsigned char *sk) {
  unsigned char seed[64];
  randombytes(seed, sizeof seed);
  memset(pk, 0, CRYPTO_PUBLICKEYBYTES);
#ifndef FAULT_SK_TAIL
  memset(sk, 0, CRYPTO_SECRETKEYBYTES);
#endif
  for (int i = 0; i < 32; i++) {
    sk[i] = seed[i];
    pk[i] = seed[i] ^ 0x5c;
  }
#ifdef FAULT_PK_PAST
  pk[CRYPTO_PUBLICKEYBYTES] = 0x41;
#endif
  return 0;
}

int crypto_kem_enc(unsigned char *ct, unsigned char *ss, const unsigned char *pk) {
  unsigned char m[32];
  randombytes(m, sizeof m);
  memset(ct, 0, CRYPTO_CIPHERTEXTBYTES);
  for (int i = 0; i < 32; i++) {
    ct[i] = m[i] ^ pk[i];
    ss[i] = m[i];
  }
#ifdef FAULT_CT_PAST
  ct[CRYPTO_CIPHERTEXTBYTES] = 0x41;
#endif
  return 0;
}

int crypto_kem_dec(unsigned char *ss, const unsigned char *ct, const unsigned char *sk) {
  for (int i = 32; i < CRYPTO_CIPHERTEXTBYTES; i++)
    if (ct[i] != 0) return -1;
  for (int i = 0; i < 32; i++) ss[i] = ct[i] ^ sk[i] ^ 0x5c;
#ifdef FAULT_DECAPS
  ss[31] ^= 1;
#endif
  return 0;
}

int crypto_scalarmult(unsigned char *q, const unsigned char *n, const unsigned char *p) {
  for (int i = 0; i < CRYPTO_BYTES; i++) q[i] = n[i] ^ p[i];
  return 0;
}

int crypto_scalarmult_base(unsigned char *q, const unsigned char *n) {
  static const unsigned char nine[CRYPTO_BYTES] = {9};
  return crypto_scalarmult(q, n, nine);
}
