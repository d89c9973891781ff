/* A toy AEAD for the tests of cryptobench's AEAD gate. None of this is cryptography.
 *
 * The ciphertext is the message XOR a keystream drawn from the key and nonce; the tag is
 * two FNV-1a lanes over the key, the nonce, the AD and the ciphertext (with their
 * lengths), so that changing any one byte changes it. Faults chosen by -D flags, each
 * missed by round trips and a changed last tag byte:
 * FAULT_AD: the tag leaves the AD out (changed AD is accepted);
 * FAULT_CT: the tag leaves the ciphertext's last byte out (a changed ciphertext is
 *   accepted);
 * FAULT_HALF_TAG: decryption compares the second half of the tag only (a tag with a bit
 *   of its first byte flipped is accepted);
 * FAULT_LONG_CLEN: encryption says its output is one byte longer than it is (the gate
 *   must refuse a length beyond its buffer, not cut the buffer to it).
 * Limits, beyond the gate's longest message (16385 bytes), so that the gate passes them:
 * LIMIT_ENCRYPT: encryption returns -1 for longer messages;
 * LIMIT_DECRYPT: decryption returns -1 for longer messages. */
#include <stdint.h>
#include <string.h>

#include "api.h"

static uint64_t fnv(uint64_t h, const unsigned char *p, unsigned long long n) {
  for (unsigned long long i = 0; i < n; i++) h = (h ^ p[i]) * 0x100000001b3ULL;
  return h;
}

static uint64_t fnv_len(uint64_t h, unsigned long long n) {
  unsigned char b[8];
  for (int i = 0; i < 8; i++) b[i] = (unsigned char)(n >> (8 * i));
  return fnv(h, b, sizeof b);
}

static void xor_keystream(unsigned char *out, const unsigned char *in, unsigned long long n,
                          const unsigned char *npub, const unsigned char *k) {
  uint64_t s = fnv(fnv(0xcbf29ce484222325ULL, k, CRYPTO_KEYBYTES), npub, CRYPTO_NPUBBYTES) | 1;
  for (unsigned long long i = 0; i < n; i++) {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    out[i] = in[i] ^ (unsigned char)(s >> 24);
  }
}

static void tag(unsigned char *t, const unsigned char *c, unsigned long long clen,
                const unsigned char *ad, unsigned long long adlen, const unsigned char *npub,
                const unsigned char *k) {
#ifdef FAULT_AD
  adlen = 0;
#endif
#ifdef FAULT_CT
  if (clen > 0) clen--;
#endif
  for (int lane = 0; lane < 2; lane++) {
    uint64_t h = 0xcbf29ce484222325ULL + (uint64_t)lane;
    h = fnv(h, k, CRYPTO_KEYBYTES);
    h = fnv(h, npub, CRYPTO_NPUBBYTES);
    h = fnv(fnv_len(h, adlen), ad, adlen);
    h = fnv(fnv_len(h, clen), c, clen);
    for (int i = 0; i < 8; i++) t[8 * lane + i] = (unsigned char)(h >> (8 * i));
  }
}

int crypto_aead_encrypt(unsigned char *c, unsigned long long *clen, const unsigned char *m,
                        unsigned long long mlen, const unsigned char *ad,
                        unsigned long long adlen, const unsigned char *nsec,
                        const unsigned char *npub, const unsigned char *k) {
  (void)nsec;
#ifdef LIMIT_ENCRYPT
  if (mlen > 16385) return -1;
#endif
  xor_keystream(c, m, mlen, npub, k);
  tag(c + mlen, c, mlen, ad, adlen, npub, k);
  *clen = mlen + CRYPTO_ABYTES;
#ifdef FAULT_LONG_CLEN
  *clen += 1;
#endif
  return 0;
}

int crypto_aead_decrypt(unsigned char *m, unsigned long long *mlen, unsigned char *nsec,
                        const unsigned char *c, unsigned long long clen,
                        const unsigned char *ad, unsigned long long adlen,
                        const unsigned char *npub, const unsigned char *k) {
  (void)nsec;
  if (clen < CRYPTO_ABYTES) return -1;
  unsigned long long len = clen - CRYPTO_ABYTES;
#ifdef LIMIT_DECRYPT
  if (len > 16385) return -1;
#endif
  unsigned char t[CRYPTO_ABYTES];
  tag(t, c, len, ad, adlen, npub, k);
#ifdef FAULT_HALF_TAG
  int from = CRYPTO_ABYTES / 2;
#else
  int from = 0;
#endif
  if (memcmp(t + from, c + len + from, CRYPTO_ABYTES - from) != 0) return -1;
  xor_keystream(m, c, len, npub, k);
  *mlen = len;
  return 0;
}
