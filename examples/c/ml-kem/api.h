/* SUPERCOP sizes and entry points for crypto_kem_mlkem768 (FIPS 203 ML-KEM-768). */
#ifndef MLKEM_API_H
#define MLKEM_API_H

#define CRYPTO_PUBLICKEYBYTES 1184
#define CRYPTO_SECRETKEYBYTES 2400
#define CRYPTO_CIPHERTEXTBYTES 1088
#define CRYPTO_BYTES 32
#define CRYPTO_ALGNAME "ML-KEM-768"

/* Randomness comes from randombytes(): 64 bytes d || z per key pair, 32 bytes m
 * per encapsulation. All return 0 on success and -1 when an input fails the
 * FIPS 203 section 7 checks (modulus check on pk, hash check on sk). */
int crypto_kem_keypair(unsigned char *pk, unsigned char *sk);
int crypto_kem_enc(unsigned char *ct, unsigned char *ss, const unsigned char *pk);
int crypto_kem_dec(unsigned char *ss, const unsigned char *ct, const unsigned char *sk);

/* The same with the randomness as an argument: ML-KEM.KeyGen_internal(d, z)
 * with coins = d || z, and ML-KEM.Encaps_internal(ek, m) with coins = m. */
int crypto_kem_keypair_derand(unsigned char *pk, unsigned char *sk,
                              const unsigned char *coins);
int crypto_kem_enc_derand(unsigned char *ct, unsigned char *ss, const unsigned char *pk,
                          const unsigned char *coins);

#endif
