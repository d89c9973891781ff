/* Sizes for cryptobench's probe: a build with -DLANES=N takes N messages a call. */
#ifdef LANES
#define CRYPTO_LANES LANES
#endif
