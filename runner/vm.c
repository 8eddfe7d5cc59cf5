/* A benchmark guest in QEMU (vm.h): its private directory, its boot, its end. */
#include "vm.h"
#include "target.h"
#include "../core/core.h"
#include "../lib/errors.h"
#include "../lib/file.h"
#include "../lib/run_command.h"
#include "../lib/strbuf.h"
#include "../lib/text.h"

#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <netinet/in.h>
#include <arpa/inet.h>

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* What the init script prints once sshd is started: the boot's end, as the console shows it. */
#define VM_READY   "scalebench-vm: sshd started"
#define VM_BUSYBOX "/bin/busybox"

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void nap_ms(unsigned ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};

	nanosleep(&ts, NULL); /* a signal ends it early */
}

/* Write a new file NAME of our directory (never through a link: O_EXCL). */
static int put_file(const struct vm *vm, const char *name, const void *data, size_t len,
		    mode_t mode)
{
	char path[PATH_MAX];
	int fd;

	if (snprintf(path, sizeof(path), "%s/%s", vm->dir, name) >= (int)sizeof(path))
		return -1;
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
	if (fd < 0)
		return -1;
	for (size_t off = 0; off < len;) {
		ssize_t n = write(fd, (const char *)data + off, len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			close(fd);
			return -1;
		}
		off += (size_t)n;
	}
	return close(fd);
}

int vm_kernel_release(const char *path, char *out, size_t len, char *err, size_t errlen)
{
	unsigned char hdr[0x210];
	char buf[256];
	unsigned off;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		snprintf(err, errlen, "--kernel '%s': %s; expected a bzImage", path,
			 strerror(errno));
		return -1;
	}
	n = pread(fd, hdr, sizeof(hdr), 0);
	if (n != (ssize_t)sizeof(hdr) || memcmp(hdr + 0x202, "HdrS", 4)) {
		close(fd);
		snprintf(err, errlen,
			 "--kernel '%s': not a bzImage (no Linux boot header); expected "
			 "arch/x86/boot/bzImage or a /boot/vmlinuz",
			 path);
		return -1;
	}
	off = (unsigned)hdr[0x20e] | (unsigned)hdr[0x20f] << 8;
	n = off ? pread(fd, buf, sizeof(buf) - 1, 0x200 + (off_t)off) : -1;
	close(fd);
	out[0] = '\0';
	if (n > 0) {
		size_t k = 0;

		buf[n] = '\0';
		while (k < (size_t)n && buf[k] > ' ' && buf[k] < 0x7f)
			k++;
		snprintf(out, len, "%.*s", (int)k, buf);
	}
	return 0;
}

/* --- the initramfs of a kernel whose drivers are modules ----------------------------------- */

/* The modules a guest needs, by name: virtio's PCI transport, its network card, 9p over it. */
static const char *const needed_modules[] = {"virtio_pci", "virtio_net", "9pnet_virtio", "9p"};

struct modset {
	char *dep;	     /* modules.dep's text */
	char *builtin;	     /* modules.builtin's text ("" when none) */
	struct strvec order; /* relative paths, each after what it needs */
};

/* A module's name from its path in modules.dep: kernel/fs/9p/9p.ko -> 9p (with '-' as '_'). */
static void module_name(const char *path, size_t len, char *out, size_t outlen)
{
	const char *base = path;
	size_t n, k = 0;

	for (size_t i = 0; i < len; i++)
		if (path[i] == '/')
			base = path + i + 1;
	n = len - (size_t)(base - path);
	for (size_t i = 0; i < n && base[i] != '.' && k + 1 < outlen; i++)
		out[k++] = base[i] == '-' ? '_' : base[i];
	out[k] = '\0';
}

/* The line of modules.dep for name: its start, NULL when none. */
static const char *dep_line(const char *dep, const char *name)
{
	for (const char *l = dep; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		const char *colon = strchr(l, ':');
		const char *eol = strchr(l, '\n');
		char n[128];

		if (!colon || (eol && colon > eol))
			continue;
		module_name(l, (size_t)(colon - l), n, sizeof(n));
		if (!strcmp(n, name))
			return l;
	}
	return NULL;
}

static bool is_builtin(const struct modset *m, const char *name)
{
	for (const char *l = m->builtin; l && *l;
	     l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		const char *eol = strchr(l, '\n');
		char n[128];

		module_name(l, eol ? (size_t)(eol - l) : strlen(l), n, sizeof(n));
		if (!strcmp(n, name))
			return true;
	}
	return false;
}

/* Add the module at path (and first what it needs, modules.dep's words after its colon). */
static int add_module(struct modset *m, const char *name, unsigned depth, char *err, size_t errlen)
{
	const char *l = dep_line(m->dep, name), *colon, *eol, *p;
	char path[PATH_MAX];

	if (!l) {
		if (is_builtin(m, name))
			return 0;
		snprintf(err, errlen, "module %s: not in modules.dep nor modules.builtin", name);
		return -1;
	}
	if (depth > 16) {
		snprintf(err, errlen, "module %s: modules.dep's dependencies loop", name);
		return -1;
	}
	colon = strchr(l, ':');
	eol = strchr(l, '\n');
	if (!eol)
		eol = l + strlen(l);
	snprintf(path, sizeof(path), "%.*s", (int)(colon - l), l);
	for (size_t i = 0; i < m->order.n; i++)
		if (!strcmp(m->order.v[i], path))
			return 0;
	/* Its dependencies, each before it. */
	for (p = colon + 1; p < eol;) {
		const char *w;
		char dep_name[128];

		while (p < eol && *p == ' ')
			p++;
		w = p;
		while (p < eol && *p != ' ')
			p++;
		if (p == w)
			continue;
		module_name(w, (size_t)(p - w), dep_name, sizeof(dep_name));
		if (add_module(m, dep_name, depth + 1, err, errlen))
			return -1;
	}
	for (size_t i = 0; i < m->order.n; i++)
		if (!strcmp(m->order.v[i], path))
			return 0;
	return strvec_push(&m->order, path);
}

/* newc cpio: one entry (a directory, a file of len bytes, or a character device). */
static void cpio_entry(struct strbuf *b, const char *name, unsigned mode, const void *data,
		       size_t len, unsigned rmaj, unsigned rmin)
{
	static unsigned ino = 1;
	size_t namesize = strlen(name) + 1;

	strbuf_addf(b, "070701%08X%08X%08X%08X%08X%08X%08zX%08X%08X%08X%08X%08zX%08X", ino++, mode,
		    0u, 0u, 1u, 0u, len, 0u, 0u, rmaj, rmin, namesize, 0u);
	strbuf_add(b, name, namesize);
	while (b->len % 4)
		strbuf_add(b, "", 1);
	if (len)
		strbuf_add(b, data, len);
	while (b->len % 4)
		strbuf_add(b, "", 1);
}

static int cpio_file(struct strbuf *b, const char *name, const char *path, unsigned mode, char *err,
		     size_t errlen)
{
	char *data;
	size_t len;
	char e[512];

	if (file_read(path, 256u << 20, &data, &len, e, sizeof(e))) {
		snprintf(err, errlen, "%s", e);
		return -1;
	}
	cpio_entry(b, name, 0100000 | mode, data, len, 0, 0);
	free(data);
	return 0;
}

/* DIR/initramfs: busybox, the modules in their order, and an init that loads them, mounts the
 * host's / (9p) and switches to DIR/init. */
static int make_initramfs(struct vm *vm, const char *moddir, char *err, size_t errlen)
{
	struct modset m = {0};
	struct strbuf b = STRBUF_INIT, init = STRBUF_INIT;
	char path[PATH_MAX], e[512], name[64];
	char *q = sh_quote(vm->dir);
	int rc = -1;

	if (snprintf(path, sizeof(path), "%s/modules.dep", moddir) >= (int)sizeof(path) ||
	    file_read(path, 64u << 20, &m.dep, NULL, e, sizeof(e))) {
		snprintf(err, errlen,
			 "--vm-modules: %s; expected the kernel's lib/modules/RELEASE "
			 "directory",
			 e);
		goto out;
	}
	if (snprintf(path, sizeof(path), "%s/modules.builtin", moddir) >= (int)sizeof(path) ||
	    file_read(path, 64u << 20, &m.builtin, NULL, e, sizeof(e)))
		m.builtin = NULL;
	for (size_t i = 0; i < sizeof(needed_modules) / sizeof(*needed_modules); i++)
		if (add_module(&m, needed_modules[i], 0, e, sizeof(e))) {
			if (snprintf(err, errlen, "--vm-modules '%s': %s", moddir, e) < 0)
				err[0] = '\0';
			goto out;
		}
	if (access(VM_BUSYBOX, X_OK)) {
		snprintf(err, errlen,
			 "%s: %s; a kernel whose 9p and virtio drivers are modules "
			 "boots through an initramfs that needs busybox-static (apt install "
			 "busybox-static)",
			 VM_BUSYBOX, strerror(errno));
		goto out;
	}
	strbuf_addf(&init,
		    "#!/bin/busybox sh\n"
		    "# scalebench's initramfs: the drivers of a guest whose root is the host's /.\n"
		    "export PATH=/bin\n"
		    "/bin/busybox mount -t devtmpfs devtmpfs /dev\n"
		    "for m in /m/*.ko; do\n"
		    "\t/bin/busybox insmod \"$m\" || echo \"scalebench-vm: insmod $m failed\"\n"
		    "done\n"
		    "if ! /bin/busybox mount -t 9p -o "
		    "trans=virtio,version=9p2000.L,msize=262144,cache=loose,ro "
		    "root /root; then\n"
		    "\techo 'scalebench-vm: cannot mount the host root over 9p'\n"
		    "\t/bin/busybox poweroff -f\n"
		    "fi\n"
		    "/bin/busybox umount /dev\n"
		    "exec /bin/busybox switch_root /root %s/init\n",
		    q ? q : "''");
	cpio_entry(&b, "bin", 040755, NULL, 0, 0, 0);
	cpio_entry(&b, "dev", 040755, NULL, 0, 0, 0);
	cpio_entry(&b, "dev/console", 020600, NULL, 0, 5, 1);
	cpio_entry(&b, "root", 040755, NULL, 0, 0, 0);
	cpio_entry(&b, "m", 040755, NULL, 0, 0, 0);
	cpio_entry(&b, "init", 0100755, init.buf, init.len, 0, 0);
	if (cpio_file(&b, "bin/busybox", VM_BUSYBOX, 0755, err, errlen))
		goto out;
	for (size_t i = 0; i < m.order.n; i++) {
		const char *base = strrchr(m.order.v[i], '/');

		if (snprintf(name, sizeof(name), "m/%02zu-%s", i, base ? base + 1 : m.order.v[i]) >=
			(int)sizeof(name) ||
		    snprintf(path, sizeof(path), "%s/%s", moddir, m.order.v[i]) >=
			(int)sizeof(path)) {
			snprintf(err, errlen, "module %s: path too long", m.order.v[i]);
			goto out;
		}
		if (cpio_file(&b, name, path, 0644, err, errlen))
			goto out;
	}
	cpio_entry(&b, "TRAILER!!!", 0, NULL, 0, 0, 0);
	if (b.oom || init.oom) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	if (put_file(vm, "initramfs", b.buf, b.len, 0644)) {
		snprintf(err, errlen, "%s/initramfs: %s", vm->dir, strerror(errno));
		goto out;
	}
	rc = 0;
out:
	free(q);
	free(m.dep);
	free(m.builtin);
	strvec_clear(&m.order);
	strbuf_release(&b);
	strbuf_release(&init);
	return rc;
}

/* --- the guest's files ------------------------------------------------------------------- */

/* ssh-keygen: a new ed25519 key pair DIR/name and DIR/name.pub. */
static int keygen(const struct vm *vm, const char *name, char *err, size_t errlen)
{
	char path[PATH_MAX], e[256];
	const char *argv[] = {"ssh-keygen",    "-q", "-t", "ed25519", "-N", "", "-C",
			      "scalebench-vm", "-f", path, NULL};
	struct child_process c = {
	    .argv = argv, .out = RUN_OUT_CAPTURE, .err = RUN_OUT_STDOUT, .timeout_ms = 30000};
	int rc;

	snprintf(path, sizeof(path), "%s/%s", vm->dir, name);
	rc = child_run(&c, e, sizeof(e));
	if (rc || c.exit_code) {
		snprintf(err, errlen, "ssh-keygen: %s", rc ? e : c.out_text.p ? c.out_text.p : "");
		child_release(&c);
		return -1;
	}
	child_release(&c);
	return 0;
}

/* DIR/name's text (at most max bytes), NULL when unreadable or larger. */
static char *dir_file(const struct vm *vm, const char *name, size_t max)
{
	char path[PATH_MAX];
	char *text;

	snprintf(path, sizeof(path), "%s/%s", vm->dir, name);
	return file_read(path, max, &text, NULL, NULL, 0) ? NULL : text;
}

static const char *accel_name(enum vm_accel a)
{
	return a == VM_ACCEL_KVM ? "kvm" : a == VM_ACCEL_ICOUNT ? "icount" : "tcg";
}

/* The init the kernel runs as PID 1 (from the host's / over 9p, by the host's /bin/sh). */
static int write_init(const struct vm *vm)
{
	struct strbuf b = STRBUF_INIT;
	char *q = sh_quote(vm->dir);
	int rc;

	strbuf_addf(&b,
		    "#!/bin/sh\n"
		    "# scalebench's guest init (PID 1): the host's / read-only, tmpfs for what is\n"
		    "# written, user-mode networking, the host's sshd with our keys.\n"
		    "PATH=/usr/sbin:/usr/bin:/sbin:/bin\nexport PATH\n"
		    "d=%s\n"
		    "say() { echo \"scalebench-vm: $*\"; }\n"
		    "mount -t proc proc /proc\n"
		    "mount -t sysfs sysfs /sys\n"
		    "mount -t devtmpfs devtmpfs /dev 2>/dev/null\n"
		    "mount -t tmpfs -o mode=0755 tmpfs /run\n"
		    "mount -t tmpfs -o mode=0700 tmpfs /root\n"
		    "mkdir -p /dev/pts /dev/shm /run/sshd /run/tmp\n"
		    "chmod 1777 /run/tmp\n"
		    "mount -t devpts devpts /dev/pts\n"
		    "mount -t tmpfs -o mode=1777 tmpfs /dev/shm\n"
		    "mount -t cgroup2 cgroup2 /sys/fs/cgroup 2>/dev/null\n"
		    "mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null\n"
		    "mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null\n"
		    "echo %s >/proc/sys/kernel/hostname\n"
		    "ip link set lo up\n"
		    "ip link set eth0 up && ip addr add 10.0.2.15/24 dev eth0 &&\n"
		    "\tip route add default via 10.0.2.2 || say 'no network (eth0)'\n"
		    "say \"kernel $(cat /proc/sys/kernel/osrelease), $(nproc) CPUs online\"\n"
		    "if /usr/sbin/sshd -f \"$d/sshd_config\" -e; then\n"
		    "\tsay 'sshd started'\n"
		    "else\n"
		    "\tsay 'sshd failed'\n"
		    "fi\n"
		    "while :; do sleep 3600; done\n",
		    q ? q : "''", vm->shape);
	rc = b.oom || !q ? -1 : put_file(vm, "init", b.buf, b.len, 0755);
	free(q);
	strbuf_release(&b);
	return rc;
}

static int write_sshd_config(const struct vm *vm)
{
	struct strbuf b = STRBUF_INIT;
	int rc;

	/* vm->dir holds no space, quote or '%' (make_dir): each value a word of sshd_config. */
	strbuf_addf(&b,
		    "# scalebench's guest sshd: root by our key only, on the guest's port 22.\n"
		    "Port 22\n"
		    "HostKey %s/host_key\n"
		    "AuthorizedKeysFile %s/client_key.pub\n"
		    "PermitRootLogin prohibit-password\n"
		    "PasswordAuthentication no\n"
		    "KbdInteractiveAuthentication no\n"
		    "UsePAM no\n"
		    "StrictModes no\n"
		    "UseDNS no\n"
		    "PrintMotd no\n"
		    "PidFile /run/sshd.pid\n"
		    "SetEnv SCALEBENCH_VM=%s/vm.json TMPDIR=/run/tmp\n",
		    vm->dir, vm->dir, vm->dir);
	rc = b.oom ? -1 : put_file(vm, "sshd_config", b.buf, b.len, 0644);
	strbuf_release(&b);
	return rc;
}

static int write_known_hosts(const struct vm *vm)
{
	char *pub = dir_file(vm, "host_key.pub", 1u << 16);
	struct strbuf b = STRBUF_INIT;
	int rc;

	if (!pub)
		return -1;
	strbuf_addf(&b, "scalebench-vm %s", pub);
	rc = b.oom ? -1 : put_file(vm, "known_hosts", b.buf, b.len, 0644);
	free(pub);
	strbuf_release(&b);
	return rc;
}

static int write_vm_json(const struct vm *vm, const struct vm_opts *o)
{
	json_t *argv = json_array(), *j;
	char *text;
	int rc;

	for (size_t i = 0; i < vm->qemu.n; i++)
		json_array_append_new(argv, json_string(vm->qemu.v[i]));
	j = json_pack("{s:o, s:s, s:b, s:i, s:i, s:i, s:s, s:s, s:s}", "qemu", argv, "accelerator",
		      vm->accel == VM_ACCEL_KVM ? "kvm" : "tcg", "icount",
		      vm->accel == VM_ACCEL_ICOUNT, "cpus", (int)vm->cpus, "max_cpus",
		      (int)vm->max_cpus, "memory_mib", (int)vm->memory_mib, "kernel", o->kernel,
		      "kernel_release", vm->release, "shape", vm->shape);
	if (j && vm->no_kvm[0])
		json_object_set_new(j, "kvm_unusable", json_string(vm->no_kvm));
	text = j ? json_dumps(j, JSON_INDENT(2)) : NULL;
	json_decref(j);
	rc = text ? put_file(vm, "vm.json", text, strlen(text), 0644) : -1;
	free(text);
	return rc;
}

/* Our private directory, under $TMPDIR when its path is a plain one (sshd_config and the
 * kernel command line take it as one word), else /tmp. */
static int make_dir(struct vm *vm, char *err, size_t errlen)
{
	const char *tmp = getenv("TMPDIR");

	if (!tmp || !*tmp || strlen(tmp) > 200 || tmp[0] != '/' ||
	    strspn(tmp, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789/._-+") !=
		strlen(tmp))
		tmp = "/tmp";
	snprintf(vm->dir, sizeof(vm->dir), "%s/scalebench-vm.XXXXXX", tmp);
	if (!mkdtemp(vm->dir)) {
		snprintf(err, errlen, "cannot make a directory in %s: %s", tmp, strerror(errno));
		vm->dir[0] = '\0';
		return -1;
	}
	return 0;
}

/* A port of 127.0.0.1 free now (QEMU binds it; a race lost is retried by vm_start). */
static unsigned free_port(void)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	unsigned port = 0;

	if (fd >= 0 && !bind(fd, (struct sockaddr *)&a, sizeof(a)) &&
	    !getsockname(fd, (struct sockaddr *)&a, &len))
		port = ntohs(a.sin_port);
	if (fd >= 0)
		close(fd);
	return port;
}

/* Whether QEMU can run a guest under KVM here: /dev/kvm opens, and QEMU with -accel kvm
 * -cpu host gets as far as a stopped machine and quits when asked (QMP).  Opening /dev/kvm is
 * not enough: a nested host can expose it and still refuse the vCPU's MSRs ("failed to set
 * MSR 0x10a", QEMU aborting), which would fail every boot.  Asked once per process (about
 * 0.1 s); why says what failed. */
static bool kvm_usable(char *why, size_t len)
{
	static int known = -1;
	static char reason[256];
	static const char *const argv[] = {"qemu-system-x86_64",
					   "-accel",
					   "kvm",
					   "-cpu",
					   "host",
					   "-nodefaults",
					   "-display",
					   "none",
					   "-no-reboot",
					   "-S",
					   "-qmp",
					   "stdio",
					   NULL};
	static const char qmp[] = "{\"execute\":\"qmp_capabilities\"}\n{\"execute\":\"quit\"}\n";

	if (known < 0) {
		int fd = open("/dev/kvm", O_RDWR | O_CLOEXEC);
		struct child_process q = {.argv = argv,
					  .in = RUN_IN_BUFFER,
					  .in_buf = qmp,
					  .in_len = sizeof(qmp) - 1,
					  .out = RUN_OUT_NULL,
					  .err = RUN_OUT_CAPTURE,
					  .err_text = {.max = 4096},
					  .timeout_ms = 20000};
		char err[512];

		known = 0;
		if (fd < 0) {
			snprintf(reason, sizeof(reason), "/dev/kvm: %s", strerror(errno));
		} else if (close(fd), child_run(&q, err, sizeof(err))) {
			snprintf(reason, sizeof(reason), "%.200s", err);
		} else if (q.exit_code != 0) {
			const char *e = q.err_text.p && *q.err_text.p ? q.err_text.p : "";
			char line[200];

			snprintf(line, sizeof(line), "%.*s", (int)strcspn(e, "\n"), e);
			snprintf(reason, sizeof(reason), "QEMU's KVM probe %s: %s",
				 q.timed_out ? "timed out" : "failed", text_safe(line));
		} else {
			known = 1;
		}
		child_release(&q);
	}
	snprintf(why, len, "%s", known ? "" : reason);
	return known == 1;
}

/* QEMU's argument vector and the kernel command line, for vm->port. */
static int build_qemu(struct vm *vm, const struct vm_opts *o, bool initramfs)
{
	struct strvec *a = &vm->qemu;
	int rc = 0, n;

	strvec_clear(a);
	n = snprintf(
	    vm->cmdline, sizeof(vm->cmdline), "console=ttyS0 panic=-1 oops=panic%s%s%s%s%s%s",
	    initramfs ? ""
		      : " root=/dev/root rootfstype=9p "
			"rootflags=trans=virtio,version=9p2000.L,msize=262144,cache=loose ro",
	    initramfs ? "" : " init=", initramfs ? "" : vm->dir, initramfs ? "" : "/init",
	    o->append ? " " : "", o->append ? o->append : "");
	if (n >= (int)sizeof(vm->cmdline))
		return -1;
	rc |= strvec_push(a, "qemu-system-x86_64");
	rc |= strvec_push(a, "-name");
	rc |= strvec_pushf(a, "scalebench-vm,process=scalebench-vm");
	rc |= strvec_push(a, "-nodefaults");
	rc |= strvec_push(a, "-no-reboot");
	rc |= strvec_push(a, "-accel");
	rc |= strvec_push(a, vm->accel == VM_ACCEL_KVM	    ? "kvm"
			     : vm->accel == VM_ACCEL_ICOUNT ? "tcg,thread=single"
							    : "tcg,thread=multi");
	if (vm->accel == VM_ACCEL_ICOUNT) {
		rc |= strvec_push(a, "-icount");
		rc |= strvec_push(a, "shift=0");
	}
	rc |= strvec_push(a, "-cpu");
	rc |= strvec_push(a, vm->accel == VM_ACCEL_KVM ? "host" : "max");
	rc |= strvec_push(a, "-smp");
	rc |= strvec_pushf(a, "cpus=%u,maxcpus=%u", vm->cpus, vm->max_cpus);
	rc |= strvec_push(a, "-m");
	rc |= strvec_pushf(a, "%uM", vm->memory_mib);
	rc |= strvec_push(a, "-kernel");
	rc |= strvec_push(a, o->kernel);
	if (initramfs) {
		rc |= strvec_push(a, "-initrd");
		rc |= strvec_pushf(a, "%s/initramfs", vm->dir);
	}
	rc |= strvec_push(a, "-append");
	rc |= strvec_push(a, vm->cmdline);
	rc |= strvec_push(a, "-fsdev");
	rc |=
	    strvec_push(a, "local,id=root,path=/,security_model=none,readonly=on,multidevs=remap");
	rc |= strvec_push(a, "-device");
	rc |= strvec_push(a, "virtio-9p-pci,fsdev=root,mount_tag=root");
	rc |= strvec_push(a, "-netdev");
	rc |= strvec_pushf(a, "user,id=n0,restrict=on,hostfwd=tcp:127.0.0.1:%u-:22", vm->port);
	rc |= strvec_push(a, "-device");
	rc |= strvec_push(a, "virtio-net-pci,netdev=n0");
	rc |= strvec_push(a, "-display");
	rc |= strvec_push(a, "none");
	rc |= strvec_push(a, "-serial");
	rc |= strvec_pushf(a, "file:%s/console", vm->dir);
	for (size_t i = 0; i < o->n_qemu_args; i++)
		rc |= strvec_push(a, o->qemu_args[i]);
	return rc ? -1 : 0;
}

/* Start QEMU: our child, in a process group of its own, dying with us; its own messages in
 * DIR/qemu.log. */
static int spawn_qemu(struct vm *vm, char *err, size_t errlen)
{
	char log[300];
	pid_t parent = getpid(), pid;
	int fd;

	snprintf(log, sizeof(log), "%s/qemu.log", vm->dir);
	fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0) {
		snprintf(err, errlen, "%s: %s", log, strerror(errno));
		return -1;
	}
	pid = fork();
	if (pid < 0) {
		snprintf(err, errlen, "fork: %s", strerror(errno));
		close(fd);
		return -1;
	}
	if (pid == 0) {
		sigset_t none;
		int null = open("/dev/null", O_RDONLY);

		setpgid(0, 0);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(127);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGPIPE, SIG_DFL);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		if (null >= 0)
			dup2(null, 0);
		dup2(fd, 1);
		dup2(fd, 2);
		execvp(vm->qemu.v[0], (char *const *)vm->qemu.v);
		fprintf(stderr, "cannot run %s: %s\n", vm->qemu.v[0], strerror(errno));
		_exit(127);
	}
	setpgid(pid, pid);
	close(fd);
	vm->pid = pid;
	return 0;
}

char *vm_console_tail(const struct vm *vm, unsigned max_lines)
{
	char path[300];

	snprintf(path, sizeof(path), "%s/console", vm->dir);
	return file_tail(path, max_lines);
}

/* The error with the console's tail, indented. */
static void boot_error(const struct vm *vm, const char *what)
{
	char *tail = vm_console_tail(vm, 20);
	struct strbuf b = STRBUF_INIT;

	for (char *l = tail; l && *l;) {
		char *eol = strchr(l, '\n');

		strbuf_addf(&b, "\n  | %.*s", eol ? (int)(eol - l) : (int)strlen(l), l);
		l = eol ? eol + 1 : l + strlen(l);
	}
	sb_error("%s; the console's last lines (%s/console):%s", what, vm->dir,
		 b.len ? b.buf : "\n  | (nothing)");
	strbuf_release(&b);
	free(tail);
}

/* Whether the guest answers ssh now: `true` there, through the target path's ssh. */
static bool ssh_answers(const struct vm *vm)
{
	const char *argv[] = {"true", NULL};
	struct target t = {.user = "root", .host = "127.0.0.1", .port = vm->port};
	struct target_opts to = {.ssh_options = vm->ssh_options.v,
				 .n_ssh_options = vm->ssh_options.n};
	struct child_process c = {.out = RUN_OUT_NULL, .err = RUN_OUT_NULL, .timeout_ms = 20000};
	bool ok = target_exec(&t, &to, argv, &c) == 0 && c.exit_code == 0;

	child_release(&c);
	return ok;
}

/* Wait for QEMU's guest to answer ssh.  0, 1 when QEMU could not bind the port (try another),
 * 2 after a message, 128+N when interrupted. */
static int wait_boot(struct vm *vm, const struct vm_opts *o, double start)
{
	unsigned timeout = vm->boot_timeout_s;
	bool announced = false;

	for (;;) {
		int status;
		char *console;

		if (core_interrupted())
			return 128 + core_interrupt_signal();
		if (waitpid(vm->pid, &status, WNOHANG) == vm->pid) {
			char *log = dir_file(vm, "qemu.log", 1u << 20);
			char what[1024];

			vm->pid = 0;
			if (log && strstr(log, "forwarding rule")) {
				free(log);
				return 1;
			}
			if (log)
				text_chomp(log);
			bool qemu_said = log && *log;

			if (qemu_said)
				snprintf(what, sizeof(what), "QEMU ended (%s %d): %.700s",
					 WIFEXITED(status) ? "exit" : "signal",
					 WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status),
					 text_safe(log));
			else
				snprintf(what, sizeof(what),
					 "the guest stopped before it answered ssh (QEMU %s %d: a "
					 "kernel panic, or an init that ended)",
					 WIFEXITED(status) ? "exit" : "signal",
					 WIFEXITED(status) ? WEXITSTATUS(status)
							   : WTERMSIG(status));
			free(log);
			boot_error(vm, what);
			return qemu_said ? 2 : 3;
		}
		if (now_s() - start > timeout) {
			char what[256];

			snprintf(what, sizeof(what),
				 "the guest did not answer ssh within %u s (--boot-timeout)",
				 timeout);
			boot_error(vm, what);
			return 3;
		}
		console = dir_file(vm, "console", 1u << 20);
		if (console && strstr(console, VM_READY)) {
			if (!announced && !o->quiet) {
				printf("vm: %s booted in %.1f s, sshd started; connecting\n",
				       vm->shape, now_s() - start);
				fflush(stdout);
			}
			announced = true;
			if (ssh_answers(vm)) {
				free(console);
				vm->boot_s = now_s() - start;
				return 0;
			}
		} else if (console && strstr(console, "scalebench-vm: sshd failed")) {
			free(console);
			boot_error(vm, "the guest's sshd did not start");
			return 3;
		}
		free(console);
		nap_ms(announced ? 500 : 200);
	}
}

int vm_opts_check(const struct vm_opts *o, char *err, size_t errlen)
{
	unsigned cpus = o->cpus ? o->cpus : 1;

	if (o->max_cpus && o->max_cpus < cpus) {
		snprintf(err, errlen, "--vm-max-cpus %u: expected at least --vm-cpus (%u)",
			 o->max_cpus, cpus);
		return -1;
	}
	for (const char *p = o->append; p && *p; p++)
		if ((unsigned char)*p < ' ' || (unsigned char)*p > '~') {
			snprintf(err, errlen,
				 "--vm-append: expected printable ASCII on one line (a kernel "
				 "command line), got byte 0x%02x",
				 (unsigned char)*p);
			return -1;
		}
	if (o->append && strlen(o->append) > 1024) {
		snprintf(err, errlen, "--vm-append: %zu bytes; expected at most 1024",
			 strlen(o->append));
		return -1;
	}
	return 0;
}

int vm_start(struct vm *vm, const struct vm_opts *o)
{
	char err[1024], moddir[PATH_MAX] = "";
	int rc = 2;

	memset(vm, 0, sizeof(*vm));
	vm->cpus = o->cpus ? o->cpus : 1;
	vm->max_cpus = o->max_cpus > vm->cpus ? o->max_cpus : vm->cpus;
	vm->memory_mib = o->memory_mib ? o->memory_mib : 2048;
	vm->boot_timeout_s = o->boot_timeout_s ? o->boot_timeout_s : 120;
	if (vm_kernel_release(o->kernel, vm->release, sizeof(vm->release), err, sizeof(err))) {
		sb_error("%s", err);
		return 2;
	}
	vm->accel = o->accel;
	if (vm->accel == VM_ACCEL_AUTO) {
		vm->accel =
		    kvm_usable(vm->no_kvm, sizeof(vm->no_kvm)) ? VM_ACCEL_KVM : VM_ACCEL_TCG;
		/* /dev/kvm there and KVM failing is a surprise worth a line; its absence is not. */
		static bool said;

		if (vm->accel == VM_ACCEL_TCG && !access("/dev/kvm", F_OK) && !said) {
			fprintf(stderr,
				"scalebench run: /dev/kvm is here but KVM does not work (%s): "
				"the guest runs under TCG\n",
				vm->no_kvm);
			said = true;
		}
	}
	snprintf(vm->shape, sizeof(vm->shape), "vm-%s-%ucpu-%umax-%uM", accel_name(vm->accel),
		 vm->cpus, vm->max_cpus, vm->memory_mib);
	if (o->modules)
		snprintf(moddir, sizeof(moddir), "%s", o->modules);
	else if (vm->release[0]) {
		char dep[PATH_MAX];

		snprintf(dep, sizeof(dep), "/lib/modules/%s/modules.dep", vm->release);
		if (!access(dep, R_OK))
			snprintf(moddir, sizeof(moddir), "/lib/modules/%s", vm->release);
	}
	if (make_dir(vm, err, sizeof(err))) {
		sb_error("%s", err);
		return 2;
	}
	if (keygen(vm, "host_key", err, sizeof(err)) ||
	    keygen(vm, "client_key", err, sizeof(err))) {
		sb_error("%s", err);
		return 2;
	}
	if (moddir[0] && make_initramfs(vm, moddir, err, sizeof(err))) {
		sb_error("%s", err);
		return 2;
	}
	if (write_known_hosts(vm) || write_sshd_config(vm) || write_init(vm) ||
	    strvec_pushf(&vm->ssh_options, "IdentityFile=%s/client_key", vm->dir) ||
	    strvec_push(&vm->ssh_options, "IdentitiesOnly=yes") ||
	    strvec_pushf(&vm->ssh_options, "UserKnownHostsFile=%s/known_hosts", vm->dir) ||
	    strvec_push(&vm->ssh_options, "GlobalKnownHostsFile=/dev/null") ||
	    strvec_push(&vm->ssh_options, "HostKeyAlias=scalebench-vm") ||
	    strvec_push(&vm->ssh_options, "StrictHostKeyChecking=yes") ||
	    strvec_push(&vm->ssh_options, "LogLevel=ERROR") ||
	    /* An emulated guest on a loaded host: its sshd's key exchange alone took over ssh's
	     * usual 10 s at -j 3 here ("timed out during banner exchange"), and its replies to
	     * keepalives lag as much.  The boot timeout already bounds a guest that is gone. */
	    strvec_push(&vm->ssh_options, "ConnectTimeout=60") ||
	    strvec_push(&vm->ssh_options, "ServerAliveInterval=10") ||
	    strvec_push(&vm->ssh_options, "ServerAliveCountMax=6")) {
		sb_error("cannot write the guest's files in %s: %s", vm->dir, strerror(errno));
		return 2;
	}
	for (int attempt = 0; attempt < 3; attempt++) {
		double start = now_s();

		vm->port = free_port();
		if (!vm->port || build_qemu(vm, o, moddir[0] != '\0')) {
			sb_error("cannot set up QEMU's arguments: %s", strerror(errno));
			return 2;
		}
		if (attempt == 0 && write_vm_json(vm, o)) {
			sb_error("%s/vm.json: %s", vm->dir, strerror(errno));
			return 2;
		}
		if (!o->quiet) {
			printf("vm: booting %s (%s) as %s%s\n", o->kernel,
			       vm->release[0] ? vm->release : "release unknown", vm->shape,
			       moddir[0] ? ", its drivers from an initramfs" : "");
			fflush(stdout);
		}
		if (spawn_qemu(vm, err, sizeof(err))) {
			sb_error("%s", err);
			return 2;
		}
		rc = wait_boot(vm, o, start);
		if (rc != 1)
			break;
		rc = 2;
	}
	if (rc == 0)
		snprintf(vm->url, sizeof(vm->url), "ssh://root@127.0.0.1:%u", vm->port);
	return rc;
}

void vm_stop(struct vm *vm, const struct vm_opts *o)
{
	if (vm->pid > 0) {
		int status;

		kill(-vm->pid, SIGTERM);
		for (int i = 0; waitpid(vm->pid, &status, WNOHANG) == 0; i++) {
			if (i == 100) /* 5 s */
				kill(-vm->pid, SIGKILL);
			nap_ms(50);
		}
		kill(-vm->pid, SIGKILL); /* anything left of its group */
		vm->pid = 0;
	}
	if (vm->dir[0] && o && o->console) {
		char *text = dir_file(vm, "console", 256u << 20), err[512];

		if (file_write(o->console, text ? text : "", text ? strlen(text) : 0, err,
			       sizeof(err)))
			sb_error("--vm-console: %s", err);
		free(text);
	}
	if (vm->dir[0]) {
		file_remove_tree(vm->dir);
		vm->dir[0] = '\0';
	}
	strvec_clear(&vm->ssh_options);
	strvec_clear(&vm->qemu);
}

/* --- in the guest ------------------------------------------------------------------------ */

static json_t *sys_line(const char *path)
{
	char *text;

	if (file_read(path, 1u << 16, &text, NULL, NULL, 0))
		return json_null();
	text_chomp(text);
	json_t *s = json_string(text_is_clean(text) ? text : "");

	free(text);
	return s ? s : json_null();
}

json_t *vm_guest_meta(void)
{
	const char *path = getenv("SCALEBENCH_VM");
	json_t *j;

	if (!path || !*path)
		return NULL;
	j = json_load_file(path, 0, NULL);
	if (!json_is_object(j)) {
		json_decref(j);
		j = json_object();
	}
	json_object_set_new(j, "cpus_online", sys_line("/sys/devices/system/cpu/online"));
	json_object_set_new(j, "cpus_possible", sys_line("/sys/devices/system/cpu/possible"));
	json_object_set_new(j, "guest_cmdline", sys_line("/proc/cmdline"));
	return j;
}
