# test_alloc proves "no heap allocation after start-up" (STYLE rule 5): every call to
# malloc/calloc/realloc/free from rtmgr's code goes through the counting wrappers in
# test_alloc.c.
target_link_options(test_alloc PRIVATE -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=free)
