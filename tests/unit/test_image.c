/* image: each boot.format becomes the files its boot loader takes, made by
 * the real mkimage and dtc, and the U-Boot commands that boot them.
 *
 * The kernel image and initramfs are stand-in bytes (what is tested is the
 * packaging around them, not a kernel); the DTBs are real, compiled by dtc
 * from a small source. Needs u-boot-tools and device-tree-compiler
 * (make deps). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "build/image.h"
#include "util/proc.h"

static char tmp[64];

static char *put(const char *name, const char *text)
{
	char *path = xasprintf("%s/%s", tmp, name);
	char *dir = path_dirname(path);
	assert_int_equal(mkdir_p(dir, 0755), 0);
	free(dir);
	assert_int_equal(write_file_atomic(path, text, strlen(text)), 0);
	return path;
}

static int setup(void **state)
{
	(void)state;
	snprintf(tmp, sizeof(tmp), "/tmp/hb-test-image.XXXXXX");
	assert_non_null(mkdtemp(tmp));
	/* A kernel build's result dir: image, dtb, and the tree external
	 * DTS files compile against. */
	char *img = put("k/zImage", "stand-in kernel image bytes\n");
	free(img);
	free(put("k/src/include/dt-bindings/hb.h", "#define HB_ANSWER 42\n"));
	free(put("k/src/arch/arm/boot/dts/hb-soc.dtsi",
		 "#include <dt-bindings/hb.h>\n/ { soc { answer = <HB_ANSWER>; }; };\n"));
	char *dts = put("k/board.dts", "/dts-v1/;\n/ { model = \"hb\"; };\n");
	char *dtb = xasprintf("%s/k/board.dtb", tmp);
	char *dtc[] = { "dtc", "-I", "dts", "-O", "dtb", "-o", dtb, dts, NULL };
	assert_int_equal(proc_run(dtc, NULL), 0);
	free(dts);
	free(dtb);
	free(put("initramfs.cpio.gz", "stand-in initramfs bytes\n"));
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	rm_rf(tmp);
	return 0;
}

static void fill(struct board *b, struct build_result *k, struct userland_result *u, int format)
{
	memset(b, 0, sizeof(*b));
	memset(k, 0, sizeof(*k));
	memset(u, 0, sizeof(*u));
	b->name = "hb-board";
	b->path = "boards/hb-board.yaml";
	b->arch = "arm";
	b->boot_format = format;
	b->load_addr = b->entry_addr = format == BOOT_PLAIN ? 0 : 0x42208000u;
	snprintf(k->key, sizeof(k->key), "%064d", format);
	k->dir = xasprintf("%s/k", tmp);
	k->image = xasprintf("%s/k/zImage", tmp);
	k->dtb = xasprintf("%s/k/board.dtb", tmp);
	k->kernel_release = "6.1.192-hb";
	u->initramfs = xasprintf("%s/initramfs.cpio.gz", tmp);
	assert_int_equal(sha256_file_hex(u->initramfs, u->sha256), 0);
}

static void unfill(struct build_result *k, struct userland_result *u)
{
	free(k->dir);
	free(k->image);
	free(k->dtb);
	free(u->initramfs);
}

static char *mkimage_list(const char *file)
{
	char *argv[] = { "mkimage", "-l", (char *)file, NULL };
	char *out = proc_output(argv);
	assert_non_null(out);
	return out;
}

static off_t size_of(const char *path)
{
	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	return st.st_size;
}

static void plain_copies_what_was_built(void **state)
{
	struct board b;
	struct build_result k;
	struct userland_result u;
	struct boot_images im;
	(void)state;
	fill(&b, &k, &u, BOOT_PLAIN);
	assert_int_equal(boot_images_build(&b, &k, &u, "console=ttyS0,115200", &im), 0);
	assert_string_equal(im.kernel + strlen(im.kernel) - 7, "/zImage");
	assert_non_null(im.dtb);
	assert_non_null(im.ramdisk);
	assert_int_equal(size_of(im.kernel), size_of(k.image));
	assert_int_equal(size_of(im.dtb), size_of(k.dtb));
	char *cmds = read_file(im.uboot, NULL);
	assert_non_null(strstr(cmds, "setenv bootargs 'console=ttyS0,115200'\n"));
	assert_non_null(strstr(cmds, "tftp ${fdt_addr_r} board.dtb\n"));
	assert_non_null(strstr(cmds, "bootz ${kernel_addr_r} ${ramdisk_addr_r}:${filesize} ${fdt_addr_r}\n"));
	free(cmds);
	boot_images_free(&im);
	unfill(&k, &u);
}

/* Another process making the same boot files at the same time works in
 * a directory and a log of its own: this one neither removes nor shares
 * them (with the names <dir>.tmp and <dir>.log it did both). */
static void a_concurrent_maker_is_left_alone(void **state)
{
	struct board b;
	struct build_result k;
	struct userland_result u;
	struct boot_images im;
	(void)state;
	fill(&b, &k, &u, BOOT_PLAIN);
	assert_int_equal(boot_images_build(&b, &k, &u, "console=ttyS0", &im), 0);
	char *dir = xstrdup(im.dir);
	boot_images_free(&im);
	assert_int_equal(rm_rf(dir), 0);
	char *theirs = xasprintf("%s.tmp", dir), *their_log = xasprintf("%s.log", dir);
	char *marker = path_join(theirs, "half-made");
	assert_int_equal(mkdir_p(theirs, 0755), 0);
	assert_int_equal(write_file_atomic(marker, "x", 1), 0);
	assert_int_equal(write_file_atomic(their_log, "theirs", 6), 0);
	assert_int_equal(boot_images_build(&b, &k, &u, "console=ttyS0", &im), 0);
	assert_true(path_exists(im.uboot));
	assert_true(path_exists(marker));
	char *log = read_file(their_log, NULL);
	assert_string_equal(log, "theirs");
	free(log);
	boot_images_free(&im);
	free(marker);
	free(theirs);
	free(their_log);
	free(dir);
	unfill(&k, &u);
}

static void uimage_has_the_load_address(void **state)
{
	struct board b;
	struct build_result k;
	struct userland_result u;
	struct boot_images im;
	(void)state;
	fill(&b, &k, &u, BOOT_UIMAGE);
	assert_int_equal(boot_images_build(&b, &k, &u, "console=ttyS0", &im), 0);
	char *l = mkimage_list(im.kernel);
	assert_non_null(strstr(l, "Load Address: 42208000"));
	assert_non_null(strstr(l, "Entry Point:  42208000"));
	assert_non_null(strstr(l, "ARM Linux Kernel Image (uncompressed)"));
	assert_non_null(strstr(l, "Linux 6.1.192-hb"));
	free(l);
	l = mkimage_list(im.ramdisk);
	assert_non_null(strstr(l, "RAMDisk Image"));
	free(l);
	assert_non_null(im.dtb);
	char *cmds = read_file(im.uboot, NULL);
	assert_non_null(strstr(cmds, "bootm ${kernel_addr_r} ${ramdisk_addr_r} ${fdt_addr_r}\n"));
	free(cmds);
	boot_images_free(&im);
	unfill(&k, &u);
}

static void appended_dtb_rides_in_the_uimage(void **state)
{
	struct board b;
	struct build_result k;
	struct userland_result u;
	struct boot_images im;
	(void)state;
	fill(&b, &k, &u, BOOT_UIMAGE_APPENDED_DTB);
	assert_int_equal(boot_images_build(&b, &k, &u, "console=ttyMSM0,115200n8", &im), 0);
	assert_null(im.dtb);
	/* 64-byte legacy header + zImage + DTB */
	assert_int_equal(size_of(im.kernel), 64 + size_of(k.image) + size_of(k.dtb));
	size_t n;
	char *data = read_file(im.kernel, &n);
	char *dtb = read_file(k.dtb, NULL);
	/* the DTB is the tail: its magic right after the zImage */
	assert_memory_equal(data + 64 + size_of(k.image), dtb, 4);
	free(data);
	free(dtb);
	char *cmds = read_file(im.uboot, NULL);
	assert_non_null(strstr(cmds, "bootm ${kernel_addr_r} ${ramdisk_addr_r}\n"));
	assert_null(strstr(cmds, "fdt_addr_r} "));
	free(cmds);
	boot_images_free(&im);
	unfill(&k, &u);
}

static void fit_holds_kernel_dtb_and_ramdisk(void **state)
{
	struct board b;
	struct build_result k;
	struct userland_result u;
	struct boot_images im, again;
	(void)state;
	fill(&b, &k, &u, BOOT_FIT);
	b.arch = "arm64";
	b.load_addr = b.entry_addr = 0x86000000u;
	assert_int_equal(boot_images_build(&b, &k, &u, "console=ttyS0,115200", &im), 0);
	assert_null(im.dtb);
	assert_null(im.ramdisk);
	assert_string_equal(im.kernel + strlen(im.kernel) - 10, "/image.itb");
	char *l = mkimage_list(im.kernel);
	assert_non_null(strstr(l, "FIT description: hilbench hb-board"));
	assert_non_null(strstr(l, "Load Address: 0x86000000"));
	assert_non_null(strstr(l, "Type:         Flat Device Tree"));
	assert_non_null(strstr(l, "Type:         RAMDisk Image"));
	assert_non_null(strstr(l, "Architecture: AArch64"));
	free(l);
	char *cmds = read_file(im.uboot, NULL);
	assert_non_null(strstr(cmds, "tftp ${kernel_addr_r} image.itb\nbootm ${kernel_addr_r}\n"));
	free(cmds);
	/* Same inputs: the same directory, not made again; and the same bytes
	 * as a fresh make (mkimage is told the epoch). */
	char *first = read_file(im.kernel, NULL);
	assert_int_equal(boot_images_build(&b, &k, &u, "console=ttyS0,115200", &again), 0);
	assert_string_equal(again.dir, im.dir);
	boot_images_free(&again);
	rm_rf(im.dir);
	assert_int_equal(boot_images_build(&b, &k, &u, "console=ttyS0,115200", &again), 0);
	size_t n1 = (size_t)size_of(im.kernel);
	char *second = read_file(again.kernel, NULL);
	assert_memory_equal(first, second, n1);
	free(first);
	free(second);
	boot_images_free(&again);
	/* Another command line: another directory. */
	assert_int_equal(boot_images_build(&b, &k, &u, "console=ttyS0,115200 quiet", &again), 0);
	assert_string_not_equal(again.dir, im.dir);
	boot_images_free(&again);
	boot_images_free(&im);
	unfill(&k, &u);
}

static void external_dts_compiles_against_the_tree(void **state)
{
	struct board b;
	struct build_result k;
	struct userland_result u;
	struct boot_images im;
	(void)state;
	fill(&b, &k, &u, BOOT_PLAIN);
	/* OpenWrt-style: a .dts outside the tree including the tree's .dtsi
	 * and a .dtsi of its own directory. */
	char *own = put("openwrt/hb-board-common.dtsi", "/ { model = \"from openwrt\"; };\n");
	char *dts = put("openwrt/hb-board.dts",
			"/dts-v1/;\n#include \"hb-soc.dtsi\"\n#include \"hb-board-common.dtsi\"\n");
	b.external_dtb = dts;
	assert_int_equal(boot_images_build(&b, &k, &u, "console=ttyS0", &im), 0);
	assert_string_equal(im.dtb + strlen(im.dtb) - 12, "hb-board.dtb");
	char *argv[] = { "dtc", "-I", "dtb", "-O", "dts", im.dtb, NULL };
	char *back = proc_output(argv);
	assert_non_null(back);
	assert_non_null(strstr(back, "answer = <0x2a>"));
	assert_non_null(strstr(back, "model = \"from openwrt\""));
	free(back);
	boot_images_free(&im);

	/* A DTS that does not compile is the user's to fix. */
	free(put("openwrt/hb-board.dts", "/dts-v1/;\n/ { broken\n"));
	assert_int_equal(boot_images_build(&b, &k, &u, "console=ttyS0", &im), HB_FAIL_INPUT);
	free(own);
	free(dts);
	unfill(&k, &u);
}

static void uboot_cannot_carry_a_quote(void **state)
{
	struct board b;
	struct build_result k;
	struct userland_result u;
	struct boot_images im;
	(void)state;
	fill(&b, &k, &u, BOOT_PLAIN);
	assert_int_equal(boot_images_build(&b, &k, &u, "console=ttyS0 x='y'", &im), HB_FAIL_INPUT);
	assert_null(im.dir);
	unfill(&k, &u);
	memset(&im, 0, sizeof(im));
	im.kernel = "x/Image";
	b.arch = "arm64";
	b.boot_format = BOOT_PLAIN;
	im.dtb = "x/a.dtb";
	im.ramdisk = "x/r.cpio.gz";
	char *c = boot_uboot_commands(&b, &im, "console=ttyS0");
	assert_non_null(strstr(c, "booti ${kernel_addr_r}"));
	free(c);
	assert_null(boot_uboot_commands(&b, &im, "a\nb"));
}

static void its_names_the_parts(void **state)
{
	struct board b = { .name = "hb-board", .arch = "arm", .load_addr = 0x42208000u,
			   .entry_addr = 0x42208040u };
	(void)state;
	char *its = boot_fit_its(&b, "k", "d.dtb", "r.gz");
	assert_non_null(strstr(its, "data = /incbin/(\"k\");"));
	assert_non_null(strstr(its, "data = /incbin/(\"d.dtb\");"));
	assert_non_null(strstr(its, "data = /incbin/(\"r.gz\");"));
	assert_non_null(strstr(its, "load = <0x42208000>;"));
	assert_non_null(strstr(its, "entry = <0x42208040>;"));
	assert_non_null(strstr(its, "arch = \"arm\";"));
	free(its);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(plain_copies_what_was_built),
		cmocka_unit_test(a_concurrent_maker_is_left_alone),
		cmocka_unit_test(uimage_has_the_load_address),
		cmocka_unit_test(appended_dtb_rides_in_the_uimage),
		cmocka_unit_test(fit_holds_kernel_dtb_and_ramdisk),
		cmocka_unit_test(external_dts_compiles_against_the_tree),
		cmocka_unit_test(uboot_cannot_carry_a_quote),
		cmocka_unit_test(its_names_the_parts),
	};
	return cmocka_run_group_tests_name("image", tests, setup, teardown);
}
