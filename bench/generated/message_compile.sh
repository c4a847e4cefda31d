#!/usr/bin/env bash
# Compile time of C++ that uses a generated package of many messages (default 2,000):
#
#   bench/generated/message_compile.sh BUILD_DIR [MESSAGES] [COMPILERS...]
#
# BUILD_DIR holds idlc/idlc and bench/generated/big_schema_gen (`cmake --build build/release --target idlc
# big_schema_gen`); COMPILERS default to g++ and clang++. idlc runs with --factory-sources $SOURCES (default
# 16, what idlc_generate uses). Files compiled with -std=c++20 -O2 -c:
#   include.cpp   includes the header and writes and reads one message type with serialize_message
#   dispatch.cpp  includes the header, builds a MessagePool on message_factory() and writes and reads a
#                 message of a type chosen at run time through serialize_message(stream, pool, handle)
#   big.cpp, big_factory_K.cpp
#                 idlc's source files for the package: message_factory() and every message's serialize for
#                 the four stream kinds, spread over the files (FACTORY=0 in the environment skips them;
#                 FACTORY=1 compiles big.cpp and big_factory_1.cpp only, the first two shares)
# Prints CPU time (user + system: the figure to read on a shared machine), wall time and peak memory (GNU
# time) per compiler and file, then per compiler the factory files' total CPU and the largest. Measures;
# asserts nothing.
set -euo pipefail

if [[ $# -lt 1 ]]; then
  echo "usage: $0 BUILD_DIR [MESSAGES] [COMPILERS...]" >&2
  exit 2
fi
build=$(cd "$1" && pwd)
messages=${2:-2000}
shift $(( $# >= 2 ? 2 : 1 ))
compilers=("$@")
[[ ${#compilers[@]} -eq 0 ]] && compilers=(g++ clang++)
root=$(cd "$(dirname "$0")/../.." && pwd)
idlc="$build/idlc/idlc"
generator="$build/bench/generated/big_schema_gen"
for tool in "$idlc" "$generator"; do
  if [[ ! -x $tool ]]; then
    echo "$0: $tool is missing; build the idlc and big_schema_gen targets first" >&2
    exit 2
  fi
done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$generator" "$work/big.net" "$messages"
"$idlc" -o "$work" --factory-sources "${SOURCES:-16}" "$work/big.net"
echo "big.hpp: $messages messages, $(wc -c <"$work/big.hpp") bytes, $(wc -l <"$work/big.hpp") lines"

cat >"$work/include.cpp" <<'CPP'
#include <array>
#include "big.hpp"
bool round_trip_one() {
  big::Msg0 message;
  std::array<std::byte, big::Msg0::MaxBytes + 8> buffer{};
  bitwire::WriteStream writer(buffer);
  big::serialize_message(writer, message);
  writer.flush();
  bitwire::ReadStream reader(buffer);
  return big::serialize_message(reader, message) && big::message_name(big::MessageType::Msg0) != nullptr;
}
CPP
cat >"$work/dispatch.cpp" <<'CPP'
#include <cstdint>
#include <vector>
#include "big.hpp"
bool round_trip_any(std::uint32_t type) {
  bitwire::MessagePool pool(big::message_factory(), bitwire::MessagePoolConfig{4, 0, 1});
  bitwire::MessageHandle message = pool.create(type % big::kMessageTypeCount);
  std::vector<std::byte> buffer(big::kMaxMessageBits / 8 + 8);
  bitwire::WriteStream writer(buffer);
  big::serialize_message(writer, pool, message);
  writer.flush();
  bitwire::ReadStream reader(buffer);
  bitwire::MessageHandle back;
  return big::serialize_message(reader, pool, back) && back.type() == message.type();
}
CPP

files=(include dispatch)
factory=()
case ${FACTORY:-all} in
  0) ;;
  1) factory=(big big_factory_1) ;;
  *) factory=(big); for source in "$work"/big_factory_*.cpp; do [[ -e $source ]] && factory+=("$(basename "$source" .cpp)"); done ;;
esac
for compiler in "${compilers[@]}"; do
  total=0
  largest=0
  largest_file=""
  for file in "${files[@]}" "${factory[@]}"; do
    /usr/bin/time -f "%U %S %e %M" -o "$work/time.txt" \
      "$compiler" -std=c++20 -O2 -c -I"$work" -I"$root/runtime/include" "$work/$file.cpp" -o "$work/$file.o"
    read -r user system wall kb <"$work/time.txt"
    cpu=$(awk -v u="$user" -v s="$system" 'BEGIN { printf "%.1f", u + s }')
    echo "$compiler -O2 $file.cpp: ${cpu} s CPU (${wall} s wall), $(( kb / 1024 )) MB peak," \
         "object $(wc -c <"$work/$file.o") bytes"
    if [[ $file == big* ]]; then
      total=$(awk -v t="$total" -v c="$cpu" 'BEGIN { printf "%.1f", t + c }')
      if awk -v c="$cpu" -v l="$largest" 'BEGIN { exit !(c > l) }'; then
        largest=$cpu
        largest_file=$file.cpp
      fi
    fi
  done
  if [[ ${#factory[@]} -gt 0 ]]; then
    echo "$compiler -O2 factory (${#factory[@]} of ${SOURCES:-16} files): ${total} s CPU in all, largest $largest_file ${largest} s"
  fi
done
