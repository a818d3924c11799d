# test_exec_preempt counts the allocator calls of rtmgr's code while the executive runs
# (preemptions, re-placements and resumes included): every malloc/calloc/realloc/free
# from librtmgr.a and the test goes through the counting wrappers in the test. The
# OpenCL runtime (a shared library) is not wrapped: its own allocations are not ours.
target_link_options(test_exec_preempt PRIVATE -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=free,--wrap=aligned_alloc,--wrap=posix_memalign)
