// SPDX-License-Identifier: GPL-2.0
/*
 * nvme-peer: the administrator's command for nvme-peer's named
 * reservations in configfs (/sys/kernel/config/nvme-peer/CTRL/NAME/), its
 * read-only window intents (CTRL/windows/NAME/), the controllers' window
 * providers (CTRL/pmr_nsid) and the reservations sysfs shows
 * (/sys/class/nvme/CTRL/peer/qN/): list, show, create, delete, save,
 * restore and watch them.
 *
 * Commands, the save file's format, the JSON schema and the exit codes:
 * Documentation/nvme/peer-admin.rst.  libc only.
 *
 * This header is the tool's own, shared by its files: nvme-peer.c (main,
 * list, show, create, delete), common.c (errors, files, names and
 * values), state.c (reading configfs and sysfs, the output), save.c
 * (save and restore) and watch.c.
 */
#ifndef NP_TOOL_H
#define NP_TOOL_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libgen.h>
#include <poll.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>
#include <linux/netlink.h>

/* the keys, their defaults and value rules: the kernel's, words.c */
#include "words.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* nvme-peer's version: dkms.conf's PACKAGE_VERSION (tests/native.sh checks) */
#define NP_VERSION	"0.1"
/*
 * The save file format this nvme-peer writes and reads: save's first line
 * is NP_FORMAT_TAG followed by it; a file without such a line is read as
 * format 1 (peer-admin.rst, "Save file format").
 */
#define NP_FORMAT	1
#define NP_FORMAT_TAG	"# nvme-peer save format "

/* Exit codes (Documentation/nvme/peer-admin.rst, "Exit codes") */
enum {
	NP_EXIT_OK = 0,
	NP_EXIT_FAIL = 1,	/* the kernel or the system refused a step */
	NP_EXIT_USAGE = 2,	/* bad command line, key or value */
	NP_EXIT_FILE = 3,	/* restore: the file is invalid, nothing done */
	NP_EXIT_PERM = 4,	/* permission denied (not root) */
	NP_EXIT_NOENT = 5,	/* no such reservation, or nvme-peer not loaded */
	NP_EXIT_TIMEOUT = 6,	/* watch: --timeout before --count events */
};

#define NP_LINE_MAX	8191	/* characters of a save file line */
/* a reservation's name and a controller's: words.h decides them */
#define NP_NAME_MAX	(NP_NAME_LEN - 1)
#define NP_CTRL_MAX	(NP_CTRL_LEN - 1)
/* the characters of a value configfs takes */
#define NP_VALUE_MAX	(NP_VALUE_LEN - 1)
/*
 * An intent's path below its controller directory: NAME (a queue's), or
 * windows/NAME (a window's, NP_WIN_DIR)
 */
#define NP_WIN_PREFIX	NP_WIN_DIR "/"
#define NP_INTENT_MAX	(sizeof(NP_WIN_PREFIX) - 1 + NP_NAME_MAX)

/* One intent to create: from the command line or a save file line */
struct np_spec {
	char ctrl[NP_CTRL_MAX + 1];
	char name[NP_INTENT_MAX + 1];	/* "t1", or "windows/w1" */
	int win;			/* a window's intent */
	char *val[NP_NKEYS];	/* NULL: not given (the default) */
	int line;
};

/* One reservation or window intent as configfs and sysfs show it */
struct np_entry {
	char ctrl[NP_CTRL_MAX + 1];
	/* "qN" for a sysfs-only one, "windows/NAME" for a window */
	char name[NP_INTENT_MAX + 1];
	int win;
	int sysfs_only;
	char state[32];
	char reason[32];
	char owner[32];
	long error;
	unsigned long live_qid;
	unsigned long generation;
	int attached;		/* -1: no queue */
	/* configfs attributes, NULL if unreadable or not the intent's */
	char *val[NP_NKEYS];
};

struct np_list {
	struct np_entry *v;
	int n;
};

/* What create made, to undo it */
struct np_made {
	char ctrl[NP_CTRL_MAX + 1];
	char name[NP_INTENT_MAX + 1];
	int ctrl_made;
};

extern int np_json;

/* common.c */
void *np_alloc(size_t len);
const char *np_cfg_root(void);
void np_copy(char *dst, size_t size, const char *src);
void np_err(const char *fmt, ...);
int np_fail(int err, const char *fmt, ...);
void np_free_strv(char **v, int n);
int np_is_dir(const char *dir, const struct dirent *d);
int np_natcmp_p(const void *a, const void *b);
int np_parse_name(const char *s, char *ctrl, char *name, int *win,
		  char *why, size_t len);
int np_read(const char *path, char *buf, size_t len);
int np_spec_check(const struct np_spec *spec, int check_file,
		  char *why, size_t len);
void np_spec_free(struct np_spec *spec);
int np_spec_word(struct np_spec *spec, const char *word, char *why,
		 size_t len);
char *np_strdup(const char *s);
int np_subdirs(const char *dir, const char *prefix, char ***out);
const char *np_sys_root(void);
int np_valid_value(int k, const char *val, char *why, size_t len);
void np_win_keys(char *buf, size_t len);
int np_write(const char *path, const char *val);

/* state.c */
void np_entry_free(struct np_entry *e);
void np_json_entry(const struct np_entry *e, int queue);
void np_json_kv(const char *key, const char *val, int comma);
void np_list_free(struct np_list *l);
void np_path(char *buf, size_t len, const char *root, const char *a,
	     const char *b, const char *c);
void np_print_entry(const struct np_entry *e);
void np_print_list(const struct np_list *l);
int np_rmdir_ctrl(const char *ctrl);
int np_read_cfg_entry(const char *ctrl, const char *name,
		      struct np_entry *e);
void np_scan(struct np_list *l);
int np_intents(const char *ctrl, int win, char ***out);
void np_scan_cfg(struct np_list *l);
int np_win_group(const char *ctrl);

/* save.c */
int np_cmd_restore(int argc, char **argv);
int np_cmd_save(int argc, char **argv);

/* watch.c */
int np_cmd_watch(int argc, char **argv);

/* nvme-peer.c */
int np_create(const struct np_spec *spec, const char *where,
	      struct np_made *m);
int np_need_root(void);
void np_undo(const struct np_made *m);

#endif /* NP_TOOL_H */
