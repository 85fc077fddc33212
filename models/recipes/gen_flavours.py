# NOT RUN YET: written in session 5, which had neither torch here nor a GPU machine lent;
# its first run (on the GPU machine) may need fixes. gen_models.py/gen_half.py are the tested
# generators it reuses.
#
# Export one tiny LLaVA (CLIP + Llama, random weights with real biases and norm scales) in the
# flavours users produce, for the export-flavour tests (issue 13): fp32 and fp16, TorchScript
# (opset 17) and dynamo (opset 18+). Needs torch, transformers, onnx, onnxruntime and a CUDA GPU
# for the fp16 flavours (the way users export for the GPU): run it on the GPU machine.
#
#   GEN_TOOLS=../shared/tools GEN_DIR=/tmp/flavours python3 models/recipes/gen_flavours.py [NAME ...]
#
# NAME: f32-ts f32-dynamo f16-ts f16-dynamo hd64-f32-ts hd128-f32-ts (default: all; hd64/hd128:
# head dims 64 and 128 in the vision and text attention, see SHAPES; any shape takes any flavour).
# Writes GEN_DIR/tiny-llava-NAME/:
#   config.json, onnx/{vision_encoder,embed_tokens,decoder_model_merged}.onnx,
#   onnx/<graph>_test_data_set_0/{input,output}_N.pb   (the graph's own dtype, from PyTorch)
#   reference/generation.json      greedy tokens of HF generate in the flavour's dtype
#                                  (fp32 on the CPU, fp16 on CUDA), and the fp32 CPU tokens
#   reference/pixel_values.npy     f32 pixels (pixel_values_f16.npy for the fp16 flavours)
#   reference/teacher_logits.npy   fp32 CPU logits [16, vocab] at each generated position,
#                                  teacher-forced on the fp32 tokens (for low-precision checks)
#   reference/image_features.npy, prefill_last_logits.npy   the fp32 CPU model's [1, F, hidden]
#                                  features and [vocab] logits after the prompt
#                                  (check_generation.py --intermediates)
# The model differs from ../shared/models/tiny-llava-ts on purpose: every bias and norm scale is
# random (gen_models.randomize) and the decoder has q/k/v biases (attention_bias, as Qwen2), so a
# dropped or reordered bias changes the outputs.
import json, os, sys, time, traceback
import numpy as np
import torch

sys.path.insert(0, os.environ.get("GEN_TOOLS", os.path.join(os.path.dirname(__file__), "../../../shared/tools")))
import gen_models as G  # noqa: E402

WORK = os.environ.get("GEN_DIR", "/tmp/flavours")
FLAVOURS = ["f32-ts", "f32-dynamo", "f16-ts", "f16-dynamo", "hd64-f32-ts", "hd128-f32-ts"]


# Shapes: the default (head dim 16 everywhere, as ../shared/models) and two whose head dims are
# those the tiled prefill, decode and fused decode-step CUDA kernels take (64 and 128), small
# enough for CI on the CPU: {shape: (vision hidden, vision heads, vision mlp, text hidden,
# text heads, text KV heads, text mlp)}.
SHAPES = {"": (64, 4, 128, 64, 4, 2, 176), "hd64": (128, 2, 256, 128, 2, 1, 256),
          "hd128": (256, 2, 256, 256, 2, 1, 256)}


def build(shape=""):
    from transformers import LlavaConfig, LlavaForConditionalGeneration, CLIPVisionConfig, LlamaConfig
    torch.manual_seed(0)
    vh, vheads, vmlp, th, theads, tkv, tmlp = SHAPES[shape]
    vc = CLIPVisionConfig(hidden_size=vh, intermediate_size=vmlp, num_hidden_layers=2, num_attention_heads=vheads,
                          image_size=64, patch_size=16, projection_dim=64)
    tc = LlamaConfig(hidden_size=th, intermediate_size=tmlp, num_hidden_layers=2, num_attention_heads=theads,
                     num_key_value_heads=tkv, vocab_size=320, max_position_embeddings=256, rms_norm_eps=1e-5,
                     tie_word_embeddings=False, attention_bias=True, rope_theta=10000.0)
    cfg = LlavaConfig(vision_config=vc, text_config=tc, image_token_index=300, vision_feature_layer=-2,
                      vision_feature_select_strategy="default", projector_hidden_act="gelu")
    m = LlavaForConditionalGeneration(cfg).eval()
    G.randomize(m, 0.08)
    return m, cfg


class Vision(torch.nn.Module):
    def __init__(s, m, cfg):
        super().__init__()
        s.m, s.cfg = m, cfg

    def forward(s, pixel_values):
        mm = s.m.model
        hs = mm.vision_tower(pixel_values, output_hidden_states=True).hidden_states[s.cfg.vision_feature_layer]
        if s.cfg.vision_feature_select_strategy == "default":
            hs = hs[:, 1:]
        return mm.multi_modal_projector(hs)


class Embed(torch.nn.Module):
    def __init__(s, e):
        super().__init__()
        s.e = e

    def forward(s, input_ids):
        return s.e(input_ids)


class LMHead(torch.nn.Module):
    def __init__(s, lm, head):
        super().__init__()
        s.lm, s.head = lm, head

    def forward(s, inputs_embeds, attention_mask, position_ids, past_key_values, use_cache):
        o = s.lm(inputs_embeds=inputs_embeds, attention_mask=attention_mask, position_ids=position_ids,
                 past_key_values=past_key_values, use_cache=use_cache)

        class R:
            pass
        r = R()
        r.logits = s.head(o.last_hidden_state)
        r.past_key_values = o.past_key_values
        return r


def export_graph(mod, args, path, ins, outs, dyn, dynamo, big=False):
    """big: weights over protobuf's 2 GB (external data; TorchScript without constant folding,
    as ../shared/tools/gen_half.py exports the benchmark shapes)."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    t0 = time.time()
    if dynamo:
        torch.onnx.export(mod, tuple(args), path, input_names=ins, output_names=outs, dynamic_axes=dyn,
                          dynamo=True, external_data=big)
    else:
        torch.onnx.export(mod, tuple(args), path, input_names=ins, output_names=outs, dynamic_axes=dyn,
                          opset_version=17, dynamo=False, do_constant_folding=not big)
    G.log("exported", path, f"{time.time() - t0:.1f}s")


def export_decoder(m, cfg, base, dtype, dev, dynamo, g, big=False):
    tc = cfg.text_config
    n, nkv = tc.num_hidden_layers, tc.num_key_value_heads
    hd = getattr(tc, "head_dim", None) or tc.hidden_size // tc.num_attention_heads
    dec = G.DecoderWithPast(LMHead(m.model.language_model, m.lm_head), n).eval()
    S, P, NB = 5, 3, (2 if dynamo else 1)  # torch.export specialises a dim whose example size is 1
    e = torch.randn(NB, S, tc.hidden_size, generator=g).to(dev, dtype)
    past = []
    for _ in range(n):
        past += [torch.randn(NB, nkv, P, hd, generator=g).to(dev, dtype),
                 torch.randn(NB, nkv, P, hd, generator=g).to(dev, dtype)]
    am = torch.ones(NB, P + S, dtype=torch.int64, device=dev)
    pos = torch.arange(P, P + S, device=dev).unsqueeze(0).repeat(NB, 1)
    ins = ["inputs_embeds", "attention_mask", "position_ids"]
    outs = ["logits"]
    dyn = {"inputs_embeds": {0: "batch", 1: "seq"}, "attention_mask": {0: "batch", 1: "total"},
           "position_ids": {0: "batch", 1: "seq"}, "logits": {0: "batch", 1: "seq"}}
    for i in range(n):
        for kv in ("key", "value"):
            ins.append(f"past_key_values.{i}.{kv}")
            outs.append(f"present.{i}.{kv}")
            dyn[f"past_key_values.{i}.{kv}"] = {0: "batch", 2: "past"}
            dyn[f"present.{i}.{kv}"] = {0: "batch", 2: "total"}
    path = f"{base}/onnx/decoder_model_merged.onnx"
    os.makedirs(os.path.dirname(path), exist_ok=True)
    if dynamo:
        # torch.export needs explicit positional names, not *varargs (as gen_models.py does)
        names = [x.replace(".", "_") for x in ins]
        src = f"def forward(self, {', '.join(names)}):\n    return DecoderWithPast.forward(self, {', '.join(names)})\n"
        ns = {"DecoderWithPast": G.DecoderWithPast}
        exec(src, ns)
        Explicit = type("DecoderExplicit", (G.DecoderWithPast,), {"forward": ns["forward"]})
        dec2 = Explicit(LMHead(m.model.language_model, m.lm_head), n).eval()
        from torch.export import Dim
        B, SQ, PS = Dim("batch", max=64), Dim("seq", max=4096), Dim("past", max=4096)
        dmap = {"batch": B, "seq": SQ, "past": PS}
        shapes = {x.replace(".", "_"): {ax: dmap[v] for ax, v in d.items() if v in dmap}
                  for x, d in dyn.items() if x in ins}
        shapes["attention_mask"] = {0: B, 1: Dim.AUTO}
        t0 = time.time()
        torch.onnx.export(dec2, tuple([e, am, pos, *past]), path, input_names=ins, output_names=outs,
                          dynamic_shapes=shapes, dynamo=True, external_data=big)
        G.log("exported", path, f"{time.time() - t0:.1f}s")
    else:
        export_graph(dec, [e, am, pos, *past], path, ins, outs, dyn, False, big)
    with torch.no_grad():
        res = dec(e, am, pos, *past)
    return [(x, t) for x, t in zip(ins, [e, am, pos, *past])], [(x, t) for x, t in zip(outs, res)]


def save_sets(base, sets):
    for gname, (ins, outs) in sets.items():
        d = f"{base}/onnx/{gname}_test_data_set_0"
        for j, (x, t) in enumerate(ins):
            G.tensor_pb(f"{d}/input_{j}.pb", t.detach().cpu().numpy(), x)
        for j, (x, t) in enumerate(outs):
            G.tensor_pb(f"{d}/output_{j}.pb", t.detach().cpu().numpy(), x)
        try:
            names, got = G.ort_run(f"{base}/onnx/{gname}.onnx", {x: t.detach().cpu().numpy() for x, t in ins})
            ref = {x: t.detach().cpu().float().numpy() for x, t in outs}
            errs = [float(np.max(np.abs(a.astype(np.float32) - ref[x]))) for x, a in zip(names, got)]
            G.log(base, gname, "ORT vs torch max abs err", max(errs))
        except Exception as ex:  # the test data stays; ORT is only a cross-check
            G.log(base, gname, "ORT FAILED", repr(ex)[:300])


def references(shape):
    """The fp32 CPU model of a shape, its pixels, prompt, greedy tokens and teacher-forced logits."""
    m32, cfg = build(shape)
    isz = cfg.vision_config.image_size
    pix = torch.rand(1, 3, isz, isz, generator=torch.Generator().manual_seed(1)) * 2 - 1
    with torch.no_grad():
        feats32 = Vision(m32, cfg).eval()(pix)
    nfeat = feats32.shape[1]
    prompt = [1] + [cfg.image_token_index] * nfeat + [11, 23, 57, 88, 4]
    ids = torch.tensor([prompt])
    with torch.no_grad():
        gen32 = m32.generate(input_ids=ids, pixel_values=pix, max_new_tokens=16, do_sample=False,
                             attention_mask=torch.ones_like(ids))
        tokens32 = gen32[0, len(prompt):].tolist()
        full = m32(input_ids=gen32, pixel_values=pix, attention_mask=torch.ones_like(gen32))
        # logits that predict each generated token, teacher-forced on the fp32 tokens
        teacher = full.logits[0, len(prompt) - 1:len(prompt) - 1 + 16].float()
    G.log(shape or "default shape", "fp32 CPU greedy tokens", tokens32)
    return m32, cfg, pix, prompt, ids, tokens32, teacher, feats32


def main():
    names = sys.argv[1:] or FLAVOURS
    refs = {}
    for name in names:
        t0 = time.time()
        try:
            parts = name.split("-")
            shape = parts.pop(0) if parts[0] in SHAPES else ""
            if parts not in (["f32", "ts"], ["f32", "dynamo"], ["f16", "ts"], ["f16", "dynamo"]):
                raise ValueError(f"flavour '{name}': expected [hd64-|hd128-]f32|f16-ts|dynamo")
            if shape not in refs:
                refs[shape] = references(shape)
            m32, cfg, pix, prompt, ids, tokens32, teacher, feats32 = refs[shape]
            half, dynamo = parts[0] == "f16", parts[1] == "dynamo"
            dev, dtype = ("cuda", torch.float16) if half else ("cpu", torch.float32)
            m = build(shape)[0].to(dev, dtype).eval() if half else m32
            base = os.path.join(WORK, f"tiny-llava-{name}")
            os.makedirs(base + "/reference", exist_ok=True)
            cfg.save_pretrained(base)
            p = pix.to(dev, dtype)
            vis = Vision(m, cfg).eval()
            emb = Embed(m.get_input_embeddings()).eval()
            eids = torch.tensor([[1, 5, 9, cfg.image_token_index, 17, 42, 7]], device=dev)
            with torch.no_grad():
                export_graph(vis, [p], f"{base}/onnx/vision_encoder.onnx", ["pixel_values"], ["image_features"],
                             {"pixel_values": {0: "batch"}, "image_features": {0: "batch"}}, dynamo)
                export_graph(emb, [eids], f"{base}/onnx/embed_tokens.onnx", ["input_ids"], ["inputs_embeds"],
                             {"input_ids": {0: "batch", 1: "seq"}, "inputs_embeds": {0: "batch", 1: "seq"}}, dynamo)
                dins, douts = export_decoder(m, cfg, base, dtype, dev, dynamo, torch.Generator().manual_seed(2))
                feats = vis(p)
                gen = m.generate(input_ids=ids.to(dev), pixel_values=p, max_new_tokens=16, do_sample=False,
                                 attention_mask=torch.ones_like(ids, device=dev))
                save_sets(base, {"vision_encoder": ([("pixel_values", p)], [("image_features", feats)]),
                                 "embed_tokens": ([("input_ids", eids)], [("inputs_embeds", emb(eids))]),
                                 "decoder_model_merged": (dins, douts)})
            tokens = gen[0, len(prompt):].tolist()
            ref = {"prompt_ids": prompt, "image_token_index": cfg.image_token_index,
                   "greedy_new_tokens": tokens, "f32_greedy_new_tokens": tokens32, "max_new_tokens": 16,
                   "pixel_values_shape": list(pix.shape),
                   "note": ("fp16 HF generate on CUDA" if half else "fp32 HF generate on the CPU") +
                           ", transformers " + __import__("transformers").__version__ +
                           "; f32_greedy_new_tokens: fp32 on the CPU"}
            with open(f"{base}/reference/generation.json", "w") as f:
                json.dump(ref, f, indent=1)
            G.save_npy(f"{base}/reference/pixel_values.npy", pix)
            if half:
                G.save_npy(f"{base}/reference/pixel_values_f16.npy", p)
            G.save_npy(f"{base}/reference/teacher_logits.npy", teacher)
            G.save_npy(f"{base}/reference/image_features.npy", feats32)  # fp32 CPU, as teacher
            G.save_npy(f"{base}/reference/prefill_last_logits.npy", teacher[0])
            G.log(name, "tokens", tokens, "same as fp32" if tokens == tokens32 else "differ from fp32",
                  f"{time.time() - t0:.1f}s")
        except Exception:
            G.log(name, "FAILED", traceback.format_exc()[-3000:])
    with open(os.path.join(WORK, "gen.log"), "w") as f:
        f.write("\n".join(G.LOG))


if __name__ == "__main__":
    main()
