// SPDX-License-Identifier: GPL-2.0
/*
 * Events, not polling: a reservation's state change wakes poll() on its
 * qN/state and qN/reason (POLLPRI | POLLERR), and the controller's nvmeX
 * sends a KOBJ_CHANGE uevent with NVME_PEER_EVENT, NVME_PEER_QID, STATE,
 * REASON, GENERATION and NVME_PEER_NAME (sysfs-class-nvme-peer).  Without
 * the notification poll() sleeps through the revocation and the test
 * fails: it never reads the file again to find the change.
 */
#define _GNU_SOURCE
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <linux/netlink.h>
#include <linux/nvme_peer.h>

#include "np_util.h"
#include "kselftest_harness.h"

#define NP_EV_SECS	30

/* The kernel's uevents, from now on; -1 on failure */
static int uevent_open(void)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK, .nl_groups = 1 };
	int fd, size = 4 << 20;

	fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_KOBJECT_UEVENT);
	if (fd < 0)
		return -1;
	setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size));
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		close(fd);
		return -1;
	}
	return fd;
}

/* The value of @key in the uevent @msg of @n bytes, or NULL */
static const char *uevent_get(const char *msg, ssize_t n, const char *key)
{
	size_t len = strlen(key);
	ssize_t i;

	for (i = 0; i < n; i += strlen(msg + i) + 1)
		if (!strncmp(msg + i, key, len) && msg[i + len] == '=')
			return msg + i + len + 1;
	return NULL;
}

/*
 * Wait up to NP_EV_SECS for nvme-peer's uevent @event of @qid on @ctrl;
 * its message in @msg.  Return its length, 0 on timeout.
 */
static ssize_t uevent_wait(int fd, const char *ctrl, int qid,
			   const char *event, char *msg, size_t len)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	char want_qid[16], want_dev[32];
	const char *v;
	ssize_t n;
	int i;

	snprintf(want_qid, sizeof(want_qid), "%d", qid);
	snprintf(want_dev, sizeof(want_dev), "/%s", ctrl);
	for (i = 0; i < NP_EV_SECS * 10; i++) {
		if (poll(&p, 1, 100) <= 0)
			continue;
		n = recv(fd, msg, len - 1, 0);
		if (n <= 0)
			continue;
		msg[n] = '\0';
		v = uevent_get(msg, n, "DEVPATH");
		if (!v || strlen(v) < strlen(want_dev) ||
		    strcmp(v + strlen(v) - strlen(want_dev), want_dev))
			continue;
		v = uevent_get(msg, n, "NVME_PEER_QID");
		if (!v || strcmp(v, want_qid))
			continue;
		v = uevent_get(msg, n, "NVME_PEER_EVENT");
		if (v && !strcmp(v, event))
			return n;
	}
	return 0;
}

#define EXPECT_VAR(msg, n, key, want) do {				\
	const char *_k = (key), *_v = uevent_get(msg, n, _k);		\
	EXPECT_NE(NULL, _v) TH_LOG("no %s", _k);			\
	if (_v)								\
		EXPECT_STREQ(want, _v);					\
} while (0)

FIXTURE(events) {
	int uev;
	char msg[8192];
};

FIXTURE_SETUP(events)
{
	const char *why = np_missing();

	self->uev = -1;
	if (why)
		SKIP(return, "%s", why);
	self->uev = uevent_open();
}

FIXTURE_TEARDOWN(events)
{
	if (self->uev >= 0)
		close(self->uev);
	np_cfs_clear(np_ctrl());
}

/* A process's reservation: its qid, the fd holding it in @fd */
static int reserve(int *fd)
{
	struct nvme_peer_reserve r = {
		.size = sizeof(r), .nsid = 1, .depth = 64,
		.sq_placement = NVME_PEER_PLACE_HOST,
		.cq_placement = NVME_PEER_PLACE_HOST,
	};

	r.ctrl = atoi(np_ctrl() + strlen("nvme"));
	*fd = open("/dev/nvme-peer", O_RDWR | O_CLOEXEC);
	if (*fd < 0 || ioctl(*fd, NVME_PEER_IOC_RESERVE, &r))
		return -errno;
	return r.qid;
}

/* Open qN/@attr and read it once, as a poller must before it waits. */
static int open_attr(int qid, const char *attr, char *buf, size_t len)
{
	char path[300];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/sys/class/nvme/%s/peer/q%d/%s",
		 np_ctrl(), qid, attr);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = pread(fd, buf, len - 1, 0);
	buf[n > 0 ? n : 0] = '\0';
	return fd;
}

static void reset_ctrl(struct __test_metadata *_metadata)
{
	ASSERT_EQ(0, np_write(np_ctrl_path("/sys/class/nvme/%s/reset_controller"),
			      "1"));
}

/*
 * A reset revokes a process's reservation: poll() on state and reason,
 * asleep before the reset, wakes with POLLPRI | POLLERR; state reads
 * "revoked", reason "reset"; read again, they are quiet.
 */
TEST_F_TIMEOUT(events, poll_wakes_on_reset, 180)
{
	struct pollfd p[2] = { { .events = POLLPRI }, { .events = POLLPRI } };
	char buf[64];
	int dev, qid, ret;
	ssize_t n;

	qid = reserve(&dev);
	ASSERT_LT(0, qid) TH_LOG("reserve: %s", strerror(-qid));
	p[0].fd = open_attr(qid, "state", buf, sizeof(buf));
	ASSERT_LE(0, p[0].fd);
	EXPECT_STREQ("active\n", buf);
	p[1].fd = open_attr(qid, "reason", buf, sizeof(buf));
	ASSERT_LE(0, p[1].fd);
	EXPECT_STREQ("none\n", buf);
	/* nothing changed since the read: no event */
	EXPECT_EQ(0, poll(p, 2, 0));

	reset_ctrl(_metadata);
	ret = poll(p, 2, NP_EV_SECS * 1000);
	ASSERT_LT(0, ret) TH_LOG("poll() slept through the revocation");
	/* both files: the state and the reason change together */
	ret = poll(p, 2, NP_EV_SECS * 1000);
	EXPECT_EQ(2, ret);
	EXPECT_EQ(POLLPRI | POLLERR, p[0].revents & (POLLPRI | POLLERR));
	EXPECT_EQ(POLLPRI | POLLERR, p[1].revents & (POLLPRI | POLLERR));
	n = pread(p[0].fd, buf, sizeof(buf) - 1, 0);
	buf[n > 0 ? n : 0] = '\0';
	EXPECT_STREQ("revoked\n", buf);
	n = pread(p[1].fd, buf, sizeof(buf) - 1, 0);
	buf[n > 0 ? n : 0] = '\0';
	EXPECT_STREQ("reset\n", buf);
	/* read again: quiet until the next change */
	EXPECT_EQ(0, poll(p, 2, 0));
	ASSERT_EQ(0, np_wait_for(np_peer_file("live"), "1", 60));
	close(p[0].fd);
	close(p[1].fd);
	close(dev);
}

/*
 * The same reset's uevents on nvmeX: added, then changed (revoked,
 * reset), then on close released and removed.
 */
TEST_F_TIMEOUT(events, uevents_of_a_reset, 180)
{
	char ctrl[32];
	int dev, qid;
	ssize_t n;

	/* a kernel without CONFIG_NET has no uevent socket */
	ASSERT_LE(0, self->uev) TH_LOG("no uevent socket (CONFIG_NET?)");
	snprintf(ctrl, sizeof(ctrl), "%s", np_ctrl());
	qid = reserve(&dev);
	ASSERT_LT(0, qid) TH_LOG("reserve: %s", strerror(-qid));
	n = uevent_wait(self->uev, ctrl, qid, "add", self->msg,
			sizeof(self->msg));
	ASSERT_LT(0, n) TH_LOG("no add uevent");
	EXPECT_VAR(self->msg, n, "ACTION", "change");
	EXPECT_VAR(self->msg, n, "SUBSYSTEM", "nvme");
	EXPECT_VAR(self->msg, n, "STATE", "active");
	EXPECT_VAR(self->msg, n, "REASON", "none");
	EXPECT_VAR(self->msg, n, "GENERATION", "0");
	EXPECT_VAR(self->msg, n, "NVME_PEER_NAME", "");

	reset_ctrl(_metadata);
	n = uevent_wait(self->uev, ctrl, qid, "change", self->msg,
			sizeof(self->msg));
	ASSERT_LT(0, n) TH_LOG("no change uevent");
	EXPECT_VAR(self->msg, n, "STATE", "revoked");
	EXPECT_VAR(self->msg, n, "REASON", "reset");
	EXPECT_VAR(self->msg, n, "GENERATION", "0");

	ASSERT_EQ(0, np_wait_for(np_peer_file("live"), "1", 60));
	close(dev);
	n = uevent_wait(self->uev, ctrl, qid, "change", self->msg,
			sizeof(self->msg));
	ASSERT_LT(0, n) TH_LOG("no change uevent at the release");
	EXPECT_VAR(self->msg, n, "STATE", "released");
	EXPECT_VAR(self->msg, n, "REASON", "reset");
	n = uevent_wait(self->uev, ctrl, qid, "remove", self->msg,
			sizeof(self->msg));
	ASSERT_LT(0, n) TH_LOG("no remove uevent");
	EXPECT_VAR(self->msg, n, "STATE", "released");
}

/*
 * An administrator's intent: its uevents carry its name and generation;
 * a disable says released, reason admin, then removed.
 */
TEST_F_TIMEOUT(events, uevents_of_an_intent, 120)
{
	char name[32], qidbuf[16], ctrl[32];
	int qid;
	ssize_t n;

	/* a kernel without CONFIG_NET has no uevent socket */
	ASSERT_LE(0, self->uev) TH_LOG("no uevent socket (CONFIG_NET?)");
	snprintf(ctrl, sizeof(ctrl), "%s", np_ctrl());
	snprintf(name, sizeof(name), "ev%d", getpid());
	ASSERT_EQ(0, np_cfs_make(ctrl, name, "nsid=1"));
	ASSERT_EQ(0, np_cfs_read(ctrl, name, "live_qid", qidbuf,
				 sizeof(qidbuf)));
	qid = atoi(qidbuf);
	ASSERT_LT(0, qid);
	n = uevent_wait(self->uev, ctrl, qid, "add", self->msg,
			sizeof(self->msg));
	ASSERT_LT(0, n) TH_LOG("no add uevent");
	EXPECT_VAR(self->msg, n, "STATE", "active");
	EXPECT_VAR(self->msg, n, "GENERATION", "1");
	EXPECT_VAR(self->msg, n, "NVME_PEER_NAME", name);

	ASSERT_EQ(0, np_write(np_cfs_path(ctrl, name, "enable"), "0"));
	n = uevent_wait(self->uev, ctrl, qid, "change", self->msg,
			sizeof(self->msg));
	ASSERT_LT(0, n) TH_LOG("no change uevent");
	EXPECT_VAR(self->msg, n, "STATE", "released");
	EXPECT_VAR(self->msg, n, "REASON", "admin");
	EXPECT_VAR(self->msg, n, "GENERATION", "1");
	EXPECT_VAR(self->msg, n, "NVME_PEER_NAME", name);
	n = uevent_wait(self->uev, ctrl, qid, "remove", self->msg,
			sizeof(self->msg));
	ASSERT_LT(0, n) TH_LOG("no remove uevent");
	EXPECT_EQ(0, np_cfs_remove(ctrl, name));
}

TEST_HARNESS_MAIN
