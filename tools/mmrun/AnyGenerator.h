//===- AnyGenerator.h - mmrun: the CPU or CUDA generator of a plan ----------===//
//
// The generator --device names (runtime/exec/Generator.h or runtime/cudaexec/
// CudaGenerator.h), kept across generations (its weights uploaded once), and mmrun's
// report of a generation: tokens, timings, memory and, on CUDA, launch statistics. The one
// place mmrun tells the backends apart until the runtime core has one generation loop.
//
//===----------------------------------------------------------------------===//
#ifndef MM_TOOLS_MMRUN_ANYGENERATOR_H
#define MM_TOOLS_MMRUN_ANYGENERATOR_H

#include "tools/mmrun/Modes.h"

#include "runtime/exec/Generator.h"

#include <nlohmann/json.hpp>

#include <memory>

namespace mm::rt::cudaexec {
class CudaGenerator;
}

namespace mmrun {

class AnyGenerator {
public:
  /// Throws Error (no generation metadata, not compiled for CUDA, ...).
  AnyGenerator(std::shared_ptr<const mm::rt::Plan> plan, const DeviceOptions &run, bool profile);
  ~AnyGenerator();

  mm::rt::GenerationResult generate(const mm::rt::Tensor *pixelValues,
                                    const std::vector<int64_t> &inputIds,
                                    const mm::rt::GenerationOptions &options);
  const mm::rt::GenerationInfo &info() const { return plan_->generation(); }
  /// `pixels` in the vision encoder's float type (an f32 .npy or image feeds an f16
  /// export's encoder); other kinds and shapes pass as they are, so the encoder's input
  /// check names them. With `processedBy` (an image processor's name), pixel values whose
  /// height and width differ from the encoder's static ones are refused, naming both.
  mm::rt::Tensor toVisionInput(mm::rt::Tensor pixels, const std::string &processedBy = "") const;

  /// The timings and memory of `r` as JSON (the "timing" and "memory" members and, on
  /// CUDA, "launches").
  nlohmann::ordered_json statsJson(const mm::rt::GenerationResult &r) const;
  /// The same as text lines.
  void printStats(const mm::rt::GenerationResult &r, llvm::raw_ostream &os) const;
  /// With --profile on the CPU: time per op kind of each function, to `os`.
  void printProfiles(llvm::raw_ostream &os) const;

private:
  struct Memory;
  Memory memory() const;
  std::shared_ptr<const mm::rt::Plan> plan_;
  DeviceOptions run_;
  std::unique_ptr<mm::rt::Generator> cpu_;
#ifdef MM_HAVE_CUDA
  std::unique_ptr<mm::rt::cudaexec::CudaGenerator> cuda_;
#endif
};

} // namespace mmrun

#endif // MM_TOOLS_MMRUN_ANYGENERATOR_H
