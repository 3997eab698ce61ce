# cmake -DCXX=... -DGENERATOR=<scripts/decision_trees.cpp> -DCOMMITTED=<modules/cudacca/src/cuda> -DWORK=<folder> -P check.cmake
# Builds the decision-tree generator with the host compiler, runs it into WORK and compares its output with the
# committed headers: stale generated code fails.
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")
execute_process(COMMAND "${CXX}" -O2 -std=c++17 -o "${WORK}/decision_trees" "${GENERATOR}"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "decision_trees: ${GENERATOR} does not compile:\n${out}${err}")
endif()
execute_process(COMMAND "${WORK}/decision_trees" "${WORK}" RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "decision_trees: the generator failed:\n${out}${err}")
endif()
message(STATUS "decision_trees: ${out}")
foreach(header c_bbdt_tree.hpp c_drag_graph.hpp)
  execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files "${WORK}/${header}" "${COMMITTED}/${header}"
                  RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "decision_trees: ${COMMITTED}/${header} is stale: regenerate it with\n"
                        "  g++ -O2 -std=c++17 -o /tmp/dt scripts/decision_trees.cpp && /tmp/dt modules/cudacca/src/cuda")
  endif()
endforeach()
message(STATUS "decision_trees: c_bbdt_tree.hpp and c_drag_graph.hpp are up to date")
