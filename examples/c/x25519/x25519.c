/*
 * X25519 (RFC 7748) behind SUPERCOP's crypto_scalarmult, portable C11 for 64-bit
 * targets whose compiler has unsigned __int128 (GCC, Clang).
 *
 * Written for cryptobench from the RFC, as an example of a public-key C implementation
 * measured in several compile variants. The shape is the classic one: elements of
 * GF(2^255 - 19) in five 51-bit limbs, the Montgomery ladder of RFC 7748 section 5 with a
 * masked swap, and inversion by Fermat's little theorem, so that the sequence of
 * instructions and memory addresses does not depend on the scalar or the point.
 *
 * No global mutable state, no allocation: every call works on its own stack.
 */
#include <stdint.h>
#include <string.h>

#include "api.h"

#ifndef __SIZEOF_INT128__
#error "x25519.c needs unsigned __int128 (a 64-bit GCC or Clang target)"
#endif

/* __extension__ keeps -Wpedantic quiet: __int128 is a GCC extension, not ISO C. */
__extension__ typedef unsigned __int128 u128;

/*
 * A field element is sum(v[i] * 2^(51 i)), i = 0..4. 51-bit limbs leave 13 spare bits
 * per 64-bit word, so additions and subtractions need no carries, and a 51x51-bit
 * product summed five times (with a factor 19, see fe_mul_limbs) still fits in 128 bits.
 * Limbs are allowed to run past 51 bits between operations; the bounds each function
 * relies on are written beside it. Values are reduced modulo p only in fe_tobytes.
 */
typedef uint64_t fe[5];

#define MASK51 ((UINT64_C(1) << 51) - 1)

static inline uint64_t load64_le(const unsigned char *s) {
  /* Byte by byte so it is alignment- and endian-independent; compilers fold it to one
   * load on little-endian machines. */
  uint64_t x = 0;
  for (int i = 7; i >= 0; i--) x = (x << 8) | s[i];
  return x;
}

static inline void store64_le(unsigned char *s, uint64_t x) {
  for (int i = 0; i < 8; i++) s[i] = (unsigned char)(x >> (8 * i));
}

/* RFC 7748 section 5: the top bit of the u-coordinate is ignored (masked by the last
 * limb's MASK51), and a non-canonical u in [p, 2^255) is accepted as is: the arithmetic
 * below is modulo p anyway, so it behaves as u mod p without a separate reduction.
 * Limb i starts at bit 51 i; each 64-bit load is taken at a byte offset that keeps the
 * 51 wanted bits inside it and never reads past byte 31. */
static void fe_frombytes(fe h, const unsigned char s[32]) {
  h[0] = load64_le(s) & MASK51;
  h[1] = (load64_le(s + 6) >> 3) & MASK51;
  h[2] = (load64_le(s + 12) >> 6) & MASK51;
  h[3] = (load64_le(s + 19) >> 1) & MASK51;
  h[4] = (load64_le(s + 24) >> 12) & MASK51;
}

/* Input limbs below 2^52. The only place a value is made canonical (in [0, p)), since
 * RFC 7748 requires the encoded output to be fully reduced. */
static void fe_tobytes(unsigned char s[32], const fe f) {
  uint64_t t0 = f[0], t1 = f[1], t2 = f[2], t3 = f[3], t4 = f[4], q;

  /* One carry pass brings every limb under 2^51 except t0, which may hold up to
   * 2 * 19 more; the value h is then below 2^255 + 38 < 2p, so h mod p is h or h - p. */
  t1 += t0 >> 51; t0 &= MASK51;
  t2 += t1 >> 51; t1 &= MASK51;
  t3 += t2 >> 51; t2 &= MASK51;
  t4 += t3 >> 51; t3 &= MASK51;
  t0 += 19 * (t4 >> 51); t4 &= MASK51;

  /* h >= p exactly when h + 19 reaches 2^255. q is that top carry, computed without
   * branching by running the carries of h + 19 through the limbs. */
  q = (t0 + 19) >> 51;
  q = (t1 + q) >> 51;
  q = (t2 + q) >> 51;
  q = (t3 + q) >> 51;
  q = (t4 + q) >> 51;

  /* h - p = h + 19 - 2^255: add 19 q, carry, and drop bit 255 (the final mask). */
  t0 += 19 * q;
  t1 += t0 >> 51; t0 &= MASK51;
  t2 += t1 >> 51; t1 &= MASK51;
  t3 += t2 >> 51; t2 &= MASK51;
  t4 += t3 >> 51; t3 &= MASK51;
  t4 &= MASK51;

  store64_le(s, t0 | (t1 << 51));
  store64_le(s + 8, (t1 >> 13) | (t2 << 38));
  store64_le(s + 16, (t2 >> 26) | (t3 << 25));
  store64_le(s + 24, (t3 >> 39) | (t4 << 12));
}

static inline void fe_copy(fe h, const fe f) {
  for (int i = 0; i < 5; i++) h[i] = f[i];
}

static inline void fe_set_small(fe h, uint64_t x) {
  h[0] = x;
  for (int i = 1; i < 5; i++) h[i] = 0;
}

/* f - g computed as f + 2p - g so that no limb wraps below zero. 2p in limbs is
 * (2^52 - 38, 2^52 - 2, ...); this needs g's limbs at most 2^52 - 38, which holds for
 * every fe_mul/fe_sq output (below 2^51 + 2^13), the only values ever subtracted. */
#define TWO_P0 (UINT64_C(0x10000000000000) - 38)
#define TWO_PI (UINT64_C(0x10000000000000) - 2)

static inline void fe_sub(fe h, const fe f, const fe g) {
  h[0] = (f[0] + TWO_P0) - g[0];
  for (int i = 1; i < 5; i++) h[i] = (f[i] + TWO_PI) - g[i];
}

/* The limbs of f + g and of f - g (as in fe_sub) as five function arguments, to feed
 * fe_mul_limbs/fe_sq_limbs directly; see there for why. No carries: limbs grow by at
 * most one bit, which the multiplication's input bound allows for. */
#define SUM(f, g) \
  (f)[0] + (g)[0], (f)[1] + (g)[1], (f)[2] + (g)[2], (f)[3] + (g)[3], (f)[4] + (g)[4]
#define DIFF(f, g)                                                                  \
  (f)[0] + TWO_P0 - (g)[0], (f)[1] + TWO_PI - (g)[1], (f)[2] + TWO_PI - (g)[2],     \
      (f)[3] + TWO_PI - (g)[3], (f)[4] + TWO_PI - (g)[4]

/* Carry five 128-bit column sums down to limbs. 2^255 = 19 (mod p), so the carry out of
 * the top limb re-enters the bottom one multiplied by 19. The carries run as two
 * interleaved chains (0 -> 1 -> 2 -> 3 and 3 -> 4 -> 0 -> 1) rather than one pass round
 * the ring: four dependent steps instead of six at the end of every product, which
 * the out-of-order core cannot always hide behind other work. Bounds, for inputs below 2^54: columns are below 2^115, so each
 * carry fits in 64 bits, 19 times the top carry (< 2^59.4) still does, and so does limb 3
 * plus the carry out of column 2 (< 2^62.4). Outputs are below 2^51, except limbs 1 and 4
 * which may be up to 2^13 over: every consumer accepts that, so no third round is spent. */
static inline void fe_carry_wide(fe h, u128 r0, u128 r1, u128 r2, u128 r3, u128 r4) {
  uint64_t h0, h1, h2, h3, h4;
  r1 += (uint64_t)(r0 >> 51); h0 = (uint64_t)r0 & MASK51;
  r4 += (uint64_t)(r3 >> 51); h3 = (uint64_t)r3 & MASK51;
  r2 += (uint64_t)(r1 >> 51); h1 = (uint64_t)r1 & MASK51;
  h0 += 19 * (uint64_t)(r4 >> 51); h4 = (uint64_t)r4 & MASK51;
  h3 += (uint64_t)(r2 >> 51); h2 = (uint64_t)r2 & MASK51;
  h1 += h0 >> 51; h0 &= MASK51;
  h4 += h3 >> 51; h3 &= MASK51;
  h[0] = h0; h[1] = h1; h[2] = h2; h[3] = h3; h[4] = h4;
}

/* Schoolbook product. A partial product f_i g_j with i + j >= 5 has weight
 * 2^(51 (i + j)) = 2^255 * 2^(51 (i + j - 5)), i.e. 19 times a low column, so it is folded
 * in as f_i (19 g_j) right away: 25 multiplications, no second pass. Inputs below 2^54.
 *
 * The limbs come in by value so that the ladder can pass f + g or f - g (SUM, DIFF)
 * without storing the sum first. Stored sums were measured ~15% slower at -O2 with
 * -march=haswell: GCC's SLP vectoriser turns the five limb additions into 256-bit
 * vector code whose stores the multiplication then reads back 64 bits at a time. */
static inline void fe_mul_limbs(fe h, uint64_t f0, uint64_t f1, uint64_t f2, uint64_t f3,
                                uint64_t f4, uint64_t g0, uint64_t g1, uint64_t g2,
                                uint64_t g3, uint64_t g4) {
  const uint64_t g1_19 = 19 * g1, g2_19 = 19 * g2, g3_19 = 19 * g3, g4_19 = 19 * g4;
  u128 r0, r1, r2, r3, r4;

  r0 = (u128)f0 * g0 + (u128)f1 * g4_19 + (u128)f2 * g3_19 + (u128)f3 * g2_19 + (u128)f4 * g1_19;
  r1 = (u128)f0 * g1 + (u128)f1 * g0 + (u128)f2 * g4_19 + (u128)f3 * g3_19 + (u128)f4 * g2_19;
  r2 = (u128)f0 * g2 + (u128)f1 * g1 + (u128)f2 * g0 + (u128)f3 * g4_19 + (u128)f4 * g3_19;
  r3 = (u128)f0 * g3 + (u128)f1 * g2 + (u128)f2 * g1 + (u128)f3 * g0 + (u128)f4 * g4_19;
  r4 = (u128)f0 * g4 + (u128)f1 * g3 + (u128)f2 * g2 + (u128)f3 * g1 + (u128)f4 * g0;
  fe_carry_wide(h, r0, r1, r2, r3, r4);
}

/* Squaring: the cross terms f_i f_j (i != j) appear twice, so doubling one factor
 * beforehand turns 25 multiplications into 15. Same bounds as fe_mul_limbs. */
static inline void fe_sq_limbs(fe h, uint64_t f0, uint64_t f1, uint64_t f2, uint64_t f3,
                               uint64_t f4) {
  const uint64_t d0 = 2 * f0, d1 = 2 * f1, d2 = 2 * f2, d3 = 2 * f3;
  const uint64_t f3_19 = 19 * f3, f4_19 = 19 * f4;
  u128 r0, r1, r2, r3, r4;

  r0 = (u128)f0 * f0 + (u128)d1 * f4_19 + (u128)d2 * f3_19;
  r1 = (u128)d0 * f1 + (u128)d2 * f4_19 + (u128)f3 * f3_19;
  r2 = (u128)d0 * f2 + (u128)f1 * f1 + (u128)d3 * f4_19;
  r3 = (u128)d0 * f3 + (u128)d1 * f2 + (u128)f4 * f4_19;
  r4 = (u128)d0 * f4 + (u128)d1 * f3 + (u128)f2 * f2;
  fe_carry_wide(h, r0, r1, r2, r3, r4);
}

/* h may alias f or g: all limbs are read (as arguments) before h is written. */
static inline void fe_mul(fe h, const fe f, const fe g) {
  fe_mul_limbs(h, f[0], f[1], f[2], f[3], f[4], g[0], g[1], g[2], g[3], g[4]);
}

static inline void fe_sq(fe h, const fe f) { fe_sq_limbs(h, f[0], f[1], f[2], f[3], f[4]); }

/* h = f^(2^n): the long runs of squarings in the inversion chain. n >= 1. */
static inline void fe_sqn(fe h, const fe f, int n) {
  fe_sq(h, f);
  while (--n > 0) fe_sq(h, h);
}

/* Product with a constant below 2^17 (the ladder's a24). The product needs 128 bits
 * only because f's limbs may be up to 2^53 after a subtraction. */
static inline void fe_mul_small(fe h, const fe f, uint64_t c) {
  fe_carry_wide(h, (u128)f[0] * c, (u128)f[1] * c, (u128)f[2] * c, (u128)f[3] * c,
                (u128)f[4] * c);
}

/* h = f^(p - 2) = 1/f (0 for f = 0, which is what RFC 7748 wants: a zero z gives u = 0).
 * A fixed exponent makes this constant-time for free. p - 2 = 2^255 - 21
 * = (2^250 - 1) 2^5 + 11, and 2^250 - 1 is built by doubling runs of ones
 * (2^a - 1) 2^b + (2^b - 1) = 2^(a + b) - 1: 254 squarings and 11 multiplications. */
static void fe_invert(fe h, const fe f) {
  fe z2, z9, z11, t, e5, e10, e20, e50, e100;

  fe_sq(z2, f);            /* f^2 */
  fe_sqn(t, z2, 2);        /* f^8 */
  fe_mul(z9, t, f);        /* f^9 */
  fe_mul(z11, z9, z2);     /* f^11, reused at the very end */
  fe_sq(t, z11);           /* f^22 */
  fe_mul(e5, t, z9);       /* f^31 = f^(2^5 - 1) */
  fe_sqn(t, e5, 5);
  fe_mul(e10, t, e5);      /* 2^10 - 1 */
  fe_sqn(t, e10, 10);
  fe_mul(e20, t, e10);     /* 2^20 - 1 */
  fe_sqn(t, e20, 20);
  fe_mul(t, t, e20);       /* 2^40 - 1 */
  fe_sqn(t, t, 10);
  fe_mul(e50, t, e10);     /* 2^50 - 1 */
  fe_sqn(t, e50, 50);
  fe_mul(e100, t, e50);    /* 2^100 - 1 */
  fe_sqn(t, e100, 100);
  fe_mul(t, t, e100);      /* 2^200 - 1 */
  fe_sqn(t, t, 50);
  fe_mul(t, t, e50);       /* 2^250 - 1 */
  fe_sqn(t, t, 5);         /* 2^255 - 32 */
  fe_mul(h, t, z11);       /* 2^255 - 21 = p - 2 */
}

/* An all-ones or all-zeros mask from a secret bit. The empty asm hides from the optimiser
 * that the value can only be 0 or ~0, so it cannot turn the masked swap back into a
 * (secret-dependent) branch or conditional move chosen by value range analysis. */
static inline uint64_t ct_mask(uint64_t bit) {
  uint64_t m = 0 - bit;
#if defined(__GNUC__) || defined(__clang__)
  __asm__("" : "+r"(m));
#endif
  return m;
}

/* Swap (a, b) and (c, d) when mask is all ones, with the same loads and stores either way. */
static inline void fe_cswap2(fe a, fe b, fe c, fe d, uint64_t mask) {
  for (int i = 0; i < 5; i++) {
    uint64_t x = mask & (a[i] ^ b[i]);
    uint64_t y = mask & (c[i] ^ d[i]);
    a[i] ^= x; b[i] ^= x;
    c[i] ^= y; d[i] ^= y;
  }
}

/* Stores through a volatile pointer are not removed as dead, unlike a plain memset of a
 * buffer that is about to go out of scope. */
static void wipe(void *p, size_t n) {
  volatile unsigned char *v = (volatile unsigned char *)p;
  while (n--) *v++ = 0;
}

/* RFC 7748 section 5, with (x2 : z2) = k' P and (x3 : z3) = (k' + 1) P for the prefix k'
 * of the scalar read so far. Instead of swapping in and out on every bit, the pair is
 * swapped only when the bit differs from the previous one (swap ^= bit), which is the same
 * thing with half the swaps. The clamped scalar has bit 254 set and bits 0..2 clear; the
 * loop still runs over all 255 bits so that it needs no special cases. */
static void x25519(unsigned char out[32], const unsigned char scalar[32],
                   const unsigned char point[32]) {
  unsigned char k[32];
  fe x1, x2, z2, x3, z3, aa, bb, e, da, cb, t;
  uint64_t swap = 0;

  /* Clamping (RFC 7748 section 5): clearing the low three bits makes the scalar a
   * multiple of the cofactor 8, so a small-order component of the point is killed;
   * fixing bit 254 gives every scalar the same ladder length. */
  memcpy(k, scalar, 32);
  k[0] &= 248;
  k[31] &= 127;
  k[31] |= 64;

  fe_frombytes(x1, point);
  fe_set_small(x2, 1);
  fe_set_small(z2, 0);
  fe_copy(x3, x1);
  fe_set_small(z3, 1);

  for (int pos = 254; pos >= 0; pos--) {
    /* pos is public; only the bit's value is secret, and it is only ever used as a mask. */
    uint64_t bit = (uint64_t)(k[pos >> 3] >> (pos & 7)) & 1;
    swap ^= bit;
    fe_cswap2(x2, x3, z2, z3, ct_mask(swap));
    swap = bit;

    /* Differential addition and doubling, sharing A = x2 + z2 and B = x2 - z2 (RFC 7748
     * names in the comments). A and B are recomputed for each product that uses them:
     * ten additions are cheaper than a round trip through memory (see fe_mul_limbs).
     * Every value subtracted comes straight out of a multiplication, and every
     * multiplication input is a sum or difference of two such values (< 2^54), as the
     * field functions require. */
    fe_sq_limbs(aa, SUM(x2, z2));                 /* AA = A^2 */
    fe_sq_limbs(bb, DIFF(x2, z2));                /* BB = B^2 */
    fe_mul_limbs(da, DIFF(x3, z3), SUM(x2, z2));  /* DA = (x3 - z3) A */
    fe_mul_limbs(cb, SUM(x3, z3), DIFF(x2, z2));  /* CB = (x3 + z3) B */
    fe_sq_limbs(x3, SUM(da, cb));
    fe_sq_limbs(t, DIFF(da, cb));
    fe_mul(z3, t, x1);
    fe_mul(x2, aa, bb);
    fe_sub(e, aa, bb);                            /* E = AA - BB */
    /* z2 = E (AA + a24 E), a24 = (486662 - 2) / 4 = 121665. */
    fe_mul_small(t, e, 121665);
    fe_mul_limbs(z2, e[0], e[1], e[2], e[3], e[4], SUM(t, aa));
  }
  fe_cswap2(x2, x3, z2, z3, ct_mask(swap));

  fe_invert(z2, z2);
  fe_mul(x2, x2, z2);
  fe_tobytes(out, x2);

  /* The clamped scalar is the long-term secret; the field temporaries are not wiped
   * (they hold projective multiples of the point, not the scalar). */
  wipe(k, sizeof k);
}

/* Always 0, as in NaCl (libsodium instead returns -1 for an all-zero result). An all-zero
 * q means p had small order; RFC 7748 section 6.1 leaves that check to the protocol. */
int crypto_scalarmult(unsigned char *q, const unsigned char *n, const unsigned char *p) {
  x25519(q, n, p);
  return 0;
}

/* The standard base point, u = 9. This runs the same variable-base ladder: no
 * precomputed table, so it costs exactly as much as crypto_scalarmult. */
int crypto_scalarmult_base(unsigned char *q, const unsigned char *n) {
  static const unsigned char basepoint[32] = {9};
  x25519(q, n, basepoint);
  return 0;
}
