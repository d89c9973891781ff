/*
 * Scalar, portable Keccak-f[1600] and SHAKE128/SHAKE256: the single-lane
 * reference the tests compare each NEON lane against.  Not part of the
 * benchmarked code; written for clarity, not speed.
 */
#ifndef KECCAK_REF_H
#define KECCAK_REF_H

#include <stddef.h>
#include <stdint.h>

/* Keccak-f[1600] in place; A[x + 5*y] is lane (x, y). */
void keccak_f1600_ref(uint64_t A[25]);

void shake128_ref(const uint8_t *in, size_t inlen, uint8_t *out, size_t outlen);
void shake256_ref(const uint8_t *in, size_t inlen, uint8_t *out, size_t outlen);

#endif /* KECCAK_REF_H */
