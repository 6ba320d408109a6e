# The arrows of the target graph (docs/architecture.md), checked at
# configure time: a target under a folder on the left may not link, even
# through others, a target defined under a folder on the right.
#
#   core/             -> storage/, proto/, server/, client/ (gRPC, RocksDB)
#   storage/          -> proto/, server/, client/ (gRPC)
#   server/engine/    -> server/rpc/, server/cluster/, client/ (gRPC)
#   server/cluster/   -> server/rpc/, client/ (gRPC)
#   server/extract/, server/embed/ -> the engine, rpc, cluster, storage/
#   server/http/      -> the engine, rpc, cluster, storage/ (it reaches the
#                        service by gRPC, in process)
#   server/, proto/   -> client/
#   client/           -> the engine, rpc, cluster, storage/

# Every target `target` links, transitively (targets only).
function(neardup_linked_targets target out)
  set(seen "")
  set(queue "${target}")
  while(queue)
    list(POP_FRONT queue current)
    get_target_property(aliased ${current} ALIASED_TARGET)
    if(aliased)
      set(current ${aliased})
    endif()
    foreach(property LINK_LIBRARIES INTERFACE_LINK_LIBRARIES)
      get_target_property(links ${current} ${property})
      if(NOT links)
        continue()
      endif()
      foreach(link IN LISTS links)
        # $<LINK_ONLY:x>, $<BUILD_INTERFACE:x> and $<TARGET_NAME:x> are
        # still arrows (nested too); other generator expressions are not
        # followed.
        set(unwrapped "")
        while(NOT unwrapped STREQUAL link)
          set(unwrapped "${link}")
          string(REGEX REPLACE
                 "^\\$<(LINK_ONLY|BUILD_INTERFACE|TARGET_NAME):(.*)>$" "\\2"
                 link "${link}")
        endwhile()
        if(NOT TARGET "${link}" OR "${link}" IN_LIST seen)
          continue()
        endif()
        list(APPEND seen "${link}")
        list(APPEND queue "${link}")
      endforeach()
    endforeach()
  endwhile()
  set(${out} "${seen}" PARENT_SCOPE)
endfunction()

# The folder (relative to the source root) a target is defined in.
function(neardup_target_folder target out)
  get_target_property(aliased ${target} ALIASED_TARGET)
  if(aliased)
    set(target ${aliased})
  endif()
  get_target_property(imported ${target} IMPORTED)
  if(imported)
    set(${out} "" PARENT_SCOPE)
    return()
  endif()
  get_target_property(dir ${target} SOURCE_DIR)
  file(RELATIVE_PATH relative "${PROJECT_SOURCE_DIR}" "${dir}")
  set(${out} "${relative}/" PARENT_SCOPE)
endfunction()

# Every target defined under `dir` and its subdirectories.
function(neardup_targets_under dir out)
  get_property(targets DIRECTORY "${dir}" PROPERTY BUILDSYSTEM_TARGETS)
  get_property(subdirs DIRECTORY "${dir}" PROPERTY SUBDIRECTORIES)
  foreach(sub IN LISTS subdirs)
    neardup_targets_under("${sub}" more)
    list(APPEND targets ${more})
  endforeach()
  set(${out} "${targets}" PARENT_SCOPE)
endfunction()

function(neardup_check_link_rules)
  # A word ending in "::" is a namespace of imported targets.
  set(rules
      "core/=storage/ proto/ server/ client/ gRPC:: RocksDB::"
      "storage/=proto/ server/ client/ gRPC::"
      "server/engine/=server/rpc/ server/cluster/ client/ gRPC::"
      "server/cluster/=server/rpc/ client/ gRPC::"
      "server/extract/=server/engine/ server/rpc/ server/cluster/ storage/"
      "server/embed/=server/engine/ server/rpc/ server/cluster/ storage/"
      "server/http/=server/engine/ server/rpc/ server/cluster/ storage/"
      "server/=client/"
      "proto/=client/"
      "client/=server/engine/ server/rpc/ server/cluster/ storage/")
  # Every target of the folders CMake processed (a configuration may leave
  # some out).
  neardup_targets_under("${PROJECT_SOURCE_DIR}" targets)
  foreach(target IN LISTS targets)
    get_target_property(type ${target} TYPE)
    if(type STREQUAL "UTILITY")
      continue()
    endif()
    neardup_target_folder(${target} from_folder)
    set(linked "")
    foreach(rule IN LISTS rules)
      string(REPLACE "=" ";" parts "${rule}")
      list(GET parts 0 from)
      list(GET parts 1 forbidden)
      string(REPLACE " " ";" forbidden "${forbidden}")
      string(FIND "${from_folder}" "${from}" at)
      if(NOT at EQUAL 0)
        continue()
      endif()
      if(NOT linked)
        neardup_linked_targets(${target} linked)
      endif()
      foreach(link IN LISTS linked)
        neardup_target_folder(${link} folder)
        foreach(no IN LISTS forbidden)
          set(hit FALSE)
          if(no MATCHES "::$")
            string(FIND "${link}" "${no}" where)
            if(where EQUAL 0)
              set(hit TRUE)
            endif()
          else()
            string(FIND "${folder}" "${no}" where)
            if(where EQUAL 0)
              set(hit TRUE)
            endif()
          endif()
          if(hit)
            message(FATAL_ERROR
                    "${target} (${from}) links ${link} (${no}): the target "
                    "graph forbids it (cmake/NeardupLinkRules.cmake, "
                    "docs/architecture.md)")
          endif()
        endforeach()
      endforeach()
    endforeach()
  endforeach()
endfunction()
