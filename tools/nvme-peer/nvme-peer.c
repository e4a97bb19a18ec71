// SPDX-License-Identifier: GPL-2.0
/*
 * nvme-peer: the administrator's command for nvme-peer's named
 * reservations in configfs (/sys/kernel/config/nvme-peer/CTRL/NAME/), its
 * read-only window intents (CTRL/windows/NAME/) and the reservations sysfs
 * shows (/sys/class/nvme/CTRL/peer/qN/): list, show, create, delete, save,
 * restore and watch them.
 *
 * Commands, the save file's format, the JSON schema and the exit codes:
 * Documentation/nvme/peer-admin.rst.  libc only.  Here: main, list, show,
 * create, delete; nvme-peer.h says where the rest is.
 */
#include "nvme-peer.h"

int np_json;

/* ---- list, show -------------------------------------------------------- */

/* The module is there, or say that it is not: 0 or an exit code */
int np_need_root(void)
{
	struct stat st;
	int err;

	if (!stat(np_cfg_root(), &st))
		return 0;
	err = errno;
	np_fail(err, "%s (is the nvme-peer module loaded and configfs mounted?)",
		np_cfg_root());
	return err == EACCES || err == EPERM ? NP_EXIT_PERM : NP_EXIT_NOENT;
}

static int np_cmd_list(int argc, char **argv)
{
	struct np_list l = { 0 };
	int i, ret;

	if (argc) {
		np_err("list: unexpected '%s'", argv[0]);
		return NP_EXIT_USAGE;
	}
	ret = np_need_root();
	if (ret)
		return ret;
	np_scan(&l);
	if (np_json) {
		fputs("{\"version\":1,\"reservations\":[", stdout);
		for (i = 0; i < l.n; i++) {
			fputs(i ? ",\n" : "\n", stdout);
			np_json_entry(&l.v[i], 0);
		}
		fputs("\n]}\n", stdout);
	} else {
		np_print_list(&l);
	}
	np_list_free(&l);
	return NP_EXIT_OK;
}

/*
 * CTRL/NAME, CTRL/windows/NAME, or CTRL/qN of a reservation no configfs
 * name stands for
 */
static int np_find(const char *full, struct np_entry *e)
{
	char ctrl[NP_CTRL_MAX + 1], name[NP_INTENT_MAX + 1], why[256];
	struct np_list l = { 0 };
	int i, ret, win;

	if (np_parse_name(full, ctrl, name, &win, why, sizeof(why))) {
		np_err("%s", why);
		return NP_EXIT_USAGE;
	}
	ret = np_need_root();
	if (ret)
		return ret;
	if (!np_read_cfg_entry(ctrl, name, e))
		return NP_EXIT_OK;
	if (win) {
		np_err("%s: no such window", full);
		return NP_EXIT_NOENT;
	}
	np_scan(&l);
	for (i = 0; i < l.n; i++) {
		if (l.v[i].sysfs_only && !strcmp(l.v[i].ctrl, ctrl) &&
		    !strcmp(l.v[i].name, name)) {
			*e = l.v[i];
			l.v[i] = l.v[--l.n];
			np_list_free(&l);
			return NP_EXIT_OK;
		}
	}
	np_list_free(&l);
	np_err("%s: no such reservation", full);
	return NP_EXIT_NOENT;
}

static int np_cmd_show(int argc, char **argv)
{
	struct np_entry e;
	int ret;

	if (argc != 1) {
		np_err("show: usage: nvme-peer show CTRL/NAME | CTRL/windows/NAME [--json]");
		return NP_EXIT_USAGE;
	}
	ret = np_find(argv[0], &e);
	if (ret)
		return ret;
	if (np_json) {
		np_json_entry(&e, 1);
		putchar('\n');
	} else {
		np_print_entry(&e);
	}
	np_entry_free(&e);
	return NP_EXIT_OK;
}

/* ---- create, delete ---------------------------------------------------- */

void np_undo(const struct np_made *m)
{
	char dir[PATH_MAX];

	np_path(dir, sizeof(dir), np_cfg_root(), m->ctrl, m->name, NULL);
	if (rmdir(dir) && errno != ENOENT)
		np_fail(errno, "undo: rmdir %s/%s", m->ctrl, m->name);
	if (m->ctrl_made)
		np_rmdir_ctrl(m->ctrl);
}

/*
 * Make @spec in configfs: mkdir, every given value in np_keys order,
 * enable last; a window's below the controller directory's windows/,
 * which configfs makes with it.  Undone on failure.  @where: "FILE:LINE: "
 * or "".  0, or the exit code of the failure, said.
 */
int np_create(const struct np_spec *spec, const char *where,
	      struct np_made *m)
{
	char dir[PATH_MAX], path[PATH_MAX + 64];
	int k, ret;

	memset(m, 0, sizeof(*m));
	np_copy(m->ctrl, sizeof(m->ctrl), spec->ctrl);
	np_copy(m->name, sizeof(m->name), spec->name);
	np_path(dir, sizeof(dir), np_cfg_root(), spec->ctrl, NULL, NULL);
	if (!mkdir(dir, 0755))
		m->ctrl_made = 1;
	else if (errno != EEXIST)
		return np_fail(errno, "%screate %s/%s: mkdir %s", where,
			       spec->ctrl, spec->name, spec->ctrl);
	/* never made here: under a module without windows, a queue's intent */
	if (spec->win && !np_win_group(spec->ctrl)) {
		ret = np_fail(ENOENT, "%screate %s/%s: no %s/%s/ (a module without window intents)",
			      where, spec->ctrl, spec->name, spec->ctrl,
			      NP_WIN_DIR);
		if (m->ctrl_made)
			np_rmdir_ctrl(spec->ctrl);
		return ret;
	}
	np_path(dir, sizeof(dir), np_cfg_root(), spec->ctrl, spec->name, NULL);
	if (mkdir(dir, 0755)) {
		ret = np_fail(errno, "%screate %s/%s: mkdir", where,
			      spec->ctrl, spec->name);
		if (m->ctrl_made)
			np_rmdir_ctrl(spec->ctrl);
		return ret;
	}
	for (k = 0; k < NP_NKEYS; k++) {
		const char *v = spec->val[k];

		/* enable=0 is what a new directory is */
		if (!v || (k == NP_KEY_enable && !strcmp(v, "0")))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, np_cfs_keys[k].name);
		ret = np_write(path, v);
		if (!ret)
			continue;
		if (k == NP_KEY_enable)
			ret = np_fail(-ret, "%screate %s/%s: enable", where,
				      spec->ctrl, spec->name);
		else
			ret = np_fail(-ret, "%screate %s/%s: %s=%s", where,
				      spec->ctrl, spec->name,
				      np_cfs_keys[k].name, v);
		np_undo(m);
		return ret;
	}
	return 0;
}

static int np_cmd_create(int argc, char **argv)
{
	struct np_spec spec = { 0 };
	struct np_made m;
	char why[512];
	int i, ret;

	if (argc < 1) {
		np_err("create: usage: nvme-peer create CTRL/NAME | CTRL/windows/NAME KEY=VALUE...");
		return NP_EXIT_USAGE;
	}
	if (np_parse_name(argv[0], spec.ctrl, spec.name, &spec.win, why,
			  sizeof(why)))
		goto bad;
	for (i = 1; i < argc; i++)
		if (np_spec_word(&spec, argv[i], why, sizeof(why)))
			goto bad;
	if (np_spec_check(&spec, 0, why, sizeof(why)))
		goto bad;
	ret = np_need_root();
	if (!ret)
		ret = np_create(&spec, "", &m);
	np_spec_free(&spec);
	return ret;
bad:
	np_err("create %s: %s", argv[0], why);
	np_spec_free(&spec);
	return NP_EXIT_USAGE;
}

/* Whether @ctrl declares a window provider (pmr_nsid not 0) */
static int np_ctrl_declares(const char *ctrl)
{
	char path[PATH_MAX], val[32];
	unsigned long long nsid;

	np_path(path, sizeof(path), np_cfg_root(), ctrl, NP_PROV_KEY, NULL);
	return !np_read(path, val, sizeof(val)) &&
	       !np_parse_num(val, NP_PROV_NSID_MAX, &nsid) && nsid;
}

/* rmdir of @ctrl's intent @name ("windows/NAME" for a window's) */
static int np_rmdir_intent(const char *ctrl, const char *name)
{
	char dir[PATH_MAX];
	int err;

	np_path(dir, sizeof(dir), np_cfg_root(), ctrl, name, NULL);
	if (!rmdir(dir))
		return NP_EXIT_OK;
	err = errno;
	if (err == ENOENT) {
		np_err("delete %s/%s: no such %s", ctrl, name,
		       strncmp(name, NP_WIN_PREFIX, strlen(NP_WIN_PREFIX)) ?
		       "reservation" : "window");
		return NP_EXIT_NOENT;
	}
	return np_fail(err, "delete %s/%s", ctrl, name);
}

static int np_delete_one(const char *ctrl, const char *name)
{
	int ret = np_rmdir_intent(ctrl, name);

	/*
	 * A controller directory left without intents goes too, unless it
	 * declares a window provider (its rmdir would withdraw it)
	 */
	if (!ret && !np_ctrl_declares(ctrl))
		np_rmdir_ctrl(ctrl);
	return ret;
}

/*
 * Each controller's windows first (while its provider still shows them),
 * then its queues' intents, then its directory, which withdraws its
 * provider
 */
static int np_delete_all(void)
{
	char **ctrls, **names;
	int nc, nn, i, j, win, ret = NP_EXIT_OK, r;

	nc = np_subdirs(np_cfg_root(), "", &ctrls);
	if (nc < 0)
		return np_need_root();
	for (i = 0; i < nc; i++) {
		for (win = 1; win >= 0; win--) {
			nn = np_intents(ctrls[i], win, &names);
			for (j = 0; j < nn; j++) {
				r = np_rmdir_intent(ctrls[i], names[j]);
				if (r && !ret)
					ret = r;
			}
			if (nn >= 0)
				np_free_strv(names, nn);
		}
		if (np_rmdir_ctrl(ctrls[i]) && errno != ENOENT) {
			r = np_fail(errno, "delete %s", ctrls[i]);
			if (!ret)
				ret = r;
		}
	}
	np_free_strv(ctrls, nc);
	return ret;
}

static int np_cmd_delete(int argc, char **argv)
{
	char ctrl[NP_CTRL_MAX + 1], name[NP_INTENT_MAX + 1], why[256];
	int ret, win;

	if (argc != 1) {
		np_err("delete: usage: nvme-peer delete CTRL/NAME | CTRL/windows/NAME | --all");
		return NP_EXIT_USAGE;
	}
	if (!strcmp(argv[0], "--all"))
		return np_delete_all();
	if (np_parse_name(argv[0], ctrl, name, &win, why, sizeof(why))) {
		np_err("delete: %s", why);
		return NP_EXIT_USAGE;
	}
	ret = np_need_root();
	return ret ? ret : np_delete_one(ctrl, name);
}

/* ---- main -------------------------------------------------------------- */

static const char np_usage[] =
"usage: nvme-peer COMMAND [ARGS] [--json]\n"
"  list [--json]                 every reservation: configfs names, and the\n"
"                                ones processes and drivers made (sysfs);\n"
"                                then every window intent\n"
"  show CTRL/NAME [--json]       one of them, with its queue\n"
"  create CTRL/NAME KEY=VALUE... make a named reservation (enable=1 last)\n"
"  delete CTRL/NAME | --all      release and remove (--all: every one)\n"
"  save [FILE]                   write every named reservation, provider and\n"
"                                window (default stdout)\n"
"  restore [--check] [FILE]      make every reservation of FILE, or none\n"
"                                (default stdin; --check: validate only)\n"
"  watch [--json] [--count N] [--timeout SEC] [--interval MS]\n"
"                                print revocations, re-creations, deletions\n"
"  version, --version            nvme-peer's version and save file format\n"
"KEYs: nsid depth sq_placement cq_placement data_placement data_size peer qid\n"
"  uid gid mode opcodes max_nlb extents file file_off file_len file_access enable\n"
"A read-only window's intent is CTRL/windows/NAME (show, create, delete), its\n"
"  KEYs: nsid peer uid gid extents file file_off file_len enable; enable=1\n"
"  needs CTRL's provider: CTRL/pmr_nsid = its nsid\n"
"Roots: NVME_PEER_CONFIGFS (/sys/kernel/config/nvme-peer),\n"
"  NVME_PEER_SYSFS (/sys/class/nvme).  man 8 nvme-peer,\n"
"  Documentation/nvme/peer-admin.rst\n";

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
} np_cmds[] = {
	{ "list", np_cmd_list },
	{ "show", np_cmd_show },
	{ "create", np_cmd_create },
	{ "delete", np_cmd_delete },
	{ "save", np_cmd_save },
	{ "restore", np_cmd_restore },
	{ "watch", np_cmd_watch },
};

int main(int argc, char **argv)
{
	size_t c;
	int i, n = 0;

	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") ||
	    !strcmp(argv[1], "help")) {
		fputs(np_usage, argc < 2 ? stderr : stdout);
		return argc < 2 ? NP_EXIT_USAGE : NP_EXIT_OK;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
		if (argc > 2) {
			np_err("version: usage: nvme-peer version");
			return NP_EXIT_USAGE;
		}
		printf("nvme-peer version %s (save file format %d)\n",
		       NP_VERSION, NP_FORMAT);
		return NP_EXIT_OK;
	}
	/* --json anywhere after the command; the rest stays in order */
	for (i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "--json"))
			np_json = 1;
		else
			argv[2 + n++] = argv[i];
	}
	for (c = 0; c < ARRAY_SIZE(np_cmds); c++)
		if (!strcmp(argv[1], np_cmds[c].name))
			return np_cmds[c].fn(n, argv + 2);
	np_err("unknown command '%s'", argv[1]);
	fputs(np_usage, stderr);
	return NP_EXIT_USAGE;
}

