/* Keccak-f[1600]'s state as crypto_core's input and output; no key. */
#define CRYPTO_INPUTBYTES 200
#define CRYPTO_OUTPUTBYTES 200
