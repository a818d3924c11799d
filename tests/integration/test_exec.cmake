# test_exec counts the completed-block array's fills per job: clEnqueueFillBuffer calls
# from librtmgr.a go through a counting wrapper in the test, which makes the real call.
target_link_options(test_exec PRIVATE -Wl,--wrap=clEnqueueFillBuffer)
