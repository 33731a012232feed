#!/usr/bin/env node
// validate.js runs the Khronos glTF validator on .glb/.gltf files and prints one line
// of issue counts per file. It exits 1 when any file has an error (or cannot be read),
// 0 otherwise. Warnings, infos and hints are counted but never fail the run.
//
// usage: node tools/validator/validate.js [-v] FILE...
//   -v  also print every error and warning message
'use strict';

const fs = require('fs');
const path = require('path');
const validator = require('gltf-validator');

async function validateFile(file, verbose) {
  const bytes = new Uint8Array(fs.readFileSync(file));
  const report = await validator.validateBytes(bytes, {
    uri: path.basename(file),
    maxIssues: 1000,
    externalResourceFunction: (uri) =>
      new Promise((resolve, reject) => {
        const p = path.resolve(path.dirname(file), decodeURIComponent(uri));
        fs.readFile(p, (err, data) => (err ? reject(err.toString()) : resolve(new Uint8Array(data))));
      }),
  });
  const i = report.issues;
  console.log(`${file}: ${i.numErrors} errors, ${i.numWarnings} warnings, ${i.numInfos} infos, ${i.numHints} hints`);
  if (verbose || i.numErrors > 0) {
    for (const m of i.messages) {
      if (m.severity === 0 || (verbose && m.severity === 1)) {
        const sev = m.severity === 0 ? 'error' : 'warning';
        console.log(`  ${sev} ${m.code} ${m.pointer || ''}: ${m.message}`);
      }
    }
  }
  return i.numErrors;
}

async function main() {
  let args = process.argv.slice(2);
  const verbose = args.includes('-v');
  args = args.filter((a) => a !== '-v');
  if (args.length === 0) {
    console.error('usage: node validate.js [-v] FILE...');
    process.exit(2);
  }
  let failed = 0;
  for (const file of args) {
    try {
      if ((await validateFile(file, verbose)) > 0) failed++;
    } catch (e) {
      console.log(`${file}: cannot validate: ${e}`);
      failed++;
    }
  }
  if (failed > 0) {
    console.log(`${failed} of ${args.length} files failed validation`);
    process.exit(1);
  }
}

main();
