// qd1-liburing: 4 KiB random O_DIRECT reads at TC1/QD1 through io_uring,
// without Go, to tell the native engine's TC1/QD1 latency from the host's
// (docs/engines.md, "TC1/QD1 on the 12-04 host"). Not part of the build.
//
//	apt-get install -y liburing-dev
//	gcc -O2 -o qd1 docs/bench/qd1-liburing.c -luring
//	./qd1 /dev/loopN MODE [SECONDS]
//
// MODE bit 1: SINGLE_ISSUER | DEFER_TASKRUN (as the native engine and fio
// 3.33 set up their rings); bit 2: submit and wait in two system calls (as
// fio) instead of one. Reads the first 4 GiB of the device.
#define _GNU_SOURCE
#include <fcntl.h>
#include <liburing.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static long long now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000LL + t.tv_nsec;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: %s DEVICE MODE [SECONDS]\n", argv[0]);
		return 2;
	}
	int mode = atoi(argv[2]);
	long long secs = argc > 3 ? atoll(argv[3]) : 3;
	int fd = open(argv[1], O_RDONLY | O_DIRECT);
	if (fd < 0) {
		perror(argv[1]);
		return 1;
	}
	struct io_uring r;
	struct io_uring_params p;
	memset(&p, 0, sizeof p);
	if (mode & 1)
		p.flags = IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN;
	int e = io_uring_queue_init_params(8, &r, &p);
	if (e) {
		fprintf(stderr, "io_uring_setup: %s\n", strerror(-e));
		return 1;
	}
	void *buf;
	if (posix_memalign(&buf, 4096, 4096))
		return 1;
	struct iovec iov = {buf, 4096};
	if (io_uring_register_buffers(&r, &iov, 1) || io_uring_register_files(&r, &fd, 1)) {
		fprintf(stderr, "io_uring_register failed\n");
		return 1;
	}
	unsigned long long seed = 1;
	long long sum = 0, n = 0, end = now_ns() + secs * 1000000000LL;
	while (now_ns() < end) {
		seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
		off_t off = (off_t)((seed >> 20) % 1048576) * 4096;
		struct io_uring_sqe *s = io_uring_get_sqe(&r);
		io_uring_prep_read_fixed(s, 0, buf, 4096, off, 0);
		s->flags |= IOSQE_FIXED_FILE;
		long long t0 = now_ns();
		struct io_uring_cqe *c;
		if (mode & 2) {
			io_uring_submit(&r);
			e = io_uring_wait_cqe(&r, &c);
		} else {
			e = io_uring_submit_and_wait(&r, 1);
			if (e >= 0)
				e = io_uring_peek_cqe(&r, &c);
		}
		if (e < 0 || c->res != 4096) {
			fprintf(stderr, "read at %lld: %s\n", (long long)off, strerror(e < 0 ? -e : -c->res));
			return 1;
		}
		io_uring_cqe_seen(&r, c);
		sum += now_ns() - t0;
		n++;
	}
	printf("mode %d: %lld IOPS, mean %.1f us\n", mode, n / secs, (double)sum / n / 1000);
	return 0;
}
