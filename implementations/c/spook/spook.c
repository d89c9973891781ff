/*
 * Spook for cryptobench: the Spook AEAD mode (S1P sponge with Shadow-512,
 * Clyde-128 for the initial state and the tag), NIST LWC API.
 *
 *   Spook-128-512-su: 16-byte key K, public tweak P = 0.
 *   Spook-128-512-mu: 32-byte "key" K || P, P being the public tweak with
 *                     its two top bits forced to 01 (byte 15: &0x7f, |0x40):
 *                     top bit 0 so that it never equals a tag tweak (top bit
 *                     1), next bit 1 so that it never equals su's P = 0.
 *
 * Sponge: rate 32 bytes (bundles 0-1), capacity 32 bytes.  With
 * B = Clyde_K(tweak P, block N):
 *   init (v1): state = P || N || 0^128 || B, then Shadow.
 *   init (v2): state = B || P || N || 0^128, then Shadow.
 *   AD:   each full 32-byte block is XORed into the rate, then Shadow; a
 *         partial last block is XORed, followed by a 0x01 byte, byte 32 of
 *         the state gets ^0x02 (partial-block flag), then Shadow.
 *   msg:  if the message is non-empty, byte 32 ^= 0x01 first; then the same
 *         duplexing, the ciphertext being the rate after the XOR.
 *   tag:  byte 31 |= 0x80; tag = Clyde_K(tweak = bytes 16..31,
 *         block = bytes 0..15).
 */
#include "api.h"
#include "primitives.h"

/* Initial state: B = Clyde_K(tweak P, block N) plus P, N, zeros. */
static void spook_init(spook_state *st, const uint8_t *key, const uint8_t *n) {
  uint8_t p[16];
#ifdef SPOOK_MODE_MU
  memcpy(p, key + 16, 16);
  p[15] = (uint8_t)((p[15] & 0x7f) | 0x40);
#else
  memset(p, 0, 16);
#endif
#if SPOOK_VERSION == 1
  memcpy(st->b, p, 16);
  memcpy(st->b + 16, n, 16);
  memset(st->b + 32, 0, 16);
  clyde128_encrypt(st->b + 48, n, p, key);
#else
  clyde128_encrypt(st->b, n, p, key);
  memcpy(st->b + 16, p, 16);
  memcpy(st->b + 32, n, 16);
  memset(st->b + 48, 0, 16);
#endif
  shadow512(st);
}

/* Absorb associated data. */
static void spook_absorb(spook_state *st, const uint8_t *ad,
                         unsigned long long adlen) {
  size_t full = (size_t)(adlen / SPOOK_RATE), rem = (size_t)(adlen % SPOOK_RATE);
  if (full) shadow512_duplex(st, NULL, ad, full, SPOOK_DUPLEX_AD);
  if (rem) {
    ad += full * SPOOK_RATE;
    for (size_t i = 0; i < rem; i++) st->b[i] ^= ad[i];
    st->b[rem] ^= 0x01;
    st->b[SPOOK_RATE] ^= 0x02;
    shadow512(st);
  }
}

static void spook_encrypt_data(spook_state *st, uint8_t *c, const uint8_t *m,
                               unsigned long long mlen) {
  if (!mlen) return;
  size_t full = (size_t)(mlen / SPOOK_RATE), rem = (size_t)(mlen % SPOOK_RATE);
  st->b[SPOOK_RATE] ^= 0x01;
  if (full) shadow512_duplex(st, c, m, full, SPOOK_DUPLEX_ENC);
  if (rem) {
    m += full * SPOOK_RATE;
    c += full * SPOOK_RATE;
    for (size_t i = 0; i < rem; i++) {
      st->b[i] ^= m[i];
      c[i] = st->b[i];
    }
    st->b[rem] ^= 0x01;
    st->b[SPOOK_RATE] ^= 0x02;
    shadow512(st);
  }
}

/* Decryption duplexing: m = rate ^ c, then the rate is replaced by c.  Every
 * piece of c is read before the corresponding piece of m is written, so
 * m == c works. */
static void spook_decrypt_data(spook_state *st, uint8_t *m, const uint8_t *c,
                               unsigned long long clen) {
  if (!clen) return;
  size_t full = (size_t)(clen / SPOOK_RATE), rem = (size_t)(clen % SPOOK_RATE);
  st->b[SPOOK_RATE] ^= 0x01;
  if (full) shadow512_duplex(st, m, c, full, SPOOK_DUPLEX_DEC);
  if (rem) {
    m += full * SPOOK_RATE;
    c += full * SPOOK_RATE;
    for (size_t i = 0; i < rem; i++) {
      uint8_t cb = c[i];
      m[i] = st->b[i] ^ cb;
      st->b[i] = cb;
    }
    st->b[rem] ^= 0x01;
    st->b[SPOOK_RATE] ^= 0x02;
    shadow512(st);
  }
}

static void spook_tag(spook_state *st, uint8_t tag[16], const uint8_t *key) {
  st->b[31] |= 0x80;
  clyde128_encrypt(tag, st->b, st->b + 16, key);
}

int crypto_aead_encrypt(unsigned char *c, unsigned long long *clen,
                        const unsigned char *m, unsigned long long mlen,
                        const unsigned char *ad, unsigned long long adlen,
                        const unsigned char *nsec, const unsigned char *npub,
                        const unsigned char *k) {
  spook_state st;
  (void)nsec;
  spook_init(&st, k, npub);
  spook_absorb(&st, ad, adlen);
  spook_encrypt_data(&st, c, m, mlen);
  spook_tag(&st, c + mlen, k);
  *clen = mlen + CRYPTO_ABYTES;
  return 0;
}

int crypto_aead_decrypt(unsigned char *m, unsigned long long *mlen,
                        unsigned char *nsec, const unsigned char *c,
                        unsigned long long clen, const unsigned char *ad,
                        unsigned long long adlen, const unsigned char *npub,
                        const unsigned char *k) {
  spook_state st;
  uint8_t tag[CRYPTO_ABYTES];
  (void)nsec;
  if (clen < CRYPTO_ABYTES) return -1;
  unsigned long long len = clen - CRYPTO_ABYTES;

  spook_init(&st, k, npub);
  spook_absorb(&st, ad, adlen);
  spook_decrypt_data(&st, m, c, len);
  spook_tag(&st, tag, k);

  /* Constant-time comparison (no early exit, no data-dependent branch before
   * the final decision). */
  uint32_t diff = 0;
  for (unsigned i = 0; i < CRYPTO_ABYTES; i++)
    diff |= (uint32_t)(tag[i] ^ c[len + i]);
  int ok = (int)(1 & ((diff - 1) >> 8)); /* 1 iff diff == 0 */
  if (!ok) {
    /* Do not release unauthenticated plaintext. */
    memset(m, 0, (size_t)len);
    *mlen = 0;
    return -1;
  }
  *mlen = len;
  return 0;
}
