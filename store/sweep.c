#include "sweep.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static bool same(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

static size_t find(const struct sweep *s, size_t ns, const struct sweep_item *it)
{
	size_t i = 0;

	while (i < ns && !(same(s[i].test, it->test) && same(s[i].mode, it->mode)))
		i++;
	return i;
}

ssize_t sweep_group(const struct sweep_item *items, size_t n, struct sweep **out)
{
	struct sweep *s = NULL;
	size_t ns = 0, *which = NULL;

	*out = NULL;
	if (!n)
		return 0;
	which = malloc(n * sizeof(*which));
	if (!which)
		return -1;
	/* First pass: which sweep each item joins and how long each sweep is.  Jobs have a
	 * handful of (test, mode) pairs: a linear search beats a hash here. */
	for (size_t i = 0; i < n; i++) {
		size_t k = find(s, ns, &items[i]);

		if (k == ns) {
			struct sweep *v = realloc(s, (ns + 1) * sizeof(*v));

			if (!v)
				goto nomem;
			s = v;
			s[ns++] = (struct sweep){.test = items[i].test, .mode = items[i].mode};
		}
		s[k].n++;
		which[i] = k;
	}
	for (size_t k = 0; k < ns; k++) {
		s[k].items = malloc(s[k].n * sizeof(*s[k].items));
		if (!s[k].items)
			goto nomem;
		s[k].n = 0;
	}
	/* Insertion keeps equal task counts in input order (a repeated task count in a job is
	 * two atomic jobs, shown as listed). */
	for (size_t i = 0; i < n; i++) {
		struct sweep *x = &s[which[i]];
		size_t j = x->n++;

		for (; j > 0 && x->items[j - 1].nr_task > items[i].nr_task; j--)
			x->items[j] = x->items[j - 1];
		x->items[j] = items[i];
	}
	free(which);
	*out = s;
	return (ssize_t)ns;
nomem:
	free(which);
	sweep_free(s, ns);
	return -1;
}

void sweep_free(struct sweep *s, size_t nsweeps)
{
	for (size_t i = 0; s && i < nsweeps; i++)
		free(s[i].items);
	free(s);
}
