/*
 * Spook for cryptobench: unity build.  This is the only file to hand to the
 * compiler; the flags pick one implementation of each primitive and what is
 * exported (see README.md):
 *
 *   cc -O3 -march=TARGET -fPIC -shared                                        \
 *      -DSPOOK_VERSION=1|2 -DSPOOK_CLYDE=32|64 -DSPOOK_SHADOW=32|128|256|512  \
 *      [-DSPOOK_MODE_MU] [-DSPOOK_CORE=clyde|shadow] spook_all.c -o x.so
 *
 * AEAD builds export crypto_aead_encrypt / crypto_aead_decrypt; core builds
 * export crypto_core only.  Everything else is static.
 */
#include "api.h"
#include "primitives.h"

/* Clyde-128 is needed by the AEAD and by the Clyde core build. */
#if !defined(SPOOK_CORE) || SPOOK_CORE_ID == 1
#if SPOOK_CLYDE == 32
#include "clyde_32bit.c"
#elif SPOOK_CLYDE == 64
#include "clyde_64bit.c"
#else
#error "SPOOK_CLYDE must be 32 or 64"
#endif
#endif

/* Shadow-512 is needed by the AEAD and by the Shadow core build. */
#if !defined(SPOOK_CORE) || SPOOK_CORE_ID == 2
#if SPOOK_SHADOW == 32
#include "shadow_32bit.c"
#elif SPOOK_SHADOW == 128
#include "shadow_128bit.c"
#elif SPOOK_SHADOW == 256
#include "shadow_256bit.c"
#elif SPOOK_SHADOW == 512
#include "shadow_512bit.c"
#else
#error "SPOOK_SHADOW must be 32, 128, 256 or 512"
#endif
#endif

#ifdef SPOOK_CORE
#include "core.c"
#else
#include "spook.c"
#endif
