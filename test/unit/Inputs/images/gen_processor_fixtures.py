#!/usr/bin/python3
"""Makes the inputs of ImageProcessorTest.cpp: small PNG fixtures of awkward sizes and
modes, the preprocessor / processor configs to run them through, and Pillow-only goldens
(FNV-1a hashes of Pillow's decode and resizes, no transformers needed).

Writes, next to this file (deterministic; Debian's python3-pil and numpy):
  processor_fixtures/*.png                       the fixtures (tiny, wide, tall, grey, alpha,
                                                 palette, 1-bit, 16-bit, odd sizes)
  processor_fixtures/configs/NAME/preprocessor_config.json  (+ processor_config.json)
      real configs (llava-1.5, SigLIP so400m, Qwen2-VL-2B, SmolVLM-256M) and scaled-down
      variants (tiny sizes, other resample filters, the other spellings of the fields)
  processor_fixtures/pillow.json                 per fixture: size, Pillow mode, the hash of
                                                 Image.open(p).convert("RGB"), and of its
                                                 Image.resize((w, h), f) for 4 sizes x 5
                                                 filters

The transformers references come from processor_reference.py (run on a machine with
transformers 5 and torch): see its docstring.

usage: /usr/bin/python3 gen_processor_fixtures.py
"""
import json
import os
import shutil
import struct
import zlib

import numpy as np
from PIL import Image

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "processor_fixtures")
rng = np.random.default_rng(20250)


def field(h, w, c, noise=6.0):
    """A photo-like uint8 image: smooth waves plus edges plus a little noise."""
    y, x = np.mgrid[0:h, 0:w]
    planes = []
    for k in range(c):
        p = 128 + 90 * np.sin(x / (3.0 + k) + k) * np.cos(y / (4.0 + 2 * k) - k)
        p += 40 * (((x // 5) + (y // 3) + k) % 2)  # hard edges: ringing for the filters
        planes.append(p)
    a = np.stack(planes, -1) + rng.normal(0, noise, (h, w, c))
    return np.clip(a, 0, 255).astype(np.uint8)


def png16(path, rgb16):
    """A 16-bit RGB PNG written by hand (Pillow cannot write one)."""
    h, w, _ = rgb16.shape
    raw = b"".join(b"\0" + rgb16[y].astype(">u2").tobytes() for y in range(h))

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(
            ">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 16, 2, 0, 0, 0))
                + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


def fixtures():
    """name -> a function writing it."""
    f = {}

    def rgb(w, h):
        noise = 6.0 if w * h < 20000 else 2.0  # the big ones compress better
        return lambda p: Image.fromarray(field(h, w, 3, noise), "RGB").save(p, optimize=True)

    for w, h in [(1, 1), (3, 5), (27, 13), (1000, 7), (6, 600), (100, 3), (3, 250), (200, 1),
                 (1, 201), (56, 56), (84, 28), (300, 200), (129, 257), (45, 90), (511, 2)]:
        f[f"rgb_{w}x{h}.png"] = rgb(w, h)
    f["gray_13x27.png"] = lambda p: Image.fromarray(field(27, 13, 1)[..., 0], "L").save(p)
    f["gray_64x1.png"] = lambda p: Image.fromarray(field(1, 64, 1)[..., 0], "L").save(p)
    f["rgba_48x64.png"] = lambda p: Image.fromarray(field(64, 48, 4), "RGBA").save(p)
    f["la_19x23.png"] = lambda p: Image.fromarray(field(23, 19, 2), "LA").save(p)
    f["palette_33x33.png"] = lambda p: Image.fromarray(field(33, 33, 3), "RGB").quantize(24).save(p)

    def palette_trns(p):
        im = Image.fromarray(field(25, 40, 3), "RGB").quantize(12)
        im.save(p, transparency=5)

    f["palette_trns_40x25.png"] = palette_trns
    # Pillow's mode I (or I;16): convert("RGB") clamps to 255, so half the pixels saturate.
    f["gray16_17x9.png"] = lambda p: Image.fromarray(
        (field(9, 17, 1)[..., 0].astype(np.uint16) * 2).astype(np.uint16), "I;16").save(p)
    f["bilevel_20x30.png"] = lambda p: Image.fromarray(field(30, 20, 1)[..., 0] > 128).save(p)
    f["rgb16_21x11.png"] = lambda p: png16(
        p, field(11, 21, 3).astype(np.uint16) * 257 + rng.integers(0, 256, (11, 21, 3)))
    return f


MEAN, STD = [0.48145466, 0.4578275, 0.40821073], [0.26862954, 0.26130258, 0.27577711]
RESCALE = 0.00392156862745098

# name -> (preprocessor_config, processor_config or None). "real": the published configs
# (their processor_config.json as saved by transformers), the rest scaled down.
CONFIGS = {
    # llava-hf/llava-1.5-7b-hf
    "llava-1.5": ({"crop_size": {"height": 336, "width": 336}, "do_center_crop": True,
                   "do_convert_rgb": True, "do_normalize": True, "do_rescale": True,
                   "do_resize": True, "image_mean": MEAN, "image_processor_type": "CLIPImageProcessor",
                   "image_std": STD, "processor_class": "LlavaProcessor", "resample": 3,
                   "rescale_factor": RESCALE, "size": {"shortest_edge": 336}},
                  {"image_token": "<image>", "num_additional_image_tokens": 1, "patch_size": 14,
                   "processor_class": "LlavaProcessor", "vision_feature_select_strategy": "default"}),
    # The same with llava-1.5's `image_aspect_ratio: pad` (LlavaImageProcessor, do_pad).
    "llava-1.5-pad": ({"crop_size": {"height": 336, "width": 336}, "do_pad": True,
                       "image_mean": MEAN, "image_std": STD, "image_processor_type": "LlavaImageProcessor",
                       "processor_class": "LlavaProcessor", "resample": 3, "size": {"shortest_edge": 336}},
                      {"num_additional_image_tokens": 1, "patch_size": 14,
                       "processor_class": "LlavaProcessor", "vision_feature_select_strategy": "default"}),
    # google/siglip-so400m-patch14-384
    "siglip-so400m": ({"do_normalize": True, "do_rescale": True, "do_resize": True,
                       "image_mean": [0.5, 0.5, 0.5], "image_processor_type": "SiglipImageProcessor",
                       "image_std": [0.5, 0.5, 0.5], "processor_class": "SiglipProcessor",
                       "resample": 3, "rescale_factor": RESCALE, "size": {"height": 384, "width": 384}},
                      None),
    # Qwen/Qwen2-VL-2B-Instruct
    "qwen2-vl-2b": ({"min_pixels": 3136, "max_pixels": 12845056, "patch_size": 14,
                     "temporal_patch_size": 2, "merge_size": 2, "image_mean": MEAN, "image_std": STD,
                     "image_processor_type": "Qwen2VLImageProcessor", "processor_class": "Qwen2VLProcessor"},
                    None),
    # HuggingFaceTB/SmolVLM-256M-Instruct
    "smolvlm-256m": ({"do_convert_rgb": True, "do_image_splitting": True, "do_normalize": True,
                      "do_pad": True, "do_rescale": True, "do_resize": True, "image_mean": [0.5, 0.5, 0.5],
                      "image_processor_type": "Idefics3ImageProcessor", "image_std": [0.5, 0.5, 0.5],
                      "max_image_size": {"longest_edge": 512}, "processor_class": "Idefics3Processor",
                      "resample": 1, "rescale_factor": RESCALE, "size": {"longest_edge": 2048}},
                     {"image_seq_len": 64, "processor_class": "Idefics3Processor"}),
    # Scaled down.
    "llava-tiny": ({"image_processor_type": "CLIPImageProcessor", "size": {"shortest_edge": 32},
                    "crop_size": {"height": 28, "width": 28}, "resample": 3, "image_mean": MEAN,
                    "image_std": STD, "processor_class": "LlavaProcessor"},
                   {"num_additional_image_tokens": 1, "patch_size": 14,
                    "processor_class": "LlavaProcessor", "vision_feature_select_strategy": "default"}),
    "llava-pad-tiny": ({"image_processor_type": "LlavaImageProcessor", "do_pad": True, "size": 21,
                        "crop_size": {"height": 20, "width": 17}, "resample": 2,
                        "image_mean": [0.5, 0.3, 0.9], "image_std": [0.5, 0.25, 0.125]},
                       {"num_additional_image_tokens": 1, "patch_size": 7,
                        "processor_class": "LlavaProcessor", "vision_feature_select_strategy": "full"}),
    "siglip-tiny": ({"image_processor_type": "SiglipImageProcessor", "resample": 3,
                     "size": {"height": 24, "width": 20}, "image_mean": [0.5, 0.5, 0.5],
                     "image_std": [0.5, 0.5, 0.5]}, None),
    "siglip-bilinear": ({"image_processor_type": "SiglipImageProcessorFast", "resample": 2,
                         "size": {"height": 17, "width": 31}}, None),
    "siglip-lanczos": ({"image_processor_type": "SiglipImageProcessor", "resample": 1,
                        "size": {"height": 16, "width": 16}, "image_mean": [0.1, 0.2, 0.3],
                        "image_std": [0.3, 0.2, 0.1]}, None),
    "siglip-box": ({"image_processor_type": "SiglipImageProcessor", "resample": 4,
                    "size": {"height": 9, "width": 13}}, None),
    "siglip-hamming": ({"image_processor_type": "SiglipImageProcessor", "resample": 5,
                        "size": {"height": 12, "width": 7}}, None),
    "qwen-tiny": ({"image_processor_type": "Qwen2VLImageProcessor", "min_pixels": 784,
                   "max_pixels": 3136, "patch_size": 14, "merge_size": 2, "temporal_patch_size": 2,
                   "image_mean": MEAN, "image_std": STD}, None),
    "qwen-size-tiny": ({"image_processor_type": "Qwen2VLImageProcessorFast",
                        "size": {"shortest_edge": 256, "longest_edge": 1024}, "patch_size": 4,
                        "merge_size": 2, "temporal_patch_size": 2, "image_mean": [0.5, 0.4, 0.3],
                        "image_std": [0.2, 0.3, 0.4]}, None),
    "qwen-t3-bilinear": ({"image_processor_type": "Qwen2VLImageProcessor", "resample": 2,
                          "min_pixels": 64, "max_pixels": 600, "patch_size": 4, "merge_size": 2,
                          "temporal_patch_size": 3}, None),
    "smolvlm-tiny": ({"image_processor_type": "SmolVLMImageProcessor", "size": {"longest_edge": 48},
                      "max_image_size": {"longest_edge": 16}, "resample": 1,
                      "image_mean": [0.5, 0.5, 0.5], "image_std": [0.5, 0.5, 0.5]},
                     {"image_seq_len": 4, "processor_class": "SmolVLMProcessor"}),
    "idefics3-nosplit": ({"image_processor_type": "Idefics3ImageProcessor", "do_image_splitting": False,
                          "size": {"longest_edge": 40}, "max_image_size": {"longest_edge": 20},
                          "resample": 3}, {"image_seq_len": 9, "processor_class": "Idefics3Processor"}),
    "idefics3-bilinear": ({"image_processor_type": "Idefics3ImageProcessor", "resample": 2,
                           "size": {"longest_edge": 30}, "max_image_size": {"longest_edge": 12}},
                          {"image_seq_len": 2, "processor_class": "Idefics3Processor"}),
    "idefics3-hw": ({"image_processor_type": "Idefics3ImageProcessor", "resample": 1,
                     "size": {"height": 25, "width": 37}, "max_image_size": {"longest_edge": 12}},
                    {"image_seq_len": 1, "processor_class": "Idefics3Processor"}),
}
REAL = ["llava-1.5", "llava-1.5-pad", "siglip-so400m", "qwen2-vl-2b", "smolvlm-256m"]


def fnv1a64(data):
    h = 0xCBF29CE484222325
    for b in data:
        h = ((h ^ b) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return f"{h:016x}"


def fnv1a64_np(a):
    """fnv1a64 of a uint8 array's bytes, vectorised over nothing but fast enough here."""
    return fnv1a64(np.ascontiguousarray(a, np.uint8).tobytes())


def resize_sizes(h, w):
    """Shrink, grow, width only, height only."""
    return [(max(1, h // 3), max(1, w // 5 + 1)), (h * 2 // 3 + 2, w * 3 // 2 + 1),
            (h, max(1, w // 2)), (h * 5 // 4 + 1, w)]


def main():
    if os.path.isdir(OUT):
        shutil.rmtree(OUT)
    os.makedirs(os.path.join(OUT, "configs"))
    golden = {"pillow": Image.__version__, "hash": "fnv1a64 of the [H, W, 3] uint8 bytes",
              "filters": {"1": "lanczos", "2": "bilinear", "3": "bicubic", "4": "box", "5": "hamming"},
              "fixtures": {}}
    for name, write in fixtures().items():
        path = os.path.join(OUT, name)
        write(path)
        im = Image.open(path)
        mode = im.mode
        rgb = im.convert("RGB")
        a = np.asarray(rgb)
        entry = {"mode": mode, "width": rgb.width, "height": rgb.height, "rgb": fnv1a64_np(a),
                 "resize": []}
        for h, w in resize_sizes(rgb.height, rgb.width):
            for f in (1, 2, 3, 4, 5):
                out = np.asarray(rgb.resize((w, h), resample=f))
                entry["resize"].append({"height": h, "width": w, "resample": f,
                                        "hash": fnv1a64_np(out)})
        golden["fixtures"][name] = entry
    with open(os.path.join(OUT, "pillow.json"), "w") as f:
        json.dump(golden, f, indent=1, sort_keys=True)
    for name, (pre, proc) in CONFIGS.items():
        d = os.path.join(OUT, "configs", name)
        os.makedirs(d)
        with open(os.path.join(d, "preprocessor_config.json"), "w") as f:
            json.dump(pre, f, indent=1)
        if proc is not None:
            with open(os.path.join(d, "processor_config.json"), "w") as f:
                json.dump(proc, f, indent=1)
    with open(os.path.join(OUT, "configs", "real.json"), "w") as f:
        json.dump({"real": REAL, "note": "published configs; their references are sampled"}, f,
                  indent=1)
    total = sum(os.path.getsize(os.path.join(r, n)) for r, _, ns in os.walk(OUT) for n in ns)
    print(f"wrote {len(golden['fixtures'])} fixtures and {len(CONFIGS)} configs to {OUT} "
          f"({total} bytes)")


if __name__ == "__main__":
    main()
