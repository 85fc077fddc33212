// node run_ort.js model.onnx dir : runs onnxruntime on dir/inputs.json, writes dir/outputs.json + <name>.out.bin
const path = require("path");
const ort = require(path.join(__dirname, '..', '..', 'node_modules', 'onnxruntime-node'));
const fs = require('fs');
(async () => {
  const [model, dir] = process.argv.slice(2);
  const meta = JSON.parse(fs.readFileSync(dir + '/inputs.json'));
  const feeds = {};
  for (const m of meta) {
    const buf = fs.readFileSync(dir + '/' + m.name + '.bin');
    const ab = buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength);
    const data = m.dtype === 'float32' ? new Float32Array(ab) : new BigInt64Array(ab);
    feeds[m.name] = new ort.Tensor(m.dtype === 'float32' ? 'float32' : 'int64', data, m.shape);
  }
  const s = await ort.InferenceSession.create(model);
  const res = await s.run(feeds);
  const outs = [];
  for (const name of s.outputNames) {
    const t = res[name];
    fs.writeFileSync(dir + '/' + name + '.out.bin', Buffer.from(t.data.buffer, t.data.byteOffset, t.data.byteLength));
    outs.push({name, dims: t.dims, type: t.type});
  }
  fs.writeFileSync(dir + '/outputs.json', JSON.stringify(outs));
})().catch(e => { console.error(e); process.exit(1); });
