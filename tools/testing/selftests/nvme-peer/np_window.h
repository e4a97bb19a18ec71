/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Read-only windows (NVME_PEER_IOC_WINDOW): ask for one, and load a byte
 * of its mapping with SIGBUS caught.  Include after <linux/nvme_peer.h>,
 * "np_util.h" and "np_file.h".
 */
#ifndef NP_WINDOW_H
#define NP_WINDOW_H

#include <setjmp.h>
#include <signal.h>

static sigjmp_buf np_win_jb;

static inline void np_win_sigbus(int sig)
{
	siglongjmp(np_win_jb, 1);
}

/* Load the byte at @p: 0 and *@out, or -1 when the load raised SIGBUS. */
static inline int np_load(const unsigned char *p, unsigned char *out)
{
	struct sigaction sa = { .sa_handler = np_win_sigbus }, old;
	int ret = 0;

	sigaction(SIGBUS, &sa, &old);
	if (!sigsetjmp(np_win_jb, 1))
		*out = __atomic_load_n(p, __ATOMIC_RELAXED);	/* a real load */
	else
		ret = -1;
	sigaction(SIGBUS, &old, NULL);
	return ret;
}

/*
 * WINDOW of namespace @nsid of @ctrl (nvmeN) on a new open file: its fd or
 * -errno; retried while the controller comes back (-EAGAIN).
 */
static inline int np_window_on(const char *ctrl, unsigned int nsid,
			       struct nvme_peer_window_req *r,
			       unsigned int flags,
			       const struct nvme_peer_extent *ext,
			       unsigned int n, int file_fd, __u64 off,
			       __u64 len)
{
	int fd, i;

	for (i = 0; i < 100; i++) {
		fd = np_open();
		if (fd < 0)
			return -errno;
		memset(r, 0, sizeof(*r));
		r->size = sizeof(*r);
		r->flags = flags;
		r->ctrl = strtoul(ctrl + 4, NULL, 10);		/* nvmeN */
		r->nsid = nsid;
		r->nr_extents = n;
		r->extents = (uintptr_t)ext;
		r->file_fd = file_fd;
		r->file_off = off;
		r->file_len = len;
		if (!ioctl(fd, NVME_PEER_IOC_WINDOW, r))
			return fd;
		close(fd);
		if (errno != EAGAIN)
			return -errno;
		usleep(100000);
	}
	return -EAGAIN;
}

#endif /* NP_WINDOW_H */
