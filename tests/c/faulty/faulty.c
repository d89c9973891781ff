/* Deliberately faulty crypto_hash builds for cryptobench's tests, chosen by -D flags:
 * FAULT_WRONG: a wrong digest (must be refused by the gate);
 * FAULT_AT_119: a wrong digest for 119-byte messages only, the longest whose padding
 *   fits two blocks (must be refused by the gate, which checks every length up to two
 *   blocks);
 * FAULT_CRASH: SIGSEGV on the third call after the gate's calls (must fail alone);
 * FAULT_HANG: loops forever on the third such call (must be killed by the timeout);
 * FAULT_HANG_IN_GATE: loops forever on the gate's 3-byte message (the failure must name
 *   the gate's call it hangs in);
 * FAULT_CRASH_IN_GATE: SIGSEGV on the gate's 3-byte message (fails its own check: the
 *   builds compared with it must not fail for it);
 * FAULT_CRASH_AS_PEER: SIGSEGV where the process's first call hashes an empty message,
 *   as only a comparison with another build's output makes it (alone, the gate starts
 *   with "abc"): passes alone, dies when called as a peer (it must fail, not the build
 *   compared with it);
 * FAULT_EXIT: exit(0) on the third such call (a worker gone without a reply: fails alone);
 * FAULT_EXIT1: exit(1) on the third such call (a worker that failed: fails alone);
 * FAULT_ABORT: abort() on the third such call (SIGABRT: fails alone);
 * FAULT_PRINT: a correct hash that prints to stdout on every call (must not disturb
 *   the worker's reply, and is measured like the others);
 * FAULT_FORK: forks a child that sleeps for ten minutes, holding the worker's pipes, on
 *   the third such call, and goes on correctly (the case is measured, the run does not
 *   wait, and the child is killed with the worker); the child appends its pid to
 *   `fork-children.pid` in the current directory, for the test to check it is gone;
 * FAULT_SIGINT: raises SIGINT on the third such call (a crash, not the user's Ctrl-C);
 * FAULT_RET: returns -1 for every 20000-byte message, leaving the digest unwritten (the
 *   case must fail with that status, not be timed doing nothing);
 * FAULT_WRONG_LATER: a wrong digest for 20000-byte messages from the 21st such call on,
 *   inside the timed loop (the gate and the untimed call before timing see it right: only
 *   the call after timing, compared with the one before, refuses it);
 * FAULT_AT_4096: a wrong digest for 4096-byte messages only, a length the gate's own
 *   lengths leave out: only a gate that checks the lengths a run times refuses it;
 * FAULT_HALF: writes the first 16 bytes of the digest only, as glue copying a short
 *   digest would (every variant sharing it agrees: the gate must refuse it anyway).
 * FAULT_BROKEN: does not compile (#error): a run stops before measuring anything, or
 *   with --keep-going fails that build's cases and measures the others.
 * Otherwise it is a plain (slow, bytewise) SHA-256 that passes. */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api.h"

#ifdef FAULT_BROKEN
#error "this variant does not compile (FAULT_BROKEN)"
#endif

static const uint32_t K[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};
#define ROR(x, n) (((x) >> (n)) | ((x) << (32 - (n))))

static void compress(uint32_t h[8], const unsigned char *p) {
  uint32_t w[64], a, b, c, d, e, f, g, k;
  for (int i = 0; i < 16; i++) w[i] = (uint32_t)p[4*i] << 24 | (uint32_t)p[4*i+1] << 16 | (uint32_t)p[4*i+2] << 8 | p[4*i+3];
  for (int i = 16; i < 64; i++)
    w[i] = w[i-16] + (ROR(w[i-15], 7) ^ ROR(w[i-15], 18) ^ (w[i-15] >> 3)) + w[i-7] + (ROR(w[i-2], 17) ^ ROR(w[i-2], 19) ^ (w[i-2] >> 10));
  a = h[0]; b = h[1]; c = h[2]; d = h[3]; e = h[4]; f = h[5]; g = h[6]; k = h[7];
  for (int i = 0; i < 64; i++) {
    uint32_t t1 = k + (ROR(e, 6) ^ ROR(e, 11) ^ ROR(e, 25)) + ((e & f) ^ (~e & g)) + K[i] + w[i];
    uint32_t t2 = (ROR(a, 2) ^ ROR(a, 13) ^ ROR(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
    k = g; g = f; f = e; e = d + t1; d = c; c = b; b = a; a = t1 + t2;
  }
  h[0] += a; h[1] += b; h[2] += c; h[3] += d; h[4] += e; h[5] += f; h[6] += g; h[7] += k;
}

static int long_calls;

int crypto_hash(unsigned char *out, const unsigned char *in, unsigned long long inlen) {
#ifdef FAULT_RET
  if (inlen == 20000) return -1;
#endif
  /* A raised SIGSEGV is raised again until it kills: the worker's handler, which writes
   * the call's note, returns to the raise. */
#ifdef FAULT_CRASH_IN_GATE
  if (inlen == 3)
    for (;;) raise(SIGSEGV);
#endif
#ifdef FAULT_CRASH_AS_PEER
  static int called;
  if (!called++ && inlen == 0)
    for (;;) raise(SIGSEGV);
#endif
#ifdef FAULT_HANG_IN_GATE
  /* The gate's first published example ("abc"): a hang before anything is timed. */
  if (inlen == 3)
    for (volatile int spin = 1; spin;) {
    }
#endif
#ifdef FAULT_RET_LATER
  /* Past the untimed call before timing (one a layout), inside the timed loop. */
  static int timed_calls;
  if (inlen == 20000 && ++timed_calls > 20) return -1;
#endif
  /* The gate never hashes 20000 bytes; the tests time exactly that length. */
  if (inlen == 20000 && ++long_calls >= 3) {
#ifdef FAULT_CRASH
    raise(SIGSEGV);
#endif
#ifdef FAULT_HANG
    for (volatile int spin = 1; spin;) {
    }
#endif
#ifdef FAULT_EXIT
    exit(0);
#endif
#ifdef FAULT_EXIT1
    exit(1);
#endif
#ifdef FAULT_ABORT
    abort();
#endif
#ifdef FAULT_FORK
    if (long_calls == 3 && fork() == 0) {
      FILE *f = fopen("fork-children.pid", "a");
      if (f) {
        fprintf(f, "%d\n", (int)getpid());
        fclose(f);
      }
      sleep(600);
      _exit(0);
    }
#endif
#ifdef FAULT_SIGINT
    raise(SIGINT);
#endif
  }
#ifdef FAULT_PRINT
  printf("{\"debug\": %llu}\n", inlen);
#endif
  uint32_t h[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
  unsigned long long bits = inlen * 8;
  for (; inlen >= 64; in += 64, inlen -= 64) compress(h, in);
  unsigned char last[128] = {0};
  memcpy(last, in, (size_t)inlen);
  last[inlen] = 0x80;
  size_t n = inlen < 56 ? 64 : 128;
  for (int i = 0; i < 8; i++) last[n - 1 - i] = (unsigned char)(bits >> (8 * i));
  compress(h, last);
  if (n == 128) compress(h, last + 64);
#ifdef FAULT_HALF
  for (int i = 0; i < 4; i++) {
#else
  for (int i = 0; i < 8; i++) {
#endif
    out[4*i] = (unsigned char)(h[i] >> 24); out[4*i+1] = (unsigned char)(h[i] >> 16);
    out[4*i+2] = (unsigned char)(h[i] >> 8); out[4*i+3] = (unsigned char)h[i];
  }
#ifdef FAULT_WRONG_LATER
  static int wrong_calls;
  if (bits == 20000 * 8 && ++wrong_calls > 20) out[0] ^= 1;
#endif
#ifdef FAULT_WRONG
  out[31] ^= 1;
#endif
#ifdef FAULT_AT_119
  if (bits == 119 * 8) out[31] ^= 1;
#endif
#ifdef FAULT_AT_4096
  if (bits == 4096 * 8) out[31] ^= 1;
#endif
  return 0;
}
