# Tests that load both cores of a CI machine (the HIL replay, the input floods, the fuzz
# smoke runs, the navigation kernels at full size) and tests that measure scheduling (the executive, rtmgr run) take one lock,
# so that `ctest -j` never runs them side by side: a timing test then fails only for its
# own reasons. The others still run in parallel with them.
foreach(t test_hil test_input fuzz_nmea_smoke fuzz_config_smoke test_nav test_exec test_run)
  if(TEST ${t})
    set_tests_properties(${t} PROPERTIES RESOURCE_LOCK cpu_timing)
  endif()
endforeach()
