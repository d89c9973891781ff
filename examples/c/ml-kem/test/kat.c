/*
 * C2SP CCTV's accumulated ML-KEM-768 test (c2sp.org/CCTV/ML-KEM), run through
 * the SUPERCOP API exactly as cryptobench drives it.
 *
 * One SHAKE-128 stream of the empty string supplies, per test, d, z, m and a
 * random ciphertext. This file's randombytes() reads that stream directly, so
 * crypto_kem_keypair() must draw exactly d || z (64 bytes, one call) and
 * crypto_kem_enc() exactly m (32 bytes, one call) for the hash to come out
 * right; the test then reads the random ciphertext itself. ek, dk, ct, K and
 * Decaps(dk, random ciphertext) are absorbed into a second SHAKE-128, whose
 * first 32 bytes are printed in hex.
 *
 * Each test also checks that the _derand forms agree with the randombytes
 * forms, that Decaps(dk, ct) == K, and the input checks once at the end.
 *
 * usage: kat [tests]   (default 100)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../api.h"
#include "../fips202.h"
#include "../randombytes.h"

static keccak_state rng;
/* What the last randombytes() call handed out, and how many calls so far. */
static unsigned char last_draw[64];
static unsigned long long last_len, draws;

int randombytes(unsigned char *out, unsigned long long outlen) {
  shake128_squeeze(&rng, out, (size_t)outlen);
  last_len = outlen;
  if (outlen <= sizeof last_draw) memcpy(last_draw, out, (size_t)outlen);
  draws++;
  return 0;
}

static int failures;

static void check(int ok, const char *what, unsigned long test) {
  if (!ok) {
    if (failures < 10) fprintf(stderr, "test %lu: %s\n", test, what);
    failures++;
  }
}

int main(int argc, char **argv) {
  unsigned long tests = argc > 1 ? strtoul(argv[1], NULL, 10) : 100;
  static unsigned char pk[CRYPTO_PUBLICKEYBYTES], sk[CRYPTO_SECRETKEYBYTES];
  static unsigned char pk2[CRYPTO_PUBLICKEYBYTES], sk2[CRYPTO_SECRETKEYBYTES];
  static unsigned char ct[CRYPTO_CIPHERTEXTBYTES], ct2[CRYPTO_CIPHERTEXTBYTES];
  static unsigned char ct_rand[CRYPTO_CIPHERTEXTBYTES];
  unsigned char ss[CRYPTO_BYTES], ss2[CRYPTO_BYTES], back[CRYPTO_BYTES];
  unsigned char k_rand[CRYPTO_BYTES], coins[64], out[32];
  keccak_state acc;

  shake128_init(&rng);
  shake128_finalize(&rng);
  shake128_init(&acc);

  for (unsigned long t = 0; t < tests; t++) {
    unsigned long long before = draws;
    check(crypto_kem_keypair(pk, sk) == 0, "keypair failed", t);
    check(draws == before + 1 && last_len == 64,
          "keypair must call randombytes(coins, 64) once", t);
    memcpy(coins, last_draw, 64);
    check(crypto_kem_keypair_derand(pk2, sk2, coins) == 0 &&
              memcmp(pk, pk2, sizeof pk) == 0 &&
              memcmp(sk, sk2, sizeof sk) == 0,
          "keypair_derand differs from keypair", t);

    before = draws;
    check(crypto_kem_enc(ct, ss, pk) == 0, "enc failed", t);
    check(draws == before + 1 && last_len == 32,
          "enc must call randombytes(m, 32) once", t);
    memcpy(coins, last_draw, 32);
    check(crypto_kem_enc_derand(ct2, ss2, pk, coins) == 0 &&
              memcmp(ct, ct2, sizeof ct) == 0 && memcmp(ss, ss2, sizeof ss) == 0,
          "enc_derand differs from enc", t);

    check(crypto_kem_dec(back, ct, sk) == 0 &&
              memcmp(back, ss, sizeof ss) == 0,
          "dec(sk, enc(pk)) != shared secret", t);

    shake128_squeeze(&rng, ct_rand, sizeof ct_rand);
    check(crypto_kem_dec(k_rand, ct_rand, sk) == 0, "dec of random ct failed",
          t);

    shake128_absorb(&acc, pk, sizeof pk);
    shake128_absorb(&acc, sk, sizeof sk);
    shake128_absorb(&acc, ct, sizeof ct);
    shake128_absorb(&acc, ss, sizeof ss);
    shake128_absorb(&acc, k_rand, sizeof k_rand);
  }

  /* The input checks of FIPS 203 section 7, on the last key pair. A t-hat
   * field of 3329 (= q) must fail the modulus check; 3328 must pass. */
  pk[0] = 0x01;
  pk[1] = (unsigned char)((pk[1] & 0xf0) | 0x0d); /* field 0 = 0xd01 = 3329 */
  check(crypto_kem_enc(ct, ss, pk) == -1, "enc accepted ek with a field = q",
        tests);
  pk[0] = 0x00; /* 0xd00 = 3328 */
  check(crypto_kem_enc(ct, ss, pk) == 0, "enc rejected ek with a field = q-1",
        tests);
  sk[CRYPTO_SECRETKEYBYTES - 64] ^= 1; /* H(ek) no longer matches ek */
  check(crypto_kem_dec(ss, ct_rand, sk) == -1,
        "dec accepted dk whose H(ek) is wrong", tests);

  shake128_finalize(&acc);
  shake128_squeeze(&acc, out, sizeof out);
  printf("%s accumulated(%lu) = ", CRYPTO_ALGNAME, tests);
  for (size_t i = 0; i < sizeof out; i++) printf("%02x", out[i]);
  printf("\n");
  if (failures) fprintf(stderr, "%d check(s) failed\n", failures);
  return failures ? 1 : 0;
}
