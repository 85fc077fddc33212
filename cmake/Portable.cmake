# Self-contained build (-DMM_PORTABLE=ON): binaries that need only libc, libm and the loader,
# so dist/ runs on machines without LLVM (e.g. the GPU machine: Ubuntu 24.04, glibc 2.39).
#
# Statically linked: the MLIR and LLVM component libraries, libstdc++ and libgcc, zlib,
# zstd, protobuf (libprotobuf.a / libprotobuf-lite.a), OpenBLAS (libopenblas.a; its CBLAS
# objects need no libgfortran), libpng and libjpeg-turbo (runtime/image).
# Left out: z3 (LLVMSupport names libz3.so, but nothing mmc uses calls it).
# Still dynamic, by design: libc, libm, the loader; for a CUDA mmrun, libcuda (the driver)
# and libcublasLt (cudart is static: CUDA::cudart_static).
#
# Included from the top CMakeLists.txt after find_package(MLIR), before the other packages.

set(LLVM_LINK_LLVM_DYLIB OFF)

# One static archive by file name, e.g. mm_find_static(MM_ZLIB_STATIC libz.a).
function(mm_find_static var name)
  find_library(${var} NAMES ${name}
               HINTS ${CMAKE_CXX_IMPLICIT_LINK_DIRECTORIES} REQUIRED NO_CACHE)
  set(${var} ${${var}} PARENT_SCOPE)
endfunction()
mm_find_static(MM_ZLIB_STATIC libz.a)
mm_find_static(MM_ZSTD_STATIC libzstd.a)

# Later find_package calls pick .a archives: FindProtobuf and FindBLAS honour these.
set(Protobuf_USE_STATIC_LIBS ON)
set(BLA_STATIC ON)

# LLVMSupport's link interface (the only LLVM target naming them): static zlib and zstd
# instead of the shared ones, and no z3.
llvm_map_components_to_libnames(MM_LLVM_STATIC_LIBS support core demangle)
get_target_property(libs LLVMSupport INTERFACE_LINK_LIBRARIES)
list(FILTER libs EXCLUDE REGEX "libz3\\.so")
list(TRANSFORM libs REPLACE "^ZLIB::ZLIB$" "${MM_ZLIB_STATIC}")
list(TRANSFORM libs REPLACE "^zstd::libzstd_(shared|static)$" "${MM_ZSTD_STATIC}")
set_target_properties(LLVMSupport PROPERTIES INTERFACE_LINK_LIBRARIES "${libs}")

# Debian's MLIR targets name the `LLVM` dylib in INTERFACE_LINK_LIBRARIES; swap it for the
# static component libraries.
foreach(tgt ${MLIR_EXPORTED_TARGETS})
  if(TARGET ${tgt})
    get_target_property(libs ${tgt} INTERFACE_LINK_LIBRARIES)
    if(libs)
      list(TRANSFORM libs REPLACE "^LLVM$" "${MM_LLVM_STATIC_LIBS}")
      set_target_properties(${tgt} PROPERTIES INTERFACE_LINK_LIBRARIES "${libs}")
    endif()
  endif()
endforeach()

# The static MLIR libraries mmc may use. Listing more than needed costs nothing: only the
# archive members a binary references are linked. Add a library here when a link in the
# portable build reports undefined mlir:: symbols.
set(MM_PORTABLE_MLIR_LIBS
    MLIRIR MLIRParser MLIRAsmParser MLIRBytecodeReader MLIRBytecodeWriter MLIRPass
    MLIRSupport MLIRAnalysis MLIRFuncDialect MLIRFuncAllExtensions MLIRArithDialect
    MLIRTensorDialect MLIRTransforms MLIRTransformUtils MLIRRewrite MLIRDialect
    MLIRDialectUtils MLIRInferTypeOpInterface MLIRSideEffectInterfaces
    MLIRControlFlowInterfaces MLIRCallInterfaces MLIRFunctionInterfaces MLIROptLib
    MLIRDebug MLIRObservers MLIRPluginsLib)

# --as-needed drops DT_NEEDED entries nothing references (librt/libdl/libpthread stubs of
# glibc >= 2.34 that LLVMSupport's link interface names).
add_link_options(-static-libstdc++ -static-libgcc LINKER:--as-needed)
# No RUNPATH into the build machine's /usr/lib/llvm-19/lib (add_llvm_executable sets one).
set(CMAKE_SKIP_RPATH ON)
