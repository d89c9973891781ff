/*
 * Spook for cryptobench: the bitsliced Clyde-128 round pieces on 32-bit rows,
 * shared by clyde_32bit.c and shadow_32bit.c (Shadow's bundles are
 * Clyde-shaped states and use the same S-box and L-box).
 */
#ifndef SPOOK_CLYDE_COMMON_H
#define SPOOK_CLYDE_COMMON_H

#include "primitives.h"

/* S-box layer on rows x0..x3 (spec: the 4-bit S-box in bitsliced form,
 * 4 ANDs and 4 XORs; rows are updated in place). */
#define SPOOK_SBOX32(x0, x1, x2, x3)                                           \
  do {                                                                         \
    uint32_t y1_ = ((x0) & (x1)) ^ (x2);                                       \
    uint32_t y0_ = ((x3) & (x0)) ^ (x1);                                       \
    uint32_t y3_ = (y1_ & (x3)) ^ (x0);                                        \
    uint32_t y2_ = (y0_ & y1_) ^ (x3);                                         \
    (x0) = y0_;                                                                \
    (x1) = y1_;                                                                \
    (x2) = y2_;                                                                \
    (x3) = y3_;                                                                \
  } while (0)

/* L-box on a pair of rows (x, y) (spec, Algorithm "L-box"; rotations are to
 * the right).  The x and y paths are independent until the last two lines,
 * which is where the instruction-level parallelism comes from. */
#define SPOOK_LBOX32(x, y)                                                     \
  do {                                                                         \
    uint32_t a_ = (x) ^ spook_rotr32((x), 12);                                 \
    uint32_t b_ = (y) ^ spook_rotr32((y), 12);                                 \
    a_ ^= spook_rotr32(a_, 3);                                                 \
    b_ ^= spook_rotr32(b_, 3);                                                 \
    a_ ^= spook_rotr32((x), 17);                                               \
    b_ ^= spook_rotr32((y), 17);                                               \
    uint32_t c_ = a_ ^ spook_rotr32(a_, 31);                                   \
    uint32_t d_ = b_ ^ spook_rotr32(b_, 31);                                   \
    a_ ^= spook_rotr32(d_, 26);                                                \
    b_ ^= spook_rotr32(c_, 25);                                                \
    a_ ^= spook_rotr32(c_, 15);                                                \
    b_ ^= spook_rotr32(d_, 15);                                                \
    (x) = a_;                                                                  \
    (y) = b_;                                                                  \
  } while (0)

#endif /* SPOOK_CLYDE_COMMON_H */
