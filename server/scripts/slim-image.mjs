// Run by server/Dockerfile after `npm prune --omit=dev`: removes from node_modules what a Node
// server never loads, so the image carries only what runs. The face check (src/photos/faces/
// worker.ts) loads @tensorflow/tfjs through its Node bundle (`main`, which requires the other
// @tensorflow packages' Node bundles), the WASM backend's .wasm files, face-api's Node+WASM
// bundle and three of its models; the browser bundles, the WebGL backend's ES modules, the
// source maps and the other models are never read.
//   node server/scripts/slim-image.mjs <node_modules directory>
// It fails (and so the build does) when a kept entry point is missing or requires a file of its
// own package, which this script would have removed.
import { existsSync, lstatSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(process.argv[2] ?? 'node_modules');
/** The models worker.ts loads (nets.tinyFaceDetector, faceLandmark68Net, faceRecognitionNet). */
const FACE_MODELS = [
  'tiny_face_detector_model',
  'face_landmark_68_model',
  'face_recognition_model',
];
const FACE_BUNDLE = 'dist/face-api.node-wasm.js';

let freed = 0;
function sizeOf(p) {
  const st = lstatSync(p);
  if (!st.isDirectory()) return st.size;
  return readdirSync(p).reduce((sum, name) => sum + sizeOf(path.join(p, name)), 0);
}
function remove(p) {
  freed += sizeOf(p);
  rmSync(p, { recursive: true, force: true });
}
function fail(message) {
  console.error(`slim-image: ${message}`);
  process.exit(1);
}

/** Removes every file of `dir` (recursively) for which `keep(relativePath)` is false. */
function keepOnly(dir, keep, rel = '') {
  for (const name of readdirSync(path.join(dir, rel))) {
    const r = rel ? `${rel}/${name}` : name;
    const full = path.join(dir, r);
    if (lstatSync(full).isDirectory()) {
      if (r === 'node_modules') continue;
      keepOnly(dir, keep, r);
      if (readdirSync(full).length === 0) rmSync(full, { recursive: true });
    } else if (!keep(r)) {
      remove(full);
    }
  }
}

const always = (r) => r === 'package.json' || /^(LICENSE|LICENCE|NOTICE)/i.test(r);

/** An entry point that requires './x' would break once the rest of its package is gone. */
function checkSelfContained(pkgDir, file) {
  const full = path.join(pkgDir, file);
  if (!existsSync(full)) fail(`${full} is missing: the package layout changed`);
  const relative = /require\(\s*["']\.{1,2}\//.exec(readFileSync(full, 'utf8'));
  if (relative)
    fail(`${full} requires a file of its own package (${relative[0]}): update this script`);
}

const tfDir = path.join(root, '@tensorflow');
for (const name of existsSync(tfDir) ? readdirSync(tfDir) : []) {
  const pkgDir = path.join(tfDir, name);
  const { main } = JSON.parse(readFileSync(path.join(pkgDir, 'package.json'), 'utf8'));
  const entry = path.posix.normalize(main ?? 'index.js');
  checkSelfContained(pkgDir, entry);
  keepOnly(pkgDir, (r) => always(r) || r === entry || /^dist\/[^/]+\.(wasm|worker\.js)$/.test(r));
}

const faceDir = path.join(root, '@vladmandic/face-api');
if (existsSync(faceDir)) {
  checkSelfContained(faceDir, FACE_BUNDLE);
  const model = (r) =>
    FACE_MODELS.some((m) => r.startsWith(`model/${m}.`) || r.startsWith(`model/${m}-`));
  keepOnly(faceDir, (r) => always(r) || r === FACE_BUNDLE || model(r));
  for (const m of FACE_MODELS) {
    if (!existsSync(path.join(faceDir, 'model', `${m}-weights_manifest.json`)))
      fail(`model ${m} is missing`);
  }
}

// sqlite3 built from source (no prebuilt binary reachable): the addon is all it loads; its
// sources, the SQLite amalgamation and the object files stay behind in the build stage.
const sqliteDir = path.join(root, 'sqlite3');
if (existsSync(sqliteDir)) {
  const addon = 'build/Release/node_sqlite3.node';
  if (existsSync(path.join(sqliteDir, addon))) {
    keepOnly(sqliteDir, (r) => !/^(deps|src|build)\//.test(r) || r === addon);
  }
}

// sharp's WebAssembly fallback, when the native build for this platform is installed.
const sharpNative = path.join(root, '@img', `sharp-${process.platform}-${process.arch}`);
if (existsSync(sharpNative) && existsSync(path.join(root, '@img/sharp-wasm32'))) {
  remove(path.join(root, '@img/sharp-wasm32'));
}

// Source maps and type declarations anywhere: nothing at run time reads them.
(function sweep(dir) {
  for (const name of readdirSync(dir)) {
    const full = path.join(dir, name);
    const st = lstatSync(full, { throwIfNoEntry: false });
    if (!st) continue;
    if (st.isDirectory()) sweep(full);
    else if (/\.(map|d\.ts|d\.mts|d\.cts|tsbuildinfo)$/.test(name)) remove(full);
  }
})(root);

console.log(`slim-image: removed ${(freed / 1e6).toFixed(0)} MB from ${root}`);
