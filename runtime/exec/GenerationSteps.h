//===- GenerationSteps.h - the generation loop's checks and host tensors -----===//
//
// The checks and host tensors of the multimodal generation loop that do not depend on
// where the functions run: the loop (runtime/exec/Generator.cpp) and the backends that
// run steps of their own (runtime/cudaexec/CudaGeneration.cpp's greedy decode) use them.
//
//===----------------------------------------------------------------------===//
#ifndef MM_RUNTIME_EXEC_GENERATIONSTEPS_H
#define MM_RUNTIME_EXEC_GENERATIONSTEPS_H

#include "runtime/exec/GenerationBackend.h"
#include "runtime/exec/Generator.h"
#include "runtime/exec/PositionIds.h"
#include "runtime/plan/Plan.h"

#include <chrono>
#include <string>
#include <vector>

namespace mm::rt::generation {

using Clock = std::chrono::steady_clock;
/// Milliseconds since `start`.
double msSince(Clock::time_point start);

/// Throws Error unless the plan has generation metadata (embedding and decoder functions).
void requireGenerationInfo(const Plan &plan);
/// Checks the decoder (KV-cache slots; an input of role inputs_embeds; every input of role
/// inputs_embeds, attention_mask or position_ids, or a slot's kv_past) and returns the
/// index of its output of role logits. Throws Error naming the plan and the input.
int checkDecoder(const Plan &plan, const FunctionInfo &decoder);
/// Checks the vision encoder (an input of role pixel_values and, optionally, one of role
/// image_grid_thw; no other) and returns the index of its output of role image_features.
/// Throws Error naming the plan and the function.
int checkVision(const Plan &plan, const FunctionInfo &vision);
/// Throws Error unless the embedding function takes one input, of role input_ids, and
/// returns one result (inputs_embeds).
void checkEmbed(const FunctionInfo &embed);
/// Throws Error unless the embedding function returned [1, tokens, hidden].
void checkEmbeddings(const FunctionInfo &embed, const Shape &shape, size_t tokens);
/// "1 image token", "2 image tokens".
std::string counted(int64_t n, const char *noun);
/// The positions the decoder sees for a prompt and maxNewTokens new tokens (the last
/// token is not fed back).
int64_t positionsFed(int64_t promptTokens, int64_t maxNewTokens);
/// The most new tokens whose positions fit `maxPositions` after the prompt (the inverse of
/// positionsFed).
int64_t newTokensThatFit(int64_t promptTokens, int64_t maxPositions);
/// Checks a generation request before anything runs and returns its KV-cache capacity
/// (positions): options.kvCapacity when set, else the prompt's tokens + maxNewTokens.
/// Throws Error for an empty prompt, a prompt or teacher token id outside the vocabulary, maxNewTokens < 1, a negative capacity, maxNewTokens or
/// a capacity above 2^31 positions, a set
/// capacity that cannot hold positionsFed(prompt, maxNewTokens), or fewer than
/// maxNewTokens - 1 teacher tokens when any are given.
int64_t checkRequest(const GenerationInfo &g, const std::vector<int64_t> &inputIds,
                     const GenerationOptions &options);

/// A [1, n] host tensor of dtype `t` (i64, i32, f32 or bool) holding `values`.
Tensor rowOf(DType t, const std::vector<int64_t> &values);

/// The decoder's inputs for a step of `seq` tokens after `past` cached positions: `embeds`
/// at its input of role inputs_embeds, an attention_mask of past + seq ones, the position
/// ids positions.forStep gives, the kv_past inputs empty (the backend's cache holds them;
/// checkDecoder has checked that there are no others).
std::vector<StageInput> decoderInputs(const FunctionInfo &decoder, const HeldTensor &embeds,
                                      int64_t past, int64_t seq, const PositionIds &positions);
/// The rows of the decoder's position_ids: 3 when it is [3, batch, seq] (M-RoPE), else 1.
int64_t positionRows(const FunctionInfo &decoder);
/// The last row [vocab] of decoder logits [1, seq, vocab] (a view of the same memory);
/// throws Error unless the logits are f32, f16 or bf16 of that shape.
HeldTensor lastRow(const HeldTensor &logits);

/// Indices of the image tokens in the prompt.
std::vector<size_t> imageTokenPositions(const GenerationInfo &g, const std::vector<int64_t> &ids);
/// Throws Error unless the prompt has one image token per image feature (both counts named).
void checkImageTokenCount(const GenerationInfo &g, size_t imageTokens, int64_t features);
/// Whether `token` is one of the model's EOS tokens.
bool isEos(const GenerationInfo &g, int64_t token);
/// The number of image features (rows) in the vision encoder's result [1, N, hidden];
/// throws Error naming the shape when its rank is below 2.
int64_t imageFeatureCount(const Shape &features);
/// Throws Error unless the image features can be spliced into the token embeddings [1, S,
/// hidden] (same dtype, same hidden size); both are named.
void checkFeaturesMatchEmbeddings(DType featureType, const Shape &features, DType embedType,
                                  const Shape &embeds);
/// The token decode step `step` (>= 1) feeds: the teacher's when forcing, else the
/// previous step's argmax.
int64_t nextInput(const GenerationOptions &options, const GenerationResult &r, size_t step);
/// With teacher forcing, copies `row` ([vocab] f32) into r.stepLogits row `step`, making
/// r.stepLogits [options.maxNewTokens, vocab] at step 0; no-op otherwise.
void recordStepLogits(const GenerationOptions &options, GenerationResult &r, size_t step,
                      const Tensor &row);
/// The token `sampler` chooses from `row` ([vocab] f32 on the host, left as it is): the
/// context it penalises is the prompt and the tokens generated so far.
int64_t sampleFromRow(Sampler &sampler, const Tensor &row, const std::vector<int64_t> &prompt,
                      const std::vector<int64_t> &generated);
/// Appends `token` to r.tokens and tells options.onToken; sets r.stoppedAtEos (not when
/// teacher-forced or ignoring EOS) and r.stoppedByCaller. Returns whether the generation goes on (neither
/// stop, and fewer than options.maxNewTokens tokens).
bool acceptToken(const GenerationInfo &g, const GenerationOptions &options, GenerationResult &r,
                 int64_t token);
/// Sets r.decodeTokensPerSecond from r.tokens and r.decodeMs (the tokens after the first).
void setDecodeRate(GenerationResult &r);

} // namespace mm::rt::generation

#endif // MM_RUNTIME_EXEC_GENERATIONSTEPS_H
