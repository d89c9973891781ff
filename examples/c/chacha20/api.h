/* SUPERCOP sizes for crypto_stream_chacha20 (8-byte nonce, 64-bit block counter). */
#define CRYPTO_KEYBYTES 32
#define CRYPTO_NONCEBYTES 8
