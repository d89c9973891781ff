/* A build that brings its own randombytes (as PQClean and SUPERCOP trees do): it
 * replaces the weak one cryptobench links, so the gate cannot feed it known seeds. */
#include <sys/random.h>

int randombytes(unsigned char *x, unsigned long long n) {
  while (n > 0) {
    long got = getrandom(x, n > 256 ? 256 : n, 0);
    if (got > 0) {
      x += got;
      n -= (unsigned long long)got;
    }
  }
  return 0;
}
