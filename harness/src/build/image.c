#include "build/image.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/proc.h"
#include "util/util.h"

/* Names inside the boot directory; also the names on the TFTP server. */
#define RAMDISK_RAW "initramfs.cpio.gz"
#define RAMDISK_UBOOT "uInitrd"
#define FIT_FILE "image.itb"
#define FIT_KERNEL "fit-kernel"
#define FIT_DTB "fit.dtb"

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

/* mkimage's -A and the FIT arch property: U-Boot's names. */
static const char *uboot_arch(const struct board *b)
{
	return strcmp(b->arch, "arm64") ? "arm" : "arm64";
}

char *boot_fit_its(const struct board *b, const char *kernel, const char *dtb,
		   const char *ramdisk)
{
	const char *arch = uboot_arch(b);
	/* The names are hilbench's fixed file names and the board name
	 * (a checked name: [a-z0-9._-]), so nothing here needs quoting. */
	return xasprintf(
		"/dts-v1/;\n"
		"/* Written by hilbench (build/image.c) for board %s. */\n"
		"/ {\n"
		"\tdescription = \"hilbench %s\";\n"
		"\t#address-cells = <1>;\n"
		"\timages {\n"
		"\t\tkernel-1 {\n"
		"\t\t\tdata = /incbin/(\"%s\");\n"
		"\t\t\ttype = \"kernel\";\n"
		"\t\t\tarch = \"%s\";\n"
		"\t\t\tos = \"linux\";\n"
		"\t\t\tcompression = \"none\";\n"
		"\t\t\tload = <0x%08" PRIx64 ">;\n"
		"\t\t\tentry = <0x%08" PRIx64 ">;\n"
		"\t\t\thash-1 { algo = \"sha256\"; };\n"
		"\t\t};\n"
		"\t\tfdt-1 {\n"
		"\t\t\tdata = /incbin/(\"%s\");\n"
		"\t\t\ttype = \"flat_dt\";\n"
		"\t\t\tarch = \"%s\";\n"
		"\t\t\tcompression = \"none\";\n"
		"\t\t\thash-1 { algo = \"sha256\"; };\n"
		"\t\t};\n"
		/* compression none: the kernel unpacks the gzip'ed cpio itself */
		"\t\tramdisk-1 {\n"
		"\t\t\tdata = /incbin/(\"%s\");\n"
		"\t\t\ttype = \"ramdisk\";\n"
		"\t\t\tarch = \"%s\";\n"
		"\t\t\tos = \"linux\";\n"
		"\t\t\tcompression = \"none\";\n"
		"\t\t\thash-1 { algo = \"sha256\"; };\n"
		"\t\t};\n"
		"\t};\n"
		"\tconfigurations {\n"
		"\t\tdefault = \"conf-1\";\n"
		"\t\tconf-1 {\n"
		"\t\t\tkernel = \"kernel-1\";\n"
		"\t\t\tfdt = \"fdt-1\";\n"
		"\t\t\tramdisk = \"ramdisk-1\";\n"
		"\t\t};\n"
		"\t};\n"
		"};\n",
		b->name, b->name, kernel, arch, b->load_addr, b->entry_addr, dtb, arch, ramdisk,
		arch);
}

char *boot_uboot_commands(const struct board *b, const struct boot_images *im,
			  const char *cmdline)
{
	if (strpbrk(cmdline, "'\n\r"))
		return NULL;
	const char *kernel = base_name(im->kernel);
	const char *boot = !strcmp(b->arch, "arm64") ? "booti" : "bootz";
	char *head = xasprintf("# hilbench: boot %s (boot.format %s) from TFTP.\n"
			       "# kernel_addr_r, fdt_addr_r and ramdisk_addr_r are U-Boot's\n"
			       "# usual load addresses; set them first where the boot loader\n"
			       "# has none (docs/boards.md).\n"
			       "setenv bootargs '%s'\n",
			       b->name, boot_format_name(b->boot_format), cmdline);
	char *body;
	switch (b->boot_format) {
	case BOOT_PLAIN:
		body = xasprintf("tftp ${kernel_addr_r} %s\n"
				 "tftp ${fdt_addr_r} %s\n"
				 "tftp ${ramdisk_addr_r} %s\n"
				 "%s ${kernel_addr_r} ${ramdisk_addr_r}:${filesize} ${fdt_addr_r}\n",
				 kernel, base_name(im->dtb), base_name(im->ramdisk), boot);
		break;
	case BOOT_UIMAGE:
		body = xasprintf("tftp ${kernel_addr_r} %s\n"
				 "tftp ${fdt_addr_r} %s\n"
				 "tftp ${ramdisk_addr_r} %s\n"
				 "bootm ${kernel_addr_r} ${ramdisk_addr_r} ${fdt_addr_r}\n",
				 kernel, base_name(im->dtb), base_name(im->ramdisk));
		break;
	case BOOT_UIMAGE_APPENDED_DTB:
		/* No DTB argument: the kernel takes the appended one and
		 * merges the ATAGs' command line and initrd into it. */
		body = xasprintf("tftp ${kernel_addr_r} %s\n"
				 "tftp ${ramdisk_addr_r} %s\n"
				 "bootm ${kernel_addr_r} ${ramdisk_addr_r}\n",
				 kernel, base_name(im->ramdisk));
		break;
	default:
		body = xasprintf("tftp ${kernel_addr_r} %s\n"
				 "bootm ${kernel_addr_r}\n", kernel);
		break;
	}
	char *all = xasprintf("%s%s", head, body);
	free(head);
	free(body);
	return all;
}

static char **mkimage_env(void)
{
	/* mkimage stamps images with the time unless told otherwise. */
	static char *env[] = { "SOURCE_DATE_EPOCH=0", NULL };
	return env;
}

static int run_logged(char *const argv[], const char *cwd, const char *log)
{
	struct proc_opts o = PROC_OPTS_DEFAULT;
	o.cwd = cwd;
	o.log = log;
	o.env_add = mkimage_env();
	int st = proc_run(argv, &o);
	if (st != 0) {
		char *cmd = argv_display(argv);
		hb_err("%s failed (exit %d); its output is in %s", cmd, st, log);
		free(cmd);
	}
	return st;
}

/* A legacy uImage of `from` (-T kernel or ramdisk). */
static int mkimage_legacy(const struct board *b, const struct build_result *k,
			  const char *type, const char *from, const char *to, const char *log)
{
	char load[24], entry[24], name[33];
	snprintf(load, sizeof(load), "0x%08" PRIx64, b->load_addr);
	snprintf(entry, sizeof(entry), "0x%08" PRIx64, b->entry_addr);
	/* uImage names hold 32 bytes */
	snprintf(name, sizeof(name), "%s %s", !strcmp(type, "kernel") ? "Linux" : "initramfs",
		 k->kernel_release ? k->kernel_release : "");
	struct strlist a = { 0 };
	strlist_push(&a, "mkimage");
	strlist_push(&a, "-A");
	strlist_push(&a, uboot_arch(b));
	strlist_push(&a, "-O");
	strlist_push(&a, "linux");
	strlist_push(&a, "-T");
	strlist_push(&a, type);
	strlist_push(&a, "-C");
	strlist_push(&a, "none");
	if (!strcmp(type, "kernel")) {
		strlist_push(&a, "-a");
		strlist_push(&a, load);
		strlist_push(&a, "-e");
		strlist_push(&a, entry);
	}
	strlist_push(&a, "-n");
	strlist_push(&a, name);
	strlist_push(&a, "-d");
	strlist_push(&a, from);
	strlist_push(&a, to);
	int st = run_logged(strlist_argv(&a), NULL, log);
	strlist_free(&a);
	return st ? HB_FAIL : 0;
}

/* The board's external .dts, preprocessed and compiled the way kbuild
 * compiles the tree's own: its includes come from the kernel tree and from
 * the .dts's own directory (where OpenWrt keeps its .dtsi files). */
static int compile_dts(const struct board *b, const struct build_result *k, const char *out,
		       const char *log)
{
	char *src = path_join(k->dir, "src");
	char *dts_dir = path_dirname(b->external_dtb);
	char *pre = xasprintf("%s.pre.dts", out);
	char *inc[] = {
		xasprintf("%s/include", src),
		xasprintf("%s/arch/%s/boot/dts", src, b->arch),
		xasprintf("%s/scripts/dtc/include-prefixes", src),
		xstrdup(dts_dir),
	};
	int rc = HB_FAIL_INPUT;
	if (!path_exists(inc[1])) {
		hb_err("the kernel tree %s is gone, and kernel.external_dtb (%s) compiles against it; "
		       "delete %s and build again", src, b->external_dtb, k->dir);
		rc = HB_FAIL;
		goto out;
	}
	struct strlist a = { 0 };
	strlist_push(&a, "cpp");
	strlist_push(&a, "-nostdinc");
	strlist_push(&a, "-undef");
	strlist_push(&a, "-D__DTS__");
	strlist_push(&a, "-x");
	strlist_push(&a, "assembler-with-cpp");
	for (size_t i = 0; i < HB_ARRAY_SIZE(inc); i++) {
		strlist_push(&a, "-I");
		strlist_push(&a, inc[i]);
	}
	strlist_push(&a, "-o");
	strlist_push(&a, pre);
	strlist_push(&a, b->external_dtb);
	int st = run_logged(strlist_argv(&a), NULL, log);
	strlist_free(&a);
	if (st == 0) {
		char *dtc[] = { "dtc", "-I", "dts", "-O", "dtb", "-i", dts_dir, "-o", (char *)out,
				pre, NULL };
		st = run_logged(dtc, NULL, log);
	}
	if (st == 0)
		rc = 0;
	else
		hb_err("%s (kernel.external_dtb of %s) does not compile against kernel %s; fix it "
		       "or point external_dtb at a .dtb (log: %s)", b->external_dtb, b->path,
		       k->kernel_release, log);
out:
	for (size_t i = 0; i < HB_ARRAY_SIZE(inc); i++)
		free(inc[i]);
	unlink(pre);
	free(pre);
	free(dts_dir);
	free(src);
	return rc;
}

static int concat(const char *a, const char *b, const char *out)
{
	size_t la, lb;
	char *da = read_file(a, &la), *db = read_file(b, &lb);
	int rc = -1;
	if (da && db) {
		char *both = xmalloc(la + lb);
		memcpy(both, da, la);
		memcpy(both + la, db, lb);
		rc = write_file_atomic(out, both, la + lb);
		free(both);
	}
	free(da);
	free(db);
	return rc;
}

static void set_paths(const struct board *b, const struct build_result *k, const char *dtb_name,
		      struct boot_images *im)
{
	switch (b->boot_format) {
	case BOOT_PLAIN:
		im->kernel = path_join(im->dir, base_name(k->image));
		im->dtb = path_join(im->dir, dtb_name);
		im->ramdisk = path_join(im->dir, RAMDISK_RAW);
		break;
	case BOOT_UIMAGE:
		im->kernel = path_join(im->dir, "uImage");
		im->dtb = path_join(im->dir, dtb_name);
		im->ramdisk = path_join(im->dir, RAMDISK_UBOOT);
		break;
	case BOOT_UIMAGE_APPENDED_DTB:
		im->kernel = path_join(im->dir, "uImage");
		im->ramdisk = path_join(im->dir, RAMDISK_UBOOT);
		break;
	default:
		im->kernel = path_join(im->dir, FIT_FILE);
		break;
	}
	im->uboot = path_join(im->dir, "u-boot.txt");
}

/* BOOT_PLAIN: the kernel image and the initramfs as they are. */
static int make_plain_files(const struct build_result *k, const struct userland_result *u,
			    const char *tmp)
{
	char *kernel = path_join(tmp, base_name(k->image));
	char *ramdisk = path_join(tmp, RAMDISK_RAW);
	int failed = copy_file(k->image, kernel) < 0 || copy_file(u->initramfs, ramdisk) < 0;
	if (failed)
		hb_err("cannot copy the kernel and initramfs into %s: %s", tmp, strerror(errno));
	free(kernel);
	free(ramdisk);
	return failed ? HB_FAIL : 0;
}

/* BOOT_UIMAGE and BOOT_UIMAGE_APPENDED_DTB: legacy uImages of the kernel
 * and of the initramfs; the latter's kernel carries the DTB appended, and
 * the DTB file dtb goes. */
static int make_uimage_files(const struct board *b, const struct build_result *k,
			     const struct userland_result *u, const char *tmp, const char *dtb,
			     const char *log)
{
	char *kernel = path_join(tmp, "uImage");
	char *ramdisk = path_join(tmp, RAMDISK_UBOOT);
	char *joined = NULL;
	const char *payload = k->image;
	int rc = HB_FAIL;
	if (b->boot_format == BOOT_UIMAGE_APPENDED_DTB) {
		joined = xasprintf("%s/%s-dtb", tmp, base_name(k->image));
		if (concat(k->image, dtb, joined) < 0) {
			hb_err("cannot write %s: %s", joined, strerror(errno));
			goto out;
		}
		payload = joined;
	}
	if (mkimage_legacy(b, k, "kernel", payload, kernel, log) ||
	    mkimage_legacy(b, k, "ramdisk", u->initramfs, ramdisk, log))
		goto out;
	if (joined)
		unlink(joined);
	if (b->boot_format == BOOT_UIMAGE_APPENDED_DTB)
		unlink(dtb);
	rc = 0;
out:
	free(kernel);
	free(ramdisk);
	free(joined);
	return rc;
}

/* FIT: the parts under fixed names next to the .its, which refers to them
 * relative to mkimage's working directory; the parts go once the FIT is
 * made, the .its stays: it says what is in the FIT. */
static int make_fit_files(const struct board *b, const struct build_result *k,
			  const struct userland_result *u, const char *tmp, const char *dtb,
			  const char *log)
{
	char *kernel = path_join(tmp, FIT_KERNEL);
	char *ramdisk = path_join(tmp, RAMDISK_RAW);
	char *fdt = path_join(tmp, FIT_DTB);
	char *its = NULL, *itsf = NULL;
	int rc = HB_FAIL;
	if (copy_file(k->image, kernel) != 0 || rename(dtb, fdt) != 0 ||
	    copy_file(u->initramfs, ramdisk) != 0) {
		hb_err("cannot prepare the FIT parts in %s: %s", tmp, strerror(errno));
		goto out;
	}
	its = boot_fit_its(b, FIT_KERNEL, FIT_DTB, RAMDISK_RAW);
	itsf = path_join(tmp, "boot.its");
	if (write_file_atomic(itsf, its, strlen(its)) < 0) {
		hb_err("cannot write %s: %s", itsf, strerror(errno));
		goto out;
	}
	char *mk[] = { "mkimage", "-f", "boot.its", FIT_FILE, NULL };
	if (run_logged(mk, tmp, log) != 0)
		goto out;
	unlink(kernel);
	unlink(ramdisk);
	unlink(fdt);
	rc = 0;
out:
	free(kernel);
	free(ramdisk);
	free(fdt);
	free(its);
	free(itsf);
	return rc;
}

/* Makes every file of the format in tmp (named as set_paths() says). */
static int make_files(const struct board *b, const struct build_result *k,
		      const struct userland_result *u, const char *tmp, const char *dtb_name,
		      const char *log)
{
	char *dtb = path_join(tmp, dtb_name);
	int rc = 0;
	if (b->external_dtb && !strcmp(b->external_dtb + strlen(b->external_dtb) - 4, ".dts")) {
		rc = compile_dts(b, k, dtb, log);
	} else if (copy_file(b->external_dtb ? b->external_dtb : k->dtb, dtb) < 0) {
		hb_err("cannot copy the DTB into %s: %s", tmp, strerror(errno));
		rc = HB_FAIL;
	}
	if (rc == 0) {
		switch (b->boot_format) {
		case BOOT_PLAIN:
			rc = make_plain_files(k, u, tmp);
			break;
		case BOOT_UIMAGE:
		case BOOT_UIMAGE_APPENDED_DTB:
			rc = make_uimage_files(b, k, u, tmp, dtb, log);
			break;
		default:
			rc = make_fit_files(b, k, u, tmp, dtb, log);
			break;
		}
	}
	free(dtb);
	return rc;
}

/* The DTB's name on the TFTP server: the board's, or the external file's
 * (a .dts is served compiled, as .dtb). */
static char *served_dtb_name(const char *dtb_src)
{
	char *dtb_name = xstrdup(base_name(dtb_src));
	size_t n = strlen(dtb_name);
	if (n > 4 && !strcmp(dtb_name + n - 4, ".dts"))
		dtb_name[n - 1] = 'b';
	return dtb_name;
}

/* The key of the boot files: the hash of all that goes into them (the
 * format and its addresses, the kernel and its image, the DTB, the
 * initramfs, the command line and mkimage's version) into key; 0, or
 * HB_FAIL with the reason printed. */
static int boot_key(const struct board *b, const struct build_result *k,
		    const struct userland_result *u, const char *cmdline, const char *dtb_src,
		    const char *dtb_name, char key[65])
{
	char image_sha[65], dtb_sha[65];
	if (sha256_file_hex(k->image, image_sha) < 0 || sha256_file_hex(dtb_src, dtb_sha) < 0) {
		hb_err("cannot read %s or %s: %s", k->image, dtb_src, strerror(errno));
		return HB_FAIL;
	}
	char *ver_argv[] = { "mkimage", "-V", NULL };
	char *mkimage = b->boot_format == BOOT_PLAIN ? xstrdup("-") : proc_output(ver_argv);
	if (!mkimage) {
		hb_err("mkimage is not installed (boot.format %s of %s needs it); run `make deps` "
		       "(u-boot-tools)", boot_format_name(b->boot_format), b->path);
		return HB_FAIL;
	}
	char *key_text = xasprintf("hilbench-boot 1\nformat %s\nload %" PRIx64 "\nentry %" PRIx64
				   "\nkernel %s %s\ndtb %s %s\ninitramfs %s\ncmdline %s\n"
				   "mkimage %s\n", boot_format_name(b->boot_format), b->load_addr,
				   b->entry_addr, k->key, image_sha, dtb_name, dtb_sha, u->sha256,
				   cmdline, mkimage);
	sha256_hex(key_text, strlen(key_text), key);
	free(key_text);
	free(mkimage);
	return 0;
}

/* u-boot.txt written last into tmp, and tmp renamed to out->dir; 0, or
 * HB_FAIL with the reason printed. */
static int publish_boot_dir(const char *tmp, const char *uboot_text, const struct boot_images *out)
{
	char *uboot_tmp = path_join(tmp, "u-boot.txt");
	int ok = write_file_atomic(uboot_tmp, uboot_text, strlen(uboot_text)) == 0;
	free(uboot_tmp);
	if (ok && rename(tmp, out->dir) != 0) {
		if (path_exists(out->uboot))
			rm_rf(tmp);	/* another process made the same key first */
		else	/* a directory an older hilbench left half made */
			ok = rm_rf(out->dir) == 0 && rename(tmp, out->dir) == 0;
	}
	if (!ok) {
		hb_err("cannot move %s to %s: %s", tmp, out->dir, strerror(errno));
		return HB_FAIL;
	}
	return 0;
}

/* Made in a directory of a name of this process's own, logged beside it,
 * and renamed into place: two processes making the same key do not share
 * a file, and readers see all the files or none. A failure leaves the log
 * (its name is in the error) and removes the rest. */
static int make_boot_dir(const struct board *b, const struct build_result *k,
			 const struct userland_result *u, const char *uboot_text,
			 const char *dtb_name, const struct boot_images *out)
{
	char *parent = path_dirname(out->dir);
	char *tmp = xasprintf("%s.tmp-XXXXXX", out->dir);
	int made = mkdir_p(parent, 0755) == 0 && mkdtemp(tmp);
	free(parent);
	if (!made) {
		hb_err("cannot create %s: %s", tmp, strerror(errno));
		free(tmp);
		return HB_FAIL;
	}
	char *log = xasprintf("%s.log", tmp);
	int rc = make_files(b, k, u, tmp, dtb_name, log);
	if (rc == 0)
		rc = publish_boot_dir(tmp, uboot_text, out);
	if (rc == 0)
		unlink(log);
	else
		rm_rf(tmp);
	free(tmp);
	free(log);
	return rc;
}

int boot_images_build(const struct board *b, const struct build_result *k,
		      const struct userland_result *u, const char *cmdline,
		      struct boot_images *out)
{
	memset(out, 0, sizeof(*out));
	const char *dtb_src = b->external_dtb ? b->external_dtb : k->dtb;
	char *dtb_name = served_dtb_name(dtb_src);
	char key[65];
	int rc = boot_key(b, k, u, cmdline, dtb_src, dtb_name, key);
	if (rc) {
		free(dtb_name);
		return rc;
	}
	out->dir = xasprintf("%s/boot/%.16s", k->dir, key);
	set_paths(b, k, dtb_name, out);
	char *text = boot_uboot_commands(b, out, cmdline);
	if (!text) {
		hb_err("the kernel command line of %s has a quote or a newline, which U-Boot's "
		       "setenv bootargs '...' cannot carry; remove it from kernel.cmdline", b->path);
		rc = HB_FAIL_INPUT;
	} else if (!path_exists(out->uboot)) {	/* else made before: u-boot.txt is written last */
		hb_info("making the %s boot files for %s in %s", boot_format_name(b->boot_format),
			b->name, out->dir);
		rc = make_boot_dir(b, k, u, text, dtb_name, out);
	}
	if (rc)
		boot_images_free(out);
	free(text);
	free(dtb_name);
	return rc;
}

void boot_images_free(struct boot_images *out)
{
	free(out->dir);
	free(out->kernel);
	free(out->dtb);
	free(out->ramdisk);
	free(out->uboot);
	memset(out, 0, sizeof(*out));
}
