/* SUPERCOP sizes for crypto_hash_sha256. */
#define CRYPTO_BYTES 32
