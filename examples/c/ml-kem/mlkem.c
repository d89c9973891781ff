/*
 * ML-KEM-768 (FIPS 203) in portable C11, written for cryptobench from the
 * standard's text.
 *
 * Arithmetic. Coefficients are int16_t and are not kept in [0, q) between
 * steps: each function documents the range it accepts and the range it
 * leaves, and full reduction happens only where an encoding needs it. Products
 * are reduced with Montgomery reduction (R = 2^16), sums with Barrett
 * reduction. The NTT's twiddle factors are stored premultiplied by R, so that
 * a Montgomery multiplication by one amounts to a plain modular
 * multiplication and the NTTs leave values in the ordinary domain; the only R^-1 that survives
 * is the one from the products in T_q, and each caller cancels it where it
 * is cheapest (see pke_keygen and NTT_INV_SCALE).
 *
 * Constant time. Nothing branches on, or indexes memory by, a secret: the
 * samplers, the compression and the decapsulation's compare-and-select are
 * all arithmetic. Only SampleNTT (on the stream from the public seed rho) and
 * the input checks (on the public key, and on whether dk is well formed)
 * branch on data.
 *
 * Portability. The code assumes what every compiler for a two's-complement
 * machine does with the two implementation-defined operations it uses:
 * converting an out-of-range value to int16_t keeps the low 16 bits, and >>
 * on a negative value shifts in sign bits. It never shifts a negative value
 * left or overflows a signed type.
 */
#include <stdint.h>
#include <string.h>

#include "api.h"
#include "fips202.h"
#include "randombytes.h"

/* --- Parameters (FIPS 203 section 8, ML-KEM-768) ------------------------ */

#define N 256
#define Q 3329
#define K 3
#define ETA 2 /* eta1 = eta2 = 2 for ML-KEM-768 */
#define DU 10
#define DV 4

#define POLY_BYTES 384                    /* ByteEncode_12 of one polynomial */
#define POLYVEC_BYTES (K * POLY_BYTES)
#define EK_BYTES (POLYVEC_BYTES + 32)     /* t-hat || rho */
#define DK_PKE_BYTES POLYVEC_BYTES        /* s-hat */
#define DK_BYTES (DK_PKE_BYTES + EK_BYTES + 64) /* || ek || H(ek) || z */
#define CT_U_BYTES (K * 32 * DU)
#define CT_V_BYTES (32 * DV)
#define CT_BYTES (CT_U_BYTES + CT_V_BYTES)

_Static_assert(EK_BYTES == CRYPTO_PUBLICKEYBYTES, "ek size");
_Static_assert(DK_BYTES == CRYPTO_SECRETKEYBYTES, "dk size");
_Static_assert(CT_BYTES == CRYPTO_CIPHERTEXTBYTES, "ciphertext size");
_Static_assert(CRYPTO_BYTES == 32, "shared secret size");

typedef struct {
  int16_t c[N];
} poly;

/* --- Modular arithmetic -------------------------------------------------- */

/* q^-1 mod 2^16, as a signed 16-bit value. */
#define QINV (-3327)
/* R^2 mod q: a Montgomery multiplication by it multiplies by R. */
#define R2_MOD_Q 1353

/*
 * a * R^-1 mod q, in (-q, q), for |a| < q * 2^15.
 * t is chosen so that a - t*q is divisible by 2^16; the division is exact, so
 * the shift cannot round, and the bound on a keeps the result under q.
 */
static int16_t montgomery_reduce(int32_t a) {
  int16_t t = (int16_t)((int32_t)(int16_t)a * QINV);
  return (int16_t)((a - (int32_t)t * Q) >> 16);
}

/* a * b * R^-1 mod q, in (-q, q), for |a * b| < q * 2^15: in particular for
 * any int16 times a constant of magnitude at most q/2, the only use here. */
static int16_t fqmul(int16_t a, int16_t b) {
  return montgomery_reduce((int32_t)a * b);
}

/*
 * a mod q, centred in [-(q-1)/2, (q-1)/2], for any int16 a.
 * 20159 = round(2^26 / q); the quotient estimate is then off by at most one
 * from round(a / q) over the int16 range, which lands the remainder in the
 * centred interval (checked exhaustively by test/unit.c).
 */
static int16_t barrett_reduce(int16_t a) {
  int16_t t = (int16_t)(((int32_t)20159 * a + (1 << 25)) >> 26);
  return (int16_t)(a - t * Q);
}

/* a mod q in [0, q), for any int16 a, without a data-dependent branch. */
static int16_t freeze(int16_t a) {
  int16_t r = barrett_reduce(a);
  return (int16_t)(r + ((r >> 15) & Q));
}

/* --- NTT (FIPS 203 section 4.3) ------------------------------------------ */

/*
 * zetas[i] = 17^BitRev7(i) * R mod q, centred: the twiddle factors of
 * Algorithms 9 and 10 in the order those algorithms consume them, times R so
 * that fqmul() by them is an ordinary modular multiplication. zetas[0] is
 * never used.
 */
static const int16_t zetas[128] = {
    -1044, -758,  -359,  -1517, 1493,  1422,  287,   202,   -171,  622,
    1577,  182,   962,   -1202, -1474, 1468,  573,   -1325, 264,   383,
    -829,  1458,  -1602, -130,  -681,  1017,  732,   608,   -1542, 411,
    -205,  -1571, 1223,  652,   -552,  1015,  -1293, 1491,  -282,  -1544,
    516,   -8,    -320,  -666,  -1618, -1162, 126,   1469,  -853,  -90,
    -271,  830,   107,   -1421, -247,  -951,  -398,  961,   -1508, -725,
    448,   -1065, 677,   -1275, -1103, 430,   555,   843,   -1251, 871,
    1550,  105,   422,   587,   177,   -235,  -291,  -460,  1574,  1653,
    -246,  778,   1159,  -147,  -777,  1483,  -602,  1119,  -1590, 644,
    -872,  349,   418,   329,   -156,  -75,   817,   1097,  603,   610,
    1322,  -1285, -1465, 384,   -1215, -136,  1218,  -1335, -874,  220,
    -1187, -1659, -1185, -1530, -1278, 794,   -1510, -854,  -870,  478,
    -108,  -308,  996,   991,   958,   -1460, 1522,  1628,
};

/*
 * gammas[i] = 17^(2*BitRev7(i) + 1) * R mod q, centred: the constant of the
 * i-th degree-2 factor X^2 - gamma of Algorithms 11 and 12, times R.
 */
static const int16_t gammas[128] = {
    -1103, 1103,  430,   -430,  555,   -555,  843,   -843,  -1251, 1251,
    871,   -871,  1550,  -1550, 105,   -105,  422,   -422,  587,   -587,
    177,   -177,  -235,  235,   -291,  291,   -460,  460,   1574,  -1574,
    1653,  -1653, -246,  246,   778,   -778,  1159,  -1159, -147,  147,
    -777,  777,   1483,  -1483, -602,  602,   1119,  -1119, -1590, 1590,
    644,   -644,  -872,  872,   349,   -349,  418,   -418,  329,   -329,
    -156,  156,   -75,   75,    817,   -817,  1097,  -1097, 603,   -603,
    610,   -610,  1322,  -1322, -1285, 1285,  -1465, 1465,  384,   -384,
    -1215, 1215,  -136,  136,   1218,  -1218, -1335, 1335,  -874,  874,
    220,   -220,  -1187, 1187,  -1659, 1659,  -1185, 1185,  -1530, 1530,
    -1278, 1278,  794,   -794,  -1510, 1510,  -854,  854,   -870,  870,
    478,   -478,  -108,  108,   -308,  308,   996,   -996,  991,   -991,
    958,   -958,  -1460, 1460,  1522,  -1522, 1628,  -1628,
};

/*
 * The NTTs are written as one call per layer with the layer's length as a
 * constant, inlined: each inner loop then has a fixed trip count and two
 * halves the compiler can see are disjoint, so it can unroll it and (at -O3)
 * vectorise it, which the usual loop over len does not allow.
 */
#if defined(__GNUC__) || defined(__clang__)
#define LAYER_INLINE inline __attribute__((always_inline))
#else
#define LAYER_INLINE inline
#endif

/* One layer of Algorithm 9: blocks of 2*len, twiddles zetas[k], zetas[k+1]... */
static LAYER_INLINE void ntt_layer(int16_t f[N], unsigned int len,
                                   unsigned int k) {
  for (unsigned int start = 0; start < N; start += 2 * len) {
    int16_t zeta = zetas[k++];
    for (unsigned int j = start; j < start + len; j++) {
      int16_t t = fqmul(zeta, f[j + len]);
      f[j + len] = (int16_t)(f[j] - t);
      f[j] = (int16_t)(f[j] + t);
    }
  }
}

/*
 * Algorithm 9, in place. Input: |coefficients| < q. Output: centred mod q.
 * The butterflies are left unreduced: each of the seven layers adds less than
 * q to the largest magnitude, so nothing exceeds 8q < 2^15 before the single
 * reduction at the end.
 */
static void ntt(poly *f) {
  ntt_layer(f->c, 128, 1);
  ntt_layer(f->c, 64, 2);
  ntt_layer(f->c, 32, 4);
  ntt_layer(f->c, 16, 8);
  ntt_layer(f->c, 8, 16);
  ntt_layer(f->c, 4, 32);
  ntt_layer(f->c, 2, 64);
  for (unsigned int j = 0; j < N; j++) f->c[j] = barrett_reduce(f->c[j]);
}

/*
 * The scale at the end of Algorithm 10, 128^-1 mod q, times R^2: one factor R
 * cancels the R^-1 of the final fqmul, the other cancels the R^-1 that every
 * product in T_q (basemul_acc) leaves, so callers need no separate step.
 */
#define NTT_INV_SCALE 1441 /* R^2 / 128 mod q */

/*
 * Algorithm 10, in place, times R. Input: |coefficients| < q. Output in
 * (-q, q). The sums are Barrett-reduced every layer (they would otherwise
 * double each time); the differences go straight into fqmul, which accepts
 * them since they stay under 2q.
 */
static LAYER_INLINE void ntt_inverse_layer(int16_t f[N], unsigned int len,
                                           unsigned int k) {
  for (unsigned int start = 0; start < N; start += 2 * len) {
    int16_t zeta = zetas[k--];
    for (unsigned int j = start; j < start + len; j++) {
      int16_t t = f[j];
      f[j] = barrett_reduce((int16_t)(t + f[j + len]));
      f[j + len] = fqmul(zeta, (int16_t)(f[j + len] - t));
    }
  }
}

static void ntt_inverse(poly *f) {
  ntt_inverse_layer(f->c, 2, 127);
  ntt_inverse_layer(f->c, 4, 63);
  ntt_inverse_layer(f->c, 8, 31);
  ntt_inverse_layer(f->c, 16, 15);
  ntt_inverse_layer(f->c, 32, 7);
  ntt_inverse_layer(f->c, 64, 3);
  ntt_inverse_layer(f->c, 128, 1);
  for (unsigned int j = 0; j < N; j++)
    f->c[j] = fqmul(f->c[j], NTT_INV_SCALE);
}

/*
 * r = sum over j of a[j] * b[j] in T_q (Algorithms 11 and 12), times R^-1,
 * in (-q, q). Inputs: |coefficients| < q.
 *
 * Instead of reducing every product, the products of each kind are summed in
 * 32 bits and reduced once: with |a|, |b| < q no sum exceeds 2K q^2 (the odd
 * coefficient's), below the q * 2^15 that montgomery_reduce accepts. a1*b1 is
 * reduced before it meets gamma (stored times R), so all three terms of the
 * even coefficient carry the same single factor R^-1 in the end.
 */
static void basemul_acc(poly *r, const poly a[K], const poly b[K]) {
  for (unsigned int i = 0; i < N / 2; i++) {
    int32_t even = 0, odd = 0, high = 0;
    for (unsigned int j = 0; j < K; j++) {
      int32_t a0 = a[j].c[2 * i], a1 = a[j].c[2 * i + 1];
      int32_t b0 = b[j].c[2 * i], b1 = b[j].c[2 * i + 1];
      even += a0 * b0;
      high += a1 * b1;
      odd += a0 * b1 + a1 * b0;
    }
    even += (int32_t)montgomery_reduce(high) * gammas[i];
    r->c[2 * i] = montgomery_reduce(even);
    r->c[2 * i + 1] = montgomery_reduce(odd);
  }
}

/* --- Sampling (FIPS 203 section 4.2.2) ----------------------------------- */

/* Parse 12-bit candidates from buf, keeping those < q (the loop of
 * Algorithm 7); returns the new count. */
static unsigned int rejection_sample(int16_t *out, unsigned int count,
                                     const uint8_t *buf, size_t len) {
  size_t p = 0;
  /* While two more acceptances cannot overrun out[], store each candidate
   * and advance only if it was accepted: acceptance is random (about four in
   * five), so a branch on it would mispredict often. A rejected candidate is
   * overwritten by the next accepted one. */
  for (; p + 3 <= len && count + 2 <= N; p += 3) {
    uint16_t d1 = (uint16_t)(buf[p] | ((buf[p + 1] & 0x0f) << 8));
    uint16_t d2 = (uint16_t)((buf[p + 1] >> 4) | (buf[p + 2] << 4));
    out[count] = (int16_t)d1;
    count += d1 < Q;
    out[count] = (int16_t)d2;
    count += d2 < Q;
  }
  /* The last one or two places, where the second store could overrun. */
  for (; p + 3 <= len && count < N; p += 3) {
    uint16_t d1 = (uint16_t)(buf[p] | ((buf[p + 1] & 0x0f) << 8));
    uint16_t d2 = (uint16_t)((buf[p + 1] >> 4) | (buf[p + 2] << 4));
    if (d1 < Q) out[count++] = (int16_t)d1;
    if (d2 < Q && count < N) out[count++] = (int16_t)d2;
  }
  return count;
}

/*
 * Algorithm 7: the matrix entry SampleNTT(rho || x || y), in [0, q).
 * Three blocks give 336 candidates, of which 256 are accepted with
 * overwhelming probability (each is kept with probability q/4096 ~ 0.81);
 * more blocks are read one at a time in the rare case they are not. A block
 * is a multiple of 3 bytes, so no candidate straddles two reads.
 */
static void sample_ntt(poly *a, const uint8_t rho[32], uint8_t x, uint8_t y) {
  uint8_t seed[34];
  uint8_t buf[3 * SHAKE128_RATE];
  keccak_state st;
  memcpy(seed, rho, 32);
  seed[32] = x;
  seed[33] = y;
  shake128_init(&st);
  shake128_absorb(&st, seed, sizeof seed);
  shake128_finalize(&st);
  shake128_squeeze(&st, buf, sizeof buf);
  unsigned int count = rejection_sample(a->c, 0, buf, sizeof buf);
  while (count < N) {
    shake128_squeeze(&st, buf, SHAKE128_RATE);
    count = rejection_sample(a->c, count, buf, SHAKE128_RATE);
  }
}

/*
 * Row i of A-hat (transposed = 0), where A-hat[i][j] = SampleNTT(rho||j||i)
 * (Algorithm 13), or row i of its transpose (transposed = 1), which
 * encryption multiplies by. Callers take the matrix a row at a time, so it is
 * never held whole.
 */
static void matrix_row(poly row[K], const uint8_t rho[32], unsigned int i,
                       int transposed) {
  for (unsigned int j = 0; j < K; j++) {
    if (transposed)
      sample_ntt(&row[j], rho, (uint8_t)i, (uint8_t)j);
    else
      sample_ntt(&row[j], rho, (uint8_t)j, (uint8_t)i);
  }
}

/*
 * Algorithm 8 for eta = 2 on the 128 bytes PRF_2(seed, nonce) (section 4.1).
 * Coefficient i is (bit 4i + bit 4i+1) - (bit 4i+2 + bit 4i+3); adding the
 * two bits of every pair at once with masks gives eight coefficients per
 * 32-bit word, and no step depends on the secret bits' values.
 */
static void sample_cbd2(poly *f, const uint8_t seed[32], uint8_t nonce) {
  uint8_t in[33], buf[64 * ETA];
  memcpy(in, seed, 32);
  in[32] = nonce;
  shake256(buf, sizeof buf, in, sizeof in);
  for (unsigned int w = 0; w < N / 8; w++) {
    const uint8_t *p = buf + 4 * w;
    uint32_t t = (uint32_t)p[0] | ((uint32_t)p[1] << 8) |
                 ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
    uint32_t pairs = (t & 0x55555555u) + ((t >> 1) & 0x55555555u);
    for (unsigned int k = 0; k < 8; k++) {
      int16_t x = (int16_t)((pairs >> (4 * k)) & 3);
      int16_t y = (int16_t)((pairs >> (4 * k + 2)) & 3);
      f->c[8 * w + k] = (int16_t)(x - y);
    }
  }
}

/* --- Encodings and compression (FIPS 203 section 4.2.1) ------------------ */

/* ByteEncode_12 of coefficients already in [0, q). */
static void poly_encode12(uint8_t out[POLY_BYTES], const poly *f) {
  for (unsigned int i = 0; i < N / 2; i++) {
    uint16_t a = (uint16_t)f->c[2 * i], b = (uint16_t)f->c[2 * i + 1];
    out[3 * i] = (uint8_t)a;
    out[3 * i + 1] = (uint8_t)((a >> 8) | (b << 4));
    out[3 * i + 2] = (uint8_t)(b >> 4);
  }
}

/* The two 12-bit fields in three bytes, before any reduction mod q. */
static uint16_t field12_even(const uint8_t *p) {
  return (uint16_t)(p[0] | ((p[1] & 0x0f) << 8));
}

static uint16_t field12_odd(const uint8_t *p) {
  return (uint16_t)((p[1] >> 4) | (p[2] << 4));
}

/* x mod q for x < 2q, by a subtraction undone with a mask when it goes
 * negative (no branch: the fields of dk are secret). */
static int16_t reduce_once(uint16_t x) {
  int16_t a = (int16_t)(x - Q);
  return (int16_t)(a + ((a >> 15) & Q));
}

/* ByteDecode_12: fields mod q, into [0, q); a field is at most 4095 < 2q. */
static void poly_decode12(poly *f, const uint8_t in[POLY_BYTES]) {
  for (unsigned int i = 0; i < N / 2; i++) {
    f->c[2 * i] = reduce_once(field12_even(in + 3 * i));
    f->c[2 * i + 1] = reduce_once(field12_odd(in + 3 * i));
  }
}

/*
 * Compress_d of x in [0, q): round(2^d x / q) mod 2^d. Rounding is
 * floor((2^d x + (q-1)/2) / q), exact because q is odd so no value is ever a
 * tie; the division is a multiplication by ceil(2^32 / q) and a shift, which
 * is exact for numerators below 2^22 (checked exhaustively by test/unit.c) and,
 * unlike '/', is a fixed instruction sequence on every target.
 */
static uint16_t compress(int16_t x, unsigned int d) {
  uint32_t n = ((uint32_t)x << d) + (Q - 1) / 2;
  uint32_t quotient = (uint32_t)(((uint64_t)n * 1290168u) >> 32);
  return (uint16_t)(quotient & ((1u << d) - 1));
}

/* Decompress_d: round(q y / 2^d), halves up. */
static int16_t decompress(uint16_t y, unsigned int d) {
  return (int16_t)(((uint32_t)y * Q + (1u << (d - 1))) >> d);
}

/* ByteEncode_10(Compress_10(f)), four coefficients to five bytes. */
static void poly_compress_du(uint8_t out[32 * DU], const poly *f) {
  for (unsigned int i = 0; i < N / 4; i++) {
    uint16_t t[4];
    for (unsigned int k = 0; k < 4; k++) t[k] = compress(f->c[4 * i + k], DU);
    uint8_t *o = out + 5 * i;
    o[0] = (uint8_t)t[0];
    o[1] = (uint8_t)((t[0] >> 8) | (t[1] << 2));
    o[2] = (uint8_t)((t[1] >> 6) | (t[2] << 4));
    o[3] = (uint8_t)((t[2] >> 4) | (t[3] << 6));
    o[4] = (uint8_t)(t[3] >> 2);
  }
}

static void poly_decompress_du(poly *f, const uint8_t in[32 * DU]) {
  for (unsigned int i = 0; i < N / 4; i++) {
    const uint8_t *p = in + 5 * i;
    uint16_t t[4];
    t[0] = (uint16_t)((p[0] | (p[1] << 8)) & 0x3ff);
    t[1] = (uint16_t)(((p[1] >> 2) | (p[2] << 6)) & 0x3ff);
    t[2] = (uint16_t)(((p[2] >> 4) | (p[3] << 4)) & 0x3ff);
    t[3] = (uint16_t)(((p[3] >> 6) | (p[4] << 2)) & 0x3ff);
    for (unsigned int k = 0; k < 4; k++)
      f->c[4 * i + k] = decompress(t[k], DU);
  }
}

/* ByteEncode_4(Compress_4(f)), two coefficients per byte. */
static void poly_compress_dv(uint8_t out[32 * DV], const poly *f) {
  for (unsigned int i = 0; i < N / 2; i++)
    out[i] = (uint8_t)(compress(f->c[2 * i], DV) |
                       (compress(f->c[2 * i + 1], DV) << 4));
}

static void poly_decompress_dv(poly *f, const uint8_t in[32 * DV]) {
  for (unsigned int i = 0; i < N / 2; i++) {
    f->c[2 * i] = decompress(in[i] & 0x0f, DV);
    f->c[2 * i + 1] = decompress(in[i] >> 4, DV);
  }
}

/* Decompress_1(ByteDecode_1(m)): bit b becomes b * round(q/2) = b * 1665,
 * selected with a mask since m is secret. */
static void poly_from_msg(poly *f, const uint8_t m[32]) {
  for (unsigned int i = 0; i < N; i++) {
    int16_t bit = (int16_t)((m[i / 8] >> (i % 8)) & 1);
    f->c[i] = (int16_t)(-bit & ((Q + 1) / 2));
  }
}

/* ByteEncode_1(Compress_1(f)) of coefficients in [0, q). */
static void poly_to_msg(uint8_t m[32], const poly *f) {
  memset(m, 0, 32);
  for (unsigned int i = 0; i < N; i++)
    m[i / 8] |= (uint8_t)(compress(f->c[i], 1) << (i % 8));
}

/* --- K-PKE (FIPS 203 section 5) ------------------------------------------ */

/* Algorithm 13: ek_pke = ByteEncode_12(t-hat) || rho, dk_pke = s-hat. */
static void pke_keygen(uint8_t ek[EK_BYTES], uint8_t dk[DK_PKE_BYTES],
                       const uint8_t d[32]) {
  uint8_t seed[33], rho_sigma[64];
  poly s[K], e, row[K], t;
  memcpy(seed, d, 32);
  seed[32] = K; /* G(d || k): domain separation by parameter set */
  sha3_512(rho_sigma, seed, sizeof seed);
  const uint8_t *rho = rho_sigma, *sigma = rho_sigma + 32;

  for (unsigned int i = 0; i < K; i++) {
    sample_cbd2(&s[i], sigma, (uint8_t)i);
    ntt(&s[i]);
  }
  for (unsigned int i = 0; i < K; i++) {
    /* e[i] is drawn with nonce K + i, after all of s, as Algorithm 13 orders. */
    sample_cbd2(&e, sigma, (uint8_t)(K + i));
    ntt(&e);
    matrix_row(row, rho, i, 0);
    basemul_acc(&t, row, s);
    /* basemul_acc left a factor R^-1; multiplying by R^2 in Montgomery form
     * restores the plain value before e is added. */
    for (unsigned int j = 0; j < N; j++)
      t.c[j] = freeze((int16_t)(fqmul(t.c[j], R2_MOD_Q) + e.c[j]));
    poly_encode12(ek + i * POLY_BYTES, &t);
  }
  memcpy(ek + POLYVEC_BYTES, rho, 32);
  for (unsigned int i = 0; i < K; i++) {
    for (unsigned int j = 0; j < N; j++) s[i].c[j] = freeze(s[i].c[j]);
    poly_encode12(dk + i * POLY_BYTES, &s[i]);
  }
}

/* Algorithm 14. ek's t-hat is decoded mod q, as ByteDecode_12 specifies, so
 * a key that skipped the modulus check (inside a dk) still computes safely. */
static void pke_encrypt(uint8_t c[CT_BYTES], const uint8_t ek[EK_BYTES],
                        const uint8_t m[32], const uint8_t r[32]) {
  const uint8_t *rho = ek + POLYVEC_BYTES;
  poly y[K], t[K], row[K], u, e, v, mu;
  uint8_t nonce = 0;

  for (unsigned int i = 0; i < K; i++) {
    sample_cbd2(&y[i], r, nonce++);
    ntt(&y[i]);
  }
  for (unsigned int i = 0; i < K; i++) {
    /* u[i] = NTT^-1((A-hat^T)[i] . y-hat) + e1[i]; the inverse NTT's R
     * cancels the R^-1 of the products. */
    matrix_row(row, rho, i, 1);
    basemul_acc(&u, row, y);
    ntt_inverse(&u);
    sample_cbd2(&e, r, nonce++);
    for (unsigned int j = 0; j < N; j++)
      u.c[j] = freeze((int16_t)(u.c[j] + e.c[j]));
    poly_compress_du(c + i * 32 * DU, &u);
  }

  /* v = NTT^-1(t-hat . y-hat) + e2 + Decompress_1(m). */
  for (unsigned int i = 0; i < K; i++)
    poly_decode12(&t[i], ek + i * POLY_BYTES);
  basemul_acc(&v, t, y);
  ntt_inverse(&v);
  sample_cbd2(&e, r, nonce);
  poly_from_msg(&mu, m);
  for (unsigned int j = 0; j < N; j++)
    v.c[j] = freeze((int16_t)(v.c[j] + e.c[j] + mu.c[j]));
  poly_compress_dv(c + CT_U_BYTES, &v);
}

/* Algorithm 15: m = ByteEncode_1(Compress_1(v - NTT^-1(s-hat . NTT(u)))). */
static void pke_decrypt(uint8_t m[32], const uint8_t dk[DK_PKE_BYTES],
                        const uint8_t c[CT_BYTES]) {
  poly u[K], s[K], w, v;
  for (unsigned int i = 0; i < K; i++) {
    poly_decompress_du(&u[i], c + i * 32 * DU);
    ntt(&u[i]);
    poly_decode12(&s[i], dk + i * POLY_BYTES);
  }
  basemul_acc(&w, s, u);
  ntt_inverse(&w);
  poly_decompress_dv(&v, c + CT_U_BYTES);
  for (unsigned int j = 0; j < N; j++)
    w.c[j] = freeze((int16_t)(v.c[j] - w.c[j]));
  poly_to_msg(m, &w);
}

/* --- Constant-time helpers ----------------------------------------------- */

/*
 * Hide a value from the optimiser, so that it cannot see that a mask is
 * all-zeros or all-ones and turn the selection below back into a branch.
 */
#if defined(__GNUC__) || defined(__clang__)
#define VALUE_BARRIER(x) __asm__("" : "+r"(x))
#else
#define VALUE_BARRIER(x) ((void)0)
#endif

/* 0 if a and b are equal over len bytes, 0xff otherwise; time independent
 * of where (or whether) they differ. */
static uint8_t ct_differ(const uint8_t *a, const uint8_t *b, size_t len) {
  uint8_t acc = 0;
  for (size_t i = 0; i < len; i++) acc |= (uint8_t)(a[i] ^ b[i]);
  /* Nonzero acc sets bit 31 of its negation: turn that bit into a mask. */
  uint32_t mask = (uint32_t)(-(int32_t)(((0u - (uint32_t)acc) >> 31)));
  VALUE_BARRIER(mask);
  return (uint8_t)mask;
}

/* out = mask ? b : a, bytewise, for mask 0x00 or 0xff. */
static void ct_select(uint8_t *out, const uint8_t *a, const uint8_t *b,
                      size_t len, uint8_t mask) {
  for (size_t i = 0; i < len; i++)
    out[i] = (uint8_t)(a[i] ^ (mask & (a[i] ^ b[i])));
}

/* --- ML-KEM (FIPS 203 sections 6 and 7) ---------------------------------- */

/* Algorithm 16, ML-KEM.KeyGen_internal(d, z) with coins = d || z. */
int crypto_kem_keypair_derand(unsigned char *pk, unsigned char *sk,
                              const unsigned char *coins) {
  pke_keygen(pk, sk, coins);
  memcpy(sk + DK_PKE_BYTES, pk, EK_BYTES);
  sha3_256(sk + DK_PKE_BYTES + EK_BYTES, pk, EK_BYTES);
  memcpy(sk + DK_PKE_BYTES + EK_BYTES + 32, coins + 32, 32);
  return 0;
}

int crypto_kem_keypair(unsigned char *pk, unsigned char *sk) {
  uint8_t coins[64];
  randombytes(coins, sizeof coins);
  return crypto_kem_keypair_derand(pk, sk, coins);
}

/* Section 7.2's modulus check: every 12-bit field of ek's t-hat is < q, i.e.
 * ByteEncode_12(ByteDecode_12(ek)) == ek. ek is public: early exit is fine. */
static int ek_is_valid(const uint8_t ek[EK_BYTES]) {
  for (unsigned int i = 0; i < POLYVEC_BYTES; i += 3)
    if (field12_even(ek + i) >= Q || field12_odd(ek + i) >= Q) return 0;
  return 1;
}

/* Algorithm 17, ML-KEM.Encaps_internal(ek, m) with coins = m, after the
 * input check of Algorithm 20. */
int crypto_kem_enc_derand(unsigned char *ct, unsigned char *ss,
                          const unsigned char *pk,
                          const unsigned char *coins) {
  uint8_t m_h[64], key_r[64];
  if (!ek_is_valid(pk)) {
    memset(ss, 0, CRYPTO_BYTES);
    return -1;
  }
  /* (K, r) = G(m || H(ek)) */
  memcpy(m_h, coins, 32);
  sha3_256(m_h + 32, pk, EK_BYTES);
  sha3_512(key_r, m_h, sizeof m_h);
  pke_encrypt(ct, pk, coins, key_r + 32);
  memcpy(ss, key_r, CRYPTO_BYTES);
  return 0;
}

int crypto_kem_enc(unsigned char *ct, unsigned char *ss,
                   const unsigned char *pk) {
  uint8_t m[32];
  randombytes(m, sizeof m);
  return crypto_kem_enc_derand(ct, ss, pk, m);
}

/* Algorithm 18, ML-KEM.Decaps_internal, after the hash check of Algorithm
 * 21: dk = dk_pke || ek || h || z with h == H(ek). */
int crypto_kem_dec(unsigned char *ss, const unsigned char *ct,
                   const unsigned char *sk) {
  const uint8_t *dk_pke = sk;
  const uint8_t *ek = sk + DK_PKE_BYTES;
  const uint8_t *h = ek + EK_BYTES;
  const uint8_t *z = h + 32;
  uint8_t m_h[64], key_r[64], rejected[32], ct2[CT_BYTES], h2[32];
  keccak_state st;

  sha3_256(h2, ek, EK_BYTES);
  if (ct_differ(h2, h, 32)) {
    memset(ss, 0, CRYPTO_BYTES);
    return -1;
  }

  pke_decrypt(m_h, dk_pke, ct);
  memcpy(m_h + 32, h, 32);
  sha3_512(key_r, m_h, sizeof m_h); /* (K', r') = G(m' || h) */

  /* K-bar = J(z || c) = SHAKE256(z || c, 32), computed whether or not it is
   * used, so that the work done does not reveal which key is returned. */
  keccak_init(&st);
  keccak_absorb(&st, SHAKE256_RATE, z, 32);
  keccak_absorb(&st, SHAKE256_RATE, ct, CT_BYTES);
  keccak_finalize(&st, SHAKE256_RATE, SHAKE_DSBYTE);
  keccak_squeeze(&st, SHAKE256_RATE, rejected, sizeof rejected);

  pke_encrypt(ct2, ek, m_h, key_r + 32);
  ct_select(ss, key_r, rejected, CRYPTO_BYTES, ct_differ(ct, ct2, CT_BYTES));
  return 0;
}
