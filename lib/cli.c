#include "cli.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define CLI_MAX_OPTIONS 64

static size_t count_options(const struct cli_option *opts)
{
	size_t n = 0;

	while (opts && opts[n].long_name)
		n++;
	return n;
}

int cli_next(const struct cli_command *cmd, int argc, char **argv, const char **optarg_out)
{
	struct option longopts[CLI_MAX_OPTIONS + 2];
	char shortopts[CLI_MAX_OPTIONS * 2 + 4];
	size_t n = count_options(cmd->options), s = 0;
	int c;

	if (n > CLI_MAX_OPTIONS)
		n = CLI_MAX_OPTIONS;
	/* ':': report a missing argument distinctly from an unknown option. */
	shortopts[s++] = ':';
	shortopts[s++] = 'h';
	for (size_t i = 0; i < n; i++) {
		const struct cli_option *o = &cmd->options[i];

		longopts[i] =
		    (struct option){o->long_name, o->arg_name ? required_argument : no_argument,
				    NULL, o->short_name};
		if (o->short_name > 0 && o->short_name < 256) {
			shortopts[s++] = (char)o->short_name;
			if (o->arg_name)
				shortopts[s++] = ':';
		}
	}
	shortopts[s] = '\0';
	longopts[n] = (struct option){"help", no_argument, NULL, 'h'};
	longopts[n + 1] = (struct option){NULL, 0, NULL, 0};

	opterr = 0;
	c = getopt_long(argc, argv, shortopts, longopts, NULL);
	*optarg_out = optarg;
	if (c == '?') {
		if (optopt > 0 && optopt < 256)
			fprintf(
			    stderr,
			    "scalebench %s: unknown option '-%c' (see 'scalebench %s --help')\n",
			    cmd->name, optopt, cmd->name);
		else
			fprintf(stderr,
				"scalebench %s: unknown option '%s' (see 'scalebench %s --help')\n",
				cmd->name, argv[optind - 1], cmd->name);
		return '?';
	}
	if (c == ':') {
		fprintf(stderr, "scalebench %s: option '%s' needs a value\n", cmd->name,
			argv[optind - 1]);
		return '?';
	}
	return c;
}

int cli_optind(void)
{
	return optind;
}

void cli_reset(void)
{
	optind = 0; /* 0 makes glibc reinitialise its scanner */
}

static const struct cli_option help_option = {"help", 'h', NULL, "show this help and exit"};

void cli_print_help(const struct cli_command *cmd, FILE *out)
{
	size_t n = count_options(cmd->options);

	fprintf(out, "usage: scalebench %s %s\n\n%s\n", cmd->name, cmd->usage, cmd->summary);
	fprintf(out, "\noptions:\n");
	for (size_t i = 0; i <= n; i++) {
		/* every command takes --help */
		const struct cli_option *o = i < n ? &cmd->options[i] : &help_option;
		char left[64];
		int len;

		if (o->short_name > 0 && o->short_name < 256)
			len =
			    snprintf(left, sizeof(left), "-%c, --%s", o->short_name, o->long_name);
		else
			len = snprintf(left, sizeof(left), "    --%s", o->long_name);
		if (o->arg_name && len > 0 && (size_t)len < sizeof(left))
			snprintf(left + len, sizeof(left) - (size_t)len, " %s", o->arg_name);
		fprintf(out, "  %-28s %s\n", left, o->help);
	}
	if (cmd->details)
		fprintf(out, "\n%s", cmd->details);
}

int cli_parse_uint(const char *s, unsigned long max, unsigned long *out)
{
	char *end;
	unsigned long v;

	if (!s || !*s || *s == '-' || *s == '+' || *s == ' ')
		return -EINVAL;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

int cli_parse_seconds(const char *s, double *out)
{
	char *end;
	double v;

	if (!s || !*s)
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s)
		return -EINVAL;
	if (*end == 's' && end[1] == '\0')
		end++;
	if (*end || !isfinite(v))
		return -EINVAL;
	*out = v;
	return 0;
}
