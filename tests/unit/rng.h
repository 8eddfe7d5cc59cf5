/* A deterministic generator for the unit tests' synthetic groups: xorshift64* and Box-Muller,
 * the same numbers on every machine.  Each test file seeds its own copy of the state. */
#ifndef SCALEBENCH_TEST_RNG_H
#define SCALEBENCH_TEST_RNG_H

#include <math.h>
#include <stdint.h>

static uint64_t rng_state;

static inline double rng_uniform(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return (double)((rng_state * 2685821657736338717ULL) >> 11) * 0x1.0p-53;
}

static inline double rng_normal(void)
{
	double u1 = 1 - rng_uniform(), u2 = rng_uniform();

	return sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
}

#endif
