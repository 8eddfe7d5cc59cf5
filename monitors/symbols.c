/* Symbol tables for perf-profile: kernel text symbols from kallsyms, function symbols of the
 * ELF files mapped by sampled processes, names without the compiler's clone suffixes. */
#include "symbols.h"
#include "../lib/file.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

char *symbol_strip_suffix(const char *name, char *buf, size_t len)
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
	(*v)[*n].name = strdup(symbol_strip_suffix(name, buf, sizeof(buf)));
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
