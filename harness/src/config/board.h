/*
 * board: one boards/<name>.yaml file, validated.
 *
 * Contract: board_load() either fills *b completely (every required key
 * present, every value of the right type and range) or returns -1 with a
 * message in err of the form "FILE:LINE:COL: what is wrong; what to do".
 * Unknown keys are errors (a typo must never be silently ignored).
 * Relative paths in the file are resolved against the file's directory.
 */
#ifndef HB_BOARD_H
#define HB_BOARD_H

#include <stddef.h>
#include <stdint.h>

#include "config/yamldoc.h"
#include "util/util.h"

struct board_qemu {
	char *binary;		/* an installed QEMU: qemu-system-arm */
	char *emulator;		/* or one hilbench builds: emulators/<name>.yaml */
	struct strlist globals;	/* -global DEVICE.PROPERTY=VALUE each */
	int ps_per_insn;	/* virtual time per instruction; 0 = -icount shift=5 */
	/* 1: the emulator counts instructions per kernel function in each
	 * run's window (harness/plugin/hb-insn.c, method emulator-insn) */
	int insn_profile;
	/* 1: in virtual time with a boot per repetition, a boot none of whose
	 * runs is DUT-paced (TCP, what the host sends) starts from the images'
	 * first boot, saved
	 * (run/executor.c; docs/measurements.md, "Repetitions from a saved
	 * boot": off by default, for what it changes) */
	int saved_boot;
	int icount_sleep;	/* 1: an idle guest waits in real time (-icount
				 * sleep=on); 0: its clock jumps to the next timer */
	/* sleep=off, virtual time: while the host keeps sending, an idle
	 * guest's clock is held up to this many real microseconds for the
	 * host's next frame instead of jumping (QEMU filter-hold, emulator
	 * patch 0007); 0: never held */
	int peer_hold_us;
	/* The DTB's /chosen/rng-seed, this many bytes, which QEMU fills with
	 * fresh random bytes at every reset (as a boot loader with a hardware
	 * RNG does on a board): the kernel's random pool is ready at boot
	 * instead of filling itself inside the first measured run; 0: none */
	int rng_seed_bytes;
	/* Virtual time only: a workload's seconds times this (0 = 1). A CPU
	 * calibrated faster than the default board's 32 ns an instruction runs
	 * more instructions per virtual second, so more wall time: this keeps a
	 * run's instructions, and its wall time, about where they were (and
	 * under libiperf's server timer, which runs in real time). */
	double duration_scale;
	char *machine;		/* orangepi-pc */
	char *cpu;		/* optional, NULL = machine default */
	int memory_mb;		/* 0 = machine default */
	struct strlist extra_args; /* appended verbatim as argv entries */
};

/* How a LAVA lab runs the board (docs/lava.md); absent = no lava: section. */
struct board_lava {
	char *device_type;	/* LAVA device type; NULL when the board has none */
	char *deploy_to;	/* tftp */
	char *kernel_type;	/* zimage | image | uimage: how U-Boot boots it */
	char *boot_method;	/* u-boot */
	char *boot_commands;	/* the device type's command set: ramdisk */
	struct strlist prompts;	/* shell prompt(s) LAVA waits for after boot */
	/* The LAVA device: for lava-local, its dictionary in lava/devices/
	 * (NAME.jinja2); for lava, its hostname on the server; NULL when the
	 * board file names none. */
	char *device;
	char *server;		/* lava: the server's URL; $HILBENCH_LAVA_URL wins */
	/* lava-local on QEMU only: the U-Boot image written at 8 KiB of the
	 * emulated SD card (absolute path); NULL otherwise. */
	char *sd_bootloader;
	/* The artifact host (deploy/lava_artifacts.h): the URL of a web server
	 * the lab runs over artifact_dir; NULL: hilbench starts one on this
	 * machine for each job. artifact_dir: where the files are published
	 * (absolute); NULL: $HILBENCH_CACHE/artifacts. */
	char *artifact_url;
	char *artifact_dir;
	/* Each device's traffic peer (lava backend): the named network
	 * namespace on this machine (/run/netns/NAME, `ip netns add`) that
	 * holds the host end of that device's link. The board's addresses
	 * then serve every device, each behind its own namespace, so jobs for
	 * the type run at once; none: all devices share this host's one peer. */
	struct ytable peers;	/* of struct board_lava_peer */
};

/* A device's or a peer namespace's name is shorter than this. */
#define BOARD_LAVA_NAME_MAX 64

struct board_lava_peer {
	char *device;		/* the device's hostname on the LAVA server */
	char *netns;		/* its peer's network namespace */
};

/* The form the board's boot loader takes the kernel in (build/image.h). */
enum boot_format {
	BOOT_PLAIN,		/* image + DTB as built: U-Boot bootz / booti */
	BOOT_UIMAGE,		/* legacy uImage at load_addr, DTB apart: bootm */
	BOOT_UIMAGE_APPENDED_DTB, /* uImage of zImage + DTB: boot loaders
				 * that pass ATAGs, not a DTB */
	BOOT_FIT,		/* one FIT: kernel + DTB + ramdisk: bootm */
};

struct board {
	char *path;		/* file it was loaded from */
	char *name;		/* must equal the file's basename without .yaml */
	char *description;
	char *stands_in_for;	/* the real board an emulated one is calibrated
				 * against (a boards/ name); NULL = none */
	char *arch;		/* kernel ARCH: arm | arm64 */
	char *cross_compile;	/* arm-linux-gnueabihf- */
	char *debian_arch;	/* armhf | arm64: DUT userland packages */
	struct strlist series;	/* kernel series it supports, e.g. "6.1" */

	/* kernel: */
	char *defconfig;	/* sunxi_defconfig */
	char *config_fragment;	/* absolute path */
	char *image;		/* zImage | Image */
	char *dtb;		/* relative to arch/<arch>/boot/dts/ */
	char *cmdline;		/* kernel command line (hilbench appends hb.*) */
	char *external_dtb;	/* absolute path of a .dts or .dtb from outside
				 * the tree (e.g. OpenWrt's); NULL = dtb */
	char *min_series;	/* oldest series with what the board needs;
				 * NULL = any */
	int min_series_line, min_series_col;	/* where min_series is written */

	/* boot: (absent = plain) */
	int boot_format;	/* enum boot_format */
	char *load_addr_text;	/* as written, e.g. "0x42208000" */
	char *entry_addr_text;
	uint64_t load_addr;	/* uImage/FIT kernel load address */
	uint64_t entry_addr;	/* its entry point; = load_addr unless given */

	/* dut: */
	char *dut_interface;	/* eth0 */
	char *dut_driver;	/* dwmac-sun8i: must probe for a run to count */
	char *host_addr;	/* 198.18.0.1/24, within 198.18.0.0/15 */
	char *dut_addr;		/* 198.18.0.2/24, same subnet as host_addr */

	/* deploy: */
	char *backend;		/* qemu | lava-local | lava */
	int boot_timeout_s;	/* QEMU start to agent READY */
	struct board_qemu qemu;	/* required when backend is qemu */

	struct board_lava lava;	/* optional */

	/* userland: Debian packages (for debian_arch) in the DUT initramfs */
	struct strlist packages;
	/* and in the initramfs of plans that profile with perf only
	 * (build/userland.h): perf and its libraries are three quarters of it */
	struct strlist perf_packages;
};

/* Makes name a choice of deploy.backend (deploy/dut.h registers each
 * backend); -1 when it is there already or the BOARD_BACKENDS_MAX are. */
#define BOARD_BACKENDS_MAX 8
int board_backend_register(const char *name);
int board_load(const char *path, struct board *b, char *err, size_t errlen);
/* 1 when an idle DUT's clock waits for the host's frames in virtual time
 * (deploy.qemu.peer_hold_us), so the host's pace stays out of its
 * clock. */
int board_peer_held(const struct board *b);
/* A workload's duration or warm-up in seconds as the board runs it in
 * virtual time: times deploy.qemu.duration_scale, rounded up, at least 1
 * (0 stays 0). */
int board_virtual_seconds(const struct board *b, int seconds);
/* The address of host_addr or dut_addr without its /prefix. */
void board_ip(const char *cidr, char *out, size_t outlen);
/* Is url a base URL for lava.artifact_url: http:// or https://, a host,
 * and only letters, digits and :/._~+-@ (LAVA fetches it as written: no
 * query, fragment, escapes or spaces), shorter than ARTIFACT_URL_MAX? 0, or -1
 * with the reason in err. */
#define ARTIFACT_URL_MAX 500
int board_artifact_url_ok(const char *url, char *err, size_t errlen);
/* Compares kernel series "MAJOR.MINOR" (6.1 < 6.12) into *cmp (<0, 0, >0);
 * -1 when either is not of that form. */
int series_compare(const char *a, const char *b, int *cmp);
/* 0 when the board can be built from a kernel of this series (e.g. "6.1"),
 * else -1 with "FILE:LINE:COL: ...; what to do" naming kernel.min_series. */
int board_series_check(const struct board *b, const char *series, char *err, size_t errlen);
/* "zimage", "uimage", ...: the boot.format spelling. */
const char *boot_format_name(int format);
/* The network namespace of device's traffic peer, NULL when the board
 * names none for it. */
const char *board_lava_peer(const struct board *b, const char *device);
void board_free(struct board *b);

#endif
