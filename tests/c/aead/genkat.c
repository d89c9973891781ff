/* Writes toy_aead_kat.txt, the known answers of toy_aead.c in the format of NIST LWC's
 * genkat_aead.c (Count, Key, Nonce, PT, AD, CT; a blank line after each entry), for
 * messages and associated data of 0 to 7 bytes: 64 entries. Generated once and committed,
 * so that a change to toy_aead.c that changes its output is caught by the KAT test:
 *   cc -O1 -o /tmp/genkat genkat.c toy_aead.c && /tmp/genkat > toy_aead_kat.txt */
#include <stdio.h>

#include "api.h"

int crypto_aead_encrypt(unsigned char *c, unsigned long long *clen, const unsigned char *m,
                        unsigned long long mlen, const unsigned char *ad,
                        unsigned long long adlen, const unsigned char *nsec,
                        const unsigned char *npub, const unsigned char *k);

#define MAX_LEN 7

static void hex(const char *name, const unsigned char *p, unsigned long long n) {
  printf("%s = ", name);
  for (unsigned long long i = 0; i < n; i++) printf("%02X", p[i]);
  printf("\n");
}

int main(void) {
  unsigned char key[CRYPTO_KEYBYTES], nonce[CRYPTO_NPUBBYTES], msg[MAX_LEN], ad[MAX_LEN];
  unsigned char ct[MAX_LEN + CRYPTO_ABYTES];
  for (int i = 0; i < CRYPTO_KEYBYTES; i++) key[i] = (unsigned char)i;
  for (int i = 0; i < CRYPTO_NPUBBYTES; i++) nonce[i] = (unsigned char)i;
  for (int i = 0; i < MAX_LEN; i++) msg[i] = ad[i] = (unsigned char)i;
  int count = 1;
  for (unsigned long long mlen = 0; mlen <= MAX_LEN; mlen++) {
    for (unsigned long long adlen = 0; adlen <= MAX_LEN; adlen++) {
      unsigned long long clen = 0;
      if (crypto_aead_encrypt(ct, &clen, msg, mlen, ad, adlen, NULL, nonce, key) != 0) return 1;
      printf("Count = %d\n", count++);
      hex("Key", key, CRYPTO_KEYBYTES);
      hex("Nonce", nonce, CRYPTO_NPUBBYTES);
      hex("PT", msg, mlen);
      hex("AD", ad, adlen);
      hex("CT", ct, clen);
      printf("\n");
    }
  }
  return 0;
}
