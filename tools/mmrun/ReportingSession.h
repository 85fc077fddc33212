//===- ReportingSession.h - mmrun: a runtime Session and its reports ---------===//
//
// mmrun's generation modes run a mm::rt::Session (runtime/include/mmrt/Session.h, on
// the device --device names, kept across generations so its weights are prepared once)
// and report each generation: tokens, timings, memory and, on CUDA, launch statistics.
//
//===----------------------------------------------------------------------===//
#ifndef MM_TOOLS_MMRUN_REPORTINGSESSION_H
#define MM_TOOLS_MMRUN_REPORTINGSESSION_H

#include "tools/mmrun/Modes.h"

#include "mmrt/Session.h"

#include <nlohmann/json.hpp>

#include <memory>

namespace mmrun {

class ReportingSession {
public:
  /// Throws Error (no generation metadata, not compiled for CUDA, ...).
  ReportingSession(std::shared_ptr<const mm::rt::Plan> plan, const DeviceOptions &run);

  /// `imageGridThw`: Qwen2-VL's [images, 3] grids (GenerationRequest), else null.
  mm::rt::GenerationResult generate(const mm::rt::Tensor *pixelValues, const mm::rt::Tensor *imageGridThw,
                                    const std::vector<int64_t> &inputIds,
                                    const mm::rt::GenerationOptions &options);
  const mm::rt::GenerationInfo &info() const { return session_.plan().generation(); }
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
  /// The launch statistics as JSON, per role, with the decoder's segment ends.
  nlohmann::ordered_json launchesJson() const;
  mm::rt::Session session_;
};

} // namespace mmrun

#endif // MM_TOOLS_MMRUN_REPORTINGSESSION_H
