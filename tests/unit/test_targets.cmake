# test_targets proves that the input path (nmea, ais, targets) never touches the heap:
# it wraps the allocator and counts calls made while the replay runs.
target_link_options(test_targets PRIVATE
  -Wl,--wrap=malloc -Wl,--wrap=calloc -Wl,--wrap=realloc -Wl,--wrap=free)
