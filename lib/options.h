/* Command-line options from one table per command (as git's parse-options and fio's option
 * table do): each entry binds an option to a variable, with its type, default, range and
 * units.  Parsing, validation (lib/num), --help and the usage synopsis all come from the
 * table, so what a command accepts, checks and documents cannot drift apart.
 *
 *	struct option_def opts[] = {
 *		{OPT_DURATION("seconds", 's', &runtime_s), .def = "5",
 *		 .help = "measurement window per task count"},
 *		{OPT_FLAG("quiet", 'q', &quiet), .help = "print only the summary"},
 *		{OPT_END},
 *	};
 *	int rc = options_parse(&bench_command, opts, argc, argv, &first_arg);
 */
#ifndef SCALEBENCH_OPTIONS_H
#define SCALEBENCH_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

enum option_type {
	OPTION_END,
	OPTION_FLAG,	 /* bool: set (OPTION_CLEAR: cleared); takes no value */
	OPTION_STRING,	 /* const char * */
	OPTION_CHOICE,	 /* const char *, one of .choices ("process|thread|both") */
	OPTION_COUNT,	 /* unsigned: decimal digits, in [min, max] */
	OPTION_FLOAT,	 /* double: finite, in [min, max] */
	OPTION_DURATION, /* double, seconds: 300, 300s, 5m, 1.5h, 2d; in [min, max] */
	OPTION_PERCENT,	 /* double: 5 or 5%, from 0 to max (100 unless given) */
	OPTION_TASKS,	 /* struct option_tasks: 4, 1,2,4, 1-8, 50% of online CPUs */
	OPTION_CALLBACK, /* .callback parses; .value is its to use */
};

/* Flags of an option. */
enum {
	OPTION_CLEAR = 1,    /* a flag that sets its bool to false (--no-affinity) */
	OPTION_REQUIRED = 2, /* the command fails without it; no brackets in the synopsis */
	/* options_to_json: not part of the saved state (--resume, --log, --dry-run) */
	OPTION_NO_STATE = 4,
	OPTION_PATH = 8, /* options_to_json: a path, saved absolute */
};

/* OPTION_TASKS's variable: the counts, sorted and distinct, each at most the option's .max;
 * .v is allocated (free() it). */
struct option_tasks {
	unsigned *v;
	size_t n;
};

/* A callback parses its option's value and returns 0, or -1 with a whole message in err,
 * printed as it is (it names the value as it sees fit). */
struct option_def;
typedef int (*option_callback)(const struct option_def *opt, const char *arg, char *err,
			       size_t errlen);

struct option_def {
	const char *name;      /* long name, without "--" */
	int short_name;	       /* a letter, or 0 */
	enum option_type type; /* the C type of *value follows from it */
	void *value;	       /* the variable the option sets */
	const char *arg;       /* the value's name in help ("FILE"); the type's when NULL */
	const char *help;      /* what the option does, one sentence without the default */
	const char *def;       /* the default as it would be typed, set before parsing */
	const char *def_doc;   /* or a default known only at run time, in words (help only) */
	const char *unit;      /* shown after numbers in help ("s", "%"); the type's when NULL */
	double min, max;       /* range, when max > min; else the type's own */
	const char *choices;   /* OPTION_CHOICE: the values, '|' between them */
	option_callback callback;
	unsigned flags;
	/* The saved state (options_to_json): the key, when not the name with '_' for '-'; and
	 * a callback option's value as JSON and back (without them it is not saved). */
	const char *state_key;
	struct json_t *(*save)(const struct option_def *opt);
	int (*load)(const struct option_def *opt, struct json_t *v, char *err, size_t errlen);
};

/* The table's entries, with the variable's type checked by the compiler. */
#define OPTION_PTR(type, p) ((void *)(1 ? (p) : (type *)0))
#define OPT_FLAG(l, s, p)                                                                          \
	.name = (l), .short_name = (s), .type = OPTION_FLAG, .value = OPTION_PTR(bool, p)
#define OPT_STRING(l, s, p)                                                                        \
	.name = (l), .short_name = (s), .type = OPTION_STRING, .value = OPTION_PTR(const char *, p)
#define OPT_CHOICE(l, s, p)                                                                        \
	.name = (l), .short_name = (s), .type = OPTION_CHOICE, .value = OPTION_PTR(const char *, p)
#define OPT_COUNT(l, s, p)                                                                         \
	.name = (l), .short_name = (s), .type = OPTION_COUNT, .value = OPTION_PTR(unsigned, p)
#define OPT_FLOAT(l, s, p)                                                                         \
	.name = (l), .short_name = (s), .type = OPTION_FLOAT, .value = OPTION_PTR(double, p)
#define OPT_DURATION(l, s, p)                                                                      \
	.name = (l), .short_name = (s), .type = OPTION_DURATION, .value = OPTION_PTR(double, p)
#define OPT_PERCENT(l, s, p)                                                                       \
	.name = (l), .short_name = (s), .type = OPTION_PERCENT, .value = OPTION_PTR(double, p)
#define OPT_TASKS(l, s, p)                                                                         \
	.name = (l), .short_name = (s), .type = OPTION_TASKS,                                      \
	.value = OPTION_PTR(struct option_tasks, p)
#define OPT_CALLBACK(l, s, fn, p)                                                                  \
	.name = (l), .short_name = (s), .type = OPTION_CALLBACK, .callback = (fn), .value = (p)
#define OPT_END .type = OPTION_END

/* A rule on a command's options, checked by options_parse after parsing, on what the command
 * line gave.  a and b are long names without "--", or several separated by one space:
 *   OPTION_CONFLICTS  refuses any of a with any of b ("--a and --b: WHY"; WHY "one or the
 *                     other" when NULL);
 *   OPTION_NEEDS      refuses any of a without one of b ("--a needs --b or --c", ": WHY"
 *                     when given);
 *   OPTION_ALONE      refuses a (one name) with any option but those b names ("--a and --x:
 *                     WHY"; WHY "give it alone" when NULL).
 * A rule naming an option its table lacks is a bug, said so. */
enum option_rule_kind { OPTION_RULES_END, OPTION_CONFLICTS, OPTION_NEEDS, OPTION_ALONE };
struct option_rule {
	enum option_rule_kind kind;
	const char *a, *b; /* long names, without "--" */
	const char *why;
};

/* What a command is, beside its options. */
struct command_def {
	const char *name;    /* "bench" */
	const char *args;    /* the operands, before the options in the synopsis: "TESTCASE" */
	const char *alt;     /* other forms, one a line, shown after the synopsis; may be NULL */
	const char *summary; /* one line, also listed by "scalebench help" */
	const char *details; /* paragraphs after the options; lines over 100 columns wrap */
	const struct option_rule *rules; /* ended by {OPTION_RULES_END, NULL, NULL, NULL}; may be NULL */
};

/* Set the defaults, then parse argv's options (argv[0] is the command).  Returns -1 when
 * the command should go on with its operands argv[*first] .. argv[argc - 1], else the exit
 * status (lib/exit.h): SB_EXIT_OK after --help was printed (extra, if not NULL, printing more
 * help after the generated text); SB_EXIT_ERROR after a one-line message naming the option,
 * its value and what was expected. */
int options_parse(const struct command_def *cmd, const struct option_def *opts, int argc,
		  char **argv, int *first, void (*extra)(FILE *out));

/* The help: synopsis, summary, options wrapped at 100 columns with their defaults, details. */
void options_help(const struct command_def *cmd, const struct option_def *opts, FILE *out);

/* The synopsis alone: "usage: scalebench CMD ARGS [-x ARG] ...", wrapped at 100 columns,
 * then the command's other forms. */
void options_usage(const struct command_def *cmd, const struct option_def *opts, FILE *out);

/* The options' values as one JSON object, for a command that saves its state and resumes it
 * (bisect --resume): every option but OPTION_NO_STATE ones, so an option added to the table
 * is saved without more code.  A flag is a boolean, a count an integer, a number a real, a
 * string a string (absent when unset; absolute for OPTION_PATH), a callback option whatever
 * its save gives (NULL from a save: its value cannot be saved).  NULL with err when a value
 * cannot be saved as it was given (a string that is not UTF-8, which JSON cannot hold: the
 * command should refuse it before it starts, not lose it) or out of memory. */
struct json_t *options_to_json(const struct option_def *opts, char *err, size_t errlen);
/* Back from such an object: each saved option's variable set from its key (a key that is
 * absent leaves the variable as it is: a state saved before the option existed).  Strings
 * point into obj, which must outlive them.  0, or -1 with err naming the key and what was
 * expected. */
int options_from_json(const struct option_def *opts, struct json_t *obj, char *err, size_t errlen);
/* Set o's variable from arg (NULL for a flag) as the command line does: the same parser, the
 * same bounds.  arg must outlive the variable.  0, or -1 with err saying what was expected. */
int option_apply(const struct option_def *o, const char *arg, char *err, size_t errlen);

/* Help is wrapped to this many columns. */
#define OPTIONS_WIDTH 100

/* text, printed from column col on and ended by a newline, broken at spaces so no line
 * passes OPTIONS_WIDTH; continuation lines are indented by indent columns.  For help text
 * a command prints beside the generated one (bench's testcases). */
void options_wrap(FILE *out, const char *text, size_t col, size_t indent);

/* The man pages' parts that come from the table (Documentation/ includes them), in AsciiDoc:
 * what `scalebench help --format=man-head|man-options CMD` prints for the build.  Set before
 * options_parse, a format other than the text makes --help print that part instead. */
enum options_help_format {
	OPTIONS_HELP_TEXT,	  /* --help as it is */
	OPTIONS_HELP_MAN_HEAD,	  /* the NAME (from the summary) and SYNOPSIS sections */
	OPTIONS_HELP_MAN_OPTIONS, /* the OPTIONS section: each option, its help and default */
};
void options_set_help_format(enum options_help_format format);
void options_man(const struct command_def *cmd, const struct option_def *opts,
		 enum options_help_format part, FILE *out);
/* The synopsis in a page is wrapped to this many columns: a man page's literal block at
 * MANWIDTH=80 has 80 less its margin and indent. */
#define OPTIONS_MAN_WIDTH 68
/* text as AsciiDoc that shows every character as it is (pass:c[...], newlines as spaces). */
void options_adoc_text(FILE *out, const char *text);

#endif
