/*
 * Known-answer and lane-equality tests for keccak_x2_neon.c.
 *
 * Built and run (under qemu-aarch64 on a non-Arm host) by run_tests.sh.
 * Exit status 0 if every check passed, 1 otherwise; one line per group.
 *
 * What each group is for:
 *   - permutation KAT: the Keccak team's KeccakF-1600-IntermediateValues
 *     (zero state permuted once, then again), on both lanes at once and with
 *     the lanes one permutation apart, so a lane swap or cross-talk shows;
 *   - SHAKE KAT: the NIST FIPS 202 example values, for the empty message and
 *     for 200 bytes of 0xA3 (1600 bits, more than one SHAKE256 block), first
 *     64 bytes and bytes 480..511 (after several squeeze permutations);
 *   - the scalar reference against the same KATs, since it is the oracle for
 *     everything below;
 *   - random permutations, and a grid of input x output lengths around the
 *     rate boundaries with different random bytes per lane, at unaligned
 *     addresses, with guard bytes around the outputs: each lane must equal the
 *     scalar reference, and nothing outside [0, outlen) may be written.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../keccak_ref.h"
#include "../keccak_x2_neon.h"

static int failures = 0;
static int checks = 0;

static void check(int ok, const char *what)
{
    checks++;
    if (!ok) {
        failures++;
        /* The first few say where it breaks; thousands would bury that. */
        if (failures <= 10)
            printf("  MISMATCH: %s\n", what);
        else if (failures == 11)
            printf("  (further mismatches not listed; see the count below)\n");
    }
}

static void hex_to_bytes(const char *hex, uint8_t *out, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++) {
        unsigned v;
        if (sscanf(hex + 2 * i, "%2x", &v) != 1) {
            fprintf(stderr, "bad hex constant\n");
            exit(2);
        }
        out[i] = (uint8_t)v;
    }
}

/* splitmix64: deterministic, so a failure reproduces exactly. */
static uint64_t rng_state = 0x243F6A8885A308D3ULL;
static uint64_t rng_next(void)
{
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}
static void rng_fill(uint8_t *p, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++)
        p[i] = (uint8_t)rng_next();
}

/* KeccakF-1600-IntermediateValues.txt (Keccak team / XKCP): the all-zero
 * state after one permutation, and after a second one. */
static const uint64_t zero_f1[25] = {
    0xF1258F7940E1DDE7ULL, 0x84D5CCF933C0478AULL, 0xD598261EA65AA9EEULL, 0xBD1547306F80494DULL,
    0x8B284E056253D057ULL, 0xFF97A42D7F8E6FD4ULL, 0x90FEE5A0A44647C4ULL, 0x8C5BDA0CD6192E76ULL,
    0xAD30A6F71B19059CULL, 0x30935AB7D08FFC64ULL, 0xEB5AA93F2317D635ULL, 0xA9A6E6260D712103ULL,
    0x81A57C16DBCF555FULL, 0x43B831CD0347C826ULL, 0x01F22F1A11A5569FULL, 0x05E5635A21D9AE61ULL,
    0x64BEFEF28CC970F2ULL, 0x613670957BC46611ULL, 0xB87C5A554FD00ECBULL, 0x8C3EE88A1CCF32C8ULL,
    0x940C7922AE3A2614ULL, 0x1841F924A2C509E4ULL, 0x16F53526E70465C2ULL, 0x75F644E97F30A13BULL,
    0xEAF1FF7B5CECA249ULL,
};
static const uint64_t zero_f2[25] = {
    0x2D5C954DF96ECB3CULL, 0x6A332CD07057B56DULL, 0x093D8D1270D76B6CULL, 0x8A20D9B25569D094ULL,
    0x4F9C4F99E5E7F156ULL, 0xF957B9A2DA65FB38ULL, 0x85773DAE1275AF0DULL, 0xFAF4F247C3D810F7ULL,
    0x1F1B9EE6F79A8759ULL, 0xE4FECC0FEE98B425ULL, 0x68CE61B6B9CE68A1ULL, 0xDEEA66C4BA8F974FULL,
    0x33C43D836EAFB1F5ULL, 0xE00654042719DBD9ULL, 0x7CF8A9F009831265ULL, 0xFD5449A6BF174743ULL,
    0x97DDAD33D8994B40ULL, 0x48EAD5FC5D0BE774ULL, 0xE3B8C8EE55B7B03CULL, 0x91A0226E649E42E9ULL,
    0x900E3129E7BADD7BULL, 0x202A9EC5FAA3CCE8ULL, 0x5B3402464E1C3DB6ULL, 0x609F4E62A44C1059ULL,
    0x20D06CD26A8FBF5CULL,
};

static void test_permutation_kat(void)
{
    uint64_t s[2][25], r[25];
    int before = failures;

    /* Reference first: it is the oracle for the later groups. */
    memset(r, 0, sizeof r);
    keccak_f1600_ref(r);
    check(memcmp(r, zero_f1, sizeof r) == 0, "ref: f(0)");
    keccak_f1600_ref(r);
    check(memcmp(r, zero_f2, sizeof r) == 0, "ref: f(f(0))");

    memset(s, 0, sizeof s);
    keccak_f1600_x2_neon(s);
    check(s[0][0] == 0xF1258F7940E1DDE7ULL, "x2: lane 0 of f(0), state 0");
    check(s[1][0] == 0xF1258F7940E1DDE7ULL, "x2: lane 0 of f(0), state 1");
    check(memcmp(s[0], zero_f1, sizeof zero_f1) == 0, "x2: f(0), state 0");
    check(memcmp(s[1], zero_f1, sizeof zero_f1) == 0, "x2: f(0), state 1");
    keccak_f1600_x2_neon(s);
    check(memcmp(s[0], zero_f2, sizeof zero_f2) == 0, "x2: f(f(0)), state 0");
    check(memcmp(s[1], zero_f2, sizeof zero_f2) == 0, "x2: f(f(0)), state 1");

    /* Lanes one permutation apart: state 0 = 0 -> f(0), state 1 = f(0) -> f(f(0)). */
    memset(s[0], 0, sizeof s[0]);
    memcpy(s[1], zero_f1, sizeof zero_f1);
    keccak_f1600_x2_neon(s);
    check(memcmp(s[0], zero_f1, sizeof zero_f1) == 0, "x2 staggered: state 0 = f(0)");
    check(memcmp(s[1], zero_f2, sizeof zero_f2) == 0, "x2 staggered: state 1 = f(f(0))");
    /* and the other way round */
    memcpy(s[0], zero_f1, sizeof zero_f1);
    memset(s[1], 0, sizeof s[1]);
    keccak_f1600_x2_neon(s);
    check(memcmp(s[0], zero_f2, sizeof zero_f2) == 0, "x2 staggered: state 0 = f(f(0))");
    check(memcmp(s[1], zero_f1, sizeof zero_f1) == 0, "x2 staggered: state 1 = f(0)");

    printf("%-4s permutation KAT (KeccakF-1600-IntermediateValues: f(0), f(f(0)); ref and both x2 lanes)\n",
           failures == before ? "ok" : "FAIL");
}

/* NIST FIPS 202 example values (SHAKE128 / SHAKE256 "Msg0" and "Msg1600"):
 * output bytes 0..63 and 480..511 of a 4096-bit output. */
struct shake_kat {
    int bits;        /* 128 or 256 */
    size_t msglen;   /* 0, or 200 bytes of 0xA3 */
    const char *head; /* bytes 0..63 */
    const char *tail; /* bytes 480..511 */
};

static const struct shake_kat shake_kats[] = {
    {128, 0,
     "7f9c2ba4e88f827d616045507605853ed73b8093f6efbc88eb1a6eacfa66ef26"
     "3cb1eea988004b93103cfb0aeefd2a686e01fa4a58e8a3639ca8a1e3f9ae57e2",
     "43e41b45a653f2a5c4492c1add544512dda2529833462b71a41a45be97290b6f"},
    {128, 200,
     "131ab8d2b594946b9c81333f9bb6e0ce75c3b93104fa3469d3917457385da037"
     "cf232ef7164a6d1eb448c8908186ad852d3f85a5cf28da1ab6fe343817197846",
     "44c9fb359fd56ac0a9a75a743cff6862f17d7259ab075216c0699511643b6439"},
    {256, 0,
     "46b9dd2b0ba88d13233b3feb743eeb243fcd52ea62b81b82b50c27646ed5762f"
     "d75dc4ddd8c0f200cb05019d67b592f6fc821c49479ab48640292eacb3b7c4be",
     "ab0bae316339894304e35877b0c28a9b1fd166c796b9cc258a064a8f57e27f2a"},
    {256, 200,
     "cd8a920ed141aa0407a22d59288652e9d9f1a7ee0c1e7c1ca699424da84a904d"
     "2d700caae7396ece96604440577da4f3aa22aeb8857f961c4cd8e06f0ae6610b",
     "6a1a9d7846436e4dca5728b6f760eef0ca92bf0be5615e96959d767197a0beeb"},
};

static void test_shake_kat(void)
{
    size_t k;
    int before = failures;

    for (k = 0; k < sizeof shake_kats / sizeof shake_kats[0]; k++) {
        const struct shake_kat *v = &shake_kats[k];
        uint8_t msg[200], head[64], tail[32], o0[512], o1[512], r[512];
        char what[96];

        memset(msg, 0xA3, sizeof msg);
        hex_to_bytes(v->head, head, sizeof head);
        hex_to_bytes(v->tail, tail, sizeof tail);

        if (v->bits == 128) {
            shake128_ref(msg, v->msglen, r, sizeof r);
            shake128_x2_neon(msg, msg, v->msglen, o0, o1, sizeof o0);
        } else {
            shake256_ref(msg, v->msglen, r, sizeof r);
            shake256_x2_neon(msg, msg, v->msglen, o0, o1, sizeof o0);
        }
        snprintf(what, sizeof what, "SHAKE%d(%zu bytes of 0xA3)", v->bits, v->msglen);
        check(memcmp(r, head, 64) == 0 && memcmp(r + 480, tail, 32) == 0, what);
        check(memcmp(o0, head, 64) == 0 && memcmp(o0 + 480, tail, 32) == 0, what);
        check(memcmp(o1, head, 64) == 0 && memcmp(o1 + 480, tail, 32) == 0, what);
    }
    printf("%-4s SHAKE KAT (FIPS 202 examples: SHAKE128/256 of \"\" and 200 x 0xA3, bytes 0..63 and 480..511; ref and both x2 lanes)\n",
           failures == before ? "ok" : "FAIL");
}

static void test_permutation_random(void)
{
    int n, before = failures;

    for (n = 0; n < 200; n++) {
        uint64_t s[2][25], r0[25], r1[25];
        rng_fill((uint8_t *)s, sizeof s);
        memcpy(r0, s[0], sizeof r0);
        memcpy(r1, s[1], sizeof r1);
        keccak_f1600_ref(r0);
        keccak_f1600_ref(r1);
        keccak_f1600_x2_neon(s);
        check(memcmp(s[0], r0, sizeof r0) == 0, "random permutation, state 0");
        check(memcmp(s[1], r1, sizeof r1) == 0, "random permutation, state 1");
    }
    printf("%-4s permutation vs scalar reference (200 random state pairs)\n",
           failures == before ? "ok" : "FAIL");
}

#define GUARD 16
#define GUARD_BYTE 0xC5

typedef void (*shake_x2_fn)(const uint8_t *, const uint8_t *, size_t, uint8_t *, uint8_t *, size_t);
typedef void (*shake_ref_fn)(const uint8_t *, size_t, uint8_t *, size_t);

static int guards_intact(const uint8_t *buf, size_t outlen)
{
    size_t i;
    for (i = 0; i < GUARD; i++)
        if (buf[i] != GUARD_BYTE || buf[GUARD + outlen + i] != GUARD_BYTE)
            return 0;
    return 1;
}

static void test_lanes(int bits, size_t rate, shake_x2_fn x2, shake_ref_fn ref)
{
    const size_t inlens[] = {0, 1, 7, 8, 9, rate - 1, rate, rate + 1, 2 * rate,
                             3 * rate + 5, 1000, 4096};
    const size_t outlens[] = {0, 1, 8, 32, rate - 1, rate, rate + 1, 2 * rate + 3};
    /* Misalign the inputs differently from each other and from 8/16 bytes, so
     * the byte loads are exercised at awkward addresses. */
    const size_t in_off0 = 1, in_off1 = 3, out_off0 = 5, out_off1 = 2;
    size_t a, b, cases = 0;
    int before = failures;

    for (a = 0; a < sizeof inlens / sizeof inlens[0]; a++) {
        for (b = 0; b < sizeof outlens / sizeof outlens[0]; b++) {
            const size_t inlen = inlens[a], outlen = outlens[b];
            uint8_t *m0 = malloc(inlen + 16), *m1 = malloc(inlen + 16);
            uint8_t *g0 = malloc(outlen + 2 * GUARD + 16), *g1 = malloc(outlen + 2 * GUARD + 16);
            uint8_t *r0 = malloc(outlen + 1), *r1 = malloc(outlen + 1);
            uint8_t *o0, *o1;
            char what[128];
            int rep;

            if (!m0 || !m1 || !g0 || !g1 || !r0 || !r1) {
                fprintf(stderr, "out of memory\n");
                exit(2);
            }
            for (rep = 0; rep < 3; rep++) {
                rng_fill(m0 + in_off0, inlen);
                rng_fill(m1 + in_off1, inlen);
                if (rep == 2 && inlen > 0) /* lanes differing in the last byte only */
                    memcpy(m1 + in_off1, m0 + in_off0, inlen - 1);
                memset(g0 + out_off0, GUARD_BYTE, outlen + 2 * GUARD);
                memset(g1 + out_off1, GUARD_BYTE, outlen + 2 * GUARD);
                o0 = g0 + out_off0 + GUARD;
                o1 = g1 + out_off1 + GUARD;

                ref(m0 + in_off0, inlen, r0, outlen);
                ref(m1 + in_off1, inlen, r1, outlen);
                x2(m0 + in_off0, m1 + in_off1, inlen, o0, o1, outlen);

                snprintf(what, sizeof what, "SHAKE%d lane 0, inlen %zu, outlen %zu", bits, inlen, outlen);
                check(memcmp(o0, r0, outlen) == 0, what);
                snprintf(what, sizeof what, "SHAKE%d lane 1, inlen %zu, outlen %zu", bits, inlen, outlen);
                check(memcmp(o1, r1, outlen) == 0, what);
                snprintf(what, sizeof what, "SHAKE%d guard bytes, inlen %zu, outlen %zu", bits, inlen, outlen);
                check(guards_intact(g0 + out_off0, outlen) && guards_intact(g1 + out_off1, outlen), what);
                cases++;
            }

            /* Both lanes given the same buffer (aliasing inputs is allowed). */
            x2(m0 + in_off0, m0 + in_off0, inlen, o0, o1, outlen);
            snprintf(what, sizeof what, "SHAKE%d aliased inputs, inlen %zu, outlen %zu", bits, inlen, outlen);
            check(memcmp(o0, r0, outlen) == 0 && memcmp(o1, r0, outlen) == 0, what);
            cases++;

            free(m0);
            free(m1);
            free(g0);
            free(g1);
            free(r0);
            free(r1);
        }
    }
    printf("%-4s SHAKE%d x2 lanes vs scalar reference (%zu cases: %zu input x %zu output lengths, rate %zu)\n",
           failures == before ? "ok" : "FAIL", bits, cases, sizeof inlens / sizeof inlens[0],
           sizeof outlens / sizeof outlens[0], rate);
}

int main(void)
{
    printf("keccak_x2_neon built with %s\n",
           keccak_x2_neon_uses_sha3() ? "ARMv8.2-A SHA-3 instructions (EOR3/RAX1/XAR/BCAX)"
                                      : "ARMv8.0-A NEON only (SHL+SRI rotations, BIC+EOR chi)");
    test_permutation_kat();
    test_shake_kat();
    test_permutation_random();
    test_lanes(128, KECCAK_X2_SHAKE128_RATE, shake128_x2_neon, shake128_ref);
    test_lanes(256, KECCAK_X2_SHAKE256_RATE, shake256_x2_neon, shake256_ref);
    printf("%d checks, %d failed\n", checks, failures);
    return failures == 0 ? 0 : 1;
}
