#include "options.h"
#include "errors.h"
#include "exit.h"
#include "num.h"
#include "text.h"

#include <float.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Left column of the option list: "  -s, --seconds SECONDS", padded to here. */
#define HELP_COL 31

/* What --help prints (options_set_help_format). */
static enum options_help_format help_format = OPTIONS_HELP_TEXT;

static const struct option_def help_option = {OPT_FLAG("help", 'h', NULL),
					      .help = "show this help and exit"};

static size_t count_options(const struct option_def *opts)
{
	size_t n = 0;

	while (opts && opts[n].type != OPTION_END)
		n++;
	return n;
}

static bool takes_value(const struct option_def *o)
{
	return o->type != OPTION_FLAG;
}

static const char *arg_name(const struct option_def *o)
{
	static const char *const names[] = {
	    [OPTION_STRING] = "VALUE",	   [OPTION_COUNT] = "N",     [OPTION_FLOAT] = "X",
	    [OPTION_DURATION] = "SECONDS", [OPTION_PERCENT] = "PCT", [OPTION_TASKS] = "TASKS",
	    [OPTION_CALLBACK] = "VALUE",
	};

	if (o->arg)
		return o->arg;
	if (o->type == OPTION_CHOICE)
		return o->choices;
	return names[o->type] ? names[o->type] : "VALUE";
}

static const char *unit_of(const struct option_def *o)
{
	if (o->unit)
		return o->unit;
	if (o->type == OPTION_DURATION)
		return "s";
	if (o->type == OPTION_PERCENT)
		return "%";
	return NULL;
}

/* "process|thread|both" as "process, thread or both". */
static void choices_text(const char *choices, char *buf, size_t len)
{
	size_t n = 1, k = 0, used = 0;

	for (const char *p = choices; *p; p++)
		n += *p == '|';
	buf[0] = '\0';
	for (const char *p = choices; *p && used < len; k++) {
		size_t w = strcspn(p, "|");
		const char *sep = k == 0 ? "" : ", ";

		if (k > 0 && k == n - 1)
			sep = " or ";
		used += (size_t)snprintf(buf + used, len - used, "%s%.*s", sep, (int)w, p);
		p += w + (p[w] == '|');
	}
}

static bool is_choice(const char *choices, const char *arg)
{
	size_t len = strlen(arg);

	for (const char *p = choices; *p;) {
		size_t w = strcspn(p, "|");

		if (w == len && !strncmp(p, arg, len))
			return true;
		p += w + (p[w] == '|');
	}
	return false;
}

int option_apply(const struct option_def *o, const char *arg, char *err, size_t errlen)
{
	bool ranged = o->max > o->min;
	unsigned long long u;
	double d;

	switch (o->type) {
	case OPTION_FLAG:
		*(bool *)o->value = !(o->flags & OPTION_CLEAR);
		return 0;
	case OPTION_STRING:
		*(const char **)o->value = arg;
		return 0;
	case OPTION_CHOICE:
		if (!is_choice(o->choices, arg)) {
			char list[256];

			choices_text(o->choices, list, sizeof(list));
			snprintf(err, errlen, "'%s': expected %s", arg, list);
			return -1;
		}
		*(const char **)o->value = arg;
		return 0;
	case OPTION_COUNT:
		if (num_parse_count(arg, ranged ? (unsigned long long)o->min : 0,
				    ranged ? (unsigned long long)o->max : UINT_MAX, &u, err,
				    errlen))
			return -1;
		*(unsigned *)o->value = (unsigned)u;
		return 0;
	case OPTION_FLOAT:
		if (num_parse_float(arg, ranged ? o->min : -DBL_MAX, ranged ? o->max : DBL_MAX, &d,
				    err, errlen))
			return -1;
		*(double *)o->value = d;
		return 0;
	case OPTION_DURATION:
		if (num_parse_duration(arg, ranged ? o->min : NUM_DURATION_MIN,
				       ranged ? o->max : NUM_DURATION_MAX, &d, err, errlen))
			return -1;
		*(double *)o->value = d;
		return 0;
	case OPTION_PERCENT:
		if (num_parse_percent(arg, o->max > 0 ? o->max : 100, &d, err, errlen))
			return -1;
		*(double *)o->value = d;
		return 0;
	case OPTION_TASKS: {
		struct option_tasks *t = o->value, nt;
		long online = sysconf(_SC_NPROCESSORS_ONLN);

		if (num_parse_taskspec(arg, online > 0 ? (unsigned)online : 1,
				       o->max >= 1 ? (unsigned)o->max : UINT_MAX, &nt.v, &nt.n, err,
				       errlen))
			return -1;
		free(t->v);
		*t = nt;
		return 0;
	}
	case OPTION_CALLBACK:
		return o->callback(o, arg, err, errlen);
	case OPTION_END:
		break;
	}
	snprintf(err, errlen, "option of unknown type %d", (int)o->type);
	return -1;
}

/* An unknown long option: the closest of the table's named ("did you mean"). */
static void unknown_option(const struct command_def *cmd, const struct option_def *opts, size_t n,
			   const char *arg)
{
	char word[64];
	struct text_closest c = TEXT_CLOSEST_INIT(word);

	snprintf(word, sizeof(word), "%.*s", (int)strcspn(arg + 2, "="), arg + 2);
	for (size_t i = 0; i < n && strncmp(arg, "--", 2) == 0; i++)
		text_closest_offer(&c, opts[i].name);
	if (c.best)
		sb_error("unknown option '%s'; did you mean '--%s'? (see 'scalebench %s --help')",
			 arg, c.best, cmd->name);
	else
		sb_error("unknown option '%s' (see 'scalebench %s --help')", arg, cmd->name);
}

/* The options LIST names (long names separated by one space; NULL names none), as indexes
 * into idx (room for max): how many, or -1 after the message naming one the table lacks
 * (a bug of the command's rules, said as plainly). */
static int rule_names(const struct command_def *cmd, const struct option_def *opts, size_t n,
		      const char *list, size_t *idx, size_t max)
{
	int k = 0;

	for (const char *p = list; p && *p;) {
		size_t len = strcspn(p, " "), i;

		for (i = 0; i < n && (strlen(opts[i].name) != len || strncmp(opts[i].name, p, len));
		     i++)
			;
		if (i == n || (size_t)k == max) {
			sb_error("a rule of '%s' names --%.*s, which its table lacks", cmd->name,
				 (int)len, p);
			return -1;
		}
		idx[k++] = i;
		p += len + (p[len] == ' ');
	}
	return k;
}

/* The first of idx[0..k) the command line gave, or -1. */
static ssize_t first_seen(const size_t *idx, int k, const bool *seen)
{
	for (int i = 0; i < k; i++)
		if (seen[idx[i]])
			return (ssize_t)idx[i];
	return -1;
}

/* " or --y" for each but the first of idx[0..k), into buf. */
static const char *others(const struct option_def *opts, const size_t *idx, int k, char *buf,
			  size_t len)
{
	size_t at = 0;

	buf[0] = '\0';
	for (int i = 1; i < k && at < len; i++)
		at += (size_t)snprintf(buf + at, len - at, " or --%s", opts[idx[i]].name);
	return buf;
}

/* One rule on what was given: 0, or 2 after its message. */
static int check_rule(const struct command_def *cmd, const struct option_rule *r,
		      const struct option_def *opts, size_t n, const bool *seen)
{
	size_t a[32], b[32];
	int na = rule_names(cmd, opts, n, r->a, a, 32), nb = rule_names(cmd, opts, n, r->b, b, 32);
	ssize_t ga, gb;
	char alt[512];

	if (na < 0 || nb < 0)
		return SB_EXIT_ERROR;
	if ((ga = first_seen(a, na, seen)) < 0)
		return SB_EXIT_OK;
	if (r->kind == OPTION_CONFLICTS && (gb = first_seen(b, nb, seen)) >= 0) {
		sb_error("--%s and --%s: %s", opts[ga].name, opts[gb].name,
			 r->why ? r->why : "one or the other");
		return SB_EXIT_ERROR;
	}
	if (r->kind == OPTION_NEEDS && nb && first_seen(b, nb, seen) < 0) {
		sb_error("--%s needs --%s%s%s%s", opts[ga].name, opts[b[0]].name,
			 others(opts, b, nb, alt, sizeof(alt)), r->why ? ": " : "",
			 r->why ? r->why : "");
		return SB_EXIT_ERROR;
	}
	for (size_t i = 0; r->kind == OPTION_ALONE && i < n; i++) {
		bool allowed = (ssize_t)i == ga;

		for (int j = 0; j < nb; j++)
			allowed |= b[j] == i;
		if (seen[i] && !allowed) {
			sb_error("--%s and --%s: %s", opts[ga].name, opts[i].name,
				 r->why ? r->why : "give it alone");
			return SB_EXIT_ERROR;
		}
	}
	return SB_EXIT_OK;
}

/* The command's rules on what was given: 0, or 2 after the message of the first broken. */
static int check_rules(const struct command_def *cmd, const struct option_def *opts, size_t n,
		       const bool *seen)
{
	int rc = SB_EXIT_OK;

	for (const struct option_rule *r = cmd->rules; !rc && r && r->kind != OPTION_RULES_END;
	     r++)
		rc = check_rule(cmd, r, opts, n, seen);
	return rc;
}

/* Every option's default set before parsing: 0, or -1 after a message when the table's own
 * default is wrong (a bug, said as plainly). */
static int apply_defaults(const struct option_def *opts, size_t n)
{
	char err[1024];

	for (size_t i = 0; i < n; i++)
		if (opts[i].def && option_apply(&opts[i], opts[i].def, err, sizeof(err))) {
			sb_error("the default of --%s %s", opts[i].name, err);
			return -1;
		}
	return 0;
}

int options_parse(const struct command_def *cmd, const struct option_def *opts, int argc,
		  char **argv, int *first, void (*extra)(FILE *out))
{
	size_t n = count_options(opts), s = 0;
	struct option *longopts = calloc(n + 2, sizeof(*longopts));
	char *shortopts = malloc(2 * n + 4), err[1024], typed[64];
	bool *seen = calloc(n + 1, sizeof(*seen));
	int c, rc = -1;

	if (!longopts || !shortopts || !seen) {
		sb_error("out of memory");
		rc = SB_EXIT_ERROR;
		goto out;
	}
	if (apply_defaults(opts, n)) {
		rc = SB_EXIT_ERROR;
		goto out;
	}
	/* ':' first: a missing value is reported apart from an unknown option.  Every entry
	 * returns 256 + its index, so a short and a long spelling land on the same entry. */
	shortopts[s++] = ':';
	shortopts[s++] = 'h';
	for (size_t i = 0; i < n; i++) {
		const struct option_def *o = &opts[i];

		longopts[i] = (struct option){
		    o->name, takes_value(o) ? required_argument : no_argument, NULL, 256 + (int)i};
		if (o->short_name > 0 && o->short_name < 256) {
			shortopts[s++] = (char)o->short_name;
			if (takes_value(o))
				shortopts[s++] = ':';
		}
	}
	shortopts[s] = '\0';
	longopts[n] = (struct option){"help", no_argument, NULL, 'h'};

	optind = 0; /* 0 makes glibc start a new scan */
	opterr = 0;
	for (;;) {
		int li = -1;
		const struct option_def *o = NULL;

		c = getopt_long(argc, argv, shortopts, longopts, &li);
		if (c == -1)
			break;
		if (c == 'h' && help_format != OPTIONS_HELP_TEXT) {
			options_man(cmd, opts, help_format, stdout);
			rc = SB_EXIT_OK;
			goto out;
		}
		if (c == 'h') {
			options_help(cmd, opts, stdout);
			if (extra)
				extra(stdout);
			rc = SB_EXIT_OK;
			goto out;
		}
		if (c == '?') {
			/* A long option's own value: one that takes none was given one. */
			if (optopt >= 256 && (size_t)(optopt - 256) < n)
				sb_error("option '--%s' takes no value", opts[optopt - 256].name);
			else if (optopt > 0 && optopt < 256)
				sb_error("unknown option '-%c' (see 'scalebench %s --help')",
					 optopt, cmd->name);
			else
				unknown_option(cmd, opts, n, argv[optind - 1]);
			rc = SB_EXIT_ERROR;
			goto out;
		}
		if (c == ':') {
			sb_error("option '%s' needs a value", argv[optind - 1]);
			rc = SB_EXIT_ERROR;
			goto out;
		}
		if (c >= 256 && (size_t)(c - 256) < n) {
			o = &opts[c - 256];
		} else {
			for (size_t i = 0; i < n && !o; i++)
				if (opts[i].short_name == c)
					o = &opts[i];
		}
		if (!o) {
			sb_error("option '%c' is in no table", c);
			rc = SB_EXIT_ERROR;
			goto out;
		}
		/* Named as it was typed. */
		if (li >= 0)
			snprintf(typed, sizeof(typed), "--%s", o->name);
		else
			snprintf(typed, sizeof(typed), "-%c", o->short_name);
		if (option_apply(o, takes_value(o) ? optarg : NULL, err, sizeof(err))) {
			/* A callback's message is whole: it may know better what to name. */
			if (o->type == OPTION_CALLBACK)
				sb_error("%s", err);
			else
				sb_error("%s %s", typed, err);
			rc = SB_EXIT_ERROR;
			goto out;
		}
		seen[o - opts] = true;
	}
	for (size_t i = 0; i < n; i++)
		if ((opts[i].flags & OPTION_REQUIRED) && !seen[i]) {
			sb_error("--%s %s is required (see 'scalebench %s --help')", opts[i].name,
				 arg_name(&opts[i]), cmd->name);
			rc = SB_EXIT_ERROR;
			goto out;
		}
	rc = check_rules(cmd, opts, n, seen);
	if (rc)
		goto out;
	rc = -1;
	*first = optind;
out:
	free(longopts);
	free(shortopts);
	free(seen);
	return rc;
}

/* ---- help ------------------------------------------------------------------------------- */

/* A single word longer than a line stays whole. */
void options_wrap(FILE *out, const char *text, size_t col, size_t indent)
{
	const char *p = text;

	while (*p) {
		size_t room = col < OPTIONS_WIDTH ? OPTIONS_WIDTH - col : 0, len = strlen(p), cut;

		if (len <= room) {
			fputs(p, out);
			break;
		}
		/* The last space that leaves the line within the width, else the first one. */
		cut = room;
		while (cut > 0 && p[cut] != ' ')
			cut--;
		if (cut == 0) {
			cut = strcspn(p, " ");
			if (!p[cut]) {
				fputs(p, out);
				break;
			}
		}
		fprintf(out, "%.*s\n%*s", (int)cut, p, (int)indent, "");
		p += cut;
		while (*p == ' ')
			p++;
		col = indent;
	}
	fputc('\n', out);
}

/* Each line of text as it is, or wrapped under its own indentation when too long. */
static void wrap_lines(FILE *out, const char *text)
{
	while (*text) {
		size_t len = strcspn(text, "\n"), lead = strspn(text, " ");
		char *line = strndup(text, len);

		if (line) {
			options_wrap(out, line, 0, lead);
			free(line);
		}
		text += len + (text[len] == '\n');
	}
}

/* One option as the synopsis shows it: "[-t TASKS]", "[--smt]", "--good G". */
static void synopsis_item(const struct option_def *o, char *buf, size_t len)
{
	bool req = o->flags & OPTION_REQUIRED;
	int k;

	if (o->short_name > 0 && o->short_name < 256)
		k = snprintf(buf, len, "%s-%c", req ? "" : "[", o->short_name);
	else
		k = snprintf(buf, len, "%s--%s", req ? "" : "[", o->name);
	if (k > 0 && (size_t)k < len && takes_value(o))
		k += snprintf(buf + k, len - (size_t)k, " %s", arg_name(o));
	if (k > 0 && (size_t)k < len && !req)
		snprintf(buf + k, len - (size_t)k, "]");
}

/* One word of the synopsis at *col: on this line if it fits in width, else on the next,
 * indented. */
static void synopsis_word(FILE *out, const char *text, size_t width, size_t indent, size_t *col)
{
	size_t w = strlen(text);

	if (*col + 1 + w > width && *col > indent) {
		fprintf(out, "\n%*s%s", (int)indent, "", text);
		*col = indent + w;
	} else {
		fprintf(out, " %s", text);
		*col += 1 + w;
	}
}

/* "PREFIXscalebench NAME ARGS [-x ARG] ...", continuation lines under ARGS. */
static void synopsis_line(FILE *out, const struct command_def *cmd, const struct option_def *opts,
			  const char *prefix, size_t width)
{
	size_t col = (size_t)fprintf(out, "%sscalebench %s", prefix, cmd->name), indent = col + 1;
	char item[512];

	if (cmd->args && *cmd->args)
		synopsis_word(out, cmd->args, width, indent, &col);
	for (size_t i = 0; opts && opts[i].type != OPTION_END; i++) {
		synopsis_item(&opts[i], item, sizeof(item));
		synopsis_word(out, item, width, indent, &col);
	}
	fputc('\n', out);
}

/* The words of an other form: split at spaces, a bracketed group ("[--png FILE | --svg
 * FILE]") staying one word. */
static void alt_line(FILE *out, const char *name, const char *line, size_t len, const char *prefix,
		     size_t width)
{
	size_t col = (size_t)fprintf(out, "%*sscalebench %s", (int)strlen(prefix), "", name),
	       indent = col + 1;

	for (size_t i = 0; i < len;) {
		size_t j = i;
		int depth = 0;
		char *word;

		while (j < len && (depth > 0 || line[j] != ' ')) {
			depth += (line[j] == '[') - (line[j] == ']');
			j++;
		}
		word = strndup(line + i, j - i);
		if (word && *word)
			synopsis_word(out, word, width, indent, &col);
		free(word);
		i = j + 1;
	}
	fputc('\n', out);
}

/* The synopsis and the other forms, each line starting with prefix (spaces on the others). */
static void usage_lines(const struct command_def *cmd, const struct option_def *opts, FILE *out,
			const char *prefix, size_t width)
{
	synopsis_line(out, cmd, opts, prefix, width);
	for (const char *p = cmd->alt; p && *p;) {
		size_t len = strcspn(p, "\n");

		alt_line(out, cmd->name, p, len, prefix, width);
		p += len + (p[len] == '\n');
	}
}

void options_usage(const struct command_def *cmd, const struct option_def *opts, FILE *out)
{
	usage_lines(cmd, opts, out, "usage: ", OPTIONS_WIDTH);
}

/* "(default 5 s)", "(default 1%)", "(default: $TMPDIR or /tmp)", or "". */
static void default_text(const struct option_def *o, char *buf, size_t len)
{
	const char *unit = unit_of(o);

	if (o->def)
		snprintf(buf, len, " (default %s%s%s)", o->def,
			 unit && strcmp(unit, "%") ? " " : "", unit ? unit : "");
	else if (o->def_doc)
		snprintf(buf, len, " (default: %s)", o->def_doc);
	else
		buf[0] = '\0';
}

static void option_line(FILE *out, const struct option_def *o)
{
	char left[512], dflt[512], *text;
	int k;

	if (o->short_name > 0 && o->short_name < 256)
		k = snprintf(left, sizeof(left), "  -%c, --%s", o->short_name, o->name);
	else
		k = snprintf(left, sizeof(left), "      --%s", o->name);
	if (k > 0 && (size_t)k < sizeof(left) && takes_value(o))
		snprintf(left + k, sizeof(left) - (size_t)k, " %s", arg_name(o));
	default_text(o, dflt, sizeof(dflt));
	if (asprintf(&text, "%s%s", o->help ? o->help : "", dflt) < 0)
		return;
	/* A long left column puts the help on a line of its own, aligned with the others. */
	if (strlen(left) + 1 > HELP_COL - 1)
		fprintf(out, "%s\n%*s", left, HELP_COL, "");
	else
		fprintf(out, "%-*s", HELP_COL, left);
	options_wrap(out, text, HELP_COL, HELP_COL);
	free(text);
}

void options_help(const struct command_def *cmd, const struct option_def *opts, FILE *out)
{
	size_t n = count_options(opts);

	options_usage(cmd, opts, out);
	fputc('\n', out);
	wrap_lines(out, cmd->summary);
	fprintf(out, "\noptions:\n");
	for (size_t i = 0; i < n; i++)
		option_line(out, &opts[i]);
	option_line(out, &help_option);
	if (cmd->details) {
		fputc('\n', out);
		wrap_lines(out, cmd->details);
	}
}

/* ---- the man pages' generated parts -------------------------------------------------------- */

void options_set_help_format(enum options_help_format format)
{
	help_format = format;
}

void options_adoc_text(FILE *out, const char *text)
{
	fputs("pass:c[", out);
	for (const char *p = text; *p; p++) {
		if (*p == ']')
			fputs("\\]", out);
		else
			fputc(*p == '\n' ? ' ' : *p, out);
	}
	fputc(']', out);
}

/* "*-s*, *--seconds* _SECONDS_::", the option's term in the page's list. */
static void man_option(FILE *out, const struct option_def *o)
{
	char dflt[512], name[128];

	if (o->short_name > 0 && o->short_name < 256) {
		snprintf(name, sizeof(name), "-%c", o->short_name);
		fputc('*', out);
		options_adoc_text(out, name);
		fputs("*, ", out);
	}
	snprintf(name, sizeof(name), "--%s", o->name);
	fputc('*', out);
	options_adoc_text(out, name);
	fputc('*', out);
	if (takes_value(o)) {
		fputs(" _", out);
		options_adoc_text(out, arg_name(o));
		fputc('_', out);
	}
	fputs("::\n", out);
	default_text(o, dflt, sizeof(dflt));
	options_adoc_text(out, o->help ? o->help : "");
	if (*dflt)
		options_adoc_text(out, dflt);
	/* More about it, when the page's source has it (":opt-NAME: TEXT" in its header). */
	fprintf(out, ".\nifdef::opt-%s[]\n+\n{opt-%s}\nendif::[]\n\n", o->name, o->name);
}

void options_man(const struct command_def *cmd, const struct option_def *opts,
		 enum options_help_format part, FILE *out)
{
	if (part == OPTIONS_HELP_MAN_HEAD) {
		/* NAME is read as it is, before any markup (AsciiDoc's manpurpose). */
		fprintf(out, "== NAME\n\nscalebench-%s - %s\n\n== SYNOPSIS\n\n....\n", cmd->name,
			cmd->summary);
		usage_lines(cmd, opts, out, "", OPTIONS_MAN_WIDTH);
		fputs("....\n", out);
		return;
	}
	fputs("== OPTIONS\n\n", out);
	for (size_t i = 0; opts && opts[i].type != OPTION_END; i++)
		man_option(out, &opts[i]);
	man_option(out, &help_option);
}
