/*
 * Spook (NIST LWC candidate, UCLouvain) for cryptobench: shared definitions.
 *
 * Written for this project from the Spook v1 / v2 specifications.  All
 * sources are meant to be compiled together through spook_all.c (a unity
 * build), so every internal function is `static` and a shared object built
 * from it exports only the NIST LWC / SUPERCOP entry points.
 *
 * Conventions used everywhere (as in the specification):
 *   - A Clyde-128 state / key / tweak is 16 bytes = 4 rows of 32 bits, row i
 *     being the little-endian word at byte offset 4*i.  The state is
 *     bitsliced: bit j of row i is bit i of the j-th 4-bit S-box input, so
 *     the S-box layer is a handful of word-wide logic operations.
 *   - A Shadow-512 state is 64 bytes = 4 bundles of 16 bytes; bundle b is a
 *     Clyde-128-shaped state (4 rows) at byte offset 16*b.
 */
#ifndef SPOOK_PRIMITIVES_H
#define SPOOK_PRIMITIVES_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define CLYDE128_BYTES 16
#define SHADOW512_BYTES 64

/* ---- variant selection (compile-time flags, see README.md) ---- */
#ifndef SPOOK_VERSION
#define SPOOK_VERSION 2
#endif
#if SPOOK_VERSION != 1 && SPOOK_VERSION != 2
#error "SPOOK_VERSION must be 1 or 2"
#endif
#ifndef SPOOK_CLYDE
#define SPOOK_CLYDE 32
#endif
#ifndef SPOOK_SHADOW
#define SPOOK_SHADOW 32
#endif

#if defined(__GNUC__) || defined(__clang__)
#define SPOOK_ALIGN(n) __attribute__((aligned(n)))
#define SPOOK_INLINE static inline __attribute__((always_inline))
#else
#define SPOOK_ALIGN(n)
#define SPOOK_INLINE static inline
#endif

/* A Shadow state as the mode sees it: the 64 bytes of the specification,
 * aligned so that SIMD implementations can use aligned loads/stores. */
typedef union {
  uint8_t b[SHADOW512_BYTES];
  uint64_t q[SHADOW512_BYTES / 8];
} SPOOK_ALIGN(64) spook_state;

/* ---- byte order helpers (compile to plain loads on little-endian) ---- */
#if defined(__BYTE_ORDER__) && defined(__ORDER_BIG_ENDIAN__) &&                \
    __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define SPOOK_BIG_ENDIAN 1
#endif

SPOOK_INLINE uint32_t spook_load32(const uint8_t *p) {
  uint32_t x;
  memcpy(&x, p, 4);
#ifdef SPOOK_BIG_ENDIAN
  x = __builtin_bswap32(x);
#endif
  return x;
}

SPOOK_INLINE void spook_store32(uint8_t *p, uint32_t x) {
#ifdef SPOOK_BIG_ENDIAN
  x = __builtin_bswap32(x);
#endif
  memcpy(p, &x, 4);
}

SPOOK_INLINE uint64_t spook_load64(const uint8_t *p) {
  uint64_t x;
  memcpy(&x, p, 8);
  return x; /* used only for XORs/copies: byte order irrelevant */
}

SPOOK_INLINE void spook_store64(uint8_t *p, uint64_t x) { memcpy(p, &x, 8); }

/* Rotations.  The specification's L-box is written with right rotations. */
SPOOK_INLINE uint32_t spook_rotr32(uint32_t x, unsigned n) {
  return (x >> (n & 31)) | (x << ((32 - n) & 31));
}
SPOOK_INLINE uint64_t spook_rotr64(uint64_t x, unsigned n) {
  return (x >> (n & 63)) | (x << ((64 - n) & 63));
}

/* ---- the primitives ----
 * Exactly one implementation of each is #included by spook_all.c (only the
 * one a build needs), each defining
 *
 *   static void clyde128_encrypt(uint8_t out[16], const uint8_t in[16],
 *                                const uint8_t tweak[16], const uint8_t key[16]);
 *       out = Clyde-128_key(tweak, in); out may alias in.
 *   static void shadow512(spook_state *st);
 *       st = Shadow-512(st), v1 or v2 after SPOOK_VERSION.
 *   static void shadow512_duplex(spook_state *st, uint8_t *out,
 *                                const uint8_t *in, size_t nblocks, int mode);
 *       nblocks full 32-byte sponge blocks, each followed by Shadow-512:
 *         SPOOK_DUPLEX_AD:  rate ^= in
 *         SPOOK_DUPLEX_ENC: rate ^= in, out = rate
 *         SPOOK_DUPLEX_DEC: out = rate ^ in, rate = in  (out may equal in)
 *       The SIMD implementations keep the state in registers across blocks
 *       and load/store the data with their own vector width (the mode's
 *       narrower stores would otherwise defeat store-to-load forwarding).
 */
#define SPOOK_DUPLEX_AD 0
#define SPOOK_DUPLEX_ENC 1
#define SPOOK_DUPLEX_DEC 2
#define SPOOK_RATE 32

/* ---- constants shared by several implementations ---- */

/* Clyde-128 (and Shadow v1) round constants W(r), r = 0..11, one 4-bit value
 * per round, bit 3 (MSB) going to row 0 ... bit 0 to row 3.  They are the
 * successive states of the 4-bit LFSR of the specification started at 0b1000:
 *   b = x & 1;  x = ((x ^ (b << 3)) | (b << 4)) >> 1.
 * (The table is the spec's table of W(r) written as nibbles.) */
static const uint8_t spook_clyde_rc[12] = {0x8, 0x4, 0x2, 0x1, 0xC, 0x6,
                                           0x3, 0xD, 0xA, 0x5, 0xE, 0x7};
#define SPOOK_RC_ROW(r, row) ((uint32_t)(spook_clyde_rc[(r)] >> (3 - (row))) & 1u)

/* Shadow-512 v2 round constants.  v2 replaced the v1 constants (the Clyde
 * constants shifted left by the bundle index, a structure that kept the four
 * bundles nearly symmetric) by the successive states of a 32-bit LFSR:
 *   x_0 = 0xf8737400,  x_{i+1} = (x_i << 1) ^ (msb(x_i) ? 0xc5 : 0).
 * Step s (0..5) uses entries [s][0..7]: [s][b] (b = 0..3) is XORed into row 1
 * of bundle b after the L-box of the step's first round, [s][4 + r]
 * (r = 0..3) into row r of bundle 0 after the D-box.  test/kat_test.c
 * recomputes this table from the recurrence. */
static const uint32_t spook_shadow_v2_rc[6][8] = {
    {0xf8737400u, 0xf0e6e8c5u, 0xe1cdd14fu, 0xc39ba25bu,
     0x87374473u, 0x0e6e8823u, 0x1cdd1046u, 0x39ba208cu},
    {0x73744118u, 0xe6e88230u, 0xcdd104a5u, 0x9ba2098fu,
     0x374413dbu, 0x6e8827b6u, 0xdd104f6cu, 0xba209e1du},
    {0x74413cffu, 0xe88279feu, 0xd104f339u, 0xa209e6b7u,
     0x4413cdabu, 0x88279b56u, 0x104f3669u, 0x209e6cd2u},
    {0x413cd9a4u, 0x8279b348u, 0x04f36655u, 0x09e6ccaau,
     0x13cd9954u, 0x279b32a8u, 0x4f366550u, 0x9e6ccaa0u},
    {0x3cd99585u, 0x79b32b0au, 0xf3665614u, 0xe6ccacedu,
     0xcd99591fu, 0x9b32b2fbu, 0x36656533u, 0x6ccaca66u},
    {0xd99594ccu, 0xb32b295du, 0x6656527fu, 0xccaca4feu,
     0x99594939u, 0x32b292b7u, 0x6565256eu, 0xcaca4adcu},
};

#endif /* SPOOK_PRIMITIVES_H */
