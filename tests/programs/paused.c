/* paused: three phases with exactly known allocations, for recording only the
 * middle one (tests/paused_test.cc: heaprec --start-paused, then heaprec
 * --start PID and --stop PID from outside).
 *
 * paused DIR: writes DIR/pid (its pid, then DIR/ready1), and between phases
 * waits for DIR/goN, saying DIR/readyN when it waits; every file goes through
 * open/write/close and polling through access/nanosleep, so that nothing but
 * the phases allocates.
 *   phase 1: 4 x phase1_alloc (malloc 100), 1 x phase1_grown (malloc 50)
 *   phase 2: frees the 4 phase-1 blocks; realloc(phase-1 block, 5000) at
 *            phase2_realloc; 5 x phase2_alloc (malloc 200); 2 x phase2_keep
 *            (malloc 300, never freed); 1 x phase2_realloced (malloc 700)
 *   phase 3: frees the 5 phase2_alloc blocks and the realloc'd one;
 *            realloc(phase2_realloced block, 800); 3 x phase3_alloc
 *            (malloc 400), each freed; frees the 800-byte block.
 * Prints "paused: ok". With "exec PROGRAM" after DIR, it then forks a child
 * that execs PROGRAM, waits for it, and execs PROGRAM itself. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const char* g_dir;

static void Path(char* out, const char* name) {
  strcpy(out, g_dir);
  strcat(out, "/");
  strcat(out, name);
}

static void Say(const char* name, const char* text) {
  char path[4096], tmp[4096];
  Path(path, name);
  Path(tmp, "tmp");
  int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) _exit(3);
  if (write(fd, text, strlen(text)) < 0) _exit(3);
  close(fd);
  rename(tmp, path);
}

static void WaitFor(const char* name) {
  char path[4096];
  Path(path, name);
  const struct timespec tick = {0, 2 * 1000 * 1000};
  for (int i = 0; i < 30 * 500; ++i) {
    if (access(path, F_OK) == 0) return;
    nanosleep(&tick, NULL);
  }
  _exit(4);
}

__attribute__((noinline)) static void* phase1_alloc(void) { return malloc(100); }
__attribute__((noinline)) static void* phase1_grown(void) { return malloc(50); }
__attribute__((noinline)) static void* phase2_realloc(void* p) { return realloc(p, 5000); }
__attribute__((noinline)) static void* phase2_alloc(void) { return malloc(200); }
__attribute__((noinline)) static void* phase2_keep(void) { return malloc(300); }
__attribute__((noinline)) static void* phase2_realloced(void) { return malloc(700); }
__attribute__((noinline)) static void* phase3_realloc(void* p) { return realloc(p, 800); }
__attribute__((noinline)) static void* phase3_alloc(void) { return malloc(400); }

static void* volatile g_kept[2];

int main(int argc, char** argv) {
  if (argc != 2 && !(argc == 4 && strcmp(argv[2], "exec") == 0)) return 2;
  g_dir = argv[1];
  char pid[32];
  snprintf(pid, sizeof(pid), "%d", (int)getpid());
  Say("pid", pid);

  void* one[4];
  for (int i = 0; i < 4; ++i) one[i] = phase1_alloc();
  void* grown = phase1_grown();
  Say("ready2", "");
  WaitFor("go2");

  for (int i = 0; i < 4; ++i) free(one[i]);
  grown = phase2_realloc(grown);
  void* two[5];
  for (int i = 0; i < 5; ++i) two[i] = phase2_alloc();
  for (int i = 0; i < 2; ++i) g_kept[i] = phase2_keep();
  void* moved = phase2_realloced();
  Say("ready3", "");
  WaitFor("go3");

  for (int i = 0; i < 5; ++i) free(two[i]);
  free(grown);
  moved = phase3_realloc(moved);
  for (int i = 0; i < 3; ++i) free(phase3_alloc());
  free(moved);
  printf("paused: ok\n");
  if (argc == 4) {
    fflush(stdout);
    const pid_t child = fork();
    if (child == 0) {
      execv(argv[3], argv + 3);
      _exit(127);
    }
    int status = 0;
    waitpid(child, &status, 0);
    execv(argv[3], argv + 3);
    return 127;
  }
  return 0;
}
