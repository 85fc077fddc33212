#!/usr/bin/python3
"""Makes the image test inputs of ImageTest.cpp and their goldens, with Pillow (Debian's
python3-pil) as the oracle: the decoded RGB (Image.open(p).convert("RGB"), what
transformers' convert_rgb gives), Image.resize(..., BICUBIC) results, and CLIPImageProcessor
pixel values formed as transformers' CLIPImageProcessor.preprocess forms them (resize to the
shortest edge with Pillow, center crop with zero padding, rescale in float64 then float32,
normalise in float32; the steps of transformers/image_transforms.py, restated here in numpy
since transformers is not a Debian package).

usage: /usr/bin/python3 gen_image_goldens.py   (writes next to this file; deterministic)
"""
import json
import math
import os
import struct
import zlib

import numpy as np
from PIL import Image

HERE = os.path.dirname(os.path.abspath(__file__))
rng = np.random.default_rng(7)


def smooth(h, w, c):
    """A photo-like image: a smooth gradient field plus noise, uint8."""
    y, x = np.mgrid[0:h, 0:w]
    base = np.stack([128 + 100 * np.sin(x / 5.0 + k) * np.cos(y / 7.0 - k) for k in range(c)], -1)
    return np.clip(base + rng.normal(0, 20, (h, w, c)), 0, 255).astype(np.uint8)


def save(name, img, **kw):
    img.save(os.path.join(HERE, name), **kw)
    return name


inputs = [
    save("rgb.png", Image.fromarray(smooth(37, 53, 3), "RGB")),
    save("gray.png", Image.fromarray(smooth(31, 20, 1)[..., 0], "L")),
    save("rgba.png", Image.fromarray(smooth(23, 19, 4), "RGBA")),
    save("photo.jpg", Image.fromarray(smooth(48, 64, 3), "RGB"), quality=85),
    save("progressive.jpg", Image.fromarray(smooth(30, 41, 3), "RGB"), quality=70,
         progressive=True),
    save("gray.jpg", Image.fromarray(smooth(21, 26, 1)[..., 0], "L"), quality=90),
]
inputs.append(save("gray16.png", Image.fromarray(  # Pillow's mode I;16, clamped by convert
    (smooth(9, 11, 1)[..., 0].astype(np.uint16) * 6 // 5).astype(np.uint16), "I;16")))
inputs.append(save("la.png", Image.fromarray(smooth(10, 12, 2), "LA")))
pal = Image.fromarray(smooth(13, 17, 3), "RGB").quantize(16)
pal.info["transparency"] = 3
inputs.append(save("palette.png", pal, transparency=3))

# rgb.png without its IEND chunk (Pillow decodes it), a PNG whose IHDR claims 70000 x
# 70000 pixels (CRC fixed, so the size check is what refuses it), and a CMYK JPEG.
png = open(os.path.join(HERE, "rgb.png"), "rb").read()
assert png.endswith(b"IEND\xaeB`\x82")
open(os.path.join(HERE, "noiend.png"), "wb").write(png[:-12])
inputs.append("noiend.png")
ihdr = b"IHDR" + struct.pack(">II", 70000, 70000) + png[24:29]
huge = png[:12] + ihdr + struct.pack(">I", zlib.crc32(ihdr)) + png[33:]
open(os.path.join(HERE, "huge-header.png"), "wb").write(huge)
save("cmyk.jpg", Image.fromarray(smooth(8, 8, 3), "RGB").convert("CMYK"), quality=90)

for name in inputs:
    rgb = np.asarray(Image.open(os.path.join(HERE, name)).convert("RGB"))
    np.save(os.path.join(HERE, name + ".rgb.npy"), rgb)

# Resizes of rgb.png (37 x 53) and photo.jpg (48 x 64): shrink, grow, one side only, tiny.
resizes = {"rgb.png": [(17, 24), (101, 80), (37, 20), (5, 7)], "photo.jpg": [(96, 128), (9, 12)]}
for name, sizes in resizes.items():
    im = Image.open(os.path.join(HERE, name)).convert("RGB")
    for h, w in sizes:
        out = np.asarray(im.resize((w, h), resample=Image.BICUBIC))
        np.save(os.path.join(HERE, f"{name}.resize_{h}x{w}.npy"), out)

MEAN, STD = [0.48145466, 0.4578275, 0.40821073], [0.26862954, 0.26130258, 0.27577711]
configs = {
    # LLaVA-1.5's processor, scaled down: shortest edge 32, crop 28.
    "clip": {"image_processor_type": "CLIPImageProcessor", "do_resize": True,
             "size": {"shortest_edge": 32}, "resample": 3, "do_center_crop": True,
             "crop_size": {"height": 28, "width": 28}, "do_rescale": True,
             "rescale_factor": 0.00392156862745098, "do_normalize": True, "image_mean": MEAN,
             "image_std": STD, "do_convert_rgb": True},
    # A crop larger than the resized image (zero padding), odd sizes, other mean/std.
    "pad": {"image_processor_type": "CLIPImageProcessor", "size": 15, "crop_size": {"height": 24,
            "width": 17}, "image_mean": [0.5, 0.5, 0.5], "image_std": [0.5, 0.25, 0.125]},
}


def clip_pixels(rgb, c):
    im = Image.fromarray(rgb, "RGB")
    if c.get("do_resize", True):
        size = c["size"]["shortest_edge"] if isinstance(c["size"], dict) else c["size"]
        w, h = im.size
        short, long = (w, h) if w <= h else (h, w)
        new_short, new_long = size, int(size * long / short)
        nh, nw = (new_long, new_short) if w <= h else (new_short, new_long)
        im = im.resize((nw, nh), resample=Image.BICUBIC)
    a = np.asarray(im)
    if c.get("do_center_crop", True):
        ch, cw = c["crop_size"]["height"], c["crop_size"]["width"]
        oh, ow = a.shape[:2]
        top, left = (oh - ch) // 2, (ow - cw) // 2
        if top >= 0 and left >= 0 and top + ch <= oh and left + cw <= ow:
            a = a[top:top + ch, left:left + cw]
        else:
            nh, nw = max(ch, oh), max(cw, ow)
            padded = np.zeros((nh, nw, 3), a.dtype)
            tp, lp = math.ceil((nh - oh) / 2), math.ceil((nw - ow) / 2)
            padded[tp:tp + oh, lp:lp + ow] = a
            top, left = top + tp, left + lp
            a = padded[max(0, top):min(nh, top + ch), max(0, left):min(nw, left + cw)]
    if c.get("do_rescale", True):
        a = (a.astype(np.float64) * c.get("rescale_factor", 1 / 255)).astype(np.float32)
    if c.get("do_normalize", True):
        a = a.astype(np.float32)
        a = (a - np.array(c["image_mean"], np.float32)) / np.array(c["image_std"], np.float32)
    return np.ascontiguousarray(a.transpose(2, 0, 1).astype(np.float32))


for cname, c in configs.items():
    with open(os.path.join(HERE, f"{cname}.preprocessor_config.json"), "w") as f:
        json.dump(c, f, indent=1)
    for name in ("rgb.png", "photo.jpg", "gray.png"):
        rgb = np.load(os.path.join(HERE, name + ".rgb.npy"))
        np.save(os.path.join(HERE, f"{name}.{cname}.npy"), clip_pixels(rgb, c))
# For test/e2e/image-input.test: the bundled tiny LLaVA's 64 x 64 CLIP processor, and the
# pixel_values [1, 3, 64, 64] of photo.jpg through it (what mmrun --image must feed).
tiny = dict(configs["clip"], size={"shortest_edge": 64}, crop_size={"height": 64, "width": 64})
with open(os.path.join(HERE, "tiny-llava.preprocessor_config.json"), "w") as f:
    json.dump(tiny, f, indent=1)
np.save(os.path.join(HERE, "photo.jpg.tiny-llava.npy"),
        clip_pixels(np.load(os.path.join(HERE, "photo.jpg.rgb.npy")), tiny)[None])
print("wrote", len(os.listdir(HERE)), "files to", HERE)
