// SPDX-License-Identifier: GPL-2.0
/*
 * nvme-peer, the administrator's command: reading configfs and sysfs, and printing what was read.
 */
#include "nvme-peer.h"

/* ---- reading the state ------------------------------------------------- */

void np_path(char *buf, size_t len, const char *root, const char *a,
	     const char *b, const char *c)
{
	snprintf(buf, len, "%s/%s%s%s%s%s", root, a, b ? "/" : "", b ? b : "",
		 c ? "/" : "", c ? c : "");
}

static int np_read_at(const char *dir, const char *file, char *buf,
		      size_t len)
{
	char path[PATH_MAX];

	if (snprintf(path, sizeof(path), "%s/%s", dir, file) >=
	    (int)sizeof(path))
		return -ENAMETOOLONG;
	return np_read(path, buf, len);
}

/* The qN/ of @ctrl as an entry of its own (no configfs name); -ENOENT */
static int np_read_queue_entry(const char *ctrl, const char *qdir,
			       struct np_entry *e)
{
	char path[PATH_MAX], buf[64];

	np_path(path, sizeof(path), np_sys_root(), ctrl, "peer", qdir);
	snprintf(e->ctrl, sizeof(e->ctrl), "%s", ctrl);
	snprintf(e->name, sizeof(e->name), "%s", qdir);
	e->sysfs_only = 1;
	/* no state: it is going */
	if (np_read_at(path, "state", e->state, sizeof(e->state)))
		return -ENOENT;
	if (np_read_at(path, "reason", e->reason, sizeof(e->reason)))
		np_copy(e->reason, sizeof(e->reason), "?");
	if (np_read_at(path, "owner", e->owner, sizeof(e->owner)))
		np_copy(e->owner, sizeof(e->owner), "?");
	e->live_qid = strtoul(qdir + 1, NULL, 10);
	if (!np_read_at(path, "generation", buf, sizeof(buf)))
		e->generation = strtoul(buf, NULL, 10);
	e->attached = np_read_at(path, "attached", buf, sizeof(buf)) ? -1 :
		      atoi(buf);
	return 0;
}

/* Owner and attached of the live queue of a configfs entry */
static void np_read_live(struct np_entry *e)
{
	char path[PATH_MAX], q[32], buf[64];

	e->attached = -1;
	np_copy(e->owner, sizeof(e->owner), "configfs");
	if (!e->live_qid)
		return;
	snprintf(q, sizeof(q), "q%lu", e->live_qid);
	np_path(path, sizeof(path), np_sys_root(), e->ctrl, "peer", q);
	if (!np_read_at(path, "attached", buf, sizeof(buf)))
		e->attached = atoi(buf);
}

/* CTRL/NAME/ of configfs into @e; 0 or -errno (-ENOENT: no such name) */
int np_read_cfg_entry(const char *ctrl, const char *name,
		      struct np_entry *e)
{
	char dir[PATH_MAX], buf[NP_VALUE_MAX + 2], now[sizeof(e->state)];
	struct stat st;
	int k;

	memset(e, 0, sizeof(*e));
	np_path(dir, sizeof(dir), np_cfg_root(), ctrl, name, NULL);
	if (stat(dir, &st))
		return -errno;
	if (!S_ISDIR(st.st_mode))
		return -ENOENT;
	snprintf(e->ctrl, sizeof(e->ctrl), "%s", ctrl);
	snprintf(e->name, sizeof(e->name), "%s", name);
	/* no state: an rmdir is taking it, or it is no intent */
	if (np_read_at(dir, "state", e->state, sizeof(e->state)))
		return -ENOENT;
	for (k = 0; k < NP_NKEYS; k++)
		if (!np_read_at(dir, np_cfs_keys[k].name, buf, sizeof(buf)))
			e->val[k] = np_strdup(buf);
	/*
	 * Each attribute is read on its own: one snapshot is the state, the
	 * others and the state again the same, else read again (a few times).
	 */
	for (k = 0; k < 5; k++) {
		if (np_read_at(dir, "reason", e->reason, sizeof(e->reason)))
			np_copy(e->reason, sizeof(e->reason), "?");
		if (!np_read_at(dir, "error", buf, sizeof(buf)))
			e->error = strtol(buf, NULL, 10);
		if (!np_read_at(dir, "live_qid", buf, sizeof(buf)))
			e->live_qid = strtoul(buf, NULL, 10);
		if (!np_read_at(dir, "generation", buf, sizeof(buf)))
			e->generation = strtoul(buf, NULL, 10);
		if (np_read_at(dir, "state", now, sizeof(now)))
			return -ENOENT;
		if (!strcmp(now, e->state))
			break;
		memcpy(e->state, now, sizeof(now));
	}
	np_read_live(e);
	return 0;
}

void np_entry_free(struct np_entry *e)
{
	int k;

	for (k = 0; k < NP_NKEYS; k++)
		free(e->val[k]);
}

static struct np_entry *np_list_add(struct np_list *l)
{
	if (!(l->n % 16)) {
		l->v = realloc(l->v, (l->n + 16) * sizeof(*l->v));
		if (!l->v) {
			np_err("out of memory");
			exit(NP_EXIT_FAIL);
		}
	}
	memset(&l->v[l->n], 0, sizeof(l->v[0]));
	return &l->v[l->n++];
}

void np_list_free(struct np_list *l)
{
	int i;

	for (i = 0; i < l->n; i++)
		np_entry_free(&l->v[i]);
	free(l->v);
	l->v = NULL;
	l->n = 0;
}

/* Is qid @qid of @ctrl the live queue of a configfs entry of @l? */
static int np_qid_named(const struct np_list *l, const char *ctrl,
			unsigned long qid)
{
	int i;

	for (i = 0; i < l->n; i++)
		if (!l->v[i].sysfs_only && l->v[i].live_qid == qid &&
		    !strcmp(l->v[i].ctrl, ctrl))
			return 1;
	return 0;
}

void np_scan_cfg(struct np_list *l)
{
	char **ctrls, **names, dir[PATH_MAX];
	int nc, nn, i, j;

	nc = np_subdirs(np_cfg_root(), "", &ctrls);
	if (nc < 0)
		return;
	qsort(ctrls, nc, sizeof(*ctrls), np_natcmp_p);
	for (i = 0; i < nc; i++) {
		np_path(dir, sizeof(dir), np_cfg_root(), ctrls[i], NULL, NULL);
		nn = np_subdirs(dir, "", &names);
		if (nn < 0)
			continue;
		qsort(names, nn, sizeof(*names), np_natcmp_p);
		for (j = 0; j < nn; j++)
			if (np_read_cfg_entry(ctrls[i], names[j],
					      np_list_add(l)))
				l->n--;
		np_free_strv(names, nn);
	}
	np_free_strv(ctrls, nc);
}

/* The qN/ that no configfs name stands for: made by processes or drivers */
static void np_scan_sys(struct np_list *l)
{
	char **ctrls, **qs, dir[PATH_MAX], name[64];
	int nc, nq, i, j;

	nc = np_subdirs(np_sys_root(), "nvme", &ctrls);
	if (nc < 0)
		return;
	qsort(ctrls, nc, sizeof(*ctrls), np_natcmp_p);
	for (i = 0; i < nc; i++) {
		if (!np_ctrl_name_ok(ctrls[i]))
			continue;
		np_path(dir, sizeof(dir), np_sys_root(), ctrls[i], "peer",
			NULL);
		nq = np_subdirs(dir, "q", &qs);
		if (nq < 0)
			continue;
		qsort(qs, nq, sizeof(*qs), np_natcmp_p);
		for (j = 0; j < nq; j++) {
			char qdir[PATH_MAX + 64];

			if (np_parse_num(qs[j] + 1, UINT16_MAX, NULL))
				continue;
			snprintf(qdir, sizeof(qdir), "%s/%s", dir, qs[j]);
			if (!np_read_at(qdir, "name", name, sizeof(name)) &&
			    name[0])
				continue;
			if (np_qid_named(l, ctrls[i],
					 strtoul(qs[j] + 1, NULL, 10)))
				continue;
			if (np_read_queue_entry(ctrls[i], qs[j],
						np_list_add(l)))
				l->n--;
		}
		np_free_strv(qs, nq);
	}
	np_free_strv(ctrls, nc);
}

void np_scan(struct np_list *l)
{
	np_scan_cfg(l);
	np_scan_sys(l);
}

/* ---- output ------------------------------------------------------------ */

static void np_json_str(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		unsigned char c = *s;

		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c == '\n')
			fputs("\\n", stdout);
		else if (c == '\t')
			fputs("\\t", stdout);
		else if (c < 0x20)
			printf("\\u%04x", c);
		else
			putchar(c);
	}
	putchar('"');
}

void np_json_kv(const char *key, const char *val, int comma)
{
	if (comma)
		putchar(',');
	np_json_str(key);
	putchar(':');
	if (val)
		np_json_str(val);
	else
		fputs("null", stdout);
}

static void np_json_queue(const struct np_entry *e);

/*
 * One reservation object (peer-admin.rst, "JSON"); @queue: with the
 * attributes of its qN/ (show).
 */
void np_json_entry(const struct np_entry *e, int queue)
{
	char full[80];
	int k;

	snprintf(full, sizeof(full), "%s/%s", e->ctrl, e->name);
	putchar('{');
	np_json_kv("name", full, 0);
	np_json_kv("ctrl", e->ctrl, 1);
	np_json_kv("source", e->sysfs_only ? "sysfs" : "configfs", 1);
	np_json_kv("owner", e->owner, 1);
	np_json_kv("state", e->state, 1);
	np_json_kv("reason", e->reason, 1);
	printf(",\"error\":%ld,\"live_qid\":%lu,\"generation\":%lu,\"attached\":%d",
	       e->error, e->live_qid, e->generation, e->attached);
	fputs(",\"config\":", stdout);
	if (e->sysfs_only) {
		fputs("null", stdout);
	} else {
		putchar('{');
		for (k = 0; k < NP_NKEYS; k++)
			np_json_kv(np_cfs_keys[k].name, e->val[k], k);
		putchar('}');
	}
	if (queue) {
		fputs(",\"queue\":", stdout);
		np_json_queue(e);
	}
	putchar('}');
}

/* Calls @fn for every readable attribute file of @e's qN/, sorted */
static int np_each_queue_attr(const struct np_entry *e,
			      void (*fn)(const char *key, const char *val,
					 int nth))
{
	char dir[PATH_MAX], q[32], buf[4096];
	struct dirent **names;
	int i, n, nth = 0;

	if (!e->live_qid)
		return -ENOENT;
	snprintf(q, sizeof(q), "q%lu", e->live_qid);
	np_path(dir, sizeof(dir), np_sys_root(), e->ctrl, "peer", q);
	n = scandir(dir, &names, NULL, alphasort);
	if (n < 0)
		return -errno;
	for (i = 0; i < n; i++) {
		const char *f = names[i]->d_name;

		if (f[0] != '.' && !np_is_dir(dir, names[i]) &&
		    strcmp(f, "uevent") &&
		    !np_read_at(dir, f, buf, sizeof(buf)))
			fn(f, buf, nth++);
		free(names[i]);
	}
	free(names);
	return 0;
}

static void np_json_queue_attr(const char *key, const char *val, int nth)
{
	np_json_kv(key, val, nth);
}

static void np_json_queue(const struct np_entry *e)
{
	if (!e->live_qid) {
		fputs("null", stdout);
		return;
	}
	putchar('{');
	np_each_queue_attr(e, np_json_queue_attr);
	putchar('}');
}

static void np_print_queue_attr(const char *key, const char *val, int nth)
{
	const char *p = val;

	if (!strchr(val, '\n')) {
		printf("    %-16s %s\n", key, val);
		return;
	}
	printf("    %s:\n", key);
	while (*p) {
		size_t n = strcspn(p, "\n");

		printf("      %.*s\n", (int)n, p);
		p += n + !!p[n];
	}
}

static const char *np_or(const char *s, const char *def)
{
	return s ? s : def;
}

void np_print_list(const struct np_list *l)
{
	char full[80], qid[16], gen[16];
	int i;

	if (!l->n) {
		puts("no reservations");
		return;
	}
	printf("%-24s %-9s %-12s %5s %4s %5s %5s %-9s %s\n", "NAME", "SOURCE",
	       "STATE", "QID", "GEN", "NSID", "DEPTH", "MODE", "REASON");
	for (i = 0; i < l->n; i++) {
		const struct np_entry *e = &l->v[i];

		snprintf(full, sizeof(full), "%s/%s", e->ctrl, e->name);
		snprintf(qid, sizeof(qid), "%lu", e->live_qid);
		snprintf(gen, sizeof(gen), "%lu", e->generation);
		if (e->sysfs_only) {
			printf("%-24s %-9s %-12s %5s %4s %5s %5s %-9s %s\n",
			       full, e->owner, e->state, qid, "-", "-", "-",
			       "-", e->reason);
			continue;
		}
		printf("%-24s %-9s %-12s %5s %4s %5s %5s %-9s %s",
		       full, "configfs", e->state, e->live_qid ? qid : "-",
		       gen, np_or(e->val[NP_KEY_nsid], "?"),
		       np_or(e->val[NP_KEY_depth], "?"), np_or(e->val[NP_KEY_mode], "?"),
		       e->reason);
		if (e->error)
			printf(" (error %ld)", e->error);
		putchar('\n');
	}
}

void np_print_entry(const struct np_entry *e)
{
	int k;

	printf("%s/%s\n", e->ctrl, e->name);
	printf("  %-16s %s\n", "source", e->sysfs_only ? "sysfs" : "configfs");
	printf("  %-16s %s\n", "owner", e->owner);
	printf("  %-16s %s\n", "state", e->state);
	printf("  %-16s %s\n", "reason", e->reason);
	printf("  %-16s %ld\n", "error", e->error);
	printf("  %-16s %lu\n", "live_qid", e->live_qid);
	printf("  %-16s %lu\n", "generation", e->generation);
	if (!e->sysfs_only) {
		printf("  config:\n");
		for (k = 0; k < NP_NKEYS; k++)
			printf("    %-16s %s\n", np_cfs_keys[k].name,
			       np_or(e->val[k], "?"));
	}
	if (e->live_qid) {
		printf("  queue q%lu:\n", e->live_qid);
		np_each_queue_attr(e, np_print_queue_attr);
	}
}

