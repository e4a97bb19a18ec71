/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A process driving a reservation it holds through /dev/nvme-peer: map its
 * queues, doorbells and data buffer, and run commands through the
 * device-side queue library.  Include after <linux/nvme_peer.h>,
 * "np_util.h" and "nvme-peer/nvme_peer_queue.h".
 */
#ifndef NP_QUEUE_H
#define NP_QUEUE_H

#include <sys/mman.h>

struct np_map {
	struct nvme_peer_info info;
	void *sq, *cq, *db, *data;
	struct npq q;
};

static inline int np_map_all(int fd, struct np_map *m, int map_db)
{
	if (np_query(fd, &m->info))
		return -1;
	m->sq = mmap(NULL, m->info.sq_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		     fd, m->info.sq_off);
	m->cq = mmap(NULL, m->info.cq_size, PROT_READ, MAP_SHARED, fd,
		     m->info.cq_off);
	/* a data buffer in a dma-buf is the dma-buf's to map: left NULL */
	m->data = m->info.data_placement == NVME_PEER_PLACE_DMABUF ? NULL :
		  mmap(NULL, m->info.data_size, PROT_READ | PROT_WRITE,
		       MAP_SHARED, fd, m->info.data_off);
	m->db = map_db ? mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED,
			      fd, m->info.db_off) : NULL;
	if (m->sq == MAP_FAILED || m->cq == MAP_FAILED ||
	    m->data == MAP_FAILED || m->db == MAP_FAILED)
		return -1;
	npq_init(&m->q, m->sq, m->cq,
		 m->db ? (char *)m->db + m->info.sq_db_in_page : NULL,
		 m->db ? (char *)m->db + m->info.cq_db_in_page : NULL,
		 m->info.depth, m->info.qid);
	return 0;
}

/* Mappings hold the file: unmap before a close is to release anything. */
static inline void np_unmap_all(struct np_map *m)
{
	munmap(m->sq, m->info.sq_size);
	munmap(m->cq, m->info.cq_size);
	if (m->data)
		munmap(m->data, m->info.data_size);
	if (m->db)
		munmap(m->db, 4096);
}

/*
 * Submit @e as it is through the library; ring by mmap or by ioctl; wait
 * up to @ms for its completion.
 * Return: its status, -ETIMEDOUT or -errno.
 */
static inline int np_cmd_sqe(int fd, struct np_map *m, struct npq_sqe *e,
			     int ms)
{
	struct nvme_peer_ring ring = { .size = sizeof(ring) };
	struct npq_cqe c;
	int i;

	if (npq_enqueue(&m->q, e) < 0)
		return -ENOSPC;
	if (m->db) {
		npq_ring_sq(&m->q);
	} else {
		ring.flags = NVME_PEER_RING_SQ;
		ring.sq_tail = m->q.sq_tail;
		if (ioctl(fd, NVME_PEER_IOC_RING, &ring))
			return -errno;
	}
	for (i = 0; i < ms * 20 && !npq_poll(&m->q, &c); i++)
		usleep(50);
	if (i == ms * 20)
		return -ETIMEDOUT;
	if (m->db) {
		npq_ring_cq(&m->q);
	} else {
		ring.flags = NVME_PEER_RING_CQ;
		ring.cq_head = m->q.cq_head;
		if (ioctl(fd, NVME_PEER_IOC_RING, &ring))
			return -errno;
	}
	return npq_cqe_status(&c);
}

/*
 * One command of @nlb 512-byte LBAs (at most 8 KiB: PRP1 and PRP2 at the
 * data buffer's first two pages) on namespace @nsid: np_cmd_sqe().
 */
static inline int np_cmd_ns(int fd, struct np_map *m, int opc, __u32 nsid,
			    __u64 slba, int nlb, int ms)
{
	struct npq_sqe e;

	npq_sqe_rw(&e, opc, nsid, slba, nlb, m->info.data_ctrl_addr,
		   nlb * 512 > 4096 ? m->info.data_ctrl_addr + 4096 : 0);
	return np_cmd_sqe(fd, m, &e, ms);
}

/* The same on namespace 1, waiting up to 5 s. */
static inline int np_cmd(int fd, struct np_map *m, int opc, __u64 slba, int nlb)
{
	return np_cmd_ns(fd, m, opc, 1, slba, nlb, 5000);
}

#endif /* NP_QUEUE_H */
