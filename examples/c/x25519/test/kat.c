/*
 * Known-answer and property tests for examples/c/x25519 (RFC 7748).
 * Built and run by run_tests.sh; exits non-zero on the first class of failure, after
 * printing every mismatch. X25519_KAT_MILLION=1 adds the 1,000,000-iteration vector.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../api.h"

static int failures = 0;

static void unhex(unsigned char *out, const char *hex, size_t n) {
  for (size_t i = 0; i < n; i++) {
    unsigned v;
    if (sscanf(hex + 2 * i, "%2x", &v) != 1) {
      fprintf(stderr, "bad hex in test vector: %s\n", hex);
      exit(2);
    }
    out[i] = (unsigned char)v;
  }
}

static void print_hex(const unsigned char *b, size_t n) {
  for (size_t i = 0; i < n; i++) printf("%02x", b[i]);
}

static void check(const char *name, const unsigned char *got, const unsigned char *want, int rc) {
  if (rc != 0 || memcmp(got, want, 32) != 0) {
    printf("FAIL %s (rc %d)\n  got  ", name, rc);
    print_hex(got, 32);
    printf("\n  want ");
    print_hex(want, 32);
    printf("\n");
    failures++;
  } else {
    printf("ok   %s\n", name);
  }
}

static void check_hex(const char *name, const unsigned char *got, const char *want_hex, int rc) {
  unsigned char want[32];
  unhex(want, want_hex, 32);
  check(name, got, want, rc);
}

/* RFC 7748 section 5.2, the two single-shot vectors. */
static void test_single(void) {
  static const struct {
    const char *scalar, *u, *out;
  } v[] = {
      {"a546e36bf0527c9d3b16154b82465edd62144c0ac1fc5a18506a2244ba449ac4",
       "e6db6867583030db3594c1a424b15f7c726624ec26b3353b10a903a6d0ab1c4c",
       "c3da55379de9c6908e94ea4df28d084f32eccf03491c71f754b4075577a28552"},
      /* Its u has the top bit set (last byte 0x93): the RFC's own check that it is ignored. */
      {"4b66e9d4d1b4673c5ad22691957d6af5c11b6421e0ea01d42ca4169e7918ba0d",
       "e5210f12786811d3f4b7959d0538ae2c31dbe7106fc03c3efc4cd549c715a493",
       "95cbde9476e8907d7aade45cb4b873f88b595a68799fa152e6f8f7647aac7957"},
  };
  for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
    unsigned char n[32], p[32], q[32], want[32];
    char name[64];
    unhex(n, v[i].scalar, 32);
    unhex(p, v[i].u, 32);
    unhex(want, v[i].out, 32);
    snprintf(name, sizeof name, "rfc7748 5.2 vector %zu", i + 1);
    check(name, q, want, crypto_scalarmult(q, n, p));

    /* The same vector with the top bit of u flipped must give the same result. */
    p[31] ^= 0x80;
    snprintf(name, sizeof name, "rfc7748 5.2 vector %zu, top bit of u flipped", i + 1);
    check(name, q, want, crypto_scalarmult(q, n, p));
  }
}

/* RFC 7748 section 5.2, iterated: k = u = 9; then k, u = X25519(k, u), k. */
static void test_iterated(void) {
  unsigned char k[32] = {9}, u[32] = {9}, r[32];
  int rc = 0;
  long limit = getenv("X25519_KAT_MILLION") ? 1000000L : 1000L;
  for (long i = 1; i <= limit; i++) {
    rc |= crypto_scalarmult(r, k, u);
    memcpy(u, k, 32);
    memcpy(k, r, 32);
    if (i == 1)
      check_hex("rfc7748 5.2 iterated, 1", k,
                "422c8e7a6227d7bca1350b3e2bb7279f7897b87bb6854b783c60e80311ae3079", rc);
    else if (i == 1000)
      check_hex("rfc7748 5.2 iterated, 1000", k,
                "684cf59ba83309552800ef566f2f4d3c1c3887c49360e3875f2eb94d99532c51", rc);
    else if (i == 1000000)
      check_hex("rfc7748 5.2 iterated, 1000000", k,
                "7c3911e0ab2586fd864497297e575e6f3bc601c0883c30df5f4dd2d24f665424", rc);
  }
  if (limit < 1000000) printf("skip rfc7748 5.2 iterated, 1000000 (set X25519_KAT_MILLION=1)\n");
}

/* RFC 7748 section 6.1: public keys through _base, and both sides' shared secret. */
static void test_dh(void) {
  unsigned char a[32], b[32], apub[32], bpub[32], ka[32], kb[32];
  const char *shared = "4a5d9d5ba4ce2de1728e3bf480350f25e07e21c947d19e3376f09b3c1e161742";
  unhex(a, "77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a", 32);
  unhex(b, "5dab087e624a8a4b79e17f8b83800ee66f3bb1292618b6fd1c2f8b27ff88e0eb", 32);
  check_hex("rfc7748 6.1 Alice public (base)", apub,
            "8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a",
            crypto_scalarmult_base(apub, a));
  check_hex("rfc7748 6.1 Bob public (base)", bpub,
            "de9edb7d7b7dc1b4d35b61c2ece435373f8343c85b78674dadfc7e146f882b4f",
            crypto_scalarmult_base(bpub, b));
  check_hex("rfc7748 6.1 shared, Alice side", ka, shared, crypto_scalarmult(ka, a, bpub));
  check_hex("rfc7748 6.1 shared, Bob side", kb, shared, crypto_scalarmult(kb, b, apub));
}

/* Encodings of u at or above p must act as u mod p (RFC 7748 section 5), with or without
 * the ignored top bit; and small-order points must give the all-zero output with rc 0
 * (this implementation follows NaCl and leaves the zero check to the caller). */
static void test_noncanonical_and_small_order(void) {
  unsigned char n[32], p[32], q[32], want[32];
  unhex(n, "a546e36bf0527c9d3b16154b82465edd62144c0ac1fc5a18506a2244ba449ac4", 32);

  /* 2^255 - 1 = p + 18. */
  memset(p, 0, 32);
  p[0] = 18;
  crypto_scalarmult(want, n, p);
  memset(p, 0xff, 32);
  p[31] = 0x7f;
  check("u = 2^255 - 1 acts as 18", q, want, crypto_scalarmult(q, n, p));
  p[31] = 0xff;
  check("u = 2^256 - 1 acts as 18 (top bit ignored)", q, want, crypto_scalarmult(q, n, p));

  /* p + 9 must act as the base point. */
  memset(p, 0xff, 32);
  p[0] = 0xed + 9;
  p[31] = 0x7f;
  crypto_scalarmult_base(want, n);
  check("u = p + 9 acts as the base point", q, want, crypto_scalarmult(q, n, p));

  /* Small order: 0, 1, p - 1, and p (= 0), p + 1 (= 1). */
  static const char *const small[] = {
      "0000000000000000000000000000000000000000000000000000000000000000",
      "0100000000000000000000000000000000000000000000000000000000000000",
      "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
      "edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
      "eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
      /* The two u-coordinates of points of order 8 (checked against OpenSSL, which refuses
       * them for the all-zero result). */
      "e0eb7a7c3b41b8ae1656e3faf19fc46ada098deb9c32b1fd866205165f49b800",
      "5f9c95bca3508c24b1d0b1559c83ef5b04445cc4581c8e86d8224eddd09f1157",
  };
  memset(want, 0, 32);
  for (size_t i = 0; i < sizeof small / sizeof small[0]; i++) {
    char name[96];
    unhex(p, small[i], 32);
    snprintf(name, sizeof name, "small-order u = %.8s... gives 0", small[i]);
    check(name, q, want, crypto_scalarmult(q, n, p));
  }
}

/* Diffie-Hellman agreement on pseudo-random scalars: X(a, X(b, 9)) == X(b, X(a, 9)).
 * Outputs are also checked canonical (the top bit is clear and the value is below p). */
static uint64_t rng_state = 0x243f6a8885a308d3u;
static uint64_t rng(void) {
  /* splitmix64: deterministic, so a failure is reproducible. */
  uint64_t z = (rng_state += 0x9e3779b97f4a7c15u);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
  return z ^ (z >> 31);
}

static int below_p(const unsigned char *x) {
  /* Compare from the top byte down with p = 7fff...ffed. */
  for (int i = 31; i >= 0; i--) {
    unsigned pb = i == 31 ? 0x7f : i == 0 ? 0xed : 0xff;
    if (x[i] != pb) return x[i] < pb;
  }
  return 0;
}

static void test_agreement(void) {
  int bad = 0;
  for (int iter = 0; iter < 200; iter++) {
    unsigned char a[32], b[32], pa[32], pb[32], ka[32], kb[32];
    for (int i = 0; i < 32; i += 8)
      for (int j = 0; j < 8; j++) {
        uint64_t r = rng(), s = rng();
        a[i + j] = (unsigned char)(r >> (8 * j));
        b[i + j] = (unsigned char)(s >> (8 * j));
      }
    crypto_scalarmult_base(pa, a);
    crypto_scalarmult_base(pb, b);
    crypto_scalarmult(ka, a, pb);
    crypto_scalarmult(kb, b, pa);
    if (memcmp(ka, kb, 32) != 0 || !below_p(pa) || !below_p(pb) || !below_p(ka)) {
      if (!bad) {
        printf("FAIL agreement at iteration %d\n  ka ", iter);
        print_hex(ka, 32);
        printf("\n  kb ");
        print_hex(kb, 32);
        printf("\n");
      }
      bad++;
    }
  }
  if (bad) {
    failures++;
  } else {
    printf("ok   200 random Diffie-Hellman agreements, outputs canonical\n");
  }
}

int main(void) {
  test_single();
  test_iterated();
  test_dh();
  test_noncanonical_and_small_order();
  test_agreement();
  if (failures) {
    printf("%d check(s) FAILED\n", failures);
    return 1;
  }
  printf("all checks passed\n");
  return 0;
}
