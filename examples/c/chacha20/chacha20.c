/*
 * ChaCha20 behind SUPERCOP's crypto_stream_xor, portable C99, written for
 * cryptobench. State words 12-13 are the block counter and 14-15 the 8-byte
 * nonce (djb's original layout, as SUPERCOP's crypto_stream_chacha20).
 *
 * CHACHA_LANES (default 1) computes that many blocks side by side with the
 * lane index innermost, a shape compilers vectorise for the target's SIMD
 * width: the `lanes8` variant is the "vectorised" counterpart of `scalar`.
 */
#include <stdint.h>
#include <string.h>

#include "api.h"

#ifndef CHACHA_LANES
#define CHACHA_LANES 1
#endif
#define L CHACHA_LANES

#define ROTL(x, n) (((x) << (n)) | ((x) >> (32 - (n))))
#define QR(a, b, c, d)                                   \
  for (int l = 0; l < L; l++) {                          \
    x[a][l] += x[b][l]; x[d][l] ^= x[a][l]; x[d][l] = ROTL(x[d][l], 16); \
    x[c][l] += x[d][l]; x[b][l] ^= x[c][l]; x[b][l] = ROTL(x[b][l], 12); \
    x[a][l] += x[b][l]; x[d][l] ^= x[a][l]; x[d][l] = ROTL(x[d][l], 8);  \
    x[c][l] += x[d][l]; x[b][l] ^= x[c][l]; x[b][l] = ROTL(x[b][l], 7);  \
  }

static uint32_t load_le32(const unsigned char *p) {
  return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

/* L consecutive keystream blocks starting at `counter`, into out[64 * L]. */
static void blocks(unsigned char *out, const uint32_t in[16], uint64_t counter) {
  uint32_t x[16][L], s[16][L];
  for (int i = 0; i < 16; i++)
    for (int l = 0; l < L; l++) s[i][l] = in[i];
  for (int l = 0; l < L; l++) {
    uint64_t c = counter + (uint64_t)l;
    s[12][l] = (uint32_t)c;
    s[13][l] = (uint32_t)(c >> 32);
  }
  memcpy(x, s, sizeof x);
  for (int r = 0; r < 10; r++) {
    QR(0, 4, 8, 12) QR(1, 5, 9, 13) QR(2, 6, 10, 14) QR(3, 7, 11, 15)
    QR(0, 5, 10, 15) QR(1, 6, 11, 12) QR(2, 7, 8, 13) QR(3, 4, 9, 14)
  }
  for (int l = 0; l < L; l++)
    for (int i = 0; i < 16; i++) {
      uint32_t v = x[i][l] + s[i][l];
      unsigned char *p = out + 64 * l + 4 * i;
      p[0] = (unsigned char)v;
      p[1] = (unsigned char)(v >> 8);
      p[2] = (unsigned char)(v >> 16);
      p[3] = (unsigned char)(v >> 24);
    }
}

int crypto_stream_xor(unsigned char *c, const unsigned char *m, unsigned long long mlen,
                      const unsigned char *n, const unsigned char *k) {
  uint32_t in[16] = {0x61707865, 0x3320646e, 0x79622d32, 0x6b206574};
  for (int i = 0; i < 8; i++) in[4 + i] = load_le32(k + 4 * i);
  in[14] = load_le32(n);
  in[15] = load_le32(n + 4);
  unsigned char ks[64 * L];
  uint64_t counter = 0;
  while (mlen > 0) {
    blocks(ks, in, counter);
    counter += L;
    size_t take = mlen < sizeof ks ? (size_t)mlen : sizeof ks;
    for (size_t i = 0; i < take; i++) c[i] = m[i] ^ ks[i];
    c += take;
    m += take;
    mlen -= take;
  }
  return 0;
}
