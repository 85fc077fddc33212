#!/usr/bin/env python3
"""A numpy (float64) reference of transformers' LlavaForConditionalGeneration,
PaliGemmaForConditionalGeneration, Idefics3ForConditionalGeneration and FuyuForCausalLM
(its Persimmon decoder from modeling_persimmon.py) for the
configurations the HF importer builds (CLIP / SigLIP / Idefics3 vision; Llama / Mistral /
Qwen2 / Gemma text), written from modeling_llava.py, modeling_paligemma.py,
modeling_idefics3.py, modeling_clip.py, modeling_siglip.py, modeling_llama.py (with
Mistral's sliding window and Qwen2's per-layer windows) and modeling_gemma.py, and a
driver that checks mmc against it without torch:

  hf_numpy_reference.py MMC MMRUN WORK [CASE ...]

For each case (a config.json, random weights with nonzero biases and norm scales N(1, 0.1))
it writes a Hugging Face folder, compiles it (f32, CPU) and compares the vision encoder's
image features (atol 1e-4) and the decoder's prefill logits (atol 1e-3; f32 against f64,
as the ONNX path's tolerances) with the reference. Prints PASS/FAIL per case; exit 1 on a
failure. (The PyTorch references of models/recipes/gen_hf_models.py check the same
semantics against transformers itself on the GPU machine.)
"""
import json, os, struct, math, subprocess, sys
import numpy as np
from math import erf

def write_st(path, arrays, dtype="F32"):
    header, blobs, off = {"__metadata__": {"format": "pt"}}, [], 0
    for n, a in arrays.items():
        a32 = np.asarray(a, np.float32)
        if dtype == "F32": b = a32.astype("<f4").tobytes()
        elif dtype == "F16": b = a32.astype("<f2").tobytes()
        elif dtype == "BF16": b = (a32.view(np.uint32) >> 16).astype("<u2").tobytes()
        header[n] = {"dtype": dtype, "shape": list(a32.shape), "data_offsets": [off, off + len(b)]}
        blobs.append(b); off += len(b)
    t = json.dumps(header).encode(); t += b" " * (-len(t) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(t)) + t + b"".join(blobs))

def act(name, x):
    if name == "quick_gelu": return x / (1 + np.exp(-1.702 * x))
    if name == "gelu": return 0.5 * x * (1 + np.vectorize(erf)(x / math.sqrt(2)))
    if name in ("gelu_pytorch_tanh", "gelu_new", "gelu_fast"):
        return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))
    if name == "silu": return x / (1 + np.exp(-x))
    if name == "relu": return np.maximum(x, 0)
    raise ValueError(name)

def ln(x, w, b, eps):
    m = x.mean(-1, keepdims=True); v = ((x - m) ** 2).mean(-1, keepdims=True)
    return (x - m) / np.sqrt(v + eps) * w + b

def rms(x, w, eps):
    return x / np.sqrt((x ** 2).mean(-1, keepdims=True) + eps) * w

def softmax(s):
    m = s.max(-1, keepdims=True); m = np.where(np.isinf(m), 0, m); e = np.exp(s - m); t = e.sum(-1, keepdims=True); return np.where(t > 0, e / np.where(t > 0, t, 1), 0)

def lin(W, x, name, bias):
    y = x @ W[name + ".weight"].T
    if bias: y = y + W[name + ".bias"]
    return y

def vision(W, vc, pix, pre):
    g = lambda n: W[pre + n]
    h, p = vc["hidden_size"], vc["patch_size"]
    B, C, S, _ = pix.shape; G = S // p
    pix = pix[:, :, :G * p, :G * p]  # nn.Conv2d's "valid" padding drops the rest
    w = g("embeddings.patch_embedding.weight")
    patches = pix.reshape(B, C, G, p, G, p).transpose(0, 2, 4, 1, 3, 5).reshape(B, G * G, C * p * p)
    x = patches @ w.reshape(h, -1).T
    clip = vc["model_type"] == "clip_vision_model"
    if not clip: x = x + g("embeddings.patch_embedding.bias")
    if clip: x = np.concatenate([np.broadcast_to(g("embeddings.class_embedding"), (B, 1, h)), x], 1)
    x = x + g("embeddings.position_embedding.weight")
    eps = vc.get("layer_norm_eps", 1e-5 if clip else 1e-6)
    if clip: x = ln(x, g("pre_layrnorm.weight"), g("pre_layrnorm.bias"), eps)
    states = [x]
    heads = vc["num_attention_heads"]; hd = h // heads
    a = vc.get("hidden_act", "quick_gelu" if clip else "gelu_pytorch_tanh")
    for i in range(vc["num_hidden_layers"]):
        P = pre + f"encoder.layers.{i}."
        n = ln(x, W[P + "layer_norm1.weight"], W[P + "layer_norm1.bias"], eps)
        sh = lambda t: t.reshape(B, -1, heads, hd).transpose(0, 2, 1, 3)
        q, k, v = (sh(lin(W, n, P + "self_attn." + m, True)) for m in ("q_proj", "k_proj", "v_proj"))
        o = softmax(q @ k.transpose(0, 1, 3, 2) * hd ** -0.5) @ v
        x = x + lin(W, o.transpose(0, 2, 1, 3).reshape(B, -1, h), P + "self_attn.out_proj", True)
        n = ln(x, W[P + "layer_norm2.weight"], W[P + "layer_norm2.bias"], eps)
        x = x + lin(W, act(a, lin(W, n, P + "mlp.fc1", True)), P + "mlp.fc2", True)
        states.append(x)
    return states

def family(cfg):
    return {"PaliGemmaForConditionalGeneration": "paligemma", "Idefics3ForConditionalGeneration": "idefics3",
            "FuyuForCausalLM": "fuyu"}.get(cfg["architectures"][0], "llava")

# Tensor-name prefixes per family: vision tower, projector / connector, text model, lm_head.
PREFIXES = {"llava": ("vision_tower.vision_model.", "multi_modal_projector.", "language_model.model.", "language_model."),
            "paligemma": ("vision_tower.vision_model.", "multi_modal_projector.", "language_model.model.", "language_model."),
            "idefics3": ("model.vision_model.", "model.connector.", "model.text_model.", ""),
            "fuyu": ("", "model.", "model.language_model.", "")}

def pixel_shuffle(x, s):
    B, n2, E = x.shape; n = int(round(n2 ** 0.5))
    x = x.reshape(B, n, n // s, E * s).transpose(0, 2, 1, 3)
    x = x.reshape(B, n // s, n // s, E * s * s).transpose(0, 2, 1, 3)
    return x.reshape(B, n2 // (s * s), E * s * s)

def image_features(W, cfg, pix, vpre, ppre):
    fam = family(cfg)
    if fam == "fuyu":  # the patches [batch, patches, P * P * C] through vision_embed_tokens
        return lin(W, pix, ppre + "vision_embed_tokens", True)
    if fam != "llava":  # last_hidden_state: every layer, then post_layernorm
        vc = cfg["vision_config"]
        x = ln(vision(W, vc, pix, vpre)[-1], W[vpre + "post_layernorm.weight"], W[vpre + "post_layernorm.bias"],
               vc.get("layer_norm_eps", 1e-6))
        if fam == "paligemma": return lin(W, x, ppre + "linear", True)
        return lin(W, pixel_shuffle(x, cfg.get("scale_factor", 2)), ppre + "modality_projection.proj", False)
    st = vision(W, cfg["vision_config"], pix, vpre)
    L = cfg.get("vision_feature_layer", -2)
    Ls = L if isinstance(L, list) else [L]
    hs = [st[l] for l in Ls]
    if cfg.get("vision_feature_select_strategy", "default") == "default": hs = [h[:, 1:] for h in hs]
    x = np.concatenate(hs, -1)
    bias = cfg.get("multimodal_projector_bias", True)
    x = act(cfg.get("projector_hidden_act", "gelu"), lin(W, x, ppre + "linear_1", bias))
    return lin(W, x, ppre + "linear_2", bias)

def inv_freq(tc, hd):
    rp = tc.get("rope_parameters") or {}
    rs = tc.get("rope_scaling") or {}
    theta = rp.get("rope_theta", tc.get("rope_theta", 10000.0))
    sc = rp if rp else rs
    typ = sc.get("rope_type", sc.get("type", "default"))
    inv = 1.0 / (np.float32(theta) ** (np.arange(0, hd, 2, dtype=np.float32) / np.float32(hd)))
    inv = inv.astype(np.float32)
    if typ == "linear": inv = inv / np.float32(sc["factor"])
    elif typ == "llama3":
        f, lo, hi, old = sc["factor"], sc["low_freq_factor"], sc["high_freq_factor"], sc["original_max_position_embeddings"]
        lw, hw = old / lo, old / hi
        wl = 2 * math.pi / inv
        il = np.where(wl > lw, inv / f, inv)
        s = (old / wl - lo) / (hi - lo)
        sm = (1 - s) * il / f + s * il
        med = ~(wl < hw) & ~(wl > lw)
        inv = np.where(med, sm, il)
    return inv.astype(np.float64)

def persimmon_decoder(W, tc, embeds, mask, pos, past, tpre, hpre):
    """PersimmonModel + lm_head (modeling_persimmon.py): LayerNorms, the fused per-head
    query_key_value, qk LayerNorms over head_dim, partial rotary, relu2 MLP."""
    h = tc["hidden_size"]; heads = tc["num_attention_heads"]; hd = h // heads
    eps = tc.get("layer_norm_eps", 1e-5)
    rp = tc.get("rope_parameters") or {}
    rot = int(hd * rp.get("partial_rotary_factor", tc.get("partial_rotary_factor", 0.5)))
    theta = rp.get("rope_theta", tc.get("rope_theta", 25000.0))
    inv = (1.0 / (np.float32(theta) ** (np.arange(0, rot, 2, dtype=np.float32) / np.float32(rot)))).astype(np.float64)
    fr = pos[..., None] * inv
    emb = np.concatenate([fr, fr], -1); cos, sin = np.cos(emb)[:, None], np.sin(emb)[:, None]
    rope = lambda t: np.concatenate([t[..., :rot] * cos + np.concatenate([-t[..., rot // 2:rot], t[..., :rot // 2]], -1) * sin,
                                     t[..., rot:]], -1)
    a = tc.get("hidden_act", "relu2")
    mlp_act = (lambda x: np.maximum(x, 0) ** 2) if a == "relu2" else (lambda x: act(a, x))
    B, S, _ = embeds.shape; T = mask.shape[1]; x = embeds
    for i in range(tc["num_hidden_layers"]):
        P = tpre + f"layers.{i}."
        n = ln(x, W[P + "input_layernorm.weight"], W[P + "input_layernorm.bias"], eps)
        qkv = lin(W, n, P + "self_attn.query_key_value", True).reshape(B, S, heads, 3, hd)
        q, k, v = qkv[..., 0, :], qkv[..., 1, :], qkv[..., 2, :]
        if tc.get("qk_layernorm", True):
            q = ln(q, W[P + "self_attn.q_layernorm.weight"], W[P + "self_attn.q_layernorm.bias"], eps)
            k = ln(k, W[P + "self_attn.k_layernorm.weight"], W[P + "self_attn.k_layernorm.bias"], eps)
        q, k, v = (t.transpose(0, 2, 1, 3) for t in (q, k, v))
        q, k = rope(q), rope(k)
        pk, pv = past[i]
        k = np.concatenate([pk, k], 2); v = np.concatenate([pv, v], 2)
        qi = np.arange(S)[:, None] + pk.shape[2]; kj = np.arange(T)[None, :]
        add = np.where((kj <= qi)[None] & (mask[:, None, :] > 0), 0.0, -np.inf)[:, None]
        o = softmax(q @ k.transpose(0, 1, 3, 2) * hd ** -0.5 + add) @ v
        x = x + lin(W, o.transpose(0, 2, 1, 3).reshape(B, S, h), P + "self_attn.dense", True)
        n = ln(x, W[P + "post_attention_layernorm.weight"], W[P + "post_attention_layernorm.bias"], eps)
        x = x + lin(W, mlp_act(lin(W, n, P + "mlp.dense_h_to_4h", True)), P + "mlp.dense_4h_to_h", True)
    x = ln(x, W[tpre + "final_layernorm.weight"], W[tpre + "final_layernorm.bias"], eps)
    return x @ W[hpre + "lm_head.weight"].T, None

def decoder(W, tc, embeds, mask, pos, past, tpre, hpre, tied, layer_windows, prefix=False):
    if tc.get("model_type") == "persimmon":
        return persimmon_decoder(W, tc, embeds, mask, pos, past, tpre, hpre)
    h = tc["hidden_size"]; heads = tc["num_attention_heads"]; kvh = tc.get("num_key_value_heads", heads)
    hd = tc.get("head_dim") or h // heads
    mt = tc.get("model_type", "llama")
    gemma = mt == "gemma"
    qkvb = mt == "qwen2" or (mt in ("llama", "gemma") and tc.get("attention_bias", False))
    ob = mt in ("llama", "gemma") and tc.get("attention_bias", False)
    mb = mt == "llama" and tc.get("mlp_bias", False)
    eps = tc.get("rms_norm_eps", 1e-6)
    norm = lambda x, w: rms(x, (1 + w) if gemma else w, eps)  # GemmaRMSNorm: 1 + w
    mlp_act = tc.get("hidden_act", "gelu_pytorch_tanh" if gemma else "silu")
    inv = inv_freq(tc, hd)
    fr = pos[..., None] * inv
    emb = np.concatenate([fr, fr], -1); cos, sin = np.cos(emb)[:, None], np.sin(emb)[:, None]
    rot = lambda t: np.concatenate([-t[..., hd // 2:], t[..., :hd // 2]], -1)
    B, S, _ = embeds.shape
    x = embeds; presents = []
    T = mask.shape[1]
    for i in range(tc["num_hidden_layers"]):
        P = tpre + f"layers.{i}."
        n = norm(x, W[P + "input_layernorm.weight"])
        q = lin(W, n, P + "self_attn.q_proj", qkvb).reshape(B, S, heads, hd).transpose(0, 2, 1, 3)
        k = lin(W, n, P + "self_attn.k_proj", qkvb).reshape(B, S, kvh, hd).transpose(0, 2, 1, 3)
        v = lin(W, n, P + "self_attn.v_proj", qkvb).reshape(B, S, kvh, hd).transpose(0, 2, 1, 3)
        q = q * cos + rot(q) * sin; k = k * cos + rot(k) * sin
        pk, pv = past[i]
        k = np.concatenate([pk, k], 2); v = np.concatenate([pv, v], 2)
        presents += [k, v]
        Pst = pk.shape[2]
        qi = np.arange(S)[:, None] + Pst; kj = np.arange(T)[None, :]
        allow = (kj <= qi)
        W_ = layer_windows[i]
        if prefix: allow = allow | (kj >= Pst)  # PaliGemma: this call's tokens see each other
        if W_: allow = allow & (qi - kj < W_)
        allow = allow[None] & (mask[:, None, :] > 0)
        add = np.where(allow, 0.0, -np.inf)[:, None]
        rep = heads // kvh
        kk = np.repeat(k, rep, 1); vv = np.repeat(v, rep, 1)
        o = softmax(q @ kk.transpose(0, 1, 3, 2) * hd ** -0.5 + add) @ vv
        x = x + lin(W, o.transpose(0, 2, 1, 3).reshape(B, S, heads * hd), P + "self_attn.o_proj", ob)
        n = norm(x, W[P + "post_attention_layernorm.weight"])
        x = x + lin(W, act(mlp_act, lin(W, n, P + "mlp.gate_proj", mb)) * lin(W, n, P + "mlp.up_proj", mb), P + "mlp.down_proj", mb)
    x = norm(x, W[tpre + "norm.weight"])
    head = W[tpre + "embed_tokens.weight"] if tied else W[hpre + "lm_head.weight"]
    return x @ head.T, presents

def make_persimmon_weights(cfg, r, one):
    tc = cfg["text_config"]; h = tc["hidden_size"]; I = tc["intermediate_size"]; hd = h // tc["num_attention_heads"]
    V, Pp, T, H = PREFIXES["fuyu"]
    p = cfg["patch_size"]
    W = {Pp + "vision_embed_tokens.weight": r(h, p * p * 3), Pp + "vision_embed_tokens.bias": r(h),
         T + "embed_tokens.weight": r(tc["vocab_size"], h), H + "lm_head.weight": r(tc["vocab_size"], h),
         T + "final_layernorm.weight": one(h), T + "final_layernorm.bias": r(h)}
    for i in range(tc["num_hidden_layers"]):
        P = T + f"layers.{i}."
        for l, n in (("input_layernorm", h), ("post_attention_layernorm", h), ("self_attn.q_layernorm", hd),
                     ("self_attn.k_layernorm", hd)):
            W[P + l + ".weight"] = one(n); W[P + l + ".bias"] = r(n)
        for m, N, K in (("self_attn.query_key_value", 3 * h, h), ("self_attn.dense", h, h),
                        ("mlp.dense_h_to_4h", I, h), ("mlp.dense_4h_to_h", h, I)):
            W[P + m + ".weight"] = r(N, K); W[P + m + ".bias"] = r(N)
    return W

def make_weights(cfg, rng, tied):
    r = lambda *s: rng.normal(0, 0.1, s)
    one = lambda *s: rng.normal(1, 0.1, s)
    if family(cfg) == "fuyu":
        return make_persimmon_weights(cfg, r, one)
    vc, tc = cfg["vision_config"], cfg["text_config"]
    clip = vc["model_type"] == "clip_vision_model"
    fam = family(cfg)
    V, Pp, T, H = PREFIXES[fam]
    h, p, C = vc["hidden_size"], vc["patch_size"], 3
    n = (vc["image_size"] // p) ** 2
    W = {}
    r = lambda *s: rng.normal(0, 0.1, s)
    one = lambda *s: rng.normal(1, 0.1, s)
    W[V + "embeddings.patch_embedding.weight"] = r(h, C, p, p)
    if clip:
        W[V + "embeddings.class_embedding"] = r(h); n += 1
        W[V + "pre_layrnorm.weight"] = one(h); W[V + "pre_layrnorm.bias"] = r(h)
    else:
        W[V + "embeddings.patch_embedding.bias"] = r(h)
    W[V + "embeddings.position_embedding.weight"] = r(n, h)
    for i in range(vc["num_hidden_layers"]):
        P = V + f"encoder.layers.{i}."
        for l in ("layer_norm1", "layer_norm2"):
            W[P + l + ".weight"] = one(h); W[P + l + ".bias"] = r(h)
        for m in ("q_proj", "k_proj", "v_proj", "out_proj"):
            W[P + "self_attn." + m + ".weight"] = r(h, h); W[P + "self_attn." + m + ".bias"] = r(h)
        W[P + "mlp.fc1.weight"] = r(vc["intermediate_size"], h); W[P + "mlp.fc1.bias"] = r(vc["intermediate_size"])
        W[P + "mlp.fc2.weight"] = r(h, vc["intermediate_size"]); W[P + "mlp.fc2.bias"] = r(h)
    th = tc["hidden_size"]
    if fam != "llava":
        W[V + "post_layernorm.weight"] = one(h); W[V + "post_layernorm.bias"] = r(h)
    if fam == "paligemma":
        W[Pp + "linear.weight"] = r(th, h); W[Pp + "linear.bias"] = r(th)
    elif fam == "idefics3":
        W[Pp + "modality_projection.proj.weight"] = r(th, h * cfg.get("scale_factor", 2) ** 2)
    else:
        L = cfg.get("vision_feature_layer", -2); nl = len(L) if isinstance(L, list) else 1
        pb = cfg.get("multimodal_projector_bias", True)
        W[Pp + "linear_1.weight"] = r(th, h * nl); W[Pp + "linear_2.weight"] = r(th, th)
        if pb: W[Pp + "linear_1.bias"] = r(th); W[Pp + "linear_2.bias"] = r(th)
    heads = tc["num_attention_heads"]; kvh = tc.get("num_key_value_heads", heads); hd = tc.get("head_dim") or th // heads
    mt = tc["model_type"]; I = tc["intermediate_size"]
    qkvb = mt == "qwen2" or (mt in ("llama", "gemma") and tc.get("attention_bias", False))
    ob = mt in ("llama", "gemma") and tc.get("attention_bias", False); mb = mt == "llama" and tc.get("mlp_bias", False)
    W[T + "embed_tokens.weight"] = r(tc["vocab_size"], th); W[T + "norm.weight"] = one(th)
    if not tied: W[H + "lm_head.weight"] = r(tc["vocab_size"], th)
    for i in range(tc["num_hidden_layers"]):
        P = T + f"layers.{i}."
        W[P + "input_layernorm.weight"] = one(th); W[P + "post_attention_layernorm.weight"] = one(th)
        for m, N in (("q_proj", heads * hd), ("k_proj", kvh * hd), ("v_proj", kvh * hd)):
            W[P + "self_attn." + m + ".weight"] = r(N, th)
            if qkvb: W[P + "self_attn." + m + ".bias"] = r(N)
        W[P + "self_attn.o_proj.weight"] = r(th, heads * hd)
        if ob: W[P + "self_attn.o_proj.bias"] = r(th)
        for m in ("gate_proj", "up_proj"):
            W[P + "mlp." + m + ".weight"] = r(I, th)
            if mb: W[P + "mlp." + m + ".bias"] = r(I)
        W[P + "mlp.down_proj.weight"] = r(th, I)
        if mb: W[P + "mlp.down_proj.bias"] = r(th)
    return W


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    return p.returncode, p.stdout + p.stderr


def check(mmc, mmrun, work, name, cfg, tied=False, windows=None, positions_offset=0):
    """PASS/FAIL lines for one case; returns whether it passed."""
    d = os.path.join(work, name); os.makedirs(d, exist_ok=True)
    rng = np.random.default_rng(3)
    W = make_weights(cfg, rng, tied)
    write_st(d + "/model.safetensors", W)
    json.dump(cfg, open(d + "/config.json", "w"), indent=1)
    rc, out = run([mmc, "compile", d, "-o", d + ".plan"])
    if rc:
        print(f"FAIL {name}: mmc compile: {out[-1500:]}"); return False
    tc = cfg["text_config"]
    if family(cfg) == "fuyu":  # the processor's patches of a 3 x 5 patch grid
        pix = rng.uniform(-1, 1, (1, 15, cfg["patch_size"] ** 2 * 3)).astype(np.float32)
    else:
        S = cfg["vision_config"]["image_size"]
        pix = rng.uniform(-1, 1, (1, 3, S, S)).astype(np.float32)
    np.save(d + "/pix.npy", pix)
    pixels = "image_patches" if family(cfg) == "fuyu" else "pixel_values"
    rc, out = run([mmrun, d + ".plan", "--function", "vision_encoder", "--input", f"{pixels}={d}/pix.npy",
                   "--output-dir", d + "/vo", "--output-format", "npy"])
    if rc:
        print(f"FAIL {name}: mmrun vision_encoder: {out[-1500:]}"); return False
    got = np.load(d + "/vo/image_features.npy")
    V, Pp, T, H = PREFIXES[family(cfg)]
    ref = image_features(W, cfg, pix.astype(np.float64), V, Pp)
    ok = got.shape == ref.shape and np.abs(got - ref).max() <= 1e-4
    print(f"{'PASS' if ok else 'FAIL'} {name}: image features {list(got.shape)}, max abs error "
          f"{np.abs(got - ref).max() if got.shape == ref.shape else 'shape differs: ' + str(ref.shape)}")
    th = tc["hidden_size"]; heads = tc["num_attention_heads"]; kvh = tc.get("num_key_value_heads", heads)
    hd = tc.get("head_dim") or th // heads
    if tc.get("model_type") == "persimmon": kvh, hd = heads, th // heads
    Sq = 10
    emb = rng.normal(0, 1, (1, Sq, th)).astype(np.float32)
    mask = np.ones((1, Sq), np.int64)
    pos = (np.arange(Sq) + positions_offset)[None].astype(np.int64)
    np.save(d + "/emb.npy", emb); np.save(d + "/mask.npy", mask); np.save(d + "/pos.npy", pos)
    args = ["--input", f"inputs_embeds={d}/emb.npy", "--input", f"attention_mask={d}/mask.npy",
            "--input", f"position_ids={d}/pos.npy"]
    past = []
    for i in range(tc["num_hidden_layers"]):
        z = np.zeros((1, kvh, 0, hd), np.float32)
        for kind in ("key", "value"):
            np.save(f"{d}/p{i}{kind}.npy", z); args += ["--input", f"past_key_values.{i}.{kind}={d}/p{i}{kind}.npy"]
        past.append((z.astype(np.float64), z.astype(np.float64)))
    rc, out = run([mmrun, d + ".plan", "--function", "decoder_model_merged", *args, "--output-dir", d + "/do",
                   "--output-format", "npy"])
    if rc:
        print(f"FAIL {name}: mmrun decoder_model_merged: {out[-1500:]}"); return False
    got = np.load(d + "/do/logits.npy")
    paligemma = family(cfg) == "paligemma"  # positions from 1, the prompt bidirectional
    ref, _ = decoder(W, tc, emb.astype(np.float64), mask, pos.astype(np.float64) + paligemma, past, T, H, tied,
                     windows or [0] * tc["num_hidden_layers"], prefix=paligemma)
    err = np.abs(got - ref).max()
    print(f"{'PASS' if err <= 1e-3 else 'FAIL'} {name}: prefill logits max abs error {err:.3g} "
          f"(max |ref| {np.abs(ref).max():.3g})")
    return ok and err <= 1e-3


CLIP = {"model_type": "clip_vision_model", "hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 3,
        "num_attention_heads": 2, "image_size": 32, "patch_size": 16}
SIGLIP = dict(CLIP, model_type="siglip_vision_model")
LLAMA = {"model_type": "llama", "hidden_size": 32, "intermediate_size": 48, "num_hidden_layers": 2,
         "num_attention_heads": 4, "num_key_value_heads": 2, "vocab_size": 64, "rms_norm_eps": 1e-5}


IDEFICS3 = dict(SIGLIP, model_type="idefics3_vision", image_size=48, patch_size=8)
GEMMA = dict(LLAMA, model_type="gemma", head_dim=8, num_key_value_heads=1)


def C(v, t, arch="LlavaForConditionalGeneration", **top):
    c = {"architectures": [arch], "model_type": "llava", "image_token_index": 60}
    c.update(top); c["vision_config"] = v; c["text_config"] = t
    return c


# name -> (config, check() keyword arguments). Positions start at 100 or 200 where the rope
# scaling matters only far out; windows: each layer's sliding window (0 = none).
CASES = {
    "clip-llama": (C(CLIP, LLAMA), {}),
    "clip-llama-list-full": (C(CLIP, LLAMA, vision_feature_layer=[-3, -1, 0], vision_feature_select_strategy="full"), {}),
    "siglip-qwen2-tied": (C(SIGLIP, dict(LLAMA, model_type="qwen2", rope_theta=1e6), vision_feature_layer=-1,
                           projector_hidden_act="gelu_pytorch_tanh", multimodal_projector_bias=False,
                           tie_word_embeddings=True), {"tied": True}),
    "llama-bias-head-dim": (C(CLIP, dict(LLAMA, head_dim=16, attention_bias=True, mlp_bias=True)), {}),
    "llama3-rope": (C(CLIP, dict(LLAMA, head_dim=16, rope_scaling={
        "rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
        "original_max_position_embeddings": 32})), {"positions_offset": 200}),
    "linear-rope": (C(CLIP, dict(LLAMA, rope_scaling={"type": "linear", "factor": 4.0})), {"positions_offset": 100}),
    "mistral-window": (C(CLIP, dict(LLAMA, model_type="mistral", sliding_window=3)), {"windows": [3, 3]}),
    "mistral-no-window": (C(CLIP, dict(LLAMA, model_type="mistral", sliding_window=None)), {}),
    "qwen2-window-from-layer-1": (C(CLIP, dict(LLAMA, model_type="qwen2", use_sliding_window=True, sliding_window=3,
                                               max_window_layers=1)), {"windows": [0, 3]}),
    "qwen2-window-default-layers": (C(CLIP, dict(LLAMA, model_type="qwen2", use_sliding_window=True,
                                                 sliding_window=3)), {"windows": [0, 0]}),
    # Idefics3 on a 6x6 grid, pixel shuffle by 3 (4 tokens of 9x the width).
    "idefics3-scale3": (C(IDEFICS3, LLAMA, "Idefics3ForConditionalGeneration", scale_factor=3,
                          tie_word_embeddings=False), {}),
    # 36 px of 8 px patches: the last 4 pixel rows and columns dropped (a 4x4 grid), as
    # SmolVLM's 384 px of 14 px patches.
    "idefics3-crop": (C(dict(IDEFICS3, image_size=36), LLAMA, "Idefics3ForConditionalGeneration",
                        tie_word_embeddings=False), {}),
    # PaliGemma with Gemma biases (attention_bias) and an erf GELU MLP: the prompt attends
    # both ways, positions count from 1.
    "paligemma-gemma-bias": (C(SIGLIP, dict(GEMMA, attention_bias=True, hidden_act="gelu"),
                               "PaliGemmaForConditionalGeneration", projection_dim=32, tie_word_embeddings=True),
                             {"tied": True}),
    # Fuyu: 8x8 patches into Persimmon (head_dim 16, a quarter of it rotated, qk
    # LayerNorms, relu2), positions far out so that the rotary angles are large.
    "fuyu-persimmon": ({"architectures": ["FuyuForCausalLM"], "model_type": "fuyu", "patch_size": 8,
                        "hidden_size": 32, "image_token_id": 60,
                        "text_config": {"model_type": "persimmon", "hidden_size": 32, "intermediate_size": 48,
                                        "num_hidden_layers": 2, "num_attention_heads": 2, "vocab_size": 64,
                                        "layer_norm_eps": 1e-5, "qk_layernorm": True, "hidden_act": "relu2",
                                        "rope_parameters": {"rope_type": "default", "rope_theta": 25000.0,
                                                            "partial_rotary_factor": 0.25}}},
                       {"positions_offset": 50}),
}


def main():
    mmc, mmrun, work = sys.argv[1:4]
    names = sys.argv[4:] or list(CASES)
    ok = True
    for n in names:
        cfg, kw = CASES[n]
        ok &= check(mmc, mmrun, work, n, cfg, **kw)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
