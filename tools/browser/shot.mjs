#!/usr/bin/env node
// shot.mjs renders one frame of a .glb's animation clip with three.js in headless
// Chromium (software WebGL) and saves it as a PNG: how a web viewer shows the
// file at that time. It prints the posed bounding box as JSON.
//
// usage: node tools/browser/shot.mjs FILE.glb CLIP SECONDS OUT.png [WxH] [YAW_DEG]
// exit status: 0 written; 1 three.js could not load or pose it; 2 bad usage;
// 3 no Chromium to run.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { origin, route, findChromium } from './serve.mjs';

async function main() {
  const [file, clip, seconds, out, size = '320x360', yaw = '30'] = process.argv.slice(2);
  if (!out || process.argv.length > 8 || !/^\d+x\d+$/.test(size) || Number.isNaN(Number(seconds))) {
    console.error('usage: node tools/browser/shot.mjs FILE.glb CLIP SECONDS OUT.png [WxH] [YAW_DEG]');
    return 2;
  }
  if (!fs.existsSync(file)) {
    console.error(`shot: ${file}: no such file`);
    return 2;
  }
  const exe = findChromium('shot');
  if (!exe) return 3;
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'rigkit-chromium-'));
  let ctx;
  try {
    const [w, h] = size.split('x').map(Number);
    ctx = await chromium.launchPersistentContext(profile, {
      executablePath: exe,
      headless: true,
      viewport: { width: w, height: h },
      args: ['--headless', '--no-sandbox', '--use-angle=swiftshader', '--enable-unsafe-swiftshader',
        '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
    const tab = ctx.pages()[0] || (await ctx.newPage());
    await tab.route(`${origin}/**`, route(file, 'shot.js'));
    const q = new URLSearchParams({ clip, t: seconds, size, yaw });
    await tab.goto(`${origin}/index.html?${q}`);
    await tab.waitForFunction(() => window.rigkitShot !== undefined, null, { timeout: 60000 });
    const res = await tab.evaluate(() => window.rigkitShot);
    if (!res.ok) {
      console.error(`shot: ${file}: ${res.error}`);
      return 1;
    }
    await tab.locator('canvas').screenshot({ path: out });
    console.log(JSON.stringify({ file, out, ...res.report }));
    return 0;
  } finally {
    if (ctx) await ctx.close();
    fs.rmSync(profile, { recursive: true, force: true });
  }
}

main().then((code) => process.exit(code), (e) => {
  console.error(`shot: ${e && e.message ? e.message : e}`);
  process.exit(e && /Executable|browserType\.launch/.test(String(e.message)) ? 3 : 1);
});
