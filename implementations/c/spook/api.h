/*
 * Spook for cryptobench: NIST LWC / SUPERCOP sizes for the build selected by
 * the compile flags (see README.md).
 *
 *   AEAD builds (default):  Spook-128-512-su, or -mu with -DSPOOK_MODE_MU.
 *   -DSPOOK_CORE=clyde:     crypto_core = Clyde-128 (k = key || tweak).
 *   -DSPOOK_CORE=shadow:    crypto_core = Shadow-512 (v1/v2 by SPOOK_VERSION).
 */
#ifndef SPOOK_API_H
#define SPOOK_API_H

#define SPOOK_CAT_(a, b) a##b
#define SPOOK_CAT(a, b) SPOOK_CAT_(a, b)
#define SPOOK_CORE_ID_clyde 1
#define SPOOK_CORE_ID_shadow 2

#ifdef SPOOK_CORE
#define SPOOK_CORE_ID SPOOK_CAT(SPOOK_CORE_ID_, SPOOK_CORE)
#if SPOOK_CORE_ID != 1 && SPOOK_CORE_ID != 2
#error "SPOOK_CORE must be clyde or shadow"
#endif

#if SPOOK_CORE_ID == 1
#define CRYPTO_OUTPUTBYTES 16
#define CRYPTO_INPUTBYTES 16
#define CRYPTO_KEYBYTES 32 /* 16-byte key followed by the 16-byte tweak */
#define CRYPTO_CONSTBYTES 0
#else
#define CRYPTO_OUTPUTBYTES 64
#define CRYPTO_INPUTBYTES 64
#define CRYPTO_KEYBYTES 0
#define CRYPTO_CONSTBYTES 0
#endif

#else /* AEAD */

#ifdef SPOOK_MODE_MU
#define CRYPTO_KEYBYTES 32 /* secret key K || public tweak P */
#else
#define CRYPTO_KEYBYTES 16
#endif
#define CRYPTO_NSECBYTES 0
#define CRYPTO_NPUBBYTES 16
#define CRYPTO_ABYTES 16

#endif /* SPOOK_CORE */

#endif /* SPOOK_API_H */
