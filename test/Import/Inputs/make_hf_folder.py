#!/usr/bin/env python3
"""Writes a tiny LLaVA Hugging Face folder (config.json + safetensors, random f32 weights)
for the HF importer's tests, with numpy only, and optionally breaks it.

  make_hf_folder.py OUT [--spelling old|new] [--shards N] [--break KIND]

The model: CLIP vision (hidden 32, 2 heads, 2 layers, 32x32 images of 16x16 patches: 4
patches + CLS) and a Llama text model (hidden 32, 4 heads of 8, 2 KV heads, 2 layers, vocab
64). --spelling: tensor names as transformers writes them before 4.52 (old:
language_model.model.*, vision_tower.*) or after (new: model.language_model.*, lm_head.*).
--shards N: N files with model.safetensors.index.json. --break KIND writes a bad folder:
  truncated        the file cut inside the tensor data
  header-past-end  the header length points past the end of the file
  overlap          two tensors' data_offsets overlap
  size             a tensor's data_offsets hold fewer bytes than its dtype and shape
  dtype            an unknown dtype
  missing          a tensor of the model left out
  shape            a tensor of another shape than config.json implies
  arch             an architecture mmc does not build
  rope             a rope_type mmc does not compile
  index-shard      the index names the wrong shard for a tensor
  two-files        two .safetensors files and no index
  not-json         the header is not JSON
  layers           config.json gives 1 text layer, the checkpoint has 2
  nested           a dtype nested 100000 lists deep (error messages must not recurse)
"""
import argparse
import json
import os
import struct

import numpy as np

V_HIDDEN, V_HEADS, V_LAYERS, V_MLP, IMAGE, PATCH = 32, 2, 2, 64, 32, 16
T_HIDDEN, T_HEADS, T_KV, T_LAYERS, T_MLP, VOCAB = 32, 4, 2, 2, 48, 64


def config(brk):
    return {
        "architectures": ["MllamaForConditionalGeneration" if brk == "arch" else "LlavaForConditionalGeneration"],
        "model_type": "llava", "image_token_index": 60, "vision_feature_layer": -2,
        "vision_feature_select_strategy": "default", "projector_hidden_act": "gelu",
        "vision_config": {"model_type": "clip_vision_model", "hidden_size": V_HIDDEN,
                          "intermediate_size": V_MLP, "num_hidden_layers": V_LAYERS,
                          "num_attention_heads": V_HEADS, "image_size": IMAGE, "patch_size": PATCH},
        "text_config": {"model_type": "llama", "hidden_size": T_HIDDEN, "intermediate_size": T_MLP,
                        "num_hidden_layers": 1 if brk == "layers" else T_LAYERS,
                        "num_attention_heads": T_HEADS,
                        "num_key_value_heads": T_KV, "vocab_size": VOCAB, "rms_norm_eps": 1e-5,
                        "max_position_embeddings": 128,
                        "rope_scaling": {"rope_type": "yarn" if brk == "rope" else "default"}},
    }


def tensors(spelling):
    text = "model.language_model." if spelling == "new" else "language_model.model."
    head = "lm_head." if spelling == "new" else "language_model.lm_head."
    vis = "model.vision_tower.vision_model." if spelling == "new" else "vision_tower.vision_model."
    proj = "model.multi_modal_projector." if spelling == "new" else "multi_modal_projector."
    hd, n = T_HIDDEN // T_HEADS, (IMAGE // PATCH) ** 2
    t = {vis + "embeddings.patch_embedding.weight": (V_HIDDEN, 3, PATCH, PATCH),
         vis + "embeddings.class_embedding": (V_HIDDEN,),
         vis + "embeddings.position_embedding.weight": (n + 1, V_HIDDEN),
         vis + "pre_layrnorm.weight": (V_HIDDEN,), vis + "pre_layrnorm.bias": (V_HIDDEN,),
         vis + "post_layernorm.weight": (V_HIDDEN,), vis + "post_layernorm.bias": (V_HIDDEN,)}
    for i in range(V_LAYERS):
        p = f"{vis}encoder.layers.{i}."
        for ln in ("layer_norm1", "layer_norm2"):
            t[p + ln + ".weight"] = t[p + ln + ".bias"] = (V_HIDDEN,)
        for x in ("q_proj", "k_proj", "v_proj", "out_proj"):
            t[p + f"self_attn.{x}.weight"], t[p + f"self_attn.{x}.bias"] = (V_HIDDEN, V_HIDDEN), (V_HIDDEN,)
        t[p + "mlp.fc1.weight"], t[p + "mlp.fc1.bias"] = (V_MLP, V_HIDDEN), (V_MLP,)
        t[p + "mlp.fc2.weight"], t[p + "mlp.fc2.bias"] = (V_HIDDEN, V_MLP), (V_HIDDEN,)
    t[proj + "linear_1.weight"], t[proj + "linear_1.bias"] = (T_HIDDEN, V_HIDDEN), (T_HIDDEN,)
    t[proj + "linear_2.weight"], t[proj + "linear_2.bias"] = (T_HIDDEN, T_HIDDEN), (T_HIDDEN,)
    t[text + "embed_tokens.weight"] = (VOCAB, T_HIDDEN)
    t[text + "norm.weight"] = (T_HIDDEN,)
    t[head + "weight"] = (VOCAB, T_HIDDEN)
    for i in range(T_LAYERS):
        p = f"{text}layers.{i}."
        t[p + "input_layernorm.weight"] = t[p + "post_attention_layernorm.weight"] = (T_HIDDEN,)
        t[p + "self_attn.q_proj.weight"] = t[p + "self_attn.o_proj.weight"] = (T_HIDDEN, T_HIDDEN)
        t[p + "self_attn.k_proj.weight"] = t[p + "self_attn.v_proj.weight"] = (T_KV * hd, T_HIDDEN)
        t[p + "mlp.gate_proj.weight"] = t[p + "mlp.up_proj.weight"] = (T_MLP, T_HIDDEN)
        t[p + "mlp.down_proj.weight"] = (T_HIDDEN, T_MLP)
    return t


def write_safetensors(path, arrays, brk=None):
    header, blobs, offset = {"__metadata__": {"format": "pt"}}, [], 0
    for name, a in arrays.items():
        b = a.astype("<f4").tobytes()
        header[name] = {"dtype": "F32", "shape": list(a.shape), "data_offsets": [offset, offset + len(b)]}
        blobs.append(b)
        offset += len(b)
    names = [n for n in arrays]
    if brk == "overlap":
        header[names[1]]["data_offsets"] = [header[names[0]]["data_offsets"][0] + 4,
                                            header[names[0]]["data_offsets"][0] + 4 + len(blobs[1])]
    if brk == "size":
        header[names[0]]["data_offsets"][1] -= 4
    if brk == "dtype":
        header[names[0]]["dtype"] = "F12"
    if brk == "nested":
        header[names[0]]["dtype"] = "@@"
    text = json.dumps(header).encode()
    if brk == "nested":
        text = text.replace(b'"@@"', b"[" * 100000 + b"]" * 100000)
    if brk == "not-json":
        text = b"{" + text
    text += b" " * (-len(text) % 8)
    length = len(text) + (1 << 20 if brk == "header-past-end" else 0)
    data = struct.pack("<Q", length) + text + b"".join(blobs)
    if brk == "truncated":
        data = data[: len(data) - 100]
    with open(path, "wb") as f:
        f.write(data)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--spelling", choices=["old", "new"], default="old")
    ap.add_argument("--shards", type=int, default=1)
    ap.add_argument("--break", dest="brk")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    rng = np.random.default_rng(5)
    arrays = {}
    for name, shape in tensors(a.spelling).items():
        if name.endswith("norm.weight") or "layer_norm" in name and name.endswith(".weight") or "layrnorm.weight" in name:
            arrays[name] = rng.normal(1.0, 0.1, shape)
        else:
            arrays[name] = rng.normal(0.0, 0.1 if len(shape) > 1 else 0.05, shape)
    if a.brk == "missing":
        arrays = {n: v for n, v in arrays.items() if not n.endswith("layers.1.mlp.up_proj.weight")}
    if a.brk == "shape":
        n = next(n for n in arrays if n.endswith("norm.weight") and "language_model" in n)
        arrays[n] = arrays[n][:16]
    with open(os.path.join(a.out, "config.json"), "w") as f:
        json.dump(config(a.brk), f, indent=1)
    if a.brk == "two-files":
        names = list(arrays)
        write_safetensors(os.path.join(a.out, "a.safetensors"), {n: arrays[n] for n in names[:10]})
        write_safetensors(os.path.join(a.out, "b.safetensors"), {n: arrays[n] for n in names[10:]})
        return
    if a.shards == 1 and a.brk != "index-shard":
        write_safetensors(os.path.join(a.out, "model.safetensors"), arrays, a.brk)
        return
    shards = max(a.shards, 2)
    names = list(arrays)
    weight_map = {}
    for s in range(shards):
        file = f"model-{s + 1:05d}-of-{shards:05d}.safetensors"
        part = names[s::shards]
        write_safetensors(os.path.join(a.out, file), {n: arrays[n] for n in part}, a.brk if s == 0 else None)
        weight_map.update({n: file for n in part})
    if a.brk == "index-shard":
        weight_map[names[0]] = f"model-00002-of-{shards:05d}.safetensors"
    with open(os.path.join(a.out, "model.safetensors.index.json"), "w") as f:
        json.dump({"metadata": {}, "weight_map": weight_map}, f, indent=1)


if __name__ == "__main__":
    main()
