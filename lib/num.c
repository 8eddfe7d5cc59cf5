#include "num.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

int num_parse_duration(const char *s, double *out)
{
	static const struct {
		char unit;
		double s;
	} units[] = {{'s', 1}, {'m', 60}, {'h', 3600}, {'d', 86400}};
	size_t n = strlen(s), i = 0, dots = 0;
	double scale = 1;
	char *end;

	if (n && (s[n - 1] < '0' || s[n - 1] > '9')) {
		bool found = false;

		for (size_t u = 0; u < sizeof(units) / sizeof(units[0]); u++)
			if (s[n - 1] == units[u].unit) {
				scale = units[u].s;
				found = true;
			}
		if (!found)
			return -1;
		n--;
	}
	if (!n || s[0] == '.' || s[n - 1] == '.')
		return -1;
	for (i = 0; i < n; i++) {
		if (s[i] == '.')
			dots++;
		else if (s[i] < '0' || s[i] > '9')
			return -1;
	}
	if (dots > 1)
		return -1;
	*out = strtod(s, &end) * scale;
	return 0;
}
