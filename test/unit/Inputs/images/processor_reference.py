#!/usr/bin/env python3
"""transformers' own image processors (and processors, for the prompt expansion) on the
fixtures of gen_processor_fixtures.py: the references ImageProcessorTest.cpp compares
runtime/image's processors against.

usage (on a machine with transformers 5, torch, torchvision, PIL, numpy; no internet):
    cd test/unit/Inputs/images
    python3 processor_reference.py processor_fixtures processor_refs

FIXTURE_DIR holds the *.png fixtures and configs/NAME/{preprocessor_config.json,
processor_config.json}. Writes to OUT_DIR:
  reference.json    meta (versions, what AutoImageProcessor picks for each config) and one
                    entry per (config, fixture): the PIL-backend processor's output shape,
                    image_grid_thw / rows / cols / mask, 128 sampled normalised values, the
                    prompt after the processor's image-token expansion (or the error
                    transformers raised), and the torchvision backend's difference from it
  raw/CONFIG/FIXTURE.npy
                    uint8: the pixel values before rescale / normalise (the processor run
                    with do_rescale=False, do_normalize=False), in full for the
                    scaled-down configs, sampled (1024 values at flat index k * n // 1024)
                    for the real ones (configs/real.json)
Everything comes from transformers' classes, constructed from the config dicts (no
AutoImageProcessor except to record which class it picks): the PIL backend
(XImageProcessorPil in transformers 5, XImageProcessor in 4) is the reference; the
torchvision one (XImageProcessor in 5, XImageProcessorFast in 4) is compared to it. The
prompt comes from the real processor class (LlavaProcessor, Qwen2VLProcessor,
Idefics3Processor, SmolVLMProcessor) with a small word-level tokenizer whose __call__
records the text it is given; should a processor not construct, its own
replace_image_token / get_image_prompt_string is used and the entry says so.
"""
import copy
import glob
import json
import os
import platform
import sys
import traceback

import numpy as np
from PIL import Image

import transformers

RAW_SAMPLES = 1024
NORM_SAMPLES = 128
DROP_KEYS = ("image_processor_type", "feature_extractor_type", "processor_class", "auto_map")
FAMILIES = {
    "CLIPImageProcessor": "clip",
    "LlavaImageProcessor": "llava",
    "SiglipImageProcessor": "siglip",
    "Qwen2VLImageProcessor": "qwen2vl",
    "Idefics3ImageProcessor": "idefics3",
    "SmolVLMImageProcessor": "idefics3",
}
PROMPTS = {  # processor class -> the text with one image placeholder
    "LlavaProcessor": "USER: <image>\nWhat is shown? ASSISTANT:",
    "Qwen2VLProcessor": "<|im_start|>user\n<|vision_start|><|image_pad|><|vision_end|>"
                        "What is shown?<|im_end|>\n<|im_start|>assistant\n",
    "Idefics3Processor": "<|im_start|>User:<image>What is shown?<end_of_utterance>\nAssistant:",
    "SmolVLMProcessor": "<|im_start|>User:<image>What is shown?<end_of_utterance>\nAssistant:",
}
MARK = "What is shown?"
SPECIAL = (["<image>", "<|image_pad|>", "<|video_pad|>", "<|vision_start|>", "<|vision_end|>",
            "<fake_token_around_image>", "<global-img>", "<end_of_utterance>", "<|im_start|>",
            "<|im_end|>", "<video>"]
           + [f"<row_{r}_col_{c}>" for r in range(1, 7) for c in range(1, 7)])


def log(*a):
    print(*a, file=sys.stderr, flush=True)


def base_type(t):
    for suffix in ("Fast", "Pil"):
        if t.endswith(suffix):
            return t[: -len(suffix)]
    return t


def usable(cls):
    return cls is not None and not getattr(cls, "is_dummy", False)


def backend_classes(base):
    """(PIL-backend class, torchvision-backend class or None)."""
    pil = getattr(transformers, base + "Pil", None)
    if usable(pil):  # transformers 5: XPil and X (torchvision)
        tv = getattr(transformers, base, None)
        return pil, tv if usable(tv) else None
    slow = getattr(transformers, base, None)  # transformers 4: X (PIL) and XFast
    fast = getattr(transformers, base + "Fast", None)
    if not usable(slow):
        raise RuntimeError(f"transformers {transformers.__version__} has no {base}")
    return slow, fast if usable(fast) else None


def backend_of(proc):
    b = getattr(type(proc), "backend", None)
    if isinstance(b, property):
        return proc.backend
    if isinstance(b, str):
        return b
    return "torchvision" if getattr(proc, "is_fast", False) else "pil"


def construct(cls, kwargs):
    """cls(**kwargs), restoring the class's dict defaults afterwards (Qwen2-VL's __init__
    writes min/max_pixels into the class-level `size` dict)."""
    saved = {k: copy.deepcopy(v) for k, v in vars(cls).items() if isinstance(v, dict)}
    try:
        return cls(**copy.deepcopy(kwargs))
    finally:
        for k, v in saved.items():
            setattr(cls, k, v)


def to_np(v):
    if hasattr(v, "detach"):
        v = v.detach().cpu().numpy()
    return np.asarray(v)


def run(proc, family, image):
    if family == "idefics3":
        return proc(images=[[image]], return_tensors="np", return_row_col_info=True)
    return proc(images=[image], return_tensors="np")


def flat_int(v):
    return [int(x) for x in to_np(v).reshape(-1)]


def sample(a, n):
    flat = a.reshape(-1)
    if flat.size <= n:
        return flat
    idx = (np.arange(n, dtype=np.int64) * flat.size) // n
    return flat[idx]


def raw_uint8(pixels):
    a = to_np(pixels).astype(np.float64)
    if not (np.all(np.isfinite(a)) and np.all(a == np.round(a)) and a.min() >= 0 and a.max() <= 255):
        raise RuntimeError(f"raw pixel values are not uint8 levels (range {a.min()}..{a.max()})")
    return a.astype(np.uint8)


def make_tokenizer():
    from tokenizers import Tokenizer, models, pre_tokenizers
    from tokenizers import AddedToken

    vocab = {"<unk>": 0}
    for t in SPECIAL + ["USER:", "ASSISTANT:", "What", "is", "shown?", "User:", "Assistant:",
                        "user", "assistant", "?"]:
        vocab.setdefault(t, len(vocab))
    tk = Tokenizer(models.WordLevel(vocab=vocab, unk_token="<unk>"))
    tk.pre_tokenizer = pre_tokenizers.Whitespace()
    tk.add_special_tokens([AddedToken(t, special=True, normalized=False) for t in SPECIAL])
    base = getattr(transformers, "PreTrainedTokenizerFast", None) or getattr(
        transformers, "TokenizersBackend")

    class Capturing(base):
        calls = []

        def __call__(self, *args, **kwargs):
            Capturing.calls.append(kwargs.get("text", args[0] if args else None))
            return super().__call__(*args, **kwargs)

    tok = Capturing(tokenizer_object=tk, unk_token="<unk>", pad_token="<unk>")
    return tok, Capturing


def video_processor_for(name):
    for vp in {"Qwen2VLProcessor": ["Qwen2VLVideoProcessor"],
               "SmolVLMProcessor": ["SmolVLMVideoProcessor"]}.get(name, []):
        cls = getattr(transformers, vp, None)
        if usable(cls):
            try:
                return cls()
            except Exception:
                pass
    return None


def processor_prompt(proc_class, proc_kwargs, image_proc, image):
    """The text the processor hands its tokenizer for PROMPTS[proc_class] and the image."""
    cls = getattr(transformers, proc_class)
    tok, capturing = make_tokenizer()
    kwargs = {k: v for k, v in proc_kwargs.items() if k != "processor_class"}
    errors = []
    for video in (True, False):
        extra = {}
        if video:
            vp = video_processor_for(proc_class)
            if vp is None:
                continue
            extra["video_processor"] = vp
        try:
            processor = cls(image_processor=image_proc, tokenizer=tok, **extra, **kwargs)
            capturing.calls.clear()
            if proc_class in ("Idefics3Processor", "SmolVLMProcessor"):
                processor(images=[[image]], text=[PROMPTS[proc_class]])
            else:
                processor(images=[image], text=[PROMPTS[proc_class]])
            for text in reversed(capturing.calls):
                text = text[0] if isinstance(text, (list, tuple)) else text
                if isinstance(text, str) and MARK in text:
                    return text, proc_class
            raise RuntimeError("the tokenizer never saw the prompt")
        except Exception as e:  # noqa: BLE001 - recorded, then the fallback below
            errors.append(f"{type(e).__name__}: {e}")
    return None, "; ".join(errors)


def fallback_prompt(proc_class, proc_kwargs, image_proc, out):
    """transformers' own expansion functions, when the processor would not construct."""
    text = PROMPTS[proc_class]
    if proc_class in ("Idefics3Processor", "SmolVLMProcessor"):
        mod = {"Idefics3Processor": "transformers.models.idefics3.processing_idefics3",
               "SmolVLMProcessor": "transformers.models.smolvlm.processing_smolvlm"}[proc_class]
        fn = __import__(mod, fromlist=["get_image_prompt_string"]).get_image_prompt_string
        rows, cols = flat_int(out["rows"])[0], flat_int(out["cols"])[0]
        # The keyword names differ between transformers versions (global_img_token,
        # global_image_token): bind by what each parameter name contains.
        import inspect
        tokens = {"fake": "<fake_token_around_image>", "global": "<global-img>", "image": "<image>"}
        kwargs = {}
        for param in list(inspect.signature(fn).parameters)[3:]:
            kind = next((k for k in tokens if k in param), None)
            if kind is None:
                raise RuntimeError(f"{mod}.get_image_prompt_string: unknown parameter {param}")
            kwargs[param] = tokens[kind]
        s = fn(rows, cols, proc_kwargs.get("image_seq_len", 169), **kwargs)
        return text.replace("<image>", s, 1), mod + ".get_image_prompt_string"
    cls = getattr(transformers, proc_class)

    class Fake:
        pass

    fake = Fake()
    fake.image_processor = image_proc
    fake.image_token = "<image>" if proc_class == "LlavaProcessor" else "<|image_pad|>"
    fake.patch_size = proc_kwargs.get("patch_size")
    fake.num_additional_image_tokens = proc_kwargs.get("num_additional_image_tokens", 0)
    fake.vision_feature_select_strategy = proc_kwargs.get("vision_feature_select_strategy")
    s = cls.replace_image_token(fake, out, 0)
    return text.replace(fake.image_token, s, 1), proc_class + ".replace_image_token"


def load_config(d):
    with open(os.path.join(d, "preprocessor_config.json")) as f:
        pre = json.load(f)
    proc = {}
    if os.path.exists(os.path.join(d, "processor_config.json")):
        with open(os.path.join(d, "processor_config.json")) as f:
            proc = json.load(f)
    return pre, proc


def auto_choice(d):
    try:
        p = transformers.AutoImageProcessor.from_pretrained(d, local_files_only=True)
        return {"class": type(p).__name__, "backend": backend_of(p)}
    except Exception as e:  # noqa: BLE001
        return {"error": f"{type(e).__name__}: {e}"}


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    fixture_dir, out_dir = sys.argv[1], sys.argv[2]
    os.makedirs(os.path.join(out_dir, "raw"), exist_ok=True)
    with open(os.path.join(fixture_dir, "configs", "real.json")) as f:
        real = set(json.load(f)["real"])
    fixtures = sorted(os.path.basename(p) for p in glob.glob(os.path.join(fixture_dir, "*.png")))
    configs = sorted(os.path.basename(d) for d in glob.glob(os.path.join(fixture_dir, "configs", "*"))
                     if os.path.isdir(d))
    meta = {"transformers": transformers.__version__, "numpy": np.__version__,
            "pillow": Image.__version__, "python": platform.python_version(),
            "raw_samples": RAW_SAMPLES, "norm_samples": NORM_SAMPLES, "auto": {}, "classes": {}}
    for mod in ("torch", "torchvision", "tokenizers"):
        try:
            meta[mod] = __import__(mod).__version__
        except Exception:  # noqa: BLE001
            meta[mod] = None
    entries = []
    for cname in configs:
        cdir = os.path.join(fixture_dir, "configs", cname)
        pre, proc_cfg = load_config(cdir)
        meta["auto"][cname] = auto_choice(cdir)
        base = base_type(pre["image_processor_type"])
        family = FAMILIES[base]
        kwargs = {k: v for k, v in pre.items() if k not in DROP_KEYS}
        raw_kwargs = dict(kwargs, do_rescale=False, do_normalize=False)
        try:
            pil_cls, tv_cls = backend_classes(base)
            pil, pil_raw = construct(pil_cls, kwargs), construct(pil_cls, raw_kwargs)
            if backend_of(pil) != "pil":
                raise RuntimeError(f"{pil_cls.__name__} is not the PIL backend ({backend_of(pil)})")
        except Exception as ex:  # noqa: BLE001 - the config itself is refused: say so per fixture
            log(f"{cname}: {type(ex).__name__}: {ex}")
            for fx in fixtures:
                entries.append({"config": cname, "fixture": fx,
                                "error": f"constructing the processor: {type(ex).__name__}: {ex}"})
            continue
        try:
            tv_raw = construct(tv_cls, raw_kwargs) if tv_cls is not None else None
        except Exception as ex:  # noqa: BLE001
            log(f"{cname}: the torchvision backend does not construct: {ex}")
            tv_raw = None
        if tv_raw is not None and backend_of(tv_raw) != "torchvision":  # no torchvision: PIL
            tv_raw, tv_cls = None, None
        meta["classes"][cname] = {"pil": pil_cls.__name__,
                                  "torchvision": tv_cls.__name__ if tv_cls else None}
        proc_class = proc_cfg.get("processor_class", pre.get("processor_class"))
        os.makedirs(os.path.join(out_dir, "raw", cname), exist_ok=True)
        for fx in fixtures:
            e = {"config": cname, "fixture": fx}
            path = os.path.join(fixture_dir, fx)
            try:
                out = run(pil, family, Image.open(path))
                raw_out = run(pil_raw, family, Image.open(path))
                pv = to_np(out["pixel_values"]).astype(np.float32)
                raw = raw_uint8(raw_out["pixel_values"])
                e["shape"] = list(pv.shape)
                if list(raw.shape) != list(pv.shape):
                    raise RuntimeError(f"raw shape {raw.shape} != {pv.shape}")
                if "image_grid_thw" in out:
                    e["image_grid_thw"] = flat_int(out["image_grid_thw"])
                if "rows" in out:
                    e["rows"], e["cols"] = flat_int(out["rows"])[0], flat_int(out["cols"])[0]
                if "pixel_attention_mask" in out:
                    m = to_np(out["pixel_attention_mask"])
                    e["mask_shape"], e["mask_all_ones"] = list(m.shape), bool(np.all(m == 1))
                    e["mask_dtype"] = str(m.dtype)
                # float32's shortest repr: a JSON number that reads back as the same float32.
                e["norm_sample"] = [float(str(x)) for x in sample(pv, NORM_SAMPLES)]
                stored = sample(raw, RAW_SAMPLES) if cname in real else raw
                e["raw_sampled"] = cname in real
                np.save(os.path.join(out_dir, "raw", cname, fx + ".npy"), stored)
                if proc_class in PROMPTS:
                    e["prompt_template"] = PROMPTS[proc_class]
                    text, source = processor_prompt(proc_class, proc_cfg, pil, Image.open(path))
                    if text is None:
                        e["prompt_processor_error"] = source
                        try:
                            text, source = fallback_prompt(proc_class, proc_cfg, pil, out)
                        except Exception as pe:  # noqa: BLE001
                            e["prompt_error"] = f"{type(pe).__name__}: {pe}"
                    if text is not None:
                        e["prompt"], e["prompt_source"] = text, source
                if tv_raw is not None:
                    try:
                        t = raw_uint8(run(tv_raw, family, Image.open(path))["pixel_values"])
                        cmp = {"same_shape": list(t.shape) == list(raw.shape)}
                        if cmp["same_shape"]:
                            d = np.abs(t.astype(np.int16) - raw.astype(np.int16))
                            cmp.update(max_abs_diff=int(d.max()), values_differing=int((d > 0).sum()),
                                       values=int(d.size))
                        e["torchvision_vs_pil"] = cmp
                    except Exception as te:  # noqa: BLE001
                        e["torchvision_vs_pil"] = {"error": f"{type(te).__name__}: {te}"}
            except Exception as ex:  # noqa: BLE001 - transformers refusing an input is a reference too
                e = {"config": cname, "fixture": fx, "error": f"{type(ex).__name__}: {ex}"}
                log(f"{cname} / {fx}: {e['error']}")
                log(traceback.format_exc(limit=3))
            entries.append(e)
        ok = sum(1 for x in entries if x["config"] == cname and "error" not in x)
        log(f"{cname}: {ok} of {len(fixtures)} fixtures processed; auto picks {meta['auto'][cname]}")
    with open(os.path.join(out_dir, "reference.json"), "w") as f:  # one entry a line
        f.write('{"meta": ' + json.dumps(meta, indent=1) + ',\n"entries": [\n')
        f.write(",\n".join(json.dumps(e, separators=(",", ":")) for e in entries))
        f.write("\n]}\n")
    total = sum(os.path.getsize(os.path.join(r, n)) for r, _, ns in os.walk(out_dir) for n in ns)
    log(f"wrote {len(entries)} entries to {out_dir} ({total / 1e6:.2f} MB)")
    if total > 3e6:
        log("warning: over 3 MB")


if __name__ == "__main__":
    main()
