/*
 * Keccak-f[1600] and the FIPS 202 sponge, portable C11, written for
 * cryptobench's ML-KEM example.
 *
 * The state is 25 64-bit lanes, lane (x, y) at index x + 5y, each lane holding
 * its eight bytes little-endian (FIPS 202 section 3.1.2 read as bytes). Byte
 * access goes through explicit shifts, so the code is endian-neutral; on a
 * little-endian machine the compiler turns the shifts back into plain loads.
 */
#include "fips202.h"

#include <string.h>

#define ROL64(x, n) (((x) << (n)) | ((x) >> (64 - (n))))

static const uint64_t round_constants[24] = {
    0x0000000000000001ULL, 0x0000000000008082ULL, 0x800000000000808aULL,
    0x8000000080008000ULL, 0x000000000000808bULL, 0x0000000080000001ULL,
    0x8000000080008081ULL, 0x8000000000008009ULL, 0x000000000000008aULL,
    0x0000000000000088ULL, 0x0000000080008009ULL, 0x000000008000000aULL,
    0x000000008000808bULL, 0x800000000000008bULL, 0x8000000000008089ULL,
    0x8000000000008003ULL, 0x8000000000008002ULL, 0x8000000000000080ULL,
    0x000000000000800aULL, 0x800000008000000aULL, 0x8000000080008081ULL,
    0x8000000000008080ULL, 0x0000000080000001ULL, 0x8000000080008008ULL,
};

/*
 * chi on one plane (fixed y): the only non-linear step, applied to the five
 * lanes that rho and pi moved into that plane.
 */
#define CHI_PLANE(e0, e1, e2, e3, e4, b0_, b1_, b2_, b3_, b4_) \
  do {                                                        \
    uint64_t b0 = (b0_), b1 = (b1_), b2 = (b2_), b3 = (b3_);   \
    uint64_t b4 = (b4_);                                      \
    e0 = b0 ^ (~b1 & b2);                                     \
    e1 = b1 ^ (~b2 & b3);                                     \
    e2 = b2 ^ (~b3 & b4);                                     \
    e3 = b3 ^ (~b4 & b0);                                     \
    e4 = b4 ^ (~b0 & b1);                                     \
  } while (0)

/*
 * One round from the lanes named A<x><y> into the lanes named E<x><y>.
 * Reading into a second set of locals instead of updating in place is what
 * lets the whole state live in registers (or at worst in fixed stack slots)
 * without the shuffling that pi would otherwise need.
 *
 * pi sends lane (x, y) to (y, 2x + 3y), so output plane Y takes, at position
 * X, input lane ((X + 3Y) mod 5, X), rotated by that lane's rho offset; the
 * five CHI_PLANE lines below are that table written out (offsets from FIPS 202
 * table 2).
 */
#define KECCAK_ROUND(A, E, rc)                                                \
  do {                                                                        \
    uint64_t c0 = A##00 ^ A##01 ^ A##02 ^ A##03 ^ A##04;                      \
    uint64_t c1 = A##10 ^ A##11 ^ A##12 ^ A##13 ^ A##14;                      \
    uint64_t c2 = A##20 ^ A##21 ^ A##22 ^ A##23 ^ A##24;                      \
    uint64_t c3 = A##30 ^ A##31 ^ A##32 ^ A##33 ^ A##34;                      \
    uint64_t c4 = A##40 ^ A##41 ^ A##42 ^ A##43 ^ A##44;                      \
    uint64_t d0 = c4 ^ ROL64(c1, 1);                                          \
    uint64_t d1 = c0 ^ ROL64(c2, 1);                                          \
    uint64_t d2 = c1 ^ ROL64(c3, 1);                                          \
    uint64_t d3 = c2 ^ ROL64(c4, 1);                                          \
    uint64_t d4 = c3 ^ ROL64(c0, 1);                                          \
    CHI_PLANE(E##00, E##10, E##20, E##30, E##40, A##00 ^ d0,                  \
              ROL64(A##11 ^ d1, 44), ROL64(A##22 ^ d2, 43),                   \
              ROL64(A##33 ^ d3, 21), ROL64(A##44 ^ d4, 14));                  \
    E##00 ^= (rc);                                                            \
    CHI_PLANE(E##01, E##11, E##21, E##31, E##41, ROL64(A##30 ^ d3, 28),       \
              ROL64(A##41 ^ d4, 20), ROL64(A##02 ^ d0, 3),                    \
              ROL64(A##13 ^ d1, 45), ROL64(A##24 ^ d2, 61));                  \
    CHI_PLANE(E##02, E##12, E##22, E##32, E##42, ROL64(A##10 ^ d1, 1),        \
              ROL64(A##21 ^ d2, 6), ROL64(A##32 ^ d3, 25),                    \
              ROL64(A##43 ^ d4, 8), ROL64(A##04 ^ d0, 18));                   \
    CHI_PLANE(E##03, E##13, E##23, E##33, E##43, ROL64(A##40 ^ d4, 27),       \
              ROL64(A##01 ^ d0, 36), ROL64(A##12 ^ d1, 10),                   \
              ROL64(A##23 ^ d2, 15), ROL64(A##34 ^ d3, 56));                  \
    CHI_PLANE(E##04, E##14, E##24, E##34, E##44, ROL64(A##20 ^ d2, 62),       \
              ROL64(A##31 ^ d3, 55), ROL64(A##42 ^ d4, 39),                   \
              ROL64(A##03 ^ d0, 41), ROL64(A##14 ^ d1, 2));                   \
  } while (0)

/* Apply a macro to all 25 lane positions, as x then y digits. */
#define FOR_EACH_LANE(M)                                    \
  M(0, 0) M(1, 0) M(2, 0) M(3, 0) M(4, 0)                  \
  M(0, 1) M(1, 1) M(2, 1) M(3, 1) M(4, 1)                  \
  M(0, 2) M(1, 2) M(2, 2) M(3, 2) M(4, 2)                  \
  M(0, 3) M(1, 3) M(2, 3) M(3, 3) M(4, 3)                  \
  M(0, 4) M(1, 4) M(2, 4) M(3, 4) M(4, 4)

#define DECLARE_LANE(x, y) \
  uint64_t a##x##y = s[(x) + 5 * (y)], e##x##y;
#define STORE_LANE(x, y) s[(x) + 5 * (y)] = a##x##y;

void keccak_f1600(uint64_t s[25]) {
  FOR_EACH_LANE(DECLARE_LANE)
  /* Two rounds per iteration, so that the lanes end each iteration back in
   * the a-set and no copying between the sets is ever needed. */
  for (int r = 0; r < 24; r += 2) {
    KECCAK_ROUND(a, e, round_constants[r]);
    KECCAK_ROUND(e, a, round_constants[r + 1]);
  }
  FOR_EACH_LANE(STORE_LANE)
}

/* Written out byte by byte rather than as loops: compilers recognise this
 * exact shape and emit one 64-bit load or store on little-endian targets,
 * while a loop is left as eight byte moves (the squeeze then costs a sixth of
 * a permutation per block). */
static uint64_t load64_le(const uint8_t *p) {
  return (uint64_t)p[0] | ((uint64_t)p[1] << 8) | ((uint64_t)p[2] << 16) |
         ((uint64_t)p[3] << 24) | ((uint64_t)p[4] << 32) |
         ((uint64_t)p[5] << 40) | ((uint64_t)p[6] << 48) |
         ((uint64_t)p[7] << 56);
}

static void store64_le(uint8_t *p, uint64_t v) {
  p[0] = (uint8_t)v;
  p[1] = (uint8_t)(v >> 8);
  p[2] = (uint8_t)(v >> 16);
  p[3] = (uint8_t)(v >> 24);
  p[4] = (uint8_t)(v >> 32);
  p[5] = (uint8_t)(v >> 40);
  p[6] = (uint8_t)(v >> 48);
  p[7] = (uint8_t)(v >> 56);
}

/* XOR `len` bytes into the state starting at byte `pos` of the rate. */
static void xor_bytes(uint64_t s[25], unsigned int pos, const uint8_t *in,
                      size_t len) {
  /* Whole lanes at a time where the block is lane-aligned: this is the path
   * every long absorb (H(ek), J(z || c)) spends nearly all its time on. */
  while (len > 0 && (pos & 7) != 0) {
    s[pos >> 3] ^= (uint64_t)*in++ << (8 * (pos & 7));
    pos++;
    len--;
  }
  for (; len >= 8; len -= 8, in += 8, pos += 8) s[pos >> 3] ^= load64_le(in);
  for (; len > 0; len--, pos++)
    s[pos >> 3] ^= (uint64_t)*in++ << (8 * (pos & 7));
}

static void extract_bytes(const uint64_t s[25], unsigned int pos, uint8_t *out,
                          size_t len) {
  while (len > 0 && (pos & 7) != 0) {
    *out++ = (uint8_t)(s[pos >> 3] >> (8 * (pos & 7)));
    pos++;
    len--;
  }
  for (; len >= 8; len -= 8, out += 8, pos += 8) store64_le(out, s[pos >> 3]);
  for (; len > 0; len--, pos++)
    *out++ = (uint8_t)(s[pos >> 3] >> (8 * (pos & 7)));
}

void keccak_init(keccak_state *st) {
  memset(st->s, 0, sizeof st->s);
  st->pos = 0;
}

void keccak_absorb(keccak_state *st, unsigned int rate, const uint8_t *in,
                   size_t inlen) {
  while (inlen > 0) {
    size_t take = rate - st->pos;
    if (take > inlen) take = inlen;
    xor_bytes(st->s, st->pos, in, take);
    st->pos += (unsigned int)take;
    in += take;
    inlen -= take;
    /* Permute as soon as a block is full: finalize can then always pad at
     * `pos`, including the case where the input was a whole number of
     * blocks and the padding needs a fresh one. */
    if (st->pos == rate) {
      keccak_f1600(st->s);
      st->pos = 0;
    }
  }
}

void keccak_finalize(keccak_state *st, unsigned int rate, uint8_t dsbyte) {
  st->s[st->pos >> 3] ^= (uint64_t)dsbyte << (8 * (st->pos & 7));
  st->s[(rate - 1) >> 3] ^= 0x80ULL << (8 * ((rate - 1) & 7));
  /* The padded block is not permuted yet: the first squeeze does it. */
  st->pos = rate;
}

void keccak_squeeze(keccak_state *st, unsigned int rate, uint8_t *out,
                    size_t outlen) {
  while (outlen > 0) {
    if (st->pos == rate) {
      keccak_f1600(st->s);
      st->pos = 0;
    }
    size_t take = rate - st->pos;
    if (take > outlen) take = outlen;
    extract_bytes(st->s, st->pos, out, take);
    st->pos += (unsigned int)take;
    out += take;
    outlen -= take;
  }
}

void shake128_init(keccak_state *st) { keccak_init(st); }

void shake128_absorb(keccak_state *st, const uint8_t *in, size_t inlen) {
  keccak_absorb(st, SHAKE128_RATE, in, inlen);
}

void shake128_finalize(keccak_state *st) {
  keccak_finalize(st, SHAKE128_RATE, SHAKE_DSBYTE);
}

void shake128_squeeze(keccak_state *st, uint8_t *out, size_t outlen) {
  keccak_squeeze(st, SHAKE128_RATE, out, outlen);
}

static void keccak_oneshot(uint8_t *out, size_t outlen, unsigned int rate,
                           uint8_t dsbyte, const uint8_t *in, size_t inlen) {
  keccak_state st;
  keccak_init(&st);
  keccak_absorb(&st, rate, in, inlen);
  keccak_finalize(&st, rate, dsbyte);
  keccak_squeeze(&st, rate, out, outlen);
}

void shake256(uint8_t *out, size_t outlen, const uint8_t *in, size_t inlen) {
  keccak_oneshot(out, outlen, SHAKE256_RATE, SHAKE_DSBYTE, in, inlen);
}

void sha3_256(uint8_t out[32], const uint8_t *in, size_t inlen) {
  keccak_oneshot(out, 32, SHA3_256_RATE, SHA3_DSBYTE, in, inlen);
}

void sha3_512(uint8_t out[64], const uint8_t *in, size_t inlen) {
  keccak_oneshot(out, 64, SHA3_512_RATE, SHA3_DSBYTE, in, inlen);
}
