# test_run proves the manager makes no heap allocation after start: malloc, calloc,
# realloc, free, aligned_alloc and posix_memalign are wrapped in the test binary (the
# counters are in test_run.c). Calls inside shared libraries (the OpenCL runtime) are
# not ours and are not wrapped.
target_link_options(test_run PRIVATE
  -Wl,--wrap=malloc -Wl,--wrap=calloc -Wl,--wrap=realloc -Wl,--wrap=free
  -Wl,--wrap=aligned_alloc -Wl,--wrap=posix_memalign)
