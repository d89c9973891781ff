/* SUPERCOP sizes and entry points for crypto_scalarmult_curve25519 (X25519, RFC 7748). */
#define CRYPTO_BYTES 32
#define CRYPTO_SCALARBYTES 32

/* q = X25519(clamp(n), p): u-coordinates only, 32-byte little-endian strings. Both
 * functions always return 0, as in NaCl; an all-zero q (p of small order) is left for the
 * caller to reject, as RFC 7748 section 6.1 describes. */
int crypto_scalarmult(unsigned char *q, const unsigned char *n, const unsigned char *p);
int crypto_scalarmult_base(unsigned char *q, const unsigned char *n);
