/* Numbers from text: one parser per kind, the same rules wherever a kind is read. */
#ifndef SCALEBENCH_NUM_H
#define SCALEBENCH_NUM_H

/* "300", "300s", "5m", "1.5h", "0.5": seconds.  0, or -1 when it is not a duration. */
int num_parse_duration(const char *s, double *out);

#endif
