# Included by the top-level CMakeLists.txt at configure time.
# Provides OpenCV 4.10.0 + contrib sources (fetched from Debian's source packages unless given) and
# applies our CUDA 13 patch, or OpenCV 5.0.0 + contrib (PyPI's opencv-contrib-python source distribution), and provides NPP (toolkit or PyPI wheel) and numpy >= 2 headers (PyPI).
# Everything lands in ${CUDACCA_DEPS_DIR} (build/_deps); every step is guarded by a stamp file.

set(CUDACCA_OPENCV_DEB_VERSION "4.10.0+dfsg-5")
set(CUDACCA_OPENCV_ORIG_TARBALL "opencv_4.10.0+dfsg.orig.tar.xz")
set(CUDACCA_OPENCV_ORIG_SHA256 "4ca619efbad524c550771ab110332fc81293fb720bd03980fe58bc15f9ca3be8")
set(CUDACCA_OPENCV_CONTRIB_TARBALL "opencv_4.10.0+dfsg.orig-contrib.tar.xz")
set(CUDACCA_OPENCV_CONTRIB_SHA256 "bc499ce3a1421b2474c20cce9949a574311bb3b6a71a5527e00e6f71cdb646b9")
set(CUDACCA_OPENCV_PATCH "${CMAKE_CURRENT_LIST_DIR}/opencv-4.10-cuda13.patch")

# OpenCV 5.0.0 + opencv_contrib 5.0.0: the source distribution of opencv-contrib-python on PyPI (folders
# opencv/ and opencv_contrib/). `pip download --no-binary :all:` would try to build the build backend's
# dependencies from source; --no-binary for this one package only does not.
set(CUDACCA_OPENCV5_SDIST_SPEC "opencv-contrib-python==5.0.0.93")
set(CUDACCA_OPENCV5_SDIST "opencv_contrib_python-5.0.0.93.tar.gz")
set(CUDACCA_OPENCV5_SDIST_SHA256 "da0ba61096b08c63cb4440d8fd6f323835cbb78b714c5ba22a39e1db68c83166")
set(CUDACCA_OPENCV5_SDIST_TOP "opencv_contrib_python-5.0.0.93")

set(CUDACCA_DEBIAN_URI "" CACHE STRING "Debian mirror for the deb-src entry (empty: the machine's own Debian URI)")
set(CUDACCA_DEBIAN_KEYRING "/usr/share/keyrings/debian-archive-keyring.gpg" CACHE FILEPATH "Keyring for the deb-src entry")
set(CUDACCA_DEBIAN_SUITE "trixie" CACHE STRING "Debian suite that has opencv ${CUDACCA_OPENCV_DEB_VERSION}")

function(_cudacca_sha256_ok file expected out)
  set(${out} FALSE PARENT_SCOPE)
  if(EXISTS "${file}")
    file(SHA256 "${file}" _h)
    if(_h STREQUAL expected)
      set(${out} TRUE PARENT_SCOPE)
    endif()
  endif()
endfunction()

# The machine's own Debian URI (deb822 or one-line format); falls back to deb.debian.org.
function(_cudacca_debian_uri out)
  set(_uri "${CUDACCA_DEBIAN_URI}")
  if(NOT _uri)
    file(GLOB _srcs /etc/apt/sources.list.d/*.sources /etc/apt/sources.list /etc/apt/sources.list.d/*.list)
    foreach(f IN LISTS _srcs)
      file(STRINGS "${f}" _lines REGEX "debian")
      foreach(l IN LISTS _lines)
        if(l MATCHES "^URIs:[ \t]*([^ \t]+/debian)[ \t]*$")
          set(_uri "${CMAKE_MATCH_1}")
          break()
        elseif(l MATCHES "^deb[ \t]+(\\[[^]]*\\][ \t]+)?([^ \t]+/debian)[ \t]")
          set(_uri "${CMAKE_MATCH_2}")
          break()
        endif()
      endforeach()
      if(_uri)
        break()
      endif()
    endforeach()
  endif()
  if(NOT _uri)
    set(_uri "http://deb.debian.org/debian")
  endif()
  set(${out} "${_uri}" PARENT_SCOPE)
endfunction()

# Download the two orig tarballs with apt-get source, using a private sources list and state dir
# (the system's apt configuration is left alone).
function(cudacca_fetch_debian_tarballs dl_dir)
  _cudacca_sha256_ok("${dl_dir}/${CUDACCA_OPENCV_ORIG_TARBALL}" ${CUDACCA_OPENCV_ORIG_SHA256} _ok1)
  _cudacca_sha256_ok("${dl_dir}/${CUDACCA_OPENCV_CONTRIB_TARBALL}" ${CUDACCA_OPENCV_CONTRIB_SHA256} _ok2)
  if(_ok1 AND _ok2)
    return()
  endif()
  find_program(APT_GET apt-get)
  if(NOT APT_GET)
    message(FATAL_ERROR "apt-get not found: pass -DOPENCV_SOURCE_DIR=... -DOPENCV_CONTRIB_SOURCE_DIR=...")
  endif()
  _cudacca_debian_uri(_uri)
  set(_apt "${dl_dir}/apt")
  file(MAKE_DIRECTORY "${_apt}/lists/partial" "${dl_dir}")
  file(WRITE "${_apt}/sources.list"
       "deb-src [signed-by=${CUDACCA_DEBIAN_KEYRING}] ${_uri} ${CUDACCA_DEBIAN_SUITE} main\n")
  set(_opts
    -o "Dir::Etc::SourceList=${_apt}/sources.list"
    -o "Dir::Etc::SourceParts=-"
    -o "Dir::State::Lists=${_apt}/lists"
    -o "Dir::Cache::pkgcache="
    -o "Dir::Cache::srcpkgcache="
    -o "APT::Sandbox::User=root")
  message(STATUS "cudacca: apt-get update (private list: ${_uri} ${CUDACCA_DEBIAN_SUITE} deb-src)")
  execute_process(COMMAND ${APT_GET} ${_opts} -q update
                  RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _err)
  if(NOT _rc EQUAL 0)
    message(FATAL_ERROR "cudacca: private apt-get update failed (${_rc}):\n${_out}\n${_err}")
  endif()
  message(STATUS "cudacca: apt-get source --download-only opencv=${CUDACCA_OPENCV_DEB_VERSION}")
  # The .dsc answers 404, so apt exits non-zero although the tarballs arrive: check them by sha256.
  execute_process(COMMAND ${APT_GET} ${_opts} -q source --download-only "opencv=${CUDACCA_OPENCV_DEB_VERSION}"
                  WORKING_DIRECTORY "${dl_dir}"
                  RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _err)
  _cudacca_sha256_ok("${dl_dir}/${CUDACCA_OPENCV_ORIG_TARBALL}" ${CUDACCA_OPENCV_ORIG_SHA256} _ok1)
  _cudacca_sha256_ok("${dl_dir}/${CUDACCA_OPENCV_CONTRIB_TARBALL}" ${CUDACCA_OPENCV_CONTRIB_SHA256} _ok2)
  if(NOT (_ok1 AND _ok2))
    message(FATAL_ERROR "cudacca: OpenCV tarballs missing or wrong sha256 after apt-get source (rc ${_rc}):\n${_out}\n${_err}")
  endif()
  message(STATUS "cudacca: both tarballs verified by sha256 (apt-get exit code ${_rc} ignored: the .dsc 404s)")
endfunction()

# Download the OpenCV 5.0 source distribution into dl_dir (once; checked by sha256).
function(cudacca_fetch_opencv5_sdist python dl_dir)
  _cudacca_sha256_ok("${dl_dir}/${CUDACCA_OPENCV5_SDIST}" ${CUDACCA_OPENCV5_SDIST_SHA256} _ok)
  if(_ok)
    return()
  endif()
  message(STATUS "cudacca: pip download ${CUDACCA_OPENCV5_SDIST_SPEC} (source distribution, 154 MB)")
  file(MAKE_DIRECTORY "${dl_dir}")
  execute_process(COMMAND "${python}" -m pip download --disable-pip-version-check -q --no-deps
                          --no-binary opencv-contrib-python "${CUDACCA_OPENCV5_SDIST_SPEC}" -d "${dl_dir}"
                  RESULT_VARIABLE _rc)
  _cudacca_sha256_ok("${dl_dir}/${CUDACCA_OPENCV5_SDIST}" ${CUDACCA_OPENCV5_SDIST_SHA256} _ok)
  if(NOT _ok)
    message(FATAL_ERROR "cudacca: ${CUDACCA_OPENCV5_SDIST} missing or wrong sha256 after pip download (rc ${_rc})")
  endif()
endfunction()

# Extract <tarball> into <dest_parent>, expecting top folder <name>; stamp = tarball sha256.
function(cudacca_extract tarball sha dest_parent name)
  set(_stamp "${dest_parent}/${name}.extracted")
  if(EXISTS "${_stamp}" AND EXISTS "${dest_parent}/${name}")
    file(READ "${_stamp}" _s)
    if(_s STREQUAL sha)
      return()
    endif()
  endif()
  message(STATUS "cudacca: extracting ${tarball}")
  file(REMOVE_RECURSE "${dest_parent}/${name}")
  file(REMOVE "${dest_parent}/${name}.patched")
  file(MAKE_DIRECTORY "${dest_parent}")
  file(ARCHIVE_EXTRACT INPUT "${tarball}" DESTINATION "${dest_parent}")
  if(NOT EXISTS "${dest_parent}/${name}")
    message(FATAL_ERROR "cudacca: ${tarball} has no top folder ${name}")
  endif()
  file(WRITE "${_stamp}" "${sha}")
endfunction()

# Apply our CUDA 13 patch once. The stamp holds the patch's hash; an already patched tree
# (patch applies in reverse) is accepted as is.
function(cudacca_patch_opencv src stamp)
  file(SHA256 "${CUDACCA_OPENCV_PATCH}" _ph)
  if(EXISTS "${stamp}")
    file(READ "${stamp}" _s)
    if(_s STREQUAL _ph)
      return()
    endif()
  endif()
  find_program(PATCH_EXECUTABLE patch REQUIRED)
  execute_process(COMMAND ${PATCH_EXECUTABLE} -p1 -R --dry-run -s -f -i "${CUDACCA_OPENCV_PATCH}"
                  WORKING_DIRECTORY "${src}" RESULT_VARIABLE _already OUTPUT_QUIET ERROR_QUIET)
  if(_already EQUAL 0)
    message(STATUS "cudacca: ${src} already carries the CUDA 13 patch")
  else()
    message(STATUS "cudacca: patching ${src} with ${CUDACCA_OPENCV_PATCH}")
    execute_process(COMMAND ${PATCH_EXECUTABLE} -p1 -N -f -i "${CUDACCA_OPENCV_PATCH}"
                    WORKING_DIRECTORY "${src}" RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _err)
    if(NOT _rc EQUAL 0)
      message(FATAL_ERROR "cudacca: patch failed in ${src}:\n${_out}\n${_err}")
    endif()
  endif()
  file(WRITE "${stamp}" "${_ph}")
endfunction()

# pip install --target <dir> <spec...>, once per spec list.
function(cudacca_pip_target python dir)
  string(SHA256 _key "${ARGN}")
  set(_stamp "${dir}.stamp")
  if(EXISTS "${_stamp}")
    file(READ "${_stamp}" _s)
    if(_s STREQUAL _key)
      return()
    endif()
  endif()
  message(STATUS "cudacca: pip install --target ${dir} ${ARGN}")
  file(REMOVE_RECURSE "${dir}")
  execute_process(COMMAND "${python}" -m pip install --disable-pip-version-check -q --no-deps
                          --target "${dir}" ${ARGN}
                  RESULT_VARIABLE _rc)
  if(NOT _rc EQUAL 0)
    message(FATAL_ERROR "cudacca: pip install ${ARGN} failed")
  endif()
  file(WRITE "${_stamp}" "${_key}")
endfunction()
