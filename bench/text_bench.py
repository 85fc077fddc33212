#!/usr/bin/env python3
"""The text path of bench/text_bench.sh: a LLaVA folder made ready for `mmrun --prompt`, and
its transformers peer (LlavaProcessor + generate) in bf16 on one CUDA GPU.

  setup MODEL_DIR TEXT_DIR   copies tokenizer.json, tokenizer_config.json and
                             chat_template.jinja from TEXT_DIR (models/tiny-llava-chat: 32064
                             ids, as the llava-1b/7b shapes) and writes processor_config.json
                             (CLIP at the model's image_size, its patch_size) and a greedy
                             generation_config.json
  hf MODEL_DIR IMAGE PROMPT N [--sample]
                             HF eager (SDPA) bf16: processor(apply_chat_template) then
                             generate(min_new_tokens=N, max_new_tokens=N), greedy or sampled
                             (temperature 0.8, top_p 0.9); one untimed run, then 3 timed;
                             medians of preprocess_ms (template + tokenizer + image processor),
                             time_to_first_token_ms (inputs to the device, generate until the
                             streamer gets the first token) and decode_tokens_per_s (tokens
                             after the first / time from the first to the last).
Prints one JSON object.
"""
import json
import os
import shutil
import statistics
import sys
import time


def setup(model, text):
    for f in ("tokenizer.json", "tokenizer_config.json", "chat_template.jinja"):
        shutil.copy(os.path.join(text, f), os.path.join(model, f))
    with open(os.path.join(model, "config.json")) as f:
        vc = json.load(f)["vision_config"]
    size, patch = vc["image_size"], vc["patch_size"]
    with open(os.path.join(text, "processor_config.json")) as f:
        proc = json.load(f)
    proc["image_processor"]["size"] = {"shortest_edge": size}
    proc["image_processor"]["crop_size"] = {"height": size, "width": size}
    proc["patch_size"] = patch
    with open(os.path.join(model, "processor_config.json"), "w") as f:
        json.dump(proc, f, indent=1)
    with open(os.path.join(model, "generation_config.json"), "w") as f:
        json.dump({"bos_token_id": 1, "eos_token_id": 2, "pad_token_id": 32001}, f)
    print(json.dumps({"setup": model, "image_size": size, "patch_size": patch}))


def hf(model, image, prompt, n, sample):
    import torch
    from PIL import Image
    from transformers import (AutoTokenizer, CLIPImageProcessorPil, LlavaForConditionalGeneration,
                              LlavaProcessor)
    from transformers.generation.streamers import BaseStreamer
    with open(os.path.join(model, "processor_config.json")) as f:
        pc = json.load(f)
    ip = CLIPImageProcessorPil(**{k: v for k, v in pc["image_processor"].items() if k != "image_processor_type"})
    with open(os.path.join(model, "chat_template.jinja")) as f:
        template = f.read()
    proc = LlavaProcessor(image_processor=ip, tokenizer=AutoTokenizer.from_pretrained(model),
                          patch_size=pc["patch_size"], vision_feature_select_strategy="default",
                          num_additional_image_tokens=1, chat_template=template)
    m = LlavaForConditionalGeneration.from_pretrained(model, dtype=torch.bfloat16,
                                                      attn_implementation="sdpa").cuda().eval()
    img = Image.open(image)
    messages = [{"role": "user", "content": [{"type": "image"}, {"type": "text", "text": prompt}]}]

    class Clock(BaseStreamer):
        def __init__(s):
            s.times = []

        def put(s, value):
            s.times.append(time.perf_counter())

        def end(s):
            pass

    kw = dict(do_sample=True, temperature=0.8, top_p=0.9, top_k=0) if sample else dict(do_sample=False)
    runs = []
    for i in range(4):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        text = proc.apply_chat_template(messages, add_generation_prompt=True)
        inputs = proc(images=[img], text=text, return_tensors="pt")
        t1 = time.perf_counter()
        inputs = {k: v.cuda() for k, v in inputs.items()}
        inputs["pixel_values"] = inputs["pixel_values"].to(torch.bfloat16)
        clock = Clock()
        with torch.no_grad():
            out = m.generate(**inputs, max_new_tokens=n, min_new_tokens=n, streamer=clock, **kw)
        torch.cuda.synchronize()
        # put() gets the prompt first, then each new token
        firsts = clock.times[1:]
        new = out.shape[1] - inputs["input_ids"].shape[1]
        if i:
            runs.append({"preprocess_ms": (t1 - t0) * 1e3, "time_to_first_token_ms": (firsts[0] - t1) * 1e3,
                         "decode_tokens_per_s": (new - 1) / (firsts[-1] - firsts[0])})
    med = {k: statistics.median(r[k] for r in runs) for k in runs[0]}
    med.update(new_tokens=n, sample=sample, prompt_tokens=int(inputs["input_ids"].shape[1]))
    print(json.dumps(med))


if __name__ == "__main__":
    if sys.argv[1] == "setup":
        setup(sys.argv[2], sys.argv[3])
    else:
        hf(sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]), "--sample" in sys.argv)
