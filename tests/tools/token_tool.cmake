cmake_minimum_required(VERSION 3.25)
# ctest driver for bitwire_token (the build's copy, or the installed one from tests/downstream/run.cmake):
#   --help exits 0 and says which protocol id a token needs; an unknown option exits 2 pointing at --help;
#   --new-key prints 64 hex digits; a token minted with that key is 2048 bytes.
# Arguments: -DTOOL=path/to/bitwire_token -DWORK_DIR=scratch directory
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")

execute_process(COMMAND "${TOOL}" --help RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "bitwire_token --help exited ${rc}: ${out}${err}")
endif()
foreach(expected "usage: bitwire_token" "--protocol-id N" "stack_protocol_id" "NOT the schema's ProtocolId"
                 "--help, -h")
  string(FIND "${out}" "${expected}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "bitwire_token --help does not say '${expected}':\n${out}")
  endif()
endforeach()

execute_process(COMMAND "${TOOL}" --frobnicate RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
string(FIND "${err}" "unknown option --frobnicate" unknown)
string(FIND "${err}" "(see --help)" see_help)
if(NOT rc EQUAL 2 OR unknown EQUAL -1 OR see_help EQUAL -1)
  message(FATAL_ERROR "bitwire_token --frobnicate: exit ${rc}, expected 2 and a pointer to --help:\n${err}")
endif()

execute_process(COMMAND "${TOOL}" --new-key RESULT_VARIABLE rc OUTPUT_VARIABLE key)
string(STRIP "${key}" key)
if(NOT rc EQUAL 0 OR NOT key MATCHES "^[0-9a-f]+$")
  message(FATAL_ERROR "bitwire_token --new-key: exit ${rc}, '${key}'")
endif()
string(LENGTH "${key}" key_length)
if(NOT key_length EQUAL 64)
  message(FATAL_ERROR "bitwire_token --new-key printed ${key_length} digits, not 64")
endif()
file(WRITE "${WORK_DIR}/dev.key" "${key}\n")
execute_process(COMMAND "${TOOL}" --key-file "${WORK_DIR}/dev.key" --protocol-id 0x1234 --client-id 7
                        --server 127.0.0.1:40000 --out "${WORK_DIR}/token.bin"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "bitwire_token could not mint a token (${rc}): ${err}")
endif()
file(SIZE "${WORK_DIR}/token.bin" size)
if(NOT size EQUAL 2048)
  message(FATAL_ERROR "bitwire_token wrote ${size} bytes, not 2048")
endif()
message("bitwire_token: --help, usage error, --new-key and a 2048-byte token: ok")
