# One library target per pipeline stage (docs/architecture.md).
#
#   ckptdp_add_stage(<stage> SOURCES <src/<stage>/...cc> [STAGES <stages below>]
#                    [PUBLIC <libraries>] [PRIVATE <libraries>])
#
# makes the OBJECT library ckptdp_<stage> (and, in a CKPTDP_FUZZ build, ckptdp_fuzz_<stage>
# for the stages in CKPTDP_FUZZ_STAGES).
# What a stage's sources can #include is what enforces the one-way arrows:
#   - its public headers sit in include/<stage>/ckptdp/, an include root that only the stage
#     and the stages linking it (STAGES, transitively) are given;
#   - its private headers (src/<stage>/internal/, included as "<stage>/internal/x.h") are
#     reached through a per-stage root in the build tree that holds one symbolic link,
#     <stage> -> src/<stage>, so no other stage can reach them.
# An #include of a stage that is not linked therefore does not resolve, and the build fails.
# The objects of all stages go into the one installed library, ckptdp::ckptdp.

# The fuzzer (fuzz/instance_fuzzer.cc) drives the instance loader and the mode model: only
# these stages are compiled a second time with its instrumentation. The list must stay closed
# downwards (every stage a listed stage links is listed).
set(CKPTDP_FUZZ_STAGES core instance workload modes)

# Gives `target` the private include root of `stage`: "<stage>/..." resolves, nothing else
# under src/ does.
function(ckptdp_private_include_root target stage)
  set(root ${PROJECT_BINARY_DIR}/stage-private/${stage})
  set(link ${root}/${stage})
  set(target_dir ${PROJECT_SOURCE_DIR}/src/${stage})
  if(IS_SYMLINK ${link})
    file(READ_SYMLINK ${link} current)
    if(NOT current STREQUAL target_dir)  # the source tree moved
      file(REMOVE ${link})
    endif()
  endif()
  if(NOT IS_SYMLINK ${link})
    file(MAKE_DIRECTORY ${root})
    file(CREATE_LINK ${target_dir} ${link} SYMBOLIC)
  endif()
  target_include_directories(${target} PRIVATE ${root})
endfunction()

function(ckptdp_add_stage stage)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "" "SOURCES;STAGES;PUBLIC;PRIVATE")
  set(variants ckptdp)
  if(CKPTDP_FUZZ AND stage IN_LIST CKPTDP_FUZZ_STAGES)
    list(APPEND variants ckptdp_fuzz)
  endif()
  foreach(variant IN LISTS variants)
    set(target ${variant}_${stage})
    add_library(${target} OBJECT ${arg_SOURCES})
    set_target_properties(${target} PROPERTIES POSITION_INDEPENDENT_CODE ON)
    target_include_directories(${target}
      PUBLIC $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include/${stage}>)
    ckptdp_private_include_root(${target} ${stage})
    target_compile_options(${target} PRIVATE ${CKPTDP_WARNINGS})
    if(variant STREQUAL "ckptdp_fuzz")
      target_compile_options(${target} PRIVATE ${CKPTDP_FUZZ_FLAGS} -fsanitize=fuzzer-no-link)
    endif()
    list(TRANSFORM arg_STAGES PREPEND ${variant}_ OUTPUT_VARIABLE lower_stages)
    target_link_libraries(${target} PUBLIC ${lower_stages} ${arg_PUBLIC} PRIVATE ${arg_PRIVATE})
  endforeach()
  set_property(GLOBAL APPEND PROPERTY CKPTDP_STAGES ${stage})
endfunction()

# Include roots of the public headers of `stages` (default: every stage), for a combined
# library and for install.
function(ckptdp_public_include_dirs out)
  get_property(stages GLOBAL PROPERTY CKPTDP_STAGES)
  if(ARGN)
    set(stages ${ARGN})
  endif()
  set(dirs)
  foreach(stage IN LISTS stages)
    list(APPEND dirs ${PROJECT_SOURCE_DIR}/include/${stage})
  endforeach()
  set(${out} ${dirs} PARENT_SCOPE)
endfunction()

# The objects of `stages` (default: every stage) of `variant`, as sources for a combined
# library.
function(ckptdp_stage_objects out variant)
  get_property(stages GLOBAL PROPERTY CKPTDP_STAGES)
  if(ARGN)
    set(stages ${ARGN})
  endif()
  set(objects)
  foreach(stage IN LISTS stages)
    list(APPEND objects $<TARGET_OBJECTS:${variant}_${stage}>)
  endforeach()
  set(${out} ${objects} PARENT_SCOPE)
endfunction()
