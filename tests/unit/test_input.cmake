# test_input proves that the running input thread and the NMEA output never touch the
# heap: the allocator is wrapped and calls are counted while a replay runs.
target_link_options(test_input PRIVATE
  -Wl,--wrap=malloc -Wl,--wrap=calloc -Wl,--wrap=realloc -Wl,--wrap=free
  -Wl,--wrap=aligned_alloc -Wl,--wrap=posix_memalign)
