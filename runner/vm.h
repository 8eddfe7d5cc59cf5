/* A benchmark guest: a kernel booted in QEMU with this machine's root filesystem, reached over
 * ssh (`scalebench run JOB --kernel BZIMAGE`).
 *
 * The guest sees the host's / read-only over 9p (virtio) and writes only to tmpfs (/run, /dev/shm
 * and its TMPDIR, /run/tmp), so the host's scalebench, its helpers and the testcases' programs
 * are the guest's too, and nothing of the host can be changed from inside.  Everything the guest
 * needs is in one private directory of ours (0700, under $TMPDIR or /tmp): a generated ssh key
 * pair for the guest and one for us, the guest's sshd_config and known_hosts, the init script
 * the kernel runs as PID 1 (it mounts, names the machine, brings up user-mode networking and
 * starts the host's own sshd), vm.json (what meta.json records of the VM) and console, the
 * serial console's capture.  QEMU forwards one port of 127.0.0.1, and only of it, to the guest's
 * sshd.  A kernel whose 9p and virtio drivers are modules (a distribution's) boots through an
 * initramfs that busybox-static's /bin/busybox runs: it loads them from the kernel's
 * lib/modules directory and switches to the 9p root.
 *
 * vm_start boots and waits for ssh; the caller runs through runner/target.h with vm_target's
 * options; vm_stop ends QEMU (SIGTERM, then SIGKILL of its process group) and removes the
 * directory, also after a failure or an interrupt.  QEMU is our child in a process group of its
 * own and dies with us (PR_SET_PDEATHSIG) if we are killed. */
#ifndef SCALEBENCH_VM_H
#define SCALEBENCH_VM_H

#include "../lib/strvec.h"

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* How the guest's CPUs are run. */
enum vm_accel {
	VM_ACCEL_AUTO,	 /* KVM when /dev/kvm can be opened, else TCG */
	VM_ACCEL_KVM,	 /* hardware virtualisation: real timing, the host's noise */
	VM_ACCEL_TCG,	 /* QEMU's translator, one host thread per vCPU */
	VM_ACCEL_ICOUNT, /* TCG in one host thread, guest time = instructions executed */
};

struct vm_opts {
	const char *kernel;	      /* a bzImage */
	const char *modules;	      /* its lib/modules/RELEASE directory; NULL: /lib/modules/
				       * RELEASE when it has modules.dep, else none (9p built in) */
	unsigned cpus;		      /* online at boot; 0: 1 */
	unsigned max_cpus;	      /* possible (maxcpus=); 0: cpus */
	unsigned memory_mib;	      /* 0: 2048 */
	const char *append;	      /* more kernel command line, after ours */
	const char *const *qemu_args; /* more QEMU arguments, after ours */
	size_t n_qemu_args;
	unsigned boot_timeout_s; /* 0: 120 */
	const char *console;	 /* keep the console capture there at the end; NULL: not kept */
	enum vm_accel accel;
	bool quiet;
};

struct vm {
	char dir[256];	     /* our private directory, "" when none */
	pid_t pid;	     /* QEMU, 0 when not running */
	unsigned port;	     /* the forwarded 127.0.0.1 port */
	enum vm_accel accel; /* what was used */
	char no_kvm[256];    /* auto chose TCG: why KVM was not usable (vm.json kvm_unusable) */
	unsigned cpus, max_cpus, memory_mib, boot_timeout_s; /* o's, defaults resolved */
	char shape[64];		   /* the guest's hostname: vm-tcg-2cpu-8max-2048M */
	char release[128];	   /* the kernel's release from its header, "" when unknown */
	char url[64];		   /* ssh://root@127.0.0.1:PORT */
	struct strvec ssh_options; /* what reaches the guest: its key, its host key's alias */
	struct strvec qemu;	   /* QEMU's argument vector */
	char cmdline[2048];	   /* the kernel command line */
	double boot_s;		   /* QEMU's start to the first ssh answer */
};

/* What o asks that no guest could be: fewer possible CPUs than online ones, a kernel command
 * line that is not one line of printable ASCII or is over 1024 bytes.  0, or -1 with err naming
 * the option and what was expected (run and bisect check before anything starts). */
int vm_opts_check(const struct vm_opts *o, char *err, size_t errlen);

/* Boot o's kernel.  run --kernel's exit status (lib/exit.h): SB_EXIT_OK with the guest
 * answering ssh; SB_EXIT_ERROR after a message when it could not be started (QEMU missing or
 * refusing its arguments, a file that is not a bzImage); SB_EXIT_NO_BOOT after a message when
 * the guest did not come up (a kernel that panicked, hung or never answered ssh within the
 * boot timeout: the console's last lines are shown); SB_EXIT_SIGNAL_BASE + N when interrupted
 * by signal N.  Whatever the result, vm_stop(vm) afterwards. */
int vm_start(struct vm *vm, const struct vm_opts *o);

/* End the guest and remove our directory (its console first copied to o->console, when set);
 * safe to call twice and on a vm never started. */
void vm_stop(struct vm *vm, const struct vm_opts *o);

/* The release string of a bzImage (its setup header's kernel_version), into out: 0, or -1 with
 * err naming the file and what was expected. */
int vm_kernel_release(const char *path, char *out, size_t len, char *err, size_t errlen);

/* The last max_lines lines of the console capture, malloc'd ("" when empty or unreadable). */
char *vm_console_tail(const struct vm *vm, unsigned max_lines);

/* In the guest: what meta.json says of the VM, from $SCALEBENCH_VM (vm.json) and the guest's
 * own /proc/cmdline and CPU masks; NULL when not in a scalebench guest. */
json_t *vm_guest_meta(void);

#endif
