# test_errlog counts the allocations made on the push path: malloc, calloc and realloc
# are wrapped in the test binary (the counters are in test_errlog.c).
target_link_options(test_errlog PRIVATE
  -Wl,--wrap=malloc -Wl,--wrap=calloc -Wl,--wrap=realloc)
