# Export a benchmark-sized LLaVA (random weights) in one export flavour, built on the GPU in the
# flavour's dtype, for bench/flavours_bench.sh and bench/gpu_bench.sh --model (issue 13): the same
# model code for every flavour, so the flavours differ only in how they were exported.
#
#   GEN_TOOLS=../shared/tools GEN_DIR=/tmp/g python3 models/recipes/gen_big_flavour.py \
#       NAME DTYPE MODE [--weights] [--text-layers N]
#
# NAME: llava-1b | llava-7b (gen_models.build_llava's shapes: CLIP-B/16-224 + a 1.1B Llama with
# GQA 32/4, or CLIP-L/14-336 + Llama-2-7B). DTYPE: f32 | f16 | bf16 (the model's dtype at export,
# as `model.to(dtype)` before torch.onnx.export). MODE: ts (TorchScript, opset 17) | dynamo.
# Writes GEN_DIR/NAME-DTYPE-MODE/{config.json, onnx/{vision_encoder,embed_tokens,
# decoder_model_merged}.onnx (+ external data)}; --weights also writes the safetensors (the HF
# peers of bench/hf_llava_bench.py load them). --text-layers N keeps the first N decoder layers
# (the full vision tower: its timings at a fraction of the export time, about 50 s for llava-7b
# with 2). Matrices N(0, 0.02), biases and norm scales at their init (gen_models.build_llava):
# the figures do not depend on the values.
import os
import sys
import time

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_flavours as F  # noqa: E402  (puts GEN_TOOLS on the path for gen_models)

G = F.G
DTYPES = {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16}


def main():
    argv = sys.argv[1:]
    layers = None
    if "--text-layers" in argv:
        i = argv.index("--text-layers")
        if i + 1 >= len(argv) or not argv[i + 1].isdigit() or int(argv[i + 1]) < 1:
            sys.exit("--text-layers takes a positive layer count")
        layers = int(argv[i + 1])
        del argv[i:i + 2]
    args = [a for a in argv if a != "--weights"]
    if len(args) != 3 or args[0] not in ("llava-1b", "llava-7b") or args[1] not in DTYPES \
            or args[2] not in ("ts", "dynamo"):
        sys.exit("usage: gen_big_flavour.py llava-1b|llava-7b f32|f16|bf16 ts|dynamo [--weights] [--text-layers N]")
    name, dname, mode = args
    dtype, dev, dynamo = DTYPES[dname], "cuda", mode == "dynamo"
    t0 = time.time()
    G.VARIANT["name"] = name
    torch.set_default_dtype(dtype)
    with torch.device(dev):
        m, cfg = G.build_llava()
    torch.set_default_dtype(torch.float32)
    if layers is not None:
        lm = m.model.language_model
        lm.layers = lm.layers[:layers]
        cfg.text_config.num_hidden_layers = layers
    m = m.eval()
    base = os.path.join(F.WORK, f"{name}-{dname}-{mode}" + (f"-{layers}l" if layers is not None else ""))
    os.makedirs(base + "/onnx", exist_ok=True)
    cfg.save_pretrained(base)
    G.log(name, dname, mode, "built", f"{time.time() - t0:.1f}s")
    if "--weights" in sys.argv:
        m.save_pretrained(base)
        G.log("saved weights", f"{time.time() - t0:.1f}s")
    isz = cfg.vision_config.image_size
    pix = (torch.rand(1, 3, isz, isz, generator=torch.Generator().manual_seed(1)) * 2 - 1).to(dev, dtype)
    eids = torch.tensor([[1, 5, 9, cfg.image_token_index, 17]], device=dev)
    with torch.no_grad():
        F.export_graph(F.Vision(m, cfg).eval(), [pix], f"{base}/onnx/vision_encoder.onnx", ["pixel_values"],
                       ["image_features"], {"pixel_values": {0: "batch"}, "image_features": {0: "batch"}},
                       dynamo, big=True)
        F.export_graph(F.Embed(m.get_input_embeddings()).eval(), [eids], f"{base}/onnx/embed_tokens.onnx",
                       ["input_ids"], ["inputs_embeds"],
                       {"input_ids": {0: "batch", 1: "seq"}, "inputs_embeds": {0: "batch", 1: "seq"}},
                       dynamo, big=True)
        F.export_decoder(m, cfg, base, dtype, dev, dynamo, torch.Generator().manual_seed(2), big=True)
    G.log(name, dname, mode, "total", f"{time.time() - t0:.1f}s")


if __name__ == "__main__":
    main()
