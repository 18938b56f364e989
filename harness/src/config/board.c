#include "config/board.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "config/yamldoc.h"
#include "util/ipv4.h"

#define B(f) offsetof(struct board, f)

static const char *const arches[] = { "arm", "arm64", NULL };
static const char *const off_on[] = { "off", "on", NULL };
static const char *const debian_arches[] = { "armhf", "arm64", NULL };
/* deploy.backend's choices: the backends' names, each registered by its
 * own file (deploy/dut.h, DEPLOY_BACKEND), sorted so that every message
 * lists them alike whatever the link order. */
static const char *backends[BOARD_BACKENDS_MAX + 1];

int board_backend_register(const char *name)
{
	size_t n = 0;
	while (backends[n])
		if (!strcmp(backends[n++], name))
			return -1;
	if (n == BOARD_BACKENDS_MAX)
		return -1;
	for (; n > 0 && strcmp(backends[n - 1], name) > 0; n--)
		backends[n] = backends[n - 1];
	backends[n] = name;
	return 0;
}
/* Only what deploy/lava_job.c can render: a new method needs both. */
static const char *const lava_deploys[] = { "tftp", NULL };
static const char *const lava_kernel_types[] = { "zimage", "image", "uimage", NULL };
static const char *const lava_boots[] = { "u-boot", NULL };
static const char *const lava_commands[] = { "ramdisk", NULL };
/* Indexed by enum boot_format. */
static const char *const boot_formats[] = { "plain", "uimage", "uimage-appended-dtb", "fit",
					    NULL };

static const struct yfield kernel_fields[] = {
	{ .key = "defconfig", .type = YF_STRING, .required = 1, .off = B(defconfig) },
	{ .key = "config_fragment", .type = YF_STRING, .required = 1, .off = B(config_fragment) },
	{ .key = "image", .type = YF_STRING, .required = 1, .off = B(image) },
	{ .key = "dtb", .type = YF_STRING, .required = 1, .off = B(dtb) },
	{ .key = "cmdline", .type = YF_STRING, .required = 1, .off = B(cmdline) },
	{ .key = "external_dtb", .type = YF_STRING, .off = B(external_dtb) },
	{ .key = "min_series", .type = YF_STRING, .off = B(min_series) },
	{ 0 }
};

/* Addresses are hex strings ("0x42208000"): YAML's integers are decimal,
 * and every boot loader manual writes them in hex. Parsed in check(). */
static const struct yfield boot_fields[] = {
	{ .key = "format", .type = YF_ENUM, .required = 1, .off = B(boot_format),
	  .choices = boot_formats },
	{ .key = "load_addr", .type = YF_STRING, .off = B(load_addr_text) },
	{ .key = "entry_addr", .type = YF_STRING, .off = B(entry_addr_text) },
	{ 0 }
};

static const struct yfield dut_fields[] = {
	{ .key = "interface", .type = YF_STRING, .required = 1, .off = B(dut_interface) },
	{ .key = "driver", .type = YF_STRING, .required = 1, .off = B(dut_driver) },
	{ .key = "host_addr", .type = YF_STRING, .required = 1, .off = B(host_addr) },
	{ .key = "dut_addr", .type = YF_STRING, .required = 1, .off = B(dut_addr) },
	{ 0 }
};

static const struct yfield qemu_fields[] = {
	{ .key = "binary", .type = YF_STRING, .off = B(qemu.binary) },
	{ .key = "machine", .type = YF_STRING, .required = 1, .off = B(qemu.machine) },
	{ .key = "cpu", .type = YF_STRING, .off = B(qemu.cpu) },
	{ .key = "memory_mb", .type = YF_INT, .off = B(qemu.memory_mb),
	  .min = 16, .max = 65536 },
	{ .key = "extra_args", .type = YF_STRLIST, .off = B(qemu.extra_args) },
	{ .key = "emulator", .type = YF_STRING, .off = B(qemu.emulator), .is_name = 1 },
	{ .key = "globals", .type = YF_STRLIST, .off = B(qemu.globals) },
	/* 1 ps to 1 us per instruction: 1 THz to 1 MHz */
	{ .key = "ps_per_insn", .type = YF_INT, .off = B(qemu.ps_per_insn),
	  .min = 1, .max = 1000000 },
	{ .key = "icount_sleep", .type = YF_ENUM, .off = B(qemu.icount_sleep),
	  .choices = off_on },
	/* up to a second of real time: a host later than that is not sharing
	 * its CPU but stuck, and the guest's timers must run */
	{ .key = "peer_hold_us", .type = YF_INT, .off = B(qemu.peer_hold_us),
	  .min = 1, .max = 1000000 },
	{ .key = "insn_profile", .type = YF_ENUM, .off = B(qemu.insn_profile),
	  .choices = off_on },
	{ .key = "saved_boot", .type = YF_ENUM, .off = B(qemu.saved_boot), .choices = off_on },
	/* 32 bytes are the 256 bits the kernel's pool needs to be ready */
	{ .key = "rng_seed_bytes", .type = YF_INT, .off = B(qemu.rng_seed_bytes),
	  .min = 32, .max = 512 },
	{ .key = "duration_scale", .type = YF_DOUBLE, .off = B(qemu.duration_scale),
	  .fmin = 0.01, .fmax = 1 },
	{ 0 }
};

static const struct yfield deploy_fields[] = {
	{ .key = "backend", .type = YF_STRING, .required = 1, .off = B(backend),
	  .choices = backends },
	{ .key = "boot_timeout_s", .type = YF_INT, .required = 1, .off = B(boot_timeout_s),
	  .min = 1, .max = 3600 },
	{ .key = "qemu", .type = YF_MAP, .sub = qemu_fields },
	{ 0 }
};

#define LP(f) offsetof(struct board_lava_peer, f)
static const struct yfield lava_peer_fields[] = {
	{ .key = "device", .type = YF_STRING, .required = 1, .off = LP(device), .is_name = 1 },
	{ .key = "netns", .type = YF_STRING, .required = 1, .off = LP(netns), .is_name = 1 },
	{ 0 }
};

static const struct yfield lava_fields[] = {
	{ .key = "device_type", .type = YF_STRING, .required = 1, .off = B(lava.device_type),
	  .is_name = 1 },
	{ .key = "deploy_to", .type = YF_STRING, .required = 1, .off = B(lava.deploy_to),
	  .choices = lava_deploys },
	{ .key = "kernel_type", .type = YF_STRING, .required = 1, .off = B(lava.kernel_type),
	  .choices = lava_kernel_types },
	{ .key = "boot_method", .type = YF_STRING, .required = 1, .off = B(lava.boot_method),
	  .choices = lava_boots },
	{ .key = "boot_commands", .type = YF_STRING, .required = 1, .off = B(lava.boot_commands),
	  .choices = lava_commands },
	{ .key = "prompts", .type = YF_STRLIST, .required = 1, .off = B(lava.prompts), .min = 1 },
	{ .key = "device", .type = YF_STRING, .off = B(lava.device) },
	{ .key = "sd_bootloader", .type = YF_STRING, .off = B(lava.sd_bootloader) },
	{ .key = "server", .type = YF_STRING, .off = B(lava.server) },
	{ .key = "artifact_url", .type = YF_STRING, .off = B(lava.artifact_url) },
	{ .key = "artifact_dir", .type = YF_STRING, .off = B(lava.artifact_dir) },
	{ .key = "peers", .type = YF_TABLE, .off = B(lava.peers), .sub = lava_peer_fields,
	  .elem_size = sizeof(struct board_lava_peer) },
	{ 0 }
};

static const struct yfield userland_fields[] = {
	{ .key = "packages", .type = YF_STRLIST, .required = 1, .off = B(packages),
	  .min = 1 },
	{ .key = "perf_packages", .type = YF_STRLIST, .off = B(perf_packages) },
	{ 0 }
};

static const struct yfield board_fields[] = {
	{ .key = "name", .type = YF_STRING, .required = 1, .off = B(name), .is_name = 1 },
	{ .key = "description", .type = YF_STRING, .required = 1, .off = B(description) },
	{ .key = "stands_in_for", .type = YF_STRING, .off = B(stands_in_for) },
	{ .key = "arch", .type = YF_STRING, .required = 1, .off = B(arch), .choices = arches },
	{ .key = "cross_compile", .type = YF_STRING, .required = 1, .off = B(cross_compile) },
	{ .key = "debian_arch", .type = YF_STRING, .required = 1, .off = B(debian_arch),
	  .choices = debian_arches },
	{ .key = "series", .type = YF_STRLIST, .required = 1, .off = B(series), .min = 1 },
	{ .key = "kernel", .type = YF_MAP, .required = 1, .sub = kernel_fields },
	{ .key = "dut", .type = YF_MAP, .required = 1, .sub = dut_fields },
	{ .key = "deploy", .type = YF_MAP, .required = 1, .sub = deploy_fields },
	{ .key = "userland", .type = YF_MAP, .required = 1, .sub = userland_fields },
	{ .key = "lava", .type = YF_MAP, .sub = lava_fields },
	{ .key = "boot", .type = YF_MAP, .sub = boot_fields },
	{ 0 }
};

/* "a.b.c.d/len"; up to /30 the host part must be neither the network nor
 * the broadcast address (/31 and /32 have neither, RFC 3021). */
static int parse_cidr(const char *s, uint32_t *addr, int *len)
{
	if (ipv4_parse_cidr(s, addr, len) < 0)
		return -1;
	uint32_t hostmask = *len >= 32 ? 0 : UINT32_MAX >> *len;
	uint32_t host = *addr & hostmask;
	return *len <= 30 && (host == 0 || host == hostmask) ? -1 : 0;
}

/* Both ends must sit in 198.18.0.0/15, which RFC 2544 reserves for
 * benchmarking, so a test network can never clash with a real one. */
static int check_addrs(const struct ydoc *d, const struct board *b, char *err,
		       size_t errlen)
{
	const struct ynode *dut = ynode_get(d->root, "dut");
	const char *keys[] = { "host_addr", "dut_addr" };
	const char *vals[] = { b->host_addr, b->dut_addr };
	uint32_t a[2];
	int len[2];

	for (int i = 0; i < 2; i++) {
		const struct ynode *at = ynode_get(dut, keys[i]);
		if (parse_cidr(vals[i], &a[i], &len[i]))
			return ydoc_err(d, at, err, errlen,
					"dut.%s '%s' is not an IPv4 host address with a "
					"prefix length; write it like 198.18.0.1/24",
					keys[i], vals[i]);
		if (len[i] < 15 || ipv4_net_of(a[i], 15) != 0xc6120000u)
			return ydoc_err(d, at, err, errlen,
					"dut.%s '%s' is outside 198.18.0.0/15, the range "
					"RFC 2544 reserves for benchmarking; use an address "
					"and prefix inside it, like 198.18.0.1/24",
					keys[i], vals[i]);
	}
	const struct ynode *at = ynode_get(dut, "dut_addr");
	if (len[0] != len[1] || ipv4_net_of(a[0], len[0]) != ipv4_net_of(a[1], len[1]))
		return ydoc_err(d, at, err, errlen,
				"dut.dut_addr '%s' is not in the same subnet as "
				"dut.host_addr '%s'; use one prefix for both",
				b->dut_addr, b->host_addr);
	if (a[0] == a[1])
		return ydoc_err(d, at, err, errlen,
				"dut.dut_addr '%s' is the same address as dut.host_addr; "
				"give the DUT its own address", b->dut_addr);
	return 0;
}

/* "0x" and 1 to 16 hex digits. */
static int parse_addr(const char *s, uint64_t *out)
{
	char *end;
	if (strncmp(s, "0x", 2) || !s[2] || strlen(s) > 18 || strspn(s + 2, "0123456789abcdefABCDEF") != strlen(s + 2))
		return -1;
	*out = strtoull(s + 2, &end, 16);
	return *end ? -1 : 0;
}

/* The file's path resolved against the board file's directory, if it is a
 * regular file: NULL otherwise (with *tried set to what was looked at). */
static char *board_relative_file(const struct ydoc *d, const char *rel, char **tried)
{
	struct stat st;
	char *dir = path_dirname(d->path);
	*tried = path_join(dir, rel);
	free(dir);
	char *abs = realpath(*tried, NULL);
	if (abs && (stat(abs, &st) || !S_ISREG(st.st_mode))) {
		free(abs);
		abs = NULL;
	}
	return abs;
}

/* Boot format and its addresses; what a format does not use is an error,
 * not silently ignored. */
static int check_boot(const struct ydoc *d, struct board *b, char *err, size_t errlen)
{
	const struct ynode *boot = ynode_get(d->root, "boot");
	const char *fmt = boot_formats[b->boot_format];
	int needs_addr = b->boot_format != BOOT_PLAIN;

	if (!boot)
		return 0;
	if (!needs_addr && (b->load_addr_text || b->entry_addr_text))
		return ydoc_err(d, ynode_get(boot, b->load_addr_text ? "load_addr" : "entry_addr"),
				err, errlen, "boot.format %s boots the image where the boot loader "
				"put it and takes no address; remove this key or use uimage or fit",
				fmt);
	if (needs_addr && !b->load_addr_text)
		return ydoc_err(d, ynode_get(boot, "format"), err, errlen,
				"boot.format %s needs boot.load_addr (where U-Boot copies the "
				"kernel, from the boot loader's manual), e.g. load_addr: \"0x42208000\"",
				fmt);
	if (b->load_addr_text && parse_addr(b->load_addr_text, &b->load_addr))
		return ydoc_err(d, ynode_get(boot, "load_addr"), err, errlen,
				"boot.load_addr '%s' is not a hex address; write it like \"0x42208000\"",
				b->load_addr_text);
	if (b->load_addr > UINT32_MAX)
		return ydoc_err(d, ynode_get(boot, "load_addr"), err, errlen,
				"boot.load_addr '%s' is above 4 GiB; uImage headers (and the FIT "
				"hilbench writes) hold 32-bit addresses: use an address below it",
				b->load_addr_text);
	b->entry_addr = b->load_addr;
	if (b->entry_addr_text && parse_addr(b->entry_addr_text, &b->entry_addr))
		return ydoc_err(d, ynode_get(boot, "entry_addr"), err, errlen,
				"boot.entry_addr '%s' is not a hex address; write it like \"0x42208000\"",
				b->entry_addr_text);
	if (b->entry_addr > UINT32_MAX)
		return ydoc_err(d, ynode_get(boot, "entry_addr"), err, errlen,
				"boot.entry_addr '%s' is above 4 GiB; use an address below it",
				b->entry_addr_text);
	if (b->boot_format == BOOT_UIMAGE_APPENDED_DTB && strcmp(b->arch, "arm"))
		return ydoc_err(d, ynode_get(boot, "format"), err, errlen,
				"boot.format uimage-appended-dtb is for 32-bit arm (CONFIG_ARM_APPENDED_DTB); "
				"use fit or uimage for %s", b->arch);
	return 0;
}

/* min_series is a series, and every series the board lists meets it. */
static int check_series(const struct ydoc *d, struct board *b, char *err, size_t errlen)
{
	const struct ynode *kernel = ynode_get(d->root, "kernel");
	const struct ynode *series = ynode_get(d->root, "series");
	int cmp;

	for (size_t i = 0; i < b->series.n; i++)
		if (series_compare(b->series.v[i], b->series.v[i], &cmp))
			return ydoc_err(d, series->kid[i], err, errlen,
					"series '%s' is not a kernel series; write MAJOR.MINOR "
					"in quotes, like \"6.1\"", b->series.v[i]);
	if (!b->min_series)
		return 0;
	const struct ynode *at = ynode_get(kernel, "min_series");
	b->min_series_line = at->line;
	b->min_series_col = at->col;
	if (series_compare(b->min_series, b->min_series, &cmp))
		return ydoc_err(d, at, err, errlen, "kernel.min_series '%s' is not a kernel series; "
				"write MAJOR.MINOR in quotes, like \"6.12\"", b->min_series);
	for (size_t i = 0; i < b->series.n; i++) {
		series_compare(b->series.v[i], b->min_series, &cmp);
		if (cmp < 0)
			return ydoc_err(d, series->kid[i], err, errlen,
					"series '%s' is older than kernel.min_series '%s' (line %d); "
					"list only series the board can be built from",
					b->series.v[i], b->min_series, at->line);
	}
	return 0;
}

/* lava.peers: one namespace per device, and only where jobs run on a
 * lab's devices (the lava backend). */
static int check_peers(const struct ydoc *d, const struct board *b, char *err, size_t errlen)
{
	if (!b->lava.peers.n)
		return 0;
	const struct ynode *seq = ynode_get(ynode_get(d->root, "lava"), "peers");
	const struct board_lava_peer *p = b->lava.peers.v;
	if (strcmp(b->backend, "lava"))
		return ydoc_err(d, seq, err, errlen, "lava.peers names the traffic peers of a LAVA "
				"server's devices, but deploy.backend is %s; drop it or use backend lava",
				b->backend);
	for (size_t i = 0; i < b->lava.peers.n; i++) {
		const struct ynode *item = seq->kid[i];
		if (strlen(p[i].device) >= BOARD_LAVA_NAME_MAX || strlen(p[i].netns) >= BOARD_LAVA_NAME_MAX)
			return ydoc_err(d, item, err, errlen, "lava.peers[%zu]: a device or namespace "
					"name longer than %d characters; shorten it", i + 1,
					BOARD_LAVA_NAME_MAX - 1);
		for (size_t j = 0; j < i; j++) {
			if (!strcmp(p[i].device, p[j].device))
				return ydoc_err(d, ynode_get(item, "device"), err, errlen,
						"device '%s' has two peers (lava.peers[%zu]); keep one",
						p[i].device, j + 1);
			if (!strcmp(p[i].netns, p[j].netns))
				return ydoc_err(d, ynode_get(item, "netns"), err, errlen,
						"namespace '%s' is the peer of two devices (lava.peers[%zu]); "
						"two jobs at once would meet there: give each device its own",
						p[i].netns, j + 1);
		}
	}
	return 0;
}

/* deploy.qemu: present for the qemu backend, exactly one emulator, the
 * keys only an emulator hilbench builds has, and -global's form. */
static int check_qemu(const struct ydoc *d, const struct board *b, char *err, size_t errlen)
{
	const struct ynode *deploy = ynode_get(d->root, "deploy");
	const struct ynode *qemu = ynode_get(deploy, "qemu");

	if (!strcmp(b->backend, "qemu") && !qemu)
		return ydoc_err(d, ynode_get(deploy, "backend"), err, errlen,
				"deploy.backend is qemu but there is no 'deploy.qemu' "
				"mapping; add one with binary and machine");
	if (qemu && !b->qemu.binary == !b->qemu.emulator)
		return ydoc_err(d, qemu, err, errlen,
				"deploy.qemu needs exactly one of 'binary' (an installed "
				"QEMU, e.g. qemu-system-arm) and 'emulator' (one hilbench "
				"builds: a name in emulators/)");
	if (b->qemu.ps_per_insn && !b->qemu.emulator)
		return ydoc_err(d, ynode_get(qemu, "ps_per_insn"), err, errlen,
				"ps_per_insn needs an emulator hilbench builds (deploy.qemu."
				"emulator): Debian's QEMU has only power-of-two shifts");
	if (b->qemu.peer_hold_us && !b->qemu.emulator)
		return ydoc_err(d, ynode_get(qemu, "peer_hold_us"), err, errlen,
				"peer_hold_us needs an emulator hilbench builds (deploy.qemu."
				"emulator): Debian's QEMU has no filter-hold");
	if (b->qemu.peer_hold_us && b->qemu.icount_sleep)
		return ydoc_err(d, ynode_get(qemu, "peer_hold_us"), err, errlen,
				"peer_hold_us holds a clock that would otherwise jump "
				"(icount_sleep: off); with icount_sleep: on the guest already "
				"waits in real time, so drop one of the two");
	if (b->qemu.insn_profile && !b->qemu.emulator)
		return ydoc_err(d, ynode_get(qemu, "insn_profile"), err, errlen,
				"insn_profile needs an emulator hilbench builds (deploy.qemu."
				"emulator): its plugin is built against that emulator's source");
	for (size_t i = 0; i < b->qemu.globals.n; i++) {
		const char *g = b->qemu.globals.v[i], *dot = strchr(g, '.'), *eq = strchr(g, '=');
		if (!dot || !eq || dot > eq || dot == g || eq == dot + 1 || g[0] == '-')
			return ydoc_err(d, ynode_get(qemu, "globals"), err,
					errlen, "global '%s' is not DEVICE.PROPERTY=VALUE (QEMU's "
					"-global form, e.g. allwinner-sun8i-emac.tx-int-ctl=on)", g);
	}
	return 0;
}

/* The lava: section the LAVA backends need: the device (and lava-local's
 * SD boot loader), and where the job's files are served from. */
static int check_lava(const struct ydoc *d, const struct board *b, char *err, size_t errlen)
{
	const struct ynode *backend = ynode_get(ynode_get(d->root, "deploy"), "backend");
	const struct ynode *lava = ynode_get(d->root, "lava");
	char why[400];

	if (!strcmp(b->backend, "lava-local") &&
	    (!b->lava.device || !b->lava.sd_bootloader || b->lava.sd_bootloader[0] != '/'))
		return ydoc_err(d, backend, err, errlen,
				"deploy.backend is lava-local but the lava: section lacks "
				"'device' (a dictionary in lava/devices/) or an absolute "
				"'sd_bootloader' (the U-Boot image of the emulated SD card); "
				"see docs/lava.md");
	if (!strcmp(b->backend, "lava") && !b->lava.device)
		return ydoc_err(d, backend, err, errlen,
				"deploy.backend is lava but the lava: section names no "
				"'device' (the device's hostname on the LAVA server); see "
				"docs/lava.md");
	if (b->lava.artifact_url && board_artifact_url_ok(b->lava.artifact_url, why, sizeof(why)))
		return ydoc_err(d, ynode_get(lava, "artifact_url"), err, errlen,
				"lava.artifact_url %s", why);
	if (b->lava.artifact_dir && b->lava.artifact_dir[0] != '/')
		return ydoc_err(d, ynode_get(lava, "artifact_dir"), err, errlen,
				"lava.artifact_dir '%s' is not an absolute path; name the "
				"directory lava.artifact_url serves, like /srv/hilbench/artifacts",
				b->lava.artifact_dir);
	return 0;
}

/* LAVA deploys the uImage hilbench makes: the board must make one. */
static int check_lava_kernel_type(const struct ydoc *d, const struct board *b, char *err,
				  size_t errlen)
{
	if (b->lava.kernel_type && !strcmp(b->lava.kernel_type, "uimage") &&
	    b->boot_format != BOOT_UIMAGE && b->boot_format != BOOT_UIMAGE_APPENDED_DTB)
		return ydoc_err(d, ynode_get(ynode_get(d->root, "lava"), "kernel_type"), err, errlen,
				"lava.kernel_type uimage needs boot.format uimage or "
				"uimage-appended-dtb (the job deploys the uImage hilbench makes); "
				"add a boot: section or use kernel_type %s",
				strcmp(b->arch, "arm64") ? "zimage" : "image");
	return 0;
}

/* kernel.KEY's file, *path, made absolute against the board file's
 * directory. realpath: the header promises an absolute path, whatever the
 * working directory was when the board file was named. */
static int resolve_kernel_file(const struct ydoc *d, const char *key, char **path, char *err,
			       size_t errlen)
{
	char *rel;
	char *abs = board_relative_file(d, *path, &rel);
	if (!abs) {
		ydoc_err(d, ynode_get(ynode_get(d->root, "kernel"), key), err, errlen,
			 "kernel.%s '%s' is not a file (looked for %s); paths are relative to the "
			 "board file's directory", key, *path, rel);
		free(rel);
		return -1;
	}
	free(rel);
	free(*path);
	*path = abs;
	return 0;
}

/* The kernel's files: the config fragment, and an external DTB (a .dts or
 * a .dtb), each made absolute. */
static int check_kernel_files(const struct ydoc *d, struct board *b, char *err, size_t errlen)
{
	if (resolve_kernel_file(d, "config_fragment", &b->config_fragment, err, errlen))
		return -1;
	if (!b->external_dtb)
		return 0;
	size_t n = strlen(b->external_dtb);
	if (n < 4 || (strcmp(b->external_dtb + n - 4, ".dts") && strcmp(b->external_dtb + n - 4, ".dtb")))
		return ydoc_err(d, ynode_get(ynode_get(d->root, "kernel"), "external_dtb"), err,
				errlen, "kernel.external_dtb '%s' must name a .dts (compiled against "
				"the kernel tree's includes) or a .dtb file", b->external_dtb);
	return resolve_kernel_file(d, "external_dtb", &b->external_dtb, err, errlen);
}

/* The board's checks, in the order that decides which mistake of several
 * is the one reported. */
static int check(const struct ydoc *d, struct board *b, char *err, size_t errlen)
{
	if (ydoc_check_basename(d, b->name, err, errlen) || check_qemu(d, b, err, errlen) ||
	    check_lava(d, b, err, errlen) || check_peers(d, b, err, errlen) ||
	    check_addrs(d, b, err, errlen) || check_series(d, b, err, errlen) ||
	    check_boot(d, b, err, errlen) || check_lava_kernel_type(d, b, err, errlen))
		return -1;
	return check_kernel_files(d, b, err, errlen);
}

int board_load(const char *path, struct board *b, char *err, size_t errlen)
{
	struct ydoc *d = ydoc_load(path, err, errlen);

	memset(b, 0, sizeof *b);
	if (!d)
		return -1;
	int rc = ydoc_apply(d, board_fields, b, err, errlen);
	if (!rc)
		rc = check(d, b, err, errlen);
	ydoc_free(d);
	if (rc) {
		board_free(b);
		return -1;
	}
	b->path = xstrdup(path);
	return 0;
}

const char *board_lava_peer(const struct board *b, const char *device)
{
	const struct board_lava_peer *p = b->lava.peers.v;
	for (size_t i = 0; i < b->lava.peers.n; i++)
		if (!strcmp(p[i].device, device))
			return p[i].netns;
	return NULL;
}

void board_free(struct board *b)
{
	char **strs[] = {
		&b->path, &b->name, &b->description, &b->arch, &b->cross_compile,
		&b->debian_arch, &b->defconfig, &b->config_fragment, &b->image,
		&b->dtb, &b->cmdline, &b->dut_interface, &b->dut_driver,
		&b->host_addr, &b->dut_addr, &b->backend, &b->qemu.binary,
		&b->qemu.emulator, &b->stands_in_for, &b->qemu.machine, &b->qemu.cpu, &b->lava.device_type, &b->lava.deploy_to,
		&b->lava.kernel_type, &b->lava.boot_method, &b->lava.boot_commands,
		&b->lava.device, &b->lava.sd_bootloader, &b->lava.server,
		&b->lava.artifact_url, &b->lava.artifact_dir,
		&b->external_dtb, &b->min_series, &b->load_addr_text, &b->entry_addr_text,
	};
	for (size_t i = 0; i < HB_ARRAY_SIZE(strs); i++)
		free(*strs[i]);
	strlist_free(&b->series);
	strlist_free(&b->qemu.extra_args);
	strlist_free(&b->qemu.globals);
	strlist_free(&b->packages);
	strlist_free(&b->perf_packages);
	strlist_free(&b->lava.prompts);
	struct board_lava_peer *peer = b->lava.peers.v;
	for (size_t i = 0; i < b->lava.peers.n; i++) {
		free(peer[i].device);
		free(peer[i].netns);
	}
	free(peer);
	memset(b, 0, sizeof *b);
}

int board_peer_held(const struct board *b)
{
	return b->qemu.peer_hold_us > 0 && !b->qemu.icount_sleep;
}

int board_virtual_seconds(const struct board *b, int seconds)
{
	double scale = b->qemu.duration_scale;
	if (!(scale > 0) || scale >= 1 || seconds <= 0)
		return seconds;
	int s = (int)ceil(seconds * scale);
	return s < 1 ? 1 : s;
}

void board_ip(const char *cidr, char *out, size_t outlen)
{
	snprintf(out, outlen, "%.*s", (int)strcspn(cidr, "/"), cidr);
}

int board_artifact_url_ok(const char *url, char *err, size_t errlen)
{
	static const char url_chars[] =
		"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789:/._~+-@";
	size_t scheme = !strncmp(url, "http://", 7) ? 7 : !strncmp(url, "https://", 8) ? 8 : 0;
	size_t ok = strspn(url, url_chars);

	if (!scheme)
		snprintf(err, errlen, "'%.200s' is not an http:// or https:// URL; a LAVA worker "
			 "elsewhere fetches the job's files over HTTP", url);
	else if (!url[scheme] || url[scheme] == '/' || url[scheme] == ':')
		snprintf(err, errlen, "'%.200s' names no host", url);
	else if (url[ok])
		snprintf(err, errlen, "'%.200s' has '%c' (byte %zu), which LAVA would not fetch as "
			 "written; use letters, digits and :/._~+-@ (no query, fragment, escapes "
			 "or spaces)", url, url[ok], ok + 1);
	else if (strlen(url) >= ARTIFACT_URL_MAX)
		snprintf(err, errlen, "'%.40s...' is %zu bytes; an artifact URL has fewer than %d",
			 url, strlen(url), ARTIFACT_URL_MAX);
	else
		return 0;
	return -1;
}

int series_compare(const char *a, const char *b, int *cmp)
{
	long v[2][2];
	const char *s[2] = { a, b };
	for (int i = 0; i < 2; i++) {
		char *end;
		if (s[i][0] < '0' || s[i][0] > '9')
			return -1;
		v[i][0] = strtol(s[i], &end, 10);
		if (*end != '.' || end[1] < '0' || end[1] > '9')
			return -1;
		v[i][1] = strtol(end + 1, &end, 10);
		if (*end || v[i][0] > 1000 || v[i][1] > 1000)
			return -1;
	}
	*cmp = v[0][0] != v[1][0] ? (v[0][0] > v[1][0] ? 1 : -1)
				  : (v[0][1] > v[1][1]) - (v[0][1] < v[1][1]);
	return 0;
}

int board_series_check(const struct board *b, const char *series, char *err, size_t errlen)
{
	int cmp;
	if (!b->min_series)
		return 0;
	if (series_compare(series, b->min_series, &cmp)) {
		snprintf(err, errlen, "kernel series '%s' is not MAJOR.MINOR (like 6.12); "
			 "check --kernel-series or the tree's Makefile", series);
		return -1;
	}
	if (cmp >= 0)
		return 0;
	snprintf(err, errlen, "%s:%d:%d: board %s needs kernel %s or newer (kernel.min_series; "
		 "its %s is not in %s), but the kernel source is %s; build it from a newer "
		 "tree: hilbench build --board %s --kernel-src DIR (a %s+ git checkout or "
		 "tarball), or --kernel-series with a newer Debian linux-source",
		 b->path, b->min_series_line, b->min_series_col, b->name, b->min_series,
		 b->dtb, series, series, b->name, b->min_series);
	return -1;
}

const char *boot_format_name(int format)
{
	return format >= 0 && format < (int)HB_ARRAY_SIZE(boot_formats) - 1 ? boot_formats[format]
									  : "?";
}
