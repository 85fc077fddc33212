# Self-contained build (-DMM_PORTABLE=ON): static MLIR + LLVM component libraries and static
# libstdc++/libgcc, so dist/ binaries run on machines without LLVM (e.g. the GPU machine).
# Debian's MLIR targets name the `LLVM` dylib in INTERFACE_LINK_LIBRARIES; swap it for the
# static component libraries.
set(LLVM_LINK_LLVM_DYLIB OFF)
find_package(ZLIB REQUIRED)
find_package(zstd REQUIRED)
llvm_map_components_to_libnames(MM_LLVM_STATIC_LIBS support core demangle)
foreach(tgt ${MLIR_EXPORTED_TARGETS})
  if(TARGET ${tgt})
    get_target_property(type ${tgt} TYPE)
    if(type STREQUAL "STATIC_LIBRARY" OR type STREQUAL "INTERFACE_LIBRARY")
      get_target_property(libs ${tgt} INTERFACE_LINK_LIBRARIES)
      if(libs)
        list(TRANSFORM libs REPLACE "^LLVM$" "${MM_LLVM_STATIC_LIBS}")
        set_target_properties(${tgt} PROPERTIES INTERFACE_LINK_LIBRARIES "${libs}")
      endif()
    endif()
  endif()
endforeach()
set(MM_PORTABLE_MLIR_LIBS MLIRIR MLIRParser MLIRPass MLIRSupport MLIRFuncDialect MLIRFuncAllExtensions
    MLIRTransforms MLIRTransformUtils MLIRInferTypeOpInterface MLIRSideEffectInterfaces
    MLIROptLib MLIRRewrite)
add_link_options(-static-libstdc++ -static-libgcc)
