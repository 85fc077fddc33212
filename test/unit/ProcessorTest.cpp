//===- ProcessorTest.cpp - the model files the text front end reads ----------===//
//
// Processor::fromFiles (runtime/chat/Processor.h) on the layouts models ship: which chat
// template wins (chat_template.jinja, chat_template.json, tokenizer_config.json's string or
// list form), special tokens as strings or AddedToken objects or from
// special_tokens_map.json, BOS added unless the prompt starts with it, image placeholders
// counted and expanded, and generation_config.json's sampling defaults.
//
//===----------------------------------------------------------------------===//
#include "runtime/chat/Processor.h"
#include "runtime/core/Error.h"

#include <gtest/gtest.h>

#include <map>

namespace {
using mm::rt::Processor;

const char *kTokenizerJson = R"({
  "added_tokens": [{"id": 0, "content": "<s>", "special": true, "normalized": false},
                   {"id": 1, "content": "<image>", "special": true, "normalized": false}],
  "post_processor": {"type": "TemplateProcessing", "single": [{"SpecialToken": {"id": "<s>", "type_id": 0}},
                     {"Sequence": {"id": "A", "type_id": 0}}], "pair": [],
                     "special_tokens": {"<s>": {"id": "<s>", "ids": [0], "tokens": ["<s>"]}}},
  "model": {"type": "BPE", "vocab": {"<s>": 0, "<image>": 1, "a": 2, "b": 3, " ": 4}, "merges": []}
})";

/// A processor over `files` (tokenizer.json added), image token 1, 3 features per image.
Processor make(std::map<std::string, std::string> files) {
  files.emplace("tokenizer.json", kTokenizerJson);
  auto lookup = [files](const std::string &name) -> const std::string * {
    auto it = files.find(name);
    return it == files.end() ? nullptr : &it->second;
  };
  return Processor::fromFiles(lookup, "test", /*imageTokenId=*/1, /*featuresPerImage=*/3);
}

nlohmann::ordered_json user(const std::string &text) {
  return nlohmann::ordered_json::array({{{"role", "user"}, {"content", text}}});
}

TEST(ProcessorTest, ChatTemplatePrecedence) {
  const std::string config = R"({"chat_template": "C{{ messages[0].content }}"})";
  EXPECT_EQ(make({{"tokenizer_config.json", config}}).renderChat(user("a"), true), "Ca");
  EXPECT_EQ(make({{"tokenizer_config.json", config}, {"chat_template.json", R"({"chat_template": "J"})"}})
                .renderChat(user("a"), true),
            "J");
  EXPECT_EQ(make({{"tokenizer_config.json", config}, {"chat_template.json", R"({"chat_template": "J"})"},
                  {"chat_template.jinja", "T"}})
                .renderChat(user("a"), true),
            "T");
  const std::string list = R"({"chat_template": [{"name": "tool_use", "template": "X"},
                                                 {"name": "default", "template": "D{{ add_generation_prompt }}"}]})";
  EXPECT_EQ(make({{"tokenizer_config.json", list}}).renderChat(user("a"), true), "DTrue");
  EXPECT_THROW(make({{"tokenizer_config.json", R"({"chat_template": [{"name": "x", "template": "X"}]})"}}),
               mm::rt::Error);
  EXPECT_FALSE(make({}).hasChatTemplate());
  EXPECT_THROW(make({}).renderChat(user("a"), true), mm::rt::Error);
}

TEST(ProcessorTest, SpecialTokensAsStringsObjectsOrFromTheMap) {
  const std::string t = "{{ bos_token }}|{{ eos_token }}";
  EXPECT_EQ(make({{"chat_template.jinja", t},
                  {"tokenizer_config.json", R"({"bos_token": {"content": "<s>", "lstrip": false}, "eos_token": "</s>"})"}})
                .renderChat(user("a"), false),
            "<s>|</s>");
  EXPECT_EQ(make({{"chat_template.jinja", t}, {"special_tokens_map.json", R"({"bos_token": "B", "eos_token": "E"})"}})
                .renderChat(user("a"), false),
            "B|E");
  // tokenizer_config.json wins over special_tokens_map.json, token by token.
  EXPECT_EQ(make({{"chat_template.jinja", t}, {"tokenizer_config.json", R"({"bos_token": "<s>"})"},
                  {"special_tokens_map.json", R"({"bos_token": "B", "eos_token": "E"})"}})
                .renderChat(user("a"), false),
            "<s>|E");
}

TEST(ProcessorTest, BosIsAddedUnlessThePromptStartsWithIt) {
  Processor p = make({{"tokenizer_config.json", R"({"bos_token": "<s>"})"}});
  EXPECT_EQ(p.encode("ab", {}).ids, (std::vector<int64_t>{0, 2, 3}));
  EXPECT_EQ(p.encode("<s>ab", {}).ids, (std::vector<int64_t>{0, 2, 3}));
}

TEST(ProcessorTest, PlaceholdersMustMatchTheImages) {
  Processor p = make({});
  EXPECT_EQ(p.imagePlaceholder(), "<image>");
  EXPECT_EQ(p.plainPrompt("ab", 2), "<image>\n<image>\nab");
  EXPECT_EQ(p.plainPrompt("a<image>b", 1), "a<image>b");
  // No image processor: images are refused; a placeholder without its image too (the
  // model would find no features for it).
  EXPECT_THROW(p.processImage(mm::rt::RgbImage{1, 1, {0, 0, 0}}), mm::rt::Error);
  EXPECT_THROW(p.encode("<image>a", {}), mm::rt::Error);
}

TEST(ProcessorTest, AProcessorThatExpandsNothingGetsOnePlaceholderPerFeature) {
  // CLIPProcessor (no processor_config.json): each <image> becomes featuresPerImage (3)
  // image tokens; the pixels are [images, 3, 2, 2].
  Processor p = make({{"preprocessor_config.json",
                       R"({"image_processor_type": "CLIPImageProcessor", "size": {"shortest_edge": 2},
                           "crop_size": {"height": 2, "width": 2}})"}});
  mm::rt::RgbImage im{4, 4, std::vector<uint8_t>(48, 200)};
  mm::rt::EncodedPrompt e = p.encode("a<image>b<image>", {p.processImage(im), p.processImage(im)});
  EXPECT_EQ(e.text, "a<image><image><image>b<image><image><image>");
  EXPECT_EQ(e.ids, (std::vector<int64_t>{0, 2, 1, 1, 1, 3, 1, 1, 1}));
  EXPECT_EQ(e.pixelValues.shape, (mm::rt::Shape{2, 3, 2, 2}));
}

TEST(ProcessorTest, Idefics3FramesAreStackedInOrderAndPaddedOnesRefused) {
  using mm::rt::ProcessedImage;
  const mm::rt::ImageProcessor idefics3 = mm::rt::ImageProcessor::fromConfigs(
      R"({"image_processor_type": "Idefics3ImageProcessor"})", "preprocessor_config.json");
  // Two images of 3 and 1 frames [1, frames, 3, 1, 1] (values = frame index) -> 4 frames
  // [4, 3, 1, 1] in order.
  auto frames = [](int64_t n, float first) {
    ProcessedImage p;
    p.shape = {1, n, 3, 1, 1};
    for (int64_t f = 0; f < n; ++f)
      p.pixelValues.insert(p.pixelValues.end(), 3, first + static_cast<float>(f));
    p.pixelAttentionMask.assign(static_cast<size_t>(n), 1);
    p.frames = n;
    return p;
  };
  mm::rt::Tensor t = mm::rt::batchPixelValues(idefics3, {frames(3, 0), frames(1, 3)});
  EXPECT_EQ(t.shape, (mm::rt::Shape{4, 3, 1, 1}));
  for (int64_t i = 0; i < 12; ++i)
    EXPECT_EQ(t.as<float>()[i], static_cast<float>(i / 3));
  // A padded frame (a non-square image's global frame) is refused, naming the processor.
  ProcessedImage padded = frames(2, 0);
  padded.pixelAttentionMask.back() = 0;
  try {
    mm::rt::batchPixelValues(idefics3, {padded});
    ADD_FAILURE() << "a padded frame was accepted";
  } catch (const mm::rt::Error &e) {
    EXPECT_NE(std::string(e.what()).find("Idefics3ImageProcessor padded a frame"), std::string::npos) << e.what();
  }
  // Qwen2-VL's patches [patches, C*T*P*P] are not frames.
  ProcessedImage patches;
  patches.shape = {4, 12};
  patches.pixelValues.assign(48, 0.0f);
  EXPECT_THROW(mm::rt::batchPixelValues(idefics3, {patches}), mm::rt::Error);
}

TEST(ProcessorTest, GenerationDefaults) {
  auto d = make({{"generation_config.json", R"({"do_sample": true, "temperature": 0.6, "top_p": 0.9})"}})
               .generationDefaults();
  EXPECT_EQ(d.sampling.temperature, 0.6);
  EXPECT_EQ(d.sampling.topK, 50); // GenerationConfig's default
  EXPECT_EQ(d.sampling.topP, 0.9);
  d = make({{"generation_config.json", R"({"temperature": 0.6, "repetition_penalty": 1.1, "max_new_tokens": 7})"}})
          .generationDefaults();
  EXPECT_FALSE(d.doSample);
  EXPECT_EQ(d.choose(std::nullopt).temperature, 0); // no do_sample: greedy
  EXPECT_EQ(d.sampling.repetitionPenalty, 1.1);
  EXPECT_EQ(d.maxNewTokens, 7);
  EXPECT_THROW(make({{"generation_config.json", R"({"do_sample": true, "top_p": 2})"}}), mm::rt::Error);
  EXPECT_THROW(make({{"generation_config.json", R"({"do_sample": true, "temperature": 0})"}}), mm::rt::Error);
  // A temperature asked for samples with the config's top_k / top_p; 0 is greedy.
  auto g = make({{"generation_config.json", R"({"top_p": 0.8})"}}).generationDefaults();
  EXPECT_EQ(g.choose(std::nullopt).temperature, 0);
  EXPECT_EQ(g.choose(0.7).temperature, 0.7);
  EXPECT_EQ(g.choose(0.7).topK, 50);
  EXPECT_EQ(g.choose(0.7).topP, 0.8);
  EXPECT_THROW(make({{"generation_config.json", R"({"do_sample": "yes"})"}}), mm::rt::Error);
  EXPECT_THROW(make({{"generation_config.json", R"({"max_new_tokens": 0})"}}), mm::rt::Error);
}

TEST(ProcessorTest, MissingOrBrokenFilesAreNamed) {
  auto none = [](const std::string &) -> const std::string * { return nullptr; };
  try {
    Processor::fromFiles(none, "plan.fb", -1, -1);
    FAIL() << "no error";
  } catch (const mm::rt::Error &e) {
    EXPECT_NE(std::string(e.what()).find("plan.fb: the plan has no tokenizer.json"), std::string::npos) << e.what();
  }
  try {
    make({{"tokenizer_config.json", "{"}});
    FAIL() << "no error";
  } catch (const mm::rt::Error &e) {
    EXPECT_NE(std::string(e.what()).find("test: tokenizer_config.json: not a JSON object"), std::string::npos) << e.what();
  }
}

} // namespace
