/* Rates are counted over the interval the sampler actually measured: a sampler woken late
 * must not turn a 1.2 s interval into a 20% higher "per second" figure. */
#include "core.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int window_append(struct sample_window *w, uint64_t t_ns, const uint64_t *counts)
{
	if (w->n == w->cap) {
		size_t cap = w->cap ? w->cap * 2 : 64;
		uint64_t *t = realloc(w->t_ns, cap * sizeof(*t));

		if (!t)
			return -ENOMEM;
		w->t_ns = t;
		uint64_t *c = realloc(w->counts, cap * w->nr_copies * sizeof(*c));
		if (!c)
			return -ENOMEM;
		w->counts = c;
		w->cap = cap;
	}
	w->t_ns[w->n] = t_ns;
	memcpy(&w->counts[w->n * w->nr_copies], counts, w->nr_copies * sizeof(*counts));
	w->n++;
	return 0;
}

void window_free(struct sample_window *w)
{
	free(w->t_ns);
	free(w->counts);
	w->t_ns = NULL;
	w->counts = NULL;
	w->n = w->cap = 0;
}

static uint64_t count_at(const struct sample_window *w, size_t i, unsigned c)
{
	return w->counts[i * w->nr_copies + c];
}

uint64_t window_delta(const struct sample_window *w, size_t i, unsigned c)
{
	if (i == 0 || i >= w->n)
		return 0;
	return count_at(w, i, c) - count_at(w, i - 1, c);
}

double window_copy_rate(const struct sample_window *w, size_t from, size_t to, unsigned c)
{
	if (to <= from || to >= w->n || w->t_ns[to] <= w->t_ns[from])
		return 0.0;
	return (double)(count_at(w, to, c) - count_at(w, from, c)) * 1e9 /
	       (double)(w->t_ns[to] - w->t_ns[from]);
}

int window_rates(const struct sample_window *w, size_t from, size_t to, struct interval_rates *r)
{
	memset(r, 0, sizeof(*r));
	if (to <= from || to >= w->n || w->t_ns[to] <= w->t_ns[from] || w->nr_copies == 0)
		return -1;
	r->seconds = (double)(w->t_ns[to] - w->t_ns[from]) / 1e9;
	for (unsigned c = 0; c < w->nr_copies; c++) {
		uint64_t ops = count_at(w, to, c) - count_at(w, from, c);
		double rate = (double)ops / r->seconds;

		r->ops += ops;
		r->total += rate;
		if (c == 0 || rate < r->min)
			r->min = rate;
		if (c == 0 || rate > r->max)
			r->max = rate;
	}
	r->mean = r->total / w->nr_copies;
	return 0;
}
