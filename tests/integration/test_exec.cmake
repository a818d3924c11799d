# test_exec counts the completed-block array's fills and the writes, markers and user
# events per job: those calls from librtmgr.a go through counting wrappers in the test,
# which make the real calls.
target_link_options(test_exec PRIVATE -Wl,--wrap=clEnqueueFillBuffer,--wrap=clEnqueueWriteBuffer,--wrap=clEnqueueMarkerWithWaitList,--wrap=clCreateUserEvent)
