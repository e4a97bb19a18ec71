// SPDX-License-Identifier: GPL-2.0
/*
 * nvme-peer, the administrator's command: watch: uevents, and a scan when one comes.
 */
#include "nvme-peer.h"

/* ---- watch ------------------------------------------------------------- */

static double np_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static const struct np_entry *np_lookup(const struct np_list *l,
					const struct np_entry *e)
{
	int i;

	for (i = 0; i < l->n; i++)
		if (l->v[i].sysfs_only == e->sysfs_only &&
		    !strcmp(l->v[i].ctrl, e->ctrl) &&
		    !strcmp(l->v[i].name, e->name))
			return &l->v[i];
	return NULL;
}

static int np_is_up(const struct np_entry *e)
{
	return !strcmp(e->state, "active");
}

static void np_event(const char *event, const struct np_entry *e)
{
	char stamp[64], full[80];
	struct timespec ts;
	struct tm tm;

	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(stamp + strlen(stamp), sizeof(stamp) - strlen(stamp),
		 ".%03ldZ", ts.tv_nsec / 1000000);
	snprintf(full, sizeof(full), "%s/%s", e->ctrl, e->name);
	if (np_json) {
		putchar('{');
		np_json_kv("time", stamp, 0);
		np_json_kv("event", event, 1);
		np_json_kv("name", full, 1);
		np_json_kv("kind", e->win ? "window" : "queue", 1);
		np_json_kv("source", e->sysfs_only ? "sysfs" : "configfs", 1);
		np_json_kv("state", e->state, 1);
		np_json_kv("reason", e->reason, 1);
		printf(",\"error\":%ld,\"live_qid\":%lu,\"generation\":%lu}\n",
		       e->error, e->live_qid, e->generation);
	} else {
		printf("%s %-10s %s state=%s reason=%s qid=%lu generation=%lu",
		       stamp, event, full, e->state, e->reason, e->live_qid,
		       e->generation);
		if (e->error)
			printf(" error=%ld", e->error);
		putchar('\n');
	}
	fflush(stdout);
}

/* The events between two scans: how many were said */
static int np_diff(const struct np_list *old, const struct np_list *now)
{
	const struct np_entry *o;
	int i, n = 0;

	for (i = 0; i < old->n; i++) {
		if (!np_lookup(now, &old->v[i])) {
			np_event("deleted", &old->v[i]);
			n++;
		}
	}
	for (i = 0; i < now->n; i++) {
		const struct np_entry *e = &now->v[i];
		const char *ev = NULL;

		o = np_lookup(old, e);
		if (!o)
			ev = "created";
		else if (!strcmp(o->state, "disabled") && strcmp(e->state,
								 "disabled"))
			ev = "enabled";
		else if (e->generation > o->generation && o->generation &&
			 np_is_up(e))
			ev = "recreated";
		else if (np_is_up(o) && !np_is_up(e))
			ev = !strcmp(e->state, "disabled") ? "disabled" :
			     "revoked";
		else if (!np_is_up(o) && np_is_up(e))
			ev = "enabled";
		else if (strcmp(o->state, e->state) ||
			 strcmp(o->reason, e->reason) ||
			 o->error != e->error || o->live_qid != e->live_qid)
			ev = "changed";
		if (ev) {
			np_event(ev, e);
			n++;
		}
	}
	return n;
}

/*
 * The kernel's uevents (NETLINK_KOBJECT_UEVENT, group 1), or -1 when
 * they say nothing about the tree watched: NVME_PEER_SYSFS names another
 * root (tests/native.sh's fake tree), or the socket cannot be had.  Opened
 * before the first scan, so that no change after it is missed.
 */
static int np_uevent_open(void)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK, .nl_groups = 1 };
	int fd, size = 1 << 20;

	if (strcmp(np_sys_root(), "/sys/class/nvme"))
		return -1;
	fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK,
		    NETLINK_KOBJECT_UEVENT);
	if (fd < 0)
		return -1;
	/* a reset sends many; root may go past rmem_max */
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)))
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * Read every uevent waiting on @fd: whether one was nvme-peer's (a
 * reservation's, NVME_PEER_EVENT=...) or some were lost (ENOBUFS), so
 * that the tree must be scanned again.
 */
static int np_uevent_read(int fd)
{
	static char buf[8192];
	struct sockaddr_nl sa;
	struct iovec iov = { buf, sizeof(buf) - 1 };
	struct msghdr msg = {
		.msg_name = &sa, .msg_namelen = sizeof(sa),
		.msg_iov = &iov, .msg_iovlen = 1,
	};
	int again = 0;
	ssize_t n, i;

	for (;;) {
		n = recvmsg(fd, &msg, 0);
		if (n < 0)
			return again || errno == ENOBUFS;
		/* the kernel's only (port 0), not another process's */
		if (sa.nl_pid || n == 0)
			continue;
		buf[n] = '\0';
		for (i = 0; i < n; i += strlen(buf + i) + 1)
			again |= !strncmp(buf + i, "NVME_PEER_EVENT=", 16);
	}
}

/* watch's options, each 0 when not given: 0 or NP_EXIT_USAGE, said */
static int np_watch_args(int argc, char **argv, unsigned long long *count,
			 unsigned long long *timeout,
			 unsigned long long *interval)
{
	unsigned long long x;
	int i;

	for (i = 0; i < argc; i++) {
		unsigned long long *opt = !strcmp(argv[i], "--count") ?
			count : !strcmp(argv[i], "--timeout") ? timeout :
			!strcmp(argv[i], "--interval") ? interval : NULL;

		if (!opt || i + 1 == argc ||
		    np_parse_num(argv[i + 1], UINT32_MAX, &x) ||
		    (opt == interval && !x)) {
			np_err("watch: usage: nvme-peer watch [--json] [--count N] [--timeout SEC] [--interval MS]");
			return NP_EXIT_USAGE;
		}
		*opt = x;
		i++;
	}
	return 0;
}

int np_cmd_watch(int argc, char **argv)
{
	struct np_list old = { 0 }, now = { 0 };
	unsigned long long count = 0, timeout = 0, interval = 0;
	unsigned long long seen = 0;
	struct pollfd pfd[2];
	int stop = 0, wait;
	double end, next;
	sigset_t sigs;

	if (np_watch_args(argc, argv, &count, &timeout, &interval))
		return NP_EXIT_USAGE;
	/* SIGINT and SIGTERM end the wait: read from a signalfd */
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	sigprocmask(SIG_BLOCK, &sigs, NULL);
	pfd[0].fd = signalfd(-1, &sigs, SFD_CLOEXEC);
	pfd[1].fd = np_uevent_open();
	pfd[0].events = POLLIN;
	pfd[1].events = POLLIN;
	if (pfd[0].fd < 0)
		return np_fail(errno, "watch: signalfd");
	/* uevents wake it; the scans between them catch what sends none */
	if (!interval)
		interval = pfd[1].fd >= 0 ? 1000 : 100;
	end = np_now() + timeout;
	np_scan(&old);
	/* a script waits for this before it changes anything */
	fprintf(stderr, "nvme-peer: watch: ready, %d reservation%s, %s\n",
		old.n, old.n == 1 ? "" : "s",
		pfd[1].fd >= 0 ? "uevents" : "no uevents");
	next = np_now() + interval / 1e3;
	while (!stop) {
		double t = np_now();

		if (timeout && t >= end)
			break;
		if (t < next) {
			wait = (int)((next - t) * 1e3) + 1;
			if (timeout && (end - t) * 1e3 < wait)
				wait = (int)((end - t) * 1e3) + 1;
			if (poll(pfd, pfd[1].fd >= 0 ? 2 : 1, wait) < 0 &&
			    errno != EINTR)
				break;
			if (pfd[0].revents) {
				stop = 1;
				break;
			}
			/* not nvme-peer's: wait on, until the next scan */
			if (!(pfd[1].fd >= 0 && pfd[1].revents &&
			      np_uevent_read(pfd[1].fd)) && np_now() < next)
				continue;
		}
		next = np_now() + interval / 1e3;
		np_scan(&now);
		seen += np_diff(&old, &now);
		np_list_free(&old);
		old = now;
		memset(&now, 0, sizeof(now));
		if (count && seen >= count)
			break;
	}
	np_list_free(&old);
	close(pfd[0].fd);
	if (pfd[1].fd >= 0)
		close(pfd[1].fd);
	if (count && seen < count && !stop)
		return NP_EXIT_TIMEOUT;
	return NP_EXIT_OK;
}

