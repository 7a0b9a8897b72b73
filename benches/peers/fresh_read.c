// What bringing a file's bytes into a fresh process costs, by method: each run is one new
// process that times one method once, so the memory it reads into has never been touched.
// Shows where a one-shot `mdview info` spends its time outside decoding (README, the
// benchmarks paragraph).
//
// Build and run from the repository root (alternates the methods, prints each one's
// minimum and all its times):
//   gcc -O2 benches/peers/fresh_read.c -o /tmp/fresh_read
//   for i in $(seq 10); do for m in read memsetread populate mmap; do
//     /tmp/fresh_read $m ../shared/corpus/md2/hunter/tris.md2; done; done |
//     awk '{if(!($1 in m)||$2<m[$1])m[$1]=$2; s[$1]=s[$1]" "$2} END{for(k in m) print k, "min", m[k], "|", s[k]}'
//
// Methods (each then reads one byte per page, as a decoder would touch them):
//   read        malloc + read(): the kernel faults the fresh pages in during the copy
//   memsetread  malloc + zero-fill + read(): what `vfs::read_shared` does
//   populate    anonymous mmap with MAP_POPULATE (pages faulted in one call) + read()
//   mmap        a private read-only mapping of the file: page-cache pages, no copy
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static double now_us(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: %s read|memsetread|populate|mmap FILE\n", argv[0]);
        return 2;
    }
    const char *method = argv[1];
    int fd = open(argv[2], O_RDONLY);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || st.st_size <= 0) {
        perror(argv[2]);
        return 1;
    }
    size_t n = (size_t)st.st_size;
    volatile unsigned sum = 0;
    char *bytes = NULL;
    double started = now_us();
    if (!strcmp(method, "read") || !strcmp(method, "memsetread")) {
        bytes = malloc(n);
        if (!bytes) return 1;
        if (!strcmp(method, "memsetread")) memset(bytes, 0, n);
        if (read(fd, bytes, n) != (ssize_t)n) return 1;
    } else if (!strcmp(method, "populate")) {
        bytes = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
        if (bytes == MAP_FAILED || read(fd, bytes, n) != (ssize_t)n) return 1;
    } else if (!strcmp(method, "mmap")) {
        bytes = mmap(NULL, n, PROT_READ, MAP_PRIVATE, fd, 0);
        if (bytes == MAP_FAILED) return 1;
    } else {
        fprintf(stderr, "unknown method %s\n", method);
        return 2;
    }
    for (size_t i = 0; i < n; i += 4096) sum += (unsigned char)bytes[i];
    printf("%s %.1f\n", method, now_us() - started);
    return 0;
}
