/*
 * Exhaustive checks of the claims mlkem.c's comments make about its
 * arithmetic, which the known-answer test can only sample: the ranges of the
 * reductions, the exactness of the division-free compression, and the
 * precomputed tables. Includes mlkem.c to reach its static functions.
 */
#include "../mlkem.c"

#include <stdio.h>

int randombytes(unsigned char *out, unsigned long long outlen) {
  memset(out, 0, (size_t)outlen);
  return 0;
}

static int failures;

#define CHECK(cond, ...)                       \
  do {                                         \
    if (!(cond)) {                             \
      if (failures++ < 10) {                   \
        fprintf(stderr, __VA_ARGS__);          \
        fputc('\n', stderr);                   \
      }                                        \
    }                                          \
  } while (0)

static int32_t mod_q(int64_t a) {
  int64_t r = a % Q;
  return (int32_t)(r < 0 ? r + Q : r);
}

static int32_t pow_mod_q(int32_t b, unsigned int e) {
  int64_t r = 1;
  for (unsigned int i = 0; i < e; i++) r = r * b % Q;
  return (int32_t)r;
}

static unsigned int bitrev7(unsigned int i) {
  unsigned int r = 0;
  for (unsigned int b = 0; b < 7; b++) r |= ((i >> b) & 1) << (6 - b);
  return r;
}

int main(void) {
  const int64_t R = 1 << 16;

  /* barrett_reduce: congruent, centred, for every int16. freeze: [0, q). */
  for (int32_t a = INT16_MIN; a <= INT16_MAX; a++) {
    int16_t r = barrett_reduce((int16_t)a);
    CHECK(mod_q(r) == mod_q(a) && r >= -(Q - 1) / 2 && r <= (Q - 1) / 2,
          "barrett_reduce(%d) = %d", a, r);
    int16_t f = freeze((int16_t)a);
    CHECK(f == mod_q(a), "freeze(%d) = %d", a, f);
  }

  /* montgomery_reduce: a R^-1 mod q in (-q, q) across |a| < q 2^15, tested
   * at the ends and on a stride through the middle. */
  const int32_t bound = Q * (1 << 15);
  for (int32_t a = -bound + 1; a < bound; a += (a > -bound + 70000 && a < bound - 70000) ? 997 : 1) {
    int16_t r = montgomery_reduce(a);
    CHECK(mod_q((int64_t)r * R) == mod_q(a) && r > -Q && r < Q,
          "montgomery_reduce(%d) = %d", a, r);
  }

  /* compress / decompress against the definitions of section 4.2.1, in
   * exact rational arithmetic: round(2^d x / q) mod 2^d, round(q y / 2^d). */
  const unsigned int ds[] = {1, 4, 10, 11};
  for (unsigned int k = 0; k < sizeof ds / sizeof ds[0]; k++) {
    unsigned int d = ds[k];
    for (int32_t x = 0; x < Q; x++) {
      int64_t num = ((int64_t)x << d), want = (2 * num + Q) / (2 * Q);
      want &= (1 << d) - 1;
      CHECK(compress((int16_t)x, d) == want, "compress_%u(%d) = %u, want %lld",
            d, x, compress((int16_t)x, d), (long long)want);
    }
    for (uint32_t y = 0; y < (1u << d); y++) {
      int64_t want = (2 * (int64_t)Q * y + (1 << d)) / (2 << d);
      CHECK(decompress((uint16_t)y, d) == want, "decompress_%u(%u)", d, y);
    }
  }

  /* Tables and constants. */
  for (unsigned int i = 1; i < 128; i++)
    CHECK(mod_q(zetas[i]) == mod_q(pow_mod_q(17, bitrev7(i)) * R) &&
              zetas[i] >= -Q / 2 && zetas[i] <= Q / 2,
          "zetas[%u]", i);
  for (unsigned int i = 0; i < 128; i++)
    CHECK(mod_q(gammas[i]) == mod_q(pow_mod_q(17, 2 * bitrev7(i) + 1) * R) &&
              gammas[i] >= -Q / 2 && gammas[i] <= Q / 2,
          "gammas[%u]", i);
  CHECK((((int64_t)QINV * Q) & 0xffff) == 1, "QINV");
  CHECK(mod_q(R2_MOD_Q) == mod_q(R * R), "R2_MOD_Q");
  CHECK(mod_q((int64_t)NTT_INV_SCALE * 128) == mod_q(R * R), "NTT_INV_SCALE");

  /* NTT round trip and the product against schoolbook multiplication in
   * Z_q[X]/(X^256 + 1), on a few structured inputs. */
  for (int trial = 0; trial < 4; trial++) {
    poly a[K], b[K], r;
    int64_t want[N] = {0};
    for (unsigned int i = 0; i < N; i++) {
      for (unsigned int j = 0; j < K; j++) {
        a[j].c[i] = (int16_t)(((i * 37 + j * 11 + (unsigned)trial * 101) % Q));
        b[j].c[i] = (int16_t)(((i * i + j + (unsigned)trial) % 5) - 2);
      }
    }
    for (unsigned int j = 0; j < K; j++)
      for (unsigned int x = 0; x < N; x++)
        for (unsigned int y = 0; y < N; y++) {
          int64_t p = (int64_t)a[j].c[x] * b[j].c[y];
          if (x + y < N) want[x + y] += p;
          else want[x + y - N] -= p;
        }
    for (unsigned int j = 0; j < K; j++) {
      poly copy = b[j];
      ntt(&copy);
      poly back = copy;
      /* NTT^-1 scales by R; undo with one more Montgomery reduction. */
      ntt_inverse(&back);
      for (unsigned int i = 0; i < N; i++)
        CHECK(mod_q(fqmul(back.c[i], 1)) == mod_q(b[j].c[i]),
              "NTT round trip, trial %d", trial);
      ntt(&a[j]);
      b[j] = copy;
    }
    basemul_acc(&r, a, b);
    ntt_inverse(&r);
    for (unsigned int i = 0; i < N; i++)
      CHECK(mod_q(r.c[i]) == mod_q(want[i]), "product coefficient %u", i);
  }

  if (failures) {
    fprintf(stderr, "%d unit check(s) failed\n", failures);
    return 1;
  }
  printf("unit checks passed\n");
  return 0;
}
