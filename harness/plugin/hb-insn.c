/*
 * hb-insn: a QEMU TCG plugin that counts the guest's instructions per
 * kernel function, inside the measurement windows the DUT agent marks.
 *
 * In -icount mode an instruction is a fixed slice of virtual time, so an
 * instruction count is the CPU time, exactly, and counting it adds no
 * instruction to the guest: the guest does the same with or without the
 * plugin (tests/integration/insn.sh checks it). docs/metrics.md, "The
 * emulator's instruction counts", says what each number means.
 *
 * Arguments (QEMU's -plugin FILE,key=value,...):
 *   map=PATH   the kernel's System.map: text symbols (t T w W) give each
 *              function its range [address, next text symbol)
 *   out=PATH   each window's counts, written when the window ends (to
 *              PATH.tmp, then renamed: a reader sees a whole window)
 *   root=NAME  (repeated) a function whose inclusive count is wanted:
 *              every instruction from its entry to its return, callees,
 *              interrupts and tail calls included (ftrace's graph time)
 *   own=PATH   the driver's own functions, a name a line (the text symbols
 *              of its objects, build/symbols.h): their instructions are
 *              also added up, in the window ("own") and inside each
 *              root's frames (a root's last number), so a root's count
 *              of the driver's code leaves out the core kernel it calls
 *   resumed=on the guest starts from a saved boot, not from reset: see
 *              on_late_return()
 *   start=FD   count only from a byte on the socket FD (inherited from
 *              hilbench, deploy/qemu.c, which sends it once the agent is
 *              ready): until then the plugin has no callback, and QEMU
 *              translates the boot as without it. A translation callback
 *              alone, counting nothing, cost a third of a boot
 *              (docs/measurements.md, "A boot's cost"). On the byte the
 *              translated code is flushed (qemu_plugin_reset(), which
 *              emulator patch 0009 lets this plugin's own thread call), and
 *              the byte is sent back once every block from then on is
 *              translated for counting; the guest is then in mid-flight as
 *              a resumed one is (on_late_return())
 *
 * The window: the agent executes `mov r10, r10` (start) and `mov r11, r11`
 * (end) in user space, one no-op instruction each, in every run whether or
 * not this plugin is loaded (hb-agent.c, window_mark()). The plugin finds
 * them when it translates user code and calls back only on them. No host
 * timing enters: the window is where the guest says, to the instruction.
 *
 * Counting: inline adds, TCG ops in the generated code rather than calls,
 * of a segment's instructions to its function's counter and the total, at
 * the segment's first instruction (trans_kernel() says where segments
 * end, so that a block cut short counts what ran), plus one at a
 * function's entry (its call count). Inclusive counts need to know where a
 * root returns to: the block that calls it (a direct `bl` to a root, or any
 * `blx reg`) records its return address, the root's entry block takes it
 * if that call block ran right before it, and the block at the return
 * address closes the frame (shadow stack). Only those blocks call back
 * into the plugin.
 *
 * Icount runs TCG on one thread, one vCPU at a time (and the board boots
 * one CPU): the counters need no atomics.
 */
#define _POSIX_C_SOURCE 200809L	/* strdup */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <qemu-plugin.h>

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

#define MAX_ROOTS 32
#define STACK_MAX 64
#define NAME_MAX_LEN 96

/* ARMv7 (ARM state) encodings of the two no-ops the agent executes; the
 * agent is Thumb-2 (Debian armhf), so those encodings too; and AArch64's
 * (orr x10, xzr, x10 / orr x11, xzr, x11) for an arm64 agent. */
#define MARK_START_ARM 0xe1a0a00au
#define MARK_END_ARM 0xe1a0b00bu
#define MARK_START_THUMB 0x46d2u
#define MARK_END_THUMB 0x46dbu
#define MARK_START_A64 0xaa0a03eau
#define MARK_END_A64 0xaa0b03ebu

struct func {
	uint64_t addr;
	char *name;
	int root, own;
};

/* The counters a window subtracts: index i is func i; the last slots are
 * user space and kernel code outside the map's text (the vector page). */
struct counts {
	uint64_t total, own;
	uint64_t *self, *calls, *incl, *unmatched, *incl_own;
};

struct frame {
	size_t fn;
	uint64_t ret, start, own_start;
};

struct call_site {
	uint64_t ret;
	unsigned n;	/* instructions of the calling block */
};

static struct func *funcs;
static size_t n_funcs;		/* + 2 slots: user, other kernel */
static uint64_t kernel_base, text_end;
static char *out_path;
static struct counts now, at_start;
static int window_open;
static unsigned window_seq;
/* mid_flight: the guest ran before this plugin counted (resumed=on: loaded
 * from a saved boot, deploy/qemu.c; start=FD: counting started late), so
 * frames it entered before may return to blocks translated before their
 * call blocks ran here, which know no return site yet. Until the first
 * window such blocks look their address up when they run (on_late_return),
 * as a boot's would have been translated knowing it. */
static int mid_flight, window_seen;
/* start=FD: the socket hilbench starts the counting with (-1: counting
 * from the start) */
static int start_fd = -1;
static qemu_plugin_id_t self_id;
static uint64_t last_call_ret, last_call_end = UINT64_MAX;
static struct frame stack[STACK_MAX];
static size_t depth;
static uint64_t stack_overflows;
/* Return addresses of the call blocks registered: a hash set. */
static uint64_t *ret_sites;
static size_t n_ret_sites, cap_ret_sites;

#define SLOT_USER (n_funcs)
#define SLOT_OTHER (n_funcs + 1)

static const char *slot_name(size_t i)
{
	return i == SLOT_USER ? "[user]" : i == SLOT_OTHER ? "[kernel-other]" : funcs[i].name;
}

static int cmp_func(const void *a, const void *b)
{
	const struct func *x = a, *y = b;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int load_map(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "hb-insn: cannot open %s\n", path);
		return -1;
	}
	char line[512], name[NAME_MAX_LEN];
	size_t cap = 0;
	uint64_t etext = 0;
	while (fgets(line, sizeof(line), f)) {
		uint64_t addr;
		char type;
		if (sscanf(line, "%" SCNx64 " %c %95s", &addr, &type, name) != 3)
			continue;
		if (!strcmp(name, "_etext"))
			etext = addr;
		if (type != 't' && type != 'T' && type != 'w' && type != 'W')
			continue;
		if (n_funcs == cap) {
			cap = cap ? 2 * cap : 4096;
			funcs = realloc(funcs, cap * sizeof(*funcs));
			if (!funcs)
				abort();
		}
		funcs[n_funcs].addr = addr;
		funcs[n_funcs].name = strdup(name);
		funcs[n_funcs].root = 0;
		funcs[n_funcs].own = 0;
		n_funcs++;
	}
	fclose(f);
	if (!n_funcs) {
		fprintf(stderr, "hb-insn: %s has no text symbols\n", path);
		return -1;
	}
	qsort(funcs, n_funcs, sizeof(*funcs), cmp_func);
	/* aliases at one address: the first name keeps the range */
	size_t w = 1;
	for (size_t r = 1; r < n_funcs; r++) {
		if (funcs[r].addr == funcs[w - 1].addr) {
			free(funcs[r].name);
			continue;
		}
		funcs[w++] = funcs[r];
	}
	n_funcs = w;
	kernel_base = funcs[0].addr & ~(uint64_t)0x0fffffff;
	text_end = etext > funcs[n_funcs - 1].addr ? etext : funcs[n_funcs - 1].addr + 4096;
	return 0;
}

/* The slot of the code at vaddr. */
static size_t slot_of(uint64_t vaddr)
{
	if (vaddr < kernel_base)
		return SLOT_USER;
	if (vaddr < funcs[0].addr || vaddr >= text_end)
		return SLOT_OTHER;
	size_t lo = 0, hi = n_funcs;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (funcs[mid].addr <= vaddr)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* funcs' indices sorted by name, then address: one name lookup for the
 * roots and the driver's functions */
static size_t *by_name;

static int cmp_index_by_name(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	int c = strcmp(funcs[x].name, funcs[y].name);
	return c ? c : (x > y) - (x < y);
}

static void index_names(void)
{
	by_name = malloc(n_funcs * sizeof(*by_name));
	if (!by_name)
		abort();
	for (size_t i = 0; i < n_funcs; i++)
		by_name[i] = i;
	qsort(by_name, n_funcs, sizeof(*by_name), cmp_index_by_name);
}

/* The first position in by_name of name's functions (their addresses
 * ascending from it), or n_funcs when the map has none. */
static size_t first_named(const char *name)
{
	size_t lo = 0, hi = n_funcs;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (strcmp(funcs[by_name[mid]].name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n_funcs && !strcmp(funcs[by_name[lo]].name, name) ? lo : n_funcs;
}

/* A name's function at the lowest address, or -1. */
static int find_func(const char *name)
{
	size_t k = first_named(name);
	return k < n_funcs ? (int)by_name[k] : -1;
}

/* own of a function whose name others have too, until settled */
#define OWN_MAYBE 2

/* Marks the functions named in path, a name a line. A name the map does
 * not have (a static function inlined everywhere, or one in a module) has
 * no code of its own to count. A name several functions have (static
 * functions of two files, ring_mode.c's and chain_mode.c's refill_desc3;
 * an inline's out-of-line copies in other objects, div_u64_rem) is the
 * driver's where the linker put it among the driver's functions: the
 * copies reached from a function of a name only the driver has, through
 * neighbours in address order, are its own, the others not. */
static int load_own(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "hb-insn: cannot open %s\n", path);
		return -1;
	}
	char line[NAME_MAX_LEN + 2];
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		size_t k = first_named(line), end = k;
		while (end < n_funcs && !strcmp(funcs[by_name[end]].name, line))
			end++;
		for (size_t j = k; j < end; j++)
			funcs[by_name[j]].own = end - k == 1 ? 1 : OWN_MAYBE;
	}
	fclose(f);
	for (int changed = 1; changed;) {
		changed = 0;
		for (size_t i = 0; i < n_funcs; i++)
			if (funcs[i].own == OWN_MAYBE && ((i > 0 && funcs[i - 1].own == 1) ||
							   (i + 1 < n_funcs && funcs[i + 1].own == 1))) {
				funcs[i].own = 1;
				changed = 1;
			}
	}
	for (size_t i = 0; i < n_funcs; i++)
		if (funcs[i].own == OWN_MAYBE)
			funcs[i].own = 0;
	return 0;
}

static void counts_alloc(struct counts *c)
{
	size_t n = n_funcs + 2;
	c->self = calloc(n, sizeof(uint64_t));
	c->calls = calloc(n, sizeof(uint64_t));
	c->incl = calloc(n, sizeof(uint64_t));
	c->unmatched = calloc(n, sizeof(uint64_t));
	c->incl_own = calloc(n, sizeof(uint64_t));
	if (!c->self || !c->calls || !c->incl || !c->unmatched || !c->incl_own)
		abort();
}

static void counts_copy(struct counts *to, const struct counts *from)
{
	size_t n = (n_funcs + 2) * sizeof(uint64_t);
	to->total = from->total;
	to->own = from->own;
	memcpy(to->self, from->self, n);
	memcpy(to->calls, from->calls, n);
	memcpy(to->incl, from->incl, n);
	memcpy(to->unmatched, from->unmatched, n);
	memcpy(to->incl_own, from->incl_own, n);
}

static void write_window(void)
{
	size_t len = strlen(out_path) + 5;
	char *tmp = malloc(len);
	if (!tmp)
		abort();
	snprintf(tmp, len, "%s.tmp", out_path);
	FILE *f = fopen(tmp, "w");
	if (!f) {
		fprintf(stderr, "hb-insn: cannot write %s\n", tmp);
		free(tmp);
		return;
	}
	uint64_t kernel = 0;
	for (size_t i = 0; i < n_funcs + 2; i++)
		if (i != SLOT_USER)
			kernel += now.self[i] - at_start.self[i];
	fprintf(f, "hb-insn 2\nwindow %u\ninsns %" PRIu64 "\nkernel %" PRIu64 "\nuser %" PRIu64
		"\nown %" PRIu64 "\nstack_overflows %" PRIu64 "\n", window_seq,
		now.total - at_start.total, kernel, now.self[SLOT_USER] - at_start.self[SLOT_USER],
		now.own - at_start.own, stack_overflows);
	/* fn NAME SELF CALLS [INCLUSIVE UNMATCHED INCLUSIVE_OWN]: the last
	 * three for roots only */
	for (size_t i = 0; i < n_funcs + 2; i++) {
		uint64_t self = now.self[i] - at_start.self[i];
		uint64_t calls = now.calls[i] - at_start.calls[i];
		int root = i < n_funcs && funcs[i].root;
		if (!self && !calls && !root)
			continue;
		fprintf(f, "fn %s %" PRIu64 " %" PRIu64, slot_name(i), self, calls);
		if (root)
			fprintf(f, " %" PRIu64 " %" PRIu64 " %" PRIu64, now.incl[i] - at_start.incl[i],
				now.unmatched[i] - at_start.unmatched[i],
				now.incl_own[i] - at_start.incl_own[i]);
		fputc('\n', f);
	}
	fputs("end\n", f);
	if (fclose(f) != 0 || rename(tmp, out_path) != 0)
		fprintf(stderr, "hb-insn: cannot write %s\n", out_path);
	free(tmp);
}

static void on_mark_start(unsigned int vcpu, void *udata)
{
	(void)vcpu;
	(void)udata;
	counts_copy(&at_start, &now);
	window_open = 1;
	window_seen = 1;
}

static void on_mark_end(unsigned int vcpu, void *udata)
{
	(void)vcpu;
	(void)udata;
	if (!window_open)
		return;
	window_open = 0;
	window_seq++;
	write_window();
}

/* A block ending in a call: remember where the callee returns to. */
static void on_call(unsigned int vcpu, void *udata)
{
	(void)vcpu;
	const struct call_site *cs = udata;
	last_call_ret = cs->ret;
	/* udata callbacks run before the block's inline adds */
	last_call_end = now.total + cs->n;
}

static void on_root_entry(unsigned int vcpu, void *udata)
{
	(void)vcpu;
	size_t fn = (size_t)(uintptr_t)udata;
	if (last_call_end != now.total) {
		/* not entered by the call block just before (a tail call, or an
		 * interrupt between the call and the entry): no return to wait for */
		now.unmatched[fn]++;
		return;
	}
	last_call_end = UINT64_MAX;
	if (depth == STACK_MAX) {
		stack_overflows++;
		now.unmatched[fn]++;
		return;
	}
	stack[depth++] = (struct frame){ .fn = fn, .ret = last_call_ret, .start = now.total,
					 .own_start = now.own };
}

static void on_return_site(unsigned int vcpu, void *udata)
{
	(void)vcpu;
	uint64_t ret = (uintptr_t)udata;
	size_t k = depth;
	while (k > 0 && stack[k - 1].ret != ret)
		k--;
	if (!k)
		return;
	/* frames above k never saw their return: an interrupted path ended
	 * elsewhere; count them as unmatched */
	for (size_t i = k; i < depth; i++)
		now.unmatched[stack[i].fn]++;
	struct frame *f = &stack[k - 1];
	int outermost = 1;
	for (size_t i = 0; i + 1 < k; i++)
		if (stack[i].fn == f->fn)
			outermost = 0;
	if (outermost) {
		now.incl[f->fn] += now.total - f->start;
		now.incl_own[f->fn] += now.own - f->own_start;
	}
	depth = k - 1;
}

static int ret_site_known(uint64_t vaddr);

/* A block translated, in a mid-flight guest before the first window, when its
 * address was no return site: it is one if a call block since said so. */
static void on_late_return(unsigned int vcpu, void *udata)
{
	if (ret_site_known((uintptr_t)udata))
		on_return_site(vcpu, udata);
}

/* Open addressing, never shrinks; 0 is the empty slot (no code at 0). */
static void ret_site_add(uint64_t ret)
{
	if (2 * (n_ret_sites + 1) > cap_ret_sites) {
		size_t old = cap_ret_sites;
		uint64_t *was = ret_sites;
		cap_ret_sites = old ? 2 * old : 4096;
		ret_sites = calloc(cap_ret_sites, sizeof(*ret_sites));
		if (!ret_sites)
			abort();
		n_ret_sites = 0;
		for (size_t i = 0; i < old; i++)
			if (was[i])
				ret_site_add(was[i]);
		free(was);
	}
	size_t i = (size_t)(ret * 0x9e3779b97f4a7c15ull >> 20) & (cap_ret_sites - 1);
	while (ret_sites[i] && ret_sites[i] != ret)
		i = (i + 1) & (cap_ret_sites - 1);
	if (!ret_sites[i]) {
		ret_sites[i] = ret;
		n_ret_sites++;
	}
}

static int ret_site_known(uint64_t vaddr)
{
	if (!cap_ret_sites)
		return 0;
	size_t i = (size_t)(vaddr * 0x9e3779b97f4a7c15ull >> 20) & (cap_ret_sites - 1);
	while (ret_sites[i]) {
		if (ret_sites[i] == vaddr)
			return 1;
		i = (i + 1) & (cap_ret_sites - 1);
	}
	return 0;
}

static uint32_t insn_word(const struct qemu_plugin_insn *insn)
{
	const uint8_t *b = qemu_plugin_insn_data(insn);
	size_t n = qemu_plugin_insn_size(insn);
	uint32_t v = 0;
	for (size_t i = 0; i < n && i < 4; i++)
		v |= (uint32_t)b[i] << (8 * i);
	return v;
}

/* Could a block stop at this (ARM state) instruction? Loads and stores
 * (an MMIO access in the middle of a block: icount re-executes it in a
 * block of its own, which counts nothing; a fault), coprocessor and
 * unconditional-space instructions (which may trap). Says yes when unsure:
 * a wrong yes costs an inline add, a wrong no a miscount. */
static int arm_may_stop(uint32_t w)
{
	uint32_t cond = w >> 28, op = (w >> 25) & 7;
	if (cond == 0xf)
		return 1;
	return op == 2 || op == 3 || op == 4 || op == 6 || op == 7 ||
	       (op == 0 && (w & 0x90) == 0x90);
}

/* An inline add of n to *counter at instruction i of the block (at the
 * block's start for i 0: before its instructions, after its callbacks). */
static void add_at(struct qemu_plugin_tb *tb, size_t i, uint64_t *counter, uint64_t n)
{
	if (i == 0)
		qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64, counter, n);
	else
		qemu_plugin_register_vcpu_insn_exec_inline(qemu_plugin_tb_get_insn(tb, i),
							   QEMU_PLUGIN_INLINE_ADD_U64, counter, n);
}

/*
 * A block's instructions are counted in segments, each added when its
 * first instruction starts: a segment ends where the block may stop (at
 * such an instruction, which is counted with the segment it ends) and
 * where the function changes. A block cut short then counts exactly what
 * ran: the instruction it stopped at once (its re-execution in a block of
 * its own under icount counts nothing), nothing after it. A faulting load
 * that runs again after the fault is counted twice.
 */
static void trans_user(struct qemu_plugin_tb *tb, size_t n)
{
	/* Thumb and ARM user code alike: every instruction a segment */
	for (size_t i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		add_at(tb, i, &now.self[SLOT_USER], 1);
		add_at(tb, i, &now.total, 1);
		size_t size = qemu_plugin_insn_size(insn);
		uint32_t w = insn_word(insn);
		int start = size == 2 ? w == MARK_START_THUMB : w == MARK_START_ARM || w == MARK_START_A64;
		int end = size == 2 ? w == MARK_END_THUMB : w == MARK_END_ARM || w == MARK_END_A64;
		if (start || end)
			qemu_plugin_register_vcpu_insn_exec_cb(insn, start ? on_mark_start : on_mark_end,
							       QEMU_PLUGIN_CB_NO_REGS, NULL);
	}
}

/* The call a kernel block ends with (ARM state): 1 with *target (0 for an
 * indirect call), else 0. */
static int arm_call(uint32_t w, uint64_t pc, uint64_t *target)
{
	if ((w & 0xf0000000u) != 0xf0000000u && (w & 0x0f000000u) == 0x0b000000u) {
		int32_t off = (int32_t)(w << 8) >> 6;	/* imm24 << 2, sign-extended */
		*target = pc + 8 + (int64_t)off;
		return 1;
	}
	if ((w & 0xf0000000u) != 0xf0000000u && (w & 0x0ffffff0u) == 0x012fff30u) {
		*target = 0;
		return 1;
	}
	return 0;
}

static void trans_kernel(struct qemu_plugin_tb *tb, size_t n, uint64_t pc0)
{
	if (ret_site_known(pc0))
		qemu_plugin_register_vcpu_tb_exec_cb(tb, on_return_site, QEMU_PLUGIN_CB_NO_REGS,
						     (void *)(uintptr_t)pc0);
	else if (mid_flight && !window_seen)
		qemu_plugin_register_vcpu_tb_exec_cb(tb, on_late_return, QEMU_PLUGIN_CB_NO_REGS,
						     (void *)(uintptr_t)pc0);
	size_t i = 0;
	while (i < n) {
		struct qemu_plugin_insn *first = qemu_plugin_tb_get_insn(tb, i);
		uint64_t va = qemu_plugin_insn_vaddr(first);
		size_t fn = slot_of(va), j = i;
		/* j: the segment's last instruction */
		while (j + 1 < n && !arm_may_stop(insn_word(qemu_plugin_tb_get_insn(tb, j))) &&
		       slot_of(qemu_plugin_insn_vaddr(qemu_plugin_tb_get_insn(tb, j + 1))) == fn)
			j++;
		add_at(tb, i, &now.self[fn], j - i + 1);
		add_at(tb, i, &now.total, j - i + 1);
		if (fn < n_funcs && funcs[fn].own)
			add_at(tb, i, &now.own, j - i + 1);
		if (fn < n_funcs && va == funcs[fn].addr) {
			add_at(tb, i, &now.calls[fn], 1);
			/* a root fallen into from the function before is no call
			 * to return from: only a block's entry is one */
			if (i == 0 && funcs[fn].root)
				qemu_plugin_register_vcpu_tb_exec_cb(tb, on_root_entry,
								     QEMU_PLUGIN_CB_NO_REGS,
								     (void *)(uintptr_t)fn);
		}
		i = j + 1;
	}
	struct qemu_plugin_insn *last = qemu_plugin_tb_get_insn(tb, n - 1);
	uint64_t pc = qemu_plugin_insn_vaddr(last), target;
	if (qemu_plugin_insn_size(last) != 4 || !arm_call(insn_word(last), pc, &target))
		return;
	if (target) {
		size_t t = slot_of(target);
		if (t >= n_funcs || !funcs[t].root || funcs[t].addr != target)
			return;
	}
	struct call_site *cs = malloc(sizeof(*cs));
	if (!cs)
		abort();
	cs->ret = pc + 4;
	cs->n = (unsigned)n;
	/* kept for the blocks' lifetime, which is QEMU's */
	qemu_plugin_register_vcpu_tb_exec_cb(tb, on_call, QEMU_PLUGIN_CB_NO_REGS, cs);
	ret_site_add(pc + 4);
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	(void)id;
	size_t n = qemu_plugin_tb_n_insns(tb);
	uint64_t pc0 = qemu_plugin_tb_vaddr(tb);
	if (!n)
		return;
	if (pc0 < kernel_base)
		trans_user(tb, n);
	else
		trans_kernel(tb, n, pc0);
}

/* Run by QEMU on the vCPU's thread with every vCPU stopped, after the
 * translated code was flushed: from here every block is translated for
 * counting. hilbench starts no run before the byte comes back. */
static void on_counting(qemu_plugin_id_t id)
{
	mid_flight = 1;
	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
	char c = 'C';
	if (send(start_fd, &c, 1, MSG_NOSIGNAL) != 1)
		fprintf(stderr, "hb-insn: cannot say counting started: %s\n", strerror(errno));
}

/* The plugin's own thread: waits for hilbench's byte. End of file (hilbench
 * went away before the agent was ready) leaves the guest uncounted. */
static void *wait_for_start(void *unused)
{
	(void)unused;
	char c;
	ssize_t n;
	do
		n = read(start_fd, &c, 1);
	while (n < 0 && errno == EINTR);
	if (n == 1)
		qemu_plugin_reset(self_id, on_counting);
	return NULL;
}

static int parse_fd(const char *s, int *fd)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < 0 || v > 65535)
		return -1;
	*fd = (int)v;
	return 0;
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
					   int argc, char **argv)
{
	(void)info;
	const char *map = NULL, *own = NULL;
	const char *roots[MAX_ROOTS];
	size_t n_roots = 0;
	for (int i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "map=", 4)) {
			map = argv[i] + 4;
		} else if (!strncmp(argv[i], "out=", 4)) {
			out_path = strdup(argv[i] + 4);
		} else if (!strncmp(argv[i], "root=", 5) && n_roots < MAX_ROOTS) {
			roots[n_roots++] = argv[i] + 5;
		} else if (!strncmp(argv[i], "own=", 4)) {
			own = argv[i] + 4;
		} else if (!strcmp(argv[i], "resumed=on")) {
			mid_flight = 1;
		} else if (!strncmp(argv[i], "start=", 6)) {
			if (parse_fd(argv[i] + 6, &start_fd) < 0) {
				fprintf(stderr, "hb-insn: %s: want start=FD, a descriptor number\n",
					argv[i]);
				return -1;
			}
		} else {
			fprintf(stderr, "hb-insn: unknown argument %s (map=, out=, root=, own=, "
				"resumed=on, start=FD)\n", argv[i]);
			return -1;
		}
	}
	if (!map || !out_path) {
		fprintf(stderr, "hb-insn: needs map=SYSTEM.MAP and out=FILE\n");
		return -1;
	}
	if (load_map(map) < 0)
		return -1;
	index_names();
	for (size_t i = 0; i < n_roots; i++) {
		int fn = find_func(roots[i]);
		if (fn < 0) {
			/* inlined or absent in this kernel: reported as absent */
			fprintf(stderr, "hb-insn: %s is not in %s\n", roots[i], map);
			continue;
		}
		funcs[fn].root = 1;
	}
	if (own && load_own(own) < 0)
		return -1;
	counts_alloc(&now);
	counts_alloc(&at_start);
	if (start_fd < 0) {
		qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
		return 0;
	}
	self_id = id;
	pthread_t t;
	int rc = pthread_create(&t, NULL, wait_for_start, NULL);
	if (rc) {
		fprintf(stderr, "hb-insn: cannot start its thread: %s\n", strerror(rc));
		return -1;
	}
	pthread_detach(t);
	return 0;
}
