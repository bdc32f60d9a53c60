# CTest driver of one fuzz target (tests/fuzz/CMakeLists.txt): copies the seed
# corpus SEEDS into WORK (the repository is never written) and fuzzes the copy
# for SECONDS with inputs up to MAX_LEN bytes. A crash, leak, timeout or
# FUZZ_CHECK failure fails the test; its input is kept in WORK-artifacts/.
foreach(var FUZZER SEEDS WORK SECONDS MAX_LEN)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "run_fuzzer.cmake: ${var} is not set")
  endif()
endforeach()
file(REMOVE_RECURSE ${WORK} ${WORK}-artifacts)
file(MAKE_DIRECTORY ${WORK} ${WORK}-artifacts)
file(GLOB seeds ${SEEDS}/*)
if(seeds)
  file(COPY ${seeds} DESTINATION ${WORK})
endif()
execute_process(
  COMMAND ${FUZZER} -max_total_time=${SECONDS} -max_len=${MAX_LEN} -timeout=30
          -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix=${WORK}-artifacts/
          ${WORK}
  RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  file(GLOB found ${WORK}-artifacts/*)
  message(FATAL_ERROR "${FUZZER} failed (exit ${rc}); inputs: ${found}")
endif()
