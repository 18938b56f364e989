#include "config/board.h"

#include <arpa/inet.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "config/yamldoc.h"

#define B(f) offsetof(struct board, f)

static const char *const arches[] = { "arm", "arm64", NULL };
static const char *const debian_arches[] = { "armhf", "arm64", NULL };
static const char *const backends[] = { "qemu", "lava-local", "lava", NULL };
/* Only what deploy/lava_job.c can render: a new method needs both. */
static const char *const lava_deploys[] = { "tftp", NULL };
static const char *const lava_kernel_types[] = { "zimage", "image", "uimage", NULL };
static const char *const lava_boots[] = { "u-boot", NULL };
static const char *const lava_commands[] = { "ramdisk", NULL };

static const struct yfield kernel_fields[] = {
	{ .key = "defconfig", .type = YF_STRING, .required = 1, .off = B(defconfig) },
	{ .key = "config_fragment", .type = YF_STRING, .required = 1, .off = B(config_fragment) },
	{ .key = "image", .type = YF_STRING, .required = 1, .off = B(image) },
	{ .key = "dtb", .type = YF_STRING, .required = 1, .off = B(dtb) },
	{ .key = "cmdline", .type = YF_STRING, .required = 1, .off = B(cmdline) },
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
	{ .key = "binary", .type = YF_STRING, .required = 1, .off = B(qemu.binary) },
	{ .key = "machine", .type = YF_STRING, .required = 1, .off = B(qemu.machine) },
	{ .key = "cpu", .type = YF_STRING, .off = B(qemu.cpu) },
	{ .key = "memory_mb", .type = YF_INT, .off = B(qemu.memory_mb),
	  .min = 16, .max = 65536 },
	{ .key = "extra_args", .type = YF_STRLIST, .off = B(qemu.extra_args) },
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
	{ 0 }
};

static const struct yfield userland_fields[] = {
	{ .key = "packages", .type = YF_STRLIST, .required = 1, .off = B(packages),
	  .min = 1 },
	{ 0 }
};

static const struct yfield board_fields[] = {
	{ .key = "name", .type = YF_STRING, .required = 1, .off = B(name), .is_name = 1 },
	{ .key = "description", .type = YF_STRING, .required = 1, .off = B(description) },
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
	{ 0 }
};

/* "a.b.c.d/len"; up to /30 the host part must be neither the network nor
 * the broadcast address (/31 and /32 have neither, RFC 3021). */
static int parse_cidr(const char *s, uint32_t *addr, int *len)
{
	const char *slash = strchr(s, '/');
	char ip[INET_ADDRSTRLEN];
	struct in_addr in;
	char *end;

	if (!slash || (size_t)(slash - s) >= sizeof ip || slash[1] < '0' || slash[1] > '9')
		return -1;
	memcpy(ip, s, (size_t)(slash - s));
	ip[slash - s] = '\0';
	long l = strtol(slash + 1, &end, 10);
	if (*end || l > 32 || inet_pton(AF_INET, ip, &in) != 1)
		return -1;
	*addr = ntohl(in.s_addr);
	*len = (int)l;
	uint32_t hostmask = l ? UINT32_MAX >> l : UINT32_MAX;
	uint32_t host = *addr & hostmask;
	return l <= 30 && (host == 0 || host == hostmask) ? -1 : 0;
}

static uint32_t net_of(uint32_t addr, int len)
{
	return len ? addr & ~(UINT32_MAX >> len) : 0;
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
		if (len[i] < 15 || net_of(a[i], 15) != 0xc6120000u)
			return ydoc_err(d, at, err, errlen,
					"dut.%s '%s' is outside 198.18.0.0/15, the range "
					"RFC 2544 reserves for benchmarking; use an address "
					"and prefix inside it, like 198.18.0.1/24",
					keys[i], vals[i]);
	}
	const struct ynode *at = ynode_get(dut, "dut_addr");
	if (len[0] != len[1] || net_of(a[0], len[0]) != net_of(a[1], len[1]))
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

static int check(const struct ydoc *d, struct board *b, char *err, size_t errlen)
{
	const struct ynode *kernel = ynode_get(d->root, "kernel");
	const struct ynode *deploy = ynode_get(d->root, "deploy");
	struct stat st;

	if (ydoc_check_basename(d, b->name, err, errlen))
		return -1;
	if (!strcmp(b->backend, "qemu") && !ynode_get(deploy, "qemu"))
		return ydoc_err(d, ynode_get(deploy, "backend"), err, errlen,
				"deploy.backend is qemu but there is no 'deploy.qemu' "
				"mapping; add one with binary and machine");
	if (!strcmp(b->backend, "lava-local") &&
	    (!b->lava.device || !b->lava.sd_bootloader || b->lava.sd_bootloader[0] != '/'))
		return ydoc_err(d, ynode_get(deploy, "backend"), err, errlen,
				"deploy.backend is lava-local but the lava: section lacks "
				"'device' (a dictionary in lava/devices/) or an absolute "
				"'sd_bootloader' (the U-Boot image of the emulated SD card); "
				"see docs/lava.md");
	if (!strcmp(b->backend, "lava") && !b->lava.device)
		return ydoc_err(d, ynode_get(deploy, "backend"), err, errlen,
				"deploy.backend is lava but the lava: section names no "
				"'device' (the device's hostname on the LAVA server); see "
				"docs/lava.md");
	if (check_addrs(d, b, err, errlen))
		return -1;

	/* realpath: the header promises an absolute path, whatever the
	 * working directory was when the board file was named. */
	char *dir = path_dirname(d->path);
	char *rel = path_join(dir, b->config_fragment);
	char *frag = realpath(rel, NULL);
	free(dir);
	if (!frag || stat(frag, &st) || !S_ISREG(st.st_mode)) {
		ydoc_err(d, ynode_get(kernel, "config_fragment"), err, errlen,
			 "kernel.config_fragment '%s' is not a file (looked for %s); "
			 "paths are relative to the board file's directory",
			 b->config_fragment, rel);
		free(rel);
		free(frag);
		return -1;
	}
	free(rel);
	free(b->config_fragment);
	b->config_fragment = frag;
	return 0;
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

void board_free(struct board *b)
{
	char **strs[] = {
		&b->path, &b->name, &b->description, &b->arch, &b->cross_compile,
		&b->debian_arch, &b->defconfig, &b->config_fragment, &b->image,
		&b->dtb, &b->cmdline, &b->dut_interface, &b->dut_driver,
		&b->host_addr, &b->dut_addr, &b->backend, &b->qemu.binary,
		&b->qemu.machine, &b->qemu.cpu, &b->lava.device_type, &b->lava.deploy_to,
		&b->lava.kernel_type, &b->lava.boot_method, &b->lava.boot_commands,
		&b->lava.device, &b->lava.sd_bootloader, &b->lava.server,
	};
	for (size_t i = 0; i < HB_ARRAY_SIZE(strs); i++)
		free(*strs[i]);
	strlist_free(&b->series);
	strlist_free(&b->qemu.extra_args);
	strlist_free(&b->packages);
	strlist_free(&b->lava.prompts);
	memset(b, 0, sizeof *b);
}

void board_ip(const char *cidr, char *out, size_t outlen)
{
	snprintf(out, outlen, "%.*s", (int)strcspn(cidr, "/"), cidr);
}
