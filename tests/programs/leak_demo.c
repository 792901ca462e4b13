/* The built-in example of the README's first command: a small C program whose
 * heap is known exactly.
 *   make_session():  10 x malloc(64)   -> 640 bytes leaked (never freed)
 *   parse_request(): 100 x malloc(256) -> freed at once (temporaries)
 *   build_table():   calloc(32, 16) then realloc to 1024 -> freed at exit
 * So a leak report must show 640 bytes in 10 blocks from make_session, and
 * nothing else: stdout gets a static buffer. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct session {
  char name[56];
  struct session* next;
};

__attribute__((noinline)) static struct session* make_session(int i) {
  struct session* s = malloc(sizeof(struct session));
  if (s != NULL) snprintf(s->name, sizeof(s->name), "session-%d", i);
  return s;
}

__attribute__((noinline)) static size_t parse_request(int i) {
  char* buffer = malloc(256);
  if (buffer == NULL) return 0;
  snprintf(buffer, 256, "GET /item/%d HTTP/1.1", i);
  const size_t n = strlen(buffer);
  free(buffer);
  return n;
}

__attribute__((noinline)) static char* build_table(void) {
  char* table = calloc(32, 16);
  char* bigger = table ? realloc(table, 1024) : NULL;
  if (bigger == NULL) free(table);
  return bigger;
}

int main(void) {
  /* stdout's buffer would otherwise be a 4 KiB block still live at exit. */
  static char stdout_buffer[BUFSIZ];
  setvbuf(stdout, stdout_buffer, _IOLBF, sizeof(stdout_buffer));
  struct session* head = NULL;
  size_t parsed = 0;
  for (int i = 0; i < 10; ++i) {
    struct session* s = make_session(i);
    if (s != NULL) {
      s->next = head;
      head = s; /* forgotten: the list is never freed */
    }
  }
  for (int i = 0; i < 100; ++i) parsed += parse_request(i);
  char* table = build_table();
  printf("leak_demo: made 10 sessions, parsed %zu bytes of requests\n", parsed);
  free(table);
  head = NULL; /* the leak: 10 sessions of 64 bytes */
  return 0;
}
