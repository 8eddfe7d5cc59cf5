/* Unpacking an untrusted tar stream (untar.h). */
#include "untar.h"
#include "text.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define BLOCK 512
/* An 'L' (long name) or 'x'/'g' (pax) member's data is read into memory: this much at most. */
#define EXT_MAX (64 * 1024)

enum state { S_HEADER, S_DATA, S_EXT, S_PAD, S_END };

/* The ustar header's fields: offset and length (name 0/100, prefix 345/155, magic 257/6). */
#define F_SIZE	 124, 12
#define F_CHKSUM 148, 8
#define F_TYPE	 156

static int refuse(struct untar *u, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int refuse(struct untar *u, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(u->err, sizeof(u->err), fmt, ap);
	va_end(ap);
	u->failed = true;
	return -1;
}

int untar_begin(struct untar *u, const char *dir, uint64_t max_bytes, size_t max_members, char *err,
		size_t errlen)
{
	*u = (struct untar){.root = dir,
			    .max_bytes = max_bytes,
			    .max_members = max_members,
			    .state = S_HEADER,
			    .fd = -1,
			    .next_size = -1};
	u->root_fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (u->root_fd < 0) {
		snprintf(err, errlen, "cannot open %s: %s", dir, strerror(errno));
		return -1;
	}
	return 0;
}

/* An octal field (digits, then spaces or NULs); -1 when it is not one, or base-256 (GNU's
 * form for what octal cannot hold, far past any cap here). */
static int64_t octal(const unsigned char *b, size_t off, size_t len)
{
	int64_t v = 0;
	size_t i = off;

	while (i < off + len && b[i] == ' ')
		i++;
	if (i == off + len || b[i] < '0' || b[i] > '7')
		return -1;
	for (; i < off + len && b[i] >= '0' && b[i] <= '7'; i++) {
		if (v > (INT64_MAX >> 3))
			return -1;
		v = v * 8 + (b[i] - '0');
	}
	for (; i < off + len; i++)
		if (b[i] != ' ' && b[i] != '\0')
			return -1;
	return v;
}

static bool checksum_ok(const unsigned char *b)
{
	int64_t want = octal(b, F_CHKSUM);
	int64_t sum_u = 0, sum_s = 0;

	for (size_t i = 0; i < BLOCK; i++) {
		unsigned char c = i >= 148 && i < 156 ? ' ' : b[i];

		sum_u += c;
		sum_s += (signed char)c;
	}
	return want >= 0 && (want == sum_u || want == sum_s);
}

static bool all_zero(const unsigned char *b)
{
	for (size_t i = 0; i < BLOCK; i++)
		if (b[i])
			return false;
	return true;
}

static const char *type_name(char t)
{
	switch (t) {
	case '1':
		return "a hard link";
	case '2':
		return "a symbolic link";
	case '3':
		return "a character device";
	case '4':
		return "a block device";
	case '6':
		return "a FIFO";
	case '7':
		return "a contiguous file";
	case 'K':
		return "a long link name";
	case 'S':
		return "a sparse file";
	case 'M':
	case 'V':
		return "a multi-volume member";
	case 'D':
		return "a directory dump";
	default:
		return "of an unknown type";
	}
}

/* The member's name as the header gives it (or the 'L'/pax name before it) into u->name. */
static void header_name(struct untar *u)
{
	const unsigned char *b = u->block;

	if (u->next_name[0]) {
		snprintf(u->name, sizeof(u->name), "%s", u->next_name);
	} else if (!memcmp(b + 257, "ustar\0", 6) && b[345]) {
		/* POSIX ustar: prefix/name; GNU's magic "ustar  " uses that space otherwise */
		snprintf(u->name, sizeof(u->name), "%.155s/%.100s", (const char *)b + 345,
			 (const char *)b);
	} else {
		snprintf(u->name, sizeof(u->name), "%.100s", (const char *)b);
	}
	u->next_name[0] = '\0';
}

/* u->name made relative ("./a//b/" -> "a/b") into out: 0, 1 for the root itself, -1 when it
 * is absolute, holds "..", or a control character. */
static int clean_name(struct untar *u, char *out, size_t len)
{
	const char *p = u->name;
	size_t n = 0;

	if (*p == '/' || !text_is_clean(p))
		return -1;
	while (*p) {
		size_t c = strcspn(p, "/");

		if (c == 2 && !strncmp(p, "..", 2))
			return -1;
		if (c && !(c == 1 && *p == '.')) {
			if (n + c + 2 > len)
				return -1;
			if (n)
				out[n++] = '/';
			memcpy(out + n, p, c);
			n += c;
		}
		p += c;
		p += *p == '/';
	}
	out[n] = '\0';
	return n ? 0 : 1;
}

/* The directory that will hold rel's last component, each one before it opened with
 * O_NOFOLLOW and made (0777 less the umask) when missing; *last points to that component.
 * The descriptor, or -1 with u->err. */
static int parent_of(struct untar *u, char *rel, const char **last)
{
	int dfd = dup(u->root_fd);
	char *p = rel, *slash;

	if (dfd < 0)
		return refuse(u, "%s: %s", u->root, strerror(errno));
	while ((slash = strchr(p, '/'))) {
		int next;

		*slash = '\0';
		if (mkdirat(dfd, p, 0777) && errno != EEXIST) {
			refuse(u, "cannot create %s/%s: %s", u->root, rel, strerror(errno));
			*slash = '/';
			close(dfd);
			return -1;
		}
		next = openat(dfd, p, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (next < 0)
			refuse(u, "member '%s': %s/%s is not a directory of the archive's: %s",
			       u->name, u->root, rel, strerror(errno));
		*slash = '/';
		close(dfd);
		if (next < 0)
			return -1;
		dfd = next;
		p = slash + 1;
	}
	*last = p;
	return dfd;
}

/* A regular file or directory member's header: made now, its data to come. */
static int begin_member(struct untar *u, char type, int64_t size)
{
	char rel[PATH_MAX];
	const char *last = NULL;
	int dfd, c;

	if (++u->members > u->max_members)
		return refuse(u, "more than %zu members in the stream", u->max_members);
	c = clean_name(u, rel, sizeof(rel));
	if (c < 0)
		return refuse(u, "member '%s': an absolute name, '..' or a control character",
			      text_safe(u->name));
	if (type == '5') {
		if (size)
			return refuse(u, "member '%s': a directory with %" PRId64 " bytes of data",
				      text_safe(u->name), size);
		if (c == 1)
			return 0; /* the root itself: ours */
	} else if (c == 1) {
		return refuse(u, "member '%s': a file without a name", text_safe(u->name));
	}
	dfd = parent_of(u, rel, &last);
	if (dfd < 0)
		return -1;
	if (type == '5') {
		struct stat st;

		if (mkdirat(dfd, last, 0777) && errno != EEXIST)
			refuse(u, "cannot create the directory %s/%s: %s", u->root, rel,
			       strerror(errno));
		else if (fstatat(dfd, last, &st, AT_SYMLINK_NOFOLLOW) || !S_ISDIR(st.st_mode))
			refuse(u, "member '%s': %s/%s is a file of the stream already",
			       text_safe(u->name), u->root, rel);
	} else {
		u->fd =
		    openat(dfd, last, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
		if (u->fd < 0)
			refuse(u, "member '%s': cannot create %s/%s: %s", text_safe(u->name),
			       u->root, rel,
			       errno == EEXIST ? "twice in the stream" : strerror(errno));
	}
	close(dfd);
	return u->failed ? -1 : 0;
}

/* One header block, whole. */
static int header(struct untar *u)
{
	const unsigned char *b = u->block;
	char type = (char)b[F_TYPE];
	int64_t size;

	if (all_zero(b)) {
		if (u->next_name[0] || u->next_size >= 0)
			return refuse(u, "the archive ends after an extended header");
		u->state = S_END;
		return 0;
	}
	if (!checksum_ok(b))
		return refuse(u,
			      "a header of the stream is not a tar header (bad checksum, after "
			      "%zu members)",
			      u->members);
	size = octal(b, F_SIZE);
	if (size < 0)
		return refuse(u, "a header's size is not a number (after %zu members)", u->members);
	if (type == 'x' || type == 'g' || type == 'L') {
		if (size > EXT_MAX)
			return refuse(u, "an extended header of %" PRId64 " bytes (at most %d)",
				      size, EXT_MAX);
		free(u->ext);
		u->ext = malloc((size_t)size + 1);
		if (!u->ext)
			return refuse(u, "out of memory");
		u->ext_len = 0;
		u->ext_type = type;
		u->state = S_EXT;
	} else {
		if (u->next_size >= 0)
			size = u->next_size;
		u->next_size = -1;
		header_name(u);
		if (type != '0' && type != '\0' && type != '5')
			return refuse(u,
				      "member '%s' is %s: only regular files and directories are "
				      "taken",
				      text_safe(u->name), type_name(type));
		if ((uint64_t)size > u->max_bytes - u->total)
			return refuse(u,
				      "member '%s' declares %" PRId64 " bytes, more than the "
				      "stream's %" PRIu64 " bytes allow",
				      text_safe(u->name), size, u->max_bytes);
		if (begin_member(u, type, size))
			return -1;
		u->state = S_DATA;
	}
	u->left = (uint64_t)size;
	u->pad = (size_t)((BLOCK - (uint64_t)size % BLOCK) % BLOCK);
	return 0;
}

/* A pax extended header's records ("LEN key=value\n"): path and size are taken. */
static int pax(struct untar *u)
{
	char *p = u->ext, *end = u->ext + u->ext_len;

	while (p < end) {
		char *sp, *eq;
		unsigned long n = strtoul(p, &sp, 10);

		if (sp == p || *sp != ' ' || n < 5 || n > (unsigned long)(end - p) ||
		    p[n - 1] != '\n')
			return refuse(u, "a pax extended header that does not parse");
		p[n - 1] = '\0';
		eq = strchr(sp + 1, '=');
		if (!eq)
			return refuse(u, "a pax extended header that does not parse");
		*eq = '\0';
		if (!strcmp(sp + 1, "path")) {
			if (strlen(eq + 1) >= sizeof(u->next_name))
				return refuse(u, "a pax path too long");
			snprintf(u->next_name, sizeof(u->next_name), "%s", eq + 1);
		} else if (!strcmp(sp + 1, "size")) {
			char *e;

			errno = 0;
			long long s = strtoll(eq + 1, &e, 10);

			if (errno || *e || e == eq + 1 || s < 0)
				return refuse(u, "a pax size that is not a number");
			u->next_size = s;
		} else if (!strcmp(sp + 1, "linkpath")) {
			/* only a link has one; links are refused at their header */
		}
		p += n;
	}
	return 0;
}

/* An extended header's data, whole. */
static int ext_done(struct untar *u)
{
	char type = u->ext_type;

	u->ext[u->ext_len] = '\0';
	if (type == 'L') {
		if (strlen(u->ext) >= sizeof(u->next_name) || !*u->ext)
			return refuse(u, "a long name that is empty or too long");
		snprintf(u->next_name, sizeof(u->next_name), "%s", u->ext);
		return 0;
	}
	return type == 'x' ? pax(u) : 0; /* 'g': global, nothing we use */
}

static int write_all(struct untar *u, const char *buf, size_t len)
{
	while (len) {
		ssize_t w = write(u->fd, buf, len);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return refuse(u, "cannot write %s/%s: %s", u->root, text_safe(u->name),
				      strerror(w < 0 ? errno : EIO));
		buf += w;
		len -= (size_t)w;
	}
	return 0;
}

static int member_done(struct untar *u)
{
	if (u->fd >= 0) {
		int rc = close(u->fd);

		u->fd = -1;
		if (rc)
			return refuse(u, "cannot write %s/%s: %s", u->root, text_safe(u->name),
				      strerror(errno));
	}
	return 0;
}

/* The current member's data all taken: the file closed, or the extended header read. */
static int data_done(struct untar *u)
{
	int rc;

	if (u->state == S_EXT) {
		rc = ext_done(u);
		free(u->ext);
		u->ext = NULL;
	} else {
		rc = member_done(u);
	}
	u->state = u->pad ? S_PAD : S_HEADER;
	return rc;
}

int untar_feed(struct untar *u, const char *buf, size_t len)
{
	if (u->failed)
		return -1;
	if (len > u->max_bytes - u->total)
		return refuse(u, "the stream holds more than %" PRIu64 " bytes", u->max_bytes);
	u->total += len;
	while (len) {
		size_t n;

		switch (u->state) {
		case S_HEADER:
			n = BLOCK - u->have < len ? BLOCK - u->have : len;
			memcpy(u->block + u->have, buf, n);
			u->have += n;
			if (u->have == BLOCK) {
				u->have = 0;
				if (header(u))
					return -1;
				if (u->state != S_END && !u->left && data_done(u))
					return -1;
			}
			break;
		case S_DATA:
		case S_EXT:
			n = u->left < len ? (size_t)u->left : len;
			if (u->state == S_EXT) {
				memcpy(u->ext + u->ext_len, buf, n);
				u->ext_len += n;
			} else if (u->fd >= 0 && write_all(u, buf, n)) {
				return -1;
			}
			u->left -= n;
			if (!u->left && data_done(u))
				return -1;
			break;
		case S_PAD:
			n = u->pad < len ? u->pad : len;
			u->pad -= n;
			if (!u->pad)
				u->state = S_HEADER;
			break;
		default: /* S_END: what follows the archive's end (its record's zeros) */
			n = len;
			break;
		}
		buf += n;
		len -= n;
	}
	return 0;
}

int untar_finish(struct untar *u)
{
	if (u->failed)
		return -1;
	if (u->state != S_END)
		return refuse(u, "the stream ended before the archive's end (after %zu members%s)",
			      u->members, u->state == S_HEADER && !u->have ? "" : ", inside one");
	return 0;
}

void untar_release(struct untar *u)
{
	if (u->fd >= 0)
		close(u->fd);
	if (u->root_fd >= 0)
		close(u->root_fd);
	free(u->ext);
	u->fd = u->root_fd = -1;
	u->ext = NULL;
}
