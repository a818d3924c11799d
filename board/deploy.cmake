# deploy.cmake — installation layout and the Debian package (included from CMakeLists.txt).
#
#   PREFIX/bin/rtmgr, PREFIX/bin/rtmgr-replay     the manager, the HIL replayer
#   SYSCONF/rtmgr/*.yaml                          task sets (config/*.yaml; their board:
#                                                 rewritten to board/NAME.yaml)
#   SYSCONF/rtmgr/board/*.yaml                    board profiles
#   PREFIX/share/rtmgr/kernels/                   OpenCL sources (the only place rtmgr
#                                                 loads kernels from when installed)
#   PREFIX/share/rtmgr/hil/replay                 the HIL harness wrapper
#   PREFIX/lib/systemd/system/rtmgr.service       the unit (board/systemd/)
#   PREFIX/share/doc/rtmgr/                       docs
#   LOCALSTATE/lib/rtmgr, LOCALSTATE/log/rtmgr    program cache, logs (empty)
# With the default prefix /usr, SYSCONF is /etc and LOCALSTATE is /var (GNUInstallDirs).
# A staged install: DESTDIR=/tmp/root cmake --install build. The package: make deb.
include(GNUInstallDirs)
set(RTM_ETC_DIR "${CMAKE_INSTALL_FULL_SYSCONFDIR}/rtmgr")
set(RTM_STATE_DIR "${CMAKE_INSTALL_FULL_LOCALSTATEDIR}/lib/rtmgr")
set(RTM_LOGS_DIR "${CMAKE_INSTALL_FULL_LOCALSTATEDIR}/log/rtmgr")

# Task sets as installed: the board profiles sit in SYSCONF/rtmgr/board/.
file(GLOB RTM_TASK_SETS CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/config/*.yaml)
file(GLOB RTM_BOARDS CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/board/*.yaml)
set(RTM_CONFFILES "")
foreach(f ${RTM_TASK_SETS})
  get_filename_component(name ${f} NAME)
  file(READ ${f} text)
  string(REGEX REPLACE "(^|\n)board:[ \t]*\"?\\.\\./board/" "\\1board: board/" text "${text}")
  file(WRITE ${CMAKE_BINARY_DIR}/etc/rtmgr/${name} "${text}")
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${f})
  string(APPEND RTM_CONFFILES "${RTM_ETC_DIR}/${name}\n")
endforeach()
foreach(f ${RTM_BOARDS})
  get_filename_component(name ${f} NAME)
  string(APPEND RTM_CONFFILES "${RTM_ETC_DIR}/board/${name}\n")
endforeach()

install(TARGETS rtmgr RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
if(TARGET rtmgr-replay)
  install(TARGETS rtmgr-replay RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()
install(DIRECTORY ${CMAKE_SOURCE_DIR}/kernels/ DESTINATION ${CMAKE_INSTALL_DATADIR}/rtmgr/kernels
        FILE_PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ
        FILES_MATCHING PATTERN "*.cl" PATTERN "*.h")
install(DIRECTORY ${CMAKE_BINARY_DIR}/etc/rtmgr/ DESTINATION ${RTM_ETC_DIR}
        FILE_PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ)
install(FILES ${RTM_BOARDS} DESTINATION ${RTM_ETC_DIR}/board
        PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ)
install(PROGRAMS ${CMAKE_SOURCE_DIR}/board/hil/replay DESTINATION ${CMAKE_INSTALL_DATADIR}/rtmgr/hil)
install(FILES ${CMAKE_SOURCE_DIR}/board/systemd/rtmgr.service
        DESTINATION ${CMAKE_INSTALL_PREFIX}/lib/systemd/system
        PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ)
file(GLOB RTM_DOCS CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/docs/*.md)
install(FILES ${RTM_DOCS} DESTINATION ${CMAKE_INSTALL_DOCDIR}
        PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ)
install(DIRECTORY DESTINATION ${RTM_STATE_DIR})
install(DIRECTORY DESTINATION ${RTM_LOGS_DIR})

# ---- the Debian package (cpack -G DEB in the build directory; `make deb`) ----
file(WRITE ${CMAKE_BINARY_DIR}/deb/conffiles "${RTM_CONFFILES}")
foreach(script postinst prerm postrm)
  configure_file(${CMAKE_SOURCE_DIR}/board/deb/${script} ${CMAKE_BINARY_DIR}/deb/${script}
                 COPYONLY FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ
                 GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
endforeach()
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME rtmgr)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "real-time task manager for ships' onboard computers (CPU and OpenCL GPUs)")
set(CPACK_PACKAGE_DESCRIPTION
    "rtmgr runs a vessel's periodic compute loops (trajectory prediction, CPA/TCPA,\n manoeuvre search, route search, image processing) with deadlines on CPU cores\n and OpenCL GPUs, placing each job where its predicted time meets its deadline.\n AIS input over NMEA 0183; CPA/TCPA output as TTM/ALR sentences.")
set(CPACK_PACKAGE_CONTACT "rtmgr maintainers <rtmgr@localhost>")
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "rtmgr maintainers <rtmgr@localhost>")
set(CPACK_DEBIAN_PACKAGE_SECTION misc)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "libc6 (>= 2.34), libyaml-0-2, ocl-icd-libopencl1 | libopencl1, adduser")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "pocl-opencl-icd | nvidia-opencl-icd | mesa-opencl-icd")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_PACKAGING_INSTALL_PREFIX ${CMAKE_INSTALL_PREFIX})
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION TRUE)
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA
    "${CMAKE_BINARY_DIR}/deb/conffiles;${CMAKE_BINARY_DIR}/deb/postinst;${CMAKE_BINARY_DIR}/deb/prerm;${CMAKE_BINARY_DIR}/deb/postrm")
set(CPACK_OUTPUT_FILE_PREFIX ${CMAKE_BINARY_DIR}/packages)
include(CPack)
