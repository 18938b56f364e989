/*
 * image: a built kernel in the form the board's boot loader takes
 * (boot.format of boards/<name>.yaml), with the DTB and ramdisk it boots
 * with, and the U-Boot commands that load them over TFTP.
 *
 *   plain                image + DTB as built, raw initramfs: bootz/booti
 *   uimage               legacy uImage at boot.load_addr, DTB apart,
 *                        initramfs as a U-Boot ramdisk image: bootm
 *   uimage-appended-dtb  uImage of zImage + DTB (for boot loaders that
 *                        pass ATAGs), U-Boot ramdisk image: bootm
 *   fit                  one FIT (.itb): kernel, DTB, initramfs: bootm
 *
 * The DTB is the one the kernel build made, or the board's
 * kernel.external_dtb: a .dtb as is, a .dts compiled with cpp and dtc
 * against the kernel tree's includes (the way kbuild compiles its own).
 *
 * Layout: kernels/<key>/boot/<boot-key>/ where <boot-key> hashes the format,
 * addresses, command line, kernel image, DTB source and initramfs. Files
 * depend only on their inputs (mkimage runs with SOURCE_DATE_EPOCH=0).
 *
 * Contract: boot_images_build() returns 0 with every path of *out filled
 * (dtb and ramdisk NULL where they travel inside the kernel file), or
 * HB_FAIL_INPUT (a DTS that does not compile, a command line U-Boot cannot
 * carry) / HB_FAIL (a tool is missing, disk) with the message printed.
 */
#ifndef HB_IMAGE_H
#define HB_IMAGE_H

#include "build/kernel.h"
#include "build/userland.h"
#include "config/board.h"

struct boot_images {
	char *dir;
	char *kernel;		/* what U-Boot loads first: zImage, Image, uImage, *.itb */
	char *dtb;		/* NULL: appended to or inside the kernel file */
	char *ramdisk;		/* NULL: inside the FIT */
	char *uboot;		/* u-boot.txt: the TFTP boot commands */
};

int boot_images_build(const struct board *b, const struct build_result *k,
		      const struct userland_result *u, const char *cmdline,
		      struct boot_images *out);
void boot_images_free(struct boot_images *out);

/* The FIT source (.its) for kernel/dtb/ramdisk files named as given in
 * the directory mkimage runs in. Newly allocated. */
char *boot_fit_its(const struct board *b, const char *kernel, const char *dtb,
		   const char *ramdisk);
/* The U-Boot commands that boot these files (names as on the TFTP
 * server) with this command line, or NULL when U-Boot's single-quoted
 * setenv cannot carry the command line (a quote or a newline in it). */
char *boot_uboot_commands(const struct board *b, const struct boot_images *im,
			  const char *cmdline);

#endif
