# ctest cudacca_install: installs the superbuild into PREFIX, builds and runs test/install_app against it,
# and imports the installed cv2 (PYTHONPATH=PREFIX/python, no LD_LIBRARY_PATH: the RUNPATHs must do).
# -DSUPERBUILD=<build dir> -DPREFIX=<prefix> -DAPP_SOURCE=<test/install_app> -DAPP_BINARY=<dir>
# -DGENERATOR=<generator> -DPYTHON=<python3> -DPYDEPS=<numpy folder> -DOPENCV_MAJOR=<4 or 5>
# (Arguments travel as a CMake list: none may contain a semicolon.)
function(run what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (${rc}):\n${out}\n${err}")
  endif()
  message(STATUS "${what}: ok")
  set(last_output "${out}" PARENT_SCOPE)
endfunction()

file(REMOVE_RECURSE "${PREFIX}" "${APP_BINARY}")
run("cmake --install" "${CMAKE_COMMAND}" --install "${SUPERBUILD}" --prefix "${PREFIX}")
# OpenCV 4.x installs include/opencv4 and lib/cmake/opencv4, 5.x opencv5 (-DOPENCV_MAJOR).
foreach(f include/opencv${OPENCV_MAJOR}/opencv2/cudacca.hpp lib/libopencv_cudacca.so
          lib/cmake/opencv${OPENCV_MAJOR}/OpenCVConfig.cmake python/cv2.abi3.so
          python/cv2/__init__.pyi python/cv2/cuda/__init__.pyi python/cv2/py.typed)
  if(NOT EXISTS "${PREFIX}/${f}")
    message(FATAL_ERROR "not installed: ${PREFIX}/${f}")
  endif()
endforeach()
run("configure the app" "${CMAKE_COMMAND}" -S "${APP_SOURCE}" -B "${APP_BINARY}" -G "${GENERATOR}"
    "-DCMAKE_PREFIX_PATH=${PREFIX}")
run("build the app" "${CMAKE_COMMAND}" --build "${APP_BINARY}")
run("run the app" "${APP_BINARY}/cudacca_install_app")
message(STATUS "${last_output}")
# The stubs name the function (both overloads: with and without a stream) and the algorithm constants.
file(READ "${PREFIX}/python/cv2/cuda/__init__.pyi" _stub)
foreach(needle "def connectedComponentsWithStats(image: GpuMat" "stream: Stream = ..." "CCA_DEFAULT: int" "CCA_FLSL_CD: int")
  string(FIND "${_stub}" "${needle}" _at)
  if(_at EQUAL -1)
    message(FATAL_ERROR "the installed stub python/cv2/cuda/__init__.pyi lacks: ${needle}")
  endif()
endforeach()
message(STATUS "typing stubs: ok")
run("import the installed cv2" "${CMAKE_COMMAND}" -E env --unset=LD_LIBRARY_PATH "PYTHONPATH=${PREFIX}/python:${PYDEPS}" --
    "${PYTHON}" -c "import cv2\nprint(cv2.__file__, cv2.cuda.CCA_DEFAULT, cv2.cuda.connectedComponentsWithStats.__name__)")
message(STATUS "${last_output}")
