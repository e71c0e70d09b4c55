// Maps a dataset file into memory as an ArrayBuffer (N-API, no dependencies).
//
// Why: the server's indexes (Flatbush, KDBush and the arrays beside them; ~640 MB at national
// scale) were read into private memory by every worker at every start. Mapped, a start costs
// no copy, the pages are the kernel's page cache shared by every worker (and every dataset
// swap of the same files), and a page is read in when a query first touches it.
//
// The mapping is private and writable (MAP_PRIVATE, copy-on-write): nothing writes to an index,
// but a stray write would change only this process's copy, never the file, rather than crash.
// A dataset is immutable while served (a new build goes to a new directory): a file truncated
// under a live mapping would make the next touch of a lost page fail with SIGBUS.
#define NAPI_VERSION 8
#include <node_api.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static void unmap(napi_env env, void *data, void *hint) {
  (void)env;
  munmap(data, (size_t)(uintptr_t)hint);
}

static napi_value fail(napi_env env, const char *what, const char *path, int err) {
  char msg[1200];
  snprintf(msg, sizeof msg, "%s %s: %s", what, path, strerror(err));
  napi_throw_error(env, NULL, msg);
  return NULL;
}

// map(path: string): ArrayBuffer
static napi_value map_file(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 1) {
    napi_throw_type_error(env, NULL, "map(path) needs a path");
    return NULL;
  }
  char path[1024];
  size_t len = 0;
  if (napi_get_value_string_utf8(env, argv[0], path, sizeof path, &len) != napi_ok) {
    napi_throw_type_error(env, NULL, "map(path): the path must be a string");
    return NULL;
  }
  if (len >= sizeof path - 1) {
    napi_throw_range_error(env, NULL, "map(path): the path is too long");
    return NULL;
  }
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return fail(env, "cannot open", path, errno);
  struct stat st;
  if (fstat(fd, &st) != 0) {
    int err = errno;
    close(fd);
    return fail(env, "cannot stat", path, err);
  }
  size_t size = (size_t)st.st_size;
  napi_value ab;
  if (size == 0) {
    // mmap refuses an empty range; an empty file is an empty buffer
    close(fd);
    void *unused;
    if (napi_create_arraybuffer(env, 0, &unused, &ab) != napi_ok) return NULL;
    return ab;
  }
  void *addr = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
  int err = errno;
  close(fd);
  if (addr == MAP_FAILED) return fail(env, "cannot map", path, err);
  if (napi_create_external_arraybuffer(env, addr, size, unmap, (void *)(uintptr_t)size, &ab) != napi_ok) {
    munmap(addr, size);
    napi_throw_error(env, NULL, "map(path): cannot create the ArrayBuffer");
    return NULL;
  }
  return ab;
}

static napi_value init(napi_env env, napi_value exports) {
  napi_value fn;
  if (napi_create_function(env, "map", NAPI_AUTO_LENGTH, map_file, NULL, &fn) != napi_ok) return NULL;
  if (napi_set_named_property(env, exports, "map", fn) != napi_ok) return NULL;
  return exports;
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, init)
