# fuzz.cmake — libFuzzer targets (included from CMakeLists.txt when RTMGR_FUZZ=ON).
#
#   CC=clang cmake -S . -B build-fuzz -DRTMGR_FUZZ=ON -DRTMGR_TESTS=OFF -DRTM_MAX_TARGETS=256
#   cmake --build build-fuzz --target fuzz_nmea fuzz_nmea_corpus
#   ./build-fuzz/fuzz_nmea -dict=tests/fuzz/nmea.dict -max_total_time=120 build-fuzz/fuzz-corpus
#   ./build-fuzz/fuzz_config -dict=tests/fuzz/config.dict -max_total_time=120 \
#       build-fuzz/config-corpus tests/configs/good tests/configs/bad
#
# With testing on, CTest runs each fuzzer for RTM_FUZZ_SECONDS (20) from its seeds
# (fuzz_nmea_smoke, fuzz_config_smoke): `make test` does so in the clang build.
#
# A small RTM_MAX_TARGETS keeps the per-input reset of the target table cheap. The
# corpus is generated from ../shared/data/ais (never committed) plus tests/fuzz/seeds.
if(NOT CMAKE_C_COMPILER_ID MATCHES "Clang")
  message(FATAL_ERROR "RTMGR_FUZZ needs clang (libFuzzer): CC=clang cmake -DRTMGR_FUZZ=ON ...")
endif()
set(RTM_FUZZ_SAN -fsanitize=fuzzer-no-link)
if(NOT RTMGR_SANITIZE)
  list(APPEND RTM_FUZZ_SAN -fsanitize=address,undefined -fno-sanitize-recover=all)
endif()
target_compile_options(librtmgr PRIVATE ${RTM_FUZZ_SAN})
target_link_options(librtmgr INTERFACE ${RTM_FUZZ_SAN}) # rtmgr and tests link the runtimes too
add_executable(fuzz_nmea ${CMAKE_SOURCE_DIR}/tests/fuzz/fuzz_nmea.c)
target_compile_options(fuzz_nmea PRIVATE -fsanitize=fuzzer ${RTM_FUZZ_SAN})
target_link_options(fuzz_nmea PRIVATE -fsanitize=fuzzer ${RTM_FUZZ_SAN})
target_link_libraries(fuzz_nmea PRIVATE librtmgr)
add_custom_target(fuzz_nmea_corpus
  COMMAND sh ${CMAKE_SOURCE_DIR}/tests/fuzz/make_corpus.sh ${CMAKE_BINARY_DIR}/fuzz-corpus
          ${CMAKE_SOURCE_DIR}/../shared/data/ais
  COMMENT "fuzz_nmea seed corpus: tests/fuzz/seeds + ../shared/data/ais cut in pieces")

add_executable(fuzz_config ${CMAKE_SOURCE_DIR}/tests/fuzz/fuzz_config.c)
target_compile_options(fuzz_config PRIVATE -fsanitize=fuzzer ${RTM_FUZZ_SAN})
target_link_options(fuzz_config PRIVATE -fsanitize=fuzzer ${RTM_FUZZ_SAN})
target_compile_definitions(fuzz_config PRIVATE RTM_FUZZ_SOURCE_DIR="${CMAKE_SOURCE_DIR}")
target_link_libraries(fuzz_config PRIVATE librtmgr)

set(RTM_FUZZ_SECONDS 20 CACHE STRING "Seconds of each fuzzer's CTest smoke run")
enable_testing()
# the NMEA seeds: tests/fuzz/seeds and the shared logs cut in 40-line pieces
add_test(NAME fuzz_nmea_corpus
  COMMAND sh ${CMAKE_SOURCE_DIR}/tests/fuzz/make_corpus.sh ${CMAKE_BINARY_DIR}/fuzz-corpus
          ${CMAKE_SOURCE_DIR}/../shared/data/ais)
set_tests_properties(fuzz_nmea_corpus PROPERTIES FIXTURES_SETUP fuzz_nmea_seeds)
add_test(NAME fuzz_nmea_smoke
  COMMAND sh ${CMAKE_SOURCE_DIR}/tests/fuzz/smoke.sh $<TARGET_FILE:fuzz_nmea> ${RTM_FUZZ_SECONDS}
          ${CMAKE_BINARY_DIR}/fuzz-smoke/nmea ${CMAKE_SOURCE_DIR}/tests/fuzz/nmea.dict
          ${CMAKE_BINARY_DIR}/fuzz-corpus)
set_tests_properties(fuzz_nmea_smoke PROPERTIES FIXTURES_REQUIRED fuzz_nmea_seeds)
add_test(NAME fuzz_config_smoke
  COMMAND sh ${CMAKE_SOURCE_DIR}/tests/fuzz/smoke.sh $<TARGET_FILE:fuzz_config> ${RTM_FUZZ_SECONDS}
          ${CMAKE_BINARY_DIR}/fuzz-smoke/config ${CMAKE_SOURCE_DIR}/tests/fuzz/config.dict
          ${CMAKE_SOURCE_DIR}/tests/configs/good ${CMAKE_SOURCE_DIR}/tests/configs/bad)
set_tests_properties(fuzz_nmea_smoke fuzz_config_smoke PROPERTIES
  TIMEOUT 300 ENVIRONMENT "ASAN_OPTIONS=detect_leaks=0:allocator_may_return_null=1")
