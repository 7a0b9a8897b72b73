// Runs the Khronos glTF-Validator (npm `gltf-validator`) over every .glb and .gltf named on the
// command line (folders are searched). Prints one JSON line per file with its error, warning
// and info counts and the errors themselves; exits 1 when any file has an error.
// The package is looked up in .validator/node_modules (see .ci/run), then Node's usual paths.
import { createRequire } from 'node:module';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(here, '..', '.validator', 'package.json'));
const validator = require('gltf-validator');

function collect(p, out) {
  const stat = fs.statSync(p);
  if (stat.isDirectory()) {
    for (const name of fs.readdirSync(p).sort()) collect(path.join(p, name), out);
  } else if (/\.(glb|gltf)$/i.test(p)) {
    out.push(p);
  }
}

const files = [];
for (const arg of process.argv.slice(2)) collect(arg, files);
let failed = 0;
for (const file of files) {
  const report = await validator.validateBytes(new Uint8Array(fs.readFileSync(file)), {
    uri: path.basename(file),
    maxIssues: 0,
    externalResourceFunction: (uri) =>
      Promise.resolve(new Uint8Array(fs.readFileSync(path.join(path.dirname(file), decodeURIComponent(uri))))),
  });
  const issues = report.issues;
  const errors = issues.messages.filter((m) => m.severity === 0);
  if (issues.numErrors > 0) failed += 1;
  console.log(JSON.stringify({
    file,
    errors: issues.numErrors,
    warnings: issues.numWarnings,
    infos: issues.numInfos,
    messages: errors.slice(0, 20).map((m) => `${m.code} ${m.pointer ?? ''} ${m.message}`),
    warningCodes: [...new Set(issues.messages.filter((m) => m.severity === 1).map((m) => m.code))],
  }));
}
console.log(JSON.stringify({ files: files.length, failed }));
process.exit(failed > 0 || files.length === 0 ? 1 : 0);
