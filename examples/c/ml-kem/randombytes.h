/*
 * The randomness source, supplied from outside this implementation: by
 * cryptobench's generated randombytes.c in a benchmark build, by the test
 * driver in test/kat.c. It must fill out[0..outlen) and return 0.
 *
 * Declared with an int result because that is how cryptobench (and PQClean)
 * define it; SUPERCOP's void form is call-compatible, and the result is not
 * relied on.
 */
#ifndef MLKEM_RANDOMBYTES_H
#define MLKEM_RANDOMBYTES_H

int randombytes(unsigned char *out, unsigned long long outlen);

#endif
