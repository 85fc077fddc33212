#!/usr/bin/python3
"""Writes the tokenizer parity corpus: 10,000 strings, one JSON string per line, the same
for every vocabulary (issue 18's acceptance: prose in many scripts, code, whitespace runs,
digit runs, emoji and ZWJ sequences, special tokens inline, random Unicode).

Deterministic (seeded): the committed strings.jsonl.xz is this script's output, and the
reference ids next to it were computed from it with HF `tokenizers` (hf_reference.py).
usage: gen_strings.py OUT.jsonl [COUNT]
"""
import json
import random
import sys

PROSE = [
    "The quick brown fox jumps over the lazy dog.",
    "I'm sure they'll say it's what we've done, isn't it? You'd think so.",
    "DON'T SHOUT: WE'RE HERE AND THEY'VE LEFT.",
    "Le cœur a ses raisons que la raison ne connaît point.",
    "Über den Wolken muss die Freiheit wohl grenzenlos sein, straße.",
    "¿Dónde está la biblioteca? ¡Está allí, señor!",
    "Съешь же ещё этих мягких французских булок, да выпей чаю.",
    "Ξεσκεπάζω την ψυχοφθόρα βδελυγμία.",
    "نص حكيم له سر قاطع وذو شأن عظيم مكتوب على ثوب أخضر",
    "דג סקרן שט בים מאוכזב ולפתע מצא חברה",
    "ऋषियों को सताने वाले दुष्ट राक्षसों के राजा रावण का सर्वनाश करने वाले",
    "আমি বাংলায় গান গাই, আমি বাংলার গান গাই",
    "เป็นมนุษย์สุดประเสริฐเลิศคุณค่า กว่าบรรดาฝูงสัตว์เดรัจฉาน",
    "我能吞下玻璃而不伤身体。天地玄黄，宇宙洪荒。",
    "いろはにほへと ちりぬるを わかよたれそ つねならむ",
    "カタカナとひらがな、そして漢字を混ぜた文章です。",
    "다람쥐 헌 쳇바퀴에 타고파. 키스의 고유조건은 입술끼리 만나야 하고",
    "Tiếng Việt có dấu: Nguyễn Văn A đã đến Hà Nội.",
    "Pijamalı hasta yağız şoföre çabucak güvendi.",
    "Zażółć gęślą jaźń. Pchnąć w tę łódź jeża lub ośm skrzyń fig.",
    "ქართული ენა ძალიან ლამაზია",
    "Հայերեն գրերը ստեղծել է Մեսրոպ Մաշտոցը",
    "ሰማይ አይታረስ ንጉሥ አይከሰስ",
    "யாமறிந்த மொழிகளிலே தமிழ்மொழி போல் இனிதாவது எங்கும் காணோம்",
    "Þetta er íslenska: æðislegt og ólíkt.",
    "Příliš žluťoučký kůň úpěl ďábelské ódy.",
    "Árvíztűrő tükörfúrógép",
    "ᚠᛇᚻ᛫ᛒᛦᚦ᛫ᚠᚱᚩᚠᚢᚱ᛫ᚠᛁᚱᚪ᛫ᚷᛖᚻᚹᛦᛚᚳᚢᛗ",
    "ⲡⲓⲣⲱⲙⲓ ⲛ̀ⲣⲉⲙⲛ̀ⲭⲏⲙⲓ",
    "𝔗𝔥𝔢 𝔮𝔲𝔦𝔠𝔨 𝕓𝕣𝕠𝕨𝕟 𝒻𝑜𝓍 — mathematical letters.",
    "ｆｕｌｌｗｉｄｔｈ　ＡＢＣ　１２３！",
    "naïve café résumé coöperate façade jalapeño",
    "Ǆemal and ǅemal and ǆemal; ﬁne ﬂour; ſtraße",
]

CODE = [
    "def f(x):\n    return x ** 2 + 1  # square\n",
    "for (int i = 0; i < n; ++i) {\n\tsum += a[i] * b[i];\n}\n",
    "const add = (a, b) => a + b;\nconsole.log(`sum=${add(1, 2)}`);",
    '{"key": "value", "list": [1, 2.5e-3, null, true], "nested": {"a": {}}}',
    "<html>\n  <body class=\"main\">\n    <p>Hello &amp; welcome</p>\n  </body>\n</html>",
    "#!/bin/bash\nset -euo pipefail\nfor f in *.txt; do echo \"$f\" | wc -c; done",
    "SELECT id, name FROM users WHERE age >= 18 ORDER BY name DESC LIMIT 10;",
    "template <typename T>\nstd::vector<T> v{1, 2, 3};\nauto it = v.begin();",
    "fn main() { let s: &str = \"hi\"; println!(\"{s:?}\"); }",
    "x = [i for i in range(10) if i % 2 == 0]\r\nprint(x)\r\n",
    "    \n\n    indented\n\t\ttabs\n  \n",
    "if (a != b && c <= d || !e) { return -1; } // ???",
    "a->b; c::d; e...f; g??h; i!==j; k<<=2; l>>>3; m**=n",
]

SPECIALS = [
    "<s>", "</s>", "<unk>", "<|begin_of_text|>", "<|end_of_text|>", "<|eot_id|>",
    "<|start_header_id|>", "<|end_header_id|>", "<|reserved_special_token_5|>",
    "<|endoftext|>", "<|im_start|>", "<|im_end|>", "<|vision_start|>", "<|image_pad|>",
    "<think>", "</think>", "<tool_call>", "<|fim_prefix|>",
    # near misses: not special tokens
    "<s", "s>", "< s>", "<|im_start|", "|im_end|>", "<<s>>", "<|begin_of_text|>>",
]

WHITESPACE = [" ", "  ", "   ", "\t", "\n", "\n\n", "\r\n", "\r", " \n", "\n ", "\u00a0", "\u3000",
              "\u2009", "\u200b", "\u2028", "\u0085", "\u000b", "\u000c", "        ", " \t \n"]

EMOJI = [
    "😀", "👍🏽", "👨‍👩‍👧‍👦", "🏳️‍🌈", "🇯🇵", "🇺🇸🇫🇷", "1️⃣", "❤️", "🧑🏿‍🚀", "👩‍❤️‍💋‍👨",
    "🤷‍♀️", "✌🏻", "🐕‍🦺", "🏴󠁧󠁢󠁳󠁣󠁴󠁿", "☕", "🦀🐍", "™", "©️",
]

DIGIT_SETS = ["0123456789", "٠١٢٣٤٥٦٧٨٩", "０１２３４５６７８９", "०१२३४५६७८९", "①②③", "¼½¾", "ⅠⅡⅢⅣ"]

# Code point ranges for random Unicode (weights favour the scripts models meet).
RANGES = [
    (0x20, 0x7E, 8), (0x00, 0x1F, 1), (0xA0, 0x24F, 4), (0x300, 0x36F, 3), (0x370, 0x52F, 3),
    (0x590, 0x6FF, 2), (0x900, 0x0DFF, 2), (0x0E00, 0x0EFF, 1), (0x1100, 0x11FF, 2), (0x1E00, 0x1FFF, 2),
    (0x2000, 0x2BFF, 2), (0x3000, 0x30FF, 2), (0x4E00, 0x9FFF, 3), (0xAC00, 0xD7A3, 2), (0xE000, 0xF8FF, 1),
    (0xF900, 0xFFFD, 2), (0x10000, 0x1FFFF, 2), (0x1F300, 0x1FAFF, 2), (0x20000, 0x2FFFF, 1),
    (0xE0000, 0xE007F, 1), (0xF0000, 0x10FFFF, 1),
]


def random_char(r):
    lo, hi, _ = r.choices(RANGES, weights=[w for _, _, w in RANGES])[0]
    c = r.randint(lo, hi)
    return chr(c) if not 0xD800 <= c <= 0xDFFF else "?"


def random_unicode(r):
    return "".join(random_char(r) for _ in range(r.randint(1, 40)))


def decomposed(r):
    # NFC matters here: base letters with combining marks, Hangul jamo, compatibility forms.
    pieces = ["e\u0301", "a\u0308", "o\u0302\u0323", "A\u030a", "\u1100\u1161\u11a8", "\u1112\u1161\u11ab",
              "n\u0303", "c\u0327", "\u212b", "\u2126", "I\u0307", "\u0958", "\u09cb", "\u0b48", "\u1e9b\u0323"]
    return "".join(r.choice(pieces + [" ", "x"]) for _ in range(r.randint(1, 12)))


def number(r):
    digits = r.choice(DIGIT_SETS) if r.random() < 0.3 else "0123456789"
    n = "".join(r.choice(digits) for _ in range(r.randint(1, 30)))
    return r.choice([n, n + "." + n[: r.randint(1, 5)], "-" + n, n + "%", "$" + n, n + "e-7",
                     ",".join([n[:3]] * r.randint(1, 4)), "v" + n[:1] + "." + n[1:3]])


def words(r, text):
    w = text.split()
    if len(w) <= 2:
        return text
    i = r.randint(0, len(w) - 2)
    return " ".join(w[i:i + r.randint(1, len(w) - i)])


def mix(r):
    """A string of 1 to 8 pieces from every category, joined by random whitespace."""
    makers = [
        lambda: words(r, r.choice(PROSE)), lambda: r.choice(CODE), lambda: r.choice(SPECIALS),
        lambda: r.choice(WHITESPACE), lambda: "".join(r.choice(EMOJI) for _ in range(r.randint(1, 4))),
        lambda: number(r), lambda: random_unicode(r), lambda: decomposed(r),
        lambda: r.choice(["'s", "'T", "'Re", "’s", "'ll", "n't", "''", "'"]),
    ]
    out = []
    for _ in range(r.randint(1, 8)):
        out.append(r.choices(makers, weights=[5, 2, 2, 2, 2, 2, 2, 1, 1])[0]())
        if r.random() < 0.6:
            out.append(r.choice(WHITESPACE) if r.random() < 0.3 else " ")
    return "".join(out)


def corpus(count):
    r = random.Random(18)
    fixed = ["", " ", "  ", "\n", "a", "A", "é", "\u00a0", "<s>", " <s> ", "<s><s>", "</s>text",
             "Hello world", " Hello world", "Hello  world", "hello\n\nworld", "1234567890123",
             "x" * 500, "ab" * 300, " " * 100, "\n" * 50, "😀" * 40, "丁" * 200,
             " ".join(PROSE), "\n".join(CODE)]
    out = list(fixed)
    category = [lambda: r.choice(PROSE), lambda: r.choice(CODE), random_unicode, decomposed, number]
    while len(out) < count:
        k = r.random()
        if k < 0.7:
            out.append(mix(r))
        else:
            f = r.choice(category)
            out.append(f(r) if f in (random_unicode, decomposed, number) else f())
    return out[:count]


def main():
    path = sys.argv[1]
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 10000
    with open(path, "w", encoding="utf-8") as f:
        for s in corpus(count):
            f.write(json.dumps(s) + "\n")


if __name__ == "__main__":
    main()
