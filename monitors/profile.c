/* perf-profile's pure parts: symbol tables and the chain -> stats reduction. */
#include "profile.h"
#include "../lib/file.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

char *profile_strip_suffix(const char *name, char *buf, size_t len)
{
	static const char *const suffixes[] = {".isra.", ".constprop.", ".part.", ".cold"};
	size_t cut = strlen(name);

	if (!len)
		return buf;
	if (cut >= len)
		cut = len - 1;
	memcpy(buf, name, cut);
	buf[cut] = '\0';
	if (!memchr(buf, '.', cut))
		return buf;
	for (size_t i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++) {
		const char *s = strstr(buf, suffixes[i]);

		if (s && (size_t)(s - buf) < cut && s > buf)
			cut = (size_t)(s - buf);
	}
	buf[cut] = '\0';
	return buf;
}

/* --- kallsyms --- */

struct sym {
	uint64_t addr, size;
	char *name;
};

static int sym_cmp(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int push_sym(struct sym **v, size_t *n, size_t *cap, uint64_t addr, uint64_t size,
		    const char *name)
{
	char buf[512];

	if (*n == *cap) {
		size_t c = *cap ? 2 * *cap : 1024;
		struct sym *g = realloc(*v, c * sizeof(*g));

		if (!g)
			return -1;
		*v = g;
		*cap = c;
	}
	(*v)[*n].addr = addr;
	(*v)[*n].size = size;
	(*v)[*n].name = strdup(profile_strip_suffix(name, buf, sizeof(buf)));
	if (!(*v)[*n].name)
		return -1;
	(*n)++;
	return 0;
}

static void free_syms(struct sym *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i].name);
	free(v);
}

/* Far above the kallsyms of a kernel with every module loaded (some 20 MB). */
#define KSYMS_MAX_BYTES (256u << 20)

int ksyms_load(const char *path, struct ksyms *k, char *err, size_t errlen)
{
	struct sym *v = NULL;
	size_t n = 0, cap = 0, size;
	char *text, *line, *next;
	bool zeroed = true;

	memset(k, 0, sizeof(*k));
	/* Whole, in big reads: the kernel walks its symbol table again for every read of
	 * kallsyms. */
	if (file_read(path, KSYMS_MAX_BYTES, &text, &size, err, errlen))
		return -1;
	/* By hand, not sscanf: 100k+ lines are read at the start of the measurement window. */
	for (line = text; line < text + size; line = next) {
		char *p, *name, *nl = memchr(line, '\n', (size_t)(text + size - line));
		uint64_t addr;
		char type;

		/* Ended first: strtoull would skip a blank line's newline into the next. */
		next = nl ? nl + 1 : text + size;
		if (nl)
			*nl = '\0';
		addr = strtoull(line, &p, 16);

		if (p == line || *p != ' ' || !p[1] || p[2] != ' ')
			continue;
		type = p[1];
		name = p + 3;
		name[strcspn(name, " \t\n")] = '\0';
		if (!*name)
			continue;
		if (addr)
			zeroed = false;
		/* Text only: data symbols would claim the addresses between functions. */
		if (type != 't' && type != 'T' && type != 'w' && type != 'W')
			continue;
		if (push_sym(&v, &n, &cap, addr, 0, name))
			goto nomem;
	}
	free(text);
	text = NULL;
	if (!n && !zeroed) {
		snprintf(err, errlen, "%s: no text symbols (expected lines 'ADDR t NAME')", path);
		free_syms(v, n);
		return -1;
	}
	if (n)
		qsort(v, n, sizeof(*v), sym_cmp);
	k->zeroed = zeroed;
	k->addr = malloc((n ? n : 1) * sizeof(*k->addr));
	k->name = malloc((n ? n : 1) * sizeof(*k->name));
	if (!k->addr || !k->name)
		goto nomem;
	for (size_t i = 0; i < n; i++) {
		k->addr[i] = v[i].addr;
		k->name[i] = v[i].name;
	}
	k->n = n;
	free(v);
	return 0;
nomem:
	free(text);
	free_syms(v, n);
	free(k->addr);
	free(k->name);
	memset(k, 0, sizeof(*k));
	snprintf(err, errlen, "%s: out of memory", path);
	return -1;
}

/* The last index whose address is <= addr, or n when there is none. */
static size_t floor_index(const uint64_t *addr, size_t n, uint64_t x)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (addr[mid] <= x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? lo - 1 : n;
}

const char *ksyms_lookup(const struct ksyms *k, uint64_t addr)
{
	size_t i;

	if (k->zeroed || !k->n)
		return NULL;
	i = floor_index(k->addr, k->n, addr);
	return i < k->n ? k->name[i] : NULL;
}

void ksyms_free(struct ksyms *k)
{
	for (size_t i = 0; i < k->n; i++)
		free(k->name[i]);
	free(k->addr);
	free(k->name);
	memset(k, 0, sizeof(*k));
}

/* --- ELF --- */

static int read_symtab(Elf *elf, Elf_Scn *scn, struct sym **v, size_t *n, size_t *cap)
{
	GElf_Shdr sh;
	Elf_Data *data;
	size_t count;

	if (!gelf_getshdr(scn, &sh) || !sh.sh_entsize)
		return 0;
	data = elf_getdata(scn, NULL);
	if (!data)
		return 0;
	count = sh.sh_size / sh.sh_entsize;
	for (size_t i = 0; i < count; i++) {
		GElf_Sym s;
		const char *name;
		int type;

		if (!gelf_getsym(data, (int)i, &s))
			continue;
		type = GELF_ST_TYPE(s.st_info);
		if ((type != STT_FUNC && type != STT_GNU_IFUNC) || !s.st_value ||
		    s.st_shndx == SHN_UNDEF)
			continue;
		name = elf_strptr(elf, sh.sh_link, s.st_name);
		if (!name || !*name)
			continue;
		if (push_sym(v, n, cap, s.st_value, s.st_size, name))
			return -1;
	}
	return 0;
}

int elf_syms_load(const char *path, struct elf_syms *es, char *err, size_t errlen)
{
	Elf_Scn *scn = NULL, *symtab = NULL, *dynsym = NULL;
	struct sym *v = NULL;
	size_t n = 0, cap = 0, nr_ph = 0;
	Elf *elf = NULL;
	int fd, rc = -1;

	memset(es, 0, sizeof(*es));
	if (elf_version(EV_CURRENT) == EV_NONE) {
		snprintf(err, errlen, "libelf: %s", elf_errmsg(-1));
		return -1;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF || elf_getphdrnum(elf, &nr_ph)) {
		snprintf(err, errlen, "%s: not an ELF file (%s)", path, elf_errmsg(-1));
		goto out;
	}
	es->seg = calloc(nr_ph ? nr_ph : 1, sizeof(*es->seg));
	if (!es->seg)
		goto nomem;
	for (size_t i = 0; i < nr_ph; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD)
			es->seg[es->nr_seg++] = (struct elf_segment){
			    .vaddr = ph.p_vaddr, .offset = ph.p_offset, .filesz = ph.p_filesz};
	}
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_SYMTAB)
			symtab = scn;
		else if (sh.sh_type == SHT_DYNSYM)
			dynsym = scn;
	}
	/* A stripped file keeps only the exported functions, in .dynsym. */
	if (read_symtab(elf, symtab ? symtab : dynsym, &v, &n, &cap) ||
	    (!n && symtab && dynsym && read_symtab(elf, dynsym, &v, &n, &cap)))
		goto nomem;
	if (n)
		qsort(v, n, sizeof(*v), sym_cmp);
	es->addr = malloc((n ? n : 1) * sizeof(*es->addr));
	es->size = malloc((n ? n : 1) * sizeof(*es->size));
	es->name = malloc((n ? n : 1) * sizeof(*es->name));
	if (!es->addr || !es->size || !es->name)
		goto nomem;
	for (size_t i = 0; i < n; i++) {
		es->addr[i] = v[i].addr;
		es->size[i] = v[i].size;
		es->name[i] = v[i].name;
	}
	es->n = n;
	free(v);
	v = NULL;
	n = 0;
	rc = 0;
	goto out;
nomem:
	snprintf(err, errlen, "%s: out of memory", path);
out:
	free_syms(v, n);
	if (rc)
		elf_syms_free(es);
	if (elf)
		elf_end(elf);
	close(fd);
	return rc;
}

const char *elf_syms_lookup_offset(const struct elf_syms *es, uint64_t off)
{
	for (size_t s = 0; s < es->nr_seg; s++) {
		const struct elf_segment *g = &es->seg[s];
		uint64_t vaddr;
		size_t i;

		if (off < g->offset || off >= g->offset + g->filesz)
			continue;
		vaddr = off - g->offset + g->vaddr;
		i = floor_index(es->addr, es->n, vaddr);
		if (i == es->n)
			return NULL;
		/* Past a sized symbol's end is padding or a function without a symbol. */
		if (es->size[i] && vaddr >= es->addr[i] + es->size[i])
			return NULL;
		return es->name[i];
	}
	return NULL;
}

void elf_syms_free(struct elf_syms *es)
{
	for (size_t i = 0; i < es->n; i++)
		free(es->name[i]);
	free(es->addr);
	free(es->size);
	free(es->name);
	free(es->seg);
	memset(es, 0, sizeof(*es));
}

/* --- chains --- */

int profile_init(struct profile *p)
{
	memset(p, 0, sizeof(*p));
	p->index = json_object();
	return p->index ? 0 : -1;
}

/* Frames joined by a byte no symbol has: the chain's identity. */
static char *join(const char *const *frames, size_t depth, char sep)
{
	size_t len = 1;
	char *s, *q;

	for (size_t i = 0; i < depth; i++)
		len += strlen(frames[i]) + 1;
	s = q = malloc(len);
	if (!s)
		return NULL;
	*q = '\0';
	for (size_t i = 0; i < depth; i++) {
		size_t l = strlen(frames[i]);

		if (i)
			*q++ = sep;
		memcpy(q, frames[i], l);
		q += l;
		*q = '\0';
	}
	return s;
}

int profile_add(struct profile *p, const char *const *frames, size_t depth, uint64_t count)
{
	struct profile_chain *c;
	char *key = join(frames, depth, '\x1f');
	json_t *idx;

	if (!key)
		return -1;
	idx = json_object_get(p->index, key);
	if (idx) {
		p->chain[json_integer_value(idx)].count += count;
		p->samples += count;
		free(key);
		return 0;
	}
	if (p->n == p->cap) {
		size_t cap = p->cap ? 2 * p->cap : 256;
		struct profile_chain *g = realloc(p->chain, cap * sizeof(*g));

		if (!g)
			goto nomem;
		p->chain = g;
		p->cap = cap;
	}
	c = &p->chain[p->n];
	c->frames = calloc(depth ? depth : 1, sizeof(*c->frames));
	if (!c->frames)
		goto nomem;
	c->depth = depth;
	c->count = count;
	for (size_t i = 0; i < depth; i++)
		if (!(c->frames[i] = strdup(frames[i]))) {
			for (size_t j = 0; j < i; j++)
				free(c->frames[j]);
			free(c->frames);
			goto nomem;
		}
	if (json_object_set_new(p->index, key, json_integer((json_int_t)p->n))) {
		for (size_t j = 0; j < depth; j++)
			free(c->frames[j]);
		free(c->frames);
		goto nomem;
	}
	p->n++;
	p->samples += count;
	free(key);
	return 0;
nomem:
	free(key);
	return -1;
}

void profile_free(struct profile *p)
{
	for (size_t i = 0; i < p->n; i++) {
		for (size_t j = 0; j < p->chain[i].depth; j++)
			free(p->chain[i].frames[j]);
		free(p->chain[i].frames);
	}
	free(p->chain);
	json_decref(p->index);
	memset(p, 0, sizeof(*p));
}

/* counts[key] += n, unless this chain already counted key (seen holds its keys). */
static int count_once(json_t *counts, json_t *seen, const char *key, uint64_t n)
{
	json_t *v;

	if (json_object_get(seen, key))
		return 0;
	if (json_object_set_new(seen, key, json_true()))
		return -1;
	v = json_object_get(counts, key);
	if (v)
		return json_integer_set(v, json_integer_value(v) + (json_int_t)n);
	return json_object_set_new(counts, key, json_integer((json_int_t)n));
}

int profile_reduce(const struct profile *p, const char *event, double min_pct, json_t *stats)
{
	json_t *counts = json_object(), *seen = json_object(), *v;
	const char *key;
	char buf[2048];
	int rc = -1;

	if (!counts || !seen)
		goto out;
	for (size_t i = 0; i < p->n; i++) {
		const struct profile_chain *c = &p->chain[i];

		json_object_clear(seen);
		if (!c->depth)
			continue;
		snprintf(buf, sizeof(buf), "perf-profile.self.%s.%s", event, c->frames[0]);
		if (count_once(counts, seen, buf, c->count))
			goto out;
		for (size_t f = 0; f < c->depth; f++) {
			size_t end = f + PROFILE_CALLTRACE_DEPTH, len;

			snprintf(buf, sizeof(buf), "perf-profile.children.%s.%s", event,
				 c->frames[f]);
			if (count_once(counts, seen, buf, c->count))
				goto out;
			len =
			    (size_t)snprintf(buf, sizeof(buf), "perf-profile.calltrace.%s", event);
			for (size_t g = f; g < end && g < c->depth && len < sizeof(buf); g++)
				len += (size_t)snprintf(buf + len, sizeof(buf) - len, ".%s",
							c->frames[g]);
			if (count_once(counts, seen, buf, c->count))
				goto out;
		}
	}
	json_object_foreach(counts, key, v)
	{
		double pct =
		    p->samples ? 100.0 * (double)json_integer_value(v) / (double)p->samples : 0;

		if (pct >= min_pct && json_object_set_new(stats, key, json_real(pct)))
			goto out;
	}
	rc = 0;
out:
	json_decref(counts);
	json_decref(seen);
	return rc;
}

static int by_count_desc(const void *a, const void *b)
{
	const struct profile_chain *const *x = a, *const *y = b;

	return (*x)->count < (*y)->count ? 1 : (*x)->count > (*y)->count ? -1 : 0;
}

json_t *profile_to_json(const struct profile *p)
{
	const struct profile_chain **order = malloc((p->n ? p->n : 1) * sizeof(*order));
	json_t *out = json_array();

	if (!order || !out)
		goto nomem;
	for (size_t i = 0; i < p->n; i++)
		order[i] = &p->chain[i];
	qsort(order, p->n, sizeof(*order), by_count_desc);
	for (size_t i = 0; i < p->n; i++) {
		json_t *frames = json_array();

		if (!frames)
			goto nomem;
		for (size_t j = 0; j < order[i]->depth; j++)
			json_array_append_new(frames, json_string(order[i]->frames[j]));
		if (json_array_append_new(out,
					  json_pack("{s:I,s:o}", "count",
						    (json_int_t)order[i]->count, "chain", frames)))
			goto nomem;
	}
	free(order);
	return out;
nomem:
	free(order);
	json_decref(out);
	return NULL;
}

int profile_add_json(const json_t *chains, struct profile *p, char *err, size_t errlen)
{
	const char **frames = NULL;
	size_t i;
	json_t *c;

	if (!json_is_array(chains)) {
		snprintf(err, errlen, "chains: expected a list of {\"count\", \"chain\"}");
		return -1;
	}
	json_array_foreach(chains, i, c)
	{
		const json_t *count = json_object_get(c, "count"),
			     *chain = json_object_get(c, "chain");
		size_t depth = json_array_size(chain), j;
		json_t *f;

		if (!json_is_integer(count) || json_integer_value(count) < 0 ||
		    !json_is_array(chain)) {
			snprintf(err, errlen,
				 "chains[%zu]: expected {\"count\": N, \"chain\": [names]}", i);
			goto fail;
		}
		free(frames);
		frames = malloc((depth ? depth : 1) * sizeof(*frames));
		if (!frames)
			goto nomem;
		json_array_foreach(chain, j, f)
		{
			if (!json_is_string(f)) {
				snprintf(err, errlen, "chains[%zu].chain[%zu]: expected a name", i,
					 j);
				goto fail;
			}
			frames[j] = json_string_value(f);
		}
		if (profile_add(p, frames, depth, (uint64_t)json_integer_value(count)))
			goto nomem;
	}
	free(frames);
	return 0;
nomem:
	snprintf(err, errlen, "out of memory");
fail:
	free(frames);
	return -1;
}

int profile_from_json(const json_t *chains, struct profile *p, char *err, size_t errlen)
{
	if (profile_init(p)) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (profile_add_json(chains, p, err, errlen)) {
		profile_free(p);
		return -1;
	}
	return 0;
}

/* --- report --- */

/* Where a symbol sits in one chain: chain index and frame position. */
struct site {
	size_t chain, pos;
};

struct branch {
	const char *name; /* the next caller, NULL at the chain's root */
	uint64_t count;
	size_t first, nr; /* its sites, a run of the sorted array */
};

static const char *caller_of(const struct profile *p, const struct site *s)
{
	const struct profile_chain *c = &p->chain[s->chain];

	return s->pos + 1 < c->depth ? c->frames[s->pos + 1] : NULL;
}

static int site_cmp(const void *a, const void *b, void *p)
{
	const char *x = caller_of(p, a), *y = caller_of(p, b);

	if (!x || !y)
		return !x - !y;
	return strcmp(x, y);
}

static int branch_cmp(const void *a, const void *b)
{
	const struct branch *x = a, *y = b;

	return x->count < y->count ? 1 : x->count > y->count ? -1 : 0;
}

#define REPORT_MAX_DEPTH 12

static void print_callers(const struct profile *p, FILE *out, struct site *sites, size_t n,
			  double min_pct, int level)
{
	struct branch *b;
	size_t nb = 0;

	if (level >= REPORT_MAX_DEPTH || !n)
		return;
	qsort_r(sites, n, sizeof(*sites), site_cmp, (void *)p);
	b = calloc(n, sizeof(*b));
	if (!b)
		return;
	for (size_t i = 0; i < n; i++) {
		const char *name = caller_of(p, &sites[i]);

		if (!nb || (name == NULL) != (b[nb - 1].name == NULL) ||
		    (name && strcmp(name, b[nb - 1].name)))
			b[nb++] = (struct branch){.name = name, .first = i};
		b[nb - 1].count += p->chain[sites[i].chain].count;
		b[nb - 1].nr++;
	}
	qsort(b, nb, sizeof(*b), branch_cmp);
	for (size_t k = 0; k < nb; k++) {
		double pct = 100.0 * (double)b[k].count / (double)p->samples;

		if (!b[k].name || pct < min_pct)
			continue;
		fprintf(out, "%*s|--%.2f%%--%s\n", 17 + 4 * level, "", pct, b[k].name);
		for (size_t i = b[k].first; i < b[k].first + b[k].nr; i++)
			sites[i].pos++;
		print_callers(p, out, sites + b[k].first, b[k].nr, min_pct, level + 1);
	}
	free(b);
}

struct entry {
	const char *name;
	uint64_t children, self;
};

static int entry_children_cmp(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;

	if (x->children != y->children)
		return x->children < y->children ? 1 : -1;
	return strcmp(x->name, y->name);
}

static int entry_self_cmp(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;

	if (x->self != y->self)
		return x->self < y->self ? 1 : -1;
	return entry_children_cmp(a, b);
}

void profile_print_report(const struct profile *p, FILE *out, bool by_self, double min_pct)
{
	json_t *idx = json_object(), *seen = json_object();
	struct entry *e = NULL;
	struct site *sites = NULL;
	size_t ne = 0, cap = 0;

	if (!idx || !seen || !p->samples)
		goto out;
	for (size_t i = 0; i < p->n; i++) {
		const struct profile_chain *c = &p->chain[i];

		json_object_clear(seen);
		for (size_t f = 0; f < c->depth; f++) {
			json_t *v = json_object_get(idx, c->frames[f]);
			size_t k;

			if (!v) {
				if (ne == cap) {
					size_t nc = cap ? 2 * cap : 256;
					struct entry *g = realloc(e, nc * sizeof(*g));

					if (!g)
						goto out;
					e = g;
					cap = nc;
				}
				e[ne] = (struct entry){.name = c->frames[f]};
				json_object_set_new(idx, c->frames[f],
						    json_integer((json_int_t)ne));
				k = ne++;
			} else {
				k = (size_t)json_integer_value(v);
			}
			if (!f)
				e[k].self += c->count;
			if (!json_object_get(seen, c->frames[f])) {
				json_object_set_new(seen, c->frames[f], json_true());
				e[k].children += c->count;
			}
		}
	}
	if (ne)
		qsort(e, ne, sizeof(*e), by_self ? entry_self_cmp : entry_children_cmp);
	sites = malloc((p->n ? p->n : 1) * sizeof(*sites));
	if (!sites)
		goto out;
	fprintf(out, "# %" PRIu64 " samples\n# %8s %8s  Symbol\n", p->samples, "Children", "Self");
	for (size_t k = 0; k < ne; k++) {
		double children = 100.0 * (double)e[k].children / (double)p->samples;
		double self = 100.0 * (double)e[k].self / (double)p->samples;
		size_t ns = 0;

		if ((by_self ? self : children) < min_pct)
			continue;
		fprintf(out, "  %7.2f%% %7.2f%%  %s\n", children, self, e[k].name);
		/* Callee first: from the symbol (its first place in each chain) to its callers. */
		for (size_t i = 0; i < p->n; i++) {
			const struct profile_chain *c = &p->chain[i];

			for (size_t f = 0; f < c->depth && (!by_self || f == 0); f++)
				if (!strcmp(c->frames[f], e[k].name)) {
					sites[ns++] = (struct site){.chain = i, .pos = f};
					break;
				}
		}
		print_callers(p, out, sites, ns, min_pct, 0);
		fputc('\n', out);
	}
out:
	free(e);
	free(sites);
	json_decref(idx);
	json_decref(seen);
}
