# What `cmake --install` puts where, and the .deb `cpack -G DEB` makes of it (scripts/package,
# docs/packaging.md): the binary and its ttcp link (src/cli/CMakeLists.txt), the man pages and
# the bash completion generated from the binary (tools/docgen), the systemd unit, the changelog
# and the copyright file. Configure with -DCMAKE_INSTALL_PREFIX=/usr for the package.
include(GNUInstallDirs)

set(gen ${PROJECT_BINARY_DIR}/generated)
install(DIRECTORY ${gen}/man1/ DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
install(FILES ${gen}/completion/nicbench
        DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions)
# The unit runs the installed binary: its ExecStart follows the prefix. Under /usr (the package)
# it goes where Debian 12 keeps units, /lib/systemd/system (lintian flags /usr/lib there);
# under another prefix, beneath that prefix.
if(CMAKE_INSTALL_PREFIX STREQUAL "/usr")
  set(unit_dir /lib/systemd/system)
else()
  set(unit_dir lib/systemd/system)
endif()
foreach(unit_name nicbench-serve.service nicbench-monitor@.service nicbench-agent.service)
  file(READ deploy/systemd/${unit_name} unit)
  string(REPLACE "ExecStart=/usr/bin/nicbench" "ExecStart=${CMAKE_INSTALL_FULL_BINDIR}/nicbench"
         unit "${unit}")
  file(WRITE ${gen}/${unit_name} "${unit}")
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS deploy/systemd/${unit_name})
  install(FILES ${gen}/${unit_name} DESTINATION ${unit_dir})
endforeach()
install(FILES deploy/debian/copyright DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/nicbench)
install(FILES deploy/debian/lintian-overrides DESTINATION ${CMAKE_INSTALL_DATADIR}/lintian/overrides
        RENAME nicbench)
add_custom_command(OUTPUT ${gen}/changelog.gz
  COMMAND sh -c "gzip -9n < ${PROJECT_SOURCE_DIR}/deploy/debian/changelog > ${gen}/changelog.gz"
  DEPENDS deploy/debian/changelog VERBATIM)
add_custom_target(nicbench_changelog ALL DEPENDS ${gen}/changelog.gz)
install(FILES ${gen}/changelog.gz DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/nicbench)

set(CPACK_PACKAGE_NAME nicbench)
set(CPACK_PACKAGE_VENDOR "nicbench")
set(CPACK_PACKAGE_CONTACT "nicbench maintainers <maintainers@users.noreply.a-seed-c38ace34.example>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "network throughput test that says why a path is not faster")
# The extended description only: CPack puts the summary above it as the synopsis.
string(CONCAT CPACK_DEBIAN_PACKAGE_DESCRIPTION
    "nicbench runs TCP, UDP and request/response tests between two hosts and,\n"
    "while the bytes flow, records on both ends where the CPU time went, which\n"
    "interrupts fired, what the NIC is set to and what TCP saw; then it names\n"
    "what limits the transfer. It speaks the iperf3 protocol and has a classic\n"
    "ttcp mode.")
set(CPACK_DEBIAN_PACKAGE_SECTION net)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_HOMEPAGE "https://nicbench.example/")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
# CPack's DEB generator strips the binary itself and keeps what it strips in
# nicbench-dbgsym_VERSION_ARCH.ddeb (CPACK_STRIP_FILES would strip it first and leave no symbols).
set(CPACK_STRIP_FILES OFF)
set(CPACK_DEBIAN_DEBUGINFO_PACKAGE ON)
if(NICBENCH_STATIC OR NICBENCH_INSTALL_STATIC)
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS OFF)
else()
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
endif()
include(CPack)
