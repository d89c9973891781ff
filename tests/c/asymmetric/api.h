/* Sizes of ML-KEM-768 and X25519, so that the toys below pass the size checks and are
 * refused (or accepted) by what they compute. */
#define CRYPTO_PUBLICKEYBYTES 1184
#define CRYPTO_SECRETKEYBYTES 2400
#define CRYPTO_CIPHERTEXTBYTES 1088
#define CRYPTO_BYTES 32
#define CRYPTO_SCALARBYTES 32
