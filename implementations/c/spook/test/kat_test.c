/*
 * Spook for cryptobench: known-answer and behaviour tests for one built
 * shared object (loaded with dlopen, exactly as the benchmark loads it).
 *
 *   kat_test aead   LIB.so KATFILE   all LWC KAT entries, encryption and
 *                                    decryption, tag/ciphertext tampering,
 *                                    in-place use, long-message round trips
 *   kat_test clyde  LIB.so           Clyde-128 primitive vector (crypto_core)
 *   kat_test shadow LIB.so 1|2       Shadow-512 v1/v2 primitive vector
 *   kat_test cross  LIB.so REF.so    same outputs as a reference build on long
 *                                    random messages (multi-block paths)
 *   kat_test tables                  constant tables in primitives.h
 *
 * Exit status 0 on success, 1 on any failure, 2 on usage/setup errors.
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../primitives.h"

typedef int (*enc_fn)(unsigned char *, unsigned long long *,
                      const unsigned char *, unsigned long long,
                      const unsigned char *, unsigned long long,
                      const unsigned char *, const unsigned char *,
                      const unsigned char *);
typedef int (*dec_fn)(unsigned char *, unsigned long long *, unsigned char *,
                      const unsigned char *, unsigned long long,
                      const unsigned char *, unsigned long long,
                      const unsigned char *, const unsigned char *);
typedef int (*core_fn)(unsigned char *, const unsigned char *,
                       const unsigned char *, const unsigned char *);

static int failures;

#define FAIL(...)                                                              \
  do {                                                                         \
    if (failures < 20) {                                                       \
      fprintf(stderr, "FAIL: ");                                               \
      fprintf(stderr, __VA_ARGS__);                                            \
      fputc('\n', stderr);                                                     \
    }                                                                          \
    failures++;                                                                \
  } while (0)

static void *load_sym(void *lib, const char *name) {
  void *p = dlsym(lib, name);
  if (!p) {
    fprintf(stderr, "missing symbol %s: %s\n", name, dlerror());
    exit(2);
  }
  return p;
}

static void *open_lib(const char *path) {
  void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    fprintf(stderr, "dlopen %s: %s\n", path, dlerror());
    exit(2);
  }
  return lib;
}

static size_t unhex(unsigned char *out, size_t cap, const char *hex) {
  size_t n = 0;
  while (hex[0] && hex[1] && hex[0] != '\n' && hex[0] != '\r') {
    unsigned v;
    if (sscanf(hex, "%2x", &v) != 1 || n >= cap) {
      fprintf(stderr, "bad hex: %s\n", hex);
      exit(2);
    }
    out[n++] = (unsigned char)v;
    hex += 2;
  }
  return n;
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint8_t rnd8(void) {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return (uint8_t)(rng_state >> 24);
}
static void rnd_fill(unsigned char *p, size_t n) {
  for (size_t i = 0; i < n; i++) p[i] = rnd8();
}

/* ------------------------------------------------------------------ aead */

struct kat_entry {
  unsigned char key[64], nonce[32], pt[64], ad[64], ct[128];
  size_t keylen, noncelen, ptlen, adlen, ctlen;
  int count;
};

static int check_entry(enc_fn enc, dec_fn dec, const struct kat_entry *e) {
  unsigned char c[256], m[256], buf[256];
  unsigned long long clen = 0, mlen = 0;
  int before = failures;

  memset(c, 0xAA, sizeof c);
  if (enc(c, &clen, e->pt, e->ptlen, e->ad, e->adlen, NULL, e->nonce, e->key))
    FAIL("count %d: encrypt returned non-zero", e->count);
  if (clen != e->ctlen || memcmp(c, e->ct, e->ctlen))
    FAIL("count %d: ciphertext mismatch", e->count);
  if (c[e->ctlen] != 0xAA) FAIL("count %d: encrypt wrote past clen", e->count);

  memset(m, 0xAA, sizeof m);
  if (dec(m, &mlen, NULL, e->ct, e->ctlen, e->ad, e->adlen, e->nonce, e->key))
    FAIL("count %d: decrypt rejected a valid ciphertext", e->count);
  if (mlen != e->ptlen || memcmp(m, e->pt, e->ptlen))
    FAIL("count %d: decrypted plaintext mismatch", e->count);

  /* Tampered tag (one bit of every tag byte position, in turn), tampered
   * ciphertext, tampered AD: must be rejected, with no plaintext released. */
  for (size_t pos = 0; pos < e->ctlen; pos++) {
    if (pos < e->ptlen || pos >= e->ctlen - 16) {
      memcpy(buf, e->ct, e->ctlen);
      buf[pos] ^= (unsigned char)(1u << (pos & 7));
      memset(m, 0xAA, sizeof m);
      mlen = 12345;
      int r = dec(m, &mlen, NULL, buf, e->ctlen, e->ad, e->adlen, e->nonce,
                  e->key);
      if (r != -1) FAIL("count %d: forged byte %zu accepted", e->count, pos);
      /* This implementation wipes the output buffer on failure. */
      for (size_t i = 0; i < e->ptlen; i++)
        if (m[i] != 0) {
          FAIL("count %d: plaintext released on tag mismatch", e->count);
          break;
        }
    }
  }
  if (e->adlen) {
    unsigned char ad2[64];
    memcpy(ad2, e->ad, e->adlen);
    ad2[e->adlen - 1] ^= 0x80;
    if (dec(m, &mlen, NULL, e->ct, e->ctlen, ad2, e->adlen, e->nonce, e->key) != -1)
      FAIL("count %d: modified AD accepted", e->count);
  }
  if (dec(m, &mlen, NULL, e->ct, 15, e->ad, e->adlen, e->nonce, e->key) != -1)
    FAIL("count %d: clen < 16 accepted", e->count);

  /* In place: c == m. */
  memcpy(buf, e->pt, e->ptlen);
  enc(buf, &clen, buf, e->ptlen, e->ad, e->adlen, NULL, e->nonce, e->key);
  if (clen != e->ctlen || memcmp(buf, e->ct, e->ctlen))
    FAIL("count %d: in-place encryption mismatch", e->count);
  if (dec(buf, &mlen, NULL, buf, e->ctlen, e->ad, e->adlen, e->nonce, e->key) ||
      mlen != e->ptlen || memcmp(buf, e->pt, e->ptlen))
    FAIL("count %d: in-place decryption mismatch", e->count);

  return failures == before;
}

static int run_aead(const char *libpath, const char *katpath) {
  void *lib = open_lib(libpath);
  enc_fn enc = (enc_fn)load_sym(lib, "crypto_aead_encrypt");
  dec_fn dec = (dec_fn)load_sym(lib, "crypto_aead_decrypt");
  FILE *f = fopen(katpath, "r");
  if (!f) {
    perror(katpath);
    return 2;
  }
  char line[1024];
  struct kat_entry e;
  int have = 0, entries = 0, bad_entries = 0;
  memset(&e, 0, sizeof e);
  for (;;) {
    char *got = fgets(line, sizeof line, f);
    if (!got || line[0] == '\n' || line[0] == '\r') {
      if (have) {
        entries++;
        if (!check_entry(enc, dec, &e)) bad_entries++;
        memset(&e, 0, sizeof e);
        have = 0;
      }
      if (!got) break;
      continue;
    }
    char *eq = strstr(line, " = ");
    const char *val = eq ? eq + 3 : "";
    if (!strncmp(line, "Count", 5)) e.count = atoi(val), have = 1;
    else if (!strncmp(line, "Key", 3)) e.keylen = unhex(e.key, sizeof e.key, val);
    else if (!strncmp(line, "Nonce", 5)) e.noncelen = unhex(e.nonce, sizeof e.nonce, val);
    else if (!strncmp(line, "PT", 2)) e.ptlen = unhex(e.pt, sizeof e.pt, val);
    else if (!strncmp(line, "AD", 2)) e.adlen = unhex(e.ad, sizeof e.ad, val);
    else if (!strncmp(line, "CT", 2)) e.ctlen = unhex(e.ct, sizeof e.ct, val);
  }
  fclose(f);
  if (entries != 1089) FAIL("expected 1089 KAT entries, parsed %d", entries);

  /* Long messages: round trip (also in place) and tampering of the last
   * ciphertext block, for lengths around the 32-byte rate up to 64 KiB. */
  static const size_t lens[] = {33, 63, 64, 65, 95, 96, 97, 1000, 2048, 65536 + 7};
  size_t maxlen = 65536 + 7 + 16;
  unsigned char *m = malloc(maxlen), *c = malloc(maxlen), *m2 = malloc(maxlen);
  unsigned char key[32], nonce[16], ad[300];
  for (size_t li = 0; li < sizeof lens / sizeof lens[0]; li++) {
    size_t len = lens[li], adlen = (li * 37) % sizeof ad;
    unsigned long long clen, mlen;
    rnd_fill(key, sizeof key);
    rnd_fill(nonce, sizeof nonce);
    rnd_fill(ad, adlen);
    rnd_fill(m, len);
    enc(c, &clen, m, len, ad, adlen, NULL, nonce, key);
    if (clen != len + 16) FAIL("long %zu: clen", len);
    if (dec(m2, &mlen, NULL, c, clen, ad, adlen, nonce, key) || mlen != len ||
        memcmp(m, m2, len))
      FAIL("long %zu: round trip", len);
    memcpy(m2, m, len);
    enc(m2, &clen, m2, len, ad, adlen, NULL, nonce, key);
    if (memcmp(m2, c, clen)) FAIL("long %zu: in-place encryption", len);
    c[len - 1] ^= 1;
    memset(m2, 0, len);
    if (dec(m2, &mlen, NULL, c, clen, ad, adlen, nonce, key) != -1)
      FAIL("long %zu: tampered ciphertext accepted", len);
    for (size_t i = 0; i < len; i++)
      if (m2[i]) {
        FAIL("long %zu: plaintext released on tag mismatch", len);
        break;
      }
  }
  free(m);
  free(c);
  free(m2);
  printf("%d KAT entries, %d failing\n", entries, bad_entries);
  return failures ? 1 : 0;
}

/* Cross-check against a reference build (same version and mode) on long,
 * random inputs: exercises multi-block paths the KAT file does not reach. */
static int run_cross(const char *libpath, const char *refpath) {
  void *lib = open_lib(libpath), *ref = open_lib(refpath);
  enc_fn enc = (enc_fn)load_sym(lib, "crypto_aead_encrypt");
  enc_fn enc_ref = (enc_fn)load_sym(ref, "crypto_aead_encrypt");
  size_t max = 4096 + 16;
  unsigned char *m = malloc(max), *c1 = malloc(max), *c2 = malloc(max);
  unsigned char key[32], nonce[16], ad[200];
  for (int it = 0; it < 200; it++) {
    size_t len = (size_t)(it * 131) % 4096, adlen = (size_t)(it * 17) % sizeof ad;
    unsigned long long l1, l2;
    rnd_fill(key, 32);
    rnd_fill(nonce, 16);
    rnd_fill(ad, adlen);
    rnd_fill(m, len);
    enc(c1, &l1, m, len, ad, adlen, NULL, nonce, key);
    enc_ref(c2, &l2, m, len, ad, adlen, NULL, nonce, key);
    if (l1 != l2 || memcmp(c1, c2, l1))
      FAIL("cross: mismatch with reference at mlen %zu adlen %zu", len, adlen);
  }
  free(m);
  free(c1);
  free(c2);
  return failures ? 1 : 0;
}

/* ------------------------------------------------------------ primitives */

static int run_clyde(const char *libpath) {
  core_fn core = (core_fn)load_sym(open_lib(libpath), "crypto_core");
  unsigned char k[32], in[16], want[16], out[16];
  unhex(k, 16, "c65af8ddcf9d4a70b7202e959b4bfdb7");
  unhex(k + 16, 16, "9cc976bd0c21484c9d19f927b1aa3fe1");
  unhex(in, 16, "d08440223680404fa209b21cf7ff86a6");
  unhex(want, 16, "6b73fa3e9a5a89952cd29d3ee2038501");
  core(out, in, k, NULL);
  if (memcmp(out, want, 16)) FAIL("Clyde-128 vector");
  memcpy(out, in, 16); /* in place */
  core(out, out, k, NULL);
  if (memcmp(out, want, 16)) FAIL("Clyde-128 vector (in place)");
  return failures ? 1 : 0;
}

static int run_shadow(const char *libpath, int version) {
  core_fn core = (core_fn)load_sym(open_lib(libpath), "crypto_core");
  unsigned char in[64], want[64], out[64];
  for (int i = 0; i < 64; i++) in[i] = (unsigned char)i;
  unhex(want, 64,
        version == 1
            ? "683fa9f900f658a27166e2cc1bb40df832d270f8c01088bfeb92432f0db2e69c"
              "73c64d2a3cf32849bc6ee1be092a4268ad56f078cb2b87924477cc15cd565238"
            : "395399a17d77bae96dcdb792467e1de84f12d34aeef4325e5212bbc5401e917c"
              "591230a4d3253c206a10bbe991fc962bbbebb688229ef958c1e4e101180b2e56");
  core(out, in, NULL, NULL);
  if (memcmp(out, want, 64)) FAIL("Shadow-512 v%d vector", version);
  core(in, in, NULL, NULL); /* in place */
  if (memcmp(in, want, 64)) FAIL("Shadow-512 v%d vector (in place)", version);
  return failures ? 1 : 0;
}

static int run_tables(void) {
  unsigned x = 0x8;
  for (int r = 0; r < 12; r++) {
    if (spook_clyde_rc[r] != x) FAIL("Clyde round constant %d", r);
    unsigned b = x & 1;
    x = ((x ^ (b << 3)) | (b << 4)) >> 1;
  }
  uint32_t l = 0xf8737400u;
  for (int i = 0; i < 48; i++) {
    if (spook_shadow_v2_rc[i / 8][i % 8] != l) FAIL("Shadow v2 constant %d", i);
    l = (l << 1) ^ ((l >> 31) ? 0xc5u : 0u);
  }
  return failures ? 1 : 0;
}

int main(int argc, char **argv) {
  if (argc >= 4 && !strcmp(argv[1], "aead")) return run_aead(argv[2], argv[3]);
  if (argc >= 4 && !strcmp(argv[1], "cross")) return run_cross(argv[2], argv[3]);
  if (argc >= 3 && !strcmp(argv[1], "clyde")) return run_clyde(argv[2]);
  if (argc >= 4 && !strcmp(argv[1], "shadow")) return run_shadow(argv[2], atoi(argv[3]));
  if (argc >= 2 && !strcmp(argv[1], "tables")) return run_tables();
  fprintf(stderr,
          "usage: %s aead LIB KATFILE | cross LIB REFLIB | clyde LIB | "
          "shadow LIB 1|2 | tables\n",
          argv[0]);
  return 2;
}
