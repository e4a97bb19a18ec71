// SPDX-License-Identifier: GPL-2.0
/*
 * The nvme-peer command (tools/nvme-peer, Documentation/nvme/peer-admin.rst)
 * against the kernel's configfs: save, unload, reload and restore give the
 * same reservations; a bad save file creates nothing and names FILE:LINE;
 * an unprivileged user may list and show but not create or delete; watch
 * sees a reset's revocation and re-creation; restore --check and configfs
 * take and refuse the same lines.
 *
 * The command is built next to this test (the Makefile) and found there.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <limits.h>
#include <grp.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include "np_util.h"
#include "kselftest_harness.h"

#define NP_CFG		"/sys/kernel/config/nvme-peer"
#define NP_BUF		65536
#define NP_UID		1000

/* The nvme-peer binary next to this test, else the one on PATH */
static const char *np_tool(void)
{
	static char path[PATH_MAX];
	char *slash;
	ssize_t n;

	if (path[0])
		return path;
	n = readlink("/proc/self/exe", path, sizeof(path) - 16);
	slash = n > 0 ? memrchr(path, '/', n) : NULL;
	if (slash)
		snprintf(slash + 1, path + sizeof(path) - slash - 1,
			 "nvme-peer");
	if (!slash || access(path, X_OK))
		snprintf(path, sizeof(path), "nvme-peer");
	return path;
}

/* Where tool()'s output goes: one pair of files per uid */
static const char *np_out(const char *what)
{
	static char path[2][32];
	char *p = path[what[0] == 'e'];

	snprintf(p, sizeof(path[0]), "/tmp/np-tool-%d.%s", (int)getuid(), what);
	return p;
}

/* Run "nvme-peer ARGS" through the shell: its exit code, or -1 */
static int tool(const char *fmt, ...)
{
	char args[2048], cmd[8192];
	va_list ap;
	int ret;

	va_start(ap, fmt);
	vsnprintf(args, sizeof(args), fmt, ap);
	va_end(ap);
	snprintf(cmd, sizeof(cmd), "%s %s > %s 2> %s", np_tool(), args,
		 np_out("out"), np_out("err"));
	ret = system(cmd);
	return WIFEXITED(ret) ? WEXITSTATUS(ret) : -1;
}

/* All of @path into @buf ("" if unreadable) */
static char *slurp(const char *path, char *buf)
{
	int fd = open(path, O_RDONLY);
	ssize_t n = fd < 0 ? 0 : read(fd, buf, NP_BUF - 1);

	buf[n > 0 ? n : 0] = '\0';
	if (fd >= 0)
		close(fd);
	return buf;
}

static char *tool_out(void)
{
	static char buf[NP_BUF];

	return slurp(np_out("out"), buf);
}

static char *tool_err(void)
{
	static char buf[NP_BUF];

	return slurp(np_out("err"), buf);
}

/* Drop "KEY":NUMBER, from every object of @json */
static void strip_num(char *json, const char *key)
{
	char pat[64], *p, *e;

	snprintf(pat, sizeof(pat), "\"%s\":", key);
	while ((p = strstr(json, pat))) {
		e = p + strlen(pat);
		while (*e == '-' || isdigit((unsigned char)*e))
			e++;
		if (*e == ',')
			e++;
		memmove(p, e, strlen(e) + 1);
	}
}

/* Every directory below configfs nvme-peer/, one a line */
static void cfg_tree(const char *dir, char *out, size_t len)
{
	struct dirent *d;
	DIR *dp = opendir(dir);
	char sub[512];
	struct stat st;

	while (dp && (d = readdir(dp))) {
		if (d->d_name[0] == '.')
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", dir, d->d_name);
		if (lstat(sub, &st) || !S_ISDIR(st.st_mode))
			continue;
		snprintf(out + strlen(out), len - strlen(out), "%s\n", sub);
		cfg_tree(sub, out, len);
	}
	if (dp)
		closedir(dp);
}

static char *cfg_snapshot(char *buf)
{
	buf[0] = '\0';
	cfg_tree(NP_CFG, buf, NP_BUF);
	return buf;
}

/* The qN/ directories of the controller, one a line */
static char *q_snapshot(char *buf)
{
	struct dirent *d;
	DIR *dp = opendir(np_peer());

	buf[0] = '\0';
	while (dp && (d = readdir(dp)))
		if (d->d_name[0] == 'q')
			snprintf(buf + strlen(buf), NP_BUF - strlen(buf),
				 "%s\n", d->d_name);
	if (dp)
		closedir(dp);
	return buf;
}

/* Why this cannot run, or NULL; mounts configfs where it is not */
static const char *tool_missing(void)
{
	const char *why = np_missing();

	if (why)
		return why;
	if (access(NP_CFG, F_OK))
		mount("none", "/sys/kernel/config", "configfs", 0, NULL);
	if (access(NP_CFG, F_OK))
		return "no " NP_CFG;
	if (access(np_tool(), X_OK) && strcmp(np_tool(), "nvme-peer"))
		return "no nvme-peer command";
	return NULL;
}

static int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, text, strlen(text));
	close(fd);
	return n == (ssize_t)strlen(text) ? 0 : -EIO;
}

/* Every test: SKIP without the module or the command; nothing left */
FIXTURE(tool) {
};

FIXTURE_SETUP(tool)
{
	const char *why = tool_missing();

	if (why)
		SKIP(return, "%s", why);
	ASSERT_EQ(0, tool("delete --all")) TH_LOG("%s", tool_err());
}

FIXTURE_TEARDOWN(tool)
{
	if (!tool_missing())
		tool("delete --all");
}

/* module reloads, KUnit suites at load and resets under TCG take time */
#define NP_TOOL_TIMEOUT 300

/*
 * save -> delete --all -> rmmod nvme-peer -> modprobe nvme-peer -> restore:
 * list --json is the same but for live_qid and generation (a new module
 * numbers both afresh), and save writes the same lines.
 */
TEST_F_TIMEOUT(tool, save_unload_restore, NP_TOOL_TIMEOUT)
{
	static char before[NP_BUF], after[NP_BUF], save1[NP_BUF];
	static char save2[NP_BUF], tree[NP_BUF];
	char *p;

	/* its reservations would not come back: not ours to restore */
	np_sys("rmmod np-client 2>/dev/null");
	ASSERT_EQ(0, tool("create %s/ro nsid=1 depth=32 enable=1", np_ctrl()))
		TH_LOG("%s", tool_err());
	ASSERT_EQ(0, tool("create %s/rw nsid=1 opcodes=read,write %s uid=%d gid=%d enable=1",
			  np_ctrl(), "extents=0+2048,4096+1024", NP_UID, NP_UID))
		TH_LOG("%s", tool_err());
	ASSERT_EQ(0, tool("create %s/cmb nsid=1 sq_placement=cmb max_nlb=8 enable=1",
			  np_ctrl())) TH_LOG("%s", tool_err());
	ASSERT_EQ(0, tool("create %s/direct nsid=1 mode=direct depth=16 enable=1",
			  np_ctrl())) TH_LOG("%s", tool_err());
	ASSERT_EQ(0, tool("create %s/off nsid=1 depth=128 enable=0",
			  np_ctrl())) TH_LOG("%s", tool_err());
	ASSERT_EQ(0, tool("show %s/rw --json", np_ctrl()));
	EXPECT_NE(NULL, strstr(tool_out(), "\"state\":\"active\""))
		TH_LOG("%s", tool_out());
	ASSERT_EQ(0, tool("list --json"));
	snprintf(before, NP_BUF, "%s", tool_out());
	ASSERT_EQ(0, tool("save /tmp/np-tool.conf"));
	slurp("/tmp/np-tool.conf", save1);
	TH_LOG("saved:\n%s", save1);
	EXPECT_NE(NULL, strstr(save1, "/off nsid=1 depth=128 enable=0\n"));

	/* configfs pins the module while a directory exists */
	EXPECT_NE(0, np_sys("rmmod nvme-peer 2>/dev/null"));
	ASSERT_EQ(0, tool("delete --all"));
	EXPECT_STREQ("", cfg_snapshot(tree));
	ASSERT_EQ(0, np_sys("rmmod nvme-peer"));
	ASSERT_EQ(0, np_sys("modprobe nvme-peer allow_direct=1"));
	ASSERT_EQ(0, np_wait_for(np_peer_file("live"), "1", 10));
	ASSERT_EQ(0, access(NP_CFG, F_OK));

	ASSERT_EQ(0, tool("restore /tmp/np-tool.conf")) TH_LOG("%s", tool_err());
	ASSERT_EQ(0, tool("list --json"));
	snprintf(after, NP_BUF, "%s", tool_out());
	strip_num(before, "live_qid");
	strip_num(before, "generation");
	strip_num(after, "live_qid");
	strip_num(after, "generation");
	EXPECT_STREQ(before, after);
	ASSERT_EQ(0, tool("save"));
	snprintf(save2, NP_BUF, "%s", tool_out());
	/* the first line is a comment with the time */
	p = strchr(save1, '\n');
	ASSERT_NE(NULL, p);
	ASSERT_NE(NULL, strchr(save2, '\n'));
	EXPECT_STREQ(p, strchr(save2, '\n'));
	EXPECT_EQ(0, tool("delete --all"));
	EXPECT_EQ(0, np_sys("modprobe np-client"));
}

/* A bad file: exit code, FILE:2 and its words in the message, nothing made */
static void restore_bad(struct __test_metadata *_metadata, const char *line,
			int rc, const char *msg)
{
	static char cfg0[NP_BUF], cfg1[NP_BUF], q0[NP_BUF], q1[NP_BUF];
	char text[10000], where[64];

	snprintf(text, sizeof(text), "# bad\n%s/good nsid=1 enable=1\n%s\n",
		 np_ctrl(), line);
	ASSERT_EQ(0, write_file("/tmp/np-bad.conf", text));
	cfg_snapshot(cfg0);
	q_snapshot(q0);
	EXPECT_EQ(rc, tool("restore /tmp/np-bad.conf")) TH_LOG("%.80s", line);
	snprintf(where, sizeof(where), "/tmp/np-bad.conf:3: ");
	EXPECT_NE(NULL, strstr(tool_err(), where)) TH_LOG("%s", tool_err());
	EXPECT_NE(NULL, strstr(tool_err(), msg)) TH_LOG("%s", tool_err());
	EXPECT_STREQ(cfg0, cfg_snapshot(cfg1));
	EXPECT_STREQ(q0, q_snapshot(q1));
}

TEST_F_TIMEOUT(tool, restore_bad_files, NP_TOOL_TIMEOUT)
{
	char line[9000], msg[64];
	const char *c = np_ctrl();
	int n;

	/* an existing reservation stays as it is */
	ASSERT_EQ(0, tool("create %s/keep nsid=1", c));

	snprintf(line, sizeof(line), "%s/t1 nsid=1 colour=blue", c);
	restore_bad(_metadata, line, 3, "unknown key 'colour'");
	snprintf(line, sizeof(line), "%s/t1 nsid=1 depth=6four", c);
	restore_bad(_metadata, line, 3, "depth: '6four' is not a number");
	snprintf(line, sizeof(line), "%s/good nsid=1", c);
	restore_bad(_metadata, line, 3, "duplicate name (line 2)");
	snprintf(line, sizeof(line), "%s/keep nsid=1", c);
	restore_bad(_metadata, line, 3, "exists already");
	snprintf(line, sizeof(line), "%s/t1 nsid=1 file=/tmp/np-missing enable=1", c);
	restore_bad(_metadata, line, 3, "/tmp/np-missing: No such file");
	n = snprintf(line, sizeof(line), "%s/t1 nsid=1 extents=0+1", c);
	while (n < 8300)
		n += snprintf(line + n, sizeof(line) - n, ",%d+1", n);
	restore_bad(_metadata, line, 3, "line longer than 8191 characters");
	/* valid to the tool: the kernel refuses it at enable, all undone */
	snprintf(line, sizeof(line), "%s/nons nsid=99 enable=1", c);
	snprintf(msg, sizeof(msg), "create %s/nons: enable: ", c);
	restore_bad(_metadata, line, 1, msg);
	TH_LOG("missing namespace: %s", tool_err());
	EXPECT_NE(NULL, strstr(tool_err(), "nothing created"));
	EXPECT_EQ(0, tool("delete --all"));
}

/*
 * The corpus of save file lines that restore --check and configfs must
 * agree on, each with its fate: + taken, - refused.  Each is well formed
 * as a line of the format (CTRL/NAME, then KEY=VALUE words, each key once,
 * no blank in a value); what varies is the names, the keys and the values.
 * "@" stands for the controller; in a value "L<n>" makes it n characters
 * long (zeros, its last one 1) and "E<n>" is n extents.  A line with
 * enable=1 that is taken reserves a queue.  Lines whose fate needs the
 * controller (a depth over its MQES) are not here: --check cannot know.
 */
static const char * const corpus[] = {
	/* names */
	"+@/t nsid=1", "-@/. nsid=1", "-@/.. nsid=1", "+@/... nsid=1",
	"+@/a.b-c_D9 nsid=1", "-@/t+1 nsid=1", "-@/t:1 nsid=1",
	"+@/0123456789012345678901234567890 nsid=1",
	"-@/01234567890123456789012345678901 nsid=1",
	"-nvme/t nsid=1", "-nvmex/t nsid=1", "-sda/t nsid=1", "+nvme01/t nsid=1",
	"+nvme01234567890/t nsid=1", "-nvme012345678901/t nsid=1",
	"-nvme0123456789012/t nsid=1",
	/* keys: each attribute, and unknown or read-only ones */
	"+@/t nsid=1 depth=128 sq_placement=cmb cq_placement=peer data_placement=host data_size=4096 peer=0000:03:00.0 qid=5 uid=1000 gid=0 mode=direct opcodes=read,write max_nlb=8 extents=0+8,100+1 file=/tmp/x file_off=4096 file_len=0 file_access=rw enable=0",
	"-@/t colour=blue", "-@/t NSID=1", "-@/t nsid_=1", "-@/t state=active",
	"-@/t error=0", "-@/t live_qid=0", "-@/t generation=1", "-@/t reason=none",
	"-@/t =1",
	/* numbers */
	"+@/t nsid=010", "+@/t nsid=0x10", "+@/t nsid=0X10", "-@/t nsid=0x",
	"-@/t nsid=0x1g", "-@/t nsid=+5", "-@/t nsid=-0", "-@/t nsid=",
	"-@/t nsid=1.5", "-@/t nsid=1e3", "+@/t nsid=4294967295",
	"-@/t nsid=4294967296", "-@/t nsid=0x100000000",
	"-@/t nsid=99999999999999999999999", "+@/t depth=0128",
	"+@/t qid=65535", "-@/t qid=65536", "-@/t qid=0x10000",
	"+@/t data_size=67108864", "-@/t data_size=67108865",
	"+@/t data_size=0x4000000", "-@/t max_nlb=4294967296",
	"+@/t file_off=18446744073709551615", "-@/t file_off=18446744073709551616",
	"+@/t file_len=0xffffffffffffffff", "-@/t file_len=0x10000000000000000",
	"+@/t uid=-1", "+@/t uid=4294967294", "-@/t uid=4294967295", "-@/t uid=-2",
	"+@/t uid=0x10", "-@/t gid=x", "-@/t gid=",
	"+@/t nsid=L4094", "-@/t nsid=L4095",
	/* words */
	"-@/t sq_placement=gpu", "-@/t sq_placement=dmabuf",
	"-@/t sq_placement=HOST", "+@/t data_placement=none",
	"+@/t mode=isolated", "-@/t mode=shared", "-@/t mode=Direct",
	"-@/t file_access=write", "+@/t file_access=read",
	"+@/t opcodes=dsm,read", "-@/t opcodes=read,read", "-@/t opcodes=read,",
	"-@/t opcodes=,read", "-@/t opcodes=read,admin", "+@/t opcodes=",
	"+@/t extents=0+1", "-@/t extents=5", "-@/t extents=5+0", "-@/t extents=+5",
	"-@/t extents=1+0xffffffffffffffff", "+@/t extents=18446744073709551614+1",
	"-@/t extents=0+1,,", "+@/t extents=010+08", "+@/t extents=E64",
	"-@/t extents=E65",
	/* PCI names */
	"+@/t peer=cpu", "+@/t peer=0000:03:00.0", "+@/t peer=10000:e1:1f.7",
	"-@/t peer=0000:0A:00.0", "-@/t peer=0000:03:20.0",
	"-@/t peer=0000:03:00.8", "-@/t peer=03:00.0", "-@/t peer=0000:03:00.0x",
	"-@/t peer=garbage", "-@/t peer=", "-@/t peer=00000:03:00.0",
	"-@/t peer=CPU",
	/* files */
	"+@/t file=/tmp/x", "-@/t file=tmp/x", "+@/t file=", "+@/t file=/L4094",
	"-@/t file=/L4095",
	/* enable */
	"+@/t nsid=1 enable=0", "+@/t nsid=1 enable=1", "-@/t enable=1",
	"-@/t nsid=0x0 enable=1", "-@/t nsid=1 enable=yes", "-@/t nsid=1 enable=2",
	"-@/t nsid=1 enable=01", "-@/t nsid=1 file_off=4096 enable=1",
	"-@/t nsid=1 file_access=rw enable=1",
	"-@/t nsid=1 file=/tmp/np-corpus-missing enable=1",
	"+@/t nsid=1 file=/tmp/np-corpus-missing enable=0",
};

/* @line (past its fate) with "@", "L<n>" and "E<n>" expanded, into @out */
static void corpus_line(const char *line, char *out, size_t len)
{
	size_t n = 0, value = 0;
	long i, count;
	char *end;

	for (; *line && n < len - 64; line++) {
		if (*line == '@') {
			n += snprintf(out + n, len - n, "%s", np_ctrl());
			continue;
		}
		if (!value || !strchr("LE", *line) ||
		    !isdigit((unsigned char)line[1])) {
			if (*line == '=')
				value = n + 1;
			out[n++] = *line;
			continue;
		}
		count = strtol(line + 1, &end, 10);
		for (i = 0; i < count && n < len - 64; i++) {
			if (*line == 'E')
				n += snprintf(out + n, len - n, "%s%ld+1",
					      i ? "," : "", 2 * i);
			else if (n - value < (size_t)count - 1)
				out[n++] = '0';
		}
		if (*line == 'L')
			out[n++] = '1';
		line = end - 1;
	}
	out[n] = '\0';
}

/* Write @val to @dir/@key as the command does ("" as a newline): 0 or -1 */
static int cfs_write(const char *dir, const char *key, const char *val)
{
	size_t len = *val ? strlen(val) : 1;
	char path[512];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, key);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -1;
	n = write(fd, *val ? val : "\n", len);
	close(fd);
	return n == (ssize_t)len ? 0 : -1;
}

/*
 * @line into configfs as create makes it: mkdir CTRL and CTRL/NAME, each
 * value in the line's order, enable last; 1 if every step took it.
 * Whatever it made is taken away again.
 */
static int corpus_cfs(const char *line)
{
	char buf[9000], ctrl[256], dir[512], *save, *word, *eq, *slash;
	const char *enable = NULL;
	int made_ctrl, ok = 1;

	snprintf(buf, sizeof(buf), "%s", line);
	word = strtok_r(buf, " ", &save);
	slash = strchr(word, '/');
	*slash = '\0';
	snprintf(ctrl, sizeof(ctrl), NP_CFG "/%s", word);
	made_ctrl = !mkdir(ctrl, 0755);
	if (!made_ctrl && errno != EEXIST)
		return 0;
	snprintf(dir, sizeof(dir), "%s/%s", ctrl, slash + 1);
	if (mkdir(dir, 0755)) {
		ok = 0;
		goto out_ctrl;
	}
	while ((word = strtok_r(NULL, " ", &save))) {
		eq = strchr(word, '=');
		*eq = '\0';
		if (!strcmp(word, "enable"))
			enable = eq + 1;
		else if (ok && cfs_write(dir, word, eq + 1))
			ok = 0;
	}
	if (ok && enable && cfs_write(dir, "enable", enable))
		ok = 0;
	cfs_write(dir, "enable", "0");
	rmdir(dir);
out_ctrl:
	if (made_ctrl)
		rmdir(ctrl);
	return ok;
}

/*
 * Issue 32: restore --check took 22 kinds of lines configfs refused.  Each
 * corpus line goes to restore --check alone in a file and to configfs:
 * both take it or both refuse it, as its fate says.
 */
TEST_F_TIMEOUT(tool, corpus_agrees, NP_TOOL_TIMEOUT)
{
	static char line[9000], text[9100];
	int i, rc, by_tool, by_cfs, want, differ = 0, wrong = 0;

	for (i = 0; i < (int)ARRAY_SIZE(corpus); i++) {
		want = corpus[i][0] == '+';
		corpus_line(corpus[i] + 1, line, sizeof(line));
		snprintf(text, sizeof(text), "%s\n", line);
		ASSERT_EQ(0, write_file("/tmp/np-corpus.conf", text));
		rc = tool("restore --check /tmp/np-corpus.conf");
		ASSERT_TRUE(rc == 0 || rc == 3) TH_LOG("%s: %s", line, tool_err());
		by_tool = rc == 0;
		by_cfs = corpus_cfs(line);
		differ += by_tool != by_cfs;
		wrong += by_tool != want || by_cfs != want;
		EXPECT_EQ(by_tool, by_cfs)
			TH_LOG("%.100s: restore --check %s, configfs %s: %s", line,
			       by_tool ? "takes" : "refuses",
			       by_cfs ? "takes" : "refuses", tool_err());
		EXPECT_EQ(want, by_cfs)
			TH_LOG("%.100s: configfs %s it", line,
			       by_cfs ? "takes" : "refuses");
	}
	TH_LOG("%d lines: %d differ, %d against their fate",
	       (int)ARRAY_SIZE(corpus), differ, wrong);
	EXPECT_EQ(0, tool("delete --all"));
}

/* The checks of unprivileged(), as uid and gid NP_UID: failures */
static int unprivileged_child(void)
{
	const char *c = np_ctrl();
	gid_t gid = NP_UID;
	char msg[3][128];
	int fails = 0;

	snprintf(msg[0], sizeof(msg[0]), "create %s/mine: mkdir: Permission denied", c);
	snprintf(msg[1], sizeof(msg[1]), "delete %s/shared: Permission denied", c);
	snprintf(msg[2], sizeof(msg[2]), "delete %s/shared: Operation not permitted", c);
	if (setgroups(1, &gid) || setgid(NP_UID) || setuid(NP_UID))
		return 100;
	if (tool("list") || !strstr(tool_out(), "/shared "))
		fails |= 1;
	if (tool("list --json") || !strstr(tool_out(), "/shared\""))
		fails |= 2;
	if (tool("show %s/shared", c) || !strstr(tool_out(), "state"))
		fails |= 4;
	if (tool("create %s/mine nsid=1", c) != 4 ||
	    !strstr(tool_err(), msg[0]))
		fails |= 8;
	if (tool("delete %s/shared", c) != 4 ||
	    (!strstr(tool_err(), msg[1]) && !strstr(tool_err(), msg[2])))
		fails |= 16;
	if (tool("save") != 0 || !strstr(tool_out(), "/shared nsid=1"))
		fails |= 32;
	return fails;
}

TEST_F_TIMEOUT(tool, unprivileged, NP_TOOL_TIMEOUT)
{
	static char cfg0[NP_BUF], cfg1[NP_BUF];
	int status;
	pid_t pid;

	ASSERT_EQ(0, tool("create %s/shared nsid=1 uid=%d enable=1", np_ctrl(),
			  NP_UID)) TH_LOG("%s", tool_err());
	cfg_snapshot(cfg0);
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		_exit(unprivileged_child());
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	/* 1, 2: list; 4: show; 8: create; 16: delete; 32: save */
	EXPECT_EQ(0, WEXITSTATUS(status));
	EXPECT_STREQ(cfg0, cfg_snapshot(cfg1));
	EXPECT_EQ(0, tool("delete --all"));
}

/*
 * Whether @path holds @what within @secs seconds (a file another process
 * writes)
 */
static int file_has(const char *path, const char *what, int secs)
{
	static char buf[NP_BUF];
	int i;

	for (i = 0; i < secs * 10; i++) {
		if (strstr(slurp(path, buf), what))
			return 1;
		usleep(100000);
	}
	return 0;
}

/*
 * "nvme-peer watch --json ARGS" into @out (its stderr into @out.err), in
 * the background, once it has looked: its first scan is done when it says
 * "ready", and every change after that reaches it as a uevent.  No sleep
 * guesses when that is (under load the first scan came after the change:
 * the change was never seen).
 */
static pid_t watch_start(const char *out, const char *args)
{
	char cmd[2 * PATH_MAX + 512], err[PATH_MAX];
	pid_t pid;

	snprintf(err, sizeof(err), "%s.err", out);
	unlink(err);
	pid = fork();
	if (!pid) {
		snprintf(cmd, sizeof(cmd), "exec %s watch --json %s > %s 2> %s",
			 np_tool(), args, out, err);
		execl("/bin/sh", "sh", "-c", cmd, NULL);
		_exit(127);
	}
	if (pid > 0 && !file_has(err, "watch: ready, ", 60)) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		return -1;
	}
	return pid;
}

/* Its exit code, or -1 */
static int watch_wait(pid_t pid)
{
	int status;

	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/*
 * A reset: watch prints the revocation; it comes back, generation 2.  The
 * watch runs until the re-creation is seen (SIGTERM then: exit 0), not
 * for a fixed time that a slow re-creation outlasts.
 */
TEST_F_TIMEOUT(tool, watch_reset, NP_TOOL_TIMEOUT)
{
	static char out[NP_BUF];
	char dir[256], name[64], *p;
	pid_t pid;

	snprintf(dir, sizeof(dir), NP_CFG "/%s/w", np_ctrl());
	snprintf(name, sizeof(name), "\"name\":\"%s/w\"", np_ctrl());
	ASSERT_EQ(0, tool("create %s/w nsid=1 enable=1", np_ctrl()));
	pid = watch_start("/tmp/np-watch.out", "--timeout 120");
	ASSERT_LE(0, pid);
	ASSERT_EQ(0, np_write(np_ctrl_path("/sys/class/nvme/%s/reset_controller"),
			      "1"));
	snprintf(out, NP_BUF, "%s/state", dir);
	ASSERT_EQ(0, np_wait_for(out, "active", 60));
	snprintf(out, NP_BUF, "%s/generation", dir);
	EXPECT_EQ(2, np_read_num(out));
	/* the re-creation's add uevent wakes it: seen at once */
	EXPECT_TRUE(file_has("/tmp/np-watch.out", "\"event\":\"recreated\"", 30));
	kill(pid, SIGTERM);
	EXPECT_EQ(0, watch_wait(pid));
	slurp("/tmp/np-watch.out", out);
	TH_LOG("watch:\n%s", out);
	EXPECT_NE(NULL, strstr(out, name));
	/* revoked by the reset, unless it came back before watch looked */
	p = strstr(out, "\"event\":\"revoked\"");
	if (p) {
		EXPECT_EQ(0, strncmp(strstr(p, "\"reason\":"),
				     "\"reason\":\"reset\",", 17));
	}
	/* re-created, generation 2 */
	p = strstr(out, "\"event\":\"recreated\"");
	ASSERT_NE(NULL, p);
	EXPECT_NE(NULL, strstr(p, "\"generation\":2}"));

	pid = watch_start("/tmp/np-watch.out", "--count 1 --timeout 60");
	ASSERT_LE(0, pid);
	EXPECT_EQ(0, tool("delete %s/w", np_ctrl()));
	EXPECT_EQ(0, watch_wait(pid));
	slurp("/tmp/np-watch.out", out);
	EXPECT_NE(NULL, strstr(out, "\"event\":\"deleted\"")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, name));
}

TEST_HARNESS_MAIN
