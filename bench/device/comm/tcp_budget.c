// TCP budget of one thread: how many bytes/s one single-threaded process moves
// through the kernel's TCP path when it only sends, only receives, or sends and receives at once (as
// NCCL's proxy thread does for a rank's Socket traffic: ncclNetSocket with nThreads = 0 progresses
// every send and receive from the proxy thread with non-blocking send()/recv()), and what a host
// moves with several such pairs at once.
//
//   gcc -O2 -o tcp_budget bench/device/comm/tcp_budget.c
//   ./tcp_budget MODE PAIRS CHUNK_BYTES SECONDS ADDR [spin|block]
//     MODE   oneway  : per pair, process A only sends to B, B only receives (one connection)
//            bothway : per pair, two connections A->B and B->A; each process sends on one and receives
//                      on the other from its single thread
//     PAIRS  process pairs running at once (2 x PAIRS processes)
//     CHUNK_BYTES  bytes per send()/recv() call (the buffer size handed to the kernel)
//     SECONDS      measured window, after 0.5 s of warm-up
//     ADDR         IPv4 address to listen on and connect to (127.0.0.1 for lo, eth0's address for eth0)
//     spin   (default) non-blocking send/recv with MSG_DONTWAIT in a busy loop, alternating between
//            the two sockets in bothway (NCCL's ncclSocketProgress pattern)
//     block  oneway only: blocking send()/recv() (what a plain socket program does)
// Prints one JSON line: per process bytes sent and received in the window, GB/s per direction, and the
// CPU seconds (user, system) the process spent, so one sees whether a thread is CPU-bound.
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

static void die(const char* what) {
  perror(what);
  exit(1);
}

static int listener(const char* addr, int* port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) die("socket");
  int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = 0};
  if (inet_pton(AF_INET, addr, &a.sin_addr) != 1) die("inet_pton");
  if (bind(fd, (struct sockaddr*)&a, sizeof a) < 0) die("bind");
  if (listen(fd, 16) < 0) die("listen");
  socklen_t len = sizeof a;
  getsockname(fd, (struct sockaddr*)&a, &len);
  *port = ntohs(a.sin_port);
  return fd;
}

static int connect_to(const char* addr, int port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) die("socket");
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port)};
  inet_pton(AF_INET, addr, &a.sin_addr);
  if (connect(fd, (struct sockaddr*)&a, sizeof a) < 0) die("connect");
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);  // as NCCL's sockets
  return fd;
}

static int accept_one(int lfd) {
  int fd = accept(lfd, NULL, NULL);
  if (fd < 0) die("accept");
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return fd;
}

// One process: sfd (or -1) to send on, rfd (or -1) to receive from. Writes its result to `out`.
static void run(int sfd, int rfd, size_t chunk, double secs, int spin, int go, int out, const char* role, int pair) {
  char* sbuf = malloc(chunk);
  char* rbuf = malloc(chunk);
  memset(sbuf, 0x5a, chunk);
  memset(rbuf, 0, chunk);
  char c;
  if (read(go, &c, 1) != 1) die("go");
  int flags = spin ? MSG_DONTWAIT : 0;
  size_t soff = 0;
  long long sent = 0, recvd = 0, sent0 = 0, recvd0 = 0;
  double t0 = now(), tw = t0 + 0.5, te = tw + secs;
  int warm = 1;
  struct rusage r0, r1;
  for (;;) {
    double t = now();
    if (warm && t >= tw) {
      warm = 0;
      sent0 = sent;
      recvd0 = recvd;
      getrusage(RUSAGE_SELF, &r0);
      tw = t;
    }
    if (t >= te) break;
    if (sfd >= 0) {
      ssize_t n = send(sfd, sbuf + soff, chunk - soff, flags | MSG_NOSIGNAL);
      if (n > 0) {
        sent += n;
        soff = (soff + n) % chunk;
      } else if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
        break;
      }
    }
    if (rfd >= 0) {
      ssize_t n = recv(rfd, rbuf, chunk, flags);
      if (n > 0) {
        recvd += n;
      } else if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
        break;
      }
    }
  }
  double tend = now();
  getrusage(RUSAGE_SELF, &r1);
  double dt = tend - tw;
  double ut = (r1.ru_utime.tv_sec - r0.ru_utime.tv_sec) + (r1.ru_utime.tv_usec - r0.ru_utime.tv_usec) * 1e-6;
  double st = (r1.ru_stime.tv_sec - r0.ru_stime.tv_sec) + (r1.ru_stime.tv_usec - r0.ru_stime.tv_usec) * 1e-6;
  char line[512];
  int len = snprintf(line, sizeof line,
                     "{\"role\": \"%s\", \"pair\": %d, \"seconds\": %.4f, \"sent_bytes\": %lld, \"recv_bytes\": %lld, "
                     "\"send_gbps\": %.4f, \"recv_gbps\": %.4f, \"user_s\": %.3f, \"sys_s\": %.3f}\n",
                     role, pair, dt, sent - sent0, recvd - recvd0, (sent - sent0) / dt / 1e9,
                     (recvd - recvd0) / dt / 1e9, ut, st);
  if (write(out, line, len) != len) die("write");  // one write below PIPE_BUF: atomic
}

int main(int argc, char** argv) {
  if (argc < 6) {
    fprintf(stderr, "usage: %s oneway|bothway PAIRS CHUNK_BYTES SECONDS ADDR [spin|block]\n", argv[0]);
    return 2;
  }
  int both = strcmp(argv[1], "bothway") == 0;
  int pairs = atoi(argv[2]);
  size_t chunk = strtoull(argv[3], NULL, 10);
  double secs = atof(argv[4]);
  const char* addr = argv[5];
  int spin = argc < 7 || strcmp(argv[6], "block") != 0;
  if (both && !spin) {
    fprintf(stderr, "bothway needs spin (one thread, two sockets)\n");
    return 2;
  }
  signal(SIGPIPE, SIG_IGN);
  int go[2], res[2];
  if (pipe(go) || pipe(res)) die("pipe");
  for (int p = 0; p < pairs; ++p) {
    int pab, pba;
    int lab = listener(addr, &pab), lba = listener(addr, &pba);
    if (fork() == 0) {  // A: connects A->B; in bothway accepts B->A
      close(go[1]);
      close(res[0]);
      int s = connect_to(addr, pab);
      int r = -1;
      if (both) r = accept_one(lba);
      if (spin) fcntl(s, F_SETFL, fcntl(s, F_GETFL) | O_NONBLOCK);
      if (r >= 0) fcntl(r, F_SETFL, fcntl(r, F_GETFL) | O_NONBLOCK);
      run(s, r, chunk, secs, spin, go[0], res[1], "A", p);
      _exit(0);
    }
    if (fork() == 0) {  // B: accepts A->B; in bothway connects B->A
      close(go[1]);
      close(res[0]);
      int r = accept_one(lab);
      int s = -1;
      if (both) s = connect_to(addr, pba);
      if (spin) fcntl(r, F_SETFL, fcntl(r, F_GETFL) | O_NONBLOCK);
      if (s >= 0) fcntl(s, F_SETFL, fcntl(s, F_GETFL) | O_NONBLOCK);
      run(s, r, chunk, secs, spin, go[0], res[1], "B", p);
      _exit(0);
    }
    close(lab);
    close(lba);
  }
  close(res[1]);
  usleep(300000);  // let every connection come up
  char gos[256];
  memset(gos, 'g', sizeof gos);
  if (write(go[1], gos, 2 * pairs) != 2 * pairs) die("go");
  // Collect the 2 x PAIRS result lines.
  static char buf[1 << 16];
  size_t used = 0;
  ssize_t n;
  while ((n = read(res[0], buf + used, sizeof buf - 1 - used)) > 0) used += n;
  buf[used] = 0;
  while (wait(NULL) > 0) {
  }
  double send_total = 0, recv_total = 0;
  printf(
      "{\"mode\": \"%s\", \"pairs\": %d, \"chunk_bytes\": %zu, \"seconds\": %.2f, \"addr\": \"%s\", \"io\": \"%s\", "
      "\"procs\": [",
      argv[1], pairs, chunk, secs, addr, spin ? "spin" : "block");
  char* save = NULL;
  int first = 1;
  for (char* l = strtok_r(buf, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
    printf("%s%s", first ? "" : ", ", l);
    first = 0;
    char* q = strstr(l, "\"send_gbps\": ");
    if (q) send_total += atof(q + 13);
    q = strstr(l, "\"recv_gbps\": ");
    if (q) recv_total += atof(q + 13);
  }
  printf("], \"host_send_gbps\": %.4f, \"host_recv_gbps\": %.4f}\n", send_total, recv_total);
  return 0;
}
