/*
 * counter: starting the emulator's instruction counter
 * (harness/plugin/hb-insn.c, start=FD) over the socket the emulator
 * inherited. Once the DUT's agent is ready the host sends a byte; the
 * plugin flushes the translated code, and from the guest's next block
 * every one is translated for counting; then it sends 'C' back. No run
 * starts before that (deploy/qemu.c), so a run's counts are all counted.
 *
 * Contract: counter_start() returns 0 once the counter said it counts,
 * else -1 with why it did not in why (no answer in time, the emulator
 * closed the socket, another byte, hilbench interrupted); it never
 * closes fd.
 */
#ifndef HB_COUNTER_H
#define HB_COUNTER_H

#include <stddef.h>

int counter_start(int fd, double timeout_s, char *why, size_t len);

#endif
