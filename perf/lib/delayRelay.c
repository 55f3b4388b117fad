// A userspace delay relay for `npm run bench` (this kernel has no netem, and the bench sends
// nothing beyond loopback): it accepts TCP connections on LISTEN and, for each, opens one to
// TARGET, then holds every byte DELAY_US microseconds in each direction before passing it on, so
// a round trip through it takes twice that. Each direction queues at most CAP bytes: past that it
// stops reading and TCP's own flow control pushes back on the sender (bounded memory, no loss).
// End of stream is delayed like data. One thread, poll(); compiled by perf/lib/delayRelay.mjs.
//
// Optionally a link rate per direction (bytes/s; 0 or absent: none, bytes leave as soon as their
// delay is up). A real path across a sea has a capacity, loopback has none: without one, a copy at
// 0 ms is bound by this host's CPU, not by any path, and "its rate at 0 ms" says nothing of what a
// path carries. With a rate, each direction is one link that every connection through the relay
// shares (as the connections of one path do: a client that opens more of them gets no more
// capacity), and it serialises bytes in the order they are read: a chunk read at `now` leaves the
// link at max(now, the previous chunk's departure) + len / rate, then is held the fixed delay. The
// queue behind the link counts towards CAP, so a sender faster than the rate fills it and is then
// pushed back by TCP (nothing is dropped).
//
// usage: delayRelay LISTEN_ADDR LISTEN_PORT TARGET_ADDR TARGET_PORT DELAY_US CAP_BYTES [RATE_UP [RATE_DOWN]]
// RATE_UP: bytes/s from the listening side to the target; RATE_DOWN the other way (default: RATE_UP).
// prints "listening PORT" once it accepts connections.
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAX_PAIRS 128
#define READ_SIZE (256 * 1024)

struct chunk {
  struct chunk *next;
  uint64_t due;
  size_t len, off; // len 0: end of stream
  char data[];
};

// One direction of the path, shared by every connection through the relay.
struct link {
  uint64_t rate;    // bytes/s, 0: no link rate
  uint64_t free_at; // when the link has sent what it was given so far (ns)
};

struct dir {
  int from, to;
  struct chunk *head, *tail;
  size_t queued;
  int eof_read;
  struct link *link;
};

struct pair {
  int used;
  struct dir d[2];
};

static struct pair pairs[MAX_PAIRS];
static uint64_t delay_ns;
static size_t cap;
static struct link up, down;
static struct sockaddr_in target;
static char buf[READ_SIZE];

static uint64_t now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

static void nonblock(int fd) {
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

static void close_pair(struct pair *p) {
  for (int i = 0; i < 2; i++) {
    struct chunk *c = p->d[i].head;
    while (c) {
      struct chunk *n = c->next;
      free(c);
      c = n;
    }
  }
  close(p->d[0].from);
  close(p->d[0].to);
  memset(p, 0, sizeof *p);
}

static void enqueue(struct dir *d, const char *data, size_t len, uint64_t due) {
  struct chunk *c = malloc(sizeof *c + len);
  if (!c) abort();
  c->next = NULL;
  c->due = due;
  c->len = len;
  c->off = 0;
  if (len) memcpy(c->data, data, len);
  if (d->tail) d->tail->next = c;
  else d->head = c;
  d->tail = c;
  d->queued += len;
}

static void on_accept(int lfd) {
  int c = accept(lfd, NULL, NULL);
  if (c < 0) return;
  int t = socket(AF_INET, SOCK_STREAM, 0);
  if (t < 0 || connect(t, (struct sockaddr *)&target, sizeof target) < 0) {
    close(c);
    if (t >= 0) close(t);
    return;
  }
  for (int i = 0; i < MAX_PAIRS; i++) {
    if (pairs[i].used) continue;
    nonblock(c);
    nonblock(t);
    pairs[i].used = 1;
    pairs[i].d[0] = (struct dir){.from = c, .to = t, .link = &up};
    pairs[i].d[1] = (struct dir){.from = t, .to = c, .link = &down};
    return;
  }
  close(c);
  close(t);
}

// When `len` bytes read now reach the far side: once the link has sent them (at its rate, after
// what it was given before), plus the delay. End of stream (len 0) follows the last byte.
static uint64_t due_for(struct dir *d, size_t len) {
  uint64_t now = now_ns();
  struct link *l = d->link;
  if (!l->rate) return now + delay_ns;
  uint64_t start = l->free_at > now ? l->free_at : now;
  l->free_at = start + (uint64_t)len * 1000000000ull / l->rate;
  return l->free_at + delay_ns;
}

// Reads what is there (up to the cap); returns -1 when the pair is broken.
static int on_readable(struct dir *d) {
  while (d->queued < cap) {
    ssize_t n = read(d->from, buf, sizeof buf);
    if (n > 0) {
      enqueue(d, buf, (size_t)n, due_for(d, (size_t)n));
      continue;
    }
    if (n == 0) {
      d->eof_read = 1;
      enqueue(d, NULL, 0, due_for(d, 0));
      return 0;
    }
    if (errno == EAGAIN || errno == EINTR) return 0;
    return -1;
  }
  return 0;
}

// Writes every chunk that is due; returns -1 when the pair is broken.
static int on_writable(struct dir *d, uint64_t now) {
  while (d->head && d->head->due <= now) {
    struct chunk *c = d->head;
    if (c->len == 0) {
      shutdown(d->to, SHUT_WR);
    } else {
      ssize_t n = write(d->to, c->data + c->off, c->len - c->off);
      if (n < 0) return (errno == EAGAIN || errno == EINTR) ? 0 : -1;
      c->off += (size_t)n;
      d->queued -= (size_t)n;
      if (c->off < c->len) return 0;
    }
    d->head = c->next;
    if (!d->head) d->tail = NULL;
    free(c);
  }
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 7 || argc > 9) {
    fprintf(stderr, "usage: %s LISTEN_ADDR LISTEN_PORT TARGET_ADDR TARGET_PORT DELAY_US CAP_BYTES [RATE_UP [RATE_DOWN]]\n", argv[0]);
    return 2;
  }
  signal(SIGPIPE, SIG_IGN);
  // Chunks come from the heap, not a fresh mmap each (glibc maps blocks over 128 KiB by default,
  // and faulting in new pages for every read cost more than the copy itself).
  mallopt(M_MMAP_THRESHOLD, 64 * 1024 * 1024);
  mallopt(M_TRIM_THRESHOLD, 256 * 1024 * 1024);
  delay_ns = strtoull(argv[5], NULL, 10) * 1000ull;
  cap = strtoull(argv[6], NULL, 10);
  up.rate = argc > 7 ? strtoull(argv[7], NULL, 10) : 0;
  down.rate = argc > 8 ? strtoull(argv[8], NULL, 10) : up.rate;
  target.sin_family = AF_INET;
  target.sin_port = htons((uint16_t)atoi(argv[4]));
  inet_pton(AF_INET, argv[3], &target.sin_addr);

  int lfd = socket(AF_INET, SOCK_STREAM, 0);
  int one = 1;
  setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  struct sockaddr_in la = {.sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(argv[2]))};
  inet_pton(AF_INET, argv[1], &la.sin_addr);
  if (bind(lfd, (struct sockaddr *)&la, sizeof la) < 0 || listen(lfd, 64) < 0) {
    perror("listen");
    return 1;
  }
  socklen_t sl = sizeof la;
  getsockname(lfd, (struct sockaddr *)&la, &sl);
  printf("listening %d\n", ntohs(la.sin_port));
  fflush(stdout);

  struct pollfd fds[1 + MAX_PAIRS * 4];
  struct {
    int pair, dir, write;
  } what[1 + MAX_PAIRS * 4];
  for (;;) {
    uint64_t now = now_ns();
    int64_t wait = -1;
    int n = 0;
    fds[n++] = (struct pollfd){.fd = lfd, .events = POLLIN};
    for (int i = 0; i < MAX_PAIRS; i++) {
      if (!pairs[i].used) continue;
      for (int k = 0; k < 2; k++) {
        struct dir *d = &pairs[i].d[k];
        if (!d->eof_read && d->queued < cap) {
          what[n].pair = i, what[n].dir = k, what[n].write = 0;
          fds[n++] = (struct pollfd){.fd = d->from, .events = POLLIN};
        }
        if (d->head) {
          if (d->head->due <= now) {
            what[n].pair = i, what[n].dir = k, what[n].write = 1;
            fds[n++] = (struct pollfd){.fd = d->to, .events = POLLOUT};
          } else {
            int64_t w = (int64_t)(d->head->due - now);
            if (wait < 0 || w < wait) wait = w;
          }
        }
      }
    }
    struct timespec ts = {.tv_sec = wait / 1000000000, .tv_nsec = wait % 1000000000};
    if (ppoll(fds, (nfds_t)n, wait < 0 ? NULL : &ts, NULL) < 0 && errno != EINTR) {
      perror("ppoll");
      return 1;
    }
    if (fds[0].revents & POLLIN) on_accept(lfd);
    now = now_ns();
    for (int j = 1; j < n; j++) {
      if (!fds[j].revents) continue;
      struct pair *p = &pairs[what[j].pair];
      if (!p->used) continue;
      struct dir *d = &p->d[what[j].dir];
      int r = what[j].write ? on_writable(d, now) : on_readable(d);
      if (r < 0) close_pair(p);
    }
    // A pair whose both directions have ended and drained is done.
    for (int i = 0; i < MAX_PAIRS; i++) {
      struct pair *p = &pairs[i];
      if (p->used && p->d[0].eof_read && p->d[1].eof_read && !p->d[0].head && !p->d[1].head) close_pair(p);
    }
  }
}
