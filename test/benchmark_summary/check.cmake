# cmake -DPYTHON=... -DPLOT=<perf/plot.py> -DRESULTS=<doc/benchmarks> -DWORK=<folder> -P check.cmake
# Writes the summary of the committed benchmark run (results.csv, inputs.csv, notes.txt) into WORK with perf/plot.py
# and compares it with the committed summary.md, which opens with issue 12's and 13's targets: a CSV changed without
# its summary, or a summary edited by hand, fails.
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")
execute_process(COMMAND "${PYTHON}" "${PLOT}" "${RESULTS}/results.csv" --out "${WORK}" --no-plots
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "benchmark_summary: perf/plot.py failed:\n${out}${err}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files "${WORK}/summary.md" "${RESULTS}/summary.md" RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "benchmark_summary: ${RESULTS}/summary.md is not what perf/plot.py writes from results.csv: "
                      "regenerate it with\n  python3 perf/plot.py doc/benchmarks/results.csv --no-plots")
endif()
file(STRINGS "${WORK}/summary.md" targets REGEX "^\\| 1[23] \\|")
list(LENGTH targets n)
if(n LESS 10)
  message(FATAL_ERROR "benchmark_summary: the summary lists ${n} of issue 12's and 13's targets (expected at least 10)")
endif()
message(STATUS "benchmark_summary: summary.md is up to date (${n} targets listed)")
