/*
 * builtin: one hilbench subcommand per cmd-<name>.c file, like git and perf.
 * Each returns an exit code from enum hb_exit.
 */
#ifndef HB_BUILTIN_H
#define HB_BUILTIN_H

int cmd_list(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_build(int argc, char **argv);
int cmd_boot(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_show(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_gate(int argc, char **argv);
int cmd_lava(int argc, char **argv);
int cmd_history(int argc, char **argv);
int cmd_nightly(int argc, char **argv);
int cmd_bisect(int argc, char **argv);
int cmd_emulator(int argc, char **argv);

#endif
