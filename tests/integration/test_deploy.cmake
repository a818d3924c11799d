# test_deploy: installs into a temporary root (DESTDIR, and the .deb with dpkg -x) and
# runs the installed rtmgr there (tests/integration/deploy.sh).
add_test(NAME test_deploy
  COMMAND sh ${CMAKE_SOURCE_DIR}/tests/integration/deploy.sh ${CMAKE_BINARY_DIR} ${CMAKE_SOURCE_DIR})
set_tests_properties(test_deploy PROPERTIES TIMEOUT 300)
