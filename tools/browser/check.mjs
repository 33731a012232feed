#!/usr/bin/env node
// check.mjs loads a .glb in headless Chromium (Debian's /usr/bin/chromium, or
// $RIGKIT_CHROMIUM) with three.js's GLTFLoader and prints one JSON report: the
// scene's bounding box (Box3.setFromObject, precise), mesh and bone counts and, per
// animation clip, how far AnimationMixer moves the vertices of every mesh (skinned
// ones through their bones; up to 3,000 per mesh, at 8 times) from the bind pose
// and between samples, whether every position is finite, whether the clip
// moves anything, whether it explodes (a vertex farther than 3 bounding-box
// diagonals from its bind position), and whether it keeps the character upright
// and sized (posed height along +Y within 0.6–1.4× the rest height, no extent over
// twice the largest rest extent, as rigkit's animation.CheckPosture; and the rest's
// lowest and highest 5% of vertices staying in the posed lowest and highest
// quarter, so that lying down or standing on the head fails).
//
// usage: node tools/browser/check.mjs FILE.glb
// exit status: 0 the file loads and no clip is non-finite, exploded, still or
// out of posture;
// 1 it loads but a clip fails those checks (or three.js cannot load it);
// 2 bad usage; 3 no Chromium to run.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { origin, route, findChromium } from './serve.mjs';

async function main() {
  const file = process.argv[2];
  if (!file || process.argv.length > 3) {
    console.error('usage: node tools/browser/check.mjs FILE.glb');
    return 2;
  }
  if (!fs.existsSync(file)) {
    console.error(`check: ${file}: no such file`);
    return 2;
  }
  const exe = findChromium('check');
  if (!exe) return 3;
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'rigkit-chromium-'));
  let ctx;
  try {
    ctx = await chromium.launchPersistentContext(profile, {
      executablePath: exe,
      headless: true,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
        '--disable-component-update', '--disable-sync'],
    });
    const tab = ctx.pages()[0] || (await ctx.newPage());
    const logs = [];
    tab.on('pageerror', (e) => logs.push(String(e)));
    await tab.route(`${origin}/**`, route(file, 'page.js'));
    await tab.goto(`${origin}/index.html`);
    await tab.waitForFunction(() => window.rigkitCheck !== undefined, null, { timeout: 60000 });
    const res = await tab.evaluate(() => window.rigkitCheck);
    if (!res.ok) {
      console.log(JSON.stringify({ file, ok: false, error: res.error, page_errors: logs }, null, 1));
      return 1;
    }
    const r = res.report;
    const bad = r.clips.filter((c) => !c.finite || c.exploded || !c.moved || !c.upright).map((c) => c.name);
    const ok = r.rest_finite && bad.length === 0;
    console.log(JSON.stringify({ file, ok, failed_clips: bad, ...r }, null, 1));
    return ok ? 0 : 1;
  } finally {
    if (ctx) await ctx.close();
    fs.rmSync(profile, { recursive: true, force: true });
  }
}

main().then((code) => process.exit(code), (e) => {
  console.error(`check: ${e && e.message ? e.message : e}`);
  process.exit(e && /Executable|browserType\.launch/.test(String(e.message)) ? 3 : 1);
});
