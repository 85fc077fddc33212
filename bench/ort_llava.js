// onnxruntime (CPU) peer for bench/llava_cpu.py: the same LLaVA generation loop as mmrun
// (vision encoder -> splice image features at the image-token positions -> prefill ->
// greedy decode feeding present.* back as past_key_values.*) on the same ONNX graphs.
//
// Usage: node bench/ort_llava.js MODEL_DIR [--threads T] [--warmup W] [--runs R]
//          [--logits-out FILE]
// Needs onnxruntime-node 1.30 (npm install --ignore-scripts onnxruntime-node@1.30.0).
// Prints one JSON object: tokens, and per-run vision_ms, ttft_ms, decode_tokens_per_s.
// --logits-out writes the first run's step logits as .npy f32 [steps, vocab] (row k: the
// logits whose argmax is tokens[k]; row 0 the prefill's last position): on an f32 model, the
// teacher-forced logits of its own greedy tokens (mmrun --teacher-tokens).
'use strict';
const fs = require('fs');
const path = require('path');
const ort = require('onnxruntime-node');

function arg(name, dflt) {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : dflt;
}

/** Minimal little-endian f4 .npy reader: {shape, data}. */
function readNpyF32(file) {
  const buf = fs.readFileSync(file);
  const major = buf[6];
  const hlen = major === 1 ? buf.readUInt16LE(8) : buf.readUInt32LE(8);
  const start = major === 1 ? 10 : 12;
  const header = buf.toString('latin1', start, start + hlen);
  if (!header.includes("'<f4'")) throw new Error(`${file}: expected <f4`);
  const shape = header.match(/'shape': \(([^)]*)\)/)[1].split(',').filter(s => s.trim()).map(Number);
  const bytes = buf.subarray(start + hlen);
  const data = new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length));
  return {shape, data};
}

/** Writes rows (Float32Arrays of one length) as a little-endian f4 .npy [rows, length]. */
function writeNpyF32(file, rows) {
  let header = `{'descr': '<f4', 'fortran_order': False, 'shape': (${rows.length}, ${rows[0].length}), }`;
  header += ' '.repeat(63 - ((10 + header.length) % 64)) + '\n';  // data 64-byte aligned
  const pre = Buffer.alloc(10);
  Buffer.from('\x93NUMPY', 'latin1').copy(pre);
  pre[6] = 1; pre[7] = 0; pre.writeUInt16LE(header.length, 8);
  const data = Buffer.concat(rows.map(r => Buffer.from(r.buffer, r.byteOffset, r.byteLength)));
  fs.writeFileSync(file, Buffer.concat([pre, Buffer.from(header, 'latin1'), data]));
}

function lastRow(logits) {
  const [, seq, vocab] = logits.dims;
  return logits.data.subarray((seq - 1) * vocab, seq * vocab);
}

function argmaxLast(logits) {
  const row = lastRow(logits), vocab = row.length;
  let best = 0;
  for (let v = 1; v < vocab; ++v) if (row[v] > row[best]) best = v;
  return best;
}

async function main() {
  const model = process.argv[2];
  const threads = arg('--threads', 1), warmup = arg('--warmup', 3), runs = arg('--runs', 10);
  const logitsOut = process.argv.includes('--logits-out') ?
      process.argv[process.argv.indexOf('--logits-out') + 1] : null;
  const opts = {intraOpNumThreads: threads, interOpNumThreads: 1, graphOptimizationLevel: 'all'};
  const load = g => ort.InferenceSession.create(path.join(model, 'onnx', g + '.onnx'), opts);
  const [vision, embed, decoder] = await Promise.all(
      ['vision_encoder', 'embed_tokens', 'decoder_model_merged'].map(load));
  const config = JSON.parse(fs.readFileSync(path.join(model, 'config.json')));
  const text = config.text_config || config;
  const kvHeads = text.num_key_value_heads, headDim = text.head_dim ||
      text.hidden_size / text.num_attention_heads;
  const ref = JSON.parse(fs.readFileSync(path.join(model, 'reference', 'generation.json')));
  const pixels = readNpyF32(path.join(model, 'reference', 'pixel_values.npy'));
  const imageToken = ref.image_token_index, prompt = ref.prompt_ids, newTokens = ref.max_new_tokens;
  const eos = [].concat(text.eos_token_id ?? []);

  const ids = t => new ort.Tensor('int64', BigInt64Array.from(t.map(BigInt)), [1, t.length]);
  async function generate(rows) {
    const t0 = performance.now();
    const feats = (await vision.run({pixel_values: new ort.Tensor('float32', pixels.data, pixels.shape)}))
                      .image_features;
    const visionMs = performance.now() - t0;
    const emb = (await embed.run({input_ids: ids(prompt)})).inputs_embeds;
    const hidden = emb.dims[2], data = Float32Array.from(emb.data);
    let k = 0;
    prompt.forEach((id, pos) => {
      if (id === imageToken) data.set(feats.data.subarray(k * hidden, (k + 1) * hidden), pos * hidden), ++k;
    });
    if (k * hidden !== feats.data.length) throw new Error(`${k} image tokens vs ${feats.dims}`);
    let past = {};
    for (const name of decoder.inputNames)
      if (name.startsWith('past_key_values.'))
        past[name] = new ort.Tensor('float32', new Float32Array(0), [1, kvHeads, 0, headDim]);
    let length = 0;
    const step = async (embeds, seq) => {
      const out = await decoder.run({
        inputs_embeds: embeds,
        attention_mask: ids(new Array(length + seq).fill(1)),
        position_ids: ids(Array.from({length: seq}, (_, i) => length + i)),
        ...past});
      length += seq;
      past = {};
      for (const name of decoder.outputNames)
        if (name.startsWith('present.')) past[name.replace('present.', 'past_key_values.')] = out[name];
      if (rows) rows.push(Float32Array.from(lastRow(out.logits)));
      return argmaxLast(out.logits);
    };
    const tokens = [await step(new ort.Tensor('float32', data, emb.dims), prompt.length)];
    const ttftMs = performance.now() - t0;
    const t1 = performance.now();
    while (tokens.length < newTokens && !eos.includes(tokens[tokens.length - 1])) {
      const e = (await embed.run({input_ids: ids([tokens[tokens.length - 1]])})).inputs_embeds;
      tokens.push(await step(e, 1));
    }
    const decodeMs = performance.now() - t1;
    return {tokens, visionMs, ttftMs, decodeTps: (tokens.length - 1) * 1000 / decodeMs};
  }
  for (let w = 0; w < warmup; ++w) await generate();
  const results = [];
  const rows = logitsOut ? [] : null;
  for (let r = 0; r < runs; ++r) results.push(await generate(r === 0 ? rows : null));
  if (rows) writeNpyF32(logitsOut, rows);
  console.log(JSON.stringify({
    onnxruntime: require('onnxruntime-node/package.json').version,
    tokens: results[0].tokens,
    vision_ms: results.map(r => r.visionMs),
    ttft_ms: results.map(r => r.ttftMs),
    decode_tokens_per_s: results.map(r => r.decodeTps),
  }));
}

main().catch(e => { console.error(e.message || e); process.exit(1); });
