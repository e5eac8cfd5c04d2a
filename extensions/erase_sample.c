/*
 * extensions/erase_sample.c - erase the name (task_struct.comm) of every
 * thread of the crashed kernel, with 'X': the tasks from init_task.tasks,
 * each task's threads from its signal_struct.thread_head list (linked
 * through task_struct.thread_node).
 *
 *   cc -shared -fPIC -o erase_sample.so erase_sample.c
 *   makedumpfile --extension erase_sample.so -l -d 31 VMCORE DUMPFILE
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <makedumpfile/extension.h>

/* no kernel has this many threads: a list that goes on is damaged */
#define MAX_WALK (1u << 22)

struct offs {
	uint64_t tasks, thread_node, signal, thread_head, comm, comm_size;
};

/* a pointer of the dump, in its byte order */
static int read_ptr(const struct mdf_ext_host *h, uint64_t va, uint64_t *ret)
{
	unsigned char b[8];

	if (h->read(h->ctx, va, b, sizeof(b)) != 0)
		return -1;
	*ret = 0;
	for (int i = 0; i < 8; i++)
		*ret |= (uint64_t)b[i] << (h->big_endian ? 8 * (7 - i) : 8 * i);
	return 0;
}

static int lookup(const struct mdf_ext_host *h, struct offs *o)
{
	return h->member(h->ctx, "task_struct", "tasks", &o->tasks, NULL) ||
	       h->member(h->ctx, "task_struct", "thread_node", &o->thread_node, NULL) ||
	       h->member(h->ctx, "task_struct", "signal", &o->signal, NULL) ||
	       h->member(h->ctx, "signal_struct", "thread_head", &o->thread_head, NULL) ||
	       h->member(h->ctx, "task_struct", "comm", &o->comm, &o->comm_size);
}

static int init(const struct mdf_ext_host *h, void **state)
{
	uint64_t init_task, head, t, threads = 0, tasks = 0;
	struct offs o;
	char line[160];

	(void)state;
	if (h->symbol(h->ctx, "init_task", &init_task) != 0 || lookup(h, &o) != 0) {
		h->message(h->ctx, "no init_task, or task_struct lacks tasks, thread_node, "
			   "signal or comm: nothing erased");
		return -1;
	}
	head = init_task + o.tasks;
	t = head;
	do {
		uint64_t task = t - o.tasks, signal, thead, th;
		unsigned n = 0;

		if (read_ptr(h, task + o.signal, &signal) != 0 || signal == 0)
			goto bad;
		thead = signal + o.thread_head;
		if (read_ptr(h, thead, &th) != 0)
			goto bad;
		while (th != thead) {
			if (++n > MAX_WALK ||
			    h->erase(h->ctx, th - o.thread_node + o.comm, o.comm_size, 'X') != 0)
				goto bad;
			threads++;
			if (read_ptr(h, th, &th) != 0)
				goto bad;
		}
		tasks++;
		if (tasks > MAX_WALK || read_ptr(h, t, &t) != 0)
			goto bad;
	} while (t != head);
	snprintf(line, sizeof(line), "erased the names of %" PRIu64 " threads of %" PRIu64
		 " tasks", threads, tasks);
	h->message(h->ctx, line);
	return 0;
bad:
	snprintf(line, sizeof(line), "the task list broke off after %" PRIu64 " threads of %"
		 PRIu64 " tasks: erase failed", threads, tasks);
	h->message(h->ctx, line);
	return -1;
}

const struct mdf_extension mdf_extension = {
	.abi = MDF_EXTENSION_ABI,
	.name = "erase_sample",
	.init = init,
};
