/*
 * The Keccak-based functions of FIPS 202 that ML-KEM needs: SHA3-256 (H),
 * SHA3-512 (G), SHAKE-128 (XOF, read incrementally by SampleNTT) and
 * SHAKE-256 (PRF and J).
 *
 * Every function here is internal to the shared object: hidden visibility keeps
 * the names out of its dynamic symbol table (so they cannot collide with
 * anything else loaded in the process) and lets -fPIC code call them directly
 * rather than through the PLT.
 */
#ifndef MLKEM_FIPS202_H
#define MLKEM_FIPS202_H

#include <stddef.h>
#include <stdint.h>

#if defined(__GNUC__) && !defined(_WIN32)
#define FIPS202_INTERNAL __attribute__((visibility("hidden")))
#else
#define FIPS202_INTERNAL
#endif

/* Rates in bytes: 200 minus twice the security strength's capacity. */
#define SHAKE128_RATE 168
#define SHAKE256_RATE 136
#define SHA3_256_RATE 136
#define SHA3_512_RATE 72

/*
 * A sponge in progress. `pos` is how far into the current rate-sized block the
 * caller is: while absorbing, the bytes already XORed in; while squeezing, the
 * bytes already handed out (== rate when the next squeeze must permute first).
 */
typedef struct {
  uint64_t s[25];
  unsigned int pos;
} keccak_state;

FIPS202_INTERNAL void keccak_f1600(uint64_t s[25]);

/* The generic sponge, for any rate and FIPS 202 domain-separation byte. */
FIPS202_INTERNAL void keccak_init(keccak_state *st);
FIPS202_INTERNAL void keccak_absorb(keccak_state *st, unsigned int rate,
                                    const uint8_t *in, size_t inlen);
FIPS202_INTERNAL void keccak_finalize(keccak_state *st, unsigned int rate,
                                      uint8_t dsbyte);
FIPS202_INTERNAL void keccak_squeeze(keccak_state *st, unsigned int rate,
                                     uint8_t *out, size_t outlen);

/* SHAKE-128 as an incremental XOF: init, absorb..., finalize, squeeze... */
FIPS202_INTERNAL void shake128_init(keccak_state *st);
FIPS202_INTERNAL void shake128_absorb(keccak_state *st, const uint8_t *in,
                                      size_t inlen);
FIPS202_INTERNAL void shake128_finalize(keccak_state *st);
FIPS202_INTERNAL void shake128_squeeze(keccak_state *st, uint8_t *out,
                                       size_t outlen);

/* One-shot forms. */
FIPS202_INTERNAL void shake256(uint8_t *out, size_t outlen, const uint8_t *in,
                               size_t inlen);
FIPS202_INTERNAL void sha3_256(uint8_t out[32], const uint8_t *in,
                               size_t inlen);
FIPS202_INTERNAL void sha3_512(uint8_t out[64], const uint8_t *in,
                               size_t inlen);

/* FIPS 202 domain-separation bits plus the first bit of pad10*1. */
#define SHA3_DSBYTE 0x06
#define SHAKE_DSBYTE 0x1f

#endif
