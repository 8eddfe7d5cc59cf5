/* dmesg and kmsg: new kernel messages during the window, from /dev/kmsg (the same code under
 * two names; the stats take the monitor's name as prefix).  The device is opened at start and
 * positioned at its end, so only records logged from then on are seen; each sample and stop
 * read what came since.  Every new record goes to the raw samples ({"t_s", "records": [{level,
 * seq, ts_us, msg}]}, the first DMESG_MAX_RAW of them); each distinct failure (see
 * dmesg_is_failure) becomes the stat <name>.<id> = 1, LKP's way of counting a run that hit it.
 *
 * Option "device": read another file of /dev/kmsg records instead (tests). */
#include "mon_dmesg.h"
#include "procfs.h"
#include "../lib/json_text.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* /dev/kmsg fails a read into a buffer smaller than the record (EINVAL); records are at most
 * about 1 KiB of text plus the dictionary. */
#define DMESG_BUF     16384
#define DMESG_MAX_RAW 2000
#define DMESG_ID_LEN  256

struct dmesg_failure {
	char id[DMESG_ID_LEN];
	unsigned count;
};

struct dmesg_priv {
	int fd;
	char path[256];
	char buf[DMESG_BUF];
	size_t len; /* an incomplete last line of a regular file, kept for the next read */
	struct dmesg_failure *fails;
	size_t nr_fails;
	unsigned nr_records, nr_raw, nr_lost, nr_bad;
};

static bool starts_with(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

static bool is_word(int c)
{
	return isalnum(c) || c == '_';
}

static bool is_hex_run(const char *s, size_t n, bool *digit)
{
	*digit = false;
	for (size_t i = 0; i < n; i++) {
		if (!isxdigit((unsigned char)s[i]))
			return false;
		if (isdigit((unsigned char)s[i]))
			*digit = true;
	}
	return n > 0;
}

/* "RIP: 0010:...", "RAX: 0000000000000000 RBX: ...", "CR2: 0000...", "PKRU: 55555554". */
static bool is_register_line(const char *msg)
{
	const char *p = msg, *h;
	bool digit;

	if (!isupper((unsigned char)*p))
		return false;
	for (p++; isupper((unsigned char)*p) || isdigit((unsigned char)*p); p++)
		;
	if (p - msg > 5 || *p != ':')
		return false;
	for (p++; *p == ' '; p++)
		;
	for (h = p; isxdigit((unsigned char)*h); h++)
		;
	return h - p >= 4 && is_hex_run(p, (size_t)(h - p), &digit) && digit &&
	       (!*h || *h == ' ' || *h == ':');
}

/* "__alloc_pages+0x1a/0x340" with nothing before it: a stack frame. */
static bool is_frame_line(const char *msg)
{
	const char *p = msg;

	while (is_word((unsigned char)*p) || *p == '.')
		p++;
	return p > msg && starts_with(p, "+0x");
}

/* The lines a WARNING, BUG or Oops dump prints after its headline: they repeat the one
 * failure, so only the headline counts. */
static bool is_dump_line(const char *msg)
{
	static const char *const prefixes[] = {
	    "? ",
	    "Code: ",
	    "Modules linked in:",
	    "Hardware name:",
	    "CPU: ",
	    "Workqueue: ",
	    "---",
	    "irq event stamp:",
	    "hardirqs last",
	    "softirqs last",
	    "Tainted: ",
	    "Kernel Offset:",
	    "Stack:",
	};
	size_t n = strlen(msg);

	if (!*msg || isspace((unsigned char)*msg))
		return true;
	if (msg[0] == '<' && msg[n - 1] == '>') /* <TASK>, </IRQ> */
		return true;
	for (size_t i = 0; i < sizeof(prefixes) / sizeof(*prefixes); i++)
		if (starts_with(msg, prefixes[i]))
			return true;
	return is_register_line(msg) || is_frame_line(msg);
}

bool dmesg_is_failure(int level, const char *msg)
{
	static const char *const patterns[] = {
	    "WARNING:",
	    "BUG:",
	    "Oops",
	    "general protection fault",
	    "soft lockup",
	    "hard LOCKUP",
	    "hung_task",
	    "blocked for more than",
	    "RCU stall",
	    "Call Trace",
	    "Kernel panic",
	    "kernel BUG at",
	    "UBSAN:",
	    "KASAN:",
	    "list_add corruption",
	    "list_del corruption",
	};

	if (is_dump_line(msg))
		return false;
	if (level >= 0 && level <= 4)
		return true;
	for (size_t i = 0; i < sizeof(patterns) / sizeof(*patterns); i++)
		if (strstr(msg, patterns[i]))
			return true;
	/* "rcu: INFO: rcu_preempt self-detected stall on CPU", "... detected stalls on CPUs" */
	return strcasestr(msg, "rcu") && strstr(msg, "stall");
}

/* Remove n bytes at p from the string p is in. */
static void erase(char *p, size_t n)
{
	memmove(p, p + n, strlen(p + n) + 1);
}

static const char *skip_kmsg_header(const char *s)
{
	const char *p = s;

	/* "<prio>,<seq>,<ts_usec>,<flags>[,...];" */
	for (int field = 0; field < 3; field++) {
		if (!isdigit((unsigned char)*p))
			return s;
		while (isdigit((unsigned char)*p))
			p++;
		if (*p++ != ',')
			return s;
	}
	p = strchr(p, ';');
	return p ? p + 1 : s;
}

static const char *skip_prefixes(const char *s)
{
	const char *p;

	s = skip_kmsg_header(s);
	if (*s == '<') { /* "<4>" as dmesg -r prints */
		for (p = s + 1; isdigit((unsigned char)*p); p++)
			;
		if (p > s + 1 && *p == '>')
			s = p + 1;
	}
	if (*s == '[') { /* "[  123.456789] " */
		for (p = s + 1; *p == ' '; p++)
			;
		while (isdigit((unsigned char)*p) || *p == '.')
			p++;
		if (*p == ']')
			s = p + 1;
	}
	while (*s && !isalpha((unsigned char)*s) && *s != '_')
		s++;
	return s;
}

/* "watchdog: BUG: soft lockup", "rcu: INFO: rcu_preempt ...": the subsystem tag in front of
 * a headline is not part of the failure's name. */
static void drop_subsystem(char *s)
{
	static const char *const headlines[] = {"BUG:", "INFO:", "WARNING:", "Oops",
						"Kernel panic"};
	char *p = s;

	while (islower((unsigned char)*p) || isdigit((unsigned char)*p) || *p == '_' || *p == '-')
		p++;
	if (p == s || p[0] != ':' || p[1] != ' ')
		return;
	for (size_t i = 0; i < sizeof(headlines) / sizeof(*headlines); i++)
		if (starts_with(p + 2, headlines[i])) {
			erase(s, (size_t)(p + 2 - s));
			return;
		}
}

static void rewrite(char *s)
{
	char *p, *q;

	drop_subsystem(s);
	/* "WARNING: CPU: 3 PID: 1234 at mm/..." -> "WARNING: at mm/..." */
	if (starts_with(s, "WARNING: CPU:") && (p = strstr(s, " at ")))
		erase(s + strlen("WARNING:"), (size_t)(p - (s + strlen("WARNING:"))));
	/* "INFO: task will-it-scale:4321 blocked for more than" -> "INFO: task blocked ..." */
	if ((p = strstr(s, "task ")) && (q = strstr(p, " blocked for more than")))
		erase(p + 4, (size_t)(q - (p + 4)));
	/* "Oops: 0002 [#1] PREEMPT SMP PTI": the flags after the oops count vary by config. */
	for (p = strstr(s, "[#"); p; p = strstr(p + 2, "[#")) {
		for (q = p + 2; isdigit((unsigned char)*q); q++)
			;
		if (q > p + 2 && *q == ']') {
			q[1] = '\0';
			break;
		}
	}
	/* Function offsets "+0x1a/0x340" and compiler suffixes ".isra.0", ".constprop.0". */
	for (p = s; (p = strstr(p, "+0x"));) {
		q = p + 3;
		while (isxdigit((unsigned char)*q))
			q++;
		if (q[0] == '/' && q[1] == '0' && q[2] == 'x')
			for (q += 3; isxdigit((unsigned char)*q); q++)
				;
		erase(p, (size_t)(q - p));
	}
	static const char *const suffixes[] = {".isra.", ".constprop.", ".part.", ".cold"};
	for (size_t i = 0; i < sizeof(suffixes) / sizeof(*suffixes); i++)
		for (p = s; (p = strstr(p, suffixes[i]));) {
			q = p + strlen(suffixes[i]);
			while (isdigit((unsigned char)*q))
				q++;
			if (is_word((unsigned char)*q)) {
				p = q;
				continue;
			}
			erase(p, (size_t)(q - p));
		}
}

/* The id being built.  A space is held back until the next character is known: it becomes
 * '_' between two word characters and is dropped next to anything else, so "than 120 seconds"
 * gives "than#seconds" and "WARNING: at" gives "WARNING:at". */
struct id_buf {
	char *out;
	size_t o, len;
	bool space;
};

static void id_put(struct id_buf *b, char c)
{
	if (b->o + 1 >= b->len)
		return;
	if (b->space && b->o && is_word((unsigned char)b->out[b->o - 1]) &&
	    is_word((unsigned char)c))
		b->out[b->o++] = '_';
	b->space = false;
	if (b->o + 1 < b->len)
		b->out[b->o++] = c;
}

/* A word (run of [A-Za-z0-9_]) as it goes into the id: numbers and hex values become '#'. */
static void id_word(struct id_buf *b, const char *w, size_t n)
{
	bool digit;
	size_t lead = 0;

	if (n > 2 && w[0] == '0' && (w[1] == 'x' || w[1] == 'X') &&
	    is_hex_run(w + 2, n - 2, &digit))
		lead = n;
	else if (is_hex_run(w, n, &digit) && (isdigit((unsigned char)w[0]) || n >= 8) &&
		 (digit || n == 8 || n == 16))
		lead = n; /* 0002, 4567, ffff88810a2b3c00, but not e1000e or "add" */
	else
		while (lead < n && isdigit((unsigned char)w[lead]))
			lead++; /* "22s" -> "#s" */
	if (lead)
		id_put(b, '#');
	for (size_t i = lead; i < n; i++)
		id_put(b, w[i]);
}

int dmesg_normalize(const char *line, char *out, size_t len)
{
	struct id_buf b = {.out = out, .len = len};
	char work[1024];
	char *nl;

	if (!len)
		return -1;
	snprintf(work, sizeof(work), "%s", skip_prefixes(line));
	nl = strchr(work, '\n');
	if (nl)
		*nl = '\0';
	rewrite(work);
	for (const char *p = work; *p;) {
		if (is_word((unsigned char)*p)) {
			const char *w = p;

			while (is_word((unsigned char)*p))
				p++;
			id_word(&b, w, (size_t)(p - w));
		} else if (isspace((unsigned char)*p)) {
			while (isspace((unsigned char)*p))
				p++;
			b.space = true;
		} else {
			char c = *p++;

			if (c == '"' || c == '\\' || c == '$')
				c = '~';
			/* The id is a stat's name, which JSON holds only as UTF-8: a byte that may
			 * not be (any byte past ASCII: a driver's Latin-1, a sequence the length
			 * would cut) is '?', or the warning was lost from stats.json. */
			if ((unsigned char)c >= 0x80)
				c = '?';
			if ((unsigned char)c >= 0x20 && c != 0x7f)
				id_put(&b, c);
		}
	}
	while (b.o && strchr(" .,:;", out[b.o - 1]))
		b.o--;
	out[b.o] = '\0';
	return b.o ? 0 : -1;
}

static int dmesg_add_failure(struct dmesg_priv *p, const char *id)
{
	struct dmesg_failure *nf;

	for (size_t i = 0; i < p->nr_fails; i++)
		if (strcmp(p->fails[i].id, id) == 0) {
			p->fails[i].count++;
			return 0;
		}
	nf = realloc(p->fails, (p->nr_fails + 1) * sizeof(*nf));
	if (!nf)
		return -1;
	p->fails = nf;
	snprintf(nf[p->nr_fails].id, DMESG_ID_LEN, "%s", id);
	nf[p->nr_fails++].count = 1;
	return 0;
}

/* One /dev/kmsg record line "prio,seq,ts_usec,flags;message".  Dictionary lines (" KEY=v")
 * belong to the record before them and are skipped. */
static int dmesg_record(struct dmesg_priv *p, char *line, json_t *records)
{
	unsigned long long prio, seq, ts;
	const char *msg = skip_kmsg_header(line);
	char id[DMESG_ID_LEN];
	int level;

	if (*line == ' ' || !*line)
		return 0;
	if (msg == line || sscanf(line, "%llu,%llu,%llu", &prio, &seq, &ts) != 3) {
		p->nr_bad++;
		return 0;
	}
	level = (int)(prio & 7);
	p->nr_records++;
	if (records && p->nr_raw < DMESG_MAX_RAW) {
		/* A message that is not UTF-8 (JSON holds nothing else) with U+FFFD for each bad
		 * byte: json_pack's "s" would give NULL. */
		json_t *r =
		    json_pack("{s:i, s:I, s:I, s:o}", "level", level, "seq", (json_int_t)seq,
			      "ts_us", (json_int_t)ts, "msg", json_text(msg));

		if (!r || json_array_append_new(records, r))
			return -1;
		p->nr_raw++;
	}
	if (dmesg_is_failure(level, msg) && !dmesg_normalize(msg, id, sizeof(id)))
		return dmesg_add_failure(p, id);
	return 0;
}

static int dmesg_drain(struct monitor_ctx *ctx, double t_s)
{
	struct dmesg_priv *p = ctx->priv;
	json_t *records = ctx->raw ? json_array() : NULL;
	int rc = 0;

	if (ctx->raw && !records)
		goto oom;
	for (;;) {
		ssize_t r;
		char *start, *nl;

		if (p->len == sizeof(p->buf) - 1) {
			p->nr_bad++; /* a line longer than any record: drop it */
			p->len = 0;
		}
		r = read(p->fd, p->buf + p->len, sizeof(p->buf) - 1 - p->len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 && errno == EPIPE) {
			p->nr_lost++; /* overwritten in the ring before we read them */
			continue;
		}
		if (r < 0 && errno == EAGAIN)
			break;
		if (r < 0) {
			snprintf(ctx->note, sizeof(ctx->note), "cannot read %s: %s", p->path,
				 strerror(errno));
			json_decref(records);
			return -1;
		}
		if (r == 0)
			break;
		p->len += (size_t)r;
		p->buf[p->len] = '\0';
		for (start = p->buf; (nl = memchr(start, '\n', p->len - (size_t)(start - p->buf)));
		     start = nl + 1) {
			*nl = '\0';
			if (dmesg_record(p, start, records))
				goto oom;
		}
		p->len -= (size_t)(start - p->buf);
		memmove(p->buf, start, p->len);
	}
	if (records && json_array_size(records)) {
		json_t *o = json_pack("{s:f, s:O}", "t_s", t_s, "records", records);

		rc = !o || json_array_append_new(ctx->raw, o);
	}
	json_decref(records);
	if (!rc)
		return 0;
	snprintf(ctx->note, sizeof(ctx->note), "%s: out of memory", ctx->name);
	return -1;
oom:
	json_decref(records);
	snprintf(ctx->note, sizeof(ctx->note), "%s: out of memory", ctx->name);
	return -1;
}

static int dmesg_start(struct monitor_ctx *ctx)
{
	const json_t *dev = ctx->options ? json_object_get(ctx->options, "device") : NULL;
	const char *path = json_is_string(dev) ? json_string_value(dev) : "/dev/kmsg";
	struct dmesg_priv *p = calloc(1, sizeof(*p));
	int e;

	if (!p) {
		snprintf(ctx->note, sizeof(ctx->note), "%s: out of memory", ctx->name);
		return -1;
	}
	snprintf(p->path, sizeof(p->path), "%s", path);
	ctx->priv = p;
	p->fd = open(p->path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (p->fd < 0 || lseek(p->fd, 0, SEEK_END) < 0) {
		e = errno;
		snprintf(ctx->note, sizeof(ctx->note), "cannot open %s: %s%s", p->path, strerror(e),
			 e == EACCES || e == EPERM ? " (kernel.dmesg_restrict, or not root)" : "");
		return e == ENOENT || e == EACCES || e == EPERM || e == ENXIO ? MONITOR_UNAVAILABLE
									      : -1;
	}
	return 0;
}

static int dmesg_sample(struct monitor_ctx *ctx, double t_s)
{
	return dmesg_drain(ctx, t_s);
}

static int dmesg_reduce(struct monitor_ctx *ctx, json_t *stats)
{
	struct dmesg_priv *p = ctx->priv;

	if (!p)
		return 0;
	for (size_t i = 0; i < p->nr_fails; i++)
		if (stats_put(stats, 1, "%s.%s", ctx->name, p->fails[i].id))
			return -1;
	if (ctx->meta) {
		json_object_set_new(ctx->meta, "new_records", json_integer(p->nr_records));
		if (p->nr_lost)
			json_object_set_new(ctx->meta, "lost_records", json_integer(p->nr_lost));
		if (p->nr_bad)
			json_object_set_new(ctx->meta, "skipped_lines", json_integer(p->nr_bad));
		if (p->nr_records > p->nr_raw)
			json_object_set_new(ctx->meta, "records_not_in_raw",
					    json_integer(p->nr_records - p->nr_raw));
	}
	return 0;
}

static void dmesg_cleanup(struct monitor_ctx *ctx)
{
	struct dmesg_priv *p = ctx->priv;

	if (!p)
		return;
	if (p->fd >= 0)
		close(p->fd);
	free(p->fails);
	free(p);
	ctx->priv = NULL;
}

const struct monitor mon_dmesg = {
    .name = "dmesg",
    .description = "new kernel warnings during the window (/dev/kmsg) as failure stats",
    .start = dmesg_start,
    .sample = dmesg_sample,
    .stop = dmesg_sample,
    .reduce = dmesg_reduce,
    .cleanup = dmesg_cleanup,
    .is_default = true,
};

/* LKP's other name for the same thing; off by default so a run reads the log once. */
const struct monitor mon_kmsg = {
    .name = "kmsg",
    .description = "the dmesg monitor under LKP's kmsg name (kmsg.<failure> stats)",
    .start = dmesg_start,
    .sample = dmesg_sample,
    .stop = dmesg_sample,
    .reduce = dmesg_reduce,
    .cleanup = dmesg_cleanup,
    .is_default = false,
};
