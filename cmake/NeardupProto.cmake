# neardup_proto_library(TARGET PROTO VIRTUAL_DIR): a static library of the
# C++ messages of PROTO, generated under ${CMAKE_CURRENT_BINARY_DIR}/gen and
# included as "VIRTUAL_DIR/<name>.pb.h". The virtual path is also the
# proto's name in protobuf's descriptor pool, so names of different
# targets' protos cannot clash.
function(neardup_proto_library target proto virtual_dir)
  get_filename_component(name ${proto} NAME_WE)
  get_filename_component(source_dir ${proto} DIRECTORY)
  set(gen_dir ${CMAKE_CURRENT_BINARY_DIR}/gen)
  set(outputs ${gen_dir}/${virtual_dir}/${name}.pb.h
              ${gen_dir}/${virtual_dir}/${name}.pb.cc)
  add_custom_command(
    OUTPUT ${outputs}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${gen_dir}
    COMMAND protobuf::protoc
      --proto_path=${virtual_dir}=${source_dir}
      --cpp_out=${gen_dir}
      ${proto}
    DEPENDS ${proto} protobuf::protoc
    COMMENT "protoc ${proto}"
    VERBATIM)
  add_library(${target} STATIC ${outputs})
  # SYSTEM: generated code is not ours to keep -Wall -Wextra clean.
  target_include_directories(${target} SYSTEM PUBLIC ${gen_dir})
  target_link_libraries(${target} PUBLIC protobuf::libprotobuf)
endfunction()
