// SPDX-License-Identifier: GPL-2.0
/*
 * np-accel: the emulated accelerator of nvme-peer's test bed.
 *
 * Binds QEMU's "edu" device (1234:11e8), used as a DMA engine that a test
 * points at bus addresses, and "ivshmem-plain" (1af4:1110), whose RAM-backed
 * BAR2 it registers as P2PDMA memory so queues can be placed in a peer's BAR.
 *
 * debugfs (np-accel/):
 *   distance   read: pci_p2pdma_distance() from the first NVMe controller
 *              with P2PDMA memory to the edu device (negative: refused)
 *   p2p_smoke  read: DMA a pattern host -> edu -> NVMe CMB with the edu
 *              engine and compare it through the kernel's CMB mapping;
 *              prints "ok bytes=N bus=ADDR", fails with an errno otherwise
 *   dma        write "SRC DST LEN": copy LEN (< 4096) bytes from bus address
 *              SRC to bus address DST through the edu buffer, as a device
 *              would
 *
 * np_accel_write() lets np-client have the edu device, not the CPU, write
 * SQEs and ring doorbells.
 */
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/dma-mapping.h>
#include <linux/iopoll.h>
#include <linux/module.h>
#include <linux/pci.h>
#include <linux/pci-p2pdma.h>
#include <linux/scatterlist.h>

#include "np-accel.h"

#define EDU_DMA_SRC	0x80
#define EDU_DMA_DST	0x88
#define EDU_DMA_CNT	0x90
#define EDU_DMA_CMD	0x98
#define EDU_CMD_START	BIT(0)
#define EDU_CMD_TO_BUS	BIT(1)
#define EDU_BUF		0x40000
#define EDU_BUF_MAX	4095	/* QEMU's edu rejects a full 4096-byte DMA */

static struct pci_dev *edu_pdev;
static void __iomem *edu_bar;
static DEFINE_MUTEX(edu_lock);
static struct dentry *np_dir;

static int edu_dma_one(u64 src, u64 dst, u32 len, bool to_bus)
{
	u64 cmd;

	lockdep_assert_held(&edu_lock);
	writeq(src, edu_bar + EDU_DMA_SRC);
	writeq(dst, edu_bar + EDU_DMA_DST);
	writeq(len, edu_bar + EDU_DMA_CNT);
	writeq(EDU_CMD_START | (to_bus ? EDU_CMD_TO_BUS : 0),
	       edu_bar + EDU_DMA_CMD);
	/* QEMU completes an edu DMA from a ~100 ms timer */
	return readq_poll_timeout(edu_bar + EDU_DMA_CMD, cmd,
				  !(cmd & EDU_CMD_START), 1000, 5000000);
}

/* Copy @len bytes between two bus addresses, as the device itself would. */
static int edu_copy(u64 src, u64 dst, u32 len)
{
	int ret;

	if (!edu_bar)
		return -ENODEV;
	if (!len || len > EDU_BUF_MAX)
		return -EINVAL;
	mutex_lock(&edu_lock);
	ret = edu_dma_one(src, EDU_BUF, len, false);
	if (!ret)
		ret = edu_dma_one(EDU_BUF, dst, len, true);
	mutex_unlock(&edu_lock);
	return ret;
}

/**
 * np_accel_write() - have the edu device write bytes to a bus address
 * @dst: bus address as the edu device sees it
 * @src: the bytes
 * @len: 1 to 4095
 *
 * Return: 0, -ENODEV without an edu device, -EINVAL, -ENOMEM, or
 * -ETIMEDOUT when the DMA did not complete.
 */
int np_accel_write(u64 dst, const void *src, u32 len)
{
	dma_addr_t dma;
	void *buf;
	int ret;

	if (!edu_pdev)
		return -ENODEV;
	buf = dma_alloc_coherent(&edu_pdev->dev, PAGE_SIZE, &dma, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	memcpy(buf, src, min_t(u32, len, PAGE_SIZE));
	ret = edu_copy(dma, dst, len);
	dma_free_coherent(&edu_pdev->dev, PAGE_SIZE, buf, dma);
	return ret;
}
EXPORT_SYMBOL_GPL(np_accel_write);

static struct pci_dev *np_find_nvme_p2pmem(void)
{
	struct pci_dev *pdev = NULL;

	while ((pdev = pci_get_class(PCI_CLASS_STORAGE_EXPRESS, pdev)))
		if (pci_has_p2pmem(pdev))
			return pdev;
	return NULL;
}

static int distance_show(struct seq_file *m, void *v)
{
	struct pci_dev *nvme = np_find_nvme_p2pmem();

	if (!nvme || !edu_pdev) {
		pci_dev_put(nvme);
		return -ENODEV;
	}
	seq_printf(m, "%d\n", pci_p2pdma_distance(nvme, &edu_pdev->dev, true));
	pci_dev_put(nvme);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(distance);

static int p2p_smoke_show(struct seq_file *m, void *v)
{
	const u32 len = EDU_BUF_MAX;
	struct pci_dev *nvme = np_find_nvme_p2pmem();
	struct sg_table sgt;
	dma_addr_t host_dma;
	u8 *host, *cmb;
	int ret, i;

	if (!nvme || !edu_pdev) {
		ret = -ENODEV;
		goto out_put;
	}
	ret = -ENOMEM;
	host = dma_alloc_coherent(&edu_pdev->dev, PAGE_SIZE, &host_dma,
				  GFP_KERNEL);
	if (!host)
		goto out_put;
	cmb = pci_alloc_p2pmem(nvme, PAGE_SIZE);
	if (!cmb)
		goto out_free_host;
	memset(cmb, 0, PAGE_SIZE);
	for (i = 0; i < len; i++)
		host[i] = i * 7 + 3;

	ret = sg_alloc_table(&sgt, 1, GFP_KERNEL);
	if (ret)
		goto out_free_cmb;
	sg_set_page(sgt.sgl, virt_to_page(cmb), PAGE_SIZE, 0);
	ret = dma_map_sgtable(&edu_pdev->dev, &sgt, DMA_BIDIRECTIONAL, 0);
	if (ret)
		goto out_free_sgt;

	ret = edu_copy(host_dma, sg_dma_address(sgt.sgl), len);
	if (!ret && memcmp(host, cmb, len))
		ret = -EIO;
	if (!ret && cmb[len])
		ret = -EOVERFLOW;
	if (!ret)
		seq_printf(m, "ok bytes=%u bus=%#llx\n", len,
			   (u64)sg_dma_address(sgt.sgl));

	dma_unmap_sgtable(&edu_pdev->dev, &sgt, DMA_BIDIRECTIONAL, 0);
out_free_sgt:
	sg_free_table(&sgt);
out_free_cmb:
	pci_free_p2pmem(nvme, cmb, PAGE_SIZE);
out_free_host:
	dma_free_coherent(&edu_pdev->dev, PAGE_SIZE, host, host_dma);
out_put:
	pci_dev_put(nvme);
	return ret;
}
DEFINE_SHOW_ATTRIBUTE(p2p_smoke);

static ssize_t dma_write(struct file *file, const char __user *ubuf,
			 size_t count, loff_t *ppos)
{
	char buf[80];
	u64 src, dst;
	u32 len;
	int ret;

	if (count >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';
	if (sscanf(buf, "%llx %llx %u", &src, &dst, &len) != 3)
		return -EINVAL;
	ret = edu_copy(src, dst, len);
	return ret ? ret : count;
}

static const struct file_operations dma_fops = {
	.owner = THIS_MODULE,
	.write = dma_write,
	.llseek = noop_llseek,
};

static int edu_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	int ret;

	if (edu_pdev)
		return -EBUSY;
	ret = pcim_enable_device(pdev);
	if (ret)
		return ret;
	ret = dma_set_mask_and_coherent(&pdev->dev, DMA_BIT_MASK(64));
	if (ret)
		return ret;
	pci_set_master(pdev);
	edu_bar = pcim_iomap(pdev, 0, 0);
	if (!edu_bar)
		return -ENOMEM;
	edu_pdev = pdev;
	return 0;
}

static void edu_remove(struct pci_dev *pdev)
{
	mutex_lock(&edu_lock);
	edu_pdev = NULL;
	edu_bar = NULL;
	mutex_unlock(&edu_lock);
}

static int ivshmem_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	int ret;

	ret = pcim_enable_device(pdev);
	if (ret)
		return ret;
	pci_set_master(pdev);
	ret = pci_p2pdma_add_resource(pdev, 2, 0, 0);
	if (ret)
		return ret;
	pci_p2pmem_publish(pdev, true);
	return 0;
}

static const struct pci_device_id np_accel_ids[] = {
	{ PCI_DEVICE(0x1234, 0x11e8) },		/* edu */
	{ PCI_DEVICE(0x1af4, 0x1110) },		/* ivshmem */
	{ }
};
MODULE_DEVICE_TABLE(pci, np_accel_ids);

static int np_accel_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	return pdev->vendor == 0x1234 ? edu_probe(pdev, id) :
					ivshmem_probe(pdev, id);
}

static void np_accel_remove(struct pci_dev *pdev)
{
	if (pdev == edu_pdev)
		edu_remove(pdev);
}

static struct pci_driver np_accel_driver = {
	.name = "np-accel",
	.id_table = np_accel_ids,
	.probe = np_accel_probe,
	.remove = np_accel_remove,
};

static int __init np_accel_init(void)
{
	int ret = pci_register_driver(&np_accel_driver);

	if (ret)
		return ret;
	np_dir = debugfs_create_dir("np-accel", NULL);
	debugfs_create_file("distance", 0400, np_dir, NULL, &distance_fops);
	debugfs_create_file("p2p_smoke", 0400, np_dir, NULL, &p2p_smoke_fops);
	debugfs_create_file("dma", 0200, np_dir, NULL, &dma_fops);
	return 0;
}

static void __exit np_accel_exit(void)
{
	debugfs_remove_recursive(np_dir);
	pci_unregister_driver(&np_accel_driver);
}

module_init(np_accel_init);
module_exit(np_accel_exit);
MODULE_DESCRIPTION("nvme-peer test accelerator (QEMU edu + ivshmem)");
MODULE_LICENSE("GPL");
