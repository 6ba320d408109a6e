# Every third-party dependency is found here, once, from Debian packages.
find_package(absl CONFIG REQUIRED)
find_package(ICU REQUIRED COMPONENTS uc i18n data)
find_package(PkgConfig REQUIRED)
pkg_check_modules(XXHASH REQUIRED IMPORTED_TARGET libxxhash)
find_package(Threads REQUIRED)
find_package(nlohmann_json CONFIG REQUIRED)  # JSON output (neardup::base)
find_package(simdjson CONFIG REQUIRED)  # the dataset readers' JSON
# core's HNSW index: hnswlib is header-only (libhnswlib-dev) and ships no
# CMake or pkg-config file, so it is found by its header.
find_path(HNSWLIB_INCLUDE_DIR hnswlib/hnswlib.h REQUIRED)
add_library(neardup_hnswlib INTERFACE)
target_include_directories(neardup_hnswlib SYSTEM INTERFACE ${HNSWLIB_INCLUDE_DIR})
add_library(hnswlib::hnswlib ALIAS neardup_hnswlib)
if(NOT NEARDUP_CORE_ONLY)
  find_package(CLI11 CONFIG REQUIRED)
  # storage/: RocksDB for persistence, protobuf (module mode: Debian ships no
  # protobuf CMake config) for its record encodings.
  find_package(RocksDB CONFIG REQUIRED)
  find_package(Protobuf REQUIRED)
  # proto/, server/, client/: the gRPC API, metrics, logs and config files.
  find_package(gRPC CONFIG REQUIRED)
  find_package(prometheus-cpp CONFIG REQUIRED)
  # neardupd's HTTP/JSON listener (server/http): Boost.Beast, headers only.
  find_package(Boost 1.74 REQUIRED)
  find_package(spdlog CONFIG REQUIRED)
  find_package(yaml-cpp CONFIG REQUIRED)
  # server/extract/: HTML, Markdown and PDF to text.
  pkg_check_modules(GUMBO REQUIRED IMPORTED_TARGET gumbo)
  pkg_check_modules(CMARK_GFM REQUIRED IMPORTED_TARGET libcmark-gfm)
  pkg_check_modules(POPPLER_CPP REQUIRED IMPORTED_TARGET poppler-cpp)
  # the sandbox of the extraction children (server/extract/src/sandbox.cc)
  pkg_check_modules(SECCOMP REQUIRED IMPORTED_TARGET libseccomp)
  # server/embed/: local embeddings from fastText model files.
  pkg_check_modules(FASTTEXT REQUIRED IMPORTED_TARGET fasttext)
  # server/cluster/: the replicated log's client (NATS JetStream). Debian's
  # CMake config of cnats names a static library it does not ship.
  pkg_check_modules(NATS REQUIRED IMPORTED_TARGET libnats)
endif()
find_package(OpenSSL REQUIRED)  # SHA-256: token hashing, and in tests
if(NEARDUP_BUILD_TESTS)
  find_package(GTest CONFIG REQUIRED)
  find_package(ZLIB REQUIRED)  # tests/extract deflates a PDF stream
endif()
if(NEARDUP_BUILD_BENCH AND NOT NEARDUP_CORE_ONLY)
  find_package(benchmark CONFIG REQUIRED)
endif()
