/*
 * Two-way Keccak-f[1600] and SHAKE128/SHAKE256 for AArch64 NEON.
 *
 * Written for cryptobench from FIPS 202.  Two independent Keccak states are
 * processed at once, one in each 64-bit lane of the 128-bit NEON registers:
 * a NEON register is exactly two Keccak lanes wide, so "x2" is the natural
 * width on AArch64 and every step mapping is a plain vertical operation
 * (no shuffles inside the permutation).
 *
 * Build: ARMv8.0-A NEON by default (any AArch64 CPU).  When the compiler
 * targets the ARMv8.2-A SHA-3 extension (e.g. -march=armv8.2-a+sha3, which
 * defines __ARM_FEATURE_SHA3), the permutation uses EOR3/RAX1/XAR/BCAX
 * instead.  Little-endian AArch64 only.
 */
#ifndef KECCAK_X2_NEON_H
#define KECCAK_X2_NEON_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Rates in bytes (1600 - 2 * security strength, in bits, / 8). */
#define KECCAK_X2_SHAKE128_RATE 168
#define KECCAK_X2_SHAKE256_RATE 136

/*
 * Apply Keccak-f[1600] to two states in place.  s[k][i] is lane i = x + 5*y
 * of state k, the FIPS 202 lane order (bytes 8i..8i+7 of the state string,
 * little-endian).
 */
void keccak_f1600_x2_neon(uint64_t s[2][25]);

/*
 * SHAKE128 / SHAKE256 of two messages of the same length, computed together.
 * out0 = SHAKE(in0[0..inlen)), out1 = SHAKE(in1[0..inlen)), each outlen
 * bytes.  Any inlen and outlen, including 0; no alignment required.  Inputs
 * may alias each other; outputs must not overlap inputs or each other.
 */
void shake128_x2_neon(const uint8_t *in0, const uint8_t *in1, size_t inlen,
                      uint8_t *out0, uint8_t *out1, size_t outlen);
void shake256_x2_neon(const uint8_t *in0, const uint8_t *in1, size_t inlen,
                      uint8_t *out0, uint8_t *out1, size_t outlen);

/* 1 if this object was compiled with the ARMv8.2-A SHA-3 instructions. */
int keccak_x2_neon_uses_sha3(void);

#ifdef __cplusplus
}
#endif

#endif /* KECCAK_X2_NEON_H */
