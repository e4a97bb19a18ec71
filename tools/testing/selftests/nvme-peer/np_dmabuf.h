/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reservations with a dma-buf region, driven by the test process: np-accel
 * exports (the "GPU memory"), RESERVE with a dma-buf data buffer, mapped
 * queues, one command at a time.  Include after <linux/nvme_peer.h>,
 * "np_util.h" and "nvme-peer/nvme_peer_queue.h".
 */
#ifndef NP_DMABUF_H
#define NP_DMABUF_H

#include <sys/mman.h>

#define NP_DATA		(64 * 1024)

/* A new np-accel dma-buf of @size bytes (its fd), or -errno. */
static inline int np_accel_dmabuf(size_t size)
{
	char buf[32];

	if (np_write(NP_DBG_ACCEL "/dmabuf_size", "%zu", size))
		return -ENODEV;
	if (np_read(NP_DBG_ACCEL "/dmabuf", buf, sizeof(buf)))
		return -errno ? -errno : -EIO;
	return atoi(buf);
}

/* A new np-accel dma-buf of 2 * NP_DATA bytes, mapped; 0 or -1. */
static inline int np_accel_open(int *buf, unsigned char **mem, size_t *size)
{
	*size = 2 * NP_DATA;
	*mem = MAP_FAILED;
	*buf = np_accel_dmabuf(*size);
	if (*buf < 0)
		return -1;
	*mem = mmap(NULL, *size, PROT_READ | PROT_WRITE, MAP_SHARED, *buf, 0);
	return *mem == MAP_FAILED ? -1 : 0;
}

static inline void np_accel_close(int buf, unsigned char *mem, size_t size)
{
	if (mem && mem != MAP_FAILED)
		munmap(mem, size);
	if (buf > 0)
		close(buf);
}

static inline void np_rsv_init(struct nvme_peer_reserve *r, int mode)
{
	memset(r, 0, sizeof(*r));
	r->size = sizeof(*r);
	/* not instance 0: two-ctrl's controllers probe in either order */
	r->ctrl = strtoul(np_ctrl() + 4, NULL, 10);	/* nvmeN */
	r->nsid = 1;
	r->depth = 64;
	r->sq_placement = NVME_PEER_PLACE_HOST;
	r->cq_placement = NVME_PEER_PLACE_HOST;
	r->data_placement = NVME_PEER_PLACE_DMABUF;
	r->data_size = NP_DATA;
	r->mode = mode;
	if (mode == NVME_PEER_MODE_MEDIATED)
		r->opcodes = NVME_PEER_OPCODE_READ | NVME_PEER_OPCODE_WRITE;
}

/* RESERVE on a new file: the file, or -errno. */
static inline int np_rsv(struct nvme_peer_reserve *r)
{
	int fd = open("/dev/nvme-peer", O_RDWR | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	if (ioctl(fd, NVME_PEER_IOC_RESERVE, r)) {
		int e = -errno;

		close(fd);
		return e;
	}
	return fd;
}

/* A reservation's queues, mapped; the CQ from @cq_buf if it is there. */
struct np_q {
	int fd;
	struct nvme_peer_info info;
	void *sq, *cq, *db, *cq_map;
	size_t cq_len;
	struct npq q;
};

static inline int np_q_map(struct np_q *q, int fd, int cq_buf, __u64 cq_off)
{
	q->fd = fd;
	if (np_query(fd, &q->info))
		return -1;
	q->sq = mmap(NULL, q->info.sq_size, PROT_READ | PROT_WRITE,
		     MAP_SHARED, fd, q->info.sq_off);
	q->cq_map = cq_buf < 0 ?
		mmap(NULL, q->info.cq_size, PROT_READ, MAP_SHARED, fd,
		     q->info.cq_off) :
		mmap(NULL, cq_off + 4096, PROT_READ, MAP_SHARED, cq_buf, 0);
	q->cq = (char *)q->cq_map + (cq_buf < 0 ? 0 : cq_off);
	q->cq_len = cq_buf < 0 ? q->info.cq_size : cq_off + 4096;
	q->db = mmap(NULL, q->info.db_size, PROT_READ | PROT_WRITE,
		     MAP_SHARED, fd, q->info.db_off);
	if (q->sq == MAP_FAILED || q->cq_map == MAP_FAILED ||
	    q->db == MAP_FAILED)
		return -1;
	npq_init(&q->q, q->sq, q->cq, (char *)q->db + q->info.sq_db_in_page,
		 (char *)q->db + q->info.cq_db_in_page, q->info.depth,
		 q->info.qid);
	return 0;
}

/* Mappings hold the file: unmap before a close is to release anything. */
static inline void np_q_close(struct np_q *q)
{
	munmap(q->sq, q->info.sq_size);
	munmap(q->cq_map, q->cq_len);
	munmap(q->db, q->info.db_size);
	close(q->fd);
}

/* Submit one read/write of @nlb 512-byte LBAs at data offset @off. */
static inline int np_q_cmd(struct np_q *q, int opc, __u64 slba, int nlb, __u64 off)
{
	__u64 a = q->info.data_ctrl_addr + off;
	struct npq_sqe e;
	struct npq_cqe c;
	int i;

	npq_sqe_rw(&e, opc, 1, slba, nlb, a, nlb * 512 > 4096 ? a + 4096 : 0);
	if (npq_enqueue(&q->q, &e) < 0)
		return -ENOSPC;
	npq_ring_sq(&q->q);
	for (i = 0; i < 20000 && !npq_poll(&q->q, &c); i++)
		usleep(50);
	if (i == 20000)
		return -ETIMEDOUT;
	npq_ring_cq(&q->q);
	return npq_cqe_status(&c);
}

static inline long long np_q_stat(struct np_q *q, const char *name)
{
	char path[128], buf[512], *p;

	snprintf(path, sizeof(path), "%s/q%u/stats", np_peer(), q->info.qid);
	if (np_read(path, buf, sizeof(buf)))
		return -1;
	p = strstr(buf, name);
	return p ? atoll(p + strlen(name) + 1) : -1;
}

static inline const char *np_q_attr(struct np_q *q, const char *name)
{
	static char buf[64];
	char path[128];

	snprintf(path, sizeof(path), "%s/q%u/%s", np_peer(), q->info.qid, name);
	if (np_read(path, buf, sizeof(buf)))
		return "";
	return buf;
}

#endif /* NP_DMABUF_H */
